//! Evaluation of a query on one store.

use serde_json::Value;

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
            Field::City => self.text_matches(store.city()),
            Field::Name => self.text_matches(store.name()),
            Field::IdStore => self.text_matches(store.store_id()),
            Field::Localized => store.localized_names().any(|n| self.text_matches(n)),
            Field::User(attr) => store
                .user_property(attr)
                .is_some_and(|v| self.user_matches(v)),
        }
    }

    /// Whether a `user.<attribute>` whose value is the number `a` satisfies this clause (what
    /// [`matches`](Self::matches) does for a numeric attribute, for evaluators that keep the
    /// numbers in columns).
    pub fn number_matches(&self, a: f64) -> bool {
        let Some(v) = self.number else {
            return false;
        };
        match self.op() {
            Op::Match | Op::Eq => a == v,
            Op::Gt => a > v,
            Op::Lt => a < v,
            Op::Ge => a >= v,
            Op::Le => a <= v,
        }
    }

    /// `:` word match or `=` equality ignoring case.
    fn text_matches(&self, field: &str) -> bool {
        match self.op() {
            Op::Match => text::words_match(&self.folded, &text::fold(field)),
            _ => text::eq_lower(field, &self.lower),
        }
    }

    /// A `user.<attribute>` clause on the attribute's value, by the value's JSON type.
    fn user_matches(&self, attr: &Value) -> bool {
        match attr {
            Value::Number(n) => n.as_f64().is_some_and(|a| self.number_matches(a)),
            _ if self.op().is_comparison() => false,
            Value::Bool(b) => text::boolean(self.value()) == Some(*b),
            Value::String(s) => self.text_matches(s),
            Value::Null | Value::Array(_) | Value::Object(_) => false,
        }
    }
}

impl Expr {
    /// Whether `store` satisfies the expression.
    pub fn matches(&self, store: &impl StoreFields) -> bool {
        match self {
            Self::And(l, r) => l.matches(store) && r.matches(store),
            Self::Or(l, r) => l.matches(store) || r.matches(store),
            Self::Not(e) => !e.matches(store),
            Self::Clause(c) => c.matches(store),
        }
    }
}

impl Query {
    /// Whether `store` satisfies the query.
    pub fn matches(&self, store: &impl StoreFields) -> bool {
        self.expr.matches(store)
    }
}
