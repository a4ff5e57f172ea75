//! `soak --server PATH --work DIR [--duration SECS] [--clients N] [--max-rss-growth PCT]`: the
//! soak test (see `waymark_tests::soak`); `localserver/benches/soak.sh` runs it
//! against the release server. Prints the report; exits 1 when an answer had a status its
//! request does not allow, a pack install or matrix job failed, or (with `--max-rss-growth`)
//! the resident memory grew more than PCT percent after warm-up.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let mut server = None;
    let mut work = None;
    let mut duration = 30u64;
    let mut clients = 4usize;
    let mut max_growth: Option<f64> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next();
        match (a.as_str(), v) {
            ("--server", Some(v)) => server = Some(PathBuf::from(v)),
            ("--work", Some(v)) => work = Some(PathBuf::from(v)),
            ("--duration", Some(v)) => duration = v.parse().expect("--duration SECS"),
            ("--clients", Some(v)) => clients = v.parse().expect("--clients N"),
            ("--max-rss-growth", Some(v)) => {
                max_growth = Some(v.parse().expect("--max-rss-growth PCT"))
            }
            _ => {
                eprintln!(
                    "usage: soak --server PATH --work DIR [--duration SECS] [--clients N] [--max-rss-growth PCT]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let (Some(server), Some(work)) = (server, work) else {
        eprintln!("soak: --server and --work are required");
        return ExitCode::from(2);
    };
    let config = waymark_tests::soak::Config {
        server,
        work,
        duration: Duration::from_secs(duration),
        clients,
    };
    let report = waymark_tests::soak::run(&config);
    print!("{}", report.text());
    let mut ok = report.error_count() == 0
        && report.install_failures.is_empty()
        && report.installs_done == 3
        && report.matrix_failures.is_empty()
        && report.matrix_done > 0;
    if let Some(max) = max_growth
        && report.rss_growth_pct() > max
    {
        println!(
            "FAIL: rss grew {:.2}% after warm-up (limit {max}%)",
            report.rss_growth_pct()
        );
        ok = false;
    }
    if ok {
        println!("soak: PASS");
        ExitCode::SUCCESS
    } else {
        println!("soak: FAIL");
        ExitCode::FAILURE
    }
}
