//! The stores layer: a customer's stores (the spec's "assets") and the zones attached to them,
//! written into a pack's `stores` and `zones` tables.
//!
//! Stores are a customer's own data, so the layer is built from the customer's file
//! ([`read`]: a GeoJSON FeatureCollection or a CSV with documented columns, see
//! `docs/stores-layer.md`), or, for the sample packs, derived from the pack's OpenStreetMap
//! points of interest ([`osm`]: branded shops, pharmacies, fuel stations, grocers, with a
//! delivery zone for some). Every record is checked ([`StoreAsset::problems`]) before anything
//! is written; a bad record is reported with its feature or line number and skipped, or fails
//! the import in strict mode. The layer is then signed and installed like every other layer.
pub mod osm;
pub mod pack;
pub mod read;
pub mod synthetic;
mod write;

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
pub use waymark_core::stores::hours::{OpeningHours, TimeRange, parse_hhmm};
use waymark_core::stores::zone::zone_polygon;

pub use write::{StoresStats, write_layer};

/// One store, in the asset shape of store-locator platforms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreAsset {
    /// Unique id, `[A-Za-z0-9]+`.
    pub store_id: String,
    /// Display name.
    pub name: String,
    /// Postal address.
    #[serde(default)]
    pub address: AssetAddress,
    /// How to reach the store.
    #[serde(default)]
    pub contact: AssetContact,
    /// Store types (`pharmacy`, `drive`, ...): the `type:` field of the query language.
    #[serde(default)]
    pub types: Vec<String>,
    /// Free tags: the `tag:` field of the query language.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Free properties: text, numbers and booleans (the `user.<name>:` fields).
    #[serde(default)]
    pub user_properties: Map<String, Value>,
    /// Names by language code (`{"fr": "Pharmacie centrale"}`).
    #[serde(default)]
    pub localized_names: BTreeMap<String, String>,
    /// Weekly and special opening hours, in the store's timezone.
    #[serde(default)]
    pub opening_hours: Option<OpeningHours>,
    /// Position.
    pub location: AssetLocation,
    /// Zones attached to the store (delivery areas, catchments).
    #[serde(default)]
    pub zones: Vec<AssetZone>,
}

/// Postal address of a store.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssetAddress {
    /// Street lines.
    #[serde(default)]
    pub lines: Vec<String>,
    /// City.
    #[serde(default)]
    pub city: Option<String>,
    /// Postal code.
    #[serde(default)]
    pub zipcode: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    #[serde(default)]
    pub country_code: Option<String>,
}

/// Contact details of a store.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssetContact {
    /// Phone number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    /// E-mail address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Web site.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
}

/// Position of a store.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssetLocation {
    /// Latitude in degrees.
    pub lat: f64,
    /// Longitude in degrees.
    pub lng: f64,
}

/// A zone attached to a store (the spec's Zone).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AssetZone {
    /// Unique id of the zone.
    pub zone_id: String,
    /// Well-Known Text polygon or multipolygon.
    pub polygon: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Zone types (`delivery`, ...).
    #[serde(default)]
    pub types: Vec<String>,
    /// Status (`active`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// Whether `id` is a valid store id: `[A-Za-z0-9]+`.
pub fn valid_store_id(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The problem of a zone polygon (`None` when it is WKT of a valid polygon or multipolygon).
pub fn polygon_problem(wkt_text: &str) -> Option<String> {
    zone_polygon(wkt_text).err().map(|e| e.to_string())
}

/// `[west, south, east, north]` of a zone polygon (`None` when it is refused).
pub fn polygon_bbox(wkt_text: &str) -> Option<[f64; 4]> {
    use geo::BoundingRect;
    let rect = zone_polygon(wkt_text).ok()?.bounding_rect()?;
    Some([rect.min().x, rect.min().y, rect.max().x, rect.max().y])
}

impl StoreAsset {
    /// Everything wrong with the record (empty when it can be written). `seen_stores` and
    /// `seen_zones` hold the ids of the records already accepted (ids are unique in a layer).
    pub fn problems(
        &self,
        seen_stores: &HashSet<String>,
        seen_zones: &HashSet<String>,
    ) -> Vec<String> {
        let mut out = Vec::new();
        if !valid_store_id(&self.store_id) {
            out.push(format!(
                "`store_id` {:?} must match [A-Za-z0-9]+",
                self.store_id
            ));
        } else if seen_stores.contains(&self.store_id) {
            out.push(format!("`store_id` {:?} is given twice", self.store_id));
        }
        if self.name.trim().is_empty() {
            out.push("`name` is empty".into());
        }
        let AssetLocation { lat, lng } = self.location;
        if !(lat.is_finite() && (-90.0..=90.0).contains(&lat)) {
            out.push(format!(
                "`location.lat` {lat} is not a latitude (-90 to 90)"
            ));
        }
        if !(lng.is_finite() && (-180.0..=180.0).contains(&lng)) {
            out.push(format!(
                "`location.lng` {lng} is not a longitude (-180 to 180)"
            ));
        }
        if let Some(cc) = &self.address.country_code
            && !(cc.len() == 2 && cc.bytes().all(|b| b.is_ascii_alphabetic()))
        {
            out.push(format!(
                "`address.country_code` {cc:?} is not an ISO 3166-1 alpha-2 code"
            ));
        }
        for (name, value) in &self.user_properties {
            if !(value.is_string() || value.is_number() || value.is_boolean()) {
                out.push(format!(
                    "`user_properties.{name}` must be text, a number or a boolean"
                ));
            }
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                out.push(format!(
                    "`user_properties` name {name:?} must match [A-Za-z0-9_]+ (it is queried as `user.<name>`)"
                ));
            }
        }
        if let Some(hours) = &self.opening_hours {
            out.extend(hours.problems());
        }
        let mut zone_ids = HashSet::new();
        for zone in &self.zones {
            if zone.zone_id.trim().is_empty() {
                out.push("a zone has an empty `zone_id`".into());
            } else if seen_zones.contains(&zone.zone_id) || !zone_ids.insert(&zone.zone_id) {
                out.push(format!("zone `{}` is given twice", zone.zone_id));
            }
            if let Some(p) = polygon_problem(&zone.polygon) {
                out.push(format!("zone `{}`: {p}", zone.zone_id));
            }
        }
        out
    }
}

/// A record that was not imported, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordProblem {
    /// Where: `feature 3`, `line 17`.
    pub at: String,
    /// What is wrong (one or more problems joined by `; `).
    pub message: String,
}

impl std::fmt::Display for RecordProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.message)
    }
}

/// Keeps the records without problems, in order, and reports the others.
pub fn check_all(records: Vec<(String, StoreAsset)>) -> (Vec<StoreAsset>, Vec<RecordProblem>) {
    let mut stores = HashSet::new();
    let mut zones = HashSet::new();
    let mut kept = Vec::new();
    let mut problems = Vec::new();
    for (at, asset) in records {
        let found = asset.problems(&stores, &zones);
        if found.is_empty() {
            stores.insert(asset.store_id.clone());
            zones.extend(asset.zones.iter().map(|z| z.zone_id.clone()));
            kept.push(asset);
        } else {
            problems.push(RecordProblem {
                at,
                message: found.join("; "),
            });
        }
    }
    (kept, problems)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn asset(id: &str) -> StoreAsset {
        StoreAsset {
            store_id: id.into(),
            name: "Farmacia".into(),
            address: AssetAddress::default(),
            contact: AssetContact::default(),
            types: vec!["pharmacy".into()],
            tags: vec![],
            user_properties: Map::new(),
            localized_names: BTreeMap::new(),
            opening_hours: None,
            location: AssetLocation {
                lat: 42.5,
                lng: 1.5,
            },
            zones: vec![],
        }
    }

    #[test]
    fn ids_names_positions_and_properties_are_checked() {
        let none = HashSet::new();
        assert!(asset("A1").problems(&none, &none).is_empty());
        let mut bad = asset("A-1");
        bad.name = " ".into();
        bad.location.lat = 91.0;
        bad.user_properties
            .insert("nested".into(), serde_json::json!({"a": 1}));
        bad.address.country_code = Some("AND".into());
        let p = bad.problems(&none, &none).join("\n");
        for want in [
            "[A-Za-z0-9]+",
            "`name` is empty",
            "latitude",
            "nested",
            "alpha-2",
        ] {
            assert!(p.contains(want), "{want} in {p}");
        }
    }

    #[test]
    fn duplicates_are_refused() {
        let (kept, problems) = check_all(vec![
            ("line 2".into(), asset("A1")),
            ("line 3".into(), asset("A1")),
        ]);
        assert_eq!(kept.len(), 1);
        assert_eq!(problems[0].at, "line 3");
        assert!(problems[0].message.contains("twice"));
    }

    #[test]
    fn hours_and_zones_are_checked() {
        let none = HashSet::new();
        let mut a = asset("A1");
        a.opening_hours = Some(OpeningHours {
            timezone: Some("Europe/Nowhere".into()),
            usual: BTreeMap::from([
                (
                    "1".into(),
                    vec![TimeRange {
                        start: "08:00".into(),
                        end: "24:00".into(),
                    }],
                ),
                (
                    "8".into(),
                    vec![TimeRange {
                        start: "20:00".into(),
                        end: "08:00".into(),
                    }],
                ),
            ]),
            special: BTreeMap::from([("2026-13-01".into(), vec![])]),
        });
        a.zones = vec![
            AssetZone {
                zone_id: "Z1".into(),
                polygon: "POLYGON((1.5 42.5, 1.6 42.5, 1.6 42.6, 1.5 42.6, 1.5 42.5))".into(),
                description: None,
                types: vec![],
                status: None,
            },
            AssetZone {
                zone_id: "Z2".into(),
                polygon: "POLYGON((0 0, 1 1, 1 0, 0 1, 0 0))".into(),
                description: None,
                types: vec![],
                status: None,
            },
            AssetZone {
                zone_id: "Z3".into(),
                polygon: "POINT(1 2)".into(),
                description: None,
                types: vec![],
                status: None,
            },
            AssetZone {
                zone_id: "Z4".into(),
                polygon: "POLYGON((1 2".into(),
                description: None,
                types: vec![],
                status: None,
            },
        ];
        let p = a.problems(&none, &none).join("\n");
        assert!(!p.contains("Z1"), "{p}");
        for want in [
            "Europe/Nowhere",
            "\"8\"",
            "ends before",
            "2026-13-01",
            "zone `Z2`: `polygon` is not a valid",
            "zone `Z3`: `polygon` must be",
            "zone `Z4`: `polygon` is not Well-Known",
        ] {
            assert!(p.contains(want), "{want} in {p}");
        }
        assert!(!p.contains("usual.1"), "{p}");
    }
}
