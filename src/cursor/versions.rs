//! The version cursor (`open_cursor(file:NAME.wt or table:NAME, "debug=(dump_version=true)")`):
//! the versions of one key, newest first, each with the reference's metadata in front of the
//! table's value (value format `QQQQQQBBBB` + the table's): start transaction, start and durable
//! start timestamps, stop transaction, stop and durable stop timestamps (the next newer
//! version's start, or the maximum values for the newest), update type, prepared, flags and
//! where the version was found (0: the in-memory chain, 1: the on-disk image).
//!
//! The versions are the index's chain for the key (a removal gives no row, but stops the
//! version before it, as in the reference), down to the first version every reader sees; a
//! key the index holds nothing for is read from the table's tree (location 1, no transaction
//! or timestamps). Transaction ids are unlatched's own.

use scc::Guard;

use crate::error::Result;
use crate::pack::{self, Arg, Format};
use crate::schema::Table;
use crate::store::{PREPARED, TS_ABORTED, TS_PENDING};

/// The metadata fields in front of the table's value.
pub const METADATA_FORMAT: &str = "QQQQQQBBBB";
/// The reference's `WT_TXN_MAX`: the stop transaction of the newest version.
const TXN_MAX: u64 = u64::MAX - 10;
/// The reference's `WT_TS_MAX`.
const TS_MAX: u64 = u64::MAX;
/// `WT_UPDATE_STANDARD`: a whole value.
const UPDATE_STANDARD: u64 = 3;
/// Where a version was found: the update chain or the on-disk image.
const IN_CHAIN: u64 = 0;
const ON_DISK: u64 = 1;

/// One version's start or stop: transaction, timestamp, durable timestamp.
type Stamp = (u64, u64, u64);

/// The rows a version cursor positioned on packed key `key` of `table` walks: (key, value in
/// [`METADATA_FORMAT`] followed by the table's value bytes), newest first.
pub fn rows(table: &Table, key: &[u8]) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut rows = Vec::new();
    let guard = Guard::new();
    let mut stop: Stamp = (TXN_MAX, TS_MAX, TS_MAX);
    let in_index = table.index().slot(key, &guard).is_some();
    let mut version = table.index().head(key, &guard);
    while let Some(v) = version {
        use std::sync::atomic::Ordering::Acquire;
        let commit = v.commit_ts.load(Acquire);
        let txn = v.txn_id.load(Acquire);
        let start = (txn & !PREPARED, v.start_ts.load(Acquire), v.durable_ts.load(Acquire));
        if commit != TS_ABORTED {
            let prepared = txn & PREPARED != 0;
            match v.data.bytes() {
                Some(value) => {
                    rows.push((key.to_vec(), pack_row(start, stop, prepared, IN_CHAIN, value)?));
                    if v.is_globally_visible() {
                        break;
                    }
                }
                // A removal stops the version before it.
                None if v.is_globally_visible() && commit != TS_PENDING => break,
                None => {}
            }
            stop = start;
        }
        version = v.next.load(Acquire, &guard).as_ref();
    }
    if !in_index {
        if let Some(value) = table.tree().map(|t| t.get(key, crate::btree::tree::TS_NEWEST)).transpose()?.flatten() {
            rows.push((key.to_vec(), pack_row((0, 0, 0), stop, false, ON_DISK, &value)?));
        }
    }
    Ok(rows)
}

fn pack_row(start: Stamp, stop: Stamp, prepared: bool, location: u64, value: &[u8]) -> Result<Vec<u8>> {
    let format = Format::parse(METADATA_FORMAT)?;
    let args = [
        Arg::Uint(start.0),
        Arg::Uint(start.1),
        Arg::Uint(start.2),
        Arg::Uint(stop.0),
        Arg::Uint(stop.1),
        Arg::Uint(stop.2),
        Arg::Uint(UPDATE_STANDARD),
        Arg::Uint(u64::from(prepared)),
        Arg::Uint(0),
        Arg::Uint(location),
    ];
    let mut out = Vec::with_capacity(48 + value.len());
    pack::pack(&format, &args, &mut out)?;
    // The table's fields follow; they pack the same after fixed fields as alone (only the
    // last field's encoding depends on its place, and it stays last).
    out.extend_from_slice(value);
    Ok(out)
}
