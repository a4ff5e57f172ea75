//! Unit tests of the attribute dialect (`parse_attributes`): every operator on every JSON type,
//! null checks, lists, paths, the canonical text, every new error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Map, Value, json};

use crate::{
    Clause, Expr, Field, Op, Query, QueryErrorKind as K, lookup_attribute, parse, parse_attributes,
};

/// A feature's attributes for the tests.
fn feature() -> Map<String, Value> {
    match json!({
        "pressure": 1013.25,
        "floors": 2,
        "big": 9007199254740993u64,
        "open": true,
        "closed": false,
        "owner": {"name": "Núria Puig", "age": 40, "e.mail": "n@p.ad"},
        "owner.name": "Literal Key",
        "a": {"b": {"c": 7}},
        "zone-code": "X-12",
        "status": "Open",
        "size": "10",
        "word": "null",
        "note": null,
        "empty": "",
        "tags": ["WiFi", "terrace", 3, true, null, ["nested"], {"o": 1}],
        "none": [],
        "obj": {"x": 1},
        "type": "cafe",
        "user": "u1"
    }) {
        Value::Object(m) => m,
        _ => unreachable!(),
    }
}

/// Whether `query` parses and matches the feature.
fn hit(query: &str) -> bool {
    parse_attributes(query)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .matches_attributes(&feature())
}

/// Whether each filter matches the feature as expected (all the mismatches are reported).
fn hits(cases: &[(&str, bool)]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(q, want)| hit(q) != *want)
        .map(|(q, want)| format!("{q}: expected {want}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn same(a: &str, b: &str) {
    assert_eq!(
        parse_attributes(a).unwrap(),
        parse_attributes(b).unwrap(),
        "{a} vs {b}"
    );
}

/// The first clause of `query`.
fn clause(query: &str) -> Clause {
    parse_attributes(query)
        .unwrap()
        .clauses()
        .next()
        .unwrap()
        .clone()
}

#[test]
fn numbers() {
    hits(&[
        ("pressure:1013.25", true),
        ("pressure:=1013.250", true),
        ("pressure:=101325e-2", true),
        ("pressure:1013", false),
        ("pressure:!=1013", true),
        ("pressure:!=1013.25", false),
        ("pressure:>1000", true),
        ("pressure:>1013.25", false),
        ("pressure:>=1013.25", true),
        ("pressure:<1013.25", false),
        ("pressure:<=1013.25", true),
        ("pressure:<2000", true),
        ("floors:2", true),
        ("floors:=2.0", true),
        ("floors:>=-3", true),
        // A value that is not a number never equals a number, so `!=` holds.
        ("floors:two", false),
        ("floors:=two", false),
        ("floors:!=two", true),
        (r#"floors:"2""#, true),
    ]);
}

#[test]
fn booleans() {
    hits(&[
        ("open:true", true),
        ("open:=TRUE", true),
        ("open:false", false),
        ("open:!=false", true),
        ("open:!=true", false),
        ("open:yes", false),
        ("open:!=yes", true),
        ("closed:False", true),
        ("open:>0", false),
        ("open:<1", false),
    ]);
}

#[test]
fn strings() {
    hits(&[
        ("status:open", true),
        ("status:OP", true),
        ("status:=open", true),
        ("status:=op", false),
        ("status:!=open", false),
        ("status:!=closed", true),
        ("status:>0", false),
        ("zone-code:x", true),
        ("zone-code:12", true),
        ("zone-code:=x-12", true),
        ("zone-code:!=X-12", false),
        // Digits in a string are text.
        ("size:=10", true),
        ("size:10", true),
        ("size:>5", false),
        ("size:!=10.0", true),
        (r#"word:"null""#, true),
        (r#"word:="NULL""#, true),
        ("word:NULL", true),
        ("word:null", false),
        (r#"empty:="x""#, false),
        ("empty:!=x", true),
        ("type:cafe", true),
        ("user:u1", true),
    ]);
}

#[test]
fn null_object_and_missing_match_nothing_but_the_null_check() {
    for path in ["note", "obj", "missing", "owner.missing", "a.b.c.d"] {
        for op in [
            ":1", ":=1", ":!=1", ":x", ":!=x", ":>0", ":<=0", ":true", ":!=true",
        ] {
            let q = format!("{path}{op}");
            assert!(!hit(&q), "{q}");
            assert!(hit(&format!("NOT {q}")), "NOT {q}");
        }
    }
    hits(&[
        ("note:null", true),
        ("missing:null", true),
        ("owner.missing:null", true),
        ("obj:null", false),
        ("none:null", false),
        ("empty:null", false),
        ("word:null", false),
        ("pressure:null", false),
        ("closed:null", false),
        ("NOT note:null", false),
        ("NOT status:null", true),
        ("NOT missing:null", false),
    ]);
}

#[test]
fn arrays_match_when_an_element_does() {
    hits(&[
        ("tags:wifi", true),
        ("tags:terr", true),
        ("tags:=WIFI", true),
        ("tags:=wi", false),
        ("tags:3", true),
        ("tags:>2", true),
        ("tags:>3", false),
        ("tags:true", true),
        ("tags:nested", false),
        ("tags:o", false),
        ("tags:!=wifi", false),
        ("tags:!=3", false),
        ("tags:!=shop", true),
        ("tags:IN(shop,terrace)", true),
        ("tags:IN(shop,bar)", false),
        ("tags:null", false),
        ("none:x", false),
        ("none:!=x", true),
        ("none:>0", false),
        ("none:IN(x)", false),
    ]);
}

#[test]
fn paths_read_nested_objects_and_a_literal_dotted_key_wins() {
    hits(&[
        ("owner.age:40", true),
        ("owner.age:>39", true),
        ("a.b.c:7", true),
        ("a.b:null", false),
        ("a.b.c.d:null", true),
        // The key "owner.name" itself, not owner → name.
        ("owner.name:literal", true),
        ("owner.name:nuria", false),
        // Keys with dots are only tried whole at the top level.
        ("owner.e.mail:null", true),
        // Arrays are not paths.
        ("tags.0:wifi", false),
        // Case-sensitive.
        ("Status:open", false),
    ]);
    let f = feature();
    assert_eq!(
        lookup_attribute(&f, "owner.name"),
        Some(&json!("Literal Key"))
    );
    assert_eq!(lookup_attribute(&f, "owner.age"), Some(&json!(40)));
    assert_eq!(lookup_attribute(&f, "a.b"), Some(&json!({"c": 7})));
    assert_eq!(lookup_attribute(&f, "a.b.c.d"), None);
    assert_eq!(lookup_attribute(&f, "note"), Some(&Value::Null));
    let c = clause("owner.age:>30");
    assert_eq!(c.field(), &Field::Attribute("owner.age".into()));
    assert!(c.field().takes_comparisons());
    for path in [
        "a", "A-b_9", "a.b.c", "2020.x", "-", "_._", "NOTE", "ANDROID",
    ] {
        assert!(parse_attributes(&format!("{path}:1")).is_ok(), "{path}");
    }
}

#[test]
fn in_lists_are_ors_of_equalities() {
    same(
        r#"zone:IN(a,b,"c d",3)"#,
        r#"(zone:=a OR zone:=b OR zone:="c d" OR zone:=3)"#,
    );
    same("zone:IN( a , b )", "zone:=a OR zone:=b");
    same("zone:IN(a)", "zone:=a");
    same("x:1 AND zone:IN(a,b)", "x:1 AND (zone:=a OR zone:=b)");
    same("NOT zone:IN(a,b)", "NOT (zone:=a OR zone:=b)");
    same(
        "zone:IN(\"AND\",\"null\",\"a,b\",\">x\",\"!x\")",
        r#"zone:="AND" OR zone:="null" OR zone:="a,b" OR zone:=">x" OR zone:="!x""#,
    );
    same("zone:IN(a:b,c.d,é)", "zone:=a:b OR zone:=c.d OR zone:=é");
    let q = parse_attributes("zone:IN(a,b,c)").unwrap();
    assert!(
        matches!(q.expr(), Expr::Or(l, _) if matches!(**l, Expr::Or(..))),
        "left-associative"
    );
    assert!(q.clauses().all(|c| c.op() == Op::Eq));
    hits(&[
        ("status:IN(closed,OPEN)", true),
        ("status:IN(closed,op)", false),
        ("floors:IN(1,2.0)", true),
        ("open:IN(TRUE)", true),
        ("missing:IN(a)", false),
        ("NOT missing:IN(a)", true),
        // `IN` without `(` is a value.
        ("zone-code:IN", false),
        (r#"status:"IN""#, false),
    ]);
    assert_eq!(clause("zone:IN").value(), "IN");
    assert_eq!(clause("zone:IN").op(), Op::Match);
    // A long list is bounded by the length only.
    let long = format!("n:IN({})", vec!["1"; 990].join(","));
    assert!(long.len() <= crate::MAX_QUERY_BYTES);
    let q = parse_attributes(&long).unwrap();
    assert_eq!(q.clauses().count(), 990);
    assert_eq!(parse_attributes(&q.to_string()).unwrap(), q);
    assert!(q.matches_attributes(&json!({"n": 1}).as_object().unwrap().clone()));
}

#[test]
fn a_list_longer_than_its_or_prints_as_the_or() {
    // A `,` needs quotes in a list, where each `\` doubles: the OR is shorter here.
    let w = format!("{},", "\\".repeat(20));
    let or = format!("a:=x OR a:={w}");
    let q = parse_attributes(&or).unwrap();
    assert_eq!(q.to_string(), or);
    let list = format!("a:IN(x,\"{}\")", w.replace('\\', "\\\\"));
    assert_eq!(parse_attributes(&list).unwrap(), q);
    assert_eq!(parse_attributes(&list).unwrap().to_string(), or);
    // Such a list counts as a level of nesting, since it prints in parentheses under `NOT`.
    let max = crate::MAX_DEPTH;
    let deep = format!("{}{list}", "NOT ".repeat(max - 1));
    let q = parse_attributes(&deep).unwrap();
    assert_eq!(q.to_string(), format!("{}({or})", "NOT ".repeat(max - 1)));
    assert_eq!(parse_attributes(&q.to_string()).unwrap(), q);
    let e = parse_attributes(&format!("NOT {deep}")).unwrap_err();
    assert_eq!((e.kind(), e.column()), (K::TooDeep, 4 * max + 3));
    // A short list of them stays a list.
    let q = parse_attributes(r#"a:IN(x,"\\,")"#).unwrap();
    assert_eq!(q.to_string(), r#"a:IN(x,"\\,")"#);
}

#[test]
fn null_checks_and_the_text_null() {
    let c = clause("email:null");
    assert_eq!((c.op(), c.value()), (Op::Null, ""));
    assert_eq!(c.to_string(), "email:null");
    let t = clause(r#"email:"null""#);
    assert_eq!((t.op(), t.value()), (Op::Match, "null"));
    assert_eq!(t.to_string(), r#"email:"null""#);
    assert_eq!(clause(r#"email:="null""#).to_string(), r#"email:="null""#);
    assert_eq!(clause("email:NULL").value(), "NULL");
    assert_eq!(clause("email:NULL").to_string(), "email:NULL");
    assert_ne!(
        parse_attributes("email:null").unwrap(),
        parse_attributes(r#"email:"null""#).unwrap()
    );
    // The stores language is unchanged: `null` is a value there, printed bare.
    assert_eq!(
        parse("user.note:null").unwrap().to_string(),
        "user.note:null"
    );
    assert_eq!(
        parse("user.note:null")
            .unwrap()
            .clauses()
            .next()
            .unwrap()
            .op(),
        Op::Match
    );
}

#[test]
fn value_matches_and_number_matches() {
    let c = clause("n:!=3");
    assert!(c.value_matches(Some(&json!(4))));
    assert!(!c.value_matches(Some(&json!(3.0))));
    assert!(!c.value_matches(None));
    assert!(!c.value_matches(Some(&Value::Null)));
    assert!(c.number_matches(4.0) && !c.number_matches(3.0));
    assert!(clause("n:!=x").number_matches(3.0));
    assert!(!clause("n:null").number_matches(3.0));
    assert!(clause("n:null").value_matches(None));
    assert!(clause("n:null").value_matches(Some(&Value::Null)));
    assert!(!clause("n:null").value_matches(Some(&json!(0))));
    assert!(clause("n:>=2").number_matches(2.0));
    // A clause of the stores dialect decides values the same way, arrays aside.
    let s = parse("user.n:>=2").unwrap();
    assert!(s.clauses().next().unwrap().value_matches(Some(&json!(3))));
}

#[test]
fn matches_with_decides_each_clause_and_short_circuits() {
    let q = parse_attributes("a:1 AND (b:1 OR NOT c:1) OR d:null").unwrap();
    let mut seen = Vec::new();
    let mut decide = |c: &Clause| {
        seen.push(c.to_string());
        matches!(c.field(), Field::Attribute(p) if p == "a" || p == "c")
    };
    // a true, b false, c true → NOT c false → AND false; d false.
    assert!(!q.matches_with(&mut decide));
    assert_eq!(seen, ["a:1", "b:1", "c:1", "d:null"]);
    let mut seen = Vec::new();
    let mut yes = |c: &Clause| {
        seen.push(c.to_string());
        true
    };
    assert!(q.matches_with(&mut yes));
    assert_eq!(seen, ["a:1", "b:1"]);
}

#[test]
fn attribute_clauses_on_a_store_read_user_properties() {
    let store = crate::tests::TestStore {
        user: feature(),
        ..Default::default()
    };
    for (q, want) in [
        ("owner.age:40", true),
        ("owner.name:literal", true),
        ("tags:wifi", true),
        ("missing:null", true),
        ("status:!=open", false),
    ] {
        let query = parse_attributes(q).unwrap();
        assert_eq!(query.matches(&store), want, "{q}");
        assert_eq!(query.matches_attributes(&store.user), want, "{q}");
    }
}

#[test]
fn canonical_text() {
    for (input, canonical) in [
        ("  status:open  ", "status:open"),
        ("a:1 OR (b:2 AND c:3)", "a:1 OR b:2 AND c:3"),
        ("NOT(a:null)", "NOT a:null"),
        ("a:!=x", "a:!=x"),
        (r#"a:!="!x""#, r#"a:!="!x""#),
        (r#"a:"!x""#, r#"a:"!x""#),
        (r#"a:"null""#, r#"a:"null""#),
        (r#"a:"IN""#, "a:IN"),
        (r#"a:"x,y""#, "a:x,y"),
        ("a.b-c:>=-4.5", "a.b-c:>=-4.5"),
        (
            "zone:IN( a ,b) AND NOT email:null",
            "zone:IN(a,b) AND NOT email:null",
        ),
        ("zone:=a OR zone:=b", "zone:IN(a,b)"),
        ("(zone:=a OR zone:=b) AND c:1", "zone:IN(a,b) AND c:1"),
        ("zone:IN(a,b) OR c:1", "zone:IN(a,b) OR c:1"),
        ("zone:IN(a,b) OR zone:c", "zone:IN(a,b) OR zone:c"),
        ("zone:IN(a,b) OR zone:=c", "zone:IN(a,b,c)"),
        ("c:1 OR zone:IN(a,b)", "c:1 OR zone:IN(a,b)"),
        ("zone:=a OR (zone:=b OR zone:=c)", "zone:=a OR zone:IN(b,c)"),
        ("zone:=a OR other:=b", "zone:=a OR other:=b"),
        ("zone:IN(a)", "zone:=a"),
        (
            r#"z:IN("a,b", "c d", "null", "!x", "AND", IN, "=", x\y, "\"")"#,
            r#"z:IN("a,b","c d","null","!x","AND",IN,"=",x\y,"\"")"#,
        ),
        ("AND:1 AND OR:2", "AND:1 AND OR:2"),
    ] {
        let q = parse_attributes(input).unwrap();
        assert_eq!(q.to_string(), canonical, "{input}");
        assert_eq!(parse_attributes(canonical).unwrap(), q, "{canonical}");
    }
}

#[test]
fn lists_are_no_level_of_nesting() {
    let max = crate::MAX_DEPTH;
    // What parses prints to a text that parses back, even at the limit.
    for text in [
        format!("{}a:IN(x,y)", "NOT ".repeat(max)),
        format!("{}a:=x OR a:=y OR b:1)", "NOT ".repeat(max - 1) + "("),
        format!("{}a:=x OR a:=y){}", "(".repeat(max), ")".repeat(max - 1)),
    ] {
        let q = parse_attributes(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(parse_attributes(&q.to_string()).unwrap(), q, "{text}");
    }
    assert_eq!(
        parse_attributes(&format!("{}a:IN(x,y)", "NOT ".repeat(max + 1)))
            .unwrap_err()
            .kind(),
        K::TooDeep
    );
    let nest = |n: usize| format!("{}a:1{}", "(".repeat(n), ")".repeat(n));
    assert!(parse_attributes(&nest(max)).is_ok());
    assert_eq!(
        parse_attributes(&nest(max + 1)).unwrap_err().kind(),
        K::TooDeep
    );
}

#[test]
fn errors_name_the_column_and_what_was_expected() {
    let cases: &[(&str, K, usize, &str)] = &[
        (
            "",
            K::ExpectedClause,
            1,
            "expected a clause such as `status:open`, found end of input",
        ),
        (
            "a..b:1",
            K::BadAttribute,
            1,
            "expected an attribute path: names of ASCII letters, digits, `_` and `-`, separated by `.`, found `a..b`",
        ),
        (
            ".a:1",
            K::BadAttribute,
            1,
            "expected an attribute path: names of ASCII letters, digits, `_` and `-`, separated by `.`, found `.a`",
        ),
        (
            "a.:1",
            K::BadAttribute,
            1,
            "expected an attribute path: names of ASCII letters, digits, `_` and `-`, separated by `.`, found `a.`",
        ),
        (
            "prés:1",
            K::BadAttribute,
            1,
            "expected an attribute path: names of ASCII letters, digits, `_` and `-`, separated by `.`, found `prés`",
        ),
        (
            ":x",
            K::ExpectedClause,
            1,
            "expected a clause (`field:value`), found `:x`",
        ),
        (
            "pressure",
            K::ExpectedColon,
            9,
            "expected `:` right after the field `pressure`, found end of input",
        ),
        (
            "a:1 OR b!=2",
            K::ExpectedColon,
            9,
            "expected `:` right after the field `b` (the operator follows the `:`), found `!=2`",
        ),
        (
            "a$b",
            K::ExpectedClause,
            1,
            "expected a clause (`field:value`), found `a$b`",
        ),
        (
            "a:!x",
            K::UnknownOperator,
            3,
            "expected an operator `=`, `!=`, `>`, `<`, `>=` or `<=`, or none, after `a:` (not equal is written `!=`), found `!`",
        ),
        (
            "a:=>1",
            K::UnknownOperator,
            3,
            "expected an operator `=`, `!=`, `>`, `<`, `>=` or `<=`, or none, after `a:` (write `>=`), found `=>`",
        ),
        (
            "a:>>1",
            K::UnknownOperator,
            3,
            "expected an operator `=`, `!=`, `>`, `<`, `>=` or `<=`, or none, after `a:`, found `>>`",
        ),
        (
            "a:!=",
            K::ExpectedValue,
            5,
            "expected a value after `a:!=`, found end of input",
        ),
        (
            "a:!= x",
            K::ExpectedValue,
            5,
            "expected a value right after `a:!=` (no spaces inside a clause; values with spaces go in double quotes), found whitespace",
        ),
        (
            "a:=OR",
            K::ExpectedValue,
            4,
            "expected a value after `a:=` (write `\"OR\"` to search for the word OR), found the keyword `OR`",
        ),
        (
            "a:>null",
            K::ExpectedNumber,
            4,
            "expected a number (such as `4.5` or `-3`) after `a:>`, found `null`",
        ),
        (
            "a:null\"x\"",
            K::StrayQuote,
            7,
            "expected the end of the value (to quote a value, put the whole value in double quotes), found `\"`",
        ),
        (
            "a:=IN(x)",
            K::OperatorNotAllowed,
            3,
            "expected `IN(` right after `a:` (a list takes no operator), found `=`",
        ),
        (
            "a:IN(",
            K::ExpectedValue,
            6,
            "expected a value in the list `a:IN(` at column 3, found end of input",
        ),
        (
            "a:IN(,x)",
            K::ExpectedValue,
            6,
            "expected a value in the list `a:IN(` at column 3, found `,`",
        ),
        (
            "a:IN(x,)",
            K::ExpectedValue,
            8,
            "expected a value after `,` in the list `a:IN(` at column 3, found `)`",
        ),
        (
            "a:IN(x, AND)",
            K::ExpectedValue,
            9,
            "expected a value in the list `a:IN(` at column 3 (write `\"AND\"` for the word AND), found the keyword `AND`",
        ),
        (
            "a:IN(null)",
            K::ExpectedValue,
            6,
            "expected a value in the list `a:IN(` at column 3 (a list holds values, not the null check; write `\"null\"` for the text null), found `null`",
        ),
        (
            "a:IN(>1)",
            K::ExpectedValue,
            6,
            "expected a value in the list `a:IN(` at column 3 (a value starting with `=`, `<`, `>` or `!` goes in double quotes), found `>1`",
        ),
        (
            "a:IN(\"\")",
            K::ExpectedValue,
            6,
            "expected a non-empty value in the list `a:IN(` at column 3, found `\"\"`",
        ),
        (
            "a:IN(x\"y\")",
            K::StrayQuote,
            7,
            "expected the end of the value (to quote a value, put the whole value in double quotes), found `\"`",
        ),
        (
            "a:IN(x y,z)",
            K::ExpectedListSeparator,
            8,
            "expected `,` or `)` in the list `a:IN(` at column 3 (values with spaces go in double quotes), found `y`",
        ),
        (
            "a:IN(x OR)",
            K::ExpectedListSeparator,
            8,
            "expected `,` or `)` in the list `a:IN(` at column 3, found the keyword `OR`",
        ),
        (
            "a:IN(x(y))",
            K::ExpectedListSeparator,
            7,
            "expected `,` or `)` in the list `a:IN(` at column 3, found `(`",
        ),
        (
            "a:IN(\"x",
            K::UnterminatedQuote,
            6,
            "expected a closing `\"` for this quoted value, found end of input",
        ),
        (
            "a:IN(x)y",
            K::ExpectedOperator,
            8,
            "expected AND or OR (values with spaces go in double quotes), found `y`",
        ),
        (
            "a:IN (x)",
            K::ExpectedOperator,
            6,
            "expected AND or OR, found `(`",
        ),
    ];
    let mut wrong = Vec::new();
    for (query, kind, column, message) in cases {
        let e = parse_attributes(query).expect_err(query);
        let got = (e.kind(), e.column(), e.to_string());
        let want = (
            *kind,
            *column,
            format!("where: at column {column}: {message}"),
        );
        if got != want {
            wrong.push(format!("{query}\n  got  {got:?}\n  want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_stores_dialect_is_unchanged_by_the_attribute_syntax() {
    // `!=`, `null` and `IN(` mean nothing special there.
    let q = parse("user.a:!=3").unwrap();
    let c = q.clauses().next().unwrap();
    assert_eq!((c.op(), c.value()), (Op::Match, "!=3"));
    assert_eq!(parse("tag:IN(a)").unwrap_err().kind(), K::ExpectedOperator);
    assert_eq!(parse("status:open").unwrap_err().kind(), K::UnknownField);
    assert!(parse("").unwrap_err().to_string().starts_with("query: "));
    assert!(parse("user.x:!a").is_ok());
}

/// The examples and the error table of `docs/datasets-where.md` are what the parser does.
#[test]
fn the_where_description_is_true() {
    let doc = include_str!("../../../docs/datasets-where.md");
    let examples = doc
        .split("```text\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let mut parsed = 0;
    for line in examples.lines() {
        let q = parse_attributes(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(parse_attributes(&q.to_string()).unwrap(), q);
        parsed += 1;
    }
    assert_eq!(parsed, 9);
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
        let e = parse_attributes(example.trim_matches('`')).unwrap_err();
        assert_eq!(format!("`{:?}`", e.kind()), class, "{row}");
        assert_eq!(e.to_string(), message, "{row}");
        checked += 1;
    }
    assert_eq!(checked, 22);
    // The limits.
    let over = format!("{}tag:é", "x".repeat(crate::MAX_QUERY_BYTES - 5));
    assert!(errors.contains(&parse_attributes(&over).unwrap_err().to_string()));
    let deep = format!("{}a:1{}", "(".repeat(33), ")".repeat(33));
    assert!(errors.contains(&parse_attributes(&deep).unwrap_err().to_string()));
    for (input, canonical) in [
        (
            "(zone:=a OR zone:=b) AND NOT email:null",
            "zone:IN(a,b) AND NOT email:null",
        ),
        ("zone:=a OR zone:=b OR zone:c", "zone:IN(a,b) OR zone:c"),
        (r#"a:IN(x,"\\\\\\,")"#, r"a:=x OR a:=\\\,"),
    ] {
        assert!(
            doc.contains(&format!("`{input}` prints as `{canonical}`"))
                || doc.contains(&format!("and so does `{input}`")),
            "{input}"
        );
        assert_eq!(parse_attributes(input).unwrap().to_string(), canonical);
    }
    let q = parse_attributes("kind:=a OR kind:=b AND NOT email:null").unwrap();
    assert_eq!(q.to_string(), "kind:=a OR kind:=b AND NOT email:null");
    let q = parse_attributes("zone:IN( a ,b) OR zone:=c AND NOT email:null").unwrap();
    assert_eq!(q.to_string(), "zone:IN(a,b) OR zone:=c AND NOT email:null");
    // The precedence table.
    let table = doc
        .split("## Precedence")
        .nth(1)
        .unwrap()
        .split("\n## ")
        .next()
        .unwrap();
    let mut rows = 0;
    for row in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
        same(cells[0].trim_matches('`'), cells[1].trim_matches('`'));
        rows += 1;
    }
    assert_eq!(rows, 4);
}

#[test]
fn queries_are_values() {
    // `Query` is what both dialects return; a where filter and a store query never compare
    // equal.
    let a: Query = parse_attributes("name:x").unwrap();
    let b: Query = parse("name:x").unwrap();
    assert_ne!(a, b);
}
