//! `start_address` / `end_address`: the nearest address point of the pack's addresses layer
//! (within 150 m), else the nearest settlement of its places layer (within 3 km), held in an
//! R-tree built when the pack's router is first used.
use rstar::{PointDistance, RTree, RTreeObject};
use rusqlite::Connection;

use crate::geo::{LocalProjection, Pt};

#[derive(Debug, Clone)]
struct Entry {
    xy: [f64; 2],
    text: String,
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

/// Nearest-address lookups of one pack.
#[derive(Debug)]
pub struct AddressIndex {
    proj: LocalProjection,
    addresses: RTree<Entry>,
    places: RTree<Entry>,
}

const ADDRESS_M: f64 = 150.0;
const PLACE_M: f64 = 3_000.0;

impl AddressIndex {
    /// Reads the addresses and settlements of a pack (empty when the layers are absent).
    pub fn load(conn: &Connection, lat0: f64) -> rusqlite::Result<AddressIndex> {
        AddressIndex::load_all(&[conn], lat0)
    }

    /// The addresses and settlements of several packs (joined regions) in one index.
    pub fn load_all(conns: &[&Connection], lat0: f64) -> rusqlite::Result<AddressIndex> {
        let proj = LocalProjection::new(lat0);
        let mut addresses = Vec::new();
        let mut places = Vec::new();
        for conn in conns {
            Self::read(conn, &proj, &mut addresses, &mut places)?;
        }
        Ok(AddressIndex {
            proj,
            addresses: RTree::bulk_load(addresses),
            places: RTree::bulk_load(places),
        })
    }

    fn read(
        conn: &Connection,
        proj: &LocalProjection,
        addresses: &mut Vec<Entry>,
        places: &mut Vec<Entry>,
    ) -> rusqlite::Result<()> {
        let mut stmt = conn.prepare(
            "SELECT lat, lng, housenumber, street, place, postcode, city FROM addresses",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let p = Pt::new(r.get(0)?, r.get(1)?);
            let number: String = r.get(2)?;
            let street: Option<String> = r.get(3)?;
            let place: Option<String> = r.get(4)?;
            let postcode: Option<String> = r.get(5)?;
            let city: Option<String> = r.get(6)?;
            let first = match street.or(place) {
                Some(s) => format!("{s} {number}"),
                None => number,
            };
            let second: Vec<String> = [postcode, city].into_iter().flatten().collect();
            let text = if second.is_empty() {
                first
            } else {
                format!("{first}, {}", second.join(" "))
            };
            addresses.push(Entry {
                xy: proj.project(p),
                text,
            });
        }
        let mut stmt = conn.prepare(
            "SELECT lat, lng, name FROM places WHERE kind IN \
             ('city','town','village','hamlet','suburb','quarter','neighbourhood','borough')",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let p = Pt::new(r.get(0)?, r.get(1)?);
            places.push(Entry {
                xy: proj.project(p),
                text: r.get(2)?,
            });
        }
        Ok(())
    }

    /// The address text nearest to `p`, if one is close enough.
    pub fn nearest(&self, p: Pt) -> Option<String> {
        let q = self.proj.project(p);
        if let Some((e, d2)) = self
            .addresses
            .nearest_neighbor_iter_with_distance_2(&q)
            .next()
            && d2 <= ADDRESS_M * ADDRESS_M
        {
            return Some(e.text.clone());
        }
        self.places
            .nearest_neighbor_iter_with_distance_2(&q)
            .next()
            .filter(|(_, d2)| *d2 <= PLACE_M * PLACE_M)
            .map(|(e, _)| e.text.clone())
    }
}
