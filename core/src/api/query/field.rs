//! How a field of a request type reads its query parameter: [`QueryField`] (how one value
//! parses, and how a missing one is described) and [`Presence`] (whether an absent parameter is
//! an error or `None`). The derive (`#[derive(FromQuery)]`) relies on both; see
//! [`QueryReader::field`](super::QueryReader::field).

use crate::api::common::LatLng;
#[cfg(doc)]
use crate::api::validation::IntValue;
use crate::api::validation::{
    FieldError, Loc, parse_bool, parse_enum, parse_f64, parse_int, parse_latlng, parse_pipe_list,
};
use crate::api::vocab::Vocabulary;

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
    /// The JSON Schema of one raw value, for the OpenAPI description of the parameter
    /// (a string unless the type says more).
    fn schema() -> serde_json::Value {
        serde_json::json!({"type": "string"})
    }
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
            fn schema() -> serde_json::Value {
                serde_json::json!({"type": "integer", "minimum": <$t>::MIN, "maximum": <$t>::MAX})
            }
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
    fn schema() -> serde_json::Value {
        serde_json::json!({"type": "number"})
    }
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
        parse_f64(loc, name, raw)
    }
}

impl QueryField for bool {
    type Value = Self;
    const FORM: &'static str = "`true` or `false`";
    fn schema() -> serde_json::Value {
        serde_json::json!({"type": "string", "enum": ["true", "false", "1", "0"]})
    }
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
        parse_bool(loc, name, raw)
    }
}

/// The form `parse_latlng` reads: two decimal numbers joined by `,` (white space around
/// either is trimmed); the ranges are checked after parsing.
pub const LATLNG_PATTERN: &str = r"^\s*[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\s*,\s*[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\s*$";

impl QueryField for LatLng {
    type Value = Self;
    const FORM: &'static str = "`lat,lng`";
    fn schema() -> serde_json::Value {
        serde_json::json!({
            "type": "string",
            "description": "`lat,lng` in decimal degrees (latitude -90 to 90, longitude -180 to 180)",
            "pattern": LATLNG_PATTERN,
            "examples": ["42.5078,1.5211"],
        })
    }
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
        parse_latlng(loc, name, raw)
    }
}

impl QueryField for Vec<String> {
    type Value = Self;
    const FORM: &'static str = "values joined by `|`";
    fn schema() -> serde_json::Value {
        serde_json::json!({"type": "string", "description": "values joined by `|`"})
    }
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
        parse_pipe_list(loc, name, raw)
    }
}

impl<T: Vocabulary> QueryField for T {
    type Value = Self;
    const FORM: &'static str = "one of the accepted values";
    fn schema() -> serde_json::Value {
        serde_json::json!({"type": "string", "enum": T::NAMES})
    }
    fn parse(loc: Loc, name: &str, raw: &str) -> Result<Self, FieldError> {
        parse_enum::<T>(loc, name, raw)
    }
}

impl<T: QueryField<Value = T>> QueryField for Option<T> {
    type Value = T;
    const FORM: &'static str = T::FORM;
    fn schema() -> serde_json::Value {
        T::schema()
    }
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
