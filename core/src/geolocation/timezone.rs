//! Timezone of a coordinate: point-in-polygon over the packs' `timezones` layer, then the
//! offsets in force at an instant from the tz database (chrono-tz).
//!
//! The polygons of every loaded pack with the layer are decoded once per pack set into an
//! in-memory index with 1° grid cells (a point tests only the zones whose box meets its cell).
//! Points in no polygon (open sea the data does not cover, poles) get the nautical zone
//! `Etc/GMT±N` of their longitude.
use std::collections::HashMap;

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::{OffsetComponents, OffsetName, Tz};

use crate::api::TimezoneResult;

/// One zone: polygons of rings (outer first, then holes), `(lng, lat)` points.
#[derive(Debug)]
struct Zone {
    tzid: String,
    polygons: Vec<Vec<Vec<(f64, f64)>>>,
}

/// Timezone polygons indexed by 1° cells.
#[derive(Debug, Default)]
pub struct TimezoneIndex {
    zones: Vec<Zone>,
    cells: HashMap<(i16, i16), Vec<u32>>,
}

fn cell(lng: f64, lat: f64) -> (i16, i16) {
    (
        lng.floor().clamp(-180.0, 179.0) as i16,
        lat.floor().clamp(-90.0, 89.0) as i16,
    )
}

/// Even-odd test of a point against a polygon's rings (holes flip it back).
fn contains(rings: &[Vec<(f64, f64)>], x: f64, y: f64) -> bool {
    let mut inside = false;
    for ring in rings {
        let n = ring.len();
        let mut j = n.wrapping_sub(1);
        for i in 0..n {
            let (xi, yi) = ring[i];
            let (xj, yj) = ring[j];
            if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
                inside = !inside;
            }
            j = i;
        }
    }
    inside
}

impl TimezoneIndex {
    /// Adds a zone from its stored shape (JSON array of polygons of polyline6 rings). Zones
    /// already present (same tzid, from another pack) are skipped.
    pub fn add(&mut self, tzid: &str, shape: &str) -> Result<(), String> {
        if self.zones.iter().any(|z| z.tzid == tzid) {
            return Ok(());
        }
        let encoded: Vec<Vec<String>> =
            serde_json::from_str(shape).map_err(|e| format!("{tzid}: shape: {e}"))?;
        let mut polygons = Vec::with_capacity(encoded.len());
        for rings in encoded {
            let mut decoded = Vec::with_capacity(rings.len());
            for ring in rings {
                let line =
                    polyline::decode_polyline(&ring, 6).map_err(|e| format!("{tzid}: {e}"))?;
                decoded.push(line.0.iter().map(|c| (c.x, c.y)).collect::<Vec<_>>());
            }
            polygons.push(decoded);
        }
        let idx = self.zones.len() as u32;
        for rings in &polygons {
            let Some(outer) = rings.first() else { continue };
            let (mut w, mut s, mut e, mut n) = (180.0f64, 90.0f64, -180.0f64, -90.0f64);
            for &(x, y) in outer {
                w = w.min(x);
                e = e.max(x);
                s = s.min(y);
                n = n.max(y);
            }
            let (cw, cs) = cell(w, s);
            let (ce, cn) = cell(e, n);
            for cx in cw..=ce {
                for cy in cs..=cn {
                    let list = self.cells.entry((cx, cy)).or_default();
                    if list.last() != Some(&idx) {
                        list.push(idx);
                    }
                }
            }
        }
        self.zones.push(Zone {
            tzid: tzid.to_string(),
            polygons,
        });
        Ok(())
    }

    /// Adds every zone of a pack's `timezones` table.
    pub fn add_pack(&mut self, conn: &rusqlite::Connection) -> Result<(), crate::error::Error> {
        let mut stmt = conn.prepare("SELECT tzid, shape FROM timezones ORDER BY id")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let (tzid, shape): (String, String) = (row.get(0)?, row.get(1)?);
            self.add(&tzid, &shape)
                .map_err(crate::error::Error::Config)?;
        }
        Ok(())
    }

    /// Number of zones.
    pub fn len(&self) -> usize {
        self.zones.len()
    }

    /// Whether no zone is loaded.
    pub fn is_empty(&self) -> bool {
        self.zones.is_empty()
    }

    /// The tz identifier at a point: the zone whose polygon contains it, else the nautical
    /// zone of the longitude.
    pub fn lookup(&self, lat: f64, lng: f64) -> String {
        if let Some(candidates) = self.cells.get(&cell(lng, lat)) {
            for &i in candidates {
                let zone = &self.zones[i as usize];
                if zone.polygons.iter().any(|rings| contains(rings, lng, lat)) {
                    return zone.tzid.clone();
                }
            }
        }
        nautical_zone(lng)
    }
}

/// `Etc/GMT±N` for a longitude (signs as in the tz database: east of Greenwich is `GMT-N`).
pub fn nautical_zone(lng: f64) -> String {
    let hours = (lng / 15.0).round() as i32;
    match hours {
        0 => "Etc/GMT".to_string(),
        h if h > 0 => format!("Etc/GMT-{}", h.min(12)),
        h => format!("Etc/GMT+{}", (-h).min(12)),
    }
}

/// The timezone result for `tzid` at `instant`: abbreviation in force, standard offset and the
/// daylight-saving part, in seconds.
pub fn offsets(tzid: &str, instant: DateTime<Utc>) -> Result<TimezoneResult, String> {
    let tz: Tz = tzid
        .parse()
        .map_err(|_| format!("`{tzid}` is not in the tz database of this build"))?;
    let local = tz.from_utc_datetime(&instant.naive_utc());
    let offset = local.offset();
    let raw = offset.base_utc_offset().num_seconds() as i32;
    let dst = offset.dst_offset().num_seconds() as i32;
    let name = offset
        .abbreviation()
        .map(str::to_string)
        .unwrap_or_else(|| format_offset(raw + dst));
    Ok(TimezoneResult {
        timezone: tzid.to_string(),
        timezone_name: name,
        raw_offset: raw,
        dst_offset: dst,
    })
}

fn format_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let s = seconds.abs();
    if s % 3600 == 0 {
        format!("{sign}{:02}", s / 3600)
    } else {
        format!("{sign}{:02}{:02}", s / 3600, (s % 3600) / 60)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn dst_on_both_sides_and_hemispheres() {
        // Europe: CET in winter, CEST in summer; raw never includes DST.
        let w = offsets("Europe/Berlin", at("2026-01-15T12:00:00Z")).unwrap();
        assert_eq!(
            (w.timezone_name.as_str(), w.raw_offset, w.dst_offset),
            ("CET", 3600, 0)
        );
        let s = offsets("Europe/Berlin", at("2026-07-15T12:00:00Z")).unwrap();
        assert_eq!(
            (s.timezone_name.as_str(), s.raw_offset, s.dst_offset),
            ("CEST", 3600, 3600)
        );
        // Around the 2026 spring-forward instant (2026-03-29 01:00 UTC).
        assert_eq!(
            offsets("Europe/Berlin", at("2026-03-29T00:59:59Z"))
                .unwrap()
                .dst_offset,
            0
        );
        assert_eq!(
            offsets("Europe/Berlin", at("2026-03-29T01:00:00Z"))
                .unwrap()
                .dst_offset,
            3600
        );
        // US: EST/EDT.
        let ny = offsets("America/New_York", at("2026-07-04T16:00:00Z")).unwrap();
        assert_eq!(
            (ny.timezone_name.as_str(), ny.raw_offset, ny.dst_offset),
            ("EDT", -18000, 3600)
        );
        // Southern hemisphere: Sydney is on daylight time in January.
        let syd = offsets("Australia/Sydney", at("2026-01-15T00:00:00Z")).unwrap();
        assert_eq!(
            (syd.timezone_name.as_str(), syd.raw_offset, syd.dst_offset),
            ("AEDT", 36000, 3600)
        );
    }

    #[test]
    fn half_and_quarter_hour_offsets_and_history() {
        let india = offsets("Asia/Kolkata", at("2026-06-01T00:00:00Z")).unwrap();
        assert_eq!((india.raw_offset, india.dst_offset), (19800, 0));
        let nepal = offsets("Asia/Kathmandu", at("2026-06-01T00:00:00Z")).unwrap();
        assert_eq!(nepal.raw_offset, 20700);
        // Moscow kept UTC+4 all year from 2011 to 2014; today it is UTC+3.
        assert_eq!(
            offsets("Europe/Moscow", at("2012-01-01T00:00:00Z"))
                .unwrap()
                .raw_offset,
            14400
        );
        assert_eq!(
            offsets("Europe/Moscow", at("2026-01-01T00:00:00Z"))
                .unwrap()
                .raw_offset,
            10800
        );
        assert!(offsets("Mars/Olympus", at("2026-01-01T00:00:00Z")).is_err());
    }

    #[test]
    fn nautical_zones_follow_longitude() {
        assert_eq!(nautical_zone(0.0), "Etc/GMT");
        assert_eq!(nautical_zone(30.2), "Etc/GMT-2");
        assert_eq!(nautical_zone(-150.0), "Etc/GMT+10");
        assert_eq!(nautical_zone(179.9), "Etc/GMT-12");
        assert_eq!(nautical_zone(-179.9), "Etc/GMT+12");
        assert_eq!(
            offsets("Etc/GMT-2", at("2026-01-01T00:00:00Z"))
                .unwrap()
                .raw_offset,
            7200
        );
    }

    #[test]
    fn polygons_with_holes() {
        let mut idx = TimezoneIndex::default();
        // A square zone with a square hole, lat/lng order inside polylines.
        let ring = |pts: &[(f64, f64)]| {
            let coords: Vec<geo_types::Coord<f64>> = pts
                .iter()
                .map(|&(x, y)| geo_types::Coord { x, y })
                .collect();
            polyline::encode_coordinates(coords, 6).unwrap()
        };
        let outer = ring(&[
            (10.0, 10.0),
            (12.0, 10.0),
            (12.0, 12.0),
            (10.0, 12.0),
            (10.0, 10.0),
        ]);
        let hole = ring(&[
            (10.5, 10.5),
            (11.5, 10.5),
            (11.5, 11.5),
            (10.5, 11.5),
            (10.5, 10.5),
        ]);
        let shape = serde_json::to_string(&vec![vec![outer, hole]]).unwrap();
        idx.add("Europe/Berlin", &shape).unwrap();
        assert_eq!(idx.lookup(10.2, 10.2), "Europe/Berlin");
        assert_eq!(
            idx.lookup(11.0, 11.0),
            "Etc/GMT-1",
            "inside the hole: nautical zone"
        );
        assert_eq!(idx.lookup(40.0, 40.0), "Etc/GMT-3");
    }
}
