//! `GET /geolocation/timezone` through the Engine on a real pack built from the pinned
//! timezone polygons: known places, seas, poles, the antimeridian, and agreement with the
//! polygons' own finder (tzf-rs on the same data) on random points.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use waymark_core::Engine;
use waymark_core::api::{LatLng, TimezoneRequest};
use waymark_core::auth::Caller;
use waymark_core::operation::Credentials;
use waymark_packs::build::PackPlan;

fn engine_with_world_timezones(tmp: &Path) -> (std::sync::Arc<Engine>, Caller) {
    let plan = PackPlan {
        id: "base".into(),
        osm: vec![],
        layers: vec!["timezones".into()],
        base: true,
        routing: Default::default(),
    };
    let (engine, publisher) = waymark_tests::engine_with_pack(&plan, tmp);
    (engine, waymark_tests::private_caller(&publisher))
}

fn tz(
    engine: &std::sync::Arc<Engine>,
    caller: &Caller,
    lat: f64,
    lng: f64,
    ts: i64,
) -> waymark_core::api::TimezoneResult {
    engine
        .call(
            &Credentials::Http(caller),
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

/// `(timezone, timezone_name, raw_offset, dst_offset)`.
type Expected = (&'static str, &'static str, i32, i32);

/// `(timezone, timezone_name, raw_offset, dst_offset)` at a point and instant (RFC 3339).
fn at(
    e: &std::sync::Arc<Engine>,
    c: &Caller,
    lat: f64,
    lng: f64,
    instant: &str,
) -> (String, String, i32, i32) {
    let ts = chrono::DateTime::parse_from_rfc3339(instant)
        .unwrap()
        .timestamp();
    let r = tz(e, c, lat, lng, ts);
    (r.timezone, r.timezone_name, r.raw_offset, r.dst_offset)
}

fn owned(t: Expected) -> (String, String, i32, i32) {
    (t.0.to_string(), t.1.to_string(), t.2, t.3)
}

#[test]
fn transitions_odd_offsets_history_seas_antimeridian_and_poles() {
    let tmp = tempfile::tempdir().unwrap();
    let (e, c) = engine_with_world_timezones(tmp.path());
    // (lat, lng, instant, expected) — DST on both sides of each 2026 transition.
    let cases: &[(f64, f64, &str, Expected)] = &[
        // Europe: last Sunday of March / October at 01:00 UTC.
        (
            52.52,
            13.40,
            "2026-03-29T00:59:59Z",
            ("Europe/Berlin", "CET", 3600, 0),
        ),
        (
            52.52,
            13.40,
            "2026-03-29T01:00:00Z",
            ("Europe/Berlin", "CEST", 3600, 3600),
        ),
        (
            52.52,
            13.40,
            "2026-10-25T00:59:59Z",
            ("Europe/Berlin", "CEST", 3600, 3600),
        ),
        (
            52.52,
            13.40,
            "2026-10-25T01:00:00Z",
            ("Europe/Berlin", "CET", 3600, 0),
        ),
        // US: second Sunday of March at 02:00 EST, first Sunday of November at 02:00 EDT.
        (
            40.71,
            -74.01,
            "2026-03-08T06:59:59Z",
            ("America/New_York", "EST", -18000, 0),
        ),
        (
            40.71,
            -74.01,
            "2026-03-08T07:00:00Z",
            ("America/New_York", "EDT", -18000, 3600),
        ),
        (
            40.71,
            -74.01,
            "2026-11-01T05:59:59Z",
            ("America/New_York", "EDT", -18000, 3600),
        ),
        (
            40.71,
            -74.01,
            "2026-11-01T06:00:00Z",
            ("America/New_York", "EST", -18000, 0),
        ),
        // Southern hemisphere: Sydney leaves DST on the first Sunday of April and enters it on
        // the first Sunday of October (03:00 AEDT / 02:00 AEST); Santiago in summer and winter.
        (
            -33.87,
            151.21,
            "2026-04-04T15:59:59Z",
            ("Australia/Sydney", "AEDT", 36000, 3600),
        ),
        (
            -33.87,
            151.21,
            "2026-04-04T16:00:00Z",
            ("Australia/Sydney", "AEST", 36000, 0),
        ),
        (
            -33.87,
            151.21,
            "2026-10-03T15:59:59Z",
            ("Australia/Sydney", "AEST", 36000, 0),
        ),
        (
            -33.87,
            151.21,
            "2026-10-03T16:00:00Z",
            ("Australia/Sydney", "AEDT", 36000, 3600),
        ),
        (
            -33.45,
            -70.67,
            "2026-01-15T12:00:00Z",
            ("America/Santiago", "-03", -14400, 3600),
        ),
        (
            -33.45,
            -70.67,
            "2026-07-15T12:00:00Z",
            ("America/Santiago", "-04", -14400, 0),
        ),
        // Half-hour offsets: India (no DST), Adelaide (+09:30 with DST in January).
        (
            28.61,
            77.21,
            "2026-01-15T12:00:00Z",
            ("Asia/Kolkata", "IST", 19800, 0),
        ),
        (
            -34.93,
            138.60,
            "2026-01-15T12:00:00Z",
            ("Australia/Adelaide", "ACDT", 34200, 3600),
        ),
        (
            -34.93,
            138.60,
            "2026-07-15T12:00:00Z",
            ("Australia/Adelaide", "ACST", 34200, 0),
        ),
        // 45-minute offsets: Nepal, Chatham Islands (+12:45, +13:45 with DST in January).
        (
            27.72,
            85.32,
            "2026-07-15T12:00:00Z",
            ("Asia/Kathmandu", "+0545", 20700, 0),
        ),
        (
            -43.95,
            -176.55,
            "2026-01-15T12:00:00Z",
            ("Pacific/Chatham", "+1345", 45900, 3600),
        ),
        (
            -43.95,
            -176.55,
            "2026-07-15T12:00:00Z",
            ("Pacific/Chatham", "+1245", 45900, 0),
        ),
        // History: Moscow kept UTC+4 all year in 2011-2014; it is UTC+3 today.
        (
            55.75,
            37.62,
            "2012-07-01T12:00:00Z",
            ("Europe/Moscow", "MSK", 14400, 0),
        ),
        (
            55.75,
            37.62,
            "2026-07-01T12:00:00Z",
            ("Europe/Moscow", "MSK", 10800, 0),
        ),
        // Open sea: nautical zones of the longitude.
        (
            0.0,
            -140.0,
            "2026-01-15T12:00:00Z",
            ("Etc/GMT+9", "-09", -32400, 0),
        ),
        (
            -30.0,
            80.0,
            "2026-01-15T12:00:00Z",
            ("Etc/GMT-5", "+05", 18000, 0),
        ),
        // Antimeridian: Fiji west of it, Samoa and Tonga east of it on the far side of the
        // date line.
        (
            -17.7,
            178.0,
            "2026-07-15T12:00:00Z",
            ("Pacific/Fiji", "+12", 43200, 0),
        ),
        (
            -13.83,
            -171.76,
            "2026-07-15T12:00:00Z",
            ("Pacific/Apia", "+13", 46800, 0),
        ),
        (
            -21.14,
            -175.2,
            "2026-07-15T12:00:00Z",
            ("Pacific/Tongatapu", "+13", 46800, 0),
        ),
    ];
    for &(lat, lng, instant, want) in cases {
        assert_eq!(
            at(&e, &c, lat, lng, instant),
            owned(want),
            "{lat},{lng} at {instant}"
        );
    }
    // On the antimeridian itself: +180° and -180° are one meridian and answer alike, as a
    // point just east of it (a point on a polygon's edge belongs to the polygon east of it).
    for lat in [0.0, -17.0, -16.5, 51.5, -60.0] {
        let east = at(&e, &c, lat, 180.0, "2026-07-15T12:00:00Z");
        let west = at(&e, &c, lat, -180.0, "2026-07-15T12:00:00Z");
        let near = at(&e, &c, lat, -179.999, "2026-07-15T12:00:00Z");
        assert_eq!(east, west, "{lat}");
        assert_eq!(east.0, near.0, "{lat}");
    }
    // Poles: the Arctic Ocean's nautical zones; the South Pole keeps New Zealand time (as
    // the Amundsen-Scott station does, and as the polygons say).
    assert_eq!(at(&e, &c, 90.0, 0.0, "2026-07-15T12:00:00Z").0, "Etc/GMT");
    assert_eq!(
        at(&e, &c, -90.0, 0.0, "2026-07-15T12:00:00Z"),
        owned(("Antarctica/McMurdo", "NZST", 43200, 0))
    );
    for (lat, lng) in [(90.0, 0.0), (90.0, 179.0), (-90.0, 0.0), (-90.0, -120.0)] {
        let r = at(&e, &c, lat, lng, "2026-07-15T12:00:00Z");
        let near = at(
            &e,
            &c,
            lat.clamp(-89.999, 89.999),
            lng,
            "2026-07-15T12:00:00Z",
        );
        assert_eq!(r.0, near.0, "{lat},{lng}");
    }
}
