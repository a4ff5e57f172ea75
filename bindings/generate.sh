#!/usr/bin/env bash
# Generates the Kotlin and Swift bindings of libwaymark_ffi with the workspace's own
# uniffi-bindgen in library mode, into bindings/kotlin and bindings/swift.
#
#   bash bindings/generate.sh           # rewrite the checked-in bindings
#   bash bindings/generate.sh --check   # fail when they differ from what ffi/ generates now
#
# Builds with the same package selection as tests/run-all.sh (the whole workspace), so that it
# reuses that build instead of compiling dependencies again with other features.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --workspace --locked --quiet
LIB="$TARGET/debug/libwaymark_ffi.so"
BINDGEN="$TARGET/debug/uniffi-bindgen"

out="bindings"
if [[ "${1:-}" == "--check" ]]; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi
rm -rf "$out/kotlin" "$out/swift"
"$BINDGEN" generate --library "$LIB" --language kotlin --out-dir "$out/kotlin" --no-format >/dev/null
"$BINDGEN" generate --library "$LIB" --language swift --out-dir "$out/swift" --no-format >/dev/null

if [[ "${1:-}" == "--check" ]]; then
  stale=0
  diff -r bindings/kotlin "$out/kotlin" >/dev/null || { diff -ru bindings/kotlin "$out/kotlin" | head -40; stale=1; }
  diff -r bindings/swift "$out/swift" >/dev/null || { diff -ru bindings/swift "$out/swift" | head -40; stale=1; }
  for f in "$out"/swift/*.swift; do
    name="$(basename "$f" .swift)"
    cmp -s "$f" "ios/Sources/$name/$name.swift" || { echo "ios/Sources/$name/$name.swift is stale"; stale=1; }
  done
  if [[ $stale == 1 ]]; then
    echo "FAIL: the checked-in bindings differ from what ffi/ generates; run: bash bindings/generate.sh" >&2
    exit 1
  fi
  echo "bindings: kotlin, swift and the Swift package's generated targets match ffi/"
else
  # The Swift package compiles each generated module as a target of its own
  # (ios/Sources/WaymarkCore, ios/Sources/WaymarkEngine).
  for f in bindings/swift/*.swift; do
    name="$(basename "$f" .swift)"
    mkdir -p "ios/Sources/$name"
    cp "$f" "ios/Sources/$name/$name.swift"
  done
  echo "bindings written to bindings/kotlin, bindings/swift and ios/Sources"
fi
