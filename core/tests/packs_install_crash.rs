//! The pack manager when the disk fills up or the process is killed mid-install: no
//! `<root>/<id>/<version>` appears half-written and the installed version stays listed and
//! loadable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use support::fixture::*;
use support::*;
use waymark_core::auth::keys::PublisherKey;
use waymark_core::error::{ApiError, ErrorCode};
use waymark_core::packs::install::{InstallError, PARTIAL_DIR, STAGING_DIR};
use waymark_core::packs::{PackRegistry, PackStore};

/// Unmounts on drop.
struct Mount(PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_fails_with_an_io_error_and_keeps_the_previous_version() {
    let fx = fixture();
    let mnt = fx.root.parent().unwrap().join("small");
    fs::create_dir_all(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(&mnt)
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    let _guard = mounted.then(|| Mount(mnt.clone()));
    let fx = Fixture {
        root: if mounted {
            mnt.join("packs")
        } else {
            fx.root.clone()
        },
        ..fx
    };
    let store = fx.store();
    fx.install_v1(&store);
    let dir = fx.build_v2();
    let expect_under = if mounted {
        fx.root.clone()
    } else {
        println!("note: cannot mount a tmpfs here; simulating an unwritable .partial directory");
        let partial = fx.root.join(PARTIAL_DIR);
        fs::remove_dir_all(&partial).unwrap();
        fs::write(&partial, b"not a directory").unwrap();
        partial
    };
    let err = store
        .install(&file_url(&dir), &fx.trusted, &mut no_progress())
        .unwrap_err();
    println!("full disk (tmpfs: {mounted}): {err}");
    match &err {
        InstallError::Io { path, source } => {
            assert!(path.starts_with(&expect_under), "{err}");
            if mounted {
                assert_eq!(source.kind(), std::io::ErrorKind::StorageFull, "{err}");
                let api = ApiError::from(err);
                assert_eq!(api.code, ErrorCode::DataUnavailable);
                assert!(api.message.contains("free"), "{}", api.message);
            }
        }
        other => panic!("expected an i/o error, got {other:?}"),
    }
    fx.assert_v1_untouched(&store);
}

/// Run as a child process by `a_killed_install_leaves_nothing_half_installed`: installs and
/// never returns. Does nothing in a normal test run.
#[test]
fn child_install_forever() {
    let (Ok(root), Ok(source), Ok(key)) = (
        std::env::var("WAYMARK_TEST_CHILD_ROOT"),
        std::env::var("WAYMARK_TEST_CHILD_SOURCE"),
        std::env::var("WAYMARK_TEST_CHILD_KEY"),
    ) else {
        return;
    };
    let store = PackStore::open(&root).unwrap();
    let trusted = [PublisherKey::parse(&key).unwrap()];
    let _ = store.install(&source, &trusted, &mut no_progress());
    loop {
        std::thread::sleep(Duration::from_secs(60));
    }
}

#[test]
fn a_killed_install_leaves_nothing_half_installed() {
    let fx = fixture();
    fx.install_v1(&fx.store());
    fx.build_v2();
    let server = TestServer::start(&fx.src);
    // ~3.6 MB at 2 MB/s: an uninterrupted install takes about 1.8 s.
    server.throttle(2 * MB as u64);
    let url = server.url(&format!("{ID}-{V2}"));
    let exe = std::env::current_exe().unwrap();
    let mut rng = Rng(0x5eed_0fca_11ed);
    let mut completed_in_child = 0;
    for round in 0..5 {
        let delay = Duration::from_millis(rng.range(50, 1500));
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "child_install_forever",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("WAYMARK_TEST_CHILD_ROOT", &fx.root)
            .env("WAYMARK_TEST_CHILD_SOURCE", &url)
            .env("WAYMARK_TEST_CHILD_KEY", fx.publisher.verifying().encode())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        child.kill().unwrap();
        child.wait().unwrap();

        // What a restarted app sees.
        let store = fx.store();
        assert!(
            entries(&fx.root.join(STAGING_DIR)).is_empty(),
            "round {round}: staging not cleaned"
        );
        let versions = store.installed_versions(ID).unwrap();
        let kept = dir_bytes(&store.partial_dir(ID, V2));
        println!(
            "round {round}: killed after {delay:?}; v2 installed: {}; partial bytes kept: {kept}",
            versions.contains(&V2.to_string())
        );
        if versions.contains(&V2.to_string()) {
            // Killed after the commit: then it is whole.
            store.verify_installed(ID, V2, &fx.trusted).unwrap();
            completed_in_child += 1;
            store.remove(ID, V2).unwrap();
        } else {
            assert!(!store.pack_dir(ID, V2).exists(), "round {round}");
        }
        assert!(versions.contains(&V1.to_string()), "round {round}");
        store.verify_installed(ID, V1, &fx.trusted).unwrap();
        let registry = PackRegistry::load_all(&store, &fx.trusted).unwrap();
        let set = registry.snapshot();
        let loaded = set.get(ID).unwrap();
        assert_eq!(
            label(loaded),
            if loaded.version() == V1 { "v1" } else { "v2" }
        );
    }
    println!("{completed_in_child} of 5 child installs completed before the kill");
    // A retry completes.
    server.throttle(0);
    let store = fx.store();
    store
        .install(&url, &fx.trusted, &mut no_progress())
        .unwrap();
    store.verify_installed(ID, V2, &fx.trusted).unwrap();
    assert!(!store.partial_dir(ID, V2).exists());
    let registry = PackRegistry::load_all(&store, &fx.trusted).unwrap();
    assert_eq!(registry.snapshot().get(ID).unwrap().version(), V2);
}
