//! The typo automata of a request. A typo query ([`FuzzyTermQuery`]) builds its Levenshtein
//! automaton each time it is run, once per pack: [`Automata`] builds each once per request.
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use tantivy::Term;
use tantivy::query::{AutomatonWeight, DfaWrapper, EnableScoring, FuzzyTermQuery, Query, Weight};
use tantivy::schema::Field;

/// The typo automata of one request, each built once and shared by the queries of every pack
/// and every search of the request: building the Levenshtein automaton of a word (for two
/// typos, a DFA of hundreds of states) costs more than running it over a pack's dictionary,
/// and a request searches every installed pack, up to twice with typos.
#[derive(Default)]
pub struct Automata {
    built: RefCell<HashMap<(String, u8, bool), Arc<DfaWrapper>>>,
}

impl std::fmt::Debug for Automata {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Automata")
            .field("built", &self.built.borrow().len())
            .finish()
    }
}

impl Automata {
    /// The query of the terms of `field` within `distance` typos of `text` (of which `text`
    /// is a prefix, when `prefix`), swaps of neighbouring letters counting one: the
    /// [`FuzzyTermQuery`] of these, with its automaton built at most once per request.
    pub fn query(&self, field: Field, text: &str, distance: u8, prefix: bool) -> Box<dyn Query> {
        let key = (text.to_owned(), distance, prefix);
        if let Some(dfa) = self.built.borrow().get(&key) {
            return Box::new(SharedAutomaton {
                field,
                dfa: dfa.clone(),
            });
        }
        let term = Term::from_field_text(field, text);
        let fuzzy = if prefix {
            FuzzyTermQuery::new_prefix(term, distance, true)
        } else {
            FuzzyTermQuery::new(term, distance, true)
        };
        match fuzzy.automaton() {
            Ok(dfa) => {
                let dfa = Arc::new(dfa);
                self.built.borrow_mut().insert(key, dfa.clone());
                Box::new(SharedAutomaton { field, dfa })
            }
            // The query itself reports why no automaton is built when it is run.
            Err(_) => Box::new(fuzzy),
        }
    }
}

/// A typo query over an automaton built beforehand: the weight [`FuzzyTermQuery`] gives,
/// without building the automaton again.
#[derive(Clone)]
struct SharedAutomaton {
    field: Field,
    dfa: Arc<DfaWrapper>,
}

impl std::fmt::Debug for SharedAutomaton {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedAutomaton")
            .field("field", &self.field)
            .finish_non_exhaustive()
    }
}

impl Query for SharedAutomaton {
    fn weight(&self, _: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(AutomatonWeight::<DfaWrapper>::new(
            self.field,
            Arc::clone(&self.dfa),
        )))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use tantivy::collector::DocSetCollector;
    use tantivy::schema::{STRING, Schema};
    use tantivy::{Index, TantivyDocument};

    use super::*;

    #[test]
    fn an_automaton_is_built_once_and_matches_what_the_typo_query_matches() {
        let mut schema = Schema::builder();
        let name = schema.add_text_field("name", STRING);
        let other = schema.add_text_field("other", STRING);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer(15_000_000).unwrap();
        for word in [
            "bahnhofstrasse",
            "bahnhofstraße",
            "banhofstrasse",
            "hauptstrasse",
            "bahn",
        ] {
            let mut doc = TantivyDocument::default();
            doc.add_text(name, word);
            doc.add_text(other, word);
            writer.add_document(doc).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let automata = Automata::default();
        for (text, distance, prefix) in [
            ("bahnhofstrase", 2, false),
            ("bahnhfo", 1, true),
            ("hauptstrase", 1, false),
            ("bahnhofstrase", 2, false),
        ] {
            for field in [name, other] {
                let term = Term::from_field_text(field, text);
                let expected = if prefix {
                    FuzzyTermQuery::new_prefix(term, distance, true)
                } else {
                    FuzzyTermQuery::new(term, distance, true)
                };
                let shared = automata.query(field, text, distance, prefix);
                let got = searcher.search(&*shared, &DocSetCollector).unwrap();
                assert_eq!(
                    got,
                    searcher.search(&expected, &DocSetCollector).unwrap(),
                    "{text}"
                );
                assert!(!got.is_empty(), "{text}");
            }
        }
        // One automaton per text, distance and prefix, for both fields and the repeat.
        assert_eq!(automata.built.borrow().len(), 3);
    }
}
