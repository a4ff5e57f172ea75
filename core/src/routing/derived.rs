//! The arrays the engine derives from a pack and then only reads (the road network's edge
//! records, points, node positions, identities and densities; its snap index; each profile's
//! turn graph and its components), kept in mapped layout files beside the pack
//! ([`super::flat`], ADR 0012).
//!
//! **Keyed** ([`PackDigests`]): for an installed pack, a file's key names the pack database
//! it was derived from (the SHA-256 its signed manifest gives) and the engine code that
//! derived it (a digest of this crate's routing and geometry sources, made when the engine
//! is built). Opening a pack whose files carry the right key maps them and derives nothing:
//! no road table is read and no turn graph built, so opening a country costs neither the
//! time nor the transient memory of a derivation. Every index the queries follow is checked
//! first ([`check_network`], [`check_graph`], the snap index's tree and pieces), so a damaged
//! file is written again rather than read out of bounds. Another pack version, another engine
//! build or a damaged file derives the arrays again and rewrites the file.
//!
//! **Unkeyed** (a router opened on a bare pack directory, without a manifest): the arrays are
//! derived on every opening and a file is accepted only when it reads back byte for byte as
//! what was just derived ([`flat::map_same`]); this saves memory, not time. The snap index
//! is kept in a file only under a key: without one it is built in memory.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::flat::{self, Arr, FlatError, FlatFile, Section, VERSION};
use super::graph::{NO_ARC, TurnGraph};
use super::layout::DIR;
use super::network::{RoadEdge, RoadNetwork, Tables};
use super::profile::{CountryLimits, Metric, Profile};
use super::reach::Reach;
use super::snap::SnapIndex;

/// Digest of the engine sources that derive the arrays (made by `core/build.rs`).
pub const CODE_DIGEST: &str = env!("WAYMARK_ROUTING_CODE_DIGEST");

/// The digests of an installed pack's files (from its signed manifest), which key the
/// arrays derived from them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackDigests {
    /// SHA-256 (hex) of the pack database.
    pub database: String,
    /// SHA-256 (hex) of every file, by its path in the pack.
    pub files: HashMap<String, String>,
}

impl PackDigests {
    /// The digests a manifest lists; `None` when it lists no database.
    pub fn of(manifest: &crate::packs::manifest::Manifest) -> Option<PackDigests> {
        let files: HashMap<String, String> = manifest
            .files
            .iter()
            .map(|f| (f.path.clone(), f.sha256.clone()))
            .collect();
        Some(PackDigests {
            database: files.get(crate::packs::registry::SQLITE_FILE)?.clone(),
            files,
        })
    }

    fn key(&self, what: &str, extra: &str) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(b"waymark-keyed-arrays\0");
        h.update(VERSION.to_le_bytes());
        for part in [what, CODE_DIGEST, &self.database, extra] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.finalize().into()
    }

    /// Key of the road network's arrays.
    pub fn network_key(&self) -> [u8; 32] {
        self.key("network", "")
    }

    /// Key of the grids of the pack's address and settlement points (`crate::distance`),
    /// projected around latitude `lat0`.
    pub fn addresses_key(&self, lat0: f64) -> [u8; 32] {
        self.key("addresses", &lat0.to_bits().to_string())
    }

    /// Key of the turn graph of `profile`.
    pub fn graph_key(&self, profile: Profile) -> [u8; 32] {
        self.key("graph", profile.name())
    }

    /// Key of the components and reachability of the turn graph of `profile`.
    pub fn reach_key(&self, profile: Profile) -> [u8; 32] {
        self.key("reach", profile.name())
    }

    /// Key of the snap index of the road network (derived from the network alone).
    pub fn snap_key(&self) -> [u8; 32] {
        self.key("snap", "")
    }

    /// Key of the query layout of the hierarchy stored in the pack's file `file`, for the
    /// turn graph of `profile` in `metric`; `None` when the manifest does not list the file.
    pub fn hierarchy_key(&self, file: &str, profile: Profile, metric: Metric) -> Option<[u8; 32]> {
        let sha = self.files.get(file)?;
        Some(self.key(
            "hierarchy",
            &format!("{}\0{}\0{sha}", profile.name(), metric.name()),
        ))
    }
}

/// The key of unkeyed derived arrays `name` (what they are is checked by comparing them whole).
fn unkeyed(name: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"waymark-derived-arrays\0");
    h.update(VERSION.to_le_bytes());
    h.update(name.as_bytes());
    h.finalize().into()
}

fn path(dir: &Path, name: &str) -> PathBuf {
    dir.join(DIR).join(format!("{name}.layout"))
}

/// The file `name` in `dir` under `key`, mapped; `None` when there is none or it is unusable
/// (logged).
pub(crate) fn open_file(pack_id: &str, dir: &Path, name: &str, key: &[u8; 32]) -> Option<FlatFile> {
    let path = path(dir, name);
    match FlatFile::open(&path, key) {
        Ok(f) => Some(f),
        Err(FlatError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            tracing::info!(pack = %pack_id, file = %path.display(), error = %e,
                "derived arrays are derived again");
            None
        }
    }
}

/// Maps the derived arrays `sections` from `<dir>/.query/<name>.layout` under `key` (the
/// unkeyed one when `None`), written when missing or different ([`flat::map_same`]); `None`
/// (logged) where the file cannot be written or read back.
pub(crate) fn map_derived(
    pack_id: &str,
    dir: &Path,
    name: &str,
    key: Option<&[u8; 32]>,
    sections: &[Section<'_>],
) -> Option<FlatFile> {
    let path = path(dir, name);
    let key = key.copied().unwrap_or_else(|| unkeyed(name));
    match flat::map_same(&path, &key, sections) {
        Ok(f) => Some(f),
        Err(e) => {
            tracing::warn!(pack = %pack_id, file = %path.display(), error = %e,
                "derived arrays not mapped; they stay in memory");
            None
        }
    }
}

/// The names of a network as a file holds them: their bytes and where each begins.
fn names_sections(names: &[Arc<str>]) -> (Vec<u32>, Vec<u8>) {
    let mut offsets = Vec::with_capacity(names.len() + 1);
    let mut bytes = Vec::new();
    offsets.push(0);
    for n in names {
        bytes.extend_from_slice(n.as_bytes());
        offsets.push(bytes.len() as u32);
    }
    (offsets, bytes)
}

/// Reads the road network's large arrays from the mapped `network.layout` of the pack in
/// `dir` instead of memory. `ids` are the nodes' `road_nodes.id`s, written with them so
/// that a keyed opening can place the nodes the pack's tables name. Returns whether they are.
pub fn map_network(
    pack_id: &str,
    dir: &Path,
    key: Option<&[u8; 32]>,
    net: &mut RoadNetwork,
    ids: &[i64],
) -> bool {
    let junction: Vec<u8> = net.junction.iter().map(|&j| u8::from(j)).collect();
    let (name_at, name_bytes) = names_sections(&net.names);
    let Some(f) = map_derived(
        pack_id,
        dir,
        "network",
        key,
        &[
            Section::new("edges", &net.edges),
            Section::new("nodes", &net.nodes),
            Section::new("nodeosm", &net.node_osm),
            Section::new("density", &net.density),
            Section::new("points", &net.points),
            Section::new("junction", &junction),
            Section::new("nameat", &name_at),
            Section::new("names", &name_bytes),
            Section::new("nodeid", ids),
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

/// The road network of the pack behind `conn`, mapped from its `network.layout` in `dir`
/// written under `key`, with only its turn restrictions, toll booths and country read from
/// the pack; `None` when there is no such file or it does not hold a whole, consistent
/// network (then the network is derived again).
pub fn open_network(
    pack_id: &str,
    dir: &Path,
    key: &[u8; 32],
    conn: &rusqlite::Connection,
) -> Option<RoadNetwork> {
    let f = open_file(pack_id, dir, "network", key)?;
    let net = (|| -> Result<RoadNetwork, String> {
        let err = |e: FlatError| e.to_string();
        let ids: Arr<i64> = f.arr("nodeid").map_err(err)?;
        let junction: Arr<u8> = f.arr("junction").map_err(err)?;
        let name_at: Arr<u32> = f.arr("nameat").map_err(err)?;
        let name_bytes: Arr<u8> = f.arr("names").map_err(err)?;
        let mut names: Vec<Arc<str>> = Vec::with_capacity(name_at.len().saturating_sub(1));
        for w in name_at.windows(2) {
            let text = name_bytes
                .get(w[0] as usize..w[1] as usize)
                .and_then(|b| std::str::from_utf8(b).ok())
                .ok_or("a name lies outside the names or is not UTF-8")?;
            names.push(Arc::from(text));
        }
        if names.first().is_none_or(|n| !n.is_empty()) {
            return Err("the first name is not the empty one".into());
        }
        if !ids.windows(2).all(|w| w[0] < w[1]) {
            return Err("node ids are not ascending".into());
        }
        let Tables {
            restrictions,
            toll_booths,
            country,
        } = RoadNetwork::read_tables(conn, &|id| ids.binary_search(&id).ok().map(|i| i as u32))
            .map_err(|e| e.to_string())?;
        let limits = CountryLimits::of(&country);
        let net = RoadNetwork {
            nodes: f.arr("nodes").map_err(err)?,
            node_osm: f.arr("nodeosm").map_err(err)?,
            junction: junction.iter().map(|&j| j != 0).collect(),
            density: f.arr("density").map_err(err)?,
            edges: f.arr("edges").map_err(err)?,
            points: f.arr("points").map_err(err)?,
            names,
            restrictions,
            toll_booths,
            country,
            limits,
            country_limits: vec![limits],
        };
        check_network(&net, ids.len())?;
        Ok(net)
    })();
    match net {
        Ok(net) => Some(net),
        Err(e) => {
            tracing::warn!(pack = %pack_id, error = %e,
                "network layout inconsistent; the network is derived again");
            None
        }
    }
}

/// Checks that every index a network's records hold lies in range: each node array covers
/// `nodes` nodes, every edge's ends, points, names and country limits exist.
pub fn check_network(net: &RoadNetwork, nodes: usize) -> Result<(), String> {
    if [
        net.nodes.len(),
        net.node_osm.len(),
        net.density.len(),
        net.junction.len(),
    ] != [nodes; 4]
    {
        return Err("the node arrays differ in length".into());
    }
    let bad = net.edges.iter().position(|e: &RoadEdge| {
        let (a, b) = e.geometry();
        e.from as usize >= nodes
            || e.to as usize >= nodes
            || a > b
            || b as usize > net.points.len()
            || e.name as usize >= net.names.len()
            || e.r#ref as usize >= net.names.len()
            || usize::from(e.limits) >= net.country_limits.len()
    });
    match bad {
        Some(i) => Err(format!("edge {i} holds an index out of range")),
        None => Ok(()),
    }
}

/// Reads snap index `index` from the mapped `snap.layout` of the pack in `dir` (written under
/// `key`, when missing or different) instead of memory. Returns whether it is.
pub fn map_snap(pack_id: &str, dir: &Path, key: &[u8; 32], index: &mut SnapIndex) -> bool {
    let meta = index.meta();
    let Some(f) = map_derived(pack_id, dir, "snap", Some(key), &index.sections(&meta)) else {
        return false;
    };
    // The file reads back as the index just built: no check needed.
    match SnapIndex::from_file(&f, None) {
        Ok(m) => {
            *index = m;
            true
        }
        Err(e) => {
            tracing::warn!(pack = %pack_id, error = %e, "snap index not mapped");
            false
        }
    }
}

/// The snap index of network `net`, mapped from its layout in `dir` written under `key`;
/// `None` when there is none or it is not a whole tree of pieces of `net`'s edges.
pub fn open_snap(
    pack_id: &str,
    dir: &Path,
    key: &[u8; 32],
    net: &RoadNetwork,
) -> Option<SnapIndex> {
    let f = open_file(pack_id, dir, "snap", key)?;
    match SnapIndex::from_file(&f, Some(net)) {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!(pack = %pack_id, error = %e,
                "snap layout inconsistent; the index is built again");
            None
        }
    }
}

/// The sections of turn graph `g`: its arrays, each arc's direction and the number of
/// original arcs.
fn graph_sections<'a>(
    g: &'a TurnGraph,
    forward: &'a [u8],
    original: &'a [u32],
) -> Vec<Section<'a>> {
    vec![
        Section::new("arcedge", &g.arc_edge),
        Section::new("arctime", &g.arc_time_ms),
        Section::new("arcdist", &g.arc_dist_cm),
        Section::new("edgearcs", &g.edge_arcs),
        Section::new("entry", &g.edge_entry),
        Section::new("firstout", &g.first_out),
        Section::new("head", &g.head),
        Section::new("turn", &g.turn_ms),
        Section::new("arcfwd", forward),
        Section::new("original", original),
    ]
}

/// Reads the arrays of turn graph `g` from the mapped `<profile>-graph.layout` of the pack in
/// `dir` (under `key`, the unkeyed one when `None`) instead of memory. Returns whether they are.
pub fn map_graph(pack_id: &str, dir: &Path, key: Option<&[u8; 32]>, g: &mut TurnGraph) -> bool {
    let name = format!("{}-graph", g.profile.name());
    let forward: Vec<u8> = g.arc_forward.iter().map(|&f| u8::from(f)).collect();
    let original = [g.original_arcs];
    let Some(f) = map_derived(
        pack_id,
        dir,
        &name,
        key,
        &graph_sections(g, &forward, &original),
    ) else {
        return false;
    };
    match graph_arrays(&f, g.profile) {
        Ok(m) => {
            *g = m;
            true
        }
        Err(e) => {
            tracing::warn!(pack = %pack_id, error = %e, "turn graph arrays not mapped");
            false
        }
    }
}

fn graph_arrays(f: &FlatFile, profile: Profile) -> Result<TurnGraph, FlatError> {
    let forward: Arr<u8> = f.arr("arcfwd")?;
    let original: Arr<u32> = f.arr("original")?;
    Ok(TurnGraph {
        profile,
        arc_edge: f.arr("arcedge")?,
        arc_forward: forward.iter().map(|&x| x != 0).collect(),
        arc_time_ms: f.arr("arctime")?,
        arc_dist_cm: f.arr("arcdist")?,
        edge_arcs: f.arr("edgearcs")?,
        original_arcs: original
            .first()
            .copied()
            .ok_or_else(|| FlatError::Invalid("has no arc count".into()))?,
        edge_entry: f.arr("entry")?,
        first_out: f.arr("firstout")?,
        head: f.arr("head")?,
        turn_ms: f.arr("turn")?,
    })
}

/// The turn graph of `profile` over a network of `edges` edges, mapped from its layout in
/// `dir` written under `key`; `None` when there is none or it is not a whole, consistent graph.
pub fn open_graph(
    pack_id: &str,
    dir: &Path,
    key: &[u8; 32],
    profile: Profile,
    edges: usize,
) -> Option<TurnGraph> {
    let f = open_file(pack_id, dir, &format!("{}-graph", profile.name()), key)?;
    let g = graph_arrays(&f, profile)
        .map_err(|e| e.to_string())
        .and_then(|g| check_graph(&g, edges).map(|()| g));
    match g {
        Ok(g) => Some(g),
        Err(e) => {
            tracing::warn!(pack = %pack_id, profile = profile.name(), error = %e,
                "turn graph layout inconsistent; the graph is built again");
            None
        }
    }
}

/// Checks that every index turn graph `g` holds lies in range for a network of `edges` edges.
pub fn check_graph(g: &TurnGraph, edges: usize) -> Result<(), String> {
    let arcs = g.arc_edge.len();
    let arc_ok = |a: u32| a == NO_ARC || (a as usize) < arcs;
    if [
        g.arc_forward.len(),
        g.arc_time_ms.len(),
        g.arc_dist_cm.len(),
    ] != [arcs; 3]
    {
        return Err("the arc arrays differ in length".into());
    }
    if g.original_arcs as usize > arcs || g.first_out.len() != arcs + 1 {
        return Err("the arc counts disagree".into());
    }
    if g.edge_arcs.len() != edges || g.edge_entry.len() != edges {
        return Err("the edge arrays do not cover the network".into());
    }
    if g.arc_edge.iter().any(|&e| e as usize >= edges) {
        return Err("an arc names a missing edge".into());
    }
    if !g
        .edge_arcs
        .iter()
        .chain(g.edge_entry.iter())
        .flatten()
        .all(|&a| arc_ok(a))
    {
        return Err("an edge names a missing arc".into());
    }
    let (first, last) = (g.first_out.first(), g.first_out.last());
    if first != Some(&0)
        || last.map(|&l| l as usize) != Some(g.head.len())
        || !g.first_out.windows(2).all(|w| w[0] <= w[1])
        || g.turn_ms.len() != g.head.len()
        || g.head.iter().any(|&b| b as usize >= arcs)
    {
        return Err("the transitions are inconsistent".into());
    }
    Ok(())
}

/// Reads the components and reachability `r` of the turn graph of `profile` from the mapped
/// `<profile>-reach.layout` of the pack in `dir` (under `key`, the unkeyed one when `None`)
/// instead of memory. Returns whether they are.
pub fn map_reach(
    pack_id: &str,
    dir: &Path,
    key: Option<&[u8; 32]>,
    profile: Profile,
    r: &mut Reach,
) -> bool {
    let main = [r.main];
    let Some(f) = map_derived(
        pack_id,
        dir,
        &format!("{}-reach", profile.name()),
        key,
        &[
            Section::new("comp", &r.component),
            Section::new("size", &r.size),
            Section::new("main", &main),
            Section::new("flags", &r.flags),
        ],
    ) else {
        return false;
    };
    match reach_arrays(&f) {
        Ok(m) => {
            *r = m;
            true
        }
        Err(e) => {
            tracing::warn!(pack = %pack_id, error = %e, "reachability arrays not mapped");
            false
        }
    }
}

fn reach_arrays(f: &FlatFile) -> Result<Reach, FlatError> {
    let main: Arr<u32> = f.arr("main")?;
    Ok(Reach {
        component: f.arr("comp")?,
        size: f.arr("size")?,
        main: main
            .first()
            .copied()
            .ok_or_else(|| FlatError::Invalid("has no main component".into()))?,
        flags: f.arr("flags")?,
    })
}

/// The components and reachability of the turn graph of `profile` (of `arcs` arcs), mapped
/// from their layout in `dir` written under `key`; `None` when there is none or it does not
/// describe a graph of that size.
pub fn open_reach(
    pack_id: &str,
    dir: &Path,
    key: &[u8; 32],
    profile: Profile,
    arcs: usize,
) -> Option<Reach> {
    let f = open_file(pack_id, dir, &format!("{}-reach", profile.name()), key)?;
    let r = reach_arrays(&f)
        .map_err(|e| e.to_string())
        .and_then(|r| r.check(arcs).map(|()| r));
    match r {
        Ok(r) => Some(r),
        Err(e) => {
            tracing::warn!(pack = %pack_id, profile = profile.name(), error = %e,
                "reachability layout inconsistent; it is computed again");
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_the_pack_the_profile_and_the_file() {
        let mut d = PackDigests {
            database: "aa".into(),
            files: HashMap::from([("routing/driving-time.ch".to_string(), "bb".to_string())]),
        };
        let (net, drive, walk) = (
            d.network_key(),
            d.graph_key(Profile::Driving),
            d.graph_key(Profile::Walking),
        );
        assert!(net != drive && drive != walk && d.snap_key() != net);
        let h = d.hierarchy_key("routing/driving-time.ch", Profile::Driving, Metric::Time);
        assert!(h.is_some());
        assert_eq!(
            d.hierarchy_key("routing/other.ch", Profile::Driving, Metric::Time),
            None
        );
        let snap = d.snap_key();
        d.database = "ab".into();
        assert!(d.network_key() != net && d.graph_key(Profile::Driving) != drive);
        assert!(d.snap_key() != snap);
        assert!(d.hierarchy_key("routing/driving-time.ch", Profile::Driving, Metric::Time) != h);
        assert_eq!(CODE_DIGEST.len(), 64);
    }
}
