//! The connection's cache budget (`cache_size`) and what is held against it: the bytes of
//! parsed pages (clean: they can be dropped and read again) and an estimate of the bytes of
//! the tables' in-memory indexes (dirty: they leave only when a merge carries them into the
//! trees).
//!
//! Counting never writes a shared line per operation: a writer adds its bytes to a counter of
//! its own and publishes them here every [`PUBLISH_BYTES`] (one atomic add per 64 KB written by
//! a session); a page read or evicted counts in its thread's stripe ([`Striped`]), which
//! publishes its bytes here every [`PUBLISH_BYTES`] as well (misses on different threads share
//! no counter: the statistics sum the stripes, the thresholds read the published figure).
//!
//! When the dirty estimate passes the dirty trigger, the writing thread merges the table it
//! wrote into its tree before returning (the reference's application threads helping
//! eviction); a thread that reads a page past the target drops as many bytes of its tree's
//! oldest leaves (the page it read replaces the oldest of its own), past the trigger until the
//! total is back under the target.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};

use crossbeam_utils::CachePadded;

use super::striped::Striped;

/// A session publishes its dirty bytes once it has this many unpublished.
pub const PUBLISH_BYTES: i64 = 64 * 1024;

/// Bytes an index entry is counted beyond its key and its versions.
///
/// The counts are about what the reference counts for its own structures (an insert list
/// entry, an update), so that a workload sized for the reference's cache fits this one: a
/// million 8-byte rows in the default 100 MB of an in-memory database, say. unlatched's own
/// structures take more (about 200 bytes for such a row: a tree entry, a hash entry, a slot and
/// a version), which the resident memory shows beyond `cache_size`.
pub const ENTRY_OVERHEAD: usize = 32;

/// Bytes a version is counted beyond its value.
pub const VERSION_OVERHEAD: usize = 16;

/// The thresholds, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Thresholds {
    /// `cache_size`.
    pub size: u64,
    /// Eviction works the total down to this (`eviction_target`).
    pub target: u64,
    /// Past this, readers evict down to the target before going on (`eviction_trigger`).
    pub trigger: u64,
    /// Merges bring the dirty estimate down to this (`eviction_dirty_target`).
    pub dirty_target: u64,
    /// Past this, writers merge before going on (`eviction_dirty_trigger`).
    pub dirty_trigger: u64,
}

impl Thresholds {
    /// No limit (tests, and trees outside a connection).
    pub const UNBOUNDED: Thresholds =
        Thresholds { size: u64::MAX, target: u64::MAX, trigger: u64::MAX, dirty_target: u64::MAX, dirty_trigger: u64::MAX };
}

/// Cache counters and thresholds of one connection.
#[derive(Debug)]
pub struct Cache {
    size: AtomicU64,
    target: AtomicU64,
    trigger: AtomicU64,
    dirty_target: AtomicU64,
    dirty_trigger: AtomicU64,
    /// Bytes of parsed pages held by the trees' page caches, as published by the stripes of
    /// `pages` (each holds back less than [`PUBLISH_BYTES`]).
    clean: CachePadded<AtomicI64>,
    /// Per thread: [`CLEAN`] bytes, [`UNPUBLISHED`] bytes, pages [`READ`], [`EVICTED_APP`],
    /// [`EVICTED_SERVER`].
    pages: Striped<5>,
    /// Estimated bytes of the in-memory indexes (published by writers, lowered by merges).
    dirty: CachePadded<AtomicI64>,
    /// Event counters of writers (pages written).
    pub stats: CacheStats,
}

/// What the cache counts on write paths.
#[derive(Debug, Default)]
pub struct CacheStats {
    /// Pages written (by merges and checkpoints).
    pub pages_written: AtomicU64,
}

/// The counters of [`Cache::pages`], by index.
const CLEAN: usize = 0;
const UNPUBLISHED: usize = 1;
const READ: usize = 2;
const EVICTED_APP: usize = 3;
const EVICTED_SERVER: usize = 4;

impl Default for Cache {
    fn default() -> Self {
        Cache::new(Thresholds::UNBOUNDED)
    }
}

impl Cache {
    /// A cache with these thresholds.
    pub fn new(t: Thresholds) -> Cache {
        let cache = Cache {
            size: AtomicU64::new(0),
            target: AtomicU64::new(0),
            trigger: AtomicU64::new(0),
            dirty_target: AtomicU64::new(0),
            dirty_trigger: AtomicU64::new(0),
            clean: CachePadded::new(AtomicI64::new(0)),
            pages: Striped::default(),
            dirty: CachePadded::new(AtomicI64::new(0)),
            stats: CacheStats::default(),
        };
        cache.set(t);
        cache
    }

    /// New thresholds (`WT_CONNECTION::reconfigure`).
    pub fn set(&self, t: Thresholds) {
        self.size.store(t.size, Relaxed);
        self.target.store(t.target, Relaxed);
        self.trigger.store(t.trigger, Relaxed);
        self.dirty_target.store(t.dirty_target, Relaxed);
        self.dirty_trigger.store(t.dirty_trigger, Relaxed);
    }

    /// The thresholds.
    pub fn thresholds(&self) -> Thresholds {
        Thresholds {
            size: self.size.load(Relaxed),
            target: self.target.load(Relaxed),
            trigger: self.trigger.load(Relaxed),
            dirty_target: self.dirty_target.load(Relaxed),
            dirty_trigger: self.dirty_trigger.load(Relaxed),
        }
    }

    /// Bytes of cached pages (the sum of the stripes: exact up to the reads in flight).
    pub fn clean_bytes(&self) -> u64 {
        self.pages.count(CLEAN)
    }

    /// Estimated bytes of the in-memory indexes.
    pub fn dirty_bytes(&self) -> u64 {
        self.dirty.load(Relaxed).max(0) as u64
    }

    /// Everything held (statistics).
    pub fn total_bytes(&self) -> u64 {
        self.clean_bytes() + self.dirty_bytes()
    }

    /// Everything held, as the thresholds see it: what the stripes published, plus what the
    /// caller's own stripe has not (other threads' stripes may hold back less than
    /// [`PUBLISH_BYTES`] each).
    fn held(&self) -> u64 {
        let clean = self.clean.load(Relaxed) + self.pages.mine()[UNPUBLISHED].load(Relaxed);
        clean.max(0) as u64 + self.dirty_bytes()
    }

    /// Pages of `bytes` entered (positive) or left (negative) a page cache, counted in the
    /// calling thread's stripe.
    pub fn pages(&self, bytes: i64) {
        let mine = self.pages.mine();
        mine[CLEAN].fetch_add(bytes, Relaxed);
        let unpublished = mine[UNPUBLISHED].fetch_add(bytes, Relaxed) + bytes;
        if unpublished.abs() >= PUBLISH_BYTES {
            self.clean.fetch_add(mine[UNPUBLISHED].swap(0, Relaxed), Relaxed);
        }
    }

    /// A page of `bytes` was read into a page cache.
    pub fn page_read(&self, bytes: i64) {
        self.pages.add(READ, 1);
        self.pages(bytes);
    }

    /// `n` pages were dropped, by the eviction server (`server`) or an application thread.
    pub fn evicted(&self, n: u64, server: bool) {
        if n > 0 {
            self.pages.add(if server { EVICTED_SERVER } else { EVICTED_APP }, n as i64);
        }
    }

    /// Pages read into the caches.
    pub fn pages_read(&self) -> u64 {
        self.pages.count(READ)
    }

    /// Pages application threads dropped.
    pub fn pages_evicted_app(&self) -> u64 {
        self.pages.count(EVICTED_APP)
    }

    /// Pages the eviction server dropped.
    pub fn pages_evicted_server(&self) -> u64 {
        self.pages.count(EVICTED_SERVER)
    }

    /// Whether the total is past the trigger: a reader evicts down to the target.
    pub fn over_trigger(&self) -> bool {
        self.held() > self.trigger.load(Relaxed)
    }

    /// Whether the total is past the target: eviction goes on.
    pub fn over_target(&self) -> bool {
        self.held() > self.target.load(Relaxed)
    }

    /// A writer publishes its unpublished dirty bytes; returns whether the dirty estimate is
    /// past the dirty trigger (the writer should merge).
    pub fn publish_dirty(&self, bytes: i64) -> bool {
        let now = (self.dirty.fetch_add(bytes, Relaxed) + bytes).max(0) as u64;
        now > self.dirty_trigger.load(Relaxed)
    }

    /// A merge took `bytes` out of an index (negative: the index grew meanwhile).
    pub fn merged(&self, bytes: i64) {
        self.dirty.fetch_sub(bytes, Relaxed);
    }

    /// Whether the indexes fill `cache_size`: an in-memory database, which cannot merge them
    /// anywhere, refuses new data.
    pub fn full(&self) -> bool {
        self.dirty_bytes() > self.size.load(Relaxed)
    }

}

/// Bytes a write of `key` and `value` adds to an index, as the dirty estimate counts them.
pub fn entry_bytes(key: usize, value: usize) -> i64 {
    (key + value + ENTRY_OVERHEAD + VERSION_OVERHEAD) as i64
}
