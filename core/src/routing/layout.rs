//! Where and when a pack's hierarchies are queried from mapped query layout files
//! ([`super::flat`]).
//!
//! A hierarchy of a graph of at least [`FROM_ARCS`] arcs (a region of about a million nodes
//! and more; every sample city pack is far below) is decoded once, on its first use, and its
//! query arrays are written to `<pack dir>/.query/<profile>-<metric>.layout`; every later
//! opening maps that file instead of decoding the pack's file again. The file's key is a
//! SHA-256 of the pack's prepared file and of the turn graph it belongs to, so a layout is
//! only ever used for the hierarchy it was written from: any other file at that path (older,
//! damaged, cut short, from another build of the pack) is rebuilt. The layout lives in the
//! installed pack's own directory and goes with it when that version is removed. Where it
//! cannot be written (a read-only directory), the decoded hierarchy is kept in memory, as it
//! is for smaller graphs.
//!
//! The arrays the engine derives from a pack on every opening and then only reads (the road
//! network's points, node positions, node identities and densities; each profile's turn graph)
//! are mapped the same way from `network.layout` and `<profile>-graph.layout` when the graph
//! is as large: derived, written where missing, compared byte for byte with the derived copy
//! (read through the file), mapped, and the derived copy dropped. The comparison is the key:
//! a file left by another version of the engine, whose derivation differs, is simply written
//! again. Opening still derives the arrays, so this saves memory, not time.
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::ch::{ChError, ChGraph, PreparedFile};
use super::flat::{self, FlatError, FlatFile, Section, VERSION};
use super::graph::TurnGraph;
use super::network::RoadNetwork;
use super::profile::{Metric, Profile};

/// Graphs of at least this many arcs are queried from a mapped layout. At this size a
/// decoded hierarchy takes about 30 MB (20 bytes an edge, about 15 edges an arc); the
/// 5 M-node country's driving graph has 1.2 M arcs and 17 M edges.
pub const FROM_ARCS: usize = 100_000;

/// Directory of the layouts inside a pack's directory.
pub const DIR: &str = ".query";

/// The layout file of `profile` and `metric` for the pack in `dir`.
pub fn path(dir: &Path, profile: Profile, metric: Metric) -> PathBuf {
    dir.join(DIR)
        .join(format!("{}-{}.layout", profile.name(), metric.name()))
}

/// The key of the layout of the prepared file `prepared` of `g` in `metric`.
pub fn key(prepared: &[u8], g: &TurnGraph, metric: Metric) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"waymark-query-layout\0");
    h.update(VERSION.to_le_bytes());
    h.update(g.signature(metric).to_le_bytes());
    h.update((g.arc_count() as u64).to_le_bytes());
    h.update(prepared);
    h.finalize().into()
}

/// The hierarchy of the prepared file `prepared` (the bytes of the pack's file) of `g`,
/// mapped from its layout in `dir`, which is written first when missing or unusable. `None`
/// when the prepared file itself is unusable (logged).
pub fn open(
    pack_id: &str,
    dir: &Path,
    prepared: &[u8],
    g: &TurnGraph,
    profile: Profile,
    metric: Metric,
) -> Option<ChGraph> {
    let path = path(dir, profile, metric);
    let key = key(prepared, g, metric);
    match ChGraph::open_layout(&path, &key, metric, g.arc_count()) {
        Ok(ch) => return Some(ch),
        Err(ChError::Layout(FlatError::Io(e))) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            tracing::warn!(pack = %pack_id, file = %path.display(), error = %e,
                "query layout unusable; writing it again");
        }
    }
    let ch = match PreparedFile::from_bytes(prepared).and_then(|f| ChGraph::load(f, g, metric)) {
        Ok(ch) => ch,
        Err(e) => {
            tracing::warn!(pack = %pack_id, profile = profile.name(), error = %e,
                "prepared routing graph unusable; routing with Dijkstra");
            return None;
        }
    };
    let mapped = ch
        .write_layout(&path, &key)
        .and_then(|()| ChGraph::open_layout(&path, &key, metric, g.arc_count()));
    match mapped {
        Ok(m) => Some(m),
        Err(e) => {
            tracing::warn!(pack = %pack_id, file = %path.display(), error = %e,
                "query layout not written; the hierarchy stays in memory");
            Some(ch)
        }
    }
}

/// The key of the derived arrays `name` (what they are is checked by comparing them whole).
fn derived_key(name: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"waymark-derived-arrays\0");
    h.update(VERSION.to_le_bytes());
    h.update(name.as_bytes());
    h.finalize().into()
}

/// Maps the derived arrays `sections` from `<dir>/.query/<name>.layout` ([`flat::map_same`]);
/// `None` (logged) where the file cannot be written or read back.
fn map_derived(
    pack_id: &str,
    dir: &Path,
    name: &str,
    sections: &[Section<'_>],
) -> Option<FlatFile> {
    let path = dir.join(DIR).join(format!("{name}.layout"));
    match flat::map_same(&path, &derived_key(name), sections) {
        Ok(f) => Some(f),
        Err(e) => {
            tracing::warn!(pack = %pack_id, file = %path.display(), error = %e,
                "derived arrays not mapped; they stay in memory");
            None
        }
    }
}

/// Reads the road network's edge records, points, node positions, node identities and
/// densities from the mapped `network.layout` of the pack in `dir` instead of memory. Returns
/// whether they are.
pub fn map_network(pack_id: &str, dir: &Path, net: &mut RoadNetwork) -> bool {
    let Some(f) = map_derived(
        pack_id,
        dir,
        "network",
        &[
            Section::new("edges", &net.edges),
            Section::new("nodes", &net.nodes),
            Section::new("nodeosm", &net.node_osm),
            Section::new("density", &net.density),
            Section::new("points", &net.points),
        ],
    ) else {
        return false;
    };
    let arrays = (|| -> Result<_, FlatError> {
        Ok((
            f.arr("edges")?,
            f.arr("nodes")?,
            f.arr("nodeosm")?,
            f.arr("density")?,
            f.arr("points")?,
        ))
    })();
    match arrays {
        Ok((edges, nodes, node_osm, density, points)) => {
            (net.edges, net.nodes, net.node_osm, net.density, net.points) =
                (edges, nodes, node_osm, density, points);
            true
        }
        Err(e) => {
            tracing::warn!(pack = %pack_id, error = %e, "network arrays not mapped");
            false
        }
    }
}

/// Reads the arrays of turn graph `g` from the mapped `<profile>-graph.layout` of the pack in
/// `dir` instead of memory. Returns whether they are.
pub fn map_graph(pack_id: &str, dir: &Path, g: &mut TurnGraph) -> bool {
    let name = format!("{}-graph", g.profile.name());
    let Some(f) = map_derived(
        pack_id,
        dir,
        &name,
        &[
            Section::new("arcedge", &g.arc_edge),
            Section::new("arctime", &g.arc_time_ms),
            Section::new("arcdist", &g.arc_dist_cm),
            Section::new("edgearcs", &g.edge_arcs),
            Section::new("entry", &g.edge_entry),
            Section::new("firstout", &g.first_out),
            Section::new("head", &g.head),
            Section::new("turn", &g.turn_ms),
        ],
    ) else {
        return false;
    };
    let arrays = (|| -> Result<_, FlatError> {
        Ok((
            f.arr("arcedge")?,
            f.arr("arctime")?,
            f.arr("arcdist")?,
            f.arr("edgearcs")?,
            f.arr("entry")?,
            f.arr("firstout")?,
            f.arr("head")?,
            f.arr("turn")?,
        ))
    })();
    match arrays {
        Ok(a) => {
            (
                g.arc_edge,
                g.arc_time_ms,
                g.arc_dist_cm,
                g.edge_arcs,
                g.edge_entry,
                g.first_out,
                g.head,
                g.turn_ms,
            ) = a;
            true
        }
        Err(e) => {
            tracing::warn!(pack = %pack_id, error = %e, "turn graph arrays not mapped");
            false
        }
    }
}

/// Hands heap memory freed after a large derivation back to the system. glibc's allocator
/// keeps freed chunks of its heap for later use (after the first large block is freed it
/// serves blocks of up to 32 MB from the heap, not from their own mappings), so the
/// hundreds of megabytes a country's turn graph is built in would stay resident after its
/// arrays are mapped. Elsewhere (other C libraries, another global allocator) this does
/// nothing.
pub fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[allow(unsafe_code)]
    // SAFETY: `malloc_trim` only returns free memory of the allocator's own heaps to the
    // system; it takes no pointer and has no precondition.
    unsafe {
        libc::malloc_trim(0);
    }
}
