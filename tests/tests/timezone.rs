//! `GET /geolocation/timezone` through the Engine on a real pack built from the pinned
//! timezone polygons: known places, seas, poles, the antimeridian, and agreement with the
//! polygons' own finder (tzf-rs on the same data) on random points.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use waymark_core::Engine;
use waymark_core::api::{LatLng, TimezoneRequest};
use waymark_core::auth::Caller;
use waymark_core::endpoint::Endpoint;
use waymark_packs::build::PackPlan;

fn engine_with_world_timezones(tmp: &Path) -> (Engine, Caller) {
    let plan = PackPlan {
        id: "base".into(),
        osm: vec![],
        layers: vec!["timezones".into()],
        base: true,
    };
    let (engine, publisher) = waymark_tests::engine_with_pack(&plan, tmp);
    (engine, waymark_tests::private_caller(&publisher))
}

fn tz(
    engine: &Engine,
    caller: &Caller,
    lat: f64,
    lng: f64,
    ts: i64,
) -> waymark_core::api::TimezoneResult {
    let grant = engine.authorize(caller, Endpoint::Timezone).unwrap();
    engine
        .geolocation_timezone(
            &grant,
            TimezoneRequest {
                location: LatLng { lat, lng },
                timestamp: Some(ts),
            },
        )
        .unwrap()
}

#[test]
fn known_places_seas_poles_and_the_antimeridian() {
    let tmp = tempfile::tempdir().unwrap();
    let (e, c) = engine_with_world_timezones(tmp.path());
    let summer = 1_784_000_000; // 2026-07-13
    let winter = 1_768_000_000; // 2026-01-09
    let r = tz(&e, &c, 52.52, 13.40, summer);
    assert_eq!(
        (
            r.timezone.as_str(),
            r.timezone_name.as_str(),
            r.raw_offset,
            r.dst_offset
        ),
        ("Europe/Berlin", "CEST", 3600, 3600)
    );
    let r = tz(&e, &c, 52.52, 13.40, winter);
    assert_eq!((r.timezone_name.as_str(), r.dst_offset), ("CET", 0));
    let r = tz(&e, &c, 40.7128, -74.0060, summer);
    assert_eq!(
        (r.timezone.as_str(), r.timezone_name.as_str(), r.raw_offset),
        ("America/New_York", "EDT", -18000)
    );
    let r = tz(&e, &c, -33.8688, 151.2093, winter);
    assert_eq!(
        (r.timezone.as_str(), r.dst_offset),
        ("Australia/Sydney", 3600)
    );
    assert_eq!(
        tz(&e, &c, 27.7172, 85.3240, winter).raw_offset,
        20700,
        "Kathmandu +05:45"
    );
    assert_eq!(tz(&e, &c, 60.17, 24.94, winter).timezone, "Europe/Helsinki");
    // Mid-Atlantic: a nautical zone.
    let sea = tz(&e, &c, 30.0, -40.0, winter);
    assert!(sea.timezone.starts_with("Etc/GMT"), "{sea:?}");
    assert_eq!(sea.raw_offset, -3 * 3600);
    // Poles and the antimeridian answer with a valid zone.
    for (lat, lng) in [
        (90.0, 0.0),
        (-90.0, 0.0),
        (0.0, 180.0),
        (0.0, -180.0),
        (-17.7, 178.0),
    ] {
        let r = tz(&e, &c, lat, lng, winter);
        assert!(!r.timezone.is_empty(), "{lat},{lng}");
    }
    assert_eq!(tz(&e, &c, -17.7, 178.0, winter).timezone, "Pacific/Fiji");
}

#[test]
fn agrees_with_the_polygons_own_finder_on_random_points() {
    let tmp = tempfile::tempdir().unwrap();
    let (e, c) = engine_with_world_timezones(tmp.path());
    let finder = tzf_rs::DefaultFinder::new();
    // Deterministic pseudo-random points (xorshift).
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let (mut same, total) = (0, 2000);
    for _ in 0..total {
        let lat = next() * 160.0 - 80.0;
        let lng = next() * 360.0 - 180.0;
        let ours = tz(&e, &c, lat, lng, 1_768_000_000).timezone;
        if ours == finder.get_tz_name(lng, lat) {
            same += 1;
        }
    }
    // Same polygons; differences come only from points exactly on shared borders.
    assert!(same * 1000 >= total * 998, "{same}/{total} agree");
}
