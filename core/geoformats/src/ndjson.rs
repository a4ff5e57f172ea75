//! GeoJSON text sequences (RFC 8142) and newline-delimited GeoJSON: one Feature (or bare
//! geometry) per line; records may start with the RS character (0x1E).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::Value;

use crate::geojson::{Parsed, emit_parsed, parse_feature};
use crate::{FormatError, Output, Record};

/// How many leading malformed lines make the file "not this format".
const PROBE_LINES: usize = 5;

/// Reads the sequence record by record: line by line, or, when the file starts with an RS
/// (0x1E, RFC 7464 / 8142), split on RS so that a record may span lines. A malformed record
/// (not JSON, not a Feature) is a `Skipped` record, unless the first 5 non-blank records are
/// all malformed (or all the file has, if it is shorter): then the file is not a GeoJSON
/// sequence and this is an error. `index` is the physical 1-based line number on which the
/// record starts.
pub(crate) fn read(path: &Path, out: &mut Output<'_>) -> Result<(), FormatError> {
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path)?);
    let rs_mode = {
        let head = reader.fill_buf()?;
        let head = head
            .strip_prefix(b"\xEF\xBB\xBF".as_slice())
            .unwrap_or(head);
        head.iter().find(|c| !c.is_ascii_whitespace()) == Some(&0x1E)
    };
    let sep = if rs_mode { 0x1E } else { b'\n' };
    let mut buf = Vec::new();
    // The line on which the next chunk starts.
    let mut line = 1u64;
    // Leading malformed records, held back until we know the file is a sequence at all.
    let mut pending: Vec<(u64, String)> = Vec::new();
    let mut probing = true;
    loop {
        buf.clear();
        let n = reader.read_until(sep, &mut buf)?;
        if n == 0 {
            break;
        }
        let content_at = buf
            .iter()
            .position(|c| !(c.is_ascii_whitespace() || *c == 0x1E))
            .unwrap_or(buf.len());
        let line_no = line + newlines(&buf[..content_at]);
        line += newlines(&buf);
        let text = trim(&buf);
        if text.is_empty() {
            continue;
        }
        let parsed = match serde_json::from_slice::<Value>(text) {
            Ok(Value::Object(o)) => match parse_feature(&o) {
                Parsed::NotFeature(r) => Err(format!("not a GeoJSON Feature: {r}")),
                p => Ok(p),
            },
            Ok(_) => Err("not a GeoJSON Feature: the record is not a JSON object".to_owned()),
            Err(e) => Err(format!(
                "the record is not valid JSON ({}): {}",
                if e.line() == 1 {
                    format!("column {}", e.column())
                } else {
                    format!("line {} column {} of the record", e.line(), e.column())
                },
                strip_position(&e.to_string())
            )),
        };
        match parsed {
            Err(reason) if probing => {
                pending.push((line_no, reason));
                if pending.len() >= PROBE_LINES {
                    return Err(not_a_sequence(&pending));
                }
            }
            Err(reason) => out.skip(line_no, reason).map_err(FormatError::Stopped)?,
            Ok(p) => {
                if probing {
                    probing = false;
                    for (i, reason) in pending.drain(..) {
                        out.emit(Record::Skipped { index: i, reason })
                            .map_err(FormatError::Stopped)?;
                    }
                }
                emit_parsed(out, line_no, p).map_err(FormatError::Stopped)?;
            }
        }
    }
    if probing && !pending.is_empty() {
        return Err(not_a_sequence(&pending));
    }
    Ok(())
}

fn newlines(b: &[u8]) -> u64 {
    b.iter().filter(|c| **c == b'\n').count() as u64
}

fn not_a_sequence(pending: &[(u64, String)]) -> FormatError {
    let (line, reason) = &pending[0];
    FormatError::Invalid(format!(
        "not a GeoJSON text sequence / NDJSON file (one Feature object per line): the first {} non-blank record(s) are not Features; line {line}: {reason}",
        pending.len()
    ))
}

/// Strips ASCII whitespace, RS (0x1E) record separators and a UTF-8 BOM.
fn trim(b: &[u8]) -> &[u8] {
    let b = b.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(b);
    let is_sep = |c: &u8| c.is_ascii_whitespace() || *c == 0x1E;
    let start = b.iter().position(|c| !is_sep(c)).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !is_sep(c)).map_or(start, |e| e + 1);
    &b[start..end.max(start)]
}

fn strip_position(s: &str) -> &str {
    s.find(" at line ").map_or(s, |i| &s[..i])
}
