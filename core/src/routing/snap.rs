//! Snapping input coordinates to the nearest point of a routable edge (not the nearest node):
//! an R-tree over the edges' geometry cut into pieces of up to [`PIECE_SEGMENTS`] segments,
//! in a local metric projection. A piece's distance is that of its nearest segment, so the
//! pieces come nearest first exactly as single segments would, with a tree several times
//! smaller (Andorra's mountain roads: 101,124 segments in 14,000 pieces), which is most of
//! the cost of opening a pack for routing. [`SnapIndex::snap_two`] also finds the nearest edge
//! of the main component in the same walk (see [`super::reach`]).
//!
//! A piece holds its edge, its first point and its box, not its points: the walk projects the
//! network's own points (a multiplication each) when it measures a piece, so the index takes
//! 40 bytes a piece rather than a copy of the geometry (a country's 800,000 pieces: about
//! 35 MB, not 125).
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rstar::{AABB, RTree, RTreeNode, RTreeObject};

use super::network::RoadNetwork;
use crate::geo::{LocalProjection, Pt, haversine_m, lerp, line_length_m, project_on_segment};

/// Most segments in one piece of an edge.
pub const PIECE_SEGMENTS: usize = 8;

/// Up to [`PIECE_SEGMENTS`] consecutive segments of an edge's geometry.
#[derive(Debug, Clone)]
pub struct Piece {
    /// Edge index.
    pub edge: u32,
    /// Index of the piece's first point within the edge geometry.
    pub first: u32,
    envelope: AABB<[f64; 2]>,
}

impl Piece {
    /// The piece's points, in the edge's geometry.
    fn points<'a>(&self, net: &'a RoadNetwork) -> &'a [Pt] {
        let g = net.geometry(self.edge);
        let first = self.first as usize;
        let end = (first + PIECE_SEGMENTS).min(g.len().saturating_sub(1));
        g.get(first..=end).unwrap_or(&[])
    }

    /// The segment nearest to `q` (index within the edge geometry), its position along it
    /// (`0..=1`) and squared distance; the first of equally near segments.
    fn nearest(&self, net: &RoadNetwork, proj: &LocalProjection, q: [f64; 2]) -> (u32, f64, f64) {
        let mut best = (self.first, 0.0, f64::INFINITY);
        let mut points = self.points(net).iter().map(|p| proj.project(*p));
        let Some(mut a) = points.next() else {
            return best;
        };
        for (j, b) in points.enumerate() {
            let (t, d2) = project_on_segment(q, a, b);
            if d2 < best.2 {
                best = (self.first + j as u32, t, d2);
            }
            a = b;
        }
        best
    }
}

impl RTreeObject for Piece {
    type Envelope = AABB<[f64; 2]>;

    fn envelope(&self) -> Self::Envelope {
        self.envelope
    }
}

/// An entry of the nearest-first walk: a subtree by the distance to its box, or a piece by
/// its own distance.
struct Queued<'a> {
    d2: f64,
    node: &'a RTreeNode<Piece>,
}

impl PartialEq for Queued<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Queued<'_> {}

impl PartialOrd for Queued<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued<'_> {
    /// Nearest first from a max-heap.
    fn cmp(&self, other: &Self) -> Ordering {
        other.d2.total_cmp(&self.d2)
    }
}

/// The pieces of a tree nearest first, with their squared distances to `q` (best-first
/// search: a subtree is opened when nothing queued is nearer than its box).
struct NearestFirst<'a> {
    net: &'a RoadNetwork,
    proj: &'a LocalProjection,
    q: [f64; 2],
    queue: BinaryHeap<Queued<'a>>,
}

impl<'a> NearestFirst<'a> {
    fn new(
        tree: &'a RTree<Piece>,
        net: &'a RoadNetwork,
        proj: &'a LocalProjection,
        q: [f64; 2],
    ) -> Self {
        let mut walk = NearestFirst {
            net,
            proj,
            q,
            queue: BinaryHeap::new(),
        };
        walk.open(tree.root().children());
        walk
    }

    fn open(&mut self, children: &'a [RTreeNode<Piece>]) {
        for node in children {
            let d2 = match node {
                RTreeNode::Leaf(piece) => piece.nearest(self.net, self.proj, self.q).2,
                RTreeNode::Parent(parent) => parent.envelope().distance_2(&self.q),
            };
            self.queue.push(Queued { d2, node });
        }
    }
}

impl<'a> Iterator for NearestFirst<'a> {
    type Item = (&'a Piece, f64);

    fn next(&mut self) -> Option<Self::Item> {
        while let Some(Queued { d2, node }) = self.queue.pop() {
            match node {
                RTreeNode::Leaf(piece) => return Some((piece, d2)),
                RTreeNode::Parent(parent) => self.open(parent.children()),
            }
        }
        None
    }
}

/// A point snapped onto an edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snap {
    /// Edge index.
    pub edge: u32,
    /// Fraction of the edge's length from its `from` node, `0..=1`.
    pub fraction: f64,
    /// The snapped point.
    pub point: Pt,
    /// Distance from the input to the snapped point, metres.
    pub distance_m: f64,
}

/// The segment index of a network.
#[derive(Debug)]
pub struct SnapIndex {
    tree: RTree<Piece>,
    proj: LocalProjection,
}

/// Farthest an input may be from a usable edge, metres.
pub const MAX_SNAP_M: f64 = 5_000.0;

/// Pieces whose distances differ by less than this (metres) are equally near.
const TIE_M: f64 = 0.001;

impl SnapIndex {
    /// Indexes every segment of the network.
    pub fn build(net: &RoadNetwork) -> SnapIndex {
        let mid = if net.nodes.is_empty() {
            0.0
        } else {
            let (lo, hi) = net.nodes.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
                (lo.min(p.lat), hi.max(p.lat))
            });
            (lo + hi) / 2.0
        };
        let proj = LocalProjection::new(mid);
        let mut pieces = Vec::with_capacity(net.points.len() / PIECE_SEGMENTS + net.edges.len());
        let mut points: Vec<[f64; 2]> = Vec::with_capacity(PIECE_SEGMENTS + 1);
        for i in 0..net.edges.len() {
            let g = net.geometry(i as u32);
            let mut first = 0;
            while first + 1 < g.len() {
                let end = (first + PIECE_SEGMENTS).min(g.len() - 1);
                points.clear();
                points.extend(g[first..=end].iter().map(|p| proj.project(*p)));
                pieces.push(Piece {
                    edge: i as u32,
                    first: first as u32,
                    envelope: AABB::from_points(points.iter()),
                });
                first = end;
            }
        }
        SnapIndex {
            tree: RTree::bulk_load(pieces),
            proj,
        }
    }

    /// Number of pieces indexed.
    pub fn pieces(&self) -> usize {
        self.tree.size()
    }

    /// The nearest point on an edge accepted by `usable`, within [`MAX_SNAP_M`].
    pub fn snap(&self, net: &RoadNetwork, p: Pt, usable: impl Fn(u32) -> bool) -> Option<Snap> {
        self.snap_two(net, p, usable, |_| true)
            .map(|(near, _)| near)
    }

    /// The nearest point on an edge accepted by `usable` and, when `main` refuses that edge,
    /// the nearest point on an edge accepted by both (`None` when there is none within
    /// [`MAX_SNAP_M`]). One walk of the index, nearest segments first.
    pub fn snap_two(
        &self,
        net: &RoadNetwork,
        p: Pt,
        usable: impl Fn(u32) -> bool,
        main: impl Fn(u32) -> bool,
    ) -> Option<(Snap, Option<Snap>)> {
        let q = self.proj.project(p);
        let max2 = MAX_SNAP_M * MAX_SNAP_M;
        let mut near: Option<Snap> = None;
        let mut walk = NearestFirst::new(&self.tree, net, &self.proj, q)
            .take_while(|x| x.1 <= max2)
            .filter(|x| usable(x.0.edge))
            .peekable();
        let mut tied: Vec<&Piece> = Vec::new();
        loop {
            // Equally near pieces (a point nearest to a node is as near to every edge there)
            // in the order of their nearest segment, not of the edges' numbering: the same
            // roads get the same snap in every network that has them (a pack, a joined one).
            if tied.is_empty() {
                let Some((first, d2)) = walk.next() else {
                    break;
                };
                tied.push(first);
                let d = d2.sqrt();
                while let Some(&(other, o2)) = walk.peek() {
                    if o2.sqrt() - d > TIE_M {
                        break;
                    }
                    tied.push(other);
                    walk.next();
                }
                tied.sort_by(|a, b| {
                    self.segment_key(net, q, a)
                        .partial_cmp(&self.segment_key(net, q, b))
                        .unwrap_or(std::cmp::Ordering::Equal)
                });
                tied.reverse();
            }
            let Some(piece) = tied.pop() else {
                break;
            };
            let in_main = main(piece.edge);
            if near.is_some() && !in_main {
                continue;
            }
            let s = self.snap_on(net, p, q, piece);
            match near {
                None if in_main => return Some((s, None)),
                None => near = Some(s),
                Some(n) => return Some((n, Some(s))),
            }
        }
        near.map(|n| (n, None))
    }

    /// The geographic ends of `piece`'s segment nearest to `q` (lower first), whether the
    /// edge runs along it from the lower one, and the edge's `oneway`: the same for a road in
    /// every network that has it, and different for two edges on one segment (a one-way
    /// street and its contraflow cycle lane).
    fn segment_key(&self, net: &RoadNetwork, q: [f64; 2], piece: &Piece) -> [f64; 6] {
        let (i, _, _) = piece.nearest(net, &self.proj, q);
        let g = net.geometry(piece.edge);
        let i = i as usize;
        let (a, b) = match (g.get(i), g.get(i + 1)) {
            (Some(&a), Some(&b)) => (a, b),
            _ => return [f64::INFINITY; 6],
        };
        let forward = (a.lat, a.lng) <= (b.lat, b.lng);
        let (a, b) = if forward { (a, b) } else { (b, a) };
        let oneway = net.edges.get(piece.edge as usize).map_or(0, |e| e.oneway);
        [
            a.lat,
            a.lng,
            b.lat,
            b.lng,
            f64::from(u8::from(forward)),
            f64::from(oneway),
        ]
    }

    fn snap_on(&self, net: &RoadNetwork, p: Pt, q: [f64; 2], piece: &Piece) -> Snap {
        let (i, t, _) = piece.nearest(net, &self.proj, q);
        let g = net.geometry(piece.edge);
        let i = i as usize;
        let point = lerp(g[i], g[i + 1], t);
        let before = line_length_m(&g[..=i]);
        let seg_len = haversine_m(g[i], g[i + 1]);
        let total = before + line_length_m(&g[i..]);
        let fraction = if total > 0.0 {
            ((before + t * seg_len) / total).clamp(0.0, 1.0)
        } else {
            0.0
        };
        Snap {
            edge: piece.edge,
            fraction,
            point,
            distance_m: haversine_m(p, point),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::routing::network::{EdgeFields, RoadEdge};
    use crate::routing::profile::{CountryLimits, Highway};

    /// A network of `lines` (each an edge with its `oneway`), numbered in the given order.
    fn network(lines: &[(Vec<Pt>, i8)]) -> RoadNetwork {
        let mut nodes: Vec<Pt> = Vec::new();
        let mut node = |p: Pt| -> u32 {
            match nodes.iter().position(|&n| n == p) {
                Some(i) => i as u32,
                None => {
                    nodes.push(p);
                    nodes.len() as u32 - 1
                }
            }
        };
        let mut points = Vec::new();
        let mut edges = Vec::new();
        for (i, (line, oneway)) in lines.iter().enumerate() {
            let start = points.len() as u32;
            points.extend(line.iter().copied());
            edges.push(RoadEdge::new(&EdgeFields {
                id: i as i64 + 1,
                way_id: i as i64 + 1,
                from: node(line[0]),
                to: node(line[line.len() - 1]),
                length_m: line_length_m(line),
                highway: Highway::Residential,
                name: 0,
                r#ref: 0,
                maxspeed: None,
                oneway: *oneway,
                access: [true; 4],
                restricted: [false; 4],
                toll: false,
                ferry: false,
                tracktype: None,
                geometry: (start, points.len() as u32),
                limits: 0,
            }));
        }
        let node_osm: Vec<i64> = (0..nodes.len() as i64).collect();
        let junction = vec![true; nodes.len()];
        let density = vec![0.0; nodes.len()];
        RoadNetwork {
            nodes: nodes.into(),
            node_osm: node_osm.into(),
            junction,
            density: density.into(),
            edges: edges.into(),
            points: points.into(),
            names: vec![Arc::from("")],
            restrictions: Vec::new(),
            toll_booths: Vec::new(),
            country: String::new(),
            limits: CountryLimits::of(""),
            country_limits: vec![CountryLimits::of("")],
        }
    }

    /// The snapped edge's geometry and `oneway`: what identifies a road across networks.
    fn snapped(net: &RoadNetwork, p: Pt) -> (Vec<Pt>, i8) {
        let index = SnapIndex::build(net);
        let s = index.snap(net, p, |_| true).unwrap();
        let e = &net.edges[s.edge as usize];
        (net.geometry(s.edge).to_vec(), e.oneway)
    }

    #[test]
    fn equally_near_edges_snap_alike_whatever_their_numbering() {
        let c = Pt::new(53.55, 13.25);
        let arm = |dlat: f64, dlng: f64| vec![c, Pt::new(53.55 + dlat, 13.25 + dlng)];
        // Four streets meeting at `c`, and a one-way street with its contraflow cycle lane
        // (two edges on the same points).
        let street = vec![Pt::new(53.56, 13.26), Pt::new(53.561, 13.262)];
        let mut lines = vec![
            (arm(0.001, 0.0), 0),
            (arm(0.0, 0.001), 0),
            (arm(-0.001, 0.0), 0),
            (arm(0.0, -0.001), 0),
            (street.clone(), 1),
            (street.clone(), -1),
        ];
        let on_street = Pt::new(53.5605, 13.261);
        let mut seen = Vec::new();
        for turn in 0..lines.len() {
            lines.rotate_left(1);
            for order in [lines.clone(), lines.iter().rev().cloned().collect()] {
                let net = network(&order);
                seen.push((snapped(&net, c), snapped(&net, on_street), turn));
            }
        }
        for s in &seen {
            assert_eq!((&s.0, &s.1), (&seen[0].0, &seen[0].1), "order {}", s.2);
        }
    }
}
