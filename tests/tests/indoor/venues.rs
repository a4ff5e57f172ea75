//! Venues: names, levels, profiles that hold, whole venues, customers, finding venues.

use super::*;

#[test]
fn venues_have_names_levels_and_profiles() {
    let v = venue(STACHUS);
    assert_eq!(v.venue_id, STACHUS);
    assert_eq!(v.name, "Karlsplatz (Stachus)");
    assert_eq!(v.bbox.len(), 4);
    assert!(v.bbox[0] < v.bbox[2] && v.bbox[1] < v.bbox[3]);
    let levels: Vec<i64> = v.levels.iter().map(|l| l.level).collect();
    // The mezzanine (-0.5) of a joined building is a level of its own: the levels are
    // numbered in order, each known by its OSM value.
    assert_eq!(levels, [-6, -5, -4, -3, -2, -1, 0]);
    let refs: Vec<&str> = v
        .levels
        .iter()
        .map(|l| l.reference.as_deref().unwrap())
        .collect();
    assert_eq!(refs, ["-5", "-4", "-3", "-2", "-1", "-0.5", "0"]);
    for l in &v.levels {
        assert_eq!(l.bbox.len(), 4);
    }
    // The buildings its passages join are its own, each on levels of the venue.
    assert!(v.buildings.len() > 1, "{}", v.buildings.len());
    assert_eq!(v.buildings[0].reference, STACHUS);
    for b in &v.buildings {
        assert!(!b.levels.is_empty(), "{}", b.reference);
        assert!(
            b.levels.iter().all(|l| v.levels.contains(l)),
            "{}",
            b.reference
        );
    }
    assert_eq!(v.routing_profiles, ["default", "wheelchair"]);
    assert!(
        v.categories.contains(&"bakery".to_owned()),
        "{:?}",
        v.categories
    );
    assert!(v.languages.contains(&"en".to_owned()));
    // no venue is shown by its OSM id
    let f = fixture();
    for dir in &f.dirs {
        let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
        let mut st = conn
            .prepare("SELECT venue_id, name FROM indoor_venues")
            .unwrap();
        let rows: Vec<(String, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(!rows.is_empty());
        for (id, name) in rows {
            assert!(
                !name.starts_with("osm-") && !name.is_empty(),
                "{id}: {name}"
            );
        }
    }
    let e = call(VenueGetRequest {
        venue_id: "osm-way-1".into(),
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
}

/// `routing_profiles` is true on every sample venue: under each listed profile one POI
/// reaches a POI of every level that has POIs, and is reached back from it (a POI spanning
/// levels counts for each of them), for a customer (places for customers only may be the way
/// between levels). Checked with plain searches over the graph.
#[test]
fn listed_profiles_reach_every_poi_level() {
    use std::collections::{BTreeMap, BTreeSet};
    use waymark_core::indoor::graph::{Profile, Ride};
    let mut checked = 0;
    for id in all_venue_ids() {
        let v = venue(&id);
        let Some(g) = (!v.routing_profiles.is_empty()).then(|| graph(&id)) else {
            continue;
        };
        // POI id -> its nodes; level -> POI ids
        let mut nodes_of: BTreeMap<i64, Vec<u32>> = BTreeMap::new();
        let mut on_level: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
        for &(poi, n) in &g.pois {
            nodes_of.entry(poi).or_default().push(n);
            on_level
                .entry(g.nodes[n as usize].level)
                .or_default()
                .insert(poi);
        }
        if on_level.len() < 2 {
            continue;
        }
        for name in &v.routing_profiles {
            let p = Ride {
                profile: Profile::parse(name).unwrap(),
                customer: true,
            };
            let reach = |poi: i64| -> Vec<bool> {
                let mut r = vec![false; g.nodes.len()];
                for &n in &nodes_of[&poi] {
                    let (m, _) = g.distances_from(&g.node_anchor(n).unwrap(), p);
                    for (i, d) in m.iter().enumerate() {
                        r[i] |= d.is_finite();
                    }
                }
                r
            };
            let hub = nodes_of.keys().copied().find(|&origin| {
                let fwd = reach(origin);
                on_level.values().all(|pois| {
                    pois.iter().any(|&other| {
                        nodes_of[&other].iter().any(|&n| fwd[n as usize])
                            && nodes_of[&origin].iter().any(|&n| reach(other)[n as usize])
                    })
                })
            });
            assert!(
                hub.is_some(),
                "{id} lists `{name}` but no POI reaches every level of {:?}",
                on_level.keys().collect::<Vec<_>>()
            );
            checked += 1;
        }
    }
    assert!(checked >= 3, "{checked}");
}

/// Forum (Helsinki): its shops are points on levels -1 to 3 and its walkways footways of
/// levels 1 to 3 that continue the streets at shared nodes, with a stair way between levels
/// 2 and 3. Every level's shops are reached from the ground floor and back.
#[test]
fn forum_levels_connect() {
    let v = venue(FORUM);
    assert_eq!(v.name, "Forum");
    assert_eq!(v.routing_profiles, ["default"]);
    // Alepa (level 0) to Ajatar (level 1), and a shop of each other level
    let alepa = 2438729660;
    let ajatar = 1025031980;
    let r = route(
        FORUM,
        IndoorPoint::PoiId(alepa),
        IndoorPoint::PoiId(ajatar),
        "default",
    );
    assert_eq!(r.status, "ok", "{r:?}");
    let g = graph(FORUM);
    assert_walkable(&g, &r);
    let levels: Vec<i64> = r.routes[0].legs[0]
        .steps
        .iter()
        .flat_map(|s| s.polyline.iter().map(|p| p[2] as i64))
        .collect();
    assert_eq!(levels.first(), Some(&0));
    assert_eq!(levels.last(), Some(&1));
    for shop in ["Vila", "Pentik", "Moomin Shop", "Seven Art"] {
        let id = poi(FORUM, shop);
        for (a, b) in [(alepa, id), (id, alepa)] {
            let r = route(
                FORUM,
                IndoorPoint::PoiId(a),
                IndoorPoint::PoiId(b),
                "default",
            );
            assert_eq!(r.status, "ok", "{a} -> {b} ({shop})");
        }
    }
    // the way to level 2 is a stair: no wheelchair profile
    let e = directions(IndoorDirectionsRequest {
        venue_id: FORUM.into(),
        origin: IndoorPoint::PoiId(alepa),
        destination: IndoorPoint::PoiId(ajatar),
        mode: Some("wheelchair".into()),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
}

#[test]
fn venue_without_routing_configuration_is_400() {
    // the levels of this venue do not connect (no stairs, no lift)
    let v = venue("imdf-i-venue-1");
    assert!(v.routing_profiles.is_empty(), "{:?}", v.routing_profiles);
    let e = directions(IndoorDirectionsRequest {
        venue_id: "imdf-i-venue-1".into(),
        origin: IndoorPoint::PoiId(poi("imdf-i-venue-1", "Sun Bakery")),
        destination: IndoorPoint::PoiId(poi("imdf-i-venue-1", "Toilets")),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::BadRequest);
    assert_eq!(
        e.message,
        "venue `imdf-i-venue-1` has no routing configuration"
    );
    // and over HTTP: 400 with the spec's detail body
    let f = fixture();
    let key = waymark_tests::private_caller(&f.publisher)
        .api_key_header
        .unwrap();
    let a = f.server.call(
        "GET",
        &format!(
            "/indoor/directions/imdf-i-venue-1?origin={}&destination={}",
            poi("imdf-i-venue-1", "Sun Bakery"),
            poi("imdf-i-venue-1", "Toilets")
        ),
        &key,
        "",
    );
    assert_eq!(a.status, 400, "{}", a.body);
    let body: serde_json::Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(
        body,
        serde_json::json!({"detail": "venue `imdf-i-venue-1` has no routing configuration"})
    );
}

#[test]
fn half_levels_are_levels_of_their_own() {
    // München and London map half-levels (`level=-0.5`, `-1.5`): each is a level of its own,
    // the venue's levels numbered in order, the OSM value kept as the level's ref
    let mut renumbered = 0;
    for id in all_venue_ids() {
        let v = venue(&id);
        let values: Vec<Option<f64>> = v
            .levels
            .iter()
            .map(|l| l.reference.as_deref().and_then(|r| r.parse::<f64>().ok()))
            .collect();
        if !values.iter().flatten().any(|x| x.fract() != 0.0) {
            continue;
        }
        renumbered += 1;
        // consecutive levels, their OSM values ascending with them, 0 the lowest at or above 0
        let levels: Vec<i64> = v.levels.iter().map(|l| l.level).collect();
        assert!(
            levels.windows(2).all(|w| w[1] == w[0] + 1),
            "{id}: {levels:?}"
        );
        let values: Vec<f64> = values.into_iter().map(Option::unwrap).collect();
        assert!(values.windows(2).all(|w| w[0] < w[1]), "{id}: {values:?}");
        let zero = values.iter().position(|x| *x >= 0.0);
        if let Some(z) = zero {
            assert_eq!(levels[z], 0, "{id}: {levels:?} {values:?}");
        }
        // the graph's levels are the venue's (and level 0, the street around it)
        if let Some(g) = fixture().dirs.iter().find_map(|d| {
            let conn = rusqlite::Connection::open(d.join("data.sqlite")).unwrap();
            waymark_core::indoor::read_venue(&conn, &id).ok()?.graph
        }) {
            for l in g.levels() {
                assert!(
                    l == 0 || levels.contains(&l),
                    "{id}: graph level {l} not in {levels:?}"
                );
            }
        }
    }
    assert!(renumbered >= 2, "{renumbered} venues with half-levels");
}

/// The point of a POI (its GeoJSON point, else the first vertex of its shape).
fn poi_point(venue: &str, name: &str) -> LatLng {
    let id = poi(venue, name);
    let r = search(PoiSearchRequest {
        venue_id: venue.into(),
        ids: vec![id],
        ..Default::default()
    });
    let g = &r.features[0].geometry.0;
    let mut c = &g["coordinates"];
    while c[0].is_array() {
        c = &c[0];
    }
    LatLng::new(c[1].as_f64().unwrap(), c[0].as_f64().unwrap())
}

fn list(req: waymark_core::api::VenueListRequest) -> waymark_core::api::VenueListResponse {
    call(req).unwrap()
}

fn ids(r: &waymark_core::api::VenueListResponse) -> Vec<String> {
    r.venues.iter().map(|v| v.venue_id.clone()).collect()
}

#[test]
fn venues_are_found_near_a_point_and_by_name() {
    use waymark_core::api::VenueListRequest;
    // which venue am I in: radius 0 at a shop of Forum (a building: its outline holds it)
    let inside = poi_point(FORUM, "Alepa");
    let r = list(VenueListRequest {
        near: Some(inside),
        radius: Some(0),
        ..Default::default()
    });
    assert_eq!(
        ids(&r).first().map(String::as_str),
        Some(FORUM),
        "{:?}",
        ids(&r)
    );
    assert!(r.venues.iter().all(|v| v.distance == Some(0.0)));
    let forum = &r.venues[0];
    assert_eq!(forum.levels, venue(FORUM).levels);
    assert_eq!(forum.name, venue(FORUM).name);
    // 2 km off Forum: nothing holds the point, nothing of Helsinki within 500 m
    let far = LatLng::new(inside.lat + 0.02, inside.lng);
    let r = list(VenueListRequest {
        near: Some(far),
        radius: Some(0),
        ..Default::default()
    });
    assert!(r.venues.is_empty(), "{:?}", ids(&r));
    assert_eq!((r.pagination.total, r.pagination.page_count), (0, 0));
    // near Stachus: venues within 300 m, nearest first, Stachus itself at 0 m
    let at = poi_point(STACHUS, "Decathlon");
    let r = list(VenueListRequest {
        near: Some(at),
        radius: Some(300),
        ..Default::default()
    });
    assert!(ids(&r).contains(&STACHUS.to_owned()), "{:?}", ids(&r));
    let d: Vec<f64> = r.venues.iter().map(|v| v.distance.unwrap()).collect();
    assert!(d.windows(2).all(|w| w[0] <= w[1]), "{d:?}");
    assert!(d.iter().all(|x| *x <= 300.0), "{d:?}");
    assert!(!ids(&r).contains(&FORUM.to_owned()));
    assert!(r.venues.len() > 1, "{:?}", ids(&r));
    // by name: words of the name, folded, each a word start
    for (q, want) in [
        ("karlspl", STACHUS),
        ("STACHUS", STACHUS),
        ("example hal", "imdf-venue-1"),
    ] {
        let r = list(VenueListRequest {
            q: Some(q.into()),
            ..Default::default()
        });
        assert!(ids(&r).contains(&want.to_owned()), "{q}: {:?}", ids(&r));
    }
    let r = list(VenueListRequest {
        q: Some("zzzz nothing".into()),
        ..Default::default()
    });
    assert!(r.venues.is_empty());
    // every venue, paged by name: the pages are the whole list, in order, once
    let all = list(VenueListRequest::default());
    assert_eq!(all.pagination.total as usize, all_venue_ids().len());
    let mut paged = Vec::new();
    for page in 0..all.pagination.total.div_ceil(3) as u32 {
        let r = list(VenueListRequest {
            items_by_page: 3,
            page,
            ..Default::default()
        });
        assert_eq!(
            r.pagination.page_count as u64,
            all.pagination.total.div_ceil(3)
        );
        paged.extend(ids(&r));
    }
    assert_eq!(paged, ids(&all));
    // radius without near, a radius too large: 422 at radius
    let e = call(VenueListRequest {
        radius: Some(10),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::Validation);
    assert_eq!(e.fields[0].loc, ["query", "radius"]);
}

#[test]
fn venue_list_over_http() {
    let f = fixture();
    let key = waymark_tests::private_caller(&f.publisher)
        .api_key_header
        .unwrap();
    let inside = poi_point(FORUM, "Alepa");
    let engine = list(waymark_core::api::VenueListRequest {
        near: Some(inside),
        radius: Some(0),
        ..Default::default()
    });
    for path in ["/indoor/venues", "/indoor/venues/"] {
        let a = f.server.call(
            "GET",
            &format!("{path}?near={},{}&radius=0", inside.lat, inside.lng),
            &key,
            "",
        );
        assert_eq!(a.status, 200, "{path}: {}", a.body);
        let v: serde_json::Value = serde_json::from_str(&a.body).unwrap();
        assert_eq!(v, serde_json::to_value(&engine).unwrap(), "{path}");
        let a = f.server.call("GET", &format!("{path}?radius=5"), &key, "");
        assert_eq!(a.status, 422, "{path}: {}", a.body);
        let v: serde_json::Value = serde_json::from_str(&a.body).unwrap();
        assert_eq!(
            v["detail"][0]["loc"],
            serde_json::json!(["query", "radius"])
        );
    }
}

#[test]
fn venue_list_parameters_are_parsed_and_checked() {
    use waymark_core::api::validation::Validate;
    use waymark_core::api::{FromQuery, RequestHeaders, VenueListRequest, pairs};
    let parse = |q: &[(&str, &str)]| {
        VenueListRequest::from_query(&pairs(q.iter().copied()), &RequestHeaders::default(), &[])
    };
    let r = parse(&[("near", "48.139,11.565"), ("radius", "0")]).unwrap();
    assert_eq!(r.near, Some(LatLng::new(48.139, 11.565)));
    assert_eq!(r.radius, Some(0));
    assert!(r.validate().is_ok());
    let r = parse(&[("q", "stachus"), ("items_by_page", "5"), ("page", "1")]).unwrap();
    assert_eq!(
        (r.q.as_deref(), r.items_by_page, r.page),
        (Some("stachus"), 5, 1)
    );
    // radius without near, too large, an empty q: each named
    let e = parse(&[("radius", "60000"), ("q", " ")])
        .unwrap()
        .validate()
        .unwrap_err();
    let at: Vec<&serde_json::Value> = e.iter().map(|f| &f.loc[1]).collect();
    assert_eq!(at, ["radius", "radius", "q"]);
    assert!(e[0].msg.contains("near"));
    // a point off the globe is a 422 at near (the parser checks the range)
    let e = match parse(&[("near", "95,11")]) {
        Err(e) => e,
        Ok(r) => r.validate().unwrap_err(),
    };
    assert_eq!(e[0].loc[1], "near");
    assert!(parse(&[("near", "x")]).is_err());
}

/// Buildings joined by indoor walkways (corridors, bridges, tunnels, shared areas) are one
/// venue with one id: on the samples, Stachus holds the buildings its passages reach, and
/// Farringdon's Elizabeth line building is part of the station; from a POI of one building of
/// such a venue a route reaches a POI of another.
#[test]
fn joined_buildings_are_one_venue() {
    use std::collections::BTreeMap;
    let ids = all_venue_ids();
    assert!(!ids.contains(&"osm-way-577276951".to_owned()), "{ids:?}");
    let mut routed = 0;
    for id in [STACHUS, FARRINGDON] {
        let v = venue(id);
        let refs: Vec<&str> = v.buildings.iter().map(|b| b.reference.as_str()).collect();
        assert!(refs.len() > 1, "{id}: {refs:?}");
        assert_eq!(refs[0], id);
        let all = search(PoiSearchRequest {
            venue_id: id.into(),
            ..Default::default()
        });
        let mut by_building: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        for f in &all.features {
            let b = f.properties.0.get("building").and_then(|v| v.as_str());
            if let (Some(b), Some(fid)) = (b, f.id) {
                by_building.entry(b.to_owned()).or_default().push(fid);
            }
        }
        // every feature is in one of the venue's buildings; more than one has POIs
        assert!(
            by_building.keys().all(|b| refs.contains(&b.as_str())),
            "{id}: {by_building:?}"
        );
        assert!(by_building.len() > 1, "{id}: {by_building:?}");
        let main: Vec<i64> = by_building.get(id).cloned().unwrap_or_default();
        for (b, pois) in &by_building {
            if b == id {
                continue;
            }
            let reached = pois.iter().take(3).any(|to| {
                main.iter().take(5).any(|from| {
                    route(
                        id,
                        IndoorPoint::PoiId(*from),
                        IndoorPoint::PoiId(*to),
                        "default",
                    )
                    .status
                        == "ok"
                })
            });
            routed += usize::from(reached);
        }
    }
    assert!(
        routed >= 2,
        "{routed} joined buildings reached from the main one"
    );
}

/// `access=customers` (here on the stairs and the lift of a venue file, the only ways between
/// its levels): a route keeps out of places for customers only unless the caller says they
/// are a customer; the venue still lists its profiles (they serve every level for a customer).
#[test]
fn customers_only_places_are_walked_by_customers_only() {
    let req = |venue: &str, mode: &str, customer: bool| IndoorDirectionsRequest {
        venue_id: venue.into(),
        origin: IndoorPoint::Coords {
            lat: 48.1003,
            lng: 11.5001,
            level: 0,
        },
        destination: IndoorPoint::Coords {
            lat: 48.1001,
            lng: 11.5001,
            level: 1,
        },
        mode: Some(mode.into()),
        customer,
        ..Default::default()
    };
    assert_eq!(
        venue("imdf-c-venue-1").routing_profiles,
        ["default", "wheelchair"]
    );
    for mode in ["default", "wheelchair"] {
        let plain = directions(req("imdf-venue-1", mode, false)).unwrap();
        assert_eq!(plain.status, "ok", "{mode}");
        let walker = directions(req("imdf-c-venue-1", mode, false)).unwrap();
        assert_eq!(walker.status, "no_route", "{mode}");
        assert!(walker.routes.is_empty());
        let customer = directions(req("imdf-c-venue-1", mode, true)).unwrap();
        assert_eq!(customer.status, "ok", "{mode}");
        assert_eq!(
            customer.routes[0].legs[0].duration.value, plain.routes[0].legs[0].duration.value,
            "{mode}"
        );
        assert_eq!(step_kinds(&customer), step_kinds(&plain), "{mode}");
    }
    // The plain venue is the same for both.
    let customer = directions(req("imdf-venue-1", "default", true)).unwrap();
    let plain = directions(req("imdf-venue-1", "default", false)).unwrap();
    assert_eq!(step_kinds(&customer), step_kinds(&plain));
}
