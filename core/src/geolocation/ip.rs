//! Position of an IP address from the packs' `ip` layer (DB-IP ranges; city-level in region
//! packs, country-level in the base pack) and the `countries` table.
//!
//! The ranges of every loaded pack are read once per pack set into sorted arrays (keys are
//! 128-bit, IPv4 mapped into `::ffff:0:0/96`); a lookup is a binary search in each array,
//! city-level packs first. Repeated strings (countries, regions, cities) are shared.
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;

use rusqlite::Connection;

/// One range.
#[derive(Debug, Clone)]
pub struct IpRecord {
    start: u128,
    end: u128,
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
}

/// IP ranges of the loaded packs, most precise pack first.
#[derive(Debug, Default)]
pub struct IpIndex {
    packs: Vec<Vec<IpRecord>>,
    countries: HashMap<String, Country>,
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

impl IpIndex {
    /// Adds the ranges of one pack (call with the most precise packs first) and its countries.
    pub fn add_pack(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let mut strings: HashMap<String, Arc<str>> = HashMap::new();
        let mut intern = |s: Option<String>| -> Option<Arc<str>> {
            s.filter(|s| !s.is_empty()).map(|s| {
                strings
                    .entry(s.clone())
                    .or_insert_with(|| Arc::from(s))
                    .clone()
            })
        };
        let mut stmt = conn.prepare(
            "SELECT start, end, country_code, region, city, postal_code, lat, lng, accuracy_km
             FROM ip_ranges ORDER BY start",
        )?;
        let mut rows = stmt.query([])?;
        let mut records = Vec::new();
        while let Some(r) = rows.next()? {
            let (Some(start), Some(end)) = (
                key_of(&r.get::<_, Vec<u8>>(0)?),
                key_of(&r.get::<_, Vec<u8>>(1)?),
            ) else {
                continue;
            };
            let lat: Option<f64> = r.get(6)?;
            let lng: Option<f64> = r.get(7)?;
            records.push(IpRecord {
                start,
                end,
                country_code: intern(r.get(2)?),
                region: intern(r.get(3)?),
                city: intern(r.get(4)?),
                postal_code: intern(r.get(5)?),
                position: lat.zip(lng),
                accuracy_km: r.get(8)?,
            });
        }
        if !records.is_empty() {
            self.packs.push(records);
        }
        let mut stmt = conn.prepare("SELECT code2, name, continent, lat, lng FROM countries")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let lat: Option<f64> = r.get(3)?;
            let lng: Option<f64> = r.get(4)?;
            self.countries.entry(r.get(0)?).or_insert(Country {
                name: r.get(1)?,
                continent: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                position: lat.zip(lng),
            });
        }
        Ok(())
    }

    /// Whether no range is loaded.
    pub fn is_empty(&self) -> bool {
        self.packs.is_empty()
    }

    /// The most precise record containing `ip`.
    pub fn lookup(&self, ip: IpAddr) -> Option<&IpRecord> {
        let k = key(crate::auth::restrictions::canonical_ip(ip));
        self.packs.iter().find_map(|records| {
            let i = records.partition_point(|r| r.start <= k);
            let r = records.get(i.checked_sub(1)?)?;
            (r.end >= k).then_some(r)
        })
    }

    /// Facts of a country.
    pub fn country(&self, code: &str) -> Option<&Country> {
        self.countries.get(code)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn local_addresses() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.0.1",
            "172.16.5.5",
            "169.254.1.1",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:192.168.1.1",
            "100.64.0.1",
            "0.0.0.0",
        ] {
            assert!(is_local(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["8.8.8.8", "2a00:1450::1", "::ffff:8.8.8.8", "81.2.69.142"] {
            assert!(!is_local(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn city_packs_win_over_country_ranges_and_mapped_addresses_match() {
        let conn = Connection::open_in_memory().unwrap();
        crate::packs::schema::create_all(&conn).unwrap();
        let put = |c: &Connection, a: &str, b: &str, cc: &str, city: Option<&str>, acc: f64| {
            let ka = key(a.parse().unwrap()).to_be_bytes();
            let kb = key(b.parse().unwrap()).to_be_bytes();
            c.execute(
                "INSERT INTO ip_ranges VALUES (?1, ?2, ?3, NULL, ?4, NULL, ?5, ?6, ?7)",
                rusqlite::params![
                    &ka[..],
                    &kb[..],
                    cc,
                    city,
                    city.map(|_| 60.17),
                    city.map(|_| 24.94),
                    acc
                ],
            )
            .unwrap();
        };
        put(
            &conn,
            "81.0.0.0",
            "81.255.255.255",
            "FI",
            Some("Helsinki"),
            25.0,
        );
        let base = Connection::open_in_memory().unwrap();
        crate::packs::schema::create_all(&base).unwrap();
        put(&base, "80.0.0.0", "82.255.255.255", "FI", None, 1000.0);
        base.execute(
            "INSERT INTO countries VALUES ('FI','FIN','246','Finland','Europe',64.0,26.0,NULL)",
            [],
        )
        .unwrap();
        let mut idx = IpIndex::default();
        idx.add_pack(&conn).unwrap();
        idx.add_pack(&base).unwrap();
        let r = idx.lookup("81.2.3.4".parse().unwrap()).unwrap();
        assert_eq!(r.city.as_deref(), Some("Helsinki"));
        let r = idx.lookup("::ffff:81.2.3.4".parse().unwrap()).unwrap();
        assert_eq!(r.accuracy_km, 25.0);
        let r = idx.lookup("80.1.1.1".parse().unwrap()).unwrap();
        assert_eq!((r.city.as_deref(), r.accuracy_km), (None, 1000.0));
        assert!(idx.lookup("83.0.0.1".parse().unwrap()).is_none());
        assert_eq!(idx.country("FI").unwrap().name, "Finland");
    }
}
