//! Directions: wheelchair routes, steps, avoid_in, waypoints, errors, HTTP faces, venue files, the street.

use super::*;

/// Between every pair of POIs of `venue` on different levels: every route is walkable, and the
/// wheelchair route (when one exists) takes no stairs and no escalator, and an elevator or a
/// ramp where the default route climbs. Returns (pairs with a wheelchair route, of which the
/// default route climbs stairs or escalators).
fn wheelchair_pairs(venue: &str, points: &[(IndoorPoint, i64)]) -> (usize, usize) {
    let g = graph(venue);
    let mut compared = 0;
    let mut default_stairs = 0;
    for (i, (a, la)) in points.iter().enumerate() {
        for (b, lb) in points.iter().skip(i + 1) {
            if la == lb {
                continue;
            }
            let d = route(venue, a.clone(), b.clone(), "default");
            if d.status != "ok" {
                continue;
            }
            assert_walkable(&g, &d);
            let k = step_kinds(&d);
            let climbs = k
                .iter()
                .any(|s| s.starts_with("stairs") || s.starts_with("escalator"));
            let w = route(venue, a.clone(), b.clone(), "wheelchair");
            if w.status == "ok" {
                assert_walkable(&g, &w);
                let wk = step_kinds(&w);
                assert!(
                    !wk.iter()
                        .any(|s| s.starts_with("stairs") || s.starts_with("escalator")),
                    "{a:?} -> {b:?}: {wk:?}"
                );
                for leg in &w.routes[0].legs {
                    for s in &leg.steps {
                        assert!(s.routing_profiles.contains(&"wheelchair".to_owned()));
                    }
                }
                if climbs {
                    default_stairs += 1;
                    assert!(
                        wk.iter().any(|s| s == "elevator" || s.starts_with("ramp")),
                        "{wk:?}"
                    );
                }
                compared += 1;
            }
        }
    }
    (compared, default_stairs)
}

#[test]
fn wheelchair_routes_never_take_stairs() {
    let g = graph(STACHUS);
    let pois: Vec<(IndoorPoint, i64)> = g
        .pois
        .iter()
        .map(|(id, n)| (IndoorPoint::PoiId(*id), g.nodes[*n as usize].level))
        .collect();
    let (compared, default_stairs) = wheelchair_pairs(STACHUS, &pois);
    assert!(compared >= 10, "{compared}");
    // the same pairs by default do climb stairs, so this test can fail
    assert!(default_stairs >= 3, "{default_stairs}");
    // London: Farringdon station as one venue (its Elizabeth line building joined): no
    // wheelchair route reaches every level with POIs of the joined station as mapped, so the
    // profile is not listed and a wheelchair request is refused at `mode`.
    let v = venue(FARRINGDON);
    assert_eq!(v.name, "Farringdon");
    assert!(v.levels.len() >= 3);
    assert_eq!(v.routing_profiles, ["default"]);
    let e = directions(IndoorDirectionsRequest {
        venue_id: FARRINGDON.into(),
        origin: IndoorPoint::PoiId(v_first_poi(FARRINGDON)),
        destination: IndoorPoint::PoiId(v_first_poi(FARRINGDON)),
        mode: Some("wheelchair".into()),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
    assert_eq!(e.fields[0].loc[1], "mode");
}

/// The id of the first POI of `venue` in the POI search order.
fn v_first_poi(venue: &str) -> i64 {
    search(PoiSearchRequest {
        venue_id: venue.into(),
        ..Default::default()
    })
    .features[0]
        .id
        .unwrap()
}

#[test]
fn routes_have_steps_with_instructions() {
    let a = poi(STACHUS, "Decathlon");
    let b = poi(STACHUS, "Rischart");
    let r = route(
        STACHUS,
        IndoorPoint::PoiId(a),
        IndoorPoint::PoiId(b),
        "default",
    );
    assert_eq!(r.status, "ok");
    let route = &r.routes[0];
    assert_eq!(route.bounds.len(), 4);
    let leg = &route.legs[0];
    // Decathlon is on OSM level -1, Rischart on -2 (numbered -2 and -3: see above).
    assert_eq!(leg.start_location.level, -2);
    assert_eq!(leg.end_location.level, -3);
    let first = leg.steps.first().unwrap();
    assert_eq!(
        first.instruction.as_ref().unwrap().instruction_type,
        "depart"
    );
    let last = leg.steps.last().unwrap();
    assert_eq!(
        last.instruction.as_ref().unwrap().summary,
        "Arrive at Rischart"
    );
    assert_eq!(last.poi_id, Some(b));
    let total: f64 = leg.steps.iter().map(|s| s.distance.value).sum();
    assert!((total - leg.distance.value).abs() < 0.5);
    let vertical: Vec<&str> = leg
        .steps
        .iter()
        .map(|s| s.instruction.as_ref().unwrap().summary.as_str())
        .filter(|s| s.contains("level -2"))
        .collect();
    assert_eq!(vertical.len(), 1, "{:?}", leg.steps);
    for s in &leg.steps {
        assert!(!s.polyline.is_empty());
        assert!(s.polyline.iter().all(|p| p.len() == 3));
        assert_eq!(s.start_location.level, s.polyline[0][2] as i64);
    }
    // German
    let de = directions(IndoorDirectionsRequest {
        venue_id: STACHUS.into(),
        origin: IndoorPoint::PoiId(a),
        destination: IndoorPoint::PoiId(b),
        language: "de".into(),
        ..Default::default()
    })
    .unwrap();
    let last = de.routes[0].legs[0].steps.last().unwrap();
    assert_eq!(
        last.instruction.as_ref().unwrap().summary,
        "Sie haben Rischart erreicht"
    );
}

#[test]
fn avoid_in_is_respected() {
    let a = poi(STACHUS, "Decathlon");
    let b = poi(STACHUS, "Rischart");
    let r = route(
        STACHUS,
        IndoorPoint::PoiId(a),
        IndoorPoint::PoiId(b),
        "default",
    );
    // block a box around the middle point of the first level -1 step after departure
    let leg = &r.routes[0].legs[0];
    let pts: Vec<&Vec<f64>> = leg.steps.iter().flat_map(|s| s.polyline.iter()).collect();
    let mid = pts
        .iter()
        .filter(|p| p[2] == -1.0)
        .nth(2)
        .copied()
        .unwrap_or(pts[pts.len() / 2]);
    let (lat, lng, level) = (mid[1], mid[0], mid[2] as i64);
    let d = 0.00003; // ~3 m
    let boxed = IndoorAvoidBox {
        level,
        corners: vec![
            LatLng::new(lat - d, lng - d),
            LatLng::new(lat - d, lng + d),
            LatLng::new(lat + d, lng + d),
            LatLng::new(lat + d, lng - d),
        ],
    };
    let r2 = directions(IndoorDirectionsRequest {
        venue_id: STACHUS.into(),
        origin: IndoorPoint::PoiId(a),
        destination: IndoorPoint::PoiId(b),
        avoid_in: vec![boxed],
        ..Default::default()
    })
    .unwrap();
    if r2.status == "ok" {
        for leg in &r2.routes[0].legs {
            for s in &leg.steps {
                for p in &s.polyline {
                    if p[2] as i64 == level {
                        assert!(
                            !((p[1] - lat).abs() < d && (p[0] - lng).abs() < d),
                            "{p:?} inside the avoided box"
                        );
                    }
                }
            }
        }
        assert_ne!(r2, r);
    } else {
        assert_eq!(r2.status, "no_route");
    }
}

#[test]
fn waypoints_and_optimize() {
    let a = poi(STACHUS, "Decathlon");
    let b = poi(STACHUS, "Rischart");
    let c = poi(STACHUS, "Lindt");
    let req = IndoorDirectionsRequest {
        venue_id: STACHUS.into(),
        origin: IndoorPoint::PoiId(a),
        destination: IndoorPoint::PoiId(a),
        waypoints: vec![IndoorPoint::PoiId(b), IndoorPoint::PoiId(c)],
        ..Default::default()
    };
    let plain = directions(req.clone()).unwrap();
    let legs = &plain.routes[0].legs;
    assert_eq!(legs.len(), 3);
    assert_eq!(legs[0].waypoint.as_deref(), Some(b.to_string().as_str()));
    assert_eq!(legs[1].waypoint.as_deref(), Some(c.to_string().as_str()));
    let opt = directions(IndoorDirectionsRequest {
        optimize: true,
        ..req
    })
    .unwrap();
    let total = |r: &IndoorDirectionsResponse| -> f64 {
        r.routes[0].legs.iter().map(|l| l.duration.value).sum()
    };
    assert!(total(&opt) <= total(&plain) + 0.5);
}

#[test]
fn bad_points_get_400_and_422() {
    // off every walkable area
    let e = directions(IndoorDirectionsRequest {
        venue_id: STACHUS.into(),
        origin: IndoorPoint::Coords {
            lat: 48.15,
            lng: 11.60,
            level: -1,
        },
        destination: IndoorPoint::PoiId(poi(STACHUS, "Lindt")),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert!(e.message.contains("origin") && e.message.contains("off every walkable area"));
    // a level the venue does not have
    let e = directions(IndoorDirectionsRequest {
        venue_id: STACHUS.into(),
        origin: IndoorPoint::Coords {
            lat: 48.139,
            lng: 11.565,
            level: 7,
        },
        destination: IndoorPoint::PoiId(poi(STACHUS, "Lindt")),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    // unknown poi, unknown ref, unknown mode, unknown language: 422 naming the parameter
    for (req, field) in [
        (
            IndoorDirectionsRequest {
                venue_id: STACHUS.into(),
                origin: IndoorPoint::PoiId(1),
                destination: IndoorPoint::PoiId(poi(STACHUS, "Lindt")),
                ..Default::default()
            },
            "origin",
        ),
        (
            IndoorDirectionsRequest {
                venue_id: STACHUS.into(),
                origin: IndoorPoint::PoiId(poi(STACHUS, "Lindt")),
                destination: IndoorPoint::Ref("nope".into()),
                ..Default::default()
            },
            "destination",
        ),
        (
            IndoorDirectionsRequest {
                venue_id: STACHUS.into(),
                origin: IndoorPoint::PoiId(poi(STACHUS, "Lindt")),
                destination: IndoorPoint::PoiId(poi(STACHUS, "Rischart")),
                mode: Some("bicycle".into()),
                ..Default::default()
            },
            "mode",
        ),
        (
            IndoorDirectionsRequest {
                venue_id: STACHUS.into(),
                origin: IndoorPoint::PoiId(poi(STACHUS, "Lindt")),
                destination: IndoorPoint::PoiId(poi(STACHUS, "Rischart")),
                language: "xx".into(),
                ..Default::default()
            },
            "language",
        ),
    ] {
        let e = directions(req).unwrap_err();
        assert_eq!(e.code, ErrorCode::Validation, "{field}: {e:?}");
        assert_eq!(e.fields[0].loc, ["query", field]);
    }
}

#[test]
fn http_faces_answer_the_spec_bodies() {
    let f = fixture();
    let key = waymark_tests::private_caller(&f.publisher)
        .api_key_header
        .unwrap();
    let s = &f.server;
    let a = s.call("GET", &format!("/indoor/venues/{STACHUS}"), &key, "");
    assert_eq!(a.status, 200, "{}", a.body);
    let v: serde_json::Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(
        v["routing_profiles"],
        serde_json::json!(["default", "wheelchair"])
    );
    let lindt = poi(STACHUS, "Lindt");
    let r = s.call(
        "GET",
        &format!("/indoor/venues/{STACHUS}/pois/search?q=lindt&items_by_page=2"),
        &key,
        "",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["features"][0]["id"], lindt);
    assert_eq!(v["pagination"]["per_page"], 2);
    let d = s.call(
        "GET",
        &format!("/indoor/directions/{STACHUS}?origin={lindt}&destination=48.15,11.6,-1"),
        &key,
        "",
    );
    assert_eq!(d.status, 400, "{}", d.body);
    let v: serde_json::Value = serde_json::from_str(&d.body).unwrap();
    assert!(v["detail"].as_str().unwrap().contains("destination"));
    let d = s.call(
        "GET",
        &format!("/indoor/directions/{STACHUS}?origin={lindt}&destination=x"),
        &key,
        "",
    );
    assert_eq!(d.status, 422, "{}", d.body);
    let v: serde_json::Value = serde_json::from_str(&d.body).unwrap();
    assert!(v["context"].is_object() && v["detail"].is_array());
    let d = s.call(
        "GET",
        &format!("/indoor/directions/{STACHUS}?origin={lindt}&destination={lindt}&mode=wheelchair"),
        &key,
        "",
    );
    assert_eq!(d.status, 200, "{}", d.body);
    let v: serde_json::Value = serde_json::from_str(&d.body).unwrap();
    assert_eq!(v["status"], "ok");
    // engine = HTTP
    let e = route(
        STACHUS,
        IndoorPoint::PoiId(lindt),
        IndoorPoint::PoiId(lindt),
        "wheelchair",
    );
    assert_eq!(v, serde_json::to_value(&e).unwrap());
}

#[test]
fn venue_files_give_venues_search_and_routes() {
    let v = venue("imdf-venue-1");
    assert_eq!(v.name, "Example Hall");
    let levels: Vec<(i64, Option<&str>, Option<&str>)> = v
        .levels
        .iter()
        .map(|l| (l.level, l.name.as_deref(), l.reference.as_deref()))
        .collect();
    assert_eq!(
        levels,
        [
            (0, Some("Ground floor"), Some("G")),
            (1, Some("First floor"), Some("1"))
        ]
    );
    assert_eq!(v.buildings.len(), 1);
    assert_eq!(v.buildings[0].reference, "building-1");
    assert_eq!(v.buildings[0].levels.len(), 2);
    assert_eq!(
        v.buildings[0].opening_hours.as_deref(),
        Some("Mo-Su 06:00-22:00")
    );
    assert_eq!(v.routing_profiles, ["default", "wheelchair"]);
    assert!(v.languages.contains(&"de".to_owned()));
    assert!(
        v.categories.contains(&"bakery".to_owned()),
        "{:?}",
        v.categories
    );
    // search in two languages, with a typo
    let r = search(q("imdf-venue-1", "backerei sone"));
    assert_eq!(names(&r), ["Sun Bakery"]);
    let r = search(PoiSearchRequest {
        language: "de".into(),
        ..q("imdf-venue-1", "sun bakry")
    });
    assert_eq!(names(&r), ["Bäckerei Sonne"]);
    // the bakery's building comes from its unit's level
    assert_eq!(r.features[0].properties.0["building"], "building-1");
    // step-free from the bakery to the toilets upstairs
    let bakery = r.features[0].id.unwrap();
    let toilets = poi("imdf-venue-1", "Toilets");
    let g = graph("imdf-venue-1");
    let w = route(
        "imdf-venue-1",
        IndoorPoint::PoiId(bakery),
        IndoorPoint::PoiId(toilets),
        "wheelchair",
    );
    assert_walkable(&g, &w);
    let k = step_kinds(&w);
    assert!(k.contains(&"elevator".to_owned()), "{k:?}");
    assert!(!k.iter().any(|s| s.starts_with("stairs")), "{k:?}");
    let d = route(
        "imdf-venue-1",
        IndoorPoint::PoiId(bakery),
        IndoorPoint::PoiId(toilets),
        "default",
    );
    assert_walkable(&g, &d);
    assert_eq!(d.routes[0].legs[0].end_location.level, 1);
    // re-adding the file replaces the venue (ids are stable)
    let copy = tempfile::tempdir().unwrap();
    let conn_path = copy.path().join("data.sqlite");
    std::fs::copy(fixture().dirs[0].join("data.sqlite"), &conn_path).unwrap();
    let mut conn = rusqlite::Connection::open(&conn_path).unwrap();
    waymark_packs::venue_file::import(&mut conn, &venue_file(), "2026-01-01T00:00:00Z").unwrap();
    let again = waymark_core::indoor::read_venue(&conn, "imdf-venue-1").unwrap();
    assert!(again.features.iter().any(|f| f.id == bakery));
    assert_eq!(again.features.len(), 10);
}

#[test]
fn routes_start_on_the_street() {
    let g = graph(STACHUS);
    let decathlon = poi(STACHUS, "Decathlon");
    // points a few decimetres beside the outdoor walking network joined to the venue
    let mut outdoor: Vec<u32> = g
        .edges
        .iter()
        .filter(|e| e.feature == -2)
        .flat_map(|e| [e.a, e.b])
        .collect();
    outdoor.sort_unstable();
    outdoor.dedup();
    assert!(outdoor.len() > 10, "{}", outdoor.len());
    let mut ok = 0;
    for n in outdoor.iter().step_by((outdoor.len() / 25).max(1)) {
        let node = &g.nodes[*n as usize];
        let r = directions(IndoorDirectionsRequest {
            venue_id: STACHUS.into(),
            origin: IndoorPoint::Coords {
                lat: node.lat + 0.000002,
                lng: node.lng,
                level: 0,
            },
            destination: IndoorPoint::PoiId(decathlon),
            ..Default::default()
        })
        .unwrap();
        if r.status != "ok" {
            continue;
        }
        ok += 1;
        assert_walkable(&g, &r);
        let leg = &r.routes[0].legs[0];
        assert_eq!(leg.start_location.level, 0);
        // Decathlon, on OSM level -1
        assert_eq!(leg.end_location.level, -2);
        let k = step_kinds(&r);
        assert!(
            k.iter().any(|s| s.ends_with("_down") || s == "elevator"),
            "{k:?}"
        );
    }
    assert!(ok >= 5, "{ok} street points reach Decathlon");
}
