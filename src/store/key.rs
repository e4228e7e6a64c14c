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
//! at most 8 bytes long (then the shorter key is a prefix of the longer one), else by comparing the
//! bytes after the 8th.
//!
//! Hashing (for the point-lookup hash index) uses the same decomposition: the prefix, the length,
//! then the bytes after the 8th, through [`KeyHasher`]; [`Key`] and [`Probe`] hash identically.

use std::cmp::Ordering;
use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

use scc::{Comparable, Equivalent};

/// Longest key stored inline in a [`Key`] (longer keys take one heap allocation).
pub const INLINE_KEY_LEN: usize = 22;

/// The first 8 bytes of `bytes` as a big-endian integer, zero padded.
///
/// For two byte strings `a` and `b`, `prefix_of(a) < prefix_of(b)` implies `a < b`, and
/// `prefix_of(a) > prefix_of(b)` implies `a > b`.
#[inline(always)]
pub(crate) fn prefix_of(bytes: &[u8]) -> u64 {
    if let Some(head) = bytes.first_chunk::<8>() {
        u64::from_be_bytes(*head)
    } else {
        let mut buf = [0u8; 8];
        buf[..bytes.len()].copy_from_slice(bytes);
        u64::from_be_bytes(buf)
    }
}

/// Orders `a` and `b`, given that their prefixes ([`prefix_of`]) are equal.
#[inline(always)]
fn cmp_after_prefix(a: &[u8], b: &[u8]) -> Ordering {
    if a.len() <= 8 || b.len() <= 8 {
        // The first min(len) bytes are equal (the zero padding of the shorter one matches the
        // longer one's bytes): the shorter key is a prefix of the longer one.
        a.len().cmp(&b.len())
    } else {
        a[8..].cmp(&b[8..])
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
    #[inline]
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

    /// `true` if the bytes are stored inside the key (no heap allocation).
    #[inline]
    pub fn is_inline(&self) -> bool {
        matches!(self.repr, Repr::Inline { .. })
    }
}

impl PartialEq for Key {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.prefix == other.prefix && self.as_bytes() == other.as_bytes()
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
#[derive(Clone, Copy)]
pub struct Probe<'a> {
    prefix: u64,
    bytes: &'a [u8],
}

impl<'a> Probe<'a> {
    /// Prepares `bytes` for look-ups.
    #[inline(always)]
    pub fn new(bytes: &'a [u8]) -> Self {
        Probe {
            prefix: prefix_of(bytes),
            bytes,
        }
    }

    /// The probed bytes.
    #[inline]
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

impl fmt::Debug for Probe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Probe({:02x?})", self.bytes)
    }
}

impl Equivalent<Key> for Probe<'_> {
    #[inline(always)]
    fn equivalent(&self, key: &Key) -> bool {
        self.prefix == key.prefix && self.bytes == key.as_bytes()
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

/// Feeds the hash of key `bytes` with precomputed `prefix` into `state`.
#[inline(always)]
fn hash_key<H: Hasher>(prefix: u64, bytes: &[u8], state: &mut H) {
    state.write_u64(prefix);
    state.write_u64(bytes.len() as u64);
    if bytes.len() > 8 {
        state.write(&bytes[8..]);
    }
}

impl Hash for Key {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_key(self.prefix, self.as_bytes(), state);
    }
}

impl Hash for Probe<'_> {
    #[inline]
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
            seed: RandomState::new().hash_one(0x5eed_u64) | 1,
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

/// A fast hasher for short keys: a multiply-rotate mix per 8-byte word and a full avalanche at
/// the end (the hash index uses both high and low bits).
#[derive(Clone, Debug)]
pub struct KeyHasher(u64);

impl KeyHasher {
    #[inline(always)]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0 ^ word)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

impl Hasher for KeyHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let word = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
            self.mix(word);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(buf) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline(always)]
    fn write_u64(&mut self, word: u64) {
        self.mix(word);
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        // MurmurHash3 fmix64.
        let mut z = self.0;
        z = (z ^ (z >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        z = (z ^ (z >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        z ^ (z >> 33)
    }
}
