//! Is a geometry usable as a dataset or query geometry?

use geo::algorithm::Validation;
use geo::algorithm::validation::{InvalidPolygon, RingRole};
use geo_types::{Coord, Geometry, LineString, Polygon};

/// The first problem that makes `g` unusable as a dataset geometry or query geometry, as a
/// sentence a user can act on, or `None`.
///
/// Checked, in this order: empty geometry (no positions, empty parts or collections),
/// non-finite coordinates, latitude outside ±90 / longitude outside ±180 (x is the
/// longitude), a line with fewer than 2 distinct positions, a polygon ring with fewer than 4
/// positions or not closed, and then, per polygon, OGC validity with `geo`'s `Validation`
/// (self-intersecting rings, holes outside the shell or crossing it or each other).
/// Parts of a multi-polygon that overlap each other are accepted (they are common in
/// real-world layers and harmless for containment queries).
pub fn problem(g: &Geometry<f64>) -> Option<String> {
    check(g, "").err()
}

fn check(g: &Geometry<f64>, at: &str) -> Result<(), String> {
    match g {
        Geometry::Point(p) => coord(p.0, at),
        Geometry::Line(l) => {
            coord(l.start, at)?;
            coord(l.end, at)?;
            if l.start == l.end {
                return Err(format!(
                    "{at}the line has a single distinct position; a line needs at least 2"
                ));
            }
            Ok(())
        }
        Geometry::LineString(ls) => line(ls, at),
        Geometry::Polygon(p) => polygon(p, at),
        Geometry::MultiPoint(mp) => {
            if mp.0.is_empty() {
                return Err(format!(
                    "{at}the geometry is empty (a MultiPoint with no points)"
                ));
            }
            for (i, p) in mp.0.iter().enumerate() {
                coord(p.0, &format!("{at}point {}: ", i + 1))?;
            }
            Ok(())
        }
        Geometry::MultiLineString(mls) => {
            if mls.0.is_empty() {
                return Err(format!(
                    "{at}the geometry is empty (a MultiLineString with no lines)"
                ));
            }
            for (i, ls) in mls.0.iter().enumerate() {
                line(ls, &format!("{at}line {}: ", i + 1))?;
            }
            Ok(())
        }
        Geometry::MultiPolygon(mp) => {
            if mp.0.is_empty() {
                return Err(format!(
                    "{at}the geometry is empty (a MultiPolygon with no polygons)"
                ));
            }
            for (i, p) in mp.0.iter().enumerate() {
                polygon(p, &format!("{at}polygon {}: ", i + 1))?;
            }
            Ok(())
        }
        Geometry::GeometryCollection(gc) => {
            if gc.0.is_empty() {
                return Err(format!(
                    "{at}the geometry is empty (a GeometryCollection with no members)"
                ));
            }
            for (i, g) in gc.0.iter().enumerate() {
                check(g, &format!("{at}member {}: ", i + 1))?;
            }
            Ok(())
        }
        Geometry::Rect(r) => polygon(&r.to_polygon(), at),
        Geometry::Triangle(t) => polygon(&t.to_polygon(), at),
    }
}

fn coord(c: Coord<f64>, at: &str) -> Result<(), String> {
    if !c.x.is_finite() || !c.y.is_finite() {
        return Err(format!(
            "{at}coordinate [{}, {}] is not a finite number",
            c.x, c.y
        ));
    }
    if !(-90.0..=90.0).contains(&c.y) {
        return Err(format!(
            "{at}latitude {} is outside -90..90 (positions are [longitude, latitude]; are they swapped, or not in WGS 84 degrees?)",
            c.y
        ));
    }
    if !(-180.0..=180.0).contains(&c.x) {
        return Err(format!(
            "{at}longitude {} is outside -180..180 (are the coordinates in WGS 84 degrees?)",
            c.x
        ));
    }
    Ok(())
}

fn coords(cs: &[Coord<f64>], at: &str) -> Result<(), String> {
    cs.iter().try_for_each(|c| coord(*c, at))
}

fn line(ls: &LineString<f64>, at: &str) -> Result<(), String> {
    if ls.0.is_empty() {
        return Err(format!(
            "{at}the geometry is empty (a line with no positions)"
        ));
    }
    coords(&ls.0, at)?;
    let first = ls.0[0];
    if ls.0.iter().all(|c| *c == first) {
        return Err(format!(
            "{at}the line has {} position(s) but only one distinct position; a line needs at least 2",
            ls.0.len()
        ));
    }
    Ok(())
}

fn polygon(p: &Polygon<f64>, at: &str) -> Result<(), String> {
    if p.exterior().0.is_empty() {
        return Err(format!(
            "{at}the geometry is empty (a polygon with no rings)"
        ));
    }
    for (i, ring) in std::iter::once(p.exterior())
        .chain(p.interiors())
        .enumerate()
    {
        let name = if i == 0 {
            "outer ring".to_owned()
        } else {
            format!("hole {i}")
        };
        coords(&ring.0, &format!("{at}{name}: "))?;
        if ring.0.len() < 4 {
            return Err(format!(
                "{at}{name} has {} positions; a polygon ring needs at least 4 (the last repeating the first)",
                ring.0.len()
            ));
        }
        if ring.0.first() != ring.0.last() {
            return Err(format!(
                "{at}{name} is not closed (the last position must repeat the first)"
            ));
        }
    }
    if let Err(e) = p.check_validation() {
        let msg = match e {
            InvalidPolygon::TooFewPointsInRing(r) => {
                format!("{} has fewer than 3 distinct positions", role(r))
            }
            InvalidPolygon::SelfIntersection(r) => {
                format!("{} crosses or touches itself (self-intersection)", role(r))
            }
            InvalidPolygon::NonFiniteCoord(r, _) => {
                format!("{} has a coordinate that is not a finite number", role(r))
            }
            InvalidPolygon::InteriorRingNotContainedInExteriorRing(r) => {
                format!("{} is not inside the outer ring", role(r))
            }
            InvalidPolygon::IntersectingRingsOnALine(a, b) => {
                format!("{} and {} overlap along a line", role(a), role(b))
            }
            InvalidPolygon::IntersectingRingsOnAnArea(a, b) => {
                format!("{} and {} overlap", role(a), role(b))
            }
        };
        return Err(format!("{at}invalid polygon: {msg}"));
    }
    Ok(())
}

fn role(r: RingRole) -> String {
    match r {
        RingRole::Exterior => "outer ring".to_owned(),
        RingRole::Interior(i) => format!("hole {}", i + 1),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use geo_types::{LineString, Point, polygon};

    #[test]
    fn good_geometries_pass() {
        assert_eq!(problem(&Geometry::Point(Point::new(2.35, 48.85))), None);
        let p = polygon![(x: 0.0, y: 0.0), (x: 1.0, y: 0.0), (x: 1.0, y: 1.0), (x: 0.0, y: 1.0)];
        assert_eq!(problem(&Geometry::Polygon(p)), None);
    }

    #[test]
    fn bad_geometries_are_explained() {
        let r = problem(&Geometry::Point(Point::new(2.0, 95.0))).unwrap();
        assert!(r.contains("latitude 95"), "{r}");
        let r = problem(&Geometry::Point(Point::new(f64::NAN, 1.0))).unwrap();
        assert!(r.contains("finite"), "{r}");
        let r = problem(&Geometry::LineString(LineString(vec![]))).unwrap();
        assert!(r.contains("empty"), "{r}");
        let bowtie =
            polygon![(x: 0.0, y: 0.0), (x: 1.0, y: 1.0), (x: 1.0, y: 0.0), (x: 0.0, y: 1.0)];
        let r = problem(&Geometry::Polygon(bowtie)).unwrap();
        assert!(r.contains("self-intersection"), "{r}");
        let outside = Polygon::new(
            LineString::from(vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 0.0)]),
            vec![LineString::from(vec![
                (5.0, 5.0),
                (6.0, 5.0),
                (6.0, 6.0),
                (5.0, 5.0),
            ])],
        );
        let r = problem(&Geometry::Polygon(outside)).unwrap();
        assert!(r.contains("hole 1"), "{r}");
    }
}
