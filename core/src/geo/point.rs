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
