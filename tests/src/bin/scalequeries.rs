//! `scalequeries --pack DIR [--pairs N] [--work DIR]`: the engine's answers on one large built
//! pack (a country-sized synthetic network, `docs/performance.md`, "Pack build at scale"),
//! through [`Engine::call`] as an app calls it. Signs the pack with a new publisher, installs
//! it into a new engine, then prints: the engine's resident memory after opening, the first
//! route (which opens the pack for routing), route p50 / p95 driving and walking between
//! random points of car roads, 30-minute driving isochrones, 100 × 100 driving matrices, and
//! the resident memory (current and peak; anonymous and file-backed) at the end.
//!
//! With `--work DIR` the engine's state, its installed pack and the publisher are kept in
//! `DIR`: a second run opens the pack as an app opens it again (the query layouts of its
//! hierarchies already written, `core/src/routing/layout.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use waymark_core::api::{IsochroneRequest, LatLng, MatrixCreateRequest, RouteRequest, TravelMode};
use waymark_core::auth::keys::Publisher;
use waymark_core::operation::Credentials;

/// A field of this process's `/proc/self/status`, MB.
fn status_mb(name: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The resident megabytes of each file this process maps, the largest first (from
/// `/proc/self/smaps`), for those over 1 MB.
fn mapped_files_mb() -> Vec<(String, f64)> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let mut out: Vec<(String, f64)> = Vec::new();
    let mut file = String::new();
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        if first.contains('-') && !first.ends_with(':') {
            // A mapping's first line: range, perms, offset, dev, inode, path.
            file = words.nth(4).unwrap_or("").to_string();
        } else if first == "Rss:" && file.starts_with('/') {
            let kb: f64 = words.next().and_then(|v| v.parse().ok()).unwrap_or(0.0);
            match out.iter_mut().find(|(f, _)| *f == file) {
                Some(e) => e.1 += kb / 1024.0,
                None => out.push((file.clone(), kb / 1024.0)),
            }
        }
    }
    out.retain(|(_, mb)| *mb >= 1.0);
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// `VmRSS` and `VmHWM` of this process, MB.
fn memory_mb() -> (f64, f64) {
    (status_mb("VmRSS:"), status_mb("VmHWM:"))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str| waymark_tests::arg_value(&args, name);
    let built = PathBuf::from(arg("--pack").expect("--pack DIR (a built pack)"));
    let pairs: usize = arg("--pairs").map_or(500, |n| n.parse().unwrap());
    let temp = tempfile::tempdir().unwrap();
    let work = arg("--work").map_or_else(|| temp.path().to_path_buf(), PathBuf::from);
    std::fs::create_dir_all(&work).unwrap();
    let key_file = work.join("publisher.json");
    let again = key_file.is_file();
    let publisher = if again {
        Publisher::read_file(&key_file).unwrap()
    } else {
        let p = Publisher::generate().unwrap();
        p.write_file(&key_file).unwrap();
        waymark_packs::build::sign_pack(&built, &p).unwrap();
        p
    };
    let engine = waymark_tests::open_engine(&work.join("state"), &work.join("packs"), &publisher);
    if again {
        println!("the pack installed by an earlier run is opened again");
    } else {
        waymark_tests::install(&engine, &built);
    }
    let (rss, _) = memory_mb();
    println!("engine with the pack installed and open: {rss:.0} MB resident");
    let caller = waymark_tests::private_caller(&publisher);
    let call = Credentials::Http(&caller);

    let db = rusqlite::Connection::open(built.join("data.sqlite")).unwrap();
    let all = waymark_tests::car_road_points(&db);
    let mut rng = waymark_tests::Rng::new(42);
    // Routes take pairs of points; the matrices take up to point 240.
    let points: Vec<LatLng> = (0..(2 * pairs).max(250))
        .map(|_| all[rng.below(all.len())])
        .collect();
    drop(all);
    drop(db);

    let route = |i: usize, mode: TravelMode| {
        engine
            .call(
                &call,
                RouteRequest {
                    origin: points[2 * i],
                    destination: points[2 * i + 1],
                    mode,
                    ..Default::default()
                },
            )
            .unwrap()
    };
    let t = Instant::now();
    let first = route(0, TravelMode::Driving);
    println!(
        "first route (opens the pack for routing): {:.0} ms, {} route(s)",
        t.elapsed().as_secs_f64() * 1e3,
        first.routes.len()
    );
    println!(
        "resident after it: {:.0} MB ({:.0} MB anonymous, {:.0} MB of mapped files)",
        status_mb("VmRSS:"),
        status_mb("RssAnon:"),
        status_mb("RssFile:")
    );
    for mode in [TravelMode::Driving, TravelMode::Walking] {
        let t = Instant::now();
        black_box(route(1, mode));
        if mode == TravelMode::Walking {
            println!(
                "first walking route (its graph and hierarchy): {:.0} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        waymark_tests::time_percentiles(&format!("route {mode:?}"), pairs, |i| {
            black_box(route(i, mode));
        });
        // The same routes again: every page they read is now mapped in this process.
        waymark_tests::time_percentiles(&format!("route {mode:?}, again"), pairs, |i| {
            black_box(route(i, mode));
        });
        println!(
            "  resident: {:.0} MB anonymous, {:.0} MB of mapped files",
            status_mb("RssAnon:"),
            status_mb("RssFile:")
        );
    }
    waymark_tests::time_percentiles("isochrone driving 30 min", 100, |i| {
        black_box(
            engine
                .call(
                    &call,
                    IsochroneRequest {
                        origin: points[i],
                        value: 30.0,
                        mode: TravelMode::Driving,
                        ..Default::default()
                    },
                )
                .unwrap(),
        );
    });
    println!(
        "  resident: {:.0} MB anonymous, {:.0} MB of mapped files",
        status_mb("RssAnon:"),
        status_mb("RssFile:")
    );
    waymark_tests::time_percentiles("matrix 100x100 driving", 5, |i| {
        let req = MatrixCreateRequest {
            origins: points[i * 10..i * 10 + 100].to_vec(),
            destinations: points[i * 10 + 100..i * 10 + 200].to_vec(),
            mode: TravelMode::Driving,
        };
        black_box(
            engine
                .call_with(&call, req, |e, call, r| e.distance_matrix_now(call, r))
                .unwrap(),
        );
    });
    let (rss, peak) = memory_mb();
    println!(
        "resident at the end: {rss:.0} MB (peak {peak:.0} MB): {:.0} MB anonymous, {:.0} MB of mapped files",
        status_mb("RssAnon:"),
        status_mb("RssFile:")
    );
    for (file, mb) in mapped_files_mb() {
        println!("  {mb:7.1} MB resident of {file}");
    }
}
