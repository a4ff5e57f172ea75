//! ESRI Shapefile.

use std::path::Path;

use crate::{FormatError, Output};

/// Not supported yet.
pub(crate) fn read(_path: &Path, _out: &mut Output<'_>) -> Result<(), FormatError> {
    Err(FormatError::Unsupported(
        "Shapefiles are not read yet: convert the layer to GeoJSON or GeoPackage (EPSG:4326)"
            .to_owned(),
    ))
}
