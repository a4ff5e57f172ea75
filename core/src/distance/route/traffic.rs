//! Time of day: the typical-congestion factors applied to a trip's free-flow durations at
//! the local time of each leg's start (see the [module notes](super)).
use crate::distance::LocalClock;
use crate::routing::Profile;
use crate::routing::profile::Highway;
use crate::routing::router::Router;

use super::{Trip, TripLeg, When};

/// The typical-congestion factor of a road class at a local time (see the module notes).
pub fn traffic_factor(highway: Highway, local_minutes: u32, weekday: bool) -> f64 {
    let fast = highway.is_highway();
    let m = local_minutes % 1440;
    let h = |hh: u32, mm: u32| hh * 60 + mm;
    if highway == Highway::Ferry || highway == Highway::Track {
        return 1.0;
    }
    if weekday && ((h(7, 0)..h(9, 30)).contains(&m) || (h(16, 30)..h(19, 0)).contains(&m)) {
        if fast { 1.25 } else { 1.40 }
    } else if weekday && (h(9, 30)..h(16, 30)).contains(&m) {
        if fast { 1.10 } else { 1.15 }
    } else if (h(19, 0)..h(22, 0)).contains(&m) {
        1.05
    } else if !weekday && (h(10, 0)..h(19, 0)).contains(&m) {
        if fast { 1.05 } else { 1.10 }
    } else {
        1.0
    }
}

fn traffic_duration(
    router: &Router,
    profile: Profile,
    leg: &TripLeg,
    depart: i64,
    clock: LocalClock<'_>,
) -> f64 {
    use chrono::{Datelike, Timelike};
    let local = depart + clock.utc_offset(leg.from_snap.point, depart);
    let Some(t) = chrono::DateTime::from_timestamp(local, 0) else {
        return leg.duration_s;
    };
    let minutes = t.hour() * 60 + t.minute();
    let weekday = t.weekday().number_from_monday() <= 5;
    let g = router.graph(profile);
    let p = &leg.path;
    let n = p.arcs.len();
    let mut ms = 0.0;
    for (i, &a) in p.arcs.iter().enumerate() {
        let from = if i == 0 { p.start } else { 0.0 };
        let to = if i + 1 == n { p.end } else { 1.0 };
        let e = &router.net.edges[g.arc_edge[a as usize] as usize];
        let f = traffic_factor(e.highway(), minutes, weekday);
        let mut t = f64::from(g.arc_time_ms[a as usize]) * (to - from).max(0.0);
        if i + 1 < n {
            t += f64::from(g.turn_between(a, p.arcs[i + 1]).unwrap_or(0));
        }
        ms += t * f;
    }
    ms / 1000.0
}

pub(super) fn apply_time_of_day(
    router: &Router,
    profile: Profile,
    trip: &mut Trip,
    when: When,
    clock: LocalClock<'_>,
) {
    let total = |trip: &Trip, depart: i64| -> Vec<f64> {
        let mut t = depart as f64;
        trip.legs
            .iter()
            .map(|l| {
                let d = traffic_duration(router, profile, l, t.round() as i64, clock);
                t += d;
                d
            })
            .collect()
    };
    let durations = match when {
        When::Depart(t) => total(trip, t),
        When::Arrive(arrive) => {
            let mut depart = arrive - trip.legs.iter().map(|l| l.duration_s).sum::<f64>() as i64;
            let mut d = total(trip, depart);
            for _ in 0..3 {
                let next = arrive - d.iter().sum::<f64>().round() as i64;
                if next == depart {
                    break;
                }
                depart = next;
                d = total(trip, depart);
            }
            d
        }
    };
    for (l, d) in trip.legs.iter_mut().zip(durations) {
        l.traffic_s = Some(d);
    }
}
