//! Waymark core: the Location Platform REST contract ([`api`]), the [`Engine`] with one method
//! per endpoint, offline keys, restrictions, rate limits and quotas ([`auth`]), the endpoint
//! table ([`endpoint`]) and the two error tiers ([`error`]).
//!
//! Faces: the local server (`waymark-localserver`) and the native SDK (`waymark-ffi`) are thin
//! callers of [`Engine`]; they never redefine a contract type.
pub mod api;
pub mod auth;
pub mod distance;
pub mod endpoint;
pub mod engine;
pub mod error;
pub mod geolocation;
pub mod localities;
pub mod packs;
pub mod routing;

pub use engine::{Engine, EngineConfig};
pub use error::{ApiError, ErrorCode};
