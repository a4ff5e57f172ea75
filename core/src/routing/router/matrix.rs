//! Cost matrices of a [`Router`].
use super::{ArcPos, Cell, Router, arrivals, direct, expand_sources, positions, targets};
use crate::routing::reach::SnapCandidates;
use crate::routing::search::Dijkstra;
use crate::routing::snap::Snap;
use crate::routing::{Metric, Profile};

impl Router {
    /// [`Router::matrix`] between points snapped with [`Router::snap_candidates`]: each cell
    /// joins the snaps [`Reach::pair`] picks. When every point lies in the main component (or
    /// can leave and be entered from it) this is one matrix of the nearest snaps; otherwise a
    /// second one, of the moved snaps, fills the cells whose ends do not share a component.
    pub fn matrix_candidates(
        &self,
        profile: Profile,
        metric: Metric,
        from: &[Option<SnapCandidates>],
        to: &[Option<SnapCandidates>],
        usable: Option<&dyn Fn(u32) -> bool>,
    ) -> Vec<Vec<Cell>> {
        let g = self.graph(profile);
        let reach = self.reach(profile);
        let near = |c: &Option<SnapCandidates>| c.map(|c| c.near);
        // The snap of each end when the other end is not in its component.
        let leave: Vec<Option<Snap>> = from
            .iter()
            .map(|c| {
                c.map(|c| {
                    if reach.can_leave(&g, &c.near) {
                        c.near
                    } else {
                        c.main_or_near()
                    }
                })
            })
            .collect();
        let enter: Vec<Option<Snap>> = to
            .iter()
            .map(|c| {
                c.map(|c| {
                    if reach.can_enter(&g, &c.near) {
                        c.near
                    } else {
                        c.main_or_near()
                    }
                })
            })
            .collect();
        let mut out = self.matrix(profile, metric, &leave, &enter, usable);
        let moved = from.iter().zip(&leave).any(|(c, l)| near(c) != *l)
            || to.iter().zip(&enter).any(|(c, l)| near(c) != *l);
        if !moved {
            return out;
        }
        // Cells whose ends share a component keep their nearest snaps.
        let rows: Vec<usize> = (0..from.len())
            .filter(|&i| {
                from[i].is_some_and(|a| {
                    (0..to.len()).any(|j| {
                        to[j].is_some_and(|b| {
                            (Some(a.near) != leave[i] || Some(b.near) != enter[j])
                                && reach.share_component(&g, &a.near, &b.near)
                        })
                    })
                })
            })
            .collect();
        if rows.is_empty() {
            return out;
        }
        let sub_from: Vec<Option<Snap>> = rows.iter().map(|&i| near(&from[i])).collect();
        let all_to: Vec<Option<Snap>> = to.iter().map(near).collect();
        let same = self.matrix(profile, metric, &sub_from, &all_to, usable);
        for (k, &i) in rows.iter().enumerate() {
            let Some(a) = from[i] else { continue };
            for (j, b) in to.iter().enumerate() {
                if let Some(b) = b
                    && reach.share_component(&g, &a.near, &b.near)
                {
                    out[i][j] = same[k][j];
                }
            }
        }
        out
    }

    /// Costs from every origin to every destination (`None` for a point that did not snap or
    /// a pair without path): the many-to-many search of the hierarchy, or one Dijkstra per
    /// origin over the arcs `usable` accepts when a filter is given (or the pack has no
    /// hierarchy). The second value is the other metric along the same path.
    pub fn matrix(
        &self,
        profile: Profile,
        metric: Metric,
        from: &[Option<Snap>],
        to: &[Option<Snap>],
        usable: Option<&dyn Fn(u32) -> bool>,
    ) -> Vec<Vec<Cell>> {
        let g = self.graph(profile);
        let all = |_: u32| true;
        let ok: &dyn Fn(u32) -> bool = usable.unwrap_or(&all);
        let src: Vec<Vec<ArcPos>> = from
            .iter()
            .map(|s| s.as_ref().map(|s| positions(&g, s, ok)).unwrap_or_default())
            .collect();
        let dst: Vec<Vec<ArcPos>> = to
            .iter()
            .map(|s| s.as_ref().map(|s| arrivals(&g, s, ok)).unwrap_or_default())
            .collect();
        let starts: Vec<Vec<(u32, u64, u64)>> = src
            .iter()
            .map(|p| {
                expand_sources(&g, metric, p, ok)
                    .into_iter()
                    .map(|x| (x.0, x.1, x.2))
                    .collect()
            })
            .collect();
        let ends: Vec<Vec<(u32, u64, u64)>> = dst.iter().map(|p| targets(&g, metric, p)).collect();
        let ch = if usable.is_none() {
            self.hierarchy(profile, metric)
        } else {
            None
        };
        let over = match (&self.joined, usable, metric) {
            (Some(j), None, Metric::Time) => j.matrix(&g, profile, from, to),
            _ => None,
        };
        let mut out: Vec<Vec<Cell>> = match (over, ch) {
            (Some(m), _) => m,
            (None, Some(ch)) => ch.many_to_many(&starts, &ends),
            (None, None) => {
                let other = match metric {
                    Metric::Time => Metric::Distance,
                    Metric::Distance => Metric::Time,
                };
                let mut d = Dijkstra::new(g.arc_count());
                starts
                    .iter()
                    .map(|s| {
                        let s1: Vec<(u32, i64)> = s.iter().map(|x| (x.0, x.1 as i64)).collect();
                        d.explore(
                            &g,
                            &s1,
                            i64::MAX,
                            |a, t| Some(g.transition_cost(metric, a, t)),
                            ok,
                        );
                        // The second metric along each settled arc's path, from parents.
                        let second = d.second_costs(&g, other, s);
                        ends.iter()
                            .map(|t| {
                                t.iter()
                                    .filter_map(|&(arc, w, w2)| {
                                        d.reached(arc).map(|l| {
                                            (
                                                l as u64 + w,
                                                second.get(&arc).copied().unwrap_or(0) + w2,
                                            )
                                        })
                                    })
                                    .min_by_key(|c| c.0)
                            })
                            .collect()
                    })
                    .collect()
            }
        };
        for (i, s) in src.iter().enumerate() {
            for (j, t) in dst.iter().enumerate() {
                if let Some((c, c2, _, _)) = direct(&g, metric, s, t)
                    && out[i][j].is_none_or(|x| c < x.0)
                {
                    out[i][j] = Some((c, c2));
                }
            }
        }
        out
    }
}
