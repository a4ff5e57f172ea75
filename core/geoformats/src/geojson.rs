//! GeoJSON (RFC 7946): geometry objects both ways, Feature objects, and the streaming
//! FeatureCollection reader.
//!
//! Geometries are parsed from `serde_json` values by hand (rather than through the
//! `geojson` crate) so that ring closure is checked on the raw coordinates, before
//! geo-types silently closes rings, and so that errors name the offending member
//! (`coordinates[0][3]: …`).

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use geo_types::{
    Coord, Geometry, GeometryCollection, LineString, MultiLineString, MultiPoint, MultiPolygon,
    Point, Polygon,
};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value, json};

use crate::crs::Reprojector;
use crate::{FormatError, Output};

/// Deepest GeometryCollection nesting accepted.
const MAX_DEPTH: u32 = 32;

/// Parses a GeoJSON geometry object (Point, LineString, Polygon, MultiPoint,
/// MultiLineString, MultiPolygon, GeometryCollection) given as a JSON map, checking ring
/// closure on the raw coordinates. Errors say which part is wrong, e.g.
/// `coordinates[0]: ring not closed: first [1,2] last [3,4]`. Extra coordinate values
/// (altitude) are ignored. Range and validity checks are [`problem`](crate::problem)'s job.
pub fn parse_geojson_geometry(obj: &Map<String, Value>) -> Result<Geometry<f64>, String> {
    geometry(obj, 0)
}

fn geometry(obj: &Map<String, Value>, depth: u32) -> Result<Geometry<f64>, String> {
    let ty = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(other) => return Err(format!("type: expected a string, found {}", kind(other))),
        None => return Err("type: missing (a geometry object needs a \"type\")".to_owned()),
    };
    if ty == "GeometryCollection" {
        if depth >= MAX_DEPTH {
            return Err(format!(
                "geometries: collections nested deeper than {MAX_DEPTH}"
            ));
        }
        let Some(Value::Array(items)) = obj.get("geometries") else {
            return Err("geometries: missing or not an array".to_owned());
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let Value::Object(o) = item else {
                return Err(format!(
                    "geometries[{i}]: expected a geometry object, found {}",
                    kind(item)
                ));
            };
            out.push(geometry(o, depth + 1).map_err(|e| format!("geometries[{i}].{e}"))?);
        }
        return Ok(Geometry::GeometryCollection(GeometryCollection(out)));
    }
    let c = match obj.get("coordinates") {
        Some(c) => c,
        None => return Err(format!("coordinates: missing in the {ty} object")),
    };
    let at = "coordinates";
    Ok(match ty {
        "Point" => Geometry::Point(Point(position(c, at)?)),
        "LineString" => Geometry::LineString(LineString(positions(c, at)?)),
        "Polygon" => Geometry::Polygon(polygon(c, at)?),
        "MultiPoint" => Geometry::MultiPoint(MultiPoint(
            array(c, at)?
                .iter()
                .enumerate()
                .map(|(i, p)| position(p, &format!("{at}[{i}]")).map(Point))
                .collect::<Result<_, _>>()?,
        )),
        "MultiLineString" => Geometry::MultiLineString(MultiLineString(
            array(c, at)?
                .iter()
                .enumerate()
                .map(|(i, l)| positions(l, &format!("{at}[{i}]")).map(LineString))
                .collect::<Result<_, _>>()?,
        )),
        "MultiPolygon" => Geometry::MultiPolygon(MultiPolygon(
            array(c, at)?
                .iter()
                .enumerate()
                .map(|(i, p)| polygon(p, &format!("{at}[{i}]")))
                .collect::<Result<_, _>>()?,
        )),
        "Feature" | "FeatureCollection" => {
            return Err(format!(
                "type: expected a geometry (Point, LineString, Polygon, Multi…), found a {ty}"
            ));
        }
        other => {
            return Err(format!(
                "type: unknown geometry type {other:?} (expected Point, LineString, Polygon, MultiPoint, MultiLineString, MultiPolygon or GeometryCollection)"
            ));
        }
    })
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn array<'a>(v: &'a Value, at: &str) -> Result<&'a [Value], String> {
    match v {
        Value::Array(a) => Ok(a),
        other => Err(format!("{at}: expected an array, found {}", kind(other))),
    }
}

fn position(v: &Value, at: &str) -> Result<Coord<f64>, String> {
    let a = array(v, at)?;
    if a.len() < 2 {
        return Err(format!(
            "{at}: a position needs at least 2 numbers [longitude, latitude], found {}",
            a.len()
        ));
    }
    let num = |i: usize| -> Result<f64, String> {
        a[i].as_f64()
            .ok_or_else(|| format!("{at}[{i}]: expected a number, found {}", kind(&a[i])))
    };
    Ok(Coord {
        x: num(0)?,
        y: num(1)?,
    })
}

fn positions(v: &Value, at: &str) -> Result<Vec<Coord<f64>>, String> {
    array(v, at)?
        .iter()
        .enumerate()
        .map(|(i, p)| position(p, &format!("{at}[{i}]")))
        .collect()
}

fn polygon(v: &Value, at: &str) -> Result<Polygon<f64>, String> {
    let mut rings = Vec::new();
    for (i, r) in array(v, at)?.iter().enumerate() {
        let ring_at = format!("{at}[{i}]");
        let coords = positions(r, &ring_at)?;
        if let (Some(first), Some(last)) = (coords.first(), coords.last())
            && first != last
        {
            return Err(format!(
                "{ring_at}: ring not closed: first [{},{}] last [{},{}] (the last position must repeat the first)",
                first.x, first.y, last.x, last.y
            ));
        }
        if coords.len() < 4 {
            return Err(format!(
                "{ring_at}: ring has {} positions; a polygon ring needs at least 4 (the last one repeating the first)",
                coords.len()
            ));
        }
        rings.push(LineString(coords));
    }
    let mut rings = rings.into_iter();
    let exterior = rings.next().unwrap_or_else(|| LineString(Vec::new()));
    Ok(Polygon::new(exterior, rings.collect()))
}

/// GeoJSON geometry object of `g`.
///
/// `Line` is written as a LineString, `Rect` and `Triangle` as Polygons, non-finite
/// coordinates as `null`. Member order: the value holds `type` and `coordinates` (or
/// `geometries`), but a `serde_json::Map` without serde_json's `preserve_order` feature
/// (off in this workspace) serializes its keys alphabetically, so `coordinates` comes out
/// first; use [`to_geojson_string`] for text in the RFC 7946 order.
pub fn to_geojson(g: &Geometry<f64>) -> Value {
    let (ty, body) = parts(g);
    let mut m = Map::new();
    m.insert("type".to_owned(), Value::from(ty));
    let key = if ty == "GeometryCollection" {
        "geometries"
    } else {
        "coordinates"
    };
    m.insert(key.to_owned(), body);
    Value::Object(m)
}

/// GeoJSON geometry object of `g` as compact JSON text with the RFC 7946 member order:
/// `{"type":…,"coordinates":…}` (`"geometries"` for a GeometryCollection).
pub fn to_geojson_string(g: &Geometry<f64>) -> String {
    let mut out = String::new();
    write_geojson(g, &mut out);
    out
}

fn write_geojson(g: &Geometry<f64>, out: &mut String) {
    out.push_str("{\"type\":\"");
    if let Geometry::GeometryCollection(gc) = g {
        out.push_str("GeometryCollection\",\"geometries\":[");
        for (i, m) in gc.0.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_geojson(m, out);
        }
        out.push_str("]}");
        return;
    }
    let (ty, body) = parts(g);
    out.push_str(ty);
    out.push_str("\",\"coordinates\":");
    out.push_str(&body.to_string());
    out.push('}');
}

/// The type name and the `coordinates` (or `geometries`) member of `g`.
fn parts(g: &Geometry<f64>) -> (&'static str, Value) {
    match g {
        Geometry::Point(p) => ("Point", pos(p.0)),
        Geometry::Line(l) => ("LineString", json!([pos(l.start), pos(l.end)])),
        Geometry::LineString(ls) => ("LineString", line(ls)),
        Geometry::Polygon(p) => ("Polygon", poly(p)),
        Geometry::MultiPoint(mp) => (
            "MultiPoint",
            Value::Array(mp.0.iter().map(|p| pos(p.0)).collect()),
        ),
        Geometry::MultiLineString(mls) => (
            "MultiLineString",
            Value::Array(mls.0.iter().map(line).collect()),
        ),
        Geometry::MultiPolygon(mp) => (
            "MultiPolygon",
            Value::Array(mp.0.iter().map(poly).collect()),
        ),
        Geometry::Rect(r) => ("Polygon", poly(&r.to_polygon())),
        Geometry::Triangle(t) => ("Polygon", poly(&t.to_polygon())),
        Geometry::GeometryCollection(gc) => (
            "GeometryCollection",
            Value::Array(gc.0.iter().map(to_geojson).collect()),
        ),
    }
}

fn num(v: f64) -> Value {
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}

fn pos(c: Coord<f64>) -> Value {
    Value::Array(vec![num(c.x), num(c.y)])
}

fn line(ls: &LineString<f64>) -> Value {
    Value::Array(ls.0.iter().map(|c| pos(*c)).collect())
}

fn poly(p: &Polygon<f64>) -> Value {
    if p.exterior().0.is_empty() {
        return Value::Array(Vec::new());
    }
    Value::Array(
        std::iter::once(p.exterior())
            .chain(p.interiors())
            .map(line)
            .collect(),
    )
}

/// What one JSON value turned out to be, as a feature.
pub(crate) enum Parsed {
    /// A usable-looking feature (not yet checked with `problem`).
    Feature {
        source_id: Option<String>,
        geometry: Geometry<f64>,
        attributes: Map<String, Value>,
    },
    /// A feature-shaped value that cannot be used: the reason.
    Skip(String),
    /// Not a Feature or geometry object at all.
    NotFeature(String),
}

/// Interprets a Feature object, or a bare geometry object (as a feature without id or
/// properties).
pub(crate) fn parse_feature(obj: &Map<String, Value>) -> Parsed {
    let ty = match obj.get("type") {
        Some(Value::String(t)) => t.as_str(),
        _ => return Parsed::NotFeature("the object has no \"type\" string".to_owned()),
    };
    if ty != "Feature" {
        if matches!(
            ty,
            "Point"
                | "LineString"
                | "Polygon"
                | "MultiPoint"
                | "MultiLineString"
                | "MultiPolygon"
                | "GeometryCollection"
        ) {
            return match geometry(obj, 0) {
                Ok(g) => Parsed::Feature {
                    source_id: None,
                    geometry: g,
                    attributes: Map::new(),
                },
                Err(e) => Parsed::Skip(format!("geometry {e}")),
            };
        }
        return Parsed::NotFeature(format!(
            "\"type\" is {ty:?}, expected \"Feature\" or a geometry type"
        ));
    }
    let source_id = match obj.get("id") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let attributes = match obj.get("properties") {
        Some(Value::Object(m)) => m.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(other) => {
            return Parsed::Skip(format!(
                "properties must be an object or null, found {}",
                kind(other)
            ));
        }
    };
    let geometry = match obj.get("geometry") {
        Some(Value::Object(g)) => match geometry(g, 0) {
            Ok(g) => g,
            Err(e) => return Parsed::Skip(format!("geometry.{e}")),
        },
        None | Some(Value::Null) => {
            return Parsed::Skip("the feature has no geometry (null)".to_owned());
        }
        Some(other) => {
            return Parsed::Skip(format!("geometry must be an object, found {}", kind(other)));
        }
    };
    Parsed::Feature {
        source_id,
        geometry,
        attributes,
    }
}

/// Hands one parsed value to the output (features checked with `problem`).
pub(crate) fn emit_parsed(out: &mut Output<'_>, index: u64, parsed: Parsed) -> Result<(), String> {
    match parsed {
        Parsed::Feature {
            source_id,
            geometry,
            attributes,
        } => out.feature(index, source_id, geometry, attributes),
        Parsed::Skip(reason) | Parsed::NotFeature(reason) => out.skip(index, reason),
    }
}

/// Marker in a serde error meaning "the sink asked to stop" (the sink's message is kept
/// in the reader state).
const STOP: &str = "\u{0}waymark-geoformats: sink stopped\u{0}";

struct State<'o, 'a> {
    out: &'o mut Output<'a>,
    /// Why the read was aborted from inside the visitor (sink stop, unsupported crs).
    stopped: Option<FormatError>,
    saw_features: bool,
}

/// The reprojection a (pre-RFC 7946) `crs` member calls for: `None` for WGS 84 longitude /
/// latitude or a `crs` without a name; a system named by EPSG code is reprojected, any other
/// refused by name.
fn crs_reprojector(crs: &Value) -> Result<Option<Reprojector>, FormatError> {
    let Some(name) = crs
        .get("properties")
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
    else {
        return Ok(None);
    };
    Reprojector::from_crs_name(name).map_err(FormatError::Unsupported)
}

/// The top-level object: streams `features`, collects the other members.
struct TopSeed<'s, 'o, 'a>(&'s mut State<'o, 'a>);

impl<'de> DeserializeSeed<'de> for TopSeed<'_, '_, '_> {
    type Value = Map<String, Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_, '_, '_> {
    type Value = Map<String, Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a GeoJSON object (FeatureCollection, Feature or geometry)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut rest = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "features" && !self.0.saw_features {
                self.0.saw_features = true;
                map.next_value_seed(FeaturesSeed(self.0))?;
            } else {
                let v: Value = map.next_value()?;
                if key == "crs" {
                    match crs_reprojector(&v) {
                        Ok(None) => {}
                        // Features already read were taken as WGS 84: a crs after them
                        // cannot be honoured.
                        Ok(Some(r)) if self.0.saw_features => {
                            self.0.stopped = Some(FormatError::Unsupported(format!(
                                "the GeoJSON names its coordinate system {} after its \"features\"; put the \"crs\" member before \"features\" (as GDAL writes it) or reproject the file to EPSG:4326",
                                r.name()
                            )));
                            return Err(de::Error::custom(STOP));
                        }
                        Ok(Some(r)) => self.0.out.reproject = Some(r),
                        Err(e) => {
                            self.0.stopped = Some(e);
                            return Err(de::Error::custom(STOP));
                        }
                    }
                }
                rest.insert(key, v);
            }
        }
        Ok(rest)
    }
}

struct FeaturesSeed<'s, 'o, 'a>(&'s mut State<'o, 'a>);

impl<'de> DeserializeSeed<'de> for FeaturesSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FeaturesSeed<'_, '_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of Feature objects for \"features\"")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0u64;
        while let Some(v) = seq.next_element::<Value>()? {
            index += 1;
            let parsed = match &v {
                Value::Object(o) => match parse_feature(o) {
                    Parsed::NotFeature(r) => Parsed::Skip(format!("not a Feature object: {r}")),
                    p => p,
                },
                other => Parsed::Skip(format!("expected a Feature object, found {}", kind(other))),
            };
            drop(v);
            if let Err(e) = emit_parsed(self.0.out, index, parsed) {
                self.0.stopped = Some(FormatError::Stopped(e));
                return Err(de::Error::custom(STOP));
            }
        }
        Ok(())
    }
}

/// Streams a GeoJSON file: a FeatureCollection (feature by feature), a single Feature or
/// a bare geometry. A legacy `crs` member naming a system by EPSG code before `features` has
/// the features reprojected to WGS 84; one naming another system, or coming after
/// `features` (whose features have been handed over as WGS 84 already), is refused.
pub(crate) fn read(path: &Path, out: &mut Output<'_>) -> Result<(), FormatError> {
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path)?);
    // A UTF-8 byte order mark (written by some Windows tools) is not JSON: skip it.
    if reader.fill_buf()?.starts_with(b"\xEF\xBB\xBF") {
        reader.consume(3);
    }
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut state = State {
        out,
        stopped: None,
        saw_features: false,
    };
    let result = TopSeed(&mut state)
        .deserialize(&mut de)
        .and_then(|rest| de.end().map(|()| rest));
    let rest = match result {
        Ok(rest) => rest,
        Err(e) => {
            if let Some(e) = state.stopped.take() {
                return Err(e);
            }
            return Err(json_error(&e));
        }
    };
    let ty = rest.get("type").and_then(Value::as_str);
    if state.saw_features {
        return match ty {
            Some("FeatureCollection") | None => Ok(()),
            Some(t) => Err(FormatError::Invalid(format!(
                "not a GeoJSON FeatureCollection: the top-level object has \"features\" but \"type\" is {t:?}"
            ))),
        };
    }
    match ty {
        Some("FeatureCollection") => Err(FormatError::Invalid(
            "GeoJSON FeatureCollection without a \"features\" array".to_owned(),
        )),
        None => Err(FormatError::Invalid(
            "not GeoJSON: the top-level object has no \"type\" member (expected a FeatureCollection, Feature or geometry)".to_owned(),
        )),
        Some(_) => match parse_feature(&rest) {
            Parsed::NotFeature(r) => Err(FormatError::Invalid(format!("not GeoJSON: {r}"))),
            p => emit_parsed(state.out, 1, p).map_err(FormatError::Stopped),
        },
    }
}

/// A user-facing message for a serde_json error while reading a file.
pub(crate) fn json_error(e: &serde_json::Error) -> FormatError {
    use serde_json::error::Category;
    let at = format!("line {} column {}", e.line(), e.column());
    match e.classify() {
        Category::Io => FormatError::Invalid(format!("could not read the file: {e}")),
        Category::Eof => FormatError::Invalid(format!(
            "the GeoJSON ends early at {at}: the file looks truncated (an incomplete download?); fetch it again"
        )),
        Category::Syntax => FormatError::Invalid(format!(
            "not valid JSON at {at}: {}",
            strip_position(&e.to_string())
        )),
        Category::Data => FormatError::Invalid(format!(
            "not GeoJSON at {at}: {}",
            strip_position(&e.to_string())
        )),
    }
}

fn strip_position(s: &str) -> &str {
    s.find(" at line ").map_or(s, |i| &s[..i])
}
