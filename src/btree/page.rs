//! Page images: the bytes of one tree page as a block holds them, and their parsed, read-only
//! form in memory.
//!
//! # Layout (little-endian)
//! ```text
//! page  := kind u8, count u32, entry{count}
//! leaf entry     := key cell, value cell
//! internal entry := key cell, child Addr (16 bytes: offset u64, size u32, checksum u32)
//! cell  := 0 u8, len u32, bytes[len]                 (inline)
//!        | 1 u8, len u64, Addr                       (overflow: the bytes are a block of their own)
//! ```
//! Keys are the table's packed key bytes, in `memcmp` order, strictly ascending within a page.
//! An internal page's first key is empty: its child holds every key below the second key.
//! Each other key is a separator: the child at entry `i` holds keys `>= key[i]` and
//! `< key[i+1]`. Items longer than the page's inline limit go to overflow blocks, so a page
//! stays near its size limit whatever the item sizes.

use super::block::Addr;
use crate::error::{Error, Kind, Result};

/// Page kind byte of a leaf.
pub const LEAF: u8 = 1;
/// Page kind byte of an internal page.
pub const INTERNAL: u8 = 2;
const INLINE: u8 = 0;
const OVERFLOW: u8 = 1;

/// Where an item's bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// In the page image.
    Inline {
        /// Offset of the first byte in the image.
        at: u32,
        /// Length in bytes.
        len: u32,
    },
    /// In an overflow block.
    Overflow {
        /// The block.
        addr: Addr,
        /// Length of the item (the block's payload).
        len: u64,
    },
}

/// A parsed page: its image and where each entry's parts are in it.
#[derive(Debug)]
pub struct Page {
    image: Box<[u8]>,
    kind: u8,
    /// Leaf: (key, value) cells. Internal: (key, child) with the child in `children`.
    keys: Box<[Cell]>,
    values: Box<[Cell]>,
    children: Box<[Addr]>,
    /// The bytes of overflow keys, read when the page was loaded (searches compare keys).
    overflow_keys: Box<[Option<Box<[u8]>>]>,
}

/// A page image being built.
pub struct Builder {
    out: Vec<u8>,
    count: u32,
}

impl Builder {
    /// An empty page of `kind`.
    pub fn new(kind: u8) -> Builder {
        let mut out = Vec::with_capacity(4096);
        out.push(kind);
        out.extend_from_slice(&0u32.to_le_bytes());
        Builder { out, count: 0 }
    }

    /// Bytes so far.
    pub fn bytes(&self) -> usize {
        self.out.len()
    }

    /// Entries so far.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Appends a cell for an item already placed (`Inline` bytes are passed in `inline`).
    pub fn cell(&mut self, item: Item<'_>) -> &mut Self {
        match item {
            Item::Inline(bytes) => {
                self.out.push(INLINE);
                self.out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
                self.out.extend_from_slice(bytes);
            }
            Item::Overflow(addr, len) => {
                self.out.push(OVERFLOW);
                self.out.extend_from_slice(&len.to_le_bytes());
                addr.put(&mut self.out);
            }
        }
        self
    }

    /// Appends a child address (internal pages).
    pub fn child(&mut self, addr: Addr) -> &mut Self {
        addr.put(&mut self.out);
        self
    }

    /// Counts one finished entry.
    pub fn end_entry(&mut self) {
        self.count += 1;
    }

    /// The finished image.
    pub fn finish(mut self) -> Vec<u8> {
        self.out[1..5].copy_from_slice(&self.count.to_le_bytes());
        self.out
    }
}

/// An item as a builder writes it.
#[derive(Clone, Copy, Debug)]
pub enum Item<'a> {
    /// Bytes stored in the page.
    Inline(&'a [u8]),
    /// Bytes stored in an overflow block of that many bytes.
    Overflow(Addr, u64),
}

/// Bytes a cell of an item of `len` bytes takes in a page (inline or not).
pub fn cell_len(len: usize, inline: bool) -> usize {
    if inline {
        1 + 4 + len
    } else {
        1 + 8 + Addr::LEN
    }
}

impl Page {
    /// Parses `image`, a block at `offset` of `file` (named in errors), checking every offset.
    /// `read_overflow` fetches an overflow key's bytes.
    pub fn parse(
        image: Vec<u8>,
        file: &str,
        offset: u64,
        mut read_overflow: impl FnMut(Addr, u64) -> Result<Vec<u8>>,
    ) -> Result<Page> {
        let bad = |what: &str| Error::new(Kind::TrySalvage, format!("{file}: page at offset {offset}: {what}"));
        let image = image.into_boxed_slice();
        let mut r = Reader { b: &image, at: 0 };
        let kind = r.u8().ok_or_else(|| bad("empty page"))?;
        if kind != LEAF && kind != INTERNAL {
            return Err(bad(&format!("unknown page kind {kind}")));
        }
        let count = r.u32().ok_or_else(|| bad("short page header"))? as usize;
        // Every entry takes at least 10 bytes: a corrupt count cannot allocate more than the
        // image could hold.
        if count > image.len() / 10 {
            return Err(bad(&format!("{count} entries cannot fit in {} bytes", image.len())));
        }
        let (mut keys, mut values, mut children) = (Vec::with_capacity(count), Vec::new(), Vec::new());
        let mut overflow_keys = Vec::with_capacity(count);
        for _ in 0..count {
            let key = r.cell().ok_or_else(|| bad("entry runs past the page"))?;
            overflow_keys.push(match key {
                Cell::Overflow { addr, len } => Some(read_overflow(addr, len)?.into_boxed_slice()),
                Cell::Inline { .. } => None,
            });
            keys.push(key);
            if kind == LEAF {
                values.push(r.cell().ok_or_else(|| bad("entry runs past the page"))?);
            } else {
                children.push(r.addr().ok_or_else(|| bad("entry runs past the page"))?);
            }
        }
        if r.at != image.len() {
            return Err(bad("bytes after the last entry"));
        }
        let page = Page {
            image,
            kind,
            keys: keys.into(),
            values: values.into(),
            children: children.into(),
            overflow_keys: overflow_keys.into(),
        };
        if kind == INTERNAL && (count == 0 || !page.key(0).is_empty()) {
            return Err(bad("internal page without its leading empty key"));
        }
        if (1..count).any(|i| page.key(i - 1) >= page.key(i)) {
            return Err(bad("keys out of order"));
        }
        Ok(page)
    }

    /// Whether this is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.kind == LEAF
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the page has no entry.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The key of entry `i`.
    pub fn key(&self, i: usize) -> &[u8] {
        match self.keys[i] {
            Cell::Inline { at, len } => &self.image[at as usize..(at + len) as usize],
            Cell::Overflow { .. } => self.overflow_keys[i].as_deref().unwrap_or_default(),
        }
    }

    /// The key cell of entry `i` (to copy it into a new page without reading it).
    pub fn key_cell(&self, i: usize) -> Cell {
        self.keys[i]
    }

    /// The value cell of leaf entry `i`.
    pub fn value_cell(&self, i: usize) -> Cell {
        self.values[i]
    }

    /// The bytes of an inline cell of this page.
    pub fn inline(&self, cell: Cell) -> Option<&[u8]> {
        match cell {
            Cell::Inline { at, len } => Some(&self.image[at as usize..(at + len) as usize]),
            Cell::Overflow { .. } => None,
        }
    }

    /// The child of internal entry `i`.
    pub fn child(&self, i: usize) -> Addr {
        self.children[i]
    }

    /// Leaf: the index of the first key `>= key` (`len()` if none). Internal: the index of the
    /// child whose range holds `key`.
    pub fn search(&self, key: &[u8]) -> Result<usize, usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.key(mid).cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    /// Internal pages: the child entry whose range holds `key`.
    pub fn child_for(&self, key: &[u8]) -> usize {
        match self.search(key) {
            Ok(i) => i,
            // The leading key is empty, so every key sorts at or after entry 0.
            Err(i) => i.saturating_sub(1),
        }
    }

    /// Memory the parsed page holds (for the cache's accounting).
    pub fn footprint(&self) -> usize {
        size_of::<Page>()
            + self.image.len()
            + self.keys.len() * size_of::<Cell>()
            + self.values.len() * size_of::<Cell>()
            + self.children.len() * size_of::<Addr>()
            + self.overflow_keys.iter().map(|k| size_of::<Option<Box<[u8]>>>() + k.as_ref().map_or(0, |k| k.len())).sum::<usize>()
    }
}

/// A bounds-checked cursor over an image.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.b.get(self.at..end)?;
        self.at = end;
        Some(s)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn addr(&mut self) -> Option<Addr> {
        Addr::get(self.take(Addr::LEN)?)
    }

    fn cell(&mut self) -> Option<Cell> {
        match self.u8()? {
            INLINE => {
                let len = self.u32()?;
                let at = u32::try_from(self.at).ok()?;
                self.take(len as usize)?;
                Some(Cell::Inline { at, len })
            }
            OVERFLOW => {
                let len = self.u64()?;
                Some(Cell::Overflow { addr: self.addr()?, len })
            }
            _ => None,
        }
    }
}
