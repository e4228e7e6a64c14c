//! Read-only cursors over rows copied when the cursor opens: `log:` (the journal's records),
//! `metadata:` (the objects' configurations) and checkpoint cursors (`checkpoint=NAME`: a
//! table as its last checkpoint left it).
//!
//! Why a copy: each source is small next to a table's live index, or (a checkpoint) frozen
//! anyway, and a frozen list needs no pinning of journal files or checkpoint blocks while the
//! application holds the cursor. The price is a walk of the source at open; these cursors
//! are not on any hot path.
//!
//! Rows are kept packed in the cursor's formats, sorted by key bytes (every format used here
//! packs in the order of its values: the log's `III`, the metadata's `S`, a table's keys as
//! the table orders them; a collated table's checkpoint rows in its collator's order). The methods follow the reference's table cursors where the source
//! allows them; writes are `ENOTSUP` "Unsupported cursor operation", as the reference's.

use std::ffi::CString;
use std::sync::Arc;

use crate::error::{Error, Kind, Result};
use crate::pack::{self, Arg, Format};
use crate::schema::{Table, TableUse};
use crate::store::collate;

/// What a listing lists: decides which methods it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// `log:`: `next` and `search` only (`prev`, `search_near` are `ENOTSUP`, as the
    /// reference's); `search` ignores the key's counter and lands on the record's first row.
    Log,
    /// `metadata:` and `metadata:create`.
    Metadata,
    /// A checkpoint cursor on a table.
    Checkpoint,
    /// A version cursor (`debug=(dump_version=true)`): `search` positions on a key's newest
    /// version (read then, `cursor::versions`), `next` walks to older ones; `prev` and
    /// `search_near` are `ENOTSUP`, as the reference's.
    Versions,
}

/// A read-only cursor over a frozen, sorted list of rows.
#[derive(Debug)]
pub struct Listing {
    source: Source,
    /// The formats that cross the API (`u` for both on a raw cursor).
    key_format: Format,
    value_format: Format,
    rows: Vec<(Vec<u8>, Vec<u8>)>,
    /// The row the cursor is on.
    at: Option<usize>,
    /// The application's key (`set_key`), while not positioned by it.
    key: Option<Result<Vec<u8>>>,
    /// Every positioning call fails with this (a `log:` cursor without a journal).
    failure: Option<Error>,
    /// The formats `WT_CURSOR::key_format` / `value_format` show (a raw cursor's too).
    shown: (CString, CString),
    /// A checkpoint cursor counts as an open cursor of its table (`drop` is `EBUSY`).
    _hold: Option<TableHold>,
    /// `WT_CURSOR::checkpoint_id`: the checkpoint's number (0 for other listings).
    checkpoint_id: u64,
}

/// A table counted as having an open cursor, until dropped.
pub struct TableHold {
    table: Arc<Table>,
    record: Arc<TableUse>,
}

impl TableHold {
    /// Counts a cursor of the session owning `record` on `table` (`ENOENT` if it was dropped).
    pub fn new(table: Arc<Table>, record: Arc<TableUse>) -> Result<TableHold> {
        table.acquire(&record)?;
        Ok(TableHold { table, record })
    }
}

impl Drop for TableHold {
    fn drop(&mut self) {
        self.table.release(&self.record);
    }
}

impl std::fmt::Debug for TableHold {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TableHold({})", self.table.name())
    }
}

/// The error of every method a listing does not have.
pub fn unsupported() -> Error {
    Error::unsupported("Unsupported cursor operation")
}

impl Listing {
    /// A cursor over `rows` (any order: sorted here) in `key_format` / `value_format`.
    pub fn new(source: Source, key_format: Format, value_format: Format, mut rows: Vec<(Vec<u8>, Vec<u8>)>) -> Listing {
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        let shown = (c_text(&key_format), c_text(&value_format));
        Listing { source, key_format, value_format, rows, at: None, key: None, failure: None, shown, _hold: None, checkpoint_id: 0 }
    }

    /// Sets what `checkpoint_id` answers: the number of the checkpoint the rows come from,
    /// the same for every table's cursor on one checkpoint.
    pub fn from_checkpoint(mut self, id: u64) -> Listing {
        self.checkpoint_id = id;
        self
    }

    /// `WT_CURSOR::checkpoint_id`.
    pub fn checkpoint_id(&self) -> u64 {
        self.checkpoint_id
    }

    /// `open_cursor(NULL, this)`: a cursor over the same rows, on the same row (the reference
    /// duplicates a cursor by searching for its key: `EINVAL` without one).
    pub fn duplicate(&self) -> Result<Listing> {
        if self.source == Source::Versions {
            return Err(unsupported());
        }
        let hold = match &self._hold {
            Some(h) => Some(TableHold::new(Arc::clone(&h.table), Arc::clone(&h.record))?),
            None => None,
        };
        let key = self.key_bytes()?.to_vec();
        let mut copy = Listing {
            source: self.source,
            key_format: self.key_format.clone(),
            value_format: self.value_format.clone(),
            rows: self.rows.clone(),
            at: None,
            key: Some(Ok(key)),
            failure: self.failure.clone(),
            shown: self.shown.clone(),
            _hold: hold,
            checkpoint_id: self.checkpoint_id,
        };
        copy.search()?;
        Ok(copy)
    }

    /// Keeps `hold` for the cursor's life; the rows of a table with a collator are put in its
    /// order.
    pub fn holding(mut self, hold: TableHold) -> Listing {
        if let Some(c) = hold.table.collator() {
            self.rows.sort_by(|a, b| c.order(&a.0, &b.0));
        }
        self._hold = Some(hold);
        self
    }

    /// Shows `key` / `value` as the cursor's formats (a raw cursor's API formats are `u`).
    pub fn showing(mut self, key: &str, value: &str) -> Listing {
        self.shown = (c_text_str(key), c_text_str(value));
        self
    }

    /// The formats the public struct shows.
    pub fn shown_formats(&self) -> (&CString, &CString) {
        (&self.shown.0, &self.shown.1)
    }

    /// A cursor whose positioning calls all fail with `error`.
    pub fn failing(source: Source, key_format: Format, value_format: Format, error: Error) -> Listing {
        Listing { failure: Some(error), ..Listing::new(source, key_format, value_format, Vec::new()) }
    }

    /// What the cursor lists.
    pub fn source(&self) -> Source {
        self.source
    }

    /// The key format that crosses the API.
    pub fn api_key_format(&self) -> &Format {
        &self.key_format
    }

    /// The value format that crosses the API.
    pub fn api_value_format(&self) -> &Format {
        &self.value_format
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// `set_key`: `pack` writes the packed key in the API key format.
    pub fn set_key_with(&mut self, pack: impl FnOnce(&Format, &mut Vec<u8>) -> Result<()>) {
        let mut bytes = Vec::new();
        self.key = Some(pack(&self.key_format, &mut bytes).map(|()| bytes));
        self.at = None;
    }

    /// The packed key: the row's, or the application's.
    pub fn key_bytes(&self) -> Result<&[u8]> {
        if let Some(at) = self.at {
            return Ok(&self.rows[at].0);
        }
        match &self.key {
            Some(Ok(k)) => Ok(k),
            Some(Err(e)) => Err(e.clone()),
            None => Err(Error::invalid("requires key be set")),
        }
    }

    /// The packed value of the row the cursor is on.
    pub fn value_bytes(&self) -> Result<&[u8]> {
        match self.at {
            Some(at) => Ok(&self.rows[at].1),
            None => Err(Error::invalid("requires value be set")),
        }
    }

    /// `WT_CURSOR::next`: the first row from unpositioned; past the last `WT_NOTFOUND`, and
    /// the cursor is unpositioned again.
    pub fn next(&mut self) -> Result<()> {
        self.check()?;
        if self.source == Source::Versions && self.at.is_none() {
            return Err(Error::new(Kind::Rollback, "rolling back version_cursor->next due to no initial position"));
        }
        let at = self.at.map_or(0, |i| i + 1);
        self.land(at)
    }

    /// `WT_CURSOR::prev`.
    pub fn prev(&mut self) -> Result<()> {
        if matches!(self.source, Source::Log | Source::Versions) {
            return Err(unsupported());
        }
        self.check()?;
        let at = match self.at {
            Some(i) => i.wrapping_sub(1),
            None => self.rows.len().wrapping_sub(1),
        };
        self.land(at)
    }

    /// `WT_CURSOR::search`: the row of the key set; `WT_NOTFOUND` keeps the key.
    pub fn search(&mut self) -> Result<()> {
        self.check()?;
        if self.source == Source::Versions {
            return self.search_versions();
        }
        let key = self.key_bytes()?.to_vec();
        let found = match self.source {
            Source::Log => {
                // The reference finds the record by its LSN and ignores the counter.
                let target = log_key_with_counter(&key, 0)?;
                self.rows.binary_search_by(|r| r.0.as_slice().cmp(&target)).ok()
            }
            _ => self.find(&key).ok(),
        };
        match found {
            Some(at) => {
                self.at = Some(at);
                Ok(())
            }
            None => {
                self.at = None;
                self.key = Some(Ok(key));
                Err(Error::quiet(Kind::NotFound))
            }
        }
    }

    /// `WT_CURSOR::search_near`: the row of the key set, else the next larger (exact 1), else
    /// the next smaller (exact -1).
    pub fn search_near(&mut self) -> Result<i32> {
        if matches!(self.source, Source::Log | Source::Versions) {
            return Err(unsupported());
        }
        self.check()?;
        let key = self.key_bytes()?.to_vec();
        let (at, exact) = match self.find(&key) {
            Ok(at) => (at, 0),
            Err(at) if at < self.rows.len() => (at, 1),
            Err(0) => return Err(Error::quiet(Kind::NotFound)),
            Err(at) => (at - 1, -1),
        };
        self.at = Some(at);
        Ok(exact)
    }

    /// Where `key` is among the rows (a checkpoint's are in its table's order: its collator's,
    /// if it has one).
    fn find(&self, key: &[u8]) -> std::result::Result<usize, usize> {
        let order = self._hold.as_ref().and_then(|h| h.table.collator()).map(|c| &**c);
        self.rows.binary_search_by(|r| collate::cmp(order, &r.0, key))
    }

    /// A version cursor's `search`: the key's versions, on the newest.
    fn search_versions(&mut self) -> Result<()> {
        if self.at.is_some() {
            return Err(Error::new(Kind::Rollback, "version cursor cannot be called when it is positioned"));
        }
        let key = self.key_bytes()?.to_vec();
        let Some(hold) = &self._hold else { return Err(unsupported()) };
        self.rows = super::versions::rows(&hold.table, &key)?;
        if self.rows.is_empty() {
            self.key = Some(Ok(key));
            return Err(Error::quiet(Kind::NotFound));
        }
        self.at = Some(0);
        Ok(())
    }

    /// `WT_CURSOR::reset`: no position, no key.
    pub fn reset(&mut self) {
        self.at = None;
        self.key = None;
        if self.source == Source::Versions {
            self.rows.clear();
        }
    }

    fn check(&self) -> Result<()> {
        match &self.failure {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn land(&mut self, at: usize) -> Result<()> {
        if at < self.rows.len() {
            self.at = Some(at);
            self.key = None;
            Ok(())
        } else {
            self.at = None;
            self.key = None;
            Err(Error::quiet(Kind::NotFound))
        }
    }
}

fn c_text(format: &Format) -> CString {
    c_text_str(format.as_str())
}

fn c_text_str(text: &str) -> CString {
    CString::new(text).unwrap_or_default()
}

/// The format of a `log:` cursor's key: file, offset, counter.
pub const LOG_KEY_FORMAT: &str = "III";
/// The format of a `log:` cursor's value: transaction id, record type, operation type, table
/// id, operation key, operation value.
pub const LOG_VALUE_FORMAT: &str = "qIIIuu";

/// A packed `log:` key.
pub fn log_key(file: u32, offset: u32, counter: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let format = Format::parse(LOG_KEY_FORMAT).expect("a valid format");
    let args = [Arg::Uint(file.into()), Arg::Uint(offset.into()), Arg::Uint(counter.into())];
    pack::pack(&format, &args, &mut out).expect("III packs any three u32");
    out
}

/// `key` (a packed `log:` key) with its counter replaced.
fn log_key_with_counter(key: &[u8], counter: u32) -> Result<Vec<u8>> {
    let format = Format::parse(LOG_KEY_FORMAT).expect("a valid format");
    let mut args: Vec<Arg<'_>> = Vec::with_capacity(3);
    pack::unpack(&format, key, &mut args)?;
    let field = |i: usize| args.get(i).and_then(|a| a.as_i64()).map(|v| v as u32);
    match (field(0), field(1)) {
        (Some(file), Some(offset)) => Ok(log_key(file, offset, counter)),
        _ => Err(Error::invalid("requires key be set")),
    }
}

/// A packed `log:` value.
pub fn log_value(txn: u64, rectype: u32, optype: u32, table: u32, key: &[u8], value: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let format = Format::parse(LOG_VALUE_FORMAT).expect("a valid format");
    let args = [
        Arg::Int(txn as i64),
        Arg::Uint(rectype.into()),
        Arg::Uint(optype.into()),
        Arg::Uint(table.into()),
        Arg::Bytes(key),
        Arg::Bytes(value),
    ];
    pack::pack(&format, &args, &mut out).expect("qIIIuu packs any value");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(source: Source) -> Listing {
        let rows = (0..5u32).rev().map(|i| (log_key(1, 100 * (i / 2), i % 2), vec![i as u8])).collect();
        Listing::new(source, Format::parse("III").unwrap(), Format::parse("u").unwrap(), rows)
    }

    #[test]
    fn steps_in_key_order_and_restarts_after_the_end() {
        let mut l = listing(Source::Metadata);
        let mut seen = Vec::new();
        while l.next().is_ok() {
            seen.push(l.value_bytes().unwrap()[0]);
        }
        assert_eq!(seen, [0, 1, 2, 3, 4]);
        assert!(l.value_bytes().is_err());
        l.next().unwrap();
        assert_eq!(l.value_bytes().unwrap(), [0]);
        l.reset();
        l.prev().unwrap();
        assert_eq!(l.value_bytes().unwrap(), [4]);
    }

    #[test]
    fn log_search_ignores_the_counter_and_refuses_prev() {
        let mut l = listing(Source::Log);
        l.set_key_with(|_, b| {
            b.extend(log_key(1, 100, 1));
            Ok(())
        });
        l.search().unwrap();
        assert_eq!(l.value_bytes().unwrap(), [2]);
        assert_eq!(l.prev().unwrap_err().kind(), Kind::NotSupported);
        l.set_key_with(|_, b| {
            b.extend(log_key(1, 150, 0));
            Ok(())
        });
        assert_eq!(l.search().unwrap_err().kind(), Kind::NotFound);
        assert_eq!(l.key_bytes().unwrap(), log_key(1, 150, 0));
    }

    #[test]
    fn search_near_lands_on_a_neighbour() {
        let mut l = listing(Source::Checkpoint);
        l.set_key_with(|_, b| {
            b.extend(log_key(1, 150, 0));
            Ok(())
        });
        assert_eq!(l.search_near().unwrap(), 1);
        assert_eq!(l.value_bytes().unwrap(), [4]);
        l.set_key_with(|_, b| {
            b.extend(log_key(9, 0, 0));
            Ok(())
        });
        assert_eq!(l.search_near().unwrap(), -1);
        assert_eq!(l.value_bytes().unwrap(), [4]);
    }
}
