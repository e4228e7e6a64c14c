//! The session's transaction methods (`begin_transaction`, `commit_transaction`,
//! `rollback_transaction`, `reset_snapshot`, `transaction_pinned_range`), and the transaction
//! rules around cursor operations: which errors doom a transaction, when the read snapshot ends,
//! which cursors a rollback resets. The transaction machinery itself is `crate::txn`.

use crate::config::Parser;
use crate::config::{self, Method};
use crate::cursor::Cursor;
use crate::error::{Error, Kind, Result};
use crate::store::ReadView;
use crate::stats::counters::{ConnStat, DsrcStat};
use crate::txn::state::{BeginTimestamps, SetTimestamps};
use crate::txn::timestamps;
use crate::txn::{Isolation, TxnStats};

use super::{CursorId, Session};

impl Session {
    /// `WT_SESSION::begin_transaction`: `isolation=` (else the session's), the other keys of the
    /// reference validated; a snapshot transaction takes its snapshot now.
    pub fn begin_transaction(&mut self, config: Option<&str>) -> Result<()> {
        let mut sync = None;
        let mut stamps = BeginTimestamps::default();
        let isolation = if no_config(config) {
            self.txn.count(ConnStat::TxnBegins);
            None
        } else {
            let cfg = self.in_txn(config::validate(Method::BeginTransaction, config, None).map_err(Error::from))?;
            self.txn.count(ConnStat::TxnBegins);
            let read = timestamps::parse("read", cfg.str("read_timestamp"));
            stamps.read = self.in_txn(read)?;
            stamps.round_read = cfg.bool("roundup_timestamps.read");
            stamps.no_timestamp = cfg.bool("no_timestamp");
            stamps.round_prepared = cfg.bool("roundup_timestamps.prepared");
            stamps.ignore_prepare = match cfg.str("ignore_prepare") {
                "force" => Some(true),
                "true" => Some(false),
                _ => None,
            };
            sync = cfg.is_set("sync").then(|| cfg.bool("sync"));
            match cfg.str("isolation") {
                "" => None,
                text => Some(Isolation::parse(text)),
            }
        };
        if self.txn.is_prepared() {
            return Err(prepared());
        }
        self.txn.begin(isolation, stamps)?;
        if sync.is_some() {
            self.txn.set_txn_sync(sync);
        }
        if self.txn.effective_isolation() == Isolation::Snapshot {
            // Starting a snapshot transaction turns engine-returned values into copies
            // (traces/README.md §5.3).
            self.copy_epoch += 1;
        }
        Ok(())
    }

    /// `WT_SESSION::commit_transaction`. Any error means the transaction (if one was running) is
    /// rolled back and every cursor reset; success keeps cursor positions, keys and values.
    pub fn commit_transaction(&mut self, config: Option<&str>) -> Result<()> {
        // The strings journalled commits pass on every call: validated once, here (the full
        // validation costs more than the journal's whole commit path).
        if let Some(sync @ ("sync=on" | "sync=off")) = config {
            self.txn.set_commit_sync(Some(sync == "sync=on"));
        } else if !no_config(config) {
            let cfg = match config::validate(Method::CommitTransaction, config, None) {
                Ok(cfg) => cfg,
                Err(e) => {
                    // An invalid configuration rolls the transaction back (config.md §2).
                    self.abort_running();
                    return Err(e.into());
                }
            };
            if cfg.is_set("sync") {
                self.txn.set_commit_sync(Some(cfg.str("sync") == "on"));
            }
            let given = timestamps::parse("commit", cfg.str("commit_timestamp")).and_then(|commit| {
                Ok(SetTimestamps { commit, durable: timestamps::parse("durable", cfg.str("durable_timestamp"))?, ..SetTimestamps::default() })
            });
            if let Err(e) = given.and_then(|given| self.txn.check_commit_timestamps(given)) {
                self.txn.count(ConnStat::TxnCommits);
                return Err(self.commit_refused(e));
            }
        } else if let Err(e) = self.txn.check_commit_timestamps(SetTimestamps::default()) {
            self.txn.count(ConnStat::TxnCommits);
            return Err(self.commit_refused(e));
        }
        self.txn.count(ConnStat::TxnCommits);
        let was_running = self.txn.is_running();
        match self.txn.commit() {
            Ok(()) => {
                self.copy_epoch += 1;
                self.idle_check();
                Ok(())
            }
            Err(e) => {
                if was_running {
                    self.reset_all_cursors();
                }
                Err(e)
            }
        }
    }

    /// A commit refused by its timestamps: an unprepared transaction rolls back (as any failed
    /// commit); a prepared one stays prepared, so that the application can commit it properly
    /// (the reference stops the whole connection there instead).
    fn commit_refused(&mut self, e: Error) -> Error {
        if !self.txn.is_prepared() {
            self.abort_running();
        }
        e
    }

    /// `WT_SESSION::prepare_transaction(prepare_timestamp=…)`: the transaction's writes become
    /// prepared; from now on it may only set timestamps, commit or roll back.
    pub fn prepare_transaction(&mut self, config: Option<&str>) -> Result<()> {
        if self.txn.is_prepared() {
            return Err(prepared());
        }
        if !self.txn.is_running() {
            return Err(Error::invalid("only permitted in a running transaction"));
        }
        let given = settings(config, &["prepare_timestamp"])
            .and_then(|pairs| Ok(SetTimestamps { prepare: stamp(&pairs, "prepare_timestamp", "prepare")?, ..SetTimestamps::default() }));
        let out = given
            .and_then(|given| self.txn.check_preparable().map(|()| given))
            .and_then(|given| self.txn.set_timestamps(given))
            .and_then(|()| self.txn.prepare());
        self.in_txn(out)?;
        // Values the cursors return are copies from now on.
        self.copy_epoch += 1;
        Ok(())
    }

    /// `WT_SESSION::timestamp_transaction`.
    pub fn timestamp_transaction(&mut self, config: Option<&str>) -> Result<()> {
        // Not validated, as in the reference: other keys are ignored.
        let given = settings(config, &[]).and_then(|pairs| {
            Ok(SetTimestamps {
                commit: stamp(&pairs, "commit_timestamp", "commit")?,
                durable: stamp(&pairs, "durable_timestamp", "durable")?,
                prepare: stamp(&pairs, "prepare_timestamp", "prepare")?,
                read: stamp(&pairs, "read_timestamp", "read")?,
            })
        });
        let out = given.and_then(|given| self.txn.set_timestamps(given));
        self.in_txn(out)
    }

    /// `WT_SESSION::timestamp_transaction_uint(which, ts)`.
    pub fn timestamp_transaction_uint(&mut self, which: TimestampKind, ts: u64) -> Result<()> {
        let name = match which {
            TimestampKind::Commit => "commit",
            TimestampKind::Durable => "durable",
            TimestampKind::Prepare => "prepare",
            TimestampKind::Read => "read",
        };
        if !self.txn.is_running() {
            return Err(Error::invalid("only permitted in a running transaction"));
        }
        if ts == 0 {
            return self.in_txn(Err(Error::invalid(format!("illegal {name} timestamp: zero not permitted"))));
        }
        let mut given = SetTimestamps::default();
        *match which {
            TimestampKind::Commit => &mut given.commit,
            TimestampKind::Durable => &mut given.durable,
            TimestampKind::Prepare => &mut given.prepare,
            TimestampKind::Read => &mut given.read,
        } = ts;
        let out = self.txn.set_timestamps(given);
        self.in_txn(out)
    }

    /// `WT_SESSION::query_timestamp(get=…)`: the transaction's timestamp, in hexadecimal.
    pub fn query_timestamp(&self, config: Option<&str>) -> Result<String> {
        let pairs = settings(config, &["get"])?;
        let what = pairs.iter().rev().find(|(k, _)| *k == "get").map_or("read", |(_, v)| *v);
        if !["commit", "first_commit", "prepare", "read"].contains(&what) {
            return Err(choice_error(what, "get"));
        }
        self.txn.query_timestamp(what).map(timestamps::hex)
    }

    /// Whether the running transaction is prepared (most session and cursor methods are then
    /// refused: [`prepared`]).
    pub fn is_prepared(&self) -> bool {
        self.txn.is_prepared()
    }

    /// `WT_SESSION::rollback_transaction`: discards the transaction's writes and resets every
    /// cursor of the session.
    pub fn rollback_transaction(&mut self, config: Option<&str>) -> Result<()> {
        if !no_config(config) {
            self.in_txn(config::validate(Method::RollbackTransaction, config, None).map_err(Error::from))?;
        }
        self.txn.count(ConnStat::TxnRollbacks);
        self.txn.rollback()?;
        self.reset_all_cursors();
        Ok(())
    }

    /// `WT_SESSION::reset_snapshot`.
    pub fn reset_snapshot(&mut self) -> Result<()> {
        let out = self.txn.reset_snapshot();
        self.in_txn(out)
    }

    /// `WT_SESSION::transaction_pinned_range`.
    pub fn transaction_pinned_range(&self) -> u64 {
        self.txn.pinned_range()
    }

    /// Why the last transaction failed, if a conflict doomed it (until the next `begin`).
    pub fn rollback_reason(&self) -> Option<&'static str> {
        self.txn.rollback_reason()
    }

    /// An API call of the session failed outside the session's own methods (`get_key`,
    /// `get_value`): inside a running transaction, the error dooms it.
    pub fn note_error(&mut self, e: &Error) {
        self.txn.note_error(e.kind());
    }

    /// Whether an explicit transaction is running.
    pub fn in_transaction(&self) -> bool {
        self.txn.is_running()
    }

    /// The transaction counters of the session's slot (statistics.md §5: "transaction:
    /// transaction begins", "transactions committed", "transactions rolled back", "update
    /// conflicts", "autocommit: retries for update operations").
    pub fn txn_stats(&self) -> TxnStats {
        self.txn.stats()
    }

    /// Whether the session's transaction logs hold `table` (tests).
    #[cfg(test)]
    pub fn txn_logs_hold(&self, table: &std::sync::Arc<crate::schema::Table>) -> bool {
        self.txn.logs_hold(table)
    }

    /// Reclaims the session's queued history now with a fresh horizon (tests, diagnostics);
    /// returns how many versions stay queued.
    pub fn reclaim_now(&mut self) -> usize {
        self.txn.reclaim_now()
    }

    // ----- rules shared with the other session methods ---------------------------------------

    /// Passes `out` on; an error inside a running transaction dooms it.
    pub(super) fn in_txn<T>(&mut self, out: Result<T>) -> Result<T> {
        if let Err(e) = &out {
            self.txn.note_error(e.kind());
        }
        out
    }

    /// `EINVAL` inside a running transaction (which it dooms).
    pub(super) fn not_in_transaction(&mut self) -> Result<()> {
        if self.txn.is_running() {
            return self.in_txn(Err(Error::invalid("not permitted in a running transaction")));
        }
        Ok(())
    }

    /// Resets every cursor (rollback, failed commit, session reset and reconfigure: the
    /// documented contract, traces/README.md §6), which ends an auto-commit read snapshot.
    pub(super) fn reset_all_cursors(&mut self) {
        let mut reset = 0;
        self.cursors.reset_all(|c| {
            reset += 1;
            c.table_use().stats.add(DsrcStat::Resets, 1);
        });
        self.stats().add(ConnStat::Resets, reset);
        self.txn.cursors_idle();
    }

    /// Rolls a running transaction back and resets the cursors (a commit that fails before it
    /// starts).
    fn abort_running(&mut self) {
        if self.txn.is_running() {
            self.txn.abort_if_running();
            self.reset_all_cursors();
        }
    }

    /// A search: like `read`, but `op` also gets `fresh`, which it calls when the search did
    /// not land on the exact key: if the searching cursor was the session's only positioned
    /// cursor, `fresh` ends the read snapshot and returns a new view to search again in. This is
    /// the reference's behaviour: a positioned cursor first searches the snapshot it has; only
    /// when that fails does it let its position go, which ends an auto-commit or read-committed
    /// read snapshot once no other cursor is positioned (traces two_cursors 58-73 and
    /// 1105-1129). Read-committed gives the position up before it searches (§5.7).
    pub(super) fn read_or_refresh<T>(
        &mut self,
        id: CursorId,
        op: impl FnOnce(&mut Cursor, u64, ReadView, &mut dyn FnMut() -> Option<ReadView>) -> Result<T>,
    ) -> Result<T> {
        let sole = self.cursors.positioned() == 1;
        self.read(id, |c, epoch, mut view, txn| {
            let mut gives_up_last = sole && c.is_positioned();
            if gives_up_last && txn.effective_isolation() == Isolation::ReadCommitted {
                if let Some(fresh) = txn.fresh_view() {
                    view = fresh;
                }
                gives_up_last = false;
            }
            let mut fresh = || if gives_up_last { txn.fresh_view() } else { None };
            op(c, epoch, view, &mut fresh)
        })
    }

    /// `EINVAL` for a search of cursor `id` without a key, refused before it reads: the
    /// reference checks the key before it takes a snapshot, so such a search starts no read
    /// snapshot (difftest seed 2010).
    #[inline(always)]
    pub(super) fn refuse_keyless(&mut self, id: CursorId) -> Result<()> {
        if self.cursors.get(id).has_key() {
            return Ok(());
        }
        self.refuse_keyless_cold(id)
    }

    /// [`refuse_keyless`](Self::refuse_keyless) once no key is set.
    #[cold]
    #[inline(never)]
    fn refuse_keyless_cold(&mut self, id: CursorId) -> Result<()> {
        if self.txn.is_prepared() {
            return Ok(());
        }
        let Err(e) = self.cursors.get(id).require_key() else {
            return Ok(());
        };
        let epoch = self.copy_epoch;
        self.cursors.with(id, |c| c.fail(epoch));
        self.read_failed(e.kind());
        Err(e)
    }

    /// Ends the auto-commit or read-committed read snapshot once no cursor is positioned.
    #[inline]
    pub(super) fn idle_check(&mut self) {
        if self.cursors.positioned() == 0 {
            self.txn.cursors_idle();
        }
    }

    /// After a failed read: dooms a running transaction (unless `WT_NOTFOUND`), and ends the
    /// read snapshot if the failure left no cursor positioned.
    #[cold]
    #[inline(never)]
    pub(super) fn read_failed(&mut self, kind: Kind) {
        self.txn.note_error(kind);
        self.idle_check();
    }

    /// After a write: success outside a transaction turns engine values into copies; a failure
    /// dooms a running transaction (unless `WT_NOTFOUND`/`WT_DUPLICATE_KEY`), and an auto-commit
    /// write that reached the data and failed runs the reference's reset walk (§5.4-5.5).
    pub(super) fn write_done(&mut self, out: &Result<()>, reached_data: bool) {
        match out {
            Ok(()) => {
                if !self.txn.is_running() {
                    self.copy_epoch += 1;
                }
            }
            Err(e) => {
                self.txn.note_error(e.kind());
                if reached_data && !self.txn.is_running() {
                    self.cursors.reset_walk();
                }
                self.idle_check();
            }
        }
    }
}

/// A search (for `read_or_refresh`): again in a fresh view, when `fresh` gives one, if the
/// key is not found in `view`.
pub(super) fn search_again(
    c: &mut Cursor,
    epoch: u64,
    view: ReadView,
    fresh: &mut dyn FnMut() -> Option<ReadView>,
) -> Result<()> {
    match c.search(epoch, &view) {
        Err(e) if e.is_not_found() => match fresh() {
            Some(view) => c.search(epoch, &view),
            None => Err(e),
        },
        out => out,
    }
}

/// No configuration string to parse (the common case of the transaction calls: skips the
/// validator and its key look-ups).
fn no_config(config: Option<&str>) -> bool {
    matches!(config, None | Some(""))
}

/// The error of most methods inside a prepared transaction.
pub fn prepared() -> Error {
    Error::invalid("not permitted in a prepared transaction")
}

/// Which timestamp `timestamp_transaction_uint` sets (`WT_TS_TXN_TYPE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimestampKind {
    /// `WT_TS_TXN_TYPE_COMMIT`.
    Commit,
    /// `WT_TS_TXN_TYPE_DURABLE`.
    Durable,
    /// `WT_TS_TXN_TYPE_PREPARE`.
    Prepare,
    /// `WT_TS_TXN_TYPE_READ`.
    Read,
}

/// The key/value pairs of a timestamp method's configuration, each key one of `keys` (these
/// methods have no key table in the configuration schema: their few keys are checked here;
/// no `keys` at all: any key is taken).
pub fn settings<'a>(config: Option<&'a str>, keys: &[&str]) -> Result<Vec<(&'a str, &'a str)>> {
    let mut pairs = Vec::new();
    let mut parser = Parser::new(config.unwrap_or(""));
    while let Some(pair) = parser.next_pair() {
        let (k, v) = pair.map_err(Error::from)?;
        if !keys.is_empty() && !keys.contains(&k.text) {
            return Err(Error::invalid(format!("unknown configuration key '{}'", k.text)));
        }
        pairs.push((k.text, v.text));
    }
    Ok(pairs)
}

/// The timestamp `key` names in `pairs` (the last one given), parsed (0: not given).
pub fn stamp(pairs: &[(&str, &str)], key: &str, name: &str) -> Result<u64> {
    match pairs.iter().rev().find(|(k, _)| *k == key) {
        Some((_, v)) => timestamps::parse(name, v),
        None => Ok(0),
    }
}

/// A `get=` value that is not one of the method's choices.
pub fn choice_error(value: &str, key: &str) -> Error {
    Error::invalid(format!("Value '{value}' not a permitted choice for key '{key}'"))
}
