//! The asynchronous distance matrix: jobs persisted in `matrix.sqlite` under the engine's state
//! directory, computed by one background worker with the hierarchy's many-to-many search.
//!
//! * **States.** `accepted` (stored, waiting) → `inProgress` (the worker took it) →
//!   `completed` (result stored) | `error` (no installed pack has roads for the points, or the
//!   computation failed: the message is kept) | `timeout` (the computation took longer than
//!   [`JOB_TIMEOUT`]; its result is discarded).
//! * **Restarts.** Nothing is held only in memory: a job's request is stored when it is
//!   accepted (before the answer; WAL with `synchronous = FULL`, so an answered job survives
//!   a killed process and a power cut) and its result when it completes. A job found `inProgress` when the engine opens
//!   the store (the process stopped while computing it) is put back to `accepted` and computed
//!   again from its stored request — the computation is deterministic, so resuming loses
//!   nothing. The worker starts with the first matrix call after start-up.
//! * **Retention.** Jobs are deleted 24 hours after they were created.
//! * **Cells.** Origin-major flat arrays (`i * numDestinations + j`), `travelTimes` in
//!   seconds (0.1 s), `distances` in metres (along the fastest path); an origin equal to a
//!   destination holds 0; a pair without a route — a point farther than 5 km from a road the
//!   mode may use, a destination unreachable from the origin, or points in no common pack —
//!   holds `null`.
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use rusqlite::{Connection, OptionalExtension, params};

use crate::api::UnknownValue;
use crate::api::{
    LatLng, MatrixCreateRequest, MatrixData, MatrixResult, MatrixStatus, RegionDefinition,
};
use crate::error::ApiError;
use crate::geo::Pt;
use crate::routing::Metric;
use crate::routing::reach::SnapCandidates;

use super::{RoutingCache, RoutingPacks, profile, pt};

/// Longest a computation may take before its job is marked `timeout`.
pub const JOB_TIMEOUT: Duration = Duration::from_secs(60);
/// How long jobs are kept.
pub const RETENTION_S: i64 = 24 * 3600;

/// The job store and its worker.
#[derive(Debug)]
pub struct MatrixJobs {
    conn: Mutex<Connection>,
    wake: Condvar,
    pending: Mutex<bool>,
    started: AtomicBool,
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Why the job store failed. Internal: callers get [`ApiError::internal`], the log gets this.
#[derive(Debug, thiserror::Error)]
pub enum JobStoreError {
    /// The state directory cannot be created.
    #[error("matrix job store: {0}")]
    Io(#[from] std::io::Error),
    /// SQLite failed.
    #[error("matrix job store: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A stored request or result does not (de)serialize.
    #[error("matrix job store: {0}")]
    Json(#[from] serde_json::Error),
    /// No random job id.
    #[error("matrix job store: random job id: {0}")]
    Random(#[from] getrandom::Error),
    /// A stored status is not one of the spec's.
    #[error("matrix job store: {0}")]
    Status(#[from] UnknownValue),
}

/// The public error of a job store failure (logged by [`ApiError::internal`]).
fn internal(e: impl Into<JobStoreError>) -> ApiError {
    ApiError::internal(&e.into())
}

impl MatrixJobs {
    /// Opens (creates) the store in `state_dir`, resuming jobs that were in progress.
    pub fn open(state_dir: &Path) -> Result<MatrixJobs, ApiError> {
        std::fs::create_dir_all(state_dir).map_err(internal)?;
        let conn = Connection::open(state_dir.join("matrix.sqlite")).map_err(internal)?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL;
             PRAGMA synchronous=FULL;
             CREATE TABLE IF NOT EXISTS matrix_jobs (
                 id          TEXT PRIMARY KEY NOT NULL,
                 status      TEXT NOT NULL,
                 request     TEXT NOT NULL,
                 result      TEXT,
                 error       TEXT,
                 created_at  INTEGER NOT NULL,
                 updated_at  INTEGER NOT NULL
             );
             CREATE INDEX IF NOT EXISTS matrix_jobs_status ON matrix_jobs(status, created_at);",
        )
        .map_err(internal)?;
        conn.execute(
            "UPDATE matrix_jobs SET status = 'accepted', updated_at = ?1 WHERE status = 'inProgress'",
            [now()],
        )
        .map_err(internal)?;
        conn.execute(
            "DELETE FROM matrix_jobs WHERE created_at < ?1",
            [now() - RETENTION_S],
        )
        .map_err(internal)?;
        Ok(MatrixJobs {
            conn: Mutex::new(conn),
            wake: Condvar::new(),
            pending: Mutex::new(true),
            started: AtomicBool::new(false),
        })
    }

    /// Stores a new job and returns its id.
    pub fn create(&self, req: &MatrixCreateRequest) -> Result<String, ApiError> {
        let mut id = [0u8; 16];
        getrandom::fill(&mut id).map_err(internal)?;
        let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let json = serde_json::to_string(req).map_err(internal)?;
        self.conn
            .lock()
            .execute(
                "INSERT INTO matrix_jobs(id, status, request, created_at, updated_at) \
                 VALUES (?1, 'accepted', ?2, ?3, ?3)",
                params![id, json, now()],
            )
            .map_err(internal)?;
        *self.pending.lock() = true;
        self.wake.notify_all();
        Ok(id)
    }

    /// The state of a job (404 when unknown).
    pub fn status(&self, id: &str) -> Result<(MatrixStatus, Option<String>), ApiError> {
        let row: Option<(String, Option<String>)> = self
            .conn
            .lock()
            .query_row(
                "SELECT status, error FROM matrix_jobs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(internal)?;
        let (status, error) = row.ok_or_else(|| unknown(id))?;
        let status: MatrixStatus = status.parse().map_err(internal)?;
        Ok((status, error))
    }

    /// The result of a completed job (404 otherwise, saying why).
    pub fn result(&self, id: &str) -> Result<MatrixResult, ApiError> {
        let (status, error) = self.status(id)?;
        if status != MatrixStatus::Completed {
            let why = match (status, error) {
                (MatrixStatus::Error | MatrixStatus::Timeout, Some(e)) => {
                    format!("matrix `{id}` ended with status {status}: {e}")
                }
                _ => format!(
                    "matrix `{id}` is not completed (status {status}); poll \
                     /distance/matrix/async/{id}/status until it is `completed`"
                ),
            };
            return Err(ApiError::not_found(why));
        }
        let json: String = self
            .conn
            .lock()
            .query_row("SELECT result FROM matrix_jobs WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .map_err(internal)?;
        serde_json::from_str(&json).map_err(internal)
    }

    /// Starts the worker once. It holds only weak references, to the store and to the
    /// `routing` it computes with, and stops when the distance service is dropped.
    pub fn ensure_worker(self: &Arc<Self>, routing: Weak<RoutingCache>) {
        if self.started.swap(true, Ordering::SeqCst) {
            return;
        }
        let jobs = Arc::downgrade(self);
        let spawned = std::thread::Builder::new()
            .name("matrix-jobs".into())
            .spawn(move || worker(jobs, routing));
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start the matrix worker");
            self.started.store(false, Ordering::SeqCst);
        }
    }

    fn next_job(&self) -> Result<Option<(String, String)>, rusqlite::Error> {
        let conn = self.conn.lock();
        let job: Option<(String, String)> = conn
            .query_row(
                "SELECT id, request FROM matrix_jobs WHERE status = 'accepted' \
                 ORDER BY created_at, rowid LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        if let Some((id, _)) = &job {
            conn.execute(
                "UPDATE matrix_jobs SET status = 'inProgress', updated_at = ?2 WHERE id = ?1",
                params![id, now()],
            )?;
        }
        Ok(job)
    }

    fn finish(
        &self,
        id: &str,
        status: MatrixStatus,
        result: Option<String>,
        error: Option<String>,
    ) {
        if let Err(e) = self.conn.lock().execute(
            "UPDATE matrix_jobs SET status = ?2, result = ?3, error = ?4, updated_at = ?5 WHERE id = ?1",
            params![id, status.to_string(), result, error, now()],
        ) {
            tracing::error!(error = %e, job = id, "cannot store a matrix result");
        }
    }
}

fn unknown(id: &str) -> ApiError {
    ApiError::not_found(format!(
        "no matrix `{id}`: it never existed or was removed 24 hours after it was created"
    ))
}

fn worker(jobs: Weak<MatrixJobs>, routing: Weak<RoutingCache>) {
    loop {
        let Some(store) = jobs.upgrade() else {
            return;
        };
        let job = match store.next_job() {
            Ok(j) => j,
            Err(e) => {
                tracing::error!(error = %e, "matrix job store");
                None
            }
        };
        match job {
            None => {
                let mut pending = store.pending.lock();
                if !*pending {
                    store
                        .wake
                        .wait_for(&mut pending, Duration::from_millis(500));
                }
                *pending = false;
                drop(pending);
                if routing.strong_count() == 0 {
                    return;
                }
            }
            Some((id, request)) => {
                let Some(cache) = routing.upgrade() else {
                    return;
                };
                let started = Instant::now();
                let outcome = serde_json::from_str::<MatrixCreateRequest>(&request)
                    .map_err(internal)
                    .and_then(|req| compute(&*cache.current()?, &req, &id));
                drop(cache);
                match outcome {
                    _ if started.elapsed() > JOB_TIMEOUT => store.finish(
                        &id,
                        MatrixStatus::Timeout,
                        None,
                        Some(format!(
                            "the computation took longer than {} s",
                            JOB_TIMEOUT.as_secs()
                        )),
                    ),
                    Ok(result) => match serde_json::to_string(&result) {
                        Ok(json) => store.finish(&id, MatrixStatus::Completed, Some(json), None),
                        Err(e) => {
                            store.finish(&id, MatrixStatus::Error, None, Some(internal(e).message))
                        }
                    },
                    Err(e) => store.finish(&id, MatrixStatus::Error, None, Some(e.message)),
                }
            }
        }
    }
}

/// Computes the matrix of `req` on the loaded packs (no element limit).
pub fn compute(
    packs: &RoutingPacks,
    req: &MatrixCreateRequest,
    id: &str,
) -> Result<MatrixResult, ApiError> {
    let data = compute_data(packs, &req.origins, &req.destinations, profile(req.mode))?;
    Ok(MatrixResult {
        matrix_id: id.to_string(),
        matrix: data,
        region_definition: RegionDefinition {
            kind: "world".into(),
        },
    })
}

/// The matrix cells between `origins` and `destinations` for `profile`, in time.
pub fn compute_data(
    packs: &RoutingPacks,
    origins: &[LatLng],
    destinations: &[LatLng],
    profile: crate::routing::Profile,
) -> Result<MatrixData, ApiError> {
    let all: Vec<Pt> = origins.iter().chain(destinations).map(|p| pt(*p)).collect();
    // The pack covering every point, else the one covering most of them.
    let routing = match packs.for_points(&all)? {
        Some(r) => Some(r),
        None => packs.best_for(&all)?,
    };
    let (no, nd) = (origins.len(), destinations.len());
    let mut times = vec![None; no * nd];
    let mut dists = vec![None; no * nd];
    if let Some(routing) = routing {
        let r = &routing.router;
        let snap = |p: &LatLng| -> Option<SnapCandidates> {
            let p = pt(*p);
            routing
                .covers(p)
                .then(|| r.snap_candidates(profile, p, &|_| true))
                .flatten()
        };
        let from: Vec<Option<SnapCandidates>> = origins.iter().map(snap).collect();
        let to: Vec<Option<SnapCandidates>> = destinations.iter().map(snap).collect();
        let cells = r.matrix_candidates(profile, Metric::Time, &from, &to, None);
        for i in 0..no {
            for j in 0..nd {
                if let Some((ms, cm)) = cells[i][j] {
                    times[i * nd + j] = Some((ms as f64 / 100.0).round() / 10.0);
                    dists[i * nd + j] = Some((cm as f64 / 100.0).round());
                }
            }
        }
    }
    for i in 0..no {
        for j in 0..nd {
            if origins[i] == destinations[j] {
                times[i * nd + j] = Some(0.0);
                dists[i * nd + j] = Some(0.0);
            }
        }
    }
    Ok(MatrixData {
        num_origins: no as u32,
        num_destinations: nd as u32,
        travel_times: times,
        distances: dists,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn store_failures_keep_their_detail_in_the_log() {
        let json = serde_json::from_str::<MatrixCreateRequest>("{").unwrap_err();
        let detail = json.to_string();
        let e = internal(json);
        assert_eq!(e.code, ErrorCode::Internal);
        assert!(!e.message.contains(&detail), "{}", e.message);
        let status = "done".parse::<MatrixStatus>().unwrap_err();
        assert!(!internal(status).message.contains("done"));
    }
}
