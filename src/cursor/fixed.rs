//! Fixed-length record tables (`key_format=r`, a one-bitfield value such as `value_format=8t`):
//! every record number from 1 to the largest written exists, those never written (or removed)
//! holding 0, as the reference's fixed-length column stores behave.
//!
//! The store keeps only the records written: a removal writes 0, and reads, steps and
//! `search_near` fill the gaps below the largest record number with zeros.

use std::cmp::Ordering;

use scc::Guard;

use crate::error::{Error, Kind, Result};
use crate::pack::varint;
use crate::store::{Mode, ReadView, Seek};
use crate::txn::Txn;

use super::{Cursor, Exact};

/// A record that holds 0, packed (a bitfield value is one byte).
const ZERO: [u8; 1] = [0];

/// The record number a packed `r` key holds.
fn recno(key: &[u8]) -> Result<u64> {
    Ok(varint::decode_u64(key)?.0)
}

/// The packed `r` key of record `n`.
fn packed(n: u64) -> Vec<u8> {
    let mut key = Vec::with_capacity(varint::MAX_LEN);
    varint::encode_u64(n, &mut key);
    key
}

impl Cursor {
    /// The largest record number `view` sees written (0 for an empty table).
    pub(super) fn fixed_last(&self, view: &ReadView) -> Result<u64> {
        let guard = Guard::new();
        match self.table.layers().seek(None, Seek::Lt, *view, &guard)? {
            Some((key, _)) => recno(&key),
            None => Ok(0),
        }
    }

    /// The value of record `n` in `view`: what was written, or 0 below the largest record.
    fn fixed_value(&self, n: u64, view: &ReadView) -> Result<Option<Vec<u8>>> {
        let key = packed(n);
        let guard = Guard::new();
        if let Some(value) = self.table.layers().read(&key, view, &guard)? {
            return Ok(Some(value.into_owned()));
        }
        Ok((n >= 1 && n <= self.fixed_last(view)?).then(|| ZERO.to_vec()))
    }

    /// Lands on record `n` holding `value`.
    fn fixed_land(&mut self, n: u64, value: &[u8], epoch: u64) {
        let key = packed(n);
        let (_, parts) = self.landing();
        Self::land(parts, (&key, value), epoch);
    }

    /// `search` of a record that is not stored: 0 if it lies below the largest record.
    pub(super) fn fixed_search(&mut self, epoch: u64, view: &ReadView) -> Result<()> {
        let n = recno(self.key.raw())?;
        match self.fixed_value(n, view)? {
            Some(value) => {
                self.fixed_land(n, &value, epoch);
                Ok(())
            }
            None => {
                // A search that misses leaves its key readable (see `Cursor::search`).
                self.key.mark_app();
                Err(Error::quiet(Kind::NotFound))
            }
        }
    }

    /// `search_near`: the record itself when it lies within the table, else the largest.
    pub(super) fn fixed_search_near(&mut self, epoch: u64, view: ReadView) -> Result<Exact> {
        let n = recno(self.key.raw())?;
        let last = self.fixed_last(&view)?;
        if last == 0 {
            return Err(Error::quiet(Kind::NotFound));
        }
        let at = n.clamp(1, last);
        let value = self.fixed_value(at, &view)?.unwrap_or_else(|| ZERO.to_vec());
        self.fixed_land(at, &value, epoch);
        Ok(match at.cmp(&n) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        })
    }

    /// `next` / `prev` through every record number from 1 to the largest.
    pub(super) fn fixed_step(&mut self, dir: Seek, epoch: u64, view: ReadView) -> Result<()> {
        let last = self.fixed_last(&view)?;
        let from = if self.positioned {
            let at: &[u8] = if self.at_in_key { self.key.raw() } else { &self.at };
            Some(recno(at)?)
        } else {
            None
        };
        let n = match (dir, from) {
            (Seek::Gt | Seek::Ge, Some(at)) => at.saturating_add(1),
            (Seek::Gt | Seek::Ge, None) => 1,
            (Seek::Lt | Seek::Le, Some(at)) => at.saturating_sub(1),
            (Seek::Lt | Seek::Le, None) => last,
        };
        if n == 0 || n > last {
            self.reset();
            return Err(Error::quiet(Kind::NotFound));
        }
        let value = self.fixed_value(n, &view)?.unwrap_or_else(|| ZERO.to_vec());
        self.fixed_land(n, &value, epoch);
        Ok(())
    }

    /// Whether record `n` exists for a writer of `txn` (written, or below the largest record).
    pub(super) fn fixed_exists(&self, txn: &mut Txn) -> Result<bool> {
        let n = recno(self.key.raw())?;
        let view = txn.read_view();
        Ok(self.fixed_value(n, &view)?.is_some())
    }

    /// `remove` of a fixed-length record: it keeps existing, holding 0 (`WT_NOTFOUND` past the
    /// largest record).
    pub(super) fn fixed_remove(&mut self, epoch: u64, txn: &mut Txn) -> Result<()> {
        if !self.fixed_exists(txn)? {
            return Err(self.missing(epoch));
        }
        if let Err(refused) = txn.write(&self.table, self.key.raw(), Some(&ZERO), Mode::Upsert) {
            return Err(self.refused(refused, epoch, txn));
        }
        Ok(())
    }
}
