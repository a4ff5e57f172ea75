//! Quality of the localities operations on the eight region sample packs built from
//! `../shared/data/osm` (built once for this test binary), with queries generated from the
//! packs' own data:
//!
//! * autocomplete: 500 prefixes of real names (a street, address or POI followed by its
//!   locality, as a user would go on typing), each at least 3 characters and at least as long
//!   as needed to tell the item from every other item of its kind (the shortest prefix that no
//!   other text starts with, else the whole text), one typo in every other one (in a word
//!   that keeps 4+ letters) → the intended item in the top 5 for ≥ 95%;
//! * reverse geocoding 1,000 address points → that address first for ≥ 95%;
//! * geocoding 1,000 "number street, postcode city" strings → within 30 m for ≥ 95%.
//!
//! An item counts as found when a suggestion is the item itself or one the user cannot tell
//! from it: same kind, same text and same locality (OSM often maps one address twice, as a
//! node and on the building).
//!
//! The rules behind those figures (compounds, abbreviations, languages, postal codes, details,
//! geocoding, nearby) are checked one by one on the same packs in `rules.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod fixture;
mod parents;
mod rules;

use std::collections::HashMap;

use fixture::*;
use waymark_core::api::*;
use waymark_core::operation::Credentials;
use waymark_core::packs::search::{fold, kinds};
use waymark_tests::private_caller;

fn query_text(d: &Doc, names: &HashMap<String, String>) -> Option<String> {
    let locality = d.data.parents.first().and_then(|p| names.get(p)).cloned();
    let with_locality = |s: String| match &locality {
        Some(l) => format!("{s}, {l}"),
        None => s,
    };
    let name = match d.kind.as_str() {
        kinds::ADDRESS => {
            let (st, hn) = (d.data.street.clone()?, d.data.housenumber.clone()?);
            with_locality(if ["GB", "FR", "MC"].contains(&d.cc.as_str()) {
                format!("{hn} {st}")
            } else {
                format!("{st} {hn}")
            })
        }
        kinds::ROUTE => with_locality(d.data.street.clone()?),
        kinds::POI => with_locality(d.data.names.get("")?.clone()),
        _ => d.data.names.get("")?.clone(),
    };
    (name.chars().count() >= 3).then_some(name)
}

/// Same kind, same text, same first parent: indistinguishable for a user.
fn twin_key(d: &Doc, names: &HashMap<String, String>) -> Option<(String, String, String)> {
    Some((
        d.kind.clone(),
        fold(&query_text(d, names)?),
        d.data.parents.first().cloned().unwrap_or_default(),
    ))
}

fn typo(word: &str, rng: &mut Rng) -> String {
    let mut c: Vec<char> = word.chars().collect();
    let i = 1 + rng.below(c.len() - 2);
    match rng.below(4) {
        0 => {
            c[i] = if c[i] == 'e' { 'a' } else { 'e' };
        }
        1 => {
            c.remove(i);
        }
        2 => c.swap(i, i + 1),
        _ => c.insert(i, c[i]),
    }
    c.into_iter().collect()
}

#[test]
fn autocomplete_finds_the_intended_item_in_the_top_5_for_95_percent() {
    let f = fixture();
    let names: HashMap<String, String> = f
        .docs
        .iter()
        .filter(|d| kinds::is_settlement(&d.kind))
        .filter_map(|d| Some((d.public_id.clone(), d.data.names.get("")?.clone())))
        .collect();
    let mut twins: HashMap<(String, String, String), Vec<String>> = HashMap::new();
    // Folded texts of every kind, sorted, to find how long a prefix must be to be unique.
    let mut texts: HashMap<String, Vec<String>> = HashMap::new();
    for d in &f.docs {
        if let Some(k) = twin_key(d, &names) {
            twins.entry(k).or_default().push(d.public_id.clone());
        }
        if let Some(t) = query_text(d, &names) {
            texts.entry(d.kind.clone()).or_default().push(fold(&t));
        }
    }
    for v in texts.values_mut() {
        v.sort();
    }
    let unique_len = |d: &Doc, text: &str| -> usize {
        let sorted = &texts[&d.kind];
        let own = fold(text);
        let chars: Vec<char> = text.chars().collect();
        (3..=chars.len())
            .find(|&n| {
                let p = fold(&chars[..n].iter().collect::<String>());
                let lo = sorted.partition_point(|t| t.as_str() < p.as_str());
                sorted[lo..]
                    .iter()
                    .take_while(|t| t.starts_with(&p))
                    .all(|t| *t == own)
            })
            .unwrap_or(chars.len())
    };
    let pool = |pred: &dyn Fn(&Doc) -> bool| -> Vec<&Doc> {
        f.docs
            .iter()
            .filter(|d| pred(d) && query_text(d, &names).is_some())
            .collect()
    };
    let places = pool(&|d| {
        kinds::is_settlement(&d.kind) || d.kind == kinds::ADMIN || d.kind == kinds::POSTAL_CODE
    });
    let streets = pool(&|d| d.kind == kinds::ROUTE);
    let addresses = pool(&|d| d.kind == kinds::ADDRESS && d.data.street.is_some());
    let pois = pool(&|d| d.kind == kinds::POI && d.data.names.contains_key(""));
    let mut rng = Rng(20261122);
    let caller = private_caller(&f.publisher);
    let (mut ok, mut total) = (0, 0);
    let mut failures = Vec::new();
    for i in 0..500 {
        let group = match i % 5 {
            0 | 1 => &places,
            2 => &streets,
            3 => &addresses,
            _ => &pois,
        };
        let d = group[rng.below(group.len())];
        let text = query_text(d, &names).unwrap();
        let chars: Vec<char> = text.chars().collect();
        let min = 3.max(unique_len(d, &text));
        let cut = min + rng.below(chars.len() - min + 1);
        let mut input: String = chars[..cut.min(chars.len())].iter().collect();
        if i % 2 == 1 {
            // One typo in a word that keeps 4+ letters.
            let words: Vec<&str> = input.split(' ').collect();
            let eligible: Vec<usize> = (0..words.len())
                .filter(|&w| {
                    words[w].chars().count() >= 5 && words[w].chars().all(char::is_alphabetic)
                })
                .collect();
            if !eligible.is_empty() {
                let w = eligible[rng.below(eligible.len())];
                let changed = typo(words[w], &mut rng);
                input = words
                    .iter()
                    .enumerate()
                    .map(|(j, x)| {
                        if j == w {
                            changed.clone()
                        } else {
                            x.to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
            }
        }
        let types = match d.kind.as_str() {
            kinds::ADDRESS => vec!["address".to_string()],
            kinds::ROUTE => vec!["route".to_string()],
            kinds::POI => vec![d.types[0].clone()],
            kinds::ADMIN => vec!["admin_level".to_string()],
            _ => vec!["locality".to_string(), "postal_code".to_string()],
        };
        let types = types
            .into_iter()
            .filter(|t| PlaceType::parse(t).is_some())
            .collect::<Vec<_>>();
        let req = AutocompleteRequest {
            input: input.clone(),
            types: if types.is_empty() {
                vec!["point_of_interest".into()]
            } else {
                types
            },
            ..Default::default()
        };
        let res = f.engine.call(&Credentials::Http(&caller), req).unwrap();
        let accepted = twins
            .get(&twin_key(d, &names).unwrap())
            .cloned()
            .unwrap_or_default();
        total += 1;
        if res
            .localities
            .iter()
            .take(5)
            .any(|s| accepted.contains(&s.public_id))
        {
            ok += 1;
        } else {
            failures.push(format!(
                "{input:?} for {} {:?}: got {:?}",
                d.public_id,
                text,
                res.localities
                    .iter()
                    .map(|s| s.description.clone())
                    .collect::<Vec<_>>()
            ));
        }
    }
    let rate = ok as f64 / total as f64;
    eprintln!(
        "autocomplete: {ok}/{total} = {:.1}% in the top 5",
        rate * 100.0
    );
    for fl in failures.iter().take(40) {
        eprintln!("  miss: {fl}");
    }
    assert!(rate >= 0.95, "{:.1}% < 95%", rate * 100.0);
}

/// `text` with two letters swapped in the middle of its longest word (of six letters or
/// more, letters only); `None` when it has no such word or those two letters are the same.
fn with_swapped_letters(text: &str) -> Option<String> {
    let longest = text
        .split(' ')
        .filter(|w| w.chars().count() >= 6 && w.chars().all(char::is_alphabetic))
        .max_by_key(|w| w.chars().count())?;
    let mut c: Vec<char> = longest.chars().collect();
    let mid = c.len() / 2;
    if c[mid] == c[mid + 1] {
        return None;
    }
    c.swap(mid, mid + 1);
    let typo: String = c.into_iter().collect();
    Some(text.replacen(longest, &typo, 1))
}

fn sample_addresses(f: &Fixture, n: usize, seed: u64, pred: impl Fn(&Doc) -> bool) -> Vec<&Doc> {
    let all: Vec<&Doc> = f
        .docs
        .iter()
        .filter(|d| d.kind == kinds::ADDRESS && pred(d))
        .collect();
    assert!(all.len() >= n, "only {} addresses", all.len());
    let mut rng = Rng(seed);
    let mut picked = std::collections::BTreeSet::new();
    while picked.len() < n {
        picked.insert(rng.below(all.len()));
    }
    picked.into_iter().map(|i| all[i]).collect()
}

#[test]
fn reverse_geocoding_returns_the_address_for_95_percent() {
    let f = fixture();
    let caller = private_caller(&f.publisher);
    let sample = sample_addresses(f, 1000, 7, |_| true);
    let mut by_point: HashMap<String, (f64, f64)> = HashMap::new();
    for d in &f.docs {
        by_point.insert(d.public_id.clone(), (d.lat, d.lng));
    }
    let (mut ok, mut failures) = (0, Vec::new());
    for d in &sample {
        let res = f
            .engine
            .call(
                &Credentials::Http(&caller),
                GeocodeRequest {
                    latlng: Some(LatLng::new(d.lat, d.lng)),
                    ..Default::default()
                },
            )
            .unwrap();
        let first = res.results.first();
        let same = first.is_some_and(|r| {
            r.public_id == d.public_id
                || (r.types == ["address"]
                    && by_point
                        .get(&r.public_id)
                        .is_some_and(|p| haversine_m(p.0, p.1, d.lat, d.lng) < 0.5))
        });
        if same {
            ok += 1;
        } else {
            failures.push(format!(
                "{} {:?}: got {:?}",
                d.public_id,
                (d.lat, d.lng),
                first.map(|r| (&r.public_id, &r.formatted_address))
            ));
        }
    }
    eprintln!("reverse: {ok}/1000");
    for fl in failures.iter().take(20) {
        eprintln!("  miss: {fl}");
    }
    assert!(ok >= 950, "{ok}/1000 < 95%");
}

#[test]
fn geocoding_lands_within_30_m_for_95_percent() {
    let f = fixture();
    let caller = private_caller(&f.publisher);
    let names: HashMap<String, String> = f
        .docs
        .iter()
        .filter(|d| kinds::is_settlement(&d.kind))
        .filter_map(|d| Some((d.public_id.clone(), d.data.names.get("")?.clone())))
        .collect();
    let city = |d: &Doc| {
        d.data
            .city
            .clone()
            .or_else(|| d.data.parents.iter().find_map(|p| names.get(p).cloned()))
    };
    let sample = sample_addresses(f, 1000, 11, |d| {
        d.data.street.is_some() && d.data.postcode.is_some() && city(d).is_some()
    });
    // How far the first result of geocoding `address` lands from `d`'s point, and its
    // formatted address.
    let geocode_miss_m = |address: &str, d: &Doc| -> (Option<f64>, Option<String>) {
        let res = f
            .engine
            .call(
                &Credentials::Http(&caller),
                GeocodeRequest {
                    address: Some(address.to_string()),
                    ..Default::default()
                },
            )
            .unwrap();
        let first = res.results.first();
        (
            first.map(|r| {
                haversine_m(
                    r.geometry.location.lat,
                    r.geometry.location.lng,
                    d.lat,
                    d.lng,
                )
            }),
            first.map(|r| r.formatted_address.clone()),
        )
    };
    let (mut ok, mut failures) = (0, Vec::new());
    for d in &sample {
        let address = format!(
            "{} {}, {} {}",
            d.data.housenumber.clone().unwrap(),
            d.data.street.clone().unwrap(),
            d.data.postcode.clone().unwrap(),
            city(d).unwrap()
        );
        let (dist, got) = geocode_miss_m(&address, d);
        if dist.is_some_and(|m| m <= 30.0) {
            ok += 1;
        } else {
            failures.push(format!("{address:?}: {dist:?} m, got {got:?}"));
        }
    }
    eprintln!("geocode: {ok}/1000 within 30 m");
    for fl in failures.iter().take(20) {
        eprintln!("  miss: {fl}");
    }
    assert!(ok >= 950, "{ok}/1000 < 95%");

    // How many of `addresses` (each with the address point it names) geocode within 30 m.
    let within_30_m = |label: &str, addresses: &[(String, &Doc)]| -> usize {
        let mut failures = Vec::new();
        let ok = addresses
            .iter()
            .filter(|(address, d)| {
                let (dist, _) = geocode_miss_m(address, d);
                let hit = dist.is_some_and(|m| m <= 30.0);
                if !hit {
                    failures.push(format!("{address:?}: {dist:?} m"));
                }
                hit
            })
            .count();
        eprintln!("{label}: {ok}/{} within 30 m", addresses.len());
        for fl in failures.iter().take(10) {
            eprintln!("  miss: {fl}");
        }
        ok
    };
    let number = |d: &Doc| d.data.housenumber.clone().unwrap();
    let postcode = |d: &Doc| d.data.postcode.clone().unwrap();

    // The same addresses with a typo (two letters swapped in the street's longest word): the
    // exact searches find nothing that explains every word, the forgiving one must.
    let streets: Vec<(String, &Doc)> = sample
        .iter()
        .step_by(4)
        .filter_map(|&d| {
            let street = with_swapped_letters(&d.data.street.clone().unwrap())?;
            let address = format!("{} {street}, {} {}", number(d), postcode(d), city(d)?);
            Some((address, d))
        })
        .collect();
    let typo_ok = within_30_m("geocode with a typo", &streets);
    let typo_n = streets.len();
    assert!(
        typo_n >= 100,
        "only {typo_n} addresses with a long street word"
    );
    assert!(
        typo_ok * 100 >= typo_n * 90,
        "{typo_ok}/{typo_n} with a typo < 90%"
    );

    // The same addresses with the typo in the city's longest word instead: the number,
    // street and postcode narrow the candidates, the city is matched with its typo.
    let cities: Vec<(String, &Doc)> = sample
        .iter()
        .skip(2)
        .step_by(4)
        .filter_map(|&d| {
            let town = with_swapped_letters(&city(d)?)?;
            let street = d.data.street.clone().unwrap();
            let address = format!("{} {street}, {} {town}", number(d), postcode(d));
            Some((address, d))
        })
        .collect();
    let city_ok = within_30_m("geocode with a typo in the city", &cities);
    let city_n = cities.len();
    assert!(
        city_n >= 100,
        "only {city_n} addresses with a long city word"
    );
    assert!(
        city_ok * 100 >= city_n * 90,
        "{city_ok}/{city_n} with a typo in the city < 90%"
    );
}
