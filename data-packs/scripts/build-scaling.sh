#!/usr/bin/env bash
# Build cost against network size. Builds (release `waymark-packs`) the pack of every
# sample extract and of synthetic city grids (`waymark-packs synth`) of about 0.5, 1, 2 and 5
# million nodes, each under `/usr/bin/time -v`, and prints a Markdown table: input, nodes read
# by the builder (`stats.roads.nodes_read` of the manifest), wall time, peak RSS, pack size,
# and the load average of the machine around each build. Not part of CI. Long: the routing
# preparation grows faster than linearly; a 476 k-node city network took 34 minutes on the
# 2-core VM (docs/performance.md, "Pack build at scale"), so try SYNTH_NODES="100000"
# first.
#
#   bash data-packs/scripts/build-scaling.sh [OUT_DIR]
#
# OUT_DIR defaults to /tmp/waymark-build-scaling; the generated extracts are kept there and
# reused, packs are rebuilt (--force). Environment:
#   PACKS="andorra monaco"        sample packs to build (default: all eight; "" for none)
#   SYNTH_NODES="500000 1000000"  synthetic sizes (default: 500000 1000000 2000000 5000000)
#   LAYOUT=country                synthetic layout: `city` (default; one street grid, the worst
#                                 case for separators) or `country` (towns joined by rural roads)
#   NO_BUILD=1                    use the release binary as it is
#   LAYERS=roads,routing          only these layers (default: the region plan's)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${1:-/tmp/waymark-build-scaling}"
PACKS=(${PACKS-andorra helsinki liechtenstein london monaco munchen neubrandenburg porto})
SYNTH=(${SYNTH_NODES-500000 1000000 2000000 5000000})
TARGET="${CARGO_TARGET_DIR:-$PWD/target}"
BIN="$TARGET/release/waymark-packs"
if [ -z "${NO_BUILD:-}" ]; then
  cargo build --release -p waymark-packs --bin waymark-packs --quiet
fi
if [ ! -x /usr/bin/time ]; then
  apt-get install -y -qq time >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq time; }
fi
mkdir -p "$OUT/packs"
ROWS="$OUT/rows.tsv"
: > "$ROWS"
layer_args=()
if [ -n "${LAYERS:-}" ]; then layer_args=(--layers "$LAYERS"); fi

# measure NAME EXTRACT_FILE -- build arguments...
measure() {
  local name="$1" extract="$2"
  shift 3
  local load_before load_after
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  RUST_LOG=info /usr/bin/time -v -o "$OUT/$name.time" \
    "$BIN" build --pack "$name" --version scale --out "$OUT/packs" --force "${layer_args[@]}" "$@" \
    > "$OUT/$name.out" 2> "$OUT/$name.log"
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  python3 - "$OUT" "$name" "$extract" "$load_before" "$load_after" >> "$ROWS" <<'PY'
import json, os, re, sys
out, name, extract, before, after = sys.argv[1:]
t = open(f"{out}/{name}.time").read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", t).group(1)
secs = 0.0
for part in wall.split(":"):
    secs = secs * 60 + float(part)
rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
user = float(re.search(r"User time \(seconds\): (\S+)", t).group(1))
system = float(re.search(r"System time \(seconds\): (\S+)", t).group(1))
m = json.load(open(f"{out}/packs/{name}-scale/manifest.json"))
roads = (m.get("stats") or {}).get("roads") or {}
nodes = roads.get("nodes_read", 0)
size = sum(f["size"] for f in m["files"])
print("\t".join(map(str, [name, os.path.getsize(extract), nodes, roads.get("ways_read", 0),
                         f"{secs:.1f}", f"{user + system:.1f}", rss_kb, size,
                         roads.get("read_ms", 0), roads.get("roads_ms", 0),
                         (m["stats"].get("routing") or {}).get("total_ms", ""), before, after])))
PY
  echo "built $name: $(tail -n1 "$ROWS" | cut -f5) s, $(( $(tail -n1 "$ROWS" | cut -f7) / 1024 )) MB peak" >&2
}

for p in "${PACKS[@]}"; do
  src="$(python3 -c "import tomllib,sys; print(next(s['path'] for s in tomllib.load(open('data-packs/sources.toml','rb'))['source'] if s['id']=='osm-$p'))")"
  measure "$p" "$src" --
done
LAYOUT="${LAYOUT:-city}"
for n in "${SYNTH[@]}"; do
  name="synth-$n"
  origin=()
  if [ "$LAYOUT" != city ]; then
    name="synth-$LAYOUT-$n"
    # A 5 M-node country is about 210 km across: from here it stays in Germany.
    origin=(--lat 50.4 --lng 8.6)
  fi
  file="$OUT/$name.osm.pbf"
  if [ ! -f "$file" ]; then
    "$BIN" synth --nodes "$n" --layout "$LAYOUT" "${origin[@]}" --out "$file" >&2
  fi
  measure "$name" "$file" -- --extract "$file" --extract-licence CC0-1.0 \
    --extract-attribution "synthetic $LAYOUT network (waymark-packs synth)"
done

python3 - "$ROWS" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print("| input | extract MB | nodes read | ways read | wall s | CPU s | peak RSS MB | pack MB | µs wall / node | KB RSS / node | pack B / node | load avg before → after |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for name, extract, nodes, ways, wall, cpu, rss, size, read_ms, roads_ms, routing_ms, before, after in rows:
    n = max(int(nodes), 1)
    print(f"| {name} | {int(extract)/1e6:.2f} | {int(nodes):,} | {int(ways):,} | {float(wall):.1f} | {float(cpu):.1f} | "
          f"{int(rss)/1024:.0f} | {int(size)/1e6:.2f} | {float(wall)*1e6/n:.1f} | {int(rss)/n:.2f} | "
          f"{int(size)/n:.0f} | {before} → {after} |")
PY
