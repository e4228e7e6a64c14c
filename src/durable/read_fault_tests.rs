//! Injected read failures ([`super::super::faults`], `Call::Read`): `pread` failing with `EIO`,
//! or returning a prefix of the bytes asked for as if the file ended there (a short read), on
//! page reads (cache misses of a table larger than its cache), on the reads of recovery (the
//! journal, the checkpoint, the tree files) and on the table list and checkpoint at open.
//! The engine must answer an error code with a message naming the file, never a panic, a hang
//! or wrong data; keep working for the other pages (and the same page, read again); and a
//! reopen without failures must read everything.
//!
//! `UNLATCHED_FAULT_POINTS=all` fails every read of a scan and of an open in turn (else a
//! sample), `UNLATCHED_FAULT_SEEDS=N` runs N random plans over the write workload of
//! `fault_tests` (figures in TESTING.md).

use super::super::faults::{Call, Plan};
use super::fault_tests::{points, watched};
use super::*;
use crate::error::Error;

const CONFIG: &str = "create,cache_size=1MB,log=(enabled=true,file_max=100KB)";
/// Rows of the table: 2.5 KB values, 1.5 MB against the 1 MB cache.
const ROWS: usize = 600;

fn value(i: usize) -> String {
    format!("{i}:{}", "r".repeat(2500))
}

/// A failed read's error: `EIO` (a read that failed is no damage: not `WT_TRY_SALVAGE`, which
/// could lead to a salvage cutting what is there) with a message that names the file.
fn names_a_file(e: &Error, what: &str) {
    let text = e.messages().collect::<Vec<_>>().join("; ");
    assert!(text.contains("unlatched."), "{what}: the error names no file: {e} ({e:?})");
    assert_eq!(e.kind(), Kind::Os(libc::EIO), "{what}: {e}");
}

/// A home holding table `a` (`ROWS` rows, on disk only: written, checkpointed and closed).
fn loaded_home() -> Home {
    let dir = home();
    let conn = open(&dir, CONFIG).unwrap();
    let mut a = S::new(&conn, "a");
    for i in 0..ROWS {
        a.put(&format!("k{i:04}"), &value(i)).unwrap();
    }
    drop(a);
    conn.close().unwrap();
    dir
}

/// Scans `a`: every row in order with its value, or the error of the first call that failed.
/// A row that comes back wrong fails the test (a failed read must never give wrong data).
fn scan(a: &mut S) -> std::result::Result<usize, Error> {
    a.s.reset_cursor(a.c);
    let mut n = 0;
    loop {
        match a.s.next(a.c) {
            Ok(()) => {}
            Err(e) if e.kind() == Kind::NotFound => break,
            Err(e) => {
                a.s.reset_cursor(a.c);
                return Err(e);
            }
        }
        let c = a.s.cursor(a.c);
        let text = |b: &[u8]| String::from_utf8(b[..b.len() - 1].to_vec()).unwrap();
        assert_eq!(text(c.key_bytes().unwrap()), format!("k{n:04}"), "row {n} of the scan");
        assert_eq!(text(c.value_bytes().unwrap()), value(n), "row {n}'s value");
        n += 1;
    }
    a.s.reset_cursor(a.c);
    Ok(n)
}

/// Point reads of every tenth row: each the right value, or the error of the one that failed.
fn point_reads(a: &mut S) -> std::result::Result<(), Error> {
    for i in (0..ROWS).step_by(10) {
        a.key(&format!("k{i:04}"));
        let out = a.s.search(a.c);
        if let Err(e) = out {
            a.s.reset_cursor(a.c);
            return Err(e);
        }
        let v = a.s.cursor(a.c).value_bytes().unwrap();
        assert_eq!(std::str::from_utf8(&v[..v.len() - 1]).unwrap(), value(i), "row {i}");
        a.s.reset_cursor(a.c);
    }
    Ok(())
}

/// Page reads of a table read back from disk, larger than the cache: each read of a scan
/// failed in turn (every other one as a short read). The scan or point read that meets it
/// fails with the table file's name; the same connection then reads every row, the page that
/// failed included, and so does a reopen.
#[test]
fn a_failed_page_read_is_an_error_naming_the_file_and_the_pages_read_again() {
    let base = loaded_home();
    let total = {
        let conn = open(&base, CONFIG).unwrap();
        let mut a = S::new(&conn, "a");
        conn.durable().unwrap().inject_faults(Some(Plan::at(Call::Read as u8, u64::MAX)));
        assert_eq!(scan(&mut a).unwrap(), ROWS);
        let reads = conn.durable().unwrap().inject_faults(None).counted;
        drop(a);
        conn.close().unwrap();
        reads
    };
    assert!(total >= 20, "a scan reads {total} pages");
    let mut failures = 0;
    for (n, at) in points(total, 12).into_iter().enumerate() {
        let what = format!("page read #{at} of {total}{}", if n % 2 == 1 { " (short)" } else { "" });
        let dir = home();
        for entry in std::fs::read_dir(&*base).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
        let label = what.clone();
        let message = watched(&what, move || {
            let conn = open(&dir, CONFIG).unwrap();
            let mut a = S::new(&conn, "a");
            conn.durable().unwrap().inject_faults(Some(Plan { short: n % 2 == 1, ..Plan::at(Call::Read as u8, at) }));
            let failed = match scan(&mut a) {
                Ok(rows) => {
                    assert_eq!(rows, ROWS, "{label}");
                    point_reads(&mut a).err()
                }
                Err(e) => Some(e),
            };
            let injected = conn.durable().unwrap().inject_faults(None).injected;
            assert_eq!(injected, 1, "{label}: the read was made");
            let e = failed.unwrap_or_else(|| panic!("{label}: a failed read went unnoticed"));
            names_a_file(&e, &label);
            let message = e.to_string();
            // Still working: every row, and point reads, from the same connection.
            assert_eq!(scan(&mut a).unwrap(), ROWS, "{label}: the scan after the failure");
            point_reads(&mut a).unwrap();
            a.put("after", "1").unwrap();
            drop(a);
            conn.close().unwrap();
            drop(conn);
            let conn = open(&dir, CONFIG).unwrap();
            let mut a = S::new(&conn, "a");
            assert_eq!(a.get("after").as_deref(), Some("1"), "{label}");
            a.remove("after").unwrap();
            assert_eq!(scan(&mut a).unwrap(), ROWS, "{label}: after a reopen");
            drop(a);
            conn.close().unwrap();
            message
        });
        println!("{what}: {message}; then read again");
        failures += 1;
    }
    println!("page reads: {failures} faults injected over {total} reads of a scan");
}

/// A home to recover: a checkpoint, a table file written past it, journal records after it
/// and a torn journal tail (as `fault_tests`' recovery test builds it).
fn crashed_home() -> Home {
    let base = home();
    let conn = open(&base, CONFIG).unwrap();
    let mut a = S::new(&conn, "a");
    let mut b = S::new(&conn, "b");
    for i in 0..100 {
        a.put(&format!("a{i:03}"), "1").unwrap();
    }
    a.s.checkpoint(&conn, None).unwrap();
    for i in 0..ROWS {
        b.put(&format!("k{i:04}"), &value(i)).unwrap();
    }
    for i in 100..300 {
        a.put(&format!("a{i:03}"), "1").unwrap();
    }
    a.s.log_flush(&conn, None).unwrap();
    drop((a, b));
    crash(conn);
    let newest = log_files(&base).into_iter().rev().map(|n| base.join(format!("{LOG_PREFIX}{n}"))).find(|p| {
        std::fs::metadata(p).unwrap().len() > 64
    });
    let mut bytes = std::fs::read(newest.as_ref().unwrap()).unwrap();
    bytes.extend_from_slice(&[100, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3]);
    std::fs::write(newest.unwrap(), bytes).unwrap();
    base
}

/// Every row of the crashed home is there.
fn recovered(conn: &Connection) -> bool {
    let mut a = S::new(conn, "a");
    let mut b = S::new(conn, "b");
    let a_rows = (0..300).all(|i| a.get(&format!("a{i:03}")).as_deref() == Some("1"));
    let b_rows = (0..ROWS).all(|i| b.get(&format!("k{i:04}")) == Some(value(i)));
    a_rows && b_rows
}

/// The reads of an open that recovers: the table list, the checkpoint, the journal (its
/// records, the torn tail and what follows it), the tree files. Each failed in turn (every
/// other one as a short read): the open fails with an error naming the file, or succeeds with
/// every row; nothing is cut or lost, so the next open without failures recovers everything.
#[test]
fn a_failed_read_at_open_or_in_recovery_fails_the_open_naming_the_file_and_loses_nothing() {
    let base = crashed_home();
    let copy = |from: &Path| {
        let dir = home();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
        dir
    };
    let recover = |dir: &Path, plan: Option<Plan>| {
        super::super::faults::AT_OPEN.set(plan);
        let conn = open(dir, CONFIG);
        super::super::faults::AT_OPEN.set(None);
        conn
    };
    let reads = {
        let dir = copy(&base);
        let conn = recover(&dir, Some(Plan::at(Call::Read as u8, u64::MAX))).unwrap();
        let reads = conn.durable().unwrap().inject_faults(None).counted;
        assert!(recovered(&conn));
        reads
    };
    assert!(reads >= 5, "an open that recovers makes {reads} reads");
    let (mut refused, mut opened) = (0, 0);
    for (n, at) in points(reads, 40).into_iter().enumerate() {
        let what = format!("read #{at} of {reads} at open{}", if n % 2 == 1 { " (short)" } else { "" });
        let dir = copy(&base);
        match recover(&dir, Some(Plan { short: n % 2 == 1, ..Plan::at(Call::Read as u8, at) })) {
            Ok(conn) => {
                // A short read that still holds all the file has left is no failure (the
                // plan's prefix can be longer than the data); then nothing may be missing.
                assert_eq!(conn.durable().unwrap().inject_faults(None).injected, 1, "{what}");
                assert!(recovered(&conn), "{what}: opened with rows missing");
                println!("{what}: opened");
                opened += 1;
                crash(conn);
            }
            Err(e) => {
                names_a_file(&e, &what);
                println!("{what}: {e}");
                refused += 1;
            }
        }
        let conn = open(&dir, CONFIG).unwrap_or_else(|e| panic!("{what}: the open after it: {e}"));
        assert!(recovered(&conn), "{what}: rows lost");
        drop(conn);
    }
    println!("open: {reads} reads, {refused} failed opens, {opened} opens that went on");
}

/// Random read failures (every other run with short reads) during the write workload of
/// `fault_tests`: commits, checkpoints and the writers' merges read pages of a table larger
/// than its cache. Failed calls report an error; the live state and a reopen hold exactly
/// the acknowledged commits.
#[test]
fn seeded_random_read_failures_during_commits_checkpoints_and_eviction_lose_nothing() {
    let seeds: u64 = std::env::var("UNLATCHED_FAULT_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
    let mut injected = 0;
    for seed in 0..seeds {
        let config = if seed % 3 == 2 { super::fault_tests::NO_JOURNAL } else { super::fault_tests::JOURNAL };
        let plan = Plan { short: seed % 2 == 1, ..Plan::random(Call::Read as u8, 3 + seed % 8, seed, 1 + seed % 6) };
        let out = super::fault_tests::episode(config, Some(plan), seed % 2 == 0, format!("read seed {seed} ({config})"));
        println!("read seed {seed}: {} faults of {} reads, {} failed commits, checkpoints {:?}, errors {:?}", out.counts.injected, out.counts.counted, out.failed.len(), out.checkpoints, out.errors);
        injected += out.counts.injected;
    }
    println!("{seeds} read seeds, {injected} faults injected");
}
