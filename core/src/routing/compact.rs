//! The compact encoding of a contraction hierarchy prepared over a [`TurnGraph`] (ADR 0005):
//! only what the turn graph cannot tell, as LEB128 varint streams compressed with zstd.
//!
//! A `fast_paths` hierarchy holds, for each node (an arc of the turn graph) in rank order, its
//! upward out-edges (`edges_fwd`) and upward in-edges (`edges_bwd`); each edge has a base
//! node, an adjacent node, a weight and, for a shortcut, the two edges it replaces (both at
//! its centre node, of lower rank). Most of it follows from the turn graph and the order:
//!
//! * the base node is the node whose range holds the edge;
//! * an **original** edge is a transition of the turn graph; it is stored as its index among
//!   the candidates (the transitions from the base node to higher-ranked nodes for `edges_fwd`,
//!   into it from higher-ranked nodes for `edges_bwd`, sorted by node id), and its weight is
//!   the transition's cost in the metric (at least 1), as [`super::ch::input_graph`] gave it;
//! * a **shortcut** is stored as the rank distance to its centre and the offset, in the
//!   centre's range, of the replaced edge that leads to its adjacent node; the other replaced
//!   edge is the first edge of the centre's other range whose adjacent node is the base (the
//!   rule `fast_paths` itself follows), and the weight is the sum of the two replaced edges.
//!
//! Streams, each value a varint, in this order: `order` (node of each rank, zigzag delta of
//! the previous), `degrees` (per rank: out-edges, in-edges), `kinds` (per edge, ranks
//! ascending, out-edges before in-edges: `0` shortcut, `1 + i` original candidate `i`),
//! `centres` (per shortcut: rank − centre rank − 1), `offsets` (per shortcut). The encoder
//! decodes what it wrote and refuses a hierarchy it cannot reproduce exactly, so a stored
//! hierarchy answers as the prepared one did.
use fast_paths::{FastGraph, FastGraph32};
use serde::Deserialize;
use serde::de::value::{Error as ValueError, SeqDeserializer};

use super::graph::{Reverse, TurnGraph};
use super::profile::Metric;
use crate::varint::{VarintError, put, unzigzag, zigzag};

/// No edge / no node in the 32-bit layout of `fast_paths`.
const INVALID: u32 = u32::MAX;

/// Number of streams.
pub const STREAMS: usize = 5;

/// Why a hierarchy cannot be encoded or decoded.
#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    /// The bytes are not a valid encoding for this graph.
    #[error("corrupt prepared routing graph: {0}")]
    Corrupt(&'static str),
    /// The encoding would not reproduce the hierarchy (a builder bug, not a data error).
    #[error("the prepared routing graph cannot be encoded compactly: {0}")]
    Unrepresentable(String),
}

/// An encoded hierarchy: node and edge counts, the raw length of each stream and the
/// zstd-compressed streams.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Encoded {
    /// Nodes (arcs + the dummy node).
    pub nodes: u32,
    /// Upward out-edges.
    pub edges_fwd: u32,
    /// Upward in-edges.
    pub edges_bwd: u32,
    /// Raw length of each stream, bytes.
    pub stream_lengths: [u32; STREAMS],
    /// The streams, concatenated and compressed with zstd (one frame with a checksum).
    pub payload: Vec<u8>,
}

/// zstd level of the payload (built once, read on every device).
const LEVEL: i32 = 19;
/// Raw streams longer than this (hierarchies of over a million arcs) are compressed at
/// [`LEVEL_LARGE`]: on the 4.77 M-node city's walking graph (99 MB of streams) level 19 takes
/// 57 s for 17.2 MB, level 15 26 s for 19.4 MB, level 12 5.8 s for 20.5 MB
/// (`docs/performance.md`, "Pack build at scale").
const LARGE_RAW: usize = 16 << 20;
/// zstd level of payloads over [`LARGE_RAW`].
const LEVEL_LARGE: i32 = 15;

/// A reader of one varint stream.
struct Stream<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Stream<'_> {
    fn next(&mut self) -> Result<u64, CodecError> {
        crate::varint::get(self.bytes, &mut self.at).map_err(|e| match e {
            VarintError::Ends => CodecError::Corrupt("a stream ends early"),
            VarintError::TooLong => CodecError::Corrupt("a varint is too long"),
        })
    }

    fn next_u32(&mut self) -> Result<u32, CodecError> {
        u32::try_from(self.next()?).map_err(|_| CodecError::Corrupt("a value is out of range"))
    }

    fn done(&self) -> bool {
        self.at == self.bytes.len()
    }
}

/// The weight `fast_paths` was given for transition `t` from `a` (see
/// [`super::ch::input_graph`]).
pub(crate) fn transition_weight(g: &TurnGraph, metric: Metric, a: u32, t: u32) -> u32 {
    g.transition_cost(metric, a, t)
        .clamp(1, u64::from(INVALID - 1)) as u32
}

/// Original edges of node `v` towards higher ranks: `(adjacent node, weight)`, sorted by
/// node. `forward`: transitions leaving `v`; otherwise those entering it. The dummy node
/// `arc_count` has one edge into the last arc (weight 1).
fn candidates(
    g: &TurnGraph,
    rev: &Reverse,
    metric: Metric,
    ranks: &[u32],
    v: u32,
    forward: bool,
    out: &mut Vec<(u32, u32)>,
) {
    out.clear();
    let n = g.arc_count() as u32;
    let rank = ranks[v as usize];
    let higher = |x: u32| ranks.get(x as usize).is_some_and(|&r| r > rank);
    if v == n {
        if forward && n > 0 && higher(n - 1) {
            out.push((n - 1, 1));
        }
        return;
    }
    if forward {
        for t in g.out_range(v) {
            let b = g.head[t as usize];
            if b != v && higher(b) {
                out.push((b, transition_weight(g, metric, v, t)));
            }
        }
    } else {
        for i in rev.in_range(v) {
            let a = rev.tail[i as usize];
            let t = rev.in_transition[i as usize];
            if a != v && higher(a) {
                out.push((a, transition_weight(g, metric, a, t)));
            }
        }
        if n > 0 && v == n - 1 && higher(n) {
            out.push((n, 1));
        }
    }
    out.sort_unstable();
    // `fast_paths` keeps one edge per pair of nodes, the first after sorting.
    out.dedup_by_key(|c| c.0);
}

/// Encodes `fast`, prepared from `g` in `metric`, and checks that decoding gives it back.
pub fn encode(g: &TurnGraph, metric: Metric, fast: &FastGraph) -> Result<Encoded, CodecError> {
    encode32(g, metric, &FastGraph32::new(fast))
}

/// [`encode`] of a hierarchy in its 32-bit layout.
pub fn encode32(g: &TurnGraph, metric: Metric, up: &FastGraph32) -> Result<Encoded, CodecError> {
    let n = up.ranks.len();
    let bad = |m: &str| CodecError::Unrepresentable(m.to_string());
    if n != g.arc_count() + 1 {
        return Err(bad("the hierarchy has another node count than its graph"));
    }
    let mut order = vec![0u32; n];
    for (v, &r) in up.ranks.iter().enumerate() {
        *order
            .get_mut(r as usize)
            .ok_or_else(|| bad("a rank is out of range"))? = v as u32;
    }
    let mut streams: [Vec<u8>; STREAMS] = Default::default();
    let [s_order, s_degrees, s_kinds, s_centres, s_offsets] = &mut streams;
    let mut prev: i64 = 0;
    for &v in &order {
        put(s_order, zigzag(i64::from(v) - prev));
        prev = i64::from(v);
    }
    let mut cands = Vec::new();
    let rev = g.reverse();
    for (r, &v) in order.iter().enumerate() {
        for forward in [true, false] {
            let (first, edges) = if forward {
                (&up.first_edge_ids_fwd, &up.edges_fwd)
            } else {
                (&up.first_edge_ids_bwd, &up.edges_bwd)
            };
            let range = first[r] as usize..first[r + 1] as usize;
            put(s_degrees, range.len() as u64);
            candidates(g, &rev, metric, &up.ranks, v, forward, &mut cands);
            for e in &edges[range] {
                if e.replaced_in_edge == INVALID {
                    let i = cands
                        .iter()
                        .position(|c| c.0 == e.adj_node)
                        .ok_or_else(|| bad("an original edge is not a transition"))?;
                    put(s_kinds, 1 + i as u64);
                    continue;
                }
                put(s_kinds, 0);
                // The replaced edge leading to the adjacent node: the centre's out-edge for
                // an out-edge, its in-edge for an in-edge.
                let (stored, other_first) = if forward {
                    (e.replaced_out_edge, &up.first_edge_ids_fwd)
                } else {
                    (e.replaced_in_edge, &up.first_edge_ids_bwd)
                };
                let centre = if forward {
                    up.edges_fwd.get(stored as usize)
                } else {
                    up.edges_bwd.get(stored as usize)
                }
                .ok_or_else(|| bad("a replaced edge is out of range"))?
                .base_node;
                let cr = up.ranks[centre as usize] as usize;
                if cr >= r {
                    return Err(bad("a shortcut's centre is not below it"));
                }
                put(s_centres, (r - cr - 1) as u64);
                put(s_offsets, u64::from(stored - other_first[cr]));
            }
        }
    }
    let mut raw = Vec::new();
    let mut stream_lengths = [0u32; STREAMS];
    for (len, s) in stream_lengths.iter_mut().zip(&streams) {
        *len = u32::try_from(s.len()).map_err(|_| bad("a stream is too long"))?;
        raw.extend_from_slice(s);
    }
    let level = if raw.len() > LARGE_RAW {
        LEVEL_LARGE
    } else {
        LEVEL
    };
    let payload = zstd::bulk::Compressor::new(level)
        .and_then(|mut c| {
            c.include_checksum(true)?;
            c.compress(&raw)
        })
        .map_err(|e| bad(&e.to_string()))?;
    let encoded = Encoded {
        nodes: n as u32,
        edges_fwd: up.edges_fwd.len() as u32,
        edges_bwd: up.edges_bwd.len() as u32,
        stream_lengths,
        payload,
    };
    let back = decode_hierarchy(&encoded, g, metric).map_err(|e| bad(&e.to_string()))?;
    if let Some(what) = difference(up, &back) {
        return Err(bad(&format!("decoding gives another {what}")));
    }
    Ok(encoded)
}

/// Where a decoded hierarchy differs from the prepared one, if it does.
fn difference(a: &FastGraph32, b: &Hierarchy) -> Option<&'static str> {
    macro_rules! same_edges {
        ($x:expr, $y:expr) => {
            $x.len() == $y.len()
                && $x.iter().zip($y.iter()).all(|(p, q)| {
                    (
                        p.base_node,
                        p.adj_node,
                        p.weight,
                        p.replaced_in_edge,
                        p.replaced_out_edge,
                    ) == (
                        q.base_node,
                        q.adj_node,
                        q.weight,
                        q.replaced_in_edge,
                        q.replaced_out_edge,
                    )
                })
        };
    }
    if a.ranks != b.ranks {
        Some("order")
    } else if a.first_edge_ids_fwd != b.first_edge_ids_fwd
        || a.first_edge_ids_bwd != b.first_edge_ids_bwd
    {
        Some("degree")
    } else if !same_edges!(a.edges_fwd, b.edges_fwd) {
        Some("out-edge")
    } else if !same_edges!(a.edges_bwd, b.edges_bwd) {
        Some("in-edge")
    } else {
        None
    }
}

/// An edge of a hierarchy, as `fast_paths` stores it in its 32-bit layout (whose edge type
/// it does not export).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Edge {
    pub(crate) base_node: u32,
    pub(crate) adj_node: u32,
    pub(crate) weight: u32,
    pub(crate) replaced_in_edge: u32,
    pub(crate) replaced_out_edge: u32,
}

/// A decoded hierarchy, the fields of [`FastGraph32`].
#[derive(Debug, Default)]
pub(crate) struct Hierarchy {
    pub(crate) ranks: Vec<u32>,
    pub(crate) edges_fwd: Vec<Edge>,
    pub(crate) first_edge_ids_fwd: Vec<u32>,
    pub(crate) edges_bwd: Vec<Edge>,
    pub(crate) first_edge_ids_bwd: Vec<u32>,
}

impl Hierarchy {
    pub(crate) fn into_fast32(self) -> Result<FastGraph32, CodecError> {
        // `FastGraph32`'s edges are built through their `Deserialize` (a struct reads a
        // sequence of its fields).
        fn edges<T: for<'de> Deserialize<'de>>(v: Vec<Edge>) -> Result<Vec<T>, CodecError> {
            v.into_iter()
                .map(|e| {
                    let fields = [
                        e.base_node,
                        e.adj_node,
                        e.weight,
                        e.replaced_in_edge,
                        e.replaced_out_edge,
                    ];
                    T::deserialize(SeqDeserializer::<_, ValueError>::new(fields.into_iter()))
                        .map_err(|_| CodecError::Corrupt("an edge cannot be rebuilt"))
                })
                .collect()
        }
        let mut up = FastGraph32::new(&FastGraph::new(self.ranks.len()));
        up.ranks = self.ranks;
        up.edges_fwd = edges(self.edges_fwd)?;
        up.first_edge_ids_fwd = self.first_edge_ids_fwd;
        up.edges_bwd = edges(self.edges_bwd)?;
        up.first_edge_ids_bwd = self.first_edge_ids_bwd;
        Ok(up)
    }
}

/// Decodes a hierarchy of `g` in `metric`.
pub fn decode(enc: &Encoded, g: &TurnGraph, metric: Metric) -> Result<FastGraph32, CodecError> {
    decode_hierarchy(enc, g, metric)?.into_fast32()
}

fn decode_hierarchy(enc: &Encoded, g: &TurnGraph, metric: Metric) -> Result<Hierarchy, CodecError> {
    let corrupt = CodecError::Corrupt;
    let n = enc.nodes as usize;
    if n != g.arc_count() + 1 {
        return Err(corrupt("the node count differs from the graph's"));
    }
    let total: usize = enc.stream_lengths.iter().map(|&l| l as usize).sum();
    // A varint of a `u32` takes at most 5 bytes: 3 values per node (order, two degrees) and
    // at most 3 per edge (kind, centre, offset).
    let edges = (enc.edges_fwd as usize).saturating_add(enc.edges_bwd as usize);
    if total > n.saturating_add(edges).saturating_mul(15) {
        return Err(corrupt("the stream lengths are implausible"));
    }
    let raw = zstd::bulk::decompress(&enc.payload, total)
        .map_err(|_| corrupt("the payload does not decompress"))?;
    if raw.len() != total {
        return Err(corrupt("the payload has another length"));
    }
    let mut parts = Vec::with_capacity(STREAMS);
    let mut at = 0;
    for &len in &enc.stream_lengths {
        parts.push(Stream {
            bytes: &raw[at..at + len as usize],
            at: 0,
        });
        at += len as usize;
    }
    let [
        mut s_order,
        mut s_degrees,
        mut s_kinds,
        mut s_centres,
        mut s_offsets,
    ]: [Stream; STREAMS] = parts
        .try_into()
        .map_err(|_| corrupt("the stream count differs"))?;

    let mut order = Vec::with_capacity(n);
    let mut ranks = vec![INVALID; n];
    let mut prev: i64 = 0;
    for r in 0..n {
        let v = prev + unzigzag(s_order.next()?);
        let slot = usize::try_from(v)
            .ok()
            .and_then(|v| ranks.get_mut(v))
            .ok_or(corrupt("a node id is out of range"))?;
        if *slot != INVALID {
            return Err(corrupt("the order repeats a node"));
        }
        *slot = r as u32;
        order.push(v as u32);
        prev = v;
    }
    let mut up = Hierarchy {
        ranks,
        ..Hierarchy::default()
    };
    up.edges_fwd = Vec::with_capacity(enc.edges_fwd as usize);
    up.edges_bwd = Vec::with_capacity(enc.edges_bwd as usize);
    up.first_edge_ids_fwd = Vec::with_capacity(n + 1);
    up.first_edge_ids_bwd = Vec::with_capacity(n + 1);
    up.first_edge_ids_fwd.push(0);
    up.first_edge_ids_bwd.push(0);
    let mut cands = Vec::new();
    let rev = g.reverse();
    for (r, &v) in order.iter().enumerate() {
        for forward in [true, false] {
            let degree = s_degrees.next()?;
            if degree > (enc.edges_fwd as u64).max(enc.edges_bwd as u64) {
                return Err(corrupt("a degree is implausible"));
            }
            candidates(g, &rev, metric, &up.ranks, v, forward, &mut cands);
            for _ in 0..degree {
                let kind = s_kinds.next()?;
                let edge = if kind > 0 {
                    let &(adj, weight) = cands
                        .get(kind as usize - 1)
                        .ok_or(corrupt("an original edge is out of range"))?;
                    Edge {
                        base_node: v,
                        adj_node: adj,
                        weight,
                        replaced_in_edge: INVALID,
                        replaced_out_edge: INVALID,
                    }
                } else {
                    let back = s_centres.next()? as usize;
                    let cr = r
                        .checked_sub(back + 1)
                        .ok_or(corrupt("a shortcut's centre is out of range"))?;
                    let offset = s_offsets.next_u32()?;
                    shortcut(&up, v, cr, offset, forward)?
                };
                if forward {
                    up.edges_fwd.push(edge);
                } else {
                    up.edges_bwd.push(edge);
                }
            }
            if forward {
                up.first_edge_ids_fwd.push(up.edges_fwd.len() as u32);
            } else {
                up.first_edge_ids_bwd.push(up.edges_bwd.len() as u32);
            }
        }
    }
    if up.edges_fwd.len() != enc.edges_fwd as usize || up.edges_bwd.len() != enc.edges_bwd as usize
    {
        return Err(corrupt("the edge counts differ"));
    }
    if ![s_order, s_degrees, s_kinds, s_centres, s_offsets]
        .iter()
        .all(Stream::done)
    {
        return Err(corrupt("a stream has bytes left over"));
    }
    Ok(up)
}

/// The shortcut at node `base` through the centre of rank `cr`: `offset` locates the replaced
/// edge that leads to the adjacent node in the centre's range of the shortcut's direction;
/// the other replaced edge is the first of the centre's other range that reaches `base`.
fn shortcut(
    up: &Hierarchy,
    base: u32,
    cr: usize,
    offset: u32,
    forward: bool,
) -> Result<Edge, CodecError> {
    let corrupt = CodecError::Corrupt;
    let (first, edges, other_first, other_edges) = if forward {
        (
            &up.first_edge_ids_fwd,
            &up.edges_fwd,
            &up.first_edge_ids_bwd,
            &up.edges_bwd,
        )
    } else {
        (
            &up.first_edge_ids_bwd,
            &up.edges_bwd,
            &up.first_edge_ids_fwd,
            &up.edges_fwd,
        )
    };
    let start = first[cr];
    let end = first[cr + 1];
    let stored = start
        .checked_add(offset)
        .filter(|&e| e < end)
        .ok_or(corrupt("a shortcut's offset is out of range"))?;
    let to_adj = edges[stored as usize];
    let derived = (other_first[cr]..other_first[cr + 1])
        .find(|&e| other_edges[e as usize].adj_node == base)
        .ok_or(corrupt("a shortcut's centre does not reach its base"))?;
    let to_base = other_edges[derived as usize];
    let weight = to_adj
        .weight
        .checked_add(to_base.weight)
        .filter(|&w| w != INVALID)
        .ok_or(corrupt("a shortcut's weight overflows"))?;
    let (replaced_in_edge, replaced_out_edge) = if forward {
        (derived, stored)
    } else {
        (stored, derived)
    };
    Ok(Edge {
        base_node: base,
        adj_node: to_adj.adj_node,
        weight,
        replaced_in_edge,
        replaced_out_edge,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
pub(crate) mod tests {
    use super::*;
    use crate::routing::Profile;
    use crate::routing::ch::{ChGraph, prepare};
    use crate::routing::graph::NO_ARC;

    /// A random turn graph of `n` arcs, about `per` transitions each, random costs.
    pub(crate) fn random_graph(n: u32, per: u32, seed: u64) -> TurnGraph {
        let mut s = seed | 1;
        let mut next = move |m: u32| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % u64::from(m)) as u32
        };
        let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n as usize];
        for (a, list) in out.iter_mut().enumerate() {
            for _ in 0..per {
                // Mostly near neighbours, as arcs of a road network are.
                let b = (a as u32 + n + next(9) - 4) % n;
                if b != a as u32 && list.iter().all(|t| t.0 != b) {
                    list.push((b, next(3000)));
                }
            }
        }
        let t = crate::routing::graph::Transitions::from_lists(&out);
        TurnGraph {
            profile: Profile::Driving,
            arc_edge: (0..n).collect::<Vec<_>>().into(),
            arc_forward: vec![true; n as usize],
            arc_time_ms: (0..n).map(|_| 1 + next(60_000)).collect::<Vec<_>>().into(),
            arc_dist_cm: (0..n).map(|_| 1 + next(90_000)).collect::<Vec<_>>().into(),
            edge_arcs: (0..n).map(|a| [a, NO_ARC]).collect::<Vec<_>>().into(),
            original_arcs: n,
            edge_entry: (0..n).map(|_| [NO_ARC; 2]).collect::<Vec<_>>().into(),
            turn_ms: t.turn_ms.into(),
            first_out: t.first_out.into(),
            head: t.head.into(),
        }
    }

    fn fields(up: &FastGraph32) -> Vec<[u32; 5]> {
        up.edges_fwd
            .iter()
            .chain(&up.edges_bwd)
            .map(|e| {
                [
                    e.base_node,
                    e.adj_node,
                    e.weight,
                    e.replaced_in_edge,
                    e.replaced_out_edge,
                ]
            })
            .collect()
    }

    #[test]
    fn decoding_gives_the_prepared_hierarchy_back() {
        for (seed, metric) in [(3, Metric::Time), (5, Metric::Distance), (11, Metric::Time)] {
            let g = random_graph(600, 3, seed);
            let fast = prepare(&g, metric, None);
            let enc = encode(&g, metric, &fast).unwrap();
            let back = decode(&enc, &g, metric).unwrap();
            let want = FastGraph32::new(&fast);
            assert_eq!(back.ranks, want.ranks);
            assert_eq!(back.first_edge_ids_fwd, want.first_edge_ids_fwd);
            assert_eq!(back.first_edge_ids_bwd, want.first_edge_ids_bwd);
            assert_eq!(fields(&back), fields(&want));
            let shortcuts = fields(&want).iter().filter(|e| e[3] != INVALID).count();
            assert!(shortcuts > 100, "seed {seed}: only {shortcuts} shortcuts");
            // Queries on the decoded hierarchy answer as on the prepared one.
            let a = ChGraph::from_fast(fast, &g, metric);
            let b = ChGraph::from_fast(back.convert_to_usize(), &g, metric);
            for s in (0..600).step_by(37) {
                for t in (0..600).step_by(41) {
                    assert_eq!(
                        a.shortest(&[(s, 0)], &[(t, 0)]),
                        b.shortest(&[(s, 0)], &[(t, 0)])
                    );
                }
            }
        }
    }

    #[test]
    fn another_graph_or_metric_or_damage_is_refused() {
        let g = random_graph(300, 3, 7);
        let fast = prepare(&g, Metric::Time, None);
        let enc = encode(&g, Metric::Time, &fast).unwrap();
        // Another node count.
        let other = random_graph(301, 3, 7);
        assert!(matches!(
            decode(&enc, &other, Metric::Time),
            Err(CodecError::Corrupt(_))
        ));
        // Another metric gives other weights: the encoder's check names them.
        let distance = decode(&enc, &g, Metric::Distance).unwrap();
        assert_ne!(fields(&distance), fields(&FastGraph32::new(&fast)));
        // A damaged payload (checksummed) or damaged counts never panic and are refused.
        let mut refused = 0;
        for i in 0..enc.payload.len() {
            let mut bad = enc.clone();
            bad.payload[i] ^= 0x5a;
            refused += usize::from(decode(&bad, &g, Metric::Time).is_err());
        }
        assert!(
            refused * 10 > enc.payload.len() * 9,
            "{refused} of {}",
            enc.payload.len()
        );
        let mut bad = enc.clone();
        bad.stream_lengths[2] += 1;
        assert!(decode(&bad, &g, Metric::Time).is_err());
        let mut bad = enc;
        bad.edges_fwd -= 1;
        assert!(decode(&bad, &g, Metric::Time).is_err());
    }

    #[test]
    fn varints_round_trip() {
        let values = [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX];
        let mut bytes = Vec::new();
        for &v in &values {
            put(&mut bytes, v);
        }
        let mut s = Stream {
            bytes: &bytes,
            at: 0,
        };
        for &v in &values {
            assert_eq!(s.next().unwrap(), v);
        }
        assert!(s.done());
        assert!(s.next().is_err());
        for v in [
            0i64,
            1,
            -1,
            1000,
            -1000,
            i64::from(u32::MAX),
            -i64::from(u32::MAX),
        ] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }
}
