//! `log=(compressor=NAME)`: journal records compressed by the application's compressor, the
//! replay waiting for it to be registered (`Connection::finish_open`), recovery after a crash,
//! and the errors when it is missing.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crate::btree::compress_tests::Rle;
use crate::conn::Connection;
use crate::error::Kind;

use super::tests::{crash, home, open, S};

const CONFIG: &str = "create,log=(enabled=true,compressor=rle)";

/// Opens with the journal compressor `rle` registered as `extensions=` would.
fn open_with(home: &std::path::Path, rle: &Arc<Rle>) -> Connection {
    let conn = open(home, CONFIG).expect("open");
    assert!(conn.durable().unwrap().replay_pending(), "the replay waits for the compressor");
    conn.extensions().add_compressor("rle", Arc::clone(rle) as _, None).unwrap();
    conn.finish_open().expect("replay");
    assert!(!conn.durable().unwrap().replay_pending());
    conn
}

fn long(i: usize) -> String {
    format!("{i:04}{}", "x".repeat(300))
}

#[test]
fn compressed_records_are_recovered_with_the_compressor() {
    let home = home();
    let rle = Arc::new(Rle::default());
    let conn = open_with(&home, &rle);
    let mut s = S::new(&conn, "t");
    for i in 0..20 {
        s.put(&format!("k{i:02}"), &long(i)).unwrap();
    }
    // A short record is written as it is.
    s.put("short", "v").unwrap();
    let compressed = rle.compressed.load(Relaxed);
    assert!(compressed >= 20, "{compressed} records compressed");
    // The reference's log compression statistics.
    let stats = conn.statistics_snapshot(false);
    let stat = |id: i32| stats.iter().find(|&&(i, _)| i == id).map(|&(_, v)| v);
    assert_eq!(stat(1474), Some(20), "log records compressed");
    assert_eq!(stat(1475), Some(0), "not compressed");
    assert!(stat(1476).is_some_and(|n| n >= 1), "too small: {:?}", stat(1476));
    let (before, after) = (stat(1507).unwrap(), stat(1509).unwrap());
    assert!(after > 0 && after * 4 < before, "{after} of {before} bytes");
    // The records as log: cursors read them: decompressed.
    let records = conn.durable().unwrap().journal_records().unwrap().unwrap();
    let plain: Vec<_> = records.iter().filter_map(|(_, _, r)| super::redo::decode(r, "test").ok()).collect();
    assert!(plain.len() >= 21);
    drop(s);
    crash(conn);

    // Recovery decompresses them.
    let conn = open_with(&home, &rle);
    assert!(rle.decompressed.load(Relaxed) >= 20);
    let mut s = S::new(&conn, "t");
    for i in 0..20 {
        assert_eq!(s.get(&format!("k{i:02}")), Some(long(i)));
    }
    assert_eq!(s.get("short").as_deref(), Some("v"));
    drop(s);
    crash(conn);

    // Without the compressor configured, a compressed record fails the recovery.
    let e = open(&home, "create,log=(enabled=true)").err().expect("refused");
    assert_eq!(e.kind(), Kind::Generic);
    assert!(e.messages().any(|m| m.contains("no journal compressor")), "{e}");

    // Recovery failing half way (a decompress error) takes no checkpoint at close: the
    // journal is replayed by the next open.
    rle.fail_decompress.store(true, Relaxed);
    let conn = open(&home, CONFIG).unwrap();
    conn.extensions().add_compressor("rle", Arc::clone(&rle) as _, None).unwrap();
    assert!(conn.finish_open().is_err());
    assert!(conn.durable().unwrap().replay_pending());
    conn.close().unwrap();
    drop(conn);
    rle.fail_decompress.store(false, Relaxed);

    // Configured but not registered: the replay waits, then fails; the journal is kept.
    let conn = open(&home, CONFIG).unwrap();
    let e = conn.finish_open().err().expect("no compressor");
    assert!(e.messages().any(|m| m.contains("unknown compressor 'rle'")), "{e}");
    conn.close().unwrap();
    drop(conn);
    let conn = open_with(&home, &rle);
    let mut s = S::new(&conn, "t");
    assert_eq!(s.get("k07"), Some(long(7)));
    drop(s);
    conn.close().unwrap();
}

#[test]
fn compressor_failures_fail_the_commit() {
    let home = home();
    let rle = Arc::new(Rle::default());
    let conn = open_with(&home, &rle);
    let mut s = S::new(&conn, "t");
    rle.fail_compress.store(true, Relaxed);
    let e = s.put("k", &long(1)).err().expect("compress failed");
    assert!(e.messages().any(|m| m.contains("rle: compress failed")), "{e}");
    assert_eq!(s.get("k"), None);
    rle.fail_compress.store(false, Relaxed);
    s.put("k", &long(2)).unwrap();
    drop(s);
    crash(conn);
    let conn = open_with(&home, &rle);
    let mut s = S::new(&conn, "t");
    assert_eq!(s.get("k"), Some(long(2)));
    drop(s);
    conn.close().unwrap();
}
