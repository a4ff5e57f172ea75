//! OGC GeoPackage (read-only): one features table, reprojected to WGS 84.

use std::path::Path;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde_json::{Map, Value};

use crate::crs::Reprojector;
use crate::wkb::from_wkb;
use crate::{FormatError, Output};

/// Splits a GeoPackage geometry blob (`GP`, version, flags, srs_id, optional envelope,
/// then WKB) and parses the WKB. `Ok(None)` for the empty-geometry flag.
pub(crate) fn parse_gpkg_blob(b: &[u8]) -> Result<Option<geo_types::Geometry<f64>>, String> {
    if b.len() < 8 || &b[..2] != b"GP" {
        return Err(
            "the geometry is not a GeoPackage geometry blob (it must start with \"GP\")".to_owned(),
        );
    }
    let flags = b[3];
    if flags & 0b0010_0000 != 0 {
        return Err(
            "extended (non-standard) GeoPackage geometry types are not supported".to_owned(),
        );
    }
    let envelope = match (flags >> 1) & 0b111 {
        0 => 0,
        1 => 32,
        2 | 3 => 48,
        4 => 64,
        n => {
            return Err(format!(
                "invalid envelope code {n} in the GeoPackage geometry header"
            ));
        }
    };
    if flags & 0b0001_0000 != 0 {
        return Ok(None);
    }
    let start = 8 + envelope;
    let wkb = b.get(start..).ok_or_else(|| {
        format!(
            "the GeoPackage geometry blob is {} bytes, shorter than its {start}-byte header",
            b.len()
        )
    })?;
    from_wkb(wkb).map(Some)
}

/// Opens the file read-only and `immutable` (a downloaded file does not change: SQLite then
/// takes no locks and creates no `-wal`/`-shm` files beside it, even for a WAL-mode file).
fn open(path: &Path) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    match path.to_str() {
        Some(p) => {
            let mut uri = String::from("file:");
            for c in p.chars() {
                match c {
                    '%' => uri.push_str("%25"),
                    '?' => uri.push_str("%3f"),
                    '#' => uri.push_str("%23"),
                    c => uri.push(c),
                }
            }
            uri.push_str("?mode=ro&immutable=1");
            Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)
        }
        None => Connection::open_with_flags(path, flags),
    }
}

fn quote(ident: &str) -> String {
    format!("\"{}\"", ident.replace('"', "\"\""))
}

fn db_err(e: rusqlite::Error) -> FormatError {
    FormatError::Invalid(format!("not a readable GeoPackage: {e}"))
}

/// Reads one table of `gpkg_contents` whose `data_type` is `features`: `layer` when given (an
/// error lists the feature tables when there is no such table), else the only one; a file with
/// several feature tables and no `layer` is refused with their names rather than read in part.
/// `index` is the row order in that table, `source_id` the integer primary key. Coordinates
/// in another system than WGS 84 are reprojected ([`crate::crs`]): the `srs_id`'s
/// `gpkg_spatial_ref_sys` row gives its EPSG code (or, for another organisation, its WKT
/// definition); the GeoPackage "undefined" systems 0 and -1 are assumed to be WGS 84 degrees.
pub(crate) fn read(
    path: &Path,
    layer: Option<&str>,
    out: &mut Output<'_>,
) -> Result<(), FormatError> {
    // Make sure the file exists and is readable as a file (rusqlite would say "unable to
    // open database file").
    std::fs::File::open(path)?;
    let conn = open(path).map_err(db_err)?;
    let has_contents: bool = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type IN ('table','view') AND name = 'gpkg_contents'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map_err(db_err)?
        > 0;
    if !has_contents {
        return Err(FormatError::Invalid(
            "not a GeoPackage: the SQLite file has no gpkg_contents table".to_owned(),
        ));
    }
    let tables: Vec<String> = conn
        .prepare(
            "SELECT table_name FROM gpkg_contents WHERE lower(data_type) = 'features' ORDER BY rowid",
        )
        .and_then(|mut stmt| {
            stmt.query_map([], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .map_err(db_err)?;
    let listed = || {
        tables
            .iter()
            .map(|t| format!("{t:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let table = match (layer, tables.as_slice()) {
        (_, []) => {
            return Err(FormatError::Invalid(
                "the GeoPackage has no features table (gpkg_contents lists no data_type 'features')"
                    .to_owned(),
            ));
        }
        (Some(l), _) => tables.iter().find(|t| *t == l).cloned().ok_or_else(|| {
            FormatError::Invalid(format!(
                "the GeoPackage has no feature table {l:?}; its feature tables are {}",
                listed()
            ))
        })?,
        (None, [only]) => only.clone(),
        (None, _) => {
            return Err(FormatError::Invalid(format!(
                "the GeoPackage has {} feature tables ({}): choose the layer to import (for a dataset, end its url with #layer=<table>; one dataset per table)",
                tables.len(),
                listed()
            )));
        }
    };
    let geom: Option<(String, i64)> = conn
        .query_row(
            "SELECT column_name, srs_id FROM gpkg_geometry_columns WHERE table_name = ?1",
            [&table],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .map_err(db_err)?;
    let Some((geom_col, srs_id)) = geom else {
        return Err(FormatError::Invalid(format!(
            "the GeoPackage table {table:?} has no entry in gpkg_geometry_columns: no geometry column"
        )));
    };
    out.reproject = reprojector(&conn, &table, srs_id)?;

    let mut pk: Option<String> = None;
    {
        let mut stmt = conn
            .prepare(&format!("PRAGMA table_info({})", quote(&table)))
            .map_err(db_err)?;
        let mut rows = stmt.query([]).map_err(db_err)?;
        while let Some(r) = rows.next().map_err(db_err)? {
            let name: String = r.get(1).map_err(db_err)?;
            let is_pk: i64 = r.get(5).map_err(db_err)?;
            if is_pk == 1 {
                pk = Some(name);
            }
        }
    }

    let mut stmt = conn
        .prepare(&format!("SELECT * FROM {}", quote(&table)))
        .map_err(db_err)?;
    let names: Vec<String> = stmt.column_names().map(str::to_owned).collect();
    let Some(geom_idx) = names.iter().position(|n| n.eq_ignore_ascii_case(&geom_col)) else {
        return Err(FormatError::Invalid(format!(
            "the GeoPackage table {table:?} has no column {geom_col:?} named in gpkg_geometry_columns"
        )));
    };
    let pk_idx = pk
        .as_deref()
        .and_then(|p| names.iter().position(|n| n.eq_ignore_ascii_case(p)));
    let mut rows = stmt.query([]).map_err(db_err)?;
    let mut index = 0u64;
    while let Some(row) = rows.next().map_err(db_err)? {
        index += 1;
        let source_id = match pk_idx.map(|i| row.get_ref(i)) {
            Some(Ok(ValueRef::Integer(i))) => Some(i.to_string()),
            Some(Ok(ValueRef::Text(t))) => Some(String::from_utf8_lossy(t).into_owned()),
            _ => None,
        };
        let geometry = match row.get_ref(geom_idx).map_err(db_err)? {
            ValueRef::Blob(b) => parse_gpkg_blob(b),
            ValueRef::Null => Err("the feature has no geometry (NULL)".to_owned()),
            _ => Err(format!("the {geom_col:?} value is not a geometry blob")),
        };
        let geometry = match geometry {
            Ok(Some(g)) => g,
            Ok(None) => {
                out.skip(index, "the geometry is empty".to_owned())
                    .map_err(FormatError::Stopped)?;
                continue;
            }
            Err(reason) => {
                out.skip(index, reason).map_err(FormatError::Stopped)?;
                continue;
            }
        };
        let mut attributes = Map::new();
        for (i, name) in names.iter().enumerate() {
            if i == geom_idx || Some(i) == pk_idx {
                continue;
            }
            let v = match row.get_ref(i).map_err(db_err)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(n) => Value::from(n),
                ValueRef::Real(f) => {
                    serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
                }
                ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
                // Binary attributes have no JSON form worth keeping.
                ValueRef::Blob(_) => continue,
            };
            attributes.insert(name.clone(), v);
        }
        out.feature(index, source_id, geometry, attributes)
            .map_err(FormatError::Stopped)?;
    }
    Ok(())
}

/// A `gpkg_spatial_ref_sys` row: organization, its code, name, WKT definition.
type SrsRow = (Option<String>, Option<i64>, Option<String>, Option<String>);

/// The reprojection of the layer's `srs_id` to WGS 84 (`None` for WGS 84 itself); a system
/// that cannot be converted is refused, by name.
fn reprojector(
    conn: &Connection,
    table: &str,
    srs_id: i64,
) -> Result<Option<Reprojector>, FormatError> {
    if matches!(srs_id, 4326 | 0 | -1) {
        return Ok(None);
    }
    let def: Option<SrsRow> = conn
        .query_row(
            "SELECT organization, organization_coordsys_id, srs_name, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?1",
            [srs_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()
        .unwrap_or(None);
    let (org, code, name, wkt) = def.unwrap_or((None, None, None, None));
    let in_layer =
        |e: String| FormatError::Unsupported(format!("the GeoPackage layer {table:?}: {e}"));
    let epsg = org
        .as_deref()
        .is_some_and(|o| o.eq_ignore_ascii_case("EPSG"));
    let wkt = wkt
        .as_deref()
        .map(str::trim)
        .filter(|w| w.contains('[') && !w.eq_ignore_ascii_case("undefined"));
    match (epsg, code, wkt) {
        (true, Some(c), w) => match (Reprojector::from_epsg(c, name.as_deref()), w) {
            // A code missing from the EPSG table: its WKT definition may still say enough.
            (Err(e), Some(w)) => Reprojector::from_wkt(w).map_err(|_| in_layer(e)),
            (r, _) => r.map_err(in_layer),
        },
        (_, _, Some(w)) => Reprojector::from_wkt(w).map_err(in_layer),
        _ => {
            let what = match (org, code, name) {
                (Some(o), Some(c), Some(n)) => format!("{o}:{c} ({n})"),
                (Some(o), Some(c), None) => format!("{o}:{c}"),
                (_, _, Some(n)) => n,
                _ => format!("srs_id {srs_id}"),
            };
            Err(in_layer(format!(
                "the coordinate system {what} has no EPSG code or definition to convert it from; reproject the layer to EPSG:4326 (e.g. ogr2ogr -t_srs EPSG:4326 out.gpkg in.gpkg)"
            )))
        }
    }
}
