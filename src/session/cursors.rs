//! The session's cursors and the session-wide rules that span them: the reset walks and the
//! count of positioned cursors.

use std::time::Instant;

use std::ptr::NonNull;

use crate::cursor::{Cursor, Exact, Modification};
use crate::error::{Kind, Result};
use crate::stats::counters::{ConnStat, DsrcStat};
use crate::pack::Format;
use crate::store::{collate, ReadView};
use crate::txn::{Isolation, Txn};

use super::cache::{CursorCache, Sweep, SweepReport};
use super::pinned::Pinned;
use super::txn::search_again;
use super::Session;

/// A cursor's index in its session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CursorId(pub usize);

/// A cursor of the session, open or parked in the cursor cache, with what the session keeps
/// about it. Entries live at fixed addresses (`Pinned`): the C layer's handle points at its
/// entry, so that `close` finds it without the slab. Aligned to its own cache lines: entries
/// outlive their session (spares, see `CursorSet`), and no other thread's allocation may share
/// a line that the owner writes on every call.
#[repr(align(128))]
pub struct Entry {
    cursor: Cursor,
    /// The URI the cursor was opened with, exactly (the cache's key), and its hash.
    uri: Box<str>,
    hash: u64,
    /// Whether closing may park the cursor in the cache (decided when it was built).
    cacheable: bool,
    /// Parked in the cache: closed as far as the application is concerned.
    cached: bool,
    /// Order of opening within the session (larger = newer; a reopen from the cache counts as
    /// an opening), for the session's reset walk.
    seq: u64,
}

impl Entry {
    /// Resets the cursor and marks it parked: counts the cache-close on its table and lets the
    /// table be dropped. Returns whether the cursor was positioned. Calls nothing when the
    /// cursor `resets_quickly`.
    #[inline(always)]
    fn park(&mut self) -> bool {
        let was_positioned = self.cursor.is_positioned();
        self.cursor.reset();
        self.cached = true;
        let table_use = self.cursor.table_use();
        table_use.stats.add(DsrcStat::CacheCloses, 1);
        // A parked cursor no longer keeps its table from being dropped.
        self.cursor.table().release(table_use);
        was_positioned
    }

    /// Marks the cursor open again, as the session's newest (open order `seq`).
    #[inline(always)]
    fn reopen(&mut self, seq: u64) {
        self.cached = false;
        self.seq = seq;
    }
}

/// Most cursors a closed session keeps as spares for the next session of its slot.
const SPARES_KEPT: usize = 8;

/// A slab of cursors (open, cached and spare), the cursor cache, and the number currently
/// positioned.
///
/// Spares are the cursors a closed session had cached, kept with their handles and buffers when
/// the session's memory is kept for the next session of its slot (`Session::park`). They are
/// closed (marked `cached`, so that a stale handle's `close` is refused as for a cached cursor)
/// but not in the cache: a new session's cache starts empty, as the API requires, and a spare
/// only spares `open_cursor` the building of a cursor, which counts as a new one.
#[derive(Default)]
pub struct CursorSet {
    slab: Vec<Option<Pinned<Entry>>>,
    free: Vec<usize>,
    cache: CursorCache,
    spares: Vec<CursorId>,
    positioned: usize,
    next_seq: u64,
}

impl CursorSet {
    /// Adds `cursor`, opened with `uri`; `cacheable` says whether closing it may park it in the
    /// cache.
    pub fn add(&mut self, uri: &str, cacheable: bool, cursor: Cursor) -> CursorId {
        self.next_seq += 1;
        let entry = Pinned::new(Entry {
            cursor,
            uri: uri.into(),
            hash: self.cache.hash(uri.as_bytes()),
            cacheable,
            cached: false,
            seq: self.next_seq,
        });
        match self.free.pop() {
            Some(i) => {
                self.slab[i] = Some(entry);
                CursorId(i)
            }
            None => {
                self.slab.push(Some(entry));
                CursorId(self.slab.len() - 1)
            }
        }
    }

    fn entry(&self, id: CursorId) -> &Entry {
        self.slab[id.0].as_ref().expect("cursor ids are valid while the cursor exists")
    }

    fn entry_mut(&mut self, id: CursorId) -> &mut Entry {
        self.slab[id.0].as_mut().expect("cursor ids are valid while the cursor exists")
    }

    /// Removes a cursor for good.
    pub fn remove(&mut self, id: CursorId) -> Cursor {
        let entry = self.slab[id.0].take().expect("cursor ids are valid while the cursor exists");
        if entry.cursor.is_positioned() {
            self.positioned -= 1;
        }
        self.free.push(id.0);
        entry.into_inner().cursor
    }

    /// A cursor.
    pub fn get(&self, id: CursorId) -> &Cursor {
        &self.entry(id).cursor
    }

    /// A cursor, for calls that do not change whether it is positioned.
    pub fn get_mut(&mut self, id: CursorId) -> &mut Cursor {
        &mut self.entry_mut(id).cursor
    }

    /// The addresses of cursor `id` and of its entry, fixed until it is removed: the C layer
    /// keeps them in the cursor's handle (see `Pinned`).
    pub fn addresses(&self, id: CursorId) -> (NonNull<Cursor>, NonNull<Entry>) {
        let entry = self.slab[id.0].as_ref().expect("cursor ids are valid while the cursor exists").as_ptr();
        // SAFETY: a field of a live entry, addressed without making a reference to it.
        let cursor = unsafe { NonNull::new_unchecked(std::ptr::addr_of_mut!((*entry.as_ptr()).cursor)) };
        (cursor, entry)
    }

    /// The URI a cursor was opened with.
    pub fn uri(&self, id: CursorId) -> &str {
        &self.entry(id).uri
    }

    /// Runs `f` on one cursor, keeping the positioned count right.
    #[inline(always)]
    pub fn with<T>(&mut self, id: CursorId, f: impl FnOnce(&mut Cursor) -> T) -> T {
        let cursor = &mut self.slab[id.0].as_mut().expect("cursor ids are valid while the cursor exists").cursor;
        let before = cursor.is_positioned();
        let out = f(cursor);
        match (before, cursor.is_positioned()) {
            (false, true) => self.positioned += 1,
            (true, false) => self.positioned -= 1,
            _ => {}
        }
        out
    }

    /// Number of positioned cursors.
    #[inline]
    pub fn positioned(&self) -> usize {
        self.positioned
    }

    /// Number of open (not cached, not spare) cursors.
    #[inline]
    pub fn open_count(&self) -> usize {
        self.slab.len() - self.free.len() - self.cache.len() - self.spares.len()
    }

    /// A new session's cursors, from those of a closed one (spares aside, none is left): the
    /// cache starts again.
    pub fn restart(&mut self) {
        debug_assert_eq!(self.open_count(), 0);
        self.cache.restart();
    }

    /// Keeps cursor `id`, just taken out of the cache, as a spare; returns the spare it
    /// displaces (the oldest) once [`SPARES_KEPT`] are kept, for the caller to remove.
    pub fn keep_spare(&mut self, id: CursorId) -> Option<CursorId> {
        let entry = self.entry_mut(id);
        entry.cached = true;
        self.spares.push(id);
        (self.spares.len() > SPARES_KEPT).then(|| self.spares.remove(0))
    }

    /// Takes the newest spare opened with exactly `uri`, with its table and use record.
    pub fn take_spare(&mut self, uri: &[u8]) -> Option<CursorId> {
        let slab = &self.slab;
        let at = self.spares.iter().rposition(|&id| same_uri(slab, id, uri))?;
        Some(self.spares.remove(at))
    }

    /// Opens spare `id` (taken by [`take_spare`](Self::take_spare)) as a new cursor: the
    /// session's newest, with `config`.
    pub fn revive(&mut self, id: CursorId, cacheable: bool, config: crate::cursor::CursorConfig) {
        self.next_seq += 1;
        let seq = self.next_seq;
        let entry = self.entry_mut(id);
        entry.cacheable = cacheable;
        entry.reopen(seq);
        entry.cursor.reopen(config);
    }

    /// Takes the spares whose table was dropped, appending their ids to `out`.
    pub fn take_spares_of_dropped(&mut self, out: &mut Vec<CursorId>) {
        let slab = &self.slab;
        self.spares.retain(|&id| {
            let dropped = slab[id.0].as_ref().is_some_and(|e| e.cursor.table().is_dropped());
            if dropped {
                out.push(id);
            }
            !dropped
        });
    }

    /// Takes every spare, appending their ids to `out`.
    pub fn take_spares(&mut self, out: &mut Vec<CursorId>) {
        out.append(&mut self.spares);
    }

    /// Ids of the open (not cached) cursors.
    pub fn ids(&self) -> Vec<CursorId> {
        self.open_entries().map(|(i, _)| CursorId(i)).collect()
    }

    fn open_entries(&self) -> impl Iterator<Item = (usize, &Entry)> {
        self.slab.iter().enumerate().filter_map(|(i, e)| e.as_deref().filter(|e| !e.cached).map(|e| (i, e)))
    }

    /// Resets every open cursor (rollback, session reset and reconfigure: the documented
    /// contract); `positioned` sees each cursor that was on a record first.
    pub fn reset_all(&mut self, mut positioned: impl FnMut(&Cursor)) {
        for entry in self.slab.iter_mut().flatten().filter(|e| !e.cached) {
            if entry.cursor.is_positioned() {
                positioned(&entry.cursor);
            }
            entry.cursor.reset();
        }
        self.positioned = 0;
    }

    /// The reference's walk after a failed auto-commit write: newest cursor first, resetting
    /// each, until no cursor of the session is positioned (traces/README.md §5.4-5.5).
    pub fn reset_walk(&mut self) {
        let mut order: Vec<(u64, usize)> = self.open_entries().map(|(i, e)| (e.seq, i)).collect();
        order.sort_unstable_by(|a, b| b.cmp(a));
        for (_, i) in order {
            if self.positioned == 0 {
                break;
            }
            self.with(CursorId(i), Cursor::reset);
        }
    }

    /// `close` through the cache: when `caching` and the cursor is cacheable, resets and parks
    /// it and returns `Some(sweep_due)` (whether a small sweep is due by count); `None` leaves
    /// the cursor for the caller to close for good. A cursor already parked was closed before:
    /// `ENOTSUP`.
    pub fn park(&mut self, id: CursorId, caching: bool) -> Result<Option<bool>> {
        let entry = self.slab[id.0].as_mut().expect("cursor ids are valid while the cursor exists");
        if entry.cached {
            // The application closed this handle already (the reference crashes here).
            return Err(crate::error::Error::unsupported("Cursor has been closed"));
        }
        if !(caching && entry.cacheable) {
            return Ok(None);
        }
        Ok(Some(self.park_open(id)))
    }

    /// [`park`](Self::park) in the common case, where it can only succeed and calls nothing:
    /// parks cursor `id`, whose entry is `entry` (reached by the caller through its address),
    /// if the session caches cursors, the cursor is open and cacheable and the slot of the
    /// cursor parked last is free, and returns `Some(sweep_due)` (as `park`); otherwise
    /// changes nothing and returns None. Never panics.
    #[inline(always)]
    pub fn park_quick(&mut self, id: CursorId, entry: &mut Entry, caching: bool) -> Option<bool> {
        if entry.cached || !(caching && entry.cacheable) || !self.cache.parks_quickly() {
            return None;
        }
        if !entry.cursor.resets_quickly() {
            return None;
        }
        if entry.park() {
            self.positioned -= 1;
        }
        Some(self.cache.park_quickly(entry.hash, id))
    }

    /// Resets and parks open, cacheable cursor `id`; returns whether a small sweep is due.
    #[inline(always)]
    fn park_open(&mut self, id: CursorId) -> bool {
        let entry = self.slab[id.0].as_mut().expect("cursor ids are valid while the cursor exists");
        if entry.park() {
            self.positioned -= 1;
        }
        self.cache.park(entry.hash, id)
    }

    /// Takes a parked cursor opened with exactly `uri`; it is open again.
    #[inline(always)]
    pub fn unpark(&mut self, uri: &[u8]) -> Option<(CursorId, &mut Cursor)> {
        if self.cache.is_empty() {
            return None;
        }
        let slab = &self.slab;
        let id = match self.cache.take_latest(|id| same_uri(slab, id, uri)) {
            Some(id) => id,
            None => self.unpark_hashed(uri)?,
        };
        self.next_seq += 1;
        let seq = self.next_seq;
        let entry = self.entry_mut(id);
        entry.reopen(seq);
        Some((id, &mut entry.cursor))
    }

    /// [`unpark`](Self::unpark) of the cursor parked last, when it was opened with `uri` and
    /// `admit` accepts it (the caller's table check, which may not change anything when it
    /// refuses); otherwise changes nothing and returns None. Calls nothing, never panics.
    #[inline(always)]
    pub fn unpark_latest_quick(
        &mut self,
        uri: &[u8],
        admit: impl FnOnce(&mut Cursor) -> bool,
    ) -> Option<(CursorId, &mut Cursor)> {
        let id = self.cache.latest()?;
        let Some(Some(entry)) = self.slab.get_mut(id.0) else { return None };
        let entry: &mut Entry = entry;
        if !entry.cached || !bytes_eq(entry.uri.as_bytes(), uri) || !admit(&mut entry.cursor) {
            return None;
        }
        self.cache.take_latest_quickly();
        self.next_seq += 1;
        entry.reopen(self.next_seq);
        Some((id, &mut entry.cursor))
    }

    /// The look-up by hash, when the cursor parked last is not for `uri`. Out of line: the
    /// common loop on one URI then carries none of the hashing.
    #[inline(never)]
    fn unpark_hashed(&mut self, uri: &[u8]) -> Option<CursorId> {
        let slab = &self.slab;
        self.cache.take(self.cache.hash(uri), |id| same_uri(slab, id, uri))
    }

    /// Takes every parked cursor out of the cache, appending their ids to `out`.
    pub fn unpark_all(&mut self, out: &mut Vec<CursorId>) {
        let start = out.len();
        self.cache.drain(|id| out.push(id));
        for &id in &out[start..] {
            self.entry_mut(id).cached = false;
        }
    }

    /// Runs a sweep of `kind` if one is due: parked cursors for which `stale` holds are removed
    /// from the cache and returned; the others' retained buffers are released.
    pub fn sweep(&mut self, kind: Sweep, stale: impl Fn(&Cursor) -> bool) -> Option<(SweepReport, Vec<CursorId>)> {
        self.cache.sweep_due(kind, Instant::now())?;
        let mut gone = Vec::new();
        let slab = &mut self.slab;
        let report = self.cache.sweep(
            kind,
            |id| {
                let entry = slab[id.0].as_mut().expect("parked cursors exist");
                entry.cursor.release_buffers();
                stale(&entry.cursor)
            },
            |id| gone.push(id),
        );
        for &id in &gone {
            self.entry_mut(id).cached = false;
        }
        Some((report, gone))
    }
}

/// The quick search of `cursor` in `view` (see `Session::search_quick`): when the key is found,
/// lands on it, counts the search on the table and keeps `positioned` right; otherwise
/// changes nothing.
#[inline(always)]
fn found_quickly(cursor: &mut Cursor, positioned: &mut usize, epoch: u64, view: &ReadView) -> bool {
    let was_positioned = cursor.is_positioned();
    if !cursor.search_quick(epoch, view) {
        return false;
    }
    cursor.table_use().stats.add(SEARCH.table_calls, 1);
    if !was_positioned {
        *positioned += 1;
    }
    true
}

/// Whether slab entry `id` is a parked cursor opened with `uri`.
#[inline]
fn same_uri(slab: &[Option<Pinned<Entry>>], id: CursorId, uri: &[u8]) -> bool {
    slab[id.0].as_ref().is_some_and(|e| e.cached && bytes_eq(e.uri.as_bytes(), uri))
}

/// `a == b`, with the URIs of most tables (8 to 16 bytes) compared inline as two words each
/// instead of through `memcmp`.
#[inline(always)]
fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if (8..=16).contains(&n) {
        let word = |s: &[u8], at: usize| u64::from_ne_bytes(s[at..at + 8].try_into().expect("8 bytes"));
        return word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8);
    }
    a == b
}

/// Whether an error came from the write itself rather than from checking its arguments.
fn reached_data(kind: Kind) -> bool {
    matches!(kind, Kind::NotFound | Kind::DuplicateKey | Kind::Rollback)
}

/// The statistics one kind of cursor call counts: calls (connection and data source) and
/// failed calls (connection; `WT_NOTFOUND` is not a failure there).
struct Counted {
    calls: ConnStat,
    errors: ConnStat,
    table_calls: DsrcStat,
}

const SEARCH: Counted = Counted { calls: ConnStat::Searches, errors: ConnStat::SearchErrors, table_calls: DsrcStat::Searches };
const SEARCH_NEAR: Counted =
    Counted { calls: ConnStat::SearchNears, errors: ConnStat::SearchNearErrors, table_calls: DsrcStat::SearchNears };
const NEXT: Counted = Counted { calls: ConnStat::Nexts, errors: ConnStat::NextErrors, table_calls: DsrcStat::Nexts };
const PREV: Counted = Counted { calls: ConnStat::Prevs, errors: ConnStat::PrevErrors, table_calls: DsrcStat::Prevs };

/// A write call's statistics, plus the byte counts it adds.
struct CountedWrite {
    counted: Counted,
    /// The bytes statistics (connection, table), for the writes that count bytes.
    bytes: Option<(ConnStat, DsrcStat)>,
    /// Whether the value's size counts too (insert, update) or only the key's (remove).
    with_value: bool,
}

const INSERT: CountedWrite = CountedWrite {
    counted: Counted { calls: ConnStat::Inserts, errors: ConnStat::InsertErrors, table_calls: DsrcStat::Inserts },
    bytes: Some((ConnStat::InsertBytes, DsrcStat::InsertBytes)),
    with_value: true,
};
const UPDATE: CountedWrite = CountedWrite {
    counted: Counted { calls: ConnStat::Updates, errors: ConnStat::UpdateErrors, table_calls: DsrcStat::Updates },
    bytes: Some((ConnStat::UpdateBytes, DsrcStat::UpdateBytes)),
    with_value: true,
};
const REMOVE: CountedWrite = CountedWrite {
    counted: Counted { calls: ConnStat::Removes, errors: ConnStat::RemoveErrors, table_calls: DsrcStat::Removes },
    bytes: Some((ConnStat::RemoveBytes, DsrcStat::RemoveBytes)),
    with_value: false,
};

const MODIFY: CountedWrite = CountedWrite {
    counted: Counted { calls: ConnStat::Modifies, errors: ConnStat::ModifyErrors, table_calls: DsrcStat::Modifies },
    bytes: Some((ConnStat::ModifyBytes, DsrcStat::ModifyBytes)),
    with_value: true,
};
const RESERVE: CountedWrite = CountedWrite {
    counted: Counted { calls: ConnStat::Reserves, errors: ConnStat::ReserveErrors, table_calls: DsrcStat::Reserves },
    // Nothing is written: no byte count.
    bytes: None,
    with_value: false,
};

/// What [`Session::close_cursor_quick`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuickClose {
    /// Nothing: the caller closes the cursor the general way.
    No,
    /// Parked, and that was all.
    Done,
    /// Parked; [`Session::close_finish`] must run next.
    Finish,
}

/// What [`Session::reuse_latest_quick`] left to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuickOpen {
    /// Nothing.
    Done,
    /// [`Session::open_finish`] must run next.
    Finish,
}

/// What closing a cursor did with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// Parked in the session's cursor cache: its handle stays for a later `open_cursor`.
    Cached,
    /// Gone.
    Freed,
}

impl Session {
    /// Counts one call of kind `what` on cursor `id` and, when it failed other than with
    /// `WT_NOTFOUND`, one failed call.
    #[inline(always)]
    fn count<T>(&self, id: CursorId, what: &Counted, out: &Result<T>) {
        let failed = matches!(out, Err(e) if e.kind() != Kind::NotFound);
        self.stats().record([(what.calls, 1), (what.errors, i64::from(failed))]);
        self.cursors.get(id).table_use().stats.add(what.table_calls, 1);
    }

    /// A read-type cursor call, in the session's read view (`op` also gets the transaction
    /// state, for searches that may refresh it): on failure the cursor keeps only what the
    /// application set.
    pub(super) fn read<T>(
        &mut self,
        id: CursorId,
        op: impl FnOnce(&mut Cursor, u64, ReadView, &mut Txn) -> Result<T>,
    ) -> Result<T> {
        if self.txn.is_prepared() {
            return Err(super::txn::prepared());
        }
        let epoch = self.copy_epoch;
        let view = self.txn.read_view();
        let (txn, caller) = (&mut self.txn, self.caller);
        let out = self.cursors.with(id, |c| {
            collation_scope(c, caller);
            let out = op(c, epoch, view, txn);
            let out = collation_checked(c, epoch, out);
            // A prepare conflict leaves the cursor where it was (a step tries again from there).
            if out.as_ref().is_err_and(|e| e.kind() != Kind::PrepareConflict) {
                c.fail(epoch);
            }
            out
        });
        if let Err(e) = &out {
            self.read_failed(e.kind());
        }
        out
    }

    /// A write-type cursor call, in the session's transaction or auto-committed (rules after
    /// it: `Session::write_done`). A call refused before it reached the data (missing key or
    /// value, a read-only cursor, an isolation that cannot write) only fails its own cursor.
    /// Counted with the key and value sizes as stored, whether or not it succeeds
    /// (statistics.md §5).
    fn write(
        &mut self,
        id: CursorId,
        what: &CountedWrite,
        op: impl FnOnce(&mut Cursor, u64, &mut Txn) -> Result<()>,
    ) -> Result<()> {
        let bytes = {
            let c = self.cursors.get(id);
            let key = c.key_bytes().map_or(0, <[u8]>::len);
            let value = if what.with_value { c.value_bytes().map_or(0, <[u8]>::len) } else { 0 };
            (key + value) as i64
        };
        // An isolation that cannot write refuses the write after the auto-commit transaction
        // began, so the refusal runs the reset walk as a failed write does (unlike argument
        // errors, and the ENOTSUP of a read-only cursor).
        if self.txn.is_prepared() {
            return Err(super::txn::prepared());
        }
        let refusing = !self.txn.can_write() && !self.cursors.get(id).config().readonly;
        if refusing
            && self.txn.effective_isolation() == Isolation::ReadCommitted
            && self.cursors.positioned() == 1
            && self.cursors.get(id).is_positioned()
        {
            // At read-committed the writing cursor gives its position up first, as a search does
            // (§5.7): when it was the only one positioned, the existence checks see a fresh
            // snapshot (difftest seed 157).
            let _ = self.txn.fresh_view();
        }
        let epoch = self.copy_epoch;
        let (txn, caller) = (&mut self.txn, self.caller);
        let out = self.cursors.with(id, |c| {
            collation_scope(c, caller);
            let out = op(c, epoch, txn);
            let out = collation_checked(c, epoch, out);
            if let Err(e) = &out {
                // A missing key or value (EINVAL) is refused before the write starts and leaves
                // the cursor as it was, position included (difftest seed 3).
                if !reached_data(e.kind()) && e.kind() != Kind::Invalid {
                    c.fail(epoch);
                }
            }
            out
        });
        let failed = matches!(&out, Err(e) if e.kind() != Kind::NotFound);
        let counted = &what.counted;
        let calls = [(counted.calls, 1), (counted.errors, i64::from(failed))];
        let table_stats = &self.cursors.get(id).table_use().stats;
        table_stats.add(counted.table_calls, 1);
        match what.bytes {
            Some((conn_bytes, table_bytes)) => {
                table_stats.add(table_bytes, bytes);
                self.stats().record([calls[0], calls[1], (conn_bytes, bytes)]);
            }
            None => self.stats().record(calls),
        }
        let reached = out
            .as_ref()
            .err()
            .is_some_and(|e| reached_data(e.kind()) || (refusing && e.kind() == Kind::NotSupported));
        self.write_done(&out, reached);
        out
    }

    /// The common `WT_CURSOR::search`: a key found in the read view the session holds, on
    /// `cursor` (one of this session's open cursors, which the C layer reaches directly).
    /// Returns true when done (positioned and counted); false, with nothing changed, when the
    /// caller must run [`search`](Self::search) (no view held, a miss, a missing key).
    #[inline(always)]
    pub fn search_quick(&mut self, cursor: &mut Cursor) -> bool {
        if !self.txn.search_ready() {
            return false;
        }
        if !found_quickly(cursor, &mut self.cursors.positioned, self.copy_epoch, self.txn.held_view()) {
            return false;
        }
        self.txn.stats_slot().record([(SEARCH.calls, 1)]);
        true
    }

    /// `WT_CURSOR::search`: the quick path of [`search_quick`](Self::search_quick) for cursor
    /// `id`, else the full read-snapshot rules (`read_or_refresh`), counted.
    #[inline(always)]
    pub fn search(&mut self, id: CursorId) -> Result<()> {
        if self.txn.search_ready() {
            let (epoch, view) = (self.copy_epoch, self.txn.held_view());
            let cursors = &mut self.cursors;
            if let Some(Some(entry)) = cursors.slab.get_mut(id.0) {
                if found_quickly(&mut entry.cursor, &mut cursors.positioned, epoch, view) {
                    self.txn.stats_slot().record([(SEARCH.calls, 1)]);
                    return Ok(());
                }
            }
        }
        self.search_slow(id)
    }

    /// [`search`](Self::search) under the full rules.
    #[cold]
    #[inline(never)]
    fn search_slow(&mut self, id: CursorId) -> Result<()> {
        let out = self.refuse_keyless(id).and_then(|()| self.read_or_refresh(id, search_again));
        self.count(id, &SEARCH, &out);
        out
    }

    /// `WT_CURSOR::search_near`.
    pub fn search_near(&mut self, id: CursorId) -> Result<Exact> {
        let out = self.refuse_keyless(id).and_then(|()| self.read_or_refresh(id, Cursor::search_near));
        self.count(id, &SEARCH_NEAR, &out);
        out
    }

    /// [`Cursor::land_at_or_after`] for internal cursor `id` (an index cursor's scan), counted
    /// as the `search_near` it stands for.
    pub(super) fn land_at_or_after(&mut self, id: CursorId, prefix: &[u8]) -> Result<Option<bool>> {
        let out = self.read_or_refresh(id, |c, epoch, view, fresh| c.land_at_or_after(prefix, epoch, view, fresh));
        self.count(id, &SEARCH_NEAR, &out);
        out
    }

    /// [`Cursor::land_by_row`] for index scan `scan`, whose rows internal cursor `rows` reads
    /// in `store`: when it lands, counted as the `search_near` of the scan and the `search` of
    /// `rows` that the general path makes; when it does not, nothing happened.
    pub(super) fn land_by_row(
        &mut self,
        scan: CursorId,
        (rows, store): (CursorId, &crate::schema::Table),
        prefix: &[u8],
        made: impl FnOnce(&[u8], &[u8]) -> bool,
        row_out: &mut crate::cursor::Held,
    ) -> bool {
        let landed = self
            .read_or_refresh(scan, |c, epoch, view, _| Ok(c.land_by_row(prefix, epoch, &view, store, made, row_out)))
            .unwrap_or(false);
        if landed {
            self.count(scan, &SEARCH_NEAR, &Ok(()));
            self.count(rows, &SEARCH, &Ok(()));
        }
        landed
    }

    /// The value of `key` in internal cursor `id`'s table as the session's read view sees it,
    /// into `out` as the application's, counted as a search of that cursor, which stays where
    /// it is (an index cursor's look-up of its primary row); `WT_NOTFOUND` when there is none.
    pub(super) fn read_into(&mut self, id: CursorId, key: &[u8], out: &mut crate::cursor::Held) -> Result<()> {
        let found = if self.txn.is_prepared() {
            Err(super::txn::prepared())
        } else {
            let view = self.txn.read_view();
            let c = self.cursors.get(id);
            collated_call(c.is_collated(), self.caller, || {
                let guard = scc::Guard::new();
                c.table().layers().read(key, &view, &guard).map(|value| match value {
                    Some(value) => out.set_app(&value),
                    None => out.clear(),
                })
            })
        };
        let out = found.and_then(|()| if out.bytes().is_some() { Ok(()) } else { Err(crate::error::Error::quiet(Kind::NotFound)) });
        if let Err(e) = &out {
            self.read_failed(e.kind());
        }
        self.count(id, &SEARCH, &out);
        out
    }

    /// `WT_CURSOR::next`.
    pub fn next(&mut self, id: CursorId) -> Result<()> {
        let out = self.read(id, |c, epoch, view, _| c.next(epoch, view));
        self.count(id, &NEXT, &out);
        out
    }

    /// `WT_CURSOR::prev`.
    pub fn prev(&mut self, id: CursorId) -> Result<()> {
        let out = self.read(id, |c, epoch, view, _| c.prev(epoch, view));
        self.count(id, &PREV, &out);
        out
    }

    /// `WT_CURSOR::insert`.
    pub fn insert(&mut self, id: CursorId) -> Result<()> {
        if self.cursors.positioned() == 1 {
            self.insert_gives_position_up(id);
        }
        self.write(id, &INSERT, Cursor::insert)
    }

    /// An insert without `overwrite` searches for its key from scratch, as the reference's:
    /// the session's only positioned cursor gives its position up first, and with it the read
    /// snapshot it held outside a transaction, so that the existence check and a duplicate
    /// key's value (`WT_DUPLICATE_KEY`: "the value currently stored") see the newest commits
    /// (difftest seeds 4011, 4026).
    #[cold]
    #[inline(never)]
    fn insert_gives_position_up(&mut self, id: CursorId) {
        let c = self.cursors.get(id);
        if c.is_positioned() && !c.config().overwrite {
            let _ = self.txn.fresh_view();
        }
    }

    /// `WT_CURSOR::update`.
    pub fn update(&mut self, id: CursorId) -> Result<()> {
        self.write(id, &UPDATE, Cursor::update)
    }

    /// `WT_CURSOR::remove`.
    pub fn remove(&mut self, id: CursorId) -> Result<()> {
        self.write(id, &REMOVE, Cursor::remove)
    }

    /// `WT_CURSOR::modify`.
    pub fn modify(&mut self, id: CursorId, entries: &[Modification<'_>]) -> Result<()> {
        let touched: usize = entries.iter().map(|m| m.data.len()).sum();
        let out = self.write(id, &MODIFY, |c, epoch, txn| c.modify(epoch, txn, entries));
        if out.is_ok() {
            self.stats().add(ConnStat::ModifyBytesTouched, touched as i64);
            self.cursors.get(id).table_use().stats.add(DsrcStat::ModifyBytesTouched, touched as i64);
        }
        out
    }

    /// `WT_CURSOR::reserve`.
    pub fn reserve(&mut self, id: CursorId) -> Result<()> {
        self.write(id, &RESERVE, Cursor::reserve)
    }

    /// `WT_CURSOR::bound`.
    pub fn bound(&mut self, id: CursorId, action: crate::cursor::BoundAction) -> Result<()> {
        let caller = self.caller;
        let c = self.cursors.get_mut(id);
        collated_call(c.is_collated(), caller, || c.bound(action))
    }

    /// `WT_CURSOR::compare` / `equals`: cursor `id`'s key against `other` (another cursor's key
    /// in the same table), in the table's key order.
    pub fn compare_key(&self, id: CursorId, other: &[u8]) -> Result<std::cmp::Ordering> {
        let c = self.cursors.get(id);
        let mine = c.key_bytes()?;
        let Some(collator) = c.table().collator() else { return Ok(mine.cmp(other)) };
        collate::within(self.caller, || Ok(collator.order(mine, other)))
    }

    /// `WT_CURSOR::largest_key`: leaves the cursor unpositioned (the read snapshot may end).
    pub fn largest_key(&mut self, id: CursorId) -> Result<()> {
        let epoch = self.copy_epoch;
        let out = self.cursors.with(id, |c| c.largest_key(epoch));
        self.idle_check();
        out
    }

    /// Resets a cursor, counting the reset (explicit or implied by another call); the read
    /// snapshot ends when no cursor stays positioned.
    fn reset_counted(&mut self, id: CursorId) {
        self.cursors.with(id, Cursor::reset_all);
        self.stats().add(ConnStat::Resets, 1);
        self.cursors.get(id).table_use().stats.add(DsrcStat::Resets, 1);
        self.idle_check();
    }

    /// `WT_CURSOR::reset`.
    pub fn reset_cursor(&mut self, id: CursorId) {
        self.reset_counted(id);
    }

    /// `WT_CURSOR::set_key`: `pack` writes the key in the cursor's API key format.
    pub fn set_key_with(&mut self, id: CursorId, pack: impl FnOnce(&Format, &mut Vec<u8>) -> Result<()>) {
        // Setting a key keeps the position, so the positioned count needs no bookkeeping.
        self.cursors.get_mut(id).set_key_with(pack)
    }

    /// `WT_CURSOR::set_value`: `pack` writes the value in the cursor's API value format.
    pub fn set_value_with(&mut self, id: CursorId, pack: impl FnOnce(&Format, &mut Vec<u8>) -> Result<()>) {
        self.cursors.get_mut(id).set_value_with(pack)
    }

    /// `WT_CURSOR::reconfigure` (which resets the cursor).
    pub fn reconfigure_cursor(&mut self, id: CursorId, config: Option<&str>) -> Result<()> {
        let cfg = crate::config::validate(crate::config::Method::CursorReconfigure, config, None)?;
        let next = self.cursors.get(id).config().reconfigured(&cfg);
        self.reset_counted(id);
        self.cursors.get_mut(id).reconfigure(next);
        Ok(())
    }

    /// `WT_CURSOR::close`: parks the cursor in the session's cache when the session caches
    /// cursors and the cursor is of a cacheable kind, else closes it for good.
    pub fn close_cursor(&mut self, id: CursorId) -> Result<Closed> {
        let closed = match self.cursors.park(id, self.cache_cursors)? {
            Some(sweep_due) => {
                // Parking resets the cursor; the reset counts as a cache-close
                // (see `stats::counters`).
                self.stats().add(ConnStat::CacheCloses, 1);
                if sweep_due {
                    self.sweep_cache(Sweep::Small);
                }
                Closed::Cached
            }
            None => {
                self.close_for_good(id);
                Closed::Freed
            }
        };
        // With no cursor positioned, the auto-commit read snapshot ends.
        self.idle_check();
        Ok(closed)
    }

    /// The common `WT_CURSOR::close` of cursor `id`, whose entry is `entry` (which the C layer
    /// reaches through its address, see `CursorSet::addresses`): parks the cursor when that is
    /// all there is to do (see `CursorSet::park_quick`). Calls nothing and never panics, so that the C layer's entry
    /// needs no stack frame: what is left to do, if anything, the caller runs next with
    /// [`close_finish`](Self::close_finish).
    #[inline(always)]
    pub fn close_cursor_quick(&mut self, id: CursorId, entry: &mut Entry) -> QuickClose {
        let Some(sweep_due) = self.cursors.park_quick(id, entry, self.cache_cursors) else { return QuickClose::No };
        // Parking resets the cursor; the reset counts as a cache-close (see `stats::counters`).
        let marked = self.txn.stats_slot().add_unmarked(ConnStat::CacheCloses, 1);
        // With no cursor positioned, the auto-commit read snapshot ends (there is nothing to do
        // when a snapshot transaction owns the view).
        let idle = self.cursors.positioned() == 0 && self.txn.idle_ends_snapshot();
        if sweep_due {
            self.sweep_pending = true;
        }
        if marked && !idle && !sweep_due {
            QuickClose::Done
        } else {
            QuickClose::Finish
        }
    }

    /// What a [`close_cursor_quick`](Self::close_cursor_quick) returning
    /// [`QuickClose::Finish`] left: the statistics mark, the end of the read snapshot, the
    /// small sweep every 40th close asks for (which may free stale parked cursors: see
    /// [`take_freed`](Self::take_freed)).
    #[cold]
    #[inline(never)]
    pub fn close_finish(&mut self) {
        self.txn.stats_slot().mark_now();
        if std::mem::take(&mut self.sweep_pending) {
            self.sweep_cache(Sweep::Small);
        }
        self.idle_check();
    }

    /// Closes an open cursor for good.
    pub fn close_for_good(&mut self, id: CursorId) {
        let cursor = self.cursors.remove(id);
        self.stats().add(ConnStat::OpenAdjust, -1);
        cursor.table_use().stats.add(DsrcStat::OpenAdjust, -1);
        cursor.table().release(cursor.table_use());
        self.idle_check();
    }

    /// The common `open_cursor`: the cursor parked last, when it was opened with exactly `uri`
    /// and its table still exists, open again with the default configuration. Calls nothing and
    /// never panics; None (nothing changed) sends the caller to the general path. After
    /// [`QuickOpen::Finish`] the caller runs [`open_finish`](Self::open_finish).
    #[inline(always)]
    pub fn reuse_latest_quick(&mut self, uri: &[u8]) -> Option<(CursorId, QuickOpen)> {
        // No test of `cache_cursors`: a session that stops caching empties its cache, and one
        // that does not cache parks nothing, so a parked cursor means the session caches.
        let (id, cursor) = self.cursors.unpark_latest_quick(uri, |c| c.table().acquire_quick(c.table_use()))?;
        debug_assert!(self.cache_cursors);
        cursor.reopen(crate::cursor::CursorConfig::default());
        cursor.table_use().stats.add(DsrcStat::Reuses, 1);
        let marked = self.txn.stats_slot().add_unmarked(ConnStat::Reuses, 1);
        Some((id, if marked { QuickOpen::Done } else { QuickOpen::Finish }))
    }

    /// What a [`reuse_latest_quick`](Self::reuse_latest_quick) returning
    /// [`QuickOpen::Finish`] left: the statistics mark.
    #[cold]
    #[inline(never)]
    pub fn open_finish(&mut self) {
        self.txn.stats_slot().mark_now();
    }

    /// Takes a parked cursor opened with `uri` back out of the cache, if the session caches
    /// cursors, one is there and its table still exists; parked cursors of dropped tables met
    /// on the way are freed. `config` must be cacheable.
    #[inline(always)]
    pub fn reuse_cached(&mut self, uri: &[u8], config: crate::cursor::CursorConfig) -> Option<CursorId> {
        if !self.cache_cursors {
            return None;
        }
        loop {
            let (id, cursor) = self.cursors.unpark(uri)?;
            // A table that got column groups or indices since has schema cursors only.
            if cursor.table().acquire_plain(cursor.table_use()).is_ok() {
                cursor.reopen(config);
                cursor.table_use().stats.add(DsrcStat::Reuses, 1);
                self.txn.stats_slot().add(ConnStat::Reuses, 1);
                return Some(id);
            }
            self.discard_stale(id);
        }
    }

    /// Frees a parked cursor found stale (its table dropped) on its way out of the cache.
    #[cold]
    #[inline(never)]
    fn discard_stale(&mut self, id: CursorId) {
        self.cursors.remove(id);
        self.stats().add(ConnStat::CachedAdjust, -1);
        self.freed.push(id);
    }

    /// Frees every parked cursor: each is first reopened (counted as reused when its table
    /// still exists), as the reference does when a session stops caching or closes. With
    /// `keep_spares` (the session closes, its memory kept for its slot's next session), those
    /// of tables that still exist stay as spares instead, counted just the same.
    pub(super) fn empty_cache(&mut self, keep_spares: bool) {
        let start = self.freed.len();
        self.cursors.unpark_all(&mut self.freed);
        // `freed[start..]` holds the drained ids; it is compacted in place to those freed.
        let mut freed_end = start;
        for at in start..self.freed.len() {
            let id = self.freed[at];
            let cursor = self.cursors.get(id);
            let gone = if cursor.table().is_dropped() {
                self.stats().add(ConnStat::CachedAdjust, -1);
                Some(id)
            } else {
                // Reopened, then closed for good.
                self.stats().record([(ConnStat::Reuses, 1), (ConnStat::OpenAdjust, -1)]);
                let table_stats = &cursor.table_use().stats;
                table_stats.add(DsrcStat::Reuses, 1);
                table_stats.add(DsrcStat::OpenAdjust, -1);
                // A spare keeps its handle: only a spare it displaces goes.
                if keep_spares { self.cursors.keep_spare(id) } else { Some(id) }
            };
            if let Some(gone) = gone {
                self.cursors.remove(gone);
                self.freed[freed_end] = gone;
                freed_end += 1;
            }
        }
        self.freed.truncate(freed_end);
    }

    /// `open_cursor` of `uri` with `config` served by a spare cursor opened with exactly `uri`
    /// (see `CursorSet`): opened again as a new cursor and counted as one, when its table still
    /// exists; a spare whose table was dropped is freed (see [`take_freed`](Self::take_freed)).
    pub fn open_spare(&mut self, uri: &[u8], config: crate::cursor::CursorConfig) -> Option<CursorId> {
        if self.cursors.spares.is_empty() {
            return None;
        }
        let cacheable = self.cache_cursors && config.cacheable;
        let id = self.cursors.take_spare(uri)?;
        let cursor = self.cursors.get(id);
        let table_use = cursor.table_use();
        if cursor.table().acquire_plain(table_use).is_err() {
            self.cursors.remove(id);
            self.freed.push(id);
            return None;
        }
        table_use.stats.add(DsrcStat::Creates, 1);
        table_use.stats.add(DsrcStat::OpenAdjust, 1);
        self.stats().record([(ConnStat::Creates, 1), (ConnStat::OpenAdjust, 1)]);
        self.cursors.revive(id, cacheable, config);
        Some(id)
    }

    /// Frees the spare cursors of dropped tables.
    pub(super) fn free_spares_of_dropped(&mut self) {
        let start = self.freed.len();
        self.cursors.take_spares_of_dropped(&mut self.freed);
        for at in start..self.freed.len() {
            self.cursors.remove(self.freed[at]);
        }
    }

    /// Frees every spare cursor (the session's memory is freed).
    pub(super) fn free_spares(&mut self) {
        let start = self.freed.len();
        self.cursors.take_spares(&mut self.freed);
        for at in start..self.freed.len() {
            self.cursors.remove(self.freed[at]);
        }
    }

    /// Runs a cache sweep of `kind` if one is due; parked cursors of dropped tables are freed.
    pub(super) fn sweep_cache(&mut self, kind: Sweep) {
        let Some((report, gone)) = self.cursors.sweep(kind, |c| c.table().is_dropped()) else { return };
        for &id in &gone {
            self.cursors.remove(id);
        }
        self.freed.extend(gone);
        let closed = report.closed as i64;
        self.stats().record([
            (ConnStat::Sweeps, 1),
            (ConnStat::SweepBuckets, report.buckets as i64),
            (ConnStat::SweepExamined, report.examined as i64),
            (ConnStat::SweepClosed, closed),
            (ConnStat::CachedAdjust, -closed),
        ]);
    }

    /// Cursors the session freed on its own (stale parked cursors): the C layer frees their
    /// handles.
    pub fn take_freed(&mut self) -> Vec<CursorId> {
        std::mem::take(&mut self.freed)
    }

    /// Whether [`take_freed`](Self::take_freed) has anything.
    #[inline(always)]
    pub fn has_freed(&self) -> bool {
        !self.freed.is_empty()
    }
}

/// Before a call on cursor `c`: on a collated table, its comparisons are made for session
/// `caller` until [`collation_checked`].
#[inline(always)]
fn collation_scope(c: &Cursor, caller: usize) {
    if c.is_collated() {
        collation_enter(caller);
    }
}

#[cold]
#[inline(never)]
fn collation_enter(caller: usize) {
    collate::enter(caller);
}

/// After the call: `out`, or on a collated table the error a comparison of its collator met
/// meanwhile (`store::collate`: the structures compare without an error path), the cursor then
/// failed as by any error.
#[inline(always)]
fn collation_checked<T>(c: &mut Cursor, epoch: u64, out: Result<T>) -> Result<T> {
    if !c.is_collated() {
        return out;
    }
    collation_outcome(c, epoch, out)
}

/// `f`, a call on a cursor outside [`Session::read`] / `write` that may compare keys: on a
/// `collated` table (the cursor's flag) within a scope for session `caller`
/// ([`collate::within`]).
#[inline(always)]
fn collated_call<T>(collated: bool, caller: usize, f: impl FnOnce() -> Result<T>) -> Result<T> {
    if !collated {
        return f();
    }
    collate::within(caller, f)
}

/// [`collation_checked`] of a collated table.
#[cold]
#[inline(never)]
fn collation_outcome<T>(c: &mut Cursor, epoch: u64, out: Result<T>) -> Result<T> {
    collate::leave();
    match collate::Collator::check() {
        Ok(()) => out,
        Err(e) => {
            c.fail(epoch);
            Err(e)
        }
    }
}
