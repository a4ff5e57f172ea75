//! Roads layer: `road_nodes`, `road_edges` (+ R-tree), `turn_restrictions`, `toll_booths`.
//!
//! Rules:
//!
//! * **Routable ways**: `highway` in [`ROUTABLE_HIGHWAYS`] (not `area=yes`), and
//!   `route=ferry` ways (`highway = 'ferry'`, `ferry = 1`). `construction`, `proposed`,
//!   `abandoned`, `platform`, … are not in the list and are skipped.
//! * **Graph nodes** (`road_nodes`, ids dense from 1 in OSM id order): the end nodes of every
//!   routable way piece, nodes used twice or more by routable ways, toll booth nodes and
//!   restriction via-nodes lying on a routable way. A node reference missing from the
//!   extract splits the way (both sides keep their own end nodes), so clipped extracts build.
//! * **Edges**: a way piece split at every graph node; `geometry` is the polyline6 of every
//!   coordinate from `from_node` to `to_node` (both included), `length_m` the haversine
//!   length of that line.
//! * **oneway** is the car/truck direction: `yes`/`true`/`1` → 1, `-1`/`reverse` → -1,
//!   `no`/`false`/`0` → 0, else implied 1 for `highway=motorway` and
//!   `junction=roundabout|circular`. Bicycles follow it too, except where `oneway:bicycle=no`
//!   or `cycleway*=opposite*` allow contraflow: there a second, bicycle-only edge is written
//!   for the opposite direction (same `way_id`, `oneway` reversed, car/truck/foot 0).
//!   Pedestrians ignore `oneway` (readers routing on foot treat every edge as two-way).
//! * **Access** per mode: a highway default ([`default_access`]) overridden by `access`, then
//!   `vehicle`, then `motor_vehicle`, then `motorcar` (car) / `hgv` (truck), `bicycle`, `foot`
//!   (the most specific tag wins). Three values ([`ModeAccess`], stored 1, 2, 0):
//!   `yes`, `permissive`, `designated`, `official`, `discouraged`, `permit` allow;
//!   `destination`, `delivery`, `customers`, `private` and `no` **restrict**: the edge may only
//!   be the first or last part of a trip from or to a point on or behind it, never a through
//!   road (the router's rule, ADR 0010); anything else (`agricultural`, `forestry`,
//!   `use_sidepath`, …) and a class that does not allow the mode by default forbid. A
//!   restricting value does not open a road closed to the mode (its class forbids it and no
//!   less specific tag allowed it): a path tagged `motorcar=no` stays closed to cars.
//!   `motorroad=yes` forbids foot and bicycle.
//! * **toll**: `toll=yes` or any `toll:*=yes`.
//! * **tracktype** ([`parse_tracktype`]): on `highway=track` ways, `grade1` … `grade5` → 1 … 5;
//!   stored per attribute row in `road_track_grades` (pack format 11: it sets a track's
//!   driving speed).
//! * **maxspeed** ([`parse_maxspeed`]): numbers (km/h), `mph`/`knots` units, `walk` → 7,
//!   `none`/`signals`/`variable` → NULL, country implicit values (`DE:urban` → 50,
//!   `DE:rural` → 100, `FR:rural` → 80, `GB:nsl_single` → 96.56, …).
//! * **Turn restrictions** from `type=restriction` relations with a `restriction` (or
//!   `restriction:motorcar`) value, exactly one `from` way, one `to` way (both routable in the
//!   extract) and a `via` node on the graph or `via` ways that are all routable; `via_ways` is
//!   a JSON array of way ids, `except_modes` the raw `except` tag. Other relations are
//!   counted in `turn_restrictions_skipped`.
//! * **Toll booths**: `barrier=toll_booth` nodes; `node` is the `road_nodes.id` when the booth
//!   lies on a routable way.

use std::collections::HashSet;

use rusqlite::{Transaction, params};
use waymark_core::geo::{BBox, Pt, encode_polyline6, road_length_m};

use super::edge_rows::{EdgeRow, EdgeWriter};
use super::models::{MemberKind, OsmData, OsmError, OsmStats, Tags};
pub use super::road_graph::{Piece, density_grid, graph_nodes, routable_pieces};
use waymark_core::routing::density;

/// `highway` values that are routable.
pub const ROUTABLE_HIGHWAYS: &[&str] = &[
    "motorway",
    "trunk",
    "primary",
    "secondary",
    "tertiary",
    "unclassified",
    "residential",
    "motorway_link",
    "trunk_link",
    "primary_link",
    "secondary_link",
    "tertiary_link",
    "service",
    "living_street",
    "road",
    "track",
    "path",
    "footway",
    "cycleway",
    "pedestrian",
    "steps",
    "bridleway",
];

/// The `highway` class of a routable way (`"ferry"` for `route=ferry`), `None` otherwise.
pub fn is_routable(tags: &Tags) -> Option<&str> {
    if tags.is("route", "ferry") {
        return Some("ferry");
    }
    let hw = tags.get("highway")?;
    if tags.is("area", "yes") || !ROUTABLE_HIGHWAYS.contains(&hw) {
        return None;
    }
    Some(hw)
}

/// Access of one mode to an edge, as the access columns store it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ModeAccess {
    /// Not allowed (stored 0).
    No,
    /// Allowed (stored 1).
    Yes,
    /// Allowed only to reach or leave a point on or behind the edge (stored 2):
    /// `destination`, `delivery`, `customers`, `private`, `no`.
    Restricted,
}

impl ModeAccess {
    /// The stored value: 0, 1 or 2.
    pub fn code(self) -> i64 {
        match self {
            ModeAccess::No => 0,
            ModeAccess::Yes => 1,
            ModeAccess::Restricted => 2,
        }
    }

    /// Whether the mode may use the edge at all (freely or restricted).
    pub fn usable(self) -> bool {
        self != ModeAccess::No
    }
}

impl From<bool> for ModeAccess {
    fn from(v: bool) -> Self {
        if v { ModeAccess::Yes } else { ModeAccess::No }
    }
}

/// Access of one edge per mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Cars.
    pub car: ModeAccess,
    /// Trucks.
    pub truck: ModeAccess,
    /// Pedestrians.
    pub foot: ModeAccess,
    /// Bicycles.
    pub bicycle: ModeAccess,
}

/// Default access of a highway class: motorways (and links, `motorroad`) are motor-only,
/// footway/path/steps/pedestrian/bridleway forbid motor vehicles (`path` allows bicycles,
/// `bridleway` only foot), cycleways allow bicycles and foot, tracks allow cars but not
/// trucks, everything else allows every mode.
pub fn default_access(highway: &str) -> Access {
    let (car, truck, foot, bicycle) = match highway {
        "motorway" | "motorway_link" => (true, true, false, false),
        "footway" | "steps" | "pedestrian" | "bridleway" => (false, false, true, false),
        "path" => (false, false, true, true),
        "cycleway" => (false, false, true, true),
        "track" => (true, false, true, true),
        _ => (true, true, true, true),
    };
    Access {
        car: car.into(),
        truck: truck.into(),
        foot: foot.into(),
        bicycle: bicycle.into(),
    }
}

fn allowed(v: &str) -> Option<ModeAccess> {
    let v = v.split(';').next().unwrap_or("").trim();
    match v {
        "yes" | "permissive" | "designated" | "official" | "discouraged" | "permit" => {
            Some(ModeAccess::Yes)
        }
        "destination" | "delivery" | "customers" | "private" | "no" => Some(ModeAccess::Restricted),
        "" | "unknown" => None,
        _ => Some(ModeAccess::No),
    }
}

/// Access of a way from its tags (see the module rules).
pub fn access(highway: &str, tags: &Tags) -> Access {
    let default = default_access(highway);
    let mut a = default;
    let get = |k: &str| tags.get(k).and_then(allowed);
    // A restricting value restricts a mode the road is otherwise open to; on a road closed to
    // the mode (its class forbids it and no less specific tag opened it) it opens nothing: a
    // path tagged `motorcar=no` stays closed to cars.
    let set = |mode: &mut ModeAccess, default: ModeAccess, v: ModeAccess| {
        if !(v == ModeAccess::Restricted && *mode == ModeAccess::No && default == ModeAccess::No) {
            *mode = v;
        }
    };
    if let Some(v) = get("access") {
        set(&mut a.car, default.car, v);
        set(&mut a.truck, default.truck, v);
        set(&mut a.foot, default.foot, v);
        set(&mut a.bicycle, default.bicycle, v);
    }
    if let Some(v) = get("vehicle") {
        set(&mut a.car, default.car, v);
        set(&mut a.truck, default.truck, v);
        set(&mut a.bicycle, default.bicycle, v);
    }
    if let Some(v) = get("motor_vehicle") {
        set(&mut a.car, default.car, v);
        set(&mut a.truck, default.truck, v);
    }
    if let Some(v) = get("motorcar") {
        set(&mut a.car, default.car, v);
    }
    if let Some(v) = get("hgv") {
        set(&mut a.truck, default.truck, v);
    }
    if let Some(v) = get("bicycle") {
        set(&mut a.bicycle, default.bicycle, v);
    }
    if let Some(v) = get("foot") {
        set(&mut a.foot, default.foot, v);
    }
    if tags.is("motorroad", "yes") {
        a.foot = ModeAccess::No;
        a.bicycle = ModeAccess::No;
    }
    a
}

/// Car oneway of a way: 1, -1 or 0 (see the module rules).
pub fn oneway(highway: &str, tags: &Tags) -> i64 {
    match tags.get("oneway") {
        Some("yes" | "true" | "1") => 1,
        Some("-1" | "reverse") => -1,
        Some("no" | "false" | "0") => 0,
        _ => {
            if highway == "motorway"
                || tags.is("junction", "roundabout")
                || tags.is("junction", "circular")
            {
                1
            } else {
                0
            }
        }
    }
}

/// Whether bicycles may ride against a car oneway.
pub fn bicycle_contraflow(tags: &Tags) -> bool {
    tags.is("oneway:bicycle", "no")
        || [
            "cycleway",
            "cycleway:left",
            "cycleway:right",
            "cycleway:both",
        ]
        .iter()
        .any(|k| tags.get(k).is_some_and(|v| v.starts_with("opposite")))
}

/// Whether the way is tolled.
pub fn is_toll(tags: &Tags) -> bool {
    tags.iter()
        .any(|(k, v)| (k == "toll" || k.starts_with("toll:")) && v == "yes")
}

/// Parses a track's OSM `tracktype` value (`grade1` to `grade5`) into its grade, 1 to 5
/// (`None` for anything else).
pub fn parse_tracktype(v: &str) -> Option<u8> {
    let grade: u8 = v.trim().strip_prefix("grade")?.parse().ok()?;
    (1..=5).contains(&grade).then_some(grade)
}

/// Parses an OSM `maxspeed` value into km/h (`None` when absent, unlimited or unknown).
pub fn parse_maxspeed(v: &str) -> Option<f64> {
    let v = v.split(';').next().unwrap_or("").trim();
    match v {
        "walk" => return Some(7.0),
        "none" | "signals" | "variable" | "" => return None,
        _ => {}
    }
    let num_end = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(v.len());
    if num_end > 0 {
        let n: f64 = v[..num_end].parse().ok()?;
        let unit = v[num_end..].trim();
        return match unit {
            "" | "km/h" | "kmh" | "kph" => Some(n),
            "mph" => Some(n * 1.609344),
            "knots" => Some(n * 1.852),
            _ => None,
        };
    }
    let (country, kind) = v.split_once(':')?;
    let kind = kind.trim();
    let mph = |n: f64| Some((n * 1.609344 * 100.0).round() / 100.0);
    match (country, kind) {
        (_, "walk" | "living_street") => Some(7.0),
        ("GB", "nsl_single") => mph(60.0),
        ("GB", "nsl_dual" | "motorway") => mph(70.0),
        ("GB" | "UK", "nsl_restricted" | "urban") => mph(30.0),
        (_, "urban") => Some(50.0),
        (_, "zone30" | "zone:30" | "bicycle_road") => Some(30.0),
        (_, "zone20" | "zone:20") => Some(20.0),
        (_, "zone10" | "zone:10") => Some(10.0),
        ("DE" | "AT" | "CZ" | "SK" | "PL" | "SI" | "HR" | "HU" | "RO" | "NO" | "FI", "rural") => {
            Some(if country == "NO" { 80.0 } else { 100.0 })
        }
        ("FR" | "CH" | "NL" | "ES" | "BE" | "LU" | "AD" | "MC", "rural") => Some(80.0),
        ("IT" | "PT", "rural") => Some(90.0),
        ("SE" | "DK" | "LI", "rural") => Some(80.0),
        ("DE", "motorway") => None,
        (
            "AT" | "FR" | "IT" | "NL" | "SI" | "HR" | "CZ" | "SK" | "HU" | "RO" | "PL",
            "motorway",
        ) => Some(130.0),
        (_, "motorway") => Some(120.0),
        (_, "trunk") => Some(100.0),
        _ => None,
    }
}

/// Road node ids: dense from 1 in OSM id order over the sorted graph nodes that have a
/// position. A sorted list searched by halves, not a map: a country has millions of them.
struct NodeIds {
    osm: Vec<i64>,
    kept: Vec<bool>,
}

impl NodeIds {
    fn new(osm: Vec<i64>, has_position: impl Fn(&i64) -> bool) -> Self {
        let kept: Vec<bool> = osm.iter().map(has_position).collect();
        NodeIds { osm, kept }
    }

    /// The road node id of OSM node `osm`.
    fn get(&self, osm: &i64) -> Option<i64> {
        let i = self.osm.binary_search(osm).ok()?;
        self.kept
            .get(i)
            .copied()
            .unwrap_or(false)
            .then_some(i as i64 + 1)
    }

    fn contains_key(&self, osm: &i64) -> bool {
        self.get(osm).is_some()
    }

    /// `(road node id, OSM id)` of every road node, in order.
    fn iter(&self) -> impl Iterator<Item = (i64, &i64)> + '_ {
        self.osm
            .iter()
            .zip(&self.kept)
            .enumerate()
            .filter(|(_, (_, k))| **k)
            .map(|(i, (osm, _))| (i as i64 + 1, osm))
    }

    fn len(&self) -> usize {
        self.kept.iter().filter(|k| **k).count()
    }
}

/// Builds the roads layer.
pub fn build(
    data: &OsmData,
    tx: &Transaction<'_>,
    stats: &mut OsmStats,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<(), OsmError> {
    let pieces = routable_pieces(data);
    let routable_ways: HashSet<i64> = pieces.iter().map(|p| p.0).collect();
    // Graph nodes: those of this network; in a cut, those the whole extract has on the kept
    // ways (junction or not), plus both ends of every border segment, which are no junctions
    // (crate::cut).
    let mut graph = graph_nodes(data, &pieces);
    let mut not_junction: HashSet<i64> = HashSet::new();
    if let Some(cut) = &data.cut {
        let on_pieces: HashSet<i64> = pieces.iter().flat_map(|p| p.2.iter().copied()).collect();
        let border = crate::cut::border_nodes(&cut.region, &pieces, &data.coords);
        graph = cut
            .full_graph
            .iter()
            .copied()
            .filter(|n| on_pieces.contains(n))
            .collect();
        for n in border {
            if graph.insert(n) {
                not_junction.insert(n);
            }
        }
        // Ends of pieces the cut made (none: ways are kept whole) stay graph nodes.
        for (_, _, refs) in &pieces {
            for n in [refs.first(), refs.last()].into_iter().flatten() {
                if graph.insert(*n) {
                    not_junction.insert(*n);
                }
            }
        }
    }

    // road_nodes: dense ids from 1 in OSM id order
    let mut sorted: Vec<i64> = graph.into_iter().collect();
    sorted.sort_unstable();
    let node_id = NodeIds::new(sorted, |osm| data.coords.contains_key(osm));
    {
        let mut ins = tx.prepare(
            "INSERT INTO road_nodes(id, osm_id, lat, lng, junction) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (id, osm) in node_id.iter() {
            let Some(p) = data.coords.get(osm) else {
                continue;
            };
            ins.execute(params![id, osm, p.lat, p.lng, !not_junction.contains(osm)])?;
        }
    }
    // In a cut, every node's road density over the whole extract (crate::cut); a whole
    // extract's pack stores none: the engine measures the same over its roads.
    if let Some(cut) = &data.cut {
        tx.execute_batch(waymark_core::packs::schema::ROAD_NODE_DENSITY)?;
        let mut ins = tx.prepare("INSERT INTO road_node_density(node, density) VALUES (?1, ?2)")?;
        for (id, osm) in node_id.iter() {
            if let Some(p) = data.coords.get(osm) {
                ins.execute(params![id, density::to_stored(cut.density.at(*p))])?;
            }
        }
    }
    stats.road_nodes = node_id.len() as u64;
    progress("roads:nodes", 1, 4);

    // edges: shared attribute rows, segments, and one R-tree box per run of a way's edges
    let mut write = EdgeWriter::new(tx)?;
    let total = pieces.len() as u64;
    for (i, (way_id, hw, refs)) in pieces.iter().enumerate() {
        let Some(way) = data.ways.get(way_id) else {
            continue;
        };
        let tags = &way.tags;
        let ferry = *hw == "ferry";
        let acc = if ferry {
            let mut a = access("unclassified", tags);
            if tags.is("motor_vehicle", "no") || tags.is("motorcar", "no") {
                a.car = ModeAccess::No;
            }
            a
        } else {
            access(hw, tags)
        };
        let ow = if ferry { 0 } else { oneway(hw, tags) };
        let contraflow = ow != 0 && acc.bicycle.usable() && bicycle_contraflow(tags);
        let toll = is_toll(tags);
        let maxspeed = tags.get("maxspeed").and_then(parse_maxspeed);
        let tracktype = if *hw == "track" {
            tags.get("tracktype").and_then(parse_tracktype)
        } else {
            None
        };
        let name = tags.get("name");
        let rf = tags.get("ref");
        let mut start = 0usize;
        for j in 1..refs.len() {
            let is_node = node_id.contains_key(&refs[j]);
            if !is_node && j + 1 != refs.len() {
                continue;
            }
            let seg = &refs[start..=j];
            let (Some(from), Some(to)) = (node_id.get(&refs[start]), node_id.get(&refs[j])) else {
                start = j;
                continue;
            };
            let pts = data.way_coords(seg);
            let row = EdgeRow {
                way_id: *way_id,
                from,
                to,
                length: road_length_m(&pts),
                highway: hw,
                name,
                r#ref: rf,
                maxspeed,
                oneway: ow,
                access: acc,
                toll,
                ferry,
                tracktype,
                geometry: encode_polyline6(&pts)
                    .map_err(|why| OsmError::Geometry { way: *way_id, why })?,
                bbox: BBox::of(pts.iter().copied()).unwrap_or(BBox::point(Pt::default())),
            };
            write.edge(&row)?;
            stats.road_edges += 1;
            if toll {
                stats.toll_edges += 1;
            }
            if ferry {
                stats.ferry_edges += 1;
            }
            if contraflow {
                let bike = EdgeRow {
                    oneway: -ow,
                    access: Access {
                        car: ModeAccess::No,
                        truck: ModeAccess::No,
                        foot: ModeAccess::No,
                        bicycle: acc.bicycle,
                    },
                    ..row
                };
                write.edge(&bike)?;
                stats.road_edges += 1;
                if toll {
                    stats.toll_edges += 1;
                }
            }
            start = j;
        }
        if i % 4096 == 0 {
            progress("roads:edges", i as u64, total);
        }
    }
    stats.road_attrs = write.finish(tx)?;
    progress("roads:edges", total, total);

    // turn restrictions
    let mut ins = tx.prepare(
        "INSERT INTO turn_restrictions(relation_id, restriction, from_way, via_node, via_ways, \
         to_way, except_modes) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for rel in &data.relations {
        if !rel.tags.is("type", "restriction") {
            continue;
        }
        let restriction = rel
            .tags
            .get("restriction")
            .or_else(|| rel.tags.get("restriction:motorcar"));
        let from: Vec<i64> = rel
            .members
            .iter()
            .filter(|m| m.role == "from" && m.kind == MemberKind::Way)
            .map(|m| m.id)
            .collect();
        let to: Vec<i64> = rel
            .members
            .iter()
            .filter(|m| m.role == "to" && m.kind == MemberKind::Way)
            .map(|m| m.id)
            .collect();
        let via_node: Vec<i64> = rel
            .members
            .iter()
            .filter(|m| m.role == "via" && m.kind == MemberKind::Node)
            .map(|m| m.id)
            .collect();
        let via_ways: Vec<i64> = rel
            .members
            .iter()
            .filter(|m| m.role == "via" && m.kind == MemberKind::Way)
            .map(|m| m.id)
            .collect();
        let ok = match (restriction, from.as_slice(), to.as_slice()) {
            (Some(kind), [f], [t]) => {
                // In a cut, an `only_*` restriction whose `to` way lies beyond the region
                // still forbids every other turn (the graph then has none from `from`).
                let to_ok =
                    routable_ways.contains(t) || (data.cut.is_some() && kind.starts_with("only_"));
                routable_ways.contains(f)
                    && to_ok
                    && match (via_node.as_slice(), via_ways.is_empty()) {
                        ([n], true) => node_id.contains_key(n),
                        ([], false) => via_ways.iter().all(|w| routable_ways.contains(w)),
                        _ => false,
                    }
            }
            _ => false,
        };
        if !ok {
            stats.turn_restrictions_skipped += 1;
            continue;
        }
        let via_ways_json = if via_ways.is_empty() {
            None
        } else {
            Some(serde_json::to_string(&via_ways)?)
        };
        ins.execute(params![
            rel.id,
            restriction,
            from.first(),
            via_node.first().and_then(|n| node_id.get(n)),
            via_ways_json,
            to.first(),
            rel.tags.get("except"),
        ])?;
        stats.turn_restrictions += 1;
    }
    drop(ins);
    progress("roads:restrictions", 3, 4);

    // toll booths
    let mut ins = tx.prepare(
        "INSERT INTO toll_booths(osm_id, node, lat, lng, name) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for n in &data.nodes {
        if n.tags.is("barrier", "toll_booth") {
            ins.execute(params![
                n.id,
                node_id.get(&n.id),
                n.lat,
                n.lng,
                n.tags.get("name")
            ])?;
            stats.toll_booths += 1;
        }
    }
    progress("roads", 4, 4);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(kv: &[(&str, &str)]) -> Tags {
        Tags::from_pairs(kv)
    }

    #[test]
    fn tracktype_grades() {
        assert_eq!(parse_tracktype("grade1"), Some(1));
        assert_eq!(parse_tracktype("grade5"), Some(5));
        assert_eq!(parse_tracktype("grade6"), None);
        assert_eq!(parse_tracktype("grade2;grade3"), None);
    }

    #[test]
    fn maxspeed_values() {
        assert_eq!(parse_maxspeed("50"), Some(50.0));
        assert_eq!(parse_maxspeed("30 mph").map(|v| v.round()), Some(48.0));
        assert_eq!(parse_maxspeed("none"), None);
        assert_eq!(parse_maxspeed("DE:urban"), Some(50.0));
        assert_eq!(parse_maxspeed("DE:rural"), Some(100.0));
        assert_eq!(parse_maxspeed("walk"), Some(7.0));
        assert_eq!(parse_maxspeed("FR:rural"), Some(80.0));
        assert_eq!(parse_maxspeed("fast"), None);
    }

    #[test]
    fn oneway_and_access() {
        assert_eq!(oneway("motorway", &tags(&[])), 1);
        assert_eq!(
            oneway("residential", &tags(&[("junction", "roundabout")])),
            1
        );
        assert_eq!(oneway("residential", &tags(&[("oneway", "-1")])), -1);
        assert_eq!(oneway("motorway", &tags(&[("oneway", "no")])), 0);
        use ModeAccess::{No, Restricted, Yes};
        let a = access("motorway", &tags(&[]));
        assert!(a.car == Yes && a.foot == No && a.bicycle == No);
        let a = access("footway", &tags(&[("bicycle", "yes")]));
        assert!(a.car == No && a.foot == Yes && a.bicycle == Yes);
        let a = access("residential", &tags(&[("access", "private")]));
        assert!(a.car == Restricted && a.foot == Restricted);
        let a = access("residential", &tags(&[("motor_vehicle", "destination")]));
        assert!(a.car == Restricted && a.truck == Restricted && a.foot == Yes);
        let a = access("residential", &tags(&[("access", "no"), ("foot", "yes")]));
        assert!(a.car == Restricted && a.bicycle == Restricted && a.foot == Yes);
        let a = access("footway", &tags(&[]));
        assert_eq!(a.car, No, "a class default stays a prohibition");
        let a = access("path", &tags(&[("motorcar", "no"), ("bicycle", "yes")]));
        assert!(
            a.car == No && a.truck == No && a.bicycle == Yes,
            "restricting opens nothing"
        );
        let a = access("motorway", &tags(&[("foot", "no"), ("access", "private")]));
        assert!(a.foot == No && a.bicycle == No && a.car == Restricted);
        let a = access(
            "path",
            &tags(&[("access", "yes"), ("motor_vehicle", "private")]),
        );
        assert!(
            a.car == Restricted && a.foot == Yes,
            "opened by a less specific tag"
        );
        let a = access("track", &tags(&[("motor_vehicle", "agricultural")]));
        assert!(a.car == No && a.foot == Yes);
        assert!(is_toll(&tags(&[("toll:hgv", "yes")])));
    }
}
