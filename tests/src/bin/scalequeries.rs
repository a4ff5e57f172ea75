//! `scalequeries --pack DIR [--pairs N] [--work DIR] [--cold] [--budget MB]`: the engine's
//! answers on one large built pack (a country-sized synthetic network, `docs/performance.md`,
//! "Pack build at scale"), through [`Engine::call`] as an app calls it. Signs the pack with a
//! new publisher, installs it into a new engine, then prints: the engine's resident memory after opening, the first
//! route (which opens the pack for routing), route p50 / p95 driving and walking between
//! random points of car roads, 30-minute driving isochrones, 100 × 100 driving matrices, and
//! the resident memory (current and peak; anonymous and file-backed) at the end.
//!
//! Each query layout file's sections are listed with the megabytes of each this process has
//! resident. With `--cold`, both graphs are opened first and then the layout files' cached
//! pages are dropped, so that only the pages the queries read become resident.
//!
//! Then it hands memory back as on a memory warning ([`waymark_core::Engine::release_memory`])
//! and prints the resident set before and after it and the same routes right after; and it
//! answers the routes (twice) and isochrones again as an engine given a resident-set ceiling of
//! `--budget MB` (default 250) does: after each call, the layouts are unmapped when the
//! resident set is over it (`waymark_core::routing::memory::hold_under`, which also drops the
//! layouts' cached pages the first time), printing the latencies (the checks and releases
//! included), the number of releases and the peak resident set of that phase.
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

/// Sections of a query layout file (`core/src/routing/flat.rs`): tag, offset and length. Only
/// the header and the section table are read (reading a whole layout would put hundreds of
/// megabytes in this process, over a memory limit it runs under).
fn layout_sections(path: &str) -> Vec<(String, u64, u64)> {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let mut head = [0u8; 56];
    if file.read_exact(&mut head).is_err() || head.get(..8) != Some(&b"WMLAYOUT"[..]) {
        return Vec::new();
    }
    let count = u32::from_ne_bytes([head[48], head[49], head[50], head[51]]) as usize;
    let mut table = vec![0u8; 32 * count.min(4096)];
    if file.read_exact(&mut table).is_err() {
        return Vec::new();
    }
    let word = |at: usize| -> u64 {
        let mut v = [0u8; 8];
        v.copy_from_slice(&table[at..at + 8]);
        u64::from_ne_bytes(v)
    };
    table
        .chunks_exact(32)
        .enumerate()
        .map(|(i, e)| {
            let tag = String::from_utf8_lossy(&e[..8])
                .trim_end_matches('\0')
                .to_string();
            (tag, word(32 * i + 16), word(32 * i + 24))
        })
        .collect()
}

/// For each mapped query layout file over 1 MB resident, the megabytes of each of its
/// sections this process has resident (present bits of `/proc/self/pagemap`).
fn layout_sections_mb() -> Vec<(String, String, f64)> {
    use std::io::{Read, Seek, SeekFrom};
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let Ok(mut pagemap) = std::fs::File::open("/proc/self/pagemap") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in maps.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() < 6 || !w[5].ends_with(".layout") {
            continue;
        }
        let (Some((lo, _)), Ok(offset)) = (w[0].split_once('-'), u64::from_str_radix(w[2], 16))
        else {
            continue;
        };
        let Ok(lo) = u64::from_str_radix(lo, 16) else {
            continue;
        };
        for (tag, off, len) in layout_sections(w[5]) {
            let (first, last) = ((off - offset) / 4096, (off - offset + len).div_ceil(4096));
            let mut buf = vec![0u8; 8 * (last - first) as usize];
            if pagemap
                .seek(SeekFrom::Start((lo / 4096 + first) * 8))
                .is_err()
                || pagemap.read_exact(&mut buf).is_err()
            {
                continue;
            }
            let present = buf.chunks_exact(8).filter(|c| c[7] & 0x80 != 0).count();
            let name = w[5].rsplit('/').next().unwrap_or("").to_string();
            out.push((name, tag, present as f64 * 4096.0 / 1e6));
        }
    }
    out.retain(|(_, _, mb)| *mb >= 0.5);
    out
}

/// With `--cold`: drops the cached pages of the pack's query layout files that no mapping holds
/// (`posix_fadvise(DONTNEED)`), as a device that evicted them would have, so that what the
/// queries that follow touch is what becomes resident.
fn drop_cached_layouts(work: &std::path::Path, cold: bool) {
    if !cold {
        return;
    }
    let mut stack = vec![work.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "layout") {
                use std::os::fd::AsRawFd;
                let f = std::fs::File::open(&path).unwrap();
                #[allow(unsafe_code)]
                // SAFETY: advice on an open descriptor; no memory is passed.
                unsafe {
                    libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
                }
            }
        }
    }
}

/// p50 and p95 of `times` (ms).
fn p50_p95(mut times: Vec<f64>) -> (f64, f64) {
    times.sort_by(f64::total_cmp);
    let p = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    (p(0.5), p(0.95))
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
    let cold = args.iter().any(|a| a == "--cold");
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
    let isochrone = |i: usize| {
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
            .unwrap()
    };
    let matrix = |i: usize| {
        let req = MatrixCreateRequest {
            origins: points[i * 10..i * 10 + 100].to_vec(),
            destinations: points[i * 10 + 100..i * 10 + 200].to_vec(),
            mode: TravelMode::Driving,
        };
        engine
            .call_with(&call, req, |e, call, r| e.distance_matrix_now(call, r))
            .unwrap()
    };
    let t = Instant::now();
    let first = route(0, TravelMode::Driving);
    if cold {
        // Both graphs open first, so that the dropped pages are those their opening read.
        black_box(route(0, TravelMode::Walking));
        drop_cached_layouts(&work, cold);
    }
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
        black_box(isochrone(i));
    });
    println!(
        "  resident: {:.0} MB anonymous, {:.0} MB of mapped files",
        status_mb("RssAnon:"),
        status_mb("RssFile:")
    );
    waymark_tests::time_percentiles("matrix 100x100 driving", 5, |i| {
        black_box(matrix(i));
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
    for (file, tag, mb) in layout_sections_mb() {
        println!("  {mb:7.1} MB resident of {file}, section {tag}");
    }

    // Memory handed back on request, as on a memory warning.
    let t = Instant::now();
    let released = engine.release_memory();
    println!(
        "release_memory: {:.1} ms, {} layouts ({:.0} MB mapped), {} buffers dropped; resident {:.0} MB ({:.0} MB anonymous, {:.0} MB of mapped files)",
        t.elapsed().as_secs_f64() * 1e3,
        released.mapped_files,
        released.mapped_bytes as f64 / 1e6,
        released.buffers,
        status_mb("VmRSS:"),
        status_mb("RssAnon:"),
        status_mb("RssFile:")
    );
    let times: Vec<f64> = (0..pairs)
        .map(|i| {
            let t = Instant::now();
            black_box(route(i, TravelMode::Driving));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let (p50, p95) = p50_p95(times);
    println!(
        "the same driving routes right after it: p50 {p50:.3} ms, p95 {p95:.3} ms; resident {:.0} MB",
        status_mb("VmRSS:")
    );

    // An engine with a resident-set ceiling: the layouts unmapped after a call over it.
    let budget: f64 = arg("--budget").map_or(250.0, |b| b.parse().unwrap());
    engine.release_memory();
    // Resets VmHWM, so that the peak printed below is this phase's.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let releases = std::cell::Cell::new(0u32);
    let under_budget = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        // What an engine given this ceiling does after each request (`resident_ceiling`).
        if waymark_core::routing::memory::hold_under((budget * 1e6) as u64).is_some() {
            releases.set(releases.get() + 1);
        }
        t.elapsed().as_secs_f64() * 1e3
    };
    for mode in [TravelMode::Driving, TravelMode::Walking] {
        // Twice: the second time, the pages the routes read are in the page cache.
        for pass in ["", ", again"] {
            let times: Vec<f64> = (0..pairs)
                .map(|i| under_budget(&mut || drop(black_box(route(i, mode)))))
                .collect();
            let (p50, p95) = p50_p95(times);
            println!(
                "within {budget:.0} MB, route {mode:?}{pass}: p50 {p50:.3} ms, p95 {p95:.3} ms; {} releases so far",
                releases.get()
            );
        }
    }
    for pass in ["", ", again"] {
        let times: Vec<f64> = (0..100)
            .map(|i| {
                under_budget(&mut || {
                    black_box(isochrone(i));
                })
            })
            .collect();
        let (p50, p95) = p50_p95(times);
        println!(
            "within {budget:.0} MB, isochrone driving 30 min{pass}: p50 {p50:.3} ms, p95 {p95:.3} ms; {} releases in all",
            releases.get()
        );
    }
    let times: Vec<f64> = (0..5)
        .map(|i| {
            under_budget(&mut || {
                black_box(matrix(i));
            })
        })
        .collect();
    let (p50, _) = p50_p95(times);
    println!(
        "within {budget:.0} MB, matrix 100x100 driving: p50 {p50:.3} ms; {} releases in all",
        releases.get()
    );
    let (rss, peak) = memory_mb();
    println!(
        "within {budget:.0} MB: resident at the end {rss:.0} MB, peak of the phase {peak:.0} MB ({:.0} MB anonymous now)",
        status_mb("RssAnon:")
    );
}
