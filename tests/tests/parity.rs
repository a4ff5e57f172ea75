//! Parity of the faces: the golden cases of `tests/golden/parity/cases.json` run through the
//! `Engine` and through the local server over real HTTP on 127.0.0.1 must give identical JSON,
//! equal to the golden answer checked in beside them (`<name>.json`, which also holds the
//! request in its JSON form). The Kotlin library's JUnit suite (`android/`) runs the same
//! golden requests through the native bindings and compares with the same answers.
//!
//! `WAYMARK_UPDATE_GOLDEN=1 cargo test -p waymark-tests --test parity` rewrites the answers
//! after an intended change.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use waymark_core::Engine;
use waymark_core::api::*;
use waymark_core::auth::Caller;
use waymark_core::endpoint::{Endpoint, Faces, Method};
use waymark_core::operation::{Credentials, Operation, OperationVisitor};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/parity")
}

/// Parses the case's query with the server's own parser, calls the engine with the typed
/// request and returns (request JSON, answer JSON, answer as serialized text). Generic over
/// the endpoint's request type: any operation of the table can be a golden case.
fn through_engine(
    engine: &Arc<Engine>,
    caller: &Caller,
    endpoint: Endpoint,
    path_params: &[String],
    query: &str,
    body: &[u8],
) -> (Value, Value, String) {
    struct ThroughEngine<'a> {
        engine: &'a Arc<Engine>,
        caller: &'a Caller,
        pairs: Vec<(String, String)>,
        path_params: &'a [String],
        body: &'a [u8],
    }
    impl OperationVisitor for ThroughEngine<'_> {
        type Output = (Value, Value, String);
        fn visit<R: Operation>(self) -> Self::Output {
            let req = R::from_parts(
                &self.pairs,
                &RequestHeaders::default(),
                self.path_params,
                self.body,
            )
            .unwrap();
            let request = serde_json::to_value(&req).unwrap();
            let answer = self
                .engine
                .call(&Credentials::Http(self.caller), req)
                .unwrap();
            (
                request,
                serde_json::to_value(&answer).unwrap(),
                serde_json::to_string(&answer).unwrap(),
            )
        }
    }
    endpoint.visit(ThroughEngine {
        engine,
        caller,
        pairs: url_pairs(query),
        path_params,
        body,
    })
}

/// The method, path and body of a case or setup step (`"endpoint": "POST /zones"`, optional
/// `"body"`).
fn step(v: &Value) -> (Method, String, Vec<u8>) {
    let (method, path) = v["endpoint"].as_str().unwrap().split_once(' ').unwrap();
    let method = match method {
        "GET" => Method::Get,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "DELETE" => Method::Delete,
        other => panic!("no method {other}"),
    };
    let body = match &v["body"] {
        Value::Null => Vec::new(),
        b => serde_json::to_vec(b).unwrap(),
    };
    (method, path.to_string(), body)
}

/// `value` with every member named in `volatile` (the write's clock time, `updated_at`)
/// checked to be an RFC 3339 time and replaced by `"<name>"`: the cases that write compare
/// everything else exactly.
fn steady(value: &mut Value, volatile: &[String]) {
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if volatile.contains(k) {
                    let t = v.as_str().unwrap_or_default();
                    assert!(
                        chrono::DateTime::parse_from_rfc3339(t).is_ok(),
                        "{k} is no RFC 3339 time: {v}"
                    );
                    *v = Value::String(format!("<{k}>"));
                } else {
                    steady(v, volatile);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| steady(v, volatile)),
        _ => {}
    }
}

fn url_pairs(query: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

#[test]
fn engine_and_local_server_give_the_golden_answers() {
    let tmp = tempfile::tempdir().unwrap();
    let (engine, publisher) = waymark_tests::parity_engine_in(
        &tmp.path().join("built"),
        &tmp.path().join("packs"),
        &tmp.path().join("state"),
    );
    // The `private_key` parameter: the one form every operation of the cases accepts (stores
    // bounds take no `X-Api-Key`).
    let mut caller = waymark_tests::private_caller(&publisher);
    let key = caller.api_key_header.take().unwrap();
    caller.private_key = Some(key.clone());

    let server = waymark_tests::LocalServer::start(engine.clone());

    let update = std::env::var_os("WAYMARK_UPDATE_GOLDEN").is_some();
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(golden_dir().join("cases.json")).unwrap())
            .unwrap();
    // Cases that write (and their setup steps) run on a state of their own in each face, on
    // the same packs, with a key that may write.
    let mut writer = waymark_tests::write_caller(&publisher);
    let write_key = writer.private_key.clone().unwrap();
    writer.peer_ip = caller.peer_ip;
    let fresh = |label: &str| {
        waymark_tests::open_engine(
            &tmp.path().join(format!("state-{label}")),
            &tmp.path().join("packs"),
            &publisher,
        )
    };
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let (method, path, body) = step(case);
        let setup = case["setup"].as_array().cloned().unwrap_or_default();
        let volatile: Vec<String> = case["volatile"]
            .as_array()
            .map(|v| v.iter().map(|s| s.as_str().unwrap().to_string()).collect())
            .unwrap_or_default();
        let writes = method != Method::Get || !setup.is_empty();
        let (endpoint, path_params) = Endpoint::route(method, &path).unwrap();
        let query = case["query"].as_str().unwrap();

        let (request, mut engine_answer, engine_text, http) = if writes {
            let (on_engine, on_server) = (fresh(&format!("{name}-engine")), fresh(name));
            let server = waymark_tests::LocalServer::start(on_server);
            let mut setup_requests = Vec::new();
            for s in &setup {
                let (m, p, b) = step(s);
                let (ep, pp) = Endpoint::route(m, &p).unwrap();
                let (req, _, _) = through_engine(&on_engine, &writer, ep, &pp, "", &b);
                let body = String::from_utf8(b).unwrap();
                let r = server.call(
                    m.as_str(),
                    &format!("{p}?private_key={write_key}"),
                    "",
                    &body,
                );
                assert_eq!(r.status, 200, "{name}: setup {p}: {}", r.body);
                setup_requests.push(serde_json::json!({"endpoint": s["endpoint"], "request": req}));
            }
            let (request, answer, text) =
                through_engine(&on_engine, &writer, endpoint, &path_params, query, &body);
            let http = server.call(
                method.as_str(),
                &format!("{path}?{query}&private_key={write_key}"),
                "",
                &String::from_utf8(body).unwrap(),
            );
            let request = serde_json::json!({"request": request, "setup": setup_requests});
            (request, answer, text, http)
        } else {
            let (request, answer, text) =
                through_engine(&engine, &caller, endpoint, &path_params, query, &body);
            let http = server.call("GET", &format!("{path}?{query}&private_key={key}"), "", "");
            (serde_json::json!({"request": request}), answer, text, http)
        };
        let (status, http_text) = (http.status, http.body);
        assert_eq!(status, 200, "{name}: {http_text}");
        if volatile.is_empty() {
            assert_eq!(
                engine_text, http_text,
                "{name}: the engine and the local server disagree"
            );
        } else {
            let mut http_answer: Value = serde_json::from_str(&http_text).unwrap();
            steady(&mut engine_answer, &volatile);
            steady(&mut http_answer, &volatile);
            assert_eq!(
                engine_answer, http_answer,
                "{name}: the engine and the local server disagree"
            );
        }

        let golden_path = golden_dir().join(format!("{name}.json"));
        let mut golden = serde_json::json!({
            "endpoint": case["endpoint"],
            "query": query,
            "request": request["request"],
            "response": engine_answer,
        });
        // A write's setup steps (run first, on a state of its own) and the members that hold
        // the time of a write: the Kotlin runner does the same.
        if writes {
            golden["setup"] = request["setup"].clone();
        }
        if !volatile.is_empty() {
            golden["volatile"] = serde_json::json!(volatile);
        }
        // Compared as text too: the numbers are written exactly (shortest round-trip form).
        let golden_text = serde_json::to_string_pretty(&golden).unwrap() + "\n";
        if update {
            std::fs::write(&golden_path, golden_text).unwrap();
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&golden_path) else {
            failures.push(format!(
                "{name}: no golden answer at {}; run with WAYMARK_UPDATE_GOLDEN=1",
                golden_path.display()
            ));
            continue;
        };
        if text != golden_text {
            failures.push(format!(
                "{name}: the answer differs from {} (WAYMARK_UPDATE_GOLDEN=1 rewrites it after \
                 an intended change)\nnow: {}",
                golden_path.display(),
                serde_json::to_string(&golden["response"]).unwrap()
            ));
        }
    }
    drop(server);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every operation that answers from the installed packs alone has a golden case, so each is
/// proven equal in the engine, over HTTP and in Kotlin: every GET operation of the native SDK
/// but those that read state made by earlier calls (datasets, matrix jobs, pack installs; their
/// own tests cover them: `tests/tests/datasets.rs`, `tests/tests/matrix.rs`,
/// `localserver/tests/packs_http.rs`). Derived from the endpoint table: a new reading
/// operation fails here until it has a case.
#[test]
fn every_pack_reading_operation_has_a_golden_case() {
    let cases: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(golden_dir().join("cases.json")).unwrap())
            .unwrap();
    let covered: Vec<Endpoint> = cases
        .iter()
        .map(|case| {
            let (method, path) = case["endpoint"].as_str().unwrap().split_once(' ').unwrap();
            // Cases that write (zones) run with their own setup steps; they count too.
            let method = match method {
                "GET" => Method::Get,
                "POST" => Method::Post,
                "PUT" => Method::Put,
                "DELETE" => Method::Delete,
                other => panic!("{case}: method {other}"),
            };
            Endpoint::route(method, path).unwrap().0
        })
        .collect();
    let reads_state = |ep: Endpoint| {
        matches!(ep.group(), ApiGroup::Datasets | ApiGroup::Packs)
            || matches!(ep, Endpoint::MatrixStatus | Endpoint::MatrixResult)
    };
    let missing: Vec<Endpoint> = Endpoint::operations()
        .filter(|&ep| ep.method() == Method::Get && ep.faces() == Faces::All)
        .filter(|&ep| !reads_state(ep) && !covered.contains(&ep))
        .collect();
    assert!(
        missing.is_empty(),
        "no golden case in tests/golden/parity/cases.json for {missing:?}"
    );
    // Every golden answer on disk belongs to a case.
    for entry in std::fs::read_dir(golden_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if let Some(stem) = name.strip_suffix(".json")
            && stem != "cases"
        {
            assert!(
                cases.iter().any(|c| c["name"] == stem),
                "{name} has no case in cases.json"
            );
        }
    }
}
