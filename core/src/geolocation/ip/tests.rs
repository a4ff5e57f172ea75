#![allow(clippy::unwrap_used, clippy::expect_used)]
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

/// A pack file of non-overlapping IPv4 and IPv6 ranges (with gaps) and its boundaries.
fn ranges_file(dir: &Path) -> (PathBuf, Vec<u128>) {
    let db = dir.join("data.sqlite");
    let conn = Connection::open(&db).unwrap();
    crate::packs::schema::create_all(&conn).unwrap();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut probes = Vec::new();
    let tx = conn.unchecked_transaction().unwrap();
    let mut insert = |start: u128, end: u128, i: usize| {
        tx.execute(
            "INSERT INTO ip_ranges VALUES (?1, ?2, ?3, NULL, ?4, NULL, ?5, ?6, ?7)",
            rusqlite::params![
                &start.to_be_bytes()[..],
                &end.to_be_bytes()[..],
                ["FI", "DE", "GB"][i % 3],
                (!i.is_multiple_of(5)).then(|| format!("city {}", i % 40)),
                60.0 + (i % 40) as f64 * 0.1,
                24.0,
                if i.is_multiple_of(5) { 1000.0 } else { 25.0 }
            ],
        )
        .unwrap();
        probes.extend([
            start.wrapping_sub(1),
            start,
            start + 1,
            end - 1,
            end,
            end + 1,
        ]);
    };
    // IPv4, mapped on both ends.
    let mut a: u32 = 1 << 24;
    for i in 0..2000 {
        a = a.saturating_add((next() % 50_000) as u32);
        let len = 1 + (next() % 100_000) as u32;
        let (s, e) = (a, a.saturating_add(len));
        if e == u32::MAX {
            break;
        }
        insert(
            key(IpAddr::from(s.to_be_bytes())),
            key(IpAddr::from(e.to_be_bytes())),
            i,
        );
        a = e + 1;
    }
    // IPv6 from 2000::/3.
    let mut b: u128 = 0x2000 << 112;
    for i in 0..500 {
        b += u128::from(next() >> 40) << 64;
        let e = b + (u128::from(next() % 1000) << 64) + 0xffff;
        insert(b, e, i);
        b = e + 1;
    }
    tx.commit().unwrap();
    for _ in 0..2000 {
        probes.push(key(IpAddr::from((next() as u32).to_be_bytes())));
        probes.push((0x2000 << 112) + (u128::from(next()) << 56));
    }
    (db, probes)
}

fn address(k: u128) -> IpAddr {
    let v6 = std::net::Ipv6Addr::from(k);
    v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4)
}

fn same(a: Option<Cow<'_, IpRecord>>, b: Option<Cow<'_, IpRecord>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            (
                &a.country_code,
                &a.region,
                &a.city,
                &a.postal_code,
                a.position,
            ) == (
                &b.country_code,
                &b.region,
                &b.city,
                &b.postal_code,
                b.position,
            ) && a.accuracy_km == b.accuracy_km
        }
        _ => false,
    }
}

#[test]
fn deferred_ranges_answer_as_the_arrays_before_and_after_the_load() {
    let dir = tempfile::tempdir().unwrap();
    let (db, probes) = ranges_file(dir.path());
    let mut eager = IpIndex::default();
    eager.add_pack(&Connection::open(&db).unwrap()).unwrap();
    let mut deferred = IpIndex::default();
    deferred.add_pack_deferred(&db, Vec::new()).unwrap();
    assert!(!deferred.loaded());
    assert_eq!(deferred.counts().0, 0);
    let mut hits = 0;
    for &k in &probes {
        let ip = address(k);
        let want = eager.lookup(ip);
        hits += usize::from(want.is_some());
        assert!(same(deferred.lookup(ip), want), "query path, {ip}");
    }
    assert!(hits > probes.len() / 3, "{hits} of {}", probes.len());
    deferred.load_in_background();
    deferred.wait_loaded();
    assert_eq!(deferred.counts().0, eager.counts().0);
    for &k in &probes {
        let ip = address(k);
        assert!(same(deferred.lookup(ip), eager.lookup(ip)), "arrays, {ip}");
    }
}

#[test]
fn a_pack_without_ranges_adds_only_its_countries() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("data.sqlite");
    let conn = Connection::open(&db).unwrap();
    crate::packs::schema::create_all(&conn).unwrap();
    conn.execute(
        "INSERT INTO countries VALUES ('FI','FIN','246','Finland','Europe',64.0,26.0,NULL)",
        [],
    )
    .unwrap();
    let mut idx = IpIndex::default();
    idx.add_pack_deferred(&db, Vec::new()).unwrap();
    assert!(idx.is_empty());
    assert!(idx.loaded());
    assert_eq!(idx.country("FI").unwrap().name, "Finland");
}
