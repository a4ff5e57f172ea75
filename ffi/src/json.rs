//! The contract's JSON form on the native side: requests read from, and responses written to,
//! exactly the JSON of the REST contract (the serde form of the `core::api` types, the same
//! bytes the local server sends). Apps use it to cache or forward answers; the parity tests use
//! it to compare the Kotlin library's answers with the engine's and the local server's.
//!
//! Every operation of the endpoint table gets `<operation>_request_from_json` and
//! `<operation>_response_to_json` (generated in the crate root); the native-only matrix gets
//! [`matrix_data_to_json`].
use waymark_core::api::{MatrixData, from_json_body};
use waymark_core::error::{ApiError, WaymarkError};

/// Reads a `T` from JSON (422 naming each bad field).
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(json: &str) -> Result<T, WaymarkError> {
    from_json_body(json.as_bytes()).map_err(|fields| ApiError::validation(fields).into())
}

/// Writes `value` as JSON.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<String, WaymarkError> {
    serde_json::to_string(value).map_err(|e| WaymarkError::Internal {
        detail: format!("cannot write json: {e}"),
    })
}

/// Writes the matrix of `Waymark::distance_matrix` as JSON.
#[uniffi::export]
pub fn matrix_data_to_json(value: MatrixData) -> Result<String, WaymarkError> {
    to_json(&value)
}
