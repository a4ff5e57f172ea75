//! Three-word scheme version 3 (ADR 0009) on the real English list and region table of the
//! three-word layer: the word classes hold over the whole list, every tile's signature
//! differs from each neighbouring tile's in no or at least two positions, squares round-trip,
//! and no substitution of one word by a list neighbour lands within 50 km.
//!
//! The version 3 tables (the region table with the dense region, ADR 0009 rule 5, the word
//! classes and the tile signatures) are the ones the pack builder writes, their SHA-256
//! pinned; the engine answers from them and refuses a pack whose tables or version differ.
//! `WAYMARK_MISTAKE_ADDRESSES` (default 100,000) sets the addresses of the substitution test,
//! `WAYMARK_V3_ROUND_TRIPS` (default 1,000,000) the random squares of the round trip; the
//! figures are printed (`--nocapture`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use waymark_core::geo::{Pt, haversine_m};
use waymark_core::threewords::ThreeWordsIndex;
use waymark_core::threewords::index::LoadError;
use waymark_threewords::codec::{decode_runs, decode_signatures, encode_runs, encode_signatures};
use waymark_threewords::grid::{BANDS, Grid};
use waymark_threewords::regions::{DENSE, LAND, POPULATED, Regions, SEA};
use waymark_threewords::v3::{self, Classes, KINDS, SAFE_KM, Scheme, Tiles};

struct Fixture {
    scheme: Scheme,
    words: Vec<String>,
    /// Ranks of the listed neighbours of each rank.
    listed: Vec<Vec<u32>>,
    /// The ten most populous places of the gazetteer: name, latitude, longitude.
    cities: Vec<(String, f64, f64)>,
    /// Digests of the version 3 tables as built: regions, classes, signatures.
    digests: [String; 3],
    /// Digests the builder recorded in the pack, the same order.
    recorded: [String; 3],
    /// The layer as the engine read it.
    index: ThreeWordsIndex,
    /// The pack's database.
    db: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

/// The version 3 tables the builder wrote.
struct Built {
    dir: tempfile::TempDir,
    db: std::path::PathBuf,
    index: ThreeWordsIndex,
    regions: Regions,
    cities: Vec<(String, f64, f64)>,
    class: Vec<u8>,
    sig: Vec<u16>,
    recorded: [String; 3],
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The layer as the engine reads it, the version 3 tables the builder wrote with the digests
/// it recorded, and the ten largest places.
fn index() -> Built {
    let dir = tempfile::tempdir().unwrap();
    let built = waymark_packs::build::build_pack(
        &waymark_tests::threewords_plan(),
        "1",
        &waymark_tests::sources(),
        &dir.path().join("built"),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    let db = built.join("data.sqlite");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let index = ThreeWordsIndex::read(&conn).unwrap();
    let mut bands = vec![Vec::new(); BANDS as usize];
    let mut stmt = conn
        .prepare("SELECT band, runs FROM threewords_regions_v3")
        .unwrap();
    let mut rows = stmt.query([]).unwrap();
    while let Some(row) = rows.next().unwrap() {
        let band: i64 = row.get(0).unwrap();
        let blob: Vec<u8> = row.get(1).unwrap();
        bands[usize::try_from(band).unwrap()] = decode_runs(&blob).unwrap();
    }
    let regions = Regions::new(Grid::v1().unwrap(), bands).unwrap();
    let recorded = [
        "regions_v3_sha256",
        "classes_sha256:en",
        "signatures_sha256",
    ]
    .map(|key| {
        conn.query_row(
            "SELECT value FROM threewords_scheme WHERE key = ?1",
            [key],
            |r| r.get::<_, String>(0),
        )
        .unwrap()
    });
    let blob = |name: &str| v3_blob(&conn, name);
    let class = blob("classes:en");
    let sig = decode_signatures(&blob("signatures")).unwrap();
    assert!(regions.squares(usize::from(DENSE)) > 0);
    let mut stmt = conn
        .prepare(
            "SELECT name, lat, lng FROM threewords_places ORDER BY population DESC, id LIMIT 10",
        )
        .unwrap();
    let cities = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    Built {
        dir,
        db,
        index,
        regions,
        cities,
        class,
        sig,
        recorded,
    }
}

/// Plural and singular forms.
fn number_forms(w: &str) -> Vec<String> {
    let mut out = vec![format!("{w}s"), format!("{w}es")];
    if let Some(stem) = w.strip_suffix('y') {
        out.push(format!("{stem}ies"));
    }
    if let Some(stem) = w.strip_suffix("ies") {
        out.push(format!("{stem}y"));
    }
    if let Some(stem) = w.strip_suffix("es") {
        out.push(stem.to_string());
    }
    if let Some(stem) = w.strip_suffix('s') {
        out.push(stem.to_string());
    }
    out
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let Built {
            dir,
            db,
            index,
            regions,
            cities,
            class,
            sig,
            recorded,
        } = index();
        let en = &index.languages["en"];
        let words: Vec<String> = en.list.iter().map(|w| w.to_string()).collect();
        assert_eq!(words.len(), 40_000);
        let lengths: Vec<usize> = words.iter().map(String::len).collect();
        let classes = Classes::new(class, &lengths).unwrap();
        // Listed neighbours by every relation a mistake may follow: the scheme's own, one
        // edit as autosuggest reads it, plural and singular, words heard alike.
        let mut listed: Vec<HashSet<u32>> = vec![HashSet::new(); words.len()];
        for (i, w) in words.iter().enumerate() {
            let forms = v3::neighbours(w).into_iter().chain(number_forms(w));
            for f in forms {
                if let Some(&j) = en.rank.get(f.as_str())
                    && j as usize != i
                {
                    listed[i].insert(j);
                    listed[j as usize].insert(i as u32);
                }
            }
        }
        for ranks in en.aliases.values() {
            for &a in ranks {
                for &b in ranks {
                    if a != b {
                        listed[a as usize].insert(b);
                    }
                }
            }
        }
        let listed = listed
            .into_iter()
            .map(|s| {
                let mut v: Vec<u32> = s.into_iter().collect();
                v.sort_unstable();
                v
            })
            .collect();
        println!(
            "v3 region table: sha256 {}, {} runs, squares populated {}, land {}, sea {}, dense {}",
            regions.digest(),
            regions.run_count(),
            regions.squares(usize::from(POPULATED)),
            regions.squares(usize::from(LAND)),
            regions.squares(usize::from(SEA)),
            regions.squares(usize::from(DENSE)),
        );
        let tiles = Tiles::new(regions.grid());
        let digests = [
            regions.digest(),
            classes.digest(),
            v3::signatures_digest(&sig),
        ];
        println!(
            "v3 tables: {} tiles, signatures sha256 {}, classes sha256 {}",
            tiles.count(),
            v3::signatures_digest(&sig),
            classes.digest()
        );
        let scheme = Scheme::new(regions, sig, classes).unwrap();
        Fixture {
            scheme,
            words,
            listed,
            cities,
            digests,
            recorded,
            index,
            db,
            _dir: dir,
        }
    })
}

/// The version 3 tables are part of the scheme: built from the pinned sources they must come
/// out byte for byte as pinned, and the pack records their digests.
#[test]
fn the_version_3_tables_are_pinned() {
    let f = fixture();
    assert_eq!(f.digests, f.recorded, "digests recorded by the builder");
    assert_eq!(
        f.digests,
        [
            v3::REGIONS_SHA256,
            v3::CLASSES_SHA256,
            v3::SIGNATURES_SHA256
        ]
        .map(String::from),
        "the version 3 tables changed: a new scheme version (ADR 0003, ADR 0009)"
    );
    // The pack is of scheme version 3 and carries no version 2 region table.
    let conn = rusqlite::Connection::open(&f.db).unwrap();
    let version: String = conn
        .query_row(
            "SELECT value FROM threewords_scheme WHERE key = 'version'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(version, "3");
    let v2_tables: i64 = conn
        .query_row(
            "SELECT (SELECT count(*) FROM sqlite_master WHERE name = 'threewords_regions') \
             + (SELECT count(*) FROM threewords_scheme WHERE key = 'regions_sha256')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(v2_tables, 0);
}

/// The engine answers from the same tables: its addresses are the scheme's.
#[test]
fn the_engine_answers_scheme_version_3() {
    let f = fixture();
    let grid = f.scheme.regions().grid().clone();
    let mut rng = waymark_tests::Rng::new(3);
    for _ in 0..10_000 {
        let (lat, lng) = rng.sphere_point();
        let square = grid.square(lat, lng).unwrap();
        let ranks = f.scheme.triple(square);
        assert_eq!(f.index.scheme.triple(square), ranks, "{lat},{lng}");
        let classes = ranks.map(|r| usize::from(f.scheme.classes().class(r).unwrap()));
        let tile = f.scheme.tiles().tile_of(square);
        assert_eq!(
            v3::signature_of(classes),
            usize::from(f.scheme.signature(tile)),
            "{lat},{lng}: the words' classes are the tile's signature"
        );
    }
}

/// A pack of another scheme version, or whose region table, word classes or tile signatures
/// differ from the pinned ones by one entry, is refused with a message naming what differs.
#[test]
fn packs_of_another_version_or_with_other_tables_are_refused() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("data.sqlite");
    std::fs::copy(&f.db, &db).unwrap();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let refused = |conn: &rusqlite::Connection| match ThreeWordsIndex::read(conn) {
        Ok(_) => panic!("the layer was read"),
        Err(e) => e,
    };
    let blob = |name: &str| v3_blob(&conn, name);
    let set_blob = |name: &str, data: &[u8]| {
        conn.execute(
            "UPDATE threewords_v3 SET data = ?2 WHERE name = ?1",
            rusqlite::params![name, data],
        )
        .unwrap();
    };

    conn.execute(
        "UPDATE threewords_scheme SET value = '2' WHERE key = 'version'",
        [],
    )
    .unwrap();
    let e = refused(&conn);
    assert!(matches!(e, LoadError::Version(ref v) if v == "2"), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("scheme version 2") && msg.contains("scheme version 3"),
        "{msg}"
    );
    conn.execute(
        "UPDATE threewords_scheme SET value = '3' WHERE key = 'version'",
        [],
    )
    .unwrap();

    // Two words of different classes trade classes: the classes stay balanced.
    let classes = blob("classes:en");
    let mut other = classes.clone();
    let j = (1..other.len()).find(|&j| other[j] != other[0]).unwrap();
    other.swap(0, j);
    set_blob("classes:en", &other);
    let msg = refused(&conn).to_string();
    assert!(
        msg.contains("word classes") && msg.contains(v3::CLASSES_SHA256),
        "{msg}"
    );
    set_blob("classes:en", &classes);

    let signatures = blob("signatures");
    let mut sig = decode_signatures(&signatures).unwrap();
    sig[1_000] = (sig[1_000] + 1) % v3::SIGNATURES as u16;
    set_blob("signatures", &encode_signatures(&sig));
    let msg = refused(&conn).to_string();
    assert!(
        msg.contains("tile signature table") && msg.contains(v3::SIGNATURES_SHA256),
        "{msg}"
    );
    set_blob("signatures", &signatures);

    // A band of several runs becomes one run of its first region.
    let (band, runs): (i64, Vec<u8>) = conn
        .query_row(
            "SELECT band, runs FROM threewords_regions_v3 WHERE length(runs) > 5 ORDER BY band LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let first = decode_runs(&runs).unwrap()[0];
    conn.execute(
        "UPDATE threewords_regions_v3 SET runs = ?2 WHERE band = ?1",
        rusqlite::params![band, encode_runs(&[first])],
    )
    .unwrap();
    let msg = refused(&conn).to_string();
    assert!(
        msg.contains("region table") && msg.contains(v3::REGIONS_SHA256),
        "{msg}"
    );
    conn.execute(
        "UPDATE threewords_regions_v3 SET runs = ?2 WHERE band = ?1",
        rusqlite::params![band, runs],
    )
    .unwrap();

    conn.execute("DELETE FROM threewords_v3 WHERE name = 'signatures'", [])
        .unwrap();
    let msg = refused(&conn).to_string();
    assert!(
        msg.contains("`signatures`") && msg.contains("missing"),
        "{msg}"
    );
    conn.execute(
        "INSERT INTO threewords_v3(name, data) VALUES ('signatures', ?1)",
        [&signatures],
    )
    .unwrap();
    // Restored, the copy reads again.
    assert!(ThreeWordsIndex::read(&conn).is_ok());
}

#[test]
fn no_two_list_neighbours_share_a_class() {
    let f = fixture();
    let classes = f.scheme.classes();
    assert_eq!(classes.side(), 2_500);
    for c in 0..v3::K {
        let members = classes.members(c);
        assert_eq!(members.len(), 2_500, "class {c}");
        // Class index order: the words of the first tier by length, then rank; the others
        // after them in rank order.
        let tier = members.partition_point(|&r| (r as usize) < v3::FIRST_TIER);
        assert!(
            tier > 1_000 && tier < 1_500,
            "class {c}: {tier} words of the first tier"
        );
        assert!(
            members[..tier]
                .iter()
                .all(|&r| (r as usize) < v3::FIRST_TIER)
                && members[tier..]
                    .iter()
                    .all(|&r| r as usize >= v3::FIRST_TIER),
            "class {c}"
        );
        let key = |r: u32| (f.words[r as usize].len(), r);
        assert!(members[..tier].windows(2).all(|w| key(w[0]) < key(w[1])));
        assert!(members[tier..].windows(2).all(|w| w[0] < w[1]));
    }
    // The first tier ends where the list's next SCOWL level starts again at short words.
    let (last, next) = (&f.words[v3::FIRST_TIER - 1], &f.words[v3::FIRST_TIER]);
    assert!(next.len() < last.len(), "{last} / {next}");
    let mut pairs = 0u64;
    for (i, near) in f.listed.iter().enumerate() {
        for &j in near {
            pairs += 1;
            assert_ne!(
                classes.class(i as u64),
                classes.class(u64::from(j)),
                "{} / {} share a class",
                f.words[i],
                f.words[j as usize]
            );
        }
    }
    println!("{pairs} listed neighbour pairs (each way), none inside a class");
    assert!(pairs > 10_000, "{pairs} pairs");
}

#[test]
fn neighbouring_tiles_never_differ_in_exactly_one_class() {
    let f = fixture();
    let (s, t) = (&f.scheme, f.scheme.tiles());
    let mut fullest = 0u64;
    for tile in 0..t.count() {
        for nb in t.neighbours(tile) {
            let (a, b) = (usize::from(s.signature(tile)), usize::from(s.signature(nb)));
            assert_ne!(v3::hamming(a, b), 1, "tiles {tile} and {nb}");
        }
    }
    for g in 0..v3::SIGNATURES {
        fullest = fullest.max(s.load(g));
    }
    let triples = s.classes().side().pow(3);
    println!(
        "fullest signature: {:.1} % of its {triples} triples",
        fullest as f64 / triples as f64 * 100.0
    );
    assert!(fullest <= triples);
}

#[test]
fn random_squares_round_trip() {
    let f = fixture();
    let grid = f.scheme.regions().grid().clone();
    let mut rng = waymark_tests::Rng::new(5);
    let n = env("WAYMARK_V3_ROUND_TRIPS", 1_000_000);
    for _ in 0..n {
        let lat = rng.unit() * 180.0 - 90.0;
        let lng = rng.unit() * 360.0 - 180.0;
        let square = grid.square(lat, lng).unwrap();
        let ranks = f.scheme.triple(square);
        assert!(ranks.iter().all(|&r| r < 40_000));
        assert_eq!(f.scheme.square(ranks), Some(square), "{lat},{lng}");
    }
    for (lat, lng) in [(90.0, 0.0), (-90.0, 0.0), (0.0, 180.0), (0.0, -180.0)] {
        let square = grid.square(lat, lng).unwrap();
        assert_eq!(f.scheme.square(f.scheme.triple(square)), Some(square));
    }
}

/// The 50 km rule (ADR 0009): over 100,000 addresses (five in six dense or populated), no
/// substitution of one word by a list neighbour names a square within 50 km. Swapped words
/// on land are counted too (they change the signature to a transposition no neighbouring
/// tile carries).
#[test]
fn no_substitution_by_a_list_neighbour_lands_within_50_km() {
    let f = fixture();
    let s = &f.scheme;
    let grid = s.regions().grid().clone();
    let mut rng = waymark_tests::Rng::new(99);
    let total = env("WAYMARK_MISTAKE_ADDRESSES", 100_000);
    let want_populated = total * 5 / 6;
    let want_other = total - want_populated;
    let (mut populated, mut other) = (0u64, 0u64);
    let (mut subs, mut named, mut near) = (0u64, 0u64, 0u64);
    let (mut swaps, mut swaps_near) = (0u64, 0u64);
    let mut nearest_km = f64::MAX;
    let mut letters: HashMap<u8, (usize, usize)> = HashMap::new();
    while populated < want_populated || other < want_other {
        let (lat, lng) = rng.sphere_point();
        let square = grid.square(lat, lng).unwrap();
        let region = s.regions().region(square);
        match region == POPULATED || region == DENSE {
            true if populated < want_populated => populated += 1,
            false if other < want_other => other += 1,
            _ => continue,
        }
        let ranks = s.triple(square);
        assert_eq!(s.square(ranks), Some(square));
        let e = letters.entry(region).or_default();
        e.0 += ranks
            .iter()
            .map(|&r| f.words[r as usize].len())
            .sum::<usize>();
        e.1 += 3;
        let (olat, olng) = grid.centre(square);
        let origin = Pt::new(olat, olng);
        let km_to = |t: [u64; 3]| {
            s.square(t).map(|o| {
                let (vlat, vlng) = grid.centre(o);
                haversine_m(origin, Pt::new(vlat, vlng)) / 1000.0
            })
        };
        for pos in 0..3 {
            for &r in &f.listed[ranks[pos] as usize] {
                let mut t = ranks;
                t[pos] = u64::from(r);
                subs += 1;
                if let Some(km) = km_to(t) {
                    named += 1;
                    nearest_km = nearest_km.min(km);
                    near += u64::from(km < SAFE_KM);
                }
            }
        }
        if region != SEA {
            for (i, j) in [(0, 1), (1, 2), (0, 2)] {
                let mut t = ranks;
                t.swap(i, j);
                swaps += 1;
                swaps_near += u64::from(km_to(t).is_some_and(|km| km < SAFE_KM));
            }
        }
    }
    let mut means: Vec<(u8, f64)> = letters
        .iter()
        .map(|(k, (l, n))| (*k, *l as f64 / *n as f64))
        .collect();
    means.sort_by_key(|m| m.0);
    println!(
        "v3 substitutions: {populated} populated + {other} other addresses, {subs} substitutions \
         by a listed neighbour ({named} name a square), {near} within 50 km, nearest {nearest_km:.1} km; \
         {swaps} swaps on land, {swaps_near} within 50 km; mean word length by region {means:.2?}"
    );
    assert!(subs > total, "{subs} substitutions");
    assert_eq!(near, 0, "substitutions within 50 km");
    assert_eq!(swaps_near, 0, "swaps on land within 50 km");
}

/// Short words where people are (ADR 0009 rule 5): mean letters per word of addresses in the
/// ten most populous places of the gazetteer (points within 5 km of their centre) and in each
/// kind of square (uniform points) against open land. Figures in docs/performance.md.
#[test]
fn short_words_where_people_are() {
    let f = fixture();
    let s = &f.scheme;
    let grid = s.regions().grid().clone();
    let letters = |square| -> usize {
        s.triple(square)
            .iter()
            .map(|&r| f.words[r as usize].len())
            .sum()
    };
    assert_eq!(f.cities.len(), 10);
    let mut rng = waymark_tests::Rng::new(42);
    let (mut city_letters, mut city_words) = (0usize, 0usize);
    for (name, lat, lng) in &f.cities {
        let mut here = 0;
        for _ in 0..1_000 {
            let (dlat, dlng) = (rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0);
            let (plat, plng) = (
                lat + dlat * 5.0 / 111.2,
                lng + dlng * 5.0 / (111.2 * lat.to_radians().cos()),
            );
            let square = grid.square(plat, plng).unwrap();
            assert_eq!(s.regions().region(square), DENSE, "{name} {plat},{plng}");
            here += letters(square);
        }
        println!("{name}: {:.2} letters per word", here as f64 / 3_000.0);
        city_letters += here;
        city_words += 3_000;
    }
    let mut by_kind = [(0usize, 0usize); KINDS];
    while by_kind.iter().any(|k| k.1 < 30_000) {
        let (lat, lng) = rng.sphere_point();
        let square = grid.square(lat, lng).unwrap();
        let slot = &mut by_kind[usize::from(s.regions().region(square))];
        if slot.1 < 30_000 {
            slot.0 += letters(square);
            slot.1 += 3;
        }
    }
    let mean = |(l, w): (usize, usize)| l as f64 / w as f64;
    let city = mean((city_letters, city_words));
    let [dense, populated, land, sea] =
        [DENSE, POPULATED, LAND, SEA].map(|k| mean(by_kind[usize::from(k)]));
    println!(
        "v3 letters per word: ten largest cities {city:.2}, dense {dense:.2}, populated \
         {populated:.2}, open land {land:.2}, sea {sea:.2}"
    );
    // The dense kind as a whole draws each class's first indices, the first tier's shortest
    // words; the ten largest cities lie in tiles that hold far more dense squares than a
    // signature's mean, so their words reach further down the classes, but still within the
    // first tier (ADR 0009, "Short words in the largest cities").
    assert!(dense <= land - 1.5, "dense {dense:.2}, open land {land:.2}");
    assert!(city <= land - 1.0, "cities {city:.2}, open land {land:.2}");
    assert!(
        dense < populated,
        "dense {dense:.2}, populated {populated:.2}"
    );
    assert!(land < sea, "open land {land:.2}, sea {sea:.2}");
}

/// The blob `name` of the pack's `threewords_v3` table.
fn v3_blob(conn: &rusqlite::Connection, name: &str) -> Vec<u8> {
    conn.query_row(
        "SELECT data FROM threewords_v3 WHERE name = ?1",
        [name],
        |r| r.get(0),
    )
    .unwrap()
}
