//! `GET /localities/nearby`: [`NearbyRequest`] and the points of interest of the answer
//! ([`NearbyResponse`], [`NearbyPoi`]).

use serde::{Deserialize, Serialize};

use super::{default_limit, default_nearby_radius, default_page};
use crate::api::common::{AddressComponent, LatLng, Viewport};
use crate::api::query::FromQuery;
use crate::api::validation::{Checks, FieldError, Loc, Validate, kinds};

/// `GET /localities/nearby` (K1): points of interest sorted by distance to `location`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NearbyRequest {
    /// Required point-of-interest types.
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(form = "point-of-interest types joined by `|`")]
    pub types: Vec<String>,
    /// Required centre.
    pub location: LatLng,
    /// Radius in metres. Default 1000.
    #[serde(default = "default_nearby_radius")]
    pub radius: u32,
    /// Page number (first page 1). Default 1.
    #[serde(default = "default_page")]
    pub page: u32,
    /// Results per page. Default 10.
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// Point-of-interest types to leave out. Default: none.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub excluded_types: Vec<String>,
}

impl Default for NearbyRequest {
    fn default() -> Self {
        Self {
            types: Vec::new(),
            location: LatLng::default(),
            radius: default_nearby_radius(),
            page: default_page(),
            limit: default_limit(),
            excluded_types: Vec::new(),
        }
    }
}

impl Validate for NearbyRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            ("radius", crate::api::validation::rule::min(1)),
            ("page", crate::api::validation::rule::min(1)),
            ("limit", crate::api::validation::rule::min(1)),
            ("types", crate::api::validation::rule::list('|')),
            ("excluded_types", crate::api::validation::rule::list('|')),
        ]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.check(!self.types.is_empty(), || {
            FieldError::missing_as(Loc::Query, "types", "point-of-interest types joined by `|`")
        });
        c.latlng(Loc::Query, "location", &self.location);
        for (name, v) in [
            ("radius", self.radius),
            ("page", self.page),
            ("limit", self.limit),
        ] {
            c.check(v >= 1, || {
                FieldError::invalid(
                    Loc::Query,
                    name,
                    kinds::VALUE,
                    format!("`{name}` must be at least 1"),
                )
            });
        }
        c.finish()
    }
}

/// Answer of nearby: `{results, pagination}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NearbyResponse {
    /// Points of interest, nearest first.
    pub results: Vec<NearbyPoi>,
    /// Neighbouring pages.
    pub pagination: NearbyPagination,
}

/// Pagination of nearby; both fields are always present, `null` when there is no such page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NearbyPagination {
    /// Next page number, or `null`.
    #[serde(default)]
    pub next_page: Option<u32>,
    /// Previous page number, or `null`.
    #[serde(default)]
    pub previous_page: Option<u32>,
}

/// A nearby point of interest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NearbyPoi {
    /// Types of the point.
    pub types: Vec<String>,
    /// Name.
    pub name: String,
    /// Id usable with details.
    pub public_id: String,
    /// Location and viewport.
    pub geometry: NearbyGeometry,
    /// Address components.
    pub address_components: Vec<AddressComponent>,
    /// Deprecated, replaced by `types`: the same values.
    pub categories: Vec<String>,
    /// Full address.
    pub formatted_address: String,
}

/// `geometry` of a nearby point of interest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct NearbyGeometry {
    /// The point.
    pub location: LatLng,
    /// Viewport.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::pairs;
    use crate::api::testing::headers;
    use crate::api::testing::{assert_errors, round_trip};
    use crate::api::validation::kinds;
    use serde_json::json;

    #[test]
    fn nearby_query() {
        let r = NearbyRequest::from_query(
            &pairs([("types", "park|beach"), ("location", "43.7,7.26")]),
            &headers(),
            &[],
        )
        .unwrap();
        assert_eq!((r.radius, r.page, r.limit), (1000, 1, 10));
        let errs = NearbyRequest::from_query(
            &pairs([("location", "43.7"), ("radius", "-3"), ("limit", "0")]),
            &headers(),
            &[],
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "types"]), kinds::MISSING),
                (json!(["query", "location"]), kinds::COORDINATES),
                (json!(["query", "radius"]), kinds::VALUE),
            ],
        );
    }

    #[test]
    fn nearby_round_trip() {
        let n: NearbyResponse = round_trip(json!({
            "results": [{
                "types": ["business.food_and_drinks.cafe"],
                "name": "Café",
                "public_id": "poi1",
                "geometry": {"location": {"lat": 48.86, "lng": 2.34}},
                "address_components": [],
                "categories": ["business.food_and_drinks.cafe"],
                "formatted_address": "2 Rue, Paris"
            }],
            "pagination": {"next_page": 2, "previous_page": null}
        }));
        assert_eq!(n.pagination.previous_page, None);
        let v = serde_json::to_value(NearbyPagination::default()).unwrap();
        assert_eq!(v, json!({"next_page": null, "previous_page": null}));
    }
}
