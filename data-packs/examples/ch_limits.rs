//! Times the contraction of one pack's turn graphs under given witness-search limits (build
//! cost): `cargo run --release -p waymark-packs --example ch_limits -- PACK_DIR
//! PROFILE[,PROFILE..] [INITIAL NEIGHBOR CONTRACTION WITH_ORDER] [fresh]` (`METRICS=time` or
//! `distance` for one metric). Prints, per profile and
//! metric, the arcs, transitions, hierarchy edges and preparation time; the distance metric
//! reuses the time metric's order as the builder does.
use std::path::PathBuf;
use std::time::Instant;

use waymark_core::routing::ch::{self, PrepareLimits};
use waymark_core::routing::{Metric, Profile, RoadNetwork, TurnGraph};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, profiles, rest @ ..] = args.as_slice() else {
        return Err(
            "usage: ch_limits PACK_DIR PROFILES [INITIAL NEIGHBOR CONTRACTION WITH_ORDER]".into(),
        );
    };
    let mut limits = PrepareLimits::BUILD;
    // `fresh` as the last argument: the distance metric is contracted anew, not in the time
    // metric's order.
    let fresh = rest.last().is_some_and(|a| a == "fresh");
    let rest = &rest[..rest.len() - usize::from(fresh)];
    let metrics: Vec<Metric> = match std::env::var("METRICS").ok().as_deref() {
        Some("distance") => vec![Metric::Distance],
        Some("time") => vec![Metric::Time],
        _ => Metric::ALL.to_vec(),
    };
    let nums: Vec<usize> = rest.iter().map(|a| a.parse()).collect::<Result<_, _>>()?;
    if let [a, b, c, d] = nums.as_slice() {
        limits = PrepareLimits {
            initial_relevance: *a,
            neighbor_relevance: *b,
            contraction: *c,
            contraction_with_order: *d,
        };
    }
    let conn = rusqlite::Connection::open(PathBuf::from(dir).join("data.sqlite"))?;
    let net = RoadNetwork::load(&conn)?;
    println!("{limits:?}");
    for name in profiles.split(',') {
        let profile = Profile::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or("unknown profile")?;
        let g = TurnGraph::build(&net, profile);
        let mut order: Option<Vec<usize>> = None;
        for &metric in &metrics {
            let started = Instant::now();
            let fast = ch::prepare_with_limits(&g, metric, order.as_deref(), &limits);
            let ms = started.elapsed().as_millis();
            let edges = fast.get_num_out_edges() + fast.get_num_in_edges();
            let bytes = ch::PreparedFile::new(&g, metric, &fast)?.to_bytes()?.len();
            println!(
                "{}-{}\tarcs {}\ttransitions {}\tch_edges {}\tbytes {}\tms {}",
                profile.name(),
                metric.name(),
                g.arc_count(),
                g.transition_count(),
                edges,
                bytes,
                ms
            );
            if order.is_none() && !fresh {
                order = Some(fast_paths::get_node_ordering(&fast));
            }
        }
    }
    Ok(())
}
