//! A dataset's data file (`<run id>.sqlite` in the dataset's directory) and its in-memory index.
//!
//! The file is written once by an import run and never changed: `features` holds each
//! feature's id, geometry as ISO WKB, attributes as JSON text and bounding box (the columns a
//! SQLite reader needs to query it without Waymark). The engine reads it whole into a
//! [`DatasetIndex`]: the geometries, an R-tree of their boxes, the attributes, and columns of
//! the attributes that `where` filters name (built on first use).
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use geo::{BoundingRect, Geometry};
use parking_lot::RwLock;
use rstar::RTree;
use rstar::primitives::{GeomWithData, Rectangle};
use rusqlite::{Connection, OpenFlags, params};
use serde_json::{Map, Value};

/// Version of the data file layout (`meta.format_version`).
pub const DATA_FORMAT_VERSION: u32 = 1;

const SCHEMA: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE features (
    fid         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    geometry    BLOB NOT NULL,
    attributes  TEXT NOT NULL,
    min_x       REAL NOT NULL,
    min_y       REAL NOT NULL,
    max_x       REAL NOT NULL,
    max_y       REAL NOT NULL
);";

/// Why a data file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// SQLite.
    #[error("dataset data file: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored value that does not read.
    #[error("dataset data file: feature {id}: {message}")]
    Corrupt {
        /// Feature id.
        id: String,
        /// What is wrong.
        message: String,
    },
}

/// Writes a new data file, one feature at a time, in one transaction.
#[derive(Debug)]
pub struct DataWriter {
    conn: Connection,
    count: u64,
}

impl DataWriter {
    /// Creates the file at `path` (which must not exist).
    pub fn create(path: &Path) -> Result<DataWriter, DataError> {
        let conn = Connection::open(path)?;
        // The file is only used once it is complete and synced (see `finish`), so the writes
        // need no journal.
        conn.pragma_update(None, "journal_mode", "OFF")?;
        conn.pragma_update(None, "synchronous", "OFF")?;
        conn.execute_batch(SCHEMA)?;
        conn.execute_batch("BEGIN")?;
        Ok(DataWriter { conn, count: 0 })
    }

    /// Adds a feature.
    pub fn add(
        &mut self,
        id: &str,
        geometry: &Geometry<f64>,
        attributes: &Map<String, Value>,
    ) -> Result<(), DataError> {
        let Some(rect) = geometry.bounding_rect() else {
            return Err(DataError::Corrupt {
                id: id.to_owned(),
                message: "empty geometry".into(),
            });
        };
        let wkb = waymark_geoformats::to_wkb(geometry);
        let attrs = Value::Object(attributes.clone()).to_string();
        let mut stmt = self.conn.prepare_cached(
            "INSERT INTO features (id, geometry, attributes, min_x, min_y, max_x, max_y) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        stmt.execute(params![
            id,
            wkb,
            attrs,
            rect.min().x,
            rect.min().y,
            rect.max().x,
            rect.max().y
        ])?;
        self.count += 1;
        Ok(())
    }

    /// Features added so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Commits, records the meta facts and syncs the file to disk.
    pub fn finish(self, run_id: &str) -> Result<u64, DataError> {
        let conn = self.conn;
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('format_version', ?1), ('run_id', ?2), ('features', ?3)",
            params![DATA_FORMAT_VERSION.to_string(), run_id, self.count.to_string()],
        )?;
        conn.execute_batch("COMMIT")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        // No journal: closing the connection writes the pages; the caller syncs the file before
        // it is used (`run::switch`).
        drop(conn);
        Ok(self.count)
    }
}

/// One feature in memory.
#[derive(Debug)]
pub struct Feature {
    /// Id (uuid).
    pub id: String,
    /// Geometry (x = longitude, y = latitude).
    pub geometry: Geometry<f64>,
    /// Attributes.
    pub attributes: Map<String, Value>,
}

/// The values of one attribute over every feature, in import order.
#[derive(Debug)]
pub struct Column {
    /// The value (None: the feature lacks the attribute).
    pub values: Vec<Option<Value>>,
    /// The value when it is a number, else NaN (comparisons read it without matching on JSON).
    pub numbers: Vec<f64>,
}

/// A box in the R-tree, with the feature's position.
type Boxed = GeomWithData<Rectangle<[f64; 2]>, u32>;

/// A dataset's data in memory.
#[derive(Debug)]
pub struct DatasetIndex {
    /// The data file it was read from.
    pub file: String,
    /// Features in import order.
    pub features: Vec<Feature>,
    by_id: HashMap<String, u32>,
    tree: RTree<Boxed>,
    /// Attribute columns by path (built on first use by a filter).
    columns: RwLock<HashMap<String, Arc<Column>>>,
}

impl DatasetIndex {
    /// Reads the data file at `path`.
    pub fn load(path: &Path, file: &str) -> Result<DatasetIndex, DataError> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        let mut stmt = conn.prepare(
            "SELECT id, geometry, attributes, min_x, min_y, max_x, max_y FROM features ORDER BY fid",
        )?;
        let mut rows = stmt.query([])?;
        let mut features = Vec::new();
        let mut boxes = Vec::new();
        while let Some(r) = rows.next()? {
            let id: String = r.get(0)?;
            let wkb: Vec<u8> = r.get(1)?;
            let attrs: String = r.get(2)?;
            let geometry =
                waymark_geoformats::from_wkb(&wkb).map_err(|message| DataError::Corrupt {
                    id: id.clone(),
                    message,
                })?;
            let attributes = match serde_json::from_str(&attrs) {
                Ok(Value::Object(m)) => m,
                _ => {
                    return Err(DataError::Corrupt {
                        id,
                        message: "attributes are not a json object".into(),
                    });
                }
            };
            let corner = |x: f64, y: f64| [x, y];
            let rect =
                Rectangle::from_corners(corner(r.get(3)?, r.get(4)?), corner(r.get(5)?, r.get(6)?));
            boxes.push(GeomWithData::new(rect, features.len() as u32));
            features.push(Feature {
                id,
                geometry,
                attributes,
            });
        }
        let by_id = features
            .iter()
            .enumerate()
            .map(|(i, f)| (f.id.clone(), i as u32))
            .collect();
        Ok(DatasetIndex {
            file: file.to_owned(),
            features,
            by_id,
            tree: RTree::bulk_load(boxes),
            columns: RwLock::default(),
        })
    }

    /// The feature with id `id`.
    pub fn get(&self, id: &str) -> Option<&Feature> {
        self.by_id
            .get(id)
            .and_then(|&i| self.features.get(i as usize))
    }

    /// Positions of the features whose boxes meet `[min, max]`, in import order.
    pub fn in_box(&self, min: [f64; 2], max: [f64; 2]) -> Vec<u32> {
        let env = rstar::AABB::from_corners(min, max);
        let mut found: Vec<u32> = self
            .tree
            .locate_in_envelope_intersecting(&env)
            .map(|b| b.data)
            .collect();
        found.sort_unstable();
        found
    }

    /// The column of attribute `path` (see [`waymark_storequery::lookup_attribute`]).
    pub fn column(&self, path: &str) -> Arc<Column> {
        if let Some(c) = self.columns.read().get(path) {
            return c.clone();
        }
        let values: Vec<Option<Value>> = self
            .features
            .iter()
            .map(|f| waymark_storequery::lookup_attribute(&f.attributes, path).cloned())
            .collect();
        let numbers = values
            .iter()
            .map(|v| v.as_ref().and_then(Value::as_f64).unwrap_or(f64::NAN))
            .collect();
        let column = Arc::new(Column { values, numbers });
        self.columns.write().insert(path.to_owned(), column.clone());
        column
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn written_files_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.sqlite");
        let mut w = DataWriter::create(&path).unwrap();
        let p = Geometry::Point(geo::Point::new(2.0, 48.0));
        let attrs = json!({"k": 1}).as_object().unwrap().clone();
        w.add("a", &p, &attrs).unwrap();
        w.add(
            "b",
            &Geometry::Point(geo::Point::new(3.0, 49.0)),
            &Map::new(),
        )
        .unwrap();
        assert_eq!(w.finish("run").unwrap(), 2);
        let idx = DatasetIndex::load(&path, "r.sqlite").unwrap();
        assert_eq!(idx.get("a").unwrap().attributes, attrs);
        assert_eq!(idx.in_box([1.0, 47.0], [2.5, 48.5]), vec![0]);
        assert_eq!(idx.column("k").values, [Some(json!(1)), None]);
        assert_eq!(idx.column("k").numbers[0], 1.0);
        assert!(idx.column("k").numbers[1].is_nan());
    }
}
