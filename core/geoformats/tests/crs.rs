//! Layers in projected coordinate systems, written as real files (GeoPackage with rusqlite,
//! Shapefile with the shapefile crate, GeoJSON with a `crs`), read back in WGS 84 and checked
//! against positions computed here independently of the reader (spherical Mercator in closed
//! form, transverse Mercator by Krüger's series, Ordnance Survey's published example), and a
//! GeoPackage with two feature tables read layer by layer.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;
use std::path::Path;

use geo_types::{Geometry, Point};
use waymark_geoformats::{Format, FormatError, ReadOptions, Record, read_with, to_wkb};

use common::*;

/// Distance in metres between two WGS 84 positions close together.
fn metres(a: (f64, f64), b: (f64, f64)) -> f64 {
    let dy = (a.1 - b.1) * 111_320.0;
    let dx = (a.0 - b.0) * 111_320.0 * a.1.to_radians().cos();
    (dx * dx + dy * dy).sqrt()
}

/// Spherical ("pseudo") Mercator, EPSG:3857.
fn web_mercator(lon: f64, lat: f64) -> (f64, f64) {
    let r = 6_378_137.0;
    (
        r * lon.to_radians(),
        r * (std::f64::consts::FRAC_PI_4 + lat.to_radians() / 2.0)
            .tan()
            .ln(),
    )
}

/// UTM zone 32N (ETRS89, EPSG:25832) when `lon0` = 9.
fn utm(lon: f64, lat: f64, lon0: f64) -> (f64, f64) {
    waymark_geoformats::testing::transverse_mercator_grs80(lon, lat, lon0)
}

fn points(path: &Path, format: Format, layer: Option<&str>) -> Vec<(String, (f64, f64))> {
    let options = ReadOptions {
        layer: layer.map(str::to_owned),
    };
    let mut out = Vec::new();
    read_with(path, format, &options, &mut |r| {
        match r {
            Record::Feature(f) => match f.geometry {
                Geometry::Point(p) => out.push((
                    f.attributes
                        .get("name")
                        .or_else(|| f.attributes.get("NAME"))
                        .and_then(|v| v.as_str())
                        .unwrap_or("")
                        .to_owned(),
                    (p.x(), p.y()),
                )),
                other => panic!("not a point: {other:?}"),
            },
            Record::Skipped { index, reason } => panic!("feature {index} skipped: {reason}"),
        }
        Ok(())
    })
    .unwrap();
    out
}

const ETRS89_UTM32N_WKT: &str = r#"PROJCS["ETRS89 / UTM zone 32N",GEOGCS["ETRS89",DATUM["European_Terrestrial_Reference_System_1989",SPHEROID["GRS 1980",6378137,298.257222101,AUTHORITY["EPSG","7019"]],TOWGS84[0,0,0,0,0,0,0],AUTHORITY["EPSG","6258"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4258"]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",9],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","25832"]]"#;

const BNG_WKT: &str = r#"PROJCS["OSGB 1936 / British National Grid",GEOGCS["OSGB 1936",DATUM["OSGB_1936",SPHEROID["Airy 1830",6377563.396,299.3249646,AUTHORITY["EPSG","7001"]],TOWGS84[446.448,-125.157,542.06,0.15,0.247,0.842,-20.489],AUTHORITY["EPSG","6277"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4277"]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",49],PARAMETER["central_meridian",-2],PARAMETER["scale_factor",0.9996012717],PARAMETER["false_easting",400000],PARAMETER["false_northing",-100000],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","27700"]]"#;

/// A GeoPackage point blob (little-endian header without envelope, then ISO WKB).
fn gp_point(srs_id: i32, x: f64, y: f64) -> Vec<u8> {
    let mut b = vec![b'G', b'P', 0, 0b0000_0001];
    b.extend_from_slice(&srs_id.to_le_bytes());
    b.extend_from_slice(&to_wkb(&Geometry::Point(Point::new(x, y))));
    b
}

/// One feature table of a GeoPackage being written: name, srs, named points.
struct Table<'a> {
    name: &'a str,
    srs_id: i32,
    points: Vec<(&'a str, f64, f64)>,
}

fn write_gpkg(path: &Path, srs: &[(i32, &str, &str, i32, &str)], tables: &[Table<'_>]) {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA application_id = 1196444487;
         CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
         CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT, description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
         CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL);",
    )
    .unwrap();
    for (id, org, name, code, def) in srs {
        conn.execute(
            "INSERT INTO gpkg_spatial_ref_sys VALUES (?1, ?2, ?3, ?4, ?5, NULL)",
            rusqlite::params![name, id, org, code, def],
        )
        .unwrap();
    }
    for t in tables {
        conn.execute_batch(&format!(
            "CREATE TABLE {0} (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom BLOB, name TEXT);
             INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES ('{0}', 'features', {1});
             INSERT INTO gpkg_geometry_columns VALUES ('{0}', 'geom', 'POINT', {1}, 0, 0);",
            t.name, t.srs_id
        ))
        .unwrap();
        for (name, x, y) in &t.points {
            conn.execute(
                &format!("INSERT INTO {} (geom, name) VALUES (?1, ?2)", t.name),
                rusqlite::params![gp_point(t.srs_id, *x, *y), name],
            )
            .unwrap();
        }
    }
}

/// Places in Germany (UTM 32N covers 6–12 E; the outer two lie outside the zone but within
/// the projection's accuracy).
const GERMAN_PLACES: [(&str, f64, f64); 5] = [
    ("Frankfurt Römer", 8.682_1, 50.110_6),
    ("Munich Marienplatz", 11.575_5, 48.137_2),
    ("Hamburg Rathaus", 9.992_2, 53.550_7),
    ("Cologne Cathedral", 6.958_3, 50.941_3),
    ("Berlin Brandenburg Gate", 13.377_7, 52.516_3),
];

#[test]
fn geopackage_in_utm_32n_and_web_mercator_reads_in_wgs84() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("germany.gpkg");
    let utm_points: Vec<(&str, f64, f64)> = GERMAN_PLACES
        .iter()
        .map(|&(n, lon, lat)| {
            let (e, nn) = utm(lon, lat, 9.0);
            (n, e, nn)
        })
        .collect();
    let merc_points: Vec<(&str, f64, f64)> = GERMAN_PLACES
        .iter()
        .map(|&(n, lon, lat)| {
            let (x, y) = web_mercator(lon, lat);
            (n, x, y)
        })
        .collect();
    write_gpkg(
        &p,
        &[
            (
                25832,
                "EPSG",
                "ETRS89 / UTM zone 32N",
                25832,
                ETRS89_UTM32N_WKT,
            ),
            (
                3857,
                "EPSG",
                "WGS 84 / Pseudo-Mercator",
                3857,
                "PROJCS[...]",
            ),
        ],
        &[
            Table {
                name: "utm_places",
                srs_id: 25832,
                points: utm_points,
            },
            Table {
                name: "mercator_places",
                srs_id: 3857,
                points: merc_points,
            },
        ],
    );
    for layer in ["utm_places", "mercator_places"] {
        let got = points(&p, Format::GeoPackage, Some(layer));
        assert_eq!(got.len(), GERMAN_PLACES.len(), "{layer}");
        for ((name, at), (want_name, lon, lat)) in got.iter().zip(GERMAN_PLACES) {
            assert_eq!(name, want_name);
            let d = metres(*at, (lon, lat));
            assert!(
                d < 1.0,
                "{layer} {name}: {at:?} is {d:.3} m from ({lon}, {lat})"
            );
        }
    }
}

#[test]
fn geopackage_with_two_feature_tables_reads_the_chosen_one() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("city.gpkg");
    write_gpkg(
        &p,
        &[(4326, "EPSG", "WGS 84", 4326, "GEOGCS[...]")],
        &[
            Table {
                name: "hydrants",
                srs_id: 4326,
                points: vec![("h1", 2.35, 48.85), ("h2", 2.36, 48.86)],
            },
            Table {
                name: "valves",
                srs_id: 4326,
                points: vec![("v1", 2.30, 48.80)],
            },
        ],
    );
    let e = read_with(&p, Format::GeoPackage, &ReadOptions::default(), &mut |_| {
        Ok(())
    })
    .unwrap_err();
    assert!(matches!(e, FormatError::Invalid(_)), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("\"hydrants\", \"valves\""), "{msg}");
    assert!(msg.contains("#layer="), "{msg}");

    let h = points(&p, Format::GeoPackage, Some("hydrants"));
    assert_eq!(
        h.iter().map(|p| p.0.as_str()).collect::<Vec<_>>(),
        ["h1", "h2"]
    );
    let v = points(&p, Format::GeoPackage, Some("valves"));
    assert_eq!(v, vec![("v1".to_owned(), (2.30, 48.80))]);

    let options = ReadOptions {
        layer: Some("pipes".to_owned()),
    };
    let e = read_with(&p, Format::GeoPackage, &options, &mut |_| Ok(())).unwrap_err();
    assert!(e.to_string().contains("no feature table \"pipes\""), "{e}");
    assert!(e.to_string().contains("\"hydrants\", \"valves\""), "{e}");

    // A layer means nothing in a one-layer format.
    let g = write(
        dir.path(),
        "a.geojson",
        br#"{"type":"FeatureCollection","features":[]}"#,
    );
    let e = read_with(&g, Format::GeoJson, &options, &mut |_| Ok(())).unwrap_err();
    assert!(
        e.to_string().contains("only be chosen in a GeoPackage"),
        "{e}"
    );
}

#[test]
fn shapefile_in_british_national_grid_reads_in_wgs84() {
    use shapefile::dbase::{self, FieldValue, TableWriterBuilder};
    let dir = tempfile::tempdir().unwrap();
    let shp = dir.path().join("towers.shp");
    let table = TableWriterBuilder::new()
        .add_character_field(dbase::FieldName::try_from("NAME").unwrap(), 30);
    {
        let mut w = shapefile::Writer::from_path(&shp, table).unwrap();
        let mut rec = dbase::Record::default();
        rec.insert(
            "NAME".to_owned(),
            FieldValue::Character(Some("Caister water tower".to_owned())),
        );
        // Ordnance Survey's worked example (Transformations and OSGB36, annex): National
        // Grid E 651_409.903 N 313_177.270 is ETRS89 52°39'28.8282" N 1°42'57.8663" E.
        w.write_shape_and_record(&shapefile::Point::new(651_409.903, 313_177.270), &rec)
            .unwrap();
    }
    let zip_path = dir.path().join("towers.zip");
    let mut z = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    let opts = zip::write::SimpleFileOptions::default();
    for ext in ["shp", "shx", "dbf"] {
        z.start_file(format!("towers.{ext}"), opts).unwrap();
        z.write_all(&std::fs::read(dir.path().join(format!("towers.{ext}"))).unwrap())
            .unwrap();
    }
    z.start_file("towers.prj", opts).unwrap();
    z.write_all(BNG_WKT.as_bytes()).unwrap();
    z.finish().unwrap();

    let got = points(&zip_path, Format::Shapefile, None);
    let lat = 52.0 + 39.0 / 60.0 + 28.8282 / 3600.0;
    let lon = 1.0 + 42.0 / 60.0 + 57.8663 / 3600.0;
    assert_eq!(got.len(), 1);
    let d = metres(got[0].1, (lon, lat));
    // The EPSG 7-parameter Helmert shift of OSGB 1936 is good to about 5 m (the OSTN15 grid,
    // which reaches centimetres, is a file this reader does not ship).
    assert!(d < 5.0, "{:?} is {d:.2} m from ({lon}, {lat})", got[0].1);

    // The same file beside a bare .shp: the .prj there is read too.
    std::fs::write(dir.path().join("towers.prj"), BNG_WKT).unwrap();
    let bare = points(&shp, Format::Shapefile, None);
    assert_eq!(bare, got);
}

#[test]
fn geojson_with_an_epsg_crs_reads_in_wgs84() {
    let dir = tempfile::tempdir().unwrap();
    let features: Vec<String> = GERMAN_PLACES
        .iter()
        .map(|&(n, lon, lat)| {
            let (e, nn) = utm(lon, lat, 9.0);
            format!(
                r#"{{"type":"Feature","properties":{{"name":"{n}"}},"geometry":{{"type":"Point","coordinates":[{e},{nn}]}}}}"#
            )
        })
        .collect();
    let text = format!(
        r#"{{"type":"FeatureCollection","name":"places","crs":{{"type":"name","properties":{{"name":"urn:ogc:def:crs:EPSG::25832"}}}},"features":[{}]}}"#,
        features.join(",")
    );
    let p = write(dir.path(), "places.geojson", text.as_bytes());
    let got = points(&p, Format::GeoJson, None);
    assert_eq!(got.len(), GERMAN_PLACES.len());
    for ((name, at), (want, lon, lat)) in got.iter().zip(GERMAN_PLACES) {
        assert_eq!(name, want);
        let d = metres(*at, (lon, lat));
        assert!(d < 1.0, "{name}: {at:?} is {d:.3} m from ({lon}, {lat})");
    }

    // A crs after the features it would apply to is refused, naming it.
    let late = format!(
        r#"{{"type":"FeatureCollection","features":[{}],"crs":{{"type":"name","properties":{{"name":"EPSG:25832"}}}}}}"#,
        features.join(",")
    );
    let p = write(dir.path(), "late.geojson", late.as_bytes());
    let e = read_with(
        &p,
        Format::GeoJson,
        &ReadOptions::default(),
        &mut |_| Ok(()),
    )
    .unwrap_err();
    assert!(matches!(e, FormatError::Unsupported(_)), "{e:?}");
    assert!(e.to_string().contains("EPSG:25832"), "{e}");
}
