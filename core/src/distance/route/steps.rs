//! The geometry and steps of a leg: the points along its arcs and the manoeuvres where the
//! way changes.
use crate::distance::text::{self, Maneuver};
use crate::geo::{Pt, bearing_deg, sub_line};
use crate::routing::graph::TurnGraph;
use crate::routing::router::{ArcPath, Router};

use super::TripLeg;

/// The points of an arc between offsets `from` and `to`, appended without repeating the last
/// point already in `out`.
fn arc_points(router: &Router, g: &TurnGraph, a: u32, from: f64, to: f64, out: &mut Vec<Pt>) {
    let e = g.arc_edge[a as usize];
    let geom = router.net.geometry(e);
    let forward = g.arc_forward[a as usize];
    let push = |p: Pt| {
        if out.last() != Some(&p) {
            out.push(p);
        }
    };
    if from <= 0.0 && to >= 1.0 {
        // The whole arc (every arc of a path but its ends): no copy.
        if forward {
            geom.iter().copied().for_each(push);
        } else {
            geom.iter().rev().copied().for_each(push);
        }
        return;
    }
    let mut tmp: Vec<Pt> = Vec::new();
    if forward {
        sub_line(geom, from, to, &mut tmp);
    } else {
        let rev: Vec<Pt> = geom.iter().rev().copied().collect();
        sub_line(&rev, from, to, &mut tmp);
    }
    tmp.into_iter().for_each(push);
}

/// Every point of a leg.
pub fn leg_points(router: &Router, g: &TurnGraph, p: &ArcPath) -> Vec<Pt> {
    let mut out = Vec::new();
    let n = p.arcs.len();
    for (i, &a) in p.arcs.iter().enumerate() {
        let from = if i == 0 { p.start } else { 0.0 };
        let to = if i + 1 == n { p.end } else { 1.0 };
        arc_points(router, g, a, from, to, &mut out);
    }
    out
}

/// A step under construction.
#[derive(Debug)]
pub struct StepParts {
    /// Manoeuvre.
    pub maneuver: Maneuver,
    /// Name of the way (name, else ref).
    pub name: String,
    /// Length, m.
    pub distance_m: f64,
    /// Duration, s.
    pub duration_s: f64,
    /// Points (only when geometry was asked for).
    pub points: Vec<Pt>,
    /// Start.
    pub start: Pt,
    /// End.
    pub end: Pt,
}

/// The last point of arc `a` (in its direction of travel).
fn arc_end(router: &Router, g: &TurnGraph, a: u32) -> Option<Pt> {
    let geom = router.net.geometry(g.arc_edge[a as usize]);
    if g.arc_forward[a as usize] {
        geom.last().copied()
    } else {
        geom.first().copied()
    }
}

/// The bearing in which arc `a` leaves its start.
fn out_bearing(router: &Router, g: &TurnGraph, a: u32) -> f64 {
    let geom = router.net.geometry(g.arc_edge[a as usize]);
    let n = geom.len();
    if g.arc_forward[a as usize] {
        bearing_deg(geom[0], geom[1])
    } else {
        bearing_deg(geom[n - 1], geom[n - 2])
    }
}

/// The turn from arc `prev` onto arc `a` at the node between them, in degrees (`-180..=180`,
/// positive: right): the angle from `prev`'s last segment to `a`'s first, measured in the
/// plane tangent at that node (east scaled by the cosine of its latitude). For segments of up
/// to 2 km it is within 0.05° of the difference of the two segments' bearings, at one
/// arctangent instead of two bearings.
fn turn_at(router: &Router, g: &TurnGraph, prev: u32, a: u32) -> f64 {
    let segment = |arc: u32, at_end: bool| -> Option<(Pt, Pt)> {
        let geom = router.net.geometry(g.arc_edge[arc as usize]);
        let n = geom.len();
        if n < 2 {
            return None;
        }
        // In the arc's direction of travel.
        Some(match (g.arc_forward[arc as usize], at_end) {
            (true, true) => (geom[n - 2], geom[n - 1]),
            (true, false) => (geom[0], geom[1]),
            (false, true) => (geom[1], geom[0]),
            (false, false) => (geom[n - 1], geom[n - 2]),
        })
    };
    match (segment(prev, true), segment(a, false)) {
        (Some((p0, j)), Some((q0, q1))) => plane_turn(p0, j, q0, q1),
        _ => 0.0,
    }
}

/// The turn from segment `p0`–`j` onto segment `q0`–`q1` (which starts at or next to `j`),
/// degrees, positive to the right, in the plane tangent at `j`.
fn plane_turn(p0: Pt, j: Pt, q0: Pt, q1: Pt) -> f64 {
    let k = j.lat.to_radians().cos();
    let east = |from: Pt, to: Pt| {
        let d = to.lng - from.lng;
        // Across the antimeridian, the short way round.
        let d = if d > 180.0 {
            d - 360.0
        } else if d < -180.0 {
            d + 360.0
        } else {
            d
        };
        d * k
    };
    let (ux, uy) = (east(p0, j), j.lat - p0.lat);
    let (vx, vy) = (east(q0, q1), q1.lat - q0.lat);
    // Clockwise from `u` to `v` (a right turn) is positive, as bearings grow clockwise.
    (uy * vx - ux * vy).atan2(ux * vx + uy * vy).to_degrees()
}

/// The steps of a leg: a new step starts where the way's name changes, at a U-turn, when
/// boarding a ferry, and at a junction turn of 40° or more; the last step is the arrival.
pub fn steps(router: &Router, g: &TurnGraph, leg: &TripLeg, geometry: bool) -> Vec<StepParts> {
    let p = &leg.path;
    let n = p.arcs.len();
    let mut out: Vec<StepParts> = Vec::new();
    let name_of = |a: u32| -> &str {
        let e = g.arc_edge[a as usize];
        let name = router.net.name(e);
        if name.is_empty() {
            router.net.road_ref(e)
        } else {
            name
        }
    };
    let mut cur: Option<StepParts> = None;
    // One buffer for every arc's points.
    let mut pts: Vec<Pt> = Vec::new();
    for (i, &a) in p.arcs.iter().enumerate() {
        let from = if i == 0 { p.start } else { 0.0 };
        let to = if i + 1 == n { p.end } else { 1.0 };
        let share = (to - from).max(0.0);
        let e = &router.net.edges[g.arc_edge[a as usize] as usize];
        let name = name_of(a);
        let mut turn_s = 0.0;
        let new = match (i, cur.as_ref()) {
            (0, _) | (_, None) => Some(Maneuver::Depart(text::compass(out_bearing(router, g, a)))),
            (_, Some(c)) => {
                let prev = p.arcs[i - 1];
                turn_s = f64::from(g.turn_between(prev, a).unwrap_or(0)) / 1000.0;
                // Measured only where it decides: a change of name or a junction.
                let dev = || turn_at(router, g, prev, a);
                let prev_e = &router.net.edges[g.arc_edge[prev as usize] as usize];
                let u_turn = g.arc_edge[prev as usize] == g.arc_edge[a as usize];
                let junction = g.out_range(prev).len() >= 2;
                if u_turn {
                    Some(Maneuver::UTurn)
                } else if e.ferry() && !prev_e.ferry() {
                    Some(Maneuver::Ferry)
                } else if name != c.name {
                    Some(Maneuver::of_turn(dev()))
                } else if junction {
                    let dev = dev();
                    (dev.abs() >= 40.0).then(|| Maneuver::of_turn(dev))
                } else {
                    None
                }
            }
        };
        if let Some(m) = new {
            let start = cur.as_ref().map_or(leg.from_snap.point, |c| c.end);
            if let Some(done) = cur.take() {
                out.push(done);
            }
            cur = Some(StepParts {
                maneuver: m,
                name: name.to_string(),
                distance_m: 0.0,
                duration_s: 0.0,
                points: if geometry { vec![start] } else { Vec::new() },
                start,
                end: start,
            });
        }
        if let Some(c) = cur.as_mut() {
            c.distance_m += e.length_m * share;
            c.duration_s += f64::from(g.arc_time_ms[a as usize]) * share / 1000.0 + turn_s;
            if !geometry && from <= 0.0 && to >= 1.0 {
                // A whole arc: the step's end is where the arc ends, its points not copied.
                if let Some(end) = arc_end(router, g, a) {
                    c.end = end;
                }
                continue;
            }
            pts.clear();
            arc_points(router, g, a, from, to, &mut pts);
            if let Some(last) = pts.last() {
                c.end = *last;
            }
            if geometry {
                for &q in &pts {
                    if c.points.last() != Some(&q) {
                        c.points.push(q);
                    }
                }
            }
        }
    }
    if let Some(done) = cur.take() {
        out.push(done);
    }
    let end = leg.to_snap.point;
    out.push(StepParts {
        maneuver: Maneuver::Arrive,
        name: String::new(),
        distance_m: 0.0,
        duration_s: 0.0,
        points: if geometry { vec![end] } else { Vec::new() },
        start: end,
        end,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geo::turn_angle;

    /// The plane's turn is the bearings' difference within 0.05° for segments of 5 m to 2 km,
    /// from the equator to 70°, across the antimeridian too (the bearing of the arriving
    /// segment is taken at its start, the plane's at the node: meridians converge between).
    #[test]
    fn plane_turns_match_the_bearings_difference() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut worst: f64 = 0.0;
        for i in 0..20_000 {
            let lat = -70.0 + 140.0 * next();
            let lng = if i % 10 == 0 {
                179.999
            } else {
                -180.0 + 360.0 * next()
            };
            let j = Pt::new(lat, lng);
            let towards = |len_m: f64, bearing: f64| {
                let r = bearing.to_radians();
                let dlat = len_m * r.cos() / 111_195.0;
                let dlng = len_m * r.sin() / (111_195.0 * lat.to_radians().cos());
                let mut to = Pt::new(lat + dlat, lng + dlng);
                if to.lng > 180.0 {
                    to.lng -= 360.0;
                }
                to
            };
            let p0 = towards(5.0 + 2_000.0 * next(), 360.0 * next());
            let q1 = towards(5.0 + 2_000.0 * next(), 360.0 * next());
            let want = turn_angle(bearing_deg(p0, j), bearing_deg(j, q1));
            let got = plane_turn(p0, j, j, q1);
            // Near ±180 either sign is the same turn.
            let d = (got - want + 540.0).rem_euclid(360.0) - 180.0;
            worst = worst.max(d.abs());
        }
        assert!(worst < 0.05, "worst difference {worst}°");
        assert!(worst > 0.0);
    }
}
