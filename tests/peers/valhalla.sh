#!/usr/bin/env bash
# Side by side with Valhalla, in one run, on the same extracts and the same questions.
#
#   bash tests/peers/valhalla.sh [REGION ...]     (default: andorra neubrandenburg helsinki)
#
# Installs pyvalhalla (the weekly wheel, pinned) and shapely into a scratch virtualenv, builds
# Valhalla's tiles from the same OSM extract as Waymark's sample pack, runs Waymark's half
# (`waymark-peer`, release build: driving routes without and with steps, walking and cycling
# routes between the same pairs, one 100×100 matrix, 20
# isochrones per mode) and
# asks Valhalla the same questions in process (its Python bindings, no HTTP on either side).
# Prints per case the p50 times, the speed ratio and how the answers agree (isochrones: IoU
# median, mean and minimum). Routes are asked on equal work: Valhalla without maneuvers where
# Waymark has no steps, with maneuvers and instructions where it has. Not part of CI:
# it takes a few minutes per region. Scratch files live in ${PEER_DIR:-/tmp/waymark-peers}.
set -euo pipefail
cd "$(dirname "$0")/../.."
REGIONS=("$@")
[ ${#REGIONS[@]} -gt 0 ] || REGIONS=(andorra neubrandenburg helsinki)
WORK="${PEER_DIR:-/tmp/waymark-peers}"
VENV="$WORK/venv"
mkdir -p "$WORK"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -r tests/peers/requirements.txt
fi
cargo build -q --release -p waymark-tests --bin waymark-peer
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
for region in "${REGIONS[@]}"; do
  pbf="$(cd .. && pwd)/shared/data/osm/$region.osm.pbf"
  out="$WORK/$region"
  mkdir -p "$out/tiles"
  if [ ! -f "$out/tiles.done" ]; then
    "$VENV/bin/python" tests/peers/compare.py config "$out" > "$out/valhalla.json"
    # (in $out: the tile builder writes a report of duplicate ways into its working directory)
    bin="$("$VENV/bin/python" -m valhalla print_bin_path)"
    (cd "$out" && "$bin/valhalla_build_tiles" -c "$out/valhalla.json" "$pbf" > build.log 2>&1)
    touch "$out/tiles.done"
  fi
  "$TARGET/release/waymark-peer" "$region" "$out/waymark.json"
  "$VENV/bin/python" tests/peers/compare.py compare "$out" "$(du -sb "$out/tiles" | cut -f1)"
done
