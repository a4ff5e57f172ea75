//! Search layer: the pack's tantivy name index (`search/`, schema in
//! `waymark_core::packs::search`) built from the places, addresses, POIs and roads of
//! `data.sqlite`.
//!
//! Rules:
//!
//! * **Countries**: one document per country of the pack (`place.country-CC`), names from
//!   the `countries` table (base pack) or world-countries' translations (region packs); the
//!   outline is the OSM country boundary when the extract has it.
//! * **Admin areas**: every OSM `admin_level` boundary; parents are the areas of a lower
//!   level containing its point.
//! * **Settlements**: OSM place nodes; a GeoNames place whose name equals a name of an OSM
//!   settlement of the same pack within 15 km is merged into it (its localized names and
//!   population are added), the others are documents of their own.
//! * **Locality of a point** (addresses, streets, POIs, postal codes): the settlement named
//!   by `addr:city` within 30 km, else the settlement minimizing distance / reach (city 10 km,
//!   town 5, village 2.5, hamlet 1.2; at most one reach away).
//! * **Postal codes**: one document per country and code from `addr:postcode` of addresses
//!   and POIs and from OSM postal-code boundaries (whose outline and point win); the point is
//!   otherwise the address nearest to the centroid of its addresses.
//! * **Streets**: named roads and the streets of addresses, one document per street key and
//!   locality; the point is the road vertex (or address) nearest to the centroid.
//! * **Addresses** and **POIs** (named or not) one document each.
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use rstar::{AABB, PointDistance, RTree, RTreeObject};
use rusqlite::Connection;
use serde::Serialize;
use tantivy::{Index, TantivyDocument};
use waymark_core::geo::{Area, BBox, Pt, decode_polyline6, haversine_m};
use waymark_core::packs::search::{
    self as s, DocData, SearchFields, index_tokens, kinds, osm_public_id, postal_public_id,
    postcode_key, route_public_id, street_key,
};

/// Errors of the search layer.
#[derive(Debug, thiserror::Error)]
pub enum SearchBuildError {
    /// SQLite failure.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// tantivy failure.
    #[error("search index: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    /// File-system or input failure.
    #[error("{0}")]
    Io(String),
}

/// Counts of the search layer.
#[derive(Debug, Default, Clone, Serialize)]
pub struct SearchStats {
    /// Documents in all.
    pub docs: u64,
    /// Countries.
    pub countries: u64,
    /// Admin areas.
    pub admin_areas: u64,
    /// Settlements (after merging GeoNames).
    pub settlements: u64,
    /// GeoNames places merged into OSM settlements.
    pub gazetteer_merged: u64,
    /// Postal codes.
    pub postal_codes: u64,
    /// Streets.
    pub streets: u64,
    /// Addresses.
    pub addresses: u64,
    /// Points of interest.
    pub pois: u64,
    /// Bytes of the index files.
    pub bytes: u64,
}

/// Languages whose names of the parent areas are indexed as context of an item.
const CONTEXT_LANGS: &[&str] = &[
    "", "en", "de", "fr", "es", "it", "pt", "ca", "fi", "sv", "nl",
];

#[derive(Debug, Clone)]
struct Place {
    row: i64,
    kind: String,
    source: String,
    name: String,
    lat: f64,
    lng: f64,
    population: Option<i64>,
    admin_level: Option<i64>,
    cc: Option<String>,
    postal_code: Option<String>,
    area: Option<Area>,
    /// `(lang, name)`, default names with lang `""`.
    names: Vec<(String, String)>,
    public_id: String,
}

impl Place {
    fn names_map(&self) -> BTreeMap<String, String> {
        let mut m = BTreeMap::new();
        m.insert(String::new(), self.name.clone());
        for (lang, n) in &self.names {
            if !lang.is_empty() {
                m.entry(lang.clone()).or_insert_with(|| n.clone());
            }
        }
        m
    }

    fn all_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str()).chain(self.names.iter().map(|(_, n)| n.as_str()))
    }

    fn context_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str()).chain(
            self.names
                .iter()
                .filter(|(l, _)| CONTEXT_LANGS.contains(&l.as_str()))
                .map(|(_, n)| n.as_str()),
        )
    }
}

/// A point in an R-tree with the index of what it stands for.
#[derive(Debug, Clone, Copy)]
struct PlacePoint {
    lat: f64,
    lng: f64,
    idx: usize,
}

impl RTreeObject for PlacePoint {
    type Envelope = AABB<[f64; 2]>;
    fn envelope(&self) -> Self::Envelope {
        AABB::from_point([self.lng, self.lat])
    }
}

impl PointDistance for PlacePoint {
    fn distance_2(&self, p: &[f64; 2]) -> f64 {
        let kx = self.lat.to_radians().cos();
        let dx = (self.lng - p[0]) * kx;
        let dy = self.lat - p[1];
        dx * dx + dy * dy
    }
}

fn reach_m(kind: &str, population: Option<i64>) -> f64 {
    match kind {
        "city" if population.unwrap_or(0) > 500_000 => 20_000.0,
        "city" => 10_000.0,
        "town" => 5_000.0,
        "village" => 2_500.0,
        _ => 1_200.0,
    }
}

/// What the builder knows about the pack's places.
struct Gazetteer {
    places: Vec<Place>,
    /// Indexes of admin areas (and countries) with an outline, smallest bbox first.
    areas: Vec<usize>,
    /// Settlement points that can be the locality of an address.
    localities: RTree<PlacePoint>,
    /// Places with a country code.
    with_cc: RTree<PlacePoint>,
    /// Country code -> (names by language, point, OSM row with the outline).
    countries: BTreeMap<String, CountryInfo>,
}

#[derive(Debug, Clone, Default)]
struct CountryInfo {
    names: BTreeMap<String, String>,
    point: Option<(f64, f64)>,
    row: Option<i64>,
    bbox: Option<[f64; 4]>,
}

impl Gazetteer {
    /// Admin areas containing the point, most local (highest level) first.
    fn admin_chain(&self, lat: f64, lng: f64, max_level: Option<i64>) -> Vec<usize> {
        let mut found: Vec<usize> = self
            .areas
            .iter()
            .copied()
            .filter(|&i| {
                let p = &self.places[i];
                p.kind == kinds::ADMIN
                    && max_level.is_none_or(|m| p.admin_level.unwrap_or(99) < m)
                    && p.area
                        .as_ref()
                        .is_some_and(|a| a.contains(Pt::new(lat, lng)))
            })
            .collect();
        found.sort_by_key(|&i| std::cmp::Reverse(self.places[i].admin_level.unwrap_or(0)));
        found
    }

    fn country_of(&self, lat: f64, lng: f64) -> Option<String> {
        for &i in &self.areas {
            let p = &self.places[i];
            if let Some(cc) = &p.cc
                && p.area
                    .as_ref()
                    .is_some_and(|a| a.contains(Pt::new(lat, lng)))
            {
                return Some(cc.clone());
            }
        }
        self.with_cc
            .nearest_neighbor(&[lng, lat])
            .and_then(|pt| self.places[pt.idx].cc.clone())
    }

    /// The settlement that is the locality of a point (see the module rules).
    fn locality(&self, lat: f64, lng: f64, city: Option<&str>) -> Option<usize> {
        if let Some(city) = city {
            let folded = s::fold(city);
            let named = self
                .localities
                .nearest_neighbor_iter(&[lng, lat])
                .take(200)
                .find(|pt| {
                    haversine_m(Pt::new(lat, lng), Pt::new(pt.lat, pt.lng)) < 30_000.0
                        && self.places[pt.idx]
                            .all_names()
                            .any(|n| s::fold(n) == folded)
                });
            if let Some(pt) = named {
                return Some(pt.idx);
            }
        }
        self.localities
            .nearest_neighbor_iter(&[lng, lat])
            .take(12)
            .map(|pt| {
                let p = &self.places[pt.idx];
                let d = haversine_m(Pt::new(lat, lng), Pt::new(pt.lat, pt.lng));
                (d / reach_m(&p.kind, p.population), pt.idx)
            })
            .filter(|(w, _)| *w <= 1.0)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, i)| i)
    }
}

fn load_places(conn: &Connection) -> Result<Vec<Place>, SearchBuildError> {
    let mut names: HashMap<i64, Vec<(String, String)>> = HashMap::new();
    {
        let mut st = conn.prepare("SELECT place_id, lang, name FROM place_names")?;
        let rows = st.query_map([], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get(2)?))
        })?;
        for row in rows {
            let (id, lang, name) = row?;
            names.entry(id).or_default().push((lang, name));
        }
    }
    let mut st = conn.prepare(
        "SELECT id, source, source_id, kind, name, lat, lng, population, admin_level, \
         country_code, postal_code, shape FROM places ORDER BY id",
    )?;
    let rows = st.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
            r.get::<_, String>(3)?,
            r.get::<_, String>(4)?,
            r.get::<_, f64>(5)?,
            r.get::<_, f64>(6)?,
            r.get::<_, Option<i64>>(7)?,
            r.get::<_, Option<i64>>(8)?,
            r.get::<_, Option<String>>(9)?,
            r.get::<_, Option<String>>(10)?,
            r.get::<_, Option<String>>(11)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (row, source, source_id, kind, name, lat, lng, population, admin_level, cc, pc, shape) =
            row?;
        let public_id = if source == "geonames" {
            format!("place.gn-{source_id}")
        } else {
            osm_public_id("place", &source, source_id)
        };
        out.push(Place {
            row,
            names: names.remove(&row).unwrap_or_default(),
            area: shape.as_deref().and_then(Area::from_geojson_str),
            kind,
            source,
            name,
            lat,
            lng,
            population: population.filter(|p| *p > 0),
            admin_level,
            cc: cc.map(|c| c.to_uppercase()),
            postal_code: pc,
            public_id,
        });
    }
    Ok(out)
}

/// Countries: `code2 -> (names, point)` from the pack's `countries` table or world-countries.
fn load_countries(
    conn: &Connection,
    countries_json: Option<&Path>,
) -> Result<BTreeMap<String, CountryInfo>, SearchBuildError> {
    let mut out: BTreeMap<String, CountryInfo> = BTreeMap::new();
    let mut st = conn.prepare("SELECT code2, name, lat, lng FROM countries")?;
    let rows = st.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<f64>>(2)?,
            r.get::<_, Option<f64>>(3)?,
        ))
    })?;
    for row in rows {
        let (code, name, lat, lng) = row?;
        let c = out.entry(code).or_default();
        c.names.insert(String::new(), name);
        c.point = lat.zip(lng);
    }
    let mut st = conn.prepare("SELECT code2, lang, name FROM country_names")?;
    let rows = st.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
        ))
    })?;
    for row in rows {
        let (code, lang, name) = row?;
        out.entry(code).or_default().names.insert(lang, name);
    }
    if out.is_empty()
        && let Some(path) = countries_json
    {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SearchBuildError::Io(format!("{}: {e}", path.display())))?;
        let list: Vec<serde_json::Value> = serde_json::from_str(&text)
            .map_err(|e| SearchBuildError::Io(format!("{}: {e}", path.display())))?;
        for c in &list {
            let (Some(code), Some(common)) = (c["cca2"].as_str(), c["name"]["common"].as_str())
            else {
                continue;
            };
            let info = out.entry(code.to_string()).or_default();
            info.names.insert(String::new(), common.to_string());
            info.names.insert("en".into(), common.to_string());
            info.point = c["latlng"][0].as_f64().zip(c["latlng"][1].as_f64());
            if let Some(tr) = c["translations"].as_object() {
                for (l3, v) in tr {
                    if let (Some(l1), Some(t)) = (lang_639_1(l3), v["common"].as_str()) {
                        info.names.insert(l1.to_string(), t.to_string());
                    }
                }
            }
            // The local name (first native name) is the default.
            if let Some(native) = c["name"]["native"].as_object()
                && let Some((_, v)) = native.iter().next()
                && let Some(n) = v["common"].as_str()
            {
                info.names.insert(String::new(), n.to_string());
            }
        }
    }
    Ok(out)
}

fn lang_639_1(l3: &str) -> Option<&'static str> {
    const LANGS: &[(&str, &str)] = &[
        ("ara", "ar"),
        ("ces", "cs"),
        ("deu", "de"),
        ("est", "et"),
        ("fin", "fi"),
        ("fra", "fr"),
        ("hrv", "hr"),
        ("hun", "hu"),
        ("ita", "it"),
        ("jpn", "ja"),
        ("kor", "ko"),
        ("nld", "nl"),
        ("per", "fa"),
        ("pol", "pl"),
        ("por", "pt"),
        ("rus", "ru"),
        ("slk", "sk"),
        ("spa", "es"),
        ("srp", "sr"),
        ("swe", "sv"),
        ("tur", "tr"),
        ("urd", "ur"),
        ("zho", "zh"),
        ("cym", "cy"),
        ("bre", "br"),
    ];
    LANGS.iter().find(|(a, _)| *a == l3).map(|(_, b)| *b)
}

/// Merges GeoNames places into OSM settlements with the same name nearby; returns how many.
fn merge_gazetteer(places: &mut [Place]) -> (Vec<bool>, u64) {
    let mut dropped = vec![false; places.len()];
    let osm: Vec<usize> = (0..places.len())
        .filter(|&i| places[i].source != "geonames" && kinds::is_settlement(&places[i].kind))
        .collect();
    let tree = RTree::bulk_load(
        osm.iter()
            .map(|&i| PlacePoint {
                lat: places[i].lat,
                lng: places[i].lng,
                idx: i,
            })
            .collect(),
    );
    let mut merged = 0;
    for gi in 0..places.len() {
        if places[gi].source != "geonames" {
            continue;
        }
        let g_names: Vec<String> = places[gi].all_names().map(s::fold).collect();
        let target = tree
            .nearest_neighbor_iter(&[places[gi].lng, places[gi].lat])
            .take(50)
            .filter(|pt| {
                haversine_m(
                    Pt::new(places[gi].lat, places[gi].lng),
                    Pt::new(pt.lat, pt.lng),
                ) < 15_000.0
            })
            .find(|pt| {
                let o = &places[pt.idx];
                g_names.contains(&s::fold(&o.name))
                    || o.all_names().any(|n| s::fold(n) == g_names[0])
            })
            .map(|pt| pt.idx);
        if let Some(oi) = target {
            let g = places[gi].clone();
            let o = &mut places[oi];
            if o.population.is_none() {
                o.population = g.population;
            }
            if o.cc.is_none() {
                o.cc = g.cc.clone();
            }
            for (lang, n) in g.names {
                if !o.names.iter().any(|(l, x)| *l == lang && *x == n) {
                    o.names.push((lang, n));
                }
            }
            dropped[gi] = true;
            merged += 1;
        }
    }
    (dropped, merged)
}

struct Writer {
    writer: tantivy::IndexWriter,
    f: SearchFields,
    docs: u64,
}

struct NewDoc<'a> {
    public_id: &'a str,
    kind: &'a str,
    types: Vec<String>,
    cc: Option<&'a str>,
    names: Vec<String>,
    context: Vec<String>,
    street_key: Option<String>,
    postcode_key: Option<String>,
    point: (f64, f64),
    rank: f64,
    data: &'a DocData,
}

impl Writer {
    fn add(&mut self, d: NewDoc<'_>) -> Result<(), SearchBuildError> {
        let f = self.f;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.public_id, d.public_id);
        doc.add_text(f.kind, d.kind);
        for t in &d.types {
            doc.add_text(f.types, t);
        }
        if let Some(cc) = d.cc {
            doc.add_text(f.cc, cc);
        }
        let mut tokens: Vec<String> = Vec::new();
        for n in &d.names {
            for t in index_tokens(n) {
                if !tokens.contains(&t) {
                    tokens.push(t);
                }
            }
        }
        doc.add_text(f.names, tokens.join(" "));
        let mut ctx: Vec<String> = Vec::new();
        for n in &d.context {
            for t in index_tokens(n) {
                if !ctx.contains(&t) && !tokens.contains(&t) {
                    ctx.push(t);
                }
            }
        }
        doc.add_text(f.context, ctx.join(" "));
        if let Some(k) = &d.street_key
            && !k.is_empty()
        {
            doc.add_text(f.street_key, k);
        }
        if let Some(k) = &d.postcode_key {
            doc.add_text(f.postcode_key, k);
        }
        doc.add_f64(f.lat, d.point.0);
        doc.add_f64(f.lng, d.point.1);
        doc.add_f64(f.rank, d.rank);
        doc.add_text(
            f.data,
            serde_json::to_string(d.data).map_err(|e| SearchBuildError::Io(e.to_string()))?,
        );
        self.writer.add_document(doc)?;
        self.docs += 1;
        Ok(())
    }
}

/// The parent chain of a point as public ids and the context names it adds.
struct Parents {
    ids: Vec<String>,
    context: Vec<String>,
}

fn parents_of(
    g: &Gazetteer,
    locality: Option<usize>,
    admin: &[usize],
    cc: Option<&str>,
) -> Parents {
    let mut ids = Vec::new();
    let mut context = Vec::new();
    for i in locality.into_iter().chain(admin.iter().copied()) {
        let p = &g.places[i];
        if !ids.contains(&p.public_id) {
            ids.push(p.public_id.clone());
            context.extend(p.context_names().map(str::to_string));
        }
    }
    if let Some(cc) = cc {
        ids.push(format!("place.country-{cc}"));
        if let Some(c) = g.countries.get(cc) {
            for (lang, n) in &c.names {
                if CONTEXT_LANGS.contains(&lang.as_str()) {
                    context.push(n.clone());
                }
            }
        }
    }
    Parents { ids, context }
}

#[derive(Default)]
struct PostalAcc {
    display: String,
    points: Vec<(f64, f64)>,
    localities: HashMap<usize, u32>,
}

#[derive(Default)]
struct StreetAcc {
    names: HashMap<String, u32>,
    points: Vec<(f64, f64)>,
    postcodes: HashMap<String, u32>,
    locality: Option<usize>,
    cc: Option<String>,
}

/// `[west, south, east, north]` of `(lat, lng)` points.
fn bbox_of(points: &[(f64, f64)]) -> Option<[f64; 4]> {
    BBox::of(points.iter().map(|&(lat, lng)| Pt::new(lat, lng))).map(BBox::to_wsen)
}

/// The point of `points` nearest to their centroid.
fn medoid(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    let c = points
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    points.iter().copied().min_by(|a, b| {
        let c = Pt::new(c.0, c.1);
        haversine_m(Pt::new(a.0, a.1), c).total_cmp(&haversine_m(Pt::new(b.0, b.1), c))
    })
}

fn most_common<K: Clone + Ord>(m: &HashMap<K, u32>) -> Option<K> {
    m.iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, _)| k.clone())
}

/// Builds `<pack_dir>/search` from `data.sqlite` (replacing any previous index).
pub fn build(
    conn: &Connection,
    pack_dir: &Path,
    countries_json: Option<&Path>,
) -> Result<SearchStats, SearchBuildError> {
    let dir = pack_dir.join(s::SEARCH_DIR);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)
            .map_err(|e| SearchBuildError::Io(format!("{}: {e}", dir.display())))?;
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| SearchBuildError::Io(format!("{}: {e}", dir.display())))?;
    let (schema, fields) = s::schema();
    let index = Index::create_in_dir(&dir, schema)?;
    let mut w = Writer {
        writer: index.writer_with_num_threads(1, 100_000_000)?,
        f: fields,
        docs: 0,
    };
    let mut stats = SearchStats::default();

    let mut places = load_places(conn)?;
    let (dropped, merged) = merge_gazetteer(&mut places);
    stats.gazetteer_merged = merged;
    let mut countries = load_countries(conn, countries_json)?;
    for p in &places {
        if p.kind == kinds::COUNTRY
            && let Some(cc) = &p.cc
        {
            let c = countries.entry(cc.clone()).or_default();
            c.row = Some(p.row);
            c.bbox = p.area.as_ref().map(|a| a.bbox.to_wsen());
            c.point = Some((p.lat, p.lng));
            for (lang, n) in p.names_map() {
                c.names.entry(lang).or_insert(n);
            }
        }
    }
    let mut areas: Vec<usize> = (0..places.len())
        .filter(|&i| {
            (places[i].kind == kinds::ADMIN || places[i].kind == kinds::COUNTRY)
                && places[i].area.is_some()
        })
        .collect();
    areas.sort_by(|&a, &b| {
        let sa = places[a].area.as_ref().map_or(0.0, Area::bbox_area);
        let sb = places[b].area.as_ref().map_or(0.0, Area::bbox_area);
        sa.total_cmp(&sb)
    });
    let localities = RTree::bulk_load(
        (0..places.len())
            .filter(|&i| !dropped[i] && kinds::LOCALITIES.contains(&places[i].kind.as_str()))
            .map(|i| PlacePoint {
                lat: places[i].lat,
                lng: places[i].lng,
                idx: i,
            })
            .collect(),
    );
    let with_cc = RTree::bulk_load(
        (0..places.len())
            .filter(|&i| places[i].cc.is_some())
            .map(|i| PlacePoint {
                lat: places[i].lat,
                lng: places[i].lng,
                idx: i,
            })
            .collect(),
    );
    let g = Gazetteer {
        places,
        areas,
        localities,
        with_cc,
        countries,
    };

    // Postal codes and streets are gathered from addresses and POIs first, so that
    // settlements know their postal codes.
    let mut postal: BTreeMap<(String, String), PostalAcc> = BTreeMap::new();
    let mut streets: BTreeMap<(String, String, Option<usize>), StreetAcc> = BTreeMap::new();
    let mut settlement_codes: HashMap<usize, HashMap<String, u32>> = HashMap::new();

    struct AddrRow {
        osm_type: String,
        osm_id: i64,
        housenumber: String,
        street: Option<String>,
        postcode: Option<String>,
        city: Option<String>,
        cc: Option<String>,
        lat: f64,
        lng: f64,
    }
    let addresses: Vec<AddrRow> = {
        let mut st = conn.prepare(
            "SELECT osm_type, osm_id, housenumber, coalesce(street, place), postcode, city, \
             country_code, lat, lng FROM addresses ORDER BY id",
        )?;
        st.query_map([], |r| {
            Ok(AddrRow {
                osm_type: r.get(0)?,
                osm_id: r.get(1)?,
                housenumber: r.get(2)?,
                street: r.get(3)?,
                postcode: r.get(4)?,
                city: r.get(5)?,
                cc: r.get(6)?,
                lat: r.get(7)?,
                lng: r.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?
    };
    // (locality, cc) of each address.
    let mut addr_places: Vec<(Option<usize>, Option<String>)> = Vec::with_capacity(addresses.len());
    for a in &addresses {
        let loc = g.locality(a.lat, a.lng, a.city.as_deref());
        let cc =
            a.cc.as_ref()
                .map(|c| c.to_uppercase())
                .or_else(|| g.country_of(a.lat, a.lng));
        if let (Some(pc), Some(cc)) = (&a.postcode, &cc) {
            let acc = postal
                .entry((cc.clone(), s::normalize_postcode(pc)))
                .or_default();
            acc.display = s::normalize_postcode(pc);
            acc.points.push((a.lat, a.lng));
            if let Some(l) = loc {
                *acc.localities.entry(l).or_default() += 1;
                *settlement_codes
                    .entry(l)
                    .or_default()
                    .entry(s::normalize_postcode(pc))
                    .or_default() += 1;
            }
        }
        if let Some(street) = &a.street {
            let key = street_key(street);
            if !key.is_empty() {
                let acc = streets
                    .entry((cc.clone().unwrap_or_default(), key, loc))
                    .or_default();
                *acc.names.entry(street.clone()).or_default() += 1;
                acc.points.push((a.lat, a.lng));
                if let Some(pc) = &a.postcode {
                    *acc.postcodes.entry(s::normalize_postcode(pc)).or_default() += 1;
                }
                acc.locality = loc;
                acc.cc = cc.clone();
            }
        }
        addr_places.push((loc, cc));
    }
    // Named roads.
    {
        let mut st =
            conn.prepare("SELECT name, geometry FROM road_edges WHERE name IS NOT NULL")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (name, geometry) = row?;
            let line = decode_polyline6(&geometry).unwrap_or_default();
            let Some(&mid) = line.get(line.len() / 2) else {
                continue;
            };
            let key = street_key(&name);
            if key.is_empty() {
                continue;
            }
            let loc = g.locality(mid.lat, mid.lng, None);
            let cc = g.country_of(mid.lat, mid.lng);
            let acc = streets
                .entry((cc.clone().unwrap_or_default(), key, loc))
                .or_default();
            *acc.names.entry(name).or_default() += 1;
            acc.points.extend(line.iter().map(|p| (p.lat, p.lng)));
            acc.locality = loc;
            acc.cc = cc;
        }
    }
    // Postal-code boundaries (and admin areas carrying a postal code) give outline and point.
    let mut postal_rows: HashMap<(String, String), usize> = HashMap::new();
    for (i, p) in g.places.iter().enumerate() {
        let code = match (p.kind.as_str(), &p.postal_code) {
            (kinds::POSTAL_CODE, Some(c)) => c.clone(),
            (kinds::POSTAL_CODE, None) => p.name.clone(),
            _ => continue,
        };
        let cc = p.cc.clone().or_else(|| g.country_of(p.lat, p.lng));
        if let Some(cc) = cc {
            let key = (cc, s::normalize_postcode(&code));
            let acc = postal.entry(key.clone()).or_default();
            acc.display = s::normalize_postcode(&code);
            postal_rows.insert(key, i);
        }
    }

    // Countries.
    let pack_ccs: Vec<String> = if g.places.is_empty() {
        g.countries.keys().cloned().collect()
    } else {
        let mut v: Vec<String> = g
            .places
            .iter()
            .filter_map(|p| p.cc.clone())
            .chain(addr_places.iter().filter_map(|(_, c)| c.clone()))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    for cc in &pack_ccs {
        let Some(c) = g.countries.get(cc) else {
            continue;
        };
        let Some(point) = c.point else { continue };
        let data = DocData {
            names: c.names.clone(),
            bbox: c.bbox,
            shape_row: c.row,
            ..DocData::default()
        };
        let mut names: Vec<String> = c.names.values().cloned().collect();
        names.push(cc.clone());
        w.add(NewDoc {
            public_id: &format!("place.country-{cc}"),
            kind: kinds::COUNTRY,
            types: vec![kinds::COUNTRY.into()],
            cc: Some(cc),
            names,
            context: vec![],
            street_key: None,
            postcode_key: None,
            point,
            rank: s::rank(kinds::COUNTRY, None),
            data: &data,
        })?;
        stats.countries += 1;
    }

    // Admin areas and settlements.
    for (i, p) in g.places.iter().enumerate() {
        if dropped[i] {
            continue;
        }
        let is_admin = p.kind == kinds::ADMIN;
        let is_settlement = kinds::is_settlement(&p.kind);
        if !is_admin && !is_settlement {
            continue;
        }
        let cc = p.cc.clone().or_else(|| g.country_of(p.lat, p.lng));
        let admin = g.admin_chain(p.lat, p.lng, if is_admin { p.admin_level } else { None });
        // A part of a settlement (suburb, quarter...) has its locality as parent.
        let locality = if is_settlement && !kinds::LOCALITIES.contains(&p.kind.as_str()) {
            g.locality(p.lat, p.lng, None).filter(|&l| l != i)
        } else {
            None
        };
        let parents = parents_of(&g, locality, &admin, cc.as_deref());
        let mut codes: Vec<(String, u32)> = settlement_codes
            .get(&i)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), *v)).collect())
            .unwrap_or_default();
        codes.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let postcodes: Vec<String> = codes.into_iter().take(20).map(|(c, _)| c).collect();
        let data = DocData {
            names: p.names_map(),
            parents: parents.ids,
            population: p.population,
            admin_level: p.admin_level,
            bbox: p.area.as_ref().map(|a| a.bbox.to_wsen()),
            shape_row: p.area.as_ref().map(|_| p.row),
            postcodes: postcodes.clone(),
            ..DocData::default()
        };
        let mut types = vec![p.kind.clone()];
        if is_settlement {
            types.push("locality".into());
        }
        let mut context = parents.context;
        context.extend(postcodes);
        w.add(NewDoc {
            public_id: &p.public_id,
            kind: &p.kind,
            types,
            cc: cc.as_deref(),
            names: p.all_names().map(str::to_string).collect(),
            context,
            street_key: None,
            postcode_key: None,
            point: (p.lat, p.lng),
            rank: s::rank(&p.kind, p.population),
            data: &data,
        })?;
        if is_admin {
            stats.admin_areas += 1;
        } else {
            stats.settlements += 1;
        }
    }

    // Postal codes.
    for ((cc, code), acc) in &postal {
        let row = postal_rows.get(&(cc.clone(), code.clone())).copied();
        let (point, bbox, shape_row) = match row {
            Some(i) => {
                let p = &g.places[i];
                (
                    (p.lat, p.lng),
                    p.area.as_ref().map(|a| a.bbox.to_wsen()),
                    Some(p.row),
                )
            }
            None => match medoid(&acc.points) {
                Some(pt) => (pt, bbox_of(&acc.points), None),
                None => continue,
            },
        };
        let locality = most_common(&acc.localities).or_else(|| g.locality(point.0, point.1, None));
        let admin = g.admin_chain(point.0, point.1, None);
        let parents = parents_of(&g, locality, &admin, Some(cc));
        let mut names = BTreeMap::new();
        names.insert(String::new(), acc.display.clone());
        let data = DocData {
            names,
            postcode: Some(acc.display.clone()),
            parents: parents.ids,
            bbox,
            shape_row,
            ..DocData::default()
        };
        w.add(NewDoc {
            public_id: &postal_public_id(cc, code),
            kind: kinds::POSTAL_CODE,
            types: vec![kinds::POSTAL_CODE.into()],
            cc: Some(cc),
            names: vec![acc.display.clone(), acc.display.replace(' ', "")],
            context: parents.context,
            street_key: None,
            postcode_key: Some(postcode_key(cc, code)),
            point,
            rank: s::rank(kinds::POSTAL_CODE, None),
            data: &data,
        })?;
        stats.postal_codes += 1;
    }

    // Streets.
    for ((cc, key, _), acc) in &streets {
        let Some(name) = most_common(&acc.names) else {
            continue;
        };
        let Some(point) = medoid(&acc.points) else {
            continue;
        };
        let locality_id = acc
            .locality
            .map(|l| g.places[l].public_id.clone())
            .unwrap_or_default();
        let admin = g.admin_chain(point.0, point.1, None);
        let parents = parents_of(&g, acc.locality, &admin, acc.cc.as_deref());
        let postcode = most_common(&acc.postcodes);
        let mut names = BTreeMap::new();
        names.insert(String::new(), name.clone());
        let data = DocData {
            names,
            street: Some(name.clone()),
            postcode: postcode.clone(),
            parents: parents.ids,
            bbox: bbox_of(&acc.points),
            ..DocData::default()
        };
        let mut context = parents.context;
        context.extend(postcode.iter().cloned());
        let mut all_names: Vec<String> = acc.names.keys().cloned().collect();
        all_names.sort();
        w.add(NewDoc {
            public_id: &route_public_id(cc, key, &locality_id),
            kind: kinds::ROUTE,
            types: vec![kinds::ROUTE.into()],
            cc: acc.cc.as_deref(),
            names: all_names,
            context,
            street_key: Some(key.clone()),
            postcode_key: None,
            point,
            rank: s::rank(kinds::ROUTE, None),
            data: &data,
        })?;
        stats.streets += 1;
    }

    // Addresses.
    for (a, (loc, cc)) in addresses.iter().zip(&addr_places) {
        let admin = g.admin_chain(a.lat, a.lng, None);
        let parents = parents_of(&g, *loc, &admin, cc.as_deref());
        let city_matched = loc.is_some_and(|l| {
            a.city
                .as_deref()
                .is_some_and(|c| g.places[l].all_names().any(|n| s::fold(n) == s::fold(c)))
        });
        let data = DocData {
            housenumber: Some(a.housenumber.clone()),
            street: a.street.clone(),
            postcode: a.postcode.as_deref().map(s::normalize_postcode),
            city: a.city.clone().filter(|_| !city_matched),
            parents: parents.ids,
            ..DocData::default()
        };
        let mut names = vec![a.housenumber.clone()];
        names.extend(a.street.iter().cloned());
        let mut context = parents.context;
        context.extend(a.postcode.iter().cloned());
        context.extend(a.city.iter().cloned());
        w.add(NewDoc {
            public_id: &osm_public_id("addr", &a.osm_type, a.osm_id),
            kind: kinds::ADDRESS,
            types: vec![kinds::ADDRESS.into()],
            cc: cc.as_deref(),
            names,
            context,
            street_key: a.street.as_deref().map(street_key),
            postcode_key: a
                .postcode
                .as_ref()
                .zip(cc.as_ref())
                .map(|(pc, cc)| postcode_key(cc, pc)),
            point: (a.lat, a.lng),
            rank: s::rank(kinds::ADDRESS, None),
            data: &data,
        })?;
        stats.addresses += 1;
    }

    // Points of interest.
    {
        let mut poi_names: HashMap<i64, Vec<(String, String)>> = HashMap::new();
        let mut st = conn.prepare("SELECT poi_id, lang, name FROM poi_names")?;
        for row in st.query_map([], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get(2)?))
        })? {
            let (id, lang, name) = row?;
            poi_names.entry(id).or_default().push((lang, name));
        }
        let mut st = conn.prepare(
            "SELECT id, osm_type, osm_id, types, name, lat, lng, street, housenumber, postcode, \
             city FROM pois ORDER BY id",
        )?;
        let rows = st.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, f64>(5)?,
                r.get::<_, f64>(6)?,
                r.get::<_, Option<String>>(7)?,
                r.get::<_, Option<String>>(8)?,
                r.get::<_, Option<String>>(9)?,
                r.get::<_, Option<String>>(10)?,
            ))
        })?;
        for row in rows {
            let (id, osm_type, osm_id, types, name, lat, lng, street, hn, pc, city) = row?;
            let loc = g.locality(lat, lng, city.as_deref());
            let cc = g.country_of(lat, lng);
            let admin = g.admin_chain(lat, lng, None);
            let parents = parents_of(&g, loc, &admin, cc.as_deref());
            let mut names_map = BTreeMap::new();
            if let Some(n) = &name {
                names_map.insert(String::new(), n.clone());
            }
            for (lang, n) in poi_names.remove(&id).unwrap_or_default() {
                names_map.entry(lang).or_insert(n);
            }
            let mut types: Vec<String> = types.split('|').map(str::to_string).collect();
            if !types.iter().any(|t| t == "point_of_interest") {
                types.push("point_of_interest".into());
            }
            let data = DocData {
                names: names_map.clone(),
                housenumber: hn,
                street: street.clone(),
                postcode: pc.as_deref().map(s::normalize_postcode),
                city,
                parents: parents.ids,
                ..DocData::default()
            };
            let mut context = parents.context;
            context.extend(street.iter().cloned());
            let rank = s::rank(kinds::POI, None)
                + if types.iter().any(|t| {
                    t.starts_with("tourism") || t.starts_with("transit") || t == "park.national"
                }) {
                    0.1
                } else {
                    0.0
                };
            w.add(NewDoc {
                public_id: &osm_public_id("poi", &osm_type, osm_id),
                kind: kinds::POI,
                types,
                cc: cc.as_deref(),
                names: names_map.into_values().collect(),
                context,
                street_key: None,
                postcode_key: None,
                point: (lat, lng),
                rank,
                data: &data,
            })?;
            stats.pois += 1;
        }
    }

    // Commit, merge into one segment, record the schema version.
    w.writer.commit()?;
    let ids = index.searchable_segment_ids()?;
    if ids.len() > 1 {
        w.writer.merge(&ids).wait()?;
    }
    let mut pc = w.writer.prepare_commit()?;
    pc.set_payload(&s::commit_payload());
    pc.commit()?;
    w.writer.garbage_collect_files().wait()?;
    stats.docs = w.docs;
    w.writer.wait_merging_threads()?;
    // The writer's lock files are empty leftovers: a pack ships only the index itself.
    for lock in [".tantivy-writer.lock", ".tantivy-meta.lock"] {
        let path = dir.join(lock);
        if path.exists() {
            std::fs::remove_file(&path)
                .map_err(|e| SearchBuildError::Io(format!("{}: {e}", path.display())))?;
        }
    }
    stats.bytes = dir_size(&dir);
    Ok(stats)
}

fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}
