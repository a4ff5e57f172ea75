//! The error of a pack build, shared by the build steps (the `build` driver and the `routing`
//! and `tolls` layers) so that none of them imports another for it.
//!
//! ```
//! use waymark_packs::error::BuildError;
//! let e = BuildError::Invalid("no osm source".into());
//! assert_eq!(e.to_string(), "no osm source");
//! ```
use std::path::Path;

/// Errors of a build.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// An input is missing or does not verify.
    #[error(transparent)]
    Source(#[from] crate::sources::SourceError),
    /// OSM layers failed.
    #[error("osm: {0}")]
    Osm(String),
    /// IP layer failed.
    #[error(transparent)]
    Ip(#[from] crate::ip::IpError),
    /// SQLite failure.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// File-system failure.
    #[error("{path}: {source}")]
    Io {
        /// Path.
        path: String,
        /// Error.
        #[source]
        source: std::io::Error,
    },
    /// A three-word list has fewer words left after its rules than the scheme needs.
    #[error(
        "three-word list `{language}`: only {found} words remain after the rules, {needed} are needed"
    )]
    TooFewWords {
        /// Language code.
        language: String,
        /// Words left.
        found: usize,
        /// Words needed.
        needed: usize,
    },
    /// The stores layer could not be written.
    #[error("stores layer: {0}")]
    Stores(#[from] waymark_core::stores::packed::PackedError),
    /// The region to cut does not fit the extract.
    #[error(transparent)]
    Cut(#[from] crate::cut::CutError),
    /// The plan or the pack is not usable.
    #[error("{0}")]
    Invalid(String),
}

/// A file-system failure at `path`.
pub(crate) fn io(path: &Path, source: std::io::Error) -> BuildError {
    BuildError::Io {
        path: path.display().to_string(),
        source,
    }
}
