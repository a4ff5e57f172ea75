//! Small geometry helpers of the router: points, great-circle lengths, bearings, encoded
//! polylines (Google algorithm) and a local metric projection for snapping.

/// A WGS84 point.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pt {
    /// Latitude, degrees.
    pub lat: f64,
    /// Longitude, degrees.
    pub lng: f64,
}

impl Pt {
    /// A point.
    pub const fn new(lat: f64, lng: f64) -> Self {
        Pt { lat, lng }
    }
}

/// Mean Earth radius, metres.
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Great-circle distance in metres.
pub fn haversine_m(a: Pt, b: Pt) -> f64 {
    let (la1, la2) = (a.lat.to_radians(), b.lat.to_radians());
    let dlat = la2 - la1;
    let dlng = (b.lng - a.lng).to_radians();
    let h = (dlat / 2.0).sin().powi(2) + la1.cos() * la2.cos() * (dlng / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().min(1.0).asin()
}

/// Length of a line in metres.
pub fn line_length_m(pts: &[Pt]) -> f64 {
    pts.windows(2).map(|w| haversine_m(w[0], w[1])).sum()
}

/// Initial bearing from `a` to `b`, degrees clockwise from north in `0..360`.
pub fn bearing_deg(a: Pt, b: Pt) -> f64 {
    let (la1, la2) = (a.lat.to_radians(), b.lat.to_radians());
    let dlng = (b.lng - a.lng).to_radians();
    let y = dlng.sin() * la2.cos();
    let x = la1.cos() * la2.sin() - la1.sin() * la2.cos() * dlng.cos();
    let deg = y.atan2(x).to_degrees();
    (deg + 360.0) % 360.0
}

/// Signed turn from bearing `from` to bearing `to`, degrees in `-180..=180` (positive: right).
pub fn turn_angle(from: f64, to: f64) -> f64 {
    let mut d = to - from;
    while d > 180.0 {
        d -= 360.0;
    }
    while d < -180.0 {
        d += 360.0;
    }
    d
}

/// Appends the points of an encoded polyline of `precision` digits to `out`.
pub fn decode_polyline(s: &str, precision: u32, out: &mut Vec<Pt>) -> Result<(), String> {
    let factor = 10f64.powi(precision as i32);
    let bytes = s.as_bytes();
    let (mut i, mut lat, mut lng) = (0usize, 0i64, 0i64);
    let next = |i: &mut usize| -> Result<i64, String> {
        let mut result: i64 = 0;
        let mut shift = 0;
        loop {
            let Some(&b) = bytes.get(*i) else {
                return Err("truncated polyline".into());
            };
            *i += 1;
            if !(63..=126).contains(&b) || shift > 60 {
                return Err(format!("invalid polyline byte {b}"));
            }
            let v = i64::from(b) - 63;
            result |= (v & 0x1f) << shift;
            shift += 5;
            if v < 0x20 {
                break;
            }
        }
        Ok(if result & 1 != 0 {
            !(result >> 1)
        } else {
            result >> 1
        })
    };
    while i < bytes.len() {
        lat += next(&mut i)?;
        lng += next(&mut i)?;
        out.push(Pt::new(lat as f64 / factor, lng as f64 / factor));
    }
    Ok(())
}

/// Encodes points as a polyline of `precision` digits (5 is Google's default).
pub fn encode_polyline(pts: impl IntoIterator<Item = Pt>, precision: u32) -> String {
    let factor = 10f64.powi(precision as i32);
    let mut out = String::new();
    let (mut plat, mut plng) = (0i64, 0i64);
    let push = |v: i64, out: &mut String| {
        let mut v = if v < 0 { !(v << 1) } else { v << 1 };
        while v >= 0x20 {
            out.push(char::from((0x20 | (v & 0x1f)) as u8 + 63));
            v >>= 5;
        }
        out.push(char::from(v as u8 + 63));
    };
    for p in pts {
        let lat = (p.lat * factor).round() as i64;
        let lng = (p.lng * factor).round() as i64;
        push(lat - plat, &mut out);
        push(lng - plng, &mut out);
        plat = lat;
        plng = lng;
    }
    out
}

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

/// The point at `t` of the way from `a` to `b` (linear in degrees).
pub fn lerp(a: Pt, b: Pt, t: f64) -> Pt {
    Pt::new(a.lat + (b.lat - a.lat) * t, a.lng + (b.lng - a.lng) * t)
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn polyline_round_trip_and_google_example() {
        let pts = vec![
            Pt::new(38.5, -120.2),
            Pt::new(40.7, -120.95),
            Pt::new(43.252, -126.453),
        ];
        let s = encode_polyline(pts.clone(), 5);
        assert_eq!(s, "_p~iF~ps|U_ulLnnqC_mqNvxq`@");
        let mut back = Vec::new();
        decode_polyline(&s, 5, &mut back).unwrap();
        assert_eq!(back, pts);
        assert!(decode_polyline("_p~iF~ps|U_", 5, &mut Vec::new()).is_err());
    }

    #[test]
    fn lengths_and_bearings() {
        let a = Pt::new(42.5, 1.5);
        let b = Pt::new(42.51, 1.5);
        assert!((haversine_m(a, b) - 1111.95).abs() < 1.0);
        assert!((bearing_deg(a, b) - 0.0).abs() < 1e-6);
        assert!((bearing_deg(b, a) - 180.0).abs() < 1e-6);
        assert_eq!(turn_angle(350.0, 10.0), 20.0);
        assert_eq!(turn_angle(10.0, 350.0), -20.0);
    }

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
}
