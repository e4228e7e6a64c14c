//! Value slots, their version chains, and which version a reader sees.
//!
//! The index maps each key to a [`Slot`] (held as `scc::Shared<Slot>`: the tree and the hash
//! index copy their values bitwise when they split a leaf or resize, so every copy must point at
//! the one slot that writers compare-and-swap; readers only dereference it and never touch its
//! reference count).
//!
//! A slot's `head` points to the newest [`Version`]; each version's `next` points to the one it
//! replaced (newest first). Versions are immutable once published except for `commit_ts` (stamped
//! by the writer's commit or abort) and `next` (cut by reclamation).
//!
//! # Stamps
//! - `txn_id`: the writing transaction ([`TXN_COMMITTED`] for versions written outside any
//!   transaction, e.g. by the store's own `upsert`).
//! - `commit_ts`: [`TS_PENDING`] while the writer runs; its commit timestamp once committed;
//!   [`TS_ABORTED`] once rolled back (after it was unlinked, for readers still holding it).
//!   [`TS_NONE`] (0) is "committed before everything": visible to every reader.
//!
//! # Visibility
//! A [`ReadView`] is a read timestamp plus the reader's own transaction id. A version is visible
//! when `commit_ts <= view.ts` or the reader wrote it; the reader sees the first visible version
//! walking from the head, and a tombstone there means "absent". Commit timestamps are published
//! in order (`crate::txn`), so a view never sees part of a commit: every version stamped with a
//! timestamp `<= view.ts` was stamped before the view's timestamp was published. Read-uncommitted
//! views use `ts = TS_PENDING`, which also admits running writers' versions but not aborted ones.
//!
//! # History
//! A transactional writer links its version in front of the old head (`next = old head`) with one
//! CAS; the first committed version that the oldest running snapshot can see is the *base*, and
//! everything behind it is cut off by [`Slot::prune`] (released through the epoch scheme). Writes
//! outside any transaction ([`TXN_COMMITTED`], the store's own API) keep no history.

use std::sync::atomic::{AtomicU64, Ordering};

use scc::{AtomicShared, Guard, Shared, Tag};
use sdd::Ptr;

/// `txn_id` of a version written outside any transaction.
pub const TXN_COMMITTED: u64 = 0;
/// `commit_ts` of a version committed before every snapshot (visible to all).
pub const TS_NONE: u64 = 0;
/// `commit_ts` of a version whose writer is still running.
pub const TS_PENDING: u64 = u64::MAX - 1;
/// `commit_ts` of a version whose writer rolled back (set after it was unlinked).
pub const TS_ABORTED: u64 = u64::MAX;
/// The largest read timestamp that sees only committed versions ([`ReadView::LATEST`]).
pub const TS_LATEST: u64 = TS_PENDING - 1;
/// Longest value stored inline in a [`Version`] (longer values take one heap allocation).
pub const INLINE_VALUE_LEN: usize = 30;

/// Tag of a slot's `head` (with a null pointer) once the slot has been unlinked or is being
/// unlinked from the tree: writers that meet it retry through the tree; readers see "absent".
pub const RETIRED: Tag = Tag::First;

/// What a reader may see: versions committed at or before `ts`, plus its own transaction's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadView {
    /// Read timestamp.
    pub ts: u64,
    /// The reader's transaction id ([`TXN_COMMITTED`] when it has written nothing).
    pub txn: u64,
}

impl ReadView {
    /// Every committed version, nothing uncommitted.
    ///
    /// cbindgen:ignore
    pub const LATEST: ReadView = ReadView { ts: TS_LATEST, txn: TXN_COMMITTED };

    /// A snapshot at `ts` for transaction `txn`.
    #[inline]
    pub const fn at(ts: u64, txn: u64) -> ReadView {
        ReadView { ts, txn }
    }

    /// Read-uncommitted: every version that is not rolled back.
    #[inline]
    pub const fn uncommitted(txn: u64) -> ReadView {
        ReadView { ts: TS_PENDING, txn }
    }

    /// Whether `version` is visible in this view.
    #[inline(always)]
    pub fn sees(&self, version: &Version) -> bool {
        // Versions written outside transactions carry id 0 and timestamp 0: the first test takes
        // them; a view's own id is never 0 when it has written.
        version.commit_ts.load(Ordering::Acquire) <= self.ts
            || (self.txn != TXN_COMMITTED && version.txn_id.load(Ordering::Relaxed) == self.txn)
    }
}

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

    /// A value of at most 16 bytes as the 16-byte block that starts it, and its length: a
    /// fixed-size read for callers that copy it (the bytes past the length are zeros or stale).
    #[inline(always)]
    pub fn short_block(&self) -> Option<(&[u8; 16], usize)> {
        match self {
            Data::Inline { len, buf } if *len <= 16 => Some((buf[..16].try_into().expect("16 bytes"), *len as usize)),
            _ => None,
        }
    }

    /// `true` for a tombstone.
    #[inline]
    pub fn is_tombstone(&self) -> bool {
        matches!(self, Data::Tombstone)
    }

    /// Bytes held outside the version itself.
    #[inline]
    pub fn heap_len(&self) -> usize {
        match self {
            Data::Heap(bytes) => bytes.len(),
            _ => 0,
        }
    }
}

/// One version of a key's value (or its removal).
pub struct Version {
    /// Writing transaction; [`TXN_COMMITTED`] when written outside transactions.
    pub txn_id: AtomicU64,
    /// Commit timestamp, [`TS_PENDING`] or [`TS_ABORTED`].
    pub commit_ts: AtomicU64,
    /// The value, or a tombstone.
    pub data: Data,
    /// The version this one replaced (older), or null.
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

    /// An uncommitted version of transaction `txn`, replacing `next`.
    #[inline]
    pub fn pending(data: Data, txn: u64, next: Option<Shared<Version>>) -> Self {
        Version {
            txn_id: AtomicU64::new(txn),
            commit_ts: AtomicU64::new(TS_PENDING),
            data,
            next: next.map_or_else(AtomicShared::null, AtomicShared::from),
        }
    }

    /// `true` when this version was committed before every snapshot.
    #[inline]
    pub fn is_globally_visible(&self) -> bool {
        self.commit_ts.load(Ordering::Acquire) == TS_NONE
    }

    /// The value `view` sees in the chain this version heads (`None`: absent or removed).
    ///
    /// The common case costs one comparison over reading the newest version: this version is
    /// committed before the view's timestamp and no walk is needed.
    #[inline(always)]
    pub fn value_in<'g>(&'g self, view: &ReadView, guard: &'g Guard) -> Option<&'g [u8]> {
        if self.commit_ts.load(Ordering::Acquire) <= view.ts {
            return self.data.bytes();
        }
        visible_below(self, *view, guard)?.data.bytes()
    }

    /// The payload `view` sees in the chain this version heads, tombstones included (`None`:
    /// nothing visible), as [`value_in`](Self::value_in) finds it.
    #[inline(always)]
    pub fn data_in<'g>(&'g self, view: &ReadView, guard: &'g Guard) -> Option<&'g Data> {
        if self.commit_ts.load(Ordering::Acquire) <= view.ts {
            return Some(&self.data);
        }
        Some(&visible_below(self, *view, guard)?.data)
    }

    /// Commits this version at `ts` (its writer's commit).
    #[inline]
    pub fn stamp(&self, ts: u64) {
        self.commit_ts.store(ts, Ordering::Release);
    }
}

/// The shared, stable home of one key's version chain.
///
/// Head states: null untagged = *pending* (inserted in the tree, not yet published, or emptied by
/// a rollback: absent); a version (value or tombstone); null tagged [`RETIRED`] = being or already
/// unlinked (absent, permanent). A slot whose head holds a version is in both indexes of its
/// `Index`.
pub struct Slot {
    /// Newest version; null while pending; null tagged [`RETIRED`] once retired.
    pub head: AtomicShared<Version>,
}

impl Slot {
    /// A slot whose chain is `first`.
    #[inline]
    pub fn new(first: Shared<Version>) -> Self {
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

    /// The value `view` sees (`None` if absent, removed or retired).
    #[inline(always)]
    pub fn value_in<'g>(&self, view: &ReadView, guard: &'g Guard) -> Option<&'g [u8]> {
        // A retired head is a null pointer: `as_ref` yields `None`.
        self.head.load(Ordering::Acquire, guard).as_ref()?.value_in(view, guard)
    }

    /// The version `view` sees (tombstones included), walking from the head.
    pub fn version_in<'g>(&self, view: ReadView, guard: &'g Guard) -> Option<&'g Version> {
        let head = self.head.load(Ordering::Acquire, guard).as_ref()?;
        if view.sees(head) {
            return Some(head);
        }
        visible_below(head, view, guard)
    }

    /// The newest committed value (phase-1 reads and tests).
    #[inline]
    pub fn latest_value<'g>(&self, guard: &'g Guard) -> Option<&'g [u8]> {
        self.value_in(&ReadView::LATEST, guard)
    }

    /// Cuts the history no reader can need: behind the first version committed at or before
    /// `oldest` (the oldest read timestamp of any running snapshot), nothing is visible to
    /// anyone. Returns the number of versions kept in front of the cut (the chain's length).
    ///
    /// Safe against concurrent writers, rollbacks and other pruners: only `next` of a committed
    /// version is swapped, readers walking the cut tail still hold it through their guard.
    pub fn prune(&self, oldest: u64, guard: &Guard) -> usize {
        let mut kept = 0;
        let mut cur = self.head.load(Ordering::Acquire, guard);
        while let Some(v) = cur.as_ref() {
            kept += 1;
            if v.commit_ts.load(Ordering::Acquire) <= oldest {
                if !v.next.load(Ordering::Acquire, guard).is_null() {
                    // Released through the epoch scheme when the last reference goes.
                    drop(v.next.swap((None, Tag::None), Ordering::AcqRel));
                }
                break;
            }
            cur = v.next.load(Ordering::Acquire, guard);
        }
        kept
    }

    /// Unlinks `version`, the uncommitted head written by a transaction that rolls back, and
    /// marks it aborted for readers that still hold it. Returns `false` if it was not the head
    /// (no other writer can stack on an uncommitted version, so that means a caller bug).
    pub fn unlink_pending(&self, version: Ptr<'_, Version>, guard: &Guard) -> bool {
        let Some(v) = version.as_ref() else { return false };
        let below = v.next.get_shared(Ordering::Acquire, guard);
        let done = self
            .head
            .compare_exchange(version, (below, Tag::None), Ordering::AcqRel, Ordering::Acquire, guard)
            .is_ok();
        if done {
            v.commit_ts.store(TS_ABORTED, Ordering::Release);
        }
        done
    }

    /// Number of versions in the chain and their payload bytes (diagnostics and tests).
    pub fn chain_stats(&self, guard: &Guard) -> (usize, usize) {
        let (mut n, mut bytes) = (0, 0);
        let mut cur = self.head.load(Ordering::Acquire, guard);
        while let Some(v) = cur.as_ref() {
            n += 1;
            bytes += std::mem::size_of::<Version>() + v.data.heap_len();
            cur = v.next.load(Ordering::Acquire, guard);
        }
        (n, bytes)
    }
}

/// The first version below `head` that `view` sees. Out of line: only reached when the head is
/// uncommitted or newer than the view.
#[inline(never)]
fn visible_below<'g>(head: &'g Version, view: ReadView, guard: &'g Guard) -> Option<&'g Version> {
    if view.sees(head) {
        return Some(head);
    }
    let mut cur = head.next.load(Ordering::Acquire, guard);
    while let Some(v) = cur.as_ref() {
        if view.sees(v) {
            return Some(v);
        }
        cur = v.next.load(Ordering::Acquire, guard);
    }
    None
}
