//! Two error tiers.
//!
//! * [`Error`] is internal: I/O, SQLite, corrupt data. It carries context and never reaches a
//!   caller as is.
//! * [`ApiError`] is public: an [`ErrorCode`], a lowercase message that says what to fix, and
//!   for validation failures the list of [`FieldError`]s. Every face (local server, Kotlin,
//!   Swift) shows the same `ApiError`.
//!
//! [`ApiError::to_http`] is the one place that maps an error to an HTTP status and body; the
//! bodies differ per API group exactly as the spec's Errors table says (`detail` vs `details`,
//! indoor's empty 402/403 bodies and its 422 `context`, zones' 400 `{status, value}`, and for the
//! distance group a `status` value such as `REQUEST_DENIED` beside the message).
//!
//! ```
//! use waymark_core::error::{ApiError, ErrorCode};
//! use waymark_core::endpoint::Endpoint;
//! let e = ApiError::new(ErrorCode::RateLimited, "limit of 10 requests per 1 s exceeded");
//! let http = e.to_http(Endpoint::Route);
//! assert_eq!(http.status, 429);
//! assert_eq!(http.body["details"], "limit of 10 requests per 1 s exceeded");
//! assert_eq!(http.body["status"], "OVER_QUERY_LIMIT");
//! ```
use std::time::Duration;

use serde_json::{Value, json};

use crate::api::FieldError;
use crate::endpoint::{Endpoint, ErrorStyle};

/// Internal errors, with context. Converted to [`ApiError::internal`] at the API boundary.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// SQLite failure.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// File-system failure, with the path or action involved.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// JSON (de)serialization of stored state.
    #[error("json: {0}")]
    Json(#[from] serde_json::Error),
    /// Invalid configuration given by the caller.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// Cryptographic material that does not parse.
    #[error("invalid key material: {0}")]
    KeyMaterial(String),
    /// A pack's timezone polygons that cannot be indexed, or a zone without offsets.
    #[error("timezones: {0}")]
    Timezone(#[from] crate::geolocation::timezone::TimezoneError),
    /// A pack's search index that cannot be read.
    #[error("search index: {0}")]
    Search(#[from] tantivy::TantivyError),
    /// The system's random source failed.
    #[error("random: {0}")]
    Random(#[from] getrandom::Error),
}

impl Error {
    /// Wraps an I/O error with what was being done.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

/// Internal result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Public error kinds. Each maps to one HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// 400: the request cannot be read at all (zones: body is not JSON; indoor directions).
    BadRequest,
    /// 401: no credentials, malformed, tampered, expired or unknown key, key sent the wrong way.
    Unauthenticated,
    /// 402: the key's free quota is used up.
    QuotaExhausted,
    /// 403: credentials found but not matching (restrictions, API group not enabled, write
    /// permission missing).
    Forbidden,
    /// 404: unknown resource or path.
    NotFound,
    /// 405: the path exists for other methods.
    MethodNotAllowed,
    /// 413: request body too large.
    PayloadTooLarge,
    /// 422: validation failed; see [`ApiError::fields`].
    Validation,
    /// 429: rate limit exceeded.
    RateLimited,
    /// 500: an internal failure (never for bad input).
    Internal,
    /// 501: the operation is not available in this build.
    NotAvailable,
    /// 503: the data this operation needs is not installed (no pack covers it).
    DataUnavailable,
}

impl ErrorCode {
    /// HTTP status of the code.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::BadRequest => 400,
            ErrorCode::Unauthenticated => 401,
            ErrorCode::QuotaExhausted => 402,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::PayloadTooLarge => 413,
            ErrorCode::Validation => 422,
            ErrorCode::RateLimited => 429,
            ErrorCode::Internal => 500,
            ErrorCode::NotAvailable => 501,
            ErrorCode::DataUnavailable => 503,
        }
    }

    /// The distance group's `status` value for this code.
    pub fn distance_status(self) -> &'static str {
        match self {
            ErrorCode::Unauthenticated | ErrorCode::Forbidden | ErrorCode::QuotaExhausted => {
                "REQUEST_DENIED"
            }
            ErrorCode::RateLimited => "OVER_QUERY_LIMIT",
            ErrorCode::NotFound
            | ErrorCode::BadRequest
            | ErrorCode::MethodNotAllowed
            | ErrorCode::PayloadTooLarge
            | ErrorCode::Validation => "INVALID_REQUEST",
            ErrorCode::Internal | ErrorCode::NotAvailable | ErrorCode::DataUnavailable => {
                "BACKEND_ERROR"
            }
        }
    }
}

/// The public error: what every face shows to its caller.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    /// Kind of error.
    pub code: ErrorCode,
    /// Lowercase message fragment that says what happened and what to fix.
    pub message: String,
    /// Validation failures (422), in FastAPI's `{loc, msg, type}` shape.
    pub fields: Vec<FieldError>,
    /// For 429: how long until a request will be admitted again.
    pub retry_after: Option<Duration>,
}

impl ApiError {
    /// An error with a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
            fields: Vec::new(),
            retry_after: None,
        }
    }

    /// A 422 listing every problem found.
    pub fn validation(fields: Vec<FieldError>) -> Self {
        let message = fields
            .iter()
            .map(|f| {
                let loc: Vec<String> = f
                    .loc
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect();
                format!("{}: {}", loc.join("."), f.msg)
            })
            .collect::<Vec<_>>()
            .join("; ");
        ApiError {
            code: ErrorCode::Validation,
            message,
            fields,
            retry_after: None,
        }
    }

    /// 401.
    pub fn unauthenticated(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Unauthenticated, message)
    }

    /// 403.
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Forbidden, message)
    }

    /// 404.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }

    /// 501 for an operation whose implementation has not landed in this build.
    pub fn not_available(endpoint: Endpoint) -> Self {
        Self::new(
            ErrorCode::NotAvailable,
            format!(
                "{} {} is not available in this build of waymark",
                endpoint.method().as_str(),
                endpoint.path()
            ),
        )
    }

    /// 500 from an internal error: an [`Error`] or a module's own typed error. The internal
    /// detail is logged, not shown.
    pub fn internal(err: &dyn std::error::Error) -> Self {
        tracing::error!(error = %err, "internal error");
        Self::new(
            ErrorCode::Internal,
            "internal error; the details are in the waymark log",
        )
    }

    /// Maps the error to the HTTP status and body in `endpoint`'s error style (a row of the
    /// endpoint table). The one place where error bodies are shaped.
    pub fn to_http(&self, endpoint: Endpoint) -> HttpError {
        Self::to_http_for(self, Some(endpoint.error_style()))
    }

    /// As [`ApiError::to_http`] for requests that matched no endpoint (404, 405, 403 on Host).
    pub fn to_http_unrouted(&self) -> HttpError {
        Self::to_http_for(self, None)
    }

    fn to_http_for(&self, style: Option<ErrorStyle>) -> HttpError {
        use ErrorStyle as S;
        let mut status = self.code.http_status();
        let msg = Value::String(self.message.clone());
        let mut body = match (self.code, style) {
            // Zones: a body that is not JSON at all is a 400 of its own shape.
            (ErrorCode::Validation, Some(S::Zones))
                if self.fields.len() == 1 && self.fields[0].is_body_not_json() =>
            {
                status = ErrorCode::BadRequest.http_status();
                json!({"status": "error", "value": self.fields[0].msg})
            }
            (ErrorCode::Validation, Some(S::Indoor | S::IndoorDirections)) => {
                json!({"detail": self.fields, "context": {}})
            }
            (ErrorCode::Validation, _) => json!({"detail": self.fields}),
            (ErrorCode::BadRequest, Some(S::Zones)) => {
                json!({"status": "error", "value": msg})
            }
            (ErrorCode::BadRequest, Some(S::IndoorDirections)) => json!({"detail": msg}),
            (
                ErrorCode::QuotaExhausted | ErrorCode::Forbidden,
                Some(S::Indoor | S::IndoorDirections),
            ) => {
                json!({})
            }
            (ErrorCode::NotFound, Some(S::Datasets)) => json!({"details": msg}),
            (ErrorCode::RateLimited, Some(S::Datasets | S::Distance | S::Threewords)) => {
                json!({"details": msg})
            }
            _ => json!({"detail": msg}),
        };
        if style == Some(S::Distance)
            && let Value::Object(map) = &mut body
        {
            // The matrix's element limit is a 422 whose status names the limit.
            let status = if self
                .fields
                .iter()
                .any(|f| f.kind == "value_error.max_elements")
            {
                "MAX_ELEMENTS_EXCEEDED"
            } else {
                self.code.distance_status()
            };
            map.insert("status".into(), Value::String(status.into()));
        }
        let mut headers = Vec::new();
        if let Some(after) = self.retry_after {
            let secs = after.as_secs_f64().ceil().max(1.0) as u64;
            headers.push(("retry-after", secs.to_string()));
        }
        HttpError {
            status,
            body,
            headers,
        }
    }
}

impl From<Error> for ApiError {
    fn from(err: Error) -> Self {
        ApiError::internal(&err)
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(err: rusqlite::Error) -> Self {
        ApiError::internal(&Error::Sqlite(err))
    }
}

/// An error as HTTP: status, JSON body, extra headers.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpError {
    /// HTTP status code.
    pub status: u16,
    /// JSON body.
    pub body: Value,
    /// Extra response headers (lowercase names).
    pub headers: Vec<(&'static str, String)>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn body(code: ErrorCode, ep: Endpoint) -> Value {
        ApiError::new(code, "m").to_http(ep).body
    }

    #[test]
    fn bodies_follow_the_spec_error_table() {
        // 401 everywhere {detail}
        assert_eq!(
            body(ErrorCode::Unauthenticated, Endpoint::Autocomplete),
            json!({"detail": "m"})
        );
        assert_eq!(
            body(ErrorCode::Unauthenticated, Endpoint::VenueGet),
            json!({"detail": "m"})
        );
        // 402 / 403: indoor has no properties
        assert_eq!(
            body(ErrorCode::QuotaExhausted, Endpoint::PoiSearch),
            json!({})
        );
        assert_eq!(
            body(ErrorCode::Forbidden, Endpoint::IndoorDirections),
            json!({})
        );
        assert_eq!(
            body(ErrorCode::QuotaExhausted, Endpoint::Autosuggest),
            json!({"detail": "m"})
        );
        assert_eq!(
            body(ErrorCode::Forbidden, Endpoint::Timezone),
            json!({"detail": "m"})
        );
        // 404 datasets {details}
        assert_eq!(
            body(ErrorCode::NotFound, Endpoint::DatasetGet),
            json!({"details": "m"})
        );
        assert_eq!(
            body(ErrorCode::NotFound, Endpoint::VenueGet),
            json!({"detail": "m"})
        );
        // 429 details vs detail
        assert_eq!(
            body(ErrorCode::RateLimited, Endpoint::DatasetList),
            json!({"details": "m"})
        );
        assert_eq!(
            body(ErrorCode::RateLimited, Endpoint::ConvertTo3wa),
            json!({"details": "m"})
        );
        assert_eq!(
            body(ErrorCode::RateLimited, Endpoint::MatrixStatus),
            json!({"details": "m", "status": "OVER_QUERY_LIMIT"})
        );
        assert_eq!(
            body(ErrorCode::RateLimited, Endpoint::Position),
            json!({"detail": "m"})
        );
        assert_eq!(
            body(ErrorCode::RateLimited, Endpoint::StoresBounds),
            json!({"detail": "m"})
        );
        assert_eq!(
            body(ErrorCode::RateLimited, Endpoint::Nearby),
            json!({"detail": "m"})
        );
        // 400 zones / indoor directions
        assert_eq!(
            body(ErrorCode::BadRequest, Endpoint::ZonesUpdate),
            json!({"status": "error", "value": "m"})
        );
        assert_eq!(
            body(ErrorCode::BadRequest, Endpoint::IndoorDirections),
            json!({"detail": "m"})
        );
        // distance adds its status
        assert_eq!(
            body(ErrorCode::Unauthenticated, Endpoint::Route),
            json!({"detail": "m", "status": "REQUEST_DENIED"})
        );
    }

    #[test]
    fn validation_bodies_list_fields_and_indoor_adds_context() {
        let f = FieldError {
            loc: vec![json!("query"), json!("location")],
            msg: "bad".into(),
            kind: "value_error".into(),
        };
        let e = ApiError::validation(vec![f]);
        assert_eq!(e.message, "query.location: bad");
        let h = e.to_http(Endpoint::Timezone);
        assert_eq!(h.status, 422);
        assert_eq!(
            h.body,
            json!({"detail": [{"loc": ["query", "location"], "msg": "bad", "type": "value_error"}]})
        );
        let h = e.to_http(Endpoint::PoiSearch);
        assert_eq!(h.body["context"], json!({}));
        assert_eq!(h.body["detail"][0]["type"], "value_error");
    }

    #[test]
    fn retry_after_header_rounds_up() {
        let mut e = ApiError::new(ErrorCode::RateLimited, "slow down");
        e.retry_after = Some(Duration::from_millis(1200));
        let h = e.to_http(Endpoint::Timezone);
        assert_eq!(h.headers, vec![("retry-after", "2".to_string())]);
    }
}

/// [`ApiError`] as the native SDK raises it (Kotlin `WaymarkException`, Swift `WaymarkError`):
/// one variant per [`ErrorCode`], each with the same message (`detail`) the local server puts
/// in its body; 422 carries the same [`FieldError`] list, 429 the wait in milliseconds.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Error))]
pub enum WaymarkError {
    /// 400: the request cannot be read at all.
    #[error("bad request: {detail}")]
    BadRequest {
        /// What was wrong and what to fix.
        detail: String,
    },
    /// 401: missing, malformed, tampered, expired or unknown key; a public key natively.
    #[error("unauthenticated: {detail}")]
    Unauthenticated {
        /// What was wrong and what to fix.
        detail: String,
    },
    /// 402: the key's free quota is used up.
    #[error("quota exhausted: {detail}")]
    QuotaExhausted {
        /// What was wrong and what to fix.
        detail: String,
    },
    /// 403: the key does not allow this caller or operation (app identity, write permission,
    /// API group).
    #[error("forbidden: {detail}")]
    Forbidden {
        /// What was wrong and what to fix.
        detail: String,
    },
    /// 404: unknown resource.
    #[error("not found: {detail}")]
    NotFound {
        /// What was wrong and what to fix.
        detail: String,
    },
    /// 405 (HTTP only; kept so that every code has a variant).
    #[error("method not allowed: {detail}")]
    MethodNotAllowed {
        /// What was wrong and what to fix.
        detail: String,
    },
    /// 413: the request is too large.
    #[error("payload too large: {detail}")]
    PayloadTooLarge {
        /// What was wrong and what to fix.
        detail: String,
    },
    /// 422: validation failed; every problem is in `fields`.
    #[error("invalid request: {detail}")]
    Validation {
        /// Every problem, `; `-separated.
        detail: String,
        /// Every problem, as the local server's 422 `detail` list.
        fields: Vec<FieldError>,
    },
    /// 429: rate limit exceeded.
    #[error("rate limited: {detail}")]
    RateLimited {
        /// What was wrong and what to fix.
        detail: String,
        /// How long until a call will be admitted again.
        retry_after_ms: u64,
    },
    /// 500: an internal failure (also a panic caught at the FFI boundary).
    #[error("internal error: {detail}")]
    Internal {
        /// What happened.
        detail: String,
    },
    /// 501: the operation is not available in this build.
    #[error("not available: {detail}")]
    NotAvailable {
        /// What was wrong and what to fix.
        detail: String,
    },
    /// 503: no installed pack has the data the operation needs.
    #[error("data unavailable: {detail}")]
    DataUnavailable {
        /// What was wrong and what to fix.
        detail: String,
    },
}

impl WaymarkError {
    /// The error code of the variant.
    pub fn code(&self) -> ErrorCode {
        match self {
            WaymarkError::BadRequest { .. } => ErrorCode::BadRequest,
            WaymarkError::Unauthenticated { .. } => ErrorCode::Unauthenticated,
            WaymarkError::QuotaExhausted { .. } => ErrorCode::QuotaExhausted,
            WaymarkError::Forbidden { .. } => ErrorCode::Forbidden,
            WaymarkError::NotFound { .. } => ErrorCode::NotFound,
            WaymarkError::MethodNotAllowed { .. } => ErrorCode::MethodNotAllowed,
            WaymarkError::PayloadTooLarge { .. } => ErrorCode::PayloadTooLarge,
            WaymarkError::Validation { .. } => ErrorCode::Validation,
            WaymarkError::RateLimited { .. } => ErrorCode::RateLimited,
            WaymarkError::Internal { .. } => ErrorCode::Internal,
            WaymarkError::NotAvailable { .. } => ErrorCode::NotAvailable,
            WaymarkError::DataUnavailable { .. } => ErrorCode::DataUnavailable,
        }
    }
}

impl From<ApiError> for WaymarkError {
    fn from(e: ApiError) -> Self {
        let detail = e.message;
        match e.code {
            ErrorCode::BadRequest => WaymarkError::BadRequest { detail },
            ErrorCode::Unauthenticated => WaymarkError::Unauthenticated { detail },
            ErrorCode::QuotaExhausted => WaymarkError::QuotaExhausted { detail },
            ErrorCode::Forbidden => WaymarkError::Forbidden { detail },
            ErrorCode::NotFound => WaymarkError::NotFound { detail },
            ErrorCode::MethodNotAllowed => WaymarkError::MethodNotAllowed { detail },
            ErrorCode::PayloadTooLarge => WaymarkError::PayloadTooLarge { detail },
            ErrorCode::Validation => WaymarkError::Validation {
                detail,
                fields: e.fields,
            },
            ErrorCode::RateLimited => WaymarkError::RateLimited {
                detail,
                retry_after_ms: e
                    .retry_after
                    .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            },
            ErrorCode::Internal => WaymarkError::Internal { detail },
            ErrorCode::NotAvailable => WaymarkError::NotAvailable { detail },
            ErrorCode::DataUnavailable => WaymarkError::DataUnavailable { detail },
        }
    }
}

impl From<Error> for WaymarkError {
    fn from(e: Error) -> Self {
        match e {
            // Configuration problems are the caller's to fix: say what they are.
            Error::Config(detail) | Error::KeyMaterial(detail) => {
                WaymarkError::BadRequest { detail }
            }
            other => ApiError::internal(&other).into(),
        }
    }
}
