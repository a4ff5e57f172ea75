//! The country layout of the synthetic networks: towns of many sizes scattered over open
//! land, each a city grid of its own ([`Grid`]), joined by rural roads.
//!
//! A real country's road network is not one city: its towns are separated by land that
//! only a few roads cross, which is what makes the separators of a nested-dissection order
//! small (a cut between two towns crosses a handful of roads, a cut through one city grid
//! crosses every street of a row). The layout reproduces that shape:
//!
//! * **Towns.** About one town per [`NODES_PER_TOWN`] nodes asked. Town `k` (from 1) gets a
//!   share of the nodes proportional to `1/k` (Zipf's law of city sizes), at least a 12 × 12
//!   grid. A town's edge blocks hold no buildings, so the file has about 10 % fewer nodes
//!   than asked: `--nodes 5550000` gives 5.0 million nodes in 222 towns, from a city of about
//!   900,000 nodes (24 km across) down to villages of 2,000. Each is a full city grid (streets, a two-carriageway
//!   through road, buildings with addresses, POIs, its boundary) named after itself.
//! * **Land.** The towns cover [`BUILT_UP`] of a square of land, placed at random with
//!   [`MARGIN_M`] of open land at least between two of them.
//! * **Roads.** A spanning tree of the towns (shortest total length) as `secondary` roads, each
//!   town's two nearest neighbours by `tertiary` roads, and a spanning tree of the largest
//!   tenth as `trunk` roads. A road leaves a town from the junction of its edge that faces the
//!   other town, bends gently, and has a shape node every [`ROAD_SHAPE_M`]. Roads that cross
//!   pass over each other (no junction), as on a bridge.
//!
//! Everything is a pure function of the options, like the city layout.

use super::*;

/// Nodes per town on average: how many towns a node count gives.
pub const NODES_PER_TOWN: f64 = 25_000.0;

/// Share of the land covered by towns.
pub const BUILT_UP: f64 = 0.08;

/// Open land kept between two towns, metres.
pub const MARGIN_M: f64 = 1_500.0;

/// Distance between the shape nodes of a rural road, metres.
pub const ROAD_SHAPE_M: f64 = 150.0;

/// Metres per degree of latitude.
const M_PER_DEG: f64 = 111_320.0;

/// Suffixes of the towns' names.
const TOWN_SUFFIXES: [&str; 8] = [
    "stadt", "dorf", "hausen", "feld", "burg", "heim", "berg", "au",
];

/// A placed town: its grid and its south-west corner on the land, metres.
struct Town {
    grid: Grid,
    x: f64,
    y: f64,
}

impl Town {
    fn side_m(&self) -> f64 {
        self.grid.g as f64 * SPACING_M
    }

    fn centre(&self) -> (f64, f64) {
        let h = self.side_m() / 2.0;
        (self.x + h, self.y + h)
    }

    /// The junction of the town's edge facing the point `(px, py)` (metres): its id and
    /// `(lat, lng)`.
    fn gate(&self, px: f64, py: f64) -> (i64, (f64, f64)) {
        let g = self.grid.g;
        let (cx, cy) = self.centre();
        let (dx, dy) = (px - cx, py - cy);
        let along =
            |v: f64, o: f64| ((v - o) / SPACING_M).round().clamp(1.0, g as f64 - 2.0) as usize;
        let (i, j) = if dx.abs() >= dy.abs() {
            (along(py, self.y), if dx > 0.0 { g - 1 } else { 0 })
        } else {
            (if dy > 0.0 { g - 1 } else { 0 }, along(px, self.x))
        };
        (self.grid.junction(i, j), self.grid.at(i as f64, j as f64))
    }
}

/// A road between two towns: `(town a, town b, class)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    Trunk,
    Secondary,
    Tertiary,
}

/// Grid sides of the towns for `nodes` nodes, largest first.
fn town_sides(nodes: u64) -> Vec<usize> {
    let towns = ((nodes as f64 / NODES_PER_TOWN).round() as usize).max(1);
    let harmonic: f64 = (1..=towns).map(|k| 1.0 / k as f64).sum();
    (1..=towns)
        .map(|k| {
            let share = nodes as f64 * 0.97 / (k as f64 * harmonic);
            ((share / NODES_PER_BLOCK).sqrt().round() as usize).max(12)
        })
        .collect()
}

/// Random positions for squares of `sides` (metres) on a square of land, `MARGIN_M` apart:
/// `(land side, south-west corners)`.
fn place(sides: &[f64], seed: u64) -> (f64, Vec<(f64, f64)>) {
    let area: f64 = sides.iter().map(|s| s * s).sum();
    let mut land = (area / BUILT_UP)
        .sqrt()
        .max(sides.first().copied().unwrap_or(0.0) * 1.5);
    let mut placed: Vec<(f64, f64, f64)> = Vec::with_capacity(sides.len());
    let unit = |h: u64| (h >> 11) as f64 / (1u64 << 53) as f64;
    for (k, &s) in sides.iter().enumerate() {
        let mut attempt = 0u64;
        loop {
            let x = unit(mix(&[seed, 30, k as u64, attempt])) * (land - s);
            let y = unit(mix(&[seed, 31, k as u64, attempt])) * (land - s);
            let clear = placed.iter().all(|&(px, py, ps)| {
                x + s + MARGIN_M <= px
                    || px + ps + MARGIN_M <= x
                    || y + s + MARGIN_M <= py
                    || py + ps + MARGIN_M <= y
            });
            if clear {
                placed.push((x, y, s));
                break;
            }
            attempt += 1;
            if attempt.is_multiple_of(2_000) {
                land *= 1.05;
            }
        }
    }
    (land, placed.into_iter().map(|(x, y, _)| (x, y)).collect())
}

/// A spanning tree of shortest total length over `points` (Prim's algorithm): pairs of
/// indices.
fn spanning_tree(points: &[(f64, f64)]) -> Vec<(usize, usize)> {
    let n = points.len();
    if n < 2 {
        return Vec::new();
    }
    let dist = |a: usize, b: usize| {
        let (pa, pb) = (points[a], points[b]);
        (pa.0 - pb.0).hypot(pa.1 - pb.1)
    };
    let mut in_tree = vec![false; n];
    let mut best = vec![(f64::INFINITY, 0usize); n];
    in_tree[0] = true;
    for (v, b) in best.iter_mut().enumerate().skip(1) {
        *b = (dist(0, v), 0);
    }
    let mut edges = Vec::with_capacity(n - 1);
    for _ in 1..n {
        let Some(v) = (0..n)
            .filter(|&v| !in_tree[v])
            .min_by(|&a, &b| best[a].0.total_cmp(&best[b].0))
        else {
            break;
        };
        in_tree[v] = true;
        edges.push((best[v].1.min(v), best[v].1.max(v)));
        for u in 0..n {
            if !in_tree[u] {
                let d = dist(v, u);
                if d < best[u].0 {
                    best[u] = (d, v);
                }
            }
        }
    }
    edges
}

/// The roads: `(a, b, class)` with `a < b`, each pair once (the higher class kept).
fn roads(centres: &[(f64, f64)]) -> Vec<(usize, usize, Class)> {
    let mut all: std::collections::BTreeMap<(usize, usize), Class> = Default::default();
    let mut add = |a: usize, b: usize, c: Class| {
        let e = all.entry((a.min(b), a.max(b))).or_insert(c);
        *e = (*e).min(c);
    };
    let big = (centres.len() / 10).max(2).min(centres.len());
    for (a, b) in spanning_tree(&centres[..big]) {
        add(a, b, Class::Trunk);
    }
    for (a, b) in spanning_tree(centres) {
        add(a, b, Class::Secondary);
    }
    for (a, &(ax, ay)) in centres.iter().enumerate() {
        let mut near: Vec<(f64, usize)> = centres
            .iter()
            .enumerate()
            .filter(|&(b, _)| b != a)
            .map(|(b, &(bx, by))| ((ax - bx).hypot(ay - by), b))
            .collect();
        near.sort_by(|x, y| x.0.total_cmp(&y.0));
        for &(_, b) in near.iter().take(2) {
            add(a, b, Class::Tertiary);
        }
    }
    all.into_iter().map(|((a, b), c)| (a, b, c)).collect()
}

/// The shape nodes of a road from `a` to `b` (`(lat, lng)`), not its ends: one every
/// [`ROAD_SHAPE_M`], bent sideways by up to 2 % of its length.
fn road_shape(a: (f64, f64), b: (f64, f64), phase: f64) -> Vec<(f64, f64)> {
    let cos = a.0.to_radians().cos();
    let (dy, dx) = ((b.0 - a.0) * M_PER_DEG, (b.1 - a.1) * M_PER_DEG * cos);
    let len = dx.hypot(dy);
    let n = (len / ROAD_SHAPE_M).floor() as usize;
    if n == 0 || len == 0.0 {
        return Vec::new();
    }
    let (px, py) = (-dy / len, dx / len);
    (1..=n)
        .map(|k| {
            let t = k as f64 / (n + 1) as f64;
            let off = 0.02 * len * (std::f64::consts::PI * t).sin() * (3.0 * t + phase).sin();
            let (y, x) = (dy * t + py * off, dx * t + px * off);
            (a.0 + y / M_PER_DEG, a.1 + x / (M_PER_DEG * cos))
        })
        .collect()
}

/// The tags of a road of `class` numbered `n`.
fn road_tags(class: Class, n: usize) -> Vec<(&'static str, String)> {
    let (highway, reference, maxspeed) = match class {
        Class::Trunk => ("trunk", format!("B {n}"), "100"),
        Class::Secondary => ("secondary", format!("L {n}"), "100"),
        Class::Tertiary => ("tertiary", format!("K {n}"), "80"),
    };
    vec![
        ("highway", highway.to_string()),
        ("ref", reference),
        ("maxspeed", maxspeed.to_string()),
        ("surface", "asphalt".to_string()),
    ]
}

/// Nodes of one way at most (OSM allows 2,000).
const WAY_NODES: usize = 500;

/// Writes the country network of `opts` to `out`.
pub(super) fn write_country<W: io::Write>(
    opts: &SynthOptions,
    out: W,
) -> io::Result<(SynthStats, W)> {
    let sides = town_sides(opts.nodes);
    let metres: Vec<f64> = sides.iter().map(|&g| g as f64 * SPACING_M).collect();
    let (land, corners) = place(&metres, opts.seed);
    let (lat0, lng0) = opts.origin;
    let cos0 = lat0.to_radians().cos();
    let mut towns = Vec::with_capacity(sides.len());
    let mut base = 0i64;
    for (k, (&g, &(x, y))) in sides.iter().zip(&corners).enumerate() {
        let stem = STEMS[k % STEMS.len()];
        let suffix = TOWN_SUFFIXES[(k / STEMS.len()) % TOWN_SUFFIXES.len()];
        let round = k / (STEMS.len() * TOWN_SUFFIXES.len());
        let mut name = format!("{stem}{suffix}");
        if round > 0 {
            name = format!("{name} {}", round + 1);
        }
        let nodes = g * g;
        let place = if nodes >= 6_000 {
            "city"
        } else if nodes >= 600 {
            "town"
        } else {
            "village"
        };
        let origin = (lat0 + y / M_PER_DEG, lng0 + x / (M_PER_DEG * cos0));
        let grid = Grid::sized(
            g,
            mix(&[opts.seed, 20, k as u64]),
            origin,
            base,
            name,
            place,
        );
        base += grid.id_span();
        towns.push(Town { grid, x, y });
    }
    let margin = 0.02;
    let bbox = [
        lng0 - margin,
        lat0 - margin,
        lng0 + land / (M_PER_DEG * cos0) + margin,
        lat0 + land / M_PER_DEG + margin,
    ];
    let mut w = PbfWriter::new(out, bbox, TIMESTAMP)?;
    let mut stats = SynthStats::empty(sides.first().copied().unwrap_or(0), bbox);
    stats.towns = towns.len();
    for town in &towns {
        grid_nodes(&town.grid, &mut w, &mut stats)?;
    }
    // The roads' shape nodes, ids after the towns'.
    let centres: Vec<(f64, f64)> = towns.iter().map(Town::centre).collect();
    let mut road_ways = Vec::new();
    let mut next = base + 1;
    for (n, (a, b, class)) in roads(&centres).into_iter().enumerate() {
        let (ta, tb) = (&towns[a], &towns[b]);
        let (ga, pa) = ta.gate(centres[b].0, centres[b].1);
        let (gb, pb) = tb.gate(centres[a].0, centres[a].1);
        let phase = (mix(&[opts.seed, 40, n as u64]) % 628) as f64 / 100.0;
        let mut refs = vec![ga];
        for (lat, lng) in road_shape(pa, pb, phase) {
            w.node(next, lat, lng, &[])?;
            refs.push(next);
            next += 1;
        }
        refs.push(gb);
        road_ways.push((refs, road_tags(class, n + 1)));
    }
    let mut way_id = 0;
    let mut written = Vec::with_capacity(towns.len());
    for town in &towns {
        written.push(grid_ways(&town.grid, &mut w, &mut stats, &mut way_id)?);
    }
    for (refs, tags) in &road_ways {
        let mut start = 0;
        while start + 1 < refs.len() {
            let end = (start + WAY_NODES - 1).min(refs.len() - 1);
            way_id += 1;
            w.way(way_id, &refs[start..=end], &super::refs(tags))?;
            stats.routable_ways += 1;
            start = end;
        }
    }
    let mut relation_id = 0;
    for (town, ways) in towns.iter().zip(&written) {
        grid_relations(&town.grid, &mut w, &mut stats, &mut relation_id, ways)?;
    }
    finish(w, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn town_sizes_follow_zipf_and_the_node_count() {
        for nodes in [100_000u64, 1_000_000, 5_000_000] {
            let sides = town_sides(nodes);
            assert_eq!(
                sides.len(),
                (nodes as f64 / NODES_PER_TOWN).round() as usize
            );
            assert!(sides.windows(2).all(|w| w[0] >= w[1]), "largest first");
            let total: f64 = sides
                .iter()
                .map(|&g| (g * g) as f64 * NODES_PER_BLOCK)
                .sum();
            assert!(
                (total / nodes as f64 - 1.0).abs() < 0.15,
                "{nodes}: towns hold {total}"
            );
        }
    }

    #[test]
    fn towns_do_not_overlap_and_roads_join_every_town() {
        let sides: Vec<f64> = town_sides(2_000_000)
            .iter()
            .map(|&g| g as f64 * SPACING_M)
            .collect();
        let (land, corners) = place(&sides, 7);
        for (a, (&(ax, ay), &sa)) in corners.iter().zip(&sides).enumerate() {
            assert!(ax >= 0.0 && ay >= 0.0 && ax + sa <= land && ay + sa <= land);
            for (&(bx, by), &sb) in corners.iter().zip(&sides).skip(a + 1) {
                let apart = ax + sa + MARGIN_M <= bx
                    || bx + sb + MARGIN_M <= ax
                    || ay + sa + MARGIN_M <= by
                    || by + sb + MARGIN_M <= ay;
                assert!(apart, "towns at {ax},{ay} and {bx},{by} overlap");
            }
        }
        let centres: Vec<(f64, f64)> = corners
            .iter()
            .zip(&sides)
            .map(|(&(x, y), &s)| (x + s / 2.0, y + s / 2.0))
            .collect();
        let roads = roads(&centres);
        // Union-find over the roads: one component.
        let mut parent: Vec<usize> = (0..centres.len()).collect();
        fn root(p: &mut [usize], mut v: usize) -> usize {
            while p[v] != v {
                p[v] = p[p[v]];
                v = p[v];
            }
            v
        }
        for &(a, b, _) in &roads {
            let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
            parent[ra] = rb;
        }
        let r0 = root(&mut parent, 0);
        assert!((0..centres.len()).all(|v| root(&mut parent, v) == r0));
        assert!(roads.iter().any(|r| r.2 == Class::Trunk));
        assert!(roads.len() < 3 * centres.len(), "a sparse network");
    }
}
