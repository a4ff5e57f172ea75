//! Indoor directions ([`Indoor::directions`]): anchoring, quickest paths per leg, steps and
//! their instructions.

use super::*;

impl Indoor {
    /// `GET /indoor/directions/{venue_id}`.
    pub fn directions(
        &self,
        set: Arc<PackSet>,
        call: &mut Call<'_>,
        req: &IndoorDirectionsRequest,
    ) -> Result<IndoorDirectionsResponse, ApiError> {
        let v = self.layer(set)?.venue(&req.venue_id)?;
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
        let levels = g.levels();
        let resolve = |name: &str, p: &IndoorPoint| -> Result<Resolved, ApiError> {
            match p {
                IndoorPoint::Coords { lat, lng, level } => {
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
                    })
                }
            }
        };
        let origin = resolve("origin", &req.origin)?;
        let destination = resolve("destination", &req.destination)?;
        let mut waypoints = req
            .waypoints
            .iter()
            .map(|w| resolve("waypoints", w))
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
            waypoints = optimize(g, &origin, waypoints, &destination, profile, &avoid);
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
            let Some(path) = g.route(&from.anchor, &to.anchor, profile, &avoid) else {
                return Ok(IndoorDirectionsResponse {
                    status: "no_route".to_owned(),
                    routes: Vec::new(),
                });
            };
            for (p, _) in &path.points {
                bounds = [
                    bounds[0].min(p.lng),
                    bounds[1].min(p.lat),
                    bounds[2].max(p.lng),
                    bounds[3].max(p.lat),
                ];
            }
            let steps = steps(&v, &path, to.poi, lang, profile, imperial);
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
    profile: Profile,
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
                    .cost_between(&pts[i].anchor, &pts[j].anchor, profile, avoid)
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

/// Cuts a path into steps.
pub(super) fn steps(
    v: &VenueData,
    path: &Path,
    dest_poi: Option<i64>,
    lang: Lang,
    profile: Profile,
    imperial: bool,
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
        if new {
            starts.push(i);
        }
    }
    let at = |i: usize| IndoorLatLng {
        lat: round7(pts[i].0.lat),
        lng: round7(pts[i].0.lng),
        level: pts[i].1,
    };
    let mut out: Vec<IndoorStep> = Vec::new();
    let mut last_bearing: Option<f64> = None;
    for (k, &s) in starts.iter().enumerate() {
        let e = starts.get(k + 1).copied().unwrap_or(n);
        let range = s..e;
        let dist: f64 = range.clone().map(seg_len).sum();
        let time: f64 = range.clone().map(seg_time).sum();
        let first_b = range.clone().find_map(bearing);
        let last_b = range.clone().rev().find_map(bearing);
        let kind = range
            .clone()
            .map(|i| segs[i].kind)
            .find(|k| is_vertical(*k))
            .unwrap_or(EdgeKind::Walk);
        let (l0, l1) = (pts[s].1, pts[e].1);
        let say = if is_vertical(kind) && l0 != l1 {
            Say::Vertical {
                kind: kind_word(kind),
                up: l1 > l0,
                level: l1,
            }
        } else if k == 0 {
            Say::Depart {
                compass: first_b.map_or(0, |b| (((b + 22.5) / 45.0).floor() as usize) % 8),
            }
        } else {
            let place = range
                .clone()
                .filter_map(|i| feature_of(segs[i].feature))
                .find(|f| {
                    !matches!(
                        f.kind.as_str(),
                        "level" | "stairs" | "escalator" | "elevator" | "ramp"
                    )
                });
            let dir = match (last_bearing, first_b) {
                (Some(a), Some(b)) => turn_dir(turn_angle(a, b)),
                _ => "straight",
            };
            Say::Turn {
                dir,
                place: place.and_then(|f| f.name_in(lang_code(lang))),
                kind: place.map_or("area", |f| f.kind.as_str()),
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
    let place = dest_poi
        .and_then(|id| v.by_id.get(&id))
        .and_then(|k| v.features.get(*k))
        .and_then(|f| f.name_in(lang_code(lang)));
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
