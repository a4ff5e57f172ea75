//! Road density: how built-up the surroundings of each node are, from the road network alone.
//!
//! The density of a point is the length of motor roads (km) per km² in the square of 3 × 3
//! cells of [`CELL_M`] metres centred on the cell of the point (1.5 km × 1.5 km), counting only
//! the cells that hold a road (so that the edge of an extract, or a lake, does not make a town
//! look rural). Town centres measure 13–18 km/km² (Helsinki, Neubrandenburg), villages
//! 5–10, open country under 3. It tells the speed model whether a road without a tagged limit runs
//! through a built-up area ([`URBAN_DENSITY`]) and scales what a junction costs there
//! (traffic, pedestrians, queues; [`super::profile`]).
//!
//! **Where it is computed.** A pack built from a whole extract measures it over its own roads
//! when it is read ([`node_density`]). A region cut from a larger extract cannot: a node near
//! the cut would count only the roads on its side. So the builder measures the density of
//! every node of a cut over the *whole* extract, before it cuts the region, and stores it in
//! `road_node_density` (pack format 10): a node near a region's border then has the density it
//! has in the whole extract, and regions that join drive exactly as the whole region does
//! (ADR 0008, ADR 0011). Both use the same [`DensityGrid`], whose origin is the extract's
//! first graph node.
use std::collections::HashMap;

use super::network::RoadNetwork;
use super::profile::{Highway, Profile};
use crate::geo::Pt;

/// Side of a density cell, metres.
pub const CELL_M: f64 = 500.0;

/// Density (km/km²) from which a place counts as built-up.
pub const URBAN_DENSITY: f64 = 8.0;

/// Metres per degree of latitude (and of longitude at the equator) of the grid.
const M_PER_DEG: f64 = 111_320.0;

/// Whether a road counts towards the density: a road cars may use (restricted access
/// included), neither a ferry nor a track.
pub fn counts(highway: Highway, car: bool, ferry: bool) -> bool {
    car && !ferry && !matches!(highway, Highway::Track)
}

/// Kilometres of counted road per cell of [`CELL_M`] metres. The grid's longitude scale is
/// set once, by the latitude of its origin (the network's first node in OSM id order), so
/// that every region cut from one extract shares the grid of the whole extract.
#[derive(Debug, Clone)]
pub struct DensityGrid {
    m_per_deg_lng: f64,
    km: HashMap<(i64, i64), f64>,
}

impl DensityGrid {
    /// An empty grid whose longitude scale is that of `origin_lat` (degrees).
    pub fn new(origin_lat: f64) -> DensityGrid {
        DensityGrid {
            m_per_deg_lng: M_PER_DEG * origin_lat.to_radians().cos().max(0.01),
            km: HashMap::new(),
        }
    }

    fn cell(&self, p: Pt) -> (i64, i64) {
        (
            (p.lat * M_PER_DEG / CELL_M).floor() as i64,
            (p.lng * self.m_per_deg_lng / CELL_M).floor() as i64,
        )
    }

    /// Adds a road of `length_m` metres between `a` and `b` to the cell of their midpoint.
    pub fn add(&mut self, a: Pt, b: Pt, length_m: f64) {
        let c = self.cell(Pt::new((a.lat + b.lat) / 2.0, (a.lng + b.lng) / 2.0));
        *self.km.entry(c).or_default() += length_m / 1000.0;
    }

    /// Road density around `p`, km/km², in steps of 0.01 (0 where no road lies within the
    /// 3 × 3 cells): the values a pack stores ([`to_stored`]).
    pub fn at(&self, p: Pt) -> f32 {
        let (r, c) = self.cell(p);
        let (mut sum, mut cells) = (0.0, 0u32);
        for dr in -1..=1 {
            for dc in -1..=1 {
                if let Some(k) = self.km.get(&(r + dr, c + dc)) {
                    sum += k;
                    cells += 1;
                }
            }
        }
        if cells == 0 {
            return 0.0;
        }
        let cell_km2 = (CELL_M / 1000.0) * (CELL_M / 1000.0);
        from_stored((sum / (f64::from(cells) * cell_km2) * 100.0).round() as i64)
    }
}

/// A density as `road_node_density` stores it: an integer number of hundredths of km/km²
/// (two bytes in SQLite, where a REAL takes eight).
pub fn to_stored(d: f32) -> i64 {
    (f64::from(d) * 100.0).round() as i64
}

/// A stored density back in km/km²: exactly the value [`DensityGrid::at`] gave.
pub fn from_stored(v: i64) -> f32 {
    (v as f64 / 100.0) as f32
}

/// Road density around every node of `net`, km/km² (indexed like [`RoadNetwork::nodes`]),
/// measured over `net`'s own roads: what a pack without stored densities gets.
pub fn node_density(net: &RoadNetwork) -> Vec<f32> {
    let Some(first) = net.nodes.first() else {
        return Vec::new();
    };
    let mut grid = DensityGrid::new(first.lat);
    for e in &net.edges {
        if !counts(e.highway(), e.allows(Profile::Driving), e.ferry()) {
            continue;
        }
        let (Some(&a), Some(&b)) = (net.nodes.get(e.from as usize), net.nodes.get(e.to as usize))
        else {
            continue;
        };
        grid.add(a, b, e.length_m);
    }
    net.nodes.iter().map(|&p| grid.at(p)).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn density_counts_the_roads_of_the_cells_around() {
        let mut g = DensityGrid::new(53.5);
        let a = Pt::new(53.5, 13.26);
        // 3 km of road in the cell of `a`: 3 km over one cell of 0.25 km².
        g.add(a, a, 3000.0);
        assert!((g.at(a) - 12.0).abs() < 1e-4);
        g.add(a, a, 1.234);
        let d = g.at(a);
        assert_eq!(from_stored(to_stored(d)), d);
        assert_eq!(to_stored(d), 1200);
        // Far away: no road around.
        assert_eq!(g.at(Pt::new(54.0, 13.26)), 0.0);
        // A ferry, a track or a road closed to cars does not count.
        assert!(!counts(Highway::Residential, true, true));
        assert!(!counts(Highway::Track, true, false));
        assert!(!counts(Highway::Residential, false, false));
        assert!(counts(Highway::Residential, true, false));
    }
}
