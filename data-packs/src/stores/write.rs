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

/// Replaces the `stores` and `zones` tables (and their R-trees) of `conn` with `assets`, in one
/// transaction: on any error nothing changes. The records must have been checked
/// ([`super::check_all`]).
pub fn write_layer(
    conn: &mut Connection,
    assets: &[StoreAsset],
) -> Result<StoresStats, BuildError> {
    // Hours without a timezone take the zone of the store's position, so the engine always
    // knows the local time of a store.
    let mut finder = None;
    let assets: Vec<StoreAsset> = assets
        .iter()
        .map(|a| {
            let mut a = a.clone();
            if let Some(hours) = &mut a.opening_hours
                && hours.timezone.is_none()
            {
                let finder = finder.get_or_insert_with(tzf_rs::DefaultFinder::new);
                let tz = finder.get_tz_name(a.location.lng, a.location.lat);
                hours.timezone = Some(if tz.is_empty() {
                    "UTC".into()
                } else {
                    tz.to_owned()
                });
            }
            a
        })
        .collect();
    let tx = conn.transaction()?;
    tx.execute_batch(
        "DELETE FROM stores; DELETE FROM stores_rtree; DELETE FROM zones; DELETE FROM zones_rtree;",
    )?;
    let mut stats = StoresStats::default();
    {
        let mut store = tx.prepare(
            "INSERT INTO stores (id, store_id, name, address_lines, city, zipcode, country_code, lat, lng, \
             types, tags, localized_names, user_properties, contact, opening_hours) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        )?;
        let mut store_box = tx.prepare("INSERT INTO stores_rtree VALUES (?1, ?2, ?2, ?3, ?3)")?;
        let mut zone = tx.prepare(
            "INSERT INTO zones (id, zone_id, store_id, description, polygon_wkt, types, status) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut zone_box = tx.prepare("INSERT INTO zones_rtree VALUES (?1, ?2, ?3, ?4, ?5)")?;
        for (i, a) in assets.iter().enumerate() {
            let id = i as i64 + 1;
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
                a.opening_hours.as_ref().map(json),
            ])?;
            store_box.execute(params![id, a.location.lat, a.location.lng])?;
            stats.stores += 1;
            for z in &a.zones {
                let zid = stats.zones as i64 + 1;
                let [min_lng, min_lat, max_lng, max_lat] = super::polygon_bbox(&z.polygon)
                    .ok_or_else(|| {
                        BuildError::Invalid(format!("zone `{}`: unreadable polygon", z.zone_id))
                    })?;
                zone.execute(params![
                    zid,
                    z.zone_id,
                    a.store_id,
                    z.description,
                    z.polygon,
                    json(&z.types),
                    z.status,
                ])?;
                zone_box.execute(params![zid, min_lat, max_lat, min_lng, max_lng])?;
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
