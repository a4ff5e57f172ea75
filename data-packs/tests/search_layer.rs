//! The search layer on real data: a Monaco pack's tantivy index is built from its SQLite
//! layers, listed file by file in the manifest, verified like every other file, opened
//! read-only by the reader, and rebuilt when a layer it is made from is added.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use tantivy::collector::Count;
use tantivy::query::TermQuery;
use tantivy::schema::{IndexRecordOption, Value as _};
use waymark_core::auth::keys::Publisher;
use waymark_core::packs::Manifest;
use waymark_core::packs::search::{self, kinds};
use waymark_packs::build::{self, PackPlan};
use waymark_packs::sources::Sources;

fn sources() -> Sources {
    Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sources.toml")).unwrap()
}

fn plan(layers: &[&str]) -> PackPlan {
    PackPlan {
        id: "monaco".into(),
        osm: vec!["osm-monaco".into()],
        layers: layers.iter().map(|s| s.to_string()).collect(),
        base: false,
        routing: Default::default(),
    }
}

fn count_kind(dir: &Path, kind: &str) -> usize {
    let (index, f) = search::open_index(&dir.join(search::SEARCH_DIR)).unwrap();
    let searcher = index.reader().unwrap().searcher();
    let q = TermQuery::new(
        tantivy::Term::from_field_text(f.kind, kind),
        IndexRecordOption::Basic,
    );
    searcher.search(&q, &Count).unwrap()
}

#[test]
fn search_index_is_built_listed_verified_and_rebuilt_incrementally() {
    let s = sources();
    if !s.is_available(s.get("osm-monaco").unwrap()) {
        eprintln!("skipped: shared extract osm-monaco absent");
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let dir = build::build_pack(
        &plan(&["places", "addresses", "search"]),
        "1",
        &s,
        out.path(),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    let m: Manifest =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert!(m.layers.contains(&"search".to_string()), "{:?}", m.layers);
    let index_files: Vec<_> = m
        .files
        .iter()
        .filter(|f| f.path.starts_with("search/"))
        .collect();
    assert!(
        index_files.iter().any(|f| f.path == "search/meta.json"),
        "{index_files:?}"
    );
    assert!(index_files.iter().all(|f| !f.path.ends_with(".lock")));
    assert!(m.sources.iter().any(|s| s.id == "countries"));
    assert!(count_kind(&dir, kinds::ADDRESS) > 100);
    assert_eq!(count_kind(&dir, kinds::POI), 0, "pois were not asked for");
    assert!(count_kind(&dir, kinds::COUNTRY) >= 1);
    assert!(count_kind(&dir, "city") + count_kind(&dir, "suburb") > 3);

    // Signed, the index verifies like every other file; a flipped byte does not.
    let publisher = Publisher::generate().unwrap();
    build::sign_pack(&dir, &publisher).unwrap();
    build::verify_pack(&dir, &[publisher.verifying()]).unwrap();
    let victim = dir.join(&index_files.iter().max_by_key(|f| f.size).unwrap().path);
    let mut bytes = std::fs::read(&victim).unwrap();
    bytes[0] ^= 0xff;
    std::fs::write(&victim, &bytes).unwrap();
    let err = build::verify_pack(&dir, &[publisher.verifying()]).unwrap_err();
    assert!(err.to_string().contains("search/"), "{err}");
    bytes[0] ^= 0xff;
    std::fs::write(&victim, &bytes).unwrap();

    // The size report splits the index by part and field, within the index's bytes.
    let report = build::size_report(&dir, None).unwrap();
    let part = |name: &str| {
        report
            .search_parts
            .iter()
            .find(|(p, _)| p == name)
            .map(|(_, b)| *b)
    };
    assert!(
        part("postings:names").unwrap_or(0) > 0,
        "{:?}",
        report.search_parts
    );
    assert!(
        part("terms:names").unwrap_or(0) > 0,
        "{:?}",
        report.search_parts
    );
    assert!(part("store").unwrap_or(0) > 0, "{:?}", report.search_parts);
    let index_bytes: u64 = index_files.iter().map(|f| f.size).sum();
    let parts: u64 = report.search_parts.iter().map(|(_, b)| b).sum();
    assert!(parts <= index_bytes, "{parts} > {index_bytes}");
    assert!(report.search_parts.windows(2).all(|w| w[0].1 >= w[1].1));
    assert!(build::size_report_text(&report).contains("postings:names"));

    // Adding the pois layer rebuilds the index from it.
    let mut steps = Vec::new();
    let dir = build::build_pack(
        &plan(&["places", "addresses", "pois", "search"]),
        "1",
        &s,
        out.path(),
        false,
        &mut |step, _, _| steps.push(step.to_string()),
    )
    .unwrap();
    assert!(steps.iter().any(|s| s == "search"), "{steps:?}");
    assert!(count_kind(&dir, kinds::POI) > 100);
    check_format_4(&dir);
    // Nothing new: the index is not rebuilt.
    let mut steps = Vec::new();
    build::build_pack(
        &plan(&["places", "addresses", "pois", "search"]),
        "1",
        &s,
        out.path(),
        false,
        &mut |step, _, _| steps.push(step.to_string()),
    )
    .unwrap();
    assert!(!steps.iter().any(|s| s == "search"), "{steps:?}");
}

/// Pack format 4: points and ranks are fast fields only (not in the doc store); an address's
/// point reads back as its `addresses` row, every point lies near the coverage (gazetteer
/// places may lie a little outside it); `data.sqlite` keeps `sqlite_stat1` and has no
/// `sqlite_stat4`.
fn check_format_4(dir: &Path) {
    let m: Manifest =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let [west, south, east, north] = m.coverage.bbox;
    let conn = rusqlite::Connection::open(dir.join("data.sqlite")).unwrap();
    let (index, f) = search::open_index(&dir.join(search::SEARCH_DIR)).unwrap();
    let searcher = index.reader().unwrap().searcher();
    let hits = searcher
        .search(
            &tantivy::query::AllQuery,
            &tantivy::collector::TopDocs::with_limit(100_000).order_by_score(),
        )
        .unwrap();
    assert!(hits.len() > 100);
    let (mut ranked, mut addresses) = (0, 0);
    for (_, addr) in hits {
        let doc: tantivy::TantivyDocument = searcher.doc(addr).unwrap();
        for field in [f.lat, f.lng, f.rank] {
            assert!(doc.get_first(field).is_none(), "stored point or rank");
        }
        let id = doc
            .get_first(f.public_id)
            .and_then(|v| v.as_str())
            .unwrap()
            .to_string();
        let (lat, lng, rank) = search::doc_point(&searcher, addr).unwrap();
        if !id.starts_with("place.country-") {
            assert!(
                (south - 0.5..=north + 0.5).contains(&lat)
                    && (west - 0.5..=east + 0.5).contains(&lng),
                "{id} at {lat},{lng}"
            );
        }
        assert!((0.0..=1.0).contains(&rank), "{id}: rank {rank}");
        ranked += usize::from(rank > 0.0);
        if let Some(osm_id) = id.strip_prefix("addr.osm-n") {
            let row: (f64, f64) = conn
                .query_row(
                    "SELECT lat, lng FROM addresses WHERE osm_type = 'node' AND osm_id = ?1",
                    [osm_id.parse::<i64>().unwrap()],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap();
            assert_eq!((lat, lng), row, "{id}");
            addresses += 1;
        }
    }
    assert!(ranked > 0);
    assert!(addresses > 100, "{addresses} node addresses");
    let table = |name: &str| -> i64 {
        conn.query_row(
            "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
            [name],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(table("sqlite_stat1"), 1);
    assert_eq!(table("sqlite_stat4"), 0);
}
