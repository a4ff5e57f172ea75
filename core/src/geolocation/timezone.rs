//! Timezone of a coordinate: point-in-polygon over the packs' `timezones` layer, then the
//! offsets in force at an instant from the tz database (chrono-tz).
//!
//! The polygons of every loaded pack with the layer are decoded once per pack set and indexed
//! by an adaptive grid ([`TimezoneIndexBuilder::build`]):
//!
//! * 1° cells cover the world; a cell met by more than [`LEAF_EDGES`] polygon edges is split
//!   in four, recursively (down to 1/2^[`MAX_DEPTH`]°, about 7 m).
//! * A cell that no edge meets lies entirely inside the same zones: it stores its answer.
//! * Any other leaf stores the few edges meeting it, grouped by zone, and the zones that
//!   contain a reference point `r` inside it. A point `q` of the leaf is inside a zone when `r`
//!   is and the segment `r → q` crosses the zone's edges an even number of times (or `r` is
//!   not and it crosses them an odd number of times). The segment lies in the leaf, so only
//!   the leaf's edges can cross it.
//!
//! The zones containing each reference point are computed while building: for the 1° cells
//! by one even-odd sweep per row of cells (the same rule as a horizontal ray cast), for the
//! cells below them by the same parity rule from the parent's reference point.
//!
//! The answer is the first zone (in load order) containing the point, as a scan of the
//! polygons would give. Points in no polygon (open sea the data does not cover, gaps of the
//! simplified coasts, the poles) get the nautical zone `Etc/GMT±N` of their longitude.
use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::{OffsetComponents, OffsetName, Tz};

use crate::api::TimezoneResult;
use crate::geo::{PolylineError, decode_polyline6};

/// A cell met by more edges than this is split (unless it is already [`MAX_DEPTH`] deep).
pub const LEAF_EDGES: usize = 16;
/// Depth limit of the splits below the 1° cells.
pub const MAX_DEPTH: u32 = 14;

/// No zone (the nautical zone of the longitude answers).
const NONE: u16 = u16::MAX;
/// Node tags (top two bits of a node word).
const TAG_UNIFORM: u32 = 0;
const TAG_SPLIT: u32 = 1 << 30;
const TAG_LEAF: u32 = 2 << 30;
const TAG_MASK: u32 = 3 << 30;
/// Where the reference point of a cell lies, as fractions of the cell's size from its
/// south-west corner: near the centre, but off the round values (half degrees, the meridians
/// of the nautical zones) that polygon vertices and edges take.
const REF_X: f64 = 0.513_709_37;
const REF_Y: f64 = 0.507_134_51;
/// Number of 1° cells.
const TOP_W: usize = 360;
const TOP_H: usize = 180;

type Point = [f64; 2];

/// Why a pack's timezone polygons cannot be indexed, or a zone has no offsets.
#[derive(Debug, thiserror::Error)]
pub enum TimezoneError {
    /// More zones than the index numbers.
    #[error("{tzid}: more than {NONE} zones")]
    TooManyZones {
        /// The zone that did not fit.
        tzid: String,
    },
    /// A stored shape that is not a JSON array of polygons of encoded rings.
    #[error("{tzid}: shape: {source}")]
    Shape {
        /// Zone.
        tzid: String,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// A ring that is not a valid precision-6 polyline.
    #[error("{tzid}: {source}")]
    Ring {
        /// Zone.
        tzid: String,
        /// The polyline error.
        source: PolylineError,
    },
    /// More vertices than the index numbers.
    #[error("too many timezone vertices")]
    TooManyVertices,
    /// A zone the tz database of this build does not know.
    #[error("`{0}` is not in the tz database of this build")]
    UnknownZone(String),
}

/// Zones waiting to be indexed, in load order.
#[derive(Debug, Default)]
pub struct TimezoneIndexBuilder {
    tzids: Vec<Box<str>>,
    /// `(lng, lat)` vertices of every ring, each ring closed (last = first).
    vertices: Vec<Point>,
    /// Index of the first vertex of each edge (the edge runs to the next vertex).
    edges: Vec<u32>,
    /// Zone of the edge starting at each vertex.
    edge_zone: Vec<u16>,
}

/// Figures of a built index (for the performance notes).
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct TimezoneIndexStats {
    /// Zones.
    pub zones: usize,
    /// Polygon vertices kept.
    pub vertices: usize,
    /// Distinct polygon edges.
    pub edges: usize,
    /// Nodes of the grid (1° cells and their splits).
    pub nodes: usize,
    /// Leaves that hold edges.
    pub edge_leaves: usize,
    /// Edge references held by the leaves (an edge meeting several leaves counts in each).
    pub edge_refs: usize,
    /// Approximate heap bytes of the index.
    pub bytes: usize,
}

/// A leaf of the grid that edges meet. Its reference point `r` is not stored: it is
/// `o + (REF_X, REF_Y) · size` for the leaf's south-west corner `o` and side `size`, which the
/// descent computes.
#[derive(Debug, Clone, Copy)]
struct Leaf {
    /// Zones containing `r`: `sets[set_start..set_start + set_len]`, ascending.
    set_start: u32,
    /// Edge groups: `groups[group_start..group_start + group_len]`.
    group_start: u32,
    set_len: u16,
    group_len: u16,
}

/// The edges of one zone in a leaf: `edge_refs[start..start + len]`.
#[derive(Debug, Clone, Copy)]
struct Group {
    zone: u16,
    start: u32,
    len: u32,
}

/// Timezone polygons indexed by an adaptive grid (see the module documentation).
#[derive(Debug, Default)]
pub struct TimezoneIndex {
    tzids: Vec<Box<str>>,
    vertices: Vec<Point>,
    /// Node words: the first `TOP_W * TOP_H` are the 1° cells, row by row from the south
    /// west; split nodes point at four consecutive children (south-west, south-east,
    /// north-west, north-east).
    nodes: Vec<u32>,
    leaves: Vec<Leaf>,
    sets: Vec<u16>,
    groups: Vec<Group>,
    edge_refs: Vec<u32>,
    edge_count: usize,
}

/// Twice the signed area of `(a, b, c)`: > 0 when `c` is left of `a → b`.
#[inline]
fn orient(a: Point, b: Point, c: Point) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// Whether `c` lies left of the line `a → b`, with `c` nudged east (then north) when it lies
/// on the line: a point on a polygon's edge counts as lying just east (north) of it, as in
/// an even-odd ray cast towards the east, so lookups on the antimeridian, the poles and
/// cell borders answer like a scan of the polygons.
#[inline]
fn left_of(a: Point, b: Point, c: Point) -> bool {
    let o = orient(a, b, c);
    if o != 0.0 {
        o > 0.0
    } else if a[1] != b[1] {
        a[1] > b[1]
    } else {
        b[0] > a[0]
    }
}

/// Whether `v` lies left of the line `p → q`, with `q` nudged as in [`left_of`]. A vertex
/// shared by two edges is classified once, so a path through it crosses the ring once or
/// not at all.
#[inline]
fn vertex_left_of(p: Point, q: Point, v: Point) -> bool {
    let o = orient(p, q, v);
    if o != 0.0 {
        o > 0.0
    } else if v[1] != p[1] {
        v[1] > p[1]
    } else {
        v[0] < p[0]
    }
}

/// Whether segment `p → q` crosses edge `a → b` (`p` is a reference point, `q` the point
/// looked up, nudged as in [`left_of`]).
#[inline]
fn crosses(p: Point, q: Point, a: Point, b: Point) -> bool {
    vertex_left_of(p, q, a) != vertex_left_of(p, q, b) && left_of(a, b, p) != left_of(a, b, q)
}

/// Whether segment `a → b` meets the closed box `[x0, x1] × [y0, y1]`.
fn meets_box(a: Point, b: Point, x0: f64, y0: f64, x1: f64, y1: f64) -> bool {
    if a[0].max(b[0]) < x0 || a[0].min(b[0]) > x1 || a[1].max(b[1]) < y0 || a[1].min(b[1]) > y1 {
        return false;
    }
    let s = [
        orient(a, b, [x0, y0]),
        orient(a, b, [x1, y0]),
        orient(a, b, [x0, y1]),
        orient(a, b, [x1, y1]),
    ];
    !(s.iter().all(|v| *v > 0.0) || s.iter().all(|v| *v < 0.0))
}

/// `set` with the membership of `zone` flipped (kept ascending).
fn toggle(set: &mut Vec<u16>, zone: u16) {
    match set.binary_search(&zone) {
        Ok(i) => {
            set.remove(i);
        }
        Err(i) => set.insert(i, zone),
    }
}

impl TimezoneIndexBuilder {
    /// Adds a zone from its stored shape (JSON array of polygons of polyline6 rings of
    /// `(lat, lng)` points). Zones already present (same tzid, from another pack) are skipped.
    pub fn add(&mut self, tzid: &str, shape: &str) -> Result<(), TimezoneError> {
        if self.tzids.iter().any(|z| &**z == tzid) {
            return Ok(());
        }
        if self.tzids.len() >= usize::from(NONE) {
            return Err(TimezoneError::TooManyZones {
                tzid: tzid.to_string(),
            });
        }
        let encoded: Vec<Vec<String>> =
            serde_json::from_str(shape).map_err(|source| TimezoneError::Shape {
                tzid: tzid.to_string(),
                source,
            })?;
        let zone = self.tzids.len() as u16;
        for rings in encoded {
            for ring in rings {
                let line = decode_polyline6(&ring).map_err(|source| TimezoneError::Ring {
                    tzid: tzid.to_string(),
                    source,
                })?;
                let pts: Vec<Point> = line.iter().map(|p| [p.lng, p.lat]).collect();
                self.add_ring(zone, &pts)?;
            }
        }
        self.tzids.push(tzid.into());
        Ok(())
    }

    fn add_ring(&mut self, zone: u16, pts: &[Point]) -> Result<(), TimezoneError> {
        let (Some(&first), Some(&last)) = (pts.first(), pts.last()) else {
            return Ok(());
        };
        let start = self.vertices.len();
        self.vertices.extend_from_slice(pts);
        if first != last {
            self.vertices.push(first);
        }
        if self.vertices.len() >= u32::MAX as usize {
            return Err(TimezoneError::TooManyVertices);
        }
        self.edge_zone.resize(self.vertices.len(), zone);
        for i in start..self.vertices.len() - 1 {
            if self.vertices[i] != self.vertices[i + 1] {
                self.edges.push(i as u32);
            }
        }
        Ok(())
    }

    /// Adds every zone of a pack's `timezones` table.
    pub fn add_pack(&mut self, conn: &rusqlite::Connection) -> Result<(), crate::error::Error> {
        let mut stmt = conn.prepare("SELECT tzid, shape FROM timezones ORDER BY id")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let (tzid, shape): (String, String) = (row.get(0)?, row.get(1)?);
            self.add(&tzid, &shape)?;
        }
        Ok(())
    }

    /// Number of zones.
    pub fn len(&self) -> usize {
        self.tzids.len()
    }

    /// Whether no zone was added.
    pub fn is_empty(&self) -> bool {
        self.tzids.is_empty()
    }

    /// Builds the grid.
    pub fn build(self) -> TimezoneIndex {
        let TimezoneIndexBuilder {
            tzids,
            vertices,
            edges,
            edge_zone,
        } = self;
        let edge = |e: u32| (vertices[e as usize], vertices[e as usize + 1]);
        // Edges meeting each 1° cell, and the edges spanning each row's reference latitude.
        let mut cells: Vec<Vec<u32>> = vec![Vec::new(); TOP_W * TOP_H];
        let mut rows: Vec<Vec<u32>> = vec![Vec::new(); TOP_H];
        for &e in &edges {
            let (a, b) = edge(e);
            let cx0 = top_col(a[0].min(b[0]));
            let cx1 = top_col(a[0].max(b[0]));
            let cy0 = top_row(a[1].min(b[1]));
            let cy1 = top_row(a[1].max(b[1]));
            for cy in cy0..=cy1 {
                let y0 = cy as f64 - 90.0;
                let ry = y0 + REF_Y;
                if (a[1] > ry) != (b[1] > ry) {
                    rows[cy].push(e);
                }
                for cx in cx0..=cx1 {
                    let x0 = cx as f64 - 180.0;
                    if meets_box(a, b, x0, y0, x0 + 1.0, y0 + 1.0) {
                        cells[cy * TOP_W + cx].push(e);
                    }
                }
            }
        }
        let mut index = TimezoneIndex {
            nodes: vec![0; TOP_W * TOP_H],
            tzids,
            edge_count: edges.len(),
            ..TimezoneIndex::default()
        };
        let mut crossings: Vec<(f64, u16)> = Vec::new();
        for (cy, row) in rows.iter().enumerate() {
            // Even-odd sweep from the east along the row's reference latitude: a reference
            // point is inside the zones whose edges cross the ray east of it an odd number of
            // times.
            let y = cy as f64 - 90.0 + REF_Y;
            crossings.clear();
            for &e in row {
                let (a, b) = edge(e);
                let x = (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]) + a[0];
                crossings.push((x, edge_zone[e as usize]));
            }
            crossings.sort_by(|p, q| q.0.total_cmp(&p.0));
            let mut inside: Vec<u16> = Vec::new();
            let mut next = 0;
            for cx in (0..TOP_W).rev() {
                let x = cx as f64 - 180.0 + REF_X;
                while let Some(&(cross_x, zone)) = crossings.get(next)
                    && cross_x > x
                {
                    toggle(&mut inside, zone);
                    next += 1;
                }
                let cell = std::mem::take(&mut cells[cy * TOP_W + cx]);
                let word = index.build_node(
                    &vertices,
                    &edge_zone,
                    [cx as f64 - 180.0, cy as f64 - 90.0],
                    1.0,
                    0,
                    cell,
                    [x, y],
                    inside.clone(),
                );
                index.nodes[cy * TOP_W + cx] = word;
            }
        }
        index.vertices = vertices;
        index.nodes.shrink_to_fit();
        index.leaves.shrink_to_fit();
        index.sets.shrink_to_fit();
        index.groups.shrink_to_fit();
        index.edge_refs.shrink_to_fit();
        index
    }
}

fn top_col(x: f64) -> usize {
    ((x + 180.0).floor().clamp(0.0, (TOP_W - 1) as f64)) as usize
}

fn top_row(y: f64) -> usize {
    ((y + 90.0).floor().clamp(0.0, (TOP_H - 1) as f64)) as usize
}

impl TimezoneIndex {
    /// Builds the node of the cell with south-west corner `o` and side `size`, met by `edges`,
    /// whose reference point `r` lies inside the zones `inside`; returns the node word.
    #[allow(clippy::too_many_arguments)]
    fn build_node(
        &mut self,
        vertices: &[Point],
        edge_zone: &[u16],
        o: Point,
        size: f64,
        depth: u32,
        mut edges: Vec<u32>,
        r: Point,
        inside: Vec<u16>,
    ) -> u32 {
        let edge = |e: u32| (vertices[e as usize], vertices[e as usize + 1]);
        if edges.is_empty() {
            return TAG_UNIFORM | u32::from(inside.first().copied().unwrap_or(NONE));
        }
        if edges.len() <= LEAF_EDGES || depth >= MAX_DEPTH {
            edges.sort_by_key(|&e| (edge_zone[e as usize], e));
            let group_start = self.groups.len() as u32;
            for &e in &edges {
                let zone = edge_zone[e as usize];
                let own = self.groups.len() as u32 > group_start;
                match self.groups.last_mut() {
                    Some(g) if own && g.zone == zone => g.len += 1,
                    _ => self.groups.push(Group {
                        zone,
                        start: self.edge_refs.len() as u32,
                        len: 1,
                    }),
                }
                self.edge_refs.push(e);
            }
            let leaf = Leaf {
                set_start: self.sets.len() as u32,
                group_start,
                // At most one group per edge, and LEAF_EDGES edges unless MAX_DEPTH was hit.
                set_len: inside.len().min(usize::from(u16::MAX)) as u16,
                group_len: (self.groups.len() as u32 - group_start).min(u32::from(u16::MAX)) as u16,
            };
            self.sets.extend_from_slice(&inside);
            self.leaves.push(leaf);
            return TAG_LEAF | (self.leaves.len() as u32 - 1);
        }
        let first = self.nodes.len();
        self.nodes.extend([0; 4]);
        let half = size / 2.0;
        for child in 0..4u32 {
            let co = [
                o[0] + f64::from(child & 1) * half,
                o[1] + f64::from(child >> 1) * half,
            ];
            let child_edges: Vec<u32> = edges
                .iter()
                .copied()
                .filter(|&e| {
                    let (a, b) = edge(e);
                    meets_box(a, b, co[0], co[1], co[0] + half, co[1] + half)
                })
                .collect();
            let cr = [co[0] + REF_X * half, co[1] + REF_Y * half];
            // Zones containing the child's reference point: the parent's, flipped for every
            // zone whose edges the segment r → cr crosses an odd number of times (the segment
            // lies in this cell, so `edges` holds every edge it can cross).
            let mut child_inside = inside.clone();
            for &e in &edges {
                let (a, b) = edge(e);
                if crosses(r, cr, a, b) {
                    toggle(&mut child_inside, edge_zone[e as usize]);
                }
            }
            let word = self.build_node(
                vertices,
                edge_zone,
                co,
                half,
                depth + 1,
                child_edges,
                cr,
                child_inside,
            );
            self.nodes[first + child as usize] = word;
        }
        TAG_SPLIT | first as u32
    }

    /// Number of zones.
    pub fn len(&self) -> usize {
        self.tzids.len()
    }

    /// Whether no zone is loaded.
    pub fn is_empty(&self) -> bool {
        self.tzids.is_empty()
    }

    /// Figures of the index.
    pub fn stats(&self) -> TimezoneIndexStats {
        use std::mem::size_of;
        TimezoneIndexStats {
            zones: self.tzids.len(),
            vertices: self.vertices.len(),
            edges: self.edge_count,
            nodes: self.nodes.len(),
            edge_leaves: self.leaves.len(),
            edge_refs: self.edge_refs.len(),
            bytes: self.vertices.len() * size_of::<Point>()
                + self.nodes.len() * 4
                + self.leaves.len() * size_of::<Leaf>()
                + self.sets.len() * 2
                + self.groups.len() * size_of::<Group>()
                + self.edge_refs.len() * 4
                + self.tzids.iter().map(|t| t.len() + 16).sum::<usize>(),
        }
    }

    /// The tz identifier at a point: the first zone whose polygon contains it, else the
    /// nautical zone of the longitude. A point on a polygon's edge belongs to the polygon on
    /// its east (north) side, and the meridian ±180° to the polygons east of -180°.
    pub fn lookup(&self, lat: f64, lng: f64) -> &str {
        let lng = if lng >= 180.0 { -180.0 } else { lng };
        match self.zone_at(lat, lng) {
            NONE => nautical_zone(lng),
            z => self.tzids.get(usize::from(z)).map_or("Etc/GMT", |t| &**t),
        }
    }

    fn zone_at(&self, lat: f64, lng: f64) -> u16 {
        if self.nodes.is_empty() {
            return NONE;
        }
        // 180° and -180° are one meridian: a point on it counts as just east of it (as a
        // point on any polygon edge does), so both answer as -180°.
        let x = if lng >= 180.0 {
            -180.0
        } else {
            lng.max(-180.0)
        };
        let y = lat.clamp(-90.0, 90.0);
        let (cx, cy) = (top_col(x), top_row(y));
        let mut o = [cx as f64 - 180.0, cy as f64 - 90.0];
        let mut size = 1.0;
        let mut word = self.nodes[cy * TOP_W + cx];
        loop {
            match word & TAG_MASK {
                TAG_SPLIT => {
                    size *= 0.5;
                    let east = x >= o[0] + size;
                    let north = y >= o[1] + size;
                    if east {
                        o[0] += size;
                    }
                    if north {
                        o[1] += size;
                    }
                    let child =
                        (word & !TAG_MASK) as usize + usize::from(east) + 2 * usize::from(north);
                    word = self.nodes[child];
                }
                TAG_LEAF => {
                    let r = [o[0] + REF_X * size, o[1] + REF_Y * size];
                    return self.leaf_zone((word & !TAG_MASK) as usize, r, [x, y]);
                }
                _ => return (word & 0xffff) as u16,
            }
        }
    }

    /// The first zone containing `q` in a leaf with edges.
    fn leaf_zone(&self, leaf: usize, r: Point, q: Point) -> u16 {
        let leaf = self.leaves[leaf];
        let set_start = leaf.set_start as usize;
        let inside = &self.sets[set_start..set_start + usize::from(leaf.set_len)];
        let group_start = leaf.group_start as usize;
        let groups = &self.groups[group_start..group_start + usize::from(leaf.group_len)];
        let mut best = NONE;
        for g in groups {
            let mut odd = inside.contains(&g.zone);
            for &e in &self.edge_refs[g.start as usize..(g.start + g.len) as usize] {
                let a = self.vertices[e as usize];
                let b = self.vertices[e as usize + 1];
                odd ^= crosses(r, q, a, b);
            }
            if odd {
                best = best.min(g.zone);
            }
        }
        for &z in inside {
            if z < best && !groups.iter().any(|g| g.zone == z) {
                best = z;
            }
        }
        best
    }
}

/// The nautical zones, from `Etc/GMT+12` (west) to `Etc/GMT-12` (east).
const NAUTICAL: [&str; 25] = [
    "Etc/GMT+12",
    "Etc/GMT+11",
    "Etc/GMT+10",
    "Etc/GMT+9",
    "Etc/GMT+8",
    "Etc/GMT+7",
    "Etc/GMT+6",
    "Etc/GMT+5",
    "Etc/GMT+4",
    "Etc/GMT+3",
    "Etc/GMT+2",
    "Etc/GMT+1",
    "Etc/GMT",
    "Etc/GMT-1",
    "Etc/GMT-2",
    "Etc/GMT-3",
    "Etc/GMT-4",
    "Etc/GMT-5",
    "Etc/GMT-6",
    "Etc/GMT-7",
    "Etc/GMT-8",
    "Etc/GMT-9",
    "Etc/GMT-10",
    "Etc/GMT-11",
    "Etc/GMT-12",
];

/// `Etc/GMT±N` for a longitude (signs as in the tz database: east of Greenwich is `GMT-N`).
pub fn nautical_zone(lng: f64) -> &'static str {
    let hours = ((lng / 15.0).round() as i32).clamp(-12, 12);
    NAUTICAL[(hours + 12) as usize]
}

/// The timezone result for `tzid` at `instant`: abbreviation in force, standard offset and the
/// daylight-saving part, in seconds.
pub fn offsets(tzid: &str, instant: DateTime<Utc>) -> Result<TimezoneResult, TimezoneError> {
    let tz: Tz = tzid
        .parse()
        .map_err(|_| TimezoneError::UnknownZone(tzid.to_string()))?;
    let local = tz.from_utc_datetime(&instant.naive_utc());
    let offset = local.offset();
    let raw = offset.base_utc_offset().num_seconds() as i32;
    let dst = offset.dst_offset().num_seconds() as i32;
    let name = offset
        .abbreviation()
        .map(str::to_string)
        .unwrap_or_else(|| format_offset(raw + dst));
    Ok(TimezoneResult {
        timezone: tzid.to_string(),
        timezone_name: name,
        raw_offset: raw,
        dst_offset: dst,
    })
}

fn format_offset(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let s = seconds.abs();
    if s % 3600 == 0 {
        format!("{sign}{:02}", s / 3600)
    } else {
        format!("{sign}{:02}{:02}", s / 3600, (s % 3600) / 60)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn dst_on_both_sides_and_hemispheres() {
        // Europe: CET in winter, CEST in summer; raw never includes DST.
        let w = offsets("Europe/Berlin", at("2026-01-15T12:00:00Z")).unwrap();
        assert_eq!(
            (w.timezone_name.as_str(), w.raw_offset, w.dst_offset),
            ("CET", 3600, 0)
        );
        let s = offsets("Europe/Berlin", at("2026-07-15T12:00:00Z")).unwrap();
        assert_eq!(
            (s.timezone_name.as_str(), s.raw_offset, s.dst_offset),
            ("CEST", 3600, 3600)
        );
        // Around the 2026 spring-forward instant (2026-03-29 01:00 UTC).
        assert_eq!(
            offsets("Europe/Berlin", at("2026-03-29T00:59:59Z"))
                .unwrap()
                .dst_offset,
            0
        );
        assert_eq!(
            offsets("Europe/Berlin", at("2026-03-29T01:00:00Z"))
                .unwrap()
                .dst_offset,
            3600
        );
        // US: EST/EDT.
        let ny = offsets("America/New_York", at("2026-07-04T16:00:00Z")).unwrap();
        assert_eq!(
            (ny.timezone_name.as_str(), ny.raw_offset, ny.dst_offset),
            ("EDT", -18000, 3600)
        );
        // Southern hemisphere: Sydney is on daylight time in January.
        let syd = offsets("Australia/Sydney", at("2026-01-15T00:00:00Z")).unwrap();
        assert_eq!(
            (syd.timezone_name.as_str(), syd.raw_offset, syd.dst_offset),
            ("AEDT", 36000, 3600)
        );
    }

    #[test]
    fn half_and_quarter_hour_offsets_and_history() {
        let india = offsets("Asia/Kolkata", at("2026-06-01T00:00:00Z")).unwrap();
        assert_eq!((india.raw_offset, india.dst_offset), (19800, 0));
        let nepal = offsets("Asia/Kathmandu", at("2026-06-01T00:00:00Z")).unwrap();
        assert_eq!(nepal.raw_offset, 20700);
        // Moscow kept UTC+4 all year from 2011 to 2014; today it is UTC+3.
        assert_eq!(
            offsets("Europe/Moscow", at("2012-01-01T00:00:00Z"))
                .unwrap()
                .raw_offset,
            14400
        );
        assert_eq!(
            offsets("Europe/Moscow", at("2026-01-01T00:00:00Z"))
                .unwrap()
                .raw_offset,
            10800
        );
        assert!(offsets("Mars/Olympus", at("2026-01-01T00:00:00Z")).is_err());
    }

    #[test]
    fn nautical_zones_follow_longitude() {
        assert_eq!(nautical_zone(0.0), "Etc/GMT");
        assert_eq!(nautical_zone(30.2), "Etc/GMT-2");
        assert_eq!(nautical_zone(-150.0), "Etc/GMT+10");
        assert_eq!(nautical_zone(179.9), "Etc/GMT-12");
        assert_eq!(nautical_zone(-179.9), "Etc/GMT+12");
        assert_eq!(
            offsets("Etc/GMT-2", at("2026-01-01T00:00:00Z"))
                .unwrap()
                .raw_offset,
            7200
        );
    }

    /// A polyline6 ring of `(lng, lat)` points, as the packs store them.
    fn ring(pts: &[(f64, f64)]) -> String {
        let coords: Vec<geo_types::Coord<f64>> = pts
            .iter()
            .map(|&(x, y)| geo_types::Coord { x, y })
            .collect();
        polyline::encode_coordinates(coords, 6).unwrap()
    }

    #[test]
    fn polygons_with_holes() {
        let mut b = TimezoneIndexBuilder::default();
        // A square zone with a square hole.
        let outer = ring(&[
            (10.0, 10.0),
            (12.0, 10.0),
            (12.0, 12.0),
            (10.0, 12.0),
            (10.0, 10.0),
        ]);
        let hole = ring(&[
            (10.5, 10.5),
            (11.5, 10.5),
            (11.5, 11.5),
            (10.5, 11.5),
            (10.5, 10.5),
        ]);
        let shape = serde_json::to_string(&vec![vec![outer, hole]]).unwrap();
        b.add("Europe/Berlin", &shape).unwrap();
        b.add("Europe/Berlin", &shape).unwrap();
        assert_eq!(b.len(), 1, "a zone given twice is kept once");
        let idx = b.build();
        assert_eq!(idx.lookup(10.2, 10.2), "Europe/Berlin");
        assert_eq!(
            idx.lookup(11.0, 11.0),
            "Etc/GMT-1",
            "inside the hole: nautical zone"
        );
        assert_eq!(idx.lookup(40.0, 40.0), "Etc/GMT-3");
        assert_eq!(
            TimezoneIndexBuilder::default().build().lookup(0.0, 0.0),
            "Etc/GMT"
        );
    }

    /// A zone of the tests: its id and the rings of one polygon.
    type TestZone = (String, Vec<Vec<(f64, f64)>>);

    /// Even-odd test over all rings of a polygon, the plain scan the grid replaces.
    fn scan_contains(rings: &[Vec<(f64, f64)>], x: f64, y: f64) -> bool {
        let mut inside = false;
        for ring in rings {
            let n = ring.len();
            let mut j = n - 1;
            for i in 0..n {
                let (xi, yi) = ring[i];
                let (xj, yj) = ring[j];
                if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi {
                    inside = !inside;
                }
                j = i;
            }
        }
        inside
    }

    #[test]
    fn the_grid_answers_as_a_scan_of_the_polygons() {
        // Jagged zones (thousands of short edges, so cells split deep), a zone with a hole,
        // overlapping zones (the first loaded wins), zones touching the antimeridian and the
        // poles; compared with a plain scan on random points.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let jagged = |cx: f64, cy: f64, r: f64, n: usize, rnd: &mut dyn FnMut() -> f64| {
            let mut pts: Vec<(f64, f64)> = (0..n)
                .map(|i| {
                    let t = i as f64 / n as f64 * std::f64::consts::TAU;
                    let rr = r * (0.6 + 0.4 * rnd());
                    (cx + rr * t.cos(), cy + rr * t.sin())
                })
                .collect();
            pts.push(pts[0]);
            pts
        };
        let mut zones: Vec<TestZone> = vec![
            (
                "A/Jagged".into(),
                vec![jagged(5.3, 45.1, 3.0, 4000, &mut rnd)],
            ),
            (
                "B/Overlap".into(),
                vec![jagged(7.0, 46.0, 2.5, 500, &mut rnd)],
            ),
            (
                "C/Holed".into(),
                vec![
                    vec![
                        (-20.0, -10.0),
                        (-10.0, -10.0),
                        (-10.0, 0.0),
                        (-20.0, 0.0),
                        (-20.0, -10.0),
                    ],
                    jagged(-15.0, -5.0, 2.0, 300, &mut rnd),
                ],
            ),
            (
                "D/East".into(),
                vec![vec![
                    (175.0, -20.0),
                    (180.0, -20.0),
                    (180.0, -10.0),
                    (175.0, -10.0),
                    (175.0, -20.0),
                ]],
            ),
            (
                "E/West".into(),
                vec![vec![
                    (-180.0, -20.0),
                    (-175.0, -20.0),
                    (-175.0, -10.0),
                    (-180.0, -10.0),
                    (-180.0, -20.0),
                ]],
            ),
            (
                "F/Pole".into(),
                vec![vec![
                    (-180.0, 80.0),
                    (180.0, 80.0),
                    (180.0, 90.0),
                    (-180.0, 90.0),
                    (-180.0, 80.0),
                ]],
            ),
        ];
        zones.push((
            "G/Long".into(),
            vec![vec![
                (-40.0, -60.0),
                (-30.0, 70.0),
                (-20.0, -60.0),
                (-40.0, -60.0),
            ]],
        ));
        let mut b = TimezoneIndexBuilder::default();
        for (tzid, rings) in &zones {
            let encoded: Vec<String> = rings.iter().map(|r| ring(r)).collect();
            b.add(tzid, &serde_json::to_string(&vec![encoded]).unwrap())
                .unwrap();
        }
        let idx = b.build();
        let st = idx.stats();
        assert!(st.edge_leaves > 100 && st.nodes > TOP_W * TOP_H, "{st:?}");
        // The scan works on the rounded (polyline6) coordinates the index holds.
        let round = |v: f64| (v * 1e6).round() / 1e6;
        let rounded: Vec<TestZone> = zones
            .iter()
            .map(|(t, rings)| {
                (
                    t.clone(),
                    rings
                        .iter()
                        .map(|r| r.iter().map(|&(x, y)| (round(x), round(y))).collect())
                        .collect(),
                )
            })
            .collect();
        let scan = |lat: f64, lng: f64| -> String {
            rounded
                .iter()
                .find(|(_, rings)| scan_contains(rings, lng, lat))
                .map_or_else(|| nautical_zone(lng).to_string(), |(t, _)| t.clone())
        };
        let mut checked = 0;
        for i in 0..30_000 {
            // Half the points near the jagged zones, the rest anywhere.
            let (lat, lng) = if i % 2 == 0 {
                (40.0 + rnd() * 10.0, 1.0 + rnd() * 10.0)
            } else {
                (rnd() * 180.0 - 90.0, rnd() * 360.0 - 180.0)
            };
            assert_eq!(idx.lookup(lat, lng), scan(lat, lng), "{lat},{lng}");
            checked += 1;
        }
        assert_eq!(checked, 30_000);
        // Domain edges: the antimeridian and the poles answer as the scan does (a point on a
        // polygon's east or north edge is outside it, as with any even-odd ray cast).
        for (lat, lng) in [(-15.0, -180.0), (90.0, 0.0), (-90.0, 0.0), (85.0, -180.0)] {
            assert_eq!(idx.lookup(lat, lng), scan(lat, lng), "{lat},{lng}");
        }
        // +180° is -180°.
        for lat in [-15.0, 0.0, 85.0, -89.0] {
            assert_eq!(idx.lookup(lat, 180.0), scan(lat, -180.0), "{lat},180");
        }
        assert_eq!(idx.lookup(-15.0, 180.0), "E/West");
        assert_eq!(idx.lookup(-15.0, 179.999_999), "D/East");
        assert_eq!(idx.lookup(-15.0, -180.0), "E/West");
        assert_eq!(idx.lookup(89.999_999, 0.0), "F/Pole");
        assert_eq!(idx.lookup(-90.0, 0.0), "Etc/GMT");
    }
}
