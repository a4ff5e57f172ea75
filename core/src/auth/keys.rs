//! Offline API keys: signed claims that the device can verify without a network and cannot
//! forge (ADR `docs/adr/0001-offline-keys.md`).
//!
//! A key is `<prefix><claims>.<signature>`: the prefix `wm_pub_` (public key) or `wm_prv_`
//! (private key), the claims as base64url (no padding) of compact JSON, and an Ed25519
//! signature, also base64url, over the ASCII bytes of `<prefix><claims>`. The publisher that
//! signed it is named in the claims (`iss`, a short id of its public key) and must be one the
//! engine is configured to trust.
//!
//! ```
//! use waymark_core::auth::keys::{Publisher, KeyClaims, KeyScope, PublicRestrictions};
//! let publisher = Publisher::generate().unwrap();
//! let claims = KeyClaims::new(
//!     KeyScope::Public(PublicRestrictions { domains: vec!["*.example.com".into()], ips: vec![] }),
//! );
//! let key = publisher.issue(&claims).unwrap();
//! assert!(key.starts_with("wm_pub_"));
//! let verified = waymark_core::auth::keys::verify(&key, &[publisher.verifying()]).unwrap();
//! assert_eq!(verified, claims.with_issuer(&publisher.id()));
//! ```
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use ipnet::IpNet;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::restrictions::RestrictionError;
use crate::api::ApiGroup;
use crate::error::Error;

/// Prefix of every public key.
pub const PUBLIC_PREFIX: &str = "wm_pub_";
/// Prefix of every private key.
pub const PRIVATE_PREFIX: &str = "wm_prv_";
/// Version of the claims format.
pub const CLAIMS_VERSION: u8 = 1;
/// Longest key string accepted before any decoding (protects the verifier).
pub const MAX_KEY_LEN: usize = 4096;

/// Restrictions of a public key: the caller must match at least one domain (by its `Referer`)
/// or one IP block (by its connection address).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct PublicRestrictions {
    /// Domains without protocol or path; `*.example.com` matches subdomains; `*` matches all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub domains: Vec<String>,
    /// IP addresses or CIDR blocks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ips: Vec<IpNet>,
}

/// An Android app allowed to use a restricted private key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AndroidApp {
    /// Package id, e.g. `com.example.app`.
    pub package: String,
    /// SHA-1 fingerprint of the signing certificate, normalized: 40 upper-case hex digits.
    pub sha1: String,
}

/// The one restriction a private key carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PrivateRestriction {
    /// Unrestricted.
    None,
    /// iOS apps by bundle id.
    Ios {
        /// Allowed bundle ids.
        bundle_ids: Vec<String>,
    },
    /// Android apps by package id and signing-certificate SHA-1.
    Android {
        /// Allowed apps.
        apps: Vec<AndroidApp>,
    },
    /// Connection addresses.
    Ip {
        /// Allowed addresses and CIDR blocks.
        ips: Vec<IpNet>,
    },
}

/// Kind of key and what it is restricted to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeyScope {
    /// A public, read-only key for browsers and web views.
    Public(PublicRestrictions),
    /// A private key for servers and mobile apps.
    Private {
        /// Write permission (creation and edition), fixed at creation.
        write: bool,
        /// The restriction.
        restriction: PrivateRestriction,
    },
}

/// The signed content of a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyClaims {
    /// Claims format version ([`CLAIMS_VERSION`]).
    pub v: u8,
    /// Key id: 128 random bits, hex. Rate limits and quotas are kept per key id.
    pub kid: String,
    /// Publisher id ([`Publisher::id`]); set by [`Publisher::issue`].
    #[serde(default)]
    pub iss: String,
    /// Project name, for messages and logs.
    #[serde(default)]
    pub project: String,
    /// Kind and restrictions.
    pub scope: KeyScope,
    /// Enabled API groups; empty means none.
    pub apis: Vec<ApiGroup>,
    /// Licence options, e.g. `advanced_postal_codes` for autocomplete `data=advanced`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// Free quota in requests; `None` is unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quota: Option<u64>,
    /// Issued at, UNIX seconds.
    pub iat: i64,
    /// Expiry, UNIX seconds; `None` never expires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exp: Option<i64>,
}

impl KeyClaims {
    /// Claims with a fresh key id, every API group enabled, no quota, no expiry.
    pub fn new(scope: KeyScope) -> Self {
        KeyClaims {
            v: CLAIMS_VERSION,
            kid: random_hex(16).unwrap_or_default(),
            iss: String::new(),
            project: "default".into(),
            scope,
            apis: ApiGroup::ALL.to_vec(),
            options: Vec::new(),
            quota: None,
            iat: chrono::Utc::now().timestamp(),
            exp: None,
        }
    }

    /// The same claims with `iss` set.
    pub fn with_issuer(&self, iss: &str) -> Self {
        KeyClaims {
            iss: iss.to_string(),
            ..self.clone()
        }
    }

    /// Whether this is a public key.
    pub fn is_public(&self) -> bool {
        matches!(self.scope, KeyScope::Public(_))
    }

    /// Whether the key has write permission.
    pub fn can_write(&self) -> bool {
        matches!(self.scope, KeyScope::Private { write: true, .. })
    }

    /// Checks the rules a key must follow before it is signed.
    pub fn validate(&self) -> Result<(), ClaimsError> {
        if self.v != CLAIMS_VERSION {
            return Err(ClaimsError::Version(self.v));
        }
        if self.kid.len() < 16 || !self.kid.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(ClaimsError::KeyId);
        }
        match &self.scope {
            KeyScope::Public(r) => {
                if r.domains.is_empty() && r.ips.is_empty() {
                    return Err(ClaimsError::PublicUnrestricted);
                }
                for d in &r.domains {
                    super::restrictions::validate_domain_pattern(d)?;
                }
            }
            KeyScope::Private { restriction, .. } => match restriction {
                PrivateRestriction::None => {}
                PrivateRestriction::Ios { bundle_ids } if bundle_ids.is_empty() => {
                    return Err(ClaimsError::NoBundleId);
                }
                PrivateRestriction::Android { apps } if apps.is_empty() => {
                    return Err(ClaimsError::NoAndroidApp);
                }
                PrivateRestriction::Android { apps } => {
                    for app in apps {
                        let norm = super::restrictions::normalize_sha1(&app.sha1)?;
                        if norm != app.sha1 {
                            return Err(ClaimsError::FingerprintNotNormalized(norm));
                        }
                    }
                }
                PrivateRestriction::Ip { ips } if ips.is_empty() => {
                    return Err(ClaimsError::NoIp);
                }
                _ => {}
            },
        }
        Ok(())
    }
}

/// Why claims break the key rules ([`KeyClaims::validate`]); refused before signing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaimsError {
    /// A claims format this build does not write.
    #[error("claims version {0} is not supported")]
    Version(u8),
    /// A key id that is too short or not hex.
    #[error("kid must be at least 16 hex digits")]
    KeyId,
    /// A public key with neither a domain nor an IP restriction.
    #[error("a public key needs at least one domain or ip restriction")]
    PublicUnrestricted,
    /// An iOS restriction without a bundle id.
    #[error("an ios restriction needs at least one bundle id")]
    NoBundleId,
    /// An Android restriction without an app.
    #[error("an android restriction needs at least one app")]
    NoAndroidApp,
    /// An Android fingerprint not stored in its normalized form (given here).
    #[error("android fingerprint must be stored normalized as {0}")]
    FingerprintNotNormalized(String),
    /// An IP restriction without an address or block.
    #[error("an ip restriction needs at least one address or block")]
    NoIp,
    /// A domain restriction or fingerprint that does not parse.
    #[error(transparent)]
    Restriction(#[from] RestrictionError),
}

/// A publisher's signing key: issues keys. Kept by the project owner, never on devices.
#[derive(Debug, Clone)]
pub struct Publisher {
    signing: SigningKey,
}

/// A trusted publisher's public key, as configured in the SDK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PublisherKey(pub VerifyingKey);

impl PublisherKey {
    /// Parses base64 (standard or url-safe) of the 32-byte Ed25519 public key.
    pub fn parse(s: &str) -> Result<Self, Error> {
        let bytes = decode_b64_any(s.trim())
            .ok_or_else(|| Error::KeyMaterial("publisher key is not base64".into()))?;
        let arr: [u8; 32] = bytes
            .try_into()
            .map_err(|_| Error::KeyMaterial("publisher key must be 32 bytes".into()))?;
        VerifyingKey::from_bytes(&arr)
            .map(PublisherKey)
            .map_err(|e| Error::KeyMaterial(format!("publisher key: {e}")))
    }

    /// Parses several keys (command-line `--trust` values), naming the bad one.
    pub fn parse_all(keys: &[String]) -> Result<Vec<Self>, Error> {
        keys.iter()
            .map(|k| Self::parse(k).map_err(|e| Error::KeyMaterial(format!("`{k}`: {e}"))))
            .collect()
    }

    /// Base64 of the 32-byte key.
    pub fn encode(&self) -> String {
        STANDARD.encode(self.0.as_bytes())
    }

    /// Short id: hex of the first 8 bytes of SHA-256 of the key.
    pub fn id(&self) -> String {
        let digest = Sha256::digest(self.0.as_bytes());
        hex(&digest[..8])
    }
}

/// The file a publisher's secret is stored in (`waymark keys new-publisher`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PublisherFile {
    /// [`PublisherKey::id`].
    pub id: String,
    /// Base64 public key: give it to the SDK as a trusted publisher.
    pub public_key: String,
    /// Base64 secret key: keep it private.
    pub secret_key: String,
}

impl Publisher {
    /// A new random publisher.
    pub fn generate() -> Result<Self, Error> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| Error::KeyMaterial(format!("random: {e}")))?;
        Ok(Publisher {
            signing: SigningKey::from_bytes(&seed),
        })
    }

    /// The publisher's public key.
    pub fn verifying(&self) -> PublisherKey {
        PublisherKey(self.signing.verifying_key())
    }

    /// The signing key (for signing packs with the same publisher identity).
    pub fn signing_key(&self) -> &SigningKey {
        &self.signing
    }

    /// The publisher id.
    pub fn id(&self) -> String {
        self.verifying().id()
    }

    /// The storable form.
    pub fn to_file(&self) -> PublisherFile {
        PublisherFile {
            id: self.id(),
            public_key: self.verifying().encode(),
            secret_key: STANDARD.encode(self.signing.to_bytes()),
        }
    }

    /// Restores from the storable form, checking the public half matches.
    pub fn from_file(file: &PublisherFile) -> Result<Self, Error> {
        let bytes = decode_b64_any(&file.secret_key)
            .ok_or_else(|| Error::KeyMaterial("secret key is not base64".into()))?;
        let arr: [u8; 32] = bytes
            .try_into()
            .map_err(|_| Error::KeyMaterial("secret key must be 32 bytes".into()))?;
        let publisher = Publisher {
            signing: SigningKey::from_bytes(&arr),
        };
        if publisher.verifying().encode() != file.public_key {
            return Err(Error::KeyMaterial(
                "public key does not belong to the secret key".into(),
            ));
        }
        Ok(publisher)
    }

    /// Reads a publisher file written by [`Publisher::write_file`].
    pub fn read_file(path: &std::path::Path) -> Result<Self, Error> {
        let bytes = std::fs::read(path).map_err(|e| Error::io(path.display().to_string(), e))?;
        let file: PublisherFile = serde_json::from_slice(&bytes)?;
        Self::from_file(&file)
    }

    /// Writes the publisher file (secret included: keep it private), creating parent folders.
    pub fn write_file(&self, path: &std::path::Path) -> Result<(), Error> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io(parent.display().to_string(), e))?;
        }
        let json = serde_json::to_vec_pretty(&self.to_file())?;
        std::fs::write(path, json).map_err(|e| Error::io(path.display().to_string(), e))
    }

    /// Signs claims into a key string. Sets `iss`; refuses claims that break the key rules.
    pub fn issue(&self, claims: &KeyClaims) -> Result<String, Error> {
        let claims = claims.with_issuer(&self.id());
        claims
            .validate()
            .map_err(|e| Error::KeyMaterial(e.to_string()))?;
        let json = serde_json::to_vec(&claims)?;
        let prefix = if claims.is_public() {
            PUBLIC_PREFIX
        } else {
            PRIVATE_PREFIX
        };
        let signed_part = format!("{prefix}{}", URL_SAFE_NO_PAD.encode(json));
        let sig = self.signing.sign(signed_part.as_bytes());
        Ok(format!(
            "{signed_part}.{}",
            URL_SAFE_NO_PAD.encode(sig.to_bytes())
        ))
    }
}

/// Why a key string was refused. Every variant maps to 401.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Not of the key format at all (prefix, separators, base64, JSON).
    #[error("the key is malformed ({0}); use a valid key")]
    Malformed(&'static str),
    /// Signed by a publisher this SDK does not trust.
    #[error("the key was issued by a publisher this sdk does not trust; use a valid key")]
    UnknownPublisher,
    /// Signature does not verify: altered or forged.
    #[error("the key is incorrect (its signature does not verify); use a valid key")]
    BadSignature,
    /// Past its expiry.
    #[error("the key expired at {0} (unix seconds); use a valid key")]
    Expired(i64),
    /// The prefix says public but the claims say private, or the reverse.
    #[error("the key is malformed (prefix does not match its kind); use a valid key")]
    KindMismatch,
}

/// Verifies a key string against the trusted publishers; does not check expiry (that changes
/// with time, so callers check it on every request with [`check_expiry`]).
pub fn verify(key: &str, trusted: &[PublisherKey]) -> Result<KeyClaims, KeyError> {
    if key.len() > MAX_KEY_LEN {
        return Err(KeyError::Malformed("too long"));
    }
    let (prefix, rest) = if let Some(rest) = key.strip_prefix(PUBLIC_PREFIX) {
        (PUBLIC_PREFIX, rest)
    } else if let Some(rest) = key.strip_prefix(PRIVATE_PREFIX) {
        (PRIVATE_PREFIX, rest)
    } else {
        return Err(KeyError::Malformed("unknown prefix"));
    };
    let (claims_b64, sig_b64) = rest
        .split_once('.')
        .ok_or(KeyError::Malformed("no signature"))?;
    let claims_json = URL_SAFE_NO_PAD
        .decode(claims_b64)
        .map_err(|_| KeyError::Malformed("claims are not base64url"))?;
    let sig_bytes: [u8; 64] = URL_SAFE_NO_PAD
        .decode(sig_b64)
        .map_err(|_| KeyError::Malformed("signature is not base64url"))?
        .try_into()
        .map_err(|_| KeyError::Malformed("signature has the wrong length"))?;
    let claims: KeyClaims = serde_json::from_slice(&claims_json)
        .map_err(|_| KeyError::Malformed("claims do not parse"))?;
    if claims.v != CLAIMS_VERSION {
        return Err(KeyError::Malformed("unsupported claims version"));
    }
    let publisher = trusted
        .iter()
        .find(|p| p.id() == claims.iss)
        .ok_or(KeyError::UnknownPublisher)?;
    let signed_len = prefix.len() + claims_b64.len();
    publisher
        .0
        .verify(
            &key.as_bytes()[..signed_len],
            &Signature::from_bytes(&sig_bytes),
        )
        .map_err(|_| KeyError::BadSignature)?;
    if claims.is_public() != (prefix == PUBLIC_PREFIX) {
        return Err(KeyError::KindMismatch);
    }
    Ok(claims)
}

/// Refuses claims past their expiry at `now` (UNIX seconds).
pub fn check_expiry(claims: &KeyClaims, now: i64) -> Result<(), KeyError> {
    match claims.exp {
        Some(exp) if now >= exp => Err(KeyError::Expired(exp)),
        _ => Ok(()),
    }
}

/// Decodes the claims of a key without verifying it (for `waymark keys inspect`).
pub fn decode_unverified(key: &str) -> Result<KeyClaims, KeyError> {
    let rest = key
        .strip_prefix(PUBLIC_PREFIX)
        .or_else(|| key.strip_prefix(PRIVATE_PREFIX))
        .ok_or(KeyError::Malformed("unknown prefix"))?;
    let claims_b64 = rest.split('.').next().unwrap_or_default();
    let json = URL_SAFE_NO_PAD
        .decode(claims_b64)
        .map_err(|_| KeyError::Malformed("claims are not base64url"))?;
    serde_json::from_slice(&json).map_err(|_| KeyError::Malformed("claims do not parse"))
}

fn decode_b64_any(s: &str) -> Option<Vec<u8>> {
    STANDARD
        .decode(s)
        .ok()
        .or_else(|| URL_SAFE_NO_PAD.decode(s.trim_end_matches('=')).ok())
}

fn random_hex(bytes: usize) -> Result<String, Error> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(|e| Error::KeyMaterial(format!("random: {e}")))?;
    Ok(hex(&buf))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn private_claims() -> KeyClaims {
        KeyClaims::new(KeyScope::Private {
            write: true,
            restriction: PrivateRestriction::None,
        })
    }

    #[test]
    fn issue_and_verify_round_trip() {
        let p = Publisher::generate().unwrap();
        let claims = private_claims();
        let key = p.issue(&claims).unwrap();
        assert!(key.starts_with(PRIVATE_PREFIX));
        assert!(key.len() > 100, "keys are long generated strings");
        let got = verify(&key, &[p.verifying()]).unwrap();
        assert_eq!(got, claims.with_issuer(&p.id()));
    }

    #[test]
    fn every_flipped_character_is_refused() {
        let p = Publisher::generate().unwrap();
        let key = p.issue(&private_claims()).unwrap();
        let bytes = key.as_bytes();
        for i in 0..bytes.len() {
            let mut altered = bytes.to_vec();
            altered[i] = if altered[i] == b'A' { b'B' } else { b'A' };
            let altered = String::from_utf8(altered).unwrap();
            if altered == key {
                continue;
            }
            assert!(
                verify(&altered, &[p.verifying()]).is_err(),
                "altered at {i} still verified"
            );
        }
    }

    #[test]
    fn truncated_keys_are_malformed_or_bad() {
        let p = Publisher::generate().unwrap();
        let key = p.issue(&private_claims()).unwrap();
        for cut in [0, 3, 7, 20, key.len() / 2, key.len() - 1] {
            assert!(
                verify(&key[..cut], &[p.verifying()]).is_err(),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn untrusted_publisher_and_swapped_prefix_are_refused() {
        let p = Publisher::generate().unwrap();
        let other = Publisher::generate().unwrap();
        let key = p.issue(&private_claims()).unwrap();
        assert_eq!(
            verify(&key, &[other.verifying()]),
            Err(KeyError::UnknownPublisher)
        );
        let swapped = key.replacen(PRIVATE_PREFIX, PUBLIC_PREFIX, 1);
        assert_eq!(
            verify(&swapped, &[p.verifying()]),
            Err(KeyError::BadSignature)
        );
    }

    #[test]
    fn a_forged_claim_with_a_reused_signature_fails() {
        let p = Publisher::generate().unwrap();
        let key = p.issue(&private_claims()).unwrap();
        let (_, sig) = key.rsplit_once('.').unwrap();
        let mut forged = private_claims().with_issuer(&p.id());
        forged.quota = Some(1);
        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&forged).unwrap());
        let forged_key = format!("{PRIVATE_PREFIX}{body}.{sig}");
        assert_eq!(
            verify(&forged_key, &[p.verifying()]),
            Err(KeyError::BadSignature)
        );
    }

    #[test]
    fn expiry() {
        let mut c = private_claims();
        c.exp = Some(100);
        assert_eq!(check_expiry(&c, 99), Ok(()));
        assert_eq!(check_expiry(&c, 100), Err(KeyError::Expired(100)));
    }

    #[test]
    fn rules_checked_before_signing() {
        let p = Publisher::generate().unwrap();
        let c = KeyClaims::new(KeyScope::Public(PublicRestrictions::default()));
        assert!(p.issue(&c).is_err(), "public key without restriction");
        let c = KeyClaims::new(KeyScope::Private {
            write: false,
            restriction: PrivateRestriction::Ios { bundle_ids: vec![] },
        });
        assert!(p.issue(&c).is_err());
        let c = KeyClaims::new(KeyScope::Public(PublicRestrictions {
            domains: vec!["https://example.com/path".into()],
            ips: vec![],
        }));
        assert!(p.issue(&c).is_err(), "domain with protocol");
    }

    #[test]
    fn publisher_file_round_trip() {
        let p = Publisher::generate().unwrap();
        let f = p.to_file();
        let q = Publisher::from_file(&f).unwrap();
        assert_eq!(p.id(), q.id());
        assert_eq!(PublisherKey::parse(&f.public_key).unwrap(), p.verifying());
        let mut bad = f.clone();
        bad.public_key = Publisher::generate().unwrap().verifying().encode();
        assert!(Publisher::from_file(&bad).is_err());
    }
}
