//! Venue files: a venue owner's plan in an IMDF-like GeoJSON layout, added to a pack's indoor
//! layer (`waymark-packs add-venue`). The subset read is the contract in
//! `docs/indoor-venue-file.md`.
//!
//! One `FeatureCollection`; each feature has an `id` and a `feature_type` (at the top level, as
//! IMDF writes it, or in `properties`): one `venue`, then `building`, `level`, `unit`,
//! `opening`, `amenity`, `anchor` and `occupant` features. Units become rooms, corridors,
//! stairs, escalators, elevators and ramps on the ordinal of their level; openings doors at
//! their middle; amenities and occupants (at their anchor) POIs. Stairs, escalator, elevator
//! and ramp units of the same category stacked on several levels (the middle of one lies in
//! another's outline) are one connector between those levels in the walkable graph. The
//! venue's id is `imdf-<venue id>`; feature ids are derived from the file's ids (stable).
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use rusqlite::{Connection, params};
use serde_json::{Map, Value, json};
use waymark_core::geo::{BBox, MultiPolygon, Pt, point_geojson, polygon_rings};
use waymark_core::indoor::graph::{self, GraphFeature};
use waymark_core::indoor::is_poi;
use waymark_core::packs::PackSource;
use waymark_core::packs::schema::layers;

use crate::error::{BuildError, io};

/// What was added.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct VenueFileStats {
    /// The venue id.
    pub venue_id: String,
    /// Features written.
    pub features: u64,
    /// Features of the file skipped (unknown type, structure, no geometry).
    pub skipped: u64,
    /// Graph nodes and edges.
    pub graph_nodes: u64,
    /// Graph edges.
    pub graph_edges: u64,
}

fn bad(msg: impl Into<String>) -> BuildError {
    BuildError::Invalid(format!("venue file: {}", msg.into()))
}

/// The feature id of a file id: FNV-1a, 51 bits, × 4 + 3 (OSM ids use remainders 0 to 2).
pub fn file_feature_id(id: &str) -> i64 {
    let h = waymark_core::packs::search::fnv1a64(id) & ((1u64 << 51) - 1);
    (h as i64) * 4 + 3
}

/// `{"en": "…", "de": "…"}` or a string: the default name and the names by language.
fn label(v: Option<&Value>) -> (Option<String>, BTreeMap<String, String>) {
    match v {
        Some(Value::String(s)) => (Some(s.clone()), BTreeMap::new()),
        Some(Value::Object(m)) => {
            let langs: BTreeMap<String, String> = m
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect();
            let default = langs.get("en").or_else(|| langs.values().next()).cloned();
            (default, langs)
        }
        _ => (None, BTreeMap::new()),
    }
}

/// Kind of a unit category (`None`: not walkable and not a feature).
fn unit_kind(category: &str) -> Option<&'static str> {
    let c = category.split('.').next().unwrap_or(category);
    Some(match c {
        "walkway" | "lobby" | "platform" | "footbridge" | "unenclosedarea" | "movingwalkway"
        | "terrace" | "waitingroom" => "corridor",
        "stairs" | "steps" => "stairs",
        "elevator" => "elevator",
        "escalator" => "escalator",
        "ramp" => "ramp",
        "structure" | "column" | "opentobelow" | "nonpublic" | "brick" | "concrete" | "drywall"
        | "glass" | "wood" | "vegetation" | "fieldofplay" => return None,
        _ => "room",
    })
}

/// A level's name, short name (its `ref`) and outline bbox.
type LevelLabels = (Option<String>, Option<String>, Option<BBox>);

struct Item {
    id: String,
    ftype: String,
    props: Map<String, Value>,
    geometry: Value,
}

/// A feature to write.
struct Out {
    id: i64,
    kind: &'static str,
    level: i64,
    tags: Map<String, Value>,
    shape: Value,
    point: Pt,
    bbox: BBox,
}

fn geometry_point_bbox(g: &Value) -> Option<(Pt, BBox)> {
    match g.get("type")?.as_str()? {
        "Point" => {
            let c = g.get("coordinates")?.as_array()?;
            let p = Pt::new(c.get(1)?.as_f64()?, c.first()?.as_f64()?);
            Some((p, BBox::point(p)))
        }
        "LineString" => {
            let pts: Vec<Pt> = g
                .get("coordinates")?
                .as_array()?
                .iter()
                .map(|c| {
                    let c = c.as_array()?;
                    Some(Pt::new(c.get(1)?.as_f64()?, c.first()?.as_f64()?))
                })
                .collect::<Option<_>>()?;
            let b = BBox::of(pts.iter().copied())?;
            // the middle of the line
            let n = pts.len();
            let mid = if n % 2 == 1 {
                pts[n / 2]
            } else {
                let (a, c) = (pts[n / 2 - 1], pts[n / 2]);
                Pt::new((a.lat + c.lat) / 2.0, (a.lng + c.lng) / 2.0)
            };
            Some((mid, b))
        }
        "Polygon" => {
            let rings = polygon_rings(g.get("coordinates")?)?;
            let mut it = rings.into_iter();
            let outer = it.next()?;
            let mp = MultiPolygon::from_rings(vec![outer], it.collect());
            Some((mp.point_on_surface()?, mp.bbox()?))
        }
        _ => None,
    }
}

/// Reads a venue file and writes its venue into `conn` (replacing a previous import of the
/// same venue).
pub fn import(
    conn: &mut Connection,
    file: &Path,
    updated_at: &str,
) -> Result<(VenueFileStats, String), BuildError> {
    let text = std::fs::read_to_string(file).map_err(|e| io(file, e))?;
    let doc: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    if doc.get("type").and_then(Value::as_str) != Some("FeatureCollection") {
        return Err(bad("the file must be a GeoJSON FeatureCollection"));
    }
    let items: Vec<Item> = doc
        .get("features")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("`features` is missing"))?
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let props = f
                .get("properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let ftype = f
                .get("feature_type")
                .or_else(|| props.get("feature_type"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            let id = match f.get("id") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => format!("feature-{i}"),
            };
            Item {
                id,
                ftype,
                props,
                geometry: f.get("geometry").cloned().unwrap_or(Value::Null),
            }
        })
        .collect();
    let mut stats = VenueFileStats::default();
    let venues: Vec<&Item> = items.iter().filter(|i| i.ftype == "venue").collect();
    let [venue] = venues.as_slice() else {
        return Err(bad(format!(
            "a venue file holds exactly one `venue` feature, found {}",
            venues.len()
        )));
    };
    let venue_id = format!("imdf-{}", venue.id);
    stats.venue_id = venue_id.clone();
    let (venue_name, venue_names) = label(venue.props.get("name"));
    let venue_name = venue_name.ok_or_else(|| bad("the venue has no `name`"))?;
    let attribution = venue
        .props
        .get("attribution")
        .and_then(Value::as_str)
        .unwrap_or("Venue plan by its owner")
        .to_owned();

    // Levels: id -> ordinal.
    let mut level_of: HashMap<&str, i64> = HashMap::new();
    let mut level_info: BTreeMap<i64, LevelLabels> = BTreeMap::new();
    let mut level_buildings: HashMap<&str, Vec<String>> = HashMap::new();
    for l in items.iter().filter(|i| i.ftype == "level") {
        let Some(ord) = l.props.get("ordinal").and_then(Value::as_f64) else {
            return Err(bad(format!("level `{}` has no integer `ordinal`", l.id)));
        };
        let ord = ord.round() as i64;
        level_of.insert(&l.id, ord);
        let e = level_info.entry(ord).or_insert((None, None, None));
        e.0 = e.0.take().or(label(l.props.get("name")).0);
        e.1 = e.1.take().or(label(l.props.get("short_name")).0);
        if let Some((_, b)) = geometry_point_bbox(&l.geometry) {
            e.2 = Some(e.2.map_or(b, |x| x.union(b)));
        }
        let bids: Vec<String> = l
            .props
            .get("building_ids")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        level_buildings.insert(&l.id, bids);
    }
    let level_ref = |props: &Map<String, Value>| -> Option<i64> {
        props
            .get("level_id")
            .and_then(Value::as_str)
            .and_then(|l| level_of.get(l).copied())
    };

    // Units.
    let mut outs: Vec<Out> = Vec::new();
    let mut unit_level: HashMap<&str, i64> = HashMap::new();
    let mut unit_building: HashMap<&str, String> = HashMap::new();
    let tags_of = |it: &Item, category: Option<&str>, key: &str| -> Map<String, Value> {
        let mut t = Map::new();
        for (k, v) in &it.props {
            match k.as_str() {
                "name" | "alt_name" | "short_name" => {
                    let (d, langs) = label(Some(v));
                    if let Some(d) = d {
                        t.insert(k.clone(), json!(d));
                    }
                    for (l, n) in langs {
                        t.insert(format!("{k}:{l}"), json!(n));
                    }
                }
                "level_id" | "unit_ids" | "anchor_id" | "unit_id" | "display_point"
                | "feature_type" | "category" => {}
                _ => {
                    if !v.is_null() {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        if let Some(c) = category {
            t.insert(key.to_owned(), json!(c));
        }
        // IMDF's `restriction` (`employeesonly`, `restricted`): closed to routes.
        if it.props.get("restriction").is_some_and(|v| !v.is_null()) && !t.contains_key("access") {
            t.insert("access".into(), json!("private"));
        }
        t.insert("imdf:id".into(), json!(it.id));
        t
    };
    for u in items.iter().filter(|i| i.ftype == "unit") {
        let category = u
            .props
            .get("category")
            .and_then(Value::as_str)
            .unwrap_or("unspecified");
        let (Some(kind), Some(level)) = (unit_kind(category), level_ref(&u.props)) else {
            stats.skipped += 1;
            continue;
        };
        let Some((point, bbox)) = geometry_point_bbox(&u.geometry) else {
            stats.skipped += 1;
            continue;
        };
        unit_level.insert(&u.id, level);
        if let Some(b) = u
            .props
            .get("level_id")
            .and_then(Value::as_str)
            .and_then(|l| level_buildings.get(l))
            .and_then(|b| b.first())
        {
            unit_building.insert(&u.id, b.clone());
        }
        let key = if kind == "room" {
            "room"
        } else {
            "indoor:category"
        };
        outs.push(Out {
            id: file_feature_id(&u.id),
            kind,
            level,
            tags: tags_of(u, Some(category), key),
            shape: u.geometry.clone(),
            point,
            bbox,
        });
    }
    // Openings, amenities, occupants at anchors.
    let anchors: HashMap<&str, &Item> = items
        .iter()
        .filter(|i| i.ftype == "anchor")
        .map(|i| (i.id.as_str(), i))
        .collect();
    for it in &items {
        let (kind, geometry, level) = match it.ftype.as_str() {
            "opening" => ("door", &it.geometry, level_ref(&it.props)),
            "amenity" => {
                let level = level_ref(&it.props).or_else(|| {
                    it.props
                        .get("unit_ids")
                        .and_then(Value::as_array)
                        .and_then(|a| a.first())
                        .and_then(Value::as_str)
                        .and_then(|u| unit_level.get(u).copied())
                });
                ("poi", &it.geometry, level)
            }
            "occupant" => {
                let Some(a) = it
                    .props
                    .get("anchor_id")
                    .and_then(Value::as_str)
                    .and_then(|a| anchors.get(a))
                else {
                    stats.skipped += 1;
                    continue;
                };
                let level = a
                    .props
                    .get("unit_id")
                    .and_then(Value::as_str)
                    .and_then(|u| unit_level.get(u).copied());
                ("poi", &a.geometry, level)
            }
            "venue" | "building" | "level" | "unit" | "anchor" => continue,
            _ => {
                stats.skipped += 1;
                continue;
            }
        };
        let (Some(level), Some((point, bbox))) = (level, geometry_point_bbox(geometry)) else {
            stats.skipped += 1;
            continue;
        };
        let category = it.props.get("category").and_then(Value::as_str);
        let key = if kind == "door" { "door" } else { "amenity" };
        let shape = if kind == "door" {
            point_geojson(point)
        } else {
            geometry.clone()
        };
        outs.push(Out {
            id: file_feature_id(&it.id),
            kind,
            level,
            tags: tags_of(it, category.or(Some("yes")), key),
            shape,
            point,
            bbox,
        });
    }

    // Venue row.
    let mut bbox = geometry_point_bbox(&venue.geometry).map(|(_, b)| b);
    for o in &outs {
        bbox = Some(bbox.map_or(o.bbox, |b| b.union(o.bbox)));
    }
    let bbox = bbox.ok_or_else(|| bad("the venue has no geometry and no features"))?;
    let mut per_level: BTreeMap<i64, BBox> = BTreeMap::new();
    for o in &outs {
        per_level
            .entry(o.level)
            .and_modify(|b| *b = b.union(o.bbox))
            .or_insert(o.bbox);
    }
    let level_json = |ord: i64, b: BBox| {
        let (name, short, lb) = level_info.get(&ord).cloned().unwrap_or((None, None, None));
        json!({"level": ord, "name": name, "ref": short, "bbox": lb.unwrap_or(b).to_wsen()})
    };
    let levels: Vec<Value> = per_level.iter().map(|(o, b)| level_json(*o, *b)).collect();
    let mut buildings: Vec<Value> = Vec::new();
    for b in items.iter().filter(|i| i.ftype == "building") {
        let (name, names) = label(b.props.get("name"));
        let own: BTreeSet<i64> = items
            .iter()
            .filter(|l| l.ftype == "level")
            .filter(|l| {
                level_buildings
                    .get(l.id.as_str())
                    .is_some_and(|v| v.contains(&b.id))
            })
            .filter_map(|l| level_of.get(l.id.as_str()).copied())
            .collect();
        let blevels: Vec<Value> = per_level
            .iter()
            .filter(|(o, _)| own.contains(o))
            .map(|(o, bb)| level_json(*o, *bb))
            .collect();
        let mut bj = json!({"ref": b.id, "name": name, "localized_name": names, "levels": blevels});
        for k in ["description", "opening_hours", "logo", "cover"] {
            if let Some(v) = b.props.get(k).filter(|v| !v.is_null()) {
                bj[k] = match k {
                    "description" => json!(label(Some(v)).0),
                    _ => v.clone(),
                };
            }
        }
        buildings.push(bj);
    }
    let mut langs: BTreeSet<String> = BTreeSet::from(["en".to_owned()]);
    langs.extend(venue_names.keys().cloned());
    for o in &outs {
        for k in o.tags.keys() {
            if let Some(l) = k.strip_prefix("name:") {
                langs.insert(l.to_owned());
            }
        }
    }
    let building_of = |o: &Out| -> Option<String> {
        let uid = o.tags.get("imdf:id").and_then(Value::as_str)?;
        unit_building.get(uid).cloned().or_else(|| {
            // points take the building of the level they are on
            level_buildings
                .iter()
                .find(|(l, _)| level_of.get(*l) == Some(&o.level))
                .and_then(|(_, b)| b.first().cloned())
        })
    };

    let tx = conn.transaction()?;
    tx.execute(
        "DELETE FROM indoor_features WHERE venue_id = ?1",
        [&venue_id],
    )?;
    tx.execute("DELETE FROM indoor_graphs WHERE venue_id = ?1", [&venue_id])?;
    tx.execute(
        "INSERT OR REPLACE INTO indoor_venues(venue_id, name, west, south, east, north, levels, \
         buildings, languages, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            venue_id,
            venue_name,
            bbox.west,
            bbox.south,
            bbox.east,
            bbox.north,
            serde_json::to_string(&levels).map_err(|e| bad(e.to_string()))?,
            serde_json::to_string(&buildings).map_err(|e| bad(e.to_string()))?,
            serde_json::to_string(&langs).map_err(|e| bad(e.to_string()))?,
            updated_at,
        ],
    )?;
    {
        let mut ins = tx.prepare(
            "INSERT OR REPLACE INTO indoor_features(id, venue_id, osm_type, osm_id, kind, \
             level_min, level_max, name, ref, category, building, properties, shape, lat, lng) \
             VALUES (?1, ?2, 'imdf', 0, ?3, ?4, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?;
        for o in &outs {
            let s = |k: &str| o.tags.get(k).and_then(Value::as_str).map(str::to_owned);
            let category = ["amenity", "room"]
                .iter()
                .find_map(|k| s(k))
                .filter(|c| !matches!(c.as_str(), "yes" | "unspecified" | "room"));
            ins.execute(params![
                o.id,
                venue_id,
                o.kind,
                o.level as f64,
                s("name"),
                s("ref").or_else(|| s("alt_name")),
                category,
                building_of(o),
                serde_json::to_string(&o.tags).map_err(|e| bad(e.to_string()))?,
                serde_json::to_string(&o.shape).map_err(|e| bad(e.to_string()))?,
                o.point.lat,
                o.point.lng,
            ])?;
            stats.features += 1;
        }
    }
    // The graph: every feature on its level, plus one connector per stack of units.
    let empty = Map::new();
    let mut inputs: Vec<GraphFeature<'_>> = outs
        .iter()
        .map(|o| {
            let s = |k: &str| o.tags.get(k).and_then(Value::as_str);
            GraphFeature {
                id: o.id,
                kind: o.kind,
                levels: vec![o.level],
                properties: &o.tags,
                shape: &o.shape,
                point: o.point,
                poi: is_poi(o.kind, s("name"), s("ref"), s("amenity").or(s("room"))),
            }
        })
        .collect();
    let connectors: Vec<&Out> = outs
        .iter()
        .filter(|o| matches!(o.kind, "stairs" | "escalator" | "elevator" | "ramp"))
        .collect();
    let mut seen: BTreeSet<usize> = BTreeSet::new();
    let null = Value::Null;
    for (i, a) in connectors.iter().enumerate() {
        if seen.contains(&i) {
            continue;
        }
        let mut levels = vec![a.level];
        for (j, b) in connectors.iter().enumerate().skip(i + 1) {
            if b.kind == a.kind && b.level != a.level && b.bbox.contains(a.point) {
                seen.insert(j);
                levels.push(b.level);
            }
        }
        if levels.len() > 1 {
            levels.sort_unstable();
            levels.dedup();
            inputs.push(GraphFeature {
                id: a.id,
                kind: a.kind,
                levels,
                properties: &empty,
                shape: &null,
                point: a.point,
                poi: false,
            });
        }
    }
    let g = graph::build(&inputs);
    stats.graph_nodes = g.nodes.len() as u64;
    stats.graph_edges = g.edges.len() as u64;
    if !g.edges.is_empty() {
        let bytes = g.to_bytes().map_err(|e| bad(format!("graph: {e}")))?;
        tx.execute(
            "INSERT OR REPLACE INTO indoor_graphs(venue_id, version, profiles, graph) \
             VALUES (?1, ?2, ?3, ?4)",
            params![
                venue_id,
                graph::GRAPH_VERSION,
                serde_json::to_string(&g.profiles).map_err(|e| bad(e.to_string()))?,
                bytes
            ],
        )?;
    }
    tx.commit()?;
    Ok((stats, attribution))
}

/// Adds the venue file `file` to the built pack in `dir`: imports it into `data.sqlite`,
/// records the indoor layer and the file as a source, and rewrites the (unsigned) manifest.
/// Sign the pack again afterwards ([`crate::build::sign_pack`]).
pub fn add_to_pack(dir: &Path, file: &Path) -> Result<VenueFileStats, BuildError> {
    let db = dir.join("data.sqlite");
    let mut conn = Connection::open(&db)?;
    waymark_core::packs::schema::create_all(&conn)?;
    // The venue's own `updated_at` (a file's modification time changes with every checkout).
    let stated = std::fs::read(file)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| {
            v["features"].as_array()?.iter().find_map(|f| {
                (f["feature_type"] == "venue")
                    .then(|| f["properties"]["updated_at"].as_str())
                    .flatten()
                    .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            })
        })
        .map(|t| t.with_timezone(&chrono::Utc));
    let updated_at = stated
        .or_else(|| {
            std::fs::metadata(file)
                .and_then(|m| m.modified())
                .map(chrono::DateTime::<chrono::Utc>::from)
                .ok()
        })
        .unwrap_or_else(chrono::Utc::now)
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let (stats, attribution) = import(&mut conn, file, &updated_at)?;
    let (sha, _) = waymark_core::packs::install::sha256_file(file).map_err(|e| io(file, e))?;
    let source = PackSource {
        id: format!("venue-file:{}", stats.venue_id),
        licence: "LicenseRef-venue-owner".to_owned(),
        attribution,
        version: Some(updated_at),
        sha256: Some(sha),
        notes: file.file_name().map(|n| n.to_string_lossy().into_owned()),
        layers: vec![layers::INDOOR.to_owned()],
    };
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('layer:indoor', 'done')",
        [],
    )?;
    drop(conn);
    crate::build::record_extra_source(dir, source, layers::INDOOR)?;
    Ok(stats)
}
