//! Time-metric searches across joined packs on the packs' own hierarchies (ADR 0008).
//!
//! A joined network ([`super::join`]) has no hierarchy of its own: preparing one on the device
//! would take minutes for a country. Each member pack keeps its own, and the members meet on
//! their **portals**: the arcs of the border segments, which leave one member's region and
//! enter its neighbour's, identical in both (same way, same two OSM nodes). A path between two
//! regions is a chain of runs, each inside one member and each ending on a portal; so
//!
//! * each member's **border table** holds the cost of the best path inside the member from the
//!   end of each entering portal to the end of each leaving portal (one many-to-many search on
//!   its hierarchy when the join is first used, kept in memory);
//! * a query searches upwards from the origin in the origin's member (costs to its leaving
//!   portals, read from the portals' precomputed search spaces) and downwards from the
//!   destination in the destination's member (costs from its entering portals), then runs
//!   Dijkstra over the portals with the tables as edges: a few hundred nodes;
//! * the path is unpacked run by run with point-to-point queries on the members' hierarchies
//!   and mapped onto the joined network's arcs, so geometry, steps, durations and tolls are
//!   those of one network.
//!
//! Costs are the members' own, which equal the joined network's: every turn is costed in the
//! member whose region holds its junction, border segments are split at no-junction nodes
//! (no turn cost), and the members' edges of a border road are the same edges. A run that would
//! use a piece of road the joined network took from another member (a member's far side of a
//! border road) cannot be mapped: such a query is answered by Dijkstra on the joined network
//! instead.
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Arc, OnceLock};

use super::ch::{Buckets, ChGraph};
use super::graph::{NO_ARC, TurnGraph};
use super::profile::{Metric, Profile};
use super::router::{ArcPos, Router, arrivals, expand_sources, positions, targets};
use super::snap::Snap;
use crate::geo::Pt;

/// Something that holds a member pack's [`Router`].
pub trait MemberRouter: Send + Sync + std::fmt::Debug {
    /// The member's router.
    fn router(&self) -> &Router;
}

/// Whether a point lies in a member's region.
pub type Covers = Box<dyn Fn(Pt) -> bool + Send + Sync>;

/// The members of a joined network and how their edges map onto it.
pub struct Joined {
    members: Vec<Arc<dyn MemberRouter>>,
    covers: Vec<Covers>,
    /// Per member: local edge → joined edge (`u32::MAX`: left out of the joined network).
    edge_map: Vec<Vec<u32>>,
    /// Per joined edge: the members having it, with their local edge.
    edge_members: Vec<Vec<(u16, u32)>>,
    borders: [OnceLock<Option<Arc<Borders>>>; 4],
}

impl std::fmt::Debug for Joined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Joined")
            .field("members", &self.members.len())
            .finish()
    }
}

/// One member's border for one profile.
struct MemberBorder {
    g: Arc<TurnGraph>,
    ch: Arc<ChGraph>,
    /// Entering portals: (local arc, joined arc).
    ins: Vec<(u32, u32)>,
    /// Leaving portals.
    outs: Vec<(u32, u32)>,
    /// `ins × outs`, row-major: (time, distance) from the end of an entering portal to the end
    /// of a leaving one.
    table: Vec<Option<(u64, u64)>>,
    /// Forward search spaces from the ends of the entering portals.
    in_buckets: Buckets,
    /// Backward search spaces to the ends of the leaving portals.
    out_buckets: Buckets,
}

/// The borders of every member for one profile.
struct Borders {
    members: Vec<MemberBorder>,
    /// Joined arc → the members it enters, with its index in their `ins`.
    enters: HashMap<u32, Vec<(usize, usize)>>,
}

/// One end of a query in each member that has its edge: `(member, (arc, weight, second))`.
type Ends = Vec<(usize, Vec<(u32, u64, u64)>)>;

/// Weighted arcs of one end of a hierarchy query.
type Weighted = Vec<(u32, u64)>;

/// Rows of `(time, distance)` cells.
type Cells = Vec<Vec<Option<(u64, u64)>>>;

/// A run of a path inside one member: from where to where, by the member's hierarchy.
#[derive(Debug, Clone, Copy)]
enum Hop {
    /// From the origin to the end of leaving portal `out`.
    First { member: usize, out: usize },
    /// From the end of entering portal `inp` to the end of leaving portal `out`.
    Middle {
        member: usize,
        inp: usize,
        out: usize,
    },
    /// From the end of entering portal `inp` to the destination.
    Last { member: usize, inp: usize },
    /// From the origin to the destination inside one member.
    Direct { member: usize },
}

impl Joined {
    /// The join of `members` (in the order of [`super::join::merge`]'s members) with its edge
    /// maps.
    pub fn new(
        members: Vec<Arc<dyn MemberRouter>>,
        covers: Vec<Covers>,
        edge_map: Vec<Vec<u32>>,
        joined_edges: usize,
    ) -> Joined {
        let mut edge_members: Vec<Vec<(u16, u32)>> = vec![Vec::new(); joined_edges];
        for (m, map) in edge_map.iter().enumerate() {
            for (local, &k) in map.iter().enumerate() {
                if let Some(list) = edge_members.get_mut(k as usize) {
                    list.push((m as u16, local as u32));
                }
            }
        }
        Joined {
            members,
            covers,
            edge_map,
            edge_members,
            borders: Default::default(),
        }
    }

    /// The borders of `profile`, computed on first use; `None` when a member has no hierarchy
    /// for it.
    fn borders(&self, joined: &TurnGraph, profile: Profile) -> Option<Arc<Borders>> {
        self.borders[profile.index()]
            .get_or_init(|| self.compute_borders(joined, profile).map(Arc::new))
            .clone()
    }

    fn compute_borders(&self, joined: &TurnGraph, profile: Profile) -> Option<Borders> {
        let mut members = Vec::with_capacity(self.members.len());
        let mut enters: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        for (m, member) in self.members.iter().enumerate() {
            let r = member.router();
            let ch = r.hierarchy(profile, Metric::Time)?;
            let g = r.graph(profile);
            let covers = &self.covers[m];
            let inside: Vec<bool> = r.net.nodes.iter().map(|&p| covers(p)).collect();
            let mut ins = Vec::new();
            let mut outs = Vec::new();
            // Original arcs and the entry copies of restricted ones (ADR 0010): a path that
            // arrives on a copy at the border goes on as one in the neighbour.
            let copies = g.edge_entry.iter().flatten().copied();
            for a in (0..g.original_arcs).chain(copies.filter(|&c| c != NO_ARC)) {
                let e = g.arc_edge[a as usize];
                let edge = &r.net.edges[e as usize];
                let (tail, head) = if g.arc_forward[a as usize] {
                    (edge.from, edge.to)
                } else {
                    (edge.to, edge.from)
                };
                let (ti, hi) = (inside[tail as usize], inside[head as usize]);
                if ti == hi {
                    continue;
                }
                let Some(k) = self.joined_arc(joined, m, a, &g) else {
                    continue;
                };
                if hi {
                    ins.push((a, k));
                } else {
                    outs.push((a, k));
                }
            }
            let all = |_: u32| true;
            let from_end = |a: u32| -> Vec<(u32, u64, u64)> {
                expand_sources(
                    &g,
                    Metric::Time,
                    &[ArcPos {
                        arc: a,
                        offset: 1.0,
                    }],
                    &all,
                )
                .into_iter()
                .map(|x| (x.0, x.1, x.2))
                .collect()
            };
            let to_end = |a: u32| {
                targets(
                    &g,
                    Metric::Time,
                    &[ArcPos {
                        arc: a,
                        offset: 1.0,
                    }],
                )
            };
            let in_points: Vec<Vec<(u32, u64, u64)>> = ins.iter().map(|x| from_end(x.0)).collect();
            let out_points: Vec<Vec<(u32, u64, u64)>> = outs.iter().map(|x| to_end(x.0)).collect();
            let out_buckets = ch.buckets(&out_points, false);
            let in_buckets = ch.buckets(&in_points, true);
            let mut table = Vec::with_capacity(ins.len() * outs.len());
            for p in &in_points {
                table.extend(ch.scan(p, true, &out_buckets));
            }
            for (i, &(_, k)) in ins.iter().enumerate() {
                enters.entry(k).or_default().push((m, i));
            }
            members.push(MemberBorder {
                g,
                ch,
                ins,
                outs,
                table,
                in_buckets,
                out_buckets,
            });
        }
        Some(Borders { members, enters })
    }

    /// The joined arc of member `m`'s arc `a` (a copy made for a turn restriction maps to its
    /// original, an entry copy of a restricted edge's arc to the joined network's entry copy,
    /// ADR 0010), `None` when its edge was left out of the joined network.
    fn joined_arc(&self, joined: &TurnGraph, m: usize, a: u32, g: &TurnGraph) -> Option<u32> {
        let edge = g.arc_edge[a as usize] as usize;
        let dir = usize::from(!g.arc_forward[a as usize]);
        let entry = g.edge_entry.get(edge).is_some_and(|c| c[dir] == a);
        let a = g.original(a);
        let e = self.edge_map[m]
            .get(g.arc_edge[a as usize] as usize)
            .copied()?;
        let arcs = if entry {
            &joined.edge_entry
        } else {
            &joined.edge_arcs
        };
        let k = arcs.get(e as usize)?.get(dir).copied()?;
        (k != NO_ARC).then_some(k)
    }

    /// The snap `s` of the joined network in each member that has its edge.
    fn local_snaps(&self, s: &Snap) -> Vec<(usize, Snap)> {
        self.edge_members
            .get(s.edge as usize)
            .map(|list| {
                list.iter()
                    .map(|&(m, e)| (usize::from(m), Snap { edge: e, ..*s }))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn sources(&self, b: &Borders, s: &Snap) -> Ends {
        let all = |_: u32| true;
        self.local_snaps(s)
            .into_iter()
            .map(|(m, snap)| {
                let g = &b.members[m].g;
                let pos = positions(g, &snap, &all);
                let st = expand_sources(g, Metric::Time, &pos, &all)
                    .into_iter()
                    .map(|x| (x.0, x.1, x.2))
                    .collect();
                (m, st)
            })
            .collect()
    }

    fn targets(&self, b: &Borders, t: &Snap) -> Ends {
        let all = |_: u32| true;
        self.local_snaps(t)
            .into_iter()
            .map(|(m, snap)| {
                let g = &b.members[m].g;
                let pos = arrivals(g, &snap, &all);
                (m, targets(g, Metric::Time, &pos))
            })
            .collect()
    }

    /// Costs from an origin to every portal end it reaches (Dijkstra over the portals), with
    /// each portal's predecessor hop: `joined arc → (time, distance, hop, previous arc)`.
    fn spread(&self, b: &Borders, src: &Ends) -> HashMap<u32, (u64, u64, Hop, u32)> {
        let mut best: HashMap<u32, (u64, u64, Hop, u32)> = HashMap::new();
        let mut heap = BinaryHeap::new();
        let push = |best: &mut HashMap<u32, (u64, u64, Hop, u32)>,
                    heap: &mut BinaryHeap<Reverse<(u64, u32)>>,
                    arc: u32,
                    w: u64,
                    w2: u64,
                    hop: Hop,
                    prev: u32| {
            if best.get(&arc).is_none_or(|x| w < x.0) {
                best.insert(arc, (w, w2, hop, prev));
                heap.push(Reverse((w, arc)));
            }
        };
        for (m, st) in src {
            let mb = &b.members[*m];
            let row = mb.ch.scan(st, true, &mb.out_buckets);
            for (j, c) in row.into_iter().enumerate() {
                if let Some((w, w2)) = c {
                    let hop = Hop::First { member: *m, out: j };
                    push(&mut best, &mut heap, mb.outs[j].1, w, w2, hop, u32::MAX);
                }
            }
        }
        let mut done = std::collections::HashSet::new();
        while let Some(Reverse((w, arc))) = heap.pop() {
            let Some(&(cur, cur2, _, _)) = best.get(&arc) else {
                continue;
            };
            if cur != w || !done.insert(arc) {
                continue;
            }
            let Some(list) = b.enters.get(&arc) else {
                continue;
            };
            for &(m, i) in list {
                let mb = &b.members[m];
                let n = mb.outs.len();
                for j in 0..n {
                    if let Some((tw, tw2)) = mb.table[i * n + j] {
                        let hop = Hop::Middle {
                            member: m,
                            inp: i,
                            out: j,
                        };
                        push(
                            &mut best,
                            &mut heap,
                            mb.outs[j].1,
                            w + tw,
                            cur2 + tw2,
                            hop,
                            arc,
                        );
                    }
                }
            }
        }
        best
    }

    /// The cheapest time-metric path between two snaps of the joined network, as the joined
    /// network's `(cost, arcs)` from a start arc (a successor of the origin's arc) to a target
    /// arc, like [`ChGraph::shortest`]. `None` when the portals cannot answer (a member has no
    /// hierarchy, or the path uses a piece of road left out of the joined network): the caller
    /// then searches the joined network itself. `Some(None)`: no path.
    pub fn shortest(
        &self,
        joined: &TurnGraph,
        profile: Profile,
        from: &Snap,
        to: &Snap,
    ) -> Option<Option<(u64, Vec<u32>)>> {
        let b = self.borders(joined, profile)?;
        let src = self.sources(&b, from);
        let dst = self.targets(&b, to);
        if src.is_empty() || dst.is_empty() {
            return Some(None);
        }
        // Inside one member.
        let mut best: Option<(u64, Hop, u32)> = None;
        for (m, st) in &src {
            if let Some((_, en)) = dst.iter().find(|(n, _)| n == m) {
                let mb = &b.members[*m];
                let s: Vec<(u32, u64)> = st.iter().map(|x| (x.0, x.1)).collect();
                let t: Vec<(u32, u64)> = en.iter().map(|x| (x.0, x.1)).collect();
                if let Some((c, _)) = mb.ch.shortest(&s, &t)
                    && best.is_none_or(|x| c < x.0)
                {
                    best = Some((c, Hop::Direct { member: *m }, u32::MAX));
                }
            }
        }
        // Through portals.
        let reached = self.spread(&b, &src);
        for (n, en) in &dst {
            let mb = &b.members[*n];
            let col = mb.ch.scan(en, false, &mb.in_buckets);
            for (i, c) in col.into_iter().enumerate() {
                let (Some((w, _)), Some(&(pw, _, _, _))) = (c, reached.get(&mb.ins[i].1)) else {
                    continue;
                };
                if best.is_none_or(|x| pw + w < x.0) {
                    best = Some((pw + w, Hop::Last { member: *n, inp: i }, mb.ins[i].1));
                }
            }
        }
        let Some((cost, last, mut arc)) = best else {
            return Some(None);
        };
        // The hops, last first.
        let mut hops = vec![last];
        while arc != u32::MAX {
            let &(_, _, hop, prev) = reached.get(&arc)?;
            hops.push(hop);
            arc = prev;
        }
        hops.reverse();
        let mut arcs: Vec<u32> = Vec::new();
        for hop in hops {
            let (m, s, t): (usize, Weighted, Weighted) = match hop {
                Hop::Direct { member } => (
                    member,
                    pairs(&src.iter().find(|x| x.0 == member)?.1),
                    pairs(&dst.iter().find(|x| x.0 == member)?.1),
                ),
                Hop::First { member, out } => (
                    member,
                    pairs(&src.iter().find(|x| x.0 == member)?.1),
                    end_of(&b.members[member], b.members[member].outs[out].0),
                ),
                Hop::Middle { member, inp, out } => (
                    member,
                    start_of(&b.members[member], b.members[member].ins[inp].0),
                    end_of(&b.members[member], b.members[member].outs[out].0),
                ),
                Hop::Last { member, inp } => (
                    member,
                    start_of(&b.members[member], b.members[member].ins[inp].0),
                    pairs(&dst.iter().find(|x| x.0 == member)?.1),
                ),
            };
            let mb = &b.members[m];
            let (_, local) = mb.ch.shortest(&s, &t)?;
            for a in local {
                arcs.push(self.joined_arc(joined, m, a, &mb.g)?);
            }
        }
        Some(Some((cost, arcs)))
    }

    /// Time-metric costs `(time, distance)` between every origin and destination snap of the
    /// joined network (`None`: no snap or no path); `None` when the portals cannot answer.
    pub fn matrix(
        &self,
        joined: &TurnGraph,
        profile: Profile,
        from: &[Option<Snap>],
        to: &[Option<Snap>],
    ) -> Option<Cells> {
        let b = self.borders(joined, profile)?;
        let src: Vec<Ends> = from
            .iter()
            .map(|s| s.as_ref().map(|s| self.sources(&b, s)).unwrap_or_default())
            .collect();
        let dst: Vec<Ends> = to
            .iter()
            .map(|s| s.as_ref().map(|s| self.targets(&b, s)).unwrap_or_default())
            .collect();
        // Destinations per member, for the cells inside one member.
        let mut per_member: Vec<(Vec<usize>, Buckets)> = Vec::with_capacity(b.members.len());
        // Costs from each member's entering portals to each destination.
        let mut from_portals: Vec<Cells> = vec![Vec::new(); to.len()];
        for (m, mb) in b.members.iter().enumerate() {
            let mut idx = Vec::new();
            let mut pts = Vec::new();
            for (j, d) in dst.iter().enumerate() {
                if let Some((_, en)) = d.iter().find(|x| x.0 == m) {
                    idx.push(j);
                    pts.push(en.clone());
                }
            }
            per_member.push((idx, mb.ch.buckets(&pts, false)));
        }
        for (j, d) in dst.iter().enumerate() {
            let mut per = vec![Vec::new(); b.members.len()];
            for (n, en) in d {
                let mb = &b.members[*n];
                per[*n] = mb.ch.scan(en, false, &mb.in_buckets);
            }
            from_portals[j] = per;
        }
        let mut out = vec![vec![None; to.len()]; from.len()];
        for (i, st) in src.iter().enumerate() {
            let row = &mut out[i];
            let better = |cell: &mut Option<(u64, u64)>, c: (u64, u64)| {
                if cell.is_none_or(|x| c.0 < x.0) {
                    *cell = Some(c);
                }
            };
            for (m, s) in st {
                let (idx, buckets) = &per_member[*m];
                let mb = &b.members[*m];
                for (k, c) in mb.ch.scan(s, true, buckets).into_iter().enumerate() {
                    if let Some(c) = c {
                        better(&mut row[idx[k]], c);
                    }
                }
            }
            if st.is_empty() {
                continue;
            }
            let reached = self.spread(&b, st);
            for (j, per) in from_portals.iter().enumerate() {
                for (n, col) in per.iter().enumerate() {
                    let mb = &b.members[n];
                    for (k, c) in col.iter().enumerate() {
                        let (Some((w, w2)), Some(&(pw, pw2, _, _))) =
                            (c, reached.get(&mb.ins[k].1))
                        else {
                            continue;
                        };
                        better(&mut row[j], (pw + w, pw2 + w2));
                    }
                }
            }
        }
        Some(out)
    }
}

fn pairs(v: &[(u32, u64, u64)]) -> Vec<(u32, u64)> {
    v.iter().map(|x| (x.0, x.1)).collect()
}

/// Sources at the end of arc `a`.
fn start_of(mb: &MemberBorder, a: u32) -> Vec<(u32, u64)> {
    let all = |_: u32| true;
    expand_sources(
        &mb.g,
        Metric::Time,
        &[ArcPos {
            arc: a,
            offset: 1.0,
        }],
        &all,
    )
    .into_iter()
    .map(|x| (x.0, x.1))
    .collect()
}

/// A target at the end of arc `a`.
fn end_of(mb: &MemberBorder, a: u32) -> Vec<(u32, u64)> {
    pairs(&targets(
        &mb.g,
        Metric::Time,
        &[ArcPos {
            arc: a,
            offset: 1.0,
        }],
    ))
}
