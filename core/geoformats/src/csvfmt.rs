//! CSV / TSV with a header row and lat/lng or WKT geometry columns.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde_json::{Map, Value};

use crate::text::{parse_wkt, point};
use crate::{FormatError, Output};

const LAT: [&str; 3] = ["lat", "latitude", "y"];
const LNG: [&str; 5] = ["lng", "lon", "long", "longitude", "x"];
const WKT: [&str; 4] = ["wkt", "geometry", "geom", "the_geom"];

/// Picks the delimiter among `,` `;` `\t` `|`: the one occurring most often (outside double
/// quotes) in the header line, `,` on a tie. When none occurs the file has a single column
/// (say `wkt`), whose unquoted values may hold commas: the ASCII unit separator (0x1F) is
/// used then, so that rows are not split.
pub(crate) fn sniff_delimiter(header: &[u8]) -> u8 {
    let mut counts = [0usize; 4];
    let cands = [b',', b';', b'\t', b'|'];
    let mut quoted = false;
    for &c in header {
        if c == b'"' {
            quoted = !quoted;
        } else if !quoted && let Some(i) = cands.iter().position(|d| *d == c) {
            counts[i] += 1;
        }
    }
    if counts.iter().all(|c| *c == 0) {
        return 0x1F;
    }
    let mut best = 0;
    for i in 1..4 {
        if counts[i] > counts[best] {
            best = i;
        }
    }
    cands[best]
}

/// The geometry columns found in a header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GeomCols {
    /// Latitude and longitude column indexes.
    LatLng(usize, usize),
    /// A WKT column index.
    Wkt(usize),
}

/// Finds the geometry columns (names compared case-insensitively, trimmed). Lat/lng win over
/// a WKT column when both are present.
pub(crate) fn geometry_columns(names: &[String]) -> Option<GeomCols> {
    let find = |set: &[&str]| {
        set.iter().find_map(|want| {
            names
                .iter()
                .position(|n| n.trim().eq_ignore_ascii_case(want))
        })
    };
    match (find(&LAT), find(&LNG), find(&WKT)) {
        (Some(la), Some(lo), _) => Some(GeomCols::LatLng(la, lo)),
        (_, _, Some(w)) => Some(GeomCols::Wkt(w)),
        _ => None,
    }
}

/// Parses a header line as the CSV reader would (for sniffing).
pub(crate) fn header_names(line: &[u8]) -> Option<Vec<String>> {
    let line = line
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .unwrap_or(line);
    let delim = sniff_delimiter(line);
    let mut r = csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(false)
        .flexible(true)
        .from_reader(line);
    let mut rec = csv::StringRecord::new();
    match r.read_record(&mut rec) {
        Ok(true) => Some(rec.iter().map(str::to_owned).collect()),
        _ => None,
    }
}

/// A CSV cell as a JSON value: integers and floats as numbers, true/false as booleans,
/// empty as null, the rest (including numbers with leading zeros, like ZIP codes) as
/// strings.
pub(crate) fn typed(cell: &str) -> Value {
    let t = cell.trim();
    if t.is_empty() {
        return Value::Null;
    }
    if t.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if t.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    let digits = t.strip_prefix('-').unwrap_or(t);
    let leading_zero = digits.len() > 1 && digits.starts_with('0') && !digits.starts_with("0.");
    let numeric = !digits.is_empty()
        && digits.as_bytes()[0].is_ascii_digit()
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'));
    let integer = digits.bytes().all(|c| c.is_ascii_digit());
    if numeric && !leading_zero {
        if let Ok(i) = t.parse::<i64>() {
            return Value::from(i);
        }
        if integer {
            // Too long for an i64 (a 20-digit parcel number): a float would mangle it.
            return Value::String(cell.to_owned());
        }
        if let Ok(f) = t.parse::<f64>()
            && let Some(n) = serde_json::Number::from_f64(f)
        {
            return Value::Number(n);
        }
    }
    Value::String(cell.to_owned())
}

/// A coordinate cell. With a delimiter other than `,`, a decimal comma (`48,85`, as
/// spreadsheets write in many locales) is accepted too.
fn number(cell: &str, column: &str, delim: u8) -> Result<f64, String> {
    let t = cell.trim();
    if t.is_empty() {
        return Err(format!("column {column:?} is empty"));
    }
    let parsed = t.parse::<f64>().ok().or_else(|| {
        (delim != b',' && t.matches(',').count() == 1 && !t.contains('.'))
            .then(|| t.replace(',', ".").parse::<f64>().ok())
            .flatten()
    });
    match parsed {
        Some(v) if v.is_finite() => Ok(v),
        _ => Err(format!("column {column:?}: {t:?} is not a number")),
    }
}

/// Reads the CSV row by row. The geometry column holds WKT (or a GeoJSON geometry object,
/// as some exports write it). `index` is the data row number (1 = first row after the
/// header; a quoted cell spanning lines still counts as one row). The id comes from a column
/// named `id` (any case), which also stays among the attributes.
pub(crate) fn read(path: &Path, out: &mut Output<'_>) -> Result<(), FormatError> {
    let mut file = BufReader::with_capacity(1 << 16, File::open(path)?);
    // Skip a UTF-8 BOM, then look at the header line to pick the delimiter.
    let head = file.fill_buf()?;
    if head.starts_with(b"\xEF\xBB\xBF") {
        file.consume(3);
    }
    let head = file.fill_buf()?;
    let first_line_end = head.iter().position(|c| *c == b'\n').unwrap_or(head.len());
    let delim = sniff_delimiter(&head[..first_line_end]);
    let mut r = csv::ReaderBuilder::new()
        .delimiter(delim)
        .has_headers(false)
        .flexible(true)
        .from_reader(file.by_ref());

    let mut rec = csv::ByteRecord::new();
    let has_header = r
        .read_byte_record(&mut rec)
        .map_err(|e| csv_error(&e, "the header row"))?;
    if !has_header {
        return Err(FormatError::Invalid(
            "the CSV file is empty: it needs a header row naming the columns (e.g. name,lat,lng)"
                .to_owned(),
        ));
    }
    let mut names = Vec::with_capacity(rec.len());
    for (i, f) in rec.iter().enumerate() {
        let name = std::str::from_utf8(f).map_err(|_| {
            FormatError::Invalid(format!(
                "the CSV header (column {}) is not UTF-8 text; save the file as UTF-8",
                i + 1
            ))
        })?;
        let name = name.trim();
        names.push(if name.is_empty() {
            format!("column_{}", i + 1)
        } else {
            name.to_owned()
        });
    }
    let Some(geom) = geometry_columns(&names) else {
        let shown: Vec<&str> = names.iter().take(20).map(String::as_str).collect();
        return Err(FormatError::Invalid(format!(
            "no geometry column in the CSV header: add lat and lng columns (also accepted: latitude/y and lng/lon/long/longitude/x) or a WKT column (wkt, geometry, geom, the_geom); the header has: {}",
            shown.join(", ")
        )));
    };
    let id_col = names.iter().position(|n| n.eq_ignore_ascii_case("id"));
    let geom_idx: Vec<usize> = match geom {
        GeomCols::LatLng(a, b) => vec![a, b],
        GeomCols::Wkt(w) => vec![w],
    };

    let mut index = 0u64;
    loop {
        match r.read_byte_record(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return Err(csv_error(&e, "a row")),
        }
        index += 1;
        if rec.len() == 1
            && rec
                .get(0)
                .is_some_and(|f| f.iter().all(u8::is_ascii_whitespace))
        {
            // A blank line: nothing to import, not worth a skip message.
            index -= 1;
            continue;
        }
        let mut cells = Vec::with_capacity(rec.len());
        let mut bad_utf8 = None;
        for (i, f) in rec.iter().enumerate() {
            match std::str::from_utf8(f) {
                Ok(s) => cells.push(s),
                Err(_) => {
                    bad_utf8 = Some(i);
                    break;
                }
            }
        }
        if let Some(i) = bad_utf8 {
            let name = names.get(i).map_or("?", String::as_str);
            out.skip(
                index,
                format!("column {name:?} is not UTF-8 text; save the file as UTF-8"),
            )
            .map_err(FormatError::Stopped)?;
            continue;
        }
        let cell = |i: usize| cells.get(i).copied().unwrap_or("");
        let geometry = match geom {
            GeomCols::LatLng(la, lo) => number(cell(la), &names[la], delim)
                .and_then(|lat| number(cell(lo), &names[lo], delim).map(|lng| point(lng, lat))),
            GeomCols::Wkt(w) => {
                let v = cell(w);
                let shown = || v.chars().take(60).collect::<String>();
                if v.trim().is_empty() {
                    Err(format!("column {:?} is empty", names[w]))
                } else if v.trim_start().starts_with('{') {
                    // Some exports put a GeoJSON geometry object in the geometry column.
                    match serde_json::from_str::<Value>(v) {
                        Ok(Value::Object(o)) => crate::parse_geojson_geometry(&o),
                        _ => Err("not a JSON object".to_owned()),
                    }
                    .map_err(|e| {
                        format!(
                            "column {:?}: {:?} is not a valid GeoJSON geometry: {e}",
                            names[w],
                            shown()
                        )
                    })
                } else {
                    parse_wkt(v).map_err(|e| {
                        format!("column {:?}: {:?} is not valid WKT: {e}", names[w], shown())
                    })
                }
            }
        };
        let geometry = match geometry {
            Ok(g) => g,
            Err(reason) => {
                out.skip(index, reason).map_err(FormatError::Stopped)?;
                continue;
            }
        };
        let mut attributes = Map::new();
        for (i, name) in names.iter().enumerate() {
            if !geom_idx.contains(&i) {
                attributes.insert(name.clone(), typed(cell(i)));
            }
        }
        let source_id = id_col
            .map(cell)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        out.feature(index, source_id, geometry, attributes)
            .map_err(FormatError::Stopped)?;
    }
    Ok(())
}

fn csv_error(e: &csv::Error, what: &str) -> FormatError {
    match e.kind() {
        csv::ErrorKind::Io(io) => FormatError::Invalid(format!("could not read the file: {io}")),
        _ => {
            let at = e.position().map_or(String::new(), |p| {
                format!(" at line {} (byte {})", p.line(), p.byte())
            });
            FormatError::Invalid(format!("could not read {what} of the CSV{at}: {e}"))
        }
    }
}
