//! The parse error: where, what was expected, what was found.

use std::fmt;

/// The class of a [`QueryError`]; each is described, with an example, in the language
/// descriptions (`docs/stores-query-language.md` and `docs/datasets-where.md`, "Errors").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QueryErrorKind {
    /// The input is longer than [`MAX_QUERY_BYTES`](crate::MAX_QUERY_BYTES).
    TooLong,
    /// More than [`MAX_DEPTH`](crate::MAX_DEPTH) nested parentheses and `NOT`s.
    TooDeep,
    /// A clause was expected (start of the input, after `AND`, `OR`, `NOT` or `(`).
    ExpectedClause,
    /// A field name that is not one of the accepted fields.
    UnknownField,
    /// `user` without `.<attribute>`, or an attribute name with other characters than
    /// letters, digits and `_`; in the attribute dialect, a field that is not an attribute
    /// path.
    BadAttribute,
    /// A field not followed by `:`.
    ExpectedColon,
    /// A comparison (`>`, `<`, `>=`, `<=`) on a field that is not `user.<attribute>`; in the
    /// attribute dialect, an operator before `IN(…)`.
    OperatorNotAllowed,
    /// Attribute dialect: characters `=`, `<`, `>`, `!` after the `:` that are not an
    /// operator (`==`, `<>`, `=>`, `!`).
    UnknownOperator,
    /// No value after the operator, an empty value, an unquoted keyword, or an unquoted value
    /// starting with `=`, `<` or `>`.
    ExpectedValue,
    /// A comparison whose value is not a number.
    ExpectedNumber,
    /// A `:` text match whose value has no letter or digit.
    ExpectedWord,
    /// `country` with a value that is not a two-letter code.
    ExpectedCountryCode,
    /// A `"` inside an unquoted value.
    StrayQuote,
    /// A quoted value without its closing `"`.
    UnterminatedQuote,
    /// A backslash in a quoted value not followed by `"` or `\`.
    BadEscape,
    /// Two clauses or groups with no `AND` or `OR` between them.
    ExpectedOperator,
    /// A `(` without its `)`.
    ExpectedCloseParen,
    /// A `)` without its `(`.
    UnmatchedCloseParen,
    /// Attribute dialect: a list with no value, `field:IN()`.
    EmptyList,
    /// Attribute dialect: a value of an `IN(…)` list not followed by `,` or `)`.
    ExpectedListSeparator,
}

/// Why a query does not parse: the position of the problem, what was expected there and what
/// was found. Displays as ``query: at column 12: expected a value after `type:`, found end of
/// input`` (``where: at column …`` for a `where` filter of the attribute dialect).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct QueryError {
    /// `query` or `where`: what the message calls the text.
    subject: &'static str,
    kind: QueryErrorKind,
    offset: usize,
    column: usize,
    expected: String,
    found: String,
}

impl QueryError {
    /// An error at byte `offset` of `input`.
    pub(crate) fn new(
        kind: QueryErrorKind,
        input: &str,
        offset: usize,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Self {
        Self {
            subject: "query",
            kind,
            offset,
            column: column(input, offset),
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// The same error, its message calling the text `subject` (`where`).
    pub(crate) fn with_subject(self, subject: &'static str) -> Self {
        Self { subject, ..self }
    }

    /// The class of the problem.
    pub fn kind(&self) -> QueryErrorKind {
        self.kind
    }

    /// Byte offset of the problem in the input (the input's length at its end).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// 1-based column of the problem, counted in characters (newlines count as one).
    pub fn column(&self) -> usize {
        self.column
    }

    /// What the parser expected, in words (``a value after `type:` ``).
    pub fn expected(&self) -> &str {
        &self.expected
    }

    /// What it found, in words (`` `pharmacy` ``, `end of input`).
    pub fn found(&self) -> &str {
        &self.found
    }
}

/// The 1-based character column of byte `offset` of `input`.
pub(crate) fn column(input: &str, offset: usize) -> usize {
    input
        .get(..offset)
        .map_or(offset, |before| before.chars().count())
        + 1
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: at column {}: expected {}, found {}",
            self.subject, self.column, self.expected, self.found
        )
    }
}
