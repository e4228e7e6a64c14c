//! The nodes of the ordered index: leaves changed in place under their latch, and inner nodes
//! that never change once published (a change builds a new one).

use std::array;
use std::cmp::Ordering;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU64, AtomicUsize};

use sdd::{AtomicRaw, Guard, Owned, RawPtr, Shared};

use super::latch::Latch;
use crate::store::key::{Key, Probe};
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

/// A node of the tree.
pub(super) enum Node {
    Leaf(Leaf),
    Inner(Inner),
}

/// Where a descent goes.
#[derive(Clone, Copy)]
pub(super) enum Target<'a> {
    /// The leaf whose range holds the key.
    Key(Probe<'a>),
    /// The leaf whose range holds the keys just below the key (predecessor searches).
    Before(Probe<'a>),
    /// The first leaf.
    First,
    /// The last leaf.
    Last,
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

/// A leaf: up to [`LEAF_CAP`] entries in key order, each with its key's prefix beside it (a
/// search compares prefixes in the leaf and loads an entry only on a tie), the next leaf, and
/// the fence keys of its range `[low, high)` (null: unbounded).
///
/// Every field is an atomic, so readers may read a leaf while its writer changes it; the latch
/// tells them whether what they read is consistent.
pub(super) struct Leaf {
    pub(super) latch: Latch,
    pub(super) count: AtomicUsize,
    pub(super) prefixes: [AtomicU64; LEAF_CAP],
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
            prefixes: array::from_fn(|_| AtomicU64::new(0)),
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

    /// Orders `probe` against entry `i`.
    #[inline(always)]
    fn cmp_at(&self, probe: &Probe<'_>, i: usize, guard: &Guard) -> Option<Ordering> {
        let prefix = self.prefixes[i].load(Relaxed);
        match probe.prefix().cmp(&prefix) {
            Ordering::Equal => Some(probe.cmp_prefixed(prefix, &self.entry(i, guard)?.key)),
            unequal => Some(unequal),
        }
    }

    /// The first of the `n` entries not below `probe`, and whether it equals `probe`. `None`
    /// if an entry was missing (a reader met a writer; the latch check fails).
    #[inline]
    pub(super) fn lower_bound(&self, probe: &Probe<'_>, n: usize, guard: &Guard) -> Option<(usize, bool)> {
        // Appends: past the last entry in one comparison.
        if n == 0 {
            return Some((0, false));
        }
        match self.cmp_at(probe, n - 1, guard)? {
            Ordering::Greater => return Some((n, false)),
            Ordering::Equal => return Some((n - 1, true)),
            Ordering::Less => {}
        }
        let (mut lo, mut hi) = (0, n - 1);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.cmp_at(probe, mid, guard)? {
                Ordering::Greater => lo = mid + 1,
                Ordering::Equal => return Some((mid, true)),
                Ordering::Less => hi = mid,
            }
        }
        Some((lo, false))
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
            self.prefixes[i + 1].store(self.prefixes[i].load(Relaxed), Relaxed);
            self.entries[i + 1].store(self.entries[i].load(Relaxed, guard), Release);
        }
    }

    /// Moves entries `from + 1..n` one place left over `from`, clearing the last (the caller
    /// holds the latch).
    pub(super) fn shift_left(&self, from: usize, n: usize, guard: &Guard) {
        for i in from + 1..n {
            self.prefixes[i - 1].store(self.prefixes[i].load(Relaxed), Relaxed);
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
/// in place when the child is rebuilt.
pub(super) struct Inner {
    pub(super) prefixes: Box<[u64]>,
    pub(super) keys: Box<[Key]>,
    pub(super) children: Box<[AtomicRaw<Node>]>,
}

impl Inner {
    /// A node of `keys` and `children` (one more child than keys).
    pub(super) fn new(keys: Vec<Key>, children: &[RawPtr<'_, Node>]) -> Self {
        debug_assert_eq!(keys.len() + 1, children.len());
        Inner {
            prefixes: keys.iter().map(Key::prefix).collect(),
            keys: keys.into_boxed_slice(),
            children: children.iter().map(|&c| AtomicRaw::new(c)).collect(),
        }
    }

    /// The child a descent to `target` takes.
    #[inline]
    pub(super) fn route(&self, target: Target<'_>) -> usize {
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
    fn count_below(&self, probe: &Probe<'_>, bar: Ordering) -> usize {
        let (mut lo, mut hi) = (0, self.keys.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let prefix = self.prefixes[mid];
            let ord = match probe.prefix().cmp(&prefix) {
                Ordering::Equal => probe.cmp_prefixed(prefix, &self.keys[mid]),
                unequal => unequal,
            };
            if ord > bar {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
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
