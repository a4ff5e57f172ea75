//! What a built pack holds: bytes per layer, per file and per MB of source extract, row
//! counts and attribution (`waymark-packs inspect`).
use std::path::Path;

use rusqlite::Connection;

use waymark_core::packs::schema::layers;

use crate::build::read_manifest;
use crate::error::BuildError;

/// The layer a table or index of the schema belongs to.
fn layer_of(object: &str) -> &'static str {
    let name = object.strip_prefix("sqlite_autoindex_").unwrap_or(object);
    const PREFIXES: &[(&str, &str)] = &[
        ("road_", layers::ROADS),
        ("turn_restrictions", layers::ROADS),
        ("toll_booths", layers::ROADS),
        ("place", layers::PLACES),
        ("countr", layers::PLACES),
        ("address", layers::ADDRESSES),
        ("poi", layers::POIS),
        ("indoor_", layers::INDOOR),
        ("ip_", layers::IP),
        ("timezones", layers::TIMEZONES),
        ("store", layers::STORES),
        ("zones", layers::ZONES),
        ("dataset", layers::DATASETS),
    ];
    PREFIXES
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map_or("other", |(_, layer)| layer)
}

/// Bytes used by each layer in `data.sqlite` (tables, indexes and R-trees), from `dbstat`.
pub fn layer_sizes(conn: &Connection) -> rusqlite::Result<Vec<(String, u64)>> {
    let mut stmt = conn.prepare("SELECT name, sum(pgsize) FROM dbstat GROUP BY name")?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
    let mut sizes: std::collections::BTreeMap<&'static str, u64> =
        std::collections::BTreeMap::new();
    for row in rows {
        let (name, bytes) = row?;
        *sizes.entry(layer_of(&name)).or_default() += bytes.max(0) as u64;
    }
    Ok(sizes.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// Bytes of a pack by layer and by file, and per MB of its source extract (issue 24).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SizeReport {
    /// Pack id.
    pub id: String,
    /// Pack version.
    pub version: String,
    /// Sum of the manifest's file sizes.
    pub total: u64,
    /// Bytes per file, as listed in the manifest.
    pub files: Vec<(String, u64)>,
    /// Bytes per layer: `data.sqlite` split by `dbstat` (tables, indexes, R-trees of each
    /// layer; `sqlite:other` for meta and toll tables, `sqlite:free` for free pages), other
    /// files by their directory (`routing/` is `routing`, `search/` is `search`).
    pub layers: Vec<(String, u64)>,
    /// Bytes from inputs other than the OSM extract, included in `layers`: `ip` (DB-IP),
    /// `timezones` (tzf), `gazetteer` (GeoNames places: their share of the places rows of the
    /// places layer, an estimate).
    pub other_sources: Vec<(String, u64)>,
    /// Size of the OSM extract the pack was built from, when known.
    pub extract: Option<u64>,
    /// `total` per MB (10^6 bytes) of extract.
    pub bytes_per_extract_mb: Option<f64>,
    /// `total` minus `other_sources`, per MB of extract.
    pub osm_bytes_per_extract_mb: Option<f64>,
    /// Bytes of the search index by part and field (`postings:context`, `terms:names`,
    /// `fast:lat`, `store`, ...), summed over its segments, largest first; empty without an
    /// index.
    pub search_parts: Vec<(String, u64)>,
}

/// [`SizeReport::search_parts`] of the index in `dir` (tantivy's own space accounting).
fn search_parts(dir: &Path) -> Vec<(String, u64)> {
    use waymark_core::packs::search;
    let Ok((index, _)) = search::open_index(dir) else {
        return Vec::new();
    };
    let Ok(usage) = index.reader().and_then(|r| {
        r.searcher()
            .space_usage()
            .map_err(tantivy::TantivyError::from)
    }) else {
        return Vec::new();
    };
    let mut parts: std::collections::BTreeMap<String, u64> = Default::default();
    for seg in usage.segments() {
        for (part, per_field) in [
            ("terms", seg.termdict()),
            ("postings", seg.postings()),
            ("positions", seg.positions()),
            ("fast", seg.fast_fields()),
            ("norms", seg.fieldnorms()),
        ] {
            for f in per_field.fields() {
                *parts
                    .entry(format!("{part}:{}", f.field_name()))
                    .or_default() += f.total().get_bytes();
            }
        }
        *parts.entry("store".into()).or_default() += seg.store().total().get_bytes();
    }
    let mut out: Vec<(String, u64)> = parts.into_iter().filter(|(_, b)| *b > 0).collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Measures the pack in `dir` ([`SizeReport`]); `extract` is the size of its OSM extract.
pub fn size_report(dir: &Path, extract: Option<u64>) -> Result<SizeReport, BuildError> {
    let m = read_manifest(dir)?;
    let mut layers_map: std::collections::BTreeMap<String, u64> = Default::default();
    let mut other = Vec::new();
    for f in &m.files {
        if f.path == "data.sqlite" {
            let conn = Connection::open_with_flags(
                dir.join(&f.path),
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            )?;
            let mut used = 0;
            for (layer, bytes) in layer_sizes(&conn)? {
                used += bytes;
                let name = if layer == "other" {
                    "sqlite:other".to_string()
                } else {
                    layer
                };
                *layers_map.entry(name).or_default() += bytes;
            }
            *layers_map.entry("sqlite:free".into()).or_default() += f.size.saturating_sub(used);
            for (layer, label) in [(layers::IP, "ip"), (layers::TIMEZONES, "timezones")] {
                let bytes = layers_map.get(layer).copied().unwrap_or(0);
                if bytes > 0 {
                    other.push((label.to_string(), bytes));
                }
            }
            let (geonames, all): (i64, i64) = conn.query_row(
                "SELECT count(*) FILTER (WHERE source = 'geonames'), count(*) FROM places",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let places = layers_map.get(layers::PLACES).copied().unwrap_or(0);
            if geonames > 0 && all > 0 {
                other.push((
                    "gazetteer".to_string(),
                    (places as f64 * geonames as f64 / all as f64).round() as u64,
                ));
            }
        } else {
            let layer = match f.path.split_once('/') {
                Some(("routing", _)) => layers::ROUTING.to_string(),
                Some(("search", _)) => layers::SEARCH.to_string(),
                Some((dir, _)) => dir.to_string(),
                None => format!("file:{}", f.path),
            };
            *layers_map.entry(layer).or_default() += f.size;
        }
    }
    let total: u64 = m.files.iter().map(|f| f.size).sum();
    let other_total: u64 = other.iter().map(|(_, b)| b).sum();
    let per_mb = |bytes: u64| extract.map(|e| bytes as f64 / (e as f64 / 1e6));
    Ok(SizeReport {
        id: m.id.clone(),
        version: m.version.clone(),
        total,
        files: m.files.iter().map(|f| (f.path.clone(), f.size)).collect(),
        layers: layers_map.into_iter().collect(),
        other_sources: other,
        extract,
        bytes_per_extract_mb: per_mb(total),
        osm_bytes_per_extract_mb: per_mb(total.saturating_sub(other_total)),
        search_parts: search_parts(&dir.join(waymark_core::packs::search::SEARCH_DIR)),
    })
}

/// The size report as text (the `sizes` part of `waymark-packs inspect`).
pub fn size_report_text(r: &SizeReport) -> String {
    let mut out = format!("sizes of {} {}: {} bytes\n", r.id, r.version, r.total);
    out.push_str("  by layer:\n");
    for (layer, bytes) in &r.layers {
        out.push_str(&format!(
            "    {layer:<24} {bytes:>12} bytes  {:>5.1}%\n",
            *bytes as f64 * 100.0 / r.total.max(1) as f64
        ));
    }
    out.push_str("  by file:\n");
    for (file, bytes) in &r.files {
        out.push_str(&format!("    {file:<40} {bytes:>12} bytes\n"));
    }
    if !r.search_parts.is_empty() {
        out.push_str("  search index by part and field:\n");
        for (part, bytes) in &r.search_parts {
            out.push_str(&format!("    {part:<40} {bytes:>12} bytes\n"));
        }
    }
    if !r.other_sources.is_empty() {
        out.push_str("  from inputs other than the OSM extract (included above):\n");
        for (what, bytes) in &r.other_sources {
            out.push_str(&format!("    {what:<24} {bytes:>12} bytes\n"));
        }
    }
    if let (Some(e), Some(per), Some(osm)) = (
        r.extract,
        r.bytes_per_extract_mb,
        r.osm_bytes_per_extract_mb,
    ) {
        out.push_str(&format!(
            "  source extract {e} bytes: {per:.0} pack bytes per MB of extract ({:.2}x); without the other inputs {osm:.0} ({:.2}x)\n",
            per / 1e6,
            osm / 1e6
        ));
    }
    out
}

/// A human report: layers, files and sizes, row counts, attribution.
pub fn inspect_pack(dir: &Path) -> Result<String, BuildError> {
    let m = read_manifest(dir)?;
    let mut out = format!(
        "pack {} version {} (format {}), built {}\nlayers: {}\ncoverage: {:?}\nsigned: {}\n",
        m.id,
        m.version,
        m.format_version,
        m.built_at,
        m.layers.join(", "),
        m.coverage.bbox,
        m.signature.as_ref().map_or("no".to_string(), |s| format!(
            "by publisher {}",
            s.publisher
        )),
    );
    out.push_str("files:\n");
    for f in &m.files {
        out.push_str(&format!(
            "  {:<24} {:>12} bytes  {}\n",
            f.path,
            f.size,
            &f.sha256[..16]
        ));
    }
    let db = dir.join("data.sqlite");
    if db.exists() {
        let conn = Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        out.push_str("rows:\n");
        for table in [
            "road_nodes",
            "road_edges",
            "turn_restrictions",
            "toll_booths",
            "places",
            "place_names",
            "countries",
            "addresses",
            "address_interpolations",
            "pois",
            "indoor_venues",
            "indoor_features",
            "ip_ranges",
            "timezones",
        ] {
            let n: i64 =
                conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?;
            if n > 0 {
                out.push_str(&format!("  {table:<24} {n:>10}\n"));
            }
        }
        out.push_str("layer sizes in data.sqlite:\n");
        for (layer, bytes) in layer_sizes(&conn)? {
            out.push_str(&format!("  {layer:<24} {bytes:>10} bytes\n"));
        }
    }
    out.push_str("sources:\n");
    for s in &m.sources {
        out.push_str(&format!("  {} ({}): {}\n", s.id, s.licence, s.attribution));
    }
    Ok(out)
}
