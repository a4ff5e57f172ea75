//! The store search query language of `GET /stores/search` and `GET /stores/search/bounds`
//! (the `query` parameter): [`parse`] turns the text into a [`Query`], [`Query::matches`]
//! evaluates it on anything that implements [`StoreFields`], and [`Query`]'s `Display` prints
//! its canonical text, which parses back to the same query.
//!
//! The same parser reads the `where` filter of the datasets endpoints, in its attribute
//! dialect: [`parse_attributes`] (described there and in `docs/datasets-where.md`), evaluated
//! with [`Clause::value_matches`] and [`Query::matches_with`] or
//! [`Query::matches_attributes`].
//!
//! ```
//! use serde_json::{Value, json};
//! use waymark_storequery::{StoreFields, parse};
//!
//! struct Store { types: Vec<String>, name: String, user: Value }
//!
//! impl StoreFields for Store {
//!     fn types(&self) -> &[String] { &self.types }
//!     fn tags(&self) -> &[String] { &[] }
//!     fn city(&self) -> &str { "Andorra la Vella" }
//!     fn country_code(&self) -> Option<&str> { Some("AD") }
//!     fn name(&self) -> &str { &self.name }
//!     fn store_id(&self) -> &str { "A123" }
//!     fn localized_names(&self) -> impl Iterator<Item = &str> { std::iter::empty() }
//!     fn user_property(&self, name: &str) -> Option<&Value> { self.user.get(name) }
//! }
//!
//! let store = Store {
//!     types: vec!["pharmacy".into()],
//!     name: "Farmàcia Central".into(),
//!     user: json!({"rating": 4.7, "open_sunday": true}),
//! };
//! let q = parse(r#"type:Pharmacy AND (name:"farmacia cent" OR user.rating:>=4.5)"#).unwrap();
//! assert!(q.matches(&store));
//! assert_eq!(q.to_string(), r#"type:Pharmacy AND (name:"farmacia cent" OR user.rating:>=4.5)"#);
//! assert_eq!(q.required_types().collect::<Vec<_>>(), ["pharmacy"]);
//!
//! let e = parse("tag:24h AND type:").unwrap_err();
//! assert_eq!(e.to_string(), "query: at column 18: expected a value after `type:`, found end of input");
//! ```
//!
//! The language itself — grammar, precedence, quoting, the meaning of each field and operator,
//! errors and limits — is the contract below (also `docs/stores-query-language.md`).
//!
#![doc = include_str!("../../../docs/stores-query-language.md")]

mod ast;
mod error;
mod eval;
mod parser;
mod text;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod attribute_tests;

#[cfg(test)]
mod proptests;

pub use ast::{Clause, Expr, Field, Op, Query};
pub use error::{QueryError, QueryErrorKind};
pub use eval::{StoreFields, lookup_attribute};

/// Longest accepted query text, in bytes.
pub const MAX_QUERY_BYTES: usize = 2000;

/// Deepest accepted nesting of parentheses and `NOT`s.
pub const MAX_DEPTH: usize = 32;

/// Parses the text of a query. Errors carry the position of the problem, what was expected
/// and what was found; hostile input (any length, any nesting) gives an error, never a panic
/// or a stack overflow.
pub fn parse(input: &str) -> Result<Query, QueryError> {
    parser::parse(input, parser::Dialect::Stores)
}

/// Parses a dataset `where` filter (the attribute dialect).
///
/// The grammar, quoting, precedence, errors and limits are those of [`parse`]; the clauses
/// differ: the field is an attribute path ([`Field::Attribute`]), the operators add `!=`
/// ([`Op::Ne`]), `field:null` is the null check ([`Op::Null`]), and `field:IN(a,b,…)` is read
/// as `(field:=a OR field:=b OR …)` (and such an `OR` prints as the list). Errors display as `where: at column C: expected E, found
/// F`. The contract is `docs/datasets-where.md`, included below.
///
/// ```
/// use serde_json::json;
/// use waymark_storequery::parse_attributes;
///
/// let q = parse_attributes(r#"kind:IN(school,"high school") AND NOT closed:true AND pupils:>=100"#).unwrap();
/// let school = json!({"kind": "School", "pupils": 320});
/// assert!(q.matches_attributes(school.as_object().unwrap()));
/// assert_eq!(
///     q.to_string(),
///     r#"kind:IN(school,"high school") AND NOT closed:true AND pupils:>=100"#
/// );
/// let e = parse_attributes("pupils:>=many").unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "where: at column 10: expected a number (such as `4.5` or `-3`) after `pupils:>=`, found `many`"
/// );
/// ```
///
#[doc = include_str!("../../../docs/datasets-where.md")]
pub fn parse_attributes(input: &str) -> Result<Query, QueryError> {
    parser::parse(input, parser::Dialect::Attributes).map_err(|e| e.with_subject("where"))
}
