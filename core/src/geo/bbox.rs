//! Bounding boxes in degrees, and the two array orders they are stored in: GeoJSON and
//! manifests write `[west, south, east, north]`, the packs' SQLite R-trees
//! `[min_lat, max_lat, min_lng, max_lng]`.
//!
//! Boxes here never cross the antimeridian (a manifest's coverage may; the pack registry
//! handles that case itself).
//!
//! ```
//! use waymark_core::geo::{BBox, Pt};
//! let b = BBox::of([Pt::new(42.4, 1.4), Pt::new(42.6, 1.8)]).unwrap();
//! assert_eq!(b.to_wsen(), [1.4, 42.4, 1.8, 42.6]);
//! assert_eq!(b.to_rtree(), [42.4, 42.6, 1.4, 1.8]);
//! assert!(b.contains(Pt::new(42.5, 1.5)));
//! ```
use super::point::Pt;

/// A latitude/longitude box, bounds included.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BBox {
    /// Least latitude.
    pub south: f64,
    /// Least longitude.
    pub west: f64,
    /// Greatest latitude.
    pub north: f64,
    /// Greatest longitude.
    pub east: f64,
}

impl BBox {
    /// The box of one point.
    pub const fn point(p: Pt) -> BBox {
        BBox {
            south: p.lat,
            west: p.lng,
            north: p.lat,
            east: p.lng,
        }
    }

    /// The box of the points, `None` when there are none.
    pub fn of(points: impl IntoIterator<Item = Pt>) -> Option<BBox> {
        let mut points = points.into_iter();
        let first = BBox::point(points.next()?);
        Some(points.fold(first, BBox::extend))
    }

    /// The box grown to hold `p`.
    pub fn extend(self, p: Pt) -> BBox {
        BBox {
            south: self.south.min(p.lat),
            west: self.west.min(p.lng),
            north: self.north.max(p.lat),
            east: self.east.max(p.lng),
        }
    }

    /// The smallest box holding both.
    pub fn union(self, other: BBox) -> BBox {
        BBox {
            south: self.south.min(other.south),
            west: self.west.min(other.west),
            north: self.north.max(other.north),
            east: self.east.max(other.east),
        }
    }

    /// Whether `p` lies in the box (bounds included).
    pub fn contains(&self, p: Pt) -> bool {
        p.lat >= self.south && p.lat <= self.north && p.lng >= self.west && p.lng <= self.east
    }

    /// Whether the boxes share a point (touching counts).
    pub fn intersects(&self, other: &BBox) -> bool {
        self.south <= other.north
            && self.north >= other.south
            && self.west <= other.east
            && self.east >= other.west
    }

    /// Width × height in square degrees (to order areas by size).
    pub fn area_deg2(&self) -> f64 {
        (self.east - self.west) * (self.north - self.south)
    }

    /// `[west, south, east, north]` (GeoJSON, manifests, search documents).
    pub const fn to_wsen(self) -> [f64; 4] {
        [self.west, self.south, self.east, self.north]
    }

    /// `[min_lat, max_lat, min_lng, max_lng]` (the packs' R-tree columns).
    pub const fn to_rtree(self) -> [f64; 4] {
        [self.south, self.north, self.west, self.east]
    }

    /// From `[min_lat, max_lat, min_lng, max_lng]`.
    pub const fn from_rtree(b: [f64; 4]) -> BBox {
        BBox {
            south: b[0],
            north: b[1],
            west: b[2],
            east: b[3],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes() {
        assert_eq!(BBox::of(std::iter::empty()), None);
        let a = BBox::point(Pt::new(1.0, 2.0));
        let b = BBox::point(Pt::new(3.0, -1.0));
        let u = a.union(b);
        assert_eq!(u.to_rtree(), [1.0, 3.0, -1.0, 2.0]);
        assert_eq!(BBox::from_rtree(u.to_rtree()), u);
        assert!(u.contains(Pt::new(2.0, 0.0)) && !u.contains(Pt::new(4.0, 0.0)));
        assert!(a.intersects(&u) && !a.intersects(&b));
        assert_eq!(u.area_deg2(), 6.0);
    }
}
