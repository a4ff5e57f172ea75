//! Memory the engine hands back when the platform asks for it (a memory warning, an app going
//! to the background), without closing anything.
//!
//! A country pack's routing arrays are read in place from mapped layout files ([`super::flat`]):
//! the pages queries read become part of the process's resident set, as clean file pages, and
//! stay mapped until the system reclaims them. iOS does not count them in an app's memory
//! footprint; Linux and Android count them in its resident set (and Android's tools in its
//! proportional set) until then, up to the whole layouts (more than 1 GB on a 5 M-node country
//! after thousands of random routes). [`unmap_layouts`] unmaps every page of every live layout
//! (`MADV_DONTNEED` on a read-only shared file mapping: the pages leave the process, their
//! contents stay in the file and, while the system keeps it, in its page cache, so the next
//! query that reads a page maps it again without reading the disk); [`release`] does that and
//! drops the buffers kept between requests (search states, point buffers, hierarchy query labels). Answers are the
//! same after it; the first queries after it pay a page fault per page they read again.
//!
//! An engine given a resident-set ceiling ([`crate::EngineConfig::resident_ceiling`]) checks
//! its resident set after every request and unmaps the layouts when it is over
//! ([`hold_under`]), so that the engine answers a country pack inside a fixed amount of memory.
use std::sync::{Arc, Weak};

use memmap2::Mmap;
use parking_lot::Mutex;

use super::ch::ChGraph;

/// What [`release`] handed back (also the native SDK's answer to `release_memory`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct ReleasedMemory {
    /// Bytes of mapped layout files whose pages were unmapped (resident or not: the system
    /// does not say cheaply which were).
    pub mapped_bytes: u64,
    /// Number of mapped layout files.
    pub mapped_files: u32,
    /// Buffers kept between requests that were dropped.
    pub buffers: u32,
}

/// A mapped layout file, as long as something reads it.
struct Mapped {
    map: Weak<Mmap>,
    /// The file, to drop its cached pages the first time a ceiling is held
    /// ([`hold_under`]); `None` once done (or when it could not be opened again).
    file: Option<std::fs::File>,
}

/// Mapped layout files.
static MAPS: Mutex<Vec<Mapped>> = parking_lot::const_mutex(Vec::new());
/// Hierarchies that keep query labels between queries.
static HIERARCHIES: Mutex<Vec<Weak<ChGraph>>> = parking_lot::const_mutex(Vec::new());

/// Registers `map` of `file` for [`release`] (dropped from the list once no array reads it).
pub(crate) fn register_map(map: &Arc<Mmap>, file: &std::fs::File) {
    let mut maps = MAPS.lock();
    maps.retain(|m| m.map.strong_count() > 0);
    maps.push(Mapped {
        map: Arc::downgrade(map),
        file: file.try_clone().ok(),
    });
}

/// Registers `ch` for [`release`] (dropped from the list once the hierarchy is).
pub(crate) fn register_hierarchy(ch: &Arc<ChGraph>) {
    let mut all = HIERARCHIES.lock();
    all.retain(|c| c.strong_count() > 0);
    all.push(Arc::downgrade(ch));
}

/// Unmaps the pages of every mapped layout and drops every buffer kept between requests, then
/// hands the allocator's free memory back to the system. Safe to call at any time, from any
/// thread, while queries run: a query reading a layout meanwhile maps the pages it reads again.
pub fn release() -> ReleasedMemory {
    let mut out = unmap_layouts();
    let hierarchies: Vec<Arc<ChGraph>> = HIERARCHIES
        .lock()
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    let mut buffers = hierarchies
        .iter()
        .map(|ch| ch.drop_kept_labels())
        .sum::<usize>();
    buffers += super::search::drop_spares();
    buffers += crate::distance::isochrone::drop_spares();
    out.buffers = u32::try_from(buffers).unwrap_or(u32::MAX);
    super::layout::release_freed_memory();
    out
}

/// Unmaps the pages of every mapped layout and keeps the buffers: what a resident-set ceiling
/// checked after each request needs (dropping the buffers too would make the next isochrone
/// allocate and zero its search state again, tens of megabytes on a country).
pub fn unmap_layouts() -> ReleasedMemory {
    unmap(false)
}

/// Unmaps the layouts' pages; with `evict`, also drops from the page cache, once per file,
/// the cached pages of the layouts no mapping holds any more.
fn unmap(evict: bool) -> ReleasedMemory {
    let mut out = ReleasedMemory::default();
    let mut maps = MAPS.lock();
    for m in maps.iter_mut() {
        let Some(map) = m.map.upgrade() else {
            continue;
        };
        if unmap_pages(&map) {
            out.mapped_bytes += map.len() as u64;
            out.mapped_files += 1;
        }
        if evict && let Some(file) = m.file.take() {
            drop_cached_pages(&file);
        }
    }
    out
}

/// This process's resident set in bytes, where the system says it cheaply (Linux and
/// Android: `/proc/self/statm`).
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

fn page_size() -> u64 {
    #[cfg(unix)]
    #[allow(unsafe_code)]
    // SAFETY: `sysconf` reads a system constant; no pointer is passed.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    #[cfg(not(unix))]
    let size = 4096;
    u64::try_from(size).ok().filter(|&s| s > 0).unwrap_or(4096)
}

/// Holds the resident set under `ceiling` bytes: when it is over (see [`resident_bytes`]),
/// unmaps every layout's pages ([`unmap_layouts`]) and says what was unmapped. The first time
/// a file is unmapped this way its cached pages are also dropped: files written or checked
/// through reads sit in the page cache in large blocks (up to 256 KB on recent Linux
/// kernels), and a query that reads one page of a block maps the whole block, so a few routes
/// would take the resident set back over the ceiling; read again by queries, one page at a
/// time (layouts are mapped for random access), they come back as single pages. The queries
/// that follow that first time read their pages from the storage again.
pub fn hold_under(ceiling: u64) -> Option<ReleasedMemory> {
    // Nothing to unmap (packs small enough to be held in memory): no need to read the
    // resident set.
    if MAPS.lock().iter().all(|m| m.map.strong_count() == 0) || resident_bytes()? <= ceiling {
        return None;
    }
    Some(unmap(true))
}

/// Drops the cached pages of `file` that no mapping holds (`POSIX_FADV_DONTNEED`).
#[allow(unsafe_code)]
fn drop_cached_pages(file: &std::fs::File) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: advice on an open descriptor; no memory is passed.
        unsafe {
            libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = file;
}

/// Unmaps the pages of `map` from this process. Whether it was done.
#[allow(unsafe_code)]
fn unmap_pages(map: &Mmap) -> bool {
    #[cfg(unix)]
    {
        // SAFETY: `MADV_DONTNEED` on a shared, read-only file mapping only removes its page
        // table entries: a later read faults the page in again from the file, whose bytes never
        // change while mapped (layout files are written under another name and renamed into
        // place, never modified; see `flat::map_file`). No reference into the mapping is
        // invalidated, since the range stays mapped and its contents stay the same.
        unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) }.is_ok()
    }
    #[cfg(not(unix))]
    {
        let _ = map;
        false
    }
}
