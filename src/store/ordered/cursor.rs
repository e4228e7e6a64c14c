//! Positions in the ordered index, and steps from them.
//!
//! A cursor remembers its entry, the leaf it found it in, where, and the leaf's version then.
//! A step stays in the leaf (or moves to the next one) while that version holds; once a writer
//! changed the leaf, the step searches again from the root for the entry after (or before) the
//! remembered key. Steps therefore never skip an entry that was in the index throughout, and
//! never return one twice; entries inserted or removed during a walk may or may not be seen.

use sdd::Guard;

use super::node::{Entry, Leaf, Target};
use super::Ordered;
use crate::store::key::Probe;

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
    pub(super) fn seek_ge(tree: &'g Ordered, probe: &Probe<'_>, strict: bool, guard: &'g Guard) -> Self {
        'restart: loop {
            let mut leaf = tree.descend(Target::Key(*probe), guard);
            // Set once the walk left the probe's leaf: every entry further right is above it.
            let mut past = false;
            loop {
                let Some(v) = leaf.latch.begin_read() else { continue 'restart };
                if !past {
                    if let Some(high) = leaf.high(guard) {
                        if probe.cmp_prefixed(high.prefix(), high).is_ge() {
                            let next = leaf.next_leaf(guard);
                            if leaf.latch.still(v) {
                                leaf = next.expect("a leaf with a high fence has a next leaf");
                            }
                            continue;
                        }
                    }
                }
                let n = leaf.len();
                let at = if past {
                    Some(0)
                } else {
                    leaf.lower_bound(probe, n, guard).map(|(i, equal)| i + usize::from(equal && strict))
                };
                let Some(at) = at else { continue };
                if at < n {
                    let entry = leaf.entry(at, guard);
                    if let (true, Some(entry)) = (leaf.latch.still(v), entry) {
                        return Cursor::on(tree, guard, leaf, v, at, entry);
                    }
                    continue;
                }
                let next = leaf.next_leaf(guard);
                if !leaf.latch.still(v) {
                    continue;
                }
                match next {
                    None => return Cursor::end(tree, guard),
                    Some(next) => {
                        leaf = next;
                        past = true;
                    }
                }
            }
        }
    }

    /// The last entry `<= probe` (`< probe` with `strict`; the last entry for `None`).
    pub(super) fn seek_le(tree: &'g Ordered, probe: Option<&Probe<'_>>, strict: bool, guard: &'g Guard) -> Self {
        let mut probe = probe.copied();
        let mut strict = strict;
        'restart: loop {
            let target = match probe {
                None => Target::Last,
                Some(p) if strict => Target::Before(p),
                Some(p) => Target::Key(p),
            };
            let mut leaf = tree.descend(target, guard);
            loop {
                let Some(v) = leaf.latch.begin_read() else { continue 'restart };
                // Right while the next leaf may hold keys below (or at) the probe.
                if let Some(high) = leaf.high(guard) {
                    let right = match &probe {
                        None => true,
                        Some(p) => {
                            let ord = p.cmp_prefixed(high.prefix(), high);
                            ord.is_gt() || (ord.is_eq() && !strict)
                        }
                    };
                    if right {
                        let next = leaf.next_leaf(guard);
                        if leaf.latch.still(v) {
                            leaf = next.expect("a leaf with a high fence has a next leaf");
                        }
                        continue;
                    }
                }
                let n = leaf.len();
                // The number of entries at or below the probe (below with `strict`).
                let below = match &probe {
                    None => Some(n),
                    Some(p) => leaf.lower_bound(p, n, guard).map(|(i, equal)| i + usize::from(equal && !strict)),
                };
                let Some(below) = below else { continue };
                if below > 0 {
                    let entry = leaf.entry(below - 1, guard);
                    if let (true, Some(entry)) = (leaf.latch.still(v), entry) {
                        return Cursor::on(tree, guard, leaf, v, below - 1, entry);
                    }
                    continue;
                }
                // Nothing here: the answer is below the leaf's range.
                let low = leaf.low(guard);
                if !leaf.latch.still(v) {
                    continue;
                }
                match low {
                    None => return Cursor::end(tree, guard),
                    Some(low) => {
                        probe = Some(Probe::new(low.as_bytes()));
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
        *self = Cursor::seek_ge(self.tree, &Probe::new(at.key.as_bytes()), true, self.guard);
        self.at
    }

    /// [`Cursor::next`] without a search: `None` if a leaf changed under the cursor.
    fn next_in_leaves(&mut self) -> Option<Option<&'g Entry>> {
        let (leaf, v, i) = self.leaf?;
        if i + 1 < leaf.len() {
            let entry = leaf.entry(i + 1, self.guard);
            return match (leaf.latch.still(v), entry) {
                (true, Some(entry)) => {
                    *self = Cursor::on(self.tree, self.guard, leaf, v, i + 1, entry);
                    Some(Some(entry))
                }
                _ => None,
            };
        }
        let mut next = leaf.next_leaf(self.guard);
        if !leaf.latch.still(v) {
            return None;
        }
        loop {
            let Some(leaf) = next else {
                *self = Cursor::end(self.tree, self.guard);
                return Some(None);
            };
            let v = leaf.latch.begin_read()?;
            if leaf.len() > 0 {
                let entry = leaf.entry(0, self.guard);
                return match (leaf.latch.still(v), entry) {
                    (true, Some(entry)) => {
                        *self = Cursor::on(self.tree, self.guard, leaf, v, 0, entry);
                        Some(Some(entry))
                    }
                    _ => None,
                };
            }
            next = leaf.next_leaf(self.guard);
            if !leaf.latch.still(v) {
                return None;
            }
        }
    }

    /// Moves to the previous entry and returns it (`None`: past the start).
    pub fn prev(&mut self) -> Option<&'g Entry> {
        let at = self.at?;
        if let Some((leaf, v, i)) = self.leaf {
            if i > 0 {
                let entry = leaf.entry(i - 1, self.guard);
                if let (true, Some(entry)) = (leaf.latch.still(v), entry) {
                    *self = Cursor::on(self.tree, self.guard, leaf, v, i - 1, entry);
                    return Some(entry);
                }
            }
        }
        *self = Cursor::seek_le(self.tree, Some(&Probe::new(at.key.as_bytes())), true, self.guard);
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
