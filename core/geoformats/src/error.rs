//! File-level errors.

/// Why a file could not be read (as opposed to one feature of it, which is a
/// [`Record::Skipped`](crate::Record::Skipped)). The messages are meant for the user who
/// supplied the file: they say what is wrong, where, and what to do.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The file could not be opened or read.
    #[error("could not read the file: {0}")]
    Io(#[from] std::io::Error),
    /// The file's format could not be told from its content, name or content type.
    #[error(
        "unrecognised file format ({0}); the formats read are GeoJSON (FeatureCollection, Feature or geometry), GeoJSON text sequences / NDJSON (one Feature per line), CSV with lat/lng or WKT columns, GeoPackage (.gpkg) and zipped Shapefiles (.zip with .shp and .dbf)"
    )]
    Unrecognised(String),
    /// The file is not valid in the format it was read as: the message says what and where.
    #[error("{0}")]
    Invalid(String),
    /// The file is valid but uses something this reader does not support (e.g. a coordinate
    /// reference system other than WGS 84).
    #[error("{0}")]
    Unsupported(String),
    /// The sink returned an error and the read was stopped; the sink's message.
    #[error("read stopped: {0}")]
    Stopped(String),
}
