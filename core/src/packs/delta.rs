//! Delta updates of a pack: per-file binary patches from one exact installed version to the
//! next (ADR `docs/adr/0004-pack-deltas.md`).
//!
//! A delta lives in the new version's pack directory, one sub-directory per base version:
//!
//! ```text
//! <pack dir of NEW>/manifest.json              the full pack, as before
//! <pack dir of NEW>/<files...>
//! <pack dir of NEW>/deltas/<BASE>/delta.json    signed delta manifest (this module)
//! <pack dir of NEW>/deltas/<BASE>/<path>.zst    a patch per changed file
//! ```
//!
//! `delta.json` names the pack id, the exact base version and the SHA-256 of the base
//! manifest's canonical form, the new version and the SHA-256 of the new manifest's canonical
//! form, and for each file of the new manifest how to make it: `copy` (an unchanged file of
//! the base, possibly under another path), `patch` (zstd *patch-from*: a zstd frame
//! compressed with the base file as reference prefix, see [`make_patch`] / [`apply_patch`]) or
//! `full` (download the file of the full pack) or `prepare` (a routing hierarchy made on the
//! device from the new version's roads, once its database is made, by the builder's own
//! deterministic preparation, [`crate::routing::prepare`]; the delta builder offers it only
//! when preparing reproduces the published file byte for byte). It is signed exactly as a manifest
//! ([`Manifest::canonical_bytes`], Ed25519 by a trusted publisher). The installer checks every
//! resulting file against the *new* manifest's size and SHA-256, so a delta can only save
//! bytes, never change what is installed; anything that does not fit (another base, a bad
//! signature, a patch that fails) falls back to the full file.
//!
//! ```
//! use waymark_core::packs::delta::{apply_patch, make_patch};
//! let base = b"the quick brown fox jumps over the lazy dog, again and again".repeat(100);
//! let mut target = base.clone();
//! target[1000..1005].copy_from_slice(b"CAT!!");
//! let patch = make_patch(&base, &target).unwrap();
//! assert!(patch.len() < 100);
//! let mut out = Vec::new();
//! apply_patch(&base, &patch[..], &mut out).unwrap();
//! assert_eq!(out, target);
//! ```
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use ed25519_dalek::{Signature, Signer as _, Verifier as _};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::install::sha256_hex;
use super::manifest::{Manifest, PackSignature, check_relative_path};
use crate::auth::keys::{Publisher, PublisherKey};

/// The delta format this build writes (format 2 adds `prepare`).
pub const DELTA_FORMAT: u32 = 2;
/// Delta formats this build reads.
const READS_FORMATS: [u32; 2] = [1, 2];
/// Directory of deltas inside a pack directory of a source.
pub const DELTAS_DIR: &str = "deltas";
/// File name of a delta manifest.
pub const DELTA_FILE: &str = "delta.json";
/// Extension of a patch file.
pub const PATCH_EXT: &str = "zst";
/// zstd level of patches (19: slow to build once, as fast to apply as any level).
const PATCH_LEVEL: i32 = 19;
/// Largest zstd window (2 GiB); files up to this size can be patched.
const MAX_WINDOW_LOG: u32 = 31;
/// A patch is kept only when smaller than this share of the file (else `full`).
const MAX_PATCH_SHARE: f64 = 0.9;

/// Where a delta from `base_version` lives relative to the new pack's directory.
pub fn delta_dir_rel(base_version: &str) -> String {
    format!("{DELTAS_DIR}/{base_version}")
}

/// How to make one file of the new version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeltaOp {
    /// The base file `base` is the new file (same bytes).
    Copy,
    /// Apply the patch file `patch` to the base file `base`.
    Patch,
    /// Download the file of the full pack.
    Full,
    /// Prepare the routing hierarchy on the device from the roads of the new pack database
    /// `from`, in the preparation `preparation` ([`crate::routing::prepare`]).
    Prepare,
}

impl DeltaOp {
    /// The operation's name in `delta.json`.
    pub fn name(&self) -> &'static str {
        match self {
            DeltaOp::Copy => "copy",
            DeltaOp::Patch => "patch",
            DeltaOp::Full => "full",
            DeltaOp::Prepare => "prepare",
        }
    }
}

/// Options of [`build_delta_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeltaOptions {
    /// Routing graphs of at most this many arcs may be prepared on the device instead of
    /// downloaded (`None`: none). Preparing costs the device the builder's preparation time
    /// for that graph (`docs/performance.md`, "Delta updates").
    pub prepare_max_arcs: Option<u64>,
}

impl Default for DeltaOptions {
    fn default() -> Self {
        DeltaOptions {
            prepare_max_arcs: Some(DEFAULT_PREPARE_MAX_ARCS),
        }
    }
}

/// Default of [`DeltaOptions::prepare_max_arcs`]: the graphs of a country of about 5 M road
/// nodes (1.2–1.4 M arcs) are prepared on the device, about 45 s each on one desktop core;
/// sent whole they were two thirds of a day's delta (`docs/performance.md`, "Delta
/// updates"). The sample regions' graphs have 2–32 k arcs.
pub const DEFAULT_PREPARE_MAX_ARCS: u64 = 2_000_000;

/// One file of the new version in a delta.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeltaFile {
    /// Path in the new pack (as in its manifest).
    pub path: String,
    /// How it is made.
    pub op: DeltaOp,
    /// Path of the base pack's file it is made from (`copy`, `patch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Patch file, relative to the delta directory (`patch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// Lower-case hex SHA-256 of the patch file (`patch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_sha256: Option<String>,
    /// Size of the patch file in bytes (`patch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch_size: Option<u64>,
    /// The new pack's database the graph is prepared from (`prepare`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// `contraction` or `nested-dissection` (`prepare`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preparation: Option<String>,
    /// The form both files are patched in (`patch`; [`Transform`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<String>,
}

/// Prefix of a doc-store transform name.
const DOCSTORE_TRANSFORM: &str = "docstore-zstd-";

/// The form a `patch` entry's files are patched in, named by its `transform`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transform {
    /// `docstore-zstd-<level>`: the patch turns the [`super::docstore::expand`]ed base into
    /// the expanded new file, which is compacted at that zstd level.
    DocStore(i32),
    /// `sqlite-rows-1` ([`super::sqlrows::TRANSFORM`]): the patch turns the rows of the base
    /// database into the new database's, which is made from them
    /// ([`super::sqlrows::compact`]).
    SqliteRows,
}

impl Transform {
    /// The transform of a name; `None` for a name this build does not know.
    pub fn parse(name: &str) -> Option<Transform> {
        if name == super::sqlrows::TRANSFORM {
            return Some(Transform::SqliteRows);
        }
        let level: i32 = name.strip_prefix(DOCSTORE_TRANSFORM)?.parse().ok()?;
        (1..=22)
            .contains(&level)
            .then_some(Transform::DocStore(level))
    }
}

/// zstd levels a doc store is tried at: the pack builder's (search index) and zstd's default.
const DOCSTORE_LEVELS: [i32; 2] = [19, 3];

/// The patch of the expanded doc stores when both files are zstd doc stores that compact back
/// exactly: `(patch, transform)`.
fn docstore_patch(old: &[u8], new: &[u8]) -> io::Result<Option<(Vec<u8>, String)>> {
    let (Some(base), Some(target)) = (super::docstore::expand(old), super::docstore::expand(new))
    else {
        return Ok(None);
    };
    for level in DOCSTORE_LEVELS {
        if super::docstore::compact(&target, level)? == new {
            let patch = make_patch(&base, &target)?;
            return Ok(Some((patch, format!("{DOCSTORE_TRANSFORM}{level}"))));
        }
    }
    Ok(None)
}

/// The patch of the databases' rows ([`super::sqlrows`]) when both files are SQLite
/// databases with the same schema and the new one is made back exactly from the old one and
/// its rows. A scratch file in `out` holds the check's result.
fn rows_patch(old: &Path, new: &Path, out: &Path) -> Result<Option<Vec<u8>>, DeltaError> {
    let is_sqlite = |p: &Path| {
        let mut magic = [0u8; 16];
        fs::File::open(p)
            .and_then(|mut f| f.read_exact(&mut magic))
            .is_ok_and(|()| &magic == b"SQLite format 3\0")
    };
    if !is_sqlite(old) || !is_sqlite(new) {
        return Ok(None);
    }
    let (base, target) = match (super::sqlrows::expand(old), super::sqlrows::expand(new)) {
        (Ok(b), Ok(t)) => (b, t),
        (Err(e), _) | (_, Err(e)) => {
            tracing::warn!(file = %new.display(), error = %e, "the database cannot be expanded to rows");
            return Ok(None);
        }
    };
    let check = out.join(".rows-check.sqlite");
    let made = super::sqlrows::compact(old, &target, &check)
        .map_err(|e| e.to_string())
        .and_then(|()| fs::read(&check).map_err(|e| e.to_string()));
    let _ = fs::remove_file(&check);
    let new_bytes = fs::read(new).map_err(io_err(new))?;
    match made {
        Ok(bytes) if bytes == new_bytes => {}
        Ok(_) => {
            tracing::warn!(file = %new.display(), "the database made from its rows differs; patched as a file");
            return Ok(None);
        }
        Err(e) => {
            tracing::warn!(file = %new.display(), error = %e, "the database cannot be made from its rows; patched as a file");
            return Ok(None);
        }
    }
    Ok(Some(make_patch(&base, &target).map_err(io_err(new))?))
}

/// `deltas/<base>/delta.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeltaManifest {
    /// Delta format ([`DELTA_FORMAT`]).
    pub delta_format: u32,
    /// Pack id.
    pub id: String,
    /// The exact installed version this delta applies to.
    pub base_version: String,
    /// SHA-256 of the base manifest's canonical form ([`manifest_digest`]).
    pub base_manifest_sha256: String,
    /// The version it makes.
    pub version: String,
    /// SHA-256 of the new manifest's canonical form.
    pub manifest_sha256: String,
    /// Every file of the new manifest, in its order.
    pub files: Vec<DeltaFile>,
    /// Signature; absent until signed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<PackSignature>,
}

/// Why a delta was refused or could not be built or applied.
#[derive(Debug, thiserror::Error)]
pub enum DeltaError {
    /// Not JSON of the delta shape, or inconsistent.
    #[error("delta manifest is invalid: {0}")]
    Invalid(String),
    /// A delta format this build cannot read.
    #[error("delta format {0} is not supported by this build (it reads {DELTA_FORMAT})")]
    UnsupportedFormat(u64),
    /// Unsigned, untrusted or altered.
    #[error("delta manifest signature refused: {0}")]
    Signature(String),
    /// The delta is not for this base or target.
    #[error("the delta does not match: {0}")]
    Mismatch(String),
    /// A file-system failure.
    #[error("i/o error on {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> DeltaError + '_ {
    move |source| DeltaError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// SHA-256 (hex) of a manifest's canonical form: what a delta names its base and target by.
pub fn manifest_digest(manifest: &Manifest) -> Result<String, DeltaError> {
    let value = serde_json::to_value(manifest).map_err(|e| DeltaError::Invalid(e.to_string()))?;
    Ok(sha256_hex(&Manifest::canonical_bytes(&value)))
}

impl DeltaManifest {
    /// Signs the delta manifest with `publisher` (same canonical form as manifests).
    pub fn sign(&mut self, publisher: &Publisher) -> Result<(), DeltaError> {
        self.signature = None;
        let value = serde_json::to_value(&*self).map_err(|e| DeltaError::Invalid(e.to_string()))?;
        let sig = publisher
            .signing_key()
            .sign(&Manifest::canonical_bytes(&value));
        self.signature = Some(PackSignature {
            publisher: publisher.id(),
            ed25519: STANDARD.encode(sig.to_bytes()),
        });
        Ok(())
    }

    /// Parses `delta.json`, checks its format, its signature by a trusted publisher and that
    /// its paths are safe relative paths with the fields their operation needs.
    pub fn parse_verified(bytes: &[u8], trusted: &[PublisherKey]) -> Result<Self, DeltaError> {
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| DeltaError::Invalid(e.to_string()))?;
        let found = value
            .get("delta_format")
            .and_then(Value::as_u64)
            .ok_or_else(|| DeltaError::Invalid("delta_format is missing".into()))?;
        if !READS_FORMATS.iter().any(|&f| u64::from(f) == found) {
            return Err(DeltaError::UnsupportedFormat(found));
        }
        let delta: DeltaManifest = serde_json::from_value(value.clone())
            .map_err(|e| DeltaError::Invalid(e.to_string()))?;
        let sig = delta
            .signature
            .as_ref()
            .ok_or_else(|| DeltaError::Signature("the delta is not signed".into()))?;
        let publisher = trusted
            .iter()
            .find(|p| p.id() == sig.publisher)
            .ok_or_else(|| {
                DeltaError::Signature(format!("publisher {} is not trusted", sig.publisher))
            })?;
        let sig_bytes: [u8; 64] = STANDARD
            .decode(&sig.ed25519)
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| DeltaError::Signature("malformed signature".into()))?;
        publisher
            .0
            .verify(
                &Manifest::canonical_bytes(&value),
                &Signature::from_bytes(&sig_bytes),
            )
            .map_err(|_| DeltaError::Signature("the signature does not verify".into()))?;
        for f in &delta.files {
            let bad = |why: &str| DeltaError::Invalid(format!("file `{}`: {why}", f.path));
            check_relative_path(&f.path).map_err(|e| bad(&e.to_string()))?;
            match f.op {
                DeltaOp::Full => {}
                DeltaOp::Copy | DeltaOp::Patch => {
                    let base = f.base.as_deref().ok_or_else(|| bad("no base file"))?;
                    check_relative_path(base).map_err(|e| bad(&e.to_string()))?;
                }
                DeltaOp::Prepare => {
                    let from = f.from.as_deref().ok_or_else(|| bad("no `from` database"))?;
                    check_relative_path(from).map_err(|e| bad(&e.to_string()))?;
                    let how = f.preparation.as_deref().unwrap_or("");
                    if crate::routing::prepare::PreparationKind::from_name(how).is_none() {
                        return Err(bad(
                            "`preparation` is not `contraction` or `nested-dissection`",
                        ));
                    }
                    if crate::routing::prepare::graph_of_file(&f.path).is_none() {
                        return Err(bad("only routing graph files are prepared"));
                    }
                    if !delta.files.iter().any(|d| d.path == from) {
                        return Err(bad("`from` is not a file of the new version"));
                    }
                }
            }
            if let Some(t) = f.transform.as_deref()
                && (f.op != DeltaOp::Patch || Transform::parse(t).is_none())
            {
                return Err(bad("unknown `transform`"));
            }
            if f.op == DeltaOp::Patch {
                let patch = f.patch.as_deref().ok_or_else(|| bad("no patch file"))?;
                check_relative_path(patch).map_err(|e| bad(&e.to_string()))?;
                let sha = f.patch_sha256.as_deref().unwrap_or("");
                if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(bad("patch_sha256 is not 64 hex digits"));
                }
                if f.patch_size.is_none() {
                    return Err(bad("no patch_size"));
                }
            }
        }
        Ok(delta)
    }

    /// Checks the delta turns exactly `base` into exactly `target`.
    pub fn check_applies(&self, base: &Manifest, target: &Manifest) -> Result<(), DeltaError> {
        if self.id != target.id || self.id != base.id {
            return Err(DeltaError::Mismatch(format!(
                "it is a delta of pack `{}`",
                self.id
            )));
        }
        if self.version != target.version || self.manifest_sha256 != manifest_digest(target)? {
            return Err(DeltaError::Mismatch(format!(
                "it makes version {} and not this manifest of {}",
                self.version, target.version
            )));
        }
        if self.base_version != base.version || self.base_manifest_sha256 != manifest_digest(base)?
        {
            return Err(DeltaError::Mismatch(format!(
                "it applies to version {} and not the installed {}",
                self.base_version, base.version
            )));
        }
        Ok(())
    }

    /// Bytes to download to install with this delta: `delta.json` is not counted; patches and
    /// `full` files of `target` are.
    pub fn download_size(&self, target: &Manifest) -> u64 {
        let sizes: HashMap<&str, u64> = target
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.size))
            .collect();
        let listed: HashMap<&str, &DeltaFile> =
            self.files.iter().map(|f| (f.path.as_str(), f)).collect();
        target
            .files
            .iter()
            .map(|f| match listed.get(f.path.as_str()) {
                Some(d) if d.op == DeltaOp::Copy || d.op == DeltaOp::Prepare => 0,
                Some(d) if d.op == DeltaOp::Patch => d.patch_size.unwrap_or(f.size),
                _ => sizes.get(f.path.as_str()).copied().unwrap_or(0),
            })
            .sum()
    }
}

fn window_log(base_len: usize, target_len: usize) -> u32 {
    let n = base_len.max(target_len).max(1) as u64;
    // Enough for a back-reference from the end of the target to the start of the base.
    let log = 64 - (n.saturating_mul(2)).leading_zeros();
    log.clamp(10, MAX_WINDOW_LOG)
}

/// A zstd *patch-from* frame turning `base` into `target` (long-distance matching, the window
/// covering both).
pub fn make_patch(base: &[u8], target: &[u8]) -> io::Result<Vec<u8>> {
    let mut enc = zstd::stream::write::Encoder::with_ref_prefix(Vec::new(), PATCH_LEVEL, base)?;
    enc.window_log(window_log(base.len(), target.len()))?;
    enc.long_distance_matching(true)?;
    enc.set_pledged_src_size(Some(target.len() as u64))?;
    enc.include_checksum(true)?;
    enc.write_all(target)?;
    enc.finish()
}

/// Applies a patch of [`make_patch`] to `base`, streaming the result to `out`; returns the
/// bytes written. A patch of another base fails or gives other bytes (callers check the
/// result's hash).
pub fn apply_patch(base: &[u8], patch: impl Read, out: &mut impl Write) -> io::Result<u64> {
    let mut dec = zstd::stream::read::Decoder::with_ref_prefix(io::BufReader::new(patch), base)?;
    dec.window_log_max(MAX_WINDOW_LOG)?;
    io::copy(&mut dec, out)
}

/// What [`build_delta`] wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeltaSummary {
    /// Pack id.
    pub id: String,
    /// Base version.
    pub base_version: String,
    /// New version.
    pub version: String,
    /// Size of the new pack (sum of its files).
    pub full_size: u64,
    /// Bytes to download with the delta (patches + `full` files).
    pub delta_size: u64,
    /// Size of `delta.json`.
    pub manifest_size: u64,
    /// Per file of the new pack: path, operation, its size, bytes to download.
    pub files: Vec<(String, String, u64, u64)>,
}

fn read_manifest(dir: &Path) -> Result<Manifest, DeltaError> {
    let path = dir.join(super::install::MANIFEST_FILE);
    let bytes = fs::read(&path).map_err(io_err(&path))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| DeltaError::Invalid(format!("{}: {e}", path.display())))
}

fn extension(path: &str) -> (&str, &str) {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    (dir, name.rsplit_once('.').map_or("", |(_, e)| e))
}

/// Builds the delta from the pack directory `old` to the pack directory `new` (both built and
/// signed; the manifests are read as they are) into `out` (created; its previous content
/// with the same names is replaced), signed by `publisher`.
///
/// Files are paired by path; a file of `new` without a same-path file in `old` is paired
/// with an unpaired file of `old` in the same directory with the same extension and the
/// closest size (tantivy names its segment files with random ids). Equal hashes give `copy`,
/// a patch smaller than 90% of the file gives `patch`, anything else `full`.
pub fn build_delta(
    old: &Path,
    new: &Path,
    out: &Path,
    publisher: &Publisher,
) -> Result<DeltaSummary, DeltaError> {
    build_delta_with(old, new, out, publisher, &DeltaOptions::default())
}

/// How the new pack prepared each routing graph (`stats.routing.graphs[]`): file → (arcs,
/// preparation).
fn preparations(manifest: &Manifest) -> HashMap<String, (u64, String)> {
    let graphs = manifest
        .stats
        .as_ref()
        .and_then(|s| s.pointer("/routing/graphs"))
        .and_then(Value::as_array);
    graphs
        .into_iter()
        .flatten()
        .filter_map(|g| {
            Some((
                g.get("file")?.as_str()?.to_string(),
                (
                    g.get("arcs")?.as_u64()?,
                    g.get("preparation")?.as_str()?.to_string(),
                ),
            ))
        })
        .collect()
}

/// Whether the device can make `path` of the pack `new` by preparing it from the pack's
/// database `db` (`DeltaOp::Prepare`): the graph is small enough and preparing it here gives
/// the published bytes exactly.
fn preparable(
    new: &Path,
    path: &str,
    db: &str,
    prepared: &HashMap<String, (u64, String)>,
    options: &DeltaOptions,
) -> Result<Option<String>, DeltaError> {
    let (Some(max), Some((arcs, how))) = (options.prepare_max_arcs, prepared.get(path)) else {
        return Ok(None);
    };
    let Some(kind) = crate::routing::prepare::PreparationKind::from_name(how) else {
        return Ok(None);
    };
    if *arcs > max {
        return Ok(None);
    }
    let made = match crate::routing::prepare::prepare_file_from_pack(&new.join(db), path, kind) {
        Ok(made) => made,
        Err(e) => {
            tracing::warn!(file = path, error = %e, "cannot prepare the graph; it is sent");
            return Ok(None);
        }
    };
    let published_path = new.join(path);
    let published = fs::read(&published_path).map_err(io_err(&published_path))?;
    if made.bytes != published {
        tracing::warn!(
            file = path,
            "preparing the graph again gives other bytes; it is sent"
        );
        return Ok(None);
    }
    Ok(Some(how.clone()))
}

/// [`build_delta`] with options.
pub fn build_delta_with(
    old: &Path,
    new: &Path,
    out: &Path,
    publisher: &Publisher,
    options: &DeltaOptions,
) -> Result<DeltaSummary, DeltaError> {
    let base = read_manifest(old)?;
    let target = read_manifest(new)?;
    if base.id != target.id {
        return Err(DeltaError::Mismatch(format!(
            "`{}` and `{}` are different packs",
            base.id, target.id
        )));
    }
    if base.version == target.version {
        return Err(DeltaError::Mismatch(format!(
            "both packs are version {}",
            base.version
        )));
    }
    fs::create_dir_all(out).map_err(io_err(out))?;
    let by_path: BTreeMap<&str, &super::PackFile> =
        base.files.iter().map(|f| (f.path.as_str(), f)).collect();
    let mut unpaired: Vec<&super::PackFile> = base
        .files
        .iter()
        .filter(|f| !target.files.iter().any(|t| t.path == f.path))
        .collect();
    let prepared = preparations(&target);
    let db = super::registry::SQLITE_FILE;
    let mut files = Vec::new();
    let mut report = Vec::new();
    let mut delta_size = 0u64;
    for t in &target.files {
        let pair = match by_path.get(t.path.as_str()) {
            Some(b) => Some(*b),
            None => {
                let key = extension(&t.path);
                let best = unpaired
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| extension(&b.path) == key)
                    .min_by_key(|(_, b)| b.size.abs_diff(t.size))
                    .map(|(i, _)| i);
                best.map(|i| unpaired.swap_remove(i))
            }
        };
        let mut entry = DeltaFile {
            path: t.path.clone(),
            op: DeltaOp::Full,
            base: None,
            patch: None,
            patch_sha256: None,
            patch_size: None,
            from: None,
            preparation: None,
            transform: None,
        };
        let unchanged =
            pair.is_some_and(|b| b.sha256.eq_ignore_ascii_case(&t.sha256) && b.size == t.size);
        let prepare = if unchanged || !target.files.iter().any(|f| f.path == db) {
            None
        } else {
            preparable(new, &t.path, db, &prepared, options)?
        };
        if let Some(how) = prepare {
            entry.op = DeltaOp::Prepare;
            entry.from = Some(db.to_string());
            entry.preparation = Some(how);
        } else if let Some(b) = pair {
            if unchanged {
                entry.op = DeltaOp::Copy;
                entry.base = Some(b.path.clone());
            } else {
                let old_path = old.join(&b.path);
                let new_path = new.join(&t.path);
                let old_bytes = fs::read(&old_path).map_err(io_err(&old_path))?;
                let new_bytes = fs::read(&new_path).map_err(io_err(&new_path))?;
                let mut patch = make_patch(&old_bytes, &new_bytes).map_err(io_err(&new_path))?;
                if let Some((p, transform)) =
                    docstore_patch(&old_bytes, &new_bytes).map_err(io_err(&new_path))?
                    && p.len() < patch.len()
                {
                    patch = p;
                    entry.transform = Some(transform);
                }
                drop((old_bytes, new_bytes));
                if let Some(p) = rows_patch(&old_path, &new_path, out)?
                    && p.len() < patch.len()
                {
                    patch = p;
                    entry.transform = Some(super::sqlrows::TRANSFORM.to_string());
                }
                if (patch.len() as f64) < t.size as f64 * MAX_PATCH_SHARE {
                    let rel = format!("{}.{PATCH_EXT}", t.path);
                    let dest = out.join(&rel);
                    if let Some(parent) = dest.parent() {
                        fs::create_dir_all(parent).map_err(io_err(parent))?;
                    }
                    fs::write(&dest, &patch).map_err(io_err(&dest))?;
                    entry.op = DeltaOp::Patch;
                    entry.base = Some(b.path.clone());
                    entry.patch = Some(rel);
                    entry.patch_sha256 = Some(sha256_hex(&patch));
                    entry.patch_size = Some(patch.len() as u64);
                } else {
                    entry.transform = None;
                }
            }
        }
        let download = match entry.op {
            DeltaOp::Copy | DeltaOp::Prepare => 0,
            DeltaOp::Patch => entry.patch_size.unwrap_or(0),
            DeltaOp::Full => t.size,
        };
        delta_size += download;
        report.push((
            t.path.clone(),
            entry.op.name().to_string(),
            t.size,
            download,
        ));
        files.push(entry);
    }
    let mut delta = DeltaManifest {
        delta_format: DELTA_FORMAT,
        id: target.id.clone(),
        base_version: base.version.clone(),
        base_manifest_sha256: manifest_digest(&base)?,
        version: target.version.clone(),
        manifest_sha256: manifest_digest(&target)?,
        files,
        signature: None,
    };
    delta.sign(publisher)?;
    let json = serde_json::to_vec_pretty(&delta).map_err(|e| DeltaError::Invalid(e.to_string()))?;
    let path = out.join(DELTA_FILE);
    fs::write(&path, &json).map_err(io_err(&path))?;
    Ok(DeltaSummary {
        id: target.id.clone(),
        base_version: base.version,
        version: target.version.clone(),
        full_size: target.files.iter().map(|f| f.size).sum(),
        delta_size,
        manifest_size: json.len() as u64,
        files: report,
    })
}

#[cfg(test)]
mod tests;
