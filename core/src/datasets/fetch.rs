//! The `fetch` step of an import run: the dataset's `url` (`file:///`, `http://`, `https://`)
//! streamed to a file of the run, resumable (an interrupted HTTP download continues with a
//! `Range` request, after a dropped connection and after a restart of the engine), within a
//! size limit, and stoppable between two chunks.
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::packs::{parse_content_range, percent_decode};

/// Attempts of an HTTP download (the first and the resumptions after a dropped connection).
const ATTEMPTS: u32 = 4;

/// What the fetch step got.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The downloaded file.
    pub path: PathBuf,
    /// Its size.
    pub bytes: u64,
    /// File name of the url (its extension hints at the format).
    pub name_hint: Option<String>,
    /// `Content-Type` of the answer, when HTTP gave one.
    pub content_type: Option<String>,
    /// Bytes that were already there from an interrupted attempt.
    pub resumed_from: u64,
}

/// Why the fetch step failed: each message says what to fix.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The url is not one Waymark fetches.
    #[error("unsupported url {0}: give a file:///, http:// or https:// url of a file")]
    BadUrl(String),
    /// Nothing at the url.
    #[error("nothing found at {0}: check the url")]
    NotFound(String),
    /// The server refused.
    #[error("{url} answered HTTP {status}")]
    Http {
        /// The url.
        url: String,
        /// The status.
        status: u16,
    },
    /// The connection failed.
    #[error("downloading {url} failed: {message}")]
    Network {
        /// The url.
        url: String,
        /// What happened.
        message: String,
    },
    /// Over the size limit.
    #[error("the data is larger than the limit of {limit} bytes")]
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// The run was stopped (a newer run or a deletion).
    #[error("stopped")]
    Cancelled,
    /// Local file trouble (the disk is full, the file is unreadable).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        source: io::Error,
    },
}

fn io_err(context: impl Into<String>) -> impl FnOnce(io::Error) -> FetchError {
    let context = context.into();
    move |source| FetchError::Io { context, source }
}

/// The last path segment of `url`, without query or fragment.
pub(super) fn name_hint(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let name = path.rsplit('/').next()?;
    (!name.is_empty()).then(|| name.to_owned())
}

/// Copies `reader` to `out` in chunks, up to `limit` bytes in all (`done` already there),
/// checking `cancel` between chunks. Returns the bytes copied.
fn copy_limited(
    reader: &mut dyn Read,
    out: &mut File,
    done: u64,
    limit: u64,
    cancel: &AtomicBool,
) -> Result<u64, CopyError> {
    let mut buf = vec![0u8; 256 * 1024];
    let mut copied = 0u64;
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(CopyError::Fetch(FetchError::Cancelled));
        }
        let n = match reader.read(&mut buf) {
            Ok(0) => return Ok(copied),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Read(e, copied)),
        };
        if done + copied + n as u64 > limit {
            return Err(CopyError::Fetch(FetchError::TooLarge { limit }));
        }
        out.write_all(&buf[..n])
            .map_err(|e| CopyError::Fetch(io_err("writing the download")(e)))?;
        copied += n as u64;
    }
}

enum CopyError {
    /// Reading the source failed after `1` bytes (a dropped connection: resumable).
    Read(io::Error, u64),
    Fetch(FetchError),
}

/// Fetches `url` to `dest` (through `dest` + `.part`, which a later call resumes).
pub fn fetch(
    agent: &ureq::Agent,
    url: &str,
    dest: &Path,
    limit: u64,
    cancel: &AtomicBool,
) -> Result<Fetched, FetchError> {
    let part = dest.with_extension("part");
    let lower = url.to_ascii_lowercase();
    let (content_type, resumed_from) = if lower.starts_with("file://") {
        let path = url
            .get("file://".len()..)
            .and_then(|p| p.strip_prefix("localhost").or(Some(p)))
            .filter(|p| p.starts_with('/'))
            .and_then(percent_decode)
            .ok_or_else(|| FetchError::BadUrl(url.to_owned()))?;
        let mut src = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(FetchError::NotFound(url.to_owned()));
            }
            Err(e) => return Err(io_err(format!("opening {path}"))(e)),
        };
        let meta = src.metadata().map_err(io_err(format!("reading {path}")))?;
        if !meta.is_file() {
            return Err(FetchError::NotFound(url.to_owned()));
        }
        if meta.len() > limit {
            return Err(FetchError::TooLarge { limit });
        }
        let mut out = File::create(&part).map_err(io_err("creating the download"))?;
        copy_limited(&mut src, &mut out, 0, limit, cancel).map_err(|e| match e {
            CopyError::Read(e, _) => io_err(format!("reading {path}"))(e),
            CopyError::Fetch(e) => e,
        })?;
        out.sync_all().map_err(io_err("writing the download"))?;
        (None, 0)
    } else if lower.starts_with("http://") || lower.starts_with("https://") {
        http(agent, url, &part, limit, cancel)?
    } else {
        return Err(FetchError::BadUrl(url.to_owned()));
    };
    fs::rename(&part, dest).map_err(io_err("keeping the download"))?;
    let bytes = fs::metadata(dest)
        .map_err(io_err("reading the download"))?
        .len();
    Ok(Fetched {
        path: dest.to_path_buf(),
        bytes,
        name_hint: name_hint(url),
        content_type,
        resumed_from,
    })
}

/// Downloads `url` into `part`, resuming what `part` holds. Returns the content type and the
/// bytes that were already there.
fn http(
    agent: &ureq::Agent,
    url: &str,
    part: &Path,
    limit: u64,
    cancel: &AtomicBool,
) -> Result<(Option<String>, u64), FetchError> {
    let initial = fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    let mut last_error = String::new();
    for _ in 0..ATTEMPTS {
        if cancel.load(Ordering::Relaxed) {
            return Err(FetchError::Cancelled);
        }
        let have = fs::metadata(part).map(|m| m.len()).unwrap_or(0);
        let mut req = agent.get(url);
        if have > 0 {
            req = req.header("Range", format!("bytes={have}-"));
        }
        let resp = match req.call() {
            Ok(r) => r,
            Err(e) => {
                last_error = e.to_string();
                continue;
            }
        };
        let status = resp.status().as_u16();
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let content_type = header("content-type");
        let length: Option<u64> = header("content-length").and_then(|v| v.parse().ok());
        let start = match status {
            200 => 0,
            206 => match header("content-range").and_then(|v| parse_content_range(&v)) {
                Some((start, _)) if start == have => have,
                _ => 0,
            },
            416 if have > 0 => return Ok((content_type, initial)),
            404 | 410 => return Err(FetchError::NotFound(url.to_owned())),
            _ => {
                return Err(FetchError::Http {
                    url: url.to_owned(),
                    status,
                });
            }
        };
        if status == 206 && start == 0 && have > 0 {
            // A range we did not ask for: start over without one.
            let _ = fs::remove_file(part);
            continue;
        }
        if let Some(len) = length
            && start + len > limit
        {
            return Err(FetchError::TooLarge { limit });
        }
        let mut out = if start == 0 {
            File::create(part)
        } else {
            OpenOptions::new().append(true).open(part)
        }
        .map_err(io_err("opening the download"))?;
        let mut reader = resp.into_body().into_reader();
        match copy_limited(&mut reader, &mut out, start, limit, cancel) {
            Ok(copied) => {
                out.sync_all().map_err(io_err("writing the download"))?;
                if let Some(len) = length
                    && copied < len
                {
                    last_error = format!("the connection closed after {copied} of {len} bytes");
                    continue;
                }
                return Ok((content_type, if start == 0 { 0 } else { initial }));
            }
            Err(CopyError::Read(e, copied)) => {
                let _ = out.sync_all();
                last_error = format!("the connection failed after {copied} bytes: {e}");
            }
            Err(CopyError::Fetch(e)) => return Err(e),
        }
    }
    Err(FetchError::Network {
        url: url.to_owned(),
        message: last_error,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_copy_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("in put.csv");
        fs::write(&src, b"lat,lng\n1,2\n").unwrap();
        let url = format!("file://{}", src.display()).replace(' ', "%20");
        let agent = crate::packs::new_agent();
        let cancel = AtomicBool::new(false);
        let got = fetch(&agent, &url, &dir.path().join("d.bin"), 100, &cancel).unwrap();
        assert_eq!(got.bytes, 12);
        assert_eq!(got.name_hint.as_deref(), Some("in%20put.csv"));
        let err = fetch(&agent, &url, &dir.path().join("e.bin"), 5, &cancel).unwrap_err();
        assert!(matches!(err, FetchError::TooLarge { limit: 5 }), "{err}");
        let err = fetch(
            &agent,
            "file:///nope/x.csv",
            &dir.path().join("f.bin"),
            5,
            &cancel,
        )
        .unwrap_err();
        assert!(matches!(err, FetchError::NotFound(_)), "{err}");
        let err = fetch(&agent, "ftp://x/y", &dir.path().join("g.bin"), 5, &cancel).unwrap_err();
        assert!(matches!(err, FetchError::BadUrl(_)), "{err}");
    }
}
