//! Shared fixtures for the end-to-end tests and benchmarks: an engine with a real pack built
//! from the pinned sources and installed like any other, and callers with keys of its
//! publisher.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};
use waymark_core::auth::{Caller, RateLimitMode};
use waymark_core::{Engine, EngineConfig};
use waymark_packs::build::{self, PackPlan};
use waymark_packs::sources::Sources;

/// The repository's pinned sources.
pub fn sources() -> Sources {
    Sources::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../data-packs/sources.toml"))
        .unwrap()
}

/// Builds `plan` under `tmp`, signs it with a new publisher, installs it into a new engine
/// (rate limits off) and returns both.
pub fn engine_with_pack(plan: &PackPlan, tmp: &Path) -> (Engine, Publisher) {
    let publisher = Publisher::generate().unwrap();
    let dir = build::build_pack(
        plan,
        "1",
        &sources(),
        &tmp.join("built"),
        false,
        &mut |_, _, _| {},
    )
    .unwrap();
    build::sign_pack(&dir, &publisher).unwrap();
    let mut config = EngineConfig::new(&tmp.join("state"), vec![publisher.verifying()]);
    config.rate_limits = RateLimitMode::Off;
    config.packs_dir = Some(tmp.join("packs"));
    let engine = Engine::open(config).unwrap();
    engine
        .install_pack(
            &format!("file://{}", dir.canonicalize().unwrap().display()),
            &mut |_| {},
        )
        .unwrap();
    (engine, publisher)
}

/// A caller with an unrestricted private key of `publisher`, connecting from 127.0.0.1.
pub fn private_caller(publisher: &Publisher) -> Caller {
    let claims = KeyClaims::new(KeyScope::Private {
        write: false,
        restriction: PrivateRestriction::None,
    });
    Caller {
        api_key_header: Some(publisher.issue(&claims).unwrap()),
        peer_ip: Some("127.0.0.1".parse().unwrap()),
        ..Caller::default()
    }
}
