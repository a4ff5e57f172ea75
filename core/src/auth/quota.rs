//! Free quota per key, persisted in SQLite so that a restart does not give a key its quota back.
//!
//! Counting happens in memory with atomics (a request costs one `fetch_add`); the counts are
//! written to the `key_usage` table at most every [`FLUSH_EVERY`] by the request that notices
//! the interval has passed, on [`QuotaStore::flush`], and when the store is dropped (graceful
//! shutdown). A process killed with SIGKILL can lose at most the last interval of counts.
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
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use rusqlite::{Connection, OptionalExtension, params};

use crate::error::{Error, Result};

/// Longest time between two writes of the counters.
pub const FLUSH_EVERY: Duration = Duration::from_millis(250);

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
    last_flush: Mutex<Instant>,
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
            last_flush: Mutex::new(Instant::now()),
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

    /// Counts one request of key `kid` against `quota`; `Err(quota)` when it is used up (the
    /// refused request is not counted).
    pub fn charge(&self, kid: u128, quota: u64) -> Result<Result<(), u64>> {
        let counter = self.counter(kid)?;
        let prev = counter.used.fetch_add(1, Ordering::AcqRel);
        if prev >= quota {
            counter.used.fetch_sub(1, Ordering::AcqRel);
            return Ok(Err(quota));
        }
        self.maybe_flush()?;
        Ok(Ok(()))
    }

    /// Requests counted so far for `kid`.
    pub fn used(&self, kid: u128) -> Result<u64> {
        Ok(self.counter(kid)?.used.load(Ordering::Acquire))
    }

    fn maybe_flush(&self) -> Result<()> {
        let due = match self.last_flush.try_lock() {
            Some(mut last) if last.elapsed() >= FLUSH_EVERY => {
                *last = Instant::now();
                true
            }
            _ => false,
        };
        if due { self.flush() } else { Ok(()) }
    }

    /// Writes every changed counter now.
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
        let mut conn = self.conn.lock();
        let tx = conn.transaction()?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT INTO key_usage (kid, used) VALUES (?1, ?2)
                 ON CONFLICT(kid) DO UPDATE SET used = MAX(used, excluded.used)",
            )?;
            for (kid, _, used) in &dirty {
                stmt.execute(params![format!("{kid:032x}"), *used as i64])?;
            }
        }
        tx.commit()?;
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
    fn periodic_flush_writes_without_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sqlite");
        let s = QuotaStore::open(&path).unwrap();
        s.charge(1, 100).unwrap().unwrap();
        std::thread::sleep(FLUSH_EVERY + Duration::from_millis(20));
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
