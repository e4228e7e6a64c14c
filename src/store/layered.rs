//! A table's data in two layers: the in-memory index (every change not yet merged into the
//! tree, with the history running snapshots need) over the table's tree on disk (the merged
//! state, kept as versions by timestamp).
//!
//! # Reading
//! A reader at snapshot `S` asks the index first: a version it sees there (a value, or a
//! removal) decides. Otherwise the key's state at `S` is in the tree version of `S` (the newest
//! merged at or before `S`). This holds because a merge at `M` carries into the tree the state
//! every key had at `M`, and the index keeps every version newer than the oldest tree version a
//! reader may use: a slot leaves the index only once its newest version is at or before both
//! the merge and every running snapshot ([`Index::retire_range`]).
//!
//! Positioning merges the two orders: the nearest entry the index decides against the nearest
//! key of the tree; the index wins a tie, and a removal it decides is stepped over.
//!
//! # Merging ([`Layers::merge`])
//! Takes the committed state at `M` of every index entry, in key order and in bounded chunks,
//! and applies each chunk to the tree as its version `M` (a reader sees either the old or the
//! new tree for a key, and the index still holds every key of the chunk, so both answer the
//! same). Then the slots whose newest version is at or before `M` leave the index once no
//! snapshot older than `M` runs, and tree versions no snapshot can ask for are released.

use std::borrow::Cow;

use scc::Guard;

use super::collate::{self, Order};
use super::index::{Index, Seek, Staged};
use super::version::{is_prepared, PREPARED_VALUE};
use super::version::{Data, Horizon, ReadView, Version, TS_LATEST, TXN_COMMITTED};
use crate::btree::tree::{Hint, Tree};
use crate::error::{Error, Kind, Result};

/// `WT_PREPARE_CONFLICT`: a read met a prepared transaction's update (quiet, as in the
/// reference: the application retries).
pub fn prepare_conflict() -> Error {
    Error::quiet(Kind::PrepareConflict)
}

/// A key and value, borrowed from the index or from the tree's pages, or read.
pub type Entry<'g> = crate::btree::tree::Found<'g>;

/// An index entry that decides its key: the key, and its value (`None`: removed).
type Decided<'g> = (Cow<'g, [u8]>, Option<&'g [u8]>);

/// Index entries a merge reads per chunk (each chunk is one tree batch).
const MERGE_CHUNK: usize = 16 * 1024;
/// Bytes of keys and values a merge copies per chunk, at most (about: the row that passes it
/// stays): large values make fewer rows per chunk.
const MERGE_CHUNK_BYTES: usize = 256 << 10;

/// The layers of one table.
#[derive(Clone, Copy)]
pub struct Layers<'t> {
    /// The in-memory index.
    pub index: &'t Index,
    /// The tree on disk (`None` in memory: the index is everything).
    pub tree: Option<&'t Tree>,
}

/// Where a stepping cursor's last positioning landed in each layer.
#[derive(Clone, Debug, Default)]
pub struct SeekHint {
    tree: Hint,
    ahead: Option<Ahead>,
}

/// For one view and direction: the index's nearest deciding entry past `from` (`None`: none).
#[derive(Clone, Debug)]
struct Ahead {
    view: ReadView,
    forward: bool,
    from: Vec<u8>,
    next: Option<Vec<u8>>,
}

impl Ahead {
    /// Whether the answer holds for a step from `key`: `key` lies between `from` (included) and
    /// the entry found (excluded).
    fn covers(&self, key: &[u8], order: Order<'_>) -> bool {
        let cmp = |a: &[u8], b: &[u8]| collate::cmp(order, a, b);
        if self.forward {
            cmp(&self.from, key).is_le() && self.next.as_deref().is_none_or(|n| cmp(key, n).is_lt())
        } else {
            cmp(key, &self.from).is_le() && self.next.as_deref().is_none_or(|n| cmp(key, n).is_gt())
        }
    }
}

impl<'t> Layers<'t> {
    /// The value `view` sees for `key`.
    pub fn read<'g>(&self, key: &[u8], view: &ReadView, guard: &'g Guard) -> Result<Option<Cow<'g, [u8]>>>
    where
        't: 'g,
    {
        if let Some(data) = self.index.head(key, guard).and_then(|v| v.data_in(view, guard)) {
            if is_prepared(data) {
                return Err(prepare_conflict());
            }
            return Ok(data.bytes().map(Cow::Borrowed));
        }
        match self.tree {
            Some(tree) => tree.get_in(key, view.ts, guard),
            None => Ok(None),
        }
    }

    /// The entry nearest `key` in direction `dir` that `view` sees (`key` `None`: the first or
    /// last entry).
    pub fn seek<'g>(&self, key: Option<&[u8]>, dir: Seek, view: ReadView, guard: &'g Guard) -> Result<Option<Entry<'g>>>
    where
        't: 'g,
    {
        self.seek_hinted(key, dir, view, guard, &mut SeekHint::default())
    }

    /// [`seek`](Self::seek) keeping the tree's landing place in `hint`, so that a cursor
    /// stepping on from where it landed skips the tree's descent ([`Tree::seek_hinted`]).
    pub fn seek_hinted<'g>(
        &self,
        key: Option<&[u8]>,
        dir: Seek,
        view: ReadView,
        guard: &'g Guard,
        hint: &mut SeekHint,
    ) -> Result<Option<Entry<'g>>>
    where
        't: 'g,
    {
        let Some(tree) = self.tree else {
            let found = match key {
                Some(key) => self.index.seek(key, dir, view, guard),
                None if matches!(dir, Seek::Ge | Seek::Gt) => self.index.first(view, guard),
                None => self.index.last(view, guard),
            };
            return Ok(found.map(|(k, v)| (Cow::Borrowed(k), Cow::Borrowed(v))));
        };
        let forward = matches!(dir, Seek::Ge | Seek::Gt);
        let (mut from, mut dir) = (key.map(Cow::Borrowed), dir);
        loop {
            let decided = self.decided(from.as_deref(), dir, view, guard, &mut hint.ahead);
            let stored = tree.seek_hinted(from.as_deref(), dir, view.ts, guard, &mut hint.tree)?;
            let index_first = match (&decided, &stored) {
                (None, None) => return Ok(None),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some((k, _)), Some((t, _))) => {
                    let order = tree.cmp(k, t);
                    if forward {
                        order.is_le()
                    } else {
                        order.is_ge()
                    }
                }
            };
            if !index_first {
                return Ok(stored);
            }
            match decided {
                Some((k, Some(v))) => return Ok(Some((k, Cow::Borrowed(v)))),
                // Removed in the index: look past it.
                Some((k, None)) => {
                    from = Some(k);
                    dir = if forward { Seek::Gt } else { Seek::Lt };
                }
                None => unreachable!("the index was nearer"),
            }
        }
    }

    /// The index's nearest entry past `from` that `view` sees a version of
    /// ([`Index::seek_decided`]), answered from `ahead` when it can be. Why it can: for a
    /// snapshot view of a reader that has not written, entries deciding keys only leave the
    /// index (a merge carries them into the tree version the view reads), none arrive; so the
    /// entry found past a key is the one past every key up to it, as long as it still decides.
    fn decided<'g>(
        &self,
        from: Option<&[u8]>,
        dir: Seek,
        view: ReadView,
        guard: &'g Guard,
        ahead: &mut Option<Ahead>,
    ) -> Option<Decided<'g>>
    where
        't: 'g,
    {
        let forward = matches!(dir, Seek::Ge | Seek::Gt);
        let steady = view.txn == TXN_COMMITTED && view.ts < TS_LATEST && matches!(dir, Seek::Gt | Seek::Lt);
        if let (true, Some(key), Some(a)) = (steady, from, ahead.as_ref()) {
            if a.view == view && a.forward == forward && a.covers(key, self.tree.and_then(Tree::order)) {
                let Some(next) = &a.next else { return None };
                if let Some(data) = self.index.head(next, guard).and_then(|v| v.data_in(&view, guard)) {
                    if is_prepared(data) {
                        return Some((Cow::Owned(next.clone()), Some(&PREPARED_VALUE[..])));
                    }
                    return Some((Cow::Owned(next.clone()), data.bytes()));
                }
                // It left the index: look again.
            }
        }
        let found = self.index.seek_decided(from, dir, view, guard);
        *ahead = match (steady, from) {
            (true, Some(key)) => Some(Ahead { view, forward, from: key.to_vec(), next: found.map(|(k, _)| k.to_vec()) }),
            _ => None,
        };
        found.map(|(k, v)| (Cow::Borrowed(k), v))
    }

    /// The largest key either layer holds in any state (uncommitted, removed in the index, or
    /// the tree's newest version): `WT_CURSOR::largest_key`, which ignores visibility.
    pub fn largest_key(&self) -> Result<Option<Vec<u8>>> {
        let guard = Guard::new();
        let indexed = self.index.last_key_any(&guard).map(<[u8]>::to_vec);
        let stored = match self.tree {
            Some(tree) => tree.seek_in(None, Seek::Lt, crate::btree::tree::TS_NEWEST, &guard)?.map(|(k, _)| k.into_owned()),
            None => None,
        };
        Ok(indexed.max(stored))
    }

    /// Whether the tree holds `key` in its version at `ts` (`btree::tree::TS_NEWEST`: its
    /// newest; a writer's existence checks for a key the index holds nothing of, or nothing its
    /// snapshot sees).
    pub fn below(&self, key: &[u8], ts: u64) -> Result<bool> {
        match self.tree {
            Some(tree) => Ok(tree.get(key, ts)?.is_some()),
            None => Ok(false),
        }
    }

    /// Carries the committed state at `at` (a snapshot the caller holds, so the history it
    /// needs stays), as of application timestamp `bound` (`crate::store::NO_READ_TS`: every committed
    /// version), into the tree, then lets go of what no reader at or after `horizon` needs.
    /// Returns what the index holds afterwards as the cache's estimate counts it
    /// ([`Index::footprint`], summed by the merge's own walk); without a tree, `None` (nothing
    /// to do).
    pub fn merge(&self, at: u64, bound: u64, horizon: impl Fn() -> Horizon) -> Result<Option<usize>> {
        self.merge_chunked(at, bound, horizon, (MERGE_CHUNK, MERGE_CHUNK_BYTES))
    }

    /// [`merge`](Self::merge) in chunks of at most `limits` (rows, bytes): tests use small
    /// ones, so that their merges cross chunk boundaries.
    pub(crate) fn merge_chunked(
        &self,
        at: u64,
        bound: u64,
        horizon: impl Fn() -> Horizon,
        limits: (usize, usize),
    ) -> Result<Option<usize>> {
        let Some(tree) = self.tree else { return Ok(None) };
        self.merge_locked(tree, tree.merge_lock(), at, bound, horizon, limits).map(Some)
    }

    /// [`merge`](Self::merge) unless another merge is running (which carries most of what
    /// this one would): `None` if it did not merge.
    pub fn try_merge(&self, at: u64, bound: u64, horizon: impl Fn() -> Horizon) -> Result<Option<usize>> {
        let Some(tree) = self.tree else { return Ok(None) };
        match tree.try_merge_lock() {
            Some(lock) => self.merge_locked(tree, lock, at, bound, horizon, (MERGE_CHUNK, MERGE_CHUNK_BYTES)).map(Some),
            None => Ok(None),
        }
    }

    fn merge_locked(
        &self,
        tree: &crate::btree::tree::Tree,
        mut last: parking_lot::MutexGuard<'_, u64>,
        at: u64,
        bound: u64,
        horizon: impl Fn() -> Horizon,
        limits: (usize, usize),
    ) -> Result<usize> {
        // A merge that started later may have finished first: the tree never goes back, and
        // the history at its newer timestamp is still there (newer than `at`).
        let previous = *last;
        let at = at.max(previous);
        *last = at;
        let view = ReadView::at(at, TXN_COMMITTED).reading_at(bound);
        let mut from: Option<Vec<u8>> = None;
        let mut staged = Staged::default();
        let mut unpinned = Vec::new();
        // The index's estimate after the merge: the entries each chunk keeps (every entry
        // read, when nothing is retired).
        let mut footprint = 0;
        // The tree holds the state at `at` for each chunk once applied: its slots can go if no
        // snapshot before `at` runs (usually so: the merge's own snapshot is the oldest), and
        // every application read timestamp sees them. Else they stay until a later merge.
        let start = horizon();
        let retire = start.seq >= at;
        loop {
            staged.clear();
            unpinned.clear();
            let counted = (!retire).then_some(&mut footprint);
            let next = self.index.committed_from(from.as_deref(), view, start.ts, limits, &mut staged, &mut unpinned, counted);
            // States some application read timestamps may not see: before the tree holds them,
            // their chains keep what the tree held (readers that see none of the chain's
            // versions would otherwise fall through to the new tree version).
            for (key, slot) in &unpinned {
                let held = tree.get(key.as_bytes(), crate::btree::tree::TS_NEWEST)?;
                let data = held.as_deref().map_or(Data::Tombstone, Data::value);
                let guard = Guard::new();
                slot.add_base(scc::Shared::new(Version::base(data, previous)), start.ts, &guard);
            }
            if !staged.is_empty() {
                tree.apply(&staged.rows(), at)?;
            }
            if retire {
                footprint += self.index.retire_range(from.as_deref(), next.as_deref(), at, start.ts);
            }
            match next {
                Some(k) => from = Some(k),
                None => break,
            }
        }
        tree.release_before(horizon().seq.min(at));
        Ok(footprint)
    }
}
