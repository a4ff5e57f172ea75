//! Where the square of a triple can lie before it is found: each tile of the scheme as a disc
//! (its centre and a radius holding every square of it), and per signature the largest radius
//! of its tiles. Autosuggest with a focus or a clip weighs up to
//! [`super::suggest::MAX_LOCATED`] triples; one whose signature's tiles, or whose tile, lie too
//! far from the focus for its score to reach the best three found so far, or wholly outside
//! the clip, cannot be answered, and is dropped before the inverse permutation or the walk
//! over the tile's bands.
//!
//! **The radius.** A point `p` of a tile, centre `c`, is reached from `c` along `c`'s meridian
//! to `p`'s latitude (at most half the tile's height) and then along that parallel (at most
//! half its width, times the cosine of the tile's latitude nearest the equator): a path no
//! shorter than the great circle, so `d(f, p) ≥ d(f, c) − radius` for any `f`. Centres are
//! kept as `f32` unit vectors (≈ 1 m off at most), so [`MARGIN_M`] more is taken off.

use waymark_threewords::v3::{SIGNATURES, Scheme};

use crate::geo::{EARTH_RADIUS_M, Pt};

/// Taken off every lower bound, metres: the `f32` centres and the rounding of the distances.
const MARGIN_M: f64 = 10.0;
/// Degrees added around a tile's box when it is tested against a clip's box.
const MARGIN_DEG: f64 = 1e-7;

/// The unit vector of a position.
fn unit(p: Pt) -> [f64; 3] {
    let (lat, lng) = (p.lat.to_radians(), p.lng.to_radians());
    [lat.cos() * lng.cos(), lat.cos() * lng.sin(), lat.sin()]
}

/// Great-circle distance, metres, of two points given by their unit vectors, from the chord.
fn arc_m(a: [f64; 3], b: [f32; 3]) -> f64 {
    chord_arc_m(chord2(a, b))
}

/// Squared chord between unit vectors.
fn chord2(a: [f64; 3], b: [f32; 3]) -> f64 {
    let d = [
        a[0] - f64::from(b[0]),
        a[1] - f64::from(b[1]),
        a[2] - f64::from(b[2]),
    ];
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

/// The great-circle distance, metres, of a squared chord of the unit sphere.
fn chord_arc_m(c2: f64) -> f64 {
    2.0 * EARTH_RADIUS_M * (c2.sqrt() / 2.0).min(1.0).asin()
}

/// Every tile of a scheme as a disc, and its box.
#[derive(Debug)]
pub struct TileDiscs {
    /// Per tile, its centre (unit vector).
    centre: Vec<[f32; 3]>,
    /// Per tile, a radius (metres) around the centre holding all its squares.
    radius: Vec<f32>,
    /// Per signature, the largest radius of its tiles.
    signature_radius: Vec<f32>,
}

impl TileDiscs {
    /// The discs of the tiles of `scheme`.
    pub fn new(scheme: &Scheme) -> TileDiscs {
        let tiles = scheme.tiles();
        let n = tiles.count() as usize;
        let (mut centre, mut radius) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for t in 0..tiles.count() {
            let [s, w, nth, e] = tiles.bounds(t);
            let c = Pt::new((s + nth) / 2.0, (w + e) / 2.0);
            let u = unit(c);
            centre.push(u.map(|x| x as f32));
            let equatorward = if s <= 0.0 && nth >= 0.0 {
                0.0
            } else {
                s.abs().min(nth.abs())
            };
            let r = EARTH_RADIUS_M
                * ((nth - s).to_radians() / 2.0
                    + equatorward.to_radians().cos() * (e - w).to_radians() / 2.0);
            // Rounded up to the next f32.
            radius.push((r * (1.0 + 1e-6)) as f32);
        }
        let signature_radius = (0..SIGNATURES)
            .map(|s| {
                scheme
                    .signature_tiles(s)
                    .iter()
                    .map(|&t| radius[t as usize])
                    .fold(0.0, f32::max)
            })
            .collect();
        TileDiscs {
            centre,
            radius,
            signature_radius,
        }
    }

    /// Least distance, metres, from `from` (a unit vector) to any square of `tile`.
    pub fn tile_min_m(&self, from: [f64; 3], tile: u32) -> f64 {
        let t = tile as usize;
        (arc_m(from, self.centre[t]) - f64::from(self.radius[t]) - MARGIN_M).max(0.0)
    }

    /// Least distance, metres, from `from` to any square of the tiles of signature `s`.
    pub fn signature_min_m(&self, scheme: &Scheme, from: [f64; 3], s: usize) -> f64 {
        let nearest = scheme
            .signature_tiles(s)
            .iter()
            .map(|&t| chord2(from, self.centre[t as usize]))
            .fold(f64::INFINITY, f64::min);
        if !nearest.is_finite() {
            return f64::INFINITY;
        }
        (chord_arc_m(nearest) - f64::from(self.signature_radius[s]) - MARGIN_M).max(0.0)
    }
}

/// `[south, west, north, east]` degrees of a box holding the centres of `tile`'s squares, a
/// little wider than the tile (the centres and the box are rounded apart).
pub fn tile_box(scheme: &Scheme, tile: u32) -> [f64; 4] {
    let [s, w, n, e] = scheme.tiles().bounds(tile);
    [
        s - MARGIN_DEG,
        w - MARGIN_DEG,
        n + MARGIN_DEG,
        e + MARGIN_DEG,
    ]
}

/// The unit vector of `p`, for [`TileDiscs`].
pub fn unit_of(p: Pt) -> [f64; 3] {
    unit(p)
}

/// Whether two boxes `[south, west, north, east]` (longitudes compared as numbers, as the
/// clips compare them) meet.
pub fn boxes_meet(a: [f64; 4], b: [f64; 4]) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}
