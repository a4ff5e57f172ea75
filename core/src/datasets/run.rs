//! Import runs: the `fetch` and `import` steps of a dataset's run on a thread of its own, their
//! log, and the atomic switch to the new data.
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::Utc;
use serde_json::Value;
use waymark_geoformats::{Format, Record};

use super::Inner;
use super::catalog::RunRow;
use super::data::{DataWriter, DatasetIndex};
use super::fetch::{FetchError, fetch};
use crate::api::{ImportStatus, ImportStep, ImportStepName, LogEntry, LogLevel};
use crate::packs::sync_dir;

/// Most warnings a step logs one by one (the rest are counted in one entry).
const MAX_WARNINGS: usize = 100;

/// Starts `run` on a thread of its own, stopping the dataset's older run. `resumed`: the run
/// was interrupted by a stop of the engine.
pub(super) fn start(inner: &Arc<Inner>, run: RunRow, resumed: bool) {
    let cancel = Arc::new(AtomicBool::new(false));
    if let Some(old) = inner
        .cancels
        .lock()
        .insert(run.dataset_id.clone(), cancel.clone())
    {
        old.store(true, Ordering::Relaxed);
    }
    inner
        .live
        .write()
        .insert(run.dataset_id.clone(), run.clone());
    let inner = inner.clone();
    let spawned = std::thread::Builder::new()
        .name("waymark-dataset-import".into())
        .spawn({
            let inner = inner.clone();
            let cancel = cancel.clone();
            let run = run.clone();
            move || Runner::new(inner, cancel, run).go(resumed)
        });
    if let Err(e) = spawned {
        let mut runner = Runner::new(inner, cancel, run);
        runner.fail_step(format!("could not start the import: {e}"));
        runner.done();
    }
}

/// One run under way.
/// How often a step under way shows its progress in the status, at most.
const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// Shows `run` as its dataset's status (unless a newer run of the dataset owns it).
fn publish_live(inner: &Inner, run: &RunRow) {
    let mut live = inner.live.write();
    match live.get(&run.dataset_id) {
        Some(r) if r.seq > run.seq => {}
        _ => {
            live.insert(run.dataset_id.clone(), run.clone());
        }
    }
}

struct Runner {
    inner: Arc<Inner>,
    cancel: Arc<AtomicBool>,
    run: RunRow,
    /// The url's file name and the answer's content type (format hints).
    hints: (Option<String>, Option<String>),
}

impl Runner {
    fn new(inner: Arc<Inner>, cancel: Arc<AtomicBool>, run: RunRow) -> Runner {
        let name = super::fetch::name_hint(&run.url);
        Runner {
            inner,
            cancel,
            run,
            hints: (name, None),
        }
    }

    fn dir(&self) -> PathBuf {
        self.inner.dataset_dir(&self.run.dataset_id)
    }

    fn file(&self, ext: &str) -> PathBuf {
        self.dir().join(format!("{}.{ext}", self.run.run.id))
    }

    fn stopped(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Publishes the run's state to status readers, and to the catalog when `persist`.
    fn publish(&self, persist: bool) {
        publish_live(&self.inner, &self.run);
        if persist
            && self.inner.rows.read().contains_key(&self.run.dataset_id)
            && let Err(e) = self.inner.catalog.lock().put_run(&self.run)
        {
            tracing::error!(error = %e, "dataset run not recorded");
        }
    }

    fn step(&mut self) -> Option<&mut ImportStep> {
        self.run.run.steps.last_mut()
    }

    fn log(&mut self, level: LogLevel, detail: impl Into<String>) {
        let entry = LogEntry {
            created_at: Utc::now(),
            detail: detail.into(),
            level,
        };
        if let Some(step) = self.step() {
            step.entries.push(entry);
        }
    }

    fn begin(&mut self, name: ImportStepName) {
        self.run.run.steps.push(ImportStep {
            name,
            start: Utc::now(),
            end: None,
            status: ImportStatus::InProgress,
            entries: Vec::new(),
            bytes_done: None,
            bytes_total: None,
            features_done: None,
        });
        self.publish(true);
    }

    fn end_step(&mut self, status: ImportStatus) {
        if let Some(step) = self.step() {
            step.end = Some(Utc::now());
            step.status = status;
        }
    }

    /// Fails the current step and the run.
    fn fail_step(&mut self, detail: String) {
        self.log(LogLevel::Error, detail);
        self.end_step(ImportStatus::Failed);
        self.run.run.status = ImportStatus::Failed;
        self.publish(true);
    }

    /// The run ends: its stop flag is dropped, its leftovers removed.
    fn done(&mut self) {
        let _ = std::fs::remove_file(self.file("download"));
        let _ = std::fs::remove_file(self.file("part"));
        let _ = std::fs::remove_file(self.file("part.validator"));
        let _ = std::fs::remove_file(self.file("building"));
        let mut cancels = self.inner.cancels.lock();
        if cancels
            .get(&self.run.dataset_id)
            .is_some_and(|c| Arc::ptr_eq(c, &self.cancel))
        {
            cancels.remove(&self.run.dataset_id);
        }
        drop(cancels);
        // A deleted dataset: its directory goes once the run has let go of it.
        if !self.inner.rows.read().contains_key(&self.run.dataset_id) {
            let _ = std::fs::remove_dir_all(self.dir());
        }
    }

    fn go(mut self, resumed: bool) {
        if let Err(e) = std::fs::create_dir_all(self.dir()) {
            self.begin(ImportStepName::Fetch);
            self.fail_step(format!("cannot create the dataset's directory: {e}"));
            return self.done();
        }
        // Where a resumed run starts over: its fetch when that did not finish, else its import.
        let fetched = self
            .run
            .run
            .steps
            .iter()
            .any(|s| s.name == ImportStepName::Fetch && s.status == ImportStatus::Success)
            && self.file("download").is_file();
        if resumed {
            self.run
                .run
                .steps
                .retain(|s| s.status == ImportStatus::Success);
            if !fetched {
                self.run
                    .run
                    .steps
                    .retain(|s| s.name != ImportStepName::Fetch);
            }
        }
        let download = if fetched {
            self.file("download")
        } else {
            self.begin(ImportStepName::Fetch);
            if resumed {
                self.log(LogLevel::Info, "resumed after a stop of the engine");
            }
            match self.fetch() {
                Some(p) => p,
                None => return self.done(),
            }
        };
        self.begin(ImportStepName::Import);
        if resumed && fetched {
            self.log(
                LogLevel::Info,
                "started over from the download after a stop of the engine",
            );
        }
        self.import(&download);
        self.done();
    }

    /// The fetch step; the downloaded file, or None when the run failed or stopped.
    fn fetch(&mut self) -> Option<PathBuf> {
        let url = self.run.url.clone();
        self.log(LogLevel::Info, format!("fetching {url}"));
        self.publish(false);
        let dest = self.file("download");
        let (inner, cancel) = (self.inner.clone(), self.cancel.clone());
        let mut shown = std::time::Instant::now();
        let mut progress = |done: u64, total: Option<u64>| {
            if let Some(step) = self.run.run.steps.last_mut() {
                step.bytes_done = Some(done);
                step.bytes_total = total;
            }
            if shown.elapsed() >= PROGRESS_EVERY {
                shown = std::time::Instant::now();
                publish_live(&inner, &self.run);
            }
        };
        let fetched = fetch(
            &inner.agent,
            &url,
            &dest,
            inner.limits.max_download_bytes,
            &cancel,
            &mut progress,
        );
        match fetched {
            Ok(got) => {
                if let Some(step) = self.step() {
                    step.bytes_done = Some(got.bytes);
                    step.bytes_total = Some(got.bytes);
                }
                let mut detail = format!("downloaded {} bytes", thousands(got.bytes));
                if got.resumed_from > 0 {
                    detail.push_str(&format!(
                        " (resumed after {} bytes)",
                        thousands(got.resumed_from)
                    ));
                }
                self.log(LogLevel::Info, detail);
                self.end_step(ImportStatus::Success);
                self.publish(true);
                self.hints = (got.name_hint, got.content_type);
                Some(got.path)
            }
            Err(FetchError::Cancelled) => {
                self.fail_step("stopped: a newer run or a deletion replaced this run".into());
                None
            }
            Err(e) => {
                self.fail_step(format!("fetch failed: {e}"));
                None
            }
        }
    }
}

/// What the import step counted.
#[derive(Default)]
struct Counts {
    skipped: u64,
    warnings: usize,
}

impl Runner {
    /// The import step: reads `download` into a new data file, then switches the dataset to it.
    fn import(&mut self, download: &Path) {
        let format = match waymark_geoformats::sniff(
            download,
            self.hints.0.as_deref(),
            self.hints.1.as_deref(),
        ) {
            Ok(f) => f,
            Err(e) => return self.fail_step(format!("the file is not a dataset format: {e}")),
        };
        let options = match read_options(&self.run.url) {
            Ok(o) => o,
            Err(e) => return self.fail_step(e),
        };
        match &options.layer {
            Some(layer) => self.log(
                LogLevel::Info,
                format!("reading {}, layer {layer:?}", format_name(format)),
            ),
            None => self.log(LogLevel::Info, format!("reading {}", format_name(format))),
        }
        self.publish(false);
        let building = self.file("building");
        let _ = std::fs::remove_file(&building);
        let mut writer = match DataWriter::create(&building) {
            Ok(w) => w,
            Err(e) => return self.fail_step(format!("cannot write the data file: {e}")),
        };
        let namespace =
            uuid::Uuid::parse_str(&self.run.dataset_id).unwrap_or(uuid::Uuid::NAMESPACE_URL);
        let mut seen: HashSet<String> = HashSet::new();
        let mut counts = Counts::default();
        let max_features = self.inner.limits.max_features;
        let mut entries: Vec<(LogLevel, String)> = Vec::new();
        let cancel = self.cancel.clone();
        let inner = self.inner.clone();
        let run = &mut self.run;
        let mut shown = std::time::Instant::now();
        let result = waymark_geoformats::read_with(download, format, &options, &mut |record| {
            if cancel.load(Ordering::Relaxed) {
                return Err("stopped: a newer run or a deletion replaced this run".into());
            }
            if shown.elapsed() >= PROGRESS_EVERY {
                shown = std::time::Instant::now();
                if let Some(step) = run.run.steps.last_mut() {
                    step.features_done = Some(writer.count() + counts.skipped);
                }
                publish_live(&inner, run);
            }
            match record {
                Record::Feature(f) => {
                    if writer.count() >= max_features {
                        return Err(format!(
                            "the file has more than {} features, the most a dataset holds",
                            thousands(max_features)
                        ));
                    }
                    let mut key = f.source_id.as_ref().map(|s| format!("id:{s}"));
                    if let Some(k) = &key
                        && !seen.insert(k.clone())
                    {
                        if counts.warnings < MAX_WARNINGS {
                            entries.push((
                                LogLevel::Warning,
                                format!(
                                    "feature {}: id {} repeats an earlier feature's; given an id of its own",
                                    thousands(f.index),
                                    Value::from(f.source_id.clone().unwrap_or_default())
                                ),
                            ));
                        }
                        counts.warnings += 1;
                        key = None;
                    }
                    let key = key.unwrap_or_else(|| format!("#{}", f.index));
                    let id = uuid::Uuid::new_v5(&namespace, key.as_bytes()).to_string();
                    writer
                        .add(&id, &f.geometry, &f.attributes)
                        .map_err(|e| format!("cannot write the data file: {e}"))
                }
                Record::Skipped { index, reason } => {
                    counts.skipped += 1;
                    if counts.warnings < MAX_WARNINGS {
                        entries.push((
                            LogLevel::Warning,
                            format!("feature {}: {reason}, skipped", thousands(index)),
                        ));
                    }
                    counts.warnings += 1;
                    Ok(())
                }
            }
        });
        let read = writer.count() + counts.skipped;
        if let Some(step) = self.step() {
            step.features_done = Some(read);
        }
        for (level, detail) in entries {
            self.log(level, detail);
        }
        if counts.warnings > MAX_WARNINGS {
            self.log(
                LogLevel::Warning,
                format!(
                    "{} more warnings not listed",
                    thousands((counts.warnings - MAX_WARNINGS) as u64)
                ),
            );
        }
        if let Err(e) = result {
            drop(writer);
            let _ = std::fs::remove_file(&building);
            return self.fail_step(format!("import failed: {e}"));
        }
        if writer.count() == 0 {
            drop(writer);
            let _ = std::fs::remove_file(&building);
            return self.fail_step(format!(
                "import failed: no feature could be imported ({} skipped)",
                thousands(counts.skipped)
            ));
        }
        let imported = match writer.finish(&self.run.run.id) {
            Ok(n) => n,
            Err(e) => return self.fail_step(format!("cannot write the data file: {e}")),
        };
        if let Err(e) = self.switch(&building, imported, counts.skipped) {
            self.fail_step(e);
        }
    }

    /// Makes the built file the dataset's data: synced and renamed, loaded, then one catalog
    /// transaction records the run and the switch, and the index is swapped in.
    fn switch(&mut self, building: &Path, imported: u64, skipped: u64) -> Result<(), String> {
        let file = format!("{}.sqlite", self.run.run.id);
        let path = self.dir().join(&file);
        sync_file(building).map_err(|e| format!("cannot write the data file: {e}"))?;
        std::fs::rename(building, &path).map_err(|e| format!("cannot keep the data file: {e}"))?;
        sync_dir(&self.dir()).map_err(|e| format!("cannot keep the data file: {e}"))?;
        let index =
            DatasetIndex::load_with_budget(&path, &file, self.inner.limits.column_cache_bytes)
                .map_err(|e| format!("the new data file does not read back: {e}"))?;
        if self.stopped() {
            let _ = std::fs::remove_file(&path);
            return Err("stopped: a newer run or a deletion replaced this run".into());
        }
        self.log(
            LogLevel::Info,
            format!(
                "imported {} features ({} skipped)",
                thousands(imported),
                thousands(skipped)
            ),
        );
        self.end_step(ImportStatus::Success);
        self.run.run.status = ImportStatus::Success;
        let now = Utc::now();
        let previous = {
            let mut catalog = self.inner.catalog.lock();
            // Only the dataset's latest run may switch it (an older one was stopped, and a
            // deleted dataset is gone).
            let latest = catalog
                .latest_run(&self.run.dataset_id)
                .map_err(|e| e.to_string())?
                .map(|r| r.seq);
            if latest != Some(self.run.seq) {
                drop(catalog);
                let _ = std::fs::remove_file(&path);
                return Err("stopped: a newer run or a deletion replaced this run".into());
            }
            catalog
                .finish_run(&self.run, &file, now)
                .map_err(|e| format!("cannot record the import: {e}"))?;
            let mut rows = self.inner.rows.write();
            let previous = rows.get_mut(&self.run.dataset_id).and_then(|row| {
                row.updated_at = now;
                row.data_file.replace(file.clone())
            });
            self.inner
                .indexes
                .write()
                .insert(self.run.dataset_id.clone(), Arc::new(index));
            previous
        };
        self.publish(false);
        if let Some(old) = previous
            && old != file
        {
            // Queries under way keep their loaded copy; the file itself is no longer needed.
            let _ = std::fs::remove_file(self.dir().join(old));
        }
        Ok(())
    }
}

/// The name of a format in the log.
fn format_name(format: Format) -> &'static str {
    match format {
        Format::GeoJson => "GeoJSON",
        Format::GeoJsonSeq => "newline-delimited GeoJSON",
        Format::Csv => "CSV",
        Format::GeoPackage => "GeoPackage",
        Format::Shapefile => "Shapefile",
    }
}

/// `1204` → `1,204`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn sync_file(path: &Path) -> std::io::Result<()> {
    std::fs::File::open(path)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1204), "1,204");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}

/// What the url's fragment chooses inside the file: `#layer=<table>` names the GeoPackage
/// feature table to import (percent-encoded like the rest of the url). Any other fragment is
/// refused rather than ignored.
fn read_options(url: &str) -> Result<waymark_geoformats::ReadOptions, String> {
    let Some((_, fragment)) = url.split_once('#') else {
        return Ok(waymark_geoformats::ReadOptions::default());
    };
    let layer = fragment
        .strip_prefix("layer=")
        .and_then(crate::packs::percent_decode)
        .filter(|l| !l.is_empty())
        .ok_or_else(|| {
            format!(
                "the url's fragment #{fragment} is not understood: the only one read is #layer=<table>, naming the GeoPackage feature table to import"
            )
        })?;
    Ok(waymark_geoformats::ReadOptions { layer: Some(layer) })
}

#[cfg(test)]
mod fragment_tests {
    use super::read_options;

    #[test]
    fn the_fragment_names_the_layer() {
        assert_eq!(
            read_options("https://x.test/a.gpkg").map(|o| o.layer),
            Ok(None)
        );
        assert_eq!(
            read_options("file:///d/city.gpkg#layer=fire%20hydrants").map(|o| o.layer),
            Ok(Some("fire hydrants".to_owned()))
        );
        for bad in [
            "https://x.test/a.gpkg#page=2",
            "https://x.test/a.gpkg#layer=",
        ] {
            let e = read_options(bad).err().unwrap_or_default();
            assert!(e.contains("#layer=<table>"), "{bad}: {e}");
        }
    }

    /// Every byte of `s` percent-encoded except unreserved ASCII.
    fn percent_encode(s: &str) -> String {
        s.bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect()
    }

    proptest::proptest! {
        /// Any table name, percent-encoded in `#layer=`, is the layer read; any other
        /// fragment is read as a layer or refused with the form that is understood, never
        /// ignored.
        #[test]
        fn any_layer_name_round_trips_and_any_fragment_is_answered(
            name in "\\PC{1,40}",
            fragment in proptest::prop_oneof!["\\PC{0,40}", "layer=[%0-9A-Fa-fz ]{0,12}"],
        ) {
            let url = format!("file:///d/city.gpkg#layer={}", percent_encode(&name));
            proptest::prop_assert_eq!(read_options(&url).map(|o| o.layer), Ok(Some(name)));
            match read_options(&format!("https://x.test/a.gpkg#{fragment}")) {
                Ok(o) => {
                    let layer = o.layer.unwrap_or_default();
                    proptest::prop_assert!(fragment.starts_with("layer=") && !layer.is_empty());
                }
                Err(e) => proptest::prop_assert!(e.contains("#layer=<table>"), "{}", e),
            }
        }
    }
}
