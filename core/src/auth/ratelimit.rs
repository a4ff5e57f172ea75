//! Per key and endpoint rate limits with an exact sliding window: a request is admitted when
//! fewer than `requests` were admitted in the `window` before it. The `limit + 1`-th request
//! inside any window is refused, whatever the timing, and the bucket recovers exactly when
//! the oldest admitted request leaves the window.
//!
//! Each bucket keeps the instants of its last `requests` admissions in a ring (at most 50
//! entries), so admission is O(1). Buckets are sharded behind 16 mutexes.
//!
//! ```
//! use std::time::{Duration, Instant};
//! use waymark_core::auth::ratelimit::RateLimiter;
//! use waymark_core::endpoint::Endpoint;
//! let limiter = RateLimiter::default();
//! let t0 = Instant::now();
//! for _ in 0..5 {
//!     assert!(limiter.admit(7, Endpoint::Tolls, t0).is_ok());
//! }
//! assert!(limiter.admit(7, Endpoint::Tolls, t0).is_err()); // 5 per 1 s
//! assert!(limiter.admit(7, Endpoint::Tolls, t0 + Duration::from_secs(1)).is_ok());
//! ```
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::endpoint::Endpoint;

const SHARDS: usize = 16;
const MAX_BUCKETS_PER_SHARD: usize = 4096;

/// Admission times of one key on one endpoint.
#[derive(Debug, Default)]
struct Window {
    admitted: VecDeque<Instant>,
}

/// Sliding-window rate limiter keyed by (key id, endpoint).
#[derive(Debug)]
pub struct RateLimiter {
    shards: Vec<Mutex<HashMap<(u128, Endpoint), Window>>>,
}

impl Default for RateLimiter {
    fn default() -> Self {
        RateLimiter {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }
}

impl RateLimiter {
    /// Admits a request of key `kid` to `endpoint` at `now`, or says how long to wait.
    pub fn admit(&self, kid: u128, endpoint: Endpoint, now: Instant) -> Result<(), Duration> {
        let limit = endpoint.rate_limit();
        let cap = limit.requests as usize;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (kid, endpoint).hash(&mut hasher);
        let shard = &self.shards[(hasher.finish() as usize) % SHARDS];
        let mut map = shard.lock();
        if map.len() >= MAX_BUCKETS_PER_SHARD && !map.contains_key(&(kid, endpoint)) {
            // Forget buckets whose every admission has left its window: they hold no state.
            map.retain(|(_, ep), w| {
                w.admitted.back().is_some_and(|last| {
                    now.saturating_duration_since(*last) < ep.rate_limit().window
                })
            });
        }
        let window = map.entry((kid, endpoint)).or_default();
        while window
            .admitted
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= limit.window)
        {
            window.admitted.pop_front();
        }
        if window.admitted.len() < cap {
            window.admitted.push_back(now);
            Ok(())
        } else {
            let oldest = window.admitted.front().copied().unwrap_or(now);
            Err((oldest + limit.window).saturating_duration_since(now))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn trips_at_limit_plus_one_and_recovers_after_the_window() {
        let l = RateLimiter::default();
        let t0 = Instant::now();
        for i in 0..50 {
            assert!(
                l.admit(
                    1,
                    Endpoint::Autocomplete,
                    t0 + Duration::from_millis(i * 10)
                )
                .is_ok(),
                "request {i}"
            );
        }
        let wait = l
            .admit(1, Endpoint::Autocomplete, t0 + Duration::from_millis(600))
            .unwrap_err();
        assert_eq!(wait, Duration::from_millis(400));
        // Just before the first admission leaves the window: still refused.
        assert!(
            l.admit(1, Endpoint::Autocomplete, t0 + Duration::from_millis(999))
                .is_err()
        );
        // Exactly one slot frees per admission that leaves the window.
        assert!(
            l.admit(1, Endpoint::Autocomplete, t0 + Duration::from_millis(1000))
                .is_ok()
        );
        assert!(
            l.admit(1, Endpoint::Autocomplete, t0 + Duration::from_millis(1001))
                .is_err()
        );
        assert!(
            l.admit(1, Endpoint::Autocomplete, t0 + Duration::from_millis(1010))
                .is_ok()
        );
    }

    #[test]
    fn keys_and_endpoints_have_separate_buckets() {
        let l = RateLimiter::default();
        let t = Instant::now();
        for _ in 0..10 {
            l.admit(1, Endpoint::Route, t).unwrap();
        }
        assert!(l.admit(1, Endpoint::Route, t).is_err());
        assert!(l.admit(2, Endpoint::Route, t).is_ok());
        assert!(l.admit(1, Endpoint::RouteWithTraffic, t).is_ok());
        assert!(l.admit(1, Endpoint::Isochrone, t).is_ok());
    }

    #[test]
    fn dataset_status_is_one_per_five_seconds() {
        let l = RateLimiter::default();
        let t = Instant::now();
        l.admit(1, Endpoint::DatasetStatus, t).unwrap();
        assert_eq!(
            l.admit(1, Endpoint::DatasetStatus, t + Duration::from_secs(4)),
            Err(Duration::from_secs(1))
        );
        assert!(
            l.admit(1, Endpoint::DatasetStatus, t + Duration::from_secs(5))
                .is_ok()
        );
    }

    #[test]
    fn stale_buckets_are_forgotten_when_a_shard_fills() {
        let l = RateLimiter::default();
        let t = Instant::now();
        let n = (SHARDS * MAX_BUCKETS_PER_SHARD) as u128;
        for kid in 0..n {
            l.admit(kid, Endpoint::Timezone, t).unwrap();
        }
        // Later, new keys arrive in every shard: the full shards drop their stale buckets.
        let later = t + Duration::from_secs(2);
        for kid in n..n + 64 * SHARDS as u128 {
            l.admit(kid, Endpoint::Timezone, later).unwrap();
        }
        let total: usize = l.shards.iter().map(|s| s.lock().len()).sum();
        assert!(total <= SHARDS * MAX_BUCKETS_PER_SHARD, "{total}");
    }
}
