//! The `Engine`: one function per endpoint of the contract, each a few lines that hand the
//! request to the service of its group ([`Localities`](crate::localities::Localities),
//! [`Geolocation`], [`Distance`](crate::distance::Distance), [`PackManager`]).
//!
//! Faces never call these functions directly: they call [`Engine::call`] with the caller's
//! credentials and a typed request (see [`crate::operation`]), which admits the call once —
//! authentication, rate limit, parse errors, the request's rules — and then runs the function
//! the endpoint table names for the request type, with the [`Call`] that proves the admission
//! and charges the quota. Every operation of the table is implemented; an operation missing
//! from a build would return [`ErrorCode::NotAvailable`](crate::error::ErrorCode::NotAvailable)
//! — never an invented answer.
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
//! let request = TimezoneRequest { location: LatLng { lat: 42.5, lng: 1.5 }, ..Default::default() };
//! // No pack is installed: admitted, then 503.
//! let err = engine.call(&Credentials::Http(&caller), request).unwrap_err();
//! assert_eq!(err.code, waymark_core::ErrorCode::DataUnavailable);
//! ```
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::api::*;
use crate::auth::keys::PublisherKey;
use crate::auth::{Authorizer, RateLimitMode};
use crate::error::{ApiError, Result};
use crate::geolocation::Geolocation;
use crate::operation::Call;
use crate::packs::{InstallProgress, InstalledPack, PackManager, PackRegistry, PackStore};

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
    /// Size limits of dataset imports.
    pub dataset_limits: crate::datasets::DatasetLimits,
    /// A ceiling on the process's resident set, in bytes: after every request over it, the
    /// pages of the packs' mapped routing layouts are unmapped
    /// ([`crate::routing::memory::hold_under`]; Linux and Android, where the resident set is
    /// read cheaply). `None`: no ceiling, mapped pages stay until the system reclaims them.
    pub resident_ceiling: Option<u64>,
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
            dataset_limits: Default::default(),
            resident_ceiling: None,
        }
    }
}

/// The offline location engine.
#[derive(Debug)]
pub struct Engine {
    config: EngineConfig,
    auth: Authorizer,
    /// Installed packs, the registry that serves them, install jobs.
    packs: Arc<PackManager>,
    /// Stores indexes of the current pack set.
    stores: crate::stores::Stores,
    /// Three-word layer of the current pack set.
    threewords: crate::threewords::ThreeWords,
    /// Indoor venues of the current pack set.
    indoor: crate::indoor::Indoor,
    /// Timezone and IP indexes of the current pack set (the distance service reads local
    /// time from it).
    geolocation: Arc<Geolocation>,
    /// Search indexes of the current pack set.
    localities: crate::localities::Localities,
    /// Routers of the current pack set and the matrix jobs.
    distance: crate::distance::Distance,
    /// Datasets imported from URLs (the engine's writable state, not packs).
    datasets: crate::datasets::Datasets,
}

impl Engine {
    /// Opens the engine: creates the state directory and database when missing, loads the
    /// installed packs.
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
        let store = match &config.packs_dir {
            Some(dir) => Some(PackStore::open(dir).map_err(|e| {
                crate::error::Error::Config(format!("packs directory {}: {e}", dir.display()))
            })?),
            None => None,
        };
        let packs = PackManager::open(store, config.trusted_publishers.clone())
            .map_err(|e| crate::error::Error::Config(format!("loading packs: {e}")))?;
        let packs = Arc::new(packs);
        let geolocation = Arc::new(Geolocation::default());
        let distance =
            crate::distance::Distance::new(packs.clone(), geolocation.clone(), &config.state_dir);
        let stores = crate::stores::Stores::open(&config.state_dir)
            .map_err(|e| crate::error::Error::Config(e.to_string()))?;
        let datasets = crate::datasets::Datasets::open(&config.state_dir, config.dataset_limits)
            .map_err(|e| crate::error::Error::Config(e.to_string()))?;
        Ok(Engine {
            config,
            auth,
            datasets,
            stores,
            threewords: crate::threewords::ThreeWords::default(),
            indoor: Default::default(),
            packs,
            geolocation,
            localities: Default::default(),
            distance,
        })
    }

    /// The loaded data packs.
    pub fn packs(&self) -> &PackRegistry {
        self.packs.registry()
    }

    /// Installs a pack from a `file://` or `http(s)://` pack directory URL (resumable, verified,
    /// atomic) and swaps it in while serving, without a key: for the embedding application's
    /// own set-up (the faces install through `POST /packs`, which needs a write key).
    pub fn install_pack(
        &self,
        source: &str,
        progress: &mut dyn FnMut(InstallProgress),
    ) -> Result<InstalledPack, ApiError> {
        self.packs.install(source, progress)
    }

    /// Unloads and deletes every installed version of pack `id`, without a key (see
    /// [`Engine::install_pack`]).
    pub fn remove_pack(&self, id: &str) -> Result<(), ApiError> {
        self.packs.remove(id)
    }

    /// Creates a dataset and starts its import, without a key (see [`Engine::install_pack`]);
    /// the body is checked as `POST /datasets` checks it.
    pub fn create_dataset(&self, body: DatasetCreateBody) -> Result<Dataset, ApiError> {
        let req = DatasetCreateRequest { body };
        req.validate().map_err(ApiError::validation)?;
        self.datasets.create_unchecked(&req.body)
    }

    /// The configuration the engine was opened with.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// The authorizer (key verification, CORS decisions, quota counters).
    pub fn authorizer(&self) -> &Authorizer {
        &self.auth
    }

    /// Saves state not written yet (quota counters are written through, so normally none).
    pub fn flush(&self) -> Result<()> {
        self.auth.flush()
    }

    /// Hands memory back to the system without closing anything, as a platform memory warning
    /// asks (Android's `onTrimMemory`, iOS's memory warning): the pages of the packs' mapped
    /// routing layouts are unmapped from the process (they stay in the files, and in the
    /// system's page cache while it keeps them) and the buffers kept between requests are
    /// dropped ([`crate::routing::memory`]). Answers are unchanged; the next queries map again
    /// the pages they read. Safe while requests run. It acts for every engine of the process
    /// (the layouts and buffers are the process's).
    pub fn release_memory(&self) -> crate::routing::memory::ReleasedMemory {
        crate::routing::memory::release()
    }

    /// Holds the resident set under the configured ceiling, if any (after each request).
    pub(crate) fn hold_resident_ceiling(&self) {
        if let Some(ceiling) = self.config.resident_ceiling {
            crate::routing::memory::hold_under(ceiling);
        }
    }

    /// Unmaps the pages of the mapped routing layouts only, keeping the buffers kept between
    /// requests: what an app that holds its resident set under a ceiling calls after a request
    /// that took it over (see [`Engine::release_memory`]).
    pub fn release_mapped_pages(&self) -> crate::routing::memory::ReleasedMemory {
        crate::routing::memory::unmap_layouts()
    }

    /// Builds the geolocation indexes of the current pack set now (they are otherwise built by
    /// the first request that needs them, which then waits for it).
    pub fn prepare_geolocation(&self) {
        self.geolocation.prepare(&self.packs.registry().snapshot());
    }

    /// Builds the stores index of the current pack set now (otherwise built by the first
    /// stores request, which then waits for it: about a second per 100,000 stores).
    pub fn prepare_stores(&self) {
        // No stores layer is not an error here: the first request will say so.
        let _ = self.stores.index(self.packs.registry().snapshot());
    }

    /// Loads the data of every dataset that has some now (otherwise loaded by its first
    /// feature request, which then waits for it).
    pub fn prepare_datasets(&self) {
        self.datasets.prepare();
    }

    /// How many times a dataset's data file was read into memory since the engine opened.
    pub fn dataset_loads(&self) -> u64 {
        self.datasets.loads()
    }

    /// Loads the three-word layer of the current pack set now (otherwise loaded by the first
    /// three-word request, which then waits for it: the region table, 40,000 words, 147,519
    /// places and 240 country outlines).
    pub fn prepare_threewords(&self) {
        // No three-word layer is not an error here: the first request will say so.
        let _ = self.threewords.index(self.packs.registry().snapshot());
    }

    fn locale(&self) -> Option<&str> {
        self.config.default_language.as_deref()
    }

    // ----- localities -----

    /// `GET /localities/autocomplete`
    pub fn localities_autocomplete(
        &self,
        call: &mut Call<'_>,
        req: AutocompleteRequest,
    ) -> Result<AutocompleteResponse, ApiError> {
        let set = self.packs().snapshot();
        self.localities.autocomplete(set, call, &req, self.locale())
    }

    /// `GET /localities/details`
    pub fn localities_details(
        &self,
        call: &mut Call<'_>,
        req: DetailsRequest,
    ) -> Result<DetailsResponse, ApiError> {
        let set = self.packs().snapshot();
        self.localities.details(set, call, &req, self.locale())
    }

    /// `GET /localities/geocode`
    pub fn localities_geocode(
        &self,
        call: &mut Call<'_>,
        req: GeocodeRequest,
    ) -> Result<GeocodeResponse, ApiError> {
        let set = self.packs().snapshot();
        self.localities.geocode(set, call, &req, self.locale())
    }

    /// `GET /localities/nearby`
    pub fn localities_nearby(
        &self,
        call: &mut Call<'_>,
        req: NearbyRequest,
    ) -> Result<NearbyResponse, ApiError> {
        self.localities.nearby(self.packs().snapshot(), call, &req)
    }

    // ----- geolocation -----

    /// `GET /geolocation/position`: the position of `ip_address` (honoured only with a private
    /// key) or of the calling connection; the call carries the attribution of the IP data.
    pub fn geolocation_position(
        &self,
        call: &mut Call<'_>,
        req: PositionRequest,
    ) -> Result<PositionResponse, ApiError> {
        self.geolocation
            .position(self.packs().snapshot(), call, &req)
    }

    /// `GET /geolocation/timezone`
    pub fn geolocation_timezone(
        &self,
        call: &mut Call<'_>,
        req: TimezoneRequest,
    ) -> Result<TimezoneResponse, ApiError> {
        self.geolocation
            .timezone(self.packs().snapshot(), call, &req)
    }

    /// `GET /stores/search`
    pub fn stores_search(
        &self,
        call: &mut Call<'_>,
        req: StoresSearchRequest,
    ) -> Result<StoresSearchResponse, ApiError> {
        self.stores.search(self.packs().snapshot(), call, &req)
    }

    /// `GET /stores/search/bounds`
    pub fn stores_bounds(
        &self,
        call: &mut Call<'_>,
        req: StoresBoundsRequest,
    ) -> Result<StoresBoundsResponse, ApiError> {
        self.stores.bounds(self.packs().snapshot(), call, &req)
    }

    /// The zones whose local edit is in conflict with the installed packs (the pack changed
    /// the zone since the edit was made; the edit stays in force until the zone is updated
    /// again).
    pub fn zone_conflicts(&self) -> Result<Vec<crate::stores::ZoneConflict>, ApiError> {
        self.stores.zone_conflicts(self.packs().snapshot())
    }

    /// `PUT /zones`
    pub fn zones_update(
        &self,
        call: &mut Call<'_>,
        req: ZonesUpdateRequest,
    ) -> Result<ZonesUpdateResponse, ApiError> {
        self.stores
            .update_zones(self.packs().snapshot(), call, &req)
    }

    /// `GET /zones/export` (Waymark extension)
    pub fn zones_export(
        &self,
        call: &mut Call<'_>,
        req: ZonesExportRequest,
    ) -> Result<ZonesExportResponse, ApiError> {
        self.stores
            .export_zones(self.packs().snapshot(), call, &req)
    }

    /// `GET /zones/{zone_id}` (Waymark extension)
    pub fn zones_get(
        &self,
        call: &mut Call<'_>,
        req: ZoneGetRequest,
    ) -> Result<ZoneGetResponse, ApiError> {
        self.stores.zone_get(self.packs().snapshot(), call, &req)
    }

    /// `GET /zones?store_id=...` (Waymark extension)
    pub fn zones_list(
        &self,
        call: &mut Call<'_>,
        req: ZonesListRequest,
    ) -> Result<ZonesListResponse, ApiError> {
        self.stores.zones_list(self.packs().snapshot(), call, &req)
    }

    /// `POST /zones` (Waymark extension)
    pub fn zones_create(
        &self,
        call: &mut Call<'_>,
        req: ZonesCreateRequest,
    ) -> Result<ZonesCreateResponse, ApiError> {
        self.stores
            .create_zones(self.packs().snapshot(), call, &req)
    }

    /// `DELETE /zones/{zone_id}` (Waymark extension)
    pub fn zones_delete(
        &self,
        call: &mut Call<'_>,
        req: ZoneDeleteRequest,
    ) -> Result<ZoneDeleteResponse, ApiError> {
        self.stores.delete_zone(self.packs().snapshot(), call, &req)
    }

    /// `POST /datasets` (Waymark extension)
    pub fn datasets_create(
        &self,
        call: &mut Call<'_>,
        req: DatasetCreateRequest,
    ) -> Result<DatasetCreateResponse, ApiError> {
        self.datasets.create(call, &req)
    }

    /// `DELETE /datasets/{dataset_id}` (Waymark extension)
    pub fn datasets_delete(
        &self,
        call: &mut Call<'_>,
        req: DatasetDeleteRequest,
    ) -> Result<DatasetDeleteResponse, ApiError> {
        self.datasets.delete(call, &req)
    }

    /// `GET /datasets`
    pub fn datasets_list(
        &self,
        call: &mut Call<'_>,
        req: DatasetListRequest,
    ) -> Result<DatasetListResponse, ApiError> {
        self.datasets.list(call, &req)
    }

    /// `GET /datasets/{dataset_id}`
    pub fn datasets_get(
        &self,
        call: &mut Call<'_>,
        req: DatasetGetRequest,
    ) -> Result<DatasetGetResponse, ApiError> {
        self.datasets.get(call, &req.dataset_id)
    }

    /// `PUT /datasets/{dataset_id}`
    pub fn datasets_update(
        &self,
        call: &mut Call<'_>,
        req: DatasetUpdateRequest,
    ) -> Result<DatasetUpdateResponse, ApiError> {
        self.datasets.update(call, &req)
    }

    /// `GET /datasets/{dataset_id}/status`
    pub fn datasets_status(
        &self,
        call: &mut Call<'_>,
        req: DatasetStatusRequest,
    ) -> Result<DatasetStatusResponse, ApiError> {
        self.datasets.status(call, &req.dataset_id)
    }

    /// `GET /datasets/{dataset_id}/features/{feature_id}`
    pub fn datasets_feature_get(
        &self,
        call: &mut Call<'_>,
        req: FeatureGetRequest,
    ) -> Result<FeatureGetResponse, ApiError> {
        self.datasets.feature(call, &req)
    }

    /// `POST /datasets/{dataset_id}/features/search`
    pub fn datasets_feature_search(
        &self,
        call: &mut Call<'_>,
        req: FeatureSearchRequest,
    ) -> Result<FeatureSearchResponse, ApiError> {
        self.datasets.search(call, &req)
    }

    /// `POST /datasets/{dataset_id}/features/contains`
    pub fn datasets_feature_contains(
        &self,
        call: &mut Call<'_>,
        req: FeatureContainsRequest,
    ) -> Result<FeatureContainsResponse, ApiError> {
        self.datasets.contains(call, &req)
    }

    /// The datasets service (waits on imports in tests and the CLI).
    pub fn datasets(&self) -> &crate::datasets::Datasets {
        &self.datasets
    }

    /// `GET /indoor/venues`
    pub fn indoor_venue_list(
        &self,
        call: &mut Call<'_>,
        req: VenueListRequest,
    ) -> Result<VenueListResponse, ApiError> {
        self.indoor.list(self.packs().snapshot(), call, &req)
    }

    /// `GET /indoor/venues/{venue_id}`
    pub fn indoor_venue(
        &self,
        call: &mut Call<'_>,
        req: VenueGetRequest,
    ) -> Result<VenueGetResponse, ApiError> {
        self.indoor.venue(self.packs().snapshot(), call, &req)
    }

    /// `GET /indoor/venues/{venue_id}/pois/search`
    pub fn indoor_poi_search(
        &self,
        call: &mut Call<'_>,
        req: PoiSearchRequest,
    ) -> Result<PoiSearchResponse, ApiError> {
        self.indoor.search(self.packs().snapshot(), call, &req)
    }

    /// `GET /indoor/directions/{venue_id}`
    pub fn indoor_directions(
        &self,
        call: &mut Call<'_>,
        req: IndoorDirectionsRequest,
    ) -> Result<IndoorDirectionsResponse, ApiError> {
        self.indoor
            .directions(self.packs().snapshot(), self.distance.routing(), call, &req)
    }

    /// `GET /threewords/autosuggest`
    pub fn threewords_autosuggest(
        &self,
        call: &mut Call<'_>,
        req: AutosuggestRequest,
    ) -> Result<AutosuggestResponse, ApiError> {
        self.threewords
            .autosuggest(self.packs().snapshot(), call, &req)
    }

    /// `GET /threewords/convert-to-3wa`
    pub fn threewords_convert(
        &self,
        call: &mut Call<'_>,
        req: ConvertTo3waRequest,
    ) -> Result<ConvertTo3waResponse, ApiError> {
        self.threewords.convert(self.packs().snapshot(), call, &req)
    }

    /// `GET /threewords/convert-to-coordinates`
    pub fn threewords_to_coordinates(
        &self,
        call: &mut Call<'_>,
        req: ConvertToCoordinatesRequest,
    ) -> Result<ConvertToCoordinatesResponse, ApiError> {
        self.threewords
            .to_coordinates(self.packs().snapshot(), call, &req)
    }

    // ----- distance -----

    /// `GET /distance/route/json`
    pub fn distance_route(
        &self,
        call: &mut Call<'_>,
        req: RouteRequest,
    ) -> Result<RouteResponse, ApiError> {
        self.distance.route(call, &req)
    }

    /// `GET /distance/tolls/json`
    pub fn distance_tolls(
        &self,
        call: &mut Call<'_>,
        req: TollsRequest,
    ) -> Result<TollsResponse, ApiError> {
        self.distance.tolls(call, &req)
    }

    /// `GET /distance/isochrone/json`
    pub fn distance_isochrone(
        &self,
        call: &mut Call<'_>,
        req: IsochroneRequest,
    ) -> Result<IsochroneResponse, ApiError> {
        self.distance.isochrone(call, &req)
    }

    /// `POST /distance/matrix/async`: stores the job (state `accepted`) and returns its id;
    /// a background worker computes it. Above 200 elements: 422 with status
    /// `MAX_ELEMENTS_EXCEEDED`.
    pub fn distance_matrix_create(
        &self,
        call: &mut Call<'_>,
        req: MatrixCreateRequest,
    ) -> Result<MatrixCreateResponse, ApiError> {
        self.distance.matrix_create(call, &req)
    }

    /// A matrix computed at once, without the 200-element limit of the asynchronous API (the
    /// native SDK's `matrix`, benchmarks); admitted as `POST /distance/matrix/async`
    /// through [`Engine::call_with`].
    pub fn distance_matrix_now(
        &self,
        call: &mut Call<'_>,
        req: MatrixCreateRequest,
    ) -> Result<MatrixData, ApiError> {
        self.distance.matrix_now(call, &req)
    }

    /// `GET /distance/matrix/async/{matrix_id}/status`
    pub fn distance_matrix_status(
        &self,
        _call: &mut Call<'_>,
        req: MatrixStatusRequest,
    ) -> Result<MatrixStatusResponse, ApiError> {
        self.distance.matrix_status(&req.matrix_id)
    }

    /// `GET /distance/matrix/async/{matrix_id}`: the result once `completed` (the local
    /// server answers it with a 303 to `.../{matrix_id}/result`); 404 before, saying the
    /// state.
    pub fn distance_matrix_result(
        &self,
        _call: &mut Call<'_>,
        req: MatrixResultRequest,
    ) -> Result<MatrixResultResponse, ApiError> {
        self.distance.matrix_result(&req.matrix_id)
    }

    /// `GET /distance/matrix/async/{matrix_id}/result` (the target of the 303; not in the
    /// spec): the result of a completed matrix.
    pub fn distance_matrix_result_data(
        &self,
        _call: &mut Call<'_>,
        req: MatrixResultDataRequest,
    ) -> Result<MatrixResultResponse, ApiError> {
        self.distance.matrix_result(&req.matrix_id)
    }

    // ----- map layer (not in the spec) -----

    /// `GET /map/features`: roads, places and points of interest of the installed packs in a
    /// box, simplified for drawing, with the packs' attribution.
    pub fn map_features(
        &self,
        call: &mut Call<'_>,
        req: MapFeaturesRequest,
    ) -> Result<MapFeaturesResponse, ApiError> {
        crate::map::features(&self.packs().snapshot(), call, &req, self.packs.list())
    }

    // ----- pack management (not in the spec) -----

    /// `GET /packs`: the loaded packs with their licences, attribution and sizes; with
    /// `source`, what updating the pack of that id from it downloads (full and delta sizes).
    pub fn packs_list(
        &self,
        _call: &mut Call<'_>,
        req: PacksListRequest,
    ) -> Result<PacksListResponse, ApiError> {
        Ok(PacksListResponse {
            packs: self.packs.list_with_source(req.source.as_deref())?,
        })
    }

    /// `POST /packs`: starts installing the pack at `req.url` in the background; poll
    /// `GET /packs/installs/{install_id}` for progress.
    pub fn packs_install(
        &self,
        _call: &mut Call<'_>,
        req: PackInstallRequest,
    ) -> Result<PackInstallResponse, ApiError> {
        Ok(PackInstallResponse {
            install_id: self.packs.start_install(req.url)?,
            status: "accepted".into(),
        })
    }

    /// `POST /packs` as the native SDK runs it (through [`Engine::call_with`]): installs the
    /// pack at `req.url` on the calling thread, reporting to `progress`, and answers the
    /// completed install (or the error).
    pub fn packs_install_now(
        &self,
        _call: &mut Call<'_>,
        req: PackInstallRequest,
        progress: &mut dyn FnMut(InstallProgress),
    ) -> Result<PackInstallStatus, ApiError> {
        self.packs.install_now(&req.url, progress)
    }

    /// `GET /packs/installs/{install_id}`
    pub fn packs_install_status(
        &self,
        _call: &mut Call<'_>,
        req: PackInstallStatusRequest,
    ) -> Result<PackInstallStatus, ApiError> {
        self.packs.job(&req.install_id)
    }

    /// `DELETE /packs/{pack_id}`
    pub fn packs_remove(
        &self,
        _call: &mut Call<'_>,
        req: PackRemoveRequest,
    ) -> Result<PackRemoveResponse, ApiError> {
        self.packs.remove(&req.pack_id)?;
        Ok(PackRemoveResponse {
            pack_id: req.pack_id,
            status: "removed".into(),
        })
    }
}
