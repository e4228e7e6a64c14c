//! A session's per-table logs of versions: the running transaction's uncommitted writes (for
//! commit and rollback) and its committed versions that still have history behind them (for
//! reclamation).
//!
//! Each table a session writes gets one log holding the session's reference to the table, taken
//! once: a write adds entries, not reference counts on the table.

use std::collections::VecDeque;
use std::sync::atomic::Ordering::{Acquire, Relaxed};
use std::sync::Arc;

use scc::{Guard, Shared};
use sdd::Ptr;

use crate::schema::Table;
use crate::store::{Horizon, Slot, Version};

/// One version a session wrote.
pub struct Entry {
    slot: Shared<Slot>,
    version: Shared<Version>,
    /// The key, kept only where the slot may have to leave the index by key: for removals
    /// (once every reader sees them) and for writes into an empty slot (if rolled back).
    key: EntryKey,
    /// A value written into an empty slot: once committed, the slot's only version.
    first_value: bool,
}

/// Where an entry's key is.
enum EntryKey {
    None,
    /// Uncommitted: `len` bytes at `at` in its table log's `keys` (no allocation per write).
    At { at: u32, len: u32 },
    /// Committed and still queued.
    Owned(Box<[u8]>),
}

impl Entry {

    /// Whether reclamation has nothing to do for it once committed: a one-version chain has
    /// no history to prune and is no removal to retire (versions with an application
    /// timestamp stay queued: a merge may put a base under them).
    fn settled(&self) -> bool {
        self.first_value && self.version.start_ts.load(Relaxed) == 0
    }

    /// The key of a queued (committed) entry.
    fn owned_key(&self) -> Option<&[u8]> {
        match &self.key {
            EntryKey::Owned(key) => Some(key),
            _ => None,
        }
    }
}

/// Committed entries of one table, oldest first, with their commit timestamps.
pub type Committed = VecDeque<(u64, Entry)>;

/// One table's log.
struct TableLog {
    table: Arc<Table>,
    /// The running transaction's versions, in write order.
    uncommitted: Vec<Entry>,
    /// Committed versions (with their commit timestamps, oldest first) whose slots may hold
    /// history, or tombstones, that readers still need.
    committed: Committed,
    /// The keys of `uncommitted` entries that keep one, back to back.
    keys: Vec<u8>,
}

impl TableLog {
    /// The key of an uncommitted entry.
    fn key_of<'a>(&'a self, entry: &'a Entry) -> Option<&'a [u8]> {
        match entry.key {
            EntryKey::None => None,
            EntryKey::At { at, len } => Some(&self.keys[at as usize..(at + len) as usize]),
            EntryKey::Owned(ref key) => Some(key),
        }
    }
}

/// A session's logs.
#[derive(Default)]
pub struct Logs {
    tables: Vec<TableLog>,
    /// Entries in every `committed` queue.
    queued: usize,
    /// Entries committed and dropped at once ([`Entry::settled`]) since the last
    /// [`rescanned`](Self::rescanned): they count toward the next horizon refresh as queued
    /// ones would (else a session writing mostly new keys would seldom refresh it, and the
    /// history its updates left would wait).
    settled: usize,
}

impl Logs {
    /// Records an uncommitted write to `table`: the version just installed in `slot` (both
    /// under the writer's guard); `key` for removals and writes into an empty slot, which
    /// `first_value` marks when the version is a value.
    pub fn add(&mut self, table: &Arc<Table>, slot: Ptr<'_, Slot>, version: Ptr<'_, Version>, key: Option<&[u8]>, first_value: bool) {
        // Neither can be unreferenced: the slot holds the version (no one else replaces an
        // uncommitted head), and a slot holding a version is in the index.
        let slot = slot.get_shared().expect("the written slot is referenced by the index");
        let version = version.get_shared().expect("the written version is the slot's head");
        let log = match self.tables.iter().position(|l| Arc::ptr_eq(&l.table, table)) {
            Some(i) => &mut self.tables[i],
            None => {
                self.tables.push(TableLog {
                    table: Arc::clone(table),
                    uncommitted: Vec::new(),
                    committed: VecDeque::new(),
                    keys: Vec::new(),
                });
                self.tables.last_mut().expect("just pushed")
            }
        };
        let key = match key {
            Some(key) => {
                let at = log.keys.len() as u32;
                log.keys.extend_from_slice(key);
                EntryKey::At { at, len: key.len() as u32 }
            }
            None => EntryKey::None,
        };
        log.uncommitted.push(Entry { slot, version, key, first_value });
    }

    /// Whether the running transaction has written.
    pub fn has_uncommitted(&self) -> bool {
        self.tables.iter().any(|l| !l.uncommitted.is_empty())
    }

    /// Stamps every uncommitted version with `ts`: the part of a commit between taking its
    /// timestamp and publishing it, so nothing but the stores.
    pub fn stamp(&self, ts: u64) {
        for log in &self.tables {
            for entry in &log.uncommitted {
                entry.version.stamp(ts);
            }
        }
    }

    /// Gives every uncommitted version the application's commit and durable timestamps (those
    /// written while the transaction had a commit timestamp keep theirs, unless `prepared`:
    /// a prepared version's `start_ts` holds its prepare timestamp until now).
    pub fn stamp_app(&self, commit: u64, durable: u64, prepared: bool) {
        for log in self.tables.iter().filter(|l| l.table.uses_timestamps()) {
            for entry in &log.uncommitted {
                if prepared {
                    entry.version.start_ts.store(commit, Relaxed);
                    entry.version.durable_ts.store(durable, Relaxed);
                } else {
                    entry.version.stamp_app(commit, durable);
                }
            }
        }
    }

    /// The reference's timestamp-usage rules at commit (its default `write_timestamp_usage`):
    /// on a table that takes timestamps, each write's timestamp (`commit` unless it got one when
    /// written) must not be before the durable timestamp of the version it replaced, and a
    /// transaction without timestamps may not write over a timestamped version unless it began
    /// with `no_timestamp=true`.
    pub fn check_usage(&self, commit: u64, has_timestamp: bool, no_timestamp: bool, prepared: bool) -> crate::error::Result<()> {
        let guard = Guard::new();
        for log in self.tables.iter().filter(|l| l.table.uses_timestamps()) {
            for entry in &log.uncommitted {
                let Some(previous) = entry.version.next.load(Acquire, &guard).as_ref() else { continue };
                let before = previous.durable_ts.load(Relaxed);
                if before == 0 {
                    continue;
                }
                let name = log.table.name();
                if !has_timestamp && !no_timestamp {
                    return Err(crate::error::Error::invalid(format!(
                        "file:{name}.wt: unexpected timestamp usage: no timestamp provided for an update to a table \
                         configured to always use timestamps once they are first used"
                    )));
                }
                // A prepared version's `start_ts` holds its prepare timestamp until the commit.
                let own = match entry.version.start_ts.load(Relaxed) {
                    ts if ts != 0 && !prepared => ts,
                    _ => commit,
                };
                if has_timestamp && before > own {
                    return Err(crate::error::Error::invalid(format!(
                        "file:{name}.wt: unexpected timestamp usage: updating a value with a timestamp {} before the \
                         previous update {}",
                        super::timestamps::describe(own),
                        super::timestamps::describe(before)
                    )));
                }
            }
        }
        Ok(())
    }

    /// A table the running transaction wrote that takes no timestamps (it cannot be prepared).
    pub fn untimestamped_table(&self) -> Option<&Arc<Table>> {
        self.tables.iter().find(|l| !l.uncommitted.is_empty() && !l.table.uses_timestamps()).map(|l| &l.table)
    }

    /// Marks every uncommitted version prepared at `prepare_ts`, commit sequence `seq`.
    pub fn prepare(&self, prepare_ts: u64, seq: u64) {
        for log in &self.tables {
            for entry in &log.uncommitted {
                entry.version.mark_prepared(prepare_ts, seq);
            }
        }
    }

    /// Queues the versions stamped with `ts` for reclamation (after the commit is published).
    pub fn committed(&mut self, ts: u64) {
        for log in &mut self.tables {
            for mut entry in log.uncommitted.drain(..) {
                // Dropped at once (its references let go) instead of by `reclaim`.
                if entry.settled() {
                    self.settled += 1;
                    continue;
                }
                if let EntryKey::At { at, len } = entry.key {
                    entry.key = EntryKey::Owned(Box::from(&log.keys[at as usize..(at + len) as usize]));
                }
                log.committed.push_back((ts, entry));
                self.queued += 1;
            }
            log.keys.clear();
        }
    }

    /// Unlinks every uncommitted version, newest first, and retires slots the transaction
    /// created and left empty.
    pub fn rollback(&mut self) {
        let guard = Guard::new();
        for log in &mut self.tables {
            while let Some(entry) = log.uncommitted.pop() {
                let head = entry.slot.head.load(Acquire, &guard);
                // No other writer stacks on an uncommitted version: the newest is the head.
                debug_assert!(std::ptr::eq(head.as_ptr(), entry.version.as_ptr()));
                if std::ptr::eq(head.as_ptr(), entry.version.as_ptr()) {
                    entry.slot.unlink_pending(head, &guard);
                }
                if let Some(key) = log.key_of(&entry) {
                    if entry.slot.head.load(Acquire, &guard).is_null() {
                        // A key this transaction created: its emptied slot leaves the index.
                        log.table.index().retire_if_removed(key, &entry.slot, 0, 0, &guard);
                    }
                }
            }
            log.keys.clear();
        }
    }

    /// Committed entries waiting for reclamation.
    pub fn queued(&self) -> usize {
        self.queued
    }

    /// Committed entries since the last [`rescanned`](Self::rescanned): those still queued
    /// and those dropped at commit.
    pub fn committed_since_rescan(&self) -> usize {
        self.queued + self.settled
    }

    /// The horizon was just refreshed.
    pub fn rescanned(&mut self) {
        self.settled = 0;
    }

    /// Reclaims what no reader at or after `horizon` can see: prunes the history of every
    /// queued slot whose version every reader sees, and retires the slots of removals every
    /// reader sees. Returns the number of entries still queued. O(tables) when nothing is due.
    pub fn reclaim(&mut self, horizon: Horizon) -> usize {
        let mut guard = None;
        let mut dropped = false;
        for log in &mut self.tables {
            while let Some((ts, entry)) = log.committed.front() {
                if *ts > horizon.seq || entry.version.start_ts.load(Relaxed) > horizon.ts {
                    break;
                }
                let guard = guard.get_or_insert_with(Guard::new);
                entry.slot.prune(horizon.seq, horizon.ts, guard);
                if let Some(key) = entry.owned_key() {
                    log.table.index().retire_if_removed(key, &entry.slot, horizon.seq, horizon.ts, guard);
                }
                log.committed.pop_front();
                self.queued -= 1;
            }
            dropped |= log.uncommitted.is_empty() && log.table.is_dropped();
        }
        if dropped {
            // Logs of dropped tables let their table go (a log stays otherwise: taking the
            // table's reference again at the next write would touch its shared count).
            self.tables.retain(|l| !(l.uncommitted.is_empty() && l.table.is_dropped()));
            self.queued = self.tables.iter().map(|l| l.committed.len()).sum();
        }
        self.queued
    }

    /// Lets go of the tables whose logs hold nothing (a closing session: a table it wrote and
    /// rolled back, then dropped, would otherwise stay alive as long as the session's memory is
    /// kept for reuse).
    pub fn release_idle(&mut self) {
        self.tables.retain(|l| !l.uncommitted.is_empty() || !l.committed.is_empty());
    }

    /// Whether the logs hold `table` (tests).
    #[cfg(test)]
    pub fn holds(&self, table: &Arc<Table>) -> bool {
        self.tables.iter().any(|l| Arc::ptr_eq(&l.table, table))
    }

    /// Moves every committed entry out (a closing session hands them to the connection).
    pub fn take_committed(&mut self) -> Vec<(Arc<Table>, Committed)> {
        self.queued = 0;
        self.tables
            .drain(..)
            .filter(|l| !l.committed.is_empty() && !l.table.is_dropped())
            .map(|l| (l.table, l.committed))
            .collect()
    }

    /// Takes over entries another session left behind.
    pub fn adopt(&mut self, table: Arc<Table>, entries: Committed) {
        self.queued += entries.len();
        match self.tables.iter_mut().find(|l| Arc::ptr_eq(&l.table, &table)) {
            Some(log) => {
                // Keep each queue ordered by timestamp: merge by appending then sorting (rare).
                log.committed.extend(entries);
                log.committed.make_contiguous().sort_by_key(|(ts, _)| *ts);
            }
            None => self.tables.push(TableLog { table, uncommitted: Vec::new(), committed: entries, keys: Vec::new() }),
        }
    }
}
