//! `GET /distance/route/json` and the route part of `GET /distance/tolls/json`.
//!
//! * **Search.** Without `avoid`, each leg is a query on the prepared hierarchy of the
//!   profile and metric. With `avoid` (tolls, highways, ferries, polygons) the hierarchy does
//!   not apply — it was contracted with those edges in it — so the leg is a plain Dijkstra on
//!   the turn graph with the avoided edges removed, snapping included. When no route avoids
//!   them, the route that uses them is returned with a `notice` saying so.
//! * **Waypoints** `optimize:true`: the points between the fixed origin and destination are
//!   reordered to minimise the total cost in the request's metric (exactly, by dynamic
//!   programming, up to 10 waypoints; nearest neighbour then 2-opt above), from a cost matrix
//!   of the hierarchy's many-to-many search.
//! * **Alternatives** (2–3 routes): via-node candidates of the hierarchy (or, with `avoid` or
//!   when the via nodes give none, penalised re-searches: arcs of the routes found cost 1.5×
//!   more), kept when they cost at most 1.4× the best and share at most 60 % of their length
//!   with every route kept before.
//! * **Time of day.** Offline there is no live traffic. With `departure_time` or
//!   `arrival_time` the free-flow `duration_without_traffic` is multiplied, per road class, by
//!   a fixed typical-congestion profile at the local time of the leg's start (motor vehicles
//!   only): weekday peaks 07:00–09:30 and 16:30–19:00 ×1.25 on motorways and trunk roads and
//!   ×1.40 on other roads, weekday daytime 09:30–16:30 ×1.10 / ×1.15, evenings 19:00–22:00
//!   ×1.05, weekend daytime 10:00–19:00 ×1.05 / ×1.10, otherwise ×1.0. With `arrival_time` the
//!   departure is found by fixed-point iteration.
//!
//! Planning is in `plan` (with `alternatives` and `traffic`); the answers are built in
//! `steps` (geometry and manoeuvres of a leg) and `response`.

mod alternatives;
mod plan;
mod response;
mod steps;
mod traffic;

use crate::api::RouteAvoid;
use crate::geo::Pt;
use crate::routing::Profile;
use crate::routing::profile::Metric;
use crate::routing::router::ArcPath;
use crate::routing::snap::Snap;

pub use plan::{optimize_order, plan};
pub use response::{Texts, bounds, route_response, tolls_response};
pub use steps::{StepParts, leg_points, steps};
pub use traffic::traffic_factor;

/// `departure_time` or `arrival_time`, resolved to UNIX seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Leave at.
    Depart(i64),
    /// Arrive at.
    Arrive(i64),
}

/// What to route.
#[derive(Debug, Clone)]
pub struct TripQuery {
    /// Origin, waypoints, destination.
    pub points: Vec<Pt>,
    /// Reorder the waypoints.
    pub optimize: bool,
    /// Profile.
    pub profile: Profile,
    /// Metric.
    pub metric: Metric,
    /// Avoid options.
    pub avoid: Vec<RouteAvoid>,
    /// Alternatives wanted.
    pub alternatives: bool,
    /// Time of day.
    pub when: Option<When>,
}

/// A computed leg.
#[derive(Debug, Clone)]
pub struct TripLeg {
    /// The path.
    pub path: ArcPath,
    /// Index of the start in the request's points.
    pub from: usize,
    /// Index of the end.
    pub to: usize,
    /// Snapped start.
    pub from_snap: Snap,
    /// Snapped end.
    pub to_snap: Snap,
    /// Length, m.
    pub distance_m: f64,
    /// Free-flow duration, s.
    pub duration_s: f64,
    /// Duration at the time of day, s (when a time was given).
    pub traffic_s: Option<f64>,
}

/// A computed route.
#[derive(Debug, Clone)]
pub struct Trip {
    /// Legs.
    pub legs: Vec<TripLeg>,
    /// Notice.
    pub notice: Option<String>,
}

/// Most waypoints per request.
pub const MAX_WAYPOINTS: usize = 25;
