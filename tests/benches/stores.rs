//! Stores and zones on a generated retail network of 100,000 stores with a delivery zone each
//! (`waymark_packs::stores::synthetic`, imported with the real import into a small pack):
//! `cargo bench -p waymark-tests --bench stores` (`WAYMARK_BENCH_STORES=N` for another size).
//!
//! Before the criterion groups, each case is timed call by call and its p50 / p95 / p99
//! printed, since the targets are percentiles: search with a query and a centre, search of the
//! stores open at an instant (`open_at`, with and without a query), bounds of a query,
//! `zone=true` point lookups, `PUT /zones` of 1,000 zones, and the stores layer build (reading
//! the customer's GeoJSON, checking and writing 100,000 stores and zones).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use waymark_core::api::*;
use waymark_core::auth::keys::Publisher;
use waymark_core::operation::Credentials;
use waymark_packs::build::PackPlan;
use waymark_packs::stores::synthetic::{self, DEFAULT_BBOX, circle_wkt};

fn bench(c: &mut Criterion) {
    let n: usize = std::env::var("WAYMARK_BENCH_STORES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let stores = synthetic::generate(n, 1, DEFAULT_BBOX);
    let geojson = synthetic::to_geojson(&stores).to_string();
    let plan = PackPlan {
        id: "retail".into(),
        osm: vec!["osm-monaco".into()],
        layers: vec!["places".into()],
        base: false,
        routing: Default::default(),
    };
    let dir = waymark_packs::build::build_pack(
        &plan,
        "1",
        &waymark_tests::sources(),
        &tmp.path().join("built"),
        true,
        &mut |_, _, _| {},
    )
    .unwrap();

    // The stores layer build: what `waymark-packs import-stores --geojson` does.
    let import = || {
        let (records, problems) = waymark_packs::stores::read::geojson(&geojson);
        let report = waymark_packs::stores::pack::import_into_pack(
            &dir,
            records,
            problems,
            waymark_packs::stores::pack::customer_source("proprietary", "generated test stores"),
            waymark_packs::stores::pack::ImportPolicy::STRICT,
        )
        .unwrap();
        assert_eq!(report.stats.stores, n);
    };
    waymark_tests::time_percentiles(&format!("stores layer build, {n} stores"), 3, |_| import());
    waymark_packs::build::sign_pack(&dir, &publisher).unwrap();
    let engine = waymark_tests::open_engine(
        &tmp.path().join("state"),
        &tmp.path().join("packs"),
        &publisher,
    );
    waymark_tests::install(&engine, &dir);
    let caller = waymark_tests::private_caller(&publisher);
    let writer = waymark_tests::write_caller(&publisher);
    let reader = Credentials::Http(&caller);
    // Bounds take a private key as `private_key` only.
    let mut bounds_caller = caller.clone();
    bounds_caller.private_key = bounds_caller.api_key_header.take();
    let bounds_reader = Credentials::Http(&bounds_caller);

    let mut rng = waymark_tests::Rng::new(7);
    let [west, south, east, north] = DEFAULT_BBOX;
    let points: Vec<LatLng> = (0..1000)
        .map(|_| {
            LatLng::new(
                south + rng.unit() * (north - south),
                west + rng.unit() * (east - west),
            )
        })
        .collect();
    let started = Instant::now();
    engine
        .call(
            &reader,
            StoresSearchRequest {
                center: Some(points[0]),
                zone: true,
                ..Default::default()
            },
        )
        .unwrap();
    eprintln!(
        "first request (loads the index of {n} stores and zones): {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );

    const QUERY: &str = "type:pharmacy AND user.rating:>=4";
    let search = |i: usize, query: Option<&str>, radius: Option<f64>| {
        engine
            .call(
                &reader,
                StoresSearchRequest {
                    query: query.map(str::to_owned),
                    center: Some(points[i % points.len()]),
                    radius,
                    ..Default::default()
                },
            )
            .unwrap()
    };
    let bounds = |i: usize, query: &str| {
        engine
            .call(
                &bounds_reader,
                StoresBoundsRequest {
                    query: Some(query.to_owned()),
                    center: Some(points[i % points.len()]),
                    radius: Some(20_000.0),
                    ..Default::default()
                },
            )
            .unwrap()
            .bounds
    };
    let zone = |i: usize| {
        engine
            .call(
                &reader,
                StoresSearchRequest {
                    center: Some(points[i % points.len()]),
                    zone: true,
                    ..Default::default()
                },
            )
            .unwrap()
    };
    let put = |k: usize| {
        let zones = (0..1000)
            .map(|j| {
                let s = &stores[(k * 1000 + j) % n];
                Zone {
                    zone_id: s.zones[0].zone_id.clone(),
                    store_id: s.store_id.clone(),
                    polygon: circle_wkt(
                        s.location.lat,
                        s.location.lng,
                        1_000.0 + (k % 5) as f64 * 200.0,
                        16,
                    ),
                    ..Default::default()
                }
            })
            .collect();
        engine
            .call(&Credentials::Http(&writer), ZonesUpdateRequest { zones })
            .unwrap()
    };
    let found = search(0, Some(QUERY), None);
    eprintln!("`{QUERY}` matches {} of {n} stores", found.pagination.total);
    waymark_tests::time_percentiles("search, query + centre", 2000, |i| {
        black_box(search(i, Some(QUERY), None));
    });
    waymark_tests::time_percentiles("search, centre only (all stores by distance)", 2000, |i| {
        black_box(search(i, None, None));
    });
    waymark_tests::time_percentiles("search, query + centre + 10 km radius", 2000, |i| {
        black_box(search(i, Some(QUERY), Some(10_000.0)));
    });
    // Open at a weekday 10:00 UTC (11:00 in the region's timezones, CET): the filter runs on
    // every candidate, each in its store's timezone with its special days.
    const OPEN_AT: i64 = 1_797_588_000; // 2026-12-18T10:00:00Z, a Friday
    let open_search = |i: usize, query: Option<&str>, open_at: i64| {
        engine
            .call(
                &reader,
                StoresSearchRequest {
                    query: query.map(str::to_owned),
                    center: Some(points[i % points.len()]),
                    open_at: Some(open_at),
                    ..Default::default()
                },
            )
            .unwrap()
    };
    let open = open_search(0, None, OPEN_AT);
    let sunday = open_search(0, None, OPEN_AT + 2 * 86_400 + 3600);
    eprintln!(
        "open on a Friday at 10:00 UTC: {} of {n} stores; on Sunday at 11:00 UTC: {}",
        open.pagination.total, sunday.pagination.total
    );
    waymark_tests::time_percentiles("search, centre + open_at (every store checked)", 500, |i| {
        black_box(open_search(i, None, OPEN_AT));
    });
    waymark_tests::time_percentiles("search, query + centre + open_at", 2000, |i| {
        black_box(open_search(i, Some(QUERY), OPEN_AT));
    });
    waymark_tests::time_percentiles("bounds, query + centre + 20 km radius", 2000, |i| {
        black_box(bounds(i, QUERY));
    });
    waymark_tests::time_percentiles("bounds, query `type:pharmacy` (whole region)", 500, |_| {
        black_box(
            engine
                .call(
                    &bounds_reader,
                    StoresBoundsRequest {
                        query: Some("type:pharmacy".into()),
                        ..Default::default()
                    },
                )
                .unwrap(),
        );
    });
    waymark_tests::time_percentiles("zone=true point lookup", 2000, |i| {
        black_box(zone(i));
    });
    waymark_tests::time_percentiles("PUT /zones, 1,000 zones", 30, |k| {
        black_box(put(k));
    });
    waymark_tests::time_percentiles(
        "zone=true, first lookup after a PUT of 1,000 zones",
        20,
        |k| {
            put(k + 100);
            black_box(zone(k));
        },
    );

    let mut g = c.benchmark_group("stores");
    let mut i = 0;
    g.bench_function("search query + centre", |b| {
        b.iter(|| {
            i += 1;
            black_box(search(i, Some(QUERY), None))
        })
    });
    g.bench_function("search centre + open_at", |b| {
        b.iter(|| {
            i += 1;
            black_box(open_search(i, None, OPEN_AT))
        })
    });
    g.bench_function("bounds query + 20 km", |b| {
        b.iter(|| {
            i += 1;
            black_box(bounds(i, QUERY))
        })
    });
    g.bench_function("zone point lookup", |b| {
        b.iter(|| {
            i += 1;
            black_box(zone(i))
        })
    });
    g.sample_size(10);
    g.bench_function("put 1000 zones", |b| {
        b.iter(|| {
            i += 1;
            black_box(put(i))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
