//! Requests of endpoints that exist only over HTTP: the target of the matrix result's 303.
//!
//! `GET /distance/matrix/async/{matrix_id}` answers a completed job with a 303 to
//! `GET /distance/matrix/async/{matrix_id}/result`; that target is an endpoint of its own (a
//! row of the endpoint table with the local server as its only face), so it has a request type
//! of its own, the same shape as [`MatrixResultRequest`](super::MatrixResultRequest).
use serde::{Deserialize, Serialize};

use super::query::FromQuery;
use super::validation::{FieldError, Validate};

/// `GET /distance/matrix/async/{matrix_id}/result` (Waymark; the 303 target of the result).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, FromQuery)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MatrixResultDataRequest {
    /// Path parameter.
    #[query(path)]
    pub matrix_id: String,
}

impl Validate for MatrixResultDataRequest {
    fn constraints() -> Vec<(&'static str, serde_json::Value)> {
        vec![("matrix_id", crate::api::validation::rule::not_blank())]
    }

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
