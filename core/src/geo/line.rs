//! Lines: a local metric projection for nearest-segment searches, the projection of a point
//! on a segment, the part of a line between two fractions, the nearest point of a line and
//! the point at a fraction of its length.
//!
//! ```
//! use waymark_core::geo::{Pt, nearest_on_line, point_along};
//! let line = [Pt::new(0.0, 0.0), Pt::new(0.0, 0.01)];
//! let near = nearest_on_line(&line, Pt::new(0.001, 0.005)).unwrap();
//! assert!((near.distance_m - 110.6).abs() < 1.0);
//! assert!((point_along(&line, 0.5).unwrap().lng - 0.005).abs() < 1e-9);
//! ```
use super::point::{Pt, lerp};
use super::sphere::{EARTH_RADIUS_M, haversine_m, line_length_m};

/// An equirectangular projection to metres around a reference latitude, accurate enough for
/// nearest-edge searches inside a region pack.
#[derive(Debug, Clone, Copy)]
pub struct LocalProjection {
    kx: f64,
    ky: f64,
}

impl LocalProjection {
    /// A projection centred on latitude `lat0`.
    pub fn new(lat0: f64) -> Self {
        let ky = EARTH_RADIUS_M.to_radians();
        LocalProjection {
            kx: ky * lat0.to_radians().cos().max(0.01),
            ky,
        }
    }

    /// `[x, y]` in metres.
    pub fn project(&self, p: Pt) -> [f64; 2] {
        [p.lng * self.kx, p.lat * self.ky]
    }

    /// The factors of [`LocalProjection::project`]: metres per degree of longitude and of
    /// latitude.
    pub fn factors(&self) -> (f64, f64) {
        (self.kx, self.ky)
    }

    /// Back to degrees.
    pub fn unproject(&self, xy: [f64; 2]) -> Pt {
        Pt::new(xy[1] / self.ky, xy[0] / self.kx)
    }
}

/// Projection of `p` on segment `a`–`b` (all projected): the parameter in `0..=1` and the
/// squared distance.
pub fn project_on_segment(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> (f64, f64) {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let len2 = dx * dx + dy * dy;
    let t = if len2 <= 0.0 {
        0.0
    } else {
        (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2).clamp(0.0, 1.0)
    };
    let (qx, qy) = (a[0] + t * dx, a[1] + t * dy);
    (t, (p[0] - qx).powi(2) + (p[1] - qy).powi(2))
}

/// The part of a line between fractions `from` and `to` of its length (`from <= to`).
pub fn sub_line(pts: &[Pt], from: f64, to: f64, out: &mut Vec<Pt>) {
    let total = line_length_m(pts);
    if pts.len() < 2 || total <= 0.0 {
        out.extend(pts.first().copied());
        return;
    }
    let (start_m, end_m) = (from.clamp(0.0, 1.0) * total, to.clamp(0.0, 1.0) * total);
    let mut acc = 0.0;
    let mut started = false;
    for w in pts.windows(2) {
        let seg = haversine_m(w[0], w[1]);
        let (s0, s1) = (acc, acc + seg);
        if !started && start_m <= s1 {
            let t = if seg > 0.0 { (start_m - s0) / seg } else { 0.0 };
            out.push(lerp(w[0], w[1], t.clamp(0.0, 1.0)));
            started = true;
        }
        if started {
            if end_m <= s1 {
                let t = if seg > 0.0 { (end_m - s0) / seg } else { 1.0 };
                out.push(lerp(w[0], w[1], t.clamp(0.0, 1.0)));
                return;
            }
            out.push(w[1]);
        }
        acc = s1;
    }
    if !started {
        out.extend(pts.last().copied());
    }
}

/// The point of a line nearest to a given point, as [`nearest_on_line`] finds it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinePoint {
    /// Distance from the given point, metres.
    pub distance_m: f64,
    /// The point of the line.
    pub point: Pt,
    /// Distance from the line's start to [`LinePoint::point`] along the line, metres.
    pub along_m: f64,
}

/// The point of a line nearest to `p` (distances on a local equirectangular projection
/// around `p`).
pub fn nearest_on_line(line: &[Pt], p: Pt) -> Option<LinePoint> {
    let (lat, lng) = (p.lat, p.lng);
    let kx = 111_320.0 * lat.to_radians().cos();
    let ky = 110_574.0;
    let mut best: Option<LinePoint> = None;
    let mut along = 0.0;
    for seg in line.windows(2) {
        let (a, b) = (seg[0], seg[1]);
        let (ax, ay) = ((a.lng - lng) * kx, (a.lat - lat) * ky);
        let (bx, by) = ((b.lng - lng) * kx, (b.lat - lat) * ky);
        let (dx, dy) = (bx - ax, by - ay);
        let len2 = dx * dx + dy * dy;
        let t = if len2 > 0.0 {
            (-(ax * dx + ay * dy) / len2).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (px, py) = (ax + t * dx, ay + t * dy);
        let d = (px * px + py * py).sqrt();
        let seg_len = len2.sqrt();
        if best.is_none_or(|best| d < best.distance_m) {
            best = Some(LinePoint {
                distance_m: d,
                point: Pt::new(a.lat + t * (b.lat - a.lat), a.lng + t * (b.lng - a.lng)),
                along_m: along + t * seg_len,
            });
        }
        along += seg_len;
    }
    if let [only] = line {
        return Some(LinePoint {
            distance_m: haversine_m(p, *only),
            point: *only,
            along_m: 0.0,
        });
    }
    best
}

/// The point at `fraction` (`0..=1`) of a line's length.
pub fn point_along(line: &[Pt], fraction: f64) -> Option<Pt> {
    let lens: Vec<f64> = line.windows(2).map(|s| haversine_m(s[0], s[1])).collect();
    let total: f64 = lens.iter().sum();
    let mut target = total * fraction.clamp(0.0, 1.0);
    for (i, len) in lens.iter().enumerate() {
        if target <= *len && *len > 0.0 {
            let t = target / len;
            let (a, b) = (line[i], line[i + 1]);
            return Some(Pt::new(
                a.lat + t * (b.lat - a.lat),
                a.lng + t * (b.lng - a.lng),
            ));
        }
        target -= len;
    }
    line.last().copied()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn sub_line_cuts_at_fractions() {
        let pts = [Pt::new(0.0, 0.0), Pt::new(0.0, 1.0), Pt::new(0.0, 2.0)];
        let mut out = Vec::new();
        sub_line(&pts, 0.25, 0.75, &mut out);
        assert_eq!(out.len(), 3);
        assert!((out[0].lng - 0.5).abs() < 1e-9);
        assert!((out[1].lng - 1.0).abs() < 1e-9);
        assert!((out[2].lng - 1.5).abs() < 1e-9);
    }

    #[test]
    fn nearest_and_along() {
        let line = [Pt::new(0.0, 0.0), Pt::new(0.0, 0.01)];
        let near = nearest_on_line(&line, Pt::new(0.001, 0.005)).unwrap();
        assert!((near.distance_m - 110.6).abs() < 1.0, "{near:?}");
        assert!(near.point.lat.abs() < 1e-12 && (near.point.lng - 0.005).abs() < 1e-9);
        assert!((near.along_m - 556.6).abs() < 2.0, "{near:?}");
        let mid = point_along(&line, 0.5).unwrap();
        assert!((mid.lng - 0.005).abs() < 1e-9);
        let one = nearest_on_line(&line[..1], Pt::new(0.0, 0.001)).unwrap();
        assert_eq!(one.point, line[0]);
        assert_eq!(nearest_on_line(&[], Pt::new(0.0, 0.0)), None);
    }

    #[test]
    fn projection_round_trips() {
        let proj = LocalProjection::new(42.5);
        let p = Pt::new(42.5, 1.5);
        let back = proj.unproject(proj.project(p));
        assert!((back.lat - p.lat).abs() < 1e-12 && (back.lng - p.lng).abs() < 1e-12);
        let (t, d2) = project_on_segment([1.0, 1.0], [0.0, 0.0], [2.0, 0.0]);
        assert_eq!((t, d2), (0.5, 1.0));
    }
}
