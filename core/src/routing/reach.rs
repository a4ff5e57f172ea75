//! Reachability of a profile's turn graph, for snapping: the strongly connected components of
//! its arcs, the **main** component (the largest) and, per arc, whether it reaches the main
//! component and whether the main component reaches it.
//!
//! A point next to a road piece cut off from the rest of the network (a parking aisle, a
//! service road behind a private gate, an island left by clipping) must not snap onto that
//! piece when the other end of the route is elsewhere: [`super::router::Router`] snaps every
//! point twice, to the nearest usable edge and to the nearest usable edge of the main
//! component, and a route keeps the nearest snap of an end when the route can leave (origin)
//! or enter (destination) it, or when both ends lie in the same component (see
//! [`Reach::pair`]).
//!
//! Computed once per loaded turn graph (Tarjan's algorithm, iterative, linear in arcs and
//! transitions) and cached with it: 4 bytes of component id and 1 byte of flags per arc.
use super::flat::Arr;
use super::graph::{NO_ARC, TurnGraph};
use super::snap::Snap;

/// An arc reaches the main component (or is in it).
const REACHES_MAIN: u8 = 1;
/// An arc is reached from the main component (or is in it).
const FROM_MAIN: u8 = 2;

/// An isochrone starts on the nearest snap when at least this many road nodes can be reached
/// from it and can reach it (Valhalla's `minimum_reachability` for its location search): an
/// island of streets stays an island, a parking aisle or a few yards of service road do not.
pub const MIN_REACH_NODES: usize = 50;

/// Components and reachability of one turn graph.
#[derive(Debug, Clone)]
pub struct Reach {
    /// Strongly connected component of each arc.
    pub component: Arr<u32>,
    /// Number of arcs of each component.
    pub size: Arr<u32>,
    /// The largest component ([`u32::MAX`] for an empty graph).
    pub main: u32,
    /// Per arc: bit 0 it reaches the main component, bit 1 it is reached from it.
    pub flags: Arr<u8>,
}

impl Reach {
    /// Components of `g` and the reachability of its main component.
    pub fn build(g: &TurnGraph) -> Reach {
        let n = g.arc_count();
        let component = tarjan(g);
        let count = component
            .iter()
            .copied()
            .max()
            .map_or(0, |m| m as usize + 1);
        let mut size = vec![0u32; count];
        for &c in &component {
            size[c as usize] += 1;
        }
        let main = size
            .iter()
            .enumerate()
            .max_by_key(|&(i, &s)| (s, std::cmp::Reverse(i)))
            .map_or(u32::MAX, |(i, _)| i as u32);
        let mut flags = vec![0u8; n];
        let seeds: Vec<u32> = (0..n as u32)
            .filter(|&a| component[a as usize] == main)
            .collect();
        // Forward from the main component: reached from it.
        let mut stack = seeds.clone();
        for &a in &seeds {
            flags[a as usize] |= FROM_MAIN;
        }
        while let Some(a) = stack.pop() {
            for t in g.out_range(a) {
                let b = g.head[t as usize];
                if flags[b as usize] & FROM_MAIN == 0 {
                    flags[b as usize] |= FROM_MAIN;
                    stack.push(b);
                }
            }
        }
        // Backward to the main component: reaches it.
        let mut stack = seeds.clone();
        for &a in &seeds {
            flags[a as usize] |= REACHES_MAIN;
        }
        let rev = g.reverse();
        while let Some(b) = stack.pop() {
            for r in rev.in_range(b) {
                let a = rev.tail[r as usize];
                if flags[a as usize] & REACHES_MAIN == 0 {
                    flags[a as usize] |= REACHES_MAIN;
                    stack.push(a);
                }
            }
        }
        Reach {
            component: component.into(),
            size: size.into(),
            main,
            flags: flags.into(),
        }
    }

    /// Checks that the arrays describe the components of a graph of `arcs` arcs: one
    /// component and one flag byte per arc, every component counted, the main one among them.
    pub fn check(&self, arcs: usize) -> Result<(), String> {
        let count = self.size.len();
        if self.component.len() != arcs || self.flags.len() != arcs {
            return Err("the arrays do not cover every arc".into());
        }
        if self.component.iter().any(|&c| c as usize >= count)
            || (self.main as usize >= count && !(self.main == u32::MAX && arcs == 0))
        {
            return Err("a component lies out of range".into());
        }
        Ok(())
    }

    /// Bytes held (component ids, sizes, flags).
    pub fn heap_bytes(&self) -> usize {
        self.component.len() * 4 + self.size.len() * 4 + self.flags.len()
    }

    /// Whether arc `a` is in the main component.
    pub fn in_main(&self, a: u32) -> bool {
        self.component[a as usize] == self.main
    }

    /// Whether a search from arc `a` can reach the main component.
    pub fn reaches_main(&self, a: u32) -> bool {
        self.flags[a as usize] & REACHES_MAIN != 0
    }

    /// Whether a search from the main component can reach arc `a`.
    pub fn from_main(&self, a: u32) -> bool {
        self.flags[a as usize] & FROM_MAIN != 0
    }

    /// Whether edge `e` has an arc in the main component.
    pub fn edge_in_main(&self, g: &TurnGraph, e: u32) -> bool {
        g.edge_arcs[e as usize]
            .iter()
            .any(|&a| a != NO_ARC && self.in_main(a))
    }

    /// Whether a route can leave a point snapped on `s` into the main component.
    pub fn can_leave(&self, g: &TurnGraph, s: &Snap) -> bool {
        g.edge_arcs[s.edge as usize]
            .iter()
            .any(|&a| a != NO_ARC && self.reaches_main(a))
    }

    /// Whether a route from the main component can arrive at a point snapped on `s`.
    pub fn can_enter(&self, g: &TurnGraph, s: &Snap) -> bool {
        g.arrival_arcs(s.edge).any(|a| self.from_main(a))
    }

    /// Whether the edges of `a` and `b` have arcs in one component.
    pub fn share_component(&self, g: &TurnGraph, a: &Snap, b: &Snap) -> bool {
        let ca = g.edge_arcs[a.edge as usize];
        let cb = g.edge_arcs[b.edge as usize];
        ca.iter().any(|&x| {
            x != NO_ARC
                && cb.iter().any(|&y| {
                    y != NO_ARC && self.component[x as usize] == self.component[y as usize]
                })
        })
    }

    /// How many road nodes (`head` gives an arc's end node) a trip from the edge of `s` reaches
    /// and returns from, counted up to `limit`: the distinct end nodes of the arcs of its own
    /// component that a search from its arcs meets. Every arc of a component reaches every
    /// other and is reached from it, so the count holds in both directions.
    pub fn both_ways_nodes(
        &self,
        g: &TurnGraph,
        s: &Snap,
        head: impl Fn(u32) -> u32,
        limit: usize,
    ) -> usize {
        let mut best = 0;
        for &start in g.edge_arcs[s.edge as usize]
            .iter()
            .filter(|&&a| a != NO_ARC)
        {
            let own = self.component[start as usize];
            let mut seen_arcs = std::collections::HashSet::from([start]);
            let mut nodes = std::collections::HashSet::from([head(start)]);
            let mut stack = vec![start];
            while let Some(a) = stack.pop() {
                if nodes.len() >= limit {
                    break;
                }
                for t in g.out_range(a) {
                    let b = g.head[t as usize];
                    if self.component[b as usize] == own && seen_arcs.insert(b) {
                        nodes.insert(head(b));
                        stack.push(b);
                    }
                }
            }
            best = best.max(nodes.len().min(limit));
        }
        best
    }

    /// The snaps a route from `a` to `b` uses: the nearest ones when both lie in one
    /// component, or when the route can leave `a`'s piece and enter `b`'s; otherwise each end
    /// that cannot leave (origin) or be entered (destination) moves to its snap in the main
    /// component, when it has one.
    pub fn pair(&self, g: &TurnGraph, a: &SnapCandidates, b: &SnapCandidates) -> (Snap, Snap) {
        if self.share_component(g, &a.near, &b.near) {
            return (a.near, b.near);
        }
        let from = if self.can_leave(g, &a.near) {
            a.near
        } else {
            a.main.unwrap_or(a.near)
        };
        let to = if self.can_enter(g, &b.near) {
            b.near
        } else {
            b.main.unwrap_or(b.near)
        };
        (from, to)
    }

    /// The snap an isochrone starts from: the nearest one when a search from it reaches the
    /// main component or at least [`MIN_REACH_NODES`] road nodes both ways
    /// ([`Reach::both_ways_nodes`]; `head` gives an arc's end node), else the snap in the main
    /// component. Valhalla chooses alike: it skips a location's candidate edges from which
    /// fewer nodes are reachable for the nearest one from which enough are.
    pub fn origin(&self, g: &TurnGraph, c: &SnapCandidates, head: impl Fn(u32) -> u32) -> Snap {
        if c.main.is_none()
            || self.can_leave(g, &c.near)
            || self.both_ways_nodes(g, &c.near, head, MIN_REACH_NODES) >= MIN_REACH_NODES
        {
            c.near
        } else {
            c.main.unwrap_or(c.near)
        }
    }
}

/// A point snapped for a profile: the nearest usable edge, and the nearest usable edge of the
/// main component when that is another one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SnapCandidates {
    /// The nearest usable edge.
    pub near: Snap,
    /// The nearest usable edge of the main component, when `near` is not in it (`None` when
    /// `near` is, or when no such edge lies within [`super::snap::MAX_SNAP_M`]).
    pub main: Option<Snap>,
}

impl SnapCandidates {
    /// The snap in the main component when there is one, else the nearest.
    pub fn main_or_near(&self) -> Snap {
        self.main.unwrap_or(self.near)
    }
}

/// Strongly connected components of the arcs (iterative Tarjan), numbered from 0.
fn tarjan(g: &TurnGraph) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let n = g.arc_count();
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut component = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut call: Vec<(u32, u32)> = Vec::new();
    let mut counter = 0u32;
    let mut components = 0u32;
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        index[root as usize] = counter;
        low[root as usize] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        call.push((root, g.out_range(root).start));
        while let Some(top) = call.last_mut() {
            let v = top.0;
            let end = g.out_range(v).end;
            if top.1 < end {
                let w = g.head[top.1 as usize];
                top.1 += 1;
                if index[w as usize] == NONE {
                    index[w as usize] = counter;
                    low[w as usize] = counter;
                    counter += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    call.push((w, g.out_range(w).start));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            call.pop();
            if let Some(&(u, _)) = call.last() {
                low[u as usize] = low[u as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    component[w as usize] = components;
                    if w == v {
                        break;
                    }
                }
                components += 1;
            }
        }
    }
    component
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A graph from transitions between `n` arcs.
    fn graph(n: u32, edges: &[(u32, u32)]) -> TurnGraph {
        let mut out: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n as usize];
        for &(a, b) in edges {
            out[a as usize].push((b, 0));
        }
        let t = crate::routing::graph::Transitions::from_lists(&out);
        TurnGraph {
            profile: super::super::Profile::Driving,
            arc_edge: (0..n).collect::<Vec<_>>().into(),
            arc_forward: vec![true; n as usize],
            arc_time_ms: vec![1; n as usize].into(),
            arc_dist_cm: vec![1; n as usize].into(),
            edge_arcs: (0..n).map(|a| [a, NO_ARC]).collect::<Vec<_>>().into(),
            original_arcs: n,
            edge_entry: (0..n).map(|_| [NO_ARC; 2]).collect::<Vec<_>>().into(),
            turn_ms: t.turn_ms.into(),
            first_out: t.first_out.into(),
            head: t.head.into(),
        }
    }

    #[test]
    fn components_and_reachability() {
        // Main cycle 0-1-2-3; a source 4 → 0; a sink 2 → 5; an island cycle 6-7; a lone 8.
        let g = graph(
            9,
            &[
                (0, 1),
                (1, 2),
                (2, 3),
                (3, 0),
                (4, 0),
                (2, 5),
                (6, 7),
                (7, 6),
            ],
        );
        let r = Reach::build(&g);
        assert_eq!(r.size[r.main as usize], 4);
        for a in 0..4 {
            assert!(r.in_main(a) && r.reaches_main(a) && r.from_main(a));
        }
        assert!(!r.in_main(4) && r.reaches_main(4) && !r.from_main(4));
        assert!(!r.in_main(5) && !r.reaches_main(5) && r.from_main(5));
        for a in 6..9 {
            assert!(!r.reaches_main(a) && !r.from_main(a));
        }
        assert_eq!(r.component[6], r.component[7]);
        assert_ne!(r.component[6], r.component[8]);
        let snap = |edge: u32| Snap {
            edge,
            fraction: 0.5,
            point: crate::geo::Pt::new(0.0, 0.0),
            distance_m: 0.0,
        };
        let c = |near: u32, main: Option<u32>| SnapCandidates {
            near: snap(near),
            main: main.map(snap),
        };
        // Island to island: stays; island to main: moves; source keeps its origin snap,
        // sink its destination snap.
        assert_eq!(
            r.pair(&g, &c(6, Some(1)), &c(7, Some(2))),
            (snap(6), snap(7))
        );
        assert_eq!(r.pair(&g, &c(6, Some(1)), &c(3, None)), (snap(1), snap(3)));
        assert_eq!(
            r.pair(&g, &c(4, Some(0)), &c(5, Some(2))),
            (snap(4), snap(5))
        );
        assert_eq!(
            r.pair(&g, &c(5, Some(2)), &c(4, Some(0))),
            (snap(2), snap(0))
        );
        let head = |a: u32| a;
        assert_eq!(r.origin(&g, &c(8, Some(3)), head), snap(3));
        assert_eq!(r.origin(&g, &c(4, Some(0)), head), snap(4));
        // The island 6-7 meets two nodes both ways: a start there moves to the main
        // component unless two nodes are enough.
        assert_eq!(r.both_ways_nodes(&g, &snap(6), head, 50), 2);
        assert_eq!(r.both_ways_nodes(&g, &snap(6), head, 1), 1);
        assert_eq!(r.origin(&g, &c(6, Some(1)), head), snap(1));
        assert_eq!(r.both_ways_nodes(&g, &snap(0), head, 50), 4);
    }
}
