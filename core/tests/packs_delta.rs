//! Installing a new pack version from a delta of the installed one: byte-identical
//! to a full install, a corrupted patch or a delta of another base falls back to the full
//! files, and a killed install never leaves a half-written pack visible.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use support::fixture::*;
use support::*;
use waymark_core::auth::keys::PublisherKey;
use waymark_core::packs::delta::{DELTA_FILE, DeltaManifest, build_delta, delta_dir_rel};
use waymark_core::packs::install::{InstallError, PARTIAL_DIR, STAGING_DIR};
use waymark_core::packs::{PackRegistry, PackStore};

const GRAPH: usize = 3 * MB;
const NAMES: usize = MB;

/// v1: a database saying "v1", a graph and a names file.
fn v1_files(src: &Path) -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("data.sqlite", sqlite_bytes(src, "v1")),
        ("routing/car-time.fp", random_bytes(11, GRAPH)),
        ("search/names.bin", random_bytes(12, NAMES)),
        ("search/seg-aaaa.idx", random_bytes(13, NAMES / 2)),
    ]
}

/// v2: the database says "v2", a few bytes of the graph changed and it grew, the names are
/// unchanged, the index segment got a new name and a few changes, and a new file appeared.
fn v2_files(src: &Path) -> Vec<(&'static str, Vec<u8>)> {
    let mut graph = random_bytes(11, GRAPH);
    for i in (0..graph.len()).step_by(250_000) {
        graph[i] ^= 0xa5;
    }
    graph.extend_from_slice(&random_bytes(14, 20_000));
    let mut seg = random_bytes(13, NAMES / 2);
    seg[1000..1100].copy_from_slice(&random_bytes(15, 100));
    vec![
        ("data.sqlite", sqlite_bytes(src, "v2")),
        ("routing/car-time.fp", graph),
        ("search/names.bin", random_bytes(12, NAMES)),
        ("search/seg-bbbb.idx", seg),
        ("extra/new.bin", random_bytes(16, 30_000)),
    ]
}

struct Delta {
    fx: Fixture,
    v1_dir: PathBuf,
    v2_dir: PathBuf,
}

/// Builds v1 and v2 and the delta v1 → v2 inside v2's directory; installs v1.
fn delta_fixture() -> Delta {
    let fx = fixture();
    let v1_dir = build_pack(&fx.src, ID, V1, &v1_files(&fx.src), &fx.publisher);
    let v2_dir = build_pack(&fx.src, ID, V2, &v2_files(&fx.src), &fx.publisher);
    let summary = build_delta(
        &v1_dir,
        &v2_dir,
        &v2_dir.join(delta_dir_rel(V1)),
        &fx.publisher,
    )
    .unwrap();
    println!(
        "delta: {} of {} bytes; {:?}",
        summary.delta_size, summary.full_size, summary.files
    );
    let ops: Vec<&str> = summary.files.iter().map(|f| f.1.as_str()).collect();
    assert_eq!(ops, ["patch", "patch", "copy", "patch", "full"]);
    assert!(summary.delta_size * 10 < summary.full_size, "{summary:?}");
    fx.store()
        .install(&file_url(&v1_dir), &fx.trusted, &mut no_progress())
        .unwrap();
    Delta { fx, v1_dir, v2_dir }
}

/// Relative path → bytes of every file under `dir`.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.push((rel, fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// v2 as a full install from the source gives it (without the deltas directory).
fn full_install_tree(d: &Delta) -> Vec<(String, Vec<u8>)> {
    let other = d.fx.root.parent().unwrap().join("full-install");
    let store = PackStore::open(&other).unwrap();
    store
        .install(&file_url(&d.v2_dir), &d.fx.trusted, &mut no_progress())
        .unwrap();
    tree(&store.pack_dir(ID, V2))
}

fn patch_path(d: &Delta, file: &str) -> PathBuf {
    d.v2_dir.join(delta_dir_rel(V1)).join(format!("{file}.zst"))
}

fn assert_v2_complete(d: &Delta, store: &PackStore) {
    store.verify_installed(ID, V2, &d.fx.trusted).unwrap();
    assert_eq!(tree(&store.pack_dir(ID, V2)), full_install_tree(d));
    assert!(!store.partial_dir(ID, V2).exists(), "partial dir left");
    assert!(entries(&d.fx.root.join(STAGING_DIR)).is_empty());
    let registry = PackRegistry::load_all(store, &d.fx.trusted).unwrap();
    let set = registry.snapshot();
    assert_eq!(set.get(ID).unwrap().version(), V2);
    assert_eq!(label(set.get(ID).unwrap()), "v2");
}

#[test]
fn a_delta_install_gives_the_files_of_a_full_install_and_downloads_a_tenth() {
    let d = delta_fixture();
    let server = TestServer::start(&d.fx.src);
    let url = server.url(&format!("{ID}-{V2}"));
    let store = d.fx.store();
    let mut reports = Vec::new();
    store
        .install(&url, &d.fx.trusted, &mut |p| reports.push(p))
        .unwrap();
    let served = server.data_bytes_served();
    let full: u64 = v2_files(&d.fx.src).iter().map(|f| f.1.len() as u64).sum();
    println!("delta install downloaded {served} bytes for a {full} byte pack");
    assert!(served * 10 < full, "{served} of {full}");
    assert_v2_complete(&d, &store);
    // The base is untouched and still verifies (copies are links or copies, never moves).
    store.verify_installed(ID, V1, &d.fx.trusted).unwrap();
    let last = reports.last().unwrap();
    assert_eq!(last.bytes_done, last.bytes_total);
    assert_eq!(last.bytes_total, full);
}

#[test]
fn a_corrupted_patch_falls_back_to_the_full_file() {
    let d = delta_fixture();
    let patch = patch_path(&d, "routing/car-time.fp");
    let mut bytes = fs::read(&patch).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    fs::write(&patch, &bytes).unwrap();
    let server = TestServer::start(&d.fx.src);
    let store = d.fx.store();
    store
        .install(
            &server.url(&format!("{ID}-{V2}")),
            &d.fx.trusted,
            &mut no_progress(),
        )
        .unwrap();
    let served = server.data_bytes_served();
    println!("with a corrupted patch: {served} bytes downloaded");
    assert!(
        served > GRAPH as u64,
        "the graph was not downloaded in full"
    );
    assert!(
        served < 2 * GRAPH as u64,
        "more than the graph was downloaded in full"
    );
    assert_v2_complete(&d, &store);
}

#[test]
fn a_patch_that_does_not_rebuild_the_file_falls_back_and_without_a_full_file_fails_clearly() {
    let d = delta_fixture();
    // A patch that the delta manifest vouches for but that gives other bytes: the delta is
    // re-signed with the wrong patch's hash (a publisher's mistake, not a transfer error).
    let patch = patch_path(&d, "routing/car-time.fp");
    let wrong =
        waymark_core::packs::delta::make_patch(b"another base", &random_bytes(3, 1000)).unwrap();
    fs::write(&patch, &wrong).unwrap();
    let delta_json = d.v2_dir.join(delta_dir_rel(V1)).join(DELTA_FILE);
    let mut delta: DeltaManifest = serde_json::from_slice(&fs::read(&delta_json).unwrap()).unwrap();
    for f in &mut delta.files {
        if f.path == "routing/car-time.fp" {
            f.patch_sha256 = Some(sha256_hex(&wrong));
            f.patch_size = Some(wrong.len() as u64);
        }
    }
    delta.sign(&d.fx.publisher).unwrap();
    fs::write(&delta_json, serde_json::to_vec(&delta).unwrap()).unwrap();
    // Without the full file at the source: a clear error, v1 untouched, nothing of v2 visible.
    let full = d.v2_dir.join("routing/car-time.fp");
    let kept = d.fx.src.join("car-time.fp.kept");
    fs::rename(&full, &kept).unwrap();
    let store = d.fx.store();
    let err = store
        .install(&file_url(&d.v2_dir), &d.fx.trusted, &mut no_progress())
        .unwrap_err();
    println!("no full file: {err}");
    assert!(
        matches!(&err, InstallError::MissingFile { file, .. } if file == "routing/car-time.fp"),
        "{err:?}"
    );
    d.fx.assert_v1_untouched(&store);
    // With it back, the retry completes from what was kept.
    fs::rename(&kept, &full).unwrap();
    store
        .install(&file_url(&d.v2_dir), &d.fx.trusted, &mut no_progress())
        .unwrap();
    assert_v2_complete(&d, &store);
}

#[test]
fn a_delta_of_another_base_is_not_used() {
    let d = delta_fixture();
    // The source's delta was made from another build of the same version number.
    let other_parent = d.fx.src.join("other");
    fs::create_dir_all(&other_parent).unwrap();
    let mut other = v1_files(&d.fx.src);
    other[2].1[0] ^= 1;
    let other_v1 = build_pack(&other_parent, ID, V1, &other, &d.fx.publisher);
    let delta_dir = d.v2_dir.join(delta_dir_rel(V1));
    fs::remove_dir_all(&delta_dir).unwrap();
    build_delta(&other_v1, &d.v2_dir, &delta_dir, &d.fx.publisher).unwrap();
    let server = TestServer::start(&d.fx.src);
    let store = d.fx.store();
    store
        .install(
            &server.url(&format!("{ID}-{V2}")),
            &d.fx.trusted,
            &mut no_progress(),
        )
        .unwrap();
    let full: u64 = v2_files(&d.fx.src).iter().map(|f| f.1.len() as u64).sum();
    let served = server.data_bytes_served();
    println!("delta of another base: {served} bytes downloaded of {full}");
    assert!(served >= full, "the delta of another base was used");
    assert_v2_complete(&d, &store);
    let _ = &d.v1_dir;
}

#[test]
fn an_untrusted_delta_is_not_used() {
    let d = delta_fixture();
    let delta_dir = d.v2_dir.join(delta_dir_rel(V1));
    let stranger = waymark_core::auth::keys::Publisher::generate().unwrap();
    build_delta(&d.v1_dir, &d.v2_dir, &delta_dir, &stranger).unwrap();
    let server = TestServer::start(&d.fx.src);
    let store = d.fx.store();
    store
        .install(
            &server.url(&format!("{ID}-{V2}")),
            &d.fx.trusted,
            &mut no_progress(),
        )
        .unwrap();
    let full: u64 = v2_files(&d.fx.src).iter().map(|f| f.1.len() as u64).sum();
    assert!(server.data_bytes_served() >= full);
    assert_v2_complete(&d, &store);
}

#[test]
fn leftovers_of_a_crash_at_each_step_are_redone_or_reused() {
    let d = delta_fixture();
    let store = d.fx.store();
    let url = file_url(&d.v2_dir);
    let partial = store.partial_dir(ID, V2);
    // Crash points: (1) after the manifest was stored, (2) mid patch download, (3) mid
    // apply, (4) after some files were verified, (5) mid commit (a staging directory).
    fs::create_dir_all(partial.join("done/search")).unwrap();
    fs::write(
        partial.join("manifest.json"),
        fs::read(d.v2_dir.join("manifest.json")).unwrap(),
    )
    .unwrap();
    let rel = delta_dir_rel(V1);
    let part = partial.join(format!("delta/parts/{rel}/routing/car-time.fp.zst.part"));
    fs::create_dir_all(part.parent().unwrap()).unwrap();
    let patch = fs::read(patch_path(&d, "routing/car-time.fp")).unwrap();
    fs::write(&part, &patch[..patch.len() / 2]).unwrap();
    let out = partial.join("delta/out/data.sqlite");
    fs::create_dir_all(out.parent().unwrap()).unwrap();
    fs::write(&out, b"half a database").unwrap();
    fs::write(
        partial.join("done/search/names.bin"),
        random_bytes(12, NAMES),
    )
    .unwrap();
    // A damaged "verified" file is found and redone.
    fs::create_dir_all(partial.join("done/extra")).unwrap();
    fs::write(partial.join("done/extra/new.bin"), b"x").unwrap();
    fs::create_dir_all(d.fx.root.join(STAGING_DIR).join("0123456789abcdef")).unwrap();
    assert!(!store.pack_dir(ID, V2).exists());
    // Restart: open cleans staging, keeps the partial download; the install completes.
    let store = d.fx.store();
    assert!(entries(&d.fx.root.join(STAGING_DIR)).is_empty());
    assert!(partial.join("done/search/names.bin").exists());
    store
        .install(&url, &d.fx.trusted, &mut no_progress())
        .unwrap();
    assert_v2_complete(&d, &store);
}

/// Run as a child process by `a_killed_delta_install_leaves_nothing_half_installed`: installs
/// and never returns. Does nothing in a normal test run.
#[test]
fn child_delta_install_forever() {
    let (Ok(root), Ok(source), Ok(key)) = (
        std::env::var("WAYMARK_TEST_DELTA_ROOT"),
        std::env::var("WAYMARK_TEST_DELTA_SOURCE"),
        std::env::var("WAYMARK_TEST_DELTA_KEY"),
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
fn a_killed_delta_install_leaves_nothing_half_installed() {
    let d = delta_fixture();
    let server = TestServer::start(&d.fx.src);
    // The patches and the new file are ~50 KB: at 25 KB/s the download takes about two
    // seconds, and applying follows; kills land before, during and after.
    server.throttle(25_000);
    let url = server.url(&format!("{ID}-{V2}"));
    let exe = std::env::current_exe().unwrap();
    let mut rng = Rng(0x000d_e17a_5eed);
    for round in 0..5 {
        let delay = Duration::from_millis(rng.range(50, 2600));
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "child_delta_install_forever",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("WAYMARK_TEST_DELTA_ROOT", &d.fx.root)
            .env("WAYMARK_TEST_DELTA_SOURCE", &url)
            .env(
                "WAYMARK_TEST_DELTA_KEY",
                d.fx.publisher.verifying().encode(),
            )
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        child.kill().unwrap();
        child.wait().unwrap();

        let store = d.fx.store();
        assert!(
            entries(&d.fx.root.join(STAGING_DIR)).is_empty(),
            "round {round}: staging not cleaned"
        );
        let versions = store.installed_versions(ID).unwrap();
        let kept = dir_bytes(&store.partial_dir(ID, V2));
        let installed = versions.contains(&V2.to_string());
        println!(
            "round {round}: killed after {delay:?}; v2 installed: {installed}; partial bytes kept: {kept}"
        );
        if installed {
            store.verify_installed(ID, V2, &d.fx.trusted).unwrap();
            store.remove(ID, V2).unwrap();
        } else {
            assert!(!store.pack_dir(ID, V2).exists(), "round {round}");
        }
        store.verify_installed(ID, V1, &d.fx.trusted).unwrap();
        let registry = PackRegistry::load_all(&store, &d.fx.trusted).unwrap();
        let set = registry.snapshot();
        let loaded = set.get(ID).unwrap();
        assert_eq!(
            label(loaded),
            if loaded.version() == V1 { "v1" } else { "v2" }
        );
    }
    server.throttle(0);
    let store = d.fx.store();
    store
        .install(&url, &d.fx.trusted, &mut no_progress())
        .unwrap();
    assert_v2_complete(&d, &store);
    assert!(
        !d.fx
            .root
            .join(PARTIAL_DIR)
            .join(format!("{ID}-{V2}"))
            .exists()
    );
}
