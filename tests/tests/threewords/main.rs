//! Three-word addresses on the real three-word layer (built from the pinned word lists,
//! GeoNames places and Natural Earth countries): conversion, the autosuggest round trip,
//! typing and voice mistakes, focus and every clip, bad input, the golden pins of the scheme (version 3) —
//! through the engine and over real HTTP on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use waymark_core::Engine;
use waymark_core::api::vocab::{InputType, ThreeWordsFormat};
use waymark_core::api::{
    AutosuggestRequest, AutosuggestResponse, Circle, ConvertTo3waRequest, ConvertTo3waResponse,
    LatLng, ThreeWordsAddress, Viewport,
};
use waymark_core::auth::keys::Publisher;
use waymark_core::error::{ApiError, ErrorCode};
use waymark_core::geo::{Pt, haversine_m};
use waymark_core::operation::Credentials;
use waymark_core::threewords::ThreeWordsIndex;

struct Fixture {
    engine: Arc<Engine>,
    publisher: Publisher,
    index: ThreeWordsIndex,
    server: waymark_tests::LocalServer,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (engine, publisher) =
            waymark_tests::engine_with_pack(&waymark_tests::threewords_plan(), dir.path());
        let db = dir.path().join("built/words-1/data.sqlite");
        let index = ThreeWordsIndex::read(&rusqlite::Connection::open(db).unwrap()).unwrap();
        let server = waymark_tests::LocalServer::start(engine.clone());
        Fixture {
            engine,
            publisher,
            index,
            server,
            _dir: dir,
        }
    })
}

fn convert(lat: f64, lng: f64) -> ThreeWordsAddress {
    match convert_req(ConvertTo3waRequest {
        coordinates: LatLng::new(lat, lng),
        ..Default::default()
    })
    .unwrap()
    {
        ConvertTo3waResponse::Json(a) => a,
        other => panic!("json expected: {other:?}"),
    }
}

fn convert_req(req: ConvertTo3waRequest) -> Result<ConvertTo3waResponse, ApiError> {
    let f = fixture();
    let caller = waymark_tests::private_caller(&f.publisher);
    f.engine.call(&Credentials::Http(&caller), req)
}

fn suggest(req: AutosuggestRequest) -> Result<AutosuggestResponse, ApiError> {
    let f = fixture();
    let caller = waymark_tests::private_caller(&f.publisher);
    f.engine.call(&Credentials::Http(&caller), req)
}

fn input(text: &str) -> AutosuggestRequest {
    AutosuggestRequest {
        input: text.into(),
        ..Default::default()
    }
}

/// The centre of the square of `words`, from the index.
fn centre_of(words: &str) -> Pt {
    let f = fixture();
    let list = &f.index.languages["en"];
    let ranks: Vec<u64> = words.split('.').map(|w| u64::from(list.rank[w])).collect();
    let square = f
        .index
        .scheme
        .square([ranks[0], ranks[1], ranks[2]])
        .unwrap();
    let (lat, lng) = f.index.grid().centre(square);
    Pt::new(lat, lng)
}

#[test]
fn convert_names_the_square_holding_the_point() {
    let a = convert(51.520847, -0.195521);
    let words: Vec<&str> = a.words.split('.').collect();
    assert_eq!(words.len(), 3, "{}", a.words);
    let list = &fixture().index.languages["en"];
    assert!(
        words.iter().all(|w| list.rank.contains_key(*w)),
        "{}",
        a.words
    );
    assert_eq!(a.country, "GB");
    assert_eq!(a.language, "en");
    assert!(!a.nearest_place.is_empty());
    assert!(a.map.starts_with("geo:51.52"), "{}", a.map);
    let (sw, ne) = (a.square.southwest, a.square.northeast);
    assert!(sw.lat <= 51.520847 && 51.520847 <= ne.lat, "{:?}", a.square);
    assert!(sw.lng <= -0.195521 && -0.195521 <= ne.lng, "{:?}", a.square);
    let h = haversine_m(Pt::new(sw.lat, sw.lng), Pt::new(ne.lat, sw.lng));
    let w = haversine_m(Pt::new(sw.lat, sw.lng), Pt::new(sw.lat, ne.lng));
    assert!(
        (2.8..3.2).contains(&h) && (2.8..3.2).contains(&w),
        "{h} x {w}"
    );
    // Every point of the square has the same address; the next square another.
    assert_eq!(convert(sw.lat + 1e-6, sw.lng + 1e-6).words, a.words);
    assert_ne!(convert(ne.lat + 1e-6, sw.lng + 1e-6).words, a.words);
    // The GeoJSON form says the same.
    let ConvertTo3waResponse::GeoJson(g) = convert_req(ConvertTo3waRequest {
        coordinates: LatLng::new(51.520847, -0.195521),
        format: ThreeWordsFormat::Geojson,
        ..Default::default()
    })
    .unwrap() else {
        panic!("geojson expected")
    };
    let feature = &g.features[0];
    assert_eq!(feature.properties.words, a.words);
    assert_eq!(feature.bbox, vec![sw.lng, sw.lat, ne.lng, ne.lat]);
    assert_eq!(feature.geometry.0["coordinates"][0], a.coordinates.lng);
    // At sea there is no country.
    assert_eq!(convert(-40.0, -30.0).country, "ZZ");
    assert_eq!(convert(48.8566, 2.3522).country, "FR");
    assert_eq!(convert(35.6762, 139.6503).country, "JP");
}

#[test]
fn neighbouring_squares_have_unrelated_addresses() {
    let a = convert(60.1699, 24.9384);
    let b = convert(60.1699 + 0.00003, 24.9384);
    let (wa, wb): (Vec<&str>, Vec<&str>) =
        (a.words.split('.').collect(), b.words.split('.').collect());
    assert_ne!(a.words, b.words);
    let shared = wa.iter().filter(|w| wb.contains(w)).count();
    assert!(shared <= 1, "{} / {}", a.words, b.words);
}

#[test]
fn populated_places_get_common_words() {
    let list = &fixture().index.languages["en"];
    let mut worst = 0;
    for (lat, lng) in [
        (51.5074, -0.1278),
        (48.8566, 2.3522),
        (60.1699, 24.9384),
        (35.6762, 139.6503),
        (-33.8688, 151.2093),
    ] {
        for w in convert(lat, lng).words.split('.') {
            worst = worst.max(list.rank[w]);
        }
    }
    let sea = convert(-45.0, -140.0);
    let sea_max = sea.words.split('.').map(|w| list.rank[w]).max().unwrap();
    assert!(worst < 25_000, "a city square uses word rank {worst}");
    assert!(
        sea_max > worst,
        "the open sea uses rarer words ({})",
        sea.words
    );
}

#[test]
fn every_converted_address_comes_back_first_from_autosuggest() {
    let mut rng = waymark_tests::Rng::new(7);
    for _ in 0..150 {
        let (lat, lng) = rng.sphere_point();
        let a = convert(lat, lng);
        let r = suggest(input(&a.words)).unwrap();
        assert_eq!(r.suggestions[0].words, a.words, "{lat},{lng}");
        assert_eq!(r.suggestions[0].rank, 1);
        assert_eq!(r.suggestions[0].country, a.country);
        assert_eq!(r.suggestions[0].nearest_place, a.nearest_place);
        // Typed up to two letters of the third word, with a focus where the user is.
        let (first, last) = a.words.rsplit_once('.').unwrap();
        let partial = format!("{first}.{}", &last[..2.min(last.len())]);
        let r = suggest(AutosuggestRequest {
            focus: Some(LatLng::new(lat, lng)),
            ..input(&partial)
        })
        .unwrap();
        assert_eq!(
            r.suggestions[0].words, a.words,
            "{partial} near {lat},{lng}"
        );
        assert_eq!(r.suggestions[0].distance_to_focus_km, Some(0));
        let ranks: Vec<u32> = r.suggestions.iter().map(|s| s.rank).collect();
        assert_eq!(ranks, (1..=ranks.len() as u32).collect::<Vec<_>>());
    }
}

#[test]
fn typing_mistakes_are_corrected_near_the_focus() {
    let mut rng = waymark_tests::Rng::new(11);
    let mut fixed = 0;
    let total = 60;
    for _ in 0..total {
        let (lat, lng) = (51.0 + rng.unit(), -1.0 + rng.unit() * 2.0);
        let a = convert(lat, lng);
        let words: Vec<&str> = a.words.split('.').collect();
        // Drop a letter of the first word, double one of the second.
        let w0 = format!("{}{}", &words[0][..1], &words[0][2..]);
        let w1 = format!("{}{}", &words[1], &words[1][words[1].len() - 1..]);
        let typed = format!("{w0}.{w1}.{}", words[2]);
        let r = suggest(AutosuggestRequest {
            focus: Some(LatLng::new(51.5, 0.0)),
            ..input(&typed)
        })
        .unwrap();
        if r.suggestions.iter().any(|s| s.words == a.words) {
            fixed += 1;
        }
    }
    assert!(fixed * 100 >= total * 90, "{fixed} of {total} corrected");
}

#[test]
fn voice_input_without_dots_and_with_spoken_dots() {
    let a = convert(40.4168, -3.7038);
    let spoken = a.words.replace('.', " ");
    for (text, kind) in [
        (spoken.clone(), InputType::GenericVoice),
        (a.words.replace('.', " dot "), InputType::NmdpAsr),
        (spoken, InputType::Text),
    ] {
        let r = suggest(AutosuggestRequest {
            input_type: kind,
            ..input(&text)
        })
        .unwrap();
        assert_eq!(r.suggestions[0].words, a.words, "{text}");
    }
}

#[test]
fn homophones_heard_by_voice_find_the_listed_word() {
    let list = &fixture().index.languages["en"];
    let (alias, ranks) = list
        .aliases
        .iter()
        .find(|(a, _)| a.len() >= 4)
        .expect("the list has homophone aliases");
    let listed = list.word(u64::from(ranks[0])).to_string();
    // An address whose first word, swapped for the listed word, still names a square (most
    // do: about 89 % of word triples are addresses); it is spoken with the alias.
    let (words, target) = (0..50)
        .find_map(|i| {
            let a = convert(45.4642 + f64::from(i) * 0.001, 9.19);
            let words: Vec<String> = a.words.split('.').map(str::to_string).collect();
            let ranks = [
                ranks[0],
                list.rank[words[1].as_str()],
                list.rank[words[2].as_str()],
            ];
            fixture().index.scheme.square(ranks.map(u64::from))?;
            let target = format!("{listed}.{}.{}", words[1], words[2]);
            Some((words, target))
        })
        .expect("an address to swap a word of");
    let r = suggest(AutosuggestRequest {
        input_type: InputType::GenericVoice,
        ..input(&format!("{alias} {} {}", words[1], words[2]))
    })
    .unwrap();
    assert_eq!(r.suggestions[0].words, target, "{alias} → {listed}");
}

#[test]
fn suggestions_never_leave_the_clip() {
    let a = convert(51.5074, -0.1278);
    let (first, last) = a.words.rsplit_once('.').unwrap();
    let partial = format!("{first}.{}", &last[..1]);
    let inside_all = |r: &AutosuggestResponse, keep: &dyn Fn(Pt) -> bool| {
        for s in &r.suggestions {
            assert!(keep(centre_of(&s.words)), "{} outside the clip", s.words);
        }
    };
    let bbox = Viewport {
        southwest: LatLng::new(51.0, -1.0),
        northeast: LatLng::new(52.0, 1.0),
    };
    let r = suggest(AutosuggestRequest {
        clip_to_bounding_box: Some(bbox),
        ..input(&partial)
    })
    .unwrap();
    assert!(r.suggestions.iter().any(|s| s.words == a.words), "{r:?}");
    inside_all(&r, &|p| {
        (51.0..=52.0).contains(&p.lat) && (-1.0..=1.0).contains(&p.lng)
    });

    let r = suggest(AutosuggestRequest {
        clip_to_circle: Some(Circle {
            center: LatLng::new(51.5, -0.1),
            radius_km: 10.0,
        }),
        ..input(&partial)
    })
    .unwrap();
    assert!(r.suggestions.iter().any(|s| s.words == a.words), "{r:?}");
    inside_all(&r, &|p| haversine_m(Pt::new(51.5, -0.1), p) <= 10_000.0);

    let ring = vec![
        LatLng::new(51.4, -0.3),
        LatLng::new(51.4, 0.1),
        LatLng::new(51.6, 0.1),
        LatLng::new(51.6, -0.3),
        LatLng::new(51.4, -0.3),
    ];
    let r = suggest(AutosuggestRequest {
        clip_to_polygon: Some(ring),
        ..input(&partial)
    })
    .unwrap();
    assert!(r.suggestions.iter().any(|s| s.words == a.words), "{r:?}");
    inside_all(&r, &|p| {
        (51.4..=51.6).contains(&p.lat) && (-0.3..=0.1).contains(&p.lng)
    });

    let r = suggest(AutosuggestRequest {
        clip_to_country: vec!["GB".into()],
        ..input(&partial)
    })
    .unwrap();
    assert!(r.suggestions.iter().any(|s| s.words == a.words), "{r:?}");
    assert!(r.suggestions.iter().all(|s| s.country == "GB"));
    // A clip the address is not in: it is not suggested.
    let r = suggest(AutosuggestRequest {
        clip_to_country: vec!["fr".into()],
        ..input(&a.words)
    })
    .unwrap();
    assert!(
        r.suggestions
            .iter()
            .all(|s| s.words != a.words && s.country == "FR")
    );
}

#[test]
fn incomplete_input_has_no_suggestion_and_bad_input_is_422() {
    for text in ["", "index", "index.home", "index.home."] {
        assert!(
            suggest(input(text)).unwrap().suggestions.is_empty(),
            "{text:?}"
        );
    }
    for (req, field) in [
        (input("index.h0me.raft"), "input"),
        (input("a.b.c.d"), "input"),
        (
            AutosuggestRequest {
                clip_to_country: vec!["XQ".into()],
                ..input("index.home.raft")
            },
            "clip-to-country",
        ),
        (
            AutosuggestRequest {
                language: Some("fr".into()),
                ..input("index.home.raft")
            },
            "language",
        ),
    ] {
        let e = suggest(req).unwrap_err();
        assert_eq!(e.code, ErrorCode::Validation);
        assert_eq!(e.fields[0].loc[1], field, "{e:?}");
    }
    let e = convert_req(ConvertTo3waRequest {
        coordinates: LatLng::new(1.0, 2.0),
        language: "de".into(),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
    assert!(
        e.message.contains("installed lists are en"),
        "{}",
        e.message
    );
}

#[test]
fn over_http() {
    let f = fixture();
    let key = waymark_tests::private_caller(&f.publisher)
        .api_key_header
        .unwrap();
    for path in ["/threewords/convert-to-3wa", "/threewords/convert-to-3wa/"] {
        let r = f.server.call(
            "GET",
            &format!("{path}?coordinates=51.520847,-0.195521"),
            &key,
            "",
        );
        assert_eq!(r.status, 200, "{}", r.body);
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(v["words"], convert(51.520847, -0.195521).words.as_str());
        assert!(v.get("locale").is_none());
    }
    let words = convert(60.17, 24.94).words;
    let r = f.server.call(
        "GET",
        &format!("/threewords/autosuggest?input={words}&focus=60.17,24.94&clip-to-country=FI"),
        &key,
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["suggestions"][0]["words"], words.as_str());
    assert_eq!(v["suggestions"][0]["distanceToFocusKm"], 0);
    let r = f
        .server
        .call("GET", "/threewords/autosuggest?input=a.b.c.d", &key, "");
    assert_eq!(r.status, 422, "{}", r.body);
    assert!(r.body.contains("\"input\""), "{}", r.body);
    let r = f.server.call(
        "GET",
        "/threewords/convert-to-3wa?coordinates=91,0",
        &key,
        "",
    );
    assert_eq!(r.status, 422, "{}", r.body);
}

/// The scheme is pinned: `tests/golden/threewords-v3.tsv` (the file of the scheme version the
/// engine answers, `threewords-v<SCHEME_VERSION>.tsv`) holds 10,000 coordinate → address
/// pairs (a few landmarks, both poles, the antimeridian and the equator, then points uniform on
/// the sphere), written once when the scheme version was defined (`WAYMARK_UPDATE_GOLDEN=1`
/// writes the file only when it is missing: a changed answer is never rewritten). A change of
/// code or data that re-maps any address fails here, both ways.
#[test]
fn golden_addresses_of_the_scheme_never_change() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!(
        "golden/threewords-v{}.tsv",
        waymark_threewords::SCHEME_VERSION
    ));
    if std::env::var_os("WAYMARK_UPDATE_GOLDEN").is_some() && !path.exists() {
        let mut rng = waymark_tests::Rng::new(2026);
        let mut points: Vec<(f64, f64)> = vec![
            (51.520847, -0.195521),
            (60.1699, 24.9384),
            (42.5063, 1.5218),
            (48.1374, 11.5755),
            (0.0, 0.0),
            (90.0, 0.0),
            (-90.0, 0.0),
            (89.99999, 0.0),
            (-89.99999, 179.99999),
            (0.0, -180.0),
            (0.0, 179.999999),
            (65.0, -179.999999),
            (-0.000001, -0.000001),
        ];
        // Squares along the antimeridian and near both poles, then uniform on the sphere.
        points.extend((0..100).map(|i| (-89.0 + 1.78 * f64::from(i), 179.99999)));
        points.extend((0..100).map(|i| (-89.0 + 1.78 * f64::from(i), -180.0)));
        points.extend((0..50).map(|i| (89.9 + 0.002 * f64::from(i), -180.0 + 7.2 * f64::from(i))));
        points.extend((0..50).map(|i| (-89.9 - 0.002 * f64::from(i), -180.0 + 7.2 * f64::from(i))));
        let left = 10_000 - points.len();
        points.extend((0..left).map(|_| rng.sphere_point()));
        let lines: Vec<String> = points
            .iter()
            .map(|&(lat, lng)| {
                let (lat, lng) = ((lat * 1e6).round() / 1e6, (lng * 1e6).round() / 1e6);
                format!("{lat:.6}\t{lng:.6}\t{}", convert(lat, lng).words)
            })
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    }
    let pinned = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = pinned.lines().collect();
    assert_eq!(lines.len(), 10_000);
    for line in lines {
        let cols: Vec<&str> = line.split('\t').collect();
        let (lat, lng): (f64, f64) = (cols[0].parse().unwrap(), cols[1].parse().unwrap());
        let a = convert(lat, lng);
        assert_eq!(a.words, cols[2], "the scheme re-mapped {lat},{lng}");
        // And back: the address names the square holding the point.
        let back = to_coordinates(cols[2]);
        assert_eq!(back, a, "{line}");
        let (sw, ne) = (back.square.southwest, back.square.northeast);
        assert!(
            sw.lat <= lat + 1e-6 && lat <= ne.lat + 1e-6,
            "{line}: {:?}",
            back.square
        );
        let c = centre_of(cols[2]);
        assert!(
            haversine_m(c, Pt::new(lat, lng)) < 4.0 || lat.abs() > 89.9,
            "{line}"
        );
    }
}

fn to_coordinates_req(
    req: waymark_core::api::ConvertToCoordinatesRequest,
) -> Result<ConvertTo3waResponse, ApiError> {
    let f = fixture();
    let caller = waymark_tests::private_caller(&f.publisher);
    f.engine.call(&Credentials::Http(&caller), req)
}

fn to_coordinates(words: &str) -> ThreeWordsAddress {
    match to_coordinates_req(waymark_core::api::ConvertToCoordinatesRequest {
        words: words.into(),
        ..Default::default()
    })
    .unwrap()
    {
        ConvertTo3waResponse::Json(a) => a,
        other => panic!("json expected: {other:?}"),
    }
}

mod bounds;
mod coordinates;
mod countries;
mod nearest;
mod quality;
mod typos;
