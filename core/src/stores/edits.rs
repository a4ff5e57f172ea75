//! Zone edits (`PUT /zones`): the engine's writable state over the zones of the signed packs.
//!
//! Packs are immutable and signed, so an update never touches them: each accepted zone is
//! written to `zones.sqlite` in the engine's state directory, in one SQLite transaction per
//! batch (synchronous `FULL`: an answered batch survives a power cut; a process killed
//! mid-batch leaves the previous state, never half a batch). An edit remembers the pack zone it
//! was made on (`pack_id`, `pack_version` and `base`, the SHA-256 of that zone's content). An
//! edit is the field team's data and is never overridden by a pack:
//!
//! * a restart reloads the edits; a hot-swapped pack that brings the zone unchanged keeps it;
//! * a newer pack that changes the zone (even only its description) or no longer carries it
//!   leaves the edit in force and puts the zone in conflict ([`super::StoreIndex::conflict`])
//!   until the zone is updated again (that update is made on the pack's zone as it is then);
//!   a pack whose zone is exactly the edit's (the edit republished) is no conflict;
//! * an edit whose store no installed pack has does not answer searches (the pack's zone of
//!   that id, if any, does), and is kept.
//!
//! The in-memory [`EditSet`] is replaced as a whole after each committed batch; searches
//! build the [`ZoneOverlay`] of their index and edit set once per pair (compared by pointer).
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use rstar::RTree;
use rstar::primitives::{GeomWithData, Rectangle};
use rusqlite::{Connection, params};

use super::index::{StoreIndex, ZoneShape, zone_box};
use super::zone::{zone_polygon, zone_shape};

/// Why the edits could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum EditsError {
    /// The state database.
    #[error("zones state database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The state directory.
    #[error("zones state directory: {0}")]
    Io(#[from] std::io::Error),
}

/// One accepted zone update.
#[derive(Debug, Clone)]
pub struct ZoneEdit {
    /// The zone.
    pub zone_id: String,
    /// The pack whose zone it replaces.
    pub pack_id: String,
    /// That pack's version when the edit was made.
    pub pack_version: String,
    /// Digest of that pack zone's content when the edit was made.
    pub base: String,
    /// Store the zone belongs to.
    pub store_id: String,
    /// Description.
    pub description: Option<String>,
    /// Well-known text, as received.
    pub polygon: String,
    /// Types.
    pub types: Vec<String>,
    /// Status.
    pub status: Option<String>,
    /// When it was accepted (RFC 3339, UTC).
    pub updated_at: String,
    /// A deletion: the zone no longer answers (the pack's zone of that id is hidden).
    pub deleted: bool,
    /// The checked geometry.
    pub shape: ::geo::Geometry<f64>,
}

impl ZoneEdit {
    /// The content digest a pack zone equal to this edit has.
    pub fn digest(&self) -> String {
        super::index::zone_digest(
            &self.store_id,
            self.description.as_deref(),
            &self.polygon,
            &self.types,
            self.status.as_deref(),
        )
    }
}

/// Every edit, as of one committed batch.
#[derive(Debug, Default)]
pub struct EditSet {
    /// Edits by zone id.
    pub zones: HashMap<String, Arc<ZoneEdit>>,
}

/// The persistent zone edits of an engine.
#[derive(Debug)]
pub struct ZoneEdits {
    conn: Mutex<Connection>,
    current: RwLock<Arc<EditSet>>,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS zone_edits (
    zone_id      TEXT PRIMARY KEY NOT NULL,
    pack_id      TEXT NOT NULL,
    pack_version TEXT NOT NULL DEFAULT '',
    base         TEXT NOT NULL,
    store_id     TEXT NOT NULL,
    description  TEXT,
    polygon_wkt  TEXT NOT NULL,
    types        TEXT NOT NULL,
    status       TEXT,
    updated_at   TEXT NOT NULL,
    deleted      INTEGER NOT NULL DEFAULT 0
);";

impl ZoneEdits {
    /// Opens (creates) `zones.sqlite` in `state_dir` and loads the edits.
    pub fn open(state_dir: &Path) -> Result<ZoneEdits, EditsError> {
        std::fs::create_dir_all(state_dir)?;
        let conn = Connection::open(state_dir.join("zones.sqlite"))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        // State written before edits recorded their pack version.
        let has_version: bool = conn.query_row(
            "SELECT count(*) FROM pragma_table_info('zone_edits') WHERE name = 'pack_version'",
            [],
            |r| r.get::<_, i64>(0).map(|n| n > 0),
        )?;
        if !has_version {
            conn.execute_batch(
                "ALTER TABLE zone_edits ADD COLUMN pack_version TEXT NOT NULL DEFAULT ''",
            )?;
        }
        // State written before zones could be deleted.
        let has_deleted: bool = conn.query_row(
            "SELECT count(*) FROM pragma_table_info('zone_edits') WHERE name = 'deleted'",
            [],
            |r| r.get::<_, i64>(0).map(|n| n > 0),
        )?;
        if !has_deleted {
            conn.execute_batch(
                "ALTER TABLE zone_edits ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0",
            )?;
        }
        let mut zones = HashMap::new();
        {
            let mut stmt = conn.prepare(
                "SELECT zone_id, pack_id, base, store_id, description, polygon_wkt, types, status, \
                 updated_at, pack_version, deleted FROM zone_edits",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, Option<String>>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                    r.get::<_, Option<String>>(7)?,
                    r.get::<_, String>(8)?,
                    r.get::<_, String>(9)?,
                    r.get::<_, bool>(10)?,
                ))
            })?;
            for row in rows {
                let (
                    zone_id,
                    pack_id,
                    base,
                    store_id,
                    description,
                    polygon,
                    types,
                    status,
                    at,
                    pack_version,
                    deleted,
                ) = row?;
                // Accepted edits were checked; one that no longer reads (a geo upgrade with
                // stricter rules) is left unused rather than failing the engine.
                // A deletion keeps the pack zone's polygon, checked when the pack was built.
                let shape = match deleted {
                    true => zone_shape(&polygon),
                    false => zone_polygon(&polygon),
                };
                let Ok(shape) = shape else {
                    tracing::warn!(zone = %zone_id, "stored zone edit no longer reads; unused");
                    continue;
                };
                let edit = ZoneEdit {
                    zone_id: zone_id.clone(),
                    pack_id,
                    pack_version,
                    base,
                    store_id,
                    description,
                    polygon,
                    types: serde_json::from_str(&types).unwrap_or_default(),
                    status,
                    updated_at: at,
                    deleted,
                    shape,
                };
                zones.insert(zone_id, Arc::new(edit));
            }
        }
        Ok(ZoneEdits {
            conn: Mutex::new(conn),
            current: RwLock::new(Arc::new(EditSet { zones })),
        })
    }

    /// The edits now.
    pub fn current(&self) -> Arc<EditSet> {
        self.current.read().clone()
    }

    /// Runs `prepare` on the current edits and commits the batch it returns (edits to write,
    /// zone ids whose edit to remove), all or nothing; batches run one at a time, so
    /// `prepare` sees the state its batch replaces. `prepare`'s error is returned with
    /// nothing written. The count is that of the edits written.
    pub fn commit<E: From<EditsError>>(
        &self,
        prepare: impl FnOnce(&EditSet) -> Result<(Vec<ZoneEdit>, Vec<String>), E>,
    ) -> Result<usize, E> {
        let mut conn = self.conn.lock();
        let before = self.current();
        let (batch, removed) = prepare(&before)?;
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(EditsError::from)?;
        {
            let mut stmt = tx
                .prepare(
                    "INSERT INTO zone_edits (zone_id, pack_id, base, store_id, description, \
                     polygon_wkt, types, status, updated_at, pack_version, deleted) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) \
                     ON CONFLICT(zone_id) DO UPDATE SET pack_id = excluded.pack_id, \
                     pack_version = excluded.pack_version, deleted = excluded.deleted, \
                     base = excluded.base, store_id = excluded.store_id, \
                     description = excluded.description, polygon_wkt = excluded.polygon_wkt, \
                     types = excluded.types, status = excluded.status, updated_at = excluded.updated_at",
                )
                .map_err(EditsError::from)?;
            for e in &batch {
                let types = serde_json::Value::from(e.types.clone()).to_string();
                stmt.execute(params![
                    e.zone_id,
                    e.pack_id,
                    e.base,
                    e.store_id,
                    e.description,
                    e.polygon,
                    types,
                    e.status,
                    e.updated_at,
                    e.pack_version,
                    e.deleted
                ])
                .map_err(EditsError::from)?;
            }
            for zone_id in &removed {
                tx.execute("DELETE FROM zone_edits WHERE zone_id = ?1", [zone_id])
                    .map_err(EditsError::from)?;
            }
        }
        tx.commit().map_err(EditsError::from)?;
        let count = batch.len();
        let mut zones = before.zones.clone();
        for zone_id in &removed {
            zones.remove(zone_id);
        }
        for e in batch {
            zones.insert(e.zone_id.clone(), Arc::new(e));
        }
        *self.current.write() = Arc::new(EditSet { zones });
        Ok(count)
    }
}

/// The zones of an index once the edits that apply are laid over it.
#[derive(Debug, Default)]
pub struct ZoneOverlay {
    /// Pack zones replaced by an edit.
    masked: HashSet<u32>,
    /// The edited zones (store index, shape).
    zones: Vec<ZoneShape>,
    boxes: RTree<GeomWithData<Rectangle<[f64; 2]>, u32>>,
}

impl ZoneOverlay {
    /// The overlay of `edits` on `index`.
    pub fn new(index: &StoreIndex, edits: &EditSet) -> ZoneOverlay {
        let mut masked = HashSet::new();
        let mut zones = Vec::new();
        for edit in edits.zones.values() {
            // An edit whose store is not installed does not answer; the pack's zone does.
            let Some(store) = index.store_by_id(&edit.store_id) else {
                continue;
            };
            if let Some(zone) = index.applies(edit) {
                masked.insert(zone);
            }
            if edit.deleted {
                continue;
            }
            zones.push(ZoneShape {
                store,
                shape: edit.shape.clone(),
            });
        }
        let boxes = RTree::bulk_load(
            zones
                .iter()
                .enumerate()
                .filter_map(|(i, z)| zone_box(&z.shape, i as u32))
                .collect(),
        );
        ZoneOverlay {
            masked,
            zones,
            boxes,
        }
    }

    /// Whether pack zone `i` is replaced by an edit.
    pub fn masks(&self, i: u32) -> bool {
        self.masked.contains(&i)
    }

    /// The edited zones whose box holds `p` (`[lng, lat]`).
    pub fn candidates(&self, p: [f64; 2]) -> impl Iterator<Item = &ZoneShape> {
        self.boxes
            .locate_in_envelope_intersecting(&rstar::AABB::from_point(p))
            .map(|g| &self.zones[g.data as usize])
    }
}

impl From<EditsError> for crate::error::ApiError {
    fn from(e: EditsError) -> Self {
        tracing::error!(error = %e, "zone edits");
        crate::error::ApiError::internal(&e)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn state_written_before_pack_versions_were_recorded_still_opens() {
        let dir = tempfile::tempdir().unwrap();
        {
            let conn = Connection::open(dir.path().join("zones.sqlite")).unwrap();
            conn.execute_batch(
                "CREATE TABLE zone_edits (zone_id TEXT PRIMARY KEY NOT NULL, \
                 pack_id TEXT NOT NULL, base TEXT NOT NULL, store_id TEXT NOT NULL, \
                 description TEXT, polygon_wkt TEXT NOT NULL, types TEXT NOT NULL, \
                 status TEXT, updated_at TEXT NOT NULL); \
                 INSERT INTO zone_edits VALUES ('Z1', 'retail', 'abc', 'S1', 'd', \
                 'POLYGON((1.5 42.5, 1.6 42.5, 1.6 42.6, 1.5 42.5))', '[\"delivery\"]', NULL, \
                 '2026-11-01T00:00:00.000Z');",
            )
            .unwrap();
        }
        let edits = ZoneEdits::open(dir.path()).unwrap();
        let z1 = edits.current().zones.get("Z1").cloned().unwrap();
        assert_eq!(z1.pack_version, "");
        assert_eq!(z1.types, ["delivery"]);
        // A new edit records its version, and reads back after a reopen.
        edits
            .commit(|_| {
                Ok::<_, EditsError>((
                    vec![ZoneEdit {
                        pack_version: "7".into(),
                        ..(*z1).clone()
                    }],
                    Vec::new(),
                ))
            })
            .unwrap();
        drop(edits);
        let edits = ZoneEdits::open(dir.path()).unwrap();
        assert_eq!(edits.current().zones["Z1"].pack_version, "7");
        assert!(!edits.current().zones["Z1"].deleted);
    }
}
