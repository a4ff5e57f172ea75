//! `start_address` / `end_address`: the nearest address point of the pack's addresses layer
//! (within 150 m), else the nearest settlement of its places layer (within 3 km), held in an
//! R-tree built when the pack's router is first used.
//!
//! The trees hold positions and row ids (`id`) only; the text of the one address an answer names is
//! read from the pack's database when it is asked for. A country's 700,000 addresses take
//! about 25 MB so, not the 100 MB their texts took in memory.
use parking_lot::Mutex;
use rstar::{PointDistance, RTree, RTreeObject};
use rusqlite::Connection;

use crate::geo::{LocalProjection, Pt};

/// A row of one member pack's `addresses` or `places` table.
#[derive(Debug, Clone, Copy)]
struct Entry {
    xy: [f64; 2],
    /// The row's `id`.
    row: i64,
    /// Index of the member pack's connection.
    member: u32,
}

impl RTreeObject for Entry {
    type Envelope = rstar::AABB<[f64; 2]>;
    fn envelope(&self) -> Self::Envelope {
        rstar::AABB::from_point(self.xy)
    }
}

impl PointDistance for Entry {
    fn distance_2(&self, p: &[f64; 2]) -> f64 {
        (self.xy[0] - p[0]).powi(2) + (self.xy[1] - p[1]).powi(2)
    }
}

/// Nearest-address lookups of one pack (or of joined packs).
#[derive(Debug)]
pub struct AddressIndex {
    proj: LocalProjection,
    addresses: RTree<Entry>,
    places: RTree<Entry>,
    /// A read-only connection to each member pack's database, for the texts.
    conns: Vec<Mutex<Connection>>,
}

/// How much of each pack's database a lookup connection maps (SQLite's `mmap_size`): the
/// whole of any region pack.
const MAP_BYTES: i64 = 1 << 32;

const ADDRESS_M: f64 = 150.0;
const PLACE_M: f64 = 3_000.0;

const SETTLEMENTS: &str =
    "kind IN ('city','town','village','hamlet','suburb','quarter','neighbourhood','borough')";

impl AddressIndex {
    /// Indexes the addresses and settlements of a pack (empty when the layers are absent),
    /// keeping `conn` to read their texts.
    pub fn load(conn: Connection, lat0: f64) -> rusqlite::Result<AddressIndex> {
        AddressIndex::load_all(vec![conn], lat0)
    }

    /// The addresses and settlements of several packs (joined regions) in one index.
    pub fn load_all(conns: Vec<Connection>, lat0: f64) -> rusqlite::Result<AddressIndex> {
        let proj = LocalProjection::new(lat0);
        let mut addresses = Vec::new();
        let mut places = Vec::new();
        for (member, conn) in conns.iter().enumerate() {
            let member = member as u32;
            read(
                conn,
                &proj,
                member,
                "SELECT id, lat, lng FROM addresses",
                &mut addresses,
            )?;
            let q = format!("SELECT id, lat, lng FROM places WHERE {SETTLEMENTS}");
            read(conn, &proj, member, &q, &mut places)?;
        }
        for conn in &conns {
            // A lookup reads a few scattered pages of an immutable file: mapped, they cost no
            // read call and no copy into the connection's page cache. Where mapping is not
            // available SQLite reads as before.
            conn.pragma_update(None, "mmap_size", MAP_BYTES)?;
        }
        Ok(AddressIndex {
            proj,
            addresses: RTree::bulk_load(addresses),
            places: RTree::bulk_load(places),
            conns: conns.into_iter().map(Mutex::new).collect(),
        })
    }

    /// The address text nearest to `p`, if one is close enough (`None` too when its row
    /// cannot be read).
    pub fn nearest(&self, p: Pt) -> Option<String> {
        let q = self.proj.project(p);
        if let Some((e, d2)) = self
            .addresses
            .nearest_neighbor_iter_with_distance_2(&q)
            .next()
            && d2 <= ADDRESS_M * ADDRESS_M
        {
            return self.address_text(e);
        }
        let (e, _) = self
            .places
            .nearest_neighbor_iter_with_distance_2(&q)
            .next()
            .filter(|(_, d2)| *d2 <= PLACE_M * PLACE_M)?;
        self.text(e, "SELECT name FROM places WHERE id = ?1", |r| r.get(0))
    }

    /// `street number, postcode city` (the place instead of the street when there is none).
    fn address_text(&self, e: &Entry) -> Option<String> {
        self.text(
            e,
            "SELECT housenumber, street, place, postcode, city FROM addresses WHERE id = ?1",
            |r| {
                let number: String = r.get(0)?;
                let street: Option<String> = r.get(1)?;
                let place: Option<String> = r.get(2)?;
                let postcode: Option<String> = r.get(3)?;
                let city: Option<String> = r.get(4)?;
                let first = match street.or(place) {
                    Some(s) => format!("{s} {number}"),
                    None => number,
                };
                let second: Vec<String> = [postcode, city].into_iter().flatten().collect();
                Ok(if second.is_empty() {
                    first
                } else {
                    format!("{first}, {}", second.join(" "))
                })
            },
        )
    }

    fn text(
        &self,
        e: &Entry,
        sql: &str,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<String>,
    ) -> Option<String> {
        let conn = self.conns.get(e.member as usize)?.lock();
        let read = conn
            .prepare_cached(sql)
            .and_then(|mut stmt| stmt.query_row([e.row], f));
        match read {
            Ok(text) => Some(text),
            Err(error) => {
                tracing::warn!(%error, row = e.row, "address text unreadable");
                None
            }
        }
    }
}

/// Appends the `(id, lat, lng)` rows of `sql` as entries of `member`.
fn read(
    conn: &Connection,
    proj: &LocalProjection,
    member: u32,
    sql: &str,
    out: &mut Vec<Entry>,
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        out.push(Entry {
            xy: proj.project(Pt::new(r.get(1)?, r.get(2)?)),
            row: r.get(0)?,
            member,
        });
    }
    Ok(())
}
