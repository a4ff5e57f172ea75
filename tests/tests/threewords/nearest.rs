//! The nearest populated place of a point is the place of least distance of all the layer's
//! places, and of places at the same position the first in the pack's order.
use waymark_core::geo::{Pt, xyz};

use super::fixture;

/// `(name, country, position, point)` of every place of the layer, in the pack's order.
fn places() -> Vec<(String, String, [f64; 3], Pt)> {
    let f = fixture();
    let conn = rusqlite::Connection::open(f._dir.path().join("built/words-1/data.sqlite")).unwrap();
    let mut stmt = conn
        .prepare("SELECT name, country_code, lat, lng FROM threewords_places ORDER BY id")
        .unwrap();
    stmt.query_map([], |r| {
        let p = Pt::new(r.get(2)?, r.get(3)?);
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, xyz(p), p))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// The first place of least squared distance to `p`, reading every place.
fn nearest_of_all(places: &[(String, String, [f64; 3], Pt)], p: Pt) -> usize {
    let q = xyz(p);
    let mut best = (f64::INFINITY, usize::MAX);
    for (i, (_, _, x, _)) in places.iter().enumerate() {
        let d: f64 = (0..3).map(|k| (x[k] - q[k]) * (x[k] - q[k])).sum();
        if d < best.0 {
            best = (d, i);
        }
    }
    best.1
}

#[test]
fn nearest_place_is_the_nearest_of_all_and_the_first_of_places_at_one_position() {
    let f = fixture();
    let places = places();
    assert!(places.len() > 100_000, "{} places", places.len());
    let mut rng = waymark_tests::Rng::new(11);
    // Points anywhere (most at sea, far from any place), points a few hundred metres from a
    // place, and the positions that several places share.
    let mut points: Vec<Pt> = (0..300)
        .map(|_| {
            let (lat, lng) = rng.sphere_point();
            Pt::new(lat, lng)
        })
        .collect();
    for _ in 0..300 {
        let p = places[rng.below(places.len())].3;
        points.push(Pt::new(
            p.lat + (rng.unit() - 0.5) * 0.01,
            p.lng + (rng.unit() - 0.5) * 0.01,
        ));
    }
    let mut first_at = std::collections::HashMap::new();
    let mut shared = 0;
    for (_, _, x, p) in &places {
        if first_at.insert(x.map(f64::to_bits), ()).is_some() {
            points.push(*p);
            shared += 1;
        }
    }
    assert!(shared >= 10, "{shared} shared positions");
    for p in points {
        let want = &places[nearest_of_all(&places, p)];
        let got = f.index.nearest_place(p).unwrap();
        assert_eq!((&got.name, &got.country), (&want.0, &want.1), "{p:?}");
    }
}
