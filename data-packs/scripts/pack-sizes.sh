#!/usr/bin/env bash
# The size table of every sample region pack (bytes per layer, per MB of extract).
#
#   bash data-packs/scripts/pack-sizes.sh [OUT_DIR] [PACK...]
#
# Builds (release `waymark-packs`, version `size`) each pack missing from OUT_DIR (default
# /tmp/waymark-pack-sizes), then prints `waymark-packs inspect --json` of each as a Markdown
# table: total, routing, search, the SQLite layers, free pages, the inputs other than the OSM
# extract, and bytes per MB of extract with and without them.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-/tmp/waymark-pack-sizes}"
shift || true
PACKS=("$@")
if [ ${#PACKS[@]} -eq 0 ]; then
  PACKS=(andorra helsinki liechtenstein london monaco munchen neubrandenburg porto)
fi
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
# PROFILE=debug reuses a debug build (the sizes do not depend on the profile, the times do);
# NO_BUILD=1 uses the binary as it is.
PROFILE="${PROFILE:-release}"
if [ -n "${NO_BUILD:-}" ]; then
  :
elif [ "$PROFILE" = release ]; then
  cargo build --release -p waymark-packs --bin waymark-packs --quiet
else
  cargo build -p waymark-packs --bin waymark-packs --quiet
fi
BIN="$TARGET/$PROFILE/waymark-packs"
mkdir -p "$OUT"
for p in "${PACKS[@]}"; do
  if [ ! -f "$OUT/$p-size/manifest.json" ]; then
    start=$(date +%s)
    "$BIN" build --pack "$p" --version size --out "$OUT" >/dev/null 2>&1
    echo "built $p in $(( $(date +%s) - start )) s" >&2
  fi
  "$BIN" inspect --json "$OUT/$p-size" > "$OUT/$p.json"
done
python3 - "$OUT" "${PACKS[@]}" <<'PY'
import json, sys
out, packs = sys.argv[1], sys.argv[2:]
rows = [json.load(open(f"{out}/{p}.json")) for p in packs]
mb = lambda b: f"{b / 1e6:.2f}"
cols = ["routing", "search", "roads", "places", "addresses", "pois", "indoor", "stores", "zones", "datasets", "ip", "timezones", "sqlite:other", "sqlite:free"]
print("| pack | extract MB | pack MB | " + " | ".join(cols) + " | other inputs (ip + tz + gazetteer) | pack bytes / extract byte | without other inputs |")
print("|---|" + "---|" * (len(cols) + 5))
for r in rows:
    layers = dict(r["layers"])
    other = dict(r["other_sources"])
    o = sum(other.values())
    print(f"| {r['id']} | {mb(r['extract'] or 0)} | **{mb(r['total'])}** | "
          + " | ".join(mb(layers.get(c, 0)) for c in cols)
          + f" | {mb(o)} ({mb(other.get('ip', 0))} + {mb(other.get('timezones', 0))} + {mb(other.get('gazetteer', 0))})"
          + f" | **{(r['bytes_per_extract_mb'] or 0) / 1e6:.2f}x** | {(r['osm_bytes_per_extract_mb'] or 0) / 1e6:.2f}x |")
PY
