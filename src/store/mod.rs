//! The store: the in-memory ordered index of one table.
//!
//! - [`Index`] maps packed key bytes to a shared [`Slot`] holding the key's version chain, in an
//!   `scc::TreeIndex` (order) and a hash index (point look-ups: two `scc::HashIndex`es split by
//!   key length) that hold the same slots; the publication protocol that keeps them in agreement
//!   is in [`index`].
//! - Readers take no lock and write no shared memory: a hash probe (`get`) or a tree descent
//!   (`seek`, `first`, `last`) comparing inline [`Key`]s against a precomputed [`Probe`], then
//!   one atomic load of the slot head. Returned references live as long as the caller's
//!   [`scc::Guard`] (and the index).
//! - A write to an existing key is one compare-and-swap on its slot head (a new key also inserts
//!   its slot into the tree and the hash index). Writers of different keys share no lock; the
//!   tree and the hash index lock only the node or bucket they change.
//! - A removal installs a tombstone, then (policy in `Index::reclaim`) retires the slot with a
//!   CAS from that tombstone to a null head tagged [`RETIRED`] and unlinks it from both indexes.
//!   A writer that meets a retired head helps unlink and retries through the tree, so no
//!   concurrent write is lost: a write that wins its CAS before the retire CAS makes the retire
//!   CAS fail and the slot stays.
//! - Replaced versions are released through the epoch scheme, never freed while a `Guard` that
//!   could have loaded them is alive.
//!
//! See [`version`] for the version layout and how snapshot visibility plugs in.

pub mod index;
pub mod key;
pub mod version;

pub use index::{Exists, Index, Missing, Seek};
pub use key::{Key, KeyHashBuilder, Probe, INLINE_KEY_LEN};
pub use version::{Data, Slot, Version, INLINE_VALUE_LEN, RETIRED, TS_NONE, TXN_COMMITTED};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod stress_tests;

#[cfg(test)]
mod perf_tests;
