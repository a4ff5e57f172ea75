//! Geometries given as text: WKT, `lat,lng`, Google encoded polylines, GeoJSON.

use geo_types::{Coord, Geometry, Point};
use wkt::Wkt;

const WKT_KEYWORDS: [&str; 7] = [
    "GEOMETRYCOLLECTION",
    "MULTILINESTRING",
    "MULTIPOLYGON",
    "MULTIPOINT",
    "LINESTRING",
    "POLYGON",
    "POINT",
];

/// Parses a query geometry given as text, telling the notations apart:
///
/// - text starting with a WKT keyword (`POINT`, `LINESTRING`, `POLYGON`, their `MULTI`
///   forms, `GEOMETRYCOLLECTION`; any case; an EWKT `SRID=4326;` prefix is accepted) is WKT;
/// - two decimal numbers separated by a comma, optional spaces around them (`48.8,2.3`), is
///   `lat,lng` (note: latitude first) and gives a Point;
/// - text starting with `{` is a GeoJSON geometry object;
/// - anything else is tried as a Google encoded polyline (precision 5): one position gives
///   a Point, more a LineString.
///
/// Ring closure is checked on the raw WKT / GeoJSON coordinates. Ranges and validity are
/// [`problem`](crate::problem)'s job, except for polylines, whose decoded positions must be
/// within ±90/±180 (otherwise the text was not a polyline). Errors name what was tried.
pub fn parse_text_geometry(s: &str) -> Result<Geometry<f64>, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty geometry text: give WKT, `lat,lng` or an encoded polyline".to_owned());
    }
    // WKT always has a `(` or an ` EMPTY`, neither of which can occur in a polyline (whose
    // characters are `?`..=`~`), and neither can the `"` of a JSON object: text that could
    // be both is tried as a polyline too.
    let could_be_polyline = t.chars().all(|c| ('?'..='~').contains(&c));
    if starts_with_wkt_keyword(t) {
        let wkt = parse_wkt(t);
        if wkt.is_ok() || !could_be_polyline {
            return wkt;
        }
    }
    if let Some(p) = lat_lng(t) {
        return p;
    }
    if t.starts_with('{') && !could_be_polyline {
        return match serde_json::from_str::<serde_json::Value>(t) {
            Ok(serde_json::Value::Object(o)) => {
                crate::parse_geojson_geometry(&o).map_err(|e| format!("GeoJSON geometry: {e}"))
            }
            Ok(_) => Err("GeoJSON geometry: expected an object".to_owned()),
            Err(e) => Err(format!("GeoJSON geometry: not valid JSON: {e}")),
        };
    }
    let why = match decode_polyline(t) {
        Ok(g) => return Ok(g),
        Err(e) => e,
    };
    let shown: String = t.chars().take(40).collect();
    let ellipsis = if t.chars().count() > 40 { "…" } else { "" };
    Err(format!(
        "could not read the geometry {shown:?}{ellipsis}: it is not WKT (it does not start with POINT, LINESTRING, POLYGON…), not `lat,lng` (two numbers separated by a comma), not a GeoJSON object, and not a Google encoded polyline ({why})"
    ))
}

fn starts_with_wkt_keyword(t: &str) -> bool {
    let body = strip_srid(t);
    let head: String = body
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .map(|c| c.to_ascii_uppercase())
        .collect();
    WKT_KEYWORDS.contains(&head.as_str())
}

fn strip_srid(t: &str) -> &str {
    if t.len() > 5
        && t.is_char_boundary(5)
        && t[..5].eq_ignore_ascii_case("SRID=")
        && let Some(i) = t.find(';')
    {
        return t[i + 1..].trim_start();
    }
    t
}

/// `lat,lng`: `Some(Ok)` when the text is two numbers separated by one comma.
fn lat_lng(t: &str) -> Option<Result<Geometry<f64>, String>> {
    let (a, b) = t.split_once(',')?;
    let (a, b) = (a.trim(), b.trim());
    let numeric = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))
            && s.chars().any(|c| c.is_ascii_digit())
    };
    if !numeric(a) || !numeric(b) {
        return None;
    }
    Some(match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(lat), Ok(lng)) => Ok(Geometry::Point(Point::new(lng, lat))),
        _ => Err(format!(
            "`lat,lng`: could not read {a:?} and {b:?} as two decimal numbers"
        )),
    })
}

fn decode_polyline(t: &str) -> Result<Geometry<f64>, String> {
    if let Some(c) = t.chars().find(|c| !('?'..='~').contains(c)) {
        return Err(format!("character {c:?} cannot occur in one"));
    }
    let ls = polyline::decode_polyline(t, 5).map_err(|e| e.to_string())?;
    if let Some(c) =
        ls.0.iter()
            .find(|c| !(-90.0..=90.0).contains(&c.y) || !(-180.0..=180.0).contains(&c.x))
    {
        return Err(format!(
            "it decodes to an impossible position, latitude {} longitude {}",
            c.y, c.x
        ));
    }
    match ls.0.as_slice() {
        [] => Err("it decodes to no position".to_owned()),
        [c] => Ok(Geometry::Point(Point(*c))),
        _ => Ok(Geometry::LineString(ls)),
    }
}

/// Parses WKT (any case, optional EWKT `SRID=…;` prefix, Z/M values dropped), checking
/// that polygon rings are closed and have at least 4 positions before conversion.
pub(crate) fn parse_wkt(t: &str) -> Result<Geometry<f64>, String> {
    let body = strip_srid(t.trim());
    let parsed: Wkt<f64> = body.parse().map_err(|e| format!("WKT: {e}"))?;
    check_wkt_rings(&parsed)?;
    Geometry::try_from(parsed).map_err(|e| format!("WKT: {e}"))
}

fn check_wkt_rings(w: &Wkt<f64>) -> Result<(), String> {
    match w {
        Wkt::Polygon(p) => check_wkt_polygon(p, ""),
        Wkt::MultiPolygon(mp) => mp
            .polygons()
            .iter()
            .enumerate()
            .try_for_each(|(i, p)| check_wkt_polygon(p, &format!("polygon {}: ", i + 1))),
        Wkt::GeometryCollection(gc) => gc.geometries().iter().try_for_each(check_wkt_rings),
        _ => Ok(()),
    }
}

fn check_wkt_polygon(p: &wkt::types::Polygon<f64>, at: &str) -> Result<(), String> {
    for (i, ring) in p.rings().iter().enumerate() {
        let cs = ring.coords();
        let name = if i == 0 {
            "outer ring".to_owned()
        } else {
            format!("hole {i}")
        };
        if let (Some(f), Some(l)) = (cs.first(), cs.last())
            && (f.x != l.x || f.y != l.y)
        {
            return Err(format!(
                "WKT: {at}{name} not closed: first ({} {}) last ({} {}) (the last position must repeat the first)",
                f.x, f.y, l.x, l.y
            ));
        }
        if cs.len() < 4 {
            return Err(format!(
                "WKT: {at}{name} has {} positions; a polygon ring needs at least 4 (the last repeating the first)",
                cs.len()
            ));
        }
    }
    Ok(())
}

/// A Point from `(lng, lat)`; used by the CSV reader.
pub(crate) fn point(lng: f64, lat: f64) -> Geometry<f64> {
    Geometry::Point(Point(Coord { x: lng, y: lat }))
}

/// An encoded polyline of a line, for tests.
#[cfg(test)]
pub(crate) fn encode(ls: &geo_types::LineString<f64>) -> String {
    polyline::encode_coordinates(ls.0.iter().copied(), 5).unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn lat_lng_is_a_point() {
        assert_eq!(
            parse_text_geometry("48.8,2.3").unwrap(),
            Geometry::Point(Point::new(2.3, 48.8))
        );
        assert_eq!(
            parse_text_geometry(" -33.9 , 151.2 ").unwrap(),
            Geometry::Point(Point::new(151.2, -33.9))
        );
    }

    #[test]
    fn wkt_any_case() {
        assert_eq!(
            parse_text_geometry("point(2.3 48.8)").unwrap(),
            Geometry::Point(Point::new(2.3, 48.8))
        );
        assert!(matches!(
            parse_text_geometry("POLYGON((0 0,1 0,1 1,0 0))").unwrap(),
            Geometry::Polygon(_)
        ));
        assert!(matches!(
            parse_text_geometry("SRID=4326;LineString(0 0, 1 1)").unwrap(),
            Geometry::LineString(_)
        ));
        let e = parse_text_geometry("POLYGON((0 0,1 0,1 1))").unwrap_err();
        assert!(e.contains("not closed"), "{e}");
        let e = parse_text_geometry("POINT(1 2").unwrap_err();
        assert!(e.starts_with("WKT"), "{e}");
    }

    #[test]
    fn polyline() {
        // Google's documented example.
        let g = parse_text_geometry("_p~iF~ps|U_ulLnnqC_mqNvxq`@").unwrap();
        let Geometry::LineString(ls) = g else {
            panic!("{g:?}")
        };
        assert_eq!(ls.0.len(), 3);
        assert!((ls.0[0].y - 38.5).abs() < 1e-9 && (ls.0[0].x + 120.2).abs() < 1e-9);
        let round = encode(&ls);
        assert_eq!(round, "_p~iF~ps|U_ulLnnqC_mqNvxq`@");
    }

    #[test]
    fn empty_wkt_is_not_usable() {
        for s in [
            "POINT EMPTY",
            "LINESTRING EMPTY",
            "POLYGON EMPTY",
            "MULTIPOLYGON EMPTY",
        ] {
            if let Ok(g) = parse_text_geometry(s) {
                assert!(crate::problem(&g).is_some(), "{s}: {g:?}");
            }
        }
    }

    #[test]
    fn polylines_that_look_like_json_or_wkt() {
        let mut found = 0;
        for k in 0..20_000 {
            let ls = geo_types::LineString::from(vec![
                (2.0 + f64::from(k) * 1e-4, 48.0 + f64::from(k) * 1e-4),
                (2.5, 48.5),
            ]);
            let enc = encode(&ls);
            if enc.starts_with('{') || enc.starts_with('P') {
                found += 1;
                let g = parse_text_geometry(&enc).unwrap();
                assert!(matches!(g, Geometry::LineString(_)), "{enc}");
            }
        }
        assert!(found > 0);
    }

    #[test]
    fn garbage_names_what_was_tried() {
        for s in [
            "hello world",
            "48.8;2.3",
            "1,2,3",
            "",
            "{\"type\":\"Nope\"}",
        ] {
            let e = parse_text_geometry(s).unwrap_err();
            assert!(!e.is_empty());
        }
        let e = parse_text_geometry("hello world").unwrap_err();
        assert!(
            e.contains("WKT") && e.contains("lat,lng") && e.contains("polyline"),
            "{e}"
        );
    }
}
