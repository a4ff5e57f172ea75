//! `GET /map/features` through the Engine on the Helsinki and Andorra sample packs (roads,
//! places, points of interest): `cargo bench -p waymark-tests --bench map`.
//!
//! Boxes as the demo page asks for them: a whole pack (its first request), a street-level view
//! (about 1 km), and a country-wide view (Andorra, where the level of detail drops). Besides
//! criterion's means, prints p50/p95 over 200 street-level boxes spread over both packs.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use waymark_core::api::{LatLng, MapFeaturesRequest, Viewport};
use waymark_core::operation::Credentials;
use waymark_core::packs::schema::layers;
use waymark_packs::build;

fn bbox(west: f64, south: f64, east: f64, north: f64) -> MapFeaturesRequest {
    MapFeaturesRequest {
        bbox: Some(Viewport {
            northeast: LatLng::new(north, east),
            southwest: LatLng::new(south, west),
        }),
    }
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let plans: Vec<_> = ["helsinki", "andorra"]
        .iter()
        .map(|id| {
            let mut p = build::sample_plan(id).unwrap();
            p.layers = [layers::ROADS, layers::PLACES, layers::POIS]
                .iter()
                .map(|s| s.to_string())
                .collect();
            p
        })
        .collect();
    let (engine, publisher, _) = waymark_tests::engine_with_packs(&plans, tmp.path());
    let caller = waymark_tests::private_caller(&publisher);
    let call = |req: MapFeaturesRequest| engine.call(&Credentials::Http(&caller), req).unwrap();
    let helsinki = bbox(24.9352, 60.1642, 24.9534, 60.1791);
    let street = bbox(24.9380, 60.1660, 24.9480, 60.1720);
    let andorra = bbox(1.40, 42.42, 1.79, 42.66);
    for (name, req) in [
        ("helsinki pack", helsinki),
        ("street", street),
        ("andorra", andorra),
    ] {
        let answer = call(req);
        let bytes = serde_json::to_vec(&answer).unwrap().len();
        eprintln!(
            "{name}: {} features, {} KB of JSON, truncated {}",
            answer.features.len(),
            bytes / 1024,
            answer.truncated
        );
    }
    c.bench_function("map_features_helsinki_pack", |b| {
        b.iter(|| black_box(call(helsinki)))
    });
    c.bench_function("map_features_street_1km", |b| {
        b.iter(|| black_box(call(street)))
    });
    c.bench_function("map_features_andorra_country", |b| {
        b.iter(|| black_box(call(andorra)))
    });
    // 200 street-level boxes (1.1 × 0.7 km) over both packs, with their JSON writing.
    let mut rng = waymark_tests::Rng::new(22);
    let mut ms = Vec::new();
    for i in 0..200 {
        let (w, s, e, n) = if i % 2 == 0 {
            (24.9352, 60.1642, 24.9534, 60.1791)
        } else {
            (1.45, 42.45, 1.70, 42.60)
        };
        let x = w + rng.unit() * (e - w - 0.01);
        let y = s + rng.unit() * (n - s - 0.006);
        let t = Instant::now();
        let answer = call(bbox(x, y, x + 0.02, y + 0.006));
        black_box(serde_json::to_vec(&answer).unwrap());
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    let p = |q: f64| ms[((ms.len() as f64 - 1.0) * q).round() as usize];
    eprintln!(
        "street-level boxes with JSON: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms (n={})",
        p(0.5),
        p(0.95),
        p(1.0),
        ms.len()
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
