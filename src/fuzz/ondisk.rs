//! The on-disk readers fed damaged bytes: journal frames and records, checkpoint files, the
//! table list, page images and the records that point at blocks.

use std::path::PathBuf;
use std::sync::OnceLock;

use crate::btree::block::{Addr, SpaceRecord};
use crate::btree::page::Page;
use crate::btree::tree::TreeRecord;
use crate::durable::disk::{Disk, CKPT_PREFIX, LOG_PREFIX, META_FILE};
use crate::durable::frame::{frame_header, FrameReader, Next, HEADER_LEN};
use crate::durable::meta::Meta;
use crate::durable::{checkpoint, journal, redo};
use crate::error::{Error, Kind, Result};

/// The decoders of bytes read: first byte, the decoder (low 3 bits, of 5); with bit 3 set, the
/// frame checksums of the input are recomputed first (so that damage inside a frame reaches
/// what is behind the checksum). The rest: the bytes it gets.
pub fn ondisk(data: &[u8]) {
    let Some((sel, rest)) = super::split_first(data) else { return };
    let bytes = checksummed(sel, rest);
    match sel & 7 {
        0 | 5 => frames(&bytes),
        1 | 6 => drop(Meta::decode(&bytes, "fuzz")),
        2 | 7 => drop(redo::decode(&bytes, "fuzz")),
        3 => page(&bytes),
        _ => records(&bytes),
    }
}

/// The readers of whole files: first byte, the file (low 2 bits: checkpoint, journal, table
/// list); bit 3 as for [`ondisk`]; bit 4: salvage (journal replay). The rest: the file's
/// contents (a real file, with its selector byte in front, is a seed). Slower than [`ondisk`]
/// (each input is written to a file in a folder of the process's own).
pub fn files(data: &[u8]) {
    let Some((sel, rest)) = super::split_first(data) else { return };
    let bytes = checksummed(sel, rest);
    match sel & 3 {
        0 => checkpoint_file(&bytes),
        1 => journal_file(&bytes, sel & 16 != 0),
        _ => meta_file(&bytes),
    }
}

fn checksummed(sel: u8, data: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if sel & 8 != 0 {
        fix_checksums(data).into()
    } else {
        data.into()
    }
}

/// Rewrites the checksum of every frame whose length fits in `data`.
fn fix_checksums(data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    let mut at = 0;
    while at + HEADER_LEN <= out.len() {
        let len = u32::from_le_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]]) as usize;
        let Some(end) = (at + HEADER_LEN).checked_add(len).filter(|&e| e <= out.len()) else { break };
        let header = frame_header(&out[at + HEADER_LEN..end]);
        out[at..at + HEADER_LEN].copy_from_slice(&header);
        at = end;
    }
    out
}

/// Every frame, each decoded as a journal record and as a table list.
fn frames(bytes: &[u8]) {
    let mut r = FrameReader::new(bytes, bytes.len() as u64);
    while let Ok(Next::Frame(payload)) = r.next_frame() {
        assert!(r.good <= bytes.len() as u64);
        let _ = redo::decode(&payload, "fuzz");
    }
}

/// A page image, then every read of it. Overflow items come from the input's tail.
fn page(bytes: &[u8]) {
    let Ok(page) = Page::parse(bytes.to_vec(), 0, "fuzz", 0, |_, len| overflow(bytes, len)) else { return };
    let _ = page.keys_ascending(None);
    let _ = page.footprint();
    for i in 0..page.len() {
        let key = page.key(i).to_vec();
        let _ = page.key_cell(i);
        if page.is_leaf() {
            let _ = page.inline(page.value_cell(i));
        } else {
            let _ = page.child(i);
        }
        let _ = page.search(&key, None);
        let _ = page.child_for(&key, None);
    }
    let _ = page.search(bytes, None);
}

/// What an overflow read returns: `len` bytes of `bytes` when it has them, as the block
/// reader checks the length (a damaged length must not allocate it).
fn overflow(bytes: &[u8], len: u64) -> Result<Vec<u8>> {
    match usize::try_from(len).ok().and_then(|n| bytes.get(..n)) {
        Some(b) => Ok(b.to_vec()),
        None => Err(Error::new(Kind::TrySalvage, "fuzz: overflow item past the input")),
    }
}

/// The records a checkpoint keeps per tree and a page keeps per child.
fn records(bytes: &[u8]) {
    let _ = Addr::get(bytes);
    if let Some((record, rest)) = SpaceRecord::get(bytes) {
        assert!(rest.len() <= bytes.len());
        let mut out = Vec::new();
        record.put(&mut out);
    }
    if let Some((record, rest)) = TreeRecord::get(bytes) {
        assert!(rest.len() <= bytes.len());
        let mut out = Vec::new();
        record.put(&mut out);
    }
}

/// A checkpoint file with these contents, loaded.
fn checkpoint_file(bytes: &[u8]) {
    let disk = scratch();
    write(&disk, &format!("{CKPT_PREFIX}1"), bytes);
    let _ = checkpoint::load(&disk, 1, |_, _, _| {});
}

/// A journal file with these contents, replayed (records decoded as recovery decodes them).
fn journal_file(bytes: &[u8], salvage: bool) {
    let disk = scratch();
    write(&disk, &format!("{LOG_PREFIX}1"), bytes);
    let _ = journal::replay(&disk, 1, false, salvage, |record, file| redo::decode(record, file).map(drop));
}

/// A table list file with these contents, loaded.
fn meta_file(bytes: &[u8]) {
    let disk = scratch();
    write(&disk, META_FILE, bytes);
    let _ = Meta::load(&disk);
}

/// The folder of [`scratch`], once made.
static DIR: OnceLock<PathBuf> = OnceLock::new();

/// Removes the folder the file readers' inputs were written to, if any (at the end of a
/// replay; a fuzzer leaves it, in `/dev/shm/unlatched-fuzz-PID`).
pub fn remove_scratch() {
    if let Some(dir) = DIR.get() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A folder of this process's own, without the files an earlier input left.
fn scratch() -> Disk {
    let dir = DIR.get_or_init(|| {
        let base = std::path::Path::new("/dev/shm");
        let base = if base.is_dir() { base.to_path_buf() } else { std::env::temp_dir() };
        let dir = base.join(format!("unlatched-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("fuzz scratch folder");
        dir
    });
    // Faster than emptying the folder: these are the only names the readers create.
    for name in [format!("{CKPT_PREFIX}1"), format!("{LOG_PREFIX}1"), META_FILE.to_string()] {
        let _ = std::fs::remove_file(dir.join(name));
    }
    Disk::new(dir.clone())
}

fn write(disk: &Disk, name: &str, bytes: &[u8]) {
    std::fs::write(disk.path(name), bytes).expect("fuzz scratch file");
}
