//! `GET /openapi.json`: an OpenAPI 3.1 description of every endpoint, generated from the
//! endpoint table of `waymark_core::endpoint` so it cannot drift from the routes.
use serde_json::{Map, Value, json};
use waymark_core::api::ApiGroup;
use waymark_core::endpoint::{Endpoint, KeySet};

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

fn error_schema(group: ApiGroup, status: u16) -> Value {
    let detail = json!({"type": "object", "properties": {"detail": {"type": "string"}}});
    let details = json!({"type": "object", "properties": {"details": {"type": "string"}}});
    match (status, group) {
        (422, ApiGroup::Indoor) => json!({"$ref": "#/components/schemas/IndoorValidationError"}),
        (422, _) => json!({"$ref": "#/components/schemas/ValidationError"}),
        (402 | 403, ApiGroup::Indoor) => json!({"type": "object"}),
        (404, ApiGroup::Datasets) => details,
        (429, ApiGroup::Datasets | ApiGroup::Distance | ApiGroup::Threewords) => details,
        _ => detail,
    }
}

fn operation(ep: Endpoint) -> Value {
    let group = ep.group();
    let parameters: Vec<Value> = ep
        .path_params()
        .into_iter()
        .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    let mut responses = Map::new();
    responses.insert(
        "200".into(),
        json!({"description": "success", "content": {"application/json": {"schema": {"type": "object"}}}}),
    );
    if ep == Endpoint::MatrixResult {
        responses.insert(
            "303".into(),
            json!({"description": "the matrix is completed: see `Location` (…/{matrix_id}/result)",
                   "content": {"application/json": {"schema": {"type": "object"}}}}),
        );
    }
    for (status, text) in [
        (401, "no or wrong credentials"),
        (402, "free quota exhausted"),
        (
            403,
            "credentials do not match (restrictions, api not enabled)",
        ),
        (422, "validation error"),
        (429, "rate limit exceeded"),
        (501, "operation not available in this build"),
    ] {
        responses.insert(
            status.to_string(),
            json!({"description": text, "content": {"application/json": {"schema": error_schema(group, status)}}}),
        );
    }
    let limit = ep.rate_limit();
    let mut op = json!({
        "operationId": ep.name(),
        "tags": [group.as_str()],
        "summary": format!("{} {}", ep.method().as_str(), ep.path()),
        "description": format!(
            "Rate limit {} per key. The path also answers with a trailing slash.",
            limit.describe()
        ),
        "security": security(ep.key_set()),
        "parameters": parameters,
        "responses": responses,
    });
    if matches!(
        ep.method(),
        waymark_core::endpoint::Method::Post | waymark_core::endpoint::Method::Put
    ) && let Value::Object(map) = &mut op
    {
        map.insert(
            "requestBody".into(),
            json!({"required": true, "content": {"application/json": {"schema": {"type": "object"}}}}),
        );
    }
    op
}

/// The OpenAPI document.
pub fn document() -> Value {
    let mut paths = Map::new();
    for &ep in Endpoint::ALL {
        if ep == Endpoint::RouteWithTraffic {
            continue;
        }
        let entry = paths
            .entry(ep.path().to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(methods) = entry {
            methods.insert(ep.method().as_str().to_ascii_lowercase(), operation(ep));
        }
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
            "schemas": {
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
            },
        },
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn every_endpoint_is_described_once() {
        let doc = document();
        let paths = doc["paths"].as_object().unwrap();
        let ops: usize = paths.values().map(|m| m.as_object().unwrap().len()).sum();
        assert_eq!(
            ops, 32,
            "27 of the spec, the matrix result's 303 target and 4 of pack management"
        );
        assert_eq!(
            doc["paths"]["/datasets/{dataset_id}"]
                .as_object()
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            doc["paths"]["/zones"]["put"]["security"],
            json!([{"privateKey": []}])
        );
    }
}
