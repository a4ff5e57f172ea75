//! `GET /localities/autocomplete`: [`AutocompleteRequest`] and its suggestions
//! ([`AutocompleteResponse`], [`LocalitySuggestion`]).

use serde::{Deserialize, Serialize};

use super::{
    AUTOCOMPLETE_RADIUS_MIN, ComponentFilter, CustomDescription, check_language,
    default_autocomplete_radius, default_autocomplete_types, parse_components,
    parse_custom_descriptions,
};
use crate::api::common::LatLng;
use crate::api::query::FromQuery;
use crate::api::validation::{Checks, FieldError, Loc, Validate, kinds};
use crate::api::vocab::{AutocompleteData, AutocompleteExtended};

/// `GET /localities/autocomplete` (K1; 50 per 1 s).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AutocompleteRequest {
    /// Required text; at most 150 characters, only the first 20 tokens are processed.
    pub input: String,
    /// Types to search, from the locality, point-of-interest and alias vocabularies. Default
    /// `locality|postal_code`.
    #[serde(default = "default_autocomplete_types")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub types: Vec<String>,
    /// Types to leave out (same vocabularies). Default: none.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub excluded_types: Vec<String>,
    /// Country filters. Default: none.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_components)]
    pub components: Vec<ComponentFilter>,
    /// Two-letter ISO 639-1 code; when absent: `Accept-Language`, locale default, English.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub language: Option<String>,
    /// Bias centre.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub location: Option<LatLng>,
    /// Bias radius in metres, at least 10. Default 100000. Results outside may still appear.
    #[serde(default = "default_autocomplete_radius")]
    pub radius: u32,
    /// `standard` (default) or `advanced`.
    #[serde(default)]
    pub data: AutocompleteData,
    /// `postal_code`: search locality names sharing a postal code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub extended: Option<AutocompleteExtended>,
    /// Description formats per type. Default: none.
    #[serde(default)]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(with = parse_custom_descriptions)]
    pub custom_description: Vec<CustomDescription>,
    /// Header `Accept-Language`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    #[query(header)]
    pub accept_language: Option<String>,
}

impl Default for AutocompleteRequest {
    fn default() -> Self {
        Self {
            input: String::new(),
            types: default_autocomplete_types(),
            excluded_types: Vec::new(),
            components: Vec::new(),
            language: None,
            location: None,
            radius: default_autocomplete_radius(),
            data: AutocompleteData::default(),
            extended: None,
            custom_description: Vec::new(),
            accept_language: None,
        }
    }
}

impl Validate for AutocompleteRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![
            (
                "radius",
                crate::api::validation::rule::min(i64::from(
                    crate::api::localities::AUTOCOMPLETE_RADIUS_MIN,
                )),
            ),
            ("language", crate::api::validation::rule::two_letters()),
        ]
    }

    /// `radius` at least 10, `location` in range, `language` two letters. The length of
    /// `input` is left to the engine (the spec allows truncating it).
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        let mut c = Checks::new();
        c.check(self.radius >= AUTOCOMPLETE_RADIUS_MIN, || {
            FieldError::invalid(
                Loc::Query,
                "radius",
                kinds::VALUE,
                format!(
                    "radius too small: give at least {AUTOCOMPLETE_RADIUS_MIN} metres, got {}",
                    self.radius
                ),
            )
        });
        if let Some(p) = &self.location {
            c.latlng(Loc::Query, "location", p);
        }
        check_language(&mut c, self.language.as_deref());
        c.finish()
    }
}

/// Answer of autocomplete: `{localities: [suggestion]}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AutocompleteResponse {
    /// Suggestions, best first.
    pub localities: Vec<LocalitySuggestion>,
}

/// One autocomplete suggestion.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct LocalitySuggestion {
    /// Unique id of the suggestion; the input of details.
    pub public_id: String,
    /// Types of the result.
    pub types: Vec<String>,
    /// Deprecated, replaced by `types`: the first of `types`.
    #[serde(rename = "type")]
    pub deprecated_type: String,
    /// Name, first-level and country-level administrative names concatenated (format varies by
    /// type and by `custom_description`).
    pub description: String,
    /// Where `input` matches `description`.
    pub matched_substrings: MatchedSubstrings,
    /// Related postal codes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related: Option<Related>,
    /// Not shown in the spec (its "seventh property"): distance in metres from the `location`
    /// bias, present when `location` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance_meters: Option<u64>,
}

/// `matched_substrings` of a suggestion.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct MatchedSubstrings {
    /// Substrings of `description` that match `input`.
    pub description: Vec<Substring>,
}

/// A substring: start `offset` and `length`, in characters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Substring {
    /// Length in characters.
    pub length: u32,
    /// Start, in characters from the beginning.
    pub offset: u32,
}

/// `related` of a suggestion.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Related {
    /// Postal codes related to the suggestion.
    pub postal_codes: Vec<RelatedPostalCode>,
}

/// A postal code related to a suggestion.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RelatedPostalCode {
    /// Id usable with details.
    pub public_id: String,
    /// Not shown in the spec (its "second property"): the postal code as displayed, e.g.
    /// `75001`.
    pub description: String,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::query::{RequestHeaders, pairs};
    use crate::api::testing::headers;
    use crate::api::testing::{assert_errors, parse_valid, round_trip};
    use crate::api::validation::kinds;
    use serde_json::json;

    #[test]
    fn autocomplete_response_round_trip() {
        let r: AutocompleteResponse = round_trip(json!({
            "localities": [{
                "public_id": "abc123",
                "types": ["locality", "city"],
                "type": "locality",
                "description": "Paris, Île-de-France, France",
                "matched_substrings": {"description": [{"length": 5, "offset": 0}]},
                "related": {"postal_codes": [{"public_id": "pc1", "description": "75001"}]},
                "distance_meters": 1200
            }, {
                "public_id": "def",
                "types": ["postal_code"],
                "type": "postal_code",
                "description": "75002 Paris",
                "matched_substrings": {"description": []}
            }]
        }));
        assert_eq!(r.localities[0].deprecated_type, "locality");
        assert_eq!(r.localities[0].distance_meters, Some(1200));
        assert_eq!(r.localities[1].related, None);
    }

    #[test]
    fn autocomplete_query_full() {
        let q = pairs([
            ("input", "Par"),
            ("types", "locality|airport|business.shop"),
            ("excluded_types", "city"),
            ("components", "country:fr|country:BEL"),
            ("language", "fr"),
            ("location", "48.8,2.3"),
            ("radius", "5000"),
            ("data", "advanced"),
            ("extended", "postal_code"),
            (
                "custom_description",
                "locality:\"{name} | {postal_code}\"|postal_code:\"{name}\"",
            ),
            ("key", "pk"),
        ]);
        let h = RequestHeaders {
            accept_language: Some("de".into()),
            x_field_mask: None,
        };
        let r = AutocompleteRequest::from_query(&q, &h, &[]).unwrap();
        assert_eq!(r.types, ["locality", "airport", "business.shop"]);
        assert_eq!(
            r.components,
            [
                ComponentFilter::Country("fr".into()),
                ComponentFilter::Country("BEL".into())
            ]
        );
        assert_eq!(r.location, Some(LatLng::new(48.8, 2.3)));
        assert_eq!(r.radius, 5000);
        assert_eq!(r.data, AutocompleteData::Advanced);
        assert_eq!(r.extended, Some(AutocompleteExtended::PostalCode));
        assert_eq!(r.custom_description.len(), 2);
        assert_eq!(r.custom_description[0].format, "{name} | {postal_code}");
        assert_eq!(r.accept_language.as_deref(), Some("de"));
        let back: AutocompleteRequest =
            serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }

    #[test]
    fn autocomplete_defaults_and_errors() {
        let r = AutocompleteRequest::from_query(&pairs([("input", "x")]), &headers(), &[]).unwrap();
        assert_eq!(
            r,
            AutocompleteRequest {
                input: "x".into(),
                ..Default::default()
            }
        );
        let from_json: AutocompleteRequest = serde_json::from_value(json!({"input": "x"})).unwrap();
        assert_eq!(from_json, r);

        let q = pairs([
            ("types", "locality||city"),
            ("radius", "5"),
            ("location", "100,2"),
            ("components", "pays:fr"),
            ("data", "premium"),
            ("foo", "1"),
        ]);
        let errs = AutocompleteRequest::from_query(&q, &headers(), &[]).unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "input"]), kinds::MISSING),
                (json!(["query", "types"]), kinds::VALUE),
                (json!(["query", "components"]), kinds::VALUE),
                (json!(["query", "location"]), kinds::COORDINATES),
                (json!(["query", "data"]), kinds::ENUM),
                (json!(["query", "foo"]), kinds::EXTRA),
            ],
        );
        // the rules run at validation (the engine), once parsing succeeded
        let errs = parse_valid::<AutocompleteRequest>(
            &pairs([("input", "x"), ("radius", "5"), ("language", "fra")]),
            &headers(),
            &[],
            b"",
        )
        .unwrap_err();
        assert_errors(
            &errs,
            &[
                (json!(["query", "radius"]), kinds::VALUE),
                (json!(["query", "language"]), kinds::VALUE),
            ],
        );
        assert!(errs[0].msg.contains("at least 10"), "{}", errs[0].msg);
    }
}
