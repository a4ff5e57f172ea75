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
//! **Deltas** (ADR `docs/adr/0004-pack-deltas.md`, `patch`): before fetching, the installer
//! looks at the source for `deltas/<installed version>/delta.json` next to the new manifest.
//! When one is signed by a trusted publisher and names exactly the installed manifest and the
//! new one, each file is made from the installed base instead (`copy`: hard link or copy;
//! `patch`: a zstd patch-from frame, downloaded resumably into `.partial/.../delta/` and
//! applied) and must still match the new manifest's size and sha256 before it goes to `done/`;
//! a file whose patch is missing, corrupt or gives other bytes is downloaded in full. The
//! commit is the same. [`PackStore::offer`] tells what an install would download.
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
//! [`ErrorCode::BadRequest`]: crate::error::ErrorCode::BadRequest
//! [`ErrorCode::DataUnavailable`]: crate::error::ErrorCode::DataUnavailable
//! [`ErrorCode::NotFound`]: crate::error::ErrorCode::NotFound
//! [`ApiError::internal`]: crate::error::ApiError::internal
//!
//! Files: `source` reads a `file://` or `http(s)://` pack source, `download` fetches the files
//! into `.partial`, `patch` makes them from an installed version and a delta, `verify` checks sizes, hashes and manifests, `checks` what a manifest must
//! also satisfy here, `commit` publishes a pack atomically, `error` maps failures to
//! [`crate::error::ApiError`].
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
use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use parking_lot::Mutex;

use super::manifest::{Manifest, PackFile};
use crate::auth::keys::PublisherKey;

mod checks;
mod commit;
mod download;
mod error;
mod patch;
mod source;
pub(crate) use commit::sync_dir;
pub(crate) use source::{new_agent, parse_content_range, percent_decode};
mod verify;
pub(crate) use verify::hex;

pub use checks::{ManifestCheckError, PackNameError};
pub use error::InstallError;
pub(crate) use verify::read_installed_manifest;
pub use verify::{sha256_file, sha256_hex, verify_pack_dir};

use checks::{check_manifest, check_name};
use commit::{commit, remove_any, restore_done_files};
use download::{Job, prepare_partial};
use source::Source;
use verify::verify_files;

/// Directory of installs in progress, under the root.
pub const PARTIAL_DIR: &str = ".partial";
/// Directory of packs being committed, under the root.
pub const STAGING_DIR: &str = ".staging";
/// File name of the manifest in a pack directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Read buffer of downloads and hashing.
const BUF_SIZE: usize = 64 << 10;

/// Partial and staging directories of installs running in this process: `open` leaves them
/// alone and a second install of the same pack is refused.
static ACTIVE: Mutex<BTreeSet<PathBuf>> = parking_lot::const_mutex(BTreeSet::new());

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

/// What installing the pack at a source would take ([`PackStore::offer`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackOffer {
    /// Pack id.
    pub id: String,
    /// Version at the source.
    pub version: String,
    /// Size of the full pack.
    pub size: u64,
    /// The installed version a delta at the source applies to, and the bytes it downloads.
    pub delta: Option<(String, u64)>,
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
        let delta = patch::find_delta(self, &src, &manifest, trusted);
        // Files a delta prepares on the device come last: they are made from the new
        // pack database.
        let mut files: Vec<&PackFile> = manifest.files.iter().collect();
        files.sort_by_key(|f| delta.as_ref().is_some_and(|plan| plan.prepares(&f.path)));
        for file in files {
            if let Some(plan) = &delta {
                match plan.make_file(&mut job, file) {
                    Ok(true) => continue,
                    Ok(false) => {}
                    Err(e) => {
                        tracing::warn!(pack = %id, base = %plan.base_version, file = %file.path, error = %e, "the delta failed for this file; downloading it in full");
                    }
                }
            }
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

    /// Reads and verifies the manifest at `source` (a pack directory URL) and finds the delta
    /// from an installed version that an install would use: the sizes an update takes.
    /// Downloads nothing else.
    pub fn offer(&self, source: &str, trusted: &[PublisherKey]) -> Result<PackOffer, InstallError> {
        let src = Source::parse(source, &self.agent)?;
        let location = src.location(MANIFEST_FILE);
        let manifest = Manifest::parse_verified(&src.fetch_manifest()?, trusted)
            .map_err(|e| InstallError::manifest(location.clone(), e))?;
        let size = check_manifest(&manifest).map_err(|e| InstallError::InvalidManifest {
            location,
            reason: e.to_string(),
        })?;
        let delta = patch::find_delta(self, &src, &manifest, trusted)
            .map(|plan| (plan.base_version.clone(), plan.download));
        Ok(PackOffer {
            id: manifest.id,
            version: manifest.version,
            size,
            delta,
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
