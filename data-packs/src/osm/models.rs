//! What the OSM layers share: the elements kept from the extract ([`OsmData`]: coordinates,
//! tagged nodes, ways, relations) with the geometry helpers that resolve them (way and
//! relation rings, areas, representative points), the layers' figures ([`OsmStats`]) and
//! error ([`OsmError`]), and the R-tree row writer.
//!
//! `read_osm` fills an [`OsmData`]; each layer module reads it and writes its tables.
//!
//! ```
//! use waymark_packs::osm::Tags;
//! let tags = Tags::from_pairs(&[("name", "Andorra la Vella"), ("name:fr", "Andorre-la-Vieille")]);
//! assert_eq!(tags.lang_names().collect::<Vec<_>>(), [("fr", "Andorre-la-Vieille")]);
//! ```
use std::collections::BTreeMap;

use super::coords::Coords;
use std::path::PathBuf;

use waymark_core::geo::{BBox, MultiPolygon, PolylineError, Pt, vertex_average};

use super::rings;

/// What `build_osm` wrote: row counts per table, skipped inputs, bbox and timings.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct OsmStats {
    /// `[west, south, east, north]` of the nodes read (zeros when none).
    pub bbox: [f64; 4],
    /// Nodes whose coordinates were kept.
    pub nodes_read: u64,
    /// Ways kept for some layer.
    pub ways_read: u64,
    /// Relations kept for some layer.
    pub relations_read: u64,
    /// Way node references to nodes absent from the extract.
    pub missing_node_refs: u64,
    /// `road_nodes` rows.
    pub road_nodes: u64,
    /// `road_edges` rows.
    pub road_edges: u64,
    /// `road_attrs` rows (attribute sets shared by the edges).
    pub road_attrs: u64,
    /// Edges with `toll = 1`.
    pub toll_edges: u64,
    /// Edges with `ferry = 1`.
    pub ferry_edges: u64,
    /// `turn_restrictions` rows.
    pub turn_restrictions: u64,
    /// Restriction relations skipped (members missing, not routable, unsupported shape).
    pub turn_restrictions_skipped: u64,
    /// `toll_booths` rows.
    pub toll_booths: u64,
    /// `places` rows.
    pub places: u64,
    /// `place_names` rows.
    pub place_names: u64,
    /// Boundary relations/ways skipped because their rings do not close.
    pub places_unclosed: u64,
    /// `addresses` rows.
    pub addresses: u64,
    /// `address_interpolations` rows.
    pub address_interpolations: u64,
    /// `pois` rows.
    pub pois: u64,
    /// `poi_names` rows.
    pub poi_names: u64,
    /// `indoor_venues` rows.
    pub indoor_venues: u64,
    /// `indoor_features` rows.
    pub indoor_features: u64,
    /// Indoor features outside every building / indoor outline (dropped).
    pub indoor_dropped: u64,
    /// Milliseconds spent reading the PBF.
    pub read_ms: u64,
    /// Milliseconds of the roads layer.
    pub roads_ms: u64,
    /// Milliseconds of the places layer.
    pub places_ms: u64,
    /// Milliseconds of the addresses layer.
    pub addresses_ms: u64,
    /// Milliseconds of the POI layer.
    pub pois_ms: u64,
    /// Milliseconds of the indoor layer.
    pub indoor_ms: u64,
}

/// Errors of `build_osm`.
#[derive(Debug, thiserror::Error)]
pub enum OsmError {
    /// A geometry cannot be encoded (coordinates out of WGS84 range).
    #[error("way {way}: {why}")]
    Geometry {
        /// OSM way id.
        way: i64,
        /// What is wrong.
        why: PolylineError,
    },
    /// The extract cannot be opened or read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The extract.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The extract is not a valid OSM PBF.
    #[error("cannot decode OSM PBF {path}: {source}")]
    Pbf {
        /// The extract.
        path: PathBuf,
        /// The decoder error.
        source: osmpbf::Error,
    },
    /// Writing the pack database failed.
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The region to cut does not fit the extract.
    #[error(transparent)]
    Cut(#[from] crate::cut::CutError),
    /// The node positions cannot be moved to their scratch file.
    #[error("cannot write node positions to {path}: {source}")]
    Spill {
        /// The scratch file.
        path: PathBuf,
        /// Why.
        source: waymark_core::routing::flat::FlatError,
    },
    /// Serializing a JSON column failed.
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// An indoor graph cannot be encoded.
    #[error("indoor graph: {0}")]
    IndoorGraph(String),
    /// A compressed column cannot be written.
    #[error("compressing {0}")]
    Compress(String),
}

/// Text of a tag key or value. The reader gives every distinct text one shared allocation
/// (keys and common values repeat on most elements of an extract).
pub type TagText = std::sync::Arc<str>;

/// OSM tags of an element, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tags(pub Vec<(TagText, TagText)>);

impl Tags {
    /// Tags from `(key, value)` pairs (tests, fixtures).
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        Tags(
            pairs
                .iter()
                .map(|(k, v)| (TagText::from(*k), TagText::from(*v)))
                .collect(),
        )
    }

    /// Value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v)
    }

    /// Whether `key` has value `value`.
    pub fn is(&self, key: &str, value: &str) -> bool {
        self.get(key) == Some(value)
    }

    /// Whether `key` is present.
    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Iterates `(key, value)`.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (&**k, &**v))
    }

    /// Whether there is no tag.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `name:xx` tags whose suffix is a language code (2 or 3 lowercase ASCII letters,
    /// optionally followed by `-Script`/`-REGION`), as `(lang, name)`.
    pub fn lang_names(&self) -> impl Iterator<Item = (&str, &str)> {
        self.iter().filter_map(|(k, v)| {
            let lang = k.strip_prefix("name:")?;
            is_lang_code(lang).then_some((lang, v))
        })
    }

    /// All tags as a JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        let map: serde_json::Map<String, serde_json::Value> = self
            .iter()
            .map(|(k, v)| (k.to_owned(), serde_json::Value::from(v)))
            .collect();
        serde_json::Value::Object(map)
    }
}

/// Whether `s` looks like an ISO 639 code (`fi`, `sv`, `zh-Hans`, `be-tarask`).
pub fn is_lang_code(s: &str) -> bool {
    let base = s.split('-').next().unwrap_or("");
    (2..=3).contains(&base.len()) && base.bytes().all(|b| b.is_ascii_lowercase())
}

/// A tagged node kept for some layer.
#[derive(Debug, Clone)]
pub struct OsmNode {
    /// OSM id.
    pub id: i64,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// Tags.
    pub tags: Tags,
}

/// A way kept for some layer.
#[derive(Debug, Clone)]
pub struct OsmWay {
    /// OSM id.
    pub id: i64,
    /// Node references, as in the file (some may be missing from the extract).
    pub refs: Vec<i64>,
    /// Tags.
    pub tags: Tags,
}

/// Member kind of a relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    /// A node.
    Node,
    /// A way.
    Way,
    /// A relation.
    Relation,
}

/// A relation member.
#[derive(Debug, Clone)]
pub struct Member {
    /// Kind.
    pub kind: MemberKind,
    /// OSM id.
    pub id: i64,
    /// Role (may be empty).
    pub role: String,
}

/// A relation kept for some layer.
#[derive(Debug, Clone)]
pub struct OsmRelation {
    /// OSM id.
    pub id: i64,
    /// Members in order.
    pub members: Vec<Member>,
    /// Tags.
    pub tags: Tags,
}

/// Everything read from the extract that the layers need.
#[derive(Debug, Default)]
pub struct OsmData {
    /// Coordinates of every node referenced by a kept way or relation, and of every kept
    /// tagged node.
    pub coords: Coords,
    /// Tagged nodes of interest, by id order.
    pub nodes: Vec<OsmNode>,
    /// Ways of interest by id.
    pub ways: BTreeMap<i64, OsmWay>,
    /// Relations of interest by id order.
    pub relations: Vec<OsmRelation>,
    /// Replication timestamp of the PBF header (seconds since the epoch).
    pub timestamp: Option<i64>,
    /// The region this data was cut to, if any (`crate::cut`).
    pub cut: Option<crate::cut::Cut>,
}

impl OsmData {
    /// Coordinates of a way's nodes that exist in the extract (missing ones skipped).
    pub fn way_coords(&self, refs: &[i64]) -> Vec<Pt> {
        refs.iter()
            .filter_map(|r| self.coords.get(r).copied())
            .collect()
    }

    /// Closed rings of a relation's members with the given roles (`""` counts as outer when
    /// `outer` is true), as coordinates; rings touching a missing node are dropped and counted
    /// as open. Returns `(rings, open_count)`.
    pub fn relation_rings(&self, rel: &OsmRelation, outer: bool) -> (Vec<Vec<Pt>>, usize) {
        let ways: Vec<Vec<i64>> = rel
            .members
            .iter()
            .filter(|m| m.kind == MemberKind::Way)
            .filter(|m| {
                if outer {
                    m.role == "outer" || m.role.is_empty()
                } else {
                    m.role == "inner"
                }
            })
            .filter_map(|m| self.ways.get(&m.id).map(|w| w.refs.clone()))
            .collect();
        let missing_members = rel
            .members
            .iter()
            .filter(|m| m.kind == MemberKind::Way)
            .filter(|m| {
                if outer {
                    m.role == "outer" || m.role.is_empty()
                } else {
                    m.role == "inner"
                }
            })
            .filter(|m| !self.ways.contains_key(&m.id))
            .count();
        let rings = rings::assemble_rings(&ways);
        let mut open = rings.open + missing_members.min(1);
        let mut out = Vec::new();
        for ring in rings.closed {
            let pts: Vec<Pt> = ring
                .iter()
                .filter_map(|r| self.coords.get(r).copied())
                .collect();
            if pts.len() == ring.len() {
                out.push(pts);
            } else {
                open += 1;
            }
        }
        (out, open)
    }

    /// Area of a relation (outer and inner members); `None` when no outer ring closes or a
    /// ring is open (`strict`).
    pub fn relation_area(&self, rel: &OsmRelation, strict: bool) -> Option<MultiPolygon> {
        let (outer, open_o) = self.relation_rings(rel, true);
        let (inner, open_i) = self.relation_rings(rel, false);
        if outer.is_empty() || (strict && (open_o > 0 || open_i > 0)) {
            return None;
        }
        Some(MultiPolygon::from_rings(outer, inner))
    }

    /// Area of a closed way with all nodes present.
    pub fn way_area(&self, way: &OsmWay) -> Option<MultiPolygon> {
        if way.refs.len() < 4 || way.refs.first() != way.refs.last() {
            return None;
        }
        let pts = self.way_coords(&way.refs);
        if pts.len() != way.refs.len() {
            return None;
        }
        Some(MultiPolygon::from_rings(vec![pts], vec![]))
    }

    /// Representative point of a way: a point inside when it is a closed area, else the
    /// middle vertex of its line (for lines) — `None` when no node is present.
    pub fn way_point(&self, way: &OsmWay) -> Option<Pt> {
        if let Some(area) = self.way_area(way) {
            return area.point_on_surface();
        }
        let pts = self.way_coords(&way.refs);
        if way.refs.first() == way.refs.last() && pts.len() >= 3 {
            return vertex_average(&pts[..pts.len() - 1]);
        }
        pts.get(pts.len() / 2).copied()
    }

    /// Representative point of a relation: label/admin_centre node, else a point inside its
    /// area, else the average of its members' points.
    pub fn relation_point(&self, rel: &OsmRelation) -> Option<Pt> {
        for role in ["label", "admin_centre"] {
            if let Some(p) = rel
                .members
                .iter()
                .find(|m| m.kind == MemberKind::Node && m.role == role)
                .and_then(|m| self.coords.get(&m.id).copied())
            {
                return Some(p);
            }
        }
        if let Some(area) = self.relation_area(rel, false) {
            return area.point_on_surface();
        }
        let pts: Vec<Pt> = rel
            .members
            .iter()
            .filter_map(|m| match m.kind {
                MemberKind::Node => self.coords.get(&m.id).copied(),
                MemberKind::Way => self.ways.get(&m.id).and_then(|w| self.way_point(w)),
                MemberKind::Relation => None,
            })
            .collect();
        vertex_average(&pts)
    }
}

/// Inserts an R-tree row.
pub(crate) fn rtree_insert(
    stmt: &mut rusqlite::Statement<'_>,
    id: i64,
    b: BBox,
) -> rusqlite::Result<()> {
    let [min_lat, max_lat, min_lng, max_lng] = b.to_rtree();
    stmt.execute(rusqlite::params![id, min_lat, max_lat, min_lng, max_lng])?;
    Ok(())
}

/// Ids of distinct attribute rows (`road_attrs`, `address_parts`): each key is inserted once,
/// the first time it is seen, and every later row refers to its id.
pub(crate) struct Interner<K> {
    ids: std::collections::HashMap<K, i64>,
    next: i64,
}

impl<K: std::hash::Hash + Eq + Clone> Interner<K> {
    /// An interner whose first new id is `after + 1` (`after`: the table's largest id).
    pub(crate) fn new(after: i64) -> Self {
        Interner {
            ids: std::collections::HashMap::new(),
            next: after + 1,
        }
    }

    /// The id of `key`, calling `insert(id, &key)` when it is new.
    pub(crate) fn id<E>(
        &mut self,
        key: &K,
        insert: impl FnOnce(i64, &K) -> Result<(), E>,
    ) -> Result<i64, E> {
        if let Some(id) = self.ids.get(key) {
            return Ok(*id);
        }
        let id = self.next;
        insert(id, key)?;
        self.ids.insert(key.clone(), id);
        self.next += 1;
        Ok(id)
    }

    /// Distinct keys so far.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }
}
