//! The store: the in-memory ordered index of one table.
//!
//! - [`Index`] maps packed key bytes to a shared [`Slot`] holding the key's version chain, in an
//!   `scc::TreeIndex` (immutable-entry B+ tree leaves, epoch reclamation).
//! - Readers take no lock and write no shared memory: a tree descent comparing inline [`Key`]s
//!   against a precomputed [`Probe`], then one atomic load of the slot head. Returned references
//!   live as long as the caller's [`scc::Guard`] (and the index).
//! - A write to a key is one compare-and-swap on its slot head (insert of a new key: one tree
//!   insertion of a fresh slot). Writers of different keys share no lock; the tree locks only
//!   nodes it splits or merges.
//! - A removal installs a tombstone, then (policy in `Index::reclaim`) retires the slot with a
//!   CAS from that tombstone to a null head tagged [`RETIRED`] and unlinks it from the tree.
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
pub use key::{Key, Probe, INLINE_KEY_LEN};
pub use version::{Data, Slot, Version, INLINE_VALUE_LEN, RETIRED, TS_NONE, TXN_COMMITTED};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod stress_tests;
