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
//! views also admit running writers' versions, but not aborted ones.
//!
//! # Application timestamps
//! Besides the engine's commit sequence (`commit_ts`), a version carries the application's
//! timestamps: `start_ts` (its transaction's `commit_timestamp`, [`TS_NONE`] without one) and
//! `durable_ts`. A view with a `read_ts` (a transaction begun with `read_timestamp=`) also
//! requires `start_ts <= read_ts`; views without one carry [`NO_READ_TS`], which every version
//! passes, so the common check stays two comparisons on one cache line.
//!
//! # Prepared versions
//! A prepared transaction's versions stay uncommitted (`commit_ts` [`TS_PENDING`]); `prepare`
//! sets their `start_ts` to the prepare timestamp and their `txn_id` to [`PREPARED`] plus the
//! commit sequence the prepare took. A reader whose snapshot is at or after that sequence, and
//! whose `read_ts` is at or after the prepare timestamp, meets a *prepare conflict*: the walk
//! stops and reports it ([`PREPARED_DATA`], [`PREPARED_VALUE`]) unless the view ignores prepared
//! versions. Older snapshots do not see them at all, as if they were still running.
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
/// `read_ts` of a view that reads at no application timestamp: every version passes.
pub const NO_READ_TS: u64 = u64::MAX;
/// Flag in a version's `txn_id` while its transaction is prepared (the low bits hold the commit
/// sequence the prepare took).
pub const PREPARED: u64 = 1 << 63;
/// Longest value stored inline in a [`Version`] (longer values take one heap allocation).
pub const INLINE_VALUE_LEN: usize = 30;

/// Tag of a slot's `head` (with a null pointer) once the slot has been unlinked or is being
/// unlinked from the tree: writers that meet it retry through the tree; readers see "absent".
pub const RETIRED: Tag = Tag::First;

/// What a reader may see: versions committed at or before `ts` (and, with a `read_ts`, at or
/// before that application timestamp), plus its own transaction's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadView {
    /// Read timestamp (the engine's commit sequence).
    pub ts: u64,
    /// The reader's transaction id ([`TXN_COMMITTED`] when it has written nothing).
    pub txn: u64,
    /// The application's read timestamp ([`NO_READ_TS`]: none).
    pub read_ts: u64,
    /// Read-uncommitted: running writers' versions are visible too.
    pub uncommitted: bool,
    /// `ignore_prepare`: prepared versions are passed over instead of conflicting.
    pub ignore_prepare: bool,
}

/// What every reader can see: versions committed at or before `seq` (the oldest running
/// snapshot) with an application timestamp at or before `ts` (the pinned timestamp). History
/// behind such a version can go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Horizon {
    /// The oldest snapshot any reader may use.
    pub seq: u64,
    /// The oldest application read timestamp any reader may use.
    pub ts: u64,
}

/// What a view makes of one version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// The version is visible.
    Visible,
    /// Not visible: look further down the chain.
    Hidden,
    /// A prepared version the view may not pass over.
    Prepared,
}

impl ReadView {
    /// Every committed version, nothing uncommitted.
    ///
    /// cbindgen:ignore
    pub const LATEST: ReadView = ReadView::at(TS_LATEST, TXN_COMMITTED);

    /// A snapshot at `ts` for transaction `txn`.
    #[inline]
    pub const fn at(ts: u64, txn: u64) -> ReadView {
        ReadView { ts, txn, read_ts: NO_READ_TS, uncommitted: false, ignore_prepare: false }
    }

    /// Read-uncommitted: every version that is not rolled back.
    #[inline]
    pub const fn uncommitted(txn: u64) -> ReadView {
        ReadView { ts: TS_LATEST, txn, read_ts: NO_READ_TS, uncommitted: true, ignore_prepare: false }
    }

    /// This view reading at application timestamp `read_ts` ([`NO_READ_TS`]: none).
    #[inline]
    pub const fn reading_at(self, read_ts: u64) -> ReadView {
        ReadView { read_ts, ..self }
    }

    /// Whether `version` is visible in this view (a prepared version is not).
    #[inline(always)]
    pub fn sees(&self, version: &Version) -> bool {
        self.judge(version) == Seen::Visible
    }

    /// What this view makes of `version`.
    #[inline(always)]
    pub fn judge(&self, version: &Version) -> Seen {
        // Versions written outside transactions carry id 0 and timestamp 0: the first test takes
        // them; a view's own id is never 0 when it has written.
        if version.commit_ts.load(Ordering::Acquire) <= self.ts {
            return if version.start_ts.load(Ordering::Relaxed) <= self.read_ts { Seen::Visible } else { Seen::Hidden };
        }
        self.judge_uncommitted(version)
    }

    /// [`judge`](Self::judge) for a version not committed in this snapshot.
    #[inline(never)]
    fn judge_uncommitted(&self, version: &Version) -> Seen {
        let id = version.txn_id.load(Ordering::Acquire);
        if self.txn != TXN_COMMITTED && id == self.txn {
            // Transactions read their own writes, whatever the timestamps.
            return Seen::Visible;
        }
        if version.commit_ts.load(Ordering::Acquire) != TS_PENDING {
            // Committed after the snapshot, or aborted.
            return Seen::Hidden;
        }
        if id & PREPARED != 0 {
            let seq = id & !PREPARED;
            let in_view = self.uncommitted || seq <= self.ts;
            if in_view && version.start_ts.load(Ordering::Relaxed) <= self.read_ts {
                return if self.ignore_prepare { Seen::Hidden } else { Seen::Prepared };
            }
            return Seen::Hidden;
        }
        if self.uncommitted { Seen::Visible } else { Seen::Hidden }
    }
}

/// The payload a walk reports for a prepared version the view may not pass over: a removal to
/// callers that do not ask, told apart by its address ([`is_prepared`]).
pub static PREPARED_DATA: Data = Data::Tombstone;
/// The value a walk reports for such a version where it returns value bytes: told apart by its
/// address ([`is_prepared_value`]).
pub static PREPARED_VALUE: [u8; 1] = [0];

/// Whether `data` is the [`PREPARED_DATA`] marker.
#[inline(always)]
pub fn is_prepared(data: &Data) -> bool {
    std::ptr::eq(data, &PREPARED_DATA)
}

/// Whether `value` is the [`PREPARED_VALUE`] marker.
#[inline(always)]
pub fn is_prepared_value(value: &[u8]) -> bool {
    std::ptr::eq(value.as_ptr(), PREPARED_VALUE.as_ptr())
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
    /// The application's commit timestamp ([`TS_NONE`]: none; the prepare timestamp while
    /// prepared).
    pub start_ts: AtomicU64,
    /// The application's durable timestamp ([`TS_NONE`]: none).
    pub durable_ts: AtomicU64,
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
            start_ts: AtomicU64::new(TS_NONE),
            durable_ts: AtomicU64::new(TS_NONE),
            data,
            next: AtomicShared::null(),
        }
    }

    /// What a tree held for a key before a merge at `seq` (`None`: nothing), as history visible
    /// from `seq` on at every application timestamp ([`Slot::add_base`]).
    pub fn base(data: Data, seq: u64) -> Self {
        Version {
            txn_id: AtomicU64::new(TXN_COMMITTED),
            commit_ts: AtomicU64::new(seq),
            start_ts: AtomicU64::new(TS_NONE),
            durable_ts: AtomicU64::new(TS_NONE),
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
            start_ts: AtomicU64::new(TS_NONE),
            durable_ts: AtomicU64::new(TS_NONE),
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
    /// A prepared version the view may not pass over gives [`PREPARED_VALUE`].
    #[inline(always)]
    pub fn value_in<'g>(&'g self, view: &ReadView, guard: &'g Guard) -> Option<&'g [u8]> {
        if self.commit_ts.load(Ordering::Acquire) <= view.ts && self.start_ts.load(Ordering::Relaxed) <= view.read_ts {
            return self.data.bytes();
        }
        match visible_below(self, *view, guard) {
            Below::Found(v) => v.data.bytes(),
            Below::Nothing => None,
            Below::Prepared => Some(&PREPARED_VALUE),
        }
    }

    /// The payload `view` sees in the chain this version heads, tombstones included (`None`:
    /// nothing visible), as [`value_in`](Self::value_in) finds it.
    /// A prepared version the view may not pass over gives [`PREPARED_DATA`].
    #[inline(always)]
    pub fn data_in<'g>(&'g self, view: &ReadView, guard: &'g Guard) -> Option<&'g Data> {
        if self.commit_ts.load(Ordering::Acquire) <= view.ts && self.start_ts.load(Ordering::Relaxed) <= view.read_ts {
            return Some(&self.data);
        }
        match visible_below(self, *view, guard) {
            Below::Found(v) => Some(&v.data),
            Below::Nothing => None,
            Below::Prepared => Some(&PREPARED_DATA),
        }
    }

    /// Commits this version at `ts` (its writer's commit).
    #[inline]
    pub fn stamp(&self, ts: u64) {
        self.commit_ts.store(ts, Ordering::Release);
    }

    /// Gives this uncommitted version the application's commit and durable timestamps, unless
    /// it has its own already (set when written, while the transaction had a commit timestamp).
    /// Before [`stamp`](Self::stamp), whose release store publishes them.
    #[inline]
    pub fn stamp_app(&self, commit: u64, durable: u64) {
        if self.start_ts.load(Ordering::Relaxed) == TS_NONE {
            self.start_ts.store(commit, Ordering::Relaxed);
            self.durable_ts.store(durable, Ordering::Relaxed);
        }
    }

    /// Marks this uncommitted version prepared at application timestamp `prepare_ts` and
    /// commit sequence `seq` (published when `seq` is).
    pub fn mark_prepared(&self, prepare_ts: u64, seq: u64) {
        self.start_ts.store(prepare_ts, Ordering::Relaxed);
        self.txn_id.store(PREPARED | seq, Ordering::Release);
    }

    /// Whether this version is committed, visible to every snapshot at or after `seq` and
    /// every read timestamp at or after `ts` (history behind it can go).
    #[inline]
    pub fn visible_to_all(&self, seq: u64, ts: u64) -> bool {
        self.commit_ts.load(Ordering::Acquire) <= seq && self.start_ts.load(Ordering::Relaxed) <= ts
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

    /// The version `view` sees (tombstones included), walking from the head; prepared
    /// versions are passed over.
    pub fn version_in<'g>(&self, view: ReadView, guard: &'g Guard) -> Option<&'g Version> {
        let head = self.head.load(Ordering::Acquire, guard).as_ref()?;
        match visible_below(head, ReadView { ignore_prepare: true, ..view }, guard) {
            Below::Found(v) => Some(v),
            _ => None,
        }
    }

    /// The newest committed value (phase-1 reads and tests).
    #[inline]
    pub fn latest_value<'g>(&self, guard: &'g Guard) -> Option<&'g [u8]> {
        self.value_in(&ReadView::LATEST, guard)
    }

    /// Cuts the history no reader can need: behind the first version committed at or before
    /// `oldest` (the oldest read timestamp of any running snapshot) with an application
    /// timestamp at or before `pinned` (the oldest application read timestamp any reader may
    /// use), nothing is visible to anyone. Returns the number of versions kept in front of the
    /// cut (the chain's length).
    ///
    /// Safe against concurrent writers, rollbacks and other pruners: only `next` of a committed
    /// version is swapped, readers walking the cut tail still hold it through their guard.
    pub fn prune(&self, oldest: u64, pinned: u64, guard: &Guard) -> usize {
        let mut kept = 0;
        let mut cur = self.head.load(Ordering::Acquire, guard);
        while let Some(v) = cur.as_ref() {
            kept += 1;
            if v.visible_to_all(oldest, pinned) {
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

    /// Puts `base` under the chain's oldest version unless that version is already visible at
    /// every application read timestamp at or after `pinned` (a merge that carries versions
    /// some readers may not see into the tree keeps, for those readers, what the tree held:
    /// see `crate::store::layered`). Returns whether it was added.
    pub fn add_base(&self, base: Shared<Version>, pinned: u64, guard: &Guard) -> bool {
        let Some(mut bottom) = self.head.load(Ordering::Acquire, guard).as_ref() else { return false };
        loop {
            if bottom.start_ts.load(Ordering::Relaxed) <= pinned && bottom.commit_ts.load(Ordering::Acquire) < TS_PENDING {
                return false;
            }
            match bottom.next.load(Ordering::Acquire, guard).as_ref() {
                Some(next) => bottom = next,
                None => break,
            }
        }
        bottom
            .next
            .compare_exchange(Ptr::null(), (Some(base), Tag::None), Ordering::AcqRel, Ordering::Acquire, guard)
            .is_ok()
    }

    /// `rollback_to_stable`: drops the versions at the head of the chain whose durable
    /// timestamp is after `stable` (no transaction runs meanwhile). Returns whether it changed
    /// the chain.
    pub fn roll_back_to(&self, stable: u64, guard: &Guard) -> bool {
        let head = self.head.load(Ordering::Acquire, guard);
        let mut keep = head;
        while let Some(v) = keep.as_ref() {
            let durable = v.durable_ts.load(Ordering::Relaxed).max(v.start_ts.load(Ordering::Relaxed));
            if durable <= stable {
                break;
            }
            keep = v.next.load(Ordering::Acquire, guard);
        }
        if keep == head {
            return false;
        }
        let kept = keep.get_shared();
        self.head.compare_exchange(head, (kept, Tag::None), Ordering::AcqRel, Ordering::Acquire, guard).is_ok()
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

/// What a walk down a chain found.
enum Below<'g> {
    /// The first version the view sees.
    Found(&'g Version),
    /// The view sees no version.
    Nothing,
    /// A prepared version stopped the walk.
    Prepared,
}

/// The first version from `head` down that `view` sees. Out of line: only reached when the
/// head is uncommitted or newer than the view.
#[inline(never)]
fn visible_below<'g>(head: &'g Version, view: ReadView, guard: &'g Guard) -> Below<'g> {
    let mut cur = head;
    loop {
        match view.judge(cur) {
            Seen::Visible => return Below::Found(cur),
            Seen::Prepared => return Below::Prepared,
            Seen::Hidden => {}
        }
        match cur.next.load(Ordering::Acquire, guard).as_ref() {
            Some(v) => cur = v,
            None => return Below::Nothing,
        }
    }
}
