//! The checks of a verified manifest that `Manifest::parse_verified` does not make: pack ids
//! and versions that are safe directory names, and file lists without duplicates or files
//! that are also directories.
use std::collections::HashSet;

use crate::packs::manifest::Manifest;

/// Longest pack id or version.
const MAX_NAME_LEN: usize = 128;

/// Why a pack id or version is not a safe single directory name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PackNameError {
    /// Empty or longer than the limit.
    #[error("must have 1 to {MAX_NAME_LEN} characters")]
    Length,
    /// Hidden (and `.`, `..`).
    #[error("must not start with `.`")]
    LeadingDot,
    /// A character other than ASCII letters, digits, `.`, `-` and `_`.
    #[error("may only contain ascii letters, digits, `.`, `-` and `_`")]
    Characters,
}

/// Why a verified manifest cannot be installed (what `parse_verified` does not check).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestCheckError {
    /// The id is not a safe directory name.
    #[error("pack id `{id}` {why}")]
    Id {
        /// The id.
        id: String,
        /// What is wrong with it.
        why: PackNameError,
    },
    /// The version is not a safe directory name.
    #[error("pack version `{version}` {why}")]
    Version {
        /// The version.
        version: String,
        /// What is wrong with it.
        why: PackNameError,
    },
    /// Two files with the same path (ignoring ASCII case).
    #[error("a file is listed twice (paths are compared ignoring case)")]
    Duplicate,
    /// A path listed as a file is also the directory of another file.
    #[error("`{0}` is listed as a file and as a directory")]
    FileAndDirectory(String),
    /// The sum of the file sizes does not fit in 64 bits.
    #[error("file sizes overflow")]
    SizeOverflow,
}

/// A pack id or version must be a safe single directory name.
pub(super) fn check_name(name: &str) -> Result<(), PackNameError> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Err(PackNameError::Length);
    }
    if name.starts_with('.') {
        return Err(PackNameError::LeadingDot);
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
    {
        return Err(PackNameError::Characters);
    }
    Ok(())
}

/// Checks what `parse_verified` does not: safe id/version names, no duplicate file, no file
/// that is also a directory of another. Returns the total size.
pub(super) fn check_manifest(m: &Manifest) -> Result<u64, ManifestCheckError> {
    check_name(&m.id).map_err(|why| ManifestCheckError::Id {
        id: m.id.clone(),
        why,
    })?;
    check_name(&m.version).map_err(|why| ManifestCheckError::Version {
        version: m.version.clone(),
        why,
    })?;
    // Compared without ASCII case: iOS, macOS and Windows file systems ignore it.
    let paths: HashSet<String> = m
        .files
        .iter()
        .map(|f| f.path.to_ascii_lowercase())
        .collect();
    if paths.len() != m.files.len() {
        return Err(ManifestCheckError::Duplicate);
    }
    let mut total = 0u64;
    for f in &m.files {
        let lower = f.path.to_ascii_lowercase();
        let mut prefix = lower.as_str();
        while let Some((parent, _)) = prefix.rsplit_once('/') {
            if paths.contains(parent) {
                return Err(ManifestCheckError::FileAndDirectory(parent.to_string()));
            }
            prefix = parent;
        }
        total = total
            .checked_add(f.size)
            .ok_or(ManifestCheckError::SizeOverflow)?;
    }
    Ok(total)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    use crate::packs::manifest::PackFile;

    #[test]
    fn names_must_be_safe_directory_names() {
        for ok in ["andorra", "base", "2026.11.22", "2026.11.22-1", "a_b"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", ".", "..", ".hidden", "a/b", "a\\b", "a b", "é"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn manifest_checks_duplicates_and_file_dir_clashes() {
        let file = |p: &str| PackFile {
            path: p.into(),
            sha256: "0".repeat(64),
            size: 1,
        };
        let mut m = Manifest::new("andorra", "2026.11.22", vec![]);
        m.files = vec![file("a"), file("b/c")];
        assert_eq!(check_manifest(&m), Ok(2));
        m.files = vec![file("a"), file("a")];
        assert!(check_manifest(&m).is_err());
        m.files = vec![file("data.bin"), file("Data.bin")];
        assert!(check_manifest(&m).is_err());
        m.files = vec![file("b"), file("b/c")];
        assert!(check_manifest(&m).is_err());
        m.files = vec![];
        m.id = "../x".into();
        assert!(check_manifest(&m).is_err());
    }
}
