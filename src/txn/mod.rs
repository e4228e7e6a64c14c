//! Transactions: snapshot isolation on the store's version chains, with reads that never block
//! and write nothing shared.
//!
//! # The pieces
//! - [`clock`]: commit timestamps, issued by one counter and published in order.
//! - [`pins`]: each session slot's own cache-padded record of the snapshot it reads at (for the
//!   reclaimer) and its transaction-id sequence.
//! - [`log`]: a session's per-table logs of the versions it wrote (commit stamps them, rollback
//!   unlinks them) and of committed versions whose history waits for reclamation.
//! - [`state`]: a session's transaction state machine ([`Txn`]): begin, commit, rollback, the
//!   read view of each operation, writes, conflicts, reclamation.
//!
//! # Snapshots
//! A snapshot is a read timestamp: the clock's published value when it was taken. A reader
//! sees a version when its commit timestamp is `<=` the read timestamp, or when it wrote it
//! itself (`crate::store::ReadView`). Taking a snapshot is two loads of the clock and one store
//! to the session's own record; ending it is one store. A read-only transaction does nothing
//! else: no transaction id, no timestamp, no read-modify-write, no lock.
//!
//! # Writes and conflicts
//! A transaction gets an id at its first write (from its slot's own sequence: no shared
//! counter). It installs an uncommitted version ([`crate::store::TS_PENDING`], its id) in front
//! of the key's chain with one compare-and-swap. The head decides conflicts: another
//! transaction's uncommitted version, or a version committed after this transaction's snapshot,
//! is a write-write conflict (`WT_ROLLBACK`, and the transaction must roll back). Writers of
//! different keys touch no common line except the clock at commit.
//!
//! # Commit protocol: ordered publication
//! Commit takes a timestamp `t` from the clock, stamps each of its versions with `t` (O(own
//! writes)), waits until every timestamp below `t` is published, then publishes `t`. A snapshot
//! reads the published value, so every version it can see was stamped before it was taken: a
//! reader never sees a commit half done and never waits; committers wait for the commits that
//! took earlier timestamps (they are stamping, a few stores each). Rollback unlinks its versions
//! (newest first) and marks them aborted for readers that still hold them.
//!
//! # Reclamation
//! The oldest read timestamp in use is the minimum of the clock and every session's published
//! snapshot (`pins` explains the two-load publication that makes this race-free). Behind the
//! first version committed at or before it (the *base*), nothing is visible to anyone, and
//! `crate::store::Slot::prune` cuts it (freed through the epoch scheme, so a reader still
//! walking it is safe). Each session computes the horizon itself, amortised (each time it has
//! queued 128 more committed versions than the last pass left), and prunes the slots it wrote: writers pay for reclamation in proportion to their writes, readers never do,
//! and no lock is taken. A closing session hands its queue to the connection (`orphans`), which
//! the next session to reclaim adopts.

pub mod clock;
pub mod log;
pub mod pins;
pub mod state;
pub mod timestamps;

#[cfg(test)]
mod tests;

pub use state::{Txn, TxnStats};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::btree::cache::Cache;
use crate::error::{Error, Result};
use crate::schema::Table;
use crate::store::Horizon;

use clock::CommitClock;
use log::Committed;
use pins::Pins;

/// Transaction isolation levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Sees other transactions' uncommitted writes.
    ReadUncommitted,
    /// Each read sees the latest committed data.
    ReadCommitted,
    /// Sees a snapshot taken when the transaction began.
    Snapshot,
}

impl Isolation {
    /// The level named by a validated `isolation=` value (anything else: snapshot).
    pub fn parse(text: &str) -> Isolation {
        match text {
            "read-uncommitted" => Isolation::ReadUncommitted,
            "read-committed" => Isolation::ReadCommitted,
            _ => Isolation::Snapshot,
        }
    }
}

/// The application timestamps of a checkpoint: the one it holds data as of (`bound`), and the
/// stable and oldest timestamps it records (0: none), which a reopen starts from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckpointStamps {
    /// Versions with a later application timestamp stay out of the trees.
    pub bound: u64,
    /// The stable timestamp.
    pub stable: u64,
    /// The oldest timestamp.
    pub oldest: u64,
}

impl CheckpointStamps {
    /// These stamps, or with `use_timestamp` false every commit and no stable timestamp
    /// (`checkpoint(use_timestamp=false)`: the reference then records none).
    pub fn using_timestamp(self, use_timestamp: bool) -> CheckpointStamps {
        if use_timestamp {
            self
        } else {
            CheckpointStamps { bound: crate::store::NO_READ_TS, stable: 0, ..self }
        }
    }
}

/// Committed versions a closed session could not reclaim yet, by table.
type Orphans = Vec<(Arc<Table>, Committed)>;

/// The connection's transaction state: the commit clock, the sessions' published records, and
/// reclamation work left by closed sessions.
pub struct TxnShared {
    /// The connection's cache budget, which writers publish their index bytes to.
    pub cache: Arc<Cache>,
    clock: CommitClock,
    pins: Pins,
    /// Taken only at session close and by a reclaiming session that sees `has_orphans`: never
    /// on a read path, never waited for by a write (`try_lock`).
    orphans: Mutex<Orphans>,
    has_orphans: AtomicBool,
    /// The application's timestamps (`set_timestamp`, `query_timestamp`).
    pub timestamps: timestamps::Global,
}

impl TxnShared {
    /// Memory one session slot costs: its record and, at most, two places in the commit ring
    /// (rounded up to a power of two).
    ///
    /// cbindgen:ignore
    pub const BYTES_PER_SLOT: usize = Pins::BYTES_PER_SLOT + 2 * CommitClock::BYTES_PER_SLOT;

    /// The state for `sessions` session slots.
    pub fn new(sessions: usize, cache: Arc<Cache>) -> Self {
        TxnShared {
            cache,
            clock: CommitClock::new(sessions),
            pins: Pins::new(sessions),
            orphans: Mutex::new(Vec::new()),
            has_orphans: AtomicBool::new(false),
            timestamps: timestamps::Global::default(),
        }
    }

    /// The commit clock.
    pub fn clock(&self) -> &CommitClock {
        &self.clock
    }

    /// The oldest read timestamp any session may still use.
    pub fn oldest(&self) -> u64 {
        self.pins.oldest(&self.clock)
    }

    /// The oldest application read timestamp any reader may use (the reference's *pinned*
    /// timestamp): the oldest timestamp, or an older running transaction's read timestamp;
    /// 0 when no oldest timestamp is set (then no timestamped version is visible to all).
    pub fn pinned(&self) -> u64 {
        // The oldest timestamp first, then the records: see `pins::Pins::publish_read`.
        let Some(oldest) = self.timestamps.oldest() else { return 0 };
        match self.pins.oldest_read() {
            0 => oldest,
            read => read.min(oldest),
        }
    }

    /// The application timestamp merges carry state as of: the stable timestamp when one is set
    /// (a checkpoint holds what is stable), else every commit. Logged tables' versions carry no
    /// timestamp, so every merge takes them whole (the journal makes each commit durable, as
    /// the reference's logged tables).
    pub fn merge_bound(&self) -> u64 {
        self.timestamps.stable().unwrap_or(crate::store::NO_READ_TS)
    }

    /// What a checkpoint holds data as of ([`merge_bound`](Self::merge_bound)) and records.
    pub fn checkpoint_bounds(&self) -> CheckpointStamps {
        CheckpointStamps {
            bound: self.merge_bound(),
            stable: self.timestamps.stable().unwrap_or(0),
            oldest: self.timestamps.oldest().unwrap_or(0),
        }
    }

    /// What every reader can see now: history behind it can go.
    pub fn horizon(&self) -> Horizon {
        Horizon { seq: self.oldest(), ts: self.pinned() }
    }

    /// `WT_CONNECTION::query_timestamp(get=…)`.
    pub fn query_timestamp(&self, what: &str) -> Result<u64> {
        let ts = &self.timestamps;
        match what {
            "all_durable" => {
                let Some(durable) = ts.durable() else { return Ok(0) };
                Ok(match self.pins.oldest_durable() {
                    0 => durable,
                    running => durable.min(running - 1),
                })
            }
            "oldest_reader" => Ok(self.pins.oldest_read()),
            "pinned" => Ok(self.pinned()),
            _ => ts.query(what).ok_or_else(|| Error::invalid(format!("unknown timestamp query {what}"))),
        }
    }

    /// Whether any session runs a transaction.
    pub fn any_running(&self) -> bool {
        self.pins.any_running()
    }

    fn leave(&self, orphans: Orphans) {
        if orphans.is_empty() {
            return;
        }
        self.orphans.lock().extend(orphans);
        self.has_orphans.store(true, Ordering::Release);
    }

    fn adopt(&self) -> Orphans {
        if !self.has_orphans.load(Ordering::Acquire) {
            return Vec::new();
        }
        match self.orphans.try_lock() {
            Some(mut list) => {
                self.has_orphans.store(false, Ordering::Release);
                std::mem::take(&mut *list)
            }
            None => Vec::new(),
        }
    }
}
