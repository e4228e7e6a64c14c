//! Positions in the ordered index, and steps from them.
//!
//! A cursor remembers its entry, the leaf it found it in, where, and the leaf's version then.
//! A step stays in the leaf (or moves to the next one) while that version holds; once a writer
//! changed the leaf, the step searches again from the root for the entry after (or before) the
//! remembered key. Steps therefore never skip an entry that was in the index throughout, and
//! never return one twice; entries inserted or removed during a walk may or may not be seen.

use sdd::Guard;

use super::node::{Entry, Fence, Leaf, Target};
use super::Ordered;
use crate::store::key::{Bytes, Key, KeyOrder, Probe};

/// A position in an [`Ordered`] index: on an entry, or past either end.
pub struct Cursor<'g> {
    tree: &'g Ordered,
    guard: &'g Guard,
    /// The leaf of `at`, its version when `at` was read there, and `at`'s place in it.
    leaf: Option<(&'g Leaf, u64, usize)>,
    at: Option<&'g Entry>,
}

impl<'g> Cursor<'g> {
    /// Past the end.
    fn end(tree: &'g Ordered, guard: &'g Guard) -> Self {
        Cursor { tree, guard, leaf: None, at: None }
    }

    /// On entry `i` of `leaf`, read under version `v`.
    fn on(tree: &'g Ordered, guard: &'g Guard, leaf: &'g Leaf, v: u64, i: usize, at: &'g Entry) -> Self {
        Cursor { tree, guard, leaf: Some((leaf, v, i)), at: Some(at) }
    }

    /// The first entry `>= probe` (`> probe` with `strict`).
    pub(super) fn seek_ge<O: KeyOrder>(tree: &'g Ordered, probe: &Probe<'_, O>, strict: bool, guard: &'g Guard) -> Self {
        loop {
            let (leaf, v) = tree.leaf_for(probe, guard);
            let n = leaf.len();
            let Some((i, equal)) = leaf.lower_bound(probe, n, guard) else { continue };
            let at = i + usize::from(equal && strict);
            if at < n {
                match leaf.settled(v, at, guard) {
                    Some(entry) => return Cursor::on(tree, guard, leaf, v, at, entry),
                    None => continue,
                }
            }
            // Every entry further right is above the probe: the first one there.
            let next = leaf.next_leaf(guard);
            if leaf.latch.still(v) {
                if let Some(found) = Cursor::first_from(tree, guard, next) {
                    return found;
                }
            }
        }
    }

    /// The first entry.
    pub(super) fn first(tree: &'g Ordered, guard: &'g Guard) -> Self {
        loop {
            let leaf = tree.descend::<Bytes>(Target::First, guard);
            if let Some(found) = Cursor::first_from(tree, guard, Some(leaf)) {
                return found;
            }
        }
    }

    /// On the first entry of `next` or of the leaves after it (past the end when there is
    /// none); `None` if a leaf changed or left meanwhile.
    fn first_from(tree: &'g Ordered, guard: &'g Guard, mut next: Option<&'g Leaf>) -> Option<Self> {
        loop {
            let Some(leaf) = next else { return Some(Cursor::end(tree, guard)) };
            let v = leaf.latch.begin_read()?;
            if leaf.len() > 0 {
                let entry = leaf.settled(v, 0, guard)?;
                return Some(Cursor::on(tree, guard, leaf, v, 0, entry));
            }
            next = leaf.next_leaf(guard);
            if !leaf.latch.still(v) {
                return None;
            }
        }
    }

    /// The last entry `<= probe` (`< probe` with `strict`; the last entry for `None`).
    pub(super) fn seek_le<O: KeyOrder>(
        tree: &'g Ordered,
        order: O,
        probe: Option<&Probe<'_, O>>,
        strict: bool,
        guard: &'g Guard,
    ) -> Self {
        let mut probe = probe.copied();
        let mut strict = strict;
        'restart: loop {
            let target: Target<'_, O> = match probe {
                None => Target::Last,
                Some(p) if strict => Target::Before(p),
                Some(p) => Target::Key(p),
            };
            let mut leaf = tree.descend(target, guard);
            loop {
                let Some(v) = leaf.latch.begin_read() else { continue 'restart };
                // Right while the next leaf may hold keys below (or at) the probe.
                let beyond = |high: &Key| match &probe {
                    None => true,
                    Some(p) => {
                        let ord = p.cmp_prefixed(high.prefix(), high);
                        ord.is_gt() || (ord.is_eq() && !strict)
                    }
                };
                match leaf.past_high(v, guard, beyond) {
                    Fence::Inside => {}
                    Fence::Right(next) => {
                        leaf = next;
                        continue;
                    }
                    Fence::Changed => continue,
                }
                let n = leaf.len();
                // The number of entries at or below the probe (below with `strict`).
                let below = match &probe {
                    None => Some(n),
                    Some(p) => leaf.lower_bound(p, n, guard).map(|(i, equal)| i + usize::from(equal && !strict)),
                };
                let Some(below) = below else { continue };
                if below > 0 {
                    match leaf.settled(v, below - 1, guard) {
                        Some(entry) => return Cursor::on(tree, guard, leaf, v, below - 1, entry),
                        None => continue,
                    }
                }
                // Nothing here: the answer is below the leaf's range.
                let low = leaf.low(guard);
                if !leaf.latch.still(v) {
                    continue;
                }
                match low {
                    None => return Cursor::end(tree, guard),
                    Some(low) => {
                        probe = Some(Probe::with_order(low.as_bytes(), order));
                        strict = true;
                        continue 'restart;
                    }
                }
            }
        }
    }

    /// The entry the cursor is on.
    #[inline]
    pub fn get(&self) -> Option<&'g Entry> {
        self.at
    }

    /// Moves to the next entry and returns it (`None`: past the end).
    pub fn next(&mut self) -> Option<&'g Entry> {
        let at = self.at?;
        if let Some(moved) = self.next_in_leaves() {
            return moved;
        }
        *self = self.tree.seek_ge(&Probe::new(at.key.as_bytes()), true, self.guard);
        self.at
    }

    /// Moves onto entry `i` of `leaf` if the leaf is still as version `v` found it.
    #[inline]
    fn move_to(&mut self, leaf: &'g Leaf, v: u64, i: usize) -> Option<&'g Entry> {
        let entry = leaf.settled(v, i, self.guard)?;
        *self = Cursor::on(self.tree, self.guard, leaf, v, i, entry);
        Some(entry)
    }

    /// [`Cursor::next`] without a search: `None` if a leaf changed under the cursor.
    fn next_in_leaves(&mut self) -> Option<Option<&'g Entry>> {
        let (leaf, v, i) = self.leaf?;
        if i + 1 < leaf.len() {
            return self.move_to(leaf, v, i + 1).map(Some);
        }
        let next = leaf.next_leaf(self.guard);
        if !leaf.latch.still(v) {
            return None;
        }
        *self = Cursor::first_from(self.tree, self.guard, next)?;
        Some(self.at)
    }

    /// Moves to the previous entry and returns it (`None`: past the start).
    pub fn prev(&mut self) -> Option<&'g Entry> {
        let at = self.at?;
        if let Some((leaf, v, i)) = self.leaf {
            if i > 0 {
                if let Some(entry) = self.move_to(leaf, v, i - 1) {
                    return Some(entry);
                }
            }
        }
        *self = self.tree.seek_le(Some(&Probe::new(at.key.as_bytes())), true, self.guard);
        self.at
    }

    /// The entries from this one on, in key order (`forward`) or in reverse.
    pub fn steps(self, forward: bool) -> Steps<'g> {
        Steps { cursor: self, forward, started: false }
    }
}

/// Entries from a cursor's on, one way.
pub struct Steps<'g> {
    cursor: Cursor<'g>,
    forward: bool,
    started: bool,
}

impl<'g> Iterator for Steps<'g> {
    type Item = &'g Entry;

    #[inline]
    fn next(&mut self) -> Option<&'g Entry> {
        if !std::mem::replace(&mut self.started, true) {
            self.cursor.get()
        } else if self.forward {
            self.cursor.next()
        } else {
            self.cursor.prev()
        }
    }
}
