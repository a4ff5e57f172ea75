#!/usr/bin/env bash
# Runs every check and test of the workspace: formatting, clippy, all Rust tests (unit, doc,
# the end-to-end suite over real HTTP on 127.0.0.1, and the demo page in headless Chromium:
# localserver/tests/browser.rs, which needs chromium and chromedriver), the drift check of the generated
# bindings, the OpenAPI document's check and its fuzzing (Schemathesis), and the Kotlin library's JUnit suite (Maven, JNA) against the host-built
# libwaymark_ffi.so and the Andorra sample pack. It first installs what it needs when it is
# missing (tests/setup.sh: rustfmt/clippy, a JDK and Maven, Chromium and chromedriver, the Python
# packages of the OpenAPI check and its fuzzing).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== tools the tests need (tests/setup.sh)"
bash tests/setup.sh
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test"
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
cargo test --workspace --locked 2>&1 | tee "$LOG"

echo "== soak, 30 s: the debug server under a mix of every endpoint, pack swaps and matrix jobs"
# Built by the workspace test build above. No RSS limit here: 30 s of a debug build says nothing
# about growth; the 10-minute release run is localserver/benches/soak.sh (docs/performance.md).
# Prepared afresh: packs prepared by an earlier build of the builder would test yesterday's packs.
rm -rf "$TARGET/soak-work"
"$TARGET/debug/soak" --server "$TARGET/debug/waymark" --work "$TARGET/soak-work" --duration 30 --clients 2 \
  | tee -a "$LOG"
grep -q "^soak: PASS" "$LOG" || { echo "FAIL: the soak test did not pass"; exit 1; }

echo "== datasets under load, 20 s: where searches over random attribute paths, memory within the column budget"
# The 5-minute release run is localserver/benches/datasets-load.sh (docs/performance.md).
"$TARGET/debug/datasets-load" --server "$TARGET/debug/waymark" --work "$TARGET/datasets-load-work" \
  --duration 20 | tee -a "$LOG"
grep -q "^datasets-load: PASS" "$LOG" || { echo "FAIL: the datasets load test did not pass"; exit 1; }

echo "== generated bindings match ffi/"
bash bindings/generate.sh --check

echo "== OpenAPI document: valid OpenAPI 3.1, and the golden answers match its schemas"
OPENAPI="$(mktemp)"
"$TARGET/debug/waymark" openapi > "$OPENAPI"
python3 tests/scripts/openapi-check.py "$OPENAPI" tests/golden/parity
rm -f "$OPENAPI"

echo "== OpenAPI fuzzing: Schemathesis on every operation of the debug server (fixed seed, 15 examples each)"
python3 tests/scripts/fuzz-openapi.py "$TARGET/debug" | tee -a "$LOG"
grep -q "^fuzz: PASS" "$LOG" || { echo "FAIL: the OpenAPI fuzzing did not pass"; exit 1; }

echo "== publishing on Dask's local mode: three cut regions, a worker killed mid-build, deltas"
python3 tests/scripts/test_publish.py "$TARGET/debug" | tee -a "$LOG"
grep -q "^publish: PASS" "$LOG" || { echo "FAIL: the publishing test did not pass"; exit 1; }

echo "== Kotlin library (android/): JUnit on the JVM against libwaymark_ffi.so"
FIXTURE="$TARGET/sdk-fixture"
rm -rf "$FIXTURE"
# Built by the workspace build of bindings/generate.sh above (same features, no rebuild).
"$TARGET/debug/sdk-fixture" --out "$FIXTURE"
rm -rf android/target/surefire-reports
mvn -B -ntp -f android/pom.xml test \
  -Dwaymark.lib.dir="$TARGET/debug" -Dwaymark.fixture="$FIXTURE" 2>&1 | tee -a "$LOG" \
  | grep -E "Tests run:|FAIL|ERROR|BUILD|Exception" || true
grep -q "BUILD SUCCESS" "$LOG" || { echo "FAIL: the Kotlin suite did not pass"; exit 1; }
# Every test method of the sources ran (JUnit only warns about a @Test that returns a value and
# skips it), none was skipped, and no fewer than the committed minimum ran.
python3 tests/scripts/junit-check.py android/target/surefire-reports android/src/test/kotlin \
  android/junit-minimum.txt

# One closing line for the whole run (cargo's per-crate lines, and Maven's summary line).
awk '/^test result:/ { p += $4; f += $6; i += $8 }
     /^\[INFO\] Tests run: .*, Time elapsed/ { next }
     /Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$/ {
       gsub(",", ""); for (k = 1; k <= NF; k++) {
         if ($k == "run:") kr = $(k+1); if ($k == "Failures:") kf = $(k+1);
         if ($k == "Errors:") ke = $(k+1); if ($k == "Skipped:") ks = $(k+1) }
       p += kr - kf - ke - ks; f += kf + ke; i += ks }
     END { printf "total: %d passed, %d failed, %d skipped\n", p, f, i }' "$LOG"
