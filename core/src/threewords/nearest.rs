//! The nearest of a fixed set of points (the populated places as 3-D vectors, [`crate::geo::xyz`]):
//! a k-d tree kept in two flat arrays, searched without allocating.
//!
//! **Exactness.** The squared distance is computed as `(p₀−q₀)² + (p₁−q₁)² + (p₂−q₂)²`,
//! summed in that order, and a side of a split is skipped only when the square of the query's
//! distance to the splitting plane is *more* than the best found so far. Rounding is monotone,
//! so no point of a skipped side can have a computed distance at most the best one: the
//! answer is the point of least computed distance, and of those at the same distance the one
//! given first (lowest id).

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
        let (points, ids) = entries.into_iter().unzip();
        NearestPoints {
            points,
            ids,
            splits,
        }
    }

    /// The id of the point nearest `q` (the lowest of those equally near); `None` when there
    /// is no point.
    pub fn nearest(&self, q: [f64; 3]) -> Option<u32> {
        let mut best = (f64::INFINITY, u32::MAX);
        self.search(0, 0, self.points.len(), &q, &mut best);
        (best.1 != u32::MAX).then_some(best.1)
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
        let off = q[usize::from(axis)] - value;
        let plane = off * off;
        let (left, right) = ((2 * node + 1, lo, mid), (2 * node + 2, mid, hi));
        let (near, far) = if off <= 0.0 {
            (left, right)
        } else {
            (right, left)
        };
        self.search(near.0, near.1, near.2, q, best);
        if plane <= best.0 {
            self.search(far.0, far.1, far.2, q, best);
        }
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
