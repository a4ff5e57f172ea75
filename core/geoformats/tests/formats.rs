//! Reading real files written to a temporary directory: WKB, GeoJSON, newline-delimited
//! GeoJSON and CSV.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;

use geo_types::{Geometry, LineString, Point, Polygon, line_string, point};
use serde_json::json;
use waymark_geoformats::{
    Format, FormatError, ReadSummary, Record, from_wkb, parse_geojson_geometry, read, sniff,
    to_geojson, to_geojson_string, to_wkb,
};

use common::*;

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
fn geojson_in_an_unknown_crs_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "old.geojson",
        br#"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::99999"}},"features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[652000,6862000]},"properties":{}}]}"#,
    );
    let e = read_all(&p, Format::GeoJson).unwrap_err();
    assert!(matches!(e, FormatError::Unsupported(_)), "{e:?}");
    assert!(e.to_string().contains("EPSG:4326"), "{e}");
    assert!(e.to_string().contains("EPSG:99999"), "{e}");
    let p = write(
        dir.path(),
        "local.geojson",
        br#"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"site-grid"}},"features":[]}"#,
    );
    let e = read_all(&p, Format::GeoJson).unwrap_err();
    assert!(e.to_string().contains("site-grid"), "{e}");
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
