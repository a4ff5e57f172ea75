//! Free quota counts survive SIGKILL: the real `waymark serve` process answers a key with a
//! quota from two client threads and is killed (SIGKILL) at random points, restarted, and so
//! on until the quota is used up. Across all the restarts the key is never answered more
//! often than its quota, the stored count is never below the requests answered (nothing
//! acknowledged is lost) nor above them by more than the requests in flight at each kill, and
//! once it is used up a restarted server still refuses it (402).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod process;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use process::{send, start};
use rusqlite::Connection;
use waymark_core::auth::keys::{KeyClaims, KeyScope, PrivateRestriction, Publisher};

/// The key's free quota.
const QUOTA: u64 = 3_000;
/// Client threads (each has at most one request in flight).
const CLIENTS: u64 = 2;

/// The count stored for the key (0 before its first request).
fn stored(state: &Path) -> u64 {
    let Ok(conn) = Connection::open(state.join("state.sqlite")) else {
        return 0;
    };
    conn.query_row("SELECT COALESCE(SUM(used), 0) FROM key_usage", [], |r| {
        r.get::<_, i64>(0)
    })
    .map_or(0, |v| v as u64)
}

/// Deterministic pseudo-random kill points (xorshift).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

#[test]
fn quota_counts_survive_sigkill_and_the_quota_holds_across_restarts() {
    let tmp = tempfile::tempdir().unwrap();
    let (state, packs) = (tmp.path().join("state"), tmp.path().join("packs"));
    let publisher = Publisher::generate().unwrap();
    let trust = publisher.verifying().encode();
    // `GET /datasets` charges the quota and needs no pack: a private key with write permission.
    let mut claims = KeyClaims::new(KeyScope::Private {
        write: true,
        restriction: PrivateRestriction::None,
    });
    claims.quota = Some(QUOTA);
    let key = publisher.issue(&claims).unwrap();

    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut answered = 0u64; // 200s over every run
    let mut in_flight_bound = 0u64; // requests that may have been counted but not answered
    let mut refused = false;
    let mut rounds = 0;
    while !refused {
        rounds += 1;
        assert!(
            rounds <= 200,
            "the quota was never used up ({answered} answered)"
        );
        let server = start(&state, &packs, &trust);
        let addr = server.addr;
        let ok = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let saw_402 = Arc::new(AtomicBool::new(false));
        let clients: Vec<_> = (0..CLIENTS)
            .map(|_| {
                let (ok, stop, saw_402, key) =
                    (ok.clone(), stop.clone(), saw_402.clone(), key.clone());
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Acquire) {
                        match send(addr, "GET", "/datasets", &key, "") {
                            Some((200, _)) => {
                                ok.fetch_add(1, Ordering::AcqRel);
                            }
                            Some((402, _)) => {
                                saw_402.store(true, Ordering::Release);
                                return;
                            }
                            Some((status, body)) => panic!("unexpected {status}: {body}"),
                            None => return, // the server died
                        }
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(20 + rng.below(400)));
        server.kill();
        stop.store(true, Ordering::Release);
        for c in clients {
            c.join().unwrap();
        }
        answered += ok.load(Ordering::Acquire);
        in_flight_bound += CLIENTS;
        refused = saw_402.load(Ordering::Acquire);

        let counted = stored(&state);
        assert!(
            counted >= answered.min(QUOTA),
            "round {rounds}: {answered} requests answered but only {counted} stored"
        );
        assert!(
            counted <= answered + in_flight_bound,
            "round {rounds}: {counted} stored for {answered} answered"
        );
        assert!(
            answered <= QUOTA,
            "round {rounds}: {answered} requests answered with a quota of {QUOTA}"
        );
    }
    eprintln!("{answered} requests answered over {rounds} killed runs");
    assert_eq!(stored(&state), QUOTA);

    // A restarted server keeps refusing the key.
    let server = start(&state, &packs, &trust);
    let (status, body) = send(server.addr, "GET", "/datasets", &key, "").unwrap();
    assert_eq!(status, 402, "{body}");
    server.kill();
}
