//! The geometry and steps of a leg: the points along its arcs and the manoeuvres where the
//! way changes.
use crate::distance::text::{self, Maneuver};
use crate::geo::{Pt, bearing_deg, sub_line, turn_angle};
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

/// The bearing in which arc `a` reaches its end.
fn in_bearing(router: &Router, g: &TurnGraph, a: u32) -> f64 {
    let geom = router.net.geometry(g.arc_edge[a as usize]);
    let n = geom.len();
    if g.arc_forward[a as usize] {
        bearing_deg(geom[n - 2], geom[n - 1])
    } else {
        bearing_deg(geom[1], geom[0])
    }
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
        let b_out = out_bearing(router, g, a);
        let mut turn_s = 0.0;
        let new = match (i, cur.as_ref()) {
            (0, _) | (_, None) => Some(Maneuver::Depart(text::compass(b_out))),
            (_, Some(c)) => {
                let prev = p.arcs[i - 1];
                turn_s = f64::from(g.turn_between(prev, a).unwrap_or(0)) / 1000.0;
                let b_in = in_bearing(router, g, prev);
                let dev = turn_angle(b_in, b_out);
                let prev_e = &router.net.edges[g.arc_edge[prev as usize] as usize];
                let u_turn = g.arc_edge[prev as usize] == g.arc_edge[a as usize];
                let junction = g.out_range(prev).len() >= 2;
                if u_turn {
                    Some(Maneuver::UTurn)
                } else if e.ferry() && !prev_e.ferry() {
                    Some(Maneuver::Ferry)
                } else if name != c.name || (junction && dev.abs() >= 40.0) {
                    Some(Maneuver::of_turn(dev))
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
