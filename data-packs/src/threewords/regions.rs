//! The region table of scheme v1 (ADR 0003 §2): for each band of the grid, runs of columns
//! that are populated (within 50 km of a GeoNames place of ≥ 1,000 people), land (inside a
//! Natural Earth 1:10m country) or sea, decided along the band's centre line.
//!
//! Land: every ring edge of every country polygon that crosses a band's centre latitude gives
//! a crossing longitude; per polygon, crossings sorted and paired (even-odd, so holes are
//! holes) are its land intervals on that line; the union over polygons is the land. Populated:
//! each place adds the interval of the centre line within 50 km of it. A column belongs to the
//! interval holding its centre longitude.
//!
//! Scheme version 3 (ADR 0009 rule 5) adds a fourth region, dense: each place of at least
//! [`DENSE_MIN_POPULATION`] people adds the interval of the centre line within
//! `r = √(P / (π · DENSE_PEOPLE_PER_KM2))` of it (the disc that holds its P people at that
//! density), over whatever region lies there. The version 2 table ([`build`]) has no dense
//! run; [`build_v3`] is the same table with the dense intervals laid over it.
use std::collections::HashMap;

use waymark_threewords::grid::{BANDS, Grid, ROWS_PER_BAND, row_height};
use waymark_threewords::regions::{DENSE, LAND, POPULATED, Regions, Run, SEA};

use crate::topojson::Shape;

/// Radius around a place that makes the populated region, km.
pub const POPULATED_RADIUS_KM: f64 = 50.0;
/// Smallest population of a place that makes the populated region.
pub const POPULATED_MIN_POPULATION: i64 = 1_000;
/// Smallest population of a place that makes the dense region (scheme version 3).
pub const DENSE_MIN_POPULATION: i64 = 10_000;
/// People per km² of the disc a place's dense region covers (scheme version 3).
pub const DENSE_PEOPLE_PER_KM2: f64 = 2_000.0;
/// Kilometres per degree of latitude (mean Earth radius 6,371.0088 km).
const KM_PER_DEGREE: f64 = 6_371.008_8 * std::f64::consts::PI / 180.0;

/// A place of the gazetteer: latitude, longitude, population.
pub type Place = (f64, f64, i64);

/// Latitude of the centre line of band `b`.
pub fn band_centre(b: u32) -> f64 {
    -90.0 + (f64::from(b) + 0.5) * row_height() * f64::from(ROWS_PER_BAND)
}

/// Longitude intervals `[from, to)`, merged.
fn union(mut intervals: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    intervals.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(intervals.len());
    for (a, b) in intervals {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// The land intervals of every band's centre line.
fn land(shapes: &[Shape]) -> Vec<Vec<(f64, f64)>> {
    let h = row_height() * f64::from(ROWS_PER_BAND);
    // (band, polygon) → crossings.
    let mut crossings: HashMap<(u32, usize), Vec<f64>> = HashMap::new();
    let mut polygon_id = 0usize;
    for shape in shapes {
        for polygon in &shape.polygons {
            for ring in polygon {
                for edge in ring.windows(2) {
                    let ((x0, y0), (x1, y1)) = (edge[0], edge[1]);
                    let (lo, hi) = (y0.min(y1), y0.max(y1));
                    // Bands whose centre line lies in [lo, hi).
                    let first = ((lo + 90.0) / h - 0.5).ceil().max(0.0) as u32;
                    let mut b = first;
                    while b < BANDS {
                        let phi = band_centre(b);
                        if phi >= hi {
                            break;
                        }
                        if phi >= lo {
                            let x = x0 + (phi - y0) / (y1 - y0) * (x1 - x0);
                            crossings.entry((b, polygon_id)).or_default().push(x);
                        }
                        b += 1;
                    }
                }
            }
            polygon_id += 1;
        }
    }
    let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new(); BANDS as usize];
    for ((b, _), mut xs) in crossings {
        xs.sort_by(f64::total_cmp);
        out[b as usize].extend(xs.chunks_exact(2).map(|p| (p[0], p[1])));
    }
    out.into_iter().map(union).collect()
}

/// The radius of a place's dense disc, km: `√(P / (π · DENSE_PEOPLE_PER_KM2))`, `None`
/// below [`DENSE_MIN_POPULATION`].
pub fn dense_radius_km(population: i64) -> Option<f64> {
    (population >= DENSE_MIN_POPULATION)
        .then(|| (population as f64 / (std::f64::consts::PI * DENSE_PEOPLE_PER_KM2)).sqrt())
}

/// The populated intervals of every band's centre line.
fn populated(places: &[Place]) -> Vec<Vec<(f64, f64)>> {
    discs(places, |population| {
        (population >= POPULATED_MIN_POPULATION).then_some(POPULATED_RADIUS_KM)
    })
}

/// The intervals of every band's centre line within `radius(population)` km of a place
/// (no interval where it is `None`).
fn discs(places: &[Place], radius: impl Fn(i64) -> Option<f64>) -> Vec<Vec<(f64, f64)>> {
    let h = row_height() * f64::from(ROWS_PER_BAND);
    let mut out: Vec<Vec<(f64, f64)>> = vec![Vec::new(); BANDS as usize];
    for &(lat, lng, population) in places {
        if !lat.is_finite() || !lng.is_finite() {
            continue;
        }
        let Some(r) = radius(population) else {
            continue;
        };
        let dlat = r / KM_PER_DEGREE;
        let first = ((lat - dlat + 90.0) / h - 0.5).ceil().max(0.0) as u32;
        for b in first..BANDS {
            let phi = band_centre(b);
            let dy = (phi - lat) * KM_PER_DEGREE;
            if dy > r {
                break;
            }
            if dy.abs() > r {
                continue;
            }
            let cos = phi.to_radians().cos().max(1e-9);
            let half = ((r * r - dy * dy).sqrt() / (KM_PER_DEGREE * cos)).min(180.0);
            let (a, z) = (lng - half, lng + half);
            let band = &mut out[b as usize];
            // Wrap across the antimeridian.
            if a < -180.0 {
                band.push((a + 360.0, 180.0));
                band.push((-180.0, z));
            } else if z > 180.0 {
                band.push((a, 180.0));
                band.push((-180.0, z - 360.0));
            } else {
                band.push((a, z));
            }
        }
    }
    out.into_iter().map(union).collect()
}

/// The columns `[first, end)` of a band of `n` columns whose centres lie in `[a, b)`.
fn columns(n: u32, (a, b): (f64, f64)) -> (u32, u32) {
    let w = 360.0 / f64::from(n);
    let at = |x: f64| (((x + 180.0) / w - 0.5).ceil().clamp(0.0, f64::from(n))) as u32;
    (at(a), at(b))
}

/// The runs of one band from its land, populated and dense intervals.
fn band_runs(
    n: u32,
    land: &[(f64, f64)],
    populated: &[(f64, f64)],
    dense: &[(f64, f64)],
) -> Vec<Run> {
    // Region of each boundary: +1/-1 events on three layers.
    let mut events: Vec<(u32, [i32; 3])> = Vec::new();
    for (layer, intervals) in [land, populated, dense].into_iter().enumerate() {
        for &iv in intervals {
            let (a, b) = columns(n, iv);
            if a < b {
                let mut up = [0; 3];
                up[layer] = 1;
                events.push((a, up));
                events.push((b, up.map(|d| -d)));
            }
        }
    }
    events.sort_unstable();
    let mut runs = vec![Run {
        start: 0,
        region: SEA,
    }];
    let mut inside = [0i32; 3];
    let mut i = 0;
    while i < events.len() {
        let col = events[i].0;
        while i < events.len() && events[i].0 == col {
            for (d, e) in inside.iter_mut().zip(events[i].1) {
                *d += e;
            }
            i += 1;
        }
        if col >= n {
            break;
        }
        let region = match inside.map(|d| d > 0) {
            [_, _, true] => DENSE,
            [_, true, false] => POPULATED,
            [true, false, false] => LAND,
            [false, false, false] => SEA,
        };
        let last = runs.len() - 1;
        if runs[last].region == region {
            continue;
        }
        if runs[last].start == col {
            runs[last].region = region;
            // Merge with the run before when they now agree.
            if last > 0 && runs[last - 1].region == region {
                runs.pop();
            }
        } else {
            runs.push(Run { start: col, region });
        }
    }
    runs
}

/// The region table of scheme version 2 from the country shapes and the gazetteer.
pub fn build(grid: Grid, countries: &[Shape], places: &[Place]) -> Result<Regions, String> {
    table(grid, countries, places, false)
}

/// The region table of scheme version 3: version 2's with the dense region laid over it.
pub fn build_v3(grid: Grid, countries: &[Shape], places: &[Place]) -> Result<Regions, String> {
    table(grid, countries, places, true)
}

fn table(
    grid: Grid,
    countries: &[Shape],
    places: &[Place],
    dense: bool,
) -> Result<Regions, String> {
    let land = land(countries);
    let populated = populated(places);
    let dense = if dense {
        discs(places, dense_radius_km)
    } else {
        vec![Vec::new(); BANDS as usize]
    };
    let bands = (0..BANDS)
        .map(|b| {
            let b = b as usize;
            band_runs(grid.columns(b as u32), &land[b], &populated[b], &dense[b])
        })
        .collect();
    Regions::new(grid, bands).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn runs_from_intervals() {
        let n = 3600; // 0.1° columns
        let runs = band_runs(n, &[(0.0, 10.0), (5.0, 20.0)], &[(15.0, 30.0)], &[]);
        assert_eq!(
            runs,
            vec![
                Run {
                    start: 0,
                    region: SEA
                },
                Run {
                    start: 1800,
                    region: LAND
                },
                Run {
                    start: 1950,
                    region: POPULATED
                },
                Run {
                    start: 2100,
                    region: SEA
                },
            ]
        );
        // Nothing: one sea run; populated from column 0.
        assert_eq!(band_runs(n, &[], &[], &[]).len(), 1);
        let r = band_runs(n, &[], &[(-180.0, -179.0)], &[]);
        assert_eq!(
            r[0],
            Run {
                start: 0,
                region: POPULATED
            }
        );
    }

    #[test]
    fn a_square_country_and_a_town() {
        let shape = Shape {
            id: Some("1".into()),
            name: None,
            polygons: vec![vec![vec![
                (0.0, 0.0),
                (10.0, 0.0),
                (10.0, 10.0),
                (0.0, 10.0),
                (0.0, 0.0),
            ]]],
        };
        let grid = Grid::computed();
        let r = build(
            grid.clone(),
            &[shape],
            &[(5.0, 5.0, 5_000), (-40.0, 100.0, 10)],
        )
        .unwrap();
        let at = |lat: f64, lng: f64| r.region(grid.square(lat, lng).unwrap());
        assert_eq!(at(5.0, 5.0), POPULATED);
        assert_eq!(at(5.0, 5.4), POPULATED);
        assert_eq!(at(5.0, 5.5), LAND);
        assert_eq!(at(9.0, 9.0), LAND);
        assert_eq!(at(11.0, 5.0), SEA);
        assert_eq!(at(-40.0, 100.0), SEA, "too small a place");
        assert!(r.squares(0) > 0);
    }

    #[test]
    fn a_city_makes_a_dense_disc_in_version_3_only() {
        let square = Shape {
            id: Some("1".into()),
            name: None,
            polygons: vec![vec![vec![
                (0.0, 0.0),
                (10.0, 0.0),
                (10.0, 10.0),
                (0.0, 10.0),
                (0.0, 0.0),
            ]]],
        };
        // 1,000,000 people at 2,000 per km²: a disc of 12.6 km; a town of 9,999: none.
        let r_km = dense_radius_km(1_000_000).unwrap();
        assert!((r_km - 12.616).abs() < 0.01, "{r_km}");
        assert_eq!(dense_radius_km(DENSE_MIN_POPULATION - 1), None);
        let places = [
            (5.0, 5.0, 1_000_000),
            (2.0, 2.0, 9_999),
            (5.0, -20.0, 50_000),
        ];
        let grid = Grid::computed();
        let v2 = build(grid.clone(), std::slice::from_ref(&square), &places).unwrap();
        let v3 = build_v3(grid.clone(), &[square], &places).unwrap();
        let at = |r: &Regions, lat: f64, lng: f64| r.region(grid.square(lat, lng).unwrap());
        assert_eq!(at(&v2, 5.0, 5.0), POPULATED);
        assert_eq!(v2.squares(usize::from(DENSE)), 0);
        assert_eq!(at(&v3, 5.0, 5.0), DENSE);
        // 0.1° of longitude ≈ 11.1 km is inside the disc; 0.14° of latitude ≈ 15.6 km (less
        // half a 3 km band) is outside.
        assert_eq!(at(&v3, 5.0, 5.1), DENSE);
        assert_eq!(at(&v3, 5.14, 5.0), POPULATED);
        assert_eq!(at(&v3, 5.0, 5.5), LAND);
        assert_eq!(at(&v3, 2.0, 2.0), POPULATED, "too small for a dense disc");
        // Over the sea, too.
        assert_eq!(at(&v3, 5.0, -20.0), DENSE);
        // Outside the dense discs the tables agree.
        for (lat, lng) in [(5.0, 5.3), (9.0, 9.0), (11.0, 5.0), (2.0, 2.0)] {
            assert_eq!(at(&v2, lat, lng), at(&v3, lat, lng), "{lat},{lng}");
        }
    }
}
