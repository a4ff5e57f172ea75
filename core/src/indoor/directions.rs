//! Indoor directions ([`Indoor::directions`]): anchoring, quickest paths per leg, steps and
//! their instructions.

use super::*;

impl Indoor {
    /// `GET /indoor/directions/{venue_id}`.
    pub fn directions(
        &self,
        set: Arc<PackSet>,
        roads: &RoutingCache,
        call: &mut Call<'_>,
        req: &IndoorDirectionsRequest,
    ) -> Result<IndoorDirectionsResponse, ApiError> {
        let v = self.layer(set.clone())?.venue(&req.venue_id)?;
        let venue_id = &v.venue.venue_id;
        let g = match &v.graph {
            Some(g) if !g.profiles.is_empty() => g,
            _ => {
                return Err(bad_request(format!(
                    "venue `{venue_id}` has no routing configuration"
                )));
            }
        };
        let lang = Lang::parse(&req.language).ok_or_else(|| {
            invalid(
                "language",
                format!(
                    "no indoor instructions in `{}`: give one of {}",
                    req.language,
                    text::LANGUAGES.join(", ")
                ),
            )
        })?;
        let mode = req.mode.as_deref().unwrap_or("default");
        let profile = Profile::parse(mode)
            .filter(|p| g.profiles.iter().any(|x| x == p.name()))
            .ok_or_else(|| {
                invalid(
                    "mode",
                    format!(
                        "mode `{mode}` is not a routing profile of venue `{venue_id}`: give one of {}",
                        g.profiles.join(", ")
                    ),
                )
            })?;
        // Places for customers only are walked when the caller says they are one.
        let ride = Ride {
            profile,
            customer: req.customer,
        };
        let levels = g.levels();
        // `outdoor`: the point may be outside the venue (origin: false, destination: true).
        let resolve = |name: &str,
                       p: &IndoorPoint,
                       outdoor: Option<bool>|
         -> Result<Resolved, ApiError> {
            match p {
                IndoorPoint::Coords { lat, lng, level } => {
                    let pt = Pt::new(*lat, *lng);
                    if let Some(destination) = outdoor
                        && *level == 0
                        && (!levels.contains(level) || g.anchor(pt, 0).is_none())
                    {
                        let (anchor, end) =
                            outdoor::resolve(name, pt, &v, g, roads, &set, profile, destination)?;
                        return Ok(Resolved {
                            anchor,
                            poi: None,
                            text: format!("{lat},{lng},{level}"),
                            outdoor: Some(end),
                        });
                    }
                    if !levels.contains(level) {
                        let known: Vec<String> = levels.iter().map(i64::to_string).collect();
                        return Err(bad_request(format!(
                            "{name}: level {level} is not a level of venue `{venue_id}` (levels {})",
                            known.join(", ")
                        )));
                    }
                    let a = g.anchor(Pt::new(*lat, *lng), *level).ok_or_else(|| {
                        bad_request(format!(
                            "{name}: point {lat},{lng} is off every walkable area of level {level}"
                        ))
                    })?;
                    Ok(Resolved {
                        anchor: a,
                        poi: None,
                        text: format!("{lat},{lng},{level}"),
                        outdoor: None,
                    })
                }
                IndoorPoint::PoiId(id) => {
                    let f = v
                        .by_id
                        .get(id)
                        .and_then(|i| v.features.get(*i))
                        .ok_or_else(|| {
                            invalid(name, format!("no poi with id {id} in venue `{venue_id}`"))
                        })?;
                    poi_anchor(g, f, name).map(|anchor| Resolved {
                        anchor,
                        poi: Some(f.id),
                        text: id.to_string(),
                        outdoor: None,
                    })
                }
                IndoorPoint::Ref(r) => {
                    let f = v
                        .features
                        .iter()
                        .find(|f| f.reference.as_deref() == Some(r.as_str()))
                        .ok_or_else(|| {
                            invalid(name, format!("no poi with ref `{r}` in venue `{venue_id}`"))
                        })?;
                    poi_anchor(g, f, name).map(|anchor| Resolved {
                        anchor,
                        poi: Some(f.id),
                        text: format!("ref:{r}"),
                        outdoor: None,
                    })
                }
            }
        };
        let origin = resolve("origin", &req.origin, Some(false))?;
        let destination = resolve("destination", &req.destination, Some(true))?;
        if origin.outdoor.is_some() && destination.outdoor.is_some() && req.waypoints.is_empty() {
            return Err(bad_request(format!(
                "origin and destination are both outside venue `{venue_id}`: give one of them, \
                 or a waypoint, inside it (walks between two outdoor points: \
                 GET /distance/route/json)"
            )));
        }
        let mut waypoints = req
            .waypoints
            .iter()
            .map(|w| resolve("waypoints", w, None))
            .collect::<Result<Vec<_>, _>>()?;
        let avoid: Vec<AvoidBox> = req
            .avoid_in
            .iter()
            .map(|b| AvoidBox {
                level: b.level,
                corners: b.corners.iter().map(|c| Pt::new(c.lat, c.lng)).collect(),
            })
            .collect();
        if req.optimize && waypoints.len() > 1 {
            waypoints = optimize(g, &origin, waypoints, &destination, ride, &avoid);
        }
        call.charge()?;
        call.attribute(v.attribution.clone());
        let mut stops: Vec<&Resolved> = vec![&origin];
        stops.extend(waypoints.iter());
        stops.push(&destination);
        let imperial = req.units == Units::Imperial;
        let mut legs = Vec::new();
        let mut bounds = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
        for (i, pair) in stops.windows(2).enumerate() {
            let (from, to) = (pair[0], pair[1]);
            let Some(mut path) = g.route(&from.anchor, &to.anchor, ride, &avoid) else {
                return Ok(IndoorDirectionsResponse {
                    status: "no_route".to_owned(),
                    routes: Vec::new(),
                });
            };
            // The walks outdoors, and where the trip enters and leaves the venue.
            let mut crossing = Crossing::default();
            if let Some(end) = &to.outdoor {
                crossing.leave = outdoor::splice_destination(&mut path, end).and_then(|at| {
                    let node = path.nodes.get(at).copied().flatten()?;
                    Some((at, end.walks.get(&node)?.entrance))
                });
            }
            if let Some(end) = &from.outdoor {
                let node = path.nodes.get(1).copied().flatten();
                let entrance = node.and_then(|n| end.walks.get(&n)).map(|w| w.entrance);
                let shift = outdoor::splice_origin(&mut path, end);
                crossing.enter = shift.zip(entrance);
                if let (Some(k), Some((at, e))) = (shift, crossing.leave) {
                    // the origin's walk moved the exit along
                    crossing.leave = Some((at + k - 1, e));
                }
            }
            for (p, _) in &path.points {
                bounds = [
                    bounds[0].min(p.lng),
                    bounds[1].min(p.lat),
                    bounds[2].max(p.lng),
                    bounds[3].max(p.lat),
                ];
            }
            let steps = steps(
                &v, &path, from.poi, to.poi, lang, profile, imperial, crossing,
            );
            let distance: f64 = steps.iter().map(|s| s.distance.value).sum();
            let duration: f64 = steps.iter().map(|s| s.duration.value).sum();
            let at = |(p, l): (Pt, i64)| IndoorLatLng {
                lat: round7(p.lat),
                lng: round7(p.lng),
                level: l,
            };
            legs.push(IndoorLeg {
                distance: NumberTextValue {
                    value: round1(distance),
                    text: text::distance_text(distance, imperial),
                },
                duration: NumberTextValue {
                    value: round1(duration),
                    text: text::duration_text(duration),
                },
                start_location: at(path
                    .points
                    .first()
                    .copied()
                    .unwrap_or((from.anchor.pt, from.anchor.level))),
                end_location: at(path
                    .points
                    .last()
                    .copied()
                    .unwrap_or((to.anchor.pt, to.anchor.level))),
                steps,
                waypoint: (!waypoints.is_empty() && i < waypoints.len()).then(|| to.text.clone()),
            });
        }
        Ok(IndoorDirectionsResponse {
            status: "ok".to_owned(),
            routes: vec![IndoorRoute {
                bounds: bounds.iter().map(|b| round7(*b)).collect(),
                legs,
            }],
        })
    }
}

pub(super) fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// A resolved origin, destination or waypoint.
#[derive(Debug, Clone)]
pub(super) struct Resolved {
    anchor: Anchor,
    poi: Option<i64>,
    text: String,
    /// The walks to the entrances of an origin or destination outside the venue.
    outdoor: Option<outdoor::OutdoorEnd>,
}

/// Where a leg's path enters and leaves the venue: `(point index, entrance feature)`.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Crossing {
    /// The entrance point ending the walk of an outdoor origin.
    pub enter: Option<(usize, i64)>,
    /// The entrance point starting the walk to an outdoor destination.
    pub leave: Option<(usize, i64)>,
}

pub(super) fn poi_anchor(g: &Graph, f: &FeatureRow, name: &str) -> Result<Anchor, ApiError> {
    g.poi_node(f.id)
        .and_then(|n| g.node_anchor(n))
        .or_else(|| {
            let level = f.level_min.map_or(0, |l| l.round() as i64);
            g.anchor(f.pt, level)
        })
        .ok_or_else(|| {
            bad_request(format!(
                "{name}: poi {} is off every walkable area of its level",
                f.id
            ))
        })
}

/// Best order of the waypoints: every order up to 6 waypoints, else nearest first.
pub(super) fn optimize(
    g: &Graph,
    origin: &Resolved,
    waypoints: Vec<Resolved>,
    destination: &Resolved,
    ride: Ride,
    avoid: &[AvoidBox],
) -> Vec<Resolved> {
    let n = waypoints.len();
    let mut pts: Vec<&Resolved> = vec![origin];
    pts.extend(waypoints.iter());
    pts.push(destination);
    let m = pts.len();
    let mut cost = vec![vec![f64::INFINITY; m]; m];
    for i in 0..m {
        for j in 0..m {
            if i != j {
                cost[i][j] = g
                    .cost_between(&pts[i].anchor, &pts[j].anchor, ride, avoid)
                    .unwrap_or(f64::INFINITY);
            }
        }
    }
    let total = |order: &[usize]| {
        let mut c = 0.0;
        let mut prev = 0;
        for &k in order {
            c += cost[prev][k + 1];
            prev = k + 1;
        }
        c + cost[prev][m - 1]
    };
    let mut best: Vec<usize> = (0..n).collect();
    if n <= 6 {
        let mut perm: Vec<usize> = (0..n).collect();
        let mut best_c = total(&perm);
        // Heap's algorithm
        let mut c = vec![0usize; n];
        let mut i = 0;
        while i < n {
            if c[i] < i {
                if i % 2 == 0 {
                    perm.swap(0, i);
                } else {
                    perm.swap(c[i], i);
                }
                let t = total(&perm);
                if t < best_c {
                    best_c = t;
                    best = perm.clone();
                }
                c[i] += 1;
                i = 0;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
    } else {
        let mut left: Vec<usize> = (0..n).collect();
        let mut order = Vec::new();
        let mut prev = 0;
        while !left.is_empty() {
            let (pos, _) = left
                .iter()
                .enumerate()
                .min_by(|a, b| cost[prev][*a.1 + 1].total_cmp(&cost[prev][*b.1 + 1]))
                .unwrap_or((0, &0));
            let k = left.remove(pos);
            order.push(k);
            prev = k + 1;
        }
        best = order;
    }
    let mut slots: Vec<Option<Resolved>> = waypoints.into_iter().map(Some).collect();
    best.iter()
        .filter_map(|&k| slots.get_mut(k).and_then(Option::take))
        .collect()
}

pub(super) fn is_vertical(kind: EdgeKind) -> bool {
    !matches!(kind, EdgeKind::Walk)
}

pub(super) fn kind_word(k: EdgeKind) -> &'static str {
    match k {
        EdgeKind::Stairs => "stairs",
        EdgeKind::Escalator => "escalator",
        EdgeKind::Elevator => "elevator",
        EdgeKind::Ramp => "ramp",
        EdgeKind::Walk => "walk",
    }
}

pub(super) fn turn_dir(angle: f64) -> &'static str {
    let a = angle.abs();
    let side = if angle < 0.0 { "left" } else { "right" };
    match (a, side) {
        (a, _) if a < 20.0 => "straight",
        (a, "left") if a < 45.0 => "slight_left",
        (a, _) if a < 45.0 => "slight_right",
        (a, "left") if a < 135.0 => "left",
        (a, _) if a < 135.0 => "right",
        (_, "left") => "sharp_left",
        _ => "sharp_right",
    }
}

/// Cuts a path into steps (`crossing`: where it enters and leaves the venue).
#[allow(clippy::too_many_arguments)]
pub(super) fn steps(
    v: &VenueData,
    path: &Path,
    from_poi: Option<i64>,
    dest_poi: Option<i64>,
    lang: Lang,
    profile: Profile,
    imperial: bool,
    crossing: Crossing,
) -> Vec<IndoorStep> {
    let pts = &path.points;
    let segs = &path.segments;
    let n = segs.len();
    let seg_len = |i: usize| -> f64 {
        let (a, b) = (pts[i], pts[i + 1]);
        if a.1 != b.1 && segs[i].kind == EdgeKind::Elevator {
            4.0 * (b.1 - a.1).abs() as f64
        } else {
            haversine_m(a.0, b.0)
        }
    };
    let seg_time = |i: usize| -> f64 {
        let len = seg_len(i);
        let (a, b) = (pts[i], pts[i + 1]);
        match segs[i].kind {
            EdgeKind::Elevator if a.1 != b.1 => 15.0 * (b.1 - a.1).abs() as f64,
            EdgeKind::Stairs | EdgeKind::Escalator => len / 0.5,
            _ => {
                len / match profile {
                    Profile::Default => 1.2,
                    Profile::Wheelchair => 1.0,
                }
            }
        }
    };
    let bearing = |i: usize| -> Option<f64> {
        let (a, b) = (pts[i].0, pts[i + 1].0);
        (haversine_m(a, b) > 0.2).then(|| bearing_deg(a, b))
    };
    let feature_of = |id: Option<i64>| {
        id.and_then(|i| v.by_id.get(&i))
            .and_then(|k| v.features.get(*k))
    };
    // Walking on the footprint of a stair, escalator, elevator or ramp belongs to the
    // vertical move it leads to.
    let connector_area = |i: usize| {
        feature_of(segs[i].feature).is_some_and(|f| {
            matches!(
                f.kind.as_str(),
                "stairs" | "escalator" | "elevator" | "ramp"
            )
        })
    };
    let vertical_at = |i: usize| is_vertical(segs[i].kind) || connector_area(i);
    let marks = Marks::of(v);
    // Step boundaries (none when the path has no length: origin = destination).
    if pts.len() != n + 1 {
        return Vec::new();
    }
    let mut starts = if n == 0 { Vec::new() } else { vec![0usize] };
    for i in 1..n {
        let (prev, cur) = (segs[i - 1], segs[i]);
        let (vert_prev, vert_cur) = (vertical_at(i - 1), vertical_at(i));
        let new = if vert_prev != vert_cur {
            true
        } else if vert_cur {
            is_vertical(prev.kind) && is_vertical(cur.kind) && prev.kind != cur.kind
        } else {
            let area_change = cur.feature.is_some()
                && prev.feature.is_some()
                && cur.feature != prev.feature
                && feature_of(cur.feature).is_some_and(|f| {
                    f.kind != feature_of(prev.feature).map_or("", |p| p.kind.as_str())
                        || f.name.is_some()
                });
            let turn = match (bearing(i - 1), bearing(i)) {
                (Some(a), Some(b)) => turn_angle(a, b).abs() > 40.0,
                _ => false,
            };
            area_change || turn
        };
        let crossed = [crossing.enter, crossing.leave]
            .iter()
            .any(|c| c.is_some_and(|(at, _)| at == i));
        if new || crossed {
            starts.push(i);
        }
    }
    // Segments walked outdoors: before the entrance of an outdoor origin, after the one to an
    // outdoor destination.
    let outdoors = |i: usize| {
        crossing.enter.is_some_and(|(at, _)| i < at)
            || crossing.leave.is_some_and(|(at, _)| i >= at)
    };
    let entrance_label = |id: i64| {
        feature_of(Some(id)).and_then(|f| f.name_in(lang_code(lang)).or(f.reference.as_deref()))
    };
    let venue_name = v.venue.name.as_str();
    let at = |i: usize| IndoorLatLng {
        lat: round7(pts[i].0.lat),
        lng: round7(pts[i].0.lng),
        level: pts[i].1,
    };
    // What each step is, before saying it (the first step names where the next one goes).
    struct Part<'f> {
        s: usize,
        e: usize,
        kind: EdgeKind,
        place: Option<&'f FeatureRow>,
    }
    let parts: Vec<Part<'_>> = starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let e = starts.get(k + 1).copied().unwrap_or(n);
            let kind = (s..e)
                .map(|i| segs[i].kind)
                .find(|k| is_vertical(*k))
                .unwrap_or(EdgeKind::Walk);
            let place = (s..e)
                .filter(|i| !outdoors(*i))
                .filter_map(|i| feature_of(segs[i].feature))
                .find(|f| {
                    !matches!(
                        f.kind.as_str(),
                        "level" | "stairs" | "escalator" | "elevator" | "ramp"
                    )
                });
            Part { s, e, kind, place }
        })
        .collect();
    let goes_up_or_down = |p: &Part<'_>| is_vertical(p.kind) && pts[p.s].1 != pts[p.e].1;
    let code = lang_code(lang);
    let dest_name = feature_of(dest_poi).and_then(|f| f.name_in(code));
    let mut out: Vec<IndoorStep> = Vec::new();
    let mut last_bearing: Option<f64> = None;
    for (k, part) in parts.iter().enumerate() {
        let (s, e) = (part.s, part.e);
        let range = s..e;
        let dist: f64 = range.clone().map(seg_len).sum();
        let time: f64 = range.clone().map(seg_time).sum();
        let first_b = range.clone().find_map(bearing);
        let last_b = range.clone().rev().find_map(bearing);
        let kind = part.kind;
        let (l0, l1) = (pts[s].1, pts[e].1);
        let via = || {
            marks.via(
                &pts[s..=e],
                part.place.map(|f| f.id),
                [dest_poi, from_poi],
                code,
            )
        };
        let vertical = || Say::Vertical {
            kind: kind_word(kind),
            up: l1 > l0,
            level: level_name(&v.venue.levels, l1),
        };
        let say = if let Some((_, id)) = crossing.enter.filter(|(at, _)| *at == s) {
            Say::Enter {
                venue: venue_name,
                entrance: entrance_label(id),
                then: goes_up_or_down(part).then(|| Box::new(vertical())),
            }
        } else if let Some((_, id)) = crossing.leave.filter(|(at, _)| *at == s) {
            Say::Leave {
                venue: venue_name,
                entrance: entrance_label(id),
            }
        } else if goes_up_or_down(part) {
            vertical()
        } else if k == 0
            && let Some((_, id)) = crossing.enter
        {
            // from outdoors: towards the entrance
            Say::Depart {
                toward: Toward::Entrance(entrance_label(id)),
                via: None,
            }
        } else if k == 0 {
            let toward = match parts.get(1) {
                None => dest_name.map_or(Toward::Kind("destination"), Toward::Named),
                Some(next) if goes_up_or_down(next) => Toward::Kind(kind_word(next.kind)),
                Some(next) => match next.place {
                    Some(f) => f
                        .name_in(code)
                        .map_or(Toward::Kind(f.kind.as_str()), Toward::Named),
                    None if parts.len() == 2 => {
                        dest_name.map_or(Toward::Kind("destination"), Toward::Named)
                    }
                    None => Toward::Kind("area"),
                },
            };
            Say::Depart { toward, via: via() }
        } else {
            let dir = match (last_bearing, first_b) {
                (Some(a), Some(b)) => turn_dir(turn_angle(a, b)),
                _ => "straight",
            };
            let out = outdoors(s);
            Say::Turn {
                dir,
                place: part.place.and_then(|f| f.name_in(code)),
                kind: part
                    .place
                    .map_or(if out { "outdoor" } else { "area" }, |f| f.kind.as_str()),
                via: if out { None } else { via() },
            }
        };
        let instruction_type = match &say {
            Say::Depart { .. } => "depart".to_owned(),
            Say::Turn { dir, .. } if *dir == "straight" => "continue".to_owned(),
            Say::Turn { dir, .. } => format!("turn_{dir}"),
            Say::Vertical { kind, up, .. } => {
                if *kind == "elevator" {
                    "elevator".to_owned()
                } else {
                    format!("{kind}_{}", if *up { "up" } else { "down" })
                }
            }
            Say::Arrive { .. } => "arrive".to_owned(),
            Say::Enter { then: None, .. } => "enter".to_owned(),
            Say::Enter { .. } => match kind {
                EdgeKind::Elevator => "elevator".to_owned(),
                k => format!("{}_{}", kind_word(k), if l1 > l0 { "up" } else { "down" }),
            },
            Say::Leave { .. } => "exit".to_owned(),
        };
        let wheel = range.clone().all(|i| segs[i].wheelchair);
        let poi_here = (e == n).then_some(dest_poi).flatten();
        out.push(IndoorStep {
            distance: NumberTextValue {
                value: round1(dist),
                text: text::distance_text(dist, imperial),
            },
            duration: NumberTextValue {
                value: round1(time),
                text: text::duration_text(time),
            },
            poi_id: poi_here,
            bearing_start: first_b.map(round1),
            bearing_end: last_b.map(round1),
            start_location: at(s),
            end_location: at(e),
            polyline: (s..=e)
                .map(|i| vec![round7(pts[i].0.lng), round7(pts[i].0.lat), pts[i].1 as f64])
                .collect(),
            instruction: Some(IndoorInstruction {
                instruction_type,
                summary: text::summary(lang, &say),
            }),
            routing_profiles: if wheel {
                vec!["default".to_owned(), "wheelchair".to_owned()]
            } else {
                vec!["default".to_owned()]
            },
        });
        if let Some(b) = last_b {
            last_bearing = Some(b);
        }
    }
    // Arrival.
    let place = dest_name;
    out.push(IndoorStep {
        distance: NumberTextValue {
            value: 0.0,
            text: text::distance_text(0.0, imperial),
        },
        duration: NumberTextValue {
            value: 0.0,
            text: text::duration_text(0.0),
        },
        poi_id: dest_poi,
        bearing_start: None,
        bearing_end: None,
        start_location: at(n),
        end_location: at(n),
        polyline: vec![vec![
            round7(pts[n].0.lng),
            round7(pts[n].0.lat),
            pts[n].1 as f64,
        ]],
        instruction: Some(IndoorInstruction {
            instruction_type: "arrive".to_owned(),
            summary: text::summary(lang, &Say::Arrive { place }),
        }),
        routing_profiles: vec!["default".to_owned(), "wheelchair".to_owned()],
    });
    out
}

pub(super) fn lang_code(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "en",
        Lang::Fr => "fr",
        Lang::De => "de",
        Lang::Es => "es",
        Lang::It => "it",
    }
}

/// The level `level` in the venue's words: its `ref` ("U2"), else its name ("Departures"),
/// else its number.
pub(super) fn level_name(levels: &[VenueLevel], level: i64) -> LevelName<'_> {
    let l = levels.iter().find(|l| l.level == level);
    match (
        l.and_then(|l| l.reference.as_deref()),
        l.and_then(|l| l.name.as_deref()),
    ) {
        (Some(r), _) => LevelName::Ref(r),
        (None, Some(n)) => LevelName::Name(n),
        (None, None) => LevelName::Number(level),
    }
}

/// How close a named place must be to a step's way to be said as passed, m.
const LANDMARK_M: f64 = 10.0;
/// How close a route point must be to a door or gate to go through it, m.
const THROUGH_M: f64 = 0.5;

/// What a step can go through (doors, entrances, gates) or past (named places).
pub(super) struct Marks<'v> {
    passages: Vec<&'v FeatureRow>,
    landmarks: Vec<&'v FeatureRow>,
}

impl<'v> Marks<'v> {
    pub(super) fn of(v: &'v VenueData) -> Marks<'v> {
        let mut passages = Vec::new();
        let mut landmarks = Vec::new();
        for f in &v.features {
            match f.kind.as_str() {
                "door" | "entrance" | "barrier" => passages.push(f),
                "poi" | "room" | "area" if f.name.is_some() && f.poi() => landmarks.push(f),
                _ => {}
            }
        }
        Marks {
            passages,
            landmarks,
        }
    }

    /// The door or gate a step goes through (at one of its points but its last), else the
    /// nearest named place within [`LANDMARK_M`] of its way (not the place it enters, nor the
    /// leg's own origin or destination).
    pub(super) fn via(
        &self,
        pts: &[(Pt, i64)],
        place: Option<i64>,
        ends: [Option<i64>; 2],
        lang: &str,
    ) -> Option<Via<'v>> {
        let on_level = |f: &FeatureRow, level: i64| f.level_min.is_none() || f.on_level(level);
        let inner = pts.get(..pts.len().saturating_sub(1)).unwrap_or_default();
        for (p, level) in inner {
            let door = self
                .passages
                .iter()
                .find(|f| on_level(f, *level) && haversine_m(f.pt, *p) <= THROUGH_M);
            if let Some(f) = door {
                let label = f.name_in(lang).or(f.reference.as_deref());
                return Some(if f.kind == "barrier" {
                    Via::Gate(label)
                } else {
                    Via::Door(label)
                });
            }
        }
        let level = pts.first()?.1;
        if pts.iter().any(|(_, l)| *l != level) {
            return None;
        }
        let line: Vec<Pt> = pts.iter().map(|(p, _)| *p).collect();
        self.landmarks
            .iter()
            .filter(|f| Some(f.id) != place && !ends.contains(&Some(f.id)))
            .filter(|f| on_level(f, level))
            .filter_map(|f| {
                let d = crate::geo::nearest_on_line(&line, f.pt)?.distance_m;
                (d <= LANDMARK_M).then_some((d, f))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.id.cmp(&b.1.id)))
            .and_then(|(_, f)| f.name_in(lang))
            .map(Via::Past)
    }
}
