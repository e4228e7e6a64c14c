//! The store: the in-memory ordered index of one table.
//!
//! - [`Index`] maps packed key bytes to a shared [`Slot`] holding the key's version chain, in an
//!   ordered index of our own ([`ordered`]: a B+tree read without locks) and a hash index (point
//!   look-ups: two `scc::HashIndex`es split by key length) that hold the same slots; the
//!   publication protocol that keeps them in agreement is in [`index`].
//! - Readers take no lock and write no shared memory: a hash probe (`read`) or a tree descent
//!   (`seek`, `first`, `last`) comparing inline [`Key`]s against a precomputed [`Probe`], then
//!   one atomic load of the slot head and a visibility check against the caller's [`ReadView`]
//!   (a walk down the version chain only when the head is too new). Returned references live as
//!   long as the caller's [`scc::Guard`] (and the index).
//! - A write to an existing key is one compare-and-swap on its slot head (a new key also inserts
//!   its slot into the tree and the hash index), after the one conflict and existence check
//!   (`Index::write`). Writers of different keys share no lock; the tree and the hash index
//!   lock only the node or bucket they change.
//! - A removal installs a tombstone; once every reader sees it (`Index::retire_if_removed`, or
//!   at once for writes outside transactions) the slot is retired with a CAS from that tombstone
//!   to a null head tagged [`RETIRED`] and unlinked from both indexes. A writer that meets a
//!   retired head helps unlink and retries through the tree, so no concurrent write is lost: a
//!   write that wins its CAS before the retire CAS makes the retire CAS fail and the slot stays.
//! - History behind the oldest snapshot's base version is cut by `Slot::prune`; cut and replaced
//!   versions are released through the epoch scheme, never freed while a `Guard` that could have
//!   loaded them is alive.
//!
//! See [`version`] for the version layout and the visibility rule; `crate::txn` decides the
//! timestamps, snapshots and reclamation horizon.

pub mod collate;
pub mod index;
pub mod key;
pub mod layered;
pub mod ordered;
pub mod prefixes;
pub mod version;

pub use collate::{Collate, Collator};
pub use index::{Exists, Index, Missing, Mode, Refused, Seek, VersionStats, WriteCtx, Written};
pub use key::{Key, KeyHashBuilder, Probe, INLINE_KEY_LEN};
pub use layered::{prepare_conflict, Layers, SeekHint};
pub use version::{
    is_prepared, is_prepared_value, Data, Horizon, ReadView, Seen, Slot, Version, INLINE_VALUE_LEN, NO_READ_TS, PREPARED,
    RETIRED, TS_ABORTED, TS_LATEST, TS_NONE, TS_PENDING, TXN_COMMITTED,
};

#[cfg(test)]
mod tests;

#[cfg(test)]
mod collate_tests;

#[cfg(test)]
mod stress_tests;

#[cfg(test)]
mod mvcc_tests;

#[cfg(test)]
mod perf_tests;

#[cfg(test)]
mod layered_tests;

#[cfg(test)]
mod prefix_tests;
