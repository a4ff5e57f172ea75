//! Places layer: `places` (+ R-tree) and `place_names` from OSM.
//!
//! Rules:
//!
//! * **Settlement nodes**: `place=city|town|village|hamlet|borough|suburb|quarter|neighbourhood`
//!   keep their value as `kind`; `place=isolated_dwelling` is mapped to `hamlet` (an inhabited
//!   place smaller than a hamlet); `place=locality` (an uninhabited named spot) and other values
//!   are skipped. Unnamed nodes are skipped (`name` is required). `population` is parsed from
//!   digits (separators ignored).
//! * **Areas**: `boundary=administrative` relations (and closed ways) with an `admin_level`
//!   give kind `admin_level` (`country` for level 2); `boundary=postal_code` gives kind
//!   `postal_code`. An administrative area tagged `postal_code` keeps its admin row (with the
//!   `postal_code` column set) and also gets a `postal_code` row of the same shape. Areas whose
//!   rings do not close (missing member ways or nodes) are skipped and counted in
//!   `places_unclosed`. `shape` is a GeoJSON `Polygon`/`MultiPolygon` (inner rings as holes),
//!   the point is the `label`/`admin_centre` member node when present, else a point inside the
//!   largest outer ring.
//! * `source` is `osm-node`, `osm-way` or `osm-relation`, `source_id` the OSM id.
//! * **Names**: `name` (lang `''`), `int_name`, `official_name`, `alt_name` (lang `''` extra
//!   names), every `name:xx` with a language code `xx` (lang `xx`).
//! * **country_code**: `ISO3166-1:alpha2` / `ISO3166-1` / `country_code` tags, else the prefix
//!   of `ISO3166-2`, else the one of the smallest area of the extract containing the point
//!   that has one (normally the country boundary).
//! * **parent_id**: the smallest admin area (`admin_level`/`country` rows) containing the
//!   point, with a smaller admin level for admin areas (bbox prefilter, then point-in-polygon).

use rusqlite::{Transaction, params};
use waymark_core::geo::{BBox, MultiPolygon, Pt};

use super::models::{OsmData, OsmError, OsmStats, Tags, rtree_insert};

/// Kind of a settlement node, `None` when it is not one we keep.
pub fn node_kind(tags: &Tags) -> Option<&'static str> {
    Some(match tags.get("place")? {
        "city" => "city",
        "town" => "town",
        "village" => "village",
        "hamlet" | "isolated_dwelling" => "hamlet",
        "borough" => "borough",
        "suburb" => "suburb",
        "quarter" => "quarter",
        "neighbourhood" => "neighbourhood",
        _ => return None,
    })
}

/// Whether the tags describe an admin or postal-code boundary we keep.
pub fn is_boundary(tags: &Tags) -> bool {
    match tags.get("boundary") {
        Some("administrative") => tags.has("admin_level"),
        Some("postal_code") => true,
        _ => false,
    }
}

fn country_of(tags: &Tags) -> Option<String> {
    for k in ["ISO3166-1:alpha2", "ISO3166-1", "country_code"] {
        if let Some(v) = tags.get(k)
            && v.len() == 2
            && v.bytes().all(|b| b.is_ascii_alphabetic())
        {
            return Some(v.to_ascii_uppercase());
        }
    }
    let v = tags.get("ISO3166-2")?;
    let (cc, _) = v.split_once('-')?;
    (cc.len() == 2).then(|| cc.to_ascii_uppercase())
}

fn parse_population(v: &str) -> Option<i64> {
    let digits: String = v
        .split([';', '('])
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

struct Row {
    source: &'static str,
    source_id: i64,
    kind: &'static str,
    name: String,
    point: Pt,
    population: Option<i64>,
    admin_level: Option<i64>,
    country_code: Option<String>,
    postal_code: Option<String>,
    area: Option<MultiPolygon>,
    bbox: BBox,
    tags: Tags,
}

impl Row {
    fn is_admin(&self) -> bool {
        self.kind == "admin_level" || self.kind == "country"
    }
}

fn containing<'a>(
    rows: &'a [Row],
    by_size: &'a [(usize, f64)],
    p: Pt,
    skip: usize,
) -> impl Iterator<Item = usize> + 'a {
    by_size
        .iter()
        .map(|(i, _)| *i)
        .filter(move |&i| i != skip)
        .filter(move |&i| {
            rows.get(i).is_some_and(|r| {
                r.bbox.contains(p) && r.area.as_ref().is_some_and(|a| a.contains(p))
            })
        })
}

/// A boundary to write: source, OSM id, tags, closed area, label point.
type AreaInput<'a> = (
    &'static str,
    i64,
    &'a Tags,
    Option<MultiPolygon>,
    Option<Pt>,
);

/// Builds the places layer.
pub fn build(
    data: &OsmData,
    tx: &Transaction<'_>,
    stats: &mut OsmStats,
    progress: &mut dyn FnMut(&str, u64, u64),
) -> Result<(), OsmError> {
    let mut rows: Vec<Row> = Vec::new();

    // areas: relations and closed ways
    let mut areas: Vec<AreaInput<'_>> = Vec::new();
    for rel in &data.relations {
        if is_boundary(&rel.tags) {
            let area = data.relation_area(rel, true);
            let label = rel
                .members
                .iter()
                .find(|m| {
                    m.kind == super::models::MemberKind::Node
                        && (m.role == "label" || m.role == "admin_centre")
                })
                .and_then(|m| data.coords.get(&m.id).copied())
                .filter(|p| area.as_ref().is_some_and(|a| a.contains(*p)));
            areas.push(("osm-relation", rel.id, &rel.tags, area, label));
        }
    }
    for w in data.ways.values() {
        if is_boundary(&w.tags) && w.refs.first() == w.refs.last() {
            areas.push(("osm-way", w.id, &w.tags, data.way_area(w), None));
        }
    }
    for (source, id, tags, area, label) in areas {
        let Some(area) = area else {
            stats.places_unclosed += 1;
            continue;
        };
        let Some(point) = label.or_else(|| area.point_on_surface()) else {
            stats.places_unclosed += 1;
            continue;
        };
        let Some(bbox) = area.bbox() else {
            continue;
        };
        let postal = tags
            .get("postal_code")
            .or_else(|| tags.get("addr:postcode"))
            .map(str::to_owned);
        let admin_level: Option<i64> = tags.get("admin_level").and_then(|v| v.trim().parse().ok());
        let is_postal = tags.is("boundary", "postal_code");
        let mut kinds: Vec<&'static str> = Vec::new();
        if is_postal {
            kinds.push("postal_code");
        } else if let Some(level) = admin_level {
            kinds.push(if level == 2 { "country" } else { "admin_level" });
            if postal.is_some() {
                kinds.push("postal_code");
            }
        }
        for kind in kinds {
            let name = tags.get("name").map(str::to_owned).or_else(|| {
                if kind == "postal_code" {
                    postal.clone()
                } else {
                    None
                }
            });
            let Some(name) = name else { continue };
            rows.push(Row {
                source,
                source_id: id,
                kind,
                name,
                point,
                population: if kind == "postal_code" {
                    None
                } else {
                    tags.get("population").and_then(parse_population)
                },
                admin_level: if kind == "postal_code" {
                    None
                } else {
                    admin_level
                },
                country_code: country_of(tags),
                postal_code: postal.clone(),
                area: Some(area.clone()),
                bbox,
                tags: (*tags).clone(),
            });
        }
    }
    progress("places:areas", 1, 3);

    for n in &data.nodes {
        let Some(kind) = node_kind(&n.tags) else {
            continue;
        };
        let Some(name) = n.tags.get("name") else {
            continue;
        };
        rows.push(Row {
            source: "osm-node",
            source_id: n.id,
            kind,
            name: name.to_owned(),
            point: Pt::new(n.lat, n.lng),
            population: n.tags.get("population").and_then(parse_population),
            admin_level: None,
            country_code: country_of(&n.tags),
            postal_code: n.tags.get("addr:postcode").map(str::to_owned),
            area: None,
            bbox: BBox::point(Pt::new(n.lat, n.lng)),
            tags: n.tags.clone(),
        });
    }

    // containment: areas sorted by area size (smallest first)
    let mut by_size: Vec<(usize, f64)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.area.as_ref().map(|a| (i, a.area())))
        .collect();
    by_size.sort_by(|a, b| a.1.total_cmp(&b.1));
    let mut parents: Vec<Option<usize>> = vec![None; rows.len()];
    let mut countries: Vec<Option<String>> = vec![None; rows.len()];
    for (i, r) in rows.iter().enumerate() {
        let own_level = if r.is_admin() { r.admin_level } else { None };
        parents[i] = containing(&rows, &by_size, r.point, i).find(|&j| {
            rows.get(j).is_some_and(|p| {
                p.is_admin()
                    && p.source_id != r.source_id
                    && match (own_level, p.admin_level) {
                        (Some(a), Some(b)) => b < a,
                        _ => true,
                    }
            })
        });
        countries[i] = r.country_code.clone().or_else(|| {
            containing(&rows, &by_size, r.point, i).find_map(|j| {
                rows.get(j)
                    .filter(|p| p.is_admin())
                    .and_then(|p| p.country_code.clone())
            })
        });
    }
    progress("places:containment", 2, 3);

    let mut ins = tx.prepare(
        "INSERT INTO places(id, source, source_id, kind, name, lat, lng, population, admin_level, \
         country_code, postal_code, parent_id, shape) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?;
    let mut names =
        tx.prepare("INSERT OR IGNORE INTO place_names(place_id, lang, name) VALUES (?1, ?2, ?3)")?;
    let mut rt = tx.prepare(
        "INSERT INTO places_rtree(id, min_lat, max_lat, min_lng, max_lng) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let base: i64 = tx.query_row("SELECT coalesce(max(id), 0) FROM places", [], |r| r.get(0))?;
    for (i, r) in rows.iter().enumerate() {
        let id = base + i as i64 + 1;
        let shape = match &r.area {
            Some(a) => Some(serde_json::to_string(&a.to_geojson())?),
            None => None,
        };
        let parent = parents[i].map(|j| base + j as i64 + 1);
        ins.execute(params![
            id,
            r.source,
            r.source_id,
            r.kind,
            r.name,
            r.point.lat,
            r.point.lng,
            r.population,
            r.admin_level,
            countries[i],
            r.postal_code,
            parent,
            shape,
        ])?;
        stats.places += 1;
        rtree_insert(&mut rt, id, r.bbox)?;
        let mut add = |lang: &str, name: &str| -> rusqlite::Result<()> {
            let n = names.execute(params![id, lang, name])?;
            stats.place_names += n as u64;
            Ok(())
        };
        add("", &r.name)?;
        for k in ["name", "int_name", "official_name", "alt_name"] {
            if let Some(v) = r.tags.get(k) {
                for part in v.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                    add("", part)?;
                }
            }
        }
        for (lang, name) in r.tags.lang_names() {
            add(lang, name)?;
        }
    }
    progress("places", 3, 3);
    Ok(())
}
