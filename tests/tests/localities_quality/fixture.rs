//! The packs every test of this binary reads (built once), every document of their search
//! indexes, and a deterministic random generator.
use std::sync::OnceLock;

use tantivy::collector::TopDocs;
use tantivy::query::AllQuery;
use tantivy::schema::Value;
use waymark_core::Engine;
use waymark_core::geo::{self, Pt};
use waymark_core::packs::search::{self, DocData};
use waymark_tests::{engine_with_packs, localities_plans};

/// Great-circle metres between two `(lat, lng)` points.
pub fn haversine_m(lat1: f64, lng1: f64, lat2: f64, lng2: f64) -> f64 {
    geo::haversine_m(Pt::new(lat1, lng1), Pt::new(lat2, lng2))
}

/// The engine over the eight region packs, its publisher and the indexes' documents.
pub struct Fixture {
    pub engine: std::sync::Arc<Engine>,
    pub publisher: waymark_core::auth::keys::Publisher,
    pub docs: Vec<Doc>,
    _tmp: tempfile::TempDir,
}

/// A document of a pack's search index.
#[derive(Debug, Clone)]
pub struct Doc {
    pub public_id: String,
    pub kind: String,
    pub types: Vec<String>,
    pub cc: String,
    pub lat: f64,
    pub lng: f64,
    pub data: DocData,
}

/// The packs, built and indexed once for the test binary.
pub fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let (engine, publisher, _) = engine_with_packs(&localities_plans(), tmp.path());
        let mut docs = Vec::new();
        for pack in engine.packs().snapshot().all() {
            let (index, f) = search::open_index(&pack.path(search::SEARCH_DIR)).unwrap();
            let searcher = index.reader().unwrap().searcher();
            let hits = searcher
                .search(&AllQuery, &TopDocs::with_limit(1_000_000).order_by_score())
                .unwrap();
            for (_, addr) in hits {
                let d: tantivy::TantivyDocument = searcher.doc(addr).unwrap();
                let s = |field| {
                    d.get_first(field)
                        .and_then(|v| v.as_str())
                        .unwrap_or("")
                        .to_string()
                };
                docs.push(Doc {
                    public_id: s(f.public_id),
                    kind: s(f.kind),
                    types: d
                        .get_all(f.types)
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect(),
                    cc: s(f.cc),
                    lat: search::doc_point(&searcher, addr).unwrap().0,
                    lng: search::doc_point(&searcher, addr).unwrap().1,
                    data: serde_json::from_str(&s(f.data)).unwrap(),
                });
            }
        }
        docs.sort_by(|a, b| a.public_id.cmp(&b.public_id));
        Fixture {
            engine,
            publisher,
            docs,
            _tmp: tmp,
        }
    })
}

/// A small deterministic generator (64-bit LCG).
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
