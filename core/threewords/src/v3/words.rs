//! The word classes' inputs: which words of the list may be mistaken for each other, and
//! the balanced colouring that puts no two of them in one class.

use std::collections::HashMap;

use super::K;

/// Balanced greedy colouring in rank order: each word takes the least-filled class (lowest
/// on ties) that none of its already coloured list neighbours has and that holds fewer than
/// `words.len() / K` words. `None` when a word finds none or the list does not split into
/// `K` equal classes.
pub fn colour(words: &[String], neighbours: impl Fn(&str) -> Vec<String>) -> Option<Vec<u8>> {
    if !words.len().is_multiple_of(K) {
        return None;
    }
    let rank: HashMap<&str, usize> = words
        .iter()
        .enumerate()
        .map(|(i, w)| (w.as_str(), i))
        .collect();
    let cap = words.len() / K;
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); words.len()];
    for (i, w) in words.iter().enumerate() {
        for v in neighbours(w) {
            if let Some(&j) = rank.get(v.as_str())
                && j != i
            {
                adj[i].push(j);
                adj[j].push(i);
            }
        }
    }
    let mut size = [0usize; K];
    let mut class = vec![u8::MAX; words.len()];
    for i in 0..words.len() {
        let mut taken = [false; K];
        for &j in &adj[i] {
            if let Some(t) = taken.get_mut(usize::from(class[j])) {
                *t = true;
            }
        }
        let c = (0..K)
            .filter(|&c| size[c] < cap && !taken[c])
            .min_by_key(|&c| (size[c], c))?;
        class[i] = c as u8;
        size[c] += 1;
    }
    Some(class)
}

/// The strings one edit away from `w` (a–z only): a letter removed, two neighbouring letters
/// swapped, a letter changed, a letter added. Whether they are words is not checked; `w`
/// itself is left out. Autosuggest reads a mistyped word through the same function.
pub fn one_edit(w: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(54 * w.len() + 26);
    each_edit(w, |v| out.push(v.to_string()));
    out
}

/// Calls `f` with each string of [`one_edit`]`(w)`, in the same order, from one buffer (no
/// allocation per string).
pub fn each_edit(w: &str, mut f: impl FnMut(&str)) {
    let b = w.as_bytes();
    let mut v = Vec::with_capacity(b.len() + 1);
    let mut emit = |v: &[u8]| {
        if let Ok(s) = std::str::from_utf8(v)
            && s != w
        {
            f(s);
        }
    };
    for i in 0..b.len() {
        v.clear();
        v.extend_from_slice(&b[..i]);
        v.extend_from_slice(&b[i + 1..]);
        emit(&v);
    }
    for i in 0..b.len().saturating_sub(1) {
        v.clear();
        v.extend_from_slice(b);
        v.swap(i, i + 1);
        emit(&v);
    }
    for i in 0..b.len() {
        v.clear();
        v.extend_from_slice(b);
        for c in b'a'..=b'z' {
            if c != b[i] {
                v[i] = c;
                emit(&v);
            }
        }
    }
    for i in 0..=b.len() {
        v.clear();
        v.extend_from_slice(&b[..i]);
        v.push(b'a');
        v.extend_from_slice(&b[i..]);
        for c in b'a'..=b'z' {
            v[i] = c;
            emit(&v);
        }
    }
}

/// The words a listed word may be mistaken for: one edit away ([`one_edit`]), its plural or
/// singular, another form of its stem (both ways). Whether they are words is not checked; the
/// word itself is left out.
pub fn neighbours(w: &str) -> Vec<String> {
    let mut words = one_edit(w);
    words.extend(crate::forms::base_forms(w));
    words.extend(crate::forms::plural_forms(w));
    for suffix in ["ed", "ing", "er", "ly", "d", "r"] {
        words.push(format!("{w}{suffix}"));
    }
    if let Some(stem) = w.strip_suffix('e') {
        for suffix in ["ed", "ing", "er"] {
            words.push(format!("{stem}{suffix}"));
        }
    }
    if let Some(stem) = w.strip_suffix("ies") {
        words.push(format!("{stem}y"));
    }
    if let Some(stem) = w.strip_suffix("es") {
        words.push(stem.to_string());
    }
    if let Some(stem) = w.strip_suffix('s') {
        words.push(stem.to_string());
    }
    words.retain(|v| v != w);
    words.sort();
    words.dedup();
    words
}
