//! One session's transaction state: the running transaction (if any), the snapshot the session
//! reads at, its writes, its reclamation queue and its transaction counters.
//!
//! A session is used by one thread at a time, so all of this is plain data; what other threads
//! need (the published snapshot) lives in the connection's [`super::pins`].

use std::sync::Arc;

use scc::Guard;

use crate::btree::cache::{entry_bytes, PUBLISH_BYTES};
use crate::durable::redo::Redo;
use crate::error::{Error, Kind, Result};
use crate::schema::Table;
use crate::store::{Data, Horizon, Mode, ReadView, Refused, WriteCtx, NO_READ_TS, TS_LATEST, TXN_COMMITTED};
use crate::stats::counters::{ConnStat, OwnedSlot, SlotRef};

use super::clock::backoff;
use super::log::Logs;
use super::timestamps::{TxnTimestamps, TS_NONE};
use super::{Isolation, TxnShared};

/// `read_ts` when the session reads at no snapshot.
const NO_SNAPSHOT: u64 = u64::MAX;
/// Versions a session queues between two computations of the reclamation horizon.
const RESCAN_EVERY: usize = 128;
/// The reason a conflict gives (`WT_SESSION::get_rollback_reason`, failed commits).
pub const CONFLICT_REASON: &str = "conflict between concurrent operations";

/// A session slot's transaction counters, named after the reference's statistics
/// (`../shared/spec/statistics.md` §5) and counted by its rules; kept in the slot's statistics
/// block (`stats::counters`), read here for tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxnStats {
    /// "transaction: transaction begins": `begin_transaction` calls with a valid configuration,
    /// including those that fail because a transaction is running.
    pub txn_begin: u64,
    /// "transaction: transactions committed": `commit_transaction` calls with a valid
    /// configuration, including those that fail (no transaction, failed transaction).
    pub txn_commit: u64,
    /// "transaction: transactions rolled back": `rollback_transaction` calls with a valid
    /// configuration, and the rollback of a session closed inside a transaction (not the one
    /// inside a failed commit).
    pub txn_rollback: u64,
    /// "transaction: update conflicts": write-write conflicts answered with `WT_ROLLBACK`.
    pub txn_update_conflict: u64,
    /// "autocommit: retries for update operations": auto-commit writes retried because the key
    /// held another transaction's uncommitted version.
    pub autocommit_update_retry: u64,
}

/// `begin_transaction`'s timestamp settings (parsed and validated by the caller).
#[derive(Clone, Copy, Debug, Default)]
pub struct BeginTimestamps {
    /// `read_timestamp=` (0: none).
    pub read: u64,
    /// `roundup_timestamps=(read=true)`.
    pub round_read: bool,
    /// `roundup_timestamps=(prepared=true)`.
    pub round_prepared: bool,
    /// `ignore_prepare=true` (`Some(false)`) or `ignore_prepare=force` (`Some(true)`).
    pub ignore_prepare: Option<bool>,
    /// `no_timestamp=true`: commits without a timestamp may follow timestamped ones.
    pub no_timestamp: bool,
}

/// `timestamp_transaction`'s (or `commit_transaction`'s) timestamps (0: not given).
#[derive(Clone, Copy, Debug, Default)]
pub struct SetTimestamps {
    /// `commit_timestamp=`.
    pub commit: u64,
    /// `durable_timestamp=`.
    pub durable: u64,
    /// `prepare_timestamp=`.
    pub prepare: u64,
    /// `read_timestamp=`.
    pub read: u64,
}

/// The running explicit transaction.
#[derive(Clone, Copy, Debug)]
struct Running {
    isolation: Isolation,
    /// An error other than `WT_NOTFOUND`/`WT_DUPLICATE_KEY` happened: a transaction that wrote
    /// can only roll back.
    doomed: bool,
}

/// One session's transaction state.
pub struct Txn {
    shared: Arc<TxnShared>,
    slot: usize,
    /// The session's isolation: of transactions begun without `isolation=`, and of auto-commit
    /// operations.
    isolation: Isolation,
    running: Option<Running>,
    /// The current view: its timestamp is the running snapshot transaction's, the auto-commit
    /// or read-committed read snapshot while one is held, `TS_LATEST` (marked uncommitted) for read-uncommitted, or
    /// `NO_SNAPSHOT`; its id is the running transaction's once it has written, else 0.
    view: ReadView,
    /// Whether `read_ts` is published in the session's record.
    pinned: bool,
    /// Whether the running snapshot transaction owns `read_ts` (nothing else ends it).
    txn_snapshot: bool,
    /// Whether reads run at read-committed: a read-committed transaction, or auto-commit in a
    /// read-committed session (searches refresh before they search; difftest seed 57).
    txn_read_committed: bool,
    /// The search hot path's one test: a view is held and no read-committed transaction runs
    /// (kept equal to `view.ts != NO_SNAPSHOT && !txn_read_committed`).
    search_ready: bool,
    logs: Logs,
    /// The reclamation horizon last computed, and the queue length that triggers the next.
    oldest: u64,
    scan_at: usize,
    /// Why the last transaction was doomed by a conflict (until the next `begin`).
    rollback_reason: Option<&'static str>,
    /// The connection's statistics blocks; this session records into its slot's.
    counters: OwnedSlot,
    /// The redo record of the running transaction, when the database has a journal.
    redo: Option<Redo>,
    /// `commit_transaction(sync=…)` of the commit under way.
    commit_sync: Option<bool>,
    /// Why the last auto-commit write failed to become durable (`Refused::Failed`).
    failure: Option<Error>,
    /// Bytes this session added to on-disk tables' indexes and has not published to the
    /// cache yet (`btree::cache`: one shared add per 64 KB).
    unpublished: i64,
    /// The running transaction's application timestamps.
    ts: TxnTimestamps,
    /// The pinned application timestamp last computed (with `oldest`).
    pinned_ts: u64,
    /// The last transaction's commit and first commit timestamps, which `query_timestamp`
    /// returns until the next `begin_transaction` (as the reference does).
    ended: (u64, u64),
}

impl Txn {
    /// The state of the session in `slot`.
    pub fn new(shared: Arc<TxnShared>, slot: usize, isolation: Isolation, counters: OwnedSlot) -> Txn {
        shared.pins.attach(slot);
        Txn {
            shared,
            slot,
            isolation,
            running: None,
            view: ReadView::at(NO_SNAPSHOT, TXN_COMMITTED),
            pinned: false,
            txn_snapshot: false,
            txn_read_committed: isolation == Isolation::ReadCommitted,
            search_ready: false,
            logs: Logs::default(),
            oldest: 0,
            scan_at: RESCAN_EVERY,
            rollback_reason: None,
            counters,
            redo: None,
            commit_sync: None,
            failure: None,
            unpublished: 0,
            ts: TxnTimestamps::default(),
            pinned_ts: 0,
            ended: (0, 0),
        }
    }

    /// Journals this session's commits (on-disk databases with `log=(enabled=true)`).
    pub fn attach_redo(&mut self, redo: Redo) {
        self.redo = Some(redo);
    }

    /// `WT_SESSION::log_printf`: a message record in the journal, outside any transaction
    /// (nothing without a journal, as the reference does).
    pub fn log_message(&mut self, text: &str) -> Result<()> {
        match &mut self.redo {
            Some(redo) => redo.message(text),
            None => Ok(()),
        }
    }

    /// `begin_transaction(sync=…)` for the next transaction (`None`: the connection's default).
    pub fn set_txn_sync(&mut self, sync: Option<bool>) {
        if let Some(redo) = &mut self.redo {
            redo.set_txn_sync(sync);
        }
    }

    /// `commit_transaction(sync=…)` for the next commit (`None`: as the transaction says).
    pub fn set_commit_sync(&mut self, sync: Option<bool>) {
        self.commit_sync = sync;
    }

    /// The error behind the last `Refused::Failed`.
    pub fn take_failure(&mut self) -> Error {
        self.failure.take().unwrap_or_else(|| Error::new(Kind::Generic, "a write failed to become durable"))
    }

    /// The session's isolation.
    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    /// The auto-commit read snapshot the session holds while a cursor is positioned, if any.
    pub fn held_autocommit_view(&self) -> Option<ReadView> {
        (self.running.is_none() && self.pinned && self.view.ts != NO_SNAPSHOT).then_some(self.view)
    }

    /// Ends the auto-commit read snapshot, as a successful auto-commit write does (for schema
    /// changes, which the reference commits as metadata writes; difftest seed 102).
    pub fn end_read_snapshot(&mut self) {
        if self.running.is_none() {
            self.release_read();
        }
    }

    /// Sets the session's isolation (`open_session`/`reconfigure`; never inside a transaction).
    pub fn set_isolation(&mut self, isolation: Isolation) {
        self.release_read();
        self.isolation = isolation;
        self.txn_read_committed = isolation == Isolation::ReadCommitted;
    }

    /// Whether an explicit transaction is running.
    #[inline]
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The isolation that applies to the next operation.
    #[inline]
    pub fn effective_isolation(&self) -> Isolation {
        self.running.map_or(self.isolation, |r| r.isolation)
    }

    /// Whether reads run at read-committed: searches give up the cursor's position before they
    /// search (`Session::read_or_refresh`).
    #[inline]
    pub fn refreshes_before_search(&self) -> bool {
        self.txn_read_committed
    }

    /// Whether writes are allowed (snapshot isolation only).
    #[inline]
    pub fn can_write(&self) -> bool {
        self.effective_isolation() == Isolation::Snapshot
    }

    /// The session slot's statistics block, which the session records into as well.
    #[inline(always)]
    pub fn stats_slot(&self) -> SlotRef<'_> {
        self.counters.get()
    }

    /// Counts one event of `stat` in the session slot's statistics.
    #[inline]
    pub fn count(&self, stat: ConnStat) {
        self.counters.get().add(stat, 1);
    }

    /// The transaction counters of the session's slot.
    pub fn stats(&self) -> TxnStats {
        let block = self.counters.get();
        let get = |stat| block.get(stat) as u64;
        TxnStats {
            txn_begin: get(ConnStat::TxnBegins),
            txn_commit: get(ConnStat::TxnCommits),
            txn_rollback: get(ConnStat::TxnRollbacks),
            txn_update_conflict: get(ConnStat::TxnConflicts),
            autocommit_update_retry: get(ConnStat::AutocommitUpdateRetries),
        }
    }

    /// The reason of the last conflict, while it is relevant (`WT_SESSION::get_rollback_reason`).
    pub fn rollback_reason(&self) -> Option<&'static str> {
        self.rollback_reason
    }

    // ----- reads ---------------------------------------------------------------------------

    /// The view of a read operation. Reuses the current snapshot when there is one (the
    /// running snapshot transaction's, or the read snapshot the session keeps while a cursor is
    /// positioned); otherwise takes one.
    #[inline(always)]
    pub fn read_view(&mut self) -> ReadView {
        if self.view.ts == NO_SNAPSHOT {
            self.take_snapshot();
        }
        self.view
    }

    /// The view a checkpoint writes: committed data as of now, whatever the session's isolation
    /// (a read-uncommitted view would carry uncommitted updates into the tree; difftest seed 91).
    pub fn checkpoint_view(&mut self) -> ReadView {
        if self.view.ts == NO_SNAPSHOT || !self.pinned {
            self.view.ts = self.shared.pins.pin(self.slot, &self.shared.clock);
            self.pinned = true;
            self.search_ready = false;
        }
        self.view
    }

    /// Whether a search may use [`Txn::held_view`] as it is (else it goes through
    /// `Session::read_or_refresh`: no view held, or a read-committed transaction). One test.
    #[inline(always)]
    pub fn search_ready(&self) -> bool {
        self.search_ready
    }

    /// The view held now (valid when [`Txn::search_ready`]).
    #[inline(always)]
    pub fn held_view(&self) -> &ReadView {
        &self.view
    }

    #[inline(never)]
    fn take_snapshot(&mut self) {
        if self.effective_isolation() == Isolation::ReadUncommitted {
            // Sees every version that is not rolled back: nothing to pin, history is not needed.
            self.view.ts = TS_LATEST;
            self.view.uncommitted = true;
        } else {
            self.view.ts = self.shared.pins.pin(self.slot, &self.shared.clock);
            self.pinned = true;
        }
        self.search_ready = !self.txn_read_committed;
    }

    /// The view in which a write's "the key exists" is read back (the stored value of
    /// `WT_DUPLICATE_KEY`): the transaction's own view, or the newest committed state for an
    /// auto-commit write (which judged against that state).
    pub fn existing_view(&mut self) -> ReadView {
        match self.running {
            Some(_) => self.read_view(),
            None if self.pinned && self.view.ts != NO_SNAPSHOT => self.view,
            None => ReadView::LATEST,
        }
    }

    /// Where an auto-commit write found its key when [`existing_view`](Self::existing_view), the
    /// held read snapshot, does not see it: in the newest committed state, which it judged
    /// against (the reference then returns that value: difftest seed 4070).
    pub fn existing_fallback(&self) -> Option<ReadView> {
        match self.running {
            Some(_) => None,
            None => Some(ReadView::LATEST),
        }
    }

    /// Whether [`cursors_idle`](Self::cursors_idle) has a read snapshot to end (one that no
    /// snapshot transaction owns).
    #[inline(always)]
    pub fn idle_ends_snapshot(&self) -> bool {
        self.view.ts != NO_SNAPSHOT && !self.txn_snapshot
    }

    /// No cursor of the session is positioned any more: an auto-commit or read-committed read
    /// snapshot ends (a snapshot transaction keeps its own).
    #[inline]
    pub fn cursors_idle(&mut self) {
        if self.view.ts != NO_SNAPSHOT {
            self.release_read();
        }
    }

    /// A new view for a search that gives up the session's last position (see
    /// `Session::read_or_refresh`): the read snapshot ends and a new one starts, unless a
    /// snapshot transaction owns it or nothing was committed since (`None`: nothing would
    /// change).
    #[cold]
    pub fn fresh_view(&mut self) -> Option<ReadView> {
        if !self.pinned || self.txn_snapshot || self.shared.clock.now() == self.view.ts {
            return None;
        }
        self.view.ts = self.shared.pins.pin(self.slot, &self.shared.clock);
        Some(self.view)
    }

    /// Ends the read snapshot unless a snapshot transaction owns it.
    fn release_read(&mut self) {
        if !self.txn_snapshot {
            self.drop_snapshot();
        }
    }

    fn drop_snapshot(&mut self) {
        if self.pinned {
            self.shared.pins.unpin(self.slot);
            self.pinned = false;
        }
        self.view.ts = NO_SNAPSHOT;
        self.view.uncommitted = false;
        self.search_ready = false;
    }

    // ----- transactions --------------------------------------------------------------------

    /// `begin_transaction` (after its configuration was validated and counted). Inside a
    /// running transaction: `EINVAL`, and the running transaction is doomed.
    pub fn begin(&mut self, isolation: Option<Isolation>, stamps: BeginTimestamps) -> Result<()> {
        if let Some(running) = &mut self.running {
            running.doomed = true;
            return Err(Error::invalid("not permitted in a running transaction"));
        }
        self.ended = (TS_NONE, TS_NONE);
        // A read timestamp implies snapshot isolation.
        let isolation = if stamps.read != TS_NONE { Isolation::Snapshot } else { isolation.unwrap_or(self.isolation) };
        self.ts = TxnTimestamps {
            round_read: stamps.round_read,
            round_prepared: stamps.round_prepared,
            ignore_prepare: stamps.ignore_prepare.is_some(),
            read_only: stamps.ignore_prepare == Some(false),
            no_timestamp: stamps.no_timestamp,
            ..TxnTimestamps::default()
        };
        if stamps.read != TS_NONE {
            self.ts.read = self.publish_read(stamps.read)?;
        }
        // A read-committed transaction goes on reading in the snapshot the session holds while a
        // cursor is positioned, as the reference does (difftest seed 32).
        let keep = isolation == Isolation::ReadCommitted && self.pinned;
        if !keep {
            self.drop_snapshot();
        }
        self.running = Some(Running { isolation, doomed: false });
        self.shared.pins.set_running(self.slot, true);
        self.view.txn = TXN_COMMITTED;
        self.view.read_ts = if self.ts.read != TS_NONE { self.ts.read } else { NO_READ_TS };
        self.view.ignore_prepare = self.ts.ignore_prepare;
        self.rollback_reason = None;
        if isolation == Isolation::Snapshot {
            // The snapshot is taken now: a commit after `begin` is not visible (api.md).
            self.take_snapshot();
            self.txn_snapshot = true;
        }
        self.txn_read_committed = isolation == Isolation::ReadCommitted;
        if keep {
            self.search_ready = false;
        }
        Ok(())
    }

    /// `commit_transaction`. A doomed transaction that wrote is rolled back and the call fails
    /// with the reference's message; the caller resets the cursors then.
    pub fn commit(&mut self) -> Result<()> {
        let Some(running) = self.running else {
            return Err(Error::invalid("only permitted in a running transaction"));
        };
        if running.doomed && self.logs.has_uncommitted() && !self.ts.prepared {
            self.abort();
            let message = match self.rollback_reason {
                Some(reason) => format!("failed  transaction requires rollback: {reason}"),
                None => "failed  transaction requires rollback".to_string(),
            };
            return Err(Error::invalid(message));
        }
        if self.logs.has_uncommitted() {
            // Write-ahead: in the journal before anyone can see it; if that fails, roll back.
            if let Some(redo) = &mut self.redo {
                if let Err(e) = redo.commit(self.commit_sync.take()) {
                    self.abort();
                    return Err(e);
                }
            }
            if self.ts.commit != TS_NONE {
                // The application's timestamps go on first: the commit's stamp publishes them.
                self.logs.stamp_app(self.ts.commit, self.ts.durable_or_commit(), self.ts.prepared);
            }
            // Between `issue` and `complete` only the stamps: every later commit waits for them.
            let clock = &self.shared.clock;
            let ts = clock.issue();
            self.logs.stamp(ts);
            clock.complete(ts);
            self.logs.committed(ts);
            if let Some(redo) = &mut self.redo {
                redo.published();
            }
        }
        if self.ts.commit != TS_NONE {
            self.shared.timestamps.committed_durable(self.ts.durable_or_commit());
        }
        self.commit_sync = None;
        self.end();
        self.reclaim();
        Ok(())
    }

    /// `commit_transaction`'s timestamp rules, before [`commit`](Self::commit): the
    /// timestamps given (or set before, checked again: the stable timestamp may have moved),
    /// and what a prepared or unprepared transaction must and must not have. An error leaves
    /// the transaction as it was (the caller rolls back an unprepared one).
    pub fn check_commit_timestamps(&mut self, given: SetTimestamps) -> Result<()> {
        let Some(running) = self.running else { return Ok(()) };
        if running.doomed && self.logs.has_uncommitted() && !self.ts.prepared {
            // `commit` reports the doom first, as the reference does.
            return Ok(());
        }
        if !self.ts.prepared {
            self.ts.round_prepared = false;
        }
        let commit = if given.commit != TS_NONE { given.commit } else { self.ts.commit };
        let durable = if given.durable != TS_NONE { given.durable } else { self.ts.durable };
        let snapshot = self.effective_isolation() == Isolation::Snapshot;
        let global = &self.shared.timestamps;
        let mut ts = self.ts;
        if commit != TS_NONE {
            ts.set_commit(commit, snapshot, global)?;
        }
        if durable != TS_NONE {
            ts.set_durable(durable, global)?;
        }
        if ts.prepared {
            if ts.commit == TS_NONE {
                return Err(Error::invalid("commit_timestamp is required for a prepared transaction"));
            }
            if ts.durable == TS_NONE {
                return Err(Error::invalid("durable_timestamp is required for a prepared transaction"));
            }
        } else if ts.prepare != TS_NONE {
            return Err(Error::invalid("prepare timestamp is set for non-prepared transaction"));
        }
        self.logs.check_usage(ts.commit, ts.commit != TS_NONE || ts.durable != TS_NONE, ts.no_timestamp, ts.prepared)?;
        self.ts = ts;
        Ok(())
    }

    /// Whether the running transaction is prepared.
    #[inline]
    pub fn is_prepared(&self) -> bool {
        self.ts.prepared
    }

    /// `timestamp_transaction` / `timestamp_transaction_uint`: sets the timestamps given, in
    /// the reference's order (commit, durable, read, prepare).
    pub fn set_timestamps(&mut self, given: SetTimestamps) -> Result<()> {
        if self.running.is_none() {
            return Err(Error::invalid("only permitted in a running transaction"));
        }
        let snapshot = self.effective_isolation() == Isolation::Snapshot;
        if given.commit != TS_NONE {
            self.ts.set_commit(given.commit, snapshot, &self.shared.timestamps)?;
        }
        if given.durable != TS_NONE {
            self.ts.set_durable(given.durable, &self.shared.timestamps)?;
        }
        self.publish_durable();
        if given.read != TS_NONE {
            self.set_read(given.read)?;
        }
        if given.prepare != TS_NONE {
            self.ts.set_prepare(given.prepare, &self.shared.timestamps)?;
        }
        Ok(())
    }

    /// The transaction's durable timestamp goes into the session's record once it has one
    /// (`all_durable` stays below it while the transaction runs).
    fn publish_durable(&mut self) {
        let ts = if self.ts.durable != TS_NONE {
            self.ts.durable
        } else if self.ts.commit != TS_NONE && !self.ts.prepared {
            self.ts.first_commit
        } else {
            return;
        };
        self.shared.pins.publish_durable(self.slot, ts);
    }

    /// A read timestamp for the running transaction (set once; a new snapshot goes with it).
    fn set_read(&mut self, ts: u64) -> Result<()> {
        if self.ts.prepared {
            // The reference ignores it (failing would leave a prepared transaction stuck).
            return Ok(());
        }
        if self.effective_isolation() != Isolation::Snapshot {
            return Err(Error::invalid("setting a read_timestamp requires a transaction running at snapshot isolation"));
        }
        if self.ts.read != TS_NONE {
            return Err(Error::invalid("a read_timestamp may only be set once per transaction"));
        }
        self.ts.read = self.publish_read(ts)?;
        self.view.read_ts = self.ts.read;
        if self.view.txn == TXN_COMMITTED {
            // A snapshot taken earlier may be too old for the timestamp: take a new one.
            self.drop_snapshot();
            self.take_snapshot();
        }
        Ok(())
    }

    /// Publishes read timestamp `ts` in the session's record, checked against the oldest
    /// timestamp after publication (so that a reclaimer either sees it or the reader sees
    /// the oldest that reclaimer used); returns the timestamp read at (rounded up to the
    /// oldest with `roundup_timestamps=(read=true)`).
    fn publish_read(&mut self, ts: u64) -> Result<u64> {
        let pins = &self.shared.pins;
        pins.publish_read(self.slot, ts);
        let Some(oldest) = self.shared.timestamps.oldest() else { return Ok(ts) };
        if ts >= oldest {
            return Ok(ts);
        }
        if self.ts.round_read {
            pins.publish_read(self.slot, oldest);
            return Ok(oldest);
        }
        pins.publish_read(self.slot, TS_NONE);
        Err(Error::quiet(Kind::Invalid))
    }

    /// The checks `prepare_transaction` makes before it sets its timestamp: a transaction
    /// that wrote to the journal cannot be prepared.
    pub fn check_preparable(&self) -> Result<()> {
        if self.running.is_none() {
            return Err(Error::invalid("only permitted in a running transaction"));
        }
        if self.redo.is_some() && self.logs.untimestamped_table().is_some() {
            return Err(Error::invalid("a prepared transaction cannot include a logged table"));
        }
        Ok(())
    }

    /// `prepare_transaction` (its `prepare_timestamp=` already set): the transaction's
    /// versions become prepared at a new commit sequence, and its snapshot ends.
    pub fn prepare(&mut self) -> Result<()> {
        self.check_preparable()?;
        if self.ts.prepare == TS_NONE {
            return Err(Error::invalid("prepare timestamp is not set"));
        }
        if self.ts.commit != TS_NONE {
            return Err(Error::invalid("commit timestamp must not be set before transaction is prepared"));
        }
        if let Some(table) = self.logs.untimestamped_table() {
            return Err(Error::unsupported(format!(
                "file:{}.wt: transaction prepare is not supported on logged tables or tables without timestamps",
                table.name()
            )));
        }
        // Like a commit's stamp: readers whose snapshot includes `seq` meet the prepared
        // versions, older snapshots do not.
        let clock = &self.shared.clock;
        let seq = clock.issue();
        self.logs.prepare(self.ts.prepare, seq);
        clock.complete(seq);
        self.ts.prepared = true;
        self.txn_snapshot = false;
        self.drop_snapshot();
        Ok(())
    }

    /// `WT_SESSION::query_timestamp(get=…)`: the running transaction's timestamps (0 when
    /// unset or outside a transaction).
    pub fn query_timestamp(&self, what: &str) -> Result<u64> {
        let running = self.running.is_some();
        Ok(match what {
            "commit" if !running => self.ended.0,
            "first_commit" if !running => self.ended.1,
            "commit" => self.ts.commit,
            "first_commit" => self.ts.first_commit,
            "prepare" => self.ts.prepare,
            "read" => self.ts.read,
            _ => return Err(Error::invalid(format!("unknown timestamp query {what}"))),
        })
    }

    /// `rollback_transaction`.
    pub fn rollback(&mut self) -> Result<()> {
        if self.running.is_none() {
            return Err(Error::invalid("only permitted in a running transaction"));
        }
        self.abort();
        Ok(())
    }

    /// Rolls back a running transaction whose configuration failed to validate (an invalid
    /// `commit_transaction` configuration rolls the transaction back).
    pub fn abort_if_running(&mut self) {
        if self.running.is_some() {
            self.abort();
        }
    }

    fn abort(&mut self) {
        if let Some(redo) = &mut self.redo {
            redo.clear();
        }
        self.commit_sync = None;
        self.logs.rollback();
        self.end();
    }

    fn end(&mut self) {
        if self.ts.read != TS_NONE {
            self.shared.pins.publish_read(self.slot, TS_NONE);
        }
        if self.ts.commit != TS_NONE || self.ts.durable != TS_NONE {
            self.shared.pins.publish_durable(self.slot, TS_NONE);
        }
        self.shared.pins.set_running(self.slot, false);
        self.ended = (self.ts.commit, self.ts.first_commit);
        self.ts = TxnTimestamps::default();
        self.view.read_ts = NO_READ_TS;
        self.view.ignore_prepare = false;
        self.running = None;
        self.txn_snapshot = false;
        self.txn_read_committed = self.isolation == Isolation::ReadCommitted;
        self.view.txn = TXN_COMMITTED;
        self.drop_snapshot();
    }

    /// A write of the running transaction conflicts: counted, and the transaction doomed.
    fn conflict(&mut self) -> std::result::Result<(), Refused> {
        self.count(ConnStat::TxnConflicts);
        self.rollback_reason = Some(CONFLICT_REASON);
        if let Some(running) = &mut self.running {
            running.doomed = true;
        }
        Err(Refused::Conflict)
    }

    /// Whether the running transaction's snapshot sees `key` in `table` (a read error is kept
    /// for `take_failure`).
    fn snapshot_sees(&mut self, table: &Table, key: &[u8], guard: &Guard) -> std::result::Result<bool, Refused> {
        match table.layers().read(key, &self.view, guard) {
            Ok(found) => Ok(found.is_some()),
            Err(e) => {
                self.failure = Some(e);
                Err(Refused::Failed)
            }
        }
    }

    /// An operation inside the running transaction failed with `kind`: every error other than
    /// `WT_NOTFOUND` and `WT_DUPLICATE_KEY` dooms it (traces/README.md §5.7).
    #[inline]
    pub fn note_error(&mut self, kind: Kind) {
        if let Some(running) = &mut self.running {
            if !matches!(kind, Kind::NotFound | Kind::DuplicateKey | Kind::PrepareConflict) && !self.ts.prepared {
                running.doomed = true;
            }
        }
    }

    /// `WT_SESSION::reset_snapshot`: a new snapshot for a snapshot transaction that has not
    /// written; outside a transaction, the auto-commit read snapshot ends.
    pub fn reset_snapshot(&mut self) -> Result<()> {
        let Some(running) = self.running else {
            self.drop_snapshot();
            return Ok(());
        };
        if running.isolation != Isolation::Snapshot {
            return Err(Error::unsupported("not supported in read-committed or read-uncommitted transactions"));
        }
        if self.view.txn != TXN_COMMITTED {
            return Err(Error::unsupported("not supported in write transactions"));
        }
        self.drop_snapshot();
        self.take_snapshot();
        Ok(())
    }

    /// `WT_SESSION::transaction_pinned_range`: how many commits the session's snapshot is
    /// behind the newest (0 without one).
    pub fn pinned_range(&self) -> u64 {
        if self.pinned {
            self.shared.clock.now().saturating_sub(self.view.ts)
        } else {
            0
        }
    }

    /// The oldest read timestamp any session may still use (merges let go of history older
    /// than it).
    pub fn oldest(&self) -> u64 {
        self.shared.oldest()
    }

    /// What every reader can see now.
    pub fn horizon_now(&self) -> Horizon {
        self.shared.horizon()
    }

    /// The application timestamp a checkpoint holds data as of, and the stable timestamp it
    /// records (0: none): see `TxnShared::merge_bound`.
    pub fn checkpoint_bounds(&self) -> super::CheckpointStamps {
        self.shared.checkpoint_bounds()
    }

    /// A checkpoint holding data as of stable timestamp `stable` is durable.
    pub fn checkpointed(&self, stable: u64) {
        self.shared.timestamps.checkpointed(stable);
    }

    // ----- writes --------------------------------------------------------------------------

    /// Counts a write into an on-disk table's index against the cache; past the dirty trigger
    /// this writer merges the table into its tree before going on (it helps eviction, as the
    /// reference's application threads do). A merge that fails (a full disk) leaves the index
    /// as it was: the write stands, and the next merge or checkpoint reports the error.
    fn count_dirty(&mut self, table: &Arc<Table>, key: &[u8], value: Option<&[u8]>) {
        self.unpublished += entry_bytes(key.len(), value.map_or(0, <[u8]>::len)) + table.index().entry_extra() as i64;
        if self.unpublished < PUBLISH_BYTES {
            return;
        }
        let bytes = std::mem::take(&mut self.unpublished);
        let cache = &self.shared.cache;
        if table.publish_dirty(bytes, cache) {
            let shared = &self.shared;
            // As of the oldest snapshot, not now: a merge newer than a running snapshot may
            // retire nothing it carried (`Layers::merge`), so with another writer's
            // transaction always open every merge copied the whole index again and freed
            // nothing. What committed since stays in the index for the next merge.
            let at = shared.clock.now().min(shared.horizon().seq);
            let _ = table.merge_dirty(at, shared.merge_bound(), &|| shared.horizon(), cache);
        }
    }

    /// Writes `value` (`None`: a removal) to `key` of `table` as `mode` requires: inside the
    /// running transaction, or as its own auto-commit transaction.
    ///
    /// A conflict in a transaction dooms it and is counted; an auto-commit write whose key holds
    /// another transaction's uncommitted version waits for that transaction (as the reference
    /// does: it retries until the other side commits or rolls back).
    pub fn write(&mut self, table: &Arc<Table>, key: &[u8], value: Option<&[u8]>, mode: Mode) -> Result<(), Refused> {
        self.write_hinted(table, key, value, mode, &mut false)
    }

    /// [`Txn::write`] with a guess whether `key` is new (`fresh`; a cursor that appends keeps
    /// guessing right), which lets the index skip its hash probe and go straight to the ordered
    /// insert; `fresh` is then updated with what the write found.
    pub fn write_hinted(
        &mut self,
        table: &Arc<Table>,
        key: &[u8],
        value: Option<&[u8]>,
        mode: Mode,
        fresh: &mut bool,
    ) -> Result<(), Refused> {
        let likely_new = std::mem::replace(fresh, false);
        let data = || value.map_or(Data::Tombstone, Data::value);
        if value.is_some() && table.tree().is_none() && self.shared.cache.full() && table.measure(&self.shared.cache) {
            // In memory, nothing can leave the cache for the disk: new data is refused
            // (removals still pass, and free room once measured).
            let size = self.shared.cache.thresholds().size;
            self.failure = Some(Error::new(
                Kind::CacheFull,
                format!("in-memory database is full: its tables hold more than cache_size ({size} bytes)"),
            ));
            return Err(Refused::Failed);
        }
        let guard = Guard::new();
        // Whether the table's tree holds the key, when the index cannot tell; a read error
        // refuses the write and is kept for `take_failure`.
        let mut unreadable = None;
        let mut below = |ts| match table.layers().below(key, ts) {
            Ok(held) => Some(held),
            Err(e) => {
                unreadable = Some(e);
                None
            }
        };
        if self.running.is_some() {
            if self.ts.read_only {
                self.failure = Some(Error::unsupported("Transactions with ignore_prepare=true cannot perform updates"));
                return Err(Refused::Failed);
            }
            if self.view.txn == TXN_COMMITTED {
                self.view.txn = self.shared.pins.next_txn_id(self.slot);
            }
            let ctx = WriteCtx { txn: self.view.txn, snapshot: self.view.ts, read_ts: self.view.read_ts };
            match table.index().write_over(key, data(), mode, ctx, &guard, likely_new, &mut below) {
                Ok(written) => {
                    *fresh = written.was_empty;
                    if self.ts.commit != TS_NONE && table.uses_timestamps() {
                        // Written while the transaction has a commit timestamp: the version
                        // keeps that one, whatever the commit sets later (as the reference).
                        if let Some(version) = written.version.as_ref() {
                            version.stamp_app(self.ts.commit, self.ts.durable_or_commit());
                        }
                    }
                    let keep_key = value.is_none() || written.was_empty;
                    let first_value = written.was_empty && value.is_some();
                    self.logs.add(table, written.slot, written.version, keep_key.then_some(key), first_value);
                    // Tables with `log=(enabled=false)` take timestamps and stay out of the journal.
                    if let Some(redo) = self.redo.as_mut().filter(|_| !table.uses_timestamps()) {
                        redo.record(table.id(), key, value);
                    }
                    if let Some(slot) = written.slot.as_ref() {
                        slot.prune(self.oldest, self.pinned_ts, &guard);
                    }
                    drop(guard);
                    self.count_dirty(table, key, value);
                    Ok(())
                }
                Err(Refused::Exists) if !self.snapshot_sees(table, key, &guard)? => {
                    // The key exists only in a version merged into the tree after the snapshot
                    // (the index, holding nothing older, asked the tree's newest version): a
                    // write-write conflict, as the reference finds (difftest seed 2065).
                    self.conflict()
                }
                Err(Refused::Conflict) => self.conflict(),
                Err(refused) => {
                    if refused == Refused::Failed {
                        self.failure = unreadable.take();
                    }
                    Err(refused)
                }
            }
        } else {
            if mode == Mode::InsertNew && self.pinned && self.view.ts != NO_SNAPSHOT {
                // While a cursor of the session is positioned, the auto-commit read snapshot is
                // held, and the reference judges an insert-if-absent against it: a key it sees is
                // a duplicate, even if removed since (difftest seeds 1025, 1064).
                match table.layers().read(key, &self.view, &guard) {
                    Ok(Some(_)) => return Err(Refused::Exists),
                    Ok(None) => {}
                    Err(e) => {
                        self.failure = Some(e);
                        return Err(Refused::Failed);
                    }
                }
            }
            let ctx = WriteCtx { txn: self.shared.pins.next_txn_id(self.slot), snapshot: TS_LATEST, read_ts: NO_READ_TS };
            let mut spins = 0;
            let written = loop {
                match table.index().write_over(key, data(), mode, ctx, &guard, likely_new, &mut below) {
                    Ok(written) => break written,
                    Err(Refused::Conflict) => {
                        self.count(ConnStat::AutocommitUpdateRetries);
                        backoff(&mut spins);
                    }
                    Err(refused) => {
                        if refused == Refused::Failed {
                            self.failure = unreadable.take();
                        }
                        return Err(refused);
                    }
                }
            };
            *fresh = written.was_empty;
            // The log entry takes its references while the version is still this writer's
            // uncommitted head: once committed, a later writer may prune it off the chain.
            // A new key's value with no journal to fail needs none: nothing can roll it back,
            // and a one-version chain has no history to prune (appends skip two allocations
            // and the reclamation pass).
            let keep_key = value.is_none() || written.was_empty;
            let journalled = self.redo.is_some() && !table.uses_timestamps();
            if journalled || !(written.was_empty && value.is_some()) {
                self.logs.add(table, written.slot, written.version, keep_key.then_some(key), written.was_empty && value.is_some());
            }
            if let Some(redo) = self.redo.as_mut().filter(|_| journalled) {
                redo.record(table.id(), key, value);
                if let Err(e) = redo.commit(None) {
                    // Not durable: the write is undone, as a failed commit is.
                    self.logs.rollback();
                    self.failure = Some(e);
                    return Err(Refused::Failed);
                }
            }
            // Between `issue` and `complete` only the stamp: every later commit waits for it.
            let clock = &self.shared.clock;
            let ts = clock.issue();
            if let Some(version) = written.version.as_ref() {
                version.stamp(ts);
            }
            clock.complete(ts);
            if let Some(redo) = &mut self.redo {
                redo.published();
            }
            self.logs.committed(ts);
            if let Some(slot) = written.slot.as_ref() {
                slot.prune(self.oldest, self.pinned_ts, &guard);
            }
            drop(guard);
            // A successful auto-commit write ends the session's read snapshot (traces §5.6).
            self.release_read();
            self.reclaim();
            self.count_dirty(table, key, value);
            Ok(())
        }
    }

    // ----- reclamation ---------------------------------------------------------------------

    /// Prunes what the session's queue allows. The horizon is recomputed (O(sessions)) once
    /// the session has queued [`RESCAN_EVERY`] more versions than the last such pass left, so
    /// it costs O(sessions / 128) per write, and history that an ended snapshot held back goes
    /// within that many writes; in between, entries the cached horizon already covers go (a
    /// pass that finds nothing due looks at one entry per table).
    fn reclaim(&mut self) {
        if self.logs.queued() == 0 {
            return;
        }
        if self.logs.committed_since_rescan() >= self.scan_at {
            self.refresh_oldest();
            self.logs.rescanned();
            let left = self.logs.reclaim(self.horizon());
            self.scan_at = left + RESCAN_EVERY;
        } else {
            self.logs.reclaim(self.horizon());
        }
    }

    /// The horizon last computed.
    fn horizon(&self) -> Horizon {
        Horizon { seq: self.oldest, ts: self.pinned_ts }
    }

    fn refresh_oldest(&mut self) {
        for (table, entries) in self.shared.adopt() {
            self.logs.adopt(table, entries);
        }
        let Horizon { seq, ts } = self.shared.horizon();
        self.oldest = seq;
        self.pinned_ts = ts;
    }

    /// Whether the session's logs hold `table` (tests).
    #[cfg(test)]
    pub fn logs_hold(&self, table: &Arc<Table>) -> bool {
        self.logs.holds(table)
    }

    /// Reclaims with a fresh horizon now (tests, and a session that closes).
    pub fn reclaim_now(&mut self) -> usize {
        self.refresh_oldest();
        self.logs.reclaim(self.horizon())
    }

    /// The session closes: a running transaction rolls back (counted, as the reference counts
    /// it), the snapshot ends, and committed history goes to the connection once what the
    /// horizon computed last allows is reclaimed. No per-slot walk (closing is O(1) in
    /// `session_max`): the session that adopts the rest computes a fresh horizon. Runs again,
    /// doing nothing, when a session whose memory was kept for reuse is finally freed.
    pub fn close(&mut self) {
        if self.running.is_some() {
            self.count(ConnStat::TxnRollbacks);
            self.abort();
        }
        self.drop_snapshot();
        if self.logs.queued() > 0 && self.logs.reclaim(self.horizon()) > 0 {
            self.shared.leave(self.logs.take_committed());
        }
        self.logs.release_idle();
    }

    /// The state of a new session in the slot of this closed one (`open_session` reusing the
    /// memory of a closed session): nothing of the previous session's transactions remains.
    pub fn restart(&mut self, isolation: Isolation) {
        debug_assert!(self.running.is_none() && !self.pinned, "a closed session's state");
        self.isolation = isolation;
        // Auto-commit reads follow the new session's isolation: a read-committed session
        // reopened in the slot of a snapshot one must refresh its searches (difftest seed 1018).
        // (The last transaction's end reset the rest, but for what `query_timestamp` reports.)
        self.txn_read_committed = isolation == Isolation::ReadCommitted;
        self.ended = (TS_NONE, TS_NONE);
        self.rollback_reason = None;
        self.commit_sync = None;
        self.failure = None;
        self.set_txn_sync(None);
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        self.close();
    }
}
