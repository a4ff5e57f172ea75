//! `coldstart --server PATH --work DIR --built DIR [--runs N]`: cold start and memory of the two
//! faces with many packs installed. Installs every signed pack directory under
//! `--built` (for example all the sample packs of `waymark-packs build --pack all --publisher
//! F`, signed by the publisher file `DIR/publisher.json`) into `DIR/packs` once, reads every
//! pack file once (a warm file cache), then `--runs` times: starts `waymark serve` and measures
//! the time from the process start to its first 200 answer (`GET /geolocation/timezone`) and
//! its RSS then; and opens the native SDK (`waymark_ffi::Waymark::open` plus one timezone call)
//! in a fresh child process, measuring the same. After the server's first answer it also asks
//! a position, an autocomplete and a route, and prints when each answered since the start.
//! Prints each run and the medians.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use waymark_core::api::{LatLng, TimezoneRequest};
use waymark_core::auth::AppIdentity;
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_core::{Engine, EngineConfig};
use waymark_tests::soak::{Conn, Server, rss_kib};

fn key(p: &Publisher) -> String {
    p.issue(&KeyClaims::new(KeyScope::Private {
        write: false,
        restriction: PrivateRestriction::None,
    }))
    .unwrap()
}

fn read_all(dir: &Path) -> u64 {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            n += read_all(&e.path());
        } else {
            n += std::fs::read(e.path()).map(|b| b.len() as u64).unwrap_or(0);
        }
    }
    n
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The child process: open the native SDK, answer one call, print `ms rss_kib`.
fn ffi_once(work: &Path) {
    let publisher = Publisher::read_file(&work.join("publisher.json")).unwrap();
    let state = work.join(format!("state-ffi-{}", std::process::id()));
    let started = Instant::now();
    let waymark = waymark_ffi::Waymark::open(waymark_ffi::WaymarkConfig {
        packs_dir: work.join("packs").display().to_string(),
        state_dir: state.display().to_string(),
        key: key(&publisher),
        trusted_publishers: vec![publisher.verifying().encode()],
        app: AppIdentity::default(),
        default_language: None,
        rate_limits: false,
        resident_ceiling_mb: None,
    })
    .unwrap();
    waymark
        .geolocation_timezone(TimezoneRequest {
            location: LatLng {
                lat: 42.5,
                lng: 1.5,
            },
            ..Default::default()
        })
        .unwrap();
    let ms = started.elapsed().as_secs_f64() * 1e3;
    println!("{ms:.1} {}", rss_kib(std::process::id()));
    let _ = std::fs::remove_dir_all(state);
}

/// Calls made after the first timezone answer, in order: `(name, path)`.
const FIRST_CALLS: [(&str, &str); 3] = [
    ("position", "/geolocation/position?ip_address=8.8.8.8"),
    ("autocomplete", "/localities/autocomplete?input=Andorra"),
    (
        "route",
        "/distance/route/json?origin=42.5078,1.5211&destination=42.5346,1.5806",
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str| waymark_tests::arg_value(&args, name);
    let work = PathBuf::from(arg("--work").expect("--work DIR"));
    if args.iter().any(|a| a == "--ffi-once") {
        ffi_once(&work);
        return;
    }
    let server_bin = PathBuf::from(arg("--server").expect("--server PATH"));
    let runs: usize = arg("--runs").map_or(5, |r| r.parse().unwrap());
    let packs = work.join("packs");
    let publisher = Publisher::read_file(&work.join("publisher.json")).unwrap();
    if !packs.exists() {
        let built = PathBuf::from(arg("--built").expect("--built DIR"));
        let mut config =
            EngineConfig::new(&work.join("state-install"), vec![publisher.verifying()]);
        config.packs_dir = Some(packs.clone());
        let engine = Engine::open(config).unwrap();
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&built)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("manifest.json").is_file())
            .collect();
        dirs.sort();
        for dir in dirs {
            let url = format!("file://{}", dir.canonicalize().unwrap().display());
            engine.install_pack(&url, &mut |_| {}).unwrap();
            println!("installed {}", dir.display());
        }
    }
    let bytes = read_all(&packs);
    println!(
        "packs: {} MB read once (warm file cache)",
        bytes / 1_000_000
    );
    let trust = publisher.verifying().encode();
    let key = key(&publisher);
    let (mut serve_ms, mut serve_rss, mut ffi_ms, mut ffi_rss) = (vec![], vec![], vec![], vec![]);
    for run in 0..runs {
        let state = work.join(format!("state-serve-{run}"));
        let _ = std::fs::remove_dir_all(&state);
        let started = Instant::now();
        let server = Server::start(&server_bin, &state, &packs, &trust);
        let mut conn = Conn::new(server.addr);
        loop {
            match conn.send("GET", "/geolocation/timezone?location=42.5,1.5", &key, "") {
                Some((200, _)) => break,
                Some((status, body)) => panic!("{status}: {body}"),
                None => std::thread::sleep(Duration::from_millis(1)),
            }
        }
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let rss = server.rss_kib();
        // Then the first answer of other groups, each from the same start: what a hybrid app
        // asking a position, a search and a route right after launch waits for.
        let mut later = Vec::new();
        for (name, path) in FIRST_CALLS {
            match conn.send("GET", path, &key, "") {
                // 404: no position known for the address is an answer too.
                Some((200 | 404, _)) => {}
                Some((status, body)) => panic!("{path}: {status}: {body}"),
                None => panic!("{path}: no answer"),
            }
            later.push(format!(
                "{name} {:.0} ms",
                started.elapsed().as_secs_f64() * 1e3
            ));
        }
        drop(server);
        let _ = std::fs::remove_dir_all(&state);
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--ffi-once", "--work"])
            .arg(&work)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let mut it = text.split_whitespace();
        let (fms, frss): (f64, u64) = (
            it.next().unwrap().parse().unwrap(),
            it.next().unwrap().parse().unwrap(),
        );
        println!(
            "run {run}: serve first answer {ms:.1} ms, rss {:.1} MiB (then, since start: {}); ffi open + first call {fms:.1} ms, rss {:.1} MiB",
            rss as f64 / 1024.0,
            later.join(", "),
            frss as f64 / 1024.0
        );
        serve_ms.push(ms);
        serve_rss.push(rss as f64 / 1024.0);
        ffi_ms.push(fms);
        ffi_rss.push(frss as f64 / 1024.0);
    }
    println!(
        "median: serve {:.1} ms, {:.1} MiB; ffi {:.1} ms, {:.1} MiB",
        median(serve_ms),
        median(serve_rss),
        median(ffi_ms),
        median(ffi_rss)
    );
}
