//! A session: its settings, its table handles, its cursors and its transaction state. A session
//! is used by one thread at a time, so nothing here is shared or locked; what other threads read
//! (the published snapshot) lives in the connection (`crate::txn::pins`).

mod cache;
mod cursors;
mod listings;
mod pinned;
#[cfg(test)]
mod reuse_tests;
mod schema_cursor;
mod join_bloom;
mod schema_join;
mod schema_ops;
mod schema_parts;
mod statistics;
mod truncate;
pub mod txn;
mod uri;

pub use cursors::{Closed, CursorId, Entry, QuickClose, QuickOpen};
pub use schema_cursor::{joined as joined_error, SchemaCursor};
pub use listings::is_listing;
pub use schema_ops::Opened;
use schema_ops::file_table;
pub use statistics::StatsCursor;
pub use truncate::Truncate;
pub use uri::Uri;

use std::collections::HashMap;
use std::sync::Arc;

use crate::config::{self, Method};
use crate::conn::Connection;
use crate::cursor::Cursor;
use crate::error::{Error, Result};
use crate::schema::{Registry, Table, TableUse};
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
    /// Closed, its memory kept for the next session of its slot ([`park`](Self::park)).
    parked: bool,
    /// The connection's tables, and their drop count when this session last let go of
    /// dropped ones (`forget_dropped`).
    registry: Arc<Registry>,
    drops_seen: u64,
    /// The token the application knows this session by (the C layer's `WT_SESSION *`), passed
    /// to the application's callbacks (extractors); 0 when none was set.
    caller: usize,
}

impl Session {
    /// A session in slot `slot` (already claimed), configured by `open_session`'s `config`.
    pub fn open(conn: &Connection, slot: usize, config: Option<&str>) -> Result<Session> {
        let (cache_cursors, isolation) = open_settings(conn, config)?;
        Ok(Session {
            slot,
            cache_cursors,
            txn: Txn::new(Arc::clone(conn.txn()), slot, isolation, OwnedSlot::new(conn.slot_stats(), slot)),
            tables: HashMap::new(),
            cursors: cursors::CursorSet::default(),
            copy_epoch: 1,
            freed: Vec::new(),
            sweep_pending: false,
            parked: false,
            registry: Arc::clone(conn.registry()),
            drops_seen: conn.registry().drops(),
            caller: 0,
        })
        .map(|mut s| {
            if let Some(redo) = conn.durable().and_then(|d| d.redo()) {
                s.txn.attach_redo(redo);
            }
            s
        })
        .inspect(|s| s.stats().add(ConnStat::OpenSessions, 1))
    }

    /// Sets the token the application's callbacks get for this session (see `caller`).
    pub fn set_caller(&mut self, token: usize) {
        self.caller = token;
    }

    /// The token the application's callbacks get for this session.
    pub fn caller(&self) -> usize {
        self.caller
    }

    /// A new session in the slot of this closed one ([`park`](Self::park)ed), configured by
    /// `open_session`'s `config`: its memory is reused (buffers, the cursor slab and cache,
    /// the resolved table handles with their use records, the statistics block), and nothing
    /// shared is written. Like a session made by [`open`](Self::open), it has no cursors and an
    /// empty cursor cache. On a bad configuration it stays closed.
    pub fn reopen(&mut self, conn: &Connection, config: Option<&str>) -> Result<()> {
        debug_assert!(self.parked, "only a closed session reopens");
        let (cache_cursors, isolation) = open_settings(conn, config)?;
        self.cache_cursors = cache_cursors;
        self.txn.restart(isolation);
        self.cursors.restart();
        // Tables dropped while the session was closed go now (their spares wait in
        // `take_freed` for the C layer).
        self.forget_dropped();
        self.sweep_pending = false;
        self.parked = false;
        self.stats().add(ConnStat::OpenSessions, 1);
        Ok(())
    }

    /// Tests: the session's transaction state.
    #[cfg(test)]
    pub(crate) fn txn_mut(&mut self) -> &mut Txn {
        &mut self.txn
    }

    /// `WT_SESSION::close`, keeping the session's memory for [`reopen`](Self::reopen): closes
    /// its cursors and empties its cache, keeping a few cached cursors as spares (the freed ids
    /// wait in [`take_freed`](Self::take_freed) for the C layer), rolls back a running
    /// transaction and withdraws its snapshot, and stops counting as open. Use records of
    /// dropped tables are let go; the others stay with the slot, so that the next session's
    /// first cursor on a table finds it resolved. Writes no shared line and walks nothing sized
    /// by `session_max`.
    pub fn park(&mut self) {
        debug_assert!(!self.parked, "a session closes once");
        self.close_cursors();
        self.txn.close();
        self.forget_dropped();
        self.parked = true;
        let stats = self.stats();
        debug_assert_eq!(stats.open_cursors(), 0, "a closing session has no open cursors");
        stats.add(ConnStat::OpenSessions, -1);
    }

    /// Lets go of the tables dropped since the session resolved them: their handles and use
    /// records, and the spare cursors on them (a closed session's hold on a dropped table would
    /// keep its memory).
    fn forget_dropped(&mut self) {
        let drops = self.registry.drops();
        if drops == self.drops_seen {
            return;
        }
        self.drops_seen = drops;
        self.tables.retain(|_, (table, table_use)| {
            let keep = !table.is_dropped();
            if !keep {
                table.unregister_use(table_use);
            }
            keep
        });
        self.free_spares_of_dropped();
    }

    /// Whether the session is closed, its memory kept for reuse.
    pub fn is_parked(&self) -> bool {
        self.parked
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
                self.empty_cache(false);
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

    /// Closes the session's cursors (for good) and empties its cache; every cursor id it
    /// freed waits in [`take_freed`](Self::take_freed), for the C layer to free their handles.
    fn close_cursors(&mut self) {
        self.cache_cursors = false;
        if self.cursors.open_count() > 0 {
            for id in self.cursors.ids() {
                self.close_for_good(id);
                self.freed.push(id);
            }
        }
        self.empty_cache(true);
    }

    /// Frees the memory a closed session kept for reuse that the C layer holds handles for
    /// (its spare cursors, see `CursorSet`); their ids wait in
    /// [`take_freed`](Self::take_freed). The session is then ready to drop.
    pub fn free_kept(&mut self) {
        self.free_spares();
    }

    /// Whether the session has open cursors (not counting cached ones).
    pub fn has_open_cursors(&self) -> bool {
        self.cursors.open_count() > 0
    }


    /// `WT_SESSION::checkpoint`.
    pub fn checkpoint(&mut self, conn: &Connection, config: Option<&str>) -> Result<()> {
        let cfg = self.in_txn(config::validate(Method::Checkpoint, config, None).map_err(Error::from))?;
        // The reference refuses an in-memory database first, even inside a transaction.
        let Some(durable) = conn.durable() else {
            return self.in_txn(Err(Error::unsupported("not supported for in-memory configurations")));
        };
        self.not_in_transaction()?;
        // Like the reference, a checkpoint first resets the session's cursors by its reset walk
        // (traces/README.md §5.5): positioned cursors lose their place.
        self.cursors.reset_walk();
        self.idle_check();
        let drops = checkpoint_drops(config)?;
        let name = cfg.str("name");
        for reserved in std::iter::once(name).chain(drops.iter().map(|(k, _)| k.as_str())) {
            if reserved.starts_with(DEFAULT_CHECKPOINT) {
                return Err(Error::invalid(format!("the checkpoint name \"{DEFAULT_CHECKPOINT}\" is reserved")));
            }
        }
        let targets: Vec<String> = cfg.list("target").into_iter().map(str::to_string).collect();
        for target in &targets {
            let missing = match Uri::parse(target)? {
                Uri::Table(t) => conn.registry().get(t).is_none(),
                Uri::NotYet(_) => true,
            };
            if missing {
                return Err(Error::new(crate::error::Kind::NoEntry, format!("{target}: No such file or directory")));
            }
        }
        if !drops.is_empty() {
            durable.drop_named(&drops)?;
        }
        durable.checkpoint_using(conn.registry(), &mut self.txn, cfg.bool("use_timestamp"))?;
        if name.is_empty() {
            return Ok(());
        }
        let tables: Vec<String> = targets.iter().map(|t| t.strip_prefix("table:").unwrap_or(t).to_string()).collect();
        durable.name_checkpoint(conn.registry(), name, &tables)
    }

    /// `WT_SESSION::log_flush`: writes the journal's buffered records, and with `sync=on`
    /// (the default) syncs them; `EINVAL` without a journal. Allowed in a transaction.
    pub fn log_flush(&mut self, conn: &Connection, config: Option<&str>) -> Result<()> {
        let sync = log_flush_sync(config)?;
        match conn.durable() {
            Some(durable) => durable.log_flush(sync),
            None => Err(Error::invalid("logging not enabled")),
        }
    }

    /// `WT_SESSION::log_printf` (the text already formatted): a message record in the journal.
    pub fn log_printf(&mut self, text: &str) -> Result<()> {
        self.txn.log_message(text)
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
        if let Some(tree) = table.tree() {
            // A table written with a compressor the application has not registered (again)
            // since the database opened: the reference's `EINVAL` "unknown compressor".
            tree.file().codec().resolve()?;
        }
        if let Some(collator) = table.collator() {
            // Likewise a collator: the reference's `EINVAL` "unknown collator".
            collator.resolve(self.caller, |name| conn.extensions().collator(name))?;
        }
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

/// `open_session`'s settings: whether the session caches cursors, and its isolation. The
/// common empty configuration is not parsed: its values are the defaults (the connection's
/// `cache_cursors`, snapshot isolation).
fn open_settings(conn: &Connection, config: Option<&str>) -> Result<(bool, Isolation)> {
    if matches!(config, None | Some("")) {
        return Ok((conn.settings().cache_cursors, Isolation::Snapshot));
    }
    let cfg = config::validate(Method::OpenSession, config, None)?;
    let cache_cursors =
        if cfg.is_set("cache_cursors") { cfg.bool("cache_cursors") } else { conn.settings().cache_cursors };
    Ok((cache_cursors, Isolation::parse(cfg.str("isolation"))))
}

impl Drop for Session {
    /// Closes what is still open (the C layer has closed, or parked, the session already; a
    /// Rust user may just drop it), then its use records leave their tables (their statistics
    /// stay with the tables).
    fn drop(&mut self) {
        if !self.parked {
            self.park();
        }
        self.free_spares();
        for (table, table_use) in self.tables.values() {
            table.unregister_use(table_use);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_open_session_configuration_has_the_default_isolation() {
        let cfg = config::validate(Method::OpenSession, None, None).unwrap();
        assert_eq!(Isolation::parse(cfg.str("isolation")), Isolation::Snapshot);
        assert!(!cfg.is_set("cache_cursors"));
    }
}

/// `log_flush`'s `sync` (`on` unless `sync=off`). Its one key is not in the generated key
/// tables (config.md has no table for it), so it is checked here, with the reference's
/// messages.
fn log_flush_sync(config: Option<&str>) -> Result<bool> {
    let mut sync = true;
    let mut parser = config::Parser::new(config.unwrap_or(""));
    while let Some(pair) = parser.next_pair() {
        let (key, value) = pair.map_err(Error::from)?;
        if key.text != "sync" {
            return Err(Error::invalid(format!("unknown configuration key '{}'", key.text)));
        }
        sync = match value.text {
            "on" => true,
            "off" => false,
            other => return Err(Error::invalid(format!("Value '{other}' not a permitted choice for key 'sync'"))),
        };
    }
    Ok(sync)
}

/// The name of the last checkpoint (checkpoint cursors), reserved for it.
pub(super) const DEFAULT_CHECKPOINT: &str = "WiredTigerCheckpoint";

/// The elements of `checkpoint(drop=(...))`: a name, or `from=` / `to=` with its value.
fn checkpoint_drops(config: Option<&str>) -> Result<Vec<(String, Option<String>)>> {
    let Some(item) = config.and_then(|c| config::Parser::find(c, "drop")) else { return Ok(Vec::new()) };
    let inner = item.text.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(item.text);
    let mut out = Vec::new();
    for pair in config::Parser::new(inner) {
        let (key, value) = pair?;
        let value = match value.kind {
            config::ItemKind::Bool if value.text.is_empty() => None,
            _ => Some(value.text.to_string()),
        };
        out.push((key.to_string(), value));
    }
    Ok(out)
}
