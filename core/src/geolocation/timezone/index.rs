//! The built grid and its lookups: descend to the leaf of a point, then count the crossings
//! of the segment from the leaf's reference point.
use std::sync::{Arc, OnceLock};

use super::geometry::{crosses, top_col, top_row};
use super::offsets::nautical_zone;
use super::{NONE, Point, REF_X, REF_Y, TAG_LEAF, TAG_MASK, TAG_SPLIT, TOP_W};

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
pub(super) struct Leaf {
    /// Zones containing `r`: `sets[set_start..set_start + set_len]`, ascending.
    pub(super) set_start: u32,
    /// Edge groups: `groups[group_start..group_start + group_len]`.
    pub(super) group_start: u32,
    pub(super) set_len: u16,
    pub(super) group_len: u16,
}

/// The edges of one zone in a leaf: `edge_refs[start..start + len]`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Group {
    pub(super) zone: u16,
    pub(super) start: u32,
    pub(super) len: u32,
}

/// The zones of a pack set as loaded: every ring's vertices and edges, and each zone's edges
/// with their bounding box. Enough to answer by a scan of the polygons while the grid builds.
#[derive(Debug, Default)]
pub(super) struct Zones {
    pub(super) tzids: Vec<Box<str>>,
    pub(super) vertices: Vec<Point>,
    /// Index of the first vertex of each edge (the edge runs to the next vertex), zone by zone.
    pub(super) edges: Vec<u32>,
    /// Zone of the edge starting at each vertex.
    pub(super) edge_zone: Vec<u16>,
    /// Each zone's edges (`edges[start..end]`) and bounding box `[x0, y0, x1, y1]`.
    pub(super) spans: Vec<ZoneSpan>,
}

/// One zone's edges in [`Zones::edges`] and its bounding box.
#[derive(Debug, Clone, Copy)]
pub(super) struct ZoneSpan {
    pub(super) start: u32,
    pub(super) end: u32,
    pub(super) bbox: [f64; 4],
}

impl Zones {
    /// The first zone containing `q`, by a scan of the zones whose box holds it: the parity
    /// of the crossings of the segment to `q` from a point east of the zone's box (outside
    /// it), with the tie rules of the grid, so both answer alike.
    pub(super) fn scan(&self, q: Point) -> u16 {
        for (zone, span) in self.spans.iter().enumerate() {
            let [x0, y0, x1, y1] = span.bbox;
            if q[0] < x0 || q[0] > x1 || q[1] < y0 || q[1] > y1 {
                continue;
            }
            let r = [x1 + 1.0, q[1]];
            let mut odd = false;
            for &e in &self.edges[span.start as usize..span.end as usize] {
                let a = self.vertices[e as usize];
                let b = self.vertices[e as usize + 1];
                odd ^= crosses(r, q, a, b);
            }
            if odd {
                return zone as u16;
            }
        }
        NONE
    }
}

/// The adaptive grid over [`Zones`] (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct Grid {
    /// Node words: the first `TOP_W * TOP_H` are the 1° cells, row by row from the south
    /// west; split nodes point at four consecutive children (south-west, south-east,
    /// north-west, north-east).
    pub(super) nodes: Vec<u32>,
    pub(super) leaves: Vec<Leaf>,
    pub(super) sets: Vec<u16>,
    pub(super) groups: Vec<Group>,
    pub(super) edge_refs: Vec<u32>,
}

/// Timezone polygons: a scan of the zones answers until the grid over them is built (in the
/// background for a pack set being opened: [`super::TimezoneIndexBuilder::build_in_background`]),
/// the grid after.
#[derive(Debug, Default)]
pub struct TimezoneIndex {
    pub(super) zones: Arc<Zones>,
    pub(super) grid: Arc<OnceLock<Grid>>,
}

impl TimezoneIndex {
    /// Number of zones.
    pub fn len(&self) -> usize {
        self.zones.tzids.len()
    }

    /// Whether no zone is loaded.
    pub fn is_empty(&self) -> bool {
        self.zones.tzids.is_empty()
    }

    /// Whether the grid is built (else lookups scan the zones).
    pub fn grid_ready(&self) -> bool {
        self.grid.get().is_some()
    }

    /// Waits until the grid is built (tests and benchmarks measure the grid, not the scan).
    pub fn wait_for_grid(&self) {
        while !self.grid_ready() {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// Figures of the index (the grid's are zero until it is built).
    pub fn stats(&self) -> TimezoneIndexStats {
        use std::mem::size_of;
        let z = &self.zones;
        let empty = Grid::default();
        let g = self.grid.get().unwrap_or(&empty);
        TimezoneIndexStats {
            zones: z.tzids.len(),
            vertices: z.vertices.len(),
            edges: z.edges.len(),
            nodes: g.nodes.len(),
            edge_leaves: g.leaves.len(),
            edge_refs: g.edge_refs.len(),
            bytes: z.vertices.len() * size_of::<Point>()
                + z.edges.len() * 4
                + z.edge_zone.len() * 2
                + z.spans.len() * size_of::<ZoneSpan>()
                + g.nodes.len() * 4
                + g.leaves.len() * size_of::<Leaf>()
                + g.sets.len() * 2
                + g.groups.len() * size_of::<Group>()
                + g.edge_refs.len() * 4
                + z.tzids.iter().map(|t| t.len() + 16).sum::<usize>(),
        }
    }

    /// The tz identifier at a point: the first zone whose polygon contains it, else the
    /// nautical zone of the longitude. A point on a polygon's edge belongs to the polygon on
    /// its east (north) side, and the meridian ±180° to the polygons east of -180°.
    pub fn lookup(&self, lat: f64, lng: f64) -> &str {
        let lng = if lng >= 180.0 { -180.0 } else { lng };
        match self.zone_at(lat, lng) {
            NONE => nautical_zone(lng),
            z => self
                .zones
                .tzids
                .get(usize::from(z))
                .map_or("Etc/GMT", |t| &**t),
        }
    }

    fn zone_at(&self, lat: f64, lng: f64) -> u16 {
        // 180° and -180° are one meridian: a point on it counts as just east of it (as a
        // point on any polygon edge does), so both answer as -180°.
        let x = if lng >= 180.0 {
            -180.0
        } else {
            lng.max(-180.0)
        };
        let y = lat.clamp(-90.0, 90.0);
        match self.grid.get() {
            Some(grid) => grid.zone_at(&self.zones, x, y),
            None => self.zones.scan([x, y]),
        }
    }
}

impl Grid {
    fn zone_at(&self, zones: &Zones, x: f64, y: f64) -> u16 {
        if self.nodes.is_empty() {
            return NONE;
        }
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
                    return self.leaf_zone(zones, (word & !TAG_MASK) as usize, r, [x, y]);
                }
                _ => return (word & 0xffff) as u16,
            }
        }
    }

    /// The first zone containing `q` in a leaf with edges.
    fn leaf_zone(&self, zones: &Zones, leaf: usize, r: Point, q: Point) -> u16 {
        let leaf = self.leaves[leaf];
        let set_start = leaf.set_start as usize;
        let inside = &self.sets[set_start..set_start + usize::from(leaf.set_len)];
        let group_start = leaf.group_start as usize;
        let groups = &self.groups[group_start..group_start + usize::from(leaf.group_len)];
        let mut best = NONE;
        for g in groups {
            let mut odd = inside.contains(&g.zone);
            for &e in &self.edge_refs[g.start as usize..(g.start + g.len) as usize] {
                let a = zones.vertices[e as usize];
                let b = zones.vertices[e as usize + 1];
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
