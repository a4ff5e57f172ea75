//! Is a geometry usable as a dataset or query geometry?

use geo::coordinate_position::CoordPos;
use geo::dimensions::Dimensions;
use geo::line_intersection::{LineIntersection, line_intersection};
use geo::{PreparedGeometry, Relate};
use geo_types::{Coord, Geometry, Line, LineString, Polygon};

/// The first problem that makes `g` unusable as a dataset geometry or query geometry, as a
/// sentence a user can act on, or `None`.
///
/// Checked, in this order: empty geometry (no positions, empty parts or collections),
/// non-finite coordinates, latitude outside ±90 / longitude outside ±180 (x is the
/// longitude), a line with fewer than 2 distinct positions, a polygon ring with fewer than 4
/// positions or not closed, and then, per polygon, OGC validity as `geo`'s `Validation`
/// defines it (self-intersecting rings, holes outside the shell or crossing it or each
/// other), with a sweep-line self-intersection test that stays fast on large rings.
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
    polygon_validity(p).map_err(|msg| format!("{at}invalid polygon: {msg}"))
}

/// OGC polygon validity, as `geo`'s `Validation` checks it, but with a sweep-line
/// self-intersection test: `geo` 0.33 compares every segment of a ring with every other
/// (quadratic: minutes for a 50,000-vertex flood zone). Rings are known to be closed, finite
/// and at least 4 positions long here.
fn polygon_validity(p: &Polygon<f64>) -> Result<(), String> {
    let rings: Vec<&LineString<f64>> = std::iter::once(p.exterior()).chain(p.interiors()).collect();
    for (i, ring) in rings.iter().enumerate() {
        let role = ring_name(i);
        let v = dedup(&ring.0);
        if v.len() < 4 {
            return Err(format!("{role} has fewer than 3 distinct positions"));
        }
        if ring_self_intersects(&v) {
            return Err(format!(
                "{role} crosses or touches itself (self-intersection)"
            ));
        }
    }
    if p.interiors().is_empty() {
        return Ok(());
    }
    let shell = Polygon::new(p.exterior().clone(), vec![]);
    let shell = PreparedGeometry::from(&shell);
    let holes: Vec<Polygon<f64>> = p
        .interiors()
        .iter()
        .map(|r| Polygon::new(r.clone(), vec![]))
        .collect();
    for (i, hole) in holes.iter().enumerate() {
        let name = ring_name(i + 1);
        let m = shell.relate(hole);
        if !m.is_contains() {
            return Err(format!("{name} is not inside the outer ring"));
        }
        if m.get(CoordPos::OnBoundary, CoordPos::OnBoundary) == Dimensions::OneDimensional {
            return Err(format!("the outer ring and {name} overlap along a line"));
        }
    }
    for (i, a) in holes.iter().enumerate() {
        let prepared = PreparedGeometry::from(a);
        for (j, b) in holes.iter().enumerate().skip(i + 1) {
            let m = prepared.relate(b);
            if m.get(CoordPos::Inside, CoordPos::Inside) == Dimensions::TwoDimensional {
                return Err(format!(
                    "{} and {} overlap",
                    ring_name(i + 1),
                    ring_name(j + 1)
                ));
            }
            if m.get(CoordPos::OnBoundary, CoordPos::OnBoundary) == Dimensions::OneDimensional {
                return Err(format!(
                    "{} and {} overlap along a line",
                    ring_name(i + 1),
                    ring_name(j + 1)
                ));
            }
        }
    }
    Ok(())
}

fn ring_name(i: usize) -> String {
    if i == 0 {
        "outer ring".to_owned()
    } else {
        format!("hole {i}")
    }
}

/// The ring without consecutive repeated positions.
fn dedup(cs: &[Coord<f64>]) -> Vec<Coord<f64>> {
    let mut v: Vec<Coord<f64>> = Vec::with_capacity(cs.len());
    for c in cs {
        if v.last() != Some(c) {
            v.push(*c);
        }
    }
    v
}

/// Does the closed ring `v` (no repeated consecutive positions) cross or touch itself?
/// Non-adjacent segments must not meet at all; adjacent ones only at their shared vertex
/// (a spike folding back on itself is an overlap). Segments are swept by their x extent, so
/// only segments whose bounding boxes overlap are compared.
fn ring_self_intersects(v: &[Coord<f64>]) -> bool {
    let n = v.len() - 1;
    let seg = |i: usize| Line::new(v[i], v[i + 1]);
    let mut order: Vec<(f64, f64, usize)> = (0..n)
        .map(|i| (v[i].x.min(v[i + 1].x), v[i].x.max(v[i + 1].x), i))
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut active: Vec<(f64, usize)> = Vec::new();
    for &(min_x, max_x, i) in &order {
        active.retain(|(end, _)| *end >= min_x);
        let a = seg(i);
        let (a_lo, a_hi) = (a.start.y.min(a.end.y), a.start.y.max(a.end.y));
        for &(_, j) in &active {
            let b = seg(j);
            if b.start.y.min(b.end.y) > a_hi || b.start.y.max(b.end.y) < a_lo {
                continue;
            }
            let adjacent = i.abs_diff(j) == 1 || i.abs_diff(j) == n - 1;
            let meets_badly = match line_intersection(a, b) {
                None => false,
                Some(LineIntersection::Collinear { intersection }) => {
                    !adjacent || intersection.start != intersection.end
                }
                Some(LineIntersection::SinglePoint { .. }) => !adjacent,
            };
            if meets_badly {
                return true;
            }
        }
        active.push((max_x, i));
    }
    false
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

    fn circle(n: usize, cx: f64, cy: f64, r: f64) -> LineString<f64> {
        let mut v: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let a = i as f64 / n as f64 * std::f64::consts::TAU;
                (cx + r * a.cos(), cy + r * a.sin())
            })
            .collect();
        v.push(v[0]);
        LineString::from(v)
    }

    #[test]
    fn large_rings_are_checked_quickly() {
        // geo's Validation is quadratic here (2.5e9 segment pairs).
        let shell = circle(50_000, 10.0, 10.0, 1.0);
        let hole = circle(10_000, 10.0, 10.0, 0.5);
        let start = std::time::Instant::now();
        assert_eq!(
            problem(&Geometry::Polygon(Polygon::new(shell.clone(), vec![hole]))),
            None
        );
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
        // The same shell with its last vertex pulled across the ring.
        let mut bad = shell.0.clone();
        let n = bad.len();
        bad[n - 2] = Coord { x: 8.5, y: 10.0 };
        let r = problem(&Geometry::Polygon(Polygon::new(LineString(bad), vec![]))).unwrap();
        assert!(r.contains("self-intersection"), "{r}");
    }

    #[test]
    fn spikes_touching_rings_and_repeated_points() {
        // Repeated consecutive positions are fine.
        let p = Polygon::new(
            LineString::from(vec![
                (0.0, 0.0),
                (1.0, 0.0),
                (1.0, 0.0),
                (1.0, 1.0),
                (0.0, 1.0),
                (0.0, 0.0),
            ]),
            vec![],
        );
        assert_eq!(problem(&Geometry::Polygon(p)), None);
        // A spike going out and back along the same line.
        let p = Polygon::new(
            LineString::from(vec![
                (0.0, 0.0),
                (2.0, 0.0),
                (1.0, 0.0),
                (1.0, 1.0),
                (0.0, 1.0),
                (0.0, 0.0),
            ]),
            vec![],
        );
        assert!(problem(&Geometry::Polygon(p)).is_some());
        // Figure-eight touching at a vertex.
        let p = Polygon::new(
            LineString::from(vec![
                (0.0, 0.0),
                (1.0, 1.0),
                (2.0, 0.0),
                (2.0, 2.0),
                (1.0, 1.0),
                (0.0, 2.0),
                (0.0, 0.0),
            ]),
            vec![],
        );
        assert!(problem(&Geometry::Polygon(p)).is_some());
        // Two holes overlapping.
        let sq = |x: f64, y: f64, s: f64| {
            LineString::from(vec![(x, y), (x + s, y), (x + s, y + s), (x, y + s), (x, y)])
        };
        let p = Polygon::new(
            sq(0.0, 0.0, 10.0),
            vec![sq(1.0, 1.0, 3.0), sq(2.0, 2.0, 3.0)],
        );
        let r = problem(&Geometry::Polygon(p)).unwrap();
        assert!(r.contains("hole 1 and hole 2"), "{r}");
        let p = Polygon::new(
            sq(0.0, 0.0, 10.0),
            vec![sq(1.0, 1.0, 3.0), sq(5.0, 5.0, 3.0)],
        );
        assert_eq!(problem(&Geometry::Polygon(p)), None);
    }

    proptest::proptest! {
        /// Same verdict as geo's (quadratic) `Validation` on small random rings.
        #[test]
        fn agrees_with_geo_validation(pts in proptest::collection::vec((0.0f64..10.0, 0.0f64..10.0), 3..9)) {
            use geo::algorithm::Validation;
            let mut v = pts.clone();
            v.push(v[0]);
            let p = Polygon::new(LineString::from(v), vec![]);
            proptest::prop_assert_eq!(problem(&Geometry::Polygon(p.clone())).is_none(), p.is_valid(), "{:?}", p);
        }
    }
}
