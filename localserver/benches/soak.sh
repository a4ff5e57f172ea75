#!/usr/bin/env bash
# Soak test of the local server: the release `waymark serve` process on 127.0.0.1,
# at full rate for DURATION seconds over a mix of every built endpoint with real queries from
# the parity pack (Andorra with every layer and the sample venue), while a Monaco pack is
# installed and replaced twice and asynchronous matrix jobs run; the server's RSS is sampled
# every 10 s. Prints requests, answers by status, unexpected statuses (errors), p50/p99 and
# RSS growth after warm-up (the first 15% of the run); exits 1 on any error, a failed install
# or matrix job, or RSS growth above MAX_RSS_GROWTH percent.
#
#   bash localserver/benches/soak.sh [DURATION_SECONDS] [CLIENTS]     (default 600 s, 4 clients)
#
# Bounded: DURATION is capped at 3600 s; everything listens on 127.0.0.1 only. The prepared data
# (built once, about a minute) is kept in $SOAK_WORK (default $CARGO_TARGET_DIR/soak-work).
# Run it under the build lock on a shared machine (`flock /work/cargo.lock bash ...`).
#
# Environment:
#   PROFILE=debug       use the debug binaries (the CI's 30-second run: tests/run-all.sh)
#   MAX_RSS_GROWTH=PCT  RSS growth limit after warm-up (default 5; `none` to report only)
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION="${1:-600}"
CLIENTS="${2:-4}"
[ "$DURATION" -le 3600 ] || DURATION=3600
PROFILE="${PROFILE:-release}"
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
if [ "$PROFILE" = release ]; then
  cargo build --release -q -p waymark-localserver --bin waymark -p waymark-tests --bin soak
else
  cargo build -q -p waymark-localserver --bin waymark -p waymark-tests --bin soak
fi
WORK="${SOAK_WORK:-$TARGET/soak-work}"
GROWTH=()
if [ "${MAX_RSS_GROWTH:-5}" != none ]; then GROWTH=(--max-rss-growth "${MAX_RSS_GROWTH:-5}"); fi
"$TARGET/$PROFILE/soak" --server "$TARGET/$PROFILE/waymark" --work "$WORK" \
  --duration "$DURATION" --clients "$CLIENTS" "${GROWTH[@]}"
