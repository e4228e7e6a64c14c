//! The nodes of the ordered index: leaves changed in place under their latch, and inner nodes
//! that never change once published (a change builds a new one).

use std::array;
use std::cmp::Ordering;
use std::hint::select_unpredictable;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU64, AtomicUsize};

use sdd::{AtomicRaw, Guard, Owned, RawPtr, Shared};

use super::latch::Latch;
use crate::store::key::{cmp_after_prefix, prefix_of, Bytes, Key, KeyOrder, Probe};
use crate::store::version::Slot;

/// Entries a leaf holds.
pub(super) const LEAF_CAP: usize = 64;
/// Children an inner node holds.
pub(super) const INNER_CAP: usize = 64;

/// One key of the index and its slot: allocated once, never changed, freed through the epoch
/// collector once it has left its leaf (readers hold `&Entry` for their guard's life).
pub struct Entry {
    /// The key.
    pub key: Key,
    /// Its slot.
    pub slot: Shared<Slot>,
}

/// Where a reader's key lies against a leaf's high fence ([`Leaf::past_high`]).
pub(super) enum Fence<'g> {
    /// Below it: the key belongs to this leaf.
    Inside,
    /// At or past it: the key belongs further right.
    Right(&'g Leaf),
    /// The leaf changed while it was read.
    Changed,
}

/// A node of the tree.
pub(super) enum Node {
    Leaf(Leaf),
    Inner(Inner),
}

/// Where a descent goes.
#[derive(Clone, Copy)]
pub(super) enum Target<'a, O: KeyOrder = Bytes> {
    /// The leaf whose range holds the key.
    Key(Probe<'a, O>),
    /// The leaf whose range holds the keys just below the key (predecessor searches).
    Before(Probe<'a, O>),
    /// The first leaf.
    First,
    /// The last leaf.
    Last,
}

/// A probe as a node compares it: a node's keys share their first `skip` bytes, and the 8
/// bytes after those, as a big-endian integer (the *head*, zero padded), decide almost every
/// comparison inside the node without loading a key.
#[derive(Clone, Copy)]
pub(super) struct Sought<'a> {
    bytes: &'a [u8],
    head: u64,
}

/// The bytes a node's keys share: how many, and the first 8 of them as an integer (zero
/// padded, like a [`Key`]'s prefix).
#[derive(Clone, Copy, Default)]
pub(super) struct Common {
    pub(super) skip: usize,
    pub(super) head: u64,
}

impl Common {
    /// What the keys sharing `bytes` share.
    fn of(bytes: &[u8]) -> Self {
        Common { skip: bytes.len(), head: prefix_of(bytes) }
    }
}

impl<'a> Sought<'a> {
    /// `probe` against a node whose keys share `common`: `Err` with the order of the probe
    /// against every key of the node when the shared bytes decide it. `bytes` loads the shared
    /// bytes, needed only past the 8th (`None`: they changed meanwhile).
    #[inline(always)]
    pub(super) fn new<'c, O: KeyOrder>(
        probe: &Probe<'a, O>,
        common: Common,
        bytes: impl FnOnce() -> Option<&'c [u8]>,
    ) -> Option<Result<Self, Ordering>> {
        let probed = probe.bytes();
        if common.skip == 0 {
            return Some(Ok(Sought { bytes: probed, head: probe.prefix() }));
        }
        // The first (up to) 8 shared bytes in one comparison: a probe shorter than them compares
        // its zero padding, which can only tie where it is a prefix of them (then it is below).
        let mask = u64::MAX << (64 - 8 * common.skip.min(8));
        match (probe.prefix() & mask).cmp(&common.head) {
            Ordering::Equal => {}
            unequal => return Some(Err(unequal)),
        }
        if common.skip > 8 {
            let shared = bytes()?.get(8..common.skip)?;
            let n = probed.len().min(common.skip);
            match probed.get(8..n).unwrap_or_default().cmp(&shared[..n.saturating_sub(8)]) {
                Ordering::Equal => {}
                unequal => return Some(Err(unequal)),
            }
        }
        if probed.len() < common.skip {
            return Some(Err(Ordering::Less));
        }
        let rest = &probed[common.skip..];
        Some(Ok(Sought { bytes: rest, head: prefix_of(rest) }))
    }

    /// Orders the probe against a key of the node with head `head` (`key` loads the key).
    #[inline(always)]
    fn cmp<'k>(&self, head: u64, skip: usize, key: impl FnOnce() -> Option<&'k Key>) -> Option<Ordering> {
        match self.head.cmp(&head) {
            Ordering::Equal => Some(cmp_after_prefix(self.bytes, key()?.as_bytes().get(skip..)?)),
            unequal => Some(unequal),
        }
    }
}

/// The head of `key` in a node whose keys share `skip` bytes.
#[inline]
pub(super) fn head_of(key: &[u8], skip: usize) -> u64 {
    prefix_of(key.get(skip..).unwrap_or_default())
}

/// The length of the longest common prefix of `a` and `b`.
fn common_len(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// How many of the `n` ascending heads `head_at` gives are below `head`: a halving whose step
/// is a conditional move, not a branch (a search's heads are random, so a branch would
/// mispredict at every other step).
#[inline(always)]
fn heads_below(n: usize, head: u64, head_at: impl Fn(usize) -> u64) -> usize {
    if n == 0 {
        return 0;
    }
    let (mut base, mut size) = (0, n);
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        base = select_unpredictable(head_at(mid) < head, mid, base);
        size -= half;
    }
    base + usize::from(head_at(base) < head)
}

/// What a stored pointer refers to, for the guard's life.
#[inline(always)]
pub(super) fn deref<'g, T>(raw: RawPtr<'g, T>) -> Option<&'g T> {
    // SAFETY: every pointer the tree stores (nodes, entries, fence keys) comes from
    // `Owned::into_raw`, and its allocation is dropped only through the epoch collector after
    // it was unlinked from every place a reader can load it from; `raw` was loaded under a
    // guard that lives for 'g, so the allocation outlives 'g.
    unsafe { raw.into_ptr() }.as_ref()
}

/// Allocates `value` for the tree and gives up its ownership to a stored pointer.
#[inline]
pub(super) fn publish<'g, T: 'static>(value: T) -> RawPtr<'g, T> {
    Owned::new(value).into_raw()
}

/// Hands an unlinked pointer's allocation to the epoch collector.
///
/// # Safety
/// `raw` came from [`publish`] (or `Owned::into_raw`), is no longer stored anywhere a reader
/// can load it from, and is released only once.
#[inline]
pub(super) unsafe fn release<T: 'static>(raw: RawPtr<'_, T>) {
    // SAFETY: the caller's contract.
    drop(unsafe { Owned::from_raw(raw) });
}

/// A leaf: up to [`LEAF_CAP`] entries in key order, each with its key's head beside it (a
/// search compares heads in the leaf and loads an entry only on a tie), the next leaf, and
/// the fence keys of its range `[low, high)` (null: unbounded). Every key in the range shares
/// the fences' common prefix (`skip` bytes, 0 without both fences): heads start after it.
/// A collated tree keeps them too but never reads them: its comparisons are the collator's.
///
/// Every field is an atomic, so readers may read a leaf while its writer changes it; the latch
/// tells them whether what they read is consistent.
pub(super) struct Leaf {
    pub(super) latch: Latch,
    pub(super) count: AtomicUsize,
    pub(super) skip: AtomicUsize,
    /// The first 8 of the `skip` shared bytes ([`Common::head`]).
    pub(super) common_head: AtomicU64,
    pub(super) heads: [AtomicU64; LEAF_CAP],
    pub(super) entries: [AtomicRaw<Entry>; LEAF_CAP],
    pub(super) next: AtomicRaw<Node>,
    pub(super) low: AtomicRaw<Key>,
    pub(super) high: AtomicRaw<Key>,
}

impl Leaf {
    pub(super) fn new() -> Self {
        Leaf {
            latch: Latch::new(),
            count: AtomicUsize::new(0),
            skip: AtomicUsize::new(0),
            common_head: AtomicU64::new(0),
            heads: array::from_fn(|_| AtomicU64::new(0)),
            entries: array::from_fn(|_| AtomicRaw::null()),
            next: AtomicRaw::null(),
            low: AtomicRaw::null(),
            high: AtomicRaw::null(),
        }
    }

    /// The entry count, bounded by the capacity (an optimistic reader may see a count that is
    /// being changed).
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.count.load(Relaxed).min(LEAF_CAP)
    }

    /// The entry at `i` (`None`: a slot being changed; the reader's check of the latch fails).
    #[inline(always)]
    pub(super) fn entry<'g>(&self, i: usize, guard: &'g Guard) -> Option<&'g Entry> {
        deref(self.entries[i].load(Acquire, guard))
    }

    /// `probe` as this leaf compares it (`Err`: its order against every key of the range), with
    /// the leaf's `skip`. `None` if the fences changed meanwhile (the latch check fails).
    #[inline(always)]
    pub(super) fn sought<'a, O: KeyOrder>(&self, probe: &Probe<'a, O>, guard: &Guard) -> Option<(Result<Sought<'a>, Ordering>, usize)> {
        let common = Common { skip: self.skip.load(Relaxed), head: self.common_head.load(Relaxed) };
        let sought = Sought::new(probe, common, || self.low(guard).map(Key::as_bytes))?;
        Some((sought, common.skip))
    }

    /// Orders the sought key against entry `i`.
    #[inline(always)]
    fn cmp_at(&self, sought: &Sought<'_>, skip: usize, i: usize, guard: &Guard) -> Option<Ordering> {
        sought.cmp(self.heads[i].load(Relaxed), skip, || self.entry(i, guard).map(|e| &e.key))
    }

    /// Orders `probe` against entry `i`.
    #[inline]
    pub(super) fn cmp_entry<O: KeyOrder>(&self, probe: &Probe<'_, O>, i: usize, guard: &Guard) -> Option<Ordering> {
        if O::COLLATED {
            return Some(probe.order().cmp_bytes(probe.bytes(), self.entry(i, guard)?.key.as_bytes()));
        }
        match self.sought(probe, guard)? {
            (Ok(sought), skip) => self.cmp_at(&sought, skip, i, guard),
            (Err(order), _) => Some(order),
        }
    }

    /// Stores entry `i`'s head (the caller holds the latch).
    #[inline]
    pub(super) fn set_head(&self, i: usize, key: &[u8]) {
        self.heads[i].store(head_of(key, self.skip.load(Relaxed)), Relaxed);
    }

    /// Takes the common prefix of the fences as the leaf's `skip` and recomputes the heads of
    /// its entries (the caller holds the latch; the fences just changed).
    pub(super) fn refit(&self, guard: &Guard) {
        let common = match (self.low(guard), self.high(guard)) {
            (Some(low), Some(high)) => Common::of(&low.as_bytes()[..common_len(low.as_bytes(), high.as_bytes())]),
            _ => Common::default(),
        };
        let skip = common.skip;
        self.skip.store(skip, Relaxed);
        self.common_head.store(common.head, Relaxed);
        for i in 0..self.len() {
            let key = &self.entry(i, guard).expect("a locked leaf is complete").key;
            self.heads[i].store(head_of(key.as_bytes(), skip), Relaxed);
        }
    }

    /// The first of the `n` entries not below `probe`, and whether it equals `probe`. `None`
    /// if an entry was missing (a reader met a writer; the latch check fails).
    #[inline]
    pub(super) fn lower_bound<O: KeyOrder>(&self, probe: &Probe<'_, O>, n: usize, guard: &Guard) -> Option<(usize, bool)> {
        if n == 0 {
            return Some((0, false));
        }
        if O::COLLATED {
            return self.lower_bound_collated(probe, n, guard);
        }
        let (sought, skip) = match self.sought(probe, guard)? {
            (Ok(sought), skip) => (sought, skip),
            (Err(Ordering::Less), _) => return Some((0, false)),
            (Err(_), _) => return Some((n, false)),
        };
        // Appends: past the last entry in one comparison.
        match self.cmp_at(&sought, skip, n - 1, guard)? {
            Ordering::Greater => return Some((n, false)),
            Ordering::Equal => return Some((n - 1, true)),
            Ordering::Less => {}
        }
        // The heads below the sought one, then the entries whose head ties it, by their keys.
        let mut at = heads_below(n - 1, sought.head, |i| self.heads[i].load(Relaxed));
        while at < n - 1 && self.heads[at].load(Relaxed) == sought.head {
            match self.cmp_at(&sought, skip, at, guard)? {
                Ordering::Greater => at += 1,
                Ordering::Equal => return Some((at, true)),
                Ordering::Less => break,
            }
        }
        Some((at, false))
    }

    /// [`lower_bound`](Self::lower_bound) in a collated tree: a call per comparison.
    #[inline(never)]
    fn lower_bound_collated<O: KeyOrder>(&self, probe: &Probe<'_, O>, n: usize, guard: &Guard) -> Option<(usize, bool)> {
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match probe.order().cmp_bytes(probe.bytes(), self.entry(mid, guard)?.key.as_bytes()) {
                Ordering::Greater => lo = mid + 1,
                Ordering::Equal => return Some((mid, true)),
                Ordering::Less => hi = mid,
            }
        }
        Some((lo, false))
    }

    /// Whether a reader under version `v` whose key `beyond` says is past the high fence must
    /// move right: to the next leaf, or to read this one again if it changed.
    #[inline(always)]
    pub(super) fn past_high<'g>(&self, v: u64, guard: &'g Guard, beyond: impl FnOnce(&Key) -> bool) -> Fence<'g> {
        match self.high(guard) {
            Some(high) if beyond(high) => {
                let next = self.next_leaf(guard);
                match self.latch.still(v) {
                    true => Fence::Right(next.expect("a leaf with a high fence has a next leaf")),
                    false => Fence::Changed,
                }
            }
            _ => Fence::Inside,
        }
    }

    /// Entry `i` if the leaf is still as version `v` found it.
    #[inline(always)]
    pub(super) fn settled<'g>(&self, v: u64, i: usize, guard: &'g Guard) -> Option<&'g Entry> {
        let entry = self.entry(i, guard);
        if self.latch.still(v) {
            entry
        } else {
            None
        }
    }

    /// The high fence, if any.
    #[inline(always)]
    pub(super) fn high<'g>(&self, guard: &'g Guard) -> Option<&'g Key> {
        deref(self.high.load(Acquire, guard))
    }

    /// The low fence, if any.
    #[inline(always)]
    pub(super) fn low<'g>(&self, guard: &'g Guard) -> Option<&'g Key> {
        deref(self.low.load(Acquire, guard))
    }

    /// The next leaf, if any.
    #[inline(always)]
    pub(super) fn next_leaf<'g>(&self, guard: &'g Guard) -> Option<&'g Leaf> {
        deref(self.next.load(Acquire, guard)).map(Node::leaf)
    }

    /// Moves entries `from..n` one place right (the caller holds the latch and `n < LEAF_CAP`).
    pub(super) fn shift_right(&self, from: usize, n: usize, guard: &Guard) {
        for i in (from..n).rev() {
            self.heads[i + 1].store(self.heads[i].load(Relaxed), Relaxed);
            self.entries[i + 1].store(self.entries[i].load(Relaxed, guard), Release);
        }
    }

    /// Moves entries `from + 1..n` one place left over `from`, clearing the last (the caller
    /// holds the latch).
    pub(super) fn shift_left(&self, from: usize, n: usize, guard: &Guard) {
        for i in from + 1..n {
            self.heads[i - 1].store(self.heads[i].load(Relaxed), Relaxed);
            self.entries[i - 1].store(self.entries[i].load(Relaxed, guard), Release);
        }
        self.entries[n - 1].store(RawPtr::null(), Relaxed);
    }
}

impl Drop for Leaf {
    fn drop(&mut self) {
        let guard = Guard::new();
        for entry in &self.entries {
            let raw = entry.load(Relaxed, &guard);
            if !raw.is_null() {
                // SAFETY: a leaf being dropped is unreachable; the entries it still holds are
                // its own (moving an entry out clears its cell), each released once here.
                unsafe { release(raw) };
            }
        }
        for fence in [&self.low, &self.high] {
            let raw = fence.load(Relaxed, &guard);
            if !raw.is_null() {
                // SAFETY: as for the entries: a fence moved to another leaf was cleared here.
                unsafe { release(raw) };
            }
        }
    }
}

/// An inner node: `keys[i]` separates `children[i]` (keys below it) from `children[i + 1]`.
/// Keys and their count never change once the node is published; a child pointer is replaced
/// in place when the child is rebuilt. The keys share their first `skip` bytes; `heads` are
/// the 8 bytes after those.
pub(super) struct Inner {
    common: Common,
    heads: Box<[u64]>,
    pub(super) keys: Box<[Key]>,
    pub(super) children: Box<[AtomicRaw<Node>]>,
}

impl Inner {
    /// A node of `keys` and `children` (one more child than keys).
    pub(super) fn new(keys: Vec<Key>, children: &[RawPtr<'_, Node>]) -> Self {
        debug_assert_eq!(keys.len() + 1, children.len());
        let common = match (keys.first(), keys.last()) {
            (Some(first), Some(last)) if keys.len() > 1 => {
                Common::of(&first.as_bytes()[..common_len(first.as_bytes(), last.as_bytes())])
            }
            _ => Common::default(),
        };
        let skip = common.skip;
        Inner {
            common,
            heads: keys.iter().map(|k| head_of(k.as_bytes(), skip)).collect(),
            keys: keys.into_boxed_slice(),
            children: children.iter().map(|&c| AtomicRaw::new(c)).collect(),
        }
    }

    /// The child a descent to `target` takes.
    #[inline]
    pub(super) fn route<O: KeyOrder>(&self, target: Target<'_, O>) -> usize {
        match target {
            Target::First => 0,
            Target::Last => self.keys.len(),
            // Separators at or below the key, or below it.
            Target::Key(probe) => self.count_below(&probe, Ordering::Less),
            Target::Before(probe) => self.count_below(&probe, Ordering::Equal),
        }
    }

    /// The number of separators `s` with `probe` compared to `s` above `bar` (`Less`: `s <=
    /// probe`; `Equal`: `s < probe`).
    #[inline]
    fn count_below<O: KeyOrder>(&self, probe: &Probe<'_, O>, bar: Ordering) -> usize {
        if O::COLLATED {
            return self.count_below_collated(probe, bar);
        }
        let sought = match Sought::new(probe, self.common, || Some(self.keys[0].as_bytes())) {
            Some(Ok(sought)) => sought,
            Some(Err(Ordering::Less)) => return 0,
            _ => return self.keys.len(),
        };
        // The heads below the sought one, then the separators whose head ties it, by their keys.
        let n = self.keys.len();
        let mut at = heads_below(n, sought.head, |i| self.heads[i]);
        while at < n
            && self.heads[at] == sought.head
            && cmp_after_prefix(sought.bytes, &self.keys[at].as_bytes()[self.common.skip..]) > bar
        {
            at += 1;
        }
        at
    }

    /// [`count_below`](Self::count_below) in a collated tree: a call per comparison.
    #[inline(never)]
    fn count_below_collated<O: KeyOrder>(&self, probe: &Probe<'_, O>, bar: Ordering) -> usize {
        self.keys.partition_point(|k| probe.order().cmp_bytes(probe.bytes(), k.as_bytes()) > bar)
    }

    /// The child at `i`.
    #[inline(always)]
    pub(super) fn child<'g>(&self, i: usize, guard: &'g Guard) -> RawPtr<'g, Node> {
        self.children[i].load(Acquire, guard)
    }

    /// Every child pointer.
    pub(super) fn child_ptrs<'g>(&self, guard: &'g Guard) -> Vec<RawPtr<'g, Node>> {
        (0..self.children.len()).map(|i| self.child(i, guard)).collect()
    }
}

impl Node {
    /// The leaf this node is (descents and leaf links only ever lead to leaves there).
    #[inline(always)]
    pub(super) fn leaf(&self) -> &Leaf {
        match self {
            Node::Leaf(leaf) => leaf,
            Node::Inner(_) => unreachable!("a leaf link leads to an inner node"),
        }
    }
}
