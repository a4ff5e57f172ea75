//! Shared by the format tests: writing files to read and collecting what a reader gives.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};

use geo_types::{Geometry, polygon};
use serde_json::json;
use waymark_geoformats::{Format, FormatError, ReadSummary, Record, read, to_wkb};

pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

pub fn read_all(path: &Path, format: Format) -> Result<(Vec<Record>, ReadSummary), FormatError> {
    let mut out = Vec::new();
    let summary = read(path, format, &mut |r| {
        out.push(r);
        Ok(())
    })?;
    Ok((out, summary))
}

pub fn skipped(records: &[Record]) -> Vec<(u64, String)> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Skipped { index, reason } => Some((*index, reason.clone())),
            Record::Feature(_) => None,
        })
        .collect()
}

pub fn features(records: &[Record]) -> Vec<&waymark_geoformats::Feature> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Feature(f) => Some(f),
            Record::Skipped { .. } => None,
        })
        .collect()
}

/// Writes a GeoPackage with rusqlite: the required tables, a features table with the
/// given srs, and a few rows with hand-made GP headers.
pub fn make_gpkg(path: &Path, srs_id: i32) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA application_id = 1196444487;
         CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
         INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84', 4326, 'EPSG', 4326, 'GEOGCS[...]', NULL);
         INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84 / Pseudo-Mercator', 3857, 'EPSG', 3857, 'PROJCS[...]', NULL);
         CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT, description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
         CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL);
         CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
         INSERT INTO gpkg_contents (table_name, data_type) VALUES ('notes', 'attributes');
         CREATE TABLE parcels (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom BLOB, owner TEXT, area REAL, lots INTEGER);",
    )
    .unwrap();
    conn.execute(
        "INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES ('parcels', 'features', ?1)",
        [srs_id],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO gpkg_geometry_columns VALUES ('parcels', 'geom', 'GEOMETRY', ?1, 0, 0)",
        [srs_id],
    )
    .unwrap();
    let square = Geometry::Polygon(
        polygon![(x: 0.0, y: 0.0), (x: 1.0, y: 0.0), (x: 1.0, y: 1.0), (x: 0.0, y: 1.0)],
    );
    // Little-endian header with an xy envelope (flags: envelope code 1, byte order 1).
    let mut with_env = vec![b'G', b'P', 0, 0b0000_0011];
    with_env.extend_from_slice(&srs_id.to_le_bytes());
    for v in [0.0f64, 1.0, 0.0, 1.0] {
        with_env.extend_from_slice(&v.to_le_bytes());
    }
    with_env.extend_from_slice(&to_wkb(&square));
    // Big-endian header, no envelope, big-endian WKB point.
    let mut be = vec![b'G', b'P', 0, 0b0000_0000];
    be.extend_from_slice(&srs_id.to_be_bytes());
    be.push(0);
    be.extend_from_slice(&1u32.to_be_bytes());
    be.extend_from_slice(&5.5f64.to_be_bytes());
    be.extend_from_slice(&45.25f64.to_be_bytes());
    // Empty-geometry flag.
    let mut empty = vec![b'G', b'P', 0, 0b0001_0001];
    empty.extend_from_slice(&srs_id.to_le_bytes());
    let mut ins = conn
        .prepare("INSERT INTO parcels (fid, geom, owner, area, lots) VALUES (?1, ?2, ?3, ?4, ?5)")
        .unwrap();
    ins.execute(rusqlite::params![10, with_env, "Ann", 1.5, 3])
        .unwrap();
    ins.execute(rusqlite::params![11, be, "Bob", None::<f64>, 1])
        .unwrap();
    ins.execute(rusqlite::params![12, None::<Vec<u8>>, "Cy", 2.0, 0])
        .unwrap();
    ins.execute(rusqlite::params![13, empty, "Di", 2.0, 0])
        .unwrap();
    ins.execute(rusqlite::params![14, b"junk".to_vec(), "Ed", 2.0, 0])
        .unwrap();
}

/// Writes `parcels.shp/.shx/.dbf` with the shapefile crate and zips them (deflated) with a
/// `.prj`, inside a folder as exported archives often are.
pub fn make_shapefile_zip(dir: &Path, prj: Option<&str>) -> PathBuf {
    use shapefile::dbase::{self, FieldValue, TableWriterBuilder};
    use shapefile::{Point as SPoint, Polygon as SPolygon, PolygonRing};
    let shp = dir.join("parcels.shp");
    // A Windows-1252 table (code page mark 0x57), as ArcGIS and QGIS often write them.
    let cp1252 = dbase::encoding::EncodingRs::from(dbase::encoding_rs::WINDOWS_1252);
    let table = TableWriterBuilder::with_encoding(cp1252)
        .add_character_field(dbase::FieldName::try_from("NAME").unwrap(), 20)
        .add_numeric_field(dbase::FieldName::try_from("LOTS").unwrap(), 10, 0)
        .add_numeric_field(dbase::FieldName::try_from("ID").unwrap(), 10, 0);
    {
        let mut w = shapefile::Writer::from_path(&shp, table).unwrap();
        let square = |x: f64, y: f64| {
            SPolygon::new(PolygonRing::Outer(vec![
                SPoint::new(x, y),
                SPoint::new(x, y + 1.0),
                SPoint::new(x + 1.0, y + 1.0),
                SPoint::new(x + 1.0, y),
                SPoint::new(x, y),
            ]))
        };
        for (i, (name, shape)) in [
            ("Café", square(2.0, 48.0)),
            ("far north", square(2.0, 95.0)),
        ]
        .into_iter()
        .enumerate()
        {
            let mut rec = dbase::Record::default();
            rec.insert(
                "NAME".to_owned(),
                FieldValue::Character(Some(name.to_owned())),
            );
            rec.insert("LOTS".to_owned(), FieldValue::Numeric(Some(3.0)));
            rec.insert("ID".to_owned(), FieldValue::Numeric(Some(100.0 + i as f64)));
            w.write_shape_and_record(&shape, &rec).unwrap();
        }
    }
    let zip_path = dir.join("parcels.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    z.start_file("__MACOSX/export/._parcels.shp", opts).unwrap();
    z.write_all(b"resource fork").unwrap();
    for ext in ["shp", "shx", "dbf"] {
        z.start_file(format!("export/parcels.{ext}"), opts).unwrap();
        z.write_all(&std::fs::read(dir.join(format!("parcels.{ext}"))).unwrap())
            .unwrap();
    }
    if let Some(prj) = prj {
        z.start_file("export/parcels.prj", opts).unwrap();
        z.write_all(prj.as_bytes()).unwrap();
    }
    z.finish().unwrap();
    zip_path
}

pub const WGS84_PRJ: &str = r#"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#;

pub fn fc_with_good_and_bad() -> String {
    let good_poly =
        json!({"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]});
    let feats = vec![
        json!({"type": "Feature", "id": 17, "geometry": {"type": "Point", "coordinates": [2.35, 48.85]}, "properties": {"name": "hydrant", "pressure": 4.5}}),
        json!({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}, "properties": {}}),
        json!({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [0, 0]]]}, "properties": null}),
        json!({"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]]}, "properties": {}}),
        json!({"type": "Feature", "geometry": null, "properties": {"a": 1}}),
        json!({"type": "Feature", "geometry": {"type": "Point", "coordinates": [10, 95]}, "properties": {}}),
        json!({"type": "Feature", "id": "parcel-7", "geometry": good_poly, "properties": {"zone": "A"}}),
    ];
    serde_json::to_string_pretty(
        &json!({"type": "FeatureCollection", "name": "test", "features": feats}),
    )
    .unwrap()
}
