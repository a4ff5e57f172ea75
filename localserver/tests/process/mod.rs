//! The real `waymark serve` process for crash tests: started on a free port with its state
//! and packs directories, killed with SIGKILL, and plain HTTP/1.1 requests to it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
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
