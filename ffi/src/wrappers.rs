//! The operations layer of the Kotlin and Swift wrappers, generated from the endpoint table
//! (`waymark_core::endpoint`), so that a platform wrapper can never miss or misroute an
//! operation. `bindings/generate.sh` writes it (through `uniffi-bindgen wrappers`) to
//! `android/src/main/kotlin/com/waymark/sdk/WaymarkOperations.kt` and
//! `ios/Sources/Waymark/WaymarkOperations.swift`, and its `--check` fails when the checked-in
//! files differ.
//!
//! Each operation the native SDK exposes becomes one method named by the row's SDK name,
//! taking the request type and returning the response type (type aliases resolved, as the
//! generated bindings know them). Operations that run inline are moved off the caller's
//! thread (`Dispatchers.IO`, a detached task); blocking ones are already `suspend`/`async`
//! in the bindings.
//!
//! ```
//! let kotlin = waymark_ffi::wrappers::kotlin();
//! assert!(kotlin.contains("suspend fun timezone(request: TimezoneRequest): TimezoneResult"));
//! ```
use std::fmt::Write;

use waymark_core::endpoint::{Endpoint, Faces, Run};

/// `localities_autocomplete` → `localitiesAutocomplete` (uniffi's name for the method).
pub fn lower_camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The operations of the native SDK, in table order.
pub fn native_operations() -> impl Iterator<Item = Endpoint> {
    Endpoint::operations().filter(|e| e.faces() == Faces::All)
}

/// The endpoint a method serves, for its doc comment.
fn summary(ep: Endpoint) -> String {
    format!("`{} {}`", ep.method().as_str(), ep.path())
}

const GENERATED: &str = "GENERATED from the endpoint table (waymark_core::endpoint) by \
                         `bash bindings/generate.sh`: do not edit.";

/// The Kotlin operations layer: an abstract class the `Waymark` class extends.
pub fn kotlin() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// {GENERATED}");
    out.push_str(
        "package com.waymark.sdk\n\n\
         import com.waymark.core.*\n\
         import kotlinx.coroutines.Dispatchers\n\
         import kotlinx.coroutines.withContext\n\
         import com.waymark.ffi.Waymark as NativeWaymark\n\n\
         /**\n \
         * Every operation of the Location Platform API, one `suspend` function each, answered by\n \
         * the native engine. Errors are [com.waymark.core.WaymarkException]s.\n \
         */\n\
         abstract class WaymarkOperations internal constructor(internal val native: NativeWaymark) {\n",
    );
    for ep in native_operations() {
        let call = format!("native.{}(request)", lower_camel(ep.native_name()));
        let body = match ep.run() {
            Run::Inline => format!("withContext(Dispatchers.IO) {{ {call} }}"),
            Run::Blocking => call,
        };
        let _ = write!(
            out,
            "\n    /** {} */\n    suspend fun {}(request: {}): {} =\n        {}\n",
            summary(ep),
            ep.sdk_name(),
            ep.request_type(),
            ep.response_type(),
            body
        );
    }
    out.push_str(&kotlin_call_json());
    out.push_str("}\n");
    out
}

/// `callJson`: every operation of the Kotlin layer by its method and path, on a request and
/// answer in their JSON forms (the forms of the golden parity cases), so that a table-driven
/// test reaches every operation without a hand-written list.
fn kotlin_call_json() -> String {
    let mut out = String::from(
        "\n    /**\n     \
         * Runs the operation that answers `endpoint` (`\"GET /indoor/venues/v1\"`: a method and a\n     \
         * concrete path, matched as the local server routes it) on a request in its JSON form and\n     \
         * answers in JSON; `null` when no operation of the native SDK answers that path.\n     \
         */\n    \
         internal suspend fun callJson(endpoint: String, request: String): String? {\n        \
         val (method, path) = endpoint.split(' ', limit = 2).let { it[0] to it.getOrElse(1) { \"\" } }\n        \
         val segments = path.trim('/').split('/')\n        \
         fun at(m: String, pattern: String): Boolean {\n            \
         val parts = pattern.trim('/').split('/')\n            \
         return m == method && parts.size == segments.size &&\n                \
         parts.zip(segments).all { (p, s) -> p == s || (p.startsWith(\"{\") && s.isNotEmpty()) }\n        \
         }\n        \
         return when {\n",
    );
    for ep in native_operations() {
        let native = lower_camel(ep.native_name());
        let _ = writeln!(
            out,
            "            at(\"{}\", \"{}\") -> com.waymark.ffi.{native}ResponseToJson({}(com.waymark.ffi.{native}RequestFromJson(request)))",
            ep.method().as_str(),
            ep.path(),
            ep.sdk_name(),
        );
    }
    out.push_str("            else -> null\n        }\n    }\n");
    out
}

/// The Swift operations layer: an extension of the `Waymark` class.
pub fn swift() -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// {GENERATED}");
    out.push_str(
        "import Foundation\n\
         import WaymarkCore\n\
         import WaymarkEngine\n\n\
         /// Every operation of the Location Platform API, one `async` method each, answered by the\n\
         /// native engine. Errors are `WaymarkError`s.\n\
         extension Waymark {\n",
    );
    for ep in native_operations() {
        let call = format!("native.{}(request: request)", lower_camel(ep.native_name()));
        let body = match ep.run() {
            Run::Inline => format!("try await detached {{ [native] in try {call} }}"),
            Run::Blocking => format!("try await {call}"),
        };
        let _ = write!(
            out,
            "\n    /// {}\n    public func {}(_ request: {}) async throws -> {} {{\n        {}\n    }}\n",
            summary(ep),
            ep.sdk_name(),
            ep.request_type(),
            ep.response_type(),
            body
        );
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            lower_camel("localities_autocomplete"),
            "localitiesAutocomplete"
        );
        assert_eq!(lower_camel("threewords_convert"), "threewordsConvert");
    }

    #[test]
    fn every_native_operation_has_a_method_in_both_wrappers() {
        let (kotlin, swift) = (kotlin(), swift());
        let mut n = 0;
        for ep in native_operations() {
            n += 1;
            assert!(
                kotlin.contains(&format!("suspend fun {}(", ep.sdk_name())),
                "{ep:?}"
            );
            assert!(
                swift.contains(&format!("public func {}(", ep.sdk_name())),
                "{ep:?}"
            );
        }
        // One method per native operation and no other: the HTTP-only operations (a 303
        // target, the demo page's map layer) have none.
        assert!(n > 0);
        assert_eq!(kotlin.matches("\n    suspend fun ").count(), n);
        assert_eq!(swift.matches("\n    public func ").count(), n);
        for ep in Endpoint::operations().filter(|e| e.faces() == Faces::Http) {
            assert!(
                !kotlin.contains(&format!("fun {}(", ep.sdk_name())),
                "{ep:?}"
            );
            assert!(
                !swift.contains(&format!("func {}(", ep.sdk_name())),
                "{ep:?}"
            );
        }
        assert!(
            kotlin.contains("suspend fun position(request: PositionRequest): GeolocationResult")
        );
        assert!(swift.contains("try await native.distanceRoute(request: request)"));
    }
}
