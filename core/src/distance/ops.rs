//! The distance operations as the [`Engine`](crate::Engine) calls them: data check (503),
//! quota (`charge`), then the computation. Outcomes of a valid computation are `status`
//! values in a 200 body (`ZERO_RESULTS`, `MAX_ROUTE_LENGTH_EXCEEDED`); problems with the
//! request itself are HTTP errors (422 and the `value_error.max_elements` 422 of the matrix).
use std::sync::Arc;

use crate::api::*;
use crate::error::ApiError;
use crate::geo::{Pt, line_length_m};
use crate::packs::PackSet;

use super::route::{Planned, Texts, TripQuery, When, plan, route_response, tolls_response};
use super::{Distance, metric, profile, pt};

/// Resolves `departure_time` / `arrival_time` to UNIX seconds.
fn when(arrival: Option<TrafficTime>, departure: Option<TrafficTime>) -> Option<When> {
    let resolve = |t: TrafficTime| match t {
        TrafficTime::Now => chrono::Utc::now().timestamp(),
        TrafficTime::At(t) => t,
    };
    match (arrival, departure) {
        (Some(a), _) => Some(When::Arrive(resolve(a))),
        (None, Some(d)) => Some(When::Depart(resolve(d))),
        _ => None,
    }
}

fn too_many_waypoints(n: usize) -> Result<(), ApiError> {
    if n > super::route::MAX_WAYPOINTS {
        return Err(ApiError::validation(vec![FieldError::new(
            vec!["query".into(), "waypoints".into()],
            "value_error",
            format!(
                "{n} waypoints given; a route takes at most {}: split the trip",
                super::route::MAX_WAYPOINTS
            ),
        )]));
    }
    Ok(())
}

/// Points of a trip: origin, waypoints, destination.
fn trip_points(origin: LatLng, waypoints: &Waypoints, destination: LatLng) -> Vec<Pt> {
    std::iter::once(origin)
        .chain(waypoints.points.iter().copied())
        .chain(std::iter::once(destination))
        .map(pt)
        .collect()
}

/// `GET /distance/route/json`.
pub fn route(
    d: &Distance,
    set: Arc<PackSet>,
    req: &RouteRequest,
    charge: &dyn Fn() -> Result<(), ApiError>,
    utc_offset: &dyn Fn(Pt, i64) -> i64,
) -> Result<RouteResponse, ApiError> {
    too_many_waypoints(req.waypoints.points.len())?;
    let packs = d.routers(set)?;
    charge()?;
    let points = trip_points(req.origin, &req.waypoints, req.destination);
    let Some(routing) = packs.for_points(&points)? else {
        return Ok(RouteResponse {
            status: zero_or_too_long(&points),
            routes: Vec::new(),
        });
    };
    let q = TripQuery {
        points,
        optimize: req.waypoints.optimize,
        profile: profile(req.mode),
        metric: metric(req.method),
        avoid: req.avoid.clone(),
        alternatives: req.alternatives,
        when: when(req.arrival_time, req.departure_time),
    };
    let texts = Texts {
        units: req.units,
        lang: req.effective_language(),
    };
    Ok(match plan(&routing, &q, utc_offset) {
        Planned::Routes(trips) => route_response(
            &routing,
            q.profile,
            &trips,
            texts,
            req.details == DetailsLevel::Full,
        ),
        Planned::Status(status) => RouteResponse {
            status,
            routes: Vec::new(),
        },
    })
}

/// `ZERO_RESULTS`, or `MAX_ROUTE_LENGTH_EXCEEDED` when the points alone are farther apart
/// than a route may be long.
fn zero_or_too_long(points: &[Pt]) -> DistanceStatus {
    if line_length_m(points) > MAX_ROUTE_LENGTH_M as f64 {
        DistanceStatus::MaxRouteLengthExceeded
    } else {
        DistanceStatus::ZeroResults
    }
}

/// `GET /distance/tolls/json`.
pub fn tolls(
    d: &Distance,
    set: Arc<PackSet>,
    req: &TollsRequest,
    charge: &dyn Fn() -> Result<(), ApiError>,
    utc_offset: &dyn Fn(Pt, i64) -> i64,
) -> Result<TollsResponse, ApiError> {
    too_many_waypoints(req.waypoints.points.len())?;
    let packs = d.routers(set)?;
    charge()?;
    let points = trip_points(req.origin, &req.waypoints, req.destination);
    let Some(routing) = packs.for_points(&points)? else {
        return Ok(TollsResponse {
            status: zero_or_too_long(&points),
            routes: Vec::new(),
        });
    };
    let q = TripQuery {
        points,
        optimize: req.waypoints.optimize,
        profile: profile(req.mode),
        metric: metric(req.method),
        avoid: Vec::new(),
        alternatives: req.alternatives,
        when: when(req.arrival_time, req.departure_time),
    };
    let texts = Texts {
        units: req.units,
        lang: req.effective_language(),
    };
    Ok(match plan(&routing, &q, utc_offset) {
        Planned::Routes(trips) => tolls_response(&routing, q.profile, &trips, texts),
        Planned::Status(status) => TollsResponse {
            status,
            routes: Vec::new(),
        },
    })
}

/// `GET /distance/isochrone/json`.
pub fn isochrone(
    d: &Distance,
    set: Arc<PackSet>,
    req: &IsochroneRequest,
    charge: &dyn Fn() -> Result<(), ApiError>,
) -> Result<IsochroneResponse, ApiError> {
    let packs = d.routers(set)?;
    charge()?;
    let texts = Texts {
        units: req.units,
        lang: req.effective_language(),
    };
    match packs.for_points(&[pt(req.origin)])? {
        Some(routing) => Ok(super::isochrone::isochrone(&routing, req, texts)),
        None => {
            let mut r = super::isochrone::isochrone_empty(req, texts);
            r.status = DistanceStatus::ZeroResults;
            Ok(r)
        }
    }
}

/// The 422 of a matrix above [`MAX_MATRIX_ELEMENTS`] (its body's `status` is
/// `MAX_ELEMENTS_EXCEEDED`).
pub fn check_elements(req: &MatrixCreateRequest) -> Result<(), ApiError> {
    let n = req.element_count();
    if n > MAX_MATRIX_ELEMENTS {
        return Err(ApiError::validation(vec![FieldError::new(
            vec!["body".into(), "origins".into()],
            MAX_ELEMENTS_KIND,
            format!(
                "MAX_ELEMENTS_EXCEEDED: {} origins × {} destinations = {n} elements; a matrix takes at most {MAX_MATRIX_ELEMENTS}: split it into several requests",
                req.origins.len(),
                req.destinations.len()
            ),
        )]));
    }
    Ok(())
}

/// The `type` of the matrix's element-limit error.
pub const MAX_ELEMENTS_KIND: &str = "value_error.max_elements";
