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
//! For an installed pack the key is instead made of the digests its signed manifest gives
//! for the prepared file and the database, and of the engine code ([`super::derived`]), so
//! that opening it again maps the layout without reading the prepared file at all.
//!
//! The arrays the engine derives from a pack and then only reads (the road network, each
//! profile's turn graph) are mapped the same way from `network.layout` and
//! `<profile>-graph.layout` when the graph is as large ([`super::derived`]).
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::ch::{ChError, ChGraph, PreparedFile};
use super::flat::{FlatError, VERSION};
use super::graph::TurnGraph;
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
/// mapped from its layout in `dir`, which is written first when missing or unusable. The
/// layout's key is `key` (from the pack's digests), else [`key`]. `None` when the prepared
/// file itself is unusable (logged).
pub fn open(
    pack_id: &str,
    dir: &Path,
    prepared: &[u8],
    g: &TurnGraph,
    (profile, metric): (Profile, Metric),
    key: Option<[u8; 32]>,
) -> Option<ChGraph> {
    let path = path(dir, profile, metric);
    let key = key.unwrap_or_else(|| self::key(prepared, g, metric));
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
