//! GeoJSON at the edges: reading a polygon's rings from `coordinates` (`[lng, lat]`
//! positions) and writing points and lines rounded to 7 decimals.
//!
//! ```
//! use waymark_core::geo::{Pt, point_geojson};
//! let v = point_geojson(Pt::new(42.506_300_04, 1.521_8));
//! assert_eq!(v["coordinates"][1], 42.5063);
//! ```
use serde_json::{Value, json};

use super::point::Pt;
use super::polygon::Ring;

/// The rings of a GeoJSON polygon's `coordinates`: `None` unless every position is a pair
/// of numbers, every ring has three positions or more and there is a ring.
pub fn polygon_rings(coordinates: &Value) -> Option<Vec<Ring>> {
    let rings: Vec<Ring> = coordinates
        .as_array()?
        .iter()
        .map(|r| {
            r.as_array()?
                .iter()
                .map(|p| {
                    let p = p.as_array()?;
                    Some(Pt::new(p.get(1)?.as_f64()?, p.first()?.as_f64()?))
                })
                .collect::<Option<Ring>>()
        })
        .collect::<Option<_>>()?;
    (!rings.is_empty() && rings.iter().all(|r| r.len() >= 3)).then_some(rings)
}

/// Rounds a coordinate to 7 decimals (about 1 cm), the precision of OSM and of the answers.
pub fn round7(v: f64) -> f64 {
    (v * 1e7).round() / 1e7
}

/// GeoJSON `Point`.
pub fn point_geojson(p: Pt) -> Value {
    json!({"type": "Point", "coordinates": [round7(p.lng), round7(p.lat)]})
}

/// GeoJSON `LineString`.
pub fn line_geojson(points: &[Pt]) -> Value {
    json!({
        "type": "LineString",
        "coordinates": points.iter().map(|p| [round7(p.lng), round7(p.lat)]).collect::<Vec<_>>()
    })
}

/// `[[lng, lat], …]` of a ring, rounded to 7 decimals.
pub(super) fn ring_geojson(ring: &[Pt]) -> Value {
    Value::Array(
        ring.iter()
            .map(|p| json!([round7(p.lng), round7(p.lat)]))
            .collect(),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn rings_need_three_positions_of_two_numbers() {
        let ok = json!([[[0, 0], [1, 0], [1, 1]]]);
        assert_eq!(polygon_rings(&ok).unwrap()[0][1], Pt::new(0.0, 1.0));
        assert_eq!(polygon_rings(&json!([[[0, 0], [1, 1]]])), None);
        assert_eq!(polygon_rings(&json!([[[0, 0], [1, "a"], [1, 1]]])), None);
        assert_eq!(polygon_rings(&json!([])), None);
    }

    #[test]
    fn lines_are_lng_lat() {
        let v = line_geojson(&[Pt::new(1.0, 2.0)]);
        assert_eq!(v["coordinates"], json!([[2.0, 1.0]]));
    }
}
