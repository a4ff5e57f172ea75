//! Indoor layer: `indoor_venues` and `indoor_features` from OSM indoor tagging.
//!
//! Rules:
//!
//! * **Features** ([`feature_kind`]): `highway=elevator` / `elevator=yes` / `indoor=elevator`
//!   → `elevator`; `stairs=yes`, `indoor=stairs`, or `highway=steps` carrying
//!   `level`/`repeat_on`/`indoor` → `stairs`; `indoor=room|area|corridor|level` → that kind
//!   (other `indoor` values except `wall`/`no` → `area`; walls are skipped); `door=*` →
//!   `door`; `entrance=*` → `entrance`. Levels come from `level` plus `repeat_on`
//!   ([`parse_levels`]: `0`, `-1`, `1;2`, `0-3`, `-2--1`, `0.5`) into `level_min`/`level_max`.
//! * **Grouping**: a feature belongs to the smallest building (`building=*` way or
//!   multipolygon/`type=building` relation) whose outline contains its representative point,
//!   or, for nodes on an outline (entrances, doors), whose outline has it as a vertex. A building becomes a venue only when at least one feature other than
//!   a door or an entrance falls in it (so plain buildings with an entrance node are not
//!   venues). Outside buildings, the *largest* enclosing `indoor=area|level`,
//!   `building:part` or station area (`public_transport=station`, `railway=station`) other
//!   than the feature itself is the venue (underground stations, concourses); doors/entrances of non-venue buildings and features outside every container are
//!   dropped and counted in `indoor_dropped`.
//! * **Venue**: `venue_id` `osm-way-<id>`/`osm-relation-<id>` of the container; `name` its
//!   `name`, else `addr:street addr:housenumber`, else the venue id; bbox the union of the
//!   outline and its features; `levels` one `{level, name, ref, bbox}` per level seen (integer
//!   ranges are expanded, `name`/`ref` from the `indoor=level` feature of that level, `bbox`
//!   `[west, south, east, north]` of that level's features); `buildings` one entry
//!   `{ref: venue_id, name, levels}`; `languages` every `name:xx` seen plus `en`;
//!   `updated_at` the PBF replication timestamp, else the build time (RFC 3339).
//! * **Feature columns**: `category` from `room`, `shop`, `amenity` (first present);
//!   `building` the venue id; `properties` every tag; `shape` GeoJSON (`Point` for nodes,
//!   `Polygon` for closed ways, `LineString` for open ones, the assembled area for relations);
//!   `lat`/`lng` a point inside.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rusqlite::{Transaction, params};
use waymark_core::geo::{BBox, MultiPolygon, Pt, line_geojson, point_geojson};

use super::models::{MemberKind, OsmData, OsmError, OsmStats, Tags};

fn indoor_value(tags: &Tags) -> Option<&str> {
    tags.get("indoor").filter(|v| !matches!(*v, "no" | "wall"))
}

/// Kind of an indoor feature, `None` when the element is not one.
pub fn feature_kind(tags: &Tags) -> Option<&'static str> {
    if tags.is("indoor", "wall") {
        return None;
    }
    if tags.is("highway", "elevator") || tags.is("elevator", "yes") || tags.is("indoor", "elevator")
    {
        return Some("elevator");
    }
    if tags.is("stairs", "yes")
        || tags.is("indoor", "stairs")
        || (tags.is("highway", "steps")
            && (tags.has("level") || tags.has("repeat_on") || indoor_value(tags).is_some()))
    {
        return Some("stairs");
    }
    if let Some(v) = indoor_value(tags) {
        return Some(match v {
            "room" => "room",
            "corridor" => "corridor",
            "level" => "level",
            "door" => "door",
            _ => "area",
        });
    }
    if tags.get("door").is_some_and(|v| v != "no") {
        return Some("door");
    }
    if tags.get("entrance").is_some_and(|v| v != "no") {
        return Some("entrance");
    }
    None
}

fn is_building(tags: &Tags) -> bool {
    tags.get("building").is_some_and(|v| v != "no")
}

/// Outlines that hold indoor features outside any building: `indoor=area|level`,
/// `building:part`, station areas (`public_transport=station`, `railway=station`).
fn is_fallback(tags: &Tags) -> bool {
    tags.has("building:part")
        || matches!(tags.get("indoor"), Some("area" | "level"))
        || tags.is("public_transport", "station")
        || tags.is("railway", "station")
}

/// Whether a node is read for the indoor layer.
pub fn node_wanted(tags: &Tags) -> bool {
    feature_kind(tags).is_some()
}

/// Whether a way is read for the indoor layer (features and building/level outlines).
pub fn way_wanted(tags: &Tags) -> bool {
    feature_kind(tags).is_some() || is_building(tags) || is_fallback(tags)
}

/// Whether a relation is read for the indoor layer.
pub fn relation_wanted(tags: &Tags) -> bool {
    feature_kind(tags).is_some()
        || is_building(tags)
        || is_fallback(tags)
        || tags.is("type", "building")
}

/// Parses `level`/`repeat_on` values into `(min, max)` ranges: `0`, `-1`, `1;2`, `0-3`,
/// `-2--1`, `0.5`. Unparseable parts are ignored.
pub fn parse_levels(v: &str) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for part in v.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        let part = part.replace(',', ".");
        if let Ok(x) = part.parse::<f64>() {
            out.push((x, x));
            continue;
        }
        // a range: find a '-' that is not a leading sign
        let bytes = part.as_bytes();
        let split = (1..bytes.len())
            .find(|&i| bytes[i] == b'-' && bytes[i - 1] != b'-' && bytes[i - 1] != b'e');
        if let Some(i) = split
            && let (Ok(a), Ok(b)) = (
                part[..i].trim().parse::<f64>(),
                part[i + 1..].trim().parse::<f64>(),
            )
        {
            out.push((a.min(b), a.max(b)));
        }
    }
    out
}

fn levels_of(tags: &Tags) -> Vec<(f64, f64)> {
    let mut v = Vec::new();
    for k in ["level", "repeat_on"] {
        if let Some(s) = tags.get(k) {
            v.extend(parse_levels(s));
        }
    }
    v
}

/// Distinct level values named by ranges (integer ranges expanded, at most 200 levels).
fn level_values(ranges: &[(f64, f64)]) -> Vec<f64> {
    let mut out = Vec::new();
    for &(a, b) in ranges {
        out.push(a);
        if b != a {
            if a.fract() == 0.0 && b.fract() == 0.0 && b - a <= 200.0 {
                let mut x = a + 1.0;
                while x < b {
                    out.push(x);
                    x += 1.0;
                }
            }
            out.push(b);
        }
    }
    out
}

fn level_json(l: f64) -> serde_json::Value {
    if l.fract() == 0.0 && l.abs() < 1e9 {
        serde_json::Value::from(l as i64)
    } else {
        serde_json::Value::from(l)
    }
}

/// Level value, name, ref and bbox of one venue level.
type LevelInfo = (f64, Option<String>, Option<String>, BBox);

struct Container {
    key: (&'static str, i64),
    venue_id: String,
    tags: Tags,
    area: MultiPolygon,
    bbox: BBox,
    size: f64,
    vertices: Vec<i64>,
}

struct Feature<'a> {
    osm_type: &'static str,
    osm_id: i64,
    kind: &'static str,
    tags: &'a Tags,
    ranges: Vec<(f64, f64)>,
    point: Pt,
    shape: serde_json::Value,
    bbox: BBox,
}

fn container_of(
    list: &[Container],
    f: &Feature<'_>,
    vertex: Option<&Vec<usize>>,
    largest: bool,
) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, c) in list.iter().enumerate() {
        if c.key == (f.osm_type, f.osm_id) {
            continue;
        }
        let inside = (c.bbox.contains(f.point) && c.area.contains(f.point))
            || vertex.is_some_and(|v| v.contains(&i));
        let better = |bc: &Container| {
            if largest {
                c.size > bc.size
            } else {
                c.size < bc.size
            }
        };
        if inside && best.is_none_or(|b| list.get(b).is_some_and(better)) {
            best = Some(i);
        }
    }
    best
}

/// Builds the indoor layer.
pub fn build(
    data: &OsmData,
    tx: &Transaction<'_>,
    stats: &mut OsmStats,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<(), OsmError> {
    // containers: buildings, then fallback outlines
    let mut buildings: Vec<Container> = Vec::new();
    let mut fallbacks: Vec<Container> = Vec::new();
    for w in data.ways.values() {
        let b = is_building(&w.tags);
        let f = is_fallback(&w.tags);
        if !(b || f) {
            continue;
        }
        let Some(area) = data.way_area(w) else {
            continue;
        };
        let Some(bbox) = area.bbox() else { continue };
        let c = Container {
            key: ("way", w.id),
            venue_id: format!("osm-way-{}", w.id),
            tags: w.tags.clone(),
            size: area.area(),
            area,
            bbox,
            vertices: w.refs.clone(),
        };
        if b {
            buildings.push(c)
        } else {
            fallbacks.push(c)
        }
    }
    for r in &data.relations {
        let b = is_building(&r.tags);
        if !(b || is_fallback(&r.tags)) {
            continue;
        }
        let Some(area) = data.relation_area(r, false) else {
            continue;
        };
        let Some(bbox) = area.bbox() else { continue };
        let vertices: Vec<i64> = r
            .members
            .iter()
            .filter(|m| m.kind == MemberKind::Way && m.role != "inner")
            .filter_map(|m| data.ways.get(&m.id))
            .flat_map(|w| w.refs.iter().copied())
            .collect();
        let c = Container {
            key: ("relation", r.id),
            venue_id: format!("osm-relation-{}", r.id),
            tags: r.tags.clone(),
            size: area.area(),
            area,
            bbox,
            vertices,
        };
        if b {
            buildings.push(c)
        } else {
            fallbacks.push(c)
        }
    }
    let mut vertex_of: HashMap<i64, Vec<usize>> = HashMap::new();
    for (i, c) in buildings.iter().enumerate() {
        for v in &c.vertices {
            vertex_of.entry(*v).or_default().push(i);
        }
    }
    progress("indoor:buildings", 1, 3);

    // features
    let mut features: Vec<Feature<'_>> = Vec::new();
    for n in &data.nodes {
        if let Some(kind) = feature_kind(&n.tags) {
            let p = Pt::new(n.lat, n.lng);
            features.push(Feature {
                osm_type: "node",
                osm_id: n.id,
                kind,
                tags: &n.tags,
                ranges: levels_of(&n.tags),
                point: p,
                shape: point_geojson(p),
                bbox: BBox::point(p),
            });
        }
    }
    for w in data.ways.values() {
        let Some(kind) = feature_kind(&w.tags) else {
            continue;
        };
        let pts = data.way_coords(&w.refs);
        let Some(bbox) = BBox::of(pts.iter().copied()) else {
            continue;
        };
        let Some(point) = data.way_point(w) else {
            continue;
        };
        let shape = match data.way_area(w) {
            Some(a) => a.to_geojson(),
            None => line_geojson(&pts),
        };
        features.push(Feature {
            osm_type: "way",
            osm_id: w.id,
            kind,
            tags: &w.tags,
            ranges: levels_of(&w.tags),
            point,
            shape,
            bbox,
        });
    }
    for r in &data.relations {
        let Some(kind) = feature_kind(&r.tags) else {
            continue;
        };
        let Some(point) = data.relation_point(r) else {
            continue;
        };
        let (shape, bbox) = match data.relation_area(r, false) {
            Some(a) => {
                let b = a.bbox().unwrap_or(BBox::point(point));
                (a.to_geojson(), b)
            }
            None => (point_geojson(point), BBox::point(point)),
        };
        features.push(Feature {
            osm_type: "relation",
            osm_id: r.id,
            kind,
            tags: &r.tags,
            ranges: levels_of(&r.tags),
            point,
            shape,
            bbox,
        });
    }

    // grouping: (is_building, index) -> features
    let mut groups: BTreeMap<(bool, usize), Vec<usize>> = BTreeMap::new();
    for (fi, f) in features.iter().enumerate() {
        let vertex = if f.osm_type == "node" {
            vertex_of.get(&f.osm_id)
        } else {
            None
        };
        let key = match container_of(&buildings, f, vertex, false) {
            Some(b) => Some((true, b)),
            None => container_of(&fallbacks, f, None, true).map(|c| (false, c)),
        };
        match key {
            Some(k) => groups.entry(k).or_default().push(fi),
            None => stats.indoor_dropped += 1,
        }
    }
    progress("indoor:grouping", 2, 3);

    let updated_at = match data
        .timestamp
        .and_then(|t| chrono::DateTime::from_timestamp(t, 0))
    {
        Some(t) => t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        None => chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let mut ins_v = tx.prepare(
        "INSERT OR REPLACE INTO indoor_venues(venue_id, name, west, south, east, north, levels, \
         buildings, languages, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    let mut ins_f = tx.prepare(
        "INSERT INTO indoor_features(venue_id, osm_type, osm_id, kind, level_min, level_max, name, \
         ref, category, building, properties, shape, lat, lng) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?;
    for ((is_b, ci), members) in &groups {
        let Some(c) = (if *is_b {
            buildings.get(*ci)
        } else {
            fallbacks.get(*ci)
        }) else {
            continue;
        };
        let real = members
            .iter()
            .filter_map(|i| features.get(*i))
            .any(|f| !matches!(f.kind, "door" | "entrance"));
        if !real {
            stats.indoor_dropped += members.len() as u64;
            continue;
        }
        let name = c
            .tags
            .get("name")
            .map(str::to_owned)
            .or_else(|| {
                let street = c.tags.get("addr:street")?;
                Some(match c.tags.get("addr:housenumber") {
                    Some(h) => format!("{street} {h}"),
                    None => street.to_owned(),
                })
            })
            .unwrap_or_else(|| c.venue_id.clone());
        let mut bbox = c.bbox;
        let mut langs: BTreeSet<String> = BTreeSet::from(["en".to_owned()]);
        langs.extend(c.tags.lang_names().map(|(l, _)| l.to_owned()));
        // level -> (name, ref, bbox)
        let mut levels: BTreeMap<i64, LevelInfo> = BTreeMap::new();
        for f in members.iter().filter_map(|i| features.get(*i)) {
            bbox = bbox.union(f.bbox);
            langs.extend(f.tags.lang_names().map(|(l, _)| l.to_owned()));
            for l in level_values(&f.ranges) {
                let key = (l * 1000.0).round() as i64;
                let e = levels.entry(key).or_insert((l, None, None, f.bbox));
                e.3 = e.3.union(f.bbox);
                if f.kind == "level" {
                    if e.1.is_none() {
                        e.1 = f
                            .tags
                            .get("level:name")
                            .or_else(|| f.tags.get("name"))
                            .map(str::to_owned);
                    }
                    if e.2.is_none() {
                        e.2 = f
                            .tags
                            .get("level:ref")
                            .or_else(|| f.tags.get("ref"))
                            .map(str::to_owned);
                    }
                }
            }
        }
        let levels_json: Vec<serde_json::Value> = levels
            .values()
            .map(|(l, n, r, b)| {
                serde_json::json!({
                    "level": level_json(*l),
                    "name": n,
                    "ref": r,
                    "bbox": b.to_wsen(),
                })
            })
            .collect();
        let buildings_json = serde_json::json!([{
            "ref": c.venue_id,
            "name": name,
            "levels": levels_json,
        }]);
        ins_v.execute(params![
            c.venue_id,
            name,
            bbox.west,
            bbox.south,
            bbox.east,
            bbox.north,
            serde_json::to_string(&levels_json)?,
            serde_json::to_string(&buildings_json)?,
            serde_json::to_string(&langs)?,
            updated_at,
        ])?;
        stats.indoor_venues += 1;
        for f in members.iter().filter_map(|i| features.get(*i)) {
            let lmin = f.ranges.iter().map(|r| r.0).reduce(f64::min);
            let lmax = f.ranges.iter().map(|r| r.1).reduce(f64::max);
            let category = ["room", "shop", "amenity"]
                .iter()
                .find_map(|k| f.tags.get(k));
            ins_f.execute(params![
                c.venue_id,
                f.osm_type,
                f.osm_id,
                f.kind,
                lmin,
                lmax,
                f.tags.get("name"),
                f.tags.get("ref"),
                category,
                c.venue_id,
                serde_json::to_string(&f.tags.to_json())?,
                serde_json::to_string(&f.shape)?,
                f.point.lat,
                f.point.lng,
            ])?;
            stats.indoor_features += 1;
        }
    }
    progress("indoor", 3, 3);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        assert_eq!(parse_levels("0"), vec![(0.0, 0.0)]);
        assert_eq!(parse_levels("-1"), vec![(-1.0, -1.0)]);
        assert_eq!(parse_levels("1;2"), vec![(1.0, 1.0), (2.0, 2.0)]);
        assert_eq!(parse_levels("0-3"), vec![(0.0, 3.0)]);
        assert_eq!(parse_levels("-2--1"), vec![(-2.0, -1.0)]);
        assert_eq!(parse_levels("0.5"), vec![(0.5, 0.5)]);
        assert_eq!(parse_levels("x"), vec![]);
        assert_eq!(level_values(&[(0.0, 3.0)]), vec![0.0, 1.0, 2.0, 3.0]);
    }
}
