//! The `timezones` layer: timezone polygons from timezone-boundary-builder (release 2026f,
//! "lite": boundaries simplified to about 100 m, oceans as `Etc/GMT±N`), as bundled by the
//! `tzf-rs` crate (pinned by Cargo.lock; source `timezones-tzf-dist` in sources.toml).
//!
//! Region packs keep only the zones whose bounding box meets the pack's coverage; the base
//! pack keeps the whole world. `shape` holds a JSON array of polygons, each an array of rings
//! (outer first, then holes) encoded as polylines with precision 6 (ring coordinates are
//! `(lat, lng)` pairs as in every polyline of the pack) — about a tenth of the size of GeoJSON.
use rusqlite::{Connection, params};

use waymark_core::geo::{Pt, encode_polyline6};

/// Errors of the timezones layer.
#[derive(Debug, thiserror::Error)]
pub enum TimezoneError {
    /// A zone's rings cannot be encoded.
    #[error("timezone {tzid}: {why}")]
    Geometry {
        /// Zone.
        tzid: String,
        /// What is wrong.
        why: String,
    },
    /// SQLite failure.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// Counts of the layer.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct TimezoneStats {
    /// Zones in the source.
    pub zones_read: u64,
    /// Zones stored.
    pub zones_stored: u64,
    /// Points stored.
    pub points: u64,
    /// Bytes of encoded shapes.
    pub shape_bytes: u64,
    /// Data release.
    pub data_version: String,
}

/// Stores the zones meeting `bbox` (`[w, s, e, n]`; all when `None`).
pub fn build(
    bbox: Option<[f64; 4]>,
    conn: &mut Connection,
) -> Result<TimezoneStats, TimezoneError> {
    let finder = tzf_rs::DefaultFinder::new();
    let mut stats = TimezoneStats {
        data_version: finder.data_version().to_string(),
        ..TimezoneStats::default()
    };
    let file = finder.to_geojson();
    let tx = conn.transaction()?;
    {
        let mut zone =
            tx.prepare("INSERT OR REPLACE INTO timezones(id, tzid, shape) VALUES (?1, ?2, ?3)")?;
        let mut rtree = tx.prepare(
            "INSERT OR REPLACE INTO timezones_rtree(id, min_lat, max_lat, min_lng, max_lng) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for feature in &file.features {
            stats.zones_read += 1;
            let polygons = &feature.geometry.coordinates;
            let (mut w, mut s, mut e, mut n) = (180.0f64, 90.0f64, -180.0f64, -90.0f64);
            for ring in polygons.iter().flatten() {
                for [lng, lat] in ring {
                    w = w.min(*lng);
                    e = e.max(*lng);
                    s = s.min(*lat);
                    n = n.max(*lat);
                }
            }
            if let Some([bw, bs, be, bn]) = bbox
                && (e < bw || w > be || n < bs || s > bn)
            {
                continue;
            }
            let encoded: Vec<Vec<String>> = polygons
                .iter()
                .map(|rings| {
                    rings
                        .iter()
                        .map(|ring| {
                            stats.points += ring.len() as u64;
                            let pts: Vec<Pt> =
                                ring.iter().map(|[lng, lat]| Pt::new(*lat, *lng)).collect();
                            encode_polyline6(&pts).map_err(|why| TimezoneError::Geometry {
                                tzid: feature.properties.tzid.clone(),
                                why: why.to_string(),
                            })
                        })
                        .collect::<Result<Vec<String>, TimezoneError>>()
                })
                .collect::<Result<_, _>>()?;
            let shape = serde_json::to_string(&encoded).map_err(|e| TimezoneError::Geometry {
                tzid: feature.properties.tzid.clone(),
                why: e.to_string(),
            })?;
            stats.shape_bytes += shape.len() as u64;
            let id = stats.zones_stored as i64 + 1;
            zone.execute(params![id, feature.properties.tzid, shape])?;
            rtree.execute(params![id, s, n, w, e])?;
            stats.zones_stored += 1;
        }
    }
    tx.commit()?;
    Ok(stats)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn a_region_keeps_only_its_zones_and_the_world_keeps_all() {
        let mut conn = Connection::open_in_memory().unwrap();
        waymark_core::packs::schema::create_all(&conn).unwrap();
        // Helsinki's coverage.
        let st = build(Some([24.93, 60.16, 24.96, 60.18]), &mut conn).unwrap();
        let zones: Vec<String> = conn
            .prepare("SELECT tzid FROM timezones ORDER BY tzid")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(zones.contains(&"Europe/Helsinki".to_string()), "{zones:?}");
        assert!(zones.len() < 10, "{zones:?}");
        assert!(st.data_version.contains("2026"), "{}", st.data_version);

        let mut world = Connection::open_in_memory().unwrap();
        waymark_core::packs::schema::create_all(&world).unwrap();
        let st = build(None, &mut world).unwrap();
        assert!(st.zones_stored > 400, "{st:?}");
        assert!(
            st.shape_bytes < 10_000_000,
            "world shapes must stay under 10 MB: {st:?}"
        );
        let oceans: i64 = world
            .query_row(
                "SELECT count(*) FROM timezones WHERE tzid LIKE 'Etc/GMT%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(oceans >= 20);
    }
}
