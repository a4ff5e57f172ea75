//! The road network of a pack, read from the roads layer of `data.sqlite` (tables
//! `road_nodes`, `road_attrs` and `road_segments` (the view `road_edges`), `turn_restrictions`,
//! `toll_booths`; see
//! [`crate::packs::schema::ROADS`]).
//!
//! Edges are kept in `road_edges.id` order, which makes every structure derived from the
//! network (arcs, turn graphs, prepared graphs) deterministic: the builder and the readers
//! derive the same graph from the same file.
use std::collections::HashMap;
use std::sync::Arc;

use rusqlite::Connection;

use super::flat::Arr;
use super::profile::{CountryLimits, Highway, Profile};
use crate::geo::{Pt, decode_polyline};

/// One road edge (a way piece between two graph nodes): a fixed-layout record of 64 bytes
/// (no padding, no pointer), so a country's edges can be read in place from a mapped layout
/// file (ADR 0012) instead of being copied into memory. Build one with [`RoadEdge::new`]
/// from [`EdgeFields`].
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct RoadEdge {
    /// `road_edges.id`.
    pub id: i64,
    /// OSM way id.
    pub way_id: i64,
    /// Length in metres.
    pub length_m: f64,
    /// Tagged speed limit, km/h; NaN when none ([`RoadEdge::maxspeed`]).
    maxspeed: f64,
    /// Index of the start node in [`RoadNetwork::nodes`].
    pub from: u32,
    /// Index of the end node.
    pub to: u32,
    /// Index of the name in [`RoadNetwork::names`] (0: no name).
    pub name: u32,
    /// Index of the `ref` in [`RoadNetwork::names`] (0: none).
    pub r#ref: u32,
    /// Range of the edge's points in [`RoadNetwork::points`] ([`RoadEdge::geometry`]).
    geometry: [u32; 2],
    /// [`Highway`] code ([`RoadEdge::highway`]).
    highway: u8,
    /// 0 both ways, 1 forward only, -1 backward only (vehicles).
    pub oneway: i8,
    /// Access per [`Profile`] index, one bit each ([`RoadEdge::allows`]).
    access: u8,
    /// Restricted access per [`Profile`] index, one bit each ([`RoadEdge::restricted`]).
    restricted: u8,
    /// Bit 0: tolled; bit 1: a ferry route; bits 2..4: the `tracktype` grade, 1 to 5, of a
    /// track (0: none tagged).
    flags: u8,
    /// Index of the country limits of the edge in [`RoadNetwork::country_limits`] (0: the
    /// pack's; a joined network of several countries has more).
    pub limits: u8,
    pad: [u8; 2],
}

/// What a [`RoadEdge`] is made of.
#[derive(Debug, Clone)]
pub struct EdgeFields {
    /// `road_edges.id`.
    pub id: i64,
    /// OSM way id.
    pub way_id: i64,
    /// Index of the start node.
    pub from: u32,
    /// Index of the end node.
    pub to: u32,
    /// Length in metres.
    pub length_m: f64,
    /// Highway class.
    pub highway: Highway,
    /// Index of the name (0: no name).
    pub name: u32,
    /// Index of the `ref` (0: none).
    pub r#ref: u32,
    /// Tagged speed limit, km/h.
    pub maxspeed: Option<f64>,
    /// 0 both ways, 1 forward only, -1 backward only (vehicles).
    pub oneway: i8,
    /// Access per [`Profile`] index (freely or restricted).
    pub access: [bool; 4],
    /// Restricted access per [`Profile`] index: the edge may only be the first or last part of
    /// a trip from or to a point on or behind it (`destination`, `private`, `no`, ...; access
    /// column 2, ADR 0010).
    pub restricted: [bool; 4],
    /// Tolled.
    pub toll: bool,
    /// A ferry route.
    pub ferry: bool,
    /// The `tracktype` grade of a track, 1 (`grade1`) to 5 (`grade5`), when tagged.
    pub tracktype: Option<u8>,
    /// Range of the edge's points.
    pub geometry: (u32, u32),
    /// Index of the country limits of the edge.
    pub limits: u8,
}

fn bits(v: [bool; 4]) -> u8 {
    v.iter()
        .enumerate()
        .fold(0, |acc, (i, &b)| acc | (u8::from(b) << i))
}

impl RoadEdge {
    /// The record of `f`.
    pub fn new(f: &EdgeFields) -> RoadEdge {
        RoadEdge {
            id: f.id,
            way_id: f.way_id,
            length_m: f.length_m,
            maxspeed: f.maxspeed.unwrap_or(f64::NAN),
            from: f.from,
            to: f.to,
            name: f.name,
            r#ref: f.r#ref,
            geometry: [f.geometry.0, f.geometry.1],
            highway: f.highway as u8,
            oneway: f.oneway,
            access: bits(f.access),
            restricted: bits(f.restricted),
            flags: u8::from(f.toll)
                | (u8::from(f.ferry) << 1)
                | (f.tracktype.filter(|g| (1..=5).contains(g)).unwrap_or(0) << 2),
            limits: f.limits,
            pad: [0; 2],
        }
    }

    /// The fields of the record.
    pub fn fields(&self) -> EdgeFields {
        let unbits = |v: u8| std::array::from_fn(|i| v & (1 << i) != 0);
        EdgeFields {
            id: self.id,
            way_id: self.way_id,
            from: self.from,
            to: self.to,
            length_m: self.length_m,
            highway: self.highway(),
            name: self.name,
            r#ref: self.r#ref,
            maxspeed: self.maxspeed(),
            oneway: self.oneway,
            access: unbits(self.access),
            restricted: unbits(self.restricted),
            toll: self.toll(),
            ferry: self.ferry(),
            tracktype: self.tracktype(),
            geometry: self.geometry(),
            limits: self.limits,
        }
    }

    /// Highway class.
    pub fn highway(&self) -> Highway {
        Highway::from_code(self.highway)
    }

    /// Tagged speed limit, km/h.
    pub fn maxspeed(&self) -> Option<f64> {
        (!self.maxspeed.is_nan()).then_some(self.maxspeed)
    }

    /// Tolled.
    pub fn toll(&self) -> bool {
        self.flags & 1 != 0
    }

    /// A ferry route.
    pub fn ferry(&self) -> bool {
        self.flags & 2 != 0
    }

    /// The `tracktype` grade of a track (1 to 5), when tagged.
    pub fn tracktype(&self) -> Option<u8> {
        let g = (self.flags >> 2) & 0b111;
        (g != 0).then_some(g)
    }

    /// Range of the edge's points in [`RoadNetwork::points`].
    pub fn geometry(&self) -> (u32, u32) {
        (self.geometry[0], self.geometry[1])
    }

    /// Whether `profile` may use the edge at all.
    pub fn allows(&self, profile: Profile) -> bool {
        self.access & (1 << profile.index()) != 0
    }

    /// Whether `profile` may use the edge only at the start or the end of a trip.
    pub fn restricted(&self, profile: Profile) -> bool {
        self.restricted & (1 << profile.index()) != 0
    }

    /// Whether `profile` may travel the edge forward (`from` → `to`) / backward.
    pub fn direction_allowed(&self, profile: Profile, forward: bool) -> bool {
        if !self.allows(profile) {
            return false;
        }
        if !profile.follows_oneway() {
            return true;
        }
        match self.oneway {
            1 => forward,
            -1 => !forward,
            _ => true,
        }
    }
}

/// A turn restriction with a via node.
#[derive(Debug, Clone)]
pub struct Restriction {
    /// OSM relation id.
    pub relation_id: i64,
    /// `no_*` (false) or `only_*` (true).
    pub only: bool,
    /// Way the turn comes from.
    pub from_way: i64,
    /// Node index of the via node (`None` for via ways).
    pub via_node: Option<u32>,
    /// Via ways (in relation order) when the restriction has no via node.
    pub via_ways: Vec<i64>,
    /// Way the turn goes to.
    pub to_way: i64,
    /// The raw `except` tag.
    pub except: Option<String>,
}

/// A `barrier=toll_booth` node.
#[derive(Debug, Clone)]
pub struct TollBooth {
    /// OSM node id.
    pub osm_id: i64,
    /// Node index when the booth is on the graph.
    pub node: Option<u32>,
    /// Position.
    pub at: Pt,
    /// Name, if tagged.
    pub name: Option<String>,
}

/// The whole road network of one pack.
#[derive(Debug)]
pub struct RoadNetwork {
    /// Node positions, index = `road_nodes` row order.
    pub nodes: Arr<Pt>,
    /// OSM id of each node: the identity two packs share (ADR 0008).
    pub node_osm: Arr<i64>,
    /// Whether each node is a junction of the whole road network (`road_nodes.junction`):
    /// continuing through a node that is none (a split made where a region's border cuts a
    /// road) costs no turn.
    pub junction: Vec<bool>,
    /// Road density around each node, km/km² ([`super::density`]): in a pack cut from a
    /// larger extract, `road_node_density`, measured by the builder over the whole extract
    /// (pack format 10); else measured over this pack's roads when it is read.
    pub density: Arr<f32>,
    /// Edges in `road_edges.id` order.
    pub edges: Arr<RoadEdge>,
    /// Every edge's geometry, concatenated.
    pub points: Arr<Pt>,
    /// Interned names and refs; index 0 is the empty string.
    pub names: Vec<Arc<str>>,
    /// Turn restrictions.
    pub restrictions: Vec<Restriction>,
    /// Toll booths.
    pub toll_booths: Vec<TollBooth>,
    /// Country of the pack (most frequent `country_code` of its places), upper case; empty when
    /// unknown.
    pub country: String,
    /// Default limits of that country.
    pub limits: CountryLimits,
    /// Limits an edge may name ([`RoadEdge::limits`]); the first is `limits`.
    pub country_limits: Vec<CountryLimits>,
}

/// Why a network could not be read.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// SQLite failed.
    #[error("roads layer: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The data is inconsistent.
    #[error("roads layer: {0}")]
    Invalid(String),
}

/// One `road_attrs` row as the network holds it.
struct EdgeAttrs {
    highway: Highway,
    name: u32,
    r#ref: u32,
    maxspeed: Option<f64>,
    oneway: i8,
    access: [bool; 4],
    restricted: [bool; 4],
    toll: bool,
    ferry: bool,
    tracktype: Option<u8>,
}

/// What a network reads from its pack besides the arrays derived from the roads: turn
/// restrictions, toll booths and the country ([`RoadNetwork::read_tables`]).
pub(crate) struct Tables {
    pub restrictions: Vec<Restriction>,
    pub toll_booths: Vec<TollBooth>,
    pub country: String,
}

impl RoadNetwork {
    /// Reads the roads layer.
    pub fn load(conn: &Connection) -> Result<RoadNetwork, NetworkError> {
        Self::load_with_ids(conn).map(|(net, _)| net)
    }

    /// Reads the roads layer; also gives each node's `road_nodes.id` (ascending), which
    /// [`RoadNetwork::read_tables`] needs to place the nodes that restrictions and toll
    /// booths name.
    pub(crate) fn load_with_ids(
        conn: &Connection,
    ) -> Result<(RoadNetwork, Vec<i64>), NetworkError> {
        let mut node_index: HashMap<i64, u32> = HashMap::new();
        let mut ids = Vec::new();
        let mut nodes = Vec::new();
        let mut node_osm = Vec::new();
        let mut junction = Vec::new();
        {
            let mut stmt =
                conn.prepare("SELECT id, lat, lng, osm_id, junction FROM road_nodes ORDER BY id")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let id: i64 = r.get(0)?;
                node_index.insert(id, nodes.len() as u32);
                ids.push(id);
                nodes.push(Pt::new(r.get(1)?, r.get(2)?));
                node_osm.push(r.get(3)?);
                junction.push(r.get::<_, i64>(4)? != 0);
            }
        }
        // A cut pack stores every node's density, measured over the whole extract.
        let mut density = Vec::new();
        if crate::packs::schema::has_table(conn, "road_node_density")? {
            density = vec![f32::NAN; nodes.len()];
            let mut stmt = conn.prepare("SELECT node, density FROM road_node_density")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                if let Some(&i) = node_index.get(&r.get::<_, i64>(0)?) {
                    density[i as usize] = super::density::from_stored(r.get(1)?);
                }
            }
            if density.iter().any(|d| d.is_nan()) {
                return Err(NetworkError::Invalid(
                    "road_node_density does not cover every road node".into(),
                ));
            }
        }
        let mut names: Vec<Arc<str>> = vec![Arc::from("")];
        let mut name_index: HashMap<String, u32> = HashMap::new();
        let mut intern = |s: Option<String>| -> u32 {
            match s {
                None => 0,
                Some(s) if s.is_empty() => 0,
                Some(s) => {
                    if let Some(&i) = name_index.get(&s) {
                        return i;
                    }
                    let i = names.len() as u32;
                    names.push(Arc::from(s.as_str()));
                    name_index.insert(s, i);
                    i
                }
            }
        };
        // The shared attribute rows first (pack format 3), each parsed and interned once.
        let mut attrs: HashMap<i64, EdgeAttrs> = HashMap::new();
        {
            let mut stmt = conn.prepare(
                "SELECT id, highway, name, ref, maxspeed_kmh, oneway, car, truck, foot, bicycle, \
                 toll, ferry FROM road_attrs",
            )?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let flag = |i: usize| -> rusqlite::Result<bool> { Ok(r.get::<_, i64>(i)? != 0) };
                let limited = |i: usize| -> rusqlite::Result<bool> { Ok(r.get::<_, i64>(i)? == 2) };
                let oneway: i64 = r.get(5)?;
                attrs.insert(
                    r.get(0)?,
                    EdgeAttrs {
                        highway: Highway::parse(&r.get::<_, String>(1)?),
                        name: intern(r.get(2)?),
                        r#ref: intern(r.get(3)?),
                        maxspeed: r.get(4)?,
                        oneway: oneway.clamp(-1, 1) as i8,
                        access: [flag(6)?, flag(7)?, flag(8)?, flag(9)?],
                        restricted: [limited(6)?, limited(7)?, limited(8)?, limited(9)?],
                        toll: flag(10)?,
                        ferry: flag(11)?,
                        tracktype: None,
                    },
                );
            }
        }
        // Graded tracks (pack format 11; a pack without one has no table).
        if crate::packs::schema::has_table(conn, "road_track_grades")? {
            let mut stmt = conn.prepare("SELECT attrs, grade FROM road_track_grades")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                if let Some(a) = attrs.get_mut(&r.get::<_, i64>(0)?) {
                    a.tracktype = u8::try_from(r.get::<_, i64>(1)?)
                        .ok()
                        .filter(|g| (1..=5).contains(g));
                }
            }
        }
        let mut edges = Vec::new();
        let mut points = Vec::new();
        {
            let mut stmt = conn.prepare(
                "SELECT id, way_id, from_node, to_node, length_m, attrs, geometry \
                 FROM road_segments ORDER BY id",
            )?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let id: i64 = r.get(0)?;
                let from_id: i64 = r.get(2)?;
                let to_id: i64 = r.get(3)?;
                let (Some(&from), Some(&to)) = (node_index.get(&from_id), node_index.get(&to_id))
                else {
                    return Err(NetworkError::Invalid(format!(
                        "edge {id} references a missing node"
                    )));
                };
                let attrs_id: i64 = r.get(5)?;
                let Some(a) = attrs.get(&attrs_id) else {
                    return Err(NetworkError::Invalid(format!(
                        "edge {id} references missing attributes {attrs_id}"
                    )));
                };
                let geometry: String = r.get(6)?;
                let start = points.len() as u32;
                decode_polyline(&geometry, 6, &mut points).map_err(|e| {
                    NetworkError::Invalid(format!("edge {id}: geometry does not decode: {e}"))
                })?;
                if points.len() as u32 - start < 2 {
                    points.truncate(start as usize);
                    points.push(nodes[from as usize]);
                    points.push(nodes[to as usize]);
                }
                let end = points.len() as u32;
                edges.push(RoadEdge::new(&EdgeFields {
                    id,
                    way_id: r.get(1)?,
                    from,
                    to,
                    length_m: r.get::<_, f64>(4)?.max(0.0),
                    highway: a.highway,
                    name: a.name,
                    r#ref: a.r#ref,
                    maxspeed: a.maxspeed,
                    oneway: a.oneway,
                    access: a.access,
                    restricted: a.restricted,
                    toll: a.toll,
                    ferry: a.ferry,
                    tracktype: a.tracktype,
                    geometry: (start, end),
                    limits: 0,
                }));
            }
        }
        let node = |id: i64| node_index.get(&id).copied();
        let Tables {
            restrictions,
            toll_booths,
            country,
        } = Self::read_tables(conn, &node)?;
        let limits = CountryLimits::of(&country);
        edges.shrink_to_fit();
        let mut net = RoadNetwork {
            nodes: nodes.into(),
            node_osm: node_osm.into(),
            junction,
            density: density.into(),
            edges: edges.into(),
            points: points.into(),
            names,
            restrictions,
            toll_booths,
            country,
            limits,
            country_limits: vec![limits],
        };
        if net.density.len() != net.nodes.len() {
            net.density = super::density::node_density(&net).into();
        }
        Ok((net, ids))
    }

    /// Reads the turn restrictions, toll booths and country of the pack behind `conn`;
    /// `node` gives the index of a `road_nodes.id`.
    pub(crate) fn read_tables(
        conn: &Connection,
        node: &dyn Fn(i64) -> Option<u32>,
    ) -> Result<Tables, NetworkError> {
        let mut restrictions = Vec::new();
        {
            let mut stmt = conn.prepare(
                "SELECT relation_id, restriction, from_way, via_node, via_ways, to_way, except_modes \
                 FROM turn_restrictions ORDER BY relation_id",
            )?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let kind: String = r.get(1)?;
                let only = kind.starts_with("only_");
                if !only && !kind.starts_with("no_") {
                    continue;
                }
                let via_node: Option<i64> = r.get(3)?;
                let via_ways: Option<String> = r.get(4)?;
                let via_ways: Vec<i64> = via_ways
                    .and_then(|s| serde_json::from_str(&s).ok())
                    .unwrap_or_default();
                let via_node = match via_node {
                    Some(n) => match node(n) {
                        Some(i) => Some(i),
                        None => continue,
                    },
                    None => None,
                };
                if via_node.is_none() && via_ways.is_empty() {
                    continue;
                }
                restrictions.push(Restriction {
                    relation_id: r.get(0)?,
                    only,
                    from_way: r.get(2)?,
                    via_node,
                    via_ways,
                    to_way: r.get(5)?,
                    except: r.get(6)?,
                });
            }
        }
        let mut toll_booths = Vec::new();
        {
            let mut stmt = conn
                .prepare("SELECT osm_id, node, lat, lng, name FROM toll_booths ORDER BY osm_id")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let at_node: Option<i64> = r.get(1)?;
                toll_booths.push(TollBooth {
                    osm_id: r.get(0)?,
                    node: at_node.and_then(node),
                    at: Pt::new(r.get(2)?, r.get(3)?),
                    name: r.get(4)?,
                });
            }
        }
        let country: String = conn
            .query_row(
                "SELECT upper(country_code) FROM places WHERE country_code IS NOT NULL \
                 AND country_code != '' GROUP BY upper(country_code) ORDER BY count(*) DESC LIMIT 1",
                [],
                |r| r.get(0),
            )
            .unwrap_or_default();
        Ok(Tables {
            restrictions,
            toll_booths,
            country,
        })
    }

    /// The default limits of edge `e`'s country.
    pub fn limits_of(&self, e: &RoadEdge) -> &CountryLimits {
        self.country_limits
            .get(usize::from(e.limits))
            .unwrap_or(&self.limits)
    }

    /// The points of edge `e` from `from` to `to`.
    pub fn geometry(&self, e: u32) -> &[Pt] {
        let (a, b) = self.edges[e as usize].geometry();
        &self.points[a as usize..b as usize]
    }

    /// The name of an edge (empty when unnamed).
    pub fn name(&self, e: u32) -> &str {
        &self.names[self.edges[e as usize].name as usize]
    }

    /// The `ref` of an edge (empty when none).
    pub fn road_ref(&self, e: u32) -> &str {
        &self.names[self.edges[e as usize].r#ref as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_records_keep_every_field() {
        assert_eq!(std::mem::size_of::<RoadEdge>(), 64);
        for (i, highway) in Highway::ALL.into_iter().enumerate() {
            assert_eq!(highway as usize, i);
            assert_eq!(Highway::from_code(highway as u8), highway);
            let f = EdgeFields {
                id: 7 + i as i64,
                way_id: -3,
                from: 1,
                to: u32::MAX,
                length_m: 12.5,
                highway,
                name: 4,
                r#ref: 5,
                maxspeed: (i % 2 == 0).then_some(50.0 + i as f64),
                oneway: [-1, 0, 1][i % 3],
                access: [i % 2 == 0, true, i % 3 == 0, false],
                restricted: [false, i % 2 == 1, true, i % 5 == 0],
                toll: i % 2 == 0,
                ferry: i % 3 == 0,
                tracktype: [None, Some(1), Some(3), Some(5)][i % 4],
                geometry: (10, 20 + i as u32),
                limits: i as u8,
            };
            let e = RoadEdge::new(&f);
            let back = e.fields();
            assert_eq!(format!("{back:?}"), format!("{f:?}"));
            for p in Profile::ALL {
                assert_eq!(e.allows(p), f.access[p.index()]);
                assert_eq!(e.restricted(p), f.restricted[p.index()]);
            }
        }
        assert_eq!(Highway::from_code(200), Highway::Other);
    }
}
