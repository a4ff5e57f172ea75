//! The bounded search of a 30-minute driving isochrone, alone, on a built pack's driving
//! graph: the engine's search (`Dijkstra::explore`) on the arcs as numbered (edge order) and
//! on the same graph with its arcs numbered along a Hilbert curve over their midpoints; then
//! one minimal search loop run on two queues, a radix heap of 32-bit keys and a binary heap of
//! packed words. 100 random origin arcs, three rounds (the first untimed), the variants
//! alternated per origin; wall time p50.
//!
//! `cargo run --release -p waymark-packs --example iso_search -- PACK_DIR` (pin it with
//! `taskset -c 0` for one core).
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::PathBuf;
use std::time::Instant;

use radix_heap::RadixHeapMap;
use waymark_core::geo::hilbert;
use waymark_core::routing::search::Dijkstra;
use waymark_core::routing::{Metric, Profile, RoadNetwork, TurnGraph, cch};

/// 30 minutes, ms.
const BUDGET: i64 = 1_800_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(dir) = std::env::args().nth(1) else {
        return Err("usage: iso_search PACK_DIR".into());
    };
    let conn = rusqlite::Connection::open(PathBuf::from(dir).join("data.sqlite"))?;
    let net = RoadNetwork::load(&conn)?;
    let g = TurnGraph::build(&net, Profile::Driving);
    let n = g.arc_count();
    let perm = hilbert_numbering(&g, &net);
    let h = renumbered(&g, &perm);
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let origins: Vec<u32> = (0..100)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as u32
        })
        .collect();

    let (mut dg, mut dh) = (Dijkstra::new(n), Dijkstra::new(n));
    let explore = |d: &mut Dijkstra, gr: &TurnGraph, s: u32| {
        let costs = gr.costs(Metric::Time);
        let t = Instant::now();
        d.explore(
            gr,
            &[(s, 0)],
            BUDGET,
            |a, t| Some(costs.transition(a, t)),
            |_| true,
        );
        (t.elapsed().as_secs_f64() * 1000.0, d.order.len())
    };
    let mut times = [Vec::new(), Vec::new()];
    let mut settled = 0usize;
    for round in 0..3 {
        for (i, &o) in origins.iter().enumerate() {
            let mut counts = [0; 2];
            for k in 0..2 {
                let which = (k + i + round) % 2;
                let (ms, count) = match which {
                    0 => explore(&mut dg, &g, o),
                    _ => explore(&mut dh, &h, perm[o as usize]),
                };
                counts[which] = count;
                if round > 0 {
                    times[which].push(ms);
                }
            }
            if counts[0] != counts[1] {
                return Err(format!("origin {o}: {} against {} arcs", counts[0], counts[1]).into());
            }
            settled += counts[0];
        }
    }
    println!(
        "driving graph: {n} arcs; a search settles {} arcs on average",
        settled / (3 * origins.len())
    );
    for (name, t) in ["edge order", "Hilbert order"].iter().zip(&mut times) {
        println!("engine search, arcs in {name}: p50 {:.2} ms", p50(t));
    }

    let mut state = vec![State::default(); n];
    let mut round = 0u32;
    let mut radix = Radix(RadixHeapMap::new());
    let mut binary = Binary(BinaryHeap::new());
    let mut times = [Vec::new(), Vec::new()];
    for rep in 0..3 {
        for (i, &o) in origins.iter().enumerate() {
            for k in 0..2 {
                let which = (k + i + rep) % 2;
                let t = Instant::now();
                let count = match which {
                    0 => search(&mut radix, &mut state, &mut round, &g, o),
                    _ => search(&mut binary, &mut state, &mut round, &g, o),
                };
                std::hint::black_box(count);
                if rep > 0 {
                    times[which].push(t.elapsed().as_secs_f64() * 1000.0);
                }
            }
        }
    }
    for (name, t) in ["radix heap, 32-bit keys", "binary heap, packed words"]
        .iter()
        .zip(&mut times)
    {
        println!("minimal search on a {name}: p50 {:.2} ms", p50(t));
    }
    Ok(())
}

fn p50(t: &mut [f64]) -> f64 {
    t.sort_by(f64::total_cmp);
    t.get(t.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The new number of every arc: arcs sorted by the Hilbert key of their midpoints.
fn hilbert_numbering(g: &TurnGraph, net: &RoadNetwork) -> Vec<u32> {
    let ends = cch::arc_ends(g, net);
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for p in ends.iter().flatten() {
        x0 = x0.min(p[0]);
        y0 = y0.min(p[1]);
        x1 = x1.max(p[0]);
        y1 = y1.max(p[1]);
    }
    let span = (x1 - x0).max(y1 - y0).max(1.0);
    let cell = |v: f64, lo: f64| (((v - lo) / span) * 65535.0) as u32;
    let mut keyed: Vec<(u64, u32)> = ends
        .iter()
        .enumerate()
        .map(|(a, e)| {
            let (mx, my) = ((e[0][0] + e[1][0]) / 2.0, (e[0][1] + e[1][1]) / 2.0);
            (hilbert(cell(mx, x0), cell(my, y0)), a as u32)
        })
        .collect();
    keyed.sort_unstable();
    let mut perm = vec![0u32; keyed.len()];
    for (i, &(_, a)) in keyed.iter().enumerate() {
        perm[a as usize] = i as u32;
    }
    perm
}

/// The graph with arc `a` numbered `perm[a]` (the arrays a bounded search reads).
fn renumbered(g: &TurnGraph, perm: &[u32]) -> TurnGraph {
    let mut old = vec![0u32; perm.len()];
    for (a, &p) in perm.iter().enumerate() {
        old[p as usize] = a as u32;
    }
    let (mut first_out, mut head, mut turn) = (vec![0u32], Vec::new(), Vec::new());
    let (mut time, mut dist, mut edge, mut forward) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for &a in &old {
        for t in g.out_range(a) {
            head.push(perm[g.head[t as usize] as usize]);
            turn.push(g.turn_ms[t as usize]);
        }
        first_out.push(head.len() as u32);
        time.push(g.arc_time_ms[a as usize]);
        dist.push(g.arc_dist_cm[a as usize]);
        edge.push(g.arc_edge[a as usize]);
        forward.push(g.arc_forward[a as usize]);
    }
    let mut h = g.clone();
    h.first_out = first_out.into();
    h.head = head.into();
    h.turn_ms = turn.into();
    h.arc_time_ms = time.into();
    h.arc_dist_cm = dist.into();
    h.arc_edge = edge.into();
    h.arc_forward = forward;
    h
}

/// A label and the round it was set (twice the round) or settled (plus one) in.
#[derive(Clone, Copy, Default)]
struct State {
    dist: u32,
    mark: u32,
}

trait Queue {
    fn push(&mut self, key: u32, a: u32);
    fn pop(&mut self) -> Option<(u32, u32)>;
    fn clear(&mut self);
}

struct Radix(RadixHeapMap<Reverse<u32>, u32>);

impl Queue for Radix {
    fn push(&mut self, key: u32, a: u32) {
        self.0.push(Reverse(key), a);
    }
    fn pop(&mut self) -> Option<(u32, u32)> {
        self.0.pop().map(|(Reverse(k), a)| (k, a))
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

struct Binary(BinaryHeap<Reverse<u64>>);

impl Queue for Binary {
    fn push(&mut self, key: u32, a: u32) {
        self.0.push(Reverse((u64::from(key) << 32) | u64::from(a)));
    }
    fn pop(&mut self) -> Option<(u32, u32)> {
        self.0.pop().map(|Reverse(x)| ((x >> 32) as u32, x as u32))
    }
    fn clear(&mut self) {
        self.0.clear();
    }
}

/// A bounded Dijkstra search on the time metric from arc `s`; the number of arcs settled.
fn search(q: &mut impl Queue, st: &mut [State], round: &mut u32, g: &TurnGraph, s: u32) -> usize {
    *round += 1;
    let r = *round;
    q.clear();
    let (first_out, head, turn, time): (&[u32], &[u32], &[u32], &[u32]) =
        (&g.first_out, &g.head, &g.turn_ms, &g.arc_time_ms);
    st[s as usize] = State {
        dist: 0,
        mark: 2 * r,
    };
    q.push(0, s);
    let mut settled = 0;
    while let Some((d, a)) = q.pop() {
        let sa = st[a as usize];
        if sa.mark != 2 * r || sa.dist != d {
            continue;
        }
        st[a as usize].mark = 2 * r + 1;
        settled += 1;
        let c = time[a as usize];
        for t in first_out[a as usize]..first_out[a as usize + 1] {
            let b = head[t as usize];
            let sb = st[b as usize];
            if sb.mark == 2 * r + 1 {
                continue;
            }
            let nd = d + c + turn[t as usize];
            if i64::from(nd) <= BUDGET && (sb.mark != 2 * r || nd < sb.dist) {
                st[b as usize] = State {
                    dist: nd,
                    mark: 2 * r,
                };
                q.push(nd, b);
            }
        }
    }
    settled
}
