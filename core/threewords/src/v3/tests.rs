#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use super::*;
use crate::permute::splitmix64;
use crate::regions::{DENSE, LAND, POPULATED, Run, SEA};
use columns::{TileKinds, TileWidths};

fn haversine_km(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (la1, lo1, la2, lo2) = (
        a.0.to_radians(),
        a.1.to_radians(),
        b.0.to_radians(),
        b.1.to_radians(),
    );
    let h = ((la2 - la1) / 2.0).sin().powi(2)
        + la1.cos() * la2.cos() * ((lo2 - lo1) / 2.0).sin().powi(2);
    2.0 * 6_371.008_8 * h.sqrt().min(1.0).asin()
}

/// The made-up world of the version 2 tests: land over a third of the longitudes with
/// populated stretches, more runs towards the middle bands; every other populated stretch
/// has a dense core.
fn synthetic() -> Regions {
    let grid = Grid::computed();
    let bands = (0..BANDS)
        .map(|b| {
            let n = grid.columns(b);
            let mut runs = vec![Run {
                start: 0,
                region: SEA,
            }];
            if n >= 12 {
                let pieces = 1 + b % 7;
                for p in 0..pieces {
                    let a = n / 3 + p * (n / 3) / pieces;
                    let w = (n / 3) / pieces;
                    if a <= runs.last().unwrap().start || w < 4 {
                        continue;
                    }
                    runs.push(Run {
                        start: a,
                        region: LAND,
                    });
                    runs.push(Run {
                        start: a + w / 4,
                        region: POPULATED,
                    });
                    if w >= 16 && p % 2 == 0 {
                        runs.push(Run {
                            start: a + 3 * w / 8,
                            region: DENSE,
                        });
                    }
                    runs.push(Run {
                        start: a + w / 2,
                        region: LAND,
                    });
                    runs.push(Run {
                        start: a + w - 1,
                        region: SEA,
                    });
                }
            }
            runs
        })
        .collect();
    Regions::new(grid, bands).unwrap()
}

const WORDS: usize = 40_000;

fn scheme() -> &'static Scheme {
    static S: std::sync::OnceLock<Scheme> = std::sync::OnceLock::new();
    S.get_or_init(|| {
        let regions = synthetic();
        let tiles = Tiles::new(regions.grid());
        let counts: Vec<[u64; KINDS]> = (0..tiles.count())
            .map(|t| tile_counts(&regions, &tiles, t))
            .collect();
        let side = (WORDS / K) as u64;
        let sig = assign(&tiles, &counts, side * side * side).expect("every tile is signed");
        let classes =
            Classes::from_assignment((0..WORDS).map(|r| (r % K) as u8).collect()).unwrap();
        Scheme::new(regions, sig, classes).unwrap()
    })
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        splitmix64(self.0)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn random_square(rng: &mut Rng, grid: &Grid) -> Square {
    let lat = (2.0 * rng.unit() - 1.0).asin().to_degrees();
    let lng = rng.unit() * 360.0 - 180.0;
    grid.square(lat, lng).unwrap()
}

#[test]
fn tiles_cover_the_grid_once() {
    let grid = Grid::computed();
    let t = Tiles::new(&grid);
    let mut rng = Rng(1);
    for _ in 0..100_000 {
        let s = random_square(&mut rng, &grid);
        let tile = t.tile_of(s);
        let (r, _) = t.row_col(tile);
        let (b0, b1) = t.bands(r);
        assert!((b0..b1).contains(&s.band()));
        let (c0, c1) = t.col_range(tile, s.band());
        assert!(c0 <= s.col && s.col < c1, "{s:?} tile {tile}: {c0}..{c1}");
    }
    // Column ranges of a band tile it without gap or overlap.
    for r in [0, 1, t.rows() / 2, t.rows() - 1] {
        let (b0, _) = t.bands(r);
        let tiles: Vec<u32> = (0..t.count()).filter(|&x| t.row_col(x).0 == r).collect();
        let mut end = 0;
        for x in tiles {
            let (c0, c1) = t.col_range(x, b0);
            assert_eq!(c0, end);
            end = c1;
        }
        assert_eq!(end, grid.columns(b0));
    }
}

/// Every pair of squares within 50 km lies in one tile or in two tiles that are neighbours.
#[test]
fn squares_within_50_km_share_a_tile_or_are_neighbours() {
    let grid = Grid::computed();
    let t = Tiles::new(&grid);
    let mut rng = Rng(2);
    for _ in 0..20_000 {
        let a = random_square(&mut rng, &grid);
        let (lat, lng) = grid.centre(a);
        // A point up to 50 km away in a random direction.
        let d = rng.unit() * SAFE_KM / 111.19;
        let bearing = rng.unit() * std::f64::consts::TAU;
        let lat2 = (lat + d * bearing.cos()).clamp(-90.0, 90.0);
        let cos = lat.to_radians().cos().max(1e-9);
        let lng2 = (lng + d * bearing.sin() / cos + 540.0).rem_euclid(360.0) - 180.0;
        let b = grid.square(lat2, lng2).unwrap();
        if haversine_km(grid.centre(a), grid.centre(b)) >= SAFE_KM {
            continue;
        }
        let (ta, tb) = (t.tile_of(a), t.tile_of(b));
        assert!(
            ta == tb || t.neighbours(ta).contains(&tb),
            "{a:?} ({ta}) and {b:?} ({tb})"
        );
    }
}

#[test]
fn neighbouring_tiles_never_differ_in_exactly_one_class() {
    let s = scheme();
    let t = s.tiles();
    for tile in 0..t.count() {
        for nb in t.neighbours(tile) {
            let (a, b) = (usize::from(s.signature(tile)), usize::from(s.signature(nb)));
            assert_ne!(hamming(a, b), 1, "tiles {tile} and {nb}");
        }
    }
    let side = s.classes().side();
    assert!((0..SIGNATURES).all(|g| s.load(g) <= side * side * side));
}

#[test]
fn squares_and_triples_round_trip() {
    let s = scheme();
    let grid = s.regions().grid().clone();
    let mut rng = Rng(7);
    for _ in 0..200_000 {
        let sq = random_square(&mut rng, &grid);
        let t = s.triple(sq);
        assert_eq!(s.square(t), Some(sq), "{sq:?} {t:?}");
        assert_eq!(s.region_of(t), Some(s.regions().region(sq)));
    }
    // The poles and the antimeridian.
    for (lat, lng) in [
        (90.0, 0.0),
        (-90.0, 0.0),
        (0.0, 180.0),
        (0.0, -180.0),
        (89.9999, 179.9999),
        (-89.9999, -179.9999),
    ] {
        let sq = grid.square(lat, lng).unwrap();
        assert_eq!(s.square(s.triple(sq)), Some(sq), "{lat},{lng}");
    }
}

#[test]
fn ranks_past_the_list_name_no_square() {
    let s = scheme();
    assert_eq!(s.square([0, 1, WORDS as u64]), None);
    assert_eq!(s.region_of([WORDS as u64, 1, 2]), None);
    // Triples past a signature's load name no square: the last triple of a signature of
    // repeated classes, which tiles with land or people never carry.
    let side = s.classes().side() as usize;
    let last = s.classes().members(0)[side - 1];
    let n = s.square([u64::from(last); 3]);
    if s.load(0) < (side * side * side) as u64 {
        assert_eq!(n, None);
    }
}

#[test]
fn no_substitution_by_a_word_of_another_class_lands_within_50_km() {
    let s = scheme();
    let grid = s.regions().grid().clone();
    let mut rng = Rng(11);
    let mut checked = 0u64;
    for _ in 0..20_000 {
        let sq = random_square(&mut rng, &grid);
        let t = s.triple(sq);
        let here = grid.centre(sq);
        for pos in 0..3 {
            for _ in 0..10 {
                let r = rng.below(WORDS as u64);
                if s.classes().class(r) == s.classes().class(t[pos]) {
                    continue;
                }
                let mut v = t;
                v[pos] = r;
                if let Some(other) = s.square(v) {
                    let km = haversine_km(here, grid.centre(other));
                    assert!(km >= SAFE_KM, "{t:?} -> {v:?}: {km} km");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100_000, "{checked} substitutions name a square");
}

/// Squares at tile corners, every word of another class at each position (in steps of 7):
/// the worst case of the random test above.
#[test]
fn substitutions_next_to_tile_edges_land_far() {
    let s = scheme();
    let grid = s.regions().grid().clone();
    let t = s.tiles();
    let mut rng = Rng(3);
    for _ in 0..20 {
        let tile = rng.below(u64::from(t.count())) as u32;
        let (r, _) = t.row_col(tile);
        let (b0, _) = t.bands(r);
        let (c0, _) = t.col_range(tile, b0);
        let sq = Square {
            row: b0 * ROWS_PER_BAND,
            col: c0,
        };
        let tr = s.triple(sq);
        let here = grid.centre(sq);
        for pos in 0..3 {
            for rank in (0..WORDS as u64).step_by(7) {
                if s.classes().class(rank) == s.classes().class(tr[pos]) {
                    continue;
                }
                let mut v = tr;
                v[pos] = rank;
                if let Some(o) = s.square(v) {
                    let km = haversine_km(here, grid.centre(o));
                    assert!(km >= SAFE_KM, "{tr:?} -> {v:?}: {km} km");
                }
            }
        }
    }
}

#[test]
fn denser_squares_take_smaller_ranks() {
    let s = scheme();
    let grid = s.regions().grid().clone();
    let mut rng = Rng(5);
    let mut sum = [(0u64, 0u64); KINDS];
    for _ in 0..100_000 {
        let sq = random_square(&mut rng, &grid);
        let k = usize::from(s.regions().region(sq));
        let t = s.triple(sq);
        sum[k].0 += t.iter().max().unwrap();
        sum[k].1 += 1;
    }
    let mean: Vec<f64> = sum
        .iter()
        .map(|(a, n)| *a as f64 / (*n).max(1) as f64)
        .collect();
    let [d, p, l, s] = KIND_ORDER.map(|k| mean[usize::from(k)]);
    assert!(sum[usize::from(DENSE)].1 > 0, "no dense square drawn");
    assert!(d < p && p < l && l < s, "{mean:?}");
}

/// Two words swapped in an address on land or among people never land within 50 km.
#[test]
fn swapped_words_on_land_land_far() {
    let s = scheme();
    let grid = s.regions().grid().clone();
    let mut rng = Rng(13);
    let mut checked = 0u64;
    for _ in 0..100_000 {
        let sq = random_square(&mut rng, &grid);
        if s.regions().region(sq) == SEA {
            continue;
        }
        let t = s.triple(sq);
        let here = grid.centre(sq);
        for (i, j) in [(0, 1), (1, 2), (0, 2)] {
            let mut v = t;
            v.swap(i, j);
            assert_ne!(v, t, "a square on land has three classes");
            let Some(o) = s.square(v) else { continue };
            let km = haversine_km(here, grid.centre(o));
            assert!(km >= SAFE_KM, "{t:?} -> {v:?}: {km} km");
            checked += 1;
        }
    }
    assert!(checked > 1_000, "{checked} swaps name a square");
}

#[test]
fn colouring_keeps_neighbours_apart_and_classes_equal() {
    // Words with many neighbours among themselves: every two-letter string over a few
    // letters, padded to a multiple of K.
    let letters = b"abcd";
    let mut words: Vec<String> = Vec::new();
    for &a in letters {
        for &b in letters {
            for &c in letters {
                words.push(String::from_utf8(vec![a, b, c]).unwrap());
            }
        }
    }
    words.truncate(words.len() / K * K);
    let class = colour(&words, neighbours).expect("the words take K classes");
    let classes = Classes::from_assignment(class).unwrap();
    assert_eq!(classes.side() as usize * K, words.len());
    for (i, w) in words.iter().enumerate() {
        for v in neighbours(w) {
            if let Some(j) = words.iter().position(|x| *x == v) {
                assert_ne!(
                    classes.class(i as u64),
                    classes.class(j as u64),
                    "{w} / {v}"
                );
            }
        }
    }
    // A list that does not split into K equal classes is refused.
    assert_eq!(colour(&words[..K + 1], neighbours), None);
    assert!(matches!(
        Classes::from_assignment(vec![0, 0, 1]),
        Err(ClassError::Unbalanced { .. })
    ));
    assert!(matches!(
        Classes::from_assignment(vec![K as u8]),
        Err(ClassError::Unknown { .. })
    ));
}

#[test]
fn the_first_tier_of_each_class_is_ordered_by_length() {
    // Two classes of four words; ranks 0..6 are the first tier.
    let mut class = vec![0u8; 8];
    for r in [1, 3, 5, 7] {
        class[r] = 1;
    }
    class.extend((0..K - 2).flat_map(|c| [c as u8 + 2; 4]));
    let mut lengths = vec![9, 8, 7, 3, 7, 5, 3, 4];
    lengths.resize(class.len(), 6);
    let classes = Classes::from_assignment(class.clone())
        .unwrap()
        .first_tier_by_length(&lengths, 6)
        .unwrap();
    // Class 0: ranks 0, 2, 4 (9, 7, 7 letters) and 6 (3 letters, past the tier).
    assert_eq!(classes.members(0), [2, 4, 0, 6]);
    // Class 1: ranks 1, 3, 5 (8, 3, 5 letters) and 7 (past the tier).
    assert_eq!(classes.members(1), [3, 5, 1, 7]);
    // Words to class indices (how an address is read) follow the same order.
    for (rank, index) in [
        (2, 0),
        (4, 1),
        (0, 2),
        (6, 3),
        (3, 0),
        (5, 1),
        (1, 2),
        (7, 3),
    ] {
        assert_eq!(classes.index[rank], index, "rank {rank}");
    }
    // Without a tier the classes keep rank order; too few lengths are refused.
    let plain = Classes::from_assignment(class.clone()).unwrap();
    assert_eq!(plain.members(1), [1, 3, 5, 7]);
    assert_eq!(
        plain.first_tier_by_length(&lengths[..5], 6).unwrap_err(),
        ClassError::Lengths {
            lengths: 5,
            tier: 6
        }
    );
    // The classes' digest is the assignment's, whatever the order.
    assert_eq!(classes.digest(), classes_digest(&class));
}

#[test]
fn neighbours_cover_edits_and_forms() {
    let n = neighbours("city");
    for w in ["cits", "pity", "ciy", "icty", "cityy", "cities", "citys"] {
        assert!(n.contains(&w.to_string()), "{w}");
    }
    let n = neighbours("rule");
    for w in ["ruled", "ruling", "ruler", "rules"] {
        assert!(n.contains(&w.to_string()), "{w}");
    }
    assert!(neighbours("stopped").contains(&"stop".to_string()));
    assert!(!neighbours("city").contains(&"city".to_string()));
}

#[test]
fn one_edit_gives_every_single_edit_and_only_those() {
    let n = one_edit("cat");
    for w in ["at", "ca", "act", "cut", "cart", "cats", "acat"] {
        assert!(n.iter().any(|v| v == w), "{w}");
    }
    assert!(!n.iter().any(|v| v == "cat"));
    assert!(!n.iter().any(|v| v == "dog" || v == "c" || v == "catss"));
    // 3 deletions, 2 swaps, 3·25 substitutions, 4·26 insertions (duplicates kept).
    assert_eq!(n.len(), 3 + 2 + 3 * 25 + 4 * 26);
    // A word's listed neighbours take in all of its one-edit strings.
    let all = neighbours("cat");
    assert!(n.iter().all(|v| all.contains(v)));
}

#[test]
fn tables_that_do_not_fit_are_refused() {
    let regions = synthetic();
    let tiles = Tiles::new(regions.grid());
    let classes = Classes::from_assignment((0..WORDS).map(|r| (r % K) as u8).collect()).unwrap();
    let short = vec![0u16; tiles.count() as usize - 1];
    assert!(matches!(
        Scheme::new(regions.clone(), short, classes.clone()),
        Err(SchemeError::Tiles { .. })
    ));
    let mut bad = vec![0u16; tiles.count() as usize];
    bad[3] = SIGNATURES as u16;
    assert!(matches!(
        Scheme::new(regions.clone(), bad, classes.clone()),
        Err(SchemeError::Signature { .. })
    ));
    // Every tile in one signature: far more squares than its triples.
    let one = vec![0u16; tiles.count() as usize];
    assert!(matches!(
        Scheme::new(regions, one, classes),
        Err(SchemeError::Full { .. })
    ));
}

/// The square of rank `rank` among the columns of region `k` of band `b` from `c0` on, run by
/// run (what [`Columns`] answers by binary search).
fn nth_by_runs(
    regions: &Regions,
    b: u32,
    (c0, c1): (u32, u32),
    k: u8,
    mut rank: u64,
) -> Option<u32> {
    let runs = regions.band_runs(b);
    let n = regions.grid().columns(b);
    for (i, run) in runs.iter().enumerate() {
        let start = run.start.max(c0);
        let end = runs.get(i + 1).map_or(n, |r| r.start).min(c1);
        if run.region != k || end <= start {
            continue;
        }
        if rank < u64::from(end - start) {
            return Some(start + rank as u32);
        }
        rank -= u64::from(end - start);
    }
    None
}

#[test]
fn kept_column_counts_agree_with_the_runs() {
    let s = scheme();
    let (regions, tiles) = (s.regions(), s.tiles());
    let columns = Columns::new(regions);
    let (widths, counts) = TileWidths::new(regions, tiles, &columns);
    let mut kinds = [0usize; 3];
    for t in 0..tiles.count() {
        let expected = tile_counts(regions, tiles, t);
        assert_eq!(counts[t as usize], expected, "tile {t}");
        let (r, j) = tiles.row_col(t);
        let (b0, b1) = tiles.bands(r);
        match widths.kinds(t, b1 - b0) {
            TileKinds::Only(k) => {
                kinds[0] += 1;
                let total: u64 = expected.iter().sum();
                assert_eq!(expected[usize::from(k)], total, "tile {t}");
            }
            TileKinds::Widths(w) => {
                kinds[1] += 1;
                for (b, c) in (b0..b1).zip(w) {
                    let range = tiles.col_range_at(r, j, b);
                    for (k, w) in c.iter().enumerate() {
                        assert_eq!(
                            u32::from(*w),
                            kind_columns(regions, b, range, k as u8),
                            "tile {t} band {b}"
                        );
                    }
                }
            }
            TileKinds::Runs => kinds[2] += 1,
        }
    }
    // The synthetic world has tiles of one region and tiles of several.
    assert!(kinds[0] > 0 && kinds[1] > 0, "{kinds:?}");
    let mut rng = Rng(11);
    for _ in 0..20_000 {
        let b = rng.below(u64::from(BANDS)) as u32;
        let n = regions.grid().columns(b);
        let (x, y) = (
            rng.below(u64::from(n) + 1) as u32,
            rng.below(u64::from(n) + 1) as u32,
        );
        let range = (x.min(y), x.max(y));
        for k in 0..KINDS as u8 {
            let w = kind_columns(regions, b, range, k);
            assert_eq!(
                columns.count(regions, b, range, k),
                w,
                "band {b} {range:?} kind {k}"
            );
            for rank in [0, u64::from(w / 2), u64::from(w.saturating_sub(1))] {
                if rank < u64::from(w) {
                    assert_eq!(
                        columns.nth(regions, b, range.0, k, rank),
                        nth_by_runs(regions, b, range, k, rank),
                        "band {b} {range:?} kind {k} rank {rank}"
                    );
                }
            }
        }
    }
}

#[test]
fn each_edit_gives_one_edit_in_order() {
    for w in ["", "a", "cat", "index", "raft", "aa", "zebra"] {
        let mut seen = Vec::new();
        each_edit(w, |v| seen.push(v.to_string()));
        let mut by_copy = Vec::new();
        let b = w.as_bytes();
        for i in 0..b.len() {
            let mut v = b.to_vec();
            v.remove(i);
            by_copy.push(v);
        }
        for i in 0..b.len().saturating_sub(1) {
            let mut v = b.to_vec();
            v.swap(i, i + 1);
            by_copy.push(v);
        }
        for i in 0..b.len() {
            for c in b'a'..=b'z' {
                if c != b[i] {
                    let mut v = b.to_vec();
                    v[i] = c;
                    by_copy.push(v);
                }
            }
        }
        for i in 0..=b.len() {
            for c in b'a'..=b'z' {
                let mut v = b.to_vec();
                v.insert(i, c);
                by_copy.push(v);
            }
        }
        let by_copy: Vec<String> = by_copy
            .into_iter()
            .map(|v| String::from_utf8(v).unwrap())
            .filter(|v| v != w)
            .collect();
        assert_eq!(seen, by_copy, "{w}");
        assert_eq!(one_edit(w), by_copy, "{w}");
    }
}
