//! Data packs: immutable, signed directories of SQLite databases, tantivy indexes and routing
//! graphs (format v1, ADR `docs/adr/0002-pack-format.md`).
//!
//! This module holds what the builder (`waymark-packs`) and the readers share: the manifest
//! with its canonical signature, and (as layers land) the SQL DDL and tantivy schemas.
pub mod delta;
pub mod docstore;
pub mod grid;
pub mod install;
pub mod manager;
pub mod manifest;
pub mod registry;
pub mod schema;
pub mod search;
pub mod sqlrows;

pub use install::{InstallError, InstallProgress, InstalledPack, PackOffer, PackStore};
pub(crate) use install::{new_agent, parse_content_range, percent_decode, sync_dir};
pub use manager::PackManager;
pub use manifest::{FORMAT_VERSION, Manifest, ManifestError, PackFile, PackSource};
pub use registry::{LoadedPack, PackRegistry, PackSet};
