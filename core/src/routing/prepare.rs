//! Preparing a stored hierarchy (`routing/<profile>-time.fp`) from the roads of a pack: the one
//! function the pack builder writes the files with and a delta install re-makes them with
//! (ADR 0004, "Routing graphs prepared on the device"). Preparation is deterministic: the same
//! roads, profile and preparation give the same bytes on every machine, which the delta
//! builder checks before it lets a device prepare a file instead of downloading it, and the
//! installer checks against the manifest's SHA-256 after.
use std::path::Path;

use fast_paths::FastGraph32;
use rusqlite::{Connection, OpenFlags};

use super::ch::{self, ChError, PreparedFile};
use super::{Metric, Profile, RoadNetwork, TurnGraph, cch};

/// How a hierarchy is prepared (the `preparation` of the manifest's routing statistics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreparationKind {
    /// `fast_paths`' contraction with witness searches (`contraction`).
    Contraction,
    /// A nested-dissection order with customisation (`nested-dissection`, ADR 0007).
    NestedDissection,
}

impl PreparationKind {
    /// The manifest's name of the preparation.
    pub fn name(self) -> &'static str {
        match self {
            PreparationKind::Contraction => "contraction",
            PreparationKind::NestedDissection => "nested-dissection",
        }
    }

    /// The preparation of a manifest name.
    pub fn from_name(name: &str) -> Option<PreparationKind> {
        match name {
            "contraction" => Some(PreparationKind::Contraction),
            "nested-dissection" => Some(PreparationKind::NestedDissection),
            _ => None,
        }
    }
}

/// A prepared file: its bytes and the hierarchy's edge count (both directions).
#[derive(Debug)]
pub struct Prepared {
    /// The `.fp` file.
    pub bytes: Vec<u8>,
    /// Edges of the hierarchy (original and shortcuts, both directions).
    pub ch_edges: usize,
}

/// Prepares the hierarchy of `g` (built from `net`) in `metric` and encodes its file.
pub fn prepare_file(
    g: &TurnGraph,
    net: &RoadNetwork,
    metric: Metric,
    kind: PreparationKind,
) -> Result<Prepared, ChError> {
    let up: FastGraph32 = match kind {
        PreparationKind::NestedDissection => {
            cch::prepare(g, metric, &cch::arc_ends(g, net))
                .map_err(|e| ChError::Format(e.to_string()))?
                .0
        }
        PreparationKind::Contraction => FastGraph32::new(&ch::prepare(g, metric, None)),
    };
    let ch_edges = up.edges_fwd.len() + up.edges_bwd.len();
    let bytes = PreparedFile::from_up(g, metric, &up).and_then(|f| f.to_bytes())?;
    Ok(Prepared { bytes, ch_edges })
}

/// The profile and metric of a hierarchy file path (`routing/<profile>-<metric>.fp`).
pub fn graph_of_file(path: &str) -> Option<(Profile, Metric)> {
    Profile::ALL.iter().find_map(|&p| {
        Metric::ALL
            .into_iter()
            .find(|&m| ch::file_name(p, m) == path)
            .map(|m| (p, m))
    })
}

/// Prepares the hierarchy file `path` (`routing/<profile>-<metric>.fp`) from the roads of the
/// pack database `data` (opened read-only), as the builder did.
pub fn prepare_file_from_pack(
    data: &Path,
    path: &str,
    kind: PreparationKind,
) -> Result<Prepared, ChError> {
    let (profile, metric) = graph_of_file(path)
        .ok_or_else(|| ChError::Format(format!("`{path}` is not a routing graph file")))?;
    let conn = Connection::open_with_flags(data, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| ChError::Format(format!("{}: {e}", data.display())))?;
    let net = RoadNetwork::load(&conn).map_err(|e| ChError::Format(e.to_string()))?;
    let g = TurnGraph::build(&net, profile);
    prepare_file(&g, &net, metric, kind)
}
