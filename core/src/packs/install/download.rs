//! Fetching a pack's files into its partial directory: resumed from what an earlier attempt
//! left, verified, then moved to `done/`.
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::commit::{remove_any, remove_if_exists, write_synced};
use super::source::{Opened, Source};
use super::verify::verify_file;
use super::{BUF_SIZE, InstallError, InstallProgress, MANIFEST_FILE};
use crate::packs::manifest::{Manifest, PackFile};

/// Bytes between two progress reports within a file.
const PROGRESS_STEP: u64 = 256 << 10;

/// Creates the partial directory, wiping it first when it holds another manifest.
pub(super) fn prepare_partial(partial: &Path, manifest_bytes: &[u8]) -> Result<(), InstallError> {
    let stored = partial.join(MANIFEST_FILE);
    if partial.exists() && fs::read(&stored).ok().as_deref() != Some(manifest_bytes) {
        tracing::info!(path = %partial.display(), "discarding a partial download of another manifest");
        remove_any(partial).map_err(InstallError::io(partial))?;
    }
    for sub in ["parts", "done"] {
        let dir = partial.join(sub);
        fs::create_dir_all(&dir).map_err(InstallError::io(&dir))?;
    }
    if !stored.exists() {
        write_synced(&stored, manifest_bytes)?;
    }
    Ok(())
}

/// The download of one pack's files, with its progress.
pub(super) struct Job<'a> {
    pub(super) src: &'a Source<'a>,
    pub(super) partial: &'a Path,
    pub(super) manifest: &'a Manifest,
    pub(super) bytes_total: u64,
    pub(super) bytes_done: u64,
    pub(super) progress: &'a mut dyn FnMut(InstallProgress),
}

impl Job<'_> {
    pub(super) fn report(&mut self, file: &PackFile, file_done: u64) {
        (self.progress)(InstallProgress {
            pack_id: self.manifest.id.clone(),
            version: self.manifest.version.clone(),
            file: file.path.clone(),
            file_bytes_done: file_done,
            file_bytes_total: file.size,
            bytes_done: self.bytes_done,
            bytes_total: self.bytes_total,
        });
    }

    /// Makes `done/<path>` hold the verified file, fetching what is missing.
    pub(super) fn fetch_file(&mut self, f: &PackFile) -> Result<(), InstallError> {
        let done = self.partial.join("done").join(&f.path);
        if done.is_file() {
            match verify_file(&done, f) {
                Ok(()) => {
                    self.bytes_done += f.size;
                    self.report(f, f.size);
                    return Ok(());
                }
                Err(e) => {
                    tracing::warn!(file = %f.path, error = %e, "re-fetching a damaged downloaded file");
                    fs::remove_file(&done).map_err(InstallError::io(&done))?;
                }
            }
        }
        let part = self.partial.join("parts").join(format!("{}.part", f.path));
        if let Some(parent) = part.parent() {
            fs::create_dir_all(parent).map_err(InstallError::io(parent))?;
        }
        let existing = match fs::metadata(&part) {
            Ok(m) => Some(m.len()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(InstallError::io(&part)(e)),
        };
        let mut have = match existing {
            Some(len) if len > f.size => {
                // More than the file should hold: start over.
                File::create(&part).map_err(InstallError::io(&part))?;
                0
            }
            Some(len) => len,
            None => 0,
        };
        let base = self.bytes_done;
        self.bytes_done = base + have;
        self.report(f, have);
        if existing.is_none() || have < f.size {
            match self.src.open(&f.path, have, f.size) {
                Err(e @ InstallError::SizeMismatch { .. }) => {
                    remove_if_exists(&part)?;
                    return Err(e);
                }
                Err(e) => return Err(e),
                Ok(Opened::NothingLeft) => {}
                Ok(Opened::Body {
                    mut reader,
                    start,
                    url,
                }) => {
                    let mut out = if start == 0 {
                        File::create(&part)
                    } else {
                        OpenOptions::new().append(true).open(&part)
                    }
                    .map_err(InstallError::io(&part))?;
                    have = start;
                    self.bytes_done = base + have;
                    let mut buf = vec![0u8; BUF_SIZE];
                    let mut last_report = have;
                    loop {
                        let n = match reader.read(&mut buf) {
                            Ok(0) => break,
                            Ok(n) => n,
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                            Err(e) => {
                                self.report(f, have);
                                // file:// sources: a read error is local I/O.
                                return Err(if self.src.is_file() {
                                    InstallError::Io {
                                        path: PathBuf::from(&url),
                                        source: e,
                                    }
                                } else {
                                    InstallError::Network {
                                        url,
                                        message: e.to_string(),
                                    }
                                });
                            }
                        };
                        let n64 = n as u64;
                        if have + n64 > f.size {
                            drop(out);
                            remove_if_exists(&part)?;
                            return Err(InstallError::SizeMismatch {
                                file: f.path.clone(),
                                expected: f.size,
                                actual: have + n64,
                            });
                        }
                        out.write_all(&buf[..n]).map_err(InstallError::io(&part))?;
                        have += n64;
                        self.bytes_done = base + have;
                        if have - last_report >= PROGRESS_STEP {
                            last_report = have;
                            self.report(f, have);
                        }
                    }
                    out.sync_all().map_err(InstallError::io(&part))?;
                    if have < f.size {
                        // The source stopped early without a transport error: keep the part;
                        // the next attempt resumes it or learns (416 / size) the source is short.
                        return Err(InstallError::Network {
                            url,
                            message: format!("the transfer ended after {have} of {} bytes", f.size),
                        });
                    }
                }
            }
        }
        if let Err(e) = verify_file(&part, f) {
            if matches!(
                e,
                InstallError::SizeMismatch { .. } | InstallError::ShaMismatch { .. }
            ) {
                remove_if_exists(&part)?;
            }
            return Err(e);
        }
        if let Some(parent) = done.parent() {
            fs::create_dir_all(parent).map_err(InstallError::io(parent))?;
        }
        fs::rename(&part, &done).map_err(InstallError::io(&part))?;
        self.bytes_done = base + f.size;
        self.report(f, f.size);
        Ok(())
    }
}
