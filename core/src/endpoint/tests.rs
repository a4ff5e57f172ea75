#![allow(clippy::unwrap_used, clippy::expect_used)]
use super::*;

/// The operations of the Location Platform specification (its "Endpoints" section). The
/// spec's list, not a count: a Waymark extension added to the table without being marked
/// as one in [`Endpoint::in_spec`] fails here.
const SPEC_OPERATIONS: &[(Method, &str)] = &[
    (Method::Get, "/localities/autocomplete"),
    (Method::Get, "/localities/details"),
    (Method::Get, "/localities/geocode"),
    (Method::Get, "/localities/nearby"),
    (Method::Get, "/geolocation/position"),
    (Method::Get, "/geolocation/timezone"),
    (Method::Get, "/stores/search"),
    (Method::Get, "/stores/search/bounds"),
    (Method::Put, "/zones"),
    (Method::Get, "/datasets"),
    (Method::Get, "/datasets/{dataset_id}"),
    (Method::Put, "/datasets/{dataset_id}"),
    (Method::Get, "/datasets/{dataset_id}/status"),
    (Method::Get, "/datasets/{dataset_id}/features/{feature_id}"),
    (Method::Post, "/datasets/{dataset_id}/features/search"),
    (Method::Post, "/datasets/{dataset_id}/features/contains"),
    (Method::Get, "/indoor/venues/{venue_id}"),
    (Method::Get, "/indoor/venues/{venue_id}/pois/search"),
    (Method::Get, "/indoor/directions/{venue_id}"),
    (Method::Get, "/distance/route/json"),
    (Method::Get, "/distance/tolls/json"),
    (Method::Get, "/distance/isochrone/json"),
    (Method::Post, "/distance/matrix/async"),
    (Method::Get, "/distance/matrix/async/{matrix_id}/status"),
    (Method::Get, "/distance/matrix/async/{matrix_id}"),
    (Method::Get, "/threewords/autosuggest"),
    (Method::Get, "/threewords/convert-to-3wa"),
];

#[test]
fn the_spec_operations_are_those_marked_in_spec() {
    let mut marked: Vec<_> = Endpoint::operations()
        .filter(|e| e.in_spec())
        .map(|e| (e.method().as_str(), e.path()))
        .collect();
    let mut spec: Vec<_> = SPEC_OPERATIONS
        .iter()
        .map(|(m, p)| (m.as_str(), *p))
        .collect();
    marked.sort_unstable();
    spec.sort_unstable();
    assert_eq!(marked, spec);
    // A rate bucket is in the spec exactly when its operation is.
    for &ep in Endpoint::ALL {
        assert_eq!(ep.in_spec(), ep.operation().in_spec(), "{ep:?}");
    }
}

#[test]
fn every_operation_has_its_own_method_and_path_and_buckets_come_last() {
    let operations: Vec<Endpoint> = Endpoint::operations().collect();
    let buckets: Vec<Endpoint> = Endpoint::ALL
        .iter()
        .copied()
        .filter(|e| e.is_bucket())
        .collect();
    assert_eq!(Endpoint::ALL.len(), operations.len() + buckets.len());
    assert_eq!(&Endpoint::ALL[..operations.len()], operations.as_slice());
    assert!(buckets.contains(&Endpoint::RouteWithTraffic));
    let mut paths: Vec<_> = Endpoint::ALL
        .iter()
        .map(|e| (e.method(), e.path()))
        .collect();
    paths.sort_by_key(|(m, p)| (m.as_str(), *p));
    paths.dedup();
    assert_eq!(
        paths.len(),
        operations.len(),
        "two operations share a method and path, or a bucket has a path of its own"
    );
    let mut names: Vec<&str> = Endpoint::ALL.iter().map(|e| e.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Endpoint::ALL.len(), "names are unique");
}

#[test]
fn paths_match_with_and_without_trailing_slash() {
    for ep in Endpoint::operations() {
        let concrete = ep
            .path()
            .replace("{dataset_id}", "d1")
            .replace("{feature_id}", "f1");
        let concrete = concrete
            .replace("{venue_id}", "v1")
            .replace("{matrix_id}", "m1")
            .replace("{zone_id}", "z1");
        let (found, _) = Endpoint::route(ep.method(), &concrete).unwrap();
        assert_eq!(found, ep, "{concrete}");
        let (found, _) = Endpoint::route(ep.method(), &format!("{concrete}/")).unwrap();
        assert_eq!(found, ep, "{concrete}/");
    }
}

#[test]
fn path_params_are_extracted_in_order() {
    let (ep, params) = Endpoint::route(Method::Get, "/datasets/abc/features/17").expect("matches");
    assert_eq!(ep, Endpoint::FeatureGet);
    assert_eq!(params, vec!["abc", "17"]);
    assert_eq!(ep.path_params(), vec!["dataset_id", "feature_id"]);
    assert_eq!(
        Endpoint::MatrixResultData.concrete_path(&["a b/c".into()]),
        "/distance/matrix/async/a%20b%2Fc/result"
    );
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
    assert_eq!(
        Endpoint::methods_at("/datasets/x/"),
        vec![Method::Delete, Method::Get, Method::Put]
    );
    assert!(Endpoint::methods_at("/geolocation/nowhere").is_empty());
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

#[test]
fn a_bucket_shares_its_operation_but_not_its_limit() {
    let b = Endpoint::RouteWithTraffic;
    assert!(b.is_bucket());
    assert_eq!(b.operation(), Endpoint::Route);
    assert_eq!(b.path(), Endpoint::Route.path());
    assert_eq!(b.key_set(), KeySet::K2);
    assert_eq!(b.native_name(), "distance_route");
    assert_ne!(b.rate_limit(), Endpoint::Route.rate_limit());
}

#[test]
fn names_for_the_faces() {
    assert_eq!(Endpoint::Position.response_type(), "GeolocationResult");
    assert_eq!(Endpoint::Position.request_type(), "PositionRequest");
    assert_eq!(Endpoint::Timezone.sdk_name(), "timezone");
    assert_eq!(
        Endpoint::MatrixResult.reply(),
        Reply::SeeOther(Endpoint::MatrixResultData)
    );
    assert_eq!(Endpoint::Route.run(), Run::Blocking);
    assert_eq!(Endpoint::MatrixResultData.faces(), Faces::Http);
    assert_eq!(Endpoint::MapFeatures.faces(), Faces::Http);
    assert!(!Endpoint::MapFeatures.in_spec());
}
