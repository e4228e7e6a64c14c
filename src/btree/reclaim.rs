//! Evicted pages awaiting reclamation, and the readers that wait for them.
//!
//! An evicted page leaves the cache at once but its memory only when every reader that might
//! still hold it has moved on (an epoch later). That is usually microseconds; but a thread the
//! scheduler takes off a core inside a read holds the epoch back for its whole time slice, and a
//! reader missing 30,000 pages a second meanwhile evicts 30,000 more: on a loaded machine
//! `evict_stress` saw over 100 MB of such pages against a 2 MB cache. So evicted bytes are
//! counted here until their pages are freed, and past [`LIMIT`] a reader about to descend a tree
//! first waits, holding no epoch, for the backlog to drain ([`throttle`]): the cache's bound
//! holds for what it has given up too, as it does in the reference, whose cache counts a page
//! until it is freed.
//!
//! The counts are per process, striped by thread like the page-miss counters: an eviction
//! adds to its thread's stripe, and a stripe publishes every `PUBLISH` bytes. A read of a
//! resident page reads `OVER` (written only when the backlog crosses the limit) and nothing
//! else.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicI64};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use scc::Guard;

use super::striped::{stripe, STRIPES};

/// Backlog past which readers wait: about 250 leaves, whatever the cache size.
pub const LIMIT: i64 = 8 << 20;

/// A stripe publishes its count once it has this many bytes unpublished (either way).
const PUBLISH: i64 = 256 << 10;

/// The longest a reader waits (on a machine with a load average of 5-9, 20 ms timed out a few
/// times a second and 100 ms never did). A wait that ends this way takes the backlog it found as
/// `STUCK` (held by a thread that does not come back soon: one inside a long read, say), and
/// readers wait again only once the backlog grows [`LIMIT`] past that: such a backlog slows
/// readers down once, never for good.
const MAX_WAIT: Duration = Duration::from_millis(100);

static UNPUBLISHED: [CachePadded<AtomicI64>; STRIPES] = [const { CachePadded::new(AtomicI64::new(0)) }; STRIPES];
static PUBLISHED: CachePadded<AtomicI64> = CachePadded::new(AtomicI64::new(0));
/// Backlog the last timed-out wait found (lowered as the backlog drains below it).
static STUCK: AtomicI64 = AtomicI64::new(0);
static OVER: CachePadded<AtomicBool> = CachePadded::new(AtomicBool::new(false));

/// Counts `bytes` (negative when reclaimed) in the calling thread's stripe.
pub fn count(bytes: i64) {
    let mine = &UNPUBLISHED[stripe()];
    let held = mine.fetch_add(bytes, Relaxed) + bytes;
    if held.abs() >= PUBLISH {
        let moved = mine.swap(0, Relaxed);
        let total = PUBLISHED.fetch_add(moved, Relaxed) + moved;
        let stuck = STUCK.fetch_min(total.max(0), Relaxed).min(total.max(0));
        set_over(total > LIMIT + stuck);
    }
}

fn set_over(over: bool) {
    // Written only when it changes: readers of resident pages read this line.
    if OVER.load(Relaxed) != over {
        OVER.store(over, Relaxed);
    }
}

/// Published backlog in bytes (tests, statistics).
pub fn backlog() -> i64 {
    PUBLISHED.load(Relaxed)
}

/// The backlog with every stripe's unpublished bytes (for waiters: a stripe whose thread went
/// idle may hold back the bytes that end the wait).
fn exact_backlog() -> i64 {
    backlog() + UNPUBLISHED.iter().map(|n| n.load(Relaxed)).sum::<i64>()
}

/// Waits, up to `MAX_WAIT`, while the backlog is past [`LIMIT`]. Call it holding no epoch
/// guard: the wait advances the epoch, which a guard of the caller's own would hold back.
#[inline]
pub fn throttle() {
    if OVER.load(Relaxed) {
        wait();
    }
}

#[cold]
#[inline(never)]
fn wait() {
    let start = Instant::now();
    while OVER.load(Relaxed) {
        let backlog = exact_backlog();
        if backlog <= LIMIT + STUCK.load(Relaxed) {
            set_over(false);
            return;
        }
        if start.elapsed() >= MAX_WAIT {
            STUCK.store(backlog, Relaxed);
            set_over(false);
            return;
        }
        // A guard that asks for the epoch to move on reclaims this thread's own backlog once
        // the others have moved on.
        let guard = Guard::new();
        guard.accelerate();
        drop(guard);
        std::thread::sleep(Duration::from_micros(50));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test for the whole protocol: the counts are per process, so a second test running
    /// beside this one would see its backlog.
    #[test]
    fn readers_wait_while_the_backlog_is_past_the_limit_and_go_on_when_it_drains() {
        assert!(!OVER.load(Relaxed) || backlog() > LIMIT);
        count(2 * LIMIT);
        assert!(backlog() >= LIMIT + PUBLISH && OVER.load(Relaxed));

        // Nobody reclaims: the wait gives up after its longest, and readers go on without
        // waiting until the backlog grows by the limit again.
        let start = Instant::now();
        throttle();
        assert!(start.elapsed() >= MAX_WAIT);
        assert!(!OVER.load(Relaxed) && STUCK.load(Relaxed) >= LIMIT);
        count(LIMIT / 2);
        assert!(!OVER.load(Relaxed));
        count(LIMIT);
        assert!(OVER.load(Relaxed));

        // Another thread reclaims meanwhile: the wait ends with the backlog under the limit.
        let reclaimer = std::thread::spawn(|| {
            std::thread::sleep(Duration::from_millis(2));
            count(-2 * LIMIT - LIMIT / 2 - LIMIT);
        });
        throttle();
        reclaimer.join().unwrap();
        assert!(!OVER.load(Relaxed) && backlog() < LIMIT && STUCK.load(Relaxed) < LIMIT);
    }
}
