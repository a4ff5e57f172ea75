//! The indoor group: venue description, POI search and step-free indoor directions, over the
//! indoor layer of the installed packs (`indoor_venues`, `indoor_features`, `indoor_graphs`).
//!
//! **Data flow.** The first request for a venue finds the pack that holds it, reads its row,
//! its features and builds its walkable graph ([`graph`], [`venue_graph`]; a venue file's
//! graph is stored) and
//! indexes the features' words in memory ([`search`]); the venue stays loaded for the pack set
//! (a new set, after an install, starts afresh).
//!
//! * **Venue** ([`Indoor::venue`]): the stored row, with `routing_profiles` the profiles the
//!   graph can route between levels and `categories` the categories of its features.
//! * **POI search** ([`Indoor::search`]): `q` through the index (typos tolerated), else every
//!   feature alphabetically; then the filters (`level`, `building`, `category`, `ref`, `id`,
//!   `advanced_filter` ([`filter`])), `from_location` distances along the graph, pages.
//! * **Directions** ([`Indoor::directions`]): each point anchored on the graph (a POI's node,
//!   or the nodes a `lat,lng,level` point sees inside its area), one quickest path per leg for
//!   the profile (`mode`), avoiding the `avoid_in` boxes, cut into steps at turns, area changes
//!   and level changes, with instructions ([`text`]).
//!
//! Features are POIs when they have a name, a ref or a category and are not a level outline
//! ([`is_poi`]); the others (corridors, doors, walls of rooms without a name) are listed by
//! POI search only with `extended=full`.
mod directions;
pub mod filter;
pub mod graph;
pub mod levels;
mod list;
pub mod outdoor;
pub mod search;
pub mod text;

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use parking_lot::RwLock;
use rusqlite::{Connection, OptionalExtension};
use serde_json::{Map, Value, json};

use crate::api::{
    FieldError, IndoorDirectionsRequest, IndoorDirectionsResponse, IndoorFeature,
    IndoorInstruction, IndoorLatLng, IndoorLeg, IndoorPagination, IndoorPoint, IndoorRoute,
    IndoorStep, JsonObject, JsonValue, Loc, NumberTextValue, PoiSearchExtended, PoiSearchRequest,
    PoiSearchResponse, Units, Venue, VenueGetRequest, VenueLevel, kinds,
};
use crate::distance::RoutingCache;
use crate::error::{ApiError, ErrorCode};
use crate::geo::{Pt, bearing_deg, haversine_m, round7, turn_angle};
use crate::operation::Call;
use crate::packs::PackSet;
use crate::packs::registry::{LoadedPack, PackSetCache};
use crate::packs::schema::layers;

use graph::{Anchor, AvoidBox, EdgeKind, Graph, Path, Profile, Ride, Seg};
use search::PoiIndex;
use text::{Lang, LevelName, Say, Toward, Via};

/// Whether a feature is a POI (searchable, a possible destination).
pub fn is_poi(
    kind: &str,
    name: Option<&str>,
    reference: Option<&str>,
    category: Option<&str>,
) -> bool {
    !matches!(kind, "level" | "wall")
        && (name.is_some() || reference.is_some() || category.is_some())
}

/// The id of an OSM element as a venue feature: stable across rebuilds.
pub fn osm_feature_id(osm_type: &str, osm_id: i64) -> i64 {
    let t = match osm_type {
        "node" => 0,
        "way" => 1,
        "relation" => 2,
        _ => 3,
    };
    osm_id.saturating_mul(4).saturating_add(t)
}

/// A venue feature as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct FeatureRow {
    /// Id (POI id).
    pub id: i64,
    /// Kind.
    pub kind: String,
    /// Lowest level.
    pub level_min: Option<f64>,
    /// Highest level.
    pub level_max: Option<f64>,
    /// `name`.
    pub name: Option<String>,
    /// `ref`.
    pub reference: Option<String>,
    /// Category.
    pub category: Option<String>,
    /// Building ref.
    pub building: Option<String>,
    /// Tags.
    pub tags: Map<String, Value>,
    /// GeoJSON geometry.
    pub shape: Value,
    /// A point inside.
    pub pt: Pt,
}

impl FeatureRow {
    fn poi(&self) -> bool {
        is_poi(
            &self.kind,
            self.name.as_deref(),
            self.reference.as_deref(),
            self.category.as_deref(),
        )
    }

    /// The name in `lang` (`name:<lang>`), else `name`.
    pub fn name_in(&self, lang: &str) -> Option<&str> {
        self.tags
            .get(&format!("name:{lang}"))
            .and_then(Value::as_str)
            .or(self.name.as_deref())
    }

    fn on_level(&self, level: i64) -> bool {
        match (self.level_min, self.level_max) {
            (Some(lo), Some(hi)) => (lo.round() as i64) <= level && level <= (hi.round() as i64),
            _ => false,
        }
    }

    /// Its properties in answers: the tags, with `name` in the language and the columns.
    fn properties(&self, lang: &str) -> Map<String, Value> {
        let mut p = self.tags.clone();
        if let Some(n) = self.name_in(lang) {
            p.insert("name".into(), json!(n));
        }
        p.insert("kind".into(), json!(self.kind));
        if let Some(lo) = self.level_min {
            p.insert("level".into(), json!(lo.round() as i64));
        }
        if let (Some(lo), Some(hi)) = (self.level_min, self.level_max)
            && hi != lo
        {
            p.insert("level_max".into(), json!(hi.round() as i64));
        }
        for (k, v) in [
            ("category", &self.category),
            ("ref", &self.reference),
            ("building", &self.building),
        ] {
            if let Some(v) = v {
                p.insert(k.into(), json!(v));
            }
        }
        p
    }

    /// The words POI search finds it by.
    fn words(&self) -> String {
        let mut w: Vec<&str> = Vec::new();
        for (k, v) in &self.tags {
            let wanted = k == "name"
                || k.starts_with("name:")
                || k == "alt_name"
                || k == "official_name"
                || k == "description"
                || k == "ref"
                || k == "brand"
                || k == "shop"
                || k == "amenity";
            if wanted && let Some(s) = v.as_str() {
                w.push(s);
            }
        }
        if let Some(c) = &self.category {
            w.push(c);
        }
        w.join(" ").replace(['_', ';'], " ")
    }
}

/// A venue loaded for queries.
#[derive(Debug)]
pub struct VenueData {
    /// The stored venue (profiles and categories filled in).
    pub venue: Venue,
    /// Features, by id order.
    pub features: Vec<FeatureRow>,
    by_id: HashMap<i64, usize>,
    /// The walkable graph, when the pack has one for the venue.
    pub graph: Option<Graph>,
    /// The words index.
    pub index: PoiIndex,
    /// Attribution of the pack's indoor sources.
    pub attribution: String,
}

/// The indoor layer of a pack set: which pack holds which venue, and the venues read so far.
#[derive(Debug, Default)]
pub struct IndoorLayer {
    venues: HashMap<String, Arc<LoadedPack>>,
    /// Every venue's row as listed, by id.
    listed: Vec<list::Listed>,
    loaded: RwLock<HashMap<String, Arc<VenueData>>>,
}

fn unreadable(pack: &str, e: &dyn std::fmt::Display) -> ApiError {
    tracing::error!(pack, error = %e, "indoor layer unreadable");
    ApiError::new(
        ErrorCode::DataUnavailable,
        format!("the indoor layer of pack `{pack}` cannot be read"),
    )
}

impl IndoorLayer {
    /// Lists the venues of every pack with the indoor layer.
    pub fn load(set: &PackSet) -> Result<IndoorLayer, ApiError> {
        let mut venues = HashMap::new();
        let mut listed = Vec::new();
        for pack in set.with_layer(layers::INDOOR) {
            let conn = pack.sqlite().map_err(|e| unreadable(pack.id(), &e))?;
            let rows = (|| -> rusqlite::Result<Vec<list::Listed>> {
                let mut st = conn.prepare(
                    "SELECT venue_id, name, west, south, east, north, levels, buildings \
                     FROM indoor_venues ORDER BY venue_id",
                )?;
                let rows = st.query_map([], list::Listed::from_row)?;
                rows.collect()
            })()
            .map_err(|e| unreadable(pack.id(), &e))?;
            for v in rows {
                if !venues.contains_key(&v.summary.venue_id) {
                    venues.insert(v.summary.venue_id.clone(), pack.clone());
                    listed.push(v);
                }
            }
        }
        Ok(IndoorLayer {
            venues,
            listed,
            loaded: RwLock::new(HashMap::new()),
        })
    }

    /// Every venue's row as listed.
    pub fn listed(&self) -> &[list::Listed] {
        &self.listed
    }

    /// Ids of the venues, sorted.
    pub fn venue_ids(&self) -> Vec<String> {
        let mut v: Vec<String> = self.venues.keys().cloned().collect();
        v.sort();
        v
    }

    /// The venue `id`, read on first use; 404 when no pack has it.
    pub fn venue(&self, id: &str) -> Result<Arc<VenueData>, ApiError> {
        if let Some(v) = self.loaded.read().get(id) {
            return Ok(v.clone());
        }
        let Some(pack) = self.venues.get(id) else {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!("no venue `{id}` in the installed packs"),
            ));
        };
        let conn = pack.sqlite().map_err(|e| unreadable(pack.id(), &e))?;
        let mut data = read_venue(&conn, id).map_err(|e| unreadable(pack.id(), &e))?;
        data.attribution = indoor_attribution(pack);
        let data = Arc::new(data);
        self.loaded.write().insert(id.to_owned(), data.clone());
        Ok(data)
    }
}

/// The attribution of a pack's indoor sources.
fn indoor_attribution(pack: &LoadedPack) -> String {
    pack.manifest
        .sources
        .iter()
        .filter(|s| s.layers.iter().any(|l| l == layers::INDOOR))
        .map(|s| s.attribution.clone())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why a venue cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// SQLite.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Stored JSON.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    /// The graph blob.
    #[error("graph: {0}")]
    Graph(String),
    /// A compressed `properties` or `shape` (pack format 5).
    #[error("feature text: {0}")]
    Text(#[from] std::io::Error),
    /// tantivy.
    #[error("index: {0}")]
    Index(#[from] tantivy::TantivyError),
}

/// Levels as stored (`level` may be fractional in old packs): rounded.
fn read_levels(v: &Value) -> Vec<VenueLevel> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|l| {
                    Some(VenueLevel {
                        level: l.get("level")?.as_f64()?.round() as i64,
                        name: l.get("name").and_then(Value::as_str).map(str::to_owned),
                        reference: l.get("ref").and_then(Value::as_str).map(str::to_owned),
                        bbox: l
                            .get("bbox")?
                            .as_array()?
                            .iter()
                            .filter_map(Value::as_f64)
                            .collect(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Reads venue `id` from a pack's database.
pub fn read_venue(conn: &Connection, id: &str) -> Result<VenueData, ReadError> {
    let row = conn.query_row(
        "SELECT name, west, south, east, north, levels, buildings, languages, updated_at \
         FROM indoor_venues WHERE venue_id = ?1",
        [id],
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                [
                    r.get::<_, f64>(1)?,
                    r.get::<_, f64>(2)?,
                    r.get::<_, f64>(3)?,
                    r.get::<_, f64>(4)?,
                ],
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, String>(7)?,
                r.get::<_, String>(8)?,
            ))
        },
    )?;
    let (name, bbox, levels, buildings, languages, updated_at) = row;
    let levels = read_levels(&serde_json::from_str(&levels)?);
    let buildings: Vec<Value> = serde_json::from_str(&buildings)?;
    // The outline of each building (stored since the builder reads building floors).
    let outlines: Vec<Value> = buildings
        .iter()
        .filter_map(|b| b.get("outline").cloned())
        .collect();
    let buildings = buildings
        .into_iter()
        .filter_map(|mut b| {
            let levels = read_levels(b.get("levels").unwrap_or(&Value::Null));
            if let Some(o) = b.as_object_mut() {
                o.insert("levels".into(), json!([]));
            }
            let mut b: crate::api::Building = serde_json::from_value(b).ok()?;
            b.levels = levels;
            Some(b)
        })
        .collect();
    let languages: Vec<String> = serde_json::from_str(&languages)?;
    let updated_at = chrono::DateTime::parse_from_rfc3339(&updated_at)
        .map(|t| t.with_timezone(&chrono::Utc))
        .unwrap_or_default();

    let mut features = Vec::new();
    {
        let mut st = conn.prepare(
            "SELECT id, kind, level_min, level_max, name, ref, category, building, properties, \
             shape, lat, lng FROM indoor_features WHERE venue_id = ?1 ORDER BY id",
        )?;
        let text = crate::packs::schema::IndoorText::load(conn)?;
        let mut rows = st.query([id])?;
        while let Some(r) = rows.next()? {
            let tags: Value = serde_json::from_str(&text.properties(r.get_ref(8)?)?)?;
            features.push(FeatureRow {
                id: r.get(0)?,
                kind: r.get(1)?,
                level_min: r.get(2)?,
                level_max: r.get(3)?,
                name: r.get(4)?,
                reference: r.get(5)?,
                category: r.get(6)?,
                building: r.get(7)?,
                tags: tags.as_object().cloned().unwrap_or_default(),
                shape: serde_json::from_str(&text.shape(r.get_ref(9)?)?)?,
                pt: Pt::new(r.get(10)?, r.get(11)?),
            });
        }
    }
    // A venue file's graph is stored (its connectors are not features); an OSM venue's is
    // built from its features (pack format 6).
    let stored: Option<(i64, Vec<u8>)> = if crate::packs::schema::has_table(conn, "indoor_graphs")?
    {
        conn.query_row(
            "SELECT version, graph FROM indoor_graphs WHERE venue_id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?
    } else {
        None
    };
    let graph = match stored {
        // A version this build does not know leaves the venue without routing.
        Some((v, bytes)) if (1..=i64::from(graph::GRAPH_VERSION)).contains(&v) => {
            Some(Graph::from_bytes(v, &bytes).map_err(|e| ReadError::Graph(e.to_string()))?)
        }
        Some(_) => None,
        None => venue_graph(conn, bbox, &features, &outlines)?,
    };
    let by_id = features
        .iter()
        .enumerate()
        .map(|(i, f)| (f.id, i))
        .collect();
    let index = PoiIndex::build(features.iter().map(|f| (f.id, f.words())))?;
    let categories: BTreeSet<String> = features.iter().filter_map(|f| f.category.clone()).collect();
    let venue = Venue {
        venue_id: id.to_owned(),
        name,
        bbox: bbox.to_vec(),
        levels,
        routing_profiles: graph
            .as_ref()
            .map(|g| g.profiles.clone())
            .unwrap_or_default(),
        categories: categories.into_iter().collect(),
        buildings,
        languages,
        updated_at,
    };
    Ok(VenueData {
        venue,
        features,
        by_id,
        graph,
        index,
        attribution: String::new(),
    })
}

/// How far around a venue the outdoor walking network joins its graph, m.
const OUTDOOR_M: f64 = 40.0;

/// The walkable graph of an OSM venue ([`graph::build`]), built when the venue is first read
/// (pack format 6 stores none: München's graphs were 0.27 MB, a build takes at most 8 ms):
/// every feature on every level its `level`/`repeat_on` tags name (numbered as the pack
/// builder numbers the venue's levels: [`levels::LevelMap`]), in the order the pack
/// builder met them (nodes, ways, relations, each by OSM id), then the pack's foot-accessible
/// road edges within 40 m of the venue `bbox` (`[west, south, east, north]`) as `outdoor`
/// lines, and the outline of each of its buildings (GeoJSON geometries) as a `building`
/// floor on every level of its features: walkable on a level where no area is mapped (a mall
/// mapped as shops and footways only). `None` when the graph has no edge.
pub fn venue_graph(
    conn: &Connection,
    bbox: [f64; 4],
    features: &[FeatureRow],
    outlines: &[Value],
) -> Result<Option<Graph>, ReadError> {
    let mut order: Vec<&FeatureRow> = features.iter().collect();
    order.sort_by_key(|f| (f.id.rem_euclid(4), f.id.div_euclid(4)));
    let outdoor = outdoor_lines(conn, bbox)?;
    let empty = Map::new();
    let ranges: Vec<Vec<(f64, f64)>> = order
        .iter()
        .map(|f| levels::feature_levels(|k| f.tags.get(k).and_then(Value::as_str), &f.kind))
        .collect();
    // the same numbering as the pack builder's (half-levels are levels of their own)
    let map = levels::LevelMap::new(ranges.iter().flatten());
    let mut inputs: Vec<graph::GraphFeature<'_>> = order
        .iter()
        .zip(&ranges)
        .map(|(f, r)| graph::GraphFeature {
            id: f.id,
            kind: &f.kind,
            levels: map.levels(r),
            properties: &f.tags,
            shape: &f.shape,
            point: f.pt,
            poi: f.poi(),
        })
        .collect();
    let all_levels: Vec<i64> = inputs
        .iter()
        .flat_map(|f| f.levels.iter().copied())
        .collect::<BTreeSet<i64>>()
        .into_iter()
        .collect();
    let centre = Pt::new((bbox[1] + bbox[3]) / 2.0, (bbox[0] + bbox[2]) / 2.0);
    inputs.extend(outlines.iter().map(|shape| graph::GraphFeature {
        id: -3,
        kind: "building",
        levels: all_levels.clone(),
        properties: &empty,
        shape,
        point: centre,
        poi: false,
    }));
    inputs.extend(outdoor.iter().map(|(shape, start)| graph::GraphFeature {
        id: -2,
        kind: "outdoor",
        levels: vec![0],
        properties: &empty,
        shape,
        point: *start,
        poi: false,
    }));
    let g = graph::build(&inputs);
    Ok((!g.edges.is_empty()).then_some(g))
}

/// The foot-accessible road edges of the pack within [`OUTDOOR_M`] of `bbox`
/// (`[west, south, east, north]`), in edge order: `(GeoJSON line, first point)`. None when
/// the pack has no roads layer.
fn outdoor_lines(conn: &Connection, bbox: [f64; 4]) -> Result<Vec<(Value, Pt)>, ReadError> {
    if !crate::packs::schema::has_table(conn, "road_ways_rtree")? {
        return Ok(Vec::new());
    }
    let (dlat, dlng) = crate::geo::degrees_for(OUTDOOR_M, (bbox[1] + bbox[3]) / 2.0);
    let near = crate::geo::BBox {
        south: bbox[1] - dlat,
        west: bbox[0] - dlng,
        north: bbox[3] + dlat,
        east: bbox[2] + dlng,
    };
    let mut st = conn.prepare_cached(
        "SELECT e.geometry FROM road_ways_rtree r \
         JOIN road_edges e ON e.id BETWEEN r.id AND r.last_edge \
         WHERE e.foot = 1 AND r.max_lat >= ?1 AND r.min_lat <= ?2 AND r.max_lng >= ?3 \
         AND r.min_lng <= ?4 ORDER BY e.id",
    )?;
    let rows = st.query_map([near.south, near.north, near.west, near.east], |r| {
        r.get::<_, String>(0)
    })?;
    let mut out = Vec::new();
    for row in rows {
        let Ok(pts) = crate::geo::decode_polyline6(&row?) else {
            continue;
        };
        // The R-tree boxes a whole run of a way's edges: keep the edges whose own box is near.
        if !crate::geo::BBox::of(pts.iter().copied()).is_some_and(|b| b.intersects(&near)) {
            continue;
        }
        if let Some(first) = pts.first().copied()
            && pts.len() >= 2
        {
            out.push((crate::geo::line_geojson(&pts), first));
        }
    }
    Ok(out)
}

/// The indoor service of an engine.
#[derive(Debug, Default)]
pub struct Indoor {
    layers: PackSetCache<IndoorLayer>,
}

fn invalid(name: &str, msg: impl Into<String>) -> ApiError {
    ApiError::validation(vec![FieldError::invalid(
        Loc::Query,
        name,
        kinds::VALUE,
        msg.into(),
    )])
}

fn bad_request(msg: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::BadRequest, msg)
}

fn feature_json(f: &FeatureRow, lang: &str, distance: Option<(f64, f64)>) -> IndoorFeature {
    IndoorFeature {
        kind: "Feature".to_owned(),
        properties: JsonObject::from(f.properties(lang)),
        geometry: JsonValue::from(f.shape.clone()),
        id: Some(f.id),
        distance: distance.map(|d| (d.0 * 10.0).round() / 10.0),
        duration: distance.map(|d| (d.1 * 10.0).round() / 10.0),
    }
}

impl Indoor {
    /// The layer of `set`.
    pub fn layer(&self, set: Arc<PackSet>) -> Result<Arc<IndoorLayer>, ApiError> {
        self.layers.get_or_build(set, IndoorLayer::load)
    }

    /// `GET /indoor/venues/{venue_id}`.
    pub fn venue(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &VenueGetRequest,
    ) -> Result<Venue, ApiError> {
        let v = self.layer(set)?.venue(&req.venue_id)?;
        call.charge()?;
        call.attribute(v.attribution.clone());
        Ok(v.venue.clone())
    }

    /// `GET /indoor/venues/{venue_id}/pois/search`.
    pub fn search(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &PoiSearchRequest,
    ) -> Result<PoiSearchResponse, ApiError> {
        let v = self.layer(set)?.venue(&req.venue_id)?;
        let filter = match &req.advanced_filter {
            Some(text) => Some(filter::parse(text).map_err(|e| {
                invalid(
                    "advanced_filter",
                    format!("invalid filter: {e} (see docs/indoor-filter.md)"),
                )
            })?),
            None => None,
        };
        if let Some(l) = req.level
            && !v.venue.levels.iter().any(|x| x.level == l)
        {
            let known: Vec<String> = v.venue.levels.iter().map(|x| x.level.to_string()).collect();
            return Err(invalid(
                "level",
                format!(
                    "level {l} is not a level of venue `{}`: its levels are {}",
                    v.venue.venue_id,
                    known.join(", ")
                ),
            ));
        }
        // Distances along the graph from `from_location`.
        let reach = match &req.from_location {
            Some(p) => {
                let g = v.graph.as_ref().ok_or_else(|| {
                    invalid(
                        "from_location",
                        format!(
                            "venue `{}` has no routing configuration: distances cannot be computed",
                            v.venue.venue_id
                        ),
                    )
                })?;
                let a = g.anchor(Pt::new(p.lat, p.lng), p.level).ok_or_else(|| {
                    invalid(
                        "from_location",
                        format!(
                            "point {},{} is off every walkable area of level {}",
                            p.lat, p.lng, p.level
                        ),
                    )
                })?;
                Some(g.distances_from(&a, Profile::Default))
            }
            None => None,
        };
        let full = req.extended == Some(PoiSearchExtended::Full);
        let candidates: Vec<(usize, f32)> = match req.q.as_deref().map(str::trim) {
            Some(q) if !q.is_empty() => v
                .index
                .search(q)
                .map_err(|e| ApiError::internal(&e))?
                .into_iter()
                .filter_map(|(id, s)| v.by_id.get(&id).map(|i| (*i, s)))
                .collect(),
            _ => {
                let mut all: Vec<(usize, f32)> = (0..v.features.len()).map(|i| (i, 0.0)).collect();
                let key = |i: usize| {
                    v.features.get(i).map(|f| {
                        (
                            f.name_in(&req.language).is_none(),
                            crate::packs::search::fold(f.name_in(&req.language).unwrap_or("")),
                            f.id,
                        )
                    })
                };
                all.sort_by_cached_key(|(i, _)| key(*i));
                all
            }
        };
        let mut hits: Vec<&FeatureRow> = Vec::new();
        let mut props_of: Vec<Map<String, Value>> = Vec::new();
        for (i, _) in candidates {
            let Some(f) = v.features.get(i) else { continue };
            if !full && !f.poi() {
                continue;
            }
            if req.level.is_some_and(|l| !f.on_level(l)) {
                continue;
            }
            match req.building.as_deref() {
                Some("undefined") if f.building.is_some() => continue,
                Some(b) if b != "undefined" && f.building.as_deref() != Some(b) => continue,
                _ => {}
            }
            if req.category.as_deref().is_some_and(|c| {
                !f.category
                    .as_deref()
                    .is_some_and(|fc| fc.eq_ignore_ascii_case(c))
            }) {
                continue;
            }
            if !req.refs.is_empty()
                && !f
                    .reference
                    .as_deref()
                    .is_some_and(|r| req.refs.iter().any(|x| x == r))
            {
                continue;
            }
            if !req.ids.is_empty() && !req.ids.contains(&f.id) {
                continue;
            }
            let props = f.properties(&req.language);
            if filter.as_ref().is_some_and(|flt| !flt.matches(&props)) {
                continue;
            }
            hits.push(f);
            props_of.push(props);
        }
        call.charge()?;
        call.attribute(v.attribution.clone());
        let total = hits.len() as u64;
        let per = req.items_by_page as usize;
        let (page_count, range) = if per == 0 {
            (u32::from(total > 0), 0..hits.len())
        } else {
            let pages = hits.len().div_ceil(per);
            let start = (req.page as usize).saturating_mul(per).min(hits.len());
            (pages as u32, start..(start + per).min(hits.len()))
        };
        let features = hits[range]
            .iter()
            .map(|f| {
                let d = reach.as_ref().and_then(|(metres, secs)| {
                    let g = v.graph.as_ref()?;
                    g.pois
                        .iter()
                        .filter(|(id, _)| *id == f.id)
                        .filter_map(|(_, n)| {
                            let (m, s) = (metres.get(*n as usize)?, secs.get(*n as usize)?);
                            m.is_finite().then_some((*m, *s))
                        })
                        .min_by(|a, b| a.1.total_cmp(&b.1))
                });
                feature_json(f, &req.language, d)
            })
            .collect();
        Ok(PoiSearchResponse {
            pagination: IndoorPagination {
                page: req.page,
                page_count,
                total,
                per_page: req.items_by_page,
            },
            features,
        })
    }
}
