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
//! }).unwrap();
//! let tz = waymark.geolocation_timezone(TimezoneRequest {
//!     location: LatLng { lat: 42.5, lng: 1.5 }, ..Default::default() }).unwrap();
//! ```
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;

use waymark_core::api::*;
use waymark_core::auth::keys::PublisherKey;
use waymark_core::auth::{AppIdentity, Grant, RateLimitMode};
use waymark_core::endpoint::Endpoint;
use waymark_core::error::{ApiError, WaymarkError};
use waymark_core::packs::InstallProgress;
use waymark_core::{Engine, EngineConfig};

uniffi::setup_scaffolding!("waymark_ffi");

mod json;

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
    /// Authorizes the call for `endpoint` and runs the engine operation `op`.
    fn call<R>(
        &self,
        endpoint: Endpoint,
        op: impl FnOnce(&Arc<Engine>, &Grant) -> Result<R, ApiError>,
    ) -> Result<R, WaymarkError> {
        guarded(|| {
            let grant = self
                .engine
                .authorize_native(&self.key, &self.app, endpoint)?;
            Ok(op(&self.engine, &grant)?)
        })
    }

    /// As [`Waymark::call`], on a thread of its own.
    async fn call_async<R: Send + 'static>(
        self: Arc<Self>,
        endpoint: Endpoint,
        op: impl FnOnce(&Arc<Engine>, &Grant) -> Result<R, ApiError> + Send + 'static,
    ) -> Result<R, WaymarkError> {
        off_thread(move || {
            let grant = self
                .engine
                .authorize_native(&self.key, &self.app, endpoint)?;
            Ok(op(&self.engine, &grant)?)
        })
        .await
    }
}

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

    /// The identity this engine reports for the app (as the platform wrapper found it).
    pub fn app_identity(&self) -> AppIdentity {
        self.app.clone()
    }

    // ----- localities -----

    /// `GET /localities/autocomplete`
    pub fn localities_autocomplete(
        &self,
        request: AutocompleteRequest,
    ) -> Result<AutocompleteResponse, WaymarkError> {
        self.call(Endpoint::Autocomplete, |e, g| {
            e.localities_autocomplete(g, request)
        })
    }

    /// `GET /localities/details`
    pub fn localities_details(
        &self,
        request: DetailsRequest,
    ) -> Result<DetailsResponse, WaymarkError> {
        self.call(Endpoint::Details, |e, g| e.localities_details(g, request))
    }

    /// `GET /localities/geocode` (forward with `address`, reverse with `latlng`)
    pub fn localities_geocode(
        &self,
        request: GeocodeRequest,
    ) -> Result<GeocodeResponse, WaymarkError> {
        self.call(Endpoint::Geocode, |e, g| e.localities_geocode(g, request))
    }

    /// `GET /localities/nearby`
    pub fn localities_nearby(
        &self,
        request: NearbyRequest,
    ) -> Result<NearbyResponse, WaymarkError> {
        self.call(Endpoint::Nearby, |e, g| e.localities_nearby(g, request))
    }

    // ----- geolocation -----

    /// `GET /geolocation/position`: natively there is no connection address, so give
    /// `ip_address`.
    pub fn geolocation_position(
        &self,
        request: PositionRequest,
    ) -> Result<PositionResponse, WaymarkError> {
        self.call(Endpoint::Position, |e, g| {
            e.geolocation_position(g, request)
        })
    }

    /// `GET /geolocation/timezone`
    pub fn geolocation_timezone(
        &self,
        request: TimezoneRequest,
    ) -> Result<TimezoneResponse, WaymarkError> {
        self.call(Endpoint::Timezone, |e, g| {
            e.geolocation_timezone(g, request)
        })
    }

    // ----- stores -----

    /// `GET /stores/search`
    pub fn stores_search(
        &self,
        request: StoresSearchRequest,
    ) -> Result<StoresSearchResponse, WaymarkError> {
        self.call(Endpoint::StoresSearch, |e, g| e.stores_search(g, request))
    }

    /// `GET /stores/search/bounds`
    pub fn stores_bounds(
        &self,
        request: StoresBoundsRequest,
    ) -> Result<StoresBoundsResponse, WaymarkError> {
        self.call(Endpoint::StoresBounds, |e, g| e.stores_bounds(g, request))
    }

    // ----- zones -----

    /// `PUT /zones` (all or nothing)
    pub fn zones_update(
        &self,
        request: ZonesUpdateRequest,
    ) -> Result<ZonesUpdateResponse, WaymarkError> {
        self.call(Endpoint::ZonesUpdate, |e, g| e.zones_update(g, request))
    }

    // ----- datasets -----

    /// `GET /datasets`
    pub fn datasets_list(
        &self,
        request: DatasetListRequest,
    ) -> Result<DatasetListResponse, WaymarkError> {
        self.call(Endpoint::DatasetList, |e, g| e.datasets_list(g, request))
    }

    /// `GET /datasets/{dataset_id}`
    pub fn datasets_get(
        &self,
        request: DatasetGetRequest,
    ) -> Result<DatasetGetResponse, WaymarkError> {
        self.call(Endpoint::DatasetGet, |e, g| e.datasets_get(g, request))
    }

    /// `PUT /datasets/{dataset_id}`: imports a dataset (long: runs off the calling thread).
    pub async fn datasets_update(
        self: Arc<Self>,
        request: DatasetUpdateRequest,
    ) -> Result<DatasetUpdateResponse, WaymarkError> {
        self.call_async(Endpoint::DatasetUpdate, |e, g| {
            e.datasets_update(g, request)
        })
        .await
    }

    /// `GET /datasets/{dataset_id}/status`
    pub fn datasets_status(
        &self,
        request: DatasetStatusRequest,
    ) -> Result<DatasetStatusResponse, WaymarkError> {
        self.call(Endpoint::DatasetStatus, |e, g| {
            e.datasets_status(g, request)
        })
    }

    /// `GET /datasets/{dataset_id}/features/{feature_id}`
    pub fn datasets_feature_get(
        &self,
        request: FeatureGetRequest,
    ) -> Result<FeatureGetResponse, WaymarkError> {
        self.call(Endpoint::FeatureGet, |e, g| {
            e.datasets_feature_get(g, request)
        })
    }

    /// `POST /datasets/{dataset_id}/features/search`
    pub fn datasets_feature_search(
        &self,
        request: FeatureSearchRequest,
    ) -> Result<FeatureSearchResponse, WaymarkError> {
        self.call(Endpoint::FeatureSearch, |e, g| {
            e.datasets_feature_search(g, request)
        })
    }

    /// `POST /datasets/{dataset_id}/features/contains`
    pub fn datasets_feature_contains(
        &self,
        request: FeatureContainsRequest,
    ) -> Result<FeatureContainsResponse, WaymarkError> {
        self.call(Endpoint::FeatureContains, |e, g| {
            e.datasets_feature_contains(g, request)
        })
    }

    // ----- indoor -----

    /// `GET /indoor/venues/{venue_id}`
    pub fn indoor_venue(&self, request: VenueGetRequest) -> Result<VenueGetResponse, WaymarkError> {
        self.call(Endpoint::VenueGet, |e, g| e.indoor_venue(g, request))
    }

    /// `GET /indoor/venues/{venue_id}/pois/search`
    pub fn indoor_poi_search(
        &self,
        request: PoiSearchRequest,
    ) -> Result<PoiSearchResponse, WaymarkError> {
        self.call(Endpoint::PoiSearch, |e, g| e.indoor_poi_search(g, request))
    }

    /// `GET /indoor/directions/{venue_id}`
    pub async fn indoor_directions(
        self: Arc<Self>,
        request: IndoorDirectionsRequest,
    ) -> Result<IndoorDirectionsResponse, WaymarkError> {
        self.call_async(Endpoint::IndoorDirections, |e, g| {
            e.indoor_directions(g, request)
        })
        .await
    }

    // ----- distance -----

    /// `GET /distance/route/json`
    pub async fn distance_route(
        self: Arc<Self>,
        request: RouteRequest,
    ) -> Result<RouteResponse, WaymarkError> {
        let endpoint = if request.uses_traffic() {
            Endpoint::RouteWithTraffic
        } else {
            Endpoint::Route
        };
        self.call_async(endpoint, |e, g| e.distance_route(g, request))
            .await
    }

    /// `GET /distance/tolls/json`
    pub async fn distance_tolls(
        self: Arc<Self>,
        request: TollsRequest,
    ) -> Result<TollsResponse, WaymarkError> {
        self.call_async(Endpoint::Tolls, |e, g| e.distance_tolls(g, request))
            .await
    }

    /// `GET /distance/isochrone/json`
    pub async fn distance_isochrone(
        self: Arc<Self>,
        request: IsochroneRequest,
    ) -> Result<IsochroneResponse, WaymarkError> {
        self.call_async(Endpoint::Isochrone, |e, g| e.distance_isochrone(g, request))
            .await
    }

    /// `POST /distance/matrix/async`: stores the job and returns its id at once; poll
    /// [`Waymark::distance_matrix_status`], then [`Waymark::distance_matrix_result`].
    pub fn distance_matrix_create(
        &self,
        request: MatrixCreateRequest,
    ) -> Result<MatrixCreateResponse, WaymarkError> {
        self.call(Endpoint::MatrixCreate, |e, g| {
            e.distance_matrix_create(g, request)
        })
    }

    /// `GET /distance/matrix/async/{matrix_id}/status`
    pub fn distance_matrix_status(
        &self,
        request: MatrixStatusRequest,
    ) -> Result<MatrixStatusResponse, WaymarkError> {
        self.call(Endpoint::MatrixStatus, |e, g| {
            e.distance_matrix_status(g, request)
        })
    }

    /// `GET /distance/matrix/async/{matrix_id}`: the result once `completed`.
    pub fn distance_matrix_result(
        &self,
        request: MatrixResultRequest,
    ) -> Result<MatrixResultResponse, WaymarkError> {
        self.call(Endpoint::MatrixResult, |e, g| {
            e.distance_matrix_result(g, request)
        })
    }

    /// The matrix of `request` computed now and awaited (same validation and quota as
    /// `POST /distance/matrix/async`, without its 200-element limit): what an app embedding
    /// the engine usually wants instead of polling a job.
    pub async fn distance_matrix(
        self: Arc<Self>,
        request: MatrixCreateRequest,
    ) -> Result<MatrixData, WaymarkError> {
        self.call_async(Endpoint::MatrixCreate, |e, g| {
            e.distance_matrix_now(g, request)
        })
        .await
    }

    // ----- three-word addresses -----

    /// `GET /threewords/autosuggest`
    pub fn threewords_autosuggest(
        &self,
        request: AutosuggestRequest,
    ) -> Result<AutosuggestResponse, WaymarkError> {
        self.call(Endpoint::Autosuggest, |e, g| {
            e.threewords_autosuggest(g, request)
        })
    }

    /// `GET /threewords/convert-to-3wa`
    pub fn threewords_convert(
        &self,
        request: ConvertTo3waRequest,
    ) -> Result<ConvertTo3waResponse, WaymarkError> {
        self.call(Endpoint::ConvertTo3wa, |e, g| {
            e.threewords_convert(g, request)
        })
    }

    // ----- data packs (private key with write permission) -----

    /// The installed packs with their licences and attribution.
    pub fn packs_list(&self) -> Result<PacksListResponse, WaymarkError> {
        self.call(Endpoint::PacksList, |e, g| {
            e.packs_list(g, PacksListRequest::default())
        })
    }

    /// Installs the pack at `url` (`file://` or `http(s)://` pack directory): resumable,
    /// every file verified, the publisher's signature checked, switched in atomically (the
    /// previous version answers until then). `listener` hears the progress.
    pub async fn packs_install(
        self: Arc<Self>,
        url: String,
        listener: Option<Arc<dyn InstallProgressListener>>,
    ) -> Result<PackInstallStatus, WaymarkError> {
        self.call_async(Endpoint::PackInstall, move |e, g| {
            e.packs_install_now(g, PackInstallRequest { url }, &mut |p| {
                if let Some(l) = &listener {
                    l.on_progress(p);
                }
            })
        })
        .await
    }

    /// Unloads and deletes every installed version of a pack.
    pub fn packs_remove(&self, pack_id: String) -> Result<PackRemoveResponse, WaymarkError> {
        self.call(Endpoint::PackRemove, |e, g| {
            e.packs_remove(g, PackRemoveRequest { pack_id })
        })
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
