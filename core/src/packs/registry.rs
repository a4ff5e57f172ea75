//! The packs in use: an immutable [`PackSet`] that readers share and the [`PackRegistry`]
//! swaps atomically when a pack is installed, updated or removed.
//!
//! **Data flow.** At start-up [`PackRegistry::load_all`] takes, for each pack id installed in a
//! [`PackStore`], the greatest version (string order) whose manifest verifies (signature by a
//! trusted publisher, supported format, and naming the directory's id and version); a directory
//! that does not verify is skipped with a warning and never loaded, and the next older version
//! is tried. Loading only reads and verifies `manifest.json`: file hashes were checked when the
//! pack was installed ([`PackStore::verify_installed`] re-checks them on demand), so opening
//! every pack stays cheap.
//!
//! Readers call [`PackRegistry::snapshot`] once per request and use that `Arc<PackSet>` to the
//! end: a concurrent [`PackRegistry::swap_in`] or [`PackRegistry::remove`] builds a new set and
//! swaps the `Arc` behind a short write lock, so an in-flight request keeps reading the packs it
//! started with (and their directories, which stay on disk until [`PackStore::remove`]).
//!
//! [`PackSet::covering`] answers which packs cover a point: the coverage bbox first, then the
//! coverage polygon (GeoJSON `Polygon` or `MultiPolygon`, holes included, even-odd rule) when the
//! manifest has one.
//!
//! ```no_run
//! use waymark_core::packs::install::PackStore;
//! use waymark_core::packs::registry::{LoadedPack, PackRegistry};
//! # fn trusted() -> Vec<waymark_core::auth::keys::PublisherKey> { vec![] }
//! let store = PackStore::open("/data/waymark/packs")?;
//! let registry = PackRegistry::load_all(&store, &trusted())?;
//! // Later: an update is installed, then swapped in; readers holding a snapshot are unaffected.
//! let installed = store.install("https://packs.example.com/andorra/2026.12.01/", &trusted(), &mut |_| {})?;
//! registry.swap_in(LoadedPack::load(&installed, &trusted())?);
//! for pack in registry.snapshot().covering(42.5063, 1.5218) {
//!     println!("{} {}", pack.manifest.id, pack.manifest.version);
//! }
//! # Ok::<(), waymark_core::packs::install::InstallError>(())
//! ```
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::RwLock;
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::install::{
    InstallError, InstalledPack, MANIFEST_FILE, PackStore, read_installed_manifest,
};
use super::manifest::Manifest;
use crate::auth::keys::PublisherKey;
use crate::geo::{Pt, Ring, polygon_rings, ring_edge_within, rings_contain};

/// File name of a pack's relational layers.
pub const SQLITE_FILE: &str = "data.sqlite";

/// An outer ring followed by its holes.
type Polygon = Vec<Ring>;

/// How near (degrees of latitude or longitude) a point may lie to the edge of a pack's
/// coverage polygon to be covered: 10⁻⁷°, about a centimetre, the precision to which packs
/// store coordinates.
pub const OUTLINE_EDGE_DEG: f64 = 1e-7;

/// A verified, installed pack in use.
#[derive(Debug)]
pub struct LoadedPack {
    /// The verified manifest.
    pub manifest: Manifest,
    /// The pack directory (`<root>/<id>/<version>`).
    pub dir: PathBuf,
    /// Coverage polygons parsed from the manifest (`None`: the bbox is the coverage).
    outline: Option<Vec<Polygon>>,
}

impl LoadedPack {
    /// Loads an installed pack: reads and verifies its manifest (signature, format) and checks
    /// that it names `pack.id` and `pack.version`. Does not hash the files.
    pub fn load(pack: &InstalledPack, trusted: &[PublisherKey]) -> Result<Self, InstallError> {
        let manifest = read_installed_manifest(&pack.dir, trusted)?;
        if manifest.id != pack.id || manifest.version != pack.version {
            return Err(InstallError::InvalidManifest {
                location: pack.dir.join(MANIFEST_FILE).display().to_string(),
                reason: format!(
                    "it describes pack {} {} but is installed as {} {}",
                    manifest.id, manifest.version, pack.id, pack.version
                ),
            });
        }
        let outline = match &manifest.coverage.polygon {
            None => None,
            Some(geometry) => {
                let parsed = parse_geometry(geometry);
                if parsed.is_none() {
                    tracing::warn!(pack = %pack.id, version = %pack.version,
                        "coverage polygon is not a GeoJSON Polygon or MultiPolygon; using the bbox");
                }
                parsed
            }
        };
        Ok(LoadedPack {
            manifest,
            dir: pack.dir.clone(),
            outline,
        })
    }

    /// Pack id.
    pub fn id(&self) -> &str {
        &self.manifest.id
    }

    /// Pack version.
    pub fn version(&self) -> &str {
        &self.manifest.version
    }

    /// Whether the pack has `layer`.
    pub fn has_layer(&self, layer: &str) -> bool {
        self.manifest.layers.iter().any(|l| l == layer)
    }

    /// Absolute path of a file of the pack (`rel` as in the manifest).
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    /// Whether the manifest lists `data.sqlite`.
    pub fn has_sqlite(&self) -> bool {
        self.manifest.files.iter().any(|f| f.path == SQLITE_FILE)
    }

    /// Opens `data.sqlite` read-only (no SQLite mutex: use the connection from one thread at a
    /// time, which `rusqlite::Connection` enforces by not being `Sync`). Fails when the pack has
    /// no such file.
    ///
    /// The query planner keeps the plan a statement was prepared with (QPSG): SQLite is built
    /// with STAT4, and would otherwise compile a cached statement again each time a bound
    /// value changes (most of the cost of a lookup by id), although a pack holds no STAT4
    /// samples that a value could change a plan by.
    pub fn sqlite(&self) -> rusqlite::Result<Connection> {
        let conn = Connection::open_with_flags(
            self.dir.join(SQLITE_FILE),
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )?;
        Ok(conn)
    }

    /// Whether the pack covers the point: inside the bbox, and inside the polygon when there is
    /// one or on its edge (within [`OUTLINE_EDGE_DEG`]). A region pack's polygon is the convex
    /// hull of its road nodes, so the nodes at its corners and along its sides lie on the edge,
    /// where the even-odd test alone counts some in and others out.
    pub fn covers(&self, lat: f64, lng: f64) -> bool {
        if !lat.is_finite() || !lng.is_finite() {
            return false;
        }
        if !bbox_contains(self.manifest.coverage.bbox, lat, lng) {
            return false;
        }
        match &self.outline {
            None => true,
            Some(polygons) => outline_covers(polygons, Pt::new(lat, lng)),
        }
    }

    fn bbox_area(&self) -> f64 {
        let [w, s, e, n] = self.manifest.coverage.bbox;
        let width = if w <= e { e - w } else { 360.0 - (w - e) };
        width * (n - s)
    }
}

/// An immutable set of loaded packs, at most one version per id.
#[derive(Debug, Default, Clone)]
pub struct PackSet {
    packs: BTreeMap<String, Arc<LoadedPack>>,
}

impl PackSet {
    /// The pack with this id.
    pub fn get(&self, id: &str) -> Option<&Arc<LoadedPack>> {
        self.packs.get(id)
    }

    /// Every pack, by id.
    pub fn all(&self) -> Vec<&Arc<LoadedPack>> {
        self.packs.values().collect()
    }

    /// Number of packs.
    pub fn len(&self) -> usize {
        self.packs.len()
    }

    /// Whether no pack is loaded.
    pub fn is_empty(&self) -> bool {
        self.packs.is_empty()
    }

    /// Packs covering the point, the most specific (smallest bbox) first, then by id.
    pub fn covering(&self, lat: f64, lng: f64) -> Vec<&Arc<LoadedPack>> {
        let mut found: Vec<&Arc<LoadedPack>> =
            self.packs.values().filter(|p| p.covers(lat, lng)).collect();
        found.sort_by(|a, b| {
            a.bbox_area()
                .total_cmp(&b.bbox_area())
                .then_with(|| a.id().cmp(b.id()))
        });
        found
    }

    /// Packs that have `layer`, by id.
    pub fn with_layer(&self, layer: &str) -> Vec<&Arc<LoadedPack>> {
        self.packs.values().filter(|p| p.has_layer(layer)).collect()
    }
}

/// The packs in use, swapped atomically.
#[derive(Debug, Default)]
pub struct PackRegistry {
    current: RwLock<Arc<PackSet>>,
}

impl PackRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads the greatest verified version of every pack id installed in `store`. Versions that
    /// do not verify are skipped with a warning. Fails only when the store cannot be listed.
    pub fn load_all(store: &PackStore, trusted: &[PublisherKey]) -> Result<Self, InstallError> {
        let registry = Self::new();
        registry.reload(store, trusted)?;
        Ok(registry)
    }

    /// Replaces the whole set with what [`PackRegistry::load_all`] would load now.
    pub fn reload(&self, store: &PackStore, trusted: &[PublisherKey]) -> Result<(), InstallError> {
        let mut by_id: BTreeMap<String, Vec<InstalledPack>> = BTreeMap::new();
        for pack in store.list()? {
            by_id.entry(pack.id.clone()).or_default().push(pack);
        }
        let mut set = PackSet::default();
        for (id, versions) in by_id {
            // `list` sorts versions ascending: try the newest first.
            for pack in versions.iter().rev() {
                match LoadedPack::load(pack, trusted) {
                    Ok(loaded) => {
                        set.packs.insert(id.clone(), Arc::new(loaded));
                        break;
                    }
                    Err(e) => tracing::warn!(
                        pack = %pack.id, version = %pack.version, error = %e,
                        "skipping an installed pack that does not verify"
                    ),
                }
            }
        }
        *self.current.write() = Arc::new(set);
        Ok(())
    }

    /// The current set. Hold it for the duration of a request.
    pub fn snapshot(&self) -> Arc<PackSet> {
        Arc::clone(&self.current.read())
    }

    /// Adds `pack`, or replaces the loaded pack with the same id (whatever its version: a lower
    /// one is a rollback). Returns the pack it replaced.
    pub fn swap_in(&self, pack: LoadedPack) -> Option<Arc<LoadedPack>> {
        let mut current = self.current.write();
        let mut next = PackSet::clone(&current);
        let previous = next.packs.insert(pack.id().to_string(), Arc::new(pack));
        *current = Arc::new(next);
        previous
    }

    /// Unloads the pack `id`. Returns it, if it was loaded.
    pub fn remove(&self, id: &str) -> Option<Arc<LoadedPack>> {
        let mut current = self.current.write();
        if !current.packs.contains_key(id) {
            return None;
        }
        let mut next = PackSet::clone(&current);
        let previous = next.packs.remove(id);
        *current = Arc::new(next);
        previous
    }
}

/// Whether `q` lies inside one of the polygons or on an edge of one of their rings (within
/// [`OUTLINE_EDGE_DEG`]).
fn outline_covers(polygons: &[Polygon], q: Pt) -> bool {
    polygons
        .iter()
        .any(|p| rings_contain(p, q) || p.iter().any(|r| ring_edge_within(r, q, OUTLINE_EDGE_DEG)))
}

/// `[west, south, east, north]`; a bbox with `west > east` crosses the antimeridian.
fn bbox_contains(bbox: [f64; 4], lat: f64, lng: f64) -> bool {
    let [w, s, e, n] = bbox;
    if lat < s || lat > n {
        return false;
    }
    if w <= e {
        (w..=e).contains(&lng)
    } else {
        lng >= w || lng <= e
    }
}

/// A GeoJSON `Polygon` or `MultiPolygon` geometry (or a `Feature` holding one).
fn parse_geometry(v: &Value) -> Option<Vec<Polygon>> {
    match v.get("type")?.as_str()? {
        "Polygon" => Some(vec![polygon_rings(v.get("coordinates")?)?]),
        "MultiPolygon" => v
            .get("coordinates")?
            .as_array()?
            .iter()
            .map(polygon_rings)
            .collect(),
        "Feature" => parse_geometry(v.get("geometry")?),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn polygon_with_hole_uses_even_odd() {
        let g = json!({"type": "Polygon", "coordinates": [
            [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0], [0.0, 0.0]],
            [[4.0, 4.0], [6.0, 4.0], [6.0, 6.0], [4.0, 6.0], [4.0, 4.0]]
        ]});
        let polys = parse_geometry(&g).unwrap();
        let inside = |x, y| polys.iter().any(|p| rings_contain(p, Pt::new(y, x)));
        assert!(inside(1.0, 1.0));
        assert!(!inside(5.0, 5.0), "in the hole");
        assert!(inside(7.0, 5.0));
        assert!(!inside(11.0, 5.0));
        assert!(!inside(-1.0, 5.0));
    }

    #[test]
    fn multipolygon_and_concave_shapes() {
        // An L shape and a separate square.
        let g = json!({"type": "MultiPolygon", "coordinates": [
            [[[0.0, 0.0], [4.0, 0.0], [4.0, 1.0], [1.0, 1.0], [1.0, 4.0], [0.0, 4.0]]],
            [[[10.0, 10.0], [11.0, 10.0], [11.0, 11.0], [10.0, 11.0], [10.0, 10.0]]]
        ]});
        let polys = parse_geometry(&g).unwrap();
        let inside = |x, y| polys.iter().any(|p| rings_contain(p, Pt::new(y, x)));
        assert!(inside(0.5, 3.0));
        assert!(inside(3.0, 0.5));
        assert!(!inside(3.0, 3.0), "in the notch of the L");
        assert!(inside(10.5, 10.5));
        assert!(!inside(8.0, 8.0));
        assert!(parse_geometry(&json!({"type": "Point", "coordinates": [0, 0]})).is_none());
        assert!(
            parse_geometry(&json!({"type": "Polygon", "coordinates": [[[0, 0], [1, 1]]]}))
                .is_none()
        );
    }

    #[test]
    fn an_outline_covers_its_edges_and_corners() {
        // A convex hull whose south side holds a third point, as a pack's hull of road nodes
        // does: the even-odd test counts the corners and that side out.
        let g = json!({"type": "Polygon", "coordinates": [
            [[24.935, 60.164], [24.95, 60.165], [24.953, 60.179], [24.94, 60.178], [24.935, 60.164]]
        ]});
        let polys = parse_geometry(&g).unwrap();
        let on_side = Pt::new(60.164 + 0.001 * (2.0 / 3.0), 24.945);
        for q in [Pt::new(60.164, 24.935), Pt::new(60.179, 24.953), on_side] {
            assert!(outline_covers(&polys, q), "{q:?}");
        }
        assert!(outline_covers(&polys, Pt::new(60.17, 24.944)));
        assert!(
            !outline_covers(&polys, Pt::new(60.1639, 24.935)),
            "11 m south"
        );
        assert!(
            !outline_covers(&polys, Pt::new(60.179, 24.9531)),
            "5 m east"
        );
    }

    #[test]
    fn bbox_handles_the_antimeridian() {
        assert!(bbox_contains([1.4, 42.4, 1.8, 42.7], 42.5, 1.5));
        assert!(!bbox_contains([1.4, 42.4, 1.8, 42.7], 42.5, 1.9));
        assert!(bbox_contains([170.0, -20.0, -170.0, -10.0], -15.0, 179.0));
        assert!(bbox_contains([170.0, -20.0, -170.0, -10.0], -15.0, -175.0));
        assert!(!bbox_contains([170.0, -20.0, -170.0, -10.0], -15.0, 0.0));
    }
}

/// A value derived from one pack set (an in-memory index), rebuilt when the registry swaps in
/// another set. Requests that started with the old set keep the value they got.
#[derive(Debug)]
pub struct PackSetCache<T> {
    slot: RwLock<Option<(Arc<PackSet>, Arc<T>)>>,
}

impl<T> Default for PackSetCache<T> {
    fn default() -> Self {
        PackSetCache {
            slot: RwLock::new(None),
        }
    }
}

impl<T> PackSetCache<T> {
    /// The value for `set`, building it with `build` when the cached one belongs to another set.
    pub fn get_or_build<E>(
        &self,
        set: Arc<PackSet>,
        build: impl FnOnce(&PackSet) -> Result<T, E>,
    ) -> Result<Arc<T>, E> {
        if let Some((cached, value)) = self.slot.read().as_ref()
            && Arc::ptr_eq(cached, &set)
        {
            return Ok(value.clone());
        }
        let value = Arc::new(build(&set)?);
        *self.slot.write() = Some((set, value.clone()));
        Ok(value)
    }
}
