//! Waymark data-pack builder: reads the pinned open data of `data-packs/sources.toml`, builds
//! the layers of a pack into `data.sqlite` (schema shared with the readers in
//! `waymark_core::packs::schema`), writes and signs `manifest.json` (ADR 0002).
pub mod build;
pub mod cut;
pub mod datasets;
pub mod error;
pub mod geonames;
pub mod ip;
pub mod osm;
pub mod plan;
pub mod report;
pub mod routing;
pub mod search;
pub mod sources;
pub mod stores;
pub mod synth;
pub mod threewords;
pub mod timezones;
pub mod tolls;
pub mod topojson;
pub mod venue_file;
