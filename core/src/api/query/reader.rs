//! [`QueryReader`]: reads the parameters of a query string one by one, records every problem
//! instead of stopping at the first, and reports the unknown parameters at the end.

use super::{CREDENTIAL_PARAMS, Presence};
use crate::api::common::LatLng;
use crate::api::validation::{
    FieldError, IntValue, Loc, kinds, parse_bool, parse_enum, parse_f64, parse_int, parse_latlng,
    parse_pipe_list,
};
use crate::api::vocab::{Vocabulary, list_names};

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
        self.field(name, Some(form), parse)
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::common::LatLng;
    use crate::api::query::pairs;
    use crate::api::testing::assert_errors;
    use crate::api::vocab::TravelMode;
    use serde_json::Value;
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
    fn fields_by_type_and_default() {
        let p = pairs([("a", "1,2"), ("b", "x"), ("n", "7"), ("bad", "y")]);
        let mut q = QueryReader::new(&p);
        let a: LatLng = q.field("a", Some("`lat,lng`"), parse_latlng);
        let b: Option<String> = q.field("b", None, |_, _, s| Ok(s.to_owned()));
        let none: Option<u32> = q.field("none", Some("an integer"), parse_int::<u32>);
        let req: u32 = q.field("req", None, parse_int::<u32>);
        let n: u32 = q.field_or("n", parse_int::<u32>, || 5);
        let dflt: u32 = q.field_or("dflt", parse_int::<u32>, || 5);
        let bad: bool = q.field_or("bad", parse_bool, || true);
        let mask: Option<Vec<String>> = q.header(Some("id,,x"), "x-field-mask", |l, n, s| {
            crate::api::validation::parse_list(l, n, s, ',')
        });
        let absent: Option<String> = q.header(None, "accept-language", |_, _, s| Ok(s.to_owned()));
        assert_eq!(a, LatLng::new(1.0, 2.0));
        assert_eq!(b.as_deref(), Some("x"));
        assert_eq!((none, req, n, dflt, bad), (None, 0, 7, 5, true));
        assert_eq!((mask, absent), (None, None));
        let errors = q.finish().unwrap_err();
        assert_errors(
            &errors,
            &[
                (json!(["query", "req"]), kinds::MISSING),
                (json!(["query", "bad"]), kinds::BOOL),
                (json!(["header", "x-field-mask"]), kinds::VALUE),
            ],
        );
        assert_eq!(errors[0].msg, "field required: give `req`");
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
}
