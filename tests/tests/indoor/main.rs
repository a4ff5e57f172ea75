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

/// How far the `o-` variant of the sample venue file is moved, `[lng, lat]` degrees: from
/// outside the München extract to the Viktualienmarkt, its entrance 8 m from a footway.
const O_SHIFT: [f64; 2] = [0.074696, 0.035366];

/// Moves every `[lng, lat]` position of a GeoJSON geometry by `by`.
fn shift(v: &mut serde_json::Value, by: [f64; 2]) {
    if let Some(a) = v.as_array_mut() {
        if a.len() == 2 && a.iter().all(serde_json::Value::is_number) {
            for (x, d) in a.iter_mut().zip(by) {
                *x = (x.as_f64().unwrap() + d).into();
            }
        } else {
            for x in a {
                shift(x, by);
            }
        }
    } else if let Some(c) = v.get_mut("coordinates") {
        shift(c, by);
    }
}

/// Venues made from the sample venue file for one rule each (`imdf-<prefix>venue-1`): `w-`
/// names its upper level only by its name ("First floor", no short name); `c-` has stairs and
/// a lift for customers only (`access=customers`); `i-` has no stairs
/// nor lift (its levels do not connect: no routing configuration); `o-` stands in the
/// streets of the München extract ([`O_SHIFT`]) with an entrance (an opening) in the middle
/// of the hall's south wall, the only way in from outdoors.
const VARIANTS: &[(&str, Edit)] = &[
    ("o-", |f| {
        if f["id"] == "o-note-1" {
            f["feature_type"] = "opening".into();
            f["geometry"] = serde_json::json!({"type": "LineString",
                "coordinates": [[11.5002, 48.1], [11.5004, 48.1]]});
            f["properties"] =
                serde_json::json!({"category": "pedestrian.principal", "level_id": "o-level-0"});
        }
        shift(&mut f["geometry"], O_SHIFT);
    }),
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
                for (prefix, edit) in VARIANTS.iter().chain(rules::RULES) {
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

mod osm_barriers;
mod osm_rules;
mod outdoor;
mod routes;
mod rules;
mod search;
mod venues;
mod words;
