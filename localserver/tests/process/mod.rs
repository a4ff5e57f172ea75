//! The real `waymark serve` process for crash tests: started on a free port with its state
//! and packs directories, killed with SIGKILL, and plain HTTP/1.1 requests to it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;

/// A running `waymark serve`.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

/// Starts `waymark serve` (rate limits off, no sample packs) trusting `trust`.
pub fn start(state: &Path, packs: &Path, trust: &str) -> Server {
    spawn(
        Command::new(env!("CARGO_BIN_EXE_waymark")),
        state,
        packs,
        trust,
    )
}

/// As [`start`], with no file of the server larger than `max_kib` KiB: a write past it fails
/// as on a full disk (EFBIG; SIGXFSZ is ignored so that the write returns the error).
pub fn start_with_file_limit(state: &Path, packs: &Path, trust: &str, max_kib: u64) -> Server {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {max_kib}; exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_waymark"));
    spawn(sh, state, packs, trust)
}

fn spawn(mut command: Command, state: &Path, packs: &Path, trust: &str) -> Server {
    let mut child = command
        .args([
            "serve",
            "--port",
            "0",
            "--rate-limits",
            "off",
            "--no-sample-packs",
        ])
        .arg("--state-dir")
        .arg(state)
        .arg("--packs")
        .arg(packs)
        .args(["--trust", trust, "--log-format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let addr = loop {
        let line = lines
            .next()
            .expect("the server printed its address")
            .unwrap();
        if let Some(rest) = line.strip_prefix("waymark local server listening on http://") {
            break rest.trim().parse().unwrap();
        }
    };
    // Keep reading stdout so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Server { child, addr }
}

impl Server {
    /// SIGKILL, then waits for the process to end.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

/// Sends one request and returns the status (None when the connection died first).
pub fn send(
    addr: SocketAddr,
    method: &str,
    target: &str,
    key: &str,
    body: &str,
) -> Option<(u16, Value)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         {}Content-Length: {}\r\nConnection: close\r\n\r\n",
        if key.is_empty() {
            String::new()
        } else {
            format!("X-Api-Key: {key}\r\n")
        },
        body.len()
    );
    s.write_all(head.as_bytes()).ok()?;
    s.write_all(body.as_bytes()).ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let raw = String::from_utf8(raw).ok()?;
    let status = raw.get(9..12)?.parse().ok()?;
    let body = raw.split_once("\r\n\r\n")?.1;
    Some((status, serde_json::from_str(body).unwrap_or(Value::Null)))
}

/// Starts an install of `url` and polls it until `stop`; true when it was seen `completed`.
pub fn install_and_watch(
    addr: SocketAddr,
    key: &str,
    url: &str,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<bool> {
    let (status, body) = send(
        addr,
        "POST",
        "/packs",
        key,
        &serde_json::json!({"url": url}).to_string(),
    )
    .unwrap();
    assert_eq!(status, 202, "{body}");
    let id = body["install_id"].as_str().unwrap().to_string();
    let key = key.to_string();
    std::thread::spawn(move || {
        while !stop.load(Ordering::Acquire) {
            match send(addr, "GET", &format!("/packs/installs/{id}"), &key, "") {
                Some((200, v)) if v["status"] == "completed" => return true,
                Some((200, v)) if v["status"] == "failed" => panic!("install failed: {v}"),
                Some((200, _)) => {}
                Some((status, v)) => panic!("unexpected {status}: {v}"),
                None => return false,
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    })
}

/// A static file server on 127.0.0.1 for pack sources: serves the files under `root` whole
/// (it ignores `Range`, which the installer handles by restarting the file), in 16 KiB chunks
/// at most `bytes_per_sec`, so that an install takes long enough to be killed in the middle.
pub fn serve_files(root: &Path, bytes_per_sec: u64) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let root = root.to_path_buf();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let root = root.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).is_err() {
                    return;
                }
                let path = line.split(' ').nth(1).unwrap_or("/").to_string();
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                        break;
                    }
                }
                let file = root.join(path.trim_start_matches('/'));
                let Ok(data) = std::fs::read(&file) else {
                    let _ = stream.write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    );
                    return;
                };
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    data.len()
                );
                if stream.write_all(head.as_bytes()).is_err() {
                    return;
                }
                for chunk in data.chunks(16 << 10) {
                    if stream.write_all(chunk).is_err() {
                        return;
                    }
                    std::thread::sleep(Duration::from_secs_f64(
                        chunk.len() as f64 / bytes_per_sec as f64,
                    ));
                }
            });
        }
    });
    addr
}
