//! Point-to-point and upward queries of a loaded hierarchy, on arrays numbered by rank.
//!
//! Two queries answer the same question on the same edges:
//!
//! * **The elimination-tree walk** (Dibbelt, Strasser, Wagner: "Customizable Contraction
//!   Hierarchies", 2016, section 5), for hierarchies prepared in a nested-dissection order
//!   (ADR 0007). In the elimination tree the parent of a node is its lowest-ranked neighbour in
//!   the graph the contraction fills in, so every node an upward search from `v` can reach is
//!   an ancestor of `v`: an upward search is a walk up the tree relaxing each node's upward
//!   edges, in rank order (the ancestors are collected, then sorted), with no priority queue
//!   and no stalling. A point-to-point query walks
//!   up from the sources and the targets at once; where the walks meet they go on together, and
//!   a node whose label is no better than the best meeting so far relaxes nothing (pruning). On
//!   a nested-dissection order the tree is shallow (its depth follows the separators).
//! * **A bidirectional search with stall-on-demand**, for hierarchies of a witness-search
//!   contraction: their order follows road importance, their tree is deep, and a search settles
//!   only a small part of the ancestors.
//!
//! Both run on copies of the upward edges holding only what a query reads (the head's rank and
//! the weight, eight bytes an edge), numbered by rank: a walk touches increasing, mostly
//! consecutive ranks. The tree is computed when a hierarchy is loaded, with Liu's algorithm
//! (path-compressed ancestor links over each node's lower neighbours) from the hierarchy's own
//! edges: the tree of their fill-in, no deeper than that of the full chordal graph.
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fast_paths::FastGraph32;

use super::flat::{Arr, FlatError, FlatFile, Section};

const NONE: u32 = u32::MAX;
const INF: u64 = u64::MAX;
/// Flags of a rank in a query.
const FWD: u8 = 1;
const BWD: u8 = 2;
const QUEUED: u8 = 4;
const DONE_FWD: u8 = 16;
const DONE_BWD: u8 = 32;

/// The query arrays of a hierarchy, numbered by rank, in memory or mapped from a query layout
/// file ([`super::flat`]).
#[derive(Debug, Default)]
pub struct RankGraph {
    /// Rank of each node.
    rank: Arr<u32>,
    /// Node of each rank.
    node: Arr<u32>,
    /// Elimination-tree parent of each rank (`u32::MAX` for roots).
    parent: Arr<u32>,
    /// First edge of each rank, forward and backward (as in the hierarchy).
    first_fwd: Arr<u32>,
    first_bwd: Arr<u32>,
    /// `[head rank, weight]` of each upward edge, in the hierarchy's edge order.
    fwd: Arr<[u32; 2]>,
    bwd: Arr<[u32; 2]>,
    /// Mean over all ranks of the edges (both directions) on the walk to the root.
    walk_cost: f64,
}

impl RankGraph {
    /// The query arrays and elimination tree of `up`.
    pub fn new(up: &FastGraph32) -> RankGraph {
        let n = up.ranks.len();
        let rank = up.ranks.clone();
        let mut node = vec![0u32; n];
        for (v, &r) in rank.iter().enumerate() {
            if let Some(slot) = node.get_mut(r as usize) {
                *slot = v as u32;
            }
        }
        let at = |v: u32| rank.get(v as usize).copied().unwrap_or(0);
        let fwd: Vec<[u32; 2]> = up
            .edges_fwd
            .iter()
            .map(|e| [at(e.adj_node), e.weight])
            .collect();
        let bwd: Vec<[u32; 2]> = up
            .edges_bwd
            .iter()
            .map(|e| [at(e.adj_node), e.weight])
            .collect();
        let first_fwd = up.first_edge_ids_fwd.clone();
        let first_bwd = up.first_edge_ids_bwd.clone();
        let parent = elimination_tree(n, &first_fwd, &fwd, &first_bwd, &bwd);
        let degree =
            |r: usize| (first_fwd[r + 1] - first_fwd[r] + first_bwd[r + 1] - first_bwd[r]) as f64;
        let mut cost = vec![0f64; n];
        for r in (0..n).rev() {
            let above = parent[r];
            cost[r] = degree(r)
                + if above == NONE {
                    0.0
                } else {
                    cost[above as usize]
                };
        }
        let walk_cost = if n == 0 {
            0.0
        } else {
            cost.iter().sum::<f64>() / n as f64
        };
        RankGraph {
            rank: rank.into(),
            node: node.into(),
            parent: parent.into(),
            first_fwd: first_fwd.into(),
            first_bwd: first_bwd.into(),
            fwd: fwd.into(),
            bwd: bwd.into(),
            walk_cost,
        }
    }

    /// The sections of a query layout file holding these arrays.
    pub fn sections(&self) -> Vec<Section<'_>> {
        vec![
            Section::new("rank", &self.rank),
            Section::new("node", &self.node),
            Section::new("parent", &self.parent),
            Section::new("firstfw", &self.first_fwd),
            Section::new("firstbw", &self.first_bwd),
            Section::new("fwd", &self.fwd),
            Section::new("bwd", &self.bwd),
            Section::new("walkcost", std::slice::from_ref(&self.walk_cost)),
        ]
    }

    /// The arrays of a query layout file written from [`RankGraph::sections`], checked for
    /// consistency (sizes, and every rank, parent, edge range and edge head in range) so
    /// that no query can read out of bounds. The contents are checked through the file, not
    /// the mapping, so opening leaves nothing resident.
    /// Also returns the two edge ranges (`firstfw`, `firstbw`) as it read them through the
    /// file, for checks of other sections against them without reading them again.
    pub fn from_file(f: &FlatFile) -> Result<(RankGraph, [Vec<u32>; 2]), FlatError> {
        let bad = |what: &str| FlatError::Invalid(format!("is inconsistent: {what}"));
        let n = f.count::<u32>("rank")?;
        if f.count::<u32>("node")? != n || f.count::<u32>("parent")? != n {
            return Err(bad("per-rank arrays differ in length"));
        }
        let below_n = |_: usize, v: &[u32]| v.iter().all(|&x| (x as usize) < n);
        if !f.scan("rank", below_n)? || !f.scan("node", below_n)? {
            return Err(bad("a rank or node is out of range"));
        }
        let above = |at: usize, v: &[u32]| {
            v.iter()
                .enumerate()
                .all(|(i, &p)| p == NONE || (p as usize > at + i && (p as usize) < n))
        };
        if !f.scan("parent", above)? {
            return Err(bad("a parent is not above its child"));
        }
        let mut ranges = [Vec::new(), Vec::new()];
        for ((first, edges), firsts) in [("firstfw", "fwd"), ("firstbw", "bwd")]
            .into_iter()
            .zip(&mut ranges)
        {
            let m = f.count::<[u32; 2]>(edges)?;
            if f.count::<u32>(first)? != n + 1 {
                return Err(bad("edge ranges do not cover every rank"));
            }
            // The edge ranges, read through the file (a temporary copy of 4 bytes a rank).
            firsts.reserve_exact(n + 1);
            let mut last = 0u32;
            let rising = f.scan(first, |at, v: &[u32]| {
                firsts.extend_from_slice(v);
                (at > 0 || v.first() == Some(&0))
                    && v.iter().all(|&x| {
                        let up = x >= last;
                        last = x;
                        up
                    })
            })?;
            if !rising || last as usize != m {
                return Err(bad("edge ranges are not increasing over every edge"));
            }
            // Every edge leads up from the rank it is stored at, so that following the edges
            // a query relaxed always ends.
            let mut rank = 0usize;
            if !f.scan(edges, |at, v: &[[u32; 2]]| {
                v.iter().enumerate().all(|(i, e)| {
                    while firsts.get(rank + 1).is_some_and(|&x| x as usize <= at + i) {
                        rank += 1;
                    }
                    (e[0] as usize) < n && e[0] as usize > rank
                })
            })? {
                return Err(bad("an edge leads out of range or not upwards"));
            }
        }
        let walk: Arr<f64> = f.arr("walkcost")?;
        let graph = RankGraph {
            rank: f.arr("rank")?,
            node: f.arr("node")?,
            parent: f.arr("parent")?,
            first_fwd: f.arr("firstfw")?,
            first_bwd: f.arr("firstbw")?,
            fwd: f.arr("fwd")?,
            bwd: f.arr("bwd")?,
            walk_cost: walk.first().copied().unwrap_or(0.0),
        };
        Ok((graph, ranges))
    }

    /// The arrays as plain slices.
    pub(super) fn view(&self) -> View<'_> {
        View {
            rank: &self.rank,
            node: &self.node,
            parent: &self.parent,
            first_fwd: &self.first_fwd,
            first_bwd: &self.first_bwd,
            fwd: &self.fwd,
            bwd: &self.bwd,
        }
    }

    /// Number of ranks.
    pub fn len(&self) -> usize {
        self.rank.len()
    }

    /// Whether the hierarchy has no nodes.
    pub fn is_empty(&self) -> bool {
        self.rank.is_empty()
    }

    /// Upward edges (forward / backward), both directions together.
    pub fn edge_count(&self) -> usize {
        self.fwd.len() + self.bwd.len()
    }

    /// Rank of node `v`.
    pub fn rank_of(&self, v: u32) -> Option<u32> {
        self.rank.get(v as usize).copied()
    }

    /// Node of rank `r`.
    pub fn node_of(&self, r: u32) -> u32 {
        self.node.get(r as usize).copied().unwrap_or(NONE)
    }

    /// The rank a forward / backward edge is stored at: the last rank whose first edge is at
    /// or before it.
    pub fn base(&self, forward: bool, e: u32) -> u32 {
        let first = if forward {
            &self.first_fwd
        } else {
            &self.first_bwd
        };
        first.partition_point(|&f| f <= e).saturating_sub(1) as u32
    }

    /// `[head rank, weight]` of forward / backward edge `e`.
    pub fn edge(&self, forward: bool, e: u32) -> [u32; 2] {
        let edges = if forward { &self.fwd } else { &self.bwd };
        edges.get(e as usize).copied().unwrap_or([NONE, 0])
    }

    /// The mean number of edges an upward walk from a node to the root relaxes without
    /// pruning.
    pub fn walk_cost(&self) -> f64 {
        self.walk_cost
    }

    /// The first index and the edges of rank `r` in one direction.
    pub fn edges(&self, forward: bool, r: u32) -> (usize, &[[u32; 2]]) {
        let (first, edges) = if forward {
            (&self.first_fwd, &self.fwd)
        } else {
            (&self.first_bwd, &self.bwd)
        };
        let (a, b) = (first[r as usize] as usize, first[r as usize + 1] as usize);
        (a, &edges[a..b])
    }
}

/// The elimination tree of the graph of `fwd` and `bwd` (edges from each rank to higher
/// ranks): Liu's algorithm over each rank's lower neighbours.
fn elimination_tree(
    n: usize,
    first_fwd: &[u32],
    fwd: &[[u32; 2]],
    first_bwd: &[u32],
    bwd: &[[u32; 2]],
) -> Vec<u32> {
    let mut first = vec![0u32; n + 1];
    for &[head, _] in fwd.iter().chain(bwd) {
        first[head as usize + 1] += 1;
    }
    for r in 0..n {
        first[r + 1] += first[r];
    }
    let mut fill = first.clone();
    let mut lower = vec![0u32; first[n] as usize];
    for (firsts, edges) in [(first_fwd, fwd), (first_bwd, bwd)] {
        for r in 0..n {
            for &[head, _] in &edges[firsts[r] as usize..firsts[r + 1] as usize] {
                lower[fill[head as usize] as usize] = r as u32;
                fill[head as usize] += 1;
            }
        }
    }
    drop(fill);
    let mut parent = vec![NONE; n];
    let mut ancestor = vec![NONE; n];
    for k in 0..n {
        for &low in &lower[first[k] as usize..first[k + 1] as usize] {
            let mut i = low;
            while i != NONE && (i as usize) < k {
                let next = ancestor[i as usize];
                ancestor[i as usize] = k as u32;
                if next == NONE {
                    parent[i as usize] = k as u32;
                }
                i = next;
            }
        }
    }
    parent
}

/// The query arrays of a [`RankGraph`] as plain slices, taken once per query (a mapped array
/// checks its range each time it is read).
#[derive(Debug, Clone, Copy)]
pub(super) struct View<'a> {
    rank: &'a [u32],
    pub(super) node: &'a [u32],
    parent: &'a [u32],
    first_fwd: &'a [u32],
    first_bwd: &'a [u32],
    pub(super) fwd: &'a [[u32; 2]],
    bwd: &'a [[u32; 2]],
}

impl<'a> View<'a> {
    fn edges(&self, forward: bool, r: u32) -> (usize, &'a [[u32; 2]]) {
        let (first, edges) = if forward {
            (self.first_fwd, self.fwd)
        } else {
            (self.first_bwd, self.bwd)
        };
        let (a, b) = (first[r as usize] as usize, first[r as usize + 1] as usize);
        (a, &edges[a..b])
    }

    pub(super) fn base(&self, forward: bool, e: u32) -> u32 {
        let first = if forward {
            self.first_fwd
        } else {
            self.first_bwd
        };
        first.partition_point(|&f| f <= e).saturating_sub(1) as u32
    }
}

/// The label of one rank in a query.
#[derive(Debug, Clone, Copy)]
struct Label {
    fwd: u64,
    bwd: u64,
    second: u64,
    fwd_edge: u32,
    bwd_edge: u32,
    flags: u8,
}

/// The label of a rank no query step has reached.
const EMPTY: Label = Label {
    fwd: INF,
    bwd: INF,
    second: 0,
    fwd_edge: NONE,
    bwd_edge: NONE,
    flags: 0,
};

/// The labels of queries, kept between queries. A query reaches a few thousand ranks of
/// millions: each rank reached gets a slot in `labels`, and per rank only the slot number is
/// kept (4 bytes a rank, zeroed on allocation, so the pages no query touched stay unused).
#[derive(Debug, Default)]
pub struct Labels {
    /// Slot of each rank, plus one (0: not reached).
    slot: Vec<u32>,
    /// The labels of the ranks reached, in the order reached.
    labels: Vec<Label>,
    /// The rank of each slot.
    touched: Vec<u32>,
    /// The ranks a walk visits, sorted before it runs.
    chain: Vec<u32>,
    heap_fwd: BinaryHeap<Reverse<(u64, u32)>>,
    heap_bwd: BinaryHeap<Reverse<(u64, u32)>>,
}

impl Labels {
    fn ready(&mut self, n: usize) {
        if self.slot.len() != n {
            *self = Labels {
                slot: vec![0; n],
                ..Labels::default()
            };
        }
    }

    fn reset(&mut self) {
        for &r in &self.touched {
            self.slot[r as usize] = 0;
        }
        self.touched.clear();
        self.labels.clear();
        self.chain.clear();
        self.heap_fwd.clear();
        self.heap_bwd.clear();
    }

    /// The label of `r`.
    fn get(&self, r: u32) -> &Label {
        match self.slot[r as usize] {
            0 => &EMPTY,
            s => &self.labels[s as usize - 1],
        }
    }

    /// The label of `r`, given a slot when it has none.
    fn at(&mut self, r: u32) -> &mut Label {
        let mut s = self.slot[r as usize];
        if s == 0 {
            self.labels.push(EMPTY);
            self.touched.push(r);
            s = self.labels.len() as u32;
            self.slot[r as usize] = s;
        }
        &mut self.labels[s as usize - 1]
    }

    /// Puts `r` and its ancestors on the walk in `flag`'s direction, each rank once: the climb
    /// stops at a rank already on it (its ancestors are too).
    fn climb(&mut self, parent: &[u32], r: u32, flag: u8) {
        let mut r = r;
        loop {
            let f = &mut self.at(r).flags;
            if *f & flag != 0 {
                break;
            }
            *f |= flag;
            if *f & QUEUED == 0 {
                *f |= QUEUED;
                self.chain.push(r);
            }
            match parent[r as usize] {
                NONE => break,
                p => r = p,
            }
        }
    }

    /// Sets the label of `r` in one direction when `w` is better.
    fn relax(&mut self, forward: bool, r: u32, w: u64, edge: u32) -> bool {
        let old = self.get(r);
        if w >= if forward { old.fwd } else { old.bwd } {
            return false;
        }
        let l = self.at(r);
        if forward {
            l.fwd = w;
            l.fwd_edge = edge;
        } else {
            l.bwd = w;
            l.bwd_edge = edge;
        }
        true
    }
}

/// The result of a point-to-point query: its weight, the source node it starts at, and the
/// hierarchy edges from the source up to the meeting node (forward edges, bottom-up) and down
/// to the target (backward edges, top-down).
#[derive(Debug)]
pub struct Meeting {
    /// Weight of the path, start and end weights included.
    pub weight: u64,
    /// The source node it starts at.
    pub source: u32,
    /// Forward hierarchy edges, from the source up.
    pub up: Vec<u32>,
    /// Backward hierarchy edges, from the meeting node down to the target.
    pub down: Vec<u32>,
}

impl RankGraph {
    /// Sets the start labels of a point-to-point query; false when a side has no valid node.
    fn start(
        &self,
        labels: &mut Labels,
        sources: &[(u32, u64)],
        targets: &[(u32, u64)],
        walk: bool,
    ) -> bool {
        let q = self.view();
        labels.ready(q.rank.len());
        let (mut any_source, mut any_target) = (false, false);
        for (forward, points, any) in [
            (true, sources, &mut any_source),
            (false, targets, &mut any_target),
        ] {
            for &(v, w) in points {
                let Some(&r) = q.rank.get(v as usize) else {
                    continue;
                };
                *any = true;
                if labels.relax(forward, r, w, NONE) {
                    if walk {
                        labels.climb(q.parent, r, if forward { FWD } else { BWD });
                    } else if forward {
                        labels.heap_fwd.push(Reverse((w, r)));
                    } else {
                        labels.heap_bwd.push(Reverse((w, r)));
                    }
                }
            }
        }
        any_source && any_target
    }

    /// The cheapest path from any source `(node, weight)` to any target by a walk up the
    /// elimination tree, with pruning.
    pub fn walk(
        &self,
        labels: &mut Labels,
        sources: &[(u32, u64)],
        targets: &[(u32, u64)],
    ) -> Option<Meeting> {
        let q = self.view();
        if !self.start(labels, sources, targets, true) {
            labels.reset();
            return None;
        }
        let (mut best, mut meet) = (INF, NONE);
        let mut chain = std::mem::take(&mut labels.chain);
        chain.sort_unstable();
        for &r in &chain {
            let Label {
                flags,
                fwd: df,
                bwd: db,
                ..
            } = *labels.get(r);
            if df != INF && db != INF && df + db < best {
                best = df + db;
                meet = r;
            }
            for (forward, on, d) in [(true, FWD, df), (false, BWD, db)] {
                if flags & on != 0 && d < best {
                    let (first, edges) = q.edges(forward, r);
                    for (i, &[head, weight]) in edges.iter().enumerate() {
                        labels.relax(forward, head, d + u64::from(weight), (first + i) as u32);
                    }
                }
            }
        }
        chain.clear();
        labels.chain = chain;
        let found = self.meeting(labels, best, meet);
        labels.reset();
        found
    }

    /// The cheapest path from any source to any target by a bidirectional search with
    /// stall-on-demand.
    pub fn search(
        &self,
        labels: &mut Labels,
        sources: &[(u32, u64)],
        targets: &[(u32, u64)],
    ) -> Option<Meeting> {
        let q = self.view();
        if !self.start(labels, sources, targets, false) {
            labels.reset();
            return None;
        }
        let (mut best, mut meet) = (INF, NONE);
        loop {
            let top = |h: &BinaryHeap<Reverse<(u64, u32)>>| h.peek().map_or(INF, |t| t.0.0);
            let (tf, tb) = (top(&labels.heap_fwd), top(&labels.heap_bwd));
            if tf.min(tb) >= best {
                break;
            }
            let forward = tf <= tb;
            let popped = if forward {
                labels.heap_fwd.pop()
            } else {
                labels.heap_bwd.pop()
            };
            let Some(Reverse((w, r))) = popped else {
                break;
            };
            let done = if forward { DONE_FWD } else { DONE_BWD };
            let own = |l: &Label| if forward { l.fwd } else { l.bwd };
            let here = *labels.get(r);
            if own(&here) != w || here.flags & done != 0 {
                continue;
            }
            // Stall on demand: a node reached more cheaply from above is not expanded.
            let (_, down) = q.edges(!forward, r);
            let stalled = down
                .iter()
                .any(|&[h, c]| own(labels.get(h)).saturating_add(u64::from(c)) < w);
            labels.at(r).flags |= done;
            let o = if forward { here.bwd } else { here.fwd };
            if o != INF && w + o < best {
                best = w + o;
                meet = r;
            }
            if stalled {
                continue;
            }
            let (first, edges) = q.edges(forward, r);
            for (i, &[head, weight]) in edges.iter().enumerate() {
                let nw = w + u64::from(weight);
                if labels.relax(forward, head, nw, (first + i) as u32) {
                    let heap = if forward {
                        &mut labels.heap_fwd
                    } else {
                        &mut labels.heap_bwd
                    };
                    heap.push(Reverse((nw, head)));
                }
            }
        }
        let found = self.meeting(labels, best, meet);
        labels.reset();
        found
    }

    /// The path through `meet` from the labels' edges.
    fn meeting(&self, labels: &Labels, best: u64, meet: u32) -> Option<Meeting> {
        let q = self.view();
        if meet == NONE {
            return None;
        }
        let base = |forward: bool, e: u32| q.base(forward, e);
        let mut up = Vec::new();
        let mut r = meet;
        while labels.get(r).fwd_edge != NONE {
            let e = labels.get(r).fwd_edge;
            up.push(e);
            r = base(true, e);
        }
        up.reverse();
        let source = q.node[r as usize];
        let mut down = Vec::new();
        let mut r = meet;
        while labels.get(r).bwd_edge != NONE {
            let e = labels.get(r).bwd_edge;
            down.push(e);
            r = base(false, e);
        }
        Some(Meeting {
            weight: best,
            source,
            up,
            down,
        })
    }

    /// One upward walk from `starts` (`(node, weight, second weight)`; forward edges when
    /// `forward`, else backward) without pruning: every node reached with its weight and
    /// second weight, `second` giving each edge's second weight.
    pub fn upward(
        &self,
        labels: &mut Labels,
        starts: &[(u32, u64, u64)],
        forward: bool,
        second: &[u32],
        out: &mut Vec<(u32, u64, u64)>,
    ) {
        let q = self.view();
        labels.ready(q.rank.len());
        out.clear();
        for &(v, w, s) in starts {
            let Some(&r) = q.rank.get(v as usize) else {
                continue;
            };
            if labels.relax(true, r, w, NONE) {
                labels.at(r).second = s;
                labels.climb(q.parent, r, FWD);
            }
        }
        let mut chain = std::mem::take(&mut labels.chain);
        chain.sort_unstable();
        for &r in &chain {
            let Label {
                fwd: w, second: s, ..
            } = *labels.get(r);
            if w != INF {
                out.push((q.node[r as usize], w, s));
                let (first, edges) = q.edges(forward, r);
                for (i, &[head, weight]) in edges.iter().enumerate() {
                    let e = (first + i) as u32;
                    if labels.relax(true, head, w + u64::from(weight), e) {
                        labels.at(head).second = s + u64::from(second[e as usize]);
                    }
                }
            }
        }
        chain.clear();
        labels.chain = chain;
        labels.reset();
    }
}
