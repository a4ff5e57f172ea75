//! Texts of the distance group in the spec's 20 languages: distances (`units`), durations and
//! step instructions.
//!
//! Distances: metric below 1 km in metres (rounded to 10 m), then km with one decimal below
//! 10 km; imperial below 0.1 mi in feet (rounded to 10 ft), then miles with one decimal below
//! 10 mi. The decimal separator is the language's. Durations: minutes below an hour, then hours
//! and minutes, then days and hours (Google's style, e.g. `1 hour 5 mins`).
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
                let m = if metres < 10.0 {
                    metres.round()
                } else {
                    (metres / 10.0).round() * 10.0
                };
                format!("{} {}", number(m, false, w.dec), w.units[1])
            } else {
                let km = metres / 1000.0;
                format!("{} {}", number(km, km < 9.95, w.dec), w.units[0])
            }
        }
        Units::Imperial => {
            let miles = metres / 1609.344;
            if miles < 0.1 {
                let ft = metres / 0.3048;
                let ft = if ft < 10.0 {
                    ft.round()
                } else {
                    (ft / 10.0).round() * 10.0
                };
                format!("{} {}", number(ft, false, w.dec), w.units[3])
            } else {
                format!("{} {}", number(miles, miles < 9.95, w.dec), w.units[2])
            }
        }
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

static EN: Words = Words {
    dec: '.',
    units: ["km", "m", "mi", "ft"],
    day: ("day", "days"),
    hour: ("hour", "hours"),
    min: ("min", "mins"),
    dirs: [
        "north",
        "northeast",
        "east",
        "southeast",
        "south",
        "southwest",
        "west",
        "northwest",
    ],
    head: ("Head {dir}", "Head {dir} on {name}"),
    cont: ("Continue straight", "Continue onto {name}"),
    turns: [
        ("Turn slight left", "Turn slight left onto {name}"),
        ("Turn slight right", "Turn slight right onto {name}"),
        ("Turn left", "Turn left onto {name}"),
        ("Turn right", "Turn right onto {name}"),
        ("Turn sharp left", "Turn sharp left onto {name}"),
        ("Turn sharp right", "Turn sharp right onto {name}"),
    ],
    uturn: ("Make a U-turn", "Make a U-turn onto {name}"),
    ferry: ("Take the ferry", "Take the ferry {name}"),
    arrive: "Arrive at your destination",
};

static FR: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "ft"],
    day: ("jour", "jours"),
    hour: ("h", "h"),
    min: ("min", "min"),
    dirs: [
        "le nord",
        "le nord-est",
        "l'est",
        "le sud-est",
        "le sud",
        "le sud-ouest",
        "l'ouest",
        "le nord-ouest",
    ],
    head: (
        "Prendre la direction {dir}",
        "Prendre la direction {dir} sur {name}",
    ),
    cont: ("Continuer tout droit", "Continuer sur {name}"),
    turns: [
        (
            "Tourner légèrement à gauche",
            "Tourner légèrement à gauche sur {name}",
        ),
        (
            "Tourner légèrement à droite",
            "Tourner légèrement à droite sur {name}",
        ),
        ("Tourner à gauche", "Tourner à gauche sur {name}"),
        ("Tourner à droite", "Tourner à droite sur {name}"),
        (
            "Tourner fortement à gauche",
            "Tourner fortement à gauche sur {name}",
        ),
        (
            "Tourner fortement à droite",
            "Tourner fortement à droite sur {name}",
        ),
    ],
    uturn: ("Faire demi-tour", "Faire demi-tour sur {name}"),
    ferry: ("Prendre le ferry", "Prendre le ferry {name}"),
    arrive: "Vous êtes arrivé à destination",
};

static CA: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "peus"],
    day: ("dia", "dies"),
    hour: ("h", "h"),
    min: ("min", "min"),
    dirs: [
        "nord",
        "nord-est",
        "est",
        "sud-est",
        "sud",
        "sud-oest",
        "oest",
        "nord-oest",
    ],
    head: (
        "Dirigiu-vos cap al {dir}",
        "Dirigiu-vos cap al {dir} per {name}",
    ),
    cont: ("Continueu recte", "Continueu per {name}"),
    turns: [
        (
            "Gireu lleugerament a l'esquerra",
            "Gireu lleugerament a l'esquerra cap a {name}",
        ),
        (
            "Gireu lleugerament a la dreta",
            "Gireu lleugerament a la dreta cap a {name}",
        ),
        ("Gireu a l'esquerra", "Gireu a l'esquerra cap a {name}"),
        ("Gireu a la dreta", "Gireu a la dreta cap a {name}"),
        (
            "Gireu bruscament a l'esquerra",
            "Gireu bruscament a l'esquerra cap a {name}",
        ),
        (
            "Gireu bruscament a la dreta",
            "Gireu bruscament a la dreta cap a {name}",
        ),
    ],
    uturn: ("Feu mitja volta", "Feu mitja volta cap a {name}"),
    ferry: ("Agafeu el transbordador", "Agafeu el transbordador {name}"),
    arrive: "Heu arribat a la destinació",
};

static DA: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "fod"],
    day: ("dag", "dage"),
    hour: ("t.", "t."),
    min: ("min.", "min."),
    dirs: [
        "nord", "nordøst", "øst", "sydøst", "syd", "sydvest", "vest", "nordvest",
    ],
    head: ("Kør mod {dir}", "Kør mod {dir} ad {name}"),
    cont: ("Fortsæt ligeud", "Fortsæt ad {name}"),
    turns: [
        ("Drej svagt til venstre", "Drej svagt til venstre ad {name}"),
        ("Drej svagt til højre", "Drej svagt til højre ad {name}"),
        ("Drej til venstre", "Drej til venstre ad {name}"),
        ("Drej til højre", "Drej til højre ad {name}"),
        (
            "Drej skarpt til venstre",
            "Drej skarpt til venstre ad {name}",
        ),
        ("Drej skarpt til højre", "Drej skarpt til højre ad {name}"),
    ],
    uturn: ("Foretag en U-vending", "Foretag en U-vending ad {name}"),
    ferry: ("Tag færgen", "Tag færgen {name}"),
    arrive: "Du er fremme ved din destination",
};

static DE: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "ft"],
    day: ("Tag", "Tage"),
    hour: ("Std.", "Std."),
    min: ("Min.", "Min."),
    dirs: [
        "Norden",
        "Nordosten",
        "Osten",
        "Südosten",
        "Süden",
        "Südwesten",
        "Westen",
        "Nordwesten",
    ],
    head: (
        "Richtung {dir} starten",
        "Richtung {dir} auf {name} starten",
    ),
    cont: ("Geradeaus weiterfahren", "Weiter auf {name}"),
    turns: [
        ("Leicht links abbiegen", "Leicht links abbiegen auf {name}"),
        (
            "Leicht rechts abbiegen",
            "Leicht rechts abbiegen auf {name}",
        ),
        ("Links abbiegen", "Links abbiegen auf {name}"),
        ("Rechts abbiegen", "Rechts abbiegen auf {name}"),
        ("Scharf links abbiegen", "Scharf links abbiegen auf {name}"),
        (
            "Scharf rechts abbiegen",
            "Scharf rechts abbiegen auf {name}",
        ),
    ],
    uturn: ("Wenden", "Wenden auf {name}"),
    ferry: ("Fähre nehmen", "Fähre {name} nehmen"),
    arrive: "Sie haben Ihr Ziel erreicht",
};

static ES: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "pies"],
    day: ("día", "días"),
    hour: ("h", "h"),
    min: ("min", "min"),
    dirs: [
        "norte", "noreste", "este", "sureste", "sur", "suroeste", "oeste", "noroeste",
    ],
    head: (
        "Dirígete hacia el {dir}",
        "Dirígete hacia el {dir} por {name}",
    ),
    cont: ("Continúa recto", "Continúa por {name}"),
    turns: [
        (
            "Gira ligeramente a la izquierda",
            "Gira ligeramente a la izquierda hacia {name}",
        ),
        (
            "Gira ligeramente a la derecha",
            "Gira ligeramente a la derecha hacia {name}",
        ),
        ("Gira a la izquierda", "Gira a la izquierda hacia {name}"),
        ("Gira a la derecha", "Gira a la derecha hacia {name}"),
        (
            "Gira bruscamente a la izquierda",
            "Gira bruscamente a la izquierda hacia {name}",
        ),
        (
            "Gira bruscamente a la derecha",
            "Gira bruscamente a la derecha hacia {name}",
        ),
    ],
    uturn: ("Cambia de sentido", "Cambia de sentido hacia {name}"),
    ferry: ("Toma el ferry", "Toma el ferry {name}"),
    arrive: "Has llegado a tu destino",
};

static ET: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "jalga"],
    day: ("päev", "päeva"),
    hour: ("h", "h"),
    min: ("min", "min"),
    dirs: [
        "põhja",
        "kirde",
        "itta",
        "kagusse",
        "lõunasse",
        "edelasse",
        "läände",
        "loodesse",
    ],
    head: ("Suundu {dir}", "Suundu {dir} mööda teed {name}"),
    cont: ("Jätka otse", "Jätka teele {name}"),
    turns: [
        (
            "Keera kergelt vasakule",
            "Keera kergelt vasakule teele {name}",
        ),
        (
            "Keera kergelt paremale",
            "Keera kergelt paremale teele {name}",
        ),
        ("Keera vasakule", "Keera vasakule teele {name}"),
        ("Keera paremale", "Keera paremale teele {name}"),
        (
            "Keera järsult vasakule",
            "Keera järsult vasakule teele {name}",
        ),
        (
            "Keera järsult paremale",
            "Keera järsult paremale teele {name}",
        ),
    ],
    uturn: ("Pööra tagasi", "Pööra tagasi teele {name}"),
    ferry: ("Mine praamile", "Mine praamile {name}"),
    arrive: "Oled jõudnud sihtkohta",
};

static FI: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "jalkaa"],
    day: ("vrk", "vrk"),
    hour: ("t", "t"),
    min: ("min", "min"),
    dirs: [
        "pohjoiseen",
        "koilliseen",
        "itään",
        "kaakkoon",
        "etelään",
        "lounaaseen",
        "länteen",
        "luoteeseen",
    ],
    head: ("Suuntaa {dir}", "Suuntaa {dir} tietä {name}"),
    cont: ("Jatka suoraan", "Jatka tielle {name}"),
    turns: [
        (
            "Käänny loivasti vasemmalle",
            "Käänny loivasti vasemmalle tielle {name}",
        ),
        (
            "Käänny loivasti oikealle",
            "Käänny loivasti oikealle tielle {name}",
        ),
        ("Käänny vasemmalle", "Käänny vasemmalle tielle {name}"),
        ("Käänny oikealle", "Käänny oikealle tielle {name}"),
        (
            "Käänny jyrkästi vasemmalle",
            "Käänny jyrkästi vasemmalle tielle {name}",
        ),
        (
            "Käänny jyrkästi oikealle",
            "Käänny jyrkästi oikealle tielle {name}",
        ),
    ],
    uturn: ("Tee U-käännös", "Tee U-käännös tielle {name}"),
    ferry: ("Nouse lautalle", "Nouse lautalle {name}"),
    arrive: "Olet perillä",
};

static HE: Words = Words {
    dec: '.',
    units: ["ק\"מ", "מ'", "מייל", "רגל"],
    day: ("יום", "ימים"),
    hour: ("שעה", "שעות"),
    min: ("דקה", "דקות"),
    dirs: [
        "צפון",
        "צפון-מזרח",
        "מזרח",
        "דרום-מזרח",
        "דרום",
        "דרום-מערב",
        "מערב",
        "צפון-מערב",
    ],
    head: ("סע לכיוון {dir}", "סע לכיוון {dir} ב{name}"),
    cont: ("המשך ישר", "המשך אל {name}"),
    turns: [
        ("פנה קלות שמאלה", "פנה קלות שמאלה אל {name}"),
        ("פנה קלות ימינה", "פנה קלות ימינה אל {name}"),
        ("פנה שמאלה", "פנה שמאלה אל {name}"),
        ("פנה ימינה", "פנה ימינה אל {name}"),
        ("פנה חדות שמאלה", "פנה חדות שמאלה אל {name}"),
        ("פנה חדות ימינה", "פנה חדות ימינה אל {name}"),
    ],
    uturn: ("בצע פניית פרסה", "בצע פניית פרסה אל {name}"),
    ferry: ("עלה על המעבורת", "עלה על המעבורת {name}"),
    arrive: "הגעת ליעד",
};

static IT: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "piedi"],
    day: ("giorno", "giorni"),
    hour: ("h", "h"),
    min: ("min", "min"),
    dirs: [
        "nord",
        "nord-est",
        "est",
        "sud-est",
        "sud",
        "sud-ovest",
        "ovest",
        "nord-ovest",
    ],
    head: ("Procedi verso {dir}", "Procedi verso {dir} su {name}"),
    cont: ("Prosegui dritto", "Prosegui su {name}"),
    turns: [
        (
            "Svolta leggermente a sinistra",
            "Svolta leggermente a sinistra in {name}",
        ),
        (
            "Svolta leggermente a destra",
            "Svolta leggermente a destra in {name}",
        ),
        ("Svolta a sinistra", "Svolta a sinistra in {name}"),
        ("Svolta a destra", "Svolta a destra in {name}"),
        (
            "Svolta bruscamente a sinistra",
            "Svolta bruscamente a sinistra in {name}",
        ),
        (
            "Svolta bruscamente a destra",
            "Svolta bruscamente a destra in {name}",
        ),
    ],
    uturn: ("Fai inversione a U", "Fai inversione a U in {name}"),
    ferry: ("Prendi il traghetto", "Prendi il traghetto {name}"),
    arrive: "Sei arrivato a destinazione",
};

static JA: Words = Words {
    dec: '.',
    units: ["km", "m", "マイル", "フィート"],
    day: ("日", "日"),
    hour: ("時間", "時間"),
    min: ("分", "分"),
    dirs: ["北", "北東", "東", "南東", "南", "南西", "西", "北西"],
    head: ("{dir}に進みます", "{name}を{dir}に進みます"),
    cont: ("直進します", "直進して{name}に入ります"),
    turns: [
        ("やや左方向に進みます", "やや左方向に進み{name}に入ります"),
        ("やや右方向に進みます", "やや右方向に進み{name}に入ります"),
        ("左折します", "左折して{name}に入ります"),
        ("右折します", "右折して{name}に入ります"),
        ("大きく左折します", "大きく左折して{name}に入ります"),
        ("大きく右折します", "大きく右折して{name}に入ります"),
    ],
    uturn: ("Uターンします", "Uターンして{name}に入ります"),
    ferry: ("フェリーに乗ります", "フェリー{name}に乗ります"),
    arrive: "目的地に到着しました",
};

static NB: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "fot"],
    day: ("dag", "dager"),
    hour: ("t", "t"),
    min: ("min", "min"),
    dirs: [
        "nord", "nordøst", "øst", "sørøst", "sør", "sørvest", "vest", "nordvest",
    ],
    head: ("Kjør mot {dir}", "Kjør mot {dir} på {name}"),
    cont: ("Fortsett rett frem", "Fortsett inn på {name}"),
    turns: [
        ("Ta svakt til venstre", "Ta svakt til venstre inn på {name}"),
        ("Ta svakt til høyre", "Ta svakt til høyre inn på {name}"),
        ("Ta til venstre", "Ta til venstre inn på {name}"),
        ("Ta til høyre", "Ta til høyre inn på {name}"),
        (
            "Ta skarpt til venstre",
            "Ta skarpt til venstre inn på {name}",
        ),
        ("Ta skarpt til høyre", "Ta skarpt til høyre inn på {name}"),
    ],
    uturn: ("Ta en U-sving", "Ta en U-sving inn på {name}"),
    ferry: ("Ta fergen", "Ta fergen {name}"),
    arrive: "Du er fremme ved målet",
};

static NL: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "ft"],
    day: ("dag", "dagen"),
    hour: ("u", "u"),
    min: ("min", "min"),
    dirs: [
        "noorden",
        "noordoosten",
        "oosten",
        "zuidoosten",
        "zuiden",
        "zuidwesten",
        "westen",
        "noordwesten",
    ],
    head: ("Ga richting het {dir}", "Ga richting het {dir} op {name}"),
    cont: ("Ga rechtdoor", "Ga verder op {name}"),
    turns: [
        ("Flauw linksaf", "Flauw linksaf naar {name}"),
        ("Flauw rechtsaf", "Flauw rechtsaf naar {name}"),
        ("Sla linksaf", "Sla linksaf naar {name}"),
        ("Sla rechtsaf", "Sla rechtsaf naar {name}"),
        ("Scherp linksaf", "Scherp linksaf naar {name}"),
        ("Scherp rechtsaf", "Scherp rechtsaf naar {name}"),
    ],
    uturn: ("Keer om", "Keer om naar {name}"),
    ferry: ("Neem de veerboot", "Neem de veerboot {name}"),
    arrive: "U bent op uw bestemming",
};

static PL: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "stóp"],
    day: ("dzień", "dni"),
    hour: ("godz.", "godz."),
    min: ("min", "min"),
    dirs: [
        "północ",
        "północny wschód",
        "wschód",
        "południowy wschód",
        "południe",
        "południowy zachód",
        "zachód",
        "północny zachód",
    ],
    head: ("Kieruj się na {dir}", "Kieruj się na {dir} ulicą {name}"),
    cont: ("Jedź prosto", "Jedź dalej ulicą {name}"),
    turns: [
        ("Skręć lekko w lewo", "Skręć lekko w lewo w {name}"),
        ("Skręć lekko w prawo", "Skręć lekko w prawo w {name}"),
        ("Skręć w lewo", "Skręć w lewo w {name}"),
        ("Skręć w prawo", "Skręć w prawo w {name}"),
        ("Skręć ostro w lewo", "Skręć ostro w lewo w {name}"),
        ("Skręć ostro w prawo", "Skręć ostro w prawo w {name}"),
    ],
    uturn: ("Zawróć", "Zawróć w {name}"),
    ferry: ("Wsiądź na prom", "Wsiądź na prom {name}"),
    arrive: "Dotarłeś do celu",
};

static PT: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "pés"],
    day: ("dia", "dias"),
    hour: ("h", "h"),
    min: ("min", "min"),
    dirs: [
        "norte", "nordeste", "leste", "sudeste", "sul", "sudoeste", "oeste", "noroeste",
    ],
    head: ("Siga na direção {dir}", "Siga na direção {dir} pela {name}"),
    cont: ("Continue em frente", "Continue pela {name}"),
    turns: [
        (
            "Vire ligeiramente à esquerda",
            "Vire ligeiramente à esquerda para {name}",
        ),
        (
            "Vire ligeiramente à direita",
            "Vire ligeiramente à direita para {name}",
        ),
        ("Vire à esquerda", "Vire à esquerda para {name}"),
        ("Vire à direita", "Vire à direita para {name}"),
        (
            "Vire acentuadamente à esquerda",
            "Vire acentuadamente à esquerda para {name}",
        ),
        (
            "Vire acentuadamente à direita",
            "Vire acentuadamente à direita para {name}",
        ),
    ],
    uturn: (
        "Faça inversão de marcha",
        "Faça inversão de marcha para {name}",
    ),
    ferry: ("Apanhe o ferry", "Apanhe o ferry {name}"),
    arrive: "Chegou ao seu destino",
};

static RO: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "ft"],
    day: ("zi", "zile"),
    hour: ("h", "h"),
    min: ("min", "min"),
    dirs: [
        "nord",
        "nord-est",
        "est",
        "sud-est",
        "sud",
        "sud-vest",
        "vest",
        "nord-vest",
    ],
    head: ("Mergeți spre {dir}", "Mergeți spre {dir} pe {name}"),
    cont: ("Continuați înainte", "Continuați pe {name}"),
    turns: [
        ("Virați ușor la stânga", "Virați ușor la stânga pe {name}"),
        ("Virați ușor la dreapta", "Virați ușor la dreapta pe {name}"),
        ("Virați la stânga", "Virați la stânga pe {name}"),
        ("Virați la dreapta", "Virați la dreapta pe {name}"),
        ("Virați brusc la stânga", "Virați brusc la stânga pe {name}"),
        (
            "Virați brusc la dreapta",
            "Virați brusc la dreapta pe {name}",
        ),
    ],
    uturn: ("Întoarceți", "Întoarceți pe {name}"),
    ferry: ("Luați feribotul", "Luați feribotul {name}"),
    arrive: "Ați ajuns la destinație",
};

static RU: Words = Words {
    dec: ',',
    units: ["км", "м", "мил.", "фт"],
    day: ("дн.", "дн."),
    hour: ("ч", "ч"),
    min: ("мин", "мин"),
    dirs: [
        "север",
        "северо-восток",
        "восток",
        "юго-восток",
        "юг",
        "юго-запад",
        "запад",
        "северо-запад",
    ],
    head: ("Двигайтесь на {dir}", "Двигайтесь на {dir} по {name}"),
    cont: ("Продолжайте прямо", "Продолжайте по {name}"),
    turns: [
        (
            "Плавно поверните налево",
            "Плавно поверните налево на {name}",
        ),
        (
            "Плавно поверните направо",
            "Плавно поверните направо на {name}",
        ),
        ("Поверните налево", "Поверните налево на {name}"),
        ("Поверните направо", "Поверните направо на {name}"),
        ("Резко поверните налево", "Резко поверните налево на {name}"),
        (
            "Резко поверните направо",
            "Резко поверните направо на {name}",
        ),
    ],
    uturn: ("Развернитесь", "Развернитесь на {name}"),
    ferry: ("Сядьте на паром", "Сядьте на паром {name}"),
    arrive: "Вы прибыли в пункт назначения",
};

static SV: Words = Words {
    dec: ',',
    units: ["km", "m", "mi", "fot"],
    day: ("dag", "dagar"),
    hour: ("tim", "tim"),
    min: ("min", "min"),
    dirs: [
        "norr",
        "nordost",
        "öster",
        "sydost",
        "söder",
        "sydväst",
        "väster",
        "nordväst",
    ],
    head: ("Kör mot {dir}", "Kör mot {dir} på {name}"),
    cont: ("Fortsätt rakt fram", "Fortsätt på {name}"),
    turns: [
        ("Sväng svagt vänster", "Sväng svagt vänster in på {name}"),
        ("Sväng svagt höger", "Sväng svagt höger in på {name}"),
        ("Sväng vänster", "Sväng vänster in på {name}"),
        ("Sväng höger", "Sväng höger in på {name}"),
        ("Sväng skarpt vänster", "Sväng skarpt vänster in på {name}"),
        ("Sväng skarpt höger", "Sväng skarpt höger in på {name}"),
    ],
    uturn: ("Gör en U-sväng", "Gör en U-sväng in på {name}"),
    ferry: ("Ta färjan", "Ta färjan {name}"),
    arrive: "Du är framme vid din destination",
};

static UK: Words = Words {
    dec: ',',
    units: ["км", "м", "милі", "фт"],
    day: ("дн.", "дн."),
    hour: ("год", "год"),
    min: ("хв", "хв"),
    dirs: [
        "північ",
        "північний схід",
        "схід",
        "південний схід",
        "південь",
        "південний захід",
        "захід",
        "північний захід",
    ],
    head: ("Рухайтеся на {dir}", "Рухайтеся на {dir} по {name}"),
    cont: ("Продовжуйте прямо", "Продовжуйте по {name}"),
    turns: [
        (
            "Плавно поверніть ліворуч",
            "Плавно поверніть ліворуч на {name}",
        ),
        (
            "Плавно поверніть праворуч",
            "Плавно поверніть праворуч на {name}",
        ),
        ("Поверніть ліворуч", "Поверніть ліворуч на {name}"),
        ("Поверніть праворуч", "Поверніть праворуч на {name}"),
        (
            "Різко поверніть ліворуч",
            "Різко поверніть ліворуч на {name}",
        ),
        (
            "Різко поверніть праворуч",
            "Різко поверніть праворуч на {name}",
        ),
    ],
    uturn: ("Розверніться", "Розверніться на {name}"),
    ferry: ("Сядьте на пором", "Сядьте на пором {name}"),
    arrive: "Ви прибули до пункту призначення",
};

static ZH: Words = Words {
    dec: '.',
    units: ["公里", "米", "英里", "英尺"],
    day: ("天", "天"),
    hour: ("小时", "小时"),
    min: ("分钟", "分钟"),
    dirs: ["北", "东北", "东", "东南", "南", "西南", "西", "西北"],
    head: ("向{dir}出发", "沿{name}向{dir}出发"),
    cont: ("直行", "直行进入{name}"),
    turns: [
        ("稍向左转", "稍向左转进入{name}"),
        ("稍向右转", "稍向右转进入{name}"),
        ("左转", "左转进入{name}"),
        ("右转", "右转进入{name}"),
        ("向左急转", "向左急转进入{name}"),
        ("向右急转", "向右急转进入{name}"),
    ],
    uturn: ("掉头", "掉头进入{name}"),
    ferry: ("乘坐渡轮", "乘坐渡轮{name}"),
    arrive: "已到达目的地",
};

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
