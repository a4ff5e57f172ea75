#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use proptest::prelude::*;

use super::*;
use crate::grid::{BANDS, Grid, ROWS};
use crate::regions::{LAND, POPULATED, Run, SEA};

/// A made-up world: in every band, land over a third of the longitudes with a populated
/// stretch in it, and more runs towards the middle bands.
fn synthetic() -> SchemeV2 {
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
    SchemeV2::new(Regions::new(grid, bands).unwrap()).unwrap()
}

fn scheme() -> &'static SchemeV2 {
    static S: std::sync::OnceLock<SchemeV2> = std::sync::OnceLock::new();
    S.get_or_init(synthetic)
}

#[test]
fn the_grid_has_57_trillion_squares_of_about_3_m() {
    let g = Grid::computed();
    let squares = g.squares();
    assert!((56_000_000_000_000..57_000_000_000_000).contains(&squares));
    assert!(squares < WORDS * WORDS * WORDS);
    for lat in [-89.99, -85.0, -60.0, 0.0, 1.0, 45.0, 51.5, 85.0, 89.99] {
        let s = g.square(lat, 10.0).unwrap();
        let [south, west, north, east] = g.bounds(s);
        let h = (north - south) * 111_195.0;
        let w = (east - west) * 111_195.0 * ((south + north) / 2.0).to_radians().cos();
        assert!((2.99..3.01).contains(&h), "{lat}: height {h}");
        // Columns are 3 m wide at each band's centre line: within 0.5 % up to 85°, and the
        // polar bands' squares (where the cosine changes fast) stay between 2 and 4 m.
        let width = if lat.abs() <= 85.0 {
            2.985..3.015
        } else {
            2.0..4.0
        };
        assert!(width.contains(&w), "{lat}: width {w}");
        assert!((south..north).contains(&lat));
    }
    assert_eq!(g.square(90.0, 0.0).unwrap().row, ROWS - 1);
    assert_eq!(
        g.square(-90.0, -180.0).unwrap(),
        g.square(-90.0, 180.0).unwrap()
    );
    assert!(g.square(90.5, 0.0).is_none());
    assert!(g.square(f64::NAN, 0.0).is_none());
}

#[test]
fn the_column_table_is_pinned() {
    assert_eq!(Grid::computed().digest(), grid::COLUMNS_SHA256);
    assert!(Grid::v1().is_ok());
}

#[test]
fn bad_region_tables_are_refused() {
    let g = Grid::computed();
    let sea = |start| Run { start, region: SEA };
    assert!(matches!(
        Regions::new(g.clone(), vec![vec![sea(0)]]),
        Err(regions::RegionError::Bands { .. })
    ));
    let mut bands: Vec<Vec<Run>> = (0..BANDS).map(|_| vec![sea(0)]).collect();
    bands[5] = vec![sea(1)];
    assert!(Regions::new(g.clone(), bands.clone()).is_err());
    bands[5] = vec![sea(0), sea(10)];
    assert!(Regions::new(g.clone(), bands.clone()).is_err());
    bands[5] = vec![
        sea(0),
        Run {
            start: u32::MAX,
            region: LAND,
        },
    ];
    assert!(Regions::new(g.clone(), bands.clone()).is_err());
    bands[5] = vec![Run {
        start: 0,
        region: 7,
    }];
    assert!(Regions::new(g, bands).is_err());
}

#[test]
fn populated_squares_take_the_first_words() {
    let s = scheme();
    let t0 = s.offset(1);
    let m = shell::icbrt(t0 - 1) + 1;
    let g = s.regions().grid();
    let mut populated = 0;
    for i in 0..20_000u32 {
        let lat = -80.0 + f64::from(i % 160);
        let lng = -180.0 + f64::from(i) * 0.018;
        let sq = g.square(lat, lng).unwrap();
        let ranks = s.triple(sq);
        if s.regions().region(sq) == POPULATED {
            populated += 1;
            assert!(ranks.iter().all(|&r| r < m), "{ranks:?} ≥ {m}");
        }
    }
    assert!(populated > 100);
}

#[test]
fn every_region_boundary_round_trips() {
    let s = scheme();
    let g = s.regions().grid();
    for b in [0, 1, 2000, 3335, 3336, BANDS - 1] {
        let runs = s.regions().band_runs(b);
        for (i, r) in runs.iter().enumerate() {
            let end = runs.get(i + 1).map_or(g.columns(b), |n| n.start);
            for col in [r.start, end - 1] {
                for row in [b * 1000, b * 1000 + 999] {
                    let sq = grid::Square { row, col };
                    assert_eq!(s.square(s.triple(sq)), Some(sq));
                }
            }
        }
    }
}

#[test]
fn numbers_past_the_squares_are_not_addresses() {
    let s = scheme();
    assert!(s.square_of_number(s.squares()).is_none());
    assert!(s.square([WORDS - 1, WORDS - 1, WORDS - 1]).is_none());
    assert!(s.square([WORDS, 0, 0]).is_none());
    assert!(s.square_of_number(s.squares() - 1).is_some());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn coordinates_round_trip(lat in -90.0f64..=90.0, lng in -180.0f64..180.0) {
        let s = scheme();
        let g = s.regions().grid();
        let sq = g.square(lat, lng).unwrap();
        let back = s.square(s.triple(sq)).unwrap();
        prop_assert_eq!(back, sq);
        let [south, west, north, east] = g.bounds(back);
        prop_assert!(south <= lat && lat <= north && west <= lng && lng <= east);
    }

    #[test]
    fn addresses_round_trip(t in 0u64..56_000_000_000_000) {
        let s = scheme();
        let sq = s.square_of_number(t).unwrap();
        prop_assert!(s.regions().grid().contains(sq));
        prop_assert_eq!(s.number(sq), t);
    }
}
