//! Search layer: the pack's tantivy name index (`search/`, schema in
//! `waymark_core::packs::search`) built from the places, addresses, POIs and roads of
//! `data.sqlite`.
//!
//! Rules:
//!
//! * **Countries**: one document per country of the pack (`place.country-CC`), names from
//!   the `countries` table (base pack) or world-countries' translations (region packs); the
//!   outline is the OSM country boundary when the extract has it.
//! * **Admin areas**: every OSM `admin_level` boundary; parents are the areas of a lower
//!   level containing its point.
//! * **Settlements**: OSM place nodes; a GeoNames place whose name equals a name of an OSM
//!   settlement of the same pack within 15 km is merged into it (its localized names and
//!   population are added), the others are documents of their own.
//! * **Locality of a point** (addresses, streets, POIs, postal codes): the settlement named
//!   by `addr:city` within 30 km, else the settlement minimizing distance / reach (city 10 km,
//!   town 5, village 2.5, hamlet 1.2; at most one reach away).
//! * **Postal codes**: one document per country and code from `addr:postcode` of addresses
//!   and POIs and from OSM postal-code boundaries (whose outline and point win); the point is
//!   otherwise the address nearest to the centroid of its addresses.
//! * **Streets**: named roads and the streets of addresses, one document per street key and
//!   locality; the point is the road vertex (or address) nearest to the centroid.
//! * **Addresses** and **POIs** (named or not) one document each.
//! * **Context** of an item: its postal code, street and `addr:city`, and one parent token
//!   (`@<public id>`) per parent area (locality, admin areas, country) instead of the words
//!   of the parent's names in every context language; the parent's document lists those
//!   words (`context_words`), which the reader maps back to the token. A parent without a
//!   document (none is expected) gives its words as before.
//!
//! Data flow of [`build`]: `gazetteer` loads the places and countries, `collect` gathers the
//! postal codes and streets from the addresses, roads and postal-code boundaries, then
//! `documents` writes one kind of document after the other, and the index is committed as
//! one segment.
use std::path::Path;

use rusqlite::Connection;
use serde::Serialize;
use tantivy::store::{Compressor, ZstdCompressor};
use tantivy::{Index, IndexSettings};
use waymark_core::packs::search as s;

mod collect;
mod documents;
mod gazetteer;
pub(crate) use gazetteer::lang_639_1;

use documents::Writer;
use gazetteer::Gazetteer;

/// Errors of the search layer.
#[derive(Debug, thiserror::Error)]
pub enum SearchBuildError {
    /// SQLite failure.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// tantivy failure.
    #[error("search index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// File-system or input failure.
    #[error("{0}")]
    Io(String),
}

/// Counts of the search layer.
#[derive(Debug, Default, Clone, Serialize)]
pub struct SearchStats {
    /// Documents in all.
    pub docs: u64,
    /// Countries.
    pub countries: u64,
    /// Admin areas.
    pub admin_areas: u64,
    /// Settlements (after merging GeoNames).
    pub settlements: u64,
    /// GeoNames places merged into OSM settlements.
    pub gazetteer_merged: u64,
    /// Postal codes.
    pub postal_codes: u64,
    /// Streets.
    pub streets: u64,
    /// Addresses.
    pub addresses: u64,
    /// Points of interest.
    pub pois: u64,
    /// Bytes of the index files.
    pub bytes: u64,
}

/// Builds `<pack_dir>/search` from `data.sqlite` (replacing any previous index).
pub fn build(
    conn: &Connection,
    pack_dir: &Path,
    countries_json: Option<&Path>,
) -> Result<SearchStats, SearchBuildError> {
    let dir = pack_dir.join(s::SEARCH_DIR);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .map_err(|e| SearchBuildError::Io(format!("{}: {e}", dir.display())))?;
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| SearchBuildError::Io(format!("{}: {e}", dir.display())))?;
    let (schema, fields) = s::schema();
    let index = Index::builder()
        .schema(schema)
        .settings(index_settings())
        .create_in_dir(&dir)?;
    let mut w = Writer {
        writer: index.writer_with_num_threads(1, 100_000_000)?,
        f: fields,
        docs: 0,
    };
    let mut stats = SearchStats::default();

    let (mut g, dropped, merged) = Gazetteer::load(conn, countries_json)?;
    stats.gazetteer_merged = merged;
    let c = collect::collect(conn, &g)?;
    g.country_docs = documents::country_docs(&g, &c);
    documents::write_countries(&mut w, &g, &mut stats)?;
    documents::write_places(&mut w, &g, &dropped, &c, &mut stats)?;
    documents::write_postal_codes(&mut w, &g, &c, &mut stats)?;
    documents::write_streets(&mut w, &g, &c, &mut stats)?;
    documents::write_addresses(&mut w, &g, &c, &mut stats)?;
    documents::write_pois(conn, &mut w, &g, &mut stats)?;

    // Commit, merge into one segment, record the schema version.
    w.writer.commit()?;
    let ids = index.searchable_segment_ids()?;
    if ids.len() > 1 {
        w.writer.merge(&ids).wait()?;
    }
    let mut pc = w.writer.prepare_commit()?;
    pc.set_payload(&s::commit_payload());
    pc.commit()?;
    w.writer.garbage_collect_files().wait()?;
    stats.docs = w.docs;
    w.writer.wait_merging_threads()?;
    // The writer's lock files are empty leftovers: a pack ships only the index itself.
    for lock in [".tantivy-writer.lock", ".tantivy-meta.lock"] {
        let path = dir.join(lock);
        if path.exists() {
            std::fs::remove_file(&path)
                .map_err(|e| SearchBuildError::Io(format!("{}: {e}", path.display())))?;
        }
    }
    compact_meta(&dir)?;
    stats.bytes = dir_size(&dir);
    Ok(stats)
}

/// Rewrites the index's `meta.json` (schema, segments, settings, payload) without the
/// indentation tantivy writes it with: the same JSON in half the bytes.
fn compact_meta(dir: &Path) -> Result<(), SearchBuildError> {
    let path = dir.join("meta.json");
    let io = |e: &dyn std::fmt::Display| SearchBuildError::Io(format!("{}: {e}", path.display()));
    let text = std::fs::read_to_string(&path).map_err(|e| io(&e))?;
    let meta: serde_json::Value = serde_json::from_str(&text).map_err(|e| io(&e))?;
    let compact = serde_json::to_string(&meta).map_err(|e| io(&e))?;
    std::fs::write(&path, compact).map_err(|e| io(&e))
}

/// The doc store of a pack's index: zstd in 128 KiB blocks instead of tantivy's lz4 in 16 KiB
/// (written once, read a few documents per query; docs/performance.md). Readers
/// need no setting: the store records its compressor and block size. 128 KiB blocks (pack
/// format 9; 64 KiB before) took 7% off München's doc store; a reader caches up to 100
/// decompressed blocks, so at most 12.8 MB of them per pack.
fn index_settings() -> IndexSettings {
    IndexSettings {
        docstore_compression: Compressor::Zstd(ZstdCompressor {
            compression_level: Some(DOCSTORE_ZSTD_LEVEL),
        }),
        docstore_blocksize: DOCSTORE_BLOCK_BYTES,
        ..IndexSettings::default()
    }
}

/// zstd level of the doc store.
const DOCSTORE_ZSTD_LEVEL: i32 = 19;
/// Uncompressed bytes per doc-store block.
const DOCSTORE_BLOCK_BYTES: usize = 128 * 1024;

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
