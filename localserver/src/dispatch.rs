//! From a routed request to the engine, for any endpoint: the endpoint table's
//! [`Endpoint::visit`] hands [`Dispatch`] the request type `R` of the endpoint; it parses the
//! HTTP pieces into `R` ([`FromRequestParts`], every problem at once), lets the engine admit
//! and answer it ([`Engine::answer`]) and writes the reply the endpoint's row asks for. There
//! is no code per endpoint here.
use std::sync::Arc;

use warp::reply::Response;
use waymark_core::Engine;
use waymark_core::api::RequestHeaders;
use waymark_core::auth::Caller;
use waymark_core::endpoint::Endpoint;
use waymark_core::error::ApiError;
use waymark_core::operation::{Credentials, Operation, OperationVisitor};

/// A routed request, owned so that it can move to the blocking pool.
#[derive(Debug)]
pub struct Dispatch {
    /// The engine.
    pub engine: Arc<Engine>,
    /// The endpoint the path matched.
    pub endpoint: Endpoint,
    /// Credentials and what restrictions are checked against.
    pub caller: Caller,
    /// Decoded query pairs.
    pub pairs: Vec<(String, String)>,
    /// The input headers.
    pub headers: RequestHeaders,
    /// Decoded path parameters, in path order.
    pub path_params: Vec<String>,
    /// The body (empty for GET and DELETE).
    pub body: Vec<u8>,
}

impl Dispatch {
    /// Parses, admits, answers and replies.
    pub fn run(self) -> Result<Response, ApiError> {
        self.endpoint.visit(self)
    }
}

impl OperationVisitor for Dispatch {
    type Output = Result<Response, ApiError>;

    fn visit<R: Operation>(self) -> Self::Output {
        let parsed = R::from_parts(&self.pairs, &self.headers, &self.path_params, &self.body);
        let answer = self
            .engine
            .answer(&Credentials::Http(&self.caller), parsed)?;
        crate::reply::success(self.endpoint, answer, &self.path_params, &self.pairs)
    }
}
