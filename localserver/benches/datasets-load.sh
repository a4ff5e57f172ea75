#!/usr/bin/env bash
# Attribute-column memory of datasets under load: the release `waymark serve` on 127.0.0.1 with
# a 100,000-feature dataset (8 numeric attributes each from 400 names), 20 `where` searches per
# second over random attribute paths (three in four a path some features have, one in four a
# path none has) for DURATION seconds; the server's resident memory is sampled every second.
# Fails on any answer other than 200, a rate not held, or memory growth above MAX_GROWTH_MIB
# (default 96: the dataset's 64 MiB column budget plus 32 MiB of slack).
#
#   bash localserver/benches/datasets-load.sh [DURATION_SECONDS]     (default 300 s)
#
# The source file (about 20 MB, written once) is kept in $DATASETS_LOAD_WORK (default
# $CARGO_TARGET_DIR/datasets-load-work). tests/run-all.sh runs 20 s against the debug build.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION="${1:-300}"
PROFILE="${PROFILE:-release}"
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
if [ "$PROFILE" = release ]; then
  cargo build --release -q -p waymark-localserver --bin waymark -p waymark-tests --bin datasets-load
else
  cargo build -q -p waymark-localserver --bin waymark -p waymark-tests --bin datasets-load
fi
"$TARGET/$PROFILE/datasets-load" --server "$TARGET/$PROFILE/waymark" \
  --work "${DATASETS_LOAD_WORK:-$TARGET/datasets-load-work}" \
  --duration "$DURATION" --max-growth-mib "${MAX_GROWTH_MIB:-96}"
