//! `start_address` / `end_address`: the nearest address point of the pack's addresses layer
//! (within 150 m), else the nearest settlement of its places layer (within 3 km).
//!
//! The points are held in grids of cells as wide as the distance looked up ([`grid`]): positions
//! and row ids (`id`) only; the text of the one address an answer names is read from the
//! pack's database when it is asked for. For an installed pack whose road network is mapped
//! (a region of about a million nodes and more) the grids are written beside it on its first
//! opening, keyed like the routing arrays (the database's digest in the signed
//! manifest and the engine code's digest, [`crate::routing::derived`]), and mapped on every
//! later opening: a country's 1.5 million addresses then cost neither heap nor the reading of
//! the tables.
mod grid;

use std::path::Path;

use parking_lot::Mutex;
use rusqlite::Connection;

use crate::geo::{LocalProjection, Pt};
use crate::routing::derived::{self, PackDigests};
use crate::routing::flat::{FlatError, FlatFile};
use grid::{Point, PointGrid};

/// Nearest-address lookups of one pack (or of joined packs).
#[derive(Debug)]
pub struct AddressIndex {
    proj: LocalProjection,
    addresses: PointGrid,
    places: PointGrid,
    /// A read-only connection to each member pack's database, for the texts.
    conns: Vec<Mutex<Connection>>,
}

/// How much of each pack's database a lookup connection maps (SQLite's `mmap_size`): the
/// whole of any region pack.
const MAP_BYTES: i64 = 1 << 32;

const ADDRESS_M: f64 = 150.0;
const PLACE_M: f64 = 3_000.0;

/// The layout file of an installed pack's grids (`<pack>/.query/addresses.layout`).
const LAYOUT: &str = "addresses";

const SETTLEMENTS: &str =
    "kind IN ('city','town','village','hamlet','suburb','quarter','neighbourhood','borough')";

impl AddressIndex {
    /// Indexes the addresses and settlements of a pack (empty when the layers are absent),
    /// keeping `conn` to read their texts.
    pub fn load(conn: Connection, lat0: f64) -> rusqlite::Result<AddressIndex> {
        AddressIndex::load_all(vec![conn], lat0)
    }

    /// The index of the installed pack in `dir` whose file digests are `digests`: mapped from
    /// the layout an earlier opening wrote under their key; else read from `conn` and
    /// written there (kept in memory when it cannot be).
    pub fn open(
        pack_id: &str,
        dir: &Path,
        digests: &PackDigests,
        conn: Connection,
        lat0: f64,
    ) -> rusqlite::Result<AddressIndex> {
        let key = digests.addresses_key(lat0);
        let proj = LocalProjection::new(lat0);
        if let Some(f) = derived::open_file(pack_id, dir, LAYOUT, &key) {
            match grids_from(&f) {
                Ok((addresses, places)) => {
                    return AddressIndex::new(proj, addresses, places, vec![conn]);
                }
                Err(e) => tracing::warn!(pack = %pack_id, error = %e,
                    "address layout inconsistent; it is derived again"),
            }
        }
        let (addresses, places) = read_grids(&[&conn], &proj)?;
        let (a_cell, p_cell) = (addresses.cell(), places.cell());
        let mut sections = addresses.sections("a", &a_cell);
        sections.extend(places.sections("p", &p_cell));
        let mapped = derived::map_derived(pack_id, dir, LAYOUT, Some(&key), &sections)
            .and_then(|f| grids_from(&f).ok());
        drop(sections);
        let (addresses, places) = mapped.unwrap_or((addresses, places));
        AddressIndex::new(proj, addresses, places, vec![conn])
    }

    /// The addresses and settlements of several packs (joined regions) in one index, in
    /// memory.
    pub fn load_all(conns: Vec<Connection>, lat0: f64) -> rusqlite::Result<AddressIndex> {
        let proj = LocalProjection::new(lat0);
        let refs: Vec<&Connection> = conns.iter().collect();
        let (addresses, places) = read_grids(&refs, &proj)?;
        AddressIndex::new(proj, addresses, places, conns)
    }

    fn new(
        proj: LocalProjection,
        addresses: PointGrid,
        places: PointGrid,
        conns: Vec<Connection>,
    ) -> rusqlite::Result<AddressIndex> {
        for conn in &conns {
            // A lookup reads a few scattered pages of an immutable file: mapped, they cost no
            // read call and no copy into the connection's page cache. Where mapping is not
            // available SQLite reads as before.
            conn.pragma_update(None, "mmap_size", MAP_BYTES)?;
        }
        Ok(AddressIndex {
            proj,
            addresses,
            places,
            conns: conns.into_iter().map(Mutex::new).collect(),
        })
    }

    /// Whether the grids are read from a mapped layout file.
    pub fn is_mapped(&self) -> bool {
        self.addresses.is_mapped() && self.places.is_mapped()
    }

    /// The address text nearest to `p`, if one is close enough (`None` too when its row
    /// cannot be read).
    pub fn nearest(&self, p: Pt) -> Option<String> {
        let q = self.proj.project(p);
        if let Some((e, _)) = self.addresses.nearest(q, ADDRESS_M) {
            return self.address_text(&e);
        }
        let (e, _) = self.places.nearest(q, PLACE_M)?;
        self.text(&e, "SELECT name FROM places WHERE id = ?1", |r| r.get(0))
    }

    /// `street number, postcode city` (the place instead of the street when there is none).
    fn address_text(&self, e: &Point) -> Option<String> {
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
        e: &Point,
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

/// The grids of the addresses and settlements of the packs of `conns`.
fn read_grids(
    conns: &[&Connection],
    proj: &LocalProjection,
) -> rusqlite::Result<(PointGrid, PointGrid)> {
    let mut addresses = Vec::new();
    let mut places = Vec::new();
    for (member, conn) in conns.iter().enumerate() {
        let member = member as u32;
        read(
            conn,
            proj,
            member,
            "SELECT id, lat, lng FROM addresses ORDER BY id",
            &mut addresses,
        )?;
        let q = format!("SELECT id, lat, lng FROM places WHERE {SETTLEMENTS} ORDER BY id");
        read(conn, proj, member, &q, &mut places)?;
    }
    Ok((
        PointGrid::build(&addresses, ADDRESS_M),
        PointGrid::build(&places, PLACE_M),
    ))
}

/// The grids of a layout written by [`AddressIndex::open`] for one pack, checked.
fn grids_from(f: &FlatFile) -> Result<(PointGrid, PointGrid), FlatError> {
    Ok((
        PointGrid::from_file(f, "a", ADDRESS_M, 1)?,
        PointGrid::from_file(f, "p", PLACE_M, 1)?,
    ))
}

/// Appends the `(id, lat, lng)` rows of `sql` as points of `member`.
fn read(
    conn: &Connection,
    proj: &LocalProjection,
    member: u32,
    sql: &str,
    out: &mut Vec<Point>,
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(sql)?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        out.push(Point {
            xy: proj.project(Pt::new(r.get(1)?, r.get(2)?)),
            row: r.get(0)?,
            member,
        });
    }
    Ok(())
}
