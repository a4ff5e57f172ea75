//! Whether a store is open: its opening hours (`{timezone, usual, special}`, as imported by
//! `waymark-packs import-stores`) read at an instant in the store's timezone.
use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use serde::Deserialize;

use crate::api::StoreOpen;

/// Opening hours of a store.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Hours {
    timezone: Option<String>,
    #[serde(default)]
    usual: BTreeMap<String, Vec<Range>>,
    #[serde(default)]
    special: BTreeMap<String, Vec<Range>>,
}

#[derive(Debug, Clone, Deserialize)]
struct Range {
    start: String,
    end: String,
}

/// Minutes since midnight of `HH:MM` (`24:00` is 1440).
fn minutes(text: &str) -> Option<u32> {
    let (h, m) = text.split_once(':')?;
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    (h * 60 + m <= 24 * 60 && m < 60).then_some(h * 60 + m)
}

impl Hours {
    /// The store's timezone (UTC when none is known).
    pub fn tz(&self) -> Tz {
        self.timezone
            .as_deref()
            .and_then(|t| t.parse().ok())
            .unwrap_or(Tz::UTC)
    }

    /// The opening ranges of a local date, in minutes: the special day, else the weekday, else
    /// `default`, else closed.
    fn ranges(&self, date: NaiveDate) -> Vec<(u32, u32)> {
        let key = date.format("%Y-%m-%d").to_string();
        let weekday = date.weekday().number_from_monday().to_string();
        let list = self
            .special
            .get(&key)
            .or_else(|| self.usual.get(&weekday))
            .or_else(|| self.usual.get("default"));
        list.map(|l| {
            l.iter()
                .filter_map(|r| Some((minutes(&r.start)?, minutes(&r.end)?)))
                .filter(|(s, e)| s < e)
                .collect()
        })
        .unwrap_or_default()
    }

    /// Whether the store is open at `at`, today's ranges, when the current range ends and when
    /// the store next opens (within 8 days).
    pub fn open_at(&self, at: DateTime<Utc>) -> StoreOpen {
        let tz = self.tz();
        let local = at.with_timezone(&tz).naive_local();
        let today = local.date();
        let now = local.time().num_seconds_from_midnight_u32() / 60;
        let ranges = self.ranges(today);
        let fmt = |d: NaiveDate, m: u32| {
            let d = if m == 24 * 60 {
                d + Duration::days(1)
            } else {
                d
            };
            format!(
                "{}T{:02}:{:02}",
                d.format("%Y-%m-%d"),
                (m % 1440) / 60,
                m % 60
            )
        };
        let current = ranges.iter().find(|(s, e)| *s <= now && now < *e);
        let next_opening = if current.is_some() {
            None
        } else {
            (0..8).find_map(|offset| {
                let day = today + Duration::days(offset);
                self.ranges(day)
                    .into_iter()
                    .filter(|(s, _)| offset > 0 || *s > now)
                    .map(|(s, _)| s)
                    .min()
                    .map(|s| fmt(day, s))
            })
        };
        StoreOpen {
            open_now: current.is_some(),
            timezone: tz.name().to_owned(),
            today: ranges
                .iter()
                .map(|(s, e)| format!("{:02}:{:02}-{:02}:{:02}", s / 60, s % 60, e / 60, e % 60))
                .collect(),
            next_opening,
            closes_at: current.map(|(_, e)| fmt(today, *e)),
        }
    }
}

trait SecondsFromMidnight {
    fn num_seconds_from_midnight_u32(&self) -> u32;
}

impl SecondsFromMidnight for chrono::NaiveTime {
    fn num_seconds_from_midnight_u32(&self) -> u32 {
        chrono::Timelike::num_seconds_from_midnight(self)
    }
}

/// An instant from a local date and time in `tz` (tests, examples).
pub fn local_instant(tz: Tz, y: i32, m: u32, d: u32, h: u32, min: u32) -> Option<DateTime<Utc>> {
    tz.with_ymd_and_hms(y, m, d, h, min, 0)
        .single()
        .map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn hours(json: &str) -> Hours {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn open_closed_and_next_opening_in_the_store_timezone() {
        let h = hours(
            r#"{"timezone": "Europe/Andorra",
                "usual": {"1": [{"start": "09:00", "end": "13:00"}, {"start": "15:00", "end": "20:00"}],
                          "default": [{"start": "10:00", "end": "14:00"}], "7": []},
                "special": {"2026-11-30": []}}"#,
        );
        let tz: Tz = "Europe/Andorra".parse().unwrap();
        // Monday 2026-11-23 12:00 local (11:00 UTC).
        let o = h.open_at(local_instant(tz, 2026, 11, 23, 12, 0).unwrap());
        assert!(o.open_now);
        assert_eq!(o.today, ["09:00-13:00", "15:00-20:00"]);
        assert_eq!(o.closes_at.as_deref(), Some("2026-11-23T13:00"));
        assert_eq!(o.next_opening, None);
        // 13:30: closed, opens again at 15:00.
        let o = h.open_at(local_instant(tz, 2026, 11, 23, 13, 30).unwrap());
        assert!(!o.open_now);
        assert_eq!(o.next_opening.as_deref(), Some("2026-11-23T15:00"));
        // Saturday 21:00 → Sunday closed → Monday 2026-11-30 is a special closed day → Tuesday 10:00.
        let o = h.open_at(local_instant(tz, 2026, 11, 28, 21, 0).unwrap());
        assert!(!o.open_now);
        assert_eq!(o.next_opening.as_deref(), Some("2026-12-01T10:00"));
        assert_eq!(o.timezone, "Europe/Andorra");
        // The same UTC instant is another local day elsewhere.
        let utc = hours(r#"{"usual": {"default": [{"start": "00:00", "end": "24:00"}]}}"#);
        let o = utc.open_at(local_instant(tz, 2026, 11, 23, 0, 30).unwrap());
        assert!(o.open_now);
        assert_eq!(o.timezone, "UTC");
        assert_eq!(o.closes_at.as_deref(), Some("2026-11-23T00:00"));
    }
}
