//! `advanced_filter` of POI search: a property query with `AND`, `OR`, `NOT` and parentheses
//! over the properties of venue features (`docs/indoor-filter.md` is the contract).
//!
//! A hand-written recursive-descent parser ([`parse`]) gives a [`Filter`]; [`Filter::matches`]
//! evaluates it on a feature's properties; `Display` prints the canonical text, which parses
//! back to the same filter. Hostile input (any length, any nesting) is an error, never a panic.
//!
//! ```
//! use serde_json::json;
//! use waymark_core::indoor::filter::parse;
//! let f = parse(r#"shop=bakery AND (wheelchair!=no OR level>=-1) AND name~"back haus""#).unwrap();
//! let props = json!({"shop": "bakery", "level": -2, "name": "Der Backhaus-Stand"});
//! assert!(!f.matches(props.as_object().unwrap())); // level -2, wheelchair absent → `!=` holds
//! assert_eq!(f.to_string(), r#"shop=bakery AND (wheelchair!=no OR level>=-1) AND name~"back haus""#);
//! let e = parse("level>x").unwrap_err();
//! assert_eq!(e.to_string(), "at column 7: expected a number after `level>`, found `x`");
//! ```
use std::fmt;

use serde_json::{Map, Value};

use crate::packs::search::fold;

/// Longest accepted filter text, in bytes.
pub const MAX_FILTER_BYTES: usize = 2000;
/// Deepest accepted nesting of parentheses and `NOT`s.
pub const MAX_DEPTH: usize = 32;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `=`: equal (text ignoring case, or numbers; one `;`-separated part of the property
    /// suffices).
    Eq,
    /// `!=`: not equal (also true when the property is absent).
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `~`: every word of the value starts a word of the property (accents and case folded).
    Contains,
}

impl Op {
    fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Contains => "~",
        }
    }

    fn is_numeric(self) -> bool {
        matches!(self, Op::Lt | Op::Le | Op::Gt | Op::Ge)
    }
}

/// A filter expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Filter {
    /// `left AND right`
    And(Box<Filter>, Box<Filter>),
    /// `left OR right`
    Or(Box<Filter>, Box<Filter>),
    /// `NOT f`
    Not(Box<Filter>),
    /// `key`: the property is present and not `no` / `false`.
    Has(String),
    /// `key op value`.
    Cmp(String, Op, String),
}

/// Why a filter does not parse: where, what was expected, what was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at column {column}: expected {expected}, found {found}")]
pub struct FilterError {
    /// 1-based column (in characters).
    pub column: usize,
    /// What would have been accepted.
    pub expected: String,
    /// What is there.
    pub found: String,
}

fn is_key_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | ':' | '.' | '-' | '@')
}

fn is_keyword(w: &str) -> bool {
    matches!(w, "AND" | "OR" | "NOT")
}

/// Parses a filter.
pub fn parse(input: &str) -> Result<Filter, FilterError> {
    let mut p = Parser {
        s: input,
        pos: 0,
        depth: 0,
    };
    if input.len() > MAX_FILTER_BYTES {
        return Err(FilterError {
            column: 1,
            expected: format!("a filter of at most {MAX_FILTER_BYTES} bytes"),
            found: format!("{} bytes", input.len()),
        });
    }
    p.ws();
    if p.rest().is_empty() {
        return Err(p.err("a comparison such as `shop=bakery`"));
    }
    let f = p.or()?;
    p.ws();
    if p.rest().is_empty() {
        Ok(f)
    } else {
        Err(p.err("AND, OR or the end of the filter"))
    }
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or_default()
    }

    fn ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }

    fn found(&self) -> String {
        let r = self.rest();
        match r.chars().next() {
            None => "the end of the filter".into(),
            Some(c) if c.is_whitespace() => "whitespace".into(),
            Some(_) => {
                let w: String = r
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .take(24)
                    .collect();
                format!("`{w}`")
            }
        }
    }

    fn err(&self, expected: impl Into<String>) -> FilterError {
        FilterError {
            column: self.s.get(..self.pos).map_or(0, |s| s.chars().count()) + 1,
            expected: expected.into(),
            found: self.found(),
        }
    }

    /// The bare word at the cursor (key characters).
    fn word(&self) -> &'a str {
        let r = self.rest();
        let end = r.find(|c: char| !is_key_char(c)).unwrap_or(r.len());
        &r[..end]
    }

    fn keyword(&mut self, kw: &str) -> bool {
        self.ws();
        if self.word() == kw {
            self.pos += kw.len();
            true
        } else {
            false
        }
    }

    fn enter(&mut self) -> Result<(), FilterError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("at most {MAX_DEPTH} nested parentheses and NOTs")));
        }
        Ok(())
    }

    fn or(&mut self) -> Result<Filter, FilterError> {
        let mut l = self.and()?;
        while self.keyword("OR") {
            let r = self.and()?;
            l = Filter::Or(Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn and(&mut self) -> Result<Filter, FilterError> {
        let mut l = self.unary()?;
        while self.keyword("AND") {
            let r = self.unary()?;
            l = Filter::And(Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn unary(&mut self) -> Result<Filter, FilterError> {
        if self.keyword("NOT") {
            self.enter()?;
            let f = self.unary()?;
            self.depth -= 1;
            return Ok(Filter::Not(Box::new(f)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Filter, FilterError> {
        self.ws();
        if self.rest().starts_with('(') {
            self.pos += 1;
            self.enter()?;
            let f = self.or()?;
            self.ws();
            if !self.rest().starts_with(')') {
                return Err(self.err("AND, OR or `)`"));
            }
            self.pos += 1;
            self.depth -= 1;
            return Ok(f);
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Filter, FilterError> {
        let key = if self.rest().starts_with('"') {
            self.quoted()?
        } else {
            let w = self.word();
            if w.is_empty() || is_keyword(w) {
                return Err(self.err("a property name or `(`"));
            }
            self.pos += w.len();
            w.to_owned()
        };
        if key.is_empty() {
            return Err(self.err("a non-empty property name"));
        }
        let save = self.pos;
        self.ws();
        let r = self.rest();
        let op = [
            ("!=", Op::Ne),
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("=", Op::Eq),
            ("<", Op::Lt),
            (">", Op::Gt),
            ("~", Op::Contains),
        ]
        .into_iter()
        .find(|(s, _)| r.starts_with(s));
        let Some((sym, op)) = op else {
            self.pos = save;
            return Ok(Filter::Has(key));
        };
        self.pos += sym.len();
        let ctx = format!("`{key}{sym}`");
        self.ws();
        let value = match self.rest().chars().next() {
            Some('"') => self.quoted()?,
            Some(c) if !c.is_whitespace() && c != '(' && c != ')' => {
                let r = self.rest();
                let end = r
                    .find(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == '"')
                    .unwrap_or(r.len());
                let w = &r[..end];
                if is_keyword(w) {
                    return Err(self.err(format!(
                        "a value after {ctx} (write `\"{w}\"` for the word {w})"
                    )));
                }
                self.pos += end;
                w.to_owned()
            }
            _ => return Err(self.err(format!("a value after {ctx}"))),
        };
        if op.is_numeric() && number(&value).is_none() {
            return Err(FilterError {
                column: self.s.get(..self.pos).map_or(0, |s| s.chars().count()) + 1
                    - value.chars().count(),
                expected: format!("a number after {ctx}"),
                found: format!("`{value}`"),
            });
        }
        if op == Op::Contains && fold(&value).is_empty() {
            return Err(self.err(format!("a value with a letter or digit after {ctx}")));
        }
        Ok(Filter::Cmp(key, op, value))
    }

    fn quoted(&mut self) -> Result<String, FilterError> {
        let start = self.pos;
        let mut out = String::new();
        let mut it = self.rest().char_indices().skip(1);
        while let Some((i, c)) = it.next() {
            match c {
                '"' => {
                    self.pos = start + i + 1;
                    return Ok(out);
                }
                '\\' => match it.next() {
                    Some((_, e @ ('"' | '\\'))) => out.push(e),
                    _ => {
                        self.pos = start + i;
                        return Err(self.err("`\\\"` or `\\\\` (the only escapes)"));
                    }
                },
                c => out.push(c),
            }
        }
        self.pos = start;
        Err(self.err("a closing `\"`"))
    }
}

fn number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

impl Filter {
    /// Whether a feature with `props` satisfies the filter.
    pub fn matches(&self, props: &Map<String, Value>) -> bool {
        match self {
            Filter::And(l, r) => l.matches(props) && r.matches(props),
            Filter::Or(l, r) => l.matches(props) || r.matches(props),
            Filter::Not(f) => !f.matches(props),
            Filter::Has(k) => props.get(k).is_some_and(|v| match v {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::String(s) => !matches!(s.as_str(), "no" | "false" | ""),
                _ => true,
            }),
            Filter::Cmp(k, op, value) => {
                let Some(text) = props.get(k).and_then(text_of) else {
                    return *op == Op::Ne;
                };
                let eq = |part: &str| match (number(part), number(value)) {
                    (Some(a), Some(b)) => a == b,
                    _ => part.trim().to_lowercase() == value.to_lowercase(),
                };
                let parts = || text.split(';');
                match op {
                    Op::Eq => parts().any(eq),
                    Op::Ne => !parts().any(eq),
                    Op::Contains => {
                        let have = fold(&text);
                        let have: Vec<&str> = have.split(' ').collect();
                        fold(value)
                            .split(' ')
                            .all(|w| have.iter().any(|h| h.starts_with(w)))
                    }
                    Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                        let Some(b) = number(value) else {
                            return false;
                        };
                        parts().filter_map(number).any(|a| match op {
                            Op::Lt => a < b,
                            Op::Le => a <= b,
                            Op::Gt => a > b,
                            _ => a >= b,
                        })
                    }
                }
            }
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            Filter::Or(..) => 1,
            Filter::And(..) => 2,
            Filter::Not(_) => 3,
            _ => 4,
        }
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, min: u8) -> fmt::Result {
        let parens = self.precedence() < min;
        if parens {
            f.write_str("(")?;
        }
        match self {
            Filter::Or(l, r) => {
                l.write(f, 1)?;
                f.write_str(" OR ")?;
                r.write(f, 2)?;
            }
            Filter::And(l, r) => {
                l.write(f, 2)?;
                f.write_str(" AND ")?;
                r.write(f, 3)?;
            }
            Filter::Not(e) => {
                f.write_str("NOT ")?;
                e.write(f, 3)?;
            }
            Filter::Has(k) => write_key(f, k)?,
            Filter::Cmp(k, op, v) => {
                write_key(f, k)?;
                f.write_str(op.as_str())?;
                let bare = !v.is_empty()
                    && !is_keyword(v)
                    && !v.contains(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '"'));
                if bare {
                    f.write_str(v)?;
                } else {
                    write_quoted(f, v)?;
                }
            }
        }
        if parens {
            f.write_str(")")?;
        }
        Ok(())
    }
}

fn write_key(f: &mut fmt::Formatter<'_>, k: &str) -> fmt::Result {
    if !k.is_empty() && !is_keyword(k) && k.chars().all(is_key_char) {
        f.write_str(k)
    } else {
        write_quoted(f, k)
    }
}

fn write_quoted(f: &mut fmt::Formatter<'_>, v: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in v.chars() {
        if matches!(c, '"' | '\\') {
            f.write_str("\\")?;
        }
        write!(f, "{c}")?;
    }
    f.write_str("\"")
}

/// Canonical text: single spaces, parentheses only where precedence needs them.
impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, 0)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn props(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn evaluates() {
        let p = props(
            json!({"shop": "bakery;cafe", "level": "-1", "name": "Café Müller",
            "wheelchair": "no", "toilets": "yes"}),
        );
        let t = |s: &str| parse(s).unwrap().matches(&p);
        assert!(t("shop=cafe"));
        assert!(t("shop=BAKERY AND level<0"));
        assert!(!t("shop=bakery AND level>=0"));
        assert!(t("level>=0 OR name~muller"));
        assert!(t("name~\"cafe mul\""));
        assert!(!t("wheelchair"));
        assert!(t("toilets AND NOT wheelchair"));
        assert!(t("opening_hours!=24/7"));
        assert!(!t("opening_hours=24/7"));
        assert!(t("\"shop\"=\"bakery\""));
        assert!(t("NOT (shop=florist OR shop=kiosk)"));
        // precedence: AND binds tighter than OR
        assert!(t("shop=florist AND level=5 OR toilets"));
        assert!(!t("shop=florist AND (level=5 OR toilets)"));
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = |s: &str| parse(s).unwrap_err().to_string();
        assert_eq!(
            e(""),
            "at column 1: expected a comparison such as `shop=bakery`, found the end of the filter"
        );
        assert_eq!(
            e("shop=bakery level=1"),
            "at column 13: expected AND, OR or the end of the filter, found `level=1`"
        );
        assert_eq!(
            e("level>x"),
            "at column 7: expected a number after `level>`, found `x`"
        );
        assert_eq!(
            e("(shop=a"),
            "at column 8: expected AND, OR or `)`, found the end of the filter"
        );
        assert_eq!(
            e("name=\"abc"),
            "at column 6: expected a closing `\"`, found `\"abc`"
        );
        assert_eq!(
            e("AND shop=a"),
            "at column 1: expected a property name or `(`, found `AND`"
        );
        assert_eq!(
            e("shop=OR"),
            "at column 6: expected a value after `shop=` (write `\"OR\"` for the word OR), found `OR`"
        );
        assert!(e(&"(".repeat(40)).contains("nested"));
        assert!(e(&"a".repeat(3000)).contains("2000 bytes"));
    }

    fn arb_filter() -> impl Strategy<Value = Filter> {
        let key = prop_oneof!["[a-z][a-z_:]{0,8}", "[a-z ]{1,6}"];
        let value = prop_oneof!["[a-z0-9]{1,6}", "-?[0-9]{1,3}", "[a-zé \"\\\\()]{1,8}"];
        let op = prop_oneof![
            Just(Op::Eq),
            Just(Op::Ne),
            Just(Op::Contains),
            Just(Op::Lt),
            Just(Op::Ge)
        ];
        let leaf = prop_oneof![
            key.clone().prop_map(Filter::Has),
            (key, op, value).prop_filter_map("valid value", |(k, op, v)| {
                if op.is_numeric() && number(&v).is_none() {
                    return None;
                }
                if op == Op::Contains && fold(&v).is_empty() {
                    return None;
                }
                Some(Filter::Cmp(k, op, v))
            }),
        ];
        leaf.prop_recursive(4, 24, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| Filter::And(Box::new(a), Box::new(b))),
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| Filter::Or(Box::new(a), Box::new(b))),
                inner.prop_map(|a| Filter::Not(Box::new(a))),
            ]
        })
    }

    proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,80}") {
            let _ = parse(&s);
        }

        #[test]
        fn never_panics_on_near_misses(s in "[a-z=<>!~()\" AND OR NOT\\\\-]{0,60}") {
            if let Ok(f) = parse(&s) {
                // what parses prints to text that parses to the same filter
                prop_assert_eq!(parse(&f.to_string()).unwrap(), f);
            }
        }

        #[test]
        fn canonical_text_round_trips(f in arb_filter()) {
            let text = f.to_string();
            prop_assert_eq!(parse(&text).unwrap(), f, "{}", text);
        }
    }
}
