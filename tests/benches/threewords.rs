//! Three-word addresses on the real three-word layer (built from the pinned sources into a
//! small pack): `cargo bench -p waymark-tests --bench threewords`.
//!
//! Before the criterion groups, each case is timed call by call and its p50 / p95 / p99
//! printed, since the targets are percentiles: the scheme both ways (coordinate → word ranks,
//! word ranks → square), convert both ways and autosuggest through the engine, autosuggest with a focus
//! and with each clip kind (the third word typed to one, two and three letters).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use waymark_core::api::*;
use waymark_core::operation::Credentials;
use waymark_core::threewords::ThreeWordsIndex;

/// Builds the request of call `i` with the third word typed to `letters` letters.
type MakeRequest<'a> = Box<dyn Fn(usize, usize) -> AutosuggestRequest + 'a>;

/// Deterministic points, uniform on the sphere.
fn points(n: usize) -> Vec<(f64, f64)> {
    let mut rng = waymark_tests::Rng::new(42);
    (0..n).map(|_| rng.sphere_point()).collect()
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let (engine, publisher) =
        waymark_tests::engine_with_pack(&waymark_tests::threewords_plan(), tmp.path());
    eprintln!(
        "three-word layer build (word list, region table, places, outlines) + sign + install: {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let db = tmp.path().join("built/words-1/data.sqlite");
    let index = ThreeWordsIndex::read(&rusqlite::Connection::open(db).unwrap()).unwrap();
    let started = std::time::Instant::now();
    let loaded = ThreeWordsIndex::read(
        &rusqlite::Connection::open(tmp.path().join("built/words-1/data.sqlite")).unwrap(),
    )
    .unwrap();
    eprintln!(
        "three-word layer load (first request): {:.0} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    drop(loaded);
    let caller = waymark_tests::private_caller(&publisher);
    let creds = Credentials::Http(&caller);
    let pts = points(10_000);
    let grid = index.grid().clone();
    let squares: Vec<_> = pts
        .iter()
        .map(|&(a, b)| grid.square(a, b).unwrap())
        .collect();
    let triples: Vec<[u64; 3]> = squares.iter().map(|&s| index.scheme.triple(s)).collect();

    waymark_tests::time_percentiles("scheme: coordinate -> word ranks", 10_000, |i| {
        let (lat, lng) = pts[i];
        black_box(index.scheme.triple(grid.square(lat, lng).unwrap()));
    });
    waymark_tests::time_percentiles("scheme: word ranks -> square", 10_000, |i| {
        black_box(index.scheme.square(triples[i]).unwrap());
    });
    let convert = |i: usize| ConvertTo3waRequest {
        coordinates: LatLng::new(pts[i].0, pts[i].1),
        ..Default::default()
    };
    waymark_tests::time_percentiles("convert-to-3wa through the engine", 5_000, |i| {
        black_box(engine.call(&creds, convert(i)).unwrap());
    });
    let words: Vec<String> = (0..300)
        .map(|i| match engine.call(&creds, convert(i)).unwrap() {
            ConvertTo3waResponse::Json(a) => a.words,
            ConvertTo3waResponse::GeoJson(_) => unreachable!(),
        })
        .collect();
    let back = |i: usize| ConvertToCoordinatesRequest {
        words: words[i % words.len()].clone(),
        ..Default::default()
    };
    waymark_tests::time_percentiles("convert-to-coordinates through the engine", 5_000, |i| {
        black_box(engine.call(&creds, back(i)).unwrap());
    });
    let typed = |i: usize, letters: usize| {
        let (head, last) = words[i % words.len()].rsplit_once('.').unwrap();
        format!("{head}.{}", &last[..letters.min(last.len())])
    };
    let focus = |i: usize| Some(LatLng::new(pts[i % 300].0, pts[i % 300].1));
    let cases: Vec<(&str, MakeRequest)> = vec![
        (
            "no focus",
            Box::new(|i, l| AutosuggestRequest {
                input: typed(i, l),
                ..Default::default()
            }),
        ),
        (
            "focus",
            Box::new(|i, l| AutosuggestRequest {
                input: typed(i, l),
                focus: focus(i),
                ..Default::default()
            }),
        ),
        (
            "clip-to-country GB",
            Box::new(|i, l| AutosuggestRequest {
                input: typed(i, l),
                clip_to_country: vec!["GB".into()],
                ..Default::default()
            }),
        ),
        (
            "clip-to-bounding-box",
            Box::new(|i, l| AutosuggestRequest {
                input: typed(i, l),
                clip_to_bounding_box: Some(Viewport {
                    southwest: LatLng::new(40.0, -10.0),
                    northeast: LatLng::new(60.0, 30.0),
                }),
                ..Default::default()
            }),
        ),
        (
            "clip-to-circle",
            Box::new(|i, l| AutosuggestRequest {
                input: typed(i, l),
                clip_to_circle: Some(Circle {
                    center: LatLng::new(51.5, -0.1),
                    radius_km: 500.0,
                }),
                ..Default::default()
            }),
        ),
        (
            "clip-to-polygon",
            Box::new(|i, l| AutosuggestRequest {
                input: typed(i, l),
                clip_to_polygon: Some(vec![
                    LatLng::new(40.0, -10.0),
                    LatLng::new(40.0, 30.0),
                    LatLng::new(60.0, 30.0),
                    LatLng::new(60.0, -10.0),
                    LatLng::new(40.0, -10.0),
                ]),
                ..Default::default()
            }),
        ),
    ];
    for (name, make) in &cases {
        for letters in [1, 2, 3] {
            waymark_tests::time_percentiles(
                &format!("autosuggest, {name}, third word typed to {letters} letter(s)"),
                600,
                |i| {
                    black_box(engine.call(&creds, make(i, letters)).unwrap());
                },
            );
        }
    }

    let mut g = c.benchmark_group("threewords");
    let mut i = 0usize;
    g.bench_function("scheme coordinate -> ranks", |b| {
        b.iter(|| {
            i = (i + 1) % pts.len();
            black_box(
                index
                    .scheme
                    .triple(grid.square(pts[i].0, pts[i].1).unwrap()),
            )
        })
    });
    g.bench_function("scheme ranks -> square", |b| {
        b.iter(|| {
            i = (i + 1) % triples.len();
            black_box(index.scheme.square(triples[i]))
        })
    });
    g.bench_function("convert-to-3wa", |b| {
        b.iter(|| {
            i = (i + 1) % pts.len();
            black_box(engine.call(&creds, convert(i)).unwrap())
        })
    });
    g.bench_function("convert-to-coordinates", |b| {
        b.iter(|| {
            i = (i + 1) % words.len();
            black_box(engine.call(&creds, back(i)).unwrap())
        })
    });
    g.bench_function("autosuggest focus, 2 letters", |b| {
        b.iter(|| {
            i = (i + 1) % words.len();
            black_box(engine.call(&creds, (cases[1].1)(i, 2)).unwrap())
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
