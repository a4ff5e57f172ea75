//! What a request type says about its HTTP form, for the OpenAPI document: its parameters
//! (query, header, path) and its JSON body. `#[derive(FromQuery)]` writes the
//! [`DescribeRequest`] impl from the same field list as the parser, so the description cannot
//! drift from what the server reads.

/// Where a parameter is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamIn {
    /// The query string.
    Query,
    /// An input header.
    Header,
    /// A segment of the path.
    Path,
}

impl ParamIn {
    /// The OpenAPI name (`query`, `header`, `path`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Query => "query",
            Self::Header => "header",
            Self::Path => "path",
        }
    }
}

/// One parameter of a request.
#[derive(Debug, Clone, Copy)]
pub struct ParamDoc {
    /// The name on the wire (`origin`, `accept-language`, `matrix_id`).
    pub name: &'static str,
    /// Where it is read.
    pub location: ParamIn,
    /// Whether a request without it is refused.
    pub required: bool,
    /// The field's documentation.
    pub description: &'static str,
    /// The JSON Schema of one raw value.
    pub schema: fn() -> serde_json::Value,
}

/// The JSON Schema of a raw string value (headers, path segments, custom parsers).
pub fn string_schema() -> serde_json::Value {
    serde_json::json!({"type": "string"})
}

/// The JSON Schema of a raw number value (the parameters of a `read` field).
pub fn number_schema() -> serde_json::Value {
    serde_json::json!({"type": "number"})
}

/// The HTTP form of a request type, written by `#[derive(FromQuery)]`.
pub trait DescribeRequest {
    /// The parameters, in reading order (headers, path, query).
    fn parameters() -> Vec<ParamDoc>;

    /// The JSON Schema of the body, when the request has one.
    #[cfg(feature = "schema")]
    fn body_schema(generator: &mut schemars::SchemaGenerator) -> Option<schemars::Schema>;
}
