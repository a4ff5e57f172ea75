"""Valhalla's half of tests/peers/valhalla.sh, and the comparison.

  compare.py config OUT            prints a Valhalla config for the tiles in OUT/tiles
  compare.py compare OUT BYTES     asks Valhalla what OUT/waymark.json asked Waymark, prints
                                   both timings, the ratio and the agreement per case
                                   (PER_ORIGIN=1: also each isochrone origin's outline IoU
                                   and both areas)
"""
import json
import math
import os
import statistics
import sys
import time

import valhalla
from shapely.geometry import Polygon, shape
from shapely.ops import unary_union


def config(out):
    c = valhalla.get_config(tile_dir=f"{out}/tiles", tile_extract="")
    c["mjolnir"]["concurrency"] = 1
    # One 100×100 matrix is 10,000 pairs (the default limit is 2,500).
    for costing in ("auto", "pedestrian"):
        c["service_limits"][costing]["max_matrix_location_pairs"] = 10000
    print(json.dumps(c))


def p50(ms):
    return statistics.median(ms)


def timed(fn, arg):
    t = time.perf_counter()
    out = fn(arg)
    return (time.perf_counter() - t) * 1e3, out


def project(lat0):
    kx = 111_320.0 * math.cos(math.radians(lat0))

    def f(lng, lat):
        return (lng * kx, lat * 110_574.0)

    return f


def waymark_area(answer, proj):
    ring = answer["ring"]
    if len(ring) < 4:
        return None
    holes = [[proj(p[1], p[0]) for p in h] for h in answer.get("holes", []) if len(h) >= 4]
    return Polygon([proj(p[1], p[0]) for p in ring], holes).buffer(0)


def valhalla_area(answer, proj):
    parts = []
    for f in answer.get("features", []):
        g = f.get("geometry") or {}
        if g.get("type") not in ("Polygon", "MultiPolygon"):
            continue
        polys = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"]
        for poly in polys:
            rings = [[proj(x, y) for x, y in r] for r in poly]
            parts.append(Polygon(rings[0], rings[1:]).buffer(0))
    return unary_union(parts) if parts else None


def compare(out, tile_bytes):
    w = json.load(open(f"{out}/waymark.json"))
    actor = valhalla.Actor(f"{out}/valhalla.json")
    pts = w["points"]
    loc = lambda p: {"lat": p[0], "lon": p[1]}
    rows = []

    # Routes, on equal work: without steps (Waymark `details=none`, Valhalla
    # `directions_type: none`, no maneuvers) and with steps (`details=full`, Valhalla's
    # maneuvers with their instructions).
    # Walking and cycling routes between the same pairs, without steps on both sides
    # (Valhalla's `pedestrian` and `bicycle` costings with their defaults).
    for case, costing, directions, label in (
        ("route", "auto", "none", "route without steps (driving)"),
        ("route_steps", "auto", "instructions", "route with steps (driving)"),
        ("route_walking", "pedestrian", "none", "route without steps (walking)"),
        ("route_cycling", "bicycle", "none", "route without steps (cycling)"),
    ):
        if case not in w:
            continue
        answers = w[case]["answers"]
        v_ms, ratios, t_ratios, v_fail = [], [], [], 0
        for i, a in enumerate(answers):
            q = json.dumps({
                "locations": [loc(pts[2 * i]), loc(pts[2 * i + 1])],
                "costing": costing,
                "directions_options": {"directions_type": directions},
            })
            try:
                ms, r = timed(actor.route, q)
                summary = json.loads(r)["trip"]["summary"]
                km = summary["length"]
            except RuntimeError:
                v_fail += 1
                continue
            v_ms.append(ms)
            if a["metres"] and km > 0:
                ratios.append(a["metres"] / (km * 1000.0))
            if a.get("seconds") and summary["time"] > 0:
                t_ratios.append(a["seconds"] / summary["time"])
        w_fail = sum(1 for a in answers if a["status"] != "OK")
        rows.append((
            label,
            w[case]["timing"]["p50_ms"],
            p50(v_ms),
            f"length ratio median {statistics.median(ratios):.3f} (p5 {sorted(ratios)[len(ratios) // 20]:.3f}, "
            f"p95 {sorted(ratios)[len(ratios) * 19 // 20]:.3f}), duration ratio median "
            f"{statistics.median(t_ratios):.3f}; failed: Waymark {w_fail}, Valhalla {v_fail} "
            f"of {len(answers)}",
        ))

    # Matrix 100×100.
    q = json.dumps({
        "sources": [loc(p) for p in pts[:100]],
        "targets": [loc(p) for p in pts[100:200]],
        "costing": "auto",
    })
    v_ms, m = [], None
    for _ in range(5):
        ms, r = timed(actor.matrix, q)
        v_ms.append(ms)
        m = json.loads(r)
    s2t = m["sources_to_targets"]
    if isinstance(s2t, dict):
        vd = [d for row in s2t["distances"] for d in row]
    else:
        vd = [c.get("distance") for row in s2t for c in row]
    wd = w["matrix"]["cells"]["distances"]
    w_empty = sum(1 for d in wd if d is None)
    v_empty = sum(1 for d in vd if d is None)
    cell_ratios = sorted(
        a / (b * 1000.0) for a, b in zip(wd, vd) if a is not None and b is not None and b > 0
    )
    rows.append((
        "matrix 100×100 (driving)",
        w["matrix"]["timing"]["p50_ms"],
        p50(v_ms),
        f"cells: Waymark {len(wd) - w_empty}/{len(wd)} filled, Valhalla {len(vd) - v_empty}/{len(vd)}; "
        f"distance ratio median {statistics.median(cell_ratios):.3f}",
    ))

    # Isochrones.
    for name, costing, minutes in (
        ("isochrone driving 30 min", "auto", 30),
        ("isochrone walking 10 min", "pedestrian", 10),
    ):
        case = w["isochrones"][name]
        v_ms, ious, outline_ious, area_ratios, outer_ratios = [], [], [], [], []
        for p, a in zip(pts, case["answers"]):
            q = json.dumps({
                "locations": [loc(p)],
                "costing": costing,
                "contours": [{"time": minutes}],
                "polygons": True,
            })
            try:
                ms, r = timed(actor.isochrone, q)
            except RuntimeError:
                continue
            v_ms.append(ms)
            proj = project(p[0])
            va = valhalla_area(json.loads(r), proj)
            wa = waymark_area(a, proj) if a["status"] == "OK" else None
            if va is None or wa is None or va.area == 0:
                continue
            iou = lambda g: g.intersection(va).area / g.union(va).area
            ious.append(iou(wa))
            # Valhalla never cuts holes: the outer rings alone compare the outlines.
            outer = Polygon(wa.exterior) if wa.geom_type == "Polygon" else wa
            outline_ious.append(iou(outer))
            if os.environ.get("PER_ORIGIN") == "1":
                print(f"{name} origin {p[0]:.5f},{p[1]:.5f}: outline IoU {iou(outer):.3f}, "
                      f"Waymark {outer.area / 1e6:.3f} km², Valhalla {va.area / 1e6:.3f} km²")
            area_ratios.append(wa.area / va.area)
            outer_ratios.append(outer.area / va.area)
        rows.append((
            name,
            case["timing"]["p50_ms"],
            p50(v_ms) if v_ms else float("nan"),
            f"IoU of the outlines median {statistics.median(outline_ious):.3f}, mean "
            f"{statistics.mean(outline_ious):.3f}, min {min(outline_ious):.3f}; with Waymark's "
            f"holes median {statistics.median(ious):.3f}, mean {statistics.mean(ious):.3f}, min "
            f"{min(ious):.3f}; area ratio median {statistics.median(area_ratios):.3f} "
            f"(outer ring alone {statistics.median(outer_ratios):.3f}) "
            f"(n={len(ious)})",
        ))

    print(f"\n## {w['pack']} — Valhalla tiles {int(tile_bytes) / 1e6:.1f} MB")
    print("| case | Waymark p50 | Valhalla p50 | Waymark faster | agreement |")
    print("|---|---|---|---|---|")
    for name, wm, vm, agree in rows:
        print(f"| {name} | {wm:.3f} ms | {vm:.3f} ms | {vm / wm:.1f}× | {agree} |")


if __name__ == "__main__":
    if sys.argv[1] == "config":
        config(sys.argv[2])
    else:
        compare(sys.argv[2], sys.argv[3])
