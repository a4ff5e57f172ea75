//! Regions that join (ADR 0008): the same questions on the whole Andorra pack and on its two
//! parts cut at 1.56° E, `cargo bench -p waymark-tests --bench joined`. Each case is timed call
//! by call (p50 / p95, since the targets are ratios of medians): routes between random road
//! points on opposite sides of the cut, a 100×100 matrix from the west to the east, and
//! 15-minute driving isochrones from points near the cut. Then criterion groups of the same.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use waymark_core::Engine;
use waymark_core::api::*;
use waymark_core::auth::Caller;
use waymark_core::auth::keys::Publisher;
use waymark_core::operation::Credentials;

struct Setup {
    _tmp: tempfile::TempDir,
    whole: (std::sync::Arc<Engine>, Caller),
    parts: (std::sync::Arc<Engine>, Caller),
    west: Vec<LatLng>,
    east: Vec<LatLng>,
}

const CUT: f64 = 1.56;

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let built = tmp.path().join("built");
    let whole = waymark_tests::cut_pack("andorra", "andorra", None, &built);
    let w = waymark_tests::cut_pack("andorra-west", "andorra", Some("30,-10,60,1.56"), &built);
    let e = waymark_tests::cut_pack("andorra-east", "andorra", Some("30,1.56,60,30"), &built);
    let p = Publisher::generate().unwrap();
    for d in [&whole, &w, &e] {
        waymark_packs::build::sign_pack(d, &p).unwrap();
    }
    let ew = waymark_tests::open_engine(&tmp.path().join("sw"), &tmp.path().join("pw"), &p);
    waymark_tests::install(&ew, &whole);
    let ep = waymark_tests::open_engine(&tmp.path().join("sp"), &tmp.path().join("pp"), &p);
    waymark_tests::install(&ep, &w);
    waymark_tests::install(&ep, &e);
    let db = rusqlite::Connection::open(whole.join("data.sqlite")).unwrap();
    let all = waymark_tests::car_road_points(&db);
    let mut rng = waymark_tests::Rng::new(7);
    let west_all: Vec<LatLng> = all
        .iter()
        .copied()
        .filter(|p| p.lng < CUT - 0.004)
        .collect();
    let east_all: Vec<LatLng> = all
        .iter()
        .copied()
        .filter(|p| p.lng > CUT + 0.004)
        .collect();
    let west = (0..200)
        .map(|_| west_all[rng.below(west_all.len())])
        .collect();
    let east = (0..200)
        .map(|_| east_all[rng.below(east_all.len())])
        .collect();
    let caller = waymark_tests::private_caller(&p);
    Setup {
        _tmp: tmp,
        whole: (ew, caller.clone()),
        parts: (ep, caller),
        west,
        east,
    }
}

fn route(e: &(std::sync::Arc<Engine>, Caller), o: LatLng, d: LatLng) -> RouteResponse {
    e.0.call(
        &Credentials::Http(&e.1),
        RouteRequest {
            origin: o,
            destination: d,
            ..Default::default()
        },
    )
    .unwrap()
}

fn matrix(e: &(std::sync::Arc<Engine>, Caller), o: &[LatLng], d: &[LatLng]) -> MatrixData {
    let req = MatrixCreateRequest {
        origins: o.to_vec(),
        destinations: d.to_vec(),
        mode: TravelMode::Driving,
    };
    e.0.call_with(&Credentials::Http(&e.1), req, |e, call, r| {
        e.distance_matrix_now(call, r)
    })
    .unwrap()
}

fn isochrone(e: &(std::sync::Arc<Engine>, Caller), o: LatLng) -> IsochroneResponse {
    e.0.call(
        &Credentials::Http(&e.1),
        IsochroneRequest {
            origin: o,
            value: 15.0,
            mode: TravelMode::Driving,
            ..Default::default()
        },
    )
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let s = setup();
    // The first crossing query joins the parts and computes their border tables.
    let started = std::time::Instant::now();
    black_box(route(&s.parts, s.west[0], s.east[0]));
    eprintln!(
        "first crossing route (join + border tables): {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    black_box(route(&s.whole, s.west[0], s.east[0]));
    for (label, e) in [("whole", &s.whole), ("joined", &s.parts)] {
        waymark_tests::time_percentiles(&format!("{label} crossing route"), 1000, |i| {
            black_box(route(e, s.west[i % 200], s.east[(i * 7) % 200]));
        });
        waymark_tests::time_percentiles(&format!("{label} matrix 100x100"), 30, |_| {
            black_box(matrix(e, &s.west[..100], &s.east[..100]));
        });
        let near: Vec<LatLng> = s
            .west
            .iter()
            .chain(&s.east)
            .copied()
            .filter(|p| (p.lng - CUT).abs() < 0.03)
            .collect();
        waymark_tests::time_percentiles(&format!("{label} isochrone 15 min"), 100, |i| {
            black_box(isochrone(e, near[i % near.len()]));
        });
    }
    let mut g = c.benchmark_group("joined");
    g.sample_size(20);
    for (label, e) in [("whole", &s.whole), ("joined", &s.parts)] {
        let mut i = 0usize;
        g.bench_function(format!("{label} crossing route"), |b| {
            b.iter(|| {
                i += 1;
                route(e, s.west[i % 200], s.east[(i * 7) % 200])
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
