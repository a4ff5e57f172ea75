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
cargo test --workspace --locked 2>&1 | tee "${TMPDIR:-/tmp}/waymark-cargo-test.log"
