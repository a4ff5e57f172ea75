//! Geolocation benchmarks on real packs (the Helsinki, base and world IP sample packs, built
//! by the benchmark itself): `cargo bench -p waymark-tests --bench geolocation`.
//!
//! * the lookups alone: `TimezoneIndex::lookup` on the world polygons of the base pack, and
//!   `IpIndex::find` on the DB-IP Country ranges of the base pack, each index built as the
//!   engine builds it;
//! * the whole engine operations (grant check, validation, quota, lookup, chrono-tz offsets;
//!   the position also looks up the timezone of the position; city level from the world IP
//!   pack's MaxMind DB files).
//!
//! Index build times and sizes are printed before the measurements.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use waymark_core::api::{LatLng, PositionRequest, TimezoneRequest};
use waymark_core::geolocation::ip::IpIndex;
use waymark_core::geolocation::layer_attribution;
use waymark_core::geolocation::timezone::TimezoneIndexBuilder;
use waymark_core::operation::Credentials;
use waymark_packs::build;

/// Resident memory of this process, in KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let plans = [
        build::sample_plan("helsinki").unwrap(),
        build::sample_plan("base").unwrap(),
        build::sample_plan(build::WORLD_IP_PACK).unwrap(),
    ];
    let (engine, publisher, _) = waymark_tests::engine_with_packs(&plans, tmp.path());
    let caller = waymark_tests::private_caller(&publisher);
    let set = engine.packs().snapshot();
    let base = set.get("base").unwrap().clone();

    // Timezone index of the base pack's world polygons.
    let rss0 = rss_kib();
    let t = Instant::now();
    let mut builder = TimezoneIndexBuilder::default();
    builder.add_pack(&base.sqlite().unwrap()).unwrap();
    let decoded = t.elapsed();
    let tz = builder.build();
    let built = t.elapsed();
    let st = tz.stats();
    eprintln!(
        "timezone index: {} zones, {} vertices, {} edges; decode {:.0} ms, total build {:.0} ms; \
         {} nodes, {} edge leaves, {} edge refs; ~{:.1} MB heap (resident +{:.1} MB)",
        st.zones,
        st.vertices,
        st.edges,
        decoded.as_secs_f64() * 1e3,
        built.as_secs_f64() * 1e3,
        st.nodes,
        st.edge_leaves,
        st.edge_refs,
        st.bytes as f64 / 1e6,
        (rss_kib().saturating_sub(rss0)) as f64 / 1024.0,
    );

    // IP index of the SQLite ranges as the engine builds it (the base pack's countries).
    let rss0 = rss_kib();
    let t = Instant::now();
    let mut ips = IpIndex::default();
    ips.add_pack_attributed(
        &base.sqlite().unwrap(),
        layer_attribution(&base.manifest, "ip"),
    )
    .unwrap();
    let (ranges, records) = ips.counts();
    eprintln!(
        "ip index: {ranges} ranges, {records} distinct records; build {:.0} ms; ~{:.1} MB heap \
         (resident +{:.1} MB)",
        t.elapsed().as_secs_f64() * 1e3,
        ips.bytes() as f64 / 1e6,
        (rss_kib().saturating_sub(rss0)) as f64 / 1024.0,
    );

    let mut rng = waymark_tests::Rng(0x9e37_79b9_7f4a_7c15);
    // Points uniform on the sphere (mostly sea), and land points (in a non-Etc zone).
    let sphere: Vec<(f64, f64)> = (0..4096).map(|_| rng.sphere_point()).collect();
    let land: Vec<(f64, f64)> = std::iter::from_fn(|| Some(rng.sphere_point()))
        .filter(|&(lat, lng)| !tz.lookup(lat, lng).starts_with("Etc/"))
        .take(4096)
        .collect();
    // Addresses: half in Finland's ranges (IPv4 and IPv6), a quarter any IPv4, a quarter any
    // IPv6 in 2000::/3.
    let finnish_ranges: Vec<(u128, u128)> = {
        let conn = base.sqlite().unwrap();
        let mut stmt = conn
            .prepare("SELECT start, end FROM ip_ranges WHERE country_code = 'FI'")
            .unwrap();
        stmt.query_map([], |r| {
            let a: Vec<u8> = r.get(0)?;
            let b: Vec<u8> = r.get(1)?;
            Ok((
                u128::from_be_bytes(a.try_into().unwrap()),
                u128::from_be_bytes(b.try_into().unwrap()),
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    let addresses: Vec<IpAddr> = (0..4096)
        .map(|i| match i % 4 {
            0 | 1 => {
                let (a, _) =
                    finnish_ranges[(rng.next_u64() % finnish_ranges.len() as u64) as usize];
                waymark_core::auth::restrictions::canonical_ip(IpAddr::V6(Ipv6Addr::from(a)))
            }
            2 => IpAddr::V4(Ipv4Addr::from(rng.next_u64() as u32)),
            _ => {
                let bits = u128::from(rng.next_u64()) << 64 | u128::from(rng.next_u64());
                IpAddr::V6(Ipv6Addr::from((bits >> 3) | (1u128 << 125)))
            }
        })
        .collect();
    let found = addresses
        .iter()
        .filter(|ip| ips.find(**ip).is_some())
        .count();
    eprintln!(
        "{found} of {} benchmark addresses are in some range",
        addresses.len()
    );

    let mut i = 0;
    c.bench_function(
        "timezone lookup (index; world polygons; points on the sphere)",
        |b| {
            b.iter(|| {
                i = (i + 1) % sphere.len();
                black_box(tz.lookup(sphere[i].0, sphere[i].1));
            })
        },
    );
    c.bench_function(
        "timezone lookup (index; world polygons; land points)",
        |b| {
            b.iter(|| {
                i = (i + 1) % land.len();
                black_box(tz.lookup(land[i].0, land[i].1));
            })
        },
    );
    c.bench_function("ip lookup (index; base pack country ranges)", |b| {
        b.iter(|| {
            i = (i + 1) % addresses.len();
            black_box(ips.find(addresses[i]).map(|h| h.record.accuracy_km));
        })
    });
    c.bench_function("timezone (engine operation; land points)", |b| {
        b.iter(|| {
            i = (i + 1) % land.len();
            black_box(engine.call(
                &Credentials::Http(&caller),
                TimezoneRequest {
                    location: LatLng {
                        lat: land[i].0,
                        lng: land[i].1,
                    },
                    timestamp: Some(1_768_000_000),
                },
            ))
        })
    });
    c.bench_function(
        "ip position (engine operation; base and world IP packs)",
        |b| {
            b.iter(|| {
                i = (i + 1) % addresses.len();
                black_box(engine.call(
                    &Credentials::Http(&caller),
                    PositionRequest {
                        ip_address: Some(addresses[i]),
                    },
                ))
            })
        },
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
