//! `GET /geolocation/position` through the Engine on a real base pack (DB-IP Country Lite,
//! countries, world timezones): 1,000 addresses drawn from the source CSV's own rows come back
//! with that row's country; `ip_address` is honoured only with a private key; local addresses
//! are 404.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::IpAddr;

use waymark_core::ErrorCode;
use waymark_core::api::PositionRequest;
use waymark_core::auth::Caller;
use waymark_core::auth::keys::{KeyClaims, KeyScope, PublicRestrictions};
use waymark_core::operation::Credentials;
use waymark_packs::build;

#[test]
fn positions_from_the_base_pack() {
    if std::process::Command::new("npm")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: npm absent");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let sources = waymark_tests::sources();
    let (engine, publisher) =
        waymark_tests::engine_with_pack(&build::sample_plan("base").unwrap(), tmp.path());
    let private = waymark_tests::private_caller(&publisher);
    let ask = |caller: &Caller, ip: Option<IpAddr>| {
        engine.call(
            &Credentials::Http(caller),
            PositionRequest { ip_address: ip },
        )
    };

    let csv = sources
        .member("dbip-country", "package/dbip-country-ipv4.csv")
        .unwrap();
    let text = std::fs::read_to_string(csv).unwrap();
    let rows: Vec<(IpAddr, String)> = text
        .lines()
        .filter_map(|l| {
            let mut c = l.split(',');
            Some((c.next()?.parse().ok()?, {
                c.next()?;
                c.next()?.to_string()
            }))
        })
        .collect();
    let step = rows.len() / 1000;
    let mut checked = 0;
    for (start, cc) in rows.iter().step_by(step.max(1)) {
        if waymark_core::geolocation::ip::is_local(*start) {
            continue;
        }
        let r = ask(&private, Some(*start)).unwrap_or_else(|e| panic!("{start}: {e}"));
        assert_eq!(r.country_code.as_deref(), Some(cc.as_str()), "{start}");
        assert_eq!(r.accuracy, 1000.0, "country-level ranges say so");
        assert!(!r.timezone.is_empty());
        checked += 1;
    }
    assert!(checked >= 900, "{checked}");

    // A known address with a full answer.
    let r = ask(&private, Some("8.8.8.8".parse().unwrap())).unwrap();
    assert_eq!(r.country_code.as_deref(), Some("US"));
    assert_eq!(r.country_name, "United States");
    assert_eq!(r.continent, "Americas");
    assert!(r.viewport.northeast.lat > r.latitude && r.viewport.southwest.lat < r.latitude);
    // IPv4-mapped IPv6 is the same address.
    let mapped = ask(&private, Some("::ffff:8.8.8.8".parse().unwrap())).unwrap();
    assert_eq!(mapped.country_code.as_deref(), Some("US"));

    // IPv6 (with the country's centre and the timezone there).
    let v6 = ask(&private, Some("2001:4860:4860::8888".parse().unwrap())).unwrap();
    // (DB-IP Country Lite places this Google range in Canada.)
    assert_eq!(v6.country_code.as_deref(), Some("CA"));
    assert_eq!(v6.country_name, "Canada");
    assert_eq!(v6.accuracy, 1000.0);
    assert!(v6.timezone.starts_with("America/"), "{}", v6.timezone);
    // Public addresses in no range of the packs: 404 saying so.
    for unknown in ["3fff::1", "0.1.2.3"] {
        let e = ask(&private, Some(unknown.parse().unwrap())).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotFound, "{unknown}");
        assert!(e.message.contains("no position is known"), "{unknown}: {e}");
    }

    // Local addresses: the connection (127.0.0.1) and a private ip_address are 404.
    assert_eq!(ask(&private, None).unwrap_err().code, ErrorCode::NotFound);
    assert_eq!(
        ask(&private, Some("192.168.1.10".parse().unwrap()))
            .unwrap_err()
            .code,
        ErrorCode::NotFound
    );

    // A public key's ip_address is ignored: the connection address is used.
    let public = Caller {
        key: Some(
            publisher
                .issue(&KeyClaims::new(KeyScope::Public(PublicRestrictions {
                    domains: vec!["*".into()],
                    ips: vec![],
                })))
                .unwrap(),
        ),
        referer: Some("https://example.com/".into()),
        peer_ip: Some("8.8.4.4".parse().unwrap()),
        ..Caller::default()
    };
    let r = ask(&public, Some("81.2.69.142".parse().unwrap())).unwrap();
    assert_eq!(
        r.country_code.as_deref(),
        Some("US"),
        "the connection address 8.8.4.4 was used"
    );
}
