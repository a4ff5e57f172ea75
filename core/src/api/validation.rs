//! The 422 machinery: [`FieldError`] (one item of the `detail` list of a validation error), the
//! parsers of the string forms the spec uses in query parameters (`lat,lng`, `|`-lists, integers,
//! numbers, booleans, vocabulary values), and the [`Validate`] trait that checks the rules the
//! spec states on a request by itself.
//!
//! Errors follow the FastAPI shape: `loc` is where the bad input is (`["query","location"]`,
//! `["path","dataset_id"]`, `["header","accept-language"]`, `["body","zones",0,"polygon"]`),
//! `msg` a lowercase fragment saying what to fix, and `type` one of the [`kinds`].
//!
//! ```
//! use waymark_core::api::{parse_latlng, FieldError, Loc};
//!
//! let p = parse_latlng(Loc::Query, "location", " 48.85,2.35 ").unwrap();
//! assert_eq!((p.lat, p.lng), (48.85, 2.35));
//!
//! let err: FieldError = parse_latlng(Loc::Query, "location", "95,2").unwrap_err();
//! assert_eq!(err.loc, vec![serde_json::json!("query"), serde_json::json!("location")]);
//! assert_eq!(err.kind, "value_error.coordinates");
//! assert_eq!(err.msg, "latitude must be between -90 and 90, got 95");
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::{JsonObject, LatLng};
use super::vocab::{Vocabulary, list_names};

/// The `type` strings of [`FieldError`].
pub mod kinds {
    /// A required parameter, header, path segment or body field is absent.
    pub const MISSING: &str = "missing";
    /// Not an integer.
    pub const INTEGER: &str = "type_error.integer";
    /// Not a (finite) number.
    pub const FLOAT: &str = "type_error.float";
    /// Not a boolean.
    pub const BOOL: &str = "type_error.bool";
    /// Not a string (JSON bodies).
    pub const STR: &str = "type_error.str";
    /// Not an array (JSON bodies).
    pub const LIST: &str = "type_error.list";
    /// Not an object (JSON bodies).
    pub const DICT: &str = "type_error.dict";
    /// A value of the right type that breaks a rule (range, format, exclusive parameters, ...).
    pub const VALUE: &str = "value_error";
    /// An unknown parameter or body field.
    pub const EXTRA: &str = "value_error.extra";
    /// A coordinate that does not parse or is out of range.
    pub const COORDINATES: &str = "value_error.coordinates";
    /// A value outside a vocabulary.
    pub const ENUM: &str = "value_error.enum";
    /// A body that is not JSON at all. The zones group answers it with 400 instead of 422.
    pub const JSON_DECODE: &str = "value_error.jsondecode";

    /// Every kind above.
    pub const ALL: &[&str] = &[
        MISSING,
        INTEGER,
        FLOAT,
        BOOL,
        STR,
        LIST,
        DICT,
        VALUE,
        EXTRA,
        COORDINATES,
        ENUM,
        JSON_DECODE,
    ];
}

/// Where an input comes from: the first element of `loc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
#[serde(rename_all = "lowercase")]
pub enum Loc {
    /// A query parameter.
    Query,
    /// A path segment (`dataset_id`, `venue_id`, `matrix_id`, `feature_id`).
    Path,
    /// A header (named in lowercase, e.g. `accept-language`).
    Header,
    /// The JSON body.
    Body,
}

impl Loc {
    /// `query`, `path`, `header` or `body`.
    pub const fn as_str(&self) -> &'static str {
        match self {
            Self::Query => "query",
            Self::Path => "path",
            Self::Header => "header",
            Self::Body => "body",
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One item of the `detail` list of a 422 answer: `{loc, msg, type}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct FieldError {
    /// Path of the bad input: `["query","location"]`, `["body","zones",0,"polygon"]`, ...
    pub loc: Vec<Value>,
    /// Lowercase fragment saying what is wrong and how to fix it.
    pub msg: String,
    /// One of [`kinds`] (`missing`, `type_error.integer`, `value_error.enum`, ...).
    #[serde(rename = "type")]
    pub kind: String,
}

impl FieldError {
    /// An error at an explicit `loc`.
    pub fn new(loc: Vec<Value>, kind: &str, msg: impl Into<String>) -> Self {
        Self {
            loc,
            msg: msg.into(),
            kind: kind.to_owned(),
        }
    }

    /// An error on input `name` of `loc` (`loc` = `[loc, name]`).
    pub fn invalid(loc: Loc, name: &str, kind: &str, msg: impl Into<String>) -> Self {
        Self::new(vec![loc.as_str().into(), name.into()], kind, msg)
    }

    /// An error at `[loc, path...]`, for nested body fields (`["body","zones",0,"store_id"]`).
    pub fn at(loc: Loc, path: Vec<Value>, kind: &str, msg: impl Into<String>) -> Self {
        let mut full = Vec::with_capacity(path.len() + 1);
        full.push(Value::from(loc.as_str()));
        full.extend(path);
        Self::new(full, kind, msg)
    }

    /// A required input `name` is absent: `field required: give `name``.
    pub fn missing(loc: Loc, name: &str) -> Self {
        Self::invalid(
            loc,
            name,
            kinds::MISSING,
            format!("field required: give `{name}`"),
        )
    }

    /// A required input is absent, with a hint of its form:
    /// `field required: give `location` as `lat,lng``.
    pub fn missing_as(loc: Loc, name: &str, form: &str) -> Self {
        Self::invalid(
            loc,
            name,
            kinds::MISSING,
            format!("field required: give `{name}` as {form}"),
        )
    }

    /// The same error with `loc` replaced.
    pub fn with_loc(mut self, loc: Vec<Value>) -> Self {
        self.loc = loc;
        self
    }

    /// Whether this error says the body is not JSON at all (the zones group answers 400).
    pub fn is_json_decode(&self) -> bool {
        self.kind == kinds::JSON_DECODE
    }

    /// Whether the error says the body as a whole is not JSON: empty or undecodable.
    pub fn is_body_not_json(&self) -> bool {
        self.loc == [Value::from("body")]
            && (self.kind == kinds::JSON_DECODE || self.kind == kinds::MISSING)
    }
}

impl fmt::Display for FieldError {
    /// `query.location: latitude must be between -90 and 90, got 95 (value_error.coordinates)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loc: Vec<String> = self
            .loc
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        write!(f, "{}: {} ({})", loc.join("."), self.msg, self.kind)
    }
}

impl std::error::Error for FieldError {}

/// The body of a 422 answer: `{detail: [FieldError]}`; the indoor group adds a required
/// `context` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ValidationErrorBody {
    /// Every problem found.
    pub detail: Vec<FieldError>,
    /// Indoor only (required there): free-form context of the failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<JsonObject>,
}

/// The rules the spec states on a request by itself (ranges, exclusive parameters, formats),
/// checked the same way whichever face built the request: the `Engine` calls it once, after
/// authorization, for requests parsed from HTTP and built by the FFI alike (the parsers of
/// [`crate::api::query`] do not).
///
/// Checks that need data (does this dataset exist? is this place type known for this
/// endpoint?) are not validation: the engine does them.
pub trait Validate {
    /// Every broken rule, or `Ok(())`.
    fn validate(&self) -> Result<(), Vec<FieldError>>;

    /// The rules of [`Validate::validate`] (and of the parsers) on one parameter that a JSON
    /// Schema can state (`minimum`, `exclusiveMinimum`, `maximum`, `minLength`, `pattern`,
    /// `enum`), by parameter name. `/openapi.json` adds them to the parameters' schemas, so that
    /// a client learns them before it calls; rules across parameters stay in the descriptions.
    fn constraints() -> Vec<(&'static str, Value)>
    where
        Self: Sized,
    {
        Vec::new()
    }
}

/// JSON Schema keywords of the rules, for [`Validate::constraints`].
pub mod rule {
    use serde_json::{Value, json};

    /// An ISO 639-1 language or ISO 3166-1 alpha-2 country code: two ASCII letters.
    pub const TWO_LETTERS: &str = "^[A-Za-z]{2}$";

    /// At least `min`.
    pub fn min(min: i64) -> Value {
        json!({"minimum": min})
    }

    /// `min` to `max`, both included.
    pub fn range(min: f64, max: f64) -> Value {
        json!({"minimum": min, "maximum": max})
    }

    /// `min` to `max` (integers), both included.
    pub fn int_range(min: i64, max: i64) -> Value {
        json!({"minimum": min, "maximum": max})
    }

    /// Above zero.
    pub fn positive() -> Value {
        json!({"exclusiveMinimum": 0})
    }

    /// A value that is not empty nor only white space.
    pub fn not_blank() -> Value {
        json!({"minLength": 1, "pattern": "\\S"})
    }

    /// Two ASCII letters.
    pub fn two_letters() -> Value {
        json!({"pattern": TWO_LETTERS})
    }

    /// A list joined by `sep` of items that are not blank.
    pub fn list(sep: char) -> Value {
        let sep = regex_escape(sep);
        json!({"minLength": 1, "pattern": format!("^\\s*[^{sep}\\s][^{sep}]*(?:{sep}\\s*[^{sep}\\s][^{sep}]*)*$")})
    }

    /// A list of two-letter codes joined by `,`.
    pub fn country_list() -> Value {
        json!({"pattern": "^\\s*[A-Za-z]{2}\\s*(?:,\\s*[A-Za-z]{2}\\s*)*$"})
    }

    /// A unix timestamp in seconds, not negative, or `now`.
    pub fn traffic_time() -> Value {
        json!({"pattern": "^(?:now|[0-9]+)$"})
    }

    /// Matches `pattern`.
    pub fn pattern(pattern: &str) -> Value {
        json!({"pattern": pattern})
    }

    /// A header value listing items joined by `,`: items without white space, no white space
    /// at either end (HTTP trims it).
    pub fn header_list() -> Value {
        json!({"minLength": 1, "pattern": "^[^,\\s]+(?:\\s*,\\s*[^,\\s]+)*$"})
    }

    /// One of `values`.
    pub fn one_of(values: &[&str]) -> Value {
        json!({"enum": values})
    }

    fn regex_escape(c: char) -> String {
        if "|.*+?()[]{}^$\\".contains(c) {
            format!("\\{c}")
        } else {
            c.to_string()
        }
    }
}

/// Collects [`FieldError`]s of [`Validate`] implementations.
#[derive(Debug, Default)]
pub(crate) struct Checks {
    errors: Vec<FieldError>,
}

impl Checks {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Records `err` unless `ok`.
    pub(crate) fn check(&mut self, ok: bool, err: impl FnOnce() -> FieldError) {
        if !ok {
            self.errors.push(err());
        }
    }

    /// Records the error of `result`, if any.
    pub(crate) fn result(&mut self, result: Result<(), FieldError>) {
        if let Err(e) = result {
            self.errors.push(e);
        }
    }

    /// Checks the range of a coordinate given as input `name` of `loc`.
    pub(crate) fn latlng(&mut self, loc: Loc, name: &str, p: &LatLng) {
        self.result(check_latlng(loc, name, p));
    }

    /// `Ok(())` when nothing was recorded.
    pub(crate) fn finish(self) -> Result<(), Vec<FieldError>> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(self.errors)
        }
    }
}

/// The range check of [`LatLng::check`] as a [`FieldError`] on input `name` of `loc`.
pub fn check_latlng(loc: Loc, name: &str, p: &LatLng) -> Result<(), FieldError> {
    p.check()
        .map_err(|e| FieldError::invalid(loc, name, kinds::COORDINATES, e.to_string()))
}

/// Whether `s` is a two-letter lowercase-or-uppercase ASCII code (ISO 639-1 languages,
/// ISO 3166-1 alpha-2 countries).
pub(crate) fn is_alpha_code(s: &str, lengths: &[usize]) -> bool {
    lengths.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphabetic())
}

/// Quotes a value for a message, shortening long ones.
pub(crate) fn shown(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        format!("`{s}`")
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("`{head}...`")
    }
}

/// Parses a finite decimal number, the error message naming what was expected.
fn parse_finite(s: &str) -> Option<f64> {
    let t = s.trim();
    // Rust accepts `inf`, `nan` and `infinity`; only finite decimal numbers are coordinates.
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Parses `lat,lng` (decimal degrees, no space required; spaces around either number are
/// trimmed). Rejects other shapes, NaN and infinities, latitudes outside -90..=90 and longitudes
/// outside -180..=180, with `value_error.coordinates`.
pub fn parse_latlng(loc: Loc, name: &str, s: &str) -> Result<LatLng, FieldError> {
    let bad = |msg: String| FieldError::invalid(loc, name, kinds::COORDINATES, msg);
    let Some((lat, lng)) = s.trim().split_once(',') else {
        return Err(bad(format!(
            "value is not a valid coordinate: give `lat,lng` in decimal degrees, got {}",
            shown(s)
        )));
    };
    let (Some(lat), Some(lng)) = (parse_finite(lat), parse_finite(lng)) else {
        return Err(bad(format!(
            "value is not a valid coordinate: give `lat,lng` as two finite decimal numbers, got {}",
            shown(s)
        )));
    };
    let p = LatLng::new(lat, lng);
    p.check().map_err(|e| bad(e.to_string()))?;
    Ok(p)
}

/// Splits a `sep`-separated list; every item is trimmed and must be non-empty, and the list
/// must have at least one item.
pub fn parse_list(loc: Loc, name: &str, s: &str, sep: char) -> Result<Vec<String>, FieldError> {
    if s.trim().is_empty() {
        return Err(FieldError::invalid(
            loc,
            name,
            kinds::VALUE,
            format!("empty list: give at least one value, several joined by `{sep}`"),
        ));
    }
    let mut out = Vec::new();
    for (i, item) in s.split(sep).enumerate() {
        let item = item.trim();
        if item.is_empty() {
            return Err(FieldError::invalid(
                loc,
                name,
                kinds::VALUE,
                format!("empty item at position {}: remove the extra `{sep}`", i + 1),
            ));
        }
        out.push(item.to_owned());
    }
    Ok(out)
}

/// Parses a `,`-separated list of finite numbers (see [`parse_list`]).
pub fn parse_numbers(loc: Loc, name: &str, s: &str) -> Result<Vec<f64>, FieldError> {
    parse_list(loc, name, s, ',')?
        .iter()
        .map(|n| {
            n.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    FieldError::invalid(
                        loc,
                        name,
                        kinds::FLOAT,
                        format!("value is not a valid number: got {}", shown(n)),
                    )
                })
        })
        .collect()
}

/// Splits a `|`-separated list (see [`parse_list`]).
pub fn parse_pipe_list(loc: Loc, name: &str, s: &str) -> Result<Vec<String>, FieldError> {
    parse_list(loc, name, s, '|')
}

/// Parses a list of `lat,lng` joined by `sep` (`|` in the spec); the message of a bad item
/// names its position (1-based).
pub fn parse_latlng_list(
    loc: Loc,
    name: &str,
    s: &str,
    sep: char,
) -> Result<Vec<LatLng>, FieldError> {
    let items = parse_list(loc, name, s, sep)?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            parse_latlng(loc, name, item).map_err(|mut e| {
                e.msg = format!("point {}: {}", i + 1, e.msg);
                e
            })
        })
        .collect()
}

/// Integer types the parsers accept.
pub trait IntValue: Copy + fmt::Display + std::str::FromStr + 'static {
    /// Smallest value.
    const MIN: Self;
    /// Largest value.
    const MAX: Self;
}

macro_rules! int_value {
    ($($t:ty),+) => {
        $(impl IntValue for $t {
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
        })+
    };
}
int_value!(u8, u16, u32, u64, i32, i64);

/// Parses an integer (decimal digits with an optional sign). A non-integer gives
/// `type_error.integer`; an integer outside the range of `T` gives `value_error` naming it.
pub fn parse_int<T: IntValue>(loc: Loc, name: &str, s: &str) -> Result<T, FieldError> {
    let t = s.trim();
    if let Ok(v) = t.parse::<T>() {
        return Ok(v);
    }
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(FieldError::invalid(
            loc,
            name,
            kinds::VALUE,
            format!(
                "integer out of range: give a value between {} and {}, got {}",
                T::MIN,
                T::MAX,
                shown(s)
            ),
        ));
    }
    Err(FieldError::invalid(
        loc,
        name,
        kinds::INTEGER,
        format!("value is not a valid integer: got {}", shown(s)),
    ))
}

/// Parses a finite decimal number (`type_error.float` otherwise).
pub fn parse_f64(loc: Loc, name: &str, s: &str) -> Result<f64, FieldError> {
    parse_finite(s).ok_or_else(|| {
        FieldError::invalid(
            loc,
            name,
            kinds::FLOAT,
            format!(
                "value is not a valid number: give a finite decimal number, got {}",
                shown(s)
            ),
        )
    })
}

/// Parses a boolean: `true`/`false` (any case) or `1`/`0` (`type_error.bool` otherwise).
pub fn parse_bool(loc: Loc, name: &str, s: &str) -> Result<bool, FieldError> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("true") || t == "1" {
        Ok(true)
    } else if t.eq_ignore_ascii_case("false") || t == "0" {
        Ok(false)
    } else {
        Err(FieldError::invalid(
            loc,
            name,
            kinds::BOOL,
            format!(
                "value is not a valid boolean: give `true`, `false`, `1` or `0`, got {}",
                shown(s)
            ),
        ))
    }
}

/// Parses a vocabulary value (`value_error.enum` listing the accepted values otherwise).
pub fn parse_enum<T: Vocabulary>(loc: Loc, name: &str, s: &str) -> Result<T, FieldError> {
    s.trim().parse::<T>().map_err(|_| {
        FieldError::invalid(
            loc,
            name,
            kinds::ENUM,
            format!(
                "value is not a valid {}: expected one of {}, got {}",
                T::LABEL,
                list_names(T::NAMES),
                shown(s)
            ),
        )
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::vocab::TravelMode;
    use serde_json::json;

    #[test]
    fn field_error_serializes_like_fastapi() {
        let e = FieldError::missing_as(Loc::Query, "location", "`lat,lng`");
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({
                "loc": ["query", "location"],
                "msg": "field required: give `location` as `lat,lng`",
                "type": "missing"
            })
        );
        let nested = FieldError::at(
            Loc::Body,
            vec![json!("zones"), json!(0), json!("polygon")],
            kinds::VALUE,
            "x",
        );
        assert_eq!(
            nested.loc,
            vec![json!("body"), json!("zones"), json!(0), json!("polygon")]
        );
        assert_eq!(nested.to_string(), "body.zones.0.polygon: x (value_error)");
        let body = ValidationErrorBody {
            detail: vec![e.clone()],
            context: None,
        };
        let v = serde_json::to_value(&body).unwrap();
        assert_eq!(v["detail"][0]["type"], json!("missing"));
        assert!(v.get("context").is_none());
        let back: ValidationErrorBody = serde_json::from_value(v).unwrap();
        assert_eq!(back, body);
    }

    #[test]
    fn latlng_parsing() {
        let p = parse_latlng(Loc::Query, "origin", "-33.5,151.25").unwrap();
        assert_eq!(p, LatLng::new(-33.5, 151.25));
        assert_eq!(
            parse_latlng(Loc::Query, "origin", " 1 , 2 ").unwrap(),
            LatLng::new(1.0, 2.0)
        );
        for bad in ["", "1", "1,2,3", "a,b", "NaN,1", "inf,2", "1;2", "1,"] {
            let e = parse_latlng(Loc::Query, "origin", bad).unwrap_err();
            assert_eq!(e.kind, kinds::COORDINATES, "{bad}");
            assert_eq!(e.loc, vec![json!("query"), json!("origin")]);
        }
        let e = parse_latlng(Loc::Query, "origin", "10,-180.5").unwrap_err();
        assert_eq!(e.msg, "longitude must be between -180 and 180, got -180.5");
        let e = parse_latlng(Loc::Query, "origin", "-91,0").unwrap_err();
        assert!(e.msg.contains("between -90 and 90"), "{}", e.msg);
    }

    #[test]
    fn lists() {
        assert_eq!(
            parse_pipe_list(Loc::Query, "types", "a| b |c").unwrap(),
            ["a", "b", "c"]
        );
        let e = parse_pipe_list(Loc::Query, "types", "a||c").unwrap_err();
        assert_eq!(e.kind, kinds::VALUE);
        assert!(e.msg.contains("position 2"), "{}", e.msg);
        assert!(parse_pipe_list(Loc::Query, "types", "").is_err());
        let pts = parse_latlng_list(Loc::Body, "origins", "1,2|3,4", '|').unwrap();
        assert_eq!(pts, [LatLng::new(1.0, 2.0), LatLng::new(3.0, 4.0)]);
        let e = parse_latlng_list(Loc::Body, "origins", "1,2|300,4", '|').unwrap_err();
        assert!(e.msg.starts_with("point 2: latitude"), "{}", e.msg);
        assert_eq!(e.loc, vec![json!("body"), json!("origins")]);
    }

    #[test]
    fn scalars() {
        assert_eq!(parse_int::<u32>(Loc::Query, "radius", "25").unwrap(), 25);
        let e = parse_int::<u32>(Loc::Query, "radius", "2.5").unwrap_err();
        assert_eq!(e.kind, kinds::INTEGER);
        let e = parse_int::<u32>(Loc::Query, "radius", "-1").unwrap_err();
        assert_eq!(e.kind, kinds::VALUE);
        assert!(e.msg.contains("between 0 and 4294967295"), "{}", e.msg);
        assert_eq!(parse_int::<i64>(Loc::Query, "t", "-7").unwrap(), -7);
        assert!(parse_int::<u32>(Loc::Query, "radius", "").is_err());
        assert_eq!(parse_f64(Loc::Query, "value", "1.5").unwrap(), 1.5);
        assert_eq!(
            parse_f64(Loc::Query, "value", "x").unwrap_err().kind,
            kinds::FLOAT
        );
        assert_eq!(
            parse_f64(Loc::Query, "value", "nan").unwrap_err().kind,
            kinds::FLOAT
        );
        for (s, b) in [
            ("true", true),
            ("TRUE", true),
            ("1", true),
            ("false", false),
            ("0", false),
        ] {
            assert_eq!(parse_bool(Loc::Query, "alternatives", s).unwrap(), b);
        }
        let e = parse_bool(Loc::Query, "alternatives", "yes").unwrap_err();
        assert_eq!(e.kind, kinds::BOOL);
        assert_eq!(
            parse_enum::<TravelMode>(Loc::Query, "mode", "truck").unwrap(),
            TravelMode::Truck
        );
        let e = parse_enum::<TravelMode>(Loc::Query, "mode", "car").unwrap_err();
        assert_eq!(e.kind, kinds::ENUM);
        assert_eq!(
            e.msg,
            "value is not a valid travel mode: expected one of `driving`, `walking`, `cycling`, `truck`, got `car`"
        );
    }

    #[test]
    fn shown_shortens() {
        let long = "x".repeat(100);
        assert_eq!(shown(&long).len(), 60 + 5);
        assert_eq!(shown("ab"), "`ab`");
    }
}
