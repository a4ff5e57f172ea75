//! Requests of endpoints that exist only over HTTP: the target of the matrix result's 303.
//!
//! `GET /distance/matrix/async/{matrix_id}` answers a completed job with a 303 to
//! `GET /distance/matrix/async/{matrix_id}/result`; that target is an endpoint of its own (a
//! row of the endpoint table with the local server as its only face), so it has a request type
//! of its own, the same shape as [`MatrixResultRequest`](super::MatrixResultRequest).
use serde::{Deserialize, Serialize};

use super::query::{FromQuery, RequestHeaders};
use super::validation::{FieldError, Validate};

/// `GET /distance/matrix/async/{matrix_id}/result` (Waymark; the 303 target of the result).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatrixResultDataRequest {
    /// Path parameter.
    pub matrix_id: String,
}

impl FromQuery for MatrixResultDataRequest {
    fn from_query(
        pairs: &[(String, String)],
        headers: &RequestHeaders,
        path: &[String],
    ) -> Result<Self, Vec<FieldError>> {
        super::MatrixResultRequest::from_query(pairs, headers, path).map(|r| Self {
            matrix_id: r.matrix_id,
        })
    }
}

impl Validate for MatrixResultDataRequest {
    fn validate(&self) -> Result<(), Vec<FieldError>> {
        super::MatrixResultRequest {
            matrix_id: self.matrix_id.clone(),
        }
        .validate()
    }
}

impl From<MatrixResultDataRequest> for super::MatrixResultRequest {
    fn from(r: MatrixResultDataRequest) -> Self {
        Self {
            matrix_id: r.matrix_id,
        }
    }
}
