//! The `fetch` step of an import run: the dataset's `url` (`file:///`, `http://`, `https://`)
//! streamed to a file of the run, resumable (an interrupted HTTP download continues with a
//! `Range` request, after a dropped connection and after a restart of the engine), within a
//! size limit, and stoppable between two chunks.
//!
//! A download is resumed only with a validator: the `ETag` (a strong one) or else the
//! `Last-Modified` of the answer that started it, kept beside the partial file
//! (`<part>.validator`) and sent as `If-Range` with the `Range`. A server whose file changed
//! since answers the whole new file (200), which replaces the partial one; a 206 whose `ETag`
//! differs from the kept one is not trusted either. Without a validator the download starts
//! over: bytes of two versions of a file are never spliced together.
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

/// Told the bytes of the file downloaded so far and the file's size when known, after each
/// chunk.
pub type Progress<'a> = &'a mut dyn FnMut(u64, Option<u64>);

/// Copies `reader` to `out` in chunks, up to `limit` bytes in all (`done` already there),
/// checking `cancel` between chunks and telling `progress` the bytes there after each (of
/// `total`). Returns the bytes copied.
fn copy_limited(
    reader: &mut dyn Read,
    out: &mut File,
    (done, total): (u64, Option<u64>),
    limit: u64,
    cancel: &AtomicBool,
    progress: Progress<'_>,
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
        progress(done + copied, total);
    }
}

enum CopyError {
    /// Reading the source failed after `1` bytes (a dropped connection: resumable).
    Read(io::Error, u64),
    Fetch(FetchError),
}

/// Fetches `url` to `dest` (through `dest` + `.part`, which a later call resumes), telling
/// `progress` how far it is.
pub fn fetch(
    agent: &ureq::Agent,
    url: &str,
    dest: &Path,
    limit: u64,
    cancel: &AtomicBool,
    progress: Progress<'_>,
) -> Result<Fetched, FetchError> {
    // A fragment (`#layer=...`) chooses inside the file: it is never part of what is fetched.
    let url = url.split('#').next().unwrap_or(url);
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
        copy_limited(
            &mut src,
            &mut out,
            (0, Some(meta.len())),
            limit,
            cancel,
            progress,
        )
        .map_err(|e| match e {
            CopyError::Read(e, _) => io_err(format!("reading {path}"))(e),
            CopyError::Fetch(e) => e,
        })?;
        out.sync_all().map_err(io_err("writing the download"))?;
        (None, 0)
    } else if lower.starts_with("http://") || lower.starts_with("https://") {
        http(agent, url, &part, limit, cancel, progress)?
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

/// What identifies the version of the file a partial download holds: a strong `ETag`, else
/// a `Last-Modified` date, as the answer that started the download gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Validator {
    ETag(String),
    LastModified(String),
}

impl Validator {
    /// The validator of an answer's headers, if it has one `If-Range` can use (a weak `ETag`
    /// cannot be).
    fn of(etag: Option<&str>, last_modified: Option<&str>) -> Option<Validator> {
        let etag = etag.map(str::trim).filter(|e| e.starts_with('"'));
        match (etag, last_modified.map(str::trim).filter(|l| !l.is_empty())) {
            (Some(e), _) => Some(Validator::ETag(e.to_owned())),
            (None, Some(l)) => Some(Validator::LastModified(l.to_owned())),
            (None, None) => None,
        }
    }

    /// The `If-Range` value.
    fn value(&self) -> &str {
        match self {
            Validator::ETag(v) | Validator::LastModified(v) => v,
        }
    }

    fn to_line(&self) -> String {
        match self {
            Validator::ETag(v) => format!("etag {v}"),
            Validator::LastModified(v) => format!("last-modified {v}"),
        }
    }

    fn from_line(line: &str) -> Option<Validator> {
        let (kind, v) = line.trim().split_once(' ')?;
        match kind {
            "etag" => Some(Validator::ETag(v.to_owned())),
            "last-modified" => Some(Validator::LastModified(v.to_owned())),
            _ => None,
        }
    }
}

/// Where the validator of `part` is kept.
fn validator_path(part: &Path) -> PathBuf {
    let mut name = part.as_os_str().to_owned();
    name.push(".validator");
    PathBuf::from(name)
}

/// The kept validator of `part`, when it has one.
fn read_validator(part: &Path) -> Option<Validator> {
    fs::read_to_string(validator_path(part))
        .ok()
        .and_then(|t| Validator::from_line(&t))
}

/// Keeps (or, with `None`, forgets) the validator of `part`, synced before any byte of the
/// download is written after it.
fn write_validator(part: &Path, v: Option<&Validator>) -> Result<(), FetchError> {
    let path = validator_path(part);
    match v {
        None => match fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                Err(io_err("forgetting the download's validator")(e))
            }
            _ => Ok(()),
        },
        Some(v) => {
            let mut f = File::create(&path).map_err(io_err("keeping the download's validator"))?;
            f.write_all(v.to_line().as_bytes())
                .and_then(|()| f.sync_all())
                .map_err(io_err("keeping the download's validator"))
        }
    }
}

/// Downloads `url` into `part`, resuming what `part` holds when its validator allows it.
/// Returns the content type and the bytes that were already there.
fn http(
    agent: &ureq::Agent,
    url: &str,
    part: &Path,
    limit: u64,
    cancel: &AtomicBool,
    progress: Progress<'_>,
) -> Result<(Option<String>, u64), FetchError> {
    // Bytes of an earlier attempt that nothing identifies cannot be resumed.
    let mut kept = read_validator(part);
    let mut initial = fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    if initial > 0 && kept.is_none() {
        fs::remove_file(part).map_err(io_err("discarding the partial download"))?;
        initial = 0;
    }
    let mut last_error = String::new();
    for _ in 0..ATTEMPTS {
        if cancel.load(Ordering::Relaxed) {
            return Err(FetchError::Cancelled);
        }
        let have = fs::metadata(part).map(|m| m.len()).unwrap_or(0);
        let mut req = agent.get(url);
        if have > 0
            && let Some(v) = &kept
        {
            req = req
                .header("Range", format!("bytes={have}-"))
                .header("If-Range", v.value());
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
        let validator = Validator::of(
            header("etag").as_deref(),
            header("last-modified").as_deref(),
        );
        let start = match status {
            200 => 0,
            206 => match header("content-range").and_then(|v| parse_content_range(&v)) {
                // The rest of the same file: the range asked for, and no other `ETag`.
                Some((start, _))
                    if start == have
                        && have > 0
                        && !matches!(
                            (&validator, &kept),
                            (Some(Validator::ETag(now)), Some(Validator::ETag(was))) if now != was
                        ) =>
                {
                    have
                }
                _ => 0,
            },
            416 if have > 0 => {
                // Nothing past what we have: complete only if the file is still the same.
                if validator.is_some() && validator == kept {
                    write_validator(part, None)?;
                    return Ok((content_type, initial));
                }
                let _ = fs::remove_file(part);
                kept = None;
                continue;
            }
            404 | 410 => return Err(FetchError::NotFound(url.to_owned())),
            _ => {
                return Err(FetchError::Http {
                    url: url.to_owned(),
                    status,
                });
            }
        };
        if status == 206 && start == 0 {
            // A range we did not ask for, or of another version: start over without one.
            let _ = fs::remove_file(part);
            write_validator(part, None)?;
            kept = None;
            continue;
        }
        if let Some(len) = length
            && start + len > limit
        {
            return Err(FetchError::TooLarge { limit });
        }
        if start == 0 {
            // A new download (or the source changed): its validator first, then its bytes.
            write_validator(part, validator.as_ref())?;
            kept = validator;
            initial = 0;
        }
        let mut out = if start == 0 {
            File::create(part)
        } else {
            OpenOptions::new().append(true).open(part)
        }
        .map_err(io_err("opening the download"))?;
        let mut reader = resp.into_body().into_reader();
        let total = length.map(|len| start + len);
        match copy_limited(
            &mut reader,
            &mut out,
            (start, total),
            limit,
            cancel,
            progress,
        ) {
            Ok(copied) => {
                out.sync_all().map_err(io_err("writing the download"))?;
                if let Some(len) = length
                    && copied < len
                {
                    last_error = format!("the connection closed after {copied} of {len} bytes");
                    continue;
                }
                write_validator(part, None)?;
                return Ok((content_type, initial));
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
    use std::net::TcpListener;
    use std::sync::{Arc, Mutex};

    #[test]
    fn file_urls_copy_within_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("in put.csv");
        fs::write(&src, b"lat,lng\n1,2\n").unwrap();
        let url = format!("file://{}", src.display()).replace(' ', "%20");
        let agent = crate::packs::new_agent();
        let cancel = AtomicBool::new(false);
        let got = fetch(
            &agent,
            &url,
            &dir.path().join("d.bin"),
            100,
            &cancel,
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(got.bytes, 12);
        assert_eq!(got.name_hint.as_deref(), Some("in%20put.csv"));
        let err = fetch(
            &agent,
            &url,
            &dir.path().join("e.bin"),
            5,
            &cancel,
            &mut |_, _| {},
        )
        .unwrap_err();
        assert!(matches!(err, FetchError::TooLarge { limit: 5 }), "{err}");
        let err = fetch(
            &agent,
            "file:///nope/x.csv",
            &dir.path().join("f.bin"),
            5,
            &cancel,
            &mut |_, _| {},
        )
        .unwrap_err();
        assert!(matches!(err, FetchError::NotFound(_)), "{err}");
        let err = fetch(
            &agent,
            "ftp://x/y",
            &dir.path().join("g.bin"),
            5,
            &cancel,
            &mut |_, _| {},
        )
        .unwrap_err();
        assert!(matches!(err, FetchError::BadUrl(_)), "{err}");
    }

    /// One version of the served file: its bytes, `ETag` and `Last-Modified`.
    #[derive(Clone)]
    struct Version {
        body: Vec<u8>,
        etag: Option<&'static str>,
        last_modified: Option<&'static str>,
    }

    fn version(fill: u8, etag: Option<&'static str>, lm: Option<&'static str>) -> Version {
        Version {
            body: (0..300_000u32)
                .map(|i| fill.wrapping_add((i % 251) as u8))
                .collect(),
            etag,
            last_modified: lm,
        }
    }

    /// An HTTP server on 127.0.0.1 that answers request `n` with `versions[n]` (the last one
    /// from then on), honours `Range` when `If-Range` names the version served (or is absent;
    /// always with `ignore_if_range`), cuts its first `cuts` answers after 50,000 bytes and
    /// logs each request's head.
    fn serve(
        versions: Vec<Version>,
        cuts: usize,
        ignore_if_range: bool,
    ) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/f.geojson", listener.local_addr().unwrap());
        let log = Arc::new(Mutex::new(Vec::new()));
        let seen = log.clone();
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                let Ok(mut s) = stream else { continue };
                let v = versions[n.min(versions.len() - 1)].clone();
                let mut head = Vec::new();
                let mut b = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match s.read(&mut b) {
                        Ok(1) => head.push(b[0]),
                        _ => break,
                    }
                }
                let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
                let field = |name: &str| {
                    head.lines().find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        (k == name).then(|| v.trim().to_owned())
                    })
                };
                let range = field("range")
                    .and_then(|r| r.strip_prefix("bytes=")?.trim_end_matches('-').parse().ok());
                let current = v.etag.or(v.last_modified).map(str::to_ascii_lowercase);
                let honoured = match field("if-range") {
                    None => true,
                    Some(_) if ignore_if_range => true,
                    Some(given) => Some(given) == current,
                };
                let start: usize = match (range, honoured) {
                    (Some(r), true) => r,
                    _ => 0,
                };
                seen.lock().unwrap().push(head.clone());
                let mut out = match start {
                    0 => "HTTP/1.1 200 OK\r\n".to_owned(),
                    _ => format!(
                        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {start}-{}/{}\r\n",
                        v.body.len() - 1,
                        v.body.len()
                    ),
                };
                if let Some(e) = v.etag {
                    out.push_str(&format!("ETag: {e}\r\n"));
                }
                if let Some(l) = v.last_modified {
                    out.push_str(&format!("Last-Modified: {l}\r\n"));
                }
                out.push_str(&format!(
                    "Content-Length: {}\r\nConnection: close\r\n\r\n",
                    v.body.len() - start
                ));
                let rest = &v.body[start..];
                let send = if n < cuts {
                    &rest[..50_000.min(rest.len())]
                } else {
                    rest
                };
                let _ = s.write_all(out.as_bytes()).and_then(|()| s.write_all(send));
            }
        });
        (url, log)
    }

    fn get(url: &str, dir: &Path) -> Result<(Fetched, Vec<u8>), FetchError> {
        let agent = crate::packs::new_agent();
        let cancel = AtomicBool::new(false);
        let dest = dir.join("run.download");
        let mut last = (0, None);
        let got = fetch(
            &agent,
            url,
            &dest,
            10_000_000,
            &cancel,
            &mut |done, total| {
                last = (done, total);
            },
        )?;
        assert_eq!(
            last,
            (got.bytes, Some(got.bytes)),
            "progress ends at the size"
        );
        let bytes = fs::read(&dest).unwrap();
        Ok((got, bytes))
    }

    #[test]
    fn the_same_file_resumes_with_its_validator() {
        let v1 = version(1, Some("\"v1\""), None);
        let (url, log) = serve(vec![v1.clone()], 1, false);
        let dir = tempfile::tempdir().unwrap();
        let (_, bytes) = get(&url, dir.path()).unwrap();
        assert!(bytes == v1.body);
        let log = log.lock().unwrap();
        assert_eq!(log.len(), 2, "{log:?}");
        assert!(log[1].contains("range: bytes=50000-"), "{}", log[1]);
        assert!(log[1].contains("if-range: \"v1\""), "{}", log[1]);
        assert!(!validator_path(&dir.path().join("run.part")).exists());
    }

    #[test]
    fn a_source_that_changed_between_attempts_is_downloaded_again_whole() {
        // Changed between two attempts of one fetch: the server answers the new file whole.
        let v1 = version(1, Some("\"v1\""), None);
        let v2 = version(7, Some("\"v2\""), None);
        let (url, log) = serve(vec![v1.clone(), v2.clone()], 1, false);
        let dir = tempfile::tempdir().unwrap();
        let (got, bytes) = get(&url, dir.path()).unwrap();
        assert!(bytes == v2.body, "the new version, not a splice");
        assert_eq!(got.resumed_from, 0);
        assert!(log.lock().unwrap()[1].contains("if-range: \"v1\""));

        // A server that ignores `If-Range` and sends the rest of another version: the 206's
        // `ETag` gives it away, and the download starts over.
        let (url, log) = serve(vec![v1.clone(), v2.clone()], 1, true);
        let dir = tempfile::tempdir().unwrap();
        let (_, bytes) = get(&url, dir.path()).unwrap();
        assert!(bytes == v2.body);
        let log = log.lock().unwrap();
        assert_eq!(log.len(), 3, "{log:?}");
        assert!(!log[2].contains("range:"), "{}", log[2]);

        // `Last-Modified` only: sent as `If-Range`; a later date means a new file.
        let d1 = version(1, None, Some("Mon, 07 Dec 2026 10:00:00 GMT"));
        let d2 = version(9, None, Some("Tue, 08 Dec 2026 10:00:00 GMT"));
        let (url, log) = serve(vec![d1, d2.clone()], 1, false);
        let dir = tempfile::tempdir().unwrap();
        let (_, bytes) = get(&url, dir.path()).unwrap();
        assert!(bytes == d2.body);
        assert!(log.lock().unwrap()[1].contains("if-range: mon, 07 dec 2026 10:00:00 gmt"));
    }

    #[test]
    fn a_download_left_by_a_stop_resumes_only_if_the_source_is_the_same() {
        let v1 = version(1, Some("\"v1\""), None);
        let v2 = version(3, Some("\"v2\""), None);
        // Every attempt cut: the call fails and leaves the partial file and its validator.
        let (url, _) = serve(vec![v1.clone()], usize::MAX, false);
        let dir = tempfile::tempdir().unwrap();
        let err = get(&url, dir.path()).unwrap_err();
        assert!(matches!(err, FetchError::Network { .. }), "{err}");
        let part = dir.path().join("run.part");
        assert_eq!(
            fs::metadata(&part).unwrap().len(),
            200_000,
            "four attempts of 50,000 bytes"
        );
        let kept = dir.path().join("kept.part");
        fs::copy(&part, &kept).unwrap();
        fs::copy(validator_path(&part), validator_path(&kept)).unwrap();
        // Cut to 120,000 bytes; the next call, after a restart, resumes it from the same file.
        let f = OpenOptions::new().write(true).open(&part).unwrap();
        f.set_len(120_000).unwrap();
        let (url, log) = serve(vec![v1.clone()], 0, false);
        let (got, bytes) = get(&url, dir.path()).unwrap();
        assert!(bytes == v1.body);
        assert_eq!(got.resumed_from, 120_000);
        assert!(log.lock().unwrap()[0].contains("range: bytes=120000-"));
        // The same partial file, but the source changed meanwhile: the new file, whole.
        fs::rename(&kept, &part).unwrap();
        fs::rename(validator_path(&kept), validator_path(&part)).unwrap();
        let f = OpenOptions::new().write(true).open(&part).unwrap();
        f.set_len(120_000).unwrap();
        let (url, _) = serve(vec![v2.clone()], 0, false);
        let (got, bytes) = get(&url, dir.path()).unwrap();
        assert!(bytes == v2.body);
        assert_eq!(got.resumed_from, 0);
        // A partial file without a validator (a source that gives none) is not resumed.
        fs::write(&part, &v1.body[..120_000]).unwrap();
        let none = version(1, None, None);
        let (url, log) = serve(vec![none.clone()], 0, false);
        let (got, bytes) = get(&url, dir.path()).unwrap();
        assert!(bytes == none.body);
        assert_eq!(got.resumed_from, 0);
        assert!(!log.lock().unwrap()[0].contains("range:"));
    }

    #[test]
    fn validators_round_trip_and_weak_etags_are_not_used() {
        assert_eq!(Validator::of(Some("W/\"x\""), None), None);
        assert_eq!(
            Validator::of(Some("W/\"x\""), Some("Mon, 07 Dec 2026 10:00:00 GMT")),
            Some(Validator::LastModified(
                "Mon, 07 Dec 2026 10:00:00 GMT".into()
            ))
        );
        for v in [
            Validator::ETag("\"a b\"".into()),
            Validator::LastModified("Mon, 07 Dec 2026 10:00:00 GMT".into()),
        ] {
            assert_eq!(Validator::from_line(&v.to_line()), Some(v));
        }
    }

    proptest::proptest! {
        /// Whatever `ETag` and `Last-Modified` an answer has, the validator kept beside the
        /// partial download reads back as the same one (so the resume sends exactly what the
        /// source gave), a weak `ETag` is never the one kept, and any text in the kept file
        /// is read or ignored, never a panic.
        #[test]
        fn kept_validators_read_back_the_same(
            etag in proptest::option::of(proptest::prop_oneof!["\"[ -~]{0,30}\"", "W/\"[ -~]{0,10}\"", "\\PC{0,20}"]),
            last_modified in proptest::option::of(proptest::prop_oneof!["[A-Z][a-z]{2}, [0-9]{2} [A-Z][a-z]{2} [0-9]{4} [0-9:]{8} GMT", "\\PC{0,20}"]),
            line in "\\PC{0,40}",
        ) {
            let v = Validator::of(etag.as_deref(), last_modified.as_deref());
            if let Some(v) = &v {
                let kept = Validator::from_line(&v.to_line());
                proptest::prop_assert_eq!(kept.as_ref(), Some(v));
                proptest::prop_assert!(!v.value().starts_with("W/"));
            }
            if etag.as_deref().map(str::trim).is_some_and(|e| e.starts_with('"')) {
                proptest::prop_assert!(matches!(v, Some(Validator::ETag(_))));
            }
            let _ = Validator::from_line(&line);
        }
    }
}
