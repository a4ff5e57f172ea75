//! Full-text search of a venue's features: a tantivy index in memory, built when the venue is
//! first read (a venue has hundreds of features: building it takes milliseconds, and packs
//! keep no second index format).
//!
//! Each feature's words (name, names in every language, `description`, `ref`, category,
//! `shop`/`amenity` values) are folded by the packs' analyzer (lower case, accents removed)
//! and indexed. A query word matches a word exactly (score 3), as its prefix (2), or with the
//! typos localities tolerate (1 for 4+ letters, 2 for 8+; score 1); every query word must
//! match.
//!
//! ```
//! use waymark_core::indoor::search::PoiIndex;
//! let index = PoiIndex::build([(1, "Bäckerei Müller".to_owned()), (2, "Apotheke".to_owned())]).unwrap();
//! assert_eq!(index.search("backerai").unwrap()[0].0, 1);
//! assert_eq!(index.search("apoth").unwrap()[0].0, 2);
//! assert!(index.search("zzz").unwrap().is_empty());
//! ```
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, FuzzyTermQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::{Index, IndexReader, TantivyDocument, Term, doc};

use crate::localities::text::max_typos;
use crate::packs::search::fold;

/// The index of one venue.
pub struct PoiIndex {
    reader: IndexReader,
    id: Field,
    words: Field,
    size: usize,
}

impl std::fmt::Debug for PoiIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoiIndex")
            .field("size", &self.size)
            .finish()
    }
}

impl PoiIndex {
    /// Indexes `(id, text)` pairs.
    pub fn build(
        docs: impl IntoIterator<Item = (i64, String)>,
    ) -> Result<PoiIndex, tantivy::TantivyError> {
        let mut b = Schema::builder();
        let id = b.add_i64_field("id", INDEXED | STORED);
        let words = b.add_text_field(
            "words",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer("whitespace")
                    .set_index_option(IndexRecordOption::WithFreqs),
            ),
        );
        let index = Index::create_in_ram(b.build());
        let mut writer = index.writer_with_num_threads::<TantivyDocument>(1, 15_000_000)?;
        let mut size = 0;
        for (i, text) in docs {
            writer.add_document(doc!(id => i, words => fold(&text)))?;
            size += 1;
        }
        writer.commit()?;
        let reader = index.reader()?;
        Ok(PoiIndex {
            reader,
            id,
            words,
            size,
        })
    }

    /// The ids matching `q` with their scores, best first (ties by id).
    pub fn search(&self, q: &str) -> Result<Vec<(i64, f32)>, tantivy::TantivyError> {
        let folded = fold(q);
        let tokens: Vec<&str> = folded
            .split(' ')
            .filter(|t| !t.is_empty())
            .take(20)
            .collect();
        if tokens.is_empty() || self.size == 0 {
            return Ok(Vec::new());
        }
        let mut must: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in tokens {
            let term = Term::from_field_text(self.words, t);
            let cs = |q: Box<dyn Query>, s: f32| -> (Occur, Box<dyn Query>) {
                (Occur::Should, Box::new(ConstScoreQuery::new(q, s)))
            };
            let mut should = vec![
                cs(
                    Box::new(TermQuery::new(term.clone(), IndexRecordOption::Basic)),
                    3.0,
                ),
                cs(
                    Box::new(FuzzyTermQuery::new_prefix(term.clone(), 0, true)),
                    2.0,
                ),
            ];
            let typos = max_typos(t.chars().count());
            if typos > 0 {
                should.push(cs(Box::new(FuzzyTermQuery::new(term, typos, true)), 1.0));
            }
            must.push((Occur::Must, Box::new(BooleanQuery::new(should))));
        }
        let query = BooleanQuery::new(must);
        let searcher = self.reader.searcher();
        let top = searcher.search(
            &query,
            &TopDocs::with_limit(self.size.max(1)).order_by_score(),
        )?;
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let d: TantivyDocument = searcher.doc(addr)?;
            if let Some(i) = d.get_first(self.id).and_then(|v| v.as_i64()) {
                out.push((i, score));
            }
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(out)
    }
}
