//! The endpoint table: every operation of the contract, one row each, and everything derived
//! from it.
//!
//! A row gives the endpoint's method and path, API group, key set, rate limit, request and
//! response types, whether it runs off the I/O threads, its HTTP reply, the faces that expose
//! it, its error-body style, and the names of its engine/native method and of its method in
//! the Kotlin and Swift wrappers. From the rows come:
//!
//! - the [`Endpoint`] enum and its metadata (this module);
//! - an [`Operation`](crate::operation::Operation) impl on each request type (its endpoint,
//!   response type and engine function), so that every face calls
//!   [`Engine::call`](crate::Engine::call) with a typed request;
//! - [`Endpoint::visit`], which turns an endpoint known only at run time (the local server's
//!   router) into a call generic over its request type;
//! - the native SDK's methods and JSON codecs (`waymark-ffi` expands [`endpoint_table!`]) and
//!   the Kotlin and Swift wrappers generated from [`Endpoint::ALL`] by `bindings/generate.sh`;
//! - the local server's OpenAPI document.
//!
//! Adding an endpoint = a request type, a response type, a row here, an engine function and
//! tests (`docs/adding-an-endpoint.md`).
//!
//! ```
//! use waymark_core::endpoint::{Endpoint, Method};
//! let (ep, params) = Endpoint::route(Method::Get, "/datasets/42/status/").unwrap();
//! assert_eq!(ep, Endpoint::DatasetStatus);
//! assert_eq!(params, vec!["42".to_string()]);
//! assert_eq!(ep.native_name(), "datasets_status");
//! ```
use std::time::Duration;

use crate::api::ApiGroup;

/// HTTP method of an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`
    Get,
    /// `POST`
    Post,
    /// `PUT`
    Put,
    /// `DELETE` (Waymark extensions: packs and datasets)
    Delete,
}

impl Method {
    /// Upper-case method name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
}

/// Which credentials an endpoint accepts (see the spec's Authentication section and
/// `docs/decisions/keys-and-errors.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeySet {
    /// Public `key` with a mandatory `Referer`, `private_key` query parameter, `X-Api-Key` header.
    K1,
    /// As K1 without the Referer requirement (a Referer that is sent must still match).
    K2,
    /// A private key with write permission, by `private_key` or `X-Api-Key`.
    K3,
    /// Zones update: a private key with write permission by the `private_key` query parameter only.
    ZonesUpdate,
    /// Stores bounds: public `key` (with Referer) or `private_key`.
    StoresBounds,
}

/// A rate limit: at most `requests` per `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests allowed per window.
    pub requests: u32,
    /// Window length.
    pub window: Duration,
}

impl RateLimit {
    /// `requests` per `seconds` seconds.
    pub const fn per(requests: u32, seconds: u64) -> Self {
        RateLimit {
            requests,
            window: Duration::from_secs(seconds),
        }
    }

    /// Human description, e.g. `50 requests per 1 s`.
    pub fn describe(&self) -> String {
        format!(
            "{} request{} per {} s",
            self.requests,
            if self.requests == 1 { "" } else { "s" },
            self.window.as_secs()
        )
    }
}

/// Where an operation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Run {
    /// On the caller's thread: index lookups of microseconds, where a thread hand-off would
    /// cost more than the work (the local server's I/O worker, a synchronous native call).
    Inline,
    /// Off the I/O threads: graph searches, spatial scans, writes, imports (the local
    /// server's blocking pool; an `async` native method on a thread of its own).
    Blocking,
}

/// How the local server answers a successful call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reply {
    /// 200 with the response as JSON.
    Json,
    /// 202 with the response as JSON (a job was started).
    Accepted,
    /// 303 to the given endpoint's path, with the same path parameters and query string, and
    /// a small JSON body naming the location (a completed job's result).
    SeeOther(Endpoint),
}

/// Which faces expose an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Faces {
    /// The local server, the native SDK (FFI, Kotlin, Swift) and the Rust engine.
    All,
    /// The local server only (an HTTP artefact, such as the target of a 303).
    Http,
}

/// The shape of the error bodies of an endpoint: the spec's bodies differ per group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorStyle {
    /// `{"detail": "..."}`; 422 `{"detail": [field errors]}`.
    Detail,
    /// As `Detail`; a body that is not JSON at all is a 400 `{"status": "error", "value": "..."}`.
    Zones,
    /// As `Detail`, with 404 and 429 as `{"details": "..."}`.
    Datasets,
    /// As `Detail`, with 429 as `{"details": "..."}` and a `status` in every error body.
    Distance,
    /// As `Detail`, with 429 as `{"details": "..."}`.
    Threewords,
    /// As `Detail`; 422 with an empty `context`, 402/403 with an empty object.
    Indoor,
    /// As `Indoor`, with 400 as `{"detail": "..."}`.
    IndoorDirections,
}

/// The endpoint table. It expands `$callback! { rows }`, so that every face derives what it
/// needs from the same rows (`waymark-ffi` builds its methods and JSON codecs with it):
///
/// ```text
/// Name: METHOD "/path", Group, KeySet, N per S s, Request => Response,
///       Run, Reply, Faces, ErrorStyle, engine_and_native_method, sdkMethod
///       [, bucket BucketName (N per S s) if request_predicate];
/// ```
///
/// A `bucket` is a rate bucket of its own that the request falls in when the predicate (a
/// method of the request type) holds: the spec gives route-with-traffic its own limit.
#[macro_export]
macro_rules! endpoint_table {
    ($callback:ident) => {
        $callback! {
            /// `GET /localities/autocomplete`
            Autocomplete: Get "/localities/autocomplete", Localities, K1, 50 per 1 s,
                AutocompleteRequest => AutocompleteResponse,
                Inline, Json, All, Detail, localities_autocomplete, autocomplete;
            /// `GET /localities/details`
            Details: Get "/localities/details", Localities, K1, 50 per 1 s,
                DetailsRequest => DetailsResponse,
                Inline, Json, All, Detail, localities_details, details;
            /// `GET /localities/geocode`
            Geocode: Get "/localities/geocode", Localities, K1, 50 per 1 s,
                GeocodeRequest => GeocodeResponse,
                Inline, Json, All, Detail, localities_geocode, geocode;
            /// `GET /localities/nearby`
            Nearby: Get "/localities/nearby", Localities, K1, 50 per 1 s,
                NearbyRequest => NearbyResponse,
                Inline, Json, All, Detail, localities_nearby, nearby;
            /// `GET /geolocation/position`
            Position: Get "/geolocation/position", Geolocation, K1, 50 per 1 s,
                PositionRequest => PositionResponse,
                Inline, Json, All, Detail, geolocation_position, position;
            /// `GET /geolocation/timezone`
            Timezone: Get "/geolocation/timezone", Geolocation, K1, 50 per 1 s,
                TimezoneRequest => TimezoneResponse,
                Inline, Json, All, Detail, geolocation_timezone, timezone;
            /// `GET /stores/search`
            StoresSearch: Get "/stores/search", Stores, K1, 50 per 1 s,
                StoresSearchRequest => StoresSearchResponse,
                Inline, Json, All, Detail, stores_search, storesSearch;
            /// `GET /stores/search/bounds`
            StoresBounds: Get "/stores/search/bounds", Stores, StoresBounds, 50 per 1 s,
                StoresBoundsRequest => StoresBoundsResponse,
                Inline, Json, All, Detail, stores_bounds, storesBounds;
            /// `PUT /zones`
            ZonesUpdate: Put "/zones", Zones, ZonesUpdate, 1 per 1 s,
                ZonesUpdateRequest => ZonesUpdateResponse,
                Blocking, Json, All, Zones, zones_update, updateZones;
            /// `GET /zones/export` (Waymark extension, not in the spec): the zone edits of
            /// this device as a stores file of `waymark-packs import-stores`
            ZonesExport: Get "/zones/export", Zones, K3, 1 per 1 s,
                ZonesExportRequest => ZonesExportResponse,
                Blocking, Json, All, Zones, zones_export, exportZones;
            /// `GET /zones/{zone_id}` (Waymark extension, not in the spec): one zone as it
            /// answers on this device
            ZoneGet: Get "/zones/{zone_id}", Zones, K2, 20 per 1 s,
                ZoneGetRequest => ZoneGetResponse,
                Inline, Json, All, Zones, zones_get, zone;
            /// `GET /zones` (Waymark extension, not in the spec): a store's zones, paged
            ZonesList: Get "/zones", Zones, K2, 20 per 1 s,
                ZonesListRequest => ZonesListResponse,
                Inline, Json, All, Zones, zones_list, zones;
            /// `POST /zones` (Waymark extension, not in the spec): creates zones, all or
            /// nothing
            ZonesCreate: Post "/zones", Zones, K3, 1 per 1 s,
                ZonesCreateRequest => ZonesCreateResponse,
                Blocking, Json, All, Zones, zones_create, createZones;
            /// `DELETE /zones/{zone_id}` (Waymark extension, not in the spec)
            ZoneDelete: Delete "/zones/{zone_id}", Zones, K3, 10 per 1 s,
                ZoneDeleteRequest => ZoneDeleteResponse,
                Blocking, Json, All, Zones, zones_delete, deleteZone;
            /// `GET /datasets`
            DatasetList: Get "/datasets", Datasets, K3, 1 per 1 s,
                DatasetListRequest => DatasetListResponse,
                Inline, Json, All, Datasets, datasets_list, datasets;
            /// `POST /datasets` (Waymark extension, not in the spec): creates a dataset and
            /// starts its import
            DatasetCreate: Post "/datasets", Datasets, K3, 1 per 1 s,
                DatasetCreateRequest => DatasetCreateResponse,
                Blocking, Accepted, All, Datasets, datasets_create, createDataset;
            /// `DELETE /datasets/{dataset_id}` (Waymark extension, not in the spec)
            DatasetDelete: Delete "/datasets/{dataset_id}", Datasets, K3, 1 per 1 s,
                DatasetDeleteRequest => DatasetDeleteResponse,
                Blocking, Json, All, Datasets, datasets_delete, deleteDataset;
            /// `GET /datasets/{dataset_id}`
            DatasetGet: Get "/datasets/{dataset_id}", Datasets, K3, 1 per 1 s,
                DatasetGetRequest => DatasetGetResponse,
                Inline, Json, All, Datasets, datasets_get, dataset;
            /// `PUT /datasets/{dataset_id}`
            DatasetUpdate: Put "/datasets/{dataset_id}", Datasets, K3, 1 per 1 s,
                DatasetUpdateRequest => DatasetUpdateResponse,
                Blocking, Json, All, Datasets, datasets_update, updateDataset;
            /// `GET /datasets/{dataset_id}/status`
            DatasetStatus: Get "/datasets/{dataset_id}/status", Datasets, K3, 1 per 5 s,
                DatasetStatusRequest => DatasetStatusResponse,
                Inline, Json, All, Datasets, datasets_status, datasetStatus;
            /// `GET /datasets/{dataset_id}/features/{feature_id}`
            FeatureGet: Get "/datasets/{dataset_id}/features/{feature_id}", Datasets, K2, 20 per 1 s,
                FeatureGetRequest => FeatureGetResponse,
                Blocking, Json, All, Datasets, datasets_feature_get, datasetFeature;
            /// `POST /datasets/{dataset_id}/features/search`
            FeatureSearch: Post "/datasets/{dataset_id}/features/search", Datasets, K2, 20 per 1 s,
                FeatureSearchRequest => FeatureSearchResponse,
                Blocking, Json, All, Datasets, datasets_feature_search, searchFeatures;
            /// `POST /datasets/{dataset_id}/features/contains`
            FeatureContains: Post "/datasets/{dataset_id}/features/contains", Datasets, K2, 20 per 1 s,
                FeatureContainsRequest => FeatureContainsResponse,
                Blocking, Json, All, Datasets, datasets_feature_contains, featuresContaining;
            /// `GET /indoor/venues` (a Waymark extension: finding venues)
            VenueList: Get "/indoor/venues", Indoor, K2, 20 per 1 s,
                VenueListRequest => VenueListResponse,
                Inline, Json, All, Indoor, indoor_venue_list, listVenues;
            /// `GET /indoor/venues/{venue_id}`
            VenueGet: Get "/indoor/venues/{venue_id}", Indoor, K2, 20 per 1 s,
                VenueGetRequest => VenueGetResponse,
                Inline, Json, All, Indoor, indoor_venue, venue;
            /// `GET /indoor/venues/{venue_id}/pois/search`
            PoiSearch: Get "/indoor/venues/{venue_id}/pois/search", Indoor, K2, 30 per 1 s,
                PoiSearchRequest => PoiSearchResponse,
                Inline, Json, All, Indoor, indoor_poi_search, searchVenuePois;
            /// `GET /indoor/directions/{venue_id}`
            IndoorDirections: Get "/indoor/directions/{venue_id}", Indoor, K2, 20 per 1 s,
                IndoorDirectionsRequest => IndoorDirectionsResponse,
                Blocking, Json, All, IndoorDirections, indoor_directions, indoorDirections;
            /// `GET /distance/route/json`
            Route: Get "/distance/route/json", Distance, K2, 10 per 1 s,
                RouteRequest => RouteResponse,
                Blocking, Json, All, Distance, distance_route, route,
                bucket RouteWithTraffic (20 per 1 s) if uses_traffic;
            /// `GET /distance/tolls/json`
            Tolls: Get "/distance/tolls/json", Distance, K2, 5 per 1 s,
                TollsRequest => TollsResponse,
                Blocking, Json, All, Distance, distance_tolls, tolls;
            /// `GET /distance/isochrone/json`
            Isochrone: Get "/distance/isochrone/json", Distance, K2, 10 per 1 s,
                IsochroneRequest => IsochroneResponse,
                Blocking, Json, All, Distance, distance_isochrone, isochrone;
            /// `POST /distance/matrix/async`
            MatrixCreate: Post "/distance/matrix/async", Distance, K2, 20 per 1 s,
                MatrixCreateRequest => MatrixCreateResponse,
                Blocking, Json, All, Distance, distance_matrix_create, createMatrixJob;
            /// `GET /distance/matrix/async/{matrix_id}/status`
            MatrixStatus: Get "/distance/matrix/async/{matrix_id}/status", Distance, K2, 20 per 1 s,
                MatrixStatusRequest => MatrixStatusResponse,
                Inline, Json, All, Distance, distance_matrix_status, matrixJobStatus;
            /// `GET /distance/matrix/async/{matrix_id}`: over HTTP a 303 to `.../result` once
            /// the job is completed.
            MatrixResult: Get "/distance/matrix/async/{matrix_id}", Distance, K2, 20 per 1 s,
                MatrixResultRequest => MatrixResultResponse,
                Inline, SeeOther(MatrixResultData), All, Distance, distance_matrix_result, matrixJobResult;
            /// `GET /distance/matrix/async/{matrix_id}/result` (Waymark: the target of the
            /// result's 303, not in the spec)
            MatrixResultData: Get "/distance/matrix/async/{matrix_id}/result", Distance, K2, 20 per 1 s,
                MatrixResultDataRequest => MatrixResultResponse,
                Inline, Json, Http, Distance, distance_matrix_result_data, matrixJobResultData;
            /// `GET /threewords/autosuggest`
            Autosuggest: Get "/threewords/autosuggest", Threewords, K2, 20 per 1 s,
                AutosuggestRequest => AutosuggestResponse,
                Inline, Json, All, Threewords, threewords_autosuggest, autosuggest;
            /// `GET /threewords/convert-to-3wa`
            ConvertTo3wa: Get "/threewords/convert-to-3wa", Threewords, K2, 20 per 1 s,
                ConvertTo3waRequest => ConvertTo3waResponse,
                Inline, Json, All, Threewords, threewords_convert, convertTo3wa;
            /// `GET /threewords/convert-to-coordinates` (Waymark, not in the spec): the square
            /// of a three-word address
            ConvertToCoordinates: Get "/threewords/convert-to-coordinates", Threewords, K2, 20 per 1 s,
                ConvertToCoordinatesRequest => ConvertToCoordinatesResponse,
                Inline, Json, All, Threewords, threewords_to_coordinates, convertToCoordinates;
            /// `GET /map/features` (Waymark, not in the spec): roads, places and points of
            /// interest of the installed packs as GeoJSON, to draw an offline base map (the
            /// local server's demo page)
            MapFeatures: Get "/map/features", Localities, K1, 50 per 1 s,
                MapFeaturesRequest => MapFeaturesResponse,
                Blocking, Json, Http, Detail, map_features, mapFeatures;
            /// `GET /packs` (Waymark pack management, not in the spec)
            PacksList: Get "/packs", Packs, K3, 10 per 1 s,
                PacksListRequest => PacksListResponse,
                Blocking, Json, All, Detail, packs_list, packs;
            /// `POST /packs` (Waymark pack management, not in the spec): starts an install job
            PackInstall: Post "/packs", Packs, K3, 1 per 1 s,
                PackInstallRequest => PackInstallResponse,
                Inline, Accepted, All, Detail, packs_install, startPackInstall;
            /// `GET /packs/installs/{install_id}` (Waymark pack management, not in the spec)
            PackInstallStatus: Get "/packs/installs/{install_id}", Packs, K3, 10 per 1 s,
                PackInstallStatusRequest => PackInstallStatus,
                Inline, Json, All, Detail, packs_install_status, packInstallStatus;
            /// `DELETE /packs/{pack_id}` (Waymark pack management, not in the spec)
            PackRemove: Delete "/packs/{pack_id}", Packs, K3, 1 per 1 s,
                PackRemoveRequest => PackRemoveResponse,
                Blocking, Json, All, Detail, packs_remove, removePack;
        }
    };
}

macro_rules! define_endpoints {
    ($(
        $(#[$doc:meta])*
        $name:ident: $method:ident $path:literal, $group:ident, $keys:ident, $n:literal per $s:literal s,
        $req:ident => $resp:ident,
        $run:ident, $reply:ident $(($target:ident))?, $faces:ident, $errors:ident, $native:ident, $sdk:ident
        $(, bucket $bucket:ident ($bn:literal per $bs:literal s) if $pred:ident)?;
    )+) => {
        /// Every operation of the contract, and the rate buckets of their own that some
        /// requests fall in (`RouteWithTraffic`: a route with `arrival_time` or
        /// `departure_time`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Endpoint {
            $( $(#[$doc])* $name, )+
            $( $(
                #[doc = concat!("`", stringify!($name), "` in a rate bucket of its own (`",
                    stringify!($pred), "`)")]
                $bucket,
            )? )+
        }

        impl Endpoint {
            /// Every operation in spec order, then the rate buckets of their own.
            pub const ALL: &'static [Endpoint] = &[$(Endpoint::$name,)+ $($(Endpoint::$bucket,)?)+];

            /// The operation: itself, or the operation whose rate bucket this is.
            pub fn operation(self) -> Endpoint {
                match self {
                    $( Endpoint::$name => Endpoint::$name, )+
                    $( $( Endpoint::$bucket => Endpoint::$name, )? )+
                }
            }

            /// Whether this is a rate bucket of an operation rather than an operation.
            pub fn is_bucket(self) -> bool {
                self.operation() != self
            }

            /// HTTP method.
            pub fn method(self) -> Method {
                match self.operation() { $( Endpoint::$name => Method::$method, )+ _ => Method::Get }
            }

            /// Path pattern; `{name}` segments are path parameters.
            pub fn path(self) -> &'static str {
                match self.operation() { $( Endpoint::$name => $path, )+ _ => "" }
            }

            /// API group (keys enable groups).
            pub fn group(self) -> ApiGroup {
                match self.operation() { $( Endpoint::$name => ApiGroup::$group, )+ _ => ApiGroup::Packs }
            }

            /// Accepted credentials.
            pub fn key_set(self) -> KeySet {
                match self.operation() { $( Endpoint::$name => KeySet::$keys, )+ _ => KeySet::K3 }
            }

            /// Rate limit per key.
            pub fn rate_limit(self) -> RateLimit {
                match self {
                    $( Endpoint::$name => RateLimit::per($n, $s), )+
                    $( $( Endpoint::$bucket => RateLimit::per($bn, $bs), )? )+
                }
            }

            /// Where the operation runs.
            pub fn run(self) -> Run {
                match self.operation() { $( Endpoint::$name => Run::$run, )+ _ => Run::Inline }
            }

            /// How the local server answers success.
            pub fn reply(self) -> Reply {
                match self.operation() {
                    $( Endpoint::$name => Reply::$reply $((Endpoint::$target))?, )+
                    _ => Reply::Json,
                }
            }

            /// The faces that expose the operation.
            pub fn faces(self) -> Faces {
                match self.operation() { $( Endpoint::$name => Faces::$faces, )+ _ => Faces::Http }
            }

            /// The shape of its error bodies.
            pub fn error_style(self) -> ErrorStyle {
                match self.operation() { $( Endpoint::$name => ErrorStyle::$errors, )+ _ => ErrorStyle::Detail }
            }

            /// Stable name (logs, rate buckets, OpenAPI operation ids).
            pub fn name(self) -> &'static str {
                match self {
                    $( Endpoint::$name => stringify!($name), )+
                    $( $( Endpoint::$bucket => stringify!($bucket), )? )+
                }
            }

            /// Name of the engine function and of the native SDK's method (snake case).
            pub fn native_name(self) -> &'static str {
                match self.operation() { $( Endpoint::$name => stringify!($native), )+ _ => "" }
            }

            /// Name of the method in the Kotlin and Swift wrappers.
            pub fn sdk_name(self) -> &'static str {
                match self.operation() { $( Endpoint::$name => stringify!($sdk), )+ _ => "" }
            }

            /// Name of the request type in `core::api`.
            pub fn request_type(self) -> &'static str {
                match self.operation() { $( Endpoint::$name => stringify!($req), )+ _ => "" }
            }

            /// Name of the response type, type aliases resolved (`PositionResponse` is
            /// `GeolocationResult`): the name the generated bindings know it by.
            pub fn response_type(self) -> &'static str {
                let full = match self.operation() {
                    $( Endpoint::$name => std::any::type_name::<crate::api::$resp>(), )+
                    _ => "",
                };
                full.rsplit("::").next().unwrap_or(full)
            }

            /// Calls `visitor` with the request type of the endpoint (the route's traffic
            /// bucket visits the route's request type).
            pub fn visit<V: crate::operation::OperationVisitor>(self, visitor: V) -> V::Output {
                match self {
                    $( Endpoint::$name => visitor.visit::<crate::api::$req>(), )+
                    $( $( Endpoint::$bucket => visitor.visit::<crate::api::$req>(), )? )+
                }
            }
        }

        $(
            impl crate::operation::Operation for crate::api::$req {
                const ENDPOINT: Endpoint = Endpoint::$name;
                type Response = crate::api::$resp;

                fn rate_bucket(&self) -> Endpoint {
                    $( if self.$pred() { return Endpoint::$bucket; } )?
                    Endpoint::$name
                }

                fn run(
                    self,
                    engine: &std::sync::Arc<crate::Engine>,
                    call: &mut crate::operation::Call<'_>,
                ) -> Result<Self::Response, crate::error::ApiError> {
                    engine.$native(call, self)
                }
            }
        )+
    };
}

endpoint_table!(define_endpoints);

impl Endpoint {
    /// Whether the endpoint is one of the spec's operations (the others manage packs, create and
    /// delete datasets, manage zones beside `PUT /zones`, are the 303 target of the matrix
    /// result, or serve the map layer of the demo page).
    pub fn in_spec(self) -> bool {
        self.group() != ApiGroup::Packs
            && !matches!(
                self.operation(),
                Endpoint::MatrixResultData
                    | Endpoint::MapFeatures
                    | Endpoint::DatasetCreate
                    | Endpoint::DatasetDelete
                    | Endpoint::ConvertToCoordinates
                    | Endpoint::VenueList
                    | Endpoint::ZonesExport
                    | Endpoint::ZoneGet
                    | Endpoint::ZonesList
                    | Endpoint::ZonesCreate
                    | Endpoint::ZoneDelete
            )
    }

    /// The operations (every endpoint but the rate buckets of their own).
    pub fn operations() -> impl Iterator<Item = Endpoint> {
        Self::ALL.iter().copied().filter(|e| !e.is_bucket())
    }
}

/// Outcome of matching a request path against the endpoint table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteMatch {
    /// The path and method name an endpoint; path parameters in order.
    Found(Endpoint, Vec<String>),
    /// The path exists but not for this method; the allowed methods.
    MethodNotAllowed(Vec<Method>),
    /// No endpoint has this path.
    NotFound,
}

impl Endpoint {
    /// Matches a decoded path (with or without trailing slash) and method. Rate buckets are
    /// never returned: a request picks its bucket from its parameters
    /// ([`Operation::rate_bucket`](crate::operation::Operation::rate_bucket)).
    pub fn route(method: Method, path: &str) -> Option<(Endpoint, Vec<String>)> {
        match Self::match_path(method, path) {
            RouteMatch::Found(ep, params) => Some((ep, params)),
            _ => None,
        }
    }

    /// Matches a path and method, telling a wrong method apart from an unknown path.
    pub fn match_path(method: Method, path: &str) -> RouteMatch {
        let trimmed = path.strip_suffix('/').unwrap_or(path);
        let segments: Vec<&str> = trimmed.split('/').skip(1).collect();
        let mut allowed = Vec::new();
        for ep in Self::operations() {
            if let Some(params) = match_pattern(ep.path(), &segments) {
                if ep.method() == method {
                    return RouteMatch::Found(ep, params);
                }
                allowed.push(ep.method());
            }
        }
        if allowed.is_empty() {
            RouteMatch::NotFound
        } else {
            RouteMatch::MethodNotAllowed(allowed)
        }
    }

    /// The methods of the operations at a decoded path (with or without trailing slash), in
    /// table order; empty when no operation has the path. A 405's `Allow` header.
    pub fn methods_at(path: &str) -> Vec<Method> {
        let trimmed = path.strip_suffix('/').unwrap_or(path);
        let segments: Vec<&str> = trimmed.split('/').skip(1).collect();
        Self::operations()
            .filter(|ep| match_pattern(ep.path(), &segments).is_some())
            .map(Endpoint::method)
            .collect()
    }

    /// The path parameter names of the pattern, in order.
    pub fn path_params(self) -> Vec<&'static str> {
        self.path()
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect()
    }

    /// The path with its parameters filled in (each percent-encoded as one segment).
    pub fn concrete_path(self, params: &[String]) -> String {
        let mut values = params.iter();
        self.path()
            .split('/')
            .map(|s| {
                if s.starts_with('{') {
                    values
                        .next()
                        .map_or_else(String::new, |v| percent_encode_segment(v))
                } else {
                    s.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// Percent-encodes everything but ASCII letters and digits.
fn percent_encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn match_pattern(pattern: &str, segments: &[&str]) -> Option<Vec<String>> {
    let pattern: Vec<&str> = pattern.split('/').skip(1).collect();
    if pattern.len() != segments.len() {
        return None;
    }
    let mut params = Vec::new();
    for (p, s) in pattern.iter().zip(segments) {
        if p.starts_with('{') {
            if s.is_empty() {
                return None;
            }
            params.push((*s).to_string());
        } else if p != s {
            return None;
        }
    }
    Some(params)
}

#[cfg(test)]
mod tests;
