//! Timezone of a coordinate: point-in-polygon over the packs' `timezones` layer, then the
//! offsets in force at an instant from the tz database (chrono-tz).
//!
//! The polygons of every loaded pack with the layer are decoded once per pack set and indexed
//! by an adaptive grid ([`TimezoneIndexBuilder::build`]):
//!
//! * 1° cells cover the world; a cell met by more than [`LEAF_EDGES`] polygon edges is split
//!   in four, recursively (down to 1/2^[`MAX_DEPTH`]°, about 7 m).
//! * A cell that no edge meets lies entirely inside the same zones: it stores its answer.
//! * Any other leaf stores the few edges meeting it, grouped by zone, and the zones that
//!   contain a reference point `r` inside it. A point `q` of the leaf is inside a zone when `r`
//!   is and the segment `r → q` crosses the zone's edges an even number of times (or `r` is
//!   not and it crosses them an odd number of times). The segment lies in the leaf, so only
//!   the leaf's edges can cross it.
//!
//! The zones containing each reference point are computed while building: for the 1° cells
//! by one even-odd sweep per row of cells (the same rule as a horizontal ray cast), for the
//! cells below them by the same parity rule from the parent's reference point.
//!
//! The answer is the first zone (in load order) containing the point, as a scan of the
//! polygons would give. Points in no polygon (open sea the data does not cover, gaps of the
//! simplified coasts, the poles) get the nautical zone `Etc/GMT±N` of their longitude.
//!
//! Files: `builder` collects the rings and builds the grid, `index` answers lookups,
//! `geometry` holds the predicates both share, `offsets` the tz-database side.
use crate::geo::PolylineError;

mod builder;
mod geometry;
mod index;
mod offsets;
#[cfg(test)]
mod tests;

pub use builder::TimezoneIndexBuilder;
pub use index::{TimezoneIndex, TimezoneIndexStats};
pub use offsets::{nautical_zone, offsets};

/// A cell met by more edges than this is split (unless it is already [`MAX_DEPTH`] deep).
pub const LEAF_EDGES: usize = 16;
/// Depth limit of the splits below the 1° cells.
pub const MAX_DEPTH: u32 = 14;

/// No zone (the nautical zone of the longitude answers).
const NONE: u16 = u16::MAX;
/// Node tags (top two bits of a node word).
const TAG_UNIFORM: u32 = 0;
const TAG_SPLIT: u32 = 1 << 30;
const TAG_LEAF: u32 = 2 << 30;
const TAG_MASK: u32 = 3 << 30;
/// Where the reference point of a cell lies, as fractions of the cell's size from its
/// south-west corner: near the centre, but off the round values (half degrees, the meridians
/// of the nautical zones) that polygon vertices and edges take.
const REF_X: f64 = 0.513_709_37;
const REF_Y: f64 = 0.507_134_51;
/// Number of 1° cells.
const TOP_W: usize = 360;
const TOP_H: usize = 180;

type Point = [f64; 2];

/// Why a pack's timezone polygons cannot be indexed, or a zone has no offsets.
#[derive(Debug, thiserror::Error)]
pub enum TimezoneError {
    /// More zones than the index numbers.
    #[error("{tzid}: more than {NONE} zones")]
    TooManyZones {
        /// The zone that did not fit.
        tzid: String,
    },
    /// A stored shape that is not a JSON array of polygons of encoded rings.
    #[error("{tzid}: shape: {source}")]
    Shape {
        /// Zone.
        tzid: String,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// A ring that is not a valid precision-6 polyline.
    #[error("{tzid}: {source}")]
    Ring {
        /// Zone.
        tzid: String,
        /// The polyline error.
        source: PolylineError,
    },
    /// More vertices than the index numbers.
    #[error("too many timezone vertices")]
    TooManyVertices,
    /// A zone the tz database of this build does not know.
    #[error("`{0}` is not in the tz database of this build")]
    UnknownZone(String),
}
