//! The journal (write-ahead log): one frame per committed transaction, appended before the
//! commit is published, in files `unlatched.log.N`.
//!
//! # Group commit
//! A committer appends its record to a shared buffer under the journal's mutex and then waits
//! until its record is written (and synced, if it asked). Whoever finds no flush running becomes
//! the leader: it takes the whole buffer (its own record and every record appended since the
//! last flush), writes it with one `pwrite` and, if any of those committers asked for it, syncs
//! once, then wakes everyone. Committers that arrive during a flush append and wait; the next
//! leader flushes them together, so N concurrent committers pay far fewer than N syncs (counted
//! in [`JournalStats`]). The mutex is held only to append and to hand over the buffer, never
//! during I/O. Read-only transactions never come here.
//!
//! # Failures
//! A failed write (a full disk) fails every commit of its batch with the error (they roll
//! back) and truncates the file back to its last good frame, so the journal stays a clean
//! sequence of committed transactions and later commits may succeed. A failed sync or truncate
//! leaves the file's state unknown: the journal refuses every later commit with that error.
//!
//! # Checkpoints
//! [`Journal::rotate`] starts a new file and waits until every commit that appended to the old
//! files has published its versions (an in-flight count per generation, flipped by the
//! rotation); a snapshot taken after that contains all of them, so recovery from that
//! checkpoint replays the new files only. Commits that land in the new file may also be in the
//! snapshot: replaying them again is harmless, because per key the journal's order is the
//! commit order (a writer never stacks on an uncommitted version), so the last record replayed
//! for a key is its newest committed value.
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
//! # Damage ([`replay`])
//! A kill during a write leaves a torn tail: the last record frame of the file being appended
//! to is incomplete or fails its checksum, and nothing follows it but zeros (a file extended
//! by a lost write) or nothing; no valid frame starts after it and no later file holds
//! records. That is cut silently. Anything else (a damaged header, a damaged record followed
//! by more data or by valid frames, a record that decodes wrongly, a missing file) is
//! corruption: `WT_TRY_SALVAGE` naming the file and offset, or with `salvage=true` the
//! journal is cut at the damage and what was dropped is reported.

use std::fs::{File, OpenOptions};
use std::io::BufReader;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::error::{Error, Kind, Result};

use super::disk::{Disk, LOG_PREFIX};
use super::frame::{checksum_matches, write_frame, FrameReader, Next, Put, Take, HEADER_LEN};
use super::meta::check_header;

/// First field of a journal file's header frame.
pub const LOG_MAGIC: u64 = u64::from_le_bytes(*b"ULlog\0\0\0");
/// The layout version written. Version 2 promises the successor file (see the module
/// documentation); version 1 files (read too) do not.
pub const LOG_VERSION: u32 = 2;
/// Bytes of a journal file's header frame (frame header, magic, version, number).
const HEADER_FRAME_LEN: u64 = HEADER_LEN as u64 + 8 + 4 + 8;

/// Counters of the journal (read by statistics and benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JournalStats {
    /// Transactions written to the journal.
    pub records: u64,
    /// Of those, the ones whose commit asked for a sync.
    pub sync_commits: u64,
    /// Writes of a batch of records.
    pub writes: u64,
    /// Syncs of a journal file ("log: log sync operations").
    pub syncs: u64,
    /// Bytes written.
    pub bytes: u64,
}

/// How a journal is configured.
#[derive(Clone, Copy, Debug)]
pub struct JournalConfig {
    /// A file is closed and a new one started once it reaches this size.
    pub file_max: u64,
    /// Whether files a checkpoint made unnecessary are removed.
    pub remove: bool,
}

/// The file being appended to and its successor (touched only by the flush leader).
struct Files {
    active: LogFile,
    /// File `active.no + 1`, created (header synced) before anything went to `active`.
    next: LogFile,
}

/// One journal file.
struct LogFile {
    file: File,
    no: u64,
    /// Bytes of whole frames in the file.
    len: u64,
}

/// Records lost to a failed write: commits `first..=last` fail with `error`.
struct Failed {
    first: u64,
    last: u64,
    /// Committers of the range that have not collected the error yet.
    waiting: u64,
    error: Error,
}

struct State {
    /// Frames appended and not yet handed to a leader.
    buf: Vec<u8>,
    /// Records are numbered from 1 in append order; the last one appended.
    appended: u64,
    /// Every record up to this one has been written (or failed).
    written: u64,
    /// Every record up to this one is on the device.
    synced: u64,
    /// A record in `buf` asked for a sync.
    want_sync: bool,
    /// A leader is writing.
    flushing: bool,
    failed: Vec<Failed>,
    /// Set by a failed sync or truncate: the file's contents are unknown.
    broken: Option<Error>,
    /// Commits between their append and the publication of their versions, per generation.
    gen: usize,
    in_flight: [u64; 2],
    stats: JournalStats,
    /// `checkpoint=(log_size)`: called once `stats.bytes` reaches `next`, which then moves on
    /// by `every`.
    trigger: Option<BytesTrigger>,
}

/// A wake-up of the background checkpointer after every so many bytes written.
struct BytesTrigger {
    every: u64,
    next: u64,
    wake: Wakeup,
}

/// What [`Journal::wake_every`] calls.
pub type Wakeup = Arc<dyn Fn() + Send + Sync>;

/// The connection's journal.
pub struct Journal {
    disk: Arc<Disk>,
    config: JournalConfig,
    state: Mutex<State>,
    /// Signalled when a flush ends.
    flushed: Condvar,
    /// Signalled when a generation's in-flight count reaches 0.
    drained: Condvar,
    /// Held by the flush leader only (so never contended).
    file: Mutex<Files>,
}

/// A commit's place in the journal: give it back with [`Journal::published`].
#[must_use]
pub struct Ticket(usize);

/// The name of journal file `no`.
fn name(no: u64) -> String {
    format!("{LOG_PREFIX}{no}")
}

impl Journal {
    /// Starts journal file `no` (and its successor) in `disk`; recovery replayed everything
    /// before it.
    pub fn start(disk: Arc<Disk>, config: JournalConfig, no: u64) -> Result<Journal> {
        let file = Files { active: new_file(&disk, no)?, next: new_file(&disk, no + 1)? };
        Ok(Journal {
            disk,
            config,
            state: Mutex::new(State {
                buf: Vec::new(),
                appended: 0,
                written: 0,
                synced: 0,
                want_sync: false,
                flushing: false,
                failed: Vec::new(),
                broken: None,
                gen: 0,
                in_flight: [0; 2],
                stats: JournalStats::default(),
                trigger: None,
            }),
            flushed: Condvar::new(),
            drained: Condvar::new(),
            file: Mutex::new(file),
        })
    }

    /// The counters.
    pub fn stats(&self) -> JournalStats {
        self.state.lock().stats
    }

    /// `log=(file_max)`.
    pub fn file_max(&self) -> u64 {
        self.config.file_max
    }

    /// Calls `wake` each time `bytes` more bytes have been written, from now on (`None`: stop).
    /// It runs on a flush leader with the journal's mutex held, so it must only signal.
    pub fn wake_every(&self, bytes: u64, wake: Option<Wakeup>) {
        let mut st = self.state.lock();
        let next = st.stats.bytes + bytes;
        st.trigger = wake.map(|wake| BytesTrigger { every: bytes.max(1), next, wake });
    }

    /// Writes `record` (one transaction) and returns once it is written, and synced if `sync`.
    /// The caller publishes its commit, then returns the ticket with [`Journal::published`].
    pub fn commit(&self, record: &[u8], sync: bool) -> Result<Ticket> {
        let mut st = self.state.lock();
        if let Some(e) = &st.broken {
            return Err(e.clone());
        }
        st.appended += 1;
        let seq = st.appended;
        write_frame(&mut st.buf, record);
        st.want_sync |= sync;
        let gen = st.gen;
        st.in_flight[gen] += 1;
        st.stats.records += 1;
        st.stats.sync_commits += u64::from(sync);
        match self.wait_for(&mut st, seq, sync) {
            Ok(()) => Ok(Ticket(gen)),
            Err(e) => {
                self.finish(&mut st, gen);
                Err(e)
            }
        }
    }

    /// The commit of `ticket` is published (or rolled back).
    pub fn published(&self, ticket: Ticket) {
        self.finish(&mut self.state.lock(), ticket.0);
    }

    fn finish(&self, st: &mut State, gen: usize) {
        st.in_flight[gen] -= 1;
        if st.in_flight[gen] == 0 {
            self.drained.notify_all();
        }
    }

    /// Waits until record `seq` is written (and synced if `sync`), leading flushes as needed.
    fn wait_for(&self, st: &mut MutexGuard<'_, State>, seq: u64, sync: bool) -> Result<()> {
        loop {
            if let Some(i) = st.failed.iter().position(|f| (f.first..=f.last).contains(&seq)) {
                let f = &mut st.failed[i];
                let error = f.error.clone();
                f.waiting -= 1;
                if f.waiting == 0 {
                    st.failed.swap_remove(i);
                }
                return Err(error);
            }
            if st.synced >= seq || (!sync && st.written >= seq) {
                return Ok(());
            }
            if let Some(e) = &st.broken {
                return Err(e.clone());
            }
            if st.flushing {
                self.flushed.wait(st);
                continue;
            }
            if sync {
                // Written by a leader that did not sync: the next flush must.
                st.want_sync = true;
            }
            self.lead(st, false);
        }
    }

    /// Writes everything appended (and syncs if asked), with the mutex released during I/O;
    /// with `rotate`, also syncs and starts the next file (returned). Called with no flush
    /// running.
    fn lead(&self, st: &mut MutexGuard<'_, State>, rotate: bool) -> Option<Result<u64>> {
        st.flushing = true;
        let batch = std::mem::take(&mut st.buf);
        let (first, last) = (st.written + 1, st.appended);
        let sync = std::mem::take(&mut st.want_sync) || rotate;
        let outcome = MutexGuard::unlocked(st, || self.flush(&batch, sync, rotate));
        st.flushing = false;
        st.stats.writes += u64::from(!batch.is_empty());
        st.stats.bytes += batch.len() as u64;
        let bytes = st.stats.bytes;
        if let Some(t) = st.trigger.as_mut().filter(|t| bytes >= t.next) {
            t.next = bytes + t.every;
            (t.wake)();
        }
        let mut rotated = None;
        match outcome {
            Flush::Done { synced, next } => {
                st.written = last;
                if synced {
                    st.synced = last;
                    st.stats.syncs += 1;
                }
                rotated = next;
            }
            Flush::WriteFailed(error) => {
                if first <= last {
                    st.failed.push(Failed { first, last, waiting: last - first + 1, error: error.clone() });
                }
                st.written = last;
                if rotate {
                    rotated = Some(Err(error));
                }
            }
            Flush::Broken(error) => {
                st.broken = Some(error.clone());
                if rotate {
                    rotated = Some(Err(error));
                }
            }
        }
        self.flushed.notify_all();
        rotated
    }

    /// The leader's I/O.
    fn flush(&self, batch: &[u8], sync: bool, rotate: bool) -> Flush {
        let mut files = self.file.lock();
        let f = &mut files.active;
        let fname = name(f.no);
        if !batch.is_empty() {
            let out = self
                .disk
                .charge(&fname, batch.len())
                .and_then(|()| f.file.write_all_at(batch, f.len).map_err(|e| Error::io(format!("{}: write", self.disk.show(&fname)), &e)));
            if let Err(error) = out {
                // Frames of failed commits must not stay behind the good ones.
                return match f.file.set_len(f.len) {
                    Ok(()) => Flush::WriteFailed(error),
                    Err(e) => Flush::Broken(Error::io(format!("{}: truncate", self.disk.show(&fname)), &e)),
                };
            }
            f.len += batch.len() as u64;
        }
        if sync {
            if let Err(e) = self.disk.sync(&f.file, &fname) {
                return Flush::Broken(e);
            }
        }
        let mut next = None;
        if rotate || f.len >= self.config.file_max {
            if !sync {
                if let Err(e) = self.disk.sync(&f.file, &fname) {
                    return Flush::Broken(e);
                }
            }
            // The successor of the new file exists before anything is written to it.
            match new_file(&self.disk, files.next.no + 1) {
                Ok(file) => {
                    files.active = std::mem::replace(&mut files.next, file);
                    next = Some(Ok(files.active.no));
                }
                // Appending to the old file goes on; a checkpoint that wanted the new one fails.
                Err(e) => next = rotate.then_some(Err(e)),
            }
        }
        Flush::Done { synced: sync, next }
    }

    /// Starts a new file for the records appended from now on and waits until every commit
    /// that appended before has published; returns the new file's number (recovery from a
    /// snapshot taken after this replays that file and later ones).
    pub fn rotate(&self) -> Result<u64> {
        let mut st = self.state.lock();
        while st.flushing {
            self.flushed.wait(&mut st);
        }
        if let Some(e) = &st.broken {
            return Err(e.clone());
        }
        let old = st.gen;
        st.gen ^= 1;
        let out = self.lead(&mut st, true).unwrap_or_else(|| Err(Error::invalid("journal rotation did not run")));
        while st.in_flight[old] != 0 {
            self.drained.wait(&mut st);
        }
        out
    }

    /// Removes the files before `no` (a checkpoint made them unnecessary), if configured.
    pub fn remove_before(&self, no: u64) -> Result<()> {
        if !self.config.remove {
            return Ok(());
        }
        for old in self.disk.numbered(LOG_PREFIX)?.into_iter().filter(|&n| n < no) {
            self.disk.remove(&name(old))?;
        }
        Ok(())
    }
}

/// What the leader's I/O did.
enum Flush {
    /// Written (and synced if `synced`); `next` is the new file after a rotation.
    Done { synced: bool, next: Option<Result<u64>> },
    /// Nothing of the batch is in the file.
    WriteFailed(Error),
    /// The file's state is unknown.
    Broken(Error),
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
    Ok(LogFile { file, no, len: header.len() as u64 })
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
            file.set_len(at).map_err(|e| Error::io(format!("{shown}: truncate"), &e))?;
            file.sync_all().map_err(|e| Error::io(format!("{shown}: fsync"), &e))?;
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
    if blank_ok && (size < HEADER_FRAME_LEN || zeros(&file, 0, size).map_err(read_err)?) {
        return Ok(FileEnd::Blank);
    }
    let mut r = FrameReader::new(BufReader::new(&file), size);
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
                let why = match after_damage(&file, at, size).map_err(read_err)? {
                    Some(why) => why,
                    None if later_hold_records(disk, later)? => "a damaged record before records in later journal files",
                    None => {
                        // A torn tail: what follows the last whole frame never committed.
                        file.set_len(at).map_err(|e| Error::io(format!("{shown}: truncate"), &e))?;
                        file.sync_all().map_err(|e| Error::io(format!("{shown}: fsync"), &e))?;
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
        let size = std::fs::metadata(disk.path(&name(n))).map_err(|e| Error::io(format!("{shown}: stat"), &e))?.len();
        if size > HEADER_FRAME_LEN {
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
/// it), otherwise why it is corruption.
fn after_damage(file: &File, at: u64, size: u64) -> std::io::Result<Option<&'static str>> {
    let mut header = [0u8; HEADER_LEN];
    let end = if size - at >= HEADER_LEN as u64 {
        file.read_exact_at(&mut header, at)?;
        let len = u64::from(u32::from_le_bytes([header[0], header[1], header[2], header[3]]));
        (at + HEADER_LEN as u64).saturating_add(len).min(size)
    } else {
        size
    };
    if !zeros(file, end, size)? {
        return Ok(Some("a damaged record followed by more data"));
    }
    let mut budget = SCAN_BUDGET;
    let mut window: Vec<u8> = Vec::new();
    let mut window_at = at + 1;
    let mut o = at + 1;
    while o + HEADER_LEN as u64 <= size {
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
fn read_at(file: &File, at: u64, len: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0u8; len as usize];
    file.read_exact_at(&mut buf, at)?;
    Ok(buf)
}

/// Whether bytes `from..to` of `file` are all zero.
fn zeros(file: &File, from: u64, to: u64) -> std::io::Result<bool> {
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
