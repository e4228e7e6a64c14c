//! The journal (write-ahead log): one frame per committed transaction, in files
//! `unlatched.log.N`, written in commit order.
//!
//! # The commit path
//! A committer joins the open slot of an in-memory ring ([`super::slots`]: one CAS), copies its
//! frame in and releases it (one atomic add); it takes no lock. With `sync=off` it returns
//! then: the record is in a buffer that is written in join order, by the writer thread (at most
//! [`WRITE_INTERVAL`] later) or by whoever writes before it. With `sync=on` it returns once a
//! sync covers its slot; if none has, it takes the writer role (the file mutex) when free,
//! closes its slot, writes every closed slot in order and syncs once. Committers that join
//! while another's write and sync run sleep until the role is let go (not queued on the
//! mutex) and are covered by the next sync together (group commit). A frame larger than
//! [`DIRECT_BYTES`] bypasses the ring: its committer takes
//! the role, closes the open slot, writes the closed ones, then its frame. Read-only
//! transactions never come here.
//!
//! Per key, join order is commit order: a committer publishes its versions only after it
//! joined, and the next writer of a key can commit only after that.
//!
//! # Failures
//! A failed write (a full disk) truncates the file back to its last whole frame. The frames of
//! `sync=on` commits in the slots not written are dropped (those commits fail with the error
//! and roll back); the other frames belong to `sync=off` commits, already acknowledged, and
//! stay buffered, in order. Until a write succeeds again every new commit fails with the error
//! (each first retries the buffered slots), so nothing committed after them can reach the file
//! before them. A failed sync or truncate leaves the file's state unknown: the journal refuses
//! every later commit with that error.
//!
//! # Checkpoints
//! [`Journal::rotate`] closes the open slot, writes and syncs every closed slot, starts a new
//! file and waits until every commit that joined a slot written to the old files has published
//! its versions: each session's committer announces the slot it joined in its own cache-padded
//! cell (set before it joins, cleared once it published), and the rotation waits for the cells
//! naming a slot up to the last one it wrote. A snapshot taken after that contains all of
//! them, so recovery from that checkpoint replays the new files only. Commits that land in the
//! new file may also be in the snapshot: replaying them again is harmless, because per key the
//! journal's order is the commit order, so the last record replayed for a key is its newest
//! committed value.
//!
//! # The successor file
//! The journal always holds one file ahead: besides the file it appends to, the next one
//! exists already (header written and synced, directory synced). Rotation switches to that
//! file and creates the one after it before any record goes to the new file. So a file that
//! holds records always has a successor on disk, and recovery can tell "the newest file was
//! deleted" (the last file holds records) from "nothing was written after it" (the last file
//! is a bare header). This costs no sync on the commit path: only rotations and the start
//! create files, as before.
//!
//! # Files extended ahead
//! With `log=(prealloc)` the file appended to is extended by [`EXTEND_BYTES`] of zeros
//! whenever a write would pass its end (never past `file_max`), so that a sync flushes the
//! data written and not also a new file size. Only that file may end with zeros: a rotation
//! cuts them (durably, before the next file gets records), and so does a closed journal.
//!
//! # Damage ([`replay`])
//! A kill during a write leaves a torn tail: the last record frame of the file being appended
//! to is incomplete or fails its checksum, and nothing follows it but zeros (a file extended
//! by a lost write) or nothing; no valid frame starts after it and no later file holds
//! records. That is cut silently, as are zeros alone after the last whole frame (a file
//! extended ahead). Anything else (a damaged header, a damaged record followed
//! by more data or by valid frames, a record that decodes wrongly, a missing file) is
//! corruption: `WT_TRY_SALVAGE` naming the file and offset, or with `salvage=true` the
//! journal is cut at the damage and what was dropped is reported.

use std::fs::{File, OpenOptions};
use std::io::BufReader;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::*};
use std::sync::{Arc, OnceLock};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

use crossbeam_utils::{Backoff, CachePadded};
use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::error::{Error, Kind, Result};

use super::disk::{Disk, Reading, LOG_PREFIX};
use super::frame::{checksum_matches, frame_header, write_frame, FrameReader, Next, Put, Take, HEADER_LEN};
use super::meta::check_header;
use super::slots::{Ring, SLOTS, SLOT_BYTES};

/// First field of a journal file's header frame.
pub const LOG_MAGIC: u64 = u64::from_le_bytes(*b"ULlog\0\0\0");
/// The layout version written. Version 2 promises the successor file (see the module
/// documentation); version 3 files may hold message records (`log_printf`). Versions 1 and 2
/// are read too.
pub const LOG_VERSION: u32 = 3;
/// Bytes of a journal file's header frame (frame header, magic, version, number).
const HEADER_FRAME_LEN: u64 = HEADER_LEN as u64 + 8 + 4 + 8;

/// How long the writer thread lets buffered records gather before it writes them.
pub const WRITE_INTERVAL: Duration = Duration::from_millis(1);
/// Frames larger than this bypass the ring (written by their committer).
pub const DIRECT_BYTES: usize = SLOT_BYTES / 4;
/// How far ahead of its writes a journal file is extended (with `log=(prealloc=true)`, the
/// default), up to `file_max`: a sync then flushes the data written, not also a new file size.
pub const EXTEND_BYTES: u64 = 1 << 20;
/// The longest a sync leader waits for another committer to join its slot.
const GATHER_MAX: Duration = Duration::from_micros(100);

/// Counters of the journal (read by statistics and benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JournalStats {
    /// Records put in the journal (transactions and messages).
    pub records: u64,
    /// Of those, the ones whose commit asked for a sync.
    pub sync_commits: u64,
    /// Payload bytes of those records (frame headers not counted).
    pub payload: u64,
    /// Records that joined a slot (the others were written directly: too large).
    pub joins: u64,
    /// Of those, the joins that waited for a slot switch.
    pub joins_waited: u64,
    /// Slots closed and written.
    pub slots: u64,
    /// Writes to journal files ("log: log write operations").
    pub writes: u64,
    /// Syncs of a journal file ("log: log sync operations").
    pub syncs: u64,
    /// Bytes written to journal files.
    pub bytes: u64,
    /// `log_flush` calls.
    pub flushes: u64,
    /// `log=(file_max)`.
    pub file_max: u64,
    /// Bytes of the slots.
    pub buffer: u64,
}

/// How a journal is configured.
#[derive(Clone, Copy, Debug)]
pub struct JournalConfig {
    /// A file is closed and a new one started once it reaches this size.
    pub file_max: u64,
    /// Whether files a checkpoint made unnecessary are removed.
    pub remove: bool,
    /// `log=(prealloc)`: files are extended with zeros ahead of their writes.
    pub prealloc: bool,
}

/// What the holder of the writer role owns.
struct Files {
    active: LogFile,
    /// File `active.no + 1`, created (header synced) before anything went to `active`.
    next: LogFile,
    /// Something was written to `active` since its last sync.
    unsynced: bool,
    /// Frames of sync commits a failed write dropped: slot, offset in it, and the error.
    failed: Vec<(u64, usize, Error)>,
    /// Why the journal is not healthy (see `Shared::health`).
    error: Option<Error>,
    /// `checkpoint=(log_size)`: called once `bytes` written reach `next`, which then moves on
    /// by `every`.
    trigger: Option<BytesTrigger>,
    /// The committer (its cell's address) that led the last sync, and how long that took.
    last_leader: usize,
    last_sync: Duration,
    /// Frames of `sync=on` commits written since the last sync, and covered by it.
    sync_frames: u32,
    last_covered: u32,
}

/// One journal file.
struct LogFile {
    file: File,
    no: u64,
    /// Bytes of whole frames in the file.
    len: u64,
    /// The file's size: `len`, or more once extended ahead (zeros after `len`).
    size: u64,
}

/// A wake-up of the background checkpointer after every so many bytes written.
struct BytesTrigger {
    every: u64,
    next: u64,
    wake: Wakeup,
}

/// What [`Journal::wake_every`] calls.
pub type Wakeup = Arc<dyn Fn() + Send + Sync>;

/// `Shared::health`: commits take the fast path.
const HEALTHY: u8 = 0;
/// A write failed: buffered slots wait to be written again; new commits first retry them.
const STALLED: u8 = 1;
/// A sync or truncate failed: every commit fails.
const BROKEN: u8 = 2;

/// `Cell::in_flight` of a committer that is joining (its slot not known yet).
const JOINING: u64 = 1;

/// One committer's (one session's) cell: written by its session only.
#[derive(Default)]
struct Cell {
    /// Claimed by a live committer (changed under `Shared::cells`).
    owned: AtomicBool,
    /// 0; [`JOINING`]; or 1 + the slot its record joined, until its commit is published.
    in_flight: AtomicU64,
    records: AtomicU64,
    sync_commits: AtomicU64,
    payload: AtomicU64,
    joins: AtomicU64,
    joins_waited: AtomicU64,
}

/// Adds `n` to a counter only its owner writes (a plain store: no locked instruction).
fn bump(counter: &AtomicU64, n: u64) {
    counter.store(counter.load(Relaxed) + n, Relaxed);
}

struct Shared {
    disk: Arc<Disk>,
    config: JournalConfig,
    ring: Ring,
    /// The writer role: whoever holds it writes slots, syncs and rotates files.
    files: Mutex<Files>,
    /// Every slot up to this number is on the device.
    synced: CachePadded<AtomicU64>,
    /// Writes that failed and dropped the frames of sync commits ([`Shared::fail_write`]).
    fails: AtomicU64,
    /// Bumped each time the writer role is let go; sync committers waiting for another's
    /// sync sleep on `role_wake` until it moves (see [`Shared::wait_role`]).
    role_epoch: CachePadded<AtomicU64>,
    role_waiters: AtomicU64,
    role_park: Mutex<()>,
    role_wake: Condvar,
    /// [`HEALTHY`], [`STALLED`] or [`BROKEN`] (its error in `Files::error`).
    health: AtomicU8,
    writes: AtomicU64,
    syncs: AtomicU64,
    bytes: AtomicU64,
    flushes: AtomicU64,
    slots: AtomicU64,
    cells: Mutex<Vec<Arc<CachePadded<Cell>>>>,
    /// The writer thread parks without a timeout (nothing buffered); a joiner of an empty
    /// slot wakes it.
    idle: AtomicBool,
    stop: AtomicBool,
    thread: OnceLock<Thread>,
    /// Tests: the process is as good as dead; only explicit writes (rotation, flushes, sync
    /// commits) reach the files, never the writer thread's (see [`Journal::freeze`]).
    #[cfg(test)]
    frozen: AtomicBool,
}

/// The connection's journal.
pub struct Journal {
    shared: Arc<Shared>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

/// A session's access to the journal: its cell of counters and in-flight state.
pub struct Committer {
    journal: Arc<Journal>,
    cell: Arc<CachePadded<Cell>>,
}

/// The name of journal file `no`.
fn name(no: u64) -> String {
    format!("{LOG_PREFIX}{no}")
}

/// Why a write failed.
enum Fail {
    /// Nothing of it is in the file.
    Write(Error),
    /// The file's state is unknown.
    Broken(Error),
}

impl Journal {
    /// Starts journal file `no` (and its successor) in `disk`, and the writer thread; recovery
    /// replayed everything before it.
    pub fn start(disk: Arc<Disk>, config: JournalConfig, no: u64) -> Result<Journal> {
        let files = Files {
            active: new_file(&disk, no)?,
            next: new_file(&disk, no + 1)?,
            unsynced: false,
            failed: Vec::new(),
            error: None,
            trigger: None,
            last_leader: 0,
            last_sync: Duration::ZERO,
            sync_frames: 0,
            last_covered: 0,
        };
        let shared = Arc::new(Shared {
            disk,
            config,
            ring: Ring::new(),
            files: Mutex::new(files),
            synced: CachePadded::new(AtomicU64::new(0)),
            fails: AtomicU64::new(0),
            role_epoch: CachePadded::new(AtomicU64::new(0)),
            role_waiters: AtomicU64::new(0),
            role_park: Mutex::new(()),
            role_wake: Condvar::new(),
            health: AtomicU8::new(HEALTHY),
            writes: AtomicU64::new(0),
            syncs: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            flushes: AtomicU64::new(0),
            slots: AtomicU64::new(0),
            cells: Mutex::new(Vec::new()),
            idle: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            thread: OnceLock::new(),
            #[cfg(test)]
            frozen: AtomicBool::new(false),
        });
        let writer = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("unlatched-journal".into())
            .spawn(move || writer.write_loop())
            .map_err(|e| Error::io("journal writer thread: spawn".to_string(), &e))?;
        let _ = shared.thread.set(handle.thread().clone());
        Ok(Journal { shared, writer: Mutex::new(Some(handle)) })
    }

    /// A committer for one session.
    pub fn committer(self: &Arc<Self>) -> Committer {
        let mut cells = self.shared.cells.lock();
        let cell = match cells.iter().find(|c| !c.owned.load(Relaxed)) {
            Some(c) => Arc::clone(c),
            None => {
                cells.push(Arc::default());
                Arc::clone(cells.last().expect("just pushed"))
            }
        };
        cell.owned.store(true, Relaxed);
        Committer { journal: Arc::clone(self), cell }
    }

    /// The counters.
    pub fn stats(&self) -> JournalStats {
        let sh = &self.shared;
        let mut stats = JournalStats {
            writes: sh.writes.load(Relaxed),
            syncs: sh.syncs.load(Relaxed),
            bytes: sh.bytes.load(Relaxed),
            flushes: sh.flushes.load(Relaxed),
            slots: sh.slots.load(Relaxed),
            file_max: sh.config.file_max,
            buffer: (SLOTS * SLOT_BYTES) as u64,
            ..JournalStats::default()
        };
        for c in sh.cells.lock().iter() {
            stats.records += c.records.load(Relaxed);
            stats.sync_commits += c.sync_commits.load(Relaxed);
            stats.payload += c.payload.load(Relaxed);
            stats.joins += c.joins.load(Relaxed);
            stats.joins_waited += c.joins_waited.load(Relaxed);
        }
        stats
    }

    /// `log=(file_max)`.
    pub fn file_max(&self) -> u64 {
        self.shared.config.file_max
    }

    /// Calls `wake` each time `bytes` more bytes have been written, from now on (`None`: stop).
    /// It runs with the writer role held, so it must only signal.
    pub fn wake_every(&self, bytes: u64, wake: Option<Wakeup>) {
        let sh = &self.shared;
        let mut files = sh.role();
        let next = sh.bytes.load(Relaxed) + bytes;
        files.trigger = wake.map(|wake| BytesTrigger { every: bytes.max(1), next, wake });
    }

    /// `WT_SESSION::log_flush`: writes every buffered record, and syncs with `sync`.
    pub fn flush(&self, sync: bool) -> Result<()> {
        let sh = &self.shared;
        let mut files = sh.role();
        sh.flushes.fetch_add(1, Relaxed);
        sh.write_buffered(&mut files)?;
        if sync {
            sh.sync(&mut files)?;
        }
        Ok(())
    }

    /// Writes and syncs every record buffered so far. A checkpoint calls it before writing its
    /// file: its snapshot may hold commits made after the rotation, whose records are in the
    /// journal it replays from; recovery replays that journal over the checkpoint, so a
    /// record lost with the process would let older records of the same keys replay over the
    /// newer state the checkpoint holds (half of a transaction).
    pub fn make_durable(&self) -> Result<()> {
        let sh = &self.shared;
        let mut files = sh.role();
        sh.write_buffered(&mut files)?;
        sh.sync(&mut files)
    }

    /// Tests: from now on the writer thread writes nothing, nor does a closing or abandoned
    /// journal, as if the process had died; rotations, flushes and sync commits still write.
    #[cfg(test)]
    pub fn freeze(&self) {
        self.shared.frozen.store(true, SeqCst);
    }

    /// Writes what is buffered (no sync), so that a reader of the files sees every record
    /// committed so far (`log:` cursors).
    pub fn write_buffered(&self) -> Result<()> {
        let sh = &self.shared;
        sh.write_buffered(&mut sh.role())
    }

    /// Writes what is buffered (no sync), as the writer thread would have before the process
    /// died; errors are dropped (tests of recovery that abandon a connection).
    pub fn write_out(&self) {
        if self.shared.frozen() {
            return;
        }
        let _ = self.shared.write_buffered(&mut self.shared.role());
    }

    /// Starts a new file for the records joined from now on and waits until every commit
    /// that joined before has published; returns the new file's number (recovery from a
    /// snapshot taken after this replays that file and later ones).
    pub fn rotate(&self) -> Result<u64> {
        let sh = &self.shared;
        let mut files = sh.role();
        sh.usable(&files)?;
        let last = sh.ring.close(None, 1, &mut || sh.room(&mut files));
        sh.write_closed(&mut files, last)?;
        // Only the file being appended to may end with zeros (recovery refuses a file with
        // a zero tail before a file with records): the cut is synced before the switch.
        sh.trim(&mut files)?;
        sh.sync(&mut files)?;
        // The successor of the new file exists before anything is written to it.
        let file = new_file(&sh.disk, files.next.no + 1)?;
        files.active = std::mem::replace(&mut files.next, file);
        let no = files.active.no;
        drop(files);
        sh.wait_published(last);
        Ok(no)
    }

    /// Removes the files before `no` (a checkpoint made them unnecessary), if configured.
    pub fn remove_before(&self, no: u64) -> Result<()> {
        if !self.shared.config.remove {
            return Ok(());
        }
        for old in self.shared.disk.numbered(LOG_PREFIX)?.into_iter().filter(|&n| n < no) {
            self.shared.disk.remove(&name(old))?;
        }
        Ok(())
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        // The writer thread writes what is buffered, then ends.
        self.shared.stop.store(true, SeqCst);
        if let Some(handle) = self.writer.lock().take() {
            handle.thread().unpark();
            let _ = handle.join();
        }
    }
}

impl Committer {
    /// Puts `record` (one transaction) in the journal: returns once it is buffered to be
    /// written in commit order, or with `sync` once it is synced. The caller publishes its
    /// commit, then calls [`Committer::published`]. On error the record is not in the journal.
    pub fn commit(&self, record: &[u8], sync: bool) -> Result<()> {
        let sh = &*self.journal.shared;
        if sh.health.load(Acquire) != HEALTHY {
            sh.recover()?;
        }
        let cell = &self.cell;
        // Announced before the join, so a rotation closing the slot sees it (see `rotate`).
        cell.in_flight.store(JOINING, SeqCst);
        let len = HEADER_LEN + record.len();
        let out = if len > DIRECT_BYTES { sh.direct(cell, record, sync) } else { sh.buffered(cell, record, sync) };
        if out.is_err() {
            cell.in_flight.store(0, Release);
        } else {
            bump(&cell.records, 1);
            bump(&cell.payload, record.len() as u64);
            bump(&cell.sync_commits, u64::from(sync));
        }
        out
    }

    /// The commit is published (or rolled back).
    pub fn published(&self) {
        self.cell.in_flight.store(0, Release);
    }
}

impl Drop for Committer {
    fn drop(&mut self) {
        self.published();
        let _cells = self.journal.shared.cells.lock();
        self.cell.owned.store(false, Relaxed);
    }
}

impl Shared {
    /// Joins the ring with `record`; waits for the sync with `sync`.
    fn buffered(&self, cell: &Cell, record: &[u8], sync: bool) -> Result<()> {
        // A write failing after this may drop the frame (see `wait_synced`).
        let fails = if sync { self.fails.load(Acquire) } else { 0 };
        let j = self.ring.join(HEADER_LEN + record.len(), &mut || self.wake_writer());
        cell.in_flight.store(j.seq + 1, Release);
        self.ring.fill(&j, frame_header(record), record, sync);
        let (seq, offset, closed_full) = (j.seq, j.offset, j.closed_full);
        bump(&cell.joins_waited, u64::from(j.waited));
        self.ring.release(j);
        bump(&cell.joins, 1);
        if sync {
            return self.wait_synced(cell, seq, offset, fails);
        }
        if closed_full {
            // Once per full slot: write it now if nobody holds the writer role, so a burst
            // reaches the file (and `file_max` rolls over) without waiting for the writer
            // thread's round.
            if let Some(mut files) = self.try_role().filter(|_| !self.frozen()) {
                let _ = self.write_closed(&mut files, seq - 1);
            }
        }
        // The first record of a slot wakes an idle writer thread (a sync commit writes its
        // slot itself).
        if offset == 0 && self.idle.load(SeqCst) {
            self.wake_writer();
        }
        Ok(())
    }

    /// Waits until slot `seq` is synced, leading the write and sync when the writer role is
    /// free and no sync covered it meanwhile; the frame at `offset` may have been dropped by a
    /// failed write (`fails`: the failed writes counted before it joined). A committer that
    /// finds the role taken (another's sync running) sleeps until it is let go, then is
    /// covered or leads the next sync, for every frame joined meanwhile.
    fn wait_synced(&self, cell: &Cell, seq: u64, offset: usize, fails: u64) -> Result<()> {
        loop {
            let epoch = self.role_epoch.load(SeqCst);
            // Synced, and no failure since the join (one would have dropped the frame or not).
            if self.synced.load(Acquire) >= seq && self.fails.load(Acquire) == fails {
                return Ok(());
            }
            let Some(mut files) = self.try_role() else {
                self.wait_role(epoch);
                continue;
            };
            if let Some(i) = files.failed.iter().position(|f| (f.0, f.1) == (seq, offset)) {
                return Err(files.failed.swap_remove(i).2);
            }
            if self.synced.load(Acquire) >= seq {
                return Ok(());
            }
            if self.health.load(Acquire) == BROKEN {
                return Err(broken_error(&files));
            }
            let me = cell as *const Cell as usize;
            let others = std::mem::replace(&mut files.last_leader, me) != me;
            // Committers beside this one: as many as the last sync covered, and one more than
            // this one when another led it.
            let expect = files.last_covered.max(1 + u32::from(others));
            if expect > 1 {
                self.gather(seq, expect, files.last_sync);
            }
            self.ring.close(Some(seq), 0, &mut || self.room(&mut files));
            // A failure dropped this frame or refuses writes: the next round says which.
            if self.write_closed(&mut files, u64::MAX).is_ok() {
                let start = Instant::now();
                self.sync(&mut files)?;
                files.last_sync = start.elapsed();
            }
        }
    }

    /// Others commit with sync beside this leader: they are probably about to join. Waits
    /// (at most a quarter of the last sync, at most [`GATHER_MAX`]) until slot `seq` holds
    /// `expect` frames awaiting a sync, so that one sync covers them all (with two threads,
    /// half a sync per commit instead of one).
    fn gather(&self, seq: u64, expect: u32, last_sync: Duration) {
        let deadline = Instant::now() + (last_sync / 4).min(GATHER_MAX);
        let backoff = Backoff::new();
        while self.ring.open_sync_frames(seq).is_some_and(|n| n < expect) && Instant::now() < deadline {
            backoff.snooze();
        }
    }

    /// Writes `record` directly (too large for a slot), after everything buffered.
    fn direct(&self, cell: &Cell, record: &[u8], sync: bool) -> Result<()> {
        let mut files = self.role();
        self.write_buffered(&mut files)?;
        // Placed after slot `written` and before the next one (a rotation holds the role).
        cell.in_flight.store(self.ring.written() + 1, Release);
        let mut frame = Vec::with_capacity(HEADER_LEN + record.len());
        write_frame(&mut frame, record);
        match self.write_bytes(&mut files, &frame) {
            Ok(()) => {}
            Err(Fail::Write(e)) => return Err(e),
            Err(Fail::Broken(e)) => return Err(self.broken(&mut files, e)),
        }
        self.roll_over(&mut files)?;
        if sync {
            self.sync(&mut files)?;
        }
        Ok(())
    }

    /// A commit found the journal unhealthy: retries the buffered slots, or fails.
    fn recover(&self) -> Result<()> {
        let mut files = self.role();
        self.usable(&files)?;
        let _ = self.write_closed(&mut files, u64::MAX);
        match self.health.load(Acquire) {
            HEALTHY => Ok(()),
            _ => Err(files.error.clone().unwrap_or_else(|| Error::invalid("journal write failed"))),
        }
    }

    /// Fails when the journal is broken.
    fn usable(&self, files: &Files) -> Result<()> {
        if self.health.load(Acquire) == BROKEN {
            return Err(broken_error(files));
        }
        Ok(())
    }

    /// Closes the open slot (if it holds anything) and writes every closed slot.
    fn write_buffered(&self, files: &mut Files) -> Result<()> {
        self.usable(files)?;
        self.ring.close(None, 1, &mut || self.room(files));
        self.write_closed(files, u64::MAX)
    }

    /// Writes the closed slots in order, up to slot `upto`.
    fn write_closed(&self, files: &mut Files, upto: u64) -> Result<()> {
        self.usable(files)?;
        let mut seq = self.ring.written() + 1;
        while seq <= upto && self.ring.ready(seq) {
            let (bytes, marked) = self.ring.take(seq);
            let sync_frames = marked.len() as u32;
            if !bytes.is_empty() {
                match self.write_bytes(files, bytes) {
                    Ok(()) => {}
                    Err(Fail::Write(e)) => {
                        self.fail_write(files, seq, marked, &e);
                        return Err(e);
                    }
                    Err(Fail::Broken(e)) => return Err(self.broken(files, e)),
                }
            }
            self.ring.free(seq);
            files.sync_frames += sync_frames;
            self.slots.fetch_add(1, Relaxed);
            if self.health.load(Relaxed) == STALLED {
                // The slots a failure kept are written: commits may go on.
                files.error = None;
                self.health.store(HEALTHY, Release);
            }
            self.roll_over(files)?;
            seq += 1;
        }
        Ok(())
    }

    /// Called while the ring has no free entry: writes the oldest closed slot (pausing when
    /// that fails: the disk is full).
    fn room(&self, files: &mut Files) {
        if self.write_closed(files, self.ring.written() + 1).is_err() {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// A write of slot `seq` failed: the sync commits of it and of every later closed slot
    /// fail (their frames are dropped); the other frames stay for the next write.
    fn fail_write(&self, files: &mut Files, seq: u64, marked: Vec<usize>, error: &Error) {
        let mut discard = |s: u64, marked: Vec<usize>| {
            for &offset in &marked {
                files.failed.push((s, offset, error.clone()));
            }
            self.ring.compact(s, &marked);
        };
        discard(seq, marked);
        let mut s = seq + 1;
        while self.ring.ready(s) {
            let marked = self.ring.take(s).1;
            discard(s, marked);
            s += 1;
        }
        files.error = Some(error.clone());
        self.fails.fetch_add(1, Release);
        self.health.store(STALLED, Release);
    }

    /// Appends `bytes` to the active file; a failure truncates it back to its whole frames.
    fn write_bytes(&self, files: &mut Files, bytes: &[u8]) -> std::result::Result<(), Fail> {
        let f = &mut files.active;
        let end = f.len + bytes.len() as u64;
        if end > f.size && end < self.config.file_max && self.config.prealloc {
            // Once per EXTEND_BYTES: the sync after this write also records the new size; the
            // next ones only flush data. If it fails, the write appends.
            let to = (end + EXTEND_BYTES).min(self.config.file_max);
            if self.disk.extend(&f.file, to).is_ok() {
                f.size = to;
            }
        }
        let fname = name(f.no);
        let out = self.disk.write_at(&f.file, bytes, f.len).map_err(|e| Error::io(format!("{}: write", self.disk.show(&fname)), &e));
        if let Err(error) = out {
            // Frames of failed commits must not stay behind the good ones (nor zeros, which
            // only the file being appended to may end with).
            return match self.disk.set_len(&f.file, f.len) {
                Ok(()) => {
                    f.size = f.len;
                    Err(Fail::Write(error))
                }
                Err(e) => Err(Fail::Broken(Error::io(format!("{}: truncate", self.disk.show(&fname)), &e))),
            };
        }
        f.len = end;
        f.size = f.size.max(end);
        files.unsynced = true;
        self.writes.fetch_add(1, Relaxed);
        let total = self.bytes.fetch_add(bytes.len() as u64, Relaxed) + bytes.len() as u64;
        if let Some(t) = files.trigger.as_mut().filter(|t| total >= t.next) {
            t.next = total + t.every;
            (t.wake)();
        }
        Ok(())
    }

    /// At `file_max`, syncs the active file and moves to its successor.
    fn roll_over(&self, files: &mut Files) -> Result<()> {
        if files.active.len < self.config.file_max {
            return Ok(());
        }
        self.sync(files)?;
        // The successor of the new file exists before anything is written to it; if it
        // cannot be created, appending to the old file goes on.
        if let Ok(file) = new_file(&self.disk, files.next.no + 1) {
            files.active = std::mem::replace(&mut files.next, file);
        }
        Ok(())
    }

    /// Syncs the active file if it was written to; every written slot is then synced.
    fn sync(&self, files: &mut Files) -> Result<()> {
        if files.unsynced {
            let f = &files.active;
            if let Err(e) = self.disk.sync(&f.file, &name(f.no)) {
                return Err(self.broken(files, e));
            }
            files.unsynced = false;
            self.syncs.fetch_add(1, Relaxed);
            files.last_covered = std::mem::take(&mut files.sync_frames);
        }
        self.synced.store(self.ring.written(), Release);
        Ok(())
    }

    /// Cuts the active file's zeros after its last frame (durable at the next sync).
    fn trim(&self, files: &mut Files) -> Result<()> {
        let f = &mut files.active;
        if f.size <= f.len {
            return Ok(());
        }
        let fname = name(f.no);
        self.disk.set_len(&f.file, f.len).map_err(|e| Error::io(format!("{}: truncate", self.disk.show(&fname)), &e))?;
        f.size = f.len;
        files.unsynced = true;
        Ok(())
    }

    /// The file's state is unknown: every later commit fails with `error`.
    fn broken(&self, files: &mut Files, error: Error) -> Error {
        files.error = Some(error.clone());
        self.health.store(BROKEN, Release);
        error
    }

    /// Whether [`Journal::freeze`] stopped the background writes (never outside tests).
    #[inline]
    fn frozen(&self) -> bool {
        #[cfg(test)]
        return self.frozen.load(SeqCst);
        #[cfg(not(test))]
        false
    }

    /// Waits until no committer is between joining a slot up to `last` and publishing.
    fn wait_published(&self, last: u64) {
        let cells: Vec<_> = self.cells.lock().iter().map(Arc::clone).collect();
        for cell in cells {
            let backoff = Backoff::new();
            loop {
                let at = cell.in_flight.load(SeqCst);
                if at == 0 || at > last + 1 {
                    break;
                }
                if backoff.is_completed() {
                    std::thread::sleep(Duration::from_micros(50));
                } else {
                    backoff.snooze();
                }
            }
        }
    }

    /// Takes the writer role, waiting for it.
    fn role(&self) -> Role<'_> {
        Role { sh: self, files: Some(self.files.lock()) }
    }

    /// Takes the writer role if it is free.
    fn try_role(&self) -> Option<Role<'_>> {
        self.files.try_lock().map(|g| Role { sh: self, files: Some(g) })
    }

    /// Sleeps until the writer role is let go after `role_epoch` was `epoch`.
    fn wait_role(&self, epoch: u64) {
        self.role_waiters.fetch_add(1, SeqCst);
        let mut parked = self.role_park.lock();
        while self.role_epoch.load(SeqCst) == epoch {
            self.role_wake.wait(&mut parked);
        }
        drop(parked);
        self.role_waiters.fetch_sub(1, SeqCst);
    }

    /// The writer role was let go: wakes the committers waiting for it.
    fn role_released(&self) {
        self.role_epoch.fetch_add(1, SeqCst);
        // SeqCst pairs with `wait_role`: either it sees the new epoch, or this sees it waits
        // (and takes `role_park` only once it sleeps).
        if self.role_waiters.load(SeqCst) > 0 {
            let _parked = self.role_park.lock();
            self.role_wake.notify_all();
        }
    }

    fn wake_writer(&self) {
        if let Some(t) = self.thread.get() {
            t.unpark();
        }
    }

    /// The writer thread: writes buffered records about every [`WRITE_INTERVAL`] while there
    /// are any, and what is left when the journal closes.
    fn write_loop(&self) {
        while !self.stop.load(SeqCst) {
            if !self.ring.pending() {
                self.idle.store(true, SeqCst);
                if !self.ring.pending() && !self.stop.load(SeqCst) {
                    std::thread::park();
                }
                self.idle.store(false, SeqCst);
                continue;
            }
            std::thread::park_timeout(WRITE_INTERVAL);
            if self.frozen() {
                continue;
            }
            // Failures reach the committers (health); the next round retries.
            let _ = self.write_buffered(&mut self.role());
        }
        let mut files = self.role();
        if !self.frozen() && self.write_buffered(&mut files).is_ok() {
            // A closed journal leaves its files without the zeros written ahead (a crash
            // before the cut is durable leaves them to recovery, which cuts them too).
            let _ = self.trim(&mut files);
        }
    }
}

/// The writer role held: the journal's files; letting it go wakes the sync committers that
/// wait for it.
struct Role<'a> {
    sh: &'a Shared,
    files: Option<MutexGuard<'a, Files>>,
}

impl std::ops::Deref for Role<'_> {
    type Target = Files;
    fn deref(&self) -> &Files {
        self.files.as_ref().expect("held until dropped")
    }
}

impl std::ops::DerefMut for Role<'_> {
    fn deref_mut(&mut self) -> &mut Files {
        self.files.as_mut().expect("held until dropped")
    }
}

impl Drop for Role<'_> {
    fn drop(&mut self) {
        drop(self.files.take());
        self.sh.role_released();
    }
}

/// The error of a broken journal.
fn broken_error(files: &Files) -> Error {
    files.error.clone().unwrap_or_else(|| Error::invalid("the journal is broken"))
}

/// Creates journal file `no` with its header, synced, and syncs the directory.
fn new_file(disk: &Disk, no: u64) -> Result<LogFile> {
    let fname = name(no);
    let mut header = Vec::new();
    let mut p = Put::default();
    p.u64(LOG_MAGIC).u32(LOG_VERSION).u64(no);
    write_frame(&mut header, &p.0);
    let mut file = disk.create(&fname)?;
    disk.write_all(&mut file, &fname, &header)?;
    disk.sync(&file, &fname)?;
    disk.sync_dir()?;
    let len = header.len() as u64;
    Ok(LogFile { file, no, len, size: len })
}

/// Reads every journal file in `disk`, oldest first, and calls `each` with the file's number,
/// the record's offset in it and the record (`log:` cursors). Read-only: a file's records end
/// at its first frame that does not read whole (a tail being written, or damage recovery
/// reported when the database opened); a file that vanished meanwhile (removed by a
/// checkpoint) is skipped.
pub fn scan(disk: &Disk, mut each: impl FnMut(u64, u64, &[u8])) -> Result<()> {
    for no in disk.numbered(LOG_PREFIX)? {
        let fname = name(no);
        let shown = disk.show(&fname);
        let file = match File::open(disk.path(&fname)) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(format!("{shown}: open"), &e)),
        };
        let size = file.metadata().map_err(|e| Error::io(format!("{shown}: stat"), &e))?.len();
        let mut r = FrameReader::new(BufReader::new(&file), size);
        // The header frame.
        if !matches!(r.next_frame(), Ok(Next::Frame(_))) {
            continue;
        }
        loop {
            let at = r.good;
            match r.next_frame() {
                Ok(Next::Frame(payload)) => each(no, at, &payload),
                _ => break,
            }
        }
    }
    Ok(())
}

/// What [`replay`] found.
#[derive(Debug, Default)]
pub struct Replayed {
    /// The number the journal continues with ([`Journal::start`]).
    pub next: u64,
    /// With salvage: one message per damage, saying what was dropped.
    pub salvaged: Vec<String>,
}

/// Damage that is not a torn tail.
enum Damage {
    /// File `no` does not exist, though `why` says it should.
    Missing { no: u64, why: &'static str },
    /// File `no` is damaged from offset `at` on.
    Corrupt { no: u64, at: u64, why: &'static str },
}

/// How one file's replay ended.
enum FileEnd {
    /// All its records replayed (a torn tail cut); whether its successor must exist.
    Done { promises_next: bool },
    /// The newest file never got its header (a crash while creating it): it holds nothing.
    Blank,
    Damaged(Damage),
}

/// Replays the journal files from number `from` on, calling `apply` with each record in order.
/// `from_exists`: the checkpoint says the journal created file `from`. A torn tail is cut
/// off silently; other damage is `WT_TRY_SALVAGE` naming the file and offset, unless
/// `salvage`: then the records before it are kept, the journal is cut there (later files are
/// removed) and a message says what was dropped.
pub fn replay(
    disk: &Disk,
    from: u64,
    from_exists: bool,
    salvage: bool,
    mut apply: impl FnMut(&[u8], &str) -> Result<()>,
) -> Result<Replayed> {
    let files: Vec<u64> = disk.numbered(LOG_PREFIX)?.into_iter().filter(|&n| n >= from).collect();
    let mut out = Replayed { next: from, salvaged: Vec::new() };
    // Whether the file before the current one holds records (so the current one must exist).
    let mut promised = from_exists;
    let mut expected = from;
    for (i, &no) in files.iter().enumerate() {
        if no != expected {
            let why = if i == 0 { "the checkpoint continues from it" } else { "the file before it holds records" };
            let damage = Damage::Missing { no: expected, why: if promised { why } else { "later journal files exist" } };
            return salvage_or_fail(disk, &files, damage, salvage, out);
        }
        let newest = i + 1 == files.len();
        match replay_file(disk, no, newest && !promised, &files[i + 1..], &mut apply)? {
            FileEnd::Done { promises_next } => promised = promises_next,
            FileEnd::Blank => {
                // Created again by `Journal::start`.
                out.next = no;
                return Ok(out);
            }
            FileEnd::Damaged(damage) => return salvage_or_fail(disk, &files, damage, salvage, out),
        }
        expected = no + 1;
    }
    if promised {
        let why = if files.is_empty() { "the checkpoint continues from it" } else { "the file before it holds records" };
        return salvage_or_fail(disk, &files, Damage::Missing { no: expected, why }, salvage, out);
    }
    out.next = expected;
    Ok(out)
}

/// Refuses to open for `damage`, or with `salvage` cuts the journal there: removes every
/// later file (newest first), then truncates the damaged file, and reports it.
fn salvage_or_fail(disk: &Disk, files: &[u64], damage: Damage, salvage: bool, mut out: Replayed) -> Result<Replayed> {
    let (no, at) = match damage {
        Damage::Missing { no, .. } => (no, None),
        Damage::Corrupt { no, at, .. } => (no, Some(at)),
    };
    let shown = disk.show(&name(no));
    let text = match damage {
        Damage::Missing { why, .. } => format!("{shown}: journal file missing ({why})"),
        Damage::Corrupt { at, why, .. } => format!("{shown}: journal corrupted at offset {at}: {why}"),
    };
    if !salvage {
        return Err(Error::new(Kind::TrySalvage, format!("{text}; open with salvage=true to keep the records before it")));
    }
    // Later files first: a crash part-way leaves damage a later open still sees.
    let later: Vec<u64> = files.iter().copied().filter(|&n| n > no).collect();
    for &n in later.iter().rev() {
        disk.remove(&name(n))?;
    }
    let mut report = match at {
        None => format!("{text}: salvage kept the records before it"),
        Some(at) => {
            let path = disk.path(&name(no));
            let file = OpenOptions::new().write(true).open(&path).map_err(|e| Error::io(format!("{shown}: open"), &e))?;
            let size = file.metadata().map_err(|e| Error::io(format!("{shown}: stat"), &e))?.len();
            disk.set_len(&file, at).map_err(|e| Error::io(format!("{shown}: truncate"), &e))?;
            disk.sync(&file, &name(no))?;
            format!("{text}: salvage truncated the file at offset {at}, dropping {} bytes", size.saturating_sub(at))
        }
    };
    if !later.is_empty() {
        let names: Vec<String> = later.iter().map(|&n| name(n)).collect();
        report.push_str(&format!(" and the later journal files {}", names.join(", ")));
    }
    disk.sync_dir()?;
    out.salvaged.push(report);
    // A file cut to nothing (its header was damaged) is created again; after a missing file,
    // the journal continues with that number.
    out.next = match at {
        Some(at) if at > 0 => no + 1,
        _ => no,
    };
    Ok(out)
}

/// Replays journal file `no`. `blank_ok`: it is the newest file and nothing requires it, so a
/// missing header means a crash while creating it. `later`: the numbers of the files after it.
fn replay_file(
    disk: &Disk,
    no: u64,
    blank_ok: bool,
    later: &[u64],
    apply: &mut impl FnMut(&[u8], &str) -> Result<()>,
) -> Result<FileEnd> {
    let fname = name(no);
    let shown = disk.show(&fname);
    let file = OpenOptions::new().read(true).write(true).open(disk.path(&fname)).map_err(|e| Error::io(format!("{shown}: open"), &e))?;
    let size = file.metadata().map_err(|e| Error::io(format!("{shown}: stat"), &e))?.len();
    let read_err = |e: std::io::Error| Error::io(format!("{shown}: read"), &e);
    if blank_ok && (size < HEADER_FRAME_LEN || zeros(&disk.reading(&file), 0, size).map_err(read_err)?) {
        return Ok(FileEnd::Blank);
    }
    let mut r = FrameReader::new(BufReader::new(disk.reading(&file)), size);
    let header_damaged = FileEnd::Damaged(Damage::Corrupt { no, at: 0, why: "the header frame is damaged" });
    let version = match r.next_frame().map_err(read_err)? {
        Next::Frame(payload) => {
            let mut t = Take::new(&payload, &shown);
            let version = match check_header(&mut t, &shown, LOG_MAGIC, 1..=LOG_VERSION) {
                Ok(v) => v,
                Err(e) if e.kind() == Kind::TrySalvage => return Ok(header_damaged),
                Err(e) => return Err(e),
            };
            if t.u64().ok() != Some(no) || !t.is_empty() {
                return Ok(header_damaged);
            }
            version
        }
        _ => return Ok(header_damaged),
    };
    let mut records = 0;
    loop {
        let at = r.good;
        match r.next_frame().map_err(read_err)? {
            Next::Frame(payload) => match apply(&payload, &shown) {
                Ok(()) => records += 1,
                Err(e) if e.kind() == Kind::TrySalvage => {
                    return Ok(FileEnd::Damaged(Damage::Corrupt { no, at, why: "a record does not decode" }))
                }
                Err(e) => return Err(e),
            },
            Next::End => break,
            Next::Truncated { .. } | Next::Mismatch => {
                let why = match after_damage(&disk.reading(&file), at, size).map_err(read_err)? {
                    Some(why) => why,
                    None if later_hold_records(disk, later)? => "a damaged record before records in later journal files",
                    None => {
                        // A torn tail: what follows the last whole frame never committed.
                        disk.set_len(&file, at).map_err(|e| Error::io(format!("{shown}: truncate"), &e))?;
                        disk.sync(&file, &fname)?;
                        break;
                    }
                };
                return Ok(FileEnd::Damaged(Damage::Corrupt { no, at, why }));
            }
        }
    }
    Ok(FileEnd::Done { promises_next: version >= 2 && records > 0 })
}

/// Whether any of the journal files `later` holds more than its header.
fn later_hold_records(disk: &Disk, later: &[u64]) -> Result<bool> {
    for &n in later {
        let shown = disk.show(&name(n));
        let file = File::open(disk.path(&name(n))).map_err(|e| Error::io(format!("{shown}: open"), &e))?;
        let size = file.metadata().map_err(|e| Error::io(format!("{shown}: stat"), &e))?.len();
        // Zeros after the header are a file extended ahead of records never written.
        if size > HEADER_FRAME_LEN && !zeros(&disk.reading(&file), HEADER_FRAME_LEN, size).map_err(|e| Error::io(format!("{shown}: read"), &e))? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Bytes read at a time while looking past a damaged frame.
const WINDOW: u64 = 1 << 20;
/// Payload bytes checksummed while looking for a valid frame after a damaged one; past this,
/// the damage is treated as corruption (salvage still recovers the same records).
const SCAN_BUDGET: u64 = 256 << 20;

/// What follows a damaged frame at `at` of a file of `size` bytes: `None` when it looks like a
/// torn write (nothing but zeros after the frame's extent, no valid frame starting inside
/// it) or when only zeros follow `at` (the end of a file extended ahead of its writes),
/// otherwise why it is corruption.
fn after_damage(file: &Reading<'_>, at: u64, size: u64) -> std::io::Result<Option<&'static str>> {
    // No frame starts in the zeros after `data_end` (a valid frame's header is never zero),
    // so the search for one below stops there, however far the file was extended.
    let data_end = data_end(file, at, size)?;
    if data_end == at {
        return Ok(None);
    }
    let mut header = [0u8; HEADER_LEN];
    let end = if size - at >= HEADER_LEN as u64 {
        file.read_exact_at(&mut header, at)?;
        let len = u64::from(u32::from_le_bytes([header[0], header[1], header[2], header[3]]));
        (at + HEADER_LEN as u64).saturating_add(len).min(size)
    } else {
        size
    };
    if data_end > end {
        return Ok(Some("a damaged record followed by more data"));
    }
    let mut budget = SCAN_BUDGET;
    let mut window: Vec<u8> = Vec::new();
    let mut window_at = at + 1;
    let mut o = at + 1;
    while o < data_end && o + HEADER_LEN as u64 <= size {
        if o + HEADER_LEN as u64 > window_at + window.len() as u64 {
            window_at = o;
            window = read_at(file, o, WINDOW.min(size - o))?;
        }
        let i = (o - window_at) as usize;
        let mut head = [0u8; HEADER_LEN];
        head.copy_from_slice(&window[i..i + HEADER_LEN]);
        let len = u64::from(u32::from_le_bytes([head[0], head[1], head[2], head[3]]));
        if len <= size - o - HEADER_LEN as u64 {
            let start = i + HEADER_LEN;
            let found = if start as u64 + len <= window.len() as u64 {
                checksum_matches(&head, &window[start..start + len as usize])
            } else {
                checksum_matches(&head, &read_at(file, o + HEADER_LEN as u64, len)?)
            };
            if found {
                return Ok(Some("a damaged record followed by valid ones"));
            }
            budget = budget.saturating_sub(len + HEADER_LEN as u64);
            if budget == 0 {
                return Ok(Some("a damaged record followed by more data than a torn write leaves"));
            }
        }
        o += 1;
    }
    Ok(None)
}

/// `len` bytes of `file` from `at` (the caller bounds `len` by the file's size).
fn read_at(file: &Reading<'_>, at: u64, len: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len as usize];
    file.read_exact_at(&mut buf, at)?;
    Ok(buf)
}

/// One past the last non-zero byte of `file` in `from..to` (`from` when there is none).
fn data_end(file: &Reading<'_>, from: u64, to: u64) -> std::io::Result<u64> {
    let mut buf = vec![0u8; WINDOW.min(to.saturating_sub(from)) as usize];
    let (mut at, mut end) = (from, from);
    while at < to {
        let n = (to - at).min(buf.len() as u64) as usize;
        file.read_exact_at(&mut buf[..n], at)?;
        if let Some(i) = buf[..n].iter().rposition(|&b| b != 0) {
            end = at + i as u64 + 1;
        }
        at += n as u64;
    }
    Ok(end)
}

/// Whether bytes `from..to` of `file` are all zero.
fn zeros(file: &Reading<'_>, from: u64, to: u64) -> std::io::Result<bool> {
    let mut buf = vec![0u8; WINDOW.min(to.saturating_sub(from)) as usize];
    let mut at = from;
    while at < to {
        let n = (to - at).min(buf.len() as u64) as usize;
        file.read_exact_at(&mut buf[..n], at)?;
        if buf[..n].iter().any(|&b| b != 0) {
            return Ok(false);
        }
        at += n as u64;
    }
    Ok(true)
}
