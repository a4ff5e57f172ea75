//! Node positions of an extract, kept compact: two sorted arrays (ids, points: 24 bytes a node,
//! allocated at the size the kept ways need; tagged nodes outside them, such as POIs, grow
//! them once more) with a directory over the id range, instead of a hash
//! map (about twice the bytes, and twice again while it grows). Once the last node pass is
//! over the arrays can be moved into a flat file and mapped ([`Coords::spill`]): the kernel
//! then keeps only the pages the layers read, and can drop them again under memory pressure.
//!
//! Positions added after reading (measured edits, test fixtures) go to a small ordered map
//! that lookups consult first.
use std::collections::BTreeMap;
use std::path::Path;

use waymark_core::geo::Pt;
use waymark_core::routing::flat::{self, Arr, Section};

/// Ids per directory slot, on average: a lookup searches a slice this long.
const PER_SLOT: usize = 8;

/// Node positions by OSM id (see the module documentation).
#[derive(Default)]
pub struct Coords {
    ids: Arr<i64>,
    pts: Arr<Pt>,
    /// `dir[s]`: index of the first id whose slot (`(id - min) >> shift`) is `s` or later.
    dir: Vec<u32>,
    min: i64,
    shift: u32,
    extra: BTreeMap<i64, Pt>,
}

impl std::fmt::Debug for Coords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coords")
            .field("nodes", &self.ids.len())
            .field("mapped", &self.ids.is_mapped())
            .field("extra", &self.extra.len())
            .finish()
    }
}

/// Collects node positions in file order (sorted by id in every ordinary extract).
#[derive(Debug)]
pub struct CoordsBuilder {
    ids: Vec<i64>,
    pts: Vec<Pt>,
    sorted: bool,
}

impl CoordsBuilder {
    /// A builder expecting about `n` nodes.
    pub fn with_capacity(n: usize) -> Self {
        CoordsBuilder {
            ids: Vec::with_capacity(n),
            pts: Vec::with_capacity(n),
            sorted: true,
        }
    }

    /// Adds a node (a repeated id keeps its last position).
    pub fn push(&mut self, id: i64, p: Pt) {
        if let Some(&last) = self.ids.last() {
            if id == last {
                if let Some(q) = self.pts.last_mut() {
                    *q = p;
                }
                return;
            }
            self.sorted &= id > last;
        }
        self.ids.push(id);
        self.pts.push(p);
    }

    /// The positions, sorted by id.
    pub fn finish(mut self) -> Coords {
        if !self.sorted {
            let mut pairs: Vec<(i64, Pt)> = self.ids.drain(..).zip(self.pts.drain(..)).collect();
            // Stable: of a repeated id, the last position read wins.
            pairs.sort_by_key(|p| p.0);
            let mut ids = Vec::with_capacity(pairs.len());
            let mut pts: Vec<Pt> = Vec::with_capacity(pairs.len());
            for (id, p) in pairs {
                if ids.last() == Some(&id) {
                    if let Some(q) = pts.last_mut() {
                        *q = p;
                    }
                } else {
                    ids.push(id);
                    pts.push(p);
                }
            }
            self.ids = ids;
            self.pts = pts;
        }
        self.ids.shrink_to_fit();
        self.pts.shrink_to_fit();
        Coords::from_sorted(Arr::from(self.ids), Arr::from(self.pts))
    }
}

impl Coords {
    fn from_sorted(ids: Arr<i64>, pts: Arr<Pt>) -> Coords {
        let (dir, min, shift) = directory(&ids);
        Coords {
            ids,
            pts,
            dir,
            min,
            shift,
            extra: BTreeMap::new(),
        }
    }

    fn index(&self, id: i64) -> Option<usize> {
        if self.dir.is_empty() || id < self.min {
            return None;
        }
        let slot = ((id - self.min) as u64 >> self.shift) as usize;
        let lo = *self.dir.get(slot)? as usize;
        let hi = self
            .dir
            .get(slot + 1)
            .map_or(self.ids.len(), |&h| h as usize);
        let ids = self.ids.get(lo..hi)?;
        ids.binary_search(&id).ok().map(|i| lo + i)
    }

    /// Position of node `id`.
    pub fn get(&self, id: &i64) -> Option<&Pt> {
        if let Some(p) = self.extra.get(id) {
            return Some(p);
        }
        self.index(*id).and_then(|i| self.pts.get(i))
    }

    /// Whether node `id` has a position.
    pub fn contains_key(&self, id: &i64) -> bool {
        self.extra.contains_key(id) || self.index(*id).is_some()
    }

    /// Sets the position of node `id`.
    pub fn insert(&mut self, id: i64, p: Pt) {
        self.extra.insert(id, p);
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.ids.len()
            + self
                .extra
                .keys()
                .filter(|id| self.index(**id).is_none())
                .count()
    }

    /// Whether no node has a position.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty() && self.extra.is_empty()
    }

    /// The largest id, if any.
    pub fn max_id(&self) -> Option<i64> {
        let main = self.ids.last().copied();
        main.max(self.extra.keys().next_back().copied())
    }

    /// Every position (each node once).
    pub fn values(&self) -> impl Iterator<Item = &Pt> + '_ {
        self.ids
            .iter()
            .zip(self.pts.iter())
            .filter(|(id, _)| !self.extra.contains_key(id))
            .map(|(_, p)| p)
            .chain(self.extra.values())
    }

    /// Keeps only the nodes `keep` accepts (the arrays are rebuilt in memory).
    pub fn retain(&mut self, mut keep: impl FnMut(&i64) -> bool) {
        let mut b = CoordsBuilder::with_capacity(0);
        let extra = std::mem::take(&mut self.extra);
        for (id, p) in self.ids.iter().zip(self.pts.iter()) {
            if !extra.contains_key(id) && keep(id) {
                b.push(*id, *p);
            }
        }
        let mut out = b.finish();
        out.extra = extra.into_iter().filter(|(id, _)| keep(id)).collect();
        *self = out;
    }

    /// Moves the arrays into a flat file at `path` and maps it: the memory they held is
    /// returned, and their pages are read back from the file as lookups need them. The file
    /// can be removed once the positions are no longer used (the mapping keeps it readable).
    pub fn spill(&mut self, path: &Path) -> Result<(), flat::FlatError> {
        let key = [0u8; 32];
        flat::write(
            path,
            &key,
            &[
                Section::new("ids", &self.ids[..]),
                Section::new("pts", &self.pts[..]),
            ],
        )?;
        let file = flat::FlatFile::open(path, &key)?;
        let ids = file.arr::<i64>("ids")?;
        let pts = file.arr::<Pt>("pts")?;
        if ids.len() != self.ids.len() || pts.len() != self.pts.len() {
            return Err(flat::FlatError::Invalid(format!(
                "{}: node positions read back short",
                path.display()
            )));
        }
        self.ids = ids;
        self.pts = pts;
        Ok(())
    }

    /// Whether the arrays are read from a mapped file.
    pub fn is_spilled(&self) -> bool {
        self.ids.is_mapped()
    }
}

/// The directory of sorted `ids`: about one slot per [`PER_SLOT`] ids over their range.
fn directory(ids: &[i64]) -> (Vec<u32>, i64, u32) {
    let (Some(&min), Some(&max)) = (ids.first(), ids.last()) else {
        return (Vec::new(), 0, 0);
    };
    let span = (max - min) as u64;
    let want = (ids.len() / PER_SLOT).max(1) as u64;
    let mut shift = 0u32;
    while (span >> shift) >= want {
        shift += 1;
    }
    let slots = (span >> shift) as usize + 1;
    let mut dir = Vec::with_capacity(slots + 1);
    let mut i = 0usize;
    for s in 0..slots {
        while i < ids.len() && (((ids[i] - min) as u64) >> shift) < s as u64 {
            i += 1;
        }
        dir.push(i as u32);
    }
    (dir, min, shift)
}

impl FromIterator<(i64, Pt)> for Coords {
    fn from_iter<I: IntoIterator<Item = (i64, Pt)>>(iter: I) -> Self {
        let mut b = CoordsBuilder::with_capacity(0);
        for (id, p) in iter {
            b.push(id, p);
        }
        b.finish()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn pt(i: i64) -> Pt {
        Pt::new(i as f64 * 1e-3, -(i as f64) * 1e-3)
    }

    #[test]
    fn lookups_find_every_id_and_nothing_else() {
        // Sparse ids, as in a real extract: clusters and gaps of every size.
        let mut ids: Vec<i64> = (0..5000)
            .map(|i| 1 + i * i * 37 + (i % 7) * 1_000_003)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let c: Coords = ids.iter().map(|&i| (i, pt(i))).collect();
        assert_eq!(c.len(), ids.len());
        for &i in &ids {
            assert_eq!(c.get(&i), Some(&pt(i)));
            assert!(!c.contains_key(&(i + 1)) || ids.binary_search(&(i + 1)).is_ok());
        }
        assert!(!c.contains_key(&0));
        assert!(!c.contains_key(&(ids[ids.len() - 1] + 1)));
        assert_eq!(c.max_id(), ids.last().copied());
    }

    #[test]
    fn unsorted_input_is_sorted_and_the_last_position_wins() {
        let c: Coords = [(5, pt(5)), (2, pt(2)), (9, pt(9)), (2, pt(3))]
            .into_iter()
            .collect();
        assert_eq!(c.len(), 3);
        assert_eq!(c.get(&2), Some(&pt(3)));
        assert_eq!(c.get(&9), Some(&pt(9)));
    }

    #[test]
    fn inserts_override_and_retain_keeps_both_parts() {
        let mut c: Coords = (1..=10).map(|i| (i, pt(i))).collect();
        c.insert(3, pt(30));
        c.insert(20, pt(20));
        assert_eq!(c.len(), 11);
        assert_eq!(c.get(&3), Some(&pt(30)));
        assert_eq!(c.max_id(), Some(20));
        assert_eq!(c.values().count(), 11);
        c.retain(|id| id % 2 == 0);
        assert_eq!(c.len(), 6);
        assert_eq!(c.get(&20), Some(&pt(20)));
        assert_eq!(c.get(&4), Some(&pt(4)));
        assert!(c.get(&3).is_none());
    }

    #[test]
    fn spilled_positions_read_back_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let mut c: Coords = (0..10_000).map(|i| (i * 3 + 7, pt(i))).collect();
        c.spill(&dir.path().join("nodes.flat")).unwrap();
        assert!(c.is_spilled());
        for i in 0..10_000 {
            assert_eq!(c.get(&(i * 3 + 7)), Some(&pt(i)));
            assert!(!c.contains_key(&(i * 3 + 8)));
        }
    }
}
