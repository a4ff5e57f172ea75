//! Scheme version 3 (`docs/adr/0009-three-word-scheme-v3.md`): word classes, tiles with class
//! signatures, and the numbering of squares inside each signature's tiles.
//!
//! - The words are split into [`K`] classes of equal size so that no two list neighbours
//!   ([`neighbours`]: one edit, another form of the stem, a plural or singular) share a class
//!   ([`colour`], [`Classes`]).
//! - The grid is cut into tiles of ≈ 60 km × ≥ 60 km ([`Tiles`]: rows of [`G`] bands, each row
//!   into equal column ranges). Each tile gets a signature σ ∈ [0, K)³ ([`assign`]) such that
//!   no two tiles within [`SAFE_KM`] of each other carry signatures that differ in exactly one
//!   position, and a tile with land or people carries three different classes.
//! - A square of a tile with signature σ is named by a triple whose word classes are σ
//!   ([`Scheme`]). Substituting one word by a list neighbour changes exactly one class: the new
//!   triple's signature differs from σ in one position, which no tile within 50 km carries, so
//!   the new address, if it names a square at all, lies 50 km away or more. On land, swapping
//!   two words changes the signature to a transposition, which no neighbouring tile carries
//!   either.
//! - Inside a signature, squares are numbered kind by kind ([`KIND_ORDER`]: dense, populated,
//!   land, sea), each kind's block permuted by its own keyed permutation, and numbers map to
//!   triples of class indices in shells of increasing largest index ([`crate::shell`]), so
//!   the densest places take each class's first words: those of the list's first tier
//!   ([`FIRST_TIER`]) by length, shortest first, then the others in rank order.
//!
//! The engine answers this version: the packs carry the region table, the class assignment
//! and the signature table, whose SHA-256 are pinned here.

use sha2::{Digest, Sha256};

use crate::grid::{BANDS, Grid, ROWS_PER_BAND, Square, row_height};
use crate::permute::Permutation;
use crate::regions::{DENSE, LAND, POPULATED, REGIONS, Regions, SEA};
use crate::shell;

/// The scheme version this module implements.
pub const SCHEME_VERSION: u32 = 3;
/// Word classes.
pub const K: usize = 16;
/// Signatures (class triples).
pub const SIGNATURES: usize = K * K * K;
/// Bands per tile row (≈ 60 km).
pub const G: u32 = 20;
/// Columns of a tile at least, on its row's middle band (≈ 60 km).
pub const TILE_COLUMNS: u32 = 20_000;
/// Distance within which no substitution of one word by a list neighbour may land, km.
pub const SAFE_KM: f64 = 50.0;
/// SHA-256 of the version 3 region table (the dense region laid over version 2's,
/// [`Regions::digest`]) as built from the pinned sources.
pub const REGIONS_SHA256: &str = "e3c7ad0822d5c9870c2e3afd051e87d294e9c118cffdbfbcfc73e8e4d17965b2";
/// SHA-256 of the English word classes ([`Classes::digest`]) as built from the pinned list.
pub const CLASSES_SHA256: &str = "6ae6d8d766121392a6bd3519aa217d0ce2b54d16374a6aa5e2fa22b351dbdc90";
/// SHA-256 of the tile signature table ([`signatures_digest`]) as built from the pinned
/// sources.
pub const SIGNATURES_SHA256: &str =
    "1ca5c3c3cc78c667157d934f209d48b2e647c243849c37591ea5b19a267210aa";
/// The first tier of the English list: the ranks below it, the words of SCOWL size levels 10
/// to 50 (the list ranks by level, then length, so each level starts again at its shortest
/// words). Inside each class the tier's words take the first class indices in order of length
/// (then rank), the other words follow in rank order ([`Classes::new`]): the smallest numbers
/// of a signature, the dense kind's and most of all the largest cities', name squares with the
/// shortest common words.
pub const FIRST_TIER: usize = 20_099;
/// Kinds of squares: the regions of the region table (arrays indexed by kind are indexed by
/// region code).
pub const KINDS: usize = REGIONS;
/// The order in which a signature numbers its squares (ADR 0009 rule 4): dense first, then
/// populated, land, sea, so the smallest numbers (the commonest words) go where most people
/// are.
pub const KIND_ORDER: [u8; KINDS] = [DENSE, POPULATED, LAND, SEA];

/// The position of region `k` in [`KIND_ORDER`].
pub fn kind_position(k: u8) -> usize {
    KIND_ORDER.iter().position(|&r| r == k).unwrap_or(KINDS - 1)
}

/// The classes of signature `s`, first word first.
pub fn signature_classes(s: usize) -> [usize; 3] {
    [s / (K * K), s / K % K, s % K]
}

/// The signature of three classes.
pub fn signature_of(c: [usize; 3]) -> usize {
    c[0] * K * K + c[1] * K + c[2]
}

/// Positions in which two signatures differ.
pub fn hamming(a: usize, b: usize) -> u32 {
    let (a, b) = (signature_classes(a), signature_classes(b));
    (0..3).filter(|&i| a[i] != b[i]).count() as u32
}

/// The tiles of the grid.
#[derive(Debug, Clone)]
pub struct Tiles {
    /// Tiles per tile row.
    per_row: Vec<u32>,
    /// First tile of each row, and the total last.
    first: Vec<u32>,
    /// Columns of each band.
    columns: Vec<u32>,
}

impl Tiles {
    /// The tiles of `grid`: row `r` holds bands `[r·G, (r+1)·G)` and is cut into
    /// `max(1, ⌊N_mid / TILE_COLUMNS⌋)` equal column ranges, `N_mid` the columns of its middle
    /// band.
    pub fn new(grid: &Grid) -> Tiles {
        let rows = BANDS.div_ceil(G);
        let mut per_row = Vec::with_capacity(rows as usize);
        let mut first = vec![0u32];
        let mut total = 0u32;
        for r in 0..rows {
            let mid = (r * G + G / 2).min(BANDS - 1);
            let t = (grid.columns(mid) / TILE_COLUMNS).max(1);
            per_row.push(t);
            total += t;
            first.push(total);
        }
        Tiles {
            per_row,
            first,
            columns: grid.all_columns().to_vec(),
        }
    }

    /// Tiles in all.
    pub fn count(&self) -> u32 {
        self.first.last().copied().unwrap_or(0)
    }

    /// Tile rows.
    pub fn rows(&self) -> u32 {
        self.per_row.len() as u32
    }

    /// Row of a tile and its index in the row.
    pub fn row_col(&self, tile: u32) -> (u32, u32) {
        let r = self.first.partition_point(|f| *f <= tile).saturating_sub(1);
        (r as u32, tile - self.first[r])
    }

    /// The tile of a square: `⌊col · T_r / N_b⌋` in its row.
    pub fn tile_of(&self, s: Square) -> u32 {
        let b = s.band();
        let r = (b / G) as usize;
        let t = u64::from(self.per_row[r]);
        let n = u64::from(self.columns[b as usize]);
        self.first[r] + (u64::from(s.col) * t / n) as u32
    }

    /// Columns `[c0, c1)` of band `b` (a band of the tile's row) in the tile:
    /// `[⌈j·N_b/T_r⌉, ⌈(j+1)·N_b/T_r⌉)`.
    pub fn col_range(&self, tile: u32, b: u32) -> (u32, u32) {
        let (r, j) = self.row_col(tile);
        self.col_range_at(r, j, b)
    }

    /// [`Tiles::col_range`] of the tile `j` of row `r`.
    fn col_range_at(&self, r: u32, j: u32, b: u32) -> (u32, u32) {
        let t = u64::from(self.per_row[r as usize]);
        let n = u64::from(self.columns[b as usize]);
        let at = |j: u64| (j * n).div_ceil(t) as u32;
        (at(u64::from(j)), at(u64::from(j) + 1))
    }

    /// Bands `[b0, b1)` of tile row `r`.
    pub fn bands(&self, r: u32) -> (u32, u32) {
        (r * G, ((r + 1) * G).min(BANDS))
    }

    /// The tiles (not `tile` itself) whose squares may lie within [`SAFE_KM`] of the tile's
    /// squares: tiles of the rows next to it whose longitudes come within
    /// `1.2 · SAFE_KM / (111.19 · cos φ)` degrees, φ the most poleward latitude of the two rows
    /// (every tile of the row where cos φ ≈ 0), around the antimeridian.
    pub fn neighbours(&self, tile: u32) -> Vec<u32> {
        let (r, j) = self.row_col(tile);
        let t = f64::from(self.per_row[r as usize]);
        let (w, e) = (f64::from(j) * 360.0 / t, f64::from(j + 1) * 360.0 / t);
        let h = row_height() * f64::from(ROWS_PER_BAND * G);
        let lat = |r: u32| {
            [
                -90.0 + f64::from(r) * h,
                (-90.0 + f64::from(r + 1) * h).min(90.0),
            ]
        };
        let mut out = Vec::new();
        for r2 in r.saturating_sub(1)..=(r + 1).min(self.rows() - 1) {
            let pole = lat(r)
                .into_iter()
                .chain(lat(r2))
                .map(f64::abs)
                .fold(0.0, f64::max);
            let cos = pole.to_radians().cos();
            let margin = if cos < 1e-6 {
                360.0
            } else {
                SAFE_KM * 1.2 / (111.19 * cos)
            };
            let t2 = self.per_row[r2 as usize];
            let first = self.first[r2 as usize];
            let (lo, hi) = (w - margin, e + margin);
            if hi - lo >= 360.0 {
                out.extend((0..t2).map(|j2| first + j2).filter(|id| *id != tile));
                continue;
            }
            let per = 360.0 / f64::from(t2);
            let (a, z) = ((lo / per).floor() as i64, (hi / per).floor() as i64);
            let from = out.len();
            for j2 in a..=z {
                let id = first + j2.rem_euclid(i64::from(t2)) as u32;
                if id != tile && !out[from..].contains(&id) {
                    out.push(id);
                }
            }
        }
        out
    }
}

/// Columns of region `k` of band `b` within `[c0, c1)`.
fn kind_columns(regions: &Regions, b: u32, (c0, c1): (u32, u32), k: u8) -> u32 {
    let runs = regions.band_runs(b);
    let n = regions.grid().columns(b);
    let mut sum = 0;
    let from = runs.partition_point(|r| r.start <= c0).saturating_sub(1);
    for (i, run) in runs.iter().enumerate().skip(from) {
        if run.start >= c1 {
            break;
        }
        let start = run.start.max(c0);
        let end = runs.get(i + 1).map_or(n, |r| r.start).min(c1);
        if run.region == k && end > start {
            sum += end - start;
        }
    }
    sum
}

/// Squares of each region in a tile.
pub fn tile_counts(regions: &Regions, tiles: &Tiles, tile: u32) -> [u64; KINDS] {
    let (r, _) = tiles.row_col(tile);
    let (b0, b1) = tiles.bands(r);
    let mut out = [0u64; KINDS];
    for b in b0..b1 {
        let range = tiles.col_range(tile, b);
        for (k, slot) in out.iter_mut().enumerate() {
            *slot += u64::from(kind_columns(regions, b, range, k as u8)) * u64::from(ROWS_PER_BAND);
        }
    }
    out
}

/// Signatures of every tile, greedy in tile order: among the signatures that differ in
/// exactly one position from no neighbour already signed, are no transposition of a
/// neighbour's, have three different classes where the tile holds land or people (so two
/// swapped words always change the signature), and have room left (`capacity` squares per
/// signature), the one whose largest load (per region, relative to that region's mean per
/// signature) stays smallest, lowest on ties. `None` when a tile finds none.
pub fn assign(tiles: &Tiles, counts: &[[u64; KINDS]], capacity: u64) -> Option<Vec<u16>> {
    let mut totals = [0u64; KINDS];
    for c in counts {
        for k in 0..KINDS {
            totals[k] += c[k];
        }
    }
    let mean: Vec<f64> = totals
        .iter()
        .map(|t| (*t as f64 / SIGNATURES as f64).max(1.0))
        .collect();
    let repeated: Vec<bool> = (0..SIGNATURES)
        .map(|s| {
            let d = signature_classes(s);
            d[0] == d[1] || d[1] == d[2] || d[0] == d[2]
        })
        .collect();
    let mut load = vec![[0u64; KINDS]; SIGNATURES];
    let mut used = vec![0u64; SIGNATURES];
    let mut sig = vec![u16::MAX; counts.len()];
    let mut banned = vec![false; SIGNATURES];
    for tile in 0..tiles.count() {
        let c = *counts.get(tile as usize)?;
        if c.iter()
            .enumerate()
            .any(|(k, n)| k != usize::from(SEA) && *n > 0)
        {
            banned.copy_from_slice(&repeated);
        } else {
            banned.iter_mut().for_each(|b| *b = false);
        }
        for nb in tiles.neighbours(tile) {
            let s = sig[nb as usize];
            if s == u16::MAX {
                continue;
            }
            let d = signature_classes(usize::from(s));
            for pos in 0..3 {
                for class in 0..K {
                    let mut e = d;
                    e[pos] = class;
                    if class != d[pos] {
                        banned[signature_of(e)] = true;
                    }
                }
            }
            for (i, j) in [(0, 1), (1, 2), (0, 2)] {
                let mut e = d;
                e.swap(i, j);
                if e != d {
                    banned[signature_of(e)] = true;
                }
            }
        }
        let here: u64 = c.iter().sum();
        let mut best: Option<(f64, usize)> = None;
        for s in 0..SIGNATURES {
            if banned[s] || used[s] + here > capacity {
                continue;
            }
            let cost = (0..KINDS)
                .map(|k| (load[s][k] + c[k]) as f64 / mean[k])
                .fold(0.0, f64::max);
            if best.is_none_or(|(b, _)| cost < b) {
                best = Some((cost, s));
            }
        }
        let (_, s) = best?;
        for k in 0..KINDS {
            load[s][k] += c[k];
        }
        used[s] += here;
        sig[tile as usize] = s as u16;
    }
    Some(sig)
}

/// The tables cannot be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TablesError {
    /// The list does not split into [`K`] equal classes without two neighbours sharing one.
    #[error("the list of {0} words does not split into {K} equal classes of non-neighbours")]
    Classes(usize),
    /// A tile finds no signature.
    #[error("a tile finds no signature with room left that no neighbouring tile forbids")]
    Signatures,
}

/// The word classes of `words` ([`colour`] with [`neighbours`]) and the signature of every
/// tile of the region table ([`assign`], each signature holding at most its classes' side³
/// squares): the two tables the pack builder writes (ADR 0009 rules 1 and 3).
pub fn tables(regions: &Regions, words: &[String]) -> Result<(Classes, Vec<u16>), TablesError> {
    let class = colour(words, neighbours).ok_or(TablesError::Classes(words.len()))?;
    let lengths: Vec<usize> = words.iter().map(String::len).collect();
    let classes = Classes::new(class, &lengths).map_err(|_| TablesError::Classes(words.len()))?;
    let tiles = Tiles::new(regions.grid());
    let counts: Vec<[u64; KINDS]> = (0..tiles.count())
        .map(|t| tile_counts(regions, &tiles, t))
        .collect();
    let side = classes.side();
    let sig = assign(&tiles, &counts, side * side * side).ok_or(TablesError::Signatures)?;
    Ok((classes, sig))
}

/// SHA-256 (hex) of a signature table: each tile's signature as a little-endian `u16`, in
/// tile order.
pub fn signatures_digest(sig: &[u16]) -> String {
    let mut h = Sha256::new();
    for s in sig {
        h.update(s.to_le_bytes());
    }
    format!("{:x}", h.finalize())
}

/// Word classes of a list, and the order of each class's words (its class indices).
#[derive(Debug, Clone)]
pub struct Classes {
    /// Class of each rank.
    class: Vec<u8>,
    /// Index of each rank among its class's words (in class index order).
    index: Vec<u32>,
    /// Ranks of each class's words, in class index order.
    members: Vec<Vec<u32>>,
}

/// What is wrong with a class assignment.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClassError {
    /// A class outside `[0, K)`.
    #[error("rank {rank} has class {class}, classes are 0 to {}", K - 1)]
    Unknown {
        /// The rank.
        rank: usize,
        /// Its class.
        class: u8,
    },
    /// Classes of different sizes.
    #[error("class sizes differ: {sizes:?}")]
    Unbalanced {
        /// Words per class.
        sizes: Vec<usize>,
    },
    /// Fewer word lengths than the first tier's words.
    #[error("{lengths} word lengths for a first tier of {tier} words")]
    Lengths {
        /// Word lengths given.
        lengths: usize,
        /// Words of the first tier.
        tier: usize,
    },
}

impl Classes {
    /// The classes of the scheme (ADR 0009 rule 1) given by `class[rank]`, `lengths[rank]`
    /// the letters of each word: each class's words of the first tier ([`FIRST_TIER`]) by
    /// length, then rank, then its other words in rank order.
    pub fn new(class: Vec<u8>, lengths: &[usize]) -> Result<Classes, ClassError> {
        Classes::from_assignment(class)?.first_tier_by_length(lengths, FIRST_TIER)
    }

    /// Each class's words of rank below `tier` put first in order of length (`lengths[rank]`),
    /// then rank; the class's other words follow in rank order.
    pub fn first_tier_by_length(
        mut self,
        lengths: &[usize],
        tier: usize,
    ) -> Result<Classes, ClassError> {
        let tier = tier.min(self.class.len());
        if lengths.len() < tier {
            return Err(ClassError::Lengths {
                lengths: lengths.len(),
                tier,
            });
        }
        for m in &mut self.members {
            m.sort_unstable();
            let head = m.partition_point(|&r| (r as usize) < tier);
            m[..head].sort_by_key(|&r| (lengths[r as usize], r));
            for (i, &r) in m.iter().enumerate() {
                self.index[r as usize] = i as u32;
            }
        }
        Ok(self)
    }

    /// The classes given by `class[rank]`: each in `[0, K)`, every class the same size; each
    /// class's words in rank order.
    pub fn from_assignment(class: Vec<u8>) -> Result<Classes, ClassError> {
        let mut members = vec![Vec::new(); K];
        let mut index = Vec::with_capacity(class.len());
        for (rank, &c) in class.iter().enumerate() {
            let Some(m) = members.get_mut(usize::from(c)) else {
                return Err(ClassError::Unknown { rank, class: c });
            };
            index.push(m.len() as u32);
            m.push(rank as u32);
        }
        let sizes: Vec<usize> = members.iter().map(Vec::len).collect();
        if sizes.iter().any(|n| *n != sizes[0]) {
            return Err(ClassError::Unbalanced { sizes });
        }
        Ok(Classes {
            class,
            index,
            members,
        })
    }

    /// Words per class.
    pub fn side(&self) -> u64 {
        self.members.first().map_or(0, Vec::len) as u64
    }

    /// Words in all.
    pub fn words(&self) -> usize {
        self.class.len()
    }

    /// The class of rank `rank`, `None` past the list.
    pub fn class(&self, rank: u64) -> Option<u8> {
        self.class.get(usize::try_from(rank).ok()?).copied()
    }

    /// The ranks of class `c`, in class index order.
    pub fn members(&self, c: usize) -> &[u32] {
        self.members.get(c).map_or(&[], Vec::as_slice)
    }

    /// Each rank's class, in rank order.
    pub fn assignment(&self) -> &[u8] {
        &self.class
    }

    /// SHA-256 (hex) of the assignment: each rank's class as one byte, in rank order
    /// ([`classes_digest`]).
    pub fn digest(&self) -> String {
        classes_digest(&self.class)
    }
}

/// SHA-256 (hex) of a class assignment, one byte per rank (the pack's `classes:en` blob).
pub fn classes_digest(class: &[u8]) -> String {
    format!("{:x}", Sha256::digest(class))
}

/// The key of the permutation of the kind at position `p` of [`KIND_ORDER`] in signature
/// `s`: the first 8 bytes, big-endian, of `SHA-256("waymark threewords v3 signature s kind p")`.
pub fn permutation_key(s: usize, p: usize) -> u64 {
    let d = Sha256::digest(format!("waymark threewords v3 signature {s} kind {p}").as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_be_bytes(b)
}

/// The scheme cannot be built on these tables.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SchemeError {
    /// Not one signature per tile.
    #[error("the signature table has {found} tiles, the grid {expected}")]
    Tiles {
        /// Signatures found.
        found: usize,
        /// Tiles of the grid.
        expected: usize,
    },
    /// A signature outside `[0, K³)`.
    #[error("tile {tile} has signature {signature}, signatures are 0 to {}", SIGNATURES - 1)]
    Signature {
        /// The tile.
        tile: usize,
        /// Its signature.
        signature: u16,
    },
    /// More squares in a signature's tiles than it has triples.
    #[error("signature {signature} holds {squares} squares, more than its {triples} triples")]
    Full {
        /// The signature.
        signature: usize,
        /// Squares of its tiles.
        squares: u64,
        /// Its triples (words per class, cubed).
        triples: u64,
    },
}

/// Square ↔ word-rank triple, scheme version 3.
#[derive(Debug, Clone)]
pub struct Scheme {
    regions: Regions,
    tiles: Tiles,
    sig: Vec<u16>,
    classes: Classes,
    /// Per signature, its tiles in tile order.
    sig_tiles: Vec<Vec<u32>>,
    /// Per tile, its position in its signature's list.
    pos: Vec<u32>,
    /// Per signature, per tile position, squares of each region before it (totals last).
    prefix: Vec<Vec<[u64; KINDS]>>,
    /// Per signature, the first number of each kind in [`KIND_ORDER`], and the total last.
    offsets: Vec<[u64; KINDS + 1]>,
    /// Per signature, the permutation of each kind in [`KIND_ORDER`].
    perms: Vec<[Permutation; KINDS]>,
    /// Columns of each region before every run of the region table.
    columns: Columns,
    /// Columns of each region in each band of the tiles of more than one region.
    widths: TileWidths,
}

impl Scheme {
    /// The scheme over `regions`, with tile signatures `sig` and word classes `classes`.
    pub fn new(regions: Regions, sig: Vec<u16>, classes: Classes) -> Result<Scheme, SchemeError> {
        let tiles = Tiles::new(regions.grid());
        if sig.len() != tiles.count() as usize {
            return Err(SchemeError::Tiles {
                found: sig.len(),
                expected: tiles.count() as usize,
            });
        }
        let mut sig_tiles = vec![Vec::new(); SIGNATURES];
        let mut pos = vec![0u32; sig.len()];
        for (t, &s) in sig.iter().enumerate() {
            let Some(list) = sig_tiles.get_mut(usize::from(s)) else {
                return Err(SchemeError::Signature {
                    tile: t,
                    signature: s,
                });
            };
            pos[t] = list.len() as u32;
            list.push(t as u32);
        }
        let columns = Columns::new(&regions);
        let (widths, counts) = TileWidths::new(&regions, &tiles, &columns);
        let side = classes.side();
        let triples = side * side * side;
        let mut prefix = Vec::with_capacity(SIGNATURES);
        let mut offsets = Vec::with_capacity(SIGNATURES);
        let mut perms = Vec::with_capacity(SIGNATURES);
        for (s, list) in sig_tiles.iter().enumerate() {
            let mut p = Vec::with_capacity(list.len() + 1);
            let mut acc = [0u64; KINDS];
            for &t in list {
                p.push(acc);
                let c = counts[t as usize];
                for k in 0..KINDS {
                    acc[k] += c[k];
                }
            }
            p.push(acc);
            let mut o = [0u64; KINDS + 1];
            for (p, &k) in KIND_ORDER.iter().enumerate() {
                o[p + 1] = o[p] + acc[usize::from(k)];
            }
            if o[KINDS] > triples {
                return Err(SchemeError::Full {
                    signature: s,
                    squares: o[KINDS],
                    triples,
                });
            }
            perms.push(std::array::from_fn(|p| {
                let k = usize::from(KIND_ORDER[p]);
                Permutation::new(acc[k].max(1), permutation_key(s, p))
            }));
            prefix.push(p);
            offsets.push(o);
        }
        Ok(Scheme {
            regions,
            tiles,
            sig,
            classes,
            sig_tiles,
            pos,
            prefix,
            offsets,
            perms,
            columns,
            widths,
        })
    }

    /// The regions.
    pub fn regions(&self) -> &Regions {
        &self.regions
    }

    /// The tiles.
    pub fn tiles(&self) -> &Tiles {
        &self.tiles
    }

    /// The word classes.
    pub fn classes(&self) -> &Classes {
        &self.classes
    }

    /// The signature of a tile.
    pub fn signature(&self, tile: u32) -> u16 {
        self.sig[tile as usize]
    }

    /// Squares of the tiles of signature `s`.
    pub fn load(&self, s: usize) -> u64 {
        self.offsets.get(s).map_or(0, |o| o[KINDS])
    }

    /// The word ranks of square `s`.
    pub fn triple(&self, s: Square) -> [u64; 3] {
        let tile = self.tiles.tile_of(s);
        let sg = usize::from(self.sig[tile as usize]);
        let k = self.regions.region(s);
        let local = self.prefix[sg][self.pos[tile as usize] as usize][k as usize]
            + self.in_tile(tile, k, s);
        let p = kind_position(k);
        let n = self.offsets[sg][p] + self.perms[sg][p].apply(local);
        let idx = shell::triple(n);
        let cls = signature_classes(sg);
        std::array::from_fn(|i| u64::from(self.classes.members[cls[i]][idx[i] as usize]))
    }
}

mod columns;
mod place;
mod words;
use columns::{Columns, TileWidths};
pub use place::{Numbered, Placed};
pub use words::{colour, each_edit, neighbours, one_edit};

#[cfg(test)]
mod tests;
