//! The walkable graph of a venue, built at pack-build time ([`build`]) and searched at query
//! time ([`Graph::route`], [`Graph::distances_from`]).
//!
//! **Areas.** Rooms, corridors, `indoor=area`s and the footprints of stairs, escalators, ramps
//! and elevators are polygons on one or more levels (`level`, `repeat_on`). `indoor=level`
//! outlines are walkable only on a level that has no other area (else they would let a route
//! cross walls), the building's own outline (feature kind `building`, its floor) only on a
//! level with neither. Features tagged `access=private|no` are not walked at all, and a POI or
//! door inside such an area is not joined to the nodes around it.
//!
//! **Nodes** of a level: doors and entrances, POI anchors (a point inside the POI), the
//! representative point of each area, the inner corners of each area (reflex vertices moved
//! 0.3 m inside, so a path can turn around them), the midpoints of the edges two areas share
//! (openings: corridors split into several polygons, a stair footprint beside a corridor;
//! a room is entered that way only when no door is mapped on its outline, and never from
//! another room), and the vertices of walkable lines (`highway=footway|corridor` with a level,
//! stairs and escalator ways).
//!
//! **Edges.** Inside each area every pair of its nodes that see each other (the segment stays
//! inside the polygon) is joined: a visibility graph, so routes cut across halls the way people
//! walk. Walkable lines join their vertices. Connectors join levels: a stair or escalator way
//! from its lower to its upper end (`incline` says which end is which, else the ends' areas
//! do), escalators one way when `conveying=forward|backward`, elevators between each pair of
//! consecutive levels they serve. Walkable lines of different levels that share a vertex meet
//! there (a ramp edge: how the level changes is not mapped), and a connector way's ends are on the levels of the lines they meet. Lines tagged
//! `oneway` or `conveying` are one way. A closed door or gate (`access=private|no`) cuts the
//! edges at it. Edges through a feature tagged `access=customers`, or at such a door or gate,
//! are for customers only ([`Edge::customers`]): a search walks them only for a [`Ride`] of a
//! customer. Walls (`wall` features) cut every edge of their level that crosses them or ends
//! on them but at a door or gate; a gate point inside an area bars it along its narrowest
//! chord (at most 20 m) with the gate the one way across, and a gate on the outline two
//! areas share is the only opening between them. A door with `oneway` on a walkable line is
//! passed in the line's direction only. A door or connector point that lies in no area is joined to
//! the nearest node of its level within 5 m. Features of kind `outdoor` (the foot-accessible
//! road edges around the venue, level 0) are walkable lines too; entrances join their nearest
//! vertex within 30 m, so routes can start on the street.
//!
//! **Profiles.** `default` takes every edge (escalators only in their direction); `wheelchair`
//! never takes stairs or escalators, nor anything tagged `wheelchair=no` (doors and gates
//! among them), nor turnstiles. A graph lists a profile only when it reaches every level that
//! has POIs ([`Graph::serves_every_poi_level`]).
//!
//! ```
//! use serde_json::json;
//! use waymark_core::geo::Pt;
//! use waymark_core::indoor::graph::{GraphFeature, Profile, build};
//! // two rooms side by side joined by a door, on level 0
//! let props = serde_json::Map::new();
//! let room = |w: f64| json!({"type": "Polygon", "coordinates": [[[w, 48.0], [w + 0.0002, 48.0],
//!     [w + 0.0002, 48.0002], [w, 48.0002], [w, 48.0]]]});
//! let (a, b) = (room(11.0), room(11.0002));
//! let door = json!({"type": "Point", "coordinates": [11.0002, 48.0001]});
//! let f = |id, kind, shape, point| GraphFeature { id, kind, levels: vec![0], properties: &props,
//!     shape, point, poi: false };
//! let g = build(&[
//!     f(1, "room", &a, Pt::new(48.0001, 11.0001)),
//!     f(2, "room", &b, Pt::new(48.0001, 11.0003)),
//!     f(3, "door", &door, Pt::new(48.0001, 11.0002)),
//! ]);
//! let from = g.anchor(Pt::new(48.0001, 11.00005), 0).unwrap();
//! let to = g.anchor(Pt::new(48.0001, 11.00035), 0).unwrap();
//! let path = g.route(&from, &to, Profile::Default, &[]).unwrap();
//! assert!(path.length_m > 20.0 && path.length_m < 25.0);
//! ```
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::geo::{LocalProjection, Pt, polygon_rings};

mod builder;
mod columns;
mod geometry;
mod search;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;

pub use builder::build;
use geometry::*;
pub use search::{Anchor, AvoidBox, Path, Seg};

/// Version of the stored graph format (`indoor_graphs.version`): 1 is the graph as postcard,
/// 2 the same bytes in one zstd frame (40 % of München's indoor graphs), 3 (pack
/// format 5) the same values in columns ([`Graph::to_bytes`]) in one zstd frame. Readers take
/// all three.
pub const GRAPH_VERSION: u32 = 3;

/// zstd level of a stored graph (written once at pack build, read once per venue).
const GRAPH_ZSTD_LEVEL: i32 = 19;

/// Why a stored graph could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum GraphCodecError {
    /// The postcard layer.
    #[error("graph encoding: {0}")]
    Postcard(#[from] postcard::Error),
    /// The zstd frame.
    #[error("graph compression: {0}")]
    Zstd(#[from] std::io::Error),
    /// A version this build does not know.
    #[error("graph format version {0} is not known (this build reads 1 to {GRAPH_VERSION})")]
    Version(i64),
    /// A version 3 graph that ends early or holds a bad value.
    #[error("graph columns: {0}")]
    Columns(&'static str),
}

/// Walking speed, m/s.
const WALK_SPEED: f64 = 1.2;
/// Wheelchair speed, m/s.
const WHEELCHAIR_SPEED: f64 = 1.0;
/// Climbing speed along a stair, m/s.
const STAIRS_SPEED: f64 = 0.5;
/// Escalator speed (standing), m/s.
const ESCALATOR_SPEED: f64 = 0.5;
/// Time of an elevator ride between two consecutive levels, with a share of the wait, s.
const ELEVATOR_SECONDS: f64 = 15.0;
/// Nominal length of a vertical move between two levels (elevator), m.
const LEVEL_HEIGHT_M: f64 = 4.0;
/// How far inside an area its inner corners are moved, m.
const CORNER_INSET_M: f64 = 0.3;
/// A point this close to an area's outline is on it, m.
const ON_OUTLINE_M: f64 = 0.3;
/// How far a door or connector that lies in no area is joined to its level, m.
const JOIN_M: f64 = 5.0;
/// How far a POI that lies in no area is joined to its level, m.
const POI_JOIN_M: f64 = 15.0;
/// A `lat,lng,level` point this close to a node is snapped to it when it lies in no area, m.
pub const SNAP_M: f64 = 5.0;
/// A `lat,lng,level` point in no area this close to a walkable line (a footway, the outdoor
/// network) starts on it, m.
pub const LINE_SNAP_M: f64 = 15.0;
/// How far an entrance is joined to the outdoor walking network, m.
const ENTRANCE_JOIN_M: f64 = 30.0;
/// The widest chord a gate point inside an area bars (a corridor's width), m: a gate in a
/// wider hall stands in a fence or line of barriers that is not mapped, and bars nothing.
const GATE_CHORD_M: f64 = 20.0;
/// How far a gate's bar reaches past the outline at both ends, m.
const GATE_BAR_EXTEND_M: f64 = 0.5;

/// What an edge is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EdgeKind {
    /// Walking on one level.
    Walk,
    /// A stair (climbing, or walking on its footprint).
    Stairs,
    /// An escalator.
    Escalator,
    /// An elevator ride between two levels.
    Elevator,
    /// A ramp.
    Ramp,
}

/// A routing profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Every edge.
    Default,
    /// No stairs, no escalators, nothing tagged `wheelchair=no`.
    Wheelchair,
}

/// A profile with its options: what a search may walk. A [`Profile`] alone is a ride of
/// someone who is not a customer (places for customers only are closed to it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ride {
    /// The profile.
    pub profile: Profile,
    /// The walker is a customer: edges for customers only are open.
    pub customer: bool,
}

impl From<Profile> for Ride {
    fn from(profile: Profile) -> Ride {
        Ride {
            profile,
            customer: false,
        }
    }
}

impl Profile {
    /// The profile named `name`.
    pub fn parse(name: &str) -> Option<Profile> {
        match name {
            "default" => Some(Profile::Default),
            "wheelchair" => Some(Profile::Wheelchair),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::Wheelchair => "wheelchair",
        }
    }

    fn speed(self) -> f64 {
        match self {
            Profile::Default => WALK_SPEED,
            Profile::Wheelchair => WHEELCHAIR_SPEED,
        }
    }
}

/// A node: a point on a level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// Level.
    pub level: i64,
}

impl Node {
    /// Its position.
    pub fn pt(&self) -> Pt {
        Pt::new(self.lat, self.lng)
    }
}

/// An edge between two nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edge {
    /// One end.
    pub a: u32,
    /// The other end.
    pub b: u32,
    /// Length, metres.
    pub length: f32,
    /// Kind.
    pub kind: EdgeKind,
    /// Only from `a` to `b`.
    pub oneway: bool,
    /// Open to the wheelchair profile.
    pub wheelchair: bool,
    /// The feature (area, line or connector) the edge runs through.
    pub feature: i64,
    /// For customers only (`access=customers` on the feature it runs through, or on a door
    /// or gate at one of its ends): walked only by a [`Ride`] of a customer.
    #[serde(default)]
    pub customers: bool,
}

/// A walkable polygon on one level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WalkArea {
    /// The feature.
    pub feature: i64,
    /// Its kind (`room`, `corridor`, `area`, `stairs`, ...).
    pub kind: String,
    /// Level.
    pub level: i64,
    /// Rings as `[lng, lat]` (outer first).
    pub rings: Vec<Vec<[f64; 2]>>,
    /// `[west, south, east, north]`.
    pub bbox: [f64; 4],
    /// The nodes inside it or on its outline.
    pub nodes: Vec<u32>,
    /// Kind of the edges inside it.
    pub edge_kind: EdgeKind,
    /// Open to the wheelchair profile.
    pub wheelchair: bool,
}

/// A venue's graph.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Graph {
    /// Format version ([`GRAPH_VERSION`]).
    pub version: u32,
    /// Reference latitude of the metric projection.
    pub lat0: f64,
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Edges.
    pub edges: Vec<Edge>,
    /// Walkable areas.
    pub areas: Vec<WalkArea>,
    /// `(poi id, node)` anchors of the POIs.
    pub pois: Vec<(i64, u32)>,
    /// Profiles that can move between levels (or the venue has one level).
    pub profiles: Vec<String>,
    /// Per node, `(edge index, other end)`, filled by [`Graph::index`].
    #[serde(skip)]
    adjacency: Vec<Vec<(u32, u32)>>,
}

/// A feature given to [`build`].
#[derive(Debug, Clone)]
pub struct GraphFeature<'a> {
    /// Feature (POI) id.
    pub id: i64,
    /// Kind (`room`, `corridor`, `area`, `level`, `door`, `entrance`, `barrier`, `wall`,
    /// `stairs`, `escalator`, `elevator`, `ramp`, `footway`, `poi`).
    pub kind: &'a str,
    /// Integer levels it is on (expanded ranges).
    pub levels: Vec<i64>,
    /// Its tags.
    pub properties: &'a Map<String, Value>,
    /// GeoJSON geometry.
    pub shape: &'a Value,
    /// A point inside.
    pub point: Pt,
    /// Whether it is a POI (routes may end at it).
    pub poi: bool,
}

impl GraphFeature<'_> {
    fn tag(&self, k: &str) -> Option<&str> {
        self.properties.get(k).and_then(Value::as_str)
    }
}
