//! The geometric predicates of the grid: orientation, crossings with the tie-breaking rules
//! that make the grid answer as a scan of the polygons, box tests, and the 1° cell of a
//! coordinate.
use super::{Point, TOP_H, TOP_W};

/// Twice the signed area of `(a, b, c)`: > 0 when `c` is left of `a → b`.
#[inline]
pub(super) fn orient(a: Point, b: Point, c: Point) -> f64 {
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// Whether `c` lies left of the line `a → b`, with `c` nudged east (then north) when it lies
/// on the line: a point on a polygon's edge counts as lying just east (north) of it, as in
/// an even-odd ray cast towards the east, so lookups on the antimeridian, the poles and
/// cell borders answer like a scan of the polygons.
#[inline]
pub(super) fn left_of(a: Point, b: Point, c: Point) -> bool {
    let o = orient(a, b, c);
    if o != 0.0 {
        o > 0.0
    } else if a[1] != b[1] {
        a[1] > b[1]
    } else {
        b[0] > a[0]
    }
}

/// Whether `v` lies left of the line `p → q`, with `q` nudged as in [`left_of`]. A vertex
/// shared by two edges is classified once, so a path through it crosses the ring once or
/// not at all.
#[inline]
pub(super) fn vertex_left_of(p: Point, q: Point, v: Point) -> bool {
    let o = orient(p, q, v);
    if o != 0.0 {
        o > 0.0
    } else if v[1] != p[1] {
        v[1] > p[1]
    } else {
        v[0] < p[0]
    }
}

/// Whether segment `p → q` crosses edge `a → b` (`p` is a reference point, `q` the point
/// looked up, nudged as in [`left_of`]).
#[inline]
pub(super) fn crosses(p: Point, q: Point, a: Point, b: Point) -> bool {
    vertex_left_of(p, q, a) != vertex_left_of(p, q, b) && left_of(a, b, p) != left_of(a, b, q)
}

/// Whether segment `a → b` meets the closed box `[x0, x1] × [y0, y1]`.
pub(super) fn meets_box(a: Point, b: Point, x0: f64, y0: f64, x1: f64, y1: f64) -> bool {
    if a[0].max(b[0]) < x0 || a[0].min(b[0]) > x1 || a[1].max(b[1]) < y0 || a[1].min(b[1]) > y1 {
        return false;
    }
    let s = [
        orient(a, b, [x0, y0]),
        orient(a, b, [x1, y0]),
        orient(a, b, [x0, y1]),
        orient(a, b, [x1, y1]),
    ];
    !(s.iter().all(|v| *v > 0.0) || s.iter().all(|v| *v < 0.0))
}

/// `set` with the membership of `zone` flipped (kept ascending).
pub(super) fn toggle(set: &mut Vec<u16>, zone: u16) {
    match set.binary_search(&zone) {
        Ok(i) => {
            set.remove(i);
        }
        Err(i) => set.insert(i, zone),
    }
}

/// Column of the 1° cell of longitude `x` (clamped to the grid).
pub(super) fn top_col(x: f64) -> usize {
    ((x + 180.0).floor().clamp(0.0, (TOP_W - 1) as f64)) as usize
}

/// Row of the 1° cell of latitude `y` (clamped to the grid).
pub(super) fn top_row(y: f64) -> usize {
    ((y + 90.0).floor().clamp(0.0, (TOP_H - 1) as f64)) as usize
}
