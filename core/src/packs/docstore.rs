//! The search index's doc store in a form deltas can patch (ADR 0004).
//!
//! tantivy writes a doc store as blocks, each `[u32 LE raw length][zstd frame]`, then its skip
//! index and footers. One document changed or inserted near the start shifts every later
//! block boundary, so the compressed bytes after it share nothing with the base and a patch of
//! the file is as big as the file. The raw blocks, though, are the documents themselves,
//! which patch well. [`expand`] turns a store file into
//!
//! ```text
//! "WMDOCST1" | u32 blocks | per block: u32 raw length, raw bytes | the rest of the file as is
//! ```
//!
//! and [`compact`] compresses every block again at the pack's zstd level, giving the file
//! back byte for byte (zstd is deterministic for the same library, level and input). The delta
//! builder only uses this when `compact(expand(file))` is the published file, and the
//! installer checks the result against the manifest, as for every file.
use std::io;

const MAGIC: &[u8; 8] = b"WMDOCST1";
/// zstd frame magic number, little-endian.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

/// The expanded form of a doc store file; `None` when the file does not start with zstd
/// blocks (another compressor, another layout).
pub fn expand(file: &[u8]) -> Option<Vec<u8>> {
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    let mut at = 0usize;
    while let Some(raw_len) = u32_at(file, at) {
        let frame_start = at + 4;
        if file.get(frame_start..frame_start + 4) != Some(&ZSTD_MAGIC[..]) {
            break;
        }
        let Ok(size) = zstd::zstd_safe::find_frame_compressed_size(&file[frame_start..]) else {
            break;
        };
        let frame = &file[frame_start..frame_start + size];
        match zstd::bulk::decompress(frame, raw_len as usize) {
            Ok(raw) if raw.len() == raw_len as usize => blocks.push(raw),
            _ => break,
        }
        at = frame_start + size;
    }
    if blocks.is_empty() {
        return None;
    }
    let raw_total: usize = blocks.iter().map(|b| b.len() + 4).sum();
    let mut out = Vec::with_capacity(12 + raw_total + file.len() - at);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(blocks.len() as u32).to_le_bytes());
    for b in &blocks {
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b);
    }
    out.extend_from_slice(&file[at..]);
    Some(out)
}

/// The doc store file of an [`expand`]ed form, every block compressed at `level`.
pub fn compact(expanded: &[u8], level: i32) -> io::Result<Vec<u8>> {
    let bad = |why: &str| io::Error::new(io::ErrorKind::InvalidData, format!("doc store: {why}"));
    if expanded.get(..8) != Some(&MAGIC[..]) {
        return Err(bad("not an expanded doc store"));
    }
    let count = u32_at(expanded, 8).ok_or_else(|| bad("truncated"))?;
    let mut at = 12usize;
    let mut out = Vec::with_capacity(expanded.len() / 3);
    for _ in 0..count {
        let len = u32_at(expanded, at).ok_or_else(|| bad("truncated block length"))? as usize;
        let raw = expanded
            .get(at + 4..at + 4 + len)
            .ok_or_else(|| bad("truncated block"))?;
        out.extend_from_slice(&(len as u32).to_le_bytes());
        out.extend_from_slice(&zstd::bulk::compress(raw, level)?);
        at += 4 + len;
    }
    out.extend_from_slice(&expanded[at..]);
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn store(blocks: &[&[u8]], tail: &[u8], level: i32) -> Vec<u8> {
        let mut f = Vec::new();
        for b in blocks {
            f.extend_from_slice(&(b.len() as u32).to_le_bytes());
            f.extend_from_slice(&zstd::bulk::compress(b, level).unwrap());
        }
        f.extend_from_slice(tail);
        f
    }

    #[test]
    fn a_store_expands_and_compacts_to_the_same_bytes() {
        let a = b"first document, second document".repeat(50);
        let b = b"third document".repeat(80);
        let file = store(&[&a, &b], b"skip index and footer", 19);
        let expanded = expand(&file).unwrap();
        assert!(expanded.windows(a.len()).any(|w| w == &a[..]));
        assert_eq!(compact(&expanded, 19).unwrap(), file);
        // A patch of the expanded form turns one store into another.
        let mut changed = a.clone();
        changed.splice(10..10, b"an inserted document".iter().copied());
        let other = store(&[&changed, &b], b"skip index and footer", 19);
        let other_x = expand(&other).unwrap();
        let patch = crate::packs::delta::make_patch(&expanded, &other_x).unwrap();
        assert!(patch.len() < 100, "{}", patch.len());
        let mut made = Vec::new();
        crate::packs::delta::apply_patch(&expanded, &patch[..], &mut made).unwrap();
        assert_eq!(compact(&made, 19).unwrap(), other);
    }

    #[test]
    fn what_is_not_a_zstd_store_is_not_expanded() {
        assert_eq!(expand(b""), None);
        assert_eq!(expand(b"plain bytes, no blocks at all"), None);
        let lz4_like = [5u8, 0, 0, 0, 1, 2, 3, 4, 5];
        assert_eq!(expand(&lz4_like), None);
        assert!(compact(b"WMDOCST1\x05\x00\x00\x00", 19).is_err());
        assert!(compact(b"nonsense", 19).is_err());
    }
}
