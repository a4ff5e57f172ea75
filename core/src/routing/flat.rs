//! Flat files of arrays, memory-mapped: the query layout of large routing hierarchies.
//!
//! A pack stores its hierarchies in a compact, compressed encoding ([`super::compact`]) that
//! cannot be queried in place. Decoded into memory, a country's driving hierarchy takes
//! hundreds of megabytes. So the engine decodes a large hierarchy once, writes the arrays its
//! queries read into a flat file beside the pack, and from then on maps that file: opening
//! costs no decoding and no copy, and only the pages queries touch become resident (the
//! kernel can drop them again under memory pressure; they are clean file pages).
//!
//! **Layout** (native byte order, version [`VERSION`]): a header (magic `WMLAYOUT`, version,
//! a byte-order marker, the 32-byte key of what the file was derived from, the section
//! count), a table of sections (an 8-byte tag, the element size, the offset and the length in
//! bytes), then each section's bytes at an offset aligned to 64 bytes. A reader checks every
//! field, every bound and every alignment before it hands out an array, and treats any
//! mismatch (another version, another key, a short or damaged file) as a file to rebuild.
//!
//! Files are written to a temporary name in the same directory, synced and renamed, so a
//! reader sees either no file or a whole one; a file is never modified once written.
use std::io::Write;
use std::ops::{Deref, Range};
use std::path::Path;
use std::sync::Arc;

use bytemuck::Pod;
use memmap2::Mmap;

/// Magic bytes of a flat file.
const MAGIC: &[u8; 8] = b"WMLAYOUT";
/// Version of the layout.
pub const VERSION: u32 = 2;
/// Written in native byte order: a reader of the other order sees another value.
const BYTE_ORDER: u32 = 0x0102_0304;
/// Alignment of each section.
const ALIGN: u64 = 64;
const HEADER: usize = 8 + 4 + 4 + 32 + 4 + 4;
const ENTRY: usize = 8 + 4 + 4 + 8 + 8;

/// Why a flat file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum FlatError {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file is not a usable layout of what it is asked for.
    #[error("query layout {0}")]
    Invalid(String),
}

/// An array held in memory or read in place from a mapped file.
pub enum Arr<T> {
    /// In memory.
    Owned(Vec<T>),
    /// A checked range of a mapped file.
    Mapped(Arc<Mmap>, Range<usize>),
}

impl<T> Default for Arr<T> {
    fn default() -> Self {
        Arr::Owned(Vec::new())
    }
}

impl<T> From<Vec<T>> for Arr<T> {
    fn from(v: Vec<T>) -> Self {
        Arr::Owned(v)
    }
}

impl<T: Pod> Deref for Arr<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Arr::Owned(v) => v,
            // The range, its alignment and its length were checked when the array was made
            // ([`FlatFile::arr`]), so neither fallback is ever taken.
            Arr::Mapped(map, range) => map
                .get(range.clone())
                .and_then(|b| bytemuck::try_cast_slice(b).ok())
                .unwrap_or(&[]),
        }
    }
}

impl<'a, T: Pod> IntoIterator for &'a Arr<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Pod> std::fmt::Debug for Arr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match self {
            Arr::Owned(_) => "owned",
            Arr::Mapped(..) => "mapped",
        };
        write!(f, "Arr({how}, {})", self.len())
    }
}

impl<T: Pod> Clone for Arr<T> {
    fn clone(&self) -> Self {
        match self {
            Arr::Owned(v) => Arr::Owned(v.clone()),
            Arr::Mapped(map, range) => Arr::Mapped(map.clone(), range.clone()),
        }
    }
}

impl<T> Arr<T> {
    /// Whether the array is read from a mapped file.
    pub fn is_mapped(&self) -> bool {
        matches!(self, Arr::Mapped(..))
    }
}

impl<T: Pod> Arr<T> {
    /// The array to change: a mapped array is copied into memory first.
    pub fn to_mut(&mut self) -> &mut Vec<T> {
        if let Arr::Mapped(..) = self {
            *self = Arr::Owned(self.to_vec());
        }
        match self {
            Arr::Owned(v) => v,
            // Made owned just above.
            Arr::Mapped(..) => unreachable!("an array made owned is mapped"),
        }
    }
}

/// One section to write: its tag and its elements.
#[derive(Debug)]
pub struct Section<'a> {
    tag: [u8; 8],
    elem: u32,
    bytes: &'a [u8],
}

impl<'a> Section<'a> {
    /// The section `tag` (up to 8 bytes) holding `data`.
    pub fn new<T: Pod>(tag: &str, data: &'a [T]) -> Section<'a> {
        Section {
            tag: tag_bytes(tag),
            elem: std::mem::size_of::<T>() as u32,
            bytes: bytemuck::cast_slice(data),
        }
    }
}

fn tag_bytes(tag: &str) -> [u8; 8] {
    let mut t = [0u8; 8];
    for (slot, b) in t.iter_mut().zip(tag.bytes()) {
        *slot = b;
    }
    t
}

fn align(v: u64) -> u64 {
    v.div_ceil(ALIGN) * ALIGN
}

/// Writes `sections` under `key` to `path`, atomically (temporary file, sync, rename).
pub fn write(path: &Path, key: &[u8; 32], sections: &[Section<'_>]) -> Result<(), FlatError> {
    let dir = path
        .parent()
        .ok_or_else(|| FlatError::Invalid(format!("{} has no directory", path.display())))?;
    std::fs::create_dir_all(dir)?;
    let mut head = Vec::with_capacity(HEADER + ENTRY * sections.len());
    head.extend_from_slice(MAGIC);
    head.extend_from_slice(&VERSION.to_ne_bytes());
    head.extend_from_slice(&BYTE_ORDER.to_ne_bytes());
    head.extend_from_slice(key);
    head.extend_from_slice(&(sections.len() as u32).to_ne_bytes());
    head.extend_from_slice(&0u32.to_ne_bytes());
    let mut at = align((HEADER + ENTRY * sections.len()) as u64);
    let mut offsets = Vec::with_capacity(sections.len());
    for s in sections {
        head.extend_from_slice(&s.tag);
        head.extend_from_slice(&s.elem.to_ne_bytes());
        head.extend_from_slice(&0u32.to_ne_bytes());
        head.extend_from_slice(&at.to_ne_bytes());
        head.extend_from_slice(&(s.bytes.len() as u64).to_ne_bytes());
        offsets.push(at);
        at = align(at + s.bytes.len() as u64);
    }
    let unique = format!(
        ".{}.{}-{:x}.tmp",
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("layout"),
        std::process::id(),
        tmp_counter()
    );
    let tmp = dir.join(unique);
    let result = (|| -> Result<(), FlatError> {
        let file = std::fs::File::create(&tmp)?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        out.write_all(&head)?;
        let mut written = head.len() as u64;
        for (s, &off) in sections.iter().zip(&offsets) {
            let pad = (off - written) as usize;
            out.write_all(&[0u8; ALIGN as usize][..pad])?;
            out.write_all(s.bytes)?;
            written = off + s.bytes.len() as u64;
        }
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn tmp_counter() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The flat file at `path` holding exactly `sections`, mapped: the file found there when it
/// reads back (through `read`) byte for byte as `sections`, else one written anew (atomically)
/// and checked the same way. For arrays the engine derives from a pack on every opening
/// and then only reads: once mapped, the derived copy in memory can be dropped, and the
/// comparison makes a stale, damaged or foreign file harmless without any key having to
/// describe how the arrays were derived.
pub fn map_same(
    path: &Path,
    key: &[u8; 32],
    sections: &[Section<'_>],
) -> Result<FlatFile, FlatError> {
    if let Ok(f) = FlatFile::open(path, key)
        && f.holds(sections)?
    {
        return Ok(f);
    }
    write(path, key, sections)?;
    let f = FlatFile::open(path, key)?;
    if f.holds(sections)? {
        Ok(f)
    } else {
        Err(FlatError::Invalid(format!(
            "{}: reads back other bytes than were written",
            path.display()
        )))
    }
}

/// A mapped flat file whose header and table were checked.
#[derive(Debug)]
pub struct FlatFile {
    file: std::fs::File,
    map: Arc<Mmap>,
    sections: Vec<([u8; 8], u32, Range<usize>)>,
}

/// Maps a file written by [`write`].
#[allow(unsafe_code)]
fn map_file(file: &std::fs::File) -> std::io::Result<Mmap> {
    // SAFETY: mapping is undefined behaviour only if the file changes while mapped. Layout
    // files are written under a temporary name and renamed into place, never modified or
    // truncated afterwards; a replacement is a new file (a new inode), and a removed file
    // stays readable while mapped.
    unsafe { Mmap::map(file) }
}

impl FlatFile {
    /// Maps `path` and checks that it is a whole layout of this version written under `key`.
    pub fn open(path: &Path, key: &[u8; 32]) -> Result<FlatFile, FlatError> {
        let file = std::fs::File::open(path)?;
        let map = map_file(&file)?;
        // Queries read scattered pages: no read-ahead and no mapping of the neighbouring
        // pages around each one read, so that only what queries touch becomes resident.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        let bad = |what: &str| FlatError::Invalid(format!("{}: {what}", path.display()));
        let u32_at = |at: usize| -> Result<u32, FlatError> {
            map.get(at..at + 4)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_ne_bytes)
                .ok_or_else(|| bad("the header is cut short"))
        };
        let u64_at = |at: usize| -> Result<u64, FlatError> {
            map.get(at..at + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_ne_bytes)
                .ok_or_else(|| bad("the table is cut short"))
        };
        if map.get(..8) != Some(&MAGIC[..]) {
            return Err(bad("is not a query layout"));
        }
        if u32_at(8)? != VERSION {
            return Err(bad("is another layout version"));
        }
        if u32_at(12)? != BYTE_ORDER {
            return Err(bad("was written in another byte order"));
        }
        if map.get(16..48) != Some(&key[..]) {
            return Err(bad("was derived from another file"));
        }
        let count = u32_at(48)? as usize;
        let mut sections = Vec::with_capacity(count);
        for i in 0..count {
            let at = HEADER + ENTRY * i;
            let tag: [u8; 8] = map
                .get(at..at + 8)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| bad("the table is cut short"))?;
            let elem = u32_at(at + 8)?;
            let (off, len) = (u64_at(at + 16)?, u64_at(at + 24)?);
            let end = off
                .checked_add(len)
                .ok_or_else(|| bad("a section overflows"))?;
            if end > map.len() as u64 || off % ALIGN != 0 || elem == 0 || len % u64::from(elem) != 0
            {
                return Err(bad("a section lies outside the file or is misaligned"));
            }
            sections.push((tag, elem, off as usize..end as usize));
        }
        let map = Arc::new(map);
        super::memory::register_map(&map, &file);
        Ok(FlatFile {
            file,
            map,
            sections,
        })
    }

    fn section(&self, tag: &str) -> Result<&([u8; 8], u32, Range<usize>), FlatError> {
        let want = tag_bytes(tag);
        self.sections
            .iter()
            .find(|s| s.0 == want)
            .ok_or_else(|| FlatError::Invalid(format!("has no section {tag}")))
    }

    /// Number of `T`s in section `tag`, without reading it.
    pub fn count<T: Pod>(&self, tag: &str) -> Result<usize, FlatError> {
        let (_, _, range) = self.section(tag)?;
        Ok(range.len() / std::mem::size_of::<T>().max(1))
    }

    /// Reads section `tag` through the file, not the mapping (so that checking a file's
    /// contents leaves none of it resident in this process), in chunks: `visit(first
    /// index, elements)` for each, in order, until it returns false.
    pub fn scan<T: Pod>(
        &self,
        tag: &str,
        mut visit: impl FnMut(usize, &[T]) -> bool,
    ) -> Result<bool, FlatError> {
        let (_, _, range) = self.section(tag)?;
        self.scan_range(range.clone(), &mut visit)
    }

    /// [`FlatFile::scan`] over the bytes `range` of the file.
    fn scan_range<T: Pod>(
        &self,
        range: Range<usize>,
        visit: &mut impl FnMut(usize, &[T]) -> bool,
    ) -> Result<bool, FlatError> {
        use std::io::{Read, Seek, SeekFrom};
        let size = std::mem::size_of::<T>().max(1);
        // A buffer of u64s: aligned for any element of up to 8 bytes.
        let per_chunk = (1 << 20) / size;
        let mut buf = vec![0u64; (per_chunk * size).div_ceil(8)];
        let mut file = &self.file;
        file.seek(SeekFrom::Start(range.start as u64))?;
        let mut left = range.len() / size;
        let mut index = 0;
        while left > 0 {
            let take = left.min(per_chunk);
            let bytes = &mut bytemuck::cast_slice_mut::<u64, u8>(&mut buf)[..take * size];
            file.read_exact(bytes)?;
            let elems: &[T] = bytemuck::try_cast_slice(bytes)
                .map_err(|_| FlatError::Invalid("a section cannot be read".to_string()))?;
            if !visit(index, elems) {
                return Ok(false);
            }
            index += take;
            left -= take;
        }
        Ok(true)
    }

    /// Whether the file holds exactly `sections` (tags, element sizes and bytes, read through
    /// the file), in any order, and nothing else.
    pub fn holds(&self, sections: &[Section<'_>]) -> Result<bool, FlatError> {
        if self.sections.len() != sections.len() {
            return Ok(false);
        }
        for s in sections {
            let Some((_, elem, range)) = self.sections.iter().find(|(t, ..)| *t == s.tag) else {
                return Ok(false);
            };
            if *elem != s.elem || range.len() != s.bytes.len() {
                return Ok(false);
            }
            let same = self.scan_range::<u8>(range.clone(), &mut |at, chunk| {
                s.bytes.get(at..at + chunk.len()) == Some(chunk)
            })?;
            if !same {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The array of section `tag`, whose elements must be `T`s.
    pub fn arr<T: Pod>(&self, tag: &str) -> Result<Arr<T>, FlatError> {
        let (_, elem, range) = self.section(tag)?;
        let ok = *elem as usize == std::mem::size_of::<T>()
            && self
                .map
                .get(range.clone())
                .is_some_and(|b| bytemuck::try_cast_slice::<u8, T>(b).is_ok());
        if !ok {
            return Err(FlatError::Invalid(format!(
                "section {tag} does not hold the expected elements"
            )));
        }
        Ok(Arr::Mapped(self.map.clone(), range.clone()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn arrays_come_back_from_the_mapped_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("x.layout");
        let a: Vec<u32> = (0..1000).collect();
        let b: Vec<[u32; 2]> = vec![[1, 2], [3, 4], [5, 6]];
        let c: Vec<u64> = vec![u64::MAX, 7];
        let key = [9u8; 32];
        write(
            &path,
            &key,
            &[
                Section::new("a", &a),
                Section::new("b", &b),
                Section::new("c", &c),
            ],
        )
        .unwrap();
        let f = FlatFile::open(&path, &key).unwrap();
        let (fa, fb, fc) = (
            f.arr::<u32>("a").unwrap(),
            f.arr::<[u32; 2]>("b").unwrap(),
            f.arr::<u64>("c").unwrap(),
        );
        assert!(fa.is_mapped());
        assert_eq!((&fa[..], &fb[..], &fc[..]), (&a[..], &b[..], &c[..]));
        // Wrong element type, missing section, other key.
        assert!(f.arr::<u64>("a").is_err());
        assert!(f.arr::<u32>("d").is_err());
        let err = FlatFile::open(&path, &[1u8; 32]).unwrap_err().to_string();
        assert!(err.contains("derived from another file"), "{err}");
        // No temporary file is left beside it.
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[test]
    fn map_same_keeps_a_file_holding_the_arrays_and_replaces_any_other() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d").join("x.layout");
        let a: Vec<u32> = (0..5000).collect();
        let b: Vec<[f64; 2]> = vec![[1.5, 2.5]; 300];
        let key = [4u8; 32];
        let sections = [Section::new("a", &a), Section::new("b", &b)];
        let f = map_same(&path, &key, &sections).unwrap();
        assert_eq!(&f.arr::<u32>("a").unwrap()[..], &a[..]);
        let inode = std::fs::metadata(&path).unwrap().ino();
        // The same arrays: the file is kept.
        map_same(&path, &key, &sections).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().ino(), inode);
        // One element changed in the file: written again.
        let good = std::fs::read(&path).unwrap();
        let mut bad = good.clone();
        let at = bad.len() - 100;
        bad[at] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        let f = map_same(&path, &key, &sections).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), good);
        assert_eq!(&f.arr::<[f64; 2]>("b").unwrap()[..], &b[..]);
        // Other arrays (one element more, one section fewer): written again.
        let longer: Vec<u32> = (0..5001).collect();
        let f = map_same(
            &path,
            &key,
            &[Section::new("a", &longer), Section::new("b", &b)],
        )
        .unwrap();
        assert_eq!(f.arr::<u32>("a").unwrap().len(), 5001);
        let f = map_same(&path, &key, &[Section::new("a", &a)]).unwrap();
        assert!(f.arr::<[f64; 2]>("b").is_err());
    }

    #[test]
    fn a_cut_or_damaged_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.layout");
        let a: Vec<u32> = (0..100).collect();
        let key = [3u8; 32];
        write(&path, &key, &[Section::new("a", &a)]).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 4]).unwrap();
        let err = FlatFile::open(&path, &key).unwrap_err().to_string();
        assert!(err.contains("outside the file"), "{err}");
        std::fs::write(&path, &bytes[..20]).unwrap();
        assert!(FlatFile::open(&path, &key).is_err());
        let mut other = bytes.clone();
        other[8] ^= 0xff;
        std::fs::write(&path, &other).unwrap();
        let err = FlatFile::open(&path, &key).unwrap_err().to_string();
        assert!(err.contains("another layout version"), "{err}");
        std::fs::write(&path, b"").unwrap();
        assert!(FlatFile::open(&path, &key).is_err());
    }
}
