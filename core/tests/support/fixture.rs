//! The fixture of the pack-manager tests: a temporary source directory (served over HTTP) and
//! packs directory, a publisher, and the v1 / v2 packs of pack `andorra`.
use std::fs;
use std::path::PathBuf;

use waymark_core::auth::keys::{Publisher, PublisherKey};
use waymark_core::packs::install::{InstallProgress, STAGING_DIR};
use waymark_core::packs::{LoadedPack, PackRegistry, PackStore};

use super::{build_pack, entries, file_url, random_bytes, sqlite_bytes};

pub const ID: &str = "andorra";
pub const V1: &str = "2026.11.01";
pub const V2: &str = "2026.11.22";
pub const MB: usize = 1 << 20;

/// Temporary directories and a publisher.
pub struct Fixture {
    pub _tmp: tempfile::TempDir,
    /// Where source packs are built (served over HTTP from here).
    pub src: PathBuf,
    /// The packs directory.
    pub root: PathBuf,
    pub publisher: Publisher,
    pub trusted: Vec<PublisherKey>,
}

/// A fresh fixture.
pub fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src");
    let root = tmp.path().join("packs");
    fs::create_dir_all(&src).unwrap();
    let publisher = Publisher::generate().unwrap();
    let trusted = vec![publisher.verifying()];
    Fixture {
        _tmp: tmp,
        src,
        root,
        publisher,
        trusted,
    }
}

impl Fixture {
    pub fn store(&self) -> PackStore {
        PackStore::open(&self.root).unwrap()
    }

    /// A small v1 pack with a SQLite database saying "v1", installed from file://.
    pub fn install_v1(&self, store: &PackStore) {
        let files = vec![
            ("data.sqlite", sqlite_bytes(&self.src, "v1")),
            ("search/names.bin", random_bytes(1, 50_000)),
        ];
        let dir = build_pack(&self.src, ID, V1, &files, &self.publisher);
        store
            .install(&file_url(&dir), &self.trusted, &mut |_| {})
            .unwrap();
    }

    /// A v2 pack of a few MB (three files) with a SQLite database saying "v2".
    pub fn v2_files(&self) -> Vec<(&'static str, Vec<u8>)> {
        vec![
            ("data.sqlite", sqlite_bytes(&self.src, "v2")),
            ("search/names.bin", random_bytes(2, 3 * MB / 2)),
            ("graphs/car-time.fp", random_bytes(3, 2 * MB)),
        ]
    }

    pub fn build_v2(&self) -> PathBuf {
        build_pack(&self.src, ID, V2, &self.v2_files(), &self.publisher)
    }

    /// Nothing of V2 is visible, staging is empty, and V1 is listed, verifies and loads.
    pub fn assert_v1_untouched(&self, store: &PackStore) {
        assert!(
            !store.pack_dir(ID, V2).exists(),
            "a half-installed pack is visible"
        );
        assert!(
            entries(&self.root.join(STAGING_DIR)).is_empty(),
            "staging left behind"
        );
        assert_eq!(store.installed_versions(ID).unwrap(), vec![V1.to_string()]);
        store.verify_installed(ID, V1, &self.trusted).unwrap();
        let registry = PackRegistry::load_all(store, &self.trusted).unwrap();
        let set = registry.snapshot();
        let pack = set.get(ID).expect("v1 loaded");
        assert_eq!(pack.version(), V1);
        assert_eq!(label(pack), "v1");
    }
}

/// The label the pack's SQLite database holds (`v1` or `v2`).
pub fn label(pack: &LoadedPack) -> String {
    pack.sqlite()
        .unwrap()
        .query_row("SELECT label FROM info", [], |r| r.get(0))
        .unwrap()
}

/// A progress callback that ignores the reports.
pub fn no_progress() -> impl FnMut(InstallProgress) {
    |_| {}
}
