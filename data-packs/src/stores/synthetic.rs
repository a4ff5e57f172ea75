//! Generated stores for load tests and benchmarks: a retail network of `n` stores spread over
//! a box, in the asset shape a customer imports (types, tags, user properties, localized
//! names, weekly and special opening hours, a delivery zone of 1–3 km per store), reproducible
//! from a seed. `waymark-packs generate-stores` writes them as GeoJSON.
use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::{
    AssetAddress, AssetContact, AssetLocation, AssetZone, OpeningHours, StoreAsset, TimeRange,
};

/// The box the generated stores fill: `[west, south, east, north]` in degrees.
pub type Bbox = [f64; 4];

/// South-western Europe around Andorra (about 400 × 550 km).
pub const DEFAULT_BBOX: Bbox = [-1.0, 41.0, 4.0, 45.0];

/// Store types, most frequent first.
pub const TYPES: &[&str] = &[
    "grocery",
    "pharmacy",
    "fuel",
    "bakery",
    "clothes",
    "electronics",
    "hardware",
    "optician",
];

const TAGS: &[&str] = &["parking", "wheelchair", "drive", "24h", "click_and_collect"];
const CITIES: &[(&str, &str, &str)] = &[
    ("Toulouse", "31000", "FR"),
    ("Perpignan", "66000", "FR"),
    ("Andorra la Vella", "AD500", "AD"),
    ("Lleida", "25001", "ES"),
    ("Girona", "17001", "ES"),
    ("Barcelona", "08001", "ES"),
    ("Carcassonne", "11000", "FR"),
    ("Pau", "64000", "FR"),
];
const BRANDS: &[&str] = &[
    "Verda",
    "Mercat Plus",
    "Farma Sud",
    "Pirineu",
    "Nord Market",
];

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// An index skewed towards the start of a list of `n`.
    fn skewed(&mut self, n: usize) -> usize {
        let u = self.unit();
        ((u * u) * n as f64) as usize % n
    }
}

fn range(start: &str, end: &str) -> TimeRange {
    TimeRange {
        start: start.into(),
        end: end.into(),
    }
}

/// A regular `sides`-gon of `radius_m` around (`lat`, `lng`), as WKT.
pub fn circle_wkt(lat: f64, lng: f64, radius_m: f64, sides: usize) -> String {
    let dlat = radius_m / 111_320.0;
    let dlng = dlat / lat.to_radians().cos().max(0.01);
    let mut wkt = String::from("POLYGON((");
    for k in 0..=sides {
        let a = (k % sides) as f64 / sides as f64 * std::f64::consts::TAU;
        if k > 0 {
            wkt.push(',');
        }
        let _ = write!(
            wkt,
            "{:.6} {:.6}",
            lng + dlng * a.cos(),
            lat + dlat * a.sin()
        );
    }
    wkt.push_str("))");
    wkt
}

/// `n` stores in `bbox`, the same for the same `seed`. Store ids are `G<number>`, zone ids
/// `G<number>D`.
pub fn generate(n: usize, seed: u64, bbox: Bbox) -> Vec<StoreAsset> {
    let mut rng = Rng(seed);
    let [west, south, east, north] = bbox;
    (0..n)
        .map(|i| {
            let lat = south + rng.unit() * (north - south);
            let lng = west + rng.unit() * (east - west);
            let kind = TYPES[rng.skewed(TYPES.len())];
            let brand = BRANDS[rng.below(BRANDS.len())];
            let (city, zipcode, country) = CITIES[rng.below(CITIES.len())];
            let store_id = format!("G{i}");
            let mut tags = Vec::new();
            for t in TAGS {
                if rng.unit() < 0.3 {
                    tags.push((*t).to_owned());
                }
            }
            let mut user = Map::new();
            user.insert(
                "rating".into(),
                json!((10.0 + rng.unit() * 40.0).round() / 10.0),
            );
            user.insert("surface".into(), json!(80 + rng.below(3000)));
            user.insert("franchise".into(), json!(rng.unit() < 0.4));
            user.insert("region".into(), json!(format!("R{}", rng.below(20))));
            let mut localized = BTreeMap::new();
            localized.insert("fr".into(), format!("{brand} {city} ({kind}) n°{i}"));
            localized.insert("es".into(), format!("{brand} {city} ({kind}) n.º{i}"));
            let mut usual = BTreeMap::new();
            let all_day = tags.iter().any(|t| t == "24h");
            for day in 1..=7 {
                let hours = match (all_day, day) {
                    (true, _) => vec![range("00:00", "24:00")],
                    (false, 7) => vec![],
                    (false, 6) => vec![range("09:00", "13:00")],
                    _ => vec![range("08:30", "12:30"), range("14:00", "19:30")],
                };
                usual.insert(day.to_string(), hours);
            }
            let mut special = BTreeMap::new();
            special.insert("2026-12-25".into(), vec![]);
            let radius = 1_000.0 + rng.unit() * 2_000.0;
            StoreAsset {
                store_id: store_id.clone(),
                name: format!("{brand} {city} {i}"),
                address: AssetAddress {
                    lines: vec![format!("{} Carrer Major", 1 + rng.below(200))],
                    city: Some(city.into()),
                    zipcode: Some(zipcode.into()),
                    country_code: Some(country.into()),
                },
                contact: AssetContact {
                    phone: Some(format!("+376 {:06}", rng.below(1_000_000))),
                    email: None,
                    website: None,
                },
                types: vec![kind.to_owned()],
                tags,
                user_properties: user,
                localized_names: localized,
                opening_hours: Some(OpeningHours {
                    timezone: None,
                    usual,
                    special,
                }),
                location: AssetLocation { lat, lng },
                zones: vec![AssetZone {
                    zone_id: format!("{store_id}D"),
                    polygon: circle_wkt(lat, lng, radius, 12),
                    description: Some("delivery area".into()),
                    types: vec!["delivery".into()],
                    status: Some("active".into()),
                }],
            }
        })
        .collect()
}

/// `stores` as a GeoJSON FeatureCollection in the import format (docs/stores-layer.md).
pub fn to_geojson(stores: &[StoreAsset]) -> Value {
    let features: Vec<Value> = stores
        .iter()
        .map(|s| {
            let mut properties = match serde_json::to_value(s) {
                Ok(Value::Object(m)) => m,
                _ => Map::new(),
            };
            properties.remove("location");
            json!({
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [s.location.lng, s.location.lat]},
                "properties": properties,
            })
        })
        .collect();
    json!({"type": "FeatureCollection", "features": features})
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn generated_stores_pass_the_import_checks_and_read_back_from_geojson() {
        let stores = generate(300, 7, DEFAULT_BBOX);
        assert_eq!(stores, generate(300, 7, DEFAULT_BBOX), "reproducible");
        let (seen_s, seen_z) = (HashSet::new(), HashSet::new());
        for s in &stores {
            assert!(s.problems(&seen_s, &seen_z).is_empty(), "{s:?}");
        }
        let text = to_geojson(&stores).to_string();
        let read = super::super::read::geojson(&text);
        assert!(read.1.is_empty(), "{:?}", read.1);
        let back: Vec<StoreAsset> = read.0.into_iter().map(|(_, a)| a).collect();
        assert_eq!(back.len(), stores.len());
        for (mut b, s) in back.into_iter().zip(&stores) {
            // JSON numbers read back to within a rounding step.
            assert!((b.location.lat - s.location.lat).abs() < 1e-12);
            assert!((b.location.lng - s.location.lng).abs() < 1e-12);
            b.location = s.location;
            assert_eq!(&b, s);
        }
        let types: HashSet<&str> = stores.iter().map(|s| s.types[0].as_str()).collect();
        assert!(types.len() >= 6, "{types:?}");
    }
}
