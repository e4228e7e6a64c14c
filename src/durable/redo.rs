//! A session's side of the journal: the running transaction's redo record (every write, in
//! order), built as it writes and handed to the journal at commit. Owned by one session, so
//! plain data; a session whose transaction only reads never touches the journal.
//!
//! Record layout (one journal frame): `count u32`, then per write `op u8` (1 put, 2 remove),
//! `table id u64`, `key` (length-prefixed), and for a put the `value` (length-prefixed).

use std::sync::Arc;

use crate::error::Result;

use super::frame::{Put, Take};
use super::journal::{Journal, Ticket};

const OP_PUT: u8 = 1;
const OP_REMOVE: u8 = 2;

/// One write of a record.
#[derive(Debug, PartialEq, Eq)]
pub enum Op<'a> {
    /// `key` of table `table` holds `value`.
    #[allow(missing_docs)]
    Put { table: u64, key: &'a [u8], value: &'a [u8] },
    /// `key` of table `table` is removed.
    #[allow(missing_docs)]
    Remove { table: u64, key: &'a [u8] },
}

/// The connection's commit durability default (`transaction_sync`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncDefault {
    /// `transaction_sync=(enabled=true)` with a method other than `none`.
    pub sync: bool,
}

/// One session's redo record and the journal it goes to.
pub struct Redo {
    journal: Arc<Journal>,
    default: SyncDefault,
    record: Put,
    count: u32,
    /// `begin_transaction`'s `sync=`, for the running transaction.
    txn_sync: Option<bool>,
    /// A commit in flight: its versions are being published.
    ticket: Option<Ticket>,
}

impl Redo {
    /// A session's redo state.
    pub fn new(journal: Arc<Journal>, default: SyncDefault) -> Redo {
        let mut record = Put::default();
        record.u32(0);
        Redo { journal, default, record, count: 0, txn_sync: None, ticket: None }
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

    /// Writes the record to the journal (synced if `sync`, else as configured) and keeps the
    /// ticket until [`Redo::published`]. On error nothing of the transaction is in the journal.
    pub fn commit(&mut self, sync: Option<bool>) -> Result<()> {
        if self.count == 0 {
            return Ok(());
        }
        self.record.0[..4].copy_from_slice(&self.count.to_le_bytes());
        let sync = sync.or(self.txn_sync).unwrap_or(self.default.sync);
        let out = self.journal.commit(&self.record.0, sync);
        self.clear();
        self.ticket = Some(out?);
        Ok(())
    }

    /// The commit's versions are published (call after every successful [`Redo::commit`]).
    pub fn published(&mut self) {
        if let Some(ticket) = self.ticket.take() {
            self.journal.published(ticket);
        }
    }

    /// Forgets the running transaction's writes (rollback, or the record went to the journal).
    pub fn clear(&mut self) {
        self.record.0.truncate(4);
        self.count = 0;
        self.txn_sync = None;
    }
}

impl Drop for Redo {
    fn drop(&mut self) {
        self.published();
    }
}

/// The writes of a journal record of `file`, in order.
pub fn decode<'a>(record: &'a [u8], file: &'a str) -> Result<Vec<Op<'a>>> {
    let mut t = Take::new(record, file);
    let n = t.u32()?;
    let mut ops = Vec::with_capacity(n.min(1 << 16) as usize);
    for _ in 0..n {
        let op = t.u8()?;
        let table = t.u64()?;
        let key = t.bytes()?;
        ops.push(match op {
            OP_PUT => Op::Put { table, key, value: t.bytes()? },
            OP_REMOVE => Op::Remove { table, key },
            _ => return Err(super::frame::corrupt(file, "unknown journal operation")),
        });
    }
    if !t.is_empty() {
        return Err(super::frame::corrupt(file, "unexpected bytes after a journal record"));
    }
    Ok(ops)
}
