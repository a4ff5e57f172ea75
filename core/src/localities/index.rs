//! The search indexes of the loaded packs, opened read-only once per pack set, and the
//! queries every localities operation runs on them. Text searches merge the results of all
//! packs; ids are looked up in every pack.
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use rusqlite::Connection;
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, BoostQuery, ConstScoreQuery, FuzzyTermQuery, Occur,
    Query, TermQuery,
};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{
    DocAddress, IndexReader, ReloadPolicy, Searcher, SegmentReader, TantivyDocument, Term,
};

pub use super::automata::Automata;
use super::context::ContextWords;
use super::text::QueryToken;
use crate::error::{ApiError, ErrorCode};
use crate::geo::{Area, Pt, degrees_for, haversine_m};
use crate::packs::registry::PackSet;
use crate::packs::schema::layers;
use crate::packs::search::{self, DocData, SearchFields, kinds};

/// A document of a pack's index.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Index of the pack in [`LocalitiesIndex::packs`].
    pub pack: usize,
    /// Stable id.
    pub public_id: String,
    /// Kind ([`kinds`]).
    pub kind: String,
    /// Types.
    pub types: Vec<String>,
    /// Country code.
    pub cc: Option<String>,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// Importance.
    pub rank: f64,
    /// Stored data.
    pub data: DocData,
}

/// One pack's index.
pub struct PackSearch {
    /// Pack id.
    pub pack_id: String,
    /// Pack directory.
    pub dir: PathBuf,
    reader: IndexReader,
    /// Fields.
    pub f: SearchFields,
    sqlite: Mutex<Connection>,
    places: RwLock<HashMap<String, Option<Arc<Item>>>>,
    /// Coverage `[west, south, east, north]` of the pack.
    pub bbox: [f64; 4],
    pois: std::sync::OnceLock<PoiGrid>,
    areas: std::sync::OnceLock<Vec<AdminArea>>,
    context_words: std::sync::OnceLock<ContextWords>,
}

/// A point of interest held in memory for nearby searches.
#[derive(Debug, Clone)]
pub struct PoiPoint {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// `|`-joined types, most specific first.
    pub types: Box<str>,
    /// Public id.
    pub public_id: Box<str>,
    /// Name, when it has one.
    pub name: Option<Box<str>>,
}

/// The POIs of a pack in a grid of 0.01° cells.
#[derive(Debug, Default)]
pub struct PoiGrid {
    points: Vec<PoiPoint>,
    cells: HashMap<(i32, i32), Vec<u32>>,
}

const CELL: f64 = 100.0;

/// The root of the point-of-interest types, which every POI's type chain ends with.
const ROOT_POI_TYPE: &str = "point_of_interest";

fn cell(lat: f64, lng: f64) -> (i32, i32) {
    ((lat * CELL).floor() as i32, (lng * CELL).floor() as i32)
}

impl PoiGrid {
    fn load(conn: &Connection) -> PoiGrid {
        let mut grid = PoiGrid::default();
        let Ok(mut st) = conn.prepare("SELECT osm_type, osm_id, types, name, lat, lng FROM pois")
        else {
            return grid;
        };
        let Ok(rows) = st.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, f64>(4)?,
                r.get::<_, f64>(5)?,
            ))
        }) else {
            return grid;
        };
        for (osm_type, osm_id, types, name, lat, lng) in rows.flatten() {
            let i = grid.points.len() as u32;
            grid.cells.entry(cell(lat, lng)).or_default().push(i);
            // Packs built before the chain reached its root do not list it.
            let types = match types.ends_with(ROOT_POI_TYPE) {
                true => types,
                false => format!("{types}|{ROOT_POI_TYPE}"),
            };
            grid.points.push(PoiPoint {
                lat,
                lng,
                types: types.into(),
                public_id: search::osm_public_id("poi", &osm_type, osm_id).into(),
                name: name.map(Into::into),
            });
        }
        grid
    }

    /// Points inside the box `[south, north, west, east]`.
    pub fn in_box(&self, b: [f64; 4]) -> impl Iterator<Item = &PoiPoint> {
        let (c0, c1) = (cell(b[0], b[2]), cell(b[1], b[3]));
        (c0.0..=c1.0)
            .flat_map(move |y| (c0.1..=c1.1).map(move |x| (y, x)))
            .filter_map(|c| self.cells.get(&c))
            .flatten()
            .map(|&i| &self.points[i as usize])
            .filter(move |p| p.lat >= b[0] && p.lat <= b[1] && p.lng >= b[2] && p.lng <= b[3])
    }
}

/// An admin area (or country) outline with the id of its document.
#[derive(Debug, Clone)]
pub struct AdminArea {
    /// Outline.
    pub area: Area,
    /// Public id of its document.
    pub public_id: String,
    /// OSM admin level (2 for countries).
    pub level: i64,
}

fn load_areas(conn: &Connection) -> Vec<AdminArea> {
    let Ok(mut st) = conn.prepare(
        "SELECT source, source_id, kind, admin_level, country_code, shape FROM places \
         WHERE kind IN ('admin_level', 'country') AND shape IS NOT NULL",
    ) else {
        return Vec::new();
    };
    let Ok(rows) = st.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<i64>>(3)?,
            r.get::<_, Option<String>>(4)?,
            r.get::<_, String>(5)?,
        ))
    }) else {
        return Vec::new();
    };
    rows.flatten()
        .filter_map(|(source, source_id, kind, level, cc, shape)| {
            let public_id = if kind == kinds::COUNTRY {
                format!("place.country-{}", cc?.to_uppercase())
            } else {
                search::osm_public_id("place", &source, source_id)
            };
            Some(AdminArea {
                area: Area::from_geojson_str(&shape)?,
                public_id,
                level: level.unwrap_or(2),
            })
        })
        .collect()
}

impl std::fmt::Debug for PackSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackSearch")
            .field("pack_id", &self.pack_id)
            .finish_non_exhaustive()
    }
}

/// The indexes of a pack set.
#[derive(Debug, Default)]
pub struct LocalitiesIndex {
    /// Packs with a search layer, by id.
    pub packs: Vec<PackSearch>,
}

/// Candidate ranking inputs of a text search.
#[derive(Debug, Clone, Copy, Default)]
pub struct Bias {
    /// Centre and radius in metres.
    pub location: Option<(f64, f64, f64)>,
}

impl LocalitiesIndex {
    /// Opens the search index of every pack of `set` that has the layer.
    pub fn open(set: &PackSet) -> Result<Self, ApiError> {
        let mut packs = Vec::new();
        for pack in set.with_layer(layers::SEARCH) {
            let dir = pack.path(search::SEARCH_DIR);
            let (index, f) = search::open_index(&dir).map_err(|e| {
                ApiError::new(
                    ErrorCode::DataUnavailable,
                    format!("pack {}: {e}", pack.id()),
                )
            })?;
            let reader = index
                .reader_builder()
                .reload_policy(ReloadPolicy::Manual)
                .try_into()
                .map_err(|e: tantivy::TantivyError| ApiError::internal(&e))?;
            let sqlite = pack.sqlite()?;
            packs.push(PackSearch {
                pack_id: pack.id().to_string(),
                dir: pack.dir.clone(),
                reader,
                f,
                sqlite: Mutex::new(sqlite),
                places: RwLock::new(HashMap::new()),
                bbox: pack.manifest.coverage.bbox,
                pois: std::sync::OnceLock::new(),
                areas: std::sync::OnceLock::new(),
                context_words: std::sync::OnceLock::new(),
            });
        }
        if packs.is_empty() {
            return Err(ApiError::new(
                ErrorCode::DataUnavailable,
                "no installed pack has the search layer; install a region pack \
                 (`waymark-packs build --pack <region>`, then POST /packs)",
            ));
        }
        Ok(LocalitiesIndex { packs })
    }

    /// Packs whose coverage, widened by `metres`, contains the point.
    pub fn packs_near(&self, lat: f64, lng: f64, metres: f64) -> Vec<usize> {
        let (dlat, dlng) = degrees_for(metres, lat);
        (0..self.packs.len())
            .filter(|&i| {
                let [w, s, e, n] = self.packs[i].bbox;
                lat >= s - dlat && lat <= n + dlat && lng >= w - dlng && lng <= e + dlng
            })
            .collect()
    }

    /// The POIs of pack `i` (loaded on first use).
    pub fn pois(&self, i: usize) -> &PoiGrid {
        self.packs[i]
            .pois
            .get_or_init(|| PoiGrid::load(&self.packs[i].sqlite.lock()))
    }

    /// The admin areas and countries with outlines of pack `i` (loaded on first use).
    pub fn areas(&self, i: usize) -> &[AdminArea] {
        self.packs[i]
            .areas
            .get_or_init(|| load_areas(&self.packs[i].sqlite.lock()))
    }

    /// The words of the parent areas of pack `i` (loaded on first use).
    pub fn context_words(&self, i: usize) -> &ContextWords {
        let p = &self.packs[i];
        p.context_words
            .get_or_init(|| ContextWords::load(&p.reader.searcher(), &p.f))
    }

    /// The SQLite connection of pack `i` (one request at a time per pack).
    pub fn sqlite(&self, i: usize) -> parking_lot::MutexGuard<'_, Connection> {
        self.packs[i].sqlite.lock()
    }

    fn item(&self, pack: usize, searcher: &Searcher, addr: DocAddress) -> Option<Item> {
        let f = self.packs[pack].f;
        let doc: TantivyDocument = searcher.doc(addr).ok()?;
        let text = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str().map(str::to_string))
        };
        let (lat, lng, rank) = search::doc_point(searcher, addr)?;
        Some(Item {
            pack,
            public_id: text(f.public_id)?,
            kind: text(f.kind)?,
            types: doc
                .get_all(f.types)
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            cc: text(f.cc),
            lat,
            lng,
            rank,
            data: text(f.data)
                .and_then(|d| serde_json::from_str(&d).ok())
                .unwrap_or_default(),
        })
    }

    fn by_term_in(&self, pack: usize, term: Term, limit: usize) -> Vec<Item> {
        let searcher = self.packs[pack].reader.searcher();
        let q = TermQuery::new(term, IndexRecordOption::Basic);
        searcher
            .search(&q, &TopDocs::with_limit(limit).order_by_score())
            .map(|hits| {
                hits.into_iter()
                    .filter_map(|(_, a)| self.item(pack, &searcher, a))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The item with this public id (the first pack that has it).
    pub fn get(&self, public_id: &str) -> Option<Arc<Item>> {
        for (i, p) in self.packs.iter().enumerate() {
            if let Some(cached) = p.places.read().get(public_id) {
                if cached.is_some() {
                    return cached.clone();
                }
                continue;
            }
            let found = self
                .by_term_in(i, Term::from_field_text(p.f.public_id, public_id), 1)
                .into_iter()
                .next()
                .map(Arc::new);
            // Places are looked up again and again as parents: remember them (their number
            // is small), whether found or not.
            if public_id.starts_with("place.") {
                p.places
                    .write()
                    .insert(public_id.to_string(), found.clone());
            }
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// The parents of an item, smallest first (those no pack has are skipped).
    pub fn parents(&self, item: &Item) -> Vec<Arc<Item>> {
        item.data
            .parents
            .iter()
            .filter_map(|id| self.get(id))
            .collect()
    }

    /// Items of every pack with `value` in the string field chosen by `field`.
    pub fn by_key(
        &self,
        field: impl Fn(&SearchFields) -> tantivy::schema::Field,
        value: &str,
        limit: usize,
    ) -> Vec<Item> {
        let mut out = Vec::new();
        for (i, p) in self.packs.iter().enumerate() {
            out.extend(self.by_term_in(i, Term::from_field_text(field(&p.f), value), limit));
        }
        out
    }

    /// For each token, whether its text (or a full form of it) is a word of the names or
    /// the context of some pack: a dictionary lookup per pack segment and field, microseconds
    /// where a typo automaton over the same dictionaries costs milliseconds. A token that is a
    /// word needs no typo search: it matches as it is. The words of the parent areas
    /// ([`ContextWords`]) are words of the context.
    pub fn known_words(&self, tokens: &[QueryToken]) -> Vec<bool> {
        let searchers: Vec<Searcher> = self.packs.iter().map(|p| p.reader.searcher()).collect();
        tokens
            .iter()
            .map(|t| {
                !t.prefix
                    && std::iter::once(&t.text).chain(t.alts.iter()).any(|text| {
                        self.packs
                            .iter()
                            .zip(&searchers)
                            .enumerate()
                            .any(|(i, (p, searcher))| {
                                [p.f.names, p.f.context].into_iter().any(|field| {
                                    searcher.segment_readers().iter().any(|seg| {
                                        seg.inverted_index(field).is_ok_and(|inv| {
                                            inv.terms()
                                                .get(text.as_bytes())
                                                .ok()
                                                .flatten()
                                                .is_some()
                                        })
                                    })
                                }) || self.context_words(i).contains(text)
                            })
                    })
            })
            .collect()
    }

    /// Runs the query built by `build` for each pack, keeps the `limit` best of all packs by
    /// text score plus importance and location bias.
    pub fn search(
        &self,
        build: impl Fn(&SearchFields, &ContextWords) -> Box<dyn Query>,
        bias: Bias,
        limit: usize,
    ) -> Vec<(f64, Item)> {
        self.search_within(build, bias, limit, false)
            .unwrap_or_default()
    }

    /// [`search`](Self::search) when at most `limit` documents of all packs match, so that
    /// every match is returned; `None` as soon as more match (the packs left are not
    /// searched).
    pub fn search_all(
        &self,
        build: impl Fn(&SearchFields, &ContextWords) -> Box<dyn Query>,
        bias: Bias,
        limit: usize,
    ) -> Option<Vec<(f64, Item)>> {
        self.search_within(build, bias, limit, true)
    }

    /// [`search`](Self::search); with `complete`, `None` once more than `limit` documents
    /// match.
    fn search_within(
        &self,
        build: impl Fn(&SearchFields, &ContextWords) -> Box<dyn Query>,
        bias: Bias,
        limit: usize,
        complete: bool,
    ) -> Option<Vec<(f64, Item)>> {
        // Best hits of every pack first; documents are read only for the overall best.
        let searchers: Vec<Searcher> = self.packs.iter().map(|p| p.reader.searcher()).collect();
        // Packs of one schema are scored with the statistics of all of them together, so
        // that a text score means the same in every pack and the best of all packs are the
        // best one index holding them all would give.
        let pooled = Pooled::of(&searchers);
        let mut hits: Vec<(f64, usize, DocAddress)> = Vec::new();
        let mut matched = 0;
        for (i, p) in self.packs.iter().enumerate() {
            let searcher = &searchers[i];
            let q = build(&p.f, self.context_words(i));
            let collector = TopDocs::with_limit(limit).tweak_score(move |seg: &SegmentReader| {
                let ff = seg.fast_fields();
                let rank = ff.f64("rank").ok().map(|c| c.first_or_default_col(0.0));
                let lat = ff.f64("lat").ok().map(|c| c.first_or_default_col(0.0));
                let lng = ff.f64("lng").ok().map(|c| c.first_or_default_col(0.0));
                move |doc: tantivy::DocId, score: tantivy::Score| {
                    let r = rank.as_ref().map_or(0.0, |c| c.get_val(doc));
                    let mut s = f64::from(score) + 2.0 * r;
                    if let (Some((blat, blng, radius)), Some(la), Some(ln)) =
                        (bias.location, lat.as_ref(), lng.as_ref())
                    {
                        s += location_boost(blat, blng, radius, la.get_val(doc), ln.get_val(doc));
                    }
                    s
                }
            });
            // Matches are counted only when every match is wanted.
            let collector = (collector, complete.then_some(Count));
            let found = match &pooled {
                Some(stats) => searcher.search_with_statistics_provider(&*q, &collector, stats),
                None => searcher.search(&*q, &collector),
            };
            if let Ok((found, count)) = found {
                matched += count.unwrap_or(0);
                hits.extend(found.into_iter().map(|(score, addr)| (score, i, addr)));
            }
            if complete && matched > limit {
                return None;
            }
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0));
        // The same item from two packs (countries): keep the first.
        let mut seen = std::collections::HashSet::new();
        let mut all: Vec<(f64, Item)> = Vec::with_capacity(limit.min(hits.len()));
        for (score, pack, addr) in hits {
            if all.len() >= limit {
                break;
            }
            if let Some(item) = self.item(pack, &searchers[pack], addr)
                && seen.insert(item.public_id.clone())
            {
                all.push((score, item));
            }
        }
        // A GeoNames place that one pack merged into its OSM place is the same answer as
        // that place, where a neighbouring pack without the OSM place kept it.
        let merged: std::collections::HashSet<&str> = all
            .iter()
            .flat_map(|(_, it)| it.data.merged.iter().map(String::as_str))
            .collect();
        if !merged.is_empty() {
            let drop: std::collections::HashSet<String> = all
                .iter()
                .filter(|(_, it)| merged.contains(it.public_id.as_str()))
                .map(|(_, it)| it.public_id.clone())
                .collect();
            all.retain(|(_, it)| !drop.contains(&it.public_id));
        }
        Some(all)
    }
}

/// BM25 statistics of several indexes of one schema taken together (term and document
/// counts summed), as one index holding all their documents would have them.
struct Pooled<'a>(&'a [Searcher]);

impl<'a> Pooled<'a> {
    /// `None` for a single index or indexes of different schemas (field ids would not match).
    fn of(searchers: &'a [Searcher]) -> Option<Self> {
        let first = searchers.first()?.schema();
        (searchers.len() > 1 && searchers.iter().all(|s| s.schema() == first))
            .then_some(Pooled(searchers))
    }

    fn sum(&self, each: impl Fn(&Searcher) -> tantivy::Result<u64>) -> tantivy::Result<u64> {
        self.0.iter().map(each).sum()
    }
}

impl Bm25StatisticsProvider for Pooled<'_> {
    fn total_num_tokens(&self, field: tantivy::schema::Field) -> tantivy::Result<u64> {
        self.sum(|s| Bm25StatisticsProvider::total_num_tokens(s, field))
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.sum(Bm25StatisticsProvider::total_num_docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        self.sum(|s| s.doc_freq(term))
    }
}

/// Score added for being near the bias centre: up to 1.5 inside the radius, fading beyond.
pub fn location_boost(blat: f64, blng: f64, radius: f64, lat: f64, lng: f64) -> f64 {
    let d = haversine_m(Pt::new(blat, blng), Pt::new(lat, lng));
    if d <= radius {
        1.0 + 0.5 * (1.0 - d / radius)
    } else {
        1.0 / (1.0 + d / radius)
    }
}

/// The text query of `tokens` on `names` (and `context`), each token required to match one of
/// them (a single token: a name); plus the type and country filters. Names score more than
/// the context, typos are looked for in names only.
pub fn text_query(
    f: &SearchFields,
    cw: &ContextWords,
    tokens: &[QueryToken],
    types: &[String],
    countries: &[String],
    all_tokens_required: bool,
) -> Box<dyn Query> {
    text_query_with(f, cw, tokens, types, countries, all_tokens_required, true)
}

/// [`text_query`], looking for typos in names only when `typos` (fuzzy term queries are the
/// costliest part of a search: a Levenshtein automaton run over each pack's term dictionary).
pub fn text_query_with(
    f: &SearchFields,
    cw: &ContextWords,
    tokens: &[QueryToken],
    types: &[String],
    countries: &[String],
    all_tokens_required: bool,
    typos: bool,
) -> Box<dyn Query> {
    let fuzzy = vec![typos; tokens.len()];
    let automata = Automata::default();
    text_query_fuzzy(
        f,
        cw,
        tokens,
        types,
        countries,
        all_tokens_required,
        &fuzzy,
        &automata,
    )
}

/// [`text_query`], looking for typos in the names of the tokens `fuzzy` marks only, with the
/// request's `automata`.
#[allow(clippy::too_many_arguments)]
pub fn text_query_fuzzy(
    f: &SearchFields,
    cw: &ContextWords,
    tokens: &[QueryToken],
    types: &[String],
    countries: &[String],
    all_tokens_required: bool,
    fuzzy: &[bool],
    automata: &Automata,
) -> Box<dyn Query> {
    let mut must: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let typos = fuzzy.get(i).copied().unwrap_or(false);
        let names = token_query(f.names, t, 1.0, typos.then_some(automata));
        let context = cw.token_query(f, t, 0.4);
        // A single token must match a name.
        let either: Box<dyn Query> = if tokens.len() > 1 {
            Box::new(BooleanQuery::new(vec![
                (Occur::Should, names),
                (Occur::Should, context),
            ]))
        } else {
            names
        };
        must.push((
            if all_tokens_required {
                Occur::Must
            } else {
                Occur::Should
            },
            either,
        ));
    }
    if !types.is_empty() {
        must.push((Occur::Must, filter(f.types, types)));
    }
    if !countries.is_empty() {
        must.push((Occur::Must, filter(f.cc, countries)));
    }
    Box::new(BooleanQuery::new(must))
}

/// `field` is one of `values` (no score).
pub fn filter(field: tantivy::schema::Field, values: &[String]) -> Box<dyn Query> {
    let should: Vec<(Occur, Box<dyn Query>)> = values
        .iter()
        .map(|v| {
            let q: Box<dyn Query> = Box::new(TermQuery::new(
                Term::from_field_text(field, v),
                IndexRecordOption::Basic,
            ));
            (Occur::Should, q)
        })
        .collect();
    Box::new(ConstScoreQuery::new(
        Box::new(BooleanQuery::new(should)),
        0.0,
    ))
}

fn token_query(
    field: tantivy::schema::Field,
    t: &QueryToken,
    weight: f32,
    fuzzy: Option<&Automata>,
) -> Box<dyn Query> {
    let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    let cs = |q: Box<dyn Query>, s: f32| -> (Occur, Box<dyn Query>) {
        (Occur::Should, Box::new(ConstScoreQuery::new(q, s * weight)))
    };
    for text in std::iter::once(&t.text).chain(t.alts.iter()) {
        let term = Term::from_field_text(field, text);
        should.push(cs(
            Box::new(TermQuery::new(term.clone(), IndexRecordOption::Basic)),
            3.0,
        ));
        if t.prefix {
            let prefix: Box<dyn Query> = match fuzzy {
                Some(automata) => automata.query(field, text, 0, true),
                None => Box::new(FuzzyTermQuery::new_prefix(term, 0, true)),
            };
            should.push(cs(prefix, 2.0));
        }
    }
    let typos = t.max_typos();
    // Typos are looked for in names only: the context (surrounding places) must be typed right.
    if typos > 0
        && let Some(automata) = fuzzy
    {
        should.push(cs(automata.query(field, &t.text, typos, t.prefix), 1.0));
    }
    let q = BooleanQuery::new(should);
    if weight == 0.0 {
        Box::new(ConstScoreQuery::new(Box::new(q), 0.0))
    } else {
        Box::new(BoostQuery::new(Box::new(q), 1.0))
    }
}

/// Whether the item is a place that can be a parent.
pub fn is_place(item: &Item) -> bool {
    kinds::is_place(&item.kind)
}
