//! The nearest of a fixed set of points (the populated places as 3-D vectors, [`crate::geo::xyz`]):
//! a k-d tree kept in two flat arrays, searched without allocating.
//!
//! Each node keeps the box of its points (least and greatest coordinate on each axis), and a
//! node is searched only when the query's squared distance to its box is at most the best
//! found so far. The points lie on a sphere, so a node's box is much smaller than the cell
//! its splits bound: for a query far from every point (at sea) the boxes rule out most of the
//! nodes the splitting planes alone would leave (on the populated places and points uniform
//! on the sphere, about 5 leaves a query instead of about 125).
//!
//! **Exactness.** The squared distance is computed as `(p₀−q₀)² + (p₁−q₁)² + (p₂−q₂)²`,
//! summed in that order, and a node is skipped only when the query's squared distance to its
//! box, summed the same way from the distance to the box on each axis (0 on an axis where the
//! query lies within the box), is *more* than the best found so far. Each term is at most the
//! matching term of any point of the box and rounding is monotone, so no point of a skipped
//! node can have a computed distance at most the best one: the answer is the point of least
//! computed distance, and of those at the same distance the one given first (lowest id).

/// Points per leaf.
const LEAF: usize = 8;

/// A set of points and their ids, with a nearest-point search.
#[derive(Debug, Default)]
pub struct NearestPoints {
    /// The points, in tree order.
    points: Vec<[f64; 3]>,
    /// The id of each point.
    ids: Vec<u32>,
    /// Per inner node (node `i` has children `2i + 1` and `2i + 2`), its axis and splitting
    /// value; `[lo, mid)` lie at or below it, `[mid, hi)` at or above it, `mid` the middle of
    /// the node's range.
    splits: Vec<(f64, u8)>,
    /// Per node (inner or leaf), the least and the greatest coordinate of its points on each
    /// axis.
    boxes: Vec<[[f64; 3]; 2]>,
}

fn distance2(p: &[f64; 3], q: &[f64; 3]) -> f64 {
    let mut acc = 0.0;
    for (a, b) in p.iter().zip(q) {
        let d = a - b;
        acc += d * d;
    }
    acc
}

impl NearestPoints {
    /// The tree of `points`, point `i` with id `i`.
    pub fn new(points: Vec<[f64; 3]>) -> NearestPoints {
        let mut entries: Vec<([f64; 3], u32)> = points.into_iter().zip(0u32..).collect();
        let mut splits = Vec::new();
        build(&mut entries, 0, &mut splits);
        let (points, ids): (Vec<[f64; 3]>, Vec<u32>) = entries.into_iter().unzip();
        let mut boxes = Vec::new();
        bound(&points, 0, &mut boxes);
        NearestPoints {
            points,
            ids,
            splits,
            boxes,
        }
    }

    /// The id of the point nearest `q` (the lowest of those equally near); `None` when there
    /// is no point.
    pub fn nearest(&self, q: [f64; 3]) -> Option<u32> {
        let mut best = (f64::INFINITY, u32::MAX);
        self.search(0, 0, self.points.len(), &q, &mut best);
        (best.1 != u32::MAX).then_some(best.1)
    }

    /// The squared distance from `q` to the box of node `node`, summed as [`distance2`] sums
    /// (0 for a node without a box).
    fn reach2(&self, node: usize, q: &[f64; 3]) -> f64 {
        let Some([lo, hi]) = self.boxes.get(node) else {
            return 0.0;
        };
        let mut acc = 0.0;
        for ((&x, &l), &h) in q.iter().zip(lo).zip(hi) {
            let d = if x < l {
                l - x
            } else if x > h {
                x - h
            } else {
                0.0
            };
            acc += d * d;
        }
        acc
    }

    fn search(&self, node: usize, lo: usize, hi: usize, q: &[f64; 3], best: &mut (f64, u32)) {
        if hi - lo <= LEAF {
            for (p, &id) in self.points[lo..hi].iter().zip(&self.ids[lo..hi]) {
                let d = distance2(p, q);
                if d < best.0 || (d == best.0 && id < best.1) {
                    *best = (d, id);
                }
            }
            return;
        }
        let Some(&(value, axis)) = self.splits.get(node) else {
            return;
        };
        let mid = lo + (hi - lo) / 2;
        let (left, right) = ((2 * node + 1, lo, mid), (2 * node + 2, mid, hi));
        let (near, far) = if q[usize::from(axis)] <= value {
            (left, right)
        } else {
            (right, left)
        };
        for (child, from, to) in [near, far] {
            if self.reach2(child, q) <= best.0 {
                self.search(child, from, to, q, best);
            }
        }
    }
}

/// Records in `boxes` the box of the points of node `node` (its slice of `points`, in tree
/// order) and of every node below it.
fn bound(points: &[[f64; 3]], node: usize, boxes: &mut Vec<[[f64; 3]; 2]>) {
    let mut b = [[f64::INFINITY; 3], [f64::NEG_INFINITY; 3]];
    for p in points {
        b[0] = std::array::from_fn(|k| b[0][k].min(p[k]));
        b[1] = std::array::from_fn(|k| b[1][k].max(p[k]));
    }
    if boxes.len() <= node {
        boxes.resize(node + 1, [[f64::NEG_INFINITY; 3], [f64::INFINITY; 3]]);
    }
    boxes[node] = b;
    if points.len() > LEAF {
        let (left, right) = points.split_at(points.len() / 2);
        bound(left, 2 * node + 1, boxes);
        bound(right, 2 * node + 2, boxes);
    }
}

/// Orders `entries` into the tree rooted at `node`, recording the splits.
fn build(entries: &mut [([f64; 3], u32)], node: usize, splits: &mut Vec<(f64, u8)>) {
    if entries.len() <= LEAF {
        return;
    }
    let mut axis = 0;
    let mut widest = f64::NEG_INFINITY;
    for k in 0..3 {
        let (lo, hi) = entries
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| {
                (lo.min(e.0[k]), hi.max(e.0[k]))
            });
        if hi - lo > widest {
            widest = hi - lo;
            axis = k;
        }
    }
    let mid = entries.len() / 2;
    entries.select_nth_unstable_by(mid, |a, b| {
        a.0[axis].total_cmp(&b.0[axis]).then(a.1.cmp(&b.1))
    });
    if splits.len() <= node {
        splits.resize(node + 1, (0.0, 0));
    }
    splits[node] = (entries[mid].0[axis], axis as u8);
    let (left, right) = entries.split_at_mut(mid);
    build(left, 2 * node + 1, splits);
    build(right, 2 * node + 2, splits);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nearest by reading every point.
    fn brute(points: &[[f64; 3]], q: [f64; 3]) -> Option<u32> {
        let mut best = (f64::INFINITY, u32::MAX);
        for (i, p) in points.iter().enumerate() {
            let d = distance2(p, &q);
            if d < best.0 {
                best = (d, i as u32);
            }
        }
        (best.1 != u32::MAX).then_some(best.1)
    }

    #[test]
    fn nearest_is_the_nearest_of_all_and_ties_go_to_the_lowest_id() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut points: Vec<[f64; 3]> = (0..5_000).map(|_| [next(), next(), next()]).collect();
        // Duplicates, and a grid of equal coordinates (many equal distances).
        points.push(points[17]);
        points.extend((0..400).map(|i| [f64::from(i % 20), f64::from(i / 20), 10.0]));
        let tree = NearestPoints::new(points.clone());
        for _ in 0..3_000 {
            let q = [next() * 1.2, next() * 1.2, next() * 0.2];
            assert_eq!(tree.nearest(q), brute(&points, q), "{q:?}");
        }
        assert_eq!(tree.nearest(points[17]), Some(17));
        // Equidistant from four grid points: the first given.
        assert_eq!(tree.nearest([0.5, 0.5, 10.0]), Some(5_001));
        assert_eq!(tree.nearest([7.5, 3.0, 10.0]), Some(5_001 + 3 * 20 + 7));
        assert_eq!(NearestPoints::new(Vec::new()).nearest([0.0; 3]), None);
    }
}
