//! Counters the page-miss path bumps, one cache line per thread: a miss adds to its thread's
//! stripe (an uncontended add on a line no other thread writes, while there are no more threads
//! than stripes), and a statistics read sums the stripes. Exact: every add lands in some stripe,
//! and a stripe shared by two threads (past [`STRIPES`] threads) stays correct, only slower.

use std::cell::Cell;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicI64, AtomicUsize};

use crossbeam_utils::CachePadded;

/// Stripes per counter set: threads beyond this many share stripes.
pub const STRIPES: usize = 16;

/// The next stripe handed to a thread.
static NEXT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// This thread's stripe (`usize::MAX` until its first count).
    static MINE: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// The calling thread's stripe, handed out in turn on its first call.
#[inline]
pub fn stripe() -> usize {
    MINE.with(|mine| {
        let s = mine.get();
        if s != usize::MAX {
            return s;
        }
        let s = NEXT.fetch_add(1, Relaxed) % STRIPES;
        mine.set(s);
        s
    })
}

/// `N` counters, striped by thread.
pub struct Striped<const N: usize> {
    stripes: Box<[CachePadded<[AtomicI64; N]>; STRIPES]>,
}

impl<const N: usize> Default for Striped<N> {
    fn default() -> Self {
        Striped { stripes: Box::new(std::array::from_fn(|_| CachePadded::new(std::array::from_fn(|_| AtomicI64::new(0))))) }
    }
}

impl<const N: usize> std::fmt::Debug for Striped<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries((0..N).map(|i| self.sum(i))).finish()
    }
}

impl<const N: usize> Striped<N> {
    /// The calling thread's counters.
    #[inline]
    pub fn mine(&self) -> &[AtomicI64; N] {
        &self.stripes[stripe()]
    }

    /// Adds `n` to counter `i` in the calling thread's stripe.
    #[inline]
    pub fn add(&self, i: usize, n: i64) {
        self.mine()[i].fetch_add(n, Relaxed);
    }

    /// Counter `i`: the sum of its stripes.
    pub fn sum(&self, i: usize) -> i64 {
        self.stripes.iter().map(|s| s[i].load(Relaxed)).sum()
    }

    /// Counter `i` as a count (a sum read while stripes move may dip below zero).
    pub fn count(&self, i: usize) -> u64 {
        self.sum(i).max(0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_across_threads() {
        let c: Striped<2> = Striped::default();
        std::thread::scope(|s| {
            for _ in 0..40 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        c.add(0, 1);
                        c.add(1, -2);
                    }
                });
            }
        });
        assert_eq!(c.sum(0), 40_000);
        assert_eq!(c.sum(1), -80_000);
        assert_eq!(c.count(1), 0);
        assert!(stripe() < STRIPES);
    }
}
