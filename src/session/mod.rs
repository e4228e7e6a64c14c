//! A session: its settings, its table handles and its cursors. A session is used by one thread
//! at a time, so nothing here is shared or locked; what other threads may read (statistics,
//! later) lives in the connection's session slots.

mod cache;
mod cursors;
mod schema_ops;
mod statistics;
mod uri;

pub use cursors::{Closed, CursorId};
pub use schema_ops::Opened;
pub use statistics::StatsCursor;
pub use uri::Uri;

use std::collections::HashMap;
use std::sync::Arc;

use crate::config::{self, Method};
use crate::conn::Connection;
use crate::cursor::Cursor;
use crate::error::{Error, Result};
use crate::schema::{Table, TableUse};
use crate::stats::counters::{ConnStat, DsrcStat, SlotRef, SlotStats};

/// Transaction isolation levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Sees other transactions' uncommitted writes.
    ReadUncommitted,
    /// Each read sees the latest committed data.
    ReadCommitted,
    /// Sees a snapshot taken when the transaction began.
    Snapshot,
}

impl Isolation {
    fn parse(text: &str) -> Isolation {
        match text {
            "read-uncommitted" => Isolation::ReadUncommitted,
            "read-committed" => Isolation::ReadCommitted,
            _ => Isolation::Snapshot,
        }
    }
}

/// One session's state.
pub struct Session {
    slot: usize,
    cache_cursors: bool,
    isolation: Isolation,
    /// Tables this session has used, with its use record of each: after the first open of a
    /// table, opening cursors on it touches no shared structure.
    tables: HashMap<Box<str>, (Arc<Table>, Arc<TableUse>)>,
    cursors: cursors::CursorSet,
    /// Bumped by events after which engine-returned values count as the application's copies.
    copy_epoch: u64,
    /// The connection's statistics blocks; this session writes only its slot's.
    slot_stats: Arc<SlotStats>,
    /// Cursors freed by the session itself (stale parked cursors) whose C handles must go.
    freed: Vec<CursorId>,
}

impl Session {
    /// A session in slot `slot` (already claimed), configured by `open_session`'s `config`.
    pub fn open(conn: &Connection, slot: usize, config: Option<&str>) -> Result<Session> {
        let cfg = config::validate(Method::OpenSession, config, None)?;
        let cache_cursors =
            if cfg.is_set("cache_cursors") { cfg.bool("cache_cursors") } else { conn.settings().cache_cursors };
        Ok(Session {
            slot,
            cache_cursors,
            isolation: Isolation::parse(cfg.str("isolation")),
            tables: HashMap::new(),
            cursors: cursors::CursorSet::default(),
            copy_epoch: 1,
            slot_stats: Arc::clone(conn.slot_stats()),
            freed: Vec::new(),
        })
        .inspect(|s| s.stats().add(ConnStat::OpenSessions, 1))
    }

    /// This session's statistics block.
    #[inline(always)]
    pub fn stats(&self) -> SlotRef<'_> {
        self.slot_stats.slot(self.slot)
    }

    /// The slot this session occupies.
    pub fn slot(&self) -> usize {
        self.slot
    }

    /// Whether closed cursors are cached.
    pub fn cache_cursors(&self) -> bool {
        self.cache_cursors
    }

    /// The session's default isolation.
    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    /// `WT_SESSION::reconfigure`: changes only the keys given and resets every cursor. Turning
    /// `cache_cursors` off empties the cursor cache.
    pub fn reconfigure(&mut self, config: Option<&str>) -> Result<()> {
        let cfg = config::validate(Method::OpenSession, config, None)?;
        if cfg.is_set("cache_cursors") {
            self.cache_cursors = cfg.bool("cache_cursors");
            if !self.cache_cursors {
                self.empty_cache();
            }
        }
        if cfg.is_set("isolation") {
            self.isolation = Isolation::parse(cfg.str("isolation"));
        }
        self.reset_cursors();
        Ok(())
    }

    /// `WT_SESSION::reset`: resets every cursor and sweeps the cursor cache.
    pub fn reset(&mut self) -> Result<()> {
        self.reset_cursors();
        self.sweep_cache(cache::Sweep::Big);
        Ok(())
    }

    /// Resets every open cursor, counting a reset for each that was positioned.
    fn reset_cursors(&mut self) {
        let mut reset = 0;
        self.cursors.reset_all(|c| {
            reset += 1;
            c.table_use().stats.add(DsrcStat::Resets, 1);
        });
        self.stats().add(ConnStat::Resets, reset);
    }

    /// Closes the session's cursors (for good) and empties its cache; returns every cursor id
    /// it freed, for the C layer to free their handles. The session is then ready to drop.
    pub fn close(&mut self) -> Vec<CursorId> {
        self.cache_cursors = false;
        let open = self.cursors.ids();
        for &id in &open {
            self.close_for_good(id);
        }
        self.empty_cache();
        let mut freed = self.take_freed();
        freed.extend(open);
        freed
    }

    /// `WT_SESSION::begin_transaction` (transactions arrive with their own issue).
    pub fn begin_transaction(&mut self, config: Option<&str>) -> Result<()> {
        config::validate(Method::BeginTransaction, config, None)?;
        Err(Error::unsupported("transactions are not supported yet"))
    }

    /// `WT_SESSION::commit_transaction`: no transaction can be running yet.
    pub fn commit_transaction(&mut self, config: Option<&str>) -> Result<()> {
        config::validate(Method::CommitTransaction, config, None)?;
        Err(Error::invalid("only permitted in a running transaction"))
    }

    /// `WT_SESSION::rollback_transaction`: no transaction can be running yet.
    pub fn rollback_transaction(&mut self, config: Option<&str>) -> Result<()> {
        config::validate(Method::RollbackTransaction, config, None)?;
        Err(Error::invalid("only permitted in a running transaction"))
    }

    /// `WT_SESSION::checkpoint`.
    pub fn checkpoint(&mut self, conn: &Connection, config: Option<&str>) -> Result<()> {
        config::validate(Method::Checkpoint, config, None)?;
        if conn.settings().in_memory {
            return Err(Error::unsupported("not supported for in-memory configurations"));
        }
        Err(Error::unsupported("checkpoints are not supported yet"))
    }

    /// The session's handle of table `name`, looked up in the registry on first use.
    fn table(&mut self, conn: &Connection, name: &str) -> Result<(Arc<Table>, Arc<TableUse>)> {
        if let Some((table, table_use)) = self.tables.get(name) {
            if !table.is_dropped() {
                return Ok((Arc::clone(table), Arc::clone(table_use)));
            }
            self.tables.remove(name);
        }
        let table = conn.registry().get(name).ok_or(Error::quiet(crate::error::Kind::NoEntry))?;
        let table_use = table.register_use();
        self.tables.insert(name.into(), (Arc::clone(&table), Arc::clone(&table_use)));
        Ok((table, table_use))
    }

    /// Every cursor of the session, for closing them.
    pub fn cursor_ids(&self) -> Vec<CursorId> {
        self.cursors.ids()
    }

    /// A cursor of this session.
    pub fn cursor(&self, id: CursorId) -> &Cursor {
        self.cursors.get(id)
    }
}

impl Drop for Session {
    /// The session's cursors are closed by now; its use records leave their tables (their
    /// statistics stay with the tables) and its slot stops counting it as open.
    fn drop(&mut self) {
        for (table, table_use) in self.tables.values() {
            table.unregister_use(table_use);
        }
        let stats = self.stats();
        debug_assert_eq!(stats.open_cursors(), 0, "a closing session has no open cursors");
        stats.add(ConnStat::OpenSessions, -1);
    }
}
