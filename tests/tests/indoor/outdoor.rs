//! Directions from and to outdoor points: the walk on the pack's walking network to an
//! entrance, then indoors (and back out to the street).

use super::*;
use waymark_core::api::IndoorDirectionsRequest as Req;

/// A `lat,lng,0` point `metres` east of the east side of `venue`'s bbox, at its middle.
fn east_of(venue: &str, metres: f64) -> IndoorPoint {
    let b = super::venue(venue).bbox;
    let mid = (b[1] + b[3]) / 2.0;
    let (_, dlng) = waymark_core::geo::degrees_for(metres, mid);
    IndoorPoint::Coords {
        lat: mid,
        lng: b[2] + dlng,
        level: 0,
    }
}

fn at(p: &IndoorPoint) -> Pt {
    match p {
        IndoorPoint::Coords { lat, lng, .. } => Pt::new(*lat, *lng),
        _ => unreachable!(),
    }
}

fn summaries(r: &IndoorDirectionsResponse) -> Vec<String> {
    r.routes[0]
        .legs
        .iter()
        .flat_map(|l| l.steps.iter())
        .filter_map(|s| s.instruction.as_ref().map(|i| i.summary.clone()))
        .collect()
}

/// The step that enters the venue: its index and summary (there is exactly one).
fn entering(r: &IndoorDirectionsResponse, venue_name: &str) -> (usize, String) {
    let s = summaries(r);
    let found: Vec<(usize, String)> = s
        .iter()
        .enumerate()
        .filter(|(_, t)| t.starts_with(&format!("Enter {venue_name} through")))
        .map(|(i, t)| (i, t.clone()))
        .collect();
    assert_eq!(found.len(), 1, "{s:?}");
    found[0].clone()
}

/// The steps before `k` are on level 0 and every step from `k` on starts inside the venue
/// (its graph has the point), the route begins at `from` and is longer than the straight line.
fn assert_walked_in(r: &IndoorDirectionsResponse, from: Pt, k: usize) {
    let leg = &r.routes[0].legs[0];
    let start = Pt::new(leg.start_location.lat, leg.start_location.lng);
    assert!(haversine(start, from) < 0.5, "{start:?} {from:?}");
    assert_eq!(leg.start_location.level, 0);
    assert!(k >= 1);
    for s in &leg.steps[..k] {
        assert!(s.polyline.iter().all(|p| p[2] == 0.0), "{:?}", s.polyline);
    }
    let end = Pt::new(leg.end_location.lat, leg.end_location.lng);
    assert!(
        leg.distance.value > haversine(from, end),
        "{}",
        leg.distance.value
    );
}

fn haversine(a: Pt, b: Pt) -> f64 {
    waymark_core::geo::haversine_m(a, b)
}

#[test]
fn an_outdoor_origin_walks_in_through_an_entrance_at_stachus() {
    let name = venue(STACHUS).name;
    let from = east_of(STACHUS, 200.0);
    let decathlon = poi(STACHUS, "Decathlon");
    let r = directions(Req {
        venue_id: STACHUS.into(),
        origin: from.clone(),
        destination: IndoorPoint::PoiId(decathlon),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(r.status, "ok");
    let (k, said) = entering(&r, &name);
    assert_walked_in(&r, at(&from), k);
    let leg = &r.routes[0].legs[0];
    assert_eq!(leg.end_location.level, -2);
    assert!(
        leg.steps[0]
            .instruction
            .as_ref()
            .unwrap()
            .summary
            .starts_with("Head towards the entrance"),
        "{:?}",
        leg.steps[0]
    );
    // the walk from the street ends at a mapped entrance of the venue
    let entrance = &leg.steps[k].start_location;
    let entrances = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        extended: Some(waymark_core::api::PoiSearchExtended::Full),
        items_by_page: 0,
        ..Default::default()
    });
    assert!(
        entrances.features.iter().any(|f| {
            f.properties.0.get("kind").and_then(|k| k.as_str()) == Some("entrance")
                && f.geometry.0["coordinates"][0]
                    .as_f64()
                    .is_some_and(|x| (x - entrance.lng).abs() < 1e-6)
        }),
        "{entrance:?} is no entrance ({said})"
    );
    // the same in German
    let de = directions(Req {
        venue_id: STACHUS.into(),
        origin: from.clone(),
        destination: IndoorPoint::PoiId(decathlon),
        language: "de".into(),
        ..Default::default()
    })
    .unwrap();
    assert!(
        summaries(&de)
            .iter()
            .any(|s| s.starts_with(&format!("Betreten Sie {name} durch"))),
        "{:?}",
        summaries(&de)
    );
    // and back out to the same point: the last steps leave through an entrance
    let back = directions(Req {
        venue_id: STACHUS.into(),
        origin: IndoorPoint::PoiId(decathlon),
        destination: from.clone(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(back.status, "ok");
    let kinds = step_kinds(&back);
    assert_eq!(
        kinds.iter().filter(|k| *k == "exit").count(),
        1,
        "{kinds:?}"
    );
    let leg = &back.routes[0].legs[0];
    let end = Pt::new(leg.end_location.lat, leg.end_location.lng);
    assert!(haversine(end, at(&from)) < 0.5);
    assert!(
        summaries(&back)
            .iter()
            .any(|s| s.starts_with(&format!("Leave {name} through")))
    );
}

#[test]
fn an_outdoor_origin_walks_in_through_a_venue_file_opening() {
    const O: &str = "imdf-o-venue-1";
    let from = east_of(O, 120.0);
    let toilets = poi(O, "Toilets");
    let g = graph(O);
    for mode in ["default", "wheelchair"] {
        let r = directions(Req {
            venue_id: O.into(),
            origin: from.clone(),
            destination: IndoorPoint::PoiId(toilets),
            mode: Some(mode.into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(r.status, "ok", "{mode}");
        let (k, said) = entering(&r, "Example Hall");
        assert_walked_in(&r, at(&from), k);
        let leg = &r.routes[0].legs[0];
        // in through the opening in the middle of the south wall
        let door = &leg.steps[k].start_location;
        assert!(
            haversine(
                Pt::new(door.lat, door.lng),
                Pt::new(48.1 + O_SHIFT[1], 11.5003 + O_SHIFT[0])
            ) < 0.5,
            "{door:?}"
        );
        assert!(
            said.starts_with("Enter Example Hall through the entrance"),
            "{said}"
        );
        assert_eq!(
            leg.steps[0].instruction.as_ref().unwrap().summary,
            "Head towards the entrance"
        );
        assert_eq!(leg.end_location.level, 1);
        // indoors the route stays in walkable areas
        let inside = IndoorDirectionsResponse {
            status: "ok".into(),
            routes: vec![waymark_core::api::IndoorRoute {
                bounds: Vec::new(),
                legs: vec![waymark_core::api::IndoorLeg {
                    steps: leg.steps[k..].to_vec(),
                    ..leg.clone()
                }],
            }],
        };
        assert_walkable(&g, &inside);
        let kinds = step_kinds(&r);
        if mode == "wheelchair" {
            assert!(kinds.contains(&"elevator".to_owned()), "{kinds:?}");
            assert!(!kinds.iter().any(|s| s.starts_with("stairs")), "{kinds:?}");
        }
    }
    // out to the street
    let back = directions(Req {
        venue_id: O.into(),
        origin: IndoorPoint::PoiId(toilets),
        destination: from.clone(),
        language: "fr".into(),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(back.status, "ok");
    assert!(
        summaries(&back)
            .iter()
            .any(|s| s == "Sortez de Example Hall par l'entrée"),
        "{:?}",
        summaries(&back)
    );
}

#[test]
fn outdoor_points_too_far_or_without_streets_are_400() {
    const O: &str = "imdf-o-venue-1";
    let toilets = IndoorPoint::PoiId(poi(O, "Toilets"));
    let req = |venue: &str, origin: IndoorPoint, destination: IndoorPoint| Req {
        venue_id: venue.into(),
        origin,
        destination,
        ..Default::default()
    };
    // more than 1000 m away
    let e = directions(req(O, east_of(O, 1500.0), toilets.clone())).unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert!(
        e.message.starts_with("origin:") && e.message.contains("at most 1000 m"),
        "{}",
        e.message
    );
    // the sample venue file stands outside the München extract: no street around it
    let e = directions(req(
        "imdf-venue-1",
        east_of("imdf-venue-1", 100.0),
        IndoorPoint::PoiId(poi("imdf-venue-1", "Toilets")),
    ))
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert!(
        e.message.starts_with("origin:")
            && e.message.contains("no installed pack has a walkable way"),
        "{}",
        e.message
    );
    // the destination is named
    let e = directions(req(O, toilets.clone(), east_of(O, 1500.0))).unwrap_err();
    assert!(e.message.starts_with("destination:"), "{}", e.message);
    // both outdoors
    let e = directions(req(O, east_of(O, 100.0), east_of(O, 150.0))).unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert!(e.message.contains("both outside"), "{}", e.message);
    // outdoor points are level 0 only
    let p = at(&east_of(O, 100.0));
    let e = directions(req(
        O,
        IndoorPoint::Coords {
            lat: p.lat,
            lng: p.lng,
            level: 1,
        },
        toilets,
    ))
    .unwrap_err();
    assert!(
        e.message.contains("off every walkable area of level 1"),
        "{}",
        e.message
    );
}

#[test]
fn farringdon_has_no_level_0_entrance_to_walk_in_by() {
    // its main entrance is on a level -5 outline only, the other is an emergency exit
    let g = graph(FARRINGDON);
    let v = {
        let dir = &fixture().dirs[1];
        let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
        waymark_core::indoor::read_venue(&conn, FARRINGDON).unwrap()
    };
    assert!(
        v.features.iter().any(|f| f.kind == "entrance"),
        "Farringdon maps entrances"
    );
    assert!(waymark_core::indoor::outdoor::entrances(&v, &g).is_empty());
    let inside = IndoorPoint::PoiId(
        search(PoiSearchRequest {
            venue_id: FARRINGDON.into(),
            items_by_page: 1,
            ..Default::default()
        })
        .features[0]
            .id
            .unwrap(),
    );
    let e = directions(Req {
        venue_id: FARRINGDON.into(),
        origin: east_of(FARRINGDON, 60.0),
        destination: inside,
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert!(
        e.message.starts_with("origin:") && e.message.contains("no mapped entrance on level 0"),
        "{}",
        e.message
    );
}
