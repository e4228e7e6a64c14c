//! Cursors on tables: key and value state, positioning, and reads and writes of one record.
//!
//! A cursor remembers its position as a copy of the record's key, apart from the key the
//! application sets (the reference's `next` continues from the record even after a `set_key`);
//! moving re-seeks the index from that copy, so no cursor pins index memory between calls. Who owns the key and the value
//! matters for what survives a failed call (`../shared/spec/traces/README.md` §5.3): items the
//! application set survive, items the engine returned do not.

mod bounds;
mod config;
mod edits;
mod fixed;
pub mod listing;
mod state;
pub mod versions;

pub use bounds::{Bound, BoundAction, Bounds};
pub use config::CursorConfig;
pub use edits::{apply_modifications, Modification};
pub use state::{Held, Owner};

use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

use scc::Guard;

use crate::error::{Error, Kind, Result};
use crate::pack::{varint, FieldKind, Format};
use crate::schema::{Table, TableUse};
use crate::store::{
    collate, is_prepared, is_prepared_value, prepare_conflict, Mode, ReadView, Refused, Seek, SeekHint, NO_READ_TS, TXN_COMMITTED,
};
use crate::txn::Txn;

/// Which way `search_near` landed.
pub type Exact = i32;

/// A cursor on one table.
pub struct Cursor {
    table: Arc<Table>,
    table_use: Arc<TableUse>,
    config: CursorConfig,
    key: Held,
    value: Held,
    /// The key of the record the cursor is on, valid while `positioned` (when `at_in_key`,
    /// the key buffer holds it instead, saving a copy on every search).
    at: Vec<u8>,
    at_in_key: bool,
    positioned: bool,
    /// Where the last step landed in the table's tree (a stepping cursor skips the descent).
    hint: SeekHint,
    /// Whether this cursor's last insert added a new key: the guess for the next one
    /// (`Txn::write_hinted`).
    inserts_new: bool,
    /// `WT_CURSOR::bound`'s range, until `reset` (boxed: most cursors have none).
    bounds: Option<Box<Bounds>>,
    /// A fixed-length record table (`key_format=r`, one bitfield value): every record up to
    /// the largest exists (`fixed.rs`).
    fixed: bool,
    /// The table orders its keys by a collator (read on every call: kept beside the cursor's
    /// other flags rather than behind the table pointer).
    collated: bool,
}

impl Cursor {
    /// A new, unpositioned cursor. The caller has already counted it with `Table::acquire`.
    pub fn new(table: Arc<Table>, table_use: Arc<TableUse>, config: CursorConfig) -> Self {
        let fixed = table.is_recno() && table.value_format().single().is_some_and(|f| f.ch() == 't');
        let collated = table.collator().is_some();
        Cursor {
            table,
            table_use,
            config,
            key: Held::default(),
            value: Held::default(),
            at: Vec::new(),
            at_in_key: false,
            positioned: false,
            hint: SeekHint::default(),
            inserts_new: false,
            bounds: None,
            fixed,
            collated,
        }
    }

    /// The table.
    pub fn table(&self) -> &Arc<Table> {
        &self.table
    }

    /// Whether the table orders its keys by a collator.
    #[inline(always)]
    pub fn is_collated(&self) -> bool {
        self.collated
    }

    /// The session's use record of the table.
    pub fn table_use(&self) -> &Arc<TableUse> {
        &self.table_use
    }

    /// Current settings.
    pub fn config(&self) -> &CursorConfig {
        &self.config
    }

    /// Whether the cursor is on a record.
    pub fn is_positioned(&self) -> bool {
        self.positioned
    }

    /// Applies `overwrite`/`append` from `WT_CURSOR::reconfigure`; resets the cursor.
    pub fn reconfigure(&mut self, config: CursorConfig) {
        self.config = config;
        self.reset_all();
    }

    /// Drops position, key and value.
    #[inline(always)]
    pub fn reset(&mut self) {
        self.key.clear();
        self.value.clear();
        self.positioned = false;
    }

    /// `WT_CURSOR::reset` as the application calls it: [`reset`](Self::reset) and the bounds go
    /// too (a reset inside another operation keeps them).
    pub fn reset_all(&mut self) {
        self.reset();
        if self.bounds.is_some() {
            self.bounds = None;
        }
    }

    /// Whether [`reset`](Self::reset) frees nothing (no `set_*` error is held): it then calls
    /// nothing, for callers that must not.
    #[inline(always)]
    pub fn resets_quickly(&self) -> bool {
        !self.key.holds_error() && !self.value.holds_error()
    }

    /// Makes a parked cursor new again for `open_cursor` with the new configuration
    /// (`cursor-cache.md` §2). Parking reset it already: unpositioned, no key or value.
    #[inline]
    pub fn reopen(&mut self, config: CursorConfig) {
        debug_assert!(!self.positioned && self.key.owner() == Owner::None && self.value.owner() == Owner::None);
        self.config = config;
        if self.bounds.is_some() {
            self.bounds = None;
        }
    }

    /// Frees the key, value and position buffers a parked cursor keeps (cache sweeps).
    pub fn release_buffers(&mut self) {
        self.key.release();
        self.value.release();
        self.at = Vec::new();
        self.at_in_key = false;
    }

    /// The format keys cross the API in: the table's, or one item of packed bytes for raw
    /// cursors.
    pub fn api_key_format(&self) -> &Format {
        if self.config.raw { raw_format() } else { self.table.key_format() }
    }

    /// The format values cross the API in.
    pub fn api_value_format(&self) -> &Format {
        if self.config.raw { raw_format() } else { self.table.value_format() }
    }

    /// `set_key`: `pack` writes the packed key, given the API key format. An error is kept
    /// and reported by the next operation that needs a key. The position is kept: `next`
    /// continues from the record.
    pub fn set_key_with(&mut self, pack: impl FnOnce(&Format, &mut Vec<u8>) -> Result<()>) {
        if self.at_in_key {
            // The key buffer holds the position: keep it as `at`, pack into `at`'s old buffer.
            self.key.swap_bytes(&mut self.at);
            self.at_in_key = false;
        }
        let table = &self.table;
        let format = if self.config.raw { raw_format() } else { table.key_format() };
        self.key.set_app_with(|buf| {
            pack(format, buf)?;
            check_key(table, buf)
        });
    }

    /// The single integer field of the API key format, when it has exactly one (the common
    /// `Q`/`r`/`q`/`i` keys): the C layer then passes the integer straight to
    /// [`set_key_int_quick`](Self::set_key_int_quick).
    pub fn key_int_kind(&self) -> Option<FieldKind> {
        int_kind(self.api_key_format())
    }

    /// The single integer field of the API value format, likewise.
    pub fn value_int_kind(&self) -> Option<FieldKind> {
        int_kind(self.api_value_format())
    }

    /// `set_key` of a format whose one field is the integer `kind` (from
    /// [`key_int_kind`](Self::key_int_kind)), encoded straight into the key buffer, when it
    /// cannot fail and needs no allocation: true when done; false, with nothing changed, when
    /// the caller must take the general path (`set_key_with`).
    #[inline(always)]
    pub fn set_key_int_quick(&mut self, kind: FieldKind, v: u64) -> bool {
        let buffer = if self.at_in_key { &self.at } else { self.key.buffer() };
        if !Held::fits_packed(buffer) || (v == 0 && self.table.is_recno()) {
            return false;
        }
        if self.at_in_key {
            self.key.swap_bytes(&mut self.at);
            self.at_in_key = false;
        }
        let (packed, n) = pack_int(kind, v);
        self.key.set_app_packed(&packed, n)
    }

    /// `set_value` of a format whose one field is the integer `kind`, likewise.
    #[inline(always)]
    pub fn set_value_int_quick(&mut self, kind: FieldKind, v: u64) -> bool {
        let (packed, n) = pack_int(kind, v);
        self.value.set_app_packed(&packed, n)
    }


    /// The value as the one integer field of kind `kind` (from
    /// [`value_int_kind`](Self::value_int_kind)); `None` when no value is set or its bytes do
    /// not decode (the general path then reports why).
    #[inline(always)]
    pub fn value_int(&self, kind: FieldKind) -> Option<u64> {
        decode_int(kind, self.value.bytes()?)
    }

    /// The key as its one integer field, likewise.
    #[inline(always)]
    pub fn key_int(&self, kind: FieldKind) -> Option<u64> {
        decode_int(kind, self.key.bytes()?)
    }

    /// `set_value`: `pack` writes the packed value, given the API value format.
    pub fn set_value_with(&mut self, pack: impl FnOnce(&Format, &mut Vec<u8>) -> Result<()>) {
        let format = if self.config.raw { raw_format() } else { self.table.value_format() };
        self.value.set_app_with(|buf| pack(format, buf));
    }

    /// The packed key, for `get_key` ("requires key be set" when there is none).
    pub fn key_bytes(&self) -> Result<&[u8]> {
        self.key.bytes().ok_or_else(|| Error::invalid("requires key be set"))
    }

    /// The packed value, for `get_value`.
    pub fn value_bytes(&self) -> Result<&[u8]> {
        self.value.bytes().ok_or_else(|| Error::invalid("requires value be set"))
    }

    /// Whether a key is set (and no `set_key` error is held).
    #[inline(always)]
    pub fn has_key(&self) -> bool {
        self.key.is_set()
    }

    /// `EINVAL` when no key is set.
    pub fn require_key(&self) -> Result<()> {
        self.key.check("requires key be set")
    }

    fn require_value(&self) -> Result<()> {
        self.value.check("requires value be set")
    }

    /// What a failed call leaves: the application's items, not the engine's, and no position.
    /// `copy_epoch` is the session's count of events that turn engine values into copies.
    pub fn fail(&mut self, copy_epoch: u64) {
        // The session's copy events copy values, never keys (an engine key always goes).
        self.key.drop_engine(0);
        self.value.drop_engine(copy_epoch);
        self.positioned = false;
    }

    /// Places the cursor on a record returned by the index. A free function over the fields,
    /// because the record borrows the index that `self.table` owns.
    fn land(parts: Landing<'_>, record: (&[u8], &[u8]), epoch: u64) {
        parts.key.set_engine(record.0, epoch);
        parts.value.set_engine(record.1, epoch);
        *parts.at_in_key = true;
        *parts.positioned = true;
    }

    fn landing(&mut self) -> (&Table, Landing<'_>) {
        let (table, _, parts) = self.landing_bounded();
        (table, parts)
    }

    /// [`landing`](Self::landing) with the bounds beside it.
    fn landing_bounded(&mut self) -> (&Table, Option<&Bounds>, Landing<'_>) {
        let Cursor { table, key, value, at, at_in_key, positioned, hint, bounds, .. } = self;
        (table, bounds.as_deref(), Landing { key, value, at, at_in_key, positioned, hint })
    }

    /// `WT_CURSOR::search`, in `view`. A prepared update the view may not pass over answers
    /// `WT_PREPARE_CONFLICT`, leaving the cursor as it was.
    pub fn search(&mut self, epoch: u64, view: &ReadView) -> Result<()> {
        self.require_key()?;
        if self.key_out_of_bounds() {
            return Err(Error::quiet(Kind::NotFound));
        }
        match self.find(epoch, view) {
            Lookup::Landed => return Ok(()),
            Lookup::Prepared => return Err(prepare_conflict()),
            Lookup::Missed => {}
        }
        if self.fixed {
            return self.fixed_search(epoch, view);
        }
        // A search that misses leaves its key readable even when the cursor was positioned on
        // it: the search made the key the application's (difftest seed 93).
        if self.table.tree().is_none() && !self.collated {
            self.key.mark_app();
            return Err(Error::quiet(Kind::NotFound));
        }
        // The index did not have it as a value: the layers decide (a removal in the index, or
        // the tree; a collated index's look-up).
        crate::btree::reclaim::throttle();
        let guard = Guard::new();
        let (table, parts) = self.landing();
        let Some(value) = table.layers().read(parts.key.raw(), view, &guard)? else {
            parts.key.mark_app();
            return Err(Error::quiet(Kind::NotFound));
        };
        parts.value.set_engine(&value, epoch);
        parts.key.mark_engine(epoch);
        *parts.positioned = true;
        *parts.at_in_key = true;
        Ok(())
    }

    /// [`search`](Self::search) for the session's fast path: true when the key is found (the
    /// cursor is on it); false, with nothing changed, for a miss or a missing key.
    #[inline(always)]
    pub fn search_quick(&mut self, epoch: u64, view: &ReadView) -> bool {
        self.key.is_set() && self.bounds.is_none() && self.find(epoch, view) == Lookup::Landed
    }

    /// Looks the set key up and, when `view` sees a value, lands on it.
    #[inline(always)]
    fn find(&mut self, epoch: u64, view: &ReadView) -> Lookup {
        let guard = Guard::new();
        let (table, parts) = self.landing();
        let key = parts.key.raw();
        // The hash index's answer: a collated table misses here and takes the slow path.
        let data = table.index().hashed_head(key, &guard).and_then(|v| v.data_in(view, &guard));
        let Some(data) = data else { return Lookup::Missed };
        if data.is_tombstone() {
            return if is_prepared(data) { Lookup::Prepared } else { Lookup::Missed };
        }
        let short = data.short_block();
        if !short.is_some_and(|(block, n)| parts.value.set_engine_block(block, n, epoch)) {
            parts.value.set_engine(data.bytes().unwrap_or_default(), epoch);
        }
        parts.key.mark_engine(epoch);
        *parts.positioned = true;
        *parts.at_in_key = true;
        Lookup::Landed
    }

    /// `WT_CURSOR::search_near`: the exact key, else the next larger, else the next smaller
    /// (of the records live in `view`). When the exact key is not there, `fresh` may give a
    /// newer view to search again in (see `Session::read_or_refresh`).
    pub fn search_near(
        &mut self,
        epoch: u64,
        view: ReadView,
        fresh: &mut dyn FnMut() -> Option<ReadView>,
    ) -> Result<Exact> {
        self.require_key()?;
        if self.fixed {
            return self.fixed_search_near(epoch, view);
        }
        crate::btree::reclaim::throttle();
        let guard = Guard::new();
        let (table, bounds, parts) = self.landing_bounded();
        let layers = table.layers();
        let target = parts.key.raw();
        let order = table.collator().map(|c| &**c);
        let ((from_up, up_dir), (from_down, down_dir)) = Bounds::near_starts(bounds, order, target);
        let near = |view| -> Result<_> {
            match within(layers.seek(Some(from_up), up_dir, view, &guard)?, bounds, order) {
                Some(found) => Ok(Some(found)),
                None => Ok(within(layers.seek(Some(from_down), down_dir, view, &guard)?, bounds, order)),
            }
        };
        let mut record = near(view)?;
        if record.as_ref().is_none_or(|(key, _)| collate::cmp(order, key, target).is_ne()) {
            if let Some(view) = fresh() {
                record = near(view)?;
            }
        }
        let Some(record) = record else {
            parts.key.mark_app(); // as search (difftest seed 93)
            return Err(Error::quiet(Kind::NotFound));
        };
        if is_prepared_value(&record.1) {
            return Err(prepare_conflict());
        }
        let exact = match collate::cmp(order, &record.0, target) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        };
        Self::land(parts, (&record.0, &record.1), epoch);
        Ok(exact)
    }

    /// An index cursor's search for the entries of one index key: lands on the first record
    /// at or after `prefix` in `view` (again in a `fresh` view, as `search_near` would, when
    /// the first did not start with `prefix`) and answers whether it starts with `prefix`.
    /// `Ok(None)`, the cursor left as it was, when no record follows or the cursor has bounds:
    /// the caller takes `search_near`'s way.
    pub fn land_at_or_after(
        &mut self,
        prefix: &[u8],
        epoch: u64,
        view: ReadView,
        fresh: &mut dyn FnMut() -> Option<ReadView>,
    ) -> Result<Option<bool>> {
        if self.fixed || self.bounds.is_some() {
            return Ok(None);
        }
        let guard = Guard::new();
        let (table, parts) = self.landing();
        let layers = table.layers();
        if layers.tree.is_none() {
            // A secondary index in memory answers a point look-up by its columns from its
            // prefix map; what the map cannot tell is left to the seek below.
            if let Some((key, value)) = layers.index.seek_prefix(prefix, &view, &guard) {
                if is_prepared_value(value) {
                    return Err(prepare_conflict());
                }
                Self::land(parts, (key, value), epoch);
                return Ok(Some(true));
            }
        }
        let order = table.collator().map(|c| &**c);
        let mut record = layers.seek(Some(prefix), Seek::Ge, view, &guard)?;
        if !record.as_ref().is_some_and(|(key, _)| collate::starts_with(order, key, prefix)) {
            if let Some(view) = fresh() {
                record = layers.seek(Some(prefix), Seek::Ge, view, &guard)?;
            }
        }
        let Some(record) = record else { return Ok(None) };
        if is_prepared_value(&record.1) {
            return Err(prepare_conflict());
        }
        let starts = collate::starts_with(order, &record.0, prefix);
        Self::land(parts, (&record.0, &record.1), epoch);
        Ok(Some(starts))
    }

    /// An index scan's point look-up of `prefix` (its whole index columns) checked against the
    /// row instead of the entry's own versions, so the entry's slot is never loaded: takes the
    /// first key of the prefix map's group, finds the row its primary key names in `rows` (the
    /// store of the table's values) as `view` sees it, and lands there when `made(entry, row)`
    /// says that row makes the entry, with the row copied into `row_out`.
    ///
    /// Why that proves the entry live in `view`: a row and its index entries are written in
    /// one transaction, with one commit stamp, so a snapshot that sees the row sees the entry
    /// it makes, and the group's first key is the least key of the prefix. Views for which that
    /// does not hold are left out: read timestamps (updates of one key may commit with
    /// timestamps out of order) and read-uncommitted (a writer between its row and its entry).
    ///
    /// `false`: nothing happened; the caller takes [`land_at_or_after`](Self::land_at_or_after).
    pub fn land_by_row(
        &mut self,
        prefix: &[u8],
        epoch: u64,
        view: &ReadView,
        rows: &Table,
        made: impl FnOnce(&[u8], &[u8]) -> bool,
        row_out: &mut Held,
    ) -> bool {
        if self.fixed || self.bounds.is_some() || view.read_ts != NO_READ_TS || view.uncommitted {
            return false;
        }
        let guard = Guard::new();
        let (table, parts) = self.landing();
        let (layers, row_layers) = (table.layers(), rows.layers());
        if layers.tree.is_some() || row_layers.tree.is_some() || rows.collator().is_some() {
            return false;
        }
        let Some((entry, row)) = layers.index.first_under(prefix, row_layers.index, &guard) else { return false };
        let Some(pk) = entry.get(prefix.len()..) else { return false };
        // The row's slot as it joined, while it holds versions (a slot with versions is the
        // key's only one); else the rows' hash index.
        let head = row.and_then(|slot| slot.head.load(std::sync::atomic::Ordering::Acquire, &guard).as_ref());
        let head = head.or_else(|| row_layers.index.hashed_head(pk, &guard));
        let row = head.and_then(|v| v.value_in(view, &guard));
        match row {
            Some(row) if !is_prepared_value(row) && made(entry, row) => {
                row_out.set_app(row);
                Self::land(parts, (entry, &[]), epoch);
                true
            }
            _ => false,
        }
    }

    /// `WT_CURSOR::next`: the following record, or the first when unpositioned.
    pub fn next(&mut self, epoch: u64, view: ReadView) -> Result<()> {
        self.step(Seek::Gt, epoch, view)
    }

    /// `WT_CURSOR::prev`: the preceding record, or the last when unpositioned.
    pub fn prev(&mut self, epoch: u64, view: ReadView) -> Result<()> {
        self.step(Seek::Lt, epoch, view)
    }

    /// Moves one record among those live in `view`. Running off either end resets the cursor
    /// completely, application items included (the reference's behaviour, traces/README.md
    /// §5.1).
    fn step(&mut self, dir: Seek, epoch: u64, view: ReadView) -> Result<()> {
        if self.fixed {
            return self.fixed_step(dir, epoch, view);
        }
        if self.bounds.is_some() {
            return self.step_bounded(dir, epoch, view);
        }
        crate::btree::reclaim::throttle();
        let guard = Guard::new();
        let positioned = self.positioned;
        let (table, parts) = self.landing();
        let at: &[u8] = if *parts.at_in_key { parts.key.raw() } else { parts.at };
        let found = table.layers().seek_hinted(positioned.then_some(at), dir, view, &guard, parts.hint)?;
        match found {
            // The cursor stays where it was: the next step tries the prepared record again.
            Some((_, value)) if is_prepared_value(&value) => Err(prepare_conflict()),
            Some((key, value)) => {
                Self::land(parts, (&key, &value), epoch);
                Ok(())
            }
            None => {
                drop(guard);
                self.reset();
                Err(Error::quiet(Kind::NotFound))
            }
        }
    }

    /// [`step`](Self::step) within the cursor's bounds: an unpositioned cursor starts from the
    /// bound on its side, and a record past the bounds ends the walk like the table's end.
    fn step_bounded(&mut self, dir: Seek, epoch: u64, view: ReadView) -> Result<()> {
        crate::btree::reclaim::throttle();
        let guard = Guard::new();
        let positioned = self.positioned;
        let (table, bounds, parts) = self.landing_bounded();
        let bounds = bounds.expect("bounds are set");
        let at: &[u8] = if *parts.at_in_key { parts.key.raw() } else { parts.at };
        let (from, seek) = match (positioned, bounds.start(dir)) {
            (true, _) => (Some(at), dir),
            (false, Some((bound, seek))) => (Some(bound), seek),
            (false, None) => (None, dir),
        };
        let found = table.layers().seek_hinted(from, seek, view, &guard, parts.hint)?;
        match found.filter(|(k, _)| bounds.contains(table.collator().map(|c| &**c), k)) {
            Some((_, value)) if is_prepared_value(&value) => Err(prepare_conflict()),
            Some((key, value)) => {
                Self::land(parts, (&key, &value), epoch);
                Ok(())
            }
            None => {
                drop(guard);
                // Running off the range resets the position and items; the bounds stay.
                self.reset();
                Err(Error::quiet(Kind::NotFound))
            }
        }
    }

    /// `WT_CURSOR::insert`, in `txn` (the session's transaction, or auto-commit). Leaves the
    /// cursor unpositioned with no key or value, except after `WT_DUPLICATE_KEY`, which keeps the
    /// key and reads back the stored value. At isolation levels that refuse writes the existence
    /// check still comes first, as the reference does.
    pub fn insert(&mut self, epoch: u64, txn: &mut Txn) -> Result<()> {
        if self.config.append && self.table.is_recno() {
            return self.append(epoch, txn);
        }
        self.require_key()?;
        self.require_value()?;
        self.check_writable()?;
        if self.key_out_of_bounds() {
            return Err(self.missing(epoch));
        }
        // A value the cursor read becomes the application's once a write takes it as its own
        // (traces/README.md §5.3): it survives this write failing.
        self.value.mark_app();
        if !txn.can_write() {
            let view = txn.read_view();
            if !self.config.overwrite && self.exists(view)? {
                return Err(self.duplicate(epoch, view, None));
            }
            return Err(self.refused_at_isolation());
        }
        if self.fixed && !self.config.overwrite && self.fixed_exists(txn)? {
            // Every record below the largest exists, stored or not.
            return Err(self.duplicate(epoch, txn.existing_view(), None));
        }
        let mode = if self.config.overwrite { Mode::Upsert } else { Mode::InsertNew };
        match txn.write_hinted(&self.table, self.key.raw(), Some(self.value.raw()), mode, &mut self.inserts_new) {
            Ok(()) => {
                self.reset();
                Ok(())
            }
            Err(Refused::Exists) => Err(self.duplicate(epoch, txn.existing_view(), txn.existing_fallback())),
            Err(Refused::Missing) => Err(self.missing(epoch)),
            Err(Refused::Conflict) => Err(self.conflict(epoch)),
            Err(Refused::Failed) => Err(txn.take_failure()),
        }
    }

    /// `WT_DUPLICATE_KEY`: the key stays, and the stored value (as `view` sees it, else as
    /// `fallback` does) becomes the application's copy (it survives later failures).
    fn duplicate(&mut self, epoch: u64, view: ReadView, fallback: Option<ReadView>) -> Error {
        let guard = Guard::new();
        let layers = self.table.layers();
        let stored = match (layers.read(self.key.raw(), &view, &guard), fallback) {
            (Ok(None), Some(fallback)) => layers.read(self.key.raw(), &fallback, &guard),
            (stored, _) => stored,
        };
        match stored {
            Ok(Some(stored)) => {
                self.value.set_engine(&stored, epoch);
                self.value.mark_app();
            }
            Ok(None) => {}
            Err(e) => return e,
        }
        self.key.mark_app();
        self.positioned = false;
        Error::quiet(Kind::DuplicateKey)
    }

    /// Insert with a new record number one past the largest; `get_key` then returns it.
    fn append(&mut self, epoch: u64, txn: &mut Txn) -> Result<()> {
        self.require_value()?;
        self.check_writable()?;
        if !txn.can_write() {
            return Err(refused_at_isolation());
        }
        let layers = self.table.layers();
        loop {
            let next = {
                let guard = Guard::new();
                match layers.seek(None, Seek::Lt, ReadView::LATEST, &guard)? {
                    Some((key, _)) => crate::pack::varint::decode_u64(&key)?.0 + 1,
                    None => 1,
                }
            };
            let mut key = Vec::with_capacity(crate::pack::varint::MAX_LEN);
            crate::pack::varint::encode_u64(next, &mut key);
            match txn.write(&self.table, &key, Some(self.value.raw()), Mode::InsertNew) {
                Ok(()) => {
                    self.key.set_engine(&key, epoch);
                    self.key.mark_app();
                    self.value.clear();
                    self.positioned = false;
                    return Ok(());
                }
                Err(Refused::Conflict) => return Err(self.conflict(epoch)),
                Err(Refused::Failed) => return Err(txn.take_failure()),
                Err(_) => {}
            }
        }
    }

    /// `WT_CURSOR::update`, in `txn`. On success the cursor is on the record, holding the new
    /// value.
    pub fn update(&mut self, epoch: u64, txn: &mut Txn) -> Result<()> {
        self.require_key()?;
        self.require_value()?;
        self.check_writable()?;
        if self.key_out_of_bounds() {
            return Err(self.missing(epoch));
        }
        // A value the cursor read becomes the application's once a write takes it as its own
        // (traces/README.md §5.3): it survives this write failing.
        self.value.mark_app();
        // A cursor on its record updates it without looking it up again, whatever `overwrite`
        // says: the record counts as existing even if it was removed since, and only a write
        // conflict stops the update (the reference's positioned update; difftest seed 1019).
        let on_record = self.on_record();
        if !txn.can_write() {
            if !self.config.overwrite && !on_record && !self.exists(txn.read_view())? {
                return Err(self.missing(epoch));
            }
            return Err(self.refused_at_isolation());
        }
        let mut mode = if self.config.overwrite { Mode::Upsert } else { Mode::UpdateExisting };
        if self.fixed && mode == Mode::UpdateExisting && self.fixed_exists(txn)? {
            // A record below the largest exists even when it is not stored.
            mode = Mode::Upsert;
        } else if mode == Mode::UpdateExisting && on_record && !self.changed_since_held_view(txn) {
            // An auto-commit update that conflicts with a commit made since the session's held
            // snapshot is retried as an update by key in a fresh snapshot, which does check
            // that the record exists: left as `UpdateExisting`.
            mode = Mode::Upsert;
        }
        if let Err(refused) = txn.write(&self.table, self.key.raw(), Some(self.value.raw()), mode) {
            return Err(self.refused(refused, epoch, txn));
        }
        self.at_in_key = true;
        self.key.mark_engine(epoch);
        // The stored value is now the engine's: inside a transaction a later failure drops it;
        // an auto-commit write's success makes it a copy (the session's copy event).
        self.value.mark_engine(epoch);
        self.positioned = true;
        Ok(())
    }

    /// `WT_CURSOR::remove`, in `txn`. A cursor that was on the record stays there (its key
    /// readable); one that only had a key set ends unpositioned.
    pub fn remove(&mut self, epoch: u64, txn: &mut Txn) -> Result<()> {
        self.require_key()?;
        self.check_writable()?;
        if self.key_out_of_bounds() {
            return Err(self.missing(epoch));
        }
        let on_record = self.on_record();
        if !txn.can_write() {
            // Unlike update and insert, the reference finds a refused remove's key by key only
            // if both the read snapshot the session holds and the newest version, committed or
            // not, have it (difftest seeds 2 and 40; c-tests/traces/difftest_regressions.trace).
            // A cursor on its record does not look it up again: only a newest version that is
            // itself a removal makes it missing; a record whose every version was rolled back
            // is still there (difftest seed 1068).
            let newest = ReadView::uncommitted(TXN_COMMITTED);
            let missing = if on_record && !self.fixed {
                self.newest_is_removal(newest)
            } else {
                !self.exists(txn.read_view())? || !self.exists(newest)?
            };
            if missing {
                return Err(self.missing_removal(epoch));
            }
            // Unlike insert and update, a remove does not make the key the application's.
            return Err(refused_at_isolation());
        }
        if on_record && self.changed_since_held_view(txn) {
            // An auto-commit remove of the record the cursor is on, while the session holds its
            // read snapshot, conflicts with a commit made to it since (difftest seed 1091).
            return Err(self.conflict_removal(epoch));
        }
        if self.fixed {
            self.fixed_remove(epoch, txn)?;
        } else {
            match txn.write(&self.table, self.key.raw(), None, Mode::Remove) {
                Ok(()) => {}
                Err(Refused::Conflict) => return Err(self.conflict_removal(epoch)),
                Err(Refused::Failed) => return Err(txn.take_failure()),
                Err(_) => return Err(self.missing_removal(epoch)),
            }
        }
        if on_record {
            self.value.clear();
        } else {
            self.reset();
        }
        Ok(())
    }

    /// Whether the cursor is on a record it found (not only holding a key the application set):
    /// the reference's positioned writes act on that record without looking it up again.
    fn on_record(&self) -> bool {
        self.positioned && self.key.owner() == Owner::Engine
    }

    /// Whether the session holds its auto-commit read snapshot and the cursor's record was
    /// committed to after it: the reference's positioned write then conflicts with that commit.
    fn changed_since_held_view(&self, txn: &Txn) -> bool {
        let Some(view) = txn.held_autocommit_view() else {
            return false;
        };
        let guard = Guard::new();
        self.table.index().head(self.key.raw(), &guard).is_some_and(|v| {
            let ts = v.commit_ts.load(std::sync::atomic::Ordering::Acquire);
            ts != crate::store::TS_PENDING && ts > view.ts
        })
    }

    /// Whether the newest version of the cursor's key in memory that `newest` sees (rolled-back
    /// ones are gone) is a removal.
    fn newest_is_removal(&self, newest: ReadView) -> bool {
        let guard = Guard::new();
        let head = self.table.index().head(self.key.raw(), &guard);
        head.and_then(|v| v.data_in(&newest, &guard)).is_some_and(|d| d.bytes().is_none())
    }

    /// Whether the key that is set names a record live in `view`.
    fn exists(&self, view: ReadView) -> Result<bool> {
        let guard = Guard::new();
        Ok(self.table.layers().read(self.key.raw(), &view, &guard)?.is_some())
    }

    /// `WT_ROLLBACK` from a write conflict: the key stays; the value stays if the application
    /// owns it (set it, or it became a copy), an engine value goes (txn trace 4460-4473).
    fn conflict(&mut self, epoch: u64) -> Error {
        self.key.mark_app();
        self.value.drop_engine(epoch);
        self.positioned = false;
        Error::quiet(Kind::Rollback)
    }

    /// The error of a write of an existing key that the store refused: a conflict, the
    /// transaction layer's failure, or a missing key.
    fn refused(&mut self, refused: Refused, epoch: u64, txn: &mut Txn) -> Error {
        match refused {
            Refused::Conflict => self.conflict(epoch),
            Refused::Failed => txn.take_failure(),
            Refused::Exists | Refused::Missing => self.missing(epoch),
        }
    }

    /// `ENOTSUP` from an insert or update refused at this isolation. The reference's write made
    /// the key the application's before it was refused, so the key survives the failure
    /// (difftest seed 3; c-tests/traces/write_ownership.trace).
    fn refused_at_isolation(&mut self) -> Error {
        self.key.mark_app();
        refused_at_isolation()
    }

    /// `WT_ROLLBACK` from a remove: as [`conflict`](Self::conflict), but a key the cursor was
    /// positioned on goes (a remove does not make it the application's; difftest seed 37).
    fn conflict_removal(&mut self, epoch: u64) -> Error {
        self.key.drop_engine(0);
        self.conflict(epoch)
    }

    /// `WT_NOTFOUND` from a remove: a key the application set stays readable; one the cursor
    /// was positioned on goes, as an engine value does (difftest seed 9).
    fn missing_removal(&mut self, epoch: u64) -> Error {
        self.key.drop_engine(0);
        self.value.drop_engine(epoch);
        self.positioned = false;
        Error::quiet(Kind::NotFound)
    }

    /// `WT_NOTFOUND` from an insert or update: the key stays readable, an engine value does not.
    fn missing(&mut self, epoch: u64) -> Error {
        self.key.mark_app();
        self.value.drop_engine(epoch);
        self.positioned = false;
        Error::quiet(Kind::NotFound)
    }

    fn check_writable(&self) -> Result<()> {
        if self.config.readonly {
            return Err(Error::unsupported("Unsupported cursor operation"));
        }
        Ok(())
    }
}

/// The fields a positioning call fills, borrowed apart from the table.
struct Landing<'c> {
    key: &'c mut Held,
    value: &'c mut Held,
    at: &'c mut Vec<u8>,
    at_in_key: &'c mut bool,
    positioned: &'c mut bool,
    hint: &'c mut SeekHint,
}

/// `found`, unless it lies outside `bounds`.
fn within<'g>(
    found: Option<crate::store::layered::Entry<'g>>,
    bounds: Option<&Bounds>,
    order: collate::Order<'_>,
) -> Option<crate::store::layered::Entry<'g>> {
    found.filter(|(k, _)| bounds.is_none_or(|b| b.contains(order, k)))
}

/// Writes are allowed only at snapshot isolation.
fn refused_at_isolation() -> Error {
    Error::unsupported("write operations are not supported in read-committed or read-uncommitted transactions.")
}

/// Rejects keys the engine cannot store (the reference panics on them; we return EINVAL).
fn check_key(table: &Table, packed: &[u8]) -> Result<()> {
    if packed.is_empty() {
        return Err(Error::invalid("Empty keys not permitted"));
    }
    if table.is_recno() && packed == [0x80] {
        return Err(Error::invalid("0 is an invalid record number"));
    }
    Ok(())
}

/// The integer kind of a one-field format the C layer passes as a plain integer.
fn int_kind(format: &Format) -> Option<FieldKind> {
    format.single_kind().filter(|k| matches!(k, FieldKind::Uint64 | FieldKind::Int64 | FieldKind::Int32))
}

/// Packs one integer field of `kind` into a fixed array: the bytes and how many are used.
#[inline(always)]
fn pack_int(kind: FieldKind, v: u64) -> ([u8; varint::MAX_LEN], usize) {
    let mut packed = [0u8; varint::MAX_LEN];
    let n = match kind {
        FieldKind::Uint64 => varint::encode_u64_buf(v, &mut packed),
        FieldKind::Int32 => varint::encode_i64_buf(i64::from(v as i32), &mut packed),
        _ => varint::encode_i64_buf(v as i64, &mut packed),
    };
    (packed, n)
}

/// Unpacks one integer field of `kind` that fills all of `bytes`.
#[inline(always)]
fn decode_int(kind: FieldKind, bytes: &[u8]) -> Option<u64> {
    let (v, used) = match kind {
        FieldKind::Uint64 => varint::try_decode_u64(bytes)?,
        FieldKind::Int32 => {
            let (v, used) = varint::try_decode_i64(bytes)?;
            (i64::from(i32::try_from(v).ok()?) as u64, used)
        }
        _ => varint::try_decode_i64(bytes).map(|(v, n)| (v as u64, n))?,
    };
    (used == bytes.len()).then_some(v)
}

/// The format of raw cursors: one item holding already-packed bytes.
fn raw_format() -> &'static Format {
    static RAW: OnceLock<Format> = OnceLock::new();
    RAW.get_or_init(|| Format::parse("u").expect("a valid format"))
}

/// What a point look-up in the index found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lookup {
    /// A value: the cursor is on it.
    Landed,
    /// No value in the index (absent, removed, or for the tree to say).
    Missed,
    /// A prepared update the view may not pass over.
    Prepared,
}
