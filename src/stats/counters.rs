//! The statistics the engine keeps, as counters that only their owner writes.
//!
//! Every connection statistic lives in one [`SessionStats`] block per session slot, and every
//! data-source statistic in one [`TableStats`] block per (session, table) use record. The owning
//! session updates its counters with a relaxed load and a release store: no read-modify-write
//! instruction and no cache line that another thread writes (the seed `000_*` lesson). Readers
//! (statistics cursors, the statistics log) sum the blocks when they take a snapshot; the sum is
//! not one atomic instant, and each counter in it is exact up to the operations still in flight.
//! Within one block, the counters the cursor cache's figures are derived from are read as of
//! one instant (`read_window`), so those figures are each session's true state at some moment
//! of the read.
//!
//! Readers keep what they read last time and re-read only the blocks of sessions that recorded
//! something since: a session marks itself in a dirty bitmap on its first event after each read
//! (see [`SlotStats`]), so idle sessions cost a reader one bit each.
//!
//! Current-state figures that the cursor cache moves on every open and close are derived when
//! statistics are read instead of kept (so a cached open+close writes two counters, not six):
//! "open cursor count" is the opens and closes not involving the cache ([`ConnStat::OpenAdjust`])
//! plus reuses minus cache-closes; "cached cursor count" is cache-closes minus reuses plus the
//! cached cursors freed without a reuse ([`ConnStat::CachedAdjust`]); "cursor reset calls" is the
//! other resets plus cache-closes (caching resets the cursor). See [`conn_report`] and
//! [`dsrc_report`].

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crossbeam_utils::CachePadded;

use super::catalog::{
    CONN_CURSOR_CACHED_COUNT, CONN_CURSOR_OPEN_COUNT, CONN_CURSOR_RESET, DSRC_CURSOR_OPEN_COUNT, DSRC_CURSOR_RESET,
};
use super::is_clearable;
use crate::sync::{AtomicBool, AtomicI64, AtomicU64};

/// A counter written only by its owner.
#[derive(Default, Debug)]
pub struct Counter(AtomicI64);

impl Counter {
    /// Adds `n`. Only the owner calls this, so a load and a store suffice. The store is a
    /// release (a plain store on x86-64): a reader that sees it sees the owner's earlier counts
    /// too, which `read_window` relies on.
    #[inline(always)]
    pub fn add(&self, n: i64) {
        self.0.store(self.0.load(Ordering::Relaxed).wrapping_add(n), Ordering::Release);
    }

    /// The current value.
    #[inline]
    pub fn get(&self) -> i64 {
        self.0.load(Ordering::Acquire)
    }
}

/// How often a reader tries for a quiet window before it keeps what it read.
const WINDOW_TRIES: usize = 16;

/// Reads `counters` into `out`, then the figures derived from the cache's counters again so
/// that they are those of one instant: `closes` (cache-closes, which only grows) is read
/// before and after `others` (reuses and the adjustments), and the reading is kept once
/// `closes` did not move in between. Read in one go instead, a reuse and a cache-close landing
/// between the reads of the two would show a cursor too many as open. The owner counts a
/// reuse before the close that follows it, with release stores, so within a quiet window the
/// reuses read are those of that instant. A session cycling faster than a few loads for
/// [`WINDOW_TRIES`] tries leaves the last reading, off by at most its cycles during one read.
fn read_window<const N: usize>(counters: &[Counter; N], closes: usize, others: &[usize], out: &mut [i64; N]) {
    for (o, c) in out.iter_mut().zip(counters) {
        *o = c.get();
    }
    for _ in 0..WINDOW_TRIES {
        let before = counters[closes].get();
        for &i in others {
            out[i] = counters[i].get();
        }
        out[closes] = counters[closes].get();
        if out[closes] == before {
            return;
        }
    }
}

macro_rules! stat_enum {
    ($(#[$doc:meta])* $name:ident, $n:ident, $ids:ident { $($(#[$vdoc:meta])* $variant:ident = $id:literal;)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(usize)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        /// Number of counters of this kind.
        pub const $n: usize = [$($id),*].len();

        /// The reference's statistic id (the `WT_STAT_*` key) each counter reports as, in order;
        /// 0 for the counters that only feed derived figures.
        pub const $ids: [i32; $n] = [$($id),*];
    };
}

stat_enum! {
    /// A connection counter the engine keeps (ids in `statistics.md` §5).
    ConnStat, CONN_STATS, CONN_IDS {
        /// Opens and closes of cursors that do not involve the cursor cache (feeds "open cursor
        /// count").
        OpenAdjust = 0;
        /// Cached cursors freed without being reused (feeds "cached cursor count").
        CachedAdjust = 0;
        /// autocommit: retries for update operations
        AutocommitUpdateRetries = 1011;
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
        /// cursor: cursor modify calls
        Modifies = 1384;
        /// cursor: cursor modify calls that return an error
        ModifyErrors = 1385;
        /// cursor: cursor modify key and value bytes affected
        ModifyBytes = 1386;
        /// cursor: cursor modify value bytes modified
        ModifyBytesTouched = 1387;
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
        /// cursor: cursor reserve calls
        Reserves = 1405;
        /// cursor: cursor reserve calls that return an error
        ReserveErrors = 1406;
        /// cursor: cursor reset calls, less those of cache-closes
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
        /// session: open session count
        OpenSessions = 1601;
        /// session: table create failed calls
        CreateFailed = 1617;
        /// session: table create successful calls
        CreateOk = 1618;
        /// session: table drop failed calls
        DropFailed = 1622;
        /// session: table drop successful calls
        DropOk = 1623;
        /// transaction: transaction begins
        TxnBegins = 1698;
        /// transaction: transactions committed
        TxnCommits = 1709;
        /// transaction: transactions rolled back
        TxnRollbacks = 1710;
        /// transaction: update conflicts
        TxnConflicts = 1711;
    }
}

stat_enum! {
    /// A data-source (table) counter the engine keeps.
    DsrcStat, DSRC_STATS, DSRC_IDS {
        /// Opens and closes not involving the cursor cache (feeds "open cursor count").
        OpenAdjust = 0;
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
        /// cursor: modify
        Modifies = 2224;
        /// cursor: modify key and value bytes affected
        ModifyBytes = 2225;
        /// cursor: modify value bytes modified
        ModifyBytesTouched = 2226;
        /// cursor: next calls
        Nexts = 2227;
        /// cursor: prev calls
        Prevs = 2230;
        /// cursor: remove calls
        Removes = 2231;
        /// cursor: remove key bytes removed
        RemoveBytes = 2232;
        /// cursor: reserve calls
        Reserves = 2233;
        /// cursor: reset calls, less those of cache-closes
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

/// The reported figures of the counters that are statistics themselves (id not 0): clearable
/// ones since `baseline`, the others as they are.
fn kept<const N: usize>(ids: &[i32; N], totals: &[i64; N], baseline: &[i64; N]) -> Vec<(i32, i64)> {
    (0..N)
        .filter(|&i| ids[i] != 0)
        .map(|i| (ids[i], if is_clearable(ids[i]) { totals[i] - baseline[i] } else { totals[i] }))
        .collect()
}

/// The connection statistics reported for raw counter `totals` (`baseline` is subtracted from
/// the clearable ones), sorted by id.
pub fn conn_report(totals: &[i64; CONN_STATS], baseline: &[i64; CONN_STATS]) -> Vec<(i32, i64)> {
    let raw = |s: ConnStat| totals[s as usize];
    let since = |s: ConnStat| totals[s as usize] - baseline[s as usize];
    let mut out = kept(&CONN_IDS, totals, baseline);
    out.push((CONN_CURSOR_OPEN_COUNT, raw(ConnStat::OpenAdjust) + raw(ConnStat::Reuses) - raw(ConnStat::CacheCloses)));
    out.push((
        CONN_CURSOR_CACHED_COUNT,
        raw(ConnStat::CacheCloses) - raw(ConnStat::Reuses) + raw(ConnStat::CachedAdjust),
    ));
    for entry in &mut out {
        if entry.0 == CONN_CURSOR_RESET {
            entry.1 = since(ConnStat::Resets) + since(ConnStat::CacheCloses);
        }
    }
    out.sort_unstable_by_key(|&(id, _)| id);
    out
}

/// The data-source statistics reported for raw counter `totals`, likewise.
pub fn dsrc_report(totals: &[i64; DSRC_STATS], baseline: &[i64; DSRC_STATS]) -> Vec<(i32, i64)> {
    let raw = |s: DsrcStat| totals[s as usize];
    let since = |s: DsrcStat| totals[s as usize] - baseline[s as usize];
    let mut out = kept(&DSRC_IDS, totals, baseline);
    out.push((DSRC_CURSOR_OPEN_COUNT, raw(DsrcStat::OpenAdjust) + raw(DsrcStat::Reuses) - raw(DsrcStat::CacheCloses)));
    for entry in &mut out {
        if entry.0 == DSRC_CURSOR_RESET {
            entry.1 = since(DsrcStat::Resets) + since(DsrcStat::CacheCloses);
        }
    }
    out.sort_unstable_by_key(|&(id, _)| id);
    out
}

/// One session slot's connection statistics, plus whether the slot is marked in the dirty
/// bitmap since the reader last took its bit (see [`SlotStats`]).
#[derive(Debug)]
pub struct SessionStats {
    marked: AtomicBool,
    counters: [Counter; CONN_STATS],
}

impl Default for SessionStats {
    fn default() -> Self {
        SessionStats { marked: AtomicBool::new(false), counters: std::array::from_fn(|_| Counter::default()) }
    }
}

impl SessionStats {
    /// Every counter, with the cache's figures as of one instant (see `read_window`).
    pub fn read(&self) -> [i64; CONN_STATS] {
        let mut out = [0; CONN_STATS];
        let others = [ConnStat::Reuses as usize, ConnStat::OpenAdjust as usize, ConnStat::CachedAdjust as usize];
        read_window(&self.counters, ConnStat::CacheCloses as usize, &others, &mut out);
        out
    }

    /// The current value of `stat`.
    pub fn get(&self, stat: ConnStat) -> i64 {
        self.counters[stat as usize].get()
    }

    /// The open cursors this block counts ("open cursor count", before summing).
    pub fn open_cursors(&self) -> i64 {
        self.get(ConnStat::OpenAdjust) + self.get(ConnStat::Reuses) - self.get(ConnStat::CacheCloses)
    }
}

/// A session's handle on its slot's statistics block: what the owner records through.
#[derive(Clone, Copy)]
pub struct SlotRef<'a> {
    all: &'a SlotStats,
    slot: usize,
    block: &'a SessionStats,
}

impl SlotRef<'_> {
    /// Records one event: adds each `(counter, n)`; the first event after the reader took the
    /// slot's bit also marks the slot dirty again (owner only).
    #[inline(always)]
    pub fn record<const N: usize>(&self, changes: [(ConnStat, i64); N]) {
        for (stat, n) in changes {
            self.block.counters[stat as usize].add(n);
        }
        // A load from the session's own block, which the reader writes once per read that takes
        // its bit; a shared write only on the first event after that.
        if !self.block.marked.load(Ordering::Relaxed) {
            mark(self.all, self.block, self.slot);
        }
    }

    /// Adds `n` to `stat` (owner only): one event of one counter.
    #[inline(always)]
    pub fn add(&self, stat: ConnStat, n: i64) {
        self.record([(stat, n)]);
    }

    /// [`add`](Self::add) for paths that must not call anything: adds, and returns false when
    /// the slot still has to mark itself dirty ([`mark_now`](Self::mark_now), which the caller
    /// runs next).
    #[inline(always)]
    pub fn add_unmarked(&self, stat: ConnStat, n: i64) -> bool {
        self.block.counters[stat as usize].add(n);
        self.block.marked.load(Ordering::Relaxed)
    }

    /// Marks the slot dirty if it is not marked (after [`add_unmarked`](Self::add_unmarked)).
    #[cold]
    #[inline(never)]
    pub fn mark_now(&self) {
        if !self.block.marked.load(Ordering::Relaxed) {
            mark(self.all, self.block, self.slot);
        }
    }

    /// The current value of `stat`.
    pub fn get(&self, stat: ConnStat) -> i64 {
        self.block.get(stat)
    }

    /// The open cursors this block counts.
    pub fn open_cursors(&self) -> i64 {
        self.block.open_cursors()
    }
}

/// Marks `slot` dirty for readers (its owner, on its first event after the reader took its
/// bit). Out of line and by value, so that the recording path keeps nothing on the stack for it.
#[cold]
#[inline(never)]
fn mark(all: &SlotStats, block: &SessionStats, slot: usize) {
    block.marked.store(true, Ordering::Relaxed);
    // Release: a reader that takes the bit sees the counters written before it.
    all.dirty[slot / 64].fetch_or(1 << (slot % 64), Ordering::Release);
}

/// A session's own hold on its slot's block: the block is found once, when the session opens,
/// so recording an event costs no index computation or bounds check.
#[derive(Debug)]
pub struct OwnedSlot {
    all: Arc<SlotStats>,
    block: Arc<CachePadded<SessionStats>>,
    slot: usize,
}

impl OwnedSlot {
    /// The block of `slot` in `all`.
    pub fn new(all: &Arc<SlotStats>, slot: usize) -> Self {
        OwnedSlot { all: Arc::clone(all), block: Arc::clone(&all.blocks[slot]), slot }
    }

    /// What the owner records through.
    #[inline(always)]
    pub fn get(&self) -> SlotRef<'_> {
        SlotRef { all: &self.all, slot: self.slot, block: &self.block }
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

    /// Adds every counter of `self` into `totals`, the cache's figures as of one instant (see
    /// `read_window`).
    pub fn add_into(&self, totals: &mut [i64; DSRC_STATS]) {
        let mut now = [0; DSRC_STATS];
        let others = [DsrcStat::Reuses as usize, DsrcStat::OpenAdjust as usize];
        read_window(&self.counters, DsrcStat::CacheCloses as usize, &others, &mut now);
        for (t, n) in totals.iter_mut().zip(now) {
            *t += n;
        }
    }
}

/// The statistics blocks of every session slot of a connection, and what lets a reader skip
/// the idle ones.
///
/// Readers keep running sums. A session records into its own block and, on its first event
/// after the reader took its bit, sets its bit in the `dirty` bitmap again (one shared write per
/// session per read, none per operation): the reader, taking a bit, clears the block's `marked`
/// flag, which is all the session checks. A read then re-reads only the blocks whose bits it
/// takes, plus those it took the time before: an event that raced with the taking of its
/// session's bit (counted, but not marking because the flag was not cleared yet, or not yet
/// visible to the read) is read by that next read at the latest. Walking 4,000 idle sessions
/// is a scan of 63 bitmap words.
#[derive(Debug)]
pub struct SlotStats {
    /// One block per slot, each its own allocation so that a session can hold its block
    /// directly ([`OwnedSlot`]).
    blocks: Box<[Arc<CachePadded<SessionStats>>]>,
    dirty: Box<[AtomicU64]>,
}

impl SlotStats {
    /// Memory one slot costs: its block (with the `Arc`'s counts), the pointer to it, and each
    /// reader's copy of it ([`Summer`]).
    ///
    /// cbindgen:ignore
    pub const BYTES_PER_SLOT: usize = size_of::<CachePadded<SessionStats>>()
        + 2 * size_of::<usize>()
        + size_of::<Arc<CachePadded<SessionStats>>>()
        + size_of::<[i64; CONN_STATS]>();

    /// Blocks for `slots` session slots, all zero.
    pub fn new(slots: usize) -> Self {
        SlotStats {
            blocks: (0..slots).map(|_| Arc::new(CachePadded::new(SessionStats::default()))).collect(),
            dirty: (0..slots.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The block of session slot `slot`, for its owner to record through.
    pub fn slot(&self, slot: usize) -> SlotRef<'_> {
        SlotRef { all: self, slot, block: &self.blocks[slot] }
    }
}

/// A reader's running sums over [`SlotStats`]: per slot, the counters it read last.
#[derive(Debug)]
pub struct Summer {
    seen: Vec<[i64; CONN_STATS]>,
    /// The slots re-read last time (read once more this time).
    recheck: Vec<usize>,
    totals: [i64; CONN_STATS],
}

impl Default for Summer {
    fn default() -> Self {
        Summer { seen: Vec::new(), recheck: Vec::new(), totals: [0; CONN_STATS] }
    }
}

impl Summer {
    /// Brings the totals up to date with `stats` and returns them.
    pub fn sum(&mut self, stats: &SlotStats) -> &[i64; CONN_STATS] {
        if self.seen.len() < stats.blocks.len() {
            self.seen.resize(stats.blocks.len(), [0; CONN_STATS]);
        }
        let mut taken = Vec::new();
        for (w, word) in stats.dirty.iter().enumerate() {
            let mut bits = word.swap(0, Ordering::Acquire);
            while bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                // From here on, the session marks itself again at its next event.
                stats.blocks[slot].marked.store(false, Ordering::SeqCst);
                taken.push(slot);
                bits &= bits - 1;
            }
        }
        for &slot in taken.iter().chain(&self.recheck) {
            let (now, seen) = (stats.blocks[slot].read(), &mut self.seen[slot]);
            for ((total, old), now) in self.totals.iter_mut().zip(seen.iter_mut()).zip(now) {
                *total += now - *old;
                *old = now;
            }
        }
        self.recheck = taken;
        &self.totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_sorted_and_in_range() {
        let conn: Vec<i32> = CONN_IDS.iter().copied().filter(|&id| id != 0).collect();
        assert!(conn.windows(2).all(|w| w[0] < w[1]));
        assert!(conn.iter().all(|id| (1000..=1711).contains(id)));
        let dsrc: Vec<i32> = DSRC_IDS.iter().copied().filter(|&id| id != 0).collect();
        assert!(dsrc.windows(2).all(|w| w[0] < w[1]));
        assert!(dsrc.iter().all(|id| (2000..=2298).contains(id)));
    }

    #[test]
    fn derived_figures_follow_the_cache() {
        let stats = SlotStats::new(1);
        let s = stats.slot(0);
        // Create, cache-close, reuse, cache-close, then a stale cached cursor freed.
        s.record([(ConnStat::Creates, 1), (ConnStat::OpenAdjust, 1)]);
        s.add(ConnStat::CacheCloses, 1);
        s.add(ConnStat::Reuses, 1);
        s.add(ConnStat::CacheCloses, 1);
        let mut summer = Summer::default();
        let report = |summer: &mut Summer, baseline: &[i64; CONN_STATS]| {
            let totals = *summer.sum(&stats);
            conn_report(&totals, baseline).into_iter().collect::<std::collections::HashMap<_, _>>()
        };
        let r = report(&mut summer, &[0; CONN_STATS]);
        assert_eq!(r[&CONN_CURSOR_OPEN_COUNT], 0);
        assert_eq!(r[&CONN_CURSOR_CACHED_COUNT], 1);
        assert_eq!(r[&CONN_CURSOR_RESET], 2);
        assert_eq!(s.open_cursors(), 0);
        s.add(ConnStat::CachedAdjust, -1);
        // A clear (baseline) resets the clearable figures, not the current-state ones.
        let baseline = *summer.sum(&stats);
        s.add(ConnStat::Reuses, 0);
        let r = report(&mut summer, &baseline);
        assert_eq!(r[&CONN_CURSOR_CACHED_COUNT], 0);
        assert_eq!(r[&CONN_CURSOR_RESET], 0);
        assert_eq!(r[&1424], 0);
    }

    #[test]
    fn summer_rereads_only_changed_blocks_and_tracks_decreases() {
        let stats = SlotStats::new(4);
        let mut summer = Summer::default();
        stats.slot(0).add(ConnStat::Searches, 3);
        stats.slot(2).add(ConnStat::OpenAdjust, 2);
        let totals = summer.sum(&stats);
        assert_eq!(totals[ConnStat::Searches as usize], 3);
        assert_eq!(totals[ConnStat::OpenAdjust as usize], 2);
        stats.slot(2).add(ConnStat::OpenAdjust, -1);
        stats.slot(1).add(ConnStat::Searches, 1);
        let totals = summer.sum(&stats);
        assert_eq!(totals[ConnStat::Searches as usize], 4);
        assert_eq!(totals[ConnStat::OpenAdjust as usize], 1);
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
                        stats.slot(slot).add(ConnStat::OpenAdjust, 1);
                        stats.slot(slot).add(ConnStat::OpenAdjust, -1);
                    }
                })
            })
            .collect();
        let mut summer = Summer::default();
        while !writers.iter().all(|w| w.is_finished()) {
            let totals = summer.sum(&stats);
            // A snapshot is never negative and never ahead of the work done.
            assert!((0..=4).contains(&totals[ConnStat::OpenAdjust as usize]));
            assert!(totals[ConnStat::Searches as usize] <= 80_000);
        }
        for w in writers {
            w.join().unwrap();
        }
        let totals = summer.sum(&stats);
        assert_eq!(totals[ConnStat::Searches as usize], 80_000);
        assert_eq!(totals[ConnStat::OpenAdjust as usize], 0);
    }
}
