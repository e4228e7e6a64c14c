//! Named checkpoints (`WT_SESSION::checkpoint(name=NAME)`): a copy of the rows the checkpoint
//! holds, kept in a file of its own, `unlatched.named.SEQ`, until a checkpoint drops it
//! (`drop=(NAME)`, `drop=(from=NAME|all)`, `drop=(to=NAME)`) or names another one alike.
//! Checkpoint cursors on a name read it.
//!
//! Why a copy: the store keeps the blocks of the last checkpoint only; keeping an older
//! checkpoint's blocks alive would need the free-space lists to know every block each named
//! checkpoint reaches. A copy costs a read of every table (or of the `target` tables) and a
//! write of their rows per named checkpoint, and nothing otherwise: named checkpoints are
//! rare, unnamed ones stay incremental.
//!
//! Layout, all frames ([`super::frame`]): a header (`magic`, `version`, `seq`, the name, the
//! number of the checkpoint it copies: the checkpoint cursor's `checkpoint_id`), then
//! per table `ROWS` frames (`id u64`, `count u32`, then `count` key / value pairs), then an
//! `END` frame with the number of tables. Written under a temporary name, synced and renamed:
//! a file that exists is whole. `seq` orders the names by creation (for `from=` / `to=`).

use std::io::BufReader;

use crate::error::{Error, Result};

use super::disk::Disk;
use super::frame::{corrupt, write_frame, FrameReader, Next, Put, Take};
use super::meta::check_header;

/// The prefix of named checkpoint files.
pub const NAMED_PREFIX: &str = "unlatched.named.";
const NAMED_MAGIC: u64 = u64::from_le_bytes(*b"ULnamed\0");
const NAMED_VERSION: u32 = 1;
const ROWS: u8 = 1;
const END: u8 = 2;
/// Rows per frame (frames stay far below the frame size limit for ordinary rows).
const ROWS_PER_FRAME: usize = 4096;

fn file_name(seq: u64) -> String {
    format!("{NAMED_PREFIX}{seq}")
}

/// One table's rows, in key order.
pub type Rows = Vec<(Vec<u8>, Vec<u8>)>;

/// The named checkpoints on disk, oldest first, as (seq, name).
pub fn list(disk: &Disk) -> Result<Vec<(u64, String)>> {
    let mut out = Vec::new();
    for seq in disk.numbered(NAMED_PREFIX)? {
        let (name, _, _) = read(disk, seq, None)?;
        out.push((seq, name));
    }
    Ok(out)
}

/// Writes the named checkpoint `name` holding `tables` (id, rows), replacing one of the same
/// name.
pub fn write(disk: &Disk, name: &str, checkpoint: u64, tables: &[(u64, Rows)]) -> Result<()> {
    let existing = list(disk)?;
    let seq = existing.last().map_or(1, |(s, _)| s + 1);
    let mut out = Vec::new();
    let mut p = Put::default();
    p.u64(NAMED_MAGIC).u32(NAMED_VERSION).u64(seq).str(name).u64(checkpoint);
    write_frame(&mut out, &p.0);
    for (id, rows) in tables {
        // An empty table still gets its (empty) frame: the checkpoint holds it.
        let empty: &[(Vec<u8>, Vec<u8>)] = &[];
        let chunks: Vec<&[(Vec<u8>, Vec<u8>)]> =
            if rows.is_empty() { vec![empty] } else { rows.chunks(ROWS_PER_FRAME).collect() };
        for chunk in chunks {
            let mut p = Put::default();
            p.u8(ROWS).u64(*id).u32(chunk.len() as u32);
            for (k, v) in chunk {
                p.bytes(k).bytes(v);
            }
            write_frame(&mut out, &p.0);
        }
    }
    let mut p = Put::default();
    p.u8(END).u64(tables.len() as u64);
    write_frame(&mut out, &p.0);
    disk.replace(&file_name(seq), &out)?;
    for (old, _) in existing.iter().filter(|(_, n)| n == name) {
        disk.remove(&file_name(*old))?;
    }
    Ok(())
}

/// The rows of table `id` in the named checkpoint `name`, with the number of the checkpoint it
/// copied; `None` when there is no checkpoint of that name or it does not hold the table.
pub fn rows(disk: &Disk, name: &str, id: u64) -> Result<Option<(u64, Rows)>> {
    let Some((seq, _)) = list(disk)?.into_iter().rev().find(|(_, n)| n == name) else { return Ok(None) };
    let (_, checkpoint, rows) = read(disk, seq, Some(id))?;
    Ok(rows.map(|rows| (checkpoint, rows)))
}

/// `drop=(...)` of a checkpoint: each element a name, `from=NAME` (it and every later one;
/// `from=all`: every one) or `to=NAME` (it and every earlier one). Unknown names drop nothing.
pub fn drop(disk: &Disk, elements: &[(String, Option<String>)]) -> Result<()> {
    let named = list(disk)?;
    let seq_of = |name: &str| named.iter().find(|(_, n)| n == name).map(|(s, _)| *s);
    let mut gone: Vec<u64> = Vec::new();
    for (key, value) in elements {
        match (key.as_str(), value.as_deref()) {
            ("from", Some("all")) => gone.extend(named.iter().map(|(s, _)| *s)),
            ("from", Some(name)) => {
                if let Some(from) = seq_of(name) {
                    gone.extend(named.iter().map(|(s, _)| *s).filter(|&s| s >= from));
                }
            }
            ("to", Some(name)) => {
                if let Some(to) = seq_of(name) {
                    gone.extend(named.iter().map(|(s, _)| *s).filter(|&s| s <= to));
                }
            }
            (name, None) => gone.extend(seq_of(name)),
            (key, Some(_)) => return Err(Error::invalid(format!("drop: unexpected '{key}=' (from= or to= expected)"))),
        }
    }
    for seq in gone {
        disk.remove(&file_name(seq))?;
    }
    Ok(())
}

/// Reads named checkpoint file `seq`: its name, the checkpoint it copied, and with `table`
/// that table's rows (`None` when the file does not hold it).
fn read(disk: &Disk, seq: u64, table: Option<u64>) -> Result<(String, u64, Option<Rows>)> {
    let fname = file_name(seq);
    let shown = disk.show(&fname);
    let file = std::fs::File::open(disk.path(&fname)).map_err(|e| Error::io(format!("{shown}: open"), &e))?;
    let size = file.metadata().map_err(|e| Error::io(format!("{shown}: stat"), &e))?.len();
    let mut r = FrameReader::new(BufReader::with_capacity(1 << 16, disk.reading(&file)), size);
    let mut next = || -> Result<Vec<u8>> {
        match r.next_frame().map_err(|e| Error::io(format!("{shown}: read"), &e))? {
            Next::Frame(p) => Ok(p),
            Next::End | Next::Truncated { .. } => Err(corrupt(&shown, "named checkpoint file truncated")),
            Next::Mismatch => Err(corrupt(&shown, "checksum mismatch")),
        }
    };
    let first = next()?;
    let mut t = Take::new(&first, &shown);
    check_header(&mut t, &shown, NAMED_MAGIC, 1..=NAMED_VERSION)?;
    if t.u64()? != seq {
        return Err(corrupt(&shown, "named checkpoint number does not match its file name"));
    }
    let name = t.str()?.to_string();
    let checkpoint = t.u64()?;
    let Some(want) = table else { return Ok((name, checkpoint, None)) };
    let mut found: Option<Rows> = None;
    loop {
        let payload = next()?;
        let mut t = Take::new(&payload, &shown);
        match t.u8()? {
            ROWS => {
                let id = t.u64()?;
                let n = t.u32()?;
                if id != want {
                    continue;
                }
                let rows = found.get_or_insert_with(Vec::new);
                for _ in 0..n {
                    rows.push((t.bytes()?.to_vec(), t.bytes()?.to_vec()));
                }
            }
            END => return Ok((name, checkpoint, found)),
            _ => return Err(corrupt(&shown, "unknown frame in a named checkpoint")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory, removed when dropped.
    struct Dir(std::path::PathBuf);

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn disk() -> (Dir, Disk) {
        let p = std::env::temp_dir().join(format!("ul-named-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        let disk = Disk::new(p.clone());
        (Dir(p), disk)
    }

    fn row(k: &str, v: &str) -> (Vec<u8>, Vec<u8>) {
        (k.as_bytes().to_vec(), v.as_bytes().to_vec())
    }

    #[test]
    fn write_read_replace_and_drop() {
        let (_dir, disk) = disk();
        let many: Rows = (0..10_000u32).map(|i| (i.to_be_bytes().to_vec(), vec![1])).collect();
        write(&disk, "a", 7, &[(1, vec![row("k", "1")]), (2, many.clone())]).unwrap();
        write(&disk, "b", 8, &[(1, vec![row("k", "2")])]).unwrap();
        write(&disk, "c", 9, &[(1, vec![row("k", "3")])]).unwrap();
        assert_eq!(rows(&disk, "a", 1).unwrap(), Some((7, vec![row("k", "1")])));
        assert_eq!(rows(&disk, "a", 2).unwrap(), Some((7, many)));
        assert_eq!(rows(&disk, "a", 3).unwrap(), None);
        write(&disk, "empty", 10, &[(4, Vec::new())]).unwrap();
        assert_eq!(rows(&disk, "empty", 4).unwrap(), Some((10, Vec::new())));
        drop(&disk, &[("empty".into(), None)]).unwrap();
        assert_eq!(rows(&disk, "zz", 1).unwrap(), None);
        // The same name again replaces it (and moves it last).
        write(&disk, "a", 7, &[(1, vec![row("k", "4")])]).unwrap();
        let names: Vec<String> = list(&disk).unwrap().into_iter().map(|(_, n)| n).collect();
        assert_eq!(names, ["b", "c", "a"]);
        assert_eq!(rows(&disk, "a", 1).unwrap(), Some((7, vec![row("k", "4")])));
        drop(&disk, &[("to".into(), Some("c".into()))]).unwrap();
        let names: Vec<String> = list(&disk).unwrap().into_iter().map(|(_, n)| n).collect();
        assert_eq!(names, ["a"]);
        drop(&disk, &[("nosuch".into(), None)]).unwrap();
        drop(&disk, &[("from".into(), Some("all".into()))]).unwrap();
        assert!(list(&disk).unwrap().is_empty());
    }
}
