//! [`InstallError`] and how it maps to the public [`ApiError`]: what is the caller's to fix
//! (a bad, unsigned or damaged pack), what may pass (network, a full disk), and what is an
//! internal failure (other storage I/O, logged by [`ApiError::internal`]).
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{ApiError, Error, ErrorCode};
use crate::packs::manifest::ManifestError;

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
    pub(super) fn io(path: &Path) -> impl FnOnce(io::Error) -> InstallError + '_ {
        move |source| InstallError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(super) fn manifest(location: String, error: ManifestError) -> InstallError {
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

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
