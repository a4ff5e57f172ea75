//! Reading real files written to a temporary directory: GeoPackage, zipped Shapefile,
//! well-known text, format sniffing, and every reader stopping when told.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;

use geo_types::{Geometry, point};
use serde_json::json;
use waymark_geoformats::{
    Format, FormatError, ReadSummary, parse_text_geometry, problem, read, sniff,
};

use common::*;

#[test]
fn geopackage_reads_the_first_feature_table() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("parcels.gpkg");
    make_gpkg(&p, 4326);
    assert_eq!(sniff(&p, None, None).unwrap(), Format::GeoPackage);
    let (records, summary) = read_all(&p, Format::GeoPackage).unwrap();
    assert_eq!(
        summary,
        ReadSummary {
            features: 2,
            skipped: 3
        }
    );
    let f = features(&records);
    assert_eq!((f[0].index, f[0].source_id.as_deref()), (1, Some("10")));
    assert!(matches!(f[0].geometry, Geometry::Polygon(_)));
    assert_eq!(f[0].attributes.get("owner"), Some(&json!("Ann")));
    assert_eq!(f[0].attributes.get("area"), Some(&json!(1.5)));
    assert_eq!(f[0].attributes.get("lots"), Some(&json!(3)));
    assert!(f[0].attributes.get("geom").is_none() && f[0].attributes.get("fid").is_none());
    assert_eq!(f[1].geometry, Geometry::Point(point!(x: 5.5, y: 45.25)));
    assert_eq!(f[1].attributes.get("area"), Some(&json!(null)));
    let s = skipped(&records);
    assert_eq!(s.iter().map(|s| s.0).collect::<Vec<_>>(), vec![3, 4, 5]);
    assert!(s[0].1.contains("no geometry"), "{}", s[0].1);
    assert!(s[1].1.contains("empty"), "{}", s[1].1);
    assert!(s[2].1.contains("GP"), "{}", s[2].1);

    // URI-special characters in the path.
    let odd = dir.path().join("odd #1 ?50% name.gpkg");
    std::fs::copy(&p, &odd).unwrap();
    assert_eq!(read_all(&odd, Format::GeoPackage).unwrap().1, summary);
}

#[test]
fn geopackage_in_an_unknown_srs_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("site-grid.gpkg");
    make_gpkg(&p, 3857);
    rusqlite::Connection::open(&p)
        .unwrap()
        .execute_batch(
            "UPDATE gpkg_spatial_ref_sys SET organization = 'ACME', srs_name = 'Site grid', definition = 'undefined' WHERE srs_id = 3857;",
        )
        .unwrap();
    let e = read_all(&p, Format::GeoPackage).unwrap_err();
    assert!(matches!(e, FormatError::Unsupported(_)), "{e:?}");
    assert!(e.to_string().contains("EPSG:4326"), "{e}");
    assert!(e.to_string().contains("ACME:3857 (Site grid)"), "{e}");
    assert!(e.to_string().contains("\"parcels\""), "{e}");
    // An SQLite file that is not a GeoPackage.
    let q = dir.path().join("plain.sqlite");
    rusqlite::Connection::open(&q)
        .unwrap()
        .execute_batch("CREATE TABLE t (a INTEGER);")
        .unwrap();
    assert!(
        read_all(&q, Format::GeoPackage)
            .unwrap_err()
            .to_string()
            .contains("gpkg_contents")
    );
}

#[test]
fn sniff_by_content_name_and_type() {
    let dir = tempfile::tempdir().unwrap();
    let fc = write(
        dir.path(),
        "a",
        br#"  {"type":"FeatureCollection","features":[]}"#,
    );
    assert_eq!(sniff(&fc, None, None).unwrap(), Format::GeoJson);
    let one_line_feature = write(
        dir.path(),
        "b",
        br#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}"#,
    );
    assert_eq!(
        sniff(&one_line_feature, None, None).unwrap(),
        Format::GeoJson
    );
    let seq = write(dir.path(), "c", b"\x1e{\"type\":\"Feature\"}\n");
    assert_eq!(sniff(&seq, None, None).unwrap(), Format::GeoJsonSeq);
    let zip = write(dir.path(), "d", b"PK\x03\x04rest");
    assert_eq!(sniff(&zip, None, None).unwrap(), Format::Shapefile);
    let csv = write(dir.path(), "e", b"name|latitude|longitude\na|1|2\n");
    assert_eq!(sniff(&csv, None, None).unwrap(), Format::Csv);
    // Content does not decide: the name, then the content type.
    let other = write(dir.path(), "f", b"name,value\n");
    assert_eq!(
        sniff(&other, Some("hydrants.csv"), None).unwrap(),
        Format::Csv
    );
    assert_eq!(
        sniff(
            &other,
            Some("https://x.invalid/dl/layer.GPKG?token=1"),
            None
        )
        .unwrap(),
        Format::GeoPackage
    );
    assert_eq!(
        sniff(&other, Some("data"), Some("text/csv; charset=utf-8")).unwrap(),
        Format::Csv
    );
    assert_eq!(
        sniff(&other, None, Some("application/geo+json-seq")).unwrap(),
        Format::GeoJsonSeq
    );
    let e = sniff(&other, Some("data.bin"), Some("application/octet-stream")).unwrap_err();
    assert!(matches!(e, FormatError::Unrecognised(_)));
    assert!(e.to_string().contains("GeoPackage"), "{e}");
    let empty = write(dir.path(), "g", b"");
    assert!(sniff(&empty, Some("x.geojson"), None).is_err());
}

#[test]
fn text_geometries() {
    assert_eq!(
        parse_text_geometry("48.8,2.3").unwrap(),
        Geometry::Point(point!(x: 2.3, y: 48.8))
    );
    assert!(matches!(
        parse_text_geometry("linestring (2.3 48.8, 2.4 48.9)").unwrap(),
        Geometry::LineString(_)
    ));
    assert!(matches!(
        parse_text_geometry("_p~iF~ps|U_ulLnnqC_mqNvxq`@").unwrap(),
        Geometry::LineString(_)
    ));
    let e = parse_text_geometry("not a geometry at all").unwrap_err();
    assert!(
        e.contains("WKT") && e.contains("lat,lng") && e.contains("polyline"),
        "{e}"
    );
    assert!(problem(&parse_text_geometry("95,2").unwrap()).is_some());
}

#[test]
fn zipped_shapefile() {
    let dir = tempfile::tempdir().unwrap();
    let z = make_shapefile_zip(dir.path(), Some(WGS84_PRJ));
    assert_eq!(sniff(&z, None, None).unwrap(), Format::Shapefile);
    let dbf = std::fs::read(dir.path().join("parcels.dbf")).unwrap();
    assert!(
        dbf.windows(4).any(|w| w == b"Caf\xe9"),
        "the test table is Windows-1252"
    );
    let (records, summary) = read_all(&z, Format::Shapefile).unwrap();
    assert_eq!(
        summary,
        ReadSummary {
            features: 1,
            skipped: 1
        }
    );
    let f = features(&records);
    assert_eq!(f[0].index, 1);
    assert_eq!(f[0].source_id.as_deref(), Some("100"));
    assert_eq!(f[0].attributes.get("NAME"), Some(&json!("Café")));
    assert_eq!(f[0].attributes.get("LOTS"), Some(&json!(3)));
    let Geometry::Polygon(p) = &f[0].geometry else {
        panic!("{:?}", f[0].geometry)
    };
    assert_eq!(p.exterior().0.len(), 5);
    let s = skipped(&records);
    assert_eq!(s[0].0, 2);
    assert!(s[0].1.contains("latitude"), "{}", s[0].1);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".waymark-shp-"))
        .collect();
    assert!(leftovers.is_empty(), "the extraction directory is removed");
    // The bare .shp (with its .dbf beside it) reads too.
    let (_, summary) = read_all(&dir.path().join("parcels.shp"), Format::Shapefile).unwrap();
    assert_eq!(
        summary,
        ReadSummary {
            features: 1,
            skipped: 1
        }
    );
}

#[test]
fn shapefile_problems() {
    let dir = tempfile::tempdir().unwrap();
    // OSGB 1936 in ESRI WKT: no EPSG code and no shift to WGS 84 stated: refused, by name.
    let z = make_shapefile_zip(
        dir.path(),
        Some(
            r#"PROJCS["British_National_Grid",GEOGCS["GCS_OSGB_1936",DATUM["D_OSGB_1936",SPHEROID["Airy_1830",6377563.396,299.3249646]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",400000.0],PARAMETER["False_Northing",-100000.0],PARAMETER["Central_Meridian",-2.0],PARAMETER["Scale_Factor",0.9996012717],PARAMETER["Latitude_Of_Origin",49.0],UNIT["Meter",1.0]]"#,
        ),
    );
    let e = read_all(&z, Format::Shapefile).unwrap_err();
    assert!(matches!(e, FormatError::Unsupported(_)), "{e:?}");
    assert!(e.to_string().contains("EPSG:4326"), "{e}");
    assert!(e.to_string().contains("British_National_Grid"), "{e}");

    let only_txt = dir.path().join("readme.zip");
    let mut w = zip::ZipWriter::new(std::fs::File::create(&only_txt).unwrap());
    w.start_file("readme.txt", zip::write::SimpleFileOptions::default())
        .unwrap();
    w.write_all(b"hello").unwrap();
    w.finish().unwrap();
    let e = read_all(&only_txt, Format::Shapefile).unwrap_err();
    assert!(e.to_string().contains("no .shp"), "{e}");
    assert!(e.to_string().contains("readme.txt"), "{e}");
}

#[test]
fn every_reader_stops_when_the_sink_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let gpkg = dir.path().join("p.gpkg");
    make_gpkg(&gpkg, 4326);
    let cases = vec![
        (
            write(dir.path(), "a.geojson", fc_with_good_and_bad().as_bytes()),
            Format::GeoJson,
        ),
        (
            write(
                dir.path(),
                "b.ndjson",
                b"x\n{\"type\":\"Point\",\"coordinates\":[1,2]}\n{\"type\":\"Point\",\"coordinates\":[1,2]}\n",
            ),
            Format::GeoJsonSeq,
        ),
        (
            write(dir.path(), "c.csv", b"lat,lng\n1,2\n3,4\n"),
            Format::Csv,
        ),
        (gpkg, Format::GeoPackage),
        (
            make_shapefile_zip(dir.path(), Some(WGS84_PRJ)),
            Format::Shapefile,
        ),
    ];
    for (path, format) in cases {
        let mut calls = 0;
        let e = read(&path, format, &mut |_| {
            calls += 1;
            Err("size limit reached".to_owned())
        })
        .unwrap_err();
        assert!(
            matches!(&e, FormatError::Stopped(m) if m == "size limit reached"),
            "{format:?}: {e:?}"
        );
        assert_eq!(calls, 1, "{format:?}");
        assert_eq!(e.to_string(), "read stopped: size limit reached");
    }
}
