#!/usr/bin/env bash
# Delta size of a sample pack rebuilt from a slightly edited extract.
#
#   bash data-packs/scripts/delta-sizes.sh [PACK] [WAYS] [OUT_DIR]
#
# Builds PACK (default andorra) as version `1`, then as version `2` from the same extract with
# WAYS (default 40) routable named ways renamed and limited to 30 km/h (`--edit-ways`), and as
# version `3` with those ways dropped (`--drop-ways`), and as version `day` after a day of
# edits (`--edit-day ${DAY:-0.005}`: about 0.5% of the routable ways added, deleted,
# re-tagged or re-shaped, new junctions included); builds the deltas from `1` and prints
# their sizes per file. Version `1b` (the same extract, built again) shows what a
# rebuild alone changes.
#
# BUILD_ARGS="--extract FILE.osm.pbf --extract-licence CC0-1.0 --extract-attribution A" builds
# PACK (any id) from FILE instead of its sample extract, e.g. a `waymark-packs synth` network.
set -euo pipefail
cd "$(dirname "$0")/../.."
PACK="${1:-andorra}"
WAYS="${2:-40}"
OUT="${3:-/tmp/waymark-delta-sizes}"
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
# PROFILE=debug reuses a debug build (the sizes do not depend on the profile, the times do);
# NO_BUILD=1 uses the binary as it is.
PROFILE="${PROFILE:-release}"
if [ -n "${NO_BUILD:-}" ]; then
  :
elif [ "$PROFILE" = release ]; then
  cargo build --release -p waymark-packs --bin waymark-packs --quiet
else
  cargo build -p waymark-packs --bin waymark-packs --quiet
fi
BIN="$TARGET/$PROFILE/waymark-packs"
mkdir -p "$OUT"
PUB="$OUT/publisher.json"
if [ ! -f "$PUB" ]; then
  cargo build -p waymark-localserver --bin waymark --quiet
  "$TARGET/debug/waymark" keys new-publisher --out "$PUB" >/dev/null
fi
build() { # version, extra args
  local v="$1"; shift
  if [ ! -f "$OUT/$PACK-$v/manifest.json" ]; then
    # shellcheck disable=SC2086
    "$BIN" build --pack "$PACK" --version "$v" --out "$OUT" --publisher "$PUB" ${BUILD_ARGS:-} "$@" >/dev/null 2>&1
  fi
}
# DAY_ONLY=1 builds only `1` and `day`.
VERSIONS="1b 2 3 day"
build 1
if [ -n "${DAY_ONLY:-}" ]; then
  VERSIONS="day"
else
  build 1b
  build 2 --edit-ways "$WAYS"
  build 3 --edit-ways "$WAYS" --drop-ways
fi
build day --edit-day "${DAY:-0.005}"
for v in $VERSIONS; do
  echo "== $PACK 1 -> $v"
  rm -rf "$OUT/$PACK-$v/deltas"
  "$BIN" delta "$OUT/$PACK-1" "$OUT/$PACK-$v" --publisher "$PUB"
done
