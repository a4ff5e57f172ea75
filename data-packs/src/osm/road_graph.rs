//! The road graph of an extract before it is written: routable way pieces, the nodes where
//! the graph splits them, and the road density around those nodes. A cut computes all three
//! over the whole extract first (crate::cut), so that a region keeps the identities and the
//! densities the whole extract gives its roads.
use std::borrow::Cow;
use std::collections::HashSet;

use waymark_core::geo::road_length_m;
use waymark_core::routing::density::{self, DensityGrid};
use waymark_core::routing::profile::Highway;

use super::models::{MemberKind, OsmData};
use super::roads::{access, is_routable};

/// A routable way's run of nodes present in the extract: `(way id, highway, node ids)`. The
/// node ids are the way's own when it is whole (every node present, no repeated node), a
/// copy otherwise.
pub type Piece<'a> = (i64, &'a str, Cow<'a, [i64]>);

/// Routable ways split into pieces of the nodes present in the extract.
pub fn routable_pieces(data: &OsmData) -> Vec<Piece<'_>> {
    let mut pieces: Vec<Piece<'_>> = Vec::new();
    for w in data.ways.values() {
        let Some(hw) = is_routable(&w.tags) else {
            continue;
        };
        let whole = w.refs.len() >= 2
            && w.refs.windows(2).all(|p| p[0] != p[1])
            && w.refs.iter().all(|r| data.coords.contains_key(r));
        if whole {
            pieces.push((w.id, hw, Cow::Borrowed(&w.refs)));
            continue;
        }
        let mut cur: Vec<i64> = Vec::new();
        for r in &w.refs {
            if data.coords.contains_key(r) {
                // drop immediate duplicates
                if cur.last() != Some(r) {
                    cur.push(*r);
                }
            } else {
                if cur.len() >= 2 {
                    pieces.push((w.id, hw, Cow::Owned(std::mem::take(&mut cur))));
                }
                cur.clear();
            }
        }
        if cur.len() >= 2 {
            pieces.push((w.id, hw, Cow::Owned(cur)));
        }
    }
    pieces
}

/// The graph nodes of `pieces` (OSM ids): piece ends, nodes used twice or more, toll booths
/// and restriction via nodes on a routable way.
pub fn graph_nodes(data: &OsmData, pieces: &[Piece<'_>]) -> HashSet<i64> {
    // Every reference of every piece, sorted (8 bytes a reference): a node found twice or
    // more is a junction.
    let mut uses: Vec<i64> = Vec::with_capacity(pieces.iter().map(|p| p.2.len()).sum());
    let mut graph: HashSet<i64> = HashSet::new();
    for (_, _, refs) in pieces {
        uses.extend_from_slice(refs);
        if let (Some(a), Some(b)) = (refs.first(), refs.last()) {
            graph.insert(*a);
            graph.insert(*b);
        }
    }
    uses.sort_unstable();
    graph.extend(uses.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0]));
    let used = |id: &i64| uses.binary_search(id).is_ok();
    for n in &data.nodes {
        if n.tags.is("barrier", "toll_booth") && used(&n.id) {
            graph.insert(n.id);
        }
    }
    for rel in &data.relations {
        if rel.tags.is("type", "restriction") {
            for m in &rel.members {
                if m.kind == MemberKind::Node && m.role == "via" && used(&m.id) {
                    graph.insert(m.id);
                }
            }
        }
    }
    graph
}

/// The road density grid of `pieces` split at the `graph` nodes: the roads the engine counts
/// ([`density::counts`]), each added at the midpoint of its end nodes, with the grid's origin at
/// the first graph node in OSM id order, exactly as the engine measures a network of these
/// edges ([`density::node_density`]). Computed over the whole extract before a region is cut,
/// it gives the nodes near the cut the density they have in the whole region.
pub fn density_grid(data: &OsmData, pieces: &[Piece<'_>], graph: &HashSet<i64>) -> DensityGrid {
    let origin = graph
        .iter()
        .filter(|n| data.coords.contains_key(n))
        .min()
        .and_then(|n| data.coords.get(n))
        .map_or(0.0, |p| p.lat);
    let mut grid = DensityGrid::new(origin);
    for (way_id, hw, refs) in pieces {
        let Some(way) = data.ways.get(way_id) else {
            continue;
        };
        let car = access(hw, &way.tags).car.usable();
        if !density::counts(Highway::parse(hw), car, *hw == "ferry") {
            continue;
        }
        let mut start = 0usize;
        for j in 1..refs.len() {
            if !graph.contains(&refs[j]) && j + 1 != refs.len() {
                continue;
            }
            let (Some(&a), Some(&b)) = (data.coords.get(&refs[start]), data.coords.get(&refs[j]))
            else {
                start = j;
                continue;
            };
            grid.add(a, b, road_length_m(&data.way_coords(&refs[start..=j])));
            start = j;
        }
    }
    grid
}
