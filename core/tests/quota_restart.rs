//! Free quota over a real SQLite state file: exhausted quota answers 402 with the group's body
//! and stays exhausted after the engine is closed and opened again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;
use waymark_core::auth::Caller;
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_core::endpoint::Endpoint;
use waymark_core::{Engine, EngineConfig, ErrorCode};

fn open(dir: &std::path::Path, p: &Publisher) -> Engine {
    Engine::open(EngineConfig::new(dir, vec![p.verifying()])).unwrap()
}

#[test]
fn quota_is_enforced_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let mut claims = KeyClaims::new(KeyScope::Private {
        write: false,
        restriction: PrivateRestriction::None,
    });
    claims.quota = Some(3);
    let caller = Caller {
        api_key_header: Some(publisher.issue(&claims).unwrap()),
        ..Caller::default()
    };
    {
        let engine = open(dir.path(), &publisher);
        for _ in 0..2 {
            let grant = engine
                .authorizer()
                .authorize(&caller, Endpoint::Timezone)
                .unwrap();
            engine.authorizer().charge(&grant).unwrap();
        }
    } // dropped: counters saved
    let engine = open(dir.path(), &publisher);
    let grant = engine
        .authorizer()
        .authorize(&caller, Endpoint::Autosuggest)
        .unwrap();
    engine.authorizer().charge(&grant).unwrap();
    let grant = engine
        .authorizer()
        .authorize(&caller, Endpoint::Autosuggest)
        .unwrap();
    let err = engine.authorizer().charge(&grant).unwrap_err();
    assert_eq!(err.code, ErrorCode::QuotaExhausted);
    let http = err.to_http(Endpoint::Autosuggest);
    assert_eq!(http.status, 402);
    assert_eq!(
        http.body,
        json!({"detail": "the free quota of 3 requests of this key is used up"})
    );
    assert_eq!(err.to_http(Endpoint::VenueGet).body, json!({}));
    drop(engine);

    let engine = open(dir.path(), &publisher);
    let grant = engine
        .authorizer()
        .authorize(&caller, Endpoint::Timezone)
        .unwrap();
    assert_eq!(
        engine.authorizer().charge(&grant).unwrap_err().code,
        ErrorCode::QuotaExhausted,
        "quota must stay exhausted across restarts"
    );
}

#[test]
fn engine_refuses_to_open_without_a_trusted_publisher() {
    let dir = tempfile::tempdir().unwrap();
    let err = Engine::open(EngineConfig::new(dir.path(), vec![])).unwrap_err();
    assert!(err.to_string().contains("trusted publisher"));
}
