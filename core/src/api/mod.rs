//! The contract: every request, response and resource type of the Location Platform REST API,
//! defined once.
//!
//! These types are what the `Engine` takes and returns, what the local server parses and
//! writes, and what the native SDK (FFI) exposes. Neither face redefines one: their JSON form
//! (serde) uses exactly the field names of the spec, deprecated fields included (`type` of a
//! suggestion, `categories` of nearby, `pagination` of UK addresses), camelCase where the spec
//! has it (`matrixId`, `nearestPlace`, `tollSystems`, ...) and the spec's spelling
//! `MultiPoligon`.
//!
//! # Layout
//!
//! - [`common`]: shapes shared by groups ([`LatLng`], [`Viewport`], [`PageInfo`],
//!   [`TextValue`], [`JsonObject`], [`OneOrMany`], ...);
//! - [`vocab`]: the closed vocabularies (place types, statuses, modes, formats, [`ApiGroup`]);
//! - one module per REST group: [`localities`], [`geolocation`], [`stores`], [`zones`],
//!   [`datasets`], [`indoor`], [`distance`], [`threewords`]; each holds `<Op>Request` and
//!   `<Op>Response` per endpoint and the resources of the group (the larger groups keep one
//!   private submodule per endpoint or family of endpoints, re-exported, so every type is
//!   `waymark_core::api::X` and `waymark_core::api::<group>::X` alike);
//! - [`validation`]: [`FieldError`] (an item of a 422 `detail` list), the parsers of the
//!   query-string forms (`lat,lng`, `|`-lists, ...) and the [`Validate`] trait;
//! - [`query`]: from HTTP pieces to request types ([`FromQuery`], [`FromRequestParts`],
//!   [`QueryReader`], [`from_json_body`]) and `#[derive(FromQuery)]` (crate `waymark-derive`),
//!   which writes that parser for every request type from its field list.
//!
//! # Requests
//!
//! Request types are typed, not raw strings: coordinates are [`LatLng`], `|`-lists are `Vec`s,
//! vocabulary values are enums, booleans and numbers are native. Optional parameters with a
//! default in the spec are plain fields holding that default (`Default` impls and serde
//! defaults apply it); optional parameters without one are `Option`s. Header inputs
//! (`accept_language`, `x_field_mask`) and path parameters (`dataset_id`, `venue_id`,
//! `matrix_id`, `feature_id`) are fields of the request. Request types also implement
//! Serialize/Deserialize so that the FFI and tests can build them from JSON.
//!
//! Every request implements [`Validate`]: the rules the spec states on the request itself
//! (coordinate ranges, `radius >= 10`, `alternatives` vs `waypoints`, ...). The `Engine` runs it,
//! once, after authorization, whichever face built the request; the HTTP parsers do not.
//!
//! # How the faces use it
//!
//! The local server is a thin caller: for an endpoint it decodes the query string into
//! `(name, value)` pairs, collects [`RequestHeaders`], takes the path parameters in path order
//! and the raw body, and calls [`FromRequestParts::from_parts`] on the request type of the
//! endpoint (GET types get it from [`FromQuery`]; POST/PUT types — [`ZonesUpdateRequest`],
//! [`DatasetUpdateRequest`], [`FeatureSearchRequest`], [`FeatureContainsRequest`],
//! [`MatrixCreateRequest`], [`PackInstallRequest`] — implement it directly; both are derived).
//! On `Err(fields)` it answers 422 (through the one error mapping of the crate) with every
//! problem at once; on `Ok(request)` it calls the `Engine` method, which validates the request
//! (422 the same way) and runs it, and serializes the response. The FFI builds request types
//! directly.
//!
//! ```
//! use waymark_core::api::{FromRequestParts, RequestHeaders, TimezoneRequest, pairs};
//!
//! // What the local server does for GET /geolocation/timezone?location=48.85,2.35&key=...
//! let query = pairs([("location", "48.85,2.35"), ("key", "pk_test")]);
//! let req = TimezoneRequest::from_parts(&query, &RequestHeaders::default(), &[], b"").unwrap();
//! assert_eq!(req.location.lng, 2.35);
//!
//! // A bad call: every problem comes back, each with its `loc`.
//! let query = pairs([("location", "48.85,200"), ("timestamp", "soon")]);
//! let errors = TimezoneRequest::from_parts(&query, &RequestHeaders::default(), &[], b"").unwrap_err();
//! let body = serde_json::json!({ "detail": errors });
//! assert_eq!(body["detail"][0]["loc"], serde_json::json!(["query", "location"]));
//! assert_eq!(body["detail"][1]["type"], "type_error.integer");
//! ```
//!
//! # Endpoints
//!
//! | # | endpoint | request | response |
//! |---|---|---|---|
//! | 1 | `GET /localities/autocomplete` | [`AutocompleteRequest`] | [`AutocompleteResponse`] |
//! | 2 | `GET /localities/details` | [`DetailsRequest`] | [`DetailsResponse`] |
//! | 3 | `GET /localities/geocode` | [`GeocodeRequest`] | [`GeocodeResponse`] |
//! | 4 | `GET /localities/nearby` | [`NearbyRequest`] | [`NearbyResponse`] |
//! | 5 | `GET /geolocation/position` | [`PositionRequest`] | [`PositionResponse`] (= [`GeolocationResult`]) |
//! | 6 | `GET /geolocation/timezone` | [`TimezoneRequest`] | [`TimezoneResponse`] (= [`TimezoneResult`]) |
//! | 7 | `GET /stores/search` | [`StoresSearchRequest`] | [`StoresSearchResponse`] |
//! | 8 | `GET /stores/search/bounds` | [`StoresBoundsRequest`] | [`StoresBoundsResponse`] |
//! | 9 | `PUT /zones` | [`ZonesUpdateRequest`] (body) | [`ZonesUpdateResponse`] |
//! | 10 | `GET /datasets` | [`DatasetListRequest`] | [`DatasetListResponse`] |
//! | 11 | `GET /datasets/{dataset_id}` | [`DatasetGetRequest`] | [`DatasetGetResponse`] (= [`Dataset`]) |
//! | 12 | `PUT /datasets/{dataset_id}` | [`DatasetUpdateRequest`] (path + [`DatasetUpdateBody`]) | [`DatasetUpdateResponse`] (= [`Dataset`]) |
//! | 13 | `GET /datasets/{dataset_id}/status` | [`DatasetStatusRequest`] | [`DatasetStatusResponse`] (= [`ImportRun`]) |
//! | 14 | `GET /datasets/{dataset_id}/features/{feature_id}` | [`FeatureGetRequest`] | [`FeatureGetResponse`] (= [`DatasetFeature`]) |
//! | 15 | `POST /datasets/{dataset_id}/features/search` | [`FeatureSearchRequest`] (path + query + [`FeatureSearchBody`]) | [`FeatureSearchResponse`] |
//! | 16 | `POST /datasets/{dataset_id}/features/contains` | [`FeatureContainsRequest`] (path + query + [`FeatureContainsBody`]) | [`FeatureContainsResponse`] (= [`FeatureSearchResponse`]) |
//! | 17 | `GET /indoor/venues/{venue_id}` | [`VenueGetRequest`] | [`VenueGetResponse`] (= [`Venue`]) |
//! | 18 | `GET /indoor/venues/{venue_id}/pois/search` | [`PoiSearchRequest`] | [`PoiSearchResponse`] |
//! | 19 | `GET /indoor/directions/{venue_id}` | [`IndoorDirectionsRequest`] | [`IndoorDirectionsResponse`] |
//! | 20 | `GET /distance/route/json` | [`RouteRequest`] | [`RouteResponse`] |
//! | 21 | `GET /distance/tolls/json` | [`TollsRequest`] | [`TollsResponse`] |
//! | 22 | `GET /distance/isochrone/json` | [`IsochroneRequest`] | [`IsochroneResponse`] |
//! | 23 | `POST /distance/matrix/async` | [`MatrixCreateRequest`] (body) | [`MatrixCreateResponse`] |
//! | 24 | `GET /distance/matrix/async/{matrix_id}/status` | [`MatrixStatusRequest`] | [`MatrixStatusResponse`] |
//! | 25 | `GET /distance/matrix/async/{matrix_id}` | [`MatrixResultRequest`] | [`MatrixResultResponse`] (= [`MatrixResult`], behind a 303) |
//! | 26 | `GET /threewords/autosuggest` | [`AutosuggestRequest`] | [`AutosuggestResponse`] |
//! | 27 | `GET /threewords/convert-to-3wa` | [`ConvertTo3waRequest`] | [`ConvertTo3waResponse`] (JSON or GeoJSON variant) |
//!
//! Waymark's own operations, not in the spec: pack management ([`packs`]), the map layer
//! the local server's demo page draws ([`map`], `GET /map/features`, HTTP only) and the way
//! back from a three-word address to its square (`GET /threewords/convert-to-coordinates`,
//! [`ConvertToCoordinatesRequest`]).

pub mod common;
pub mod datasets;
pub mod distance;
pub mod geolocation;
pub mod indoor;
pub mod localities;
pub mod map;
pub mod packs;
pub mod query;
pub mod redirects;
pub mod stores;
pub mod threewords;
#[cfg(feature = "uniffi")]
mod uniffi_types;
pub mod validation;
pub mod vocab;
pub mod zones;

pub use common::*;
pub use datasets::*;
pub use distance::*;
pub use geolocation::*;
pub use indoor::*;
pub use localities::*;
pub use map::*;
pub use packs::*;
pub use query::*;
pub use redirects::*;
pub use stores::*;
pub use threewords::*;
pub use validation::*;
pub use vocab::*;
pub use zones::*;

/// Helpers shared by the test modules of the contract.
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
pub(crate) mod testing {
    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use serde_json::Value;

    use super::{FieldError, FromRequestParts, RequestHeaders, Validate};

    /// Deserializes `sample` into `T`, serializes it back and asserts the JSON value is
    /// unchanged (so every field name of the sample exists, spelled the same, and nothing is
    /// added).
    pub(crate) fn round_trip<T: DeserializeOwned + Serialize>(sample: Value) -> T {
        let t: T = serde_json::from_value(sample.clone()).expect("sample deserializes");
        let back = serde_json::to_value(&t).expect("serializes");
        assert_eq!(back, sample, "round trip changed the json");
        t
    }

    /// No input header.
    pub(crate) fn headers() -> RequestHeaders {
        RequestHeaders::default()
    }

    /// Parses a request from HTTP pieces and then validates it, as the local server and the
    /// engine do together (parsing alone no longer runs [`Validate`](super::Validate)).
    pub(crate) fn parse_valid<T: FromRequestParts + Validate>(
        pairs: &[(String, String)],
        headers: &RequestHeaders,
        path: &[String],
        body: &[u8],
    ) -> Result<T, Vec<FieldError>> {
        let request = T::from_parts(pairs, headers, path, body)?;
        request.validate()?;
        Ok(request)
    }

    /// Asserts the exact list of `(loc, type)` of `errors`, in order.
    pub(crate) fn assert_errors(errors: &[FieldError], expected: &[(Value, &str)]) {
        let got: Vec<(Value, &str)> = errors
            .iter()
            .map(|e| (Value::Array(e.loc.clone()), e.kind.as_str()))
            .collect();
        assert_eq!(got, expected, "errors: {errors:#?}");
        for e in errors {
            assert!(!e.msg.is_empty(), "every error has a message");
            assert!(
                super::kinds::ALL.contains(&e.kind.as_str()),
                "unknown kind {}",
                e.kind
            );
        }
    }
}
