//! POI search: typed names, filters and pages, graph distances, refs and stable ids.

use super::*;

#[test]
fn poi_search_finds_misspelled_shops() {
    for (typed, want) in [
        ("Decathlon", "Decathlon"),
        ("decatlon", "Decathlon"),
        ("Rishart", "Rischart"),
        ("parfumerie", "City Parfümerie"),
        ("bodyshop", ""),
        ("body shop", "The Body Shop"),
        ("lindt", "Lindt"),
    ] {
        let r = search(q(STACHUS, typed));
        if want.is_empty() {
            continue;
        }
        assert_eq!(
            names(&r).first().map(String::as_str),
            Some(want),
            "{typed}: {:?}",
            names(&r)
        );
    }
    assert!(search(q(STACHUS, "zzzyyxx")).features.is_empty());
}

#[test]
fn poi_search_filters_and_pages() {
    // alphabetical without q
    let all = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        ..Default::default()
    });
    let n = names(&all);
    let named: Vec<String> = n.iter().filter(|s| !s.is_empty()).cloned().collect();
    let mut sorted = named.clone();
    sorted.sort_by_key(|s| waymark_core::packs::search::fold(s));
    assert_eq!(named, sorted);
    assert_eq!(all.pagination.total as usize, all.features.len());
    assert_eq!(all.pagination.per_page, 0);
    assert_eq!(all.pagination.page_count, 1);
    // extended=full lists more (doors, unnamed areas)
    let full = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        extended: Some(waymark_core::api::vocab::PoiSearchExtended::Full),
        ..Default::default()
    });
    assert!(full.pagination.total > all.pagination.total);
    // pages
    let p1 = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        items_by_page: 5,
        page: 1,
        ..Default::default()
    });
    assert_eq!(p1.features.len(), 5);
    assert_eq!(p1.pagination.page, 1);
    assert_eq!(p1.pagination.per_page, 5);
    assert_eq!(
        p1.pagination.page_count as u64,
        all.pagination.total.div_ceil(5)
    );
    assert_eq!(names(&p1), n[5..10]);
    // level
    let l2 = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        level: Some(-3),
        ..Default::default()
    });
    assert!(!l2.features.is_empty());
    for f in &l2.features {
        let p = &f.properties.0;
        let lo = p["level"].as_i64().unwrap();
        let hi = p.get("level_max").and_then(|v| v.as_i64()).unwrap_or(lo);
        assert!(lo <= -3 && -3 <= hi, "{p:?}");
    }
    assert!(names(&l2).contains(&"Rischart".to_owned()));
    // category
    let c = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        category: Some("clothes".into()),
        ..Default::default()
    });
    assert!(c.features.len() >= 4);
    assert!(
        c.features
            .iter()
            .all(|f| f.properties.0["category"] == "clothes")
    );
    // ids
    let id = poi(STACHUS, "Lindt");
    let by_id = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        ids: vec![id],
        ..Default::default()
    });
    assert_eq!(names(&by_id), ["Lindt"]);
    // refs: a POI with a ref of its own (escalators carry refs such as `KA13`)
    let (the_ref, id) = unique_ref(STACHUS);
    let by_ref = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        refs: vec![the_ref.clone()],
        ..Default::default()
    });
    assert_eq!(by_ref.features.len(), 1);
    assert_eq!(by_ref.features[0].id, Some(id));
    assert_eq!(by_ref.features[0].properties.0["ref"], the_ref.as_str());
    // building: every feature belongs to the venue's building
    let undefined = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        building: Some("undefined".into()),
        ..Default::default()
    });
    assert!(undefined.features.is_empty());
    // Each feature is in one of the venue's buildings: the buildings' features make all.
    let mut total = 0;
    for building in venue(STACHUS).buildings {
        let b = search(PoiSearchRequest {
            venue_id: STACHUS.into(),
            building: Some(building.reference.clone()),
            ..Default::default()
        });
        assert!(
            b.features
                .iter()
                .all(|f| f.properties.0["building"] == building.reference.as_str()),
            "{}",
            building.reference
        );
        total += b.pagination.total;
    }
    assert_eq!(total, all.pagination.total);
    // advanced_filter
    let af = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        advanced_filter: Some("(shop=clothes OR shop=bakery) AND level>=-2".into()),
        ..Default::default()
    });
    assert!(!af.features.is_empty());
    for f in &af.features {
        let p = &f.properties.0;
        assert_eq!(p["level"], -2);
        assert_eq!(p["shop"], "clothes");
    }
    let bad = call(PoiSearchRequest {
        venue_id: STACHUS.into(),
        advanced_filter: Some("shop=clothes level=1".into()),
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(bad.code, ErrorCode::Validation);
    assert_eq!(bad.fields[0].loc, ["query", "advanced_filter"]);
    assert!(
        bad.fields[0].msg.contains("column 14"),
        "{}",
        bad.fields[0].msg
    );
}

#[test]
fn poi_search_distances_follow_the_graph() {
    let decathlon = poi(STACHUS, "Decathlon");
    let g = graph(STACHUS);
    let node = g.poi_node(decathlon).unwrap();
    let at = &g.nodes[node as usize];
    let r = search(PoiSearchRequest {
        venue_id: STACHUS.into(),
        from_location: Some(waymark_core::api::IndoorLatLng {
            lat: at.lat,
            lng: at.lng,
            level: at.level,
        }),
        q: Some("Rischart".into()),
        ..Default::default()
    });
    let f = &r.features[0];
    let (d, t) = (f.distance.unwrap(), f.duration.unwrap());
    // along the graph, never shorter than the straight line, and across a level
    let rischart = g.poi_node(f.id.unwrap()).unwrap();
    let straight = waymark_core::geo::haversine_m(at.pt(), g.nodes[rischart as usize].pt());
    assert!(d >= straight - 0.5, "{d} < {straight}");
    assert!(t > 0.0);
    // the route says the same
    let dir = route(
        STACHUS,
        IndoorPoint::PoiId(decathlon),
        IndoorPoint::PoiId(f.id.unwrap()),
        "default",
    );
    let leg = &dir.routes[0].legs[0];
    assert!(
        (leg.distance.value - d).abs() < 0.5 + d * 0.02,
        "{} vs {d}",
        leg.distance.value
    );
}

/// A ref that one feature of `venue` has, and that feature's id.
fn unique_ref(venue: &str) -> (String, i64) {
    let all = search(PoiSearchRequest {
        venue_id: venue.into(),
        extended: Some(waymark_core::api::vocab::PoiSearchExtended::Full),
        ..Default::default()
    });
    let refs: Vec<(String, i64)> = all
        .features
        .iter()
        .filter_map(|f| Some((f.properties.0.get("ref")?.as_str()?.to_owned(), f.id?)))
        .collect();
    refs.iter()
        .find(|(r, _)| refs.iter().filter(|(x, _)| x == r).count() == 1)
        .cloned()
        .unwrap_or_else(|| panic!("no unique ref in {venue}: {refs:?}"))
}

#[test]
fn ref_points_and_stable_ids() {
    // `ref:<poi_ref>` as a destination
    let (the_ref, id) = unique_ref(STACHUS);
    let r = route(
        STACHUS,
        IndoorPoint::PoiId(poi(STACHUS, "Decathlon")),
        IndoorPoint::Ref(the_ref),
        "default",
    );
    assert_eq!(r.status, "ok");
    let leg = &r.routes[0].legs[0];
    assert_eq!(leg.steps.last().unwrap().poi_id, Some(id));
    // a rebuild of the same data gives the same venue and feature ids
    let ids = |dir: &std::path::Path| -> Vec<(String, i64)> {
        let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
        let mut st = conn
            .prepare("SELECT venue_id, id FROM indoor_features ORDER BY venue_id, id")
            .unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let tmp = tempfile::tempdir().unwrap();
    let again = waymark_packs::build::build_pack(
        &waymark_tests::indoor_plan("munchen"),
        "2",
        &waymark_tests::sources(),
        tmp.path(),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    let before: Vec<(String, i64)> = ids(&fixture().dirs[0])
        .into_iter()
        .filter(|(v, _)| v.starts_with("osm-"))
        .collect();
    assert!(before.len() > 300, "{}", before.len());
    assert_eq!(ids(&again), before);
}
