//! The places of a pack as the search builder sees them: OSM and GeoNames places (a GeoNames
//! settlement merged into the OSM one of the same name nearby), the countries, and what every
//! document asks of them (admin chain, country and locality of a point, parents and their
//! context names).
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use rstar::{AABB, PointDistance, RTree, RTreeObject};
use rusqlite::Connection;
use waymark_core::geo::{Area, Pt, haversine_m};
use waymark_core::packs::search::{self as s, index_tokens, kinds, osm_public_id, parent_token};

use super::SearchBuildError;

/// Languages whose names of the parent areas are indexed as context of an item.
pub(super) const CONTEXT_LANGS: &[&str] = &[
    "", "en", "de", "fr", "es", "it", "pt", "ca", "fi", "sv", "nl",
];

#[derive(Debug, Clone)]
pub(super) struct Place {
    pub(super) row: i64,
    pub(super) kind: String,
    pub(super) source: String,
    pub(super) name: String,
    pub(super) lat: f64,
    pub(super) lng: f64,
    pub(super) population: Option<i64>,
    pub(super) admin_level: Option<i64>,
    pub(super) cc: Option<String>,
    pub(super) postal_code: Option<String>,
    pub(super) area: Option<Area>,
    /// `(lang, name)`, default names with lang `""`.
    pub(super) names: Vec<(String, String)>,
    pub(super) public_id: String,
    /// Public ids of the GeoNames places merged into this one.
    pub(super) merged: Vec<String>,
}

impl Place {
    pub(super) fn names_map(&self) -> BTreeMap<String, String> {
        let mut m = BTreeMap::new();
        m.insert(String::new(), self.name.clone());
        for (lang, n) in &self.names {
            if !lang.is_empty() {
                m.entry(lang.clone()).or_insert_with(|| n.clone());
            }
        }
        m
    }

    pub(super) fn all_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str()).chain(self.names.iter().map(|(_, n)| n.as_str()))
    }

    /// Whether the place can be the parent of an item: a locality, or an admin area with an
    /// outline (countries are parents by country code).
    pub(super) fn can_be_parent(&self) -> bool {
        kinds::LOCALITIES.contains(&self.kind.as_str())
            || (self.kind == kinds::ADMIN && self.area.is_some())
    }

    /// The words the place gives as context of the items inside it.
    pub(super) fn context_words(&self) -> Vec<String> {
        words_of(self.context_names())
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
pub(super) struct PlacePoint {
    pub(super) lat: f64,
    pub(super) lng: f64,
    pub(super) idx: usize,
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
pub(super) struct Gazetteer {
    pub(super) places: Vec<Place>,
    /// Indexes of admin areas (and countries) with an outline, smallest bbox first.
    pub(super) areas: Vec<usize>,
    /// Settlement points that can be the locality of an address.
    pub(super) localities: RTree<PlacePoint>,
    /// Places with a country code.
    pub(super) with_cc: RTree<PlacePoint>,
    /// Country code -> (names by language, point, OSM row with the outline).
    pub(super) countries: BTreeMap<String, CountryInfo>,
    /// GeoNames places merged into an OSM place (no document of their own).
    pub(super) dropped: Vec<bool>,
    /// Countries with a document in the pack (set once the addresses are collected).
    pub(super) country_docs: BTreeSet<String>,
}

/// The [`index_tokens`] of `names`, each once.
pub(super) fn words_of<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        for t in index_tokens(n) {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}

impl CountryInfo {
    /// The words the country gives as context of the items inside it.
    pub(super) fn context_words(&self) -> Vec<String> {
        words_of(
            self.names
                .iter()
                .filter(|(lang, _)| CONTEXT_LANGS.contains(&lang.as_str()))
                .map(|(_, n)| n.as_str()),
        )
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct CountryInfo {
    pub(super) names: BTreeMap<String, String>,
    pub(super) point: Option<(f64, f64)>,
    pub(super) row: Option<i64>,
    pub(super) bbox: Option<[f64; 4]>,
}

impl Gazetteer {
    /// Admin areas containing the point, most local (highest level) first.
    pub(super) fn admin_chain(&self, lat: f64, lng: f64, max_level: Option<i64>) -> Vec<usize> {
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

    pub(super) fn country_of(&self, lat: f64, lng: f64) -> Option<String> {
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
    pub(super) fn locality(&self, lat: f64, lng: f64, city: Option<&str>) -> Option<usize> {
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

pub(super) fn load_places(conn: &Connection) -> Result<Vec<Place>, SearchBuildError> {
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
            merged: Vec::new(),
        });
    }
    Ok(out)
}

/// Countries: `code2 -> (names, point)` from the pack's `countries` table or world-countries.
pub(super) fn load_countries(
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

/// The ISO 639-1 code of the ISO 639-3 codes world-countries keys its translations by.
pub(crate) fn lang_639_1(l3: &str) -> Option<&'static str> {
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
pub(super) fn merge_gazetteer(places: &mut [Place]) -> (Vec<bool>, u64) {
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
            o.merged.push(g.public_id);
            dropped[gi] = true;
            merged += 1;
        }
    }
    (dropped, merged)
}

/// The parent chain of a point as public ids and the context it adds: one parent token per
/// parent with a document (which lists the parent's words), the names of any other.
pub(super) struct Parents {
    pub(super) ids: Vec<String>,
    pub(super) tokens: Vec<String>,
    pub(super) context: Vec<String>,
}

pub(super) fn parents_of(
    g: &Gazetteer,
    locality: Option<usize>,
    admin: &[usize],
    cc: Option<&str>,
) -> Parents {
    let mut ids = Vec::new();
    let mut tokens = Vec::new();
    let mut context = Vec::new();
    for i in locality.into_iter().chain(admin.iter().copied()) {
        let p = &g.places[i];
        if !ids.contains(&p.public_id) {
            ids.push(p.public_id.clone());
            if !g.dropped[i] && p.can_be_parent() {
                tokens.push(parent_token(&p.public_id));
            } else {
                context.extend(p.context_names().map(str::to_string));
            }
        }
    }
    if let Some(cc) = cc {
        let id = format!("place.country-{cc}");
        if g.country_docs.contains(cc) {
            tokens.push(parent_token(&id));
        } else if let Some(c) = g.countries.get(cc) {
            for (lang, n) in &c.names {
                if CONTEXT_LANGS.contains(&lang.as_str()) {
                    context.push(n.clone());
                }
            }
        }
        ids.push(id);
    }
    Parents {
        ids,
        tokens,
        context,
    }
}

impl Gazetteer {
    /// Loads and indexes the pack's places and countries. GeoNames settlements are merged
    /// into OSM ones nearby ([`merge_gazetteer`]): the second value marks the merged places,
    /// the third counts them.
    pub(super) fn load(
        conn: &Connection,
        countries_json: Option<&Path>,
    ) -> Result<(Self, Vec<bool>, u64), SearchBuildError> {
        let mut places = load_places(conn)?;
        let (dropped, merged) = merge_gazetteer(&mut places);
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
            dropped: dropped.clone(),
            country_docs: BTreeSet::new(),
        };
        Ok((g, dropped, merged))
    }
}
