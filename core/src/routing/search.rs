//! Plain Dijkstra on a [`TurnGraph`]: the reference the contraction hierarchies are tested
//! against, the fallback when query-time options (avoid tolls, highways, ferries, polygons)
//! remove arcs a prepared graph was built with, and the bounded search of isochrones.
//!
//! Labels are signed: a search starting part-way along an arc starts at minus the part already
//! behind it (see [`super::router`]), and every transition costs ≥ 1.
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use radix_heap::RadixHeapMap;

use super::graph::{NO_ARC, TurnGraph};
use super::profile::Metric;
use super::spare::Spares;

/// A path found by a search: its cost (start and end offsets included) and its arcs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Total cost.
    pub cost: i64,
    /// Arcs from the source arc to the target arc.
    pub arcs: Vec<u32>,
}

/// Largest search state (in arcs) kept between searches: 2²¹ arcs, 16 bytes an arc (about
/// 34 MB), 12 more when it has run a point-to-point search. The graphs of a country of 5
/// million nodes (1.2–1.4 million arcs) keep theirs; bigger graphs allocate per search.
pub const MAX_KEPT_ARCS: usize = 1 << 21;

/// Search states kept for the next searches ([`super::spare`]: shared by the threads and
/// bounded in number).
static SPARES: Spares<Dijkstra> = Spares::new();

/// Drops the kept search states ([`super::memory::release`]); how many there were.
pub fn drop_spares() -> usize {
    SPARES.clear()
}

/// Runs `f` with a kept search state, sized for at least `arcs` arcs.
///
/// Allocating (and zeroing) the per-arc arrays for each request cost a tenth of a driving
/// isochrone; the state is taken out of the kept ones for the call, so concurrent and nested
/// calls simply use or allocate others.
pub fn with_dijkstra<R>(arcs: usize, f: impl FnOnce(&mut Dijkstra) -> R) -> R {
    let mut d = SPARES
        .take(|d| d.arcs.len() >= arcs)
        .unwrap_or_else(|| Dijkstra::new(arcs));
    let r = f(&mut d);
    if d.arcs.len() <= MAX_KEPT_ARCS {
        SPARES.give(d, |d| d.arcs.len());
    }
    r
}

/// The search state of one arc, kept together so that relaxing an arc touches one cache line,
/// not one per field (a country's search reaches arcs all over the graph): 16 bytes, so that
/// a country's 1.2 million arcs take 19 MB of state rather than 29.
#[derive(Debug, Clone, Copy, Default)]
struct ArcState {
    /// Label (valid when `mark` names the current round).
    dist: i64,
    /// Arc the label came from ([`NO_ARC`] at a source).
    parent: u32,
    /// Twice the round in which `dist` was set, plus one once the arc is settled in it.
    mark: u32,
}

/// Rounds wrap before their marks (twice the round, plus one) would.
const LAST_ROUND: u32 = u32::MAX / 2 - 1;

/// Reusable state of a Dijkstra search over arcs.
#[derive(Debug, Default)]
pub struct Dijkstra {
    arcs: Vec<ArcState>,
    target: Vec<i64>,
    target_stamp: Vec<u32>,
    round: u32,
    heap: BinaryHeap<Reverse<(i64, u32)>>,
    /// The queue of [`Dijkstra::explore`] when its labels may span more than 32 bits (an
    /// unbounded exploration): keys never decrease (every weight is non-negative), so a radix
    /// heap, which pushes in constant time.
    radix: RadixHeapMap<Reverse<i64>, u32>,
    /// For explorations whose range of labels fits in 32 bits (every bounded one in
    /// practice): a binary heap of one word an entry, the label counted from the lowest
    /// source label in the high half and the arc in the low half ([`Narrow`]).
    narrow: BinaryHeap<Reverse<u64>>,
    /// Arcs settled by the last search, in order.
    pub order: Vec<u32>,
}

impl Dijkstra {
    /// State for a graph of `arcs` arcs.
    pub fn new(arcs: usize) -> Self {
        Dijkstra {
            arcs: vec![
                ArcState {
                    parent: NO_ARC,
                    ..ArcState::default()
                };
                arcs
            ],
            // Point-to-point searches only ([`Dijkstra::ensure_targets`]).
            target: Vec::new(),
            target_stamp: Vec::new(),
            round: 0,
            heap: BinaryHeap::new(),
            radix: RadixHeapMap::new(),
            narrow: BinaryHeap::new(),
            order: Vec::new(),
        }
    }

    fn begin(&mut self, arcs: usize) {
        if self.arcs.len() < arcs {
            *self = Dijkstra::new(arcs);
        }
        self.round += 1;
        if self.round > LAST_ROUND {
            self.arcs.iter_mut().for_each(|s| s.mark = 0);
            self.target_stamp.iter_mut().for_each(|s| *s = 0);
            self.round = 1;
        }
        self.heap.clear();
        self.radix.clear();
        self.narrow.clear();
        self.order.clear();
    }

    /// Sizes the per-arc target state, which bounded explorations do not use.
    fn ensure_targets(&mut self, arcs: usize) {
        if self.target_stamp.len() < arcs {
            self.target = vec![0; arcs];
            self.target_stamp = vec![0; arcs];
        }
    }

    fn label(&self, a: u32) -> Option<i64> {
        let s = &self.arcs[a as usize];
        (s.mark >> 1 == self.round).then_some(s.dist)
    }

    fn is_settled(&self, a: u32) -> bool {
        self.arcs[a as usize].mark == 2 * self.round + 1
    }

    fn settle(&mut self, a: u32) {
        self.arcs[a as usize].mark = 2 * self.round + 1;
    }

    /// Sets the label of `a` (and its parent) in this round.
    fn set(&mut self, a: u32, d: i64, parent: u32) {
        let round = self.round;
        let s = &mut self.arcs[a as usize];
        // An arc settled in this round stays settled (a search towards a target may lower
        // the label of an expanded arc and expand it again).
        s.mark = (2 * round) | u32::from(s.mark == 2 * round + 1);
        s.dist = d;
        s.parent = parent;
    }

    /// The label of arc `a` after the last search (cost of reaching its start), if reached.
    pub fn reached(&self, a: u32) -> Option<i64> {
        let s = &self.arcs[a as usize];
        (s.mark == 2 * self.round + 1).then_some(s.dist)
    }

    /// The cheapest path from any `(arc, start label)` source to any `(arc, end cost)` target,
    /// where `weight(a, t)` is the cost of transition `t` leaving arc `a` (`None`: not usable)
    /// and `usable(a)` says whether an arc may be entered at all.
    pub fn shortest(
        &mut self,
        g: &TurnGraph,
        sources: &[(u32, i64)],
        targets: &[(u32, i64)],
        weight: impl Fn(u32, u32) -> Option<u64>,
        usable: impl Fn(u32) -> bool,
    ) -> Option<Found> {
        self.shortest_towards(g, sources, targets, weight, usable, |_| 0)
    }

    /// [`Dijkstra::shortest`] directed towards the targets (A*): `bound(a)` is a lower bound
    /// of the cost from the start of arc `a` to the cheapest target, end cost included (`0`
    /// everywhere: plain Dijkstra). Arcs are taken in order of label + bound and the search
    /// stops when that reaches the best path found, so the answer is exact for any bound that
    /// never overestimates; an arc whose label drops after it was expanded (a bound that is
    /// admissible but not consistent, e.g. through rounding) is expanded again.
    pub fn shortest_towards(
        &mut self,
        g: &TurnGraph,
        sources: &[(u32, i64)],
        targets: &[(u32, i64)],
        weight: impl Fn(u32, u32) -> Option<u64>,
        usable: impl Fn(u32) -> bool,
        bound: impl Fn(u32) -> i64,
    ) -> Option<Found> {
        self.begin(g.arc_count());
        self.ensure_targets(g.arc_count());
        for &(b, w) in targets {
            if usable(b) {
                let slot = b as usize;
                if self.target_stamp[slot] != self.round || w < self.target[slot] {
                    self.target[slot] = w;
                    self.target_stamp[slot] = self.round;
                }
            }
        }
        for &(a, w) in sources {
            if usable(a) && self.label(a).is_none_or(|old| w < old) {
                self.set(a, w, NO_ARC);
                self.heap.push(Reverse((w + bound(a), a)));
            }
        }
        let mut best: Option<(i64, u32)> = None;
        while let Some(Reverse((key, a))) = self.heap.pop() {
            let Some(d) = self.label(a) else { continue };
            if key != d + bound(a) {
                continue;
            }
            if best.is_some_and(|(b, _)| key >= b) {
                break;
            }
            self.settle(a);
            if self.target_stamp[a as usize] == self.round {
                let total = d + self.target[a as usize];
                if best.is_none_or(|(b, _)| total < b) {
                    best = Some((total, a));
                }
            }
            for t in g.out_range(a) {
                let b = g.head[t as usize];
                if !usable(b) {
                    continue;
                }
                if let Some(w) = weight(a, t) {
                    let nd = d + w as i64;
                    if self.label(b).is_none_or(|old| nd < old) {
                        self.set(b, nd, a);
                        self.heap.push(Reverse((nd + bound(b), b)));
                    }
                }
            }
        }
        let (cost, last) = best?;
        let mut arcs = vec![last];
        let mut a = last;
        while self.arcs[a as usize].parent != NO_ARC {
            a = self.arcs[a as usize].parent;
            arcs.push(a);
        }
        arcs.reverse();
        Some(Found { cost, arcs })
    }

    /// Settles every arc whose label stays `<= limit`, from the sources; read the labels with
    /// [`Dijkstra::reached`] and the settled arcs in `order`.
    pub fn explore(
        &mut self,
        g: &TurnGraph,
        sources: &[(u32, i64)],
        limit: i64,
        weight: impl Fn(u32, u32) -> Option<u64>,
        usable: impl Fn(u32) -> bool,
    ) {
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        self.explore_each(g, sources, limit, weight, usable, |a, _| order.push(a));
        self.order = order;
    }

    /// [`Dijkstra::explore`], handing each arc to `settled` with its final label as it is
    /// settled, in the order of the search (`order` is left empty): a caller can work on the
    /// first arcs while the search goes on.
    pub fn explore_each(
        &mut self,
        g: &TurnGraph,
        sources: &[(u32, i64)],
        limit: i64,
        weight: impl Fn(u32, u32) -> Option<u64>,
        usable: impl Fn(u32) -> bool,
        mut settled: impl FnMut(u32, i64),
    ) {
        self.begin(g.arc_count());
        let base = sources
            .iter()
            .filter(|s| usable(s.0))
            .map(|s| s.1)
            .min()
            .unwrap_or(0);
        // Labels above `limit` are never pushed, so every key lies in `base..=limit`.
        let narrow = limit
            .checked_sub(base)
            .is_some_and(|r| r <= i64::from(u32::MAX));
        if narrow {
            let mut q = Narrow {
                heap: std::mem::take(&mut self.narrow),
                base,
            };
            self.seed(&mut q, sources, limit, &usable);
            self.explore_with(&mut q, g, limit, weight, usable, &mut settled);
            self.narrow = q.heap;
        } else {
            let mut q = std::mem::take(&mut self.radix);
            self.seed(&mut q, sources, limit, &usable);
            self.explore_with(&mut q, g, limit, weight, usable, &mut settled);
            self.radix = q;
        }
    }

    /// Labels and queues the usable sources within `limit`.
    fn seed(
        &mut self,
        q: &mut impl Queue,
        sources: &[(u32, i64)],
        limit: i64,
        usable: impl Fn(u32) -> bool,
    ) {
        for &(a, w) in sources {
            if w <= limit && usable(a) && self.label(a).is_none_or(|old| w < old) {
                self.set(a, w, NO_ARC);
                q.push(w, a);
            }
        }
    }

    fn explore_with(
        &mut self,
        q: &mut impl Queue,
        g: &TurnGraph,
        limit: i64,
        weight: impl Fn(u32, u32) -> Option<u64>,
        usable: impl Fn(u32) -> bool,
        settled: &mut impl FnMut(u32, i64),
    ) {
        // The arrays as plain slices, once: the inner loop reads them at every step.
        let (first_out, head): (&[u32], &[u32]) = (&g.first_out, &g.head);
        while let Some((d, a)) = q.pop() {
            if self.is_settled(a) || self.label(a) != Some(d) {
                continue;
            }
            self.settle(a);
            settled(a, d);
            let out = first_out[a as usize]..first_out[a as usize + 1];
            for t in out {
                let b = head[t as usize];
                if self.is_settled(b) || !usable(b) {
                    continue;
                }
                if let Some(w) = weight(a, t) {
                    // `w` is never negative: the key pushed is at least the one popped.
                    let nd = d.saturating_add_unsigned(w);
                    if nd <= limit && self.label(b).is_none_or(|old| nd < old) {
                        self.set(b, nd, a);
                        q.push(nd, b);
                        // Its transitions are read when it is taken from the queue, soon
                        // after in a search's frontier: ask for them now.
                        prefetch(first_out, b as usize);
                    }
                }
            }
        }
    }
}

/// Asks the processor to bring `v[i]` into its caches (no effect where no instruction does).
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch(v: &[u32], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = v.get(i) {
        // SAFETY: SSE, the feature the instruction needs, is part of every x86-64 processor
        // (the target's baseline); a prefetch of a valid address reads nothing into the program.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (x as *const u32).cast::<i8>(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (v, i);
}

/// A monotone priority queue of arcs by label.
trait Queue {
    fn push(&mut self, label: i64, a: u32);
    fn pop(&mut self) -> Option<(i64, u32)>;
}

impl Queue for RadixHeapMap<Reverse<i64>, u32> {
    #[inline]
    fn push(&mut self, label: i64, a: u32) {
        RadixHeapMap::push(self, Reverse(label), a);
    }

    #[inline]
    fn pop(&mut self) -> Option<(i64, u32)> {
        RadixHeapMap::pop(self).map(|(Reverse(d), a)| (d, a))
    }
}

/// A binary heap of labels counted from `base` (all within `u32` of it), each packed with
/// its arc into one word: a search's frontier is a few thousand words that stay in the
/// processor's caches, and one comparison of words orders by label, then arc. On the 5 M-node
/// country's 30-minute drives this settles arcs in about 30 % less time than a radix heap of
/// 32-bit keys (`performance.md`, isochrones).
struct Narrow {
    heap: BinaryHeap<Reverse<u64>>,
    base: i64,
}

impl Queue for Narrow {
    #[inline]
    fn push(&mut self, label: i64, a: u32) {
        // The caller pushes labels in `base..=base + u32::MAX` only.
        let key = (label - self.base) as u32;
        self.heap
            .push(Reverse((u64::from(key) << 32) | u64::from(a)));
    }

    #[inline]
    fn pop(&mut self) -> Option<(i64, u32)> {
        self.heap
            .pop()
            .map(|Reverse(x)| (self.base + (x >> 32) as i64, x as u32))
    }
}

impl Dijkstra {
    /// After [`Dijkstra::explore`] from `starts` `(arc, weight, second weight, ..)`, the cost
    /// in `other` of the path to each settled arc (following the search tree).
    pub fn second_costs(
        &self,
        g: &TurnGraph,
        other: Metric,
        starts: &[(u32, u64, u64)],
    ) -> std::collections::HashMap<u32, u64> {
        let mut out: std::collections::HashMap<u32, u64> =
            std::collections::HashMap::with_capacity(self.order.len());
        for &a in &self.order {
            let p = self.arcs[a as usize].parent;
            let v = if p == NO_ARC {
                starts.iter().find(|s| s.0 == a).map_or(0, |s| s.2)
            } else {
                let t = g
                    .out_range(p)
                    .find(|&t| g.head[t as usize] == a)
                    .map_or(0, |t| g.transition_cost(other, p, t));
                out.get(&p).copied().unwrap_or(0) + t
            };
            out.insert(a, v);
        }
        out
    }
}

/// The plain weight function of `metric`.
pub fn metric_weight(g: &TurnGraph, metric: Metric) -> impl Fn(u32, u32) -> Option<u64> + '_ {
    let costs = g.costs(metric);
    move |a, t| Some(costs.transition(a, t))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::routing::compact::tests::random_graph;

    /// The directed search finds Dijkstra's cost with any bound that never overestimates, also
    /// one that is not consistent (a random share of the true remaining cost per arc), and its
    /// path is a chain of transitions of that cost.
    #[test]
    fn directed_search_is_exact_with_an_admissible_bound() {
        let g = random_graph(300, 4, 17);
        let metric = Metric::Distance;
        let weight = metric_weight(&g, metric);
        let mut d = Dijkstra::new(g.arc_count());
        let mut checked = 0;
        for target in (0..300).step_by(13) {
            // The true remaining cost from the start of each arc to `target` (end cost 0).
            let remaining: Vec<Option<i64>> = (0..300)
                .map(|a| {
                    d.explore(&g, &[(a, 0)], i64::MAX, &weight, |_| true);
                    d.reached(target)
                })
                .collect();
            let mut s = u64::from(target) * 2_654_435_761 + 1;
            let share: Vec<f64> = (0..300)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    (s % 1001) as f64 / 1000.0
                })
                .collect();
            let bound =
                |a: u32| remaining[a as usize].map_or(0, |r| (r as f64 * share[a as usize]) as i64);
            for source in (0..300).step_by(7) {
                let want = d.shortest(&g, &[(source, 0)], &[(target, 0)], &weight, |_| true);
                let got = d.shortest_towards(
                    &g,
                    &[(source, 0)],
                    &[(target, 0)],
                    &weight,
                    |_| true,
                    bound,
                );
                assert_eq!(got.as_ref().map(|f| f.cost), want.map(|f| f.cost));
                if let Some(f) = got {
                    checked += 1;
                    let sum: u64 = f
                        .arcs
                        .windows(2)
                        .map(|w| {
                            g.out_range(w[0])
                                .filter(|&t| g.head[t as usize] == w[1])
                                .map(|t| g.transition_cost(metric, w[0], t))
                                .min()
                                .unwrap()
                        })
                        .sum();
                    assert_eq!(sum as i64, f.cost);
                }
            }
        }
        assert!(checked > 300, "{checked}");
    }

    /// A bounded exploration (32-bit keys counted from the lowest source label) settles
    /// exactly the arcs an unbounded one (64-bit keys) labels within the bound, with the same
    /// labels, also from sources part-way along their arcs (negative labels).
    #[test]
    fn bounded_and_unbounded_explorations_agree_within_the_bound() {
        let g = random_graph(400, 3, 23);
        let weight = metric_weight(&g, Metric::Time);
        let usable = |a: u32| a % 11 != 5;
        let (mut bounded, mut unbounded) = (Dijkstra::new(400), Dijkstra::new(400));
        let (mut inside, mut beyond) = (0, 0);
        for source in (0..400u32).step_by(9) {
            let sources = [(source, -1_500), ((source * 7 + 3) % 400, 0)];
            unbounded.explore(&g, &sources, i64::MAX, &weight, usable);
            for limit in [100_000, 400_000] {
                bounded.explore(&g, &sources, limit, &weight, usable);
                for a in 0..400 {
                    let want = unbounded.reached(a).filter(|&l| l <= limit);
                    assert_eq!(bounded.reached(a), want, "arc {a} from {source}");
                    inside += usize::from(want.is_some());
                    beyond += usize::from(unbounded.reached(a).is_some() && want.is_none());
                }
            }
            assert_eq!(unbounded.reached(source).is_some(), usable(source));
        }
        assert!(
            inside > 2_000 && beyond > 2_000,
            "{inside} within, {beyond} beyond"
        );
    }

    /// Searches across the wrap of the rounds answer as a fresh state does: no label or
    /// settled mark of an old round is read as one of the new.
    #[test]
    fn searches_across_the_wrap_of_rounds_answer_as_fresh_ones() {
        let g = random_graph(200, 3, 5);
        let weight = metric_weight(&g, Metric::Time);
        let mut worn = Dijkstra::new(g.arc_count());
        worn.round = LAST_ROUND - 3;
        for source in 0..12u32 {
            let mut fresh = Dijkstra::new(g.arc_count());
            for d in [&mut worn, &mut fresh] {
                d.explore(&g, &[(source, 0)], 40_000, &weight, |_| true);
            }
            let reached = |d: &Dijkstra| (0..200).map(|a| d.reached(a)).collect::<Vec<_>>();
            assert_eq!(reached(&worn), reached(&fresh), "from {source}");
            let target = (source * 37 + 11) % 200;
            let p = |d: &mut Dijkstra| {
                d.shortest(&g, &[(source, 0)], &[(target, 0)], &weight, |_| true)
                    .map(|f| f.cost)
            };
            assert_eq!(p(&mut worn), p(&mut Dijkstra::new(g.arc_count())));
        }
        assert!(worn.round < 30, "the rounds wrapped");
    }
}
