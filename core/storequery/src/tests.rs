//! Unit tests: every field and operator, precedence, quoting, the canonical text, every error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Map, Value, json};

use crate::{Expr, Field, Op, QueryErrorKind as K, StoreFields, parse};

/// A store for the tests.
#[derive(Debug, Clone, Default)]
pub(crate) struct TestStore {
    pub types: Vec<String>,
    pub tags: Vec<String>,
    pub city: String,
    pub country: Option<String>,
    pub name: String,
    pub id: String,
    pub localized: Vec<String>,
    pub user: Map<String, Value>,
}

impl StoreFields for TestStore {
    fn types(&self) -> &[String] {
        &self.types
    }
    fn tags(&self) -> &[String] {
        &self.tags
    }
    fn city(&self) -> &str {
        &self.city
    }
    fn country_code(&self) -> Option<&str> {
        self.country.as_deref()
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn store_id(&self) -> &str {
        &self.id
    }
    fn localized_names(&self) -> impl Iterator<Item = &str> {
        self.localized.iter().map(String::as_str)
    }
    fn user_property(&self, name: &str) -> Option<&Value> {
        self.user.get(name)
    }
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// A pharmacy in Andorra la Vella.
fn pharmacy() -> TestStore {
    TestStore {
        types: strings(&["pharmacy", "Health"]),
        tags: strings(&["24h", "parking"]),
        city: "Andorra la Vella".into(),
        country: Some("AD".into()),
        name: "Farmàcia Central".into(),
        id: "A123".into(),
        localized: strings(&["Pharmacie Centrale", "Central Pharmacy"]),
        user: match json!({
            "rating": 4.5,
            "floors": 2,
            "open_sunday": true,
            "owner": "Núria Puig",
            "code": "X-12",
            "note": null,
            "langs": ["ca", "es"]
        }) {
            Value::Object(m) => m,
            _ => unreachable!(),
        },
    }
}

/// Whether `query` parses and matches the pharmacy.
fn hit(query: &str) -> bool {
    parse(query)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .matches(&pharmacy())
}

/// Whether each query matches the pharmacy as expected (all the mismatches are reported).
fn hits(cases: &[(&str, bool)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(q, want)| hit(q) != *want)
        .map(|(q, want)| format!("{q}: expected {want}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The error of `query`: its kind, column and message.
fn err(query: &str) -> (K, usize, String) {
    let e = parse(query).expect_err(query);
    (e.kind(), e.column(), e.to_string())
}

#[test]
fn type_and_tag_are_case_insensitive_membership() {
    hits(&[
        ("type:pharmacy", true),
        ("type:PHARMACY", true),
        ("type:=health", true),
        ("type:pharm", false),
        ("type:fuel", false),
        ("tag:24H", true),
        ("tag:=parking", true),
        ("tag:park", false),
    ]);
}

#[test]
fn country_matches_the_code_ignoring_case() {
    hits(&[
        ("country:AD", true),
        ("country:ad", true),
        ("country:=Ad", true),
        ("country:FR", false),
    ]);
    let mut unknown = pharmacy();
    unknown.country = None;
    assert!(!parse("country:AD").unwrap().matches(&unknown));
    assert!(parse("NOT country:AD").unwrap().matches(&unknown));
}

#[test]
fn text_fields_match_word_prefixes_ignoring_case_and_accents() {
    hits(&[
        ("city:andorra", true),
        ("city:vella", true),
        (r#"city:"VELLA andorra""#, true),
        ("city:orra", false),
        (r#"city:"andorra escaldes""#, false),
        ("name:farmacia", true),
        ("name:FARMÀ", true),
        (r#"name:"central farm""#, true),
        ("idstore:a12", true),
        ("idstore:123", false),
        ("localized:pharmacie", true),
        ("localized:pharmacy", true),
        ("localized:farmacia", false),
    ]);
}

#[test]
fn text_equality_ignores_case_only() {
    hits(&[
        (r#"city:="andorra la vella""#, true),
        ("city:=andorra", false),
        (r#"name:="FARMÀCIA CENTRAL""#, true),
        (r#"name:="Farmacia Central""#, false),
        ("idstore:=a123", true),
        ("idstore:=A12", false),
        (r#"localized:="central pharmacy""#, true),
        ("localized:=central", false),
    ]);
}

#[test]
fn user_numbers_compare_numerically() {
    hits(&[
        ("user.rating:>=4.5", true),
        ("user.rating:>4.5", false),
        ("user.rating:<=4.5", true),
        ("user.rating:<5", true),
        ("user.rating:>4", true),
        ("user.rating:<4.5", false),
        ("user.rating:4.5", true),
        ("user.rating:=4.50", true),
        ("user.rating:=45e-1", true),
        ("user.rating:4", false),
        ("user.floors:2", true),
        ("user.floors:=2.0", true),
        ("user.floors:>=-3", true),
        ("user.floors:two", false),
        // Missing or not a number: no match, and NOT matches.
        ("user.missing:>0", false),
        ("user.owner:>0", false),
        ("user.open_sunday:>0", false),
        ("NOT user.missing:>0", true),
    ]);
}

#[test]
fn user_booleans_and_texts() {
    hits(&[
        ("user.open_sunday:true", true),
        ("user.open_sunday:=TRUE", true),
        ("user.open_sunday:false", false),
        ("user.open_sunday:yes", false),
        ("user.owner:nuria", true),
        ("user.owner:puig", true),
        (r#"user.owner:"Puig Núria""#, true),
        ("user.owner:uria", false),
        (r#"user.owner:="nuria puig""#, false),
        (r#"user.owner:="NÚRIA PUIG""#, true),
        ("user.code:x", true),
        ("user.code:=x-12", true),
        ("user.code:12", true),
        // Null, arrays and objects match nothing.
        ("user.note:null", false),
        ("user.langs:ca", false),
    ]);
    // A text attribute that looks like a boolean or a number is compared as text.
    let mut s = pharmacy();
    s.user.insert("flag".into(), json!("true"));
    s.user.insert("size".into(), json!("10"));
    assert!(parse("user.flag:true").unwrap().matches(&s));
    assert!(parse("user.size:=10").unwrap().matches(&s));
    assert!(!parse("user.size:>5").unwrap().matches(&s));
}

#[test]
fn attribute_names_are_case_sensitive() {
    assert!(!hit("user.Rating:4.5"));
    assert!(parse("user.a_B9:x").is_ok());
}

fn same(a: &str, b: &str) {
    assert_eq!(parse(a).unwrap(), parse(b).unwrap(), "{a} vs {b}");
}

#[test]
fn precedence_and_associativity() {
    same("tag:a OR tag:b AND tag:c", "tag:a OR (tag:b AND tag:c)");
    same("NOT tag:a AND tag:b", "(NOT tag:a) AND tag:b");
    same("tag:a AND tag:b AND tag:c", "(tag:a AND tag:b) AND tag:c");
    same("tag:a OR tag:b OR tag:c", "(tag:a OR tag:b) OR tag:c");
    same("NOT NOT tag:a", "NOT (NOT tag:a)");
    same(
        "tag:a AND NOT tag:b OR tag:c",
        "(tag:a AND (NOT tag:b)) OR tag:c",
    );
    assert_ne!(
        parse("tag:a OR tag:b AND tag:c").unwrap(),
        parse("(tag:a OR tag:b) AND tag:c").unwrap()
    );
    let q = parse("tag:a OR tag:b AND tag:c").unwrap();
    assert!(matches!(q.expr(), Expr::Or(_, r) if matches!(**r, Expr::And(..))));
    // Evaluation follows the tree.
    assert!(hit("type:fuel OR type:pharmacy AND tag:24h"));
    assert!(!hit("(type:pharmacy OR type:fuel) AND tag:none"));
    assert!(hit("NOT (type:fuel OR type:supermarket)"));
    assert!(!hit("NOT type:fuel AND type:fuel"));
}

#[test]
fn whitespace_and_parentheses() {
    same(" \t(tag:a)AND(tag:b)\n", "tag:a AND tag:b");
    same("NOT(tag:a)", "NOT tag:a");
    same(r#"name:"x"OR tag:b"#, r#"name:x OR tag:b"#);
    same("((((tag:a))))", "tag:a");
}

#[test]
fn quoting_and_escapes() {
    let value = |q: &str| {
        parse(q)
            .unwrap()
            .clauses()
            .next()
            .unwrap()
            .value()
            .to_owned()
    };
    assert_eq!(value(r#"name:"Farmacia Central""#), "Farmacia Central");
    assert_eq!(value(r#"name:"say \"hi\"""#), r#"say "hi""#);
    assert_eq!(value(r#"name:"a\\b""#), r"a\b");
    assert_eq!(value(r"name:a\b"), r"a\b");
    assert_eq!(value(r#"tag:"AND""#), "AND");
    assert_eq!(value("tag:and"), "and");
    assert_eq!(value("idstore:a:b"), "a:b");
    assert_eq!(value(r#"name:=">x""#), ">x");
    assert_eq!(value(r#"name:="(""#), "(");
    assert!(hit(r#"name:"Farmacia Central""#));
}

#[test]
fn canonical_text() {
    for (input, canonical) in [
        ("  type:pharmacy  ", "type:pharmacy"),
        ("(tag:a OR tag:b) AND tag:c", "(tag:a OR tag:b) AND tag:c"),
        ("tag:a OR (tag:b AND tag:c)", "tag:a OR tag:b AND tag:c"),
        ("tag:a AND (tag:b AND tag:c)", "tag:a AND (tag:b AND tag:c)"),
        ("tag:a OR (tag:b OR tag:c)", "tag:a OR (tag:b OR tag:c)"),
        ("NOT (tag:a)", "NOT tag:a"),
        ("NOT (tag:a AND tag:b)", "NOT (tag:a AND tag:b)"),
        ("NOT(NOT tag:a)", "NOT NOT tag:a"),
        (r#"name:"Farmacia""#, "name:Farmacia"),
        (r#"name:"a \"b\" \\c""#, r#"name:"a \"b\" \\c""#),
        (r#"tag:"AND""#, r#"tag:"AND""#),
        (r#"name:=">x""#, r#"name:=">x""#),
        ("user.rating:>=4.5", "user.rating:>=4.5"),
        ("country:ad", "country:ad"),
    ] {
        let q = parse(input).unwrap();
        assert_eq!(q.to_string(), canonical, "{input}");
        assert_eq!(parse(canonical).unwrap(), q);
    }
}

#[test]
fn walking_the_clauses() {
    let q =
        parse("type:pharmacy AND (tag:a OR NOT tag:b) AND type:=Health AND country:AD").unwrap();
    let all: Vec<String> = q.clauses().map(ToString::to_string).collect();
    assert_eq!(
        all,
        [
            "type:pharmacy",
            "tag:a",
            "tag:b",
            "type:=Health",
            "country:AD"
        ]
    );
    assert_eq!(q.conjuncts().count(), 4);
    assert_eq!(
        q.required_types().collect::<Vec<_>>(),
        ["pharmacy", "health"]
    );
    let c = q.clauses().nth(3).unwrap();
    assert_eq!(
        (c.field(), c.op(), c.value()),
        (&Field::Type, Op::Eq, "Health")
    );
    assert_eq!(
        parse("type:a OR type:b").unwrap().required_types().count(),
        0
    );
    assert_eq!(parse("NOT type:a").unwrap().required_types().count(), 0);
    let u = parse("user.rating:<=3").unwrap();
    let c = u.clauses().next().unwrap();
    assert_eq!(c.field(), &Field::User("rating".into()));
    assert!(c.op().is_comparison() && c.field().takes_comparisons());
}

#[test]
fn errors_name_the_column_and_what_was_expected() {
    let cases: &[(&str, K, usize, &str)] = &[
        (
            "",
            K::ExpectedClause,
            1,
            "expected a clause such as `type:pharmacy`, found end of input",
        ),
        (
            "   ",
            K::ExpectedClause,
            4,
            "expected a clause such as `type:pharmacy`, found end of input",
        ),
        (
            "tag:24h AND type:",
            K::ExpectedValue,
            18,
            "expected a value after `type:`, found end of input",
        ),
        (
            "tag:a AND",
            K::ExpectedClause,
            10,
            "expected a clause (`field:value`) or `(` after `AND`, found end of input",
        ),
        (
            "tag:a OR OR tag:b",
            K::ExpectedClause,
            10,
            "expected a clause (`field:value`) or `(` after `OR`, found the keyword `OR`",
        ),
        (
            "NOT )",
            K::ExpectedClause,
            5,
            "expected a clause (`field:value`) or `(` after `NOT`, found `)`",
        ),
        (
            "pharmacy",
            K::ExpectedClause,
            1,
            "expected a clause (`field:value`), found `pharmacy`",
        ),
        (
            ":x",
            K::ExpectedClause,
            1,
            "expected a clause (`field:value`), found `:x`",
        ),
        (
            "colour:red",
            K::UnknownField,
            1,
            "expected a field: `type`, `tag`, `city`, `country`, `name`, `idstore`, `localized` or `user.<attribute>`, found `colour`",
        ),
        (
            "Type:shop",
            K::UnknownField,
            1,
            "expected a field: `type`, `tag`, `city`, `country`, `name`, `idstore`, `localized` or `user.<attribute>`, found `Type`",
        ),
        (
            "user:x",
            K::BadAttribute,
            1,
            "expected an attribute after `user`, written `user.<attribute>`, found `user`",
        ),
        (
            "user.a-b:1",
            K::BadAttribute,
            1,
            "expected an attribute name of letters, digits and `_` after `user.`, found `user.a-b`",
        ),
        (
            "user.:1",
            K::BadAttribute,
            1,
            "expected an attribute name of letters, digits and `_` after `user.`, found `user.`",
        ),
        (
            "type pharmacy",
            K::ExpectedColon,
            5,
            "expected `:` right after the field `type`, found whitespace",
        ),
        (
            "type",
            K::ExpectedColon,
            5,
            "expected `:` right after the field `type`, found end of input",
        ),
        (
            "type:>3",
            K::OperatorNotAllowed,
            6,
            "expected `type:` or `type:=` (comparisons apply to `user.<attribute>` fields), found `>`",
        ),
        (
            "city:<=b",
            K::OperatorNotAllowed,
            6,
            "expected `city:` or `city:=` (comparisons apply to `user.<attribute>` fields), found `<=`",
        ),
        (
            "type: pharmacy",
            K::ExpectedValue,
            6,
            "expected a value right after `type:` (no spaces inside a clause; values with spaces go in double quotes), found whitespace",
        ),
        (
            "user.rating:>= 4",
            K::ExpectedValue,
            15,
            "expected a value right after `user.rating:>=` (no spaces inside a clause; values with spaces go in double quotes), found whitespace",
        ),
        (
            "tag:AND",
            K::ExpectedValue,
            5,
            "expected a value after `tag:` (write `\"AND\"` to search for the word AND), found the keyword `AND`",
        ),
        (
            "name:=>x",
            K::ExpectedValue,
            7,
            "expected a value after `name:=` (a value starting with `=`, `<` or `>` goes in double quotes), found `>x`",
        ),
        (
            "(type:)",
            K::ExpectedValue,
            7,
            "expected a value after `type:`, found `)`",
        ),
        (
            r#"name:"""#,
            K::ExpectedValue,
            6,
            "expected a non-empty value after `name:`, found `\"\"`",
        ),
        (
            "user.rating:>=high",
            K::ExpectedNumber,
            15,
            "expected a number (such as `4.5` or `-3`) after `user.rating:>=`, found `high`",
        ),
        (
            "user.rating:<1e999",
            K::ExpectedNumber,
            14,
            "expected a number (such as `4.5` or `-3`) after `user.rating:<`, found `1e999`",
        ),
        (
            "country:Andorra",
            K::ExpectedCountryCode,
            9,
            "expected a two-letter country code (ISO 3166-1 alpha-2, such as `AD`) after `country:`, found `Andorra`",
        ),
        (
            r#"name:"--""#,
            K::ExpectedWord,
            6,
            "expected a value with a letter or digit after `name:` (use `:=` to compare whole texts), found `\"--\"`",
        ),
        (
            r#"name:Farmacia"Central""#,
            K::StrayQuote,
            14,
            "expected the end of the value (to quote a value, put the whole value in double quotes), found `\"`",
        ),
        (
            r#"name:"Farmacia"#,
            K::UnterminatedQuote,
            6,
            "expected a closing `\"` for this quoted value, found end of input",
        ),
        (
            r#"name:"a\nb""#,
            K::BadEscape,
            8,
            "expected `\\\"` or `\\\\` (the only escapes in a quoted value), found `\\n`",
        ),
        (
            r#"name:"a\"#,
            K::BadEscape,
            8,
            "expected `\\\"` or `\\\\` (the only escapes in a quoted value), found `\\` at the end of input",
        ),
        (
            "city:Andorra la Vella",
            K::ExpectedOperator,
            14,
            "expected AND or OR (values with spaces go in double quotes), found `la`",
        ),
        (
            "tag:a tag:b",
            K::ExpectedOperator,
            7,
            "expected AND or OR, found `tag:b`",
        ),
        (
            "tag:a and tag:b",
            K::ExpectedOperator,
            7,
            "expected AND or OR (keywords are written in capitals), found `and`",
        ),
        (
            "tag:a NOT tag:b",
            K::ExpectedOperator,
            7,
            "expected AND or OR (write `AND NOT` or `OR NOT`), found the keyword `NOT`",
        ),
        (
            "(tag:a tag:b)",
            K::ExpectedOperator,
            8,
            "expected AND, OR or `)`, found `tag:b`",
        ),
        (
            "(tag:a OR (tag:b)",
            K::ExpectedCloseParen,
            18,
            "expected `)` to close the `(` at column 1, found end of input",
        ),
        (
            "tag:a)",
            K::UnmatchedCloseParen,
            6,
            "expected AND, OR or end of input (this `)` has no `(`), found `)`",
        ),
    ];
    let mut wrong = Vec::new();
    for (query, kind, column, message) in cases {
        let got = err(query);
        let want = (
            *kind,
            *column,
            format!("query: at column {column}: {message}"),
        );
        if got != want {
            wrong.push(format!("{query}\n  got  {got:?}\n  want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn error_positions_are_bytes_and_characters() {
    let e = parse("name:àé tag:x").unwrap_err();
    assert_eq!(e.offset(), 10);
    assert_eq!(e.column(), 9);
    assert_eq!(e.expected(), "AND or OR");
    assert_eq!(e.found(), "`tag:x`");
    let long = format!("name:{}", "x".repeat(40));
    assert_eq!(parse(&format!("{long} y")).unwrap_err().found(), "`y`");
    assert_eq!(
        parse(&format!("tag:a {long}")).unwrap_err().found(),
        "`name:xxxxxxxxxxxxxxxxxxx…`"
    );
}

#[test]
fn limits() {
    let clause = "tag:a OR ";
    let at_limit = format!(
        "{}tag:b",
        clause.repeat((crate::MAX_QUERY_BYTES - 5) / clause.len())
    );
    assert!(at_limit.len() <= crate::MAX_QUERY_BYTES);
    assert!(parse(&at_limit).is_ok());
    let over = format!("{}tag:é", "x".repeat(crate::MAX_QUERY_BYTES - 5));
    let e = parse(&over).unwrap_err();
    assert_eq!(e.kind(), K::TooLong);
    assert_eq!(e.offset(), crate::MAX_QUERY_BYTES - 1);
    assert_eq!(
        e.to_string(),
        "query: at column 2000: expected a query of at most 2000 bytes, found 2001 bytes"
    );

    let nest = |n: usize| format!("{}tag:a{}", "(".repeat(n), ")".repeat(n));
    assert!(parse(&nest(crate::MAX_DEPTH)).is_ok());
    let e = parse(&nest(crate::MAX_DEPTH + 1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "query: at column 33: expected at most 32 nested parentheses and NOTs, found 33 levels"
    );
    assert!(parse(&format!("{}tag:a", "NOT ".repeat(crate::MAX_DEPTH))).is_ok());
    let e = parse(&format!("{}(tag:a)", "NOT ".repeat(crate::MAX_DEPTH))).unwrap_err();
    assert_eq!((e.kind(), e.column()), (K::TooDeep, 129));
    // Depth is nesting, not length: a long flat chain is fine.
    assert!(parse(&vec!["(tag:a)"; 150].join(" AND ")).is_ok());
}

/// The examples and the error table of `docs/stores-query-language.md` are what the parser
/// does.
#[test]
fn the_language_description_is_true() {
    let doc = include_str!("../../../docs/stores-query-language.md");
    let examples = doc
        .split("```text\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    for line in examples.lines() {
        assert!(parse(line).is_ok(), "{line}");
    }
    let errors = doc
        .split("## Errors")
        .nth(1)
        .unwrap()
        .split("\n## ")
        .next()
        .unwrap();
    let mut checked = 0;
    for row in errors.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        let [class, example, message] = cells[..] else {
            panic!("{row}")
        };
        if !example.starts_with('`') {
            continue; // the limits, described in words
        }
        let e = parse(example.trim_matches('`')).unwrap_err();
        assert_eq!(format!("`{:?}`", e.kind()), class, "{row}");
        assert_eq!(e.to_string(), message, "{row}");
        checked += 1;
    }
    assert_eq!(checked, 18);
    let q = parse("NOT(type:fuel) AND ( tag:24h )").unwrap();
    assert_eq!(q.to_string(), "NOT type:fuel AND tag:24h");
}
