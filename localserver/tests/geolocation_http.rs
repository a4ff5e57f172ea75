//! `/geolocation/position` and `/geolocation/timezone` over real HTTP on 127.0.0.1 with the
//! Helsinki, base and world IP packs: the DB-IP attribution header derived from the manifests of
//! the packs that answered, `ip_address` with private and public keys, 404s without the
//! header, and 402 once a free quota is used up.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::net::IpAddr;

use common::{Req, Server};
use waymark_core::auth::RateLimitMode;

/// Builds the sample plans `ids` into signed packs and installs them in the server's engine.
fn install_samples(s: &Server, ids: &[&str]) {
    let sources = waymark_packs::sources::Sources::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"),
    )
    .unwrap();
    for id in ids {
        let plan = waymark_packs::build::sample_plan(id).unwrap();
        let out = s.dir.path().join("built");
        let dir =
            waymark_packs::build::build_pack(&plan, "1", &sources, &out, false, &mut |_, _, _| {})
                .unwrap();
        waymark_packs::build::sign_pack(&dir, &s.publisher).unwrap();
        let url = format!("file://{}", dir.canonicalize().unwrap().display());
        s.engine.install_pack(&url, &mut |_| {}).unwrap();
    }
    // As `waymark serve` does at start: the indexes are built before the first request.
    s.engine.prepare_geolocation();
}

/// Attribution texts of the sources of pack `id` that fed its `ip` layer, read from its
/// installed manifest.
fn ip_sources(s: &Server, id: &str) -> Vec<String> {
    let set = s.engine.packs().snapshot();
    let pack = set.get(id).unwrap();
    pack.manifest
        .sources
        .iter()
        .filter(|src| src.layers.iter().any(|l| l == "ip"))
        .map(|src| src.attribution.clone())
        .collect()
}

/// The first address of a network the world IP pack places in Helsinki (read from its
/// MaxMind DB file).
fn helsinki_address(s: &Server) -> IpAddr {
    use waymark_core::geolocation::ip::{DbIpCity, WORLD_IP_FILES};
    let set = s.engine.packs().snapshot();
    let dir = &set.get(waymark_packs::build::WORLD_IP_PACK).unwrap().dir;
    let reader = maxminddb::Reader::open_readfile(dir.join(WORLD_IP_FILES[0])).unwrap();
    for item in reader
        .networks(maxminddb::WithinOptions::default())
        .unwrap()
    {
        let item = item.unwrap();
        let rec: Option<DbIpCity> = item.decode().unwrap();
        if rec.and_then(|r| r.city) == Some("Helsinki") {
            return waymark_core::auth::restrictions::canonical_ip(item.network().unwrap().ip());
        }
    }
    panic!("the world IP pack places no network in Helsinki")
}

#[test]
fn position_carries_the_attribution_of_the_packs_that_answered() {
    let s = Server::start_with(RateLimitMode::Off);
    install_samples(
        &s,
        &["helsinki", "base", waymark_packs::build::WORLD_IP_PACK],
    );
    let key = s.keys.private.clone();
    let helsinki_layers = s
        .engine
        .packs()
        .snapshot()
        .get("helsinki")
        .unwrap()
        .manifest
        .layers
        .clone();
    assert!(
        !helsinki_layers.iter().any(|l| l == "ip"),
        "a region pack carries no IP networks: {helsinki_layers:?}"
    );
    let region = ip_sources(&s, waymark_packs::build::WORLD_IP_PACK);
    let base = ip_sources(&s, "base");
    assert!(
        region.iter().any(|a| a.contains("DB-IP")),
        "the world IP pack's manifest names DB-IP: {region:?}"
    );
    assert!(base.iter().any(|a| a.contains("DB-IP")), "{base:?}");

    // A Helsinki address: city-level record of the world IP pack, country facts of the base.
    let ip = helsinki_address(&s);
    let r = s.http(
        &Req::get(format!("/geolocation/position?ip_address={ip}")).header("X-Api-Key", &key),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["city"], "Helsinki", "{}", r.body);
    assert_eq!(r.body["country_name"], "Finland");
    let header = r.header("x-data-attribution").unwrap();
    for line in region.iter().chain(&base) {
        assert!(header.contains(line.as_str()), "{header:?} lacks {line:?}");
    }
    assert!(
        header.contains("IP geolocation by DB-IP (https://db-ip.com), CC-BY-4.0"),
        "the attribution names the licence: {header:?}"
    );
    assert_eq!(
        header.matches("db-ip.com").count(),
        1,
        "one line per distinct attribution: {header:?}"
    );

    // An address only the base pack knows: its own DB-IP Country attribution.
    let r = s.http(&Req::get("/geolocation/position?ip_address=8.8.8.8").header("X-Api-Key", &key));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["country_code"], "US");
    let header = r.header("x-data-attribution").unwrap();
    for line in &base {
        assert!(header.contains(line.as_str()), "{header:?} lacks {line:?}");
    }
    // IPv6 and IPv4-mapped IPv6.
    let r = s.http(
        &Req::get("/geolocation/position?ip_address=2001:4860:4860::8888")
            .header("X-Api-Key", &key),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.header("x-data-attribution").is_some());
    let r = s.http(
        &Req::get(format!("/geolocation/position?ip_address=::ffff:{ip}"))
            .header("X-Api-Key", &key),
    );
    assert_eq!(r.body["city"], "Helsinki", "{}", r.body);

    // No answer, no attribution: the connection's own address (127.0.0.1) is local.
    let r = s.http(&Req::get("/geolocation/position").header("X-Api-Key", &key));
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.body["detail"].as_str().unwrap().contains("127.0.0.1"));
    assert!(r.header("x-data-attribution").is_none());

    // A public key's ip_address is ignored: the connection address (127.0.0.1) is used.
    let r = s.http(
        &Req::get(format!(
            "/geolocation/position?ip_address={ip}&key={}",
            s.keys.public
        ))
        .header("Referer", "https://example.com/shop/page.html"),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.body["detail"].as_str().unwrap().contains("127.0.0.1"));

    // The timezone of the same city over HTTP (no attribution header of the ip layer).
    let r = s.http(
        &Req::get("/geolocation/timezone?location=60.17,24.94&timestamp=1768000000")
            .header("X-Api-Key", &key),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["timezone"], "Europe/Helsinki");
    assert_eq!(r.body["timezone_name"], "EET");
}

#[test]
fn position_quota_runs_out_with_402() {
    let s = Server::start_with(RateLimitMode::Off);
    install_samples(&s, &["base"]);
    let q = s.keys.quota3.clone();
    // Refused requests (a local address) do not use the quota.
    let r = s.http(&Req::get("/geolocation/position?ip_address=10.0.0.1").header("X-Api-Key", &q));
    assert_eq!(r.status, 404);
    for i in 0..3 {
        let r =
            s.http(&Req::get("/geolocation/position?ip_address=8.8.8.8").header("X-Api-Key", &q));
        assert_eq!(r.status, 200, "request {i}: {}", r.body);
    }
    let r = s.http(&Req::get("/geolocation/position?ip_address=8.8.8.8").header("X-Api-Key", &q));
    assert_eq!(r.status, 402, "{}", r.body);
    assert_eq!(
        r.body["detail"],
        "the free quota of 3 requests of this key is used up"
    );
    assert!(r.header("x-data-attribution").is_none());
}
