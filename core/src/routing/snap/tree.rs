//! The packed R-tree of the snap index: static, built once, its arrays held in memory or read
//! in place from a mapped layout file ([`crate::routing::flat`]).
//!
//! The pieces are sorted by the Hilbert key of their boxes' centres and cut into leaves of
//! [`FAN_OUT`] consecutive pieces; each level above groups [`FAN_OUT`] consecutive nodes of
//! the level below, up to a single root. Nodes are numbered level by level from the leaves,
//! so the root is the last one and every node's children come before it. Three arrays hold
//! the tree: the pieces `(edge, first point)` in leaf order, each node's box and each node's
//! children (a range of pieces for a leaf, of nodes above). Pieces keep no box: the walk
//! measures a piece by its own distance as soon as its leaf is opened.
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::Piece;
use crate::geo::hilbert;
use crate::routing::flat::{Arr, FlatError, FlatFile, Section};

/// Children of a node (the last node of a level may have fewer).
pub const FAN_OUT: usize = 16;

/// A box, `[min x, min y, max x, max y]`; the empty box is inverted.
pub type Bbox = [f64; 4];

/// The empty box.
pub const EMPTY: Bbox = [
    f64::INFINITY,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NEG_INFINITY,
];

/// The smallest box holding `a` and `b`.
pub fn union(a: Bbox, b: Bbox) -> Bbox {
    [
        a[0].min(b[0]),
        a[1].min(b[1]),
        a[2].max(b[2]),
        a[3].max(b[3]),
    ]
}

/// Squared distance from `q` to box `b` (0 inside).
fn distance_2(b: &Bbox, q: [f64; 2]) -> f64 {
    let dx = (b[0] - q[0]).max(q[0] - b[2]).max(0.0);
    let dy = (b[1] - q[1]).max(q[1] - b[3]).max(0.0);
    dx * dx + dy * dy
}

/// The static R-tree over a network's pieces.
#[derive(Debug, Default)]
pub struct PackedTree {
    /// Pieces `[edge, first point]`, in leaf order.
    pieces: Arr<[u32; 2]>,
    /// Each node's box.
    boxes: Arr<Bbox>,
    /// Each node's children `[start, end)`: pieces for the first `leaves` nodes, nodes above.
    child: Arr<[u32; 2]>,
    /// Number of leaves.
    leaves: usize,
}

impl PackedTree {
    /// The tree over `items`, each a piece and its box.
    pub fn build(mut items: Vec<(Piece, Bbox)>) -> PackedTree {
        let ext = items.iter().fold(EMPTY, |e, x| union(e, x.1));
        let cell = |v: f64, lo: f64, hi: f64| -> u32 {
            if hi > lo {
                // Saturating conversion: within 0..=65535 by construction.
                ((v - lo) / (hi - lo) * 65535.0) as u32
            } else {
                0
            }
        };
        items.sort_by_cached_key(|(piece, b)| {
            let x = cell((b[0] + b[2]) / 2.0, ext[0], ext[2]);
            let y = cell((b[1] + b[3]) / 2.0, ext[1], ext[3]);
            (hilbert(x, y), *piece)
        });
        let mut boxes: Vec<Bbox> = Vec::with_capacity(items.len() / (FAN_OUT - 1) + 1);
        let mut child: Vec<[u32; 2]> = Vec::with_capacity(boxes.capacity());
        for (i, chunk) in items.chunks(FAN_OUT).enumerate() {
            boxes.push(chunk.iter().fold(EMPTY, |e, x| union(e, x.1)));
            let start = i * FAN_OUT;
            child.push([start as u32, (start + chunk.len()) as u32]);
        }
        let leaves = boxes.len();
        let mut level = 0..leaves;
        while level.len() > 1 {
            for start in level.clone().step_by(FAN_OUT) {
                let end = (start + FAN_OUT).min(level.end);
                let b = boxes[start..end].iter().fold(EMPTY, |e, x| union(e, *x));
                boxes.push(b);
                child.push([start as u32, end as u32]);
            }
            level = level.end..boxes.len();
        }
        PackedTree {
            pieces: items
                .iter()
                .map(|(p, _)| [p.edge, p.first])
                .collect::<Vec<_>>()
                .into(),
            boxes: boxes.into(),
            child: child.into(),
            leaves,
        }
    }

    /// Number of pieces.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Number of leaves.
    pub fn leaves(&self) -> usize {
        self.leaves
    }

    /// Whether the arrays are read from a mapped file.
    pub fn is_mapped(&self) -> bool {
        self.pieces.is_mapped() && self.boxes.is_mapped() && self.child.is_mapped()
    }

    /// The tree's arrays as sections of a layout file.
    pub fn sections(&self) -> [Section<'_>; 3] {
        [
            Section::new("pieces", &self.pieces),
            Section::new("boxes", &self.boxes),
            Section::new("child", &self.child),
        ]
    }

    /// The tree of `leaves` leaves in the mapped file `f`, as [`PackedTree::sections`] wrote
    /// it, unchecked.
    pub fn arrays(f: &FlatFile, leaves: usize) -> Result<PackedTree, FlatError> {
        Ok(PackedTree {
            pieces: f.arr("pieces")?,
            boxes: f.arr("boxes")?,
            child: f.arr("child")?,
            leaves,
        })
    }

    /// The tree of `leaves` leaves in the mapped file `f`, once checked (reading through the
    /// file, not the mapping) to be a whole packed tree the walk cannot leave: one box per
    /// node, the leaves' pieces one after the other over all the pieces, the nodes above
    /// taking the nodes before them one after the other, every node but the root the child of
    /// exactly one, and every piece `[edge, first]` accepted by `piece_ok`.
    pub fn from_file(
        f: &FlatFile,
        leaves: usize,
        piece_ok: impl Fn(u32, u32) -> bool,
    ) -> Result<PackedTree, FlatError> {
        let bad = |what: &str| FlatError::Invalid(format!("snap index is inconsistent: {what}"));
        let pieces = f.count::<[u32; 2]>("pieces")?;
        let nodes = f.count::<[u32; 2]>("child")?;
        if f.count::<Bbox>("boxes")? != nodes
            || leaves > nodes
            || (pieces == 0) != (nodes == 0)
            || (nodes > 0 && leaves == 0)
        {
            return Err(bad("the node arrays disagree"));
        }
        let (mut next_piece, mut next_node) = (0usize, 0usize);
        let linked = f.scan("child", |at, v: &[[u32; 2]]| {
            v.iter().enumerate().all(|(k, &[a, b])| {
                let (i, a, b) = (at + k, a as usize, b as usize);
                let next = if i < leaves {
                    &mut next_piece
                } else {
                    &mut next_node
                };
                let limit = if i < leaves { pieces } else { i };
                let ok = a == *next && a < b && b <= limit;
                *next = b;
                ok
            })
        })?;
        let nodes_below_root = if leaves < nodes { nodes - 1 } else { 0 };
        if !linked || next_piece != pieces || next_node != nodes_below_root {
            return Err(bad("a child range is out of place"));
        }
        if !f.scan("pieces", |_, v: &[[u32; 2]]| {
            v.iter().all(|&[e, first]| piece_ok(e, first))
        })? {
            return Err(bad("a piece lies outside its edge or the network"));
        }
        Self::arrays(f, leaves)
    }

    /// The pieces nearest `q` first, each with its squared distance `measure` gives (a
    /// distance no box of the tree holding the piece exceeds), equally near ones by edge and
    /// first point: the order does not depend on the tree's shape.
    pub fn nearest_first<F: FnMut(Piece) -> f64>(
        &self,
        q: [f64; 2],
        measure: F,
    ) -> NearestFirst<'_, F> {
        let mut walk = NearestFirst {
            tree: self,
            q,
            measure,
            queue: BinaryHeap::new(),
        };
        if let Some(root) = self.boxes.len().checked_sub(1) {
            walk.push_nodes(root..root + 1);
        }
        walk
    }
}

/// What a queue entry stands for; nodes sort before pieces, pieces by edge and first point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Item {
    Node(u32),
    Piece(Piece),
}

/// An entry of the nearest-first walk: a node by the distance to its box, or a piece by its
/// own distance.
#[derive(Debug)]
struct Queued {
    d2: f64,
    item: Item,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    /// Nearest first from a max-heap; at equal distance, nodes before pieces (so that an
    /// equally near piece below one comes out in its place), then pieces by edge and first
    /// point.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .d2
            .total_cmp(&self.d2)
            .then_with(|| other.item.cmp(&self.item))
    }
}

/// The pieces of a tree nearest first (best-first search: a node is opened when nothing
/// queued is nearer than its box).
pub struct NearestFirst<'a, F> {
    tree: &'a PackedTree,
    q: [f64; 2],
    measure: F,
    queue: BinaryHeap<Queued>,
}

impl<F> std::fmt::Debug for NearestFirst<'_, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NearestFirst({} queued)", self.queue.len())
    }
}

impl<F: FnMut(Piece) -> f64> NearestFirst<'_, F> {
    fn push_nodes(&mut self, range: std::ops::Range<usize>) {
        let start = range.start;
        for (k, b) in self.tree.boxes.get(range).unwrap_or(&[]).iter().enumerate() {
            self.queue.push(Queued {
                d2: distance_2(b, self.q),
                item: Item::Node((start + k) as u32),
            });
        }
    }

    fn open(&mut self, node: u32) {
        let Some(&[a, b]) = self.tree.child.get(node as usize) else {
            return;
        };
        let range = a as usize..b as usize;
        if (node as usize) >= self.tree.leaves {
            self.push_nodes(range);
            return;
        }
        for &[edge, first] in self.tree.pieces.get(range).unwrap_or(&[]) {
            let piece = Piece { edge, first };
            self.queue.push(Queued {
                d2: (self.measure)(piece),
                item: Item::Piece(piece),
            });
        }
    }
}

impl<F: FnMut(Piece) -> f64> Iterator for NearestFirst<'_, F> {
    type Item = (Piece, f64);

    fn next(&mut self) -> Option<(Piece, f64)> {
        while let Some(Queued { d2, item }) = self.queue.pop() {
            match item {
                Item::Piece(piece) => return Some((piece, d2)),
                Item::Node(node) => self.open(node),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hilbert_curve_visits_every_cell_once_between_neighbours() {
        // On the 4 × 4 corner of the grid the first 16 positions are its cells, and each step
        // moves to a neighbouring cell.
        let mut cells: Vec<(u64, u32, u32)> = (0..4)
            .flat_map(|x| (0..4).map(move |y| (hilbert(x, y), x, y)))
            .collect();
        cells.sort_unstable();
        let keys: Vec<u64> = cells.iter().map(|c| c.0).collect();
        assert_eq!(keys, (0..16).collect::<Vec<u64>>());
        for w in cells.windows(2) {
            assert_eq!(
                w[0].1.abs_diff(w[1].1) + w[0].2.abs_diff(w[1].2),
                1,
                "{w:?}"
            );
        }
    }
}
