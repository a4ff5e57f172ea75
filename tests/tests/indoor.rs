//! Indoor venues, POI search and indoor directions on the real indoor layers of the München
//! (Stachus underground mall, Marienplatz, Sendlinger Tor), London (Farringdon) and Helsinki
//! (Forum mall) extracts, through the engine and over real HTTP on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, OnceLock};

use waymark_core::Engine;
use waymark_core::api::{
    IndoorAvoidBox, IndoorDirectionsRequest, IndoorDirectionsResponse, IndoorPoint, LatLng,
    PoiSearchRequest, PoiSearchResponse, Venue, VenueGetRequest,
};
use waymark_core::auth::keys::Publisher;
use waymark_core::error::{ApiError, ErrorCode};
use waymark_core::geo::Pt;
use waymark_core::indoor::graph::Graph;
use waymark_core::operation::Credentials;

/// The largest venue of the München extract: the Stachus underground mall and station, with
/// the buildings its passages join.
const STACHUS: &str = "osm-relation-5299666";
/// A venue of the London extract: Farringdon station, its Thameslink and Elizabeth line
/// buildings joined (the Elizabeth line part was a venue of its own, `osm-way-577276951`).
const FARRINGDON: &str = "osm-way-42429625";
/// The largest venue of the Helsinki extract: the Forum mall (five levels, shops as points
/// and footways only).
const FORUM: &str = "osm-way-289767497";

struct Fixture {
    engine: Arc<Engine>,
    publisher: Publisher,
    dirs: Vec<std::path::PathBuf>,
    server: waymark_tests::LocalServer,
    _dir: tempfile::TempDir,
}

fn venue_file() -> std::path::PathBuf {
    waymark_tests::sample_venue_file()
}

/// A change to one feature of a venue file.
type Edit = fn(&mut serde_json::Value);

/// Venues made from the sample venue file for one rule each (`imdf-<prefix>venue-1`): `w-`
/// names its upper level only by its name ("First floor", no short name); `c-` has stairs and
/// a lift for customers only (`access=customers`); `i-` has no stairs
/// nor lift (its levels do not connect: no routing configuration).
const VARIANTS: &[(&str, Edit)] = &[
    ("w-", |f| {
        if f["id"] == "w-level-1" {
            f["properties"]
                .as_object_mut()
                .unwrap()
                .remove("short_name");
        }
    }),
    ("c-", |f| {
        if matches!(
            f["properties"]["category"].as_str(),
            Some("stairs" | "elevator")
        ) {
            f["properties"]["access"] = "customers".into();
        }
    }),
    ("i-", |f| {
        if matches!(
            f["properties"]["category"].as_str(),
            Some("stairs" | "elevator")
        ) {
            f["feature_type"] = "fixture".into();
        }
    }),
];

/// The sample venue file with every id prefixed (feature ids stay apart from the sample's)
/// and `edit` applied to each feature, written under `dir`.
fn variant(
    dir: &std::path::Path,
    prefix: &str,
    edit: fn(&mut serde_json::Value),
) -> std::path::PathBuf {
    let text = std::fs::read_to_string(venue_file()).unwrap();
    let plain: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut text = text;
    for f in plain["features"].as_array().unwrap() {
        let id = f["id"].as_str().unwrap();
        text = text.replace(&format!("\"{id}\""), &format!("\"{prefix}{id}\""));
    }
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    for f in doc["features"].as_array_mut().unwrap() {
        edit(f);
    }
    let path = dir.join(format!("{prefix}venue.geojson"));
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    path
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let publisher = Publisher::generate().unwrap();
        let engine = waymark_tests::open_engine(
            &dir.path().join("state"),
            &dir.path().join("packs"),
            &publisher,
        );
        let mut dirs = Vec::new();
        for id in ["munchen", "london", "helsinki"] {
            let d = waymark_packs::build::build_pack(
                &waymark_tests::indoor_plan(id),
                "1",
                &waymark_tests::sources(),
                &dir.path().join("built"),
                false,
                &mut |_, _, _| {},
            )
            .unwrap();
            if id == "munchen" {
                waymark_packs::venue_file::add_to_pack(&d, &venue_file()).unwrap();
                for (prefix, edit) in VARIANTS {
                    let file = variant(dir.path(), prefix, *edit);
                    waymark_packs::venue_file::add_to_pack(&d, &file).unwrap();
                }
            }
            waymark_packs::build::sign_pack(&d, &publisher).unwrap();
            waymark_tests::install(&engine, &d);
            dirs.push(d);
        }
        let server = waymark_tests::LocalServer::start(engine.clone());
        Fixture {
            engine,
            publisher,
            dirs,
            server,
            _dir: dir,
        }
    })
}

fn call<R>(req: R) -> Result<R::Response, ApiError>
where
    R: waymark_core::operation::Operation,
{
    let f = fixture();
    let caller = waymark_tests::private_caller(&f.publisher);
    f.engine.call(&Credentials::Http(&caller), req)
}

fn venue(id: &str) -> Venue {
    call(VenueGetRequest {
        venue_id: id.into(),
    })
    .unwrap()
}

fn search(req: PoiSearchRequest) -> PoiSearchResponse {
    call(req).unwrap()
}

fn q(venue: &str, text: &str) -> PoiSearchRequest {
    PoiSearchRequest {
        venue_id: venue.into(),
        q: Some(text.into()),
        ..Default::default()
    }
}

fn names(r: &PoiSearchResponse) -> Vec<String> {
    r.features
        .iter()
        .map(|f| {
            f.properties
                .0
                .get("name")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_owned()
        })
        .collect()
}

/// The id of the first feature named `name` in `venue`.
fn poi(venue: &str, name: &str) -> i64 {
    let r = search(q(venue, name));
    r.features
        .iter()
        .find(|f| f.properties.0.get("name").and_then(|v| v.as_str()) == Some(name))
        .and_then(|f| f.id)
        .unwrap_or_else(|| panic!("no {name} in {venue}: {:?}", names(&r)))
}

fn directions(req: IndoorDirectionsRequest) -> Result<IndoorDirectionsResponse, ApiError> {
    call(req)
}

fn route(venue: &str, from: IndoorPoint, to: IndoorPoint, mode: &str) -> IndoorDirectionsResponse {
    directions(IndoorDirectionsRequest {
        venue_id: venue.into(),
        origin: from,
        destination: to,
        mode: Some(mode.into()),
        ..Default::default()
    })
    .unwrap()
}

/// The graph of a venue, read from the built pack.
fn graph(venue: &str) -> Graph {
    for dir in &fixture().dirs {
        let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
        if let Ok(v) = waymark_core::indoor::read_venue(&conn, venue) {
            return v.graph.unwrap();
        }
    }
    panic!("no venue {venue}")
}

fn step_kinds(r: &IndoorDirectionsResponse) -> Vec<String> {
    r.routes[0]
        .legs
        .iter()
        .flat_map(|l| l.steps.iter())
        .filter_map(|s| s.instruction.as_ref().map(|i| i.instruction_type.clone()))
        .collect()
}

/// Every consecutive pair of route points lies on one level inside a walkable area or along a
/// connector (its midpoint and both ends), or is a vertical move at one place.
fn assert_walkable(g: &Graph, r: &IndoorDirectionsResponse) {
    for leg in &r.routes[0].legs {
        for step in &leg.steps {
            for w in step.polyline.windows(2) {
                let (a, b) = (&w[0], &w[1]);
                let (la, lb) = (a[2] as i64, b[2] as i64);
                let (pa, pb) = (Pt::new(a[1], a[0]), Pt::new(b[1], b[0]));
                let mid = Pt::new((pa.lat + pb.lat) / 2.0, (pa.lng + pb.lng) / 2.0);
                if la != lb {
                    // a level change happens along a connector of both levels
                    assert!(
                        g.walkable_at(pa, la, 1.0) || g.walkable_at(pb, lb, 1.0),
                        "level change {a:?} -> {b:?} off every connector"
                    );
                    continue;
                }
                for p in [pa, mid, pb] {
                    assert!(
                        g.walkable_at(p, la, 0.5),
                        "{p:?} on level {la} (segment {a:?} -> {b:?}) is off every walkable area"
                    );
                }
            }
        }
    }
}

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

/// The venues of every pack built by the fixture.
fn all_venue_ids() -> Vec<String> {
    let mut out = Vec::new();
    for dir in &fixture().dirs {
        let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
        let mut st = conn
            .prepare("SELECT venue_id FROM indoor_venues ORDER BY venue_id")
            .unwrap();
        out.extend(
            st.query_map([], |r| r.get::<_, String>(0))
                .unwrap()
                .map(Result::unwrap),
        );
    }
    out
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
