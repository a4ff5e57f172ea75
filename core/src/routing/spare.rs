//! Large per-request buffers (search states, point buffers) kept between requests, shared by
//! all threads and bounded in number: at most as many as requests can run at once (the
//! machine's parallelism, at most [`MOST`]), each no larger than its owner allows. Kept per
//! thread instead, every thread that ever answered a large request (an app's pool of I/O
//! threads, a server's blocking pool) would hold its own for as long as it lives.
use std::sync::OnceLock;

use parking_lot::Mutex;

/// Most buffers of one kind kept, whatever the machine.
pub const MOST: usize = 4;

/// Buffers of one kind kept for the next request.
pub struct Spares<T> {
    kept: Mutex<Vec<T>>,
    most: OnceLock<usize>,
}

impl<T> std::fmt::Debug for Spares<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spares").field("kept", &self.len()).finish()
    }
}

impl<T> Default for Spares<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Spares<T> {
    /// No buffer kept yet.
    pub const fn new() -> Self {
        Spares {
            kept: Mutex::new(Vec::new()),
            most: OnceLock::new(),
        }
    }

    fn most(&self) -> usize {
        *self.most.get_or_init(|| {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .clamp(1, MOST)
        })
    }

    /// A kept buffer for which `fits` holds, if any.
    pub fn take(&self, fits: impl Fn(&T) -> bool) -> Option<T> {
        let mut kept = self.kept.lock();
        let i = kept.iter().position(fits)?;
        Some(kept.swap_remove(i))
    }

    /// Keeps `t` for a later request when fewer than the limit are kept, else in place of
    /// the smallest kept one (by `size`) when `t` is larger.
    pub fn give(&self, t: T, size: impl Fn(&T) -> usize) {
        let most = self.most();
        let mut kept = self.kept.lock();
        if kept.len() < most {
            kept.push(t);
        } else if let Some(small) = kept.iter_mut().min_by_key(|k| size(k))
            && size(small) < size(&t)
        {
            *small = t;
        }
    }

    /// Drops every kept buffer; how many there were.
    pub fn clear(&self) -> usize {
        std::mem::take(&mut *self.kept.lock()).len()
    }

    /// Number of buffers kept.
    pub fn len(&self) -> usize {
        self.kept.lock().len()
    }

    /// Whether no buffer is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spares_are_bounded_and_keep_the_largest() {
        let s: Spares<Vec<u8>> = Spares::new();
        let most = s.most();
        for n in 0..most + 3 {
            s.give(vec![0; n + 1], Vec::capacity);
        }
        assert_eq!(s.len(), most);
        // The largest ones were kept.
        let big = s.take(|v| v.len() >= most + 3);
        assert_eq!(big.map(|v| v.len()), Some(most + 3));
        assert!(s.take(|v| v.len() > most + 3).is_none());
        assert_eq!(s.len(), most - 1);
        while s.take(|_| true).is_some() {}
        assert!(s.is_empty());
    }
}
