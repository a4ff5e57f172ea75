//! Great-circle measures: haversine distances, line lengths, bearings and turn angles.
//!
//! [`road_length_m`] is the pack builder's length of a road (the `road_edges.length` column):
//! its haversine turns both longitudes into radians before subtracting them, where
//! [`haversine_m`] subtracts first. The two agree far below a millimetre but not to the last
//! bit, and the routing answers are compared byte for byte, so each keeps its arithmetic.
//!
//! ```
//! use waymark_core::geo::{Pt, haversine_m, line_length_m};
//! let line = [Pt::new(0.0, 0.0), Pt::new(1.0, 0.0), Pt::new(2.0, 0.0)];
//! assert!((line_length_m(&line) - 2.0 * haversine_m(line[0], line[1])).abs() < 1e-6);
//! ```
use super::point::Pt;

/// Mean Earth radius, metres (the radius of every haversine in Waymark).
pub const EARTH_RADIUS_M: f64 = 6_371_008.8;

/// Great-circle distance in metres.
pub fn haversine_m(a: Pt, b: Pt) -> f64 {
    let (la1, la2) = (a.lat.to_radians(), b.lat.to_radians());
    let dlat = la2 - la1;
    let dlng = (b.lng - a.lng).to_radians();
    let h = (dlat / 2.0).sin().powi(2) + la1.cos() * la2.cos() * (dlng / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().min(1.0).asin()
}

/// A position on the sphere of the Earth's radius, in metres: the straight (chord) distance
/// between two positions orders pairs exactly as their great-circle distance, so R-trees of
/// these positions answer nearest-first and radius queries exactly anywhere on Earth.
pub fn xyz(p: Pt) -> [f64; 3] {
    let (lat, lng) = (p.lat.to_radians(), p.lng.to_radians());
    [
        EARTH_RADIUS_M * lat.cos() * lng.cos(),
        EARTH_RADIUS_M * lat.cos() * lng.sin(),
        EARTH_RADIUS_M * lat.sin(),
    ]
}

/// Length of a line in metres (sum of [`haversine_m`] over its segments).
pub fn line_length_m(pts: &[Pt]) -> f64 {
    pts.windows(2).map(|w| haversine_m(w[0], w[1])).sum()
}

/// The pack builder's haversine: longitudes converted to radians before the difference.
fn haversine_radians_first_m(a: Pt, b: Pt) -> f64 {
    let (lat1, lng1) = (a.lat.to_radians(), a.lng.to_radians());
    let (lat2, lng2) = (b.lat.to_radians(), b.lng.to_radians());
    let dlat = lat2 - lat1;
    let dlng = lng2 - lng1;
    let h = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlng / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_M * h.sqrt().min(1.0).asin()
}

/// Length in metres of a road's points as the pack builder stores it (`road_edges.length`);
/// see the module documentation for how it differs from [`line_length_m`].
pub fn road_length_m(pts: &[Pt]) -> f64 {
    pts.windows(2)
        .map(|w| haversine_radians_first_m(w[0], w[1]))
        .sum()
}

/// Initial bearing from `a` to `b`, degrees clockwise from north in `0..360`.
pub fn bearing_deg(a: Pt, b: Pt) -> f64 {
    let (la1, la2) = (a.lat.to_radians(), b.lat.to_radians());
    let dlng = (b.lng - a.lng).to_radians();
    let y = dlng.sin() * la2.cos();
    let x = la1.cos() * la2.sin() - la1.sin() * la2.cos() * dlng.cos();
    let deg = y.atan2(x).to_degrees();
    // `(deg + 360) % 360` without the call into libm: `deg` lies in `-180..=180`, so the sum
    // lies in `180..=540`, and subtracting 360 once is exactly what the remainder gives.
    let up = deg + 360.0;
    if up >= 360.0 { up - 360.0 } else { up }
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

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
    fn east_west_distance() {
        let d = haversine_m(Pt::new(42.5, 1.5), Pt::new(42.5, 1.51));
        assert!((d - 819.0).abs() < 5.0, "{d}");
    }

    #[test]
    fn road_length_of_one_degree() {
        let d = road_length_m(&[Pt::new(0.0, 0.0), Pt::new(1.0, 0.0)]);
        assert!((d - 111_195.0).abs() < 5.0, "{d}");
        let line = [
            Pt::new(42.5, 1.5),
            Pt::new(42.5, 1.51),
            Pt::new(42.51, 1.52),
        ];
        assert!((road_length_m(&line) - line_length_m(&line)).abs() < 1e-6);
    }
}
