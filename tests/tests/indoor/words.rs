//! Instructions in the venue's words: level names, what a step passes, optimize, imperial units.

use super::*;

fn summaries(r: &IndoorDirectionsResponse) -> Vec<String> {
    r.routes[0]
        .legs
        .iter()
        .flat_map(|l| l.steps.iter())
        .filter_map(|s| s.instruction.as_ref().map(|i| i.summary.clone()))
        .collect()
}

#[test]
fn instructions_speak_the_venues_words() {
    // the upper level of this venue is known by its name only
    let v = venue("imdf-w-venue-1");
    let levels: Vec<(i64, Option<&str>, Option<&str>)> = v
        .levels
        .iter()
        .map(|l| (l.level, l.name.as_deref(), l.reference.as_deref()))
        .collect();
    assert_eq!(
        levels,
        [
            (0, Some("Ground floor"), Some("G")),
            (1, Some("First floor"), None)
        ]
    );
    let bakery = poi("imdf-w-venue-1", "Sun Bakery");
    let toilets = poi("imdf-w-venue-1", "Toilets");
    let r = route(
        "imdf-w-venue-1",
        IndoorPoint::PoiId(bakery),
        IndoorPoint::PoiId(toilets),
        "wheelchair",
    );
    let says = summaries(&r);
    assert!(
        says.contains(&"Take the elevator to First floor".to_owned()),
        "{says:?}"
    );
    // the first step says where to go; the next goes through the bakery's door (its only
    // way out)
    assert_eq!(says[0], "Head towards Hall", "{says:?}");
    assert_eq!(says[1], "Turn left into Hall, through the door", "{says:?}");
    // the sample venue names the level by its short name
    let r = route(
        "imdf-venue-1",
        IndoorPoint::PoiId(poi("imdf-venue-1", "Sun Bakery")),
        IndoorPoint::PoiId(poi("imdf-venue-1", "Toilets")),
        "wheelchair",
    );
    assert!(
        summaries(&r).contains(&"Take the elevator to level 1".to_owned()),
        "{:?}",
        summaries(&r)
    );
    // every language: no compass heading on the first step, the door named
    for (lang, head, door) in [
        ("en", "Head towards", "through the door"),
        ("fr", "Dirigez-vous vers", "par la porte"),
        ("de", "Gehen Sie Richtung", "durch die Tür"),
        ("es", "Diríjase hacia", "por la puerta"),
        ("it", "Dirigiti verso", "attraverso la porta"),
    ] {
        let r = directions(IndoorDirectionsRequest {
            venue_id: "imdf-w-venue-1".into(),
            origin: IndoorPoint::PoiId(bakery),
            destination: IndoorPoint::PoiId(toilets),
            mode: Some("wheelchair".into()),
            language: lang.into(),
            ..Default::default()
        })
        .unwrap();
        let says = summaries(&r);
        assert!(says[0].starts_with(head), "{lang}: {says:?}");
        assert!(says[1].contains(door), "{lang}: {says:?}");
        assert!(
            says.iter().any(|s| s.contains("First floor")),
            "{lang}: {says:?}"
        );
    }
}

#[test]
fn steps_name_what_they_pass() {
    // München: in a real mall, steps name a shop passed or a door taken, and the first step
    // names a place or connector, never a compass point
    let a = poi(STACHUS, "Decathlon");
    let b = poi(STACHUS, "Rischart");
    let r = route(
        STACHUS,
        IndoorPoint::PoiId(a),
        IndoorPoint::PoiId(b),
        "default",
    );
    let says = summaries(&r);
    assert!(says[0].starts_with("Head towards "), "{says:?}");
    for compass in ["north", "south", "east", "west"] {
        assert!(!says[0].contains(compass), "{says:?}");
    }
    assert!(
        says.iter()
            .any(|s| s.contains(", past ") || s.contains(", through ")),
        "{says:?}"
    );
}

#[test]
fn optimize_finds_the_unique_best_order() {
    // Sun Bakery (level 0) to the toilets (level 1) by way of the gallery (level 1) and the
    // hall (level 0): the only good order visits the hall first, then climbs once
    let v = "imdf-venue-1";
    let bakery = poi(v, "Sun Bakery");
    let toilets = poi(v, "Toilets");
    let hall = poi(v, "Hall");
    let gallery = poi(v, "Gallery");
    let req = |optimize| IndoorDirectionsRequest {
        venue_id: v.into(),
        origin: IndoorPoint::PoiId(bakery),
        destination: IndoorPoint::PoiId(toilets),
        waypoints: vec![IndoorPoint::PoiId(gallery), IndoorPoint::PoiId(hall)],
        optimize,
        ..Default::default()
    };
    let total = |r: &IndoorDirectionsResponse| -> f64 {
        r.routes[0].legs.iter().map(|l| l.duration.value).sum()
    };
    let plain = directions(req(false)).unwrap();
    let opt = directions(req(true)).unwrap();
    let order = |r: &IndoorDirectionsResponse| -> Vec<String> {
        r.routes[0]
            .legs
            .iter()
            .filter_map(|l| l.waypoint.clone())
            .collect()
    };
    assert_eq!(order(&plain), [gallery.to_string(), hall.to_string()]);
    assert_eq!(order(&opt), [hall.to_string(), gallery.to_string()]);
    assert!(
        total(&opt) + 10.0 < total(&plain),
        "{} vs {}",
        total(&opt),
        total(&plain)
    );
    // the given order climbs twice: up to the gallery, down to the hall, up again
    let levels = |r: &IndoorDirectionsResponse| -> Vec<i64> {
        r.routes[0]
            .legs
            .iter()
            .map(|l| l.end_location.level)
            .collect()
    };
    assert_eq!(levels(&plain), [1, 0, 1]);
    assert_eq!(levels(&opt), [0, 1, 1]);
}

#[test]
fn imperial_texts_are_in_feet() {
    let a = poi(STACHUS, "Decathlon");
    let b = poi(STACHUS, "Rischart");
    let req = IndoorDirectionsRequest {
        venue_id: STACHUS.into(),
        origin: IndoorPoint::PoiId(a),
        destination: IndoorPoint::PoiId(b),
        units: waymark_core::api::Units::Imperial,
        ..Default::default()
    };
    let r = directions(req).unwrap();
    let leg = &r.routes[0].legs[0];
    // values stay metres; texts are whole feet
    let feet = (leg.distance.value / 0.3048).round() as i64;
    assert_eq!(leg.distance.text, format!("{feet} ft"));
    for s in &leg.steps {
        assert!(s.distance.text.ends_with(" ft"), "{}", s.distance.text);
        let f = (s.distance.value / 0.3048).round() as i64;
        // step values are rounded to 0.1 m: a foot either way
        let shown: i64 = s.distance.text.trim_end_matches(" ft").parse().unwrap();
        assert!((shown - f).abs() <= 1, "{} vs {f}", s.distance.text);
    }
    let metric = route(
        STACHUS,
        IndoorPoint::PoiId(a),
        IndoorPoint::PoiId(b),
        "default",
    );
    assert_eq!(metric.routes[0].legs[0].distance.value, leg.distance.value);
    assert!(metric.routes[0].legs[0].distance.text.ends_with(" m"));
}
