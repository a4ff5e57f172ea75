//! Native SDK authorization (`Authorizer::authorize_native`): private keys only, app restrictions
//! checked against the identity the platform reported, in every fingerprint format.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use waymark_core::auth::AppIdentity;
use waymark_core::auth::keys::{
    AndroidApp, KeyClaims, KeyScope, PrivateRestriction, PublicRestrictions, Publisher,
};
use waymark_core::endpoint::Endpoint;
use waymark_core::error::{ErrorCode, WaymarkError};
use waymark_core::{Engine, EngineConfig};

const SHA1: &str = "5E8F16062EA3CD2C4A0D547876BAA6F38CABF625";

fn engine() -> (Engine, Publisher, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let publisher = Publisher::generate().unwrap();
    let engine = Engine::open(EngineConfig::new(dir.path(), vec![publisher.verifying()])).unwrap();
    (engine, publisher, dir)
}

fn private(p: &Publisher, restriction: PrivateRestriction) -> String {
    p.issue(&KeyClaims::new(KeyScope::Private {
        write: false,
        restriction,
    }))
    .unwrap()
}

fn android(package: Option<&str>, sha1: Option<&str>) -> AppIdentity {
    AppIdentity {
        android_package: package.map(Into::into),
        android_cert_sha1: sha1.map(Into::into),
        ..AppIdentity::default()
    }
}

fn ios(bundle: Option<&str>) -> AppIdentity {
    AppIdentity {
        ios_bundle_id: bundle.map(Into::into),
        ..AppIdentity::default()
    }
}

fn code(e: &Engine, key: &str, app: &AppIdentity) -> Option<ErrorCode> {
    e.authorizer()
        .authorize_native(key, app, Endpoint::Timezone)
        .err()
        .map(|e| e.code)
}

#[test]
fn android_key_matches_its_app_in_every_fingerprint_format() {
    let (e, p, _dir) = engine();
    let key = private(
        &p,
        PrivateRestriction::Android {
            apps: vec![AndroidApp {
                package: "com.example.app".into(),
                sha1: SHA1.into(),
            }],
        },
    );
    let colons: String = SHA1
        .as_bytes()
        .chunks(2)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(":");
    for fp in [
        SHA1.to_string(),
        SHA1.to_lowercase(),
        colons.clone(),
        colons.to_lowercase(),
    ] {
        assert_eq!(
            code(&e, &key, &android(Some("com.example.app"), Some(&fp))),
            None,
            "{fp}"
        );
    }
    let other_fp = format!("AA{}", &SHA1[2..]);
    for app in [
        android(Some("com.other.app"), Some(SHA1)),
        android(Some("com.example.app"), Some(&other_fp)),
        android(Some("com.example.app"), Some("zz")),
        android(Some("com.example.app"), None),
        android(None, Some(SHA1)),
        ios(Some("com.example.app")),
        AppIdentity::default(),
    ] {
        assert_eq!(code(&e, &key, &app), Some(ErrorCode::Forbidden), "{app:?}");
    }
}

#[test]
fn ios_key_matches_its_bundle_only() {
    let (e, p, _dir) = engine();
    let key = private(
        &p,
        PrivateRestriction::Ios {
            bundle_ids: vec!["com.example.app".into()],
        },
    );
    assert_eq!(code(&e, &key, &ios(Some("com.example.app"))), None);
    for app in [
        ios(Some("com.example.other")),
        ios(None),
        android(Some("com.example.app"), Some(SHA1)),
    ] {
        assert_eq!(code(&e, &key, &app), Some(ErrorCode::Forbidden), "{app:?}");
    }
}

#[test]
fn unrestricted_private_keys_work_public_and_ip_restricted_keys_do_not() {
    let (e, p, _dir) = engine();
    let open = private(&p, PrivateRestriction::None);
    assert_eq!(code(&e, &open, &AppIdentity::default()), None);
    assert_eq!(code(&e, &open, &ios(Some("any.app"))), None);

    let public = p
        .issue(&KeyClaims::new(KeyScope::Public(PublicRestrictions {
            domains: vec!["example.com".into()],
            ips: vec![],
        })))
        .unwrap();
    let err = e
        .authorizer()
        .authorize_native(&public, &AppIdentity::default(), Endpoint::Timezone)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Unauthenticated);
    assert!(err.message.contains("public key"), "{}", err.message);

    let ip = private(
        &p,
        PrivateRestriction::Ip {
            ips: vec!["10.0.0.0/8".parse().unwrap()],
        },
    );
    assert_eq!(
        code(&e, &ip, &AppIdentity::default()),
        Some(ErrorCode::Forbidden)
    );

    let foreign = private(&Publisher::generate().unwrap(), PrivateRestriction::None);
    assert_eq!(
        code(&e, &foreign, &AppIdentity::default()),
        Some(ErrorCode::Unauthenticated)
    );
}

#[test]
fn the_native_key_is_taken_by_every_endpoint_and_still_needs_write_permission() {
    // On HTTP some operations take a key only in `private_key` (zones update) or in the query
    // (stores bounds); natively there is one key and no slot to choose.
    let (e, p, _dir) = engine();
    let read_only = private(&p, PrivateRestriction::None);
    let write = p
        .issue(&KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        }))
        .unwrap();
    for &endpoint in Endpoint::ALL {
        let grant = e
            .authorizer()
            .authorize_native(&write, &AppIdentity::default(), endpoint);
        assert!(grant.is_ok(), "{endpoint:?}: {:?}", grant.err());
    }
    for endpoint in [Endpoint::ZonesUpdate, Endpoint::PackInstall] {
        let err = e
            .authorizer()
            .authorize_native(&read_only, &AppIdentity::default(), endpoint)
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Forbidden, "{endpoint:?}");
        assert!(err.message.contains("write permission"), "{}", err.message);
    }
    assert!(
        e.authorizer()
            .authorize_native(&read_only, &AppIdentity::default(), Endpoint::StoresBounds)
            .is_ok()
    );
}

#[test]
fn every_error_code_has_its_native_variant() {
    use waymark_core::ApiError;
    for code in [
        ErrorCode::BadRequest,
        ErrorCode::Unauthenticated,
        ErrorCode::QuotaExhausted,
        ErrorCode::Forbidden,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::PayloadTooLarge,
        ErrorCode::Validation,
        ErrorCode::RateLimited,
        ErrorCode::Internal,
        ErrorCode::NotAvailable,
        ErrorCode::DataUnavailable,
    ] {
        let native = WaymarkError::from(ApiError::new(code, "what to fix"));
        assert_eq!(native.code(), code);
        assert!(native.to_string().ends_with("what to fix"), "{native}");
    }
    let mut limited = ApiError::new(ErrorCode::RateLimited, "slow down");
    limited.retry_after = Some(std::time::Duration::from_millis(250));
    assert!(matches!(
        WaymarkError::from(limited),
        WaymarkError::RateLimited {
            retry_after_ms: 250,
            ..
        }
    ));
}
