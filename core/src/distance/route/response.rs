//! The answers of `route` and `tolls` from planned trips: legs with their texts, steps,
//! polylines, bounds, addresses and tolls.
use crate::api::*;
use crate::distance::{RoutingPack, latlng, text};
use crate::geo::{BBox, Pt, encode_polyline};
use crate::routing::Profile;

use super::Trip;
use super::steps::{leg_points, steps};

/// The bounds of points.
pub fn bounds(pts: impl IntoIterator<Item = Pt>) -> Viewport {
    let Some(b) = BBox::of(pts) else {
        return Viewport::default();
    };
    Viewport {
        northeast: latlng(Pt::new(b.north, b.east)),
        southwest: latlng(Pt::new(b.south, b.west)),
    }
}

/// Texts of a request.
#[derive(Debug, Clone, Copy)]
pub struct Texts {
    /// Units.
    pub units: Units,
    /// Language.
    pub lang: RouteLanguage,
}

impl Texts {
    /// The texts in `units` and `lang`.
    pub fn new(units: Units, lang: RouteLanguage) -> Self {
        Texts { units, lang }
    }
}

fn dist_text(m: f64, t: Texts) -> TextValue {
    TextValue {
        value: m.round().max(0.0) as u64,
        text: text::distance(m, t.units, t.lang),
    }
}

fn dur_text(s: f64, t: Texts) -> TextValue {
    TextValue {
        value: s.round().max(0.0) as u64,
        text: text::duration(s, t.lang),
    }
}

/// The route answer of planned trips.
pub fn route_response(
    routing: &RoutingPack,
    profile: Profile,
    trips: &[Trip],
    texts: Texts,
    details: bool,
) -> RouteResponse {
    let router = &routing.router;
    let g = router.graph(profile);
    let mut routes = Vec::with_capacity(trips.len());
    for (k, trip) in trips.iter().enumerate() {
        let mut all_points: Vec<Pt> = Vec::new();
        let mut legs = Vec::with_capacity(trip.legs.len());
        let mut longest: (f64, String) = (-1.0, String::new());
        for l in &trip.legs {
            let pts = leg_points(router, &g, &l.path);
            for p in &pts {
                if all_points.last() != Some(p) {
                    all_points.push(*p);
                }
            }
            let parts = steps(router, &g, l, details);
            for s in &parts {
                if s.distance_m > longest.0 && !s.name.is_empty() {
                    longest = (s.distance_m, s.name.clone());
                }
            }
            let step_list = details.then(|| {
                parts
                    .iter()
                    .map(|s| RouteStep {
                        distance: dist_text(s.distance_m, texts),
                        duration: dur_text(s.duration_s, texts),
                        start_location: latlng(s.start),
                        end_location: latlng(s.end),
                        polyline: EncodedPolyline {
                            points: encode_polyline(s.points.iter().copied(), 5),
                        },
                        instruction: text::instruction(s.maneuver, &s.name, texts.lang),
                        maneuver: s.maneuver.code().to_string(),
                        name: s.name.clone(),
                    })
                    .collect()
            });
            let duration = l.traffic_s.unwrap_or(l.duration_s);
            legs.push(RouteLeg {
                distance: dist_text(l.distance_m, texts),
                duration: dur_text(duration, texts),
                duration_without_traffic: l.traffic_s.map(|_| dur_text(l.duration_s, texts)),
                start_location: latlng(l.from_snap.point),
                end_location: latlng(l.to_snap.point),
                start_waypoint: l.from as u32,
                end_waypoint: l.to as u32,
                start_address: routing.addresses.nearest(l.from_snap.point),
                end_address: routing.addresses.nearest(l.to_snap.point),
                steps: step_list,
            });
        }
        routes.push(Route {
            overview_polyline: EncodedPolyline {
                points: encode_polyline(all_points.iter().copied(), 5),
            },
            bounds: bounds(all_points.iter().copied()),
            notice: trip.notice.clone(),
            legs,
            main_route_name: longest.1,
            recommended: k == 0,
        });
    }
    RouteResponse {
        status: DistanceStatus::Ok,
        routes,
    }
}

/// The toll answer of planned trips.
pub fn tolls_response(
    routing: &RoutingPack,
    profile: Profile,
    trips: &[Trip],
    texts: Texts,
) -> TollsResponse {
    let router = &routing.router;
    let g = router.graph(profile);
    let routes = trips
        .iter()
        .map(|trip| {
            let mut all_points: Vec<Pt> = Vec::new();
            let legs = trip
                .legs
                .iter()
                .map(|l| {
                    for p in leg_points(router, &g, &l.path) {
                        if all_points.last() != Some(&p) {
                            all_points.push(p);
                        }
                    }
                    let (tolls, toll_systems) =
                        routing.tolls.leg_tolls(router, &g, &l.path, profile);
                    TollLeg {
                        distance: dist_text(l.distance_m, texts),
                        duration: dur_text(l.traffic_s.unwrap_or(l.duration_s), texts),
                        start_location: latlng(l.from_snap.point),
                        end_location: latlng(l.to_snap.point),
                        tolls,
                        toll_systems,
                    }
                })
                .collect();
            TollRoute {
                overview_polyline: EncodedPolyline {
                    points: encode_polyline(all_points.iter().copied(), 5),
                },
                bounds: bounds(all_points.iter().copied()),
                legs,
            }
        })
        .collect();
    TollsResponse {
        status: DistanceStatus::Ok,
        routes,
    }
}
