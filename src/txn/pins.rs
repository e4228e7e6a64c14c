//! Per-session published state: each session slot's own cache-padded record of the snapshot it
//! reads at, and its transaction-id sequence.
//!
//! Only the owning session writes its record; the reclaimer reads them all to find the oldest
//! snapshot. Publishing a snapshot is a store to the session's own line (no read-modify-write
//! on a shared line, no lock), so read-only transactions write nothing another thread writes.
//!
//! # Why a pinning reader reads the clock twice
//! A reader loads the clock (`s1`), publishes `s1` in its record, then loads the clock again and
//! reads at that second value `s2 >= s1`. The reclaimer loads the clock (`c`) before it reads the
//! records, and computes `oldest = min(c, records)`. All of these are sequentially consistent,
//! so either the reclaimer's read of the record sees `s1` (then `oldest <= s1 <= s2`), or it came
//! before the publication, and then its clock load came before the reader's second one, so
//! `c <= s2`. Either way `oldest <= s2`: the history a snapshot at `s2` needs is never cut.

use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};

use crossbeam_utils::CachePadded;

use super::clock::CommitClock;

/// A record's value when its session reads at no snapshot.
pub const NO_PIN: u64 = u64::MAX;

/// One session slot's published state.
struct Pin {
    /// The read timestamp of the session's snapshot (a lower bound of it), or [`NO_PIN`].
    read_ts: AtomicU64,
    /// Transactions of this slot that have written (ids stay unique across the sessions that
    /// use the slot one after the other).
    txn_seq: AtomicU64,
    /// The running transaction's application read timestamp (0: none).
    app_read: AtomicU64,
    /// The running transaction's durable timestamp, once it has one (0: none): `all_durable`
    /// stays below it until the transaction ends.
    durable: AtomicU64,
    /// Whether a transaction runs (`rollback_to_stable` refuses to run beside one).
    running: AtomicBool,
}

/// The records of every session slot.
pub struct Pins {
    pins: Box<[CachePadded<Pin>]>,
    /// One past the highest slot ever attached: the reclaimer scans no further.
    used: CachePadded<AtomicUsize>,
}

impl Pins {
    /// Memory one session slot's record costs.
    ///
    /// cbindgen:ignore
    pub const BYTES_PER_SLOT: usize = size_of::<CachePadded<Pin>>();

    /// Records for `capacity` session slots.
    pub fn new(capacity: usize) -> Self {
        let pins = (0..capacity)
            .map(|_| CachePadded::new(Pin {
                    read_ts: AtomicU64::new(NO_PIN),
                    txn_seq: AtomicU64::new(0),
                    app_read: AtomicU64::new(0),
                    durable: AtomicU64::new(0),
                    running: AtomicBool::new(false),
                }))
            .collect();
        Pins { pins, used: CachePadded::new(AtomicUsize::new(0)) }
    }

    /// Makes `slot` visible to the reclaimer (at session open; a read-modify-write only the
    /// first time a slot number is reached).
    pub fn attach(&self, slot: usize) {
        if self.used.load(SeqCst) <= slot {
            self.used.fetch_max(slot + 1, SeqCst);
        }
    }

    /// Publishes a snapshot for `slot` and returns its read timestamp (see the module notes).
    #[inline]
    pub fn pin(&self, slot: usize, clock: &CommitClock) -> u64 {
        let first = clock.now();
        self.pins[slot].read_ts.store(first, SeqCst);
        clock.now()
    }

    /// Withdraws `slot`'s snapshot.
    #[inline]
    pub fn unpin(&self, slot: usize) {
        self.pins[slot].read_ts.store(NO_PIN, SeqCst);
    }

    /// The oldest read timestamp any session may still use: history that a snapshot at this
    /// timestamp cannot see can go. O(slots in use); callers amortise it over many writes.
    pub fn oldest(&self, clock: &CommitClock) -> u64 {
        let mut oldest = clock.now();
        let used = self.used.load(SeqCst).min(self.pins.len());
        for pin in &self.pins[..used] {
            oldest = oldest.min(pin.read_ts.load(SeqCst));
        }
        oldest
    }

    /// Publishes `slot`'s application read timestamp (0: none). Sequentially consistent: a
    /// reader publishes, then checks the oldest timestamp again; a reclaimer reads the oldest
    /// timestamp, then the records (so one of the two sees the other, as for snapshots).
    #[inline]
    pub fn publish_read(&self, slot: usize, ts: u64) {
        self.pins[slot].app_read.store(ts, SeqCst);
    }

    /// Publishes `slot`'s running transaction's durable timestamp (0: none).
    #[inline]
    pub fn publish_durable(&self, slot: usize, ts: u64) {
        self.pins[slot].durable.store(ts, SeqCst);
    }

    /// Marks whether a transaction runs in `slot`.
    #[inline]
    pub fn set_running(&self, slot: usize, running: bool) {
        self.pins[slot].running.store(running, Relaxed);
    }

    /// Whether a transaction runs in any slot.
    pub fn any_running(&self) -> bool {
        self.used().iter().any(|p| p.running.load(SeqCst))
    }

    /// The smallest application read timestamp published (0: none).
    pub fn oldest_read(&self) -> u64 {
        self.used().iter().map(|p| p.app_read.load(SeqCst)).filter(|&ts| ts != 0).min().unwrap_or(0)
    }

    /// The smallest durable timestamp of a running transaction (0: none).
    pub fn oldest_durable(&self) -> u64 {
        self.used().iter().map(|p| p.durable.load(SeqCst)).filter(|&ts| ts != 0).min().unwrap_or(0)
    }

    fn used(&self) -> &[CachePadded<Pin>] {
        let used = self.used.load(SeqCst).min(self.pins.len());
        &self.pins[..used]
    }

    /// A new transaction id for `slot`: unique across all slots, never 0, and allocated without
    /// touching any other session's line.
    pub fn next_txn_id(&self, slot: usize) -> u64 {
        let seq = &self.pins[slot].txn_seq;
        let n = seq.load(Relaxed) + 1;
        seq.store(n, Relaxed);
        n * self.pins.len() as u64 + slot as u64 + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_is_the_smallest_pin_or_now() {
        let clock = CommitClock::new(4);
        let pins = Pins::new(4);
        pins.attach(0);
        pins.attach(2);
        assert_eq!(pins.oldest(&clock), 0);
        clock.tick();
        assert_eq!(pins.pin(2, &clock), 1);
        for _ in 0..3 {
            clock.tick();
        }
        assert_eq!(pins.oldest(&clock), 1);
        assert_eq!(pins.pin(0, &clock), 4);
        assert_eq!(pins.oldest(&clock), 1);
        pins.unpin(2);
        assert_eq!(pins.oldest(&clock), 4);
        pins.unpin(0);
        assert_eq!(pins.oldest(&clock), 4);
    }

    #[test]
    fn txn_ids_are_unique_per_slot() {
        let pins = Pins::new(3);
        let mut ids: Vec<u64> = (0..3).flat_map(|slot| (0..5).map(move |_| slot)).map(|s| pins.next_txn_id(s)).collect();
        assert!(ids.iter().all(|&id| id != 0));
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 15);
    }
}
