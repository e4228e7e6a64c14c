//! Journal files extended ahead of their writes (`log=(prealloc)`): what a killed process
//! leaves (zeros after the last record), torn records before those zeros, rotation, and a
//! zero tail where recovery must not accept one.

use std::path::{Path, PathBuf};

use crate::error::Kind;

use super::disk::{Disk, LOG_PREFIX};
use super::journal::EXTEND_BYTES;
use super::tests::{crash, home, open, S};

/// The journal files of `dir`, oldest first.
fn log_paths(dir: &Path) -> Vec<PathBuf> {
    let numbers = Disk::new(dir.to_path_buf()).numbered(LOG_PREFIX).unwrap();
    numbers.into_iter().map(|n| dir.join(format!("{LOG_PREFIX}{n}"))).collect()
}

/// Offsets of the whole frames of a journal file (its header frame first), and where the
/// last one ends.
fn frames(path: &Path) -> (Vec<u64>, u64) {
    let bytes = std::fs::read(path).unwrap();
    let (mut out, mut at) = (Vec::new(), 0usize);
    while at + 8 <= bytes.len() && bytes[at..at + 8] != [0; 8] {
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if at + 8 + len > bytes.len() {
            break;
        }
        out.push(at as u64);
        at += 8 + len;
    }
    (out, at as u64)
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

/// Copies every file of `from` into the empty home `to`: taken while a connection is open,
/// it is what a kill at that moment leaves (the records written, the files as extended).
fn copy_live(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

fn write_zeros(path: &Path, at: u64, n: u64) {
    use std::os::unix::fs::FileExt;
    let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.write_all_at(&vec![0u8; n as usize], at).unwrap();
}

/// `n` rows `k0000..`, each committed with `sync=on`, in a live connection on `dir`.
fn live_with_rows(dir: &Path, config: &str, n: usize) -> crate::conn::Connection {
    let conn = open(dir, &format!("create,log=(enabled=true{config})")).unwrap();
    let mut a = S::new(&conn, "a");
    for i in 0..n {
        a.txn(Some("sync=on"), &[(&format!("k{i:04}"), &format!("v{i}"))]).unwrap();
    }
    drop(a);
    conn
}

fn count_rows(conn: &crate::conn::Connection, n: usize) -> usize {
    let mut a = S::new(conn, "a");
    (0..n).filter(|i| a.get(&format!("k{i:04}")).as_deref() == Some(format!("v{i}").as_str())).count()
}

#[test]
fn a_kill_leaves_zeros_after_the_records_and_recovery_cuts_them() {
    let dir = home();
    let conn = live_with_rows(&dir, "", 200);
    let killed = home();
    copy_live(&dir, &killed);
    crash(conn);
    // The file with the records reaches past them, by up to EXTEND_BYTES of zeros.
    let data = log_paths(&killed).into_iter().find(|p| frames(p).0.len() > 1).expect("a file with records");
    let (offsets, end) = frames(&data);
    assert_eq!(offsets.len(), 201);
    assert!(size(&data) > end && size(&data) <= end + EXTEND_BYTES + 4096, "{} bytes, records end at {end}", size(&data));
    let conn = open(&killed, "log=(enabled=true)").unwrap();
    assert_eq!(conn.recovery_messages().len(), 0);
    assert_eq!(count_rows(&conn, 200), 200);
    // Cut durably: the file is no longer the one appended to, and may not end with zeros.
    assert_eq!(size(&data), end);
    {
        let mut a = S::new(&conn, "a");
        a.txn(Some("sync=on"), &[("later", "1")]).unwrap();
    }
    crash(conn);
    let conn = open(&killed, "log=(enabled=true)").unwrap();
    assert_eq!(count_rows(&conn, 200), 200);
    assert_eq!(S::new(&conn, "a").get("later").as_deref(), Some("1"));
    // A clean close leaves no zeros either.
    drop(conn);
    for p in log_paths(&killed) {
        assert_eq!(size(&p), frames(&p).1, "{}", p.display());
    }
}

#[test]
fn a_torn_record_before_the_zeros_is_cut_and_data_after_them_is_corruption() {
    let dir = home();
    let conn = live_with_rows(&dir, "", 100);
    let good = home();
    copy_live(&dir, &good);
    crash(conn);
    let data = log_paths(&good).into_iter().find(|p| frames(p).0.len() > 1).unwrap();
    let name = data.file_name().unwrap().to_owned();
    let (offsets, end) = frames(&data);
    let last = *offsets.last().unwrap();
    let extended = size(&data);
    assert!(extended > end);
    // (what is zeroed, from where, whether the open succeeds, rows found)
    for (from, n, ok, rows) in [
        (last + 3, end - last - 3, true, 99), // the last record's header torn
        (last + 10, end - last - 10, true, 99), // its payload torn
        (end - 3, 3, true, 99),                 // its last bytes lost
        (end, 0, true, 100),                    // nothing lost
    ] {
        let dir = home();
        copy_live(&good, &dir);
        let path = dir.join(&name);
        write_zeros(&path, from, n);
        let conn = open(&dir, "log=(enabled=true)");
        assert_eq!(conn.is_ok(), ok, "zeros from {from}");
        let conn = conn.unwrap();
        assert_eq!(conn.recovery_messages().len(), 0);
        assert_eq!(count_rows(&conn, 100), rows, "zeros from {from}");
        drop(conn);
    }
    // A non-zero byte deep in the zeros is not a torn write: refused, naming the damage.
    for at in [end + 100, extended - 1] {
        let dir = home();
        copy_live(&good, &dir);
        let path = dir.join(&name);
        {
            use std::os::unix::fs::FileExt;
            std::fs::OpenOptions::new().write(true).open(&path).unwrap().write_all_at(&[7], at).unwrap();
        }
        let e = open(&dir, "log=(enabled=true)").err().unwrap_or_else(|| panic!("a byte at {at} after the zeros opened"));
        assert_eq!(e.kind(), Kind::TrySalvage, "{e}");
        let text = e.messages().next().unwrap().to_string();
        assert!(text.contains(&format!("offset {end}")) && text.contains(path.to_str().unwrap()), "{text}");
        // Salvage keeps every record before it.
        let conn = open(&dir, "log=(enabled=true),salvage=true").unwrap();
        assert_eq!(conn.recovery_messages().len(), 1);
        assert_eq!(count_rows(&conn, 100), 100);
    }
}

#[test]
fn rotation_with_files_extended_ahead() {
    let dir = home();
    // file_max at its minimum (100 KB): 1 KB values roll over every hundred commits.
    let conn = open(&dir, "create,log=(enabled=true,file_max=100KB)").unwrap();
    let big = "x".repeat(1000);
    {
        let mut a = S::new(&conn, "a");
        for i in 0..350 {
            a.txn(Some("sync=on"), &[(&format!("k{i:04}"), &big)]).unwrap();
            if i == 120 {
                // A rotation for a checkpoint, part-way through a file.
                a.s.checkpoint(&conn, None).unwrap();
            }
        }
    }
    let killed = home();
    copy_live(&dir, &killed);
    crash(conn);
    let paths = log_paths(&killed);
    let with_records: Vec<&PathBuf> = paths.iter().filter(|p| frames(p).0.len() > 1).collect();
    assert!(with_records.len() >= 3, "{} files with records", with_records.len());
    // Every file but the one appended to ends at its last record, and none grew past
    // file_max by extension (only by the record that crossed it).
    let (appended, older) = with_records.split_last().unwrap();
    for p in older {
        assert_eq!(size(p), frames(p).1, "{}", p.display());
    }
    if frames(appended).1 < 100 * 1024 {
        assert!(size(appended) > frames(appended).1);
    }
    for p in &paths {
        assert!(size(p) <= 100 * 1024 + 1100, "{}: {} bytes", p.display(), size(p));
    }
    let conn = open(&killed, "log=(enabled=true,file_max=100KB)").unwrap();
    assert_eq!(conn.recovery_messages().len(), 0);
    let mut a = S::new(&conn, "a");
    assert!((0..350).all(|i| a.get(&format!("k{i:04}")).as_deref() == Some(big.as_str())));
}

#[test]
fn zeros_after_the_records_of_a_file_before_the_last_are_corruption() {
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true,file_max=100KB)").unwrap();
    let big = "x".repeat(1000);
    {
        let mut a = S::new(&conn, "a");
        for i in 0..250 {
            a.txn(Some("sync=on"), &[(&format!("k{i:04}"), &big)]).unwrap();
        }
    }
    crash(conn);
    // Its records' end zeroed from a frame boundary, the file before the last with records
    // looks like a file extended ahead: refused, since later files hold records.
    let first = log_paths(&dir).into_iter().find(|p| frames(p).0.len() > 1).unwrap();
    let (offsets, end) = frames(&first);
    let cut = offsets[offsets.len() - 3];
    write_zeros(&first, cut, end - cut);
    let e = open(&dir, "log=(enabled=true,file_max=100KB)").err().expect("zeros before later records opened");
    assert_eq!(e.kind(), Kind::TrySalvage, "{e}");
    assert!(e.messages().next().unwrap().contains(&format!("offset {cut}")), "{e}");
}

#[test]
fn without_prealloc_files_grow_with_their_writes() {
    let dir = home();
    let conn = live_with_rows(&dir, ",prealloc=false", 50);
    for p in log_paths(&dir) {
        assert_eq!(size(&p), frames(&p).1, "{}", p.display());
    }
    crash(conn);
}
