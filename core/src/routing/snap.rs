//! Snapping input coordinates to the nearest point of a routable edge (not the nearest node):
//! an R-tree over every segment of every edge, in a local metric projection. [`SnapIndex::snap_two`]
//! also finds the nearest edge of the main component in the same walk (see [`super::reach`]).
use rstar::{AABB, PointDistance, RTree, RTreeObject};

use super::network::RoadNetwork;
use crate::geo::{LocalProjection, Pt, haversine_m, lerp, line_length_m, project_on_segment};

/// One segment of an edge's geometry.
#[derive(Debug, Clone, Copy)]
pub struct Segment {
    /// Edge index.
    pub edge: u32,
    /// Index of the segment's first point within the edge geometry.
    pub index: u32,
    a: [f64; 2],
    b: [f64; 2],
}

impl RTreeObject for Segment {
    type Envelope = AABB<[f64; 2]>;

    fn envelope(&self) -> Self::Envelope {
        AABB::from_corners(self.a, self.b)
    }
}

impl PointDistance for Segment {
    fn distance_2(&self, point: &[f64; 2]) -> f64 {
        project_on_segment(*point, self.a, self.b).1
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
    tree: RTree<Segment>,
    proj: LocalProjection,
}

/// Farthest an input may be from a usable edge, metres.
pub const MAX_SNAP_M: f64 = 5_000.0;

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
        let mut segs = Vec::with_capacity(net.points.len());
        for (i, _) in net.edges.iter().enumerate() {
            let g = net.geometry(i as u32);
            for (j, w) in g.windows(2).enumerate() {
                segs.push(Segment {
                    edge: i as u32,
                    index: j as u32,
                    a: proj.project(w[0]),
                    b: proj.project(w[1]),
                });
            }
        }
        SnapIndex {
            tree: RTree::bulk_load(segs),
            proj,
        }
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
        for (seg, d2) in self.tree.nearest_neighbor_iter_with_distance_2(&q) {
            if d2 > max2 {
                break;
            }
            if !usable(seg.edge) {
                continue;
            }
            let in_main = main(seg.edge);
            if near.is_some() && !in_main {
                continue;
            }
            let s = self.snap_on(net, p, q, seg);
            match near {
                None if in_main => return Some((s, None)),
                None => near = Some(s),
                Some(n) => return Some((n, Some(s))),
            }
        }
        near.map(|n| (n, None))
    }

    fn snap_on(&self, net: &RoadNetwork, p: Pt, q: [f64; 2], seg: &Segment) -> Snap {
        let (t, _) = project_on_segment(q, seg.a, seg.b);
        let g = net.geometry(seg.edge);
        let i = seg.index as usize;
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
            edge: seg.edge,
            fraction,
            point,
            distance_m: haversine_m(p, point),
        }
    }
}
