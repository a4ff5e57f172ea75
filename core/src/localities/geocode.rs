//! `GET /localities/geocode`: an address to coordinates (parts in any order, house numbers
//! interpolated along their street when the exact point is missing), or a `latlng` to the
//! nearest address, else street, else locality, else admin area.
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use super::details::{details_of, leading_number};
use super::format::{Shown, resolve_language};
use super::index::{Automata, Bias, Item, LocalitiesIndex, text_query_fuzzy};
use super::text::{MatchKind, QueryToken, match_word, query_tokens};
use crate::api::{
    Accuracy, AddressComponent, CcFormat, DetailsField, GeocodeRequest, GeocodeResponse,
    GeocodeResult, LatLng, OneOrMany,
};
use crate::geo::{Pt, decode_polyline6, degrees_for, haversine_m, nearest_on_line, point_along};
use crate::packs::search::{fold, kinds, osm_public_id, street_key, words};

/// Candidates of each forward geocoding search ranked against the whole address.
const CANDIDATES: usize = 60;

/// Farthest address point a reverse geocode returns, in metres.
pub const REVERSE_ADDRESS_M: f64 = 100.0;
/// Farthest street a reverse geocode returns, in metres.
pub const REVERSE_STREET_M: f64 = 250.0;
/// Farthest settlement point a reverse geocode returns, in metres (weighted by kind).
pub const REVERSE_LOCALITY_M: f64 = 15_000.0;

fn to_result(
    idx: &LocalitiesIndex,
    shown: &Shown,
    fields: &[DetailsField],
    cc_format: CcFormat,
) -> GeocodeResult {
    let d = details_of(idx, shown, &shown.item.public_id, fields, cc_format, None);
    GeocodeResult {
        public_id: d.public_id,
        types: d.types,
        formatted_address: d.formatted_address,
        geometry: d.geometry,
        address_components: d.address_components,
    }
}

fn shown(idx: &LocalitiesIndex, item: Item, lang: &str) -> Shown {
    let parents = idx.parents(&item);
    Shown {
        item,
        parents,
        lang: lang.to_string(),
    }
}

/// Runs geocode (forward or reverse).
pub fn run(
    idx: &LocalitiesIndex,
    req: &GeocodeRequest,
    countries: &[String],
    locale_default: Option<&str>,
) -> GeocodeResponse {
    let lang = resolve_language(
        req.language.as_deref(),
        req.accept_language.as_deref(),
        locale_default,
    );
    let cc_format = req.effective_cc_format();
    let results = match (&req.address, &req.latlng) {
        (Some(address), _) => forward(idx, address, countries, &lang, &req.fields, cc_format),
        (None, Some(p)) => reverse(idx, p.lat, p.lng, &lang, &req.fields, cc_format),
        (None, None) => Vec::new(),
    };
    GeocodeResponse { results }
}

/// Folded words of the places around candidates, computed once per query: most candidates
/// share the same few parents (street, city, region, country), whose names come in many
/// languages, and folding them again for each candidate was most of a geocode.
#[derive(Default)]
struct ContextWords(HashMap<String, Rc<Vec<String>>>);

impl ContextWords {
    /// The distinct folded words of `texts`, remembered under `key`.
    fn of<'a>(&mut self, key: &str, texts: impl IntoIterator<Item = &'a str>) -> Rc<Vec<String>> {
        if let Some(w) = self.0.get(key) {
            return Rc::clone(w);
        }
        let mut ws: Vec<String> = texts.into_iter().flat_map(words).map(|w| w.text).collect();
        ws.sort_unstable();
        ws.dedup();
        let ws = Rc::new(ws);
        self.0.insert(key.to_string(), Rc::clone(&ws));
        ws
    }
}

/// How `t` matches the best of the context's words (sorted lists): exactly (looked up), else
/// the best forgiving match, stopping at the first when no better kind is possible.
fn context_match(t: &QueryToken, context: &[Rc<Vec<String>>]) -> Option<MatchKind> {
    let exact = context.iter().any(|list| {
        std::iter::once(&t.text)
            .chain(t.alts.iter())
            .any(|x| list.binary_search(x).is_ok())
    });
    if exact {
        return Some(MatchKind::Exact);
    }
    // Without an exact word, a prefix is the best a typed token can do, a typo the best of
    // a finished one.
    let ceiling = if t.prefix {
        MatchKind::Prefix
    } else {
        MatchKind::Fuzzy
    };
    let mut best = None;
    for w in context.iter().flat_map(|list| list.iter()) {
        if let Some((k, _)) = match_word(t, w) {
            best = best.max(Some(k));
            if k >= ceiling {
                break;
            }
        }
    }
    best
}

/// How much of the query an item explains: each token explains at most one part (name word,
/// house number, postal code, surrounding place), parts the query does not mention and tokens
/// nothing explains count against the item. Returns the score and which tokens were used.
fn explain(shown: &Shown, tokens: &[QueryToken], memo: &mut ContextWords) -> (f64, Vec<bool>) {
    let d = &shown.item.data;
    let name = match shown.item.kind.as_str() {
        kinds::ADDRESS => d.street.clone().unwrap_or_default(),
        _ => shown.name(),
    };
    let name_words = words(&name);
    let hn = d.housenumber.as_deref().map(fold).unwrap_or_default();
    let pc: Vec<String> = d
        .postcode
        .iter()
        .chain(d.postcodes.iter())
        .map(|p| fold(p))
        .collect();
    let mut context: Vec<Rc<Vec<String>>> = shown
        .parents
        .iter()
        .map(|p| memo.of(&p.public_id, p.data.names.values().map(String::as_str)))
        .collect();
    if let Some(c) = &d.city {
        context.push(memo.of(&format!("\u{0}city {c}"), [c.as_str()]));
    }
    let mut used = vec![false; tokens.len()];
    let mut score = 0.0;
    // Name words, each taking the best unused token.
    for w in &name_words {
        let best = tokens
            .iter()
            .enumerate()
            .filter(|(i, _)| !used[*i])
            .filter_map(|(i, t)| match_word(t, &w.text).map(|m| (m.0, i)))
            .max_by_key(|(k, i)| (*k, std::cmp::Reverse(*i)));
        match best {
            Some((k, i)) => {
                used[i] = true;
                score += if k == MatchKind::Exact { 3.0 } else { 1.5 };
            }
            None => score -= 1.0,
        }
    }
    // The house number (`6a / 6b` is two tokens).
    if !hn.is_empty() {
        let parts: Vec<&str> = hn.split(' ').collect();
        let mut taken = Vec::new();
        for part in &parts {
            if let Some(i) = (0..tokens.len())
                .find(|&i| !used[i] && !taken.contains(&i) && tokens[i].text == *part)
            {
                taken.push(i);
            }
        }
        if taken.len() == parts.len() {
            for i in taken {
                used[i] = true;
            }
            score += 4.0;
        } else {
            score -= 3.0;
        }
    }
    // Postal codes (`SW1A 1AA` is two tokens).
    for p in &pc {
        for part in p.split(' ') {
            if let Some(i) = (0..tokens.len()).find(|&i| !used[i] && tokens[i].text == part) {
                used[i] = true;
                score += 2.5;
            }
        }
    }
    // Surrounding places.
    for i in 0..tokens.len() {
        if used[i] {
            continue;
        }
        if let Some(k) = context_match(&tokens[i], &context) {
            used[i] = true;
            score += if k == MatchKind::Exact { 1.2 } else { 0.6 };
        }
    }
    for (i, t) in tokens.iter().enumerate() {
        if !used[i] {
            score -= if t.text.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                2.0
            } else {
                1.5
            };
        }
    }
    score += match shown.item.kind.as_str() {
        kinds::ADDRESS => 0.6,
        kinds::ROUTE => 0.4,
        kinds::POSTAL_CODE => 0.3,
        _ => shown.item.rank * 0.5,
    };
    (score, used)
}

fn forward(
    idx: &LocalitiesIndex,
    address: &str,
    countries: &[String],
    lang: &str,
    fields: &[DetailsField],
    cc_format: CcFormat,
) -> Vec<GeocodeResult> {
    let tokens = query_tokens(address, false);
    if tokens.is_empty() {
        return Vec::new();
    }
    let types: Vec<String> = [
        kinds::ADDRESS,
        kinds::ROUTE,
        kinds::POSTAL_CODE,
        "locality",
        kinds::ADMIN,
        kinds::COUNTRY,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut memo = ContextWords::default();
    // Typos are looked for only in the tokens that are no word of any pack: the others match
    // as they are (a misspelt street among a right city, number and postcode costs one
    // automaton, not four).
    let unknown: Vec<bool> = idx.known_words(&tokens).iter().map(|k| !k).collect();
    let exact = vec![false; tokens.len()];
    // Each typo automaton is built once, for every pack and both searches with typos.
    let automata = Automata::default();
    let known: Vec<QueryToken> = tokens
        .iter()
        .zip(&unknown)
        .filter(|(_, u)| !**u)
        .map(|(t, _)| t.clone())
        .collect();
    let any_unknown = known.len() < tokens.len();
    // The candidates of a search of `searched` (all required or any), ranked by how much of
    // the whole query they explain; `None` when `complete` and more than the limit match.
    let mut rank = |searched: &[QueryToken], all_required: bool, typos: bool, complete: bool| {
        let fuzzy = if typos { &unknown } else { &exact };
        let build = |f: &_, cw: &_| {
            text_query_fuzzy(
                f,
                cw,
                searched,
                &types,
                countries,
                all_required,
                fuzzy,
                &automata,
            )
        };
        let hits = if complete {
            idx.search_all(build, Bias::default(), CANDIDATES)?
        } else {
            idx.search(build, Bias::default(), CANDIDATES)
        };
        let mut scored: Vec<(f64, Vec<bool>, Shown)> = hits
            .into_iter()
            .map(|(_, item)| {
                let s = shown(idx, item, lang);
                let (score, used) = explain(&s, &tokens, &mut memo);
                (score, used, s)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        Some(scored)
    };
    // Most addresses are written in full and without typos. Up to five searches, each run
    // only when the one before left a token unexplained by its best candidate:
    // 1. every token matching a name or the context exactly: an intersection of postings,
    //    a handful of candidates (a city's name alone matches every address in it);
    //    skipped when a token is no word of any pack (nothing could match it);
    // 2. when some tokens are no word of any pack and at least two are: the intersection of
    //    the words alone, kept only when all its matches are candidates (at most
    //    `CANDIDATES`); ranking them against the whole query finds the typo among them
    //    without a typo automaton (a misspelt street among a right number, postcode and
    //    city; a misspelt city among a right number, street and postcode);
    // 3. the intersection of every token, tolerating typos in names (a misspelt street);
    // 4. any token matching exactly (a word the index writes differently, a place the pack
    //    does not know): the union, scored and ranked;
    // 5. the union again, tolerating typos in names (fuzzy automata over a large union, the
    //    costliest).
    let explains_all = |s: &[(f64, Vec<bool>, Shown)]| {
        s.first()
            .is_some_and(|(_, used, _)| used.iter().all(|u| *u))
    };
    let mut scored = Vec::new();
    let narrow = any_unknown && known.len() >= 2;
    // Tokens searched, all required, typos, only when complete, whether it runs.
    let steps = [
        (&tokens[..], true, false, false, !any_unknown),
        (&known[..], true, false, true, narrow),
        (&tokens[..], true, true, false, any_unknown),
        (&tokens[..], false, false, false, true),
        (&tokens[..], false, true, false, any_unknown),
    ];
    for (searched, all_required, typos, complete, run) in steps {
        if !run {
            continue;
        }
        let Some(found) = rank(searched, all_required, typos, complete) else {
            continue;
        };
        if explains_all(&found) {
            scored = found;
            break;
        }
        // The narrowed search answers only when it explains everything.
        if !complete {
            scored = found;
        }
    }
    let mut out = Vec::new();
    if let Some((_, used, best)) = scored.first()
        && best.item.kind == kinds::ROUTE
    {
        // A street and a number it has no point for: interpolate.
        let number = tokens
            .iter()
            .zip(used)
            .filter(|(t, u)| !**u && t.text.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .map(|(t, _)| t.text.clone())
            .next();
        if let Some(n) = number
            && let Some(r) = interpolate(idx, best, &n, fields, cc_format)
        {
            out.push(r);
        }
    }
    let mut seen = std::collections::HashSet::new();
    for (_, _, s) in scored.iter().take(5) {
        if out.len() >= 5 {
            break;
        }
        let r = to_result(idx, s, fields, cc_format);
        if seen.insert(r.formatted_address.clone()) {
            out.push(r);
        }
    }
    out
}

/// The point of house number `number` on the street of `street`: along an interpolation line
/// of the pack, else between the nearest lower and higher numbers of the street.
fn interpolate(
    idx: &LocalitiesIndex,
    street: &Shown,
    number: &str,
    fields: &[DetailsField],
    cc_format: CcFormat,
) -> Option<GeocodeResult> {
    let n = leading_number(number);
    if n == u64::MAX {
        return None;
    }
    let name = street.item.data.street.clone()?;
    let key = street_key(&name);
    let locality = street.item.data.parents.first().cloned();
    let point = interpolation_line(
        idx,
        street.item.pack,
        &key,
        n,
        (street.item.lat, street.item.lng),
    )
    .or_else(|| {
        // Between numbered neighbours of the same street and locality.
        let mut numbered: Vec<(u64, f64, f64)> = idx
            .by_key(|f| f.street_key, &key, 5_000)
            .into_iter()
            .filter(|it| it.kind == kinds::ADDRESS && it.data.parents.first() == locality.as_ref())
            .filter_map(|it| {
                let v = leading_number(it.data.housenumber.as_deref()?);
                (v != u64::MAX).then_some((v, it.lat, it.lng))
            })
            .collect();
        numbered.sort_by_key(|x| x.0);
        let same_parity = |v: u64| v % 2 == n % 2;
        let lower = numbered
            .iter()
            .rev()
            .find(|x| x.0 < n && same_parity(x.0))?;
        let upper = numbered.iter().find(|x| x.0 > n && same_parity(x.0))?;
        // Neighbours far apart are not one stretch of street.
        if haversine_m(Pt::new(lower.1, lower.2), Pt::new(upper.1, upper.2)) > 1_000.0 {
            return None;
        }
        let t = (n - lower.0) as f64 / (upper.0 - lower.0) as f64;
        Some((
            lower.1 + t * (upper.1 - lower.1),
            lower.2 + t * (upper.2 - lower.2),
        ))
    })?;
    let mut r = to_result(idx, street, fields, cc_format);
    r.types = vec![kinds::ADDRESS.to_string()];
    r.geometry.location = LatLng {
        lat: point.0,
        lng: point.1,
    };
    if r.geometry.accuracy.is_some() {
        r.geometry.accuracy = Some(Accuracy::RangeInterpolated);
        r.geometry.viewport = Some(super::format::viewport_around(point.0, point.1, 75.0));
    }
    r.geometry.shape = None;
    let mut item = street.item.clone();
    item.kind = kinds::ADDRESS.to_string();
    item.data.housenumber = Some(number.to_string());
    let as_address = Shown {
        item,
        parents: street.parents.clone(),
        lang: street.lang.clone(),
    };
    r.formatted_address = as_address.formatted_address();
    if fields.contains(&DetailsField::AddressComponents) {
        r.address_components.insert(
            0,
            AddressComponent {
                long_name: OneOrMany::One(number.to_string()),
                short_name: OneOrMany::One(number.to_string()),
                types: vec!["street_number".into()],
            },
        );
    }
    Some(r)
}

fn interpolation_line(
    idx: &LocalitiesIndex,
    pack: usize,
    key: &str,
    n: u64,
    near: (f64, f64),
) -> Option<(f64, f64)> {
    let conn = idx.sqlite(pack);
    let mut st = conn
        .prepare(
            "SELECT street, interpolation, start_number, end_number, geometry \
             FROM address_interpolations WHERE street IS NOT NULL",
        )
        .ok()?;
    let rows = st
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<i64>>(2)?,
                r.get::<_, Option<i64>>(3)?,
                r.get::<_, String>(4)?,
            ))
        })
        .ok()?;
    let mut best: Option<(f64, Pt)> = None;
    for (street, kind, start, end, geometry) in rows.flatten() {
        let (Some(a), Some(b)) = (start, end) else {
            continue;
        };
        if street_key(&street) != key {
            continue;
        }
        let (lo, hi) = (a.min(b) as u64, a.max(b) as u64);
        let parity_ok = match kind.as_str() {
            "odd" => !n.is_multiple_of(2),
            "even" => n.is_multiple_of(2),
            _ => true,
        };
        if n < lo || n > hi || hi == lo || !parity_ok {
            continue;
        }
        let line = decode_polyline6(&geometry).unwrap_or_default();
        let frac = (n as f64 - a as f64) / (b as f64 - a as f64);
        if let Some(p) = point_along(&line, frac) {
            let d = haversine_m(p, Pt::new(near.0, near.1));
            if best.is_none_or(|b| d < b.0) {
                best = Some((d, p));
            }
        }
    }
    best.map(|(_, p)| (p.lat, p.lng))
}

/// Reverse geocoding: from the most specific answer to the least: the nearest address within
/// [`REVERSE_ADDRESS_M`], the nearest named street within [`REVERSE_STREET_M`], the locality,
/// the admin areas containing the point, the country.
pub fn reverse(
    idx: &LocalitiesIndex,
    lat: f64,
    lng: f64,
    lang: &str,
    fields: &[DetailsField],
    cc_format: CcFormat,
) -> Vec<GeocodeResult> {
    let mut found: Vec<Arc<Item>> = Vec::new();
    if let Some(a) = nearest_address(idx, lat, lng) {
        found.push(a);
    }
    if let Some(s) = nearest_street(idx, lat, lng) {
        found.push(s);
    }
    let locality = found
        .iter()
        .flat_map(|f| f.data.parents.iter())
        .find(|p| p.starts_with("place."))
        .and_then(|id| idx.get(id))
        .filter(|p| kinds::LOCALITIES.contains(&p.kind.as_str()))
        .or_else(|| nearest_locality(idx, lat, lng));
    let admin: Vec<Arc<Item>> = containing_admin(idx, lat, lng);
    if let Some(l) = locality {
        found.push(l);
    }
    found.extend(admin);
    // The country, from the parents of what was found when no pack has its outline.
    if !found.iter().any(|f| f.kind == kinds::COUNTRY)
        && let Some(country) = found
            .iter()
            .flat_map(|f| f.data.parents.iter())
            .find(|p| p.starts_with("place.country-"))
            .and_then(|id| idx.get(id))
    {
        found.push(country);
    }
    let mut seen = std::collections::HashSet::new();
    found
        .into_iter()
        .filter(|it| seen.insert(it.public_id.clone()))
        .map(|it| to_result(idx, &shown(idx, (*it).clone(), lang), fields, cc_format))
        .collect()
}

fn box_around(lat: f64, lng: f64, metres: f64) -> [f64; 4] {
    let (dlat, dlng) = degrees_for(metres, lat);
    [lat - dlat, lat + dlat, lng - dlng, lng + dlng]
}

fn nearest_address(idx: &LocalitiesIndex, lat: f64, lng: f64) -> Option<Arc<Item>> {
    let mut best: Option<(f64, String)> = None;
    for pack in idx.packs_near(lat, lng, REVERSE_ADDRESS_M) {
        let conn = idx.sqlite(pack);
        let b = box_around(lat, lng, REVERSE_ADDRESS_M);
        // The point grid (pack format 5) gives the points of the cells around the box, points
        // at the same position in the order the R-tree of formats 1-4 gave them (the first of
        // equally near addresses wins). Each point's sub-cell bounds its distance: only the
        // points that may be in the box and may beat the nearest point surely in it are read.
        let Ok(points) = crate::packs::grid::points_in(&conn, "addresses_grid", b) else {
            continue;
        };
        let from = Pt::new(lat, lng);
        let beat = points
            .iter()
            .filter(|p| p.surely_in(b))
            .map(|p| p.distance_bounds_m(from).1)
            .fold(
                best.as_ref()
                    .map_or(REVERSE_ADDRESS_M, |b| b.0.min(REVERSE_ADDRESS_M)),
                f64::min,
            );
        let Ok(mut st) = conn
            .prepare_cached("SELECT osm_type, osm_id, lat, lng FROM address_points WHERE id = ?1")
        else {
            continue;
        };
        let rows = points
            .into_iter()
            .filter(|p| p.maybe_in(b) && p.distance_bounds_m(from).0 <= beat)
            .filter_map(|p| {
                st.query_row([p.id], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, f64>(2)?,
                        r.get::<_, f64>(3)?,
                    ))
                })
                .ok()
            });
        for (t, id, alat, alng) in rows {
            // Exactly the points the R-tree of formats 1-4 gave for this box.
            if !crate::packs::grid::rtree_point_hit(alat, alng, b) {
                continue;
            }
            let d = haversine_m(Pt::new(lat, lng), Pt::new(alat, alng));
            if d <= REVERSE_ADDRESS_M && best.as_ref().is_none_or(|b| d < b.0) {
                best = Some((d, osm_public_id("addr", &t, id)));
            }
        }
    }
    best.and_then(|(_, id)| idx.get(&id))
}

fn nearest_street(idx: &LocalitiesIndex, lat: f64, lng: f64) -> Option<Arc<Item>> {
    let mut best: Option<(f64, String)> = None;
    for pack in idx.packs_near(lat, lng, REVERSE_STREET_M) {
        let conn = idx.sqlite(pack);
        let b = box_around(lat, lng, REVERSE_STREET_M);
        let Ok(mut st) = conn.prepare_cached(
            "SELECT e.name, e.geometry FROM road_ways_rtree r \
             JOIN road_edges e ON e.id BETWEEN r.id AND r.last_edge \
             WHERE r.max_lat >= ?1 AND r.min_lat <= ?2 AND r.max_lng >= ?3 AND r.min_lng <= ?4 \
             AND e.name IS NOT NULL",
        ) else {
            continue;
        };
        let Ok(rows) = st.query_map(b, |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
        else {
            continue;
        };
        for (name, geometry) in rows.flatten() {
            let line = decode_polyline6(&geometry).unwrap_or_default();
            if let Some(d) = nearest_on_line(&line, Pt::new(lat, lng)).map(|n| n.distance_m)
                && d <= REVERSE_STREET_M
                && best.as_ref().is_none_or(|b| d < b.0)
            {
                best = Some((d, name));
            }
        }
    }
    let (_, name) = best?;
    // The street document of that name nearest to the point.
    idx.by_key(|f| f.street_key, &street_key(&name), 200)
        .into_iter()
        .filter(|it| it.kind == kinds::ROUTE)
        .min_by(|a, b| street_distance(a, lat, lng).total_cmp(&street_distance(b, lat, lng)))
        .map(Arc::new)
}

fn street_distance(it: &Item, lat: f64, lng: f64) -> f64 {
    match it.data.bbox {
        Some([w, s, e, n]) => {
            let clat = lat.clamp(s, n);
            let clng = lng.clamp(w, e);
            haversine_m(Pt::new(lat, lng), Pt::new(clat, clng))
        }
        None => haversine_m(Pt::new(lat, lng), Pt::new(it.lat, it.lng)),
    }
}

fn nearest_locality(idx: &LocalitiesIndex, lat: f64, lng: f64) -> Option<Arc<Item>> {
    let mut best: Option<(f64, String)> = None;
    for pack in idx.packs_near(lat, lng, REVERSE_LOCALITY_M) {
        let conn = idx.sqlite(pack);
        let b = box_around(lat, lng, REVERSE_LOCALITY_M);
        let Ok(mut st) = conn.prepare_cached(
            "SELECT p.source, p.source_id, p.kind, p.lat, p.lng FROM places p \
             JOIN places_rtree r ON p.id = r.id \
             WHERE r.max_lat >= ?1 AND r.min_lat <= ?2 AND r.max_lng >= ?3 AND r.min_lng <= ?4 \
             AND p.kind IN ('city', 'town', 'village', 'hamlet')",
        ) else {
            continue;
        };
        let Ok(rows) = st.query_map(b, |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, f64>(3)?,
                r.get::<_, f64>(4)?,
            ))
        }) else {
            continue;
        };
        for (source, source_id, kind, plat, plng) in rows.flatten() {
            let reach = match kind.as_str() {
                "city" => 10_000.0,
                "town" => 5_000.0,
                "village" => 2_500.0,
                _ => 1_200.0,
            };
            let w = haversine_m(Pt::new(lat, lng), Pt::new(plat, plng)) / reach;
            let id = if source == "geonames" {
                format!("place.gn-{source_id}")
            } else {
                osm_public_id("place", &source, source_id)
            };
            if w <= 1.5 && best.as_ref().is_none_or(|b| w < b.0) && idx.get(&id).is_some() {
                best = Some((w, id));
            }
        }
    }
    best.and_then(|(_, id)| idx.get(&id))
}

fn containing_admin(idx: &LocalitiesIndex, lat: f64, lng: f64) -> Vec<Arc<Item>> {
    let mut out: Vec<(i64, Arc<Item>)> = Vec::new();
    for pack in 0..idx.packs.len() {
        for a in idx.areas(pack) {
            if a.area.contains(Pt::new(lat, lng))
                && let Some(item) = idx.get(&a.public_id)
            {
                out.push((a.level, item));
            }
        }
    }
    out.sort_by_key(|(level, _)| std::cmp::Reverse(*level));
    out.into_iter().map(|(_, it)| it).collect()
}
