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
