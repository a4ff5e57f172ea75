//! The pack manager refuses every kind of bad pack (truncated, flipped byte, tampered
//! manifest, untrusted publisher, missing file, unsupported format, path escaping the pack),
//! over http and file://, and leaves the installed version untouched.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::fs;
use std::path::Path;

use serde_json::{Value, json};
use support::fixture::*;
use support::*;
use waymark_core::auth::keys::Publisher;
use waymark_core::error::{ApiError, ErrorCode};
use waymark_core::packs::install::InstallError;
use waymark_core::packs::manifest::ManifestError;

/// Builds a faulty v2 (via `edit_files` after signing, or `edit_manifest` before), installs it
/// over http and file://, and checks the error and that v1 is untouched.
fn fault_case(
    name: &str,
    edit_manifest: impl Fn(&mut waymark_core::packs::Manifest),
    edit_files: impl Fn(&Path),
    check: impl Fn(&InstallError) -> bool,
    message_contains: &str,
) {
    let fx = fixture();
    let store = fx.store();
    fx.install_v1(&store);
    let dir = build_pack_with(&fx.src, ID, V2, &fx.v2_files(), &fx.publisher, |m| {
        edit_manifest(m)
    });
    edit_files(&dir);
    let server = TestServer::start(&fx.src);
    for source in [server.url(&format!("{ID}-{V2}")), file_url(&dir)] {
        let err = store
            .install(&source, &fx.trusted, &mut no_progress())
            .unwrap_err();
        assert!(check(&err), "{name} via {source}: unexpected error {err:?}");
        let msg = err.to_string();
        assert!(
            msg.contains(message_contains),
            "{name} via {source}: `{msg}` does not mention `{message_contains}`"
        );
        let api = ApiError::from(err);
        assert_eq!(api.code, ErrorCode::BadRequest, "{name}");
        fx.assert_v1_untouched(&store);
    }
}

#[test]
fn a_truncated_file_is_refused() {
    fault_case(
        "truncated",
        |_| {},
        |dir| {
            let p = dir.join("graphs/car-time.fp");
            let bytes = fs::read(&p).unwrap();
            fs::write(&p, &bytes[..bytes.len() - 1000]).unwrap();
        },
        |e| matches!(e, InstallError::SizeMismatch { file, .. } if file == "graphs/car-time.fp"),
        "graphs/car-time.fp",
    );
}

#[test]
fn a_flipped_byte_is_refused_and_the_damaged_part_discarded() {
    fault_case(
        "flipped byte",
        |_| {},
        |dir| {
            let p = dir.join("search/names.bin");
            let mut bytes = fs::read(&p).unwrap();
            bytes[12345] ^= 0x80;
            fs::write(&p, &bytes).unwrap();
        },
        |e| matches!(e, InstallError::ShaMismatch { file, .. } if file == "search/names.bin"),
        "search/names.bin",
    );
    // The damaged file does not linger: check with a store whose partial dir we can inspect.
    let fx = fixture();
    let store = fx.store();
    let dir = fx.build_v2();
    let p = dir.join("search/names.bin");
    let mut bytes = fs::read(&p).unwrap();
    bytes[7] ^= 0x01;
    fs::write(&p, &bytes).unwrap();
    assert!(
        store
            .install(&file_url(&dir), &fx.trusted, &mut no_progress())
            .is_err()
    );
    let partial = store.partial_dir(ID, V2);
    assert!(!partial.join("parts/search/names.bin.part").exists());
    assert!(!partial.join("done/search/names.bin").exists());
    assert!(
        partial.join("done/data.sqlite").exists(),
        "good files are kept"
    );
}

#[test]
fn a_tampered_manifest_is_refused() {
    fault_case(
        "tampered",
        |_| {},
        |dir| {
            let p = dir.join("manifest.json");
            let mut v: Value = serde_json::from_slice(&fs::read(&p).unwrap()).unwrap();
            v["layers"] = json!(["places", "pois"]);
            fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
        },
        |e| {
            matches!(
                e,
                InstallError::Signature {
                    error: ManifestError::BadSignature,
                    ..
                }
            )
        },
        "signature does not verify",
    );
}

#[test]
fn an_untrusted_publisher_is_refused() {
    fault_case(
        "untrusted",
        |_| {},
        |dir| {
            let other = Publisher::generate().unwrap();
            let p = dir.join("manifest.json");
            let mut m: waymark_core::packs::Manifest =
                serde_json::from_slice(&fs::read(&p).unwrap()).unwrap();
            m.sign(&other).unwrap();
            fs::write(&p, serde_json::to_vec(&m).unwrap()).unwrap();
        },
        |e| {
            matches!(
                e,
                InstallError::Signature {
                    error: ManifestError::UnknownPublisher(_),
                    ..
                }
            )
        },
        "does not trust",
    );
}

#[test]
fn a_missing_file_is_refused() {
    fault_case(
        "missing",
        |_| {},
        |dir| fs::remove_file(dir.join("graphs/car-time.fp")).unwrap(),
        |e| matches!(e, InstallError::MissingFile { file, .. } if file == "graphs/car-time.fp"),
        "has no file `graphs/car-time.fp`",
    );
}

#[test]
fn an_unsupported_format_is_refused() {
    fault_case(
        "format",
        |m| m.format_version = 1,
        |_| {},
        |e| {
            matches!(
                e,
                InstallError::UnsupportedFormat {
                    found: 1,
                    supported: waymark_core::packs::FORMAT_VERSION,
                    ..
                }
            )
        },
        "format version 1 is not supported",
    );
}

#[test]
fn a_path_escaping_the_pack_is_refused() {
    fault_case(
        "escaping path",
        |m| m.files[1].path = "../x".into(),
        |_| {},
        |e| matches!(e, InstallError::InvalidManifest { .. }),
        "`../x`",
    );
    fault_case(
        "escaping id",
        |m| m.id = "../evil".into(),
        |_| {},
        |e| matches!(e, InstallError::InvalidManifest { .. }),
        "pack id `../evil`",
    );
}
