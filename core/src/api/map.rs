//! Map layer (Waymark's own, not in the Location Platform spec): the roads, places and points
//! of interest of the installed packs as simplified GeoJSON, so that a web page or web view
//! can draw an offline base map of the packs' area (the local server's demo page does) with
//! no tile server.
//!
//! | endpoint | request | response |
//! |---|---|---|
//! | `GET /map/features` | [`MapFeaturesRequest`] | [`MapFeaturesResponse`] |
//!
//! The answer is a GeoJSON `FeatureCollection` with two foreign members: `packs` (the installed
//! packs with their attribution, for the map's footer) and `truncated`. Each feature has a
//! `layer` (`road`, `place`, `poi`) and a `class` (the road's `highway` value, the place kind,
//! the point of interest's most specific type) in its properties.
//!
//! ```
//! use waymark_core::api::{FromQuery, MapFeaturesRequest, RequestHeaders, Validate, pairs};
//!
//! let q = pairs([("bbox", "24.93,60.16,24.96,60.18")]);
//! let req = MapFeaturesRequest::from_query(&q, &RequestHeaders::default(), &[]).unwrap();
//! let bbox = req.bbox.unwrap();
//! assert_eq!((bbox.southwest.lng, bbox.northeast.lat), (24.93, 60.18));
//! assert!(req.validate().is_ok());
//! ```
use serde::{Deserialize, Serialize};

use super::common::{LatLng, Viewport};
use super::packs::PackInfo;
use super::query::FromQuery;
use super::validation::{Checks, FieldError, Loc, Validate, kinds, parse_numbers};

/// Parses `bbox`: `west,south,east,north` in decimal degrees (the GeoJSON order).
pub fn parse_map_bbox(loc: Loc, name: &str, s: &str) -> Result<Viewport, FieldError> {
    let numbers = parse_numbers(loc, name, s)?;
    match numbers.as_slice() {
        [west, south, east, north] => Ok(Viewport {
            northeast: LatLng::new(*north, *east),
            southwest: LatLng::new(*south, *west),
        }),
        other => Err(FieldError::invalid(
            loc,
            name,
            kinds::VALUE,
            format!(
                "give `west,south,east,north` (4 numbers in degrees), got {} numbers",
                other.len()
            ),
        )),
    }
}

/// `GET /map/features` (Waymark extension; K1, 50 per 1 s): the drawable features of the
/// installed packs in a box.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MapFeaturesRequest {
    /// The box to draw, `west,south,east,north` in decimal degrees (west not east of east,
    /// south not north of north). Default: the area of the installed packs that have roads
    /// (else of every installed pack). The larger the box, the fewer the details: minor roads,
    /// small places and points of interest are left out of large boxes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[query(with = parse_map_bbox)]
    pub bbox: Option<Viewport>,
}

impl Validate for MapFeaturesRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        if let Some(b) = &self.bbox {
            c.latlng(Loc::Query, "bbox", &b.southwest);
            c.latlng(Loc::Query, "bbox", &b.northeast);
            c.check(b.southwest.lat <= b.northeast.lat, || {
                FieldError::invalid(
                    Loc::Query,
                    "bbox",
                    kinds::VALUE,
                    format!(
                        "south ({}) is north of north ({}): give `west,south,east,north`",
                        b.southwest.lat, b.northeast.lat
                    ),
                )
            });
            c.check(b.southwest.lng <= b.northeast.lng, || {
                FieldError::invalid(
                    Loc::Query,
                    "bbox",
                    kinds::VALUE,
                    format!(
                        "west ({}) is east of east ({}): give `west,south,east,north`; a box \
                         across the antimeridian is two requests",
                        b.southwest.lng, b.northeast.lng
                    ),
                )
            });
        }
        c.finish()
    }
}

/// Answer of `GET /map/features`: a GeoJSON `FeatureCollection`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MapFeaturesResponse {
    /// `FeatureCollection`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The box drawn, `[west, south, east, north]`.
    pub bbox: [f64; 4],
    /// Roads (`LineString`), places and points of interest (`Point`).
    pub features: Vec<MapFeature>,
    /// Whether features were left out because the box holds more than one answer carries
    /// (ask for a smaller box to get them).
    pub truncated: bool,
    /// The installed packs, with the attribution their licences ask to show under the map.
    pub packs: Vec<PackInfo>,
}

/// A GeoJSON feature of the map.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MapFeature {
    /// `Feature`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The geometry, `[lng, lat]` positions.
    pub geometry: MapGeometry,
    /// What the feature is.
    pub properties: MapFeatureProperties,
}

/// The geometry of a map feature (GeoJSON, `[lng, lat]` positions).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type")]
pub enum MapGeometry {
    /// A place or a point of interest.
    Point {
        /// `[lng, lat]`.
        coordinates: [f64; 2],
    },
    /// A road: one way, its edges joined, simplified for the box's scale.
    LineString {
        /// `[lng, lat]` positions.
        coordinates: Vec<[f64; 2]>,
    },
}

/// Properties of a map feature.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MapFeatureProperties {
    /// `road`, `place` or `poi`.
    pub layer: String,
    /// Road: the OSM `highway` value (`ferry` for ferry lines); place: its kind (`city`,
    /// `suburb`, ...); point of interest: its most specific type (`tourism.museum`, ...).
    pub class: String,
    /// Name, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Places: the population, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub population: Option<i64>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::pairs;
    use crate::api::testing::headers as h;
    use crate::api::testing::{assert_errors, parse_valid};
    use serde_json::json;

    #[test]
    fn bbox_is_optional_and_read_west_south_east_north() {
        let r: MapFeaturesRequest = parse_valid(&pairs([]), &h(), &[], b"").unwrap();
        assert_eq!(r.bbox, None);
        let r: MapFeaturesRequest =
            parse_valid(&pairs([("bbox", " 1.4, 42.4 ,1.8,42.7")]), &h(), &[], b"").unwrap();
        let b = r.bbox.unwrap();
        assert_eq!(b.southwest, LatLng::new(42.4, 1.4));
        assert_eq!(b.northeast, LatLng::new(42.7, 1.8));
    }

    #[test]
    fn bad_boxes_are_refused_naming_bbox() {
        for (bbox, kind) in [
            ("1,2,3", kinds::VALUE),
            ("1,2,3,x", kinds::FLOAT),
            ("1,2,3,nan", kinds::FLOAT),
            ("1,50,2,40", kinds::VALUE),
            ("3,40,2,50", kinds::VALUE),
            ("1,95,2,96", kinds::COORDINATES),
            ("-190,1,2,3", kinds::COORDINATES),
        ] {
            let errors =
                parse_valid::<MapFeaturesRequest>(&pairs([("bbox", bbox)]), &h(), &[], b"")
                    .unwrap_err();
            assert_eq!(errors[0].loc, vec![json!("query"), json!("bbox")], "{bbox}");
            assert_eq!(errors[0].kind, kind, "{bbox}: {errors:?}");
        }
        let errors =
            parse_valid::<MapFeaturesRequest>(&pairs([("bbox", "1,95,2,96")]), &h(), &[], b"")
                .unwrap_err();
        assert_errors(
            &errors,
            &[
                (json!(["query", "bbox"]), kinds::COORDINATES),
                (json!(["query", "bbox"]), kinds::COORDINATES),
            ],
        );
    }

    #[test]
    fn the_answer_is_geojson() {
        let r = MapFeaturesResponse {
            kind: "FeatureCollection".into(),
            bbox: [1.0, 2.0, 3.0, 4.0],
            features: vec![
                MapFeature {
                    kind: "Feature".into(),
                    geometry: MapGeometry::LineString {
                        coordinates: vec![[1.5, 2.5], [1.6, 2.6]],
                    },
                    properties: MapFeatureProperties {
                        layer: "road".into(),
                        class: "primary".into(),
                        name: Some("Main Street".into()),
                        population: None,
                    },
                },
                MapFeature {
                    kind: "Feature".into(),
                    geometry: MapGeometry::Point {
                        coordinates: [1.5, 2.5],
                    },
                    properties: MapFeatureProperties {
                        layer: "place".into(),
                        class: "town".into(),
                        name: Some("Town".into()),
                        population: Some(1200),
                    },
                },
            ],
            truncated: false,
            packs: vec![],
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["type"], "FeatureCollection");
        assert_eq!(v["features"][0]["geometry"]["type"], "LineString");
        assert_eq!(
            v["features"][0]["geometry"]["coordinates"][1],
            json!([1.6, 2.6])
        );
        assert_eq!(
            v["features"][1]["geometry"],
            json!({"type": "Point", "coordinates": [1.5, 2.5]})
        );
        assert_eq!(v["features"][1]["properties"]["population"], 1200);
        assert!(v["features"][0]["properties"].get("population").is_none());
        let back: MapFeaturesResponse = serde_json::from_value(v).unwrap();
        assert_eq!(back, r);
    }
}
