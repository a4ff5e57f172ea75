//! The request-level property harness: strategies that make arbitrary requests for
//! any endpoint of the table — query pairs named after the endpoint's own parameters (and a
//! few others), path segments, input headers and JSON bodies, mostly nearly valid — and the
//! check that an error names what it refuses. Used by `tests/tests/properties.rs` through the
//! request parsers and over real HTTP; a new endpoint joins it by being a row of the table.
use proptest::prelude::*;
use serde_json::{Map, Value};
use waymark_core::api::{DescribeRequest, ParamIn};
use waymark_core::endpoint::{Endpoint, Method};
use waymark_core::operation::{Operation, OperationVisitor};

/// One parameter of an endpoint: name and where it is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// Name on the wire.
    pub name: String,
    /// Query, header or path.
    pub location: ParamIn,
}

/// The parameters of `endpoint`, from its request type's description (the same field list
/// the parser is derived from).
pub fn params(endpoint: Endpoint) -> Vec<Param> {
    struct Params;
    impl OperationVisitor for Params {
        type Output = Vec<Param>;
        fn visit<R: Operation>(self) -> Vec<Param> {
            <R as DescribeRequest>::parameters()
                .into_iter()
                .map(|p| Param {
                    name: p.name.to_string(),
                    location: p.location,
                })
                .collect()
        }
    }
    endpoint.visit(Params)
}

/// Whether `endpoint` reads a JSON body.
pub fn has_body(endpoint: Endpoint) -> bool {
    matches!(endpoint.method(), Method::Post | Method::Put)
}

/// The operations of the table (not the rate buckets of their own).
pub fn operations() -> Vec<Endpoint> {
    Endpoint::ALL
        .iter()
        .copied()
        .filter(|e| !e.is_bucket())
        .collect()
}

/// Pieces the query formats are made of: joined at random they give many nearly valid values
/// (coordinates, `lat,lng,level`, `|` lists, `optimize:true`, avoid polygons, components,
/// custom descriptions, timestamps, query languages, WKT, three-word input).
pub const PIECES: &[&str] = &[
    "42.5063",
    "1.5218",
    "42.51,1.52",
    "48.1003,11.5001",
    ",0",
    ",1",
    "-90",
    "90.5",
    "-181",
    "0",
    "-0",
    "1e3",
    "1e999",
    "NaN",
    "inf",
    "99999999999999999999",
    "-1",
    "3",
    "10",
    "300",
    "65536",
    ",",
    "|",
    ";",
    ":",
    ".",
    " ",
    "optimize:true",
    "optimize:false",
    "tolls",
    "highways",
    "ferries",
    "country:ad",
    "postal_code:",
    "locality:\"{name}\"",
    "\"",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "\\",
    "%",
    "now",
    "true",
    "false",
    "car",
    "walking",
    "full",
    "geojson",
    "en",
    "ca",
    "fr-CH;q=0.5",
    "type:pharmacy",
    " AND ",
    " OR ",
    "NOT ",
    "name = 'x'",
    "POINT(1.52 42.5)",
    "POLYGON((",
    "1.5 42.5,1.6 42.5,1.6 42.6,1.5 42.5",
    "))",
    "tossed.ousting.we",
    "///",
    "imdf-venue-1",
    "_p~iF~ps|U",
    "~~~~~~~~~~~~~",
    "é",
    "北京",
    "\u{301}",
    "\u{0}",
    "\u{feff}",
];

/// A value of a query parameter, header or path segment.
pub fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::collection::vec(prop::sample::select(PIECES), 0..10).prop_map(|v| v.concat()),
        1 => "\\PC{0,40}",
        1 => (-95.0f64..95.0, -185.0f64..185.0).prop_map(|(a, b)| format!("{a},{b}")),
        1 => any::<i64>().prop_map(|n| n.to_string()),
    ]
}

/// Names that are no parameter of any endpoint (credentials are the callers' business).
const OTHER_NAMES: &[&str] = &["zoom", "", "Location", "q[]", "é"];

/// Query pairs for an endpoint whose query parameters are `names`: each a name of the
/// endpoint (sometimes repeated) or another one, with a [`value`].
pub fn pairs(names: Vec<String>) -> impl Strategy<Value = Vec<(String, String)>> {
    let mut all = names;
    all.extend(OTHER_NAMES.iter().map(|s| s.to_string()));
    prop::collection::vec((prop::sample::select(all), value()), 0..7)
}

/// JSON object keys that the bodies of the table read, and a few others.
const BODY_KEYS: &[&str] = &[
    "origins",
    "destinations",
    "mode",
    "lat",
    "lng",
    "zones",
    "zone_id",
    "store_id",
    "polygon",
    "description",
    "types",
    "status",
    "name",
    "url",
    "filter",
    "geometry",
    "type",
    "coordinates",
    "buffer",
    "scheduled_for_deletion_after",
    "extra",
];

/// A JSON value, often shaped like the table's bodies.
pub fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-200.0f64..200.0).prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::from)),
        value().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec((prop::sample::select(BODY_KEYS), inner), 0..6).prop_map(|kv| {
                Value::Object(
                    kv.into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect::<Map<String, Value>>(),
                )
            }),
        ]
    })
}

/// A request body: JSON (mostly an object), or arbitrary bytes.
pub fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => json().prop_map(|v| v.to_string().into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..40),
        1 => Just(Vec::new()),
    ]
}

/// An arbitrary request for one endpoint of the table.
#[derive(Debug, Clone)]
pub struct AnyRequest {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// Query pairs (decoded).
    pub pairs: Vec<(String, String)>,
    /// Path parameters in path order.
    pub path: Vec<String>,
    /// `Accept-Language`, when sent.
    pub accept_language: Option<String>,
    /// `X-Field-Mask`, when sent.
    pub field_mask: Option<String>,
    /// The body (empty for GET and DELETE).
    pub body: Vec<u8>,
}

/// An arbitrary request for any endpoint in `endpoints`.
pub fn any_request(endpoints: Vec<Endpoint>) -> impl Strategy<Value = AnyRequest> {
    prop::sample::select(endpoints).prop_flat_map(|endpoint| {
        let ps = params(endpoint);
        let query: Vec<String> = ps
            .iter()
            .filter(|p| p.location == ParamIn::Query)
            .map(|p| p.name.clone())
            .collect();
        let path_count = endpoint.path().matches('{').count();
        (
            Just(endpoint),
            pairs(query),
            prop::collection::vec(value(), path_count..=path_count),
            proptest::option::of(value()),
            proptest::option::of(value()),
            if has_body(endpoint) {
                body().boxed()
            } else {
                Just(Vec::new()).boxed()
            },
        )
            .prop_map(
                |(endpoint, pairs, path, accept_language, field_mask, body)| AnyRequest {
                    endpoint,
                    pairs,
                    path,
                    accept_language,
                    field_mask,
                    body,
                },
            )
    })
}

/// Checks that a 422 `detail` list names what it refuses: each item's `loc` starts with
/// `query`, `path`, `header` or `body`, a non-body item names a parameter of the endpoint or
/// one the request sent, and the message is not empty. Returns the problem, if any.
pub fn check_detail(
    endpoint: Endpoint,
    sent: &[(String, String)],
    detail: &Value,
) -> Result<(), String> {
    let items = detail
        .as_array()
        .ok_or_else(|| format!("`detail` is not a list: {detail}"))?;
    if items.is_empty() {
        return Err("an empty `detail` list".into());
    }
    let known = params(endpoint);
    for item in items {
        let loc = item["loc"]
            .as_array()
            .ok_or_else(|| format!("no `loc` in {item}"))?;
        let msg = item["msg"].as_str().unwrap_or_default();
        if msg.trim().is_empty() {
            return Err(format!("no message in {item}"));
        }
        let place = loc.first().and_then(Value::as_str).unwrap_or_default();
        if place == "body" {
            continue;
        }
        let name = loc
            .get(1)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("`loc` names no parameter: {item}"))?;
        let named = match place {
            "query" => {
                known
                    .iter()
                    .any(|p| p.location == ParamIn::Query && p.name == name)
                    || sent.iter().any(|(n, _)| n == name)
            }
            "path" => known
                .iter()
                .any(|p| p.location == ParamIn::Path && p.name == name),
            "header" => known
                .iter()
                .any(|p| p.location == ParamIn::Header && p.name.eq_ignore_ascii_case(name)),
            _ => false,
        };
        if !named {
            return Err(format!("`loc` names no parameter of {endpoint:?}: {item}"));
        }
    }
    Ok(())
}

/// A valid request of the golden cases (`tests/golden/parity/cases.json`): endpoint, query
/// pairs, path parameters.
pub type Seed = (Endpoint, Vec<(String, String)>, Vec<String>);

/// The golden cases as seeds.
pub fn golden_seeds() -> Vec<Seed> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/parity/cases.json");
    let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    cases
        .iter()
        .map(|c| {
            let (_, path) = c["endpoint"].as_str().unwrap().split_once(' ').unwrap();
            let (endpoint, params) = Endpoint::route(Method::Get, path).unwrap();
            let pairs = url::form_urlencoded::parse(c["query"].as_str().unwrap().as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            (endpoint, pairs, params)
        })
        .collect()
}

/// A valid request with some of its values replaced, one parameter dropped or one added: the
/// engine sees nearly valid requests, not only the parsers.
pub fn mutated(seeds: Vec<Seed>) -> impl Strategy<Value = AnyRequest> {
    prop::sample::select(seeds).prop_flat_map(|(endpoint, pairs, path)| {
        let n = pairs.len();
        (
            Just((endpoint, pairs, path)),
            prop::collection::vec(proptest::option::weighted(0.3, value()), n..=n),
            proptest::option::weighted(0.2, 0..n.max(1)),
            proptest::option::of((prop::sample::select(OTHER_NAMES), value())),
            proptest::option::weighted(0.1, prop::collection::vec(value(), 1..=1)),
            proptest::option::of(value()),
        )
            .prop_map(
                |((endpoint, pairs, path), replace, drop, add, new_path, accept_language)| {
                    let mut pairs: Vec<(String, String)> = pairs
                        .into_iter()
                        .zip(replace)
                        .map(|((k, v), r)| (k, r.unwrap_or(v)))
                        .collect();
                    if let Some(i) = drop.filter(|i| *i < pairs.len()) {
                        pairs.remove(i);
                    }
                    if let Some((k, v)) = add {
                        pairs.push((k.to_string(), v));
                    }
                    let path = match new_path {
                        Some(p) if !path.is_empty() => p,
                        _ => path,
                    };
                    AnyRequest {
                        endpoint,
                        pairs,
                        path,
                        accept_language,
                        field_mask: None,
                        body: Vec::new(),
                    }
                },
            )
    })
}
