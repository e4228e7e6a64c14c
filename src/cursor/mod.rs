//! Cursors on tables: key and value state, positioning, and reads and writes of one record.
//!
//! A cursor remembers its position as a copy of the current key; moving re-seeks the index from
//! that key, so no cursor pins index memory between calls. Who owns the key and the value
//! matters for what survives a failed call (`../shared/spec/traces/README.md` §5.3): items the
//! application set survive, items the engine returned do not.

mod config;
mod state;

pub use config::CursorConfig;
pub use state::{Held, Owner};

use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

use scc::Guard;

use crate::error::{Error, Kind, Result};
use crate::pack::Format;
use crate::schema::{Table, TableUse};
use crate::store::Seek;

/// Which way `search_near` landed.
pub type Exact = i32;

/// A cursor on one table.
pub struct Cursor {
    table: Arc<Table>,
    table_use: Arc<TableUse>,
    config: CursorConfig,
    key: Held,
    value: Held,
    positioned: bool,
    /// Order of opening within the session (larger = newer), for the session's reset walk.
    seq: u64,
}

impl Cursor {
    /// A new, unpositioned cursor. The caller has already counted it with `Table::acquire`.
    pub fn new(table: Arc<Table>, table_use: Arc<TableUse>, config: CursorConfig, seq: u64) -> Self {
        Cursor { table, table_use, config, key: Held::default(), value: Held::default(), positioned: false, seq }
    }

    /// The table.
    pub fn table(&self) -> &Arc<Table> {
        &self.table
    }

    /// The session's use record of the table.
    pub fn table_use(&self) -> &Arc<TableUse> {
        &self.table_use
    }

    /// Current settings.
    pub fn config(&self) -> &CursorConfig {
        &self.config
    }

    /// Opening order within the session.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Whether the cursor is on a record.
    pub fn is_positioned(&self) -> bool {
        self.positioned
    }

    /// Applies `overwrite`/`append` from `WT_CURSOR::reconfigure`; resets the cursor.
    pub fn reconfigure(&mut self, config: CursorConfig) {
        self.config = config;
        self.reset();
    }

    /// Drops position, key and value.
    pub fn reset(&mut self) {
        self.key.clear();
        self.value.clear();
        self.positioned = false;
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
    /// and reported by the next operation that needs a key. Setting a key leaves the record.
    pub fn set_key_with(&mut self, pack: impl FnOnce(&Format, &mut Vec<u8>) -> Result<()>) {
        self.positioned = false;
        let format = if self.config.raw { raw_format() } else { self.table.key_format() };
        self.key.set_app_with(|buf| pack(format, buf));
        if let Some(bytes) = self.key.bytes() {
            if let Err(e) = check_key(&self.table, bytes) {
                self.key.set_error(e);
            }
        }
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

    fn require_key(&self) -> Result<()> {
        self.key.check("requires key be set")
    }

    fn require_value(&self) -> Result<()> {
        self.value.check("requires value be set")
    }

    /// What a failed call leaves: the application's items, not the engine's, and no position.
    /// `copy_epoch` is the session's count of events that turn engine values into copies.
    pub fn fail(&mut self, copy_epoch: u64) {
        self.key.drop_engine(copy_epoch);
        self.value.drop_engine(copy_epoch);
        self.positioned = false;
    }

    /// Places the cursor on a record returned by the index. A free function over the fields,
    /// because the record borrows the index that `self.table` owns.
    fn land(key: &mut Held, value: &mut Held, positioned: &mut bool, record: (&[u8], &[u8]), epoch: u64) {
        key.set_engine(record.0, epoch);
        value.set_engine(record.1, epoch);
        *positioned = true;
    }

    /// `WT_CURSOR::search`.
    pub fn search(&mut self, epoch: u64) -> Result<()> {
        self.require_key()?;
        let guard = Guard::new();
        let found = self.table.index().get(self.key.raw(), &guard);
        match found {
            Some(value) => {
                self.value.set_engine(value, epoch);
                self.key.mark_engine(epoch);
                self.positioned = true;
                Ok(())
            }
            None => Err(Error::quiet(Kind::NotFound)),
        }
    }

    /// `WT_CURSOR::search_near`: the exact key, else the next larger, else the next smaller.
    pub fn search_near(&mut self, epoch: u64) -> Result<Exact> {
        self.require_key()?;
        let guard = Guard::new();
        let Cursor { table, key, value, positioned, .. } = self;
        let index = table.index();
        let target = key.raw();
        let record = index
            .seek(target, Seek::Ge, &guard)
            .or_else(|| index.seek(target, Seek::Le, &guard))
            .ok_or(Error::quiet(Kind::NotFound))?;
        let exact = match record.0.cmp(target) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        };
        Self::land(key, value, positioned, record, epoch);
        Ok(exact)
    }

    /// `WT_CURSOR::next`: the following record, or the first when unpositioned.
    pub fn next(&mut self, epoch: u64) -> Result<()> {
        self.step(Seek::Gt, epoch)
    }

    /// `WT_CURSOR::prev`: the preceding record, or the last when unpositioned.
    pub fn prev(&mut self, epoch: u64) -> Result<()> {
        self.step(Seek::Lt, epoch)
    }

    fn step(&mut self, dir: Seek, epoch: u64) -> Result<()> {
        let guard = Guard::new();
        let Cursor { table, key, value, positioned, .. } = self;
        let index = table.index();
        let found = match (*positioned, dir) {
            (true, _) => index.seek(key.raw(), dir, &guard),
            (false, Seek::Gt) => index.first(&guard),
            (false, _) => index.last(&guard),
        };
        let record = found.ok_or(Error::quiet(Kind::NotFound))?;
        Self::land(key, value, positioned, record, epoch);
        Ok(())
    }

    /// `WT_CURSOR::insert`. Leaves the cursor unpositioned with no key or value, except after
    /// `WT_DUPLICATE_KEY`, which keeps the key and reads back the stored value.
    pub fn insert(&mut self, epoch: u64) -> Result<()> {
        if self.config.append && self.table.is_recno() {
            return self.append(epoch);
        }
        self.require_key()?;
        self.require_value()?;
        self.check_writable()?;
        let index = self.table.index();
        if self.config.overwrite {
            index.upsert(self.key.raw(), self.value.raw());
        } else if index.insert_new(self.key.raw(), self.value.raw()).is_err() {
            let guard = Guard::new();
            if let Some(stored) = index.get(self.key.raw(), &guard) {
                self.value.set_engine(stored, epoch);
            }
            self.key.mark_app();
            self.positioned = false;
            return Err(Error::quiet(Kind::DuplicateKey));
        }
        self.reset();
        Ok(())
    }

    /// Insert with a new record number one past the largest; `get_key` then returns it.
    fn append(&mut self, epoch: u64) -> Result<()> {
        self.require_value()?;
        self.check_writable()?;
        let index = self.table.index();
        loop {
            let next = {
                let guard = Guard::new();
                match index.last(&guard) {
                    Some((key, _)) => crate::pack::varint::decode_u64(key)?.0 + 1,
                    None => 1,
                }
            };
            let mut key = Vec::with_capacity(9);
            crate::pack::varint::encode_u64(next, &mut key);
            if index.insert_new(&key, self.value.raw()).is_ok() {
                self.key.set_engine(&key, epoch);
                self.key.mark_app();
                self.value.clear();
                self.positioned = false;
                return Ok(());
            }
        }
    }

    /// `WT_CURSOR::update`. On success the cursor is on the record, holding the new value.
    pub fn update(&mut self, epoch: u64) -> Result<()> {
        self.require_key()?;
        self.require_value()?;
        self.check_writable()?;
        let index = self.table.index();
        if self.config.overwrite {
            index.upsert(self.key.raw(), self.value.raw());
        } else if index.update_existing(self.key.raw(), self.value.raw()).is_err() {
            self.value.mark_app();
            return Err(Error::quiet(Kind::NotFound));
        }
        self.key.mark_engine(epoch);
        self.value.mark_app();
        self.positioned = true;
        Ok(())
    }

    /// `WT_CURSOR::remove`. A cursor that was on the record stays there (its key readable);
    /// one that only had a key set ends unpositioned.
    pub fn remove(&mut self, _epoch: u64) -> Result<()> {
        self.require_key()?;
        self.check_writable()?;
        let on_record = self.positioned && self.key.owner() == Owner::Engine;
        let removed = self.table.index().remove(self.key.raw());
        self.value.clear();
        match removed {
            Ok(()) if on_record => Ok(()),
            Ok(()) => {
                self.reset();
                Ok(())
            }
            Err(_) => {
                self.positioned = false;
                self.key.mark_app();
                Err(Error::quiet(Kind::NotFound))
            }
        }
    }

    fn check_writable(&self) -> Result<()> {
        if self.config.readonly {
            return Err(Error::unsupported("Unsupported cursor operation"));
        }
        Ok(())
    }
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

/// The format of raw cursors: one item holding already-packed bytes.
fn raw_format() -> &'static Format {
    static RAW: OnceLock<Format> = OnceLock::new();
    RAW.get_or_init(|| Format::parse("u").expect("a valid format"))
}
