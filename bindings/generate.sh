#!/usr/bin/env bash
# Generates, with the workspace's own uniffi-bindgen in library mode over libwaymark_ffi, every
# generated file straight into the place that compiles it:
#
#   bindings/kotlin/                      Kotlin bindings (compiled by android/pom.xml)
#   ios/Sources/WaymarkCore/WaymarkCore.swift, ios/Sources/WaymarkEngine/WaymarkEngine.swift
#                                         Swift bindings (targets of ios/Package.swift)
#   ios/FFI/                              their C headers and module maps (build-xcframework.sh)
#   android/src/main/kotlin/com/waymark/sdk/WaymarkOperations.kt
#   ios/Sources/Waymark/WaymarkOperations.swift
#                                         the wrappers' operations, from the endpoint table
#
#   bash bindings/generate.sh           # rewrite them
#   bash bindings/generate.sh --check   # fail when they differ from what ffi/ generates now
#
# Builds with the same package selection as tests/run-all.sh (the whole workspace), so that it
# reuses that build instead of compiling dependencies again with other features.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --workspace --locked --quiet
# The host's name for the cdylib that cargo built: macOS (where ios/build-xcframework.sh runs)
# makes a .dylib, Linux a .so. Library mode reads the same uniffi metadata from either.
case "$(uname -s)" in
  Darwin) LIB="$TARGET/debug/libwaymark_ffi.dylib" ;;
  *) LIB="$TARGET/debug/libwaymark_ffi.so" ;;
esac
[[ -f "$LIB" ]] || { echo "bindings/generate.sh: $LIB is missing after the build" >&2; exit 1; }
BINDGEN="$TARGET/debug/uniffi-bindgen"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$BINDGEN" generate --library "$LIB" --language kotlin --out-dir "$work/kotlin" --no-format >/dev/null
"$BINDGEN" generate --library "$LIB" --language swift --out-dir "$work/swift" --no-format >/dev/null
mkdir -p "$work/out/bindings" "$work/out/ios/FFI" "$work/out/ios/Sources/Waymark" \
  "$work/out/android/src/main/kotlin/com/waymark/sdk"
mv "$work/kotlin" "$work/out/bindings/kotlin"
for f in "$work"/swift/*.swift; do
  name="$(basename "$f" .swift)"
  mkdir -p "$work/out/ios/Sources/$name"
  mv "$f" "$work/out/ios/Sources/$name/$name.swift"
done
mv "$work"/swift/*.h "$work"/swift/*.modulemap "$work/out/ios/FFI/"
"$BINDGEN" wrappers \
  --kotlin "$work/out/android/src/main/kotlin/com/waymark/sdk/WaymarkOperations.kt" \
  --swift "$work/out/ios/Sources/Waymark/WaymarkOperations.swift"

# Every generated file, relative to the repository root.
generated="$(cd "$work/out" && find . -type f | sed 's|^\./||' | sort)"

if [[ "${1:-}" == "--check" ]]; then
  stale=0
  while read -r f; do
    cmp -s "$work/out/$f" "$f" || { echo "stale: $f"; diff -u "$f" "$work/out/$f" | head -20; stale=1; }
  done <<< "$generated"
  # A generated file that ffi/ no longer produces is stale too.
  for f in $(find bindings/kotlin ios/FFI -type f | sort); do
    grep -qxF "$f" <<< "$generated" || { echo "no longer generated: $f"; stale=1; }
  done
  if [[ $stale == 1 ]]; then
    echo "FAIL: the checked-in generated files differ from what ffi/ generates; run: bash bindings/generate.sh" >&2
    exit 1
  fi
  echo "generated files match ffi/ and the endpoint table ($(wc -l <<< "$generated") files)"
else
  rm -rf bindings/kotlin ios/FFI
  while read -r f; do
    mkdir -p "$(dirname "$f")"
    cp "$work/out/$f" "$f"
  done <<< "$generated"
  echo "generated $(wc -l <<< "$generated") files"
fi
