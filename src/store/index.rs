//! The index of one table: the same `Key -> Shared<Slot>` map held twice, in an ordered index
//! of our own ([`super::ordered`]: order, `seek`, `first`, `last`, scans) and a hash index
//! (point look-ups: `get`, and writers finding their slot).
//!
//! Why two: a look-up through the ordered index in a 10,000-key table costs about 370
//! instructions more per `search` than the hash index's (two inner levels and a leaf, each a
//! binary search; measured with the hash index removed: `search` 765 instructions against
//! 395), so point reads keep the hash index, and appends pay for it (a hash insert per new key,
//! and the table's growth: about a quarter of an append's instructions).
//!
//! Only an in-memory table's index without a collator keeps the hash index. A collated index
//! cannot (equal keys may differ in bytes), and a layered one ([`super::layered`], an on-disk
//! table's) does not: it holds only the writes the next merge carries into the tree, so a hash
//! index there cost every new key one cache miss to insert it, another to remove it at the
//! merge, and the table's growth and shrinking every merge cycle, for reads that mostly miss
//! it for the tree anyway (journalled inserts: 4,905 instructions a commit with it, 4,370
//! without, and 1.7x the commits per second). Their point look-ups descend the ordered index.
//!
//! The hash index is two `scc::HashIndex`es split by key length: keys of at most 8 bytes are kept
//! as a plain-data `ShortKey` (prefix and length), longer keys as a [`Key`]. A key is in exactly
//! one of them, so "the hash index" below means the one for its length. The split is for `get`:
//! with a plain-data key `HashIndex::peek` inlines into it (about 110 instructions per hit on a
//! 10,000-key table under a held guard, against about 205 through the `Key`-keyed index).
//!
//! # Publication protocol (keeps the two in agreement)
//! 1. A new key's slot is created *pending* (null head) and inserted into the ordered index (the
//!    "tree" below), which decides which slot owns a key.
//! 2. The pending slot is *published*: put into the hash index (any writer that meets a pending
//!    slot may do it; a retired leftover there is unlinked first).
//! 3. Only then does a CAS give the head its first version: the insert's linearization point.
//!    Invariant: a slot whose head holds a version is in both indexes, so `get` (hash) and
//!    `seek` (tree) always see the same state.
//! 4. A removal CASes a tombstone in (its linearization point); `Index::reclaim` then retires the
//!    slot (CAS tombstone -> null tagged `RETIRED`) and unlinks it from the hash index, then from
//!    the tree, each only if it still maps the key to that very slot.
//! 5. A writer that meets a retired head helps unlink and starts over, so a write can never land
//!    in a slot that is leaving the indexes; a write that wins its CAS before the retire CAS makes
//!    the retire CAS fail and the slot stays.
//!
//! Readers treat pending, tombstone and retired heads alike: absent.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};

use scc::{Guard, HashIndex, Shared, Tag};
use sdd::{Owned, Ptr};

use super::collate::Collator;
use super::key::{Key, KeyHashBuilder, Probe, ShortKey};
use super::ordered::{Entry, Ordered, Steps};
use super::prefixes::{Prefixes, Split};
use super::version::{
    is_prepared, Data, ReadView, Slot, Version, NO_READ_TS, RETIRED, TS_ABORTED, TS_LATEST, TXN_COMMITTED,
};

/// Direction of [`Index::seek`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seek {
    /// First live entry with key `>=` the probe.
    Ge,
    /// First live entry with key `>` the probe.
    Gt,
    /// Last live entry with key `<=` the probe.
    Le,
    /// Last live entry with key `<` the probe.
    Lt,
}

/// [`Index::insert_new`] found a live value. Carries nothing: the caller re-reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exists;

/// The key is absent or removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missing;

impl fmt::Display for Exists {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("key exists")
    }
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("key not found")
    }
}

impl std::error::Error for Exists {}
impl std::error::Error for Missing {}

/// What a write requires of the current state of its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Anything.
    Upsert,
    /// No live value.
    InsertNew,
    /// A live value.
    UpdateExisting,
    /// A live value; installs a tombstone.
    Remove,
}

/// Why a write did not happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// `InsertNew` found a live value.
    Exists,
    /// `UpdateExisting` or `Remove` found no live value.
    Missing,
    /// The head is another transaction's uncommitted version, or was committed after the
    /// writer's snapshot (a write-write conflict).
    Conflict,
    /// Never from the store: the transaction layer could not make an auto-commit write durable
    /// (it rolled the write back and keeps the error, `Txn::take_failure`).
    Failed,
}

/// Who writes, and against which snapshot the conflict check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteCtx {
    /// The writing transaction ([`TXN_COMMITTED`]: outside any transaction, no history kept).
    pub txn: u64,
    /// The writer's read timestamp: a head committed after it is a conflict ([`TS_LATEST`]
    /// for writers that take "now" as their snapshot: only uncommitted heads conflict).
    pub snapshot: u64,
    /// The writer's application read timestamp: a head committed with a later application
    /// timestamp is a conflict too ([`NO_READ_TS`]: none).
    pub read_ts: u64,
}

impl WriteCtx {
    /// A write outside any transaction: committed at once, visible to all, keeping no history
    /// (the store's own API: tests and benchmarks).
    ///
    /// cbindgen:ignore
    pub const IMMEDIATE: WriteCtx = WriteCtx { txn: TXN_COMMITTED, snapshot: TS_LATEST, read_ts: NO_READ_TS };
}

/// Where a successful write landed, valid for the caller's guard.
pub struct Written<'g> {
    /// The key's slot.
    pub slot: Ptr<'g, Slot>,
    /// The version installed (uncommitted unless written with [`WriteCtx::IMMEDIATE`]).
    pub version: Ptr<'g, Version>,
    /// Whether the slot held no version before (a new key, or one emptied by a rollback).
    pub was_empty: bool,
}

/// The in-memory ordered index of one table.
///
/// Reads ([`get`](Index::get), [`seek`](Index::seek), [`first`](Index::first),
/// [`last`](Index::last)) take no lock and write no shared memory: a hash probe or tree descent,
/// one atomic load of the slot head, and references valid while the caller's [`Guard`] (and the
/// index) live. (One transient exception inherited from `scc::HashIndex`: while the hash table is
/// being resized, a reader may help move buckets.)
///
/// Writes to one key are linearized by a compare-and-swap on that key's slot head; writes to
/// different keys share no lock (the tree and hash index lock only the node or bucket they
/// change).
pub struct Index {
    /// All slots, in key order: positioning and scans.
    tree: Ordered,
    /// The same slots by hash, keys of at most 8 bytes ([`ShortKey`]): point look-ups (`get`,
    /// and writers finding their slot).
    short: HashIndex<ShortKey, Shared<Slot>, KeyHashBuilder>,
    /// The same slots by hash, keys longer than 8 bytes.
    long: HashIndex<Key, Shared<Slot>, KeyHashBuilder>,
    /// The index is the newest layer over a tree on disk ([`super::layered`]): a key it does
    /// not hold may be in the tree, so a removed key's slot (its tombstone) stays until a merge
    /// has carried the removal into the tree.
    layered: bool,
    /// A collator orders the keys (`tree` holds it): keys equal under it may differ in bytes,
    /// so the hash indexes stay empty and point look-ups search the ordered index.
    collated: bool,
    /// Point look-ups go through the hash indexes: neither collated nor layered (why a layered
    /// index keeps none: the module's documentation).
    hashed: bool,
    /// A secondary index held in memory: its slots by the index columns too
    /// ([`Index::seek_prefix`]).
    prefixes: Option<Prefixes>,
}

impl Default for Index {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Index").finish_non_exhaustive()
    }
}

impl Index {
    /// An empty index.
    pub fn new() -> Self {
        Index {
            tree: Ordered::new(),
            short: HashIndex::with_hasher(KeyHashBuilder::default()),
            long: HashIndex::with_hasher(KeyHashBuilder::default()),
            layered: false,
            collated: false,
            hashed: true,
            prefixes: None,
        }
    }

    /// An empty index ordered by `collate` (`None`: bytewise), `layered` over a tree or not.
    pub fn ordered_by(collate: Option<Arc<Collator>>, layered: bool) -> Self {
        let collated = collate.is_some();
        Index { collated, hashed: !collated && !layered, tree: Ordered::ordered_by(collate), layered, ..Index::new() }
    }

    /// This (empty) index with a prefix map ([`super::prefixes`]) whose prefixes `split`
    /// measures; ignored where the map would not hold (a layered or collated index).
    pub fn with_prefixes(mut self, split: Split) -> Self {
        if !self.layered && !self.collated {
            self.prefixes = Some(Prefixes::new(split));
        }
        self
    }

    /// The first entry whose key starts with `prefix` (a whole prefix of an index with a
    /// prefix map) that `view` sees a value of, found by a hash probe; `None` when the map
    /// cannot tell (no map, no such entry, or too many): the caller then seeks.
    #[inline]
    pub fn seek_prefix<'g>(&'g self, prefix: &[u8], view: &ReadView, guard: &'g Guard) -> Option<(&'g [u8], &'g [u8])> {
        self.prefixes.as_ref()?.first_live(prefix, view, guard)
    }

    /// The first key stored under `prefix` (a whole prefix of an index with a prefix map),
    /// visible or not, with the slot its row in `rows` had when it was stored (if known);
    /// `None` when the map cannot tell. See [`Prefixes::first_key`].
    #[inline]
    pub fn first_under<'g>(&'g self, prefix: &[u8], rows: &Index, guard: &'g Guard) -> Option<(&'g [u8], Option<&'g Slot>)> {
        self.prefixes.as_ref()?.first_key(prefix, rows, guard)
    }

    /// Links this index's prefix map (if it keeps one) to `rows`, the index of its table's
    /// rows ([`Prefixes::link_rows`]).
    pub fn link_rows(&self, rows: &Arc<Index>) {
        if let Some(prefixes) = &self.prefixes {
            prefixes.link_rows(rows);
        }
    }

    /// The slot the hash index holds for `key`, shared (writers only: through the writers'
    /// probe, so that [`Index::hashed_head`] stays the one reader of short keys).
    pub fn slot_of(&self, key: &[u8], guard: &Guard) -> Option<Shared<Slot>> {
        self.hash_peek(&Probe::new(key), guard).cloned()
    }

    /// An empty index layered over a tree: keys it does not hold are looked up there, and
    /// removed keys keep their tombstones until a merge ([`Index::retire_range`]).
    pub fn layered() -> Self {
        Index::ordered_by(None, true)
    }

    /// The newest version of `key` (`None` if absent, pending or retired): the caller decides
    /// what it sees with [`Version::value_in`].
    ///
    /// Takes no lock and writes nothing shared.
    ///
    /// Not inlined: this is the one call site of the short-key hash look-up
    /// (`HashIndex::<ShortKey, _>::peek` with a `ShortKey` probe; writers probe with a [`Probe`]
    /// instead), which lets the compiler inline that look-up here (inlined into each caller, the
    /// look-up would have several call sites and stay out of line: ~20 more instructions). The
    /// visibility check stays in the caller, which has the view at hand.
    ///
    /// This is the hash index's answer alone, which a collated index (keys equal under its
    /// collator may differ in bytes) and a layered one do not keep: its `None` is final only for
    /// an index that is neither. [`Index::head`] answers for every index.
    #[inline(never)]
    pub fn hashed_head<'g>(&'g self, key: &[u8], guard: &'g Guard) -> Option<&'g Version> {
        let slot = match ShortKey::new(key) {
            Some(short) => self.short.peek(&short, guard),
            None => self.long_peek(&Probe::new(key), guard),
        }?;
        slot.head.load(Acquire, guard).as_ref()
    }

    /// The newest version of `key`, as [`Index::hashed_head`], through the ordered index in an
    /// index without hash indexes.
    #[inline]
    pub fn head<'g>(&'g self, key: &[u8], guard: &'g Guard) -> Option<&'g Version> {
        if !self.hashed {
            return self.ordered_head(key, guard);
        }
        self.hashed_head(key, guard)
    }

    /// [`Index::head`] of an index without hash indexes (collated or layered): through the
    /// ordered index.
    #[inline(never)]
    fn ordered_head<'g>(&'g self, key: &[u8], guard: &'g Guard) -> Option<&'g Version> {
        let found = self.tree.get(&Probe::new(key), guard);
        if self.collated && super::collate::failed() {
            // What a failed comparison found is no answer: the caller's operation reports it.
            return None;
        }
        found?.slot.head.load(Acquire, guard).as_ref()
    }

    /// The value of `key` that `view` sees, or `None` if absent or removed.
    #[inline]
    pub fn read<'g>(&'g self, key: &[u8], view: &ReadView, guard: &'g Guard) -> Option<&'g [u8]> {
        self.head(key, guard)?.value_in(view, guard)
    }

    /// Latest committed value of `key` ([`Index::read`] with [`ReadView::LATEST`]).
    pub fn get<'g>(&'g self, key: &[u8], guard: &'g Guard) -> Option<&'g [u8]> {
        self.read(key, &ReadView::LATEST, guard)
    }

    /// The slot of `key`, if the index holds one (pending, live, removed or retiring).
    pub fn slot<'g>(&'g self, key: &[u8], guard: &'g Guard) -> Option<&'g Shared<Slot>> {
        self.find_slot(&Probe::new(key), guard)
    }

    /// The slot of the probed key in the hash index (short or long keys).
    #[inline]
    fn hash_peek<'g>(&'g self, probe: &Probe<'_>, guard: &'g Guard) -> Option<&'g Shared<Slot>> {
        if !self.hashed {
            return self.tree.get(probe, guard).map(|e| &e.slot);
        }
        if probe.short().is_some() {
            self.short.peek(probe, guard)
        } else {
            self.long_peek(probe, guard)
        }
    }

    /// The slot of a key longer than 8 bytes in the hash index.
    #[inline(never)]
    fn long_peek<'g>(&'g self, probe: &Probe<'_>, guard: &'g Guard) -> Option<&'g Shared<Slot>> {
        self.long.peek(probe, guard)
    }

    /// Inserts or replaces the value of `key`, outside any transaction.
    pub fn upsert(&self, key: &[u8], value: &[u8]) {
        // Upsert accepts every state.
        let _ = self.write_now(key, Data::value(value), Mode::Upsert);
    }

    /// Inserts `key` if it has no live value, outside any transaction.
    ///
    /// Of concurrent `insert_new` calls on one absent key, exactly one succeeds.
    pub fn insert_new(&self, key: &[u8], value: &[u8]) -> Result<(), Exists> {
        self.write_now(key, Data::value(value), Mode::InsertNew)
            .map_err(|_| Exists)
    }

    /// Replaces the value of `key` if it has a live value, outside any transaction.
    pub fn update_existing(&self, key: &[u8], value: &[u8]) -> Result<(), Missing> {
        self.write_now(key, Data::value(value), Mode::UpdateExisting)
            .map_err(|_| Missing)
    }

    /// Removes `key` outside any transaction: `Missing` if it is absent or already removed.
    pub fn remove(&self, key: &[u8]) -> Result<(), Missing> {
        self.write_now(key, Data::Tombstone, Mode::Remove)
            .map_err(|_| Missing)
    }

    /// Installs a removal of `key` whatever its state, outside any transaction: recovery
    /// replaying a journal over a tree, where the key may be in the tree alone.
    pub fn upsert_removal(&self, key: &[u8]) {
        // Upsert accepts every state.
        let _ = self.write_now(key, Data::Tombstone, Mode::Upsert);
    }

    /// A [`WriteCtx::IMMEDIATE`] write under its own guard.
    fn write_now(&self, key: &[u8], data: Data, mode: Mode) -> Result<(), Refused> {
        let guard = Guard::new();
        self.write(key, data, mode, WriteCtx::IMMEDIATE, &guard).map(drop)
    }

    /// Positions on the first entry live in `view` with key `>=` / `>` (`Ge` / `Gt`), or the
    /// last one with key `<=` / `<` (`Le` / `Lt`) than `key`. Returns the entry's key and the
    /// value `view` sees. Entries `view` cannot see (or sees removed) are skipped.
    pub fn seek<'g>(
        &'g self,
        key: &[u8],
        dir: Seek,
        view: ReadView,
        guard: &'g Guard,
    ) -> Option<(&'g [u8], &'g [u8])> {
        first_live(self.steps(Some(&Probe::new(key)), dir, guard), view, guard)
    }

    /// The entries from the first `dir` finds from `probe` (from either end for `None`) on, in
    /// `dir`'s direction.
    #[inline]
    fn steps<'g>(&'g self, probe: Option<&Probe<'_>>, dir: Seek, guard: &'g Guard) -> Steps<'g> {
        match (dir, probe) {
            (Seek::Ge | Seek::Gt, Some(probe)) => self.tree.seek_ge(probe, dir == Seek::Gt, guard).steps(true),
            (Seek::Ge | Seek::Gt, None) => self.tree.iter(guard),
            (Seek::Le | Seek::Lt, probe) => self.tree.seek_le(probe, dir == Seek::Lt, guard).steps(false),
        }
    }

    /// [`Index::seek`] by a scan of every entry from one end (tests compare it with the
    /// positioned seek).
    #[cfg(test)]
    pub(crate) fn seek_slow<'g>(
        &'g self,
        key: &[u8],
        dir: Seek,
        view: ReadView,
        guard: &'g Guard,
    ) -> Option<(&'g [u8], &'g [u8])> {
        let wanted = |e: &&Entry| match dir {
            Seek::Ge => e.key.as_bytes() >= key,
            Seek::Gt => e.key.as_bytes() > key,
            Seek::Le => e.key.as_bytes() <= key,
            Seek::Lt => e.key.as_bytes() < key,
        };
        let from_end = self.steps(None, dir, guard);
        first_live(from_end.filter(wanted), view, guard)
    }

    /// The first entry live in `view`.
    pub fn first<'g>(&'g self, view: ReadView, guard: &'g Guard) -> Option<(&'g [u8], &'g [u8])> {
        first_live(self.tree.iter(guard), view, guard)
    }

    /// The last entry live in `view`.
    pub fn last<'g>(&'g self, view: ReadView, guard: &'g Guard) -> Option<(&'g [u8], &'g [u8])> {
        first_live(self.tree.iter_rev(guard), view, guard)
    }

    /// The largest key the index holds a slot for, whatever its state (pending, uncommitted,
    /// removed or retiring): `WT_CURSOR::largest_key` ignores visibility.
    pub fn last_key_any<'g>(&'g self, guard: &'g Guard) -> Option<&'g [u8]> {
        self.tree.iter_rev(guard).next().map(|e| e.key.as_bytes())
    }

    /// Like [`Index::seek`], but stops at the nearest entry `view` sees any version of, a
    /// removal included (`None` as its value): in a layered index such an entry decides its
    /// key, and keys with no entry (or none `view` sees) are the tree's to decide. `key` `None`
    /// starts from the first (`Ge`/`Gt`) or last (`Le`/`Lt`) entry.
    pub fn seek_decided<'g>(
        &'g self,
        key: Option<&[u8]>,
        dir: Seek,
        view: ReadView,
        guard: &'g Guard,
    ) -> Option<(&'g [u8], Option<&'g [u8]>)> {
        let decided = |e: &'g Entry| {
            let data = e.slot.head.load(Acquire, guard).as_ref()?.data_in(&view, guard)?;
            if is_prepared(data) {
                // A prepared version decides the key: as a conflict (`PREPARED_VALUE`).
                return Some((e.key.as_bytes(), Some(&super::version::PREPARED_VALUE[..])));
            }
            Some((e.key.as_bytes(), data.bytes()))
        };
        let probe = key.map(Probe::new);
        self.steps(probe.as_ref(), dir, guard).find_map(decided)
    }

    /// The committed state `view` sees of the entries from `from` (inclusive; `None` from the
    /// first), in key order, into `out`: what a merge carries into the tree (`None` values are
    /// removals). Stops before the entry after `limit` entries, or once `out` holds
    /// `byte_limit` bytes. Entries `view` sees nothing of are left out; entries whose state has
    /// an application timestamp after `pinned` also go to `unpinned` (they need a base,
    /// [`Slot::add_base`]). With `footprint`, adds what each entry read counts in the cache's
    /// estimate ([`Index::footprint`]). Returns the key to go on from, if any is left.
    #[allow(clippy::too_many_arguments)]
    pub fn committed_from(
        &self,
        from: Option<&[u8]>,
        view: ReadView,
        pinned: u64,
        (limit, byte_limit): (usize, usize),
        out: &mut Staged,
        unpinned: &mut Vec<(Key, Shared<Slot>)>,
        mut footprint: Option<&mut usize>,
    ) -> Option<Vec<u8>> {
        let guard = Guard::new();
        let view = ReadView { ignore_prepare: true, ..view };
        let start = from.map(Probe::new);
        for (n, Entry { key: k, slot }) in self.steps(start.as_ref(), Seek::Ge, &guard).enumerate() {
            if n == limit || out.bytes.len() >= byte_limit {
                return Some(k.as_bytes().to_vec());
            }
            if let Some(total) = footprint.as_deref_mut() {
                *total += entry_footprint(k, slot, &guard);
            }
            if let Some(version) = slot.version_in(view, &guard) {
                if version.start_ts.load(Relaxed) > pinned {
                    unpinned.push((k.clone(), slot.clone()));
                }
                out.push(k.as_bytes(), version.data.bytes());
            }
        }
        None
    }

    /// After a merge carried the state at `upto` of the keys from `from` (inclusive; `None`:
    /// the first) to `to` (exclusive; `None`: the last) into the tree: retires every slot there
    /// whose newest version is committed at or before `upto` with an application timestamp at
    /// or before `pinned` (the tree now holds it, and every reader sees it), or that is empty
    /// (a refused or rolled-back insert). The caller knows that no reader needs their history
    /// (`upto` is at or before the oldest snapshot). Retired slots leave the ordered index a
    /// leaf at a time ([`Ordered::remove_entries`]). Returns what the entries kept count in the
    /// cache's estimate ([`Index::footprint`]).
    pub fn retire_range(&self, from: Option<&[u8]>, to: Option<&[u8]>, upto: u64, pinned: u64) -> usize {
        // Entries removed from the ordered index per call: a few leaves' worth (the walk
        // searches again from its place once it finds its leaf changed).
        const BATCH: usize = 256;
        let guard = Guard::new();
        let mut doomed: Vec<&Entry> = Vec::with_capacity(BATCH);
        let mut kept = 0;
        let start = from.map(Probe::new);
        let end = to.map(Probe::new);
        for entry in self.steps(start.as_ref(), Seek::Ge, &guard) {
            if end.as_ref().is_some_and(|end| self.tree.cmp(end, &entry.key).is_le()) {
                break;
            }
            if self.retire_merged(entry, upto, pinned, &guard) {
                doomed.push(entry);
                if doomed.len() == BATCH {
                    self.tree.remove_entries(&doomed, &guard);
                    doomed.clear();
                }
            } else {
                kept += entry_footprint(&entry.key, &entry.slot, &guard);
            }
        }
        self.tree.remove_entries(&doomed, &guard);
        kept
    }

    /// [`Index::retire_range`]'s rule for one entry: retires its slot (CAS to [`RETIRED`]) and
    /// takes it out of the hash index where there is one; the caller takes it out of the
    /// ordered index. Returns whether it did.
    fn retire_merged(&self, entry: &Entry, upto: u64, pinned: u64, guard: &Guard) -> bool {
        let slot = &entry.slot;
        let head = slot.head.load(Acquire, guard);
        let merged = match head.as_ref() {
            Some(v) => {
                let ts = v.commit_ts.load(Acquire);
                ts <= upto && ts != TS_ABORTED && v.start_ts.load(Relaxed) <= pinned
            }
            None => head.tag() != RETIRED,
        };
        if !merged || slot.head.compare_exchange(head, (None, RETIRED), AcqRel, Acquire, guard).is_err() {
            return false;
        }
        self.unhash(&Probe::new(entry.key.as_bytes()), slot.as_ptr());
        true
    }

    /// Number of live committed entries, counted by a scan (O(n); no counter is kept on a hot
    /// path).
    pub fn len_hint(&self) -> usize {
        let guard = Guard::new();
        self.tree
            .iter(&guard)
            .filter(|e| e.slot.latest_value(&guard).is_some())
            .count()
    }

    /// Slots in the tree, versions in their chains and the versions' bytes (inline part plus
    /// heap values): the memory history takes, by a scan (diagnostics, tests, benchmarks).
    pub fn version_stats(&self) -> VersionStats {
        let guard = Guard::new();
        let mut stats = VersionStats::default();
        for Entry { slot, .. } in self.tree.iter(&guard) {
            let (n, bytes) = slot.chain_stats(&guard);
            stats.slots += 1;
            stats.versions += n;
            stats.bytes += bytes;
        }
        stats
    }

    /// Bytes the index holds, by a scan, as the cache's estimate counts them
    /// ([`crate::btree::cache::entry_bytes`]: keys and values, and fixed costs per entry and
    /// per version, and the prefix map's member).
    pub fn footprint(&self) -> usize {
        let guard = Guard::new();
        let extra = self.entry_extra();
        self.tree.iter(&guard).map(|Entry { key, slot }| entry_footprint(key, slot, &guard) + extra).sum()
    }

    /// Bytes each entry costs beyond what [`Index::footprint`] counts for the entry itself: its
    /// member in the prefix map, if the index keeps one.
    #[inline]
    pub fn entry_extra(&self) -> usize {
        if self.prefixes.is_some() { super::prefixes::MEMBER_BYTES } else { 0 }
    }

    /// Prunes every chain of the index to what a reader at `oldest` can still need (and retires
    /// removed keys that every reader sees removed). A full scan: for tests and for a caller
    /// that wants memory back at once.
    pub fn prune_all(&self, oldest: u64, pinned: u64) {
        let guard = Guard::new();
        for Entry { key, slot } in self.tree.iter(&guard) {
            slot.prune(oldest, pinned, &guard);
            self.retire_if_removed(key.as_bytes(), slot, oldest, pinned, &guard);
        }
    }

    /// `rollback_to_stable`: every key loses the versions whose durable timestamp is after
    /// `stable`; keys left with none read as their tree has them (or absent in memory).
    /// Returns the number of keys changed.
    pub fn roll_back_to(&self, stable: u64) -> usize {
        let guard = Guard::new();
        self.tree.iter(&guard).filter(|e| e.slot.roll_back_to(stable, &guard)).count()
    }

    /// Entries in the tree, checked equal to the entries in the hash index (call only while no
    /// write is in flight).
    #[cfg(test)]
    pub(crate) fn tree_entries(&self) -> usize {
        let tree = self.tree.len();
        assert_eq!(
            if self.hashed { tree } else { 0 },
            self.short.len() + self.long.len(),
            "tree and hash index disagree"
        );
        tree
    }

    /// The slot of `key`: published slots are found in the hash index; a slot that is still
    /// being published (or already unlinked from the hash index) only in the tree.
    #[inline]
    fn find_slot<'g>(&'g self, probe: &Probe<'_>, guard: &'g Guard) -> Option<&'g Shared<Slot>> {
        match self.hash_peek(probe, guard) {
            Some(slot) => Some(slot),
            // An index without hash indexes has just searched the tree.
            None if !self.hashed => None,
            None => self.tree.get(probe, guard).map(|e| &e.slot),
        }
    }

    /// The one write path: installs `data` as the newest version of `key` if the key's current
    /// state allows `mode` and `ctx` does not conflict with it.
    ///
    /// The head decides, in this order: another transaction's uncommitted version, or one
    /// committed after `ctx.snapshot`, is a [`Refused::Conflict`] (whatever `mode` wants, as the
    /// reference answers `WT_ROLLBACK` before any existence check); then `mode` is checked
    /// against the head's value. A transactional write links the old head behind the new
    /// version (history for older snapshots); an [`WriteCtx::IMMEDIATE`] write replaces it.
    ///
    /// In a layered index, `below` says whether the layer under it holds `key` (asked only when
    /// `mode` needs to know and the index holds no version of the key; `None` if it could not
    /// tell, which refuses the write with [`Refused::Failed`]).
    pub fn write<'g>(
        &'g self,
        key: &[u8],
        data: Data,
        mode: Mode,
        ctx: WriteCtx,
        guard: &'g Guard,
    ) -> Result<Written<'g>, Refused> {
        self.write_over(key, data, mode, ctx, guard, false, &mut |_| Some(false))
    }

    /// [`Index::write`] over a layer below that `below` consults (whether it holds the key in
    /// its version at a timestamp: its newest, or the writer's snapshot). With `likely_new` (the
    /// caller's guess that the key is new: appends), an insert goes straight to the ordered
    /// index, which finds an existing slot anyway, and skips the hash probe that would miss.
    #[allow(clippy::too_many_arguments)]
    pub fn write_over<'g>(
        &'g self,
        key: &[u8],
        data: Data,
        mode: Mode,
        ctx: WriteCtx,
        guard: &'g Guard,
        likely_new: bool,
        below: &mut dyn FnMut(u64) -> Option<bool>,
    ) -> Result<Written<'g>, Refused> {
        let probe = Probe::new(key);
        let immediate = ctx.txn == TXN_COMMITTED;
        // The version to install: allocated when first needed, then carried across retries.
        let mut data = Some(data);
        let mut new: Option<Shared<Version>> = None;
        // An owned copy of the key, built only if the key must be inserted somewhere.
        let mut owned_key: Option<Key> = None;
        // Only the first pass trusts the guess.
        let mut skip_probe = likely_new && matches!(mode, Mode::Upsert | Mode::InsertNew);
        'retry: loop {
            // Published slots are in the hash index. A slot only in the tree is pending or
            // retired, so it holds no live value: a new key goes straight to the tree insert,
            // and the tree is searched only when that insert finds a slot there.
            let known = if std::mem::take(&mut skip_probe) { None } else { self.hash_peek(&probe, guard) };
            let slot = match known {
                Some(slot) => slot,
                None => {
                    if matches!(mode, Mode::UpdateExisting | Mode::Remove) && !self.layered {
                        return Err(Refused::Missing);
                    }
                    // New key: a pending slot goes into the tree first, then is published (put
                    // into the hash index, then given a version) below.
                    // (Or another writer's slot, if one is there: `insert` returns it.)
                    let k = owned_key.get_or_insert_with(|| Key::new(key)).clone();
                    let fresh = Owned::new(Entry { key: k, slot: Shared::new(Slot::pending()) });
                    &self.tree.insert(fresh, guard).0.slot
                }
            };
            let mut cur = slot.head.load(Acquire, guard);
            let mut published = false;
            loop {
                if cur.tag() == RETIRED {
                    // Being unlinked: help finish, then go through the indexes again.
                    self.unlink(&probe, slot);
                    continue 'retry;
                }
                if let Some(head) = cur.as_ref() {
                    let ts = head.commit_ts.load(Acquire);
                    if ts == TS_ABORTED {
                        // Being unlinked by its writer's rollback: look again.
                        cur = slot.head.load(Acquire, guard);
                        continue;
                    }
                    let own = !immediate && head.txn_id.load(Relaxed) == ctx.txn;
                    // Committed after the writer's snapshot, or after its application read
                    // timestamp, or not committed: a conflict.
                    let unseen = ts > ctx.snapshot || head.start_ts.load(Relaxed) > ctx.read_ts;
                    if !own && unseen {
                        // Insert-if-absent checks the key in the writer's snapshot before the
                        // conflict, as the reference does: a key visible there is a duplicate.
                        if mode == Mode::InsertNew {
                            let view = ReadView::at(ctx.snapshot, ctx.txn).reading_at(ctx.read_ts);
                            let seen = match head.data_in(&view, guard) {
                                Some(d) => !d.is_tombstone(),
                                // Nothing in the index: the tree as the snapshot sees it.
                                None => self.layered && below(ctx.snapshot).ok_or(Refused::Failed)?,
                            };
                            if seen {
                                return Err(Refused::Exists);
                            }
                        }
                        return Err(Refused::Conflict);
                    }
                }
                let live = match cur.as_ref() {
                    Some(v) => !v.data.is_tombstone(),
                    None if mode == Mode::Upsert || !self.layered => false,
                    None => below(crate::btree::tree::TS_NEWEST).ok_or(Refused::Failed)?,
                };
                match mode {
                    Mode::InsertNew if live => return Err(Refused::Exists),
                    Mode::UpdateExisting | Mode::Remove if !live => return Err(Refused::Missing),
                    _ => {}
                }
                if cur.is_null() && !published {
                    // Pending: it must be in both indexes before it gets a version.
                    if !self.publish(&probe, slot, &mut owned_key, guard) {
                        continue 'retry;
                    }
                    published = true;
                }
                if self.collated && super::collate::failed() {
                    // A comparison failed: the slot found (or the existence answer) may be
                    // another key's. Nothing is installed; the caller reports the failure.
                    return Err(Refused::Failed);
                }
                let version = match new.take() {
                    Some(version) => version,
                    None => {
                        let data = data.take().expect("data until built");
                        Shared::new(if immediate {
                            Version::committed(data)
                        } else {
                            Version::pending(data, ctx.txn, None)
                        })
                    }
                };
                if !immediate {
                    // History: the old head goes behind the new version before it is visible.
                    // (A failed `get_shared` means the head was just replaced: the CAS fails.)
                    let below = cur.get_shared();
                    drop(version.next.swap((below, Tag::None), Relaxed));
                }
                match slot.head.compare_exchange(
                    cur,
                    (Some(version), Tag::None),
                    AcqRel,
                    Acquire,
                    guard,
                ) {
                    Ok((replaced, installed)) => {
                        let was_empty = replaced.is_none();
                        // Released through the epoch scheme once unreferenced (transactional
                        // writes keep it alive through the new version's `next`).
                        drop(replaced);
                        if immediate && mode == Mode::Remove && !self.layered {
                            self.reclaim(&probe, slot, guard);
                        }
                        return Ok(Written {
                            slot: slot.get_guarded_ptr(guard),
                            version: installed,
                            was_empty,
                        });
                    }
                    Err((returned, actual)) => {
                        new = returned;
                        cur = actual;
                    }
                }
            }
        }
    }

    /// Retires the slot of a removed key once every reader sees it removed: its head is a
    /// tombstone committed at or before `oldest` (the oldest running snapshot) with an
    /// application timestamp at or before `pinned`. Returns whether the slot left the indexes.
    pub fn retire_if_removed(&self, key: &[u8], slot: &Slot, oldest: u64, pinned: u64, guard: &Guard) -> bool {
        if self.layered {
            // The tombstone must reach the tree first (a merge retires it).
            return false;
        }
        let head = slot.head.load(Acquire, guard);
        let removed = head.as_ref().is_some_and(|v| {
            v.data.is_tombstone() && v.visible_to_all(oldest, pinned)
        });
        // An empty head (rolled-back insert) holds nothing either.
        let empty = head.is_null() && head.tag() != RETIRED;
        if !(removed || empty) {
            return false;
        }
        if slot
            .head
            .compare_exchange(head, (None, RETIRED), AcqRel, Acquire, guard)
            .is_err()
        {
            return false;
        }
        let probe = Probe::new(key);
        self.unlink_ptr(&probe, slot as *const Slot);
        true
    }

    /// Makes sure the pending `slot` (already in the tree) is the hash index's entry for the key.
    /// Returns `false` if another live slot holds the key there (the caller starts over).
    fn publish(
        &self,
        probe: &Probe<'_>,
        slot: &Shared<Slot>,
        owned_key: &mut Option<Key>,
        guard: &Guard,
    ) -> bool {
        if !self.hashed {
            // Only the ordered index holds the slots (collated or layered).
            return true;
        }
        let target = slot.as_ptr();
        loop {
            let inserted = match probe.short() {
                Some(short) => self.short.insert_sync(short, slot.clone()).is_ok(),
                None => {
                    let k = owned_key
                        .get_or_insert_with(|| Key::new(probe.bytes()))
                        .clone();
                    self.long.insert_sync(k, slot.clone()).is_ok()
                }
            };
            if inserted {
                self.join_prefix(probe, slot, owned_key, guard);
                return true;
            }
            match self.hash_peek(probe, guard) {
                Some(other) if std::ptr::eq(other.as_ptr(), target) => {
                    self.join_prefix(probe, slot, owned_key, guard);
                    return true;
                }
                Some(other) if other.head.load(Acquire, guard).tag() == RETIRED => {
                    // A retired slot left behind by a late publisher: clear it away.
                    self.unlink(probe, other);
                }
                Some(_) => return false,
                // Unlinked meanwhile: insert again.
                None => {}
            }
        }
    }

    /// Puts the slot being published into its prefix's group, if the index keeps a prefix map.
    #[inline]
    fn join_prefix(&self, probe: &Probe<'_>, slot: &Shared<Slot>, owned_key: &mut Option<Key>, guard: &Guard) {
        if let Some(prefixes) = &self.prefixes {
            prefixes.join(owned_key.get_or_insert_with(|| Key::new(probe.bytes())).clone(), slot, guard);
        }
    }

    /// Called right after an [`WriteCtx::IMMEDIATE`] removal installed a tombstone in `slot`:
    /// such a tombstone is visible to all at once, so if the head is (still) a tombstone the
    /// slot is retired (CAS from that tombstone to a null head tagged [`RETIRED`]; it fails if a
    /// write came first, and then the slot simply stays) and unlinked at once. Transactional
    /// removals leave through [`Index::retire_if_removed`] once every snapshot sees them.
    #[inline]
    fn reclaim(&self, probe: &Probe<'_>, slot: &Shared<Slot>, guard: &Guard) {
        let head = slot.head.load(Acquire, guard);
        if !head.as_ref().is_some_and(|v| v.data.is_tombstone()) {
            return;
        }
        if slot
            .head
            .compare_exchange(head, (None, RETIRED), AcqRel, Acquire, guard)
            .is_ok()
        {
            self.unlink(probe, slot);
        }
    }

    /// Removes the retired `slot` from both indexes, where they still map the key to it (hash
    /// index first: a slot is in the hash index only while it is in the tree).
    fn unlink(&self, probe: &Probe<'_>, slot: &Shared<Slot>) {
        self.unlink_ptr(probe, slot.as_ptr());
    }

    /// [`Index::unlink`] of the slot at `target`.
    fn unlink_ptr(&self, probe: &Probe<'_>, target: *const Slot) {
        self.unhash(probe, target);
        self.tree.remove_if(probe, |e| std::ptr::eq(e.slot.as_ptr(), target));
    }

    /// Takes the retired slot at `target` out of the hash index and out of its prefix's group,
    /// where they still hold it: every way a slot is retired goes through here before the tree
    /// lets go of it.
    fn unhash(&self, probe: &Probe<'_>, target: *const Slot) {
        let is_target = |v: &Shared<Slot>| std::ptr::eq(v.as_ptr(), target);
        if self.hashed {
            match probe.short() {
                Some(short) => self.short.remove_if_sync(&short, is_target),
                None => self.long.remove_if_sync(probe, is_target),
            };
        }
        if let Some(prefixes) = &self.prefixes {
            prefixes.leave(probe.bytes(), target);
        }
    }
}

/// `entry` as key and value bytes, if its value is live in `view`.
#[inline]
fn live_entry<'g>(
    e: &'g Entry,
    view: ReadView,
    guard: &'g Guard,
) -> Option<(&'g [u8], &'g [u8])> {
    e.slot.value_in(&view, guard).map(|v| (e.key.as_bytes(), v))
}

/// The first entry of `iter` with a value live in `view`.
#[inline]
fn first_live<'g>(
    mut iter: impl Iterator<Item = &'g Entry>,
    view: ReadView,
    guard: &'g Guard,
) -> Option<(&'g [u8], &'g [u8])> {
    iter.find_map(|e| live_entry(e, view, guard))
}

/// What the entry of `key` and `slot` counts in the cache's estimate
/// ([`crate::btree::cache::entry_bytes`]: the key, the values, and fixed costs per entry and per
/// version).
#[inline]
fn entry_footprint(key: &Key, slot: &Slot, guard: &Guard) -> usize {
    use crate::btree::cache::{ENTRY_OVERHEAD, VERSION_OVERHEAD};
    let (versions, bytes) = slot.chain_stats(guard);
    // Values beyond the version structs themselves.
    let values = bytes.saturating_sub(versions * std::mem::size_of::<Version>());
    key.len() + ENTRY_OVERHEAD + versions * VERSION_OVERHEAD + values
}

/// The rows of a merge's chunk ([`Index::committed_from`]): keys and values copied into one
/// byte arena, reused from chunk to chunk, so that staging a row allocates nothing (the rows
/// are copied because no epoch guard may be held across the tree's writes).
#[derive(Default)]
pub struct Staged {
    bytes: Vec<u8>,
    /// Per row: where its key ends in `bytes` (it starts where the previous row ends), and
    /// where its value ends (`None`: a removal; the row ends with its key).
    rows: Vec<(usize, Option<usize>)>,
}

impl Staged {
    /// Adds a row.
    fn push(&mut self, key: &[u8], value: Option<&[u8]>) {
        self.bytes.extend_from_slice(key);
        let key_end = self.bytes.len();
        let value_end = value.map(|v| {
            self.bytes.extend_from_slice(v);
            self.bytes.len()
        });
        self.rows.push((key_end, value_end));
    }

    /// Forgets the rows, keeping the memory.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.rows.clear();
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows as (key, value) pairs, in the order they were added.
    pub fn rows(&self) -> Vec<(&[u8], Option<&[u8]>)> {
        let mut at = 0;
        self.rows
            .iter()
            .map(|&(key_end, value_end)| {
                let key = &self.bytes[at..key_end];
                let value = value_end.map(|end| &self.bytes[key_end..end]);
                at = value_end.unwrap_or(key_end);
                (key, value)
            })
            .collect()
    }
}

/// What [`Index::version_stats`] counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VersionStats {
    /// Slots in the index (live, removed or emptied keys).
    pub slots: usize,
    /// Versions in all chains.
    pub versions: usize,
    /// Bytes of those versions (the `Version` structs plus heap-held values).
    pub bytes: usize,
}
