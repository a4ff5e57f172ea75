//! The country of a point is read from the outlines through an index of their edges by
//! latitude; it must be what the whole outlines say: the even-odd rule over every edge of the
//! outline.
use waymark_core::geo::Pt;
use waymark_threewords::codec::decode_polygons;

use super::fixture;

/// `(code, bbox [west, south, east, north], edges (lng0, lat0, lng1, lat1))` of every outline
/// of the layer with an edge that is not horizontal, in the pack's order, as the index reads
/// them (`f32` edges).
type Outline = (String, [f64; 4], Vec<[f32; 4]>);

fn outlines() -> Vec<Outline> {
    let f = fixture();
    let conn = rusqlite::Connection::open(f._dir.path().join("built/words-1/data.sqlite")).unwrap();
    let mut stmt = conn
        .prepare("SELECT country_code, shape FROM threewords_countries ORDER BY id")
        .unwrap();
    let rows: Vec<(String, Vec<u8>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    rows.into_iter()
        .filter_map(|(code, blob)| {
            let mut bbox = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
            let mut edges = Vec::new();
            for ring in decode_polygons(&blob).unwrap().iter().flatten() {
                for w in ring.windows(2) {
                    let ((x0, y0), (x1, y1)) = (w[0], w[1]);
                    bbox = [
                        bbox[0].min(x0),
                        bbox[1].min(y0),
                        bbox[2].max(x0),
                        bbox[3].max(y0),
                    ];
                    if y0 != y1 {
                        edges.push([x0 as f32, y0 as f32, x1 as f32, y1 as f32]);
                    }
                }
            }
            (!edges.is_empty()).then_some((code, bbox, edges))
        })
        .collect()
}

/// Whether the whole outline holds `p`: even-odd over all its edges.
fn holds(outline: &Outline, p: Pt) -> bool {
    let [w, s, e, n] = outline.1;
    if !(p.lng >= w && p.lng <= e && p.lat >= s && p.lat <= n) {
        return false;
    }
    let (x, y) = (p.lng as f32, p.lat as f32);
    let mut inside = false;
    for &[x0, y0, x1, y1] in &outline.2 {
        if (y0 > y) != (y1 > y) && x < x0 + (y - y0) / (y1 - y0) * (x1 - x0) {
            inside = !inside;
        }
    }
    inside
}

#[test]
fn the_country_of_a_point_is_what_the_whole_outlines_say() {
    let f = fixture();
    let outlines = outlines();
    assert_eq!(outlines.len(), f.index.countries.len());
    for (o, c) in outlines.iter().zip(&f.index.countries) {
        assert_eq!(o.0, c.code);
    }
    let mut rng = waymark_tests::Rng::new(23);
    // Points anywhere, points on land (a vertex of an outline moved a little), and points
    // next to the latitudes where the edge index cuts its lookups (every 1/32 degree), on
    // either side of one by less than a latitude moves when rounded to `f32`.
    let mut points: Vec<Pt> = (0..1_000)
        .map(|_| {
            let (lat, lng) = rng.sphere_point();
            Pt::new(lat, lng)
        })
        .collect();
    for _ in 0..1_000 {
        let o = &outlines[rng.below(outlines.len())];
        let e = o.2[rng.below(o.2.len())];
        points.push(Pt::new(
            f64::from(e[1]) + (rng.unit() - 0.5) * 0.2,
            f64::from(e[0]) + (rng.unit() - 0.5) * 0.2,
        ));
    }
    for _ in 0..1_000 {
        let o = &outlines[rng.below(outlines.len())];
        let e = o.2[rng.below(o.2.len())];
        // A cut that is not a multiple of 0.25 degree, near the edge.
        let mut cut = (f64::from(e[1]) * 32.0).round();
        if cut.rem_euclid(8.0) == 0.0 {
            cut += 1.0;
        }
        let lat = cut / 32.0 + (rng.unit() - 0.5) * 8e-6;
        points.push(Pt::new(lat, f64::from(e[0]) + (rng.unit() - 0.5) * 0.5));
    }
    let mut on_land = 0;
    for p in points {
        let mut holding = Vec::new();
        for (o, c) in outlines.iter().zip(&f.index.countries) {
            let held = holds(o, p);
            assert_eq!(c.contains(p), held, "{} at {p:?}", o.0);
            if held {
                holding.push(o.0.as_str());
            }
        }
        let got = f.index.country_at(p);
        if holding.is_empty() {
            assert_eq!(got, "ZZ", "{p:?}");
        } else {
            on_land += 1;
            assert!(holding.contains(&got), "{got} at {p:?}: {holding:?}");
        }
    }
    assert!(on_land > 1_000, "{on_land} points on land");
}

/// Outlines that cross the antimeridian (Russia's Chukotka, Fiji) are stored as pieces of the
/// plane: read whole, such a ring ran the other way round the world and put every point of its
/// latitudes, from Canada to Greenland, in Russia.
#[test]
fn outlines_across_the_antimeridian_keep_to_their_side() {
    for (lat, lng, want) in [
        (70.0, -40.0, "GL"),
        (66.0, -45.0, "GL"),
        (65.0, -100.0, "CA"),
        (64.0, -110.0, "CA"),
        (65.0, -150.0, "US"),
        (68.8, 100.0, "RU"),
        (65.0, 120.0, "RU"),
        (66.0, 175.0, "RU"),
        (-17.8, 178.0, "FJ"),
        (0.0, -160.0, "ZZ"),
    ] {
        let got = super::convert(lat, lng).country;
        assert_eq!(got, want, "{lat},{lng}");
    }
}
