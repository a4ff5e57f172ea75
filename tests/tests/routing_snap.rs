//! The snap index (edges cut into pieces of up to eight segments in an R-tree) against a
//! brute-force scan of every segment of a real pack's network: for random points near and
//! away from the roads, the snapped distance equals the nearest segment's, and a filter on
//! edges is honoured; and the tree's walk answers exactly as a scan of every piece.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use waymark_core::geo::{LocalProjection, Pt, project_on_segment};
use waymark_core::routing::snap::{MAX_SNAP_M, PIECE_SEGMENTS, SnapIndex};
use waymark_core::routing::{Profile, Router};
use waymark_tests::{Rng, routing_pack};

/// The nearest distance (metres, in the index's projection) from `p` to a segment of an edge
/// `ok` accepts, by scanning every segment.
fn brute_force(r: &Router, proj: &LocalProjection, p: Pt, ok: &dyn Fn(u32) -> bool) -> f64 {
    let q = proj.project(p);
    let mut best = f64::INFINITY;
    for e in 0..r.net.edges.len() as u32 {
        if !ok(e) {
            continue;
        }
        for w in r.net.geometry(e).windows(2) {
            let d2 = project_on_segment(q, proj.project(w[0]), proj.project(w[1])).1;
            best = best.min(d2);
        }
    }
    best.sqrt()
}

#[test]
fn pieces_snap_to_the_nearest_segment_of_a_real_network() {
    let dir = routing_pack("andorra");
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    let r = Router::open("andorra", &dir, &conn).unwrap();
    let net = &r.net;
    let index = SnapIndex::build(net);
    let segments: usize = (0..net.edges.len() as u32)
        .map(|e| net.geometry(e).len() - 1)
        .sum();
    assert!(index.pieces() < segments / 3, "{} pieces", index.pieces());
    assert!(index.pieces() * PIECE_SEGMENTS >= segments);
    let (lo, hi) = net.nodes.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.lat), hi.max(p.lat))
    });
    let proj = LocalProjection::new((lo + hi) / 2.0);
    let mut rng = Rng::new(7);
    // Every third edge only: the filter must skip nearer pieces of other edges.
    let thirds = |e: u32| e.is_multiple_of(3);
    for i in 0..300_u32 {
        let node = net.nodes[rng.below(net.nodes.len())];
        let spread = if i.is_multiple_of(3) { 0.02 } else { 0.002 };
        let p = Pt::new(
            node.lat + (rng.unit() - 0.5) * spread,
            node.lng + (rng.unit() - 0.5) * spread,
        );
        for ok in [&(|_: u32| true) as &dyn Fn(u32) -> bool, &thirds] {
            let want = brute_force(&r, &proj, p, ok);
            match index.snap(net, p, ok) {
                Some(s) => {
                    assert!(ok(s.edge));
                    let got = proj.project(s.point);
                    let q = proj.project(p);
                    let d = ((got[0] - q[0]).powi(2) + (got[1] - q[1]).powi(2)).sqrt();
                    assert!(
                        (d - want).abs() < 1e-6 * want.max(1.0),
                        "{p:?}: {d} m vs {want} m"
                    );
                }
                None => assert!(want > MAX_SNAP_M, "{p:?}: nothing snapped, {want} m away"),
            }
        }
    }
    // The router snaps through the same index.
    let s = r
        .snap(Profile::Driving, net.nodes[0], &|_| true)
        .expect("a node snaps");
    assert!(s.distance_m < 1000.0);
}

#[test]
fn the_tree_answers_as_a_scan_of_every_piece_of_a_real_network() {
    let dir = routing_pack("andorra");
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    let r = Router::open("andorra", &dir, &conn).unwrap();
    let (net, index) = (&r.net, &r.snap);
    let mut rng = Rng::new(0x5ca9);
    let thirds = |e: u32| !e.is_multiple_of(3);
    let odd = |e: u32| e % 2 == 1;
    let (mut snapped, mut second) = (0, 0);
    for i in 0..2000_u32 {
        let node = net.nodes[rng.below(net.nodes.len())];
        // Some points exactly on a node: equally near every edge there.
        let spread = [0.0, 0.0005, 0.005, 0.05][i as usize % 4];
        let p = Pt::new(
            node.lat + (rng.unit() - 0.5) * spread,
            node.lng + (rng.unit() - 0.5) * spread,
        );
        let got = index.snap_two(net, p, thirds, odd);
        assert_eq!(got, index.snap_two_by_scan(net, p, thirds, odd), "{p:?}");
        snapped += usize::from(got.is_some());
        second += usize::from(got.is_some_and(|g| g.1.is_some()));
        if i % 4 == 0 {
            assert_eq!(
                index.snap(net, p, |_| true),
                index
                    .snap_two_by_scan(net, p, |_| true, |_| true)
                    .map(|s| s.0),
                "{p:?}"
            );
        }
    }
    assert!(
        snapped > 1900 && second > 300,
        "{snapped} snapped, {second} twice"
    );
}
