//! The rules only OSM indoor tagging expresses, on small venues written as an OSM PBF extract
//! and built through the pack builder's OSM path (the path of the sample packs), one venue per
//! rule: gates with their `access` tags and a turnstile, a one-way corridor, two buildings
//! joined by a bridge, a half-level. Each is asked for directions through the engine and
//! checked on what a user sees: the route goes around, goes through, or crosses the bridge.
//!
//! The venues lie in open country (near 50° N, 10° E), 500 m apart so that none joins another.
//! Positions are given in metres east (`x`) and north (`y`) of each venue's origin.

use super::*;

use waymark_packs::synth::pbf::PbfWriter;

/// Metres per degree of latitude.
const M_PER_DEG: f64 = 111_195.0;
/// The fixtures' origin, `(lat, lng)`.
const ORIGIN: (f64, f64) = (50.0, 10.0);

/// The station with a private gate on its short corridor (`access=private`).
const GATE_PRIVATE: (i64, f64) = (1_000, 0.0);
/// The same station with an open gate (`access=yes`).
const GATE_OPEN: (i64, f64) = (2_000, 500.0);
/// The same station with a turnstile (no `access`): open on foot, not to wheelchairs.
const TURNSTILE: (i64, f64) = (3_000, 1_000.0);
/// The same station whose short corridor is one way (`oneway=yes`, from the kiosk to the
/// bakery) and has no gate.
const ONE_WAY: (i64, f64) = (4_000, 1_500.0);
/// Two terminal buildings joined by a bridge on level 1.
const BRIDGE: (i64, f64) = (5_000, 2_000.0);
/// A market hall with a mezzanine (`level=0.5`) between levels 0 and 1.
const HALF_LEVEL: (i64, f64) = (6_000, 2_500.0);

/// The OSM elements of the fixtures, written as a PBF extract by [`Osm::write`].
#[derive(Default)]
pub(super) struct Osm {
    nodes: Vec<(i64, f64, f64, OwnedTags)>,
    ways: Vec<(i64, Vec<i64>, OwnedTags)>,
}

type OwnedTags = Vec<(String, String)>;

fn owned(tags: &[(&str, &str)]) -> OwnedTags {
    tags.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Latitude and longitude of a point `x` m east and `y` m north of the origin.
pub(super) fn at(x: f64, y: f64) -> Pt {
    let lat = ORIGIN.0 + y / M_PER_DEG;
    let lng = ORIGIN.1 + x / (M_PER_DEG * ORIGIN.0.to_radians().cos());
    Pt::new(lat, lng)
}

/// One venue's elements: ids from `base`, positions from `dx` m east of the origin.
pub(super) struct Place<'a> {
    osm: &'a mut Osm,
    next: i64,
    dx: f64,
}

impl Place<'_> {
    pub(super) fn node(&mut self, x: f64, y: f64, tags: &[(&str, &str)]) -> i64 {
        self.next += 1;
        let p = at(self.dx + x, y);
        self.osm.nodes.push((self.next, p.lat, p.lng, owned(tags)));
        self.next
    }

    pub(super) fn way(&mut self, refs: &[i64], tags: &[(&str, &str)]) -> i64 {
        self.next += 1;
        self.osm.ways.push((self.next, refs.to_vec(), owned(tags)));
        self.next
    }

    /// A closed way through new untagged nodes at `pts`.
    pub(super) fn ring(&mut self, pts: &[(f64, f64)], tags: &[(&str, &str)]) -> i64 {
        let mut refs: Vec<i64> = pts.iter().map(|&(x, y)| self.node(x, y, &[])).collect();
        refs.push(refs[0]);
        self.way(&refs, tags)
    }
}

impl Osm {
    pub(super) fn place(&mut self, (base, dx): (i64, f64)) -> Place<'_> {
        Place {
            osm: self,
            next: base,
            dx,
        }
    }

    /// Writes the extract: nodes, then ways, each by id.
    fn write(mut self, path: &std::path::Path) {
        self.nodes.sort_by_key(|n| n.0);
        self.ways.sort_by_key(|w| w.0);
        let (sw, ne) = (at(-100.0, -100.0), at(8_000.0, 200.0));
        let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
        let mut w = PbfWriter::new(file, [sw.lng, sw.lat, ne.lng, ne.lat], 1_700_000_000).unwrap();
        fn tags(t: &[(String, String)]) -> Vec<(&str, &str)> {
            t.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
        }
        for (id, lat, lng, t) in &self.nodes {
            w.node(*id, *lat, *lng, &tags(t)).unwrap();
        }
        for (id, refs, t) in &self.ways {
            w.way(*id, refs, &tags(t)).unwrap();
        }
        let (mut file, _) = w.finish().unwrap();
        std::io::Write::flush(&mut file).unwrap();
    }
}

/// A station concourse (no building: no floor to cut across) with a kiosk at (0, 0) and a
/// bakery at (40, 0) on level 0, joined by a straight 40 m corridor tagged `corridor` (with a
/// node at (20, 0) tagged `middle`) and by an 80 m footway around by (0, 20) and (40, 20).
/// Returns the station's way id.
pub(super) fn station(
    osm: &mut Osm,
    place: (i64, f64),
    name: &str,
    corridor: &[(&str, &str)],
    middle: &[(&str, &str)],
) -> i64 {
    let mut v = osm.place(place);
    let station = v.ring(
        &[(-10.0, -10.0), (50.0, -10.0), (50.0, 30.0), (-10.0, 30.0)],
        &[
            ("public_transport", "station"),
            ("railway", "station"),
            ("name", name),
        ],
    );
    let kiosk = v.node(
        0.0,
        0.0,
        &[("shop", "kiosk"), ("name", "Kiosk"), ("level", "0")],
    );
    let mid = v.node(20.0, 0.0, middle);
    let bakery = v.node(
        40.0,
        0.0,
        &[("shop", "bakery"), ("name", "Bakery"), ("level", "0")],
    );
    let (c1, c2) = (v.node(0.0, 20.0, &[]), v.node(40.0, 20.0, &[]));
    let mut tags = vec![("highway", "corridor"), ("level", "0")];
    tags.extend_from_slice(corridor);
    v.way(&[kiosk, mid, bakery], &tags);
    v.way(
        &[kiosk, c1, c2, bakery],
        &[("highway", "footway"), ("level", "0")],
    );
    station
}

/// Two terminals 20 m apart, each with a corridor across it on level 1 (a shop in the west
/// one, a café in the east one), joined by a bridge corridor on level 1 whose ends are
/// vertices of both outlines. Returns the ids of the west and east buildings.
fn terminals(osm: &mut Osm) -> (i64, i64) {
    let mut v = osm.place(BRIDGE);
    let [w15, w25, e15, e25] =
        [(40.0, 15.0), (40.0, 25.0), (60.0, 15.0), (60.0, 25.0)].map(|(x, y)| v.node(x, y, &[]));
    let (w0, w1, w2, w3) = (
        v.node(0.0, 0.0, &[]),
        v.node(40.0, 0.0, &[]),
        v.node(40.0, 40.0, &[]),
        v.node(0.0, 40.0, &[]),
    );
    let west = v.way(
        &[w0, w1, w15, w25, w2, w3, w0],
        &[("building", "transportation"), ("name", "Terminal West")],
    );
    let (e0, e1, e2, e3) = (
        v.node(60.0, 0.0, &[]),
        v.node(110.0, 0.0, &[]),
        v.node(110.0, 40.0, &[]),
        v.node(60.0, 40.0, &[]),
    );
    // the larger building: the venue takes its id
    let east = v.way(
        &[e0, e1, e2, e3, e25, e15, e0],
        &[("building", "transportation"), ("name", "Terminal East")],
    );
    let corridor = [("indoor", "corridor"), ("level", "1")];
    let (a, b) = (v.node(0.0, 15.0, &[]), v.node(0.0, 25.0, &[]));
    v.way(&[a, w15, w25, b, a], &corridor);
    let (c, d) = (v.node(110.0, 15.0, &[]), v.node(110.0, 25.0, &[]));
    v.way(&[e15, c, d, e25, e15], &corridor);
    v.way(
        &[w15, e15, e25, w25, w15],
        &[("indoor", "corridor"), ("bridge", "yes"), ("level", "1")],
    );
    v.node(
        10.0,
        20.0,
        &[("shop", "gift"), ("name", "Duty Free"), ("level", "1")],
    );
    v.node(
        100.0,
        20.0,
        &[("amenity", "cafe"), ("name", "Gate Café"), ("level", "1")],
    );
    (west, east)
}

/// A market hall with the same corridor on levels 0, 0.5 (the mezzanine, `level:ref=M`,
/// `level:name=Mezzanine`) and 1, a lift serving all three at (35, 5), a kiosk on level 0, an
/// espresso bar on the mezzanine and a bookshop on level 1. Returns the building's id.
fn market_hall(osm: &mut Osm) -> i64 {
    let mut v = osm.place(HALF_LEVEL);
    let hall = v.ring(
        &[(-5.0, -5.0), (45.0, -5.0), (45.0, 15.0), (-5.0, 15.0)],
        &[("building", "retail"), ("name", "Market Hall")],
    );
    let corridor = [(0.0, 0.0), (40.0, 0.0), (40.0, 10.0), (0.0, 10.0)];
    v.ring(&corridor, &[("indoor", "corridor"), ("level", "0")]);
    v.ring(
        &corridor,
        &[
            ("indoor", "corridor"),
            ("level", "0.5"),
            ("level:ref", "M"),
            ("level:name", "Mezzanine"),
        ],
    );
    v.ring(&corridor, &[("indoor", "corridor"), ("level", "1")]);
    v.node(35.0, 5.0, &[("highway", "elevator"), ("level", "0;0.5;1")]);
    v.node(
        5.0,
        5.0,
        &[("shop", "kiosk"), ("name", "Kiosk"), ("level", "0")],
    );
    v.node(
        20.0,
        5.0,
        &[
            ("amenity", "cafe"),
            ("name", "Espresso Bar"),
            ("level", "0.5"),
        ],
    );
    v.node(
        20.0,
        5.0,
        &[("shop", "books"), ("name", "Bookshop"), ("level", "1")],
    );
    hall
}

pub(super) struct Rules {
    engine: Arc<Engine>,
    publisher: Publisher,
    pack: std::path::PathBuf,
    /// Venue ids: private gate, open gate, turnstile, one way, terminals, market hall.
    ids: [String; 6],
    /// The west terminal's venue id were it a venue of its own.
    west: String,
    /// Venue ids of the walls, gates and one-way doors fixtures ([`super::osm_barriers`]), by
    /// name.
    pub(super) barriers: std::collections::HashMap<&'static str, String>,
    _dir: tempfile::TempDir,
}

pub(super) fn rules() -> &'static Rules {
    static F: OnceLock<Rules> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let mut osm = Osm::default();
        let gate = |access: &'static str| [("barrier", "gate"), ("access", access), ("level", "0")];
        let ids = [
            station(
                &mut osm,
                GATE_PRIVATE,
                "Private Gate Station",
                &[],
                &gate("private"),
            ),
            station(&mut osm, GATE_OPEN, "Open Gate Station", &[], &gate("yes")),
            station(
                &mut osm,
                TURNSTILE,
                "Turnstile Station",
                &[],
                &[("barrier", "turnstile"), ("level", "0")],
            ),
            station(
                &mut osm,
                ONE_WAY,
                "One Way Station",
                &[("oneway", "yes")],
                &[],
            ),
        ];
        let (west, east) = terminals(&mut osm);
        let hall = market_hall(&mut osm);
        let barriers = super::osm_barriers::venues(&mut osm);
        let pbf = dir.path().join("indoor-rules.osm.pbf");
        osm.write(&pbf);

        let mut sources = waymark_tests::sources();
        sources
            .add_local_extract("osm-indoor-rules", &pbf, "CC0-1.0", "test fixture")
            .unwrap();
        let mut plan = waymark_packs::build::region_plan("indoor-rules", &["osm-indoor-rules"]);
        plan.layers = vec![waymark_core::packs::schema::layers::INDOOR.to_string()];
        let publisher = Publisher::generate().unwrap();
        let pack = waymark_packs::build::build_pack(
            &plan,
            "1",
            &sources,
            &dir.path().join("built"),
            false,
            &mut |_, _, _| {},
        )
        .unwrap();
        waymark_packs::build::sign_pack(&pack, &publisher).unwrap();
        let engine = waymark_tests::open_engine(
            &dir.path().join("state"),
            &dir.path().join("packs"),
            &publisher,
        );
        waymark_tests::install(&engine, &pack);
        let way = |id: i64| format!("osm-way-{id}");
        Rules {
            engine,
            publisher,
            pack,
            ids: [
                way(ids[0]),
                way(ids[1]),
                way(ids[2]),
                way(ids[3]),
                way(east),
                way(hall),
            ],
            west: way(west),
            barriers: barriers.into_iter().map(|(k, id)| (k, way(id))).collect(),
            _dir: dir,
        }
    })
}

fn call_rules<R: waymark_core::operation::Operation>(req: R) -> Result<R::Response, ApiError> {
    let f = rules();
    let caller = waymark_tests::private_caller(&f.publisher);
    f.engine.call(&Credentials::Http(&caller), req)
}

/// The id of the POI named `name` in `venue`.
fn poi_in(venue: &str, name: &str) -> i64 {
    let r = call_rules(q(venue, name)).unwrap();
    r.features
        .iter()
        .find(|f| f.properties.0.get("name").and_then(|v| v.as_str()) == Some(name))
        .and_then(|f| f.id)
        .unwrap_or_else(|| panic!("no {name} in {venue}: {:?}", names(&r)))
}

/// Directions in `venue` from the POI named `from` to the one named `to`.
pub(super) fn walk(venue: &str, from: &str, to: &str, mode: &str) -> IndoorDirectionsResponse {
    call_rules(IndoorDirectionsRequest {
        venue_id: venue.into(),
        origin: IndoorPoint::PoiId(poi_in(venue, from)),
        destination: IndoorPoint::PoiId(poi_in(venue, to)),
        mode: Some(mode.into()),
        ..Default::default()
    })
    .unwrap()
}

/// The graph of a fixture venue, read from the built pack.
pub(super) fn rules_graph(venue: &str) -> Graph {
    let conn = rusqlite::Connection::open(rules().pack.join("data.sqlite")).unwrap();
    waymark_core::indoor::read_venue(&conn, venue)
        .unwrap()
        .graph
        .unwrap()
}

/// The route's length, m.
pub(super) fn length(r: &IndoorDirectionsResponse) -> f64 {
    r.routes[0].legs.iter().map(|l| l.distance.value).sum()
}

/// Whether the route passes within 1 m of `p` on `level`.
pub(super) fn passes(r: &IndoorDirectionsResponse, p: Pt, level: f64) -> bool {
    r.routes[0].legs.iter().flat_map(|l| &l.steps).any(|s| {
        s.polyline
            .iter()
            .any(|q| q[2] == level && waymark_core::geo::haversine_m(Pt::new(q[1], q[0]), p) < 1.0)
    })
}

pub(super) fn summaries(r: &IndoorDirectionsResponse) -> Vec<String> {
    r.routes[0]
        .legs
        .iter()
        .flat_map(|l| &l.steps)
        .filter_map(|s| s.instruction.as_ref().map(|i| i.summary.clone()))
        .collect()
}

/// The middle of a station's short corridor (where its gate is).
fn middle((_, dx): (i64, f64)) -> Pt {
    at(dx + 20.0, 0.0)
}

#[test]
fn a_private_gate_is_walked_around_and_an_open_one_through() {
    let f = rules();
    // the open gate: straight through it, and the step says so
    let r = walk(&f.ids[1], "Kiosk", "Bakery", "default");
    assert_eq!(r.status, "ok");
    assert!(length(&r) < 45.0, "{}", length(&r));
    assert!(passes(&r, middle(GATE_OPEN), 0.0));
    assert!(
        summaries(&r).iter().any(|s| s.contains("through the gate")),
        "{:?}",
        summaries(&r)
    );
    // the private gate: the 80 m footway around it, both ways and for both profiles
    for mode in ["default", "wheelchair"] {
        for (from, to) in [("Kiosk", "Bakery"), ("Bakery", "Kiosk")] {
            let r = walk(&f.ids[0], from, to, mode);
            assert_eq!(r.status, "ok", "{mode} {from}");
            assert!(length(&r) > 75.0, "{mode} {from}: {}", length(&r));
            assert!(!passes(&r, middle(GATE_PRIVATE), 0.0), "{mode} {from}");
            assert_walkable(&rules_graph(&f.ids[0]), &r);
        }
    }
}

#[test]
fn a_turnstile_is_passed_on_foot_and_walked_around_by_wheelchair() {
    let f = rules();
    let r = walk(&f.ids[2], "Kiosk", "Bakery", "default");
    assert!(length(&r) < 45.0 && passes(&r, middle(TURNSTILE), 0.0));
    let r = walk(&f.ids[2], "Kiosk", "Bakery", "wheelchair");
    assert_eq!(r.status, "ok");
    assert!(length(&r) > 75.0, "{}", length(&r));
    assert!(!passes(&r, middle(TURNSTILE), 0.0));
}

#[test]
fn a_one_way_corridor_is_walked_in_its_direction_only() {
    let f = rules();
    let v = &f.ids[3];
    // along it: the 40 m corridor
    let r = walk(v, "Kiosk", "Bakery", "default");
    assert_eq!(r.status, "ok");
    assert!(length(&r) < 45.0, "{}", length(&r));
    assert!(passes(&r, middle(ONE_WAY), 0.0));
    // against it: the 80 m footway around
    for mode in ["default", "wheelchair"] {
        let r = walk(v, "Bakery", "Kiosk", mode);
        assert_eq!(r.status, "ok", "{mode}");
        assert!(length(&r) > 75.0, "{mode}: {}", length(&r));
        assert!(!passes(&r, middle(ONE_WAY), 0.0), "{mode}");
        assert_walkable(&rules_graph(v), &r);
    }
}

#[test]
fn two_buildings_joined_by_a_bridge_are_one_venue_routed_across_it() {
    let f = rules();
    let v = &f.ids[4];
    let venue = call_rules(VenueGetRequest {
        venue_id: v.clone(),
    })
    .unwrap();
    assert_eq!(venue.name, "Terminal East");
    let mut buildings: Vec<&str> = venue
        .buildings
        .iter()
        .map(|b| b.reference.as_str())
        .collect();
    buildings.sort_unstable();
    let mut expected = vec![v.as_str(), f.west.as_str()];
    expected.sort_unstable();
    assert_eq!(buildings, expected);
    // the west terminal is no venue of its own
    let e = call_rules(VenueGetRequest {
        venue_id: f.west.clone(),
    })
    .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound, "{e:?}");
    // a route from the west terminal's shop to the east terminal's café walks the bridge
    for mode in ["default", "wheelchair"] {
        let r = walk(v, "Duty Free", "Gate Café", mode);
        assert_eq!(r.status, "ok", "{mode}");
        let on_bridge = r.routes[0]
            .legs
            .iter()
            .flat_map(|l| &l.steps)
            .flat_map(|s| &s.polyline)
            .any(|p| {
                let (w, e) = (at(BRIDGE.1 + 42.0, 20.0), at(BRIDGE.1 + 58.0, 20.0));
                p[2] == 1.0 && p[0] > w.lng && p[0] < e.lng
            });
        let crosses = r.routes[0]
            .legs
            .iter()
            .flat_map(|l| &l.steps)
            .flat_map(|s| s.polyline.windows(2))
            .any(|w| {
                let x = at(BRIDGE.1 + 50.0, 20.0).lng;
                (w[0][0] - x) * (w[1][0] - x) <= 0.0
            });
        assert!(on_bridge || crosses, "{mode}");
        assert!(
            (80.0..100.0).contains(&length(&r)),
            "{mode}: {}",
            length(&r)
        );
        assert_walkable(&rules_graph(v), &r);
    }
}

#[test]
fn a_half_level_is_a_level_of_its_own_that_routes_reach() {
    let f = rules();
    let v = &f.ids[5];
    let venue = call_rules(VenueGetRequest {
        venue_id: v.clone(),
    })
    .unwrap();
    let levels: Vec<(i64, Option<&str>, Option<&str>)> = venue
        .levels
        .iter()
        .map(|l| (l.level, l.name.as_deref(), l.reference.as_deref()))
        .collect();
    assert_eq!(
        levels,
        [
            (0, None, Some("0")),
            (1, Some("Mezzanine"), Some("M")),
            (2, None, Some("1"))
        ]
    );
    assert_eq!(venue.routing_profiles, ["default", "wheelchair"]);
    // the espresso bar is on the mezzanine, the bookshop above it
    let level_of = |name: &str| {
        let r = call_rules(q(v, name)).unwrap();
        r.features[0].properties.0["level"].clone()
    };
    assert_eq!(level_of("Espresso Bar"), 1);
    assert_eq!(level_of("Bookshop"), 2);
    let r = walk(v, "Kiosk", "Espresso Bar", "default");
    assert_eq!(r.status, "ok");
    let end = &r.routes[0].legs[0].end_location;
    assert_eq!(end.level, 1);
    assert!(
        step_kinds(&r).contains(&"elevator".to_owned()),
        "{:?}",
        step_kinds(&r)
    );
    assert!(
        summaries(&r).contains(&"Take the elevator to level M".to_owned()),
        "{:?}",
        summaries(&r)
    );
    assert_walkable(&rules_graph(v), &r);
    // and past it to the level above
    let r = walk(v, "Kiosk", "Bookshop", "default");
    assert_eq!(r.routes[0].legs[0].end_location.level, 2);
}
