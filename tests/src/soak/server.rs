//! The server process under test and keep-alive HTTP/1.1 connections to it.

use super::*;

/// A running `waymark serve`.
pub struct Server {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// Its process id.
    pub pid: u32,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Server({}, pid {})", self.addr, self.pid)
    }
}

impl Server {
    /// Starts `bin serve` on a free loopback port (rate limits off, access log at warn).
    pub fn start(bin: &Path, state: &Path, packs: &Path, trust: &str) -> Server {
        let mut child = Command::new(bin)
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
            .args(["--trust", trust])
            .env("RUST_LOG", "warn")
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
        std::thread::spawn(move || for _ in lines {});
        let pid = child.id();
        Server { child, addr, pid }
    }

    /// Resident memory in KiB.
    pub fn rss_kib(&self) -> u64 {
        rss_kib(self.pid)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `VmRSS` of process `pid` in KiB (0 when unknown).
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// One HTTP/1.1 keep-alive connection.
pub struct Conn {
    addr: SocketAddr,
    stream: Option<BufReader<TcpStream>>,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Conn({})", self.addr)
    }
}

impl Conn {
    /// A connection to `addr` (opened on first use, reopened after a failure).
    pub fn new(addr: SocketAddr) -> Conn {
        Conn { addr, stream: None }
    }

    /// Sends a request with `key` in the `private_key` parameter and reads the answer:
    /// `(status, body)`, `None` when the connection failed.
    pub fn send(
        &mut self,
        method: &str,
        target: &str,
        key: &str,
        body: &str,
    ) -> Option<(u16, String)> {
        let answer = self.try_send(method, target, key, body);
        if answer.is_none() {
            self.stream = None;
        }
        answer
    }

    fn try_send(
        &mut self,
        method: &str,
        target: &str,
        key: &str,
        body: &str,
    ) -> Option<(u16, String)> {
        if self.stream.is_none() {
            let s = TcpStream::connect(self.addr).ok()?;
            s.set_read_timeout(Some(Duration::from_secs(120))).ok()?;
            s.set_nodelay(true).ok()?;
            self.stream = Some(BufReader::new(s));
        }
        let reader = self.stream.as_mut()?;
        // The key in `private_key`: the one form every operation takes.
        let sep = if target.contains('?') { '&' } else { '?' };
        let head = format!(
            "{method} {target}{sep}private_key={key} HTTP/1.1\r\nHost: {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.addr,
            body.len()
        );
        reader.get_mut().write_all(head.as_bytes()).ok()?;
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let status: u16 = line.get(9..12)?.parse().ok()?;
        let (mut length, mut chunked, mut close) = (None, false, false);
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).ok()? == 0 {
                return None;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (name, value) = h.split_once(':')?;
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.eq_ignore_ascii_case("chunked");
            } else if name.eq_ignore_ascii_case("connection") {
                close = value.eq_ignore_ascii_case("close");
            }
        }
        let mut out = Vec::new();
        if chunked {
            loop {
                let mut size = String::new();
                reader.read_line(&mut size).ok()?;
                let n = usize::from_str_radix(size.trim(), 16).ok()?;
                let mut chunk = vec![0; n + 2];
                reader.read_exact(&mut chunk).ok()?;
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&chunk[..n]);
            }
        } else if let Some(n) = length {
            out.resize(n, 0);
            reader.read_exact(&mut out).ok()?;
        }
        if close {
            self.stream = None;
        }
        Some((status, String::from_utf8_lossy(&out).into_owned()))
    }
}
