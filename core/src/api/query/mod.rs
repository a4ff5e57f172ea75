//! From HTTP pieces to request types, for the local server (and any other HTTP face).
//!
//! A request arrives as the decoded `(name, value)` pairs of its query string, a few headers
//! ([`RequestHeaders`]), the path parameters in order, and for POST/PUT a JSON body. Every
//! request type implements [`FromRequestParts`], the one entry point of the local server: GET
//! request types through [`FromQuery`], POST/PUT request types directly. Both are derived from
//! the field list by `#[derive(FromQuery)]` (crate `waymark-derive`, re-exported here): the
//! derived parser reads every field with a [`QueryReader`] (how a field parses and whether it is
//! required comes from its type, through [`QueryField`] and [`Presence`]; its default from its
//! serde default), reads the body with [`from_json_body`] and ends with [`conclude`] or
//! [`conclude_body`]. All problems are reported together, as FastAPI does: a request with a
//! missing `origin` and a bad `mode` gets both in one 422.
//!
//! Parsing is strict: an unknown parameter is an error (`value_error.extra`, listing the
//! accepted names) except the credential parameters `key` and `private_key` (see
//! [`CREDENTIAL_PARAMS`]), and so is a parameter given twice. Parsing does not run the
//! request's [`Validate`](crate::api::Validate) rules (ranges, exclusive parameters...): the
//! engine runs them, once, after authorization, whichever face built the request. A request
//! that comes out of here is well-formed, not yet valid.
//!
//! ```
//! use waymark_core::api::{FromQuery, RequestHeaders, TimezoneRequest};
//!
//! let pairs = vec![
//!     ("location".to_owned(), "48.85,2.35".to_owned()),
//!     ("key".to_owned(), "pk_xxx".to_owned()),
//! ];
//! let req = TimezoneRequest::from_query(&pairs, &RequestHeaders::default(), &[]).unwrap();
//! assert_eq!(req.location.lat, 48.85);
//!
//! let bad = vec![("location".to_owned(), "48.85".to_owned()), ("zoom".to_owned(), "3".to_owned())];
//! let errors = TimezoneRequest::from_query(&bad, &RequestHeaders::default(), &[]).unwrap_err();
//! assert_eq!(errors.len(), 2);
//! assert_eq!(errors[0].kind, "value_error.coordinates");
//! assert_eq!(errors[1].kind, "value_error.extra");
//! ```
//!
//! A request type of its own, with the attributes of the derive (see the `waymark-derive`
//! crate documentation for the whole set):
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use waymark_core::api::{FieldError, FromQuery, LatLng, Loc, RequestHeaders, TravelMode, pairs};
//!
//! fn default_radius() -> u32 {
//!     1000
//! }
//!
//! fn parse_tags(loc: Loc, name: &str, s: &str) -> Result<Vec<String>, FieldError> {
//!     waymark_core::api::parse_list(loc, name, s, ',')
//! }
//!
//! #[derive(Debug, Default, Serialize, Deserialize, FromQuery)]
//! struct ShopsRequest {
//!     #[query(path)]
//!     venue_id: String,
//!     near: LatLng,
//!     #[serde(default)]
//!     mode: Option<TravelMode>,
//!     #[serde(default = "default_radius")]
//!     radius: u32,
//!     #[serde(rename = "tag", default)]
//!     #[query(with = parse_tags)]
//!     tags: Vec<String>,
//!     #[serde(default)]
//!     #[query(header)]
//!     accept_language: Option<String>,
//! }
//!
//! let h = RequestHeaders::default();
//! let q = pairs([("near", "48.85,2.35"), ("tag", "food, toys")]);
//! let req = ShopsRequest::from_query(&q, &h, &["v1".to_owned()]).unwrap();
//! assert_eq!((req.venue_id.as_str(), req.radius, req.mode), ("v1", 1000, None));
//! assert_eq!(req.tags, ["food", "toys"]);
//!
//! let errors = ShopsRequest::from_query(&pairs([("mode", "car")]), &h, &[]).unwrap_err();
//! let got: Vec<String> = errors.iter().map(|e| format!("{:?} {}", e.loc, e.kind)).collect();
//! assert_eq!(got, [
//!     r#"[String("path"), String("venue_id")] missing"#,
//!     r#"[String("query"), String("near")] missing"#,
//!     r#"[String("query"), String("mode")] value_error.enum"#,
//! ]);
//! ```

use serde::{Deserialize, Serialize};

use super::validation::FieldError;

mod body;
mod describe;
mod field;
mod reader;

pub(crate) use body::de_error;
pub use body::from_json_body;
pub use describe::{DescribeRequest, ParamDoc, ParamIn, number_schema, string_schema};
pub use field::{Presence, QueryField};
pub use reader::QueryReader;

pub use waymark_derive::FromQuery;

/// Query parameters that carry credentials. They are accepted on every endpoint (authentication
/// reads them; request types do not hold them), even when repeated.
pub const CREDENTIAL_PARAMS: &[&str] = &["key", "private_key"];

/// The headers that are inputs of an operation (credential and identity headers such as
/// `Referer` and `X-Api-Key` belong to authentication, not to request types).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RequestHeaders {
    /// `Accept-Language`, as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub accept_language: Option<String>,
    /// `X-Field-Mask`, as sent (dataset feature get).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "uniffi", uniffi(default))]
    pub x_field_mask: Option<String>,
}

impl RequestHeaders {
    /// Picks the input headers out of `(name, value)` pairs; names compare case-insensitively
    /// and the first occurrence wins.
    pub fn from_pairs<'a>(headers: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut out = Self::default();
        for (name, value) in headers {
            let slot = if name.eq_ignore_ascii_case("accept-language") {
                &mut out.accept_language
            } else if name.eq_ignore_ascii_case("x-field-mask") {
                &mut out.x_field_mask
            } else {
                continue;
            };
            if slot.is_none() {
                *slot = Some(value.to_owned());
            }
        }
        out
    }
}

/// Builds a GET request type from the query pairs, the input headers and the path parameters
/// (in the order of the path: `/datasets/{dataset_id}/features/{feature_id}` gives
/// `[dataset_id, feature_id]`). Derived by `#[derive(FromQuery)]` for a request without a body.
pub trait FromQuery: Sized {
    /// The request, or every problem found (never an empty list).
    fn from_query(
        pairs: &[(String, String)],
        headers: &RequestHeaders,
        path: &[String],
    ) -> Result<Self, Vec<FieldError>>;
}

/// Builds any request type from all the HTTP pieces; the one entry point of the local server.
///
/// GET request types get it from [`FromQuery`] (the body is ignored); for POST/PUT request
/// types `#[derive(FromQuery)]` implements it directly (a `#[query(body)]` field or struct).
pub trait FromRequestParts: Sized {
    /// The request, or every problem found in the query, path, headers and body together.
    fn from_parts(
        pairs: &[(String, String)],
        headers: &RequestHeaders,
        path: &[String],
        body: &[u8],
    ) -> Result<Self, Vec<FieldError>>;
}

impl<T: FromQuery> FromRequestParts for T {
    fn from_parts(
        pairs: &[(String, String)],
        headers: &RequestHeaders,
        path: &[String],
        _body: &[u8],
    ) -> Result<Self, Vec<FieldError>> {
        T::from_query(pairs, headers, path)
    }
}

/// Ends a parser: the reader's errors (plus `extra`, the errors of rules on the raw query) if
/// any, otherwise the request. The request's [`Validate`](crate::api::Validate) rules are not
/// run here: the engine runs them, once, after authorization.
pub fn conclude<T>(
    reader: QueryReader<'_>,
    extra: Vec<FieldError>,
    request: T,
) -> Result<T, Vec<FieldError>> {
    let mut errors = match reader.finish() {
        Ok(()) => Vec::new(),
        Err(e) => e,
    };
    errors.extend(extra);
    if errors.is_empty() {
        Ok(request)
    } else {
        Err(errors)
    }
}

/// Ends a parser of a request with a JSON body: query, path and header errors (then `extra`)
/// and body errors are reported together; with no error, `build` makes the request from the
/// body.
pub fn conclude_body<B, T>(
    reader: QueryReader<'_>,
    extra: Vec<FieldError>,
    body: Result<B, Vec<FieldError>>,
    build: impl FnOnce(B) -> T,
) -> Result<T, Vec<FieldError>> {
    match body {
        Ok(b) => conclude(reader, extra, build(b)),
        Err(body_errors) => {
            let mut errors = reader.finish().err().unwrap_or_default();
            errors.extend(extra);
            errors.extend(body_errors);
            Err(errors)
        }
    }
}

/// `(name, value)` pairs from string slices, for tests and examples.
pub fn pairs<'a>(items: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<(String, String)> {
    items
        .into_iter()
        .map(|(n, v)| (n.to_owned(), v.to_owned()))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn headers_from_pairs() {
        let h = RequestHeaders::from_pairs([
            ("Accept-Language", "fr"),
            ("X-API-KEY", "secret"),
            ("x-field-mask", "id"),
            ("accept-language", "de"),
        ]);
        assert_eq!(h.accept_language.as_deref(), Some("fr"));
        assert_eq!(h.x_field_mask.as_deref(), Some("id"));
        assert_eq!(RequestHeaders::from_pairs([]), RequestHeaders::default());
    }
}
