//! The parsed query: fields, operators, clauses, expressions, and their canonical text.

use std::fmt;

use crate::error::QueryErrorKind;
use crate::text;

/// The field of a clause.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Field {
    /// `type`: membership in the store's types.
    Type,
    /// `tag`: membership in the store's tags.
    Tag,
    /// `city`: text match on the city.
    City,
    /// `country`: the ISO 3166-1 alpha-2 country code.
    Country,
    /// `name`: text match on the name.
    Name,
    /// `idstore`: text match on the store id.
    IdStore,
    /// `localized`: text match on any of the localized names.
    Localized,
    /// `user.<attribute>`: the attribute of `user_properties` (the name without `user.`).
    User(String),
    /// The attribute path of the attribute dialect ([`parse_attributes`](crate::parse_attributes)):
    /// names of ASCII letters, digits, `_` and `-` separated by `.` (`owner.name`); see
    /// [`lookup_attribute`](crate::lookup_attribute) for what it reads.
    Attribute(String),
}

/// The accepted fields, as listed in error messages.
const FIELDS: &str =
    "`type`, `tag`, `city`, `country`, `name`, `idstore`, `localized` or `user.<attribute>`";

impl Field {
    /// The field written `name` (field names are lower case), or why not.
    pub(crate) fn parse(name: &str) -> Result<Self, (QueryErrorKind, String)> {
        Ok(match name {
            "type" => Self::Type,
            "tag" => Self::Tag,
            "city" => Self::City,
            "country" => Self::Country,
            "name" => Self::Name,
            "idstore" => Self::IdStore,
            "localized" => Self::Localized,
            "user" => {
                return Err((
                    QueryErrorKind::BadAttribute,
                    "an attribute after `user`, written `user.<attribute>`".into(),
                ));
            }
            _ => match name.strip_prefix("user.") {
                Some(attr)
                    if !attr.is_empty()
                        && attr.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
                {
                    Self::User(attr.to_owned())
                }
                Some(_) => {
                    return Err((
                        QueryErrorKind::BadAttribute,
                        "an attribute name of letters, digits and `_` after `user.`".into(),
                    ));
                }
                None => return Err((QueryErrorKind::UnknownField, format!("a field: {FIELDS}"))),
            },
        })
    }

    /// The attribute path written `path` (attribute dialect), or why not.
    pub(crate) fn parse_attribute(path: &str) -> Result<Self, (QueryErrorKind, String)> {
        if is_attribute_path(path) {
            Ok(Self::Attribute(path.to_owned()))
        } else {
            Err((
                QueryErrorKind::BadAttribute,
                "an attribute path: names of ASCII letters, digits, `_` and `-`, separated by `.`"
                    .into(),
            ))
        }
    }

    /// Whether comparisons (`>`, `<`, `>=`, `<=`) apply: only to `user.<attribute>` and
    /// attribute paths.
    pub fn takes_comparisons(&self) -> bool {
        matches!(self, Self::User(_) | Self::Attribute(_))
    }

    /// Whether `:` is the word match of text fields (rather than membership or a code).
    fn is_text(&self) -> bool {
        matches!(
            self,
            Self::City
                | Self::Name
                | Self::IdStore
                | Self::Localized
                | Self::User(_)
                | Self::Attribute(_)
        )
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Type => "type",
            Self::Tag => "tag",
            Self::City => "city",
            Self::Country => "country",
            Self::Name => "name",
            Self::IdStore => "idstore",
            Self::Localized => "localized",
            Self::User(attr) => return write!(f, "user.{attr}"),
            Self::Attribute(path) => path.as_str(),
        })
    }
}

/// The operator of a clause, written right after the `:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// `field:value`, the default: membership, word match or code match depending on the
    /// field.
    Match,
    /// `field:=value`: equality.
    Eq,
    /// `field:>value`
    Gt,
    /// `field:<value`
    Lt,
    /// `field:>=value`
    Ge,
    /// `field:<=value`
    Le,
    /// `field:!=value` (attribute dialect): not equal; a missing or null attribute does not
    /// match.
    Ne,
    /// `field:null` (attribute dialect): the attribute is missing or JSON null. The clause
    /// has no value ([`Clause::value`] is empty).
    Null,
}

impl Op {
    /// What is written after the `:` (`""` for [`Op::Match`]; `"null"`, the whole clause
    /// after the `:`, for [`Op::Null`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Match => "",
            Self::Eq => "=",
            Self::Gt => ">",
            Self::Lt => "<",
            Self::Ge => ">=",
            Self::Le => "<=",
            Self::Ne => "!=",
            Self::Null => "null",
        }
    }

    /// Whether this is a numeric comparison (`>`, `<`, `>=`, `<=`).
    pub fn is_comparison(self) -> bool {
        matches!(self, Self::Gt | Self::Lt | Self::Ge | Self::Le)
    }

    /// The operator at the start of `text` (after the `:`), and its length.
    pub(crate) fn read(text: &str) -> (Self, usize) {
        for (op, s) in [
            (Self::Ge, ">="),
            (Self::Le, "<="),
            (Self::Eq, "="),
            (Self::Gt, ">"),
            (Self::Lt, "<"),
        ] {
            if text.starts_with(s) {
                return (op, s.len());
            }
        }
        (Self::Match, 0)
    }

    /// The operator written `run` (the characters `=`, `<`, `>`, `!` right after the `:`) in
    /// the attribute dialect, or `None` when it is not one.
    pub(crate) fn read_attribute(run: &str) -> Option<Self> {
        Some(match run {
            "" => Self::Match,
            "=" => Self::Eq,
            "!=" => Self::Ne,
            ">" => Self::Gt,
            "<" => Self::Lt,
            ">=" => Self::Ge,
            "<=" => Self::Le,
            _ => return None,
        })
    }
}

/// One `field:operator value` clause. Built by [`parse`](crate::parse) and
/// [`parse_attributes`](crate::parse_attributes) only, so its operator suits its field and its
/// value is valid for both.
#[derive(Debug, Clone)]
pub struct Clause {
    field: Field,
    op: Op,
    value: String,
    /// The value's folded words (for `:` text matches).
    pub(crate) folded: String,
    /// The value in lower case (for `=` and memberships).
    pub(crate) lower: String,
    /// The value as a number, when it is one.
    pub(crate) number: Option<f64>,
}

impl Clause {
    /// The clause, or why its value does not suit the field and operator (the operator is
    /// already known to suit the field).
    pub(crate) fn new(
        field: Field,
        op: Op,
        value: String,
    ) -> Result<Self, (QueryErrorKind, String)> {
        let context = format!("`{field}:{}`", op.as_str());
        let number = text::number(&value);
        let folded = text::fold(&value);
        if value.is_empty() {
            return Err((
                QueryErrorKind::ExpectedValue,
                format!("a non-empty value after {context}"),
            ));
        }
        if op.is_comparison() && number.is_none() {
            return Err((
                QueryErrorKind::ExpectedNumber,
                format!("a number (such as `4.5` or `-3`) after {context}"),
            ));
        }
        if field == Field::Country
            && !(value.len() == 2 && value.bytes().all(|b| b.is_ascii_alphabetic()))
        {
            return Err((
                QueryErrorKind::ExpectedCountryCode,
                format!(
                    "a two-letter country code (ISO 3166-1 alpha-2, such as `AD`) after {context}"
                ),
            ));
        }
        if op == Op::Match && field.is_text() && folded.is_empty() {
            return Err((
                QueryErrorKind::ExpectedWord,
                format!(
                    "a value with a letter or digit after {context} (use `:=` to compare whole texts)"
                ),
            ));
        }
        Ok(Self {
            lower: text::lower(&value),
            field,
            op,
            value,
            folded,
            number,
        })
    }

    /// The null check `field:null` (attribute dialect).
    pub(crate) fn null(field: Field) -> Self {
        Self {
            field,
            op: Op::Null,
            value: String::new(),
            folded: String::new(),
            lower: String::new(),
            number: None,
        }
    }

    /// The field.
    pub fn field(&self) -> &Field {
        &self.field
    }

    /// The operator.
    pub fn op(&self) -> Op {
        self.op
    }

    /// The value, unquoted and unescaped (empty for [`Op::Null`]).
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The value in lower case, as `type`, `tag` and `country` memberships compare it (each
    /// member lower-cased character by character must equal it).
    pub fn lower(&self) -> &str {
        &self.lower
    }
}

/// Equal when field, operator and value are (the rest is derived from them).
impl PartialEq for Clause {
    fn eq(&self, other: &Self) -> bool {
        self.field == other.field && self.op == other.op && self.value == other.value
    }
}

impl Eq for Clause {}

/// Whether `value` must be quoted to be read back as itself; `attribute` for the attribute
/// dialect, where a value starting with `!` and the text `null` must be quoted too.
fn needs_quotes(value: &str, attribute: bool) -> bool {
    value.is_empty()
        || value.starts_with(['=', '<', '>'])
        || value.contains(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '"'))
        || is_keyword(value)
        || (attribute && (value.starts_with('!') || value == "null"))
}

/// Whether `path` is an attribute path: one or more names of ASCII letters, digits, `_` and
/// `-`, separated by `.`.
pub(crate) fn is_attribute_path(path: &str) -> bool {
    path.split('.').all(|name| {
        !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    })
}

/// Whether `word` is one of the keywords `AND`, `OR`, `NOT` (upper case only).
pub(crate) fn is_keyword(word: &str) -> bool {
    matches!(word, "AND" | "OR" | "NOT")
}

/// Writes `value`, in double quotes (with `\"` and `\\`) when `quote`.
fn write_value(f: &mut fmt::Formatter<'_>, value: &str, quote: bool) -> fmt::Result {
    if !quote {
        return f.write_str(value);
    }
    f.write_str("\"")?;
    for c in value.chars() {
        if matches!(c, '"' | '\\') {
            f.write_str("\\")?;
        }
        write!(f, "{c}")?;
    }
    f.write_str("\"")
}

/// The length of `value` as [`write_value`] writes it.
fn written_len(value: &str, quote: bool) -> usize {
    if quote {
        value.len() + 2 + value.matches(['"', '\\']).count()
    } else {
        value.len()
    }
}

/// Canonical text: `field:opvalue`, the value quoted only when it must be; `field:null` for
/// the null check.
impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.field, self.op.as_str())?;
        if self.op == Op::Null {
            return Ok(());
        }
        let attribute = matches!(self.field, Field::Attribute(_));
        write_value(f, &self.value, needs_quotes(&self.value, attribute))
    }
}

/// A query expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// `left AND right`
    And(Box<Expr>, Box<Expr>),
    /// `left OR right`
    Or(Box<Expr>, Box<Expr>),
    /// `NOT expr`
    Not(Box<Expr>),
    /// `field:operator value`
    Clause(Clause),
}

impl Expr {
    /// The clauses of an attribute dialect list, when `self` has its shape: an `OR` of two or
    /// more `=` clauses on the same attribute path, left-associative (`((a OR b) OR c) OR d`),
    /// as `path:IN(…)` reads.
    fn list_items(&self) -> Option<Vec<&Clause>> {
        let mut items: Vec<&Clause> = Vec::new();
        let mut e = self;
        loop {
            let (c, left) = match e {
                Self::Or(l, r) => match &**r {
                    Self::Clause(c) => (c, Some(l)),
                    _ => return None,
                },
                Self::Clause(c) => (c, None),
                _ => return None,
            };
            let same = match items.first() {
                None => matches!(c.field, Field::Attribute(_)),
                Some(first) => c.field == first.field,
            };
            if !same || c.op != Op::Eq {
                return None;
            }
            items.push(c);
            match left {
                Some(l) => e = l,
                None => break,
            }
        }
        items.reverse();
        (items.len() > 1).then_some(items)
    }

    /// The clauses of a list that the canonical text writes as `path:IN(…)`: the shorter
    /// text of its clauses `c1 … ck` (the list quotes values with a `,`, and a quoted `\` is
    /// doubled, so values with many backslashes can make a list longer) between the list
    /// and the shortest text of `c1 … ck-1` followed by `OR ck` (the tree is the same). So
    /// the canonical text is never longer than any text of the same query.
    fn list(&self) -> Option<Vec<&Clause>> {
        let items = self.list_items()?;
        let path = items[0].field.to_string().len();
        let as_clause = |v: &str| path + 2 + written_len(v, needs_quotes(v, true));
        let as_item = |v: &str| written_len(v, needs_quotes(v, true) || v.contains(','));
        let (mut shortest, mut list) = (as_clause(&items[0].value), path + 5);
        list += as_item(&items[0].value);
        let mut is_list = false;
        for c in &items[1..] {
            list += 1 + as_item(&c.value);
            let or = shortest + 4 + as_clause(&c.value);
            is_list = list <= or;
            shortest = list.min(or);
        }
        is_list.then_some(items)
    }

    /// Whether `self` has the shape of a list but prints as an `OR` of `=` clauses (in
    /// parentheses where precedence needs them): the parser counts such a list as a level of
    /// nesting, so that its canonical text parses back.
    pub(crate) fn is_list_printed_as_or(&self) -> bool {
        self.list_items().is_some() && self.list().is_none()
    }

    /// Binding strength: `OR` 1, `AND` 2, `NOT` 3, a clause or a list 4.
    fn precedence(&self) -> u8 {
        match self {
            Self::Or(..) if self.list().is_some() => 4,
            Self::Or(..) => 1,
            Self::And(..) => 2,
            Self::Not(_) => 3,
            Self::Clause(_) => 4,
        }
    }

    /// Writes `self`, in parentheses when it binds less than `min`.
    fn write(&self, f: &mut fmt::Formatter<'_>, min: u8) -> fmt::Result {
        if let Some(items) = self.list() {
            write!(f, "{}:IN(", items[0].field)?;
            for (i, c) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                let quote = needs_quotes(&c.value, true) || c.value.contains(',');
                write_value(f, &c.value, quote)?;
            }
            return f.write_str(")");
        }
        let parens = self.precedence() < min;
        if parens {
            f.write_str("(")?;
        }
        match self {
            // Left-associative: a right operand of the same operator needs parentheses.
            Self::Or(l, r) => {
                l.write(f, 1)?;
                f.write_str(" OR ")?;
                r.write(f, 2)?;
            }
            Self::And(l, r) => {
                l.write(f, 2)?;
                f.write_str(" AND ")?;
                r.write(f, 3)?;
            }
            Self::Not(e) => {
                f.write_str("NOT ")?;
                e.write(f, 3)?;
            }
            Self::Clause(c) => write!(f, "{c}")?,
        }
        if parens {
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// Canonical text: single spaces, parentheses only where precedence needs them, an `OR` of `=`
/// clauses on one attribute path as `path:IN(…)`; it parses back to the same expression.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, 0)
    }
}

/// A parsed query (see [`parse`](crate::parse) and
/// [`parse_attributes`](crate::parse_attributes)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub(crate) expr: Expr,
}

impl Query {
    /// The expression tree.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// Every clause, left to right.
    pub fn clauses(&self) -> impl Iterator<Item = &Clause> {
        let mut stack = vec![&self.expr];
        std::iter::from_fn(move || {
            while let Some(e) = stack.pop() {
                match e {
                    Expr::And(l, r) | Expr::Or(l, r) => {
                        stack.push(r);
                        stack.push(l);
                    }
                    Expr::Not(e) => stack.push(e),
                    Expr::Clause(c) => return Some(c),
                }
            }
            None
        })
    }

    /// The operands of the top-level `AND`s, left to right (the whole expression when it is
    /// not an `AND`): a store matches when it matches every one of them.
    pub fn conjuncts(&self) -> impl Iterator<Item = &Expr> {
        let mut stack = vec![&self.expr];
        std::iter::from_fn(move || {
            while let Some(e) = stack.pop() {
                match e {
                    Expr::And(l, r) => {
                        stack.push(r);
                        stack.push(l);
                    }
                    other => return Some(other),
                }
            }
            None
        })
    }

    /// The values, in lower case ([`Clause::lower`]), of the `type:` and `type:=` clauses
    /// among the [conjuncts](Self::conjuncts): every matching store has each of these types
    /// (compared ignoring case), so a planner can start from a by-type index.
    pub fn required_types(&self) -> impl Iterator<Item = &str> {
        self.conjuncts().filter_map(|e| match e {
            Expr::Clause(c) if c.field == Field::Type => Some(c.lower.as_str()),
            _ => None,
        })
    }
}

/// The canonical text of the query.
impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.expr.fmt(f)
    }
}
