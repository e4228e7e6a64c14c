//! One table: its formats and configuration, its ordered index, and the bookkeeping that lets
//! `drop` see open cursors without any cursor writing a shared counter.

use std::ffi::CString;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use crossbeam_utils::CachePadded;
use parking_lot::Mutex;

use crate::btree::cache::Cache;
use crate::btree::tree::{Limits, Tree};
use crate::error::{Error, Kind, Result};
use crate::pack::Format;
use crate::stats::counters::{dsrc_report, TableStats, DSRC_STATS};
use crate::stats::Snapshot;
use crate::store::prefixes::Split;
use crate::store::{Collator, Horizon, Index, Layers};
use super::columns::column_formats;
use super::layout::schema_setting;
use crate::sync::{fence, AtomicBool, AtomicI64, AtomicU32};

/// A forced merge waits for the index to grow at least this much since the last one.
const MIN_GROWTH: u64 = 1 << 20;

/// [`Table`] state bits.
const DROPPED: u8 = 1;
const MANAGED: u8 = 2;

/// The URI the application created the object `name` with: `table:NAME`, or the name of a
/// column group's or index's store (`colgroup:T:NAME`, `index:T:NAME`), which is its URI.
fn object_uri(name: &str) -> String {
    match name.contains(':') {
        true => name.to_string(),
        false => format!("table:{name}"),
    }
}

/// What `WT_SESSION::create` decided about a new table.
#[derive(Clone, Debug)]
pub struct TableSpec {
    /// The durable id of an on-disk database's table (never reused; journal records and
    /// checkpoints name tables by it); 0 in memory.
    pub id: u64,
    /// The name after `table:`.
    pub name: String,
    /// Key format, verbatim.
    pub key_format: String,
    /// Value format, verbatim.
    pub value_format: String,
    /// Column names: the table's key then value columns; for a column group or an index
    /// (`colgroup:T:NAME`, `index:T:NAME`, stored as tables of those names), the table's
    /// columns it holds.
    pub columns: Vec<String>,
    /// Schema settings that are not formats (`colgroups=(...)` of a table, `immutable`,
    /// `extractor` and `index_key_format` of an index), one `key=value` a line; empty for most
    /// tables.
    pub schema: String,
    /// Opaque application metadata.
    pub app_metadata: String,
    /// `log=(enabled=…)`: whether the table's writes go to the journal (when the database has
    /// one); tables that are not logged take the application's timestamps instead.
    pub logged: bool,
    /// Page sizes of the table's tree (`leaf_page_max`, `internal_page_max`).
    pub pages: Limits,
    /// `block_compressor=`: the registered compressor its pages are written with ("": none).
    pub block_compressor: String,
    /// `collator=`: the registered collator ordering its keys ("": bytewise).
    pub collator: String,
}

/// A table: immutable description plus its data.
pub struct Table {
    uri: CString,
    key_format_c: CString,
    value_format_c: CString,
    key_format: Format,
    value_format: Format,
    recno: bool,
    spec: TableSpec,
    /// The changes not yet merged into `tree` (all the data, in memory).
    index: Arc<Index>,
    /// The collator ordering the keys (`collator=`), shared with the index and the tree.
    collator: Option<Arc<Collator>>,
    /// The table's tree on disk (`None` in memory).
    tree: Option<Tree>,
    /// Estimated bytes of the index (what writers published, reset by merges), and the
    /// estimate right after the last merge: a forced merge waits until the index has grown
    /// well past it, so that history a long-running snapshot holds does not make every writer
    /// merge in vain.
    dirty: CachePadded<AtomicI64>,
    merged_at: AtomicI64,
    /// Held while an in-memory table's index is measured ([`Table::measure`]).
    measuring: Mutex<()>,
    /// [`DROPPED`] while a `drop` checks for open cursors, and for good once it succeeds;
    /// [`MANAGED`] once the table has column groups or indices: its plain cursors parked in
    /// cursor caches are then stale (the quick reuse path tests the whole byte, so managed
    /// tables cost it nothing).
    state: AtomicU8,
    /// One record per session that has used the table; the sessions write only their own.
    users: Mutex<Vec<Arc<TableUse>>>,
    /// Statistics of the use records of sessions that have closed.
    retired: Mutex<[i64; DSRC_STATS]>,
    /// Totals at the last `statistics=(clear)` read, for clearable statistics.
    baseline: Mutex<[i64; DSRC_STATS]>,
    /// Whether commits give its versions the application's timestamps (the reference ignores
    /// timestamps on logged tables: `Connection::timestamps_apply`).
    timestamped: AtomicBool,
}

/// One session's use of one table. Only that session writes it; `drop` and statistics
/// cursors read every one. Aligned to its own cache lines, so that no other allocation (another
/// session's record, made by another thread) shares a line with it.
#[derive(Default)]
#[repr(align(128))]
pub struct TableUse {
    open: AtomicU32,
    /// The session's data-source statistics of this table.
    pub stats: TableStats,
}

impl TableUse {
    /// Counts an open cursor of the owning session. A plain load and store, not a
    /// read-modify-write: only the owner writes this counter.
    fn add(&self, delta: i32) {
        let now = self.open.load(Ordering::Relaxed);
        self.open.store(now.wrapping_add_signed(delta), Ordering::Relaxed);
    }

    /// Number of open cursors of the owning session on the table.
    pub fn open_cursors(&self) -> u32 {
        self.open.load(Ordering::Relaxed)
    }
}

/// For the store of a secondary index (`index:TABLE:NAME`), how long the index columns at the
/// head of a stored key are (what its prefix map is keyed by, `crate::store::prefixes`); `None`
/// for other tables, and for indices whose columns cannot be measured on their own (a last `u`,
/// which the stored key writes with its length).
fn index_prefix(spec: &TableSpec, key_format: &Format) -> Option<Split> {
    if !spec.name.starts_with("index:") {
        return None;
    }
    let text = match schema_setting(&spec.schema, "extractor") {
        Some(_) => schema_setting(&spec.schema, "index_key_format")?.to_string(),
        // The stored key is the index's columns, then the table's key columns.
        None => column_formats(key_format).get(..spec.columns.len())?.concat(),
    };
    if text.is_empty() || text.ends_with('u') {
        return None;
    }
    let format = Format::parse(&text).ok()?;
    Some(Box::new(move |key| crate::pack::unpack(&format, key, &mut crate::pack::Discard).ok()))
}

impl Table {
    /// Builds an in-memory table from a validated specification.
    pub fn new(spec: TableSpec) -> Result<Table> {
        Table::build(spec, None)
    }

    /// Builds a table whose data lives in `tree`, with the in-memory index over it.
    pub fn on_disk(spec: TableSpec, tree: Tree) -> Result<Table> {
        Table::build(spec, Some(tree))
    }

    fn build(spec: TableSpec, tree: Option<Tree>) -> Result<Table> {
        let key_format = Format::parse(&spec.key_format)?;
        let value_format = Format::parse(&spec.value_format)?;
        let c = |s: &str| CString::new(s).map_err(|_| Error::invalid("embedded NUL in a name or format"));
        let collator = (!spec.collator.is_empty()).then(|| Arc::new(Collator::named(&spec.collator, &object_uri(&spec.name), &spec.app_metadata)));
        let layered = tree.is_some();
        let tree = tree.map(|t| t.ordered_by(collator.clone()));
        let mut index = Index::ordered_by(collator.clone(), layered);
        if let Some(split) = index_prefix(&spec, &key_format) {
            index = index.with_prefixes(split);
        }
        Ok(Table {
            uri: c(&format!("table:{}", spec.name))?,
            key_format_c: c(&spec.key_format)?,
            value_format_c: c(&spec.value_format)?,
            recno: spec.key_format.trim_start_matches('.') == "r",
            key_format,
            value_format,
            spec,
            index: Arc::new(index),
            collator,
            tree,
            dirty: CachePadded::new(AtomicI64::new(0)),
            timestamped: AtomicBool::new(false),
            merged_at: AtomicI64::new(0),
            measuring: Mutex::new(()),
            state: AtomicU8::new(0),
            users: Mutex::new(Vec::new()),
            retired: Mutex::new([0; DSRC_STATS]),
            baseline: Mutex::new([0; DSRC_STATS]),
        })
    }

    /// `table:NAME`, NUL-terminated for the cursor's public fields.
    pub fn uri(&self) -> &CString {
        &self.uri
    }

    /// The name after `table:`.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The collator ordering the keys, if the table was created with one.
    #[inline(always)]
    pub fn collator(&self) -> Option<&Arc<Collator>> {
        self.collator.as_ref()
    }

    /// How the table was created (formats, columns, metadata, durable id).
    pub fn spec(&self) -> &TableSpec {
        &self.spec
    }

    /// The durable id (0 in memory).
    #[inline]
    pub fn id(&self) -> u64 {
        self.spec.id
    }

    /// The key format, parsed.
    pub fn key_format(&self) -> &Format {
        &self.key_format
    }

    /// The value format, parsed.
    pub fn value_format(&self) -> &Format {
        &self.value_format
    }

    /// The key format as the application wrote it, NUL-terminated.
    pub fn key_format_c(&self) -> &CString {
        &self.key_format_c
    }

    /// The value format as the application wrote it, NUL-terminated.
    pub fn value_format_c(&self) -> &CString {
        &self.value_format_c
    }

    /// Whether keys are record numbers.
    pub fn is_recno(&self) -> bool {
        self.recno
    }

    /// The in-memory index: every change not yet merged into the tree.
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// [`index`](Self::index), shared (what an index's prefix map links its rows to).
    pub fn shared_index(&self) -> &Arc<Index> {
        &self.index
    }

    /// The tree on disk (`None` in memory).
    pub fn tree(&self) -> Option<&Tree> {
        self.tree.as_ref()
    }

    /// Adds `bytes` a session wrote to this table's index to the estimates; returns whether
    /// the writer should act now: the cache is past its dirty trigger (an on-disk table: merge
    /// it) or full (in memory: measure it, since removals and pruned history are not counted
    /// down as they happen), and this index has grown well past its last measure.
    pub fn publish_dirty(&self, bytes: i64, cache: &Cache) -> bool {
        let mine = self.dirty.fetch_add(bytes, Ordering::Relaxed) + bytes;
        let grown = mine - self.merged_at.load(Ordering::Relaxed);
        if self.tree.is_some() {
            cache.publish_dirty(bytes) && grown > (cache.thresholds().dirty_trigger / 8).max(MIN_GROWTH) as i64
        } else {
            cache.publish_dirty(bytes);
            cache.full() && grown > (cache.thresholds().size / 16) as i64
        }
    }

    /// Whether commits give this table's versions the application's timestamps.
    #[inline]
    pub fn uses_timestamps(&self) -> bool {
        self.timestamped.load(Ordering::Relaxed)
    }

    /// Sets whether commits give this table's versions the application's timestamps (once, as
    /// the table is created or opened).
    pub fn set_timestamped(&self, timestamped: bool) {
        self.timestamped.store(timestamped, Ordering::Relaxed);
    }

    /// Merges the index into the tree at `at`, as of application timestamp `bound` (see
    /// [`Layers::merge`]), then corrects the cache's estimate by what the index still holds:
    /// the merge's own count (in memory: a measure, the only thing done).
    pub fn merge(&self, at: u64, bound: u64, horizon: &dyn Fn() -> Horizon, cache: &Cache) -> Result<()> {
        let counted = self.layers().merge(at, bound, horizon)?;
        self.settle(counted, cache);
        Ok(())
    }

    /// A writer past the dirty trigger ([`publish_dirty`](Self::publish_dirty)): merges, unless
    /// another writer's merge is running and the table's dirty bytes are still below the
    /// trigger itself, in which case it goes on writing (the running merge carries most of
    /// it; waiting for it made writers take turns instead of writing side by side).
    pub fn merge_dirty(&self, at: u64, bound: u64, horizon: &dyn Fn() -> Horizon, cache: &Cache) -> Result<()> {
        let grown = self.dirty.load(Ordering::Relaxed) - self.merged_at.load(Ordering::Relaxed);
        if grown > cache.thresholds().dirty_trigger as i64 {
            return self.merge(at, bound, horizon, cache);
        }
        if let Some(counted) = self.layers().try_merge(at, bound, horizon)? {
            self.settle(Some(counted), cache);
        }
        Ok(())
    }

    /// After a merge: sets this table's estimate to `counted` (what the merge's walk found the
    /// index holding), or to a measure when there is none.
    fn settle(&self, counted: Option<usize>, cache: &Cache) {
        let measuring = self.measuring.lock();
        match counted {
            Some(now) => self.correct(&measuring, now as i64, cache),
            None => self.remeasure(&measuring, cache),
        }
    }

    /// The cache looks full: corrects this table's estimate by measuring its index (the
    /// estimate counts every write, not what overwrites, removals and pruned history gave
    /// back), unless nothing was written since the last measure. Returns whether the cache is
    /// still full.
    pub fn measure(&self, cache: &Cache) -> bool {
        // One measure at a time: a writer arriving while another measures waits for its
        // correction rather than reading the estimate before it.
        let measuring = self.measuring.lock();
        if self.dirty.load(Ordering::Relaxed) != self.merged_at.load(Ordering::Relaxed) {
            self.remeasure(&measuring, cache);
        }
        cache.full()
    }

    /// Sets this table's estimate to what its index holds now, correcting the cache's (under
    /// the measuring lock).
    fn remeasure(&self, measuring: &parking_lot::MutexGuard<'_, ()>, cache: &Cache) {
        self.correct(measuring, self.index.footprint() as i64, cache);
    }

    /// Sets this table's estimate to `now` bytes, correcting the cache's (under the measuring
    /// lock).
    fn correct(&self, _measuring: &parking_lot::MutexGuard<'_, ()>, now: i64, cache: &Cache) {
        let before = self.dirty.swap(now, Ordering::Relaxed);
        self.merged_at.store(now, Ordering::Relaxed);
        cache.merged(before - now);
    }

    /// The index and the tree, read together.
    #[inline]
    pub fn layers(&self) -> Layers<'_> {
        Layers { index: &self.index, tree: self.tree.as_ref() }
    }

    /// Whether the table has been dropped.
    pub fn is_dropped(&self) -> bool {
        self.state.load(Ordering::Acquire) & DROPPED != 0
    }

    /// Whether the table has column groups or indices: its cursors are schema cursors, which
    /// keep them in step (`session::schema_cursor`).
    pub fn is_managed(&self) -> bool {
        self.state.load(Ordering::Acquire) & MANAGED != 0
    }

    /// Marks the table managed (a column group or index was created on it), for good.
    pub fn set_managed(&self) {
        self.state.fetch_or(MANAGED, Ordering::SeqCst);
    }

    /// [`acquire`](Self::acquire) for a parked plain cursor taken back from a cache: also
    /// refused (`ENOENT`, and the cursor is freed as stale) once the table is managed.
    pub fn acquire_plain(&self, record: &TableUse) -> Result<()> {
        if self.is_managed() {
            return Err(Error::quiet(Kind::NoEntry));
        }
        self.acquire(record)
    }

    /// Registers a session's use record; called once per session and table, off the hot path.
    pub fn register_use(&self) -> Arc<TableUse> {
        let record = Arc::new(TableUse::default());
        self.users.lock().push(Arc::clone(&record));
        record
    }

    /// Forgets a session's use record when the session closes (its cursors are closed), so
    /// that session churn does not grow the list.
    pub fn unregister_use(&self, record: &Arc<TableUse>) {
        self.users.lock().retain(|u| !Arc::ptr_eq(u, record));
        record.stats.add_into(&mut self.retired.lock());
    }

    /// The table's data-source statistics (`statistics:table:NAME`), sorted by id: every
    /// session's use record summed, plus those of sessions that have closed. With `clear`, the
    /// clearable statistics then start again from zero. An on-disk table adds its file's and
    /// tree's figures (computed now, not cleared); with `walk` (`statistics=(all)` or
    /// `(tree_walk)`, as in the reference) also its page counts, from a walk of its internal
    /// pages.
    pub fn statistics_snapshot(&self, clear: bool, walk: bool) -> Snapshot {
        let mut totals = *self.retired.lock();
        for record in self.users.lock().iter() {
            record.stats.add_into(&mut totals);
        }
        let mut baseline = self.baseline.lock();
        let mut snapshot = dsrc_report(&totals, &baseline);
        if clear {
            *baseline = totals;
        }
        drop(baseline);
        if let Some(tree) = self.tree() {
            let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
            let (end, reusable) = tree.file().usage();
            let written = tree.file().stats().bytes_written.load(Ordering::Relaxed);
            snapshot.extend([
                (tree_stats::BLOCK_CHECKPOINT_SIZE, count(end.saturating_sub(reusable))),
                (tree_stats::BLOCK_REUSE_BYTES, count(reusable)),
                (tree_stats::BLOCK_SIZE, count(end)),
                (tree_stats::CACHE_BYTES_INUSE, count(tree.cached_bytes() as u64)),
                (tree_stats::CACHE_BYTES_WRITE, count(written)),
            ]);
            let codec = tree.file().codec();
            if !codec.name().is_empty() {
                let c = &codec.stats;
                snapshot.extend([
                    (tree_stats::COMPRESS_WRITE_FAIL, count(c.failed.load(Ordering::Relaxed))),
                    (tree_stats::COMPRESS_WRITE_TOO_SMALL, count(c.too_small.load(Ordering::Relaxed))),
                    (tree_stats::COMPRESS_READ, count(tree.file().stats().compressed_read())),
                    (tree_stats::COMPRESS_WRITE, count(c.written.load(Ordering::Relaxed))),
                ]);
            }
            // A page that cannot be read leaves the figures out (verify reports it).
            if let Ok(shape) = tree.shape(walk) {
                snapshot.push((tree_stats::BTREE_MAXIMUM_DEPTH, count(shape.depth)));
                if walk {
                    snapshot.push((tree_stats::BTREE_OVERFLOW, count(shape.overflow_items)));
                    snapshot.push((tree_stats::BTREE_ROW_INTERNAL, count(shape.internal_pages)));
                    snapshot.push((tree_stats::BTREE_ROW_LEAF, count(shape.leaf_pages)));
                }
            }
            snapshot.sort_unstable_by_key(|&(id, _)| id);
        }
        snapshot
    }

    /// Counts a cursor opened by the session owning `record`. Fails with `ENOENT` if the table
    /// was dropped: the fence pairs with the one in `begin_drop`, so either the drop sees this
    /// cursor or this open sees the drop.
    pub fn acquire(&self, record: &TableUse) -> Result<()> {
        record.add(1);
        fence(Ordering::SeqCst);
        if self.state.load(Ordering::Relaxed) & DROPPED != 0 {
            record.add(-1);
            return Err(Error::quiet(Kind::NoEntry));
        }
        Ok(())
    }

    /// [`acquire_plain`](Self::acquire_plain) as a yes/no, with nothing to drop: for paths
    /// that call nothing. False (nothing counted) once the table is dropped or managed.
    #[inline(always)]
    pub fn acquire_quick(&self, record: &TableUse) -> bool {
        record.add(1);
        fence(Ordering::SeqCst);
        if self.state.load(Ordering::Relaxed) != 0 {
            record.add(-1);
            return false;
        }
        true
    }

    /// Uncounts a cursor of the session owning `record`.
    pub fn release(&self, record: &TableUse) {
        record.add(-1);
    }

    /// Whether some session has a cursor open on the table (a moment's answer: for schema
    /// operations that refuse busy tables without changing anything).
    pub fn in_use(&self) -> bool {
        self.users.lock().iter().any(|u| u.open_cursors() != 0)
    }

    /// Marks the table dropped unless some session has a cursor open on it (`EBUSY`).
    pub fn begin_drop(&self) -> Result<()> {
        let users = self.users.lock();
        if self.state.fetch_or(DROPPED, Ordering::SeqCst) & DROPPED != 0 {
            return Err(Error::quiet(Kind::NoEntry));
        }
        fence(Ordering::SeqCst);
        if users.iter().any(|u| u.open_cursors() != 0) {
            self.state.fetch_and(!DROPPED, Ordering::SeqCst);
            return Err(Error::quiet(Kind::Busy));
        }
        Ok(())
    }
}

/// An in-memory table `t` of string keys and values (unit tests and loom models).
#[cfg(any(test, loom))]
pub(crate) fn test_table() -> Table {
    Table::new(TableSpec {
        id: 0,
        name: "t".into(),
        key_format: "S".into(),
        value_format: "S".into(),
        columns: Vec::new(),
        schema: String::new(),
        app_metadata: String::new(),
        logged: true,
        pages: Limits::default(),
        block_compressor: String::new(),
        collator: String::new(),
    })
    .expect("a valid table")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_is_busy_while_a_cursor_is_open_and_records_go_away() {
        let t = test_table();
        let a = t.register_use();
        let b = t.register_use();
        t.acquire(&a).unwrap();
        assert_eq!(t.begin_drop().unwrap_err().kind(), Kind::Busy);
        t.release(&a);
        t.unregister_use(&a);
        t.unregister_use(&b);
        assert!(t.users.lock().is_empty());
        t.begin_drop().unwrap();
        assert_eq!(t.acquire(&b).unwrap_err().kind(), Kind::NoEntry);
    }
}

/// Data-source figures of an on-disk table, computed when read (statistics:table:NAME).
pub(crate) mod tree_stats {
    /// "block-manager: checkpoint size": the file's bytes in use (its size less the reusable)
    pub const BLOCK_CHECKPOINT_SIZE: i32 = 2019;
    /// "block-manager: file bytes available for reuse"
    pub const BLOCK_REUSE_BYTES: i32 = 2021;
    /// "block-manager: file size in bytes"
    pub const BLOCK_SIZE: i32 = 2024;
    /// "btree: maximum tree depth"
    pub const BTREE_MAXIMUM_DEPTH: i32 = 2046;
    /// "btree: overflow pages": keys and values in overflow blocks (a tree walk counts them)
    pub const BTREE_OVERFLOW: i32 = 2048;
    /// "btree: row-store internal pages"
    pub const BTREE_ROW_INTERNAL: i32 = 2050;
    /// "btree: row-store leaf pages"
    pub const BTREE_ROW_LEAF: i32 = 2051;
    /// "cache: bytes currently in the cache"
    pub const CACHE_BYTES_INUSE: i32 = 2052;
    /// "cache: bytes written from cache": bytes the table's file was written
    pub const CACHE_BYTES_WRITE: i32 = 2055;
    /// "compression: page written to disk failed to compress" (blocks, overflow items too;
    /// tables with a compressor)
    pub const COMPRESS_WRITE_FAIL: i32 = 2155;
    /// "compression: page written to disk was too small to compress"
    pub const COMPRESS_WRITE_TOO_SMALL: i32 = 2156;
    /// "compression: pages read from disk"
    pub const COMPRESS_READ: i32 = 2157;
    /// "compression: pages written to disk"
    pub const COMPRESS_WRITE: i32 = 2165;

    #[cfg(test)]
    #[test]
    fn ids_are_the_references() {
        use crate::stats::Family;
        for (id, text) in [
            (BLOCK_CHECKPOINT_SIZE, "block-manager: checkpoint size"),
            (BLOCK_REUSE_BYTES, "block-manager: file bytes available for reuse"),
            (BLOCK_SIZE, "block-manager: file size in bytes"),
            (BTREE_MAXIMUM_DEPTH, "btree: maximum tree depth"),
            (BTREE_OVERFLOW, "btree: overflow pages"),
            (BTREE_ROW_INTERNAL, "btree: row-store internal pages"),
            (BTREE_ROW_LEAF, "btree: row-store leaf pages"),
            (CACHE_BYTES_INUSE, "cache: bytes currently in the cache"),
            (CACHE_BYTES_WRITE, "cache: bytes written from cache"),
            (COMPRESS_WRITE_FAIL, "compression: page written to disk failed to compress"),
            (COMPRESS_WRITE_TOO_SMALL, "compression: page written to disk was too small to compress"),
            (COMPRESS_READ, "compression: pages read from disk"),
            (COMPRESS_WRITE, "compression: pages written to disk"),
        ] {
            assert_eq!(Family::DataSource.description(id), Some(text));
        }
    }
}
