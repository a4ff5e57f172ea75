//! The indoor layer built from small OSM data made for each rule.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use crate::osm::models::{OsmNode, OsmWay};

/// A building with a room on each of levels 0 and 1 and a shop on level 2, tagged with
/// the venue's own level words.
fn venue(extra: &[(&str, &str)]) -> OsmData {
    let mut d = OsmData::default();
    let square = |d: &mut OsmData, first: i64, w: f64, s: f64, size: f64| {
        for (i, (dy, dx)) in [(0.0, 0.0), (0.0, size), (size, size), (size, 0.0)]
            .iter()
            .enumerate()
        {
            d.coords.insert(first + i as i64, Pt::new(s + dy, w + dx));
        }
        vec![first, first + 1, first + 2, first + 3, first]
    };
    let refs = square(&mut d, 1, 11.0, 48.0, 0.001);
    d.ways.insert(
        100,
        OsmWay {
            id: 100,
            refs,
            tags: Tags::from_pairs(&[("building", "retail"), ("name", "Mall")]),
        },
    );
    let refs = square(&mut d, 11, 11.0001, 48.0001, 0.0002);
    d.ways.insert(
        101,
        OsmWay {
            id: 101,
            refs,
            tags: Tags::from_pairs(&[
                ("indoor", "room"),
                ("level", "0"),
                ("level:ref", "EG"),
                ("name", "Hall"),
            ]),
        },
    );
    let refs = square(&mut d, 21, 11.0004, 48.0004, 0.0002);
    d.ways.insert(
        102,
        OsmWay {
            id: 102,
            refs,
            tags: Tags::from_pairs(&[
                ("indoor", "level"),
                ("level", "1"),
                ("name", "Departures"),
                ("ref", "D"),
            ]),
        },
    );
    let mut shop = vec![("shop", "bakery"), ("level", "2"), ("name", "Bakery")];
    shop.extend_from_slice(extra);
    d.nodes.push(OsmNode {
        id: 7,
        lat: 48.0005,
        lng: 11.0005,
        tags: Tags::from_pairs(&shop),
    });
    d
}

fn levels_of(d: &OsmData) -> Vec<serde_json::Value> {
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    waymark_core::packs::schema::create_all(&conn).unwrap();
    let tx = conn.transaction().unwrap();
    let mut stats = OsmStats::default();
    build(d, &tx, &mut stats, &mut |_, _, _| {}).unwrap();
    let levels: String = tx
        .query_row("SELECT levels FROM indoor_venues", [], |r| r.get(0))
        .unwrap();
    serde_json::from_str(&levels).unwrap()
}

#[test]
fn levels_take_the_venues_words() {
    let levels = levels_of(&venue(&[("level_name", "Food court")]));
    let pick = |l: i64, k: &str| {
        levels
            .iter()
            .find(|x| x["level"] == l)
            .map(|x| x[k].clone())
            .unwrap()
    };
    // `level:ref` of a room, the name and ref of a level outline, `level_name` of a shop
    assert_eq!(pick(0, "ref"), "EG");
    assert_eq!(pick(0, "name"), serde_json::Value::Null);
    assert_eq!(pick(1, "name"), "Departures");
    assert_eq!(pick(1, "ref"), "D");
    assert_eq!(pick(2, "name"), "Food court");
    // `level:name` wins over `level_name`; a list of levels names none
    let levels = levels_of(&venue(&[
        ("level:name", "Terrace"),
        ("level_name", "Food court"),
        ("level:ref", "2;3"),
    ]));
    let two = levels.iter().find(|x| x["level"] == 2).unwrap();
    assert_eq!(two["name"], "Terrace");
    assert_eq!(two["ref"], serde_json::Value::Null);
}
