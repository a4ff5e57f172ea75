//! Free quota per key, persisted in SQLite so that a restart does not give a key its quota back.
//!
//! Counting happens in memory with atomics (a request costs one `fetch_add`), and every
//! counted request is written to the `key_usage` table before it is answered (one small
//! upsert, WAL with `synchronous = NORMAL`: the commit is in the WAL file, which survives the
//! process being killed; a power cut may lose the last commits). So a process killed with
//! SIGKILL loses no count of an answered request: a key never gets more than its quota across
//! restarts (a request killed between its write and its answer is counted without having been
//! answered — the error is on the key's side, never the publisher's). Only keys with a quota
//! are counted (`Authorizer::charge`), so unlimited keys cost nothing.
//!
//! ```
//! use waymark_core::auth::quota::QuotaStore;
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("state.sqlite");
//! let store = QuotaStore::open(&path).unwrap();
//! assert_eq!(store.charge(1, 2).unwrap(), Ok(()));
//! assert_eq!(store.charge(1, 2).unwrap(), Ok(()));
//! assert_eq!(store.charge(1, 2).unwrap(), Err(2)); // used up
//! drop(store);
//! let store = QuotaStore::open(&path).unwrap();
//! assert_eq!(store.used(1).unwrap(), 2);
//! ```
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::{Mutex, RwLock};
use rusqlite::{Connection, OptionalExtension, params};

use crate::error::{Error, Result};

#[derive(Debug, Default)]
struct Counter {
    used: AtomicU64,
    flushed: AtomicU64,
}

/// Persistent per-key usage counters.
#[derive(Debug)]
pub struct QuotaStore {
    conn: Mutex<Connection>,
    counters: RwLock<HashMap<u128, Arc<Counter>>>,
}

impl QuotaStore {
    /// Opens (creating if needed) the state database at `path`.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io(format!("creating {}", parent.display()), e))?;
        }
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS key_usage (
                kid TEXT PRIMARY KEY NOT NULL,
                used INTEGER NOT NULL
            )",
        )?;
        Ok(QuotaStore {
            conn: Mutex::new(conn),
            counters: RwLock::new(HashMap::new()),
        })
    }

    fn counter(&self, kid: u128) -> Result<Arc<Counter>> {
        if let Some(c) = self.counters.read().get(&kid) {
            return Ok(c.clone());
        }
        let stored: u64 = self
            .conn
            .lock()
            .query_row(
                "SELECT used FROM key_usage WHERE kid = ?1",
                params![format!("{kid:032x}")],
                |row| row.get::<_, i64>(0),
            )
            .optional()?
            .map_or(0, |v| v.max(0) as u64);
        let mut map = self.counters.write();
        Ok(map
            .entry(kid)
            .or_insert_with(|| {
                Arc::new(Counter {
                    used: AtomicU64::new(stored),
                    flushed: AtomicU64::new(stored),
                })
            })
            .clone())
    }

    /// Counts one request of key `kid` against `quota` and writes the count before returning;
    /// `Err(quota)` when it is used up (the refused request is not counted). A failed write is
    /// an error and the request is not counted.
    pub fn charge(&self, kid: u128, quota: u64) -> Result<Result<(), u64>> {
        let counter = self.counter(kid)?;
        let prev = counter.used.fetch_add(1, Ordering::AcqRel);
        if prev >= quota {
            counter.used.fetch_sub(1, Ordering::AcqRel);
            return Ok(Err(quota));
        }
        let used = prev + 1;
        if let Err(e) = self.write(&[(kid, used)]) {
            counter.used.fetch_sub(1, Ordering::AcqRel);
            return Err(e);
        }
        counter.flushed.fetch_max(used, Ordering::AcqRel);
        Ok(Ok(()))
    }

    /// Requests counted so far for `kid`.
    pub fn used(&self, kid: u128) -> Result<u64> {
        Ok(self.counter(kid)?.used.load(Ordering::Acquire))
    }

    /// Stores the counts (a stored count never goes down: concurrent writers keep the
    /// largest).
    fn write(&self, counts: &[(u128, u64)]) -> Result<()> {
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO key_usage (kid, used) VALUES (?1, ?2)
                 ON CONFLICT(kid) DO UPDATE SET used = MAX(used, excluded.used)",
            )?;
            for (kid, used) in counts {
                stmt.execute(params![format!("{kid:032x}"), *used as i64])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Writes every counter not written yet (none, since [`QuotaStore::charge`] writes
    /// through; kept for shutdown).
    pub fn flush(&self) -> Result<()> {
        let dirty: Vec<(u128, Arc<Counter>, u64)> = self
            .counters
            .read()
            .iter()
            .filter_map(|(kid, c)| {
                let used = c.used.load(Ordering::Acquire);
                (used != c.flushed.load(Ordering::Acquire)).then(|| (*kid, c.clone(), used))
            })
            .collect();
        if dirty.is_empty() {
            return Ok(());
        }
        let counts: Vec<(u128, u64)> = dirty.iter().map(|(kid, _, used)| (*kid, *used)).collect();
        self.write(&counts)?;
        for (_, c, used) in dirty {
            c.flushed.fetch_max(used, Ordering::AcqRel);
        }
        Ok(())
    }
}

impl Drop for QuotaStore {
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            tracing::error!(error = %e, "could not save key usage on shutdown");
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn quota_survives_reopen_and_refusals_are_not_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        {
            let s = QuotaStore::open(&path).unwrap();
            for _ in 0..3 {
                s.charge(42, 5).unwrap().unwrap();
            }
        }
        let s = QuotaStore::open(&path).unwrap();
        assert_eq!(s.used(42).unwrap(), 3);
        s.charge(42, 5).unwrap().unwrap();
        s.charge(42, 5).unwrap().unwrap();
        assert_eq!(s.charge(42, 5).unwrap(), Err(5));
        assert_eq!(s.used(42).unwrap(), 5);
        assert_eq!(s.used(43).unwrap(), 0);
    }

    #[test]
    fn every_charge_is_written_before_it_returns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let s = QuotaStore::open(&path).unwrap();
        s.charge(1, 100).unwrap().unwrap();
        s.charge(1, 100).unwrap().unwrap();
        let other = Connection::open(&path).unwrap();
        let used: i64 = other
            .query_row("SELECT used FROM key_usage", [], |r| r.get(0))
            .unwrap();
        assert_eq!(used, 2);
        std::mem::forget(s); // simulate a kill: no drop-time flush
        let s = QuotaStore::open(&path).unwrap();
        assert_eq!(s.used(1).unwrap(), 2);
    }

    #[test]
    fn concurrent_charges_never_exceed_the_quota() {
        let dir = tempfile::tempdir().unwrap();
        let s = Arc::new(QuotaStore::open(&dir.path().join("s.sqlite")).unwrap());
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let s = s.clone();
                std::thread::spawn(move || {
                    (0..500)
                        .filter(|_| s.charge(9, 1000).unwrap().is_ok())
                        .count()
                })
            })
            .collect();
        let ok: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(ok, 1000);
        assert_eq!(s.used(9).unwrap(), 1000);
    }
}
