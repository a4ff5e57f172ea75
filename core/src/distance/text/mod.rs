//! Texts of the distance group in the spec's 20 languages: distances (`units`), durations and
//! step instructions.
//!
//! Distances: metric below 1 km in metres (rounded to 10 m), then km with one decimal below
//! 10 km; imperial below 0.1 mi in feet (rounded to 10 ft), then miles with one decimal below
//! 10 mi. The decimal separator is the language's. Durations: minutes below an hour, then hours
//! and minutes, then days and hours (Google's style, e.g. `1 hour 5 mins`).
//!
//! The words of each language are tables in `languages`; this module formats with them.
mod languages;

use crate::api::{RouteLanguage, Units};

/// A manoeuvre at the start of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Maneuver {
    /// Start of a leg, heading in a compass direction (index 0 = north, clockwise by 45°).
    Depart(usize),
    /// Straight on onto another road.
    Continue,
    /// Slight left.
    SlightLeft,
    /// Slight right.
    SlightRight,
    /// Left.
    Left,
    /// Right.
    Right,
    /// Sharp left.
    SharpLeft,
    /// Sharp right.
    SharpRight,
    /// U-turn.
    UTurn,
    /// Boarding a ferry.
    Ferry,
    /// End of the leg.
    Arrive,
}

impl Maneuver {
    /// Machine-readable name (`depart`, `turn-left`, ...).
    pub fn code(self) -> &'static str {
        match self {
            Maneuver::Depart(_) => "depart",
            Maneuver::Continue => "straight",
            Maneuver::SlightLeft => "turn-slight-left",
            Maneuver::SlightRight => "turn-slight-right",
            Maneuver::Left => "turn-left",
            Maneuver::Right => "turn-right",
            Maneuver::SharpLeft => "turn-sharp-left",
            Maneuver::SharpRight => "turn-sharp-right",
            Maneuver::UTurn => "uturn",
            Maneuver::Ferry => "ferry",
            Maneuver::Arrive => "arrive",
        }
    }

    /// The manoeuvre of a turn by `deviation` degrees (positive: right).
    pub fn of_turn(deviation: f64) -> Maneuver {
        let a = deviation.abs();
        let right = deviation > 0.0;
        match a {
            a if a < 20.0 => Maneuver::Continue,
            a if a < 45.0 => {
                if right {
                    Maneuver::SlightRight
                } else {
                    Maneuver::SlightLeft
                }
            }
            a if a < 135.0 => {
                if right {
                    Maneuver::Right
                } else {
                    Maneuver::Left
                }
            }
            _ => {
                if right {
                    Maneuver::SharpRight
                } else {
                    Maneuver::SharpLeft
                }
            }
        }
    }
}

/// The words of one language.
struct Words {
    /// Decimal separator.
    dec: char,
    /// km, m, mi, ft.
    units: [&'static str; 4],
    /// (singular, plural) for day, hour, minute.
    day: (&'static str, &'static str),
    hour: (&'static str, &'static str),
    min: (&'static str, &'static str),
    /// The eight compass directions from north, clockwise.
    dirs: [&'static str; 8],
    /// `Head {dir}`, `Head {dir} on {name}`.
    head: (&'static str, &'static str),
    /// Continue: without, with `{name}`.
    cont: (&'static str, &'static str),
    /// Turns (slight left, slight right, left, right, sharp left, sharp right): the action,
    /// then the form `… onto {name}`.
    turns: [(&'static str, &'static str); 6],
    /// U-turn.
    uturn: (&'static str, &'static str),
    /// Ferry.
    ferry: (&'static str, &'static str),
    /// Arrival.
    arrive: &'static str,
}

fn words(lang: RouteLanguage) -> &'static Words {
    use RouteLanguage as L;
    use languages::*;
    match lang {
        L::En => &EN,
        L::Fr => &FR,
        L::Ca => &CA,
        L::Da => &DA,
        L::De => &DE,
        L::Es => &ES,
        L::Et => &ET,
        L::Fi => &FI,
        L::He => &HE,
        L::It => &IT,
        L::Ja => &JA,
        L::Nb => &NB,
        L::Nl => &NL,
        L::Pl => &PL,
        L::Pt => &PT,
        L::Ro => &RO,
        L::Ru => &RU,
        L::Sv => &SV,
        L::Uk => &UK,
        L::Zh => &ZH,
    }
}

fn number(v: f64, decimals: bool, dec: char) -> String {
    if decimals {
        let s = format!("{v:.1}");
        if dec == '.' {
            s
        } else {
            s.replace('.', &dec.to_string())
        }
    } else {
        format!("{}", v.round() as i64)
    }
}

/// A distance in metres as text.
pub fn distance(metres: f64, units: Units, lang: RouteLanguage) -> String {
    let w = words(lang);
    let metres = metres.max(0.0);
    match units {
        Units::Metric => {
            if metres < 950.0 {
                let m = round_small(metres);
                format!("{} {}", number(m, false, w.dec), w.units[1])
            } else {
                let km = metres / 1000.0;
                format!("{} {}", number(km, km < 9.95, w.dec), w.units[0])
            }
        }
        Units::Imperial => {
            let miles = metres / 1609.344;
            if miles < 0.1 {
                let ft = round_small(metres / 0.3048);
                format!("{} {}", number(ft, false, w.dec), w.units[3])
            } else {
                format!("{} {}", number(miles, miles < 9.95, w.dec), w.units[2])
            }
        }
    }
}

/// A count of the small unit (metres, feet): whole below 10, else rounded to tens.
fn round_small(v: f64) -> f64 {
    if v < 10.0 {
        v.round()
    } else {
        (v / 10.0).round() * 10.0
    }
}

fn count(n: u64, forms: (&str, &str)) -> String {
    format!("{n} {}", if n == 1 { forms.0 } else { forms.1 })
}

/// A duration in seconds as text.
pub fn duration(seconds: f64, lang: RouteLanguage) -> String {
    let w = words(lang);
    let total_min = (seconds.max(0.0) / 60.0).round() as u64;
    let total_min = if seconds > 0.0 { total_min.max(1) } else { 0 };
    let (days, hours, mins) = (total_min / 1440, total_min / 60 % 24, total_min % 60);
    let sep = if matches!(lang, RouteLanguage::Ja | RouteLanguage::Zh) {
        ""
    } else {
        " "
    };
    let parts: Vec<String> = if days > 0 {
        let mut v = vec![count(days, w.day)];
        if hours > 0 {
            v.push(count(hours, w.hour));
        }
        v
    } else if hours > 0 {
        let mut v = vec![count(hours, w.hour)];
        if mins > 0 {
            v.push(count(mins, w.min));
        }
        v
    } else {
        vec![count(mins, w.min)]
    };
    let joined = parts.join(sep);
    if sep.is_empty() {
        joined.replace(' ', "")
    } else {
        joined
    }
}

/// The compass direction index (0 = north, clockwise by 45°) of a bearing.
pub fn compass(bearing: f64) -> usize {
    (((bearing % 360.0 + 360.0) % 360.0 + 22.5) / 45.0) as usize % 8
}

/// The instruction of a step for humans.
pub fn instruction(m: Maneuver, name: &str, lang: RouteLanguage) -> String {
    let w = words(lang);
    let fill = |pair: (&str, &str)| {
        if name.is_empty() {
            pair.0.to_string()
        } else {
            pair.1.replace("{name}", name)
        }
    };
    match m {
        Maneuver::Depart(d) => fill(w.head).replace("{dir}", w.dirs[d % 8]),
        Maneuver::Continue => fill(w.cont),
        Maneuver::SlightLeft => fill(w.turns[0]),
        Maneuver::SlightRight => fill(w.turns[1]),
        Maneuver::Left => fill(w.turns[2]),
        Maneuver::Right => fill(w.turns[3]),
        Maneuver::SharpLeft => fill(w.turns[4]),
        Maneuver::SharpRight => fill(w.turns[5]),
        Maneuver::UTurn => fill(w.uturn),
        Maneuver::Ferry => fill(w.ferry),
        Maneuver::Arrive => w.arrive.to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::api::RouteLanguage as L;

    #[test]
    fn distances_in_both_unit_systems() {
        assert_eq!(distance(1234.0, Units::Metric, L::En), "1.2 km");
        assert_eq!(distance(1234.0, Units::Metric, L::De), "1,2 km");
        assert_eq!(distance(348.0, Units::Metric, L::En), "350 m");
        assert_eq!(distance(23_400.0, Units::Metric, L::Fr), "23 km");
        assert_eq!(distance(1609.344 * 2.5, Units::Imperial, L::En), "2.5 mi");
        assert_eq!(distance(100.0, Units::Imperial, L::En), "330 ft");
        assert_eq!(distance(1000.0, Units::Metric, L::Ru), "1,0 км");
    }

    #[test]
    fn durations() {
        assert_eq!(duration(300.0, L::En), "5 mins");
        assert_eq!(duration(61.0, L::En), "1 min");
        assert_eq!(duration(3900.0, L::En), "1 hour 5 mins");
        assert_eq!(duration(7200.0, L::En), "2 hours");
        assert_eq!(duration(3900.0, L::De), "1 Std. 5 Min.");
        assert_eq!(duration(3900.0, L::Ja), "1時間5分");
        assert_eq!(duration(90_000.0, L::En), "1 day 1 hour");
    }

    #[test]
    fn instructions_in_every_language() {
        for lang in [
            L::En,
            L::Fr,
            L::Ca,
            L::Da,
            L::De,
            L::Es,
            L::Et,
            L::Fi,
            L::He,
            L::It,
            L::Ja,
            L::Nb,
            L::Nl,
            L::Pl,
            L::Pt,
            L::Ro,
            L::Ru,
            L::Sv,
            L::Uk,
            L::Zh,
        ] {
            let named = instruction(Maneuver::Left, "Carrer Major", lang);
            assert!(named.contains("Carrer Major"), "{lang:?}: {named}");
            let bare = instruction(Maneuver::Left, "", lang);
            assert!(!bare.contains('{') && !bare.is_empty(), "{lang:?}: {bare}");
            let head = instruction(Maneuver::Depart(2), "Av. Meritxell", lang);
            assert!(!head.contains('{'), "{lang:?}: {head}");
            assert_ne!(
                instruction(Maneuver::Right, "", lang),
                instruction(Maneuver::Left, "", lang)
            );
        }
        assert_eq!(instruction(Maneuver::Depart(2), "", L::En), "Head east");
        assert_eq!(
            instruction(Maneuver::Right, "Rue X", L::Fr),
            "Tourner à droite sur Rue X"
        );
        assert_eq!(compass(350.0), 0);
        assert_eq!(compass(95.0), 2);
    }
}
