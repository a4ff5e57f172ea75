//! Reading real files written to a temporary directory.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};

use geo_types::{Geometry, LineString, Point, Polygon, line_string, point, polygon};
use serde_json::json;
use waymark_geoformats::{
    Format, FormatError, ReadSummary, Record, from_wkb, parse_geojson_geometry,
    parse_text_geometry, problem, read, sniff, to_geojson, to_geojson_string, to_wkb,
};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn read_all(path: &Path, format: Format) -> Result<(Vec<Record>, ReadSummary), FormatError> {
    let mut out = Vec::new();
    let summary = read(path, format, &mut |r| {
        out.push(r);
        Ok(())
    })?;
    Ok((out, summary))
}

fn skipped(records: &[Record]) -> Vec<(u64, String)> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Skipped { index, reason } => Some((*index, reason.clone())),
            Record::Feature(_) => None,
        })
        .collect()
}

fn features(records: &[Record]) -> Vec<&waymark_geoformats::Feature> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Feature(f) => Some(f),
            Record::Skipped { .. } => None,
        })
        .collect()
}

#[test]
fn wkb_and_geojson_round_trips() {
    let poly: Polygon<f64> = Polygon::new(
        LineString::from(vec![
            (0.0, 0.0),
            (10.0, 0.0),
            (10.0, 10.0),
            (0.0, 10.0),
            (0.0, 0.0),
        ]),
        vec![LineString::from(vec![
            (2.0, 2.0),
            (3.0, 2.0),
            (3.0, 3.0),
            (2.0, 2.0),
        ])],
    );
    let gs = vec![
        Geometry::Point(point!(x: 2.35, y: 48.85)),
        Geometry::LineString(line_string![(x: 0.0, y: 0.0), (x: 1.5, y: -1.5)]),
        Geometry::Polygon(poly.clone()),
        Geometry::MultiPoint(vec![Point::new(1.0, 2.0), Point::new(3.0, 4.0)].into()),
        Geometry::MultiLineString(geo_types::MultiLineString(vec![
            line_string![(x: 0.0, y: 0.0), (x: 1.0, y: 1.0)],
        ])),
        Geometry::MultiPolygon(geo_types::MultiPolygon(vec![poly])),
    ];
    for g in &gs {
        assert_eq!(&from_wkb(&to_wkb(g)).unwrap(), g);
        let v = to_geojson(g);
        let obj = v.as_object().unwrap();
        assert_eq!(&parse_geojson_geometry(obj).unwrap(), g);
        let text = to_geojson_string(g);
        assert!(text.starts_with("{\"type\":"), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
    }
    assert_eq!(
        to_geojson_string(&gs[0]),
        r#"{"type":"Point","coordinates":[2.35,48.85]}"#
    );
    let gc = Geometry::GeometryCollection(geo_types::GeometryCollection(vec![gs[0].clone()]));
    assert_eq!(
        to_geojson_string(&gc),
        r#"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[2.35,48.85]}]}"#
    );
    assert_eq!(
        &parse_geojson_geometry(to_geojson(&gc).as_object().unwrap()).unwrap(),
        &gc
    );
}

#[test]
fn geojson_geometry_errors_name_the_part() {
    let obj = json!({"type": "Polygon", "coordinates": [[[1, 2], [5, 2], [5, 6], [3, 4]]]});
    let e = parse_geojson_geometry(obj.as_object().unwrap()).unwrap_err();
    assert!(
        e.starts_with("coordinates[0]: ring not closed: first [1,2] last [3,4]"),
        "{e}"
    );
    let obj = json!({"type": "LineString", "coordinates": [[1, 2], [1, "x"]]});
    let e = parse_geojson_geometry(obj.as_object().unwrap()).unwrap_err();
    assert!(e.starts_with("coordinates[1][1]: expected a number"), "{e}");
    let obj = json!({"type": "Circle", "coordinates": [1, 2]});
    assert!(parse_geojson_geometry(obj.as_object().unwrap()).is_err());
}

fn fc_with_good_and_bad() -> String {
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

#[test]
fn geojson_feature_collection_good_and_bad() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "layer.geojson",
        fc_with_good_and_bad().as_bytes(),
    );
    assert_eq!(sniff(&p, None, None).unwrap(), Format::GeoJson);
    let (records, summary) = read_all(&p, Format::GeoJson).unwrap();
    assert_eq!(
        summary,
        ReadSummary {
            features: 2,
            skipped: 5
        }
    );
    let f = features(&records);
    assert_eq!(f[0].index, 1);
    assert_eq!(f[0].source_id.as_deref(), Some("17"));
    assert_eq!(f[0].geometry, Geometry::Point(point!(x: 2.35, y: 48.85)));
    assert_eq!(f[0].attributes.get("name"), Some(&json!("hydrant")));
    assert_eq!(f[1].index, 7);
    assert_eq!(f[1].source_id.as_deref(), Some("parcel-7"));
    let s = skipped(&records);
    let idx: Vec<u64> = s.iter().map(|(i, _)| *i).collect();
    assert_eq!(idx, vec![2, 3, 4, 5, 6]);
    assert!(s[0].1.contains("ring not closed"), "{}", s[0].1);
    assert!(s[1].1.contains("ring has 3 positions"), "{}", s[1].1);
    assert!(s[2].1.contains("self-intersection"), "{}", s[2].1);
    assert!(s[3].1.contains("no geometry"), "{}", s[3].1);
    assert!(s[4].1.contains("latitude 95"), "{}", s[4].1);
    // Records come in file order.
    let order: Vec<u64> = records
        .iter()
        .map(|r| match r {
            Record::Feature(f) => f.index,
            Record::Skipped { index, .. } => *index,
        })
        .collect();
    assert_eq!(order, vec![1, 2, 3, 4, 5, 6, 7]);
}

#[test]
fn geojson_in_another_crs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "old.geojson",
        br#"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2154"}},"features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[652000,6862000]},"properties":{}}]}"#,
    );
    let e = read_all(&p, Format::GeoJson).unwrap_err();
    assert!(matches!(e, FormatError::Unsupported(_)), "{e:?}");
    assert!(e.to_string().contains("EPSG:4326"), "{e}");
    let p = write(
        dir.path(),
        "crs84.geojson",
        br#"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:OGC:1.3:CRS84"}},"features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[2,48]},"properties":{}}]}"#,
    );
    assert_eq!(read_all(&p, Format::GeoJson).unwrap().1.features, 1);
}

#[test]
fn geojson_single_feature_and_bare_geometry() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "one.json",
        br#"{"properties": {"a": true}, "geometry": {"type": "Point", "coordinates": [1, 2]}, "type": "Feature"}"#,
    );
    let (records, summary) = read_all(&p, Format::GeoJson).unwrap();
    assert_eq!(summary.features, 1);
    assert_eq!(
        features(&records)[0].attributes.get("a"),
        Some(&json!(true))
    );
    let p = write(
        dir.path(),
        "g.json",
        br#"{"type":"LineString","coordinates":[[1,2],[3,4]]}"#,
    );
    let (_, summary) = read_all(&p, Format::GeoJson).unwrap();
    assert_eq!(summary.features, 1);
}

#[test]
fn geojson_file_level_errors() {
    let dir = tempfile::tempdir().unwrap();
    let full = fc_with_good_and_bad();
    let p = write(
        dir.path(),
        "cut.geojson",
        &full.as_bytes()[..full.len() / 2],
    );
    let mut seen = 0;
    let e = read(&p, Format::GeoJson, &mut |_| {
        seen += 1;
        Ok(())
    })
    .unwrap_err();
    assert!(e.to_string().contains("truncated"), "{e}");
    assert!(e.to_string().contains("line "), "{e}");
    assert!(seen > 0, "features before the cut are streamed");

    let p = write(dir.path(), "not.geojson", b"<html><body>404</body></html>");
    let e = read_all(&p, Format::GeoJson).unwrap_err();
    assert!(e.to_string().contains("line 1 column 1"), "{e}");
    let p = write(dir.path(), "arr.geojson", b"[1,2,3]");
    assert!(read_all(&p, Format::GeoJson).is_err());
    let p = write(
        dir.path(),
        "nofeat.geojson",
        br#"{"type":"FeatureCollection"}"#,
    );
    assert!(read_all(&p, Format::GeoJson).is_err());
    assert!(matches!(
        read_all(&dir.path().join("missing.geojson"), Format::GeoJson),
        Err(FormatError::Io(_))
    ));
}

#[test]
fn sink_can_stop_the_read() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "layer.geojson",
        fc_with_good_and_bad().as_bytes(),
    );
    let mut n = 0;
    let e = read(&p, Format::GeoJson, &mut |_| {
        n += 1;
        if n == 3 {
            Err("cancelled".to_owned())
        } else {
            Ok(())
        }
    })
    .unwrap_err();
    assert!(
        matches!(&e, FormatError::Stopped(m) if m == "cancelled"),
        "{e:?}"
    );
    assert_eq!(n, 3);
}

#[test]
fn geojson_streams_a_large_collection() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.geojson");
    let n = 200_000u64;
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        w.write_all(br#"{"type":"FeatureCollection","features":["#)
            .unwrap();
        for i in 0..n {
            if i > 0 {
                w.write_all(b",").unwrap();
            }
            write!(
                w,
                r#"{{"type":"Feature","id":{i},"geometry":{{"type":"Point","coordinates":[{},{}]}},"properties":{{"n":{i}}}}}"#,
                (i % 360) as f64 - 179.5,
                (i % 180) as f64 - 89.5
            )
            .unwrap();
        }
        w.write_all(b"]}").unwrap();
    }
    let mut count = 0u64;
    let summary = read(&p, Format::GeoJson, &mut |r| {
        if let Record::Feature(_) = r {
            count += 1;
        }
        Ok(())
    })
    .unwrap();
    assert_eq!(count, n);
    assert_eq!(
        summary,
        ReadSummary {
            features: n,
            skipped: 0
        }
    );
}

#[test]
fn ndjson_with_a_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = concat!(
        "{\"type\":\"Feature\",\"id\":\"a\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]},\"properties\":{\"k\":1}}\n",
        "\n",
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,\n",
        "\x1e{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[3,4]},\"properties\":null}\n",
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[200,4]},\"properties\":null}\n",
    );
    let p = write(dir.path(), "layer.ndjson", text.as_bytes());
    assert_eq!(sniff(&p, None, None).unwrap(), Format::GeoJsonSeq);
    let (records, summary) = read_all(&p, Format::GeoJsonSeq).unwrap();
    assert_eq!(
        summary,
        ReadSummary {
            features: 2,
            skipped: 2
        }
    );
    let f = features(&records);
    assert_eq!((f[0].index, f[0].source_id.as_deref()), (1, Some("a")));
    assert_eq!(f[1].index, 4);
    let s = skipped(&records);
    assert_eq!(s[0].0, 3);
    assert!(s[0].1.contains("not valid JSON"), "{}", s[0].1);
    assert_eq!(s[1].0, 5);
    assert!(s[1].1.contains("longitude 200"), "{}", s[1].1);
}

#[test]
fn rfc8142_records_may_span_lines() {
    let dir = tempfile::tempdir().unwrap();
    let text = "\x1e{\n  \"type\": \"Feature\",\n  \"geometry\": {\"type\": \"Point\", \"coordinates\": [1, 2]},\n  \"properties\": {}\n}\n\x1e{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[3,\n\x1e{\"type\":\"Feature\",\"geometry\":null,\"properties\":{}}\n";
    let p = write(dir.path(), "seq.geojsons", text.as_bytes());
    assert_eq!(sniff(&p, None, None).unwrap(), Format::GeoJsonSeq);
    let (records, summary) = read_all(&p, Format::GeoJsonSeq).unwrap();
    assert_eq!(
        summary,
        ReadSummary {
            features: 1,
            skipped: 2
        }
    );
    assert_eq!(features(&records)[0].index, 1);
    let s = skipped(&records);
    assert_eq!((s[0].0, s[1].0), (6, 7));
    assert!(s[0].1.contains("not valid JSON"), "{}", s[0].1);
    assert!(s[1].1.contains("no geometry"), "{}", s[1].1);
}

#[test]
fn ndjson_that_is_not_ndjson_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "x.ndjson",
        b"a\nb\nc\nd\ne\n{\"type\":\"Point\",\"coordinates\":[1,2]}\n",
    );
    let e = read_all(&p, Format::GeoJsonSeq).unwrap_err();
    assert!(e.to_string().contains("not a GeoJSON text sequence"), "{e}");
    // Fewer than 5 bad lines followed by a good one: skipped, in order.
    let p = write(
        dir.path(),
        "y.ndjson",
        b"a\nb\n{\"type\":\"Point\",\"coordinates\":[1,2]}\n",
    );
    let (records, summary) = read_all(&p, Format::GeoJsonSeq).unwrap();
    assert_eq!(
        summary,
        ReadSummary {
            features: 1,
            skipped: 2
        }
    );
    assert_eq!(
        skipped(&records).iter().map(|s| s.0).collect::<Vec<_>>(),
        vec![1, 2]
    );
}

#[test]
fn csv_lat_lng_with_typed_values() {
    let dir = tempfile::tempdir().unwrap();
    let text = "id,name,Lat,Lng,flow,active,zip,note\n\
                h1,Hydrant 1,48.85,2.35,1200,true,07030,\n\
                h2,\"Quoted, name\",abc,2.35,1,false,1,x\n\
                h3,Hydrant 3,-33.9,151.2,12.5,TRUE,2,\n";
    let p = write(dir.path(), "hydrants.csv", text.as_bytes());
    assert_eq!(sniff(&p, None, None).unwrap(), Format::Csv);
    let (records, summary) = read_all(&p, Format::Csv).unwrap();
    assert_eq!(
        summary,
        ReadSummary {
            features: 2,
            skipped: 1
        }
    );
    let f = features(&records);
    assert_eq!(f[0].index, 1);
    assert_eq!(f[0].source_id.as_deref(), Some("h1"));
    assert_eq!(f[0].geometry, Geometry::Point(point!(x: 2.35, y: 48.85)));
    let a = &f[0].attributes;
    assert_eq!(a.get("flow"), Some(&json!(1200)));
    assert_eq!(a.get("active"), Some(&json!(true)));
    assert_eq!(a.get("zip"), Some(&json!("07030")));
    assert_eq!(a.get("note"), Some(&json!(null)));
    assert_eq!(a.get("id"), Some(&json!("h1")));
    assert!(a.get("Lat").is_none() && a.get("Lng").is_none());
    assert_eq!(f[1].index, 3);
    assert_eq!(f[1].attributes.get("flow"), Some(&json!(12.5)));
    let s = skipped(&records);
    assert_eq!(s[0].0, 2);
    assert!(
        s[0].1.contains("\"Lat\"") && s[0].1.contains("\"abc\""),
        "{}",
        s[0].1
    );
}

#[test]
fn csv_wkt_semicolon_and_bom() {
    let dir = tempfile::tempdir().unwrap();
    let text = "\u{feff}name;WKT\nzone A;\"POLYGON((0 0, 1 0, 1 1, 0 0))\"\nzone B;POLYGON((0 0, 1 0, 1 1))\nzone C;POINT(3 4)\n";
    let p = write(dir.path(), "zones.csv", text.as_bytes());
    assert_eq!(sniff(&p, None, None).unwrap(), Format::Csv);
    let (records, summary) = read_all(&p, Format::Csv).unwrap();
    assert_eq!(
        summary,
        ReadSummary {
            features: 2,
            skipped: 1
        }
    );
    let f = features(&records);
    assert_eq!(f[0].attributes.get("name"), Some(&json!("zone A")));
    assert!(matches!(f[0].geometry, Geometry::Polygon(_)));
    assert_eq!(f[1].index, 3);
    let s = skipped(&records);
    assert_eq!(s[0].0, 2);
    assert!(
        s[0].1.contains("\"WKT\"") && s[0].1.contains("not closed"),
        "{}",
        s[0].1
    );

    // A single WKT column, values unquoted with commas inside.
    let p = write(dir.path(), "wkt.csv", b"WKT\nLINESTRING (0 0, 1 1, 2 0)\n");
    assert_eq!(sniff(&p, None, None).unwrap(), Format::Csv);
    let (records, summary) = read_all(&p, Format::Csv).unwrap();
    assert_eq!(summary.features, 1, "{records:?}");

    // Decimal commas with a `;` delimiter; a 20-digit id stays a string.
    let p = write(
        dir.path(),
        "fr.csv",
        b"ref;lat;lon\n12345678901234567890;48,85;2,35\n",
    );
    let (records, _) = read_all(&p, Format::Csv).unwrap();
    let f = features(&records);
    assert_eq!(f[0].geometry, Geometry::Point(point!(x: 2.35, y: 48.85)));
    assert_eq!(
        f[0].attributes.get("ref"),
        Some(&json!("12345678901234567890"))
    );

    // GeoJSON geometry objects in a `geometry` column.
    let p = write(
        dir.path(),
        "gj.csv",
        b"name,geometry\na,\"{\"\"type\"\":\"\"Point\"\",\"\"coordinates\"\":[2,48]}\"\nb,\"{\"\"type\"\":\"\"Polygon\"\",\"\"coordinates\"\":[[[0,0],[1,0],[1,1]]]}\"\n",
    );
    let (records, summary) = read_all(&p, Format::Csv).unwrap();
    assert_eq!(
        summary,
        ReadSummary {
            features: 1,
            skipped: 1
        }
    );
    assert_eq!(
        features(&records)[0].geometry,
        Geometry::Point(point!(x: 2.0, y: 48.0))
    );
    assert!(
        skipped(&records)[0].1.contains("ring not closed"),
        "{records:?}"
    );

    // Tab-separated, x/y names.
    let p = write(dir.path(), "pts.tsv", b"x\ty\tv\n2.5\t45.5\tok\n");
    let (records, _) = read_all(&p, Format::Csv).unwrap();
    assert_eq!(
        features(&records)[0].geometry,
        Geometry::Point(point!(x: 2.5, y: 45.5))
    );
}

#[test]
fn csv_file_level_errors() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "nogeom.csv", b"name,value\na,1\n");
    let e = read_all(&p, Format::Csv).unwrap_err();
    assert!(e.to_string().contains("no geometry column"), "{e}");
    assert!(e.to_string().contains("name, value"), "{e}");
    let p = write(dir.path(), "empty.csv", b"");
    assert!(
        read_all(&p, Format::Csv)
            .unwrap_err()
            .to_string()
            .contains("header")
    );
}

/// Writes a GeoPackage with rusqlite: the required tables, a features table with the
/// given srs, and a few rows with hand-made GP headers.
fn make_gpkg(path: &Path, srs_id: i32) {
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
fn geopackage_in_another_srs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mercator.gpkg");
    make_gpkg(&p, 3857);
    let e = read_all(&p, Format::GeoPackage).unwrap_err();
    assert!(matches!(e, FormatError::Unsupported(_)), "{e:?}");
    assert!(e.to_string().contains("EPSG:4326"), "{e}");
    assert!(e.to_string().contains("EPSG:3857"), "{e}");
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

/// Writes `parcels.shp/.shx/.dbf` with the shapefile crate and zips them (deflated) with a
/// `.prj`, inside a folder as exported archives often are.
fn make_shapefile_zip(dir: &Path, prj: Option<&str>) -> PathBuf {
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

const WGS84_PRJ: &str = r#"GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]"#;

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
    let z = make_shapefile_zip(
        dir.path(),
        Some(r#"PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984"]]"#),
    );
    let e = read_all(&z, Format::Shapefile).unwrap_err();
    assert!(matches!(e, FormatError::Unsupported(_)), "{e:?}");
    assert!(e.to_string().contains("EPSG:4326"), "{e}");

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
