//! Timestamps on disk: checkpoints hold what is stable (without a journal), readers at older
//! read timestamps keep their values across the merges checkpoints and eviction make, a crash
//! comes back to the last checkpoint's stable timestamp, and a journal replays everything.

use crate::error::Kind;

use super::tests::{crash, home, open, S};

/// Commits `writes` at application timestamp `ts` (hexadecimal).
fn commit_at(t: &mut S, ts: u64, writes: &[(&str, &str)]) {
    t.txn(Some(&format!("commit_timestamp={ts:x}")), writes).expect("commit");
}

fn keys(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("key{i:05}")).collect()
}

#[test]
fn readers_at_old_timestamps_keep_their_values_across_checkpoints_and_merges() {
    let dir = home();
    // A small cache: writers merge into the tree as they go, beside the checkpoints.
    let conn = open(&dir, "create,cache_size=1MB").unwrap();
    let mut w = S::new(&conn, "t");
    let mut r = S::new(&conn, "t");
    conn.set_timestamp(Some("oldest_timestamp=1,stable_timestamp=1")).unwrap();
    let keys = keys(400);
    let round = |w: &mut S, n: u64, keys: &[String]| {
        for chunk in keys.chunks(50) {
            let value = format!("round{n}");
            let writes: Vec<(&str, &str)> = chunk.iter().map(|k| (k.as_str(), value.as_str())).collect();
            commit_at(w, 10 * n, &writes);
        }
    };
    round(&mut w, 1, &keys);
    // Round 1 goes into the tree and leaves the index (every reader sees it): later rounds
    // start new chains over the tree's values.
    conn.set_timestamp(Some("oldest_timestamp=a,stable_timestamp=a")).unwrap();
    w.s.checkpoint(&conn, None).unwrap();
    // The reader reads as of round 1 from now on.
    r.s.begin_transaction(Some("read_timestamp=f")).unwrap();
    for n in 2..=5 {
        round(&mut w, n, &keys[..300]);
        if n == 3 {
            commit_at(&mut w, 31, &[("fresh", "new")]);
        }
        if n == 4 {
            w.s.begin_transaction(None).unwrap();
            for k in &keys[..100] {
                w.remove(k).unwrap();
            }
            w.s.commit_transaction(Some("commit_timestamp=2a")).unwrap();
        }
        // The stable timestamp passes the reader's: the checkpoint carries versions it must
        // not see into the tree.
        conn.set_timestamp(Some(&format!("stable_timestamp={:x}", 10 * n))).unwrap();
        w.s.checkpoint(&conn, None).unwrap();
        for k in &keys {
            assert_eq!(r.get(k).as_deref(), Some("round1"), "{k} after round {n}");
        }
        assert_eq!(r.get("fresh"), None);
    }
    r.s.rollback_transaction(None).unwrap();
    assert_eq!(w.get(&keys[0]).as_deref(), Some("round5"), "removed at 2a, written again in round 5");
    assert_eq!(w.get(&keys[150]).as_deref(), Some("round5"));
    assert_eq!(w.get(&keys[350]).as_deref(), Some("round1"));
    // Reads at each round's timestamp.
    for (ts, k, want) in [(0x13, 0, Some("round1")), (0x14, 0, Some("round2")), (0x29, 0, Some("round4")), (0x2a, 0, None), (0x31, 0, None), (0x32, 0, Some("round5")), (0x32, 350, Some("round1"))] {
        r.s.begin_transaction(Some(&format!("read_timestamp={ts:x}"))).unwrap();
        assert_eq!(r.get(&keys[k]).as_deref(), want, "{} at {ts:x}", keys[k]);
        r.s.rollback_transaction(None).unwrap();
    }
}

#[test]
fn without_a_journal_a_crash_comes_back_to_the_last_checkpoints_stable_timestamp() {
    let dir = home();
    let conn = open(&dir, "create").unwrap();
    let mut t = S::new(&conn, "t");
    conn.set_timestamp(Some("oldest_timestamp=1,stable_timestamp=1")).unwrap();
    for i in 1..=100u64 {
        commit_at(&mut t, i + 1, &[(&format!("k{i:03}"), &format!("v{i}"))]);
    }
    t.txn(None, &[("plain", "no timestamp")]).unwrap();
    conn.set_timestamp(Some("stable_timestamp=33")).unwrap(); // 51
    t.s.checkpoint(&conn, None).unwrap();
    for i in 101..=150u64 {
        commit_at(&mut t, i + 1, &[(&format!("k{i:03}"), &format!("v{i}"))]);
    }
    conn.set_timestamp(Some("stable_timestamp=78")).unwrap(); // 120: no checkpoint took it
    drop(t);
    crash(conn);
    let conn = open(&dir, "").unwrap();
    assert_eq!(conn.query_timestamp(Some("get=recovery")).unwrap(), "33");
    assert_eq!(conn.query_timestamp(Some("get=stable")).unwrap(), "33");
    assert_eq!(conn.query_timestamp(Some("get=oldest")).unwrap(), "1");
    let mut t = S::new(&conn, "t");
    for i in 1..=150u64 {
        let want = (i + 1 <= 51).then(|| format!("v{i}"));
        assert_eq!(t.get(&format!("k{i:03}")), want, "k{i:03}");
    }
    assert_eq!(t.get("plain").as_deref(), Some("no timestamp"));
}

#[test]
fn with_a_journal_recovery_replays_every_commit_and_prepare_is_refused() {
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true)").unwrap();
    let mut t = S::new(&conn, "t");
    conn.set_timestamp(Some("oldest_timestamp=1,stable_timestamp=1")).unwrap();
    commit_at(&mut t, 5, &[("a", "5")]);
    commit_at(&mut t, 9, &[("a", "9")]);
    // Logged tables ignore timestamps, as in the reference: every read timestamp sees "9".
    t.s.begin_transaction(Some("read_timestamp=6")).unwrap();
    assert_eq!(t.get("a").as_deref(), Some("9"));
    t.s.rollback_transaction(None).unwrap();
    t.s.begin_transaction(None).unwrap();
    t.put("b", "prepared?").unwrap();
    let e = t.s.prepare_transaction(Some("prepare_timestamp=10")).unwrap_err();
    assert_eq!(e.kind(), Kind::Invalid);
    assert_eq!(e.messages().next(), Some("a prepared transaction cannot include a logged table"));
    t.s.rollback_transaction(None).unwrap();
    t.s.checkpoint(&conn, None).unwrap();
    commit_at(&mut t, 0x20, &[("c", "20")]);
    drop(t);
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut t = S::new(&conn, "t");
    assert_eq!(t.get("a").as_deref(), Some("9"));
    assert_eq!(t.get("c").as_deref(), Some("20"), "the journal replays commits after stable");
    assert_eq!(conn.query_timestamp(Some("get=recovery")).unwrap(), "1");
}

#[test]
fn rollback_to_stable_keeps_what_a_checkpoint_holds() {
    let dir = home();
    let conn = open(&dir, "create").unwrap();
    let mut t = S::new(&conn, "t");
    conn.set_timestamp(Some("oldest_timestamp=1,stable_timestamp=1")).unwrap();
    commit_at(&mut t, 0x10, &[("a", "10"), ("b", "10")]);
    conn.set_timestamp(Some("stable_timestamp=10")).unwrap();
    t.s.checkpoint(&conn, None).unwrap();
    commit_at(&mut t, 0x20, &[("a", "20"), ("c", "20")]);
    t.s.begin_transaction(None).unwrap();
    let e = conn.rollback_to_stable(None).unwrap_err();
    assert_eq!(e.kind(), Kind::Busy);
    t.s.rollback_transaction(None).unwrap();
    conn.rollback_to_stable(None).unwrap();
    assert_eq!(t.get("a").as_deref(), Some("10"));
    assert_eq!(t.get("b").as_deref(), Some("10"));
    assert_eq!(t.get("c"), None);
    assert_eq!(conn.query_timestamp(Some("get=all_durable")).unwrap(), "10");
}

#[test]
fn with_a_journal_a_table_without_logging_takes_timestamps_and_stays_out_of_the_journal() {
    use crate::session::Session;
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true)").unwrap();
    let mut logged = S::new(&conn, "logged");
    let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).unwrap();
    s.create(&conn, "table:u", Some("key_format=S,value_format=S,log=(enabled=false)")).unwrap();
    let c = s.open_cursor(&conn, "table:u", None).unwrap().id;
    let mut u = S { s, c };
    conn.set_timestamp(Some("oldest_timestamp=1,stable_timestamp=1")).unwrap();
    commit_at(&mut u, 5, &[("a", "5")]);
    commit_at(&mut u, 9, &[("a", "9")]);
    commit_at(&mut logged, 9, &[("a", "9")]);
    // The unlogged table reads at timestamps; the logged one ignores them.
    u.s.begin_transaction(Some("read_timestamp=6")).unwrap();
    assert_eq!(u.get("a").as_deref(), Some("5"));
    u.s.rollback_transaction(None).unwrap();
    logged.s.begin_transaction(Some("read_timestamp=6")).unwrap();
    assert_eq!(logged.get("a").as_deref(), Some("9"));
    logged.s.rollback_transaction(None).unwrap();
    // Prepare works on it (its writes are not in the journal).
    u.s.begin_transaction(None).unwrap();
    u.put("p", "prepared").unwrap();
    u.s.prepare_transaction(Some("prepare_timestamp=a")).unwrap();
    u.s.commit_transaction(Some("commit_timestamp=b,durable_timestamp=b")).unwrap();
    conn.set_timestamp(Some("stable_timestamp=7")).unwrap();
    u.s.checkpoint(&conn, None).unwrap();
    commit_at(&mut u, 0xc, &[("b", "c")]);
    commit_at(&mut logged, 0xc, &[("b", "c")]);
    drop((u, logged));
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    assert_eq!(conn.query_timestamp(Some("get=recovery")).unwrap(), "7");
    let mut logged = S::new(&conn, "logged");
    assert_eq!(logged.get("b").as_deref(), Some("c"), "the journal replays the logged table");
    let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).unwrap();
    let c = s.open_cursor(&conn, "table:u", None).unwrap().id;
    let mut u = S { s, c };
    assert_eq!(u.get("a").as_deref(), Some("5"), "the unlogged table comes back to stable");
    assert_eq!(u.get("p"), None);
    assert_eq!(u.get("b"), None);
    // Still unlogged, and taking timestamps, after the reopen.
    commit_at(&mut u, 0x20, &[("a", "20")]);
    u.s.begin_transaction(Some("read_timestamp=10")).unwrap();
    assert_eq!(u.get("a").as_deref(), Some("5"));
    u.s.rollback_transaction(None).unwrap();
}
