//! The datasets catalog: `datasets/catalog.sqlite` in the engine's state directory holds every
//! dataset (name, url, dates, the data file that answers now) and every import run with its
//! steps and log. WAL with `synchronous = FULL`: an answered create/update/delete, and every
//! switch of a dataset to newly imported data, survives a power cut.
use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use crate::api::{Dataset, ImportRun, ImportStatus};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS datasets (
    id                            TEXT PRIMARY KEY NOT NULL,
    name                          TEXT NOT NULL,
    url                           TEXT NOT NULL,
    created_at                    TEXT NOT NULL,
    updated_at                    TEXT NOT NULL,
    scheduled_for_deletion_after  TEXT,
    -- file name (in the dataset's directory) of the data that answers; NULL before the first
    -- successful import
    data_file                     TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runs (
    id          TEXT PRIMARY KEY NOT NULL,
    dataset_id  TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    url         TEXT NOT NULL,
    -- the ImportRun as JSON (status and steps)
    run         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_dataset ON runs(dataset_id, seq);";

/// Why the catalog could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The database.
    #[error("datasets catalog: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored run that no longer reads.
    #[error("datasets catalog: stored run: {0}")]
    Json(#[from] serde_json::Error),
    /// The directory.
    #[error("datasets directory: {0}")]
    Io(#[from] std::io::Error),
}

/// A dataset as the catalog keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetRow {
    /// Id (uuid).
    pub id: String,
    /// Name.
    pub name: String,
    /// Where its data comes from.
    pub url: String,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last change of name, url or data.
    pub updated_at: DateTime<Utc>,
    /// Automatic removal after this time.
    pub scheduled_for_deletion_after: Option<DateTime<Utc>>,
    /// The data file that answers (file name in the dataset's directory).
    pub data_file: Option<String>,
}

impl DatasetRow {
    /// The contract's view of the dataset.
    pub fn to_api(&self) -> Dataset {
        Dataset {
            id: self.id.clone(),
            name: self.name.clone(),
            url: Some(self.url.clone()),
            reimport_key: None,
            created_at: self.created_at,
            updated_at: self.updated_at,
            scheduled_for_deletion_after: self.scheduled_for_deletion_after,
        }
    }

    /// Whether the dataset is due for removal at `now`.
    pub fn expired(&self, now: DateTime<Utc>) -> bool {
        self.scheduled_for_deletion_after.is_some_and(|t| t <= now)
    }
}

/// A run as the catalog keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    /// Dataset the run imports into.
    pub dataset_id: String,
    /// Order of the run among the dataset's runs (the latest is the status).
    pub seq: i64,
    /// The url the run fetches (the dataset's url when the run started).
    pub url: String,
    /// Status and steps.
    pub run: ImportRun,
}

/// The catalog database.
#[derive(Debug)]
pub struct Catalog {
    conn: Connection,
}

fn time(s: &str) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
        })
}

fn text(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Catalog {
    /// Opens (creates) `catalog.sqlite` in `dir`.
    pub fn open(dir: &Path) -> Result<Catalog, CatalogError> {
        std::fs::create_dir_all(dir)?;
        let conn = Connection::open(dir.join("catalog.sqlite"))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.execute_batch(SCHEMA)?;
        Ok(Catalog { conn })
    }

    /// Every dataset, oldest first.
    pub fn datasets(&self) -> Result<Vec<DatasetRow>, CatalogError> {
        let mut stmt = self.conn.prepare(
            "SELECT id, name, url, created_at, updated_at, scheduled_for_deletion_after, data_file \
             FROM datasets ORDER BY created_at, id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(DatasetRow {
                id: r.get(0)?,
                name: r.get(1)?,
                url: r.get(2)?,
                created_at: time(&r.get::<_, String>(3)?)?,
                updated_at: time(&r.get::<_, String>(4)?)?,
                scheduled_for_deletion_after: r
                    .get::<_, Option<String>>(5)?
                    .map(|s| time(&s))
                    .transpose()?,
                data_file: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Inserts or replaces a dataset row.
    pub fn put_dataset(&self, d: &DatasetRow) -> Result<(), CatalogError> {
        Catalog::borrow(&self.conn).put_dataset(d)
    }

    /// Inserts or replaces a dataset row and a run in one transaction.
    pub fn put_dataset_and_run(
        &mut self,
        d: &DatasetRow,
        run: &RunRow,
    ) -> Result<(), CatalogError> {
        let tx = self.conn.transaction()?;
        {
            let c = Catalog::borrow(&tx);
            c.put_dataset(d)?;
            c.put_run(run)?;
        }
        tx.commit()?;
        Ok(())
    }

    fn borrow(conn: &Connection) -> CatalogRef<'_> {
        CatalogRef { conn }
    }

    /// Inserts or replaces a run.
    pub fn put_run(&self, run: &RunRow) -> Result<(), CatalogError> {
        Catalog::borrow(&self.conn).put_run(run)
    }

    /// Removes a dataset and its runs.
    pub fn delete(&mut self, id: &str) -> Result<(), CatalogError> {
        let tx = self.conn.transaction()?;
        tx.execute("DELETE FROM runs WHERE dataset_id = ?1", [id])?;
        tx.execute("DELETE FROM datasets WHERE id = ?1", [id])?;
        tx.commit()?;
        Ok(())
    }

    /// The latest run of a dataset.
    pub fn latest_run(&self, dataset_id: &str) -> Result<Option<RunRow>, CatalogError> {
        let row = self
            .conn
            .query_row(
                "SELECT seq, url, run FROM runs WHERE dataset_id = ?1 ORDER BY seq DESC LIMIT 1",
                [dataset_id],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                    ))
                },
            )
            .optional()?;
        row.map(|(seq, url, run)| {
            Ok(RunRow {
                dataset_id: dataset_id.to_owned(),
                seq,
                url,
                run: serde_json::from_str(&run)?,
            })
        })
        .transpose()
    }

    /// Runs still `in_progress` (interrupted by a stop of the engine).
    pub fn unfinished_runs(&self) -> Result<Vec<RunRow>, CatalogError> {
        let mut stmt = self
            .conn
            .prepare("SELECT dataset_id, seq, url, run FROM runs ORDER BY seq")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (dataset_id, seq, url, run) = row?;
            let run: ImportRun = serde_json::from_str(&run)?;
            if run.status == ImportStatus::InProgress {
                out.push(RunRow {
                    dataset_id,
                    seq,
                    url,
                    run,
                });
            }
        }
        Ok(out)
    }

    /// Records a successful run and switches its dataset to `data_file`, in one transaction.
    pub fn finish_run(
        &mut self,
        run: &RunRow,
        data_file: &str,
        updated_at: DateTime<Utc>,
    ) -> Result<bool, CatalogError> {
        let tx = self.conn.transaction()?;
        let changed = tx.execute(
            "UPDATE datasets SET data_file = ?2, updated_at = ?3 WHERE id = ?1",
            params![run.dataset_id, data_file, text(&updated_at)],
        )?;
        Catalog::borrow(&tx).put_run(run)?;
        tx.commit()?;
        Ok(changed == 1)
    }
}

/// Catalog writes inside a transaction.
struct CatalogRef<'a> {
    conn: &'a Connection,
}

impl CatalogRef<'_> {
    fn put_dataset(&self, d: &DatasetRow) -> Result<(), CatalogError> {
        self.conn.execute(
            "INSERT OR REPLACE INTO datasets (id, name, url, created_at, updated_at, \
             scheduled_for_deletion_after, data_file) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                d.id,
                d.name,
                d.url,
                text(&d.created_at),
                text(&d.updated_at),
                d.scheduled_for_deletion_after.as_ref().map(text),
                d.data_file
            ],
        )?;
        Ok(())
    }

    fn put_run(&self, run: &RunRow) -> Result<(), CatalogError> {
        self.conn.execute(
            "INSERT OR REPLACE INTO runs (id, dataset_id, seq, url, run) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                run.run.id,
                run.dataset_id,
                run.seq,
                run.url,
                serde_json::to_string(&run.run)?
            ],
        )?;
        Ok(())
    }
}
