//! `WT_CURSOR::modify`, `reserve` and `largest_key`: the writes that start from the stored
//! value, and the position past every key.

use scc::Guard;

use crate::error::{Error, Kind, Result};
use crate::pack::FieldKind;
use crate::store::Mode;
use crate::txn::{Isolation, Txn};

use super::Cursor;

/// One entry of a `WT_MODIFY` vector: at `offset` of the value (as the entries before it left
/// it), `size` bytes are replaced by `data`.
#[derive(Clone, Copy, Debug)]
pub struct Modification<'a> {
    /// The new bytes.
    pub data: &'a [u8],
    /// Where they go.
    pub offset: usize,
    /// How many bytes of the value they replace.
    pub size: usize,
}

/// Applies `entries` in order to `value`. An offset past the end pads with `pad` up to it (the
/// size is then ignored); a size reaching past the end replaces up to the end.
pub fn apply_modifications(value: &mut Vec<u8>, entries: &[Modification<'_>], pad: u8) {
    for m in entries {
        if m.offset > value.len() {
            value.resize(m.offset, pad);
        }
        let end = m.offset.saturating_add(m.size).min(value.len());
        value.splice(m.offset..end, m.data.iter().copied());
    }
}

impl Cursor {
    /// `WT_CURSOR::modify`: the stored value, changed by `entries`, becomes the new value. Only
    /// for `S` and `u` values, inside an explicit snapshot transaction, as the reference. On
    /// success the cursor is on the record with the new value.
    pub fn modify(&mut self, epoch: u64, txn: &mut Txn, entries: &[Modification<'_>]) -> Result<()> {
        // An `S` value is the string's bytes and a NUL: the offsets count the string only, and
        // padding is spaces (the reference's rules); `u` values pad with NULs.
        let string = match self.api_value_format().single_kind() {
            Some(FieldKind::CStr) => true,
            Some(FieldKind::ItemRaw) => false,
            _ => return Err(Error::unsupported("WT_CURSOR.modify only supported for 'S' and 'u' value formats")),
        };
        if entries.is_empty() {
            return Err(Error::invalid("Illegal modify vector with 0 entries"));
        }
        self.require_key()?;
        self.check_writable()?;
        if self.key_out_of_bounds() {
            return Err(self.missing(epoch));
        }
        if !txn.is_running() {
            return Err(Error::unsupported("not supported in implicit transactions"));
        }
        if txn.effective_isolation() != Isolation::Snapshot {
            return Err(Error::unsupported("not supported in read-committed or read-uncommitted transactions"));
        }
        let Some(mut value) = self.stored(txn)? else {
            return Err(self.missing(epoch));
        };
        if string && value.last() == Some(&0) {
            value.pop();
        }
        apply_modifications(&mut value, entries, if string { b' ' } else { 0 });
        if string {
            value.push(0);
        }
        self.write_back(epoch, txn, &value)
    }

    /// `WT_CURSOR::reserve`: inside a running transaction, claims the record for this
    /// transaction without changing it (another writer of the key gets `WT_ROLLBACK` until the
    /// transaction ends). The cursor ends on the record.
    ///
    /// The claim is an uncommitted version holding the value the transaction sees: committed,
    /// it leaves the value as it was.
    pub fn reserve(&mut self, epoch: u64, txn: &mut Txn) -> Result<()> {
        self.require_key()?;
        self.check_writable()?;
        if self.key_out_of_bounds() {
            return Err(self.missing(epoch));
        }
        if !txn.is_running() {
            return Err(Error::invalid("only permitted in a running transaction"));
        }
        if !txn.can_write() {
            return Err(super::refused_at_isolation());
        }
        let Some(value) = self.stored(txn)? else {
            return Err(self.missing(epoch));
        };
        self.write_back(epoch, txn, &value)
    }

    /// `WT_CURSOR::largest_key`: the key becomes the largest key the table holds, whatever its
    /// visibility; the cursor ends unpositioned with no value. `WT_NOTFOUND` for an empty table.
    pub fn largest_key(&mut self, epoch: u64) -> Result<()> {
        if self.bounds.is_some() {
            return Err(Error::invalid("setting bounds is not compatible with cursor largest key"));
        }
        let Some(key) = self.table.layers().largest_key()? else {
            self.reset();
            return Err(Error::quiet(Kind::NotFound));
        };
        self.reset();
        self.key.set_engine(&key, epoch);
        self.key.mark_app();
        Ok(())
    }

    /// The value of the key that is set, as the transaction sees it.
    fn stored(&self, txn: &mut Txn) -> Result<Option<Vec<u8>>> {
        let view = txn.read_view();
        let guard = Guard::new();
        Ok(self.table.layers().read(self.key.raw(), &view, &guard)?.map(|v| v.into_owned()))
    }

    /// Writes `value` over the existing record of the key that is set; the cursor then is on
    /// the record, holding it (as `update` leaves it).
    fn write_back(&mut self, epoch: u64, txn: &mut Txn, value: &[u8]) -> Result<()> {
        if let Err(refused) = txn.write(&self.table, self.key.raw(), Some(value), Mode::UpdateExisting) {
            return Err(self.refused(refused, epoch, txn));
        }
        self.land_on_written(epoch, value);
        Ok(())
    }

    fn land_on_written(&mut self, epoch: u64, value: &[u8]) {
        self.value.set_engine(value, epoch);
        self.at_in_key = true;
        self.key.mark_engine(epoch);
        self.positioned = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(value: &[u8], entries: &[(&[u8], usize, usize)], pad: u8) -> Vec<u8> {
        let entries: Vec<Modification<'_>> =
            entries.iter().map(|&(data, offset, size)| Modification { data, offset, size }).collect();
        let mut v = value.to_vec();
        apply_modifications(&mut v, &entries, pad);
        v
    }

    #[test]
    fn modifications_follow_the_reference_rules() {
        // Replace, in order (the second entry sees the first's result).
        assert_eq!(apply(b"hello world", &[(b"HELLO", 0, 5)], b' '), b"HELLO world");
        assert_eq!(apply(b"hello world", &[(b"HELLO", 0, 5), (b"XY", 3, 100)], b' '), b"HELXY");
        // Past the end: padding up to the offset, the size ignored.
        assert_eq!(apply(b"hello", &[(b"XY", 8, 4)], b' '), b"hello   XY");
        assert_eq!(apply(b"ab", &[(b"Z", 4, 0)], 0), b"ab\0\0Z");
        // Insert (size 0), delete (no data), at the very end.
        assert_eq!(apply(b"abc", &[(b"-", 1, 0)], 0), b"a-bc");
        assert_eq!(apply(b"abc", &[(b"", 1, 1)], 0), b"ac");
        assert_eq!(apply(b"bee", &[(b"XY", 3, 100)], b' '), b"beeXY");
        assert_eq!(apply(b"", &[(b"x", 0, usize::MAX)], 0), b"x");
    }
}
