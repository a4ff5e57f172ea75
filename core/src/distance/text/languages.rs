//! The words of the spec's 20 languages: units, time units, compass directions and the
//! instruction templates (`{dir}`, `{name}`) that [`super::instruction`] fills.
use super::Words;

pub(super) static EN: Words = Words {
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

pub(super) static FR: Words = Words {
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

pub(super) static CA: Words = Words {
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

pub(super) static DA: Words = Words {
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

pub(super) static DE: Words = Words {
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

pub(super) static ES: Words = Words {
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

pub(super) static ET: Words = Words {
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

pub(super) static FI: Words = Words {
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

pub(super) static HE: Words = Words {
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

pub(super) static IT: Words = Words {
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

pub(super) static JA: Words = Words {
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

pub(super) static NB: Words = Words {
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

pub(super) static NL: Words = Words {
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

pub(super) static PL: Words = Words {
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

pub(super) static PT: Words = Words {
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

pub(super) static RO: Words = Words {
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

pub(super) static RU: Words = Words {
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

pub(super) static SV: Words = Words {
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

pub(super) static UK: Words = Words {
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

pub(super) static ZH: Words = Words {
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
