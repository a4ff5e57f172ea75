//! The documents of the index, one writer per kind (countries, admin areas and settlements,
//! postal codes, streets, addresses, POIs), and the [`Writer`] that turns them into tantivy
//! documents (names and context tokenized, the stored [`DocData`] as JSON).
use std::collections::{BTreeMap, BTreeSet, HashMap};

use rusqlite::Connection;
use tantivy::TantivyDocument;
use waymark_core::packs::search::{
    self as s, DocData, SearchFields, index_tokens, kinds, osm_public_id, postal_public_id,
    postcode_key, route_public_id, street_key,
};

use super::collect::{Collected, bbox_of, medoid, most_common};
use super::gazetteer::{Gazetteer, parents_of};
use super::{SearchBuildError, SearchStats};

/// The index writer and the count of documents written.
pub(super) struct Writer {
    pub(super) writer: tantivy::IndexWriter,
    pub(super) f: SearchFields,
    pub(super) docs: u64,
}

/// A document to add.
struct NewDoc<'a> {
    public_id: &'a str,
    kind: &'a str,
    types: Vec<String>,
    cc: Option<&'a str>,
    names: Vec<String>,
    context: Vec<String>,
    /// [`s::parent_token`]s, indexed as they are.
    parent_tokens: Vec<String>,
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
        ctx.extend(d.parent_tokens.iter().cloned());
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

/// The countries that get a document: those of the pack's places and addresses (every
/// country without places) that have a point.
pub(super) fn country_docs(g: &Gazetteer, c: &Collected) -> BTreeSet<String> {
    let addr_places = &c.addr_places;
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
    pack_ccs
        .into_iter()
        .filter(|cc| g.countries.get(cc).is_some_and(|c| c.point.is_some()))
        .collect()
}

/// One document per country of [`country_docs`].
pub(super) fn write_countries(
    w: &mut Writer,
    g: &Gazetteer,
    stats: &mut SearchStats,
) -> Result<(), SearchBuildError> {
    for cc in &g.country_docs {
        let Some(country) = g.countries.get(cc) else {
            continue;
        };
        let Some(point) = country.point else { continue };
        let data = DocData {
            names: country.names.clone(),
            bbox: country.bbox,
            shape_row: country.row,
            context_words: country.context_words(),
            ..DocData::default()
        };
        let mut names: Vec<String> = country.names.values().cloned().collect();
        names.push(cc.clone());
        w.add(NewDoc {
            public_id: &format!("place.country-{cc}"),
            kind: kinds::COUNTRY,
            types: vec![kinds::COUNTRY.into()],
            cc: Some(cc),
            names,
            context: vec![],
            parent_tokens: vec![],
            street_key: None,
            postcode_key: None,
            point,
            rank: s::rank(kinds::COUNTRY, None),
            data: &data,
        })?;
        stats.countries += 1;
    }
    Ok(())
}

/// Admin areas and settlements (GeoNames places merged into OSM ones are `dropped`).
pub(super) fn write_places(
    w: &mut Writer,
    g: &Gazetteer,
    dropped: &[bool],
    c: &Collected,
    stats: &mut SearchStats,
) -> Result<(), SearchBuildError> {
    let settlement_codes = &c.settlement_codes;
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
        let parents = parents_of(g, locality, &admin, cc.as_deref());
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
            merged: p.merged.clone(),
            context_words: if p.can_be_parent() {
                p.context_words()
            } else {
                Vec::new()
            },
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
            parent_tokens: parents.tokens,
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
    Ok(())
}

/// One document per country and postal code.
pub(super) fn write_postal_codes(
    w: &mut Writer,
    g: &Gazetteer,
    c: &Collected,
    stats: &mut SearchStats,
) -> Result<(), SearchBuildError> {
    let (postal, postal_rows) = (&c.postal, &c.postal_rows);
    for ((cc, code), acc) in postal {
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
        let parents = parents_of(g, locality, &admin, Some(cc));
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
            parent_tokens: parents.tokens,
            street_key: None,
            postcode_key: Some(postcode_key(cc, code)),
            point,
            rank: s::rank(kinds::POSTAL_CODE, None),
            data: &data,
        })?;
        stats.postal_codes += 1;
    }
    Ok(())
}

/// One document per street key and locality.
pub(super) fn write_streets(
    w: &mut Writer,
    g: &Gazetteer,
    c: &Collected,
    stats: &mut SearchStats,
) -> Result<(), SearchBuildError> {
    for ((cc, key, _), acc) in &c.streets {
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
        let parents = parents_of(g, acc.locality, &admin, acc.cc.as_deref());
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
            parent_tokens: parents.tokens,
            street_key: Some(key.clone()),
            postcode_key: None,
            point,
            rank: s::rank(kinds::ROUTE, None),
            data: &data,
        })?;
        stats.streets += 1;
    }
    Ok(())
}

/// One document per address.
pub(super) fn write_addresses(
    w: &mut Writer,
    g: &Gazetteer,
    c: &Collected,
    stats: &mut SearchStats,
) -> Result<(), SearchBuildError> {
    for (a, (loc, cc)) in c.addresses.iter().zip(&c.addr_places) {
        let admin = g.admin_chain(a.lat, a.lng, None);
        let parents = parents_of(g, *loc, &admin, cc.as_deref());
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
            parent_tokens: parents.tokens,
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
    Ok(())
}

/// One document per point of interest (named or not), with its names in every language.
pub(super) fn write_pois(
    conn: &Connection,
    w: &mut Writer,
    g: &Gazetteer,
    stats: &mut SearchStats,
) -> Result<(), SearchBuildError> {
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
        let parents = parents_of(g, loc, &admin, cc.as_deref());
        let mut names_map = BTreeMap::new();
        if let Some(n) = &name {
            names_map.insert(String::new(), n.clone());
        }
        for (lang, n) in poi_names.remove(&id).unwrap_or_default() {
            names_map.entry(lang).or_insert(n);
        }
        let types: Vec<String> = types.split('|').map(str::to_string).collect();
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
            parent_tokens: parents.tokens,
            street_key: None,
            postcode_key: None,
            point: (lat, lng),
            rank,
            data: &data,
        })?;
        stats.pois += 1;
    }
    Ok(())
}
