//! The session's cursors and the session-wide rules that span them: the reset walks and the
//! count of positioned cursors.

use crate::cursor::{Cursor, Exact};
use crate::error::{Kind, Result};
use crate::pack::Format;
use crate::store::ReadView;
use crate::txn::Txn;

use super::Session;

/// A cursor's index in its session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CursorId(pub usize);

/// A slab of cursors plus the number currently positioned.
#[derive(Default)]
pub struct CursorSet {
    slab: Vec<Option<Box<Cursor>>>,
    free: Vec<usize>,
    positioned: usize,
    next_seq: u64,
}

impl CursorSet {
    /// Adds a cursor built by `make` (which receives its opening sequence number).
    pub fn add(&mut self, make: impl FnOnce(u64) -> Cursor) -> CursorId {
        self.next_seq += 1;
        let cursor = Box::new(make(self.next_seq));
        match self.free.pop() {
            Some(i) => {
                self.slab[i] = Some(cursor);
                CursorId(i)
            }
            None => {
                self.slab.push(Some(cursor));
                CursorId(self.slab.len() - 1)
            }
        }
    }

    /// Removes a cursor.
    pub fn remove(&mut self, id: CursorId) -> Box<Cursor> {
        let cursor = self.slab[id.0].take().expect("cursor ids are valid while the cursor is open");
        if cursor.is_positioned() {
            self.positioned -= 1;
        }
        self.free.push(id.0);
        cursor
    }

    /// A cursor.
    pub fn get(&self, id: CursorId) -> &Cursor {
        self.slab[id.0].as_deref().expect("cursor ids are valid while the cursor is open")
    }

    /// A cursor, for calls that do not change whether it is positioned.
    pub fn get_mut(&mut self, id: CursorId) -> &mut Cursor {
        self.slab[id.0].as_deref_mut().expect("cursor ids are valid while the cursor is open")
    }

    /// Runs `f` on one cursor, keeping the positioned count right.
    pub fn with<T>(&mut self, id: CursorId, f: impl FnOnce(&mut Cursor) -> T) -> T {
        let cursor = self.slab[id.0].as_deref_mut().expect("cursor ids are valid while the cursor is open");
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

    /// Ids of all cursors.
    pub fn ids(&self) -> Vec<CursorId> {
        self.slab.iter().enumerate().filter(|(_, c)| c.is_some()).map(|(i, _)| CursorId(i)).collect()
    }

    /// Resets every cursor (rollback, session reset and reconfigure: the documented contract).
    pub fn reset_all(&mut self) {
        for cursor in self.slab.iter_mut().flatten() {
            cursor.reset();
        }
        self.positioned = 0;
    }

    /// The reference's walk after a failed auto-commit write: newest cursor first, resetting
    /// each, until no cursor of the session is positioned (traces/README.md §5.4-5.5).
    pub fn reset_walk(&mut self) {
        let mut order: Vec<(u64, usize)> =
            self.slab.iter().enumerate().filter_map(|(i, c)| c.as_ref().map(|c| (c.seq(), i))).collect();
        order.sort_unstable_by(|a, b| b.cmp(a));
        for (_, i) in order {
            if self.positioned == 0 {
                break;
            }
            self.with(CursorId(i), Cursor::reset);
        }
    }
}

/// Whether an error came from the write itself rather than from checking its arguments.
fn reached_data(kind: Kind) -> bool {
    matches!(kind, Kind::NotFound | Kind::DuplicateKey | Kind::Rollback)
}

impl Session {
    /// A read-type cursor call, in the session's read view (`op` also gets the transaction
    /// state, for searches that may refresh it): on failure the cursor keeps only what the
    /// application set.
    pub(super) fn read<T>(
        &mut self,
        id: CursorId,
        op: impl FnOnce(&mut Cursor, u64, ReadView, &mut Txn) -> Result<T>,
    ) -> Result<T> {
        let epoch = self.copy_epoch;
        let view = self.txn.read_view();
        let txn = &mut self.txn;
        let out = self.cursors.with(id, |c| {
            let out = op(c, epoch, view, txn);
            if out.is_err() {
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
    fn write(&mut self, id: CursorId, op: impl FnOnce(&mut Cursor, u64, &mut Txn) -> Result<()>) -> Result<()> {
        let epoch = self.copy_epoch;
        let txn = &mut self.txn;
        let out = self.cursors.with(id, |c| {
            let out = op(c, epoch, txn);
            if let Err(e) = &out {
                if !reached_data(e.kind()) {
                    c.fail(epoch);
                }
            }
            out
        });
        let reached = out.as_ref().err().is_some_and(|e| reached_data(e.kind()));
        self.write_done(&out, reached);
        out
    }

    /// `WT_CURSOR::search`.
    pub fn search(&mut self, id: CursorId) -> Result<()> {
        self.search_in_snapshot(id)
    }

    /// `WT_CURSOR::search_near`.
    pub fn search_near(&mut self, id: CursorId) -> Result<Exact> {
        self.read_or_refresh(id, Cursor::search_near)
    }

    /// `WT_CURSOR::next`.
    pub fn next(&mut self, id: CursorId) -> Result<()> {
        self.read(id, |c, epoch, view, _| c.next(epoch, view))
    }

    /// `WT_CURSOR::prev`.
    pub fn prev(&mut self, id: CursorId) -> Result<()> {
        self.read(id, |c, epoch, view, _| c.prev(epoch, view))
    }

    /// `WT_CURSOR::insert`.
    pub fn insert(&mut self, id: CursorId) -> Result<()> {
        self.write(id, Cursor::insert)
    }

    /// `WT_CURSOR::update`.
    pub fn update(&mut self, id: CursorId) -> Result<()> {
        self.write(id, Cursor::update)
    }

    /// `WT_CURSOR::remove`.
    pub fn remove(&mut self, id: CursorId) -> Result<()> {
        self.write(id, Cursor::remove)
    }

    /// `WT_CURSOR::reset`.
    pub fn reset_cursor(&mut self, id: CursorId) {
        self.cursors.with(id, Cursor::reset);
        self.idle_check();
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

    /// `WT_CURSOR::reconfigure`.
    pub fn reconfigure_cursor(&mut self, id: CursorId, config: Option<&str>) -> Result<()> {
        let cfg = crate::config::validate(crate::config::Method::CursorReconfigure, config, None)?;
        self.cursors.with(id, |c| {
            let next = c.config().reconfigured(&cfg);
            c.reconfigure(next);
        });
        self.idle_check();
        Ok(())
    }

    /// `WT_CURSOR::close`.
    pub fn close_cursor(&mut self, id: CursorId) {
        let cursor = self.cursors.remove(id);
        cursor.table().release(cursor.table_use());
        self.idle_check();
    }
}
