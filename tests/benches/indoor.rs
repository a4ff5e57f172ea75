//! Indoor venues on the real indoor layers of the sample extracts:
//! `cargo bench -p waymark-tests --bench indoor`.
//!
//! First the indoor layer (venues and features; a venue's walkable graph is built when it is
//! read) of every sample pack is built and timed; then, on the largest sample venue (the
//! München Stachus mall and station, by features), directions between random pairs of its POIs
//! (default and wheelchair, and from outdoor points walked in from the street) and POI search
//! (typed names with typos, alphabetical lists, filters) and the venue list (near a point,
//! which venue holds it, by name) are timed call by call through
//! `Engine::call`, with p50 / p95 / p99 printed before criterion's groups, since the targets
//! are percentiles.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use waymark_core::api::*;
use waymark_core::operation::Credentials;

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    // Indoor layer of every region sample pack.
    let started = std::time::Instant::now();
    let mut venues = 0;
    let mut indoor_ms = 0u64;
    for plan in waymark_packs::build::sample_plans() {
        if plan.base {
            continue;
        }
        let mut plan = plan;
        plan.layers = vec![
            waymark_core::packs::schema::layers::ROADS.to_string(),
            waymark_core::packs::schema::layers::INDOOR.to_string(),
        ];
        let dir = waymark_packs::build::build_pack(
            &plan,
            "1",
            &waymark_tests::sources(),
            &tmp.path().join("all"),
            false,
            &mut |_, _, _| {},
        )
        .unwrap();
        let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM indoor_venues", [], |r| r.get(0))
            .unwrap();
        venues += n;
        let stats: String = conn
            .query_row(
                "SELECT value FROM meta WHERE key = 'stats:indoor'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
        indoor_ms += stats["indoor_ms"].as_u64().unwrap();
    }
    eprintln!(
        "roads + indoor layers of the 8 region sample packs (read OSM, roads, venues, features, \
         {venues} venues; graphs are built when a venue is read): {:.2} s, of which the indoor layer (venues, features) {:.2} s",
        started.elapsed().as_secs_f64(),
        indoor_ms as f64 / 1e3
    );

    let (engine, publisher, dirs) = waymark_tests::engine_with_packs(
        &[waymark_tests::indoor_plan("munchen")],
        &tmp.path().join("one"),
    );
    let caller = waymark_tests::private_caller(&publisher);
    let creds = Credentials::Http(&caller);
    // The largest venue by feature count (its graph is built when it is read).
    let conn = rusqlite::Connection::open(dirs[0].join("data.sqlite")).unwrap();
    let venue: String = conn
        .query_row(
            "SELECT venue_id FROM indoor_features GROUP BY venue_id ORDER BY count(*) DESC LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let started = std::time::Instant::now();
    let data = waymark_core::indoor::read_venue(&conn, &venue).unwrap();
    let g = data.graph.as_ref().unwrap();
    eprintln!(
        "venue {venue}: {} features, graph {} nodes / {} edges / {} areas; load + index {:.1} ms",
        data.features.len(),
        g.nodes.len(),
        g.edges.len(),
        g.areas.len(),
        started.elapsed().as_secs_f64() * 1e3
    );
    let pois: Vec<i64> = g.pois.iter().map(|(id, _)| *id).collect();
    let mut rng = waymark_tests::Rng::new(19);
    let pairs: Vec<(i64, i64)> = (0..2_000)
        .map(|_| (pois[rng.below(pois.len())], pois[rng.below(pois.len())]))
        .collect();
    let directions = |i: usize, mode: &str| IndoorDirectionsRequest {
        venue_id: venue.clone(),
        origin: IndoorPoint::PoiId(pairs[i].0),
        destination: IndoorPoint::PoiId(pairs[i].1),
        mode: Some(mode.to_owned()),
        ..Default::default()
    };
    // warm the venue
    engine.call(&creds, directions(0, "default")).unwrap();
    waymark_tests::time_percentiles("directions, default, POI to POI", 2_000, |i| {
        black_box(engine.call(&creds, directions(i, "default")).unwrap());
    });
    waymark_tests::time_percentiles("directions, wheelchair, POI to POI", 2_000, |i| {
        black_box(engine.call(&creds, directions(i, "wheelchair")).unwrap());
    });
    // lat,lng,level points: the POIs' own anchors
    let at: Vec<IndoorPoint> = g
        .pois
        .iter()
        .map(|(_, n)| {
            let node = &g.nodes[*n as usize];
            IndoorPoint::Coords {
                lat: node.lat,
                lng: node.lng,
                level: node.level,
            }
        })
        .collect();
    waymark_tests::time_percentiles("directions, default, lat,lng,level to POI", 2_000, |i| {
        let req = IndoorDirectionsRequest {
            venue_id: venue.clone(),
            origin: at[i % at.len()].clone(),
            destination: IndoorPoint::PoiId(pairs[i].1),
            ..Default::default()
        };
        black_box(engine.call(&creds, req).unwrap());
    });
    // Outdoor origins: points 150 m beyond each side and corner of the venue's bbox on level
    // 0, walked on the pack's walking network to an entrance, then to a random POI (the
    // points the pack has streets around; the extract ends just west of the Stachus).
    let bbox = &data.venue.bbox;
    let (dlat, dlng) = waymark_core::geo::degrees_for(150.0, (bbox[1] + bbox[3]) / 2.0);
    let (mid_lat, mid_lng) = ((bbox[1] + bbox[3]) / 2.0, (bbox[0] + bbox[2]) / 2.0);
    let outside: Vec<IndoorPoint> = [bbox[1] - dlat, mid_lat, bbox[3] + dlat]
        .iter()
        .flat_map(|lat| {
            [bbox[0] - dlng, mid_lng, bbox[2] + dlng]
                .map(|lng| (*lat, lng))
                .to_vec()
        })
        .filter(|(lat, lng)| (*lat, *lng) != (mid_lat, mid_lng))
        .map(|(lat, lng)| IndoorPoint::Coords { lat, lng, level: 0 })
        .filter(|p| {
            let req = IndoorDirectionsRequest {
                venue_id: venue.clone(),
                origin: p.clone(),
                destination: IndoorPoint::PoiId(pairs[0].1),
                ..Default::default()
            };
            engine.call(&creds, req).is_ok_and(|r| r.status == "ok")
        })
        .collect();
    eprintln!(
        "outdoor origins with a walk to an entrance: {} of 8",
        outside.len()
    );
    // A row of its own, also when no point outside walks in (a pack without the streets).
    const OUTDOOR_ROW: &str = "directions, default, outdoor lat,lng,0 (150 m out) to POI";
    if outside.is_empty() {
        eprintln!("{OUTDOOR_ROW}: not timed (no outdoor origin walks to an entrance)");
    } else {
        waymark_tests::time_percentiles(OUTDOOR_ROW, 2_000, |i| {
            let req = IndoorDirectionsRequest {
                venue_id: venue.clone(),
                origin: outside[i % outside.len()].clone(),
                destination: IndoorPoint::PoiId(pairs[i].1),
                ..Default::default()
            };
            black_box(engine.call(&creds, req).unwrap());
        });
    }
    let typed: Vec<String> = data
        .features
        .iter()
        .filter_map(|f| f.name.clone())
        .map(|n| {
            // one letter dropped from names of 5+ letters: a typo to tolerate
            let chars: Vec<char> = n.chars().collect();
            if chars.len() >= 5 {
                chars
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != 2)
                    .map(|(_, c)| *c)
                    .collect()
            } else {
                n
            }
        })
        .collect();
    let search = |i: usize| PoiSearchRequest {
        venue_id: venue.clone(),
        q: Some(typed[i % typed.len()].clone()),
        ..Default::default()
    };
    waymark_tests::time_percentiles("POI search, a name with a typo", 5_000, |i| {
        black_box(engine.call(&creds, search(i)).unwrap());
    });
    waymark_tests::time_percentiles("POI search, alphabetical list (no q)", 5_000, |_| {
        black_box(
            engine
                .call(
                    &creds,
                    PoiSearchRequest {
                        venue_id: venue.clone(),
                        ..Default::default()
                    },
                )
                .unwrap(),
        );
    });
    waymark_tests::time_percentiles(
        "POI search, q + level + advanced_filter + page",
        5_000,
        |i| {
            black_box(
                engine
                    .call(
                        &creds,
                        PoiSearchRequest {
                            level: Some(-1),
                            advanced_filter: Some("shop OR amenity=toilets".into()),
                            items_by_page: 5,
                            ..search(i)
                        },
                    )
                    .unwrap(),
            );
        },
    );
    let from = match &at[0] {
        IndoorPoint::Coords { lat, lng, level } => IndoorLatLng {
            lat: *lat,
            lng: *lng,
            level: *level,
        },
        _ => unreachable!(),
    };
    waymark_tests::time_percentiles(
        "POI search, q + from_location (graph distances)",
        5_000,
        |i| {
            black_box(
                engine
                    .call(
                        &creds,
                        PoiSearchRequest {
                            from_location: Some(from),
                            ..search(i)
                        },
                    )
                    .unwrap(),
            );
        },
    );

    // Finding venues: the venues of the München pack near a POI of the venue (radius 0:
    // which venue holds it; 1 km), and by a word of a venue's name.
    let near: Vec<LatLng> = g
        .pois
        .iter()
        .map(|(_, n)| LatLng::new(g.nodes[*n as usize].lat, g.nodes[*n as usize].lng))
        .collect();
    let list = |i: usize, radius: u32| VenueListRequest {
        near: Some(near[i % near.len()]),
        radius: Some(radius),
        ..Default::default()
    };
    waymark_tests::time_percentiles("venue list, near with radius 0", 5_000, |i| {
        black_box(engine.call(&creds, list(i, 0)).unwrap());
    });
    waymark_tests::time_percentiles("venue list, near within 1 km", 5_000, |i| {
        black_box(engine.call(&creds, list(i, 1_000)).unwrap());
    });
    let words: Vec<String> = typed
        .iter()
        .filter_map(|n| n.split_whitespace().next().map(str::to_owned))
        .collect();
    waymark_tests::time_percentiles("venue list, q (a word)", 5_000, |i| {
        let req = VenueListRequest {
            q: Some(words[i % words.len()].clone()),
            ..Default::default()
        };
        black_box(engine.call(&creds, req).unwrap());
    });

    let mut group = c.benchmark_group("indoor");
    group.sample_size(50);
    let mut i = 0;
    group.bench_function("directions default", |b| {
        b.iter(|| {
            i = (i + 1) % pairs.len();
            black_box(engine.call(&creds, directions(i, "default")).unwrap())
        })
    });
    group.bench_function("poi search typo", |b| {
        b.iter(|| {
            i = (i + 1) % typed.len();
            black_box(engine.call(&creds, search(i)).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
