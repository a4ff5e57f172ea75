//! The three-word layer of a pack set, loaded once per set: the scheme (version 3, ADR 0009)
//! over the pack's region table, word classes and tile signatures (each checked against the
//! SHA-256 pinned with the scheme), the word lists, the populated
//! places (a k-d tree of their positions in space, [`super::nearest`]) and the country outlines (point-in-country
//! through an index of edges by latitude strip, so a lookup reads a few dozen edges rather
//! than a whole 1:10m coastline).
use std::collections::HashMap;

use rstar::RTree;
use rstar::primitives::{GeomWithData, Rectangle};
use rusqlite::Connection;
use waymark_threewords::codec::{decode_polygons, decode_runs, decode_signatures};
use waymark_threewords::grid::{BANDS, Grid};
use waymark_threewords::regions::Regions;
use waymark_threewords::v3::{self, Classes, Scheme};
use waymark_threewords::{SCHEME_VERSION, WORDS};

use crate::error::{ApiError, ErrorCode};
use crate::geo::{Pt, xyz};
use crate::packs::PackSet;
use crate::packs::schema::layers;

use super::near::TileDiscs;
use super::nearest::NearestPoints;
use super::typos::Shapes;

/// SHA-256 of each shipped word list (words joined by `\n`), pinned with the scheme: a pack
/// whose list differs would re-map addresses and is refused. The word classes of the scheme
/// are English's (`classes:en`, [`v3::CLASSES_SHA256`]).
pub const WORDS_SHA256: &[(&str, &str)] = &[(
    "en",
    "230d4c826b7cfc5d10f6dc35f6d50e244e4b5817fddea3ba89ee6775422cc80b",
)];

/// The hasher of the word maps, 8 bytes at a time. Their keys are the list's words, fixed
/// when the layer loads, so a lookup of a typed word cannot provoke collisions: no keyed hash
/// is needed, and autosuggest looks up hundreds of spelling variants per request.
#[derive(Debug, Default, Clone, Copy)]
pub struct WordHasher(u64);

impl WordHasher {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl std::hash::Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            self.add(u64::from_le_bytes(b));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b) ^ ((rest.len() as u64) << 59));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn finish(&self) -> u64 {
        // Mixed so that the high bits (the table's control bytes) and the low bits (its
        // buckets) both depend on every byte.
        let mut z = self.0;
        z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        z ^ (z >> 33)
    }
}

/// A map keyed by words, hashed with [`WordHasher`].
pub type WordMap<V> = HashMap<Box<str>, V, std::hash::BuildHasherDefault<WordHasher>>;

/// One language's words.
#[derive(Debug)]
pub struct Words {
    /// Language code.
    pub language: String,
    /// Words by rank.
    pub list: Vec<Box<str>>,
    /// Rank of each word.
    pub rank: WordMap<u32>,
    /// Ranks of the listed words each alias sounds like.
    pub aliases: WordMap<Vec<u32>>,
    /// `(word, rank)` sorted by word, for prefix ranges.
    pub sorted: Vec<(Box<str>, u32)>,
    /// Each word's letters and length, for the words two edits away from a typed word.
    pub shapes: Shapes,
}

impl Words {
    /// The word of `rank`.
    pub fn word(&self, rank: u64) -> &str {
        self.list.get(rank as usize).map_or("", |w| w)
    }

    /// The address of a rank triple, `a.b.c`.
    pub fn address(&self, ranks: [u64; 3]) -> String {
        let words = ranks.map(|r| self.word(r));
        let mut address = String::with_capacity(words.iter().map(|w| w.len() + 1).sum());
        for (i, w) in words.iter().enumerate() {
            if i > 0 {
                address.push('.');
            }
            address.push_str(w);
        }
        address
    }

    /// The `(word, rank)` entries starting with `prefix`, in alphabetical order.
    pub fn with_prefix(&self, prefix: &str) -> &[(Box<str>, u32)] {
        let from = self.sorted.partition_point(|(w, _)| &**w < prefix);
        let len = self.sorted[from..].partition_point(|(w, _)| w.starts_with(prefix));
        &self.sorted[from..from + len]
    }
}

/// A populated place.
#[derive(Debug)]
pub struct Place {
    /// Name.
    pub name: String,
    /// ISO 3166-1 alpha-2 code.
    pub country: String,
}

/// Strip height of the country edge index, degrees: an edge belongs to the strips its
/// latitudes meet, and a point is tested against the edges of its strip.
const STRIP_DEG: f64 = 0.25;
/// Slices each strip is cut into for lookups (a power of two, so that a slice's bounds and a
/// point's slice are exact).
const SLICES: i64 = 8;
/// How far past its bounds a slice takes the edges of its strip, degrees: more than a
/// latitude moves when rounded to `f32` (at most 3.9e-6 degrees), as the crossing test rounds it.
const SLICE_MARGIN: f64 = 1e-5;

/// A country outline with its edges indexed by latitude strip.
#[derive(Debug)]
pub struct CountryShape {
    /// ISO 3166-1 alpha-2 code.
    pub code: String,
    /// `[west, south, east, north]`.
    pub bbox: [f64; 4],
    first_strip: i64,
    /// Per slice of each strip (`SLICES` a strip, from the south), the edges
    /// `(lng0, lat0, lng1, lat1)` of the strip that meet the slice widened by
    /// `SLICE_MARGIN`: of the strip's edges, every one a point of the slice can cross.
    slices: Vec<Vec<[f32; 4]>>,
}

impl CountryShape {
    fn new(code: String, polygons: &[Vec<Vec<(f64, f64)>>]) -> Option<CountryShape> {
        let mut bbox = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
        let mut edges = Vec::new();
        for ring in polygons.iter().flatten() {
            for w in ring.windows(2) {
                let ((x0, y0), (x1, y1)) = (w[0], w[1]);
                bbox = [
                    bbox[0].min(x0),
                    bbox[1].min(y0),
                    bbox[2].max(x0),
                    bbox[3].max(y0),
                ];
                if y0 != y1 {
                    edges.push([x0 as f32, y0 as f32, x1 as f32, y1 as f32]);
                }
            }
        }
        if edges.is_empty() {
            return None;
        }
        let strip = |lat: f64| (lat / STRIP_DEG).floor() as i64;
        let first_strip = strip(bbox[1]);
        let mut strips = vec![Vec::new(); (strip(bbox[3]) - first_strip + 1) as usize];
        for e in edges {
            let (lo, hi) = (f64::from(e[1].min(e[3])), f64::from(e[1].max(e[3])));
            for s in strip(lo)..=strip(hi) {
                strips[(s - first_strip) as usize].push(e);
            }
        }
        let slice_deg = STRIP_DEG / SLICES as f64;
        let mut slices = Vec::with_capacity(strips.len() * SLICES as usize);
        for (i, edges) in strips.iter().enumerate() {
            let south = (first_strip + i as i64) as f64 * STRIP_DEG;
            for k in 0..SLICES {
                let from = south + k as f64 * slice_deg - SLICE_MARGIN;
                let to = south + (k + 1) as f64 * slice_deg + SLICE_MARGIN;
                slices.push(
                    edges
                        .iter()
                        .filter(|e| {
                            let (lo, hi) = (f64::from(e[1].min(e[3])), f64::from(e[1].max(e[3])));
                            lo <= to && hi >= from
                        })
                        .copied()
                        .collect(),
                );
            }
        }
        Some(CountryShape {
            code,
            bbox,
            first_strip,
            slices,
        })
    }

    /// Whether the outline holds `p` (even-odd over every ring, so holes are holes).
    ///
    /// The crossings are counted over the edges of `p`'s strip, read from its slice: a slice
    /// holds every edge of the strip that a point of the slice can cross (an edge crossed at
    /// latitude `y` meets `y`, and `y` is the point's latitude rounded to `f32`, within the
    /// margin of the slice), so the count is the strip's.
    pub fn contains(&self, p: Pt) -> bool {
        let [w, s, e, n] = self.bbox;
        if !(p.lng >= w && p.lng <= e && p.lat >= s && p.lat <= n) {
            return false;
        }
        let i = (p.lat / STRIP_DEG).floor() as i64 - self.first_strip;
        // `p.lat / slice` is `SLICES · p.lat / STRIP_DEG` exactly (powers of two), so the
        // slice lies in the strip.
        let k = (p.lat / (STRIP_DEG / SLICES as f64)).floor() as i64
            - (p.lat / STRIP_DEG).floor() as i64 * SLICES;
        if !(0..SLICES).contains(&k) {
            return false;
        }
        let Some(edges) = usize::try_from(i)
            .ok()
            .and_then(|i| self.slices.get(i * SLICES as usize + k as usize))
        else {
            return false;
        };
        let (x, y) = (p.lng as f32, p.lat as f32);
        let mut inside = false;
        for &[x0, y0, x1, y1] in edges {
            if (y0 > y) != (y1 > y) {
                let cross = x0 + (y - y0) / (y1 - y0) * (x1 - x0);
                if x < cross {
                    inside = !inside;
                }
            }
        }
        inside
    }
}

/// The three-word layer of a pack set.
#[derive(Debug)]
pub struct ThreeWordsIndex {
    /// Square ↔ rank triples (scheme version 3).
    pub scheme: Scheme,
    /// Word lists by language.
    pub languages: HashMap<String, Words>,
    places: Vec<Place>,
    place_tree: NearestPoints,
    /// Country outlines.
    pub countries: Vec<CountryShape>,
    country_tree: RTree<GeomWithData<Rectangle<[f64; 2]>, u32>>,
    /// The scheme's tiles as discs, for the bounds of autosuggest.
    pub discs: TileDiscs,
}

fn unreadable(pack: &str, e: &dyn std::error::Error) -> ApiError {
    tracing::error!(pack, "the threewords layer cannot be read");
    ApiError::internal(e)
}

impl ThreeWordsIndex {
    /// Reads the three-word layer of `set`; 503 when no pack has one.
    pub fn load(set: &PackSet) -> Result<ThreeWordsIndex, ApiError> {
        let Some(pack) = set.with_layer(layers::THREEWORDS).into_iter().next() else {
            return Err(ApiError::new(
                ErrorCode::DataUnavailable,
                "no installed pack has the threewords layer; install the base pack",
            ));
        };
        let conn = pack.sqlite().map_err(|e| unreadable(pack.id(), &e))?;
        Self::read(&conn).map_err(|e| match e {
            LoadError::Sqlite(e) => unreadable(pack.id(), &e),
            other => {
                tracing::error!(pack = pack.id(), error = %other, "the threewords layer is refused");
                ApiError::new(
                    ErrorCode::DataUnavailable,
                    format!(
                        "the threewords layer of pack `{}` cannot be used: {other}",
                        pack.id()
                    ),
                )
            }
        })
    }

    /// Reads the layer from a pack's database.
    pub fn read(conn: &Connection) -> Result<ThreeWordsIndex, LoadError> {
        let version: String = conn.query_row(
            "SELECT value FROM threewords_scheme WHERE key = 'version'",
            [],
            |r| r.get(0),
        )?;
        if version != SCHEME_VERSION.to_string() {
            return Err(LoadError::Version(version));
        }
        let grid = Grid::v1().map_err(|e| LoadError::Scheme(e.to_string()))?;
        let mut bands = vec![Vec::new(); BANDS as usize];
        {
            let mut stmt = conn.prepare("SELECT band, runs FROM threewords_regions_v3")?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let band: i64 = row.get(0)?;
                let blob: Vec<u8> = row.get(1)?;
                let slot = usize::try_from(band)
                    .ok()
                    .and_then(|b| bands.get_mut(b))
                    .ok_or_else(|| LoadError::Scheme(format!("band {band} out of range")))?;
                *slot = decode_runs(&blob).map_err(|e| LoadError::Scheme(e.to_string()))?;
            }
        }
        let regions = Regions::new(grid, bands).map_err(|e| LoadError::Scheme(e.to_string()))?;
        pinned("region table", &regions.digest(), v3::REGIONS_SHA256)?;
        let class = blob(conn, "classes:en")?;
        pinned(
            "word classes",
            &v3::classes_digest(&class),
            v3::CLASSES_SHA256,
        )?;
        let sig = decode_signatures(&blob(conn, "signatures")?)
            .map_err(|e| LoadError::Scheme(format!("the tile signatures: {e}")))?;
        pinned(
            "tile signature table",
            &v3::signatures_digest(&sig),
            v3::SIGNATURES_SHA256,
        )?;

        let mut languages = HashMap::new();
        for &(language, sha) in WORDS_SHA256 {
            let mut stmt = conn
                .prepare("SELECT word FROM threewords_words WHERE language = ?1 ORDER BY rank")?;
            let list: Vec<Box<str>> = stmt
                .query_map([language], |r| r.get::<_, String>(0))?
                .map(|w| w.map(String::into_boxed_str))
                .collect::<rusqlite::Result<_>>()?;
            if list.is_empty() {
                continue;
            }
            let joined = list.join("\n");
            let found = crate::packs::install::sha256_hex(joined.as_bytes());
            if list.len() as u64 != WORDS || found != sha {
                return Err(LoadError::Scheme(format!(
                    "the `{language}` word list has {} words, SHA-256 {found}; scheme v{SCHEME_VERSION} has {WORDS} words, {sha}",
                    list.len()
                )));
            }
            let rank: WordMap<u32> = list
                .iter()
                .enumerate()
                .map(|(i, w)| (w.clone(), i as u32))
                .collect();
            let mut sorted: Vec<(Box<str>, u32)> =
                rank.iter().map(|(w, r)| (w.clone(), *r)).collect();
            sorted.sort();
            let mut aliases: WordMap<Vec<u32>> = WordMap::default();
            let mut stmt =
                conn.prepare("SELECT alias, rank FROM threewords_aliases WHERE language = ?1")?;
            let rows = stmt.query_map([language], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?))
            })?;
            for row in rows {
                let (alias, r) = row?;
                if (r as u64) < WORDS {
                    aliases.entry(alias.into_boxed_str()).or_default().push(r);
                }
            }
            languages.insert(
                language.to_string(),
                Words {
                    language: language.to_string(),
                    shapes: Shapes::new(&list),
                    list,
                    rank,
                    aliases,
                    sorted,
                },
            );
        }
        let Some(en) = languages.get("en") else {
            return Err(LoadError::Scheme(format!(
                "no `en` word list: the word classes of scheme v{SCHEME_VERSION} are English's"
            )));
        };
        // Each class orders its words of the list's first tier by length (ADR 0009 rule 1).
        let lengths: Vec<usize> = en.list.iter().map(|w| w.len()).collect();
        let classes = Classes::new(class, &lengths)
            .map_err(|e| LoadError::Scheme(format!("the word classes: {e}")))?;
        let scheme =
            Scheme::new(regions, sig, classes).map_err(|e| LoadError::Scheme(e.to_string()))?;

        let mut places = Vec::new();
        let mut points = Vec::new();
        {
            let mut stmt = conn.prepare(
                "SELECT name, country_code, lat, lng FROM threewords_places ORDER BY id",
            )?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let p = Pt::new(row.get(2)?, row.get(3)?);
                points.push(xyz(p));
                places.push(Place {
                    name: row.get(0)?,
                    country: row.get(1)?,
                });
            }
        }

        let mut countries = Vec::new();
        {
            let mut stmt =
                conn.prepare("SELECT country_code, shape FROM threewords_countries ORDER BY id")?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let blob: Vec<u8> = row.get(1)?;
                let polygons =
                    decode_polygons(&blob).map_err(|e| LoadError::Scheme(e.to_string()))?;
                if let Some(shape) = CountryShape::new(row.get(0)?, &polygons) {
                    countries.push(shape);
                }
            }
        }
        let boxes = countries
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let [w, s, e, n] = c.bbox;
                GeomWithData::new(Rectangle::from_corners([w, s], [e, n]), i as u32)
            })
            .collect();
        Ok(ThreeWordsIndex {
            discs: TileDiscs::new(&scheme),
            scheme,
            languages,
            place_tree: NearestPoints::new(points),
            places,
            countries,
            country_tree: RTree::bulk_load(boxes),
        })
    }

    /// The grid.
    pub fn grid(&self) -> &Grid {
        self.scheme.regions().grid()
    }

    /// The ISO 3166-1 alpha-2 code of the country holding `p`, `ZZ` at sea or where no
    /// country is known.
    pub fn country_at(&self, p: Pt) -> &str {
        self.country_tree
            .locate_all_at_point(&[p.lng, p.lat])
            .map(|g| &self.countries[g.data as usize])
            .find(|c| c.contains(p))
            .map_or("ZZ", |c| c.code.as_str())
    }

    /// Whether `p` lies in one of the countries `codes` (upper-case alpha-2).
    pub fn in_countries(&self, p: Pt, codes: &[String]) -> bool {
        self.country_tree
            .locate_all_at_point(&[p.lng, p.lat])
            .map(|g| &self.countries[g.data as usize])
            .any(|c| codes.contains(&c.code) && c.contains(p))
    }

    /// Whether any outline carries `code`.
    pub fn knows_country(&self, code: &str) -> bool {
        self.countries.iter().any(|c| c.code == code)
    }

    /// The nearest populated place to `p`: its name and country (of places equally near, the
    /// first in the pack's order).
    pub fn nearest_place(&self, p: Pt) -> Option<&Place> {
        self.place_tree
            .nearest(xyz(p))
            .and_then(|i| self.places.get(i as usize))
    }
}

/// A blob of `threewords_v3` (`classes:<language>`, `signatures`).
fn blob(conn: &Connection, name: &str) -> Result<Vec<u8>, LoadError> {
    match conn.query_row(
        "SELECT data FROM threewords_v3 WHERE name = ?1",
        [name],
        |r| r.get(0),
    ) {
        Ok(data) => Ok(data),
        Err(rusqlite::Error::QueryReturnedNoRows) => Err(LoadError::Scheme(format!(
            "the table `{name}` of scheme v{SCHEME_VERSION} is missing"
        ))),
        Err(e) => Err(e.into()),
    }
}

/// `Ok` when a table's SHA-256 is the one pinned with the scheme; else the error naming the
/// table and both digests.
fn pinned(what: &str, found: &str, pinned: &str) -> Result<(), LoadError> {
    if found == pinned {
        return Ok(());
    }
    Err(LoadError::Scheme(format!(
        "the {what} has SHA-256 {found}, scheme v{SCHEME_VERSION} has {pinned}"
    )))
}

/// Why a three-word layer cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// SQLite failure.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Another scheme version.
    #[error(
        "its addresses are of scheme version {0}, this build answers scheme version \
         {SCHEME_VERSION} only: install a base pack built for scheme version {SCHEME_VERSION}"
    )]
    Version(String),
    /// The pack's scheme data differs from the scheme's.
    #[error("{0}")]
    Scheme(String),
}
