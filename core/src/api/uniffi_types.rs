//! How the contract's non-native types cross the FFI (feature `uniffi`).
//!
//! - [`JsonObject`], [`JsonValue`] and `serde_json::Value` (free-form JSON: custom
//!   descriptions, dataset properties, the `loc` items of a 422) travel as JSON text, so the
//!   Kotlin and Swift sides read them with any JSON library;
//! - `IpAddr` travels as its textual form (`"81.2.69.160"`, `"2a02:…"`); an address that does
//!   not parse is refused when the request is lifted;
//! - `DateTime<Utc>` travels as uniffi's timestamp (`java.time.Instant` in Kotlin, `Date` in
//!   Swift);
//! - sorted string maps (`BTreeMap<String, String>`) travel as plain maps.
use std::net::IpAddr;
use std::time::SystemTime;

use chrono::Utc;
use serde_json::Value;

use super::common::{JsonObject, JsonValue};

/// A UTC instant (`chrono::DateTime<Utc>`), as uniffi names it: `Timestamp` in Kotlin and Swift.
type Timestamp = chrono::DateTime<Utc>;

uniffi::custom_type!(JsonObject, String, {
    lower: |o| serde_json::Value::Object(o.0).to_string(),
    try_lift: |s| Ok(JsonObject(serde_json::from_str(&s)?)),
});

uniffi::custom_type!(JsonValue, String, {
    lower: |v| v.0.to_string(),
    try_lift: |s| Ok(JsonValue(serde_json::from_str(&s)?)),
});

uniffi::custom_type!(Value, String, {
    remote,
    lower: |v| v.to_string(),
    try_lift: |s| Ok(serde_json::from_str(&s)?),
});

uniffi::custom_type!(IpAddr, String, {
    remote,
    lower: |ip| ip.to_string(),
    try_lift: |s| Ok(s.parse()?),
});

uniffi::custom_type!(Timestamp, SystemTime, {
    remote,
    lower: |t| t.into(),
    try_lift: |t| Ok(t.into()),
});

/// A map kept sorted in Rust (so that JSON keys come out in a stable order); a plain map on
/// the foreign side.
type SortedStringMap = std::collections::BTreeMap<String, String>;

uniffi::custom_type!(SortedStringMap, std::collections::HashMap<String, String>, {
    remote,
    lower: |m| m.into_iter().collect(),
    try_lift: |m| Ok(m.into_iter().collect()),
});
