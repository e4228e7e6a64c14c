//! Durability of on-disk databases: the home's files, the journal, checkpoints and recovery.
//!
//! # Files (all in the home, the journal in `log=(path=…)`, relative to it)
//! - `WiredTiger.lock`: `flock`ed while a connection has the home open ([`disk::HomeLock`]).
//! - `unlatched.meta`: the table list ([`meta`]); replaced whole by `create` and `drop`, and
//!   what makes the directory a database.
//! - `unlatched.ckpt.N`: checkpoint `N` ([`checkpoint`]), every table's rows at one snapshot,
//!   plus the journal file recovery replays from. Only the newest is kept.
//! - `unlatched.log.N`: the journal ([`journal`]), one record per committed transaction.
//!
//! Checkpoints are taken by `WT_SESSION::checkpoint`, at a clean close, and by the background
//! thread of `checkpoint=(wait,log_size)` ([`background`]).
//!
//! Every record of every file is a checksummed frame ([`frame`]) and every file starts with a
//! header frame carrying its kind and layout version.
//!
//! # Recovery ([`Durable::open`])
//! Loads the table list, then the newest checkpoint, then replays the journal from the file
//! the checkpoint names, in order; a torn tail ends the replay, other damage refuses the open
//! (`WT_TRY_SALVAGE`) unless `salvage=true`, which keeps the records before it and reports
//! what it dropped ([`journal::replay`]). Recovered rows are written as
//! committed-before-everything versions (timestamps restart with each connection).

pub mod background;
pub mod checkpoint;
pub mod disk;
pub mod faults;
pub mod frame;
pub mod journal;
pub mod meta;
pub mod named;
pub mod redo;
pub mod slots;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod prealloc_tests;
#[cfg(test)]
mod timestamp_tests;
#[cfg(test)]
mod log_compress_tests;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use crate::config::Config;
use crate::error::{Error, Kind, Result};
use crate::schema::{Registry, Table, TableSpec};
use crate::store::{collate, Horizon, ReadView};
use crate::btree::block::BlockFile;
use crate::btree::extents::ExtentList;
use crate::btree::cache::Cache;
use crate::btree::compress::{Codec, Compressor, Compressors};
use crate::btree::tree::{Tree, TreeRecord};
use crate::txn::{CheckpointStamps, Txn};

use checkpoint::Header;
use disk::{Disk, HomeLock, CKPT_PREFIX, LOG_PREFIX, TREE_PREFIX};
use faults::{FaultCounts, Faults, Plan};
use journal::{Journal, JournalConfig, JournalStats, Wakeup};
use meta::Meta;
use redo::{CompressStats, LogCompressor, Op, Redo, SyncDefault};

/// The durability state of an on-disk connection.
pub struct Durable {
    home: Arc<Disk>,
    /// Where journal files live (the home unless `log=(path=…)`).
    log_dir: Arc<Disk>,
    _lock: HomeLock,
    /// The journal, started once recovery replayed the old one (`log=(enabled)`).
    journal: OnceLock<Arc<Journal>>,
    /// `log=(enabled)`: commits go to the journal.
    journal_on: bool,
    /// `log=(compressor=NAME)`: journal records are compressed (set with the journal).
    log_compressor: OnceLock<LogCompressor>,
    /// The replay that has not run yet (see [`Durable::replay`]).
    pending: Mutex<Option<Pending>>,
    /// Set until the replay succeeded: no checkpoint may replace the journal before.
    unrecovered: AtomicBool,
    sync_default: SyncDefault,
    /// The table list as on disk; `create` and `drop` hold it while they rewrite the file.
    meta: Mutex<Meta>,
    /// The newest checkpoint's number; checkpoints hold it, so they run one at a time.
    last_checkpoint: Mutex<u64>,
    /// Set when syncing a table file failed: the blocks written since its last sync may be
    /// lost (the kernel may drop pages whose write-back failed, and a later sync succeeds), so
    /// no later checkpoint may vouch for them. Every later checkpoint fails with this error;
    /// the last durable checkpoint and the journal stay what recovery uses.
    refused: Mutex<Option<Error>>,
    /// Without a journal: the journal files recovery replayed end before this number (the
    /// next checkpoint replaces them).
    log_floor: AtomicU64,
    created: bool,
    closed: AtomicBool,
    /// The connection's cache budget, which the trees' pages count against.
    cache: Arc<Cache>,
    /// The registered compressors, where new trees find theirs.
    compressors: Arc<Compressors>,
    /// Checkpoints completed by this connection (statistics; counted once per checkpoint).
    checkpoints: AtomicU64,
}

/// What the journal replay needs, from the open that loaded the checkpoint.
struct Pending {
    by_id: HashMap<u64, Arc<Table>>,
    replay_from: u64,
    journal_exists: bool,
    salvage: bool,
    journal: Option<JournalConfig>,
}

/// What recovery found (tests and diagnostics).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Rows loaded from the checkpoint.
    pub checkpoint_rows: u64,
    /// Journal records (transactions) replayed.
    pub records: u64,
    /// With `salvage=true`: what was dropped from a damaged journal, one message per damage.
    pub salvaged: Vec<String>,
    /// The stable timestamp the checkpoint recovered from holds data as of (0: none).
    pub stable_ts: u64,
    /// The oldest timestamp that checkpoint recorded (0: none).
    pub oldest_ts: u64,
}

impl Durable {
    /// Opens (with `create`, creates) the database in `home` and recovers its tables into
    /// `registry`. `cfg` is the validated `wiredtiger_open` configuration.
    pub fn open(
        home: &str,
        cfg: &Config<'_>,
        registry: &Registry,
        cache: &Arc<Cache>,
        compressors: &Arc<Compressors>,
        defer: bool,
    ) -> Result<(Durable, Recovered)> {
        let create = cfg.bool("create");
        let faults = Arc::new(Faults::default());
        #[cfg(test)]
        faults.set_plan(faults::AT_OPEN.get());
        let home_disk = Arc::new(Disk::with_faults(PathBuf::from(home), Arc::clone(&faults)));
        let lock = HomeLock::take(&home_disk, home, create)?;
        home_disk.remove_temporaries()?;
        // Without its "." components, so that messages name files plainly.
        let mut log_path: PathBuf = PathBuf::from(home)
            .join(cfg.str("log.path"))
            .components()
            .filter(|c| *c != std::path::Component::CurDir)
            .collect();
        if log_path.as_os_str().is_empty() {
            log_path = PathBuf::from(".");
        }
        let log_dir = Arc::new(Disk::with_faults(log_path, faults));
        let (meta, created) = match Meta::load(&home_disk)? {
            Some(_) if cfg.bool("exclusive") => {
                return Err(Error::new(Kind::Exists, "WiredTiger database already exists and exclusive option configured"))
            }
            Some(meta) => (meta, false),
            None if !create => {
                return Err(Error::new(Kind::TrySalvage, format!("{home}/{}: no database: No such file or directory", disk::META_FILE)))
            }
            None => (initialize(&home_disk)?, true),
        };
        let mut recovered = Recovered::default();
        let newest = *home_disk
            .numbered(CKPT_PREFIX)?
            .last()
            .ok_or_else(|| frame::corrupt(&home_disk.show(&checkpoint::name(1)), "no checkpoint file"))?;
        // Rows of a checkpoint of the older layout, loaded once the tables exist.
        let mut rows: Vec<(u64, Vec<u8>, Vec<u8>)> = Vec::new();
        let (header, mut trees) = checkpoint::load(&home_disk, newest, |id, k, v| rows.push((id, k.to_vec(), v.to_vec())))?;
        recovered.stable_ts = header.stable_ts;
        recovered.oldest_ts = header.oldest_ts;
        let mut by_id: HashMap<u64, Arc<Table>> = HashMap::new();
        for spec in &meta.tables {
            // A table created after the checkpoint starts from an empty tree (its rows are in
            // the journal); any other is opened as the checkpoint left it.
            let tree = open_tree(&home_disk, spec, trees.remove(&spec.id), cache, compressors)?;
            registry.insert(Table::on_disk(spec.clone(), tree)?, false)?;
            let table = registry.get(&spec.name).ok_or_else(|| Error::new(Kind::Generic, "recovered table vanished"))?;
            by_id.insert(spec.id, table);
        }
        remove_orphan_trees(&home_disk, &meta)?;
        for (id, k, v) in rows {
            if let Some(t) = by_id.get(&id) {
                t.index().upsert(&k, &v);
                recovered.checkpoint_rows += 1;
            }
        }
        let journal_config = cfg.bool("log.enabled").then(|| JournalConfig {
            file_max: cfg.int("log.file_max") as u64,
            remove: cfg.bool("log.remove"),
            prealloc: cfg.bool("log.prealloc"),
        });
        let pending = Pending {
            by_id,
            replay_from: header.replay_from,
            journal_exists: header.journal_exists,
            salvage: cfg.bool("salvage"),
            journal: journal_config,
        };
        let sync_default =
            SyncDefault { sync: cfg.bool("transaction_sync.enabled") && cfg.str("transaction_sync.method") != "none" };
        let durable = Durable {
            home: home_disk,
            log_dir,
            _lock: lock,
            journal: OnceLock::new(),
            journal_on: pending.journal.is_some(),
            log_compressor: OnceLock::new(),
            pending: Mutex::new(Some(pending)),
            unrecovered: AtomicBool::new(true),
            sync_default,
            meta: Mutex::new(meta),
            last_checkpoint: Mutex::new(newest),
            refused: Mutex::new(None),
            log_floor: AtomicU64::new(0),
            created,
            closed: AtomicBool::new(false),
            cache: Arc::clone(cache),
            compressors: Arc::clone(compressors),
            checkpoints: AtomicU64::new(0),
        };
        // A collated table's records replay in its collator's order, which `extensions=`
        // registers once the connection is open: the replay waits for it, as for a journal
        // compressor.
        let defer = defer || durable.pending.lock().as_ref().is_some_and(|p| p.by_id.values().any(|t| t.collator().is_some()));
        if !defer {
            let (records, salvaged) = durable.replay(None)?;
            recovered.records = records;
            recovered.salvaged = salvaged;
        }
        Ok((durable, recovered))
    }

    /// Replays the journal into the tables the open loaded, then starts the new journal:
    /// part of [`Durable::open`], or, for an open that deferred it (a journal compressor is
    /// configured, or a table is collated), once the application's `extensions=` are loaded,
    /// with the compressor they registered (collated tables' collators resolved). A compressed record without a compressor fails it (`WT_ERROR`).
    /// Returns the records replayed and what salvage dropped. Runs once.
    pub fn replay(&self, compressor: Option<Arc<dyn Compressor>>) -> Result<(u64, Vec<String>)> {
        let Some(pending) = self.pending.lock().take() else { return Ok((0, Vec::new())) };
        let mut records = 0;
        let by_id = &pending.by_id;
        let replayed = journal::replay(&self.log_dir, pending.replay_from, pending.journal_exists, pending.salvage, |record, file| {
            let record = redo::expand(record, compressor.as_deref(), file)?;
            for op in redo::decode(&record, file)? {
                let table = match &op {
                    Op::Put { table, .. } | Op::Remove { table, .. } => by_id.get(table),
                    Op::Message { .. } => None,
                };
                if let Some(collator) = table.and_then(|t| t.collator()).filter(|c| !c.is_resolved()) {
                    // Its order is the collator's, which `extensions=` registers: replayed
                    // without it the rows would be out of order (`Connection::finish_open`
                    // resolves it first).
                    return Err(collate::unknown(collator.name()));
                }
                match op {
                    Op::Put { table, key, value } => {
                        if let Some(t) = by_id.get(&table) {
                            t.index().upsert(key, value);
                        }
                    }
                    Op::Remove { table, key } => {
                        if let Some(t) = by_id.get(&table) {
                            // Whatever the index holds: the key may be in the tree alone.
                            t.index().upsert_removal(key);
                        }
                    }
                    Op::Message { .. } => {}
                }
            }
            records += 1;
            Ok(())
        })?;
        self.log_floor.store(replayed.next, Ordering::Relaxed);
        if let Some(config) = pending.journal {
            std::fs::create_dir_all(self.log_dir.dir())
                .map_err(|e| Error::io(format!("{}: mkdir", self.log_dir.dir().display()), &e))?;
            let journal = Arc::new(Journal::start(Arc::clone(&self.log_dir), config, replayed.next)?);
            if let Some(compressor) = compressor {
                let _ = self.log_compressor.set(LogCompressor { compressor, stats: Arc::default() });
            }
            let _ = self.journal.set(journal);
        }
        self.unrecovered.store(false, Ordering::Release);
        Ok((records, replayed.salvaged))
    }

    /// What journal compression did, when a compressor is configured.
    pub fn log_compress_stats(&self) -> Option<&CompressStats> {
        self.log_compressor.get().map(|c| &*c.stats)
    }

    /// Whether the journal is not replayed yet: [`Durable::replay`] is pending, or failed.
    pub fn replay_pending(&self) -> bool {
        self.unrecovered.load(Ordering::Acquire)
    }

    /// Whether this open created the database.
    pub fn created(&self) -> bool {
        self.created
    }

    /// Whether commits go to a journal.
    pub fn journalled(&self) -> bool {
        self.journal_on
    }

    /// A session's redo state, when the journal is on.
    pub fn redo(&self) -> Option<Redo> {
        self.journal.get().map(|j| Redo::new(j.committer(), self.sync_default, self.log_compressor.get().cloned()))
    }

    /// Whether commits go to a journal (`log=(enabled=true)`).
    pub fn has_journal(&self) -> bool {
        self.journal.get().is_some()
    }

    /// Tests: the journal's background writes stop, as if the process died (see
    /// [`journal::Journal::freeze`]).
    #[cfg(test)]
    pub fn freeze_journal(&self) {
        self.journal.get().expect("a journal").freeze();
    }

    /// The journal's counters (zero without a journal).
    pub fn journal_stats(&self) -> JournalStats {
        self.journal.get().map(|j| j.stats()).unwrap_or_default()
    }

    /// Makes later writes of the home's files fail with `ENOSPC` after `bytes` more bytes
    /// (`None`: no limit); tests simulate a full disk with it.
    pub fn limit_writes(&self, bytes: Option<u64>) {
        self.home.limit_writes(bytes);
    }

    /// Fails later file-system calls as `plan` says (`None`: none); tests inject failures with
    /// it. The home's and the journal's files share the plan.
    pub fn inject_faults(&self, plan: Option<Plan>) -> FaultCounts {
        let faults = self.home.faults();
        let counts = faults.counts();
        faults.set_plan(plan);
        counts
    }

    /// `WT_SESSION::create` of a table: durable (in the table list) before it exists.
    pub fn create_table(&self, registry: &Registry, mut spec: TableSpec, exclusive: bool) -> Result<()> {
        let mut meta = self.meta.lock();
        if registry.get(&spec.name).is_some() {
            return if exclusive { Err(Error::quiet(Kind::Exists)) } else { Ok(()) };
        }
        Table::new(spec.clone())?;
        spec.id = meta.next_id;
        // The tree's file exists before the table list names it (an orphan left by a crash in
        // between is removed at the next open).
        let table = Table::on_disk(spec.clone(), open_tree(&self.home, &spec, None, &self.cache, &self.compressors)?)?;
        let mut next = Meta { next_id: meta.next_id + 1, tables: meta.tables.clone() };
        next.tables.push(spec);
        next.store(&self.home)?;
        *meta = next;
        registry.insert(table, exclusive)
    }

    /// `WT_SESSION::drop` of a table: gone from the table list once it returns. (If writing the
    /// list fails the table is dropped in memory but comes back at the next open.)
    pub fn drop_table(&self, registry: &Registry, name: &str) -> Result<()> {
        let mut meta = self.meta.lock();
        registry.drop_table(name)?;
        let next = Meta { next_id: meta.next_id, tables: meta.tables.iter().filter(|t| t.name != name).cloned().collect() };
        next.store(&self.home)?;
        // Sessions may still hold the table (its file stays readable through their open
        // descriptor until they let go).
        for gone in meta.tables.iter().filter(|t| t.name == name) {
            self.home.remove(&tree_file(gone.id))?;
        }
        *meta = next;
        Ok(())
    }

    /// Writes a checkpoint of every table at the snapshot `snapshot` returns (called once the
    /// journal has moved to a new file, so that the snapshot covers every transaction in the
    /// older ones), then removes the previous checkpoint and the journal files it no longer
    /// needs. Readers and writers keep running.
    ///
    /// Each table's index is merged into its tree at the snapshot, as of application timestamp
    /// `stamps.bound` (so the checkpoint writes the pages changed since the last one and the
    /// paths above them), then each tree's root and free space go into the checkpoint file,
    /// with the stable and oldest timestamps of `stamps`; `horizon` is what every reader still
    /// sees, behind which the merge lets history go.
    pub fn checkpoint(
        &self,
        registry: &Registry,
        snapshot: impl FnOnce() -> ReadView,
        horizon: &dyn Fn() -> Horizon,
        stamps: CheckpointStamps,
    ) -> Result<()> {
        let mut last = self.last_checkpoint.lock();
        if self.replay_pending() {
            return Err(Error::invalid("checkpoint: the journal is not recovered yet"));
        }
        if let Some(e) = self.refused.lock().clone() {
            return Err(e);
        }
        let (replay_from, journal_exists) = match self.journal.get() {
            Some(j) => (j.rotate()?, true),
            None => (self.log_floor.load(Ordering::Relaxed), false),
        };
        let view = snapshot();
        // Listed after the snapshot: every table with records in older journal files is here.
        let mut tables: Vec<Arc<Table>> = registry.tables().into_iter().filter(|t| !t.is_dropped()).collect();
        tables.sort_by_key(|t| t.id());
        let mut records = Vec::with_capacity(tables.len());
        let mut released = Vec::with_capacity(tables.len());
        for table in &tables {
            let Some(tree) = table.tree() else { continue };
            table.merge(view.ts, stamps.bound, horizon, &self.cache)?;
            let (record, pending) = tree.checkpoint().inspect_err(|e| self.refuse_checkpoints(e))?;
            records.push((table.id(), record));
            released.push((tree, pending));
        }
        // The snapshot may hold commits made since the rotation, whose records are in the
        // journal this checkpoint replays from: they reach the device before the checkpoint
        // does (see `Journal::make_durable`).
        if let Some(j) = self.journal.get() {
            j.make_durable()?;
        }
        let no = *last + 1;
        let header = Header { no, replay_from, snapshot_ts: view.ts, journal_exists, stable_ts: stamps.stable, oldest_ts: stamps.oldest };
        if let Err(failed) = checkpoint::write(&self.home, header, &records) {
            if failed.in_place {
                // A crash may find this checkpoint or the previous one: both stay intact until
                // a checkpoint succeeds (the blocks written so far belong to this one, and the
                // blocks only the previous one used stay pending).
                *last = no;
                for (tree, _) in &released {
                    tree.checkpoint_durable(&ExtentList::new());
                }
            }
            return Err(failed.error);
        }
        *last = no;
        self.checkpoints.fetch_add(1, Ordering::Relaxed);
        // Durable: the blocks only the previous checkpoint used are free now (every tree's,
        // before anything else can fail), and free space at the end of a file goes back to the
        // file system (free in the record too, so a crash before the next checkpoint reopens
        // the shorter file).
        for (tree, pending) in &released {
            tree.checkpoint_durable(pending);
        }
        for (tree, _) in &released {
            tree.file().trim_tail()?;
        }
        for old in self.home.numbered(CKPT_PREFIX)?.into_iter().filter(|&n| n < no) {
            self.home.remove(&checkpoint::name(old))?;
        }
        match self.journal.get() {
            Some(j) => j.remove_before(replay_from),
            None => {
                for old in self.log_dir.numbered(LOG_PREFIX)?.into_iter().filter(|&n| n < replay_from) {
                    self.log_dir.remove(&format!("{LOG_PREFIX}{old}"))?;
                }
                Ok(())
            }
        }
    }

    /// A table file's sync failed with `e`: later checkpoints fail (see `refused`).
    fn refuse_checkpoints(&self, e: &Error) {
        let why = e.messages().next().unwrap_or("sync failed");
        let refused = Error::new(e.kind(), format!("checkpoints are refused since a table file's sync failed ({why})"));
        self.refused.lock().get_or_insert(refused);
    }

    /// A checkpoint at a fresh snapshot of `txn` (a session's, or the background thread's),
    /// pinned in its slot while the checkpoint writes.
    pub fn checkpoint_in(&self, registry: &Registry, txn: &mut Txn) -> Result<()> {
        self.checkpoint_using(registry, txn, true)
    }

    /// [`checkpoint_in`](Self::checkpoint_in), as of the stable timestamp (`use_timestamp`) or
    /// holding every commit.
    pub fn checkpoint_using(&self, registry: &Registry, txn: &mut Txn, use_timestamp: bool) -> Result<()> {
        txn.reset_snapshot()?;
        let horizon = txn.horizon_now();
        let bounds = txn.checkpoint_bounds().using_timestamp(use_timestamp);
        let out = self.checkpoint(registry, || txn.checkpoint_view(), &|| horizon, bounds);
        txn.reset_snapshot()?;
        if out.is_ok() {
            txn.checkpointed(bounds.stable);
        }
        out
    }

    /// Checkpoints completed since the connection opened.
    pub fn checkpoints(&self) -> u64 {
        self.checkpoints.load(Ordering::Relaxed)
    }

    /// `WT_SESSION::verify` of `table`: checks its tree's file (see [`crate::btree::verify`]).
    /// Checkpoints wait meanwhile, so that the checkpoint's root and the free lists hold
    /// still; readers and writers go on.
    pub fn verify(&self, table: &Table) -> Result<()> {
        let Some(tree) = table.tree() else { return Ok(()) };
        let _checkpoints = self.last_checkpoint.lock();
        tree.verify().map(drop)
    }

    /// `WT_SESSION::compact` of `table`; returns the bytes given back to the file system.
    ///
    /// Checkpoints first carry the table's index into its tree and free the blocks only
    /// older checkpoints used. If more than a tenth of the file is then free, every page
    /// is rewritten into the lowest free space ([`Tree::rewrite`]) and a second checkpoint
    /// frees the old pages (blocks an older running snapshot can still read stay until a later
    /// compaction). Then the free space at the end of the file is given back, and a last
    /// checkpoint records the shorter file (a crash before it is harmless: the open accepts a
    /// file cut back over space its checkpoint calls free).
    pub fn compact(&self, registry: &Registry, table: &Table, txn: &mut Txn) -> Result<u64> {
        let Some(tree) = table.tree() else { return Ok(0) };
        // Blocks the merge replaced are released an epoch later, and become allocatable only
        // at the checkpoint after that: two checkpoints leave all free space allocatable.
        self.checkpoint_in(registry, txn)?;
        settle(tree);
        self.checkpoint_in(registry, txn)?;
        let (end, free) = tree.file().usage();
        if free.saturating_mul(10) > end {
            txn.reset_snapshot()?;
            tree.rewrite(txn.oldest())?;
            settle(tree);
            self.checkpoint_in(registry, txn)?;
        }
        let trimmed = tree.file().trim_tail()?;
        if trimmed > 0 {
            self.checkpoint_in(registry, txn)?;
        }
        Ok(trimmed)
    }

    /// Has `wake` called each time the journal has written `bytes` more bytes, rounded up to
    /// `log=(file_max)` as the reference does (`None`, or no journal: never).
    pub fn wake_on_journal_bytes(&self, bytes: u64, wake: Option<Wakeup>) {
        if let Some(j) = self.journal.get() {
            j.wake_every(bytes.max(j.file_max()), wake);
        }
    }

    /// The final checkpoint of a clean close (once; no session is open, so the newest state is
    /// the snapshot), as of `bounds` (the application timestamp it holds data as of, and the
    /// stable timestamp that came from: see [`Durable::checkpoint`]).
    pub fn close(&self, registry: &Registry, bounds: CheckpointStamps) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        if self.replay_pending() {
            // Closed before recovery finished (an `extensions=` library failed to load, or the
            // replay failed): the last checkpoint and the journal stay as they are, for the
            // next open.
            return Ok(());
        }
        let all = Horizon { seq: crate::store::TS_LATEST, ts: crate::store::NO_READ_TS };
        self.checkpoint(registry, || ReadView::LATEST, &|| all, bounds)
    }

    /// Skips the final checkpoint, as if the process died here, after the journal's writer
    /// thread wrote what was buffered (tests of recovery).
    pub fn abandon(&self) {
        self.closed.store(true, Ordering::Release);
        if let Some(j) = self.journal.get() {
            j.write_out();
        }
    }

    /// Every journal record on disk (decompressed), oldest first, with its file number and
    /// offset, after writing out what is buffered (`log:` cursors). `None` without a journal.
    pub fn journal_records(&self) -> Result<Option<Vec<(u64, u64, Vec<u8>)>>> {
        let Some(j) = self.journal.get() else { return Ok(None) };
        j.write_buffered()?;
        let mut out = Vec::new();
        journal::scan(&self.log_dir, |no, at, record| out.push((no, at, record.to_vec())))?;
        // As written, decompressed.
        let compressor = self.log_compressor.get().map(|c| c.compressor.as_ref());
        for (_, _, record) in &mut out {
            if let std::borrow::Cow::Owned(plain) = redo::expand(record, compressor, "journal")? {
                *record = plain;
            }
        }
        Ok(Some(out))
    }

    /// The rows of `table` as its last checkpoint left it, in key order, with that
    /// checkpoint's number; `None` when the table was created after it (`ENOENT` for
    /// checkpoint cursors). Checkpoints wait while the rows are read, so the checkpoint's
    /// blocks stay in place.
    pub fn checkpoint_rows(&self, table: &Table) -> Result<Option<(u64, Vec<(Vec<u8>, Vec<u8>)>)>> {
        let Some(tree) = table.tree() else { return Ok(None) };
        let last = self.last_checkpoint.lock();
        Ok(tree.checkpoint_rows()?.map(|rows| (*last, rows)))
    }

    /// `checkpoint(name=NAME, target=...)` after the checkpoint itself: copies the rows the
    /// checkpoint holds of every table (or of the `targets`) into the named checkpoint
    /// ([`named`]). Checkpoints wait meanwhile.
    pub fn name_checkpoint(&self, registry: &Registry, name: &str, targets: &[String]) -> Result<()> {
        let last = self.last_checkpoint.lock();
        let mut tables = Vec::new();
        for table in registry.tables() {
            if !targets.is_empty() && !targets.iter().any(|t| t == table.name()) {
                continue;
            }
            if let Some(rows) = table.tree().map(|t| t.checkpoint_rows()).transpose()?.flatten() {
                tables.push((table.id(), rows));
            }
        }
        named::write(&self.home, name, *last, &tables)
    }

    /// `checkpoint(drop=(...))`: drops named checkpoints ([`named::drop`]).
    pub fn drop_named(&self, elements: &[(String, Option<String>)]) -> Result<()> {
        let _checkpoints = self.last_checkpoint.lock();
        named::drop(&self.home, elements)
    }

    /// The rows of `table` in the named checkpoint `name` with the number of the checkpoint
    /// it copied, `None` when it does not hold the table.
    pub fn named_rows(&self, name: &str, table: &Table) -> Result<Option<(u64, Vec<(Vec<u8>, Vec<u8>)>)>> {
        named::rows(&self.home, name, table.id())
    }

    /// `WT_SESSION::log_flush`: writes the buffered journal records, and syncs with `sync`.
    pub fn log_flush(&self, sync: bool) -> Result<()> {
        match self.journal.get() {
            Some(j) => j.flush(sync),
            None => Err(Error::invalid("logging not enabled")),
        }
    }
}

/// Waits (briefly: at most about 100 ms) for the blocks `tree` retired to be released: they
/// are once no reader that started before their retirement is left (an epoch later). Blocks
/// still held by a reader then are freed by a later checkpoint.
fn settle(tree: &Tree) {
    for _ in 0..100 {
        if tree.file().retiring() == 0 {
            return;
        }
        // The collector moves its epoch as guards come and go.
        for _ in 0..256 {
            drop(scc::Guard::new());
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Creates a new database's files: an empty first checkpoint, then the table list (written
/// last: its presence marks a database).
fn initialize(disk: &Disk) -> Result<Meta> {
    let header = Header { no: 1, replay_from: 1, snapshot_ts: 0, journal_exists: false, stable_ts: 0, oldest_ts: 0 };
    checkpoint::write(disk, header, &[]).map_err(|f| f.error)?;
    let meta = Meta { next_id: 1, tables: Vec::new() };
    meta.store(disk)?;
    Ok(meta)
}

/// The file of table `id`'s tree.
fn tree_file(id: u64) -> String {
    format!("{TREE_PREFIX}{id}")
}

/// Table `id`'s tree: as `record` (its last checkpoint) left it, or a new, empty one. Its
/// blocks are compressed by the table's `block_compressor`, found in `compressors` at first use.
fn open_tree(
    disk: &Arc<Disk>,
    spec: &TableSpec,
    record: Option<TreeRecord>,
    cache: &Arc<Cache>,
    compressors: &Arc<Compressors>,
) -> Result<Tree> {
    let name = tree_file(spec.id);
    let cache = Arc::clone(cache);
    let codec = Codec::named(&spec.block_compressor, compressors);
    Ok(match record {
        Some(record) => Tree::open(BlockFile::open(disk, &name, record.space)?.with_codec(codec), record.root, spec.pages, cache),
        None => Tree::create(BlockFile::create(disk, &name)?.with_codec(codec), spec.pages, cache),
    })
}

/// Removes tree files of tables the table list does not name (a crash between creating the
/// file and listing the table, or between a drop's list update and the file's removal).
fn remove_orphan_trees(disk: &Disk, meta: &Meta) -> Result<()> {
    for id in disk.numbered(TREE_PREFIX)? {
        if !meta.tables.iter().any(|t| t.id == id) {
            disk.remove(&tree_file(id))?;
        }
    }
    Ok(())
}
