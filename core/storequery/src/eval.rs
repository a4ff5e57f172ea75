//! Evaluation of a query on one store, or of a `where` filter on one feature's attributes.

use serde_json::{Map, Value};

use crate::ast::{Clause, Expr, Field, Op, Query};
use crate::text;

/// What a query reads of a store. The engine implements it on its store record.
pub trait StoreFields {
    /// The store's types (`type`).
    fn types(&self) -> &[String];
    /// The store's tags (`tag`).
    fn tags(&self) -> &[String];
    /// The city of its address (`city`).
    fn city(&self) -> &str;
    /// ISO 3166-1 alpha-2 code of its country, when known (`country`).
    fn country_code(&self) -> Option<&str>;
    /// Its name (`name`).
    fn name(&self) -> &str;
    /// Its id (`idstore`).
    fn store_id(&self) -> &str;
    /// Its names in other languages (`localized`).
    fn localized_names(&self) -> impl Iterator<Item = &str>;
    /// The attribute `name` of its `user_properties` (`user.<name>`).
    fn user_property(&self, name: &str) -> Option<&Value>;
}

impl Clause {
    /// Whether `store` satisfies this clause.
    pub fn matches(&self, store: &impl StoreFields) -> bool {
        let member = |list: &[String]| list.iter().any(|t| text::eq_lower(t, &self.lower));
        match self.field() {
            Field::Type => member(store.types()),
            Field::Tag => member(store.tags()),
            Field::Country => store
                .country_code()
                .is_some_and(|c| text::eq_lower(c, &self.lower)),
            Field::City => self.text_op(self.op(), store.city()),
            Field::Name => self.text_op(self.op(), store.name()),
            Field::IdStore => self.text_op(self.op(), store.store_id()),
            Field::Localized => store.localized_names().any(|n| self.text_op(self.op(), n)),
            Field::User(attr) => store
                .user_property(attr)
                .is_some_and(|v| self.scalar_matches(self.op(), v)),
            // Only `parse_attributes` makes these: the path in `user_properties`.
            Field::Attribute(path) => {
                let value = store.user_property(path).or_else(|| {
                    let mut names = path.split('.');
                    let first = store.user_property(names.next()?)?;
                    names.try_fold(first, |v, name| v.as_object()?.get(name))
                });
                self.value_matches(value)
            }
        }
    }

    /// Whether an attribute whose value is `value` (None = the feature lacks the attribute)
    /// satisfies this clause: by the JSON type of the value, an array when one of its elements
    /// does (`!=`: when none is equal), `null` when it is missing or null (see
    /// `docs/datasets-where.md`).
    pub fn value_matches(&self, value: Option<&Value>) -> bool {
        match (self.op(), value) {
            (Op::Null, v) => v.is_none_or(Value::is_null),
            (_, None | Some(Value::Null | Value::Object(_))) => false,
            (Op::Ne, Some(Value::Array(items))) => {
                !items.iter().any(|v| self.scalar_matches(Op::Eq, v))
            }
            (Op::Ne, Some(v)) => !self.scalar_matches(Op::Eq, v),
            (op, Some(Value::Array(items))) => items.iter().any(|v| self.scalar_matches(op, v)),
            (op, Some(v)) => self.scalar_matches(op, v),
        }
    }

    /// Whether an attribute whose value is the number `a` satisfies this clause (what
    /// [`matches`](Self::matches) and [`value_matches`](Self::value_matches) do for a number,
    /// for evaluators that keep the numbers in columns).
    pub fn number_matches(&self, a: f64) -> bool {
        self.number_op(self.op(), a)
    }

    /// The number `a` under operator `op` with this clause's value.
    fn number_op(&self, op: Op, a: f64) -> bool {
        match (op, self.number) {
            (Op::Ne, v) => v != Some(a),
            (Op::Null, _) | (_, None) => false,
            (Op::Match | Op::Eq, Some(v)) => a == v,
            (Op::Gt, Some(v)) => a > v,
            (Op::Lt, Some(v)) => a < v,
            (Op::Ge, Some(v)) => a >= v,
            (Op::Le, Some(v)) => a <= v,
        }
    }

    /// `:` word match, else (`=`, and `=` standing for `!=`) equality ignoring case.
    fn text_op(&self, op: Op, field: &str) -> bool {
        match op {
            Op::Match => text::words_match(&self.folded, &text::fold(field)),
            _ => text::eq_lower(field, &self.lower),
        }
    }

    /// The clause with operator `op` (its own, or `=` for `!=`) on a value by its JSON type
    /// (a `user.<attribute>`, an attribute or an element of an array attribute): numbers
    /// compare as numbers, booleans with `true`/`false`, strings as text; null, arrays and
    /// objects match nothing.
    fn scalar_matches(&self, op: Op, attr: &Value) -> bool {
        match attr {
            Value::Number(n) => n.as_f64().is_some_and(|a| self.number_op(op, a)),
            _ if op.is_comparison() => false,
            Value::Bool(b) => text::boolean(self.value()) == Some(*b),
            Value::String(s) => self.text_op(op, s),
            Value::Null | Value::Array(_) | Value::Object(_) => false,
        }
    }
}

/// The attribute at `path` of a feature's `attributes`, as a `where` clause on `path` reads
/// it: the key `path` itself when there is one, else the nested objects along its
/// `.`-separated names (`owner.name` reads `{"owner": {"name": …}}`); `None` when missing.
pub fn lookup_attribute<'a>(attributes: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    if let Some(v) = attributes.get(path) {
        return Some(v);
    }
    let mut names = path.split('.');
    let first = attributes.get(names.next()?)?;
    names.try_fold(first, |v, name| v.as_object()?.get(name))
}

impl Expr {
    /// Whether `store` satisfies the expression.
    pub fn matches(&self, store: &impl StoreFields) -> bool {
        self.matches_with(&mut |c| c.matches(store))
    }

    /// Evaluates the expression with `clause` deciding each clause (`AND` and `OR` evaluate
    /// their right side only when the left side does not decide).
    pub fn matches_with(&self, clause: &mut impl FnMut(&Clause) -> bool) -> bool {
        match self {
            Self::And(l, r) => l.matches_with(clause) && r.matches_with(clause),
            Self::Or(l, r) => l.matches_with(clause) || r.matches_with(clause),
            Self::Not(e) => !e.matches_with(clause),
            Self::Clause(c) => clause(c),
        }
    }
}

impl Query {
    /// Whether `store` satisfies the query.
    pub fn matches(&self, store: &impl StoreFields) -> bool {
        self.matches_with(&mut |c| c.matches(store))
    }

    /// Evaluates the expression with `clause` deciding each clause (for evaluators that keep
    /// attributes in their own columns).
    pub fn matches_with(&self, clause: &mut impl FnMut(&Clause) -> bool) -> bool {
        self.expr.matches_with(clause)
    }

    /// Whether a feature whose attributes are `attributes` satisfies a `where` filter: each
    /// clause is [`Clause::value_matches`] on [`lookup_attribute`] of its path. (A clause of
    /// the stores dialect reads nothing here and matches as on a missing attribute.)
    pub fn matches_attributes(&self, attributes: &Map<String, Value>) -> bool {
        self.matches_with(&mut |c| {
            let value = match c.field() {
                Field::Attribute(path) => lookup_attribute(attributes, path),
                _ => None,
            };
            c.value_matches(value)
        })
    }
}
