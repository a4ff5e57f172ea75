//! Importing a customer's stores into a built pack: the stores layer is replaced in a copy of
//! the pack directory, the manifest updated (layers, the customer's source with its licence,
//! file hashes, stats) and the copy swapped in, so a failed import leaves the pack as it was.
//! The manifest is left unsigned: sign the pack afterwards (`waymark-packs sign`).
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::Value;
use waymark_core::packs::PackSource;
use waymark_core::packs::schema::layers;

use super::{RecordProblem, StoreAsset, StoresStats, check_all, write_layer};
use crate::build::{list_files, read_manifest, write_manifest};
use crate::error::{BuildError, io};

/// The manifest source of a customer's stores, with its licence and attribution.
pub fn customer_source(licence: &str, attribution: &str) -> PackSource {
    PackSource {
        id: "customer-stores".into(),
        licence: licence.into(),
        attribution: attribution.into(),
        version: None,
        sha256: None,
        notes: Some("stores imported with waymark-packs import-stores".into()),
        layers: vec![layers::STORES.into(), layers::ZONES.into()],
    }
}

/// What an import did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ImportReport {
    /// What was written.
    pub stats: StoresStats,
    /// Records skipped, with where and why.
    pub skipped: Vec<RecordProblem>,
}

/// The share of skipped records above which a lenient import refuses without `force`.
pub const DEFAULT_MAX_SKIPPED_SHARE: f64 = 0.1;

/// When an import goes ahead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImportPolicy {
    /// Any skipped record fails the import.
    pub strict: bool,
    /// Go ahead even when the import would empty a non-empty layer or skip more than
    /// `max_skipped_share` of the records.
    pub force: bool,
    /// The largest share (0 to 1) of records that may be skipped without `force`.
    pub max_skipped_share: f64,
}

impl ImportPolicy {
    /// Any problem fails the import.
    pub const STRICT: Self = Self {
        strict: true,
        force: false,
        max_skipped_share: 0.0,
    };
    /// Bad records are skipped, within [`DEFAULT_MAX_SKIPPED_SHARE`], and a non-empty layer
    /// is never replaced by an empty one.
    pub const LENIENT: Self = Self {
        strict: false,
        force: false,
        max_skipped_share: DEFAULT_MAX_SKIPPED_SHARE,
    };
}

fn listed(problems: &[RecordProblem]) -> String {
    let mut list: Vec<String> = problems.iter().take(20).map(ToString::to_string).collect();
    if problems.len() > 20 {
        list.push(format!("... and {} more", problems.len() - 20));
    }
    list.join("\n")
}

/// How many stores the pack in `dir` holds now (0 without a stores layer).
fn stores_in_pack(dir: &Path) -> Result<usize, BuildError> {
    let db = dir.join("data.sqlite");
    if !db.exists() {
        return Ok(0);
    }
    let conn = Connection::open(&db)?;
    if !waymark_core::packs::schema::has_table(&conn, "stores_layer")? {
        return Ok(0);
    }
    let (stores, _) = waymark_core::stores::packed::read(&conn)
        .map_err(|e| BuildError::Invalid(e.to_string()))?;
    Ok(stores.len())
}

/// Writes `records` (as read by [`super::read`]) into the pack in `dir`, following `policy`:
/// with `strict`, any problem (`read_problems` included) fails the import; otherwise bad
/// records are skipped, but the import fails when it would replace a non-empty stores layer
/// with an empty one, or skip more than `max_skipped_share` of the records, unless `force`.
/// On every failure the pack is left as it was.
pub fn import_into_pack(
    dir: &Path,
    records: Vec<(String, StoreAsset)>,
    read_problems: Vec<RecordProblem>,
    source: PackSource,
    policy: ImportPolicy,
) -> Result<ImportReport, BuildError> {
    recover(dir)?;
    let (assets, mut skipped) = check_all(records);
    skipped.splice(0..0, read_problems);
    if policy.strict && !skipped.is_empty() {
        return Err(BuildError::Invalid(format!(
            "{} record(s) refused (strict mode; nothing imported):\n{}",
            skipped.len(),
            listed(&skipped)
        )));
    }
    if !policy.force {
        let total = assets.len() + skipped.len();
        let share = if total == 0 {
            0.0
        } else {
            skipped.len() as f64 / total as f64
        };
        if share > policy.max_skipped_share {
            return Err(BuildError::Invalid(format!(
                "{} of {total} record(s) would be skipped ({:.1}%, more than the {:.1}% allowed; \
                 nothing imported; fix the file or give --force):\n{}",
                skipped.len(),
                share * 100.0,
                policy.max_skipped_share * 100.0,
                listed(&skipped)
            )));
        }
        let before = stores_in_pack(dir)?;
        if assets.is_empty() && before > 0 {
            return Err(BuildError::Invalid(format!(
                "the import holds no store and would replace the pack's {before} stores with none \
                 (nothing imported; give --force to empty the layer){}",
                if skipped.is_empty() {
                    String::new()
                } else {
                    format!(":\n{}", listed(&skipped))
                }
            )));
        }
    }
    let work = sibling(dir, "importing");
    if work.exists() {
        std::fs::remove_dir_all(&work).map_err(|e| io(&work, e))?;
    }
    copy_dir(dir, &work)?;
    let stats = {
        let mut conn = Connection::open(work.join("data.sqlite"))?;
        waymark_core::packs::schema::create_all(&conn)?;
        write_layer(&mut conn, &assets)?
    };
    let mut manifest = read_manifest(&work)?;
    for layer in [layers::STORES, layers::ZONES] {
        if !manifest.layers.iter().any(|l| l == layer) {
            manifest.layers.push(layer.into());
        }
    }
    manifest.sources.retain(|s| s.id != source.id);
    manifest.sources.push(source);
    if let Some(Value::Object(all)) = &mut manifest.stats {
        all.insert(
            layers::STORES.into(),
            serde_json::to_value(stats).unwrap_or(Value::Null),
        );
    }
    manifest.signature = None;
    manifest.files = list_files(&work)?;
    write_manifest(&work, &manifest)?;
    let old = sibling(dir, "replaced");
    if old.exists() {
        std::fs::remove_dir_all(&old).map_err(|e| io(&old, e))?;
    }
    std::fs::rename(dir, &old).map_err(|e| io(dir, e))?;
    if let Err(e) = std::fs::rename(&work, dir) {
        // Put the previous pack back: the import failed, the pack stays as it was.
        std::fs::rename(&old, dir).map_err(|e| io(&old, e))?;
        return Err(io(&work, e));
    }
    std::fs::remove_dir_all(&old).map_err(|e| io(&old, e))?;
    Ok(ImportReport { stats, skipped })
}

/// Finishes or undoes an import that was stopped between its two renames: when the pack
/// directory is missing, the previous pack (`<dir>.replaced`) is put back.
fn recover(dir: &Path) -> Result<(), BuildError> {
    let old = sibling(dir, "replaced");
    if !dir.exists() && old.exists() {
        std::fs::rename(&old, dir).map_err(|e| io(&old, e))?;
    }
    Ok(())
}

/// Builds `plan` at `version` under `out` (from scratch) and imports `stores` into it,
/// strictly: `waymark-packs build` then `import-stores` in one call, for load tests and
/// benchmarks of the stores endpoints. The pack is left unsigned.
pub fn build_with_stores(
    plan: &crate::build::PackPlan,
    version: &str,
    sources: &crate::sources::Sources,
    stores: &[StoreAsset],
    source: PackSource,
    out: &Path,
) -> Result<(PathBuf, ImportReport), BuildError> {
    let dir = crate::build::build_pack(plan, version, sources, out, true, &mut |_, _, _| {})?;
    let records = stores
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("record {}", i + 1), s.clone()))
        .collect();
    let report = import_into_pack(&dir, records, Vec::new(), source, ImportPolicy::STRICT)?;
    Ok((dir, report))
}

fn sibling(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{suffix}"));
    dir.with_file_name(name)
}

/// Copies directory `from` into `to` (created), recursively.
pub fn copy_dir(from: &Path, to: &Path) -> Result<(), BuildError> {
    std::fs::create_dir_all(to).map_err(|e| io(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| io(from, e))? {
        let entry = entry.map_err(|e| io(from, e))?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(|e| io(&target, e))?;
        }
    }
    Ok(())
}
