//! Installing data packs: download, verify, and atomically commit a signed pack directory
//! (ADR `docs/adr/0002-pack-format.md`).
//!
//! A [`PackStore`] owns a packs directory:
//!
//! ```text
//! <root>/<id>/<version>/            installed packs: manifest.json + every listed file
//! <root>/.partial/<id>-<version>/   an install in progress; kept across failures and crashes
//!     manifest.json                 the manifest being installed (a different one wipes the dir)
//!     parts/<path>.part             files being downloaded (resumed from their length)
//!     done/<path>                   files whose size and sha256 matched the manifest
//! <root>/.staging/<random>/         the pack being committed; removed on failure and at open
//! ```
//!
//! **Data flow of [`PackStore::install`].** Fetch `manifest.json` from the source and verify it
//! ([`Manifest::parse_verified`]: signature by a trusted publisher, `format_version`, safe
//! relative paths), check the id and version are safe directory names, refuse an id+version that
//! is already installed ([`InstallError::AlreadyInstalled`]; callers that retry after a lost
//! answer may treat it as success). Then each file is fetched into `parts/`: over HTTP with
//! `Range: bytes=N-` from the part's current length (a `200` from a server that ignores `Range`
//! restarts that file, a `416` means nothing is left to fetch); `file://` sources are copied the
//! same way. Each finished file is checked for size and sha256 (a mismatch deletes that part
//! and fails naming the file), fsynced, and moved to `done/`. When every file is good, they move
//! with the manifest into a fresh `.staging/<random>/`, every file and directory is fsynced, and
//! the staging directory is `rename`d to `<root>/<id>/<version>`: the only step that makes the
//! pack visible, and an atomic one. The `.partial` directory is removed last.
//!
//! Whatever fails (network, a bad file, a full disk, a killed process), no
//! `<root>/<id>/<version>` appears half-written and the previously installed versions are not
//! touched. What was downloaded stays in `.partial` so a retry only fetches the missing bytes.
//!
//! **Versions** of one pack id compare as plain strings (`YYYY.MM.DD[-N]` sorts correctly as
//! long as `N` stays one digit or is zero-padded); [`PackStore::latest`] is the greatest.
//! Installing an older version than the latest is allowed (it is how a rollback is done) and
//! installing does not remove other versions: swap the [`super::registry::PackRegistry`] first,
//! then [`PackStore::remove`] the old version once nothing reads it.
//!
//! **Concurrency.** One process owns a packs directory. Within it, two installs of the same
//! id+version at once are refused ([`InstallError::InProgress`]) and [`PackStore::open`] does not
//! clean the staging or partial directory of an install that is running.
//!
//! **Errors** are [`InstallError`]s; `From<InstallError> for ApiError` maps a bad, unsigned or
//! damaged pack to [`ErrorCode::BadRequest`], network failures, 5xx answers and a full disk to
//! [`ErrorCode::DataUnavailable`] (retrying later may succeed), no pack at the source or not
//! installed to
//! [`ErrorCode::NotFound`] and other I/O failures to [`ApiError::internal`] (logged, not shown).
//!
//! ```no_run
//! use waymark_core::packs::install::PackStore;
//! # fn trusted() -> Vec<waymark_core::auth::keys::PublisherKey> { vec![] }
//! let store = PackStore::open("/data/waymark/packs")?;
//! let pack = store.install(
//!     "https://packs.example.com/andorra/2026.11.22/",
//!     &trusted(),
//!     &mut |p| println!("{}: {}/{} bytes", p.file, p.bytes_done, p.bytes_total),
//! )?;
//! assert_eq!(store.latest("andorra")?.map(|p| p.version), Some(pack.version));
//! # Ok::<(), waymark_core::packs::install::InstallError>(())
//! ```
use std::collections::{BTreeSet, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use parking_lot::Mutex;
use sha2::{Digest, Sha256};

use super::manifest::{Manifest, ManifestError, PackFile};
use crate::auth::keys::PublisherKey;
use crate::error::{ApiError, Error, ErrorCode};

/// Directory of installs in progress, under the root.
pub const PARTIAL_DIR: &str = ".partial";
/// Directory of packs being committed, under the root.
pub const STAGING_DIR: &str = ".staging";
/// File name of the manifest in a pack directory.
pub const MANIFEST_FILE: &str = "manifest.json";

const MAX_MANIFEST_BYTES: u64 = 16 << 20;
const PROGRESS_STEP: u64 = 256 << 10;
const BUF_SIZE: usize = 64 << 10;
const MAX_NAME_LEN: usize = 128;

/// Partial and staging directories of installs running in this process: `open` leaves them
/// alone and a second install of the same pack is refused.
static ACTIVE: Mutex<BTreeSet<PathBuf>> = parking_lot::const_mutex(BTreeSet::new());

/// Why an install, a removal or a verification failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The source is not a `file://` or `http(s)://` URL.
    #[error("pack source `{0}` is not a file:// or http(s):// url of a pack directory")]
    BadSource(String),
    /// The transfer failed (connection refused or cut, timeout, TLS, DNS).
    #[error("network error while fetching {url}: {message}; retrying resumes the download")]
    Network {
        /// What was being fetched.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The server answered an unexpected HTTP status.
    #[error("{url} answered http status {status}")]
    HttpStatus {
        /// What was being fetched.
        url: String,
        /// The status.
        status: u16,
    },
    /// There is no pack at the source (no `manifest.json`).
    #[error("there is no pack at {location}: it has no manifest.json")]
    SourceNotFound {
        /// Where the manifest was looked for.
        location: String,
    },
    /// The manifest lists a file the source does not have.
    #[error(
        "the pack source has no file `{file}` (looked for {location}) although the manifest lists it"
    )]
    MissingFile {
        /// Path in the pack.
        file: String,
        /// Where it was looked for.
        location: String,
    },
    /// A file does not have the size the manifest gives.
    #[error("pack file `{file}` has {actual} bytes where the manifest says {expected}")]
    SizeMismatch {
        /// Path in the pack.
        file: String,
        /// Size in the manifest.
        expected: u64,
        /// Size found (at least this many bytes when the source sent too much).
        actual: u64,
    },
    /// A file does not have the hash the manifest gives.
    #[error(
        "pack file `{file}` is corrupt: its sha256 is {actual} where the manifest says {expected}"
    )]
    ShaMismatch {
        /// Path in the pack.
        file: String,
        /// Hash in the manifest.
        expected: String,
        /// Hash of the bytes received.
        actual: String,
    },
    /// The manifest is unsigned, signed by an untrusted publisher, or altered.
    #[error("pack manifest {location} refused: {error}")]
    Signature {
        /// Where the manifest came from.
        location: String,
        /// [`ManifestError::Unsigned`], [`ManifestError::UnknownPublisher`] or
        /// [`ManifestError::BadSignature`].
        #[source]
        error: ManifestError,
    },
    /// The pack has a format this build cannot read.
    #[error(
        "pack manifest {location} refused: pack format version {found} is not supported by this build (it reads version {supported}); update the sdk or install a pack built for it"
    )]
    UnsupportedFormat {
        /// Where the manifest came from.
        location: String,
        /// Version in the manifest.
        found: u64,
        /// Version this build reads.
        supported: u32,
    },
    /// The manifest does not parse or is inconsistent (unsafe path, duplicate file, id or
    /// version that is not a safe directory name, id/version not those of its directory).
    #[error("pack manifest {location} is invalid: {reason}")]
    InvalidManifest {
        /// Where the manifest came from.
        location: String,
        /// What is wrong.
        reason: String,
    },
    /// That id and version are installed already (nothing was changed).
    #[error("pack {id} {version} is already installed")]
    AlreadyInstalled {
        /// Pack id.
        id: String,
        /// Pack version.
        version: String,
    },
    /// No such pack version is installed.
    #[error("pack {id} {version} is not installed")]
    NotInstalled {
        /// Pack id.
        id: String,
        /// Pack version.
        version: String,
    },
    /// Another install of the same pack is running in this process.
    #[error("pack {id} {version} is being installed already; wait for that install to finish")]
    InProgress {
        /// Pack id.
        id: String,
        /// Pack version.
        version: String,
    },
    /// A file-system failure (disk full, permissions, ...), with the path involved.
    #[error("i/o error on {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
}

impl InstallError {
    fn io(path: &Path) -> impl FnOnce(io::Error) -> InstallError + '_ {
        move |source| InstallError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    fn manifest(location: String, error: ManifestError) -> InstallError {
        match error {
            ManifestError::UnsupportedFormat { found, supported } => {
                InstallError::UnsupportedFormat {
                    location,
                    found,
                    supported,
                }
            }
            e @ (ManifestError::Unsigned
            | ManifestError::UnknownPublisher(_)
            | ManifestError::BadSignature) => InstallError::Signature { location, error: e },
            e @ (ManifestError::Malformed(_) | ManifestError::BadFile(..)) => {
                InstallError::InvalidManifest {
                    location,
                    reason: e.to_string(),
                }
            }
        }
    }
}

impl From<InstallError> for ApiError {
    /// Bad, unsigned, damaged or already installed pack: `BadRequest`. Network failures, 5xx,
    /// 408/429, an install already running and a full disk: `DataUnavailable` (retry later).
    /// No pack at the source, or a pack that is not installed: `NotFound`. Other I/O failures:
    /// [`ApiError::internal`] (the path and cause are logged, not shown).
    fn from(err: InstallError) -> Self {
        let code = match err {
            InstallError::Io { ref source, .. } if source.kind() == io::ErrorKind::StorageFull => {
                tracing::warn!(error = %err, "pack install: storage full");
                return ApiError::new(
                    ErrorCode::DataUnavailable,
                    "there is not enough free storage to install the pack; free some space and retry",
                );
            }
            InstallError::Io { path, source } => {
                return ApiError::internal(&Error::io(
                    format!("pack storage: i/o error on {}", path.display()),
                    source,
                ));
            }
            InstallError::Network { .. } | InstallError::InProgress { .. } => {
                ErrorCode::DataUnavailable
            }
            InstallError::HttpStatus { status, .. } => match status {
                408 | 429 | 500..=599 => ErrorCode::DataUnavailable,
                _ => ErrorCode::BadRequest,
            },
            InstallError::NotInstalled { .. } | InstallError::SourceNotFound { .. } => {
                ErrorCode::NotFound
            }
            InstallError::BadSource(_)
            | InstallError::MissingFile { .. }
            | InstallError::SizeMismatch { .. }
            | InstallError::ShaMismatch { .. }
            | InstallError::Signature { .. }
            | InstallError::UnsupportedFormat { .. }
            | InstallError::InvalidManifest { .. }
            | InstallError::AlreadyInstalled { .. } => ErrorCode::BadRequest,
        };
        ApiError::new(code, err.to_string())
    }
}

/// Progress of an install, reported at the start and end of each file and every 256 KiB.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct InstallProgress {
    /// Pack id.
    pub pack_id: String,
    /// Pack version.
    pub version: String,
    /// File being fetched (path in the pack).
    pub file: String,
    /// Bytes of that file present so far (including bytes resumed from an earlier attempt).
    pub file_bytes_done: u64,
    /// Size of that file.
    pub file_bytes_total: u64,
    /// Bytes of the whole pack present so far.
    pub bytes_done: u64,
    /// Size of the whole pack (sum of the manifest's file sizes).
    pub bytes_total: u64,
}

/// An installed pack version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledPack {
    /// Pack id.
    pub id: String,
    /// Pack version.
    pub version: String,
    /// `<root>/<id>/<version>`.
    pub dir: PathBuf,
}

/// The packs directory: installs, lists, removes and verifies pack versions.
#[derive(Debug)]
pub struct PackStore {
    root: PathBuf,
    agent: ureq::Agent,
}

impl PackStore {
    /// Opens (creating it if needed) the packs directory `root`, removes leftovers of commits
    /// that did not finish (`.staging/*`) and `.partial` directories of packs installed since.
    /// Downloads of packs not installed yet stay in `.partial` so a retry resumes them.
    pub fn open(root: impl AsRef<Path>) -> Result<Self, InstallError> {
        let root = root.as_ref();
        let root = std::path::absolute(root).map_err(InstallError::io(root))?;
        fs::create_dir_all(&root).map_err(InstallError::io(&root))?;
        let store = PackStore {
            root,
            agent: new_agent(),
        };
        store.clean_leftovers();
        Ok(store)
    }

    /// The packs directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where `id` `version` is (or would be) installed: `<root>/<id>/<version>`.
    pub fn pack_dir(&self, id: &str, version: &str) -> PathBuf {
        self.root.join(id).join(version)
    }

    /// Where an install of `id` `version` keeps its downloads: `<root>/.partial/<id>-<version>`.
    pub fn partial_dir(&self, id: &str, version: &str) -> PathBuf {
        self.root.join(PARTIAL_DIR).join(format!("{id}-{version}"))
    }

    fn clean_leftovers(&self) {
        let staging = self.root.join(STAGING_DIR);
        if let Ok(entries) = fs::read_dir(&staging) {
            for entry in entries.flatten() {
                let path = entry.path();
                if ACTIVE.lock().contains(&path) {
                    continue;
                }
                tracing::info!(path = %path.display(), "removing an unfinished pack commit");
                if let Err(e) = remove_any(&path) {
                    tracing::warn!(path = %path.display(), error = %e, "cannot remove staging leftover");
                }
            }
        }
        let partial = self.root.join(PARTIAL_DIR);
        if let Ok(entries) = fs::read_dir(&partial) {
            for entry in entries.flatten() {
                let path = entry.path();
                if ACTIVE.lock().contains(&path) {
                    continue;
                }
                let installed = fs::read(path.join(MANIFEST_FILE))
                    .ok()
                    .and_then(|b| serde_json::from_slice::<IdVersion>(&b).ok())
                    .is_none_or(|m| {
                        check_name(&m.id).is_err()
                            || check_name(&m.version).is_err()
                            || self.pack_dir(&m.id, &m.version).is_dir()
                    });
                if installed {
                    tracing::info!(path = %path.display(), "removing a partial download that is no longer needed");
                    if let Err(e) = remove_any(&path) {
                        tracing::warn!(path = %path.display(), error = %e, "cannot remove partial leftover");
                    }
                }
            }
        }
    }

    /// Downloads, verifies and atomically installs the pack at `source`, the URL of a pack
    /// directory (`file:///abs/dir`, `http://host:port/dir/`, `https://...`). See the module
    /// documentation for the steps and guarantees.
    pub fn install(
        &self,
        source: &str,
        trusted: &[PublisherKey],
        progress: &mut dyn FnMut(InstallProgress),
    ) -> Result<InstalledPack, InstallError> {
        let src = Source::parse(source, &self.agent)?;
        let manifest_location = src.location(MANIFEST_FILE);
        let manifest_bytes = src.fetch_manifest()?;
        let manifest = Manifest::parse_verified(&manifest_bytes, trusted)
            .map_err(|e| InstallError::manifest(manifest_location.clone(), e))?;
        let bytes_total = check_manifest(&manifest).map_err(|e| InstallError::InvalidManifest {
            location: manifest_location.clone(),
            reason: e.to_string(),
        })?;
        let (id, version) = (manifest.id.clone(), manifest.version.clone());
        let final_dir = self.pack_dir(&id, &version);
        let already = || InstallError::AlreadyInstalled {
            id: id.clone(),
            version: version.clone(),
        };
        if final_dir.exists() {
            return Err(already());
        }
        let partial = self.partial_dir(&id, &version);
        let _partial_guard =
            ActiveGuard::claim(&partial).ok_or_else(|| InstallError::InProgress {
                id: id.clone(),
                version: version.clone(),
            })?;
        if final_dir.exists() {
            return Err(already());
        }
        prepare_partial(&partial, &manifest_bytes)?;

        let mut job = Job {
            src: &src,
            partial: &partial,
            manifest: &manifest,
            bytes_total,
            bytes_done: 0,
            progress,
        };
        for file in &manifest.files {
            job.fetch_file(file)?;
        }

        let staging = self.new_staging_path()?;
        let _staging_guard = ActiveGuard::claim(&staging);
        if let Err(e) = commit(&partial, &staging, &manifest, &manifest_bytes, &final_dir) {
            restore_done_files(&partial, &staging, &manifest);
            if staging.exists()
                && let Err(rm) = fs::remove_dir_all(&staging)
            {
                tracing::warn!(path = %staging.display(), error = %rm, "cannot remove staging dir");
            }
            return Err(e);
        }
        if let Err(e) = fs::remove_dir_all(&partial) {
            tracing::warn!(path = %partial.display(), error = %e, "installed, but cannot remove the partial download");
        }
        tracing::info!(pack = %id, version = %version, "pack installed");
        Ok(InstalledPack {
            id,
            version,
            dir: final_dir,
        })
    }

    fn new_staging_path(&self) -> Result<PathBuf, InstallError> {
        let mut rnd = [0u8; 8];
        getrandom::fill(&mut rnd).map_err(|e| InstallError::Io {
            path: self.root.join(STAGING_DIR),
            source: io::Error::other(format!("random: {e}")),
        })?;
        Ok(self.root.join(STAGING_DIR).join(hex(&rnd)))
    }

    /// Every installed pack version, sorted by id then version. Cheap: reads directory names
    /// only (a version directory counts when it holds a `manifest.json`); the registry verifies
    /// signatures when it loads.
    pub fn list(&self) -> Result<Vec<InstalledPack>, InstallError> {
        let mut out = Vec::new();
        for id in self.dir_names(&self.root)? {
            out.extend(self.versions_of(&id)?);
        }
        Ok(out)
    }

    /// Installed versions of `id`, oldest first (string order).
    pub fn installed_versions(&self, id: &str) -> Result<Vec<String>, InstallError> {
        Ok(self
            .versions_of(id)?
            .into_iter()
            .map(|p| p.version)
            .collect())
    }

    /// The greatest installed version of `id` (string order), if any.
    pub fn latest(&self, id: &str) -> Result<Option<InstalledPack>, InstallError> {
        Ok(self.versions_of(id)?.pop())
    }

    fn versions_of(&self, id: &str) -> Result<Vec<InstalledPack>, InstallError> {
        if check_name(id).is_err() {
            return Ok(Vec::new());
        }
        let id_dir = self.root.join(id);
        if !id_dir.is_dir() {
            return Ok(Vec::new());
        }
        Ok(self
            .dir_names(&id_dir)?
            .into_iter()
            .filter(|v| id_dir.join(v).join(MANIFEST_FILE).is_file())
            .map(|version| InstalledPack {
                id: id.to_string(),
                dir: id_dir.join(&version),
                version,
            })
            .collect())
    }

    /// Sorted names of sub-directories that are valid pack names (hidden ones excluded).
    fn dir_names(&self, dir: &Path) -> Result<Vec<String>, InstallError> {
        let mut names = Vec::new();
        for entry in fs::read_dir(dir).map_err(InstallError::io(dir))? {
            let entry = entry.map_err(InstallError::io(dir))?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            if check_name(&name).is_ok() && entry.path().is_dir() {
                names.push(name);
            }
        }
        names.sort();
        Ok(names)
    }

    /// Removes an installed version. The directory is first renamed into `.staging` (so it
    /// disappears atomically), then deleted. Swap the registry away from it first: open files
    /// keep working on Unix, but new opens of its files fail.
    pub fn remove(&self, id: &str, version: &str) -> Result<(), InstallError> {
        let not_installed = || InstallError::NotInstalled {
            id: id.to_string(),
            version: version.to_string(),
        };
        if check_name(id).is_err() || check_name(version).is_err() {
            return Err(not_installed());
        }
        let dir = self.pack_dir(id, version);
        if !dir.is_dir() {
            return Err(not_installed());
        }
        let trash = self.new_staging_path()?;
        let staging_root = self.root.join(STAGING_DIR);
        fs::create_dir_all(&staging_root).map_err(InstallError::io(&staging_root))?;
        fs::rename(&dir, &trash).map_err(InstallError::io(&dir))?;
        let id_dir = self.root.join(id);
        let _ = sync_dir(&id_dir);
        fs::remove_dir_all(&trash).map_err(InstallError::io(&trash))?;
        // Drop the id directory when that was its last version (fails harmlessly otherwise).
        let _ = fs::remove_dir(&id_dir);
        tracing::info!(pack = %id, version = %version, "pack removed");
        Ok(())
    }

    /// Re-checks an installed version: the manifest signature and format, that it names this
    /// directory's id and version, and the size and sha256 of every file (reads every byte;
    /// for a `verify` command, not for start-up). Returns the manifest.
    pub fn verify_installed(
        &self,
        id: &str,
        version: &str,
        trusted: &[PublisherKey],
    ) -> Result<Manifest, InstallError> {
        if check_name(id).is_err() || check_name(version).is_err() {
            return Err(InstallError::NotInstalled {
                id: id.to_string(),
                version: version.to_string(),
            });
        }
        let dir = self.pack_dir(id, version);
        let manifest = read_installed_manifest(&dir, trusted)?;
        if manifest.id != id || manifest.version != version {
            return Err(InstallError::InvalidManifest {
                location: dir.join(MANIFEST_FILE).display().to_string(),
                reason: format!(
                    "it describes pack {} {} but is installed as {id} {version}",
                    manifest.id, manifest.version
                ),
            });
        }
        verify_files(&dir, &manifest)?;
        Ok(manifest)
    }
}

/// Verifies a pack directory in any layout (an installed pack or a freshly built one): the
/// manifest's signature and format, then every file's size and sha256.
pub fn verify_pack_dir(dir: &Path, trusted: &[PublisherKey]) -> Result<Manifest, InstallError> {
    let manifest = read_installed_manifest(dir, trusted)?;
    verify_files(dir, &manifest)?;
    Ok(manifest)
}

/// Checks every file of `manifest` under `dir`.
fn verify_files(dir: &Path, manifest: &Manifest) -> Result<(), InstallError> {
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

#[derive(serde::Deserialize)]
struct IdVersion {
    id: String,
    version: String,
}

/// Registers a path as used by a running install; released on drop.
struct ActiveGuard(PathBuf);

impl ActiveGuard {
    fn claim(path: &Path) -> Option<ActiveGuard> {
        ACTIVE
            .lock()
            .insert(path.to_path_buf())
            .then(|| ActiveGuard(path.to_path_buf()))
    }
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        ACTIVE.lock().remove(&self.0);
    }
}

/// Why a pack id or version is not a safe single directory name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PackNameError {
    /// Empty or longer than the limit.
    #[error("must have 1 to {MAX_NAME_LEN} characters")]
    Length,
    /// Hidden (and `.`, `..`).
    #[error("must not start with `.`")]
    LeadingDot,
    /// A character other than ASCII letters, digits, `.`, `-` and `_`.
    #[error("may only contain ascii letters, digits, `.`, `-` and `_`")]
    Characters,
}

/// Why a verified manifest cannot be installed (what `parse_verified` does not check).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestCheckError {
    /// The id is not a safe directory name.
    #[error("pack id `{id}` {why}")]
    Id {
        /// The id.
        id: String,
        /// What is wrong with it.
        why: PackNameError,
    },
    /// The version is not a safe directory name.
    #[error("pack version `{version}` {why}")]
    Version {
        /// The version.
        version: String,
        /// What is wrong with it.
        why: PackNameError,
    },
    /// Two files with the same path (ignoring ASCII case).
    #[error("a file is listed twice (paths are compared ignoring case)")]
    Duplicate,
    /// A path listed as a file is also the directory of another file.
    #[error("`{0}` is listed as a file and as a directory")]
    FileAndDirectory(String),
    /// The sum of the file sizes does not fit in 64 bits.
    #[error("file sizes overflow")]
    SizeOverflow,
}

/// A pack id or version must be a safe single directory name.
fn check_name(name: &str) -> Result<(), PackNameError> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Err(PackNameError::Length);
    }
    if name.starts_with('.') {
        return Err(PackNameError::LeadingDot);
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
    {
        return Err(PackNameError::Characters);
    }
    Ok(())
}

/// Checks what `parse_verified` does not: safe id/version names, no duplicate file, no file
/// that is also a directory of another. Returns the total size.
fn check_manifest(m: &Manifest) -> Result<u64, ManifestCheckError> {
    check_name(&m.id).map_err(|why| ManifestCheckError::Id {
        id: m.id.clone(),
        why,
    })?;
    check_name(&m.version).map_err(|why| ManifestCheckError::Version {
        version: m.version.clone(),
        why,
    })?;
    // Compared without ASCII case: iOS, macOS and Windows file systems ignore it.
    let paths: HashSet<String> = m
        .files
        .iter()
        .map(|f| f.path.to_ascii_lowercase())
        .collect();
    if paths.len() != m.files.len() {
        return Err(ManifestCheckError::Duplicate);
    }
    let mut total = 0u64;
    for f in &m.files {
        let lower = f.path.to_ascii_lowercase();
        let mut prefix = lower.as_str();
        while let Some((parent, _)) = prefix.rsplit_once('/') {
            if paths.contains(parent) {
                return Err(ManifestCheckError::FileAndDirectory(parent.to_string()));
            }
            prefix = parent;
        }
        total = total
            .checked_add(f.size)
            .ok_or(ManifestCheckError::SizeOverflow)?;
    }
    Ok(total)
}

/// Creates the partial directory, wiping it first when it holds another manifest.
fn prepare_partial(partial: &Path, manifest_bytes: &[u8]) -> Result<(), InstallError> {
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

struct Job<'a> {
    src: &'a Source<'a>,
    partial: &'a Path,
    manifest: &'a Manifest,
    bytes_total: u64,
    bytes_done: u64,
    progress: &'a mut dyn FnMut(InstallProgress),
}

impl Job<'_> {
    fn report(&mut self, file: &PackFile, file_done: u64) {
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
    fn fetch_file(&mut self, f: &PackFile) -> Result<(), InstallError> {
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

/// Checks the size and sha256 of `path` against `f`.
fn verify_file(path: &Path, f: &PackFile) -> Result<(), InstallError> {
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

/// Moves the verified files and the manifest into `staging`, fsyncs everything, and renames
/// `staging` to `final_dir`.
fn commit(
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
fn restore_done_files(partial: &Path, staging: &Path, manifest: &Manifest) {
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

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    let mut f = File::create(path).map_err(InstallError::io(path))?;
    f.write_all(bytes).map_err(InstallError::io(path))?;
    f.sync_all().map_err(InstallError::io(path))
}

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
fn sync_dir(dir: &Path) -> io::Result<()> {
    if cfg!(windows) {
        return Ok(());
    }
    File::open(dir)?.sync_all()
}

fn remove_any(path: &Path) -> io::Result<()> {
    if path.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    }
}

fn remove_if_exists(path: &Path) -> Result<(), InstallError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(InstallError::io(path)(e)),
        _ => Ok(()),
    }
}

/// Lower-case hex SHA-256 of `bytes` (the form manifests record).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn new_agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .user_agent(concat!("waymark/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent()
}

/// Where pack files come from.
enum Source<'a> {
    Dir(PathBuf),
    Http {
        base: String,
        agent: &'a ureq::Agent,
    },
}

/// A file opened at an offset.
enum Opened {
    /// Bytes from `start` (0 when the source restarts the file).
    Body {
        reader: Box<dyn Read>,
        start: u64,
        url: String,
    },
    /// The source has nothing past the offset (HTTP 416).
    NothingLeft,
}

impl<'a> Source<'a> {
    fn parse(source: &str, agent: &'a ureq::Agent) -> Result<Self, InstallError> {
        let bad = || InstallError::BadSource(source.to_string());
        if let Some(rest) = source.strip_prefix("file://") {
            let rest = rest.strip_prefix("localhost").unwrap_or(rest);
            if !rest.starts_with('/') {
                return Err(bad());
            }
            let decoded = percent_decode(rest).ok_or_else(bad)?;
            // file:///C:/packs on Windows.
            let decoded = if cfg!(windows) && decoded.get(2..3) == Some(":") {
                decoded[1..].to_string()
            } else {
                decoded
            };
            return Ok(Source::Dir(PathBuf::from(decoded)));
        }
        let lower = source.to_ascii_lowercase();
        if (lower.starts_with("http://") || lower.starts_with("https://"))
            && !source.contains(['?', '#'])
        {
            let mut base = source.to_string();
            if !base.ends_with('/') {
                base.push('/');
            }
            return Ok(Source::Http { base, agent });
        }
        Err(bad())
    }

    fn is_file(&self) -> bool {
        matches!(self, Source::Dir(_))
    }

    fn location(&self, rel: &str) -> String {
        match self {
            Source::Dir(dir) => dir.join(rel).display().to_string(),
            Source::Http { base, .. } => {
                let encoded: Vec<String> = rel.split('/').map(percent_encode).collect();
                format!("{base}{}", encoded.join("/"))
            }
        }
    }

    fn fetch_manifest(&self) -> Result<Vec<u8>, InstallError> {
        let url = self.location(MANIFEST_FILE);
        match self {
            Source::Dir(dir) => {
                let path = dir.join(MANIFEST_FILE);
                fs::read(&path).map_err(|e| {
                    if e.kind() == io::ErrorKind::NotFound {
                        InstallError::SourceNotFound {
                            location: url.clone(),
                        }
                    } else {
                        InstallError::io(&path)(e)
                    }
                })
            }
            Source::Http { agent, .. } => {
                let mut resp = agent.get(&url).call().map_err(|e| InstallError::Network {
                    url: url.clone(),
                    message: e.to_string(),
                })?;
                let status = resp.status().as_u16();
                if matches!(status, 404 | 410) {
                    return Err(InstallError::SourceNotFound { location: url });
                }
                if status != 200 {
                    return Err(InstallError::HttpStatus { url, status });
                }
                resp.body_mut()
                    .with_config()
                    .limit(MAX_MANIFEST_BYTES)
                    .read_to_vec()
                    .map_err(|e| InstallError::Network {
                        url,
                        message: e.to_string(),
                    })
            }
        }
    }

    /// Opens `rel` from byte `offset`; checks the source's size against `size` when known.
    fn open(&self, rel: &str, offset: u64, size: u64) -> Result<Opened, InstallError> {
        let url = self.location(rel);
        let size_mismatch = |actual| InstallError::SizeMismatch {
            file: rel.to_string(),
            expected: size,
            actual,
        };
        let missing = || InstallError::MissingFile {
            file: rel.to_string(),
            location: url.clone(),
        };
        match self {
            Source::Dir(dir) => {
                let path = dir.join(rel);
                let mut file = match File::open(&path) {
                    Ok(f) => f,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(missing()),
                    Err(e) => return Err(InstallError::io(&path)(e)),
                };
                let meta = file.metadata().map_err(InstallError::io(&path))?;
                if !meta.is_file() {
                    return Err(missing());
                }
                if meta.len() != size {
                    return Err(size_mismatch(meta.len()));
                }
                file.seek(SeekFrom::Start(offset))
                    .map_err(InstallError::io(&path))?;
                Ok(Opened::Body {
                    reader: Box::new(file),
                    start: offset,
                    url: path.display().to_string(),
                })
            }
            Source::Http { agent, .. } => {
                let mut req = agent.get(&url);
                if offset > 0 {
                    req = req.header("Range", format!("bytes={offset}-"));
                }
                let resp = req.call().map_err(|e| InstallError::Network {
                    url: url.clone(),
                    message: e.to_string(),
                })?;
                let status = resp.status().as_u16();
                let header = |name: &str| {
                    resp.headers()
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_string)
                };
                match status {
                    200 => {
                        if let Some(len) = header("content-length").and_then(|v| v.parse().ok())
                            && len != size
                        {
                            return Err(size_mismatch(len));
                        }
                        if offset > 0 {
                            tracing::info!(url = %url, "server ignored the range request; restarting the file");
                        }
                        Ok(Opened::Body {
                            reader: Box::new(resp.into_body().into_reader()),
                            start: 0,
                            url,
                        })
                    }
                    206 => {
                        let range = header("content-range").and_then(|v| parse_content_range(&v));
                        match range {
                            Some((start, total)) if start == offset => {
                                if let Some(total) = total
                                    && total != size
                                {
                                    return Err(size_mismatch(total));
                                }
                                Ok(Opened::Body {
                                    reader: Box::new(resp.into_body().into_reader()),
                                    start,
                                    url,
                                })
                            }
                            // A range we did not ask for: fetch the whole file instead.
                            _ if offset > 0 => self.open(rel, 0, size),
                            _ => Err(InstallError::Network {
                                url,
                                message: "the server sent a partial answer to a full request"
                                    .into(),
                            }),
                        }
                    }
                    416 => Ok(Opened::NothingLeft),
                    404 | 410 => Err(missing()),
                    _ => Err(InstallError::HttpStatus { url, status }),
                }
            }
        }
    }
}

/// `bytes START-END/TOTAL` (TOTAL may be `*`) → (START, TOTAL).
fn parse_content_range(v: &str) -> Option<(u64, Option<u64>)> {
    let rest = v.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let (start, _end) = range.split_once('-')?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    Some((start.trim().parse().ok()?, total))
}

fn percent_encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn names_must_be_safe_directory_names() {
        for ok in ["andorra", "base", "2026.11.22", "2026.11.22-1", "a_b"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", ".", "..", ".hidden", "a/b", "a\\b", "a b", "é"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn content_range_parses() {
        assert_eq!(
            parse_content_range("bytes 10-99/100"),
            Some((10, Some(100)))
        );
        assert_eq!(parse_content_range("bytes 0-9/*"), Some((0, None)));
        assert_eq!(parse_content_range("bytes */100"), None);
        assert_eq!(parse_content_range("items 0-1/2"), None);
    }

    #[test]
    fn urls_and_paths_round_trip() {
        assert_eq!(percent_encode("a b%.sqlite"), "a%20b%25.sqlite");
        assert_eq!(percent_decode("/tmp/a%20b").as_deref(), Some("/tmp/a b"));
        assert_eq!(percent_decode("/tmp/%zz"), None);
        let agent = new_agent();
        assert!(matches!(
            Source::parse("file:///tmp/x%20y", &agent),
            Ok(Source::Dir(p)) if p == Path::new("/tmp/x y")
        ));
        match Source::parse("http://127.0.0.1:9/packs/a", &agent).unwrap() {
            Source::Http { base, .. } => assert_eq!(base, "http://127.0.0.1:9/packs/a/"),
            Source::Dir(_) => panic!("expected http"),
        }
        for bad in [
            "ftp://x/y",
            "file://relative",
            "/abs/path",
            "http://x/y?q=1",
        ] {
            assert!(
                matches!(Source::parse(bad, &agent), Err(InstallError::BadSource(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn manifest_checks_duplicates_and_file_dir_clashes() {
        let file = |p: &str| PackFile {
            path: p.into(),
            sha256: "0".repeat(64),
            size: 1,
        };
        let mut m = Manifest::new("andorra", "2026.11.22", vec![]);
        m.files = vec![file("a"), file("b/c")];
        assert_eq!(check_manifest(&m), Ok(2));
        m.files = vec![file("a"), file("a")];
        assert!(check_manifest(&m).is_err());
        m.files = vec![file("data.bin"), file("Data.bin")];
        assert!(check_manifest(&m).is_err());
        m.files = vec![file("b"), file("b/c")];
        assert!(check_manifest(&m).is_err());
        m.files = vec![];
        m.id = "../x".into();
        assert!(check_manifest(&m).is_err());
    }

    #[test]
    fn api_error_codes() {
        let e: ApiError = InstallError::Network {
            url: "u".into(),
            message: "m".into(),
        }
        .into();
        assert_eq!(e.code, ErrorCode::DataUnavailable);
        let e: ApiError = InstallError::ShaMismatch {
            file: "data.sqlite".into(),
            expected: "a".into(),
            actual: "b".into(),
        }
        .into();
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert!(e.message.contains("data.sqlite"));
        let e: ApiError = InstallError::Io {
            path: "/x".into(),
            source: io::Error::from(io::ErrorKind::StorageFull),
        }
        .into();
        assert_eq!(e.code, ErrorCode::DataUnavailable);
    }
}
