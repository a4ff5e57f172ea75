#!/usr/bin/env bash
# Load test of the release local server with wrk (apt-get install wrk).
#
#   bash localserver/benches/load.sh [PATH_AND_QUERY] [RATE_LIMITS] [DURATION] [CONNECTIONS]
#
# Starts `waymark serve` in development mode on a free port with a throw-away state
# directory, sends authenticated requests (X-Api-Key, private key) for DURATION with 2 wrk
# threads and CONNS (default 16) connections, prints wrk's latency distribution, and stops the server.
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${1:-/geolocation/timezone?location=60.17,24.94}"
LIMITS="${2:-off}"
DURATION="${3:-10s}"
CONNS="${4:-16}"
command -v wrk >/dev/null || { echo "wrk is required: apt-get install wrk"; exit 1; }
cargo build --release -q -p waymark-localserver --bin waymark
BIN="${CARGO_TARGET_DIR:-target}/release/waymark"
STATE="$(mktemp -d)"
PORT=$((20000 + RANDOM % 20000))
"$BIN" serve --no-sample-packs --port "$PORT" --state-dir "$STATE" --rate-limits "$LIMITS" --log-format json 2>"$STATE/server.log" >"$STATE/stdout" &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$STATE"' EXIT
for _ in $(seq 1 100); do
  [ -s "$STATE/dev-keys.json" ] && grep -q listening "$STATE/stdout" && break
  sleep 0.1
done
KEY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["private_key"])' "$STATE/dev-keys.json")
echo "target: $TARGET  rate limits: $LIMITS  status of one request:"
curl -s -o /dev/null -w '%{http_code}\n' -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT$TARGET"
# The access log costs a write per request; the load test measures the server with logging at warn.
kill $PID; wait $PID 2>/dev/null || true
RUST_LOG=warn "$BIN" serve --no-sample-packs --port "$PORT" --state-dir "$STATE" --rate-limits "$LIMITS" >"$STATE/stdout" 2>>"$STATE/server.log" &
PID=$!
for _ in $(seq 1 100); do grep -q listening "$STATE/stdout" && break; sleep 0.1; done
wrk -t2 -c"$CONNS" -d"$DURATION" --latency -H "X-Api-Key: $KEY" "http://127.0.0.1:$PORT$TARGET"
