//! Checkpoint files `unlatched.ckpt.N`: where every table's tree stood at one snapshot.
//!
//! Layout, all frames: a header (`magic`, `version`, `N`, the journal file recovery replays
//! from, the snapshot's timestamp, and from version 2 a flag: the journal created that file
//! before the checkpoint was written, so recovery requires it, and from version 4 the stable
//! timestamp the checkpoint holds data as of and the oldest timestamp, 0 for none), then per
//! table a `TREE` frame
//! (`id`, then the tree's record: its root and its file's free space, see
//! [`TreeRecord`]), and an `END` frame with the number of tables. Versions 1 and 2 held every
//! row instead (a `TABLE id` frame followed by `ROWS` frames of `count`, then `key`, `value`
//! pairs); they are still read, their rows handed to the caller. A file is written under a
//! temporary name, synced, and renamed into place, so a checkpoint file that exists is
//! complete; a missing `END`, a short file or a failed checksum is corruption, reported naming
//! the file.

use std::collections::HashMap;
use std::io::BufReader;

use crate::btree::tree::TreeRecord;
use crate::error::{Error, Result};

use super::disk::{Disk, CKPT_PREFIX, TMP_SUFFIX};
use super::frame::{corrupt, write_frame, FrameReader, Next, Put, Take};
use super::meta::check_header;

/// First field of a checkpoint file's header frame.
pub const CKPT_MAGIC: u64 = u64::from_le_bytes(*b"ULckpt\0\0");
/// The layout version written. Version 1 (read too) has no `journal_exists` flag; versions 1
/// and 2 hold rows rather than trees; versions before 4 have no stable timestamp.
pub const CKPT_VERSION: u32 = 4;
const TABLE: u8 = 1;
const ROWS: u8 = 2;
const END: u8 = 3;
const TREE: u8 = 4;

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
    /// The application's stable timestamp the trees hold data as of (0: none, every commit).
    pub stable_ts: u64,
    /// The application's oldest timestamp when the checkpoint was taken (0: none).
    pub oldest_ts: u64,
}

/// How [`write()`] failed.
#[derive(Debug)]
pub struct Failed {
    /// What failed.
    pub error: Error,
    /// The file is in place under its final name, but syncing the directory failed: a crash
    /// may find this checkpoint or the one before it.
    pub in_place: bool,
}

/// Writes checkpoint `header.no` holding the trees' records (by durable table id). On error
/// the temporary file is removed and nothing changed, unless the error says the file is in
/// place.
pub fn write(disk: &Disk, header: Header, trees: &[(u64, TreeRecord)]) -> std::result::Result<(), Failed> {
    let final_name = name(header.no);
    let tmp = format!("{final_name}{TMP_SUFFIX}");
    let out = (|| {
        let mut buf = Vec::new();
        let mut p = Put::default();
        p.u64(CKPT_MAGIC).u32(CKPT_VERSION).u64(header.no).u64(header.replay_from).u64(header.snapshot_ts);
        p.u8(u8::from(header.journal_exists)).u64(header.stable_ts).u64(header.oldest_ts);
        write_frame(&mut buf, &p.0);
        for (id, record) in trees {
            let mut p = Put::default();
            p.u8(TREE).u64(*id);
            record.put(&mut p.0);
            write_frame(&mut buf, &p.0);
        }
        let mut p = Put::default();
        p.u8(END).u32(trees.len() as u32).u64(0);
        write_frame(&mut buf, &p.0);
        let mut file = disk.create(&tmp)?;
        disk.write_all(&mut file, &tmp, &buf)?;
        disk.sync(&file, &tmp)?;
        disk.rename_unsynced(&tmp, &final_name)
    })();
    if let Err(error) = out {
        let _ = disk.remove(&tmp);
        return Err(Failed { error, in_place: false });
    }
    disk.sync_dir().map_err(|error| Failed { error, in_place: true })
}

/// Reads checkpoint `no`: its header and the trees' records by table id; `row(table id, key,
/// value)` is called for every row of a version 1 or 2 file.
pub fn load(disk: &Disk, no: u64, mut row: impl FnMut(u64, &[u8], &[u8])) -> Result<(Header, HashMap<u64, TreeRecord>)> {
    let fname = name(no);
    let shown = disk.show(&fname);
    let file = std::fs::File::open(disk.path(&fname)).map_err(|e| Error::io(format!("{shown}: open"), &e))?;
    let size = file.metadata().map_err(|e| Error::io(format!("{shown}: stat"), &e))?.len();
    let mut r = FrameReader::new(BufReader::with_capacity(1 << 20, disk.reading(&file)), size);
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
    let (stable_ts, oldest_ts) = if version >= 4 { (t.u64()?, t.u64()?) } else { (0, 0) };
    if !t.is_empty() {
        return Err(corrupt(&shown, "unexpected bytes in the checkpoint header"));
    }
    let header = Header { no, replay_from, snapshot_ts, journal_exists, stable_ts, oldest_ts };
    if header.no != no {
        return Err(corrupt(&shown, "checkpoint number does not match its name"));
    }
    let (mut table, mut tables, mut rows) = (None, 0u32, 0u64);
    let mut trees = HashMap::new();
    loop {
        let payload = next()?;
        let mut t = Take::new(&payload, &shown);
        match t.u8()? {
            TREE if version >= 3 => {
                let id = t.u64()?;
                let (record, rest) = TreeRecord::get(t.rest()).ok_or_else(|| corrupt(&shown, "damaged tree record"))?;
                t = Take::new(rest, &shown);
                trees.insert(id, record);
                tables += 1;
            }
            TABLE if version < 3 => {
                table = Some(t.u64()?);
                tables += 1;
            }
            ROWS if version < 3 => {
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
                return Ok((header, trees));
            }
            _ => return Err(corrupt(&shown, "unknown checkpoint record")),
        }
        if !t.is_empty() {
            return Err(corrupt(&shown, "unexpected bytes in a checkpoint record"));
        }
    }
}
