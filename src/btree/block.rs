//! A table's file as blocks: page images written to free space, each checksummed and found
//! again by its [`Addr`] (offset, size, checksum), plus the bookkeeping of free space across
//! checkpoints.
//!
//! # Layout
//! The file is a sequence of allocation units ([`UNIT`] bytes). The first unit is the file
//! header: [`MAGIC`], the layout version, the unit size (little-endian `u32`s), zero padded.
//! Every other block starts on a unit boundary:
//!
//! ```text
//! [len u32][crc32 u32][payload: len bytes][zeros up to the next unit boundary]
//! ```
//! The checksum covers `len` and the payload. A parent keeps the block's [`Addr`], whose
//! checksum must equal the block's own: a block that checks out but is not the one the parent
//! wrote (a lost or misdirected write) is caught too. With the top bit of `len` set the payload
//! is compressed (`compress.rs`): the checksum covers the stored, compressed bytes.
//!
//! # Free space across checkpoints (copy-on-write)
//! A checkpoint is a root address plus the free list at that moment. Blocks the last durable
//! checkpoint uses are never overwritten: when the tree stops using one, it goes to `pending`,
//! and becomes allocatable only once the next checkpoint (which no longer uses it) is durable.
//! A block written since the last checkpoint and dropped before the next one was never part of
//! a checkpoint, so it is free at once. A crash at any point therefore leaves the last durable
//! checkpoint's blocks as they were, and whatever was written after it lies in space that
//! checkpoint's free list calls free.
//!
//! Reads take no lock (`pread`); allocation and freeing take the file's space mutex, which only
//! page writers (reconciliation, checkpoints) use.

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use parking_lot::Mutex;

use super::compress::{Codec, Encoded, COMPRESSED};
use super::extents::{Extent, ExtentList};
use super::pool;
use super::striped::Striped;
use crate::durable::disk::Disk;
use crate::error::{Error, Kind, Result};

/// Allocation unit: every block starts on, and fills, whole units.
pub const UNIT: u64 = 4096;
/// First bytes of a block file.
pub const MAGIC: u32 = 0x4b42_4c55; // "ULBK"
/// Layout version of block files.
pub const VERSION: u32 = 1;
/// Bytes before a block's payload.
const BLOCK_HEADER: usize = 8;
/// Where the payload starts in what [`BlockFile::read_block`] returns.
pub const PAYLOAD_AT: usize = BLOCK_HEADER;
/// Largest payload a block may hold (a corrupt size must not allocate gigabytes).
pub const MAX_BLOCK: u64 = 1 << 31;

/// Where a block is: its offset and size on disk and its checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Addr {
    /// Offset of the block (a multiple of [`UNIT`]).
    pub offset: u64,
    /// Bytes the block occupies (a multiple of [`UNIT`]).
    pub size: u32,
    /// The block's checksum.
    pub checksum: u32,
}

impl Addr {
    /// Bytes an encoded address takes.
    pub const LEN: usize = 16;

    /// The extent the block occupies.
    pub fn extent(&self) -> Extent {
        Extent { offset: self.offset, len: u64::from(self.size) }
    }

    /// Appends the encoded address.
    pub fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.size.to_le_bytes());
        out.extend_from_slice(&self.checksum.to_le_bytes());
    }

    /// Decodes an address from the first [`Addr::LEN`] bytes of `b`.
    pub fn get(b: &[u8]) -> Option<Addr> {
        let b: &[u8; Addr::LEN] = b.get(..Addr::LEN)?.try_into().ok()?;
        let [o @ .., s0, s1, s2, s3, c0, c1, c2, c3] = *b;
        Some(Addr {
            offset: u64::from_le_bytes(o),
            size: u32::from_le_bytes([s0, s1, s2, s3]),
            checksum: u32::from_le_bytes([c0, c1, c2, c3]),
        })
    }
}

/// What a checkpoint records of a block file: with the tree's root, enough to open it again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpaceRecord {
    /// End of the space in use; anything after it was written after the checkpoint.
    pub end: u64,
    /// Free ranges below `end`.
    pub free: ExtentList,
}

impl SpaceRecord {
    /// Appends the encoded record.
    pub fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.end.to_le_bytes());
        out.extend_from_slice(&(self.free.len() as u64).to_le_bytes());
        for e in self.free.iter() {
            out.extend_from_slice(&e.offset.to_le_bytes());
            out.extend_from_slice(&e.len.to_le_bytes());
        }
    }

    /// Decodes a record; `None` if it is malformed (ranges out of order, overlapping, past the
    /// end, or the bytes run short).
    pub fn get(b: &[u8]) -> Option<(SpaceRecord, &[u8])> {
        let word = |b: &[u8], i: usize| -> Option<u64> { Some(u64::from_le_bytes(b.get(i * 8..i * 8 + 8)?.try_into().ok()?)) };
        let end = word(b, 0)?;
        let n = usize::try_from(word(b, 1)?).ok()?;
        let bytes = n.checked_mul(16)?.checked_add(16)?;
        if b.len() < bytes {
            return None;
        }
        let mut free = ExtentList::new();
        for i in 0..n {
            let ext = Extent { offset: word(b, 2 + 2 * i)?, len: word(b, 3 + 2 * i)? };
            if ext.len == 0 || ext.offset.checked_add(ext.len)? > end {
                return None;
            }
            free.insert(ext).ok()?;
        }
        Some((SpaceRecord { end, free }, &b[bytes..]))
    }
}

/// Free-space bookkeeping (see the module notes).
#[derive(Debug)]
struct Space {
    /// End of the space in use: new blocks that fit nowhere else go here.
    end: u64,
    /// Free now.
    avail: ExtentList,
    /// Dropped by the tree but still used by the last durable checkpoint.
    pending: ExtentList,
    /// Written since the last durable checkpoint.
    fresh: ExtentList,
    /// Out of use, but readers of an older tree may still read them.
    retiring: ExtentList,
}

impl Space {
    /// Makes an unused block allocatable: now if no durable checkpoint uses it (it was
    /// written since the last one), else after the next checkpoint.
    fn put_back(&mut self, ext: Extent) {
        let to = if self.fresh.remove(ext) { &mut self.avail } else { &mut self.pending };
        let inserted = to.insert(ext);
        debug_assert!(inserted.is_ok(), "block {ext:?} freed twice");
    }
}

/// A copy of a file's free-space lists ([`BlockFile::space_lists`]).
#[derive(Clone, Debug)]
pub struct SpaceLists {
    /// End of the space in use.
    pub end: u64,
    /// Free now.
    pub avail: ExtentList,
    /// Dropped by the tree, still used by the last durable checkpoint.
    pub pending: ExtentList,
    /// Out of use, waiting for older readers to finish.
    pub retiring: ExtentList,
}

/// I/O counters of one file (block-manager statistics). Reads count per thread (a page miss
/// writes no counter another thread writes), writes in one place (writers serialize anyway).
#[derive(Debug, Default)]
pub struct BlockStats {
    /// Blocks read, bytes read, compressed blocks read.
    read: Striped<3>,
    /// Blocks written.
    pub blocks_written: AtomicU64,
    /// Bytes written.
    pub bytes_written: AtomicU64,
}

impl BlockStats {
    /// Blocks read.
    pub fn blocks_read(&self) -> u64 {
        self.read.count(0)
    }

    /// Bytes read.
    pub fn bytes_read(&self) -> u64 {
        self.read.count(1)
    }

    /// Compressed blocks read.
    pub fn compressed_read(&self) -> u64 {
        self.read.count(2)
    }
}

/// One block file.
pub struct BlockFile {
    file: File,
    /// The file's name in the home.
    name: String,
    /// The path shown in messages.
    shown: String,
    disk: Arc<Disk>,
    space: Mutex<Space>,
    stats: BlockStats,
    /// The table's block compressor (none for most).
    codec: Codec,
}

impl BlockFile {
    /// Creates `name` in `disk` (replacing any file of that name) with only its header.
    pub fn create(disk: &Arc<Disk>, name: &str) -> Result<BlockFile> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(disk.path(name))
            .map_err(|e| Error::io(format!("{}: open", disk.show(name)), &e))?;
        let mut header = vec![0u8; UNIT as usize];
        for (i, v) in [MAGIC, VERSION, UNIT as u32].into_iter().enumerate() {
            header[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        let bf = BlockFile::with(disk, name, file, SpaceRecord { end: UNIT, free: ExtentList::new() });
        bf.pwrite(&header, 0)?;
        Ok(bf)
    }

    /// Opens `name` as a checkpoint left it: free space as `record` says, and anything past its
    /// end (written after that checkpoint) cut off.
    pub fn open(disk: &Arc<Disk>, name: &str, record: SpaceRecord) -> Result<BlockFile> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(disk.path(name))
            .map_err(|e| Error::io(format!("{}: open", disk.show(name)), &e))?;
        let bf = BlockFile::with(disk, name, file, record);
        let header = bf.pread_new(12, 0)?;
        if header.len() < 12 && bf.file_len()? >= 12 {
            return Err(bf.short_read(0, header.len(), 12));
        }
        let word = |i: usize| header.get(i..i + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        if header.len() < 12 || word(0) != MAGIC {
            return Err(bf.damaged(0, "not a block file (bad header)"));
        }
        if word(4) != VERSION {
            return Err(Error::unsupported(format!("{}: block file layout {} is not supported", bf.shown, word(4))));
        }
        if u64::from(word(8)) != UNIT {
            return Err(bf.damaged(0, "unexpected allocation unit"));
        }
        let len = bf.file.metadata().map_err(|e| bf.os("fstat", &e))?.len();
        let end = {
            let mut space = bf.space.lock();
            // A compaction gave free space at the end back after this checkpoint: the record's
            // end may lie past the file's, over space the record itself calls free.
            if len < space.end && len % UNIT == 0 && len >= UNIT {
                let tail = Extent { offset: len, len: space.end - len };
                if space.avail.remove(tail) {
                    space.end = len;
                }
            }
            space.end
        };
        if len < end {
            return Err(bf.damaged(len, &format!("file is {len} bytes, its checkpoint needs {end}")));
        }
        if len > end {
            bf.disk.set_len(&bf.file, end).map_err(|e| bf.os("ftruncate", &e))?;
        }
        Ok(bf)
    }

    fn with(disk: &Arc<Disk>, name: &str, file: File, record: SpaceRecord) -> BlockFile {
        BlockFile {
            file,
            name: name.to_string(),
            shown: disk.show(name),
            disk: Arc::clone(disk),
            space: Mutex::new(Space {
                end: record.end,
                avail: record.free,
                pending: ExtentList::new(),
                fresh: ExtentList::new(),
                retiring: ExtentList::new(),
            }),
            stats: BlockStats::default(),
            codec: Codec::none(),
        }
    }

    /// This file with its blocks compressed by `codec`.
    pub fn with_codec(mut self, codec: Codec) -> BlockFile {
        self.codec = codec;
        self
    }

    /// The file's compressor.
    pub fn codec(&self) -> &Codec {
        &self.codec
    }

    /// The file's name in the home.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The file's path as messages show it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The file's length on disk.
    pub fn file_len(&self) -> Result<u64> {
        Ok(self.file.metadata().map_err(|e| self.os("fstat", &e))?.len())
    }

    /// A copy of the free-space bookkeeping (verification; the lists are small).
    pub fn space_lists(&self) -> SpaceLists {
        let space = self.space.lock();
        SpaceLists {
            end: space.end,
            avail: space.avail.clone(),
            pending: space.pending.clone(),
            retiring: space.retiring.clone(),
        }
    }

    /// I/O counters.
    pub fn stats(&self) -> &BlockStats {
        &self.stats
    }

    /// Reads the block at `addr` and returns its payload, checking its size and checksum:
    /// damage is `WT_TRY_SALVAGE` naming the file and offset.
    pub fn read(&self, addr: Addr) -> Result<Vec<u8>> {
        let mut buf = self.read_block(addr)?;
        buf.drain(..BLOCK_HEADER);
        Ok(buf)
    }

    /// [`read`](Self::read) without moving the payload: the block as stored (its header, then
    /// the payload, which starts at [`PAYLOAD_AT`]).
    pub fn read_block(&self, addr: Addr) -> Result<Vec<u8>> {
        let size = u64::from(addr.size);
        if addr.offset % UNIT != 0 || addr.offset < UNIT || size < UNIT || size % UNIT != 0 || size > MAX_BLOCK {
            return Err(self.damaged(addr.offset, &format!("impossible block address (size {size})")));
        }
        let mut buf = self.pread_new(addr.size as usize, addr.offset)?;
        if buf.len() < addr.size as usize {
            if self.file_len().is_ok_and(|len| addr.offset + size <= len) {
                return Err(self.short_read(addr.offset, buf.len(), addr.size as usize));
            }
            return Err(self.damaged(addr.offset, &format!("block of {size} bytes runs past the end of the file")));
        }
        let word = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
        let len = (word & !COMPRESSED) as usize;
        let sum = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]);
        if BLOCK_HEADER + len > buf.len() || sum != checksum(&buf[..4], &buf[BLOCK_HEADER..BLOCK_HEADER + len]) {
            return Err(self.damaged(addr.offset, "block checksum mismatch"));
        }
        if sum != addr.checksum {
            return Err(self.damaged(addr.offset, "block is not the one its parent wrote (checksum differs)"));
        }
        let mine = self.stats.read.mine();
        mine[0].fetch_add(1, Relaxed);
        mine[1].fetch_add(size as i64, Relaxed);
        buf.truncate(BLOCK_HEADER + len);
        if word & COMPRESSED == 0 {
            return Ok(buf);
        }
        mine[2].fetch_add(1, Relaxed);
        let mut image = Vec::new();
        image.extend_from_slice(&buf[..BLOCK_HEADER]);
        let decoded = self.codec.decode(&buf[BLOCK_HEADER..], &mut image, BLOCK_HEADER, MAX_BLOCK, &self.shown, addr.offset);
        pool::give(buf);
        decoded.map(|()| image)
    }

    /// Reads up to `len` bytes at `offset` into a buffer from the [`pool`], not zeroed first (a
    /// page read is mostly a copy; zeroing 32 KB first cost as much again). Returns what was
    /// read. Tests may fail a read, or cut it short as if the file ended there
    /// (`Disk::read_fault`).
    fn pread_new(&self, len: usize, offset: u64) -> Result<Vec<u8>> {
        let mut buf = pool::take(len);
        let mut at = 0;
        while at < len {
            let off = libc::off_t::try_from(offset + at as u64).map_err(|_| self.damaged(offset, "offset out of range"))?;
            let (want, last) = match self.disk.read_fault(len - at) {
                None => (len - at, false),
                Some(f) if f.short_read => (f.keep, true),
                Some(f) => return Err(self.os("pread", &std::io::Error::from_raw_os_error(f.errno))),
            };
            // SAFETY: the pointer is `at` bytes into `buf`'s allocation of `len` bytes, and pread
            // writes at most `want <= len - at` bytes there; the bytes become part of the vector
            // (by `set_len` below) only once written.
            let n = unsafe { libc::pread(self.file.as_raw_fd(), buf.as_mut_ptr().add(at).cast(), want, off) };
            match n {
                0 => break,
                n if n > 0 && last => {
                    at += n as usize;
                    break;
                }
                n if n > 0 => at += n as usize,
                _ => {
                    let e = std::io::Error::last_os_error();
                    if e.kind() != std::io::ErrorKind::Interrupted {
                        return Err(self.os("pread", &e));
                    }
                }
            }
        }
        // SAFETY: the first `at` bytes were written by pread above.
        unsafe { buf.set_len(at) };
        Ok(buf)
    }

    /// Writes `payload` as a new block in free space (compressed when the file has a
    /// compressor and that saves space) and returns its address.
    pub fn write(&self, payload: &[u8]) -> Result<Addr> {
        u32::try_from(payload.len())
            .ok()
            .filter(|&l| u64::from(l) + BLOCK_HEADER as u64 <= MAX_BLOCK)
            .ok_or_else(|| Error::invalid(format!("{}: a block of {} bytes is too large", self.shown, payload.len())))?;
        let encoded = self.codec.encode(payload, BLOCK_HEADER, UNIT).map_err(|e| {
            let why = e.messages().next().map_or_else(|| crate::error::strerror(e.code()).into_owned(), str::to_string);
            Error::new(e.kind(), format!("{}: block compression failed: {why}", self.shown))
        })?;
        let (payload, flag) = match &encoded {
            Encoded::Plain => (payload, 0),
            Encoded::Compressed(stored) => (stored.as_slice(), COMPRESSED),
        };
        // Shorter than the original when compressed.
        let len = payload.len() as u32 | flag;
        let size = (payload.len() as u64 + BLOCK_HEADER as u64).div_ceil(UNIT) * UNIT;
        let mut buf = Vec::with_capacity(size as usize);
        buf.extend_from_slice(&len.to_le_bytes());
        let sum = checksum(&buf[..4], payload);
        buf.extend_from_slice(&sum.to_le_bytes());
        buf.extend_from_slice(payload);
        buf.resize(size as usize, 0);
        let offset = self.allocate(size);
        let addr = Addr { offset, size: size as u32, checksum: sum };
        let written = self.pwrite(&buf, offset);
        if let Err(e) = written {
            self.free_unpublished(addr);
            return Err(e);
        }
        self.stats.blocks_written.fetch_add(1, Relaxed);
        self.stats.bytes_written.fetch_add(size, Relaxed);
        Ok(addr)
    }

    fn allocate(&self, size: u64) -> u64 {
        let mut space = self.space.lock();
        let offset = space.avail.allocate(size).unwrap_or_else(|| {
            let at = space.end;
            space.end += size;
            at
        });
        // Disjoint by construction: the range was free or past the end.
        let _ = space.fresh.insert(Extent { offset, len: size });
        offset
    }

    /// The tree no longer uses the block at `addr`, but a reader of the tree before the change
    /// may still read it: out of use, not yet allocatable. [`release`](Self::release) it once
    /// no such reader is left.
    pub fn retire(&self, addr: Addr) {
        let inserted = self.space.lock().retiring.insert(addr.extent());
        // A double free is a bookkeeping bug: the block stays out rather than being handed out
        // twice.
        debug_assert!(inserted.is_ok(), "{}: block {addr:?} retired twice", self.shown);
    }

    /// A retired block no reader can reach any more: free at once if it was written since the
    /// last checkpoint, else once the next checkpoint is durable.
    pub fn release(&self, addr: Addr) {
        let ext = addr.extent();
        let mut space = self.space.lock();
        if space.retiring.remove(ext) {
            space.put_back(ext);
        }
    }

    /// Frees a block no tree ever referred to (a failed write batch).
    pub fn free_unpublished(&self, addr: Addr) {
        self.space.lock().put_back(addr.extent());
    }

    /// The record a checkpoint of the tree as it is now stores (the blocks pending now are
    /// free in it: it no longer uses them), and those pending blocks. Call
    /// [`sync`](Self::sync) before making the record durable, and
    /// [`checkpoint_durable`](Self::checkpoint_durable) with the pending blocks after.
    /// `unused` are blocks the checkpoint's tree does not use that are in none of the file's
    /// lists yet (kept for readers of older versions).
    pub fn checkpoint_record(&self, unused: impl Iterator<Item = Extent>) -> (SpaceRecord, ExtentList) {
        let space = self.space.lock();
        let mut free = space.avail.clone();
        for ext in space.pending.iter().chain(space.retiring.iter()).chain(unused) {
            // The lists are disjoint: a block is in one list at a time.
            let _ = free.insert(ext);
        }
        (SpaceRecord { end: space.end, free }, space.pending.clone())
    }

    /// The checkpoint whose record was taken is durable: the blocks that were pending then
    /// are free, and blocks written before it belong to it (freeing one now waits for the
    /// next checkpoint). Blocks freed after the record was taken stay pending.
    pub fn checkpoint_durable(&self, released: &ExtentList) {
        let mut space = self.space.lock();
        let space = &mut *space;
        for ext in released.iter() {
            // Pending only grows between a record and this call, so each range is still there.
            if space.pending.remove(ext) {
                let _ = space.avail.insert(ext);
            }
        }
        space.fresh = ExtentList::new();
    }

    /// Makes every block written so far durable.
    pub fn sync(&self) -> Result<()> {
        self.disk.sync(&self.file, &self.name)
    }

    /// Gives free space at the end of the file back to the file system; returns the bytes
    /// given back.
    pub fn trim_tail(&self) -> Result<u64> {
        let mut space = self.space.lock();
        let end = space.end;
        let Some(start) = space.avail.take_tail(end) else { return Ok(0) };
        self.disk.set_len(&self.file, start).map_err(|e| self.os("ftruncate", &e))?;
        space.end = start;
        Ok(end - start)
    }

    /// Bytes retired and not yet released.
    pub fn retiring(&self) -> u64 {
        self.space.lock().retiring.bytes()
    }

    /// The end of the space in use, and the bytes below it no tree uses (free, pending or
    /// retiring).
    pub fn usage(&self) -> (u64, u64) {
        let space = self.space.lock();
        (space.end, space.avail.bytes() + space.pending.bytes() + space.retiring.bytes())
    }

    fn pwrite(&self, buf: &[u8], offset: u64) -> Result<()> {
        self.disk.write_at(&self.file, buf, offset).map_err(|e| self.os("pwrite", &e))
    }

    fn os(&self, call: &str, e: &std::io::Error) -> Error {
        Error::io(format!("{}: {call}", self.shown), e)
    }

    /// A read of a file long enough for it that got only `got` of `want` bytes: the read
    /// failed (`EIO`), the file is not damaged.
    fn short_read(&self, offset: u64, got: usize, want: usize) -> Error {
        let what = format!("{}: offset {offset}: pread got {got} of {want} bytes", self.shown);
        Error::io(what, &std::io::Error::from_raw_os_error(libc::EIO))
    }

    fn damaged(&self, offset: u64, what: &str) -> Error {
        Error::new(Kind::TrySalvage, format!("{}: offset {offset}: {what}", self.shown))
    }
}

/// A block's checksum: its length bytes, then its payload.
fn checksum(len: &[u8], payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(len);
    h.update(payload);
    h.finalize()
}
