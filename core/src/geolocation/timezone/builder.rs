//! Building the grid: zones are added from the packs' stored shapes, then
//! [`TimezoneIndexBuilder::build`] sweeps each row of 1° cells and splits the busy cells.
use super::geometry::{crosses, meets_box, toggle, top_col, top_row};
use std::sync::{Arc, OnceLock};

use super::index::{Grid, Group, Leaf, ZoneSpan, Zones};
use super::{
    LEAF_EDGES, MAX_DEPTH, NONE, Point, REF_X, REF_Y, TAG_LEAF, TAG_SPLIT, TAG_UNIFORM, TOP_H,
    TOP_W, TimezoneError, TimezoneIndex,
};
use crate::geo::decode_polyline6;

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
    /// Each zone's edges and box, as zones are added.
    spans: Vec<ZoneSpan>,
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
        let (first_edge, first_vertex) = (self.edges.len(), self.vertices.len());
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
        let mut bbox = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
        for v in &self.vertices[first_vertex..] {
            bbox = [
                bbox[0].min(v[0]),
                bbox[1].min(v[1]),
                bbox[2].max(v[0]),
                bbox[3].max(v[1]),
            ];
        }
        self.spans.push(ZoneSpan {
            start: first_edge as u32,
            end: self.edges.len() as u32,
            bbox,
        });
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

    fn into_zones(self) -> Zones {
        Zones {
            tzids: self.tzids,
            vertices: self.vertices,
            edges: self.edges,
            edge_zone: self.edge_zone,
            spans: self.spans,
        }
    }

    /// The index with its grid built now.
    pub fn build(self) -> TimezoneIndex {
        let zones = self.into_zones();
        let grid = Grid::build(&zones);
        TimezoneIndex {
            zones: Arc::new(zones),
            grid: Arc::new(OnceLock::from(grid)),
        }
    }

    /// The index at once, its grid built on a background thread: lookups scan the zones
    /// until it is ready (a few milliseconds each instead of 60 ns, for the third of a second
    /// the world's grid takes), so a process opening its packs answers its first timezone
    /// question without waiting for the grid.
    pub fn build_in_background(self) -> TimezoneIndex {
        let zones = Arc::new(self.into_zones());
        let grid = Arc::new(OnceLock::new());
        let (z, g) = (Arc::clone(&zones), Arc::clone(&grid));
        let spawned = std::thread::Builder::new()
            .name("waymark-timezone-grid".into())
            .spawn(move || {
                let _ = g.set(Grid::build(&z));
            });
        if spawned.is_err() {
            // No thread to spare: build it here.
            let _ = grid.set(Grid::build(&zones));
        }
        TimezoneIndex { zones, grid }
    }
}

impl Grid {
    /// Builds the grid: sweeps each row of 1° cells, splits the busy cells.
    fn build(zones: &Zones) -> Grid {
        let Zones {
            vertices,
            edges,
            edge_zone,
            ..
        } = zones;
        let edge = |e: u32| (vertices[e as usize], vertices[e as usize + 1]);
        // Edges meeting each 1° cell, and the edges spanning each row's reference latitude.
        let mut cells: Vec<Vec<u32>> = vec![Vec::new(); TOP_W * TOP_H];
        let mut rows: Vec<Vec<u32>> = vec![Vec::new(); TOP_H];
        for &e in edges {
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
        let mut grid = Grid {
            nodes: vec![0; TOP_W * TOP_H],
            ..Grid::default()
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
                let word = grid.build_node(
                    vertices,
                    edge_zone,
                    [cx as f64 - 180.0, cy as f64 - 90.0],
                    1.0,
                    0,
                    cell,
                    [x, y],
                    inside.clone(),
                );
                grid.nodes[cy * TOP_W + cx] = word;
            }
        }
        grid.nodes.shrink_to_fit();
        grid.leaves.shrink_to_fit();
        grid.sets.shrink_to_fit();
        grid.groups.shrink_to_fit();
        grid.edge_refs.shrink_to_fit();
        grid
    }
}

impl Grid {
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
}
