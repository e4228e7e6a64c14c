//! Value slots and their version chains.
//!
//! The index maps each key to a [`Slot`] (held as `scc::Shared<Slot>`: the tree and the hash
//! index copy their values bitwise when they split a leaf or resize, so every copy must point at
//! the one slot that writers compare-and-swap; readers only dereference it and never touch its
//! reference count).
//!
//! A slot's `head` points to the newest [`Version`]; each version's `next` points to the one it
//! replaced (newest first). Versions are immutable once published except for their stamp fields,
//! which are atomics so that the transactions layer can stamp a commit in place.
//!
//! # Phase 1 (now)
//! Every write commits at once and is visible to all: versions are created with
//! `txn_id == TXN_COMMITTED` and `commit_ts == TS_NONE`, a write installs a version whose `next`
//! is null, and the replaced version is released through the epoch scheme (dropping its
//! `Shared` defers the free until no `Guard` that could have seen it is alive). The visible
//! version is simply the head ([`Slot::latest_value`]).
//!
//! # Snapshot visibility (transactions issue)
//! - A writer links the new version in front of the old one (`next = old head`) instead of
//!   dropping it, and stamps `txn_id` with its transaction id (an uncommitted id) before the CAS.
//!   Commit stores `commit_ts` and then flips `txn_id` to the committed marker or leaves the id
//!   for the snapshot check; abort replaces the head by its `next`.
//! - A reader with a snapshot walks from `head` along `next` and takes the first version whose
//!   `txn_id` its snapshot sees as committed and whose `commit_ts <= read_ts`; a tombstone there
//!   means "absent". That walk replaces [`Slot::latest_value`], the one place readers decide
//!   visibility today.
//! - History no longer visible to any snapshot is cut by swapping a `next` to null (the cut-off
//!   tail is released through the epoch scheme, like today's replaced versions).
//! - Writers decide "live or not" (for `insert_new`, `update_existing`, `remove`) from the head
//!   in one place, `Index::write`; with history that becomes the write-conflict check (head
//!   written by another uncommitted transaction, or committed after the writer's snapshot).
//! - A retired slot (head tagged [`RETIRED`]) stays as it is: retiring is only attempted by
//!   `Index::reclaim`, whose policy then becomes "only when the tombstone is visible to all".

use std::sync::atomic::{AtomicU64, Ordering};

use scc::{AtomicShared, Guard, Tag};

/// `txn_id` of a version that is committed and visible to every reader.
pub const TXN_COMMITTED: u64 = 0;
/// `commit_ts` of a version written without a timestamp.
pub const TS_NONE: u64 = 0;
/// Longest value stored inline in a [`Version`] (longer values take one heap allocation).
pub const INLINE_VALUE_LEN: usize = 30;

/// Tag of a slot's `head` (with a null pointer) once the slot has been unlinked or is being
/// unlinked from the tree: writers that meet it retry through the tree; readers see "absent".
pub const RETIRED: Tag = Tag::First;

/// The payload of a version.
pub enum Data {
    /// A value of at most [`INLINE_VALUE_LEN`] bytes.
    Inline {
        /// Value length.
        len: u8,
        /// Value bytes (first `len`).
        buf: [u8; INLINE_VALUE_LEN],
    },
    /// A longer value.
    Heap(Box<[u8]>),
    /// The key was removed.
    Tombstone,
}

impl Data {
    /// Copies `bytes` into a value payload.
    #[inline]
    pub fn value(bytes: &[u8]) -> Self {
        if bytes.len() <= INLINE_VALUE_LEN {
            let mut buf = [0u8; INLINE_VALUE_LEN];
            buf[..bytes.len()].copy_from_slice(bytes);
            Data::Inline {
                len: bytes.len() as u8,
                buf,
            }
        } else {
            Data::Heap(bytes.into())
        }
    }

    /// The value bytes, or `None` for a tombstone.
    #[inline(always)]
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Data::Inline { len, buf } => Some(&buf[..*len as usize]),
            Data::Heap(bytes) => Some(bytes),
            Data::Tombstone => None,
        }
    }

    /// `true` for a tombstone.
    #[inline]
    pub fn is_tombstone(&self) -> bool {
        matches!(self, Data::Tombstone)
    }
}

/// One version of a key's value (or its removal).
pub struct Version {
    /// Writing transaction; [`TXN_COMMITTED`]: committed and visible to all.
    pub txn_id: AtomicU64,
    /// Commit timestamp; [`TS_NONE`] when written without one.
    pub commit_ts: AtomicU64,
    /// The value, or a tombstone.
    pub data: Data,
    /// The version this one replaced (older), or null. Always null in phase 1.
    pub next: AtomicShared<Version>,
}

impl Version {
    /// A version committed and visible to all, with no history behind it.
    #[inline]
    pub fn committed(data: Data) -> Self {
        Version {
            txn_id: AtomicU64::new(TXN_COMMITTED),
            commit_ts: AtomicU64::new(TS_NONE),
            data,
            next: AtomicShared::null(),
        }
    }

    /// `true` when this version is visible to every reader (phase 1: always).
    #[inline]
    pub fn is_globally_visible(&self) -> bool {
        self.txn_id.load(Ordering::Acquire) == TXN_COMMITTED
    }
}

/// The shared, stable home of one key's version chain.
///
/// Head states: null untagged = *pending* (inserted in the tree, not yet published: absent);
/// a version (value or tombstone); null tagged [`RETIRED`] = being or already unlinked (absent,
/// permanent). A slot whose head holds a version is in both indexes of its `Index`.
pub struct Slot {
    /// Newest version; null while pending; null tagged [`RETIRED`] once retired.
    pub head: AtomicShared<Version>,
}

impl Slot {
    /// A slot whose chain is `first`.
    #[inline]
    pub fn new(first: scc::Shared<Version>) -> Self {
        Slot {
            head: AtomicShared::from(first),
        }
    }

    /// A slot still being published: null head without tag (readers see "absent").
    #[inline]
    pub fn pending() -> Self {
        Slot {
            head: AtomicShared::null(),
        }
    }

    /// The value a reader sees: phase 1 visibility (latest committed version; `None` if it is a
    /// tombstone or the slot is retired). The transactions issue replaces this with a snapshot
    /// walk along `next`.
    #[inline(always)]
    pub fn latest_value<'g>(&self, guard: &'g Guard) -> Option<&'g [u8]> {
        // A retired head is a null pointer: `as_ref` yields `None`.
        self.head
            .load(Ordering::Acquire, guard)
            .as_ref()?
            .data
            .bytes()
    }
}
