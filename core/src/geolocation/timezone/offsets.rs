//! The tz-database side: the offsets in force in a zone at an instant (chrono-tz), and the
//! nautical zone of a longitude for points no polygon covers.
use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::{OffsetComponents, OffsetName, Tz};

use super::TimezoneError;
use crate::api::TimezoneResult;

/// The nautical zones, from `Etc/GMT+12` (west) to `Etc/GMT-12` (east).
const NAUTICAL: [&str; 25] = [
    "Etc/GMT+12",
    "Etc/GMT+11",
    "Etc/GMT+10",
    "Etc/GMT+9",
    "Etc/GMT+8",
    "Etc/GMT+7",
    "Etc/GMT+6",
    "Etc/GMT+5",
    "Etc/GMT+4",
    "Etc/GMT+3",
    "Etc/GMT+2",
    "Etc/GMT+1",
    "Etc/GMT",
    "Etc/GMT-1",
    "Etc/GMT-2",
    "Etc/GMT-3",
    "Etc/GMT-4",
    "Etc/GMT-5",
    "Etc/GMT-6",
    "Etc/GMT-7",
    "Etc/GMT-8",
    "Etc/GMT-9",
    "Etc/GMT-10",
    "Etc/GMT-11",
    "Etc/GMT-12",
];

/// `Etc/GMT±N` for a longitude (signs as in the tz database: east of Greenwich is `GMT-N`).
pub fn nautical_zone(lng: f64) -> &'static str {
    let hours = ((lng / 15.0).round() as i32).clamp(-12, 12);
    NAUTICAL[(hours + 12) as usize]
}

/// The timezone result for `tzid` at `instant`: abbreviation in force, standard offset and the
/// daylight-saving part, in seconds.
pub fn offsets(tzid: &str, instant: DateTime<Utc>) -> Result<TimezoneResult, TimezoneError> {
    let tz: Tz = tzid
        .parse()
        .map_err(|_| TimezoneError::UnknownZone(tzid.to_string()))?;
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
}
