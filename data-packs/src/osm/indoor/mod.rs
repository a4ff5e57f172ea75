//! Indoor layer: `indoor_venues` and `indoor_features` from OSM indoor tagging
//! (Simple Indoor Tagging).
//!
//! Rules:
//!
//! * **Features** ([`feature_kind`]): `highway=elevator` / `elevator=yes` / `indoor=elevator`
//!   → `elevator`; stairs (`stairs=yes`, `indoor=stairs`, or `highway=steps` carrying
//!   `level`/`repeat_on`/`indoor`) with `conveying=*` → `escalator`, else `stairs`;
//!   `indoor=ramp`, or `ramp=yes` with a level (not on steps) → `ramp`;
//!   `indoor=room|area|corridor|level` → that kind (other `indoor` values except `wall`/`no` →
//!   `area`; walls are skipped); `door=*` → `door`; `entrance=*` → `entrance`; a gate or
//!   turnstile (`barrier=gate|turnstile|…`, [`PASSAGE_BARRIERS`]) → `barrier`; a wall, fence or
//!   railing way with a level (`barrier=wall|fence|…`, [`WALL_BARRIERS`]) → `wall`; with a
//!   level and none of these: `highway=footway|corridor|pedestrian|path` → `footway`,
//!   `railway=platform`/`public_transport=platform` → `area`, a shop, amenity, office, tourism,
//!   craft or healthcare, or a named element that is not a track, road, waterway, power line,
//!   route or barrier → `poi`. Levels come from `level` plus
//!   `repeat_on` ([`waymark_core::indoor::levels::parse_levels`]: `0`, `-1`, `1;2`, `0-3`, `-2--1`, `0.5`); a
//!   venue with half-levels numbers its levels in order ([`LevelMap`]: the API's levels are
//!   integers, a half-level is one of its own); untagged features other than doors are on
//!   level 0 (doors take the levels of the areas whose outline has them).
//! * **Grouping**: a feature belongs to the smallest building (`building=*` way or
//!   multipolygon/`type=building` relation) whose outline contains its representative point,
//!   or, for nodes on an outline (entrances, doors), whose outline has it as a vertex.
//!   Outside buildings, the *largest* enclosing `indoor=area|level`, `building:part` or station
//!   area (`public_transport=station`, `railway=station`) other than the feature itself is the
//!   venue (underground stations, concourses). A container becomes a venue only when one of
//!   its features is walkable (room, corridor, area, level, stairs, escalator, elevator, ramp,
//!   footway): a building outline with shops or entrances only is not a venue. The others'
//!   features, and features outside every container, are counted in `indoor_dropped`.
//! * **Whole venues** ([`join`]): containers joined by an indoor walkway (`indoor=*` corridor,
//!   area, footway, ramp, stairs or escalator, `highway=corridor`, or one on a bridge or in a
//!   tunnel) that reaches into both on a level of their features are one venue, with the id
//!   of the largest and each container one of its buildings; a walkway of no container that
//!   joins two (a bridge) belongs to the venue. A joined venue is named after the station or
//!   mall one of its buildings holds, else as its largest container.
//! * **Venue**: `venue_id` `osm-way-<id>`/`osm-relation-<id>` of the container (stable across
//!   rebuilds of the same data); `name` (`venue_name`) its `name`, else the station or mall
//!   it holds or stands in, else its address, else its largest named walkable area, else the
//!   nearest station or mall within 300 m, else `Indoor venue (<first feature name>)` — never
//!   the OSM id; bbox the union of the outlines and their features; `levels` one
//!   `{level, name, ref, bbox}` per level seen (`name`/`ref` the venue's words for it:
//!   [`level_labels`] of the features on that level alone, the most common; a renumbered
//!   level's `ref` defaults to its OSM value); `buildings` one entry per container `{ref:
//!   its id, name, localized_name, description, opening_hours, logo, cover (image), levels,
//!   outline}`, the venue's own first; `languages` every `name:xx`
//!   seen plus `en`; `updated_at` the PBF replication timestamp, else the build time.
//! * **Feature columns**: `id` = OSM id × 4 + element type (stable,
//!   [`waymark_core::indoor::osm_feature_id`]); `category` the first of `shop`, `amenity`,
//!   `room` (not `yes`), `office`, `tourism`; `building` the id of the container it is in (the venue's for a bridge between two); `properties` every tag;
//!   `shape` GeoJSON (`Point` for nodes, `Polygon` for closed ways, `LineString` for open ones,
//!   the assembled area for relations); `lat`/`lng` a point inside. `properties` and `shape`
//!   are stored as zstd frames with a per-pack dictionary per column (pack format 5,
//!   [`waymark_core::packs::schema::IndoorText`]).
//! * **Graph**: not stored (pack format 6): the engine builds it from these features and the
//!   pack's foot-accessible road edges when it first reads the venue
//!   ([`waymark_core::indoor::venue_graph`]), in at most a few milliseconds.

mod compress;
mod join;
mod names;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rusqlite::{Transaction, params};
use waymark_core::geo::{BBox, MultiPolygon, Pt, line_geojson, point_geojson};
use waymark_core::indoor::levels::{LevelMap, feature_levels, value_text};
use waymark_core::indoor::osm_feature_id;

use super::models::{MemberKind, OsmData, OsmError, OsmStats, Tags};
use compress::compress_feature_text;
use names::{level_json, level_labels, venue_name};

/// `barrier` values that stand where people walk through (gates, turnstiles): kept as
/// `barrier` features so that routes honour their `access` and `wheelchair` tags.
const PASSAGE_BARRIERS: [&str; 8] = [
    "gate",
    "turnstile",
    "full-height_turnstile",
    "swing_gate",
    "sliding_gate",
    "lift_gate",
    "kissing_gate",
    "stile",
];

/// `barrier` values of lines people cannot cross (walls, fences, railings): such a way with a
/// level is a `wall` feature, which routes do not cross but at a door or gate on it.
pub const WALL_BARRIERS: [&str; 10] = [
    "wall",
    "fence",
    "handrail",
    "railing",
    "retaining_wall",
    "guard_rail",
    "hedge",
    "city_wall",
    "jersey_barrier",
    "cable_barrier",
];

fn indoor_value(tags: &Tags) -> Option<&str> {
    tags.get("indoor").filter(|v| !matches!(*v, "no" | "wall"))
}

fn has_level(tags: &Tags) -> bool {
    tags.has("level") || tags.has("repeat_on")
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
    let indoorish = has_level(tags) || indoor_value(tags).is_some();
    let stairs = tags.is("stairs", "yes")
        || tags.is("indoor", "stairs")
        || (tags.is("highway", "steps") && indoorish);
    if (stairs || tags.is("highway", "escalator"))
        && tags.get("conveying").is_some_and(|v| v != "no")
    {
        return Some("escalator");
    }
    if stairs {
        return Some("stairs");
    }
    if tags.is("indoor", "ramp")
        || (tags.is("ramp", "yes") && !tags.is("highway", "steps") && indoorish)
    {
        return Some("ramp");
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
    if tags
        .get("barrier")
        .is_some_and(|v| PASSAGE_BARRIERS.contains(&v))
    {
        return Some("barrier");
    }
    if has_level(tags)
        && tags
            .get("barrier")
            .is_some_and(|v| WALL_BARRIERS.contains(&v))
    {
        return Some("wall");
    }
    if has_level(tags) {
        if matches!(
            tags.get("highway"),
            Some("footway" | "corridor" | "pedestrian" | "path")
        ) {
            return Some("footway");
        }
        if tags.is("railway", "platform") || tags.is("public_transport", "platform") {
            return Some("area");
        }
        // Tracks, roads, lines and walls with a name and a level are not places to go to.
        let infrastructure = [
            "railway", "highway", "waterway", "power", "route", "barrier",
        ]
        .iter()
        .any(|k| tags.has(k));
        let place = [
            "shop",
            "amenity",
            "office",
            "tourism",
            "craft",
            "healthcare",
        ]
        .iter()
        .any(|k| tags.has(k));
        if (place || (tags.has("name") && !infrastructure)) && !is_building(tags) {
            return Some("poi");
        }
    }
    None
}

/// Kinds a route can walk on or through: a venue needs one of them.
fn is_walkable(kind: &str) -> bool {
    matches!(
        kind,
        "room"
            | "corridor"
            | "area"
            | "level"
            | "stairs"
            | "escalator"
            | "elevator"
            | "ramp"
            | "footway"
    )
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

/// How well a named station or mall names the venue it stands in (`None`: it does not).
fn namer_rank(tags: &Tags) -> Option<u8> {
    tags.get("name")?;
    if tags.is("public_transport", "station")
        || matches!(tags.get("railway"), Some("station" | "halt"))
        || tags.is("building", "train_station")
    {
        Some(0)
    } else if tags.is("shop", "mall") || tags.is("amenity", "marketplace") {
        Some(1)
    } else {
        None
    }
}

/// Whether a node is read for the indoor layer.
pub fn node_wanted(tags: &Tags) -> bool {
    feature_kind(tags).is_some() || namer_rank(tags).is_some()
}

/// Whether a way is read for the indoor layer (features and building/level outlines).
pub fn way_wanted(tags: &Tags) -> bool {
    feature_kind(tags).is_some()
        || is_building(tags)
        || is_fallback(tags)
        || namer_rank(tags).is_some()
}

/// Whether a relation is read for the indoor layer.
pub fn relation_wanted(tags: &Tags) -> bool {
    feature_kind(tags).is_some()
        || is_building(tags)
        || is_fallback(tags)
        || tags.is("type", "building")
        || namer_rank(tags).is_some()
}

/// The category of a feature: its `shop`, `amenity`, `room` (other than `yes`), `office` or
/// `tourism` value (first present).
fn category_of(tags: &Tags) -> Option<&str> {
    ["shop", "amenity", "room", "office", "tourism"]
        .iter()
        .filter_map(|k| tags.get(k))
        .find(|v| *v != "yes")
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
    /// OSM nodes of a way (the node itself for a node; none for a relation).
    refs: Vec<i64>,
    /// Coordinates of a way's nodes (the point of a node or relation).
    pts: Vec<Pt>,
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
    let mut namers: Vec<(Pt, String, u8)> = Vec::new();
    for n in &data.nodes {
        if let (Some(r), Some(name)) = (namer_rank(&n.tags), n.tags.get("name")) {
            namers.push((Pt::new(n.lat, n.lng), name.to_owned(), r));
        }
    }
    for w in data.ways.values() {
        if let (Some(r), Some(name), Some(p)) =
            (namer_rank(&w.tags), w.tags.get("name"), data.way_point(w))
        {
            namers.push((p, name.to_owned(), r));
        }
    }
    for rel in &data.relations {
        if let (Some(r), Some(name), Some(p)) = (
            namer_rank(&rel.tags),
            rel.tags.get("name"),
            data.relation_point(rel),
        ) {
            namers.push((p, name.to_owned(), r));
        }
    }
    namers.sort_by(|a, b| a.1.cmp(&b.1));
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
                ranges: feature_levels(|k| n.tags.get(k), kind),
                point: p,
                shape: point_geojson(p),
                bbox: BBox::point(p),
                refs: vec![n.id],
                pts: vec![p],
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
            ranges: feature_levels(|k| w.tags.get(k), kind),
            point,
            shape,
            bbox,
            refs: w.refs.clone(),
            pts,
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
            ranges: feature_levels(|k| r.tags.get(k), kind),
            point,
            shape,
            bbox,
            refs: Vec::new(),
            pts: vec![point],
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
        "INSERT OR REPLACE INTO indoor_features(id, venue_id, osm_type, osm_id, kind, level_min, \
         level_max, name, ref, category, building, properties, shape, lat, lng) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?;
    let container = |(is_b, ci): join::Key| {
        if is_b {
            buildings.get(ci)
        } else {
            fallbacks.get(ci)
        }
    };
    // Containers joined by indoor walkways are one venue, with the id of the largest.
    for members in join::whole_venues(&buildings, &fallbacks, &features, &groups) {
        let parts: Vec<(bool, &Container, Vec<&Feature<'_>>)> = members
            .iter()
            .filter_map(|(k, fs)| {
                container(*k)
                    .map(|c| (k.0, c, fs.iter().filter_map(|i| features.get(*i)).collect()))
            })
            .collect();
        let Some((_, c, _)) = parts.first() else {
            continue;
        };
        let c = *c;
        let feats: Vec<&Feature<'_>> = parts.iter().flat_map(|p| p.2.iter().copied()).collect();
        // Only walkable features make a venue (a building with shops on level 0 is not one).
        if !feats.iter().any(|f| is_walkable(f.kind)) {
            stats.indoor_dropped += feats.len() as u64;
            continue;
        }
        // A joined venue is known by the station or mall one of its buildings holds (the
        // shortest name of the best kind: "Farringdon", not one of its platforms' buildings).
        let held = parts
            .iter()
            .skip(usize::from(parts.len() == 1))
            .flat_map(|(_, pc, _)| {
                namers
                    .iter()
                    .filter(|(p, _, _)| pc.bbox.contains(*p) && pc.area.contains(*p))
            })
            .min_by_key(|(_, n, r)| (*r, n.chars().count(), n.clone()));
        let name = match held {
            Some((_, n, _)) if parts.len() > 1 => n.clone(),
            _ => venue_name(c, &feats, &namers),
        };
        let mut bbox = c.bbox;
        let mut langs: BTreeSet<String> = BTreeSet::from(["en".to_owned()]);
        for (_, pc, _) in &parts {
            bbox = bbox.union(pc.bbox);
            langs.extend(pc.tags.lang_names().map(|(l, _)| l.to_owned()));
        }
        // Half-levels are levels of their own: the venue's levels numbered in order.
        let map = LevelMap::new(feats.iter().flat_map(|f| f.ranges.iter()));
        // level -> (name, ref, bbox)
        let mut levels: BTreeMap<i64, LevelInfo> = BTreeMap::new();
        // level -> label -> how many features give it
        let mut names: BTreeMap<i64, BTreeMap<&str, usize>> = BTreeMap::new();
        let mut refs: BTreeMap<i64, BTreeMap<&str, usize>> = BTreeMap::new();
        for f in &feats {
            bbox = bbox.union(f.bbox);
            langs.extend(f.tags.lang_names().map(|(l, _)| l.to_owned()));
            let on = map.levels(&f.ranges);
            for l in &on {
                let e = levels.entry(*l).or_insert((*l as f64, None, None, f.bbox));
                e.3 = e.3.union(f.bbox);
            }
            // The venue's words for a level: a feature on one level says its name and ref.
            if let [l] = on[..] {
                for (label, found) in level_labels(f) {
                    let into = if label { &mut names } else { &mut refs };
                    *into.entry(l).or_default().entry(found).or_default() += 1;
                }
            }
        }
        let most = |m: Option<&BTreeMap<&str, usize>>| {
            m.and_then(|m| m.iter().max_by_key(|(k, n)| (**n, std::cmp::Reverse(**k))))
                .map(|(k, _)| (*k).to_owned())
        };
        // A renumbered venue's level without a `level:ref` is known by its OSM value.
        let values: BTreeMap<i64, f64> = map
            .values()
            .unwrap_or_default()
            .into_iter()
            .map(|(v, l)| (l, v))
            .collect();
        for (l, e) in levels.iter_mut() {
            e.1 = most(names.get(l));
            e.2 = most(refs.get(l)).or_else(|| values.get(l).map(|v| value_text(*v)));
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
        // One building per container: its own name (the venue's when it has none, or when it
        // is the venue's only one) and the levels of its own features.
        let mut buildings_json: Vec<serde_json::Value> = Vec::new();
        for (is_b, bc, bfeats) in &parts {
            let own: BTreeSet<i64> = bfeats.iter().flat_map(|f| map.levels(&f.ranges)).collect();
            let blevels: Vec<&serde_json::Value> = levels_json
                .iter()
                .zip(levels.keys())
                .filter(|(_, l)| own.contains(l))
                .map(|(j, _)| j)
                .collect();
            let bname = match parts.len() {
                1 => name.clone(),
                _ => bc
                    .tags
                    .get("name")
                    .map_or_else(|| name.clone(), str::to_owned),
            };
            let mut building_json = serde_json::json!({
                "ref": bc.venue_id,
                "name": bname,
                "levels": blevels,
            });
            let localized: BTreeMap<&str, &str> = bc.tags.lang_names().collect();
            for (key, tag) in [
                ("description", "description"),
                ("opening_hours", "opening_hours"),
                ("logo", "logo"),
                ("cover", "image"),
            ] {
                if let Some(v) = bc.tags.get(tag) {
                    building_json[key] = serde_json::json!(v);
                }
            }
            building_json["localized_name"] = serde_json::json!(localized);
            if *is_b {
                // The floor of a level where no area is mapped (read by the venue graph).
                building_json["outline"] = bc.area.to_geojson();
            }
            buildings_json.push(building_json);
        }
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
        for (f, building) in parts
            .iter()
            .flat_map(|(_, bc, fs)| fs.iter().map(|f| (*f, &bc.venue_id)))
        {
            let on = map.levels(&f.ranges);
            let lmin = on.first().map(|l| *l as f64);
            let lmax = on.last().map(|l| *l as f64);
            let category = category_of(f.tags);
            let tags = f.tags.to_json();
            ins_f.execute(params![
                osm_feature_id(f.osm_type, f.osm_id),
                c.venue_id,
                f.osm_type,
                f.osm_id,
                f.kind,
                lmin,
                lmax,
                f.tags.get("name"),
                f.tags.get("ref"),
                category,
                building,
                serde_json::to_string(&tags)?,
                serde_json::to_string(&f.shape)?,
                f.point.lat,
                f.point.lng,
            ])?;
            stats.indoor_features += 1;
        }
    }
    compress_feature_text(tx)?;
    progress("indoor", 3, 3);
    Ok(())
}
