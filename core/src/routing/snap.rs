//! Snapping input coordinates to the nearest point of a routable edge (not the nearest node):
//! a static, packed R-tree over the edges' geometry cut into pieces of up to
//! [`PIECE_SEGMENTS`] segments, in a local metric projection. A piece's distance is that of
//! its nearest segment, so the pieces come nearest first exactly as single segments would,
//! with a tree several times smaller (Andorra's mountain roads: 101,124 segments in 14,000
//! pieces). [`SnapIndex::snap_two`] also finds the nearest edge of the main component in the
//! same walk (see [`super::reach`]).
//!
//! A piece holds its edge and its first point, not its points nor its box: the walk projects
//! the network's own points (a multiplication each) when it measures a piece, so the index
//! takes 8 bytes a piece and under 3 for the nodes above (a country's 800,000
//! pieces: about 9 MB). Its arrays are plain, so an installed pack keeps them in a keyed
//! layout file (`snap.layout`, [`super::derived`]) and maps them when opened again: no
//! pieces are cut, no tree is built and none of it takes memory of its own.
use super::flat::{FlatError, FlatFile, Section};
use super::network::RoadNetwork;
use crate::geo::{LocalProjection, Pt, haversine_m, lerp, line_length_m, project_on_segment};

mod tree;

use tree::{Bbox, EMPTY, PackedTree, union};

/// Most segments in one piece of an edge.
pub const PIECE_SEGMENTS: usize = 8;

/// Up to [`PIECE_SEGMENTS`] consecutive segments of an edge's geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Piece {
    /// Edge index.
    pub edge: u32,
    /// Index of the piece's first point within the edge geometry.
    pub first: u32,
}

/// The pieces of every edge of `net`, edge by edge.
fn cut(net: &RoadNetwork) -> impl Iterator<Item = Piece> + '_ {
    (0..net.edges.len() as u32).flat_map(move |edge| {
        let points = net.geometry(edge).len();
        (0..points.saturating_sub(1))
            .step_by(PIECE_SEGMENTS)
            .map(move |first| Piece {
                edge,
                first: first as u32,
            })
    })
}

impl Piece {
    /// The piece's points, in the edge's geometry.
    fn points<'a>(&self, net: &'a RoadNetwork) -> &'a [Pt] {
        let g = net.geometry(self.edge);
        let first = self.first as usize;
        let end = (first + PIECE_SEGMENTS).min(g.len().saturating_sub(1));
        g.get(first..=end).unwrap_or(&[])
    }

    /// The box of the piece's points in `proj`.
    fn bbox(&self, net: &RoadNetwork, proj: &LocalProjection) -> Bbox {
        self.points(net).iter().fold(EMPTY, |b, p| {
            let [x, y] = proj.project(*p);
            union(b, [x, y, x, y])
        })
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
    tree: PackedTree,
    /// Latitude the projection is centred on.
    lat0: f64,
    proj: LocalProjection,
}

/// Farthest an input may be from a usable edge, metres.
pub const MAX_SNAP_M: f64 = 5_000.0;

/// Pieces whose distances differ by less than this (metres) are equally near.
const TIE_M: f64 = 0.001;

impl SnapIndex {
    /// Indexes every segment of the network.
    pub fn build(net: &RoadNetwork) -> SnapIndex {
        let lat0 = if net.nodes.is_empty() {
            0.0
        } else {
            let (lo, hi) = net.nodes.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
                (lo.min(p.lat), hi.max(p.lat))
            });
            (lo + hi) / 2.0
        };
        let proj = LocalProjection::new(lat0);
        let pieces: Vec<(Piece, Bbox)> = cut(net).map(|p| (p, p.bbox(net, &proj))).collect();
        SnapIndex {
            tree: PackedTree::build(pieces),
            lat0,
            proj,
        }
    }

    /// Number of pieces indexed.
    pub fn pieces(&self) -> usize {
        self.tree.len()
    }

    /// Whether the index is read from a mapped file.
    pub fn is_mapped(&self) -> bool {
        self.tree.is_mapped()
    }

    /// What a layout file holds besides the tree: the projection's latitude (its bits) and
    /// the number of leaves.
    pub fn meta(&self) -> [u64; 2] {
        [self.lat0.to_bits(), self.tree.leaves() as u64]
    }

    /// The index's arrays as sections of a layout file, `meta` being [`SnapIndex::meta`].
    pub fn sections<'a>(&'a self, meta: &'a [u64; 2]) -> Vec<Section<'a>> {
        let mut s = vec![Section::new("meta", meta)];
        s.extend(self.tree.sections());
        s
    }

    /// The index a layout file written from [`SnapIndex::sections`] holds: checked (reading
    /// through the file) to be a whole tree whose pieces lie on the edges of `net` when
    /// `net` is given, unchecked otherwise.
    pub fn from_file(f: &FlatFile, net: Option<&RoadNetwork>) -> Result<SnapIndex, FlatError> {
        let mut meta = [0u64; 2];
        let whole = f.scan("meta", |_, v: &[u64]| {
            meta.iter_mut().zip(v).for_each(|(m, &x)| *m = x);
            v.len() == 2
        })?;
        let lat0 = f64::from_bits(meta[0]);
        let leaves = usize::try_from(meta[1]).unwrap_or(usize::MAX);
        if !whole || f.count::<u64>("meta")? != 2 || !(-90.0..=90.0).contains(&lat0) {
            return Err(FlatError::Invalid("snap index has no projection".into()));
        }
        let tree = match net {
            Some(net) => PackedTree::from_file(f, leaves, |edge, first| {
                net.edges.get(edge as usize).is_some_and(|e| {
                    let (a, b) = e.geometry();
                    (first as usize) + 1 < b.saturating_sub(a) as usize
                })
            })?,
            None => PackedTree::arrays(f, leaves)?,
        };
        Ok(SnapIndex {
            tree,
            lat0,
            proj: LocalProjection::new(lat0),
        })
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
        let walk = self
            .tree
            .nearest_first(q, |piece| piece.nearest(net, &self.proj, q).2);
        self.pick(net, p, walk, usable, main)
    }

    /// What [`SnapIndex::snap_two`] answers, found without the tree by measuring every piece
    /// of the network and sorting them: slow, the reference the tree's walk is checked against.
    pub fn snap_two_by_scan(
        &self,
        net: &RoadNetwork,
        p: Pt,
        usable: impl Fn(u32) -> bool,
        main: impl Fn(u32) -> bool,
    ) -> Option<(Snap, Option<Snap>)> {
        let q = self.proj.project(p);
        let mut all: Vec<(Piece, f64)> = cut(net)
            .map(|piece| (piece, piece.nearest(net, &self.proj, q).2))
            .collect();
        all.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        self.pick(net, p, all.into_iter(), usable, main)
    }

    /// The snaps [`SnapIndex::snap_two`] answers from `walk`, the pieces nearest `p` first
    /// (equally near ones by edge and first point) with their squared distances.
    fn pick(
        &self,
        net: &RoadNetwork,
        p: Pt,
        walk: impl Iterator<Item = (Piece, f64)>,
        usable: impl Fn(u32) -> bool,
        main: impl Fn(u32) -> bool,
    ) -> Option<(Snap, Option<Snap>)> {
        let q = self.proj.project(p);
        let max2 = MAX_SNAP_M * MAX_SNAP_M;
        let mut near: Option<Snap> = None;
        let mut walk = walk
            .take_while(|x| x.1 <= max2)
            .filter(|x| usable(x.0.edge))
            .peekable();
        let mut tied: Vec<Piece> = Vec::new();
        loop {
            // Equally near pieces (a point nearest to a node is as near to every edge there)
            // in the order of their nearest segment, not of the edges' numbering: the same
            // roads get the same snap in every network that has them (a pack, a joined one).
            // Pieces on the same segment alike (the same road twice) by edge and first point.
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
                        .then(a.cmp(b))
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
            let s = self.snap_on(net, p, q, &piece);
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

    /// A seeded generator of numbers in `0..1`.
    struct Rng(u64);

    impl Rng {
        fn unit(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// A street grid (edges meeting at shared nodes, so points near a node are equally near
    /// several edges), long winding roads of many pieces, and some roads twice (as another
    /// one-way or the very same).
    fn town(rng: &mut Rng) -> RoadNetwork {
        let at = |i: f64, j: f64| Pt::new(60.17 + i * 0.001, 24.93 + j * 0.002);
        let mut lines: Vec<(Vec<Pt>, i8)> = Vec::new();
        for i in 0..16 {
            for j in 0..16 {
                let (i, j) = (f64::from(i), f64::from(j));
                lines.push((vec![at(i, j), at(i, j + 1.0)], 0));
                lines.push((vec![at(i, j), at(i + 1.0, j)], 0));
            }
        }
        for _ in 0..60 {
            let mut p = at(rng.unit() * 16.0, rng.unit() * 16.0);
            let mut line = vec![p];
            for _ in 0..(2 + (rng.unit() * 40.0) as usize) {
                p = Pt::new(
                    p.lat + (rng.unit() - 0.5) * 0.0008,
                    p.lng + (rng.unit() - 0.5) * 0.0016,
                );
                line.push(p);
            }
            lines.push((line, 0));
        }
        for k in 0..40 {
            let (line, _) = lines[k * 13].clone();
            lines.push((line, i8::from(k % 2 == 1)));
        }
        network(&lines)
    }

    /// Points over the town and around it, some exactly on its grid's nodes.
    fn points(rng: &mut Rng, n: usize) -> Vec<Pt> {
        (0..n)
            .map(|k| {
                if k % 10 == 0 {
                    let (i, j) = ((rng.unit() * 16.0).floor(), (rng.unit() * 16.0).floor());
                    Pt::new(60.17 + i * 0.001, 24.93 + j * 0.002)
                } else {
                    Pt::new(60.165 + rng.unit() * 0.026, 24.92 + rng.unit() * 0.052)
                }
            })
            .collect()
    }

    /// Nearest squared distance from `p` to a segment of an edge `ok` accepts, every
    /// segment measured.
    fn nearest_segment(
        index: &SnapIndex,
        net: &RoadNetwork,
        p: Pt,
        ok: impl Fn(u32) -> bool,
    ) -> f64 {
        let q = index.proj.project(p);
        (0..net.edges.len() as u32)
            .filter(|&e| ok(e))
            .flat_map(|e| net.geometry(e).windows(2))
            .map(|w| project_on_segment(q, index.proj.project(w[0]), index.proj.project(w[1])).1)
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn the_tree_answers_as_a_scan_of_every_piece() {
        let mut rng = Rng(0x5eed_cafe);
        let net = town(&mut rng);
        let index = SnapIndex::build(&net);
        assert!(index.pieces() > net.edges.len() + 100, "{}", index.pieces());
        assert!(
            index.tree.leaves() > tree::FAN_OUT,
            "a tree of several levels"
        );
        let thirds = |e: u32| !e.is_multiple_of(3);
        let even = |e: u32| e.is_multiple_of(2);
        let mut second = 0;
        for p in points(&mut rng, 3000) {
            let got = index.snap_two(&net, p, thirds, even);
            assert_eq!(got, index.snap_two_by_scan(&net, p, thirds, even), "{p:?}");
            assert_eq!(
                index.snap(&net, p, |_| true),
                index
                    .snap_two_by_scan(&net, p, |_| true, |_| true)
                    .map(|s| s.0),
                "{p:?}"
            );
            let (near, main) = got.unwrap();
            second += usize::from(main.is_some());
            let q = index.proj.project(p);
            let d2 = |s: &Snap| {
                let x = index.proj.project(s.point);
                (x[0] - q[0]).powi(2) + (x[1] - q[1]).powi(2)
            };
            // The nearest segment's distance, or one equally near (within [`TIE_M`]).
            let want = nearest_segment(&index, &net, p, thirds);
            assert!(d2(&near).sqrt() - want.sqrt() < TIE_M + 1e-6, "{p:?}");
            if let Some(m) = main {
                assert!(even(m.edge) && thirds(m.edge) && !even(near.edge));
                let want = nearest_segment(&index, &net, p, |e| thirds(e) && even(e));
                assert!(d2(&m).sqrt() - want.sqrt() < TIE_M + 1e-6, "{p:?}");
            }
        }
        assert!(second > 300, "only {second} second snaps");
    }

    #[test]
    fn a_layout_file_is_mapped_and_a_damaged_one_refused() {
        use crate::routing::flat::{FlatFile, write};
        let mut rng = Rng(77);
        let net = town(&mut rng);
        let index = SnapIndex::build(&net);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("snap.layout");
        let key = [5u8; 32];
        let meta = index.meta();
        write(&path, &key, &index.sections(&meta)).unwrap();
        let f = FlatFile::open(&path, &key).unwrap();
        let mapped = SnapIndex::from_file(&f, Some(&net)).unwrap();
        assert!(mapped.is_mapped() && !index.is_mapped());
        for p in points(&mut rng, 300) {
            assert_eq!(
                mapped.snap_two(&net, p, |_| true, |e| e.is_multiple_of(2)),
                index.snap_two(&net, p, |_| true, |e| e.is_multiple_of(2))
            );
        }
        let pieces: Vec<[u32; 2]> = f.arr::<[u32; 2]>("pieces").unwrap().to_vec();
        let boxes: Vec<[f64; 4]> = f.arr::<[f64; 4]>("boxes").unwrap().to_vec();
        let child: Vec<[u32; 2]> = f.arr::<[u32; 2]>("child").unwrap().to_vec();
        let (leaves, root) = (index.tree.leaves(), child.len() - 1);
        let last = net.edges.len() - 1;
        let points_of_last = net.geometry(last as u32).len() as u32;
        type Harm = Box<dyn Fn(&mut Vec<[u32; 2]>, &mut Vec<[u32; 2]>)>;
        let damage: [(&str, Harm); 7] = [
            (
                "a piece beyond the edges",
                Box::new(move |p, _| p[9][0] = last as u32 + 1),
            ),
            (
                "a first point beyond its edge",
                Box::new(move |p, _| {
                    p[0] = [last as u32, points_of_last - 1];
                }),
            ),
            (
                "a leaf beyond the pieces",
                Box::new(move |_, c| c[leaves - 1][1] += 1),
            ),
            (
                "a node its own child",
                Box::new(move |_, c| c[root][1] = root as u32 + 1),
            ),
            ("two parents", Box::new(move |_, c| c[leaves][1] += 1)),
            ("no parent", Box::new(move |_, c| c[root][0] += 1)),
            ("an empty leaf", Box::new(|_, c| c[3][1] = c[3][0])),
        ];
        for (what, harm) in &damage {
            let (mut p, mut c) = (pieces.clone(), child.clone());
            harm(&mut p, &mut c);
            let bad = dir.path().join("bad.layout");
            let sections = [
                Section::new("meta", &meta),
                Section::new("pieces", &p),
                Section::new("boxes", &boxes),
                Section::new("child", &c),
            ];
            write(&bad, &key, &sections).unwrap();
            let f = FlatFile::open(&bad, &key).unwrap();
            assert!(
                SnapIndex::from_file(&f, Some(&net)).is_err(),
                "{what}: accepted"
            );
        }
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
