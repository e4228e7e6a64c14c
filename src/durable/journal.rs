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

use std::fs::{File, OpenOptions};
use std::io::BufReader;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex, MutexGuard};

use crate::error::{Error, Result};

use super::disk::{Disk, LOG_PREFIX};
use super::frame::{corrupt, write_frame, FrameReader, Next, Put, Take};
use super::meta::{check_header, VERSION};

/// First field of a journal file's header frame.
pub const LOG_MAGIC: u64 = u64::from_le_bytes(*b"ULlog\0\0\0");

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

/// The file being appended to (touched only by the flush leader).
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
    file: Mutex<LogFile>,
}

/// A commit's place in the journal: give it back with [`Journal::published`].
#[must_use]
pub struct Ticket(usize);

/// The name of journal file `no`.
fn name(no: u64) -> String {
    format!("{LOG_PREFIX}{no}")
}

impl Journal {
    /// Starts journal file `no` in `disk` (recovery replayed everything before it).
    pub fn start(disk: Arc<Disk>, config: JournalConfig, no: u64) -> Result<Journal> {
        let file = new_file(&disk, no)?;
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
        let mut f = self.file.lock();
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
            match new_file(&self.disk, f.no + 1) {
                Ok(file) => {
                    *f = file;
                    next = Some(Ok(f.no));
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
    p.u64(LOG_MAGIC).u32(VERSION).u64(no);
    write_frame(&mut header, &p.0);
    let mut file = disk.create(&fname)?;
    disk.write_all(&mut file, &fname, &header)?;
    disk.sync(&file, &fname)?;
    disk.sync_dir()?;
    Ok(LogFile { file, no, len: header.len() as u64 })
}

/// Replays the journal files from number `from` on, calling `apply` with each record in order;
/// returns the number the next file should take. A torn tail of the last file (a frame cut
/// short or failing its checksum, as a crash mid-write leaves it) ends the replay and is cut
/// off; the same damage in an earlier file, or a missing file, is corruption.
pub fn replay(disk: &Disk, from: u64, mut apply: impl FnMut(&[u8], &str) -> Result<()>) -> Result<u64> {
    let files: Vec<u64> = disk.numbered(LOG_PREFIX)?.into_iter().filter(|&n| n >= from).collect();
    if let Some(&first) = files.first() {
        if first != from {
            return Err(corrupt(&disk.show(&name(from)), "journal file missing"));
        }
    }
    for (i, &no) in files.iter().enumerate() {
        let fname = name(no);
        let shown = disk.show(&fname);
        if i > 0 && files[i - 1] + 1 != no {
            return Err(corrupt(&disk.show(&name(files[i - 1] + 1)), "journal file missing"));
        }
        let last = i + 1 == files.len();
        let file = OpenOptions::new().read(true).write(true).open(disk.path(&fname)).map_err(|e| Error::io(format!("{shown}: open"), &e))?;
        let mut r = FrameReader::new(BufReader::new(&file));
        let mut header = true;
        loop {
            let next = r.next_frame().map_err(|e| Error::io(format!("{shown}: read"), &e))?;
            match next {
                Next::Frame(payload) if header => {
                    let mut t = Take::new(&payload, &shown);
                    check_header(&mut t, &shown, super::journal::LOG_MAGIC)?;
                    if t.u64()? != no {
                        return Err(corrupt(&shown, "journal file number does not match its name"));
                    }
                    header = false;
                }
                Next::Frame(payload) => apply(&payload, &shown)?,
                Next::End => break,
                Next::Truncated { .. } | Next::Mismatch if last => {
                    // A torn tail: what follows the last whole frame never committed.
                    file.set_len(r.good).map_err(|e| Error::io(format!("{shown}: truncate"), &e))?;
                    file.sync_all().map_err(|e| Error::io(format!("{shown}: fsync"), &e))?;
                    break;
                }
                Next::Truncated { .. } => return Err(corrupt(&shown, "journal file truncated before a later one")),
                Next::Mismatch => return Err(corrupt(&shown, "checksum mismatch in a journal record")),
            }
        }
    }
    Ok(files.last().map_or(from, |&n| n + 1))
}
