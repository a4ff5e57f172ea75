//! Deterministic edits of an extract as read, to measure what upstream changes do to a pack
//! (delta sizes). For measurement only: published packs are built without them.
//!
//! Two kinds:
//! - [`OsmEdit::Ways`]: `ways` routable named ways, spread evenly in id order, are renamed and
//!   limited to 30 km/h, or dropped;
//! - [`OsmEdit::Day`]: a day of mapping, about `share` of the routable ways touched, spread
//!   over the whole region (chosen by a hash of their ids, so not clustered in one place) and
//!   split evenly between four kinds of edit: **added** ways (a new street from a node of an
//!   existing road to a node of another road nearby, so both become new junctions, or a
//!   dead-end spur when no road is near), **deleted** ways, **re-tagged** ways (name,
//!   `maxspeed` and `surface` changed) and **re-shaped** ways (a new shape node a few metres
//!   off the middle of their longest segment). New ways and nodes take ids above every id of
//!   the extract, as a mapping session would.
use std::collections::{HashMap, HashSet};

use waymark_core::geo::Pt;
use waymark_core::geo::haversine_m;

use super::models::{OsmData, OsmWay, Tags};
use super::roads;

/// An edit of the extract as read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum OsmEdit {
    /// `ways` routable named ways renamed and limited to 30 km/h, or dropped (`drop`).
    Ways {
        /// How many ways to change.
        ways: usize,
        /// Drop them instead of changing their tags.
        drop: bool,
    },
    /// A day of edits touching `share` (0..1) of the routable ways; `seed` picks which.
    Day {
        /// Share of the routable ways touched, split evenly between the four kinds.
        share: f64,
        /// Seed of the choice (the same seed and extract give the same edit).
        seed: u64,
    },
}

/// What an edit did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditSummary {
    /// Ways added.
    pub added: usize,
    /// Ways deleted.
    pub deleted: usize,
    /// Ways re-tagged.
    pub retagged: usize,
    /// Ways re-shaped.
    pub reshaped: usize,
    /// Ids of every way added, deleted, re-tagged or re-shaped.
    pub ways: Vec<i64>,
}

impl OsmEdit {
    /// Applies the edit to what was read.
    pub fn apply(&self, data: &mut OsmData) -> EditSummary {
        match *self {
            OsmEdit::Ways { ways, drop } => edit_ways(data, ways, drop),
            OsmEdit::Day { share, seed } => edit_day(data, share, seed),
        }
    }
}

fn edit_ways(data: &mut OsmData, ways: usize, drop: bool) -> EditSummary {
    let candidates: Vec<i64> = data
        .ways
        .values()
        .filter(|w| roads::is_routable(&w.tags).is_some() && w.tags.has("name"))
        .map(|w| w.id)
        .collect();
    let mut done = EditSummary::default();
    if ways == 0 || candidates.is_empty() {
        return done;
    }
    let step = (candidates.len() / ways).max(1);
    for id in candidates.iter().step_by(step).take(ways) {
        if drop {
            data.ways.remove(id);
            done.deleted += 1;
        } else if let Some(w) = data.ways.get_mut(id) {
            for (k, v) in w.tags.0.iter_mut() {
                if &**k == "name" {
                    *v = format!("{v} Edited").into();
                }
            }
            set_tag(&mut w.tags, "maxspeed", "30");
            done.retagged += 1;
        }
        done.ways.push(*id);
    }
    done
}

/// splitmix64: a well-mixed hash of a way id, so the chosen ways are spread over the region.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

fn set_tag(tags: &mut Tags, key: &str, value: &str) {
    tags.0.retain(|(k, _)| &**k != key);
    tags.0.push((key.into(), value.into()));
}

/// A point `metres` to the left of the segment a→b, from its middle.
fn offset_mid(a: Pt, b: Pt, metres: f64) -> Pt {
    let mid = Pt::new((a.lat + b.lat) / 2.0, (a.lng + b.lng) / 2.0);
    let cos = mid.lat.to_radians().cos().max(0.01);
    // the segment in metres (east, north), then its left normal
    let de = (b.lng - a.lng) * cos * 111_320.0;
    let dn = (b.lat - a.lat) * 111_320.0;
    let len = (de * de + dn * dn).sqrt();
    if len < 1e-6 {
        return Pt::new(mid.lat + metres / 111_320.0, mid.lng);
    }
    let (ne, nn) = (-dn / len * metres, de / len * metres);
    Pt::new(mid.lat + nn / 111_320.0, mid.lng + ne / (111_320.0 * cos))
}

/// Grid cell of a point, about 220 m × (220 m × cos lat).
fn cell(p: Pt) -> (i64, i64) {
    (
        (p.lat / 0.002).floor() as i64,
        (p.lng / 0.002).floor() as i64,
    )
}

fn edit_day(data: &mut OsmData, share: f64, seed: u64) -> EditSummary {
    let mut done = EditSummary::default();
    let routable: Vec<i64> = data
        .ways
        .values()
        .filter(|w| roads::is_routable(&w.tags).is_some() && w.refs.len() >= 2)
        .map(|w| w.id)
        .collect();
    if routable.is_empty() || share <= 0.0 {
        return done;
    }
    let total = ((routable.len() as f64 * share.min(1.0)).round() as usize).max(4);
    let per_kind = total.div_ceil(4);
    let mut order = routable.clone();
    order.sort_by_key(|id| mix(*id as u64 ^ mix(seed)));

    // every node of a routable way, by grid cell, to find a road near the start of a new one
    let mut grid: HashMap<(i64, i64), Vec<(i64, i64)>> = HashMap::new();
    for id in &routable {
        if let Some(w) = data.ways.get(id) {
            for r in &w.refs {
                if let Some(p) = data.coords.get(r) {
                    grid.entry(cell(*p)).or_default().push((*r, *id));
                }
            }
        }
    }
    let mut next_way = data.ways.keys().next_back().copied().unwrap_or(0).max(0) + 1;
    let mut next_node = data.coords.max_id().unwrap_or(0).max(0) + 1;

    let mut chosen = order.chunks(per_kind);
    let deleted = chosen.next().unwrap_or(&[]).to_vec();
    let retagged = chosen.next().unwrap_or(&[]).to_vec();
    let reshaped = chosen.next().unwrap_or(&[]).to_vec();
    let anchors = chosen.next().unwrap_or(&[]).to_vec();
    let deleted_set: HashSet<i64> = deleted.iter().copied().collect();

    for id in &deleted {
        if data.ways.remove(id).is_some() {
            done.deleted += 1;
            done.ways.push(*id);
        }
    }
    for id in &retagged {
        if let Some(w) = data.ways.get_mut(id) {
            let name = match w.tags.get("name") {
                Some(n) => format!("{n} Edited"),
                None => format!("Edited Way {id}"),
            };
            set_tag(&mut w.tags, "name", &name);
            let speed = if w.tags.is("maxspeed", "30") {
                "50"
            } else {
                "30"
            };
            set_tag(&mut w.tags, "maxspeed", speed);
            let surface = if w.tags.is("surface", "asphalt") {
                "paving_stones"
            } else {
                "asphalt"
            };
            set_tag(&mut w.tags, "surface", surface);
            done.retagged += 1;
            done.ways.push(*id);
        }
    }
    for id in &reshaped {
        let Some(w) = data.ways.get(id) else { continue };
        let pts: Vec<Option<Pt>> = w.refs.iter().map(|r| data.coords.get(r).copied()).collect();
        let longest = (0..w.refs.len() - 1)
            .filter_map(|i| Some((i, haversine_m(pts[i]?, pts[i + 1]?))))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((i, _)) = longest else { continue };
        let (Some(a), Some(b)) = (pts[i], pts[i + 1]) else {
            continue;
        };
        let node = next_node;
        next_node += 1;
        data.coords.insert(node, offset_mid(a, b, 6.0));
        if let Some(w) = data.ways.get_mut(id) {
            w.refs.insert(i + 1, node);
            done.reshaped += 1;
            done.ways.push(*id);
        }
    }
    for id in &anchors {
        let Some(w) = data.ways.get(id) else { continue };
        let start = w.refs[w.refs.len() / 2];
        let Some(&a) = data.coords.get(&start) else {
            continue;
        };
        // the nearest node 40–250 m away on another road that is still there
        let (cy, cx) = cell(a);
        let mut best: Option<(f64, i64)> = None;
        for dy in -1..=1 {
            for dx in -1..=1 {
                for (node, way) in grid.get(&(cy + dy, cx + dx)).into_iter().flatten() {
                    if way == id || deleted_set.contains(way) || *node == start {
                        continue;
                    }
                    let Some(&p) = data.coords.get(node) else {
                        continue;
                    };
                    let d = haversine_m(a, p);
                    if (40.0..=250.0).contains(&d) && best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, *node));
                    }
                }
            }
        }
        let refs = match best.and_then(|(_, n)| Some((n, *data.coords.get(&n)?))) {
            Some((end, b)) => {
                let mid = next_node;
                next_node += 1;
                data.coords.insert(mid, offset_mid(a, b, 10.0));
                vec![start, mid, end]
            }
            None => {
                let end = next_node;
                next_node += 1;
                let far = Pt::new(a.lat + 80.0 / 111_320.0, a.lng);
                data.coords.insert(end, offset_mid(a, far, 15.0));
                vec![start, end]
            }
        };
        let way = next_way;
        next_way += 1;
        data.ways.insert(
            way,
            OsmWay {
                id: way,
                refs,
                tags: Tags::from_pairs(&[
                    ("highway", "residential"),
                    ("name", &format!("New Street {}", done.added + 1)),
                ]),
            },
        );
        done.added += 1;
        done.ways.push(way);
    }
    done
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    fn grid_data() -> OsmData {
        // a 6×6 street grid, 100 m apart: 6 east-west and 6 north-south ways
        let mut data = OsmData::default();
        let step = 100.0 / 111_320.0;
        for r in 0..6i64 {
            for c in 0..6i64 {
                data.coords.insert(
                    r * 10 + c + 1,
                    Pt::new(54.0 + r as f64 * step, 13.0 + c as f64 * step * 1.7),
                );
            }
        }
        for r in 0..6i64 {
            let refs = (0..6).map(|c| r * 10 + c + 1).collect();
            let tags = Tags::from_pairs(&[("highway", "residential"), ("name", "Row")]);
            data.ways.insert(
                100 + r,
                OsmWay {
                    id: 100 + r,
                    refs,
                    tags,
                },
            );
        }
        for c in 0..6i64 {
            let refs = (0..6).map(|r| r * 10 + c + 1).collect();
            let tags = Tags::from_pairs(&[("highway", "residential")]);
            data.ways.insert(
                200 + c,
                OsmWay {
                    id: 200 + c,
                    refs,
                    tags,
                },
            );
        }
        data
    }

    #[test]
    fn a_day_of_edits_touches_each_kind_once_per_share_and_is_deterministic() {
        let mut a = grid_data();
        let done = OsmEdit::Day {
            share: 0.34,
            seed: 7,
        }
        .apply(&mut a);
        // 12 routable ways × 0.34 = 4 edits, one of each kind
        assert_eq!(
            (done.added, done.deleted, done.retagged, done.reshaped),
            (1, 1, 1, 1)
        );
        assert_eq!(a.ways.len(), 12);
        let new_way = a.ways.values().find(|w| w.id > 205).expect("a new way");
        assert!(new_way.tags.is("highway", "residential"));
        // both ends of the new way are nodes of existing roads: two new junctions
        let first = new_way.refs[0];
        let last = *new_way.refs.last().expect("refs");
        assert!(first <= 56 && last <= 56, "{:?}", new_way.refs);
        let reshaped = a
            .ways
            .values()
            .filter(|w| w.refs.iter().any(|r| *r > 56))
            .count();
        assert_eq!(
            reshaped, 2,
            "the new way and the re-shaped one hold new nodes"
        );
        let mut b = grid_data();
        assert_eq!(
            OsmEdit::Day {
                share: 0.34,
                seed: 7
            }
            .apply(&mut b),
            done
        );
        let mut c = grid_data();
        assert_ne!(
            OsmEdit::Day {
                share: 0.34,
                seed: 8
            }
            .apply(&mut c)
            .ways,
            done.ways,
            "another seed picks other ways"
        );
    }

    #[test]
    fn the_ways_edit_renames_or_drops() {
        let mut a = grid_data();
        let done = OsmEdit::Ways {
            ways: 2,
            drop: false,
        }
        .apply(&mut a);
        assert_eq!(done.retagged, 2);
        assert!(
            a.ways
                .values()
                .filter(|w| w.tags.is("maxspeed", "30"))
                .count()
                == 2
        );
        let mut b = grid_data();
        let done = OsmEdit::Ways {
            ways: 2,
            drop: true,
        }
        .apply(&mut b);
        assert_eq!((done.deleted, b.ways.len()), (2, 10));
    }
}
