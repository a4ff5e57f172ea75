//! Readers and writers for the geodata formats a field team imports its own layers from
//! (parcels, hydrants, flood zones…): GeoJSON, GeoJSON text sequences / NDJSON, CSV with
//! lat/lng or WKT columns, GeoPackage and zipped Shapefiles; plus the geometry codecs the
//! datasets engine needs (ISO WKB, WKT / `lat,lng` / encoded polyline text, GeoJSON geometry
//! objects) and [`problem`], the check that decides whether a geometry is usable.
//!
//! Coordinates are `(x = longitude, y = latitude)` everywhere, like GeoJSON, in WGS 84
//! (layers in another system are reprojected as they are read).
//!
//! Reading is streaming: [`read`] hands each [`Record`] to a sink as soon as it is parsed and
//! never holds the whole file in memory (one feature at a time for GeoJSON, one line for
//! NDJSON, one row for CSV and GeoPackage). A feature that cannot be used is handed over as
//! [`Record::Skipped`] with a reason; problems with the file as a whole are a [`FormatError`].
//!
//! # Formats and limits
//!
//! | format | read | notes |
//! | --- | --- | --- |
//! | GeoJSON (RFC 7946) | FeatureCollection streamed feature by feature; a single Feature or bare geometry as one feature | a legacy `crs` naming an EPSG code (before `features`) is reprojected, any other refused; `id` (string or number) is the source id |
//! | GeoJSON text sequence / NDJSON (RFC 8142) | one Feature (or geometry) per line, RS (0x1E) prefixes and blank lines allowed; a file starting with RS is split on RS, so records may span lines | a malformed record is skipped, but 5 malformed leading records mean "not this format" |
//! | CSV / TSV | header row required; delimiter `,` `;` tab `|` sniffed; UTF-8 with optional BOM | lat/lng columns (lat/latitude/y + lng/lon/long/longitude/x) or a WKT column (wkt/geometry/geom/the_geom; a GeoJSON geometry object there is read too); a decimal comma is accepted in coordinates when the delimiter is not `,` |
//! | GeoPackage | one `features` table of `gpkg_contents`: the one [`ReadOptions::layer`] names, or the only one (several and none named: refused, listing them) | the `srs_id` reprojected by its EPSG code or WKT definition (srs 0 / -1 "undefined" taken as WGS 84); blob attributes dropped; the integer primary key is the source id |
//! | Shapefile | a `.zip` with `.shp` + `.dbf` (+ `.prj`), or a bare `.shp` | the first `.shp` of the archive; the `.prj`'s system reprojected (by its EPSG code, else from the WKT when the datum is WGS 84-compatible or states `TOWGS84`), none means WGS 84; dBASE text decoded as the `.cpg` or the `.dbf` code page says (UTF-8 with replacement characters when unknown) |
//!
//! Coordinate systems: see [`crs`](crate::read_with) — EPSG codes from the `crs-definitions`
//! table, converted with `proj4rs` (projections and Helmert datum shifts; systems that need a
//! grid shift file, and unknown ones, are refused by name).
//!
//! Not read: KML/GPX, zipped GeoJSON or CSV, Z/M values (dropped).

#![warn(missing_docs)]

mod crs;
mod csvfmt;
mod error;
mod geojson;
mod gpkg;
mod ndjson;
mod shp;
mod sniff;
#[doc(hidden)]
pub mod testing;
mod text;
mod validate;
mod wkb;

use std::path::Path;

pub use error::FormatError;
pub use geo_types::Geometry;
pub use geojson::{parse_geojson_geometry, to_geojson, to_geojson_string};
pub use sniff::sniff;
pub use text::parse_text_geometry;
pub use validate::problem;
pub use wkb::{from_wkb, to_wkb};

/// One feature read from a file.
#[derive(Clone, Debug, PartialEq)]
pub struct Feature {
    /// 1-based position of the feature in the file: for NDJSON the physical line on which the
    /// record starts (blank lines counted), the data row number for CSV (1 = the first row
    /// after the header; blank rows not counted), the index in the `features` array of a
    /// GeoJSON FeatureCollection (1 for a single Feature or geometry), the row order in a
    /// GeoPackage table or the record number in a Shapefile.
    pub index: u64,
    /// The feature's own id when the file has one (GeoJSON `id`, a CSV `id` column, the
    /// GeoPackage primary key), as a string.
    pub source_id: Option<String>,
    /// The geometry, already checked with [`problem`].
    pub geometry: Geometry<f64>,
    /// Attributes: GeoJSON `properties`; CSV columns other than the geometry ones, typed
    /// (integers and floats as numbers, true/false as booleans, empty cells as null, the
    /// rest strings); GeoPackage and Shapefile (dBASE) columns.
    pub attributes: serde_json::Map<String, serde_json::Value>,
}

/// What the reader hands to the caller, in file order.
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    /// A usable feature.
    Feature(Feature),
    /// A feature that could not be used, e.g. `feature 1,204: polygon ring not closed,
    /// skipped`: `index` as in [`Feature::index`], `reason` a sentence without the
    /// "feature N: … skipped" wrapper (the caller formats the log line).
    Skipped {
        /// 1-based position, as [`Feature::index`].
        index: u64,
        /// Why the feature was not used.
        reason: String,
    },
}

/// The file formats [`read`] understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// RFC 7946 GeoJSON: a FeatureCollection, a single Feature or a bare geometry object.
    GeoJson,
    /// RFC 8142 GeoJSON text sequence or newline-delimited GeoJSON: one Feature per record.
    GeoJsonSeq,
    /// CSV (or TSV, `;`- or `|`-separated) with a header and lat/lng or WKT columns.
    Csv,
    /// OGC GeoPackage (SQLite): the first features table.
    GeoPackage,
    /// ESRI Shapefile, as a `.zip` holding the `.shp` and `.dbf` (or a bare `.shp`).
    Shapefile,
}

impl Format {
    /// A short human name of the format, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Format::GeoJson => "GeoJSON",
            Format::GeoJsonSeq => "GeoJSON text sequence (NDJSON)",
            Format::Csv => "CSV",
            Format::GeoPackage => "GeoPackage",
            Format::Shapefile => "Shapefile",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What [`read`] returns once the whole file has been handed to the sink.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadSummary {
    /// Number of [`Record::Feature`] handed to the sink.
    pub features: u64,
    /// Number of [`Record::Skipped`] handed to the sink.
    pub skipped: u64,
}

/// What to read of a file, beyond its format.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The GeoPackage feature table to read (`gpkg_contents.table_name`). Without it a
    /// GeoPackage with one feature table reads that table, one with several is refused with
    /// their names. Other formats have one layer: a `layer` there is refused.
    pub layer: Option<String>,
}

/// Streams the features of the file at `path` to `sink`, in order, without holding the
/// whole file in memory; as [`read_with`] without options.
pub fn read(
    path: &Path,
    format: Format,
    sink: &mut dyn FnMut(Record) -> Result<(), String>,
) -> Result<ReadSummary, FormatError> {
    read_with(path, format, &ReadOptions::default(), sink)
}

/// Streams the features of the file at `path` to `sink`, in order, without holding the
/// whole file in memory. Coordinates in another system than WGS 84 (a GeoPackage `srs_id`,
/// a Shapefile `.prj`, a GeoJSON `crs` naming an EPSG code) are reprojected to WGS 84
/// longitude/latitude; a system that cannot be converted is [`FormatError::Unsupported`],
/// naming it.
///
/// `sink` returning `Err(message)` stops the read at once and `read` returns
/// [`FormatError::Stopped`] with that message (for a cancellation or a size limit). File-level
/// problems (not JSON at all, truncated file, no geometry column, missing header, I/O) are an
/// `Err` whose message says what to fix and where (line/byte offset when known).
pub fn read_with(
    path: &Path,
    format: Format,
    options: &ReadOptions,
    sink: &mut dyn FnMut(Record) -> Result<(), String>,
) -> Result<ReadSummary, FormatError> {
    if let Some(layer) = &options.layer
        && format != Format::GeoPackage
    {
        return Err(FormatError::Invalid(format!(
            "a layer ({layer:?}) can only be chosen in a GeoPackage; a {} file has one layer",
            format.name()
        )));
    }
    let mut out = Output {
        sink,
        summary: ReadSummary::default(),
        reproject: None,
    };
    match format {
        Format::GeoJson => geojson::read(path, &mut out)?,
        Format::GeoJsonSeq => ndjson::read(path, &mut out)?,
        Format::Csv => csvfmt::read(path, &mut out)?,
        Format::GeoPackage => gpkg::read(path, options.layer.as_deref(), &mut out)?,
        Format::Shapefile => shp::read(path, &mut out)?,
    }
    Ok(out.summary)
}

/// The sink plus the running counts.
pub(crate) struct Output<'a> {
    sink: &'a mut dyn FnMut(Record) -> Result<(), String>,
    summary: ReadSummary,
    /// Set by a reader whose layer is in another coordinate system than WGS 84.
    pub(crate) reproject: Option<crs::Reprojector>,
}

impl Output<'_> {
    /// Hands a record over, counting it; `Err` is the sink's stop message.
    pub(crate) fn emit(&mut self, record: Record) -> Result<(), String> {
        match &record {
            Record::Feature(_) => self.summary.features += 1,
            Record::Skipped { .. } => self.summary.skipped += 1,
        }
        (self.sink)(record)
    }

    /// Checks `geometry` with [`problem`] and hands over a feature or a skip.
    pub(crate) fn feature(
        &mut self,
        index: u64,
        source_id: Option<String>,
        geometry: Geometry<f64>,
        attributes: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), String> {
        let geometry = match &self.reproject {
            Some(r) => match r.apply(geometry) {
                Ok(g) => g,
                Err(reason) => return self.skip(index, reason),
            },
            None => geometry,
        };
        match problem(&geometry) {
            Some(reason) => self.skip(index, reason),
            None => self.emit(Record::Feature(Feature {
                index,
                source_id,
                geometry,
                attributes,
            })),
        }
    }

    /// Hands over a skip.
    pub(crate) fn skip(&mut self, index: u64, reason: String) -> Result<(), String> {
        self.emit(Record::Skipped { index, reason })
    }
}
