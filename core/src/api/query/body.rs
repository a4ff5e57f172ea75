//! JSON bodies: [`from_json_body`] deserializes a body into its type and turns a serde error into
//! one [`FieldError`] that names the exact place in the body and what was expected.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::api::validation::{FieldError, kinds};

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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::api::vocab::TravelMode;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
    #[serde(deny_unknown_fields)]
    struct Body {
        name: String,
        items: Vec<Item>,
        #[serde(default)]
        mode: Option<TravelMode>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
