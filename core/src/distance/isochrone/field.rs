//! The travel-cost field of an isochrone ([`CostField`]): reached pieces marked on a square
//! grid, the level `budget` contoured by marching squares, the rings simplified, and the holes
//! chosen ([`HOLE_DEPTH_CELLS`]).
use super::{HOLE_DEPTH_CELLS, MIN_HOLE_CELLS, Piece, Ring, Scratch};
use crate::geo::plane_ring_contains;

/// Lowest reached cost per grid cell (cell centres at `origin + (i + ½) · cell`).
pub(super) struct CostField {
    ox: f64,
    oy: f64,
    cell: f64,
    /// `1 / cell`: a point's cell is found by two multiplications, not two divisions.
    per_m: f64,
    w: usize,
    h: usize,
    v: Vec<f64>,
}

impl CostField {
    /// An empty field over `bbox` (projected `[x0, y0, x1, y1]`) on cells of `cell` metres,
    /// every cell at `unreached`; two cells of margin keep every contour closed.
    pub(super) fn new(bbox: [f64; 4], cell: f64, unreached: f64) -> CostField {
        let [x0, y0, x1, y1] = bbox;
        let w = ((x1 - x0) / cell) as usize + 5;
        let h = ((y1 - y0) / cell) as usize + 5;
        CostField {
            ox: x0 - 2.0 * cell,
            oy: y0 - 2.0 * cell,
            cell,
            per_m: 1.0 / cell,
            w,
            h,
            v: vec![unreached; w * h],
        }
    }

    /// Marks the part `piece.from..piece.to` (fractions of length) of the line `xy` (measured
    /// in `line`), its cost linear in length between the piece's two costs: points half a cell
    /// apart along the line, and both ends of the piece.
    pub(super) fn trace(&mut self, xy: &[[f64; 2]], line: &Scratch, piece: &Piece) {
        // A piece from the start of its arc lying inside one cell lowers only that cell, to
        // its first point's cost (costs rise along the piece): the common case of a town's
        // short streets, marked without walking the line.
        if piece.from == 0.0 && self.holds_inside_one_cell(xy) {
            self.mark(xy[0], piece.cost_from);
            return;
        }
        self.trace_sampled(xy, line, piece);
    }

    /// [`CostField::trace`], walking the line whatever its extent.
    fn trace_sampled(&mut self, xy: &[[f64; 2]], line: &Scratch, piece: &Piece) {
        let Some(&first) = xy.first() else {
            return;
        };
        if line.total <= 0.0 || xy.len() < 2 {
            self.mark(first, piece.cost_from);
            return;
        }
        let (start, end) = (piece.from * line.total, piece.to * line.total);
        let rate = if end > start {
            (piece.cost_to - piece.cost_from) / (end - start)
        } else {
            0.0
        };
        let step = self.cell * 0.5;
        let mut next = start;
        let mut s0 = 0.0;
        for (i, &l) in line.len.iter().enumerate() {
            let s1 = s0 + l;
            if l > 0.0 {
                let (a, b) = (xy[i], xy[i + 1]);
                while next <= s1 {
                    let t = (next - s0) / l;
                    self.mark(
                        [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t],
                        piece.cost_from + rate * (next - start),
                    );
                    if next >= end {
                        return;
                    }
                    next = (next + step).min(end);
                }
            }
            s0 = s1;
        }
        // Rounding left the end a hair beyond the summed lengths: it is the last point.
        if let Some(&last) = xy.last() {
            self.mark(last, piece.cost_to);
        }
    }

    /// Whether every point of `xy` lies inside the cell of the first, clear of its sides by
    /// more than rounding, so that every point on the line between them marks that cell too.
    fn holds_inside_one_cell(&self, xy: &[[f64; 2]]) -> bool {
        const CLEAR: f64 = 1e-6;
        let Some(first) = xy.first() else {
            return false;
        };
        let [fx, fy] = self.in_cells(*first);
        // Truncation (no call into libm): a point left of or below the grid is never inside.
        let (cx, cy) = ((fx as usize) as f64, (fy as usize) as f64);
        xy.iter().all(|p| {
            let [fx, fy] = self.in_cells(*p);
            let (fx, fy) = (fx - cx, fy - cy);
            fx > CLEAR && fx < 1.0 - CLEAR && fy > CLEAR && fy < 1.0 - CLEAR
        })
    }

    /// A point's position in cells from the grid's corner (its cell: the integer parts), the
    /// one computation [`CostField::mark`] and the one-cell test share.
    fn in_cells(&self, p: [f64; 2]) -> [f64; 2] {
        [(p[0] - self.ox) * self.per_m, (p[1] - self.oy) * self.per_m]
    }

    /// Lowers every cell to `other`'s where that is lower: the field of both sets of marks
    /// (`other` lies over the same grid: made by [`CostField::new`] with the same arguments).
    pub(super) fn lower_to(&mut self, other: &CostField) {
        debug_assert!(self.w == other.w && self.h == other.h && self.ox == other.ox);
        for (v, &o) in self.v.iter_mut().zip(&other.v) {
            if o < *v {
                *v = o;
            }
        }
    }

    pub(super) fn mark(&mut self, p: [f64; 2], cost: f64) {
        let [cx, cy] = self.in_cells(p);
        if cx < 0.0 || cy < 0.0 {
            return;
        }
        // Truncation is the floor of a non-negative number (and no call into libm).
        let (cx, cy) = (cx as usize, cy as usize);
        if cx < self.w && cy < self.h {
            let i = cy * self.w + cx;
            if cost < self.v[i] {
                self.v[i] = cost;
            }
        }
    }

    fn centre(&self, x: usize, y: usize) -> [f64; 2] {
        [
            self.ox + (x as f64 + 0.5) * self.cell,
            self.oy + (y as f64 + 0.5) * self.cell,
        ]
    }

    /// Where the level crosses side `e` of the centre grid: even ids are the side from centre
    /// `(x, y)` to `(x + 1, y)`, odd ids the side from `(x, y)` to `(x, y + 1)`.
    fn crossing(&self, e: usize, level: f64) -> [f64; 2] {
        let i = e / 2;
        let (x, y) = (i % self.w, i / self.w);
        let (a, b) = if e.is_multiple_of(2) {
            (self.centre(x, y), self.centre(x + 1, y))
        } else {
            (self.centre(x, y), self.centre(x, y + 1))
        };
        let j = if e.is_multiple_of(2) {
            i + 1
        } else {
            i + self.w
        };
        let (va, vb) = (self.v[i], self.v[j]);
        let t = if (vb - va).abs() < f64::EPSILON {
            0.5
        } else {
            ((level - va) / (vb - va)).clamp(0.0, 1.0)
        };
        [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
    }

    /// The rings where the field crosses `level` (inside: below it): the outer ring of the
    /// largest area and the holes inside it.
    pub(super) fn contour(&self, level: f64) -> Option<(Ring, Vec<Ring>)> {
        let (w, h) = (self.w, self.h);
        let inside = |x: usize, y: usize| self.v[y * w + x] < level;
        // next[side] = the side where the contour leaving through `side` goes on.
        let mut next = vec![u32::MAX; 2 * w * h];
        let mut starts: Vec<usize> = Vec::new();
        for y in 0..h - 1 {
            for x in 0..w - 1 {
                // Corners counter-clockwise from the bottom left; sides k from corner k to k + 1.
                let c = [
                    inside(x, y),
                    inside(x + 1, y),
                    inside(x + 1, y + 1),
                    inside(x, y + 1),
                ];
                let side = [
                    2 * (y * w + x),
                    2 * (y * w + x + 1) + 1,
                    2 * ((y + 1) * w + x),
                    2 * (y * w + x) + 1,
                ];
                let n_in = c.iter().filter(|b| **b).count();
                if n_in == 0 || n_in == 4 {
                    continue;
                }
                // Region on the left: the contour crosses the square from a side going
                // inside → outside (corners counter-clockwise) to a side going outside → inside.
                let mut link = |from: usize, to: usize| {
                    next[side[from]] = side[to] as u32;
                    starts.push(side[from]);
                };
                if c[0] == c[2] && c[1] == c[3] {
                    // Saddle: decided by the mean at the square's centre.
                    let i = y * w + x;
                    let mean =
                        (self.v[i] + self.v[i + 1] + self.v[i + w] + self.v[i + w + 1]) / 4.0;
                    let centre_in = mean < level;
                    match (c[0], centre_in) {
                        (true, true) => {
                            link(0, 1);
                            link(2, 3);
                        }
                        (true, false) => {
                            link(0, 3);
                            link(2, 1);
                        }
                        (false, true) => {
                            link(3, 0);
                            link(1, 2);
                        }
                        (false, false) => {
                            link(1, 0);
                            link(3, 2);
                        }
                    }
                    continue;
                }
                let (mut out_side, mut in_side) = (0, 0);
                for k in 0..4 {
                    let (a, b) = (c[k], c[(k + 1) % 4]);
                    if a && !b {
                        out_side = k;
                    } else if !a && b {
                        in_side = k;
                    }
                }
                link(out_side, in_side);
            }
        }
        let mut rings: Vec<(f64, Vec<[f64; 2]>)> = Vec::new();
        for s in starts {
            if next[s] == u32::MAX {
                continue;
            }
            let mut ring = Vec::new();
            let mut e = s;
            while next[e] != u32::MAX && ring.len() <= 2 * w * h {
                ring.push(self.crossing(e, level));
                let n = next[e] as usize;
                next[e] = u32::MAX;
                e = n;
            }
            if ring.len() >= 3 {
                let area = signed_area(&ring);
                rings.push((area, ring));
            }
        }
        let outer_idx = rings
            .iter()
            .enumerate()
            .filter(|(_, r)| r.0 > 0.0)
            .max_by(|a, b| a.1.0.total_cmp(&b.1.0))
            .map(|(i, _)| i)?;
        let (_, outer) = rings.swap_remove(outer_idx);
        let min_hole = MIN_HOLE_CELLS * self.cell * self.cell;
        let tol = self.cell * 0.25;
        // The distances to the reached roads, measured once and only when a ring may be a hole.
        let mut far: Option<Vec<f32>> = None;
        let holes = rings
            .into_iter()
            .filter(|(a, r)| *a <= -min_hole && plane_ring_contains(&outer, r[0]))
            .filter(|(_, r)| {
                let far = far.get_or_insert_with(|| self.road_distance(level));
                self.encloses_far(r, far, HOLE_DEPTH_CELLS)
            })
            .filter_map(|(_, r)| close(douglas_peucker(&r, tol)))
            .collect();
        Some((close(douglas_peucker(&outer, tol))?, holes))
    }

    /// Each cell's distance, in cells, to the nearest cell below `level` (a cell holding a
    /// reached road): a two-pass chamfer transform with steps 1 and √2 (within 8 % of the
    /// straight-line distance).
    fn road_distance(&self, level: f64) -> Vec<f32> {
        const DIAG: f32 = std::f32::consts::SQRT_2;
        let (w, h) = (self.w, self.h);
        let mut d: Vec<f32> = self
            .v
            .iter()
            .map(|&v| if v < level { 0.0 } else { f32::INFINITY })
            .collect();
        for y in 0..h {
            for x in 0..w {
                let i = y * w + x;
                let mut m = d[i];
                if x > 0 {
                    m = m.min(d[i - 1] + 1.0);
                }
                if y > 0 {
                    m = m.min(d[i - w] + 1.0);
                    if x > 0 {
                        m = m.min(d[i - w - 1] + DIAG);
                    }
                    if x + 1 < w {
                        m = m.min(d[i - w + 1] + DIAG);
                    }
                }
                d[i] = m;
            }
        }
        for y in (0..h).rev() {
            for x in (0..w).rev() {
                let i = y * w + x;
                let mut m = d[i];
                if x + 1 < w {
                    m = m.min(d[i + 1] + 1.0);
                }
                if y + 1 < h {
                    m = m.min(d[i + w] + 1.0);
                    if x + 1 < w {
                        m = m.min(d[i + w + 1] + DIAG);
                    }
                    if x > 0 {
                        m = m.min(d[i + w - 1] + DIAG);
                    }
                }
                d[i] = m;
            }
        }
        d
    }

    /// Whether `ring` encloses a cell centre at least `depth` cells from every reached road
    /// (`far`: [`CostField::road_distance`]).
    fn encloses_far(&self, ring: &[[f64; 2]], far: &[f32], depth: f32) -> bool {
        let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
        for p in ring {
            x0 = x0.min(p[0]);
            x1 = x1.max(p[0]);
            y0 = y0.min(p[1]);
            y1 = y1.max(p[1]);
        }
        // Cells whose centre may lie in the ring's box (truncation: the floor of a
        // non-negative number).
        let col = |x: f64| ((x - self.ox) / self.cell).max(0.0) as usize;
        let row = |y: f64| ((y - self.oy) / self.cell).max(0.0) as usize;
        let (cx1, cy1) = (col(x1).min(self.w - 1), row(y1).min(self.h - 1));
        for y in row(y0)..=cy1 {
            for x in col(x0)..=cx1 {
                if far[y * self.w + x] >= depth && plane_ring_contains(ring, self.centre(x, y)) {
                    return true;
                }
            }
        }
        false
    }
}

/// Twice the signed area… halved: positive for counter-clockwise rings.
fn signed_area(ring: &[[f64; 2]]) -> f64 {
    let n = ring.len();
    (0..n)
        .map(|i| {
            let (a, b) = (ring[i], ring[(i + 1) % n]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum::<f64>()
        / 2.0
}

/// The ring closed (first point repeated last), if it still has an area.
fn close(mut ring: Vec<[f64; 2]>) -> Option<Vec<[f64; 2]>> {
    let first = *ring.first()?;
    ring.push(first);
    (ring.len() >= 4).then_some(ring)
}

/// Douglas–Peucker on an open ring: the first point and the point farthest from it are kept,
/// each half simplified.
fn douglas_peucker(pts: &[[f64; 2]], tol: f64) -> Vec<[f64; 2]> {
    if pts.len() < 4 {
        return pts.to_vec();
    }
    let far = (1..pts.len())
        .max_by(|&a, &b| dist2(pts[0], pts[a]).total_cmp(&dist2(pts[0], pts[b])))
        .unwrap_or(pts.len() / 2);
    let mut closed: Vec<[f64; 2]> = pts.to_vec();
    closed.push(pts[0]);
    let mut keep = vec![false; closed.len()];
    keep[0] = true;
    keep[far] = true;
    keep[closed.len() - 1] = true;
    let mut stack = vec![(0usize, far), (far, closed.len() - 1)];
    while let Some((s, e)) = stack.pop() {
        if e <= s + 1 {
            continue;
        }
        let (a, b) = (closed[s], closed[e]);
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let len = (dx * dx + dy * dy).sqrt();
        let mut best = (0.0, s);
        for (i, p) in closed.iter().enumerate().take(e).skip(s + 1) {
            let dist = if len == 0.0 {
                dist2(*p, a).sqrt()
            } else {
                ((p[0] - a[0]) * dy - (p[1] - a[1]) * dx).abs() / len
            };
            if dist > best.0 {
                best = (dist, i);
            }
        }
        if best.0 > tol {
            keep[best.1] = true;
            stack.push((s, best.1));
            stack.push((best.1, e));
        }
    }
    closed.pop();
    closed
        .into_iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(p))
        .collect()
}

fn dist2(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::super::{ALLOWANCE, MIN_CELL_M, cell_size};
    use super::*;
    use crate::routing::{Metric, Profile};

    /// A costed straight line from `a` to `b`, costs `ca` to `cb`.
    fn line(a: [f64; 2], b: [f64; 2], ca: f64, cb: f64) -> Vec<([f64; 2], f64)> {
        vec![(a, ca), (b, cb)]
    }

    /// The field of `lines` on cells of `cell` metres (budget 1000): each line's points are
    /// one arc's geometry, its costs those at its two ends.
    fn field(lines: &[Vec<([f64; 2], f64)>], cell: f64) -> CostField {
        let mut f = CostField::new(bbox(lines), cell, 1_000.0 * (1.0 + ALLOWANCE));
        for l in lines {
            let xy: Vec<[f64; 2]> = l.iter().map(|p| p.0).collect();
            let mut line = Scratch::default();
            line.load(&xy);
            let piece = Piece {
                arc: 0,
                from: 0.0,
                to: 1.0,
                cost_from: l[0].1,
                cost_to: l[l.len() - 1].1,
            };
            f.trace(&xy, &line, &piece);
        }
        f
    }

    fn bbox(lines: &[Vec<([f64; 2], f64)>]) -> [f64; 4] {
        let mut b = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
        for (p, _) in lines.iter().flatten() {
            b = [
                b[0].min(p[0]),
                b[1].min(p[1]),
                b[2].max(p[0]),
                b[3].max(p[1]),
            ];
        }
        b
    }

    /// Segments of the ring that are axis-aligned and meet another axis-aligned one at a right
    /// angle: the steps of a staircase.
    fn right_angle_steps(ring: &[[f64; 2]]) -> usize {
        let dir = |a: [f64; 2], b: [f64; 2]| {
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let len = (dx * dx + dy * dy).sqrt();
            if dx.abs() < 1e-6 * len {
                Some(1)
            } else if dy.abs() < 1e-6 * len {
                Some(0)
            } else {
                None
            }
        };
        ring.windows(3)
            .filter(|w| matches!((dir(w[0], w[1]), dir(w[1], w[2])), (Some(a), Some(b)) if a != b))
            .count()
    }

    #[test]
    fn a_square_of_roads_around_an_unreached_block_has_a_hole() {
        // A 3 km square of roads reached at 0..=400 (budget 1000), nothing inside.
        let s = 3_000.0;
        let lines = vec![
            line([0.0, 0.0], [s, 0.0], 0.0, 100.0),
            line([s, 0.0], [s, s], 100.0, 200.0),
            line([s, s], [0.0, s], 200.0, 300.0),
            line([0.0, s], [0.0, 0.0], 300.0, 400.0),
        ];
        let f = field(&lines, 100.0);
        let (outer, holes) = f.contour(1_000.0).unwrap();
        assert!(signed_area(&outer) > 0.0, "outer ring counter-clockwise");
        assert_eq!(holes.len(), 1, "the block inside is a hole");
        assert!(signed_area(&holes[0]) < 0.0, "holes clockwise");
        // The outline hugs the roads: within one and a half cells outside them.
        for p in &outer {
            let out = (-p[0]).max(p[0] - s).max(-p[1]).max(p[1] - s);
            assert!(
                out > 0.0 && out <= 1.5 * f.cell,
                "{p:?} is {out} m off the roads"
            );
        }
        // The hole covers most of the block.
        let hole_area = -signed_area(&holes[0]);
        assert!(hole_area > 0.8 * (s - 2.0 * f.cell).powi(2), "{hole_area}");
        assert_eq!(outer.first(), outer.last(), "closed");
    }

    #[test]
    fn land_between_parallel_streets_is_filled_but_a_wide_block_is_a_hole() {
        // Streets 700 m apart across 3 km, joined at both ends: every strip between them is
        // 5 cells wide inside the outline (more than the smallest hole's 16 cells in area),
        // but no point of it lies 4 cells from a street, so it is reached land.
        let (gap, len) = (700.0, 3_000.0);
        let mut lines: Vec<_> = (0..5)
            .map(|i| line([0.0, i as f64 * gap], [len, i as f64 * gap], 0.0, 300.0))
            .collect();
        lines.push(line([0.0, 0.0], [0.0, 4.0 * gap], 0.0, 100.0));
        lines.push(line([len, 0.0], [len, 4.0 * gap], 300.0, 400.0));
        let f = field(&lines, 100.0);
        let (_, holes) = f.contour(1_000.0).unwrap();
        assert!(holes.is_empty(), "{} holes", holes.len());
        // The same frame around one 2.8 km block: its middle is 14 cells from any street.
        let lines = vec![
            line([0.0, 0.0], [len, 0.0], 0.0, 300.0),
            line([0.0, 4.0 * gap], [len, 4.0 * gap], 0.0, 300.0),
            line([0.0, 0.0], [0.0, 4.0 * gap], 0.0, 100.0),
            line([len, 0.0], [len, 4.0 * gap], 300.0, 400.0),
        ];
        let (_, holes) = field(&lines, 100.0).contour(1_000.0).unwrap();
        assert_eq!(holes.len(), 1);
    }

    #[test]
    fn a_diagonal_road_gives_a_diagonal_outline_not_a_staircase() {
        let lines = vec![line([0.0, 0.0], [5_000.0, 5_000.0], 0.0, 500.0)];
        let f = field(&lines, 100.0);
        let (outer, holes) = f.contour(1_000.0).unwrap();
        assert!(holes.is_empty());
        assert_eq!(right_angle_steps(&outer), 0, "{outer:?}");
        // A thin band along the road: its area is about its length times a few cells.
        let area = signed_area(&outer);
        let len = 5_000.0 * 2f64.sqrt();
        assert!(area > len * f.cell && area < len * 4.0 * f.cell, "{area}");
    }

    #[test]
    fn roads_reached_at_the_limit_are_hugged_closer_than_early_ones() {
        // Two parallel roads along cell centres: one reached early, one just under the budget
        // (the point at the origin fixes the grid: cell edges on multiples of 100 m).
        let lines = vec![
            vec![([0.0, 0.0], 500.0)],
            line([0.0, 50.0], [4_000.0, 50.0], 0.0, 10.0),
            line([0.0, 3_050.0], [4_000.0, 3_050.0], 990.0, 999.0),
            line([0.0, 50.0], [0.0, 3_050.0], 10.0, 990.0),
        ];
        let f = field(&lines, 100.0);
        assert_eq!(f.cell, 100.0);
        let (outer, _) = f.contour(1_000.0).unwrap();
        let below = outer.iter().map(|p| p[1]).fold(f64::MAX, f64::min);
        let above = outer.iter().map(|p| p[1]).fold(f64::MIN, f64::max);
        assert!(
            50.0 - below > 0.8 * f.cell,
            "early road: most of a cell ({below})"
        );
        assert!(
            above - 3_050.0 < 0.25 * f.cell,
            "late road: hugged ({above})"
        );
    }

    #[test]
    fn saddles_and_separate_pieces_keep_the_largest_area() {
        let lines = vec![
            line([0.0, 0.0], [3_000.0, 0.0], 0.0, 100.0),
            // A far, small reached piece (an island reached by ferry, say).
            line([20_000.0, 20_000.0], [20_300.0, 20_000.0], 500.0, 510.0),
        ];
        let f = field(&lines, 100.0);
        let (outer, _) = f.contour(1_000.0).unwrap();
        assert!(
            outer.iter().all(|p| p[0] < 4_000.0),
            "the largest area only"
        );
    }

    /// Pieces inside one cell are marked at their first point without walking them: the field
    /// is the one the walked line gives, also for pieces cut short, pieces starting part-way
    /// and points on or a hair from the cells' sides.
    #[test]
    fn pieces_inside_one_cell_mark_the_field_as_walking_them_does() {
        let cell = 100.0;
        let mut s = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 1_000_000) as f64 / 1_000_000.0
        };
        let (mut walked, mut shortcut) = (
            CostField::new([0.0, 0.0, 2_000.0, 2_000.0], cell, 1_125.0),
            CostField::new([0.0, 0.0, 2_000.0, 2_000.0], cell, 1_125.0),
        );
        let mut inside = 0;
        for i in 0..4_000 {
            let start = [next() * 2_000.0, next() * 2_000.0];
            // Every fifth line starts on a cell side (the field's origin is two cells out).
            let start = if i % 5 == 0 {
                [(start[0] / cell).round() * cell, start[1]]
            } else {
                start
            };
            let spread = if i % 2 == 0 { 30.0 } else { 160.0 };
            let mut xy = vec![start];
            for _ in 0..(i % 4) + 1 {
                let last = xy[xy.len() - 1];
                xy.push([
                    last[0] + (next() - 0.5) * spread,
                    last[1] + (next() - 0.5) * spread,
                ]);
            }
            let mut line = Scratch::default();
            line.load(&xy);
            let cost_from = next() * 900.0;
            let piece = Piece {
                arc: 0,
                from: if i % 7 == 0 { next() * 0.5 } else { 0.0 },
                to: if i % 3 == 0 { 0.5 + next() * 0.5 } else { 1.0 },
                cost_from,
                cost_to: cost_from + next() * 200.0,
            };
            if piece.from == 0.0 && shortcut.holds_inside_one_cell(&xy) {
                inside += 1;
            }
            walked.trace_sampled(&xy, &line, &piece);
            shortcut.trace(&xy, &line, &piece);
        }
        assert_eq!(walked.v, shortcut.v);
        assert!(inside > 800, "{inside} pieces inside one cell");
    }

    #[test]
    fn cell_sizes_follow_the_budget() {
        // A 10-minute walk: the smallest cell; a 30-minute drive: 1/300 of 55 km.
        assert_eq!(
            cell_size(Profile::Walking, Metric::Time, 600_000),
            MIN_CELL_M
        );
        let drive = cell_size(Profile::Driving, Metric::Time, 1_800_000);
        assert!((drive - 183.3).abs() < 0.1, "{drive}");
        assert_eq!(
            cell_size(Profile::Driving, Metric::Distance, 100_000_000),
            550.0
        );
    }
}
