//! ISO WKB (2D) codec.
//!
//! Writing is little-endian ISO WKB, 2D. Reading accepts both byte orders, ISO Z/M/ZM type
//! codes (1000/2000/3000 offsets) and EWKB Z/M/SRID flags; extra dimensions are dropped.

use geo_types::{
    Coord, Geometry, GeometryCollection, LineString, MultiLineString, MultiPoint, MultiPolygon,
    Point, Polygon,
};

/// Maximum nesting of geometry collections accepted when reading.
const MAX_DEPTH: u32 = 32;

/// ISO WKB (little-endian, 2D) of `g`.
///
/// `Line`, `Rect` and `Triangle` are written as a LineString and Polygons. An empty point
/// cannot occur in geo-types, so every point is written with its coordinates.
pub fn to_wkb(g: &Geometry<f64>) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    write_geometry(&mut out, g);
    out
}

fn header(out: &mut Vec<u8>, code: u32) {
    out.push(1);
    out.extend_from_slice(&code.to_le_bytes());
}

fn count(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
}

fn coord(out: &mut Vec<u8>, c: Coord<f64>) {
    out.extend_from_slice(&c.x.to_le_bytes());
    out.extend_from_slice(&c.y.to_le_bytes());
}

fn coords(out: &mut Vec<u8>, cs: &[Coord<f64>]) {
    count(out, cs.len());
    for c in cs {
        coord(out, *c);
    }
}

fn polygon(out: &mut Vec<u8>, p: &Polygon<f64>) {
    header(out, 3);
    if p.exterior().0.is_empty() {
        count(out, 0);
        return;
    }
    count(out, 1 + p.interiors().len());
    coords(out, &p.exterior().0);
    for r in p.interiors() {
        coords(out, &r.0);
    }
}

fn write_geometry(out: &mut Vec<u8>, g: &Geometry<f64>) {
    match g {
        Geometry::Point(p) => {
            header(out, 1);
            coord(out, p.0);
        }
        Geometry::Line(l) => {
            header(out, 2);
            coords(out, &[l.start, l.end]);
        }
        Geometry::LineString(ls) => {
            header(out, 2);
            coords(out, &ls.0);
        }
        Geometry::Polygon(p) => polygon(out, p),
        Geometry::MultiPoint(mp) => {
            header(out, 4);
            count(out, mp.0.len());
            for p in &mp.0 {
                header(out, 1);
                coord(out, p.0);
            }
        }
        Geometry::MultiLineString(mls) => {
            header(out, 5);
            count(out, mls.0.len());
            for ls in &mls.0 {
                header(out, 2);
                coords(out, &ls.0);
            }
        }
        Geometry::MultiPolygon(mp) => {
            header(out, 6);
            count(out, mp.0.len());
            for p in &mp.0 {
                polygon(out, p);
            }
        }
        Geometry::GeometryCollection(gc) => {
            header(out, 7);
            count(out, gc.0.len());
            for g in &gc.0 {
                write_geometry(out, g);
            }
        }
        Geometry::Rect(r) => polygon(out, &r.to_polygon()),
        Geometry::Triangle(t) => polygon(out, &t.to_polygon()),
    }
}

/// Parses WKB (ISO or EWKB, either byte order; Z and M values are dropped) into a geometry.
///
/// Polygon rings must be closed (checked before geo-types would close them silently).
/// Errors name the byte offset of the problem. Trailing bytes after the geometry are an
/// error. `POINT EMPTY` (NaN coordinates) is refused since geo-types has no empty point.
pub fn from_wkb(bytes: &[u8]) -> Result<Geometry<f64>, String> {
    let mut r = Reader { bytes, pos: 0 };
    let g = r.geometry(0, None)?;
    if r.pos != bytes.len() {
        return Err(format!(
            "WKB: {} unexpected bytes after the geometry at byte {}",
            bytes.len() - r.pos,
            r.pos
        ));
    }
    Ok(g)
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

#[derive(Clone, Copy)]
struct Layout {
    little: bool,
    dims: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let end = self.pos.checked_add(N).filter(|e| *e <= self.bytes.len());
        match end.and_then(|e| self.bytes.get(self.pos..e)) {
            Some(s) => {
                let mut a = [0u8; N];
                a.copy_from_slice(s);
                self.pos += N;
                Ok(a)
            }
            None => Err(format!(
                "WKB: unexpected end of data at byte {} ({} bytes long)",
                self.pos,
                self.bytes.len()
            )),
        }
    }

    fn u32(&mut self, little: bool) -> Result<u32, String> {
        let b = self.take::<4>()?;
        Ok(if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    fn f64(&mut self, little: bool) -> Result<f64, String> {
        let b = self.take::<8>()?;
        Ok(if little {
            f64::from_le_bytes(b)
        } else {
            f64::from_be_bytes(b)
        })
    }

    /// A count of items each at least `min_item` bytes long, checked against what is left so
    /// a corrupt count cannot make us allocate gigabytes.
    fn count(&mut self, little: bool, min_item: usize) -> Result<usize, String> {
        let at = self.pos;
        let n = self.u32(little)? as usize;
        let left = self.bytes.len() - self.pos;
        if n.saturating_mul(min_item) > left {
            return Err(format!(
                "WKB: count {n} at byte {at} is larger than the data left ({left} bytes)"
            ));
        }
        Ok(n)
    }

    fn coord(&mut self, l: Layout) -> Result<Coord<f64>, String> {
        let x = self.f64(l.little)?;
        let y = self.f64(l.little)?;
        for _ in 2..l.dims {
            self.f64(l.little)?;
        }
        Ok(Coord { x, y })
    }

    fn coords(&mut self, l: Layout) -> Result<Vec<Coord<f64>>, String> {
        let n = self.count(l.little, 8 * l.dims)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.coord(l)?);
        }
        Ok(v)
    }

    fn polygon_body(&mut self, l: Layout) -> Result<Polygon<f64>, String> {
        let n = self.count(l.little, 4)?;
        let mut rings = Vec::with_capacity(n);
        for i in 0..n {
            let at = self.pos;
            let ring = self.coords(l)?;
            if let (Some(first), Some(last)) = (ring.first(), ring.last())
                && first != last
            {
                return Err(format!(
                    "WKB: polygon ring {} at byte {at} is not closed: first ({} {}) last ({} {})",
                    i + 1,
                    first.x,
                    first.y,
                    last.x,
                    last.y
                ));
            }
            rings.push(LineString(ring));
        }
        let mut rings = rings.into_iter();
        let exterior = rings.next().unwrap_or_else(|| LineString(Vec::new()));
        Ok(Polygon::new(exterior, rings.collect()))
    }

    /// Byte order + type code; returns (base type 1..=7, layout).
    fn header(&mut self) -> Result<(u32, Layout), String> {
        let at = self.pos;
        let little = match self.take::<1>()?[0] {
            0 => false,
            1 => true,
            b => {
                return Err(format!(
                    "WKB: byte order at byte {at} must be 0 or 1, found {b}"
                ));
            }
        };
        let raw = self.u32(little)?;
        let mut dims = 2;
        // EWKB flags.
        if raw & 0x8000_0000 != 0 {
            dims += 1;
        }
        if raw & 0x4000_0000 != 0 {
            dims += 1;
        }
        if raw & 0x2000_0000 != 0 {
            self.u32(little)?; // SRID
        }
        let code = raw & 0x0FFF_FFFF;
        let (base, iso_dims) = match code / 1000 {
            0 => (code, 0),
            1 | 2 => (code % 1000, 1),
            3 => (code % 1000, 2),
            _ => (0, 0),
        };
        if !(1..=7).contains(&base) {
            return Err(format!(
                "WKB: unsupported geometry type code {raw} at byte {}",
                at + 1
            ));
        }
        Ok((
            base,
            Layout {
                little,
                dims: dims + iso_dims,
            },
        ))
    }

    fn geometry(&mut self, depth: u32, expect: Option<u32>) -> Result<Geometry<f64>, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "WKB: geometry collections nested deeper than {MAX_DEPTH} at byte {}",
                self.pos
            ));
        }
        let at = self.pos;
        let (base, l) = self.header()?;
        if let Some(e) = expect.filter(|e| *e != base) {
            return Err(format!(
                "WKB: expected a {} inside the multi-geometry at byte {at}, found a {}",
                type_name(e),
                type_name(base)
            ));
        }
        Ok(match base {
            1 => {
                let c = self.coord(l)?;
                if c.x.is_nan() && c.y.is_nan() {
                    return Err(format!("WKB: empty point at byte {at}"));
                }
                Geometry::Point(Point(c))
            }
            2 => Geometry::LineString(LineString(self.coords(l)?)),
            3 => Geometry::Polygon(self.polygon_body(l)?),
            4 => {
                let n = self.count(l.little, 5)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    if let Geometry::Point(p) = self.geometry(depth + 1, Some(1))? {
                        v.push(p);
                    }
                }
                Geometry::MultiPoint(MultiPoint(v))
            }
            5 => {
                let n = self.count(l.little, 5)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    if let Geometry::LineString(ls) = self.geometry(depth + 1, Some(2))? {
                        v.push(ls);
                    }
                }
                Geometry::MultiLineString(MultiLineString(v))
            }
            6 => {
                let n = self.count(l.little, 5)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    if let Geometry::Polygon(p) = self.geometry(depth + 1, Some(3))? {
                        v.push(p);
                    }
                }
                Geometry::MultiPolygon(MultiPolygon(v))
            }
            _ => {
                let n = self.count(l.little, 5)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(self.geometry(depth + 1, None)?);
                }
                Geometry::GeometryCollection(GeometryCollection(v))
            }
        })
    }
}

fn type_name(code: u32) -> &'static str {
    match code {
        1 => "Point",
        2 => "LineString",
        3 => "Polygon",
        4 => "MultiPoint",
        5 => "MultiLineString",
        6 => "MultiPolygon",
        _ => "GeometryCollection",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use geo_types::{line_string, point, polygon};

    #[test]
    fn point_bytes_are_iso_little_endian() {
        let b = to_wkb(&Geometry::Point(point!(x: 1.0, y: 2.0)));
        assert_eq!(b[0], 1);
        assert_eq!(&b[1..5], &1u32.to_le_bytes());
        assert_eq!(&b[5..13], &1.0f64.to_le_bytes());
        assert_eq!(b.len(), 21);
    }

    #[test]
    fn round_trips() {
        let poly = polygon![(x: 0.0, y: 0.0), (x: 1.0, y: 0.0), (x: 1.0, y: 1.0), (x: 0.0, y: 0.0)];
        let gs = vec![
            Geometry::Point(point!(x: -73.5, y: 45.25)),
            Geometry::LineString(line_string![(x: 0.0, y: 0.0), (x: 1.0, y: 1.0)]),
            Geometry::Polygon(poly.clone()),
            Geometry::MultiPolygon(MultiPolygon(vec![poly.clone(), poly])),
            Geometry::GeometryCollection(GeometryCollection(vec![Geometry::Point(
                point!(x: 1.0, y: 1.0),
            )])),
        ];
        for g in gs {
            assert_eq!(from_wkb(&to_wkb(&g)).unwrap(), g);
        }
    }

    #[test]
    fn big_endian_and_z_are_read() {
        // Big-endian ISO POINT Z (1001).
        let mut b = vec![0u8];
        b.extend_from_slice(&1001u32.to_be_bytes());
        for v in [3.0f64, 4.0, 5.0] {
            b.extend_from_slice(&v.to_be_bytes());
        }
        assert_eq!(
            from_wkb(&b).unwrap(),
            Geometry::Point(point!(x: 3.0, y: 4.0))
        );
    }

    #[test]
    fn corrupt_input_is_an_error() {
        assert!(from_wkb(&[]).is_err());
        assert!(from_wkb(&[1, 2, 0, 0, 0, 255, 255, 255, 255]).is_err());
        assert!(from_wkb(&[7, 1, 0, 0, 0]).is_err());
        let mut b = to_wkb(&Geometry::Point(point!(x: 1.0, y: 2.0)));
        b.push(0);
        assert!(from_wkb(&b).unwrap_err().contains("after the geometry"));
        // An unclosed ring.
        let mut b = vec![1u8];
        b.extend_from_slice(&3u32.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&3u32.to_le_bytes());
        for v in [0.0f64, 0.0, 1.0, 0.0, 1.0, 1.0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        assert!(from_wkb(&b).unwrap_err().contains("not closed"));
    }
}
