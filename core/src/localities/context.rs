//! The parent areas in the `context` field. An item indexes one parent token per parent area
//! (`@place.osm-r62422`, [`crate::packs::search::parent_token`]) instead of the words of the parent's names
//! in every context language, and the parent's document lists those words
//! ([`DocData::context_words`]). [`ContextWords`] maps each word back to the parents it names
//! (built once per opened pack: a pack has a few hundred parents), so that a query word
//! matches the context of every item inside a parent of that name.
//!
//! The match is the one of a context holding the words themselves: an item's context never
//! repeated a word of its own names (`London Road` in London has no context word `london`),
//! so a parent matches through a word only where the item's names lack that word.
use std::collections::BTreeMap;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, FuzzyTermQuery, Occur, Query, TermQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{Searcher, TantivyDocument, Term};

use super::text::QueryToken;
use crate::packs::search::{DocData, PARENT_TOKEN_MARK, SearchFields};

/// The words of a pack's parent areas: word -> parent tokens.
#[derive(Debug, Default)]
pub struct ContextWords {
    words: BTreeMap<String, Vec<String>>,
}

impl ContextWords {
    /// The words of every parent whose token is in the `context` dictionary of `searcher`.
    pub fn load(searcher: &Searcher, f: &SearchFields) -> ContextWords {
        let mut tokens: Vec<String> = Vec::new();
        // The character after the mark bounds the tokens that start with it.
        let mark = PARENT_TOKEN_MARK.to_string();
        let after = char::from_u32(PARENT_TOKEN_MARK as u32 + 1)
            .map(String::from)
            .unwrap_or_default();
        for seg in searcher.segment_readers() {
            let Ok(inv) = seg.inverted_index(f.context) else {
                continue;
            };
            let Ok(mut stream) = inv.terms().range().ge(&mark).lt(&after).into_stream() else {
                continue;
            };
            while stream.advance() {
                if let Ok(t) = std::str::from_utf8(stream.key())
                    && !tokens.iter().any(|x| x == t)
                {
                    tokens.push(t.to_string());
                }
            }
        }
        let mut words: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for token in tokens {
            let Some(id) = token.strip_prefix(PARENT_TOKEN_MARK) else {
                continue;
            };
            for w in parent_words(searcher, f, id) {
                words.entry(w).or_default().push(token.clone());
            }
        }
        ContextWords { words }
    }

    /// Whether `word` is a word of some parent.
    pub fn contains(&self, word: &str) -> bool {
        self.words.contains_key(word)
    }

    /// Matches the items whose context holds `word` through a parent: a parent of that word
    /// and no `word` among the item's names. `None` when no parent has the word.
    fn word_query(&self, f: &SearchFields, word: &str) -> Option<Box<dyn Query>> {
        let tokens = self.words.get(word)?;
        let any_parent: Vec<(Occur, Box<dyn Query>)> = tokens
            .iter()
            .map(|t| {
                let q: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(f.context, t),
                    IndexRecordOption::Basic,
                ));
                (Occur::Should, q)
            })
            .collect();
        let own_name: Box<dyn Query> = Box::new(TermQuery::new(
            Term::from_field_text(f.names, word),
            IndexRecordOption::Basic,
        ));
        Some(Box::new(BooleanQuery::new(vec![
            (Occur::Must, Box::new(BooleanQuery::new(any_parent))),
            (Occur::MustNot, own_name),
        ])))
    }

    /// The parent words starting with `prefix`.
    fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a str> {
        self.words
            .range::<str, _>((
                std::ops::Bound::Included(prefix),
                std::ops::Bound::Unbounded,
            ))
            .map(|(w, _)| w.as_str())
            .take_while(move |w| w.starts_with(prefix))
    }

    /// `q` on the `context` field, or any of `words` through a parent.
    fn or_parents<'a>(
        &self,
        f: &SearchFields,
        q: Box<dyn Query>,
        words: impl Iterator<Item = &'a str>,
    ) -> Box<dyn Query> {
        let mut should: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Should, q)];
        for w in words {
            if let Some(p) = self.word_query(f, w) {
                should.push((Occur::Should, p));
            }
        }
        if should.len() == 1 {
            return should.swap_remove(0).1;
        }
        Box::new(BooleanQuery::new(should))
    }

    /// The query of token `t` on the context, exact (and as a prefix when it is one), with
    /// constant scores `3 * weight` and `2 * weight`; no typos: the context must be typed
    /// right.
    pub fn token_query(&self, f: &SearchFields, t: &QueryToken, weight: f32) -> Box<dyn Query> {
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let cs = |q: Box<dyn Query>, s: f32| -> (Occur, Box<dyn Query>) {
            (Occur::Should, Box::new(ConstScoreQuery::new(q, s * weight)))
        };
        for text in std::iter::once(&t.text).chain(t.alts.iter()) {
            let term = Term::from_field_text(f.context, text);
            let exact = Box::new(TermQuery::new(term.clone(), IndexRecordOption::Basic));
            should.push(cs(
                self.or_parents(f, exact, std::iter::once(text.as_str())),
                3.0,
            ));
            if t.prefix {
                let prefix = Box::new(FuzzyTermQuery::new_prefix(term, 0, true));
                should.push(cs(self.or_parents(f, prefix, self.with_prefix(text)), 2.0));
            }
        }
        Box::new(BooleanQuery::new(should))
    }
}

/// [`DocData::context_words`] of the document `public_id`.
fn parent_words(searcher: &Searcher, f: &SearchFields, public_id: &str) -> Vec<String> {
    let q = TermQuery::new(
        Term::from_field_text(f.public_id, public_id),
        IndexRecordOption::Basic,
    );
    let Ok(hits) = searcher.search(&q, &TopDocs::with_limit(1).order_by_score()) else {
        return Vec::new();
    };
    hits.first()
        .and_then(|(_, addr)| searcher.doc::<TantivyDocument>(*addr).ok())
        .and_then(|doc| {
            doc.get_first(f.data)
                .and_then(|v| v.as_str().map(str::to_string))
        })
        .and_then(|d| serde_json::from_str::<DocData>(&d).ok())
        .map(|d| d.context_words)
        .unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use std::collections::BTreeSet;

    use tantivy::collector::DocSetCollector;
    use tantivy::doc;

    use super::*;
    use crate::localities::text::query_tokens;
    use crate::packs::search::{index_tokens, parent_token, schema};

    /// An index of a parent `place.osm-r1` ("London", "Londres") and four items, as the
    /// builder writes them: names tokenized, context tokens other than the name's, one parent
    /// token for the parent.
    fn index() -> (tantivy::Index, SearchFields) {
        let (schema, f) = schema();
        let index = tantivy::Index::create_in_ram(schema);
        let mut w = index.writer_with_num_threads(1, 15_000_000).unwrap();
        let parent = parent_token("place.osm-r1");
        let words = |names: &[&str]| -> String {
            let mut out: Vec<String> = Vec::new();
            for n in names {
                for t in index_tokens(n) {
                    if !out.contains(&t) {
                        out.push(t);
                    }
                }
            }
            out.join(" ")
        };
        let london = DocData {
            context_words: vec!["london".into(), "londres".into()],
            ..DocData::default()
        };
        let items: [(&str, &str, String, DocData); 5] = [
            ("place.osm-r1", "London", String::new(), london),
            (
                "a",
                "Baker Street",
                format!("nw1 {parent}"),
                DocData::default(),
            ),
            ("b", "London Road", parent.clone(), DocData::default()),
            ("c", "Elsewhere", "londres".into(), DocData::default()),
            ("d", "Placeholder", "nw1".into(), DocData::default()),
        ];
        for (id, name, context, data) in items {
            w.add_document(doc!(
                f.public_id => id,
                f.names => words(&[name]),
                f.context => context,
                f.data => serde_json::to_string(&data).unwrap(),
            ))
            .unwrap();
        }
        w.commit().unwrap();
        (index, f)
    }

    fn matching(index: &tantivy::Index, f: &SearchFields, q: &dyn Query) -> BTreeSet<String> {
        let searcher = index.reader().unwrap().searcher();
        searcher
            .search(q, &DocSetCollector)
            .unwrap()
            .into_iter()
            .map(|a| {
                let d: TantivyDocument = searcher.doc(a).unwrap();
                d.get_first(f.public_id)
                    .and_then(|v| v.as_str())
                    .unwrap()
                    .to_string()
            })
            .collect()
    }

    fn ids(v: &[&str]) -> BTreeSet<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_parent_word_matches_the_items_inside_the_parent_unless_their_names_have_it() {
        let (index, f) = index();
        let searcher = index.reader().unwrap().searcher();
        let cw = ContextWords::load(&searcher, &f);
        assert!(cw.contains("londres") && cw.contains("london"));
        assert!(!cw.contains("baker") && !cw.contains("nw1"));
        let q = |input: &str, as_you_type: bool| {
            let t = query_tokens(input, as_you_type).remove(0);
            matching(&index, &f, &*cw.token_query(&f, &t, 0.4))
        };
        // A word of the parent: the items inside it, and literal context words.
        assert_eq!(q("londres", false), ids(&["a", "b", "c"]));
        // `London Road` had no context word `london`: its names hold it.
        assert_eq!(q("london", false), ids(&["a"]));
        // A prefix matches every parent word it starts (`londres` for `London Road`).
        assert_eq!(q("lond", true), ids(&["a", "b", "c"]));
        assert_eq!(q("londo", true), ids(&["a"]));
        // Other context words as before; no query word reaches the parent tokens.
        assert_eq!(q("nw1", false), ids(&["a", "d"]));
        assert_eq!(q("place", true), ids(&[]));
        assert_eq!(q("paris", false), ids(&[]));
    }
}
