//! Whole venues: the containers (buildings, station areas) that indoor walkways join are one
//! venue.
//!
//! A feature joins the containers it reaches when it is an indoor walkway: a corridor, area,
//! footway, ramp, stairs or escalator tagged `indoor=*` (not a room, nor a level outline) or
//! `highway=corridor`, or one on a bridge or in a tunnel (`bridge=*`, `tunnel=*` other than
//! `no`). It reaches a container when one of its nodes is a vertex of the container's outline
//! or lies inside it, and it shares a level with the container's features (an underground
//! passage under a building does not join the building; a basement it enters does). A walkway
//! of no container that reaches two (a bridge between two buildings, its middle outside both)
//! belongs to the venue it joins. The venue's id is that of its largest container; each
//! container stays a building of the venue.

use std::collections::{BTreeMap, HashMap};

use super::{Container, Feature, indoor_value};

/// A container of the grouping: `(is_building, index)` into the buildings or fallbacks.
pub(super) type Key = (bool, usize);

/// One venue: its containers with their features, the largest container first.
pub(super) type Members = Vec<(Key, Vec<usize>)>;

/// Whether `f` is an indoor walkway that joins the containers it reaches.
fn joins(f: &Feature<'_>) -> bool {
    if !matches!(
        f.kind,
        "corridor" | "area" | "footway" | "ramp" | "stairs" | "escalator"
    ) {
        return false;
    }
    indoor_value(f.tags).is_some()
        || f.tags.is("highway", "corridor")
        || ["bridge", "tunnel"]
            .iter()
            .any(|k| f.tags.get(k).is_some_and(|v| v != "no"))
}

/// Whether two lists of level ranges share a level.
fn share_level(a: &[(f64, f64)], b: &[(f64, f64)]) -> bool {
    a.iter()
        .any(|x| b.iter().any(|y| x.0 <= y.1 + 1e-9 && y.0 <= x.1 + 1e-9))
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The venues of `groups` (container → its features): groups joined by indoor walkways
/// merged, walkways of no group that join two added to their venue; ordered by their first
/// container.
pub(super) fn whole_venues(
    buildings: &[Container],
    fallbacks: &[Container],
    features: &[Feature<'_>],
    groups: &BTreeMap<Key, Vec<usize>>,
) -> Vec<Members> {
    let container = |k: Key| {
        if k.0 {
            buildings.get(k.1)
        } else {
            fallbacks.get(k.1)
        }
    };
    let keys: Vec<Key> = groups.keys().copied().collect();
    // The levels of each group's features, and which group holds each feature.
    let levels: Vec<Vec<(f64, f64)>> = groups
        .values()
        .map(|m| {
            m.iter()
                .filter_map(|i| features.get(*i))
                .flat_map(|f| f.ranges.iter().copied())
                .collect()
        })
        .collect();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for (g, members) in groups.values().enumerate() {
        for fi in members {
            group_of.insert(*fi, g);
        }
    }
    let mut vertex_groups: HashMap<i64, Vec<usize>> = HashMap::new();
    for (g, k) in keys.iter().enumerate() {
        if let Some(c) = container(*k) {
            for v in &c.vertices {
                vertex_groups.entry(*v).or_default().push(g);
            }
        }
    }
    let mut parent: Vec<usize> = (0..keys.len()).collect();
    // walkways of no group that join groups: (feature, a group it joins)
    let mut bridges: Vec<(usize, usize)> = Vec::new();
    for (fi, f) in features.iter().enumerate() {
        if !joins(f) {
            continue;
        }
        let mut reached: Vec<usize> = Vec::new();
        for v in &f.refs {
            if let Some(gs) = vertex_groups.get(v) {
                reached.extend(gs.iter().copied());
            }
        }
        for (g, k) in keys.iter().enumerate() {
            let Some(c) = container(*k) else { continue };
            if c.key == (f.osm_type, f.osm_id) || !c.bbox.intersects(&f.bbox) {
                continue;
            }
            if f.pts
                .iter()
                .any(|p| c.bbox.contains(*p) && c.area.contains(*p))
            {
                reached.push(g);
            }
        }
        reached.retain(|g| {
            container(keys[*g]).is_some_and(|c| c.key != (f.osm_type, f.osm_id))
                && levels.get(*g).is_some_and(|l| share_level(&f.ranges, l))
        });
        let own = group_of.get(&fi).copied();
        reached.extend(own);
        reached.sort_unstable();
        reached.dedup();
        if reached.len() < 2 {
            continue;
        }
        for g in &reached[1..] {
            let (a, b) = (find(&mut parent, reached[0]), find(&mut parent, *g));
            parent[a.max(b)] = a.min(b);
        }
        if own.is_none() {
            bridges.push((fi, reached[0]));
        }
    }
    // venue root -> its groups
    let mut venues: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for g in 0..keys.len() {
        let root = find(&mut parent, g);
        venues.entry(root).or_default().push(g);
    }
    let mut extra: HashMap<usize, Vec<usize>> = HashMap::new();
    for (fi, g) in bridges {
        let root = find(&mut parent, g);
        extra.entry(root).or_default().push(fi);
    }
    let members_of: Vec<&Vec<usize>> = groups.values().collect();
    venues
        .into_iter()
        .map(|(root, gs)| {
            let mut members: Members = gs
                .iter()
                .map(|g| (keys[*g], members_of[*g].clone()))
                .collect();
            // the largest container first (its id is the venue's); ties by key
            members.sort_by(|a, b| {
                let size = |k: Key| container(k).map_or(0.0, |c| c.size);
                size(b.0).total_cmp(&size(a.0)).then(a.0.cmp(&b.0))
            });
            if let (Some(first), Some(more)) = (members.first_mut(), extra.remove(&root)) {
                first.1.extend(more);
            }
            members
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::super::build;
    use crate::osm::models::{OsmData, OsmNode, OsmStats, OsmWay, Tags};
    use waymark_core::geo::Pt;

    /// A closed way of four new nodes from `first`: `[s, w]` to `[n, e]`.
    fn rect(
        d: &mut OsmData,
        id: i64,
        first: i64,
        sw: (f64, f64),
        ne: (f64, f64),
        tags: &[(&str, &str)],
    ) {
        let corners = [(sw.0, sw.1), (sw.0, ne.1), (ne.0, ne.1), (ne.0, sw.1)];
        for (i, (lat, lng)) in corners.iter().enumerate() {
            d.coords.insert(first + i as i64, Pt::new(*lat, *lng));
        }
        let refs = vec![first, first + 1, first + 2, first + 3, first];
        d.ways.insert(
            id,
            OsmWay {
                id,
                refs,
                tags: Tags::from_pairs(tags),
            },
        );
    }

    /// Two buildings 75 m apart, each with a corridor and a shop on level 1, and a bridge
    /// corridor between them on `bridge_level` (none when `None`).
    fn two_buildings(bridge_level: Option<&str>) -> OsmData {
        let mut d = OsmData::default();
        rect(
            &mut d,
            100,
            1,
            (48.0, 11.0),
            (48.001, 11.001),
            &[("building", "retail"), ("name", "West wing")],
        );
        rect(
            &mut d,
            200,
            11,
            (48.0, 11.002),
            (48.0012, 11.0032),
            &[("building", "retail"), ("name", "East wing")],
        );
        rect(
            &mut d,
            101,
            21,
            (48.0003, 11.0002),
            (48.0007, 11.0009),
            &[("indoor", "corridor"), ("level", "1")],
        );
        rect(
            &mut d,
            201,
            31,
            (48.0003, 11.0021),
            (48.0007, 11.003),
            &[("indoor", "corridor"), ("level", "1")],
        );
        for (id, lng, name) in [(7, 11.0005, "Bakery"), (8, 11.0025, "Chemist")] {
            d.nodes.push(OsmNode {
                id,
                lat: 48.0005,
                lng,
                tags: Tags::from_pairs(&[("shop", "yes"), ("level", "1"), ("name", name)]),
            });
        }
        if let Some(level) = bridge_level {
            rect(
                &mut d,
                300,
                41,
                (48.0004, 11.0008),
                (48.0006, 11.0022),
                &[("indoor", "corridor"), ("bridge", "yes"), ("level", level)],
            );
        }
        d
    }

    /// `(venue_id, buildings' refs)` of a venue.
    type VenueRow = (String, Vec<String>);
    /// `(feature id, venue, building)` of a feature.
    type FeatureRow = (i64, String, String);

    /// Every venue and every feature built from `d`.
    fn venues(d: &OsmData) -> (Vec<VenueRow>, Vec<FeatureRow>) {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        waymark_core::packs::schema::create_all(&conn).unwrap();
        let tx = conn.transaction().unwrap();
        build(d, &tx, &mut OsmStats::default(), &mut |_, _, _| {}).unwrap();
        let mut st = tx
            .prepare("SELECT venue_id, buildings FROM indoor_venues ORDER BY venue_id")
            .unwrap();
        let v = st
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .unwrap()
            .map(|r| {
                let (id, b) = r.unwrap();
                let b: Vec<serde_json::Value> = serde_json::from_str(&b).unwrap();
                (
                    id,
                    b.iter()
                        .map(|x| x["ref"].as_str().unwrap().to_owned())
                        .collect(),
                )
            })
            .collect();
        let mut st = tx
            .prepare("SELECT osm_id, venue_id, building FROM indoor_features ORDER BY osm_id")
            .unwrap();
        let f = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        (v, f)
    }

    #[test]
    fn buildings_joined_by_a_bridge_are_one_venue() {
        let (v, f) = venues(&two_buildings(Some("1")));
        // The larger building gives the id; each building stays one of the venue's.
        assert_eq!(
            v,
            [(
                "osm-way-200".to_owned(),
                vec!["osm-way-200".to_owned(), "osm-way-100".to_owned()]
            )]
        );
        let of = |id: i64| f.iter().find(|x| x.0 == id).cloned().unwrap();
        assert_eq!(of(7), (7, "osm-way-200".into(), "osm-way-100".into()));
        assert_eq!(of(8), (8, "osm-way-200".into(), "osm-way-200".into()));
        // The bridge, in neither building, belongs to the venue it joins.
        assert_eq!(of(300), (300, "osm-way-200".into(), "osm-way-200".into()));
    }

    #[test]
    fn buildings_apart_or_joined_on_no_level_of_theirs_stay_two_venues() {
        for bridge in [None, Some("-1")] {
            let (v, f) = venues(&two_buildings(bridge));
            let ids: Vec<&str> = v.iter().map(|x| x.0.as_str()).collect();
            assert_eq!(ids, ["osm-way-100", "osm-way-200"], "{bridge:?}");
            assert!(v.iter().all(|x| x.1.len() == 1), "{bridge:?}");
            assert!(f.iter().all(|x| x.0 != 300), "{bridge:?}");
        }
    }
}
