//! Searching a venue's graph: anchors, routes, distances, the stored form.

use super::*;

/// Where a route starts or ends: graph nodes reached from a point by straight segments.
#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    /// The point.
    pub pt: Pt,
    /// Its level.
    pub level: i64,
    /// `(node, metres)` reached from the point.
    pub links: Vec<(u32, f64)>,
    /// The area the point is in (the feature id), if any.
    pub area: Option<i64>,
}

/// A polygon to avoid on a level, as given (`[lng, lat]` corners).
#[derive(Debug, Clone, PartialEq)]
pub struct AvoidBox {
    /// Level.
    pub level: i64,
    /// Corners.
    pub corners: Vec<Pt>,
}

/// A segment of a [`Path`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seg {
    /// Kind of the edge.
    pub kind: EdgeKind,
    /// The feature it runs through (`None` for joins outside every feature).
    pub feature: Option<i64>,
    /// Open to wheelchairs.
    pub wheelchair: bool,
}

/// A path found by [`Graph::route`].
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    /// Points with their level.
    pub points: Vec<(Pt, i64)>,
    /// Per segment (`points.len() - 1`).
    pub segments: Vec<Seg>,
    /// Graph nodes of the points (`None` for the anchors' own points).
    pub nodes: Vec<Option<u32>>,
    /// Length, metres.
    pub length_m: f64,
    /// Time, seconds.
    pub duration_s: f64,
}

/// Per node: seconds, metres, and the `(previous node, edge)` it was reached by.
type Searched = (Vec<f64>, Vec<f64>, Vec<Option<(u32, u32)>>);

#[derive(Debug, Clone, Copy, PartialEq)]
struct Item {
    cost: f64,
    node: u32,
}

impl Eq for Item {}

impl Ord for Item {
    fn cmp(&self, other: &Self) -> Ordering {
        other.cost.total_cmp(&self.cost)
    }
}

impl PartialOrd for Item {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Graph {
    /// The stored form of version [`GRAPH_VERSION`] (3): the same values as postcard's, in
    /// columns that compress well, in one zstd frame. Nodes: `lat` then `lng` as byte planes of
    /// their f64 bits, levels as zigzag varints. Edges: `a` as the zigzag delta from the last
    /// edge's, `b` as the zigzag delta from its own `a`, one flag byte (kind, oneway,
    /// wheelchair, length derived), `feature` as the zigzag delta from the last edge's; then
    /// the lengths that are not derived, as byte planes of their f32 bits. A length is derived
    /// when it is bit for bit the f32 of the straight distance between the edge's nodes in the
    /// graph's projection (whose two factors are stored: basic IEEE operations and a square
    /// root only, the same on every platform). Areas, POIs and profiles follow as postcard.
    pub fn to_bytes(&self) -> Result<Vec<u8>, GraphCodecError> {
        let raw = columns::encode(self)?;
        Ok(zstd::bulk::compress(&raw, GRAPH_ZSTD_LEVEL)?)
    }

    /// Reads a stored form of `version` (1: postcard; 2: postcard in a zstd frame; 3: columns
    /// in a zstd frame) and indexes it.
    pub fn from_bytes(version: i64, bytes: &[u8]) -> Result<Graph, GraphCodecError> {
        let mut g: Graph = match version {
            1 => postcard::from_bytes(bytes)?,
            2 => postcard::from_bytes(&zstd::stream::decode_all(bytes)?)?,
            3 => columns::decode(&zstd::stream::decode_all(bytes)?)?,
            v => return Err(GraphCodecError::Version(v)),
        };
        g.index();
        Ok(g)
    }

    /// Builds the adjacency lists (after loading).
    pub fn index(&mut self) {
        let mut adj = vec![Vec::new(); self.nodes.len()];
        for (i, e) in self.edges.iter().enumerate() {
            if let Some(v) = adj.get_mut(e.a as usize) {
                v.push((i as u32, e.b));
            }
            if !e.oneway
                && let Some(v) = adj.get_mut(e.b as usize)
            {
                v.push((i as u32, e.a));
            }
        }
        self.adjacency = adj;
    }

    pub(super) fn proj(&self) -> LocalProjection {
        LocalProjection::new(self.lat0)
    }

    /// Whether `profile` reaches every level that has a POI: one strongly connected part of
    /// the graph under the profile (where every node reaches every other) holds a POI of each
    /// such level. A POI spanning levels is one place: reached on one of its levels, it counts
    /// for all of them. A graph without POIs is served when it is connected (one part).
    pub fn serves_every_poi_level(&self, ride: impl Into<Ride>) -> bool {
        let ride: Ride = ride.into();
        let mut levels_of: HashMap<i64, Vec<i64>> = HashMap::new();
        for &(id, n) in &self.pois {
            if let Some(node) = self.nodes.get(n as usize) {
                levels_of.entry(id).or_default().push(node.level);
            }
        }
        if levels_of.is_empty() {
            // no POI: any move between levels (or one level)
            let levels = self.levels();
            return levels.len() <= 1
                || self.edges.iter().any(|e| {
                    self.allowed(e, ride)
                        && self.nodes.get(e.a as usize).map(|x| x.level)
                            != self.nodes.get(e.b as usize).map(|x| x.level)
                });
        }
        let comp = self.components(ride);
        let wanted: std::collections::BTreeSet<i64> =
            levels_of.values().flatten().copied().collect();
        // per component, the POIs it holds
        let mut held: HashMap<u32, std::collections::BTreeSet<i64>> = HashMap::new();
        for &(id, n) in &self.pois {
            if let Some(&c) = comp.get(n as usize) {
                held.entry(c).or_default().insert(id);
            }
        }
        held.values().any(|ids| {
            let reached: std::collections::BTreeSet<i64> = ids
                .iter()
                .filter_map(|id| levels_of.get(id))
                .flatten()
                .copied()
                .collect();
            reached == wanted
        })
    }

    /// The strongly connected component of every node under `profile` (Kosaraju, iterative).
    pub(super) fn components(&self, ride: Ride) -> Vec<u32> {
        let n = self.nodes.len();
        let mut fwd: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut back: Vec<Vec<u32>> = vec![Vec::new(); n];
        for e in &self.edges {
            if !self.allowed(e, ride) {
                continue;
            }
            let (a, b) = (e.a as usize, e.b as usize);
            if a >= n || b >= n {
                continue;
            }
            fwd[a].push(e.b);
            back[b].push(e.a);
            if !e.oneway {
                fwd[b].push(e.a);
                back[a].push(e.b);
            }
        }
        // finishing order of a depth-first walk over the forward arcs
        let mut seen = vec![false; n];
        let mut order: Vec<u32> = Vec::with_capacity(n);
        for s in 0..n as u32 {
            if seen[s as usize] {
                continue;
            }
            seen[s as usize] = true;
            let mut stack: Vec<(u32, usize)> = vec![(s, 0)];
            while let Some(top) = stack.last_mut() {
                let (v, i) = (top.0 as usize, top.1);
                if let Some(&w) = fwd[v].get(i) {
                    top.1 += 1;
                    if !seen[w as usize] {
                        seen[w as usize] = true;
                        stack.push((w, 0));
                    }
                } else {
                    order.push(v as u32);
                    stack.pop();
                }
            }
        }
        // components over the backward arcs, latest finished first
        let mut comp = vec![u32::MAX; n];
        let mut next = 0u32;
        for &s in order.iter().rev() {
            if comp[s as usize] != u32::MAX {
                continue;
            }
            comp[s as usize] = next;
            let mut stack = vec![s];
            while let Some(v) = stack.pop() {
                for &w in &back[v as usize] {
                    if comp[w as usize] == u32::MAX {
                        comp[w as usize] = next;
                        stack.push(w);
                    }
                }
            }
            next += 1;
        }
        comp
    }

    /// Levels of the graph, sorted.
    pub fn levels(&self) -> Vec<i64> {
        let mut v: Vec<i64> = self.nodes.iter().map(|n| n.level).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether the profile may not stand on node `n`: every edge at it is closed to the
    /// profile (a door tagged `wheelchair=no`), so an anchor does not step onto it either.
    pub(super) fn closed_node(&self, n: u32, p: Ride) -> bool {
        self.adjacency.get(n as usize).is_some_and(|adj| {
            !adj.is_empty()
                && adj.iter().all(|(ei, _)| {
                    self.edges
                        .get(*ei as usize)
                        .is_none_or(|e| !self.allowed(e, p))
                })
        })
    }

    pub(super) fn allowed(&self, e: &Edge, p: Ride) -> bool {
        (p.customer || !e.customers)
            && match p.profile {
                Profile::Default => true,
                Profile::Wheelchair => e.wheelchair,
            }
    }

    pub(super) fn cost(&self, e: &Edge, p: Profile) -> f64 {
        let len = f64::from(e.length);
        match e.kind {
            EdgeKind::Walk | EdgeKind::Ramp => len / p.speed(),
            EdgeKind::Stairs => len / STAIRS_SPEED,
            EdgeKind::Escalator => len / ESCALATOR_SPEED,
            EdgeKind::Elevator => ELEVATOR_SECONDS * (len / LEVEL_HEIGHT_M).max(1.0),
        }
    }

    /// The areas of `level` that hold `p`.
    pub fn areas_at(&self, p: Pt, level: i64) -> impl Iterator<Item = &WalkArea> {
        let proj = self.proj();
        let xy = proj.project(p);
        self.areas.iter().filter(move |a| {
            a.level == level
                && p.lng >= a.bbox[0] - 1e-6
                && p.lng <= a.bbox[2] + 1e-6
                && p.lat >= a.bbox[1] - 1e-6
                && p.lat <= a.bbox[3] + 1e-6
                && in_or_on(&area_xy(&proj, a), xy, 0.05)
        })
    }

    /// Where `p` on `level` enters the graph: the nodes it sees in the areas holding it, else
    /// the nearest node of the level within [`SNAP_M`]. `None` when it is off every area.
    pub fn anchor(&self, p: Pt, level: i64) -> Option<Anchor> {
        let proj = self.proj();
        let xy = proj.project(p);
        let mut links: Vec<(u32, f64)> = Vec::new();
        let mut area = None;
        for a in self.areas_at(p, level) {
            area.get_or_insert(a.feature);
            let rings = area_xy(&proj, a);
            for &n in &a.nodes {
                let Some(node) = self.nodes.get(n as usize) else {
                    continue;
                };
                let q = proj.project(node.pt());
                if visible(&rings, xy, q) {
                    links.push((n, dist(xy, q)));
                }
            }
        }
        if links.is_empty() {
            // Near a walkable line outside every area (a footway, the street): both ends of
            // the nearest such edge.
            let in_some_area = |e: &Edge| self.areas.iter().any(|a| a.feature == e.feature);
            let best = self
                .edges
                .iter()
                .filter(|e| e.kind == EdgeKind::Walk && !in_some_area(e))
                .filter_map(|e| {
                    let (na, nb) = (self.nodes.get(e.a as usize)?, self.nodes.get(e.b as usize)?);
                    if na.level != level || nb.level != level {
                        return None;
                    }
                    let (pa, pb) = (proj.project(na.pt()), proj.project(nb.pt()));
                    let d = seg_dist(xy, pa, pb);
                    (d <= LINE_SNAP_M).then_some((e, d, dist(xy, pa), dist(xy, pb)))
                })
                .min_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((e, _, da, db)) = best {
                links.push((e.a, da));
                if !e.oneway {
                    links.push((e.b, db));
                }
            }
        }
        if links.is_empty() {
            let best = self
                .nodes
                .iter()
                .enumerate()
                .filter(|(_, n)| n.level == level)
                .map(|(i, n)| (i as u32, dist(xy, proj.project(n.pt()))))
                .filter(|(_, d)| *d <= SNAP_M)
                .min_by(|a, b| a.1.total_cmp(&b.1));
            links.extend(best);
        }
        (!links.is_empty()).then_some(Anchor {
            pt: p,
            level,
            links,
            area,
        })
    }

    /// The anchor of a graph node (a POI's).
    pub fn node_anchor(&self, n: u32) -> Option<Anchor> {
        let node = self.nodes.get(n as usize)?;
        Some(Anchor {
            pt: node.pt(),
            level: node.level,
            links: vec![(n, 0.0)],
            area: None,
        })
    }

    /// The node of POI `id`.
    pub fn poi_node(&self, id: i64) -> Option<u32> {
        self.pois.iter().find(|(p, _)| *p == id).map(|(_, n)| *n)
    }

    pub(super) fn blocked(
        &self,
        proj: &LocalProjection,
        avoid: &[(i64, Vec<Xy>)],
        a: u32,
        b: u32,
    ) -> bool {
        if avoid.is_empty() {
            return false;
        }
        let (Some(na), Some(nb)) = (self.nodes.get(a as usize), self.nodes.get(b as usize)) else {
            return true;
        };
        let (pa, pb) = (proj.project(na.pt()), proj.project(nb.pt()));
        avoid.iter().any(|(level, poly)| {
            let rings = std::slice::from_ref(poly);
            let on = |n: &Node| n.level == *level;
            if na.level == nb.level {
                on(na)
                    && (in_rings(rings, pa)
                        || in_rings(rings, pb)
                        || ring_edges(poly).any(|(c, d)| segments_meet(pa, pb, c, d)))
            } else {
                (on(na) && in_rings(rings, pa)) || (on(nb) && in_rings(rings, pb))
            }
        })
    }

    pub(super) fn avoid_xy(&self, avoid: &[AvoidBox]) -> Vec<(i64, Vec<Xy>)> {
        let proj = self.proj();
        avoid
            .iter()
            .map(|b| {
                (
                    b.level,
                    b.corners.iter().map(|p| proj.project(*p)).collect(),
                )
            })
            .collect()
    }

    /// Whether a straight segment between two points of `level` meets an avoided box.
    pub(super) fn segment_blocked(
        &self,
        avoid: &[(i64, Vec<Xy>)],
        level: i64,
        a: Xy,
        b: Xy,
    ) -> bool {
        avoid.iter().any(|(l, poly)| {
            *l == level
                && (in_rings(std::slice::from_ref(poly), a)
                    || in_rings(std::slice::from_ref(poly), b)
                    || ring_edges(poly).any(|(c, d)| segments_meet(a, b, c, d)))
        })
    }

    /// Dijkstra from an anchor: cost (s), metres and predecessor edge of every reached node.
    pub(super) fn search(
        &self,
        from: &Anchor,
        ride: Ride,
        avoid: &[(i64, Vec<Xy>)],
        targets: Option<&HashMap<u32, f64>>,
    ) -> Searched {
        let profile = ride.profile;
        let proj = self.proj();
        let n = self.nodes.len();
        let mut cost = vec![f64::INFINITY; n];
        let mut metres = vec![f64::INFINITY; n];
        let mut prev: Vec<Option<(u32, u32)>> = vec![None; n];
        let mut heap = BinaryHeap::new();
        let mut best = f64::INFINITY;
        let from_xy = proj.project(from.pt);
        for &(node, d) in &from.links {
            let Some(nd) = self.nodes.get(node as usize) else {
                continue;
            };
            if self.closed_node(node, ride) {
                continue;
            }
            if self.segment_blocked(avoid, from.level, from_xy, proj.project(nd.pt())) {
                continue;
            }
            let c = d / profile.speed();
            if c < cost[node as usize] {
                cost[node as usize] = c;
                metres[node as usize] = d;
                heap.push(Item { cost: c, node });
            }
        }
        while let Some(Item { cost: c, node }) = heap.pop() {
            if c > cost[node as usize] {
                continue;
            }
            // Nothing cheaper than the best arrival can come any more.
            if c > best {
                break;
            }
            if let Some(d) = targets.and_then(|t| t.get(&node)) {
                best = best.min(c + d / profile.speed());
            }
            let Some(adj) = self.adjacency.get(node as usize) else {
                continue;
            };
            for &(ei, other) in adj {
                let Some(e) = self.edges.get(ei as usize) else {
                    continue;
                };
                if !self.allowed(e, ride) || self.blocked(&proj, avoid, node, other) {
                    continue;
                }
                let nc = c + self.cost(e, profile);
                if nc < cost[other as usize] {
                    cost[other as usize] = nc;
                    metres[other as usize] = metres[node as usize] + f64::from(e.length);
                    prev[other as usize] = Some((node, ei));
                    heap.push(Item {
                        cost: nc,
                        node: other,
                    });
                }
            }
        }
        (cost, metres, prev)
    }

    /// Metres and seconds from `from` to every node (`INFINITY` when unreachable).
    pub fn distances_from(&self, from: &Anchor, ride: impl Into<Ride>) -> (Vec<f64>, Vec<f64>) {
        let (cost, metres, _) = self.search(from, ride.into(), &[], None);
        (metres, cost)
    }

    /// The quickest path between two anchors for `profile`, avoiding `avoid`.
    pub fn route(
        &self,
        from: &Anchor,
        to: &Anchor,
        ride: impl Into<Ride>,
        avoid: &[AvoidBox],
    ) -> Option<Path> {
        let ride: Ride = ride.into();
        let profile = ride.profile;
        let avoid = self.avoid_xy(avoid);
        let proj = self.proj();
        let (fx, tx) = (proj.project(from.pt), proj.project(to.pt));
        // Both in one area and in sight: a straight line.
        if from.level == to.level
            && from.area.is_some()
            && from.area == to.area
            && !self.segment_blocked(&avoid, from.level, fx, tx)
            && self.areas_at(from.pt, from.level).any(|a| {
                Some(a.feature) == from.area
                    && (profile == Profile::Default || a.wheelchair)
                    && (ride.customer
                        || !self
                            .edges
                            .iter()
                            .any(|e| e.feature == a.feature && e.customers))
                    && visible(&area_xy(&proj, a), fx, tx)
            })
        {
            let d = dist(fx, tx);
            return Some(Path {
                points: vec![(from.pt, from.level), (to.pt, to.level)],
                segments: vec![Seg {
                    kind: EdgeKind::Walk,
                    feature: from.area,
                    wheelchair: true,
                }],
                nodes: vec![None, None],
                length_m: d,
                duration_s: d / profile.speed(),
            });
        }
        let targets: Vec<(u32, f64)> = to
            .links
            .iter()
            .filter(|(n, _)| {
                !self.closed_node(*n, ride)
                    && self.nodes.get(*n as usize).is_some_and(|nd| {
                        !self.segment_blocked(&avoid, to.level, proj.project(nd.pt()), tx)
                    })
            })
            .copied()
            .collect();
        let target_of: HashMap<u32, f64> = targets.iter().copied().collect();
        let (cost, metres, prev) = self.search(from, ride, &avoid, Some(&target_of));
        let (end, last_d) = targets
            .iter()
            .filter(|(n, _)| cost[*n as usize].is_finite())
            .min_by(|a, b| {
                (cost[a.0 as usize] + a.1 / profile.speed())
                    .total_cmp(&(cost[b.0 as usize] + b.1 / profile.speed()))
            })
            .copied()?;
        // Walk back.
        let mut chain: Vec<(u32, Option<u32>)> = vec![(end, None)];
        let mut cur = end;
        let mut guard = 0usize;
        while let Some((p, ei)) = prev[cur as usize] {
            if let Some(last) = chain.last_mut() {
                last.1 = Some(ei);
            }
            chain.push((p, None));
            cur = p;
            guard += 1;
            if guard > self.nodes.len() {
                return None;
            }
        }
        chain.reverse();
        // chain[i].1 is the edge into chain[i]; segment k joins points k and k + 1.
        let mut points = vec![(from.pt, from.level)];
        let mut nodes = vec![None];
        let mut segments = Vec::new();
        for (i, (node, into)) in chain.iter().enumerate() {
            let nd = self.nodes.get(*node as usize)?;
            let seg = if i == 0 {
                Seg {
                    kind: EdgeKind::Walk,
                    feature: from.area,
                    wheelchair: true,
                }
            } else {
                let e = into.and_then(|ei| self.edges.get(ei as usize))?;
                Seg {
                    kind: e.kind,
                    feature: (e.feature >= 0).then_some(e.feature),
                    wheelchair: e.wheelchair,
                }
            };
            points.push((nd.pt(), nd.level));
            nodes.push(Some(*node));
            segments.push(seg);
        }
        points.push((to.pt, to.level));
        nodes.push(None);
        segments.push(Seg {
            kind: EdgeKind::Walk,
            feature: to.area,
            wheelchair: true,
        });
        // Drop zero-length links (an anchor that is a node).
        let same = |a: (Pt, i64), b: (Pt, i64)| {
            a.1 == b.1 && (a.0.lat - b.0.lat).abs() < 1e-9 && (a.0.lng - b.0.lng).abs() < 1e-9
        };
        let mut out_p = vec![points[0]];
        let mut out_n = vec![nodes[0]];
        let mut out_s = Vec::new();
        for (k, seg) in segments.iter().enumerate() {
            let (p, nd) = (points[k + 1], nodes[k + 1]);
            let last = out_p.len() - 1;
            if same(out_p[last], p) {
                if out_n[last].is_none() {
                    out_n[last] = nd;
                }
                continue;
            }
            out_p.push(p);
            out_n.push(nd);
            out_s.push(*seg);
        }
        let (points, nodes, segments) = (out_p, out_n, out_s);
        let length_m = metres[end as usize] + last_d;
        let duration_s = cost[end as usize] + last_d / profile.speed();
        Some(Path {
            points,
            segments,
            nodes,
            length_m,
            duration_s,
        })
    }

    /// Seconds of the quickest path between two anchors (for waypoint ordering).
    pub fn cost_between(
        &self,
        from: &Anchor,
        to: &Anchor,
        ride: impl Into<Ride>,
        avoid: &[AvoidBox],
    ) -> Option<f64> {
        self.route(from, to, ride, avoid).map(|p| p.duration_s)
    }

    /// Whether `p` on `level` lies in a walkable area (within `tol` metres of one) or on a
    /// connector or line of the graph of that level (within `tol` of one of its edges).
    pub fn walkable_at(&self, p: Pt, level: i64, tol: f64) -> bool {
        let proj = self.proj();
        let xy = proj.project(p);
        self.areas
            .iter()
            .filter(|a| a.level == level)
            .any(|a| in_or_on(&area_xy(&proj, a), xy, tol))
            || self.edges.iter().any(|e| {
                let (Some(a), Some(b)) =
                    (self.nodes.get(e.a as usize), self.nodes.get(e.b as usize))
                else {
                    return false;
                };
                (a.level == level || b.level == level)
                    && e.kind != EdgeKind::Walk
                    && seg_dist(xy, proj.project(a.pt()), proj.project(b.pt())) <= tol
                    || (e.feature < 0 || !self.areas.iter().any(|ar| ar.feature == e.feature))
                        && a.level == level
                        && b.level == level
                        && seg_dist(xy, proj.project(a.pt()), proj.project(b.pt())) <= tol
            })
    }
}
