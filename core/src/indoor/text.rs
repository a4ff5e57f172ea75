//! Instruction texts of indoor directions in English, French, German, Spanish and Italian.
//!
//! ```
//! use waymark_core::indoor::text::{Lang, LevelName, Say, Toward, Via, summary};
//! let to = |level| Say::Vertical { kind: "elevator", up: false, level };
//! assert_eq!(summary(Lang::En, &to(LevelName::Number(-2))), "Take the elevator to level -2");
//! assert_eq!(summary(Lang::En, &to(LevelName::Ref("U2"))), "Take the elevator to level U2");
//! assert_eq!(summary(Lang::En, &to(LevelName::Name("Departures"))),
//!     "Take the elevator to Departures");
//! assert_eq!(summary(Lang::En, &Say::Turn { dir: "left", place: None, kind: "corridor",
//!     via: Some(Via::Door(None)) }), "Turn left into the corridor, through the door");
//! assert_eq!(summary(Lang::En, &Say::Depart { toward: Toward::Kind("elevator"),
//!     via: Some(Via::Past("Lindt")) }), "Head towards the elevator, past Lindt");
//! assert_eq!(summary(Lang::De, &Say::Vertical { kind: "stairs", up: true,
//!     level: LevelName::Number(1) }), "Gehen Sie die Treppe hinauf zur Ebene 1");
//! let down = Say::Vertical { kind: "stairs", up: false, level: LevelName::Ref("U1") };
//! assert_eq!(summary(Lang::De, &Say::Enter { venue: "Stachus", entrance: Some("Nord"),
//!     then: Some(Box::new(down)) }),
//!     "Betreten Sie Stachus durch den Eingang Nord und gehen Sie die Treppe hinunter zur Ebene U1");
//! assert_eq!(summary(Lang::En, &Say::Leave { venue: "Forum", entrance: None }),
//!     "Leave Forum through the entrance");
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

/// How a level is named in an instruction: the venue's own label when it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelName<'a> {
    /// No label: the level number ("level -2").
    Number(i64),
    /// A short label (`level:ref`, a venue file's `short_name`): "level U2".
    Ref(&'a str),
    /// A name (`level:name`, a level outline's `name`, a venue file's `name`): "Departures".
    Name(&'a str),
}

/// Where the first step leads: a named place, or a kind of place (`corridor`, `room`,
/// `area`, `stairs`, `escalator`, `elevator`, `ramp`, `destination`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toward<'a> {
    /// A named place (a shop, a hall, the destination POI).
    Named(&'a str),
    /// A kind of place.
    Kind(&'a str),
    /// The entrance a walk from outdoors leads to, with its name or ref when mapped.
    Entrance(Option<&'a str>),
}

/// What a step goes through or past (said after the step's sentence).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via<'a> {
    /// A door or entrance, with its name or ref when it has one.
    Door(Option<&'a str>),
    /// A gate or turnstile, with its name or ref when it has one.
    Gate(Option<&'a str>),
    /// A named landmark passed (a shop beside the way).
    Past(&'a str),
}

/// What an instruction says.
#[derive(Debug, Clone, PartialEq)]
pub enum Say<'a> {
    /// Start: where the first step leads.
    Depart {
        /// What the first step walks towards.
        toward: Toward<'a>,
        /// What it goes through or past.
        via: Option<Via<'a>>,
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
        /// What it goes through or past.
        via: Option<Via<'a>>,
    },
    /// A vertical move (`kind`: `elevator`, `stairs`, `escalator`, `ramp`).
    Vertical {
        /// Connector kind.
        kind: &'a str,
        /// Going up.
        up: bool,
        /// Level reached, in the venue's words.
        level: LevelName<'a>,
    },
    /// Entering the venue from outdoors through an entrance (with its name or ref when
    /// mapped), and the vertical move that starts right there, if any.
    Enter {
        /// The venue's name.
        venue: &'a str,
        /// The entrance's name or ref.
        entrance: Option<&'a str>,
        /// A vertical move taken at the entrance.
        then: Option<Box<Say<'a>>>,
    },
    /// Leaving the venue through an entrance to walk outdoors.
    Leave {
        /// The venue's name.
        venue: &'a str,
        /// The entrance's name or ref.
        entrance: Option<&'a str>,
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
        (Lang::En, "outdoor") => "the street",
        (Lang::En, _) => "the area",
        (Lang::Fr, "corridor") => "le couloir",
        (Lang::Fr, "room") => "la salle",
        (Lang::Fr, "stairs") => "l'escalier",
        (Lang::Fr, "outdoor") => "la rue",
        (Lang::Fr, _) => "l'espace",
        (Lang::De, "corridor") => "den Gang",
        (Lang::De, "room") => "den Raum",
        (Lang::De, "stairs") => "die Treppe",
        (Lang::De, "outdoor") => "die Straße",
        (Lang::De, _) => "den Bereich",
        (Lang::Es, "corridor") => "el pasillo",
        (Lang::Es, "room") => "la sala",
        (Lang::Es, "stairs") => "la escalera",
        (Lang::Es, "outdoor") => "la calle",
        (Lang::Es, _) => "la zona",
        (Lang::It, "corridor") => "il corridoio",
        (Lang::It, "room") => "la stanza",
        (Lang::It, "stairs") => "le scale",
        (Lang::It, "outdoor") => "la strada",
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

/// A kind of place as the goal of "head towards".
fn toward_word(lang: Lang, kind: &str) -> &'static str {
    const WORDS: [(&str, [&str; 5]); 9] = [
        (
            "entrance",
            [
                "the entrance",
                "l'entrée",
                "Eingang",
                "la entrada",
                "l'ingresso",
            ],
        ),
        (
            "corridor",
            [
                "the corridor",
                "le couloir",
                "Gang",
                "el pasillo",
                "il corridoio",
            ],
        ),
        (
            "room",
            ["the room", "la salle", "Raum", "la sala", "la stanza"],
        ),
        (
            "stairs",
            [
                "the stairs",
                "l'escalier",
                "Treppe",
                "la escalera",
                "le scale",
            ],
        ),
        (
            "escalator",
            [
                "the escalator",
                "l'escalier mécanique",
                "Rolltreppe",
                "la escalera mecánica",
                "la scala mobile",
            ],
        ),
        (
            "elevator",
            [
                "the elevator",
                "l'ascenseur",
                "Aufzug",
                "el ascensor",
                "l'ascensore",
            ],
        ),
        (
            "ramp",
            ["the ramp", "la rampe", "Rampe", "la rampa", "la rampa"],
        ),
        (
            "destination",
            [
                "your destination",
                "votre destination",
                "Ziel",
                "su destino",
                "la destinazione",
            ],
        ),
        (
            "outdoor",
            ["the street", "la rue", "Straße", "la calle", "la strada"],
        ),
    ];
    let i = idx(lang);
    WORDS.iter().find(|(k, _)| *k == kind).map_or(
        ["the area", "l'espace", "Bereich", "la zona", "l'area"][i],
        |(_, w)| w[i],
    )
}

/// The level reached, with its preposition: `(to, at)` forms (`to level 2`, `to Departures`;
/// French `au niveau 2` / `à Départs`, Spanish and Italian `al nivel 2` / `a Salidas`).
fn level_to(lang: Lang, level: LevelName<'_>) -> String {
    let (label, named) = match level {
        LevelName::Number(n) => (n.to_string(), false),
        LevelName::Ref(r) => (r.to_owned(), false),
        LevelName::Name(n) => (n.to_owned(), true),
    };
    match (lang, named) {
        (Lang::En, false) => format!("to level {label}"),
        (Lang::En, true) => format!("to {label}"),
        (Lang::Fr, false) => format!("au niveau {label}"),
        (Lang::Fr, true) => format!("à {label}"),
        (Lang::De, _) => format!("zur Ebene {label}"),
        (Lang::Es, false) => format!("al nivel {label}"),
        (Lang::Es, true) => format!("a {label}"),
        (Lang::It, false) => format!("al livello {label}"),
        (Lang::It, true) => format!("a {label}"),
    }
}

/// What a step goes through or past, as a clause after its sentence.
fn via_text(lang: Lang, via: Option<Via<'_>>) -> String {
    let Some(via) = via else {
        return String::new();
    };
    let labelled = |word: &str, label: Option<&str>| match label {
        Some(l) => format!("{word} {l}"),
        None => word.to_owned(),
    };
    match (lang, via) {
        (Lang::En, Via::Door(l)) => format!(", through {}", labelled("the door", l)),
        (Lang::En, Via::Gate(l)) => format!(", through {}", labelled("the gate", l)),
        (Lang::En, Via::Past(p)) => format!(", past {p}"),
        (Lang::Fr, Via::Door(l)) => format!(", par {}", labelled("la porte", l)),
        (Lang::Fr, Via::Gate(l)) => format!(", par {}", labelled("le portillon", l)),
        (Lang::Fr, Via::Past(p)) => format!(", en passant devant {p}"),
        (Lang::De, Via::Door(l)) => format!(", durch {}", labelled("die Tür", l)),
        (Lang::De, Via::Gate(l)) => format!(", durch {}", labelled("die Sperre", l)),
        (Lang::De, Via::Past(p)) => format!(", vorbei an {p}"),
        (Lang::Es, Via::Door(l)) => format!(", por {}", labelled("la puerta", l)),
        (Lang::Es, Via::Gate(l)) => format!(", por {}", labelled("el torniquete", l)),
        (Lang::Es, Via::Past(p)) => format!(", pasando junto a {p}"),
        (Lang::It, Via::Door(l)) => format!(", attraverso {}", labelled("la porta", l)),
        (Lang::It, Via::Gate(l)) => format!(", attraverso {}", labelled("il varco", l)),
        (Lang::It, Via::Past(p)) => format!(", passando davanti a {p}"),
    }
}

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
        Say::Depart { toward, via } => {
            let t = match toward {
                Toward::Named(n) => (*n).to_owned(),
                Toward::Kind(k) => toward_word(lang, k).to_owned(),
                Toward::Entrance(None) => toward_word(lang, "entrance").to_owned(),
                Toward::Entrance(Some(l)) => format!("{} {l}", toward_word(lang, "entrance")),
            };
            let v = via_text(lang, *via);
            match lang {
                Lang::En => format!("Head towards {t}{v}"),
                Lang::Fr => format!("Dirigez-vous vers {t}{v}"),
                Lang::De => format!("Gehen Sie Richtung {t}{v}"),
                Lang::Es => format!("Diríjase hacia {t}{v}"),
                Lang::It => format!("Dirigiti verso {t}{v}"),
            }
        }
        Say::Turn {
            dir,
            place,
            kind,
            via,
        } => {
            let d = dir_word(lang, dir);
            let owned;
            let p = match place {
                Some(n) => *n,
                None => {
                    owned = place_word(lang, kind);
                    owned
                }
            };
            let v = via_text(lang, *via);
            if *dir == "straight" {
                return match lang {
                    Lang::En => format!("Continue into {p}{v}"),
                    Lang::Fr => format!("Continuez dans {p}{v}"),
                    Lang::De => format!("Gehen Sie weiter in {p}{v}"),
                    Lang::Es => format!("Continúe hacia {p}{v}"),
                    Lang::It => format!("Prosegui in {p}{v}"),
                };
            }
            match lang {
                Lang::En => format!("Turn {d} into {p}{v}"),
                Lang::Fr => format!("Tournez {d} dans {p}{v}"),
                Lang::De => format!("Biegen Sie {d} in {p} ab{v}"),
                Lang::Es => format!("Gire {d} hacia {p}{v}"),
                Lang::It => format!("Gira {d} in {p}{v}"),
            }
        }
        Say::Vertical { kind, up, level } => {
            let to = level_to(lang, *level);
            match (lang, *kind, *up) {
                (Lang::En, "elevator", _) => format!("Take the elevator {to}"),
                (Lang::En, k, u) => {
                    let what = match k {
                        "stairs" => "stairs",
                        "escalator" => "escalator",
                        _ => "ramp",
                    };
                    format!("Take the {what} {} {to}", if u { "up" } else { "down" })
                }
                (Lang::Fr, "elevator", _) => format!("Prenez l'ascenseur jusqu'{to}"),
                (Lang::Fr, "stairs", true) => format!("Montez l'escalier jusqu'{to}"),
                (Lang::Fr, "stairs", false) => format!("Descendez l'escalier jusqu'{to}"),
                (Lang::Fr, k, u) => format!(
                    "Prenez {} pour {} {to}",
                    if k == "escalator" {
                        "l'escalier mécanique"
                    } else {
                        "la rampe"
                    },
                    if u { "monter" } else { "descendre" }
                ),
                (Lang::De, "elevator", _) => format!("Nehmen Sie den Aufzug {to}"),
                (Lang::De, "stairs", u) => format!(
                    "Gehen Sie die Treppe {} {to}",
                    if u { "hinauf" } else { "hinunter" }
                ),
                (Lang::De, k, u) => format!(
                    "Nehmen Sie {} nach {} {to}",
                    if k == "escalator" {
                        "die Rolltreppe"
                    } else {
                        "die Rampe"
                    },
                    if u { "oben" } else { "unten" }
                ),
                (Lang::Es, "elevator", _) => format!("Tome el ascensor {to}"),
                (Lang::Es, "stairs", u) => {
                    format!("{} por la escalera {to}", if u { "Suba" } else { "Baje" })
                }
                (Lang::Es, k, u) => format!(
                    "Tome {} para {} {to}",
                    if k == "escalator" {
                        "la escalera mecánica"
                    } else {
                        "la rampa"
                    },
                    if u { "subir" } else { "bajar" }
                ),
                (Lang::It, "elevator", _) => format!("Prendi l'ascensore fino {to}"),
                (Lang::It, "stairs", u) => {
                    format!("{} le scale fino {to}", if u { "Sali" } else { "Scendi" })
                }
                (Lang::It, k, u) => format!(
                    "Prendi {} per {} {to}",
                    if k == "escalator" {
                        "la scala mobile"
                    } else {
                        "la rampa"
                    },
                    if u { "salire" } else { "scendere" }
                ),
            }
        }
        Say::Enter {
            venue,
            entrance,
            then,
        } => {
            let e = |word: &str| match entrance {
                Some(l) => format!("{word} {l}"),
                None => word.to_owned(),
            };
            let first = match lang {
                Lang::En => format!("Enter {venue} through {}", e("the entrance")),
                Lang::Fr => format!("Entrez dans {venue} par {}", e("l'entrée")),
                Lang::De => format!("Betreten Sie {venue} durch {}", e("den Eingang")),
                Lang::Es => format!("Entre en {venue} por {}", e("la entrada")),
                Lang::It => format!("Entra in {venue} da {}", e("l'ingresso")),
            };
            match then {
                None => first,
                Some(next) => {
                    let rest = summary(lang, next);
                    let mut chars = rest.chars();
                    let rest: String = chars
                        .next()
                        .map(|c| c.to_lowercase().chain(chars).collect())
                        .unwrap_or_default();
                    let and = match lang {
                        Lang::En => "and",
                        Lang::Fr => "et",
                        Lang::De => "und",
                        Lang::Es => "y",
                        Lang::It => "e",
                    };
                    format!("{first} {and} {rest}")
                }
            }
        }
        Say::Leave { venue, entrance } => {
            let e = |word: &str| match entrance {
                Some(l) => format!("{word} {l}"),
                None => word.to_owned(),
            };
            match lang {
                Lang::En => format!("Leave {venue} through {}", e("the entrance")),
                Lang::Fr => format!("Sortez de {venue} par {}", e("l'entrée")),
                Lang::De => format!("Verlassen Sie {venue} durch {}", e("den Eingang")),
                Lang::Es => format!("Salga de {venue} por {}", e("la entrada")),
                Lang::It => format!("Esci da {venue} da {}", e("l'ingresso")),
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
                Say::Depart {
                    toward: Toward::Kind("elevator"),
                    via: None,
                },
                Say::Turn {
                    dir: "left",
                    place: None,
                    kind: "corridor",
                    via: Some(Via::Door(Some("B12"))),
                },
                Say::Turn {
                    dir: "straight",
                    place: Some("Karlspassage"),
                    kind: "area",
                    via: Some(Via::Past("Lindt")),
                },
                Say::Vertical {
                    kind: "escalator",
                    up: false,
                    level: LevelName::Number(-1),
                },
                Say::Vertical {
                    kind: "stairs",
                    up: true,
                    level: LevelName::Ref("U2"),
                },
                Say::Vertical {
                    kind: "elevator",
                    up: true,
                    level: LevelName::Name("Departures"),
                },
                Say::Depart {
                    toward: Toward::Named("Rischart"),
                    via: Some(Via::Gate(None)),
                },
                Say::Arrive {
                    place: Some("Bäcker"),
                },
            ];
            let texts: Vec<String> = says.iter().map(|s| summary(lang, s)).collect();
            assert!(texts.iter().all(|t| !t.is_empty()));
            assert!(texts[1].contains("B12"), "{}", texts[1]);
            assert!(texts[2].contains("Karlspassage") && texts[2].contains("Lindt"));
            assert!(texts[3].contains("-1") && texts[4].contains("U2"));
            assert!(texts[5].contains("Departures") && texts[6].contains("Rischart"));
            // no compass heading in any first step
            for compass in ["north", "nord", "Norden", "norte", "sud", "south"] {
                assert!(!texts[0].contains(compass), "{}", texts[0]);
            }
            // every sentence of a language differs from every other
            let distinct: std::collections::HashSet<&String> = texts.iter().collect();
            assert_eq!(distinct.len(), texts.len(), "{texts:?}");
        }
        let fr = |level| {
            summary(
                Lang::Fr,
                &Say::Vertical {
                    kind: "elevator",
                    up: true,
                    level,
                },
            )
        };
        assert_eq!(
            fr(LevelName::Number(1)),
            "Prenez l'ascenseur jusqu'au niveau 1"
        );
        assert_eq!(
            fr(LevelName::Name("Départs")),
            "Prenez l'ascenseur jusqu'à Départs"
        );
        assert_eq!(
            summary(
                Lang::It,
                &Say::Vertical {
                    kind: "stairs",
                    up: false,
                    level: LevelName::Ref("P1"),
                }
            ),
            "Scendi le scale fino al livello P1"
        );
        assert_eq!(
            summary(
                Lang::De,
                &Say::Depart {
                    toward: Toward::Kind("escalator"),
                    via: Some(Via::Past("Lindt")),
                }
            ),
            "Gehen Sie Richtung Rolltreppe, vorbei an Lindt"
        );
        assert_eq!(duration_text(30.4), "30 s");
        assert_eq!(duration_text(95.0), "2 min");
        assert_eq!(distance_text(35.5, false), "36 m");
        assert_eq!(distance_text(35.5, true), "116 ft");
    }
}
