//! The `waymark keys` commands, run as a real process.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn waymark(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_waymark"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn new_publisher_issue_and_inspect() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("publisher.json");
    let file = file.to_str().unwrap();
    let (ok, out, err) = waymark(&["keys", "new-publisher", "--out", file]);
    assert!(ok, "{err}");
    let trust = out
        .lines()
        .find_map(|l| l.strip_prefix("trust it with: --trust "))
        .unwrap()
        .to_string();

    let (ok, key, err) = waymark(&[
        "keys",
        "issue",
        "--publisher",
        file,
        "--kind",
        "private",
        "--android",
        "com.example.app:a1:b2:c3:d4:e5:f6:07:18:29:3a:4b:5c:6d:7e:8f:90:12:34:56:78",
        "--quota",
        "10",
        "--apis",
        "distance,geolocation",
    ]);
    assert!(ok, "{err}");
    let key = key.trim();
    assert!(key.starts_with("wm_prv_"));

    let (ok, out, err) = waymark(&["keys", "inspect", key, "--trust", &trust]);
    assert!(ok, "{err}");
    assert!(out.contains("signature: valid"), "{out}");
    assert!(
        out.contains("A1B2C3D4E5F60718293A4B5C6D7E8F9012345678"),
        "fingerprint normalized: {out}"
    );
    assert!(out.contains("\"quota\": 10"));

    // Another publisher's trust refuses it.
    let other = dir.path().join("other.json");
    let (_, out2, _) = waymark(&["keys", "new-publisher", "--out", other.to_str().unwrap()]);
    let other_trust = out2
        .lines()
        .find_map(|l| l.strip_prefix("trust it with: --trust "))
        .unwrap();
    let (ok, _, err) = waymark(&["keys", "inspect", key, "--trust", other_trust]);
    assert!(!ok);
    assert!(err.contains("does not trust"), "{err}");

    // Rules: a public key needs a restriction; a lone `*` is warned about.
    let issue_public = |extra: &[&str]| {
        let mut args = vec!["keys", "issue", "--publisher", file, "--kind", "public"];
        args.extend_from_slice(extra);
        waymark(&args)
    };
    let (ok, _, err) = issue_public(&[]);
    assert!(!ok);
    assert!(err.contains("at least one domain or ip"), "{err}");
    let (ok, _, err) = issue_public(&["--domain", "*"]);
    assert!(ok);
    assert!(err.contains("warning"), "{err}");
    let (ok, _, err) = issue_public(&["--domain", "https://x.com/"]);
    assert!(!ok, "{err}");
}

#[test]
fn serve_refuses_a_non_loopback_bind_without_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, _, err) = waymark(&[
        "serve",
        "--bind",
        "0.0.0.0",
        "--state-dir",
        dir.path().to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("--allow-remote"), "{err}");
}

#[test]
fn serve_in_development_mode_answers_and_stops_gracefully_on_sigterm() {
    use std::io::{BufRead, BufReader, Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_waymark"))
        .args([
            "serve",
            "--port",
            "0",
            "--no-sample-packs",
            "--state-dir",
            dir.path().to_str().unwrap(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut addr = None;
    let mut private = None;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(a) = line.strip_prefix("waymark local server listening on http://") {
            addr = Some(a.to_string());
        }
        if let Some(k) = line.trim().strip_prefix("private key (write permission):") {
            private = Some(k.trim().to_string());
        }
        if line.starts_with("API description") {
            break;
        }
    }
    let (addr, private) = (addr.unwrap(), private.unwrap());
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        s,
        "GET /geolocation/timezone?location=60.1,24.9 HTTP/1.1\r\nHost: {addr}\r\nX-Api-Key: {private}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    // No packs (--no-sample-packs): the timezone operation says its data is missing.
    assert!(resp.starts_with("HTTP/1.1 503"), "{resp}");
    // The development keys are kept for the next start.
    assert!(dir.path().join("dev-keys.json").exists());

    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "exit status {exit:?}");
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(log.contains("shutdown requested"), "{log}");
    assert!(!log.contains(&private), "keys must never be logged");
}
