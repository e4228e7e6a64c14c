//! A copy-on-write B+tree in a block file: pages are never changed in place. Applying a batch
//! of changes writes new leaves for the ones it touches and new internal pages above them, then
//! publishes the new root. A checkpoint is just a root address and the file's free list.
//!
//! # Versions
//! Each batch is applied as of a commit timestamp, and the tree keeps the roots older readers
//! still need: a reader at timestamp `t` reads the newest root applied at or before `t`
//! ([`TS_NEWEST`] reads the newest). [`Tree::release_before`] drops the roots no reader can
//! ask for any more (every snapshot at or after a newer root's timestamp), and the blocks only
//! those roots used are freed once, in addition, no reader can still be walking them (an epoch
//! later).
//!
//! Readers load the root and pages under an epoch [`Guard`]: parsed pages are immutable and
//! shared through the page cache, so a read of a resident page takes no lock and writes
//! nothing shared. A page not in the cache is read once however many readers miss it (the
//! first takes its frame's load lock; the others wait for it), and misses on different pages
//! proceed in parallel.

use std::borrow::Cow;
use std::cmp::Ordering as Cmp;
use std::collections::VecDeque;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::Arc;

use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
use scc::{AtomicShared, Guard, HashIndex, Shared, Tag};

use super::block::{Addr, BlockFile, SpaceRecord, PAYLOAD_AT};
use super::cache::Cache;
use super::extents::ExtentList;
use super::page::{self, cell_len, Builder, Cell, Item, Page};
use super::reclaim;
use super::striped::{self, Striped, STRIPES};
use crate::error::{Error, Kind, Result};
use crate::store::collate::{self, Collator, Order};

/// Page size limits (the reference's `leaf_page_max` / `internal_page_max`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest leaf image, in bytes.
    pub leaf_page_max: usize,
    /// Largest internal page image, in bytes.
    pub internal_page_max: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { leaf_page_max: 32 * 1024, internal_page_max: 4 * 1024 }
    }
}

impl Limits {
    /// Longest key kept in a page; longer ones go to overflow blocks.
    fn key_inline_max(&self, leaf: bool) -> usize {
        (if leaf { self.leaf_page_max } else { self.internal_page_max }) / 10
    }

    /// Longest value kept in a leaf.
    fn value_inline_max(&self) -> usize {
        self.leaf_page_max / 2
    }
}

pub use crate::store::Seek;

/// What a checkpoint of a tree records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeRecord {
    /// The root page (`None`: the tree is empty).
    pub root: Option<Addr>,
    /// The file's free space.
    pub space: SpaceRecord,
}

impl TreeRecord {
    /// Appends the encoded record.
    pub fn put(&self, out: &mut Vec<u8>) {
        match self.root {
            Some(addr) => {
                out.push(1);
                addr.put(out);
            }
            None => out.push(0),
        }
        self.space.put(out);
    }

    /// Decodes a record, or `None` if malformed.
    pub fn get(b: &[u8]) -> Option<(TreeRecord, &[u8])> {
        let (root, rest) = match *b.first()? {
            0 => (None, &b[1..]),
            1 => (Some(Addr::get(&b[1..])?), &b[1 + Addr::LEN..]),
            _ => return None,
        };
        let (space, rest) = SpaceRecord::get(rest)?;
        Some((TreeRecord { root, space }, rest))
    }
}

/// A cached page, or the place one is being loaded into.
///
/// The page is held apart from the frame, by an epoch-managed pointer: eviction takes it out
/// and hands it to the epochs, which free it once no reader can hold it. The frame itself stays
/// in its hash index's slot until a later write to that bucket cleans the slot, which may be
/// long after (the slot held the page's 32 KB too while pages lived inside frames, and
/// `evict_stress` saw over 100 MB of evicted pages waiting there on a loaded machine).
#[derive(Default)]
struct Frame {
    page: AtomicShared<Held>,
    /// Held by the reader loading the page.
    load: Mutex<()>,
}

impl Frame {
    /// The page, unless it is not loaded yet or was evicted.
    #[inline]
    fn page<'g>(&self, guard: &'g Guard) -> Option<&'g Page> {
        self.page.load(Acquire, guard).as_ref().map(|held| &held.page)
    }
}

/// A loaded page, and whether it was evicted: an evicted page counts in the reclamation
/// backlog (its footprint) until it is freed (`reclaim.rs`).
struct Held {
    page: Page,
    evicted: AtomicBool,
}

impl Held {
    fn new(page: Page) -> Shared<Held> {
        Shared::new(Held { page, evicted: AtomicBool::new(false) })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if *self.evicted.get_mut() {
            reclaim::count(-(self.page.footprint() as i64));
        }
    }
}

/// A page held by reference count, without an epoch guard ([`Tree::pin`]).
pub(super) struct Pinned(Shared<Held>);

impl std::ops::Deref for Pinned {
    type Target = Page;

    fn deref(&self) -> &Page {
        &self.0.page
    }
}

/// One stripe of a tree's eviction queue: the leaves one thread read, oldest first.
#[derive(Default)]
struct Queue {
    list: Mutex<VecDeque<(u64, u32)>>,
    /// The list's length, read without the lock by other threads choosing where to evict.
    len: AtomicUsize,
}

impl Queue {
    fn push(&self, key: (u64, u32)) {
        let mut list = self.list.lock();
        list.push_back(key);
        self.len.store(list.len(), Relaxed);
    }

    fn pop(&self) -> Option<(u64, u32)> {
        if self.len.load(Relaxed) == 0 {
            return None;
        }
        let mut list = self.list.lock();
        let key = list.pop_front();
        self.len.store(list.len(), Relaxed);
        key
    }

    fn len(&self) -> usize {
        self.len.load(Relaxed)
    }
}

/// Where a positioning call landed (see [`Tree::seek_hinted`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hint {
    /// The root of the version it landed in.
    root: Option<Addr>,
    /// The leaf it landed in.
    leaf: Option<Addr>,
    /// The entry's index in that leaf.
    at: usize,
}

/// A key and its value, borrowed from a cached page (inline items) or read (overflow items).
pub type Found<'g> = (Cow<'g, [u8]>, Cow<'g, [u8]>);

/// Reads the newest version of the tree.
pub const TS_NEWEST: u64 = u64::MAX;

/// The roots readers may use, newest first: (timestamp the root was applied at, root).
struct Roots {
    list: Vec<(u64, Option<Addr>)>,
}

impl Roots {
    /// The root a reader at `ts` uses: the newest applied at or before `ts` (the oldest kept
    /// root otherwise, which the caller's horizon keeps from happening).
    fn at(&self, ts: u64) -> Option<Addr> {
        let pick = self.list.iter().find(|(at, _)| *at <= ts).or(self.list.last());
        pick.and_then(|(_, root)| *root)
    }
}

/// Blocks a batch replaced, freed once no root that uses them is kept: (the batch's
/// timestamp, its replaced blocks), oldest first.
type Replaced = Vec<(u64, Vec<Addr>)>;

/// Hashes page addresses for the page cache: offsets are distinct multiples of the block unit,
/// so one multiply spreads them (SipHash cost a tenth of a scan).
#[derive(Clone, Copy, Debug, Default)]
struct AddrHash;

impl std::hash::BuildHasher for AddrHash {
    type Hasher = AddrHasher;

    fn build_hasher(&self) -> AddrHasher {
        AddrHasher(0)
    }
}

/// The hasher of [`AddrHash`]: folds each integer in with a multiply.
#[derive(Debug)]
struct AddrHasher(u64);

impl std::hash::Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Entries a tree's leaf index is sized for from the start (and never shrinks below): twice
/// the leaves the cache holds, at most 512 (about 25 KB). Misses insert and evictions remove
/// leaves all along; in the few buckets of a small table two threads met on one bucket's lock
/// often enough that the waiter slept (scc parks it on a futex).
fn leaf_capacity(budget: &Cache, limits: Limits) -> usize {
    let fit = budget.thresholds().size / limits.leaf_page_max.max(1) as u64;
    fit.saturating_mul(2).clamp(64, 512) as usize
}

/// One tree.
pub struct Tree {
    file: Arc<BlockFile>,
    roots: AtomicShared<Roots>,
    /// Taken by writers only (under `writer`).
    replaced: Mutex<Replaced>,
    /// Parsed internal pages by address (offset and checksum: a reused offset is a different
    /// page). Apart from the leaves so that the lines every search reads are not the ones
    /// every miss and eviction writes: this index changes only when the tree does.
    internal: HashIndex<(u64, u32), Arc<Frame>, AddrHash>,
    /// Parsed leaves by address, and the frames of pages being read (of either kind: an
    /// internal page moves to `internal` once read).
    leaves: HashIndex<(u64, u32), Arc<Frame>, AddrHash>,
    /// Bytes of parsed pages in the cache, counted by the threads that read and dropped them.
    cached_bytes: Striped<1>,
    /// The connection's budget the cached pages count against.
    budget: Arc<Cache>,
    /// Leaves in the order they were read, oldest first, a queue per thread stripe: a thread
    /// queues the leaves it reads and evicts from its own queue (no lock another thread takes)
    /// unless another holds clearly more. Internal pages are not queued (they are few,
    /// and every read passes through them).
    queue: Box<[CachePadded<Queue>; STRIPES]>,
    limits: Limits,
    /// One batch of changes or checkpoint at a time.
    writer: Mutex<()>,
    /// One merge at a time ([`crate::store::Layers::merge`]), and the timestamp of the last.
    merges: Mutex<u64>,
    /// The root of the last durable checkpoint, and the one a checkpoint being taken records
    /// (verification checks both).
    checkpoint_roots: Mutex<(Option<Addr>, Option<Addr>)>,
    /// Whether a durable checkpoint holds this tree (opened from one, or checkpointed since):
    /// checkpoint cursors on a table created after the last checkpoint are `ENOENT`.
    checkpointed: AtomicBool,
    /// The collator of a collated table (`None`: bytewise): pages, batches and verify order
    /// keys by it.
    collate: Option<Arc<Collator>>,
}

/// A change to one key: its new value, or `None` to remove it.
pub type Change = (Vec<u8>, Option<Vec<u8>>);

/// A change as [`Tree::apply`] reads it: owned ([`Change`]) or borrowed (a merge's rows,
/// staged in one arena).
pub trait KeyChange {
    /// The key.
    fn key(&self) -> &[u8];
    /// The new value (`None`: remove the key).
    fn value(&self) -> Option<&[u8]>;
}

impl KeyChange for Change {
    #[inline]
    fn key(&self) -> &[u8] {
        &self.0
    }

    #[inline]
    fn value(&self) -> Option<&[u8]> {
        self.1.as_deref()
    }
}

impl KeyChange for (&[u8], Option<&[u8]>) {
    #[inline]
    fn key(&self) -> &[u8] {
        self.0
    }

    #[inline]
    fn value(&self) -> Option<&[u8]> {
        self.1
    }
}

/// A child entry of an internal page being built: the lowest key its subtree may hold (empty:
/// the parent's lower bound) and its address.
type Entry = (Vec<u8>, Addr);

impl Tree {
    /// An empty tree in a new block file, its pages counted against `budget`.
    pub fn create(file: BlockFile, limits: Limits, budget: Arc<Cache>) -> Tree {
        Tree::with(Arc::new(file), None, limits, budget, false)
    }

    /// The tree a checkpoint recorded; `file` was opened with the record's space.
    pub fn open(file: BlockFile, root: Option<Addr>, limits: Limits, budget: Arc<Cache>) -> Tree {
        Tree::with(Arc::new(file), root, limits, budget, true)
    }

    fn with(file: Arc<BlockFile>, root: Option<Addr>, limits: Limits, budget: Arc<Cache>, opened: bool) -> Tree {
        Tree {
            file,
            roots: AtomicShared::new(Roots { list: vec![(0, root)] }),
            replaced: Mutex::new(Vec::new()),
            internal: HashIndex::with_hasher(AddrHash),
            leaves: HashIndex::with_capacity_and_hasher(leaf_capacity(&budget, limits), AddrHash),
            cached_bytes: Striped::default(),
            budget,
            queue: Box::default(),
            limits,
            writer: Mutex::new(()),
            merges: Mutex::new(0),
            checkpoint_roots: Mutex::new((root, root)),
            checkpointed: AtomicBool::new(opened),
            collate: None,
        }
    }

    /// The tree of a table ordered by `collate` (`None`: bytewise).
    pub fn ordered_by(mut self, collate: Option<Arc<Collator>>) -> Tree {
        self.collate = collate;
        self
    }

    /// How the keys are ordered.
    #[inline(always)]
    pub fn order(&self) -> Order<'_> {
        self.collate.as_deref()
    }

    /// Orders keys `a` and `b`.
    #[inline]
    pub fn cmp(&self, a: &[u8], b: &[u8]) -> Cmp {
        collate::cmp(self.order(), a, b)
    }

    /// Serializes merges into the tree; holds the timestamp the last one merged at.
    pub fn merge_lock(&self) -> parking_lot::MutexGuard<'_, u64> {
        self.merges.lock()
    }

    /// [`merge_lock`](Self::merge_lock) if no merge is running.
    pub fn try_merge_lock(&self) -> Option<parking_lot::MutexGuard<'_, u64>> {
        self.merges.try_lock()
    }

    /// The block file.
    pub fn file(&self) -> &BlockFile {
        &self.file
    }

    /// Bytes of parsed pages in the cache.
    pub fn cached_bytes(&self) -> usize {
        self.cached_bytes.count(0) as usize
    }

    fn root_addr(&self, ts: u64, guard: &Guard) -> Option<Addr> {
        self.roots.load(Acquire, guard).as_ref().and_then(|r| r.at(ts))
    }

    /// The newest version's root.
    pub fn newest_root(&self) -> Option<Addr> {
        self.root_addr(TS_NEWEST, &Guard::new())
    }

    /// The root the last durable checkpoint recorded.
    pub fn checkpoint_root(&self) -> Option<Addr> {
        self.checkpoint_roots.lock().0
    }

    /// The limits pages are built to.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Number of roots kept (tests).
    pub fn versions(&self) -> usize {
        let guard = Guard::new();
        self.roots.load(Acquire, &guard).as_ref().map_or(0, |r| r.list.len())
    }

    /// The page at `addr`, from the cache or read and parsed into it.
    pub(super) fn page<'g>(&'g self, addr: Addr, guard: &'g Guard) -> Result<&'g Page> {
        let key = (addr.offset, addr.checksum);
        // Internal pages first: every search passes through them, and a search reads one leaf.
        if let Some(page) = self.internal.peek(&key, guard).and_then(|f| f.page(guard)) {
            return Ok(page);
        }
        if let Some(page) = self.leaves.peek(&key, guard).and_then(|f| f.page(guard)) {
            return Ok(page);
        }
        self.load(addr, guard)
    }

    /// The page at `addr`, held by a reference count instead of an epoch guard: for writers
    /// (merges, compaction), which keep pages for long stretches with I/O in between; an epoch
    /// guard held that long would hold back the reclamation of everything readers drop. A page
    /// that is not cached is read for the writer alone: it is about to be replaced, and
    /// caching it would only push readers' pages out (and leave garbage for the epochs).
    pub(super) fn pin(&self, addr: Addr) -> Result<Pinned> {
        let cached = {
            let (guard, key) = (Guard::new(), (addr.offset, addr.checksum));
            let frame = self.internal.peek(&key, &guard).or_else(|| self.leaves.peek(&key, &guard));
            frame.and_then(|f| f.page.get_shared(Acquire, &guard))
        };
        match cached {
            Some(page) => Ok(Pinned(page)),
            None => Ok(Pinned(Held::new(self.read_page(addr)?))),
        }
    }

    #[cold]
    fn load<'g>(&'g self, addr: Addr, guard: &'g Guard) -> Result<&'g Page> {
        let key = (addr.offset, addr.checksum);
        let frame = loop {
            if let Some(frame) = self.leaves.peek(&key, guard) {
                break frame;
            }
            // Moved there while this reader looked.
            if let Some(page) = self.internal.peek(&key, guard).and_then(|f| f.page(guard)) {
                return Ok(page);
            }
            // Losing the race to insert is fine: the winner's frame is used. Eviction may take
            // the frame out again before it is found: then try again.
            let _ = self.leaves.insert_sync(key, Arc::new(Frame::default()));
        };
        let _loading = frame.load.lock();
        if let Some(page) = frame.page(guard) {
            return Ok(page);
        }
        let page = self.read_page(addr)?;
        let bytes = page.footprint() as i64;
        // Counted in this thread's stripes: nothing another reader writes.
        self.cached_bytes.add(0, bytes);
        self.budget.page_read(bytes);
        // Only this loader stores into the frame (it holds `load`), and eviction takes pages
        // only from frames that hold one: the page stays this reader's under its guard even if
        // it is evicted the moment it is published.
        let held = Held::new(page);
        let page = &held.get_guarded_ref(guard).page;
        drop(frame.page.swap((Some(held), Tag::None), Release));
        if !page.is_leaf() {
            // Readers waiting on this frame find the page in it; later ones find it there.
            if self.internal.insert_sync(key, Arc::clone(frame)).is_err() {
                // Another frame of the same page got there first (this reader missed it in both
                // indexes meanwhile): this copy leaves with the placeholder.
                self.cached_bytes.add(0, -bytes);
                self.budget.pages(-bytes);
            }
            self.leaves.remove_sync(&key);
            return Ok(page);
        }
        self.queue[striped::stripe()].push(key);
        // The reader makes room itself (the page it returns stays valid under its guard): past
        // the trigger, down to the target; past the target, as many bytes as it added (the
        // oldest leaf makes way for the new one; with the indexes filling the cache, draining
        // every leaf would gain nothing until a merge). Waking the eviction server instead
        // cost more than the eviction: a futex wake and a context switch per miss, on a core
        // the readers want.
        let evicted = if self.budget.over_trigger() {
            self.evict_to_target()
        } else {
            self.evict(bytes as usize)
        };
        self.budget.evicted(evicted, false);
        Ok(page)
    }

    /// Drops cached leaves of this tree, oldest read first, until the cache is back under its
    /// target or the tree holds no more leaves; returns how many were dropped. Pages in use
    /// stay valid for their readers (the entries are freed an epoch later).
    pub fn evict_to_target(&self) -> u64 {
        self.evict(usize::MAX)
    }

    /// [`evict_to_target`](Self::evict_to_target), stopping once `bytes` are freed.
    fn evict(&self, bytes: usize) -> u64 {
        let (mut freed, mut evicted) = (0, 0);
        while freed < bytes && self.budget.over_target() {
            let Some((offset, checksum)) = self.victim() else { break };
            // A queued page may be gone already (replaced by a merge): then nothing is freed.
            if let Some(n) = self.uncache(Addr { offset, size: 0, checksum }) {
                freed += n;
                evicted += 1;
            }
        }
        evicted
    }

    /// The leaf to evict next: the oldest of the caller's own queue, unless the longest queue
    /// holds clearly more (a thread that stopped reading: its pages go first, until the queues
    /// are about even; the lengths are read without the locks, from lines only their owners
    /// write); any queue's when those are empty.
    fn victim(&self) -> Option<(u64, u32)> {
        let me = striped::stripe();
        let own = self.queue[me].len();
        let (longest, len) = (0..STRIPES).map(|i| (i, self.queue[i].len())).fold((me, own), |a, b| if b.1 > a.1 { b } else { a });
        let first = if len > own + own / 8 + 1 { longest } else { me };
        self.queue[first].pop().or_else(|| (1..=STRIPES).find_map(|k| self.queue[(me + k) % STRIPES].pop()))
    }

    /// Leaves queued for eviction by each thread stripe (tests).
    #[cfg(test)]
    pub(crate) fn queued(&self) -> Vec<usize> {
        self.queue.iter().map(|q| q.len()).collect()
    }

    fn read_page(&self, addr: Addr) -> Result<Page> {
        let block = self.file.read_block(addr)?;
        Page::parse(block, PAYLOAD_AT, self.file.name(), addr.offset, |a, len| self.read_overflow(a, len))
    }

    fn read_overflow(&self, addr: Addr, len: u64) -> Result<Vec<u8>> {
        let bytes = self.file.read(addr)?;
        if bytes.len() as u64 != len {
            return Err(Error::new(
                Kind::TrySalvage,
                format!("{}: overflow item at offset {} holds {} bytes, its page says {len}", self.file.name(), addr.offset, bytes.len()),
            ));
        }
        Ok(bytes)
    }

    /// The bytes of a cell of `page`.
    fn item<'g>(&self, page: &'g Page, cell: Cell) -> Result<Cow<'g, [u8]>> {
        match cell {
            Cell::Inline { .. } => Ok(Cow::Borrowed(page.inline(cell).unwrap_or_default())),
            Cell::Overflow { addr, len } => self.read_overflow(addr, len).map(Cow::Owned),
        }
    }

    /// The value stored for `key` in the version a reader at `ts` sees.
    pub fn get(&self, key: &[u8], ts: u64) -> Result<Option<Vec<u8>>> {
        let guard = Guard::new();
        Ok(self.get_in(key, ts, &guard)?.map(Cow::into_owned))
    }

    /// [`get`](Self::get) under the caller's guard: an inline value is borrowed from its page.
    pub fn get_in<'g>(&'g self, key: &[u8], ts: u64, guard: &'g Guard) -> Result<Option<Cow<'g, [u8]>>> {
        let Some(mut addr) = self.root_addr(ts, guard) else { return Ok(None) };
        loop {
            let page = self.page(addr, guard)?;
            if page.is_leaf() {
                return match page.search(key, self.order()) {
                    Ok(i) => self.item(page, page.value_cell(i)).map(Some),
                    Err(_) => Ok(None),
                };
            }
            addr = page.child(page.child_for(key, self.order()));
        }
    }

    /// The entry nearest `key` in direction `dir` in the version a reader at `ts` sees, as
    /// (key, value).
    pub fn seek(&self, key: &[u8], dir: Seek, ts: u64) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        let guard = Guard::new();
        let found = self.seek_in(Some(key), dir, ts, &guard)?;
        Ok(found.map(|(k, v)| (k.into_owned(), v.into_owned())))
    }

    /// [`seek`](Self::seek) under the caller's guard (inline items borrowed from their page),
    /// or with `key` `None` the first (`Ge`/`Gt`) or last (`Le`/`Lt`) entry.
    pub fn seek_in<'g>(
        &'g self,
        key: Option<&[u8]>,
        dir: Seek,
        ts: u64,
        guard: &'g Guard,
    ) -> Result<Option<Found<'g>>> {
        self.seek_hinted(key, dir, ts, guard, &mut Hint::default())
    }

    /// [`seek_in`](Self::seek_in) that remembers where it landed in `hint`: a cursor stepping
    /// from that entry in the same version of the tree continues in the same leaf without a
    /// descent. The hint holds addresses only (it pins nothing) and is checked before use.
    pub fn seek_hinted<'g>(
        &'g self,
        key: Option<&[u8]>,
        dir: Seek,
        ts: u64,
        guard: &'g Guard,
        hint: &mut Hint,
    ) -> Result<Option<Found<'g>>> {
        let Some(root) = self.root_addr(ts, guard) else { return Ok(None) };
        let forward = matches!(dir, Seek::Ge | Seek::Gt);
        if let (Some(key), Some(leaf), Seek::Gt | Seek::Lt) = (key, hint.leaf, dir) {
            // The version is immutable: the entry after `key` in it is the next one in the
            // leaf that held `key`, unless `key` was that leaf's last.
            let page = self.leaves.peek(&(leaf.offset, leaf.checksum), guard).and_then(|f| f.page(guard));
            if let Some(page) = page.filter(|p| hint.root == Some(root) && hint.at < p.len() && p.key(hint.at) == key) {
                let next = if forward { hint.at.checked_add(1) } else { hint.at.checked_sub(1) };
                if let Some(i) = next.filter(|&i| i < page.len()) {
                    hint.at = i;
                    let k = self.item(page, page.key_cell(i))?;
                    return Ok(Some((k, self.item(page, page.value_cell(i))?)));
                }
            }
        }
        // The internal pages on the way down and the child taken in each.
        let mut path: Vec<(&Page, usize)> = Vec::new();
        let mut leaf = root;
        let mut page = self.page(root, guard)?;
        while !page.is_leaf() {
            let i = match key {
                Some(key) => page.child_for(key, self.order()),
                None if forward => 0,
                None => page.len() - 1,
            };
            path.push((page, i));
            leaf = page.child(i);
            page = self.page(leaf, guard)?;
        }
        let mut at: Option<usize> = match key.map(|k| page.search(k, self.order())) {
            None if forward => Some(0),
            None => page.len().checked_sub(1),
            Some(found) => match (found, dir) {
                (Ok(i), Seek::Ge | Seek::Le) => Some(i),
                (Ok(i), Seek::Gt) => Some(i + 1),
                (Err(i), Seek::Ge | Seek::Gt) => Some(i),
                (Ok(i) | Err(i), Seek::Lt) | (Err(i), Seek::Le) => i.checked_sub(1),
            },
        };
        loop {
            match at {
                Some(i) if i < page.len() => {
                    *hint = Hint { root: Some(root), leaf: Some(leaf), at: i };
                    let k = self.item(page, page.key_cell(i))?;
                    return Ok(Some((k, self.item(page, page.value_cell(i))?)));
                }
                _ => {}
            }
            // Off this leaf: climb to the nearest parent with a sibling that way, then descend
            // along its edge.
            loop {
                let Some((parent, i)) = path.pop() else { return Ok(None) };
                let next = if forward { i.checked_add(1).filter(|&n| n < parent.len()) } else { i.checked_sub(1) };
                if let Some(n) = next {
                    path.push((parent, n));
                    break;
                }
            }
            let &(parent, i) = path.last().unwrap_or_else(|| unreachable!("a sibling was just pushed"));
            leaf = parent.child(i);
            page = self.page(leaf, guard)?;
            while !page.is_leaf() {
                let edge = if forward { 0 } else { page.len() - 1 };
                path.push((page, edge));
                leaf = page.child(edge);
                page = self.page(leaf, guard)?;
            }
            at = if forward { Some(0) } else { page.len().checked_sub(1) };
        }
    }

    /// Applies `changes` (sorted by key, each key once) to the newest version as a new version
    /// at timestamp `ts` (not older than the newest). On an error the tree is unchanged and the
    /// blocks written for it are free again.
    pub fn apply<C: KeyChange>(&self, changes: &[C], ts: u64) -> Result<()> {
        debug_assert!(changes.windows(2).all(|w| self.cmp(w[0].key(), w[1].key()).is_lt()), "changes must be sorted and unique");
        let _writer = self.writer.lock();
        let mut batch = Batch { tree: self, written: Vec::new(), freed: Vec::new() };
        match batch.new_root(changes) {
            Ok(root) => {
                let guard = Guard::new();
                let mut list = self.roots.load(Acquire, &guard).as_ref().map_or_else(Vec::new, |r| r.list.clone());
                debug_assert!(list.first().is_none_or(|&(newest, _)| newest <= ts), "versions must be applied in order");
                list.insert(0, (ts, root));
                drop(self.roots.swap((Some(Shared::new(Roots { list })), Tag::None), AcqRel));
                self.replaced.lock().push((ts, batch.freed));
                Ok(())
            }
            Err(e) => {
                // Never published: no reader can have seen these blocks.
                for addr in batch.written {
                    self.file.free_unpublished(addr);
                }
                Err(e)
            }
        }
    }

    /// No reader will ask for a version older than `horizon` any more: drops the roots only such
    /// readers used, and frees the blocks only those roots used once no reader can still be
    /// walking them (readers of a dropped root hold guards of an earlier epoch).
    pub fn release_before(&self, horizon: u64) {
        let _writer = self.writer.lock();
        let guard = Guard::new();
        let Some(roots) = self.roots.load(Acquire, &guard).as_ref() else { return };
        // Keep every root newer than the horizon and the newest at or before it.
        let keep = roots.list.iter().position(|(ts, _)| *ts <= horizon).map_or(roots.list.len(), |i| i + 1);
        if keep < roots.list.len() {
            let list = roots.list[..keep].to_vec();
            drop(self.roots.swap((Some(Shared::new(Roots { list })), Tag::None), AcqRel));
        }
        // A batch at `ts` replaced blocks of the root before it, which a reader needs only
        // before `ts`.
        let freed: Vec<Addr> = {
            let mut replaced = self.replaced.lock();
            let done = replaced.iter().take_while(|(ts, _)| *ts <= horizon).count();
            replaced.drain(..done).flat_map(|(_, blocks)| blocks).collect()
        };
        self.retire(freed, &guard);
    }

    /// Frees replaced pages (and the overflow blocks only they used) once no reader can reach
    /// them: readers of the old root hold guards of an earlier epoch.
    fn retire(&self, pages: Vec<Addr>, guard: &Guard) {
        for addr in pages {
            self.uncache(addr);
            self.file.retire(addr);
            let file = Arc::clone(&self.file);
            guard.defer_execute(move || file.release(addr));
        }
    }

    /// Drops the page at `addr` from the cache; returns its bytes if it was there.
    fn uncache(&self, addr: Addr) -> Option<usize> {
        let guard = Guard::new();
        let key = (addr.offset, addr.checksum);
        for index in [&self.leaves, &self.internal] {
            let Some((frame, bytes)) = index.peek(&key, &guard).and_then(|f| Some((f, f.page(&guard)?.footprint()))) else {
                continue;
            };
            if index.remove_sync(&key) {
                self.cached_bytes.add(0, -(bytes as i64));
                self.budget.pages(-(bytes as i64));
                // The page goes to the epochs now, not with the frame's slot, and counts in the
                // backlog until they free it.
                if let (Some(held), _) = frame.page.swap((None, Tag::None), AcqRel) {
                    held.evicted.store(true, Relaxed);
                    reclaim::count(held.page.footprint() as i64);
                }
                return Some(bytes);
            }
        }
        None
    }

    /// The newest version's state for a checkpoint: every block it uses is synced first. Call
    /// [`checkpoint_durable`](Self::checkpoint_durable) with the second part once the record
    /// is durable.
    ///
    /// Blocks that only older versions (kept for older readers) use are free in the record:
    /// reopened from it, the file holds the checkpoint's version alone.
    pub fn checkpoint(&self) -> Result<(TreeRecord, ExtentList)> {
        let _writer = self.writer.lock();
        self.file.sync()?;
        let guard = Guard::new();
        let older: Vec<Addr> = self.replaced.lock().iter().flat_map(|(_, blocks)| blocks.iter().copied()).collect();
        let (space, released) = self.file.checkpoint_record(older.iter().map(Addr::extent));
        let root = self.root_addr(TS_NEWEST, &guard);
        self.checkpoint_roots.lock().1 = root;
        Ok((TreeRecord { root, space }, released))
    }

    /// The checkpoint taken by [`checkpoint`](Self::checkpoint) is durable.
    pub fn checkpoint_durable(&self, released: &ExtentList) {
        self.file.checkpoint_durable(released);
        let mut roots = self.checkpoint_roots.lock();
        roots.0 = roots.1;
        self.checkpointed.store(true, Release);
    }

    /// Every (key, value) of the last durable checkpoint's version, in key order, or `None`
    /// when no durable checkpoint holds the tree. The caller keeps checkpoints out meanwhile
    /// (the version's blocks stay where they are until the next one). Pages are read for the
    /// caller alone when not cached, as a merge reads them.
    pub fn checkpoint_rows(&self) -> Result<Option<Vec<(Vec<u8>, Vec<u8>)>>> {
        if !self.checkpointed.load(Acquire) {
            return Ok(None);
        }
        let mut rows = Vec::new();
        let Some(root) = self.checkpoint_root() else { return Ok(Some(rows)) };
        let mut stack = vec![root];
        while let Some(addr) = stack.pop() {
            let page = self.pin(addr)?;
            if page.is_leaf() {
                for i in 0..page.len() {
                    let key = self.item(&page, page.key_cell(i))?.into_owned();
                    rows.push((key, self.item(&page, page.value_cell(i))?.into_owned()));
                }
            } else {
                // Children pushed last first, so the leftmost is read next.
                stack.extend((0..page.len()).rev().map(|i| page.child(i)));
            }
        }
        Ok(Some(rows))
    }

    /// Drops every cached page (tests; eviction under memory pressure).
    pub fn evict_all(&self) {
        let guard = Guard::new();
        let keys: Vec<(u64, u32)> = self.leaves.iter(&guard).chain(self.internal.iter(&guard)).map(|(k, _)| *k).collect();
        for (offset, checksum) in keys {
            self.uncache(Addr { offset, size: 0, checksum });
        }
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        // The pages leave with the tree.
        self.budget.pages(-self.cached_bytes.sum(0));
    }
}

/// One [`Tree::apply`]: the blocks it wrote (freed again if it fails) and the ones it
/// replaced (retired if it succeeds).
struct Batch<'t> {
    tree: &'t Tree,
    written: Vec<Addr>,
    freed: Vec<Addr>,
}

impl Batch<'_> {
    fn write(&mut self, image: &[u8]) -> Result<Addr> {
        let addr = self.tree.file.write(image)?;
        self.written.push(addr);
        self.tree.budget.stats.pages_written.fetch_add(1, Relaxed);
        Ok(addr)
    }

    /// An item kept inline, or written to an overflow block.
    fn place<'a>(&mut self, bytes: &'a [u8], inline: bool) -> Result<Item<'a>> {
        if inline {
            return Ok(Item::Inline(bytes));
        }
        let addr = self.tree.file.write(bytes)?;
        self.written.push(addr);
        Ok(Item::Overflow(addr, bytes.len() as u64))
    }

    /// The root after the changes.
    fn new_root<C: KeyChange>(&mut self, changes: &[C]) -> Result<Option<Addr>> {
        let newest = self.tree.root_addr(TS_NEWEST, &Guard::new());
        let mut entries = match newest {
            Some(root) => self.apply_node(root, changes)?,
            None => {
                let mut out = LeafWriter::new();
                for change in changes {
                    if let Some(v) = change.value() {
                        out.push(self, change.key(), v)?;
                    }
                }
                out.finish(self)?
            }
        };
        // Stack internal levels until one page holds the tree, and drop levels of one child.
        loop {
            match entries.len() {
                0 => return Ok(None),
                1 => {
                    let (_, addr) = entries[0];
                    let page = self.tree.pin(addr)?;
                    if page.is_leaf() || page.len() > 1 {
                        return Ok(Some(addr));
                    }
                    self.freed.push(addr);
                    entries = vec![(Vec::new(), page.child(0))];
                }
                _ => entries = self.build_internal(entries)?,
            }
        }
    }

    /// Rewrites the subtree at `addr` with the changes that fall in it; returns the entries
    /// replacing it in its parent (none if it became empty, several if it split).
    fn apply_node<C: KeyChange>(&mut self, addr: Addr, changes: &[C]) -> Result<Vec<Entry>> {
        let page = self.tree.pin(addr)?;
        if page.is_leaf() {
            let mut out = LeafWriter::new();
            self.merge_leaf(&mut out, addr, &page, changes)?;
            return out.finish(self);
        }
        let mut out: Vec<Entry> = Vec::with_capacity(page.len() + 1);
        // Adjacent changed leaves are repacked together, so leaves that shrank merge rather
        // than staying small forever: (lower bound of the run, its writer).
        let mut run: Option<(Vec<u8>, LeafWriter)> = None;
        let mut rest = changes;
        for i in 0..page.len() {
            // Child i holds keys below key(i + 1).
            let take = if i + 1 < page.len() {
                let upper = page.key(i + 1);
                rest.partition_point(|c| self.tree.cmp(c.key(), upper).is_lt())
            } else {
                rest.len()
            };
            let (mine, later) = rest.split_at(take);
            rest = later;
            if mine.is_empty() {
                self.end_run(&mut run, &mut out)?;
                out.push((page.key(i).to_vec(), page.child(i)));
                continue;
            }
            let child = self.tree.pin(page.child(i))?;
            if child.is_leaf() {
                let (_, writer) = run.get_or_insert_with(|| (page.key(i).to_vec(), LeafWriter::new()));
                self.merge_leaf(writer, page.child(i), &child, mine)?;
                continue;
            }
            self.end_run(&mut run, &mut out)?;
            let mut replaced = self.apply_node(page.child(i), mine)?;
            if let Some(first) = replaced.first_mut() {
                // The first replacement keeps the child's lower bound.
                first.0 = page.key(i).to_vec();
            }
            out.extend(replaced);
        }
        self.end_run(&mut run, &mut out)?;
        self.freed.push(addr);
        for i in 0..page.len() {
            if let Cell::Overflow { addr, .. } = page.key_cell(i) {
                self.freed.push(addr);
            }
        }
        if out.is_empty() {
            return Ok(out);
        }
        out[0].0.clear();
        self.build_internal(out)
    }

    /// Writes out a run of merged leaves; its first leaf takes the run's lower bound.
    fn end_run(&mut self, run: &mut Option<(Vec<u8>, LeafWriter)>, out: &mut Vec<Entry>) -> Result<()> {
        if let Some((lower, writer)) = run.take() {
            let mut leaves = writer.finish(self)?;
            if let Some(first) = leaves.first_mut() {
                first.0 = lower;
            }
            out.extend(leaves);
        }
        Ok(())
    }

    /// Merges `changes` into the entries of the leaf `page` (at `addr`, which is freed), in
    /// key order, into `out`.
    fn merge_leaf<C: KeyChange>(&mut self, out: &mut LeafWriter, addr: Addr, page: &Page, changes: &[C]) -> Result<()> {
        self.freed.push(addr);
        let (mut i, mut c) = (0, 0);
        while i < page.len() || c < changes.len() {
            let order = match (i < page.len(), c < changes.len()) {
                (true, true) => self.tree.cmp(page.key(i), changes[c].key()),
                (true, false) => Cmp::Less,
                _ => Cmp::Greater,
            };
            if order == Cmp::Less {
                out.push_cells(self, page, i)?;
                i += 1;
                continue;
            }
            if order == Cmp::Equal {
                // Replaced or removed: its overflow blocks go with it.
                for cell in [page.key_cell(i), page.value_cell(i)] {
                    if let Cell::Overflow { addr, .. } = cell {
                        self.freed.push(addr);
                    }
                }
                i += 1;
            }
            if let Some(v) = changes[c].value() {
                out.push(self, changes[c].key(), v)?;
            }
            c += 1;
        }
        Ok(())
    }

    /// Internal pages over `entries` (the first's key is the lower bound of them all), as
    /// entries of the level above.
    fn build_internal(&mut self, entries: Vec<Entry>) -> Result<Vec<Entry>> {
        let max = self.tree.limits.internal_page_max;
        let mut out = Vec::new();
        let mut b = Builder::new(page::INTERNAL);
        let mut first = Vec::new();
        for (key, child) in entries {
            let inline = key.len() <= self.tree.limits.key_inline_max(false);
            if b.count() > 0 && b.bytes() + cell_len(key.len(), inline) + Addr::LEN > max {
                let done = std::mem::replace(&mut b, Builder::new(page::INTERNAL));
                out.push((std::mem::take(&mut first), self.write(&done.finish())?));
            }
            if b.count() == 0 {
                // A page's first key is its lower bound, which its parent keeps: stored empty.
                first = key;
                b.cell(Item::Inline(&[])).child(child).end_entry();
            } else {
                let item = self.place(&key, inline)?;
                b.cell(item).child(child).end_entry();
            }
        }
        if b.count() > 0 {
            out.push((first, self.write(&b.finish())?));
        }
        Ok(out)
    }
}

/// Packs sorted leaf entries into leaves of at most `leaf_page_max` bytes.
struct LeafWriter {
    b: Builder,
    first: Vec<u8>,
    out: Vec<Entry>,
}

impl LeafWriter {
    fn new() -> Self {
        LeafWriter { b: Builder::new(page::LEAF), first: Vec::new(), out: Vec::new() }
    }

    /// Room for an entry of `need` bytes, starting a new leaf if this one is full.
    fn make_room(&mut self, batch: &mut Batch<'_>, key: &[u8], need: usize) -> Result<()> {
        if self.b.count() > 0 && self.b.bytes() + need > batch.tree.limits.leaf_page_max {
            self.flush(batch)?;
        }
        if self.b.count() == 0 {
            self.first = key.to_vec();
        }
        Ok(())
    }

    fn push(&mut self, batch: &mut Batch<'_>, key: &[u8], value: &[u8]) -> Result<()> {
        let limits = batch.tree.limits;
        let (ki, vi) = (key.len() <= limits.key_inline_max(true), value.len() <= limits.value_inline_max());
        self.make_room(batch, key, cell_len(key.len(), ki) + cell_len(value.len(), vi))?;
        let k = batch.place(key, ki)?;
        let v = batch.place(value, vi)?;
        self.b.cell(k).cell(v).end_entry();
        Ok(())
    }

    /// Entry `i` of an old page, copied with its overflow blocks kept.
    fn push_cells(&mut self, batch: &mut Batch<'_>, page: &Page, i: usize) -> Result<()> {
        let (k, v) = (page.key_cell(i), page.value_cell(i));
        let size = |c: Cell| match c {
            Cell::Inline { len, .. } => cell_len(len as usize, true),
            Cell::Overflow { .. } => cell_len(0, false),
        };
        self.make_room(batch, page.key(i), size(k) + size(v))?;
        for cell in [k, v] {
            let item = match cell {
                Cell::Inline { .. } => Item::Inline(page.inline(cell).unwrap_or_default()),
                Cell::Overflow { addr, len } => Item::Overflow(addr, len),
            };
            self.b.cell(item);
        }
        self.b.end_entry();
        Ok(())
    }

    fn flush(&mut self, batch: &mut Batch<'_>) -> Result<()> {
        let done = std::mem::replace(&mut self.b, Builder::new(page::LEAF));
        let addr = batch.write(&done.finish())?;
        self.out.push((std::mem::take(&mut self.first), addr));
        Ok(())
    }

    fn finish(mut self, batch: &mut Batch<'_>) -> Result<Vec<Entry>> {
        if self.b.count() > 0 {
            self.flush(batch)?;
        }
        Ok(self.out)
    }
}
