//! Making a pack visible: the verified files move into a staging directory, everything is
//! fsynced, and one `rename` publishes `<root>/<id>/<version>`; and the file-system helpers
//! that make those steps durable.
use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{InstallError, MANIFEST_FILE};
use crate::packs::manifest::Manifest;

/// Moves the verified files and the manifest into `staging`, fsyncs everything, and renames
/// `staging` to `final_dir`.
pub(super) fn commit(
    partial: &Path,
    staging: &Path,
    manifest: &Manifest,
    manifest_bytes: &[u8],
    final_dir: &Path,
) -> Result<(), InstallError> {
    if let Some(parent) = staging.parent() {
        fs::create_dir_all(parent).map_err(InstallError::io(parent))?;
    }
    fs::create_dir(staging).map_err(InstallError::io(staging))?;
    write_synced(&staging.join(MANIFEST_FILE), manifest_bytes)?;
    let mut dirs: BTreeSet<PathBuf> = BTreeSet::new();
    dirs.insert(staging.to_path_buf());
    for f in &manifest.files {
        let from = partial.join("done").join(&f.path);
        let to = staging.join(&f.path);
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(InstallError::io(parent))?;
            let mut p = parent;
            while p.starts_with(staging) && dirs.insert(p.to_path_buf()) {
                match p.parent() {
                    Some(up) => p = up,
                    None => break,
                }
            }
        }
        fs::rename(&from, &to).map_err(InstallError::io(&from))?;
        sync_file(&to)?;
    }
    // Deepest first, so each directory entry is durable before its parent's.
    for dir in dirs.iter().rev() {
        sync_dir(dir).map_err(InstallError::io(dir))?;
    }
    let id_dir = final_dir.parent().unwrap_or(final_dir);
    let new_id_dir = !id_dir.exists();
    fs::create_dir_all(id_dir).map_err(InstallError::io(id_dir))?;
    if final_dir.exists() {
        return Err(InstallError::AlreadyInstalled {
            id: manifest.id.clone(),
            version: manifest.version.clone(),
        });
    }
    fs::rename(staging, final_dir).map_err(InstallError::io(final_dir))?;
    sync_dir(id_dir).map_err(InstallError::io(id_dir))?;
    if let Some(staging_root) = staging.parent() {
        let _ = sync_dir(staging_root);
    }
    if new_id_dir && let Some(root) = id_dir.parent() {
        sync_dir(root).map_err(InstallError::io(root))?;
    }
    Ok(())
}

/// After a failed commit, moves the files back to `done/` so a retry need not fetch them again.
pub(super) fn restore_done_files(partial: &Path, staging: &Path, manifest: &Manifest) {
    for f in &manifest.files {
        let from = staging.join(&f.path);
        let to = partial.join("done").join(&f.path);
        if from.is_file() && !to.exists() {
            if let Some(parent) = to.parent() {
                let _ = fs::create_dir_all(parent);
            }
            if let Err(e) = fs::rename(&from, &to) {
                tracing::warn!(file = %f.path, error = %e, "cannot move a verified file back to the partial download");
            }
        }
    }
}

/// Writes `bytes` to a new file `path` and fsyncs it.
pub(super) fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    let mut f = File::create(path).map_err(InstallError::io(path))?;
    f.write_all(bytes).map_err(InstallError::io(path))?;
    f.sync_all().map_err(InstallError::io(path))
}

/// fsyncs a file.
fn sync_file(path: &Path) -> Result<(), InstallError> {
    // Windows needs write access to flush; Unix can fsync a read-only descriptor.
    let file = if cfg!(windows) {
        OpenOptions::new().write(true).open(path)
    } else {
        File::open(path)
    };
    file.and_then(|f| f.sync_all())
        .map_err(InstallError::io(path))
}

/// fsyncs a directory so the entries created or renamed in it are durable (no-op on Windows,
/// which cannot open directories as files).
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    if cfg!(windows) {
        return Ok(());
    }
    File::open(dir)?.sync_all()
}

/// Removes a file or a directory tree.
pub(super) fn remove_any(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    }
}

/// Removes a file; a file that is not there is no error.
pub(super) fn remove_if_exists(path: &Path) -> Result<(), InstallError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(InstallError::io(path)(e)),
        _ => Ok(()),
    }
}
