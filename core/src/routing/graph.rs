//! The turn-expanded (edge-based) graph of a profile.
//!
//! Its nodes are **arcs**: an edge of the road network travelled in one direction. Its edges
//! are **transitions** `a → b` between an arc `a` ending at a node and an arc `b` leaving it.
//! A transition costs traversing `a` entirely plus, in the time metric, the turn from `a` onto
//! `b` ([`super::profile::turn_cost_ms`]). So the label of an arc is the cost of reaching its
//! start, and turn restrictions are simply missing transitions, which a contraction hierarchy
//! built on this graph cannot bypass.
//!
//! * `no_*` with a via node removes the transitions from the `from` way onto the `to` way at
//!   that node; `only_*` keeps, for arcs of the `from` way ending there, only the transitions
//!   onto the `to` way.
//! * Restrictions with via **ways** duplicate the arcs of the via path: the arcs of the `from`
//!   way enter the copies, which lead on along the via path and, at its end, everywhere the
//!   originals lead except onto the `to` way (`no_*`) or only onto it (`only_*`). Coming from
//!   elsewhere one uses the originals, unrestricted.
//! * A U-turn (back along the same edge) is only possible at a dead end: where the arc has no
//!   other transition.
//! * **Restricted edges** (destination-only, private, `no` for the profile; ADR 0010) may be
//!   the first or the last part of a trip, never a through road. Each arc of such an edge
//!   gets an **entry copy** after every other arc: the original is for leaving (it leads on
//!   to restricted and free arcs alike), the copy for arriving (free arcs turning onto a
//!   restricted arc enter the copy, which leads on only to entry copies). So every path is
//!   restricted originals, then free arcs, then entry copies: it can leave a point on a
//!   restricted road and reach one, but never cross a restricted area between two points
//!   outside it, in a contraction hierarchy as in Dijkstra. A point on a restricted edge
//!   starts on the originals and is reached on the originals and the copies
//!   ([`TurnGraph::edge_entry`]).
//! * Arcs are numbered by edge order (forward before backward), copies after them, so the
//!   graph derived from a pack is the same for the builder and every reader;
//!   [`TurnGraph::signature`] checks that a prepared graph belongs to it.
use std::collections::{HashMap, HashSet};

use super::density::URBAN_DENSITY;
use super::flat::Arr;
use super::network::RoadNetwork;
use super::profile::{Junction, Metric, Profile, speed_kmh, transition_cost_ms, turn_cost_ms};
use crate::geo::{bearing_deg, turn_angle};

/// No arc.
pub const NO_ARC: u32 = u32::MAX;

/// The turn-expanded graph of one profile.
#[derive(Debug, Clone)]
pub struct TurnGraph {
    /// The profile.
    pub profile: Profile,
    /// Edge index of each arc.
    pub arc_edge: Arr<u32>,
    /// Direction of each arc (`true`: from `from` to `to`).
    pub arc_forward: Vec<bool>,
    /// Time to traverse each arc, ms (≥ 1).
    pub arc_time_ms: Arr<u32>,
    /// Length of each arc, cm (≥ 1).
    pub arc_dist_cm: Arr<u32>,
    /// Arcs of each edge: `[forward, backward]`, [`NO_ARC`] when not allowed. Copies made for
    /// via-way restrictions are not listed.
    pub edge_arcs: Arr<[u32; 2]>,
    /// Number of original (not copied) arcs; copies have ids from here on.
    pub original_arcs: u32,
    /// Entry copies of each edge's arcs (`[forward, backward]`, [`NO_ARC`] when the edge is
    /// not restricted for the profile or the direction not allowed): a path ending on a
    /// restricted edge arrives on them.
    pub edge_entry: Arr<[u32; 2]>,
    /// Transitions: those of arc `a` are `first_out[a]..first_out[a + 1]`.
    pub first_out: Arr<u32>,
    /// Target arc of each transition.
    pub head: Arr<u32>,
    /// Turn cost of each transition in the time metric, ms.
    pub turn_ms: Arr<u32>,
}

/// The costs of one metric of a [`TurnGraph`] ([`TurnGraph::costs`]).
#[derive(Debug, Clone, Copy)]
pub struct Costs<'a> {
    arc: &'a [u32],
    turn: Option<&'a [u32]>,
}

impl Costs<'_> {
    /// The cost of transition `t` leaving arc `a`: the arc's own, plus the turn's in the time
    /// metric.
    #[inline]
    pub fn transition(&self, a: u32, t: u32) -> u64 {
        let arc = u64::from(self.arc[a as usize]);
        match self.turn {
            Some(turn) => arc + u64::from(turn[t as usize]),
            None => arc,
        }
    }
}

/// The transitions of a [`TurnGraph`] by the arc they enter: built on demand
/// ([`TurnGraph::reverse`]) by the few passes that read them (decoding a hierarchy, the
/// components of a graph), not kept with the graph.
#[derive(Debug, Default)]
pub struct Reverse {
    /// Those entering arc `b` are `first_in[b]..first_in[b + 1]`.
    pub first_in: Vec<u32>,
    /// Transition index of each entry (into `head`/`turn_ms`).
    pub in_transition: Vec<u32>,
    /// Source arc of each entry.
    pub tail: Vec<u32>,
}

impl Reverse {
    /// The entries of the transitions entering arc `b`.
    pub fn in_range(&self, b: u32) -> std::ops::Range<u32> {
        self.first_in[b as usize]..self.first_in[b as usize + 1]
    }
}

/// The transition arrays of a [`TurnGraph`] (the fields of the same names).
#[derive(Debug, Default)]
pub(crate) struct Transitions {
    pub first_out: Vec<u32>,
    pub head: Vec<u32>,
    pub turn_ms: Vec<u32>,
}

impl Transitions {
    /// From the transitions leaving each arc: `out[a]` lists `(b, turn_ms)`.
    pub fn from_lists(out: &[Vec<(u32, u32)>]) -> Transitions {
        let n = out.len();
        let mut first_out = Vec::with_capacity(n + 1);
        let mut head = Vec::new();
        let mut turn_ms = Vec::new();
        first_out.push(0u32);
        for list in out {
            for &(b, t) in list {
                head.push(b);
                turn_ms.push(t);
            }
            first_out.push(head.len() as u32);
        }
        Transitions {
            first_out,
            head,
            turn_ms,
        }
    }
}

impl TurnGraph {
    /// Builds the graph of `profile` from the network.
    pub fn build(net: &RoadNetwork, profile: Profile) -> TurnGraph {
        let mut arc_edge = Vec::new();
        let mut arc_forward = Vec::new();
        let mut arc_time_ms = Vec::new();
        let mut arc_dist_cm = Vec::new();
        let mut edge_arcs = vec![[NO_ARC; 2]; net.edges.len()];
        // Density shapes motor speeds and the junction costs of vehicles (not walkers').
        let uses_density = profile != Profile::Walking;
        let dens = |v: u32| {
            if uses_density {
                f64::from(net.density.get(v as usize).copied().unwrap_or(0.0))
            } else {
                0.0
            }
        };
        // Per node: roads of the profile meeting there and the two highest-ranked of them.
        let mut legs = vec![0u32; net.nodes.len()];
        let mut top: Vec<[(u8, u32); 2]> = vec![[(0, u32::MAX); 2]; net.nodes.len()];
        for (i, e) in net.edges.iter().enumerate() {
            if !e.allows(profile) {
                continue;
            }
            let r = e.highway().rank();
            for v in [e.from, e.to] {
                let v = v as usize;
                legs[v] += 1;
                let t = &mut top[v];
                if r > t[0].0 {
                    t[1] = t[0];
                    t[0] = (r, i as u32);
                } else if r > t[1].0 {
                    t[1] = (r, i as u32);
                }
            }
        }
        for (i, e) in net.edges.iter().enumerate() {
            let urban = (dens(e.from) + dens(e.to)) / 2.0 >= URBAN_DENSITY;
            let speed = speed_kmh(
                profile,
                e.highway(),
                e.maxspeed(),
                e.tracktype(),
                net.limits_of(e),
                urban,
            );
            let time = ((e.length_m * 3600.0 / speed).round() as u64).clamp(1, u32::MAX as u64);
            let dist = ((e.length_m * 100.0).round() as u64).clamp(1, u32::MAX as u64);
            for (dir, forward) in [(0, true), (1, false)] {
                if e.direction_allowed(profile, forward) {
                    edge_arcs[i][dir] = arc_edge.len() as u32;
                    arc_edge.push(i as u32);
                    arc_forward.push(forward);
                    arc_time_ms.push(time as u32);
                    arc_dist_cm.push(dist as u32);
                }
            }
        }
        let original_arcs = arc_edge.len() as u32;
        let arc_tail_node = |a: usize| {
            let e = &net.edges[arc_edge[a] as usize];
            if arc_forward[a] { e.from } else { e.to }
        };
        let arc_head_node = |a: usize| {
            let e = &net.edges[arc_edge[a] as usize];
            if arc_forward[a] { e.to } else { e.from }
        };
        // Arcs leaving each node.
        let mut leaving: Vec<Vec<u32>> = vec![Vec::new(); net.nodes.len()];
        for a in 0..arc_edge.len() {
            leaving[arc_tail_node(a) as usize].push(a as u32);
        }
        // Bearings at the start and end of each arc.
        let bearing_out = |a: usize| {
            let g = net.geometry(arc_edge[a]);
            let n = g.len();
            if arc_forward[a] {
                bearing_deg(g[0], g[1.min(n - 1)])
            } else {
                bearing_deg(g[n - 1], g[n.saturating_sub(2)])
            }
        };
        let bearing_in = |a: usize| {
            let g = net.geometry(arc_edge[a]);
            let n = g.len();
            if arc_forward[a] {
                bearing_deg(g[n.saturating_sub(2)], g[n - 1])
            } else {
                bearing_deg(g[1.min(n - 1)], g[0])
            }
        };
        let reverse_of = |a: usize| -> u32 {
            let e = arc_edge[a] as usize;
            edge_arcs[e][if arc_forward[a] { 1 } else { 0 }]
        };

        // Via-node restrictions of this profile.
        let mut forbidden: HashSet<(u32, u32)> = HashSet::new();
        let mut only: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut via_way = Vec::new();
        // The arcs entering each via node, in arc order (one pass over the arcs, not one per
        // restriction).
        let via_nodes: HashSet<u32> = net
            .restrictions
            .iter()
            .filter(|r| profile.restricted_by(r.except.as_deref()))
            .filter_map(|r| r.via_node)
            .collect();
        let mut entering: HashMap<u32, Vec<u32>> = HashMap::new();
        if !via_nodes.is_empty() {
            for a in 0..arc_edge.len() {
                let v = arc_head_node(a);
                if via_nodes.contains(&v) {
                    entering.entry(v).or_default().push(a as u32);
                }
            }
        }
        for r in &net.restrictions {
            if !profile.restricted_by(r.except.as_deref()) {
                continue;
            }
            let Some(v) = r.via_node else {
                via_way.push(r);
                continue;
            };
            let from_arcs: Vec<u32> = entering
                .get(&v)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&a| net.edges[arc_edge[a as usize] as usize].way_id == r.from_way)
                .collect();
            let to_arcs: Vec<u32> = leaving[v as usize]
                .iter()
                .copied()
                .filter(|&b| net.edges[arc_edge[b as usize] as usize].way_id == r.to_way)
                .collect();
            for &a in &from_arcs {
                if r.only {
                    only.entry(a).or_default().extend(to_arcs.iter().copied());
                } else {
                    for &b in &to_arcs {
                        forbidden.insert((a, b));
                    }
                }
            }
        }

        // Transitions of the original arcs.
        let mut out: Vec<Vec<(u32, u32)>> = Vec::with_capacity(arc_edge.len());
        for (a, &e_in) in arc_edge.iter().enumerate() {
            let v = arc_head_node(a) as usize;
            let rev = reverse_of(a);
            let allowed = |b: u32| {
                !forbidden.contains(&(a as u32, b))
                    && only.get(&(a as u32)).is_none_or(|l| l.contains(&b))
            };
            let b_in = bearing_in(a);
            let mut list: Vec<(u32, u32)> = leaving[v]
                .iter()
                .copied()
                .filter(|&b| b != rev && b != a as u32 && allowed(b))
                .map(|b| {
                    // Continuing through a node that is no junction is not a turn.
                    if !net.junction.get(v).copied().unwrap_or(true) {
                        return (b, 0);
                    }
                    let dev = turn_angle(b_in, bearing_out(b as usize)).abs();
                    let e = &net.edges[e_in as usize];
                    let t = top[v];
                    let other = if t[0].1 == e_in { t[1].0 } else { t[0].0 };
                    let j = Junction {
                        legs: legs[v],
                        gives_way: e.highway().rank() < other,
                        density: dens(v as u32),
                    };
                    (b, transition_cost_ms(profile, dev, j))
                })
                .collect();
            if list.is_empty() && rev != NO_ARC && allowed(rev) {
                list.push((rev, turn_cost_ms(profile, 180.0, true)));
            }
            out.push(list);
        }

        // Via-way restrictions: copies of the via path.
        for r in via_way {
            let Some(chain) = via_chain(net, &arc_edge, &arc_forward, &leaving, r) else {
                continue;
            };
            let (from_arcs, path, to_arcs) = chain;
            let mut copies = Vec::with_capacity(path.len());
            for &p in &path {
                let c = arc_edge.len() as u32;
                arc_edge.push(arc_edge[p as usize]);
                arc_forward.push(arc_forward[p as usize]);
                arc_time_ms.push(arc_time_ms[p as usize]);
                arc_dist_cm.push(arc_dist_cm[p as usize]);
                copies.push(c);
            }
            for (i, &p) in path.iter().enumerate() {
                let mut list = out[p as usize].clone();
                if let Some(&next) = path.get(i + 1) {
                    for t in &mut list {
                        if t.0 == next {
                            t.0 = copies[i + 1];
                        }
                    }
                } else if r.only {
                    list.retain(|t| to_arcs.contains(&t.0));
                } else {
                    list.retain(|t| !to_arcs.contains(&t.0));
                }
                out.push(list);
            }
            for &f in &from_arcs {
                for t in &mut out[f as usize] {
                    if t.0 == path[0] {
                        t.0 = copies[0];
                    }
                }
            }
        }

        // Restricted edges: an entry copy of each of their arcs (copies included).
        let before = arc_edge.len();
        let restricted: Vec<bool> = arc_edge
            .iter()
            .map(|&e| net.edges[e as usize].restricted(profile))
            .collect();
        let restricted = |a: usize| restricted[a];
        let mut entry = vec![NO_ARC; before];
        for (a, slot) in entry.iter_mut().enumerate() {
            if restricted(a) {
                *slot = arc_edge.len() as u32;
                arc_edge.push(arc_edge[a]);
                arc_forward.push(arc_forward[a]);
                arc_time_ms.push(arc_time_ms[a]);
                arc_dist_cm.push(arc_dist_cm[a]);
            }
        }
        let mut edge_entry = vec![[NO_ARC; 2]; net.edges.len()];
        for (e, arcs) in edge_arcs.iter().enumerate() {
            for d in 0..2 {
                if arcs[d] != NO_ARC {
                    edge_entry[e][d] = entry[arcs[d] as usize];
                }
            }
        }
        for a in 0..before {
            if restricted(a) {
                // The copy leads on only to the copies of restricted arcs.
                let list: Vec<(u32, u32)> = out[a]
                    .iter()
                    .filter(|t| entry[t.0 as usize] != NO_ARC)
                    .map(|t| (entry[t.0 as usize], t.1))
                    .collect();
                out.push(list);
            }
        }
        for (a, list) in out.iter_mut().enumerate().take(before) {
            if !restricted(a) {
                // Free arcs turn onto a restricted arc's entry copy.
                for t in list.iter_mut() {
                    if entry[t.0 as usize] != NO_ARC {
                        t.0 = entry[t.0 as usize];
                    }
                }
            }
        }

        let t = Transitions::from_lists(&out);
        TurnGraph {
            profile,
            arc_edge: arc_edge.into(),
            arc_forward,
            arc_time_ms: arc_time_ms.into(),
            arc_dist_cm: arc_dist_cm.into(),
            edge_arcs: edge_arcs.into(),
            original_arcs,
            edge_entry: edge_entry.into(),
            first_out: t.first_out.into(),
            head: t.head.into(),
            turn_ms: t.turn_ms.into(),
        }
    }

    /// Number of arcs (copies included).
    pub fn arc_count(&self) -> usize {
        self.arc_edge.len()
    }

    /// Number of transitions.
    pub fn transition_count(&self) -> usize {
        self.head.len()
    }

    /// The road node arc `a` ends at (an index in `net.nodes`).
    pub fn head_node(&self, net: &RoadNetwork, a: u32) -> u32 {
        let e = &net.edges[self.arc_edge[a as usize] as usize];
        if self.arc_forward[a as usize] {
            e.to
        } else {
            e.from
        }
    }

    /// Cost of traversing arc `a` in `metric`.
    #[inline]
    pub fn arc_cost(&self, metric: Metric, a: u32) -> u64 {
        match metric {
            Metric::Time => u64::from(self.arc_time_ms[a as usize]),
            Metric::Distance => u64::from(self.arc_dist_cm[a as usize]),
        }
    }

    /// Cost of transition `t` leaving arc `a` in `metric`.
    #[inline]
    pub fn transition_cost(&self, metric: Metric, a: u32, t: u32) -> u64 {
        self.costs(metric).transition(a, t)
    }

    /// The costs of `metric` as plain slices, for loops that read them at every step.
    pub fn costs(&self, metric: Metric) -> Costs<'_> {
        match metric {
            Metric::Time => Costs {
                arc: &self.arc_time_ms,
                turn: Some(&self.turn_ms),
            },
            Metric::Distance => Costs {
                arc: &self.arc_dist_cm,
                turn: None,
            },
        }
    }

    /// The transitions leaving arc `a`, as indexes.
    #[inline]
    pub fn out_range(&self, a: u32) -> std::ops::Range<u32> {
        self.first_out[a as usize]..self.first_out[a as usize + 1]
    }

    /// The transitions by the arc they enter, in arc order and, for each arc, in transition
    /// order.
    pub fn reverse(&self) -> Reverse {
        let n = self.arc_count();
        let mut first_in = vec![0u32; n + 1];
        for &b in &self.head {
            first_in[b as usize + 1] += 1;
        }
        for i in 0..n {
            first_in[i + 1] += first_in[i];
        }
        let mut fill = first_in.clone();
        let mut in_transition = vec![0u32; self.head.len()];
        let mut tail = vec![0u32; self.head.len()];
        for a in 0..n as u32 {
            for t in self.out_range(a) {
                let b = self.head[t as usize] as usize;
                let slot = fill[b] as usize;
                in_transition[slot] = t;
                tail[slot] = a;
                fill[b] += 1;
            }
        }
        Reverse {
            first_in,
            in_transition,
            tail,
        }
    }

    /// Turn cost (time metric, ms) from `a` onto `b`, if the transition exists.
    pub fn turn_between(&self, a: u32, b: u32) -> Option<u32> {
        self.out_range(a)
            .find(|&t| self.head[t as usize] == b)
            .map(|t| self.turn_ms[t as usize])
    }

    /// Whether arc `a` is an arc of a restricted edge (original or copy).
    pub fn restricted_arc(&self, net: &RoadNetwork, a: u32) -> bool {
        net.edges[self.arc_edge[a as usize] as usize].restricted(self.profile)
    }

    /// Every arc a path can arrive on edge `e` by: its arcs and their entry copies.
    pub fn arrival_arcs(&self, e: u32) -> impl Iterator<Item = u32> + '_ {
        self.edge_arcs[e as usize]
            .into_iter()
            .chain(self.edge_entry[e as usize])
            .filter(|&a| a != NO_ARC)
    }

    /// The arc a copy was made from (itself for originals).
    pub fn original(&self, a: u32) -> u32 {
        if a < self.original_arcs {
            return a;
        }
        let e = self.arc_edge[a as usize] as usize;
        self.edge_arcs[e][if self.arc_forward[a as usize] { 0 } else { 1 }]
    }

    /// A fingerprint of the graph and its weights in `metric` (FNV-1a 64), stored with a
    /// prepared graph to check it belongs to this graph.
    pub fn signature(&self, metric: Metric) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |v: u64| {
            for b in v.to_le_bytes() {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        eat(self.arc_count() as u64);
        eat(self.transition_count() as u64);
        for a in 0..self.arc_count() as u32 {
            eat(u64::from(self.arc_edge[a as usize]) << 1 | u64::from(self.arc_forward[a as usize]));
            for t in self.out_range(a) {
                eat(u64::from(self.head[t as usize]));
                eat(self.transition_cost(metric, a, t));
            }
        }
        h
    }
}

/// The arcs of a via-way restriction: the `from` arcs entering the via path, the via path's
/// arcs in order, and the `to` arcs leaving its end. `None` when the ways do not connect in
/// the profile's graph.
fn via_chain(
    net: &RoadNetwork,
    arc_edge: &[u32],
    arc_forward: &[bool],
    leaving: &[Vec<u32>],
    r: &super::network::Restriction,
) -> Option<(Vec<u32>, Vec<u32>, Vec<u32>)> {
    let way_of = |a: u32| net.edges[arc_edge[a as usize] as usize].way_id;
    let head_node = |a: u32| {
        let e = &net.edges[arc_edge[a as usize] as usize];
        if arc_forward[a as usize] {
            e.to
        } else {
            e.from
        }
    };
    // Nodes where the from way meets the first via way.
    let first = *r.via_ways.first()?;
    let mut from_arcs: Vec<u32> = Vec::new();
    let mut start_nodes: Vec<u32> = Vec::new();
    for (a, _) in arc_edge.iter().enumerate() {
        let a = a as u32;
        if way_of(a) == r.from_way {
            let v = head_node(a);
            if leaving[v as usize].iter().any(|&b| way_of(b) == first) {
                from_arcs.push(a);
                if !start_nodes.contains(&v) {
                    start_nodes.push(v);
                }
            }
        }
    }
    if start_nodes.len() != 1 {
        return None;
    }
    let mut node = start_nodes[0];
    let mut path: Vec<u32> = Vec::new();
    for (i, &way) in r.via_ways.iter().enumerate() {
        let next_way = r.via_ways.get(i + 1).copied().unwrap_or(r.to_way);
        // Walk along `way` (breadth-first over its arcs) to a node touching `next_way`.
        let mut prev: HashMap<u32, (u32, u32)> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([node]);
        let mut seen: HashSet<u32> = HashSet::from([node]);
        let mut end = None;
        while let Some(v) = queue.pop_front() {
            if v != node && leaving[v as usize].iter().any(|&b| way_of(b) == next_way) {
                end = Some(v);
                break;
            }
            for &b in &leaving[v as usize] {
                if way_of(b) == way {
                    let w = head_node(b);
                    if seen.insert(w) {
                        prev.insert(w, (v, b));
                        queue.push_back(w);
                    }
                }
            }
        }
        let end = end?;
        let mut segment = Vec::new();
        let mut v = end;
        while v != node {
            let (p, b) = prev.get(&v).copied()?;
            segment.push(b);
            v = p;
        }
        segment.reverse();
        path.extend(segment);
        node = end;
    }
    let to_arcs: Vec<u32> = leaving[node as usize]
        .iter()
        .copied()
        .filter(|&b| way_of(b) == r.to_way)
        .collect();
    if path.is_empty() || to_arcs.is_empty() {
        return None;
    }
    Some((from_arcs, path, to_arcs))
}
