//! Where the words go and how mistakes are forgiven: shorter words in cities, and a thousand
//! generated mistakes of each kind.
use super::*;

/// Mean word length (letters per word) of addresses in the ten most populous places of the
/// gazetteer (points within 5 km of their centre) against open land and the open sea (uniform
/// points of those regions). Figures in docs/performance.md.
#[test]
fn cities_get_shorter_words_than_open_land() {
    use waymark_threewords::regions::{DENSE, LAND, POPULATED, SEA};
    let f = fixture();
    let db = f._dir.path().join("built/words-1/data.sqlite");
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT name, lat, lng FROM threewords_places ORDER BY population DESC, id LIMIT 10",
        )
        .unwrap();
    let cities: Vec<(String, f64, f64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(cities.len(), 10);
    let list = &f.index.languages["en"];
    let letters = |square| -> usize {
        f.index
            .scheme
            .triple(square)
            .iter()
            .map(|&r| list.word(r).len())
            .sum()
    };
    let mut rng = waymark_tests::Rng::new(42);
    let (mut city_letters, mut city_words) = (0usize, 0usize);
    for (name, lat, lng) in &cities {
        let mut here = 0;
        for _ in 0..1_000 {
            let (dlat, dlng) = (rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0);
            let (plat, plng) = (
                lat + dlat * 5.0 / 111.2,
                lng + dlng * 5.0 / (111.2 * lat.to_radians().cos()),
            );
            here += letters(f.index.grid().square(plat, plng).unwrap());
        }
        eprintln!("{name}: mean word length {:.2}", here as f64 / 3_000.0);
        city_letters += here;
        city_words += 3_000;
    }
    let mut open = [(0usize, 0usize); waymark_threewords::v3::KINDS];
    while open[LAND as usize].1 < 30_000 || open[SEA as usize].1 < 30_000 {
        let (lat, lng) = rng.sphere_point();
        let square = f.index.grid().square(lat, lng).unwrap();
        let (k, _) = f.index.scheme.regions().locate(square);
        let slot = &mut open[k as usize];
        slot.0 += letters(square);
        slot.1 += 3;
    }
    let mean = |(l, w): (usize, usize)| l as f64 / w as f64;
    let city = mean((city_letters, city_words));
    let [dense, populated, land, sea] =
        [DENSE, POPULATED, LAND, SEA].map(|k| mean(open[k as usize]));
    eprintln!(
        "mean word length: ten largest cities {city:.2}, dense {dense:.2}, populated region {populated:.2}, open land {land:.2}, sea {sea:.2}"
    );
    // Each word class's first tier is ordered by length (ADR 0009): the largest cities take
    // words at least a letter shorter than open land.
    assert!(city <= land - 1.0 && land < sea, "{city} / {land} / {sea}");
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 48, ..Default::default() })]

    /// Whatever the clip and the input, no suggestion lies outside the clip, and an address
    /// inside it, typed to two letters of its third word with a focus 5.6 km away, is among
    /// the suggestions unless a full list of completions of the same letters lies at least as
    /// near the focus. (The focus must be near: the completions that share the third word's
    /// class name squares of the same ≈ 60 km tiles, ADR 0009, so a focus 100 km off no
    /// longer tells the address typed from them.)
    #[test]
    fn clips_are_never_crossed(
        lat in -60.0f64..70.0,
        lng in -180.0f64..180.0,
        size in 0.05f64..20.0,
        kind in 0usize..3,
        seed in 0u64..1_000,
    ) {
        let a = convert(lat, lng);
        let (head, last) = a.words.rsplit_once('.').unwrap();
        let typed = format!("{head}.{}", &last[..2]);
        let centre = LatLng::new(lat, lng);
        let mut req = AutosuggestRequest { focus: Some(LatLng::new(lat + 0.05, lng)), ..input(&typed) };
        let (south, north) = ((lat - size).max(-90.0), (lat + size).min(90.0));
        let (west, east) = ((lng - size).max(-180.0), (lng + size).min(180.0));
        let keep: Box<dyn Fn(Pt) -> bool> = match kind {
            0 => {
                req.clip_to_bounding_box = Some(Viewport {
                    southwest: LatLng::new(south, west),
                    northeast: LatLng::new(north, east),
                });
                Box::new(move |p: Pt| (south..=north).contains(&p.lat) && (west..=east).contains(&p.lng))
            }
            1 => {
                let km = size * 50.0 + (seed % 7) as f64;
                req.clip_to_circle = Some(Circle { center: centre, radius_km: km });
                Box::new(move |p: Pt| haversine_m(Pt::new(lat, lng), p) <= km * 1000.0)
            }
            _ => {
                let ring = vec![
                    LatLng::new(south, west),
                    LatLng::new(south, east),
                    LatLng::new(north, east),
                    LatLng::new(north, west),
                    LatLng::new(south, west),
                ];
                req.clip_to_polygon = Some(ring);
                Box::new(move |p: Pt| (south..=north).contains(&p.lat) && (west..=east).contains(&p.lng))
            }
        };
        let r = suggest(req).unwrap();
        for s in &r.suggestions {
            proptest::prop_assert!(keep(centre_of(&s.words)), "{} outside the clip", s.words);
        }
        // Completions of the same letters nearer the focus may fill the list ahead of it.
        let focus = Pt::new(lat + 0.05, lng);
        let here = haversine_m(focus, centre_of(&a.words));
        let outranked = r.suggestions.len() >= 3
            && r.suggestions.iter().all(|s| haversine_m(focus, centre_of(&s.words)) <= here);
        proptest::prop_assert!(
            outranked || r.suggestions.iter().any(|s| s.words == a.words),
            "{} not suggested: {r:?}",
            a.words
        );
    }
}

/// One kind of mistake made in typing or saying an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mistake {
    Exact,
    Order,
    PluralSingular,
    WrongLetter,
    MissingLetter,
    ExtraLetter,
    SwappedLetters,
    Homophone,
    Spaces,
    Commas,
    Hyphens,
}

impl Mistake {
    const ALL: [Mistake; 11] = [
        Mistake::Exact,
        Mistake::Order,
        Mistake::PluralSingular,
        Mistake::WrongLetter,
        Mistake::MissingLetter,
        Mistake::ExtraLetter,
        Mistake::SwappedLetters,
        Mistake::Homophone,
        Mistake::Spaces,
        Mistake::Commas,
        Mistake::Hyphens,
    ];

    fn name(self) -> &'static str {
        match self {
            Mistake::Exact => "typed exactly",
            Mistake::Order => "two words swapped",
            Mistake::PluralSingular => "plural or singular",
            Mistake::WrongLetter => "one wrong letter",
            Mistake::MissingLetter => "one missing letter",
            Mistake::ExtraLetter => "one extra letter",
            Mistake::SwappedLetters => "two letters swapped",
            Mistake::Homophone => "a homophone",
            Mistake::Spaces => "spaces for dots",
            Mistake::Commas => "commas for dots",
            Mistake::Hyphens => "hyphens for dots",
        }
    }
}

/// The plural of a singular-looking word, the singular of a plural-looking one.
fn plural_or_singular(w: &str) -> String {
    let b = w.as_bytes();
    let last = b[b.len() - 1];
    if last == b's' && !w.ends_with("ss") {
        return w[..w.len() - 1].to_string();
    }
    if last == b'y' && !matches!(b[b.len() - 2], b'a' | b'e' | b'i' | b'o' | b'u') {
        return format!("{}ies", &w[..w.len() - 1]);
    }
    if matches!(last, b's' | b'x' | b'z') || w.ends_with("ch") || w.ends_with("sh") {
        return format!("{w}es");
    }
    format!("{w}s")
}

/// `words` with `kind` of mistake made, as typed; `None` when the address has no word the
/// mistake can be made in (a homophone).
fn make_mistake(
    kind: Mistake,
    words: &[String; 3],
    homophones: &std::collections::HashMap<&str, Vec<&str>>,
    rng: &mut waymark_tests::Rng,
) -> Option<String> {
    let mut w = words.clone();
    let letter = |rng: &mut waymark_tests::Rng| (b'a' + rng.below(26) as u8) as char;
    let i = rng.below(3);
    let mut chars: Vec<char> = w[i].chars().collect();
    let n = chars.len();
    match kind {
        Mistake::Exact | Mistake::Spaces | Mistake::Commas | Mistake::Hyphens => {}
        Mistake::Order => {
            let j = (i + 1 + rng.below(2)) % 3;
            w.swap(i, j);
        }
        Mistake::PluralSingular => w[i] = plural_or_singular(&w[i]),
        Mistake::WrongLetter => {
            let at = rng.below(n);
            let mut c = letter(rng);
            while c == chars[at] {
                c = letter(rng);
            }
            chars[at] = c;
            w[i] = chars.into_iter().collect();
        }
        Mistake::MissingLetter => {
            chars.remove(rng.below(n));
            w[i] = chars.into_iter().collect();
        }
        Mistake::ExtraLetter => {
            chars.insert(rng.below(n + 1), letter(rng));
            w[i] = chars.into_iter().collect();
        }
        Mistake::SwappedLetters => {
            let pairs: Vec<usize> = (0..n - 1).filter(|&k| chars[k] != chars[k + 1]).collect();
            let at = pairs[rng.below(pairs.len())];
            chars.swap(at, at + 1);
            w[i] = chars.into_iter().collect();
        }
        Mistake::Homophone => {
            let with: Vec<usize> = (0..3)
                .filter(|&k| homophones.contains_key(w[k].as_str()))
                .collect();
            let k = *with.get(rng.below(with.len().max(1)))?;
            let sounds = &homophones[w[k].as_str()];
            w[k] = sounds[rng.below(sounds.len())].to_string();
        }
    }
    let sep = match kind {
        Mistake::Spaces => " ",
        Mistake::Commas => ", ",
        Mistake::Hyphens => "-",
        _ => ".",
    };
    Some(w.join(sep))
}

/// 1,000 mistakes of each kind in addresses near populated places and anywhere on the
/// sphere, each with a focus within 10 km of the intended square: the intended address is
/// among the three suggestions in at least 95 % of them and first when typed exactly. The
/// table is printed (figures in docs/adr/0003-three-word-addresses.md).
#[test]
fn a_thousand_mistakes_of_each_kind_find_the_intended_address() {
    let f = fixture();
    let list = &f.index.languages["en"];
    let mut homophones: std::collections::HashMap<&str, Vec<&str>> = Default::default();
    for (alias, ranks) in &list.aliases {
        for &r in ranks {
            homophones
                .entry(list.word(u64::from(r)))
                .or_default()
                .push(alias);
        }
    }
    for sounds in homophones.values_mut() {
        sounds.sort_unstable();
    }
    let db = f._dir.path().join("built/words-1/data.sqlite");
    let conn = rusqlite::Connection::open(db).unwrap();
    let places: Vec<(f64, f64)> = conn
        .prepare("SELECT lat, lng FROM threewords_places ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut rng = waymark_tests::Rng::new(1_000);
    let mut table = Vec::new();
    for kind in Mistake::ALL {
        let (mut cases, mut first, mut top3) = (0u32, 0u32, 0u32);
        let mut missed = Vec::new();
        while cases < 1_000 {
            // Every other address near a populated place (common words), the rest uniform.
            let (lat, lng) = if cases % 2 == 0 {
                let (plat, plng) = places[rng.below(places.len())];
                (
                    (plat + (rng.unit() - 0.5) * 0.2).clamp(-90.0, 90.0),
                    (plng + (rng.unit() - 0.5) * 0.2 + 180.0).rem_euclid(360.0) - 180.0,
                )
            } else {
                rng.sphere_point()
            };
            let a = convert(lat, lng);
            let words: [String; 3] = a
                .words
                .split('.')
                .map(str::to_string)
                .collect::<Vec<_>>()
                .try_into()
                .unwrap();
            let Some(typed) = make_mistake(kind, &words, &homophones, &mut rng) else {
                continue;
            };
            // A focus up to 10 km from the square, in any direction.
            let (d_km, bearing) = (rng.unit() * 10.0, rng.unit() * std::f64::consts::TAU);
            let c = a.coordinates;
            let focus = LatLng::new((c.lat + d_km * bearing.cos() / 111.2).clamp(-90.0, 90.0), {
                let lng =
                    c.lng + d_km * bearing.sin() / (111.2 * c.lat.to_radians().cos().max(0.01));
                (lng + 180.0).rem_euclid(360.0) - 180.0
            });
            let r = suggest(AutosuggestRequest {
                focus: Some(focus),
                ..input(&typed)
            })
            .unwrap();
            cases += 1;
            match r.suggestions.iter().position(|s| s.words == a.words) {
                Some(0) => {
                    first += 1;
                    top3 += 1;
                }
                Some(_) => top3 += 1,
                None => missed.push(format!("{typed} for {}", a.words)),
            }
        }
        eprintln!(
            "| {} | {cases} | {:.1} % | {:.1} % |",
            kind.name(),
            f64::from(first) * 100.0 / f64::from(cases),
            f64::from(top3) * 100.0 / f64::from(cases)
        );
        eprintln!("  missed, e.g.: {:?}", &missed[..missed.len().min(8)]);
        table.push((kind, cases, first, top3));
    }
    for (kind, cases, first, top3) in table {
        if kind == Mistake::Exact {
            assert_eq!(first, cases, "{}: not always first", kind.name());
        }
        assert!(
            top3 * 100 >= cases * 95,
            "{}: {top3} of {cases} in the top three",
            kind.name()
        );
    }
}
