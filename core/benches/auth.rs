//! Cost of admitting one request: key verification (cached), restriction check and rate limit.
//!
//! `cargo bench -p waymark-core --bench auth`
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use waymark_core::auth::keys::{
    AndroidApp, KeyClaims, KeyScope, PrivateRestriction, PublicRestrictions, Publisher,
};
use waymark_core::auth::{AppIdentity, Authorizer, Caller, RateLimitMode};
use waymark_core::endpoint::Endpoint;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let auth = Authorizer::new(
        vec![publisher.verifying()],
        &dir.path().join("s.sqlite"),
        RateLimitMode::Spec,
    )
    .unwrap();
    let public = publisher
        .issue(&KeyClaims::new(KeyScope::Public(PublicRestrictions {
            domains: vec!["example.com".into(), "*.example.org".into()],
            ips: vec![],
        })))
        .unwrap();
    let sha1 = "A1B2C3D4E5F60718293A4B5C6D7E8F9012345678";
    let android = publisher
        .issue(&KeyClaims::new(KeyScope::Private {
            write: false,
            restriction: PrivateRestriction::Android {
                apps: vec![AndroidApp {
                    package: "com.example.app".into(),
                    sha1: sha1.into(),
                }],
            },
        }))
        .unwrap();
    let web = Caller {
        key: Some(public.clone()),
        referer: Some("https://maps.example.org/page".into()),
        peer_ip: Some("127.0.0.1".parse().unwrap()),
        ..Caller::default()
    };
    let app = Caller {
        api_key_header: Some(android),
        app: AppIdentity {
            android_package: Some("com.example.app".into()),
            android_cert_sha1: Some(
                "a1:b2:c3:d4:e5:f6:07:18:29:3a:4b:5c:6d:7e:8f:90:12:34:56:78".into(),
            ),
            ..AppIdentity::default()
        },
        ..Caller::default()
    };
    let unix = chrono::Utc::now().timestamp();
    let t0 = Instant::now();

    // Every iteration is admitted: the clock advances past the 50/s window's spacing.
    let mut step = 0u64;
    c.bench_function("authorize public key + referer + rate limit", |b| {
        b.iter(|| {
            step += 1;
            let now = t0 + Duration::from_millis(step * 21);
            black_box(auth.authorize_at(black_box(&web), Endpoint::Timezone, unix, now)).unwrap()
        })
    });
    let mut step = 0u64;
    c.bench_function("authorize android private key + rate limit", |b| {
        b.iter(|| {
            step += 1;
            let now = t0 + Duration::from_millis(step * 21);
            black_box(auth.authorize_at(black_box(&app), Endpoint::Timezone, unix, now)).unwrap()
        })
    });
    c.bench_function("verify key uncached (ed25519)", |b| {
        let trusted = [publisher.verifying()];
        b.iter(|| {
            black_box(waymark_core::auth::keys::verify(
                black_box(&public),
                &trusted,
            ))
            .unwrap()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
