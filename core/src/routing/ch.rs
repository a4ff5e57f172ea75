//! Contraction hierarchies over the turn-expanded graph, prepared with `fast_paths` when a
//! pack is built and stored in the pack as `routing/<profile>-<metric>.fp`.
//!
//! **File format** (postcard, version 2, ADR 0005): [`PreparedFile`] — a magic string, the
//! format version, the profile and metric, the [`TurnGraph::signature`] of the graph it was
//! prepared from, and the hierarchy in the compact encoding of [`super::compact`] (what the
//! turn graph cannot tell: the node order, the degrees, which transition each original edge
//! is, the centre of each shortcut; weights are derived again). A reader derives the turn graph
//! from the pack's roads layer, refuses a prepared graph whose signature differs, and decodes
//! the hierarchy against it. Version 1 files (the `fast_paths` graph in its 32-bit form) are
//! refused with a message naming both versions.
//!
//! **Queries** ([`super::etree`]) run on query arrays numbered by rank, with several weighted
//! sources and targets (the snapped points' partial arcs): a walk up the elimination tree for
//! hierarchies in a nested-dissection order, a bidirectional search with stall-on-demand for
//! contracted ones. Matrices use a bucket-based many-to-many search
//! ([`ChGraph::many_to_many`]) over the same hierarchy, carrying a second weight (the length
//! along the fastest path, or the time along the shortest) computed for every shortcut when the
//! graph is loaded.
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use fast_paths::{FastGraph, FastGraph32, InputGraph};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use super::compact::{self, CodecError, Encoded};
use super::etree::{Labels, Meeting, RankGraph};
use super::flat::{Arr, FlatError};

mod layout_file;
use super::graph::TurnGraph;
use super::profile::{Metric, Profile};

/// Magic string of a prepared graph file.
pub const MAGIC: &str = "waymark-ch";
/// Version of the prepared graph file format.
pub const FILE_VERSION: u32 = 2;

/// The relative path of the prepared graph of `profile` and `metric` in a pack.
pub fn file_name(profile: Profile, metric: Metric) -> String {
    format!("routing/{}-{}.fp", profile.name(), metric.name())
}

/// What a `.fp` file holds.
#[derive(Debug, Serialize, Deserialize)]
pub struct PreparedFile {
    /// [`MAGIC`].
    pub magic: String,
    /// [`FILE_VERSION`].
    pub version: u32,
    /// Profile name.
    pub profile: String,
    /// Metric name.
    pub metric: String,
    /// [`TurnGraph::signature`] of the graph it was prepared from.
    pub signature: u64,
    /// Number of arcs.
    pub arcs: u32,
    /// The hierarchy, encoded ([`compact`]).
    pub graph: Encoded,
}

/// The first fields of every version of [`PreparedFile`], read before the rest.
#[derive(Debug, Deserialize)]
struct Header {
    magic: String,
    version: u32,
}

/// Why a prepared graph cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ChError {
    /// The file is not a prepared graph of this format.
    #[error("{0}")]
    Format(String),
    /// The file belongs to another graph.
    #[error("the prepared graph does not match the roads layer of its pack; rebuild the pack")]
    Mismatch,
    /// Reading failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The encoded hierarchy is damaged, or a hierarchy cannot be encoded.
    #[error("{0}")]
    Codec(#[from] CodecError),
    /// A query layout file cannot be used or written.
    #[error("{0}")]
    Layout(#[from] FlatError),
}

/// The input of `fast_paths` for a turn graph in `metric`. A dummy node numbered `arc_count`
/// with one edge into the last arc makes `fast_paths` count every arc as a node (it counts the
/// nodes it sees in edges); nothing can reach the dummy, so no path changes.
pub fn input_graph(g: &TurnGraph, metric: Metric) -> InputGraph {
    let mut input = InputGraph::new();
    for a in 0..g.arc_count() as u32 {
        for t in g.out_range(a) {
            let b = g.head[t as usize];
            let w = g.transition_cost(metric, a, t).max(1) as usize;
            input.add_edge(a as usize, b as usize, w);
        }
    }
    let n = g.arc_count();
    if n > 0 {
        input.add_edge(n, n - 1, 1);
    }
    input.freeze();
    input
}

/// Witness-search limits of the contraction (settled nodes per search): what
/// [`prepare`] uses. `fast_paths`' defaults are 500 / 100 / 500 and 100 with a given order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrepareLimits {
    /// Per search when the priorities of all nodes are first computed.
    pub initial_relevance: usize,
    /// Per search when the priorities of a contracted node's neighbours are updated.
    pub neighbor_relevance: usize,
    /// Per search when a node is contracted.
    pub contraction: usize,
    /// Per search when a node is contracted in a given order.
    pub contraction_with_order: usize,
}

impl PrepareLimits {
    /// The limits the builder uses: `fast_paths`' defaults. 20 (not 100) settled nodes when a
    /// contracted node's neighbours are re-prioritised halves the contraction time on a 100 k-node
    /// synthetic city for 2–7 % more hierarchy edges (`docs/performance.md`), but the
    /// different hierarchy loses Andorra's second route between Andorra la Vella and Encamp
    /// (`alternatives=true`, tests/tests/distance.rs): alternatives come from the hierarchy's
    /// search spaces. Kept at 100 until the alternatives are found in a way that does not
    /// depend on the hierarchy's shape; [`PrepareLimits`] lets `examples/ch_limits` try others.
    pub const BUILD: PrepareLimits = PrepareLimits {
        initial_relevance: 500,
        neighbor_relevance: 100,
        contraction: 500,
        contraction_with_order: 100,
    };

    fn params(&self) -> fast_paths::Params {
        fast_paths::Params::new(
            0.1,
            self.initial_relevance,
            self.neighbor_relevance,
            self.contraction,
        )
    }
}

/// Prepares the hierarchy of `g` in `metric` (with `order`, a node order of another metric of
/// the same graph, contraction reuses it).
pub fn prepare(g: &TurnGraph, metric: Metric, order: Option<&[usize]>) -> FastGraph {
    prepare_with_limits(g, metric, order, &PrepareLimits::BUILD)
}

/// [`prepare`] with the given witness-search limits.
pub fn prepare_with_limits(
    g: &TurnGraph,
    metric: Metric,
    order: Option<&[usize]>,
    limits: &PrepareLimits,
) -> FastGraph {
    let input = input_graph(g, metric);
    let params = limits.params();
    match order {
        Some(order) if order.len() == input.get_num_nodes() => {
            let with_order = fast_paths::ParamsWithOrder::new(limits.contraction_with_order);
            fast_paths::prepare_with_order_with_params(&input, order, &with_order)
                .unwrap_or_else(|_| fast_paths::prepare_with_params(&input, &params))
        }
        _ => fast_paths::prepare_with_params(&input, &params),
    }
}

impl PreparedFile {
    /// The file of `graph`, prepared from `g` in `metric` (encoded, and checked to decode to
    /// the same hierarchy).
    pub fn new(g: &TurnGraph, metric: Metric, graph: &FastGraph) -> Result<PreparedFile, ChError> {
        Self::from_up(g, metric, &FastGraph32::new(graph))
    }

    /// [`PreparedFile::new`] of a hierarchy in its 32-bit layout.
    pub fn from_up(
        g: &TurnGraph,
        metric: Metric,
        graph: &FastGraph32,
    ) -> Result<PreparedFile, ChError> {
        Ok(PreparedFile {
            magic: MAGIC.to_string(),
            version: FILE_VERSION,
            profile: g.profile.name().to_string(),
            metric: metric.name().to_string(),
            signature: g.signature(metric),
            arcs: g.arc_count() as u32,
            graph: compact::encode32(g, metric, graph)?,
        })
    }

    /// The bytes of the file.
    pub fn to_bytes(&self) -> Result<Vec<u8>, ChError> {
        postcard::to_stdvec(self).map_err(|e| ChError::Format(e.to_string()))
    }

    /// Parses a file.
    pub fn from_bytes(bytes: &[u8]) -> Result<PreparedFile, ChError> {
        let not_graph =
            |e: postcard::Error| ChError::Format(format!("not a prepared routing graph: {e}"));
        let (h, _): (Header, _) = postcard::take_from_bytes(bytes).map_err(not_graph)?;
        if h.magic != MAGIC || h.version != FILE_VERSION {
            return Err(ChError::Format(format!(
                "prepared routing graph format {} {} is not supported (this build reads {MAGIC} {FILE_VERSION}); install a pack built for it",
                h.magic, h.version
            )));
        }
        postcard::from_bytes(bytes).map_err(not_graph)
    }
}

/// A loaded hierarchy, ready for queries.
pub struct ChGraph {
    /// The metric it minimises.
    pub metric: Metric,
    /// The other metric's cost of each forward / backward hierarchy edge (cm or ms; at most
    /// `u32::MAX`, 42,949 km or 49 days, far beyond any path in a region).
    second_fwd: Arr<u32>,
    second_bwd: Arr<u32>,
    /// The edges each forward / backward hierarchy edge replaces, `[in, out]` (a backward
    /// and a forward edge of its centre); `[INVALID, rank it is stored at]` for an edge of the
    /// turn graph.
    via_fwd: Arr<[u32; 2]>,
    via_bwd: Arr<[u32; 2]>,
    arcs: usize,
    /// The query arrays and elimination tree ([`super::etree`]).
    query: RankGraph,
    /// Whether point-to-point and upward queries walk the elimination tree (hierarchies in
    /// a nested-dissection order) rather than search (witness-search contractions).
    walk: bool,
    labels: Mutex<Vec<Labels>>,
}

impl std::fmt::Debug for ChGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChGraph")
            .field("metric", &self.metric)
            .field("arcs", &self.arcs)
            .field("edges", &self.query.edge_count())
            .field("mapped", &self.second_fwd.is_mapped())
            .finish()
    }
}

const INVALID: u32 = u32::MAX;

impl ChGraph {
    /// Loads a prepared file for `g`, checking that it was prepared from `g` in `metric`.
    pub fn load(file: PreparedFile, g: &TurnGraph, metric: Metric) -> Result<ChGraph, ChError> {
        if file.profile != g.profile.name()
            || file.metric != metric.name()
            || file.arcs as usize != g.arc_count()
            || file.signature != g.signature(metric)
            || file.graph.nodes as usize != g.arc_count() + 1
        {
            return Err(ChError::Mismatch);
        }
        let up = compact::decode(&file.graph, g, metric)?;
        Ok(Self::from_parts(up, g, metric))
    }

    /// Wraps a hierarchy in its 32-bit layout, prepared from `g` in `metric`.
    pub fn from_up(up: FastGraph32, g: &TurnGraph, metric: Metric) -> ChGraph {
        Self::from_parts(up, g, metric)
    }

    /// Wraps a hierarchy prepared from `g` in `metric`.
    pub fn from_fast(fast: FastGraph, g: &TurnGraph, metric: Metric) -> ChGraph {
        Self::from_parts(FastGraph32::new(&fast), g, metric)
    }

    fn from_parts(up: FastGraph32, g: &TurnGraph, metric: Metric) -> ChGraph {
        let other = match metric {
            Metric::Time => Metric::Distance,
            Metric::Distance => Metric::Time,
        };
        let n = up.ranks.len();
        let mut second_fwd = vec![0u64; up.edges_fwd.len()];
        let mut second_bwd = vec![0u64; up.edges_bwd.len()];
        let original = |from: u32, to: u32| -> u64 {
            if from as usize >= g.arc_count() {
                return 0;
            }
            g.out_range(from)
                .find(|&t| g.head[t as usize] == to)
                .map_or(0, |t| g.transition_cost(other, from, t))
        };
        // Shortcuts replace edges stored at lower-ranked nodes: fill rank by rank.
        for rank in 0..n {
            for e in up.first_edge_ids_fwd[rank] as usize..up.first_edge_ids_fwd[rank + 1] as usize
            {
                let edge = up.edges_fwd[e];
                second_fwd[e] = if edge.replaced_in_edge == INVALID {
                    original(edge.base_node, edge.adj_node)
                } else {
                    second_bwd[edge.replaced_in_edge as usize]
                        + second_fwd[edge.replaced_out_edge as usize]
                };
            }
            for e in up.first_edge_ids_bwd[rank] as usize..up.first_edge_ids_bwd[rank + 1] as usize
            {
                let edge = up.edges_bwd[e];
                second_bwd[e] = if edge.replaced_in_edge == INVALID {
                    original(edge.adj_node, edge.base_node)
                } else {
                    second_bwd[edge.replaced_in_edge as usize]
                        + second_fwd[edge.replaced_out_edge as usize]
                };
            }
        }
        // Replaced edges; an original edge keeps the rank it is stored at in the second slot.
        fn via<E>(first: &[u32], edges: &[E], replaced: impl Fn(&E) -> [u32; 2]) -> Arr<[u32; 2]> {
            let mut out = Vec::with_capacity(edges.len());
            for (rank, w) in first.windows(2).enumerate() {
                for e in &edges[w[0] as usize..w[1] as usize] {
                    let r = replaced(e);
                    out.push(if r[0] == INVALID {
                        [INVALID, rank as u32]
                    } else {
                        r
                    });
                }
            }
            out.into()
        }
        let narrow = |v: Vec<u64>| -> Arr<u32> {
            v.into_iter()
                .map(|c| u32::try_from(c).unwrap_or(u32::MAX))
                .collect::<Vec<u32>>()
                .into()
        };
        ChGraph {
            metric,
            query: RankGraph::new(&up),
            via_fwd: via(&up.first_edge_ids_fwd, &up.edges_fwd, |e| {
                [e.replaced_in_edge, e.replaced_out_edge]
            }),
            via_bwd: via(&up.first_edge_ids_bwd, &up.edges_bwd, |e| {
                [e.replaced_in_edge, e.replaced_out_edge]
            }),
            second_fwd: narrow(second_fwd),
            second_bwd: narrow(second_bwd),
            arcs: g.arc_count(),
            walk: false,
            labels: Mutex::new(Vec::new()),
        }
    }

    /// Number of hierarchy edges (original and shortcuts, both directions).
    pub fn edge_count(&self) -> usize {
        self.query.edge_count()
    }

    /// Whether the hierarchy is read from a mapped query layout file rather than memory.
    pub fn is_mapped(&self) -> bool {
        self.second_fwd.is_mapped()
    }

    /// Whether queries walk the elimination tree (`true` for hierarchies prepared in a
    /// nested-dissection order, where it is several times faster) or search.
    pub fn walking(mut self, walk: bool) -> ChGraph {
        self.walk = walk;
        self
    }

    /// The cheapest path from any source `(arc, start weight)` to any target `(arc, end
    /// weight)`: its weight (start and end included) and its arcs. Weights are unsigned: callers
    /// shift negative start labels by a common offset.
    pub fn shortest(
        &self,
        sources: &[(u32, u64)],
        targets: &[(u32, u64)],
    ) -> Option<(u64, Vec<u32>)> {
        self.point_to_point(sources, targets, self.walk)
    }

    /// [`ChGraph::shortest`] by the walk (`walk`) or the search, whichever the graph uses.
    pub fn point_to_point(
        &self,
        sources: &[(u32, u64)],
        targets: &[(u32, u64)],
        walk: bool,
    ) -> Option<(u64, Vec<u32>)> {
        let valid = |v: &&(u32, u64)| (v.0 as usize) < self.arcs;
        let sources: Vec<(u32, u64)> = sources.iter().filter(valid).copied().collect();
        let targets: Vec<(u32, u64)> = targets.iter().filter(valid).copied().collect();
        let mut labels = self.labels.lock().pop().unwrap_or_default();
        let meeting = if walk {
            self.query.walk(&mut labels, &sources, &targets)
        } else {
            self.query.search(&mut labels, &sources, &targets)
        };
        self.labels.lock().push(labels);
        meeting.map(|m| (m.weight, self.arcs_of(&m)))
    }

    /// Drops the query labels kept for the next queries
    /// ([`super::memory::release`]); how many sets there were.
    pub fn drop_kept_labels(&self) -> usize {
        std::mem::take(&mut *self.labels.lock()).len()
    }

    /// The arcs of a meeting's path, shortcuts unpacked.
    fn arcs_of(&self, m: &Meeting) -> Vec<u32> {
        let mut arcs = vec![m.source];
        for &e in &m.up {
            self.unpack(true, e, &mut arcs);
        }
        for &e in &m.down {
            self.unpack(false, e, &mut arcs);
        }
        arcs
    }

    /// Mean edges relaxed by one upward walk of the elimination tree, unpruned.
    pub fn walk_cost(&self) -> f64 {
        self.query.walk_cost()
    }

    /// Upward search from weighted arcs (forward, or backward over incoming edges), returning
    /// every node reached with its `(weight, second weight)`.
    fn upward(&self, starts: &[(u32, u64, u64)], forward: bool, space: &mut SearchSpace) {
        space.clear();
        if self.walk {
            let starts: Vec<(u32, u64, u64)> = starts
                .iter()
                .filter(|s| (s.0 as usize) < self.arcs)
                .copied()
                .collect();
            let second = if forward {
                &self.second_fwd
            } else {
                &self.second_bwd
            };
            let mut labels = self.labels.lock().pop().unwrap_or_default();
            self.query
                .upward(&mut labels, &starts, forward, second, &mut space.settled);
            self.labels.lock().push(labels);
            return;
        }
        // The search runs on ranks; it reports nodes.
        for &(a, w, s) in starts {
            if (a as usize) < self.arcs
                && let Some(r) = self.query.rank_of(a)
            {
                space.relax(r, w, s);
            }
        }
        let second = if forward {
            &self.second_fwd
        } else {
            &self.second_bwd
        };
        while let Some(Reverse((w, r))) = space.heap.pop() {
            let Some(&(cur, sec)) = space.label.get(&r) else {
                continue;
            };
            if w != cur || !space.done.insert(r) {
                continue;
            }
            // Stall on demand: a node reached more cheaply from above is not expanded.
            let (_, opp) = self.query.edges(!forward, r);
            let stalled = opp.iter().any(|&[h, c]| {
                space
                    .label
                    .get(&h)
                    .is_some_and(|&(aw, _)| aw + u64::from(c) < w)
            });
            space.settled.push((self.query.node_of(r), cur, sec));
            if stalled {
                continue;
            }
            let (first, edges) = self.query.edges(forward, r);
            for (i, &[head, weight]) in edges.iter().enumerate() {
                let e = first + i;
                let s2 = second.get(e).copied().unwrap_or(0);
                space.relax(head, w + u64::from(weight), sec + u64::from(s2));
            }
        }
    }

    /// Costs between every source and every target, each `(arc, weight, second weight)` list
    /// describing one point: `result[i][j]` = `(weight, second)` of the cheapest path from
    /// source `i` to target `j` (offsets included), `None` when unreachable.
    pub fn many_to_many(
        &self,
        sources: &[Vec<(u32, u64, u64)>],
        targets: &[Vec<(u32, u64, u64)>],
    ) -> Vec<Vec<Option<(u64, u64)>>> {
        let buckets = self.buckets(targets, false);
        sources
            .iter()
            .map(|s| self.scan(s, true, &buckets))
            .collect()
    }

    /// The upward search spaces of `points` (backward searches when `forward` is false, for
    /// points used as targets; forward searches for points used as sources), to answer many
    /// one-to-many queries against the same points with [`ChGraph::scan`].
    pub fn buckets(&self, points: &[Vec<(u32, u64, u64)>], forward: bool) -> Buckets {
        let mut space = SearchSpace::default();
        let mut map: std::collections::HashMap<u32, Vec<(u32, u64, u64)>> =
            std::collections::HashMap::new();
        for (j, t) in points.iter().enumerate() {
            self.upward(t, forward, &mut space);
            for &(node, w, s) in &space.settled {
                map.entry(node).or_default().push((j as u32, w, s));
            }
        }
        Buckets {
            map,
            len: points.len(),
            forward,
        }
    }

    /// Costs between `point` and each point of `buckets`: from `point` to each (`forward`
    /// true, with buckets of backward searches) or from each to `point` (`forward` false, with
    /// buckets of forward searches).
    pub fn scan(
        &self,
        point: &[(u32, u64, u64)],
        forward: bool,
        buckets: &Buckets,
    ) -> Vec<Option<(u64, u64)>> {
        let mut row = vec![None; buckets.len];
        if buckets.forward == forward {
            return row;
        }
        let mut space = SearchSpace::default();
        self.upward(point, forward, &mut space);
        for &(node, w, sec) in &space.settled {
            if let Some(list) = buckets.map.get(&node) {
                for &(j, tw, ts) in list {
                    let total = (w + tw, sec + ts);
                    let cell = &mut row[j as usize];
                    if cell.is_none_or(|c: (u64, u64)| total.0 < c.0) {
                        *cell = Some(total);
                    }
                }
            }
        }
        row
    }
}

/// Upward search spaces of a set of points ([`ChGraph::buckets`]).
#[derive(Debug, Default)]
pub struct Buckets {
    map: std::collections::HashMap<u32, Vec<(u32, u64, u64)>>,
    len: usize,
    forward: bool,
}

impl Buckets {
    /// Number of points.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no points.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Labels of an upward search.
#[derive(Debug, Default)]
struct SearchSpace {
    label: std::collections::HashMap<u32, (u64, u64)>,
    done: std::collections::HashSet<u32>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    settled: Vec<(u32, u64, u64)>,
}

impl SearchSpace {
    fn clear(&mut self) {
        self.label.clear();
        self.done.clear();
        self.heap.clear();
        self.settled.clear();
    }

    fn relax(&mut self, node: u32, w: u64, s: u64) {
        let better = self.label.get(&node).is_none_or(|&(old, _)| w < old);
        if better {
            self.label.insert(node, (w, s));
            self.heap.push(Reverse((w, node)));
        }
    }
}

/// A node reached by an upward search, with how.
#[derive(Debug, Clone, Copy)]
struct Reached {
    weight: u64,
    /// Node it was reached from and the hierarchy edge used (`INVALID` for a start).
    parent: u32,
    edge: u32,
}

impl ChGraph {
    /// The upward search tree from `starts`, keyed by rank.
    fn upward_tree(
        &self,
        starts: &[(u32, u64)],
        forward: bool,
    ) -> std::collections::HashMap<u32, Reached> {
        let mut label: std::collections::HashMap<u32, Reached> = std::collections::HashMap::new();
        let mut done = std::collections::HashSet::new();
        let mut heap = BinaryHeap::new();
        for &(a, w) in starts {
            let Some(r) = self.query.rank_of(a).filter(|_| (a as usize) < self.arcs) else {
                continue;
            };
            if label.get(&r).is_none_or(|x| w < x.weight) {
                label.insert(
                    r,
                    Reached {
                        weight: w,
                        parent: INVALID,
                        edge: INVALID,
                    },
                );
                heap.push(Reverse((w, r)));
            }
        }
        while let Some(Reverse((w, r))) = heap.pop() {
            if label.get(&r).is_none_or(|x| x.weight != w) || !done.insert(r) {
                continue;
            }
            let (first, edges) = self.query.edges(forward, r);
            for (i, &[head, weight]) in edges.iter().enumerate() {
                let nw = w + u64::from(weight);
                if label.get(&head).is_none_or(|x| nw < x.weight) {
                    label.insert(
                        head,
                        Reached {
                            weight: nw,
                            parent: r,
                            edge: (first + i) as u32,
                        },
                    );
                    heap.push(Reverse((nw, head)));
                }
            }
        }
        label
    }

    /// Appends the arcs a hierarchy edge stands for, after its tail, in travel order.
    fn unpack(&self, forward: bool, e: u32, out: &mut Vec<u32>) {
        let q = self.query.view();
        let (via_fwd, via_bwd): (&[[u32; 2]], &[[u32; 2]]) = (&self.via_fwd, &self.via_bwd);
        // An explicit stack: shortcuts nest as deep as the hierarchy.
        let mut stack = vec![(forward, e)];
        while let Some((forward, e)) = stack.pop() {
            let via = if forward { via_fwd } else { via_bwd };
            let Some(&[replaced_in, replaced_out]) = via.get(e as usize) else {
                continue;
            };
            if replaced_in == INVALID {
                // Forward: the edge's head; backward: the node it is stored at.
                let rank = if forward {
                    q.fwd.get(e as usize).map_or(INVALID, |h| h[0])
                } else {
                    replaced_out
                };
                out.push(q.node.get(rank as usize).copied().unwrap_or(INVALID));
            } else {
                stack.push((true, replaced_out));
                stack.push((false, replaced_in));
            }
        }
    }

    /// Alternative paths by the via-node method: full upward searches from the sources and
    /// the targets meet at candidate nodes; a candidate's path (source → via → target,
    /// unpacked) is kept when it costs at most `stretch` × the best, shares at most `share`
    /// of its length (`len` of each arc) with every path kept before, and visits no arc
    /// twice. Returns up to `max` paths `(weight, arcs)`, the cheapest first (it is the
    /// optimal path).
    pub fn alternatives(
        &self,
        sources: &[(u32, u64)],
        targets: &[(u32, u64)],
        max: usize,
        (stretch, share): (f64, f64),
        len: &dyn Fn(u32) -> f64,
    ) -> Vec<(u64, Vec<u32>)> {
        let fwd = self.upward_tree(sources, true);
        let bwd = self.upward_tree(targets, false);
        // Meeting ranks, the cheapest first (ties in node order).
        let mut meet: Vec<(u64, u32, u32)> = fwd
            .iter()
            .filter_map(|(&v, f)| {
                bwd.get(&v)
                    .map(|b| (f.weight + b.weight, self.query.node_of(v), v))
            })
            .collect();
        meet.sort_unstable();
        let Some(&(best, _, _)) = meet.first() else {
            return Vec::new();
        };
        let limit = (best as f64 * stretch) as u64;
        let mut kept: Vec<(u64, Vec<u32>)> = Vec::new();
        let mut kept_sets: Vec<(std::collections::HashSet<u32>, f64)> = Vec::new();
        for &(w, _, v) in meet.iter().take(400) {
            if w > limit || kept.len() >= max {
                break;
            }
            // source → v
            let mut up: Vec<(u32, u32)> = Vec::new();
            let mut n = v;
            while let Some(r) = fwd.get(&n) {
                if r.parent == INVALID {
                    break;
                }
                up.push((r.parent, r.edge));
                n = r.parent;
            }
            let mut arcs = vec![self.query.node_of(n)];
            for &(_, e) in up.iter().rev() {
                self.unpack(true, e, &mut arcs);
            }
            // v → target
            let mut n = v;
            while let Some(r) = bwd.get(&n) {
                if r.parent == INVALID {
                    break;
                }
                self.unpack(false, r.edge, &mut arcs);
                n = r.parent;
            }
            let set: std::collections::HashSet<u32> = arcs.iter().copied().collect();
            if set.len() != arcs.len() {
                continue;
            }
            let total: f64 = arcs.iter().map(|&a| len(a)).sum();
            let distinct = kept_sets.iter().all(|(k, k_total)| {
                let common: f64 = arcs.iter().filter(|a| k.contains(a)).map(|&a| len(a)).sum();
                common <= share * total.min(*k_total)
            });
            if kept.is_empty() || distinct {
                kept.push((w, arcs));
                kept_sets.push((set, total));
            }
        }
        kept
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The start of a version 1 file: the same header, then the `fast_paths` graph.
    #[derive(Serialize)]
    struct V1 {
        magic: String,
        version: u32,
        profile: String,
        metric: String,
        signature: u64,
        arcs: u32,
        graph: Vec<u32>,
    }

    #[test]
    fn a_version_1_file_or_another_file_is_refused_by_name() {
        let v1 = postcard::to_stdvec(&V1 {
            magic: MAGIC.into(),
            version: 1,
            profile: "driving".into(),
            metric: "time".into(),
            signature: 7,
            arcs: 3,
            graph: vec![4, 0, 1, 2, 3],
        })
        .unwrap();
        let err = PreparedFile::from_bytes(&v1).unwrap_err().to_string();
        assert!(
            err.contains("waymark-ch 1 is not supported") && err.contains("reads waymark-ch 2"),
            "{err}"
        );
        let err = PreparedFile::from_bytes(b"\x05hello\x02")
            .unwrap_err()
            .to_string();
        assert!(err.contains("format hello 2 is not supported"), "{err}");
        let err = PreparedFile::from_bytes(b"").unwrap_err().to_string();
        assert!(err.contains("not a prepared routing graph"), "{err}");
    }
}
