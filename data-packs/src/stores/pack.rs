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

/// Writes `records` (as read by [`super::read`]) into the pack in `dir`. With `strict`, any
/// problem (`read_problems` included) fails the import and nothing changes.
pub fn import_into_pack(
    dir: &Path,
    records: Vec<(String, StoreAsset)>,
    read_problems: Vec<RecordProblem>,
    source: PackSource,
    strict: bool,
) -> Result<ImportReport, BuildError> {
    let (assets, mut skipped) = check_all(records);
    skipped.splice(0..0, read_problems);
    if strict && !skipped.is_empty() {
        let list: Vec<String> = skipped.iter().take(20).map(ToString::to_string).collect();
        return Err(BuildError::Invalid(format!(
            "{} record(s) refused (strict mode; nothing imported):\n{}",
            skipped.len(),
            list.join("\n")
        )));
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
    std::fs::rename(dir, &old).map_err(|e| io(dir, e))?;
    std::fs::rename(&work, dir).map_err(|e| io(&work, e))?;
    std::fs::remove_dir_all(&old).map_err(|e| io(&old, e))?;
    Ok(ImportReport { stats, skipped })
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
    let report = import_into_pack(&dir, records, Vec::new(), source, true)?;
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
