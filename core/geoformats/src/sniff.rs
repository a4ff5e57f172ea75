//! Telling the format of a downloaded file.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::csvfmt::{geometry_columns, header_names};
use crate::{Format, FormatError};

/// How much of the file is looked at.
const HEAD: usize = 1 << 20;

/// Decides the format from the first bytes of the file, falling back to `name_hint` (the
/// URL's file name or extension) and then `content_type`.
///
/// By content: an SQLite header is a GeoPackage; a zip archive (`PK\x03\x04`) or a
/// Shapefile main-file header is a Shapefile; after an optional BOM and whitespace, an RS
/// (0x1E) or a first line that is a whole JSON object followed by more object lines is a
/// GeoJSON sequence, other text starting with `{` is GeoJSON; text whose first line is a
/// header with lat/lng or WKT columns (delimiter `,` `;` tab or `|`) is CSV. Otherwise the
/// extension (.geojson .json .ndjson .geojsonl .geojsons .jsonl .csv .tsv .txt .gpkg .zip
/// .shp) decides, then the content type (application/geo+json, application/json,
/// application/geo+json-seq, application/x-ndjson, text/csv, text/tab-separated-values,
/// application/geopackage+sqlite3, application/zip). An empty file, or nothing fitting, is
/// [`FormatError::Unrecognised`].
pub fn sniff(
    path: &Path,
    name_hint: Option<&str>,
    content_type: Option<&str>,
) -> Result<Format, FormatError> {
    let mut head = Vec::with_capacity(8192);
    File::open(path)?.take(HEAD as u64).read_to_end(&mut head)?;
    if head.is_empty() {
        return Err(FormatError::Unrecognised("the file is empty".to_owned()));
    }
    if let Some(f) = by_content(&head) {
        return Ok(f);
    }
    if let Some(f) = name_hint.and_then(by_name) {
        return Ok(f);
    }
    if let Some(f) = content_type.and_then(by_content_type) {
        return Ok(f);
    }
    let shown: String = String::from_utf8_lossy(&head[..head.len().min(24)])
        .chars()
        .map(|c| if c.is_control() { '·' } else { c })
        .collect();
    Err(FormatError::Unrecognised(format!(
        "the file starts with {shown:?}{}{}",
        name_hint.map_or(String::new(), |n| format!(", name {n:?}")),
        content_type.map_or(String::new(), |c| format!(", content type {c:?}"))
    )))
}

fn by_content(head: &[u8]) -> Option<Format> {
    if head.starts_with(b"SQLite format 3\0") {
        return Some(Format::GeoPackage);
    }
    if head.starts_with(b"PK\x03\x04") || head.starts_with(&[0x00, 0x00, 0x27, 0x0A]) {
        return Some(Format::Shapefile);
    }
    let text = head
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(head);
    let start = text.iter().position(|c| !c.is_ascii_whitespace())?;
    let text = &text[start..];
    match text[0] {
        0x1E => return Some(Format::GeoJsonSeq),
        b'{' => return Some(json_kind(text)),
        _ => {}
    }
    let line_end = text.iter().position(|c| *c == b'\n').unwrap_or(text.len());
    let names = header_names(&text[..line_end])?;
    geometry_columns(&names).map(|_| Format::Csv)
}

/// One JSON document, or one object per line?
fn json_kind(text: &[u8]) -> Format {
    let mut lines = text
        .split(|c| *c == b'\n')
        .map(|l| l.trim_ascii())
        .filter(|l| !l.is_empty());
    let Some(first) = lines.next() else {
        return Format::GeoJson;
    };
    match serde_json::from_slice::<serde_json::Value>(first) {
        Ok(serde_json::Value::Object(o)) => {
            let is_fc = o.get("type").and_then(|t| t.as_str()) == Some("FeatureCollection");
            let more_objects = lines
                .next()
                .is_some_and(|l| l.starts_with(b"{") || l.starts_with(&[0x1E]));
            if !is_fc && more_objects {
                Format::GeoJsonSeq
            } else {
                Format::GeoJson
            }
        }
        _ => Format::GeoJson,
    }
}

fn by_name(name: &str) -> Option<Format> {
    let name = name.split(['?', '#']).next().unwrap_or(name);
    let name = name.rsplit('/').next().unwrap_or(name);
    let ext = name.rsplit_once('.').map_or(name, |(_, e)| e);
    Some(match ext.to_ascii_lowercase().as_str() {
        "geojson" | "json" => Format::GeoJson,
        "ndjson" | "geojsonl" | "geojsons" | "geojsonseq" | "jsonl" | "ldjson" => {
            Format::GeoJsonSeq
        }
        "csv" | "tsv" | "txt" => Format::Csv,
        "gpkg" => Format::GeoPackage,
        "zip" | "shp" => Format::Shapefile,
        _ => return None,
    })
}

fn by_content_type(ct: &str) -> Option<Format> {
    let ct = ct
        .split(';')
        .next()
        .unwrap_or(ct)
        .trim()
        .to_ascii_lowercase();
    Some(match ct.as_str() {
        "application/geo+json" | "application/vnd.geo+json" | "application/json" => Format::GeoJson,
        "application/geo+json-seq"
        | "application/json-seq"
        | "application/x-ndjson"
        | "application/ndjson"
        | "application/jsonl" => Format::GeoJsonSeq,
        "text/csv" | "text/tab-separated-values" | "application/csv" => Format::Csv,
        "application/geopackage+sqlite3" | "application/x-sqlite3" | "application/vnd.sqlite3" => {
            Format::GeoPackage
        }
        "application/zip" | "application/x-zip-compressed" | "application/x-shapefile" => {
            Format::Shapefile
        }
        _ => return None,
    })
}
