#!/usr/bin/env bash
# Load test of the release local server with wrk (apt-get install wrk).
#
#   bash localserver/benches/load.sh [PATH_AND_QUERY] [RATE_LIMITS] [DURATION] [CONNECTIONS]
#
# Starts `waymark serve` in development mode on a free port with a throw-away state
# directory, sends authenticated requests (X-Api-Key, private key) for DURATION with 2 wrk
# threads and CONNS (default 16) connections, prints wrk's latency distribution, and stops the server.
# Run it under the build lock (`flock /work/cargo.lock bash localserver/benches/load.sh ...`)
# on a shared machine so that no build or test competes for the two cores.
#
# Environment:
#   SAMPLE_PACKS=1   serve real data: the Helsinki and base sample packs, which `waymark serve`
#                    builds on first run (kept in $LOAD_STATE, default target/load-state, so
#                    later runs reuse them). Without it the server runs with no packs.
#   PATHS_FILE=F     one PATH_AND_QUERY per line: wrk cycles through them (PATH_AND_QUERY is
#                    then only used for the status check). With SAMPLE_PACKS=1 the special
#                    value PATHS_FILE=position-mix writes 16 `/geolocation/position?ip_address=`
#                    paths: 12 addresses of the Helsinki pack's ranges (IPv4 and IPv6) and 4
#                    the base pack answers; PATHS_FILE=timezone-mix writes 16
#                    `/geolocation/timezone` paths (cities on every continent, seas, a pole);
#                    PATHS_FILE=autosuggest-mix writes 300 `/threewords/autosuggest` paths: the
#                    addresses of 300 points uniform on the sphere (seeded) with the third word
#                    cut to 1, 2 or 3 letters, each with `focus` at its point.
#   NO_BUILD=1       use the release `waymark` as it is (a build selecting fewer packages than
#                    the last one can resolve dependency features differently and rebuild them all)
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${1:-/geolocation/timezone?location=60.17,24.94}"
LIMITS="${2:-off}"
DURATION="${3:-10s}"
CONNS="${4:-16}"
command -v wrk >/dev/null || { echo "wrk is required: apt-get install wrk"; exit 1; }
if [ -z "${NO_BUILD:-}" ]; then
  cargo build --release -q -p waymark-localserver --bin waymark
fi
BIN="${CARGO_TARGET_DIR:-target}/release/waymark"
if [ "${SAMPLE_PACKS:-0}" = 1 ]; then
  STATE="${LOAD_STATE:-${CARGO_TARGET_DIR:-target}/load-state}"
  mkdir -p "$STATE"
  PACK_FLAGS=()
  KEEP_STATE=1
else
  STATE="$(mktemp -d)"
  PACK_FLAGS=(--no-sample-packs)
  KEEP_STATE=0
fi
WORK="$(mktemp -d)"
PORT=$((20000 + RANDOM % 20000))
"$BIN" serve "${PACK_FLAGS[@]}" --port "$PORT" --state-dir "$STATE" --rate-limits "$LIMITS" --log-format json 2>"$WORK/server.log" >"$WORK/stdout" &
PID=$!
cleanup() {
  kill $PID 2>/dev/null; wait $PID 2>/dev/null
  rm -rf "$WORK"
  [ "$KEEP_STATE" = 1 ] || rm -rf "$STATE"
}
trap cleanup EXIT
# The first run with sample packs builds them (tens of seconds).
for _ in $(seq 1 3000); do
  [ -s "$STATE/dev-keys.json" ] && grep -q listening "$WORK/stdout" && break
  kill -0 $PID 2>/dev/null || { cat "$WORK/stdout" "$WORK/server.log"; exit 1; }
  sleep 0.1
done
KEY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["private_key"])' "$STATE/dev-keys.json")
grep '^pack ' "$WORK/stdout" || true
if [ "${PATHS_FILE:-}" = timezone-mix ]; then
  PATHS_FILE="$WORK/paths"
  for p in 60.17,24.94 52.52,13.40 40.71,-74.01 -33.87,151.21 -33.45,-70.67 28.61,77.21 \
           27.72,85.32 -43.95,-176.55 35.68,139.69 -1.29,36.82 19.43,-99.13 64.15,-21.94 \
           -17.7,178.0 30.0,-40.0 0.0,-140.0 -90.0,0.0; do
    echo "/geolocation/timezone?location=$p&timestamp=1784000000"
  done >"$PATHS_FILE"
fi
if [ "${PATHS_FILE:-}" = position-mix ]; then
  PATHS_FILE="$WORK/paths"
  python3 - "$STATE/packs" >"$PATHS_FILE" <<'PYEOF'
import glob, ipaddress, sqlite3, sys
db = sorted(glob.glob(sys.argv[1] + "/helsinki/*/data.sqlite"))[-1]
conn = sqlite3.connect(db)
rows = conn.execute("SELECT start FROM ip_ranges ORDER BY start").fetchall()
v4 = [r[0] for r in rows if r[0][:12] == b"\0" * 10 + b"\xff\xff"]
v6 = [r[0] for r in rows if r[0][:12] != b"\0" * 10 + b"\xff\xff"]
def show(b):
    ip = ipaddress.IPv6Address(b)
    return str(ip.ipv4_mapped or ip)
picked = [v4[i * len(v4) // 8] for i in range(8)] + [v6[i * len(v6) // 4] for i in range(4)]
for b in picked:
    print(f"/geolocation/position?ip_address={show(b)}")
for ip in ["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "81.2.69.142"]:
    print(f"/geolocation/position?ip_address={ip}")
PYEOF
fi
if [ "${PATHS_FILE:-}" = autosuggest-mix ]; then
  PATHS_FILE="$WORK/paths"
  python3 - "$PORT" "$KEY" >"$PATHS_FILE" <<'PYEOF'
import json, math, random, sys, urllib.request
port, key = sys.argv[1], sys.argv[2]
rng = random.Random(42)
for i in range(300):
    lat = math.degrees(math.asin(2 * rng.random() - 1))
    lng = rng.random() * 360 - 180
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/threewords/convert-to-3wa?coordinates={lat:.6f},{lng:.6f}",
        headers={"X-Api-Key": key})
    words = json.load(urllib.request.urlopen(req))["words"]
    head, last = words.rsplit(".", 1)
    print(f"/threewords/autosuggest?input={head}.{last[:1 + i % 3]}&focus={lat:.6f},{lng:.6f}")
PYEOF
fi
echo "target: $TARGET  rate limits: $LIMITS  status of one request:"
curl -s -o /dev/null -w '%{http_code}\n' -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT$TARGET"
WRK_ARGS=()
if [ -n "${PATHS_FILE:-}" ]; then
  echo "paths ($(wc -l <"$PATHS_FILE")), status of each:"
  while read -r p; do
    printf '  %s %s\n' "$(curl -s -o /dev/null -w '%{http_code}' -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT$p")" "$p"
  done <"$PATHS_FILE"
  {
    echo 'local paths = {}'
    while read -r p; do printf 'table.insert(paths, "%s")\n' "$p"; done <"$PATHS_FILE"
    echo 'local n = 0'
    echo 'request = function() n = n % #paths + 1; return wrk.format(nil, paths[n]) end'
    echo 'done = function(summary, latency, requests)'
    echo '  io.write(string.format("p95 latency: %.0f us, non-2xx/3xx: %d\n", latency:percentile(95), summary.errors.status))'
    echo 'end'
  } >"$WORK/paths.lua"
  WRK_ARGS=(-s "$WORK/paths.lua")
fi
# The access log costs a write per request; the load test measures the server with logging at warn.
kill $PID; wait $PID 2>/dev/null || true
RUST_LOG=warn "$BIN" serve "${PACK_FLAGS[@]}" --port "$PORT" --state-dir "$STATE" --rate-limits "$LIMITS" >"$WORK/stdout" 2>>"$WORK/server.log" &
PID=$!
for _ in $(seq 1 600); do grep -q listening "$WORK/stdout" && break; sleep 0.1; done
# Warm up: the first request after a start builds the in-memory indexes of the pack set.
curl -s -o /dev/null -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT$TARGET"
if [ -n "${PATHS_FILE:-}" ]; then
  while read -r p; do curl -s -o /dev/null -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT$p"; done <"$PATHS_FILE"
fi
wrk -t2 -c"$CONNS" -d"$DURATION" --latency "${WRK_ARGS[@]}" -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT$TARGET"
