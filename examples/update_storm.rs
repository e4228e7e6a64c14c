//! Version memory under an update storm, through the Rust core: two threads update random keys
//! of a 10,000-row table in transactions of 4 writes while a third takes a short snapshot every
//! millisecond. Once a second it prints the index's version count and bytes (every version of
//! every chain, counted by a scan): they stay flat, because history no snapshot can see is
//! reclaimed as the writers commit.
//!
//! `cargo run --release --example update_storm -- [seconds]` (default 10).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use unlatched::conn::Connection;
use unlatched::pack::{self, Arg};
use unlatched::session::{CursorId, Session};

const ROWS: u64 = 10_000;

fn session(conn: &Connection) -> (Session, CursorId) {
    let mut s = Session::open(conn, conn.slots().claim().expect("a session slot"), None).expect("session");
    s.create(conn, "table:storm", Some("key_format=Q,value_format=Q")).expect("create");
    let c = s.open_cursor(conn, "table:storm", None).expect("cursor").id;
    (s, c)
}

fn set(s: &mut Session, c: CursorId, key: u64, value: Option<u64>) {
    s.set_key_with(c, |f, buf| pack::pack(f, &[Arg::Uint(key)], buf).map_err(Into::into));
    if let Some(v) = value {
        s.set_value_with(c, |f, buf| pack::pack(f, &[Arg::Uint(v)], buf).map_err(Into::into));
    }
}

fn main() {
    let seconds: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10);
    let conn = Arc::new(Connection::open(None, Some("create,in_memory=true")).expect("open"));
    let (mut s, c) = session(&conn);
    for k in 0..ROWS {
        set(&mut s, c, k, Some(k));
        s.insert(c).expect("load");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(AtomicU64::new(0));
    let mut threads = Vec::new();
    for t in 0..2u64 {
        let (conn, stop, writes) = (Arc::clone(&conn), Arc::clone(&stop), Arc::clone(&writes));
        threads.push(std::thread::spawn(move || {
            let (mut s, c) = session(&conn);
            let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ (t + 1);
            while !stop.load(Ordering::Relaxed) {
                s.begin_transaction(None).expect("begin");
                let mut ok = true;
                for _ in 0..4 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    set(&mut s, c, x % ROWS, Some(x));
                    if s.update(c).is_err() {
                        ok = false; // WT_ROLLBACK: the other writer has the key
                        break;
                    }
                }
                if ok {
                    s.commit_transaction(None).expect("commit");
                    writes.fetch_add(4, Ordering::Relaxed);
                } else {
                    s.rollback_transaction(None).expect("rollback");
                }
            }
        }));
    }
    {
        let (conn, stop) = (Arc::clone(&conn), Arc::clone(&stop));
        threads.push(std::thread::spawn(move || {
            let (mut s, c) = session(&conn);
            let mut k = 0;
            while !stop.load(Ordering::Relaxed) {
                s.begin_transaction(None).expect("begin");
                set(&mut s, c, k % ROWS, None);
                s.search(c).expect("a row");
                s.commit_transaction(None).expect("commit");
                s.reset_cursor(c);
                k += 7;
                std::thread::sleep(Duration::from_millis(1));
            }
        }));
    }
    let start = Instant::now();
    for second in 1..=seconds {
        std::thread::sleep(Duration::from_secs(second).saturating_sub(start.elapsed()));
        let stats = s.cursor(c).table().index().version_stats();
        println!(
            "t={second:>3}s  writes={:>10}  keys={}  versions={}  version bytes={} ({:.1} per key)",
            writes.load(Ordering::Relaxed),
            stats.slots,
            stats.versions,
            stats.bytes,
            stats.bytes as f64 / stats.slots as f64
        );
    }
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().expect("worker");
    }
}
