//! `waymark`: the local server and the development key tools.
//!
//! ```text
//! waymark serve [--port 8787] [--state-dir DIR] [--trust PUBLISHER_KEY]...
//! waymark keys new-publisher --out publisher.json
//! waymark keys issue --publisher publisher.json --kind public --domain example.com
//! waymark keys inspect <KEY> [--trust PUBLISHER_KEY]
//! waymark datasets create --name NAME --url URL [--wait]
//! waymark datasets list | status ID | delete ID
//! ```
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// mimalloc instead of glibc's malloc: glibc kept the memory of each pack set's indexes in its
/// per-thread arenas after a pack swap freed them, so the server's resident memory grew by
/// tens of megabytes at every install (docs/performance.md, "Reliability: soak, memory, cold start");
/// mimalloc returns freed segments to the system.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use waymark_core::api::ApiGroup;
use waymark_core::auth::RateLimitMode;
use waymark_core::auth::keys::{
    self, AndroidApp, KeyClaims, KeyScope, PrivateRestriction, PublicRestrictions, Publisher,
    PublisherKey,
};
use waymark_core::auth::restrictions::normalize_sha1;
use waymark_core::{Engine, EngineConfig};
use waymark_localserver::ServerConfig;

#[derive(Debug, Parser)]
#[command(
    name = "waymark",
    version,
    about = "Waymark offline location SDK: local server and key tools"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the local server (the REST contract on 127.0.0.1).
    Serve(ServeArgs),
    /// Issue and inspect development keys.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Print the OpenAPI 3.1 document the server serves at `/openapi.json`.
    Openapi,
    /// Create, list, follow and delete datasets on a running local server.
    Datasets(DatasetsArgs),
}

#[derive(Debug, Args)]
struct DatasetsArgs {
    /// The local server.
    #[arg(long, default_value = "http://127.0.0.1:8787")]
    server: String,
    /// A private key with write permission (default: the development key of --state-dir).
    #[arg(long, env = "WAYMARK_PRIVATE_KEY")]
    key: Option<String>,
    /// The server's state directory (for its development key).
    #[arg(long)]
    state_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: DatasetsCommand,
}

#[derive(Debug, Subcommand)]
enum DatasetsCommand {
    /// Create a dataset and start importing it from a URL.
    Create {
        /// Name of the dataset.
        #[arg(long)]
        name: String,
        /// `file:///`, `http://` or `https://` URL of a GeoJSON, newline-delimited GeoJSON,
        /// CSV or GeoPackage file.
        #[arg(long)]
        url: String,
        /// Remove the dataset automatically after this time (RFC 3339).
        #[arg(long)]
        delete_after: Option<String>,
        /// Wait for the import to finish and print its status.
        #[arg(long)]
        wait: bool,
    },
    /// List the datasets.
    List,
    /// Print the import status of a dataset.
    Status {
        /// Dataset id.
        id: String,
    },
    /// Delete a dataset.
    Delete {
        /// Dataset id.
        id: String,
    },
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Port to listen on.
    #[arg(long, default_value_t = 8787)]
    port: u16,
    /// Address to bind. Anything but a loopback address needs --allow-remote.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    bind: IpAddr,
    /// Allow binding a non-loopback address (exposes the server to the network).
    #[arg(long)]
    allow_remote: bool,
    /// Extra host name accepted in the Host header (repeatable).
    #[arg(long = "allow-host")]
    allow_hosts: Vec<String>,
    /// Directory for the server's state (quotas, jobs, development keys).
    #[arg(long)]
    state_dir: Option<PathBuf>,
    /// Base64 public key of a trusted publisher (repeatable). Without it the server runs in
    /// development mode with a local publisher and prints development keys.
    #[arg(long = "trust")]
    trust: Vec<String>,
    /// Rate limits: the spec's limits, or off.
    #[arg(long, value_enum, default_value_t = Limits::Spec)]
    rate_limits: Limits,
    /// A ceiling on the server's resident set, in megabytes: after every request that leaves it
    /// over, the pages of the packs' mapped routing layouts are unmapped (Linux and Android).
    #[arg(long, value_name = "MB")]
    resident_ceiling_mb: Option<u32>,
    /// Log format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Directory of installed data packs (default: `<state-dir>/packs`).
    #[arg(long)]
    packs: Option<PathBuf>,
    /// In development mode, do not build the Helsinki and base sample packs when no pack is
    /// installed.
    #[arg(long)]
    no_sample_packs: bool,
    /// `sources.toml` of the pack builder (for the sample packs).
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../data-packs/sources.toml"))]
    sources: PathBuf,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Limits {
    Spec,
    Off,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, Subcommand)]
enum KeysCommand {
    /// Create a publisher signing key (keep the file secret; give its public key to the SDK).
    NewPublisher {
        /// Where to write the publisher file.
        #[arg(long)]
        out: PathBuf,
    },
    /// Issue a key signed by a publisher.
    Issue(IssueArgs),
    /// Decode a key and, with --trust, verify it.
    Inspect {
        /// The key.
        key: String,
        /// Base64 public key of a trusted publisher (repeatable).
        #[arg(long = "trust")]
        trust: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Kind {
    Public,
    Private,
}

#[derive(Debug, Args)]
struct IssueArgs {
    /// Publisher file from `keys new-publisher`.
    #[arg(long)]
    publisher: PathBuf,
    /// Key kind.
    #[arg(long, value_enum)]
    kind: Kind,
    /// Project name.
    #[arg(long, default_value = "default")]
    project: String,
    /// Public keys: allowed domain (`example.com`, `*.example.com`, `*`); repeatable.
    #[arg(long = "domain")]
    domains: Vec<String>,
    /// Public keys, or private keys restricted by address: allowed IP or CIDR; repeatable.
    #[arg(long = "ip")]
    ips: Vec<String>,
    /// Private keys: allowed iOS bundle id; repeatable.
    #[arg(long = "ios")]
    ios: Vec<String>,
    /// Private keys: allowed Android app as `package:SHA1` (fingerprint with or without colons).
    #[arg(long = "android")]
    android: Vec<String>,
    /// Private keys: grant write permission.
    #[arg(long)]
    write: bool,
    /// Enabled API groups, comma-separated, or `all`.
    #[arg(long, default_value = "all")]
    apis: String,
    /// Licence option (repeatable), e.g. `advanced_postal_codes`.
    #[arg(long = "option")]
    options: Vec<String>,
    /// Free quota in requests.
    #[arg(long)]
    quota: Option<u64>,
    /// Expiry in days from now.
    #[arg(long)]
    expires_in_days: Option<i64>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve(args),
        Command::Keys(cmd) => keys_command(cmd),
        Command::Datasets(args) => datasets_command(args),
        Command::Openapi => serde_json::to_string_pretty(&waymark_localserver::openapi::document())
            .map(|doc| println!("{doc}"))
            .map_err(|e| format!("cannot write the OpenAPI document: {e}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("waymark: {msg}");
            ExitCode::FAILURE
        }
    }
}

fn keys_command(cmd: KeysCommand) -> Result<(), String> {
    match cmd {
        KeysCommand::NewPublisher { out } => {
            let publisher = Publisher::generate().map_err(|e| e.to_string())?;
            publisher.write_file(&out).map_err(|e| e.to_string())?;
            println!("publisher {} written to {}", publisher.id(), out.display());
            println!("trust it with: --trust {}", publisher.verifying().encode());
            Ok(())
        }
        KeysCommand::Issue(args) => {
            let publisher = Publisher::read_file(&args.publisher).map_err(|e| e.to_string())?;
            let claims = claims_from_args(&args)?;
            let key = publisher.issue(&claims).map_err(|e| e.to_string())?;
            if claims.scope
                == KeyScope::Public(PublicRestrictions {
                    domains: vec!["*".into()],
                    ips: vec![],
                })
            {
                eprintln!("warning: a lone `*` domain lets any web site use this key");
            }
            println!("{key}");
            Ok(())
        }
        KeysCommand::Inspect { key, trust } => {
            let claims = keys::decode_unverified(&key).map_err(|e| e.to_string())?;
            println!(
                "{}",
                serde_json::to_string_pretty(&claims).map_err(|e| e.to_string())?
            );
            if trust.is_empty() {
                println!("signature: not checked (give --trust PUBLISHER_KEY)");
                return Ok(());
            }
            let trusted = PublisherKey::parse_all(&trust).map_err(|e| e.to_string())?;
            match keys::verify(&key, &trusted)
                .and_then(|c| keys::check_expiry(&c, unix_now()).map(|()| c))
            {
                Ok(_) => {
                    println!("signature: valid");
                    Ok(())
                }
                Err(e) => Err(format!("signature: refused: {e}")),
            }
        }
    }
}

/// `waymark datasets ...`: calls the running local server with a write key.
fn datasets_command(args: DatasetsArgs) -> Result<(), String> {
    let key = match args.key {
        Some(k) => k,
        None => {
            let dir = args.state_dir.clone().unwrap_or_else(default_state_dir);
            let path = dir.join("dev-keys.json");
            let bytes = std::fs::read(&path).map_err(|e| {
                format!(
                    "no --key given and no development key in {}: {e}",
                    path.display()
                )
            })?;
            serde_json::from_slice::<DevKeys>(&bytes)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .private_key
        }
    };
    let base = args.server.trim_end_matches('/').to_owned();
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent();
    let call = |method: &str, path: &str, body: Option<serde_json::Value>| {
        let url = format!("{base}{path}");
        let resp = match (method, body) {
            ("POST", Some(b)) => agent.post(&url).header("X-Api-Key", &key).send_json(b),
            ("DELETE", _) => agent.delete(&url).header("X-Api-Key", &key).call(),
            _ => agent.get(&url).header("X-Api-Key", &key).call(),
        };
        let mut resp = resp.map_err(|e| format!("{url}: {e} (is `waymark serve` running?)"))?;
        let status = resp.status().as_u16();
        let text = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| format!("{url}: {e}"))?;
        let json: serde_json::Value =
            serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text));
        if status >= 400 {
            return Err(format!("{method} {path}: HTTP {status}: {json}"));
        }
        Ok(json)
    };
    let print = |v: &serde_json::Value| {
        println!(
            "{}",
            serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
        )
    };
    match args.command {
        DatasetsCommand::Create {
            name,
            url,
            delete_after,
            wait,
        } => {
            let mut body = serde_json::json!({"name": name, "url": url});
            if let Some(t) = delete_after {
                body["scheduled_for_deletion_after"] = t.into();
            }
            let created = call("POST", "/datasets", Some(body))?;
            print(&created);
            let id = created["id"].as_str().unwrap_or_default().to_owned();
            if wait {
                loop {
                    // The status endpoint admits one request per 5 s.
                    std::thread::sleep(std::time::Duration::from_secs(5));
                    let status = call("GET", &format!("/datasets/{id}/status"), None)?;
                    if status["status"] != "in_progress" {
                        print(&status);
                        if status["status"] == "failed" {
                            return Err("the import failed".into());
                        }
                        break;
                    }
                }
            }
            Ok(())
        }
        DatasetsCommand::List => {
            print(&call("GET", "/datasets?per_page=1000", None)?);
            Ok(())
        }
        DatasetsCommand::Status { id } => {
            print(&call("GET", &format!("/datasets/{id}/status"), None)?);
            Ok(())
        }
        DatasetsCommand::Delete { id } => {
            print(&call("DELETE", &format!("/datasets/{id}"), None)?);
            Ok(())
        }
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn claims_from_args(args: &IssueArgs) -> Result<KeyClaims, String> {
    let ips = args
        .ips
        .iter()
        .map(|s| {
            s.parse::<ipnet::IpNet>()
                .or_else(|_| s.parse::<IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| format!("`{s}` is not an ip address or cidr block"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let scope = match args.kind {
        Kind::Public => {
            if args.write || !args.ios.is_empty() || !args.android.is_empty() {
                return Err("public keys take only --domain and --ip restrictions".into());
            }
            KeyScope::Public(PublicRestrictions {
                domains: args.domains.clone(),
                ips,
            })
        }
        Kind::Private => {
            if !args.domains.is_empty() {
                return Err("private keys take no --domain restriction".into());
            }
            let given = [
                !ips.is_empty(),
                !args.ios.is_empty(),
                !args.android.is_empty(),
            ]
            .iter()
            .filter(|b| **b)
            .count();
            if given > 1 {
                return Err(
                    "a private key carries one restriction: --ip, --ios or --android".into(),
                );
            }
            let restriction = if !ips.is_empty() {
                PrivateRestriction::Ip { ips }
            } else if !args.ios.is_empty() {
                PrivateRestriction::Ios {
                    bundle_ids: args.ios.clone(),
                }
            } else if !args.android.is_empty() {
                let apps = args
                    .android
                    .iter()
                    .map(|s| {
                        let (package, sha1) = s
                            .split_once(':')
                            .ok_or_else(|| format!("--android `{s}`: expected package:SHA1"))?;
                        Ok(AndroidApp {
                            package: package.to_string(),
                            sha1: normalize_sha1(sha1).map_err(|e| e.to_string())?,
                        })
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                PrivateRestriction::Android { apps }
            } else {
                PrivateRestriction::None
            };
            KeyScope::Private {
                write: args.write,
                restriction,
            }
        }
    };
    let mut claims = KeyClaims::new(scope);
    claims.project = args.project.clone();
    claims.apis = if args.apis == "all" {
        ApiGroup::ALL.to_vec()
    } else {
        args.apis
            .split(',')
            .map(|s| s.trim().parse::<ApiGroup>().map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?
    };
    claims.options = args.options.clone();
    claims.quota = args.quota;
    claims.exp = args.expires_in_days.map(|d| claims.iat + d * 86_400);
    Ok(claims)
}

/// Development keys kept in the state directory so they stay the same across restarts.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct DevKeys {
    public_key: String,
    private_key: String,
}

/// Builds, signs and installs the Helsinki and base sample packs when no pack is installed
/// (development mode: they are signed by the local development publisher).
fn ensure_sample_packs(
    state_dir: &Path,
    packs_dir: &Path,
    sources: &Path,
    publisher: &Publisher,
) -> Result<(), String> {
    use waymark_core::packs::{FORMAT_VERSION, PackStore};
    let store = PackStore::open(packs_dir).map_err(|e| e.to_string())?;
    let installed = store.list().map_err(|e| e.to_string())?;
    // Packs of an older format (installed by an earlier release) no longer load: they do not
    // count, and older sample packs are replaced by new builds.
    let (current, older): (Vec<_>, Vec<_>) = installed
        .into_iter()
        .partition(|p| pack_format(&p.dir) == Some(u64::from(FORMAT_VERSION)));
    if !current.is_empty() {
        return Ok(());
    }
    for old in older.iter().filter(|p| DEV_PACKS.contains(&p.id.as_str())) {
        println!(
            "removing sample pack {} {}: its format is older than this release's ({FORMAT_VERSION})",
            old.id, old.version
        );
        store
            .remove(&old.id, &old.version)
            .map_err(|e| format!("removing {} {}: {e}", old.id, old.version))?;
    }
    println!(
        "no usable data pack installed: building the Helsinki sample pack, the base pack and \
         the world IP pack (first run only)"
    );
    let sources = waymark_packs::sources::Sources::load(sources).map_err(|e| e.to_string())?;
    let build_dir = state_dir.join("build");
    let version = waymark_packs::build::default_version();
    for id in DEV_PACKS {
        let plan = waymark_packs::build::sample_plan(id).map_err(|e| e.to_string())?;
        let started = std::time::Instant::now();
        let mut last = String::new();
        let dir = waymark_packs::build::build_pack(
            &plan,
            &version,
            &sources,
            &build_dir,
            false,
            &mut |step, _, _| {
                if step != last {
                    println!("  {id}: {step}");
                    last = step.to_string();
                }
            },
        )
        .map_err(|e| format!("building the {id} sample pack: {e}"))?;
        waymark_packs::build::sign_pack(&dir, publisher).map_err(|e| e.to_string())?;
        let dir = std::fs::canonicalize(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        store
            .install(
                &format!("file://{}", dir.display()),
                &[publisher.verifying()],
                &mut |_| {},
            )
            .map_err(|e| format!("installing the {id} sample pack: {e}"))?;
        println!(
            "  {id}: built and installed in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// The packs development mode builds and installs on first run: a region, the world-wide
/// base layers and the world IP networks (city-level positions; region packs carry none).
const DEV_PACKS: [&str; 3] = ["helsinki", "base", waymark_packs::build::WORLD_IP_PACK];

/// The `format_version` of the installed pack in `dir` (`None` when its manifest is unreadable).
fn pack_format(dir: &Path) -> Option<u64> {
    let bytes = std::fs::read(dir.join("manifest.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    manifest.get("format_version")?.as_u64()
}

fn dev_setup(state_dir: &Path) -> Result<(PublisherKey, DevKeys), String> {
    let pub_path = state_dir.join("dev-publisher.json");
    let publisher = if pub_path.exists() {
        Publisher::read_file(&pub_path).map_err(|e| e.to_string())?
    } else {
        let p = Publisher::generate().map_err(|e| e.to_string())?;
        p.write_file(&pub_path).map_err(|e| e.to_string())?;
        p
    };
    let keys_path = state_dir.join("dev-keys.json");
    let trusted = [publisher.verifying()];
    if let Ok(bytes) = std::fs::read(&keys_path)
        && let Ok(k) = serde_json::from_slice::<DevKeys>(&bytes)
        && keys::verify(&k.public_key, &trusted).is_ok()
        && keys::verify(&k.private_key, &trusted).is_ok()
    {
        return Ok((publisher.verifying(), k));
    }
    let public = KeyClaims::new(KeyScope::Public(PublicRestrictions {
        domains: vec!["localhost".into(), "127.0.0.1".into(), "*.localhost".into()],
        ips: vec![],
    }));
    let private = KeyClaims::new(KeyScope::Private {
        write: true,
        restriction: PrivateRestriction::None,
    });
    let k = DevKeys {
        public_key: publisher.issue(&public).map_err(|e| e.to_string())?,
        private_key: publisher.issue(&private).map_err(|e| e.to_string())?,
    };
    let json = serde_json::to_vec_pretty(&k).map_err(|e| e.to_string())?;
    std::fs::write(&keys_path, json).map_err(|e| format!("{}: {e}", keys_path.display()))?;
    Ok((publisher.verifying(), k))
}

fn default_state_dir() -> PathBuf {
    directories::ProjectDirs::from("org", "Waymark", "waymark")
        .map_or_else(|| PathBuf::from(".waymark"), |d| d.data_dir().to_path_buf())
}

fn serve(args: ServeArgs) -> Result<(), String> {
    init_logging(args.log_format);
    if !args.bind.is_loopback() && !args.allow_remote {
        return Err(format!(
            "refusing to bind {}: it is not a loopback address; add --allow-remote to expose the \
             server to the network",
            args.bind
        ));
    }
    let state_dir = args.state_dir.clone().unwrap_or_else(default_state_dir);
    std::fs::create_dir_all(&state_dir).map_err(|e| format!("{}: {e}", state_dir.display()))?;
    let packs_dir = args
        .packs
        .clone()
        .unwrap_or_else(|| state_dir.join("packs"));
    let (trusted, dev) = if args.trust.is_empty() {
        let (publisher, dev) = dev_setup(&state_dir)?;
        if !args.no_sample_packs {
            let p = Publisher::read_file(&state_dir.join("dev-publisher.json"))
                .map_err(|e| e.to_string())?;
            ensure_sample_packs(&state_dir, &packs_dir, &args.sources, &p)?;
        }
        (vec![publisher], Some(dev))
    } else {
        (
            PublisherKey::parse_all(&args.trust).map_err(|e| e.to_string())?,
            None,
        )
    };
    let mut config = EngineConfig::new(&state_dir, trusted);
    config.packs_dir = Some(packs_dir.clone());
    config.resident_ceiling = args.resident_ceiling_mb.map(|mb| u64::from(mb) * 1_000_000);
    config.rate_limits = match args.rate_limits {
        Limits::Spec => RateLimitMode::Spec,
        Limits::Off => RateLimitMode::Off,
    };
    let engine = Arc::new(Engine::open(config).map_err(|e| e.to_string())?);
    if dev.is_some()
        && !args.no_sample_packs
        && let Err(e) = ensure_sample_dataset(&engine, &state_dir, &args.sources)
    {
        // A demonstration only: the server runs without it.
        eprintln!("waymark: no sample dataset: {e}");
    }
    // Build the geolocation, stores, three-word and dataset indexes in the background so the
    // first requests do not wait.
    let warm = engine.clone();
    std::thread::spawn(move || {
        warm.prepare_geolocation();
        warm.prepare_stores();
        warm.prepare_threewords();
        warm.prepare_datasets();
    });
    let mut server_config = ServerConfig {
        extra_allowed_hosts: args.allow_hosts.clone(),
        page_key: dev.as_ref().map(|d| d.public_key.clone()),
        ..ServerConfig::default()
    };
    if !args.bind.is_loopback() {
        tracing::warn!(bind = %args.bind, "serving on a non-loopback address: anyone on the network can reach this server");
        server_config
            .extra_allowed_hosts
            .push(args.bind.to_string());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("tokio runtime: {e}"))?;
    runtime.block_on(async move {
        let addr = SocketAddr::new(args.bind, args.port);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        let shutdown = shutdown_signal()?;
        println!("waymark local server listening on http://{local}");
        println!("state directory: {}", state_dir.display());
        let packs = engine.packs().snapshot();
        if packs.is_empty() {
            println!("no data packs installed in {}: install one with POST /packs or `waymark-packs build`", packs_dir.display());
        }
        for p in packs.all() {
            println!("pack {} {} ({})", p.id(), p.version(), p.manifest.layers.join(", "));
        }
        if let Some(dev) = &dev {
            println!("development mode (no --trust given): keys signed by a local publisher in the state directory");
            println!("  public key (Referer localhost / 127.0.0.1): {}", dev.public_key);
            println!("  private key (write permission):            {}", dev.private_key);
            println!("  try: curl -H 'X-Api-Key: {}' 'http://{local}/geolocation/timezone?location=60.17,24.94'", dev.private_key);
        }
        println!("API description: http://{local}/openapi.json");
        if dev.is_some() {
            println!("demo page: http://{local}/");
        } else {
            println!("demo page: http://{local}/?key=<a public key allowing this address>");
        }
        let engine_for_flush = engine.clone();
        waymark_localserver::serve(engine, server_config, listener, shutdown).await;
        if let Err(e) = engine_for_flush.flush() {
            tracing::error!(error = %e, "could not save state on shutdown");
        }
        tracing::info!("stopped");
        Ok::<(), String>(())
    })
}

/// In development mode, imports the sample dataset (the Helsinki building footprints) once.
fn ensure_sample_dataset(engine: &Engine, state_dir: &Path, sources: &Path) -> Result<(), String> {
    let dir = state_dir.join("samples");
    let marker = dir.join("helsinki-buildings.created");
    if marker.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let geojson = dir.join("helsinki-buildings.geojson");
    let sources = waymark_packs::sources::Sources::load(sources).map_err(|e| e.to_string())?;
    let plan = waymark_packs::build::sample_plan("helsinki").map_err(|e| e.to_string())?;
    let pbf = waymark_packs::build::choose_osm(&plan.osm, &sources)
        .and_then(|id| waymark_packs::build::osm_extract(&id, &sources))
        .map_err(|e| format!("sample dataset: {e}"))?;
    let written = waymark_packs::datasets::write_buildings(&pbf, &geojson)
        .map_err(|e| format!("sample dataset: {e}"))?;
    let path = geojson
        .canonicalize()
        .map_err(|e| format!("{}: {e}", geojson.display()))?;
    let dataset = engine
        .create_dataset(waymark_core::api::DatasetCreateBody {
            name: "Sample: Helsinki buildings".into(),
            url: format!("file://{}", path.display()).replace(' ', "%20"),
            scheduled_for_deletion_after: None,
        })
        .map_err(|e| format!("sample dataset: {e}"))?;
    std::fs::write(&marker, &dataset.id).map_err(|e| format!("{}: {e}", marker.display()))?;
    println!(
        "sample dataset {} ({} buildings) importing: GET /datasets/{}/status",
        dataset.id, written.features, dataset.id
    );
    Ok(())
}

/// Registers the SIGINT/SIGTERM handlers now (so a signal arriving right after the server
/// says it is ready is never lost) and returns the future that completes on the first one.
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()> + Send + 'static, String> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut int =
            signal(SignalKind::interrupt()).map_err(|e| format!("SIGINT handler: {e}"))?;
        let mut term =
            signal(SignalKind::terminate()).map_err(|e| format!("SIGTERM handler: {e}"))?;
        Ok(async move {
            tokio::select! {
                _ = int.recv() => {},
                _ = term.recv() => {},
            }
            tracing::info!("shutdown requested; finishing in-flight requests");
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("shutdown requested; finishing in-flight requests");
        })
    }
}

fn init_logging(format: LogFormat) {
    // Search indexes keep their documents at zstd level 19 on purpose (small packs; written
    // once by the publisher). Tantivy warns about that level each time an index is opened,
    // which would be a warning per pack at every start: it is left out unless RUST_LOG asks.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new("info,tantivy::store::compressors=error")
    });
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}
