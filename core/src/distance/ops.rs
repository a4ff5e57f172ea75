//! The distance operations, methods of [`Distance`] that the [`Engine`](crate::Engine)
//! delegates to: data check (503), quota ([`Call::charge`]), then the computation. Outcomes of a valid computation are `status`
//! values in a 200 body (`ZERO_RESULTS`, `MAX_ROUTE_LENGTH_EXCEEDED`); problems with the
//! request itself are HTTP errors (422 and the `value_error.max_elements` 422 of the matrix).
use std::sync::Arc;

use crate::api::*;
use crate::error::ApiError;
use crate::geo::{Pt, line_length_m};
use crate::operation::Call;

use super::matrix::compute_data;
use super::route::{Texts, Trip, TripQuery, When, plan, route_response, tolls_response};
use super::{Distance, LocalClock, RoutingPack, metric, profile, pt};

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

/// The [`TripQuery`] of a `route` or `tolls` request (the two share these field names),
/// avoiding `avoid`.
macro_rules! trip_query {
    ($req:expr, avoid: $avoid:expr) => {
        TripQuery {
            points: trip_points($req.origin, &$req.waypoints, $req.destination),
            optimize: $req.waypoints.optimize,
            profile: profile($req.mode),
            metric: metric($req.method),
            avoid: $avoid,
            alternatives: $req.alternatives,
            when: when($req.arrival_time, $req.departure_time),
        }
    };
}

/// A planned trip of `route` or `tolls`.
enum TripPlan {
    /// Routes, best first, on the pack that routed them.
    Routes(Arc<RoutingPack>, Vec<Trip>),
    /// A status without routes.
    Status(DistanceStatus),
}

impl Distance {
    /// What `route` and `tolls` share: the waypoint limit (422), road data (503), the quota,
    /// then the trip planned on the pack covering every point.
    fn plan_trip(&self, call: &mut Call<'_>, q: &TripQuery) -> Result<TripPlan, ApiError> {
        // The points between origin and destination.
        too_many_waypoints(q.points.len().saturating_sub(2))?;
        let set = self.routing.snapshot();
        let packs = self.routing.routers(set.clone())?;
        call.charge()?;
        let Some(routing) = packs.for_points(&q.points)? else {
            return Ok(TripPlan::Status(zero_or_too_long(&q.points)));
        };
        let clock = LocalClock::new(&*self.local_time, &set);
        Ok(match plan(&routing, q, clock) {
            Ok(trips) => TripPlan::Routes(routing, trips),
            Err(status) => TripPlan::Status(status),
        })
    }

    /// `GET /distance/route/json`.
    pub fn route(
        &self,
        call: &mut Call<'_>,
        req: &RouteRequest,
    ) -> Result<RouteResponse, ApiError> {
        let q = trip_query!(req, avoid: req.avoid.clone());
        let texts = Texts::new(req.units, req.effective_language());
        Ok(match self.plan_trip(call, &q)? {
            TripPlan::Routes(routing, trips) => route_response(
                &routing,
                q.profile,
                &trips,
                texts,
                req.details == DetailsLevel::Full,
            ),
            TripPlan::Status(status) => RouteResponse {
                status,
                routes: Vec::new(),
            },
        })
    }

    /// `GET /distance/tolls/json`.
    pub fn tolls(
        &self,
        call: &mut Call<'_>,
        req: &TollsRequest,
    ) -> Result<TollsResponse, ApiError> {
        let q = trip_query!(req, avoid: Vec::new());
        let texts = Texts::new(req.units, req.effective_language());
        Ok(match self.plan_trip(call, &q)? {
            TripPlan::Routes(routing, trips) => tolls_response(&routing, q.profile, &trips, texts),
            TripPlan::Status(status) => TollsResponse {
                status,
                routes: Vec::new(),
            },
        })
    }

    /// `GET /distance/isochrone/json`.
    pub fn isochrone(
        &self,
        call: &mut Call<'_>,
        req: &IsochroneRequest,
    ) -> Result<IsochroneResponse, ApiError> {
        let packs = self.routing.current()?;
        call.charge()?;
        let texts = Texts::new(req.units, req.effective_language());
        match packs.for_area(pt(req.origin))? {
            Some(routing) => Ok(super::isochrone::isochrone(&routing, req, texts)),
            None => {
                let mut r = super::isochrone::isochrone_empty(req, texts);
                r.status = DistanceStatus::ZeroResults;
                Ok(r)
            }
        }
    }

    /// `POST /distance/matrix/async`: stores the job (state `accepted`) and returns its id;
    /// the background worker computes it. Above [`MAX_MATRIX_ELEMENTS`]: 422 with status
    /// `MAX_ELEMENTS_EXCEEDED`.
    pub fn matrix_create(
        &self,
        call: &mut Call<'_>,
        req: &MatrixCreateRequest,
    ) -> Result<MatrixCreateResponse, ApiError> {
        check_elements(req)?;
        self.routing.current()?;
        let jobs = self.matrix_jobs()?;
        call.charge()?;
        Ok(MatrixCreateResponse {
            matrix_id: jobs.create(req)?,
            status: MatrixStatus::Accepted,
        })
    }

    /// A matrix computed at once, without the element limit of the asynchronous API.
    pub fn matrix_now(
        &self,
        call: &mut Call<'_>,
        req: &MatrixCreateRequest,
    ) -> Result<MatrixData, ApiError> {
        let packs = self.routing.current()?;
        call.charge()?;
        compute_data(&packs, &req.origins, &req.destinations, profile(req.mode))
    }

    /// The state of matrix job `matrix_id` (404 when unknown).
    pub fn matrix_status(&self, matrix_id: &str) -> Result<MatrixStatusResponse, ApiError> {
        let (status, _) = self.matrix_jobs()?.status(matrix_id)?;
        Ok(MatrixStatusResponse { status })
    }

    /// The result of matrix job `matrix_id` once `completed`; 404 before, saying the state.
    pub fn matrix_result(&self, matrix_id: &str) -> Result<MatrixResult, ApiError> {
        self.matrix_jobs()?.result(matrix_id)
    }
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
