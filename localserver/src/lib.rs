//! The Waymark local server: the Location Platform REST contract on `127.0.0.1` for hybrid
//! apps and web views, answered by the same [`Engine`] as the native SDK.
//!
//! Data flow: a single warp filter extracts method, path, query, headers, connection address
//! and body; [`handler`] checks the `Host` (DNS-rebinding protection), answers CORS preflights,
//! routes the path through [`Endpoint::match_path`](waymark_core::endpoint::Endpoint::match_path),
//! and [`dispatch`] parses the request into its `core::api` type and hands it to
//! [`Engine::answer`](waymark_core::Engine::answer), which admits and answers it; [`reply`]
//! writes the response the endpoint's row asks for. Errors become HTTP through the one mapping
//! in `waymark_core::error`. Every API response is JSON; [`web`] serves the embedded demo page
//! at `/` (a hybrid app's view of the API, drawing its map from `GET /map/features`).
//!
//! ```no_run
//! # async fn run(engine: std::sync::Arc<waymark_core::Engine>) -> std::io::Result<()> {
//! use waymark_localserver::{ServerConfig, serve};
//! let config = ServerConfig::default();
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8787").await?;
//! serve(engine, config, listener, async { let _ = tokio::signal::ctrl_c().await; }).await;
//! # Ok(()) }
//! ```
pub mod dispatch;
pub mod handler;
pub mod openapi;
pub mod reply;
pub mod web;

use std::future::Future;
use std::sync::Arc;

use warp::Filter;
use waymark_core::Engine;

/// Configuration of the HTTP face.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Host names accepted in the `Host` header besides the loopback names (`localhost`,
    /// `*.localhost`, `127.0.0.0/8`, `[::1]`). Needed only when binding a non-loopback address.
    pub extra_allowed_hosts: Vec<String>,
    /// Largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Public key written into the demo page at `/` (development mode gives its own); without
    /// one the page asks for `?key=` in its address.
    pub page_key: Option<String>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            extra_allowed_hosts: Vec::new(),
            max_body_bytes: 16 * 1024 * 1024,
            page_key: None,
        }
    }
}

/// The whole server as one warp filter (also used with `warp::test`).
pub fn routes(
    engine: Arc<Engine>,
    config: ServerConfig,
) -> impl Filter<Extract = (warp::reply::Response,), Error = warp::Rejection> + Clone {
    let ctx = Arc::new(handler::Context::new(engine, config));
    let raw_query = warp::query::raw().or(warp::any().map(String::new)).unify();
    warp::any()
        .map(move || ctx.clone())
        .and(warp::method())
        .and(warp::path::full())
        .and(raw_query)
        .and(warp::header::headers_cloned())
        .and(warp::addr::remote())
        .and(warp::body::stream())
        .then(handler::handle)
}

/// Serves on `listener` until `shutdown` completes, then lets in-flight requests finish.
pub async fn serve(
    engine: Arc<Engine>,
    config: ServerConfig,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    warp::serve(routes(engine, config))
        .incoming(listener)
        .graceful(shutdown)
        .run()
        .await;
}
