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

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::LatLng;
use super::validation::{
    FieldError, IntValue, Loc, kinds, parse_bool, parse_enum, parse_f64, parse_int, parse_latlng,
    parse_pipe_list,
};
use super::vocab::{Vocabulary, list_names};

pub use waymark_derive::FromQuery;

/// Query parameters that carry credentials. They are accepted on every endpoint (authentication
/// reads them; request types do not hold them), even when repeated.
pub const CREDENTIAL_PARAMS: &[&str] = &["key", "private_key"];

/// The headers that are inputs of an operation (credential and identity headers such as
/// `Referer` and `X-Api-Key` belong to authentication, not to request types).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// A type with a query-string form: how one value of a parameter parses, and how a missing one
/// is described. The derive reads a field of such a type without a `with` parser.
///
/// Implemented for `String` (the value as given), the integers of [`IntValue`], `f64`, `bool`
/// (`true`/`false`/`1`/`0`), [`LatLng`] (`lat,lng`), `Vec<String>` (a `|`-separated list),
/// every [`Vocabulary`] enum, and `Option<T>` of those (parsing as `T`).
pub trait QueryField: Sized {
    /// What one value parses into: `Self`, or `T` for `Option<T>`.
    type Value;
    /// The expected form, for the message of a missing required parameter
    /// (`field required: give `origin` as `lat,lng``).
    const FORM: &'static str;
    /// Parses the raw value of input `name` of `loc`.
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self::Value, FieldError>;
}

impl QueryField for String {
    type Value = Self;
    const FORM: &'static str = "a string";
    /// The value as given (empty values are kept: the engine judges them).
    fn parse(_loc: Loc, _name: &str, raw: &str) -> Result<Self, FieldError> {
        Ok(raw.to_owned())
    }
}

macro_rules! int_query_field {
    ($($t:ty),+) => {
        $(impl QueryField for $t {
            type Value = Self;
            const FORM: &'static str = "an integer";
            fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
                parse_int::<$t>(loc, name, raw)
            }
        })+
    };
}
int_query_field!(u8, u16, u32, u64, i32, i64);

impl QueryField for f64 {
    type Value = Self;
    const FORM: &'static str = "a number";
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
        parse_f64(loc, name, raw)
    }
}

impl QueryField for bool {
    type Value = Self;
    const FORM: &'static str = "`true` or `false`";
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
        parse_bool(loc, name, raw)
    }
}

impl QueryField for LatLng {
    type Value = Self;
    const FORM: &'static str = "`lat,lng`";
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
        parse_latlng(loc, name, raw)
    }
}

impl QueryField for Vec<String> {
    type Value = Self;
    const FORM: &'static str = "values joined by `|`";
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
        parse_pipe_list(loc, name, raw)
    }
}

impl<T: Vocabulary> QueryField for T {
    type Value = Self;
    const FORM: &'static str = "one of the accepted values";
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
        parse_enum::<T>(loc, name, raw)
    }
}

impl<T: QueryField<Value = T>> QueryField for Option<T> {
    type Value = T;
    const FORM: &'static str = T::FORM;
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<T, FieldError> {
        T::parse(loc, name, raw)
    }
}

/// How a field takes a parsed value `V` and an absent parameter: a plain field (`V` itself) is
/// required, an `Option<V>` is `None` when absent. Lets one reader method serve both, decided
/// by the field's type.
pub trait Presence<V>: Sized {
    /// The field holding a given value.
    fn present(value: V) -> Self;
    /// The field when the parameter is absent (or invalid) and has no default: `Ok(value)`, or
    /// `Err(placeholder)` when the parameter is required (the error is recorded, so the
    /// placeholder never escapes).
    fn absent() -> Result<Self, Self>;
}

impl<V: Default> Presence<V> for V {
    fn present(value: V) -> Self {
        value
    }
    fn absent() -> Result<Self, Self> {
        Err(V::default())
    }
}

impl<V> Presence<V> for Option<V> {
    fn present(value: V) -> Self {
        Some(value)
    }
    fn absent() -> Result<Self, Self> {
        Ok(None)
    }
}

/// Reads query parameters one by one, recording every problem instead of stopping at the first.
///
/// Each accessor marks its parameter as known; [`QueryReader::finish`] then reports unknown
/// parameters too. Accessors for required parameters return a placeholder (`T::default()`)
/// when the parameter is missing or invalid: the error is recorded and `finish` returns it, so
/// the placeholder never escapes (hence `#[must_use]`: always call `finish`).
#[must_use = "call `finish` to get the recorded errors"]
#[derive(Debug)]
pub struct QueryReader<'a> {
    pairs: &'a [(String, String)],
    known: Vec<&'static str>,
    errors: Vec<FieldError>,
}

impl<'a> QueryReader<'a> {
    /// A reader of the decoded `(name, value)` pairs of a query string.
    pub fn new(pairs: &'a [(String, String)]) -> Self {
        Self {
            pairs,
            known: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The raw value of `name` if given exactly once; records an error when it is repeated.
    pub fn raw(&mut self, name: &'static str) -> Option<&'a str> {
        if !self.known.contains(&name) {
            self.known.push(name);
        }
        let mut values = self
            .pairs
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str());
        let first = values.next()?;
        let extra = values.count();
        if extra > 0 {
            self.errors.push(FieldError::invalid(
                Loc::Query,
                name,
                kinds::VALUE,
                format!(
                    "parameter given {} times: give `{name}` once (join several values with `|` where the parameter takes a list)",
                    extra + 1
                ),
            ));
            return None;
        }
        Some(first)
    }

    /// Records an error found by the caller (a header, a cross-parameter rule, ...).
    pub fn push(&mut self, error: FieldError) {
        self.errors.push(error);
    }

    /// Whether `name` appears in the query at all (valid or not).
    pub fn given(&self, name: &str) -> bool {
        self.pairs.iter().any(|(n, _)| n == name)
    }

    /// Whether a problem was recorded so far.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Parses `name` with `parse(loc, name, value)` when given.
    pub fn opt_with<T>(
        &mut self,
        name: &'static str,
        parse: impl FnOnce(Loc, &str, &str) -> Result<T, FieldError>,
    ) -> Option<T> {
        let raw = self.raw(name)?;
        match parse(Loc::Query, name, raw) {
            Ok(v) => Some(v),
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    /// Parses the required `name` with `parse`; `form` describes the expected form in the
    /// missing-parameter message (e.g. `` `lat,lng` ``).
    pub fn required_with<T: Default>(
        &mut self,
        name: &'static str,
        form: &str,
        parse: impl FnOnce(Loc, &str, &str) -> Result<T, FieldError>,
    ) -> T {
        if let Some(v) = self.opt_with(name, parse) {
            return v;
        }
        // Given but invalid or repeated: already reported.
        if !self.given(name) {
            self.errors
                .push(FieldError::missing_as(Loc::Query, name, form));
        }
        T::default()
    }

    /// Reads the field `name` that has no default, parsed by `parse`: required for a plain
    /// field (a missing one is recorded, with the hint `form` when given), `None` when absent
    /// for an `Option` (see [`Presence`]).
    pub fn field<T: Presence<V>, V>(
        &mut self,
        name: &'static str,
        form: Option<&str>,
        parse: impl FnOnce(Loc, &str, &str) -> Result<V, FieldError>,
    ) -> T {
        if let Some(v) = self.opt_with(name, parse) {
            return T::present(v);
        }
        match T::absent() {
            Ok(value) => value,
            Err(placeholder) => {
                // Given but invalid or repeated: already reported.
                if !self.given(name) {
                    self.errors.push(match form {
                        Some(form) => FieldError::missing_as(Loc::Query, name, form),
                        None => FieldError::missing(Loc::Query, name),
                    });
                }
                placeholder
            }
        }
    }

    /// Reads the field `name` parsed by `parse`, `default()` when absent (or invalid: the error
    /// is recorded).
    pub fn field_or<T: Presence<V>, V>(
        &mut self,
        name: &'static str,
        parse: impl FnOnce(Loc, &str, &str) -> Result<V, FieldError>,
        default: impl FnOnce() -> T,
    ) -> T {
        self.opt_with(name, parse)
            .map(T::present)
            .unwrap_or_else(default)
    }

    /// Parses the input header `name` (lowercase, e.g. `x-field-mask`) when sent; an error is
    /// recorded at `["header", name]`.
    pub fn header<V>(
        &mut self,
        value: Option<&str>,
        name: &'static str,
        parse: impl FnOnce(Loc, &str, &str) -> Result<V, FieldError>,
    ) -> Option<V> {
        match parse(Loc::Header, name, value?) {
            Ok(v) => Some(v),
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    /// A required string (empty values are kept: the engine judges them).
    pub fn required_str(&mut self, name: &'static str) -> String {
        self.required_with(name, "a string", |_, _, s| Ok(s.to_owned()))
    }

    /// An optional string.
    pub fn opt_str(&mut self, name: &'static str) -> Option<String> {
        self.raw(name).map(str::to_owned)
    }

    /// An optional integer.
    pub fn opt_int<T: IntValue>(&mut self, name: &'static str) -> Option<T> {
        self.opt_with(name, parse_int::<T>)
    }

    /// An integer with a default.
    pub fn int_or<T: IntValue>(&mut self, name: &'static str, default: T) -> T {
        self.opt_int(name).unwrap_or(default)
    }

    /// An optional finite number.
    pub fn opt_f64(&mut self, name: &'static str) -> Option<f64> {
        self.opt_with(name, parse_f64)
    }

    /// A required finite number.
    pub fn required_f64(&mut self, name: &'static str) -> f64 {
        self.required_with(name, "a number", parse_f64)
    }

    /// An optional boolean (`true`/`false`/`1`/`0`).
    pub fn opt_bool(&mut self, name: &'static str) -> Option<bool> {
        self.opt_with(name, parse_bool)
    }

    /// A boolean with a default.
    pub fn bool_or(&mut self, name: &'static str, default: bool) -> bool {
        self.opt_bool(name).unwrap_or(default)
    }

    /// A required `lat,lng`.
    pub fn required_latlng(&mut self, name: &'static str) -> LatLng {
        self.required_with(name, "`lat,lng`", parse_latlng)
    }

    /// An optional `lat,lng`.
    pub fn opt_latlng(&mut self, name: &'static str) -> Option<LatLng> {
        self.opt_with(name, parse_latlng)
    }

    /// An optional vocabulary value.
    pub fn opt_enum<T: Vocabulary>(&mut self, name: &'static str) -> Option<T> {
        self.opt_with(name, parse_enum::<T>)
    }

    /// A vocabulary value with a default.
    pub fn enum_or<T: Vocabulary>(&mut self, name: &'static str, default: T) -> T {
        self.opt_enum(name).unwrap_or(default)
    }

    /// An optional `|`-separated list of strings.
    pub fn pipe_list(&mut self, name: &'static str) -> Option<Vec<String>> {
        self.opt_with(name, parse_pipe_list)
    }

    /// The path parameter at `index`, named `name` in errors (`["path", name]`).
    pub fn path(&mut self, path: &[String], index: usize, name: &'static str) -> String {
        match path.get(index) {
            Some(v) if !v.trim().is_empty() => v.clone(),
            _ => {
                self.errors.push(FieldError::missing(Loc::Path, name));
                String::new()
            }
        }
    }

    /// Every recorded problem, plus one `value_error.extra` per unknown parameter; `Ok(())`
    /// when there is none.
    pub fn finish(mut self) -> Result<(), Vec<FieldError>> {
        let mut reported: Vec<&str> = Vec::new();
        for (name, _) in self.pairs {
            let name = name.as_str();
            if self.known.contains(&name)
                || CREDENTIAL_PARAMS.contains(&name)
                || reported.contains(&name)
            {
                continue;
            }
            reported.push(name);
            let accepted = if self.known.is_empty() {
                "this endpoint takes no parameter besides `key` or `private_key`".to_owned()
            } else {
                format!("accepted parameters are {}", list_names(&self.known))
            };
            self.errors.push(FieldError::invalid(
                Loc::Query,
                name,
                kinds::EXTRA,
                format!("unknown parameter: {accepted}"),
            ));
        }
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(self.errors)
        }
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

/// Formats a parse error raised inside a custom `Deserialize` so that [`from_json_body`] can
/// recover its kind: the message becomes `<kind>: <msg>`.
pub(crate) fn de_error<E: serde::de::Error>(e: FieldError) -> E {
    E::custom(format!("{}: {}", e.kind, e.msg))
}

/// Deserializes a JSON body into `T`. Every error names the exact place in the body
/// (`["body","zones",0,"store_id"]`) and says what was expected; an empty body gives
/// `missing` at `["body"]`, a non-JSON body `value_error.jsondecode` at `["body"]`.
///
/// Bodies of this API are JSON objects: a top-level array is refused (`type_error.dict`).
/// serde stops at the first problem, so a body yields one error (query errors are still
/// reported alongside it by the `from_parts` functions).
pub fn from_json_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Vec<FieldError>> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(vec![FieldError::new(
            vec![Value::from("body")],
            kinds::MISSING,
            "field required: send a json object body",
        )]);
    }
    // serde lets a struct be read from an array of its fields; a body of this API is an object.
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        return Err(vec![FieldError::new(
            vec![Value::from("body")],
            kinds::DICT,
            "value is not a valid object: send a json object body, not an array",
        )]);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize::<_, T>(&mut de)
        .map_err(|e| vec![body_error(Some(e.path()), e.inner())])?;
    de.end().map_err(|e| vec![body_error(None, &e)])?;
    Ok(value)
}

/// Turns a serde error at `path` (the body itself when `None`) into a [`FieldError`].
fn body_error(path: Option<&serde_path_to_error::Path>, inner: &serde_json::Error) -> FieldError {
    let mut loc = vec![Value::from("body")];
    for segment in path.into_iter().flat_map(serde_path_to_error::Path::iter) {
        match segment {
            serde_path_to_error::Segment::Seq { index } => loc.push(Value::from(*index)),
            serde_path_to_error::Segment::Map { key } => loc.push(Value::from(key.as_str())),
            serde_path_to_error::Segment::Enum { variant } => {
                loc.push(Value::from(variant.as_str()));
            }
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    let full = inner.to_string();
    if !inner.is_data() {
        return FieldError::new(
            vec![Value::from("body")],
            kinds::JSON_DECODE,
            format!("body is not valid json: {full}"),
        );
    }
    let message = match full.rfind(" at line ") {
        Some(i) => &full[..i],
        None => full.as_str(),
    };
    let (kind, msg) = classify(message, &mut loc);
    FieldError::new(loc, kind, msg)
}

/// The kind and message of a serde data error message; may extend `loc` with the field name.
fn classify(message: &str, loc: &mut Vec<Value>) -> (&'static str, String) {
    if let Some((kind, msg)) = message.split_once(": ")
        && let Some(k) = kinds::ALL.iter().find(|k| **k == kind)
    {
        return (k, msg.to_owned());
    }
    if let Some(name) = between_backticks(message, "missing field `") {
        push_field(loc, &name);
        return (
            kinds::MISSING,
            format!("field required: add `{name}` to the body"),
        );
    }
    if let Some(name) = between_backticks(message, "unknown field `") {
        push_field(loc, &name);
        let expected = message
            .split_once("`, ")
            .map(|(_, rest)| rest)
            .unwrap_or("there are no fields");
        return (
            kinds::EXTRA,
            format!("extra field not permitted: remove `{name}` ({expected})"),
        );
    }
    if let Some(rest) = message.strip_prefix("unknown variant ") {
        return (
            kinds::ENUM,
            format!("value is not a valid enumeration member: got {rest}"),
        );
    }
    if let Some(rest) = message.strip_prefix("invalid type: ") {
        let (got, expected) = rest.split_once(", expected ").unwrap_or((rest, ""));
        let (kind, what) = expected_kind(expected);
        let msg = match what {
            Some(what) => format!("value is not a valid {what}: got {got}"),
            None => format!("invalid type: got {got}, expected {expected}"),
        };
        return (kind, msg);
    }
    if let Some(rest) = message.strip_prefix("invalid length ") {
        return (kinds::VALUE, format!("invalid length: got {rest}"));
    }
    (kinds::VALUE, message.to_owned())
}

/// The kind and the human word of what serde expected (`u32` -> integer, `f64` -> number...).
fn expected_kind(expected: &str) -> (&'static str, Option<&'static str>) {
    const INTEGERS: &[&str] = &[
        "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128", "usize", "isize",
    ];
    if INTEGERS.contains(&expected) || expected.contains("integer") {
        (kinds::INTEGER, Some("integer"))
    } else if expected == "f64" || expected == "f32" || expected.contains("number") {
        (kinds::FLOAT, Some("number"))
    } else if expected.contains("boolean") {
        (kinds::BOOL, Some("boolean"))
    } else if expected.contains("string") {
        (kinds::STR, Some("string"))
    } else if expected.contains("sequence") || expected.contains("array") {
        (kinds::LIST, Some("list"))
    } else if expected.contains("struct") || expected.contains("map") || expected.contains("object")
    {
        (kinds::DICT, Some("object"))
    } else {
        (kinds::VALUE, None)
    }
}

fn between_backticks(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?;
    let end = rest.find('`')?;
    Some(rest[..end].to_owned())
}

fn push_field(loc: &mut Vec<Value>, name: &str) {
    if loc.last().and_then(Value::as_str) != Some(name) {
        loc.push(Value::from(name));
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
    use crate::api::vocab::TravelMode;
    use serde_json::json;

    #[test]
    fn reader_collects_every_problem() {
        let p = pairs([
            ("origin", "95,2"),
            ("mode", "car"),
            ("radius", "ten"),
            ("alternatives", "maybe"),
            ("types", "a|b"),
            ("types", "c"),
            ("zoom", "1"),
            ("zoom", "2"),
            ("key", "k1"),
            ("private_key", "k2"),
        ]);
        let mut q = QueryReader::new(&p);
        let origin = q.required_latlng("origin");
        let destination = q.required_latlng("destination");
        let mode = q.enum_or("mode", TravelMode::Driving);
        let radius: u32 = q.int_or("radius", 5);
        let alt = q.bool_or("alternatives", false);
        let types = q.pipe_list("types");
        assert_eq!(origin, LatLng::default());
        assert_eq!(destination, LatLng::default());
        assert_eq!(mode, TravelMode::Driving);
        assert_eq!(radius, 5);
        assert!(!alt);
        assert_eq!(types, None);
        let errors = q.finish().unwrap_err();
        let got: Vec<(Value, &str)> = errors
            .iter()
            .map(|e| (Value::Array(e.loc.clone()), e.kind.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (json!(["query", "origin"]), kinds::COORDINATES),
                (json!(["query", "destination"]), kinds::MISSING),
                (json!(["query", "mode"]), kinds::ENUM),
                (json!(["query", "radius"]), kinds::INTEGER),
                (json!(["query", "alternatives"]), kinds::BOOL),
                (json!(["query", "types"]), kinds::VALUE),
                (json!(["query", "zoom"]), kinds::EXTRA),
            ]
        );
        assert!(errors[1].msg.contains("`lat,lng`"));
        assert!(errors[5].msg.contains("given 2 times"), "{}", errors[5].msg);
        assert!(
            errors[6].msg.contains("`origin`") && errors[6].msg.contains("`types`"),
            "{}",
            errors[6].msg
        );
    }

    #[test]
    fn reader_accepts_credentials_and_defaults() {
        let p = pairs([("key", "a"), ("key", "b"), ("private_key", "c")]);
        let mut q = QueryReader::new(&p);
        assert_eq!(q.opt_str("language"), None);
        assert!(!q.has_errors());
        assert!(q.finish().is_ok());
        let none: Vec<(String, String)> = Vec::new();
        let q = QueryReader::new(&none);
        assert!(q.finish().is_ok());
    }

    #[test]
    fn repeated_required_is_not_also_missing() {
        let p = pairs([("origin", "1,2"), ("origin", "3,4")]);
        let mut q = QueryReader::new(&p);
        let _ = q.required_latlng("origin");
        let errors = q.finish().unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].kind, kinds::VALUE);
    }

    #[test]
    fn unknown_on_endpoint_without_parameters() {
        let p = pairs([("foo", "1"), ("foo", "2")]);
        let q = QueryReader::new(&p);
        let errors = q.finish().unwrap_err();
        assert_eq!(
            errors.len(),
            1,
            "an unknown repeated parameter is reported once"
        );
        assert_eq!(errors[0].loc, vec![json!("query"), json!("foo")]);
        assert!(errors[0].msg.contains("takes no parameter"));
    }

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

    #[test]
    fn path_parameters() {
        let none: Vec<(String, String)> = Vec::new();
        let mut q = QueryReader::new(&none);
        assert_eq!(q.path(&["abc".to_owned()], 0, "dataset_id"), "abc");
        assert_eq!(q.path(&["abc".to_owned()], 1, "feature_id"), "");
        let errors = q.finish().unwrap_err();
        assert_eq!(errors[0].loc, vec![json!("path"), json!("feature_id")]);
        assert_eq!(errors[0].kind, kinds::MISSING);
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Body {
        name: String,
        items: Vec<Item>,
        #[serde(default)]
        mode: Option<TravelMode>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Item {
        count: u32,
        flag: Option<bool>,
    }

    fn body_err(s: &str) -> FieldError {
        let mut e = from_json_body::<Body>(s.as_bytes()).unwrap_err();
        assert_eq!(e.len(), 1);
        e.remove(0)
    }

    #[test]
    fn json_body_ok() {
        let b: Body = from_json_body(br#"{"name":"x","items":[{"count":1}]}"#).unwrap();
        assert_eq!(b.items[0].count, 1);
    }

    #[test]
    fn json_body_errors_name_the_path() {
        let e = body_err("");
        assert_eq!(
            (e.loc, e.kind.as_str()),
            (vec![json!("body")], kinds::MISSING)
        );
        let e = body_err("  \n");
        assert_eq!(e.kind, kinds::MISSING);
        let e = body_err("{not json");
        assert_eq!(
            (e.loc.clone(), e.kind.as_str()),
            (vec![json!("body")], kinds::JSON_DECODE)
        );
        assert!(e.msg.starts_with("body is not valid json: "), "{}", e.msg);
        assert!(e.is_json_decode());
        let e = body_err(r#"{"name":"x","items":[]} trailing"#);
        assert_eq!(e.kind, kinds::JSON_DECODE);

        let e = body_err(r#"{"items":[]}"#);
        assert_eq!(e.loc, vec![json!("body"), json!("name")]);
        assert_eq!(e.kind, kinds::MISSING);
        assert_eq!(e.msg, "field required: add `name` to the body");

        let e = body_err(r#"{"name":"x","items":[{"count":1},{"count":"two"}]}"#);
        assert_eq!(
            e.loc,
            vec![json!("body"), json!("items"), json!(1), json!("count")]
        );
        assert_eq!(e.kind, kinds::INTEGER);
        assert_eq!(e.msg, "value is not a valid integer: got string \"two\"");

        let e = body_err(r#"{"name":"x","items":[{"count":1,"flag":"y"}]}"#);
        assert_eq!(
            e.loc,
            vec![json!("body"), json!("items"), json!(0), json!("flag")]
        );
        assert_eq!(e.kind, kinds::BOOL);

        let e = body_err(r#"{"name":"x","items":[{"count":1}],"zoom":1}"#);
        assert_eq!(e.loc, vec![json!("body"), json!("zoom")]);
        assert_eq!(e.kind, kinds::EXTRA);
        assert!(e.msg.contains("remove `zoom`"), "{}", e.msg);
        assert!(e.msg.contains("`items`"), "{}", e.msg);

        let e = body_err(r#"{"name":"x","items":[{"count":1,"nope":true}]}"#);
        assert_eq!(
            e.loc,
            vec![json!("body"), json!("items"), json!(0), json!("nope")]
        );

        let e = body_err(r#"{"name":"x","items":[],"mode":"car"}"#);
        assert_eq!(e.loc, vec![json!("body"), json!("mode")]);
        assert_eq!(e.kind, kinds::ENUM);
        assert!(e.msg.contains("`driving`"), "{}", e.msg);

        let e = body_err(r#"{"name":5,"items":[]}"#);
        assert_eq!(e.kind, kinds::STR);
        let e = body_err(r#"{"name":"x","items":{}}"#);
        assert_eq!(e.kind, kinds::LIST);
        let e = body_err(r#"[1]"#);
        assert_eq!((e.loc, e.kind.as_str()), (vec![json!("body")], kinds::DICT));
        let e = body_err(r#"{"name":"x","items":[{"count":-1}]}"#);
        assert_eq!(e.kind, kinds::VALUE);
    }
}
