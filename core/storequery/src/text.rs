//! Text helpers of the matching rules: folding into words, case-insensitive equality, numbers.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// The folded words of `text`, joined by single spaces: lower case, accents removed (canonical
/// decomposition without its combining marks, and `ß`→`ss`, `æ`→`ae`, `œ`→`oe`, `ø`→`o`,
/// `ł`→`l`, `đ`/`ð`→`d`, `þ`→`th`, `ı`→`i`), split on every character that is not a letter or
/// a digit.
pub(crate) fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_word = false;
    for c in text.nfd().filter(|c| !is_combining_mark(*c)) {
        if !c.is_alphanumeric() {
            in_word = false;
            continue;
        }
        if !in_word && !out.is_empty() {
            out.push(' ');
        }
        in_word = true;
        for l in c.to_lowercase() {
            match l {
                'ß' => out.push_str("ss"),
                'æ' => out.push_str("ae"),
                'œ' => out.push_str("oe"),
                'ø' => out.push('o'),
                'ł' => out.push('l'),
                'đ' | 'ð' => out.push('d'),
                'þ' => out.push_str("th"),
                'ı' => out.push('i'),
                // `İ` lower-cases to `i` and a combining dot.
                _ if is_combining_mark(l) => {}
                _ => out.push(l),
            }
        }
    }
    out
}

/// Whether every word of `wanted` (folded) is the start of some word of `folded_field`.
pub(crate) fn words_match(wanted: &str, folded_field: &str) -> bool {
    wanted
        .split(' ')
        .all(|w| folded_field.split(' ').any(|f| f.starts_with(w)))
}

/// `text` in lower case, the form [`eq_lower`] compares against.
pub(crate) fn lower(text: &str) -> String {
    text.to_lowercase()
}

/// Whether `text` equals `lowered` (already lower case) ignoring case, without allocating.
pub(crate) fn eq_lower(text: &str, lowered: &str) -> bool {
    if text.is_ascii() && lowered.is_ascii() {
        return text.eq_ignore_ascii_case(lowered);
    }
    text.chars()
        .flat_map(char::to_lowercase)
        .eq(lowered.chars())
}

/// The value of a number written `-?digits[.digits][(e|E)[+|-]digits]`, when finite.
pub(crate) fn number(text: &str) -> Option<f64> {
    let b = text.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return None;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    text.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// `true` or `false` written in any case.
pub(crate) fn boolean(text: &str) -> Option<bool> {
    if text.eq_ignore_ascii_case("true") {
        Some(true)
    } else if text.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding() {
        assert_eq!(fold("Sant Julià de Lòria"), "sant julia de loria");
        assert_eq!(fold("  Weißer-Straße, 24h! "), "weisser strasse 24h");
        assert_eq!(fold("ÆRØ Łódź İzmir"), "aero lodz izmir");
        assert_eq!(fold("-- / --"), "");
        assert_eq!(fold("北京 站"), "北京 站");
    }

    #[test]
    fn word_prefixes() {
        let f = fold("Farmacia Central d'Andorra");
        assert!(words_match("farm", &f));
        assert!(words_match("central farmacia", &f));
        assert!(words_match("andorra", &f));
        assert!(!words_match("macia", &f));
        assert!(!words_match("farmacia norte", &f));
    }

    #[test]
    fn case_insensitive_equality() {
        assert!(eq_lower("PHARMACY", "pharmacy"));
        assert!(eq_lower("ÉCOLE", &lower("école")));
        assert!(!eq_lower("ecole", &lower("école")));
        assert!(!eq_lower("pharmacy ", "pharmacy"));
    }

    #[test]
    fn numbers() {
        for (t, v) in [
            ("4", 4.0),
            ("-4.5", -4.5),
            ("1e3", 1000.0),
            ("2.5E-1", 0.25),
        ] {
            assert_eq!(number(t), Some(v), "{t}");
        }
        for t in [
            "", "-", "+4", ".5", "5.", "1e", "inf", "NaN", "0x10", "4 ", "1e999",
        ] {
            assert_eq!(number(t), None, "{t}");
        }
        assert_eq!(boolean("TRUE"), Some(true));
        assert_eq!(boolean("no"), None);
    }
}
