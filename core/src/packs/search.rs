//! The name search index of a pack (tantivy, directory `search/` of the pack), shared by the
//! builder (`waymark-packs`, layer `search`) and the readers (`core::localities`).
//!
//! **Documents.** One per searchable item: countries, admin areas, settlements (OSM places
//! merged with the GeoNames gazetteer), postal codes, streets, addresses and named points of
//! interest. Each carries:
//!
//! | field | kind | content |
//! |---|---|---|
//! | `public_id` | string, stored | stable id, see below |
//! | `kind` | string, stored | one of [`kinds`] |
//! | `types` | string (multi), stored | every type the item answers to (`city` and `locality`; a POI's whole type chain and `point_of_interest`) |
//! | `cc` | string, stored | ISO 3166-1 alpha-2 country code, upper case |
//! | `names` | text (whitespace tokens) | [`index_tokens`] of every name in every language |
//! | `context` | text (whitespace tokens) | tokens of what surrounds the name: postal code, street, city, and one [`parent_token`] per parent area (whose words its [`DocData::context_words`] lists) |
//! | `street_key` | string | [`street_key`] of a street's or an address's street name |
//! | `postcode_key` | string | `CC:CODE` of a postal code or an address's postal code |
//! | `lat`, `lng`, `rank` | f64, fast (not stored: read with [`doc_point`]) | point; importance in `0..=1` (kind, population) |
//! | `data` | stored JSON | [`DocData`]: names by language, address parts, parents, bbox, source row |
//!
//! **Public ids** are derived from the sources, never from row numbers, so they survive
//! rebuilds of the pack:
//!
//! * `place.osm-n<id>`, `place.osm-w<id>`, `place.osm-r<id>`: an OSM place or boundary
//!   (node, way, relation);
//! * `place.gn-<geonameid>`: a GeoNames place that matched no OSM place;
//! * `place.country-<CC>`: a country (the same id in every pack);
//! * `postal.<CC>.<CODE>`: a postal code (`CODE` upper case, every character other than
//!   `A-Z0-9` replaced by `_`), from OSM postal boundaries and `addr:postcode`;
//! * `route.<CC>.<hash>`: a street, `hash` the 16 hex digits of FNV-1a 64 over
//!   `<street_key>|<public_id of its locality>`;
//! * `addr.osm-<n|w|r><id>`: an address; `poi.osm-<n|w|r><id>`: a point of interest.
//!
//! **Folding.** [`words`] splits on anything that is not a letter or digit, lower-cases and
//! folds to ASCII (`Straße` → `strasse`, `Unió` → `unio`). [`index_tokens`] adds the joined
//! form of a multi-word name (`Weber-Straße` → `weberstrasse`), splits compounds ending in a
//! street word (`Weberstrasse` → `weber`, `strasse`) and adds the full forms of street-type
//! abbreviations (`St` → `street`, `saint`; `Av.` → `avenue`, `avinguda`, `avenida`). Queries
//! are folded the same way; prefix and typo matching happen at query time.
use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{AsciiFoldingFilter, LowerCaser, SimpleTokenizer, TextAnalyzer};

/// Directory of the index inside a pack.
pub const SEARCH_DIR: &str = "search";

/// Version of the index schema, recorded in the commit payload of the index.
pub const SEARCH_SCHEMA_VERSION: u32 = 4;

/// The commit payload the builder writes and the reader checks.
pub fn commit_payload() -> String {
    format!("{{\"waymark_search_schema\":{SEARCH_SCHEMA_VERSION}}}")
}

/// Document kinds (`kind` field).
pub mod kinds {
    /// A country.
    pub const COUNTRY: &str = "country";
    /// An administrative area.
    pub const ADMIN: &str = "admin_level";
    /// A postal code.
    pub const POSTAL_CODE: &str = "postal_code";
    /// A street.
    pub const ROUTE: &str = "route";
    /// An address.
    pub const ADDRESS: &str = "address";
    /// A point of interest.
    pub const POI: &str = "poi";
    /// Settlement kinds (the spec's settlement types).
    pub const SETTLEMENTS: &[&str] = &[
        "city",
        "town",
        "village",
        "hamlet",
        "borough",
        "suburb",
        "quarter",
        "neighbourhood",
    ];
    /// Settlement kinds that make a locality (city) of an address; the others are parts of one.
    pub const LOCALITIES: &[&str] = &["city", "town", "village", "hamlet"];

    /// Whether `kind` is a settlement.
    pub fn is_settlement(kind: &str) -> bool {
        SETTLEMENTS.contains(&kind)
    }

    /// Whether the kind names a place that can be the parent of other items.
    pub fn is_place(kind: &str) -> bool {
        kind == COUNTRY || kind == ADMIN || is_settlement(kind)
    }
}

/// The fields of the index.
#[derive(Debug, Clone, Copy)]
pub struct SearchFields {
    /// `public_id`.
    pub public_id: Field,
    /// `kind`.
    pub kind: Field,
    /// `types`.
    pub types: Field,
    /// `cc`.
    pub cc: Field,
    /// `names`.
    pub names: Field,
    /// `context`.
    pub context: Field,
    /// `street_key`.
    pub street_key: Field,
    /// `postcode_key`.
    pub postcode_key: Field,
    /// `lat`.
    pub lat: Field,
    /// `lng`.
    pub lng: Field,
    /// `rank`.
    pub rank: Field,
    /// `data`.
    pub data: Field,
}

/// The schema and its fields.
pub fn schema() -> (Schema, SearchFields) {
    let mut b = Schema::builder();
    // Search schema 3 (pack format 5): every query on these fields is a constant-score one
    // (`localities::index`), so neither term frequencies (a document's tokens are distinct
    // anyway) nor field norms (BM25's length) are kept for them.
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("whitespace")
            .set_index_option(IndexRecordOption::Basic)
            .set_fieldnorms(false),
    );
    // Search schema 4 (pack format 9): the key fields (`public_id`, `street_key`,
    // `postcode_key`) keep no field norms either. A document holds at most one token in each,
    // so every document a key matches has the norm 1, which is the norm a reader takes for a
    // field without norms: `by_key`'s BM25 scores are the same.
    let key = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("raw")
            .set_index_option(IndexRecordOption::Basic)
            .set_fieldnorms(false),
    );
    let filter = key.clone().set_stored();
    let fields = SearchFields {
        public_id: b.add_text_field("public_id", key.clone().set_stored()),
        kind: b.add_text_field("kind", filter.clone()),
        types: b.add_text_field("types", filter.clone()),
        cc: b.add_text_field("cc", filter),
        names: b.add_text_field("names", text.clone()),
        context: b.add_text_field("context", text),
        street_key: b.add_text_field("street_key", key.clone()),
        postcode_key: b.add_text_field("postcode_key", key),
        // Fast only (pack format 4): the doc store held each value a second time.
        lat: b.add_f64_field("lat", FAST),
        lng: b.add_f64_field("lng", FAST),
        rank: b.add_f64_field("rank", FAST),
        data: b.add_text_field("data", STORED),
    };
    (b.build(), fields)
}

/// `(lat, lng, rank)` of the document at `addr`, from the fast-field columns (these fields
/// are not stored). `None` if the segment has no such column or no value for the document.
pub fn doc_point(
    searcher: &tantivy::Searcher,
    addr: tantivy::DocAddress,
) -> Option<(f64, f64, f64)> {
    let ff = searcher.segment_reader(addr.segment_ord).fast_fields();
    let value = |name: &str| ff.f64(name).ok()?.first(addr.doc_id);
    Some((value("lat")?, value("lng")?, value("rank").unwrap_or(0.0)))
}

/// Why a pack's index cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SearchIndexError {
    /// tantivy failed.
    #[error("search index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// Another schema version or shape.
    #[error("search index: {0}")]
    Schema(String),
}

/// Opens the index in `dir` (`<pack>/search`) and checks its schema version and fields.
pub fn open_index(dir: &Path) -> Result<(tantivy::Index, SearchFields), SearchIndexError> {
    let index = tantivy::Index::open_in_dir(dir)?;
    let payload = index.load_metas()?.payload.unwrap_or_default();
    let version = serde_json::from_str::<serde_json::Value>(&payload)
        .ok()
        .and_then(|v| v.get("waymark_search_schema").and_then(|v| v.as_u64()));
    if version != Some(u64::from(SEARCH_SCHEMA_VERSION)) {
        return Err(SearchIndexError::Schema(format!(
            "{} has search schema {version:?}; this build reads version {SEARCH_SCHEMA_VERSION}: \
             install a pack built for it",
            dir.display()
        )));
    }
    let (expected, fields) = schema();
    let found = index.schema();
    for (_, entry) in expected.fields() {
        if found
            .get_field(entry.name())
            .ok()
            .map(|f| found.get_field_entry(f))
            != Some(entry)
        {
            return Err(SearchIndexError::Schema(format!(
                "{}: field `{}` differs from the schema of this build",
                dir.display(),
                entry.name()
            )));
        }
    }
    Ok((index, fields))
}

/// What a document stores besides its indexed fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocData {
    /// Names by ISO 639-1 language, `""` for the default (local) name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub names: BTreeMap<String, String>,
    /// House number (addresses, POIs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub housenumber: Option<String>,
    /// Street name (addresses, POIs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub street: Option<String>,
    /// Postal code as displayed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postcode: Option<String>,
    /// City name as tagged (`addr:city`) when it matched no settlement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// Public ids of the places containing the item, smallest first: locality, admin areas
    /// (highest level first), country.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parents: Vec<String>,
    /// Population.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub population: Option<i64>,
    /// OSM admin level of an admin area.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admin_level: Option<i64>,
    /// `[west, south, east, north]` of the item (areas, streets, postal codes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bbox: Option<[f64; 4]>,
    /// Row of `data.sqlite` holding the item's outline: `places:<rowid>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape_row: Option<i64>,
    /// Postal codes related to a settlement (as displayed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub postcodes: Vec<String>,
    /// Public ids of the GeoNames places merged into this OSM place at build time. A pack
    /// that lacks this place (a neighbouring region cut at a border between the two points)
    /// keeps the GeoNames place; across packs the two are one answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<String>,
    /// Of a place that can be a parent (country, admin area with an outline, city, town,
    /// village, hamlet): the [`index_tokens`] of its names in the context languages. The
    /// items inside it index its [`parent_token`] in `context` instead of these words
    /// (search schema 4).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context_words: Vec<String>,
}

/// First character of a parent token: not a letter or digit, so no query word equals a
/// parent token or is a prefix of one.
pub const PARENT_TOKEN_MARK: char = '@';

/// The `context` token of an item inside the place `public_id` (`@place.osm-r62422`): one
/// token per parent instead of the words of the parent's names in every context language.
pub fn parent_token(public_id: &str) -> String {
    format!("{PARENT_TOKEN_MARK}{public_id}")
}

impl DocData {
    /// The name in `lang`, else the default name, else any.
    pub fn name(&self, lang: &str) -> Option<&str> {
        self.names
            .get(lang)
            .or_else(|| self.names.get(""))
            .or_else(|| self.names.values().next())
            .map(String::as_str)
    }
}

/// A folded word of a text with its byte range in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// Lower-case ASCII-folded text.
    pub text: String,
    /// Byte offset of the start in the original text.
    pub start: usize,
    /// Byte offset of the end in the original text.
    pub end: usize,
}

fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .build()
}

thread_local! {
    static ANALYZER: std::cell::RefCell<TextAnalyzer> = std::cell::RefCell::new(analyzer());
}

/// The folded words of `text` with their positions.
pub fn words(text: &str) -> Vec<Word> {
    ANALYZER.with(|a| {
        let mut a = a.borrow_mut();
        let mut stream = a.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push(Word {
                text: t.text.clone(),
                start: t.offset_from,
                end: t.offset_to,
            });
        }
        out
    })
}

/// `text` folded: its words joined by single spaces.
pub fn fold(text: &str) -> String {
    let w: Vec<String> = words(text).into_iter().map(|w| w.text).collect();
    w.join(" ")
}

/// The key of a street name: its folded words joined without spaces, after expanding
/// abbreviations (`Weber-Str.` and `Weberstraße` both give `weberstrasse`).
pub fn street_key(name: &str) -> String {
    let mut out = String::new();
    for w in words(name) {
        match expansions(&w.text).first() {
            Some(full) if is_street_word(full) => out.push_str(full),
            _ => out.push_str(&w.text),
        }
    }
    out
}

/// Normalized postal code: upper case, inner whitespace collapsed to one space.
pub fn normalize_postcode(code: &str) -> String {
    code.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_uppercase()
}

/// `CC:CODE`, the `postcode_key` of a postal code in a country.
pub fn postcode_key(cc: &str, code: &str) -> String {
    format!("{}:{}", cc.to_uppercase(), normalize_postcode(code))
}

/// The public id of a postal code.
pub fn postal_public_id(cc: &str, code: &str) -> String {
    let code: String = normalize_postcode(code)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("postal.{}.{code}", cc.to_uppercase())
}

/// The public id of an OSM element of `class` (`place`, `addr`, `poi`); `osm_type` is `node`,
/// `way`, `relation` (or `osm-node`...).
pub fn osm_public_id(class: &str, osm_type: &str, id: i64) -> String {
    let t = match osm_type.trim_start_matches("osm-") {
        "node" => 'n',
        "way" => 'w',
        _ => 'r',
    };
    format!("{class}.osm-{t}{id}")
}

/// FNV-1a 64 of `s`.
pub fn fnv1a64(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The public id of a street.
pub fn route_public_id(cc: &str, street_key: &str, locality_id: &str) -> String {
    format!(
        "route.{}.{:016x}",
        cc.to_uppercase(),
        fnv1a64(&format!("{street_key}|{locality_id}"))
    )
}

/// Street-type abbreviations (folded) and their full forms.
const ABBREVIATIONS: &[(&str, &[&str])] = &[
    ("st", &["street", "saint"]),
    ("str", &["strasse"]),
    ("ave", &["avenue"]),
    ("av", &["avenue", "avinguda", "avenida"]),
    ("avda", &["avenida", "avinguda"]),
    ("avgda", &["avinguda"]),
    ("rd", &["road"]),
    ("dr", &["drive"]),
    ("ln", &["lane"]),
    ("pl", &["place", "platz", "plaza"]),
    ("pza", &["plaza", "piazza"]),
    ("sq", &["square"]),
    ("blvd", &["boulevard"]),
    ("bd", &["boulevard"]),
    ("bvd", &["boulevard"]),
    ("c", &["carrer", "calle"]),
    ("cl", &["calle"]),
    ("ctra", &["carretera"]),
    ("r", &["rua", "rue"]),
    ("pca", &["praca"]),
    ("tv", &["travessa"]),
    ("trav", &["travessa", "traverse"]),
    ("hwy", &["highway"]),
    ("ct", &["court"]),
    ("cres", &["crescent"]),
    ("gdns", &["gardens"]),
    ("gr", &["grove"]),
    ("pde", &["parade"]),
    ("tce", &["terrace"]),
    ("mt", &["mount"]),
    ("ste", &["sainte"]),
    ("esp", &["esplanade"]),
    ("pk", &["park"]),
];

/// Street words that end compounds (folded).
const COMPOUND_SUFFIXES: &[&str] = &[
    "strasse", "str", "weg", "platz", "gasse", "allee", "ring", "damm", "ufer", "steig", "pfad",
    "markt", "chaussee", "katu", "tie", "kuja", "polku", "tori", "vagen", "gatan", "gata",
];

/// Full forms of a folded abbreviation (empty when it is none).
pub fn expansions(word: &str) -> &'static [&'static str] {
    ABBREVIATIONS
        .iter()
        .find(|(a, _)| *a == word)
        .map_or(&[], |(_, full)| full)
}

fn is_street_word(w: &str) -> bool {
    COMPOUND_SUFFIXES.contains(&w)
        || ABBREVIATIONS
            .iter()
            .any(|(_, full)| full.first() == Some(&w))
}

/// Splits a folded compound ending in a street word: `weberstrasse` → (`weber`, `strasse`).
pub fn split_compound(word: &str) -> Option<(&str, &'static str)> {
    COMPOUND_SUFFIXES.iter().find_map(|suffix| {
        let head = word.strip_suffix(suffix)?;
        (head.len() >= 3 && head.chars().all(|c| c.is_alphabetic())).then_some((head, *suffix))
    })
}

/// The tokens indexed for a name: its words, the joined form of a multi-word name, the parts
/// of a compound ending in a street word, full forms of abbreviations, and the leading digits
/// of a house number (`12b` → `12`).
pub fn index_tokens(name: &str) -> Vec<String> {
    let ws: Vec<String> = words(name).into_iter().map(|w| w.text).collect();
    let mut out: Vec<String> = Vec::with_capacity(ws.len() * 2);
    let push = |t: &str, out: &mut Vec<String>| {
        if !t.is_empty() && !out.iter().any(|x| x == t) {
            out.push(t.to_string());
        }
    };
    for w in &ws {
        push(w, &mut out);
        for full in expansions(w) {
            push(full, &mut out);
        }
        if let Some((head, suffix)) = split_compound(w) {
            push(head, &mut out);
            push(suffix, &mut out);
            for full in expansions(suffix) {
                push(full, &mut out);
                push(&format!("{head}{full}"), &mut out);
            }
        }
        let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && digits.len() < w.len() {
            push(&digits, &mut out);
        }
    }
    if ws.len() > 2 {
        // Neighbouring words joined (`Paul-Hindemith-Straße` → `hindemithstrasse`).
        for pair in ws.windows(2) {
            push(&pair.concat(), &mut out);
        }
    }
    if ws.len() > 1 && ws.len() <= 5 {
        push(&ws.concat(), &mut out);
        // The joined form with abbreviations expanded (`weber str` → `weberstrasse`).
        push(&street_key(name), &mut out);
    }
    out
}

/// Importance of an item in `0..=1` from its kind and population.
pub fn rank(kind: &str, population: Option<i64>) -> f64 {
    let base = match kind {
        kinds::COUNTRY => 0.9,
        kinds::ADMIN => 0.6,
        "city" => 0.7,
        "town" => 0.55,
        "borough" | "suburb" => 0.45,
        "village" => 0.4,
        "quarter" => 0.35,
        "neighbourhood" => 0.3,
        "hamlet" => 0.25,
        kinds::POSTAL_CODE => 0.4,
        kinds::POI => 0.3,
        kinds::ROUTE => 0.2,
        _ => 0.1,
    };
    let pop = population.unwrap_or(0).max(0) as f64;
    let bonus = if pop > 0.0 {
        (pop.log10() / 7.0).min(1.0) * 0.1
    } else {
        0.0
    };
    (base + bonus).min(1.0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn folding_is_case_and_accent_insensitive() {
        assert_eq!(fold("Weber-Straße"), "weber strasse");
        assert_eq!(fold("Carrer de la Unió"), "carrer de la unio");
        assert_eq!(fold("ÖSTERREICH  Ärzte"), "osterreich arzte");
        let w = words("Unió 12");
        assert_eq!(w[0].text, "unio");
        assert_eq!((w[0].start, w[0].end), (0, 5));
        assert_eq!((w[1].start, w[1].end), (6, 8));
    }

    #[test]
    fn compounds_and_abbreviations_meet() {
        let hyphen = index_tokens("Weber-Straße");
        let compound = index_tokens("Weberstrasse");
        for t in ["weber", "strasse", "weberstrasse"] {
            assert!(hyphen.contains(&t.to_string()), "{hyphen:?}");
            assert!(compound.contains(&t.to_string()), "{compound:?}");
        }
        let abbrev = index_tokens("Weberstr. 5");
        assert!(abbrev.contains(&"weberstrasse".to_string()), "{abbrev:?}");
        assert!(abbrev.contains(&"5".to_string()));
        assert!(index_tokens("Main St").contains(&"street".to_string()));
        let three = index_tokens("Paul-Hindemith-Straße");
        assert!(three.contains(&"hindemithstrasse".to_string()), "{three:?}");
        assert!(
            three.contains(&"paulhindemithstrasse".to_string()),
            "{three:?}"
        );
        assert!(index_tokens("12b").contains(&"12".to_string()));
        assert_eq!(street_key("Weber Str."), street_key("Weberstraße"));
        assert_eq!(street_key("Weber-Straße"), "weberstrasse");
    }

    #[test]
    fn ids_are_stable_and_url_safe() {
        assert_eq!(postal_public_id("gb", "sw1a  1aa"), "postal.GB.SW1A_1AA");
        assert_eq!(osm_public_id("addr", "way", 42), "addr.osm-w42");
        assert_eq!(osm_public_id("place", "osm-relation", 7), "place.osm-r7");
        let a = route_public_id("AD", "carrerdelaunio", "place.osm-n1");
        assert_eq!(a, route_public_id("ad", "carrerdelaunio", "place.osm-n1"));
        assert!(a.starts_with("route.AD.") && a.len() == "route.AD.".len() + 16);
        assert_eq!(postcode_key("mc", "98000"), "MC:98000");
    }

    #[test]
    fn ranks_order_kinds() {
        assert!(rank("city", Some(1_000_000)) > rank("village", Some(500)));
        assert!(rank(kinds::COUNTRY, None) > rank(kinds::ADDRESS, None));
        assert!(rank("city", Some(i64::MAX)) <= 1.0);
    }
}
