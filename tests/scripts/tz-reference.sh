#!/usr/bin/env bash
# Independent timezone reference for the quality test (tests/tests/timezone_quality.rs).
#
#   printf '60.17 24.94\n' | bash tests/scripts/tz-reference.sh
#
# Reads "lat lng" lines on stdin and prints one tz identifier per line (an empty line where
# the reference knows no zone). The reference is the tzfpy wheel pinned (version, file name,
# sha256, size, fetch command) by the `tz-reference-tzfpy` source of data-packs/sources.toml:
# it is downloaded with pip into the sources cache (data-packs/.cache/pip, or $WAYMARK_CACHE/pip)
# when missing, verified against its sha256, and installed once into
# <cache>/tz-reference/tzfpy-<version> (pip install --no-deps --target). Test-only: nothing
# from it goes into a pack.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
CACHE="${WAYMARK_CACHE:-$ROOT/data-packs/.cache}"
PY="${PYTHON:-python3}"
eval "$("$PY" - "$ROOT/data-packs/sources.toml" <<'PYEOF'
import shlex, sys, tomllib
with open(sys.argv[1], "rb") as f:
    src = next(s for s in tomllib.load(f)["source"] if s["id"] == "tz-reference-tzfpy")
for k in ("version", "artifact", "fetch", "sha256"):
    print(f"{k.upper()}={shlex.quote(str(src[k]))}")
PYEOF
)"
WHEEL="$CACHE/pip/$ARTIFACT"
TARGET="$CACHE/tz-reference/tzfpy-$VERSION"
if [ ! -f "$TARGET/.installed" ]; then
  mkdir -p "$CACHE/pip"
  if [ ! -f "$WHEEL" ]; then
    DIR="$(cd "$CACHE/pip" && pwd)"
    (cd "$DIR" && eval "${FETCH//DIR/\"$DIR\"}") >&2
  fi
  echo "$SHA256  $WHEEL" | sha256sum -c --quiet - >&2 || { echo "tz-reference: $WHEEL does not match its pinned sha256" >&2; exit 1; }
  rm -rf "$TARGET"
  "$PY" -m pip install --quiet --no-deps --no-index --target "$TARGET" "$WHEEL" >&2
  touch "$TARGET/.installed"
fi
PYTHONPATH="$TARGET" exec "$PY" -c '
import sys
from tzfpy import get_tz
out = []
for line in sys.stdin:
    parts = line.split()
    if len(parts) != 2:
        continue
    lat, lng = float(parts[0]), float(parts[1])
    out.append(get_tz(lng, lat) or "")
sys.stdout.write("\n".join(out) + ("\n" if out else ""))
'
