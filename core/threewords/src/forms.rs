//! Forms of a word's stem (`-s`, `-es`, `-ed`, `-ing`, `-er`, `-ly`), shared by the list's
//! rule of one form per stem and by autosuggest, which reads a typed form as the listed one.

/// Shortest base form considered (`bed` is not a form of `b`).
pub const MIN_BASE_LEN: usize = 3;

fn is_vowel(b: u8) -> bool {
    matches!(b, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// The words of which `word` may be another form, by the suffix rules of one form per stem
/// (whether they are words is not checked): `Xs`, `Xes`, `Xed`, `Xing`, `Xer`, `Xly` of `X`;
/// `Xd`, `Xr` and `Xes`/`Xed`/`Xing`/`Xer` of `Xe`; `XCCed`/`XCCing`/`XCCer`/`XCCes` of `XC`
/// (a doubled consonant); not `Xss` of `Xs`; `Xies`/`Xied`/`Xier`/`Xily` of `Xy`; `Xly` of `Xle`. Bases shorter
/// than 3 letters are left out (`bed` is not a form of `b`).
pub fn base_forms(word: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |base: String| {
        if base.len() >= MIN_BASE_LEN && base != word && !out.contains(&base) {
            out.push(base);
        }
    };
    for suffix in ["s", "es", "ed", "ing", "er", "ly", "d", "r"] {
        let Some(stem) = word.strip_suffix(suffix) else {
            continue;
        };
        if suffix == "s" && stem.ends_with('s') {
            // `class` is no plural of `clas`.
            continue;
        }
        add(stem.to_string());
        if matches!(suffix, "es" | "ed" | "ing" | "er") {
            add(format!("{stem}e"));
            let b = stem.as_bytes();
            if b.len() >= 2 && b[b.len() - 1] == b[b.len() - 2] && !is_vowel(b[b.len() - 1]) {
                add(stem[..stem.len() - 1].to_string());
            }
        }
    }
    for (suffix, replacement) in [
        ("ies", "y"),
        ("ied", "y"),
        ("ier", "y"),
        ("ily", "y"),
        ("ly", "le"),
    ] {
        if let Some(stem) = word.strip_suffix(suffix) {
            add(format!("{stem}{replacement}"));
        }
    }
    out
}

/// Whether `word` is another form of a word for which `is_word` holds ([`base_forms`]).
pub fn has_base_form(word: &str, is_word: impl Fn(&str) -> bool) -> bool {
    base_forms(word).iter().any(|b| is_word(b))
}

/// The plurals `word` may have (`Xs`, `Xes`, `Xies` of `Xy`), whether they are words or not:
/// a listed word that looks plural (`trousers`) is found from its singular.
pub fn plural_forms(word: &str) -> Vec<String> {
    let mut out = vec![format!("{word}s"), format!("{word}es")];
    if let Some(stem) = word.strip_suffix('y') {
        out.push(format!("{stem}ies"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bases_and_plurals() {
        assert!(has_base_form("does", |w| w == "doe"));
        assert!(!has_base_form("boss", |w| w == "bos"));
        assert!(has_base_form("stopped", |w| w == "stop"));
        assert!(has_base_form("ruled", |w| w == "rule"));
        assert!(!has_base_form("seeing", |w| w == "se"));
        assert!(base_forms("cities").contains(&"city".to_string()));
        assert!(plural_forms("city").contains(&"cities".to_string()));
        assert!(plural_forms("box").contains(&"boxes".to_string()));
    }
}
