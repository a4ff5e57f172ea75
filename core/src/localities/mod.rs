//! The localities group: autocomplete, details, geocode and reverse geocode, nearby points of
//! interest, answered from the packs' search indexes (`core::packs::search`) and SQLite layers.
pub mod geometry;
