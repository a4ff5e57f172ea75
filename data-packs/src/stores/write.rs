//! Writes checked stores and their zones into a pack database (replacing the layer).
use rusqlite::Connection;
use serde::Serialize;
use waymark_core::stores::packed::{self, PackedError, PackedStore, PackedZone};

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

/// Replaces the stores layer of `conn` (the `stores_layer` frames, pack format 6,
/// [`waymark_core::stores::packed`]) with `assets`, in one transaction: on any error nothing
/// changes. The records must have been checked ([`super::check_all`]). The pack holds no
/// spatial index of stores or zones: the engine builds its own (R-trees in memory) when it
/// loads the layer.
pub fn write_layer(
    conn: &mut Connection,
    assets: &[StoreAsset],
) -> Result<StoresStats, BuildError> {
    let object = |v: serde_json::Value| match v {
        serde_json::Value::Object(m) => m,
        _ => serde_json::Map::new(),
    };
    let mut stores = Vec::with_capacity(assets.len());
    let mut zones = Vec::new();
    for a in assets {
        // Hours without a timezone take the zone of the store's position, so the engine
        // always knows the local time of a store.
        let hours = a.opening_hours.as_ref().map(|h| {
            let mut h = h.clone();
            if h.timezone.is_none() {
                h.timezone = Some(timezone_at(a.location.lat, a.location.lng));
            }
            serde_json::to_value(&h)
        });
        stores.push(PackedStore {
            store_id: a.store_id.clone(),
            name: Some(a.name.clone()),
            address_lines: a.address.lines.clone(),
            city: a.address.city.clone(),
            zipcode: a.address.zipcode.clone(),
            country_code: a
                .address
                .country_code
                .as_ref()
                .map(|c| c.to_ascii_uppercase()),
            lat: a.location.lat,
            lng: a.location.lng,
            types: a.types.clone(),
            tags: a.tags.clone(),
            localized_names: object(
                serde_json::to_value(&a.localized_names).map_err(PackedError::Json)?,
            ),
            user_properties: a.user_properties.clone(),
            contact: object(serde_json::to_value(&a.contact).map_err(PackedError::Json)?),
            opening_hours: hours.transpose().map_err(PackedError::Json)?,
        });
        for z in &a.zones {
            zones.push(PackedZone {
                zone_id: z.zone_id.clone(),
                store_id: a.store_id.clone(),
                description: z.description.clone(),
                polygon_wkt: z.polygon.clone(),
                types: z.types.clone(),
                status: z.status.clone(),
            });
        }
    }
    let tx = conn.transaction()?;
    // Packs before format 6 held one row per store and zone, older ones SQLite R-trees too.
    tx.execute_batch(
        "DROP TABLE IF EXISTS stores; DROP TABLE IF EXISTS zones; \
         DROP TABLE IF EXISTS stores_rtree; DROP TABLE IF EXISTS zones_rtree;",
    )?;
    packed::write(&tx, &stores, &zones)?;
    tx.commit()?;
    Ok(StoresStats {
        stores: stores.len(),
        zones: zones.len(),
    })
}
