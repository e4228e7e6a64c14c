//! The connection: settings, the table registry and the fixed array of session slots.

mod eviction;
pub mod extensions;
mod evictor;
mod home;
mod settings;
mod slots;
mod statistics;
mod timestamps;

use eviction::Eviction;
use evictor::Evictor;
use home::HomeClaim;

pub use settings::Settings;
pub use slots::SessionSlots;
pub use statistics::ConnStatistics;

use std::ffi::CString;
use std::path::Path;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use crate::btree::cache::Cache;
use crate::btree::compress::Compressors;
use crate::config::{self, Method};
use crate::durable::background::{CheckpointConfig, Checkpointer};
use crate::durable::Durable;
use crate::error::{Error, Kind, Result};
use crate::schema::{Registry, TableSpec};
use crate::stats::counters::{OwnedSlot, SlotStats};
use crate::stats::log::{Dump, DumpSource, StatsLogConfig, StatsLogger};
use crate::stats::Family;
use crate::txn::{Isolation, Txn, TxnShared};

/// "log: log sync operations" (`WT_STAT_CONN_LOG_SYNC`): syncs of the journal.
const CONN_LOG_SYNC: i32 = 1482;
/// "log: log write operations" (`WT_STAT_CONN_LOG_WRITES`): records put in the journal (the
/// reference counts one per record written, not per I/O).
const CONN_LOG_WRITES: i32 = 1486;

/// The journal's other figures, under the reference's names.
mod journal_ids {
    /// "log: log bytes of payload data": the records' bytes.
    pub const BYTES_PAYLOAD: i32 = 1468;
    /// "log: log bytes written": bytes written to journal files.
    pub const BYTES_WRITTEN: i32 = 1469;
    /// "log: log flush operations": `log_flush` calls.
    pub const FLUSH: i32 = 1471;
    /// "log: log release advances write LSN": writes of buffered slots to a file.
    pub const RELEASE_WRITE_LSN: i32 = 1477;
    /// "log: maximum log file size": `log=(file_max)`.
    pub const MAX_FILESIZE: i32 = 1488;
    /// "log: slot closures": slots closed and written (empty ones included).
    pub const SLOT_CLOSES: i32 = 1496;
    /// "log: slot join calls did not yield": joins that found the open slot free to join.
    pub const SLOT_IMMEDIATE: i32 = 1499;
    /// "log: slot join calls yielded": joins that waited for a slot switch.
    pub const SLOT_YIELD: i32 = 1502;
    /// "log: slot unbuffered writes": records too large for a slot, written directly.
    pub const SLOT_UNBUFFERED: i32 = 1506;
    /// "log: total log buffer size": the slots' bytes.
    pub const BUFFER_SIZE: i32 = 1508;
    /// "log: log records compressed", "... not compressed", "... too small to compress",
    /// "log: total in-memory size of compressed records", "log: total size of compressed
    /// records" (with `log=(compressor=)`).
    pub const COMPRESS_WRITES: i32 = 1474;
    pub const COMPRESS_WRITE_FAILS: i32 = 1475;
    pub const COMPRESS_SMALL: i32 = 1476;
    pub const COMPRESS_MEM: i32 = 1507;
    pub const COMPRESS_LEN: i32 = 1509;
}

/// Figures computed when a statistics cursor reads them (not in the generated catalogue's
/// kept lists: counted by the paged store on misses, merges and checkpoints, never on a
/// cache hit; not reset by `statistics=(clear)`).
mod computed {
    /// "block-manager: blocks read"
    pub const BLOCK_READ: i32 = 1055;
    /// "block-manager: blocks written"
    pub const BLOCK_WRITE: i32 = 1056;
    /// "block-manager: bytes read"
    pub const BLOCK_BYTE_READ: i32 = 1057;
    /// "block-manager: bytes written"
    pub const BLOCK_BYTE_WRITE: i32 = 1060;
    /// "cache: bytes currently in the cache"
    pub const CACHE_BYTES_INUSE: i32 = 1077;
    /// "cache: evict page attempts by eviction server"
    pub const EVICTION_SERVER_ATTEMPT: i32 = 1084;
    /// "cache: page evict attempts by application threads"
    pub const EVICTION_APP_ATTEMPT: i32 = 1196;
    /// "cache: pages read into cache"
    pub const CACHE_READ: i32 = 1209;
    /// "cache: pages written from cache"
    pub const CACHE_WRITE: i32 = 1223;
    /// "cache: tracked dirty bytes in the cache"
    pub const CACHE_BYTES_DIRTY: i32 = 1234;
    /// "cache: unmodified pages evicted"
    pub const CACHE_EVICTION_CLEAN: i32 = 1239;
    /// "checkpoint: total succeed number of checkpoints"
    pub const CHECKPOINTS_TOTAL_SUCCEED: i32 = 1306;
}

/// Sessions the reference reserves beyond `session_max` for its own threads; applications
/// observed one application session per slot of this allowance (api.md, `open_session`).
const INTERNAL_SESSIONS: usize = 22;

/// The session slots `session_max` asks for, refused with `ENOMEM` (as the reference refuses
/// when it cannot allocate its session array) when their per-slot arrays would not fit in this
/// machine's memory: an allocation that size aborts the process, or has it killed.
fn session_capacity(session_max: usize) -> Result<usize> {
    let per_slot = SessionSlots::BYTES_PER_SLOT + SlotStats::BYTES_PER_SLOT + TxnShared::BYTES_PER_SLOT;
    let capacity = session_max.saturating_add(INTERNAL_SESSIONS);
    let memory = physical_memory();
    match capacity.checked_mul(per_slot) {
        Some(bytes) if bytes <= memory => Ok(capacity),
        _ => Err(Error::new(
            Kind::NoSpace,
            format!(
                "session_max={session_max}: {capacity} session slots of {per_slot} bytes each do not fit in \
                 this machine's {} MB of memory",
                memory >> 20
            ),
        )),
    }
}

/// The machine's physical memory in bytes (unbounded if the system does not say).
fn physical_memory() -> usize {
    // SAFETY: sysconf reads system constants; it has no preconditions.
    let (pages, page_size) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    match (usize::try_from(pages), usize::try_from(page_size)) {
        (Ok(pages), Ok(size)) if pages > 0 && size > 0 => pages.saturating_mul(size),
        _ => usize::MAX,
    }
}

/// The statistics log's view of the connection: each round, the connection's statistics and
/// those of the tables the `sources` select (table `NAME` is source `file:NAME.wt`, its file
/// in the reference), or nothing while statistics are off. It holds shared parts of the
/// connection, not the connection.
fn stats_log_source(conn: &Connection, config: StatsLogConfig) -> DumpSource {
    let statistics = Arc::clone(&conn.statistics);
    let slot_stats = Arc::clone(&conn.slot_stats);
    let registry = Arc::clone(&conn.registry);
    let home = conn.home.to_string_lossy().into_owned();
    Box::new(move || {
        let flags = statistics.flags();
        if !flags.enabled() {
            return None;
        }
        let mut dumps = vec![Dump {
            name: home.clone(),
            family: Family::Connection,
            stats: statistics.snapshot(&slot_stats, flags.clear),
        }];
        let mut tables: Vec<(String, Arc<crate::schema::Table>)> =
            registry.tables().into_iter().map(|t| (format!("file:{}.wt", t.name()), t)).collect();
        tables.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, table) in tables.into_iter().filter(|(name, _)| config.matches_source(name)) {
            dumps.push(Dump { name, family: Family::DataSource, stats: table.statistics_snapshot(flags.clear, flags.all || flags.tree_walk) });
        }
        Some(dumps)
    })
}

/// An open database.
pub struct Connection {
    /// Released when the connection drops, so the home can be opened again.
    _home_claim: HomeClaim,
    home: CString,
    is_new: bool,
    /// What recovery with `salvage=true` dropped, one line per damage (delivered to the
    /// application's `handle_message` by `wiredtiger_open`).
    recovery_messages: Vec<String>,
    settings: Settings,
    error_prefix: RwLock<String>,
    registry: Arc<Registry>,
    slots: SessionSlots,
    /// One statistics block per session slot.
    slot_stats: Arc<SlotStats>,
    statistics: Arc<ConnStatistics>,
    /// The `statistics_log` settings and thread.
    stats_log: Mutex<(StatsLogConfig, Option<StatsLogger>)>,
    /// Commit clock, the sessions' published snapshots, reclamation left by closed sessions.
    txn: Arc<TxnShared>,
    /// Files, journal and checkpoints of an on-disk database (`None` in memory).
    durable: Option<Arc<Durable>>,
    /// The `checkpoint=(…)` settings and the background checkpoint thread.
    checkpointer: Mutex<(CheckpointConfig, Option<Checkpointer>)>,
    /// The `eviction_*` settings as configured, the cache's thresholds.
    eviction: Mutex<Eviction>,
    /// The cache budget: pages read and in-memory indexes count against it.
    cache: Arc<Cache>,
    /// The eviction server of an on-disk database.
    evictor: Mutex<Option<Evictor>>,
    /// Collators and compressors the application registered.
    extensions: extensions::Extensions,
    /// An open whose journal replay waits for the application's `extensions=`: its journal
    /// compressor's name (`log=(compressor=NAME)`, or empty: a collated table's collator is
    /// what it waits for), and the checkpoint settings to start with once it ran
    /// (`finish_open`).
    deferred: Mutex<Option<(String, CheckpointConfig)>>,
}

impl Connection {
    /// `wiredtiger_open`: validates the configuration and opens the database in `home`
    /// (`None` means ".").
    pub fn open(home: Option<&str>, config: Option<&str>) -> Result<Connection> {
        crate::alloc::configure();
        let cfg = config::validate(Method::WiredtigerOpen, config, Some(&crate::schema::check_format))?;
        let settings = Settings::from_open(&cfg)?;
        let eviction = Eviction::from_config(&cfg, None)?;
        let home_str = home.unwrap_or(".");
        if home.is_some() && !Path::new(home_str).is_dir() {
            return Err(Error::new(
                Kind::TrySalvage,
                format!("{home_str}/WiredTiger.lock: handle-open: open: No such file or directory"),
            ));
        }
        let capacity = session_capacity(settings.session_max)?;
        let stats_log = StatsLogConfig::from_config(&cfg, None)?;
        let home_claim = HomeClaim::new(home_str)?;
        let registry = Arc::<Registry>::default();
        let cache = Arc::new(Cache::new(eviction.thresholds()));
        let compressors = Arc::<Compressors>::default();
        let (durable, recovery_messages, recovered) = if settings.in_memory {
            (None, Vec::new(), (0, 0))
        } else {
            // A journal compressor is registered by `extensions=`, loaded once the connection
            // is open: the journal replay waits for it (`finish_open`).
            let defer = cfg.bool("log.enabled") && !matches!(cfg.str("log.compressor"), "" | "none");
            let (durable, recovered) = Durable::open(home_str, &cfg, &registry, &cache, &compressors, defer)?;
            (Some(Arc::new(durable)), recovered.salvaged, (recovered.stable_ts, recovered.oldest_ts))
        };
        let txn = Arc::new(TxnShared::new(capacity, Arc::clone(&cache)));
        txn.timestamps.restore(recovered.0, recovered.1);
        let journalled = durable.as_deref().is_some_and(Durable::journalled);
        for table in registry.tables() {
            table.set_timestamped(!(journalled && table.spec().logged));
        }
        let conn = Connection {
            _home_claim: home_claim,
            home: CString::new(home_str).map_err(|_| Error::invalid("home contains a NUL byte"))?,
            is_new: durable.as_deref().is_none_or(Durable::created),
            recovery_messages,
            error_prefix: RwLock::new(cfg.str("error_prefix").to_string()),
            settings,
            registry,
            slots: SessionSlots::new(capacity),
            slot_stats: Arc::new(SlotStats::new(capacity)),
            statistics: Arc::new(ConnStatistics::new(config::check_statistics(&cfg)?, cfg.int("cache_size"))),
            stats_log: Mutex::new((StatsLogConfig::default(), None)),
            txn,
            cache,
            evictor: Mutex::new(None),
            extensions: extensions::Extensions::new(compressors),
            durable,
            deferred: Mutex::new(None),
            checkpointer: Mutex::new((CheckpointConfig::default(), None)),
            eviction: Mutex::new(eviction),
        };
        conn.start_stats_log(stats_log)?;
        let checkpoints = CheckpointConfig::from_config(&cfg, None);
        if conn.durable.as_deref().is_some_and(Durable::replay_pending) {
            // Started once the journal is replayed: a checkpoint before would drop its rows.
            *conn.deferred.lock() = Some((cfg.str("log.compressor").to_string(), checkpoints));
        } else {
            conn.configure_checkpoints(checkpoints)?;
        }
        if conn.durable.is_some() {
            let threads = cfg.int("eviction.threads_min").max(1) as usize;
            let evictor = Evictor::start(threads, Arc::clone(&conn.registry), Arc::clone(&conn.cache))?;
            *conn.evictor.lock() = Some(evictor);
        }
        Ok(conn)
    }

    /// The end of an open whose journal replay waits for `extensions=` (`log=(compressor=NAME)`,
    /// or a collated table): replays the journal with the compressor and collators they
    /// registered, then starts the checkpoints. Returns what salvage dropped from the journal.
    /// Does nothing for any other open.
    pub fn finish_open(&self) -> Result<Vec<String>> {
        let Some((name, checkpoints)) = self.deferred.lock().take() else { return Ok(Vec::new()) };
        let Some(durable) = &self.durable else { return Ok(Vec::new()) };
        let compressor = match name.as_str() {
            "" | "none" => None,
            name => Some(self.extensions.compressor(name).ok_or_else(|| Error::invalid(format!("unknown compressor '{name}'")))?),
        };
        // Collated tables replay in their collators' order: found now if registered (customized
        // for the table without a session, as none exists yet). One not registered fails the
        // replay only if the journal has records of its table (`EINVAL` "unknown collator");
        // otherwise it is found at the table's first use, as after a clean close.
        for table in self.registry.tables() {
            if let Some(collator) = table.collator() {
                let _ = collator.resolve(0, |name| self.extensions.collator(name));
            }
        }
        let (_, salvaged) = durable.replay(compressor)?;
        self.configure_checkpoints(checkpoints)?;
        Ok(salvaged)
    }

    /// (Re)starts the statistics log with `config`, stopping the thread that ran before.
    fn start_stats_log(&self, config: StatsLogConfig) -> Result<()> {
        let mut log = self.stats_log.lock();
        if let Some(old) = log.1.take() {
            // The old thread's I/O error was its own; the new settings start afresh.
            let _ = old.stop();
        }
        let home = Path::new(self.home.to_str().unwrap_or("."));
        let logger = if config.runs() || config.on_close {
            let source = stats_log_source(self, config.clone());
            Some(StatsLogger::start(&config, home, self.statistics.flags().enabled(), source)?)
        } else {
            None
        };
        *log = (config, logger);
        Ok(())
    }

    /// Applies `checkpoint=(…)` settings: stops the background checkpoint thread that ran
    /// before (letting a checkpoint under way finish) and starts one if `config` asks for it.
    /// In memory there are no checkpoints and no thread (the reference's rule). Tests give a
    /// `wait` shorter than a second.
    pub(crate) fn configure_checkpoints(&self, config: CheckpointConfig) -> Result<()> {
        let mut ckpt = self.checkpointer.lock();
        self.stop_checkpointer(ckpt.1.take());
        ckpt.0 = config;
        let Some(durable) = self.durable.as_ref().filter(|d| config.runs(d.has_journal())) else {
            return Ok(());
        };
        // Its own slot, so that its snapshot is pinned against reclamation like a session's.
        let slot = self.slots.claim()?;
        let txn = Txn::new(Arc::clone(&self.txn), slot, Isolation::Snapshot, OwnedSlot::new(&self.slot_stats, slot));
        match Checkpointer::start(config, Arc::clone(durable), Arc::clone(&self.registry), (txn, slot)) {
            Ok(c) => ckpt.1 = Some(c),
            Err(e) => {
                self.slots.release(slot);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Stops a background checkpoint thread and frees its slot. The error of its last
    /// checkpoint is dropped: the next checkpoint (at the latest, close's) reports its own.
    fn stop_checkpointer(&self, checkpointer: Option<Checkpointer>) {
        if let Some(c) = checkpointer {
            let slot = c.slot();
            let _ = c.stop();
            self.slots.release(slot);
        }
    }

    /// Whether a background checkpoint thread runs.
    pub fn checkpointer_running(&self) -> bool {
        self.checkpointer.lock().1.is_some()
    }

    /// The home directory as given ("." for NULL).
    pub fn home(&self) -> &CString {
        &self.home
    }

    /// The durability state of an on-disk database (`None` in memory).
    pub fn durable(&self) -> Option<&Durable> {
        self.durable.as_deref()
    }

    /// Whether a table created with `log=(enabled=…)` takes the application's timestamps: the
    /// reference ignores them on logged tables, which are, in memory, those that keep the
    /// default `log=(enabled=true)`, and on disk, those of a database with a journal that keep
    /// it (their writes go to the journal: commit-level durability).
    pub fn timestamps_apply(&self, table_logged: bool) -> bool {
        match &self.durable {
            None => !table_logged,
            Some(d) => !(d.journalled() && table_logged),
        }
    }

    /// Creates a table (`WT_SESSION::create`), durably in an on-disk database.
    pub fn create_table(&self, spec: TableSpec, exclusive: bool) -> Result<()> {
        match &self.durable {
            Some(d) => d.create_table(&self.registry, spec, exclusive),
            None => self.registry.create(spec, exclusive),
        }
    }

    /// Drops a table (`WT_SESSION::drop`), durably in an on-disk database.
    pub fn drop_table(&self, name: &str) -> Result<()> {
        match &self.durable {
            Some(d) => d.drop_table(&self.registry, name),
            None => self.registry.drop_table(name),
        }
    }

    /// The end of a clean close (every session closed): the statistics log and the background
    /// checkpoint thread stop, and an on-disk database takes its final checkpoint.
    pub fn close(&self) -> Result<()> {
        self.close_using(true)
    }

    /// [`close`](Self::close); with `use_timestamp` false the final checkpoint holds every
    /// commit, whatever the stable timestamp (`WT_CONNECTION::close(use_timestamp=false)`).
    pub fn close_using(&self, use_timestamp: bool) -> Result<()> {
        if let Some(evictor) = self.evictor.lock().take() {
            evictor.stop();
        }
        self.close_stats_log();
        self.stop_checkpointer(self.checkpointer.lock().1.take());
        match &self.durable {
            Some(d) => d.close(&self.registry, self.txn.checkpoint_bounds().using_timestamp(use_timestamp)),
            None => Ok(()),
        }
    }

    /// The collators and compressors the application registered.
    pub fn extensions(&self) -> &extensions::Extensions {
        &self.extensions
    }

    /// Whether this open created the database (always true in memory).
    pub fn is_new(&self) -> bool {
        self.is_new
    }

    /// What `wiredtiger_open` with `salvage=true` dropped from a damaged journal (one
    /// message per damage; empty when nothing was).
    pub fn recovery_messages(&self) -> &[String] {
        &self.recovery_messages
    }

    /// Open-time settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The tables.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The session slots.
    pub fn slots(&self) -> &SessionSlots {
        &self.slots
    }

    /// The statistics blocks of the session slots.
    pub fn slot_stats(&self) -> &Arc<SlotStats> {
        &self.slot_stats
    }

    /// The statistics setting and snapshots.
    pub fn statistics(&self) -> &ConnStatistics {
        &self.statistics
    }

    /// A snapshot of the connection statistics (`statistics:`).
    pub fn statistics_snapshot(&self, clear: bool) -> crate::stats::Snapshot {
        let mut snapshot = self.statistics.snapshot(&self.slot_stats, clear);
        if let Some(journal) = self.durable.as_ref().filter(|d| d.has_journal()) {
            // Counted by each session's committer (summed here) and by the journal's writer
            // role; not cleared by `statistics=(clear)`.
            let stats = journal.journal_stats();
            let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
            snapshot.extend([
                (CONN_LOG_SYNC, count(stats.syncs)),
                (CONN_LOG_WRITES, count(stats.records)),
                (journal_ids::BYTES_PAYLOAD, count(stats.payload)),
                (journal_ids::BYTES_WRITTEN, count(stats.bytes)),
                (journal_ids::FLUSH, count(stats.flushes)),
                (journal_ids::RELEASE_WRITE_LSN, count(stats.writes)),
                (journal_ids::MAX_FILESIZE, count(stats.file_max)),
                (journal_ids::SLOT_CLOSES, count(stats.slots)),
                (journal_ids::SLOT_IMMEDIATE, count(stats.joins - stats.joins_waited)),
                (journal_ids::SLOT_YIELD, count(stats.joins_waited)),
                (journal_ids::SLOT_UNBUFFERED, count(stats.records - stats.joins)),
                (journal_ids::BUFFER_SIZE, count(stats.buffer)),
            ]);
            if let Some(c) = journal.log_compress_stats() {
                use std::sync::atomic::Ordering::Relaxed;
                snapshot.extend([
                    (journal_ids::COMPRESS_WRITES, count(c.compressed.load(Relaxed))),
                    (journal_ids::COMPRESS_WRITE_FAILS, count(c.not_compressed.load(Relaxed))),
                    (journal_ids::COMPRESS_SMALL, count(c.too_small.load(Relaxed))),
                    (journal_ids::COMPRESS_MEM, count(c.bytes_before.load(Relaxed))),
                    (journal_ids::COMPRESS_LEN, count(c.bytes_after.load(Relaxed))),
                ]);
            }
        }
        self.paged_statistics(&mut snapshot);
        snapshot.sort_unstable_by_key(|&(id, _)| id);
        snapshot
    }

    /// The cache's figures, and on disk the block files' and the checkpoints' (relaxed
    /// counters the paged store bumps on misses, writes and checkpoints). The block figures
    /// sum the tables that exist now: a dropped table's I/O leaves the sum.
    fn paged_statistics(&self, snapshot: &mut crate::stats::Snapshot) {
        use computed::*;
        use std::sync::atomic::Ordering::Relaxed;
        let c = &self.cache.stats;
        let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        snapshot.extend([
            (CACHE_BYTES_INUSE, count(self.cache.total_bytes())),
            (CACHE_BYTES_DIRTY, count(self.cache.dirty_bytes())),
            (CACHE_READ, count(self.cache.pages_read())),
            (CACHE_WRITE, count(c.pages_written.load(Relaxed))),
            (EVICTION_APP_ATTEMPT, count(self.cache.pages_evicted_app())),
            (EVICTION_SERVER_ATTEMPT, count(self.cache.pages_evicted_server())),
            (CACHE_EVICTION_CLEAN, count(self.cache.pages_evicted_app() + self.cache.pages_evicted_server())),
        ]);
        let Some(durable) = &self.durable else { return };
        let mut io = [0u64; 4];
        for table in self.registry.tables() {
            if let Some(tree) = table.tree() {
                let b = tree.file().stats();
                for (sum, n) in io.iter_mut().zip([b.blocks_read(), b.blocks_written.load(Relaxed), b.bytes_read(), b.bytes_written.load(Relaxed)]) {
                    *sum += n;
                }
            }
        }
        snapshot.extend([
            (BLOCK_READ, count(io[0])),
            (BLOCK_WRITE, count(io[1])),
            (BLOCK_BYTE_READ, count(io[2])),
            (BLOCK_BYTE_WRITE, count(io[3])),
            (CHECKPOINTS_TOTAL_SUCCEED, count(durable.checkpoints())),
        ]);
    }

    /// The transaction state shared by the sessions (each session holds a reference, taken at
    /// open).
    pub fn txn(&self) -> &Arc<TxnShared> {
        &self.txn
    }

    /// The prefix of every error message (read on error paths only).
    pub fn error_prefix(&self) -> String {
        self.error_prefix.read().clone()
    }

    /// `WT_CONNECTION::reconfigure`: only the keys given change.
    pub fn reconfigure(&self, config: Option<&str>) -> Result<()> {
        let cfg = config::validate(Method::ConnReconfigure, config, None)?;
        // Checked first, so that a refused combination changes nothing.
        let mut eviction = self.eviction.lock();
        *eviction = Eviction::from_config(&cfg, Some(&eviction))?;
        self.cache.set(eviction.thresholds());
        drop(eviction);
        if cfg.is_set("statistics") {
            let flags = config::check_statistics(&cfg)?;
            self.statistics.reconfigure(flags, &self.slot_stats);
        }
        if cfg.is_set("error_prefix") {
            *self.error_prefix.write() = cfg.str("error_prefix").to_string();
        }
        if cfg.is_set("cache_size") {
            self.statistics.set_cache_size(cfg.int("cache_size"));
        }
        if cfg.is_set("checkpoint") {
            let previous = self.checkpointer.lock().0;
            self.configure_checkpoints(CheckpointConfig::from_config(&cfg, Some(previous)))?;
        }
        if cfg.is_set("statistics_log") {
            let previous = self.stats_log.lock().0.clone();
            self.start_stats_log(StatsLogConfig::from_config(&cfg, Some(&previous))?)?;
        }
        Ok(())
    }

    /// Stops the statistics log, writing its last round when `on_close` asks for one (the
    /// connection is closing: its sessions are closed).
    pub fn close_stats_log(&self) {
        if let Some(logger) = self.stats_log.lock().1.take() {
            // Nothing is left to report an I/O error of the log to.
            let _ = logger.close();
        }
    }

    /// Validates the configuration of `WT_CONNECTION::close` (the connection closes anyway).
    /// Checks `WT_CONNECTION::close`'s configuration; returns its `use_timestamp`.
    pub fn check_close_config(config: Option<&str>) -> Result<bool> {
        config::validate(Method::ConnClose, config, None).map(|cfg| cfg.bool("use_timestamp")).map_err(Error::from)
    }
}

impl Drop for Connection {
    /// A connection dropped without `close` (Rust users) still stops its statistics log.
    fn drop(&mut self) {
        // Nothing is left to report an error to; `close` reports it.
        let _ = self.close();
    }
}

#[cfg(test)]
mod tests {
    use crate::stats::Family;

    #[test]
    fn journal_statistics_ids_are_the_references() {
        assert_eq!(Family::Connection.description(super::CONN_LOG_SYNC), Some("log: log sync operations"));
        assert_eq!(Family::Connection.description(super::CONN_LOG_WRITES), Some("log: log write operations"));
        use super::journal_ids::*;
        for (id, text) in [
            (BYTES_PAYLOAD, "log: log bytes of payload data"),
            (BYTES_WRITTEN, "log: log bytes written"),
            (FLUSH, "log: log flush operations"),
            (RELEASE_WRITE_LSN, "log: log release advances write LSN"),
            (MAX_FILESIZE, "log: maximum log file size"),
            (SLOT_CLOSES, "log: slot closures"),
            (SLOT_IMMEDIATE, "log: slot join calls did not yield"),
            (SLOT_YIELD, "log: slot join calls yielded"),
            (SLOT_UNBUFFERED, "log: slot unbuffered writes"),
            (BUFFER_SIZE, "log: total log buffer size"),
        ] {
            assert_eq!(Family::Connection.description(id), Some(text));
        }
    }

    #[test]
    fn paged_statistics_ids_are_the_references() {
        use super::computed::*;
        for (id, text) in [
            (BLOCK_READ, "block-manager: blocks read"),
            (BLOCK_WRITE, "block-manager: blocks written"),
            (BLOCK_BYTE_READ, "block-manager: bytes read"),
            (BLOCK_BYTE_WRITE, "block-manager: bytes written"),
            (CACHE_BYTES_INUSE, "cache: bytes currently in the cache"),
            (EVICTION_SERVER_ATTEMPT, "cache: evict page attempts by eviction server"),
            (EVICTION_APP_ATTEMPT, "cache: page evict attempts by application threads"),
            (CACHE_READ, "cache: pages read into cache"),
            (CACHE_WRITE, "cache: pages written from cache"),
            (CACHE_BYTES_DIRTY, "cache: tracked dirty bytes in the cache"),
            (CACHE_EVICTION_CLEAN, "cache: unmodified pages evicted"),
            (CHECKPOINTS_TOTAL_SUCCEED, "checkpoint: total succeed number of checkpoints"),
        ] {
            assert_eq!(Family::Connection.description(id), Some(text));
        }
    }

    #[test]
    fn session_max_beyond_memory_is_enomem() {
        use crate::error::code::ENOMEM;
        assert_eq!(super::session_capacity(100).unwrap(), 100 + super::INTERNAL_SESSIONS);
        for huge in [1_000_000_000, 4_294_967_296, usize::MAX] {
            let err = super::session_capacity(huge).unwrap_err();
            assert_eq!(err.code(), ENOMEM);
            assert!(err.to_string().contains(&format!("session_max={huge}")), "{err}");
        }
    }
}
