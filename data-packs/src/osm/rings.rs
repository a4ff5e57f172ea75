//! Ring assembly of OSM multipolygons: member ways (node id lists) joined by their shared end
//! nodes into closed rings, before their coordinates are looked up and the rings become
//! [`waymark_core::geo::MultiPolygon`]s.
//!
//! ```
//! use waymark_packs::osm::rings::assemble_rings;
//! let r = assemble_rings(&[vec![1, 2, 3], vec![3, 4, 1], vec![7, 8]]);
//! assert_eq!(r.closed, vec![vec![1, 2, 3, 4, 1]]);
//! assert_eq!(r.open, 1);
//! ```

use std::collections::HashMap;

/// Result of joining member ways into rings.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Rings {
    /// Closed rings as node id lists, first id repeated last.
    pub closed: Vec<Vec<i64>>,
    /// Number of chains that could not be closed.
    pub open: usize,
}

/// Joins ways (node id lists) into closed rings by their shared end nodes, reversing ways as
/// needed. Ways that are already closed are rings on their own. Chains that do not close are
/// counted in [`Rings::open`].
pub fn assemble_rings(ways: &[Vec<i64>]) -> Rings {
    let mut rings = Rings::default();
    let mut pending: Vec<Vec<i64>> = Vec::new();
    for w in ways {
        if w.len() < 2 {
            continue;
        }
        if w.first() == w.last() {
            if w.len() >= 4 {
                rings.closed.push(w.clone());
            } else {
                rings.open += 1;
            }
        } else {
            pending.push(w.clone());
        }
    }
    let mut used = vec![false; pending.len()];
    // index: end node -> ways having it as first or last node
    let mut by_end: HashMap<i64, Vec<usize>> = HashMap::new();
    for (i, w) in pending.iter().enumerate() {
        if let (Some(&a), Some(&b)) = (w.first(), w.last()) {
            by_end.entry(a).or_default().push(i);
            by_end.entry(b).or_default().push(i);
        }
    }
    for start in 0..pending.len() {
        if used[start] {
            continue;
        }
        used[start] = true;
        let mut chain = pending[start].clone();
        while let (Some(&first), Some(&last)) = (chain.first(), chain.last()) {
            if first == last {
                break;
            }
            let next = by_end
                .get(&last)
                .and_then(|c| c.iter().copied().find(|&j| !used[j]));
            let Some(j) = next else {
                break;
            };
            used[j] = true;
            let w = &pending[j];
            if w.first() == Some(&last) {
                chain.extend_from_slice(&w[1..]);
            } else {
                chain.extend(w.iter().rev().skip(1));
            }
        }
        if chain.len() >= 4 && chain.first() == chain.last() {
            rings.closed.push(chain);
        } else {
            rings.open += 1;
        }
    }
    rings
}
