//! Fingerprints the sources that derive a pack's routing arrays (the road network, turn
//! graphs and hierarchies' query layouts of `src/routing`, the geometry of `src/geo`, the
//! address grids of `src/distance/address`), so
//! that the arrays an engine writes beside a pack are keyed by the code that derived them
//! as well as by the pack (`src/routing/derived.rs`): another build of these sources
//! derives them again instead of reading arrays it might derive differently.
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

fn main() -> std::io::Result<()> {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let mut h = Sha256::new();
    for sub in ["src/routing", "src/geo", "src/distance/address"] {
        println!("cargo:rerun-if-changed={sub}");
        let mut list = Vec::new();
        files(&root.join(sub), &mut list)?;
        list.sort();
        for path in list {
            let rel = path.strip_prefix(&root).unwrap_or(&path);
            h.update(rel.to_string_lossy().replace('\\', "/").as_bytes());
            h.update([0]);
            h.update(std::fs::read(&path)?);
            h.update([0]);
        }
    }
    let digest: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=WAYMARK_ROUTING_CODE_DIGEST={digest}");
    Ok(())
}
