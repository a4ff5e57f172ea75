//! Sample stores from a pack's OpenStreetMap points of interest: branded shops and every
//! pharmacy, fuel station and grocer, with their address, contact, localized names and opening
//! hours (the common subset of OSM `opening_hours`; see [`opening_hours`]), and a delivery
//! zone around each pharmacy and supermarket (a 12-sided polygon of 2 km radius), so that
//! `waymark serve` demonstrates the store locator on real data.
use std::collections::BTreeMap;

use rusqlite::Connection;
use serde_json::{Map, Value};

use super::{
    AssetAddress, AssetContact, AssetLocation, AssetZone, OpeningHours, StoreAsset, TimeRange,
};
use crate::error::BuildError;

/// POI types that become stores even without a `brand`.
const STORE_TYPES: &[(&str, &str)] = &[
    ("medical.pharmacy", "pharmacy"),
    ("business.fuel", "fuel"),
    ("business.shop.grocery", "grocery"),
];

/// Store types that get a delivery zone.
const DELIVERING: &[&str] = &["pharmacy", "grocery"];

/// Radius of a sample delivery zone, metres.
const ZONE_RADIUS_M: f64 = 2000.0;

/// The country of most of the pack's places (a region pack lies mostly in one country; the
/// sample stores take it as their address's country).
pub fn main_country(conn: &Connection) -> Result<Option<String>, BuildError> {
    let mut stmt = conn.prepare(
        "SELECT country_code FROM places WHERE country_code IS NOT NULL AND country_code != '' \
         GROUP BY country_code ORDER BY COUNT(*) DESC LIMIT 1",
    )?;
    let mut rows = stmt.query([])?;
    Ok(match rows.next()? {
        Some(r) => Some(r.get(0)?),
        None => None,
    })
}

/// The stores of the pack's `pois` table (the POI layer must be built), with `country_code`
/// for their address.
pub fn stores_from_pois(
    conn: &Connection,
    country_code: Option<&str>,
) -> Result<Vec<StoreAsset>, BuildError> {
    let mut names: BTreeMap<i64, BTreeMap<String, String>> = BTreeMap::new();
    {
        let mut stmt = conn.prepare("SELECT poi_id, lang, name FROM poi_names")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            names
                .entry(r.get(0)?)
                .or_default()
                .insert(r.get(1)?, r.get(2)?);
        }
    }
    let tag_codec = waymark_core::packs::schema::PoiTags::load(conn)?;
    let mut stmt = conn.prepare(
        "SELECT id, osm_type, osm_id, types, name, lat, lng, street, housenumber, postcode, city, tags \
         FROM pois ORDER BY osm_type, osm_id",
    )?;
    let mut rows = stmt.query([])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let osm_type: String = r.get(1)?;
        let osm_id: i64 = r.get(2)?;
        let poi_types: Vec<String> = r
            .get::<_, String>(3)?
            .split('|')
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect();
        let tags: Map<String, Value> = tag_codec
            .decode(&r.get::<_, Vec<u8>>(11)?)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let tag = |k: &str| tags.get(k).and_then(Value::as_str).map(str::to_owned);
        let brand = tag("brand");
        let mut types: Vec<String> = poi_types
            .iter()
            .filter_map(|t| {
                STORE_TYPES
                    .iter()
                    .find(|(p, _)| p == t)
                    .map(|(_, s)| (*s).to_owned())
            })
            .collect();
        if types.is_empty() && brand.is_none() {
            continue;
        }
        if types.is_empty() {
            types.push(
                poi_types
                    .first()
                    .and_then(|t| t.rsplit('.').next())
                    .unwrap_or("shop")
                    .to_owned(),
            );
        }
        let name: Option<String> = r.get(4)?;
        let Some(name) = name.or_else(|| brand.clone()) else {
            continue;
        };
        let street: Option<String> = r.get(7)?;
        let housenumber: Option<String> = r.get(8)?;
        let line = match (street, housenumber) {
            (Some(s), Some(n)) => Some(format!("{s} {n}")),
            (Some(s), None) => Some(s),
            _ => None,
        };
        let mut user_properties = Map::new();
        if let Some(b) = &brand {
            user_properties.insert("brand".into(), b.clone().into());
        }
        user_properties.insert("osm_id".into(), osm_id.into());
        if let Some(w) = tag("wheelchair") {
            user_properties.insert("wheelchair".into(), (w == "yes").into());
        }
        let hours = tag("opening_hours").and_then(|h| opening_hours(&h));
        let mut store_tags = Vec::new();
        if let Some(b) = &brand {
            store_tags.push(b.to_lowercase());
        }
        if hours.as_ref().is_some_and(|h| {
            h.usual
                .get("default")
                .is_some_and(|d| d.len() == 1 && d[0].start == "00:00" && d[0].end == "24:00")
        }) {
            store_tags.push("24h".into());
        }
        let kind = match osm_type.as_str() {
            "node" => 'N',
            "way" => 'W',
            _ => 'R',
        };
        let store_id = format!("{kind}{osm_id}");
        let location = AssetLocation {
            lat: r.get(5)?,
            lng: r.get(6)?,
        };
        let zones = if types.iter().any(|t| DELIVERING.contains(&t.as_str())) {
            vec![AssetZone {
                zone_id: format!("{store_id}D"),
                polygon: circle_wkt(location, ZONE_RADIUS_M),
                description: Some(format!(
                    "Delivery area of {name} (sample: 2 km around the store)"
                )),
                types: vec!["delivery".into()],
                status: Some("active".into()),
            }]
        } else {
            Vec::new()
        };
        out.push(StoreAsset {
            store_id,
            name,
            address: AssetAddress {
                lines: line.into_iter().collect(),
                city: r.get(10)?,
                zipcode: r.get(9)?,
                country_code: country_code.map(str::to_owned),
            },
            contact: AssetContact {
                phone: tag("phone"),
                email: tag("email"),
                website: tag("website"),
            },
            types,
            tags: store_tags,
            user_properties,
            localized_names: names.remove(&id).unwrap_or_default(),
            opening_hours: hours,
            location,
            zones,
        });
    }
    Ok(out)
}

/// A 12-sided polygon of `radius_m` around `c`, as WKT.
fn circle_wkt(c: AssetLocation, radius_m: f64) -> String {
    let dlat = radius_m / 111_320.0;
    let dlng = dlat / c.lat.to_radians().cos().max(0.01);
    let points: Vec<String> = (0..=12)
        .map(|i| {
            let a = (i % 12) as f64 * std::f64::consts::TAU / 12.0;
            format!(
                "{:.6} {:.6}",
                c.lng + dlng * a.cos(),
                c.lat + dlat * a.sin()
            )
        })
        .collect();
    format!("POLYGON(({}))", points.join(", "))
}

/// Weekly hours from an OSM `opening_hours` value, for the common subset: `24/7`, and rules
/// `<days> <times>` separated by `;` where days are `Mo`…`Su`, ranges (`Mo-Fr`) and lists
/// (`Mo,We`), and times are `HH:MM-HH:MM` lists or `off`. Anything else (public holidays,
/// months, week numbers, sunrise, comments) gives `None`: no hours rather than wrong hours.
/// The timezone is left to the store's position.
pub fn opening_hours(value: &str) -> Option<OpeningHours> {
    const DAYS: [&str; 7] = ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"];
    let value = value.trim();
    let mut usual: BTreeMap<String, Vec<TimeRange>> = BTreeMap::new();
    if value == "24/7" {
        usual.insert(
            "default".into(),
            vec![TimeRange {
                start: "00:00".into(),
                end: "24:00".into(),
            }],
        );
        return Some(OpeningHours {
            timezone: None,
            usual,
            special: BTreeMap::new(),
        });
    }
    let day_index = |d: &str| DAYS.iter().position(|x| *x == d);
    for rule in value.split(';').map(str::trim).filter(|r| !r.is_empty()) {
        let (days, times) = rule.split_once(' ')?;
        let mut selected = Vec::new();
        for part in days.split(',') {
            match part.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (day_index(a)?, day_index(b)?);
                    if a > b {
                        return None;
                    }
                    selected.extend(a..=b);
                }
                None => selected.push(day_index(part)?),
            }
        }
        let times = times.trim();
        let ranges = if times == "off" || times == "closed" {
            Vec::new()
        } else {
            let mut ranges = Vec::new();
            for t in times.split(',') {
                let (start, end) = t.trim().split_once('-')?;
                let (s, e) = (
                    super::parse_hhmm(start, false)?,
                    super::parse_hhmm(end, true)?,
                );
                if s >= e {
                    return None;
                }
                ranges.push(TimeRange {
                    start: start.to_owned(),
                    end: end.to_owned(),
                });
            }
            ranges
        };
        for d in selected {
            // Later rules override earlier ones for the same day, as in OSM.
            usual.insert((d + 1).to_string(), ranges.clone());
        }
    }
    if usual.is_empty() {
        return None;
    }
    // Days no rule names are closed.
    for d in 1..=7 {
        usual.entry(d.to_string()).or_default();
    }
    Some(OpeningHours {
        timezone: None,
        usual,
        special: BTreeMap::new(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn day(h: &OpeningHours, d: &str) -> Vec<(String, String)> {
        h.usual[d]
            .iter()
            .map(|r| (r.start.clone(), r.end.clone()))
            .collect()
    }

    #[test]
    fn the_common_subset_of_osm_hours_is_read() {
        let h = opening_hours("Mo-Fr 08:00-12:30,14:00-19:00; Sa 09:00-13:00").unwrap();
        assert_eq!(
            day(&h, "1"),
            [
                ("08:00".into(), "12:30".into()),
                ("14:00".into(), "19:00".into())
            ]
        );
        assert_eq!(day(&h, "5").len(), 2);
        assert_eq!(day(&h, "6"), [("09:00".into(), "13:00".into())]);
        assert!(day(&h, "7").is_empty());
        let h = opening_hours("Mo,We 10:00-18:00; We off").unwrap();
        assert_eq!(day(&h, "1").len(), 1);
        assert!(day(&h, "3").is_empty());
        assert_eq!(
            opening_hours("24/7").unwrap().usual["default"][0].end,
            "24:00"
        );
        assert!(opening_hours("24/7").unwrap().problems().is_empty());
        for unsupported in [
            "Mo-Fr 08:00-20:00; PH off",
            "sunrise-sunset",
            "Jan-Mar Mo 10:00-12:00",
            "Mo 22:00-02:00",
            "Fr-Mo 10:00-12:00",
            "",
        ] {
            assert!(opening_hours(unsupported).is_none(), "{unsupported}");
        }
    }

    #[test]
    fn sample_zones_are_valid_polygons_around_the_store() {
        let c = AssetLocation {
            lat: 42.5,
            lng: 1.52,
        };
        let wkt = circle_wkt(c, 2000.0);
        assert!(super::super::polygon_problem(&wkt).is_none(), "{wkt}");
        let [w, s, e, n] = super::super::polygon_bbox(&wkt).unwrap();
        assert!(w < c.lng && e > c.lng && s < c.lat && n > c.lat);
        assert!(((n - s) * 111.32 - 4.0).abs() < 0.1);
    }
}
