//! The datasets group: geodata that a project imports from a URL and keeps on the device (not
//! in the signed packs), searched by attributes and by space.
//!
//! **State** (`<state dir>/datasets/`): `catalog.sqlite` lists the datasets and their import
//! runs ([`catalog`]); each dataset has a directory `<id>/` with the data file of its last
//! successful run (`<run id>.sqlite`, see [`data`]) and, while a run is under way, its
//! download (`<run id>.download`; `.part` while incomplete, with the validator of the file it
//! holds in `.part.validator`) and the data file being built (`<run id>.building`).
//!
//! **Runs.** Creating a dataset, or giving it a new `url`, starts a run on a thread of its
//! own: `fetch` (see [`fetch`]), then `import` (see [`run`]). The previous data keeps
//! answering until the run succeeds; then one catalog transaction switches the dataset to the
//! new file and the in-memory index is swapped with it. A failed run changes nothing. A run
//! interrupted by a stop of the engine resumes when the engine opens again (the download
//! continues where it stopped when the source still has the same file, the import starts over
//! from the download). A newer run, or a
//! deletion, stops the older run.
//!
//! **Queries** (see [`query`]) read the dataset's [`DatasetIndex`]: features by id, `where`
//! filters (the attribute dialect of `waymark-storequery`, `docs/datasets-where.md`) and
//! spatial containment with a buffer in metres.
pub mod catalog;
pub mod data;
pub mod fetch;
mod query;
mod run;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::Utc;
use parking_lot::{Mutex, RwLock};

use crate::api::{
    Dataset, DatasetCreateRequest, DatasetDeleteRequest, DatasetDeleteResponse, DatasetListItem,
    DatasetListRequest, DatasetListResponse, DatasetUpdateRequest, ImportRun, PageInfo,
};
use crate::error::{ApiError, ErrorCode};
use crate::operation::Call;

use catalog::{Catalog, CatalogError, DatasetRow, RunRow};
pub use data::DatasetIndex;

/// Limits of the datasets group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DatasetLimits {
    /// Largest file a run fetches, in bytes.
    pub max_download_bytes: u64,
    /// Most features a dataset holds.
    pub max_features: u64,
    /// Byte budget of each loaded dataset's attribute column cache (least recently used
    /// columns go first).
    pub column_cache_bytes: usize,
}

impl Default for DatasetLimits {
    /// 1 GiB, 5 million features (the data is held in memory while it answers) and 64 MiB of
    /// attribute columns per dataset.
    fn default() -> Self {
        DatasetLimits {
            max_download_bytes: 1 << 30,
            max_features: 5_000_000,
            column_cache_bytes: DatasetIndex::COLUMN_BUDGET_BYTES,
        }
    }
}

/// Largest `per_page` of the list, search and contains operations.
pub const MAX_PER_PAGE: u32 = 1000;

/// The datasets service of an engine.
#[derive(Debug)]
pub struct Datasets {
    inner: Arc<Inner>,
}

/// What the service and its run threads share.
#[derive(Debug)]
struct Inner {
    dir: PathBuf,
    limits: DatasetLimits,
    agent: ureq::Agent,
    /// The catalog; also serializes every change of the datasets.
    catalog: Mutex<Catalog>,
    /// The catalog's datasets, by id (read without touching SQLite).
    rows: RwLock<BTreeMap<String, DatasetRow>>,
    /// Loaded data by dataset id.
    indexes: RwLock<HashMap<String, Arc<DatasetIndex>>>,
    /// One lock per dataset whose data is being loaded: requests that arrive together wait
    /// for the one load instead of each reading the file.
    loading: Mutex<HashMap<String, Arc<Mutex<()>>>>,
    /// Data files read into memory so far (loads, not cache hits).
    loads: std::sync::atomic::AtomicU64,
    /// The latest run of each dataset as it progresses (the status).
    live: RwLock<HashMap<String, RunRow>>,
    /// Stop flags of the runs under way, by dataset id.
    cancels: Mutex<HashMap<String, Arc<AtomicBool>>>,
}

fn internal(e: impl std::error::Error) -> ApiError {
    ApiError::internal(&e)
}

impl From<CatalogError> for ApiError {
    fn from(e: CatalogError) -> Self {
        internal(e)
    }
}

/// A new random uuid (v4).
fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

impl Datasets {
    /// The service, with its state in `state_dir/datasets`; resumes the runs a stop
    /// interrupted.
    pub fn open(state_dir: &Path, limits: DatasetLimits) -> Result<Datasets, CatalogError> {
        let dir = state_dir.join("datasets");
        let catalog = Catalog::open(&dir)?;
        let rows: BTreeMap<String, DatasetRow> = catalog
            .datasets()?
            .into_iter()
            .map(|d| (d.id.clone(), d))
            .collect();
        let unfinished = catalog.unfinished_runs()?;
        let inner = Arc::new(Inner {
            dir,
            limits,
            agent: crate::packs::new_agent(),
            catalog: Mutex::new(catalog),
            rows: RwLock::new(rows),
            indexes: RwLock::default(),
            loading: Mutex::default(),
            loads: std::sync::atomic::AtomicU64::new(0),
            live: RwLock::default(),
            cancels: Mutex::default(),
        });
        inner.clean_leftovers();
        for run in unfinished {
            if inner.rows.read().contains_key(&run.dataset_id) {
                run::start(&inner, run, true);
            }
        }
        Ok(Datasets { inner })
    }

    /// Removes the datasets whose `scheduled_for_deletion_after` has passed.
    fn sweep(&self) -> Result<(), ApiError> {
        let now = Utc::now();
        let expired: Vec<String> = self
            .inner
            .rows
            .read()
            .values()
            .filter(|d| d.expired(now))
            .map(|d| d.id.clone())
            .collect();
        for id in expired {
            tracing::info!(dataset = %id, "dataset removed: scheduled for deletion");
            self.inner.delete(&id)?;
        }
        Ok(())
    }

    /// The dataset `id`, or the 404.
    fn row(&self, id: &str) -> Result<DatasetRow, ApiError> {
        self.sweep()?;
        self.inner
            .rows
            .read()
            .get(id)
            .cloned()
            .ok_or_else(|| unknown_dataset(id))
    }

    /// `POST /datasets`
    pub fn create(
        &self,
        call: &mut Call<'_>,
        req: &DatasetCreateRequest,
    ) -> Result<Dataset, ApiError> {
        self.sweep()?;
        let now = Utc::now();
        if let Some(t) = req.body.scheduled_for_deletion_after
            && t <= now
        {
            return Err(ApiError::validation(vec![crate::api::FieldError::at(
                crate::api::Loc::Body,
                vec!["scheduled_for_deletion_after".into()],
                crate::api::kinds::VALUE,
                format!(
                    "{} is not in the future: give a later time or leave it out",
                    t.to_rfc3339()
                ),
            )]));
        }
        call.charge()?;
        self.create_unchecked(&req.body)
    }

    /// Creates a dataset from a body that passed validation, without a key (the embedding
    /// application's own set-up, the sample dataset of `waymark serve`).
    pub fn create_unchecked(
        &self,
        body: &crate::api::DatasetCreateBody,
    ) -> Result<Dataset, ApiError> {
        let req = body;
        let now = Utc::now();
        let row = DatasetRow {
            id: new_id(),
            name: req.name.trim().to_owned(),
            url: req.url.clone(),
            created_at: now,
            updated_at: now,
            scheduled_for_deletion_after: req.scheduled_for_deletion_after,
            data_file: None,
        };
        let run = self.inner.new_run(&row, 1);
        {
            let mut catalog = self.inner.catalog.lock();
            catalog.put_dataset_and_run(&row, &run)?;
            self.inner.rows.write().insert(row.id.clone(), row.clone());
        }
        run::start(&self.inner, run, false);
        Ok(row.to_api())
    }

    /// `GET /datasets`
    pub fn list(
        &self,
        call: &mut Call<'_>,
        req: &DatasetListRequest,
    ) -> Result<DatasetListResponse, ApiError> {
        self.sweep()?;
        let per_page = req.per_page.min(MAX_PER_PAGE);
        call.charge()?;
        let rows = self.inner.rows.read();
        let mut all: Vec<&DatasetRow> = rows.values().collect();
        all.sort_by(|a, b| {
            a.created_at
                .cmp(&b.created_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        let page_count = (all.len() as u32).div_ceil(per_page);
        let start = (req.page.saturating_sub(1) as usize).saturating_mul(per_page as usize);
        Ok(DatasetListResponse {
            datasets: all
                .iter()
                .skip(start)
                .take(per_page as usize)
                .map(|d| DatasetListItem {
                    id: d.id.clone(),
                    name: d.name.clone(),
                    created_at: d.created_at,
                    updated_at: Some(d.updated_at),
                    scheduled_for_deletion_after: d.scheduled_for_deletion_after,
                })
                .collect(),
            pagination: PageInfo::new(req.page, page_count),
        })
    }

    /// `GET /datasets/{dataset_id}`
    pub fn get(&self, call: &mut Call<'_>, id: &str) -> Result<Dataset, ApiError> {
        let row = self.row(id)?;
        call.charge()?;
        Ok(row.to_api())
    }

    /// `PUT /datasets/{dataset_id}`: a new name applies at once; a new url starts a run (the
    /// same url again also does: a reimport).
    pub fn update(
        &self,
        call: &mut Call<'_>,
        req: &DatasetUpdateRequest,
    ) -> Result<Dataset, ApiError> {
        self.sweep()?;
        let mut catalog = self.inner.catalog.lock();
        let mut row = self
            .inner
            .rows
            .read()
            .get(&req.dataset_id)
            .cloned()
            .ok_or_else(|| unknown_dataset(&req.dataset_id))?;
        call.charge()?;
        if let Some(name) = &req.body.name {
            row.name = name.trim().to_owned();
        }
        row.updated_at = Utc::now();
        let run = match &req.body.url {
            Some(url) => {
                row.url = url.clone();
                let seq = catalog.latest_run(&row.id)?.map_or(1, |r| r.seq + 1);
                let run = self.inner.new_run(&row, seq);
                catalog.put_dataset_and_run(&row, &run)?;
                Some(run)
            }
            None => {
                catalog.put_dataset(&row)?;
                None
            }
        };
        self.inner.rows.write().insert(row.id.clone(), row.clone());
        drop(catalog);
        if let Some(run) = run {
            run::start(&self.inner, run, false);
        }
        Ok(row.to_api())
    }

    /// `GET /datasets/{dataset_id}/status`: the latest run.
    pub fn status(&self, call: &mut Call<'_>, id: &str) -> Result<ImportRun, ApiError> {
        self.row(id)?;
        let run = self.inner.live.read().get(id).map(|r| r.run.clone());
        let run = match run {
            Some(r) => r,
            None => self
                .inner
                .catalog
                .lock()
                .latest_run(id)?
                .map(|r| r.run)
                .ok_or_else(|| unknown_dataset(id))?,
        };
        call.charge()?;
        Ok(run)
    }

    /// `DELETE /datasets/{dataset_id}`
    pub fn delete(
        &self,
        call: &mut Call<'_>,
        req: &DatasetDeleteRequest,
    ) -> Result<DatasetDeleteResponse, ApiError> {
        self.row(&req.dataset_id)?;
        call.charge()?;
        self.inner.delete(&req.dataset_id)?;
        Ok(DatasetDeleteResponse {
            id: req.dataset_id.clone(),
            status: "deleted".into(),
        })
    }

    /// The loaded data of dataset `id`: 404 when unknown, 503 while its first import has not
    /// succeeded. The first call after a start (or a new run) reads the data file; calls that
    /// arrive meanwhile wait for that one read rather than reading it again.
    pub fn index(&self, id: &str) -> Result<Arc<DatasetIndex>, ApiError> {
        let row = self.row(id)?;
        let loaded = |row: &DatasetRow| {
            self.inner
                .indexes
                .read()
                .get(id)
                .filter(|idx| Some(&idx.file) == row.data_file.as_ref())
                .cloned()
        };
        if let Some(idx) = loaded(&row) {
            return Ok(idx);
        }
        let Some(file) = row.data_file.clone() else {
            return Err(ApiError::new(
                ErrorCode::DataUnavailable,
                format!(
                    "dataset {id} has no data yet: its import has not succeeded (see GET /datasets/{id}/status)"
                ),
            ));
        };
        let slot = self
            .inner
            .loading
            .lock()
            .entry(id.to_owned())
            .or_default()
            .clone();
        let guard = slot.lock();
        // Loaded by the call this one waited for.
        if let Some(idx) = loaded(&row) {
            return Ok(idx);
        }
        let path = self.inner.dir.join(id).join(&file);
        let idx = Arc::new(
            DatasetIndex::load_with_budget(&path, &file, self.inner.limits.column_cache_bytes)
                .map_err(internal)?,
        );
        self.inner.loads.fetch_add(1, Ordering::Relaxed);
        self.inner
            .indexes
            .write()
            .insert(id.to_owned(), idx.clone());
        drop(guard);
        self.inner.loading.lock().remove(id);
        Ok(idx)
    }

    /// Loads the data of every dataset that has some (otherwise loaded by its first feature
    /// request, which then waits for it). Errors are left for that request to answer.
    pub fn prepare(&self) {
        let ids: Vec<String> = self.inner.rows.read().keys().cloned().collect();
        for id in ids {
            let _ = self.index(&id);
        }
    }

    /// How many times a data file was read into memory since the engine opened.
    pub fn loads(&self) -> u64 {
        self.inner.loads.load(Ordering::Relaxed)
    }

    /// Waits until no run is under way (tests, and a clean stop of the CLI).
    pub fn wait_idle(&self, timeout: std::time::Duration) -> bool {
        let end = std::time::Instant::now() + timeout;
        while std::time::Instant::now() < end {
            if self.inner.cancels.lock().is_empty() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        false
    }
}

/// The 404 of an unknown dataset.
fn unknown_dataset(id: &str) -> ApiError {
    ApiError::not_found(format!(
        "dataset {id} not found: list the datasets with GET /datasets"
    ))
}

impl Inner {
    /// The directory of dataset `id`.
    fn dataset_dir(&self, id: &str) -> PathBuf {
        self.dir.join(id)
    }

    /// A new run of `row` (not yet recorded).
    fn new_run(&self, row: &DatasetRow, seq: i64) -> RunRow {
        RunRow {
            dataset_id: row.id.clone(),
            seq,
            url: row.url.clone(),
            run: ImportRun {
                id: new_id(),
                status: crate::api::ImportStatus::InProgress,
                steps: Vec::new(),
            },
        }
    }

    /// Removes dataset `id`: stops its run, forgets it, deletes its files.
    fn delete(&self, id: &str) -> Result<(), ApiError> {
        if let Some(cancel) = self.cancels.lock().get(id) {
            cancel.store(true, Ordering::Relaxed);
        }
        {
            let mut catalog = self.catalog.lock();
            catalog.delete(id)?;
            self.rows.write().remove(id);
            self.indexes.write().remove(id);
            self.live.write().remove(id);
        }
        let dir = self.dataset_dir(id);
        if let Err(e) = std::fs::remove_dir_all(&dir)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            // A run thread may still hold a file; it removes what it leaves when it stops.
            tracing::warn!(dir = %dir.display(), error = %e, "dataset files not removed");
        }
        Ok(())
    }

    /// Removes directories of datasets the catalog no longer lists, and files of a dataset
    /// that are neither its data nor a run's download or part (a stop during a switch).
    fn clean_leftovers(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let rows = self.rows.read();
        for e in entries.flatten() {
            let path = e.path();
            if !path.is_dir() {
                continue;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            match rows.get(&name) {
                None => {
                    let _ = std::fs::remove_dir_all(&path);
                }
                Some(row) => {
                    let Ok(files) = std::fs::read_dir(&path) else {
                        continue;
                    };
                    for f in files.flatten() {
                        let file = f.file_name().to_string_lossy().into_owned();
                        let keep = Some(&file) == row.data_file.as_ref()
                            || file.ends_with(".download")
                            || file.ends_with(".part")
                            || file.ends_with(".part.validator");
                        if !keep {
                            let _ = std::fs::remove_file(f.path());
                        }
                    }
                }
            }
        }
    }
}
