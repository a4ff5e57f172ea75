//! Property tests: `parse` and `parse_attributes` never panic, the canonical text parses back
//! to the same query, `NOT` negates, the attribute dialect's evaluation agrees with a reference
//! evaluator.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::ast::{Clause, Expr, Field, Op};
use crate::tests::TestStore;
use crate::text;
use crate::{MAX_QUERY_BYTES, Query, lookup_attribute, parse, parse_attributes};

/// Pieces that make mostly well-formed queries when joined, and many broken ones.
const PIECES: &[&str] = &[
    "type:",
    "tag:",
    "city:",
    "country:",
    "name:",
    "idstore:",
    "localized:",
    "user.rating:",
    "user.x:>=",
    ":=",
    ":",
    ">",
    "<=",
    "pharmacy",
    "4.5",
    "-3",
    "AD",
    "true",
    "AND",
    "OR",
    "NOT",
    "and",
    "(",
    ")",
    "\"",
    "\\",
    "\\\"",
    " ",
    "  ",
    "\t",
    "é",
    "北京",
    "\u{301}",
    "x",
];

fn pieces() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..60).prop_map(|v| v.concat())
}

/// Whatever `parse` answers is coherent: an error points inside the input, a query prints to
/// a text that parses back to it.
fn check_answer(input: &str) {
    match parse(input) {
        Ok(q) => {
            let text = q.to_string();
            assert_eq!(
                parse(&text).as_ref(),
                Ok(&q),
                "{input:?} printed as {text:?}"
            );
        }
        Err(e) => {
            assert!(e.offset() <= input.len() && input.is_char_boundary(e.offset()));
            assert_eq!(e.column(), input[..e.offset()].chars().count() + 1);
            assert!(e.to_string().starts_with("query: at column "));
        }
    }
}

proptest! {
    #[test]
    fn parse_never_panics_on_any_text(input in any::<String>()) {
        check_answer(&input);
    }

    #[test]
    fn parse_never_panics_on_long_text(input in "(?s).{1500,2100}") {
        check_answer(&input);
    }

    #[test]
    fn parse_never_panics_on_query_like_text(input in pieces()) {
        check_answer(&input);
    }

    #[test]
    fn parse_never_panics_on_deep_nesting(
        open in 0usize..3000,
        close in 0usize..3000,
        nots in 0usize..600,
        middle in pieces(),
    ) {
        let input = format!("{}{}{middle}{}", "NOT ".repeat(nots), "(".repeat(open), ")".repeat(close));
        check_answer(&input);
        let e = parse(&format!("{}tag:a{}", "(".repeat(open), ")".repeat(open)));
        prop_assert_eq!(e.is_ok(), open <= crate::MAX_DEPTH);
    }
}

// ----- generated queries -----

/// Words the generated stores and clause values share, so that clauses often match.
const WORDS: &[&str] = &[
    "pharmacy", "Fuel", "24h", "andorra", "Vella", "Lòria", "sant", "central", "A1", "a12",
];

fn field() -> impl Strategy<Value = Field> {
    prop_oneof![
        Just(Field::Type),
        Just(Field::Tag),
        Just(Field::City),
        Just(Field::Country),
        Just(Field::Name),
        Just(Field::IdStore),
        Just(Field::Localized),
        prop::sample::select(&["rating", "open_sunday", "owner", "x_1"][..])
            .prop_map(|a| Field::User(a.to_owned())),
    ]
}

fn op(field: &Field) -> BoxedStrategy<Op> {
    if field.takes_comparisons() {
        prop::sample::select(&[Op::Match, Op::Eq, Op::Gt, Op::Lt, Op::Ge, Op::Le][..]).boxed()
    } else {
        prop::sample::select(&[Op::Match, Op::Eq][..]).boxed()
    }
}

fn value(op: Op) -> BoxedStrategy<String> {
    let number = prop_oneof![
        any::<i32>().prop_map(|n| n.to_string()),
        (-10.0f64..10.0).prop_map(|f| f.to_string()),
        Just("4.5".to_owned()),
    ];
    if op.is_comparison() {
        return number.boxed();
    }
    prop_oneof![
        prop::sample::select(WORDS).prop_map(str::to_owned),
        number,
        prop::sample::select(&["true", "FALSE", "AD", "fr", "AND", "OR", "NOT"][..])
            .prop_map(str::to_owned),
        // Anything the quoting must survive.
        "[a-zA-Z0-9 àÉß\"\\\\()=<>:.\t-]{1,10}",
        any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ]
    .boxed()
}

/// Valid clauses only (a country needs two letters, `:` on text a letter or digit, …).
fn clause() -> impl Strategy<Value = Expr> {
    field()
        .prop_flat_map(|f| (Just(f.clone()), op(&f)))
        .prop_flat_map(|(f, op)| (Just(f), Just(op), value(op)))
        .prop_filter_map("value invalid for the clause", |(f, op, v)| {
            Clause::new(f, op, v).ok().map(Expr::Clause)
        })
}

fn expr() -> impl Strategy<Value = Expr> {
    clause().prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(l, r)| Expr::And(Box::new(l), Box::new(r))),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| Expr::Or(Box::new(l), Box::new(r))),
            inner.prop_map(|e| Expr::Not(Box::new(e))),
        ]
    })
}

fn subset(words: &'static [&'static str]) -> impl Strategy<Value = Vec<String>> {
    prop::sample::subsequence(words, 0..=words.len())
        .prop_map(|v| v.into_iter().map(str::to_owned).collect())
}

fn store() -> impl Strategy<Value = TestStore> {
    let text = || {
        prop::sample::select(&["Andorra la Vella", "Sant Julià de Lòria", "central A12", ""][..])
    };
    let user_value = prop_oneof![
        (-10.0f64..10.0).prop_map(|f| json!(f)),
        Just(json!(4.5)),
        any::<bool>().prop_map(Value::Bool),
        prop::sample::select(WORDS).prop_map(|w| json!(w)),
        Just(Value::Null),
    ];
    (
        (
            subset(&["pharmacy", "FUEL", "shop"]),
            subset(&["24h", "parking"]),
        ),
        (
            text(),
            prop::option::of(prop::sample::select(&["AD", "fr"][..])),
            text(),
            text(),
        ),
        subset(&["Pharmacie centrale", "Lòria", "A1"]),
        prop::collection::btree_map(
            prop::sample::select(&["rating", "open_sunday", "owner", "x_1"][..]),
            user_value,
            0..4,
        ),
    )
        .prop_map(
            |((types, tags), (city, country, name, id), localized, user)| TestStore {
                types,
                tags,
                city: city.to_owned(),
                country: country.map(str::to_owned),
                name: name.to_owned(),
                id: id.to_owned(),
                localized,
                user: user
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect::<Map<String, Value>>(),
            },
        )
}

proptest! {
    #[test]
    fn canonical_text_parses_to_the_same_query(e in expr()) {
        let q = Query { expr: e };
        let text = q.to_string();
        prop_assume!(text.len() <= MAX_QUERY_BYTES);
        prop_assert_eq!(parse(&text), Ok(q), "{}", text);
    }

    #[test]
    fn not_negates(e in expr(), s in store()) {
        let q = Query { expr: e };
        prop_assume!(q.to_string().len() + 6 <= MAX_QUERY_BYTES);
        let not = Query { expr: Expr::Not(Box::new(q.expr.clone())) };
        prop_assert_eq!(not.matches(&s), !q.matches(&s));
        // The same through the text.
        let parsed = parse(&format!("NOT ({q})")).unwrap();
        prop_assert_eq!(parsed.matches(&s), !q.matches(&s));
    }

    #[test]
    fn and_or_are_the_boolean_operators(a in expr(), b in expr(), s in store()) {
        let (qa, qb) = (Query { expr: a }, Query { expr: b });
        prop_assume!(qa.to_string().len() + qb.to_string().len() + 10 <= MAX_QUERY_BYTES);
        let and = parse(&format!("({qa}) AND ({qb})")).unwrap();
        let or = parse(&format!("({qa}) OR ({qb})")).unwrap();
        prop_assert_eq!(and.matches(&s), qa.matches(&s) && qb.matches(&s));
        prop_assert_eq!(or.matches(&s), qa.matches(&s) || qb.matches(&s));
    }
}

// ----- the attribute dialect -----

/// Pieces of `where` filters, well-formed and broken.
const ATTRIBUTE_PIECES: &[&str] = &[
    "a:",
    "owner.name:",
    "zone-code:",
    "a.b",
    "a..b:",
    ".x:",
    ":",
    ":=",
    ":!=",
    ":>=",
    ":<",
    "!=",
    "!",
    "==",
    "<>",
    "=>",
    "null",
    "NULL",
    "\"null\"",
    "IN(",
    "IN",
    ",",
    ", ",
    ")",
    "(",
    "x",
    "4.5",
    "-3",
    "true",
    "AND",
    "OR",
    "NOT",
    "and",
    "\"",
    "\\",
    "\\\"",
    " ",
    "\t",
    "é",
    "\u{301}",
    ".",
    "-",
    "_",
    "type:",
];

fn attribute_pieces() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(ATTRIBUTE_PIECES), 0..60).prop_map(|v| v.concat())
}

/// Whatever `parse_attributes` answers is coherent: an error points inside the input, a filter
/// prints to a text no longer than the input that parses back to it.
fn check_attribute_answer(input: &str) {
    match parse_attributes(input) {
        Ok(q) => {
            let text = q.to_string();
            assert!(text.len() <= input.len(), "{input:?} printed as {text:?}");
            assert_eq!(
                parse_attributes(&text).as_ref(),
                Ok(&q),
                "{input:?} printed as {text:?}"
            );
            assert!(
                q.clauses()
                    .all(|c| matches!(c.field(), Field::Attribute(_)))
            );
        }
        Err(e) => {
            assert!(e.offset() <= input.len() && input.is_char_boundary(e.offset()));
            assert_eq!(e.column(), input[..e.offset()].chars().count() + 1);
            assert!(e.to_string().starts_with("where: at column "), "{e}");
        }
    }
}

proptest! {
    #[test]
    fn parse_attributes_never_panics_on_any_text(input in any::<String>()) {
        check_attribute_answer(&input);
    }

    #[test]
    fn parse_attributes_never_panics_on_long_text(input in "(?s).{1500,2100}") {
        check_attribute_answer(&input);
    }

    #[test]
    fn parse_attributes_never_panics_on_filter_like_text(input in attribute_pieces()) {
        check_attribute_answer(&input);
    }

    #[test]
    fn parse_attributes_never_panics_on_deep_nesting(
        open in 0usize..3000,
        close in 0usize..3000,
        nots in 0usize..600,
        lists in 0usize..400,
        middle in attribute_pieces(),
    ) {
        let input = format!(
            "{}{}{}{middle}{}",
            "NOT ".repeat(nots),
            "(".repeat(open),
            "a:IN(".repeat(lists),
            ")".repeat(close)
        );
        check_attribute_answer(&input);
        let e = parse_attributes(&format!("{}a:1{}", "(".repeat(open), ")".repeat(open)));
        prop_assert_eq!(e.is_ok(), open <= crate::MAX_DEPTH);
    }

    #[test]
    fn long_lists_and_backslashes_print_no_longer(
        values in prop::collection::vec("[a-z\\\\,]{1,30}", 1..120),
        nots in 0usize..40,
        as_list in any::<bool>(),
    ) {
        let quote = |v: &String| format!("\"{}\"", v.replace('\\', "\\\\"));
        let body = if as_list {
            format!("a:IN({})", values.iter().map(quote).collect::<Vec<_>>().join(","))
        } else {
            values.iter().map(|v| format!("a:={}", quote(v))).collect::<Vec<_>>().join(" OR ")
        };
        let input = format!("{}({body})", "NOT ".repeat(nots));
        check_attribute_answer(&input);
    }
}

/// Attribute paths of the generated filters and attributes.
const PATHS: &[&str] = &["n", "s", "b", "tags", "a.b", "a", "nul", "zone-code"];

/// Words shared by generated values and attributes.
const ATTRIBUTE_WORDS: &[&str] = &[
    "Open", "closed", "wifi", "Terrace", "é", "Été", "x-12", "12", "null", "IN", "a,b", "!x",
];

fn attribute_value(op: Op) -> BoxedStrategy<String> {
    let number = prop_oneof![
        (-3i32..4).prop_map(|n| n.to_string()),
        Just("1.5".to_owned()),
        Just("15e-1".to_owned()),
    ];
    if op.is_comparison() {
        return number.boxed();
    }
    prop_oneof![
        prop::sample::select(ATTRIBUTE_WORDS).prop_map(str::to_owned),
        number,
        prop::sample::select(&["true", "FALSE", "AND", "NULL", "\"q\"", "x\\y"][..])
            .prop_map(str::to_owned),
        "[a-zA-Z0-9 àÉ\"\\\\()=<>!,:.\t-]{1,10}",
    ]
    .boxed()
}

/// Valid clauses of the attribute dialect.
fn attribute_clause() -> impl Strategy<Value = Clause> {
    let op = prop::sample::select(
        &[
            Op::Match,
            Op::Eq,
            Op::Ne,
            Op::Gt,
            Op::Lt,
            Op::Ge,
            Op::Le,
            Op::Null,
        ][..],
    );
    (prop::sample::select(PATHS), op)
        .prop_flat_map(|(p, op)| (Just(p), Just(op), attribute_value(op)))
        .prop_filter_map("value invalid for the clause", |(p, op, v)| {
            let field = Field::Attribute(p.to_owned());
            if op == Op::Null {
                return Some(Clause::null(field));
            }
            Clause::new(field, op, v).ok()
        })
}

/// Filters, lists among them (`OR`s of `=` clauses on one path).
fn attribute_expr() -> impl Strategy<Value = Expr> {
    let list = (
        prop::sample::select(PATHS),
        prop::collection::vec(attribute_value(Op::Eq), 2..5),
    )
        .prop_filter_map("value invalid for the clause", |(p, values)| {
            let mut items = values.into_iter().map(|v| {
                Clause::new(Field::Attribute(p.to_owned()), Op::Eq, v)
                    .ok()
                    .map(Expr::Clause)
            });
            let first = items.next()??;
            items.try_fold(first, |l, r| Some(Expr::Or(Box::new(l), Box::new(r?))))
        });
    prop_oneof![3 => attribute_clause().prop_map(Expr::Clause), 1 => list].prop_recursive(
        4,
        16,
        2,
        |inner| {
            prop_oneof![
                (inner.clone(), inner.clone())
                    .prop_map(|(l, r)| Expr::And(Box::new(l), Box::new(r))),
                (inner.clone(), inner.clone())
                    .prop_map(|(l, r)| Expr::Or(Box::new(l), Box::new(r))),
                inner.prop_map(|e| Expr::Not(Box::new(e))),
            ]
        },
    )
}

fn json_scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-3i32..4).prop_map(|n| json!(n)),
        Just(json!(1.5)),
        any::<bool>().prop_map(Value::Bool),
        prop::sample::select(ATTRIBUTE_WORDS).prop_map(|w| json!(w)),
        Just(json!("Terrace wifi")),
        Just(Value::Null),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    json_scalar().prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(&["b", "c"][..]), inner, 0..3)
                .prop_map(|m| json!(m)),
        ]
    })
}

/// A feature's attributes: some of the paths, nested `a.b` or literal `"a.b"`.
fn attributes() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map(
        prop::sample::select(&["n", "s", "b", "tags", "a", "a.b", "zone-code"][..]),
        json_value(),
        0..6,
    )
    .prop_map(|m| m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

// The reference evaluator: the table of `docs/datasets-where.md`, written out plainly.

fn reference_lookup<'a>(attributes: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    if attributes.contains_key(path) {
        return attributes.get(path);
    }
    let names: Vec<&str> = path.split('.').collect();
    let mut value = attributes.get(names[0])?;
    for name in &names[1..] {
        match value {
            Value::Object(o) => value = o.get(*name)?,
            _ => return None,
        }
    }
    Some(value)
}

fn reference_scalar(op: Op, written: &str, value: &Value) -> bool {
    let number = text::number(written);
    match value {
        Value::Number(n) => {
            let a = n.as_f64().unwrap();
            match (op, number) {
                (_, None) => false,
                (Op::Match | Op::Eq, Some(x)) => a == x,
                (Op::Gt, Some(x)) => a > x,
                (Op::Lt, Some(x)) => a < x,
                (Op::Ge, Some(x)) => a >= x,
                (Op::Le, Some(x)) => a <= x,
                _ => unreachable!(),
            }
        }
        Value::Bool(b) => {
            matches!(op, Op::Match | Op::Eq) && written.to_ascii_lowercase() == b.to_string()
        }
        Value::String(s) => match op {
            Op::Match => {
                let field = text::fold(s);
                text::fold(written)
                    .split(' ')
                    .all(|w| field.split(' ').any(|f| f.starts_with(w)))
            }
            Op::Eq => s.to_lowercase() == written.to_lowercase(),
            _ => false,
        },
        _ => false,
    }
}

fn reference_clause(c: &Clause, value: Option<&Value>) -> bool {
    let written = c.value();
    match (c.op(), value) {
        (Op::Null, v) => matches!(v, None | Some(Value::Null)),
        (Op::Ne, Some(Value::Array(items))) => {
            !items.iter().any(|x| reference_scalar(Op::Eq, written, x))
        }
        (Op::Ne, Some(x @ (Value::Number(_) | Value::Bool(_) | Value::String(_)))) => {
            !reference_scalar(Op::Eq, written, x)
        }
        (Op::Ne, _) => false,
        (op, Some(Value::Array(items))) => items.iter().any(|x| reference_scalar(op, written, x)),
        (op, Some(x)) => reference_scalar(op, written, x),
        (_, None) => false,
    }
}

fn reference(e: &Expr, attributes: &Map<String, Value>) -> bool {
    match e {
        Expr::And(l, r) => reference(l, attributes) && reference(r, attributes),
        Expr::Or(l, r) => reference(l, attributes) || reference(r, attributes),
        Expr::Not(e) => !reference(e, attributes),
        Expr::Clause(c) => {
            let Field::Attribute(path) = c.field() else {
                unreachable!()
            };
            reference_clause(c, reference_lookup(attributes, path))
        }
    }
}

proptest! {
    #[test]
    fn attribute_canonical_text_parses_to_the_same_filter(e in attribute_expr()) {
        let q = Query { expr: e };
        let text = q.to_string();
        prop_assume!(text.len() <= MAX_QUERY_BYTES);
        prop_assert_eq!(parse_attributes(&text), Ok(q), "{}", text);
    }

    #[test]
    fn attribute_evaluation_agrees_with_the_reference(
        e in attribute_expr(),
        attrs in attributes(),
    ) {
        let q = Query { expr: e };
        let want = reference(&q.expr, &attrs);
        prop_assert_eq!(q.matches_attributes(&attrs), want, "{} on {:?}", q, attrs);
        let mut calls = 0;
        let got = q.matches_with(&mut |c| {
            calls += 1;
            let Field::Attribute(path) = c.field() else { unreachable!() };
            let value = reference_lookup(&attrs, path);
            assert_eq!(lookup_attribute(&attrs, path), value);
            if let Some(Value::Number(n)) = value {
                assert_eq!(c.number_matches(n.as_f64().unwrap()), c.value_matches(value));
            }
            c.value_matches(value)
        });
        prop_assert!(calls >= 1);
        prop_assert_eq!(got, want, "{} on {:?}", q, attrs);
        // Through the text, and negated.
        let text = q.to_string();
        prop_assume!(text.len() + 6 <= MAX_QUERY_BYTES);
        let parsed = parse_attributes(&format!("NOT ({text})")).unwrap();
        prop_assert_eq!(parsed.matches_attributes(&attrs), !want);
    }

    #[test]
    fn lists_match_when_one_value_is_equal(
        path in prop::sample::select(PATHS),
        values in prop::collection::vec(attribute_value(Op::Eq), 1..6),
        attrs in attributes(),
    ) {
        let quoted: Vec<String> = values
            .iter()
            .map(|v| format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\"")))
            .collect();
        let text = format!("{path}:IN({})", quoted.join(" , "));
        let q = parse_attributes(&text).unwrap();
        prop_assert_eq!(q.clauses().count(), values.len());
        let value = reference_lookup(&attrs, path);
        let want = q
            .clauses()
            .any(|c| reference_clause(c, value));
        prop_assert_eq!(q.matches_attributes(&attrs), want);
        prop_assert_eq!(parse_attributes(&q.to_string()), Ok(q));
    }
}
