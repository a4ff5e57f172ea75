//! The prepared hierarchies of real packs (Andorra, Monaco, Liechtenstein) against plain
//! Dijkstra on the same turn-expanded graph: for 1,000 random pairs of snapped points per pack
//! and per profile × metric, the point-to-point cost and the matrix cost equal the Dijkstra
//! cost (and both agree on which pairs are unreachable). In the time metric these are the
//! hierarchy's searches; in the distance metric (no hierarchy, ADR 0006) the search directed
//! towards the target and the router's per-origin matrix.
//!
//! The same check runs on hierarchies prepared in a nested-dissection order (ADR 0007), which
//! the builder uses for graphs larger than the sample packs': prepared from each pack's turn
//! graphs, stored and read back as a pack file would be.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use waymark_core::routing::ch::{ChGraph, PreparedFile};
use waymark_core::routing::router::{
    SearchAlgorithm, arrivals, direct, expand_sources, positions, targets,
};
use waymark_core::routing::search::Dijkstra;
use waymark_core::routing::snap::Snap;
use waymark_core::routing::{Metric, Profile, Router, TurnGraph, cch};
use waymark_tests::{Rng, random_snaps, routing_pack};

/// Dijkstra costs from one snapped point to each target point.
fn dijkstra_costs(
    r: &Router,
    profile: Profile,
    metric: Metric,
    from: &Snap,
    to: &[Snap],
    d: &mut Dijkstra,
) -> Vec<Option<u64>> {
    let g = r.graph(profile);
    let all = |_: u32| true;
    let src = positions(&g, from, &all);
    let starts: Vec<(u32, i64)> = expand_sources(&g, metric, &src, &all)
        .iter()
        .map(|s| (s.0, s.1 as i64))
        .collect();
    d.explore(
        &g,
        &starts,
        i64::MAX,
        |a, t| Some(g.transition_cost(metric, a, t)),
        all,
    );
    to.iter()
        .map(|t| {
            let dst = arrivals(&g, t, &all);
            let searched = targets(&g, metric, &dst)
                .iter()
                .filter_map(|&(arc, w, _)| d.reached(arc).map(|l| l as u64 + w))
                .min();
            let direct = direct(&g, metric, &src, &dst).map(|x| x.0);
            match (searched, direct) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        })
        .collect()
}

fn some(snaps: &[Snap]) -> Vec<Option<Snap>> {
    snaps.iter().copied().map(Some).collect()
}

/// The many-to-many inputs of snapped sources and targets: `(arc, weight, second weight)`.
type M2m = Vec<Vec<(u32, u64, u64)>>;
fn m2m_inputs(g: &TurnGraph, metric: Metric, sources: &[Snap], dests: &[Snap]) -> (M2m, M2m) {
    let all = |_: u32| true;
    let from = sources
        .iter()
        .map(|s| {
            expand_sources(g, metric, &positions(g, s, &all), &all)
                .iter()
                .map(|x| (x.0, x.1, x.2))
                .collect()
        })
        .collect();
    let to = dests
        .iter()
        .map(|t| targets(g, metric, &arrivals(g, t, &all)))
        .collect();
    (from, to)
}

fn check_pack(id: &str) {
    let dir = routing_pack(id);
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    let r = Router::open(id, &dir, &conn).unwrap();
    let mut rng = Rng::new(0x5eed ^ id.len() as u64);
    for profile in Profile::ALL {
        for metric in Metric::ALL {
            // The time metric has a hierarchy; the distance metric has none (ADR 0006): its
            // paths come from the directed search, its matrices from one search per origin.
            let ch = r.hierarchy(profile, metric);
            match metric {
                Metric::Time => assert!(ch.is_some(), "{id}: no hierarchy for {profile} {metric}"),
                Metric::Distance => assert!(ch.is_none(), "{id}: a {profile} {metric} hierarchy"),
            }
            let g = r.graph(profile);
            // 40 sources × 25 targets = 1,000 pairs.
            let sources = random_snaps(&r, profile, 40, &mut rng);
            let dests = random_snaps(&r, profile, 25, &mut rng);
            assert_eq!(sources.len(), 40, "{id} {profile}: too few snapped points");
            let mut d = Dijkstra::new(g.arc_count());
            let all = |_: u32| true;
            let (m2m_sources, m2m_targets) = m2m_inputs(&g, metric, &sources, &dests);
            let matrix = match &ch {
                Some(ch) => ch.many_to_many(&m2m_sources, &m2m_targets),
                None => r.matrix(profile, metric, &some(&sources), &some(&dests), None),
            };
            let mut reachable = 0;
            for (i, s) in sources.iter().enumerate() {
                let want = dijkstra_costs(&r, profile, metric, s, &dests, &mut d);
                for (j, t) in dests.iter().enumerate() {
                    let got = r
                        .path(profile, metric, s, t, None, SearchAlgorithm::Ch)
                        .map(|p| p.cost);
                    assert_eq!(
                        got, want[j],
                        "{id} {profile} {metric}: CH and Dijkstra differ from {s:?} to {t:?}"
                    );
                    let src = positions(&g, s, &all);
                    let dst = arrivals(&g, t, &all);
                    let m = matrix[i][j].map(|c| c.0);
                    let m = match (m, direct(&g, metric, &src, &dst).map(|x| x.0)) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    assert_eq!(
                        m, want[j],
                        "{id} {profile} {metric}: many-to-many and Dijkstra differ"
                    );
                    reachable += usize::from(want[j].is_some());
                }
            }
            // Enough pairs for the comparison to mean something. München's vehicle networks,
            // an inner-city extract cut at its edges, connect about half of the random pairs
            // (driving 532 / 562, truck 643 / 485 of 1,000 in the time / distance draws).
            assert!(
                reachable > 400,
                "{id} {profile} {metric}: only {reachable} of 1000 pairs connected"
            );
        }
    }
}

/// Nested-dissection hierarchies of every profile (time metric) of pack `id`: point-to-point
/// and many-to-many equal Dijkstra on 1,000 pairs.
fn check_nested_dissection(id: &str) {
    let dir = routing_pack(id);
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    let r = Router::open(id, &dir, &conn).unwrap();
    let mut rng = Rng::new(0x0d15 ^ id.len() as u64);
    let metric = Metric::Time;
    for profile in Profile::ALL {
        let g = r.graph(profile);
        let (up, stats) = cch::prepare(&g, metric, &cch::arc_ends(&g, &r.net)).unwrap();
        assert!(stats.kept > g.arc_count(), "{id} {profile}: {stats:?}");
        let bytes = PreparedFile::from_up(&g, metric, &up)
            .unwrap()
            .to_bytes()
            .unwrap();
        let load = || ChGraph::load(PreparedFile::from_bytes(&bytes).unwrap(), &g, metric).unwrap();
        // The same hierarchy written to a query layout file and mapped, as large packs use it.
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("layout");
        let key = [profile.index() as u8; 32];
        load().write_layout(&file, &key).unwrap();
        let mapped = ChGraph::open_layout(&file, &key, metric, g.arc_count()).unwrap();
        assert!(mapped.is_mapped());
        // Both queries: the elimination-tree walk (what packs use for these hierarchies) and
        // the search with stall-on-demand, in memory and mapped.
        for nd in [load().walking(true), load(), mapped.walking(true)] {
            let sources = random_snaps(&r, profile, 40, &mut rng);
            let dests = random_snaps(&r, profile, 25, &mut rng);
            assert_eq!(sources.len(), 40, "{id} {profile}: too few snapped points");
            let mut d = Dijkstra::new(g.arc_count());
            let all = |_: u32| true;
            let (m2m_sources, m2m_targets) = m2m_inputs(&g, metric, &sources, &dests);
            let matrix = nd.many_to_many(&m2m_sources, &m2m_targets);
            let mut reachable = 0;
            for (i, s) in sources.iter().enumerate() {
                let want = dijkstra_costs(&r, profile, metric, s, &dests, &mut d);
                let from: Vec<(u32, u64)> = m2m_sources[i].iter().map(|x| (x.0, x.1)).collect();
                for (j, t) in dests.iter().enumerate() {
                    let direct =
                        direct(&g, metric, &positions(&g, s, &all), &arrivals(&g, t, &all))
                            .map(|x| x.0);
                    let with_direct = |c: Option<u64>| match (c, direct) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    };
                    let to: Vec<(u32, u64)> = m2m_targets[j].iter().map(|x| (x.0, x.1)).collect();
                    let p2p = with_direct(nd.shortest(&from, &to).map(|x| x.0));
                    assert_eq!(
                        p2p, want[j],
                        "{id} {profile}: nested-dissection CH and Dijkstra differ from {s:?} to {t:?}"
                    );
                    let m = with_direct(matrix[i][j].map(|c| c.0));
                    assert_eq!(
                        m, want[j],
                        "{id} {profile}: nested-dissection many-to-many and Dijkstra differ"
                    );
                    reachable += usize::from(want[j].is_some());
                }
            }
            assert!(
                reachable > 500,
                "{id} {profile}: only {reachable} of 1000 pairs connected"
            );
        }
    }
}

#[test]
fn andorra_nested_dissection_hierarchies_equal_dijkstra() {
    check_nested_dissection("andorra");
}

#[test]
fn monaco_nested_dissection_hierarchies_equal_dijkstra() {
    check_nested_dissection("monaco");
}

#[test]
fn liechtenstein_nested_dissection_hierarchies_equal_dijkstra() {
    check_nested_dissection("liechtenstein");
}

#[test]
fn neubrandenburg_nested_dissection_hierarchies_equal_dijkstra() {
    check_nested_dissection("neubrandenburg");
}

#[test]
fn munchen_nested_dissection_hierarchies_equal_dijkstra() {
    check_nested_dissection("munchen");
}

#[test]
fn london_nested_dissection_hierarchies_equal_dijkstra() {
    check_nested_dissection("london");
}

#[test]
fn porto_nested_dissection_hierarchies_equal_dijkstra() {
    check_nested_dissection("porto");
}

#[test]
fn helsinki_nested_dissection_hierarchies_equal_dijkstra() {
    check_nested_dissection("helsinki");
}

#[test]
fn andorra_hierarchies_equal_dijkstra() {
    check_pack("andorra");
}

#[test]
fn monaco_hierarchies_equal_dijkstra() {
    check_pack("monaco");
}

#[test]
fn liechtenstein_hierarchies_equal_dijkstra() {
    check_pack("liechtenstein");
}

#[test]
fn neubrandenburg_hierarchies_equal_dijkstra() {
    check_pack("neubrandenburg");
}

#[test]
fn munchen_hierarchies_equal_dijkstra() {
    check_pack("munchen");
}

#[test]
fn london_hierarchies_equal_dijkstra() {
    check_pack("london");
}

#[test]
fn porto_hierarchies_equal_dijkstra() {
    check_pack("porto");
}

#[test]
fn helsinki_hierarchies_equal_dijkstra() {
    check_pack("helsinki");
}
