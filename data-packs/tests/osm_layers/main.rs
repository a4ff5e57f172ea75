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
    // A grade is stored for tracks only, and only grade 1 to 5 (no table: no graded track).
    let graded = "SELECT count(*) FROM sqlite_master WHERE name = 'road_track_grades'";
    assert!(
        count(conn, graded) == 0
            || count(
                conn,
                "SELECT count(*) FROM road_track_grades g JOIN road_attrs a ON a.id = g.attrs \
                 WHERE a.highway != 'track' OR g.grade NOT BETWEEN 1 AND 5"
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
    // Tracks keep their `tracktype` (it sets their driving speed); many have none.
    let graded = count(
        &conn,
        "SELECT count(DISTINCT way_id) FROM road_segments WHERE attrs IN (SELECT attrs FROM road_track_grades)",
    );
    let ungraded = count(
        &conn,
        "SELECT count(DISTINCT s.way_id) FROM road_segments s JOIN road_attrs a ON a.id = s.attrs \
         WHERE a.highway = 'track' AND s.attrs NOT IN (SELECT attrs FROM road_track_grades)",
    );
    eprintln!("neubrandenburg tracks: {graded} with a tracktype, {ungraded} without");
    assert!(graded > 100 && ungraded > 100, "{graded} / {ungraded}");
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

mod formats;
mod pois_indoor;

use formats::assert_grid_holds_every_point;
use pois_indoor::assert_closed_shape;

/// A build into a database file reads the node positions from a mapped scratch file beside it
/// (an in-memory database keeps them in memory): both give the same rows in every table, and
/// the scratch file is gone afterwards.
#[test]
fn positions_read_from_their_scratch_file_give_the_same_layers() {
    let Some(pbf) = extract("monaco") else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.sqlite");
    let mut on_disk = Connection::open(&path).unwrap();
    waymark_core::packs::schema::create_all(&on_disk).unwrap();
    let mut seen = Vec::new();
    build_osm(&pbf, &mut on_disk, &OsmLayers::ALL, &mut |step, _, _| {
        if seen.is_empty() && step.starts_with("roads") {
            seen = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
        }
    })
    .unwrap();
    assert!(
        seen.iter().any(|n| n == ".osm-nodes.flat"),
        "the layers read the positions from a scratch file: {seen:?}"
    );
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["data.sqlite"], "only the database is left");

    let (in_memory, _) = build("monaco", OsmLayers::ALL).unwrap();
    let tables: Vec<String> = in_memory
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE '%VIRTUAL%' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(tables.iter().any(|t| t == "road_segments"));
    for t in &tables {
        let dump = |c: &Connection| -> Vec<String> {
            let mut st = c.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
            let n = st.column_count();
            st.query_map([], |r| {
                Ok((0..n)
                    .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
                    .collect::<Vec<_>>()
                    .join("|"))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect()
        };
        assert_eq!(dump(&on_disk), dump(&in_memory), "table {t}");
    }
}
