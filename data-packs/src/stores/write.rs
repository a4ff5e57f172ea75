//! Writes checked stores and their zones into a pack database (replacing the layer).
use rusqlite::{Connection, params};
use serde::Serialize;

use super::StoreAsset;
use crate::error::BuildError;

/// What was written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StoresStats {
    /// Stores written.
    pub stores: usize,
    /// Zones written.
    pub zones: usize,
}

/// The timezone finder, built once per process (building and dropping it costs seconds).
static FINDER: std::sync::OnceLock<tzf_rs::DefaultFinder> = std::sync::OnceLock::new();

/// The tz database name at (`lat`, `lng`), `UTC` where there is none.
fn timezone_at(lat: f64, lng: f64) -> String {
    let tz = FINDER
        .get_or_init(tzf_rs::DefaultFinder::new)
        .get_tz_name(lng, lat);
    if tz.is_empty() {
        "UTC".into()
    } else {
        tz.to_owned()
    }
}

/// Replaces the `stores` and `zones` tables of `conn` with `assets`, in one transaction: on
/// any error nothing changes. The records must have been checked ([`super::check_all`]). The
/// pack holds no spatial index of stores or zones: the engine builds its own (R-trees in
/// memory) when it loads the layer.
pub fn write_layer(
    conn: &mut Connection,
    assets: &[StoreAsset],
) -> Result<StoresStats, BuildError> {
    let tx = conn.transaction()?;
    // Older packs carried SQLite R-trees of stores and zones; nothing reads them.
    tx.execute_batch(
        "DELETE FROM stores; DELETE FROM zones; \
         DROP TABLE IF EXISTS stores_rtree; DROP TABLE IF EXISTS zones_rtree;",
    )?;
    let mut stats = StoresStats::default();
    {
        let mut store = tx.prepare(
            "INSERT INTO stores (id, store_id, name, address_lines, city, zipcode, country_code, lat, lng, \
             types, tags, localized_names, user_properties, contact, opening_hours) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        )?;
        let mut zone = tx.prepare(
            "INSERT INTO zones (id, zone_id, store_id, description, polygon_wkt, types, status) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for (i, a) in assets.iter().enumerate() {
            let id = i as i64 + 1;
            // Hours without a timezone take the zone of the store's position, so the engine
            // always knows the local time of a store.
            let hours = a.opening_hours.as_ref().map(|h| match &h.timezone {
                Some(_) => json(h),
                None => {
                    let mut h = h.clone();
                    h.timezone = Some(timezone_at(a.location.lat, a.location.lng));
                    json(&h)
                }
            });
            store.execute(params![
                id,
                a.store_id,
                a.name,
                json(&a.address.lines),
                a.address.city,
                a.address.zipcode,
                a.address
                    .country_code
                    .as_ref()
                    .map(|c| c.to_ascii_uppercase()),
                a.location.lat,
                a.location.lng,
                json(&a.types),
                json(&a.tags),
                json(&a.localized_names),
                json(&a.user_properties),
                json(&a.contact),
                hours,
            ])?;
            stats.stores += 1;
            for z in &a.zones {
                let zid = stats.zones as i64 + 1;
                zone.execute(params![
                    zid,
                    z.zone_id,
                    a.store_id,
                    z.description,
                    z.polygon,
                    json(&z.types),
                    z.status,
                ])?;
                stats.zones += 1;
            }
        }
    }
    tx.commit()?;
    Ok(stats)
}

/// JSON text of a free-form column (lists, maps with string keys, JSON values: these always
/// serialize).
fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
