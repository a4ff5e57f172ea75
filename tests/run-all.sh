#!/usr/bin/env bash
# Runs every check and test of the workspace: formatting, clippy, and all Rust tests (unit,
# doc, and the end-to-end suite over real HTTP on 127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test"
LOG="$(mktemp)"
cargo test --workspace --locked 2>&1 | tee "$LOG"

# One closing line for the whole run (cargo's own last line is that of the last crate).
awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "total: %d passed, %d failed, %d skipped\n", p, f, i }' "$LOG"
rm -f "$LOG"
