//! What a delta of a pack database costs as a file patch and as a patch of its rows
//! (`waymark_core::packs::sqlrows`), and whether the rows make the new file again exactly.
//!
//! `cargo run --release -p waymark-packs --example rows_patch -- OLD.sqlite NEW.sqlite`
//!
//! `CANONICAL=1` first rewrites copies of both in their canonical form (as the builder writes
//! a pack database); `ROWS_ONLY=1` skips the patch of the files.
use std::path::PathBuf;
use std::time::Instant;

use waymark_core::packs::delta::make_patch;
use waymark_core::packs::sqlrows::{canonicalize, compact, expand};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [old, new] = args.as_slice() else {
        return Err("usage: rows_patch OLD.sqlite NEW.sqlite".into());
    };
    let scratch = tempfile::tempdir()?;
    let (old, new) = if std::env::var_os("CANONICAL").is_some() {
        let (o, n) = (
            scratch.path().join("old.sqlite"),
            scratch.path().join("new.sqlite"),
        );
        std::fs::copy(old, &o)?;
        std::fs::copy(new, &n)?;
        let t = Instant::now();
        canonicalize(&o)?;
        canonicalize(&n)?;
        println!(
            "both made canonical in {} ms: {} -> {} and {} -> {} bytes",
            t.elapsed().as_millis(),
            std::fs::metadata(old)?.len(),
            std::fs::metadata(&o)?.len(),
            std::fs::metadata(new)?.len(),
            std::fs::metadata(&n)?.len()
        );
        (o, n)
    } else {
        (old.clone(), new.clone())
    };
    let (old_bytes, new_bytes) = (std::fs::read(&old)?, std::fs::read(&new)?);
    if std::env::var_os("ROWS_ONLY").is_none() {
        let t = Instant::now();
        let file_patch = make_patch(&old_bytes, &new_bytes)?;
        println!(
            "file: {} -> {} bytes, patch {} bytes ({} ms)",
            old_bytes.len(),
            new_bytes.len(),
            file_patch.len(),
            t.elapsed().as_millis()
        );
    }
    let t = Instant::now();
    let (a, b) = (expand(&old)?, expand(&new)?);
    println!(
        "rows: {} -> {} bytes expanded ({} ms)",
        a.len(),
        b.len(),
        t.elapsed().as_millis()
    );
    let t = Instant::now();
    let rows_patch = make_patch(&a, &b)?;
    println!(
        "rows patch {} bytes ({} ms)",
        rows_patch.len(),
        t.elapsed().as_millis()
    );
    let out = scratch.path().join("made.sqlite");
    let t = Instant::now();
    compact(&old, &b, &out)?;
    let same = std::fs::read(&out)? == new_bytes;
    println!(
        "made from the rows in {} ms: {}",
        t.elapsed().as_millis(),
        if same { "identical" } else { "DIFFERENT" }
    );
    Ok(())
}
