//! `WT_SESSION::truncate`: removes every record of a table, or of a key range given by start
//! and stop cursors (both bounds included), as one transaction: the running one, or one of its
//! own that commits when all removals succeeded.

use std::sync::Arc;

use scc::Guard;

use crate::conn::Connection;
use crate::error::{Error, Kind, Result};
use crate::schema::Table;
use crate::store::{collate, Mode, Refused, Seek};

use super::schema_ops::table_name;
use super::{CursorId, Session};

/// What to truncate, as the application names it.
pub enum Truncate<'a> {
    /// A whole object by URI.
    Object(&'a str),
    /// The records from `start`'s key to `stop`'s (a missing cursor: from the first record, or
    /// to the last). Both cursors belong to the session and have their keys set.
    Range {
        /// The cursor holding the first key.
        start: Option<CursorId>,
        /// The cursor holding the last key.
        stop: Option<CursorId>,
    },
}

impl Session {
    /// `WT_SESSION::truncate`. Returns the number of records removed.
    pub fn truncate(&mut self, conn: &Connection, what: Truncate<'_>) -> Result<u64> {
        let (table, start, stop) = match what {
            Truncate::Object(uri) => {
                let (table, _) = self.table(conn, table_name(uri)?)?;
                (table, None, None)
            }
            Truncate::Range { start, stop } => self.range_bounds(start, stop)?,
        };
        if let (Some(a), Some(b)) = (&start, &stop) {
            if collate::cmp(table.collator().map(|c| &**c), a, b).is_gt() {
                return Err(Error::invalid("the start cursor position is after the stop cursor position"));
            }
        }
        if self.txn.is_running() {
            return self.remove_range(&table, start.as_deref(), stop.as_deref());
        }
        // Outside a transaction, one of its own: all of the range or nothing.
        self.begin_transaction(None)?;
        match self.remove_range(&table, start.as_deref(), stop.as_deref()) {
            Ok(removed) => self.commit_transaction(None).map(|()| removed),
            Err(e) => {
                let _ = self.rollback_transaction(None);
                Err(e)
            }
        }
    }

    /// The table and keys of a range's cursors.
    fn range_bounds(&self, start: Option<CursorId>, stop: Option<CursorId>) -> Result<(Arc<Table>, Option<Vec<u8>>, Option<Vec<u8>>)> {
        let bound = |id: Option<CursorId>| -> Result<Option<(Arc<Table>, Vec<u8>)>> {
            let Some(id) = id else { return Ok(None) };
            let cursor = self.cursor(id);
            Ok(Some((Arc::clone(cursor.table()), cursor.key_bytes()?.to_vec())))
        };
        match (bound(start)?, bound(stop)?) {
            (Some((a, from)), Some((b, to))) => {
                if !Arc::ptr_eq(&a, &b) {
                    return Err(Error::invalid("truncate start and stop cursors must reference the same object"));
                }
                Ok((a, Some(from), Some(to)))
            }
            (Some((table, from)), None) => Ok((table, Some(from), None)),
            (None, Some((table, to))) => Ok((table, None, Some(to))),
            (None, None) => Err(Error::invalid(
                "the truncate method should be passed either a URI or start/stop cursors, but not both",
            )),
        }
    }

    /// Removes, in the running transaction, every record `from..=to` it sees. On a collated
    /// table the comparisons are made for this session, and one that failed is the error.
    fn remove_range(&mut self, table: &Arc<Table>, from: Option<&[u8]>, to: Option<&[u8]>) -> Result<u64> {
        if table.collator().is_none() {
            return self.remove_range_in(table, from, to);
        }
        collate::within(self.caller, || self.remove_range_in(table, from, to))
    }

    fn remove_range_in(&mut self, table: &Arc<Table>, from: Option<&[u8]>, to: Option<&[u8]>) -> Result<u64> {
        let mut at: Option<Vec<u8>> = from.map(<[u8]>::to_vec);
        let mut dir = Seek::Ge;
        let mut removed = 0;
        loop {
            let view = self.txn.read_view();
            let next = {
                let guard = Guard::new();
                table.layers().seek(at.as_deref(), dir, view, &guard)?.map(|(k, _)| k.into_owned())
            };
            let Some(key) = next else { break };
            if to.is_some_and(|to| collate::cmp(table.collator().map(|c| &**c), &key, to).is_gt()) {
                break;
            }
            match self.txn.write(table, &key, None, Mode::Remove) {
                Ok(()) => removed += 1,
                // Removed meanwhile by a commit this transaction's snapshot does not see.
                Err(Refused::Missing) => {}
                Err(Refused::Conflict) => return Err(Error::quiet(Kind::Rollback)),
                Err(Refused::Failed) => return Err(self.txn.take_failure()),
                Err(Refused::Exists) => unreachable!("a removal never asks for a new key"),
            }
            at = Some(key);
            dir = Seek::Gt;
        }
        Ok(removed)
    }
}
