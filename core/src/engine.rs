//! The `Engine`: one method per endpoint of the contract.
//!
//! Every face calls the engine the same way: [`Engine::authorize`] the caller for an
//! [`Endpoint`] (401/403/429), then the operation with the resulting [`Grant`] and the typed
//! request from `core::api`. The operation validates (422), charges the free quota (402) and
//! answers from the installed data packs. Operations whose implementation has not landed
//! return [`ErrorCode::NotAvailable`](crate::error::ErrorCode::NotAvailable) — never an
//! invented answer.
//!
//! ```
//! use waymark_core::{Engine, EngineConfig};
//! use waymark_core::auth::{Caller, keys::{Publisher, KeyClaims, KeyScope, PrivateRestriction}};
//! use waymark_core::endpoint::Endpoint;
//! let dir = tempfile::tempdir().unwrap();
//! let publisher = Publisher::generate().unwrap();
//! let engine = Engine::open(EngineConfig::new(dir.path(), vec![publisher.verifying()])).unwrap();
//! let key = publisher.issue(&KeyClaims::new(KeyScope::Private {
//!     write: false, restriction: PrivateRestriction::None })).unwrap();
//! let caller = Caller { api_key_header: Some(key), ..Caller::default() };
//! let grant = engine.authorize(&caller, Endpoint::Timezone).unwrap();
//! assert_eq!(grant.endpoint, Endpoint::Timezone);
//! ```
use std::path::{Path, PathBuf};

use crate::api::*;
use crate::auth::keys::PublisherKey;
use crate::auth::{Authorizer, Caller, Grant, RateLimitMode};
use crate::endpoint::Endpoint;
use crate::error::{ApiError, ErrorCode, Result};
use crate::geolocation::ip::{IpIndex, is_local};
use crate::geolocation::layer_attribution;
use crate::geolocation::timezone::{TimezoneIndex, TimezoneIndexBuilder, nautical_zone, offsets};
use crate::packs::registry::PackSetCache;
use crate::packs::{InstallProgress, InstalledPack, LoadedPack, PackRegistry, PackStore};

/// Configuration given by the caller (CLI flags, Kotlin/Swift constructor). The core reads no
/// environment variables.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Directory of the engine's own state (`state.sqlite`: quotas, jobs, imports).
    pub state_dir: PathBuf,
    /// Publishers whose keys (and packs) are trusted.
    pub trusted_publishers: Vec<PublisherKey>,
    /// Rate limits on or off.
    pub rate_limits: RateLimitMode,
    /// Directory of installed data packs (`None`: no packs, every data operation answers 503).
    pub packs_dir: Option<PathBuf>,
    /// The device's locale language (ISO 639-1), used by the localities operations when a
    /// request has neither `language` nor `Accept-Language` (`None`: English).
    pub default_language: Option<String>,
}

impl EngineConfig {
    /// A configuration keeping state in `state_dir`, trusting `trusted_publishers`, with the
    /// spec's rate limits.
    pub fn new(state_dir: &Path, trusted_publishers: Vec<PublisherKey>) -> Self {
        EngineConfig {
            state_dir: state_dir.to_path_buf(),
            trusted_publishers,
            rate_limits: RateLimitMode::Spec,
            packs_dir: None,
            default_language: None,
        }
    }
}

/// The offline location engine.
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    auth: Authorizer,
    store: Option<PackStore>,
    packs: PackRegistry,
    installs: parking_lot::Mutex<std::collections::HashMap<String, PackInstallStatus>>,
    /// Timezone polygons of the current pack set (rebuilt when the set changes).
    tz_index: PackSetCache<TimezoneIndex>,
    /// IP ranges of the current pack set (rebuilt when the set changes).
    ip_index: PackSetCache<IpIndex>,
    /// Search indexes of the current pack set (localities).
    localities: crate::localities::Localities,
    /// Routers of the current pack set and the matrix jobs.
    distance: crate::distance::Distance,
}

impl Engine {
    /// Opens the engine: creates the state directory and database when missing.
    pub fn open(config: EngineConfig) -> Result<Self> {
        if config.trusted_publishers.is_empty() {
            return Err(crate::error::Error::Config(
                "no trusted publisher: give the public key of the publisher that issued your keys"
                    .into(),
            ));
        }
        let auth = Authorizer::new(
            config.trusted_publishers.clone(),
            &config.state_dir.join("state.sqlite"),
            config.rate_limits,
        )?;
        let (store, packs) = match &config.packs_dir {
            Some(dir) => {
                let store = PackStore::open(dir).map_err(|e| {
                    crate::error::Error::Config(format!("packs directory {}: {e}", dir.display()))
                })?;
                let packs = PackRegistry::load_all(&store, &config.trusted_publishers)
                    .map_err(|e| crate::error::Error::Config(format!("loading packs: {e}")))?;
                (Some(store), packs)
            }
            None => (None, PackRegistry::new()),
        };
        Ok(Engine {
            config,
            auth,
            store,
            packs,
            installs: parking_lot::Mutex::new(std::collections::HashMap::new()),
            tz_index: PackSetCache::default(),
            ip_index: PackSetCache::default(),
            localities: Default::default(),
            distance: crate::distance::Distance::default(),
        })
    }

    /// The loaded data packs.
    pub fn packs(&self) -> &PackRegistry {
        &self.packs
    }

    /// Installs a pack from a `file://` or `http(s)://` pack directory URL (resumable, verified,
    /// atomic) and swaps it in while serving; the previous version is removed from disk once
    /// no longer loaded.
    pub fn install_pack(
        &self,
        source: &str,
        progress: &mut dyn FnMut(InstallProgress),
    ) -> Result<InstalledPack, ApiError> {
        let store = self.store()?;
        let installed = store.install(source, &self.config.trusted_publishers, progress)?;
        let loaded = LoadedPack::load(&installed, &self.config.trusted_publishers)?;
        if let Some(old) = self.packs.swap_in(loaded)
            && old.version() != installed.version
            && let Err(e) = store.remove(old.id(), old.version())
        {
            tracing::warn!(pack = old.id(), version = old.version(), error = %e, "could not remove the replaced version");
        }
        Ok(installed)
    }

    /// Unloads and deletes every installed version of pack `id`.
    pub fn remove_pack(&self, id: &str) -> Result<(), ApiError> {
        let store = self.store()?;
        let versions = store.installed_versions(id)?;
        if versions.is_empty() {
            return Err(ApiError::not_found(format!("no pack `{id}` is installed")));
        }
        self.packs.remove(id);
        for v in versions {
            store.remove(id, &v)?;
        }
        Ok(())
    }

    fn store(&self) -> Result<&PackStore, ApiError> {
        self.store.as_ref().ok_or_else(|| {
            ApiError::new(
                ErrorCode::DataUnavailable,
                "this engine was opened without a packs directory",
            )
        })
    }

    /// The configuration the engine was opened with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Authenticates and admits `caller` for `endpoint` (401, 403, 429).
    pub fn authorize(&self, caller: &Caller, endpoint: Endpoint) -> Result<Grant, ApiError> {
        self.auth.authorize(caller, endpoint)
    }

    /// Authenticates a native SDK call: a private key checked against the app identity the
    /// platform reported (see [`Authorizer::authorize_native`]).
    pub fn authorize_native(
        &self,
        key: &str,
        app: &crate::auth::AppIdentity,
        endpoint: Endpoint,
    ) -> Result<Grant, ApiError> {
        self.auth.authorize_native(key, app, endpoint)
    }

    /// The authorizer (key verification, CORS decisions, quota counters).
    pub fn authorizer(&self) -> &Authorizer {
        &self.auth
    }

    /// Saves state that is written lazily (quota counters).
    pub fn flush(&self) -> Result<()> {
        self.auth.flush()
    }

    /// Checks the grant is for `endpoint` (the route's traffic bucket counts as the route).
    fn check_grant(&self, grant: &Grant, endpoint: Endpoint) -> Result<(), ApiError> {
        let same = grant.endpoint == endpoint
            || (endpoint == Endpoint::Route && grant.endpoint == Endpoint::RouteWithTraffic);
        if same {
            Ok(())
        } else {
            Err(ApiError::new(
                ErrorCode::Internal,
                format!(
                    "a grant for {} was used for {}",
                    grant.endpoint.name(),
                    endpoint.name()
                ),
            ))
        }
    }

    /// Checks the grant and the request's own rules (422), the same for every face.
    fn admit<R: Validate>(
        &self,
        grant: &Grant,
        endpoint: Endpoint,
        req: &R,
    ) -> Result<(), ApiError> {
        self.check_grant(grant, endpoint)?;
        req.validate().map_err(ApiError::validation)
    }

    /// The answer of an operation whose implementation has not landed in this build: the
    /// request is still authorized and validated, then refused with 501.
    fn not_available<T, R: Validate>(
        &self,
        grant: &Grant,
        endpoint: Endpoint,
        req: &R,
    ) -> Result<T, ApiError> {
        self.admit(grant, endpoint, req)?;
        Err(ApiError::not_available(endpoint))
    }

    // ----- localities -----

    /// `GET /localities/autocomplete`
    pub fn localities_autocomplete(
        &self,
        grant: &Grant,
        req: AutocompleteRequest,
    ) -> Result<AutocompleteResponse, ApiError> {
        self.admit(grant, Endpoint::Autocomplete, &req)?;
        let locale = self.config.default_language.as_deref();
        (self.localities).autocomplete(self.packs.snapshot(), &self.auth, grant, &req, locale)
    }

    /// `GET /localities/details`
    pub fn localities_details(
        &self,
        grant: &Grant,
        req: DetailsRequest,
    ) -> Result<DetailsResponse, ApiError> {
        self.admit(grant, Endpoint::Details, &req)?;
        let locale = self.config.default_language.as_deref();
        (self.localities).details(self.packs.snapshot(), &self.auth, grant, &req, locale)
    }

    /// `GET /localities/geocode`
    pub fn localities_geocode(
        &self,
        grant: &Grant,
        req: GeocodeRequest,
    ) -> Result<GeocodeResponse, ApiError> {
        self.admit(grant, Endpoint::Geocode, &req)?;
        let locale = self.config.default_language.as_deref();
        (self.localities).geocode(self.packs.snapshot(), &self.auth, grant, &req, locale)
    }

    /// `GET /localities/nearby`
    pub fn localities_nearby(
        &self,
        grant: &Grant,
        req: NearbyRequest,
    ) -> Result<NearbyResponse, ApiError> {
        self.admit(grant, Endpoint::Nearby, &req)?;
        (self.localities).nearby(self.packs.snapshot(), &self.auth, grant, &req)
    }

    // ----- geolocation -----

    /// `GET /geolocation/position`: the position of `ip_address` (honoured only with a private
    /// key) or of the calling connection, from the packs' IP ranges.
    pub fn geolocation_position(
        &self,
        grant: &Grant,
        req: PositionRequest,
    ) -> Result<PositionResponse, ApiError> {
        self.geolocation_position_attributed(grant, req)
            .map(|(position, _)| position)
    }

    /// [`Engine::geolocation_position`], with the attribution the licences of the packs that
    /// answered ask for (their `ip` layer's sources, `; `-separated), for faces that show it.
    pub fn geolocation_position_attributed(
        &self,
        grant: &Grant,
        req: PositionRequest,
    ) -> Result<(PositionResponse, String), ApiError> {
        self.admit(grant, Endpoint::Position, &req)?;
        // The spec: `ip_address` is honoured only for calls with a private key.
        let ip = match (grant.is_private(), req.ip_address) {
            (true, Some(ip)) => ip,
            _ => grant.peer_ip.ok_or_else(|| {
                ApiError::not_found(
                    "the caller's address is unknown; pass `ip_address` with a private key",
                )
            })?,
        };
        let ip = crate::auth::restrictions::canonical_ip(ip);
        if is_local(ip) {
            return Err(ApiError::not_found(format!(
                "{ip} is a local or private address and has no geographic position; \
                 pass a public `ip_address` with a private key"
            )));
        }
        let index = self.ip_index()?;
        let hit = index.find(ip).ok_or_else(|| {
            ApiError::not_found(format!(
                "no position is known for {ip} in the installed packs"
            ))
        })?;
        let record = hit.record;
        let code = record.country_code.as_deref();
        let country = code.and_then(|c| index.country(c));
        let (lat, lng) = record
            .position
            .or_else(|| country.and_then(|c| c.position))
            .ok_or_else(|| {
                ApiError::not_found(format!(
                    "no position is known for {ip} in the installed packs"
                ))
            })?;
        self.auth.charge(grant)?;
        let tz_index = self.timezone_index().ok();
        let tzid = tz_index
            .as_deref()
            .map_or_else(|| nautical_zone(lng), |tz| tz.lookup(lat, lng));
        let tz =
            offsets(tzid, chrono::Utc::now()).map_err(|e| ApiError::new(ErrorCode::Internal, e))?;
        let r = record.accuracy_km;
        let dlat = r / 111.32;
        let dlng = r / (111.32 * lat.to_radians().cos().abs().max(0.01));
        let attribution = index.attribution(&hit, country);
        let position = GeolocationResult {
            viewport: Viewport {
                northeast: LatLng {
                    lat: (lat + dlat).min(90.0),
                    lng: (lng + dlng).min(180.0),
                },
                southwest: LatLng {
                    lat: (lat - dlat).max(-90.0),
                    lng: (lng - dlng).max(-180.0),
                },
            },
            accuracy: r,
            latitude: lat,
            longitude: lng,
            country_code: code.map(str::to_string),
            country_name: country
                .map_or_else(|| code.unwrap_or_default().to_string(), |c| c.name.clone()),
            continent: country.map(|c| c.continent.clone()).unwrap_or_default(),
            region_state: record.region.as_deref().map(str::to_string),
            city: record.city.as_deref().map(str::to_string),
            postal_code: record.postal_code.as_deref().map(str::to_string),
            timezone: tz.timezone,
            raw_offset: tz.raw_offset,
            dst_offset: tz.dst_offset,
        };
        Ok((position, attribution))
    }

    /// Builds the geolocation indexes of the current pack set now (they are otherwise built by
    /// the first request that needs them, which then waits for it). Missing layers are not an
    /// error here: the requests will answer 503.
    pub fn prepare_geolocation(&self) {
        let _ = self.timezone_index();
        let _ = self.ip_index();
    }

    /// The IP index of the loaded packs (city-level packs first), built once per pack set.
    fn ip_index(&self) -> Result<std::sync::Arc<IpIndex>, ApiError> {
        use crate::packs::schema::layers;
        self.ip_index.get_or_build(self.packs.snapshot(), |set| {
            let mut packs = set.with_layer(layers::IP);
            // Region packs (city-level ranges) before world-wide ones.
            packs.sort_by_key(|p| p.manifest.coverage.bbox == [-180.0, -90.0, 180.0, 90.0]);
            let mut index = IpIndex::default();
            let attribution = |p: &LoadedPack| layer_attribution(&p.manifest, layers::IP);
            for pack in packs {
                index.add_pack_attributed(&pack.sqlite()?, attribution(pack))?;
            }
            // Country names may come from a pack without IP ranges.
            for pack in set.with_layer(layers::PLACES) {
                if !pack.has_layer(layers::IP) {
                    index.add_pack_attributed(&pack.sqlite()?, attribution(pack))?;
                }
            }
            if index.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::DataUnavailable,
                    "no installed pack has the ip layer; install the base pack or a region pack",
                ));
            }
            Ok(index)
        })
    }

    /// `GET /geolocation/timezone`: the zone containing `location` (nautical `Etc/GMT±N` at
    /// sea where no polygon covers it) and the offsets in force at `timestamp` (default now).
    pub fn geolocation_timezone(
        &self,
        grant: &Grant,
        req: TimezoneRequest,
    ) -> Result<TimezoneResponse, ApiError> {
        self.admit(grant, Endpoint::Timezone, &req)?;
        let instant = match req.timestamp {
            None => chrono::Utc::now(),
            Some(t) => chrono::DateTime::from_timestamp(t, 0).ok_or_else(|| {
                ApiError::validation(vec![FieldError::new(
                    vec!["query".into(), "timestamp".into()],
                    "value_error",
                    "timestamp is outside the supported range of dates; give UNIX seconds",
                )])
            })?,
        };
        let index = self.timezone_index()?;
        self.auth.charge(grant)?;
        let tzid = index.lookup(req.location.lat, req.location.lng);
        offsets(tzid, instant).map_err(|e| ApiError::new(ErrorCode::Internal, e))
    }

    /// The timezone index of the loaded packs, built once per pack set.
    fn timezone_index(&self) -> Result<std::sync::Arc<TimezoneIndex>, ApiError> {
        self.tz_index.get_or_build(self.packs.snapshot(), |set| {
            let mut index = TimezoneIndexBuilder::default();
            for pack in set.with_layer(crate::packs::schema::layers::TIMEZONES) {
                index.add_pack(&pack.sqlite()?)?;
            }
            if index.is_empty() {
                return Err(ApiError::new(
                    ErrorCode::DataUnavailable,
                    "no installed pack has the timezones layer; install the base pack \
                     (`waymark-packs build --pack base`, then POST /packs)",
                ));
            }
            Ok(index.build())
        })
    }

    // ----- stores -----

    /// `GET /stores/search`
    pub fn stores_search(
        &self,
        grant: &Grant,
        req: StoresSearchRequest,
    ) -> Result<StoresSearchResponse, ApiError> {
        self.not_available(grant, Endpoint::StoresSearch, &req)
    }

    /// `GET /stores/search/bounds`
    pub fn stores_bounds(
        &self,
        grant: &Grant,
        req: StoresBoundsRequest,
    ) -> Result<StoresBoundsResponse, ApiError> {
        self.not_available(grant, Endpoint::StoresBounds, &req)
    }

    // ----- zones -----

    /// `PUT /zones`
    pub fn zones_update(
        &self,
        grant: &Grant,
        req: ZonesUpdateRequest,
    ) -> Result<ZonesUpdateResponse, ApiError> {
        self.not_available(grant, Endpoint::ZonesUpdate, &req)
    }

    // ----- datasets -----

    /// `GET /datasets`
    pub fn datasets_list(
        &self,
        grant: &Grant,
        req: DatasetListRequest,
    ) -> Result<DatasetListResponse, ApiError> {
        self.not_available(grant, Endpoint::DatasetList, &req)
    }

    /// `GET /datasets/{dataset_id}`
    pub fn datasets_get(
        &self,
        grant: &Grant,
        req: DatasetGetRequest,
    ) -> Result<DatasetGetResponse, ApiError> {
        self.not_available(grant, Endpoint::DatasetGet, &req)
    }

    /// `PUT /datasets/{dataset_id}`
    pub fn datasets_update(
        &self,
        grant: &Grant,
        req: DatasetUpdateRequest,
    ) -> Result<DatasetUpdateResponse, ApiError> {
        self.not_available(grant, Endpoint::DatasetUpdate, &req)
    }

    /// `GET /datasets/{dataset_id}/status`
    pub fn datasets_status(
        &self,
        grant: &Grant,
        req: DatasetStatusRequest,
    ) -> Result<DatasetStatusResponse, ApiError> {
        self.not_available(grant, Endpoint::DatasetStatus, &req)
    }

    /// `GET /datasets/{dataset_id}/features/{feature_id}`
    pub fn datasets_feature_get(
        &self,
        grant: &Grant,
        req: FeatureGetRequest,
    ) -> Result<FeatureGetResponse, ApiError> {
        self.not_available(grant, Endpoint::FeatureGet, &req)
    }

    /// `POST /datasets/{dataset_id}/features/search`
    pub fn datasets_feature_search(
        &self,
        grant: &Grant,
        req: FeatureSearchRequest,
    ) -> Result<FeatureSearchResponse, ApiError> {
        self.not_available(grant, Endpoint::FeatureSearch, &req)
    }

    /// `POST /datasets/{dataset_id}/features/contains`
    pub fn datasets_feature_contains(
        &self,
        grant: &Grant,
        req: FeatureContainsRequest,
    ) -> Result<FeatureContainsResponse, ApiError> {
        self.not_available(grant, Endpoint::FeatureContains, &req)
    }

    // ----- indoor -----

    /// `GET /indoor/venues/{venue_id}`
    pub fn indoor_venue(
        &self,
        grant: &Grant,
        req: VenueGetRequest,
    ) -> Result<VenueGetResponse, ApiError> {
        self.not_available(grant, Endpoint::VenueGet, &req)
    }

    /// `GET /indoor/venues/{venue_id}/pois/search`
    pub fn indoor_poi_search(
        &self,
        grant: &Grant,
        req: PoiSearchRequest,
    ) -> Result<PoiSearchResponse, ApiError> {
        self.not_available(grant, Endpoint::PoiSearch, &req)
    }

    /// `GET /indoor/directions/{venue_id}`
    pub fn indoor_directions(
        &self,
        grant: &Grant,
        req: IndoorDirectionsRequest,
    ) -> Result<IndoorDirectionsResponse, ApiError> {
        self.not_available(grant, Endpoint::IndoorDirections, &req)
    }

    // ----- distance -----

    /// `GET /distance/route/json`
    pub fn distance_route(
        &self,
        grant: &Grant,
        req: RouteRequest,
    ) -> Result<RouteResponse, ApiError> {
        self.admit(grant, Endpoint::Route, &req)?;
        crate::distance::ops::route(
            &self.distance,
            self.packs.snapshot(),
            &req,
            &|| self.auth.charge(grant),
            &|p, t| self.utc_offset(p.lat, p.lng, t),
        )
    }

    /// Local UTC offset (seconds) at a point and instant: the timezones layer, else the
    /// nautical zone of the longitude.
    fn utc_offset(&self, lat: f64, lng: f64, unix: i64) -> i64 {
        let tz_index = self.timezone_index().ok();
        let tzid = tz_index
            .as_deref()
            .map_or_else(|| nautical_zone(lng), |tz| tz.lookup(lat, lng));
        chrono::DateTime::from_timestamp(unix, 0)
            .and_then(|at| offsets(tzid, at).ok())
            .map_or(0, |o| i64::from(o.raw_offset) + i64::from(o.dst_offset))
    }

    /// `GET /distance/tolls/json`
    pub fn distance_tolls(
        &self,
        grant: &Grant,
        req: TollsRequest,
    ) -> Result<TollsResponse, ApiError> {
        self.admit(grant, Endpoint::Tolls, &req)?;
        crate::distance::ops::tolls(
            &self.distance,
            self.packs.snapshot(),
            &req,
            &|| self.auth.charge(grant),
            &|p, t| self.utc_offset(p.lat, p.lng, t),
        )
    }

    /// `GET /distance/isochrone/json`
    pub fn distance_isochrone(
        &self,
        grant: &Grant,
        req: IsochroneRequest,
    ) -> Result<IsochroneResponse, ApiError> {
        self.admit(grant, Endpoint::Isochrone, &req)?;
        crate::distance::ops::isochrone(&self.distance, self.packs.snapshot(), &req, &|| {
            self.auth.charge(grant)
        })
    }

    /// The matrix job store, with its worker running.
    fn matrix_jobs(
        self: &std::sync::Arc<Self>,
    ) -> Result<std::sync::Arc<crate::distance::matrix::MatrixJobs>, ApiError> {
        let jobs = self.distance.jobs(&self.config.state_dir)?;
        jobs.ensure_worker(
            std::sync::Arc::downgrade(self),
            |engine: &Engine, req, id| {
                let routers = engine.distance.routers(engine.packs.snapshot())?;
                crate::distance::matrix::compute(&routers, req, id)
            },
        );
        Ok(jobs)
    }

    /// `POST /distance/matrix/async`: stores the job (state `accepted`) and returns its id;
    /// a background worker computes it. Above 200 elements: 422 with status
    /// `MAX_ELEMENTS_EXCEEDED`.
    pub fn distance_matrix_create(
        self: &std::sync::Arc<Self>,
        grant: &Grant,
        req: MatrixCreateRequest,
    ) -> Result<MatrixCreateResponse, ApiError> {
        self.admit(grant, Endpoint::MatrixCreate, &req)?;
        crate::distance::ops::check_elements(&req)?;
        self.distance.routers(self.packs.snapshot())?;
        let jobs = self.matrix_jobs()?;
        self.auth.charge(grant)?;
        Ok(MatrixCreateResponse {
            matrix_id: jobs.create(&req)?,
            status: MatrixStatus::Accepted,
        })
    }

    /// A matrix computed at once, without the 200-element limit of the asynchronous API (for
    /// embedding apps and benchmarks); same validation and quota otherwise.
    pub fn distance_matrix_now(
        &self,
        grant: &Grant,
        req: MatrixCreateRequest,
    ) -> Result<MatrixData, ApiError> {
        self.admit(grant, Endpoint::MatrixCreate, &req)?;
        let routers = self.distance.routers(self.packs.snapshot())?;
        self.auth.charge(grant)?;
        crate::distance::matrix::compute_data(
            &routers,
            &req.origins,
            &req.destinations,
            crate::distance::profile(req.mode),
        )
    }

    /// `GET /distance/matrix/async/{matrix_id}/status`
    pub fn distance_matrix_status(
        self: &std::sync::Arc<Self>,
        grant: &Grant,
        req: MatrixStatusRequest,
    ) -> Result<MatrixStatusResponse, ApiError> {
        self.admit(grant, Endpoint::MatrixStatus, &req)?;
        let (status, _) = self.matrix_jobs()?.status(&req.matrix_id)?;
        Ok(MatrixStatusResponse { status })
    }

    /// `GET /distance/matrix/async/{matrix_id}`: the result once `completed` (the local
    /// server answers it with a 303 to `.../{matrix_id}/result`); 404 before, saying the
    /// state.
    pub fn distance_matrix_result(
        self: &std::sync::Arc<Self>,
        grant: &Grant,
        req: MatrixResultRequest,
    ) -> Result<MatrixResultResponse, ApiError> {
        self.admit(grant, Endpoint::MatrixResult, &req)?;
        self.matrix_jobs()?.result(&req.matrix_id)
    }

    /// `GET /distance/matrix/async/{matrix_id}/result` (the target of the 303; not in the
    /// spec): the result of a completed matrix.
    pub fn distance_matrix_result_data(
        self: &std::sync::Arc<Self>,
        grant: &Grant,
        req: MatrixResultRequest,
    ) -> Result<MatrixResultResponse, ApiError> {
        self.admit(grant, Endpoint::MatrixResultData, &req)?;
        self.matrix_jobs()?.result(&req.matrix_id)
    }

    // ----- three-word addresses -----

    /// `GET /threewords/autosuggest`
    pub fn threewords_autosuggest(
        &self,
        grant: &Grant,
        req: AutosuggestRequest,
    ) -> Result<AutosuggestResponse, ApiError> {
        self.not_available(grant, Endpoint::Autosuggest, &req)
    }

    /// `GET /threewords/convert-to-3wa`
    pub fn threewords_convert(
        &self,
        grant: &Grant,
        req: ConvertTo3waRequest,
    ) -> Result<ConvertTo3waResponse, ApiError> {
        self.not_available(grant, Endpoint::ConvertTo3wa, &req)
    }

    // ----- pack management (not in the spec) -----

    /// `GET /packs`: the loaded packs with their licences and attribution.
    pub fn packs_list(
        &self,
        grant: &Grant,
        req: PacksListRequest,
    ) -> Result<PacksListResponse, ApiError> {
        self.admit(grant, Endpoint::PacksList, &req)?;
        let snapshot = self.packs.snapshot();
        let mut packs: Vec<PackInfo> = snapshot
            .all()
            .into_iter()
            .map(|p| PackInfo {
                id: p.manifest.id.clone(),
                version: p.manifest.version.clone(),
                layers: p.manifest.layers.clone(),
                bbox: p.manifest.coverage.bbox.to_vec(),
                built_at: p.manifest.built_at.clone(),
                size: p.manifest.files.iter().map(|f| f.size).sum(),
                attribution: p
                    .manifest
                    .sources
                    .iter()
                    .map(|s| PackAttribution {
                        id: s.id.clone(),
                        licence: s.licence.clone(),
                        attribution: s.attribution.clone(),
                    })
                    .collect(),
            })
            .collect();
        packs.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(PacksListResponse { packs })
    }

    /// `POST /packs`: starts installing the pack at `req.url` in the background; poll
    /// [`Engine::packs_install_status`] for progress.
    pub fn packs_install(
        self: &std::sync::Arc<Self>,
        grant: &Grant,
        req: PackInstallRequest,
    ) -> Result<PackInstallResponse, ApiError> {
        self.admit(grant, Endpoint::PackInstall, &req)?;
        self.store()?;
        let mut id_bytes = [0u8; 8];
        getrandom::fill(&mut id_bytes)
            .map_err(|e| ApiError::new(ErrorCode::Internal, format!("random: {e}")))?;
        let install_id: String = id_bytes.iter().map(|b| format!("{b:02x}")).collect();
        let status = PackInstallStatus {
            install_id: install_id.clone(),
            status: "in_progress".into(),
            pack_id: None,
            version: None,
            bytes_done: 0,
            bytes_total: 0,
            error: None,
        };
        self.installs.lock().insert(install_id.clone(), status);
        let engine = std::sync::Arc::clone(self);
        let job = install_id.clone();
        std::thread::Builder::new()
            .name(format!("pack-install-{job}"))
            .spawn(move || {
                let result = engine.install_completely(&req.url, &mut |p| {
                    if let Some(s) = engine.installs.lock().get_mut(&job) {
                        s.pack_id = Some(p.pack_id.clone());
                        s.version = Some(p.version.clone());
                        s.bytes_done = p.bytes_done;
                        s.bytes_total = p.bytes_total;
                    }
                });
                if let Some(s) = engine.installs.lock().get_mut(&job) {
                    match result {
                        Ok(done) => {
                            *s = PackInstallStatus {
                                install_id: job.clone(),
                                ..done
                            };
                        }
                        Err(e) => {
                            s.status = "failed".into();
                            s.error = Some(e.message);
                        }
                    }
                }
            })
            .map_err(|e| {
                ApiError::new(
                    ErrorCode::Internal,
                    format!("cannot start the install: {e}"),
                )
            })?;
        Ok(PackInstallResponse {
            install_id,
            status: "accepted".into(),
        })
    }

    /// `POST /packs` as the native SDK runs it: installs the pack at `req.url` on the calling
    /// thread, reporting to `progress`, and answers the completed install (or the error).
    pub fn packs_install_now(
        &self,
        grant: &Grant,
        req: PackInstallRequest,
        progress: &mut dyn FnMut(InstallProgress),
    ) -> Result<PackInstallStatus, ApiError> {
        self.admit(grant, Endpoint::PackInstall, &req)?;
        self.install_completely(&req.url, progress)
    }

    /// Installs the pack at `url`, reporting to `progress`, and describes the completed
    /// install; its id is `<pack>@<version>` (the background install of `POST /packs` puts
    /// its job id instead).
    fn install_completely(
        &self,
        url: &str,
        progress: &mut dyn FnMut(InstallProgress),
    ) -> Result<PackInstallStatus, ApiError> {
        let mut bytes_total = 0;
        let pack = self.install_pack(url, &mut |p| {
            bytes_total = p.bytes_total;
            progress(p);
        })?;
        Ok(PackInstallStatus {
            install_id: format!("{}@{}", pack.id, pack.version),
            status: "completed".into(),
            pack_id: Some(pack.id),
            version: Some(pack.version),
            bytes_done: bytes_total,
            bytes_total,
            error: None,
        })
    }

    /// `GET /packs/installs/{install_id}`
    pub fn packs_install_status(
        &self,
        grant: &Grant,
        req: PackInstallStatusRequest,
    ) -> Result<PackInstallStatus, ApiError> {
        self.admit(grant, Endpoint::PackInstallStatus, &req)?;
        self.installs
            .lock()
            .get(&req.install_id)
            .cloned()
            .ok_or_else(|| ApiError::not_found(format!("no install `{}`", req.install_id)))
    }

    /// `DELETE /packs/{pack_id}`
    pub fn packs_remove(
        &self,
        grant: &Grant,
        req: PackRemoveRequest,
    ) -> Result<PackRemoveResponse, ApiError> {
        self.admit(grant, Endpoint::PackRemove, &req)?;
        self.remove_pack(&req.pack_id)?;
        Ok(PackRemoveResponse {
            pack_id: req.pack_id,
            status: "removed".into(),
        })
    }
}
