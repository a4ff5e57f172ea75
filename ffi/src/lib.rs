//! Waymark's native SDK: the [`Engine`] exported with uniffi for Kotlin (Android) and Swift
//! (iOS). No logic lives here: every method authenticates the call natively (a private key,
//! checked against the app identity the platform wrapper took from the OS), calls the one
//! `Engine` method of its endpoint with the `core::api` request type, and returns the
//! `core::api` response type or a [`WaymarkError`].
//!
//! - Types: the request, response and error types are those of `waymark_core` (uniffi derives
//!   on the contract types behind core's `uniffi` feature); this crate adds only the engine
//!   object, its configuration and the progress callback.
//! - Long operations (route, tolls, isochrone, matrix, indoor directions, dataset import, pack
//!   install) are `async`: they run on a thread of their own and complete a future the foreign
//!   side awaits (Kotlin `suspend`, Swift `async`), so no Rust async runtime is needed.
//! - A panic never crosses the boundary: each call runs under `catch_unwind` and a panic
//!   becomes [`WaymarkError::Internal`].
//!
//! ```no_run
//! use waymark_ffi::{Waymark, WaymarkConfig};
//! use waymark_core::auth::AppIdentity;
//! use waymark_core::api::{LatLng, TimezoneRequest};
//! let waymark = Waymark::open(WaymarkConfig {
//!     packs_dir: "/data/packs".into(),
//!     state_dir: "/data/state".into(),
//!     key: "wm_prv_...".into(),
//!     trusted_publishers: vec!["wm_pub_...".into()],
//!     app: AppIdentity { ios_bundle_id: Some("com.example.app".into()), ..Default::default() },
//!     default_language: Some("de".into()),
//!     rate_limits: true,
//!     resident_ceiling_mb: None,
//! }).unwrap();
//! let tz = waymark.geolocation_timezone(TimezoneRequest {
//!     location: LatLng { lat: 42.5, lng: 1.5 }, ..Default::default() }).unwrap();
//! ```
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;

use waymark_core::api::*;
use waymark_core::auth::keys::PublisherKey;
use waymark_core::auth::{AppIdentity, RateLimitMode};
use waymark_core::error::WaymarkError;
use waymark_core::operation::{Credentials, Operation};
use waymark_core::packs::InstallProgress;
use waymark_core::{Engine, EngineConfig};

uniffi::setup_scaffolding!("waymark_ffi");

mod json;
pub mod wrappers;

/// How the native SDK opens the engine.
#[derive(Debug, Clone, uniffi::Record)]
pub struct WaymarkConfig {
    /// Directory of installed data packs (created when missing).
    pub packs_dir: String,
    /// Directory of the engine's own state: quota counters, matrix jobs (created when
    /// missing).
    pub state_dir: String,
    /// The app's private key (`wm_prv_...`). Public keys are refused: they are for web pages.
    pub key: String,
    /// The public keys of the publishers whose API keys and packs this app trusts (the
    /// `--trust` value `waymark keys new-publisher` prints).
    pub trusted_publishers: Vec<String>,
    /// The app's identity as the OS reports it. The Kotlin and Swift wrappers fill it from
    /// `PackageManager` / `Bundle.main`; a restricted key is refused when it does not match.
    pub app: AppIdentity,
    /// The device's locale language (ISO 639-1) for localities answers without `language`.
    pub default_language: Option<String>,
    /// Whether the spec's rate limits apply (on by default in the wrappers).
    pub rate_limits: bool,
    /// A ceiling on the app's resident set, in megabytes (Linux and Android): after every call
    /// that leaves it over, the pages of the packs' mapped routing layouts are unmapped.
    /// `None` (the default): no ceiling.
    #[uniffi(default)]
    pub resident_ceiling_mb: Option<u32>,
}

/// Receives the progress of a pack install (called from the installing thread).
#[uniffi::export(with_foreign)]
pub trait InstallProgressListener: Send + Sync {
    /// Called at the start and end of each file and every 256 KiB.
    fn on_progress(&self, progress: InstallProgress);
}

/// The offline location engine, opened once per app with its private key.
#[derive(Debug, uniffi::Object)]
pub struct Waymark {
    engine: Arc<Engine>,
    key: String,
    app: AppIdentity,
}

/// Runs `f`, turning a panic into [`WaymarkError::Internal`].
fn guarded<T>(f: impl FnOnce() -> Result<T, WaymarkError>) -> Result<T, WaymarkError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        tracing::error!(panic = %what, "panic caught at the ffi boundary");
        Err(WaymarkError::Internal {
            detail: format!("internal error caught at the native boundary: {what}"),
        })
    })
}

/// Runs `f` on a thread of its own and completes when it returns (a panic on that thread is
/// an [`WaymarkError::Internal`], as on the calling thread).
async fn off_thread<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, WaymarkError> + Send + 'static,
) -> Result<T, WaymarkError> {
    let (tx, rx) = futures_channel::oneshot::channel();
    std::thread::Builder::new()
        .name("waymark-call".into())
        .spawn(move || {
            // The receiver may be gone (the caller cancelled): nothing to tell then.
            let _ = tx.send(guarded(f));
        })
        .map_err(|e| WaymarkError::Internal {
            detail: format!("cannot start a worker thread: {e}"),
        })?;
    rx.await.unwrap_or_else(|_| {
        Err(WaymarkError::Internal {
            detail: "the worker thread ended without an answer".into(),
        })
    })
}

impl Waymark {
    /// The credentials of every call: the app's key and identity.
    fn credentials(&self) -> Credentials<'_> {
        Credentials::Native {
            key: &self.key,
            app: &self.app,
        }
    }

    /// Admits and answers `request` on the calling thread.
    fn call<R: Operation>(&self, request: R) -> Result<R::Response, WaymarkError> {
        guarded(|| Ok(self.engine.call(&self.credentials(), request)?))
    }

    /// As [`Waymark::call`], on a thread of its own.
    async fn call_async<R: Operation>(
        self: Arc<Self>,
        request: R,
    ) -> Result<R::Response, WaymarkError> {
        off_thread(move || Ok(self.engine.call(&self.credentials(), request)?)).await
    }
}

/// One method per operation of the endpoint table (and its JSON codecs): synchronous for
/// operations that run inline, `async` on a thread of its own for those that block.
macro_rules! native_operations {
    ($(
        $(#[$doc:meta])*
        $name:ident: $method:ident $path:literal, $group:ident, $keys:ident, $n:literal per $s:literal s,
        $req:ident => $resp:ident,
        $run:ident, $reply:ident $(($target:ident))?, $faces:ident, $errors:ident, $native:ident, $sdk:ident
        $(, bucket $bucket:ident ($bn:literal per $bs:literal s) if $pred:ident)?;
    )+) => {
        $( native_operations!(@method $faces $run [$(#[$doc])*] $native $req $resp); )+
        $( native_operations!(@codec $faces $native $req $resp); )+
    };
    (@method Http $($rest:tt)*) => {};
    (@method All Inline [$($doc:tt)*] $native:ident $req:ident $resp:ident) => {
        #[uniffi::export]
        impl Waymark {
            $($doc)*
            pub fn $native(&self, request: $req) -> Result<$resp, WaymarkError> {
                self.call(request)
            }
        }
    };
    (@method All Blocking [$($doc:tt)*] $native:ident $req:ident $resp:ident) => {
        #[uniffi::export]
        impl Waymark {
            $($doc)*
            ///
            /// Runs on a thread of its own (Kotlin `suspend`, Swift `async`).
            pub async fn $native(self: Arc<Self>, request: $req) -> Result<$resp, WaymarkError> {
                self.call_async(request).await
            }
        }
    };
    (@codec Http $($rest:tt)*) => {};
    (@codec All $native:ident $req:ident $resp:ident) => {
        pastey::paste! {
            /// Reads the request from its JSON form (422 naming each bad field).
            #[uniffi::export]
            pub fn [<$native _request_from_json>](json: String) -> Result<$req, WaymarkError> {
                json::from_json(&json)
            }

            /// Writes the response in the JSON form of the REST contract.
            #[uniffi::export]
            pub fn [<$native _response_to_json>](value: $resp) -> Result<String, WaymarkError> {
                json::to_json(&value)
            }
        }
    };
}

waymark_core::endpoint_table!(native_operations);

#[uniffi::export]
impl Waymark {
    /// Opens the engine: loads the installed packs (verifying their publisher's signature)
    /// and checks that `config.key` is a private key of a trusted publisher.
    #[uniffi::constructor]
    pub fn open(config: WaymarkConfig) -> Result<Arc<Self>, WaymarkError> {
        guarded(|| {
            let publishers = PublisherKey::parse_all(&config.trusted_publishers)?;
            let mut engine_config =
                EngineConfig::new(&PathBuf::from(&config.state_dir), publishers);
            engine_config.packs_dir = Some(PathBuf::from(&config.packs_dir));
            engine_config.default_language = config.default_language.clone();
            engine_config.resident_ceiling = config
                .resident_ceiling_mb
                .map(|mb| u64::from(mb) * 1_000_000);
            engine_config.rate_limits = if config.rate_limits {
                RateLimitMode::Spec
            } else {
                RateLimitMode::Off
            };
            let engine = Engine::open(engine_config)?;
            // Refuse at once a key no call would accept (foreign, tampered, public).
            engine.authorizer().verify_native_key(&config.key)?;
            Ok(Arc::new(Waymark {
                engine: Arc::new(engine),
                key: config.key,
                app: config.app,
            }))
        })
    }
}

/// Native variants of operations, admitted as the operation they vary.
#[uniffi::export]
impl Waymark {
    /// The identity this engine reports for the app (as the platform wrapper found it).
    pub fn app_identity(&self) -> AppIdentity {
        self.app.clone()
    }

    /// Hands memory back to the system without closing anything: what an app calls on a
    /// memory warning (the Kotlin and Swift wrappers call it on the platform's). The pages of
    /// the packs' mapped routing layouts leave the process (a country pack's can reach a
    /// gigabyte of its resident set after many routes) and the buffers kept between requests
    /// are dropped; answers are unchanged, and the next queries map again the pages they read.
    /// Needs no key: it answers nothing.
    pub fn release_memory(&self) -> waymark_core::routing::memory::ReleasedMemory {
        self.engine.release_memory()
    }

    /// Unmaps the pages of the packs' mapped routing layouts only, keeping the buffers kept
    /// between requests: what an app that holds its resident set under a ceiling calls after a
    /// request that took it over (cheaper for the requests that follow than
    /// [`Waymark::release_memory`]).
    pub fn release_mapped_pages(&self) -> waymark_core::routing::memory::ReleasedMemory {
        self.engine.release_mapped_pages()
    }

    /// The matrix of `request` computed now and awaited (same validation and quota as
    /// `POST /distance/matrix/async`, without its 200-element limit): what an app embedding
    /// the engine usually wants instead of polling a job.
    pub async fn distance_matrix(
        self: Arc<Self>,
        request: MatrixCreateRequest,
    ) -> Result<MatrixData, WaymarkError> {
        off_thread(move || {
            Ok(self
                .engine
                .call_with(&self.credentials(), request, |e, call, r| {
                    e.distance_matrix_now(call, r)
                })?)
        })
        .await
    }

    /// Installs the pack at `url` (`file://` or `http(s)://` pack directory) and awaits it:
    /// resumable, every file verified, the publisher's signature checked, switched in
    /// atomically (the previous version answers until then). `listener` hears the progress.
    /// (`packs_install` starts the same install as a job, as `POST /packs` does.)
    pub async fn install_pack(
        self: Arc<Self>,
        url: String,
        listener: Option<Arc<dyn InstallProgressListener>>,
    ) -> Result<PackInstallStatus, WaymarkError> {
        off_thread(move || {
            let request = PackInstallRequest { url };
            Ok(self
                .engine
                .call_with(&self.credentials(), request, |e, call, r| {
                    e.packs_install_now(call, r, &mut |p| {
                        if let Some(l) = &listener {
                            l.on_progress(p);
                        }
                    })
                })?)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic, clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_error() {
        let r: Result<(), WaymarkError> = guarded(|| panic!("boom at the boundary"));
        match r {
            Err(WaymarkError::Internal { detail }) => assert!(detail.contains("boom"), "{detail}"),
            other => panic!("expected an internal error, got {other:?}"),
        }
        let r: Result<(), WaymarkError> = guarded(|| panic!("{}", String::from("formatted")));
        assert!(
            matches!(r, Err(WaymarkError::Internal { detail }) if detail.contains("formatted"))
        );
    }

    #[test]
    fn a_panic_on_the_worker_thread_becomes_an_internal_error() {
        let fut = off_thread(|| -> Result<(), WaymarkError> { panic!("worker boom") });
        let r = futures_executor_block_on(fut);
        assert!(
            matches!(r, Err(WaymarkError::Internal { detail }) if detail.contains("worker boom"))
        );
        let ok = futures_executor_block_on(off_thread(|| Ok(41 + 1)));
        assert_eq!(ok.unwrap(), 42);
    }

    /// Polls a future to completion on this thread (a minimal executor for the test).
    fn futures_executor_block_on<F: std::future::Future>(fut: F) -> F::Output {
        use std::sync::Arc;
        use std::task::{Context, Poll, Wake, Waker};
        struct Unpark(std::thread::Thread);
        impl Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut fut = std::pin::pin!(fut);
        loop {
            if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
                return v;
            }
            std::thread::park();
        }
    }

    #[test]
    fn opening_without_a_trusted_publisher_or_with_a_bad_key_says_what_to_fix() {
        let dir = std::env::temp_dir().join(format!("waymark-ffi-open-{}", std::process::id()));
        let config = |key: &str, publishers: Vec<String>| WaymarkConfig {
            packs_dir: dir.join("packs").display().to_string(),
            state_dir: dir.join("state").display().to_string(),
            key: key.into(),
            trusted_publishers: publishers,
            app: AppIdentity::default(),
            default_language: None,
            rate_limits: true,
            resident_ceiling_mb: None,
        };
        let e = Waymark::open(config("wm_prv_x", vec![])).unwrap_err();
        assert!(
            matches!(&e, WaymarkError::BadRequest { detail } if detail.contains("trusted publisher")),
            "{e:?}"
        );
        let publisher = waymark_core::auth::keys::Publisher::generate().unwrap();
        let e =
            Waymark::open(config("wm_prv_x", vec![publisher.verifying().encode()])).unwrap_err();
        assert!(matches!(e, WaymarkError::Unauthenticated { .. }), "{e:?}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
