//! OSM layers built from the real extracts of /work/shared/data/osm (each test prints a note
//! and passes when that folder is absent).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use waymark_core::api::PoiType;
use waymark_core::geo::{Pt, decode_polyline6, encode_polyline6, haversine_m, road_length_m};
use waymark_core::packs::schema::PoiTags;
use waymark_packs::osm::rings::assemble_rings;
use waymark_packs::osm::{OsmLayers, OsmStats, build_osm};

const OSM_DIR: &str = "/work/shared/data/osm";

fn extract(name: &str) -> Option<PathBuf> {
    let p = Path::new(OSM_DIR).join(format!("{name}.osm.pbf"));
    if p.exists() {
        Some(p)
    } else {
        eprintln!("note: {} absent, test skipped", p.display());
        None
    }
}

fn build(name: &str, layers: OsmLayers) -> Option<(Connection, OsmStats)> {
    let pbf = extract(name)?;
    let mut conn = Connection::open_in_memory().unwrap();
    waymark_core::packs::schema::create_all(&conn).unwrap();
    let t = std::time::Instant::now();
    let stats = build_osm(&pbf, &mut conn, &layers, &mut |_, _, _| {}).unwrap();
    eprintln!(
        "{name}: built in {} ms: {}",
        t.elapsed().as_millis(),
        serde_json::to_string(&stats).unwrap()
    );
    Some((conn, stats))
}

fn count(conn: &Connection, sql: &str) -> i64 {
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

fn only(f: impl FnOnce(&mut OsmLayers)) -> OsmLayers {
    let mut l = OsmLayers {
        roads: false,
        places: false,
        addresses: false,
        pois: false,
        indoor: false,
    };
    f(&mut l);
    l
}

fn check_roads(conn: &Connection) {
    assert!(count(conn, "SELECT count(*) FROM road_edges") > 1000);
    assert_eq!(
        count(
            conn,
            "SELECT count(*) FROM road_edges e WHERE NOT EXISTS (SELECT 1 FROM road_nodes n WHERE n.id = e.from_node) \
             OR NOT EXISTS (SELECT 1 FROM road_nodes n WHERE n.id = e.to_node)"
        ),
        0,
        "edges referencing missing nodes"
    );
    assert_eq!(
        count(
            conn,
            "SELECT count(*) FROM road_edges WHERE NOT (length_m > 0)"
        ),
        0
    );
    // The R-tree: one box per run of consecutive edges of one way; the runs cover every edge
    // once, each run is one way, and its box holds every point of its edges.
    assert_eq!(
        count(
            conn,
            "SELECT coalesce(sum(last_edge - id + 1), 0) FROM road_ways_rtree"
        ),
        count(conn, "SELECT count(*) FROM road_edges")
    );
    assert!(
        count(conn, "SELECT count(*) FROM road_ways_rtree")
            < count(conn, "SELECT count(*) FROM road_edges"),
        "runs join edges"
    );
    assert_eq!(
        count(
            conn,
            "SELECT count(*) FROM road_edges e WHERE (SELECT count(*) FROM road_ways_rtree r \
             WHERE e.id BETWEEN r.id AND r.last_edge) != 1"
        ),
        0,
        "every edge in exactly one run"
    );
    assert_eq!(
        count(
            conn,
            "SELECT count(*) FROM road_ways_rtree r WHERE (SELECT count(DISTINCT way_id) \
             FROM road_edges e WHERE e.id BETWEEN r.id AND r.last_edge) != 1"
        ),
        0,
        "a run is one way"
    );
    let mut boxes = conn
        .prepare(
            "SELECT r.min_lat, r.max_lat, r.min_lng, r.max_lng, e.geometry FROM road_ways_rtree r \
             JOIN road_edges e ON e.id BETWEEN r.id AND r.last_edge",
        )
        .unwrap();
    let rows = boxes
        .query_map([], |r| {
            Ok((
                [
                    r.get::<_, f64>(0)?,
                    r.get::<_, f64>(1)?,
                    r.get::<_, f64>(2)?,
                    r.get::<_, f64>(3)?,
                ],
                r.get::<_, String>(4)?,
            ))
        })
        .unwrap();
    for row in rows {
        let ([s, n, w, e], geom) = row.unwrap();
        for p in decode_polyline6(&geom).unwrap() {
            assert!(
                // polyline6 rounds to 1e-6 degrees
                p.lat >= s - 1e-6 && p.lat <= n + 1e-6 && p.lng >= w - 1e-6 && p.lng <= e + 1e-6,
                "{p:?} outside its run's box"
            );
        }
    }
    // Edges share their attribute rows.
    assert!(
        count(conn, "SELECT count(*) FROM road_attrs") * 3
            < count(conn, "SELECT count(*) FROM road_edges"),
        "attribute rows are shared"
    );
    // length >= straight-line distance between the end nodes, and == polyline length
    let mut stmt = conn
        .prepare(
            "SELECT e.length_m, e.geometry, a.lat, a.lng, b.lat, b.lng FROM road_edges e \
             JOIN road_nodes a ON a.id = e.from_node JOIN road_nodes b ON b.id = e.to_node",
        )
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, f64>(0)?,
                r.get::<_, String>(1)?,
                Pt::new(r.get::<_, f64>(2)?, r.get::<_, f64>(3)?),
                Pt::new(r.get::<_, f64>(4)?, r.get::<_, f64>(5)?),
            ))
        })
        .unwrap();
    for row in rows {
        let (len, geom, a, b) = row.unwrap();
        assert!(
            len >= haversine_m(a, b) - 1.0,
            "{len} < {}",
            haversine_m(a, b)
        );
        let pts = decode_polyline6(&geom).unwrap();
        assert!(pts.len() >= 2);
        assert!((road_length_m(&pts) - len).abs() < 1.0 + len * 1e-3);
        let first = pts[0];
        assert!(haversine_m(first, a) < 0.5, "geometry starts at from_node");
        assert!(haversine_m(*pts.last().unwrap(), b) < 0.5);
    }
    assert!(
        count(
            conn,
            "SELECT count(*) FROM road_edges WHERE highway = 'motorway' AND oneway != 0"
        ) > 0
            || count(
                conn,
                "SELECT count(*) FROM road_edges WHERE highway = 'motorway'"
            ) == 0
    );
}

#[test]
fn monaco_roads() {
    let Some((conn, stats)) = build("monaco", only(|l| l.roads = true)) else {
        return;
    };
    check_roads(&conn);
    assert!(stats.road_edges > 0 && stats.road_nodes > 0);
    // Monaco has no motorway inside the extract; its one-way streets are primary/residential
    assert!(
        count(
            &conn,
            "SELECT count(*) FROM road_edges WHERE oneway = 1 AND highway = 'primary'"
        ) > 100
    );
    assert_eq!(stats.missing_node_refs, 0);
}

#[test]
fn porto_oneway_motorways_and_booth() {
    let Some((conn, _)) = build("porto", only(|l| l.roads = true)) else {
        return;
    };
    check_roads(&conn);
    assert!(
        count(
            &conn,
            "SELECT count(*) FROM road_edges WHERE oneway = 1 AND highway = 'motorway'"
        ) > 0,
        "oneway motorway edges"
    );
    assert_eq!(count(&conn, "SELECT count(*) FROM toll_booths"), 1);
    assert!(
        count(
            &conn,
            "SELECT count(*) FROM road_edges WHERE ferry = 1 AND highway = 'ferry'"
        ) >= 1
    );
}

#[test]
fn andorra_roads_and_tolls() {
    let Some((conn, stats)) = build("andorra", only(|l| l.roads = true)) else {
        return;
    };
    check_roads(&conn);
    assert_eq!(count(&conn, "SELECT count(*) FROM toll_booths"), 6);
    assert!(stats.toll_edges >= 1);
    // the 13 toll=yes ways of the README are all present as edges
    assert_eq!(
        count(
            &conn,
            "SELECT count(DISTINCT way_id) FROM road_edges WHERE toll = 1"
        ),
        13
    );
    assert!(
        count(
            &conn,
            "SELECT count(*) FROM road_edges WHERE oneway != 0 AND highway IN ('trunk', 'motorway', 'primary')"
        ) > 0
    );
    // every toll booth on a road is a graph node at the booth's position
    let on_graph = count(
        &conn,
        "SELECT count(*) FROM toll_booths t JOIN road_nodes n ON n.id = t.node AND n.osm_id = t.osm_id",
    );
    assert_eq!(
        on_graph,
        count(
            &conn,
            "SELECT count(*) FROM toll_booths WHERE node IS NOT NULL"
        )
    );
}

/// Builds every extract with every layer and prints the row counts and timings (run with
/// `--ignored --nocapture`; set `WAYMARK_OSM_DUMP_DIR` to keep the databases).
#[test]
#[ignore]
fn report_all_extracts() {
    for name in [
        "neubrandenburg",
        "andorra",
        "liechtenstein",
        "munchen",
        "london",
        "porto",
        "monaco",
        "helsinki",
    ] {
        let Some(pbf) = extract(name) else { continue };
        let path = match std::env::var("WAYMARK_OSM_DUMP_DIR") {
            Ok(dir) => {
                let p = Path::new(&dir).join(format!("{name}.sqlite"));
                let _ = std::fs::remove_file(&p);
                p
            }
            Err(_) => PathBuf::from(":memory:"),
        };
        let mut conn = Connection::open(&path).unwrap();
        waymark_core::packs::schema::create_all(&conn).unwrap();
        let t = std::time::Instant::now();
        let stats = build_osm(&pbf, &mut conn, &OsmLayers::ALL, &mut |_, _, _| {}).unwrap();
        println!(
            "{name}: {} ms {}",
            t.elapsed().as_millis(),
            serde_json::to_string(&stats).unwrap()
        );
    }
}

/// Counts relations of the extract matching `pred` (independently of the builder).
fn count_relations(name: &str, pred: impl Fn(&[(String, String)]) -> bool + Sync) -> usize {
    let pbf = extract(name).unwrap();
    let mut n = 0;
    osmpbf::ElementReader::from_path(pbf)
        .unwrap()
        .for_each(|el| {
            if let osmpbf::Element::Relation(r) = el {
                let tags: Vec<(String, String)> = r
                    .tags()
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect();
                if pred(&tags) {
                    n += 1;
                }
            }
        })
        .unwrap();
    n
}

fn tag<'a>(tags: &'a [(String, String)], k: &str) -> Option<&'a str> {
    tags.iter()
        .find(|(key, _)| key == k)
        .map(|(_, v)| v.as_str())
}

#[test]
fn neubrandenburg_restrictions_addresses_places() {
    let Some((conn, stats)) = build("neubrandenburg", OsmLayers::ALL) else {
        return;
    };
    check_roads(&conn);
    // turn restrictions: the README's 19 relations, all with complete members in this extract
    let relations = count_relations("neubrandenburg", |t| tag(t, "type") == Some("restriction"));
    assert_eq!(relations, 19);
    let stored = count(&conn, "SELECT count(*) FROM turn_restrictions") as u64;
    assert_eq!(stored + stats.turn_restrictions_skipped, relations as u64);
    assert_eq!(stored, 19);
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM turn_restrictions t WHERE NOT EXISTS \
             (SELECT 1 FROM road_edges e WHERE e.way_id = t.from_way) \
             OR NOT EXISTS (SELECT 1 FROM road_edges e WHERE e.way_id = t.to_way) \
             OR (t.via_node IS NOT NULL AND NOT EXISTS (SELECT 1 FROM road_nodes n WHERE n.id = t.via_node)) \
             OR (t.via_node IS NULL AND t.via_ways IS NULL)"
        ),
        0
    );

    // addresses: the README counts 10,261 elements with addr:housenumber; the builder writes
    // one row per node/way/multipolygon with one (10,262 measured: the README's reader may
    // not count a multipolygon relation). 0.5 % tolerance for such counting differences.
    let addresses = count(&conn, "SELECT count(*) FROM addresses");
    assert!((10_210..=10_312).contains(&addresses), "{addresses}");
    assert_grid_holds_every_point(&conn, "addresses_grid", "address_points");
    // The shared parts: far fewer rows than addresses, none unused, none repeated.
    let parts = count(&conn, "SELECT count(*) FROM address_parts");
    assert!(parts * 5 < addresses, "{parts} parts for {addresses}");
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM address_parts a WHERE NOT EXISTS \
             (SELECT 1 FROM address_points p WHERE p.parts = a.id)"
        ),
        0
    );
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM (SELECT 1 FROM address_parts GROUP BY street, place, postcode, \
             city, country_code HAVING count(*) > 1)"
        ),
        0
    );
    assert!(
        count(
            &conn,
            "SELECT count(*) FROM addresses WHERE street IS NOT NULL"
        ) > addresses * 9 / 10
    );
    let interpolations = count(&conn, "SELECT count(*) FROM address_interpolations");
    assert!(interpolations > 0);
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM address_interpolations WHERE start_number IS NOT NULL \
             AND end_number IS NOT NULL AND street IS NOT NULL AND length(geometry) > 0"
        ),
        interpolations
    );

    // postal codes: the extract holds the README's 10 boundary=postal_code relations, but only
    // 17034 and 17036 have all their member ways inside the clipped extract; the 8 others
    // cannot close and are counted in places_unclosed.
    let postal = count_relations("neubrandenburg", |t| {
        tag(t, "boundary") == Some("postal_code")
    });
    assert_eq!(postal, 10);
    let mut stmt = conn
        .prepare(
            "SELECT postal_code, shape FROM places WHERE kind = 'postal_code' ORDER BY postal_code",
        )
        .unwrap();
    let rows: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        ["17034", "17036"]
    );
    for (_, shape) in &rows {
        assert_closed_shape(shape);
    }
    assert!(stats.places_unclosed >= 8);

    // admin levels: relations of levels 6-10 exist; those whose rings close are stored with
    // their level, a closed shape and a parent of a lower level when one contains them
    for level in 6..=10 {
        let n = count_relations("neubrandenburg", |t| {
            tag(t, "boundary") == Some("administrative")
                && tag(t, "admin_level") == Some(&level.to_string())
        });
        assert!(n > 0, "admin_level {level}");
    }
    let mut stmt = conn
        .prepare("SELECT admin_level, shape FROM places WHERE kind = 'admin_level'")
        .unwrap();
    let admin: Vec<(i64, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(admin.len() >= 8, "{}", admin.len());
    for (level, shape) in &admin {
        assert!((6..=10).contains(level));
        assert_closed_shape(shape);
    }
    // level 9 areas (Krukow, Mallin) lie inside a stored level-8 area? parents are admin areas
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM places c JOIN places p ON p.id = c.parent_id \
             WHERE p.kind NOT IN ('admin_level', 'country') \
             OR (c.admin_level IS NOT NULL AND p.admin_level >= c.admin_level)"
        ),
        0
    );
    // settlement nodes of the town
    assert!(
        count(
            &conn,
            "SELECT count(*) FROM places WHERE kind IN ('town', 'village', 'suburb')"
        ) > 20
    );
    assert_eq!(
        count(&conn, "SELECT count(*) FROM places_rtree"),
        count(&conn, "SELECT count(*) FROM places")
    );
}

fn assert_closed_shape(shape: &str) {
    let v: serde_json::Value = serde_json::from_str(shape).unwrap();
    let polys: Vec<&serde_json::Value> = match v["type"].as_str().unwrap() {
        "Polygon" => vec![&v["coordinates"]],
        "MultiPolygon" => v["coordinates"].as_array().unwrap().iter().collect(),
        other => panic!("shape type {other}"),
    };
    assert!(!polys.is_empty());
    for poly in polys {
        for ring in poly.as_array().unwrap() {
            let ring = ring.as_array().unwrap();
            assert!(ring.len() >= 4);
            assert_eq!(ring.first(), ring.last(), "ring closes");
        }
    }
}

#[test]
fn helsinki_clipped_builds_with_languages() {
    let Some((conn, stats)) = build("helsinki", OsmLayers::ALL) else {
        return;
    };
    assert!(stats.missing_node_refs > 0, "the extract is clipped");
    check_roads(&conn);
    for lang in ["fi", "sv", "en"] {
        let n = count(
            &conn,
            &format!("SELECT count(*) FROM place_names WHERE lang = '{lang}'"),
        );
        assert!(n > 0, "no {lang} place names");
    }
    let helsinki: i64 = conn
        .query_row(
            "SELECT count(*) FROM places p JOIN place_names n ON n.place_id = p.id \
             WHERE p.kind = 'city' AND n.lang = 'sv' AND n.name = 'Helsingfors'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(helsinki, 1);
    assert!(count(&conn, "SELECT count(*) FROM addresses") > 1000);
    assert!(count(&conn, "SELECT count(*) FROM pois") > 500);
}

fn poi_types(conn: &Connection, osm_type: &str, osm_id: i64) -> (Option<String>, String) {
    conn.query_row(
        "SELECT name, types FROM pois WHERE osm_type = ?1 AND osm_id = ?2",
        rusqlite::params![osm_type, osm_id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .unwrap()
}

fn check_poi_vocabulary(conn: &Connection) {
    let mut stmt = conn.prepare("SELECT DISTINCT types FROM pois").unwrap();
    let all: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(!all.is_empty());
    for types in all {
        for t in types.split('|') {
            assert!(
                t == "transit.station.rail.train" || t.parse::<PoiType>().is_ok(),
                "{t} in {types}"
            );
        }
        // most specific first: each next type is the parent of the previous one, up to the
        // root `point_of_interest`, which ends every chain and stands only there
        let list: Vec<&str> = types.split('|').collect();
        assert_eq!(list.last(), Some(&"point_of_interest"), "{types}");
        let (_, below_root) = list.split_last().unwrap();
        assert!(!below_root.contains(&"point_of_interest"), "{types}");
        for w in below_root.windows(2) {
            assert!(w[0].starts_with(&format!("{}.", w[1])), "{types}");
        }
    }
    assert_grid_holds_every_point(conn, "pois_grid", "poi_points");
    // Each type list is stored once, and every POI finds its own through the view.
    assert_eq!(
        count(conn, "SELECT count(*) FROM poi_typesets"),
        count(conn, "SELECT count(DISTINCT types) FROM pois")
    );
    assert_eq!(
        count(conn, "SELECT count(*) FROM pois"),
        count(conn, "SELECT count(*) FROM poi_points")
    );
    assert_eq!(
        count(
            conn,
            "SELECT count(*) FROM pois WHERE name IS NULL AND types NOT LIKE 'business.fuel%' \
            AND types NOT LIKE 'business.parking%' AND types NOT LIKE 'medical.pharmacy%'"
        ),
        0
    );
    // Pack format 4: the tags are zstd frames with the pack's trained dictionary; each decodes
    // to the JSON object of the POI's kept tags, whose address tags are the row's columns.
    let codec = PoiTags::load(conn).unwrap();
    assert!(codec.dict().is_some(), "no tag dictionary");
    assert_eq!(count(conn, "SELECT count(*) FROM poi_tag_dicts"), 1);
    let (mut frames, mut texts) = (0, 0);
    let mut st = conn
        .prepare("SELECT tags, street, housenumber, postcode, city FROM pois")
        .unwrap();
    let mut rows = st.query([]).unwrap();
    while let Some(r) = rows.next().unwrap() {
        let blob: Vec<u8> = r.get(0).unwrap();
        let text = codec.decode(&blob).unwrap();
        let tags: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
        assert!(!tags.is_empty(), "{text}");
        for (i, key) in [
            "addr:street",
            "addr:housenumber",
            "addr:postcode",
            "addr:city",
        ]
        .into_iter()
        .enumerate()
        {
            let column: Option<String> = r.get(i + 1).unwrap();
            assert_eq!(
                tags.get(key).and_then(|v| v.as_str()),
                column.as_deref(),
                "{key} of {text}"
            );
        }
        frames += blob.len();
        texts += text.len();
    }
    assert!(
        frames + codec.dict().map_or(0, <[u8]>::len) < texts,
        "{frames} B of frames for {texts} B of tags"
    );
}

#[test]
fn pois_monaco_and_porto() {
    if let Some((conn, _)) = build("monaco", only(|l| l.pois = true)) {
        check_poi_vocabulary(&conn);
        let cases = [
            (
                280489587,
                "Pharmacie des Moulins",
                "medical.pharmacy|medical|point_of_interest",
            ),
            (
                1681932253,
                "Musée d'Anthropologie Préhistorique",
                "tourism.museum|tourism|point_of_interest",
            ),
            (
                4316767531,
                "Café de Paris",
                "business.food_and_drinks.cafe|business.food_and_drinks|business|point_of_interest",
            ),
            (
                267885777,
                "Metropole",
                "hospitality.hotel|hospitality|point_of_interest",
            ),
            (
                642295507,
                "Monaco - Monte Carlo",
                "transit.station.rail.train|transit.station.rail|transit.station|point_of_interest",
            ),
        ];
        for (id, name, types) in cases {
            assert_eq!(
                poi_types(&conn, "node", id),
                (Some(name.to_owned()), types.to_owned())
            );
        }
    }
    if let Some((conn, _)) = build("porto", only(|l| l.pois = true)) {
        check_poi_vocabulary(&conn);
        assert_eq!(
            poi_types(&conn, "node", 2478836067),
            (
                Some("Palácio da Bolsa".to_owned()),
                "tourism.museum|tourism|point_of_interest".to_owned()
            )
        );
        // a metro station is a rail station but not a train station
        assert_eq!(
            poi_types(&conn, "node", 3996603757),
            (
                Some("Trindade".to_owned()),
                "transit.station.rail|transit.station|point_of_interest".to_owned()
            )
        );
        assert!(count(&conn, "SELECT count(*) FROM poi_names") > 0);
    }
}

fn check_indoor(name: &str) {
    let Some((conn, stats)) = build(name, only(|l| l.indoor = true)) else {
        return;
    };
    assert!(stats.indoor_venues > 0 && stats.indoor_features > 0);
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM indoor_features f WHERE NOT EXISTS \
             (SELECT 1 FROM indoor_venues v WHERE v.venue_id = f.venue_id)"
        ),
        0,
        "every feature's venue exists"
    );
    let mut with_levels = 0;
    let mut stmt = conn
        .prepare("SELECT venue_id, name, west, south, east, north, levels, buildings, languages, updated_at FROM indoor_venues")
        .unwrap();
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                [
                    r.get::<_, f64>(2)?,
                    r.get::<_, f64>(3)?,
                    r.get::<_, f64>(4)?,
                    r.get::<_, f64>(5)?,
                ],
                r.get::<_, String>(6)?,
                r.get::<_, String>(7)?,
                r.get::<_, String>(8)?,
                r.get::<_, String>(9)?,
            ))
        })
        .unwrap();
    for row in rows {
        let (id, name, b, levels, buildings, languages, updated) = row.unwrap();
        assert!(
            id.starts_with("osm-way-") || id.starts_with("osm-relation-"),
            "{id}"
        );
        assert!(!name.is_empty());
        assert!(b[0] <= b[2] && b[1] <= b[3]);
        let levels: Vec<serde_json::Value> = serde_json::from_str(&levels).unwrap();
        if !levels.is_empty() {
            with_levels += 1;
        }
        for l in &levels {
            assert!(l["level"].is_number() && l["bbox"].as_array().unwrap().len() == 4);
        }
        let buildings: Vec<serde_json::Value> = serde_json::from_str(&buildings).unwrap();
        assert_eq!(buildings[0]["ref"], serde_json::json!(id));
        let languages: Vec<String> = serde_json::from_str(&languages).unwrap();
        assert!(languages.iter().any(|l| l == "en"));
        assert!(chrono::DateTime::parse_from_rfc3339(&updated).is_ok());
    }
    assert!(with_levels > 0);
    assert_eq!(
        count(
            &conn,
            "SELECT count(*) FROM indoor_features WHERE level_min > level_max"
        ),
        0
    );
    assert!(count(&conn, "SELECT count(DISTINCT kind) FROM indoor_features") >= 4);
    assert!(
        count(
            &conn,
            "SELECT count(*) FROM indoor_features WHERE kind = 'wall'"
        ) == 0
    );
}

#[test]
fn indoor_munchen() {
    check_indoor("munchen");
}

#[test]
fn indoor_london() {
    check_indoor("london");
}

#[test]
fn andorra_whole_pack_under_a_minute() {
    let Some((conn, stats)) = build("andorra", OsmLayers::ALL) else {
        return;
    };
    let total_ms = stats.read_ms
        + stats.roads_ms
        + stats.places_ms
        + stats.addresses_ms
        + stats.pois_ms
        + stats.indoor_ms;
    assert!(total_ms <= 60_000, "{total_ms} ms");
    assert_eq!(count(&conn, "SELECT count(*) FROM addresses"), 189);
    assert!(
        count(
            &conn,
            "SELECT count(*) FROM places WHERE kind = 'country' AND country_code = 'AD'"
        ) == 1
    );
    assert!(
        stats.bbox[0] < 1.5 && stats.bbox[2] > 1.5 && stats.bbox[1] < 42.5 && stats.bbox[3] > 42.5
    );
}

#[test]
fn missing_file_is_an_io_error() {
    let mut conn = Connection::open_in_memory().unwrap();
    waymark_core::packs::schema::create_all(&conn).unwrap();
    let err = build_osm(
        Path::new("/nonexistent/x.osm.pbf"),
        &mut conn,
        &OsmLayers::ALL,
        &mut |_, _, _| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("/nonexistent/x.osm.pbf"), "{err}");
}

#[test]
fn polyline6_round_trip() {
    // deterministic pseudo-random lines (xorshift), including negative and extreme values
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for case in 0..500 {
        let n = (next() % 50) as usize + usize::from(case == 0);
        let pts: Vec<Pt> = (0..n)
            .map(|_| {
                let lat = (next() % 180_000_001) as f64 / 1e6 - 90.0;
                let lng = (next() % 360_000_001) as f64 / 1e6 - 180.0;
                Pt::new(lat, lng)
            })
            .collect();
        let enc = encode_polyline6(&pts).unwrap();
        assert!(enc.bytes().all(|b| (63..=126).contains(&b)));
        let dec = decode_polyline6(&enc).unwrap();
        assert_eq!(dec.len(), pts.len());
        for (a, b) in pts.iter().zip(&dec) {
            assert!(
                (a.lat - b.lat).abs() < 5e-7 && (a.lng - b.lng).abs() < 5e-7,
                "{a:?} {b:?}"
            );
        }
        assert_eq!(decode_test(&enc), dec);
    }
    assert_eq!(encode_polyline6(&[]).unwrap(), "");
}

/// An independent decoder written for the test (straight from the algorithm description).
fn decode_test(s: &str) -> Vec<Pt> {
    let mut values = Vec::new();
    let (mut acc, mut shift) = (0i64, 0);
    for b in s.bytes() {
        let chunk = i64::from(b) - 63;
        acc |= (chunk & 0x1f) << shift;
        shift += 5;
        if chunk & 0x20 == 0 {
            let v = if acc & 1 != 0 {
                -((acc + 1) >> 1)
            } else {
                acc >> 1
            };
            values.push(v);
            acc = 0;
            shift = 0;
        }
    }
    let mut out = Vec::new();
    let (mut lat, mut lng) = (0i64, 0i64);
    for pair in values.chunks(2) {
        lat += pair[0];
        lng += pair[1];
        out.push(Pt::new(lat as f64 / 1e6, lng as f64 / 1e6));
    }
    out
}

#[test]
fn ring_assembly_joins_three_ways() {
    // a square 1-2-3-4-1 split into three ways, the middle one reversed
    let ways = vec![vec![1, 2], vec![4, 3, 2], vec![4, 1]];
    let rings = assemble_rings(&ways);
    assert_eq!(rings.open, 0);
    assert_eq!(rings.closed.len(), 1);
    let ring = &rings.closed[0];
    assert_eq!(ring.first(), ring.last());
    let mut ids: Vec<i64> = ring[..ring.len() - 1].to_vec();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3, 4]);
    // a missing piece leaves the chain open
    let rings = assemble_rings(&[vec![1, 2], vec![4, 3, 2]]);
    assert_eq!((rings.closed.len(), rings.open), (0, 1));
    // two separate rings plus an already closed way
    let rings = assemble_rings(&[
        vec![1, 2, 3],
        vec![3, 1],
        vec![5, 6, 7, 5],
        vec![8, 9],
        vec![9, 10, 8],
    ]);
    assert_eq!((rings.closed.len(), rings.open), (3, 0));
}

/// Every point of `points` is in its own cell of the grid `grid` (pack format 5), once, and
/// its sub-cell holds its position.
fn assert_grid_holds_every_point(conn: &Connection, grid: &str, points: &str) {
    use waymark_core::packs::grid::{GridPoint, cell_of, decode_cell};
    let mut in_grid = std::collections::HashMap::new();
    let mut st = conn
        .prepare(&format!("SELECT cell, ids FROM {grid}"))
        .unwrap();
    let mut rows = st.query([]).unwrap();
    while let Some(r) = rows.next().unwrap() {
        let cell: i64 = r.get(0).unwrap();
        let mut found: Vec<GridPoint> = Vec::new();
        decode_cell(cell, r.get_ref(1).unwrap().as_blob().unwrap(), &mut found);
        assert!(found.windows(2).all(|w| w[0].id < w[1].id));
        for p in found {
            assert!(
                in_grid.insert(p.id, (cell, p)).is_none(),
                "{grid}: id {} twice",
                p.id
            );
        }
    }
    let mut st = conn
        .prepare(&format!("SELECT id, lat, lng FROM {points}"))
        .unwrap();
    let pts: Vec<(i64, f64, f64)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(!pts.is_empty());
    assert_eq!(pts.len(), in_grid.len(), "{grid}");
    for (id, lat, lng) in pts {
        let (cell, p) = in_grid[&id];
        assert_eq!(cell, cell_of(lat, lng), "{grid}: id {id}");
        assert!(p.lat[0] <= lat && lat <= p.lat[1], "{grid}: id {id} {p:?}");
        assert!(p.lng[0] <= lng && lng <= p.lng[1], "{grid}: id {id} {p:?}");
    }
}
