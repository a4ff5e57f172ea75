//! Operations: the one way every face calls the engine.
//!
//! Each request type of `core::api` is an [`Operation`] (the endpoint table implements it, see
//! [`crate::endpoint`]): it knows its endpoint, its response type, the rate bucket it falls in
//! and the engine function that answers it. A face hands the engine the caller's
//! [`Credentials`] and a request; [`Engine::call`] admits it exactly once:
//!
//! 1. authentication, restrictions, permissions and the rate limit of the request's bucket
//!    (401, 403, 429) — before anything about the request is reported, so a caller without
//!    valid credentials learns nothing about the parameters;
//! 2. the parse errors of an HTTP request, if any (422, every problem at once);
//! 3. the request's own rules ([`Validate`], 422);
//! 4. the engine function, with a [`Call`]: the only way to charge the free quota (402) and
//!    to attribute the answer to the data that produced it.
//!
//! ```
//! use std::sync::Arc;
//! use waymark_core::{Engine, EngineConfig};
//! use waymark_core::api::{LatLng, TimezoneRequest};
//! use waymark_core::auth::{Caller, keys::{Publisher, KeyClaims, KeyScope, PrivateRestriction}};
//! use waymark_core::operation::Credentials;
//! let dir = tempfile::tempdir().unwrap();
//! let publisher = Publisher::generate().unwrap();
//! let engine = Arc::new(Engine::open(EngineConfig::new(dir.path(), vec![publisher.verifying()])).unwrap());
//! let key = publisher.issue(&KeyClaims::new(KeyScope::Private {
//!     write: false, restriction: PrivateRestriction::None })).unwrap();
//! let caller = Caller { api_key_header: Some(key), ..Caller::default() };
//! let request = TimezoneRequest { location: LatLng { lat: 91.0, lng: 0.0 }, ..Default::default() };
//! // Admitted, then refused by the request's own rules.
//! let err = engine.call(&Credentials::Http(&caller), request).unwrap_err();
//! assert_eq!(err.code, waymark_core::ErrorCode::Validation);
//! ```
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Engine;
use crate::api::{DescribeRequest, FieldError, FromRequestParts, Validate};
use crate::auth::{AppIdentity, Authorizer, Caller, Grant};
use crate::endpoint::Endpoint;
use crate::error::ApiError;

/// A request of the contract: its endpoint, its response and the engine function answering
/// it. Implemented for every request type by the endpoint table; faces use it through
/// [`Engine::call`] and [`Endpoint::visit`].
pub trait Operation:
    FromRequestParts
    + DescribeRequest
    + Validate
    + Serialize
    + DeserializeOwned
    + Described
    + Send
    + Sized
    + 'static
{
    /// The endpoint.
    const ENDPOINT: Endpoint;
    /// What it answers.
    type Response: Serialize + Described + Send + 'static;

    /// The rate bucket this request is charged to: the endpoint's own, or a bucket of its own
    /// named by the table (a route asking for traffic).
    fn rate_bucket(&self) -> Endpoint;

    /// Answers the admitted and validated request.
    fn run(self, engine: &Arc<Engine>, call: &mut Call<'_>) -> Result<Self::Response, ApiError>;
}

/// A type whose JSON Schema is known: `schemars::JsonSchema` with the `schema` feature (the
/// local server's OpenAPI document), nothing without it.
#[cfg(feature = "schema")]
pub trait Described: schemars::JsonSchema {}
#[cfg(feature = "schema")]
impl<T: schemars::JsonSchema> Described for T {}
/// A type whose JSON Schema is known: `schemars::JsonSchema` with the `schema` feature (the
/// local server's OpenAPI document), nothing without it.
#[cfg(not(feature = "schema"))]
pub trait Described {}
#[cfg(not(feature = "schema"))]
impl<T> Described for T {}

/// Something done with the request type of an endpoint known only at run time (see
/// [`Endpoint::visit`]): the local server parses and calls through it.
pub trait OperationVisitor {
    /// The result.
    type Output;
    /// Called with `R`, the request type of the visited endpoint.
    fn visit<R: Operation>(self) -> Self::Output;
}

/// Who is calling, as the face knows it.
#[derive(Debug, Clone, Copy)]
pub enum Credentials<'a> {
    /// An HTTP request: credentials in the query or headers, Referer, connection address.
    Http(&'a Caller),
    /// A native SDK call: the app's private key and the identity the platform reported.
    Native {
        /// The key the SDK was opened with.
        key: &'a str,
        /// The app's identity from the OS.
        app: &'a AppIdentity,
    },
}

/// An admitted call: the grant, the one way to charge the free quota, and the attribution
/// the answer carries.
#[derive(Debug)]
pub struct Call<'a> {
    grant: Grant,
    auth: &'a Authorizer,
    attribution: Option<String>,
}

impl<'a> Call<'a> {
    pub(crate) fn new(grant: Grant, auth: &'a Authorizer) -> Self {
        Call {
            grant,
            auth,
            attribution: None,
        }
    }

    /// What the caller was admitted with.
    pub fn grant(&self) -> &Grant {
        &self.grant
    }

    /// Charges the request to the key's free quota (402 when it is used up). Operations call
    /// it once they know they can answer, so refused requests cost nothing.
    pub fn charge(&self) -> Result<(), ApiError> {
        self.auth.charge(&self.grant)
    }

    /// Records the attribution the licences of the answering data ask for (the local server
    /// sends it in `X-Data-Attribution`); empty texts are ignored.
    pub fn attribute(&mut self, attribution: String) {
        if !attribution.is_empty() {
            self.attribution = Some(attribution);
        }
    }
}

/// An answer with what the faces show beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<T> {
    /// The response.
    pub value: T,
    /// The attribution of the data that answered, when its licence asks for one.
    pub attribution: Option<String>,
}

impl Engine {
    /// Admits `request` for `credentials` and answers it (see the module docs for the order
    /// of the checks).
    pub fn call<R: Operation>(
        self: &Arc<Self>,
        credentials: &Credentials<'_>,
        request: R,
    ) -> Result<R::Response, ApiError> {
        self.answer(credentials, Ok(request)).map(|a| a.value)
    }

    /// As [`Engine::call`] for a request as a face parsed it: `Err` holds the parse errors,
    /// which are reported (422) only once the caller is admitted. The answer keeps its
    /// attribution.
    pub fn answer<R: Operation>(
        self: &Arc<Self>,
        credentials: &Credentials<'_>,
        request: Result<R, Vec<FieldError>>,
    ) -> Result<Answer<R::Response>, ApiError> {
        let bucket = request.as_ref().map_or(R::ENDPOINT, Operation::rate_bucket);
        let mut call = self.admit(credentials, bucket)?;
        let request = request.map_err(ApiError::validation)?;
        request.validate().map_err(ApiError::validation)?;
        let value = request.run(self, &mut call);
        self.hold_resident_ceiling();
        let value = value?;
        Ok(Answer {
            value,
            attribution: call.attribution,
        })
    }

    /// Admits and validates `request` as [`Engine::call`] does, then answers it with `run`
    /// instead of the endpoint's own function: the native SDK's variants of an operation
    /// (a matrix computed at once, a pack install awaited with progress).
    pub fn call_with<R: Operation, T>(
        self: &Arc<Self>,
        credentials: &Credentials<'_>,
        request: R,
        run: impl FnOnce(&Arc<Self>, &mut Call<'_>, R) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let mut call = self.admit(credentials, request.rate_bucket())?;
        request.validate().map_err(ApiError::validation)?;
        let answer = run(self, &mut call, request);
        self.hold_resident_ceiling();
        answer
    }

    /// Authentication, restrictions, permissions and rate limit for `bucket`.
    fn admit(&self, credentials: &Credentials<'_>, bucket: Endpoint) -> Result<Call<'_>, ApiError> {
        let auth = self.authorizer();
        let grant = match credentials {
            Credentials::Http(caller) => auth.authorize(caller, bucket)?,
            Credentials::Native { key, app } => auth.authorize_native(key, app, bucket)?,
        };
        Ok(Call::new(grant, auth))
    }
}
