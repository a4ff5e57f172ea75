//! Instruction texts of indoor directions in English, French, German, Spanish and Italian.
//!
//! ```
//! use waymark_core::indoor::text::{Lang, Say, summary};
//! assert_eq!(summary(Lang::En, &Say::Vertical { kind: "elevator", up: false, level: -2 }),
//!     "Take the elevator to level -2");
//! assert_eq!(summary(Lang::En, &Say::Turn { dir: "left", place: None, kind: "corridor" }),
//!     "Turn left into the corridor");
//! assert_eq!(summary(Lang::De, &Say::Vertical { kind: "stairs", up: true, level: 1 }),
//!     "Gehen Sie die Treppe hinauf zur Ebene 1");
//! ```

/// A language of instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// English.
    En,
    /// French.
    Fr,
    /// German.
    De,
    /// Spanish.
    Es,
    /// Italian.
    It,
}

/// The codes of the languages, as accepted by `language`.
pub const LANGUAGES: &[&str] = &["en", "fr", "de", "es", "it"];

impl Lang {
    /// The language of an ISO 639-1 code.
    pub fn parse(code: &str) -> Option<Lang> {
        Some(match code.to_ascii_lowercase().as_str() {
            "en" => Lang::En,
            "fr" => Lang::Fr,
            "de" => Lang::De,
            "es" => Lang::Es,
            "it" => Lang::It,
            _ => return None,
        })
    }
}

/// What an instruction says.
#[derive(Debug, Clone, PartialEq)]
pub enum Say<'a> {
    /// Start, heading `compass` (0 = north, clockwise by 45°), in a place.
    Depart {
        /// Compass index.
        compass: usize,
    },
    /// A turn (`dir`: `left`, `right`, `slight_left`, `slight_right`, `sharp_left`,
    /// `sharp_right`, `straight`) into a place (its name, else its kind).
    Turn {
        /// Direction.
        dir: &'a str,
        /// Name of the place entered.
        place: Option<&'a str>,
        /// Kind of the place (`corridor`, `room`, `area`, ...).
        kind: &'a str,
    },
    /// A vertical move (`kind`: `elevator`, `stairs`, `escalator`, `ramp`).
    Vertical {
        /// Connector kind.
        kind: &'a str,
        /// Going up.
        up: bool,
        /// Level reached.
        level: i64,
    },
    /// Arrival (at a named POI, or at the destination).
    Arrive {
        /// Name of the POI.
        place: Option<&'a str>,
    },
}

fn place_word(lang: Lang, kind: &str) -> &'static str {
    match (lang, kind) {
        (Lang::En, "corridor") => "the corridor",
        (Lang::En, "room") => "the room",
        (Lang::En, "stairs") => "the stairs",
        (Lang::En, _) => "the area",
        (Lang::Fr, "corridor") => "le couloir",
        (Lang::Fr, "room") => "la salle",
        (Lang::Fr, "stairs") => "l'escalier",
        (Lang::Fr, _) => "l'espace",
        (Lang::De, "corridor") => "den Gang",
        (Lang::De, "room") => "den Raum",
        (Lang::De, "stairs") => "die Treppe",
        (Lang::De, _) => "den Bereich",
        (Lang::Es, "corridor") => "el pasillo",
        (Lang::Es, "room") => "la sala",
        (Lang::Es, "stairs") => "la escalera",
        (Lang::Es, _) => "la zona",
        (Lang::It, "corridor") => "il corridoio",
        (Lang::It, "room") => "la stanza",
        (Lang::It, "stairs") => "le scale",
        (Lang::It, _) => "l'area",
    }
}

fn dir_word(lang: Lang, dir: &str) -> &'static str {
    match (lang, dir) {
        (Lang::En, "left") => "left",
        (Lang::En, "right") => "right",
        (Lang::En, "slight_left") => "slightly left",
        (Lang::En, "slight_right") => "slightly right",
        (Lang::En, "sharp_left") => "sharp left",
        (Lang::En, "sharp_right") => "sharp right",
        (Lang::En, _) => "straight on",
        (Lang::Fr, "left") => "à gauche",
        (Lang::Fr, "right") => "à droite",
        (Lang::Fr, "slight_left") => "légèrement à gauche",
        (Lang::Fr, "slight_right") => "légèrement à droite",
        (Lang::Fr, "sharp_left") => "franchement à gauche",
        (Lang::Fr, "sharp_right") => "franchement à droite",
        (Lang::Fr, _) => "tout droit",
        (Lang::De, "left") => "links",
        (Lang::De, "right") => "rechts",
        (Lang::De, "slight_left") => "leicht links",
        (Lang::De, "slight_right") => "leicht rechts",
        (Lang::De, "sharp_left") => "scharf links",
        (Lang::De, "sharp_right") => "scharf rechts",
        (Lang::De, _) => "geradeaus",
        (Lang::Es, "left") => "a la izquierda",
        (Lang::Es, "right") => "a la derecha",
        (Lang::Es, "slight_left") => "ligeramente a la izquierda",
        (Lang::Es, "slight_right") => "ligeramente a la derecha",
        (Lang::Es, "sharp_left") => "bruscamente a la izquierda",
        (Lang::Es, "sharp_right") => "bruscamente a la derecha",
        (Lang::Es, _) => "todo recto",
        (Lang::It, "left") => "a sinistra",
        (Lang::It, "right") => "a destra",
        (Lang::It, "slight_left") => "leggermente a sinistra",
        (Lang::It, "slight_right") => "leggermente a destra",
        (Lang::It, "sharp_left") => "decisamente a sinistra",
        (Lang::It, "sharp_right") => "decisamente a destra",
        (Lang::It, _) => "dritto",
    }
}

const COMPASS: [[&str; 8]; 5] = [
    [
        "north",
        "northeast",
        "east",
        "southeast",
        "south",
        "southwest",
        "west",
        "northwest",
    ],
    [
        "le nord",
        "le nord-est",
        "l'est",
        "le sud-est",
        "le sud",
        "le sud-ouest",
        "l'ouest",
        "le nord-ouest",
    ],
    [
        "Norden",
        "Nordosten",
        "Osten",
        "Südosten",
        "Süden",
        "Südwesten",
        "Westen",
        "Nordwesten",
    ],
    [
        "el norte",
        "el noreste",
        "el este",
        "el sureste",
        "el sur",
        "el suroeste",
        "el oeste",
        "el noroeste",
    ],
    [
        "nord",
        "nord-est",
        "est",
        "sud-est",
        "sud",
        "sud-ovest",
        "ovest",
        "nord-ovest",
    ],
];

fn idx(lang: Lang) -> usize {
    match lang {
        Lang::En => 0,
        Lang::Fr => 1,
        Lang::De => 2,
        Lang::Es => 3,
        Lang::It => 4,
    }
}

/// The summary of an instruction.
pub fn summary(lang: Lang, say: &Say<'_>) -> String {
    match say {
        Say::Depart { compass } => {
            let c = COMPASS[idx(lang)][compass % 8];
            match lang {
                Lang::En => format!("Head {c}"),
                Lang::Fr => format!("Dirigez-vous vers {c}"),
                Lang::De => format!("Gehen Sie Richtung {c}"),
                Lang::Es => format!("Diríjase hacia {c}"),
                Lang::It => format!("Dirigiti verso {c}"),
            }
        }
        Say::Turn { dir, place, kind } => {
            let d = dir_word(lang, dir);
            let owned;
            let p = match place {
                Some(n) => *n,
                None => {
                    owned = place_word(lang, kind);
                    owned
                }
            };
            if *dir == "straight" {
                return match lang {
                    Lang::En => format!("Continue into {p}"),
                    Lang::Fr => format!("Continuez dans {p}"),
                    Lang::De => format!("Gehen Sie weiter in {p}"),
                    Lang::Es => format!("Continúe hacia {p}"),
                    Lang::It => format!("Prosegui in {p}"),
                };
            }
            match lang {
                Lang::En => format!("Turn {d} into {p}"),
                Lang::Fr => format!("Tournez {d} dans {p}"),
                Lang::De => format!("Biegen Sie {d} in {p} ab"),
                Lang::Es => format!("Gire {d} hacia {p}"),
                Lang::It => format!("Gira {d} in {p}"),
            }
        }
        Say::Vertical { kind, up, level } => {
            let l = level;
            match (lang, *kind, *up) {
                (Lang::En, "elevator", _) => format!("Take the elevator to level {l}"),
                (Lang::En, k, u) => {
                    let what = match k {
                        "stairs" => "stairs",
                        "escalator" => "escalator",
                        _ => "ramp",
                    };
                    format!(
                        "Take the {what} {} to level {l}",
                        if u { "up" } else { "down" }
                    )
                }
                (Lang::Fr, "elevator", _) => format!("Prenez l'ascenseur jusqu'au niveau {l}"),
                (Lang::Fr, "stairs", true) => format!("Montez l'escalier jusqu'au niveau {l}"),
                (Lang::Fr, "stairs", false) => {
                    format!("Descendez l'escalier jusqu'au niveau {l}")
                }
                (Lang::Fr, k, u) => format!(
                    "Prenez {} pour {} au niveau {l}",
                    if k == "escalator" {
                        "l'escalier mécanique"
                    } else {
                        "la rampe"
                    },
                    if u { "monter" } else { "descendre" }
                ),
                (Lang::De, "elevator", _) => format!("Nehmen Sie den Aufzug zur Ebene {l}"),
                (Lang::De, "stairs", u) => format!(
                    "Gehen Sie die Treppe {} zur Ebene {l}",
                    if u { "hinauf" } else { "hinunter" }
                ),
                (Lang::De, k, u) => format!(
                    "Nehmen Sie {} nach {} zur Ebene {l}",
                    if k == "escalator" {
                        "die Rolltreppe"
                    } else {
                        "die Rampe"
                    },
                    if u { "oben" } else { "unten" }
                ),
                (Lang::Es, "elevator", _) => format!("Tome el ascensor hasta el nivel {l}"),
                (Lang::Es, "stairs", u) => format!(
                    "{} por la escalera hasta el nivel {l}",
                    if u { "Suba" } else { "Baje" }
                ),
                (Lang::Es, k, u) => format!(
                    "Tome {} para {} al nivel {l}",
                    if k == "escalator" {
                        "la escalera mecánica"
                    } else {
                        "la rampa"
                    },
                    if u { "subir" } else { "bajar" }
                ),
                (Lang::It, "elevator", _) => format!("Prendi l'ascensore fino al livello {l}"),
                (Lang::It, "stairs", u) => format!(
                    "{} le scale fino al livello {l}",
                    if u { "Sali" } else { "Scendi" }
                ),
                (Lang::It, k, u) => format!(
                    "Prendi {} per {} al livello {l}",
                    if k == "escalator" {
                        "la scala mobile"
                    } else {
                        "la rampa"
                    },
                    if u { "salire" } else { "scendere" }
                ),
            }
        }
        Say::Arrive { place } => match (lang, place) {
            (Lang::En, Some(p)) => format!("Arrive at {p}"),
            (Lang::En, None) => "You have arrived".to_owned(),
            (Lang::Fr, Some(p)) => format!("Vous êtes arrivé à {p}"),
            (Lang::Fr, None) => "Vous êtes arrivé".to_owned(),
            (Lang::De, Some(p)) => format!("Sie haben {p} erreicht"),
            (Lang::De, None) => "Sie haben Ihr Ziel erreicht".to_owned(),
            (Lang::Es, Some(p)) => format!("Ha llegado a {p}"),
            (Lang::Es, None) => "Ha llegado a su destino".to_owned(),
            (Lang::It, Some(p)) => format!("Sei arrivato a {p}"),
            (Lang::It, None) => "Sei arrivato a destinazione".to_owned(),
        },
    }
}

/// Distance text: metres (imperial: feet), whole numbers.
pub fn distance_text(metres: f64, imperial: bool) -> String {
    if imperial {
        format!("{} ft", (metres / 0.3048).round() as i64)
    } else {
        format!("{} m", metres.round() as i64)
    }
}

/// Duration text: seconds below a minute, else minutes.
pub fn duration_text(seconds: f64) -> String {
    if seconds < 59.5 {
        format!("{} s", seconds.round() as i64)
    } else {
        format!("{} min", (seconds / 60.0).round().max(1.0) as i64)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_every_sentence() {
        for code in LANGUAGES {
            let Some(lang) = Lang::parse(code) else {
                panic!("{code}")
            };
            let says = [
                Say::Depart { compass: 3 },
                Say::Turn {
                    dir: "left",
                    place: None,
                    kind: "corridor",
                },
                Say::Turn {
                    dir: "straight",
                    place: Some("Karlspassage"),
                    kind: "area",
                },
                Say::Vertical {
                    kind: "escalator",
                    up: false,
                    level: -1,
                },
                Say::Vertical {
                    kind: "stairs",
                    up: true,
                    level: 2,
                },
                Say::Arrive {
                    place: Some("Bäcker"),
                },
            ];
            let texts: Vec<String> = says.iter().map(|s| summary(lang, s)).collect();
            assert!(texts.iter().all(|t| !t.is_empty()));
            assert!(texts[2].contains("Karlspassage"));
            assert!(texts[3].contains("-1") && texts[4].contains('2'));
        }
        assert_eq!(
            summary(
                Lang::Fr,
                &Say::Vertical {
                    kind: "elevator",
                    up: true,
                    level: 1
                }
            ),
            "Prenez l'ascenseur jusqu'au niveau 1"
        );
        assert_eq!(duration_text(30.4), "30 s");
        assert_eq!(duration_text(95.0), "2 min");
        assert_eq!(distance_text(35.5, false), "36 m");
    }
}
