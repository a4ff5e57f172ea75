//! Reading a customer's stores file: a GeoJSON FeatureCollection or a CSV.
//!
//! **GeoJSON**: one Feature per store, a Point geometry (the position) and the
//! [`StoreAsset`] fields as properties (`store_id`, `name`, `address`, `contact`, `types`,
//! `tags`, `user_properties`, `localized_names`, `opening_hours`, `zones`); unknown properties
//! are refused, not ignored.
//!
//! **CSV** (comma-separated, a header row, UTF-8): the columns of [`CSV_COLUMNS`]; lists are
//! joined by `|`, free-form columns hold JSON. Zones come in a second CSV ([`ZONE_COLUMNS`]),
//! each row naming its store.
//!
//! Every reader returns the records it could read, each with where it came from (`feature 3`,
//! `line 17`), and the problems of the ones it could not; [`super::check_all`] then checks
//! the records themselves.
use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{AssetAddress, AssetContact, AssetLocation, AssetZone, RecordProblem, StoreAsset};

/// Records read, each with its place in the file, and the problems of unreadable ones.
pub type Read = (Vec<(String, StoreAsset)>, Vec<RecordProblem>);

/// The columns of a stores CSV: `store_id`, `name`, `lat` and `lng` are required; the others
/// may be absent or empty.
pub const CSV_COLUMNS: &[&str] = &[
    "store_id",
    "name",
    "lat",
    "lng",
    "address_lines",
    "city",
    "zipcode",
    "country_code",
    "phone",
    "email",
    "website",
    "types",
    "tags",
    "user_properties",
    "localized_names",
    "opening_hours",
];

/// The columns of a zones CSV: `zone_id`, `store_id` and `polygon` (WKT) are required.
pub const ZONE_COLUMNS: &[&str] = &[
    "zone_id",
    "store_id",
    "polygon",
    "description",
    "types",
    "status",
];

fn problem(at: impl Into<String>, message: impl Into<String>) -> RecordProblem {
    RecordProblem {
        at: at.into(),
        message: message.into(),
    }
}

/// A FeatureCollection, its features left unparsed (each is read on its own, so that a bad
/// one is reported with its number and the others still read).
#[derive(serde::Deserialize)]
struct RawCollection<'a> {
    #[serde(rename = "type")]
    kind: String,
    #[serde(borrow, default)]
    features: Vec<&'a serde_json::value::RawValue>,
}

/// A Feature: its geometry and properties.
#[derive(serde::Deserialize)]
struct RawFeature {
    #[serde(default)]
    geometry: Option<RawGeometry>,
    #[serde(default)]
    properties: Option<Map<String, Value>>,
}

/// A geometry: its type and coordinates.
#[derive(serde::Deserialize)]
struct RawGeometry {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    coordinates: Vec<Value>,
}

/// Reads a GeoJSON FeatureCollection of stores. A file that is not a FeatureCollection is one
/// problem at `file`.
pub fn geojson(text: &str) -> Read {
    let collection = match serde_json::from_str::<RawCollection<'_>>(text) {
        Ok(c) if c.kind == "FeatureCollection" => c,
        Ok(_) => {
            return (
                Vec::new(),
                vec![problem("file", "expected a GeoJSON FeatureCollection")],
            );
        }
        Err(e) => {
            return (
                Vec::new(),
                vec![problem("file", format!("not GeoJSON: {e}"))],
            );
        }
    };
    let mut records = Vec::with_capacity(collection.features.len());
    let mut problems = Vec::new();
    for (i, raw) in collection.features.into_iter().enumerate() {
        let at = format!("feature {}", i + 1);
        let feature = match serde_json::from_str::<RawFeature>(raw.get()) {
            Ok(f) => f,
            Err(e) => {
                problems.push(problem(at, format!("not a GeoJSON Feature: {e}")));
                continue;
            }
        };
        let point = match feature.geometry {
            Some(RawGeometry { kind, coordinates })
                if kind == "Point" && (2..=3).contains(&coordinates.len()) =>
            {
                match (coordinates[0].as_f64(), coordinates[1].as_f64()) {
                    (Some(lng), Some(lat)) => AssetLocation { lat, lng },
                    _ => {
                        problems.push(problem(at, "the geometry must be a Point [lng, lat]"));
                        continue;
                    }
                }
            }
            _ => {
                problems.push(problem(at, "the geometry must be a Point [lng, lat]"));
                continue;
            }
        };
        let mut properties = feature.properties.unwrap_or_default();
        properties.insert(
            "location".into(),
            serde_json::json!({"lat": point.lat, "lng": point.lng}),
        );
        match serde_json::from_value::<StoreAsset>(Value::Object(properties)) {
            Ok(asset) => records.push((at, asset)),
            Err(e) => problems.push(problem(at, format!("properties: {e}"))),
        }
    }
    (records, problems)
}

/// Reads a stores CSV and, optionally, a zones CSV whose rows attach zones to its stores.
pub fn csv(stores: &str, zones: Option<&str>) -> Read {
    let mut records = Vec::new();
    let mut problems = Vec::new();
    let store_rows = match rows(stores, CSV_COLUMNS, &["store_id", "name", "lat", "lng"]) {
        Ok((rows, unreadable)) => {
            problems.extend(unreadable);
            rows
        }
        Err(p) => return (Vec::new(), vec![p]),
    };
    for (line, row) in store_rows {
        let at = format!("line {line}");
        match store_from_row(&row) {
            Ok(asset) => records.push((at, asset)),
            Err(message) => problems.push(problem(at, message)),
        }
    }
    if let Some(zones) = zones {
        match rows(zones, ZONE_COLUMNS, &["zone_id", "store_id", "polygon"]) {
            Err(p) => problems.push(RecordProblem {
                at: format!("zones {}", p.at),
                message: p.message,
            }),
            Ok((rows, unreadable)) => {
                problems.extend(unreadable.into_iter().map(|p| RecordProblem {
                    at: format!("zones {}", p.at),
                    message: p.message,
                }));
                for (line, row) in rows {
                    let store_id = row.get("store_id").cloned().unwrap_or_default();
                    let Some((_, asset)) = records.iter_mut().find(|(_, a)| a.store_id == store_id)
                    else {
                        problems.push(problem(
                            format!("zones line {line}"),
                            format!("no store `{store_id}` in the stores file"),
                        ));
                        continue;
                    };
                    asset.zones.push(AssetZone {
                        zone_id: row.get("zone_id").cloned().unwrap_or_default(),
                        polygon: row.get("polygon").cloned().unwrap_or_default(),
                        description: non_empty(&row, "description"),
                        types: list(&row, "types"),
                        status: non_empty(&row, "status"),
                    });
                }
            }
        }
    }
    (records, problems)
}

type Row = BTreeMap<String, String>;

/// Rows read, numbered by line, and the problems of the rows that could not be read.
type Rows = (Vec<(u64, Row)>, Vec<RecordProblem>);

/// The rows of a CSV as column → value, numbered by their line in the file (the header is
/// line 1), and the problems of the rows that could not be read: a row whose number of fields
/// differs from the header's is reported with its line and skipped (the rows after it are
/// still read). Unknown or missing required columns are one problem at `header`.
fn rows(text: &str, known: &[&str], required: &[&str]) -> Result<Rows, RecordProblem> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(true)
        .from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| problem("header", format!("unreadable CSV header: {e}")))?
        .iter()
        .map(str::to_owned)
        .collect();
    let unknown: Vec<&String> = header
        .iter()
        .filter(|h| !known.contains(&h.as_str()))
        .collect();
    if !unknown.is_empty() {
        return Err(problem(
            "header",
            format!(
                "unknown columns {unknown:?}; the columns are {}",
                known.join(", ")
            ),
        ));
    }
    let missing: Vec<&&str> = required
        .iter()
        .filter(|r| !header.iter().any(|h| h == **r))
        .collect();
    if !missing.is_empty() {
        return Err(problem(
            "header",
            format!("missing required columns {missing:?}"),
        ));
    }
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for record in reader.records() {
        match record {
            Ok(record) => {
                let line = record.position().map_or(0, |p| p.line());
                if record.len() != header.len() {
                    problems.push(problem(
                        format!("line {line}"),
                        format!(
                            "{} fields where the header has {} (a comma inside a value must be quoted)",
                            record.len(),
                            header.len()
                        ),
                    ));
                    continue;
                }
                let row = header
                    .iter()
                    .cloned()
                    .zip(record.iter().map(str::to_owned))
                    .collect();
                out.push((line, row));
            }
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                problems.push(problem(
                    format!("line {line}"),
                    format!("unreadable CSV: {e}"),
                ));
            }
        }
    }
    Ok((out, problems))
}

fn non_empty(row: &Row, column: &str) -> Option<String> {
    row.get(column).filter(|v| !v.is_empty()).cloned()
}

fn list(row: &Row, column: &str) -> Vec<String> {
    non_empty(row, column)
        .map(|v| {
            v.split('|')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

fn json_column<T: serde::de::DeserializeOwned + Default>(
    row: &Row,
    column: &str,
) -> Result<T, String> {
    match non_empty(row, column) {
        None => Ok(T::default()),
        Some(text) => serde_json::from_str(&text)
            .map_err(|e| format!("`{column}` is not valid JSON of the documented shape: {e}")),
    }
}

fn number(row: &Row, column: &str) -> Result<f64, String> {
    let text = row.get(column).map(String::as_str).unwrap_or_default();
    text.parse::<f64>()
        .map_err(|_| format!("`{column}` {text:?} is not a number"))
}

fn store_from_row(row: &Row) -> Result<StoreAsset, String> {
    let mut errors = Vec::new();
    let mut take = |r: Result<f64, String>| r.map_err(|e| errors.push(e)).unwrap_or(f64::NAN);
    let lat = take(number(row, "lat"));
    let lng = take(number(row, "lng"));
    let user_properties: Map<String, Value> =
        json_column(row, "user_properties").unwrap_or_else(|e| {
            errors.push(e);
            Map::new()
        });
    let localized_names: BTreeMap<String, String> = json_column(row, "localized_names")
        .unwrap_or_else(|e| {
            errors.push(e);
            BTreeMap::new()
        });
    let opening_hours = match non_empty(row, "opening_hours") {
        None => None,
        Some(text) => match serde_json::from_str(&text) {
            Ok(h) => Some(h),
            Err(e) => {
                errors.push(format!(
                    "`opening_hours` is not valid JSON of the documented shape: {e}"
                ));
                None
            }
        },
    };
    if !errors.is_empty() {
        return Err(errors.join("; "));
    }
    Ok(StoreAsset {
        store_id: row.get("store_id").cloned().unwrap_or_default(),
        name: row.get("name").cloned().unwrap_or_default(),
        address: AssetAddress {
            lines: list(row, "address_lines"),
            city: non_empty(row, "city"),
            zipcode: non_empty(row, "zipcode"),
            country_code: non_empty(row, "country_code"),
        },
        contact: AssetContact {
            phone: non_empty(row, "phone"),
            email: non_empty(row, "email"),
            website: non_empty(row, "website"),
        },
        types: list(row, "types"),
        tags: list(row, "tags"),
        user_properties,
        localized_names,
        opening_hours,
        location: AssetLocation { lat, lng },
        zones: Vec::new(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn geojson_features_become_assets_and_bad_ones_are_located() {
        let text = r#"{"type": "FeatureCollection", "features": [
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1.52, 42.51]},
           "properties": {"store_id": "AD1", "name": "Farmacia Central",
             "address": {"lines": ["Av. Meritxell 10"], "city": "Andorra la Vella", "zipcode": "AD500", "country_code": "AD"},
             "types": ["pharmacy"], "tags": ["24h"], "user_properties": {"rating": 4.5, "parking": true},
             "opening_hours": {"timezone": "Europe/Andorra", "usual": {"default": [{"start": "09:00", "end": "20:00"}]}, "special": {"2026-12-25": []}},
             "zones": [{"zone_id": "AD1Z", "polygon": "POLYGON((1.5 42.5, 1.55 42.5, 1.55 42.55, 1.5 42.55, 1.5 42.5))", "types": ["delivery"]}]}},
          {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[1, 2], [3, 4]]}, "properties": {}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1.5, 42.5]}, "properties": {"store_id": "AD2", "name": "X", "colour": "red"}}
        ]}"#;
        let (records, problems) = geojson(text);
        assert_eq!(records.len(), 1);
        let (at, a) = &records[0];
        assert_eq!(at, "feature 1");
        assert_eq!(
            a.location,
            AssetLocation {
                lat: 42.51,
                lng: 1.52
            }
        );
        assert_eq!(a.zones[0].zone_id, "AD1Z");
        assert_eq!(problems.len(), 2);
        assert_eq!(problems[0].at, "feature 2");
        assert!(problems[0].message.contains("Point"));
        assert_eq!(problems[1].at, "feature 3");
        assert!(
            problems[1].message.contains("colour"),
            "{}",
            problems[1].message
        );
        assert_eq!(geojson("[1, 2]").1[0].at, "file");
    }

    #[test]
    fn csv_rows_and_zones() {
        let stores = "store_id,name,lat,lng,address_lines,city,types,user_properties,opening_hours\n\
            AD1,Farmacia Central,42.51,1.52,Av. Meritxell 10|2n pis,Andorra la Vella,pharmacy|drive,\"{\"\"rating\"\": 4}\",\n\
            AD2,Bad,north,1.5,,,,,\n\
            AD3,Bad JSON,42.5,1.5,,,,{oops,\n";
        let zones = "zone_id,store_id,polygon,types\n\
            Z1,AD1,\"POLYGON((1.5 42.5, 1.55 42.5, 1.55 42.55, 1.5 42.5))\",delivery\n\
            Z2,NOPE,\"POLYGON((1.5 42.5, 1.55 42.5, 1.55 42.55, 1.5 42.5))\",\n";
        let (records, problems) = csv(stores, Some(zones));
        assert_eq!(records.len(), 1);
        let a = &records[0].1;
        assert_eq!(a.address.lines, vec!["Av. Meritxell 10", "2n pis"]);
        assert_eq!(a.types, vec!["pharmacy", "drive"]);
        assert_eq!(a.user_properties["rating"], 4);
        assert_eq!(a.zones.len(), 1);
        let at: Vec<&str> = problems.iter().map(|p| p.at.as_str()).collect();
        assert_eq!(at, ["line 3", "line 4", "zones line 3"]);
        assert!(problems[0].message.contains("`lat` \"north\""));
        assert!(problems[1].message.contains("user_properties"));
        let (_, header) = csv("store_id,name,lat,lng,color\n", None);
        assert!(header[0].message.contains("color"), "{}", header[0].message);
        let (_, missing) = csv("store_id,name\n", None);
        assert!(missing[0].message.contains("lat"));
    }

    #[test]
    fn a_row_with_a_wrong_field_count_is_located_and_skipped() {
        let stores = "store_id,name,lat,lng\n\
            AD1,Farmacia,42.51,1.52\n\
            AD2,Farmacia, Centre,42.5,1.5\n\
            AD3,Short,42.5\n\
            AD4,Super,42.52,1.53\n";
        let zones = "zone_id,store_id,polygon\n\
            Z1,AD1,POLYGON((1.5 42.5, 1.55 42.5, 1.55 42.55, 1.5 42.5))\n\
            Z2,AD4,\"POLYGON((1.5 42.5, 1.55 42.5, 1.55 42.55, 1.5 42.5))\"\n";
        let (records, problems) = csv(stores, Some(zones));
        let ids: Vec<&str> = records.iter().map(|(_, a)| a.store_id.as_str()).collect();
        assert_eq!(ids, ["AD1", "AD4"]);
        let at: Vec<&str> = problems.iter().map(|p| p.at.as_str()).collect();
        assert_eq!(at, ["line 3", "line 4", "zones line 2"]);
        assert!(
            problems[0]
                .message
                .contains("5 fields where the header has 4")
        );
        assert!(
            problems[1]
                .message
                .contains("3 fields where the header has 4")
        );
        assert_eq!(records[1].1.zones.len(), 1);
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        /// A stores row: good, or with a field too many or too few.
        #[derive(Debug, Clone, Copy)]
        enum RowKind {
            Good,
            Extra,
            Missing,
        }

        fn kind() -> impl Strategy<Value = RowKind> {
            prop_oneof![
                3 => Just(RowKind::Good),
                1 => Just(RowKind::Extra),
                1 => Just(RowKind::Missing),
            ]
        }

        proptest! {
            /// Every good row is read, every broken one reported with its own line, whatever
            /// their order.
            #[test]
            fn broken_rows_are_reported_by_line_and_the_others_read(
                kinds in proptest::collection::vec(kind(), 0..40),
                names in proptest::collection::vec("[A-Za-z ]{1,12}", 40),
            ) {
                let mut text = String::from("store_id,name,lat,lng,city\n");
                let mut want_ids = Vec::new();
                let mut want_lines = Vec::new();
                for (i, k) in kinds.iter().enumerate() {
                    let name = names[i].trim();
                    let name = if name.is_empty() { "X" } else { name };
                    match k {
                        RowKind::Good => {
                            text.push_str(&format!("S{i},{name},42.5,1.5,Andorra\n"));
                            want_ids.push(format!("S{i}"));
                        }
                        RowKind::Extra => {
                            text.push_str(&format!("S{i},{name},42.5,1.5,Andorra,extra\n"));
                            want_lines.push(format!("line {}", i + 2));
                        }
                        RowKind::Missing => {
                            text.push_str(&format!("S{i},{name},42.5\n"));
                            want_lines.push(format!("line {}", i + 2));
                        }
                    }
                }
                let (records, problems) = csv(&text, None);
                let ids: Vec<String> = records.iter().map(|(_, a)| a.store_id.clone()).collect();
                prop_assert_eq!(ids, want_ids);
                let lines: Vec<String> = problems.iter().map(|p| p.at.clone()).collect();
                prop_assert_eq!(lines, want_lines);
            }

            /// Any text: the reader answers (records and problems), never panics, and every
            /// problem names a place.
            #[test]
            fn any_text_is_read_or_reported(text in "(store_id,name,lat,lng\n)?[ -~\n\"]{0,200}") {
                let (_, problems) = csv(&text, Some(&text));
                for p in problems {
                    prop_assert!(!p.at.is_empty());
                }
            }
        }
    }
}
