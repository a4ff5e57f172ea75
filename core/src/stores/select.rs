//! Query evaluation over the index's columns rather than store by store.
//!
//! A query is evaluated on a set of candidate stores (their places in the index, ascending),
//! clause by clause: `type`, `tag` and `country` clauses intersect the candidates with the
//! by-member lists of the index, `user.<attribute>` clauses read the attribute's column (numbers
//! inline, the record only for text and booleans), and only the text clauses (`name`, `city`,
//! `idstore`, `localized`) read the stores' records. `AND` evaluates its right side on what its
//! left side kept, `OR` its right side on what its left side left out, `NOT` is a difference.
//! The answer is exactly the candidates for which [`Query::matches`] holds (a test compares
//! the two on every store of a real pack).
use waymark_storequery::{Clause, Expr, Field, Query};

use super::index::{StoreIndex, UserCell};

impl StoreIndex {
    /// The stores of `candidates` (ascending) that satisfy `query`, ascending.
    pub fn select(&self, query: &Query, candidates: &[u32]) -> Vec<u32> {
        self.select_expr(query.expr(), candidates)
    }

    fn select_expr(&self, e: &Expr, candidates: &[u32]) -> Vec<u32> {
        if candidates.is_empty() {
            return Vec::new();
        }
        match e {
            Expr::And(l, r) => {
                let left = self.select_expr(l, candidates);
                self.select_expr(r, &left)
            }
            Expr::Or(l, r) => {
                let left = self.select_expr(l, candidates);
                let right = self.select_expr(r, &difference(candidates, &left));
                union(&left, &right)
            }
            Expr::Not(e) => difference(candidates, &self.select_expr(e, candidates)),
            Expr::Clause(c) => self.select_clause(c, candidates),
        }
    }

    fn select_clause(&self, c: &Clause, candidates: &[u32]) -> Vec<u32> {
        match c.field() {
            Field::Type => intersection(candidates, self.with_type(c.lower())),
            Field::Tag => intersection(candidates, self.with_tag(c.lower())),
            Field::Country => intersection(candidates, self.in_country(c.lower())),
            Field::User(name) => match self.user_column(name) {
                None => Vec::new(),
                Some(column) => candidates
                    .iter()
                    .copied()
                    .filter(|&i| match column[i as usize] {
                        UserCell::Absent => false,
                        UserCell::Number(a) => c.number_matches(a),
                        UserCell::Other => c.matches(self.record(i)),
                    })
                    .collect(),
            },
            Field::City | Field::Name | Field::IdStore | Field::Localized | Field::Attribute(_) => {
                candidates
                    .iter()
                    .copied()
                    .filter(|&i| c.matches(self.record(i)))
                    .collect()
            }
        }
    }
}

/// The members of both ascending lists, ascending: a merge, or binary searches in the longer
/// list when the other is much shorter.
fn intersection(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len().saturating_mul(16) < long.len() {
        return short
            .iter()
            .copied()
            .filter(|x| long.binary_search(x).is_ok())
            .collect();
    }
    let mut out = Vec::with_capacity(short.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// The members of ascending `a` not in ascending `b` (a subset of `a`), ascending.
fn difference(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len().saturating_sub(b.len()));
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if b.get(j) != Some(&x) {
            out.push(x);
        }
    }
    out
}

/// The members of either of two disjoint ascending lists, ascending.
fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] < b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn set(v: Vec<u32>) -> Vec<u32> {
        let mut v = v;
        v.sort_unstable();
        v.dedup();
        v
    }

    proptest! {
        #[test]
        fn list_operations_agree_with_sets(
            a in proptest::collection::vec(0u32..300, 0..200),
            b in proptest::collection::vec(0u32..300, 0..200),
        ) {
            let (a, b) = (set(a), set(b));
            let both: Vec<u32> = a.iter().copied().filter(|x| b.contains(x)).collect();
            let only_a: Vec<u32> = a.iter().copied().filter(|x| !b.contains(x)).collect();
            prop_assert_eq!(intersection(&a, &b), both.clone());
            prop_assert_eq!(intersection(&b, &a), both);
            prop_assert_eq!(difference(&a, &b), only_a.clone());
            let mut all = only_a.clone();
            all.extend(&b);
            prop_assert_eq!(union(&only_a, &b), set(all));
        }
    }
}
