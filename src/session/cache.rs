//! The session's cursor cache: closed cursors parked by the exact URI they were opened with,
//! ready to be handed back by the next `open_cursor` of that URI (`cursor-cache.md`).
//!
//! Like the reference, the cache is a table of 512 hash buckets; sweeps walk the buckets round
//! robin from where the previous sweep stopped, so the sweep statistics mean what they mean
//! there. Everything here belongs to one session: no lock, no shared counter.

use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant};

use crate::store::KeyHashBuilder;

use super::CursorId;

/// Number of hash buckets (the reference's `hash=(buckets=)` default).
pub const BUCKETS: usize = 512;
/// Every this many cache-closes a session tries a small sweep.
pub const CLOSES_PER_SWEEP: u32 = 40;
/// Least buckets a big / small sweep visits, and the most it visits while it keeps finding
/// stale cursors.
const BIG_SWEEP: (usize, usize) = (BUCKETS / 4, BUCKETS);
const SMALL_SWEEP: (usize, usize) = (6, 64);
/// Least time between sweeps, and between big sweeps.
const SWEEP_EVERY: Duration = Duration::from_secs(1);
const BIG_SWEEP_EVERY: Duration = Duration::from_secs(30);

/// Which sweep a trigger asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sweep {
    /// At least a quarter of the buckets.
    Big,
    /// At least a few buckets.
    Small,
}

/// What a sweep did, for the statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Buckets visited.
    pub buckets: usize,
    /// Cached cursors looked at.
    pub examined: usize,
    /// Cached cursors freed because their object is gone.
    pub closed: usize,
}

/// Parked cursor ids by URI hash.
///
/// The cursor parked last waits in `latest`, outside the buckets, until the next park (or a
/// look-up by hash or a sweep) moves it to the end of its bucket: the common open/close
/// loop on one URI then touches no bucket and needs no hashing. Every observable order is the
/// one it would have had in its bucket: it is the newest there.
pub struct CursorCache {
    /// Allocated at the first move to a bucket: most sessions never cache a cursor.
    buckets: Vec<Vec<(u64, CursorId)>>,
    hasher: KeyHashBuilder,
    /// The cursor parked last, not in any bucket; tried first by
    /// [`take_latest`](Self::take_latest).
    latest: Option<(u64, CursorId)>,
    len: usize,
    next_bucket: usize,
    /// Parks left until the next one asks for a small sweep.
    closes_to_sweep: u32,
    last_sweep: Option<Instant>,
    last_big_sweep: Option<Instant>,
}

impl Default for CursorCache {
    fn default() -> Self {
        CursorCache {
            buckets: Vec::new(),
            hasher: KeyHashBuilder::default(),
            latest: None,
            len: 0,
            next_bucket: 0,
            closes_to_sweep: CLOSES_PER_SWEEP,
            last_sweep: None,
            last_big_sweep: None,
        }
    }
}

impl CursorCache {
    /// The empty cache of a new session, from this emptied one: its memory (the buckets) is
    /// kept; the sweep schedule starts again (a new session has swept nothing).
    pub fn restart(&mut self) {
        debug_assert!(self.is_empty() && self.latest.is_none());
        self.next_bucket = 0;
        self.closes_to_sweep = CLOSES_PER_SWEEP;
        self.last_sweep = None;
        self.last_big_sweep = None;
    }

    /// The hash of `uri`.
    #[inline]
    pub fn hash(&self, uri: &[u8]) -> u64 {
        let mut h = self.hasher.build_hasher();
        h.write(uri);
        h.finish()
    }

    /// Number of parked cursors.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no cursor is parked.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Parks cursor `id`, opened with a URI of hash `hash`. Returns whether this close should
    /// try a small sweep (every [`CLOSES_PER_SWEEP`]th close).
    #[inline]
    pub fn park(&mut self, hash: u64, id: CursorId) -> bool {
        if let Some(previous) = self.latest.take() {
            self.file_in_bucket(previous);
        }
        self.park_quickly(hash, id)
    }

    /// Whether [`park_quickly`](Self::park_quickly) may park the next cursor: the slot of the
    /// cursor parked last is free.
    #[inline(always)]
    pub fn parks_quickly(&self) -> bool {
        self.latest.is_none()
    }

    /// [`park`](Self::park) when [`parks_quickly`](Self::parks_quickly) holds: no bucket. Returns
    /// whether this close should try a small sweep, like `park`.
    #[inline(always)]
    pub fn park_quickly(&mut self, hash: u64, id: CursorId) -> bool {
        debug_assert!(self.parks_quickly());
        self.latest = Some((hash, id));
        self.len += 1;
        self.closes_to_sweep -= 1;
        if self.closes_to_sweep == 0 {
            self.closes_to_sweep = CLOSES_PER_SWEEP;
            return true;
        }
        false
    }

    /// Moves a parked cursor to the end of its bucket.
    #[cold]
    #[inline(never)]
    fn file_in_bucket(&mut self, (hash, id): (u64, CursorId)) {
        if self.buckets.is_empty() {
            self.buckets = (0..BUCKETS).map(|_| Vec::new()).collect();
        }
        self.buckets[bucket_of(hash)].push((hash, id));
    }

    /// Moves the cursor parked last to its bucket, where it is the newest (before anything
    /// walks the buckets).
    fn settle_latest(&mut self) {
        if let Some(latest) = self.latest.take() {
            self.file_in_bucket(latest);
        }
    }

    /// The cursor parked last, if it waits outside the buckets.
    #[inline(always)]
    pub fn latest(&self) -> Option<CursorId> {
        self.latest.map(|(_, id)| id)
    }

    /// Takes the cursor parked last (the caller checked [`latest`](Self::latest)).
    #[inline(always)]
    pub fn take_latest_quickly(&mut self) {
        debug_assert!(self.latest.is_some());
        self.latest = None;
        self.len -= 1;
    }

    /// Takes the cursor parked last if `matches` holds for it (the caller compares the URI).
    #[inline]
    pub fn take_latest(&mut self, matches: impl Fn(CursorId) -> bool) -> Option<CursorId> {
        let (_, id) = self.latest?;
        if !matches(id) {
            return None;
        }
        self.latest = None;
        self.len -= 1;
        Some(id)
    }

    /// Takes a parked cursor whose URI hashes to `hash` and for which `matches` holds (the
    /// caller compares the URI itself).
    pub fn take(&mut self, hash: u64, matches: impl Fn(CursorId) -> bool) -> Option<CursorId> {
        // Newest first: its buffers are the most likely to be warm. The cursor parked last is
        // the newest of its bucket.
        if let Some((h, id)) = self.latest {
            if h == hash && matches(id) {
                self.latest = None;
                self.len -= 1;
                return Some(id);
            }
        }
        let bucket = self.buckets.get_mut(bucket_of(hash))?;
        let at = bucket.iter().rposition(|&(h, id)| h == hash && matches(id))?;
        self.len -= 1;
        let (_, id) = bucket.swap_remove(at);
        Some(id)
    }

    /// Takes every parked cursor, oldest first within each bucket and the cursor parked last
    /// last. Walks the buckets only when something was ever filed there (a session that parks
    /// one cursor at a time never allocates them), and keeps their memory.
    pub fn drain(&mut self, mut take: impl FnMut(CursorId)) {
        if self.len == 0 {
            return;
        }
        let latest = self.latest.take();
        if self.len > usize::from(latest.is_some()) {
            for bucket in &mut self.buckets {
                bucket.drain(..).for_each(|(_, id)| take(id));
            }
        }
        if let Some((_, id)) = latest {
            take(id);
        }
        self.len = 0;
    }

    /// Whether `kind` of sweep is due at `now` (and records it as done when it is).
    pub fn sweep_due(&mut self, kind: Sweep, now: Instant) -> Option<Sweep> {
        let since = |t: Option<Instant>| t.map_or(Duration::MAX, |t| now.saturating_duration_since(t));
        let due = match kind {
            Sweep::Big if since(self.last_big_sweep) >= BIG_SWEEP_EVERY => Some(Sweep::Big),
            _ if since(self.last_sweep) >= SWEEP_EVERY => Some(Sweep::Small),
            _ => None,
        };
        if let Some(done) = due {
            self.last_sweep = Some(now);
            if done == Sweep::Big {
                self.last_big_sweep = Some(now);
            }
        }
        due
    }

    /// Sweeps buckets from where the last sweep stopped: each parked cursor is `examined`;
    /// those for which `stale` holds are removed and passed to `free`. Visits the sweep's least
    /// number of buckets, then goes on while the previous bucket had stale cursors, up to its
    /// cap.
    pub fn sweep(
        &mut self,
        kind: Sweep,
        mut stale: impl FnMut(CursorId) -> bool,
        mut free: impl FnMut(CursorId),
    ) -> SweepReport {
        let (least, most) = if kind == Sweep::Big { BIG_SWEEP } else { SMALL_SWEEP };
        let mut report = SweepReport::default();
        self.settle_latest();
        if self.buckets.is_empty() {
            return report;
        }
        let mut found_stale = false;
        while report.buckets < most && (report.buckets < least || found_stale) {
            let bucket = &mut self.buckets[self.next_bucket];
            self.next_bucket = (self.next_bucket + 1) % BUCKETS;
            report.buckets += 1;
            report.examined += bucket.len();
            let before = bucket.len();
            bucket.retain(|&(_, id)| {
                if stale(id) {
                    free(id);
                    false
                } else {
                    true
                }
            });
            let closed = before - bucket.len();
            found_stale = closed > 0;
            report.closed += closed;
        }
        self.len -= report.closed;
        report
    }
}

fn bucket_of(hash: u64) -> usize {
    (hash >> 32) as usize % BUCKETS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn park_and_take_by_hash_and_match() {
        let mut cache = CursorCache::default();
        let (a, b) = (cache.hash(b"table:a"), cache.hash(b"table:b"));
        assert_ne!(a, b);
        cache.park(a, CursorId(1));
        cache.park(a, CursorId(2));
        cache.park(b, CursorId(3));
        assert_eq!(cache.len, 3);
        assert_eq!(cache.take(a, |id| id != CursorId(2)), Some(CursorId(1)));
        assert_eq!(cache.take(a, |_| true), Some(CursorId(2)));
        assert_eq!(cache.take(a, |_| true), None);
        // The cursor parked last comes back without hashing when it matches.
        cache.park(a, CursorId(4));
        assert_eq!(cache.take_latest(|id| id == CursorId(5)), None);
        assert_eq!(cache.take_latest(|id| id == CursorId(4)), Some(CursorId(4)));
        assert_eq!(cache.take_latest(|_| true), None);
        let mut drained = Vec::new();
        cache.drain(|id| drained.push(id));
        assert_eq!(drained, vec![CursorId(3)]);
        assert!(cache.is_empty());
        // The cursor parked last leaves without the buckets being allocated.
        let mut fresh = CursorCache::default();
        fresh.park(a, CursorId(7));
        fresh.drain(|id| drained.push(id));
        assert_eq!(drained, vec![CursorId(3), CursorId(7)]);
        assert!(fresh.buckets.is_empty() && fresh.is_empty());
    }

    #[test]
    fn every_fortieth_park_asks_for_a_sweep() {
        let mut cache = CursorCache::default();
        let asks: Vec<bool> = (0..80).map(|i| cache.park(i, CursorId(i as usize))).collect();
        assert_eq!(asks.iter().filter(|&&a| a).count(), 2);
        assert!(asks[39] && asks[79]);
    }

    #[test]
    fn sweeps_are_due_by_time() {
        let mut cache = CursorCache::default();
        let t0 = Instant::now();
        assert_eq!(cache.sweep_due(Sweep::Big, t0), Some(Sweep::Big));
        assert_eq!(cache.sweep_due(Sweep::Big, t0), None);
        assert_eq!(cache.sweep_due(Sweep::Small, t0 + Duration::from_secs(2)), Some(Sweep::Small));
        assert_eq!(cache.sweep_due(Sweep::Big, t0 + Duration::from_millis(2500)), None);
        assert_eq!(cache.sweep_due(Sweep::Big, t0 + Duration::from_secs(31)), Some(Sweep::Big));
    }

    #[test]
    fn a_sweep_visits_its_least_buckets_and_frees_only_stale_cursors() {
        let mut cache = CursorCache::default();
        for i in 0..BUCKETS as u64 {
            // One cursor per bucket; ids below 100 are stale.
            cache.park(i << 32, CursorId(i as usize));
        }
        let mut freed = Vec::new();
        let report = cache.sweep(Sweep::Small, |id| id.0 < 100, |id| freed.push(id));
        // Stale cursors keep it going past the least 6 buckets, up to the cap of 64.
        assert_eq!((report.buckets, report.examined, report.closed), (64, 64, 64));
        assert_eq!(freed.len(), 64);
        assert_eq!(cache.len, BUCKETS - 64);
        // The next sweep starts at bucket 64: a big one visits at least 128 buckets.
        let report = cache.sweep(Sweep::Big, |id| id.0 < 100, |_| {});
        assert_eq!((report.buckets, report.closed), (BUCKETS / 4, 36));
        // A small sweep finding nothing stale stops after its least 6.
        let report = cache.sweep(Sweep::Small, |_| false, |_| unreachable!());
        assert_eq!((report.buckets, report.closed), (6, 0));
    }
}
