//! A dataset's data file (`<run id>.sqlite` in the dataset's directory) and its in-memory index.
//!
//! The file is written once by an import run and never changed: `features` holds each
//! feature's id, geometry as ISO WKB, attributes as JSON text and bounding box (the columns a
//! SQLite reader needs to query it without Waymark). The engine reads it whole into a
//! [`DatasetIndex`]: the geometries, an R-tree of their boxes, the attributes, the set of
//! attribute paths the features have, and columns of the attributes that `where` filters name.
//!
//! **Columns.** A column (one attribute over every feature) is built on first use, only for a
//! path some feature has: a path no feature has is the shared empty column, whatever it is, so
//! filters naming random paths cost no memory. Built columns are kept in a least-recently-used
//! cache with a byte budget ([`DatasetIndex::COLUMN_BUDGET_BYTES`] by default): adding one
//! evicts the least recently used until the cache is within the budget, and a column larger
//! than the whole budget serves its query without being kept. Columns in use by a query under
//! way live until it ends, evicted or not.
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use geo::{BoundingRect, Geometry};
use parking_lot::Mutex;
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

/// The values of one attribute over every feature, in import order; empty for a path no
/// feature has.
#[derive(Debug, Default)]
pub struct Column {
    /// The value (None: the feature lacks the attribute).
    pub values: Vec<Option<Value>>,
    /// The value when it is a number, else NaN (comparisons read it without matching on JSON).
    pub numbers: Vec<f64>,
    /// What it holds in memory, in bytes (an estimate from the values' sizes).
    pub bytes: usize,
}

impl Column {
    /// The value of feature `i` (None when it lacks the attribute).
    pub fn value(&self, i: usize) -> Option<&Value> {
        self.values.get(i).and_then(Option::as_ref)
    }
}

/// Bytes a JSON value holds on the heap, estimated from its parts.
fn heap_bytes(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(_) | Value::Number(_) => 0,
        Value::String(s) => s.capacity(),
        Value::Array(a) => {
            a.capacity() * std::mem::size_of::<Value>() + a.iter().map(heap_bytes).sum::<usize>()
        }
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| k.capacity() + std::mem::size_of::<Value>() + 32 + heap_bytes(v))
            .sum(),
    }
}

/// The attribute columns kept, least recently used first out, within a byte budget.
#[derive(Debug)]
struct ColumnCache {
    columns: lru::LruCache<String, Arc<Column>>,
    bytes: usize,
    budget: usize,
}

impl ColumnCache {
    fn new(budget: usize) -> Self {
        ColumnCache {
            columns: lru::LruCache::unbounded(),
            bytes: 0,
            budget,
        }
    }

    fn get(&mut self, path: &str) -> Option<Arc<Column>> {
        self.columns.get(path).cloned()
    }

    /// Keeps `column` unless it is larger than the whole budget, evicting the least recently
    /// used columns until the cache is within the budget.
    fn insert(&mut self, path: &str, column: Arc<Column>) {
        if column.bytes > self.budget {
            return;
        }
        if let Some(old) = self.columns.put(path.to_owned(), column.clone()) {
            self.bytes -= old.bytes;
        }
        self.bytes += column.bytes;
        while self.bytes > self.budget {
            match self.columns.pop_lru() {
                Some((_, c)) => self.bytes -= c.bytes,
                None => break,
            }
        }
    }
}

/// Every attribute path of `attributes` a `where` clause can name: each key, and the
/// `.`-joined names along nested objects.
fn collect_paths(attributes: &Map<String, Value>, prefix: &str, out: &mut HashSet<String>) {
    for (k, v) in attributes {
        let path = match prefix.is_empty() {
            true => k.clone(),
            false => format!("{prefix}.{k}"),
        };
        if let Value::Object(inner) = v {
            collect_paths(inner, &path, out);
        }
        out.insert(path);
    }
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
    /// Every attribute path some feature has.
    paths: HashSet<String>,
    /// Attribute columns by path (built on first use by a filter), within a byte budget.
    columns: Mutex<ColumnCache>,
    /// The column of every path no feature has.
    absent: Arc<Column>,
}

impl DatasetIndex {
    /// Default byte budget of the attribute column cache of one dataset: 64 MiB (about 16
    /// columns of numbers or short texts over 100,000 features).
    pub const COLUMN_BUDGET_BYTES: usize = 64 << 20;

    /// Reads the data file at `path`, with the default column budget.
    pub fn load(path: &Path, file: &str) -> Result<DatasetIndex, DataError> {
        Self::load_with_budget(path, file, Self::COLUMN_BUDGET_BYTES)
    }

    /// Reads the data file at `path`; its attribute column cache holds at most
    /// `column_budget` bytes.
    pub fn load_with_budget(
        path: &Path,
        file: &str,
        column_budget: usize,
    ) -> Result<DatasetIndex, DataError> {
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
        let mut paths = HashSet::new();
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
            collect_paths(&attributes, "", &mut paths);
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
            paths,
            columns: Mutex::new(ColumnCache::new(column_budget)),
            absent: Arc::new(Column::default()),
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

    /// The column of attribute `path` (see [`waymark_storequery::lookup_attribute`]): the
    /// shared empty column when no feature has the path, else from the cache or built.
    pub fn column(&self, path: &str) -> Arc<Column> {
        if !self.paths.contains(path) {
            return self.absent.clone();
        }
        if let Some(c) = self.columns.lock().get(path) {
            return c;
        }
        let values: Vec<Option<Value>> = self
            .features
            .iter()
            .map(|f| waymark_storequery::lookup_attribute(&f.attributes, path).cloned())
            .collect();
        let numbers: Vec<f64> = values
            .iter()
            .map(|v| v.as_ref().and_then(Value::as_f64).unwrap_or(f64::NAN))
            .collect();
        let bytes = values.capacity() * std::mem::size_of::<Option<Value>>()
            + numbers.capacity() * std::mem::size_of::<f64>()
            + values.iter().flatten().map(heap_bytes).sum::<usize>();
        let column = Arc::new(Column {
            values,
            numbers,
            bytes,
        });
        self.columns.lock().insert(path, column.clone());
        column
    }

    /// The bytes and the number of the attribute columns kept now.
    pub fn columns_held(&self) -> (usize, usize) {
        let c = self.columns.lock();
        (c.bytes, c.columns.len())
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

    /// 2,000 features, each with 40 of 200 attributes `k<n>` (short texts) and a nested
    /// `owner.name`.
    fn wide(dir: &Path, budget: usize) -> DatasetIndex {
        let file = format!("w{budget}.sqlite");
        let path = dir.join(&file);
        let mut w = DataWriter::create(&path).unwrap();
        for i in 0..2000u32 {
            let mut attrs = Map::new();
            for j in 0..40 {
                let k = (i * 7 + j * 5) % 200;
                attrs.insert(format!("k{k}"), json!(format!("value {i} {j}")));
            }
            attrs.insert("owner".into(), json!({"name": format!("o{}", i % 13)}));
            let p = Geometry::Point(geo::Point::new(f64::from(i % 90), 0.0));
            w.add(&format!("f{i}"), &p, &attrs).unwrap();
        }
        w.finish("run").unwrap();
        DatasetIndex::load_with_budget(&path, &file, budget).unwrap()
    }

    #[test]
    fn only_paths_that_exist_get_columns() {
        let dir = tempfile::tempdir().unwrap();
        let idx = wide(dir.path(), DatasetIndex::COLUMN_BUDGET_BYTES);
        let a = idx.column("no.such.path");
        let b = idx.column("zz9");
        assert!(Arc::ptr_eq(&a, &b) && a.values.is_empty() && a.value(7).is_none());
        assert_eq!(idx.columns_held(), (0, 0));
        let owner = idx.column("owner.name");
        assert_eq!(owner.value(14), Some(&json!("o1")));
        assert_eq!(idx.columns_held().1, 1);
        // A path that exists on some features only: the others lack it.
        let k = idx.column("k0");
        assert_eq!(k.values.len(), 2000);
        assert!(k.values.iter().any(Option::is_none) && k.values.iter().any(Option::is_some));
    }

    #[test]
    fn random_paths_never_push_the_columns_past_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let budget = 600_000;
        let idx = wide(dir.path(), budget);
        let one = idx.column("k1").bytes;
        assert!(one > 0 && one * 3 < budget && one * 10 > budget, "{one}");
        // A stream of paths, existing and not, in random order.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut kept_most = 0;
        for _ in 0..3000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let path = match seed % 3 {
                0 => format!("random{}", seed % 100_000),
                _ => format!("k{}", seed % 200),
            };
            let c = idx.column(&path);
            let (bytes, n) = idx.columns_held();
            assert!(bytes <= budget, "{bytes} > {budget} after {path}");
            kept_most = kept_most.max(n);
            if path.starts_with('k') {
                assert_eq!(c.values.len(), 2000);
            }
        }
        assert!(kept_most >= 3, "the cache keeps columns: {kept_most}");
        // The most recently used column is still kept: asking again builds nothing new.
        let again = idx.column("k3");
        assert!(Arc::ptr_eq(&again, &idx.column("k3")));
        // A column larger than the whole budget serves its query and is not kept.
        let tiny = wide(dir.path(), 100);
        assert_eq!(tiny.column("k1").values.len(), 2000);
        assert_eq!(tiny.columns_held(), (0, 0));
    }
}
