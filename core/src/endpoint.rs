//! The endpoint table: every operation of the contract with its method, path pattern, API group,
//! key set and rate limit.
//!
//! This is contract metadata shared by the `Engine` (authorization, rate limits), the local
//! server (routing, OpenAPI) and the FFI. Paths match with and without a trailing slash.
//!
//! ```
//! use waymark_core::endpoint::{Endpoint, Method};
//! let (ep, params) = Endpoint::route(Method::Get, "/datasets/42/status/").unwrap();
//! assert_eq!(ep, Endpoint::DatasetStatus);
//! assert_eq!(params, vec!["42".to_string()]);
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
    /// `DELETE` (pack management only)
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
/// `docs/decisions.md`).
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
    const fn per_second(requests: u32) -> Self {
        RateLimit {
            requests,
            window: Duration::from_secs(1),
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

macro_rules! endpoints {
    ($( $(#[$doc:meta])* $name:ident => ($method:ident, $path:literal, $group:ident, $keys:ident, $rate:expr) ),+ $(,)?) => {
        /// Every operation of the contract. `RouteWithTraffic` is the route operation when
        /// `arrival_time` or `departure_time` is given: the spec gives it a rate bucket of its own.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Endpoint {
            $( $(#[$doc])* $name ),+
        }

        impl Endpoint {
            /// Every endpoint, in spec order.
            pub const ALL: &'static [Endpoint] = &[$(Endpoint::$name),+];

            /// HTTP method.
            pub fn method(self) -> Method {
                match self { $(Endpoint::$name => Method::$method),+ }
            }

            /// Path pattern; `{name}` segments are path parameters.
            pub fn path(self) -> &'static str {
                match self { $(Endpoint::$name => $path),+ }
            }

            /// API group (keys enable groups, error bodies differ per group).
            pub fn group(self) -> ApiGroup {
                match self { $(Endpoint::$name => ApiGroup::$group),+ }
            }

            /// Accepted credentials.
            pub fn key_set(self) -> KeySet {
                match self { $(Endpoint::$name => KeySet::$keys),+ }
            }

            /// Rate limit per key.
            pub fn rate_limit(self) -> RateLimit {
                match self { $(Endpoint::$name => $rate),+ }
            }

            /// Stable snake-case name (logs, rate buckets, OpenAPI operation ids).
            pub fn name(self) -> &'static str {
                match self { $(Endpoint::$name => stringify!($name)),+ }
            }
        }
    };
}

// Limits the spec does not show (nearby, geolocation, stores, zones) are chosen in
// docs/decisions.md: 50/1 s for reads as the localities group, 1/1 s for the zones write.
endpoints! {
    /// `GET /localities/autocomplete`
    Autocomplete => (Get, "/localities/autocomplete", Localities, K1, RateLimit::per_second(50)),
    /// `GET /localities/details`
    Details => (Get, "/localities/details", Localities, K1, RateLimit::per_second(50)),
    /// `GET /localities/geocode`
    Geocode => (Get, "/localities/geocode", Localities, K1, RateLimit::per_second(50)),
    /// `GET /localities/nearby`
    Nearby => (Get, "/localities/nearby", Localities, K1, RateLimit::per_second(50)),
    /// `GET /geolocation/position`
    Position => (Get, "/geolocation/position", Geolocation, K1, RateLimit::per_second(50)),
    /// `GET /geolocation/timezone`
    Timezone => (Get, "/geolocation/timezone", Geolocation, K1, RateLimit::per_second(50)),
    /// `GET /stores/search`
    StoresSearch => (Get, "/stores/search", Stores, K1, RateLimit::per_second(50)),
    /// `GET /stores/search/bounds`
    StoresBounds => (Get, "/stores/search/bounds", Stores, StoresBounds, RateLimit::per_second(50)),
    /// `PUT /zones`
    ZonesUpdate => (Put, "/zones", Zones, ZonesUpdate, RateLimit::per_second(1)),
    /// `GET /datasets`
    DatasetList => (Get, "/datasets", Datasets, K3, RateLimit::per_second(1)),
    /// `GET /datasets/{dataset_id}`
    DatasetGet => (Get, "/datasets/{dataset_id}", Datasets, K3, RateLimit::per_second(1)),
    /// `PUT /datasets/{dataset_id}`
    DatasetUpdate => (Put, "/datasets/{dataset_id}", Datasets, K3, RateLimit::per_second(1)),
    /// `GET /datasets/{dataset_id}/status`
    DatasetStatus => (Get, "/datasets/{dataset_id}/status", Datasets, K3,
        RateLimit { requests: 1, window: Duration::from_secs(5) }),
    /// `GET /datasets/{dataset_id}/features/{feature_id}`
    FeatureGet => (Get, "/datasets/{dataset_id}/features/{feature_id}", Datasets, K2, RateLimit::per_second(20)),
    /// `POST /datasets/{dataset_id}/features/search`
    FeatureSearch => (Post, "/datasets/{dataset_id}/features/search", Datasets, K2, RateLimit::per_second(20)),
    /// `POST /datasets/{dataset_id}/features/contains`
    FeatureContains => (Post, "/datasets/{dataset_id}/features/contains", Datasets, K2, RateLimit::per_second(20)),
    /// `GET /indoor/venues/{venue_id}`
    VenueGet => (Get, "/indoor/venues/{venue_id}", Indoor, K2, RateLimit::per_second(20)),
    /// `GET /indoor/venues/{venue_id}/pois/search`
    PoiSearch => (Get, "/indoor/venues/{venue_id}/pois/search", Indoor, K2, RateLimit::per_second(30)),
    /// `GET /indoor/directions/{venue_id}`
    IndoorDirections => (Get, "/indoor/directions/{venue_id}", Indoor, K2, RateLimit::per_second(20)),
    /// `GET /distance/route/json`
    Route => (Get, "/distance/route/json", Distance, K2, RateLimit::per_second(10)),
    /// `GET /distance/route/json` with `arrival_time` or `departure_time`
    RouteWithTraffic => (Get, "/distance/route/json", Distance, K2, RateLimit::per_second(20)),
    /// `GET /distance/tolls/json`
    Tolls => (Get, "/distance/tolls/json", Distance, K2, RateLimit::per_second(5)),
    /// `GET /distance/isochrone/json`
    Isochrone => (Get, "/distance/isochrone/json", Distance, K2, RateLimit::per_second(10)),
    /// `POST /distance/matrix/async`
    MatrixCreate => (Post, "/distance/matrix/async", Distance, K2, RateLimit::per_second(20)),
    /// `GET /distance/matrix/async/{matrix_id}/status`
    MatrixStatus => (Get, "/distance/matrix/async/{matrix_id}/status", Distance, K2, RateLimit::per_second(20)),
    /// `GET /distance/matrix/async/{matrix_id}`
    MatrixResult => (Get, "/distance/matrix/async/{matrix_id}", Distance, K2, RateLimit::per_second(20)),
    /// `GET /distance/matrix/async/{matrix_id}/result` (Waymark: the target of the result's
    /// 303, not in the spec)
    MatrixResultData => (Get, "/distance/matrix/async/{matrix_id}/result", Distance, K2, RateLimit::per_second(20)),
    /// `GET /threewords/autosuggest`
    Autosuggest => (Get, "/threewords/autosuggest", Threewords, K2, RateLimit::per_second(20)),
    /// `GET /threewords/convert-to-3wa`
    ConvertTo3wa => (Get, "/threewords/convert-to-3wa", Threewords, K2, RateLimit::per_second(20)),
    /// `GET /packs` (Waymark pack management, not in the spec)
    PacksList => (Get, "/packs", Packs, K3, RateLimit::per_second(10)),
    /// `POST /packs` (Waymark pack management, not in the spec)
    PackInstall => (Post, "/packs", Packs, K3, RateLimit::per_second(1)),
    /// `GET /packs/installs/{install_id}` (Waymark pack management, not in the spec)
    PackInstallStatus => (Get, "/packs/installs/{install_id}", Packs, K3, RateLimit::per_second(10)),
    /// `DELETE /packs/{pack_id}` (Waymark pack management, not in the spec)
    PackRemove => (Delete, "/packs/{pack_id}", Packs, K3, RateLimit::per_second(1)),
}

impl Endpoint {
    /// Whether the endpoint is one of the spec's 27 (the others manage packs).
    pub fn in_spec(self) -> bool {
        self.group() != ApiGroup::Packs && self != Endpoint::MatrixResultData
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
    /// Matches a decoded path (with or without trailing slash) and method. `RouteWithTraffic`
    /// is never returned: the route operation picks its bucket from its parameters.
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
        for &ep in Self::ALL {
            if ep == Endpoint::RouteWithTraffic {
                continue;
            }
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

    /// The path parameter names of the pattern, in order.
    pub fn path_params(self) -> Vec<&'static str> {
        self.path()
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect()
    }
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
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn twenty_seven_endpoints_plus_the_traffic_bucket() {
        assert_eq!(Endpoint::ALL.iter().filter(|e| e.in_spec()).count(), 28);
        assert_eq!(Endpoint::ALL.len(), 33);
        let mut paths: Vec<_> = Endpoint::ALL
            .iter()
            .map(|e| (e.method(), e.path()))
            .collect();
        paths.sort_by_key(|(m, p)| (m.as_str(), *p));
        paths.dedup();
        assert_eq!(
            paths.len(),
            32,
            "27 of the spec, the matrix result's 303 target and 4 of pack management"
        );
    }

    #[test]
    fn paths_match_with_and_without_trailing_slash() {
        for &ep in Endpoint::ALL {
            if ep == Endpoint::RouteWithTraffic {
                continue;
            }
            let concrete = ep
                .path()
                .replace("{dataset_id}", "d1")
                .replace("{feature_id}", "f1");
            let concrete = concrete
                .replace("{venue_id}", "v1")
                .replace("{matrix_id}", "m1");
            let (found, _) = Endpoint::route(ep.method(), &concrete).unwrap();
            assert_eq!(found, ep, "{concrete}");
            let (found, _) = Endpoint::route(ep.method(), &format!("{concrete}/")).unwrap();
            assert_eq!(found, ep, "{concrete}/");
        }
    }

    #[test]
    fn path_params_are_extracted_in_order() {
        let (ep, params) =
            Endpoint::route(Method::Get, "/datasets/abc/features/17").expect("matches");
        assert_eq!(ep, Endpoint::FeatureGet);
        assert_eq!(params, vec!["abc", "17"]);
        assert_eq!(ep.path_params(), vec!["dataset_id", "feature_id"]);
    }

    #[test]
    fn wrong_method_and_unknown_path_are_told_apart() {
        assert_eq!(
            Endpoint::match_path(Method::Post, "/geolocation/timezone"),
            RouteMatch::MethodNotAllowed(vec![Method::Get])
        );
        assert_eq!(
            Endpoint::match_path(Method::Get, "/geolocation/nowhere"),
            RouteMatch::NotFound
        );
        assert_eq!(
            Endpoint::match_path(Method::Get, "/datasets//status"),
            RouteMatch::NotFound
        );
        // Both GET and PUT exist on a dataset.
        assert!(matches!(
            Endpoint::match_path(Method::Put, "/datasets/x"),
            RouteMatch::Found(Endpoint::DatasetUpdate, _)
        ));
    }

    #[test]
    fn spec_limits() {
        assert_eq!(Endpoint::Route.rate_limit().requests, 10);
        assert_eq!(Endpoint::RouteWithTraffic.rate_limit().requests, 20);
        assert_eq!(
            Endpoint::DatasetStatus.rate_limit().window,
            Duration::from_secs(5)
        );
        assert_eq!(Endpoint::PoiSearch.rate_limit().requests, 30);
        assert_eq!(Endpoint::Tolls.rate_limit().requests, 5);
    }
}
