#!/usr/bin/env bash
# Resident memory through one pack build, sampled once a second: where a build's peak is.
#
#   bash data-packs/scripts/build-rss.sh OUT_DIR -- BUILD_ARGS...
#
# Runs the release `waymark-packs build BUILD_ARGS --out OUT_DIR/packs --force` (RUST_LOG=info,
# its log in OUT_DIR/build.log, whose timestamps name each layer as it ends) and writes
# OUT_DIR/rss.txt: `HH:MM:SS RSS_KiB` per second. Prints the peak and when it was reached.
# Not part of CI. Example (the 5 M-node country of docs/performance.md):
#
#   waymark-packs synth --nodes 5550000 --layout country --lat 50.4 --lng 8.6 --out c.osm.pbf
#   bash data-packs/scripts/build-rss.sh /tmp/rss -- --pack country --extract c.osm.pbf \
#     --extract-licence CC0-1.0 --extract-attribution synthetic
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:?OUT_DIR}"
shift
[ "${1:-}" = "--" ] && shift
BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/waymark-packs"
mkdir -p "$OUT"
: > "$OUT/rss.txt"
RUST_LOG=info "$BIN" build "$@" --out "$OUT/packs" --force > "$OUT/build.out" 2> "$OUT/build.log" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && echo "$(date +%H:%M:%S) $rss" >> "$OUT/rss.txt"
  sleep 1
done
wait "$pid"
sort -k2 -n "$OUT/rss.txt" | tail -n1 | awk '{printf "peak %.0f MB at %s\n", $2 / 1024, $1}'
