#!/usr/bin/env bash
# Memory at pack swaps: starts `waymark serve` over the soak's prepared packs (run
# localserver/benches/soak.sh once first), then N times removes the Monaco pack and installs one
# of its three versions again through the API, with a few requests after each, and prints the
# server's RSS after each swap. Loopback only.
#
#   N=8 [ARENA=1] [BIN=target/debug/waymark] bash localserver/benches/pack-swaps.sh
#
# ARENA=n runs the server with MALLOC_ARENA_MAX=n (glibc).
set -u
T="${CARGO_TARGET_DIR:-$PWD/target}"
W="${SOAK_WORK:-$T/soak-work}"
BIN="${BIN:-$T/release/waymark}"
R=$(mktemp -d); cp -a "$W/packs" "$R/packs"; rm -rf "$R/packs/monaco"
KEY=$("$BIN" keys issue --publisher "$W/publisher.json" --kind private --write 2>/dev/null | tail -1)
TRUST=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['public_key'])" "$W/publisher.json")
env ${ARENA:+MALLOC_ARENA_MAX=$ARENA} RUST_LOG=warn "$BIN" serve --port 0 --rate-limits off \
  --no-sample-packs --state-dir "$R/state" --packs "$R/packs" --trust "$TRUST" >"$R/out" 2>/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null; rm -rf "$R"' EXIT
for _ in $(seq 100); do grep -q listening "$R/out" && break; sleep 0.1; done
ADDR=$(grep -o 'http://[0-9.:]*' "$R/out" | head -1)
load() {
  for q in "/localities/autocomplete?input=Andorra" "/geolocation/timezone?location=42.5,1.5" \
           "/stores/search?lat=42.5075&lng=1.5218" "/distance/route/json?origin=42.5078,1.5211&destination=42.5346,1.5806" \
           "/localities/nearby?location=42.5078,1.5211&radius=300" "/threewords/convert-to-3wa?coordinates=42.5063,1.5218" \
           "/geolocation/position?ip_address=8.8.8.8"; do
    curl -s -o /dev/null -H "X-Api-Key: $KEY" "$ADDR$q"
  done
}
rss() { awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$PID/status"; }
load; echo "start: rss $(rss) MiB"
for i in $(seq "${N:-8}"); do
  V=$(( (i - 1) % 3 + 1 ))
  curl -s -o /dev/null -X DELETE -H "X-Api-Key: $KEY" "$ADDR/packs/monaco"
  curl -s -o /dev/null -H "X-Api-Key: $KEY" -H 'Content-Type: application/json' \
    -d "{\"url\":\"file://$W/monaco/monaco-$V\"}" "$ADDR/packs"
  sleep 1.5; load; load
  echo "swap $i (monaco $V): rss $(rss) MiB"
done
