//! Owned index keys with inline storage, and the borrowed probe used for look-ups.
//!
//! Keys are WiredTiger *packed* key bytes. They order by `memcmp` of the bytes, a proper prefix
//! first (exactly `<[u8] as Ord>::cmp`).
//!
//! Layout (32 bytes, no indirection for keys of at most [`INLINE_KEY_LEN`] bytes):
//! - `prefix`: the first 8 key bytes as a big-endian `u64`, zero padded. Comparing two prefixes
//!   is one integer comparison and decides almost every comparison made during a tree descent.
//! - `repr`: the full key bytes, inline when short, else one shared heap allocation.
//!
//! When two prefixes are equal, the rest is decided without loading the bytes when either key is
//! at most 8 bytes long (then the shorter key is a prefix of the longer one), else by the next
//! words the same way, and `memcmp` after the 24th byte.
//!
//! Hashing (for the point-lookup hash index) uses the same decomposition: the prefix and the
//! length (one folded multiply), then the bytes after the 8th, through [`KeyHasher`]; [`Key`],
//! [`Probe`] and `ShortKey` (the plain-data form of a key of at most 8 bytes, which the prefix
//! and length determine) hash identically.

use std::cmp::Ordering;
use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use scc::{Comparable, Equivalent};

use super::collate::Collator;

/// Longest key stored inline in a [`Key`] (longer keys take one heap allocation).
pub const INLINE_KEY_LEN: usize = 22;

/// The first 8 bytes of `bytes` as a big-endian integer, zero padded.
///
/// For two byte strings `a` and `b`, `prefix_of(a) < prefix_of(b)` implies `a < b`, and
/// `prefix_of(a) > prefix_of(b)` implies `a > b`.
#[inline(always)]
pub(crate) fn prefix_of(bytes: &[u8]) -> u64 {
    // One case per short length (a jump table, fixed-size loads, no `memcpy` call).
    match *bytes {
        [] => 0,
        [a] => u64::from(a) << 56,
        [a, b] => u64::from(u16::from_be_bytes([a, b])) << 48,
        [a, b, c] => (u64::from(u16::from_be_bytes([a, b])) << 48) | (u64::from(c) << 40),
        [a, b, c, d] => u64::from(u32::from_be_bytes([a, b, c, d])) << 32,
        [a, b, c, d, e] => {
            (u64::from(u32::from_be_bytes([a, b, c, d])) << 32) | (u64::from(e) << 24)
        }
        [a, b, c, d, e, f] => {
            (u64::from(u32::from_be_bytes([a, b, c, d])) << 32)
                | (u64::from(u16::from_be_bytes([e, f])) << 16)
        }
        [a, b, c, d, e, f, g] => {
            (u64::from(u32::from_be_bytes([a, b, c, d])) << 32)
                | (u64::from(u16::from_be_bytes([e, f])) << 16)
                | (u64::from(g) << 8)
        }
        [a, b, c, d, e, f, g, h, ..] => u64::from_be_bytes([a, b, c, d, e, f, g, h]),
    }
}

/// Orders `a` and `b`, given that their prefixes ([`prefix_of`]) are equal.
///
/// The next two 8-byte words are compared as big-endian integers like the prefix (keys that
/// share their first 8 bytes, such as zero-filled decimal strings, are then decided without a
/// `memcmp` call); bytes after the 24th by `memcmp`. Whenever one key ends inside the words
/// compared so far, the zero padding of the shorter one matched the longer one's bytes: the
/// shorter key is a prefix of the longer one, so the lengths decide.
#[inline(always)]
pub(crate) fn cmp_after_prefix(a: &[u8], b: &[u8]) -> Ordering {
    let mut at = 8;
    loop {
        if a.len() <= at || b.len() <= at {
            return a.len().cmp(&b.len());
        }
        if at == 24 {
            return a[24..].cmp(&b[24..]);
        }
        match word_at(a, at).cmp(&word_at(b, at)) {
            Ordering::Equal => at += 8,
            unequal => return unequal,
        }
    }
}

/// The 8 bytes of `bytes` from `at` (which is inside it) as a big-endian integer, zero padded.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> u64 {
    match bytes.get(at..at + 8) {
        Some(word) => u64::from_be_bytes(word.try_into().expect("8 bytes")),
        None => prefix_of(&bytes[at..]),
    }
}

/// An owned key: packed key bytes, inline up to [`INLINE_KEY_LEN`] bytes.
#[derive(Clone)]
pub struct Key {
    prefix: u64,
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    Inline {
        len: u8,
        buf: [u8; INLINE_KEY_LEN],
    },
    /// Shared rather than boxed: the tree and the hash index copy keys bitwise when they split
    /// nodes or resize, and a `Box` asserts uniqueness that those copies would violate.
    Heap(Arc<[u8]>),
}

impl Key {
    /// Copies `bytes` into a new key.
    #[inline]
    pub fn new(bytes: &[u8]) -> Self {
        let repr = if bytes.len() <= INLINE_KEY_LEN {
            let mut buf = [0u8; INLINE_KEY_LEN];
            buf[..bytes.len()].copy_from_slice(bytes);
            Repr::Inline {
                len: bytes.len() as u8,
                buf,
            }
        } else {
            Repr::Heap(bytes.into())
        };
        Key {
            prefix: prefix_of(bytes),
            repr,
        }
    }

    /// The key bytes.
    #[inline(always)]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.repr {
            Repr::Inline { len, buf } => &buf[..*len as usize],
            Repr::Heap(bytes) => bytes,
        }
    }

    /// Key length in bytes.
    #[inline(always)]
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Inline { len, .. } => *len as usize,
            Repr::Heap(bytes) => bytes.len(),
        }
    }

    /// `true` for the empty key.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first 8 bytes as a big-endian integer ([`prefix_of`]).
    #[inline(always)]
    pub(crate) fn prefix(&self) -> u64 {
        self.prefix
    }

    /// `true` if the bytes are stored inside the key (no heap allocation).
    #[inline]
    pub fn is_inline(&self) -> bool {
        matches!(self.repr, Repr::Inline { .. })
    }
}

impl PartialEq for Key {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.prefix == other.prefix
            && self.len() == other.len()
            && (self.len() <= 8 || self.as_bytes()[8..] == other.as_bytes()[8..])
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        match self.prefix.cmp(&other.prefix) {
            Ordering::Equal => cmp_after_prefix(self.as_bytes(), other.as_bytes()),
            unequal => unequal,
        }
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({:02x?})", self.as_bytes())
    }
}

impl From<&[u8]> for Key {
    #[inline]
    fn from(bytes: &[u8]) -> Self {
        Key::new(bytes)
    }
}

/// A borrowed key prepared for look-ups: the bytes and their precomputed prefix.
///
/// Built once per operation ([`Probe::new`] does not allocate); every comparison in the tree
/// descent then starts with one integer comparison against the stored [`Key`] prefix.
///
/// `O` is the tree's order: [`Bytes`] (a type of no size: the bytewise comparisons are
/// compiled as if it were not there), or a table's collator (`&Collator`), whose comparisons
/// are calls to it.
#[derive(Clone, Copy)]
pub struct Probe<'a, O: KeyOrder = Bytes> {
    prefix: u64,
    bytes: &'a [u8],
    order: O,
}

/// How a tree orders its keys, as a type: the ordered index is generic over it, so that the
/// bytewise code is the same as without collators and the collated code a copy of it.
pub trait KeyOrder: Copy {
    /// Whether a collator decides (known at compile time: the bytewise copies drop the tests).
    const COLLATED: bool;
    /// Orders the bytes of two keys.
    fn cmp_bytes(self, a: &[u8], b: &[u8]) -> Ordering;
    /// Whether `a` orders before `b`.
    fn lt(self, a: &Key, b: &Key) -> bool;
    /// `probe` in this order.
    fn of<'a>(self, probe: &Probe<'a>) -> Probe<'a, Self> {
        Probe { prefix: probe.prefix, bytes: probe.bytes, order: self }
    }
}

/// Bytewise order (`memcmp` of the packed keys, a proper prefix first).
#[derive(Clone, Copy, Debug, Default)]
pub struct Bytes;

impl KeyOrder for Bytes {
    const COLLATED: bool = false;

    #[inline(always)]
    fn cmp_bytes(self, a: &[u8], b: &[u8]) -> Ordering {
        a.cmp(b)
    }

    #[inline(always)]
    fn lt(self, a: &Key, b: &Key) -> bool {
        a < b
    }
}

impl KeyOrder for &Collator {
    const COLLATED: bool = true;

    #[inline(always)]
    fn cmp_bytes(self, a: &[u8], b: &[u8]) -> Ordering {
        self.order(a, b)
    }

    #[inline(always)]
    fn lt(self, a: &Key, b: &Key) -> bool {
        self.order(a.as_bytes(), b.as_bytes()).is_lt()
    }
}

impl<'a> Probe<'a> {
    /// Prepares `bytes` for look-ups.
    #[inline(always)]
    pub fn new(bytes: &'a [u8]) -> Self {
        Probe::with_order(bytes, Bytes)
    }

    /// The probed key as a [`ShortKey`], if it has at most [`SHORT_KEY_LEN`] bytes.
    #[inline(always)]
    pub(crate) fn short(&self) -> Option<ShortKey> {
        (self.bytes.len() <= SHORT_KEY_LEN).then_some(ShortKey {
            prefix: self.prefix,
            len: self.bytes.len() as u64,
        })
    }
}

impl<'a, O: KeyOrder> Probe<'a, O> {
    /// Prepares `bytes` for look-ups in a tree of order `order`.
    #[inline(always)]
    pub(crate) fn with_order(bytes: &'a [u8], order: O) -> Self {
        Probe { prefix: prefix_of(bytes), bytes, order }
    }

    /// The tree's order.
    #[inline(always)]
    pub(crate) fn order(&self) -> O {
        self.order
    }

    /// The probed bytes.
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The first 8 bytes as a big-endian integer ([`prefix_of`]).
    #[inline(always)]
    pub(crate) fn prefix(&self) -> u64 {
        self.prefix
    }

    /// Orders the probe against a key whose prefix the caller has already loaded (a node keeps
    /// its keys' prefixes beside them): the prefixes decide, else the bytes after them.
    #[inline(always)]
    pub(crate) fn cmp_prefixed(&self, prefix: u64, key: &Key) -> Ordering {
        if O::COLLATED {
            return self.order.cmp_bytes(self.bytes, key.as_bytes());
        }
        match self.prefix.cmp(&prefix) {
            Ordering::Equal => cmp_after_prefix(self.bytes, key.as_bytes()),
            unequal => unequal,
        }
    }

}

impl<O: KeyOrder> fmt::Debug for Probe<'_, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Probe({:02x?})", self.bytes)
    }
}

impl Equivalent<Key> for Probe<'_> {
    #[inline(always)]
    fn equivalent(&self, key: &Key) -> bool {
        // Equal prefixes and lengths decide keys of at most 8 bytes without loading them.
        self.prefix == key.prefix
            && self.bytes.len() == key.len()
            && (self.bytes.len() <= 8 || self.bytes[8..] == key.as_bytes()[8..])
    }
}

/// Writers probe the short-key hash index with a [`Probe`] (only `Index::get` uses a [`ShortKey`]).
impl Equivalent<ShortKey> for Probe<'_> {
    #[inline(always)]
    fn equivalent(&self, key: &ShortKey) -> bool {
        self.prefix == key.prefix && self.bytes.len() as u64 == key.len
    }
}

impl Comparable<Key> for Probe<'_> {
    #[inline(always)]
    fn compare(&self, key: &Key) -> Ordering {
        match self.prefix.cmp(&key.prefix) {
            Ordering::Equal => cmp_after_prefix(self.bytes, key.as_bytes()),
            unequal => unequal,
        }
    }
}

/// Longest key that has a [`ShortKey`] form.
pub(crate) const SHORT_KEY_LEN: usize = 8;

/// A key of at most [`SHORT_KEY_LEN`] bytes, held as its prefix ([`prefix_of`]) and length,
/// which determine its bytes.
///
/// Plain data: `Copy`, no destructor, equality is two integer comparisons. The point-lookup
/// hash index keeps short keys in this form: that index's whole look-up then inlines into
/// `Index::get` (a `HashIndex` keyed by [`Key`] stays two out-of-line calls), and its entries
/// take 24 bytes instead of 40.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct ShortKey {
    prefix: u64,
    len: u64,
}

impl ShortKey {
    /// The short form of `bytes`, if they are at most [`SHORT_KEY_LEN`] bytes long.
    #[inline(always)]
    pub(crate) fn new(bytes: &[u8]) -> Option<Self> {
        (bytes.len() <= SHORT_KEY_LEN).then(|| ShortKey {
            prefix: prefix_of(bytes),
            len: bytes.len() as u64,
        })
    }
}

impl Hash for ShortKey {
    #[inline(always)]
    fn hash<H: Hasher>(&self, state: &mut H) {
        // The same words `hash_key` feeds for a key of at most 8 bytes.
        state.write_u128(u128::from(self.prefix) | (u128::from(self.len) << 64));
    }
}

/// Feeds the hash of key `bytes` with precomputed `prefix` into `state`: one `u128` (prefix and
/// length) for every key, then the bytes after the 8th for longer keys.
#[inline(always)]
fn hash_key<H: Hasher>(prefix: u64, bytes: &[u8], state: &mut H) {
    state.write_u128(u128::from(prefix) | ((bytes.len() as u128) << 64));
    if bytes.len() > 8 {
        state.write(&bytes[8..]);
    }
}

impl Hash for Key {
    #[inline(always)]
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_key(self.prefix, self.as_bytes(), state);
    }
}

impl Hash for Probe<'_> {
    #[inline(always)]
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_key(self.prefix, self.bytes, state);
    }
}

/// Builds [`KeyHasher`]s with a per-index random seed.
#[derive(Clone, Debug)]
pub struct KeyHashBuilder {
    seed: u64,
}

impl Default for KeyHashBuilder {
    fn default() -> Self {
        KeyHashBuilder {
            seed: RandomState::new().hash_one(0x5eed_u64),
        }
    }
}

impl BuildHasher for KeyHashBuilder {
    type Hasher = KeyHasher;

    #[inline(always)]
    fn build_hasher(&self) -> KeyHasher {
        KeyHasher(self.seed)
    }
}

/// Multiplier constants (digits of pi, as in foldhash).
const MUL_A: u64 = 0x243f_6a88_85a3_08d3;
const MUL_B: u64 = 0x1319_8a2e_0370_7344;

/// The 128-bit product of `a` and `b`, its halves xor-ed: one `mul` instruction; the high half
/// mixes every input bit into every output bit.
#[inline(always)]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let full = u128::from(a) * u128::from(b);
    (full as u64) ^ ((full >> 64) as u64)
}

/// Loads `bytes` (fewer than 8) into a `u64` without a `memcpy` call; distinct byte strings of
/// one length load distinct words.
#[inline(always)]
fn load_short(bytes: &[u8]) -> u64 {
    let len = bytes.len();
    if len >= 4 {
        let head = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as u64;
        let tail = u32::from_le_bytes([
            bytes[len - 4],
            bytes[len - 3],
            bytes[len - 2],
            bytes[len - 1],
        ]) as u64;
        head | (tail << 32)
    } else if len > 0 {
        (bytes[0] as u64) | ((bytes[len / 2] as u64) << 8) | ((bytes[len - 1] as u64) << 16)
    } else {
        0
    }
}

/// A fast hasher for packed keys.
///
/// A key of at most 8 bytes hashes as one folded multiply of its prefix and length with the seed
/// (a handful of instructions, no loop); longer keys add one folded multiply per further 8 bytes.
/// Both the high bits (bucket index) and the low byte (the hash index's per-entry tag) come out
/// well mixed.
#[derive(Clone, Debug)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
            self.0 = folded_multiply(self.0 ^ word, MUL_A);
        }
        let rest = chunks.remainder();
        self.0 = folded_multiply(self.0 ^ load_short(rest), MUL_B ^ rest.len() as u64);
    }

    #[inline(always)]
    fn write_u64(&mut self, word: u64) {
        self.0 = folded_multiply(self.0 ^ word, MUL_A);
    }

    #[inline(always)]
    fn write_u128(&mut self, word: u128) {
        // The high word (a key length) is small: it selects the multiplier.
        self.0 = folded_multiply(self.0 ^ word as u64, MUL_B ^ (word >> 64) as u64);
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        // One more round: a single folded multiply of a mostly-zero word (short varint keys)
        // leaves some output bits weak under some seeds.
        folded_multiply(self.0, MUL_B)
    }
}
