//! Words two edits away from a typed word, read from the list by letters and length, are
//! those found by spelling out every string two edits away and looking each up.
use std::collections::HashSet;

use waymark_core::threewords::suggest::word_candidates;
use waymark_threewords::v3::each_edit;

use super::fixture;

/// The ranks of the listed words two edits from `token`, found the long way, lowest first.
fn two_edits_spelled_out(
    list: &HashSet<&str>,
    rank_of: &dyn Fn(&str) -> u32,
    token: &str,
) -> Vec<u32> {
    let mut found = HashSet::new();
    each_edit(token, |v| {
        each_edit(v, |w| {
            if list.contains(w) {
                found.insert(rank_of(w));
            }
        });
    });
    let mut ranks: Vec<u32> = found.into_iter().collect();
    ranks.sort_unstable();
    ranks
}

/// Whether `token` is listed or a listed word lies one edit from it.
fn within_one(list: &HashSet<&str>, token: &str) -> bool {
    let mut near = list.contains(token);
    each_edit(token, |v| near |= list.contains(v));
    near
}

#[test]
fn words_two_edits_away_are_found_as_if_spelled_out() {
    let f = fixture();
    let words = &f.index.languages["en"];
    let list: HashSet<&str> = words.list.iter().map(|w| &**w).collect();
    let rank_of = |w: &str| words.rank[w];
    let mut rng = waymark_tests::Rng::new(7);
    let letter = |rng: &mut waymark_tests::Rng| b'a' + rng.below(26) as u8;
    // Every two-letter string, and listed words with two random edits (of any kind) made.
    let mut tokens: Vec<String> = (b'a'..=b'z')
        .flat_map(|a| (b'a'..=b'z').map(move |b| String::from_utf8(vec![a, b]).unwrap()))
        .collect();
    for _ in 0..160 {
        let mut w = words.list[rng.below(words.list.len())].as_bytes().to_vec();
        for _ in 0..2 {
            let at = rng.below(w.len());
            match rng.below(4) {
                0 => {
                    w.remove(at);
                }
                1 => w.insert(at, letter(&mut rng)),
                2 => w[at] = letter(&mut rng),
                _ if at + 1 < w.len() => w.swap(at, at + 1),
                _ => w.push(letter(&mut rng)),
            }
        }
        tokens.push(String::from_utf8(w).unwrap());
    }
    tokens.push("qqqqqqqqqqqqqqqqqqqqqqqqqqqqqq".into());
    let (mut compared, mut with_words, mut partial) = (0, 0, 0);
    for token in &tokens {
        if within_one(&list, token) {
            continue;
        }
        let got = word_candidates(words, token, false);
        // A homophone or another form of the token was found: no two-edit search.
        if got.iter().any(|&(_, cost)| cost != 2.0) {
            continue;
        }
        let expected = two_edits_spelled_out(&list, &rank_of, token);
        let got: Vec<u32> = got.iter().map(|&(r, _)| r).collect();
        assert_eq!(got, expected[..expected.len().min(12)], "{token}");
        compared += 1;
        with_words += usize::from(!got.is_empty());
        partial += usize::from(expected.len() > got.len());
    }
    eprintln!(
        "{compared} tokens compared, {with_words} with words two edits away, {partial} with more than were kept"
    );
    assert!(compared >= 200, "{compared} tokens compared");
    assert!(
        with_words >= 150 && partial >= 50,
        "{with_words} / {partial}"
    );
}
