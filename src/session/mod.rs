//! A session: its settings, its table handles, its cursors and its transaction state. A session
//! is used by one thread at a time, so nothing here is shared or locked; what other threads read
//! (the published snapshot) lives in the connection (`crate::txn::pins`).

mod cache;
mod cursors;
mod pinned;
mod schema_ops;
mod statistics;
mod txn;
mod uri;

pub use cursors::{Closed, CursorId, Entry, QuickClose, QuickOpen};
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
use crate::stats::counters::{ConnStat, OwnedSlot, SlotRef};
use crate::txn::Txn;

pub use crate::txn::{Isolation, TxnStats};

/// One session's state.
pub struct Session {
    slot: usize,
    cache_cursors: bool,
    /// Isolation, the running transaction, the read snapshot, writes, counters.
    txn: Txn,
    /// Tables this session has used, with its use record of each: after the first open of a
    /// table, opening cursors on it touches no shared structure.
    tables: HashMap<Box<str>, (Arc<Table>, Arc<TableUse>)>,
    cursors: cursors::CursorSet,
    /// Bumped by events after which engine-returned values count as the application's copies.
    copy_epoch: u64,
    /// Cursors freed by the session itself (stale parked cursors) whose C handles must go.
    freed: Vec<CursorId>,
    /// A quick close asked for the small sweep of every 40th close (run by `close_finish`).
    sweep_pending: bool,
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
            txn: Txn::new(
                Arc::clone(conn.txn()),
                slot,
                Isolation::parse(cfg.str("isolation")),
                OwnedSlot::new(conn.slot_stats(), slot),
            ),
            tables: HashMap::new(),
            cursors: cursors::CursorSet::default(),
            copy_epoch: 1,
            freed: Vec::new(),
            sweep_pending: false,
        })
        .map(|mut s| {
            if let Some(redo) = conn.durable().and_then(|d| d.redo()) {
                s.txn.attach_redo(redo);
            }
            s
        })
        .inspect(|s| s.stats().add(ConnStat::OpenSessions, 1))
    }

    /// This session's statistics block.
    #[inline(always)]
    pub fn stats(&self) -> SlotRef<'_> {
        self.txn.stats_slot()
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
        self.txn.isolation()
    }

    /// `WT_SESSION::reconfigure`: changes only the keys given and resets every cursor. Turning
    /// `cache_cursors` off empties the cursor cache. Not inside a transaction.
    pub fn reconfigure(&mut self, config: Option<&str>) -> Result<()> {
        let cfg = self.in_txn(config::validate(Method::OpenSession, config, None).map_err(Error::from))?;
        self.not_in_transaction()?;
        if cfg.is_set("cache_cursors") {
            self.cache_cursors = cfg.bool("cache_cursors");
            if !self.cache_cursors {
                self.empty_cache();
            }
        }
        if cfg.is_set("isolation") {
            self.txn.set_isolation(Isolation::parse(cfg.str("isolation")));
        }
        self.reset_all_cursors();
        Ok(())
    }

    /// `WT_SESSION::reset`: resets every cursor and sweeps the cursor cache. Not inside a
    /// transaction.
    pub fn reset(&mut self) -> Result<()> {
        self.not_in_transaction()?;
        self.reset_all_cursors();
        self.sweep_cache(cache::Sweep::Big);
        Ok(())
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


    /// `WT_SESSION::checkpoint`.
    pub fn checkpoint(&mut self, conn: &Connection, config: Option<&str>) -> Result<()> {
        self.in_txn(config::validate(Method::Checkpoint, config, None).map_err(Error::from))?;
        // The reference refuses an in-memory database first, even inside a transaction.
        let Some(durable) = conn.durable() else {
            return self.in_txn(Err(Error::unsupported("not supported for in-memory configurations")));
        };
        self.not_in_transaction()?;
        // Like the reference, a checkpoint first resets the session's cursors by its reset walk
        // (traces/README.md §5.5): positioned cursors lose their place.
        self.cursors.reset_walk();
        self.idle_check();
        durable.checkpoint_in(conn.registry(), &mut self.txn)
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
    pub fn cursor_addresses(&self, id: CursorId) -> (std::ptr::NonNull<Cursor>, std::ptr::NonNull<Entry>) {
        self.cursors.addresses(id)
    }

    /// A cursor.
    pub fn cursor(&self, id: CursorId) -> &Cursor {
        self.cursors.get(id)
    }
}

impl Drop for Session {
    /// Closes what is still open (the C layer has closed everything already; a Rust user may
    /// just drop the session), then its use records leave their tables (their statistics stay
    /// with the tables) and its slot stops counting it as open.
    fn drop(&mut self) {
        self.close();
        for (table, table_use) in self.tables.values() {
            table.unregister_use(table_use);
        }
        let stats = self.stats();
        debug_assert_eq!(stats.open_cursors(), 0, "a closing session has no open cursors");
        stats.add(ConnStat::OpenSessions, -1);
    }
}
