//! The connection's tables by name. Look-ups take no lock and write nothing shared (they run
//! once per session and table: sessions keep their own handle map afterwards).
//!
//! # Where a table is freed
//! A table holds `scc` and `sdd` structures whose drop runs the epoch collector. The registry's
//! `HashIndex` frees the values it removed from inside that same collector (when it reclaims a
//! bucket), and a table freed there re-enters the collector and deadlocks on its own lock (a
//! dropped table hung `WT_CONNECTION::close`). So the hash index never holds the last reference:
//! `owners` keeps one per table, and lets a dropped table go only once every other reference
//! is gone, at the next `create`/`drop` or when the registry itself is dropped, never inside the
//! collector.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crossbeam_utils::CachePadded;

use parking_lot::Mutex;
use scc::{Guard, HashIndex};

use crate::error::{Error, Kind, Result};

use super::{Table, TableSpec};

/// All tables of a connection.
#[derive(Default)]
pub struct Registry {
    // Declared first, so dropped first: the hash index lets go of its references while
    // `owners` still holds one of each table.
    tables: HashIndex<String, Arc<Table>>,
    /// One reference to every live table and to each dropped one something else still holds.
    owners: Mutex<Vec<Arc<Table>>>,
    /// Tables dropped so far: sessions kept for reuse look for dropped tables to let go of only
    /// when it moved. Written by `drop` only, on a line of its own.
    drops: CachePadded<AtomicU64>,
}

impl Registry {
    /// Tables dropped so far (see `drops`).
    #[inline]
    pub fn drops(&self) -> u64 {
        self.drops.load(Ordering::Acquire)
    }

    /// Finds a table by the name after `table:`.
    pub fn get(&self, name: &str) -> Option<Arc<Table>> {
        let guard = Guard::new();
        self.tables.peek(name, &guard).cloned()
    }

    /// Creates a table. An existing table is kept unchanged (the reference does not compare
    /// configurations) unless `exclusive` asks for `EEXIST`.
    pub fn create(&self, spec: TableSpec, exclusive: bool) -> Result<()> {
        if self.get(&spec.name).is_some() {
            return if exclusive { Err(Error::quiet(Kind::Exists)) } else { Ok(()) };
        }
        self.insert(Table::new(spec)?, exclusive)
    }

    /// Adds a table built by the caller (an on-disk table with its tree), as
    /// [`create`](Self::create) does.
    pub fn insert(&self, table: Table, exclusive: bool) -> Result<()> {
        let name = table.name().to_string();
        if let Some(parent) = super::layout::parent_table(&name).and_then(|t| self.get(t)) {
            // A column group or index: the table's cursors keep it in step from now on.
            parent.set_managed();
        }
        let table = Arc::new(table);
        // Owned before it is published, so the hash index never holds its last reference.
        self.own(Arc::clone(&table));
        match self.tables.insert_sync(name, Arc::clone(&table)) {
            Ok(()) => Ok(()),
            // Another session created it first: ours was never published.
            Err(_) => {
                self.disown(&table);
                if exclusive { Err(Error::quiet(Kind::Exists)) } else { Ok(()) }
            }
        }
    }

    /// Every table, in no particular order (statistics log rounds).
    pub fn tables(&self) -> Vec<Arc<Table>> {
        let guard = Guard::new();
        self.tables.iter(&guard).map(|(_, t)| Arc::clone(t)).collect()
    }

    /// Drops a table: `ENOENT` if missing, `EBUSY` while a cursor is open on it.
    pub fn drop_table(&self, name: &str) -> Result<()> {
        let table = self.get(name).ok_or(Error::quiet(Kind::NoEntry))?;
        table.begin_drop()?;
        // After the table's mark: a session that reads the new count sees the table dropped.
        self.drops.fetch_add(1, Ordering::Release);
        self.tables.remove_if_sync(name, |t| Arc::ptr_eq(t, &table));
        drop(table);
        self.release_unused();
        Ok(())
    }

    /// Adds `table` to the owned list, first letting go of dropped tables nobody else holds.
    fn own(&self, table: Arc<Table>) {
        let freed = {
            let mut owners = self.owners.lock();
            let freed = take_unused(&mut owners);
            owners.push(table);
            freed
        };
        drop(freed);
    }

    /// Forgets a table that was never published.
    fn disown(&self, table: &Arc<Table>) {
        let mut owners = self.owners.lock();
        if let Some(at) = owners.iter().rposition(|t| Arc::ptr_eq(t, table)) {
            owners.swap_remove(at);
        }
    }

    /// Frees the dropped tables whose only reference is the owned one.
    fn release_unused(&self) {
        let freed = take_unused(&mut self.owners.lock());
        // Freed outside the lock: a table's drop runs the epoch collector.
        drop(freed);
    }
}

/// Takes out of `owners` the dropped tables nothing else refers to. The hash index's copy of a
/// dropped table counts until the collector reclaims it, so a count of one means no reader can
/// reach the table any more.
fn take_unused(owners: &mut Vec<Arc<Table>>) -> Vec<Arc<Table>> {
    let mut freed = Vec::new();
    let mut i = 0;
    while i < owners.len() {
        if owners[i].is_dropped() && Arc::strong_count(&owners[i]) == 1 {
            freed.push(owners.swap_remove(i));
        } else {
            i += 1;
        }
    }
    freed
}
