//! Query text: tokens of the input (first 20 tokens of the first 150 characters), forgiving
//! matching of a query token against a word (exact, prefix, typos), and the exact
//! `matched_substrings` of a description.
use crate::api::{AUTOCOMPLETE_INPUT_MAX_CHARS, AUTOCOMPLETE_INPUT_MAX_TOKENS, Substring};
use crate::packs::search::{Word, expansions, fold, words};
use smallvec::SmallVec;

/// One token of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryToken {
    /// Folded text.
    pub text: String,
    /// Whether it may match the start of a word (the token being typed).
    pub prefix: bool,
    /// Full forms when the token is a street-type abbreviation.
    pub alts: Vec<String>,
}

impl QueryToken {
    /// Typos tolerated: 1 for 4+ letters, 2 for 8+.
    pub fn max_typos(&self) -> u8 {
        max_typos(self.text.chars().count())
    }
}

/// Typos tolerated for a word of `len` characters: 1 for 4+, 2 for 8+.
pub fn max_typos(len: usize) -> u8 {
    match len {
        0..4 => 0,
        4..8 => 1,
        _ => 2,
    }
}

/// The processed part of an input: its first 150 characters.
pub fn processed_input(input: &str) -> &str {
    match input.char_indices().nth(AUTOCOMPLETE_INPUT_MAX_CHARS) {
        Some((i, _)) => &input[..i],
        None => input,
    }
}

/// The tokens of `input`: only the first 20 tokens of the first 150 characters. With
/// `as_you_type`, the last token may be a prefix unless the input ends with a separator.
pub fn query_tokens(input: &str, as_you_type: bool) -> Vec<QueryToken> {
    let text = processed_input(input);
    let ws = words(text);
    let ends_open = ws.last().is_some_and(|w| w.end == text.len());
    let n = ws.len().min(AUTOCOMPLETE_INPUT_MAX_TOKENS);
    let truncated = ws.len() > n;
    ws.into_iter()
        .take(n)
        .enumerate()
        .map(|(i, w)| QueryToken {
            alts: expansions(&w.text).iter().map(|s| s.to_string()).collect(),
            prefix: as_you_type && i + 1 == n && ends_open && !truncated,
            text: w.text,
        })
        .collect()
}

/// How a token matched a word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MatchKind {
    /// With typos.
    Fuzzy,
    /// The token is the start of the word.
    Prefix,
    /// The same word (or an abbreviation's full form).
    Exact,
}

impl MatchKind {
    /// Score of the match.
    pub fn score(self) -> f64 {
        match self {
            MatchKind::Exact => 3.0,
            MatchKind::Prefix => 2.0,
            MatchKind::Fuzzy => 1.2,
        }
    }
}

/// Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions).
pub fn osa_distance(a: &[char], b: &[char]) -> usize {
    osa_capped(a, b, usize::MAX - 1)
}

/// [`osa_distance`], or any value above `cap` once the distance is sure to exceed it.
///
/// Three rolling rows, on the stack for words up to 31 characters: ranking compares every
/// query token with many candidate words, and one allocation per row showed in profiles.
/// A row can only fall below the smaller minimum of the two rows before it (a transposition
/// reaches two rows back), so two rows above `cap` end the search.
pub fn osa_capped(a: &[char], b: &[char], cap: usize) -> usize {
    let (n, m) = (a.len(), b.len());
    let w = m + 1;
    // Rows i - 2, i - 1 and i, in turn.
    let mut rows: SmallVec<[usize; 96]> = smallvec::smallvec![0; 3 * w];
    for (j, cell) in rows[..w].iter_mut().enumerate() {
        *cell = j;
    }
    let mut prev_min = 0;
    for i in 1..=n {
        let (cur, prev, prev2) = ((i % 3) * w, ((i - 1) % 3) * w, ((i + 1) % 3) * w);
        rows[cur] = i;
        let mut row_min = i;
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (rows[prev + j] + 1)
                .min(rows[cur + j - 1] + 1)
                .min(rows[prev + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(rows[prev2 + j - 2] + 1);
            }
            rows[cur + j] = v;
            row_min = row_min.min(v);
        }
        if row_min > cap && prev_min > cap {
            return cap + 1;
        }
        prev_min = row_min;
    }
    rows[(n % 3) * w + m]
}

/// How `token` matches the folded `word`, and how many characters of `word` it covers.
pub fn match_word(token: &QueryToken, word: &str) -> Option<(MatchKind, usize)> {
    let wlen = word.chars().count();
    if token.text == word || token.alts.iter().any(|a| a == word) {
        return Some((MatchKind::Exact, wlen));
    }
    if token.prefix && word.starts_with(&token.text) {
        return Some((MatchKind::Prefix, token.text.chars().count()));
    }
    let tlen = token.text.chars().count();
    let typos = usize::from(max_typos(tlen));
    if typos == 0 || (!token.prefix && tlen.abs_diff(wlen) > typos) {
        return None;
    }
    let t: SmallVec<[char; 32]> = token.text.chars().collect();
    let w: SmallVec<[char; 32]> = word.chars().collect();
    if t.len().abs_diff(w.len()) <= typos && osa_capped(&t, &w, typos) <= typos {
        return Some((MatchKind::Fuzzy, wlen));
    }
    if token.prefix {
        // The token against the start of the word, allowing typos.
        let lo = t.len().saturating_sub(typos).max(1);
        let hi = (t.len() + typos).min(w.len());
        let best = (lo..=hi)
            .filter(|&k| k <= w.len())
            .map(|k| (osa_distance(&t, &w[..k]), k))
            .min();
        if let Some((dist, k)) = best
            && dist <= typos
        {
            return Some((MatchKind::Fuzzy, k));
        }
    }
    None
}

/// The best match of `token` in `ws` (consecutive words joined for compounds: the token
/// `weberstrasse` matches `Weber-Straße`): `(kind, first word, last word, chars of the last
/// word covered)`.
pub fn best_match(token: &QueryToken, ws: &[Word]) -> Option<(MatchKind, usize, usize, usize)> {
    let mut best: Option<(MatchKind, usize, usize, usize)> = None;
    for i in 0..ws.len() {
        if let Some((k, n)) = match_word(token, &ws[i].text)
            && best.is_none_or(|b| k > b.0)
        {
            best = Some((k, i, i, n));
        }
        // Compounds: the token against two or three consecutive words.
        let mut joined = ws[i].text.clone();
        for (j, next) in ws.iter().enumerate().take(ws.len().min(i + 3)).skip(i + 1) {
            let before = joined.chars().count();
            joined.push_str(&next.text);
            if joined.len() > token.text.len() + 8 {
                break;
            }
            if let Some((k, n)) = match_word(token, &joined)
                && n > before
                && best.is_none_or(|b| k > b.0)
            {
                best = Some((k, i, j, n - before));
            }
        }
    }
    best
}

/// Characters of the original text of `w` that make up its first `folded_chars` folded ones.
fn original_chars(text: &str, w: &Word, folded_chars: usize) -> usize {
    let original = &text[w.start..w.end];
    let mut folded = 0;
    let mut n = 0;
    for c in original.chars() {
        if folded >= folded_chars {
            break;
        }
        folded += if c.is_ascii() {
            1
        } else {
            fold(c.encode_utf8(&mut [0u8; 4])).chars().count().max(1)
        };
        n += 1;
    }
    n
}

/// Where the query tokens match `description`: offsets and lengths in characters, sorted,
/// overlapping matches merged.
pub fn matched_substrings(description: &str, tokens: &[QueryToken]) -> Vec<Substring> {
    let ws = words(description);
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for t in tokens {
        if let Some((_, i, j, covered)) = best_match(t, &ws) {
            let start = description[..ws[i].start].chars().count();
            let last = &ws[j];
            let end = description[..last.start].chars().count()
                + original_chars(description, last, covered);
            if end > start {
                spans.push((start, end));
            }
        }
    }
    spans.sort();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
        .into_iter()
        .map(|(s, e)| Substring {
            offset: s as u32,
            length: (e - s) as u32,
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn sub(offset: u32, length: u32) -> Substring {
        Substring { offset, length }
    }

    /// The textbook full-matrix OSA distance, the reference for the rolling-row one.
    fn osa_reference(a: &[char], b: &[char]) -> usize {
        let (n, m) = (a.len(), b.len());
        let mut d = vec![vec![0usize; m + 1]; n + 1];
        for (i, row) in d.iter_mut().enumerate() {
            row[0] = i;
        }
        for (j, cell) in d[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=n {
            for j in 1..=m {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut v = (d[i - 1][j] + 1)
                    .min(d[i][j - 1] + 1)
                    .min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = v.min(d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        d[n][m]
    }

    proptest::proptest! {
        #[test]
        fn osa_rows_equal_the_full_matrix(a in "[abcé]{0,40}", b in "[abcé]{0,40}") {
            let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
            let d = osa_reference(&a, &b);
            proptest::prop_assert_eq!(osa_distance(&a, &b), d);
            for cap in 0..4 {
                let c = osa_capped(&a, &b, cap);
                let ok = if d <= cap { c == d } else { c > cap };
                proptest::prop_assert!(ok, "cap {} gave {} for distance {}", cap, c, d);
            }
        }
    }

    #[test]
    fn osa_counts_transpositions_once() {
        let c = |s: &str| s.chars().collect::<Vec<char>>();
        assert_eq!(osa_distance(&c("munchen"), &c("mnuchen")), 1);
        assert_eq!(osa_distance(&c("ca"), &c("abc")), 3);
        assert_eq!(osa_distance(&c(""), &c("abc")), 3);
    }

    #[test]
    fn tokens_keep_twenty_of_the_first_150_characters() {
        let t = query_tokens("Carrer de la Un", true);
        assert_eq!(t.len(), 4);
        assert!(t[3].prefix && !t[2].prefix);
        assert!(!query_tokens("Carrer ", true)[0].prefix);
        let long = "a ".repeat(30);
        assert_eq!(query_tokens(&long, true).len(), 20);
        let over = format!("{}Paris", "x".repeat(150));
        assert_eq!(
            query_tokens(&over, true).len(),
            1,
            "Paris is past 150 characters"
        );
        assert_eq!(query_tokens("Av. Meritxell", true)[0].alts[0], "avenue");
    }

    #[test]
    fn typos_by_length() {
        let tok = |s: &str, prefix| QueryToken {
            text: s.into(),
            prefix,
            alts: vec![],
        };
        assert_eq!(
            match_word(&tok("ordino", false), "ordino").unwrap().0,
            MatchKind::Exact
        );
        assert_eq!(
            match_word(&tok("ordni", false), "ordino"),
            None,
            "2 edits on 5 letters"
        );
        assert_eq!(
            match_word(&tok("odrino", false), "ordino").unwrap().0,
            MatchKind::Fuzzy
        );
        assert_eq!(
            match_word(&tok("abc", false), "abd"),
            None,
            "no typo under 4 letters"
        );
        assert_eq!(
            match_word(&tok("escaldez", false), "escaldes").unwrap().0,
            MatchKind::Fuzzy
        );
        assert_eq!(
            match_word(&tok("neubrandenbrug", false), "neubrandenburg")
                .unwrap()
                .0,
            MatchKind::Fuzzy
        );
        assert_eq!(
            match_word(&tok("escl", true), "escaldes").unwrap().0,
            MatchKind::Fuzzy
        );
        assert_eq!(
            match_word(&tok("esc", true), "escaldes").unwrap(),
            (MatchKind::Prefix, 3)
        );
    }

    #[test]
    fn substrings_are_exact_character_offsets() {
        let tokens = query_tokens("weber straß", true);
        assert_eq!(
            matched_substrings("Weber-Straße 5, Neubrandenburg", &tokens),
            vec![sub(0, 5), sub(6, 5)]
        );
        let tokens = query_tokens("weberstrasse", true);
        assert_eq!(
            matched_substrings("Weber-Straße 5, Neubrandenburg", &tokens),
            vec![sub(0, 12)]
        );
        let tokens = query_tokens("andorra la v", true);
        assert_eq!(
            matched_substrings("Andorra la Vella, Andorra", &tokens),
            vec![sub(0, 7), sub(8, 2), sub(11, 1)]
        );
        let tokens = query_tokens("unio", true);
        assert_eq!(
            matched_substrings("Carrer de la Unió, Andorra", &tokens),
            vec![sub(13, 4)]
        );
    }
}
