//! Property tests: readers never panic on arbitrary files; codecs round-trip.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use geo_types::{
    Coord, Geometry, GeometryCollection, LineString, MultiLineString, MultiPoint, MultiPolygon,
    Point, Polygon,
};
use proptest::prelude::*;
use waymark_geoformats::{
    Format, from_wkb, parse_geojson_geometry, parse_text_geometry, problem, read, sniff,
    to_geojson, to_wkb,
};

const FORMATS: [Format; 5] = [
    Format::GeoJson,
    Format::GeoJsonSeq,
    Format::Csv,
    Format::GeoPackage,
    Format::Shapefile,
];

fn read_bytes(bytes: &[u8]) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    std::fs::write(&p, bytes).unwrap();
    let _ = sniff(&p, Some("f.geojson"), Some("text/csv"));
    for f in FORMATS {
        let mut n = 0u64;
        let r = read(&p, f, &mut |_| {
            n += 1;
            Ok(())
        });
        if let Ok(s) = r {
            assert_eq!(s.features + s.skipped, n);
        }
    }
}

/// Text made of the characters that matter to the parsers, so that the readers get past
/// their first byte.
fn texty() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("{\"type\":\"FeatureCollection\",\"features\":[".to_owned()),
            Just("{\"type\":\"Feature\",\"geometry\":".to_owned()),
            Just("{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[1,0],[1,1],[0,0]]]}".to_owned()),
            Just("\"properties\":{\"a\":1}}".to_owned()),
            Just("lat,lng,wkt\n".to_owned()),
            Just("POLYGON((0 0,1 1".to_owned()),
            Just("\u{1e}".to_owned()),
            "[\\[\\]{}:,;\"\\n\\t0-9.eE+-]{0,12}",
            "[a-zA-Z ]{0,6}",
        ],
        0..24,
    )
    .prop_map(|v| v.concat())
}

fn coord() -> impl Strategy<Value = Coord<f64>> {
    (-180.0f64..=180.0, -90.0f64..=90.0).prop_map(|(x, y)| Coord { x, y })
}

fn line() -> impl Strategy<Value = LineString<f64>> {
    prop::collection::vec(coord(), 2..8).prop_map(LineString)
}

fn ring() -> impl Strategy<Value = LineString<f64>> {
    prop::collection::vec(coord(), 3..8).prop_map(|mut v| {
        v.push(v[0]);
        LineString(v)
    })
}

fn poly() -> impl Strategy<Value = Polygon<f64>> {
    (ring(), prop::collection::vec(ring(), 0..3)).prop_map(|(e, i)| Polygon::new(e, i))
}

fn geometry() -> impl Strategy<Value = Geometry<f64>> {
    let leaf = prop_oneof![
        coord().prop_map(|c| Geometry::Point(Point(c))),
        line().prop_map(Geometry::LineString),
        poly().prop_map(Geometry::Polygon),
        prop::collection::vec(coord().prop_map(Point), 1..5)
            .prop_map(|v| Geometry::MultiPoint(MultiPoint(v))),
        prop::collection::vec(line(), 1..4)
            .prop_map(|v| Geometry::MultiLineString(MultiLineString(v))),
        prop::collection::vec(poly(), 1..3).prop_map(|v| Geometry::MultiPolygon(MultiPolygon(v))),
    ];
    leaf.prop_recursive(2, 12, 4, |inner| {
        prop::collection::vec(inner, 1..4)
            .prop_map(|v| Geometry::GeometryCollection(GeometryCollection(v)))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn readers_never_panic_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        read_bytes(&bytes);
    }

    #[test]
    fn readers_never_panic_on_texty_input(text in texty()) {
        read_bytes(text.as_bytes());
        let mut with_sqlite = b"SQLite format 3\0".to_vec();
        with_sqlite.extend_from_slice(text.as_bytes());
        read_bytes(&with_sqlite);
    }

    /// A valid Shapefile header (polygon type, plausible lengths) followed by random bytes:
    /// corrupt record counts must not crash the reader.
    #[test]
    fn shapefile_reader_never_panics(body in prop::collection::vec(any::<u8>(), 0..400), poly in any::<bool>()) {
        let mut b = vec![0u8; 100];
        b[0..4].copy_from_slice(&9994u32.to_be_bytes());
        let words = u32::try_from((100 + body.len()) / 2).unwrap();
        b[24..28].copy_from_slice(&words.to_be_bytes());
        b[28..32].copy_from_slice(&1000u32.to_le_bytes());
        b[32..36].copy_from_slice(&(if poly { 5u32 } else { 1 }).to_le_bytes());
        b.extend_from_slice(&body);
        read_bytes(&b);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn wkb_round_trips(g in geometry()) {
        prop_assert_eq!(from_wkb(&to_wkb(&g)).unwrap(), g);
    }

    #[test]
    fn geojson_round_trips(g in geometry()) {
        let v = to_geojson(&g);
        prop_assert_eq!(parse_geojson_geometry(v.as_object().unwrap()).unwrap(), g);
    }

    #[test]
    fn problem_never_panics(g in geometry(), nan in any::<bool>()) {
        let _ = problem(&g);
        if nan {
            let _ = problem(&Geometry::LineString(LineString(vec![
                Coord { x: f64::NAN, y: 0.0 },
                Coord { x: 1.0, y: f64::INFINITY },
            ])));
        }
    }

    #[test]
    fn wkb_decoder_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = from_wkb(&bytes);
    }

    #[test]
    fn text_parser_never_panics(s in "\\PC{0,40}", t in "[?-~]{0,30}") {
        let _ = parse_text_geometry(&s);
        let _ = parse_text_geometry(&t);
    }
}

/// A polygon record claiming 2^31-1 parts and points in a tiny file: an error, no abort.
#[test]
fn shapefile_with_huge_counts_is_an_error() {
    let mut rec = Vec::new();
    rec.extend_from_slice(&5u32.to_le_bytes()); // polygon
    rec.extend_from_slice(&[0u8; 32]); // bbox
    rec.extend_from_slice(&i32::MAX.to_le_bytes()); // parts
    rec.extend_from_slice(&i32::MAX.to_le_bytes()); // points
    rec.extend_from_slice(&[0u8; 16]);
    let mut b = vec![0u8; 100];
    b[0..4].copy_from_slice(&9994u32.to_be_bytes());
    let words = u32::try_from((100 + 8 + rec.len()) / 2).unwrap();
    b[24..28].copy_from_slice(&words.to_be_bytes());
    b[28..32].copy_from_slice(&1000u32.to_le_bytes());
    b[32..36].copy_from_slice(&5u32.to_le_bytes());
    b.extend_from_slice(&1u32.to_be_bytes());
    b.extend_from_slice(&u32::try_from(rec.len() / 2).unwrap().to_be_bytes());
    b.extend_from_slice(&rec);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("huge.shp");
    std::fs::write(&p, &b).unwrap();
    let r = read(&p, Format::Shapefile, &mut |_| Ok(()));
    assert!(r.is_err(), "{r:?}");
}
