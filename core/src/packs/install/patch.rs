//! Installing a new version from a delta of an installed one ([`crate::packs::delta`]).
//!
//! [`find_delta`] looks, for the installed versions of the pack (newest first, at most
//! [`MAX_BASES_TRIED`]), for `deltas/<installed>/delta.json` in the new pack's directory at the
//! source, and keeps the first one that is signed by a trusted publisher and names exactly
//! the installed manifest and the manifest being installed. Anything else (no delta, another
//! base, a bad signature) means no delta: the full files are downloaded as before.
//!
//! [`DeltaPlan::make_file`] then makes each file of the new version into the same
//! `.partial/<id>-<version>/done/` directory a full install fills, so the commit, the crash
//! safety and the resume are those of full installs:
//!
//! ```text
//! <partial>/delta/parts/deltas/<base>/<patch>.part   patch being downloaded (resumed)
//! <partial>/delta/done/deltas/<base>/<patch>         patch whose size and sha256 matched
//! <partial>/delta/out/<path>                         file being made (redone after a crash)
//! <partial>/done/<path>                              file verified against the NEW manifest
//! ```
//!
//! `copy` hard-links (or copies) the base file, `patch` applies the downloaded patch to it;
//! the result is fsynced, checked against the new manifest's size and SHA-256, and only then
//! renamed into `done/`. When a step fails (patch missing or corrupt at the source, a result
//! that does not verify, a damaged base file) the caller downloads that file in full.
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use super::commit::remove_if_exists;
use super::download::Job;
use super::source::Source;
use super::verify::{read_installed_manifest, verify_file};
use super::{InstallError, InstallProgress, PackStore};
use crate::auth::keys::PublisherKey;
use crate::packs::delta::{
    DELTA_FILE, DeltaFile, DeltaManifest, DeltaOp, Transform, delta_dir_rel,
};
use crate::packs::manifest::{Manifest, PackFile};
use crate::packs::{docstore, sqlrows};
use crate::routing::prepare::{PreparationKind, prepare_file_from_pack};

/// Installed versions tried as a base (newest first).
const MAX_BASES_TRIED: usize = 3;
/// Sub-directory of the partial directory used by delta installs.
const DELTA_SUBDIR: &str = "delta";

/// A delta that applies to an installed version.
#[derive(Debug)]
pub(super) struct DeltaPlan {
    /// The installed base version's directory.
    base_dir: PathBuf,
    /// `deltas/<base>` relative to the new pack's directory at the source.
    rel: String,
    /// Entries by path of the new pack.
    entries: HashMap<String, DeltaFile>,
    /// The base version.
    pub(super) base_version: String,
    /// Bytes to download with this delta.
    pub(super) download: u64,
}

/// Finds a delta from an installed version of `target`'s pack at `src`, if there is one that
/// applies exactly; failures only log.
pub(super) fn find_delta(
    store: &PackStore,
    src: &Source<'_>,
    target: &Manifest,
    trusted: &[PublisherKey],
) -> Option<DeltaPlan> {
    let mut versions = match store.installed_versions(&target.id) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!(pack = %target.id, error = %e, "cannot list installed versions; no delta");
            return None;
        }
    };
    versions.retain(|v| *v != target.version);
    for base_version in versions.iter().rev().take(MAX_BASES_TRIED) {
        let rel = delta_dir_rel(base_version);
        let location = src.location(&format!("{rel}/{DELTA_FILE}"));
        let bytes = match src.fetch_small(&format!("{rel}/{DELTA_FILE}")) {
            Ok(b) => b,
            Err(InstallError::SourceNotFound { .. }) => continue,
            Err(e) => {
                tracing::warn!(delta = %location, error = %e, "cannot fetch the delta; trying the next");
                continue;
            }
        };
        let base_dir = store.pack_dir(&target.id, base_version);
        let checked = DeltaManifest::parse_verified(&bytes, trusted).and_then(|delta| {
            let base = read_installed_manifest(&base_dir, trusted)
                .map_err(|e| crate::packs::delta::DeltaError::Mismatch(e.to_string()))?;
            delta.check_applies(&base, target)?;
            Ok(delta)
        });
        match checked {
            Ok(delta) => {
                tracing::info!(pack = %target.id, base = %base_version, version = %target.version, "a delta applies");
                return Some(DeltaPlan {
                    download: delta.download_size(target),
                    base_dir,
                    rel,
                    entries: delta
                        .files
                        .into_iter()
                        .map(|f| (f.path.clone(), f))
                        .collect(),
                    base_version: base_version.clone(),
                });
            }
            Err(e) => {
                tracing::warn!(delta = %location, error = %e, "delta refused; downloading full files");
            }
        }
    }
    None
}

impl DeltaPlan {
    /// Makes `done/<f.path>` from the delta. `Ok(true)`: done (verified); `Ok(false)`: the delta
    /// says to download the full file; `Err`: the delta failed for this file (the caller
    /// downloads it in full).
    pub(super) fn make_file(&self, job: &mut Job<'_>, f: &PackFile) -> Result<bool, InstallError> {
        let done = job.partial.join("done").join(&f.path);
        if done.is_file() && verify_file(&done, f).is_ok() {
            job.bytes_done += f.size;
            job.report(f, f.size);
            return Ok(true);
        }
        let Some(entry) = self.entries.get(&f.path) else {
            return Ok(false);
        };
        let root = job.partial.join(DELTA_SUBDIR);
        let out = root.join("out").join(&f.path);
        if entry.op == DeltaOp::Prepare {
            let (Some(from), Some(kind)) = (
                entry.from.as_deref(),
                entry
                    .preparation
                    .as_deref()
                    .and_then(PreparationKind::from_name),
            ) else {
                return Ok(false);
            };
            if let Some(parent) = out.parent() {
                fs::create_dir_all(parent).map_err(InstallError::io(parent))?;
            }
            remove_if_exists(&out)?;
            job.report(f, 0);
            prepare(&job.partial.join("done").join(from), &f.path, kind, &out)?;
            return self.finish(job, f, entry, &root, &out, &done);
        }
        let Some(base_rel) = entry.base.as_deref() else {
            return Ok(false);
        };
        let base = self.base_dir.join(base_rel);
        if let Some(parent) = out.parent() {
            fs::create_dir_all(parent).map_err(InstallError::io(parent))?;
        }
        remove_if_exists(&out)?;
        job.report(f, 0);
        match entry.op {
            DeltaOp::Full | DeltaOp::Prepare => return Ok(false),
            DeltaOp::Copy => {
                if fs::hard_link(&base, &out).is_err() {
                    fs::copy(&base, &out).map_err(InstallError::io(&base))?;
                    File::open(&out)
                        .and_then(|o| o.sync_all())
                        .map_err(InstallError::io(&out))?;
                }
            }
            DeltaOp::Patch => {
                let (Some(patch), Some(sha), Some(size)) = (
                    entry.patch.as_deref(),
                    entry.patch_sha256.as_deref(),
                    entry.patch_size,
                ) else {
                    return Ok(false);
                };
                let patch_file = PackFile {
                    path: format!("{}/{patch}", self.rel),
                    sha256: sha.to_ascii_lowercase(),
                    size,
                };
                let mut quiet = |_: InstallProgress| {};
                let mut sub = Job {
                    src: job.src,
                    partial: &root,
                    manifest: job.manifest,
                    bytes_total: 0,
                    bytes_done: 0,
                    progress: &mut quiet,
                };
                sub.fetch_file(&patch_file)?;
                let patch_path = root.join("done").join(&patch_file.path);
                if let Err(e) = apply(&base, &patch_path, entry.transform.as_deref(), &out) {
                    let _ = fs::remove_file(&out);
                    let _ = fs::remove_file(&patch_path);
                    return Err(e);
                }
            }
        }
        self.finish(job, f, entry, &root, &out, &done)
    }

    /// Whether the delta prepares `path` on the device (made after every other file, from
    /// the new database).
    pub(super) fn prepares(&self, path: &str) -> bool {
        self.entries
            .get(path)
            .is_some_and(|e| e.op == DeltaOp::Prepare)
    }

    /// Verifies the made file `out` against the new manifest and moves it to `done`.
    fn finish(
        &self,
        job: &mut Job<'_>,
        f: &PackFile,
        entry: &DeltaFile,
        root: &Path,
        out: &Path,
        done: &Path,
    ) -> Result<bool, InstallError> {
        if let Err(e) = verify_file(out, f) {
            let _ = fs::remove_file(out);
            if entry.op == DeltaOp::Patch
                && let Some(patch) = entry.patch.as_deref()
            {
                let _ = fs::remove_file(root.join("done").join(&self.rel).join(patch));
            }
            return Err(e);
        }
        if let Some(parent) = done.parent() {
            fs::create_dir_all(parent).map_err(InstallError::io(parent))?;
        }
        fs::rename(out, done).map_err(InstallError::io(out))?;
        job.bytes_done += f.size;
        job.report(f, f.size);
        Ok(true)
    }
}

/// Prepares the routing graph `path` from the pack database `db` into `out` (fsynced).
fn prepare(db: &Path, path: &str, kind: PreparationKind, out: &Path) -> Result<(), InstallError> {
    if !db.is_file() {
        return Err(InstallError::io(db)(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "the new pack database is not made yet",
        )));
    }
    let started = std::time::Instant::now();
    let made = prepare_file_from_pack(db, path, kind).map_err(|e| {
        InstallError::io(out)(std::io::Error::other(format!(
            "preparing the routing graph failed: {e}"
        )))
    })?;
    tracing::info!(
        file = path,
        ms = started.elapsed().as_millis() as u64,
        "prepared a routing graph from the delta's roads"
    );
    let mut file = File::create(out).map_err(InstallError::io(out))?;
    std::io::Write::write_all(&mut file, &made.bytes).map_err(InstallError::io(out))?;
    file.sync_all().map_err(InstallError::io(out))?;
    Ok(())
}

/// Applies the patch at `patch` to the file `base` (to its expanded form with a doc-store
/// `transform`), writing `out` (fsynced).
fn apply(
    base: &Path,
    patch: &Path,
    transform: Option<&str>,
    out: &Path,
) -> Result<(), InstallError> {
    let patch_file = File::open(patch).map_err(InstallError::io(patch))?;
    let invalid = |why: String| {
        InstallError::io(base)(std::io::Error::new(std::io::ErrorKind::InvalidData, why))
    };
    let transform = transform
        .map(|t| Transform::parse(t).ok_or_else(|| invalid("unknown transform".into())))
        .transpose()?;
    match transform {
        Some(Transform::SqliteRows) => {
            let expanded = sqlrows::expand(base).map_err(|e| invalid(e.to_string()))?;
            let mut made = Vec::new();
            crate::packs::delta::apply_patch(&expanded, patch_file, &mut made)
                .map_err(InstallError::io(patch))?;
            drop(expanded);
            return sqlrows::compact(base, &made, out).map_err(|e| invalid(e.to_string()));
        }
        Some(Transform::DocStore(level)) => {
            let base_bytes = fs::read(base).map_err(InstallError::io(base))?;
            let expanded = docstore::expand(&base_bytes)
                .ok_or_else(|| invalid("the base file is not a zstd doc store".into()))?;
            let mut made = Vec::new();
            crate::packs::delta::apply_patch(&expanded, patch_file, &mut made)
                .map_err(InstallError::io(patch))?;
            let bytes = docstore::compact(&made, level).map_err(InstallError::io(patch))?;
            let mut file = File::create(out).map_err(InstallError::io(out))?;
            std::io::Write::write_all(&mut file, &bytes).map_err(InstallError::io(out))?;
            file.sync_all().map_err(InstallError::io(out))?;
            return Ok(());
        }
        None => {}
    }
    let base_bytes = fs::read(base).map_err(InstallError::io(base))?;
    let file = File::create(out).map_err(InstallError::io(out))?;
    let mut writer = BufWriter::new(file);
    crate::packs::delta::apply_patch(&base_bytes, patch_file, &mut writer)
        .map_err(InstallError::io(patch))?;
    let file = writer
        .into_inner()
        .map_err(|e| InstallError::io(out)(e.into_error()))?;
    file.sync_all().map_err(InstallError::io(out))?;
    Ok(())
}
