//! Installed packs as the engine manages them: the [`PackStore`] on disk, the
//! [`PackRegistry`] that serves, and the install jobs of `POST /packs`.
//!
//! An install downloads (resumably) and verifies every file and the publisher's signature,
//! then swaps the pack into the registry atomically; the replaced version keeps answering
//! until then and is deleted from disk afterwards. `POST /packs` runs it as a job on a thread
//! of its own (polled with `GET /packs/installs/{id}`); the native SDK awaits it with progress.
use std::collections::HashMap;
use std::sync::Arc;

use crate::api::{PackAttribution, PackInfo, PackInstallStatus, PackUpdate};
use crate::auth::keys::PublisherKey;
use crate::error::{ApiError, Error, ErrorCode};

use super::{InstallProgress, InstalledPack, LoadedPack, PackRegistry, PackStore};

/// The packs of an engine.
#[derive(Debug)]
pub struct PackManager {
    store: Option<PackStore>,
    trusted: Vec<PublisherKey>,
    registry: PackRegistry,
    jobs: parking_lot::Mutex<HashMap<String, PackInstallStatus>>,
}

impl PackManager {
    /// Manages the packs of `store` (none: every data operation answers 503), trusting
    /// `trusted`; loads what is installed.
    pub fn open(
        store: Option<PackStore>,
        trusted: Vec<PublisherKey>,
    ) -> Result<Self, super::InstallError> {
        let registry = match &store {
            Some(store) => PackRegistry::load_all(store, &trusted)?,
            None => PackRegistry::new(),
        };
        Ok(PackManager {
            store,
            trusted,
            registry,
            jobs: parking_lot::Mutex::new(HashMap::new()),
        })
    }

    /// The loaded packs.
    pub fn registry(&self) -> &PackRegistry {
        &self.registry
    }

    fn store(&self) -> Result<&PackStore, ApiError> {
        self.store.as_ref().ok_or_else(|| {
            ApiError::new(
                ErrorCode::DataUnavailable,
                "this engine was opened without a packs directory",
            )
        })
    }

    /// The loaded packs, as [`PackManager::list`], and for the one with the id of the pack at
    /// `source` (a pack directory URL, another version), the sizes installing it takes: full,
    /// and with the delta from the loaded version when the source has one.
    pub fn list_with_source(&self, source: Option<&str>) -> Result<Vec<PackInfo>, ApiError> {
        let mut packs = self.list();
        let Some(source) = source else {
            return Ok(packs);
        };
        let offer = self.store()?.offer(source, &self.trusted)?;
        for p in &mut packs {
            if p.id == offer.id && p.version != offer.version {
                p.update = Some(PackUpdate {
                    version: offer.version.clone(),
                    url: source.to_string(),
                    size: offer.size,
                    delta_size: offer
                        .delta
                        .as_ref()
                        .filter(|(base, _)| *base == p.version)
                        .map(|(_, bytes)| *bytes),
                });
            }
        }
        Ok(packs)
    }

    /// The loaded packs with their licences and attribution, by id.
    pub fn list(&self) -> Vec<PackInfo> {
        let snapshot = self.registry.snapshot();
        let mut packs: Vec<PackInfo> = snapshot
            .all()
            .into_iter()
            .map(|p| PackInfo {
                id: p.manifest.id.clone(),
                version: p.manifest.version.clone(),
                layers: p.manifest.layers.clone(),
                bbox: p.manifest.coverage.bbox.to_vec(),
                built_at: p.manifest.built_at.clone(),
                size: p.manifest.files.iter().map(|f| f.size).sum(),
                attribution: p
                    .manifest
                    .sources
                    .iter()
                    .map(|s| PackAttribution {
                        id: s.id.clone(),
                        licence: s.licence.clone(),
                        attribution: s.attribution.clone(),
                    })
                    .collect(),
                update: None,
            })
            .collect();
        packs.sort_by(|a, b| a.id.cmp(&b.id));
        packs
    }

    /// Installs a pack from a `file://` or `http(s)://` pack directory URL (resumable,
    /// verified, atomic) and swaps it in while serving; the previous version is removed from
    /// disk once no longer loaded.
    pub fn install(
        &self,
        source: &str,
        progress: &mut dyn FnMut(InstallProgress),
    ) -> Result<InstalledPack, ApiError> {
        let store = self.store()?;
        let installed = store.install(source, &self.trusted, progress)?;
        let loaded = LoadedPack::load(&installed, &self.trusted)?;
        if let Some(old) = self.registry.swap_in(loaded)
            && old.version() != installed.version
            && let Err(e) = store.remove(old.id(), old.version())
        {
            tracing::warn!(pack = old.id(), version = old.version(), error = %e, "could not remove the replaced version");
        }
        Ok(installed)
    }

    /// Installs the pack at `url`, reporting to `progress`, and describes the completed
    /// install; its id is `<pack>@<version>` (a background job puts its job id instead).
    pub fn install_now(
        &self,
        url: &str,
        progress: &mut dyn FnMut(InstallProgress),
    ) -> Result<PackInstallStatus, ApiError> {
        let mut bytes_total = 0;
        let pack = self.install(url, &mut |p| {
            bytes_total = p.bytes_total;
            progress(p);
        })?;
        Ok(PackInstallStatus {
            install_id: format!("{}@{}", pack.id, pack.version),
            status: "completed".into(),
            pack_id: Some(pack.id),
            version: Some(pack.version),
            bytes_done: bytes_total,
            bytes_total,
            error: None,
        })
    }

    /// Starts installing the pack at `url` on a thread of its own; returns the job id, whose
    /// progress [`PackManager::job`] reports.
    pub fn start_install(self: &Arc<Self>, url: String) -> Result<String, ApiError> {
        self.store()?;
        let mut id_bytes = [0u8; 8];
        getrandom::fill(&mut id_bytes).map_err(|e| ApiError::internal(&e))?;
        let job: String = id_bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.jobs.lock().insert(
            job.clone(),
            PackInstallStatus {
                install_id: job.clone(),
                status: "in_progress".into(),
                pack_id: None,
                version: None,
                bytes_done: 0,
                bytes_total: 0,
                error: None,
            },
        );
        let manager = Arc::clone(self);
        let id = job.clone();
        std::thread::Builder::new()
            .name(format!("pack-install-{job}"))
            .spawn(move || {
                let result = manager.install_now(&url, &mut |p| {
                    if let Some(s) = manager.jobs.lock().get_mut(&id) {
                        s.pack_id = Some(p.pack_id.clone());
                        s.version = Some(p.version.clone());
                        s.bytes_done = p.bytes_done;
                        s.bytes_total = p.bytes_total;
                    }
                });
                if let Some(s) = manager.jobs.lock().get_mut(&id) {
                    match result {
                        Ok(done) => {
                            *s = PackInstallStatus {
                                install_id: id.clone(),
                                ..done
                            };
                        }
                        Err(e) => {
                            s.status = "failed".into();
                            s.error = Some(e.message);
                        }
                    }
                }
            })
            .map_err(|e| ApiError::internal(&Error::io("cannot start the install", e)))?;
        Ok(job)
    }

    /// The state of install job `id`.
    pub fn job(&self, id: &str) -> Result<PackInstallStatus, ApiError> {
        self.jobs
            .lock()
            .get(id)
            .cloned()
            .ok_or_else(|| ApiError::not_found(format!("no install `{id}`")))
    }

    /// Unloads and deletes every installed version of pack `id`.
    pub fn remove(&self, id: &str) -> Result<(), ApiError> {
        let store = self.store()?;
        let versions = store.installed_versions(id)?;
        if versions.is_empty() {
            return Err(ApiError::not_found(format!("no pack `{id}` is installed")));
        }
        self.registry.remove(id);
        for v in versions {
            store.remove(id, &v)?;
        }
        Ok(())
    }
}
