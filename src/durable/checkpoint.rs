//! Checkpoint files `unlatched.ckpt.N`: every table's rows as one snapshot sees them.
//!
//! Layout, all frames: a header (`magic`, `version`, `N`, the journal file recovery replays
//! from, the snapshot's timestamp, and from version 2 a flag: the journal created that file
//! before the checkpoint was written, so recovery requires it), then per table a `TABLE id` frame followed by `ROWS` frames
//! (`count`, then `key`, `value` pairs in key order), and an `END` frame with the numbers of
//! tables and rows. A file is written under a temporary name, synced, and renamed into place,
//! so a checkpoint file that exists is complete; a missing `END`, a short file or a failed
//! checksum is corruption, reported naming the file.

use std::io::BufReader;

use scc::Guard;

use crate::error::{Error, Result};
use crate::store::{Index, ReadView, Seek};

use super::disk::{Disk, CKPT_PREFIX, TMP_SUFFIX};
use super::frame::{corrupt, write_frame, FrameReader, Next, Put, Take};
use super::meta::check_header;

/// First field of a checkpoint file's header frame.
pub const CKPT_MAGIC: u64 = u64::from_le_bytes(*b"ULckpt\0\0");
/// The layout version written. Version 1 (read too) has no `journal_exists` flag.
pub const CKPT_VERSION: u32 = 2;
const TABLE: u8 = 1;
const ROWS: u8 = 2;
const END: u8 = 3;
/// Rows read under one epoch guard (a long scan must not hold back reclamation for long).
const ROWS_PER_GUARD: usize = 1024;
/// A `ROWS` frame is closed past this many payload bytes.
const FRAME_BYTES: usize = 256 << 10;
/// Bytes gathered before a write.
const WRITE_BYTES: usize = 1 << 20;

/// The name of checkpoint file `no`.
pub fn name(no: u64) -> String {
    format!("{CKPT_PREFIX}{no}")
}

/// What a checkpoint file says about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Its number.
    pub no: u64,
    /// The first journal file recovery replays after loading it.
    pub replay_from: u64,
    /// The snapshot's read timestamp (informational: timestamps restart at open).
    pub snapshot_ts: u64,
    /// The journal created file `replay_from` (at its rotation) before this checkpoint was
    /// written: recovery refuses to open without it. False without a journal.
    pub journal_exists: bool,
}

/// Streams frames into a file through a buffer.
struct Out<'a> {
    disk: &'a Disk,
    file: std::fs::File,
    name: String,
    buf: Vec<u8>,
}

impl Out<'_> {
    fn frame(&mut self, payload: &[u8]) -> Result<()> {
        write_frame(&mut self.buf, payload);
        if self.buf.len() >= WRITE_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.disk.write_all(&mut self.file, &self.name, &self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

/// Writes checkpoint `header.no` of `tables` (durable id, index) as `view` sees them; returns
/// the number of rows written. On error the temporary file is removed and nothing changed.
pub fn write(disk: &Disk, header: Header, tables: &[(u64, &Index)], view: ReadView) -> Result<u64> {
    let final_name = name(header.no);
    let tmp = format!("{final_name}{TMP_SUFFIX}");
    let out = (|| {
        let file = disk.create(&tmp)?;
        let mut out = Out { disk, file, name: tmp.clone(), buf: Vec::with_capacity(WRITE_BYTES + FRAME_BYTES) };
        let mut p = Put::default();
        p.u64(CKPT_MAGIC).u32(CKPT_VERSION).u64(header.no).u64(header.replay_from).u64(header.snapshot_ts);
        p.u8(u8::from(header.journal_exists));
        out.frame(&p.0)?;
        let mut total = 0;
        for &(id, index) in tables {
            let mut p = Put::default();
            p.u8(TABLE).u64(id);
            out.frame(&p.0)?;
            total += write_rows(&mut out, index, view)?;
        }
        let mut p = Put::default();
        p.u8(END).u32(tables.len() as u32).u64(total);
        out.frame(&p.0)?;
        out.flush()?;
        disk.sync(&out.file, &tmp)?;
        disk.rename(&tmp, &final_name)?;
        Ok(total)
    })();
    if out.is_err() {
        let _ = disk.remove(&tmp);
    }
    out
}

/// One table's rows, in `ROWS` frames.
fn write_rows(out: &mut Out<'_>, index: &Index, view: ReadView) -> Result<u64> {
    let mut rows = Put::default();
    let mut count = 0u32;
    let mut total = 0;
    // The last key written: each guard's batch resumes after it.
    let mut after: Option<Vec<u8>> = None;
    loop {
        let guard = Guard::new();
        let mut at = match &after {
            None => index.first(view, &guard),
            Some(k) => index.seek(k, Seek::Gt, view, &guard),
        };
        let mut batch = 0;
        while let Some((k, v)) = at {
            if count == 0 {
                rows.u8(ROWS).u32(0);
            }
            rows.bytes(k).bytes(v);
            count += 1;
            total += 1;
            if rows.0.len() >= FRAME_BYTES {
                close_rows(out, &mut rows, &mut count)?;
            }
            batch += 1;
            if batch == ROWS_PER_GUARD {
                after = Some(k.to_vec());
                break;
            }
            at = index.seek(k, Seek::Gt, view, &guard);
        }
        if batch < ROWS_PER_GUARD {
            break;
        }
    }
    close_rows(out, &mut rows, &mut count)?;
    Ok(total)
}

fn close_rows(out: &mut Out<'_>, rows: &mut Put, count: &mut u32) -> Result<()> {
    if *count == 0 {
        return Ok(());
    }
    rows.0[1..5].copy_from_slice(&count.to_le_bytes());
    out.frame(&rows.0)?;
    rows.0.clear();
    *count = 0;
    Ok(())
}

/// Reads checkpoint `no`, calling `row(table id, key, value)` for every row; returns its header.
pub fn load(disk: &Disk, no: u64, mut row: impl FnMut(u64, &[u8], &[u8])) -> Result<Header> {
    let fname = name(no);
    let shown = disk.show(&fname);
    let file = std::fs::File::open(disk.path(&fname)).map_err(|e| Error::io(format!("{shown}: open"), &e))?;
    let size = file.metadata().map_err(|e| Error::io(format!("{shown}: stat"), &e))?.len();
    let mut r = FrameReader::new(BufReader::with_capacity(1 << 20, file), size);
    let mut next = || -> Result<Vec<u8>> {
        match r.next_frame().map_err(|e| Error::io(format!("{shown}: read"), &e))? {
            Next::Frame(p) => Ok(p),
            Next::End | Next::Truncated { .. } => Err(corrupt(&shown, "checkpoint file truncated")),
            Next::Mismatch => Err(corrupt(&shown, "checksum mismatch")),
        }
    };
    let first = next()?;
    let mut t = Take::new(&first, &shown);
    let version = check_header(&mut t, &shown, CKPT_MAGIC, 1..=CKPT_VERSION)?;
    let (no, replay_from, snapshot_ts) = (t.u64()?, t.u64()?, t.u64()?);
    let journal_exists = version >= 2 && t.u8()? != 0;
    if !t.is_empty() {
        return Err(corrupt(&shown, "unexpected bytes in the checkpoint header"));
    }
    let header = Header { no, replay_from, snapshot_ts, journal_exists };
    if header.no != no {
        return Err(corrupt(&shown, "checkpoint number does not match its name"));
    }
    let (mut table, mut tables, mut rows) = (None, 0u32, 0u64);
    loop {
        let payload = next()?;
        let mut t = Take::new(&payload, &shown);
        match t.u8()? {
            TABLE => {
                table = Some(t.u64()?);
                tables += 1;
            }
            ROWS => {
                let id = table.ok_or_else(|| corrupt(&shown, "rows before any table"))?;
                for _ in 0..t.u32()? {
                    let (k, v) = (t.bytes()?, t.bytes()?);
                    row(id, k, v);
                    rows += 1;
                }
            }
            END => {
                if t.u32()? != tables || t.u64()? != rows {
                    return Err(corrupt(&shown, "checkpoint counts do not match its contents"));
                }
                if !t.is_empty() || r.next_frame().map_err(|e| Error::io(format!("{shown}: read"), &e))? != Next::End {
                    return Err(corrupt(&shown, "unexpected bytes after the end of the checkpoint"));
                }
                return Ok(header);
            }
            _ => return Err(corrupt(&shown, "unknown checkpoint record")),
        }
        if !t.is_empty() {
            return Err(corrupt(&shown, "unexpected bytes in a checkpoint record"));
        }
    }
}
