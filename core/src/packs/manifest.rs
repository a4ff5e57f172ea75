//! `manifest.json` of a data pack (format v1, ADR `docs/adr/0002-pack-format.md`).
//!
//! The manifest names the pack, its layers, its coverage, every file with its SHA-256 and
//! size, and the sources with their licence and attribution. It is signed by a publisher
//! (Ed25519, the same kind of key that signs API keys) over its *canonical form*: the manifest
//! as a JSON value without the `signature` member, serialized compactly with object keys in
//! sorted order. Readers verify the signature, refuse an unsupported `format_version`, and
//! check each file's size and hash before a pack is installed.
//!
//! ```
//! use waymark_core::packs::manifest::{Manifest, FORMAT_VERSION};
//! use waymark_core::auth::keys::Publisher;
//! let publisher = Publisher::generate().unwrap();
//! let mut m = Manifest::new("monaco", "2026.11.22", vec!["roads".into()]);
//! m.sign(&publisher).unwrap();
//! let json = serde_json::to_vec(&m).unwrap();
//! let back = Manifest::parse_verified(&json, &[publisher.verifying()]).unwrap();
//! assert_eq!(back.format_version, FORMAT_VERSION);
//! ```
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signature, Signer as _, Verifier as _};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::auth::keys::{Publisher, PublisherKey};

/// The pack format this build reads and writes: `2` since the compact routing graphs of
/// ADR 0005 (a version 1 pack holds `fast_paths` graphs this build cannot read); `3` since the
/// road, address and POI tables share their repeated attributes (`road_attrs`,
/// `address_parts`, `poi_typesets`)
/// and the road R-tree has one box per way (`road_ways_rtree`); `4` since the search index
/// keeps `lat`, `lng` and `rank` as fast fields only (search schema 2), `data.sqlite` has no
/// `sqlite_stat4` and POI tags are zstd frames with a per-pack dictionary (`poi_tag_dicts`);
/// `5` since addresses and POIs are found through point grids (`addresses_grid`, `pois_grid`,
/// [`super::grid`]) instead of R-trees and the search index keeps no term frequencies and no
/// field norms for the fields only constant-score queries read (search schema 3); `6` since
/// OSM venues' walkable graphs are built when a venue is first read instead of stored
/// ([`crate::indoor::venue_graph`]); `7` since road nodes say whether they are junctions
/// (`road_nodes.junction`: passing a node that is none costs no turn) and packs cut from a
/// larger extract say so (`coverage.region`), so that installed neighbours join into one road
/// network (ADR 0008); `8` since the access columns of `road_attrs` say 2 for a restricted
/// edge (destination-only, private, `no`: only the first or last part of a trip, ADR 0010),
/// which an older reader would take for a through road; `9` since an item of the search index
/// holds one token per parent area in `context` instead of the words of the parent's names
/// (search schema 4: the parent's document lists them, [`super::search::DocData::context_words`]),
/// which an older reader would not match; `10` since a pack cut from a larger extract carries
/// the road density around its nodes measured over the whole extract (`road_node_density`,
/// [`crate::routing::density`]), which sets driving speeds and junction costs (ADR 0011) and
/// which an older reader would measure over the pack's own roads; `11` since a track's
/// `tracktype` grade is stored (`road_track_grades`) and sets its driving speed (ADR 0011),
/// which an older reader would drive at one speed for every track.
pub const FORMAT_VERSION: u32 = 11;

/// One file of the pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackFile {
    /// Path relative to the pack directory, `/`-separated, no `..`.
    pub path: String,
    /// Lower-case hex SHA-256 of the content.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
}

/// An input the pack was built from, with what its licence asks users to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackSource {
    /// Source id in `data-packs/sources.toml`.
    pub id: String,
    /// Licence (SPDX-like identifier).
    pub licence: String,
    /// Attribution text to display.
    pub attribution: String,
    /// Version or date of the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// SHA-256 of the input artifact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Notes, e.g. that a fare table is made up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Pack layers this input fed (from `sources.toml`); answers built from a layer show the
    /// attribution of its sources. Empty in manifests written before it was recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<String>,
}

/// Area a pack covers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Coverage {
    /// `[west, south, east, north]` in degrees.
    pub bbox: [f64; 4],
    /// Outline as a GeoJSON `Polygon` or `MultiPolygon` geometry (`None`: the bbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub polygon: Option<Value>,
    /// The pack is a region cut from a larger extract (`waymark-packs build --bbox` or
    /// `--polygon`): the outline is the cut, roads crossing it are kept whole and split where
    /// they cross, and the pack joins the installed packs of neighbouring regions of the same
    /// publisher into one road network (ADR 0008).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub region: bool,
}

/// The publisher's signature over the canonical manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackSignature {
    /// Publisher id ([`PublisherKey::id`]).
    pub publisher: String,
    /// Base64 Ed25519 signature.
    pub ed25519: String,
}

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Pack format version ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Pack id, e.g. `andorra`, `base`.
    pub id: String,
    /// Pack version; versions of one id compare as strings (`YYYY.MM.DD[-N]`).
    pub version: String,
    /// Build time, RFC 3339.
    pub built_at: String,
    /// Layers present (`roads`, `places`, `addresses`, `pois`, `indoor`, `ip`, `timezones`, ...).
    pub layers: Vec<String>,
    /// Covered area.
    pub coverage: Coverage,
    /// Every file of the pack except `manifest.json`.
    pub files: Vec<PackFile>,
    /// Inputs, with licences and attribution.
    pub sources: Vec<PackSource>,
    /// Counts per layer and table, for `inspect` (free-form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<Value>,
    /// Signature; absent until signed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<PackSignature>,
}

/// Why a manifest was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// Not JSON of the manifest shape.
    #[error("manifest.json does not parse: {0}")]
    Malformed(String),
    /// A format this build cannot read.
    #[error(
        "pack format version {found} is not supported by this build (it reads version {supported}); update the sdk or install a pack built for it"
    )]
    UnsupportedFormat {
        /// Version in the manifest.
        found: u64,
        /// Version this build reads.
        supported: u32,
    },
    /// No signature.
    #[error("the pack is not signed")]
    Unsigned,
    /// Signed by a publisher that is not trusted.
    #[error("the pack is signed by publisher {0}, which this sdk does not trust")]
    UnknownPublisher(String),
    /// The signature does not match the manifest.
    #[error("the pack signature does not verify: the manifest was altered or damaged")]
    BadSignature,
    /// A file entry is unsafe or inconsistent.
    #[error("manifest file entry `{0}` is invalid: {1}")]
    BadFile(String, FileEntryError),
}

/// Why a manifest's file entry is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FileEntryError {
    /// Absolute, empty, or with `\` separators.
    #[error("must be a relative path with `/` separators")]
    NotRelative,
    /// An empty, `.` or `..` segment.
    #[error("must not contain empty, `.` or `..` segments")]
    BadSegment,
    /// The manifest itself.
    #[error("manifest.json cannot list itself")]
    ListsItself,
    /// A hash that is not 64 hex digits.
    #[error("sha256 is not 64 hex digits")]
    BadSha256,
}

impl Manifest {
    /// An unsigned manifest with no files.
    pub fn new(id: &str, version: &str, layers: Vec<String>) -> Self {
        Manifest {
            format_version: FORMAT_VERSION,
            id: id.to_string(),
            version: version.to_string(),
            built_at: chrono::Utc::now().to_rfc3339(),
            layers,
            coverage: Coverage::default(),
            files: Vec::new(),
            sources: Vec::new(),
            stats: None,
            signature: None,
        }
    }

    /// The canonical bytes that are signed: the manifest as JSON without `signature`, keys
    /// sorted, compact.
    pub fn canonical_bytes(value: &Value) -> Vec<u8> {
        let mut v = value.clone();
        if let Value::Object(map) = &mut v {
            map.remove("signature");
        }
        // serde_json's Map is ordered by key (no `preserve_order` feature), so this is canonical.
        serde_json::to_vec(&v).unwrap_or_default()
    }

    /// Signs the manifest with `publisher`.
    pub fn sign(&mut self, publisher: &Publisher) -> Result<(), crate::error::Error> {
        self.signature = None;
        let value = serde_json::to_value(&*self)?;
        let sig = publisher.signing_key().sign(&Self::canonical_bytes(&value));
        self.signature = Some(PackSignature {
            publisher: publisher.id(),
            ed25519: STANDARD.encode(sig.to_bytes()),
        });
        Ok(())
    }

    /// Parses `manifest.json` bytes, checks the format version, the signature against the
    /// trusted publishers, and that file entries are safe relative paths.
    pub fn parse_verified(bytes: &[u8], trusted: &[PublisherKey]) -> Result<Self, ManifestError> {
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| ManifestError::Malformed(e.to_string()))?;
        let found = value
            .get("format_version")
            .and_then(Value::as_u64)
            .ok_or_else(|| ManifestError::Malformed("format_version is missing".into()))?;
        if found != u64::from(FORMAT_VERSION) {
            return Err(ManifestError::UnsupportedFormat {
                found,
                supported: FORMAT_VERSION,
            });
        }
        let manifest: Manifest = serde_json::from_value(value.clone())
            .map_err(|e| ManifestError::Malformed(e.to_string()))?;
        let sig = manifest.signature.as_ref().ok_or(ManifestError::Unsigned)?;
        let publisher = trusted
            .iter()
            .find(|p| p.id() == sig.publisher)
            .ok_or_else(|| ManifestError::UnknownPublisher(sig.publisher.clone()))?;
        let sig_bytes: [u8; 64] = STANDARD
            .decode(&sig.ed25519)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or(ManifestError::BadSignature)?;
        publisher
            .0
            .verify(
                &Self::canonical_bytes(&value),
                &Signature::from_bytes(&sig_bytes),
            )
            .map_err(|_| ManifestError::BadSignature)?;
        for f in &manifest.files {
            check_relative_path(&f.path)
                .map_err(|why| ManifestError::BadFile(f.path.clone(), why))?;
            if f.sha256.len() != 64 || !f.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(ManifestError::BadFile(
                    f.path.clone(),
                    FileEntryError::BadSha256,
                ));
            }
        }
        Ok(manifest)
    }
}

/// A file path inside a pack must be relative, `/`-separated, without `.`/`..` segments.
pub fn check_relative_path(path: &str) -> Result<(), FileEntryError> {
    if path.is_empty() || path.starts_with('/') || path.contains('\\') {
        return Err(FileEntryError::NotRelative);
    }
    if path
        .split('/')
        .any(|seg| seg.is_empty() || seg == "." || seg == "..")
    {
        return Err(FileEntryError::BadSegment);
    }
    if path == "manifest.json" {
        return Err(FileEntryError::ListsItself);
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn signed() -> (Publisher, Vec<u8>) {
        let p = Publisher::generate().unwrap();
        let mut m = Manifest::new(
            "andorra",
            "2026.11.22",
            vec!["roads".into(), "places".into()],
        );
        m.coverage.bbox = [1.4, 42.4, 1.8, 42.7];
        m.files.push(PackFile {
            path: "data.sqlite".into(),
            sha256: "ab".repeat(32),
            size: 10,
        });
        m.sources.push(PackSource {
            id: "osm-andorra".into(),
            licence: "ODbL-1.0".into(),
            attribution: "© OpenStreetMap contributors".into(),
            version: None,
            sha256: None,
            notes: None,
            layers: vec![],
        });
        m.sign(&p).unwrap();
        (p, serde_json::to_vec_pretty(&m).unwrap())
    }

    #[test]
    fn signed_manifest_verifies_whatever_the_formatting() {
        let (p, bytes) = signed();
        let m = Manifest::parse_verified(&bytes, &[p.verifying()]).unwrap();
        assert_eq!(m.id, "andorra");
        // Reformatted (compact, keys reordered by a Value round trip): still verifies.
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        let compact = serde_json::to_vec(&v).unwrap();
        assert!(Manifest::parse_verified(&compact, &[p.verifying()]).is_ok());
    }

    #[test]
    fn any_change_breaks_the_signature() {
        let (p, bytes) = signed();
        let mut v: Value = serde_json::from_slice(&bytes).unwrap();
        v["files"][0]["size"] = Value::from(11);
        let altered = serde_json::to_vec(&v).unwrap();
        assert_eq!(
            Manifest::parse_verified(&altered, &[p.verifying()]),
            Err(ManifestError::BadSignature)
        );
        let mut v: Value = serde_json::from_slice(&bytes).unwrap();
        v["extra"] = Value::from("added");
        assert_eq!(
            Manifest::parse_verified(&serde_json::to_vec(&v).unwrap(), &[p.verifying()]),
            Err(ManifestError::BadSignature)
        );
    }

    #[test]
    fn unsupported_format_untrusted_and_unsigned_are_refused() {
        let (p, bytes) = signed();
        // Older packs (version 1: the routing graphs before ADR 0005; version 2: the road and
        // address tables before the shared attribute rows; version 3: the search index with
        // stored points) and a newer one.
        for found in [
            1,
            2,
            3,
            u64::from(FORMAT_VERSION) - 1,
            u64::from(FORMAT_VERSION) + 1,
        ] {
            let mut v: Value = serde_json::from_slice(&bytes).unwrap();
            v["format_version"] = Value::from(found);
            let err = Manifest::parse_verified(&serde_json::to_vec(&v).unwrap(), &[p.verifying()])
                .unwrap_err();
            assert_eq!(
                err,
                ManifestError::UnsupportedFormat {
                    found,
                    supported: FORMAT_VERSION
                }
            );
            assert!(
                err.to_string()
                    .contains(&format!("version {found} is not supported"))
            );
        }
        let other = Publisher::generate().unwrap();
        assert!(matches!(
            Manifest::parse_verified(&bytes, &[other.verifying()]),
            Err(ManifestError::UnknownPublisher(_))
        ));
        let mut v: Value = serde_json::from_slice(&bytes).unwrap();
        v.as_object_mut().unwrap().remove("signature");
        assert_eq!(
            Manifest::parse_verified(&serde_json::to_vec(&v).unwrap(), &[p.verifying()]),
            Err(ManifestError::Unsigned)
        );
        assert!(matches!(
            Manifest::parse_verified(b"{nope", &[p.verifying()]),
            Err(ManifestError::Malformed(_))
        ));
    }

    #[test]
    fn unsafe_paths_are_refused() {
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "a//b",
            "a\\b",
            "./a",
            "manifest.json",
        ] {
            assert!(check_relative_path(bad).is_err(), "{bad}");
        }
        for ok in ["data.sqlite", "search/meta.json", "graphs/driving-time.fp"] {
            assert!(check_relative_path(ok).is_ok(), "{ok}");
        }
    }
}
