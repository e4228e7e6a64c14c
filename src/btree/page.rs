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
use crate::store::collate::{self, Order};

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

/// Where one item of a parsed page is, in 8 bytes (pages are cached parsed, so this size is
/// most of a page's memory beyond its image): an inline item's offset and length, or, with
/// [`OVERFLOW_BIT`] set in `len`, the offset of the overflow cell's length and address.
#[derive(Clone, Copy, Debug)]
struct Packed {
    at: u32,
    len: u32,
}

/// Marks a [`Packed`] overflow cell.
const OVERFLOW_BIT: u32 = 1 << 31;

/// A parsed page: its image and where each entry's parts are in it.
#[derive(Debug)]
pub struct Page {
    /// The block as read (kept as allocated: shrinking it cost a reallocation per miss).
    image: Vec<u8>,
    kind: u8,
    /// Per entry: the key, then the value (leaf) or the child address (internal: an inline
    /// "cell" of the address's 16 bytes).
    cells: Box<[[Packed; 2]]>,
    /// The bytes of the page's overflow keys, by entry, read when the page was loaded
    /// (searches compare keys); usually empty.
    overflow_keys: Box<[(u32, Box<[u8]>)]>,
}

impl Drop for Page {
    /// The image's buffer goes back to the pool for the next miss (see `pool.rs` for why).
    fn drop(&mut self) {
        super::pool::give(std::mem::take(&mut self.image));
    }
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
    /// Parses the page image in `block` from `start` (what comes before is the block's own
    /// header, kept to save moving the image), a block at `offset` of `file` (named in
    /// errors), checking every offset. `read_overflow` fetches an overflow key's bytes.
    ///
    /// The order of the keys is not checked here (a comparison per entry on every miss; the
    /// block's checksum already vouches for what its writer wrote): verification checks it
    /// ([`keys_ascending`](Self::keys_ascending)).
    pub fn parse(
        block: Vec<u8>,
        start: usize,
        file: &str,
        offset: u64,
        mut read_overflow: impl FnMut(Addr, u64) -> Result<Vec<u8>>,
    ) -> Result<Page> {
        let bad = |what: &str| Error::new(Kind::TrySalvage, format!("{file}: page at offset {offset}: {what}"));
        let image = block;
        let mut r = Reader { b: &image, at: start.min(image.len()) };
        let kind = r.u8().ok_or_else(|| bad("empty page"))?;
        if kind != LEAF && kind != INTERNAL {
            return Err(bad(&format!("unknown page kind {kind}")));
        }
        let count = r.u32().ok_or_else(|| bad("short page header"))? as usize;
        // Every entry takes at least 10 bytes: a corrupt count cannot allocate more than the
        // image could hold.
        if count > (image.len() - r.at) / 10 {
            return Err(bad(&format!("{count} entries cannot fit in {} bytes", image.len())));
        }
        let mut cells = Vec::with_capacity(count);
        let mut overflow_keys = Vec::new();
        let short = || bad("entry runs past the page");
        for i in 0..count {
            let key = r.packed().ok_or_else(short)?;
            if key.len & OVERFLOW_BIT != 0 {
                let Cell::Overflow { addr, len } = unpack(&image, key) else { return Err(short()) };
                overflow_keys.push((i as u32, read_overflow(addr, len)?.into_boxed_slice()));
            }
            let second = if kind == LEAF {
                r.packed().ok_or_else(short)?
            } else {
                let at = u32::try_from(r.at).map_err(|_| short())?;
                r.addr().ok_or_else(short)?;
                Packed { at, len: Addr::LEN as u32 }
            };
            cells.push([key, second]);
        }
        if r.at != image.len() {
            return Err(bad("bytes after the last entry"));
        }
        let page = Page { image, kind, cells: cells.into(), overflow_keys: overflow_keys.into() };
        if kind == INTERNAL && (count == 0 || !page.key(0).is_empty()) {
            return Err(bad("internal page without its leading empty key"));
        }
        Ok(page)
    }

    /// Whether the keys are strictly ascending in `order` (verification; an internal page's
    /// leading empty key stands below every key).
    pub fn keys_ascending(&self, order: Order<'_>) -> bool {
        let from = if self.is_leaf() || order.is_none() { 1 } else { 2 };
        (from..self.len()).all(|i| collate::cmp(order, self.key(i - 1), self.key(i)).is_lt())
    }

    /// Whether this is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.kind == LEAF
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// Whether the page has no entry.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The key of entry `i`.
    #[inline]
    pub fn key(&self, i: usize) -> &[u8] {
        let Packed { at, len } = self.cells[i][0];
        if len & OVERFLOW_BIT == 0 {
            return &self.image[at as usize..(at + len) as usize];
        }
        match self.overflow_keys.binary_search_by_key(&(i as u32), |(e, _)| *e) {
            Ok(j) => &self.overflow_keys[j].1,
            Err(_) => &[],
        }
    }

    /// The key cell of entry `i` (to copy it into a new page without reading it).
    pub fn key_cell(&self, i: usize) -> Cell {
        unpack(&self.image, self.cells[i][0])
    }

    /// The value cell of leaf entry `i`.
    pub fn value_cell(&self, i: usize) -> Cell {
        unpack(&self.image, self.cells[i][1])
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
        let at = self.cells[i][1].at as usize;
        // Checked when the page was parsed.
        Addr::get(&self.image[at..]).unwrap_or(Addr { offset: 0, size: 0, checksum: 0 })
    }

    /// Leaf: the index of the first key `>= key` (`len()` if none). Internal: the index of the
    /// child whose range holds `key`.
    pub fn search(&self, key: &[u8], order: Order<'_>) -> Result<usize, usize> {
        match order {
            None => self.search_by(0, |k| k.cmp(key)),
            Some(c) => self.search_by(0, |k| c.order(k, key)),
        }
    }

    /// The binary search of entries `lo..` by `cmp` (a key against the sought one).
    #[inline(always)]
    fn search_by(&self, mut lo: usize, cmp: impl Fn(&[u8]) -> std::cmp::Ordering) -> Result<usize, usize> {
        let mut hi = self.len();
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match cmp(self.key(mid)) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(mid),
            }
        }
        Err(lo)
    }

    /// Internal pages: the child entry whose range holds `key`.
    pub fn child_for(&self, key: &[u8], order: Order<'_>) -> usize {
        let found = match order {
            None => self.search_by(0, |k| k.cmp(key)),
            // The leading empty key stands below every key, whatever the collator says of it.
            Some(c) => self.search_by(1, |k| c.order(k, key)),
        };
        match found {
            Ok(i) => i,
            // The leading key is empty, so every key sorts at or after entry 0.
            Err(i) => i.saturating_sub(1),
        }
    }

    /// Memory the parsed page holds (for the cache's accounting).
    pub fn footprint(&self) -> usize {
        size_of::<Page>()
            + self.image.capacity()
            + self.cells.len() * size_of::<[Packed; 2]>()
            + self.overflow_keys.iter().map(|(_, k)| size_of::<(u32, Box<[u8]>)>() + k.len()).sum::<usize>()
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

    /// The next cell, as where its item is.
    fn packed(&mut self) -> Option<Packed> {
        match self.u8()? {
            INLINE => {
                let len = self.u32()?;
                let at = u32::try_from(self.at).ok()?;
                if len & OVERFLOW_BIT != 0 {
                    return None;
                }
                self.take(len as usize)?;
                Some(Packed { at, len })
            }
            OVERFLOW => {
                let at = u32::try_from(self.at).ok()?;
                self.u64()?;
                self.addr()?;
                Some(Packed { at, len: OVERFLOW_BIT })
            }
            _ => None,
        }
    }
}

/// The cell `p` of `image` (its bounds were checked when the page was parsed).
fn unpack(image: &[u8], p: Packed) -> Cell {
    if p.len & OVERFLOW_BIT == 0 {
        return Cell::Inline { at: p.at, len: p.len };
    }
    let at = p.at as usize;
    let len = image.get(at..at + 8).and_then(|b| b.try_into().ok()).map_or(0, u64::from_le_bytes);
    let addr = image.get(at + 8..).and_then(Addr::get).unwrap_or(Addr { offset: 0, size: 0, checksum: 0 });
    Cell::Overflow { addr, len }
}
