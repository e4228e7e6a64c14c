//! A session's side of the journal: the running transaction's redo record (every write, in
//! order), built as it writes and handed to the journal at commit. Owned by one session, so
//! plain data; a session whose transaction only reads never touches the journal.
//!
//! Record layout (one journal frame): `count u32`, then per write `op u8` (1 put, 2 remove),
//! `table id u64`, `key` (length-prefixed), and for a put the `value` (length-prefixed). A
//! message record (`log_printf`, journal layout 3) holds one op 3 and its text
//! (length-prefixed); replay skips it.
//!
//! With `log=(compressor=NAME)`, a transaction's record of at least [`COMPRESS_MIN`] bytes is
//! stored compressed when that makes it shorter: the top bit of `count` is set, then come
//! `length u32` (of the writes as above) and the compressor's output for them (the journal
//! frame around it is as for any record). Messages are never compressed.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use crate::btree::compress::Compressor;
use crate::error::{Error, Kind, Result};

use super::frame::{Put, Take};
use super::journal::Committer;

const OP_PUT: u8 = 1;
const OP_REMOVE: u8 = 2;
const OP_MESSAGE: u8 = 3;

/// The top bit of a record's count: the writes that follow are compressed.
const COMPRESSED: u32 = 1 << 31;

/// The shortest record a journal compressor is given.
pub const COMPRESS_MIN: usize = 128;

/// What journal compression did (the reference's "log: log records compressed" and the
/// others), counted by the committing sessions.
#[derive(Debug, Default)]
pub struct CompressStats {
    /// Records stored compressed.
    pub compressed: AtomicU64,
    /// Records the compressor did not make shorter (stored as they are).
    pub not_compressed: AtomicU64,
    /// Records shorter than [`COMPRESS_MIN`].
    pub too_small: AtomicU64,
    /// The compressed records' bytes before compression.
    pub bytes_before: AtomicU64,
    /// And after.
    pub bytes_after: AtomicU64,
}

/// A journal compressor and where its work is counted.
#[derive(Clone)]
pub struct LogCompressor {
    /// The application's compressor.
    pub compressor: Arc<dyn Compressor>,
    /// Its counts.
    pub stats: Arc<CompressStats>,
}

/// One write of a record.
#[derive(Debug, PartialEq, Eq)]
pub enum Op<'a> {
    /// `key` of table `table` holds `value`.
    #[allow(missing_docs)]
    Put { table: u64, key: &'a [u8], value: &'a [u8] },
    /// `key` of table `table` is removed.
    #[allow(missing_docs)]
    Remove { table: u64, key: &'a [u8] },
    /// A message (`log_printf`): changes nothing.
    #[allow(missing_docs)]
    Message { text: &'a [u8] },
}

/// The connection's commit durability default (`transaction_sync`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncDefault {
    /// `transaction_sync=(enabled=true)` with a method other than `none`.
    pub sync: bool,
}

/// One session's redo record and its committer to the journal.
pub struct Redo {
    committer: Committer,
    default: SyncDefault,
    record: Put,
    count: u32,
    /// `begin_transaction`'s `sync=`, for the running transaction.
    txn_sync: Option<bool>,
    /// `log=(compressor=)`'s compressor, and the buffer its records are made in.
    compressor: Option<LogCompressor>,
    packed: Vec<u8>,
}

impl Redo {
    /// A session's redo state.
    pub fn new(committer: Committer, default: SyncDefault, compressor: Option<LogCompressor>) -> Redo {
        let mut record = Put::default();
        record.u32(0);
        Redo { committer, default, record, count: 0, txn_sync: None, compressor, packed: Vec::new() }
    }

    /// `begin_transaction(sync=…)` (`None`: the connection's default).
    pub fn set_txn_sync(&mut self, sync: Option<bool>) {
        self.txn_sync = sync;
    }

    /// Records a write: `value` `None` is a removal.
    pub fn record(&mut self, table: u64, key: &[u8], value: Option<&[u8]>) {
        match value {
            Some(v) => self.record.u8(OP_PUT).u64(table).bytes(key).bytes(v),
            None => self.record.u8(OP_REMOVE).u64(table).bytes(key),
        };
        self.count += 1;
    }

    /// Puts the record in the journal (synced if `sync`, else as configured); the caller
    /// publishes, then calls [`Redo::published`]. On error nothing of the transaction is in the
    /// journal.
    pub fn commit(&mut self, sync: Option<bool>) -> Result<()> {
        if self.count == 0 {
            return Ok(());
        }
        self.record.0[..4].copy_from_slice(&self.count.to_le_bytes());
        let sync = sync.or(self.txn_sync).unwrap_or(self.default.sync);
        let compressed = match &self.compressor {
            None => Ok(false),
            Some(c) if self.record.0.len() < COMPRESS_MIN => {
                c.stats.too_small.fetch_add(1, Relaxed);
                Ok(false)
            }
            Some(c) => compress(c.compressor.as_ref(), &self.record.0, &mut self.packed).inspect(|&packed| {
                if packed {
                    c.stats.compressed.fetch_add(1, Relaxed);
                    c.stats.bytes_before.fetch_add(self.record.0.len() as u64, Relaxed);
                    c.stats.bytes_after.fetch_add(self.packed.len() as u64, Relaxed);
                } else {
                    c.stats.not_compressed.fetch_add(1, Relaxed);
                }
            }),
        };
        let out = compressed.and_then(|packed| {
            let record = if packed { &self.packed } else { &self.record.0 };
            self.committer.commit(record, sync)
        });
        self.clear();
        out
    }

    /// The commit's versions are published (call after every successful [`Redo::commit`]).
    pub fn published(&mut self) {
        self.committer.published();
    }

    /// `WT_SESSION::log_printf`: a message record, outside any transaction (not synced).
    pub fn message(&mut self, text: &str) -> Result<()> {
        let mut record = Put::default();
        record.u32(1).u8(OP_MESSAGE).bytes(text.as_bytes());
        self.committer.commit(&record.0, false)?;
        self.committer.published();
        Ok(())
    }

    /// Forgets the running transaction's writes (rollback, or the record went to the journal).
    pub fn clear(&mut self) {
        self.record.0.truncate(4);
        self.count = 0;
        self.txn_sync = None;
    }
}

/// `record` compressed into `out` (see the module's layout); false when that would not make it
/// shorter (or the compressor declined). A compressor error fails the commit.
fn compress(compressor: &dyn Compressor, record: &[u8], out: &mut Vec<u8>) -> Result<bool> {
    let (head, writes) = record.split_at(4);
    let count = u32::from_le_bytes(head.try_into().expect("4 bytes"));
    let mut packed = std::mem::take(out);
    packed.clear();
    let kept = compressor.compress(writes, &mut packed)? && packed.len() + 8 < record.len();
    if kept {
        let mut framed = Vec::with_capacity(packed.len() + 8);
        framed.extend_from_slice(&(count | COMPRESSED).to_le_bytes());
        framed.extend_from_slice(&(writes.len() as u32).to_le_bytes());
        framed.extend_from_slice(&packed);
        packed = framed;
    }
    *out = packed;
    Ok(kept)
}

/// A journal record of `file` as [`decode`] reads it: decompressed by `compressor` when it
/// was stored compressed (`WT_ERROR` when there is none to do it).
pub fn expand<'a>(record: &'a [u8], compressor: Option<&dyn Compressor>, file: &str) -> Result<Cow<'a, [u8]>> {
    let word = |at: usize| record.get(at..at + 4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
    let Some(count) = word(0).filter(|c| c & COMPRESSED != 0) else { return Ok(Cow::Borrowed(record)) };
    let Some(compressor) = compressor else {
        return Err(Error::new(
            Kind::Generic,
            format!("{file}: a compressed journal record and no journal compressor (log=(compressor=)) configured"),
        ));
    };
    let len = word(4).ok_or_else(|| super::frame::corrupt(file, "a compressed journal record without its length"))? as usize;
    let mut out = vec![0; 4 + len];
    out[..4].copy_from_slice(&(count & !COMPRESSED).to_le_bytes());
    let n = compressor.decompress(&record[8..], &mut out[4..])?;
    if n != len {
        return Err(super::frame::corrupt(file, "a compressed journal record that does not decompress to its length"));
    }
    Ok(Cow::Owned(out))
}

/// The writes of a journal record of `file`, in order.
pub fn decode<'a>(record: &'a [u8], file: &'a str) -> Result<Vec<Op<'a>>> {
    let mut t = Take::new(record, file);
    let n = t.u32()?;
    let mut ops = Vec::with_capacity(n.min(1 << 16) as usize);
    for _ in 0..n {
        ops.push(match t.u8()? {
            OP_PUT => Op::Put { table: t.u64()?, key: t.bytes()?, value: t.bytes()? },
            OP_REMOVE => Op::Remove { table: t.u64()?, key: t.bytes()? },
            OP_MESSAGE => Op::Message { text: t.bytes()? },
            _ => return Err(super::frame::corrupt(file, "unknown journal operation")),
        });
    }
    if !t.is_empty() {
        return Err(super::frame::corrupt(file, "unexpected bytes after a journal record"));
    }
    Ok(ops)
}
