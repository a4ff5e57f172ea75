//! `GET /localities/geocode`: [`GeocodeRequest`] (an address to geocode or a point to reverse
//! geocode) and its results ([`GeocodeResponse`]).

use serde::{Deserialize, Serialize};

use super::details::{LocalityGeometry, parse_details_fields};
use super::{ComponentFilter, check_language, parse_components};
use crate::api::common::{AddressComponent, LatLng};
use crate::api::query::{FromQuery, QueryReader};
use crate::api::validation::{Checks, FieldError, Loc, Validate, kinds};
use crate::api::vocab::{CcFormat, DetailsField};

/// `GET /localities/geocode` (K1; 50 per 1 s): exactly one of `address` (geocoding) or `latlng`
/// (reverse geocoding).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
#[query(extra = geocode_presence)]
pub struct GeocodeRequest {
    /// Address to geocode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub address: Option<String>,
    /// Point to reverse geocode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub latlng: Option<LatLng>,
    /// Parts to return, as in details. Default `geometry|address_components`.
    #[serde(default = "DetailsField::default_fields")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_details_fields)]
    pub fields: Vec<DetailsField>,
    /// Two-letter ISO 639-1 code, as in autocomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<String>,
    /// Not shown in the spec: country filters, as in autocomplete.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_components)]
    pub components: Vec<ComponentFilter>,
    /// Not shown in the spec: country code format, as in details; see
    /// [`GeocodeRequest::effective_cc_format`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub cc_format: Option<CcFormat>,
    /// Header `Accept-Language`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(header)]
    pub accept_language: Option<String>,
}

impl Default for GeocodeRequest {
    fn default() -> Self {
        Self {
            address: None,
            latlng: None,
            fields: DetailsField::default_fields(),
            language: None,
            components: Vec::new(),
            cc_format: None,
            accept_language: None,
        }
    }
}

impl GeocodeRequest {
    /// `cc_format`; else the format used in `components` (alpha-3 when any filter uses a
    /// three-letter code); else `alpha2`.
    pub fn effective_cc_format(&self) -> CcFormat {
        match self.cc_format {
            Some(f) => f,
            None if self.components.iter().any(ComponentFilter::is_alpha3) => CcFormat::Alpha3,
            None => CcFormat::Alpha2,
        }
    }
}

/// "Exactly one of `address` or `latlng`" is a rule on presence: judged on the raw query, so
/// that a bad `latlng` is not also reported as missing.
fn geocode_presence(q: &QueryReader<'_>) -> Vec<FieldError> {
    if q.given("address") || q.given("latlng") {
        Vec::new()
    } else {
        vec![geocode_neither()]
    }
}

fn geocode_neither() -> FieldError {
    FieldError::invalid(
        Loc::Query,
        "address",
        kinds::MISSING,
        "field required: give `address` to geocode or `latlng` (`lat,lng`) to reverse geocode",
    )
}

impl Validate for GeocodeRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("language", crate::api::validation::rule::two_letters())]
    }

    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        match (&self.address, &self.latlng) {
            (None, None) => c.check(false, geocode_neither),
            (Some(_), Some(_)) => c.check(false, || {
                FieldError::invalid(
                    Loc::Query,
                    "latlng",
                    kinds::VALUE,
                    "give either `address` or `latlng`, not both",
                )
            }),
            (None, Some(p)) => c.latlng(Loc::Query, "latlng", p),
            (Some(_), None) => {}
        }
        check_language(&mut c, self.language.as_deref());
        c.finish()
    }
}

/// Not shown in the spec: the answer of geocode is `{results: [GeocodeResult]}`, best first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct GeocodeResponse {
    /// Matching places, best first (empty when nothing matches).
    pub results: Vec<GeocodeResult>,
}

/// Not shown in the spec: a geocoding result has the core fields of [`LocalityDetails`](super::LocalityDetails).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct GeocodeResult {
    /// Id usable with details.
    pub public_id: String,
    /// Types of the place.
    pub types: Vec<String>,
    /// Full address.
    pub formatted_address: String,
    /// Location, viewport, shape (when asked) and accuracy.
    pub geometry: LocalityGeometry,
    /// Address components (empty when `fields` leaves them out).
    #[serde(default)]
    pub address_components: Vec<AddressComponent>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::pairs;
    use crate::api::testing::headers;
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use crate::api::validation::kinds;
    use crate::api::vocab::CcFormat;
    use serde_json::json;

    #[test]
    fn geocode_query_exactly_one() {
        let r = GeocodeRequest::from_query(
            &pairs([
                ("address", "1 rue de rivoli"),
                ("components", "country:FRA"),
            ]),
            &headers(),
            &[],
        )
        .unwrap();
        assert_eq!(r.effective_cc_format(), CcFormat::Alpha3);
        let r =
            GeocodeRequest::from_query(&pairs([("latlng", "48.8,2.3")]), &headers(), &[]).unwrap();
        assert_eq!(r.latlng, Some(LatLng::new(48.8, 2.3)));
        assert_eq!(r.effective_cc_format(), CcFormat::Alpha2);

        let errs = GeocodeRequest::from_query(&pairs([]), &headers(), &[]).unwrap_err();
        assert_errors(&errs, &[(json!(["query", "address"]), kinds::MISSING)]);
        let errs = parse_valid::<GeocodeRequest>(
            &pairs([("address", "x"), ("latlng", "1,2")]),
            &headers(),
            &[],
            b"",
        )
        .unwrap_err();
        assert_errors(&errs, &[(json!(["query", "latlng"]), kinds::VALUE)]);
        let errs =
            GeocodeRequest::from_query(&pairs([("latlng", "1,200")]), &headers(), &[]).unwrap_err();
        assert_errors(&errs, &[(json!(["query", "latlng"]), kinds::COORDINATES)]);
    }

    #[test]
    fn geocode_round_trip() {
        let g: GeocodeResponse = round_trip(json!({
            "results": [{
                "public_id": "x",
                "types": ["address"],
                "formatted_address": "1 Rue de Rivoli, 75001 Paris, France",
                "geometry": {"location": {"lat": 48.86, "lng": 2.34}, "accuracy": "ROOFTOP"},
                "address_components": [{"long_name": "France", "short_name": "FR", "types": ["country"]}]
            }]
        }));
        assert_eq!(g.results.len(), 1);
    }
}
