//! Property tests of whole requests, for every endpoint of the table:
//!
//! - through the request parsers (`FromRequestParts`, then the request's `Validate` rules):
//!   any query, path, header and body gives a request or errors that each name a parameter of
//!   the endpoint (or one the request sent), never a panic; a parsed request survives its JSON
//!   form (what the native SDK sends);
//! - over real HTTP on 127.0.0.1, to the local server over the parity engine (Andorra with
//!   every layer, the sample venue): any request answers below 500 with a JSON body, a 422
//!   names its parameters, other errors say something. Credentials vary too: arbitrary keys,
//!   public keys with arbitrary `Referer`s, arbitrary `Host` headers.
//!
//! The strategies are in `waymark_tests::props`; a new endpoint joins by being a row of the
//! table. Failures found are kept in `tests/proptest-regressions/properties.txt` (none so far).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use serde_json::Value;
use waymark_core::Engine;
use waymark_core::api::RequestHeaders;
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, PublicRestrictions};
use waymark_core::endpoint::Endpoint;
use waymark_core::operation::{Operation, OperationVisitor};
use waymark_tests::LocalServer;
use waymark_tests::props::{
    AnyRequest, any_request, check_detail, golden_seeds, mutated, operations, value,
};

/// Parses `req` with its endpoint's request type; returns the parse or validation errors as
/// the JSON `detail` list, or `None` when the request parsed and validated.
fn parse(req: &AnyRequest) -> Option<Value> {
    struct Parse<'a>(&'a AnyRequest);
    impl OperationVisitor for Parse<'_> {
        type Output = Option<Value>;
        fn visit<R: Operation>(self) -> Option<Value> {
            let r = self.0;
            let headers = RequestHeaders {
                accept_language: r.accept_language.clone(),
                x_field_mask: r.field_mask.clone(),
            };
            let parsed = match R::from_parts(&r.pairs, &headers, &r.path, &r.body) {
                Ok(parsed) => parsed,
                Err(errors) => return Some(serde_json::to_value(errors).unwrap()),
            };
            // The JSON form of a parsed request is a request of the same type (the FFI's).
            let json = serde_json::to_value(&parsed).unwrap();
            let back: R = serde_json::from_value(json.clone())
                .unwrap_or_else(|e| panic!("{:?}: {json} does not parse back: {e}", r.endpoint));
            assert_eq!(
                serde_json::to_value(&back).unwrap(),
                json,
                "{:?}: the JSON form changes",
                r.endpoint
            );
            parsed
                .validate()
                .err()
                .map(|errors| serde_json::to_value(errors).unwrap())
        }
    }
    req.endpoint.visit(Parse(req))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Every endpoint's parser answers a request or names what is wrong.
    #[test]
    fn requests_parse_or_name_their_parameters(req in prop_oneof![any_request(operations()), mutated(golden_seeds())]) {
        if let Some(detail) = parse(&req)
            && let Err(problem) = check_detail(req.endpoint, &req.pairs, &detail)
        {
            panic!("{problem}\nrequest: {req:?}");
        }
    }
}

/// The parity engine served on 127.0.0.1, with a write key and a public key for any domain
/// (built once per test process).
struct Fixture {
    server: LocalServer,
    private: String,
    public: String,
    _engine: Arc<Engine>,
    _dir: tempfile::TempDir,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let (engine, publisher) = waymark_tests::parity_engine_in(
            &dir.path().join("built"),
            &dir.path().join("packs"),
            &dir.path().join("state"),
        );
        let private = publisher
            .issue(&KeyClaims::new(KeyScope::Private {
                write: true,
                restriction: PrivateRestriction::None,
            }))
            .unwrap();
        let public = publisher
            .issue(&KeyClaims::new(KeyScope::Public(PublicRestrictions {
                domains: vec!["example.com".into(), "*.maps.example.org".into()],
                ips: vec![],
            })))
            .unwrap();
        Fixture {
            server: LocalServer::start(engine.clone()),
            private,
            public,
            _engine: engine,
            _dir: dir,
        }
    })
}

/// How a request presents itself.
#[derive(Debug, Clone)]
enum Credentials {
    /// The fixture's write key in `private_key` (every endpoint accepts it).
    Private,
    /// Any text as the key, in `X-Api-Key`.
    AnyKey(String),
    /// The fixture's public key with any `Referer`.
    PublicWithReferer(String),
    /// The write key with any `Host`.
    AnyHost(String),
}

fn credentials() -> impl Strategy<Value = Credentials> {
    prop_oneof![
        12 => Just(Credentials::Private),
        1 => value().prop_map(Credentials::AnyKey),
        1 => prop_oneof![
            value(),
            "(https?|file)://[a-z.]{0,20}(:[0-9]{1,6})?(/[a-z]{0,5})?",
        ].prop_map(Credentials::PublicWithReferer),
        1 => prop_oneof![value(), "[a-z0-9.:\\[\\]]{0,30}"].prop_map(Credentials::AnyHost),
    ]
}

/// A header value as a client can send it: control characters (which would end the header)
/// replaced.
fn header_safe(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

fn path_of(req: &AnyRequest) -> String {
    let mut params = req.path.iter();
    req.endpoint
        .path()
        .split('/')
        .map(|segment| {
            if segment.starts_with('{') {
                let v = params.next().map(String::as_str).unwrap_or_default();
                url::form_urlencoded::byte_serialize(v.as_bytes()).collect()
            } else {
                segment.to_string()
            }
        })
        .collect::<Vec<String>>()
        .join("/")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Over HTTP every endpoint answers any request below 500, with a JSON body; a 422 names
    /// its parameters and every other error says something.
    #[test]
    fn http_never_answers_5xx_and_names_the_parameter(
        req in prop_oneof![
            any_request(operations().into_iter().filter(|e| *e != Endpoint::PackRemove).collect()),
            mutated(golden_seeds()),
        ],
        creds in credentials(),
    ) {
        let f = fixture();
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        for (n, v) in &req.pairs {
            query.append_pair(n, v);
        }
        let mut headers = vec![("Content-Type".to_string(), "application/json".to_string())];
        match &creds {
            Credentials::Private | Credentials::AnyHost(_) => {
                query.append_pair("private_key", &f.private);
            }
            Credentials::AnyKey(k) => headers.push(("X-Api-Key".into(), header_safe(k))),
            Credentials::PublicWithReferer(r) => {
                query.append_pair("key", &f.public);
                headers.push(("Referer".into(), header_safe(r)));
            }
        }
        if let Credentials::AnyHost(h) = &creds {
            headers.push(("Host".into(), header_safe(h)));
        }
        if let Some(l) = &req.accept_language {
            headers.push(("Accept-Language".into(), header_safe(l)));
        }
        if let Some(m) = &req.field_mask {
            headers.push(("X-Field-Mask".into(), header_safe(m)));
        }
        let target = format!("{}?{}", path_of(&req), query.finish());
        let method = req.endpoint.method().as_str();
        let answer = f.server.call_with(method, &target, &headers, &req.body);
        let context = format!("{method} {target} {creds:?} {headers:?} body {:?}\n-> {} {}",
            String::from_utf8_lossy(&req.body), answer.status, answer.body);
        prop_assert!(answer.status < 500, "a 5xx: {context}");
        {
            // What the run covered, shown with `--nocapture`.
            static SEEN: std::sync::Mutex<std::collections::BTreeMap<u16, u32>> =
                std::sync::Mutex::new(std::collections::BTreeMap::new());
            let mut seen = SEEN.lock().unwrap();
            *seen.entry(answer.status).or_default() += 1;
            if seen.values().sum::<u32>() % 200 == 0 {
                eprintln!("statuses so far: {seen:?}");
            }
        }
        let body: Value = serde_json::from_str(&answer.body)
            .unwrap_or_else(|e| panic!("the body is not JSON ({e}): {context}"));
        match answer.status {
            422 => {
                // The row the server routed to: an empty path parameter can make the path
                // another row's (`GET /zones/` is the list of `GET /zones`).
                let routed = Endpoint::route(req.endpoint.method(), &path_of(&req))
                    .map_or(req.endpoint, |(e, _)| e);
                if let Err(problem) = check_detail(routed, &req.pairs, &body["detail"]) {
                    panic!("{problem}: {context}");
                }
            }
            400..=499 => {
                let said = body.as_object().is_some_and(|o| {
                    o.values().any(|v| v.as_str().is_some_and(|s| !s.trim().is_empty()))
                        || o.is_empty() && matches!(answer.status, 402 | 403)
                });
                prop_assert!(said, "an error that says nothing: {context}");
            }
            _ => {}
        }
    }
}
