//! Waymark's half of the side-by-side comparison with a peer engine (`tests/peers/valhalla.sh`).
//!
//! `waymark-peer ID OUT.json [--pairs N] [--isochrones N] [--seed S]` builds sample pack `ID`
//! (roads and routing graphs), picks random points on its car roads (seeded), and times
//! through the `Engine`, call by call, answers serialised to JSON as a client gets them:
//! - `route` and `route_steps`: driving routes between consecutive point pairs, without and
//!   with steps (`details=full`);
//! - `route_walking` and `route_cycling`: walking and cycling routes between the same pairs
//!   (without steps);
//! - `matrix`: one 100×100 driving matrix (first 100 points to the next 100);
//! - `isochrone driving 30 min` and `isochrone walking 10 min` from the first points.
//!
//! It writes the points, every answer that the peer is compared on (route lengths, matrix
//! cells, isochrone rings as `[lat, lng]` lists) and the timings to `OUT.json`. The peer script
//! then asks the peer the same questions and prints ratios and agreement.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::Instant;

use serde_json::{Value, json};
use waymark_core::api::*;
use waymark_core::geo::decode_polyline;
use waymark_core::operation::Credentials;

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentiles(mut ms: Vec<f64>) -> Value {
    ms.sort_by(f64::total_cmp);
    let p = |q: f64| ms[((ms.len() as f64 - 1.0) * q).round() as usize];
    json!({"n": ms.len(), "p50_ms": p(0.5), "p95_ms": p(0.95), "mean_ms": ms.iter().sum::<f64>() / ms.len() as f64})
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: waymark-peer PACK_ID OUT.json [--pairs N] [--isochrones N] [--seed S]");
        std::process::exit(2);
    }
    let id = args[1].as_str();
    let out = std::path::PathBuf::from(&args[2]);
    let pairs: usize = arg(&args, "--pairs", 200);
    let isochrones: usize = arg(&args, "--isochrones", 20);
    let seed: u64 = arg(&args, "--seed", 42);

    let tmp = tempfile::tempdir().unwrap();
    let plan = waymark_tests::routing_plan(id);
    let (engine, publisher) = waymark_tests::engine_with_pack(&plan, tmp.path());
    let caller = waymark_tests::private_caller(&publisher);
    let creds = Credentials::Http(&caller);
    let db =
        rusqlite::Connection::open(tmp.path().join(format!("built/{id}-1/data.sqlite"))).unwrap();
    let all = waymark_tests::car_road_points(&db);
    let mut rng = waymark_tests::Rng::new(seed);
    let n_points = (2 * pairs).max(200);
    let points: Vec<LatLng> = (0..n_points).map(|_| all[rng.below(all.len())]).collect();

    // Routes, without steps (`details=none`, the default) and with steps (`details=full`):
    // the peer is asked the same way (no maneuvers, then maneuvers with instructions).
    let mut route_cases = serde_json::Map::new();
    for (name, details, mode) in [
        ("route", DetailsLevel::None, TravelMode::Driving),
        ("route_steps", DetailsLevel::Full, TravelMode::Driving),
        ("route_walking", DetailsLevel::None, TravelMode::Walking),
        ("route_cycling", DetailsLevel::None, TravelMode::Cycling),
    ] {
        let mut route_ms = Vec::new();
        let mut routes = Vec::new();
        for i in 0..pairs {
            let req = RouteRequest {
                origin: points[2 * i],
                destination: points[2 * i + 1],
                details,
                mode,
                ..Default::default()
            };
            let t = Instant::now();
            let r = engine.call(&creds, req).unwrap();
            let body = serde_json::to_string(&r).unwrap();
            route_ms.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(body);
            let leg = r.routes.first().and_then(|x| x.legs.first());
            routes.push(json!({
                "status": r.status,
                "metres": leg.map(|l| l.distance.value),
                "seconds": leg.map(|l| l.duration.value),
            }));
        }
        route_cases.insert(
            name.to_string(),
            json!({"timing": percentiles(route_ms), "answers": routes}),
        );
    }

    // Matrix 100×100 (timed 5 times).
    let req = MatrixCreateRequest {
        origins: points[..100].to_vec(),
        destinations: points[100..200].to_vec(),
        mode: TravelMode::Driving,
    };
    let mut matrix_ms = Vec::new();
    let mut cells = Value::Null;
    for _ in 0..5 {
        let t = Instant::now();
        let m = engine
            .call_with(&creds, req.clone(), |e, call, r| {
                e.distance_matrix_now(call, r)
            })
            .unwrap();
        let body = serde_json::to_string(&m).unwrap();
        matrix_ms.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(body);
        cells = json!({"distances": m.distances, "travel_times": m.travel_times});
    }

    // Isochrones.
    let mut iso = serde_json::Map::new();
    for (name, mode, minutes) in [
        ("isochrone driving 30 min", TravelMode::Driving, 30.0),
        ("isochrone walking 10 min", TravelMode::Walking, 10.0),
    ] {
        let mut ms = Vec::new();
        let mut rings = Vec::new();
        for origin in points.iter().take(isochrones) {
            let req = IsochroneRequest {
                origin: *origin,
                value: minutes,
                mode,
                ..Default::default()
            };
            let t = Instant::now();
            let r = engine.call(&creds, req).unwrap();
            let body = serde_json::to_string(&r).unwrap();
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(body);
            let (geometry, holes) = match &r.isoline {
                Isoline::Time(t) => (t.geometry.clone(), t.holes.clone()),
                Isoline::Distance(d) => (d.geometry.clone(), d.holes.clone()),
            };
            let ring = |g: &str| -> Vec<[f64; 2]> {
                let mut pts = Vec::new();
                decode_polyline(g, 5, &mut pts).unwrap();
                pts.iter().map(|p| [p.lat, p.lng]).collect()
            };
            rings.push(json!({
                "status": r.status,
                "ring": ring(&geometry),
                "holes": holes.iter().map(|h| ring(h)).collect::<Vec<_>>(),
            }));
        }
        iso.insert(
            name.to_string(),
            json!({"timing": percentiles(ms), "answers": rings}),
        );
    }

    let result = json!({
        "pack": id,
        "seed": seed,
        "points": points.iter().map(|p| [p.lat, p.lng]).collect::<Vec<_>>(),
        "route": route_cases["route"],
        "route_steps": route_cases["route_steps"],
        "route_walking": route_cases["route_walking"],
        "route_cycling": route_cases["route_cycling"],
        "matrix": {"timing": percentiles(matrix_ms), "cells": cells},
        "isochrones": iso,
    });
    std::fs::write(&out, serde_json::to_vec(&result).unwrap()).unwrap();
    eprintln!("{id}: wrote {}", out.display());
}
