//! A contraction hierarchy prepared in a nested-dissection order, the way a customisable CH is
//! (Dibbelt, Strasser, Wagner: "Customizable Contraction Hierarchies", 2016), for networks too
//! large for `fast_paths`' witness-search contraction (ADR 0007).
//!
//! 1. **Order.** The turn graph is cut recursively by straight lines: an arc is on one side when
//!    both its ends are, and the arcs crossing the line are the separator (every transition
//!    joins an arc ending at a junction to one starting there, so no transition joins the two
//!    sides). Of eight directions and every cut position between the quartiles the builder
//!    keeps the one with the fewest crossing arcs per arc on the smaller side. Separators take
//!    the highest ranks of their cell. On a city grid this is close to the best separator there
//!    is; the order needs no weights.
//! 2. **Contraction without witnesses.** Contracting in that order and joining all higher
//!    neighbours of each node gives the chordal supergraph: its edges are every shortcut any
//!    metric could need. It is built in one pass, each node handing its higher neighbours to
//!    the lowest of them.
//! 3. **Basic customisation.** Nodes in ascending rank: each lower triangle `{v, y, z}`
//!    (`v` below both) offers `y → v → z` and `z → v → y`; the cheaper is kept with `v` as its
//!    centre. Each edge then weighs the shortest path through lower-ranked nodes.
//! 4. **Perfect customisation.** Nodes in descending rank: the weight of `v → y` becomes the
//!    exact distance, `min(w(v → y), min_z w(v → z) + d(z → y))` over the higher neighbours
//!    `z`. An edge whose exact distance is below its customised weight is never part of a
//!    shortest up–down path and is dropped; what is left is the hierarchy a contraction in the
//!    same order would build with exact witness searches, and every kept shortcut's two halves
//!    are kept too (halves of a shortest path are shortest).
//!
//! The result is stored exactly like a `fast_paths` hierarchy ([`super::compact`]) and answered
//! by the same queries: readers do not know which preparation made a file.
use fast_paths::FastGraph32;

use super::compact::{Edge, Hierarchy, transition_weight};
use super::graph::TurnGraph;
use super::network::RoadNetwork;
use super::profile::Metric;

const INF: u32 = u32::MAX;
const NONE: u32 = u32::MAX;
/// The builder prepares graphs of more arcs than this in a nested-dissection order, smaller
/// ones by `fast_paths`' contraction (ADR 0007). A reader that is not told how a hierarchy was
/// prepared assumes the same.
pub const ND_FROM_ARCS: usize = 50_000;
/// Cells of at most this many arcs are not cut further.
const LEAF: usize = 4;

/// Planar positions (x east, y north, metres) of an arc's two ends: `[tail, head]`.
pub type Ends = [[f64; 2]; 2];

/// The planar positions of the ends of every arc of `g`, from the junctions of `net`.
pub fn arc_ends(g: &TurnGraph, net: &RoadNetwork) -> Vec<Ends> {
    let mean_lat = if net.nodes.is_empty() {
        0.0
    } else {
        net.nodes.iter().map(|p| p.lat).sum::<f64>() / net.nodes.len() as f64
    };
    let kx = 111_320.0 * mean_lat.to_radians().cos();
    let ky = 110_540.0;
    let at = |node: u32| {
        net.nodes
            .get(node as usize)
            .map_or([0.0, 0.0], |p| [p.lng * kx, p.lat * ky])
    };
    (0..g.arc_count())
        .map(|a| {
            let Some(e) = net.edges.get(g.arc_edge[a] as usize) else {
                return [[0.0; 2]; 2];
            };
            if g.arc_forward[a] {
                [at(e.from), at(e.to)]
            } else {
                [at(e.to), at(e.from)]
            }
        })
        .collect()
}

/// Why a hierarchy could not be prepared this way.
#[derive(Debug, thiserror::Error)]
pub enum NdError {
    /// The positions do not match the graph.
    #[error("{0} arc positions for a graph of {1} arcs")]
    Positions(usize, usize),
    /// An internal invariant failed (a bug): the caller can fall back to a contraction.
    #[error("nested-dissection preparation: {0}")]
    Internal(&'static str),
}

/// Figures of one preparation.
#[derive(Debug, Clone, Copy, Default)]
pub struct NdStats {
    /// Edges of the chordal supergraph (undirected).
    pub chordal_edges: usize,
    /// The largest number of higher neighbours of a node (the top separator, about).
    pub max_upper_degree: usize,
    /// Hierarchy edges kept (both directions).
    pub kept: usize,
    /// Of them, edges a path through a higher node matches, kept as halves of a kept shortcut.
    pub restored: usize,
    /// Milliseconds spent on the order, the chordal graph, the basic and the perfect
    /// customisation, and the hierarchy's layout.
    pub ms: [u64; 5],
}

/// The rank of every node `0..=ends.len()` (the last one is `fast_paths`' dummy node, placed
/// at the head of the last arc) in a nested-dissection order of the arcs' positions.
pub fn nested_dissection_ranks(ends: &[Ends]) -> Vec<u32> {
    let mut pos: Vec<Ends> = ends.to_vec();
    let dummy = ends.last().map_or([[0.0; 2]; 2], |e| [e[1], e[1]]);
    pos.push(dummy);
    let n = pos.len();
    let mut rank = vec![0u32; n];
    let mut stack: Vec<(Vec<u32>, usize)> = vec![((0..n as u32).collect(), 0)];
    let mut scratch = CutScratch::default();
    while let Some((cell, lo)) = stack.pop() {
        let split = if cell.len() <= LEAF {
            None
        } else {
            best_cut(&cell, &pos, &mut scratch)
        };
        let Some((dir, at)) = split else {
            for (i, &v) in cell.iter().enumerate() {
                rank[v as usize] = (lo + i) as u32;
            }
            continue;
        };
        let (mut left, mut right, mut sep) = (Vec::new(), Vec::new(), Vec::new());
        for &v in &cell {
            let (a, b) = span(&pos[v as usize], dir);
            if b <= at {
                left.push(v);
            } else if a > at {
                right.push(v);
            } else {
                sep.push(v);
            }
        }
        drop(cell);
        let hi = lo + left.len() + right.len() + sep.len();
        for (i, &v) in sep.iter().enumerate() {
            rank[v as usize] = (hi - sep.len() + i) as u32;
        }
        let right_lo = lo + left.len();
        stack.push((right, right_lo));
        stack.push((left, lo));
    }
    rank
}

/// Cut directions: every 22.5°.
const DIRECTIONS: [[f64; 2]; 8] = {
    // cos and sin of k × 22.5°, k = 0..8.
    const C1: f64 = 0.923_879_532_511_286_7;
    const S1: f64 = 0.382_683_432_365_089_8;
    const R: f64 = std::f64::consts::FRAC_1_SQRT_2;
    [
        [1.0, 0.0],
        [C1, S1],
        [R, R],
        [S1, C1],
        [0.0, 1.0],
        [-S1, C1],
        [-R, R],
        [-C1, S1],
    ]
};
/// Cuts are tried between these quantiles of the arcs' midpoints.
const CUT_RANGE: (f64, f64) = (0.25, 0.75);

/// The projections of an arc's two ends on `dir`, smaller first.
fn span(e: &Ends, dir: usize) -> (f64, f64) {
    let d = DIRECTIONS[dir];
    let p = e[0][0] * d[0] + e[0][1] * d[1];
    let q = e[1][0] * d[0] + e[1][1] * d[1];
    if p <= q { (p, q) } else { (q, p) }
}

/// Sorting scratch of [`best_cut`].
#[derive(Default)]
struct CutScratch {
    lows: Vec<f64>,
    highs: Vec<f64>,
    mids: Vec<f64>,
}

/// The direction and position of the cut of `cell` with the fewest crossing arcs per arc on
/// its smaller side, if some cut leaves arcs on both sides. Every position where an arc ends,
/// between the [`CUT_RANGE`] quantiles, is tried in each direction: with the arcs' low and high
/// ends sorted, a cut at `at` leaves `#(high ≤ at)` arcs on the left, `#(low > at)` on the
/// right and the rest crossing it.
fn best_cut(cell: &[u32], pos: &[Ends], s: &mut CutScratch) -> Option<(usize, f64)> {
    let n = cell.len();
    let mut best: Option<(f64, usize, f64)> = None;
    for dir in 0..DIRECTIONS.len() {
        s.lows.clear();
        s.highs.clear();
        s.mids.clear();
        for &v in cell {
            let (a, b) = span(&pos[v as usize], dir);
            s.lows.push(a);
            s.highs.push(b);
            s.mids.push(0.5 * (a + b));
        }
        s.lows.sort_unstable_by(f64::total_cmp);
        s.highs.sort_unstable_by(f64::total_cmp);
        s.mids.sort_unstable_by(f64::total_cmp);
        let quantile = |q: f64| s.mids[((n as f64 * q) as usize).min(n - 1)];
        let (from, to) = (quantile(CUT_RANGE.0), quantile(CUT_RANGE.1));
        let first = s.highs.partition_point(|&x| x < from);
        let mut tried = f64::NAN;
        for &at in s.highs[first..].iter().take_while(|&&x| x <= to) {
            if at == tried {
                continue;
            }
            tried = at;
            let left = s.highs.partition_point(|&x| x <= at);
            let right = n - s.lows.partition_point(|&x| x <= at);
            let smaller = left.min(right);
            if smaller == 0 {
                continue;
            }
            let sep = n - left - right;
            let score = (sep as f64 + 1.0) / smaller as f64;
            if best.is_none_or(|b| score < b.0) {
                best = Some((score, dir, at));
            }
        }
    }
    best.map(|(_, dir, at)| (dir, at))
}

/// The undirected chordal supergraph of the graph with edges `pairs` (node ranks) in rank
/// order, as sorted higher-neighbour lists: `(first, adj)`.
fn chordal(nodes: usize, pairs: impl Iterator<Item = (u32, u32)>) -> (Vec<usize>, Vec<u32>) {
    let mut up: Vec<Vec<u32>> = vec![Vec::new(); nodes];
    for (a, b) in pairs {
        if a < b {
            up[a as usize].push(b);
        } else if b < a {
            up[b as usize].push(a);
        }
    }
    let mut first = Vec::with_capacity(nodes + 1);
    let mut adj: Vec<u32> = Vec::new();
    for r in 0..nodes {
        let mut mine = std::mem::take(&mut up[r]);
        mine.sort_unstable();
        mine.dedup();
        if let Some((&parent, rest)) = mine.split_first() {
            up[parent as usize].extend_from_slice(rest);
        }
        first.push(adj.len());
        adj.extend_from_slice(&mine);
    }
    first.push(adj.len());
    (first, adj)
}

/// The position of `z` in the sorted `adj[from..end]` (where it must be: the higher neighbours
/// of a node's lowest higher neighbour include all the others), looking at the next entry first.
fn seek(adj: &[u32], mut from: usize, end: usize, z: u32) -> Result<usize, NdError> {
    if from < end && adj[from] < z {
        from += 1;
        if from < end && adj[from] < z {
            from += adj[from..end].partition_point(|&x| x < z);
        }
    }
    if from < end && adj[from] == z {
        Ok(from)
    } else {
        Err(NdError::Internal("the graph is not chordal"))
    }
}

/// The chordal graph with its weights and shortcut centres (indexes as in `adj`).
struct Customised {
    first: Vec<usize>,
    adj: Vec<u32>,
    /// `v → adj` for the edge stored at `v` (the lower end).
    up_w: Vec<u32>,
    /// `adj → v`.
    down_w: Vec<u32>,
    up_c: Vec<u32>,
    down_c: Vec<u32>,
}

impl Customised {
    /// The edge between ranks `y < z`, stored at `y`.
    fn find(&self, y: u32, z: u32) -> Option<usize> {
        let range = self.first[y as usize]..self.first[y as usize + 1];
        let list = &self.adj[range.clone()];
        let i = list.partition_point(|&x| x < z);
        (list.get(i) == Some(&z)).then_some(range.start + i)
    }

    /// Step 3: every lower triangle, ranks ascending.
    fn basic(&mut self) -> Result<(), NdError> {
        let nodes = self.first.len() - 1;
        for v in 0..nodes {
            let range = self.first[v]..self.first[v + 1];
            for i in range.clone() {
                let y = self.adj[i];
                let (yv, vy) = (u64::from(self.down_w[i]), u64::from(self.up_w[i]));
                let y_range = self.first[y as usize]..self.first[y as usize + 1];
                let mut cursor = y_range.start;
                for j in i + 1..range.end {
                    let z = self.adj[j];
                    cursor = seek(&self.adj, cursor, y_range.end, z)?;
                    let (zv, vz) = (u64::from(self.down_w[j]), u64::from(self.up_w[j]));
                    let forward = yv + vz;
                    if forward < u64::from(self.up_w[cursor]) {
                        self.up_w[cursor] = forward as u32;
                        self.up_c[cursor] = v as u32;
                    }
                    let backward = zv + vy;
                    if backward < u64::from(self.down_w[cursor]) {
                        self.down_w[cursor] = backward as u32;
                        self.down_c[cursor] = v as u32;
                    }
                }
            }
        }
        Ok(())
    }

    /// Step 4: exact distances, ranks descending; returns which directions of each edge are
    /// kept: those whose customised weight no path through a higher node (an upper or
    /// intermediate triangle) matches (`[up, down]`).
    fn perfect(&mut self) -> Result<Vec<[bool; 2]>, NdError> {
        let nodes = self.first.len() - 1;
        let mut keep = vec![[false; 2]; self.adj.len()];
        // The best path through a higher node, per edge of the current node.
        let mut best: Vec<[u64; 2]> = Vec::new();
        for v in (0..nodes).rev() {
            let range = self.first[v]..self.first[v + 1];
            best.clear();
            best.resize(range.len(), [INF_PATH; 2]);
            for i in range.clone() {
                let y = self.adj[i];
                let (vy, yv) = (u64::from(self.up_w[i]), u64::from(self.down_w[i]));
                let y_range = self.first[y as usize]..self.first[y as usize + 1];
                let mut cursor = y_range.start;
                for j in i + 1..range.end {
                    let z = self.adj[j];
                    cursor = seek(&self.adj, cursor, y_range.end, z)?;
                    // Exact already: both ends are above v.
                    let (yz, zy) = (u64::from(self.up_w[cursor]), u64::from(self.down_w[cursor]));
                    let (vz, zv) = (u64::from(self.up_w[j]), u64::from(self.down_w[j]));
                    let bi = &mut best[i - range.start];
                    bi[0] = bi[0].min(vz + zy);
                    bi[1] = bi[1].min(yz + zv);
                    let bj = &mut best[j - range.start];
                    bj[0] = bj[0].min(vy + yz);
                    bj[1] = bj[1].min(zy + yv);
                }
            }
            for (k, i) in range.enumerate() {
                let [u, d] = best[k];
                let (cu, cd) = (u64::from(self.up_w[i]), u64::from(self.down_w[i]));
                keep[i] = [
                    self.up_w[i] != INF && cu < u,
                    self.down_w[i] != INF && cd < d,
                ];
                self.up_w[i] = cu.min(u).min(u64::from(INF)) as u32;
                self.down_w[i] = cd.min(d).min(u64::from(INF)) as u32;
            }
        }
        Ok(keep)
    }

    /// Keeps the halves of every kept shortcut. An edge matched by a path through a higher node
    /// is not needed by queries, but a kept shortcut may have it as a half of its centre (the
    /// halves of a kept shortcut are exact, so only a tie can have dropped one). Ranks
    /// descending: a half is stored at its centre, below the shortcut's lower end, and is
    /// visited after it. Returns how many directions were kept again.
    fn keep_halves(&self, keep: &mut [[bool; 2]]) -> Result<usize, NdError> {
        let nodes = self.first.len() - 1;
        let mut restored = 0;
        for r in (0..nodes).rev() {
            for i in self.first[r]..self.first[r + 1] {
                let y = self.adj[i];
                // r → y through x needs r → x (x's down edge to r) and x → y (x's up edge).
                if keep[i][0] && self.up_c[i] != NONE {
                    let x = self.up_c[i];
                    restored += self.keep_edge(keep, x, r as u32, 1)?;
                    restored += self.keep_edge(keep, x, y, 0)?;
                }
                // y → r through x needs y → x (x's down edge to y) and x → r (x's up edge).
                if keep[i][1] && self.down_c[i] != NONE {
                    let x = self.down_c[i];
                    restored += self.keep_edge(keep, x, y, 1)?;
                    restored += self.keep_edge(keep, x, r as u32, 0)?;
                }
            }
        }
        Ok(restored)
    }

    /// Marks direction `dir` of the edge between `lo < hi` kept; 1 if it was dropped.
    fn keep_edge(
        &self,
        keep: &mut [[bool; 2]],
        lo: u32,
        hi: u32,
        dir: usize,
    ) -> Result<usize, NdError> {
        let e = self.find(lo, hi).ok_or(NdError::Internal(
            "a shortcut's half is not in the chordal graph",
        ))?;
        let w = if dir == 0 {
            self.up_w[e]
        } else {
            self.down_w[e]
        };
        if w == INF {
            return Err(NdError::Internal("a shortcut's half has no weight"));
        }
        let was = std::mem::replace(&mut keep[e][dir], true);
        Ok(usize::from(!was))
    }
}

/// No path: larger than any sum of two weights below [`INF`].
const INF_PATH: u64 = u64::MAX / 4;

/// Prepares the hierarchy of `g` in `metric` in a nested-dissection order of the arc positions
/// `ends` (one per arc, [`arc_ends`]).
pub fn prepare(
    g: &TurnGraph,
    metric: Metric,
    ends: &[Ends],
) -> Result<(FastGraph32, NdStats), NdError> {
    let n = g.arc_count();
    if ends.len() != n {
        return Err(NdError::Positions(ends.len(), n));
    }
    let nodes = n + 1;
    let mut clock = std::time::Instant::now();
    let mut ms = [0u64; 5];
    let mut lap = |i: usize| {
        ms[i] = clock.elapsed().as_millis() as u64;
        clock = std::time::Instant::now();
    };
    let rank = nested_dissection_ranks(ends);
    lap(0);
    let mut node_of = vec![0u32; nodes];
    for (v, &r) in rank.iter().enumerate() {
        node_of[r as usize] = v as u32;
    }
    // The original edges, in ranks, with `fast_paths`' dummy edge (see `ch::input_graph`).
    let mut originals: Vec<(u32, u32, u32)> = Vec::with_capacity(g.transition_count() + 1);
    for a in 0..n as u32 {
        for t in g.out_range(a) {
            let b = g.head[t as usize];
            if b != a {
                originals.push((
                    rank[a as usize],
                    rank[b as usize],
                    transition_weight(g, metric, a, t),
                ));
            }
        }
    }
    if n > 0 {
        originals.push((rank[n], rank[n - 1], 1));
    }
    let (first, adj) = chordal(nodes, originals.iter().map(|&(a, b, _)| (a, b)));
    let m = adj.len();
    lap(1);
    let mut c = Customised {
        first,
        adj,
        up_w: vec![INF; m],
        down_w: vec![INF; m],
        up_c: vec![NONE; m],
        down_c: vec![NONE; m],
    };
    for &(a, b, w) in &originals {
        let (lo, hi, up) = if a < b { (a, b, true) } else { (b, a, false) };
        let e = c
            .find(lo, hi)
            .ok_or(NdError::Internal("an original edge is missing"))?;
        let slot = if up { &mut c.up_w[e] } else { &mut c.down_w[e] };
        *slot = (*slot).min(w);
    }
    drop(originals);
    c.basic()?;
    lap(2);
    let mut keep = c.perfect()?;
    let restored = c.keep_halves(&mut keep)?;
    lap(3);
    let max_upper_degree = c.first.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    // Only what the layout needs is kept from here: a kept edge's exact weight is its
    // customised weight.
    let Customised {
        mut first,
        mut adj,
        mut up_w,
        mut down_w,
        mut up_c,
        mut down_c,
    } = c;
    // The edges with no kept direction are dropped before the layout is allocated (half
    // of the chordal graph's edges on a country's graphs), so the layout does not sit beside
    // the whole chordal graph.
    let mut w = 0;
    for r in 0..nodes {
        let range = first[r]..first[r + 1];
        first[r] = w;
        for i in range {
            if keep[i] != [false; 2] {
                adj[w] = adj[i];
                up_w[w] = up_w[i];
                down_w[w] = down_w[i];
                up_c[w] = up_c[i];
                down_c[w] = down_c[i];
                keep[w] = keep[i];
                w += 1;
            }
        }
    }
    first[nodes] = w;
    // New allocations of the kept length (an allocator may shrink a block in place and
    // keep its pages).
    for v in [&mut adj, &mut up_w, &mut down_w, &mut up_c, &mut down_c] {
        *v = v[..w].to_vec();
    }
    keep = keep[..w].to_vec();
    // The hierarchy in `fast_paths`' layout, ranks ascending; each node's edges in ascending
    // rank of their other end, so that a centre's edge to a node is found by bisection.
    // Exact sizes: grown by doubling, the two edge arrays (20 bytes an edge, 0.46 GB for a
    // 1.4 M-arc graph) held up to twice that, and a copy while moving (the build's peak).
    let (fwd, bwd) = keep.iter().fold((0, 0), |(f, b), k| {
        (f + usize::from(k[0]), b + usize::from(k[1]))
    });
    let mut h = Hierarchy {
        ranks: rank,
        edges_fwd: Vec::with_capacity(fwd),
        first_edge_ids_fwd: Vec::with_capacity(nodes + 1),
        edges_bwd: Vec::with_capacity(bwd),
        first_edge_ids_bwd: Vec::with_capacity(nodes + 1),
    };
    let lost = || NdError::Internal("a kept shortcut's half was dropped");
    // The index of the edge of the centre `x` (a rank) to node rank `to`, among `edges` laid
    // out from `first[x]`.
    let locate = |edges: &[Edge], first: &[u32], ranks: &[u32], x: u32, to: u32| -> Option<u32> {
        let range = first[x as usize] as usize..*first.get(x as usize + 1)? as usize;
        let list = &edges[range.clone()];
        let i = list.partition_point(|e| ranks[e.adj_node as usize] < to);
        (list.get(i).map(|e| ranks[e.adj_node as usize]) == Some(to))
            .then_some((range.start + i) as u32)
    };
    for r in 0..nodes {
        let range = first[r]..first[r + 1];
        h.first_edge_ids_fwd.push(h.edges_fwd.len() as u32);
        h.first_edge_ids_bwd.push(h.edges_bwd.len() as u32);
        for i in range.clone() {
            let y = adj[i];
            if keep[i][0] {
                // r → y, through the centre x: r → x is x's in-edge from r, x → y its out-edge.
                let (rin, rout) = match up_c[i] {
                    NONE => (NONE, NONE),
                    x => (
                        locate(&h.edges_bwd, &h.first_edge_ids_bwd, &h.ranks, x, r as u32)
                            .ok_or_else(lost)?,
                        locate(&h.edges_fwd, &h.first_edge_ids_fwd, &h.ranks, x, y)
                            .ok_or_else(lost)?,
                    ),
                };
                h.edges_fwd.push(Edge {
                    base_node: node_of[r],
                    adj_node: node_of[y as usize],
                    weight: up_w[i],
                    replaced_in_edge: rin,
                    replaced_out_edge: rout,
                });
            }
            if keep[i][1] {
                // y → r, through x: y → x is x's in-edge from y, x → r its out-edge.
                let (rin, rout) = match down_c[i] {
                    NONE => (NONE, NONE),
                    x => (
                        locate(&h.edges_bwd, &h.first_edge_ids_bwd, &h.ranks, x, y)
                            .ok_or_else(lost)?,
                        locate(&h.edges_fwd, &h.first_edge_ids_fwd, &h.ranks, x, r as u32)
                            .ok_or_else(lost)?,
                    ),
                };
                h.edges_bwd.push(Edge {
                    base_node: node_of[r],
                    adj_node: node_of[y as usize],
                    weight: down_w[i],
                    replaced_in_edge: rin,
                    replaced_out_edge: rout,
                });
            }
        }
    }
    h.first_edge_ids_fwd.push(h.edges_fwd.len() as u32);
    h.first_edge_ids_bwd.push(h.edges_bwd.len() as u32);
    drop((first, adj, up_w, down_w, up_c, down_c, keep));
    let kept = h.edges_fwd.len() + h.edges_bwd.len();
    let up = h
        .into_fast32()
        .map_err(|_| NdError::Internal("an edge cannot be rebuilt"))?;
    lap(4);
    let stats = NdStats {
        chordal_edges: m,
        max_upper_degree,
        kept,
        restored,
        ms,
    };
    Ok((up, stats))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::routing::ch::ChGraph;
    use crate::routing::compact::tests::random_graph;
    use crate::routing::compact::{decode, encode32};
    use crate::routing::search::Dijkstra;

    /// Positions for a random graph: arcs on a line, as `random_graph` joins near ids.
    fn line(n: usize) -> Vec<Ends> {
        (0..n)
            .map(|a| [[a as f64, 0.0], [a as f64 + 0.5, 0.0]])
            .collect()
    }

    #[test]
    fn the_order_is_a_permutation_with_separators_on_top() {
        // A 30 × 30 grid of short arcs.
        let mut ends = Vec::new();
        for x in 0..30 {
            for y in 0..30 {
                ends.push([
                    [f64::from(x), f64::from(y)],
                    [f64::from(x) + 1.0, f64::from(y)],
                ]);
            }
        }
        let ranks = nested_dissection_ranks(&ends);
        let mut seen = ranks.clone();
        seen.sort_unstable();
        assert_eq!(seen, (0..ends.len() as u32 + 1).collect::<Vec<_>>());
        // The highest-ranked arcs cross the first cut: their spans overlap one line.
        let top: Vec<usize> = (0..ends.len())
            .filter(|&v| ranks[v] as usize >= ends.len() - 20)
            .collect();
        let cut = (0..DIRECTIONS.len()).any(|dir| {
            let spans: Vec<(f64, f64)> = top.iter().map(|&v| span(&ends[v], dir)).collect();
            let lo = spans.iter().map(|s| s.0).fold(f64::MIN, f64::max);
            let hi = spans.iter().map(|s| s.1).fold(f64::MAX, f64::min);
            lo <= hi
        });
        assert!(cut, "the top-ranked arcs do not share a cut line");
    }

    #[test]
    fn hierarchies_answer_as_dijkstra_and_encode() {
        for (seed, metric, n, ties) in [
            (3, Metric::Time, 600u32, false),
            (5, Metric::Distance, 600, false),
            (11, Metric::Time, 1500, false),
            (13, Metric::Time, 40, false),
            // Two arc costs and no turn costs: most shortest paths tie, so most shortcuts are
            // matched through a higher node and dropped.
            (17, Metric::Time, 900, true),
            (19, Metric::Time, 300, true),
        ] {
            let mut g = random_graph(n, 3, seed);
            if ties {
                for (a, t) in g.arc_time_ms.to_mut().iter_mut().enumerate() {
                    *t = 1000 * (1 + a as u32 % 2);
                }
                g.turn_ms.to_mut().iter_mut().for_each(|t| *t = 0);
            }
            let ends = line(n as usize);
            let (up, stats) = prepare(&g, metric, &ends).unwrap();
            assert!(stats.kept > 0 && stats.kept <= 2 * stats.chordal_edges);
            // The compact encoding takes it (and checks it decodes to the same hierarchy).
            let enc = encode32(&g, metric, &up).unwrap();
            let back = decode(&enc, &g, metric).unwrap();
            for walk in [true, false] {
                let ch =
                    ChGraph::from_fast(back.clone().convert_to_usize(), &g, metric).walking(walk);
                let mut d = Dijkstra::new(n as usize);
                for s in (0..n).step_by(7) {
                    d.explore(
                        &g,
                        &[(s, 0)],
                        i64::MAX,
                        |a, t| Some(g.transition_cost(metric, a, t)),
                        |_| true,
                    );
                    for t in (0..n).step_by(5) {
                        let want = d.reached(t).map(|l| l as u64);
                        let got = ch.shortest(&[(s, 0)], &[(t, 0)]);
                        match (want, got) {
                            (None, None) => {}
                            (Some(w), Some((c, path))) => {
                                assert_eq!(c, w, "seed {seed} {s} → {t}");
                                assert_eq!(path.first(), Some(&s));
                                assert_eq!(path.last(), Some(&t));
                                let mut sum = 0;
                                for p in path.windows(2) {
                                    let tr =
                                        g.out_range(p[0]).find(|&x| g.head[x as usize] == p[1]);
                                    sum += g.transition_cost(metric, p[0], tr.unwrap());
                                }
                                assert_eq!(sum, w, "seed {seed} {s} → {t}: path cost");
                            }
                            other => panic!("seed {seed} {s} → {t}: {other:?}"),
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn wrong_positions_are_refused() {
        let g = random_graph(50, 3, 1);
        assert!(matches!(
            prepare(&g, Metric::Time, &line(49)),
            Err(NdError::Positions(49, 50))
        ));
    }
}
