//! The levels of an indoor feature from its OSM `level` and `repeat_on` values. The pack
//! builder stores each feature's lowest and highest level; the walkable graph, built from the
//! stored features when a venue is first read (pack format 6), needs every level a feature is
//! on (`1;3` is on 1 and 3, not 2), so both read the tags through these functions.
//!
//! **Half-levels.** The API's levels are integers. A venue whose levels are all whole numbers
//! keeps them; a venue with a level between two others (`0.5`, `-1.5`) numbers its levels in
//! order instead ([`LevelMap`]), so a half-level is a level of its own rather than merged into
//! a neighbour: the lowest level at or above 0 is 0, the ones above it 1, 2, ..., the ones
//! below -1, -2, ... (the venue's `levels` give each one's `ref`, the OSM value when no
//! `level:ref` names it).

/// Parses `level`/`repeat_on` values into `(min, max)` ranges: `0`, `-1`, `1;2`, `0-3`,
/// `-2--1`, `0.5`. Unparseable parts are ignored.
pub fn parse_levels(v: &str) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for part in v.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let part = part.replace(',', ".");
        if let Ok(x) = part.parse::<f64>() {
            out.push((x, x));
            continue;
        }
        // a range: find a '-' that is not a leading sign
        let bytes = part.as_bytes();
        let split = (1..bytes.len())
            .find(|&i| bytes[i] == b'-' && bytes[i - 1] != b'-' && bytes[i - 1] != b'e');
        if let Some(i) = split
            && let (Ok(a), Ok(b)) = (
                part[..i].trim().parse::<f64>(),
                part[i + 1..].trim().parse::<f64>(),
            )
        {
            out.push((a.min(b), a.max(b)));
        }
    }
    out
}

/// The level ranges of a feature of `kind` from its `level` and `repeat_on` values (`tag`
/// looks a tag up); level 0 when untagged, except for doors and entrances (on the levels of
/// the areas whose outline holds them).
pub fn feature_levels<'a>(tag: impl Fn(&str) -> Option<&'a str>, kind: &str) -> Vec<(f64, f64)> {
    let mut v = Vec::new();
    for k in ["level", "repeat_on"] {
        if let Some(s) = tag(k) {
            v.extend(parse_levels(s));
        }
    }
    if v.is_empty() && !matches!(kind, "door" | "entrance") {
        return vec![(0.0, 0.0)];
    }
    v
}

/// Integer levels of ranges (fractional levels rounded; ranges expanded, at most 200).
pub fn int_levels(ranges: &[(f64, f64)]) -> Vec<i64> {
    let mut out: Vec<i64> = Vec::new();
    for &(a, b) in ranges {
        let (a, b) = (a.round() as i64, b.round() as i64);
        if b - a <= 200 {
            out.extend(a..=b);
        } else {
            out.push(a);
            out.push(b);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The integer levels of a venue's level values ([`LevelMap::new`]).
#[derive(Debug, Clone, PartialEq)]
pub struct LevelMap {
    /// Distinct level values, ascending, when some are fractional (`None`: whole numbers,
    /// which are their own levels).
    values: Option<Vec<f64>>,
}

impl LevelMap {
    /// The map of a venue whose features are on `ranges` (the ranges of every feature).
    pub fn new<'a>(ranges: impl IntoIterator<Item = &'a (f64, f64)>) -> LevelMap {
        let mut values: Vec<f64> = Vec::new();
        let mut fractional = false;
        for &(a, b) in ranges {
            fractional |= a.fract() != 0.0 || b.fract() != 0.0;
            values.push(a);
            values.push(b);
            // the whole levels a range spans (`-1-1` spans 0)
            let (lo, hi) = (a.ceil(), b.floor());
            if hi - lo <= 200.0 {
                let mut l = lo;
                while l <= hi {
                    values.push(l);
                    l += 1.0;
                }
            }
        }
        if !fractional {
            return LevelMap { values: None };
        }
        values.retain(|v| v.is_finite());
        values.sort_by(f64::total_cmp);
        values.dedup();
        LevelMap {
            values: Some(values),
        }
    }

    /// Whether the levels are numbered in order (the venue has half-levels).
    pub fn renumbered(&self) -> bool {
        self.values.is_some()
    }

    /// The integer level of a level value.
    pub fn level(&self, value: f64) -> i64 {
        let Some(values) = &self.values else {
            return value.round() as i64;
        };
        // index of the value (else of the nearest one at or above it)
        let i = values.partition_point(|v| *v < value);
        let zero = values.partition_point(|v| *v < 0.0);
        if zero == values.len() {
            // every level is below 0: the highest is -1
            i as i64 - values.len() as i64
        } else {
            i as i64 - zero as i64
        }
    }

    /// The integer levels a feature on `ranges` is on.
    pub fn levels(&self, ranges: &[(f64, f64)]) -> Vec<i64> {
        let Some(values) = &self.values else {
            return int_levels(ranges);
        };
        let mut out: Vec<i64> = values
            .iter()
            .filter(|v| ranges.iter().any(|(a, b)| *a <= **v && **v <= *b))
            .map(|v| self.level(*v))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The level values and their integer levels, ascending (`None` when whole numbers are
    /// their own levels).
    pub fn values(&self) -> Option<Vec<(f64, i64)>> {
        self.values
            .as_ref()
            .map(|v| v.iter().map(|x| (*x, self.level(*x))).collect())
    }
}

/// A level value as text (`0.5`, `-1`).
pub fn value_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e9 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn parses_level_values() {
        assert_eq!(parse_levels("0"), vec![(0.0, 0.0)]);
        assert_eq!(parse_levels("-1"), vec![(-1.0, -1.0)]);
        assert_eq!(parse_levels("1;2"), vec![(1.0, 1.0), (2.0, 2.0)]);
        assert_eq!(parse_levels("0-3"), vec![(0.0, 3.0)]);
        assert_eq!(parse_levels("-2--1"), vec![(-2.0, -1.0)]);
        assert_eq!(parse_levels("0.5"), vec![(0.5, 0.5)]);
        assert_eq!(parse_levels("x"), vec![]);
    }

    #[test]
    fn feature_levels_default_and_expand() {
        let none = |_: &str| None;
        assert_eq!(feature_levels(none, "room"), vec![(0.0, 0.0)]);
        assert!(feature_levels(none, "door").is_empty());
        let tags = |k: &str| match k {
            "level" => Some("1;3"),
            "repeat_on" => Some("5-6"),
            _ => None,
        };
        assert_eq!(int_levels(&feature_levels(tags, "room")), vec![1, 3, 5, 6]);
        assert_eq!(int_levels(&[(0.0, 1000.0)]), vec![0, 1000]);
    }

    #[test]
    fn half_levels_are_levels_of_their_own() {
        // whole numbers are their own levels
        let whole = LevelMap::new(&[(-2.0, -2.0), (0.0, 1.0)]);
        assert!(!whole.renumbered());
        assert_eq!(whole.levels(&[(0.0, 1.0)]), vec![0, 1]);
        assert_eq!(whole.level(-2.0), -2);
        // a half-level between 0 and 1 is a level: 0, 0.5, 1 -> 0, 1, 2
        let half = LevelMap::new(&[(0.0, 0.0), (0.5, 0.5), (1.0, 1.0), (-1.0, -1.0)]);
        assert!(half.renumbered());
        assert_eq!(half.level(-1.0), -1);
        assert_eq!(half.level(0.0), 0);
        assert_eq!(half.level(0.5), 1);
        assert_eq!(half.level(1.0), 2);
        // a stair from 0 to 0.5 joins two levels, a lift from -1 to 1 stops at all four
        assert_eq!(half.levels(&[(0.0, 0.0), (0.5, 0.5)]), vec![0, 1]);
        assert_eq!(half.levels(&[(-1.0, 1.0)]), vec![-1, 0, 1, 2]);
        // underground only: the highest level is -1
        let under = LevelMap::new(&[(-1.0, -1.0), (-0.5, -0.5), (-2.0, -2.0)]);
        assert_eq!(
            under.values().unwrap(),
            vec![(-2.0, -3), (-1.0, -2), (-0.5, -1)]
        );
        assert_eq!(value_text(-0.5), "-0.5");
        assert_eq!(value_text(2.0), "2");
    }
}
