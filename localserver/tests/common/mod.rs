//! Test fixture: an engine with a publisher and keys of every kind, served on a real
//! 127.0.0.1 port and reachable through `warp::test` as well.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use waymark_core::api::ApiGroup;
use waymark_core::auth::RateLimitMode;
use waymark_core::auth::keys::{
    AndroidApp, KeyClaims, KeyScope, PrivateRestriction, PublicRestrictions, Publisher,
};
use waymark_core::{Engine, EngineConfig};
use waymark_localserver::ServerConfig;

pub const SHA1: &str = "A1B2C3D4E5F60718293A4B5C6D7E8F9012345678";

/// Keys of every kind, signed by the fixture's publisher.
pub struct Keys {
    pub public: String,
    pub public_ip_only: String,
    pub public_star: String,
    pub private: String,
    pub private_write: String,
    pub ios: String,
    pub android: String,
    pub ip_loopback: String,
    pub ip_elsewhere: String,
    pub expired: String,
    pub quota3: String,
    pub distance_only: String,
    pub untrusted: String,
}

fn private(write: bool, restriction: PrivateRestriction) -> KeyClaims {
    KeyClaims::new(KeyScope::Private { write, restriction })
}

impl Keys {
    pub fn issue(p: &Publisher) -> Keys {
        let public = KeyClaims::new(KeyScope::Public(PublicRestrictions {
            domains: vec!["example.com".into(), "*.maps.example.org".into()],
            ips: vec![],
        }));
        let public_ip_only = KeyClaims::new(KeyScope::Public(PublicRestrictions {
            domains: vec![],
            ips: vec!["127.0.0.0/8".parse().unwrap()],
        }));
        let public_star = KeyClaims::new(KeyScope::Public(PublicRestrictions {
            domains: vec!["*".into()],
            ips: vec![],
        }));
        let mut expired = private(false, PrivateRestriction::None);
        expired.exp = Some(1_000_000);
        let mut quota3 = private(false, PrivateRestriction::None);
        quota3.quota = Some(3);
        let mut distance_only = private(false, PrivateRestriction::None);
        distance_only.apis = vec![ApiGroup::Distance];
        let other = Publisher::generate().unwrap();
        Keys {
            public: p.issue(&public).unwrap(),
            public_ip_only: p.issue(&public_ip_only).unwrap(),
            public_star: p.issue(&public_star).unwrap(),
            private: p.issue(&private(false, PrivateRestriction::None)).unwrap(),
            private_write: p.issue(&private(true, PrivateRestriction::None)).unwrap(),
            ios: p
                .issue(&private(
                    false,
                    PrivateRestriction::Ios {
                        bundle_ids: vec!["com.example.app".into()],
                    },
                ))
                .unwrap(),
            android: p
                .issue(&private(
                    false,
                    PrivateRestriction::Android {
                        apps: vec![AndroidApp {
                            package: "com.example.app".into(),
                            sha1: SHA1.into(),
                        }],
                    },
                ))
                .unwrap(),
            ip_loopback: p
                .issue(&private(
                    false,
                    PrivateRestriction::Ip {
                        ips: vec!["127.0.0.1/32".parse().unwrap()],
                    },
                ))
                .unwrap(),
            ip_elsewhere: p
                .issue(&private(
                    false,
                    PrivateRestriction::Ip {
                        ips: vec!["10.0.0.0/8".parse().unwrap()],
                    },
                ))
                .unwrap(),
            expired: p.issue(&expired).unwrap(),
            quota3: p.issue(&quota3).unwrap(),
            distance_only: p.issue(&distance_only).unwrap(),
            untrusted: other
                .issue(&private(true, PrivateRestriction::None))
                .unwrap(),
        }
    }
}

/// A request, sent either through warp::test or over real HTTP.
#[derive(Clone, Debug, Default)]
pub struct Req {
    pub method: &'static str,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Req {
    pub fn get(target: impl Into<String>) -> Req {
        Req {
            method: "GET",
            target: target.into(),
            ..Req::default()
        }
    }
    pub fn with_method(method: &'static str, target: impl Into<String>) -> Req {
        Req {
            method,
            target: target.into(),
            ..Req::default()
        }
    }
    pub fn header(mut self, name: &str, value: &str) -> Req {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
    pub fn body(mut self, body: &str) -> Req {
        self.body = body.as_bytes().to_vec();
        self
    }
}

/// A response: status, lower-case headers, JSON body (`Value::Null` when empty).
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A running server and the engine behind it.
pub struct Server {
    pub dir: tempfile::TempDir,
    pub publisher: Publisher,
    pub keys: Keys,
    pub engine: Arc<Engine>,
    pub addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Server {
    pub fn start() -> Server {
        Self::start_with(RateLimitMode::Spec)
    }

    pub fn start_with(mode: RateLimitMode) -> Server {
        Self::start_with_config(mode, |_, _| ServerConfig::default())
    }

    /// A server whose HTTP configuration `config` makes from the publisher and keys.
    pub fn start_with_config(
        mode: RateLimitMode,
        config: impl FnOnce(&Publisher, &Keys) -> ServerConfig,
    ) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let publisher = Publisher::generate().unwrap();
        let keys = Keys::issue(&publisher);
        let server_config = config(&publisher, &keys);
        let mut config = EngineConfig::new(dir.path(), vec![publisher.verifying()]);
        config.rate_limits = mode;
        config.packs_dir = Some(dir.path().join("packs"));
        let engine = Arc::new(Engine::open(config).unwrap());
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        runtime.spawn(waymark_localserver::serve(
            engine.clone(),
            server_config,
            listener,
            async move {
                let _ = stopped.await;
            },
        ));
        Server {
            dir,
            publisher,
            keys,
            engine,
            addr,
            runtime: Some(runtime),
            stop: Some(stop),
        }
    }

    /// Sends over a real TCP connection to 127.0.0.1 (HTTP/1.1, `Connection: close`).
    pub fn http(&self, req: &Req) -> Resp {
        parse_response(&self.http_raw(req))
    }

    /// As [`Server::http`], returning the raw response bytes (for bodies that are not JSON).
    pub fn http_raw(&self, req: &Req) -> Vec<u8> {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let has_host = req
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("host"));
        let mut head = format!("{} {} HTTP/1.1\r\n", req.method, req.target);
        if !has_host {
            head.push_str(&format!("Host: {}\r\n", self.addr));
        }
        for (k, v) in &req.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str(&format!(
            "Content-Length: {}\r\nConnection: close\r\n\r\n",
            req.body.len()
        ));
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(&req.body).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        raw
    }

    /// Sends through `warp::test` (no socket), with the connection address 127.0.0.1.
    pub fn warp(&self, req: &Req) -> Resp {
        let routes = waymark_localserver::routes(self.engine.clone(), ServerConfig::default());
        let mut builder = warp::test::request()
            .method(req.method)
            .path(&req.target)
            .remote_addr("127.0.0.1:50000".parse().unwrap())
            .body(req.body.clone());
        let has_host = req
            .headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("host"));
        if !has_host {
            builder = builder.header("host", "127.0.0.1");
        }
        for (k, v) in &req.headers {
            builder = builder.header(k.as_str(), v.as_str());
        }
        let resp = self
            .runtime
            .as_ref()
            .unwrap()
            .block_on(builder.reply(&routes));
        let headers = resp
            .headers()
            .iter()
            .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
            .collect();
        let body = if resp.body().is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(resp.body()).expect("every body is JSON")
        };
        Resp {
            status: resp.status().as_u16(),
            headers,
            body,
        }
    }

    /// Sends both ways and checks the two faces agree; returns the HTTP answer.
    pub fn both(&self, req: &Req) -> Resp {
        let a = self.warp(req);
        let b = self.http(req);
        assert_eq!(a.status, b.status, "warp::test vs http for {req:?}");
        assert_eq!(a.body, b.body, "warp::test vs http for {req:?}");
        b
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_timeout(Duration::from_secs(5));
        }
    }
}

fn parse_response(raw: &[u8]) -> Resp {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("response has a header block");
    let head = std::str::from_utf8(&raw[..split]).unwrap();
    let mut body = raw[split + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    let body = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body).unwrap_or_else(|e| {
            panic!("body is not JSON ({e}): {}", String::from_utf8_lossy(&body))
        })
    };
    Resp {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(line_end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(std::str::from_utf8(&data[..line_end]).unwrap().trim(), 16)
                .unwrap();
        if size == 0 {
            return out;
        }
        let start = line_end + 2;
        out.extend_from_slice(&data[start..start + size]);
        data = &data[start + size + 2..];
    }
}

/// Whether a status means the request got past authentication, restrictions and limits.
pub fn passed_auth(status: u16) -> bool {
    !matches!(status, 401 | 402 | 403 | 429)
}

/// `target` with one more query parameter `name=value`.
#[allow(dead_code)]
pub fn with_query(target: &str, name: &str, value: &str) -> String {
    let sep = if target.contains('?') { '&' } else { '?' };
    format!("{target}{sep}{name}={value}")
}

/// A server with a stores pack of 20 generated stores (`G0`..`G19`, each with zone `G<n>D`)
/// installed.
pub fn stores_server() -> (Server, Vec<waymark_packs::stores::StoreAsset>) {
    use waymark_packs::stores::synthetic;
    let s = Server::start_with(RateLimitMode::Off);
    let stores = synthetic::generate(20, 3, synthetic::DEFAULT_BBOX);
    let sources = waymark_packs::sources::Sources::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"),
    )
    .unwrap();
    let plan = waymark_packs::build::PackPlan {
        id: "retail".into(),
        osm: vec!["osm-monaco".into()],
        layers: vec!["places".into()],
        base: false,
        routing: Default::default(),
    };
    let (dir, _) = waymark_packs::stores::pack::build_with_stores(
        &plan,
        "1",
        &sources,
        &stores,
        waymark_packs::stores::pack::customer_source("proprietary", "generated test stores"),
        &s.dir.path().join("built"),
    )
    .unwrap();
    waymark_packs::build::sign_pack(&dir, &s.publisher).unwrap();
    s.engine
        .install_pack(
            &format!("file://{}", dir.canonicalize().unwrap().display()),
            &mut |_| {},
        )
        .unwrap();
    (s, stores)
}

/// Polls `GET /packs/installs/{id}` until the install is no longer in progress (60 s at most: a delta may prepare routing graphs).
pub fn wait_install(s: &Server, w: &str, id: &str) -> serde_json::Value {
    let mut status = Value::Null;
    for _ in 0..3000 {
        status = s
            .http(&Req::get(format!("/packs/installs/{id}")).header("X-Api-Key", w))
            .body;
        if status["status"] != "in_progress" {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    status
}
