//! Routing layer: the prepared contraction hierarchies of every profile in the time metric,
//! built from the roads layer of `data.sqlite` into `routing/<profile>-time.fp` (format in
//! `waymark_core::routing::ch`, encoded by `waymark_core::routing::compact`, ADR 0005). The
//! turn-expanded graph is derived by the same code the readers use, so a prepared file always
//! matches the roads of its pack; each file records the signature of the graph it was
//! prepared from, and is checked to decode to exactly the hierarchy prepared.
//!
//! Every hierarchy is prepared from scratch, each profile its own job, the largest graphs
//! first, on two threads. Graphs of up to [`ND_FROM_ARCS`] arcs are contracted by `fast_paths`
//! (witness searches, the fastest queries); larger ones are prepared in a nested-dissection
//! order (`waymark_core::routing::cch`, ADR 0007), whose cost grows close to linearly where the
//! contraction's grows with the square of the network. [`Preparation`] overrides the choice. The distance metric has no hierarchy (ADR 0006): it is rarely asked
//! (`method=distance` routes), its hierarchies doubled the layer and the build, and a search
//! directed towards the target answers it on the turn graph.
use std::path::Path;
use std::time::Instant;

use rusqlite::Connection;
use serde::Serialize;
use waymark_core::routing::ch;
use waymark_core::routing::prepare::{PreparationKind, Prepared, prepare_file};
use waymark_core::routing::{Metric, Profile, RoadNetwork, TurnGraph};

use crate::error::{BuildError, io};

/// Turn graphs with more arcs than this are prepared in a nested-dissection order. The sample
/// packs have 2–32 k arcs per graph; the 476 k-node synthetic city has 115–132 k and took
/// `fast_paths` 1.7–22 minutes per graph (`docs/performance.md`).
pub use waymark_core::routing::cch::ND_FROM_ARCS;

/// How the hierarchies are prepared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Preparation {
    /// Contraction up to [`ND_FROM_ARCS`] arcs, nested dissection above.
    #[default]
    Auto,
    /// `fast_paths`' contraction with witness searches, whatever the size.
    Contraction,
    /// Nested dissection, whatever the size.
    NestedDissection,
}

impl Preparation {
    /// Whether a graph of `arcs` arcs is prepared in a nested-dissection order.
    pub fn nested_dissection(self, arcs: usize) -> bool {
        match self {
            Preparation::Auto => arcs > ND_FROM_ARCS,
            Preparation::Contraction => false,
            Preparation::NestedDissection => true,
        }
    }
}

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
    /// `contraction` or `nested-dissection`.
    pub preparation: &'static str,
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

/// Prepares the hierarchy of `g` in `metric` and writes its file.
fn prepare_graph(
    g: &TurnGraph,
    net: &RoadNetwork,
    metric: Metric,
    how: Preparation,
    dir: &Path,
) -> Result<GraphStats, BuildError> {
    let started = Instant::now();
    let nd = how.nested_dissection(g.arc_count());
    let kind = if nd {
        PreparationKind::NestedDissection
    } else {
        PreparationKind::Contraction
    };
    let Prepared { bytes, ch_edges } =
        prepare_file(g, net, metric, kind).map_err(|e| BuildError::Invalid(e.to_string()))?;
    let prepare_ms = started.elapsed().as_millis() as u64;
    let rel = ch::file_name(g.profile, metric);
    let path = dir.join(&rel);
    std::fs::write(&path, &bytes).map_err(|e| io(&path, e))?;
    Ok(GraphStats {
        file: rel,
        arcs: g.arc_count(),
        transitions: g.transition_count(),
        ch_edges,
        preparation: kind.name(),
        prepare_ms,
        bytes: bytes.len() as u64,
    })
}

/// Prepares the time-metric hierarchy of every profile of the roads in `conn` into
/// `<pack_dir>/routing/`.
pub fn build(
    pack_dir: &Path,
    conn: &Connection,
    how: Preparation,
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
    // One job per profile (time metric only: distance-metric paths are searched on the turn
    // graph at query time, ADR 0006), the largest graphs first (by the edges each profile may
    // use), on two workers (the machine's cores). A worker builds its job's turn graph and drops
    // it with the job, so that two graphs, not four, are in memory beside the preparations.
    let mut profiles: Vec<(Profile, usize)> = Profile::ALL
        .iter()
        .map(|&p| (p, net.edges.iter().filter(|e| e.allows(p)).count()))
        .collect();
    profiles.sort_by_key(|&(_, edges)| std::cmp::Reverse(edges));
    let jobs: Vec<(Profile, Metric)> = profiles.iter().map(|&(p, _)| (p, Metric::Time)).collect();
    let total = jobs.len() as u64;
    progress("routing", 0, total);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Result<GraphStats, BuildError>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(&(profile, metric)) = jobs.get(i) else {
                            break;
                        };
                        let g = TurnGraph::build(&net, profile);
                        mine.push(prepare_graph(&g, &net, metric, how, pack_dir));
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
        graphs.push(r?);
    }
    graphs.sort_by(|a, b| a.file.cmp(&b.file));
    progress("routing", total, total);
    Ok(RoutingStats {
        graphs,
        total_ms: started.elapsed().as_millis() as u64,
        tolls,
    })
}
