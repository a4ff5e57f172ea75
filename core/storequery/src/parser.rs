//! Recursive-descent parser: `OR` of `AND`s of `NOT`s of clauses and groups, in one of two
//! dialects that differ only in their clauses.

use crate::ast::{Clause, Expr, Field, Op, Query, is_attribute_path, is_keyword};
use crate::error::{QueryError, QueryErrorKind as K, column};
use crate::{MAX_DEPTH, MAX_QUERY_BYTES};

type Result<T> = std::result::Result<T, QueryError>;

/// Longest excerpt of the input quoted in an error.
const EXCERPT_CHARS: usize = 24;

/// Whether `c` ends an unquoted value, a field name or a keyword.
fn is_delimiter(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | ')' | '"')
}

/// Whether `c` is one of the characters of an operator of the attribute dialect.
fn is_operator_char(c: char) -> bool {
    matches!(c, '=' | '<' | '>' | '!')
}

/// The two languages: their clauses differ, the rest is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// The store search query: fixed fields, `user.<attribute>`.
    Stores,
    /// The datasets `where` filter: attribute paths, `!=`, `null`, `IN(…)`.
    Attributes,
}

pub(crate) fn parse(input: &str, dialect: Dialect) -> Result<Query> {
    if input.len() > MAX_QUERY_BYTES {
        let mut at = MAX_QUERY_BYTES;
        while !input.is_char_boundary(at) {
            at -= 1;
        }
        return Err(QueryError::new(
            K::TooLong,
            input,
            at,
            format!("a query of at most {MAX_QUERY_BYTES} bytes"),
            format!("{} bytes", input.len()),
        ));
    }
    let mut p = Parser {
        input,
        pos: 0,
        depth: 0,
        dialect,
    };
    p.skip_ws();
    if p.rest().is_empty() {
        let example = match dialect {
            Dialect::Stores => "a clause such as `type:pharmacy`",
            Dialect::Attributes => "a clause such as `status:open`",
        };
        return Err(p.error(K::ExpectedClause, p.pos, example));
    }
    let expr = p.or()?;
    p.skip_ws();
    match p.peek() {
        None => Ok(Query { expr }),
        Some(')') => Err(p.error(
            K::UnmatchedCloseParen,
            p.pos,
            "AND, OR or end of input (this `)` has no `(`)",
        )),
        Some(_) => Err(p.expected_operator("AND or OR")),
    }
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
    /// Open parentheses and `NOT`s around the current position.
    depth: usize,
    dialect: Dialect,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        self.input.get(self.pos..).unwrap_or_default()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The text from `at` up to the next delimiter.
    fn word_at(&self, at: usize) -> &'a str {
        let rest = self.input.get(at..).unwrap_or_default();
        rest.find(is_delimiter).map_or(rest, |end| &rest[..end])
    }

    /// The text from `at` up to the next delimiter or `,` (a value in an `IN(…)` list).
    fn list_word_at(&self, at: usize) -> &'a str {
        let rest = self.input.get(at..).unwrap_or_default();
        rest.find(|c| is_delimiter(c) || c == ',')
            .map_or(rest, |end| &rest[..end])
    }

    /// What is at `at`, in words, for an error's "found".
    fn found_at(&self, at: usize) -> String {
        let rest = self.input.get(at..).unwrap_or_default();
        let Some(c) = rest.chars().next() else {
            return "end of input".into();
        };
        let text = match c {
            c if c.is_whitespace() => return "whitespace".into(),
            '(' | ')' => &rest[..1],
            // A quoted text up to its closing quote.
            '"' => rest[1..].find('"').map_or(rest, |end| &rest[..end + 2]),
            _ => {
                let w = self.word_at(at);
                if is_keyword(w) {
                    return format!("the keyword `{w}`");
                }
                w
            }
        };
        excerpt(text)
    }

    fn error(&self, kind: K, at: usize, expected: impl Into<String>) -> QueryError {
        QueryError::new(kind, self.input, at, expected, self.found_at(at))
    }

    /// Two operands side by side: `expected` (the operators allowed here) with a hint.
    fn expected_operator(&self, expected: &str) -> QueryError {
        let word = self.word_at(self.pos);
        let hint = if word == "NOT" {
            " (write `AND NOT` or `OR NOT`)"
        } else if ["AND", "OR", "NOT"]
            .iter()
            .any(|k| k.eq_ignore_ascii_case(word))
        {
            " (keywords are written in capitals)"
        } else if !word.is_empty() && !word.contains(':') {
            " (values with spaces go in double quotes)"
        } else {
            ""
        };
        self.error(K::ExpectedOperator, self.pos, format!("{expected}{hint}"))
    }

    /// Consumes the keyword `kw` when it comes next (after whitespace), followed by a delimiter
    /// or the end.
    fn eat_keyword(&mut self, kw: &str) -> bool {
        self.skip_ws();
        let hit = self.word_at(self.pos) == kw;
        if hit {
            self.pos += kw.len();
        }
        hit
    }

    /// One more level of parentheses or `NOT`, opened at `at`.
    fn enter(&mut self, at: usize) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(QueryError::new(
                K::TooDeep,
                self.input,
                at,
                format!("at most {MAX_DEPTH} nested parentheses and NOTs"),
                format!("{} levels", self.depth),
            ));
        }
        Ok(())
    }

    /// `or = and { "OR" and }`
    fn or(&mut self) -> Result<Expr> {
        let mut left = self.and("")?;
        while self.eat_keyword("OR") {
            let right = self.and(" after `OR`")?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// `and = unary { "AND" unary }`
    fn and(&mut self, context: &str) -> Result<Expr> {
        let mut left = self.unary(context)?;
        while self.eat_keyword("AND") {
            let right = self.unary(" after `AND`")?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    /// `unary = "NOT" unary | primary`
    fn unary(&mut self, context: &str) -> Result<Expr> {
        self.skip_ws();
        let at = self.pos;
        if !self.eat_keyword("NOT") {
            return self.primary(context);
        }
        self.enter(at)?;
        let e = self.unary(" after `NOT`")?;
        self.depth -= 1;
        Ok(Expr::Not(Box::new(e)))
    }

    /// `primary = "(" or ")" | clause`
    fn primary(&mut self, context: &str) -> Result<Expr> {
        self.skip_ws();
        let open = self.pos;
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                self.enter(open)?;
                let e = self.or()?;
                self.skip_ws();
                match self.peek() {
                    Some(')') => {
                        self.pos += 1;
                        self.depth -= 1;
                        Ok(e)
                    }
                    None => Err(self.error(
                        K::ExpectedCloseParen,
                        self.pos,
                        format!(
                            "`)` to close the `(` at column {}",
                            column(self.input, open)
                        ),
                    )),
                    Some(_) => Err(self.expected_operator("AND, OR or `)`")),
                }
            }
            Some(c) if !is_delimiter(c) => self.clause(context),
            _ => Err(self.error(
                K::ExpectedClause,
                self.pos,
                format!("a clause (`field:value`) or `(`{context}"),
            )),
        }
    }

    /// `clause = field ":" [operator] value`, with no whitespace inside.
    fn clause(&mut self, context: &str) -> Result<Expr> {
        let start = self.pos;
        let word = {
            let w = self.word_at(start);
            w.find(':').map_or(w, |end| &w[..end])
        };
        let after = start + word.len();
        let has_colon = self.input.get(after..).is_some_and(|r| r.starts_with(':'));
        if is_keyword(word) && !has_colon {
            return Err(self.error(
                K::ExpectedClause,
                start,
                format!("a clause (`field:value`) or `(`{context}"),
            ));
        }
        let parsed = match self.dialect {
            Dialect::Stores => Field::parse(word),
            Dialect::Attributes => Field::parse_attribute(word),
        };
        let field = match parsed {
            Ok(f) => f,
            Err(_) if !has_colon || word.is_empty() => {
                if let Some(e) = self.operator_without_colon(word, start) {
                    return Err(e);
                }
                return Err(self.error(
                    K::ExpectedClause,
                    start,
                    format!("a clause (`field:value`){context}"),
                ));
            }
            Err((kind, expected)) => {
                return Err(QueryError::new(
                    kind,
                    self.input,
                    start,
                    expected,
                    excerpt(word),
                ));
            }
        };
        if !has_colon {
            return Err(self.error(
                K::ExpectedColon,
                after,
                format!("`:` right after the field `{field}`"),
            ));
        }
        self.pos = after + 1;
        if self.dialect == Dialect::Attributes {
            return self.attribute_clause(field);
        }
        let op_at = self.pos;
        let (op, len) = Op::read(self.rest());
        if op.is_comparison() && !field.takes_comparisons() {
            return Err(QueryError::new(
                K::OperatorNotAllowed,
                self.input,
                op_at,
                format!(
                    "`{field}:` or `{field}:=` (comparisons apply to `user.<attribute>` fields)"
                ),
                format!("`{}`", op.as_str()),
            ));
        }
        self.pos += len;
        let value_at = self.pos;
        let value = self.value(&format!("`{field}:{}`", op.as_str()))?;
        self.make_clause(field, op, value, value_at)
            .map(Expr::Clause)
    }

    /// Attribute dialect: `pressure>5` (an attribute path, then an operator with no `:`) gives
    /// an error pointing at the missing `:`.
    fn operator_without_colon(&self, word: &str, start: usize) -> Option<QueryError> {
        if self.dialect != Dialect::Attributes {
            return None;
        }
        let cut = word.find(is_operator_char)?;
        let path = &word[..cut];
        if !is_attribute_path(path) {
            return None;
        }
        Some(self.error(
            K::ExpectedColon,
            start + cut,
            format!("`:` right after the field `{path}` (the operator follows the `:`)"),
        ))
    }

    /// The clause of `field`, `value` read at `value_at`, or the error of its value.
    fn make_clause(&self, field: Field, op: Op, value: String, value_at: usize) -> Result<Clause> {
        Clause::new(field, op, value).map_err(|(kind, expected)| {
            QueryError::new(
                kind,
                self.input,
                value_at,
                expected,
                excerpt(self.input.get(value_at..self.pos).unwrap_or_default()),
            )
        })
    }

    /// Attribute dialect, after `field:`: `[operator] value`, `null` or `IN(value, …)`.
    fn attribute_clause(&mut self, field: Field) -> Result<Expr> {
        let op_at = self.pos;
        let rest = self.rest();
        let run = &rest[..rest.find(|c| !is_operator_char(c)).unwrap_or(rest.len())];
        let Some(op) = Op::read_attribute(run) else {
            let hint = match run {
                "==" => " (equality is written `=`)",
                "<>" | "!" | "!==" => " (not equal is written `!=`)",
                "=>" => " (write `>=`)",
                "=<" => " (write `<=`)",
                _ => "",
            };
            return Err(QueryError::new(
                K::UnknownOperator,
                self.input,
                op_at,
                format!(
                    "an operator `=`, `!=`, `>`, `<`, `>=` or `<=`, or none, after `{field}:`{hint}"
                ),
                excerpt(run),
            ));
        };
        self.pos += run.len();
        let value_at = self.pos;
        let quoted = self.peek() == Some('"');
        let context = format!("`{field}:{}`", op.as_str());
        let value = self.value(&context)?;
        if !quoted && value == "null" {
            let check = match op {
                Op::Match => return Ok(Expr::Clause(Clause::null(field))),
                Op::Eq => format!("`{field}:null` checks that the attribute is missing or null"),
                Op::Ne => format!("`NOT {field}:null` checks that the attribute is present"),
                // A comparison: "expected a number".
                _ => String::new(),
            };
            if !check.is_empty() {
                return Err(self.error(
                    K::ExpectedValue,
                    value_at,
                    format!(
                        "a value after {context} ({check}; write `\"null\"` for the text null)"
                    ),
                ));
            }
        }
        if !quoted && value == "IN" && self.peek() == Some('(') {
            if op != Op::Match {
                return Err(QueryError::new(
                    K::OperatorNotAllowed,
                    self.input,
                    op_at,
                    format!("`IN(` right after `{field}:` (a list takes no operator)"),
                    format!("`{}`", op.as_str()),
                ));
            }
            return self.list(field, value_at);
        }
        self.make_clause(field, op, value, value_at)
            .map(Expr::Clause)
    }

    /// `list = "IN(" value { "," value } ")"`, whitespace allowed around the values, at `at`
    /// (the `I`, the `(` next): the `OR` of the `field:=value` clauses, left to right. It is
    /// read in a loop and printed as a list, so it is no level of nesting (but for the lists
    /// printed as an `OR`, see [`Expr::is_list_printed_as_or`]).
    fn list(&mut self, field: Field, at: usize) -> Result<Expr> {
        self.pos += 1;
        let list = format!(
            "the list `{field}:IN(` at column {}",
            column(self.input, at)
        );
        let mut items: Option<Expr> = None;
        loop {
            self.skip_ws();
            let item_at = self.pos;
            match self.peek() {
                Some(')') if items.is_none() => {
                    return Err(self.error(
                        K::EmptyList,
                        item_at,
                        format!("at least one value in {list}"),
                    ));
                }
                Some(c @ (',' | ')')) => {
                    let after = if items.is_none() { "" } else { "after `,` " };
                    return Err(QueryError::new(
                        K::ExpectedValue,
                        self.input,
                        item_at,
                        format!("a value {after}in {list}"),
                        format!("`{c}`"),
                    ));
                }
                _ => {}
            }
            let value = self.list_value(&list)?;
            let clause = Expr::Clause(self.make_clause(field.clone(), Op::Eq, value, item_at)?);
            let expr = match items.take() {
                None => clause,
                Some(left) => Expr::Or(Box::new(left), Box::new(clause)),
            };
            self.skip_ws();
            match self.peek() {
                Some(',') => {
                    self.pos += 1;
                    items = Some(expr);
                }
                Some(')') => {
                    self.pos += 1;
                    if expr.is_list_printed_as_or() {
                        self.enter(at)?;
                        self.depth -= 1;
                    }
                    return Ok(expr);
                }
                _ => {
                    let word = self.list_word_at(self.pos);
                    let expected = format!("`,` or `)` in {list}");
                    if word.is_empty() || is_keyword(word) {
                        return Err(self.error(K::ExpectedListSeparator, self.pos, expected));
                    }
                    return Err(QueryError::new(
                        K::ExpectedListSeparator,
                        self.input,
                        self.pos,
                        format!("{expected} (values with spaces go in double quotes)"),
                        excerpt(word),
                    ));
                }
            }
        }
    }

    /// A value of an `IN(…)` list: quoted, or bare up to whitespace, a parenthesis, `"` or
    /// `,`, with the rules of [`value`](Self::value).
    fn list_value(&mut self, list: &str) -> Result<String> {
        let at = self.pos;
        if self.peek() == Some('"') {
            let value = self.quoted()?;
            if value.is_empty() {
                return Err(self.error(
                    K::ExpectedValue,
                    at,
                    format!("a non-empty value in {list}"),
                ));
            }
            return Ok(value);
        }
        let word = self.list_word_at(at);
        let problem = if word.is_empty() {
            Some(String::new())
        } else if word.starts_with(is_operator_char) {
            Some(" (a value starting with `=`, `<`, `>` or `!` goes in double quotes)".to_owned())
        } else if is_keyword(word) {
            Some(format!(" (write `\"{word}\"` for the word {word})"))
        } else if word == "null" {
            Some(
                " (a list holds values, not the null check; write `\"null\"` for the text null)"
                    .to_owned(),
            )
        } else {
            None
        };
        if let Some(hint) = problem {
            return Err(self.error(K::ExpectedValue, at, format!("a value in {list}{hint}")));
        }
        self.pos += word.len();
        if self.peek() == Some('"') {
            return Err(self.stray_quote());
        }
        Ok(word.to_owned())
    }

    fn stray_quote(&self) -> QueryError {
        QueryError::new(
            K::StrayQuote,
            self.input,
            self.pos,
            "the end of the value (to quote a value, put the whole value in double quotes)",
            "`\"`",
        )
    }

    /// `value = quoted | unquoted`; `context` is the clause so far.
    fn value(&mut self, context: &str) -> Result<String> {
        let at = self.pos;
        match self.peek() {
            Some('"') => self.quoted(),
            Some('=' | '<' | '>') => Err(self.error(
                K::ExpectedValue,
                at,
                format!("a value after {context} (a value starting with `=`, `<` or `>` goes in double quotes)"),
            )),
            Some(c) if !is_delimiter(c) => {
                let word = self.word_at(at);
                if is_keyword(word) {
                    return Err(self.error(
                        K::ExpectedValue,
                        at,
                        format!("a value after {context} (write `\"{word}\"` to search for the word {word})"),
                    ));
                }
                self.pos += word.len();
                if self.peek() == Some('"') {
                    return Err(self.stray_quote());
                }
                Ok(word.to_owned())
            }
            Some(c) if c.is_whitespace() => Err(self.error(
                K::ExpectedValue,
                at,
                format!("a value right after {context} (no spaces inside a clause; values with spaces go in double quotes)"),
            )),
            _ => Err(self.error(K::ExpectedValue, at, format!("a value after {context}"))),
        }
    }

    /// A value in double quotes, with the escapes `\"` and `\\`.
    fn quoted(&mut self) -> Result<String> {
        let open = self.pos;
        let mut out = String::new();
        let mut chars = self.rest().char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos = open + i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, e @ ('"' | '\\'))) => out.push(e),
                    other => {
                        let found = other
                            .map_or("`\\` at the end of input".to_owned(), |(_, e)| {
                                excerpt(&format!("\\{e}"))
                            });
                        return Err(QueryError::new(
                            K::BadEscape,
                            self.input,
                            open + i,
                            "`\\\"` or `\\\\` (the only escapes in a quoted value)",
                            found,
                        ));
                    }
                },
                c => out.push(c),
            }
        }
        Err(QueryError::new(
            K::UnterminatedQuote,
            self.input,
            open,
            "a closing `\"` for this quoted value",
            "end of input",
        ))
    }
}

/// `text` in backticks, cut after [`EXCERPT_CHARS`] characters.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("`{}…`", &text[..cut]),
        None => format!("`{text}`"),
    }
}
