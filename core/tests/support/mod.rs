//! Test support for the pack manager: a std-only HTTP/1.1 static file server with `Range`,
//! throttling, a one-shot "cut the connection after N bytes" switch and per-path byte counters,
//! and helpers that build signed test packs.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_debug_implementations
)]

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use parking_lot::Mutex;
use sha2::{Digest, Sha256};
use waymark_core::auth::keys::Publisher;
use waymark_core::packs::manifest::{Manifest, PackFile};

pub mod fixture;

const CHUNK: usize = 16 << 10;

#[derive(Default)]
struct State {
    /// Bytes per second; 0: unthrottled.
    throttle: AtomicU64,
    /// Body bytes still allowed before the next connection is cut (one-shot).
    cut_after: Mutex<Option<u64>>,
    /// Answer 200 with the whole file even when a range is asked.
    ignore_range: AtomicBool,
    /// Body bytes served, per request path.
    served: Mutex<HashMap<String, u64>>,
    stop: AtomicBool,
}

/// A static file server on 127.0.0.1 serving `root`.
pub struct TestServer {
    pub addr: String,
    root: PathBuf,
    state: Arc<State>,
}

impl TestServer {
    pub fn start(root: &Path) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let state = Arc::new(State::default());
        let (st, root_buf) = (state.clone(), root.to_path_buf());
        thread::spawn(move || {
            for stream in listener.incoming() {
                if st.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (st, root) = (st.clone(), root_buf.clone());
                thread::spawn(move || {
                    let _ = handle(stream, &root, &st);
                });
            }
        });
        TestServer {
            addr,
            root: root.to_path_buf(),
            state,
        }
    }

    /// URL of a directory under the served root (with a trailing `/`).
    pub fn url(&self, rel_dir: &str) -> String {
        format!("http://{}/{}/", self.addr, rel_dir.trim_matches('/'))
    }

    pub fn throttle(&self, bytes_per_sec: u64) {
        self.state.throttle.store(bytes_per_sec, Ordering::SeqCst);
    }

    /// Cuts the connection once `n` more body bytes have been served (one-shot).
    pub fn cut_after(&self, n: u64) {
        *self.state.cut_after.lock() = Some(n);
    }

    pub fn ignore_range(&self, on: bool) {
        self.state.ignore_range.store(on, Ordering::SeqCst);
    }

    /// Body bytes served since the last reset, excluding `manifest.json`.
    pub fn data_bytes_served(&self) -> u64 {
        self.state
            .served
            .lock()
            .iter()
            .filter(|(path, _)| !path.ends_with("/manifest.json"))
            .map(|(_, n)| n)
            .sum()
    }

    pub fn reset_counters(&self) {
        self.state.served.lock().clear();
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(&self.addr);
    }
}

fn handle(stream: TcpStream, root: &Path, st: &State) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut range_start: Option<u64> = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("range")
        {
            range_start = value
                .trim()
                .strip_prefix("bytes=")
                .and_then(|r| r.strip_suffix('-'))
                .and_then(|n| n.parse().ok());
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let path = percent_decode(target);
    let file = root.join(path.trim_start_matches('/'));
    let simple = |out: &mut TcpStream, status: &str, extra: &str| {
        write!(
            out,
            "HTTP/1.1 {status}\r\nContent-Length: 0\r\n{extra}Connection: close\r\n\r\n"
        )
    };
    if method != "GET" {
        return simple(&mut out, "405 Method Not Allowed", "");
    }
    if path.split('/').any(|s| s == "..") || !file.is_file() {
        return simple(&mut out, "404 Not Found", "");
    }
    let len = fs::metadata(&file)?.len();
    let ignore = st.ignore_range.load(Ordering::SeqCst);
    let start = match range_start {
        Some(n) if !ignore => {
            if n >= len {
                return simple(
                    &mut out,
                    "416 Range Not Satisfiable",
                    &format!("Content-Range: bytes */{len}\r\n"),
                );
            }
            write!(
                out,
                "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {n}-{}/{len}\r\nConnection: close\r\n\r\n",
                len - n,
                len - 1
            )?;
            n
        }
        _ => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
            )?;
            0
        }
    };
    let mut f = fs::File::open(&file)?;
    f.seek(SeekFrom::Start(start))?;
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        let mut n = n;
        let mut cut = false;
        {
            let mut c = st.cut_after.lock();
            if let Some(left) = *c {
                if left <= n as u64 {
                    n = left as usize;
                    cut = true;
                    *c = None;
                } else {
                    *c = Some(left - n as u64);
                }
            }
        }
        out.write_all(&buf[..n])?;
        *st.served.lock().entry(path.clone()).or_default() += n as u64;
        if cut {
            out.flush()?;
            let _ = out.shutdown(Shutdown::Both);
            return Ok(());
        }
        let rate = st.throttle.load(Ordering::SeqCst);
        if rate > 0 {
            thread::sleep(Duration::from_secs_f64(n as f64 / rate as f64));
        }
    }
    out.flush()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(v) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Deterministic pseudo-random bytes (xorshift64*).
pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    let mut v = Vec::with_capacity(len + 8);
    while v.len() < len {
        v.extend_from_slice(&rng.next().to_le_bytes());
    }
    v.truncate(len);
    v
}

/// A small seeded generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-ish in `lo..hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo)
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Writes `files` into `<parent>/<id>-<version>/` with a manifest signed by `publisher`;
/// `edit` may change the manifest before it is signed. Returns the pack directory.
pub fn build_pack_with(
    parent: &Path,
    id: &str,
    version: &str,
    files: &[(&str, Vec<u8>)],
    publisher: &Publisher,
    edit: impl FnOnce(&mut Manifest),
) -> PathBuf {
    let dir = parent.join(format!("{id}-{version}"));
    fs::create_dir_all(&dir).unwrap();
    let mut m = Manifest::new(id, version, vec!["places".into()]);
    m.coverage.bbox = [1.4, 42.4, 1.8, 42.7];
    for (path, bytes) in files {
        let p = dir.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, bytes).unwrap();
        m.files.push(PackFile {
            path: (*path).to_string(),
            sha256: sha256_hex(bytes),
            size: bytes.len() as u64,
        });
    }
    edit(&mut m);
    m.sign(publisher).unwrap();
    fs::write(
        dir.join("manifest.json"),
        serde_json::to_vec_pretty(&m).unwrap(),
    )
    .unwrap();
    dir
}

pub fn build_pack(
    parent: &Path,
    id: &str,
    version: &str,
    files: &[(&str, Vec<u8>)],
    publisher: &Publisher,
) -> PathBuf {
    build_pack_with(parent, id, version, files, publisher, |_| {})
}

/// A real SQLite database with one row naming `label`.
pub fn sqlite_bytes(tmp: &Path, label: &str) -> Vec<u8> {
    let path = tmp.join(format!("db-{label}.sqlite"));
    let _ = fs::remove_file(&path);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE info (label TEXT NOT NULL);")
            .unwrap();
        conn.execute("INSERT INTO info (label) VALUES (?1)", [label])
            .unwrap();
    }
    let bytes = fs::read(&path).unwrap();
    fs::remove_file(&path).unwrap();
    bytes
}

pub fn file_url(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

/// Total size of the regular files under `dir` (0 when absent).
pub fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| {
            let p = e.path();
            if p.is_dir() {
                dir_bytes(&p)
            } else {
                e.metadata().map(|m| m.len()).unwrap_or(0)
            }
        })
        .sum()
}

/// Names of the entries of `dir` (empty when absent).
pub fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}
