"""Where two engines' durations differ: a per-edge breakdown of Valhalla's routes.

  edges.py REGION CASE [WAYMARK.json]     CASE: route (driving) or route_cycling

Run with the virtualenv of tests/peers/valhalla.sh (pyvalhalla, osmium) after that script (or
`waymark-peer`) has written OUT/waymark.json and built the tiles under
${PEER_DIR:-/tmp/waymark-peers}/REGION. For every pair of WAYMARK.json it asks Valhalla the
route, walks its edges (`trace_attributes` on the route's own shape: road class, speed, whether
the speed was tagged, roundabout, each node's transition time) and prices the same OSM ways
with Waymark's speed rules (`core::routing::profile`, restated below; keep them in step), the
road density measured as `core::routing::density` does. It prints, per road class × tagged or
default × built-up or not × roundabout, the kilometres and both engines' seconds, then the
totals: Valhalla's time on edges and in transitions, Waymark's actual time and what its rules
give on Valhalla's edges (the rest is its junction costs, where both took the same path).
"""
import collections
import json
import math
import os
import statistics
import sys

import osmium
import valhalla

MOTOR = {"motorway", "trunk", "primary", "secondary", "tertiary", "unclassified", "residential",
         "motorway_link", "trunk_link", "primary_link", "secondary_link", "tertiary_link",
         "service", "living_street", "road"}
COUNTRY = {"andorra": "AD", "helsinki": "FI", "liechtenstein": "LI", "neubrandenburg": "DE"}
LIMITS = {"AD": (50, 90, 90), "FI": (50, 80, 120), "LI": (50, 80, 80), "DE": (50, 100, 130)}
RURAL = dict(motorway=110, motorway_link=60, trunk=90, trunk_link=50, primary=70, primary_link=45,
             secondary=60, secondary_link=40, tertiary=50, tertiary_link=35, unclassified=40,
             residential=35, living_street=10, service=15, road=30, track=15)
BUILT_UP = dict(motorway=90, motorway_link=50, trunk=70, trunk_link=40, primary=55,
                primary_link=35, secondary=50, secondary_link=30, tertiary=40, tertiary_link=30,
                unclassified=35, residential=30)
# Tracks without a limit, by `tracktype` (5 km/h for grade5 and untagged ones).
TRACK = dict(grade1=20, grade2=15, grade3=12, grade4=10)
CYCLING = dict(cycleway=18, living_street=12, track=12, path=12, service=14, road=14, footway=8,
               bridleway=8, pedestrian=8, steps=3)
URBAN_DENSITY = 8.0
# Main roads a cyclist rides at 18 km/h outside built-up areas (16 inside, like other streets).
OPEN_ROAD = {"trunk", "trunk_link", "primary", "primary_link", "secondary", "secondary_link",
             "tertiary", "tertiary_link"}


def decode6(s):
    idx = lat = lng = 0
    out = []
    while idx < len(s):
        for k in range(2):
            shift = res = 0
            while True:
                b = ord(s[idx]) - 63
                idx += 1
                res |= (b & 0x1F) << shift
                shift += 5
                if b < 0x20:
                    break
            d = ~(res >> 1) if res & 1 else res >> 1
            if k == 0:
                lat += d
            else:
                lng += d
        out.append((lat / 1e6, lng / 1e6))
    return out


def maxspeed(v):
    """The numbers and the implicit values the extracts use (the pack builder knows more)."""
    if not v:
        return None
    v = v.split(";")[0].strip()
    try:
        return float(v)
    except ValueError:
        pass
    if v.endswith(":urban"):
        return 50.0
    if v.endswith(":zone30"):
        return 30.0
    return None


class Ways(osmium.SimpleHandler):
    def __init__(self):
        super().__init__()
        self.tags, self.segments = {}, []

    def way(self, w):
        h = w.tags.get("highway")
        if not h:
            return
        self.tags[w.id] = dict(w.tags)
        if h in MOTOR and w.tags.get("access") != "no" and w.tags.get("motor_vehicle") != "no":
            try:
                pts = [(n.lat, n.lon) for n in w.nodes]
            except osmium.InvalidLocationError:
                return
            self.segments.extend(zip(pts, pts[1:]))


def main():
    region, case = sys.argv[1], sys.argv[2]
    costing = {"route": "auto", "route_cycling": "bicycle"}[case]
    work = os.environ.get("PEER_DIR", "/tmp/waymark-peers")
    w = json.load(open(sys.argv[3] if len(sys.argv) > 3 else f"{work}/{region}/waymark.json"))
    actor = valhalla.Actor(f"{work}/{region}/valhalla.json")
    urban_limit, rural_limit, motorway_limit = LIMITS[COUNTRY[region]]
    ways = Ways()
    here = os.path.dirname(os.path.abspath(__file__))
    ways.apply_file(f"{here}/../../../shared/data/osm/{region}.osm.pbf", locations=True)

    lat0 = statistics.median(p[0] for p, _ in ways.segments)
    m_lng = 111_320 * math.cos(math.radians(lat0))
    cell = lambda p: (math.floor(p[0] * 111_320 / 500), math.floor(p[1] * m_lng / 500))
    grid = collections.Counter()
    for p, q in ways.segments:
        km = math.hypot((q[0] - p[0]) * 110_574, (q[1] - p[1]) * m_lng) / 1000
        grid[cell(((p[0] + q[0]) / 2, (p[1] + q[1]) / 2))] += km

    def density(p):
        r, c = cell(p)
        around = [grid[(r + i, c + j)] for i in (-1, 0, 1) for j in (-1, 0, 1) if (r + i, c + j) in grid]
        return sum(around) / (len(around) * 0.25) if around else 0.0

    def waymark_kmh(tags, built_up):
        hw, m = tags.get("highway"), maxspeed(tags.get("maxspeed"))
        if costing == "bicycle":
            v = 18 if not built_up and hw in OPEN_ROAD else CYCLING.get(hw, 16)
            return min(v, m) if m else v
        default = RURAL.get(hw, 30)
        if m:
            return min(m, max(default * 1.3, urban_limit))
        if hw == "track":
            return TRACK.get(tags.get("tracktype"), 5)
        if hw.startswith("motorway"):
            cap = motorway_limit
        elif built_up or hw in ("residential", "living_street", "service"):
            cap = urban_limit
        else:
            cap = rural_limit
        return min(BUILT_UP.get(hw, default) if built_up else default, cap)

    pts, answers = w["points"], w[case]["answers"]
    by = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    rows = []
    for i, a in enumerate(answers):
        if a["status"] != "OK":
            continue
        q = {"locations": [{"lat": pts[2 * i][0], "lon": pts[2 * i][1]},
                           {"lat": pts[2 * i + 1][0], "lon": pts[2 * i + 1][1]}],
             "costing": costing, "directions_options": {"directions_type": "none"}}
        try:
            trip = json.loads(actor.route(json.dumps(q)))["trip"]
            ta = json.loads(actor.trace_attributes(json.dumps({
                "encoded_polyline": trip["legs"][0]["shape"], "shape_match": "edge_walk",
                "costing": costing})))
        except RuntimeError:
            continue
        shape = decode6(ta["shape"])
        v_edges = w_edges = 0.0
        for e in ta["edges"]:
            tags = ways.tags.get(e["way_id"], {})
            d = (density(shape[e["begin_shape_index"]]) + density(shape[e["end_shape_index"]])) / 2
            built_up = d >= URBAN_DENSITY
            v_s = e["length"] / e["speed"] * 3600
            w_s = e["length"] / (waymark_kmh(tags, built_up) if tags else e["speed"]) * 3600
            key = (e["road_class"] if costing == "auto" else tags.get("highway", "?"),
                   "tagged" if tags.get("maxspeed") else "default",
                   "built-up" if built_up else "rural",
                   "roundabout" if e.get("roundabout") else "")
            by[key][0] += e["length"]
            by[key][1] += v_s
            by[key][2] += w_s
            v_edges += v_s
            w_edges += w_s
        rows.append((a["seconds"], trip["summary"]["time"], v_edges, w_edges))

    print(f"{region} {case}: {len(rows)} routes")
    print("| class, limit, surroundings | km | Valhalla s | Waymark's rules s | Valhalla km/h | Waymark km/h |")
    print("|---|---|---|---|---|---|")
    for k, (km, v_s, w_s) in sorted(by.items(), key=lambda x: -x[1][1]):
        if v_s >= 20:
            print(f"| {' '.join(x for x in k if x)} | {km:.1f} | {v_s:.0f} | {w_s:.0f} | "
                  f"{km / v_s * 3600:.1f} | {km / w_s * 3600:.1f} |")
    wt, vt, ve, we = (sum(r[i] for r in rows) for i in range(4))
    print(f"Valhalla {vt:.0f} s: edges {ve:.0f}, transitions {vt - ve:.0f}; Waymark {wt:.0f} s: "
          f"its rules on Valhalla's edges {we:.0f}, the rest {wt - we:.0f}")
    print(f"duration ratio median {statistics.median(r[0] / r[1] for r in rows):.3f}; "
          f"edges alone {statistics.median(r[3] / r[2] for r in rows):.3f}")


if __name__ == "__main__":
    main()
