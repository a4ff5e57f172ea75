//! Parent areas in the search index: an item's context holds one token per parent area, and a
//! query word names a parent through the words its document lists (its names in the context
//! languages), so a street is found with its city named in any of those languages.
use std::collections::{BTreeSet, HashMap};

use waymark_core::api::*;
use waymark_core::localities::LocalitiesIndex;
use waymark_core::localities::index::{Bias, text_query};
use waymark_core::localities::text::query_tokens;
use waymark_core::operation::Credentials;
use waymark_core::packs::search::{self, PARENT_TOKEN_MARK, fold, kinds};
use waymark_tests::private_caller;

use super::fixture::*;

/// Every term of the `context` field of pack `pack_id`.
fn context_terms(f: &Fixture, pack_id: &str) -> BTreeSet<String> {
    let set = f.engine.packs().snapshot();
    let pack = set.all().into_iter().find(|p| p.id() == pack_id).unwrap();
    let (index, fields) = search::open_index(&pack.path(search::SEARCH_DIR)).unwrap();
    let searcher = index.reader().unwrap().searcher();
    let mut out = BTreeSet::new();
    for seg in searcher.segment_readers() {
        let inv = seg.inverted_index(fields.context).unwrap();
        let mut stream = inv.terms().stream().unwrap();
        while stream.advance() {
            out.insert(String::from_utf8(stream.key().to_vec()).unwrap());
        }
    }
    out
}

/// The city `name` of country `cc` among the documents.
fn city<'a>(f: &'a Fixture, name: &str, cc: &str) -> &'a Doc {
    f.docs
        .iter()
        .find(|d| {
            kinds::LOCALITIES.contains(&d.kind.as_str())
                && d.cc == cc
                && d.data.names.get("").is_some_and(|n| n == name)
        })
        .unwrap_or_else(|| panic!("no city {name} ({cc})"))
}

#[test]
fn the_index_holds_one_token_per_parent_and_no_words_of_parent_names() {
    let f = fixture();
    for (pack, name, cc) in [("london", "London", "GB"), ("munchen", "München", "DE")] {
        let terms = context_terms(f, pack);
        let c = city(f, name, cc);
        // The city's own words in other languages (`londres`, `lontoo`; `munich`,
        // `monaco`...) name it; none is a context term.
        let foreign: Vec<&String> = c
            .data
            .context_words
            .iter()
            .filter(|w| !fold(name).split(' ').any(|x| x == w.as_str()))
            .collect();
        assert!(foreign.len() >= 2, "{pack}: {:?}", c.data.context_words);
        for w in &foreign {
            assert!(!terms.contains(*w), "{pack}: context term {w}");
        }
        // Its items carry its token instead, and every parent token names a document that
        // lists the parent's words.
        let token = search::parent_token(&c.public_id);
        assert!(terms.contains(&token), "{pack}: no {token}");
        let by_id: HashMap<&str, &Doc> = f.docs.iter().map(|d| (d.public_id.as_str(), d)).collect();
        let parents: Vec<&String> = terms
            .iter()
            .filter(|t| t.starts_with(PARENT_TOKEN_MARK))
            .collect();
        assert!(parents.len() >= 3, "{pack}: {parents:?}");
        for t in parents {
            let d = by_id[&t[1..]];
            assert!(
                !d.data.context_words.is_empty(),
                "{pack}: {t} lists no words"
            );
        }
    }
}

#[test]
fn a_city_named_in_another_language_finds_its_streets() {
    let f = fixture();
    let caller = private_caller(&f.publisher);
    let idx = LocalitiesIndex::open(&f.engine.packs().snapshot()).unwrap();
    for (name, cc, other) in [("London", "GB", "Londres"), ("München", "DE", "Munich")] {
        let c = city(f, name, cc);
        let other_word = fold(other);
        assert!(
            c.data.context_words.contains(&other_word),
            "{name}: {other}"
        );
        // A parent's word is a known word (no typo search for it).
        assert_eq!(idx.known_words(&query_tokens(other, false)), vec![true]);
        // Streets of the city whose names hold no word of the city's names.
        let mut streets: Vec<&Doc> = f
            .docs
            .iter()
            .filter(|d| d.kind == kinds::ROUTE && d.data.parents.first() == Some(&c.public_id))
            .filter(|d| {
                let st = fold(d.data.street.as_deref().unwrap_or(""));
                !st.split(' ')
                    .any(|w| c.data.context_words.iter().any(|x| x == w))
            })
            .collect();
        streets.sort_by(|a, b| a.public_id.cmp(&b.public_id));
        assert!(streets.len() >= 20, "{name}: {} streets", streets.len());
        let typed = &other[..other.len() - 2];
        let (mut missed, mut missed_typed) = (Vec::new(), Vec::new());
        for d in streets.iter().step_by(streets.len() / 20).take(20) {
            let street = d.data.street.clone().unwrap();
            // Every token required: the street's words in its names, the city's word (typed
            // in full, or being typed) in its context.
            for (input, as_you_type) in [
                (format!("{street} {other}"), false),
                (format!("{street} {typed}"), true),
            ] {
                let tokens = query_tokens(&input, as_you_type);
                let hits = idx.search(
                    |fields, cw| text_query(fields, cw, &tokens, &["route".into()], &[], true),
                    Bias::default(),
                    50,
                );
                if !hits.iter().any(|(_, it)| it.public_id == d.public_id) {
                    missed.push(input);
                }
            }
            // And as a user types it.
            let input = format!("{other}, {street}");
            let r: AutocompleteResponse = f
                .engine
                .call(
                    &Credentials::Http(&caller),
                    AutocompleteRequest {
                        input: input.clone(),
                        types: vec!["route".into()],
                        ..Default::default()
                    },
                )
                .unwrap();
            if !r
                .localities
                .iter()
                .take(5)
                .any(|s| s.public_id == d.public_id)
            {
                missed_typed.push(input);
            }
        }
        assert!(missed.is_empty(), "{name}: missed {missed:?}");
        assert!(missed_typed.len() <= 1, "{name}: missed {missed_typed:?}");
    }
}
