//! Property tests: `parse` never panics, the canonical text parses back to the same query,
//! `NOT` negates.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::ast::{Clause, Expr, Field, Op};
use crate::tests::TestStore;
use crate::{MAX_QUERY_BYTES, Query, parse};

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
