#!/usr/bin/env bash
# Builds ios/WaymarkFFI.xcframework (device + simulator static libraries of waymark-ffi with the
# generated C headers of ios/FFI) after regenerating the Swift bindings in ios/Sources/WaymarkCore
# and ios/Sources/WaymarkEngine (bindings/generate.sh writes both).
# Needs macOS with Xcode and the Rust targets aarch64-apple-ios, aarch64-apple-ios-sim and
# x86_64-apple-ios (rustup target add ...). NOT RUN on the project's Linux machines.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "$(uname -s)" != Darwin ]] || ! command -v xcodebuild >/dev/null || ! command -v lipo >/dev/null; then
  echo "ios/build-xcframework.sh needs macOS with Xcode (xcodebuild, lipo)" >&2
  exit 1
fi
TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
PROFILE=release

for t in aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios; do
  cargo rustc -p waymark-ffi --lib --release --locked --target "$t" --crate-type staticlib
done

# Bindings from a host build of the same sources (library mode reads the metadata from the host
# cdylib, libwaymark_ffi.dylib on macOS): the Swift in ios/Sources/, the headers and module maps
# in ios/FFI/.
bash bindings/generate.sh

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/headers" "$work/sim"
cp ios/FFI/*.h "$work/headers/"
# One module map naming both FFI modules.
cat ios/FFI/*.modulemap > "$work/headers/module.modulemap"

lipo -create \
  "$TARGET_DIR/aarch64-apple-ios-sim/$PROFILE/libwaymark_ffi.a" \
  "$TARGET_DIR/x86_64-apple-ios/$PROFILE/libwaymark_ffi.a" \
  -output "$work/sim/libwaymark_ffi.a"

rm -rf ios/WaymarkFFI.xcframework
xcodebuild -create-xcframework \
  -library "$TARGET_DIR/aarch64-apple-ios/$PROFILE/libwaymark_ffi.a" -headers "$work/headers" \
  -library "$work/sim/libwaymark_ffi.a" -headers "$work/headers" \
  -output ios/WaymarkFFI.xcframework
echo "ios/WaymarkFFI.xcframework ready"
