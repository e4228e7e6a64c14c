//! The connection's tables by name. Look-ups take no lock and write nothing shared (they run
//! once per session and table: sessions keep their own handle map afterwards).

use std::sync::Arc;

use scc::{Guard, HashIndex};

use crate::error::{Error, Kind, Result};

use super::{Table, TableSpec};

/// All tables of a connection.
#[derive(Default)]
pub struct Registry {
    tables: HashIndex<String, Arc<Table>>,
}

impl Registry {
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
        let name = spec.name.clone();
        let table = Arc::new(Table::new(spec)?);
        match self.tables.insert_sync(name, table) {
            Ok(()) => Ok(()),
            // Another session created it first.
            Err(_) if exclusive => Err(Error::quiet(Kind::Exists)),
            Err(_) => Ok(()),
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
        self.tables.remove_if_sync(name, |t| Arc::ptr_eq(t, &table));
        Ok(())
    }
}
