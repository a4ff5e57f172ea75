//! Verifying packs on disk: the manifest's signature and format, and each file's size and
//! sha256 (streamed).
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{BUF_SIZE, InstallError, MANIFEST_FILE};
use crate::auth::keys::PublisherKey;
use crate::packs::manifest::{Manifest, PackFile};

/// Verifies a pack directory in any layout (an installed pack or a freshly built one): the
/// manifest's signature and format, then every file's size and sha256.
pub fn verify_pack_dir(dir: &Path, trusted: &[PublisherKey]) -> Result<Manifest, InstallError> {
    let manifest = read_installed_manifest(dir, trusted)?;
    verify_files(dir, &manifest)?;
    Ok(manifest)
}

/// Checks every file of `manifest` under `dir`.
pub(super) fn verify_files(dir: &Path, manifest: &Manifest) -> Result<(), InstallError> {
    for f in &manifest.files {
        let path = dir.join(&f.path);
        verify_file(&path, f).map_err(|e| match e {
            InstallError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound => {
                InstallError::MissingFile {
                    file: f.path.clone(),
                    location: path.display().to_string(),
                }
            }
            other => other,
        })?;
    }
    Ok(())
}

/// Lower-case hex SHA-256 and size of a file, streamed.
pub fn sha256_file(path: &Path) -> io::Result<(String, u64)> {
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; BUF_SIZE];
    let mut size = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        size += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok((hex(&hasher.finalize()), size))
}

/// Reads and verifies `<dir>/manifest.json` (signature and format only).
pub(crate) fn read_installed_manifest(
    dir: &Path,
    trusted: &[PublisherKey],
) -> Result<Manifest, InstallError> {
    let path = dir.join(MANIFEST_FILE);
    let bytes = fs::read(&path).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound && !dir.exists() {
            let mut it = dir.iter().rev();
            let version = it.next().map(|s| s.to_string_lossy().into_owned());
            let id = it.next().map(|s| s.to_string_lossy().into_owned());
            InstallError::NotInstalled {
                id: id.unwrap_or_default(),
                version: version.unwrap_or_default(),
            }
        } else {
            InstallError::io(&path)(e)
        }
    })?;
    Manifest::parse_verified(&bytes, trusted)
        .map_err(|e| InstallError::manifest(path.display().to_string(), e))
}

/// Checks the size and sha256 of `path` against `f`.
pub(super) fn verify_file(path: &Path, f: &PackFile) -> Result<(), InstallError> {
    let len = fs::metadata(path).map_err(InstallError::io(path))?.len();
    if len != f.size {
        return Err(InstallError::SizeMismatch {
            file: f.path.clone(),
            expected: f.size,
            actual: len,
        });
    }
    let (actual, _) = sha256_file(path).map_err(InstallError::io(path))?;
    if !actual.eq_ignore_ascii_case(&f.sha256) {
        return Err(InstallError::ShaMismatch {
            file: f.path.clone(),
            expected: f.sha256.to_ascii_lowercase(),
            actual,
        });
    }
    Ok(())
}

/// Lower-case hex SHA-256 of `bytes` (the form manifests record).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
