//! The connection's `statistics` setting and the snapshots statistics cursors take of the
//! per-session counters.
//!
//! Readers sum the session slots' blocks ([`Summer`] skips the blocks of idle sessions) under
//! one mutex: statistics reads are rare and never on an operation's path. `clear` and enabling
//! statistics later are both done here, reader side, by moving a baseline that clearable
//! counters are reported against; the sessions' counters themselves are never written by
//! anyone but their owner.

use std::sync::atomic::{AtomicI64, Ordering};

use parking_lot::{Mutex, RwLock};

use crate::config::StatisticsFlags;
use crate::stats::catalog::CONN_CACHE_BYTES_MAX;
use crate::stats::counters::{conn_report, SlotStats, Summer, CONN_STATS};
use crate::stats::Snapshot;

/// The connection's statistics state.
pub struct ConnStatistics {
    flags: RwLock<StatisticsFlags>,
    reader: Mutex<Reader>,
    /// `cache_size`, reported as "cache: maximum bytes configured" (settable by `reconfigure`).
    cache_size: AtomicI64,
}

struct Reader {
    summer: Summer,
    /// Totals at the last `clear` (or when statistics were enabled), for clearable counters.
    baseline: [i64; CONN_STATS],
}

impl ConnStatistics {
    /// The state for a connection opened with `flags` and `cache_size`.
    pub fn new(flags: StatisticsFlags, cache_size: i64) -> Self {
        ConnStatistics { flags: RwLock::new(flags), reader: Mutex::new(Reader::default()), cache_size: AtomicI64::new(cache_size) }
    }

    /// What the connection maintains now.
    pub fn flags(&self) -> StatisticsFlags {
        *self.flags.read()
    }

    /// `WT_CONNECTION::reconfigure` of `statistics`. Enabling statistics that were off starts
    /// the clearable counters from zero, as the reference's do.
    pub fn reconfigure(&self, flags: StatisticsFlags, slots: &SlotStats) {
        let mut current = self.flags.write();
        if !current.enabled() && flags.enabled() {
            self.reader.lock().rebase(slots);
        }
        *current = flags;
    }

    /// `WT_CONNECTION::reconfigure` of `cache_size`.
    pub fn set_cache_size(&self, bytes: i64) {
        self.cache_size.store(bytes, Ordering::Relaxed);
    }

    /// The connection statistics (`statistics:`), sorted by id; with `clear`, the clearable
    /// counters then start again from zero.
    pub fn snapshot(&self, slots: &SlotStats, clear: bool) -> Snapshot {
        let mut reader = self.reader.lock();
        let totals = *reader.summer.sum(slots);
        let mut snapshot: Snapshot = conn_report(&totals, &reader.baseline);
        snapshot.push((CONN_CACHE_BYTES_MAX, self.cache_size.load(Ordering::Relaxed)));
        snapshot.sort_unstable_by_key(|&(id, _)| id);
        if clear {
            reader.baseline = totals;
        }
        snapshot
    }
}

impl Default for Reader {
    fn default() -> Self {
        Reader { summer: Summer::default(), baseline: [0; CONN_STATS] }
    }
}

impl Reader {
    fn rebase(&mut self, slots: &SlotStats) {
        self.baseline = *self.summer.sum(slots);
    }
}
