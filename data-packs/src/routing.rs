//! Routing layer: the prepared contraction hierarchies of every profile and metric, built
//! from the roads layer of `data.sqlite` into `routing/<profile>-<metric>.fp` (format in
//! `waymark_core::routing::ch`, encoded by `waymark_core::routing::compact`, ADR 0005). The
//! turn-expanded graph is derived by the same code the readers use, so a prepared file always
//! matches the roads of its pack; each file records the signature of the graph it was
//! prepared from, and is checked to decode to exactly the hierarchy prepared.
//!
//! The time hierarchy of a profile is contracted from scratch; the distance hierarchy reuses
//! its node order (`fast_paths::prepare_with_order`), which is several times faster, unless
//! that order yields 1.5× the shortcuts (then it is contracted anew). Profiles are prepared on
//! two threads.
use std::path::Path;
use std::time::Instant;

use fast_paths::FastGraph;
use rusqlite::Connection;
use serde::Serialize;
use waymark_core::routing::ch::{self, PreparedFile};
use waymark_core::routing::{Metric, Profile, RoadNetwork, TurnGraph};

use crate::error::{BuildError, io};

/// Figures of one prepared graph.
#[derive(Debug, Clone, Serialize)]
pub struct GraphStats {
    /// `routing/<profile>-<metric>.fp`.
    pub file: String,
    /// Arcs (nodes of the turn-expanded graph).
    pub arcs: usize,
    /// Transitions (edges of the turn-expanded graph).
    pub transitions: usize,
    /// Edges of the hierarchy (original and shortcuts, both directions).
    pub ch_edges: usize,
    /// Preparation time, ms.
    pub prepare_ms: u64,
    /// File size, bytes.
    pub bytes: u64,
}

/// Figures of the routing layer.
#[derive(Debug, Clone, Serialize)]
pub struct RoutingStats {
    /// Per graph.
    pub graphs: Vec<GraphStats>,
    /// Wall time of the whole layer, ms.
    pub total_ms: u64,
    /// Toll systems and (made-up) fares written.
    pub tolls: crate::tolls::TollStats,
}

fn prepare_profile(
    net: &RoadNetwork,
    profile: Profile,
    dir: &Path,
) -> Result<Vec<GraphStats>, BuildError> {
    let g = TurnGraph::build(net, profile);
    let mut out = Vec::new();
    let mut order: Option<Vec<usize>> = None;
    for metric in Metric::ALL {
        let started = Instant::now();
        let mut fast: FastGraph = ch::prepare(&g, metric, order.as_deref());
        let edges = |f: &FastGraph| f.get_num_out_edges() + f.get_num_in_edges();
        // A borrowed order can be poor (cycling: the fastest and the shortest ways differ
        // most); when it yields 1.5× the shortcuts of the first hierarchy, contract anew.
        if let Some(first) = out.first().map(|s: &GraphStats| s.ch_edges)
            && edges(&fast) * 2 > first * 3
        {
            fast = ch::prepare(&g, metric, None);
        }
        let prepare_ms = started.elapsed().as_millis() as u64;
        if order.is_none() {
            order = Some(fast_paths::get_node_ordering(&fast));
        }
        let ch_edges = edges(&fast);
        let bytes = PreparedFile::new(&g, metric, &fast)
            .and_then(|f| f.to_bytes())
            .map_err(|e| BuildError::Invalid(e.to_string()))?;
        let rel = ch::file_name(profile, metric);
        let path = dir.join(&rel);
        std::fs::write(&path, &bytes).map_err(|e| io(&path, e))?;
        out.push(GraphStats {
            file: rel,
            arcs: g.arc_count(),
            transitions: g.transition_count(),
            ch_edges,
            prepare_ms,
            bytes: bytes.len() as u64,
        });
    }
    Ok(out)
}

/// Prepares every profile × metric of the roads in `conn` into `<pack_dir>/routing/`.
pub fn build(
    pack_dir: &Path,
    conn: &Connection,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<RoutingStats, BuildError> {
    let started = Instant::now();
    let net = RoadNetwork::load(conn).map_err(|e| BuildError::Invalid(e.to_string()))?;
    let tolls = crate::tolls::build(conn, &net)?;
    let dir = pack_dir.join("routing");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|e| io(&dir, e))?;
    }
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let total = Profile::ALL.len() as u64;
    progress("routing", 0, total);
    // Two workers (the machine's cores), each taking the next profile.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Result<Vec<GraphStats>, BuildError>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(&profile) = Profile::ALL.get(i) else {
                            break;
                        };
                        mine.push(prepare_profile(&net, profile, pack_dir));
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| {
                w.join().unwrap_or_else(|_| {
                    vec![Err(BuildError::Invalid(
                        "a routing preparation thread failed".into(),
                    ))]
                })
            })
            .collect()
    });
    let mut graphs = Vec::new();
    for r in results {
        graphs.extend(r?);
    }
    graphs.sort_by(|a, b| a.file.cmp(&b.file));
    progress("routing", total, total);
    Ok(RoutingStats {
        graphs,
        total_ms: started.elapsed().as_millis() as u64,
        tolls,
    })
}
