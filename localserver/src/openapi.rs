//! `GET /openapi.json`: an OpenAPI 3.1 description of every endpoint, generated from the
//! endpoint table of `waymark_core::endpoint` so it cannot drift from the routes.
use schemars::SchemaGenerator;
use schemars::generate::{Contract, SchemaSettings};
use serde_json::{Map, Value, json};
use waymark_core::api::ApiGroup;
use waymark_core::endpoint::{Endpoint, ErrorStyle, KeySet, Method, Reply};
use waymark_core::operation::{Operation, OperationVisitor};

fn security(set: KeySet) -> Value {
    match set {
        KeySet::K1 | KeySet::K2 => {
            json!([{"publicKey": []}, {"privateKey": []}, {"apiKeyHeader": []}])
        }
        KeySet::K3 => json!([{"privateKey": []}, {"apiKeyHeader": []}]),
        KeySet::ZonesUpdate => json!([{"privateKey": []}]),
        KeySet::StoresBounds => json!([{"publicKey": []}, {"privateKey": []}]),
    }
}

/// The body of an error answer of `status` in the endpoint's error style, as
/// `ApiError::to_http` writes it.
fn error_schema(style: ErrorStyle, status: u16) -> Value {
    let text = |name: &str| json!({"type": "object", "required": [name], "properties": {name: {"type": "string"}}});
    let mut schema = match (status, style) {
        (422, ErrorStyle::Indoor | ErrorStyle::IndoorDirections) => {
            json!({"$ref": "#/components/schemas/IndoorValidationError"})
        }
        (422, _) => json!({"$ref": "#/components/schemas/ValidationError"}),
        (400, ErrorStyle::Zones) => json!({
            "type": "object",
            "required": ["status", "value"],
            "properties": {"status": {"const": "error"}, "value": {"type": "string"}},
        }),
        (402 | 403, ErrorStyle::Indoor | ErrorStyle::IndoorDirections) => {
            // Empty, as the spec's indoor answers; a request refused before routing (a `Host`
            // that is not local) still says why.
            json!({"type": "object", "properties": {"detail": {"type": "string"}}})
        }
        (404, ErrorStyle::Datasets) => text("details"),
        (429, ErrorStyle::Datasets | ErrorStyle::Distance | ErrorStyle::Threewords) => {
            text("details")
        }
        _ => text("detail"),
    };
    if style == ErrorStyle::Distance {
        // Every distance error body names its status; a `$ref` is wrapped to add it.
        let status = json!({"type": "string", "enum": [
            "REQUEST_DENIED", "OVER_QUERY_LIMIT", "INVALID_REQUEST", "MAX_ELEMENTS_EXCEEDED",
            "BACKEND_ERROR"]});
        schema = json!({
            "allOf": [schema],
            "required": ["status"],
            "properties": {"status": status},
        });
    }
    schema
}

/// The error answers an operation can give, each with what it means.
fn error_statuses(ep: Endpoint) -> Vec<(u16, &'static str)> {
    let mut errors = Vec::new();
    let has_body = matches!(ep.method(), Method::Post | Method::Put);
    if has_body || ep.group() == ApiGroup::Packs || ep.error_style() == ErrorStyle::IndoorDirections
    {
        errors.push((
            400,
            match ep.error_style() {
                ErrorStyle::Zones => "the body is not JSON",
                ErrorStyle::IndoorDirections => "the venue cannot route this request",
                _ if ep.group() == ApiGroup::Packs => {
                    "the pack cannot be installed or removed as asked"
                }
                _ => "the request body cannot be read",
            },
        ));
    }
    errors.extend([
        (401, "no or wrong credentials"),
        (402, "free quota exhausted"),
        (
            403,
            "credentials do not match (restrictions, api not enabled, write permission), or the \
             request is not addressed to a local host",
        ),
        (
            404,
            "no such resource (a path id, a place, a job), or nothing in the installed data answers",
        ),
    ]);
    if has_body {
        errors.push((413, "the request body is too large"));
    }
    errors.extend([
        (
            422,
            "validation error: every problem, each naming its parameter",
        ),
        (
            429,
            "rate limit exceeded: `Retry-After` says when to try again",
        ),
        (501, "operation not available in this build"),
        (
            503,
            "the data this operation needs is not installed (no pack covers it)",
        ),
    ]);
    errors
}

/// The schema generators: request bodies are described as the server reads them, responses
/// as it writes them (a field it may omit is not `required`), each into its own definitions,
/// merged at the end by [`merge_definitions`].
struct Generators {
    requests: SchemaGenerator,
    responses: SchemaGenerator,
}

impl Generators {
    fn new() -> Self {
        let settings = |contract| {
            SchemaSettings::draft2020_12().with(|s| {
                s.definitions_path = "/components/schemas".into();
                s.meta_schema = None;
                s.contract = contract;
            })
        };
        Self {
            requests: settings(Contract::Deserialize).into_generator(),
            responses: settings(Contract::Serialize).into_generator(),
        }
    }
}

/// Describes one endpoint from its request and response types.
struct Describe<'a> {
    ep: Endpoint,
    generators: &'a mut Generators,
}

impl OperationVisitor for Describe<'_> {
    type Output = Value;

    fn visit<R: Operation>(self) -> Value {
        let ep = self.ep;
        let constraints = R::constraints();
        let parameters: Vec<Value> = R::parameters()
            .into_iter()
            .map(|p| {
                let mut schema = (p.schema)();
                for (_, rule) in constraints.iter().filter(|(name, _)| *name == p.name) {
                    if let (Value::Object(schema), Value::Object(rule)) = (&mut schema, rule) {
                        schema.extend(rule.clone());
                    }
                }
                let mut param = json!({
                    "name": p.name,
                    "in": p.location.as_str(),
                    "required": p.required,
                    "schema": schema,
                });
                if !p.description.is_empty() {
                    param["description"] = p.description.into();
                }
                param
            })
            .collect();
        let mut responses = Map::new();
        let content = |schema: Value| json!({"application/json": {"schema": schema}});
        match ep.reply() {
            Reply::Json | Reply::Accepted => {
                let status = if ep.reply() == Reply::Json {
                    "200"
                } else {
                    "202"
                };
                let schema = self.generators.responses.subschema_for::<R::Response>();
                responses.insert(
                    status.into(),
                    json!({"description": "success", "content": content(schema.to_value())}),
                );
            }
            Reply::SeeOther(target) => {
                responses.insert(
                    "303".into(),
                    json!({
                        "description": format!("completed: see `Location` ({})", target.path()),
                        "headers": {"Location": {"schema": {"type": "string"}}},
                        "content": content(json!({"$ref": "#/components/schemas/SeeOther"})),
                    }),
                );
            }
        }
        for (status, text) in error_statuses(ep) {
            let mut response = json!({"description": text, "content": content(error_schema(ep.error_style(), status))});
            if status == 429 {
                response["headers"] = json!({"Retry-After": {
                    "description": "seconds until a request will be admitted again",
                    "required": true,
                    "schema": {"type": "string", "pattern": "^[0-9]+$"},
                }});
            }
            responses.insert(status.to_string(), response);
        }
        let limit = ep.rate_limit();
        let mut op = json!({
            "operationId": ep.name(),
            "tags": [ep.group().as_str()],
            "summary": format!("{} {}", ep.method().as_str(), ep.path()),
            "description": format!(
                "{}Rate limit {} per key. The path also answers with a trailing slash.",
                if ep.in_spec() {
                    ""
                } else {
                    "Waymark extension, not in the Location Platform specification. "
                },
                limit.describe()
            ),
            "x-waymark-extension": !ep.in_spec(),
            "security": security(ep.key_set()),
            "parameters": parameters,
            "responses": responses,
        });
        if let Some(body) = R::body_schema(&mut self.generators.requests) {
            op["requestBody"] = json!({"required": true, "content": content(body.to_value())});
        }
        op
    }
}

/// The definitions of both generators in one map. A type described alike on both sides is
/// stored once; a type read and written differently gets its request form as `{Name}Input`
/// (the references of the request side are renamed to match).
fn merge_definitions(
    generators: &mut Generators,
    paths: &mut Map<String, Value>,
) -> Map<String, Value> {
    let mut merged = generators.responses.take_definitions(true);
    let requests = generators.requests.take_definitions(true);
    let renamed: Vec<String> = requests
        .iter()
        .filter(|(name, schema)| merged.get(*name).is_some_and(|other| other != *schema))
        .map(|(name, _)| name.clone())
        .collect();
    let rename = |value: &mut Value| {
        if renamed.is_empty() {
            return;
        }
        let mut text = value.to_string();
        for name in &renamed {
            text = text.replace(
                &format!("\"#/components/schemas/{name}\""),
                &format!("\"#/components/schemas/{name}Input\""),
            );
        }
        if let Ok(v) = serde_json::from_str(&text) {
            *value = v;
        }
    };
    for (name, mut schema) in requests {
        rename(&mut schema);
        if renamed.contains(&name) {
            merged.insert(format!("{name}Input"), schema);
        } else {
            merged.entry(name).or_insert(schema);
        }
    }
    for methods in paths.values_mut() {
        if let Value::Object(methods) = methods {
            for op in methods.values_mut() {
                if let Some(body) = op.get_mut("requestBody") {
                    rename(body);
                }
            }
        }
    }
    merged
}

/// The OpenAPI document.
pub fn document() -> Value {
    let mut generators = Generators::new();
    let mut paths = Map::new();
    for ep in Endpoint::operations() {
        let op = ep.visit(Describe {
            ep,
            generators: &mut generators,
        });
        let entry = paths
            .entry(ep.path().to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(methods) = entry {
            methods.insert(ep.method().as_str().to_ascii_lowercase(), op);
        }
    }
    let mut schemas = merge_definitions(&mut generators, &mut paths);
    for (name, schema) in fixed_schemas() {
        schemas.insert(name, schema);
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Waymark local server (Location Platform REST API, offline)",
            "version": env!("CARGO_PKG_VERSION"),
        },
        "servers": [{"url": "http://127.0.0.1:8787"}],
        "paths": paths,
        "components": {
            "securitySchemes": {
                "publicKey": {"type": "apiKey", "in": "query", "name": "key",
                    "description": "public key (prefix wm_pub_); K1 endpoints also need a Referer"},
                "privateKey": {"type": "apiKey", "in": "query", "name": "private_key"},
                "apiKeyHeader": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
            },
            "schemas": schemas,
        },
    })
}

/// The schemas of the replies the server writes itself (errors, the 303 body).
fn fixed_schemas() -> Map<String, Value> {
    let fixed = json!({
                "SeeOther": {
                    "type": "object",
                    "description": "The body of a 303: the job's id, its state and where its result is.",
                    "required": ["status", "location"],
                    "properties": {
                        "matrix_id": {"type": "string"},
                        "status": {"const": "completed"},
                        "location": {"type": "string"},
                    },
                },
                "ValidationError": {
                    "type": "object",
                    "required": ["detail"],
                    "properties": {"detail": {"type": "array", "items": {"$ref": "#/components/schemas/FieldError"}}},
                },
                "IndoorValidationError": {
                    "type": "object",
                    "required": ["detail", "context"],
                    "properties": {
                        "detail": {"type": "array", "items": {"$ref": "#/components/schemas/FieldError"}},
                        "context": {"type": "object"},
                    },
                },
                "FieldError": {
                    "type": "object",
                    "required": ["loc", "msg", "type"],
                    "properties": {
                        "loc": {"type": "array", "items": {}},
                        "msg": {"type": "string"},
                        "type": {"type": "string"},
                    },
                },
    });
    match fixed {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn every_endpoint_is_described_once() {
        let doc = document();
        let paths = doc["paths"].as_object().unwrap();
        // Each operation of the table once, under its path and method, and nothing else.
        let mut described: Vec<(String, String)> = paths
            .iter()
            .flat_map(|(path, methods)| {
                methods
                    .as_object()
                    .unwrap()
                    .keys()
                    .map(move |m| (path.clone(), m.clone()))
            })
            .collect();
        let mut table: Vec<(String, String)> = Endpoint::operations()
            .map(|ep| {
                let op = &doc["paths"][ep.path()][ep.method().as_str().to_ascii_lowercase()];
                assert_eq!(op["operationId"], ep.name(), "{ep:?}");
                (
                    ep.path().to_owned(),
                    ep.method().as_str().to_ascii_lowercase(),
                )
            })
            .collect();
        described.sort();
        table.sort();
        assert_eq!(described, table);
        // The rate buckets of their own are not operations.
        for ep in Endpoint::ALL.iter().filter(|e| e.is_bucket()) {
            assert!(
                !doc.to_string()
                    .contains(&format!("\"operationId\":\"{}\"", ep.name())),
                "{ep:?}"
            );
        }
        assert_eq!(
            doc["paths"]["/datasets/{dataset_id}"]
                .as_object()
                .unwrap()
                .len(),
            3,
            "GET, PUT and DELETE"
        );
        assert_eq!(
            doc["paths"]["/datasets"]["post"]["x-waymark-extension"],
            json!(true)
        );
        assert_eq!(
            doc["paths"]["/datasets"]["get"]["x-waymark-extension"],
            json!(false)
        );
        assert_eq!(
            doc["paths"]["/zones"]["put"]["security"],
            json!([{"privateKey": []}])
        );
        // The zone operations beside the spec's PUT: extensions; reads take any key (K2),
        // writes and the export a key with write permission (K3).
        let k2 = json!([{"publicKey": []}, {"privateKey": []}, {"apiKeyHeader": []}]);
        let k3 = json!([{"privateKey": []}, {"apiKeyHeader": []}]);
        for (path, method, security) in [
            ("/zones", "get", &k2),
            ("/zones/{zone_id}", "get", &k2),
            ("/zones", "post", &k3),
            ("/zones/{zone_id}", "delete", &k3),
            ("/zones/export", "get", &k3),
        ] {
            let op = &doc["paths"][path][method];
            assert_eq!(op["x-waymark-extension"], json!(true), "{method} {path}");
            assert_eq!(&op["security"], security, "{method} {path}");
            assert!(
                op["responses"]["200"]["content"]["application/json"]["schema"].is_object(),
                "{method} {path}"
            );
        }
        assert_eq!(
            doc["paths"]["/zones/{zone_id}"]["get"]["parameters"][0]["in"],
            json!("path")
        );
    }

    /// Every `$ref` of the document, anywhere.
    fn refs(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("$ref", Value::String(r)) => out.push(r.clone()),
                        _ => refs(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
            _ => {}
        }
    }

    #[test]
    fn every_reference_resolves() {
        let doc = document();
        let mut all = Vec::new();
        refs(&doc, &mut all);
        assert!(all.len() > 100, "{}", all.len());
        for r in all {
            let name = r.strip_prefix("#/components/schemas/").unwrap();
            assert!(doc["components"]["schemas"].get(name).is_some(), "{r}");
        }
    }

    #[test]
    fn parameters_come_from_the_request_types() {
        let doc = document();
        let route = &doc["paths"]["/distance/route/json"]["get"];
        let params = route["parameters"].as_array().unwrap();
        let find = |name: &str| params.iter().find(|p| p["name"] == name).unwrap();
        assert_eq!(find("origin")["required"], true);
        assert_eq!(find("origin")["in"], "query");
        assert_eq!(find("mode")["required"], false);
        // The vocabulary has `truck`; a route refuses it (the spec lists three modes).
        assert_eq!(
            find("mode")["schema"]["enum"],
            json!(["driving", "walking", "cycling"])
        );
        assert_eq!(find("accept-language")["in"], "header");
        assert!(
            find("departure_time")["description"]
                .as_str()
                .unwrap()
                .contains("traffic")
        );
        // A `read` field documents the parameters it reads.
        let stores = doc["paths"]["/stores/search"]["get"]["parameters"]
            .as_array()
            .unwrap();
        assert!(stores.iter().any(|p| p["name"] == "lat"));
        assert!(stores.iter().any(|p| p["name"] == "lng"));
    }

    /// The names of the parameters of a request type, and its stated rules.
    struct Rules;
    impl OperationVisitor for Rules {
        type Output = (Vec<&'static str>, Vec<(&'static str, Value)>);
        fn visit<R: Operation>(self) -> Self::Output {
            (
                R::parameters().iter().map(|p| p.name).collect(),
                R::constraints(),
            )
        }
    }

    #[test]
    fn every_rule_of_a_request_type_is_in_its_parameter_schema() {
        let doc = document();
        let mut stated = 0;
        for ep in Endpoint::operations() {
            let (names, rules) = ep.visit(Rules);
            let op = &doc["paths"][ep.path()][ep.method().as_str().to_ascii_lowercase()];
            for (name, rule) in rules {
                assert!(names.contains(&name), "{ep:?}: no parameter `{name}`");
                let param = op["parameters"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p["name"] == name)
                    .unwrap();
                for (k, v) in rule.as_object().unwrap() {
                    assert_eq!(&param["schema"][k], v, "{ep:?} {name} {k}");
                    stated += 1;
                }
            }
        }
        assert!(stated > 0);
        let param = |path: &str, method: &str, name: &str| {
            doc["paths"][path][method]["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name)
                .unwrap()["schema"]
                .clone()
        };
        assert_eq!(param("/datasets", "get", "page")["minimum"], 1);
        assert_eq!(param("/datasets", "get", "per_page")["minimum"], 1);
        let value = param("/distance/isochrone/json", "get", "value");
        assert_eq!(value["exclusiveMinimum"], 0);
        assert_eq!(
            param("/distance/route/json", "get", "avoid")["minLength"],
            1
        );
        assert_eq!(
            param("/distance/route/json", "get", "mode")["enum"],
            json!(["driving", "walking", "cycling"])
        );
        let mask = param(
            "/datasets/{dataset_id}/features/{feature_id}",
            "get",
            "x-field-mask",
        );
        assert_eq!(mask["minLength"], 1);
        // The patterns are valid regular expressions that say what they should.
        let avoid = param("/distance/route/json", "get", "avoid");
        assert!(avoid["pattern"].as_str().unwrap().starts_with("^"));
    }

    #[test]
    fn every_operation_lists_the_errors_it_can_answer() {
        let doc = document();
        for ep in Endpoint::operations() {
            let op = &doc["paths"][ep.path()][ep.method().as_str().to_ascii_lowercase()];
            for status in ["401", "402", "403", "404", "422", "429", "503"] {
                let schema = &op["responses"][status]["content"]["application/json"]["schema"];
                assert!(schema.is_object(), "{ep:?} {status}");
            }
            let with_body = matches!(ep.method(), Method::Post | Method::Put);
            assert_eq!(op["responses"].get("413").is_some(), with_body, "{ep:?}");
            assert!(op["responses"]["429"]["headers"]["Retry-After"].is_object());
        }
        assert_eq!(
            doc["paths"]["/zones"]["put"]["responses"]["400"]["content"]["application/json"]["schema"]
                ["required"],
            json!(["status", "value"])
        );
    }

    #[test]
    fn every_path_parameter_is_declared() {
        let doc = document();
        for ep in Endpoint::operations() {
            let op = &doc["paths"][ep.path()][ep.method().as_str().to_ascii_lowercase()];
            let declared: Vec<&str> = op["parameters"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["in"] == "path")
                .map(|p| p["name"].as_str().unwrap())
                .collect();
            assert_eq!(declared, ep.path_params(), "{ep:?}");
        }
    }

    #[test]
    fn bodies_and_answers_have_real_schemas() {
        let doc = document();
        let schemas = &doc["components"]["schemas"];
        let route = &doc["paths"]["/distance/route/json"]["get"]["responses"]["200"];
        assert_eq!(
            route["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/RouteResponse"
        );
        let response = &schemas["RouteResponse"];
        assert_eq!(response["required"], json!(["status", "routes"]));
        let matrix = &doc["paths"]["/distance/matrix/async"]["post"]["requestBody"];
        let body_ref = matrix["content"]["application/json"]["schema"]["$ref"]
            .as_str()
            .unwrap();
        let body = &schemas[body_ref.rsplit('/').next().unwrap()];
        assert_eq!(body["properties"]["origins"]["type"], "string");
        // A job start answers 202, the completed matrix a 303.
        assert!(
            doc["paths"]["/packs"]["post"]["responses"]
                .get("202")
                .is_some()
        );
        let result = &doc["paths"]["/distance/matrix/async/{matrix_id}"]["get"]["responses"];
        assert!(result.get("303").is_some() && result.get("200").is_none());
        // GET requests have no body.
        assert!(
            doc["paths"]["/distance/route/json"]["get"]
                .get("requestBody")
                .is_none()
        );
    }
}
