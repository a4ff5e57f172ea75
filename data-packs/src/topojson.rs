//! Reads the polygons of a quantized TopoJSON topology (the Natural Earth files of
//! `world-atlas`): arcs are delta-encoded integer positions, transformed by `scale` and
//! `translate`; a polygon lists rings of arc indexes, `~i` meaning arc `i` reversed.
//!
//! Only what those files use is read: `Polygon` and `MultiPolygon` geometries of one object,
//! with their `id` and `properties.name`.
use serde::Deserialize;
use serde_json::Value;

/// A ring: `(lng, lat)` positions, closed.
pub type Ring = Vec<(f64, f64)>;

/// A polygon or multipolygon of the object: its rings, outer rings and holes alike (even-odd
/// filling gives the shape), its id and its name.
#[derive(Debug, Clone)]
pub struct Shape {
    /// `id` (ISO 3166-1 numeric in Natural Earth), when given.
    pub id: Option<String>,
    /// `properties.name`.
    pub name: Option<String>,
    /// Polygons, each a list of rings (the first outer, the others holes).
    pub polygons: Vec<Vec<Ring>>,
}

#[derive(Deserialize)]
struct Topology {
    arcs: Vec<Vec<[f64; 2]>>,
    transform: Option<Transform>,
    objects: serde_json::Map<String, Value>,
}

#[derive(Deserialize)]
struct Transform {
    scale: [f64; 2],
    translate: [f64; 2],
}

#[derive(Deserialize)]
struct Geometry {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    arcs: Value,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    properties: Option<serde_json::Map<String, Value>>,
}

/// Why a topology cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TopoError {
    /// Not JSON of the expected shape.
    #[error("not a TopoJSON topology: {0}")]
    Json(#[from] serde_json::Error),
    /// The object is missing.
    #[error("the topology has no object `{0}`")]
    NoObject(String),
    /// An arc index out of range or a malformed ring.
    #[error("malformed geometry: {0}")]
    Malformed(String),
}

/// The shapes of object `object` of the topology `json`.
pub fn shapes(json: &str, object: &str) -> Result<Vec<Shape>, TopoError> {
    let topo: Topology = serde_json::from_str(json)?;
    let arcs = decode_arcs(&topo);
    let obj = topo
        .objects
        .get(object)
        .ok_or_else(|| TopoError::NoObject(object.to_owned()))?;
    let geometries: Vec<Geometry> = match obj.get("geometries") {
        Some(g) => serde_json::from_value(g.clone())?,
        None => vec![serde_json::from_value(obj.clone())?],
    };
    let mut out = Vec::new();
    for g in geometries {
        let polygons = match g.kind.as_str() {
            "Polygon" => vec![polygon(&arcs, &g.arcs)?],
            "MultiPolygon" => g
                .arcs
                .as_array()
                .ok_or_else(|| TopoError::Malformed("MultiPolygon arcs".into()))?
                .iter()
                .map(|p| polygon(&arcs, p))
                .collect::<Result<_, _>>()?,
            _ => continue,
        };
        out.push(Shape {
            id: g.id.map(|v| match v {
                Value::String(s) => s,
                other => other.to_string(),
            }),
            name: g
                .properties
                .as_ref()
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            polygons,
        });
    }
    Ok(out)
}

/// The rings of `polygons` as rings of the plane: a ring with an edge more than 180° of
/// longitude long crosses the antimeridian (world-atlas keeps such rings whole, as spherical
/// rings), and read in the plane that edge would run the other way round the world, so an
/// even-odd test would count the ring across every longitude of its latitudes (Russia's
/// Chukotka put northern Canada and Greenland in Russia). Such a ring is unrolled into
/// continuous longitudes (closed over the pole it goes round, if any), cut at each
/// antimeridian it passes and each piece moved back into -180..180. Rings that do not cross it
/// are kept as they are. Rings of one polygon are all returned in it: even-odd filling treats
/// outer rings and holes alike.
pub fn planar(polygons: &[Vec<Ring>]) -> Vec<Vec<Ring>> {
    polygons
        .iter()
        .map(|rings| rings.iter().flat_map(planar_ring).collect())
        .collect()
}

fn planar_ring(ring: &Ring) -> Vec<Ring> {
    let mut shift = 0.0;
    let mut unrolled: Ring = Vec::with_capacity(ring.len() + 3);
    for (i, &(x, y)) in ring.iter().enumerate() {
        if let Some(&(px, _)) = i.checked_sub(1).and_then(|j| ring.get(j)) {
            if x - px > 180.0 {
                shift -= 360.0;
            } else if x - px < -180.0 {
                shift += 360.0;
            }
        }
        unrolled.push((x + shift, y));
    }
    let (Some(&first), Some(&last)) = (unrolled.first(), unrolled.last()) else {
        return Vec::new();
    };
    if shift == 0.0 && unrolled.iter().all(|p| (-180.0..=180.0).contains(&p.0)) {
        return vec![ring.clone()];
    }
    if shift != 0.0 {
        // Round a pole: closed over it (the one on the side of the ring's mean latitude).
        let mean = unrolled.iter().map(|p| p.1).sum::<f64>() / unrolled.len() as f64;
        let pole = if mean < 0.0 { -90.0 } else { 90.0 };
        unrolled.extend([(last.0, pole), (first.0, pole), first]);
    }
    let (lo, hi) = unrolled.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.0), hi.max(p.0))
    });
    let first_band = ((lo + 180.0) / 360.0).floor() as i32;
    let last_band = ((hi + 180.0) / 360.0).ceil() as i32 - 1;
    (first_band..=last_band)
        .filter_map(|k| {
            let west = f64::from(k) * 360.0 - 180.0;
            let piece = clip(&clip(&unrolled, west, true), west + 360.0, false);
            (piece.len() >= 4).then(|| {
                piece
                    .into_iter()
                    .map(|(x, y)| (x - f64::from(k) * 360.0, y))
                    .collect()
            })
        })
        .collect()
}

/// The closed ring `ring` clipped to the side of the meridian `x` east of it (`east`) or west
/// of it (Sutherland–Hodgman against one half-plane; a concave ring may gain edges along the
/// meridian, which pair up and leave even-odd filling unchanged).
fn clip(ring: &[(f64, f64)], x: f64, east: bool) -> Ring {
    let inside = |p: (f64, f64)| if east { p.0 >= x } else { p.0 <= x };
    let cross = |p: (f64, f64), q: (f64, f64)| (x, p.1 + (q.1 - p.1) * (x - p.0) / (q.0 - p.0));
    let mut out: Ring = Vec::with_capacity(ring.len());
    for w in ring.windows(2) {
        let (p, q) = (w[0], w[1]);
        match (inside(p), inside(q)) {
            (true, true) => out.push(q),
            (true, false) => out.push(cross(p, q)),
            (false, true) => {
                out.push(cross(p, q));
                out.push(q);
            }
            (false, false) => {}
        }
    }
    if let Some(&start) = out.first()
        && out.last() != Some(&start)
    {
        out.push(start);
    }
    out
}

/// Absolute positions of every arc.
fn decode_arcs(topo: &Topology) -> Vec<Vec<(f64, f64)>> {
    topo.arcs
        .iter()
        .map(|arc| match &topo.transform {
            Some(t) => {
                let (mut x, mut y) = (0.0, 0.0);
                arc.iter()
                    .map(|[dx, dy]| {
                        x += dx;
                        y += dy;
                        (
                            x * t.scale[0] + t.translate[0],
                            y * t.scale[1] + t.translate[1],
                        )
                    })
                    .collect()
            }
            None => arc.iter().map(|[x, y]| (*x, *y)).collect(),
        })
        .collect()
}

/// The rings of a polygon given as arrays of arc indexes.
fn polygon(arcs: &[Vec<(f64, f64)>], rings: &Value) -> Result<Vec<Ring>, TopoError> {
    let rings = rings
        .as_array()
        .ok_or_else(|| TopoError::Malformed("polygon arcs".into()))?;
    rings
        .iter()
        .map(|ring| {
            let ids = ring
                .as_array()
                .ok_or_else(|| TopoError::Malformed("ring arcs".into()))?;
            let mut out: Ring = Vec::new();
            for id in ids {
                let i = id
                    .as_i64()
                    .ok_or_else(|| TopoError::Malformed(format!("arc index {id}")))?;
                let (index, reversed) = if i < 0 { (!i, true) } else { (i, false) };
                let arc = arcs.get(index as usize).ok_or_else(|| {
                    TopoError::Malformed(format!("arc {index} of {}", arcs.len()))
                })?;
                let mut points: Vec<(f64, f64)> = arc.clone();
                if reversed {
                    points.reverse();
                }
                // Consecutive arcs share their joining position.
                let skip = usize::from(!out.is_empty());
                out.extend(points.into_iter().skip(skip));
            }
            Ok(out)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Whether `p` is inside `rings` by the even-odd rule with a ray towards the east.
    fn even_odd(rings: &[Ring], p: (f64, f64)) -> bool {
        let mut inside = false;
        for ring in rings {
            for w in ring.windows(2) {
                let ((x0, y0), (x1, y1)) = (w[0], w[1]);
                if (y0 > p.1) != (y1 > p.1) && p.0 < x0 + (p.1 - y0) * (x1 - x0) / (y1 - y0) {
                    inside = !inside;
                }
            }
        }
        inside
    }

    #[test]
    fn rings_across_the_antimeridian_are_cut_into_planar_pieces() {
        // A box from 170° E to 170° W across the antimeridian, stored as a spherical ring.
        let across: Ring = vec![
            (170.0, 60.0),
            (-170.0, 60.0),
            (-170.0, 70.0),
            (170.0, 70.0),
            (170.0, 60.0),
        ];
        let pieces = planar(&[vec![across.clone()]]);
        let rings = &pieces[0];
        assert_eq!(rings.len(), 2, "{rings:?}");
        for r in rings {
            assert_eq!(r.first(), r.last());
            assert!(r.iter().all(|p| (-180.0..=180.0).contains(&p.0)), "{r:?}");
        }
        for (p, want) in [
            ((175.0, 65.0), true),
            ((-175.0, 65.0), true),
            ((179.99, 69.0), true),
            ((0.0, 65.0), false),
            ((-100.0, 65.0), false),
            ((100.0, 65.0), false),
            ((175.0, 75.0), false),
        ] {
            assert_eq!(even_odd(rings, p), want, "{p:?}");
        }
        // Read in the plane, the whole ring put the other side of the world inside.
        assert!(even_odd(&[across], (0.0, 65.0)));
        // A ring that does not cross is kept as it is.
        let plain: Ring = vec![(1.0, 1.0), (2.0, 1.0), (2.0, 2.0), (1.0, 1.0)];
        assert_eq!(planar(&[vec![plain.clone()]]), vec![vec![plain]]);
    }

    #[test]
    fn a_ring_round_a_pole_is_closed_over_it() {
        // Antarctica-like: a ring at -70° going once round the south pole, with one edge across
        // the antimeridian.
        let mut ring: Ring = (0..=36)
            .map(|i| {
                let x = -180.0 + 10.0 * f64::from(i) + 5.0;
                (
                    if x > 180.0 { x - 360.0 } else { x },
                    -70.0 + (f64::from(i) % 3.0),
                )
            })
            .collect();
        ring.push(ring[0]);
        let rings = &planar(&[vec![ring]])[0];
        for (p, want) in [
            ((0.0, -80.0), true),
            ((179.0, -85.0), true),
            ((-179.0, -89.0), true),
            ((0.0, -60.0), false),
            ((90.0, 0.0), false),
        ] {
            assert_eq!(even_odd(rings, p), want, "{p:?}");
        }
    }

    #[test]
    fn quantized_arcs_and_reversed_references() {
        let json = r#"{"type":"Topology","transform":{"scale":[0.5,0.25],"translate":[10,20]},
            "arcs":[[[0,0],[2,0],[0,4]],[[2,4],[-2,0],[0,-4]]],
            "objects":{"c":{"type":"GeometryCollection","geometries":[
              {"type":"Polygon","arcs":[[0,1]],"id":"020","properties":{"name":"A"}},
              {"type":"MultiPolygon","arcs":[[[-2,-1]]]},
              {"type":"Point","coordinates":[0,0]}]}}}"#;
        let s = shapes(json, "c").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].id.as_deref(), Some("020"));
        assert_eq!(s[0].name.as_deref(), Some("A"));
        assert_eq!(
            s[0].polygons[0][0],
            vec![
                (10.0, 20.0),
                (11.0, 20.0),
                (11.0, 21.0),
                (10.0, 21.0),
                (10.0, 20.0)
            ]
        );
        assert_eq!(s[1].polygons[0][0].first(), Some(&(10.0, 20.0)));
        assert_eq!(s[1].polygons[0][0].len(), 5);
        assert!(matches!(shapes(json, "x"), Err(TopoError::NoObject(_))));
    }
}
