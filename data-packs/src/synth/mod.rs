//! Synthetic road networks for measuring build and query cost, written as a real OSM PBF
//! file ([`pbf::PbfWriter`]) of about as many nodes as asked: one square city grid of
//! streets ([`Layout::City`], the default), or a country of such grids joined by rural roads
//! ([`Layout::Country`], [`country`]).
//!
//! What the grid holds, so that every OSM layer of the builder has input:
//!
//! * **Streets**: every grid row and column is a named street (`highway=residential`, every 5th
//!   `tertiary`, every 10th `secondary`, every 20th `primary`, with `maxspeed`, `surface`,
//!   `cycleway=lane` on the larger ones; a quarter of the residential streets `oneway=yes`,
//!   half of those open to bicycles both ways). Blocks are [`SPACING_M`] apart; each street is
//!   cut into ways of [`CHUNK`] blocks, with [`SHAPE_NODES`] shape nodes along every block side
//!   (the streets bend with the warp of the plane, so a real way needs them too). Junctions are
//!   therefore about one OSM node in fifteen, as in real extracts (Neubrandenburg: 12,568 road
//!   graph nodes of 119,320 nodes read).
//! * **A tolled motorway**: two carriageways (`highway=motorway`, `oneway=yes`, `toll=yes`,
//!   `maxspeed=120`, `ref=A 100`) across the middle of the grid, joined to every 8th column
//!   street, with a `barrier=toll_booth`.
//! * **Footways and cycleways** across about one block in eleven.
//! * **Buildings with addresses**: two per block (`building=*`, `addr:housenumber`,
//!   `addr:street`, `addr:postcode`, `addr:city`).
//! * **POIs** in about one block in seventeen (cafés, restaurants, pharmacies, branded
//!   supermarkets and bakeries, fuel stations, banks, hotels), a `place=city` node, a
//!   `place=suburb` node every 40 blocks, the city's `boundary=administrative` relation, a
//!   shopping mall with two indoor rooms, and `no_left_turn` restrictions at some junctions.
//!
//! The plane is warped a little (see `Grid::at`) so that blocks differ in size as in a real
//! city. The grid's south-west corner is [`DEFAULT_ORIGIN`] (south of Berlin) unless given, so
//! that country, timezone and IP layers find their data. Everything is a pure function of
//! the options: the same options give the same file. The file is written as it is generated
//! (nodes, then ways, then relations, ids ascending), without holding the network in memory.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

pub mod country;
mod names;
pub mod pbf;
mod write;

use pbf::{MemberType, PbfWriter};
use write::{finish, grid_nodes, grid_relations, grid_ways, refs, write_grid};

/// The grid's south-west corner by default, `(lat, lng)`: Brandenburg, south of Berlin (a
/// 5-million-node grid reaches about 70 km north and east, still in Germany).
pub const DEFAULT_ORIGIN: (f64, f64) = (52.05, 13.0);

/// Distance between neighbouring streets, metres.
pub const SPACING_M: f64 = 100.0;

/// Blocks per street way.
pub const CHUNK: usize = 10;

/// The city's name (`place=city`, `addr:city`, the boundary).
pub const CITY: &str = "Rasterstadt";

/// Node ids reserved per block (not all used): 0 and 1 the middle shape nodes of the row and
/// column side, 2 footway, 3..11 building corners, 11 POI, 12 suburb, 13..17 the other shape
/// nodes.
const SLOTS: u64 = 17;

/// Shape nodes along every block side of a street.
pub const SHAPE_NODES: usize = 3;

/// Nodes per block, on average: 1 junction, 2 × 3 shape nodes, 8 building corners, 1/11
/// footway node, 1/17 POI.
const NODES_PER_BLOCK: f64 = 15.15;

/// Positions of the shape nodes along a block side (fractions of the side) and their slots:
/// row side, column side.
const SHAPE_AT: [(f64, u64, u64); SHAPE_NODES] = [(0.25, 13, 15), (0.5, 0, 1), (0.75, 14, 16)];

/// Every this many streets one is an arterial (tertiary or larger, through).
const ARTERIAL_EVERY: usize = 5;

/// Every this many columns the motorway joins the column street.
const JUNCTION_EVERY: usize = 8;

/// Replication timestamp of the generated file (2026-01-01T00:00:00Z).
const TIMESTAMP: i64 = 1_767_225_600;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SynthOptions {
    /// About how many nodes (the grid is the square whose node count is nearest).
    pub nodes: u64,
    /// Varies the street classes, one-way streets, building and POI types.
    pub seed: u64,
    /// South-west corner, `(lat, lng)`.
    pub origin: (f64, f64),
    /// One city grid, or a country of towns joined by rural roads.
    pub layout: Layout,
}

/// The shape of the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// One square city grid of every node: the worst case for graph separators (any
    /// straight cut crosses a whole row of streets).
    #[default]
    City,
    /// A country: towns of Zipf-distributed sizes (each a city grid) scattered over open land
    /// and joined by rural roads and trunk roads ([`country`]).
    Country,
}

impl SynthOptions {
    /// `nodes` nodes at [`DEFAULT_ORIGIN`] with seed 1.
    pub fn nodes(nodes: u64) -> Self {
        SynthOptions {
            nodes,
            seed: 1,
            origin: DEFAULT_ORIGIN,
            layout: Layout::City,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SynthStats {
    /// Junctions per side of the grid (of the largest town in a country layout).
    pub grid: usize,
    /// Towns (1 for a city layout).
    pub towns: usize,
    /// Nodes written.
    pub nodes: u64,
    /// Ways written.
    pub ways: u64,
    /// Relations written.
    pub relations: u64,
    /// Routable ways among them (streets, motorway, footways, cycleways).
    pub routable_ways: u64,
    /// Buildings with an address.
    pub addressed_buildings: u64,
    /// POI nodes (the toll booth and places not counted).
    pub pois: u64,
    /// Turn restriction relations.
    pub restrictions: u64,
    /// `[west, south, east, north]` of every node.
    pub bbox: [f64; 4],
    /// File size.
    pub bytes: u64,
}

impl SynthStats {
    fn empty(grid: usize, bbox: [f64; 4]) -> SynthStats {
        SynthStats {
            grid,
            towns: 1,
            nodes: 0,
            ways: 0,
            relations: 0,
            routable_ways: 0,
            addressed_buildings: 0,
            pois: 0,
            restrictions: 0,
            bbox,
            bytes: 0,
        }
    }
}

/// SplitMix64 of a few numbers: the deterministic choices of the grid.
fn mix(parts: &[u64]) -> u64 {
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15;
    for &p in parts {
        let mut z = h ^ p.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        h = z ^ (z >> 31);
    }
    h
}

use names::{STEMS, SUFFIXES};

/// A street of the grid: `(highway, name, maxspeed, oneway)`.
#[derive(Debug, Clone)]
struct Street {
    highway: &'static str,
    name: String,
    maxspeed: &'static str,
    oneway: Option<&'static str>,
    bicycle_contraflow: bool,
}

/// The grid's geometry and id layout.
#[derive(Debug, Clone)]
struct Grid {
    g: usize,
    seed: u64,
    lat0: f64,
    lon0: f64,
    dlat: f64,
    dlon: f64,
    /// The motorway runs inside block row `rm` (between street rows `rm` and `rm + 1`).
    rm: usize,
    /// Block of the shopping mall.
    mall: (usize, usize),
    /// Street ways per street.
    chunks: usize,
    /// Added to every node id (the towns of a country layout each take a range).
    base: i64,
    /// The town's name (`place=*`, `addr:city`, the boundary).
    name: String,
    /// Its `place=*` value.
    place: &'static str,
}

impl Grid {
    fn new(o: &SynthOptions) -> Grid {
        let blocks = (o.nodes as f64 / NODES_PER_BLOCK).max(1.0);
        let g = (blocks.sqrt().round() as usize).max(12);
        Grid::sized(g, o.seed, o.origin, 0, CITY.to_string(), "city")
    }

    /// A grid of `g` junctions per side at `origin`, its node ids from `base + 1`.
    fn sized(
        g: usize,
        seed: u64,
        origin: (f64, f64),
        base: i64,
        name: String,
        place: &'static str,
    ) -> Grid {
        let o = SynthOptions {
            nodes: 0,
            seed,
            origin,
            layout: Layout::City,
        };
        let dlat = SPACING_M / 111_320.0;
        let dlon = dlat / o.origin.0.to_radians().cos();
        Grid {
            g,
            seed: o.seed,
            lat0: o.origin.0,
            lon0: o.origin.1,
            dlat,
            dlon,
            rm: g / 2,
            mall: (g / 2 + 3, g / 2 + 3),
            chunks: (g - 1).div_ceil(CHUNK),
            base,
            name,
            place,
        }
    }

    /// The corners of building `first` (3 or 7) of block `(i, j)`: `(id, y, x)`.
    fn building(&self, i: usize, j: usize, first: u64) -> [(i64, f64, f64); 4] {
        let (a, b) = if first == 3 { (0.12, 0.4) } else { (0.6, 0.88) };
        let (y, x) = (i as f64, j as f64);
        [
            (self.slot(i, j, first), y + a, x + a),
            (self.slot(i, j, first + 1), y + a, x + b),
            (self.slot(i, j, first + 2), y + b, x + b),
            (self.slot(i, j, first + 3), y + b, x + a),
        ]
    }

    /// How many node ids the grid reserves.
    fn id_span(&self) -> i64 {
        self.special(2 * self.g + 17) - self.base
    }

    /// `(lat, lng)` of grid position `y` (rows, north) and `x` (columns, east), through a
    /// smooth warp of the plane: streets bend a little and blocks are 70-130 % of
    /// [`SPACING_M`], as in a real city. A perfectly regular grid would make every block side
    /// the same length to the centimetre, a pathological case of equal-cost paths that no
    /// real extract has (it slows the routing preparation down by orders of magnitude).
    fn at(&self, y: f64, x: f64) -> (f64, f64) {
        let p = (self.seed % 1000) as f64 * 0.001;
        let wy = y + 0.12 * (0.71 * x + p).sin() + 0.11 * (1.37 * y + 2.0 * p).sin();
        let wx = x + 0.12 * (0.83 * y + 3.0 * p).sin() + 0.11 * (1.19 * x + 4.0 * p).sin();
        (self.lat0 + wy * self.dlat, self.lon0 + wx * self.dlon)
    }

    fn junction(&self, i: usize, j: usize) -> i64 {
        self.base + 1 + (i * self.g + j) as i64
    }

    fn slot(&self, i: usize, j: usize, k: u64) -> i64 {
        let g = self.g as u64;
        self.base + (1 + g * g + (i as u64 * g + j as u64) * SLOTS + k) as i64
    }

    fn special(&self, k: usize) -> i64 {
        let g = self.g as u64;
        self.base + (1 + g * g + g * g * SLOTS) as i64 + k as i64
    }

    /// Eastbound motorway node at column `j`.
    fn mw_east(&self, j: usize) -> i64 {
        self.special(j)
    }

    /// Westbound motorway node at column `j`.
    fn mw_west(&self, j: usize) -> i64 {
        self.special(self.g + j)
    }

    /// Other special nodes: 0..4 boundary corners, 4 city, 5..9 mall, 9..13 and 13..17 rooms.
    fn other(&self, k: usize) -> i64 {
        self.special(2 * self.g + k)
    }

    /// Whether the column side from junction `(i, j)` north has shape nodes (not where it
    /// crosses the motorway: there the motorway's nodes are on it).
    fn has_column_shape(&self, i: usize, j: usize) -> bool {
        self.has_side(false, i, j) && !(i == self.rm && self.is_junction_column(j))
    }

    fn is_junction_column(&self, j: usize) -> bool {
        j % JUNCTION_EVERY == JUNCTION_EVERY / 2
    }

    /// Whether block `(i, j)` holds ordinary buildings (not the motorway's row, not the mall).
    fn built_up(&self, i: usize, j: usize) -> bool {
        i + 1 < self.g && j + 1 < self.g && i != self.rm && (i, j) != self.mall
    }

    fn has_footway(&self, i: usize, j: usize) -> bool {
        self.built_up(i, j)
            && self.has_side(true, i, j)
            && self.has_side(true, i + 1, j)
            && mix(&[self.seed, 1, i as u64, j as u64]).is_multiple_of(11)
    }

    fn poi_kind(&self, i: usize, j: usize) -> Option<u64> {
        let h = mix(&[self.seed, 2, i as u64, j as u64]);
        (self.built_up(i, j) && h.is_multiple_of(17)).then_some((h >> 8) % 8)
    }

    fn has_suburb(&self, i: usize, j: usize) -> bool {
        self.built_up(i, j) && i % 40 == 20 && j % 40 == 20
    }

    /// Whether street `k` of rows (`horizontal`) or columns is residential (not an arterial
    /// of the every-5th-street network).
    fn is_residential(k: usize) -> bool {
        !k.is_multiple_of(ARTERIAL_EVERY)
    }

    /// Whether the block side from junction `(i, j)` east (`horizontal`) or north exists.
    /// Arterials run through; residential streets do not, as in a real city: on alternate
    /// streets the residential side that reaches the next arterial is missing (a T-junction
    /// there, and no through route across the arterial grid), and about one residential row
    /// side in eight inside a superblock is missing (dead ends). Every junction keeps at least
    /// one side (a junction loses its north side only at `i % 5 == 4`, its south side only at
    /// `i % 5 == 0`); the motorway's crossings and the sides at the grid's edge stay.
    fn has_side(&self, horizontal: bool, i: usize, j: usize) -> bool {
        let (street, along) = if horizontal { (i, j) } else { (j, i) };
        let g = self.g;
        if along + 1 >= g {
            return false;
        }
        if !Self::is_residential(street) || (!horizontal && i == self.rm) {
            return true;
        }
        let next = along + 1;
        if next.is_multiple_of(ARTERIAL_EVERY) && (street + next / ARTERIAL_EVERY) % 2 == 1 {
            return false;
        }
        !(horizontal
            && matches!(along % ARTERIAL_EVERY, 1 | 2)
            && mix(&[self.seed, 5, i as u64, j as u64]).is_multiple_of(8))
    }

    /// Street `k` of rows (`horizontal`) or columns.
    fn street(&self, horizontal: bool, k: usize) -> Street {
        let (highway, maxspeed) = if k.is_multiple_of(20) {
            ("primary", "60")
        } else if k.is_multiple_of(10) {
            ("secondary", "50")
        } else if k.is_multiple_of(5) {
            ("tertiary", "50")
        } else {
            ("residential", "30")
        };
        let n = 2 * k + usize::from(horizontal);
        let stem = STEMS[n % STEMS.len()];
        let suffix = SUFFIXES[(n / STEMS.len()) % SUFFIXES.len()];
        let round = n / (STEMS.len() * SUFFIXES.len());
        let name = if round == 0 {
            format!("{stem}{suffix}")
        } else {
            format!("{stem}{suffix} {}", round + 1)
        };
        let h = mix(&[self.seed, 3, u64::from(horizontal), k as u64]);
        let oneway = (highway == "residential" && h.is_multiple_of(4))
            .then_some(if h.is_multiple_of(8) { "yes" } else { "-1" });
        Street {
            highway,
            name,
            maxspeed,
            oneway,
            bicycle_contraflow: oneway.is_some() && (h >> 8).is_multiple_of(2),
        }
    }

    fn postcode(&self, i: usize, j: usize) -> String {
        format!("{:05}", 14_000 + (i / 20) * 64 + j / 20)
    }

    /// Holds every node: the warp moves points by less than a quarter of a block.
    fn bbox(&self) -> [f64; 4] {
        let e = self.g as f64;
        [
            self.lon0 - self.dlon,
            self.lat0 - self.dlat,
            self.lon0 + e * self.dlon,
            self.lat0 + e * self.dlat,
        ]
    }
}

/// Writes the network of `opts` to `path` as OSM PBF.
pub fn write_synthetic(path: &Path, opts: &SynthOptions) -> io::Result<SynthStats> {
    let file = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let (stats, _) = match opts.layout {
        Layout::City => write_grid(&Grid::new(opts), file)?,
        Layout::Country => country::write_country(opts, file)?,
    };
    Ok(stats)
}

#[cfg(test)]
mod tests;
