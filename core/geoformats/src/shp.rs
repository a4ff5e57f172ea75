//! ESRI Shapefile: a `.zip` holding `.shp` + `.dbf` (+ `.prj`), or a bare `.shp`.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use shapefile::dbase::{self, FieldValue};
use shapefile::{Shape, ShapeReader};

use crate::crs::Reprojector;
use crate::{FormatError, Output};

/// The shapefile format caps `.shp` and `.dbf` files at 2 GiB; more when extracting is a
/// corrupt or hostile archive.
const MAX_ENTRY: u64 = 2 << 30;

/// Reads a zipped Shapefile (or a bare `.shp`, whose attributes come from a `.dbf` beside it if
/// there is one).
///
/// The zip's first `.shp` in archive order (`__MACOSX/` and dot-files ignored) is read with the
/// `.dbf`, `.prj` and `.cpg` of the same name; the members are extracted to a temporary
/// directory beside the zip (removed afterwards), never into memory. Coordinates in the
/// system a `.prj` names are reprojected to WGS 84 ([`crate::crs`]; one that cannot be
/// converted is refused by name); without a `.prj`, WGS 84 longitude/latitude is assumed. `index` is the record
/// number; `source_id` comes from an attribute named `id` or `fid` (any case), which stays
/// among the attributes. Polygon holes are attached to the outer ring that precedes them (the
/// shapefile order).
pub(crate) fn read(path: &Path, out: &mut Output<'_>) -> Result<(), FormatError> {
    let mut magic = [0u8; 4];
    let n = File::open(path)?.read(&mut magic)?;
    if n == 4 && magic == *b"PK\x03\x04" {
        // Beside the download rather than in the system temp directory, which apps cannot
        // write to on Android (`/data/local/tmp`); removed when `dir` drops.
        let parent = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let dir = tempfile::Builder::new()
            .prefix(".waymark-shp-")
            .tempdir_in(parent)?;
        let [shp, dbf, prj, cpg] = extract(path, dir.path())?;
        let shp = shp.ok_or_else(|| FormatError::Invalid("no .shp file".to_owned()))?;
        if let Some(prj) = prj {
            out.reproject = reprojector(&std::fs::read_to_string(prj).unwrap_or_default())?;
        }
        return read_parts(&shp, dbf.as_deref(), cpg.as_deref(), out);
    }
    if n == 4 && magic == [0x00, 0x00, 0x27, 0x0A] {
        let dbf = path.with_extension("dbf");
        let prj = path.with_extension("prj");
        if let Ok(text) = std::fs::read_to_string(prj) {
            out.reproject = reprojector(&text)?;
        }
        let cpg = path.with_extension("cpg");
        return read_parts(
            path,
            dbf.is_file().then_some(dbf.as_path()),
            cpg.is_file().then_some(cpg.as_path()),
            out,
        );
    }
    Err(FormatError::Invalid(
        "not a Shapefile: expected a .zip archive holding the .shp and .dbf files (or a .shp file)"
            .to_owned(),
    ))
}

/// Extracts the first `.shp` of the archive and its `.dbf` / `.prj` / `.cpg` siblings into
/// `dir`: `[shp, dbf, prj, cpg]`, the `.shp` always there.
fn extract(zip_path: &Path, dir: &Path) -> Result<[Option<PathBuf>; 4], FormatError> {
    let zerr = |e: zip::result::ZipError| {
        FormatError::Invalid(format!("the zip archive cannot be read: {e}"))
    };
    let mut zip = zip::ZipArchive::new(BufReader::new(File::open(zip_path)?)).map_err(zerr)?;
    let names: Vec<String> = zip
        .file_names()
        .filter_map(|n| n.ok().map(|n| n.into_owned()))
        .collect();
    let ignored = |n: &str| {
        n.starts_with("__MACOSX/") || n.rsplit('/').next().is_some_and(|b| b.starts_with('.'))
    };
    let shp = names
        .iter()
        .find(|n| !ignored(n) && n.to_ascii_lowercase().ends_with(".shp"))
        .ok_or_else(|| {
            let held: Vec<&str> = names.iter().filter(|n| !ignored(n)).take(10).map(String::as_str).collect();
            FormatError::Invalid(format!(
                "the zip archive holds no .shp file (it holds: {}); a zipped Shapefile needs at least the .shp and .dbf files",
                if held.is_empty() { "nothing".to_owned() } else { held.join(", ") }
            ))
        })?
        .clone();
    let stem = &shp[..shp.len() - 4];
    let sibling = |ext: &str| {
        names
            .iter()
            .find(|n| {
                n.len() == shp.len()
                    && n[..stem.len()] == *stem
                    && n[stem.len()..].eq_ignore_ascii_case(ext)
            })
            .cloned()
    };
    let mut out = [None, None, None, None];
    for (slot, ext) in out.iter_mut().zip([".shp", ".dbf", ".prj", ".cpg"]) {
        let Some(name) = (if ext == ".shp" {
            Some(shp.clone())
        } else {
            sibling(ext)
        }) else {
            continue;
        };
        let mut entry = zip.by_name(&name).map_err(zerr)?;
        let target = dir.join(format!("layer{ext}"));
        let mut file = File::create(&target)?;
        let copied =
            std::io::copy(&mut (&mut entry).take(MAX_ENTRY + 1), &mut file).map_err(|e| {
                FormatError::Invalid(format!("cannot extract {name:?} from the zip archive: {e}"))
            })?;
        if copied > MAX_ENTRY {
            return Err(FormatError::Invalid(format!(
                "{name:?} in the zip archive is larger than the 2 GiB a Shapefile part can be"
            )));
        }
        *slot = Some(target);
    }
    Ok(out)
}

/// Opens the `.dbf` with the encoding its `.cpg` names, else the one its header's code page
/// mark says; one it cannot decode is read as UTF-8 with replacement characters rather than
/// refused.
fn open_dbf(dbf: &Path, cpg: Option<&Path>) -> Result<dbase::Reader<BufReader<File>>, FormatError> {
    let named = cpg
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|n| dbase::encoding::DynEncoding::from_name(&n));
    let mut builder = dbase::ReaderBuilder::new();
    if let Some(enc) = named {
        builder = builder.with_encoding(enc);
    }
    match builder.build(BufReader::new(File::open(dbf)?)) {
        Ok(r) => Ok(r),
        Err(_) => dbase::ReaderBuilder::new()
            .with_encoding(dbase::UnicodeLossy)
            .build(BufReader::new(File::open(dbf)?))
            .map_err(|e| FormatError::Invalid(format!("the Shapefile's .dbf cannot be read: {e}"))),
    }
}

/// The reprojection a `.prj` calls for (`None` for WGS 84 longitude/latitude or an empty
/// file); a system that cannot be converted is refused, by name.
fn reprojector(wkt: &str) -> Result<Option<Reprojector>, FormatError> {
    if wkt.trim().is_empty() {
        return Ok(None);
    }
    Reprojector::from_wkt(wkt)
        .map_err(|e| FormatError::Unsupported(format!("the Shapefile's .prj: {e}")))
}

fn read_parts(
    shp: &Path,
    dbf: Option<&Path>,
    cpg: Option<&Path>,
    out: &mut Output<'_>,
) -> Result<(), FormatError> {
    let serr = |e: shapefile::Error| FormatError::Invalid(format!("not a readable Shapefile: {e}"));
    let shapes = ShapeReader::new(BufReader::new(File::open(shp)?)).map_err(serr)?;
    match dbf {
        Some(dbf) => {
            let table = open_dbf(dbf, cpg)?;
            let mut reader = shapefile::Reader::new(shapes, table);
            let mut index = 0u64;
            for item in reader.iter_shapes_and_records() {
                index += 1;
                let (shape, record) = item.map_err(|e| record_error(index, &e))?;
                let mut attributes = Map::new();
                for (k, v) in record {
                    attributes.insert(k, field_value(v));
                }
                let source_id = attributes
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case("id") || k.eq_ignore_ascii_case("fid"))
                    .and_then(|(_, v)| match v {
                        Value::String(s) => Some(s.trim().to_owned()),
                        Value::Number(n) => Some(n.to_string()),
                        _ => None,
                    });
                emit(out, index, shape, source_id, attributes)?;
            }
        }
        None => {
            let mut shapes = shapes;
            let mut index = 0u64;
            for item in shapes.iter_shapes() {
                index += 1;
                let shape = item.map_err(|e| record_error(index, &e))?;
                emit(out, index, shape, None, Map::new())?;
            }
        }
    }
    Ok(())
}

fn record_error(index: u64, e: &shapefile::Error) -> FormatError {
    FormatError::Invalid(format!("the Shapefile is corrupt at record {index}: {e}"))
}

fn emit(
    out: &mut Output<'_>,
    index: u64,
    shape: Shape,
    source_id: Option<String>,
    attributes: Map<String, Value>,
) -> Result<(), FormatError> {
    let r = match shape {
        Shape::NullShape => out.skip(index, "the feature has no geometry (null shape)".to_owned()),
        Shape::Multipatch(_) => out.skip(
            index,
            "multipatch (3D surface) shapes are not supported".to_owned(),
        ),
        shape => match geo_types::Geometry::<f64>::try_from(shape) {
            Ok(g) => out.feature(index, source_id, simplify(g), attributes),
            Err(e) => out.skip(index, format!("the shape cannot be used: {e}")),
        },
    };
    r.map_err(FormatError::Stopped)
}

/// A one-part multi-geometry as its single part (shapefiles store every line and polygon as
/// a multi-part shape).
fn simplify(g: geo_types::Geometry<f64>) -> geo_types::Geometry<f64> {
    use geo_types::Geometry as G;
    match g {
        G::MultiPolygon(mut mp) if mp.0.len() == 1 => {
            mp.0.pop().map_or(G::MultiPolygon(mp), G::Polygon)
        }
        G::MultiLineString(mut ml) if ml.0.len() == 1 => {
            ml.0.pop().map_or(G::MultiLineString(ml), G::LineString)
        }
        other => other,
    }
}

fn field_value(v: FieldValue) -> Value {
    let num = |f: f64| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number);
    match v {
        FieldValue::Character(s) => s.map_or(Value::Null, Value::String),
        FieldValue::Memo(s) => Value::String(s),
        FieldValue::Numeric(n) => n.map_or(Value::Null, |f| {
            if f.fract() == 0.0 && f.abs() < 9.0e15 {
                Value::from(f as i64)
            } else {
                num(f)
            }
        }),
        FieldValue::Float(f) => f.map_or(Value::Null, |f| num(f64::from(f))),
        FieldValue::Logical(b) => b.map_or(Value::Null, Value::Bool),
        FieldValue::Integer(i) => Value::from(i),
        FieldValue::Currency(f) | FieldValue::Double(f) => num(f),
        FieldValue::Date(d) => d.map_or(Value::Null, |d| {
            Value::String(format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()))
        }),
        FieldValue::DateTime(dt) => {
            let (d, t) = (dt.date(), dt.time());
            Value::String(format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                d.year(),
                d.month(),
                d.day(),
                t.hours(),
                t.minutes(),
                t.seconds()
            ))
        }
    }
}
