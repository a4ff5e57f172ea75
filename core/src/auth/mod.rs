//! Authentication and admission: which credential a request carries, whether the key is
//! genuine, whether the caller meets the key's restrictions, rate limits and free quota.
//!
//! Flow of [`Authorizer::authorize`], in this order (each step has its own status):
//! 1. pick the credential by the endpoint's [`KeySet`] — none, several, or one sent in a form
//!    the endpoint does not take: 401;
//! 2. verify the key (Ed25519, trusted publisher; verified keys are cached) and its expiry, and
//!    that its kind fits the slot (a public key in `private_key` or a private key in `key`):
//!    401;
//! 3. restrictions (Referer / Origin domains, connection IP, iOS bundle id, Android package +
//!    signing SHA-1), write permission, enabled API group: 403;
//! 4. rate limit of the endpoint: 429.
//!
//! The result is a [`Grant`], which operations take; they charge the free quota
//! ([`Authorizer::charge`], 402) once the request has passed validation.
//!
//! ```
//! use waymark_core::auth::{Authorizer, Caller, RateLimitMode};
//! use waymark_core::auth::keys::{Publisher, KeyClaims, KeyScope, PrivateRestriction};
//! use waymark_core::endpoint::Endpoint;
//! let publisher = Publisher::generate().unwrap();
//! let key = publisher.issue(&KeyClaims::new(KeyScope::Private {
//!     write: false, restriction: PrivateRestriction::None })).unwrap();
//! let dir = tempfile::tempdir().unwrap();
//! let auth = Authorizer::new(vec![publisher.verifying()], &dir.path().join("s.sqlite"),
//!     RateLimitMode::Spec).unwrap();
//! let caller = Caller { api_key_header: Some(key), ..Caller::default() };
//! assert!(auth.authorize(&caller, Endpoint::Timezone).is_ok());
//! assert_eq!(auth.authorize(&caller, Endpoint::DatasetList).unwrap_err().code,
//!     waymark_core::error::ErrorCode::Forbidden); // needs write permission
//! ```
pub mod keys;
pub mod quota;
pub mod ratelimit;
pub mod restrictions;

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use parking_lot::RwLock;

use crate::endpoint::{Endpoint, KeySet};
use crate::error::{ApiError, ErrorCode, Result};
use keys::{KeyClaims, KeyError, KeyScope, PrivateRestriction, PublisherKey};
use quota::QuotaStore;
use ratelimit::RateLimiter;

/// Most verified (or refused) key strings remembered; the cache is cleared when full.
const KEY_CACHE_CAPACITY: usize = 4096;

/// Verified keys and refusals by key string.
type KeyCache = HashMap<Box<str>, Result<Arc<VerifiedKey>, KeyError>>;

/// Who is calling: the credentials as sent, and what the restrictions are checked against.
///
/// The local server fills it from the query string, headers and connection; the native SDK
/// from its configuration and the platform (the app identity comes from the OS, not the app).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// `key` query parameter (public keys).
    pub key: Option<String>,
    /// `private_key` query parameter.
    pub private_key: Option<String>,
    /// `X-Api-Key` header (private keys).
    pub api_key_header: Option<String>,
    /// `Referer` header.
    pub referer: Option<String>,
    /// `Origin` header (web views and fetch() send it; used when there is no Referer).
    pub origin: Option<String>,
    /// Address of the connection.
    pub peer_ip: Option<IpAddr>,
    /// App identity for restricted private keys.
    pub app: AppIdentity,
}

/// The identity of the calling app (`X-iOS-Identifier`, `X-Android-Identifier`,
/// `X-Android-Fingerprint` on HTTP; the platform APIs in the native SDK).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct AppIdentity {
    /// iOS bundle id.
    pub ios_bundle_id: Option<String>,
    /// Android package id.
    pub android_package: Option<String>,
    /// SHA-1 of the Android signing certificate, any case, colons optional.
    pub android_cert_sha1: Option<String>,
}

/// Whether rate limits are enforced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RateLimitMode {
    /// The spec's limits per key and endpoint (default).
    #[default]
    Spec,
    /// No rate limits (local load tests, trusted single-app deployments).
    Off,
}

/// A key that verified, with derived values computed once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedKey {
    /// The claims.
    pub claims: KeyClaims,
    /// Key id as a number (rate-limit and quota buckets).
    pub kid: u128,
}

/// Proof that a request passed authentication, restrictions and rate limit for one endpoint.
#[derive(Debug, Clone)]
pub struct Grant {
    /// The endpoint it was granted for.
    pub endpoint: Endpoint,
    /// The key.
    pub key: Arc<VerifiedKey>,
    /// Connection address of the caller.
    pub peer_ip: Option<IpAddr>,
    /// Which slot the key came in.
    pub via: CredentialSlot,
}

impl Grant {
    /// Whether the request was made with a private key.
    pub fn is_private(&self) -> bool {
        !self.key.claims.is_public()
    }
}

/// Where a credential was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialSlot {
    /// `key` query parameter.
    KeyParam,
    /// `private_key` query parameter.
    PrivateKeyParam,
    /// `X-Api-Key` header.
    Header,
    /// The key the native SDK was opened with (no HTTP request: every key set takes it).
    Native,
}

impl CredentialSlot {
    fn label(self) -> &'static str {
        match self {
            CredentialSlot::KeyParam => "the `key` query parameter",
            CredentialSlot::PrivateKeyParam => "the `private_key` query parameter",
            CredentialSlot::Header => "the `X-Api-Key` header",
            CredentialSlot::Native => "the native sdk's key",
        }
    }
}

/// Verifies keys, checks restrictions, limits and quotas.
#[derive(Debug)]
pub struct Authorizer {
    trusted: Vec<PublisherKey>,
    cache: RwLock<KeyCache>,
    limiter: RateLimiter,
    mode: RateLimitMode,
    quota: QuotaStore,
}

fn accepted_slots(set: KeySet) -> &'static [CredentialSlot] {
    use CredentialSlot::*;
    match set {
        KeySet::K1 | KeySet::K2 => &[KeyParam, PrivateKeyParam, Header],
        KeySet::K3 => &[PrivateKeyParam, Header],
        KeySet::ZonesUpdate => &[PrivateKeyParam],
        KeySet::StoresBounds => &[KeyParam, PrivateKeyParam],
    }
}

fn describe_slots(set: KeySet) -> &'static str {
    match set {
        KeySet::K1 | KeySet::K2 => {
            "send a public key in `key`, or a private key in `private_key` or the `X-Api-Key` header"
        }
        KeySet::K3 => {
            "send a private key with write permission in `private_key` or the `X-Api-Key` header"
        }
        KeySet::ZonesUpdate => {
            "send a private key with write permission in the `private_key` query parameter"
        }
        KeySet::StoresBounds => "send a public key in `key` or a private key in `private_key`",
    }
}

impl Authorizer {
    /// An authorizer trusting `trusted` publishers, keeping quotas in the SQLite file `state`.
    pub fn new(trusted: Vec<PublisherKey>, state: &Path, mode: RateLimitMode) -> Result<Self> {
        Ok(Authorizer {
            trusted,
            cache: RwLock::new(HashMap::new()),
            limiter: RateLimiter::default(),
            mode,
            quota: QuotaStore::open(state)?,
        })
    }

    /// Verifies a key string (cached, including refusals).
    pub fn verify(&self, key: &str) -> Result<Arc<VerifiedKey>, KeyError> {
        if let Some(hit) = self.cache.read().get(key) {
            return hit.clone();
        }
        let result = keys::verify(key, &self.trusted).and_then(|claims| {
            let kid = u128::from_str_radix(&claims.kid[..32.min(claims.kid.len())], 16)
                .map_err(|_| KeyError::Malformed("key id is not hex"))?;
            Ok(Arc::new(VerifiedKey { claims, kid }))
        });
        let mut cache = self.cache.write();
        if cache.len() >= KEY_CACHE_CAPACITY {
            cache.clear();
        }
        cache.insert(key.into(), result.clone());
        result
    }

    /// Authenticates `caller` for `endpoint` and admits it under the rate limit.
    pub fn authorize(&self, caller: &Caller, endpoint: Endpoint) -> Result<Grant, ApiError> {
        self.authorize_at(
            caller,
            endpoint,
            chrono::Utc::now().timestamp(),
            Instant::now(),
        )
    }

    /// Verifies the key of the native SDK: it must be a private key of a trusted publisher
    /// (public keys are for web pages and are refused here, 401).
    pub fn verify_native_key(&self, key: &str) -> Result<Arc<VerifiedKey>, ApiError> {
        let verified = self
            .verify(key)
            .map_err(|e| ApiError::unauthenticated(e.to_string()))?;
        if verified.claims.is_public() {
            return Err(ApiError::unauthenticated(
                "a public key cannot be used by the native sdk: public keys are for web pages; \
                 open waymark with a private key (`wm_prv_...`), restricted to your app's \
                 bundle id or package id and signing certificate",
            ));
        }
        Ok(verified)
    }

    /// Authorizes a call of the native SDK: `key` must pass [`Authorizer::verify_native_key`];
    /// its app restrictions are checked against `app`, which the platform wrapper took from
    /// the OS (Android `PackageManager`, iOS `Bundle.main`). The call has no connection
    /// address, so IP-restricted keys are refused.
    pub fn authorize_native(
        &self,
        key: &str,
        app: &AppIdentity,
        endpoint: Endpoint,
    ) -> Result<Grant, ApiError> {
        let verified = self.verify_native_key(key)?;
        let caller = Caller {
            app: app.clone(),
            ..Caller::default()
        };
        self.admit_key(
            verified,
            CredentialSlot::Native,
            &caller,
            endpoint,
            chrono::Utc::now().timestamp(),
            Instant::now(),
        )
    }

    /// As [`Authorizer::authorize`] at given wall-clock (UNIX seconds) and monotonic times.
    pub fn authorize_at(
        &self,
        caller: &Caller,
        endpoint: Endpoint,
        unix_now: i64,
        now: Instant,
    ) -> Result<Grant, ApiError> {
        let set = endpoint.key_set();
        let (slot, key_str) = pick_credential(caller, set)?;
        let key = self
            .verify(key_str)
            .map_err(|e| ApiError::unauthenticated(e.to_string()))?;
        self.admit_key(key, slot, caller, endpoint, unix_now, now)
    }

    /// What follows the verification of a key found in `slot`: expiry, the slot's rules,
    /// restrictions, permissions, the api group and the rate limit.
    fn admit_key(
        &self,
        key: Arc<VerifiedKey>,
        slot: CredentialSlot,
        caller: &Caller,
        endpoint: Endpoint,
        unix_now: i64,
        now: Instant,
    ) -> Result<Grant, ApiError> {
        let set = endpoint.key_set();
        keys::check_expiry(&key.claims, unix_now)
            .map_err(|e| ApiError::unauthenticated(e.to_string()))?;
        match (key.claims.is_public(), slot) {
            (true, CredentialSlot::PrivateKeyParam | CredentialSlot::Header) => {
                return Err(ApiError::unauthenticated(format!(
                    "a public key was sent in {}; public keys go in the `key` query parameter",
                    slot.label()
                )));
            }
            (false, CredentialSlot::KeyParam) => {
                return Err(ApiError::unauthenticated(
                    "a private key was sent in the `key` query parameter; send it in `private_key` \
                     or the `X-Api-Key` header, and never expose private keys in web pages",
                ));
            }
            _ => {}
        }
        check_restrictions(&key.claims, caller, set)?;
        if matches!(set, KeySet::K3 | KeySet::ZonesUpdate) && !key.claims.can_write() {
            return Err(ApiError::forbidden(
                "permission missing: this operation needs a private key with write permission",
            ));
        }
        let group = endpoint.group();
        if !key.claims.apis.contains(&group) {
            return Err(ApiError::forbidden(format!(
                "the {} api is not enabled for this project",
                group.as_str()
            )));
        }
        if self.mode == RateLimitMode::Spec
            && let Err(wait) = self.limiter.admit(key.kid, endpoint, now)
        {
            let limit = endpoint.rate_limit();
            let mut err = ApiError::new(
                ErrorCode::RateLimited,
                format!(
                    "the limit of {} for {} {} is exceeded; retry in {} ms",
                    limit.describe(),
                    endpoint.method().as_str(),
                    endpoint.path(),
                    wait.as_millis().max(1)
                ),
            );
            err.retry_after = Some(wait);
            return Err(err);
        }
        Ok(Grant {
            endpoint,
            key,
            peer_ip: caller.peer_ip,
            via: slot,
        })
    }

    /// Charges one request to the grant's free quota: 402 when it is used up.
    pub fn charge(&self, grant: &Grant) -> Result<(), ApiError> {
        let Some(quota) = grant.key.claims.quota else {
            return Ok(());
        };
        match self.quota.charge(grant.key.kid, quota)? {
            Ok(()) => Ok(()),
            Err(q) => Err(ApiError::new(
                ErrorCode::QuotaExhausted,
                format!("the free quota of {q} requests of this key is used up"),
            )),
        }
    }

    /// Requests counted against a key's quota.
    pub fn quota_used(&self, kid: u128) -> Result<u64> {
        self.quota.used(kid)
    }

    /// Writes quota counters now.
    pub fn flush(&self) -> Result<()> {
        self.quota.flush()
    }

    /// Whether a browser page from `origin` may read responses made with the public `key`
    /// (CORS): the origin's host must match one of the key's domain restrictions.
    pub fn cors_allows(&self, key: &str, origin: &str) -> bool {
        let Ok(key) = self.verify(key) else {
            return false;
        };
        let KeyScope::Public(r) = &key.claims.scope else {
            return false;
        };
        restrictions::url_host(origin).is_some_and(|host| {
            r.domains
                .iter()
                .any(|d| restrictions::domain_matches(d, &host))
        })
    }
}

fn pick_credential(caller: &Caller, set: KeySet) -> Result<(CredentialSlot, &str), ApiError> {
    let present: Vec<(CredentialSlot, &str)> = [
        (CredentialSlot::KeyParam, caller.key.as_deref()),
        (
            CredentialSlot::PrivateKeyParam,
            caller.private_key.as_deref(),
        ),
        (CredentialSlot::Header, caller.api_key_header.as_deref()),
    ]
    .into_iter()
    .filter_map(|(slot, v)| v.map(|v| (slot, v)))
    .collect();
    match present.as_slice() {
        [] => Err(ApiError::unauthenticated(format!(
            "unable to locate credentials: {}",
            describe_slots(set)
        ))),
        [(slot, value)] => {
            if !accepted_slots(set).contains(slot) {
                return Err(ApiError::unauthenticated(format!(
                    "this operation does not take a key in {}: {}",
                    slot.label(),
                    describe_slots(set)
                )));
            }
            if value.trim().is_empty() {
                return Err(ApiError::unauthenticated(format!(
                    "{} is empty: use a valid key",
                    slot.label()
                )));
            }
            Ok((*slot, value))
        }
        _ => Err(ApiError::unauthenticated(format!(
            "several credentials were sent ({}); send exactly one key",
            present
                .iter()
                .map(|(s, _)| s.label())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

const RESTRICTION_HINT: &str = "check the key's domain restrictions or the referer";

fn check_restrictions(claims: &KeyClaims, caller: &Caller, set: KeySet) -> Result<(), ApiError> {
    match &claims.scope {
        KeyScope::Public(r) => {
            let page = caller.referer.as_deref().or(caller.origin.as_deref());
            let ip_ok = caller
                .peer_ip
                .is_some_and(|ip| restrictions::ip_allowed(&r.ips, ip));
            match page {
                None => {
                    let referer_required = matches!(set, KeySet::K1 | KeySet::StoresBounds);
                    if referer_required {
                        return Err(ApiError::forbidden(format!(
                            "permission missing: a public key needs a `Referer` header matching its \
                             domain restrictions; {RESTRICTION_HINT}"
                        )));
                    }
                    if !r.ips.is_empty() && !ip_ok {
                        return Err(ApiError::forbidden(format!(
                            "permission missing: the caller's address is not in the key's ip \
                             restrictions; {RESTRICTION_HINT}"
                        )));
                    }
                    Ok(())
                }
                Some(page) => {
                    let host = restrictions::url_host(page);
                    let domain_ok = host.as_deref().is_some_and(|h| {
                        r.domains.iter().any(|d| restrictions::domain_matches(d, h))
                    });
                    if domain_ok || ip_ok {
                        Ok(())
                    } else {
                        Err(ApiError::forbidden(format!(
                            "permission missing: the referer `{page}` does not match the key's \
                             restrictions; {RESTRICTION_HINT}"
                        )))
                    }
                }
            }
        }
        KeyScope::Private { restriction, .. } => check_private(restriction, caller),
    }
}

fn check_private(restriction: &PrivateRestriction, caller: &Caller) -> Result<(), ApiError> {
    match restriction {
        PrivateRestriction::None => Ok(()),
        PrivateRestriction::Ios { bundle_ids } => {
            let Some(id) = caller.app.ios_bundle_id.as_deref() else {
                return Err(ApiError::forbidden(
                    "permission missing: this key is restricted to ios apps; the bundle id \
                     (`X-iOS-Identifier`) is missing",
                ));
            };
            if bundle_ids.iter().any(|b| b == id) {
                Ok(())
            } else {
                Err(ApiError::forbidden(format!(
                    "permission missing: the ios bundle id `{id}` is not allowed by this key"
                )))
            }
        }
        PrivateRestriction::Android { apps } => {
            let (Some(package), Some(fp)) = (
                caller.app.android_package.as_deref(),
                caller.app.android_cert_sha1.as_deref(),
            ) else {
                return Err(ApiError::forbidden(
                    "permission missing: this key is restricted to android apps; the package id \
                     (`X-Android-Identifier`) and signing-certificate sha-1 \
                     (`X-Android-Fingerprint`) are both required",
                ));
            };
            let fp = restrictions::normalize_sha1(fp)
                .map_err(|e| ApiError::forbidden(format!("permission missing: {e}")))?;
            if apps.iter().any(|a| a.package == package && a.sha1 == fp) {
                Ok(())
            } else {
                Err(ApiError::forbidden(format!(
                    "permission missing: the android app `{package}` with certificate {fp} is not \
                     allowed by this key"
                )))
            }
        }
        PrivateRestriction::Ip { ips } => match caller.peer_ip {
            Some(ip) if restrictions::ip_allowed(ips, ip) => Ok(()),
            Some(ip) => Err(ApiError::forbidden(format!(
                "permission missing: the address {ip} is not in the key's ip restrictions"
            ))),
            None => Err(ApiError::forbidden(
                "permission missing: this key is restricted by ip address and the caller's \
                 address is unknown",
            )),
        },
    }
}
