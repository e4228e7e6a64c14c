//! The statistics the engine keeps, as counters that only their owner writes.
//!
//! Every connection statistic lives in one [`SessionStats`] block per session slot, and every
//! data-source statistic in one [`TableStats`] block per (session, table) use record. The owning
//! session updates its counters with a relaxed load and a relaxed store: no read-modify-write
//! instruction and no cache line that another thread writes (the seed `000_*` lesson). Readers
//! (statistics cursors, the statistics log) sum the blocks when they take a snapshot; the sum is
//! not one atomic instant, and each counter in it is exact up to the operations still in flight.
//!
//! Each session block also carries a change count, bumped with every update, so a reader can
//! skip the blocks of idle sessions: it keeps what it read last time and reads a block again only
//! when the change count moved (see [`Summer`]).

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

/// A counter written only by its owner.
#[derive(Default, Debug)]
pub struct Counter(AtomicI64);

impl Counter {
    /// Adds `n`. Only the owner calls this, so a load and a store suffice.
    #[inline(always)]
    pub fn add(&self, n: i64) {
        self.0.store(self.0.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
    }

    /// The current value.
    #[inline]
    pub fn get(&self) -> i64 {
        self.0.load(Ordering::Relaxed)
    }
}

macro_rules! stat_enum {
    ($(#[$doc:meta])* $name:ident, $n:ident, $ids:ident, $keep:ident { $($(#[$vdoc:meta])* $variant:ident = $id:literal $(, $flag:ident)?;)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(usize)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        /// Number of statistics of this kind.
        pub const $n: usize = [$($id),*].len();

        /// The reference's statistic id (the `WT_STAT_*` key) of each statistic, in order.
        pub const $ids: [i32; $n] = [$($id),*];

        /// Whether each statistic is a current-state figure that `statistics=(clear)` keeps.
        pub const $keep: [bool; $n] = [$(stat_enum!(@keep $($flag)?)),*];
    };
    (@keep keep) => { true };
    (@keep) => { false };
}

stat_enum! {
    /// A connection statistic the engine keeps (ids in `statistics.md` §5).
    ConnStat, CONN_STATS, CONN_IDS, CONN_KEEP {
        /// cursor: cached cursor count
        CachedCursors = 1360, keep;
        /// cursor: cursor close calls that result in cache
        CacheCloses = 1372;
        /// cursor: cursor create calls
        Creates = 1375;
        /// cursor: cursor insert calls
        Inserts = 1379;
        /// cursor: cursor insert calls that return an error
        InsertErrors = 1380;
        /// cursor: cursor insert key and value bytes
        InsertBytes = 1382;
        /// cursor: cursor next calls
        Nexts = 1388;
        /// cursor: cursor next calls that return an error
        NextErrors = 1389;
        /// cursor: cursor prev calls
        Prevs = 1395;
        /// cursor: cursor prev calls that return an error
        PrevErrors = 1396;
        /// cursor: cursor remove calls
        Removes = 1401;
        /// cursor: cursor remove calls that return an error
        RemoveErrors = 1402;
        /// cursor: cursor remove key bytes removed
        RemoveBytes = 1403;
        /// cursor: cursor reset calls
        Resets = 1407;
        /// cursor: cursor search calls
        Searches = 1409;
        /// cursor: cursor search calls that return an error
        SearchErrors = 1410;
        /// cursor: cursor search near calls
        SearchNears = 1412;
        /// cursor: cursor search near calls that return an error
        SearchNearErrors = 1413;
        /// cursor: cursor sweep buckets
        SweepBuckets = 1414;
        /// cursor: cursor sweep cursors closed
        SweepClosed = 1415;
        /// cursor: cursor sweep cursors examined
        SweepExamined = 1416;
        /// cursor: cursor sweeps
        Sweeps = 1417;
        /// cursor: cursor update calls
        Updates = 1420;
        /// cursor: cursor update calls that return an error
        UpdateErrors = 1421;
        /// cursor: cursor update key and value bytes
        UpdateBytes = 1422;
        /// cursor: cursors reused from cache
        Reuses = 1424;
        /// cursor: open cursor count
        OpenCursors = 1425, keep;
        /// session: open session count
        OpenSessions = 1601, keep;
        /// session: table create failed calls
        CreateFailed = 1617, keep;
        /// session: table create successful calls
        CreateOk = 1618, keep;
        /// session: table drop failed calls
        DropFailed = 1622, keep;
        /// session: table drop successful calls
        DropOk = 1623, keep;
    }
}

stat_enum! {
    /// A data-source (table) statistic the engine keeps.
    DsrcStat, DSRC_STATS, DSRC_IDS, DSRC_KEEP {
        /// cursor: cache cursors reuse count
        Reuses = 2183;
        /// cursor: close calls that result in cache
        CacheCloses = 2184;
        /// cursor: create calls
        Creates = 2185;
        /// cursor: insert calls
        Inserts = 2222;
        /// cursor: insert key and value bytes
        InsertBytes = 2223;
        /// cursor: next calls
        Nexts = 2227;
        /// cursor: open cursor count
        OpenCursors = 2228, keep;
        /// cursor: prev calls
        Prevs = 2230;
        /// cursor: remove calls
        Removes = 2231;
        /// cursor: remove key bytes removed
        RemoveBytes = 2232;
        /// cursor: reset calls
        Resets = 2234;
        /// cursor: search calls
        Searches = 2235;
        /// cursor: search near calls
        SearchNears = 2237;
        /// cursor: update calls
        Updates = 2239;
        /// cursor: update key and value bytes
        UpdateBytes = 2240;
    }
}

/// One session slot's connection statistics, plus the change count readers use to skip it.
#[derive(Debug)]
pub struct SessionStats {
    changes: AtomicU64,
    counters: [Counter; CONN_STATS],
}

impl Default for SessionStats {
    fn default() -> Self {
        SessionStats { changes: AtomicU64::new(0), counters: std::array::from_fn(|_| Counter::default()) }
    }
}

impl SessionStats {
    /// Adds `n` to `stat` (owner only).
    #[inline(always)]
    pub fn add(&self, stat: ConnStat, n: i64) {
        self.counters[stat as usize].add(n);
        // Release: a reader that sees the new count also sees the counter it covers.
        self.changes.store(self.changes.load(Ordering::Relaxed).wrapping_add(1), Ordering::Release);
    }

    /// The current value of `stat`.
    pub fn get(&self, stat: ConnStat) -> i64 {
        self.counters[stat as usize].get()
    }
}

/// One (session, table) use record's data-source statistics.
#[derive(Debug)]
pub struct TableStats {
    counters: [Counter; DSRC_STATS],
}

impl Default for TableStats {
    fn default() -> Self {
        TableStats { counters: std::array::from_fn(|_| Counter::default()) }
    }
}

impl TableStats {
    /// Adds `n` to `stat` (owner only).
    #[inline(always)]
    pub fn add(&self, stat: DsrcStat, n: i64) {
        self.counters[stat as usize].add(n);
    }

    /// The current value of `stat`.
    pub fn get(&self, stat: DsrcStat) -> i64 {
        self.counters[stat as usize].get()
    }

    /// Adds every counter of `self` into `totals`.
    pub fn add_into(&self, totals: &mut [i64; DSRC_STATS]) {
        for (t, c) in totals.iter_mut().zip(&self.counters) {
            *t += c.get();
        }
    }
}

/// The statistics blocks of every session slot of a connection, in one array so that a reader
/// walks them in address order.
#[derive(Debug)]
pub struct SlotStats {
    blocks: Box<[CachePadded<SessionStats>]>,
}

impl SlotStats {
    /// Blocks for `slots` session slots, all zero.
    pub fn new(slots: usize) -> Self {
        SlotStats { blocks: (0..slots).map(|_| CachePadded::new(SessionStats::default())).collect() }
    }

    /// The block of session slot `slot`.
    pub fn slot(&self, slot: usize) -> &SessionStats {
        &self.blocks[slot]
    }
}

/// A reader's running sums over [`SlotStats`]: per slot, the change count and counters it read
/// last, so that blocks whose change count did not move are not read again.
#[derive(Debug, Default)]
pub struct Summer {
    seen: Vec<(u64, [i64; CONN_STATS])>,
    totals: [i64; CONN_STATS],
}

impl Summer {
    /// Brings the totals up to date with `stats` and returns them.
    pub fn sum(&mut self, stats: &SlotStats) -> &[i64; CONN_STATS] {
        if self.seen.len() < stats.blocks.len() {
            self.seen.resize(stats.blocks.len(), (0, [0; CONN_STATS]));
        }
        for (block, (seen_changes, seen)) in stats.blocks.iter().zip(self.seen.iter_mut()) {
            let changes = block.changes.load(Ordering::Acquire);
            if changes == *seen_changes {
                continue;
            }
            *seen_changes = changes;
            for ((total, old), counter) in self.totals.iter_mut().zip(seen.iter_mut()).zip(&block.counters) {
                let now = counter.get();
                *total += now - *old;
                *old = now;
            }
        }
        &self.totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn ids_are_sorted_and_in_range() {
        assert!(CONN_IDS.windows(2).all(|w| w[0] < w[1]));
        assert!(CONN_IDS.iter().all(|id| (1000..=1711).contains(id)));
        assert!(DSRC_IDS.windows(2).all(|w| w[0] < w[1]));
        assert!(DSRC_IDS.iter().all(|id| (2000..=2298).contains(id)));
        assert_eq!(CONN_IDS[ConnStat::OpenCursors as usize], 1425);
        assert_eq!(DSRC_IDS[DsrcStat::OpenCursors as usize], 2228);
        assert!(CONN_KEEP[ConnStat::OpenCursors as usize] && !CONN_KEEP[ConnStat::Searches as usize]);
    }

    #[test]
    fn summer_rereads_only_changed_blocks_and_tracks_decreases() {
        let stats = SlotStats::new(4);
        let mut summer = Summer::default();
        stats.slot(0).add(ConnStat::Searches, 3);
        stats.slot(2).add(ConnStat::OpenCursors, 2);
        let totals = summer.sum(&stats);
        assert_eq!(totals[ConnStat::Searches as usize], 3);
        assert_eq!(totals[ConnStat::OpenCursors as usize], 2);
        stats.slot(2).add(ConnStat::OpenCursors, -1);
        stats.slot(1).add(ConnStat::Searches, 1);
        let totals = summer.sum(&stats);
        assert_eq!(totals[ConnStat::Searches as usize], 4);
        assert_eq!(totals[ConnStat::OpenCursors as usize], 1);
    }

    #[test]
    fn concurrent_owners_and_a_reader_agree_at_the_end() {
        let stats = Arc::new(SlotStats::new(8));
        let writers: Vec<_> = (0..4)
            .map(|slot| {
                let stats = Arc::clone(&stats);
                std::thread::spawn(move || {
                    for _ in 0..20_000 {
                        stats.slot(slot).add(ConnStat::Searches, 1);
                        stats.slot(slot).add(ConnStat::OpenCursors, 1);
                        stats.slot(slot).add(ConnStat::OpenCursors, -1);
                    }
                })
            })
            .collect();
        let mut summer = Summer::default();
        while !writers.iter().all(|w| w.is_finished()) {
            let totals = summer.sum(&stats);
            // A snapshot is never negative and never ahead of the work done.
            assert!((0..=4).contains(&totals[ConnStat::OpenCursors as usize]));
            assert!(totals[ConnStat::Searches as usize] <= 80_000);
        }
        for w in writers {
            w.join().unwrap();
        }
        let totals = summer.sum(&stats);
        assert_eq!(totals[ConnStat::Searches as usize], 80_000);
        assert_eq!(totals[ConnStat::OpenCursors as usize], 0);
    }
}
