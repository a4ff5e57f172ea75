//! Addresses layer: `address_points` with their shared `address_parts` (read through the
//! view `addresses`), its R-tree, and `address_interpolations`.
//!
//! Rules:
//!
//! * Every node, way and multipolygon relation with `addr:housenumber` is one address;
//!   ways and relations sit at a point inside their area (the middle vertex of an open way).
//!   Columns come from the element's own `addr:street`, `addr:place`, `addr:postcode`,
//!   `addr:city`, `addr:country` (upper-cased) tags; nothing is guessed from surroundings.
//!   Elements whose nodes are all missing from the extract are skipped.
//! * Every way with `addr:interpolation` is one interpolation line (`geometry` polyline6 of
//!   its present nodes, at least two). `start_number`/`end_number` are the leading digits of
//!   the `addr:housenumber` of its first/last node when those carry one. `street`,
//!   `postcode`, `city` come from the way's own tags, else from its end address nodes (which
//!   belong to the interpolation), never from anything else.

use std::collections::HashMap;

use rusqlite::{Transaction, params};
use waymark_core::geo::{Pt, encode_polyline6};

use super::models::{Interner, OsmData, OsmError, OsmNode, OsmStats, Tags};

fn leading_number(v: &str) -> Option<i64> {
    let d: String = v
        .trim()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    d.parse().ok()
}

/// Builds the addresses layer.
pub fn build(
    data: &OsmData,
    tx: &Transaction<'_>,
    stats: &mut OsmStats,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<(), OsmError> {
    let mut ins = tx.prepare(
        "INSERT INTO address_points(id, osm_type, osm_id, housenumber, parts, lat, lng) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    let mut ins_parts = tx.prepare(
        "INSERT INTO address_parts(id, street, place, postcode, city, country_code) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let after: i64 = tx.query_row("SELECT coalesce(max(id), 0) FROM address_parts", [], |r| {
        r.get(0)
    })?;
    let mut parts: Interner<[Option<String>; 5]> = Interner::new(after);
    let mut id: i64 = tx.query_row("SELECT coalesce(max(id), 0) FROM address_points", [], |r| {
        r.get(0)
    })?;
    let mut write = |osm_type: &str, osm_id: i64, tags: &Tags, p: Pt| -> Result<(), OsmError> {
        let Some(hn) = tags.get("addr:housenumber") else {
            return Ok(());
        };
        id += 1;
        let key = [
            tags.get("addr:street").map(str::to_string),
            tags.get("addr:place").map(str::to_string),
            tags.get("addr:postcode").map(str::to_string),
            tags.get("addr:city").map(str::to_string),
            tags.get("addr:country").map(str::to_ascii_uppercase),
        ];
        let part = parts.id(&key, |pid, [street, place, postcode, city, cc]| {
            ins_parts
                .execute(params![pid, street, place, postcode, city, cc])
                .map(|_| ())
        })?;
        ins.execute(params![id, osm_type, osm_id, hn, part, p.lat, p.lng])?;
        stats.addresses += 1;
        Ok(())
    };
    for n in &data.nodes {
        if n.tags.has("addr:housenumber") {
            write("node", n.id, &n.tags, Pt::new(n.lat, n.lng))?;
        }
    }
    for w in data.ways.values() {
        if w.tags.has("addr:housenumber")
            && let Some(p) = data.way_point(w)
        {
            write("way", w.id, &w.tags, p)?;
        }
    }
    for r in &data.relations {
        if r.tags.has("addr:housenumber")
            && r.tags.is("type", "multipolygon")
            && let Some(p) = data.relation_point(r)
        {
            write("relation", r.id, &r.tags, p)?;
        }
    }
    waymark_core::packs::grid::rebuild(tx, "addresses_grid", "address_points")?;
    progress("addresses:points", 1, 2);

    let addr_nodes: HashMap<i64, &OsmNode> = data
        .nodes
        .iter()
        .filter(|n| n.tags.has("addr:housenumber"))
        .map(|n| (n.id, n))
        .collect();
    let mut ins = tx.prepare(
        "INSERT INTO address_interpolations(osm_id, interpolation, street, postcode, city, \
         start_number, end_number, geometry) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for w in data.ways.values() {
        let Some(kind) = w.tags.get("addr:interpolation") else {
            continue;
        };
        let pts = data.way_coords(&w.refs);
        if pts.len() < 2 {
            continue;
        }
        let first = w.refs.first().and_then(|r| addr_nodes.get(r));
        let last = w.refs.last().and_then(|r| addr_nodes.get(r));
        let pick = |k: &str| -> Option<&str> {
            w.tags
                .get(k)
                .or_else(|| first.and_then(|n| n.tags.get(k)))
                .or_else(|| last.and_then(|n| n.tags.get(k)))
        };
        let num = |n: Option<&&OsmNode>| {
            n.and_then(|n| n.tags.get("addr:housenumber"))
                .and_then(leading_number)
        };
        ins.execute(params![
            w.id,
            kind,
            pick("addr:street"),
            pick("addr:postcode"),
            pick("addr:city"),
            num(first),
            num(last),
            encode_polyline6(&pts).map_err(|why| OsmError::Geometry { way: w.id, why })?,
        ])?;
        stats.address_interpolations += 1;
    }
    progress("addresses", 2, 2);
    Ok(())
}
