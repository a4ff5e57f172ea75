//! Every face exposes every operation of the endpoint table: the local server routes it (with
//! and without a trailing slash) and describes it in `/openapi.json`; the native SDK has its
//! method and JSON codecs in the generated Kotlin bindings; the Kotlin and Swift wrappers
//! have their method. The generated files are those checked in (`bindings/generate.sh --check`
//! keeps them equal to what the table generates), so a face that misses an operation fails
//! here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use waymark_core::endpoint::{Endpoint, Faces, RouteMatch};
use waymark_ffi::wrappers::lower_camel;

fn repo_file(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A concrete path of the endpoint (each parameter `x1`).
fn concrete(ep: Endpoint) -> String {
    ep.concrete_path(&vec!["x1".to_owned(); ep.path_params().len()])
}

#[test]
fn the_local_server_routes_and_describes_every_operation() {
    let doc = waymark_localserver::openapi::document();
    for ep in Endpoint::operations() {
        for path in [concrete(ep), format!("{}/", concrete(ep))] {
            match Endpoint::match_path(ep.method(), &path) {
                RouteMatch::Found(found, _) => assert_eq!(found, ep, "{path}"),
                other => panic!("{path}: {other:?}"),
            }
        }
        let op = &doc["paths"][ep.path()][ep.method().as_str().to_ascii_lowercase()];
        assert_eq!(
            op["operationId"],
            ep.name(),
            "{ep:?} missing from /openapi.json"
        );
    }
}

#[test]
fn the_native_sdk_and_both_wrappers_have_every_operation() {
    let ffi = repo_file("bindings/kotlin/com/waymark/ffi/waymark_ffi.kt");
    let kotlin = repo_file("android/src/main/kotlin/com/waymark/sdk/WaymarkOperations.kt");
    let swift = repo_file("ios/Sources/Waymark/WaymarkOperations.swift");
    let engine_swift = repo_file("ios/Sources/WaymarkEngine/WaymarkEngine.swift");
    let mut native = 0;
    for ep in Endpoint::operations() {
        let method = lower_camel(ep.native_name());
        let in_ffi =
            ffi.contains(&format!("fun `{method}`(")) || ffi.contains(&format!("fun {method}("));
        if ep.faces() == Faces::Http {
            assert!(
                !in_ffi,
                "{ep:?} is HTTP-only but the native SDK has {method}"
            );
            continue;
        }
        native += 1;
        assert!(in_ffi, "{ep:?}: no {method} in the Kotlin bindings");
        assert!(
            engine_swift.contains(&format!("func {method}(")),
            "{ep:?}: no {method} in the Swift bindings"
        );
        for codec in ["RequestFromJson", "ResponseToJson"] {
            assert!(
                ffi.contains(&format!("fun `{method}{codec}`("))
                    || ffi.contains(&format!("fun {method}{codec}(")),
                "{ep:?}: no {method}{codec} in the Kotlin bindings"
            );
        }
        let sdk = ep.sdk_name();
        assert!(
            kotlin.contains(&format!("suspend fun {sdk}(request: {}", ep.request_type())),
            "{ep:?}: no {sdk} in the Kotlin wrapper"
        );
        assert!(
            swift.contains(&format!(
                "public func {sdk}(_ request: {}",
                ep.request_type()
            )),
            "{ep:?}: no {sdk} in the Swift wrapper"
        );
    }
    // The wrappers have a method for each native operation and no other.
    assert!(native > 0);
    assert_eq!(
        kotlin.matches("\n    suspend fun ").count(),
        native,
        "Kotlin wrapper"
    );
    assert_eq!(
        swift.matches("\n    public func ").count(),
        native,
        "Swift wrapper"
    );
}
