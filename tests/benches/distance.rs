//! The distance group through the Engine on the Andorra and Neubrandenburg packs:
//! `cargo bench -p waymark-tests --bench distance`.
//!
//! Before the criterion groups, each case is also timed call by call (2,000 calls, or 200 for
//! the matrix) and its p50 / p95 printed, since the targets are percentiles. First, the pack
//! open is timed once per pack: a new engine over the installed pack (no install), then its
//! first route of each routing mode and metric (each loads that profile's turn graph and
//! hierarchy; the first also opens the roads layer).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use waymark_core::api::*;
use waymark_core::auth::Caller;
use waymark_core::auth::RateLimitMode;
use waymark_core::auth::keys::Publisher;
use waymark_core::operation::Credentials;
use waymark_core::{Engine, EngineConfig};

struct Pack {
    id: &'static str,
    tmp: tempfile::TempDir,
    engine: std::sync::Arc<Engine>,
    caller: Caller,
    publisher: Publisher,
    points: Vec<LatLng>,
}

fn pack(id: &'static str) -> Pack {
    let tmp = tempfile::tempdir().unwrap();
    let plan = waymark_tests::routing_plan(id);
    let (engine, publisher) = waymark_tests::engine_with_pack(&plan, tmp.path());
    let db =
        rusqlite::Connection::open(tmp.path().join(format!("built/{id}-1/data.sqlite"))).unwrap();
    let all = waymark_tests::car_road_points(&db);
    let mut rng = waymark_tests::Rng::new(42);
    let points = (0..400).map(|_| all[rng.below(all.len())]).collect();
    Pack {
        id,
        tmp,
        engine,
        caller: waymark_tests::private_caller(&publisher),
        publisher,
        points,
    }
}

/// Opens a new engine over the installed pack of `p` (no install: as an app starting) and
/// prints the time of the open and of the first route of each profile and metric.
fn time_open(p: &Pack) {
    let started = std::time::Instant::now();
    let mut config = EngineConfig::new(
        &p.tmp
            .path()
            .join(format!("state-open-{}", std::process::id())),
        vec![p.publisher.verifying()],
    );
    config.rate_limits = RateLimitMode::Off;
    config.packs_dir = Some(p.tmp.path().join("packs"));
    let engine = std::sync::Arc::new(Engine::open(config).unwrap());
    let open = started.elapsed();
    let mut line = format!("{} open: engine {:.1} ms", p.id, open.as_secs_f64() * 1e3);
    // (Routes take driving, walking and cycling; the truck graph serves matrices.)
    for mode in [
        TravelMode::Driving,
        TravelMode::Walking,
        TravelMode::Cycling,
    ] {
        for method in [RouteMethod::Time, RouteMethod::Distance] {
            let t = std::time::Instant::now();
            let r = engine
                .call(
                    &Credentials::Http(&p.caller),
                    RouteRequest {
                        mode,
                        method,
                        ..route_req(p, 0)
                    },
                )
                .unwrap();
            black_box(r);
            line += &format!(
                ", first {mode} {method} {:.1} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
    }
    eprintln!("{line}");
}

/// A named way to make the `i`-th request of a case.
type Case<'a> = (&'static str, Box<dyn Fn(usize) -> RouteRequest + 'a>);

fn route_req(p: &Pack, i: usize) -> RouteRequest {
    RouteRequest {
        origin: p.points[(2 * i) % p.points.len()],
        destination: p.points[(2 * i + 1) % p.points.len()],
        ..Default::default()
    }
}

fn bench(c: &mut Criterion) {
    for p in [pack("andorra"), pack("neubrandenburg")] {
        time_open(&p);
        let route = |req: RouteRequest| p.engine.call(&Credentials::Http(&p.caller), req).unwrap();
        let cases: Vec<Case<'_>> = vec![
            ("route", Box::new(|i| route_req(&p, i))),
            (
                "route details=full",
                Box::new(|i| RouteRequest {
                    details: DetailsLevel::Full,
                    ..route_req(&p, i)
                }),
            ),
            (
                "route alternatives=true",
                Box::new(|i| RouteRequest {
                    alternatives: true,
                    ..route_req(&p, i)
                }),
            ),
            (
                "route method=distance",
                Box::new(|i| RouteRequest {
                    method: RouteMethod::Distance,
                    ..route_req(&p, i)
                }),
            ),
            (
                "route avoid=tolls|highways",
                Box::new(|i| RouteRequest {
                    avoid: vec![RouteAvoid::Tolls, RouteAvoid::Highways],
                    ..route_req(&p, i)
                }),
            ),
        ];
        for (name, make) in &cases {
            waymark_tests::time_percentiles(&format!("{} {name}", p.id), 2000, |i| {
                black_box(route(make(i)));
            });
        }
        let matrix = |_| {
            let req = MatrixCreateRequest {
                origins: p.points[..100].to_vec(),
                destinations: p.points[100..200].to_vec(),
                mode: TravelMode::Driving,
            };
            black_box(
                p.engine
                    .call_with(&Credentials::Http(&p.caller), req, |e, call, r| {
                        e.distance_matrix_now(call, r)
                    })
                    .unwrap(),
            )
        };
        waymark_tests::time_percentiles(&format!("{} matrix 100x100", p.id), 100, |i| {
            matrix(i);
        });
        let iso = |i: usize, mode, value| {
            p.engine
                .call(
                    &Credentials::Http(&p.caller),
                    IsochroneRequest {
                        origin: p.points[i % p.points.len()],
                        value,
                        mode,
                        ..Default::default()
                    },
                )
                .unwrap()
        };
        waymark_tests::time_percentiles(&format!("{} isochrone driving 30 min", p.id), 500, |i| {
            black_box(iso(i, TravelMode::Driving, 30.0));
        });
        waymark_tests::time_percentiles(&format!("{} isochrone walking 10 min", p.id), 2000, |i| {
            black_box(iso(i, TravelMode::Walking, 10.0));
        });
        // No missing cell where a route exists.
        let m = matrix(0);
        let mut missing = 0;
        for i in 0..20 {
            for j in 0..20 {
                let r = route(RouteRequest {
                    origin: p.points[i],
                    destination: p.points[100 + j],
                    ..Default::default()
                });
                let cell = m.travel_times[i * 100 + j];
                if r.status == DistanceStatus::Ok && cell.is_none() {
                    missing += 1;
                }
            }
        }
        eprintln!(
            "{} matrix: {missing} missing cells among 400 routed pairs",
            p.id
        );

        let mut g = c.benchmark_group(p.id);
        g.sample_size(30);
        let mut i = 0;
        g.bench_function("route", |b| {
            b.iter(|| {
                i += 1;
                black_box(route(route_req(&p, i)))
            })
        });
        g.bench_function("route details=full", |b| {
            b.iter(|| {
                i += 1;
                black_box(route(RouteRequest {
                    details: DetailsLevel::Full,
                    ..route_req(&p, i)
                }))
            })
        });
        g.bench_function("route alternatives=true", |b| {
            b.iter(|| {
                i += 1;
                black_box(route(RouteRequest {
                    alternatives: true,
                    ..route_req(&p, i)
                }))
            })
        });
        g.bench_function("matrix 100x100", |b| b.iter(|| matrix(0)));
        g.bench_function("isochrone driving 30 min", |b| {
            b.iter(|| {
                i += 1;
                black_box(iso(i, TravelMode::Driving, 30.0))
            })
        });
        g.bench_function("isochrone walking 10 min", |b| {
            b.iter(|| {
                i += 1;
                black_box(iso(i, TravelMode::Walking, 10.0))
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
