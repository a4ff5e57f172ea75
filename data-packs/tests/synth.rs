//! The synthetic city grid (build-cost scaling): the PBF file it writes reads back
//! with `osmpbf` (the reader the builder uses) with the counts and tags written, and a small
//! grid builds into a pack through the normal build path (a plan naming the generated file as
//! its OSM source) that routes between two corners of the grid.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{HashMap, HashSet};
use std::path::Path;

use osmpbf::{Element, ElementReader, RelMemberType};
use rusqlite::Connection;
use waymark_core::geo::{Pt, haversine_m};
use waymark_core::packs::schema::layers;
use waymark_core::routing::router::SearchAlgorithm;
use waymark_core::routing::{Metric, Profile, Router};
use waymark_packs::build;
use waymark_packs::sources::Sources;
use waymark_packs::synth::{CITY, Layout, SynthOptions, SynthStats, write_synthetic};

fn sources() -> Sources {
    Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sources.toml")).unwrap()
}

type Tags = Vec<(String, String)>;
type Members = Vec<(RelMemberType, i64, String)>;

/// Everything read back from a PBF file.
#[derive(Default)]
struct Read {
    nodes: HashMap<i64, (f64, f64, Tags)>,
    ways: HashMap<i64, (Vec<i64>, Tags)>,
    relations: Vec<(Members, Tags)>,
}

fn tags<'a>(it: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<(String, String)> {
    it.map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn tag<'a>(t: &'a [(String, String)], k: &str) -> Option<&'a str> {
    t.iter().find(|(kk, _)| kk == k).map(|(_, v)| v.as_str())
}

fn read_back(path: &Path) -> Read {
    let mut r = Read::default();
    ElementReader::from_path(path)
        .unwrap()
        .for_each(|el| match el {
            Element::Node(n) => {
                r.nodes.insert(n.id(), (n.lat(), n.lon(), tags(n.tags())));
            }
            Element::DenseNode(n) => {
                r.nodes.insert(n.id(), (n.lat(), n.lon(), tags(n.tags())));
            }
            Element::Way(w) => {
                r.ways.insert(w.id(), (w.refs().collect(), tags(w.tags())));
            }
            Element::Relation(rel) => {
                let members = rel
                    .members()
                    .map(|m| {
                        let role = m.role().unwrap().to_string();
                        (m.member_type, m.member_id, role)
                    })
                    .collect();
                r.relations.push((members, tags(rel.tags())));
            }
        })
        .unwrap();
    r
}

fn generate(dir: &Path, nodes: u64, seed: u64) -> (std::path::PathBuf, SynthStats) {
    let path = dir.join(format!("grid-{nodes}-{seed}.osm.pbf"));
    let opts = SynthOptions {
        seed,
        ..SynthOptions::nodes(nodes)
    };
    let stats = write_synthetic(&path, &opts).unwrap();
    (path, stats)
}

#[test]
fn the_grid_reads_back_with_osmpbf_with_its_counts_and_tags() {
    let tmp = tempfile::tempdir().unwrap();
    // Over 8,000 elements of each of nodes and ways: several blocks of each.
    let (path, stats) = generate(tmp.path(), 60_000, 7);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), stats.bytes);
    let r = read_back(&path);
    assert_eq!(r.nodes.len() as u64, stats.nodes);
    assert_eq!(r.ways.len() as u64, stats.ways);
    assert_eq!(r.relations.len() as u64, stats.relations);
    assert!(
        (stats.nodes as f64 / 60_000.0 - 1.0).abs() < 0.1,
        "{} nodes for 60,000 asked",
        stats.nodes
    );

    // Coordinates inside the bbox written in the header, every way reference resolves.
    let [w, s, e, n] = stats.bbox;
    for (lat, lon, _) in r.nodes.values() {
        assert!(*lat >= s && *lat <= n && *lon >= w && *lon <= e);
    }
    for (refs, _) in r.ways.values() {
        assert!(refs.len() >= 2);
        assert!(refs.iter().all(|id| r.nodes.contains_key(id)));
    }

    // Tags as written: street classes, the tolled one-way motorway, footways and cycleways,
    // addressed buildings, POIs, places, the toll booth.
    let highway = |t: &[(String, String)]| tag(t, "highway").map(str::to_string);
    let classes: HashSet<String> = r.ways.values().filter_map(|(_, t)| highway(t)).collect();
    for c in [
        "residential",
        "tertiary",
        "secondary",
        "primary",
        "motorway",
        "footway",
        "cycleway",
    ] {
        assert!(classes.contains(c), "no highway={c}");
    }
    let routable = r
        .ways
        .values()
        .filter(|(_, t)| highway(t).is_some())
        .count();
    assert_eq!(routable as u64, stats.routable_ways);
    for (_, t) in r.ways.values() {
        if tag(t, "highway") == Some("motorway") {
            assert_eq!(tag(t, "toll"), Some("yes"));
            assert_eq!(tag(t, "oneway"), Some("yes"));
            assert_eq!(tag(t, "maxspeed"), Some("120"));
        }
        if tag(t, "highway") == Some("residential") {
            assert!(tag(t, "name").is_some_and(|n| !n.is_empty()));
            assert_eq!(tag(t, "maxspeed"), Some("30"));
        }
    }
    assert!(
        r.ways
            .values()
            .any(|(_, t)| tag(t, "oneway") == Some("yes") && tag(t, "highway") != Some("motorway"))
    );
    let buildings = r
        .ways
        .values()
        .filter(|(refs, t)| {
            tag(t, "building").is_some()
                && tag(t, "addr:housenumber").is_some()
                && tag(t, "addr:city") == Some(CITY)
                && refs.first() == refs.last()
        })
        .count();
    assert_eq!(buildings as u64, stats.addressed_buildings);
    let pois = r
        .nodes
        .values()
        .filter(|(_, _, t)| {
            ["amenity", "shop", "tourism"]
                .iter()
                .any(|k| tag(t, k).is_some())
        })
        .count();
    assert_eq!(pois as u64, stats.pois);
    assert!(stats.pois > 50);
    assert!(
        r.nodes
            .values()
            .any(|(_, _, t)| tag(t, "place") == Some("city") && tag(t, "name") == Some(CITY))
    );
    assert_eq!(
        r.nodes
            .values()
            .filter(|(_, _, t)| tag(t, "barrier") == Some("toll_booth"))
            .count(),
        1
    );

    // Relations: the boundary (a closed outer way) and the turn restrictions (from way, via
    // node on both ways, to way).
    let boundary: Vec<_> = r
        .relations
        .iter()
        .filter(|(_, t)| tag(t, "boundary") == Some("administrative"))
        .collect();
    assert_eq!(boundary.len(), 1);
    let (m, _) = boundary[0];
    assert!(matches!(m[0].0, RelMemberType::Way));
    let outer = &r.ways[&m[0].1].0;
    assert_eq!(outer.first(), outer.last());
    let restrictions: Vec<_> = r
        .relations
        .iter()
        .filter(|(_, t)| tag(t, "type") == Some("restriction"))
        .collect();
    assert_eq!(restrictions.len() as u64, stats.restrictions);
    assert!(stats.restrictions > 0);
    for (m, _) in restrictions {
        let roles: Vec<&str> = m.iter().map(|x| x.2.as_str()).collect();
        assert_eq!(roles, ["from", "via", "to"]);
        let via = m[1].1;
        for way in [m[0].1, m[2].1] {
            assert!(r.ways[&way].0.contains(&via), "via node on way {way}");
        }
    }
}

#[test]
fn the_same_options_give_the_same_file_and_another_seed_another() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, _) = generate(tmp.path(), 5_000, 1);
    let bytes_a = std::fs::read(&a).unwrap();
    let other = tempfile::tempdir().unwrap();
    let (b, _) = generate(other.path(), 5_000, 1);
    let (c, _) = generate(tmp.path(), 5_000, 2);
    assert_eq!(bytes_a, std::fs::read(&b).unwrap());
    assert_ne!(bytes_a, std::fs::read(&c).unwrap());
}

fn count(dir: &Path, table: &str) -> i64 {
    let conn = Connection::open(dir.join("data.sqlite")).unwrap();
    conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_small_grid_builds_into_a_pack_that_routes_corner_to_corner() {
    let tmp = tempfile::tempdir().unwrap();
    let (pbf, stats) = generate(tmp.path(), 30_000, 1);
    let mut s = sources();
    s.add_local_extract("osm-synth", &pbf, "CC0-1.0", "generated")
        .unwrap();
    let mut plan = build::region_plan("synth", &["osm-synth"]);
    plan.layers = [
        layers::ROADS,
        layers::PLACES,
        layers::ADDRESSES,
        layers::POIS,
        layers::INDOOR,
        layers::ROUTING,
    ]
    .iter()
    .map(|l| l.to_string())
    .collect();
    let dir = build::build_pack(
        &plan,
        "1",
        &s,
        &tmp.path().join("packs"),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();

    let m = build::read_manifest_of(&dir).unwrap();
    assert!(m.sources.iter().any(|x| x.id == "osm-synth"));
    let roads = &m.stats.as_ref().unwrap()["roads"];
    // Every node of the grid is used by something the builder keeps.
    assert_eq!(roads["nodes_read"], stats.nodes);
    assert_eq!(roads["missing_node_refs"], 0);
    assert_eq!(roads["turn_restrictions"], stats.restrictions);
    assert_eq!(roads["toll_booths"], 1);
    assert!(roads["toll_edges"].as_u64().unwrap() > 0);
    assert!(count(&dir, "addresses") as u64 >= stats.addressed_buildings);
    assert!(count(&dir, "pois") as u64 >= stats.pois);
    assert!(count(&dir, "indoor_venues") >= 1);
    assert!(count(&dir, "places") >= 1);

    // Route by car from the south-west junction to the north-east one: the hierarchy and
    // Dijkstra agree, and the length lies between the straight line and the grid distance
    // with a detour.
    let conn = Connection::open(dir.join("data.sqlite")).unwrap();
    let router = Router::open("synth", &dir, &conn).unwrap();
    let [w, so, e, n] = stats.bbox;
    // One block inside the bbox's corners (the bbox has a block's margin).
    let (block_lat, block_lng) = (
        (n - so) / (stats.grid as f64 + 1.0),
        (e - w) / (stats.grid as f64 + 1.0),
    );
    let sw = Pt::new(so + block_lat, w + block_lng);
    let ne = Pt::new(n - 2.0 * block_lat, e - 2.0 * block_lng);
    for profile in [Profile::Driving, Profile::Walking] {
        let from = router.snap(profile, sw, &|_| true).unwrap();
        let to = router.snap(profile, ne, &|_| true).unwrap();
        let ch = router
            .path(
                profile,
                Metric::Distance,
                &from,
                &to,
                None,
                SearchAlgorithm::Ch,
            )
            .expect("a path through the hierarchy");
        let dijkstra = router
            .path(
                profile,
                Metric::Distance,
                &from,
                &to,
                None,
                SearchAlgorithm::Dijkstra,
            )
            .expect("a path by Dijkstra");
        assert_eq!(ch.cost, dijkstra.cost, "{profile:?}");
        let (length, _) = router.measure(profile, &ch);
        let straight = haversine_m(sw, ne);
        let grid =
            haversine_m(sw, Pt::new(sw.lat, ne.lng)) + haversine_m(sw, Pt::new(ne.lat, sw.lng));
        assert!(
            length >= straight * 0.9 && length <= grid * 1.3,
            "{profile:?}: {length} m for {straight} m straight, {grid} m along the grid"
        );
    }
}

#[test]
fn a_small_country_reads_back_joined_and_routes_between_its_towns() {
    let tmp = tempfile::tempdir().unwrap();
    let pbf = tmp.path().join("country.osm.pbf");
    let opts = SynthOptions {
        layout: Layout::Country,
        ..SynthOptions::nodes(100_000)
    };
    let stats = write_synthetic(&pbf, &opts).unwrap();
    assert_eq!(stats.towns, 4);
    assert!(
        (stats.nodes as f64 / 100_000.0 - 1.0).abs() < 0.2,
        "{} nodes",
        stats.nodes
    );
    let r = read_back(&pbf);
    assert_eq!(r.nodes.len() as u64, stats.nodes);
    assert_eq!(r.ways.len() as u64, stats.ways);
    let [w, s, e, n] = stats.bbox;
    assert!(
        r.nodes
            .values()
            .all(|&(lat, lng, _)| lat > s && lat < n && lng > w && lng < e)
    );
    // Every highway way's nodes exist, and the roads join every town into one network
    // (union-find over the nodes of highway ways, with path halving).
    let index: HashMap<i64, usize> = r.nodes.keys().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut parent: Vec<usize> = (0..index.len()).collect();
    fn root(p: &mut [usize], mut v: usize) -> usize {
        while p[v] != v {
            p[v] = p[p[v]];
            v = p[v];
        }
        v
    }
    let mut classes = HashSet::new();
    for (refs, t) in r.ways.values() {
        let Some(highway) = tag(t, "highway") else {
            continue;
        };
        classes.insert(highway.to_string());
        for pair in refs.windows(2) {
            let (a, b) = (index[&pair[0]], index[&pair[1]]);
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra] = rb;
        }
    }
    for class in ["trunk", "secondary", "tertiary", "residential", "motorway"] {
        assert!(classes.contains(class), "no {class} road");
    }
    let places: Vec<(String, f64, f64)> = r
        .nodes
        .values()
        .filter_map(|(lat, lng, t)| {
            let place = tag(t, "place")?;
            matches!(place, "city" | "town" | "village")
                .then(|| (tag(t, "name").unwrap().to_string(), *lat, *lng))
        })
        .collect();
    assert_eq!(places.len(), stats.towns);
    let names: HashSet<&String> = places.iter().map(|p| &p.0).collect();
    assert_eq!(names.len(), stats.towns, "every town has its own name");
    let junction_roots: HashSet<usize> = r
        .ways
        .values()
        .filter(|(_, t)| matches!(tag(t, "highway"), Some("trunk" | "secondary" | "tertiary")))
        .flat_map(|(refs, _)| [refs[0], refs[refs.len() - 1]])
        .map(|v| root(&mut parent, index[&v]))
        .collect();
    assert_eq!(junction_roots.len(), 1, "the rural roads form one network");

    // Built into a pack, a car routes from the first town to the last one by the hierarchy
    // as by Dijkstra, over the rural roads.
    let mut src = sources();
    src.add_local_extract("osm-synth", &pbf, "CC0-1.0", "generated")
        .unwrap();
    let mut plan = build::region_plan("country", &["osm-synth"]);
    plan.layers = [layers::ROADS, layers::ROUTING]
        .iter()
        .map(|l| l.to_string())
        .collect();
    let dir = build::build_pack(
        &plan,
        "1",
        &src,
        &tmp.path().join("packs"),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    let conn = Connection::open(dir.join("data.sqlite")).unwrap();
    let router = Router::open("country", &dir, &conn).unwrap();
    let mut far = (0.0, Pt::new(0.0, 0.0), Pt::new(0.0, 0.0));
    for a in &places {
        for b in &places {
            let (pa, pb) = (Pt::new(a.1, a.2), Pt::new(b.1, b.2));
            if haversine_m(pa, pb) > far.0 {
                far = (haversine_m(pa, pb), pa, pb);
            }
        }
    }
    let (straight, from_pt, to_pt) = far;
    let from = router.snap(Profile::Driving, from_pt, &|_| true).unwrap();
    let to = router.snap(Profile::Driving, to_pt, &|_| true).unwrap();
    let ch = router
        .path(
            Profile::Driving,
            Metric::Time,
            &from,
            &to,
            None,
            SearchAlgorithm::Ch,
        )
        .expect("a path through the hierarchy");
    let dijkstra = router
        .path(
            Profile::Driving,
            Metric::Time,
            &from,
            &to,
            None,
            SearchAlgorithm::Dijkstra,
        )
        .expect("a path by Dijkstra");
    assert_eq!(ch.cost, dijkstra.cost);
    let (length, _) = router.measure(Profile::Driving, &ch);
    assert!(
        length >= straight && length <= straight * 2.0,
        "{length} m for {straight} m between the farthest towns"
    );
}
