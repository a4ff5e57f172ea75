//! What addresses, named roads and postal-code boundaries tell before any document is
//! written: the postal codes and streets of the pack (with their points, localities and the
//! settlements' postal codes), and the locality and country of each address.
use std::collections::{BTreeMap, HashMap};

use rusqlite::Connection;
use waymark_core::geo::{BBox, Pt, decode_polyline6, haversine_m};
use waymark_core::packs::search::{self as s, kinds, street_key};

use super::SearchBuildError;
use super::gazetteer::Gazetteer;

/// A postal code being gathered: its display form, points and localities.
#[derive(Default)]
pub(super) struct PostalAcc {
    pub(super) display: String,
    pub(super) points: Vec<(f64, f64)>,
    pub(super) localities: HashMap<usize, u32>,
}

/// A street being gathered: its names, points and postal codes (with counts).
#[derive(Default)]
pub(super) struct StreetAcc {
    pub(super) names: HashMap<String, u32>,
    pub(super) points: Vec<(f64, f64)>,
    pub(super) postcodes: HashMap<String, u32>,
    pub(super) locality: Option<usize>,
    pub(super) cc: Option<String>,
}

/// `[west, south, east, north]` of `(lat, lng)` points.
pub(super) fn bbox_of(points: &[(f64, f64)]) -> Option<[f64; 4]> {
    BBox::of(points.iter().map(|&(lat, lng)| Pt::new(lat, lng))).map(BBox::to_wsen)
}

/// The point of `points` nearest to their centroid.
pub(super) fn medoid(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    let c = points
        .iter()
        .fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    points.iter().copied().min_by(|a, b| {
        let c = Pt::new(c.0, c.1);
        haversine_m(Pt::new(a.0, a.1), c).total_cmp(&haversine_m(Pt::new(b.0, b.1), c))
    })
}

/// The most frequent key (the smallest among equals).
pub(super) fn most_common<K: Clone + Ord>(m: &HashMap<K, u32>) -> Option<K> {
    m.iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, _)| k.clone())
}

/// An address row of `data.sqlite`.
pub(super) struct AddrRow {
    pub(super) osm_type: String,
    pub(super) osm_id: i64,
    pub(super) housenumber: String,
    pub(super) street: Option<String>,
    pub(super) postcode: Option<String>,
    pub(super) city: Option<String>,
    pub(super) cc: Option<String>,
    pub(super) lat: f64,
    pub(super) lng: f64,
}

/// The result of [`collect`].
pub(super) struct Collected {
    /// Every address, in row order.
    pub(super) addresses: Vec<AddrRow>,
    /// (locality, cc) of each address.
    pub(super) addr_places: Vec<(Option<usize>, Option<String>)>,
    /// Postal codes by (cc, normalized code).
    pub(super) postal: BTreeMap<(String, String), PostalAcc>,
    /// Streets by (cc, street key, locality).
    pub(super) streets: BTreeMap<(String, String, Option<usize>), StreetAcc>,
    /// Postal codes of each settlement, with how many addresses have them.
    pub(super) settlement_codes: HashMap<usize, HashMap<String, u32>>,
    /// The place (postal-code boundary) giving the outline and point of a postal code.
    pub(super) postal_rows: HashMap<(String, String), usize>,
}

/// Gathers the postal codes and streets from the addresses, named roads and postal-code
/// boundaries of `data.sqlite`.
pub(super) fn collect(conn: &Connection, g: &Gazetteer) -> Result<Collected, SearchBuildError> {
    // Postal codes and streets are gathered from addresses and POIs first, so that
    // settlements know their postal codes.
    let mut postal: BTreeMap<(String, String), PostalAcc> = BTreeMap::new();
    let mut streets: BTreeMap<(String, String, Option<usize>), StreetAcc> = BTreeMap::new();
    let mut settlement_codes: HashMap<usize, HashMap<String, u32>> = HashMap::new();
    let addresses: Vec<AddrRow> = {
        let mut st = conn.prepare(
            "SELECT osm_type, osm_id, housenumber, coalesce(street, place), postcode, city, \
             country_code, lat, lng FROM addresses ORDER BY id",
        )?;
        st.query_map([], |r| {
            Ok(AddrRow {
                osm_type: r.get(0)?,
                osm_id: r.get(1)?,
                housenumber: r.get(2)?,
                street: r.get(3)?,
                postcode: r.get(4)?,
                city: r.get(5)?,
                cc: r.get(6)?,
                lat: r.get(7)?,
                lng: r.get(8)?,
            })
        })?
        .collect::<rusqlite::Result<_>>()?
    };
    // (locality, cc) of each address.
    let mut addr_places: Vec<(Option<usize>, Option<String>)> = Vec::with_capacity(addresses.len());
    for a in &addresses {
        let loc = g.locality(a.lat, a.lng, a.city.as_deref());
        let cc =
            a.cc.as_ref()
                .map(|c| c.to_uppercase())
                .or_else(|| g.country_of(a.lat, a.lng));
        if let (Some(pc), Some(cc)) = (&a.postcode, &cc) {
            let acc = postal
                .entry((cc.clone(), s::normalize_postcode(pc)))
                .or_default();
            acc.display = s::normalize_postcode(pc);
            acc.points.push((a.lat, a.lng));
            if let Some(l) = loc {
                *acc.localities.entry(l).or_default() += 1;
                *settlement_codes
                    .entry(l)
                    .or_default()
                    .entry(s::normalize_postcode(pc))
                    .or_default() += 1;
            }
        }
        if let Some(street) = &a.street {
            let key = street_key(street);
            if !key.is_empty() {
                let acc = streets
                    .entry((cc.clone().unwrap_or_default(), key, loc))
                    .or_default();
                *acc.names.entry(street.clone()).or_default() += 1;
                acc.points.push((a.lat, a.lng));
                if let Some(pc) = &a.postcode {
                    *acc.postcodes.entry(s::normalize_postcode(pc)).or_default() += 1;
                }
                acc.locality = loc;
                acc.cc = cc.clone();
            }
        }
        addr_places.push((loc, cc));
    }
    // Named roads.
    {
        let mut st =
            conn.prepare("SELECT name, geometry FROM road_edges WHERE name IS NOT NULL")?;
        let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (name, geometry) = row?;
            let line = decode_polyline6(&geometry).unwrap_or_default();
            let Some(&mid) = line.get(line.len() / 2) else {
                continue;
            };
            let key = street_key(&name);
            if key.is_empty() {
                continue;
            }
            let loc = g.locality(mid.lat, mid.lng, None);
            let cc = g.country_of(mid.lat, mid.lng);
            let acc = streets
                .entry((cc.clone().unwrap_or_default(), key, loc))
                .or_default();
            *acc.names.entry(name).or_default() += 1;
            acc.points.extend(line.iter().map(|p| (p.lat, p.lng)));
            acc.locality = loc;
            acc.cc = cc;
        }
    }
    // Postal-code boundaries (and admin areas carrying a postal code) give outline and point.
    let mut postal_rows: HashMap<(String, String), usize> = HashMap::new();
    for (i, p) in g.places.iter().enumerate() {
        let code = match (p.kind.as_str(), &p.postal_code) {
            (kinds::POSTAL_CODE, Some(c)) => c.clone(),
            (kinds::POSTAL_CODE, None) => p.name.clone(),
            _ => continue,
        };
        let cc = p.cc.clone().or_else(|| g.country_of(p.lat, p.lng));
        if let Some(cc) = cc {
            let key = (cc, s::normalize_postcode(&code));
            let acc = postal.entry(key.clone()).or_default();
            acc.display = s::normalize_postcode(&code);
            postal_rows.insert(key, i);
        }
    }
    Ok(Collected {
        addresses,
        addr_places,
        postal,
        streets,
        settlement_codes,
        postal_rows,
    })
}
