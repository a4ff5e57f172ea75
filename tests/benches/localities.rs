//! Localities operations through the Engine with every region sample pack loaded (search,
//! places, addresses, POIs, roads) plus the base pack:
//! `cargo bench -p waymark-tests --bench localities`.
//!
//! Besides criterion's means, prints the latency distribution (p50/p95/p99) of each operation
//! over its whole query set: autocomplete is measured per keystroke (every prefix of 3+
//! characters of 200 real names, as a user types them).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use tantivy::collector::TopDocs;
use tantivy::query::AllQuery;
use tantivy::schema::Value;
use waymark_core::api::*;
use waymark_core::operation::Credentials;
use waymark_core::packs::search::{self, DocData, kinds};
use waymark_packs::build;

fn percentiles(name: &str, mut us: Vec<f64>) {
    us.sort_by(f64::total_cmp);
    let p = |q: f64| us[((us.len() as f64 - 1.0) * q).round() as usize];
    eprintln!(
        "{name}: n={} p50={:.0} us p95={:.0} us p99={:.0} us max={:.0} us",
        us.len(),
        p(0.5),
        p(0.95),
        p(0.99),
        p(1.0)
    );
}

/// The addresses with two letters of the first long word swapped: the forgiving search
/// (typo automata) runs after the exact ones.
fn with_typo(addresses: &[String]) -> Vec<String> {
    addresses
        .iter()
        .filter_map(|a| {
            let w = a
                .split(' ')
                .find(|w| w.chars().count() >= 6 && w.chars().all(char::is_alphabetic))?;
            let mut c: Vec<char> = w.chars().collect();
            let mid = c.len() / 2;
            c.swap(mid, mid + 1);
            Some(a.replacen(w, &c.into_iter().collect::<String>(), 1))
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let mut plans = waymark_tests::localities_plans();
    plans.push(build::sample_plan("base").unwrap());
    let (engine, publisher, _) = waymark_tests::engine_with_packs(&plans, tmp.path());
    let caller = waymark_tests::private_caller(&publisher);

    // Items of every pack: names to type, ids for details, points for reverse and nearby.
    let mut items: Vec<(String, String, f64, f64, DocData)> = Vec::new();
    for pack in engine.packs().snapshot().all() {
        let (index, f) = search::open_index(&pack.path(search::SEARCH_DIR)).unwrap();
        let searcher = index.reader().unwrap().searcher();
        for (_, a) in searcher
            .search(&AllQuery, &TopDocs::with_limit(1_000_000).order_by_score())
            .unwrap()
        {
            let d: tantivy::TantivyDocument = searcher.doc(a).unwrap();
            let s = |f| {
                d.get_first(f)
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_string()
            };
            items.push((
                s(f.public_id),
                s(f.kind),
                search::doc_point(&searcher, a).unwrap().0,
                search::doc_point(&searcher, a).unwrap().1,
                serde_json::from_str(&s(f.data)).unwrap(),
            ));
        }
    }
    items.sort_by(|a, b| a.0.cmp(&b.0));
    let step = |n: usize| items.len() / n;
    // Keystrokes: every prefix (3+ characters) of 200 names spread over the packs and kinds.
    let mut keystrokes: Vec<(String, Vec<String>)> = Vec::new();
    for (i, (_, kind, _, _, data)) in items.iter().enumerate().step_by(step(400)) {
        let (text, types) = match kind.as_str() {
            kinds::ADDRESS => match (&data.street, &data.housenumber) {
                (Some(s), Some(h)) => (format!("{s} {h}"), vec!["address".to_string()]),
                _ => continue,
            },
            kinds::ROUTE => (
                data.street.clone().unwrap_or_default(),
                vec!["route".into()],
            ),
            kinds::POI => (
                data.names.get("").cloned().unwrap_or_default(),
                vec!["point_of_interest".into()],
            ),
            _ => (
                data.names.get("").cloned().unwrap_or_default(),
                vec!["locality".into(), "postal_code".into()],
            ),
        };
        let chars: Vec<char> = text.chars().collect();
        for n in 3..=chars.len() {
            keystrokes.push((chars[..n].iter().collect(), types.clone()));
        }
        if i > 0 && keystrokes.len() > 4000 {
            break;
        }
    }
    let ids: Vec<String> = items
        .iter()
        .step_by(step(1000))
        .map(|x| x.0.clone())
        .collect();
    let points: Vec<LatLng> = items
        .iter()
        .filter(|x| x.1 == kinds::ADDRESS || x.1 == kinds::POI)
        .step_by(step(2000).max(1))
        .map(|x| LatLng::new(x.2 + 0.0002, x.3 - 0.0002))
        .collect();
    // Forward geocoding: full addresses as a user writes them ("12 Street, 12345 City"), as
    // in the quality test (geocoding_lands_within_30_m_for_95_percent).
    let settlement_names: std::collections::HashMap<&str, &str> = items
        .iter()
        .filter(|x| kinds::is_settlement(&x.1))
        .filter_map(|x| Some((x.0.as_str(), x.4.names.get("")?.as_str())))
        .collect();
    let addresses: Vec<String> = items
        .iter()
        .filter(|x| x.1 == kinds::ADDRESS)
        .filter_map(|(_, _, _, _, d)| {
            let city = d.city.clone().or_else(|| {
                d.parents
                    .iter()
                    .find_map(|p| settlement_names.get(p.as_str()).map(|s| s.to_string()))
            })?;
            Some(format!(
                "{} {}, {} {}",
                d.housenumber.as_ref()?,
                d.street.as_ref()?,
                d.postcode.as_ref()?,
                city
            ))
        })
        .collect();
    let addresses: Vec<String> = addresses
        .iter()
        .step_by((addresses.len() / 500).max(1))
        .cloned()
        .collect();
    let fwd_req = |a: &String| GeocodeRequest {
        address: Some(a.clone()),
        ..Default::default()
    };
    let ac_req = |(input, types): &(String, Vec<String>)| AutocompleteRequest {
        input: input.clone(),
        types: types.clone(),
        ..Default::default()
    };
    let det_req = |id: &String| DetailsRequest {
        public_id: id.clone(),
        ..Default::default()
    };
    let rev_req = |p: &LatLng| GeocodeRequest {
        latlng: Some(*p),
        ..Default::default()
    };
    let near_req = |p: &LatLng| NearbyRequest {
        types: vec!["business".into(), "tourism".into()],
        location: *p,
        ..Default::default()
    };

    // Latency distributions over the whole sets.
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64() * 1e6
    };
    // Geocodes every address of `list`, one call each, and prints the percentiles as `name`.
    let geocode_all = |list: &[String], name: &str| {
        let us: Vec<f64> = list
            .iter()
            .map(|a| {
                time(&mut || {
                    drop(black_box(
                        engine
                            .call(&Credentials::Http(&caller), fwd_req(a))
                            .unwrap(),
                    ))
                })
            })
            .collect();
        percentiles(name, us);
    };
    // `LOCALITIES_ONLY=typo` times only the geocoding of addresses with a typo, as many
    // rounds as `LOCALITIES_ROUNDS` says (default 1), and skips criterion: for a profiler.
    if std::env::var("LOCALITIES_ONLY").as_deref() == Ok("typo") {
        let rounds: usize = std::env::var("LOCALITIES_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(1);
        let typos = with_typo(&addresses);
        for _ in 0..rounds {
            geocode_all(&typos, "geocode address with a typo");
        }
        return;
    }
    let us: Vec<f64> = keystrokes
        .iter()
        .map(|k| {
            time(&mut || {
                drop(black_box(
                    engine.call(&Credentials::Http(&caller), ac_req(k)).unwrap(),
                ))
            })
        })
        .collect();
    percentiles("autocomplete per keystroke", us);
    let us: Vec<f64> = ids
        .iter()
        .map(|id| {
            time(&mut || {
                drop(black_box(
                    engine
                        .call(&Credentials::Http(&caller), det_req(id))
                        .unwrap(),
                ))
            })
        })
        .collect();
    percentiles("details", us);
    let us: Vec<f64> = points
        .iter()
        .map(|p| {
            time(&mut || {
                drop(black_box(
                    engine
                        .call(&Credentials::Http(&caller), rev_req(p))
                        .unwrap(),
                ))
            })
        })
        .collect();
    percentiles("reverse geocode", us);
    geocode_all(&addresses, "geocode address");
    // The same addresses with two letters of the first long word swapped: the forgiving
    // search (typo automata) runs after the exact ones.
    geocode_all(&with_typo(&addresses), "geocode address with a typo");
    let us: Vec<f64> = points
        .iter()
        .map(|p| {
            time(&mut || {
                drop(black_box(
                    engine
                        .call(&Credentials::Http(&caller), near_req(p))
                        .unwrap(),
                ))
            })
        })
        .collect();
    percentiles("nearby (1 km)", us);

    let mut i = 0;
    c.bench_function("autocomplete keystroke (all packs)", |b| {
        b.iter(|| {
            i = (i + 1) % keystrokes.len();
            black_box(engine.call(&Credentials::Http(&caller), ac_req(&keystrokes[i])))
        })
    });
    let mut i = 0;
    c.bench_function("details (all packs)", |b| {
        b.iter(|| {
            i = (i + 1) % ids.len();
            black_box(engine.call(&Credentials::Http(&caller), det_req(&ids[i])))
        })
    });
    let mut i = 0;
    c.bench_function("geocode address (all packs)", |b| {
        b.iter(|| {
            i = (i + 1) % addresses.len();
            black_box(engine.call(&Credentials::Http(&caller), fwd_req(&addresses[i])))
        })
    });
    let mut i = 0;
    c.bench_function("reverse geocode (all packs)", |b| {
        b.iter(|| {
            i = (i + 1) % points.len();
            black_box(engine.call(&Credentials::Http(&caller), rev_req(&points[i])))
        })
    });
    let mut i = 0;
    c.bench_function("nearby 1 km (all packs)", |b| {
        b.iter(|| {
            i = (i + 1) % points.len();
            black_box(engine.call(&Credentials::Http(&caller), near_req(&points[i])))
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
