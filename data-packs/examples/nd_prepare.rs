//! Compares the two preparations of a pack's routing hierarchies (scale; ADR 0007):
//! `cargo run --release -p waymark-packs --example nd_prepare -- PACK_DIR PROFILE[,PROFILE..]
//! [nd|both]`. Per profile (time metric): arcs, the nested-dissection preparation's time,
//! chordal and kept edges, file bytes, and point-to-point query times over 2,000 random arc
//! pairs (thread CPU time, so that other work on the machine does not count); with `both`, the same for `fast_paths`' contraction, and a check that the two agree
//! on every pair.
use std::path::PathBuf;
use std::time::Instant;

use waymark_core::routing::ch::{self, ChGraph};
use waymark_core::routing::{Metric, Profile, RoadNetwork, TurnGraph, cch};

/// CPU time of this thread, µs: on a machine shared with other work, the time a query
/// computed, without the time it waited for a core.
fn thread_cpu_us() -> f64 {
    cpu_time::ThreadTime::now().as_duration().as_secs_f64() * 1e6
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p) as usize]
}

/// p50 and p95 query times (µs) and the answers.
fn queries(ch: &ChGraph, pairs: &[(u32, u32)], walk: bool) -> (f64, f64, Vec<Option<u64>>) {
    let mut times = Vec::with_capacity(pairs.len());
    let mut answers = Vec::with_capacity(pairs.len());
    for &(s, t) in pairs {
        let started = thread_cpu_us();
        let found = ch.point_to_point(&[(s, 0)], &[(t, 0)], walk);
        times.push(thread_cpu_us() - started);
        answers.push(found.map(|f| f.0));
    }
    times.sort_by(f64::total_cmp);
    (percentile(&times, 0.5), percentile(&times, 0.95), answers)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, profiles, rest @ ..] = args.as_slice() else {
        return Err("usage: nd_prepare PACK_DIR PROFILES [nd|both]".into());
    };
    let both = rest.first().is_some_and(|a| a == "both");
    let conn = rusqlite::Connection::open(PathBuf::from(dir).join("data.sqlite"))?;
    let net = RoadNetwork::load(&conn)?;
    let metric = Metric::Time;
    for name in profiles.split(',') {
        let profile = Profile::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or("unknown profile")?;
        let g = TurnGraph::build(&net, profile);
        let n = g.arc_count() as u64;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let pairs: Vec<(u32, u32)> = (0..2000)
            .map(|_| ((next() % n) as u32, (next() % n) as u32))
            .collect();
        let started = Instant::now();
        let ends = cch::arc_ends(&g, &net);
        let (up, stats) = cch::prepare(&g, metric, &ends)?;
        let ms = started.elapsed().as_millis();
        let bytes = ch::PreparedFile::from_up(&g, metric, &up)?
            .to_bytes()?
            .len();
        let nd = ChGraph::from_up(up, &g, metric);
        let nd = nd.walking(true);
        let points = |k: usize| -> Vec<Vec<(u32, u64, u64)>> {
            pairs[k..k + 100]
                .iter()
                .map(|&(s, _)| vec![(s, 0, 0)])
                .collect()
        };
        let (from, to) = (points(0), points(100));
        let mut matrix_ms = Vec::new();
        for _ in 0..5 {
            let started = thread_cpu_us();
            let m = nd.many_to_many(&from, &to);
            matrix_ms.push((thread_cpu_us() - started) / 1e3);
            assert_eq!(m.len(), 100);
        }
        matrix_ms.sort_by(f64::total_cmp);
        println!(
            "{}-time nd matrix 100x100\tmedian of 5 {:.1} ms",
            profile.name(),
            matrix_ms[2]
        );
        let (p50, p95, nd_answers) = queries(&nd, &pairs, false);
        let (w50, w95, walk_answers) = queries(&nd, &pairs, true);
        let walk_differ = nd_answers
            .iter()
            .zip(&walk_answers)
            .filter(|(a, b)| a != b)
            .count();
        println!(
            "{}-time nd walk\twalk cost {:.0}\tquery p50 {:.1} µs p95 {:.1} µs\tanswers differing {}",
            profile.name(),
            nd.walk_cost(),
            w50,
            w95,
            walk_differ
        );
        println!(
            "{}-time nd\tarcs {}\ttransitions {}\tchordal {}\ttop {}\tkept {}\tbytes {}\tms {}\tquery p50 {:.1} µs p95 {:.1} µs\tphases ms {:?}",
            profile.name(),
            g.arc_count(),
            g.transition_count(),
            stats.chordal_edges,
            stats.max_upper_degree,
            stats.kept,
            bytes,
            ms,
            p50,
            p95,
            stats.ms
        );
        if both {
            let started = Instant::now();
            let fast = ch::prepare(&g, metric, None);
            let ms = started.elapsed().as_millis();
            let edges = fast.get_num_out_edges() + fast.get_num_in_edges();
            let bytes = ch::PreparedFile::new(&g, metric, &fast)?.to_bytes()?.len();
            let fp = ChGraph::from_fast(fast, &g, metric);
            let (p50, p95, fp_answers) = queries(&fp, &pairs, false);
            let (w50, w95, _) = queries(&fp, &pairs, true);
            println!(
                "{}-time ch walk\twalk cost {:.0}\tquery p50 {:.1} µs p95 {:.1} µs",
                profile.name(),
                fp.walk_cost(),
                w50,
                w95
            );
            let differ = nd_answers
                .iter()
                .zip(&fp_answers)
                .filter(|(a, b)| a != b)
                .count();
            println!(
                "{}-time ch\tedges {}\tbytes {}\tms {}\tquery p50 {:.1} µs p95 {:.1} µs\tanswers differing {}",
                profile.name(),
                edges,
                bytes,
                ms,
                p50,
                p95,
                differ
            );
        }
    }
    Ok(())
}
