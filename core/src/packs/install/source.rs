//! Where pack files come from: a `file://` directory or an `http(s)://` base URL, opened at an
//! offset (`Range` requests, with the answers a server may give instead).
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::Duration;

use super::{InstallError, MANIFEST_FILE};

/// Largest `manifest.json` fetched.
const MAX_MANIFEST_BYTES: u64 = 16 << 20;

/// The HTTP agent of a [`super::PackStore`]: statuses are answers, not errors.
pub(crate) fn new_agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .user_agent(concat!("waymark/", env!("CARGO_PKG_VERSION")))
        .build()
        .new_agent()
}

/// Where pack files come from.
pub(super) enum Source<'a> {
    Dir(PathBuf),
    Http {
        base: String,
        agent: &'a ureq::Agent,
    },
}

/// A file opened at an offset.
pub(super) enum Opened {
    /// Bytes from `start` (0 when the source restarts the file).
    Body {
        reader: Box<dyn Read>,
        start: u64,
        url: String,
    },
    /// The source has nothing past the offset (HTTP 416).
    NothingLeft,
}

impl<'a> Source<'a> {
    pub(super) fn parse(source: &str, agent: &'a ureq::Agent) -> Result<Self, InstallError> {
        let bad = || InstallError::BadSource(source.to_string());
        if let Some(rest) = source.strip_prefix("file://") {
            let rest = rest.strip_prefix("localhost").unwrap_or(rest);
            if !rest.starts_with('/') {
                return Err(bad());
            }
            let decoded = percent_decode(rest).ok_or_else(bad)?;
            // file:///C:/packs on Windows.
            let decoded = if cfg!(windows) && decoded.get(2..3) == Some(":") {
                decoded[1..].to_string()
            } else {
                decoded
            };
            return Ok(Source::Dir(PathBuf::from(decoded)));
        }
        let lower = source.to_ascii_lowercase();
        if (lower.starts_with("http://") || lower.starts_with("https://"))
            && !source.contains(['?', '#'])
        {
            let mut base = source.to_string();
            if !base.ends_with('/') {
                base.push('/');
            }
            return Ok(Source::Http { base, agent });
        }
        Err(bad())
    }

    pub(super) fn is_file(&self) -> bool {
        matches!(self, Source::Dir(_))
    }

    pub(super) fn location(&self, rel: &str) -> String {
        match self {
            Source::Dir(dir) => dir.join(rel).display().to_string(),
            Source::Http { base, .. } => {
                let encoded: Vec<String> = rel.split('/').map(percent_encode).collect();
                format!("{base}{}", encoded.join("/"))
            }
        }
    }

    pub(super) fn fetch_manifest(&self) -> Result<Vec<u8>, InstallError> {
        self.fetch_small(MANIFEST_FILE)
    }

    /// Fetches a small file (a manifest) whole; `SourceNotFound` when the source has none.
    pub(super) fn fetch_small(&self, rel: &str) -> Result<Vec<u8>, InstallError> {
        let url = self.location(rel);
        match self {
            Source::Dir(dir) => {
                let path = dir.join(rel);
                fs::read(&path).map_err(|e| {
                    if e.kind() == io::ErrorKind::NotFound {
                        InstallError::SourceNotFound {
                            location: url.clone(),
                        }
                    } else {
                        InstallError::io(&path)(e)
                    }
                })
            }
            Source::Http { agent, .. } => {
                let mut resp = agent.get(&url).call().map_err(|e| InstallError::Network {
                    url: url.clone(),
                    message: e.to_string(),
                })?;
                let status = resp.status().as_u16();
                if matches!(status, 404 | 410) {
                    return Err(InstallError::SourceNotFound { location: url });
                }
                if status != 200 {
                    return Err(InstallError::HttpStatus { url, status });
                }
                resp.body_mut()
                    .with_config()
                    .limit(MAX_MANIFEST_BYTES)
                    .read_to_vec()
                    .map_err(|e| InstallError::Network {
                        url,
                        message: e.to_string(),
                    })
            }
        }
    }

    /// Opens `rel` from byte `offset`; checks the source's size against `size` when known.
    pub(super) fn open(&self, rel: &str, offset: u64, size: u64) -> Result<Opened, InstallError> {
        let url = self.location(rel);
        let size_mismatch = |actual| InstallError::SizeMismatch {
            file: rel.to_string(),
            expected: size,
            actual,
        };
        let missing = || InstallError::MissingFile {
            file: rel.to_string(),
            location: url.clone(),
        };
        match self {
            Source::Dir(dir) => {
                let path = dir.join(rel);
                let mut file = match File::open(&path) {
                    Ok(f) => f,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(missing()),
                    Err(e) => return Err(InstallError::io(&path)(e)),
                };
                let meta = file.metadata().map_err(InstallError::io(&path))?;
                if !meta.is_file() {
                    return Err(missing());
                }
                if meta.len() != size {
                    return Err(size_mismatch(meta.len()));
                }
                file.seek(SeekFrom::Start(offset))
                    .map_err(InstallError::io(&path))?;
                Ok(Opened::Body {
                    reader: Box::new(file),
                    start: offset,
                    url: path.display().to_string(),
                })
            }
            Source::Http { agent, .. } => {
                let mut req = agent.get(&url);
                if offset > 0 {
                    req = req.header("Range", format!("bytes={offset}-"));
                }
                let resp = req.call().map_err(|e| InstallError::Network {
                    url: url.clone(),
                    message: e.to_string(),
                })?;
                let status = resp.status().as_u16();
                let header = |name: &str| {
                    resp.headers()
                        .get(name)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_string)
                };
                match status {
                    200 => {
                        if let Some(len) = header("content-length").and_then(|v| v.parse().ok())
                            && len != size
                        {
                            return Err(size_mismatch(len));
                        }
                        if offset > 0 {
                            tracing::info!(url = %url, "server ignored the range request; restarting the file");
                        }
                        Ok(Opened::Body {
                            reader: Box::new(resp.into_body().into_reader()),
                            start: 0,
                            url,
                        })
                    }
                    206 => {
                        let range = header("content-range").and_then(|v| parse_content_range(&v));
                        match range {
                            Some((start, total)) if start == offset => {
                                if let Some(total) = total
                                    && total != size
                                {
                                    return Err(size_mismatch(total));
                                }
                                Ok(Opened::Body {
                                    reader: Box::new(resp.into_body().into_reader()),
                                    start,
                                    url,
                                })
                            }
                            // A range we did not ask for: fetch the whole file instead.
                            _ if offset > 0 => self.open(rel, 0, size),
                            _ => Err(InstallError::Network {
                                url,
                                message: "the server sent a partial answer to a full request"
                                    .into(),
                            }),
                        }
                    }
                    416 => Ok(Opened::NothingLeft),
                    404 | 410 => Err(missing()),
                    _ => Err(InstallError::HttpStatus { url, status }),
                }
            }
        }
    }
}

/// `bytes START-END/TOTAL` (TOTAL may be `*`) → (START, TOTAL).
pub(crate) fn parse_content_range(v: &str) -> Option<(u64, Option<u64>)> {
    let rest = v.trim().strip_prefix("bytes")?.trim_start();
    let (range, total) = rest.split_once('/')?;
    let (start, _end) = range.split_once('-')?;
    let total = match total.trim() {
        "*" => None,
        t => Some(t.parse().ok()?),
    };
    Some((start.trim().parse().ok()?, total))
}

/// Percent-encodes one path segment of a URL.
fn percent_encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes; `None` when one is invalid or the result is not UTF-8.
pub(crate) fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    use std::path::Path;

    #[test]
    fn content_range_parses() {
        assert_eq!(
            parse_content_range("bytes 10-99/100"),
            Some((10, Some(100)))
        );
        assert_eq!(parse_content_range("bytes 0-9/*"), Some((0, None)));
        assert_eq!(parse_content_range("bytes */100"), None);
        assert_eq!(parse_content_range("items 0-1/2"), None);
    }

    #[test]
    fn urls_and_paths_round_trip() {
        assert_eq!(percent_encode("a b%.sqlite"), "a%20b%25.sqlite");
        assert_eq!(percent_decode("/tmp/a%20b").as_deref(), Some("/tmp/a b"));
        assert_eq!(percent_decode("/tmp/%zz"), None);
        let agent = new_agent();
        assert!(matches!(
            Source::parse("file:///tmp/x%20y", &agent),
            Ok(Source::Dir(p)) if p == Path::new("/tmp/x y")
        ));
        match Source::parse("http://127.0.0.1:9/packs/a", &agent).unwrap() {
            Source::Http { base, .. } => assert_eq!(base, "http://127.0.0.1:9/packs/a/"),
            Source::Dir(_) => panic!("expected http"),
        }
        for bad in [
            "ftp://x/y",
            "file://relative",
            "/abs/path",
            "http://x/y?q=1",
        ] {
            assert!(
                matches!(Source::parse(bad, &agent), Err(InstallError::BadSource(_))),
                "{bad}"
            );
        }
    }
}
