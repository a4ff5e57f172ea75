//! Opening hours of a store (`{timezone, usual, special}`): the shape `waymark-packs
//! import-stores` reads and checks, and whether the store is open at an instant in its
//! timezone.
use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, Timelike, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::api::StoreOpen;

/// Opening hours: `usual` by ISO weekday (`"1"` Monday … `"7"` Sunday, or `"default"` for
/// every day not listed) and `special` by date (`"2026-12-25"`); an empty list is a closed
/// day. Times are `HH:MM` in `timezone` (a tz database name).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpeningHours {
    /// tz database name, e.g. `Europe/Andorra`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Weekly hours.
    #[serde(default)]
    pub usual: BTreeMap<String, Vec<TimeRange>>,
    /// Hours of given dates, overriding `usual`.
    #[serde(default)]
    pub special: BTreeMap<String, Vec<TimeRange>>,
}

/// An opening range, `start` before `end` (`end` may be `24:00`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeRange {
    /// `HH:MM`.
    pub start: String,
    /// `HH:MM`, or `24:00`.
    pub end: String,
}

/// Minutes since midnight of `HH:MM` (`24:00`, 1440, only when `end`).
pub fn parse_hhmm(text: &str, end: bool) -> Option<u16> {
    let (h, m) = text.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let h: u16 = h.parse().ok()?;
    let m: u16 = m.parse().ok()?;
    match (h, m) {
        (24, 0) if end => Some(24 * 60),
        (0..=23, 0..=59) => Some(h * 60 + m),
        _ => None,
    }
}

impl OpeningHours {
    /// Everything wrong with the hours (empty when they can be stored).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(tz) = &self.timezone
            && tz.parse::<Tz>().is_err()
        {
            out.push(format!(
                "`opening_hours.timezone` {tz:?} is not a tz database name"
            ));
        }
        for (day, ranges) in &self.usual {
            if !matches!(
                day.as_str(),
                "1" | "2" | "3" | "4" | "5" | "6" | "7" | "default"
            ) {
                out.push(format!(
                    "`opening_hours.usual` key {day:?} must be \"1\" (Monday) to \"7\" (Sunday) or \"default\""
                ));
            }
            out.extend(range_problems("usual", day, ranges));
        }
        for (date, ranges) in &self.special {
            if NaiveDate::parse_from_str(date, "%Y-%m-%d").is_err() {
                out.push(format!(
                    "`opening_hours.special` key {date:?} must be a date YYYY-MM-DD"
                ));
            }
            out.extend(range_problems("special", date, ranges));
        }
        out
    }

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
        list.map(|l| minutes(l)).unwrap_or_default()
    }

    /// Whether the store is open at `at` (in its timezone, its special days first): what
    /// [`OpeningHours::open_at`] says of `open_now`, without the rest.
    pub fn is_open(&self, at: DateTime<Utc>) -> bool {
        let local = at.with_timezone(&self.tz()).naive_local();
        let now = local.time().num_seconds_from_midnight() / 60;
        self.ranges(local.date())
            .iter()
            .any(|range| contains(*range, now))
    }

    /// Whether the store is open at `at`, today's ranges, when the current range ends and when
    /// the store next opens (within 8 days).
    pub fn open_at(&self, at: DateTime<Utc>) -> StoreOpen {
        let tz = self.tz();
        let local = at.with_timezone(&tz).naive_local();
        let today = local.date();
        let now = local.time().num_seconds_from_midnight() / 60;
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
        let current = ranges.iter().find(|range| contains(**range, now));
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

/// Opening hours made ready for the search's `open_now` / `open_at` filter, once per store
/// when the stores are read: the timezone parsed, the ranges of each weekday (with
/// `default` filled in) and of each special date in minutes. Answers exactly as
/// [`OpeningHours::is_open`] does, without parsing or allocating per request.
#[derive(Debug, Clone)]
pub struct CompiledHours {
    tz: Tz,
    /// Ranges of each ISO weekday, Monday first.
    weekly: [Vec<(u32, u32)>; 7],
    /// Ranges of the special dates, by date.
    special: Vec<(NaiveDate, Vec<(u32, u32)>)>,
}

impl CompiledHours {
    /// The hours `h` made ready.
    pub fn new(h: &OpeningHours) -> CompiledHours {
        let weekly = std::array::from_fn(|d| {
            h.usual
                .get(&(d + 1).to_string())
                .or_else(|| h.usual.get("default"))
                .map(|l| minutes(l))
                .unwrap_or_default()
        });
        // A key counts only if it is the date written as `ranges` looks it up.
        let mut special: Vec<(NaiveDate, Vec<(u32, u32)>)> = h
            .special
            .iter()
            .filter_map(|(key, l)| {
                let date = NaiveDate::parse_from_str(key, "%Y-%m-%d").ok()?;
                (date.format("%Y-%m-%d").to_string() == *key).then(|| (date, minutes(l)))
            })
            .collect();
        special.sort_by_key(|(d, _)| *d);
        CompiledHours {
            tz: h.tz(),
            weekly,
            special,
        }
    }

    /// The store's timezone.
    pub fn tz(&self) -> Tz {
        self.tz
    }

    /// Whether the store is open at the local time `local` of its timezone.
    pub fn is_open_local(&self, local: NaiveDateTime) -> bool {
        let date = local.date();
        let now = local.time().num_seconds_from_midnight() / 60;
        let ranges = match self.special.binary_search_by_key(&date, |(d, _)| *d) {
            Ok(i) => &self.special[i].1,
            Err(_) => &self.weekly[date.weekday().num_days_from_monday() as usize],
        };
        ranges.iter().any(|range| contains(*range, now))
    }
}

/// The valid ranges of `l` in minutes since midnight (unreadable or empty ones left out).
fn minutes(l: &[TimeRange]) -> Vec<(u32, u32)> {
    l.iter()
        .filter_map(|r| {
            Some((
                u32::from(parse_hhmm(&r.start, false)?),
                u32::from(parse_hhmm(&r.end, true)?),
            ))
        })
        .filter(|(s, e)| s < e)
        .collect()
}

/// Whether minute `now` of a day falls in the opening range `(start, end)`.
fn contains((start, end): (u32, u32), now: u32) -> bool {
    start <= now && now < end
}

fn range_problems(part: &str, key: &str, ranges: &[TimeRange]) -> Vec<String> {
    let mut out = Vec::new();
    for r in ranges {
        match (parse_hhmm(&r.start, false), parse_hhmm(&r.end, true)) {
            (Some(s), Some(e)) if s < e => {}
            (Some(_), Some(_)) => out.push(format!(
                "`opening_hours.{part}.{key}`: {}–{} ends before it starts (split a range over midnight in two days)",
                r.start, r.end
            )),
            _ => out.push(format!(
                "`opening_hours.{part}.{key}`: {}–{} are not HH:MM times",
                r.start, r.end
            )),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn local_instant(tz: Tz, y: i32, m: u32, d: u32, h: u32, min: u32) -> Option<DateTime<Utc>> {
        tz.with_ymd_and_hms(y, m, d, h, min, 0)
            .single()
            .map(|t| t.with_timezone(&Utc))
    }

    fn hours(json: &str) -> OpeningHours {
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

    #[test]
    fn compiled_hours_answer_as_the_hours_do() {
        let all = [
            hours(
                r#"{"timezone": "Europe/Andorra",
                    "usual": {"1": [{"start": "09:00", "end": "13:00"}, {"start": "15:00", "end": "20:00"}],
                              "default": [{"start": "10:00", "end": "14:00"}], "7": []},
                    "special": {"2026-11-30": [], "2026-12-01": [{"start": "00:00", "end": "24:00"}]}}"#,
            ),
            hours(
                r#"{"timezone": "Asia/Tokyo", "usual": {"5": [{"start": "22:00", "end": "24:00"}]},
                    "special": {"2026-12-04": [{"start": "08:00", "end": "08:30"}]}}"#,
            ),
            hours(r#"{"usual": {"default": [{"start": "00:00", "end": "24:00"}]}}"#),
            hours(r#"{"timezone": "America/New_York"}"#),
        ];
        // Every 7 minutes over three weeks, across a daylight-saving change in New York.
        let start = Utc.with_ymd_and_hms(2026, 10, 25, 0, 3, 0).unwrap();
        for h in &all {
            let c = CompiledHours::new(h);
            assert_eq!(c.tz(), h.tz());
            let mut open = 0;
            for k in 0..(21 * 24 * 60 / 7) {
                let at = start + Duration::minutes(7 * k);
                let local = at.with_timezone(&c.tz()).naive_local();
                assert_eq!(c.is_open_local(local), h.is_open(at), "{h:?} at {at}");
                open += usize::from(h.is_open(at));
            }
            assert!(open > 0 || h.usual.is_empty(), "{h:?} never open");
        }
    }

    #[test]
    fn is_open_agrees_with_the_open_block_across_zones_and_special_days() {
        let tokyo = hours(
            r#"{"timezone": "Asia/Tokyo",
                "usual": {"default": [{"start": "09:00", "end": "18:00"}]},
                "special": {"2026-12-25": [{"start": "12:00", "end": "14:00"}]}}"#,
        );
        let tz: Tz = "Asia/Tokyo".parse().unwrap();
        // 2026-12-25 10:00 in Tokyo (01:00 UTC): a usual day would be open, the special day is not.
        assert!(!tokyo.is_open(local_instant(tz, 2026, 12, 25, 10, 0).unwrap()));
        assert!(tokyo.is_open(local_instant(tz, 2026, 12, 25, 13, 0).unwrap()));
        assert!(tokyo.is_open(local_instant(tz, 2026, 12, 24, 10, 0).unwrap()));
        // Every quarter hour of four days: the filter and the block say the same.
        let start = local_instant(tz, 2026, 12, 23, 0, 0).unwrap();
        for h in [
            &tokyo,
            &hours(r#"{"usual": {"1": [{"start": "08:00", "end": "24:00"}]}}"#),
        ] {
            for q in 0..4 * 24 * 4 {
                let at = start + Duration::minutes(15 * q);
                assert_eq!(h.is_open(at), h.open_at(at).open_now, "{at}");
            }
        }
    }
}
