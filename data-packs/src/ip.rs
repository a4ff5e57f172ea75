//! The `ip` layer: IP networks with positions, from DB-IP City Lite (the world IP pack: its
//! MaxMind DB files, searched in place) and DB-IP Country Lite (CSV, base pack: every range
//! with its country). Region packs carry none: the networks are one world database, kept once.
//!
//! Addresses are stored as 16-byte big-endian blobs, IPv4 mapped into `::ffff:0:0/96`, so one
//! ordered table answers both families (`waymark_core::packs::schema::IP`).
//!
//! `accuracy_km` says honestly how precise a record is: DB-IP Lite gives city centroids, so a
//! record with a city is good to about [`CITY_ACCURACY_KM`]; one with only a region to
//! [`REGION_ACCURACY_KM`]; one with only a country to [`COUNTRY_ACCURACY_KM`].
use std::net::IpAddr;
use std::path::Path;

use rusqlite::{Connection, params};

pub use waymark_core::geolocation::ip::{
    CITY_ACCURACY_KM, COUNTRY_ACCURACY_KM, DbIpCity, REGION_ACCURACY_KM, WORLD_IP_FILES, non_empty,
};

/// Errors of the ip layer.
#[derive(Debug, thiserror::Error)]
pub enum IpError {
    /// mmdb failure.
    #[error("{path}: {why}")]
    Mmdb {
        /// File.
        path: String,
        /// What happened.
        why: String,
    },
    /// CSV file failure.
    #[error("{path}: {why}")]
    Csv {
        /// File.
        path: String,
        /// What happened.
        why: String,
    },
    /// SQLite failure.
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// 16-byte big-endian key of an address (IPv4 mapped), as core's reader expects.
pub fn ip_key(ip: IpAddr) -> [u8; 16] {
    waymark_core::geolocation::ip::key(ip).to_be_bytes()
}

/// First and last address of a network, as keys.
pub fn network_bounds(ip: IpAddr, prefix: u8) -> ([u8; 16], [u8; 16]) {
    let bits = waymark_core::geolocation::ip::key(ip);
    let prefix = match ip {
        IpAddr::V4(_) => u32::from(prefix) + 96,
        IpAddr::V6(_) => u32::from(prefix),
    };
    let host_mask = if prefix >= 128 {
        0
    } else {
        u128::MAX >> prefix
    };
    let start = bits & !host_mask;
    ((start).to_be_bytes(), (start | host_mask).to_be_bytes())
}

/// Counts of the layer.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct IpStats {
    /// Networks read.
    pub read: u64,
    /// Networks stored.
    pub stored: u64,
}

/// Counts of a world IP layer.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct WorldIpStats {
    /// Search-tree nodes of the MaxMind DB files.
    pub nodes: u64,
    /// Bytes of the files.
    pub bytes: u64,
}

/// The world IP layer: copies the DB-IP City Lite MaxMind DB files (IPv4, IPv6) into the pack
/// directory as [`WORLD_IP_FILES`], after checking that each opens as a MaxMind DB of the
/// family it is for and answers a lookup.
pub fn build_world(mmdbs: &[&Path; 2], pack_dir: &Path) -> Result<WorldIpStats, IpError> {
    let mut stats = WorldIpStats::default();
    let probes: [IpAddr; 2] = [
        IpAddr::from([8, 8, 8, 8]),
        IpAddr::from([0x2001, 0x4860, 0x4860, 0, 0, 0, 0, 0x8888]),
    ];
    for ((src, rel), probe) in mmdbs.iter().zip(WORLD_IP_FILES).zip(probes) {
        let err = |why: String| IpError::Mmdb {
            path: src.display().to_string(),
            why,
        };
        let reader = maxminddb::Reader::open_readfile(src).map_err(|e| err(e.to_string()))?;
        let found = reader.lookup(probe).map_err(|e| err(e.to_string()))?;
        found
            .decode::<DbIpCity>()
            .map_err(|e| err(e.to_string()))?
            .ok_or_else(|| err(format!("no record for {probe}: not a DB-IP City file")))?;
        stats.nodes += u64::from(reader.metadata().node_count);
        let dest = pack_dir.join(rel);
        if let Some(dir) = dest.parent() {
            std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
        }
        stats.bytes += std::fs::copy(src, &dest).map_err(|e| err(e.to_string()))?;
    }
    Ok(stats)
}

/// Stores every `start,end,country_code` range of DB-IP Country CSV files (country-level
/// accuracy, no position: readers take the country's position from the `countries` table).
pub fn build_country(csvs: &[&Path], conn: &mut Connection) -> Result<IpStats, IpError> {
    let mut stats = IpStats::default();
    let tx = conn.transaction()?;
    {
        let mut insert = tx.prepare(
            "INSERT OR REPLACE INTO ip_ranges
             (start, end, country_code, region, city, postal_code, lat, lng, accuracy_km)
             VALUES (?1, ?2, ?3, NULL, NULL, NULL, NULL, NULL, ?4)",
        )?;
        for path in csvs {
            let text = std::fs::read_to_string(path).map_err(|e| IpError::Csv {
                path: path.display().to_string(),
                why: e.to_string(),
            })?;
            for (n, line) in text.lines().enumerate() {
                let bad = |why: &str| IpError::Csv {
                    path: path.display().to_string(),
                    why: format!("line {}: {why}", n + 1),
                };
                let mut cols = line.trim().split(',');
                let (Some(a), Some(b), Some(cc)) = (cols.next(), cols.next(), cols.next()) else {
                    return Err(bad("expected start,end,country_code"));
                };
                let a: IpAddr = a.parse().map_err(|_| bad("bad start address"))?;
                let b: IpAddr = b.parse().map_err(|_| bad("bad end address"))?;
                stats.read += 1;
                insert.execute(params![
                    &ip_key(a)[..],
                    &ip_key(b)[..],
                    cc,
                    COUNTRY_ACCURACY_KM
                ])?;
                stats.stored += 1;
            }
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
    fn network_bounds_cover_v4_and_v6() {
        let (s, e) = network_bounds("10.1.0.0".parse().unwrap(), 16);
        assert_eq!(s, ip_key("10.1.0.0".parse().unwrap()));
        assert_eq!(e, ip_key("10.1.255.255".parse().unwrap()));
        let (s, e) = network_bounds("2001:db8::".parse().unwrap(), 32);
        assert_eq!(s, ip_key("2001:db8::".parse().unwrap()));
        assert_eq!(
            e,
            ip_key("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff".parse().unwrap())
        );
        let (s, e) = network_bounds("1.2.3.4".parse().unwrap(), 32);
        assert_eq!(s, e);
    }

    #[test]
    fn country_csv_ranges_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("c.csv");
        std::fs::write(
            &csv,
            "1.0.0.0,1.0.0.255,AU\n2.0.0.0,2.0.255.255,FR\n2001:db8::,2001:db8::ffff,CH\n",
        )
        .unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        waymark_core::packs::schema::create_all(&conn).unwrap();
        let st = build_country(&[&csv], &mut conn).unwrap();
        assert_eq!(st.stored, 3);
        // Read back with the engine's own reader.
        let mut index = waymark_core::geolocation::ip::IpIndex::default();
        index.add_pack(&conn).unwrap();
        let country = |ip: &str| {
            index
                .lookup(ip.parse().unwrap())
                .and_then(|r| r.country_code.as_deref().map(str::to_string))
        };
        assert_eq!(country("1.0.0.7").as_deref(), Some("AU"));
        assert_eq!(country("2.0.200.1").as_deref(), Some("FR"));
        assert_eq!(country("::ffff:2.0.200.1").as_deref(), Some("FR"));
        assert_eq!(country("2001:db8::10").as_deref(), Some("CH"));
        assert_eq!(country("1.0.1.0"), None);
        assert_eq!(country("192.168.1.1"), None);
        std::fs::write(&csv, "garbage\n").unwrap();
        assert!(build_country(&[&csv], &mut conn).is_err());
    }
}
