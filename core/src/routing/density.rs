//! Road density: how built-up the surroundings of each node are, from the road network alone.
//!
//! The density of a node is the length of motor roads (km) per km² in the square of 3 × 3
//! cells of [`CELL_M`] metres centred on the cell of the node (1.5 km × 1.5 km), counting only
//! the cells that hold a road (so that the edge of an extract, or a lake, does not make a town
//! look rural). Town centres measure 13–18 km/km² (Helsinki, Neubrandenburg), villages
//! 5–10, open country under 3. It tells the speed model whether a road without a tagged limit runs
//! through a built-up area ([`URBAN_DENSITY`]) and scales what a junction costs there
//! (traffic, pedestrians, queues; [`super::profile`]).
use std::collections::HashMap;

use super::network::RoadNetwork;
use super::profile::Highway;

/// Side of a density cell, metres.
pub const CELL_M: f64 = 500.0;

/// Density (km/km²) from which a place counts as built-up.
pub const URBAN_DENSITY: f64 = 8.0;

/// Road density around every node of `net`, km/km² (indexed like [`RoadNetwork::nodes`]).
pub fn node_density(net: &RoadNetwork) -> Vec<f32> {
    let Some(first) = net.nodes.first() else {
        return Vec::new();
    };
    let lat0 = first.lat.to_radians();
    let m_per_deg_lat = 111_320.0;
    let m_per_deg_lng = 111_320.0 * lat0.cos().max(0.01);
    let cell = |lat: f64, lng: f64| -> (i64, i64) {
        (
            (lat * m_per_deg_lat / CELL_M).floor() as i64,
            (lng * m_per_deg_lng / CELL_M).floor() as i64,
        )
    };
    let mut km: HashMap<(i64, i64), f64> = HashMap::new();
    for e in &net.edges {
        if e.ferry || !e.access[0] || matches!(e.highway, Highway::Track) {
            continue;
        }
        let (Some(a), Some(b)) = (net.nodes.get(e.from as usize), net.nodes.get(e.to as usize))
        else {
            continue;
        };
        let c = cell((a.lat + b.lat) / 2.0, (a.lng + b.lng) / 2.0);
        *km.entry(c).or_default() += e.length_m / 1000.0;
    }
    let cell_km2 = (CELL_M / 1000.0) * (CELL_M / 1000.0);
    net.nodes
        .iter()
        .map(|p| {
            let (r, c) = cell(p.lat, p.lng);
            let (mut sum, mut cells) = (0.0, 0u32);
            for dr in -1..=1 {
                for dc in -1..=1 {
                    if let Some(k) = km.get(&(r + dr, c + dc)) {
                        sum += k;
                        cells += 1;
                    }
                }
            }
            if cells == 0 {
                0.0
            } else {
                (sum / (f64::from(cells) * cell_km2)) as f32
            }
        })
        .collect()
}
