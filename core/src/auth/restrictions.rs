//! Matching callers against key restrictions: domains (by `Referer` or `Origin`), IP
//! addresses and blocks (by the connection address), and app identities (iOS bundle id,
//! Android package id + signing-certificate SHA-1).
//!
//! ```
//! use waymark_core::auth::restrictions::{domain_matches, normalize_sha1};
//! assert!(domain_matches("*.example.com", "maps.example.com"));
//! assert!(!domain_matches("*.example.com", "example.com"));
//! assert_eq!(
//!     normalize_sha1("aa:bb:cc:dd:ee:ff:00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd").unwrap(),
//!     "AABBCCDDEEFF00112233445566778899AABBCCDD"
//! );
//! ```
use std::net::IpAddr;

use ipnet::IpNet;

/// Why a restriction written by a key issuer (or a fingerprint sent by a caller) is refused.
/// The message says what to fix; it is shown as is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestrictionError {
    /// A domain restriction with a protocol, port, path or misplaced `*`.
    #[error(
        "domain restriction `{0}` must be a host name without protocol, port or path \
         (a leading `*.` or a lone `*` is allowed)"
    )]
    DomainShape(String),
    /// A domain restriction that is empty or starts or ends with `.`.
    #[error("domain restriction `{0}` is not a host name")]
    NotAHost(String),
    /// A SHA-1 certificate fingerprint that is not 40 hex digits.
    #[error(
        "`{0}` is not a sha-1 fingerprint: expected 40 hex digits, optionally separated by colons"
    )]
    Fingerprint(String),
}

/// Checks a domain restriction as written by the key issuer: no protocol, no path, no port,
/// optional leading `*.`, or a lone `*`.
pub fn validate_domain_pattern(pattern: &str) -> Result<(), RestrictionError> {
    if pattern == "*" {
        return Ok(());
    }
    let host = pattern.strip_prefix("*.").unwrap_or(pattern);
    if pattern.contains("://") || host.contains(['/', ':', '?', '#', '*', ' ']) {
        return Err(RestrictionError::DomainShape(pattern.to_string()));
    }
    if host.is_empty() || host.starts_with('.') || host.ends_with('.') {
        return Err(RestrictionError::NotAHost(pattern.to_string()));
    }
    Ok(())
}

/// Whether `host` (lower-case, no port) is allowed by `pattern`. `*.example.com` matches
/// `a.example.com` and `a.b.example.com` but not `example.com`; a lone `*` matches any host.
pub fn domain_matches(pattern: &str, host: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    match pattern.strip_prefix("*.") {
        Some(suffix) => {
            let (h, s) = (host.as_bytes(), suffix.as_bytes());
            h.len() > s.len() + 1
                && h[h.len() - s.len() - 1] == b'.'
                && h[h.len() - s.len()..].eq_ignore_ascii_case(s)
        }
        None => pattern.eq_ignore_ascii_case(host),
    }
}

/// The host of a `Referer` or `Origin` value (`https://a.example.com:8443/x` gives
/// `a.example.com`), lower-cased; `None` when it has no host (`null`, `file:`, garbage).
pub fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map(|(_, r)| r)?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split_once(']').map(|(h, _)| h)?
    } else {
        authority.split(':').next()?
    };
    if host.is_empty() {
        None
    } else {
        Some(host.to_ascii_lowercase())
    }
}

/// Whether `ip` is in one of `nets`; IPv4-mapped IPv6 addresses are compared as IPv4.
pub fn ip_allowed(nets: &[IpNet], ip: IpAddr) -> bool {
    let ip = canonical_ip(ip);
    nets.iter().any(|n| n.contains(&ip))
}

/// IPv4-mapped IPv6 (`::ffff:1.2.3.4`) to IPv4; other addresses unchanged.
pub fn canonical_ip(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    }
}

/// Normalizes a SHA-1 certificate fingerprint: colons, spaces and dashes removed, upper-case;
/// must then be exactly 40 hex digits.
pub fn normalize_sha1(fp: &str) -> Result<String, RestrictionError> {
    let hex: String = fp
        .chars()
        .filter(|c| !matches!(c, ':' | ' ' | '-'))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    if hex.len() == 40 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(hex)
    } else {
        Err(RestrictionError::Fingerprint(fp.to_string()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_domains() {
        assert!(domain_matches("*", "anything.org"));
        assert!(domain_matches("example.com", "example.com"));
        assert!(domain_matches("Example.COM", "example.com"));
        assert!(!domain_matches("example.com", "www.example.com"));
        assert!(domain_matches("*.example.com", "www.example.com"));
        assert!(domain_matches("*.example.com", "a.b.example.com"));
        assert!(!domain_matches("*.example.com", "example.com"));
        assert!(!domain_matches("*.example.com", "badexample.com"));
        assert!(!domain_matches("*.example.com", "example.com.evil.org"));
        assert!(!domain_matches("example.com", "example.com.evil.org"));
    }

    #[test]
    fn domain_patterns_are_validated() {
        for ok in [
            "*",
            "example.com",
            "*.example.com",
            "localhost",
            "127.0.0.1",
        ] {
            assert!(validate_domain_pattern(ok).is_ok(), "{ok}");
        }
        for bad in [
            "https://example.com",
            "example.com/path",
            "example.com:8080",
            "*example.com",
            "a.*.com",
            "",
            ".example.com",
        ] {
            assert!(validate_domain_pattern(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hosts_from_urls() {
        assert_eq!(
            url_host("https://Maps.Example.com:8443/a?b#c").as_deref(),
            Some("maps.example.com")
        );
        assert_eq!(
            url_host("http://user:pw@host.org/").as_deref(),
            Some("host.org")
        );
        assert_eq!(url_host("http://[::1]:8080/").as_deref(), Some("::1"));
        assert_eq!(
            url_host("capacitor://localhost").as_deref(),
            Some("localhost")
        );
        assert_eq!(url_host("null"), None);
        assert_eq!(url_host("file:///x"), None);
        assert_eq!(url_host("example.com"), None);
    }

    #[test]
    fn ip_blocks_and_mapped_addresses() {
        let nets: Vec<IpNet> = vec![
            "10.0.0.0/8".parse().unwrap(),
            "2001:db8::/32".parse().unwrap(),
        ];
        assert!(ip_allowed(&nets, "10.1.2.3".parse().unwrap()));
        assert!(ip_allowed(&nets, "::ffff:10.1.2.3".parse().unwrap()));
        assert!(!ip_allowed(&nets, "11.0.0.1".parse().unwrap()));
        assert!(ip_allowed(&nets, "2001:db8::5".parse().unwrap()));
        assert!(!ip_allowed(&nets, "2001:db9::5".parse().unwrap()));
        let single: Vec<IpNet> = vec!["192.0.2.7/32".parse().unwrap()];
        assert!(ip_allowed(&single, "192.0.2.7".parse().unwrap()));
        assert!(!ip_allowed(&single, "192.0.2.8".parse().unwrap()));
    }

    #[test]
    fn fingerprint_formats() {
        let want = "A1B2C3D4E5F60718293A4B5C6D7E8F9012345678";
        assert_eq!(normalize_sha1(want).unwrap(), want);
        assert_eq!(normalize_sha1(&want.to_lowercase()).unwrap(), want);
        let colons: Vec<String> = want
            .as_bytes()
            .chunks(2)
            .map(|c| String::from_utf8(c.to_vec()).unwrap())
            .collect();
        assert_eq!(normalize_sha1(&colons.join(":")).unwrap(), want);
        assert_eq!(
            normalize_sha1(&colons.join(":").to_lowercase()).unwrap(),
            want
        );
        assert!(normalize_sha1("A1B2").is_err());
        assert!(normalize_sha1(&want.replace('A', "G")).is_err());
    }
}
