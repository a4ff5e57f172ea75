//! The one request handler: Host check, CORS, routing, reading the body, then [`Dispatch`]
//! (parse, admit, answer) on the I/O worker or the blocking pool as the endpoint's row says,
//! and the JSON response; the demo page's files ([`crate::web`]) for the paths it serves. Keys
//! never reach the logs (only the path is logged, not the query).
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use futures_util::StreamExt;
use warp::Buf;
use warp::http::{HeaderMap, HeaderValue, Method as HttpMethod, StatusCode, header};
use warp::path::FullPath;
use warp::reply::Response;
use waymark_core::Engine;
use waymark_core::api::RequestHeaders;
use waymark_core::auth::{AppIdentity, Caller};
use waymark_core::endpoint::{Endpoint, Method, RouteMatch, Run};
use waymark_core::error::{ApiError, ErrorCode};

use crate::ServerConfig;
use crate::dispatch::Dispatch;
use crate::reply::{error_response, json_response};

/// Headers a browser may send on cross-origin calls.
const CORS_ALLOW_HEADERS: &str = "accept-language, content-type, x-api-key, x-field-mask, \
     x-ios-identifier, x-android-identifier, x-android-fingerprint";

/// Shared state of the handler.
#[derive(Debug)]
pub struct Context {
    engine: Arc<Engine>,
    config: ServerConfig,
    openapi: bytes::Bytes,
    site: crate::web::Site,
}

impl Context {
    /// A context serving `engine`.
    pub fn new(engine: Arc<Engine>, config: ServerConfig) -> Self {
        let openapi = serde_json::to_vec(&crate::openapi::document()).unwrap_or_default();
        let site = crate::web::Site::new(config.page_key.as_deref());
        Context {
            engine,
            config,
            openapi: openapi.into(),
            site,
        }
    }
}

/// A request as the handler sees it.
struct Incoming {
    method: HttpMethod,
    path: String,
    pairs: Vec<(String, String)>,
    headers: HeaderMap,
    remote: Option<SocketAddr>,
}

impl Incoming {
    fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    }

    fn param(&self, name: &str) -> Option<String> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }

    fn caller(&self) -> Caller {
        Caller {
            key: self.param("key"),
            private_key: self.param("private_key"),
            api_key_header: self.header("x-api-key"),
            referer: self.header("referer"),
            origin: self.header("origin"),
            peer_ip: self.remote.map(|a| a.ip()),
            app: AppIdentity {
                ios_bundle_id: self.header("x-ios-identifier"),
                android_package: self.header("x-android-identifier"),
                android_cert_sha1: self.header("x-android-fingerprint"),
            },
        }
    }
}

/// Handles one request; never fails (every outcome is a JSON response).
pub async fn handle<S, B>(
    ctx: Arc<Context>,
    method: HttpMethod,
    path: FullPath,
    raw_query: String,
    headers: HeaderMap,
    remote: Option<SocketAddr>,
    body: S,
) -> Response
where
    S: futures_util::Stream<Item = Result<B, warp::Error>> + Send,
    B: Buf,
{
    let started = Instant::now();
    let req = Incoming {
        method,
        path: path.as_str().to_string(),
        pairs: url::form_urlencoded::parse(raw_query.as_bytes())
            .into_owned()
            .collect(),
        headers,
        remote,
    };
    let (endpoint, mut response) = respond(&ctx, &req, body).await;
    add_cors(&ctx, &req, &mut response);
    tracing::info!(
        method = %req.method,
        path = %req.path,
        endpoint = endpoint.map(Endpoint::name).unwrap_or("-"),
        status = response.status().as_u16(),
        micros = started.elapsed().as_micros() as u64,
        "request"
    );
    response
}

async fn respond<S, B>(ctx: &Context, req: &Incoming, body: S) -> (Option<Endpoint>, Response)
where
    S: futures_util::Stream<Item = Result<B, warp::Error>> + Send,
    B: Buf,
{
    if let Err(e) = check_host(&ctx.config, &req.headers) {
        return (None, error_response(e.to_http_unrouted()));
    }
    if req.method == HttpMethod::HEAD
        && let Some(resp) = ctx.site.respond(&req.path, &req.headers, true)
    {
        return (None, resp);
    }
    let method = match req.method {
        HttpMethod::GET => Method::Get,
        HttpMethod::POST => Method::Post,
        HttpMethod::PUT => Method::Put,
        HttpMethod::DELETE => Method::Delete,
        HttpMethod::OPTIONS => return (None, preflight(ctx, req)),
        ref other => return (None, method_not_allowed(ctx, req, other.as_str())),
    };
    let path = req.path.strip_suffix('/').unwrap_or(&req.path);
    if path == "/openapi.json" {
        if method != Method::Get {
            return (None, method_not_allowed(ctx, req, method.as_str()));
        }
        return (None, json_response(StatusCode::OK, ctx.openapi.clone()));
    }
    if method == Method::Get
        && let Some(resp) = ctx.site.respond(&req.path, &req.headers, false)
    {
        return (None, resp);
    }
    let (endpoint, raw_params) = match Endpoint::match_path(method, &req.path) {
        RouteMatch::Found(ep, params) => (ep, params),
        RouteMatch::MethodNotAllowed(_) => {
            return (None, method_not_allowed(ctx, req, method.as_str()));
        }
        RouteMatch::NotFound => {
            // A 404, or a 405 for a file of the demo page asked with another method.
            return (None, method_not_allowed(ctx, req, method.as_str()));
        }
    };
    let path_params: Vec<String> = raw_params
        .iter()
        .map(|p| {
            percent_encoding::percent_decode_str(p)
                .decode_utf8_lossy()
                .into_owned()
        })
        .collect();
    let result = async {
        let body = if matches!(method, Method::Post | Method::Put) {
            read_body(body, ctx.config.max_body_bytes).await?
        } else {
            Vec::new()
        };
        let dispatch = Dispatch {
            engine: ctx.engine.clone(),
            endpoint,
            caller: req.caller(),
            pairs: req.pairs.clone(),
            headers: RequestHeaders {
                accept_language: req.header("accept-language"),
                x_field_mask: req.header("x-field-mask"),
            },
            path_params,
            body,
        };
        match endpoint.run() {
            // Cheap lookups run on the I/O worker: a thread hand-off would cost more than they do.
            Run::Inline => {
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| dispatch.run()))
                    .unwrap_or_else(|_| Err(panicked(endpoint)))
            }
            Run::Blocking => tokio::task::spawn_blocking(move || dispatch.run())
                .await
                .unwrap_or_else(|_| Err(panicked(endpoint))),
        }
    }
    .await;
    let response = result.unwrap_or_else(|e| error_response(e.to_http(endpoint)));
    (Some(endpoint), response)
}

/// The methods a path answers: those of its operations, `GET` for `/openapi.json`, `GET` and
/// `HEAD` for the demo page's files; empty for a path that does not exist.
fn allowed_methods(ctx: &Context, req: &Incoming) -> Vec<&'static str> {
    let path = req.path.strip_suffix('/').unwrap_or(&req.path);
    if path == "/openapi.json" {
        return vec!["GET"];
    }
    let methods: Vec<&'static str> = Endpoint::methods_at(&req.path)
        .into_iter()
        .map(Method::as_str)
        .collect();
    if methods.is_empty() && ctx.site.respond(&req.path, &req.headers, true).is_some() {
        return vec!["GET", "HEAD"];
    }
    methods
}

/// A 405 naming the methods of the path in its `Allow` header (a 404 when the path does not
/// exist for any method).
fn method_not_allowed(ctx: &Context, req: &Incoming, method: &str) -> Response {
    let allowed = allowed_methods(ctx, req);
    if allowed.is_empty() {
        let e = ApiError::not_found(format!(
            "no endpoint at {}; the endpoints are listed in /openapi.json",
            req.path
        ));
        return error_response(e.to_http_unrouted());
    }
    let names = allowed.join(", ");
    let e = ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{method} is not allowed on {}; use {names}", req.path),
    );
    let mut resp = error_response(e.to_http_unrouted());
    if let Ok(v) = HeaderValue::from_str(&names) {
        resp.headers_mut().insert(header::ALLOW, v);
    }
    resp
}

/// The answer of an operation that panicked (logged; the server keeps serving).
fn panicked(endpoint: Endpoint) -> ApiError {
    tracing::error!(endpoint = endpoint.name(), "operation panicked");
    ApiError::new(
        ErrorCode::Internal,
        "internal error; the details are in the waymark log",
    )
}

async fn read_body<S, B>(body: S, limit: usize) -> Result<Vec<u8>, ApiError>
where
    S: futures_util::Stream<Item = Result<B, warp::Error>> + Send,
    B: Buf,
{
    let mut body = std::pin::pin!(body);
    let mut out = Vec::new();
    while let Some(chunk) = body.next().await {
        let mut chunk = chunk.map_err(|e| {
            ApiError::new(
                ErrorCode::BadRequest,
                format!("could not read the request body: {e}"),
            )
        })?;
        while chunk.has_remaining() {
            let part = chunk.chunk();
            if out.len() + part.len() > limit {
                return Err(ApiError::new(
                    ErrorCode::PayloadTooLarge,
                    format!("the request body is larger than {limit} bytes"),
                ));
            }
            out.extend_from_slice(part);
            let n = part.len();
            chunk.advance(n);
        }
    }
    Ok(out)
}

/// Refuses requests whose `Host` is not a loopback name or an explicitly allowed host, so that
/// a web page on another domain cannot reach the server through DNS rebinding.
fn check_host(config: &ServerConfig, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return Err(ApiError::forbidden(
            "the request has no `Host` header; waymark answers only requests addressed to localhost",
        ));
    };
    let name = host_name(host);
    let loopback = name == "localhost"
        || name.ends_with(".localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    if loopback
        || config
            .extra_allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(&name))
    {
        Ok(())
    } else {
        Err(ApiError::forbidden(format!(
            "host `{name}` is not allowed: waymark answers only requests addressed to localhost, \
             127.0.0.1 or [::1] (start it with --allow-host to accept another name)"
        )))
    }
}

/// Host name of a `Host` header value, without port and brackets, lower-case.
fn host_name(host: &str) -> String {
    let host = host.trim();
    let name = if let Some(v6) = host.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default()
    };
    name.to_ascii_lowercase()
}

/// Answers a CORS preflight: allowed when the public `key` in the query allows the `Origin`.
fn preflight(ctx: &Context, req: &Incoming) -> Response {
    let origin = req.header("origin");
    let key = req.param("key");
    let allowed = match (&origin, &key) {
        (Some(origin), Some(key)) => ctx.engine.authorizer().cors_allows(key, origin),
        _ => false,
    };
    if !allowed {
        let e = ApiError::forbidden(
            "cross-origin request refused: send the public `key` in the query string, and call \
             from a page whose origin matches one of the key's domain restrictions",
        );
        return error_response(e.to_http_unrouted());
    }
    let mut resp = Response::new(Vec::<u8>::new().into());
    *resp.status_mut() = StatusCode::NO_CONTENT;
    let h = resp.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, PUT, DELETE, OPTIONS"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(CORS_ALLOW_HEADERS),
    );
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    resp
}

/// Adds `Access-Control-Allow-Origin` when the request's public key allows its origin.
fn add_cors(ctx: &Context, req: &Incoming, resp: &mut Response) {
    let (Some(origin), Some(key)) = (req.header("origin"), req.param("key")) else {
        return;
    };
    if ctx.engine.authorizer().cors_allows(&key, &origin)
        && let Ok(v) = HeaderValue::from_str(&origin)
    {
        let h = resp.headers_mut();
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        h.insert(header::VARY, HeaderValue::from_static("Origin"));
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("retry-after, location, x-data-attribution"),
        );
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn headers_with_host(host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        h
    }

    #[test]
    fn loopback_hosts_pass_and_others_are_refused() {
        let c = ServerConfig::default();
        for ok in [
            "localhost",
            "localhost:8787",
            "127.0.0.1:1",
            "127.9.9.9",
            "[::1]:80",
            "app.localhost",
        ] {
            assert!(check_host(&c, &headers_with_host(ok)).is_ok(), "{ok}");
        }
        for bad in [
            "evil.com",
            "evil.com:8787",
            "localhost.evil.com",
            "192.168.1.5",
            "[2001:db8::1]",
        ] {
            let e = check_host(&c, &headers_with_host(bad)).unwrap_err();
            assert_eq!(e.code, ErrorCode::Forbidden, "{bad}");
        }
        assert!(check_host(&c, &HeaderMap::new()).is_err());
        let c = ServerConfig {
            extra_allowed_hosts: vec!["devbox.lan".into()],
            ..ServerConfig::default()
        };
        assert!(check_host(&c, &headers_with_host("DevBox.lan:8787")).is_ok());
    }
}
