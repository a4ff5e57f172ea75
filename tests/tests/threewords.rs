//! Three-word addresses on the real three-word layer (built from the pinned word lists,
//! GeoNames places and Natural Earth countries): conversion, the autosuggest round trip,
//! typing and voice mistakes, focus and every clip, bad input, the golden pins of scheme v1 —
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

/// The scheme is pinned: `tests/golden/threewords-v2.tsv` holds 10,000 coordinate → address
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

#[test]
fn words_convert_back_to_the_square_they_name() {
    let mut rng = waymark_tests::Rng::new(11);
    for _ in 0..300 {
        let (lat, lng) = rng.sphere_point();
        let a = convert(lat, lng);
        assert_eq!(to_coordinates(&a.words), a, "{lat},{lng}");
        // Other separators, upper case and a leading `///` name the same square.
        let typed = format!(
            "///{}",
            a.words
                .to_uppercase()
                .replacen('.', " ", 1)
                .replacen('.', ", ", 1)
        );
        assert_eq!(to_coordinates(&typed), a, "{typed}");
    }
    // GeoJSON answers as convert-to-3wa does.
    let a = convert(48.8566, 2.3522);
    let geo = |req: Result<ConvertTo3waResponse, ApiError>| match req.unwrap() {
        ConvertTo3waResponse::GeoJson(g) => g,
        other => panic!("geojson expected: {other:?}"),
    };
    let back = geo(to_coordinates_req(
        waymark_core::api::ConvertToCoordinatesRequest {
            words: a.words.clone(),
            format: ThreeWordsFormat::Geojson,
            ..Default::default()
        },
    ));
    let there = geo(convert_req(ConvertTo3waRequest {
        coordinates: LatLng::new(48.8566, 2.3522),
        format: ThreeWordsFormat::Geojson,
        ..Default::default()
    }));
    assert_eq!(back, there);
}

#[test]
fn words_not_in_the_list_are_404_naming_the_word_and_bad_input_422() {
    let a = convert(51.520847, -0.195521);
    let w: Vec<&str> = a.words.split('.').collect();
    let list = &fixture().index.languages["en"];
    let mut unknown = format!("{}q", w[1]);
    while list.rank.contains_key(unknown.as_str()) {
        unknown.push('q');
    }
    let err = to_coordinates_req(waymark_core::api::ConvertToCoordinatesRequest {
        words: format!("{}.{unknown}.{}", w[0], w[2]),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");
    assert!(
        err.message.contains(&format!("`{unknown}`")),
        "{}",
        err.message
    );
    // The three rarest words name no square (their number is past the last square).
    let last = list.list.len() - 1;
    let rare = format!("{0}.{0}.{0}", list.list[last]);
    let err = to_coordinates_req(waymark_core::api::ConvertToCoordinatesRequest {
        words: rare.clone(),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::NotFound, "{err:?}");
    assert!(err.message.contains(&rare), "{}", err.message);
    for bad in [
        "",
        "index.home",
        "a.b.c.d",
        "index.h0me.raft",
        "index..home",
    ] {
        let err = to_coordinates_req(waymark_core::api::ConvertToCoordinatesRequest {
            words: bad.into(),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Validation, "{bad}: {err:?}");
        assert!(format!("{err:?}").contains("words"), "{bad}: {err:?}");
    }
    let err = to_coordinates_req(waymark_core::api::ConvertToCoordinatesRequest {
        words: a.words.clone(),
        language: "fr".into(),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation, "{err:?}");
}

#[test]
fn autosuggest_gives_coordinates_when_asked() {
    let a = convert(35.6762, 139.6503);
    let r = suggest(input(&a.words)).unwrap();
    assert!(r.suggestions.iter().all(|s| s.coordinates.is_none()));
    let r = suggest(AutosuggestRequest {
        coordinates: true,
        ..input(&a.words)
    })
    .unwrap();
    assert_eq!(r.suggestions[0].words, a.words);
    assert_eq!(r.suggestions[0].coordinates, Some(a.coordinates));
    for s in &r.suggestions {
        assert_eq!(s.coordinates, Some(to_coordinates(&s.words).coordinates));
    }
}

#[test]
fn convert_to_coordinates_over_http() {
    let f = fixture();
    let key = waymark_tests::private_caller(&f.publisher)
        .api_key_header
        .unwrap();
    let a = convert(51.520847, -0.195521);
    for path in [
        "/threewords/convert-to-coordinates",
        "/threewords/convert-to-coordinates/",
    ] {
        let r = f
            .server
            .call("GET", &format!("{path}?words={}", a.words), &key, "");
        assert_eq!(r.status, 200, "{}", r.body);
        let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(v["words"], a.words.as_str());
        assert_eq!(v["coordinates"]["lat"], a.coordinates.lat);
        assert_eq!(v["square"]["southwest"]["lng"], a.square.southwest.lng);
    }
    let r = f.server.call(
        "GET",
        &format!(
            "/threewords/convert-to-coordinates?words={}&format=geojson",
            a.words
        ),
        &key,
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["features"][0]["properties"]["words"], a.words.as_str());
    let r = f.server.call(
        "GET",
        "/threewords/convert-to-coordinates?words=zzzzqq.zzzzqq.zzzzqq",
        &key,
        "",
    );
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.body.contains("zzzzqq"), "{}", r.body);
    for q in ["words=one.two", "words=a.b.c.d", ""] {
        let r = f.server.call(
            "GET",
            &format!("/threewords/convert-to-coordinates?{q}"),
            &key,
            "",
        );
        assert_eq!(r.status, 422, "{q}: {}", r.body);
        assert!(r.body.contains("\"words\""), "{q}: {}", r.body);
    }
    let r = f.server.call(
        "GET",
        &format!("/threewords/autosuggest?input={}&coordinates=true", a.words),
        &key,
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["suggestions"][0]["coordinates"]["lng"], a.coordinates.lng);
}

/// Words → square → words over 10 million random word triples, and square → words → square
/// over 10 million random squares, on the real region table (the scheme crate is built with
/// opt-level 3 in tests).
#[test]
fn ten_million_squares_round_trip() {
    let f = fixture();
    let scheme = &f.index.scheme;
    let grid = f.index.grid();
    let mut rng = waymark_tests::Rng::new(10_000_000);
    let (mut addresses, mut squares) = (0u64, 0u64);
    while squares < 10_000_000 {
        let (lat, lng) = rng.sphere_point();
        let s = grid.square(lat, lng).unwrap();
        let t = scheme.triple(s);
        assert_eq!(scheme.square(t), Some(s), "{lat},{lng}");
        squares += 1;
        let t = [0; 3].map(|_: u64| rng.below(40_000) as u64);
        if let Some(s) = scheme.square(t) {
            assert_eq!(scheme.triple(s), t);
            addresses += 1;
        }
    }
    // About 11 % of triples are past the last square.
    assert!(addresses > 8_500_000, "{addresses}");
}

/// Mean word length (letters per word) of addresses in the ten most populous places of the
/// gazetteer (points within 5 km of their centre) against open land and the open sea (uniform
/// points of those regions). Figures in docs/performance.md.
#[test]
fn cities_get_shorter_words_than_open_land() {
    use waymark_threewords::regions::{LAND, SEA};
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
    let mut open = [(0usize, 0usize); 3];
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
    let (populated, land, sea) = (mean(open[0]), mean(open[1]), mean(open[2]));
    eprintln!(
        "mean word length: ten largest cities {city:.2}, populated region {populated:.2}, open land {land:.2}, sea {sea:.2}"
    );
    assert!(city < land && land < sea, "{city} / {land} / {sea}");
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config { cases: 48, ..Default::default() })]

    /// Whatever the clip and the input, no suggestion lies outside the clip, and an address
    /// inside it, typed to two letters of its third word, is among the suggestions.
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
        let mut req = AutosuggestRequest { focus: Some(LatLng::new(lat + 1.0, lng)), ..input(&typed) };
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
        proptest::prop_assert!(r.suggestions.iter().any(|s| s.words == a.words), "{} not suggested: {r:?}", a.words);
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
