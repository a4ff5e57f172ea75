//! Building a venue's graph from its features ([`build`]).

use super::*;

struct Builder {
    proj: LocalProjection,
    nodes: Vec<Node>,
    xy: Vec<Xy>,
    keys: HashMap<(i64, i64, i64), u32>,
    edges: Vec<Edge>,
    edge_keys: HashMap<(u32, u32), usize>,
}

impl Builder {
    fn node(&mut self, p: Pt, level: i64) -> u32 {
        let key = (
            level,
            (p.lat * 1e7).round() as i64,
            (p.lng * 1e7).round() as i64,
        );
        if let Some(&n) = self.keys.get(&key) {
            return n;
        }
        let n = self.nodes.len() as u32;
        self.nodes.push(Node {
            lat: p.lat,
            lng: p.lng,
            level,
        });
        self.xy.push(self.proj.project(p));
        self.keys.insert(key, n);
        n
    }

    #[allow(clippy::too_many_arguments)]
    fn edge(
        &mut self,
        a: u32,
        b: u32,
        length: f64,
        kind: EdgeKind,
        oneway: bool,
        wheelchair: bool,
        feature: i64,
    ) {
        if a == b {
            return;
        }
        let key = if oneway { (a, b) } else { (a.min(b), a.max(b)) };
        let e = Edge {
            a,
            b,
            length: length as f32,
            kind,
            oneway,
            wheelchair,
            feature,
            customers: false,
        };
        match self.edge_keys.get(&key) {
            // A walk edge is kept over a stair footprint's, so wheelchairs may use it.
            Some(&i) => {
                if let Some(old) = self.edges.get_mut(i)
                    && old.kind != EdgeKind::Walk
                    && kind == EdgeKind::Walk
                {
                    *old = e;
                }
            }
            None => {
                self.edge_keys.insert(key, self.edges.len());
                self.edges.push(e);
            }
        }
    }
}

/// Builds the graph of a venue from its features.
pub fn build(features: &[GraphFeature<'_>]) -> Graph {
    let lat0 = if features.is_empty() {
        0.0
    } else {
        features.iter().map(|f| f.point.lat).sum::<f64>() / features.len() as f64
    };
    let proj = LocalProjection::new(lat0);
    let mut b = Builder {
        proj,
        nodes: Vec::new(),
        xy: Vec::new(),
        keys: HashMap::new(),
        edges: Vec::new(),
        edge_keys: HashMap::new(),
    };

    // Areas: the walkable ones, and those closed to routes (`access=private|no`), whose POIs
    // and doors are not joined to the nodes around them.
    let (mut areas, shut_areas): (Vec<AreaPoly>, Vec<AreaPoly>) = area_polygons(features, &proj)
        .into_iter()
        .partition(|a| features.get(a.f).is_some_and(|f| !closed_access(f)));
    // Level outlines only where nothing else is walkable; the building's outline (its floor)
    // only where neither an area nor a level outline is mapped.
    let kind_of = |a: &AreaPoly| features.get(a.f).map_or("", |f| f.kind);
    let mut covered: std::collections::HashSet<i64> = std::collections::HashSet::new();
    let mut outlined: std::collections::HashSet<i64> = std::collections::HashSet::new();
    for a in &areas {
        match kind_of(a) {
            "building" => {}
            "level" => {
                outlined.insert(a.level);
            }
            _ => {
                covered.insert(a.level);
            }
        }
    }
    areas.retain(|a| match kind_of(a) {
        "level" => !covered.contains(&a.level),
        "building" => !covered.contains(&a.level) && !outlined.contains(&a.level),
        _ => true,
    });

    // Point nodes: doors, entrances, POIs, connectors given as points.
    let mut point_nodes: Vec<(usize, u32)> = Vec::new();
    let mut doors_xy: Vec<(i64, Xy)> = Vec::new();
    // doors that do not open (access=private|no): their rooms are still entered only by doors
    let mut shut_doors_xy: Vec<(i64, Xy)> = Vec::new();
    // positions no edge may touch (closed doors and barriers) and positions wheelchairs
    // cannot pass (doors and barriers tagged `wheelchair=no`, turnstiles)
    let mut shut_pos: std::collections::HashSet<(i64, i64)> = std::collections::HashSet::new();
    let mut no_wheel_pos: std::collections::HashSet<(i64, i64)> = std::collections::HashSet::new();
    for f in features {
        if f.kind != "barrier" || shape_line(f.shape).is_some() {
            continue;
        }
        if closed_access(f) {
            shut_pos.insert(pos_key(f.point));
        } else if barrier_stops_wheelchairs(f) {
            no_wheel_pos.insert(pos_key(f.point));
        }
    }
    let mut pois: Vec<(i64, u32)> = Vec::new();
    for (fi, f) in features.iter().enumerate() {
        let is_door = matches!(f.kind, "door" | "entrance");
        let anchor = is_door || f.poi || matches!(f.kind, "elevator");
        if matches!(f.kind, "elevator") && closed_access(f) && !f.poi {
            continue;
        }
        if !anchor {
            continue;
        }
        if is_door && shape_line(f.shape).is_some() {
            continue;
        }
        let p = f.point;
        let xy = proj.project(p);
        let mut levels = f.levels.clone();
        if levels.is_empty() {
            // An untagged door is on the levels of the areas whose outline has it.
            levels = areas
                .iter()
                .filter(|a| kind_of(a) != "building" && a.poly.holds(xy, ON_OUTLINE_M))
                .map(|a| a.level)
                .collect();
            levels.sort_unstable();
            levels.dedup();
            if levels.is_empty() {
                levels.push(0);
            }
        }
        if is_door && closed_access(f) {
            shut_pos.insert(pos_key(p));
            for &l in &levels {
                shut_doors_xy.push((l, xy));
            }
            continue;
        }
        if is_door && f.tag("wheelchair") == Some("no") {
            no_wheel_pos.insert(pos_key(p));
        }
        for &l in &levels {
            let n = b.node(p, l);
            point_nodes.push((fi, n));
            if is_door {
                doors_xy.push((l, xy));
            }
            if f.poi {
                pois.push((f.id, n));
            }
        }
    }

    // Walls and gates. A wall (`wall` feature: a line, or a closed way's outline) is a bar no
    // edge crosses. A gate point inside an area bars it along its narrowest chord through the
    // gate (a corridor's width; none wider than [`GATE_CHORD_M`]); a gate on the outline two
    // areas share is the only opening between them, and a gate on an area's outline is one
    // of its doors. Doors, entrances and gates that are open are where a bar may be passed
    // (a closed one cuts every edge at it, below).
    let mut bars: Vec<Bar> = Vec::new();
    let mut pass_pos: std::collections::HashSet<(i64, i64)> = std::collections::HashSet::new();
    let mut wall_gates: Vec<(i64, Xy)> = Vec::new();
    let point_shape =
        |f: &GraphFeature<'_>| shape_line(f.shape).is_none() && shape_polygons(f.shape).is_empty();
    for f in features {
        if is_passage(f.kind) && point_shape(f) {
            pass_pos.insert(pos_key(f.point));
        }
        if !is_wall(f.kind) {
            continue;
        }
        let mut lines: Vec<Vec<Pt>> = shape_line(f.shape).into_iter().collect();
        for rings in shape_polygons(f.shape) {
            for mut r in rings {
                if let Some(&first) = r.first() {
                    r.push(first);
                }
                lines.push(r);
            }
        }
        let levels = if f.levels.is_empty() {
            vec![0]
        } else {
            f.levels.clone()
        };
        for line in &lines {
            let xy: Vec<Xy> = line.iter().map(|p| proj.project(*p)).collect();
            for w in xy.windows(2) {
                for &l in &levels {
                    bars.extend(Bar::new(l, w[0], w[1], ON_OUTLINE_M));
                }
            }
        }
    }
    for f in features {
        if f.kind != "barrier" || !point_shape(f) {
            continue;
        }
        let xy = proj.project(f.point);
        let open = !closed_access(f);
        let levels = if f.levels.is_empty() {
            vec![0]
        } else {
            f.levels.clone()
        };
        for &l in &levels {
            let holding: Vec<&AreaPoly> = areas
                .iter()
                .filter(|a| a.level == l && a.poly.holds(xy, ON_OUTLINE_M))
                .collect();
            if holding.is_empty() {
                continue;
            }
            let on_outline = holding
                .iter()
                .filter(|a| outline_dist(&a.poly.rings, xy) <= ON_OUTLINE_M)
                .count();
            if on_outline >= 2 {
                wall_gates.push((l, xy));
            }
            if on_outline == 0 {
                for a in &holding {
                    if let Some((c, d)) = narrowest_chord(&a.poly.rings, xy, GATE_CHORD_M) {
                        bars.extend(Bar::new(l, c, d, GATE_BAR_EXTEND_M));
                    }
                }
            } else if open {
                doors_xy.push((l, xy));
            } else {
                shut_doors_xy.push((l, xy));
            }
            if open {
                b.node(f.point, l);
            }
        }
    }

    // Area nodes: representative point, inner corners.
    for a in &areas {
        let f = &features[a.f];
        let c = f.point;
        if a.poly.holds(proj.project(c), 0.0) {
            b.node(c, a.level);
        } else if let Some(p) = a.poly.rings.first().and_then(|r| inner_point(&a.poly, r)) {
            b.node(proj.unproject(p), a.level);
        }
        for ring in &a.poly.rings {
            let n = ring.len();
            for i in 0..n {
                let (prev, v, next) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
                let (d1, d2) = (sub(v, prev), sub(next, v));
                let (l1, l2) = ((d1[0].hypot(d1[1])), (d2[0].hypot(d2[1])));
                if l1 < 1e-9 || l2 < 1e-9 {
                    continue;
                }
                // bisector of the corner, pointing to either side
                let u1 = [-d1[0] / l1, -d1[1] / l1];
                let u2 = [d2[0] / l2, d2[1] / l2];
                let mut bis = [u1[0] + u2[0], u1[1] + u2[1]];
                let bl = bis[0].hypot(bis[1]);
                if bl < 1e-9 {
                    continue;
                }
                bis = [bis[0] / bl, bis[1] / bl];
                let probe = |s: f64| {
                    [
                        v[0] + s * bis[0] * CORNER_INSET_M,
                        v[1] + s * bis[1] * CORNER_INSET_M,
                    ]
                };
                // `bis` points into the wedge between the two edges: when the inside is on
                // the other side, the corner is reflex (more than 180° seen from inside).
                let (p_in, p_out) = (probe(1.0), probe(-1.0));
                let reflex = !in_rings(&a.poly.rings, p_in) && in_rings(&a.poly.rings, p_out);
                let inner = p_out;
                if reflex {
                    b.node(proj.unproject(inner), a.level);
                }
            }
        }
    }

    // Openings: midpoints of the outline edges two areas of a level share.
    let room_has_door = |a: &AreaPoly| {
        doors_xy
            .iter()
            .chain(&shut_doors_xy)
            .any(|(l, d)| *l == a.level && a.poly.holds(*d, ON_OUTLINE_M))
    };
    let door_rooms: Vec<bool> = areas.iter().map(room_has_door).collect();
    for i in 0..areas.len() {
        for j in 0..areas.len() {
            if i == j {
                continue;
            }
            let (ai, aj) = (&areas[i], &areas[j]);
            if ai.level != aj.level || ai.f == aj.f {
                continue;
            }
            if ai.poly.max[0] < aj.poly.min[0] - ON_OUTLINE_M
                || aj.poly.max[0] < ai.poly.min[0] - ON_OUTLINE_M
                || ai.poly.max[1] < aj.poly.min[1] - ON_OUTLINE_M
                || aj.poly.max[1] < ai.poly.min[1] - ON_OUTLINE_M
            {
                continue;
            }
            // A room is entered through its doors, never through a wall it shares with
            // another room; one without a mapped door is open on the sides it shares with a
            // corridor or area (a shop front).
            let room = |k: usize| features[areas[k].f].kind == "room";
            let closed = |k: usize| room(k) && door_rooms.get(k).copied().unwrap_or(false);
            if closed(i) || closed(j) || (room(i) && room(j)) {
                continue;
            }
            // A gate on the wall they share is the only way between them.
            if wall_gates.iter().any(|(l, g)| {
                *l == ai.level && ai.poly.holds(*g, ON_OUTLINE_M) && aj.poly.holds(*g, ON_OUTLINE_M)
            }) {
                continue;
            }
            for (ri, ring) in ai.poly.rings.iter().enumerate() {
                let n = ring.len();
                for k in 0..n {
                    let (p, q) = (ring[k], ring[(k + 1) % n]);
                    let m = [(p[0] + q[0]) / 2.0, (p[1] + q[1]) / 2.0];
                    if aj.poly.holds(p, ON_OUTLINE_M)
                        && aj.poly.holds(q, ON_OUTLINE_M)
                        && aj.poly.holds(m, ON_OUTLINE_M)
                    {
                        let mp = ai
                            .deg
                            .get(ri)
                            .and_then(|r| Some((r.get(k)?, r.get((k + 1) % n)?)))
                            .map(|(a, c)| Pt::new((a.lat + c.lat) / 2.0, (a.lng + c.lng) / 2.0));
                        if let Some(mp) = mp {
                            b.node(mp, ai.level);
                        }
                    }
                }
            }
        }
    }

    // Walkable lines (the outdoor walking network around the venue among them) and connector
    // ways.
    let mut line_nodes: Vec<u32> = Vec::new();
    let mut outdoor_nodes: std::collections::HashSet<u32> = std::collections::HashSet::new();
    let mut on_line: std::collections::HashSet<u32> = std::collections::HashSet::new();
    // The levels the walkable lines of one level (footways, corridors, the outdoor network)
    // have at each of their vertices, with the feature: a connector's end is on the level of
    // the lines it meets, and lines of different levels that share a vertex meet there.
    let mut line_levels: HashMap<(i64, i64), Vec<(i64, i64)>> = HashMap::new();
    for f in features {
        let Some(line) = shape_line(f.shape) else {
            continue;
        };
        if !matches!(f.kind, "corridor" | "area" | "footway" | "outdoor") || closed_access(f) {
            continue;
        }
        for p in &line {
            let e = line_levels.entry(pos_key(*p)).or_default();
            for &l in &f.levels {
                if !e.contains(&(f.id, l)) {
                    e.push((f.id, l));
                }
            }
        }
    }
    let meets = |p: Pt, l: i64| {
        line_levels
            .get(&pos_key(p))
            .is_some_and(|v| v.iter().any(|(_, ll)| *ll == l))
    };
    for f in features {
        let Some(line) = shape_line(f.shape) else {
            continue;
        };
        if line.len() < 2 || f.levels.is_empty() || closed_access(f) {
            continue;
        }
        let kind = match f.kind {
            "stairs" | "escalator" | "ramp" => kind_edge(f.kind),
            "corridor" | "area" | "footway" | "outdoor" => EdgeKind::Walk,
            _ => continue,
        };
        let wheel = wheelchair_ok(f, kind);
        let lo = f.levels.iter().copied().min().unwrap_or(0);
        let hi = f.levels.iter().copied().max().unwrap_or(0);
        if lo == hi || kind == EdgeKind::Walk {
            // one level: a path along the line on each of its levels
            for &l in &f.levels {
                let ids: Vec<u32> = line.iter().map(|p| b.node(*p, l)).collect();
                line_nodes.extend(&ids);
                on_line.extend(&ids);
                if f.kind == "outdoor" {
                    outdoor_nodes.extend(&ids);
                }
                for w in ids.windows(2) {
                    let len = dist(b.xy[w[0] as usize], b.xy[w[1] as usize]);
                    match one_way(f) {
                        None => b.edge(w[0], w[1], len, kind, false, wheel, f.id),
                        Some(true) => b.edge(w[0], w[1], len, kind, true, wheel, f.id),
                        Some(false) => b.edge(w[1], w[0], len, kind, true, wheel, f.id),
                    }
                }
            }
            continue;
        }
        // Which end is low: `incline`, else where the ends' areas are.
        let (first_pt, last_pt) = (line[0], line[line.len() - 1]);
        let first = proj.project(first_pt);
        let last = proj.project(last_pt);
        // An end is on a level when a walkable line of that level has it as a vertex (a
        // shared OSM node: the strongest sign), or when areas of that level hold it.
        let score = |p: Xy, pt: Pt, l: i64| {
            let on_areas = areas
                .iter()
                .filter(|a| a.level == l && !is_outline_kind(kind_of(a)) && a.poly.holds(p, 1.0))
                .count();
            on_areas + if meets(pt, l) { 100 } else { 0 }
        };
        let first_low = match f.tag("incline") {
            Some(v) if v.starts_with("up") || v.starts_with('+') => true,
            Some(v) if v.starts_with("down") || v.starts_with('-') => false,
            _ => {
                score(first, first_pt, lo) + score(last, last_pt, hi)
                    >= score(first, first_pt, hi) + score(last, last_pt, lo)
            }
        };
        let (l_first, l_last) = if first_low { (lo, hi) } else { (hi, lo) };
        let n = line.len();
        let ids: Vec<u32> = line
            .iter()
            .enumerate()
            .map(|(i, p)| b.node(*p, if i + 1 == n { l_last } else { l_first }))
            .collect();
        line_nodes.push(ids[0]);
        line_nodes.push(ids[n - 1]);
        let (forward_only, backward_only) = match one_way(f) {
            Some(true) => (true, false),
            Some(false) => (false, true),
            None => (false, false),
        };
        for w in ids.windows(2) {
            let (x, y) = (w[0], w[1]);
            let len = dist(b.xy[x as usize], b.xy[y as usize]).max(1.0);
            if backward_only {
                b.edge(y, x, len, kind, true, wheel, f.id);
            } else {
                b.edge(x, y, len, kind, forward_only, wheel, f.id);
            }
        }
    }

    // Connectors as points or footprints: elevators (and stair/escalator/ramp areas spanning
    // levels) join their levels at their point.
    for f in features {
        let vertical = match f.kind {
            "elevator" => EdgeKind::Elevator,
            "stairs" | "escalator" | "ramp" if shape_line(f.shape).is_none() => kind_edge(f.kind),
            _ => continue,
        };
        if closed_access(f) {
            continue;
        }
        let mut levels = f.levels.clone();
        levels.sort_unstable();
        levels.dedup();
        let wheel = wheelchair_ok(f, vertical);
        for w in levels.windows(2) {
            let (x, y) = (b.node(f.point, w[0]), b.node(f.point, w[1]));
            let len = match vertical {
                EdgeKind::Elevator => LEVEL_HEIGHT_M * (w[1] - w[0]) as f64,
                _ => 2.0 * LEVEL_HEIGHT_M * (w[1] - w[0]) as f64,
            };
            b.edge(x, y, len, vertical, false, wheel, f.id);
            line_nodes.push(x);
            line_nodes.push(y);
        }
    }

    // Lines of different levels that share a vertex (an OSM node) meet there: the footway of
    // level 1 that continues the street of level 0 at an entrance. Two features that share a
    // level at the vertex already meet on it.
    let mut joins: Vec<(Pt, i64, i64)> = Vec::new();
    for f in features {
        let Some(line) = shape_line(f.shape) else {
            continue;
        };
        if !matches!(f.kind, "corridor" | "area" | "footway" | "outdoor") || closed_access(f) {
            continue;
        }
        for p in &line {
            let Some(v) = line_levels.get(&pos_key(*p)) else {
                continue;
            };
            for &l in &f.levels {
                // the nearest level of another feature with no level in common here
                let mine = |id: i64| v.iter().any(|(o, ll)| *o == id && f.levels.contains(ll));
                let best = v
                    .iter()
                    .filter(|(o, ll)| *o != f.id && !f.levels.contains(ll) && !mine(*o))
                    .map(|(_, ll)| *ll)
                    .min_by_key(|ll| ((ll - l).abs(), *ll));
                if let Some(other) = best
                    && other > l
                {
                    joins.push((*p, l, other));
                }
            }
        }
    }
    joins.sort_by(|a, b| {
        pos_key(a.0)
            .cmp(&pos_key(b.0))
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    joins.dedup_by(|a, b| pos_key(a.0) == pos_key(b.0) && a.1 == b.1 && a.2 == b.2);
    // How the level changes there is not mapped: a ramp (a level change the instructions say),
    // open to wheelchairs as the lines it joins are.
    for (p, lo, hi) in joins {
        let (x, y) = (b.node(p, lo), b.node(p, hi));
        let len = LEVEL_HEIGHT_M * (hi - lo) as f64;
        b.edge(x, y, len, EdgeKind::Ramp, false, true, -1);
    }

    // Nodes of each area, and the visibility edges inside it.
    let mut walk_areas: Vec<WalkArea> = Vec::new();
    let mut in_area = vec![false; b.nodes.len()];
    for a in &areas {
        let f = &features[a.f];
        let members: Vec<u32> = (0..b.nodes.len() as u32)
            .filter(|&n| {
                b.nodes[n as usize].level == a.level && a.poly.holds(b.xy[n as usize], ON_OUTLINE_M)
            })
            .collect();
        let kind = kind_edge(f.kind);
        let wheel = wheelchair_ok(f, kind);
        for (i, &x) in members.iter().enumerate() {
            in_area[x as usize] = true;
            for &y in &members[i + 1..] {
                let (px, py) = (b.xy[x as usize], b.xy[y as usize]);
                if visible(&a.poly.rings, px, py) {
                    b.edge(x, y, dist(px, py), kind, false, wheel, f.id);
                }
            }
        }
        let bbox = {
            let pts = a.deg.iter().flatten();
            let (mut w, mut s, mut e, mut n) = (180.0f64, 90.0f64, -180.0f64, -90.0f64);
            for p in pts {
                w = w.min(p.lng);
                e = e.max(p.lng);
                s = s.min(p.lat);
                n = n.max(p.lat);
            }
            [w, s, e, n]
        };
        walk_areas.push(WalkArea {
            feature: f.id,
            kind: f.kind.to_owned(),
            level: a.level,
            rings: a
                .deg
                .iter()
                .map(|r| r.iter().map(|p| [p.lng, p.lat]).collect())
                .collect(),
            bbox,
            nodes: members,
            edge_kind: kind,
            wheelchair: wheel,
        });
    }

    // Doors, POIs and connector ends in no area and on no walkable line: joined to the
    // nearest node of their level that is (within 5 m; 15 m for a POI, whose point may lie on
    // a platform edge or a track).
    let anchored = |n: u32| in_area[n as usize] || on_line.contains(&n);
    let poi_nodes: std::collections::HashSet<u32> = point_nodes
        .iter()
        .filter(|(fi, _)| features.get(*fi).is_some_and(|f| f.poi))
        .map(|(_, n)| *n)
        .collect();
    let mut loose: Vec<u32> = point_nodes
        .iter()
        .map(|(_, n)| *n)
        .chain(line_nodes.iter().copied())
        .filter(|&n| (n as usize) < in_area.len() && !anchored(n))
        .collect();
    loose.sort_unstable();
    loose.dedup();
    for n in loose {
        let (level, p) = (b.nodes[n as usize].level, b.xy[n as usize]);
        // A POI or door inside an area closed to routes is not joined to the nodes around it
        // (a route does not walk into a private room to reach it).
        if shut_areas
            .iter()
            .any(|a| a.level == level && a.poly.holds(p, 0.0))
        {
            continue;
        }
        let radius = if poi_nodes.contains(&n) {
            POI_JOIN_M
        } else {
            JOIN_M
        };
        let best = (0..b.nodes.len() as u32)
            .filter(|&m| m != n && b.nodes[m as usize].level == level && anchored(m))
            .map(|m| (m, dist(p, b.xy[m as usize])))
            .filter(|(_, d)| *d <= radius)
            .min_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((m, d)) = best {
            b.edge(n, m, d, EdgeKind::Walk, false, true, -1);
        }
    }

    // Entrances: joined to the outdoor walking network within 30 m.
    for (fi, n) in &point_nodes {
        if features.get(*fi).is_none_or(|f| f.kind != "entrance") {
            continue;
        }
        let (level, p) = (b.nodes[*n as usize].level, b.xy[*n as usize]);
        let best = outdoor_nodes
            .iter()
            .copied()
            .filter(|&m| m != *n && b.nodes[m as usize].level == level)
            .map(|m| (m, dist(p, b.xy[m as usize])))
            .filter(|(_, d)| *d <= ENTRANCE_JOIN_M)
            .min_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
        if let Some((m, d)) = best {
            b.edge(*n, m, d, EdgeKind::Walk, false, true, -1);
        }
    }

    // Closed doors and barriers cut every edge at them; wheelchairs do not pass the doors and
    // barriers that stop them.
    let node_pos: Vec<(i64, i64)> = b.nodes.iter().map(|n| pos_key(n.pt())).collect();
    let at = |n: u32, set: &std::collections::HashSet<(i64, i64)>| {
        node_pos.get(n as usize).is_some_and(|k| set.contains(k))
    };
    let mut edges = b.edges;
    // No edge crosses a wall or a gate's bar, nor ends on one but at a door or gate.
    if !bars.is_empty() {
        let (nodes, xy) = (&b.nodes, &b.xy);
        let open = |n: u32| {
            node_pos
                .get(n as usize)
                .is_some_and(|k| pass_pos.contains(k))
        };
        edges.retain(|e| {
            let (Some(na), Some(nb)) = (nodes.get(e.a as usize), nodes.get(e.b as usize)) else {
                return true;
            };
            if na.level != nb.level {
                return true;
            }
            let (p, q) = (xy[e.a as usize], xy[e.b as usize]);
            !bars
                .iter()
                .any(|s| s.level == na.level && s.cuts(p, q, open(e.a), open(e.b)))
        });
    }
    // Places for customers only: the edges through them and at their doors and gates.
    let customer_features: std::collections::HashSet<i64> = features
        .iter()
        .filter(|f| customers_access(f))
        .map(|f| f.id)
        .collect();
    let customer_pos: std::collections::HashSet<(i64, i64)> = features
        .iter()
        .filter(|f| {
            matches!(f.kind, "door" | "entrance" | "barrier")
                && customers_access(f)
                && shape_line(f.shape).is_none()
        })
        .map(|f| pos_key(f.point))
        .collect();
    for e in &mut edges {
        if customer_features.contains(&e.feature)
            || at(e.a, &customer_pos)
            || at(e.b, &customer_pos)
        {
            e.customers = true;
        }
    }
    if !shut_pos.is_empty() {
        edges.retain(|e| !at(e.a, &shut_pos) && !at(e.b, &shut_pos));
    }
    for e in &mut edges {
        if at(e.a, &no_wheel_pos) || at(e.b, &no_wheel_pos) {
            e.wheelchair = false;
        }
    }
    // One-way doors (`oneway=yes|-1` on a door node of a walkable line): passed only in the
    // line's direction (against it for `-1`). Every edge at the door is turned to go into
    // it from the side the line comes from, and out of it on the side the line goes to.
    for f in features {
        if !matches!(f.kind, "door" | "entrance") || !point_shape(f) || closed_access(f) {
            continue;
        }
        let Some(forward) = one_way(f) else {
            continue;
        };
        let key = pos_key(f.point);
        let Some(d) = line_direction(features, key, &proj) else {
            continue;
        };
        let d = if forward { d } else { [-d[0], -d[1]] };
        let at_door = |n: u32| node_pos.get(n as usize) == Some(&key);
        let xy = &b.xy;
        edges.retain_mut(|e| {
            let (door, other) = match (at_door(e.a), at_door(e.b)) {
                (true, false) => (e.a, e.b),
                (false, true) => (e.b, e.a),
                _ => return true,
            };
            let v = sub(xy[other as usize], xy[door as usize]);
            let (from, to) = if v[0] * d[0] + v[1] * d[1] > 0.0 {
                (door, other)
            } else {
                (other, door)
            };
            if e.oneway {
                return e.a == from && e.b == to;
            }
            e.a = from;
            e.b = to;
            e.oneway = true;
            true
        });
    }
    let mut g = Graph {
        version: GRAPH_VERSION,
        lat0,
        nodes: b.nodes,
        edges,
        areas: walk_areas,
        pois,
        profiles: Vec::new(),
        adjacency: Vec::new(),
    };
    g.index();
    for p in [Profile::Default, Profile::Wheelchair] {
        // Listed when it serves every level for a customer: places for customers only may
        // be the way between levels, and a walker who is not one gets `no_route` there.
        let ride = Ride {
            profile: p,
            customer: true,
        };
        if !g.edges.is_empty() && g.serves_every_poi_level(ride) {
            g.profiles.push(p.name().to_owned());
        }
    }
    g
}
