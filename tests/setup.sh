#!/usr/bin/env bash
# Installs what the test command (tests/run-all.sh) needs when it is missing, the same way on a
# developer's machine and in CI. Each tool is checked first; nothing is installed when it is
# already there.
#
#   rustfmt, clippy        rustup component add            (cargo fmt --check, cargo clippy)
#   a JDK and Maven        apt-get: default-jdk-headless maven   (the Kotlin library's JUnit suite)
#   Chromium, chromedriver apt-get: chromium chromium-driver     (the demo page's browser test)
#   Python 3 and the       apt-get: python3 python3-pip,         (the OpenAPI document's check,
#   packages of the checks pip: tests/scripts/requirements.txt    its fuzzing with Schemathesis,
#                                                                 publishing on Dask)
#
# System packages come from apt-get (Debian and Ubuntu), run directly as root or through sudo.
# On another system the script names what is missing and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

missing() { echo "tests/setup.sh: $1 is required and this machine has no apt-get to install it; install it and run again" >&2; exit 1; }

APT_UPDATED=0
apt_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "tests/setup.sh: installing $* needs root (or sudo)" >&2; exit 1; }
    sudo="sudo"
  fi
  if [ "$APT_UPDATED" -eq 0 ]; then
    $sudo apt-get update -qq
    APT_UPDATED=1
  fi
  echo "tests/setup.sh: installing $*"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
}

command -v cargo >/dev/null || { echo "tests/setup.sh: cargo is required (a Rust toolchain, https://rustup.rs)" >&2; exit 1; }
if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
  command -v rustup >/dev/null || missing "rustfmt and clippy (rustup component add rustfmt clippy)"
  rustup component add rustfmt clippy
fi

# The Kotlin library's suite needs a JDK and Maven (Maven fetches its plugins itself).
if ! command -v mvn >/dev/null || ! command -v javac >/dev/null; then
  command -v apt-get >/dev/null || missing "a JDK and Maven (the Kotlin suite)"
  apt_install maven default-jdk-headless
fi

# The demo page's browser test (localserver/tests/browser.rs) drives headless Chromium through
# chromedriver; it fails, rather than skips, when they are missing.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  command -v apt-get >/dev/null || missing "chromium and chromedriver (the browser test)"
  apt_install chromium chromium-driver
fi

# The OpenAPI check (tests/scripts/openapi-check.py) needs Python 3 with the validator, its
# fuzzing (tests/scripts/fuzz-openapi.py) Schemathesis, the publishing test
# (tests/scripts/test_publish.py) Dask distributed.
if ! command -v python3 >/dev/null; then
  command -v apt-get >/dev/null || missing "python3"
  apt_install python3 python3-pip
fi
if ! python3 -c "import openapi_spec_validator, jsonschema, distributed, schemathesis" 2>/dev/null; then
  if ! python3 -m pip --version >/dev/null 2>&1; then
    command -v apt-get >/dev/null || missing "pip for python3"
    apt_install python3-pip
  fi
  echo "tests/setup.sh: installing tests/scripts/requirements.txt with pip"
  python3 -m pip install -q -r tests/scripts/requirements.txt \
    || python3 -m pip install -q --break-system-packages -r tests/scripts/requirements.txt
fi
