//! The commit clock: one counter hands out commit timestamps, a second publishes them in order.
//!
//! A committer takes the next timestamp from `issued` (its one atomic read-modify-write on a
//! shared line), stamps its versions, waits until every smaller timestamp is published, and then
//! publishes its own. A reader's snapshot is one load of `published`. Because a timestamp is
//! published only after its versions are stamped, and after every smaller one, a reader whose
//! snapshot is `s` finds every version stamped `<= s` already stamped: it never sees part of a
//! commit, and it never waits. The waiting is the committers': a commit waits for the commits
//! that took smaller timestamps to finish stamping (a few stores each; a preempted committer
//! makes the others spin, then yield).

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{Acquire, SeqCst};

use crossbeam_utils::CachePadded;

/// Spins this many times before yielding while an earlier commit finishes.
const SPINS_BEFORE_YIELD: u32 = 64;

/// The connection's commit timestamps.
pub struct CommitClock {
    /// Newest timestamp whose commit (and every earlier one) is complete: snapshots read it.
    published: CachePadded<AtomicU64>,
    /// Newest timestamp handed to a committer.
    issued: CachePadded<AtomicU64>,
}

impl Default for CommitClock {
    fn default() -> Self {
        CommitClock { published: CachePadded::new(AtomicU64::new(0)), issued: CachePadded::new(AtomicU64::new(0)) }
    }
}

impl CommitClock {
    /// The newest complete commit: a snapshot's read timestamp.
    #[inline]
    pub fn now(&self) -> u64 {
        self.published.load(SeqCst)
    }

    /// A fresh commit timestamp, larger than every timestamp published so far. The caller must
    /// [`publish`](CommitClock::publish) it, whatever happens, or every later commit waits.
    pub fn issue(&self) -> u64 {
        self.issued.fetch_add(1, SeqCst) + 1
    }

    /// Publishes `ts` (from [`issue`](CommitClock::issue)) once every smaller timestamp is.
    pub fn publish(&self, ts: u64) {
        let mut spins = 0;
        while self.published.load(Acquire) != ts - 1 {
            backoff(&mut spins);
        }
        self.published.store(ts, SeqCst);
    }
}

/// Spin briefly, then give the processor away (the committer we wait for may be preempted).
pub(crate) fn backoff(spins: &mut u32) {
    if *spins < SPINS_BEFORE_YIELD {
        *spins += 1;
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn timestamps_publish_in_order() {
        let clock = Arc::new(CommitClock::default());
        assert_eq!(clock.now(), 0);
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let clock = Arc::clone(&clock);
                std::thread::spawn(move || {
                    for _ in 0..if cfg!(miri) { 5 } else { 2_000 } {
                        let ts = clock.issue();
                        assert!(clock.now() < ts);
                        clock.publish(ts);
                        assert!(clock.now() >= ts);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let n = if cfg!(miri) { 20 } else { 8_000 };
        assert_eq!(clock.now(), n);
    }
}
