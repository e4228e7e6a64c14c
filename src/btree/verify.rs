//! Checking a tree's file (`WT_SESSION::verify`), and the tree's shape (statistics).
//!
//! Verification reads every block reachable from the newest root, and from the last durable
//! checkpoint's root when that differs, straight from the file (the page cache is neither used
//! nor filled, so what is checked is what is on disk), and checks:
//! - each block reads back with its checksum, the one its parent recorded;
//! - each page parses, its keys strictly ascending;
//! - each key lies within the bounds its parent gives (child `i` of an internal page holds
//!   keys in `[key_i, key_{i+1})`), and every leaf is at the same depth;
//! - no block is referenced twice (or overlaps another), none lies past the file's end, and
//!   none is on a free list: for the newest root, no list at all; for the checkpoint's root,
//!   not the allocatable list (its dropped blocks wait on `pending` until the next checkpoint).
//!
//! Checksum and parse damage is `WT_TRY_SALVAGE` (as reads report it); a tree that reads back
//! but breaks the rules is `WT_ERROR`. Every message names the file and the block's offset.

use std::collections::HashMap;

use scc::Guard;

use super::block::{Addr, BlockFile, SpaceLists, PAYLOAD_AT};
use super::extents::ExtentList;
use super::page::{Cell, Page};
use super::tree::Tree;
use crate::error::{Error, Kind, Result};
use crate::store::collate::{self, Order};

/// What a walk found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Levels from the root to the leaves (0: empty tree, 1: a lone leaf).
    pub depth: u64,
    /// Leaf pages.
    pub leaf_pages: u64,
    /// Internal pages.
    pub internal_pages: u64,
    /// Keys and values stored in overflow blocks of their own (read from every leaf).
    pub overflow_items: u64,
}

impl Tree {
    /// Verifies the tree's file (see the module notes) and returns the newest version's shape.
    /// Merges wait while it runs (so the roots and free lists hold still); readers and writers
    /// do not, except writers that must merge because the dirty trigger was passed. The caller
    /// keeps checkpoints out (`Durable::verify`).
    pub fn verify(&self) -> Result<Shape> {
        let _merges = self.merge_lock();
        let file = self.file();
        let mut v = Verifier { order: self.order(), file, lists: file.space_lists(), len: file.file_len()?, used: ExtentList::new(), seen: HashMap::new() };
        if v.len < v.lists.end {
            return Err(v.bad(v.len, &format!("file is {} bytes, its blocks reach {}", v.len, v.lists.end)));
        }
        let mut shape = Shape::default();
        if let Some(root) = self.newest_root() {
            shape.depth = v.subtree(root, None, None, 1, true, &mut shape, &mut None)?;
        }
        match self.checkpoint_root() {
            Some(root) if Some(root) != self.newest_root() => {
                v.subtree(root, None, None, 1, false, &mut Shape::default(), &mut None)?;
            }
            _ => {}
        }
        Ok(shape)
    }

    /// The newest version's depth and page counts, from its internal pages alone (leaves are
    /// counted from their parents, not read): cheap enough for a statistics cursor.
    pub fn shape(&self, count_pages: bool) -> Result<Shape> {
        let guard = Guard::new();
        let Some(root) = self.newest_root() else { return Ok(Shape::default()) };
        // Every leaf is at the same depth: the leftmost path finds it.
        let mut shape = Shape { depth: 1, ..Shape::default() };
        let mut page = self.page(root, &guard)?;
        while !page.is_leaf() {
            shape.depth += 1;
            page = self.page(page.child(0), &guard)?;
        }
        if !count_pages {
            return Ok(shape);
        }
        // Internal pages level by level; the last internal level's children are the leaves.
        let mut level = vec![root];
        for _ in 1..shape.depth {
            let mut next = Vec::new();
            for addr in level {
                let page = self.page(addr, &guard)?;
                shape.internal_pages += 1;
                next.extend((0..page.len()).map(|i| page.child(i)));
            }
            level = next;
        }
        shape.leaf_pages = level.len() as u64;
        for addr in level {
            let leaf = self.page(addr, &guard)?;
            for i in 0..leaf.len() {
                let stored = [leaf.key_cell(i), leaf.value_cell(i)];
                shape.overflow_items += stored.into_iter().filter(|&cell| leaf.inline(cell).is_none()).count() as u64;
            }
        }
        Ok(shape)
    }
}

/// One verification.
struct Verifier<'f> {
    /// The tree's key order.
    order: Order<'f>,
    file: &'f BlockFile,
    lists: SpaceLists,
    /// The file's length.
    len: u64,
    /// Every block referenced so far.
    used: ExtentList,
    /// Blocks seen by offset, and whether in the newest root's walk (a checkpoint's root shares
    /// the newest root's unchanged subtrees: those are not walked again).
    seen: HashMap<u64, (Addr, bool)>,
}

impl Verifier<'_> {
    fn bad(&self, offset: u64, what: &str) -> Error {
        Error::new(Kind::Generic, format!("{}: page at offset {offset}: {what}", self.file.shown()))
    }

    /// Checks where block `addr` lies; false if a previous walk already verified it.
    fn claim(&mut self, addr: Addr, newest: bool) -> Result<bool> {
        let ext = addr.extent();
        if let Some(&(seen, in_newest)) = self.seen.get(&addr.offset) {
            if seen == addr && in_newest && !newest {
                return Ok(false);
            }
            return Err(self.bad(addr.offset, "block referenced twice"));
        }
        let end = ext.offset.saturating_add(ext.len);
        if end > self.lists.end || end > self.len {
            return Err(self.bad(addr.offset, &format!("block of {} bytes runs past the end of the file ({})", ext.len, self.lists.end.min(self.len))));
        }
        let free = if self.lists.avail.intersects(ext) {
            Some("available")
        } else if newest && self.lists.pending.intersects(ext) {
            Some("pending")
        } else if newest && self.lists.retiring.intersects(ext) {
            Some("retiring")
        } else {
            None
        };
        if let Some(list) = free {
            return Err(self.bad(addr.offset, &format!("block in use is on the file's {list} free list")));
        }
        if ext.len == 0 || self.used.insert(ext).is_err() {
            return Err(self.bad(addr.offset, "block overlaps another block in use"));
        }
        self.seen.insert(addr.offset, (addr, newest));
        Ok(true)
    }

    /// Checks an overflow item's block and returns its bytes.
    fn overflow(&mut self, addr: Addr, len: u64, newest: bool) -> Result<Vec<u8>> {
        if !self.claim(addr, newest)? {
            return self.file.read(addr);
        }
        let bytes = self.file.read(addr)?;
        if bytes.len() as u64 != len {
            return Err(self.bad(addr.offset, &format!("overflow item holds {} bytes, its page says {len}", bytes.len())));
        }
        Ok(bytes)
    }

    /// Checks the subtree at `addr`, whose keys must lie in `[lower, upper)`, at `depth`;
    /// returns the depth of its leaves. `leaf_depth` is the depth every leaf must have.
    #[allow(clippy::too_many_arguments)]
    fn subtree(
        &mut self,
        addr: Addr,
        lower: Option<&[u8]>,
        upper: Option<&[u8]>,
        depth: u64,
        newest: bool,
        shape: &mut Shape,
        leaf_depth: &mut Option<u64>,
    ) -> Result<u64> {
        if !self.claim(addr, newest)? {
            return Ok(leaf_depth.unwrap_or(depth));
        }
        let block = self.file.read_block(addr)?;
        let name = self.file.shown().to_string();
        let page = Page::parse(block, PAYLOAD_AT, &name, addr.offset, |a, len| self.overflow(a, len, newest))?;
        if !page.keys_ascending(self.order) {
            return Err(self.bad(addr.offset, "keys out of order"));
        }
        let order = self.order;
        let cmp = move |a: &[u8], b: &[u8]| collate::cmp(order, a, b);
        let below = |key: &[u8]| upper.is_some_and(|u| cmp(key, u).is_ge());
        if page.is_leaf() {
            for i in 0..page.len() {
                let key = page.key(i);
                if lower.is_some_and(|l| cmp(key, l).is_lt()) || below(key) {
                    return Err(self.bad(addr.offset, &format!("key {} lies outside the range its parent gives", i + 1)));
                }
                if let Cell::Overflow { addr: a, len } = page.value_cell(i) {
                    self.overflow(a, len, newest)?;
                }
            }
            shape.leaf_pages += 1;
            for i in 0..page.len() {
                let stored = [page.key_cell(i), page.value_cell(i)];
                shape.overflow_items += stored.into_iter().filter(|&cell| page.inline(cell).is_none()).count() as u64;
            }
            match *leaf_depth {
                Some(d) if d != depth => {
                    return Err(self.bad(addr.offset, &format!("leaf at depth {depth}, other leaves at depth {d}")));
                }
                _ => *leaf_depth = Some(depth),
            }
            return Ok(depth);
        }
        shape.internal_pages += 1;
        // Key 0 is empty (the parent's lower bound); keys 1.. separate the children.
        for i in 1..page.len() {
            let key = page.key(i);
            if lower.is_some_and(|l| cmp(key, l).is_le()) || below(key) {
                return Err(self.bad(addr.offset, &format!("separator key {i} lies outside the range its parent gives")));
            }
        }
        for i in 0..page.len() {
            let lo = if i == 0 { lower } else { Some(page.key(i)) };
            let hi = if i + 1 < page.len() { Some(page.key(i + 1)) } else { upper };
            self.subtree(page.child(i), lo, hi, depth + 1, newest, shape, leaf_depth)?;
        }
        Ok(leaf_depth.unwrap_or(depth))
    }
}
