//! The point type and the plain-degree helpers around it: interpolation and the degrees a
//! distance spans.
//!
//! ```
//! use waymark_core::geo::{Pt, lerp};
//! let mid = lerp(Pt::new(0.0, 0.0), Pt::new(2.0, 4.0), 0.5);
//! assert_eq!(mid, Pt::new(1.0, 2.0));
//! ```

/// A WGS84 point (two `f64`s, no padding: arrays of points can be read in place from a
/// mapped file).
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
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

/// The point at `t` of the way from `a` to `b` (linear in degrees).
pub fn lerp(a: Pt, b: Pt, t: f64) -> Pt {
    Pt::new(a.lat + (b.lat - a.lat) * t, a.lng + (b.lng - a.lng) * t)
}

/// Degrees of latitude and longitude spanned by `metres` around latitude `lat` (for search
/// windows; 111.32 km a degree).
pub fn degrees_for(metres: f64, lat: f64) -> (f64, f64) {
    let dlat = metres / 111_320.0;
    let dlng = metres / (111_320.0 * lat.to_radians().cos().abs().max(0.01));
    (dlat, dlng)
}

/// Position of `(x, y)` along the Hilbert curve over a grid of 2^16 × 2^16 cells: cells close
/// along the curve are close in the plane (the order of spatial indexes).
pub fn hilbert(mut x: u32, mut y: u32) -> u64 {
    const N: u32 = 1 << 16;
    let mut d = 0u64;
    let mut s = N / 2;
    while s > 0 {
        let rx = u32::from(x & s != 0);
        let ry = u32::from(y & s != 0);
        d += u64::from(s) * u64::from(s) * u64::from((3 * rx) ^ ry);
        if ry == 0 {
            if rx == 1 {
                x = N - 1 - x;
                y = N - 1 - y;
            }
            std::mem::swap(&mut x, &mut y);
        }
        s /= 2;
    }
    d
}
