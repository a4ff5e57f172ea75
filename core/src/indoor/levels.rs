//! The levels of an indoor feature from its OSM `level` and `repeat_on` values. The pack
//! builder stores each feature's lowest and highest level; the walkable graph, built from the
//! stored features when a venue is first read (pack format 6), needs every level a feature is
//! on (`1;3` is on 1 and 3, not 2), so both read the tags through these functions.

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
}
