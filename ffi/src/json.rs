//! The contract's JSON form on the native side: requests read from, and responses written to,
//! exactly the JSON of the REST contract (the serde form of the `core::api` types, the same
//! bytes the local server sends). Apps use it to cache or forward answers; the parity tests use
//! it to compare the Kotlin library's answers with the engine's and the local server's.
use waymark_core::api::*;
use waymark_core::error::{ApiError, WaymarkError};

fn from_json<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, WaymarkError> {
    from_json_body(json.as_bytes()).map_err(|fields| ApiError::validation(fields).into())
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, WaymarkError> {
    serde_json::to_string(value).map_err(|e| WaymarkError::Internal {
        detail: format!("cannot write json: {e}"),
    })
}

macro_rules! json_codec {
    ($($req:ty, $resp:ty => $from:ident, $to:ident;)*) => {$(
        /// Reads a request from its JSON form (422 naming each bad field).
        #[uniffi::export]
        pub fn $from(json: String) -> Result<$req, WaymarkError> {
            from_json(&json)
        }

        /// Writes a response in the JSON form of the REST contract.
        #[uniffi::export]
        pub fn $to(value: $resp) -> Result<String, WaymarkError> {
            to_json(&value)
        }
    )*};
}

json_codec! {
    AutocompleteRequest, AutocompleteResponse => autocomplete_request_from_json, autocomplete_response_to_json;
    DetailsRequest, DetailsResponse => details_request_from_json, details_response_to_json;
    GeocodeRequest, GeocodeResponse => geocode_request_from_json, geocode_response_to_json;
    NearbyRequest, NearbyResponse => nearby_request_from_json, nearby_response_to_json;
    PositionRequest, PositionResponse => position_request_from_json, position_response_to_json;
    TimezoneRequest, TimezoneResponse => timezone_request_from_json, timezone_response_to_json;
    RouteRequest, RouteResponse => route_request_from_json, route_response_to_json;
    TollsRequest, TollsResponse => tolls_request_from_json, tolls_response_to_json;
    IsochroneRequest, IsochroneResponse => isochrone_request_from_json, isochrone_response_to_json;
    MatrixCreateRequest, MatrixData => matrix_request_from_json, matrix_data_to_json;
}
