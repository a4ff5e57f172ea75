//! How far the likely mistakes of a three-word address land (ADR 0003 §7), and scheme-wide
//! properties, on the real three-word layer.
//!
//! For thousands of addresses (most in the populated region, where people use them), every
//! likely mistake that is itself an address is located: a plural or singular of a word, a
//! listed word one edit away (insertion, deletion, substitution, swap of neighbours), two
//! words swapped, a homophone. None but two words swapped at sea may land within 50 km of the
//! original (scheme version 3: a listed neighbour has another word class, and a swap off the
//! sea changes the class signature to one no tile within 50 km carries; at sea a signature
//! may repeat a class, so swapping two words of one class stays in the signature's tiles,
//! ADR 0009); the share of all variants landing within 50 km is printed (`--nocapture`) and
//! recorded in docs/performance.md.
//! (Homophones never make another address: the list holds no two words the CMU dictionary
//! pronounces alike, and a homophone heard is mapped back to the listed word by the aliases,
//! so that kind counts no variant.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashSet;

use waymark_core::geo::{Pt, haversine_m};
use waymark_core::threewords::ThreeWordsIndex;
use waymark_threewords::regions::{DENSE, POPULATED, SEA};
use waymark_threewords::v3::one_edit;

fn index() -> (ThreeWordsIndex, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let plan = waymark_tests::threewords_plan();
    let built = waymark_packs::build::build_pack(
        &plan,
        "1",
        &waymark_tests::sources(),
        &dir.path().join("built"),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    let conn = rusqlite::Connection::open(built.join("data.sqlite")).unwrap();
    (ThreeWordsIndex::read(&conn).unwrap(), dir)
}

/// Plural and singular forms.
fn number_forms(w: &str) -> Vec<String> {
    let mut out = vec![format!("{w}s"), format!("{w}es")];
    if let Some(stem) = w.strip_suffix('y') {
        out.push(format!("{stem}ies"));
    }
    if let Some(stem) = w.strip_suffix("ies") {
        out.push(format!("{stem}y"));
    }
    if let Some(stem) = w.strip_suffix("es") {
        out.push(stem.to_string());
    }
    if let Some(stem) = w.strip_suffix('s') {
        out.push(stem.to_string());
    }
    out
}

#[test]
fn likely_mistakes_land_far_away() {
    let (index, _dir) = index();
    let words = &index.languages["en"];
    let grid = index.grid();
    let mut rng = waymark_tests::Rng::new(99);
    let (mut populated, mut other) = (0, 0);
    let (mut variants, mut near, mut not_address) = (0u64, 0u64, 0u64);
    let mut nearest_km = f64::MAX;
    let mut by_kind = [(0u64, 0u64); 4];
    let (mut sea_swaps, mut sea_swaps_near) = (0u64, 0u64);
    while populated < 5_000 || other < 1_000 {
        let (lat, lng) = rng.sphere_point();
        let square = grid.square(lat, lng).unwrap();
        let region = index.scheme.regions().region(square);
        let at_sea = region == SEA;
        let is_populated = region == POPULATED || region == DENSE;
        match is_populated {
            true if populated < 5_000 => populated += 1,
            false if other < 1_000 => other += 1,
            _ => continue,
        }
        let ranks = index.scheme.triple(square);
        let (olat, olng) = grid.centre(square);
        let origin = Pt::new(olat, olng);
        let mut seen: HashSet<[u64; 3]> = HashSet::new();
        seen.insert(ranks);
        let mut candidates: Vec<([u64; 3], usize)> = Vec::new();
        for pos in 0..3 {
            let w = words.word(ranks[pos]);
            for (kind, forms) in [(0, number_forms(w)), (1, one_edit(w))] {
                for f in forms {
                    if let Some(&r) = words.rank.get(f.as_str()) {
                        let mut t = ranks;
                        t[pos] = u64::from(r);
                        candidates.push((t, kind));
                    }
                }
            }
            for &r in words.aliases.get(w).into_iter().flatten() {
                let mut t = ranks;
                t[pos] = u64::from(r);
                candidates.push((t, 3));
            }
        }
        for (i, j) in [(0, 1), (1, 2), (0, 2)] {
            let mut t = ranks;
            t.swap(i, j);
            candidates.push((t, 2));
        }
        for (t, kind) in candidates {
            if !seen.insert(t) {
                continue;
            }
            variants += 1;
            by_kind[kind].0 += 1;
            let sea_swap = at_sea && kind == 2;
            sea_swaps += u64::from(sea_swap);
            let Some(s) = index.scheme.square(t) else {
                not_address += 1;
                continue;
            };
            let (vlat, vlng) = grid.centre(s);
            let km = haversine_m(origin, Pt::new(vlat, vlng)) / 1000.0;
            nearest_km = nearest_km.min(km);
            if km < 50.0 {
                near += 1;
                by_kind[kind].1 += 1;
                sea_swaps_near += u64::from(sea_swap);
            }
        }
    }
    let share = near as f64 / variants as f64 * 100.0;
    println!(
        "three-word mistakes: {populated} populated + {other} other addresses, {variants} variants \
         ({not_address} name no square), {near} within 50 km = {share:.4} %, nearest {nearest_km:.1} km; \
         by kind (variants, near): plural/singular {:?}, one edit {:?}, swapped words {:?} \
         (at sea {sea_swaps}, {sea_swaps_near} near), homophones {:?}",
        by_kind[0], by_kind[1], by_kind[2], by_kind[3]
    );
    // The list keeps one form per stem and one word per pronunciation (ADR 0003), so plural
    // and homophone variants are not words of it: one edit and swapped words remain.
    assert!(variants > 40_000, "{variants} variants");
    assert!(sea_swaps > 1_000, "{sea_swaps} swaps at sea");
    assert_eq!(
        near - sea_swaps_near,
        0,
        "likely mistakes other than swaps at sea within 50 km ({share:.4} % of all)"
    );
}

#[test]
fn ten_million_random_squares_round_trip() {
    let (index, _dir) = index();
    let grid = index.grid();
    let mut rng = waymark_tests::Rng::new(5);
    let n: u64 = std::env::var("WAYMARK_ROUND_TRIPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000);
    let mut outside = 0u64;
    for _ in 0..n {
        let lat = rng.unit() * 180.0 - 90.0;
        let lng = rng.unit() * 360.0 - 180.0;
        let square = grid.square(lat, lng).unwrap();
        let ranks = index.scheme.triple(square);
        assert!(ranks.iter().all(|&r| r < 40_000));
        assert_eq!(index.scheme.square(ranks), Some(square), "{lat},{lng}");
        let [s, w, nn, e] = grid.bounds(square);
        if !(s <= lat && lat <= nn && w <= lng && lng <= e) {
            outside += 1;
        }
    }
    assert_eq!(outside, 0, "points outside their own square");
}
