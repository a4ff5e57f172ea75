//! A pack database in a form deltas can patch (ADR 0004, "The database, patched as rows").
//!
//! A pack's `data.sqlite` is written densely by one `VACUUM`, table after table in key order.
//! Edits spread over a region (a few ways added or removed everywhere) shift the rows of
//! every later page, and a road network numbers its nodes and segments densely, so one
//! segment fewer near the start changes the id and the node references of every later row.
//! A byte patch of the file pays for every page (a 21.5 MB patch of the 104.6 MB database of
//! the 5 M-node country after a day of edits), though almost every row is the same.
//! [`expand`] writes the database as its rows instead:
//!
//! ```text
//! "WMSQLROWS1\n" | schema rows (type, name, tbl_name, sql)
//! | per stored table: its name, then its rows in key order, each value tagged:
//!   NULL | INTEGER as the zig-zag varint of its difference with the same column of the
//!   previous row | REAL as 8 bytes | TEXT, BLOB as a varint length and the bytes
//! ```
//!
//! Integers are written as differences, so a run of rows whose ids and references all moved
//! by the same amount is written with the same bytes as before, and a patch of the expanded
//! form pays only where rows really changed. [`compact`] makes the database back from the
//! installed base: a copy of it gets every stored table's rows replaced by the expanded
//! form's (the shadow tables of R-trees included, their virtual tables are not written to),
//! then `VACUUM INTO` writes it densely, with fixed values in the header fields that only
//! count writes (change counter, schema cookie). The base must have the same schema rows in
//! the same order, which a delta within one pack format has.
//!
//! The result depends only on the rows, so the builder writes every pack database through
//! [`canonicalize`] (the same `compact` of its own rows): what the device makes from the rows
//! is then the published file byte for byte. How a row is stored is part of that: SQLite
//! keeps a whole number of a `REAL` column as an integer on disk or as 8 bytes, depending on
//! how it reached the row (an insert into a table shaped like the indoor features keeps it in
//! 8 bytes, an update stores the short form), and reads both back as the same `REAL`;
//! `compact` rewrites the rows holding one, so that each takes the short form.
//! The delta builder still offers this only when `compact` gives the published file byte for
//! byte, and the installer checks the result against the manifest, as for every file.
use std::fs;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, params_from_iter};

use crate::varint;

/// The transform name of a delta entry made with this form.
pub const TRANSFORM: &str = "sqlite-rows-1";
const MAGIC: &[u8] = b"WMSQLROWS1\n";

/// Why a database cannot be expanded or made again.
#[derive(Debug, thiserror::Error)]
pub enum RowsError {
    /// Reading or writing a file.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// SQLite refused a statement.
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The expanded form is damaged or does not fit the base.
    #[error("{0}")]
    Invalid(&'static str),
}

/// A row of `sqlite_schema`.
type SchemaRow = (String, String, String, Option<String>);

/// A table whose rows are stored: name, columns, whether it has no rowid, whether one of
/// its columns is the rowid.
struct Stored {
    name: String,
    columns: Vec<String>,
    without_rowid: bool,
    rowid_alias: bool,
    /// Its columns of `REAL` affinity.
    reals: Vec<String>,
}

/// Whether a column declared `decl` has `REAL` affinity (SQLite's rules, in their order).
fn real_affinity(decl: &str) -> bool {
    let d = decl.to_ascii_uppercase();
    !d.contains("INT")
        && !["CHAR", "CLOB", "TEXT", "BLOB"]
            .iter()
            .any(|k| d.contains(k))
        && ["REAL", "FLOA", "DOUB"].iter().any(|k| d.contains(k))
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn schema(conn: &Connection) -> Result<Vec<SchemaRow>, RowsError> {
    let mut st =
        conn.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid")?;
    let rows = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
        .collect::<Result<Vec<SchemaRow>, _>>()?;
    Ok(rows)
}

/// The tables that hold rows, in schema order (virtual tables hold none of their own).
fn stored_tables(conn: &Connection, schema: &[SchemaRow]) -> Result<Vec<Stored>, RowsError> {
    let mut out = Vec::new();
    for (kind, name, _, sql) in schema {
        let sql = sql.as_deref().unwrap_or("");
        if kind != "table"
            || sql
                .trim_start()
                .to_ascii_uppercase()
                .starts_with("CREATE VIRTUAL")
        {
            continue;
        }
        let without_rowid: bool = conn.query_row(
            "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1",
            [name],
            |r| r.get(0),
        )?;
        let mut st =
            conn.prepare("SELECT name, type, pk FROM pragma_table_info(?1) ORDER BY cid")?;
        let cols = st
            .query_map([name], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let pks = cols.iter().filter(|c| c.2 > 0).count();
        let rowid_alias = !without_rowid
            && pks == 1
            && cols
                .iter()
                .any(|c| c.2 > 0 && c.1.eq_ignore_ascii_case("INTEGER"));
        let reals = cols
            .iter()
            .filter(|c| real_affinity(&c.1))
            .map(|c| c.0.clone())
            .collect();
        out.push(Stored {
            reals,
            name: name.clone(),
            columns: cols.into_iter().map(|c| c.0).collect(),
            without_rowid,
            rowid_alias,
        });
    }
    Ok(out)
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    varint::put(out, b.len() as u64);
    out.extend_from_slice(b);
}

const NULL: u8 = 0;
const INTEGER: u8 = 1;
const REAL: u8 = 2;
const TEXT: u8 = 3;
const BLOB: u8 = 4;
const ROW: u8 = 1;
const END: u8 = 0;

/// The expanded form of the database file at `path` (opened read-only).
pub fn expand(path: &Path) -> Result<Vec<u8>, RowsError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let schema = schema(&conn)?;
    let mut out = Vec::with_capacity(fs::metadata(path)?.len() as usize);
    out.extend_from_slice(MAGIC);
    varint::put(&mut out, schema.len() as u64);
    for (kind, name, tbl, sql) in &schema {
        for s in [kind, name, tbl] {
            put_bytes(&mut out, s.as_bytes());
        }
        match sql {
            Some(sql) => {
                out.push(1);
                put_bytes(&mut out, sql.as_bytes());
            }
            None => out.push(0),
        }
    }
    for t in stored_tables(&conn, &schema)? {
        put_bytes(&mut out, t.name.as_bytes());
        let cols: Vec<String> = t.columns.iter().map(|c| quote(c)).collect();
        let sql = if t.without_rowid {
            // Key order: the primary key's columns, in their order in the key.
            let mut st =
                conn.prepare("SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk")?;
            let keys = st
                .query_map([&t.name], |r| r.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            let keys: Vec<String> = keys.iter().map(|k| quote(k)).collect();
            format!(
                "SELECT {} FROM {} ORDER BY {}",
                cols.join(", "),
                quote(&t.name),
                keys.join(", ")
            )
        } else {
            format!(
                "SELECT rowid, {} FROM {} ORDER BY rowid",
                cols.join(", "),
                quote(&t.name)
            )
        };
        let width = cols.len() + usize::from(!t.without_rowid);
        let mut previous = vec![0i64; width];
        let mut st = conn.prepare(&sql)?;
        let mut rows = st.query([])?;
        while let Some(row) = rows.next()? {
            out.push(ROW);
            for (i, last) in previous.iter_mut().enumerate() {
                match row.get_ref(i)? {
                    ValueRef::Null => out.push(NULL),
                    ValueRef::Integer(v) => {
                        out.push(INTEGER);
                        varint::put_signed(&mut out, v.wrapping_sub(*last));
                        *last = v;
                    }
                    ValueRef::Real(v) => {
                        out.push(REAL);
                        out.extend_from_slice(&v.to_bits().to_le_bytes());
                    }
                    ValueRef::Text(s) => {
                        out.push(TEXT);
                        put_bytes(&mut out, s);
                    }
                    ValueRef::Blob(b) => {
                        out.push(BLOB);
                        put_bytes(&mut out, b);
                    }
                }
            }
        }
        out.push(END);
    }
    Ok(out)
}

/// A reader over the expanded form.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

const DAMAGED: RowsError = RowsError::Invalid("the expanded database is damaged");

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, RowsError> {
        let b = *self.bytes.get(self.at).ok_or(DAMAGED)?;
        self.at += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], RowsError> {
        let end = self.at.checked_add(n).ok_or(DAMAGED)?;
        let s = self.bytes.get(self.at..end).ok_or(DAMAGED)?;
        self.at = end;
        Ok(s)
    }

    fn varint(&mut self) -> Result<u64, RowsError> {
        varint::get(self.bytes, &mut self.at).map_err(|_| DAMAGED)
    }

    fn bytes(&mut self) -> Result<&'a [u8], RowsError> {
        let n = usize::try_from(self.varint()?).map_err(|_| DAMAGED)?;
        self.take(n)
    }

    fn text(&mut self) -> Result<&'a str, RowsError> {
        std::str::from_utf8(self.bytes()?).map_err(|_| DAMAGED)
    }
}

/// Removes a scratch file when dropped (written with `journal_mode = OFF`: no journal).
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// Makes the database of the expanded form `expanded` at `out` (replaced; fsynced) from the
/// installed base database `base`, which must have the same schema.
pub fn compact(base: &Path, expanded: &[u8], out: &Path) -> Result<(), RowsError> {
    let mut r = Reader {
        bytes: expanded,
        at: 0,
    };
    if r.take(MAGIC.len())? != MAGIC {
        return Err(RowsError::Invalid("not an expanded pack database"));
    }
    let count = usize::try_from(r.varint()?).map_err(|_| DAMAGED)?;
    let mut schema_rows: Vec<SchemaRow> = Vec::with_capacity(count.min(1 << 16));
    for _ in 0..count {
        let kind = r.text()?.to_string();
        let name = r.text()?.to_string();
        let tbl = r.text()?.to_string();
        let sql = match r.byte()? {
            0 => None,
            _ => Some(r.text()?.to_string()),
        };
        schema_rows.push((kind, name, tbl, sql));
    }
    let scratch = Scratch(out.with_extension("rows-scratch"));
    fs::copy(base, &scratch.0)?;
    let conn = Connection::open(&scratch.0)?;
    // The whole database in the page cache: with SQLite's default 2 MB, replacing the rows
    // of a 100 MB database of 1 KiB pages reads pages again hundreds of millions of times.
    // Foreign keys off (the bundled SQLite enables them): a table's rows are replaced
    // before the rows that refer to them, and checking each deleted node against every
    // segment would be quadratic.
    conn.execute_batch(
        "PRAGMA foreign_keys = OFF; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
         PRAGMA temp_store = MEMORY; PRAGMA cache_size = -2097152;",
    )?;
    if schema(&conn)? != schema_rows {
        return Err(RowsError::Invalid(
            "the base database has another schema than the new one",
        ));
    }
    let tables = stored_tables(&conn, &schema_rows)?;
    conn.execute_batch("BEGIN")?;
    for t in &tables {
        if r.text()? != t.name {
            return Err(DAMAGED);
        }
        conn.execute(&format!("DELETE FROM {}", quote(&t.name)), [])?;
        let mut cols: Vec<String> = Vec::new();
        if !t.without_rowid && !t.rowid_alias {
            cols.push("rowid".into());
        }
        cols.extend(t.columns.iter().map(|c| quote(c)));
        let marks: Vec<String> = (1..=cols.len()).map(|i| format!("?{i}")).collect();
        let mut insert = conn.prepare(&format!(
            "INSERT INTO {}({}) VALUES ({})",
            quote(&t.name),
            cols.join(", "),
            marks.join(", ")
        ))?;
        let width = t.columns.len() + usize::from(!t.without_rowid);
        // With a rowid alias the expanded row's first value (its rowid) is not bound: the
        // alias column carries it.
        let skip = usize::from(t.rowid_alias);
        let mut previous = vec![0i64; width];
        let mut values: Vec<ToSqlOutput<'_>> = Vec::with_capacity(width);
        loop {
            match r.byte()? {
                END => break,
                ROW => {}
                _ => return Err(DAMAGED),
            }
            values.clear();
            for last in previous.iter_mut() {
                values.push(ToSqlOutput::Borrowed(match r.byte()? {
                    NULL => ValueRef::Null,
                    INTEGER => {
                        let v = last.wrapping_add(varint::unzigzag(r.varint()?));
                        *last = v;
                        ValueRef::Integer(v)
                    }
                    REAL => {
                        let b: [u8; 8] = r.take(8)?.try_into().map_err(|_| DAMAGED)?;
                        ValueRef::Real(f64::from_bits(u64::from_le_bytes(b)))
                    }
                    TEXT => ValueRef::Text(r.bytes()?),
                    BLOB => ValueRef::Blob(r.bytes()?),
                    _ => return Err(DAMAGED),
                }));
            }
            insert.execute(params_from_iter(values.iter().skip(skip)))?;
        }
        drop(insert);
        if !t.reals.is_empty() {
            // An INSERT into some tables (a foreign key, NOT NULL columns and an index, as the
            // indoor features have) stores a whole number of a `REAL` column in 8 bytes; an
            // UPDATE of the row stores it as a short integer, as the builder's updated rows
            // have it. Both read back as the same REAL: the short form is the canonical one.
            let whole: Vec<String> = t
                .reals
                .iter()
                .map(|c| format!("{0} = round({0})", quote(c)))
                .collect();
            let first = quote(&t.reals[0]);
            conn.execute(
                &format!(
                    "UPDATE {} SET {first} = {first} WHERE {}",
                    quote(&t.name),
                    whole.join(" OR ")
                ),
                [],
            )?;
        }
    }
    if r.at != expanded.len() {
        return Err(DAMAGED);
    }
    conn.execute_batch("COMMIT")?;
    // Foreign keys on again for the copy, as the builder's connection has them: SQLite copies
    // a table's records as they are only when no foreign key constrains it, and encodes
    // the others again (a whole number of a `REAL` column in its short integer form).
    conn.execute_batch("PRAGMA foreign_keys = ON;")?;
    if out.exists() {
        fs::remove_file(out)?;
    }
    let target = out
        .to_str()
        .ok_or(RowsError::Invalid("the output path is not UTF-8"))?;
    conn.execute("VACUUM INTO ?1", [target])?;
    drop(conn);
    let mut file = fs::OpenOptions::new().read(true).write(true).open(out)?;
    for at in WRITE_COUNTERS {
        file.seek(SeekFrom::Start(at))?;
        file.write_all(&1u32.to_be_bytes())?;
    }
    file.sync_all()?;
    Ok(())
}

/// Header offsets of the file change counter, the schema cookie and the version-valid-for
/// number: they count writes, so [`compact`] sets them to 1.
const WRITE_COUNTERS: [u64; 3] = [24, 40, 92];

/// Rewrites the database at `path` as [`compact`] makes it from its own rows (its canonical
/// form: the file a device makes from the rows of a delta). `path` is replaced atomically.
pub fn canonicalize(path: &Path) -> Result<(), RowsError> {
    let rows = expand(path)?;
    let made = path.with_extension("canonical");
    compact(path, &rows, &made)?;
    fs::rename(&made, path)?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn db(path: &Path, rows: impl Iterator<Item = (i64, i64, String)>) {
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(
            "PRAGMA page_size = 1024;
             CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
             CREATE TABLE nodes (id INTEGER PRIMARY KEY, osm_id INTEGER NOT NULL, lat REAL, name TEXT, data BLOB);
             CREATE TABLE loose (a INTEGER, b TEXT);
             CREATE INDEX nodes_osm ON nodes(osm_id);
             CREATE VIRTUAL TABLE boxes USING rtree(id, min_x, max_x, min_y, max_y);
             INSERT INTO meta VALUES ('b', 'two'), ('a', 'one');",
        )
        .unwrap();
        let tx = conn.unchecked_transaction().unwrap();
        for (id, osm, name) in rows {
            tx.execute(
                "INSERT INTO nodes VALUES (?1, ?2, ?3, ?4, ?5)",
                rusqlite::params![id, osm, osm as f64 / 7.0, name, vec![osm as u8; 3]],
            )
            .unwrap();
            if id % 100 == 0 {
                tx.execute(
                    "INSERT INTO boxes VALUES (?1, ?2, ?2 + 1, ?3, ?3 + 2)",
                    rusqlite::params![id, osm as f64, id as f64],
                )
                .unwrap();
            }
            if id % 3 == 0 {
                tx.execute("INSERT INTO loose VALUES (?1, NULL)", [id])
                    .unwrap();
            }
        }
        tx.commit().unwrap();
        conn.execute_batch("ANALYZE; VACUUM;").unwrap();
        drop(conn);
        canonicalize(path).unwrap();
    }

    #[test]
    fn the_rows_of_a_database_make_it_again_byte_for_byte_from_another_version() {
        let dir = tempfile::tempdir().unwrap();
        let (old, new, made) = (
            dir.path().join("old.sqlite"),
            dir.path().join("new.sqlite"),
            dir.path().join("made.sqlite"),
        );
        db(&old, (1..3000).map(|i| (i, i * 10, format!("node {i}"))));
        // The new version lost a node near the start and gained one: every later id moved.
        db(
            &new,
            (1..3000)
                .filter(|&i| i != 17)
                .chain([5000])
                .enumerate()
                .map(|(k, i)| (k as i64 + 1, i * 10, format!("node {i}"))),
        );
        let old_rows = expand(&old).unwrap();
        let new_rows = expand(&new).unwrap();
        compact(&old, &new_rows, &made).unwrap();
        assert_eq!(fs::read(&made).unwrap(), fs::read(&new).unwrap());
        // Shifted ids cost nothing: the patch of the rows is far smaller than the file's.
        let rows_patch = crate::packs::delta::make_patch(&old_rows, &new_rows).unwrap();
        let file_patch =
            crate::packs::delta::make_patch(&fs::read(&old).unwrap(), &fs::read(&new).unwrap())
                .unwrap();
        assert!(
            rows_patch.len() * 3 < file_patch.len(),
            "rows {} file {}",
            rows_patch.len(),
            file_patch.len()
        );
    }

    #[test]
    fn the_canonical_form_keeps_every_row_and_is_its_own_canonical_form() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.sqlite");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, level REAL, loose, name TEXT);
             CREATE TABLE v (id TEXT PRIMARY KEY NOT NULL);
             INSERT INTO v VALUES ('a');
             CREATE TABLE f (id INTEGER PRIMARY KEY, venue TEXT NOT NULL REFERENCES v(id),
                             level REAL, name TEXT NOT NULL);",
        )
        .unwrap();
        for (i, level) in [0.0, -0.0, 2.0, 2.5, -3.0, 1e300, f64::MAX]
            .into_iter()
            .enumerate()
        {
            conn.execute(
                "INSERT INTO t(level, loose, name) VALUES (?1, ?1, ?2)",
                rusqlite::params![level, format!("row {i}")],
            )
            .unwrap();
        }
        // Whole numbers of a REAL column, some rows updated.
        for i in 0..400 {
            conn.execute(
                "INSERT INTO f(venue, level, name) VALUES ('a', ?1, ?2)",
                rusqlite::params![f64::from(i % 7 - 3), format!("floor {i}")],
            )
            .unwrap();
        }
        conn.execute_batch("UPDATE f SET level = level WHERE id % 2 = 0")
            .unwrap();
        drop(conn);
        let before = expand(&path).unwrap();
        canonicalize(&path).unwrap();
        let once = fs::read(&path).unwrap();
        assert_eq!(expand(&path).unwrap(), before);
        canonicalize(&path).unwrap();
        assert_eq!(fs::read(&path).unwrap(), once);
        let conn = Connection::open(&path).unwrap();
        let kinds: Vec<(String, String, f64)> = conn
            .prepare("SELECT typeof(level), typeof(loose), level FROM t ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(
            kinds.iter().all(|k| k.0 == "real" && k.1 == "real"),
            "{kinds:?}"
        );
        let levels: Vec<f64> = kinds.iter().map(|k| k.2).collect();
        assert_eq!(levels, [0.0, 0.0, 2.0, 2.5, -3.0, 1e300, f64::MAX]);
    }

    #[test]
    fn whole_numbers_of_real_columns_keep_their_short_form() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.sqlite");
        let conn = Connection::open(&path).unwrap();
        // Shaped like the indoor features: a foreign key, NOT NULL columns, an index.
        conn.execute_batch(
            "CREATE TABLE v (id TEXT PRIMARY KEY NOT NULL);
             INSERT INTO v VALUES ('a');
             CREATE TABLE f (id INTEGER PRIMARY KEY, venue TEXT NOT NULL REFERENCES v(id),
                             level REAL, name TEXT NOT NULL, lat REAL NOT NULL);
             CREATE INDEX f_venue ON f(venue);",
        )
        .unwrap();
        for i in 0..400 {
            conn.execute(
                "INSERT INTO f(venue, level, name, lat) VALUES ('a', ?1, ?2, ?3)",
                rusqlite::params![
                    f64::from(i % 7 - 3),
                    format!("floor {i}"),
                    0.5 + f64::from(i)
                ],
            )
            .unwrap();
        }
        let payload = |c: &Connection| -> i64 {
            c.query_row(
                "SELECT sum(payload) FROM dbstat WHERE name = 'f'",
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        let inserted = payload(&conn);
        conn.execute_batch("UPDATE f SET level = level").unwrap();
        let updated = payload(&conn);
        // What the mechanism is for: inserted, the whole numbers took 8 bytes each.
        assert!(updated < inserted, "{updated} {inserted}");
        conn.execute_batch("DELETE FROM f WHERE id % 2 = 0")
            .unwrap();
        drop(conn);
        // A database holding both forms comes out in the short one.
        let conn = Connection::open(&path).unwrap();
        for i in (1..400).step_by(2) {
            conn.execute(
                "INSERT INTO f(id, venue, level, name, lat) VALUES (?1, 'a', ?2, ?3, ?4)",
                rusqlite::params![
                    i + 1,
                    f64::from(i % 7 - 3),
                    format!("floor {i}"),
                    0.5 + f64::from(i)
                ],
            )
            .unwrap();
        }
        drop(conn);
        canonicalize(&path).unwrap();
        let conn = Connection::open(&path).unwrap();
        assert_eq!(payload(&conn), updated);
    }

    #[test]
    fn another_schema_or_damaged_rows_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, made) = (
            dir.path().join("a.sqlite"),
            dir.path().join("b.sqlite"),
            dir.path().join("made.sqlite"),
        );
        db(&a, (1..50).map(|i| (i, i, format!("n{i}"))));
        let conn = Connection::open(&b).unwrap();
        conn.execute_batch("CREATE TABLE other (x INTEGER)")
            .unwrap();
        drop(conn);
        let rows = expand(&a).unwrap();
        assert!(matches!(
            compact(&b, &rows, &made),
            Err(RowsError::Invalid(_))
        ));
        let mut cut = rows.clone();
        cut.truncate(rows.len() - 5);
        assert!(compact(&a, &cut, &made).is_err());
        assert!(compact(&a, b"not rows", &made).is_err());
    }
}
