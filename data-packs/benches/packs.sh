#!/usr/bin/env bash
# Pack benchmarks (figures in docs/performance.md):
#   1. build every sample pack (release), timing each and reporting data.sqlite vs the PBF;
#   2. open all of them cold through PackRegistry (time, resident memory);
#   3. install the largest from a local HTTP server (waymark-packs serve), MB/s incl. verification,
#      and a resumed install after a cut (bytes transferred).
#
#   bash data-packs/benches/packs.sh
#
# NO_BUILD=1 uses the release binaries as they are (a build selecting fewer packages than the
# last one can resolve dependency features differently and rebuild them all).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${NO_BUILD:-}" ]; then
  cargo build --release -q -p waymark-packs -p waymark-localserver
fi
BIN="${CARGO_TARGET_DIR:-target}/release"
WORK="$(mktemp -d)"
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
SERVER=""
"$BIN/waymark" keys new-publisher --out "$WORK/publisher.json" > "$WORK/pub.txt"
TRUST=$(sed -n 's/^trust it with: --trust //p' "$WORK/pub.txt")
echo "== build (release, 2 cores)"
for pack in neubrandenburg andorra liechtenstein munchen london porto monaco helsinki base; do
  start=$(date +%s.%N)
  "$BIN/waymark-packs" build --pack "$pack" --version 1 --out "$WORK/built" --publisher "$WORK/publisher.json" >/dev/null 2>&1
  end=$(date +%s.%N)
  db=$(stat -c %s "$WORK/built/$pack-1/data.sqlite")
  pbf=$(stat -c %s "../shared/data/osm/$pack.osm.pbf" 2>/dev/null || echo 0)
  search=$(du -sb "$WORK/built/$pack-1/search" 2>/dev/null | cut -f1 || echo 0)
  printf "%-15s %6.1f s  data.sqlite %10d bytes  search/ %9d bytes  pbf %9d bytes\n" "$pack" "$(echo "$end - $start" | bc)" "$db" "$search" "$pbf"
done
echo "== layer sizes of the andorra pack"
"$BIN/waymark-packs" inspect "$WORK/built/andorra-1" | sed -n '/layer sizes/,/sources/p' | grep -v sources
echo "== install all from file:// and open cold"
for d in "$WORK"/built/*-1; do
  "$BIN/waymark-packs" install --from "file://$d" --into "$WORK/packs" --trust "$TRUST" >/dev/null
done
sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || echo "(page cache not dropped: not permitted)"
"$BIN/waymark-packs" load --dir "$WORK/packs" --trust "$TRUST"
echo "== install from a local HTTP server"
PORT=$((30000 + RANDOM % 20000))
"$BIN/waymark-packs" serve --dir "$WORK/built" --port "$PORT" >/dev/null 2>&1 &
SERVER=$!
sleep 0.5
for pack in base andorra; do
  "$BIN/waymark-packs" install --from "http://127.0.0.1:$PORT/$pack-1" --into "$WORK/http-packs" --trust "$TRUST"
done
