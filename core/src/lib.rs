//! Waymark core: the Location Platform REST contract ([`api`]), the [`Engine`] with one method
//! per endpoint, offline keys, restrictions, rate limits and quotas ([`auth`]), the endpoint
//! table ([`endpoint`]), the two error tiers ([`error`]) and the geometry every area and the
//! pack builder share ([`geo`]).
//!
//! Faces: the local server (`waymark-localserver`) and the native SDK (`waymark-ffi`) are thin
//! callers of [`Engine`]; they never redefine a contract type.
//!
//! With the `uniffi` feature the contract types also derive uniffi's `Record`/`Enum`/`Error`, so
//! that the FFI exports these very types (no copies, no conversions). uniffi's derives and
//! scaffolding expand to `unsafe impl`s of its FFI traits: the crate allows `unsafe_code` only
//! when that feature is on, and holds no hand-written `unsafe`.
#![cfg_attr(feature = "uniffi", allow(unsafe_code))]

// `#[derive(FromQuery)]` (crate `waymark-derive`) names this crate `::waymark_core`, also when
// the contract types use it here.
extern crate self as waymark_core;

#[cfg(feature = "uniffi")]
uniffi::setup_scaffolding!("waymark_core");
pub mod api;
pub mod auth;
pub mod datasets;
pub mod distance;
pub mod endpoint;
pub mod engine;
pub mod error;
pub mod geo;
pub mod geolocation;
pub mod indoor;
pub mod localities;
pub mod map;
pub mod operation;
pub mod packs;
#[cfg(test)]
mod parser_props;
pub mod routing;
pub mod stores;
pub mod threewords;
mod varint;

pub use engine::{Engine, EngineConfig};
pub use error::{ApiError, ErrorCode};
