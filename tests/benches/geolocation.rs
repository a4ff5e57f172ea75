//! Timezone and IP lookups through the Engine on a real base pack (world timezones, DB-IP
//! Country ranges): `cargo bench -p waymark-tests --bench geolocation`.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use waymark_core::api::{LatLng, PositionRequest, TimezoneRequest};
use waymark_core::endpoint::Endpoint;
use waymark_packs::build;

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let (engine, publisher) =
        waymark_tests::engine_with_pack(&build::sample_plan("base").unwrap(), tmp.path());
    let caller = waymark_tests::private_caller(&publisher);
    let tz_grant = engine.authorize(&caller, Endpoint::Timezone).unwrap();
    let ip_grant = engine.authorize(&caller, Endpoint::Position).unwrap();
    // Deterministic spread of points and addresses.
    let points: Vec<LatLng> = (0..1024)
        .map(|i| {
            let f = i as f64;
            LatLng {
                lat: ((f * 37.77) % 140.0) - 60.0,
                lng: ((f * 91.13) % 360.0) - 180.0,
            }
        })
        .collect();
    let ips: Vec<std::net::IpAddr> = (0..1024u32)
        .map(|i| {
            std::net::IpAddr::V4(std::net::Ipv4Addr::from(
                0x0800_0000u32.wrapping_add(i.wrapping_mul(2_654_435_761)),
            ))
        })
        .collect();
    let mut i = 0;
    c.bench_function("timezone (engine, world polygons)", |b| {
        b.iter(|| {
            i = (i + 1) % points.len();
            black_box(engine.geolocation_timezone(
                &tz_grant,
                TimezoneRequest {
                    location: points[i],
                    timestamp: Some(1_768_000_000),
                },
            ))
        })
    });
    let mut j = 0;
    c.bench_function("ip position (engine, base pack)", |b| {
        b.iter(|| {
            j = (j + 1) % ips.len();
            black_box(engine.geolocation_position(
                &ip_grant,
                PositionRequest {
                    ip_address: Some(ips[j]),
                },
            ))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
