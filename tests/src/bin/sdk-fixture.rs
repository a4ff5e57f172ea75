//! `sdk-fixture --out DIR`: prepares what the Kotlin library's JUnit suite and its benchmark
//! run against: the Andorra sample pack built from the pinned sources (with the sample venue
//! file in its indoor layer), signed by a new
//! publisher and installed into `DIR/packs` (the built pack stays in `DIR/built` for install tests), and `DIR/fixture.json` with the publisher's public
//! key and keys of every kind (unrestricted private, private with write permission, public,
//! Android- and iOS-restricted, IP-restricted) plus the app identities the restricted keys
//! allow. The same pack is what `tests/tests/parity.rs` builds, so the golden answers in
//! `tests/golden/parity` hold for both.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use waymark_core::auth::keys::{
    AndroidApp, KeyClaims, KeyScope, PrivateRestriction, PublicRestrictions,
};

fn main() {
    let mut args = std::env::args().skip(1);
    let out = match (args.next().as_deref(), args.next()) {
        (Some("--out"), Some(dir)) => PathBuf::from(dir),
        _ => {
            eprintln!("usage: sdk-fixture --out DIR");
            std::process::exit(2);
        }
    };
    if out.join("fixture.json").exists() {
        println!("{} is ready", out.display());
        return;
    }
    let started = std::time::Instant::now();
    let tmp = out.join("built");
    let (engine, publisher) =
        waymark_tests::parity_engine_in(&tmp, &out.join("packs"), &out.join("state-fixture"));
    let known_ip = first_andorran_ip(&engine);
    drop(engine);
    let issue = |scope: KeyScope| publisher.issue(&KeyClaims::new(scope)).unwrap();
    let private = |restriction: PrivateRestriction| {
        issue(KeyScope::Private {
            write: false,
            restriction,
        })
    };
    let fixture = serde_json::json!({
        "known_ip": known_ip,
        "publisher": publisher.verifying().encode(),
        "packs_dir": out.join("packs"),
        "keys": {
            "private": private(PrivateRestriction::None),
            "private_write": issue(KeyScope::Private { write: true, restriction: PrivateRestriction::None }),
            "public": issue(KeyScope::Public(PublicRestrictions {
                domains: vec!["example.com".into()],
                ips: vec![],
            })),
            "android": private(PrivateRestriction::Android { apps: vec![AndroidApp {
                package: waymark_tests::SDK_ANDROID_PACKAGE.into(),
                sha1: waymark_tests::SDK_ANDROID_SHA1.replace(':', ""),
            }] }),
            "ios": private(PrivateRestriction::Ios {
                bundle_ids: vec![waymark_tests::SDK_IOS_BUNDLE.into()],
            }),
            "ip": private(PrivateRestriction::Ip { ips: vec!["10.0.0.0/8".parse().unwrap()] }),
        },
        "android_package": waymark_tests::SDK_ANDROID_PACKAGE,
        "android_sha1": waymark_tests::SDK_ANDROID_SHA1,
        "ios_bundle": waymark_tests::SDK_IOS_BUNDLE,
    });
    std::fs::write(
        out.join("fixture.json"),
        serde_json::to_string_pretty(&fixture).unwrap(),
    )
    .unwrap();
    println!(
        "{} is ready ({:.1} s)",
        out.display(),
        started.elapsed().as_secs_f64()
    );
}

/// An address of the first network the world IP pack places in Andorra (so that the
/// position tests ask for an address the packs know).
fn first_andorran_ip(engine: &waymark_core::Engine) -> Option<String> {
    let set = engine.packs().snapshot();
    let pack = set.get(waymark_packs::build::WORLD_IP_PACK)?;
    waymark_tests::first_ipv4_in_country(&pack.dir, "AD").map(|a| a.to_string())
}
