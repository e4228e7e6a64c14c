//! Transactions through the session API: visibility at each isolation level, conflicts,
//! rollback, the failed-transaction rules, counters, reclamation, and a multi-threaded bank
//! whose total must never change.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use crate::conn::Connection;
use crate::error::{Kind, Result};
use crate::session::{CursorId, Session};

/// A fresh in-memory database in its own directory (a home can be open once per process).
fn database() -> Connection {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "unlatched-txn-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("create the test home");
    Connection::open(dir.to_str(), Some("create,in_memory=true")).expect("open")
}

/// A session with one cursor on `table:t` (raw byte keys and values).
struct S {
    s: Session,
    c: CursorId,
}

impl S {
    fn new(conn: &Connection) -> S {
        Self::with_config(conn, None)
    }

    fn with_config(conn: &Connection, config: Option<&str>) -> S {
        let mut s = Session::open(conn, conn.slots().claim().expect("a free slot"), config).expect("session");
        s.create(conn, "table:t", Some("key_format=u,value_format=u")).expect("create");
        let c = s.open_cursor(conn, "table:t", None).expect("cursor").id;
        S { s, c }
    }

    fn key(&mut self, k: &str) {
        self.s.set_key_with(self.c, |_, buf| {
            buf.extend_from_slice(k.as_bytes());
            Ok(())
        });
    }

    fn value(&mut self, v: &str) {
        self.s.set_value_with(self.c, |_, buf| {
            buf.extend_from_slice(v.as_bytes());
            Ok(())
        });
    }

    fn get(&mut self, k: &str) -> Result<Option<String>> {
        self.key(k);
        match self.s.search(self.c) {
            Ok(()) => Ok(Some(self.current_value())),
            Err(e) if e.kind() == Kind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn current_value(&self) -> String {
        String::from_utf8(self.s.cursor(self.c).value_bytes().expect("a value").to_vec()).unwrap()
    }

    fn put(&mut self, k: &str, v: &str) -> Result<()> {
        self.key(k);
        self.value(v);
        self.s.update(self.c)
    }

    fn insert_new(&mut self, k: &str, v: &str) -> Result<()> {
        self.s.reconfigure_cursor(self.c, Some("overwrite=false"))?;
        self.key(k);
        self.value(v);
        let out = self.s.insert(self.c);
        self.s.reconfigure_cursor(self.c, Some("overwrite=true"))?;
        out
    }

    fn del(&mut self, k: &str) -> Result<()> {
        self.key(k);
        self.s.remove(self.c)
    }

    fn scan(&mut self) -> Vec<String> {
        self.s.reset_cursor(self.c);
        let mut keys = Vec::new();
        while self.s.next(self.c).is_ok() {
            keys.push(String::from_utf8(self.s.cursor(self.c).key_bytes().unwrap().to_vec()).unwrap());
        }
        keys
    }

    fn begin(&mut self, config: Option<&str>) {
        self.s.begin_transaction(config).expect("begin");
    }

    fn commit(&mut self) -> Result<()> {
        self.s.commit_transaction(None)
    }

    fn rollback(&mut self) {
        self.s.rollback_transaction(None).expect("rollback");
    }
}

fn kind<T: std::fmt::Debug>(r: Result<T>) -> Kind {
    r.expect_err("an error").kind()
}

#[test]
fn snapshot_sees_exactly_what_committed_before_begin() {
    let conn = database();
    let (mut a, mut b) = (S::new(&conn), S::new(&conn));
    a.put("k", "v1").unwrap();
    b.begin(None);
    a.put("k", "v2").unwrap();
    a.put("new", "x").unwrap();
    a.begin(None);
    a.del("k").unwrap();
    a.commit().unwrap();
    // b's snapshot was taken at begin: none of the later commits.
    assert_eq!(b.get("k").unwrap().as_deref(), Some("v1"));
    assert_eq!(b.get("new").unwrap(), None);
    assert_eq!(b.scan(), vec!["k"]);
    b.commit().unwrap();
    assert_eq!(b.get("k").unwrap(), None);
    assert_eq!(b.get("new").unwrap().as_deref(), Some("x"));
}

#[test]
fn own_writes_are_visible_to_the_writer_only() {
    let conn = database();
    let (mut a, mut b) = (S::new(&conn), S::new(&conn));
    a.put("k", "old").unwrap();
    a.begin(None);
    a.put("k", "mine").unwrap();
    a.put("n", "new").unwrap();
    a.del("k").unwrap();
    assert_eq!(a.get("k").unwrap(), None);
    a.put("k", "again").unwrap();
    assert_eq!(a.get("k").unwrap().as_deref(), Some("again"));
    assert_eq!(kind(a.insert_new("n", "dup")), Kind::DuplicateKey);
    assert_eq!(b.get("k").unwrap().as_deref(), Some("old"));
    assert_eq!(b.get("n").unwrap(), None);
    a.commit().unwrap();
    assert_eq!(b.get("k").unwrap().as_deref(), Some("again"));
    assert_eq!(b.get("n").unwrap().as_deref(), Some("new"));
}

#[test]
fn isolation_levels_against_a_running_writer() {
    let conn = database();
    let mut w = S::new(&conn);
    w.put("k", "committed").unwrap();
    w.begin(None);
    w.put("k", "dirty").unwrap();
    w.put("fresh", "dirty").unwrap();

    let mut ru = S::new(&conn);
    ru.begin(Some("isolation=read-uncommitted"));
    assert_eq!(ru.get("k").unwrap().as_deref(), Some("dirty"));
    assert_eq!(ru.get("fresh").unwrap().as_deref(), Some("dirty"));
    // Writes are refused below snapshot isolation, after the existence checks.
    assert_eq!(kind(ru.put("k", "x")), Kind::NotSupported);
    ru.rollback();

    let mut rc = S::new(&conn);
    rc.begin(Some("isolation=read-committed"));
    assert_eq!(rc.get("k").unwrap().as_deref(), Some("committed"));
    let mut snap = S::new(&conn);
    snap.begin(None);
    assert_eq!(snap.get("k").unwrap().as_deref(), Some("committed"));
    w.commit().unwrap();
    // Read-committed sees the commit at its next search; snapshot does not.
    assert_eq!(rc.get("k").unwrap().as_deref(), Some("dirty"));
    assert_eq!(rc.get("fresh").unwrap().as_deref(), Some("dirty"));
    assert_eq!(snap.get("k").unwrap().as_deref(), Some("committed"));
    assert_eq!(snap.get("fresh").unwrap(), None);
    rc.commit().unwrap();
    snap.commit().unwrap();

    // Session isolation applies to auto-commit operations too.
    let mut sess_ru = S::with_config(&conn, Some("isolation=read-uncommitted"));
    assert_eq!(kind(sess_ru.put("k", "x")), Kind::NotSupported);
    w.begin(None);
    w.put("k", "dirty2").unwrap();
    assert_eq!(sess_ru.get("k").unwrap().as_deref(), Some("dirty2"));
    w.rollback();
    assert_eq!(sess_ru.get("k").unwrap().as_deref(), Some("dirty"));
}

#[test]
fn write_write_conflicts_roll_the_second_writer_back() {
    let conn = database();
    let (mut a, mut b) = (S::new(&conn), S::new(&conn));
    a.put("k", "v0").unwrap();
    a.put("gone", "v0").unwrap();

    // Both running: the second writer of a key conflicts; the first's value wins.
    a.begin(None);
    b.begin(None);
    a.put("k", "a").unwrap();
    assert_eq!(kind(b.put("k", "b")), Kind::Rollback);
    assert_eq!(kind(b.del("k")), Kind::Rollback);
    // The snapshot sees k: a duplicate before a conflict, as in the reference (TESTING.md).
    assert_eq!(kind(b.insert_new("k", "b")), Kind::DuplicateKey);
    // The doomed transaction still reads its snapshot and writes other keys.
    assert_eq!(b.get("k").unwrap().as_deref(), Some("v0"));
    b.put("other", "b").unwrap();
    assert_eq!(b.get("other").unwrap().as_deref(), Some("b"));
    let err = b.commit().unwrap_err();
    assert_eq!(err.kind(), Kind::Invalid);
    assert_eq!(
        err.messages().next(),
        Some("failed  transaction requires rollback: conflict between concurrent operations")
    );
    assert_eq!(b.s.rollback_reason(), Some("conflict between concurrent operations"));
    a.commit().unwrap();
    assert_eq!(b.get("k").unwrap().as_deref(), Some("a"));
    assert_eq!(b.get("other").unwrap(), None, "a failed commit discards every write");

    // Committed after the snapshot: also a conflict, including a committed removal.
    b.begin(None);
    a.put("k", "after").unwrap();
    a.del("gone").unwrap();
    assert_eq!(kind(b.put("k", "b")), Kind::Rollback);
    assert_eq!(kind(b.insert_new("gone", "b")), Kind::DuplicateKey);
    assert_eq!(kind(b.put("gone", "b")), Kind::Rollback);
    b.rollback();
    assert_eq!(b.s.txn_stats().txn_update_conflict, 4);

    // Different keys never conflict.
    a.begin(None);
    b.begin(None);
    a.put("x", "a").unwrap();
    b.put("y", "b").unwrap();
    a.commit().unwrap();
    b.commit().unwrap();
    assert_eq!(a.get("y").unwrap().as_deref(), Some("b"));
}

#[test]
fn rollback_discards_every_write_and_resets_cursors() {
    let conn = database();
    let mut a = S::new(&conn);
    a.put("keep", "v").unwrap();
    let before = conn_tables_slots(&mut a);
    a.begin(None);
    a.put("keep", "changed").unwrap();
    for i in 0..20 {
        a.put(&format!("n{i:02}"), "x").unwrap();
    }
    a.del("keep").unwrap();
    assert_eq!(a.get("n05").unwrap().as_deref(), Some("x"));
    assert!(a.s.cursor(a.c).is_positioned());
    a.rollback();
    assert!(!a.s.cursor(a.c).is_positioned());
    assert!(a.s.cursor(a.c).key_bytes().is_err(), "rollback resets the cursors");
    assert_eq!(a.get("keep").unwrap().as_deref(), Some("v"));
    assert_eq!(a.scan(), vec!["keep"]);
    // Keys the transaction created leave the index again.
    assert_eq!(conn_tables_slots(&mut a), before);
    // Nothing to roll back outside a transaction.
    assert_eq!(kind(a.s.rollback_transaction(None)), Kind::Invalid);
    assert_eq!(kind(a.s.commit_transaction(None)), Kind::Invalid);
}

/// Slots in the index of `table:t` (through a cursor's table).
fn conn_tables_slots(s: &mut S) -> usize {
    s.s.cursor(s.c).table().index().version_stats().slots
}

#[test]
fn which_errors_doom_a_transaction() {
    let conn = database();
    let mut a = S::new(&conn);
    a.put("k", "v").unwrap();
    // WT_NOTFOUND and WT_DUPLICATE_KEY do not doom.
    a.begin(None);
    assert_eq!(a.get("missing").unwrap(), None);
    assert_eq!(kind(a.insert_new("k", "dup")), Kind::DuplicateKey);
    a.put("k", "v2").unwrap();
    a.commit().unwrap();
    // Any other error does: a writer can then only roll back...
    a.begin(None);
    a.put("k", "v3").unwrap();
    assert_eq!(kind(a.s.begin_transaction(None)), Kind::Invalid);
    let err = a.commit().unwrap_err();
    assert_eq!(err.messages().next(), Some("failed  transaction requires rollback"));
    assert_eq!(a.get("k").unwrap().as_deref(), Some("v2"));
    // ...while a reader still commits.
    a.begin(None);
    assert_eq!(kind(a.s.reset()), Kind::Invalid);
    a.commit().unwrap();
}

#[test]
fn counters_follow_the_reference_rules() {
    let conn = database();
    let mut a = S::new(&conn);
    let mut b = S::new(&conn);
    a.put("k", "v").unwrap(); // auto-commit: no counter
    a.begin(None);
    let _ = a.s.begin_transaction(None); // counted, fails
    let _ = a.commit(); // counted, "failed transaction requires rollback"? (no writes: commits)
    let _ = a.s.commit_transaction(None); // counted, no transaction
    let _ = a.s.commit_transaction(Some("bogus=1")); // invalid config: not counted
    let _ = a.s.rollback_transaction(None); // counted, fails
    a.begin(None);
    b.begin(None);
    a.put("k", "a").unwrap();
    let _ = b.put("k", "b"); // conflict
    b.rollback();
    a.rollback();
    let st = a.s.txn_stats();
    assert_eq!((st.txn_begin, st.txn_commit, st.txn_rollback, st.txn_update_conflict), (3, 2, 2, 0));
    let st = b.s.txn_stats();
    assert_eq!((st.txn_begin, st.txn_commit, st.txn_rollback, st.txn_update_conflict), (1, 0, 1, 1));
}

#[test]
fn auto_commit_write_waits_for_the_running_writer() {
    let conn = Arc::new(database());
    let mut a = S::new(&conn);
    a.put("k", "v0").unwrap();
    a.begin(None);
    a.put("k", "txn").unwrap();
    let (attempting, done) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let writer = {
        let (conn, attempting, done) = (Arc::clone(&conn), Arc::clone(&attempting), Arc::clone(&done));
        std::thread::spawn(move || {
            let mut b = S::new(&conn);
            attempting.store(true, Ordering::SeqCst);
            b.put("k", "auto").unwrap();
            done.store(true, Ordering::SeqCst);
            b.s.txn_stats().autocommit_update_retry
        })
    };
    while !attempting.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    std::thread::sleep(Duration::from_millis(50));
    assert!(!done.load(Ordering::SeqCst), "the auto-commit write waits for the running transaction");
    a.commit().unwrap();
    let retries = writer.join().unwrap();
    assert!(retries > 0);
    assert_eq!(a.get("k").unwrap().as_deref(), Some("auto"));
}

#[test]
fn closing_a_session_rolls_its_transaction_back() {
    let conn = database();
    let mut a = S::new(&conn);
    a.put("k", "v").unwrap();
    {
        let mut b = S::new(&conn);
        b.begin(None);
        b.put("k", "lost").unwrap();
        b.put("new", "lost").unwrap();
    }
    assert_eq!(a.get("k").unwrap().as_deref(), Some("v"));
    assert_eq!(a.get("new").unwrap(), None);
    // Its slot (and published snapshot) are free again: a writer is not held up.
    a.put("k", "w").unwrap();
}

#[test]
fn reset_snapshot_and_pinned_range() {
    let conn = database();
    let (mut a, mut b) = (S::new(&conn), S::new(&conn));
    a.put("k", "v1").unwrap();
    b.begin(None);
    assert_eq!(b.s.transaction_pinned_range(), 0);
    a.put("k", "v2").unwrap();
    a.put("k", "v3").unwrap();
    assert_eq!(b.s.transaction_pinned_range(), 2);
    assert_eq!(b.get("k").unwrap().as_deref(), Some("v1"));
    b.s.reset_snapshot().unwrap();
    assert_eq!(b.get("k").unwrap().as_deref(), Some("v3"));
    b.put("x", "y").unwrap();
    assert_eq!(kind(b.s.reset_snapshot()), Kind::NotSupported);
    b.rollback();
    b.begin(Some("isolation=read-committed"));
    assert_eq!(kind(b.s.reset_snapshot()), Kind::NotSupported);
    b.rollback();
}

#[test]
fn history_is_reclaimed_once_no_snapshot_needs_it() {
    let conn = database();
    let mut w = S::new(&conn);
    let mut r = S::new(&conn);
    let keys = 16;
    let rounds = if cfg!(miri) { 20 } else { 400 };
    for round in 0..rounds {
        w.begin(None);
        for k in 0..keys {
            w.put(&format!("k{k}"), &format!("{round}")).unwrap();
        }
        w.commit().unwrap();
    }
    w.s.reclaim_now();
    let stats = w.s.cursor(w.c).table().index().version_stats();
    assert_eq!(stats.slots, keys);
    assert!(stats.versions <= 2 * keys, "history kept without readers: {stats:?}");

    // A running snapshot keeps what it can see, however many updates follow...
    r.begin(None);
    assert_eq!(r.get("k3").unwrap().as_deref(), Some(&*format!("{}", rounds - 1)));
    for round in 0..50 {
        w.begin(None);
        for k in 0..keys {
            w.put(&format!("k{k}"), &format!("late{round}")).unwrap();
        }
        w.commit().unwrap();
    }
    w.s.reclaim_now();
    assert_eq!(r.get("k3").unwrap().as_deref(), Some(&*format!("{}", rounds - 1)));
    // ...and once it ends, the history goes.
    r.commit().unwrap();
    r.s.reset_cursor(r.c);
    w.s.reset_cursor(w.c);
    w.s.reclaim_now();
    let stats = w.s.cursor(w.c).table().index().version_stats();
    assert!(stats.versions <= 2 * keys, "history kept after the reader left: {stats:?}");

    // Removed keys leave the index once every reader sees them removed.
    for k in 0..keys {
        w.del(&format!("k{k}")).unwrap();
    }
    w.s.reclaim_now();
    assert_eq!(w.s.cursor(w.c).table().index().version_stats().slots, 0);
}

#[test]
fn auto_commit_inserts_of_new_keys_keep_history_reclaimable() {
    // A new key's auto-commit insert keeps no log entry (nothing to prune, nothing to roll
    // back): the updates after it must still keep what a reader needs, and let it go after.
    let conn = database();
    let mut w = S::new(&conn);
    let mut r = S::new(&conn);
    let keys = 32;
    for k in 0..keys {
        w.put(&format!("k{k:02}"), "first").unwrap();
    }
    r.begin(None);
    assert_eq!(r.get("k07").unwrap().as_deref(), Some("first"));
    for round in 0..20 {
        for k in 0..keys {
            w.put(&format!("k{k:02}"), &format!("u{round}")).unwrap();
        }
    }
    w.s.reclaim_now();
    assert_eq!(r.get("k07").unwrap().as_deref(), Some("first"), "a snapshot lost its version");
    r.commit().unwrap();
    r.s.reset_cursor(r.c);
    w.s.reset_cursor(w.c);
    w.s.reclaim_now();
    let stats = w.s.cursor(w.c).table().index().version_stats();
    assert_eq!(stats.slots, keys);
    assert!(stats.versions <= 2 * keys, "history kept after the reader left: {stats:?}");
    assert_eq!(w.get("k31").unwrap().as_deref(), Some("u19"));
    // Keys inserted and removed without any update between still leave the index.
    for k in 0..keys {
        w.put(&format!("n{k:02}"), "x").unwrap();
        w.del(&format!("n{k:02}")).unwrap();
    }
    w.s.reclaim_now();
    assert_eq!(w.s.cursor(w.c).table().index().version_stats().slots, keys);
}

/// The bank: `accounts` accounts, `threads` threads moving money between random accounts in
/// snapshot transactions (retried on `WT_ROLLBACK`), others summing every account inside one
/// snapshot. Every sum must equal the initial total: a torn commit, a lost update or a snapshot
/// that saw part of a transaction would change it.
fn bank(threads: usize, accounts: u64, duration: Duration) -> (u64, u64, u64) {
    const START: i64 = 1_000;
    let conn = Arc::new(database());
    {
        let mut s = S::new(&conn);
        for a in 0..accounts {
            s.put(&format!("acct{a:04}"), &START.to_string()).unwrap();
        }
    }
    let stop = Arc::new(AtomicBool::new(false));
    let transfers = Arc::new(AtomicU64::new(0));
    let sums = Arc::new(AtomicU64::new(0));
    let conflicts = Arc::new(AtomicU64::new(0));
    let barrier = Arc::new(Barrier::new(threads + 1));
    let total = START * accounts as i64;
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (conn, stop, transfers, sums, conflicts, barrier) = (
                Arc::clone(&conn),
                Arc::clone(&stop),
                Arc::clone(&transfers),
                Arc::clone(&sums),
                Arc::clone(&conflicts),
                Arc::clone(&barrier),
            );
            std::thread::spawn(move || {
                let mut s = S::new(&conn);
                let mut seed = t as u64 + 1;
                let mut below = |n: u64| {
                    // splitmix64
                    seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
                    let mut z = seed;
                    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                    (z ^ (z >> 31)) % n
                };
                barrier.wait();
                while !stop.load(Ordering::Relaxed) {
                    if t % 3 == 2 {
                        // An auditor: one snapshot, every account.
                        s.begin(None);
                        let mut sum = 0i64;
                        for a in 0..accounts {
                            sum += s.get(&format!("acct{a:04}")).unwrap().unwrap().parse::<i64>().unwrap();
                        }
                        s.commit().unwrap();
                        assert_eq!(sum, total, "a snapshot saw a torn state");
                        sums.fetch_add(1, Ordering::Relaxed);
                        continue;
                    }
                    let from = format!("acct{:04}", below(accounts));
                    let to = format!("acct{:04}", below(accounts));
                    let amount = below(50) as i64;
                    s.begin(None);
                    let moved = (|| -> Result<()> {
                        let f: i64 = s.get(&from)?.unwrap().parse().unwrap();
                        s.put(&from, &(f - amount).to_string())?;
                        let t: i64 = s.get(&to)?.unwrap().parse().unwrap();
                        s.put(&to, &(t + amount).to_string())
                    })();
                    match moved {
                        Ok(()) => {
                            s.commit().unwrap();
                            transfers.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => {
                            assert_eq!(e.kind(), Kind::Rollback);
                            s.rollback();
                            conflicts.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            })
        })
        .collect();
    barrier.wait();
    let start = Instant::now();
    while start.elapsed() < duration {
        std::thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    let mut s = S::new(&conn);
    let sum: i64 = (0..accounts).map(|a| s.get(&format!("acct{a:04}")).unwrap().unwrap().parse::<i64>().unwrap()).sum();
    assert_eq!(sum, total);
    (transfers.load(Ordering::Relaxed), sums.load(Ordering::Relaxed), conflicts.load(Ordering::Relaxed))
}

#[test]
fn bank_transfers_conserve_the_total() {
    let (transfers, sums, _) = bank(6, 8, Duration::from_millis(if cfg!(miri) { 50 } else { 1500 }));
    assert!(transfers > 0 && sums > 0, "{transfers} transfers, {sums} audits");
}

/// The long variant: `UNLATCHED_BANK_SECS` seconds (default 30), e.g.
/// `UNLATCHED_BANK_SECS=120 cargo test --release --lib -- --ignored bank_long --nocapture`.
#[test]
#[ignore = "long: run with --ignored (UNLATCHED_BANK_SECS sets the duration)"]
fn bank_long() {
    let secs = std::env::var("UNLATCHED_BANK_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let threads = std::env::var("UNLATCHED_BANK_THREADS").ok().and_then(|s| s.parse().ok()).unwrap_or(8);
    let (transfers, sums, conflicts) = bank(threads, 32, Duration::from_secs(secs));
    println!("bank: {transfers} transfers, {conflicts} conflicts, {sums} audits in {secs} s, total conserved");
}

/// A session on `table:ts`, a table that takes timestamps (in memory: `log=(enabled=false)`).
fn timestamped(conn: &Connection) -> S {
    let mut s = Session::open(conn, conn.slots().claim().expect("a free slot"), None).expect("session");
    s.create(conn, "table:ts", Some("key_format=u,value_format=u,log=(enabled=false)")).expect("create");
    let c = s.open_cursor(conn, "table:ts", None).expect("cursor").id;
    S { s, c }
}

#[test]
fn timestamped_history_stays_until_the_oldest_timestamp_passes_it() {
    let conn = database();
    let mut w = timestamped(&conn);
    let mut r = timestamped(&conn);
    let keys = 8;
    let rounds = if cfg!(miri) { 10 } else { 200 };
    for round in 1..=rounds {
        w.begin(None);
        for k in 0..keys {
            w.put(&format!("k{k}"), &format!("{round}")).unwrap();
        }
        w.s.commit_transaction(Some(&format!("commit_timestamp={round:x}"))).unwrap();
    }
    // No oldest timestamp: every version may still be read at its timestamp.
    w.s.reclaim_now();
    let stats = w.s.cursor(w.c).table().index().version_stats();
    assert_eq!(stats.versions, keys * rounds, "{stats:?}");
    r.begin(Some("read_timestamp=5"));
    assert_eq!(r.get("k1").unwrap().as_deref(), Some("5"));
    r.rollback();
    // A reader at an old timestamp pins it even once the oldest timestamp moves past.
    conn.set_timestamp(Some("oldest_timestamp=a,stable_timestamp=a")).unwrap();
    r.begin(Some("read_timestamp=a"));
    conn.set_timestamp(Some(&format!("oldest_timestamp={rounds:x},stable_timestamp={rounds:x}"))).unwrap();
    assert_eq!(conn.query_timestamp(Some("get=pinned")).unwrap(), "a");
    assert_eq!(conn.query_timestamp(Some("get=oldest_reader")).unwrap(), "a");
    w.begin(None);
    w.put("k0", "late").unwrap();
    w.s.commit_transaction(Some(&format!("commit_timestamp={:x}", rounds + 1))).unwrap();
    w.s.reclaim_now();
    assert_eq!(r.get("k3").unwrap().as_deref(), Some("10"));
    let kept = w.s.cursor(w.c).table().index().version_stats().versions;
    assert!(kept >= keys * (rounds - 10), "history below the reader's timestamp went early: {kept}");
    r.rollback();
    assert_eq!(conn.query_timestamp(Some("get=pinned")).unwrap(), format!("{rounds:x}"));
    // Once the reader is gone, the history the oldest timestamp covers goes.
    for k in 0..keys {
        w.begin(None);
        w.put(&format!("k{k}"), "final").unwrap();
        w.s.commit_transaction(Some(&format!("commit_timestamp={:x}", rounds + 2))).unwrap();
    }
    w.s.reclaim_now();
    let stats = w.s.cursor(w.c).table().index().version_stats();
    assert!(stats.versions <= 3 * keys, "history kept behind the oldest timestamp: {stats:?}");
    // A read timestamp older than the oldest is refused.
    assert_eq!(kind(r.s.begin_transaction(Some("read_timestamp=5"))), Kind::Invalid);
}

#[test]
fn a_closed_session_lets_go_of_a_dropped_table_it_only_rolled_back_in() {
    // Found by fuzzing (TESTING.md): a session kept for reuse held every table it had written
    // and rolled back in, so a create / failed write / drop / close loop kept each table alive.
    let conn = database();
    let mut w = S::new(&conn);
    w.s.create(&conn, "table:gone", Some("key_format=u,value_format=u")).unwrap();
    let table = conn.registry().get("gone").expect("created");
    let c = w.s.open_cursor(&conn, "table:gone", None).unwrap().id;
    w.begin(None);
    w.s.set_key_with(c, |_, buf| {
        buf.extend_from_slice(b"k");
        Ok(())
    });
    w.s.set_value_with(c, |_, buf| {
        buf.extend_from_slice(b"v");
        Ok(())
    });
    w.s.insert(c).unwrap();
    // An invalid commit configuration rolls the transaction back.
    assert_eq!(kind(w.s.commit_transaction(Some("sync=false"))), Kind::Invalid);
    w.s.close_cursor(c).unwrap();
    w.s.drop_object(&conn, "table:gone", None).unwrap();
    assert!(w.s.txn_logs_hold(&table), "the rolled-back write's log");
    w.s.park();
    assert!(!w.s.txn_logs_hold(&table), "a closed session's logs let the dropped table go");
}
