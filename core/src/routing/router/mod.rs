//! Routing on one pack: the road network, its snapping index, the turn graph of each profile
//! (derived on first use) and the prepared hierarchies of the time metric (loaded on first use
//! from the pack's `routing/*.fp` files). Distance-metric paths are searched towards their
//! target on the turn graph (ADR 0006).
//!
//! **Partial edges.** A point snapped at fraction `f` of an edge can leave along each arc of
//! that edge the profile allows: the forward arc with `1 - f` of it still ahead, the backward
//! arc with `f`. A search therefore starts at the *successors* of those arcs, with the rest of
//! the arc (and the turn) as initial weight; a target arc `b` reached at offset `s` adds
//! `s × cost(b)`. When both points lie on the same arc with the target ahead, the direct
//! piece `(s - t) × cost` competes with the searched paths.
//!
//! **Fragments.** Each point is snapped to the nearest usable edge and, when that edge is not
//! in the main component of the profile's graph, also to the nearest usable edge that is
//! ([`Router::snap_candidates`]); a route or matrix cell then picks the pair of snaps the
//! [`Reach`] of the graph says can be connected ([`Reach::pair`]).
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

mod matrix;

use super::ch::{ChGraph, PreparedFile, file_name};
use super::derived::PackDigests;
use super::graph::{NO_ARC, TurnGraph};
use super::network::{NetworkError, RoadNetwork};
use super::profile::{Metric, Profile};
use super::reach::{Reach, SnapCandidates};
use super::search::with_dijkstra;
use super::snap::{Snap, SnapIndex};
use crate::geo::{Pt, xyz as sphere_xyz};

/// A place on an arc: the arc and the fraction of it behind (in the arc's direction).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArcPos {
    /// Arc.
    pub arc: u32,
    /// Fraction of the arc already travelled, `0..=1`.
    pub offset: f64,
}

/// The [`ArcPath`] of the arcs a search found at `cost`, from an arc of `starts` (see
/// [`expand_sources`]) to an arc of `dst`: the source arc it expanded from goes back in front,
/// with the offsets of the snapped ends. `None` when the arcs are not theirs.
pub fn arc_path(
    starts: &[(u32, u64, u64, u32)],
    src: &[ArcPos],
    dst: &[ArcPos],
    cost: u64,
    arcs: Vec<u32>,
) -> Option<ArcPath> {
    let first = *arcs.first()?;
    let last = *arcs.last()?;
    let src_arc = starts.iter().find(|x| x.0 == first)?.3;
    let start = src.iter().find(|p| p.arc == src_arc)?.offset;
    let end = dst.iter().find(|p| p.arc == last)?.offset;
    let mut full = Vec::with_capacity(arcs.len() + 1);
    full.push(src_arc);
    full.extend(arcs);
    Some(ArcPath {
        cost,
        arcs: full,
        start,
        end,
    })
}

/// The arcs a snapped point lies on for a profile.
pub fn positions(g: &TurnGraph, snap: &Snap, usable: &dyn Fn(u32) -> bool) -> Vec<ArcPos> {
    let mut out = Vec::with_capacity(2);
    push_pair(&mut out, g.edge_arcs[snap.edge as usize], snap, usable);
    out
}

/// The arcs a path can arrive at a snapped point by: those of [`positions`] and, on a
/// restricted edge, their entry copies ([`TurnGraph::edge_entry`]).
pub fn arrivals(g: &TurnGraph, snap: &Snap, usable: &dyn Fn(u32) -> bool) -> Vec<ArcPos> {
    let mut out = positions(g, snap, usable);
    push_pair(&mut out, g.edge_entry[snap.edge as usize], snap, usable);
    out
}

/// The usable arcs of an edge's pair (forward, backward) at the snapped point's offset
/// along each.
fn push_pair(out: &mut Vec<ArcPos>, arcs: [u32; 2], snap: &Snap, usable: &dyn Fn(u32) -> bool) {
    for (arc, offset) in [(arcs[0], snap.fraction), (arcs[1], 1.0 - snap.fraction)] {
        if arc != NO_ARC && usable(arc) {
            out.push(ArcPos { arc, offset });
        }
    }
}

/// How much nearer (metres) a restricted edge must be than the nearest free one for a point
/// to snap to it: a point next to a public road and a private drive starts on the road.
pub const RESTRICTED_SNAP_MARGIN_M: f64 = 10.0;

/// `fraction × cost`, rounded.
pub fn part(cost: u64, fraction: f64) -> u64 {
    (cost as f64 * fraction.clamp(0.0, 1.0)).round() as u64
}

/// Start nodes of a search from `from` positions: `(arc, weight, second weight, source arc)`,
/// one per successor (the cheapest when several sources lead to it).
pub fn expand_sources(
    g: &TurnGraph,
    metric: Metric,
    from: &[ArcPos],
    usable: &dyn Fn(u32) -> bool,
) -> Vec<(u32, u64, u64, u32)> {
    let other = match metric {
        Metric::Time => Metric::Distance,
        Metric::Distance => Metric::Time,
    };
    let mut best: HashMap<u32, (u64, u64, u32)> = HashMap::new();
    for p in from {
        let done = part(g.arc_cost(metric, p.arc), p.offset);
        let done_other = part(g.arc_cost(other, p.arc), p.offset);
        for t in g.out_range(p.arc) {
            let b = g.head[t as usize];
            if !usable(b) {
                continue;
            }
            let w = g.transition_cost(metric, p.arc, t).saturating_sub(done);
            let s = g
                .transition_cost(other, p.arc, t)
                .saturating_sub(done_other);
            let e = best.entry(b).or_insert((u64::MAX, 0, p.arc));
            if w < e.0 {
                *e = (w, s, p.arc);
            }
        }
    }
    let mut v: Vec<(u32, u64, u64, u32)> = best
        .into_iter()
        .map(|(b, (w, s, src))| (b, w, s, src))
        .collect();
    v.sort_unstable_by_key(|x| x.0);
    v
}

/// Target nodes of a search to `to` positions: `(arc, weight, second weight)`.
pub fn targets(g: &TurnGraph, metric: Metric, to: &[ArcPos]) -> Vec<(u32, u64, u64)> {
    let other = match metric {
        Metric::Time => Metric::Distance,
        Metric::Distance => Metric::Time,
    };
    to.iter()
        .map(|p| {
            (
                p.arc,
                part(g.arc_cost(metric, p.arc), p.offset),
                part(g.arc_cost(other, p.arc), p.offset),
            )
        })
        .collect()
}

/// The direct piece when a source and a target lie on the same arc with the target ahead:
/// `(cost, second cost, arc, start offset, end offset)`.
pub fn direct(
    g: &TurnGraph,
    metric: Metric,
    from: &[ArcPos],
    to: &[ArcPos],
) -> Option<(u64, u64, ArcPos, ArcPos)> {
    let other = match metric {
        Metric::Time => Metric::Distance,
        Metric::Distance => Metric::Time,
    };
    let mut best: Option<(u64, u64, ArcPos, ArcPos)> = None;
    for s in from {
        for t in to {
            if s.arc == t.arc && t.offset >= s.offset {
                let c = part(g.arc_cost(metric, s.arc), t.offset)
                    .saturating_sub(part(g.arc_cost(metric, s.arc), s.offset));
                let c2 = part(g.arc_cost(other, s.arc), t.offset)
                    .saturating_sub(part(g.arc_cost(other, s.arc), s.offset));
                if best.is_none_or(|b| c < b.0) {
                    best = Some((c, c2, *s, *t));
                }
            }
        }
    }
    best
}

/// A path between two snapped points.
#[derive(Debug, Clone, PartialEq)]
pub struct ArcPath {
    /// Cost in the metric searched.
    pub cost: u64,
    /// The arcs, first to last.
    pub arcs: Vec<u32>,
    /// Offset of the start on the first arc.
    pub start: f64,
    /// Offset of the end on the last arc.
    pub end: f64,
}

/// The shortest-path algorithm a [`Router`] search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchAlgorithm {
    /// The prepared hierarchy (falls back to Dijkstra when the pack has none).
    Ch,
    /// Plain Dijkstra on the turn graph.
    Dijkstra,
}

/// Routes on one pack's road network: snapping, turn graphs and hierarchies (loaded on first
/// use), paths and cost matrices.
#[derive(Debug)]
pub struct Router {
    /// Pack id.
    pub pack_id: String,
    /// The network.
    pub net: RoadNetwork,
    /// Segment index.
    pub snap: SnapIndex,
    /// Where the prepared hierarchies are (`None`: none, as for joined packs).
    dir: Option<std::path::PathBuf>,
    /// How each prepared hierarchy was made, by file name (the manifest's
    /// `stats.routing.graphs`): `true` for a nested-dissection order.
    nested: std::collections::HashMap<String, bool>,
    graphs: [OnceLock<Arc<TurnGraph>>; 4],
    reach: [OnceLock<Arc<Reach>>; 4],
    /// The time-metric hierarchy of each profile (the distance metric has none, ADR 0006).
    hierarchies: [OnceLock<Option<Arc<ChGraph>>>; 4],
    /// Each node's position on the sphere ([`crate::geo::xyz`]), for distance bounds.
    node_xyz: OnceLock<Vec<[f64; 3]>>,
    /// The member packs of a joined network, whose hierarchies answer its time-metric
    /// searches ([`super::overlay`]).
    joined: Option<super::overlay::Joined>,
    /// Hierarchies of graphs with at least this many arcs are queried from a mapped query
    /// layout file ([`super::layout`]).
    layouts_from_arcs: usize,
    /// The digests of the installed pack, which key the layouts derived from it.
    digests: Option<PackDigests>,
    /// `road_nodes.id` of each node of a network derived here, until its arrays are written
    /// to a layout file with them (empty for a network mapped from one).
    node_ids: Vec<i64>,
}

impl Router {
    /// Reads the roads layer of the pack in `dir` from `conn`, deriving the network again
    /// ([`Router::open_with`] without digests).
    pub fn open(
        pack_id: &str,
        dir: &Path,
        conn: &rusqlite::Connection,
    ) -> Result<Router, NetworkError> {
        Self::open_with(pack_id, dir, conn, None)
    }

    /// Reads the roads layer of the pack in `dir` from `conn`. With the digests of an
    /// installed pack, the network, its snap index, turn graphs and hierarchies derived from
    /// it are mapped from the layouts an earlier opening wrote under the same digests and
    /// engine code, without being derived again ([`super::derived`]).
    pub fn open_with(
        pack_id: &str,
        dir: &Path,
        conn: &rusqlite::Connection,
        digests: Option<PackDigests>,
    ) -> Result<Router, NetworkError> {
        let mapped = digests
            .as_ref()
            .and_then(|d| super::derived::open_network(pack_id, dir, &d.network_key(), conn));
        let (net, node_ids) = match mapped {
            Some(net) => (net, Vec::new()),
            None => RoadNetwork::load_with_ids(conn)?,
        };
        let snap = digests
            .as_ref()
            .and_then(|d| super::derived::open_snap(pack_id, dir, &d.snap_key(), &net))
            .unwrap_or_else(|| SnapIndex::build(&net));
        let mut r = Router::with_index(pack_id, net, snap);
        r.dir = Some(dir.to_path_buf());
        r.digests = digests;
        r.node_ids = node_ids;
        r.map_network();
        r.map_snap();
        Ok(r)
    }

    /// Reads the snap index of an installed pack from its keyed layout file
    /// ([`super::derived::map_snap`]), written when missing, when the network is mapped too.
    fn map_snap(&mut self) {
        if 2 * self.net.edges.len() >= self.layouts_from_arcs
            && !self.snap.is_mapped()
            && let (Some(d), Some(dir)) = (&self.digests, &self.dir)
            && super::derived::map_snap(&self.pack_id, dir, &d.snap_key(), &mut self.snap)
        {
            super::layout::release_freed_memory();
        }
    }

    /// Reads the network's large arrays from a mapped file ([`super::derived::map_network`])
    /// when its graphs reach the layout size (two arcs an edge at most).
    fn map_network(&mut self) {
        let key = self.digests.as_ref().map(PackDigests::network_key);
        if 2 * self.net.edges.len() >= self.layouts_from_arcs
            && !self.net.points.is_mapped()
            && let Some(dir) = &self.dir
            && super::derived::map_network(
                &self.pack_id,
                dir,
                key.as_ref(),
                &mut self.net,
                &self.node_ids,
            )
        {
            self.node_ids = Vec::new();
            super::layout::release_freed_memory();
        }
    }

    /// Reads how each hierarchy was prepared from a manifest's `stats`: queries walk the
    /// elimination tree of nested-dissection hierarchies and search contracted ones
    /// ([`super::etree`]). Without it, graphs of more than [`super::cch::ND_FROM_ARCS`] arcs
    /// are taken to be nested-dissection ones, as the builder makes them by default.
    pub fn with_preparations(mut self, stats: Option<&serde_json::Value>) -> Router {
        let graphs = stats
            .and_then(|s| s.pointer("/routing/graphs"))
            .and_then(|g| g.as_array());
        for g in graphs.into_iter().flatten() {
            if let (Some(file), Some(how)) = (
                g.get("file").and_then(|f| f.as_str()),
                g.get("preparation").and_then(|p| p.as_str()),
            ) {
                self.nested
                    .insert(file.to_string(), how == "nested-dissection");
            }
        }
        self
    }

    /// Queries the hierarchies of graphs of at least `arcs` arcs from mapped query layout
    /// files ([`super::layout`]; `usize::MAX`: never).
    pub fn with_layouts_from(mut self, arcs: usize) -> Router {
        self.layouts_from_arcs = arcs;
        self.map_network();
        self.map_snap();
        self
    }

    /// A router over `net` without prepared hierarchies (a network joined from several packs,
    /// ADR 0008): its searches are Dijkstra's on the turn graph.
    pub fn from_network(pack_id: &str, net: RoadNetwork) -> Router {
        let snap = SnapIndex::build(&net);
        Router::with_index(pack_id, net, snap)
    }

    /// A router over `net` and its snap index, without prepared hierarchies.
    fn with_index(pack_id: &str, net: RoadNetwork, snap: SnapIndex) -> Router {
        Router {
            pack_id: pack_id.to_string(),
            net,
            snap,
            dir: None,
            nested: Default::default(),
            graphs: Default::default(),
            reach: Default::default(),
            hierarchies: Default::default(),
            node_xyz: OnceLock::new(),
            joined: None,
            layouts_from_arcs: super::layout::FROM_ARCS,
            digests: None,
            node_ids: Vec::new(),
        }
    }

    /// A router over a joined network whose time-metric searches run on the members'
    /// hierarchies (ADR 0008).
    pub fn joined(pack_id: &str, net: RoadNetwork, joined: super::overlay::Joined) -> Router {
        let mut r = Router::from_network(pack_id, net);
        r.joined = Some(joined);
        r
    }

    /// The turn graph of `profile`.
    pub fn graph(&self, profile: Profile) -> Arc<TurnGraph> {
        self.graphs[profile.index()]
            .get_or_init(|| {
                let key = self.digests.as_ref().map(|d| d.graph_key(profile));
                if let (Some(key), Some(dir)) = (&key, &self.dir)
                    && let Some(g) = super::derived::open_graph(
                        &self.pack_id,
                        dir,
                        key,
                        profile,
                        self.net.edges.len(),
                    )
                {
                    return Arc::new(g);
                }
                let mut g = TurnGraph::build(&self.net, profile);
                if g.arc_count() >= self.layouts_from_arcs
                    && let Some(dir) = &self.dir
                    && super::derived::map_graph(&self.pack_id, dir, key.as_ref(), &mut g)
                {
                    super::layout::release_freed_memory();
                }
                Arc::new(g)
            })
            .clone()
    }

    /// The components and reachability of the turn graph of `profile` (computed with it on
    /// first use).
    pub fn reach(&self, profile: Profile) -> Arc<Reach> {
        self.reach[profile.index()]
            .get_or_init(|| {
                let g = self.graph(profile);
                let key = self.digests.as_ref().map(|d| d.reach_key(profile));
                if let (Some(key), Some(dir)) = (&key, &self.dir)
                    && let Some(r) =
                        super::derived::open_reach(&self.pack_id, dir, key, profile, g.arc_count())
                {
                    return Arc::new(r);
                }
                let mut reach = Reach::build(&g);
                if g.arc_count() >= self.layouts_from_arcs {
                    if let Some(dir) = &self.dir {
                        super::derived::map_reach(
                            &self.pack_id,
                            dir,
                            key.as_ref(),
                            profile,
                            &mut reach,
                        );
                    }
                    // Its search stacks, as large as the graph, are free again.
                    super::layout::release_freed_memory();
                }
                Arc::new(reach)
            })
            .clone()
    }

    /// The prepared hierarchy of `profile` and `metric`, `None` when the pack has none or it
    /// does not belong to this network (logged). The distance metric has none by design (ADR
    /// 0006): its paths are searched towards the target on the turn graph
    /// ([`Router::distance_bound`]), its matrices with one search per origin.
    pub fn hierarchy(&self, profile: Profile, metric: Metric) -> Option<Arc<ChGraph>> {
        if metric == Metric::Distance {
            return None;
        }
        self.hierarchies[profile.index()]
            .get_or_init(|| {
                let ch = self.open_hierarchy(profile, metric);
                if let Some(ch) = &ch {
                    super::memory::register_hierarchy(ch);
                }
                ch
            })
            .clone()
    }

    /// The hierarchy of `profile` in `metric`, opened (see [`Router::hierarchy`]).
    fn open_hierarchy(&self, profile: Profile, metric: Metric) -> Option<Arc<ChGraph>> {
        let file = file_name(profile, metric);
        let path = self.dir.as_ref()?.join(&file);
        let key = self
            .digests
            .as_ref()
            .and_then(|d| d.hierarchy_key(&file, profile, metric));
        let g = self.graph(profile);
        let walk = self
            .nested
            .get(&file)
            .copied()
            .unwrap_or(g.arc_count() > super::cch::ND_FROM_ARCS);
        // An installed pack's layout, keyed by its digests: mapped without reading
        // the prepared file.
        if let (Some(key), Some(dir)) = (&key, &self.dir) {
            let layout = super::layout::path(dir, profile, metric);
            if let Ok(ch) = ChGraph::open_layout(&layout, key, metric, g.arc_count()) {
                return Some(Arc::new(ch.walking(walk)));
            }
        }
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(pack = %self.pack_id, file = %path.display(), error = %e,
                        "no prepared routing graph; routing with Dijkstra");
                return None;
            }
        };
        if g.arc_count() >= self.layouts_from_arcs
            && let Some(dir) = &self.dir
        {
            let ch = super::layout::open(&self.pack_id, dir, &bytes, &g, (profile, metric), key);
            return ch.map(|ch| Arc::new(ch.walking(walk)));
        }
        match PreparedFile::from_bytes(&bytes).and_then(|f| ChGraph::load(f, &g, metric)) {
            Ok(ch) => Some(Arc::new(ch.walking(walk))),
            Err(e) => {
                tracing::warn!(pack = %self.pack_id, file = %path.display(), error = %e,
                        "prepared routing graph unusable; routing with Dijkstra");
                None
            }
        }
    }

    /// Snaps `p` to the nearest edge `profile` may use and `edge_ok` accepts; a restricted
    /// edge (ADR 0010) only when it is [`RESTRICTED_SNAP_MARGIN_M`] nearer than the nearest
    /// free one.
    pub fn snap(
        &self,
        profile: Profile,
        p: crate::geo::Pt,
        edge_ok: &dyn Fn(u32) -> bool,
    ) -> Option<Snap> {
        let g = self.graph(profile);
        let usable = |e: u32| {
            let arcs = g.edge_arcs[e as usize];
            (arcs[0] != NO_ARC || arcs[1] != NO_ARC) && edge_ok(e)
        };
        let any = self.snap.snap(&self.net, p, usable)?;
        if !self.net.edges[any.edge as usize].restricted(profile) {
            return Some(any);
        }
        let free = self.snap.snap(&self.net, p, |e| {
            usable(e) && !self.net.edges[e as usize].restricted(profile)
        });
        match free {
            Some(f) if f.distance_m < any.distance_m + RESTRICTED_SNAP_MARGIN_M => Some(f),
            _ => Some(any),
        }
    }

    /// Snaps `p` to the nearest edge `profile` may use and `edge_ok` accepts (a restricted
    /// one as [`Router::snap`] says) and, when that edge is not in the main component of the
    /// profile's graph, to the nearest such edge that is.
    pub fn snap_candidates(
        &self,
        profile: Profile,
        p: crate::geo::Pt,
        edge_ok: &dyn Fn(u32) -> bool,
    ) -> Option<SnapCandidates> {
        let g = self.graph(profile);
        let reach = self.reach(profile);
        let near = self.snap(profile, p, edge_ok)?;
        let restricted = self.net.edges[near.edge as usize].restricted(profile);
        self.snap
            .snap_two(
                &self.net,
                p,
                |e| {
                    let arcs = g.edge_arcs[e as usize];
                    (arcs[0] != NO_ARC || arcs[1] != NO_ARC)
                        && edge_ok(e)
                        && (restricted || !self.net.edges[e as usize].restricted(profile))
                },
                |e| reach.edge_in_main(&g, e),
            )
            .map(|(near, main)| SnapCandidates { near, main })
    }

    /// The cheapest path between two snapped points and the snaps it joins: those
    /// [`Reach::pair`] picks, or, when they have no path (an `avoid` filter can cut them
    /// off), the snaps in the main component.
    pub fn path_between(
        &self,
        profile: Profile,
        metric: Metric,
        from: &SnapCandidates,
        to: &SnapCandidates,
        usable: Option<&dyn Fn(u32) -> bool>,
        algorithm: SearchAlgorithm,
    ) -> Option<(ArcPath, Snap, Snap)> {
        let g = self.graph(profile);
        let (s, t) = self.reach(profile).pair(&g, from, to);
        if let Some(p) = self.path(profile, metric, &s, &t, usable, algorithm) {
            return Some((p, s, t));
        }
        let (s2, t2) = (from.main_or_near(), to.main_or_near());
        if (s2, t2) == (s, t) {
            return None;
        }
        self.path(profile, metric, &s2, &t2, usable, algorithm)
            .map(|p| (p, s2, t2))
    }

    /// The cheapest path from `from` to `to`, over arcs accepted by `usable` (`None`: all).
    /// With a filter the prepared hierarchy does not apply and Dijkstra runs on the turn
    /// graph.
    pub fn path(
        &self,
        profile: Profile,
        metric: Metric,
        from: &Snap,
        to: &Snap,
        usable: Option<&dyn Fn(u32) -> bool>,
        algorithm: SearchAlgorithm,
    ) -> Option<ArcPath> {
        let g = self.graph(profile);
        let all = |_: u32| true;
        let ok: &dyn Fn(u32) -> bool = usable.unwrap_or(&all);
        let src = positions(&g, from, ok);
        let dst = arrivals(&g, to, ok);
        if src.is_empty() || dst.is_empty() {
            return None;
        }
        let starts = expand_sources(&g, metric, &src, ok);
        let ends = targets(&g, metric, &dst);
        let direct = direct(&g, metric, &src, &dst);
        let ch = match (algorithm, usable) {
            (SearchAlgorithm::Ch, None) => self.hierarchy(profile, metric),
            _ => None,
        };
        let over = match (&self.joined, algorithm, usable, metric) {
            (Some(j), SearchAlgorithm::Ch, None, Metric::Time) if !starts.is_empty() => {
                j.shortest(&g, profile, from, to)
            }
            _ => None,
        };
        // A path the members found must run from a start to a target of this network, else
        // the network itself is searched.
        let over = over.filter(|found| {
            found.as_ref().is_none_or(|(_, arcs)| {
                arcs.first()
                    .is_some_and(|a| starts.iter().any(|s| s.0 == *a))
                    && arcs.last().is_some_and(|a| ends.iter().any(|t| t.0 == *a))
            })
        });
        let searched: Option<(u64, Vec<u32>)> = if starts.is_empty() {
            None
        } else if let Some(found) = over {
            found
        } else if let Some(ch) = ch {
            let s: Vec<(u32, u64)> = starts.iter().map(|x| (x.0, x.1)).collect();
            let t: Vec<(u32, u64)> = ends.iter().map(|x| (x.0, x.1)).collect();
            ch.shortest(&s, &t)
        } else {
            let s: Vec<(u32, i64)> = starts.iter().map(|x| (x.0, x.1 as i64)).collect();
            let t: Vec<(u32, i64)> = ends.iter().map(|x| (x.0, x.1 as i64)).collect();
            let weight = |a, t| Some(g.transition_cost(metric, a, t));
            with_dijkstra(g.arc_count(), |d| match metric {
                Metric::Distance => {
                    let bound = self.distance_bound(&g, to.point);
                    d.shortest_towards(&g, &s, &t, weight, ok, bound)
                }
                Metric::Time => d.shortest(&g, &s, &t, weight, ok),
            })
            .map(|f| (f.cost.max(0) as u64, f.arcs))
        };
        let via_graph = searched.and_then(|(cost, arcs)| arc_path(&starts, &src, &dst, cost, arcs));
        let direct = direct.map(|(cost, _, s, t)| ArcPath {
            cost,
            arcs: vec![s.arc],
            start: s.offset,
            end: t.offset,
        });
        match (via_graph, direct) {
            (Some(a), Some(b)) => Some(if b.cost <= a.cost { b } else { a }),
            (a, b) => a.or(b),
        }
    }

    /// A lower bound of the distance-metric cost (cm) from the start of each arc of `g` to
    /// `target`: 90 % of the straight (chord) distance through the Earth, which is shorter
    /// than the great-circle distance. Arc lengths are sums of great-circle distances along
    /// their geometry, rounded to the centimetre, so the bound never overestimates (the margin
    /// covers the rounding of many short arcs). The nodes' positions on the sphere are computed
    /// once per network, so a bound costs a square root.
    pub fn distance_bound<'a>(&'a self, g: &'a TurnGraph, target: Pt) -> impl Fn(u32) -> i64 + 'a {
        let xyz = self
            .node_xyz
            .get_or_init(|| self.net.nodes.iter().map(|&p| sphere_xyz(p)).collect());
        let t = sphere_xyz(target);
        move |a: u32| {
            let e = &self.net.edges[g.arc_edge[a as usize] as usize];
            let node = if g.arc_forward[a as usize] {
                e.from
            } else {
                e.to
            };
            let p = xyz[node as usize];
            let chord =
                ((p[0] - t[0]).powi(2) + (p[1] - t[1]).powi(2) + (p[2] - t[2]).powi(2)).sqrt();
            (chord * 90.0) as i64
        }
    }

    /// Length (m) and duration (ms, turns included) of a path.
    pub fn measure(&self, profile: Profile, p: &ArcPath) -> (f64, f64) {
        let g = self.graph(profile);
        let mut dist = 0.0;
        let mut time = 0.0;
        let n = p.arcs.len();
        for (i, &a) in p.arcs.iter().enumerate() {
            let from = if i == 0 { p.start } else { 0.0 };
            let to = if i + 1 == n { p.end } else { 1.0 };
            let share = (to - from).max(0.0);
            let e = &self.net.edges[g.arc_edge[a as usize] as usize];
            dist += e.length_m * share;
            time += f64::from(g.arc_time_ms[a as usize]) * share;
            if i + 1 < n {
                time += f64::from(g.turn_between(a, p.arcs[i + 1]).unwrap_or(0));
            }
        }
        (dist, time)
    }
}

/// One cell of a cost matrix: `(cost in the metric, cost in the other metric)`.
pub type Cell = Option<(u64, u64)>;
