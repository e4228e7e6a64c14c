//! The ordered index of one table's keys: a B+tree whose readers take no lock and write
//! nothing.
//!
//! - **Leaves** hold up to 64 entries in key order, with each key's first 8 bytes beside its
//!   entry pointer, and change in place under a version latch (`latch.rs`). Readers note the
//!   version, read, and check it again (optimistic reading: a reader that met a writer reads
//!   again); writers lock the one leaf they change. Each leaf knows the next leaf and the fence
//!   keys of its range `[low, high)`.
//! - **Inner nodes** never change once published, except that a child pointer is replaced when
//!   the child is rebuilt: a split or a removal builds a new parent and swaps it in. Descents
//!   therefore read them without any check.
//! - **Structure changes** (a leaf split, an emptied leaf leaving, a new or collapsed root) take
//!   the tree's structure mutex, once per about 32 inserts or 64 removals: never on a read,
//!   never on an insert or removal that fits its leaf. A reader or writer that reaches a leaf
//!   whose split has not reached the parent yet moves right along the leaves until the key is
//!   below the leaf's high fence (a B-link tree). A leaf that left the tree is marked obsolete;
//!   whoever meets it starts again from the root.
//! - **Memory**: entries, leaves, inner nodes and fence keys are freed through the epoch
//!   collector (`sdd`, the one `scc` uses) once unlinked, so a reference a reader obtained
//!   stays valid for its guard's life, whatever writers do meanwhile.
//! - **Appends**: a key past the last entry of the rightmost leaf is placed with one comparison,
//!   and a full rightmost leaf splits by keeping its entries and starting an empty leaf, so a
//!   table loaded in key order has full leaves.

mod cursor;
mod latch;
mod node;
mod smo;
#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

use parking_lot::Mutex;
use sdd::{AtomicRaw, Guard, Owned, RawPtr};

pub use cursor::{Cursor, Steps};
pub use node::Entry;

#[cfg(loom)]
pub(crate) use latch::Latch;

use crate::store::collate::Collator;
use crate::store::key::{Bytes, Key, KeyOrder, Probe};
use node::{deref, publish, Fence, Leaf, Node, Target, LEAF_CAP};

/// Runs `$body` with `$o` the tree's order, [`Bytes`] or its collator: the body is compiled
/// once for each (the bytewise copy is the code of a tree without collators).
macro_rules! by_order {
    ($tree:expr, |$o:ident| $body:expr) => {
        match $tree.collate.as_deref() {
            None => {
                let $o = Bytes;
                $body
            }
            Some(c) => {
                let $o = c;
                $body
            }
        }
    };
}

/// The ordered index: key -> [`Entry`].
pub struct Ordered {
    /// The root node (a leaf while the tree has one leaf).
    root: AtomicRaw<Node>,
    /// The rightmost leaf, where appends go without a descent. Changed only under `smo`, and
    /// before the leaf it names leaves the tree, so it is never stale beyond a guard's life.
    last: AtomicRaw<Node>,
    /// Serializes structure changes (splits, removals of emptied leaves, root changes).
    smo: Mutex<()>,
    /// The collator of a collated table (`None`: bytewise order, compared through heads).
    collate: Option<Arc<Collator>>,
}

impl Default for Ordered {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Ordered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ordered").finish_non_exhaustive()
    }
}

impl Ordered {
    /// An empty index: one empty leaf.
    pub fn new() -> Self {
        Ordered::ordered_by(None)
    }

    /// An empty index ordered by `collate` (`None`: bytewise).
    pub fn ordered_by(collate: Option<Arc<Collator>>) -> Self {
        let root = publish(Node::Leaf(Leaf::new()));
        Ordered { root: AtomicRaw::new(root), last: AtomicRaw::new(root), smo: Mutex::new(()), collate }
    }

    /// Whether a collator orders the keys.
    #[inline(always)]
    fn collated(&self) -> bool {
        self.collate.is_some()
    }

    /// Orders `probe` against `key` in this tree's order.
    pub(crate) fn cmp(&self, probe: &Probe<'_>, key: &Key) -> std::cmp::Ordering {
        by_order!(self, |o| o.of(probe).cmp_prefixed(key.prefix(), key))
    }

    /// The leaf the inner nodes route `target` to (it may have split since: callers move
    /// right).
    #[inline]
    fn descend<'g, O: KeyOrder>(&self, target: Target<'_, O>, guard: &'g Guard) -> &'g Leaf {
        let mut node = deref(self.root.load(Acquire, guard)).expect("the tree has a root");
        loop {
            match node {
                Node::Leaf(leaf) => return leaf,
                Node::Inner(inner) => {
                    let child = inner.child(inner.route(target), guard);
                    node = deref(child).expect("inner nodes have no null child");
                }
            }
        }
    }

    /// The leaf whose range holds `probe`'s key, and the version to read it under.
    #[inline]
    fn leaf_for<'g, O: KeyOrder>(&self, probe: &Probe<'_, O>, guard: &'g Guard) -> (&'g Leaf, u64) {
        'restart: loop {
            let mut leaf = self.descend(Target::Key(*probe), guard);
            loop {
                let Some(v) = leaf.latch.begin_read() else { continue 'restart };
                match leaf.past_high(v, guard, |high| probe.cmp_prefixed(high.prefix(), high).is_ge()) {
                    Fence::Inside => return (leaf, v),
                    Fence::Right(next) => leaf = next,
                    Fence::Changed => {}
                }
            }
        }
    }

    /// The entry of `probe`'s key.
    #[inline]
    pub fn get<'g>(&self, probe: &Probe<'_>, guard: &'g Guard) -> Option<&'g Entry> {
        by_order!(self, |o| self.get_by(&o.of(probe), guard))
    }

    /// [`get`](Self::get) in the tree's order `O`.
    #[inline]
    fn get_by<'g, O: KeyOrder>(&self, probe: &Probe<'_, O>, guard: &'g Guard) -> Option<&'g Entry> {
        loop {
            let (leaf, v) = self.leaf_for(probe, guard);
            let n = leaf.len();
            let found = match leaf.lower_bound(probe, n, guard) {
                Some((i, true)) => leaf.entry(i, guard),
                _ => None,
            };
            if leaf.latch.still(v) {
                return found;
            }
        }
    }

    /// Locks the leaf whose range holds `probe`'s key.
    #[inline]
    fn lock_leaf<'g, O: KeyOrder>(&self, probe: &Probe<'_, O>, guard: &'g Guard) -> (&'g Leaf, latch::Locked<'g>) {
        'restart: loop {
            let mut leaf = self.descend(Target::Key(*probe), guard);
            loop {
                let Ok(locked) = leaf.latch.lock() else { continue 'restart };
                match leaf.high(guard) {
                    Some(high) if probe.cmp_prefixed(high.prefix(), high).is_ge() => {
                        let next = leaf.next_leaf(guard).expect("a leaf with a high fence has a next leaf");
                        drop(locked);
                        leaf = next;
                    }
                    _ => return (leaf, locked),
                }
            }
        }
    }

    /// Locks the rightmost leaf if `probe` is past its last key (an append, which then needs no
    /// descent), and returns its entry count.
    #[inline]
    fn lock_last<'g, O: KeyOrder>(&self, probe: &Probe<'_, O>, guard: &'g Guard) -> Option<(&'g Leaf, latch::Locked<'g>, usize)> {
        let leaf = deref(self.last.load(Acquire, guard))?.leaf();
        let locked = leaf.latch.lock().ok()?;
        if !leaf.high.load(Relaxed, guard).is_null() {
            return None;
        }
        let n = leaf.len();
        let past = match n.checked_sub(1) {
            Some(last) => leaf.cmp_entry(probe, last, guard)?.is_gt(),
            None => leaf.low(guard).map_or(true, |low| probe.cmp_prefixed(low.prefix(), low).is_ge()),
        };
        past.then_some((leaf, locked, n))
    }

    /// Inserts `entry` unless its key is there: returns the key's entry, and `entry` back if it
    /// was not inserted.
    pub fn insert<'g>(&self, entry: Owned<Entry>, guard: &'g Guard) -> (&'g Entry, Option<Owned<Entry>>) {
        by_order!(self, |o| self.insert_by(o, entry, guard))
    }

    /// [`insert`](Self::insert) in the tree's order `O`.
    #[inline]
    fn insert_by<'g, O: KeyOrder>(&self, order: O, entry: Owned<Entry>, guard: &'g Guard) -> (&'g Entry, Option<Owned<Entry>>) {
        // The entry's memory outlives the guard even if it is handed back and dropped (its
        // drop goes through the collector).
        let probe = Probe::with_order(entry.get_guarded_ref(guard).key.as_bytes(), order);
        let mut entry = Some(entry);
        loop {
            let (leaf, locked, n, (at, found)) = match self.lock_last(&probe, guard) {
                Some((leaf, locked, n)) => (leaf, locked, n, (n, false)),
                None => {
                    let (leaf, locked) = self.lock_leaf(&probe, guard);
                    let n = leaf.len();
                    (leaf, locked, n, leaf.lower_bound(&probe, n, guard).expect("a locked leaf is complete"))
                }
            };
            if found {
                let existing = leaf.entry(at, guard).expect("a locked leaf is complete");
                return (existing, entry);
            }
            if n < LEAF_CAP {
                leaf.shift_right(at, n, guard);
                let raw = entry.take().expect("inserted once").into_raw();
                leaf.set_head(at, probe.bytes());
                leaf.entries[at].store(raw, Release);
                leaf.count.store(n + 1, Relaxed);
                drop(locked);
                return (deref(raw).expect("just stored"), None);
            }
            drop(locked);
            self.split(leaf, &probe, guard);
        }
    }

    /// Removes the entry of `probe`'s key if `pred` approves of it; returns whether it did.
    pub fn remove_if(&self, probe: &Probe<'_>, pred: impl FnOnce(&Entry) -> bool) -> bool {
        by_order!(self, |o| self.remove_if_by(&o.of(probe), pred))
    }

    /// [`remove_if`](Self::remove_if) in the tree's order `O`.
    fn remove_if_by<O: KeyOrder>(&self, probe: &Probe<'_, O>, pred: impl FnOnce(&Entry) -> bool) -> bool {
        let guard = Guard::new();
        let (leaf, locked) = self.lock_leaf(probe, &guard);
        let n = leaf.len();
        let (at, found) = leaf.lower_bound(probe, n, &guard).expect("a locked leaf is complete");
        if !found || !pred(leaf.entry(at, &guard).expect("a locked leaf is complete")) {
            return false;
        }
        let raw = leaf.entries[at].load(Relaxed, &guard);
        leaf.shift_left(at, n, &guard);
        leaf.count.store(n - 1, Relaxed);
        drop(locked);
        // SAFETY: the entry came from `insert`'s `into_raw` and was just removed from its only
        // cell under the leaf's latch; readers that loaded it hold guards the collector waits
        // for.
        unsafe { node::release(raw) };
        if n == 1 {
            self.remove_leaf(probe.order(), leaf, &guard);
        }
        true
    }

    /// Removes those of `doomed` (entries found in this tree under `guard`, in key order, each
    /// once) that are still in it, taking each leaf's latch once for all of its doomed entries
    /// instead of one descent and one latch per key; returns how many it removed. Entries that
    /// left meanwhile (another remover took them, or a key went and came back as a new entry)
    /// are passed over.
    pub fn remove_entries(&self, doomed: &[&Entry], guard: &Guard) -> usize {
        by_order!(self, |o| self.remove_entries_by(o, doomed, guard))
    }

    /// [`remove_entries`](Self::remove_entries) in the tree's order `O`.
    fn remove_entries_by<O: KeyOrder>(&self, order: O, doomed: &[&Entry], guard: &Guard) -> usize {
        let mut removed = 0;
        let mut rest = doomed;
        let mut gone = [RawPtr::null(); LEAF_CAP];
        while let Some(first) = rest.first() {
            let (leaf, locked) = self.lock_leaf(&Probe::with_order(first.key.as_bytes(), order), guard);
            // This leaf's share: the doomed keys below its high fence (the first one is).
            let here = match leaf.high(guard) {
                Some(high) => rest.partition_point(|e| order.lt(&e.key, high)),
                None => rest.len(),
            };
            let (mine, later) = rest.split_at(here);
            rest = later;
            // Compacts the leaf in one pass: `w` entries kept so far, `d` the next doomed one.
            let n = leaf.len();
            let (mut w, mut d, mut g) = (0, 0, 0);
            for r in 0..n {
                let raw = leaf.entries[r].load(Relaxed, guard);
                let entry = deref(raw).expect("a locked leaf is complete");
                // Doomed entries ordered before this one are no longer here.
                while d < mine.len() && !std::ptr::eq(mine[d], entry) && order.lt(&mine[d].key, &entry.key) {
                    d += 1;
                }
                if d < mine.len() && std::ptr::eq(mine[d], entry) {
                    gone[g] = raw;
                    g += 1;
                    d += 1;
                    continue;
                }
                if w != r {
                    leaf.heads[w].store(leaf.heads[r].load(Relaxed), Relaxed);
                    leaf.entries[w].store(raw, Release);
                }
                w += 1;
            }
            for cell in &leaf.entries[w..n] {
                cell.store(RawPtr::null(), Relaxed);
            }
            leaf.count.store(w, Relaxed);
            drop(locked);
            for &raw in &gone[..g] {
                // SAFETY: each entry came from `insert`'s `into_raw` and was just taken out of
                // its only cell under the leaf's latch (once: the doomed list names each entry
                // once); readers that loaded it hold guards the collector waits for.
                unsafe { node::release(raw) };
            }
            removed += g;
            if g > 0 && w == 0 {
                self.remove_leaf(order, leaf, guard);
            }
        }
        removed
    }

    /// A cursor on the first entry `>= probe` (`> probe` with `strict`).
    pub fn seek_ge<'g>(&'g self, probe: &Probe<'_>, strict: bool, guard: &'g Guard) -> Cursor<'g> {
        by_order!(self, |o| Cursor::seek_ge(self, &o.of(probe), strict, guard))
    }

    /// A cursor on the last entry `<= probe` (`< probe` with `strict`; the last entry for
    /// `None`).
    pub fn seek_le<'g>(&'g self, probe: Option<&Probe<'_>>, strict: bool, guard: &'g Guard) -> Cursor<'g> {
        by_order!(self, |o| Cursor::seek_le(self, o, probe.map(|p| o.of(p)).as_ref(), strict, guard))
    }

    /// Every entry in key order.
    pub fn iter<'g>(&'g self, guard: &'g Guard) -> Steps<'g> {
        if self.collated() {
            // The empty key is not the least under every collator.
            return Cursor::first(self, guard).steps(true);
        }
        self.seek_ge(&Probe::new(&[]), false, guard).steps(true)
    }

    /// Every entry in reverse key order.
    pub fn iter_rev<'g>(&'g self, guard: &'g Guard) -> Steps<'g> {
        self.seek_le(None, false, guard).steps(false)
    }

    /// Entries, by a scan (tests and diagnostics).
    pub fn len(&self) -> usize {
        let guard = Guard::new();
        self.iter(&guard).count()
    }

    /// `true` if there is no entry.
    pub fn is_empty(&self) -> bool {
        let guard = Guard::new();
        self.iter(&guard).next().is_none()
    }
}

impl Drop for Ordered {
    fn drop(&mut self) {
        // Nothing else can reach the tree: free every node (leaves free their entries).
        let guard = Guard::new();
        let mut stack = vec![self.root.swap(RawPtr::null(), Relaxed, &guard)];
        while let Some(raw) = stack.pop() {
            if let Some(Node::Inner(inner)) = deref(raw) {
                stack.extend(inner.child_ptrs(&guard));
            }
            // SAFETY: the tree is being dropped (no reader can reach it) and each node is
            // linked from exactly one parent (or the root), so each is released once.
            unsafe { node::release(raw) };
        }
    }
}
