//! Word ranks → square in three steps, each usable on its own: the number of the triple within
//! its signature ([`Scheme::numbered`]: class lookups and a shell number, which already give
//! the kind of square), the tile and the index among the tile's squares of that kind
//! ([`Scheme::place`]: the inverse permutation), and the square itself
//! ([`Scheme::square_of`]: the walk over the tile's bands). Autosuggest weighs thousands of
//! triples per request and drops most of them from the signature's tiles or the tile alone
//! (too far from the focus, outside a clip), before the costlier steps.

use super::{KIND_ORDER, KINDS, Scheme, Tiles, signature_of};
use crate::grid::{ROWS_PER_BAND, Square, row_height};
use crate::shell;

/// Word ranks numbered within their signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Numbered {
    /// The signature (class triple) of the ranks.
    pub signature: usize,
    /// The number within the signature.
    n: u64,
    /// Position in [`KIND_ORDER`] of the kind the number falls in.
    p: usize,
}

impl Numbered {
    /// The region (kind of square) of the number.
    pub fn region(&self) -> u8 {
        KIND_ORDER[self.p]
    }
}

/// A numbered triple placed in its tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placed {
    /// The tile holding the square.
    pub tile: u32,
    /// The region of the square.
    pub region: u8,
    /// Index of the square among the tile's squares of its region.
    index: u64,
}

impl Scheme {
    /// The number of word ranks `ranks` within their signature; `None` when they name no
    /// square.
    pub fn numbered(&self, ranks: [u64; 3]) -> Option<Numbered> {
        let mut c = [0usize; 3];
        let mut idx = [0u64; 3];
        for i in 0..3 {
            c[i] = usize::from(self.classes.class(ranks[i])?);
            idx[i] = u64::from(self.classes.index[ranks[i] as usize]);
        }
        let signature = signature_of(c);
        let n = shell::number(idx);
        let o = &self.offsets[signature];
        if n >= o[KINDS] {
            return None;
        }
        let p = (0..KINDS).rev().find(|&p| o[p] <= n)?;
        Some(Numbered { signature, n, p })
    }

    /// The tile of a numbered triple and its index among the tile's squares of its kind.
    pub fn place(&self, at: Numbered) -> Option<Placed> {
        let Numbered {
            signature: sg,
            n,
            p,
        } = at;
        let o = &self.offsets[sg];
        let local = self.perms[sg][p].invert(n - o[p]);
        let k = usize::from(KIND_ORDER[p]);
        let prefix = &self.prefix[sg];
        let i = prefix.partition_point(|e| e[k] <= local).checked_sub(1)?;
        let tile = *self.sig_tiles[sg].get(i)?;
        Some(Placed {
            tile,
            region: KIND_ORDER[p],
            index: local - prefix[i][k],
        })
    }

    /// The square of a placed triple.
    pub fn square_of(&self, at: Placed) -> Option<Square> {
        self.square_in_tile(at.tile, at.region, at.index)
    }

    /// The square of word ranks `ranks`, `None` when they name none.
    pub fn square(&self, ranks: [u64; 3]) -> Option<Square> {
        self.square_of(self.place(self.numbered(ranks)?)?)
    }

    /// The region of the square of word ranks `ranks` (from the number within the signature
    /// alone), `None` when they name no square.
    pub fn region_of(&self, ranks: [u64; 3]) -> Option<u8> {
        self.numbered(ranks).map(|at| at.region())
    }

    /// [`Scheme::region_of`] and [`Scheme::square`] at once: the region of word ranks `ranks`
    /// and their square, `None` when they name no square.
    pub fn region_and_square(&self, ranks: [u64; 3]) -> Option<(u8, Option<Square>)> {
        let at = self.numbered(ranks)?;
        Some((at.region(), self.place(at).and_then(|p| self.square_of(p))))
    }

    /// The tiles of signature `s`, in tile order.
    pub fn signature_tiles(&self, s: usize) -> &[u32] {
        self.sig_tiles.get(s).map_or(&[], Vec::as_slice)
    }
}

impl Tiles {
    /// `[south, west, north, east]`, degrees, of a box holding every square of `tile`: the
    /// latitudes of its row, and from the west edge of the `j`-th of the row's `T` equal
    /// longitude ranges to one column (of the row's narrowest band) past its east edge (each
    /// band `b` starts the tile at column `⌈j·N_b/T⌉`, east of `j·360/T`, and ends it before
    /// column `⌈(j+1)·N_b/T⌉`, less than one column past `(j+1)·360/T`).
    pub fn bounds(&self, tile: u32) -> [f64; 4] {
        let (r, j) = self.row_col(tile);
        let (b0, b1) = self.bands(r);
        let h = row_height() * f64::from(ROWS_PER_BAND);
        let t = f64::from(self.per_row[r as usize]);
        let fewest = (b0..b1)
            .map(|b| self.columns[b as usize])
            .min()
            .unwrap_or(1)
            .max(1);
        [
            -90.0 + f64::from(b0) * h,
            -180.0 + f64::from(j) * 360.0 / t,
            (-90.0 + f64::from(b1) * h).min(90.0),
            -180.0 + f64::from(j + 1) * 360.0 / t + 360.0 / f64::from(fewest),
        ]
    }
}
