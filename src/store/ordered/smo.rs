//! Structure changes: splitting a full leaf, taking an emptied leaf out, and the inner nodes
//! above them. All of them run under the tree's structure mutex, so the inner nodes they read
//! are the current ones and every leaf has its parent's entry (readers may still be on older
//! nodes: the leaf links and fences keep those correct).

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

use sdd::{Guard, RawPtr};

use super::node::{deref, publish, release, Inner, Leaf, Node, Target, INNER_CAP, LEAF_CAP};
use super::Ordered;
use crate::store::key::{Key, KeyOrder, Probe};

/// One inner node on the way down, and the child taken.
struct Step<'g> {
    raw: RawPtr<'g, Node>,
    inner: &'g Inner,
    child: usize,
}

impl Ordered {
    /// The inner nodes from the root down to `leaf`, which `target` routes to (`None` if it
    /// does not: the leaf left the tree).
    fn path_to<'g, O: KeyOrder>(&self, leaf: &Leaf, target: Target<'_, O>, guard: &'g Guard) -> Option<Vec<Step<'g>>> {
        let mut path = Vec::new();
        let mut raw = self.root.load(Acquire, guard);
        loop {
            match deref(raw)? {
                Node::Leaf(found) => return std::ptr::eq(found, leaf).then_some(path),
                Node::Inner(inner) => {
                    let child = inner.route(target);
                    path.push(Step { raw, inner, child });
                    raw = inner.child(child, guard);
                }
            }
        }
    }

    /// Puts `new` where the last node of `path`'s child (the root for an empty path) was.
    fn replace<'g>(&self, path: &[Step<'g>], new: RawPtr<'g, Node>) {
        match path.last() {
            None => self.root.store(new, Release),
            Some(step) => step.inner.children[step.child].store(new, Release),
        }
    }

    /// Splits the full `leaf`, in which inserting `probe` found no room (unless another writer
    /// split it first).
    pub(super) fn split<'g, O: KeyOrder>(&self, leaf: &'g Leaf, probe: &Probe<'_, O>, guard: &'g Guard) {
        let _smo = self.smo.lock();
        let Ok(locked) = leaf.latch.lock() else { return };
        let n = leaf.len();
        if n < LEAF_CAP {
            return;
        }
        let first = leaf.entry(0, guard).expect("a locked leaf is complete");
        let Some(path) = self.path_to(leaf, Target::Key(Probe::with_order(first.key.as_bytes(), probe.order())), guard) else {
            return;
        };
        let last = &leaf.entry(n - 1, guard).expect("a locked leaf is complete").key;
        // An append past the rightmost leaf keeps this leaf full and starts an empty one.
        let append = leaf.high.load(Relaxed, guard).is_null() && probe.cmp_prefixed(last.prefix(), last).is_gt();
        let keep = if append { n } else { n / 2 };
        let sep = match append {
            true => Key::new(probe.bytes()),
            false => leaf.entry(keep, guard).expect("a locked leaf is complete").key.clone(),
        };
        let right = Leaf::new();
        for i in keep..n {
            right.entries[i - keep].store(leaf.entries[i].load(Relaxed, guard), Relaxed);
        }
        right.count.store(n - keep, Relaxed);
        right.next.store(leaf.next.load(Relaxed, guard), Relaxed);
        right.high.store(leaf.high.load(Relaxed, guard), Relaxed);
        right.low.store(publish(sep.clone()), Relaxed);
        // The left leaf keeps its heads: its range only narrowed, so its keys still share
        // what they shared.
        right.refit(guard);
        let rightmost = leaf.high.load(Relaxed, guard).is_null();
        let right = publish(Node::Leaf(right));
        if rightmost {
            self.last.store(right, Release);
        }
        leaf.high.store(publish(sep.clone()), Release);
        leaf.next.store(right, Release);
        for cell in &leaf.entries[keep..n] {
            cell.store(RawPtr::null(), Relaxed);
        }
        leaf.count.store(keep, Relaxed);
        drop(locked);
        let left = match path.last() {
            Some(step) => step.inner.child(step.child, guard),
            None => self.root.load(Relaxed, guard),
        };
        self.grow(path, left, sep, right, guard);
    }

    /// The node at the end of `path` (the root for an empty path) became `left`, `sep`,
    /// `right`: its parent gets a new node with both, split in turn if full.
    fn grow<'g>(
        &self,
        mut path: Vec<Step<'g>>,
        left: RawPtr<'g, Node>,
        sep: Key,
        right: RawPtr<'g, Node>,
        guard: &'g Guard,
    ) {
        let Some(step) = path.pop() else {
            self.root.store(publish(Node::Inner(Inner::new(vec![sep], &[left, right]))), Release);
            return;
        };
        let mut keys = step.inner.keys.to_vec();
        keys.insert(step.child, sep);
        let mut children = step.inner.child_ptrs(guard);
        children[step.child] = left;
        children.insert(step.child + 1, right);
        if children.len() <= INNER_CAP {
            self.replace(&path, publish(Node::Inner(Inner::new(keys, &children))));
        } else {
            let right_keys = keys.split_off(keys.len() / 2 + 1);
            let up = keys.pop().expect("a full node has a middle key");
            let right_children = children.split_off(keys.len() + 1);
            let left = publish(Node::Inner(Inner::new(keys, &children)));
            let right = publish(Node::Inner(Inner::new(right_keys, &right_children)));
            self.grow(path, left, up, right, guard);
        }
        // SAFETY: the node was just replaced in its parent (or as the root) under the structure
        // mutex; nothing else links it, and it is released once.
        unsafe { release(step.raw) };
    }

    /// Takes the emptied `leaf` out of the tree (unless it filled again meanwhile, or is the
    /// only leaf): its range joins a neighbour's, and the branch that held only it leaves its
    /// nearest ancestor with other children.
    pub(super) fn remove_leaf<'g, O: KeyOrder>(&self, order: O, leaf: &'g Leaf, guard: &'g Guard) {
        let _smo = self.smo.lock();
        let Ok(locked) = leaf.latch.lock() else { return };
        if leaf.len() > 0 {
            return;
        }
        let low = leaf.low(guard);
        let target = match low {
            Some(low) => Target::Key(Probe::with_order(low.as_bytes(), order)),
            None => Target::First,
        };
        let Some(path) = self.path_to(leaf, target, guard) else { return };
        let Some(keep) = path.iter().rposition(|step| step.inner.children.len() > 1) else {
            return;
        };
        let bottom = path.last().expect("a kept ancestor is on the path");
        let leaf_raw = bottom.inner.child(bottom.child, guard);
        let left = low.map(|low| self.leaf_before(order, low, guard));
        let old_fence = if path[keep].child > 0 {
            // The range joins the left neighbour's (the last leaf of the previous branch).
            let left = left.expect("a leaf after a sibling branch has a low fence");
            let _left_locked = left.latch.lock().expect("leaves in the tree are current");
            left.next.store(leaf.next.load(Relaxed, guard), Release);
            let old = left.high.swap(leaf.high.swap(RawPtr::null(), Relaxed, guard), Release, guard);
            left.refit(guard);
            old
        } else {
            // The range joins the right neighbour's (the first leaf of the next branch).
            let right = leaf.next_leaf(guard).expect("a first child with siblings has a next leaf");
            let old = {
                let _right_locked = right.latch.lock().expect("leaves in the tree are current");
                let old = right.low.swap(leaf.low.swap(RawPtr::null(), Relaxed, guard), Release, guard);
                right.refit(guard);
                old
            };
            if let Some(left) = left {
                let _left_locked = left.latch.lock().expect("leaves in the tree are current");
                left.next.store(leaf.next.load(Relaxed, guard), Release);
            }
            old
        };
        if self.last.load(Relaxed, guard) == leaf_raw {
            // The rightmost leaf's range joined its left neighbour's (it has no right one).
            self.last.store(self.leaf_raw_before(&path, keep, guard), Release);
        }
        locked.retire();
        let step = &path[keep];
        let mut keys = step.inner.keys.to_vec();
        let mut children = step.inner.child_ptrs(guard);
        keys.remove(step.child.saturating_sub(1));
        children.remove(step.child);
        self.replace(&path[..keep], publish(Node::Inner(Inner::new(keys, &children))));
        // SAFETY: the replaced ancestor, the branch below it and the leaf are unlinked (the
        // neighbour's link now skips the leaf), and the fence was swapped out of its leaf; each
        // is released once, under the structure mutex.
        unsafe {
            release(old_fence);
            release(step.raw);
            for below in &path[keep + 1..] {
                release(below.raw);
            }
            release(leaf_raw);
        }
        self.shrink_root(guard);
    }

    /// The leaf whose range ends at `low` (under the structure mutex: the tree is consistent).
    fn leaf_before<'g, O: KeyOrder>(&self, order: O, low: &Key, guard: &'g Guard) -> &'g Leaf {
        let probe = Probe::with_order(low.as_bytes(), order);
        let mut leaf = self.descend(Target::Before(probe), guard);
        while let Some(high) = leaf.high(guard) {
            if probe.cmp_prefixed(high.prefix(), high).is_le() {
                break;
            }
            leaf = leaf.next_leaf(guard).expect("a leaf with a high fence has a next leaf");
        }
        leaf
    }

    /// The last leaf of the branch before `path[keep]`'s child.
    fn leaf_raw_before<'g>(&self, path: &[Step<'g>], keep: usize, guard: &'g Guard) -> RawPtr<'g, Node> {
        let step = &path[keep];
        let mut raw = step.inner.child(step.child - 1, guard);
        while let Some(Node::Inner(inner)) = deref(raw) {
            raw = inner.child(inner.children.len() - 1, guard);
        }
        raw
    }

    /// Replaces a root with one child by that child, as long as there is one.
    fn shrink_root(&self, guard: &Guard) {
        loop {
            let raw = self.root.load(Acquire, guard);
            let Some(Node::Inner(inner)) = deref(raw) else { return };
            if inner.children.len() > 1 {
                return;
            }
            self.root.store(inner.child(0, guard), Release);
            // SAFETY: the old root is no longer linked; released once, under the mutex.
            unsafe { release(raw) };
        }
    }
}
