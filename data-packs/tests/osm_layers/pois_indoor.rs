//! Clipped extracts with languages, POI vocabulary and indoor features.
use super::*;

pub(crate) fn assert_closed_shape(shape: &str) {
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
    // `indoor=wall` ways are skipped; a `wall` feature is a way of a wall, fence or railing
    // barrier with a level (what routes may not cross), read back from the extract.
    let mut barrier_walls = std::collections::HashSet::new();
    osmpbf::ElementReader::from_path(extract(name).unwrap())
        .unwrap()
        .for_each(|el| {
            if let osmpbf::Element::Way(w) = el {
                let tags: std::collections::HashMap<&str, &str> = w.tags().collect();
                let wall = tags
                    .get("barrier")
                    .is_some_and(|b| waymark_packs::osm::indoor::WALL_BARRIERS.contains(b));
                if wall && tags.contains_key("level") {
                    barrier_walls.insert(w.id());
                }
            }
        })
        .unwrap();
    let walls: Vec<(String, i64)> = conn
        .prepare("SELECT osm_type, osm_id FROM indoor_features WHERE kind = 'wall'")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (osm_type, osm_id) in &walls {
        assert!(
            osm_type == "way" && barrier_walls.contains(osm_id),
            "{name}: wall feature {osm_type} {osm_id} is not a barrier way with a level"
        );
    }
}

#[test]
fn indoor_munchen() {
    check_indoor("munchen");
}

#[test]
fn indoor_london() {
    check_indoor("london");
}
