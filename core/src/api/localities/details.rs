//! `GET /localities/details`: [`DetailsRequest`] and the place in full ([`DetailsResponse`],
//! [`LocalityDetails`], its geometry and shape, the addresses of a United Kingdom postal code).

use serde::{Deserialize, Serialize};

use super::check_language;
use crate::api::common::{AddressComponent, LatLng, Viewport};
use crate::api::query::FromQuery;
use crate::api::validation::{Checks, FieldError, Loc, Validate, parse_pipe_list};
use crate::api::vocab::{Accuracy, AddressStatus, CcFormat, DetailsField, ShapeType};

/// `GET /localities/details` (K1; 50 per 1 s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DetailsRequest {
    /// Required: a `public_id` from autocomplete (or geocode, nearby, UK address lists).
    pub public_id: String,
    /// Parts to return. Default `geometry|address_components`.
    #[serde(default = "DetailsField::default_fields")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_details_fields)]
    pub fields: Vec<DetailsField>,
    /// Two-letter ISO 639-1 code, as in autocomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<String>,
    /// Country code format; see [`DetailsRequest::effective_cc_format`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub cc_format: Option<CcFormat>,
    /// Deprecated and turned off (31 December 2021): accepted for old clients, ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub page: Option<u32>,
    /// Deprecated and turned off (31 December 2021): accepted for old clients, ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub addresses_per_page: Option<u32>,
    /// Header `Accept-Language`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(header)]
    pub accept_language: Option<String>,
}

impl Default for DetailsRequest {
    fn default() -> Self {
        Self {
            public_id: String::new(),
            fields: DetailsField::default_fields(),
            language: None,
            cc_format: None,
            page: None,
            addresses_per_page: None,
            accept_language: None,
        }
    }
}

impl DetailsRequest {
    /// `cc_format`, else `alpha2`: details has no `components` for the format to follow.
    pub fn effective_cc_format(&self) -> CcFormat {
        self.cc_format.unwrap_or_default()
    }
}

/// Parses `fields`: details fields joined by `|`.
pub fn parse_details_fields(
    loc: Loc,
    name: &str,
    s: &str,
) -> Result<Vec<DetailsField>, FieldError> {
    parse_pipe_list(loc, name, s)?
        .iter()
        .map(|item| crate::api::validation::parse_enum::<DetailsField>(loc, name, item))
        .collect()
}

impl Validate for DetailsRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("language", crate::api::validation::rule::two_letters())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        check_language(&mut c, self.language.as_deref());
        c.finish()
    }
}

/// Answer of details: `{result: locality details}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DetailsResponse {
    /// The place.
    pub result: LocalityDetails,
}

/// A place in full (`result` of details).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LocalityDetails {
    /// Id of the place.
    pub public_id: String,
    /// Full address.
    pub formatted_address: String,
    /// Types of the place.
    pub types: Vec<String>,
    /// Location, viewport, shape and accuracy. Always present (it is required); `shape` only
    /// when `fields` asks for it.
    pub geometry: LocalityGeometry,
    /// Address components; an empty array when `fields` leaves them out (the field is required).
    /// Only part of the components are translated to the requested language.
    #[serde(default)]
    pub address_components: Vec<AddressComponent>,
    /// Postal code name, when the result is a postal code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Local English name of the administration level (`admin_level` results only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub administrative_area_label: Option<String>,
    /// `not_yet_built` for United Kingdom addresses flagged as not yet built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<AddressStatus>,
    /// Addresses of a United Kingdom postal code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addresses: Option<PostalCodeAddresses>,
}

/// `geometry` of a locality.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LocalityGeometry {
    /// Representative point.
    pub location: LatLng,
    /// Recommended viewport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
    /// Outline (when `fields` has `shape`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    /// Accuracy of `location`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<Accuracy>,
}

/// A GeoJSON-like outline: `{type: Polygon | MultiPoligon, coordinates}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Shape {
    /// `Polygon` or `MultiPoligon` (the spec's spelling).
    #[serde(rename = "type")]
    pub kind: ShapeType,
    /// GeoJSON coordinates: rings of `[lng, lat]` positions for a polygon, polygons of rings
    /// for a multipolygon.
    pub coordinates: ShapeCoordinates,
}

/// Coordinates of a [`Shape`]; the nesting depth tells the variant apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(untagged)]
pub enum ShapeCoordinates {
    /// Rings of positions (`Polygon`).
    Polygon(Vec<Vec<Vec<f64>>>),
    /// Polygons of rings of positions (`MultiPoligon`).
    MultiPolygon(Vec<Vec<Vec<Vec<f64>>>>),
}

/// `addresses` of a United Kingdom postal code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct PostalCodeAddresses {
    /// Every address of the postal code.
    pub list: Vec<AddressListItem>,
    /// Deprecated: always one page holding every address (see
    /// [`AddressesPagination::single_page`]).
    pub pagination: AddressesPagination,
}

/// An address of a postal code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AddressListItem {
    /// Id usable with details on that address.
    pub public_id: String,
    /// The address.
    pub description: String,
}

/// Deprecated pagination of postal code addresses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AddressesPagination {
    /// Always 1.
    pub page: u32,
    /// Always 1.
    pub page_count: u32,
    /// The number of addresses.
    pub addresses_per_page: u32,
    /// The number of addresses.
    pub address_count: u32,
}

impl AddressesPagination {
    /// The only value the spec allows: page 1 of 1 holding all `count` addresses.
    pub fn single_page(count: u32) -> Self {
        Self {
            page: 1,
            page_count: 1,
            addresses_per_page: count,
            address_count: count,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::pairs;
    use crate::api::testing::headers;
    use crate::api::testing::{assert_errors, round_trip};
    use crate::api::validation::kinds;
    use crate::api::vocab::CcFormat;
    use serde_json::json;

    #[test]
    fn details_response_round_trip_with_every_field() {
        let r: DetailsResponse = round_trip(json!({
            "result": {
                "public_id": "pc-sw1a",
                "formatted_address": "SW1A 1AA, London, United Kingdom",
                "types": ["postal_code"],
                "geometry": {
                    "location": {"lat": 51.501, "lng": -0.141},
                    "viewport": {
                        "northeast": {"lat": 51.502, "lng": -0.140},
                        "southwest": {"lat": 51.500, "lng": -0.142}
                    },
                    "shape": {
                        "type": "MultiPoligon",
                        "coordinates": [[[[-0.142, 51.5], [-0.14, 51.5], [-0.14, 51.502], [-0.142, 51.5]]]]
                    },
                    "accuracy": "POSTAL_CODE"
                },
                "address_components": [
                    {"long_name": "SW1A 1AA", "short_name": "SW1A 1AA", "types": ["postal_code"]},
                    {"long_name": "United Kingdom", "short_name": "GBR", "types": ["country"]}
                ],
                "name": "SW1A 1AA",
                "administrative_area_label": "postcode",
                "status": "not_yet_built",
                "addresses": {
                    "list": [{"public_id": "a1", "description": "Buckingham Palace, London"}],
                    "pagination": {"page": 1, "page_count": 1, "addresses_per_page": 1, "address_count": 1}
                }
            }
        }));
        let d = r.result;
        let shape = d.geometry.shape.as_ref().unwrap();
        assert_eq!(shape.kind, ShapeType::MultiPoligon);
        assert!(matches!(
            shape.coordinates,
            ShapeCoordinates::MultiPolygon(_)
        ));
        assert_eq!(d.geometry.accuracy, Some(Accuracy::PostalCode));
        assert_eq!(d.status, Some(AddressStatus::NotYetBuilt));
        assert_eq!(
            d.addresses.unwrap().pagination,
            AddressesPagination::single_page(1)
        );
    }

    #[test]
    fn polygon_shape_and_minimal_details() {
        let d: LocalityDetails = round_trip(json!({
            "public_id": "p",
            "formatted_address": "Paris, France",
            "types": ["locality"],
            "geometry": {
                "location": {"lat": 48.85, "lng": 2.35},
                "shape": {"type": "Polygon", "coordinates": [[[2.2, 48.8], [2.4, 48.8], [2.4, 48.9], [2.2, 48.8]]]}
            },
            "address_components": []
        }));
        let shape = d.geometry.shape.unwrap();
        assert_eq!(shape.kind, ShapeType::Polygon);
        assert!(matches!(shape.coordinates, ShapeCoordinates::Polygon(_)));
        assert!(
            serde_json::from_value::<Shape>(json!({"type": "MultiPolygon", "coordinates": []}))
                .is_err(),
            "only the spec's spelling is accepted"
        );
    }

    #[test]
    fn details_query() {
        let r = DetailsRequest::from_query(
            &pairs([
                ("public_id", "abc"),
                ("fields", "geometry|shape"),
                ("cc_format", "alpha3"),
                ("page", "2"),
            ]),
            &headers(),
            &[],
        )
        .unwrap();
        assert_eq!(r.fields, [DetailsField::Geometry, DetailsField::Shape]);
        assert_eq!(r.effective_cc_format(), CcFormat::Alpha3);
        assert_eq!(r.page, Some(2));
        let r =
            DetailsRequest::from_query(&pairs([("public_id", "abc")]), &headers(), &[]).unwrap();
        assert_eq!(r.fields, DetailsField::default_fields());
        assert_eq!(r.effective_cc_format(), CcFormat::Alpha2);
        let errs = DetailsRequest::from_query(
            &pairs([("fields", "geometry|outline"), ("cc_format", "alpha4")]),
            &headers(),
            &[],
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "public_id"]), kinds::MISSING),
                (json!(["query", "fields"]), kinds::ENUM),
                (json!(["query", "cc_format"]), kinds::ENUM),
            ],
        );
    }
}
