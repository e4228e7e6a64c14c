//! The database's directory: file names, whole-file replacement (write a temporary file, sync
//! it, rename it over the old one, sync the directory), the home lock, and the one place every
//! write, sync, rename and truncate of the engine's files goes through, so that tests can fail
//! them ([`Faults`]: a full disk, failed or short writes, failed syncs and renames), as do the
//! reads of recovery and open ([`Reading`]) and of pages ([`Disk::read_fault`]).

use std::cell::Cell;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Kind, Result};

use super::faults::{Call, Faults, Injected};

/// The lock file (the reference's name: programs and tools look for it).
pub const LOCK_FILE: &str = "WiredTiger.lock";
/// The table list; its presence is what makes a directory a database.
pub const META_FILE: &str = "unlatched.meta";
/// Prefix of checkpoint files (`unlatched.ckpt.N`).
pub const CKPT_PREFIX: &str = "unlatched.ckpt.";
/// Prefix of table files (`unlatched.table.ID`): each table's tree.
pub const TREE_PREFIX: &str = "unlatched.table.";
/// Prefix of journal files (`unlatched.log.N`).
pub const LOG_PREFIX: &str = "unlatched.log.";
/// Suffix of files being written (ignored and removed at open).
pub const TMP_SUFFIX: &str = ".tmp";

/// A directory of database files.
pub struct Disk {
    dir: PathBuf,
    /// Injected failures (tests; unarmed otherwise).
    faults: Arc<Faults>,
}

impl Disk {
    /// The files of `dir`.
    pub fn new(dir: PathBuf) -> Disk {
        Disk::with_faults(dir, Arc::default())
    }

    /// The files of `dir`, failing calls as `faults` says (shared with other directories).
    pub fn with_faults(dir: PathBuf, faults: Arc<Faults>) -> Disk {
        Disk { dir, faults }
    }

    /// The injected failures.
    pub fn faults(&self) -> &Arc<Faults> {
        &self.faults
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of `name` in the directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The path of `name` as error messages show it.
    pub fn show(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    /// Lets writes add only `bytes` more bytes; then they fail with `ENOSPC` (tests).
    pub fn limit_writes(&self, bytes: Option<u64>) {
        self.faults.limit_writes(bytes);
    }

    /// Whether a read of `len` bytes fails, and how (for readers that call `pread` themselves).
    #[inline]
    pub fn read_fault(&self, len: usize) -> Option<Injected> {
        self.faults.check(Call::Read, len)
    }

    /// `file` (one of the directory's) read through the fault plan.
    pub fn reading<'a>(&'a self, file: &'a File) -> Reading<'a> {
        Reading { file, faults: &self.faults, pos: 0, end: Cell::new(u64::MAX) }
    }

    /// The whole of `name` (a file no one writes meanwhile), read through the fault plan: a
    /// read that ends before the file's size is an error.
    pub fn read_all(&self, name: &str) -> io::Result<Vec<u8>> {
        let file = File::open(self.path(name))?;
        let len = usize::try_from(file.metadata()?.len()).map_err(|_| io::Error::from(io::ErrorKind::OutOfMemory))?;
        let mut out = vec![0u8; len];
        self.reading(&file).read_exact_at(&mut out, 0)?;
        Ok(out)
    }

    /// Writes `bytes` to `file` (named `name`) at its position.
    pub fn write_all(&self, file: &mut File, name: &str, bytes: &[u8]) -> Result<()> {
        let out = match self.faults.check(Call::Write, bytes.len()) {
            Some(f) => file.write_all(&bytes[..f.keep]).and(Err(std::io::Error::from_raw_os_error(f.errno))),
            None => file.write_all(bytes),
        };
        out.map_err(|e| Error::io(format!("{}: write", self.show(name)), &e))
    }

    /// Writes `bytes` at `offset` of `file`; a failure may leave a prefix of them written.
    pub fn write_at(&self, file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
        if let Some(f) = self.faults.check(Call::Write, bytes.len()) {
            file.write_all_at(&bytes[..f.keep], offset)?;
            return Err(std::io::Error::from_raw_os_error(f.errno));
        }
        file.write_all_at(bytes, offset)
    }

    /// Sets `file`'s length.
    pub fn set_len(&self, file: &File, len: u64) -> std::io::Result<()> {
        if let Some(f) = self.faults.check(Call::Truncate, 0) {
            return Err(std::io::Error::from_raw_os_error(f.errno));
        }
        file.set_len(len)
    }

    /// Extends `file` to `len` bytes, reading as zeros after its data (`ftruncate`: no
    /// space is taken until written, as for an append). Not failed by tests: a failed
    /// extension only leaves the file to be appended to.
    pub fn extend(&self, file: &File, len: u64) -> std::io::Result<()> {
        file.set_len(len)
    }

    /// Flushes `file`'s data to the device.
    pub fn sync(&self, file: &File, name: &str) -> Result<()> {
        let out = match self.faults.check(Call::Sync, 0) {
            Some(f) => Err(std::io::Error::from_raw_os_error(f.errno)),
            None => file.sync_data(),
        };
        out.map_err(|e| Error::io(format!("{}: fsync", self.show(name)), &e))
    }

    /// Makes renames and removals in the directory durable.
    pub fn sync_dir(&self) -> Result<()> {
        if let Some(f) = self.faults.check(Call::Sync, 0) {
            return Err(Error::io(format!("{}: fsync", self.dir.display()), &std::io::Error::from_raw_os_error(f.errno)));
        }
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Error::io(format!("{}: fsync", self.dir.display()), &e))
    }

    /// Replaces `name` with `bytes`, atomically: readers after a crash see the old file or the
    /// new one, whole.
    pub fn replace(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let tmp = format!("{name}{TMP_SUFFIX}");
        let out = (|| {
            let mut f = self.create(&tmp)?;
            self.write_all(&mut f, &tmp, bytes)?;
            self.sync(&f, &tmp)?;
            self.rename(&tmp, name)
        })();
        if out.is_err() {
            let _ = fs::remove_file(self.path(&tmp));
        }
        out
    }

    /// Creates (truncates) `name` for writing.
    pub fn create(&self, name: &str) -> Result<File> {
        File::create(self.path(name)).map_err(|e| Error::io(format!("{}: open", self.show(name)), &e))
    }

    /// Renames `from` to `to` and syncs the directory.
    pub fn rename(&self, from: &str, to: &str) -> Result<()> {
        self.rename_unsynced(from, to)?;
        self.sync_dir()
    }

    /// Renames `from` to `to` (durable once the directory is synced).
    pub fn rename_unsynced(&self, from: &str, to: &str) -> Result<()> {
        let out = match self.faults.check(Call::Rename, 0) {
            Some(f) => Err(std::io::Error::from_raw_os_error(f.errno)),
            None => fs::rename(self.path(from), self.path(to)),
        };
        out.map_err(|e| Error::io(format!("{}: rename", self.show(from)), &e))
    }

    /// Removes `name` (a file already gone is fine).
    pub fn remove(&self, name: &str) -> Result<()> {
        match fs::remove_file(self.path(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(Error::io(format!("{}: remove", self.show(name)), &e))
            }
            _ => Ok(()),
        }
    }

    /// Numbers `N` of the files named `prefix` + `N`, ascending.
    pub fn numbered(&self, prefix: &str) -> Result<Vec<u64>> {
        let entries = fs::read_dir(&self.dir).map_err(|e| Error::io(format!("{}: read_dir", self.dir.display()), &e))?;
        let mut out: Vec<u64> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_prefix(prefix)).and_then(|n| n.parse().ok()))
            .collect();
        out.sort_unstable();
        Ok(out)
    }

    /// Removes temporary files a crash left behind.
    pub fn remove_temporaries(&self) -> Result<()> {
        let entries = fs::read_dir(&self.dir).map_err(|e| Error::io(format!("{}: read_dir", self.dir.display()), &e))?;
        for name in entries.filter_map(|e| e.ok()).filter_map(|e| e.file_name().into_string().ok()) {
            if name.starts_with("unlatched.") && name.ends_with(TMP_SUFFIX) {
                self.remove(&name)?;
            }
        }
        Ok(())
    }
}

/// A file read through the connection's fault plan: positioned reads, and [`Read`] from its
/// start. Each call asks the plan first; after an injected short read the file reads as ending
/// where that read stopped (as a file cut short would), so callers that know how long the file
/// is must notice.
pub struct Reading<'a> {
    file: &'a File,
    faults: &'a Faults,
    /// Where [`Read::read`] reads next.
    pos: u64,
    /// Where the file ends for this reader after a short read (`u64::MAX`: its real end).
    end: Cell<u64>,
}

impl Reading<'_> {
    /// Reads up to `buf.len()` bytes at `at`; 0 at the end of the file.
    pub fn read_at(&self, buf: &mut [u8], at: u64) -> io::Result<usize> {
        let end = self.end.get();
        if at >= end {
            return Ok(0);
        }
        let buf = match usize::try_from(end - at) {
            Ok(left) if left < buf.len() => &mut buf[..left],
            _ => buf,
        };
        match self.faults.check(Call::Read, buf.len()) {
            None => self.file.read_at(buf, at),
            Some(f) if f.short_read => {
                let n = self.file.read_at(&mut buf[..f.keep], at)?;
                self.end.set(at + n as u64);
                Ok(n)
            }
            Some(f) => Err(io::Error::from_raw_os_error(f.errno)),
        }
    }

    /// Fills `buf` from `at`, or fails (`UnexpectedEof` when the file ends first).
    pub fn read_exact_at(&self, mut buf: &mut [u8], mut at: u64) -> io::Result<()> {
        while !buf.is_empty() {
            match self.read_at(buf, at) {
                Ok(0) => return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the file ends before the bytes read")),
                Ok(n) => {
                    buf = &mut buf[n..];
                    at += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl Read for Reading<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// An exclusive claim on a home across processes: an `flock` on its lock file, held while the
/// file stays open (the kernel releases it when the process dies, however it dies).
pub struct HomeLock {
    _file: File,
}

impl HomeLock {
    /// Opens (with `create`, creates) the lock file of `home` and locks it, or `EBUSY` when
    /// another process holds it; a missing lock file without `create` means the directory is
    /// no database (`WT_TRY_SALVAGE`, the reference's message).
    pub fn take(disk: &Disk, home: &str, create: bool) -> Result<HomeLock> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(create)
            .truncate(false)
            .open(disk.path(LOCK_FILE))
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    Error::new(Kind::TrySalvage, format!("{home}/{LOCK_FILE}: handle-open: open: No such file or directory"))
                } else {
                    Error::io(format!("{home}/{LOCK_FILE}: open"), &e)
                }
            })?;
        // SAFETY: `flock` on a descriptor `file` owns and keeps open for the call.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc != 0 {
            let e = std::io::Error::last_os_error();
            return Err(if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                Error::new(Kind::Busy, "WiredTiger database is already being managed by another process")
            } else {
                Error::io(format!("{home}/{LOCK_FILE}: flock"), &e)
            });
        }
        Ok(HomeLock { _file: file })
    }
}
