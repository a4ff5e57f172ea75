//! Words back to a position: `convert-to-coordinates` in the engine and over HTTP, and
//! autosuggest with coordinates.
use super::*;

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
