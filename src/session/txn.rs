//! The session's transaction methods (`begin_transaction`, `commit_transaction`,
//! `rollback_transaction`, `reset_snapshot`, `transaction_pinned_range`), and the transaction
//! rules around cursor operations: which errors doom a transaction, when the read snapshot ends,
//! which cursors a rollback resets. The transaction machinery itself is `crate::txn`.

use crate::config::{self, Method};
use crate::cursor::Cursor;
use crate::error::{Error, Kind, Result};
use crate::store::ReadView;
use crate::stats::counters::{ConnStat, DsrcStat};
use crate::txn::{Isolation, TxnStats};

use super::{CursorId, Session};

impl Session {
    /// `WT_SESSION::begin_transaction`: `isolation=` (else the session's), the other keys of the
    /// reference validated; a snapshot transaction takes its snapshot now.
    pub fn begin_transaction(&mut self, config: Option<&str>) -> Result<()> {
        let mut sync = None;
        let isolation = if no_config(config) {
            self.txn.count(ConnStat::TxnBegins);
            None
        } else {
            let cfg = self.in_txn(config::validate(Method::BeginTransaction, config, None).map_err(Error::from))?;
            self.txn.count(ConnStat::TxnBegins);
            let read_ts = cfg.str("read_timestamp");
            if !read_ts.is_empty() {
                let err = check_timestamp(read_ts, "read")
                    .and_then(|()| Err(Error::unsupported("read timestamps are not supported yet")));
                return self.in_txn(err);
            }
            sync = cfg.is_set("sync").then(|| cfg.bool("sync"));
            match cfg.str("isolation") {
                "" => None,
                text => Some(Isolation::parse(text)),
            }
        };
        self.txn.begin(isolation)?;
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
            for key in ["commit_timestamp", "durable_timestamp"] {
                let ts = cfg.str(key);
                if !ts.is_empty() && self.txn.is_running() {
                    self.txn.count(ConnStat::TxnCommits);
                    let what = key.trim_end_matches("_timestamp");
                    let err = check_timestamp(ts, what)
                        .and_then(|()| Err(Error::unsupported("commit timestamps are not supported yet")));
                    self.abort_running();
                    return err;
                }
            }
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

/// A timestamp must be hexadecimal (the reference's message names which one).
fn check_timestamp(text: &str, what: &str) -> Result<()> {
    if text.len() <= 16 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(())
    } else {
        Err(Error::invalid(format!("Failed to parse {what} timestamp '{text}'")))
    }
}
