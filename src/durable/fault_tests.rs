//! Injected file-system failures ([`super::super::faults`]) during commits, checkpoints and
//! eviction, on a database larger than its cache: after each failure the engine reports it (an
//! error with a message) and keeps working, or refuses the writes it can no longer make
//! durable, never panics or hangs; and a reopen without failures finds every acknowledged
//! commit, no partial transaction and nothing that was not committed.
//!
//! Each run is one workload with one plan: a chosen call failed (every call of a kind, or a
//! sample of them), or seeded random calls failed (with short writes). The run ends with a
//! crash or a clean close (in turn), then the database is reopened and checked.
//! `UNLATCHED_FAULT_POINTS=all` runs every call of every kind, `UNLATCHED_FAULT_SEEDS=N` N
//! random seeds (a soak; figures in TESTING.md). Then: three committing threads beside
//! background checkpoints under random plans, the regression tests of the bugs the failures
//! found, and failures during recovery.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::time::Duration;

use super::super::faults::{Call, FaultCounts, Plan, ALL_CALLS};
use super::*;
use crate::error::Error;

/// Transactions per run; a checkpoint after every `CKPT_EVERY`-th.
const TXNS: u64 = 160;
const CKPT_EVERY: u64 = 80;
/// Keys of the shared table that transactions overwrite and remove.
const SHARED: u64 = 16;
/// Rows of the big table: `BIG_PER_TXN` values of `BIG_LEN` bytes per transaction, 2.4 MB in
/// all against a 1 MB cache, 1.2 MB between checkpoints: past the dirty trigger and the 1 MB
/// a table must grow by, the writer merges the table into its tree file between checkpoints
/// (eviction: 33 block writes before the first checkpoint).
const BIG_ROWS: u64 = 1200;
const BIG_LEN: usize = 2500;
const BIG_PER_TXN: u64 = 6;
/// The transaction before which a table is created (its metadata write can fail too).
const CREATE_AT: u64 = 50;

pub(super) const JOURNAL: &str = "create,cache_size=1MB,log=(enabled=true,file_max=100KB),transaction_sync=(enabled=true)";
pub(super) const NO_JOURNAL: &str = "create,cache_size=1MB";

fn mix(i: u64, j: u64) -> u64 {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (j + 1).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^ (x >> 29)
}

/// Transaction `i`'s writes: `(table, key, value or removal)`.
fn writes(i: u64) -> Vec<(&'static str, String, Option<String>)> {
    let mut out = Vec::new();
    for j in 0..2 {
        let k = format!("s{:02}", mix(i, j) % SHARED);
        out.push(("shared", k, (mix(i, j + 10) % 5 != 0).then(|| format!("{i}.{j}"))));
    }
    for r in 0..BIG_PER_TXN {
        let mut v = format!("{i}.{r}:");
        while v.len() < BIG_LEN {
            v.push((b'a' + (mix(i, r + v.len() as u64) % 26) as u8) as char);
        }
        out.push(("big", format!("b{:04}", (i * BIG_PER_TXN + r) % BIG_ROWS), Some(v)));
    }
    out.push(("shared", format!("m{i:05}"), Some(i.to_string())));
    out
}

/// Every table's rows after applying `txns` in order.
fn state_after(txns: impl Iterator<Item = u64>) -> BTreeMap<(&'static str, String), String> {
    let mut state = BTreeMap::new();
    for i in txns {
        for (t, k, v) in writes(i) {
            match v {
                Some(v) => state.insert((t, k), v),
                None => state.remove(&(t, k)),
            };
        }
    }
    state
}

/// A session with a cursor on each table (`S` keys and values).
struct W {
    s: Session,
    shared: CursorId,
    big: CursorId,
}

impl W {
    fn new(conn: &Connection) -> Result<W> {
        let mut s = Session::open(conn, conn.slots().claim().expect("a free slot"), None)?;
        let cursor = |s: &mut Session, name: &str| -> Result<CursorId> {
            let uri = format!("table:{name}");
            s.create(conn, &uri, Some("key_format=S,value_format=S"))?;
            Ok(s.open_cursor(conn, &uri, None)?.id)
        };
        let shared = cursor(&mut s, "shared")?;
        let big = cursor(&mut s, "big")?;
        Ok(W { s, shared, big })
    }

    fn cursor(&self, table: &str) -> CursorId {
        if table == "big" {
            self.big
        } else {
            self.shared
        }
    }

    fn set(&mut self, c: CursorId, k: &str, v: Option<&str>) -> Result<()> {
        let bytes = |s: &str| {
            let mut b = s.as_bytes().to_vec();
            b.push(0);
            b
        };
        let key = bytes(k);
        self.s.set_key_with(c, |_, buf| {
            buf.extend_from_slice(&key);
            Ok(())
        });
        match v {
            Some(v) => {
                let value = bytes(v);
                self.s.set_value_with(c, |_, buf| {
                    buf.extend_from_slice(&value);
                    Ok(())
                });
                self.s.update(c)
            }
            None => match self.s.remove(c) {
                Err(e) if e.kind() == Kind::NotFound => Ok(()),
                out => out,
            },
        }
    }

    /// Transaction `i`, committed with `sync=off` every fourth time.
    fn txn(&mut self, i: u64) -> Result<()> {
        self.s.begin_transaction(None)?;
        for (t, k, v) in writes(i) {
            if let Err(e) = self.set(self.cursor(t), &k, v.as_deref()) {
                self.s.rollback_transaction(None)?;
                return Err(e);
            }
        }
        self.s.commit_transaction(if i % 4 == 0 { Some("sync=off") } else { None })
    }

    /// Every row of both tables.
    fn scan(&mut self) -> BTreeMap<(&'static str, String), String> {
        let mut out = BTreeMap::new();
        for t in ["shared", "big"] {
            let c = self.cursor(t);
            self.s.reset_cursor(c);
            loop {
                match self.s.next(c) {
                    Ok(()) => {}
                    Err(e) if e.kind() == Kind::NotFound => break,
                    Err(e) => panic!("scan of {t}: {e}"),
                }
                let cur = self.s.cursor(c);
                let text = |b: &[u8]| String::from_utf8(b[..b.len() - 1].to_vec()).unwrap();
                out.insert((t, text(cur.key_bytes().unwrap())), text(cur.value_bytes().unwrap()));
            }
            self.s.reset_cursor(c);
        }
        out
    }
}

impl Drop for W {
    fn drop(&mut self) {
        self.s.park();
    }
}

/// What one run did.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    /// Transactions whose commit succeeded, and those whose commit failed.
    acked: Vec<u64>,
    pub(super) failed: Vec<u64>,
    /// Per checkpoint attempt: the last transaction before it, and whether it succeeded.
    pub(super) checkpoints: Vec<(u64, bool)>,
    /// Whether the table created mid-run was acknowledged.
    created: bool,
    /// Whether the run ended with a crash, or with a clean close that succeeded.
    crashed: bool,
    closed: bool,
    pub(super) counts: FaultCounts,
    pub(super) errors: Vec<String>,
}

/// Checks an error from a failed call: an error code with a message.
fn reported(e: &Error, out: &mut Outcome) {
    assert!(e.messages().next().is_some(), "an error without a message: {e:?}");
    out.errors.push(e.to_string());
}

/// Runs the workload in `dir` under `plan`; ends it with a crash or a clean close.
fn run(dir: &Path, config: &str, plan: Option<Plan>, crash_at_end: bool) -> Outcome {
    let conn = open(dir, config).expect("open");
    let mut out = Outcome::default();
    {
        let mut w = W::new(&conn).expect("tables");
        conn.durable().unwrap().inject_faults(plan);
        for i in 1..=TXNS {
            if i == CREATE_AT {
                match w.s.create(&conn, "table:extra", Some("key_format=S,value_format=S")) {
                    Ok(()) => out.created = true,
                    Err(e) => reported(&e, &mut out),
                }
            }
            match w.txn(i) {
                Ok(()) => out.acked.push(i),
                Err(e) => {
                    reported(&e, &mut out);
                    out.failed.push(i);
                }
            }
            if i % CKPT_EVERY == 0 {
                let ok = w.s.checkpoint(&conn, None).map_err(|e| reported(&e, &mut out)).is_ok();
                out.checkpoints.push((i, ok));
            }
        }
        out.counts = conn.durable().unwrap().inject_faults(None);
        // Still working: what this connection shows is exactly the acknowledged commits.
        assert_eq!(w.scan(), state_after(out.acked.iter().copied()), "the live state is the acknowledged commits");
    }
    if crash_at_end {
        out.crashed = true;
        crash(conn);
    } else {
        out.closed = conn.close().map_err(|e| reported(&e, &mut out)).is_ok();
        drop(conn);
    }
    out
}

/// Reopens `dir` without failures and checks what `out` promises is there.
fn check(dir: &Path, config: &str, out: &Outcome, what: &str) {
    let conn = open(dir, config).unwrap_or_else(|e| panic!("{what}: reopen: {e}"));
    let found = {
        let mut w = W::new(&conn).unwrap();
        let found = w.scan();
        // The transactions whose markers are there, applied in order, give every row: none is
        // partly there.
        let present: Vec<u64> = found
            .keys()
            .filter(|(t, k)| *t == "shared" && k.starts_with('m'))
            .map(|(_, k)| k[1..].parse().unwrap())
            .collect();
        assert_eq!(found, state_after(present.iter().copied()), "{what}: the rows are exactly those of transactions {present:?}");
        present
    };
    let journal = config.contains("log=(enabled=true");
    let attempted: Vec<u64> = (1..=TXNS).collect();
    if journal {
        // Acknowledged: every sync=on commit, and every commit before the last of them (a sync
        // covers the records before it); with a clean close, all of them. Present: committed,
        // or failed with its outcome unknown (a failed sync).
        let last_sync = out.acked.iter().rev().find(|&&i| i % 4 != 0).copied().unwrap_or(0);
        for &i in &out.acked {
            if i <= last_sync || out.closed {
                assert!(found.contains(&i), "{what}: acknowledged transaction {i} lost ({out:?})");
            }
        }
        // sync=off commits after the last sync may be lost, but only as a suffix of the commit
        // order: nothing after the first one lost is there.
        if let Some(first_lost) = out.acked.iter().find(|i| !found.contains(i)) {
            assert!(found.iter().all(|i| i < first_lost), "{what}: lost {first_lost} but kept later ones");
        }
    } else {
        // Without a journal: the state of a checkpoint, the last one that succeeded or one
        // tried after it (whose file may have landed); a clean close is the last checkpoint.
        // (Commits fail without a journal only when a read fails: those are absent.)
        let m = found.last().copied().unwrap_or(0);
        let prefix: Vec<u64> = attempted[..m as usize].iter().copied().filter(|i| !out.failed.contains(i)).collect();
        assert_eq!(found, prefix, "{what}: not a prefix");
        let last_ok = out.checkpoints.iter().rev().find(|c| c.1).map_or(0, |c| c.0);
        let mut possible: Vec<u64> = vec![last_ok];
        possible.extend(out.checkpoints.iter().filter(|c| c.0 > last_ok).map(|c| c.0));
        if out.closed {
            possible = vec![TXNS];
        } else if !out.crashed {
            possible.push(TXNS); // the final checkpoint of a close that failed after writing
        }
        // The last transaction a checkpoint after transaction `c` holds.
        let held = |c: u64| (1..=c).rev().find(|i| !out.failed.contains(i)).unwrap_or(0);
        assert!(possible.iter().any(|&c| held(c) == m), "{what}: state of transaction {m}, checkpoints {:?} ({out:?})", out.checkpoints);
    }
    for i in &found {
        assert!(out.acked.contains(i) || out.failed.contains(i), "{what}: {i} was never committed");
    }
    if out.created {
        assert!(conn.registry().get("extra").is_some(), "{what}: the created table is gone");
    }
    drop(conn);
}

/// One run under `plan` in a fresh home, with a watchdog: a hang fails the test.
pub(super) fn episode(config: &'static str, plan: Option<Plan>, crash_at_end: bool, what: String) -> Outcome {
    let name = what.clone();
    watched(&what, move || {
        let dir = home();
        let out = run(&dir, config, plan, crash_at_end);
        check(&dir, config, &out, &name);
        out
    })
}

/// Runs `f` on a thread of its own; a hang fails the test.
pub(super) fn watched<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(out) => out,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: hung"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: failed (see above)"),
    }
}

/// The points of a kind of call to fail: all of them with `UNLATCHED_FAULT_POINTS=all`, else
/// about `sample`, spread over the run.
pub(super) fn points(count: u64, sample: u64) -> Vec<u64> {
    if std::env::var("UNLATCHED_FAULT_POINTS").as_deref() == Ok("all") {
        return (1..=count).collect();
    }
    let step = (count / sample.max(1)).max(1);
    (1..=count).step_by(step as usize).collect()
}

/// Fails each chosen call of each kind in turn, once.
fn every_point(config: &'static str, sample: u64) -> (u64, u64) {
    let counted = episode(config, Some(Plan::at(ALL_CALLS, u64::MAX)), true, "counting".into());
    assert_eq!(counted.failed, Vec::<u64>::new());
    println!("{config}: {} calls without faults", counted.counts.counted);
    let mut runs = 0;
    let mut failures = 0;
    for call in [Call::Write, Call::Sync, Call::Rename, Call::Truncate] {
        let total = episode(config, Some(Plan::at(call as u8, u64::MAX)), true, "counting".into()).counts.counted;
        for (n, at) in points(total, sample).into_iter().enumerate() {
            let mut plan = Plan::at(call as u8, at);
            plan.short = n % 2 == 1;
            let what = format!("{config}: {call:?} #{at} of {total}");
            let out = episode(config, Some(plan), n % 2 == 1, what.clone());
            println!("{what}: {} failed commits, checkpoints {:?}, closed {}, errors {:?}", out.failed.len(), out.checkpoints, out.closed, out.errors.first());
            runs += 1;
            failures += out.counts.injected;
        }
    }
    println!("{config}: {runs} runs, {failures} faults injected");
    (runs, failures)
}

#[test]
fn a_failed_call_during_commits_checkpoints_or_eviction_loses_no_acknowledged_commit() {
    let (runs, injected) = every_point(JOURNAL, 10);
    assert!(runs >= 20 && injected >= 20, "{runs} runs, {injected} faults");
}

#[test]
fn without_a_journal_a_failed_call_leaves_a_checkpoint_state() {
    let (runs, injected) = every_point(NO_JOURNAL, 8);
    assert!(runs >= 15 && injected >= 15, "{runs} runs, {injected} faults");
}

#[test]
fn seeded_random_failures_and_short_writes_lose_no_acknowledged_commit() {
    let seeds: u64 = std::env::var("UNLATCHED_FAULT_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(6);
    let mut injected = 0;
    for seed in 0..seeds {
        let config = if seed % 3 == 2 { NO_JOURNAL } else { JOURNAL };
        let plan = Plan { short: true, ..Plan::random(ALL_CALLS, 40 + seed % 200, seed, 1 + seed % 4) };
        let out = episode(config, Some(plan), seed % 2 == 0, format!("seed {seed} ({config})"));
        println!("seed {seed}: {} faults, {} failed commits, checkpoints {:?}, errors {:?}", out.counts.injected, out.failed.len(), out.checkpoints, out.errors);
        injected += out.counts.injected;
    }
    println!("{seeds} seeds, {injected} faults injected");
    assert!(injected >= seeds, "{injected} faults over {seeds} seeds");
}


/// Sets rows `k0000..` of `s`'s table to values tagged `tag`: 1.5 MB, more than the 1 MB
/// cache, so the writer merges the table into its tree as it goes (replacing its pages).
fn fill(s: &mut S, tag: &str) {
    for i in 0..600 {
        s.put(&format!("k{i:04}"), &format!("{tag}:{i}:{}", "v".repeat(2500))).unwrap();
    }
}

/// Every row of `s`'s table holds the value `fill` gave it with `tag`.
fn filled(s: &mut S, tag: &str) -> bool {
    (0..600).all(|i| s.get(&format!("k{i:04}")) == Some(format!("{tag}:{i}:{}", "v".repeat(2500))))
}

/// A checkpoint whose file is in place can fail afterwards; the trees it recorded must keep
/// their blocks (a failure must not leave them treated as written after it, free to be
/// overwritten), whatever fails: here the tail trim of the first table.
#[test]
fn a_failed_trim_after_a_checkpoint_keeps_every_trees_checkpoint_blocks() {
    let dir = home();
    let conn = open(&dir, NO_JOURNAL).unwrap();
    let tag;
    {
        let mut a = S::new(&conn, "a");
        let mut b = S::new(&conn, "b");
        fill(&mut a, "a");
        a.s.checkpoint(&conn, None).unwrap();
        for i in 0..600 {
            a.remove(&format!("k{i:04}")).unwrap();
        }
        // The space `a` gave up reaches the end of its file after a checkpoint or two: fail the
        // trim then, after `b`'s pages were written by the same checkpoint.
        let mut attempt = 0;
        loop {
            attempt += 1;
            assert!(attempt < 8, "the tail of a's file was never trimmed");
            fill(&mut b, &format!("b{attempt}"));
            conn.durable().unwrap().inject_faults(Some(Plan::at(Call::Truncate as u8, 1)));
            let out = b.s.checkpoint(&conn, None);
            if conn.durable().unwrap().inject_faults(None).injected == 1 {
                let e = out.unwrap_err();
                assert!(e.to_string().contains("ftruncate"), "{e}");
                break;
            }
            out.unwrap();
        }
        tag = format!("b{attempt}");
        // Rewritten twice: blocks freed by the first rewrite are reused by the second.
        fill(&mut b, "after1");
        fill(&mut b, "after2");
        assert!(filled(&mut b, "after2"));
    }
    crash(conn);
    let conn = open(&dir, NO_JOURNAL).unwrap();
    let mut b = S::new(&conn, "b");
    assert!(filled(&mut b, &tag), "b holds its checkpoint's rows");
}

/// A checkpoint whose rename landed but whose directory sync failed may be the one a crash
/// finds: its blocks (and the previous checkpoint's) stay intact.
#[test]
fn a_checkpoint_whose_directory_sync_failed_keeps_its_blocks() {
    let dir = home();
    let conn = open(&dir, NO_JOURNAL).unwrap();
    {
        let mut b = S::new(&conn, "b");
        fill(&mut b, "b1");
        b.s.checkpoint(&conn, None).unwrap();
        fill(&mut b, "b2");
        // The syncs of a checkpoint without a journal: the tree's file, the new checkpoint
        // file, the directory after its rename.
        conn.durable().unwrap().inject_faults(Some(Plan::at(Call::Sync as u8, 3)));
        let e = b.s.checkpoint(&conn, None).unwrap_err();
        assert_eq!(conn.durable().unwrap().inject_faults(None).injected, 1);
        assert!(e.to_string().contains(&format!("{}: fsync", dir.display())), "{e}");
        fill(&mut b, "b3");
        fill(&mut b, "b4");
        assert!(filled(&mut b, "b4"));
    }
    crash(conn);
    let conn = open(&dir, NO_JOURNAL).unwrap();
    let mut b = S::new(&conn, "b");
    assert!(filled(&mut b, "b2"), "b holds the rows of the checkpoint whose file landed");
}

/// After a table file's sync failed, no checkpoint may vouch for its blocks: checkpoints fail
/// every time (with a message saying why), commits go on in the journal, and a reopen has
/// them all.
#[test]
fn a_failed_table_sync_refuses_later_checkpoints_and_commits_go_on() {
    // The checkpoint's syncs: the journal's new successor file and the directory, then the
    // table's file; fail each in turn until the table's is hit.
    for at in 1..=4 {
        let dir = home();
        let conn = open(&dir, "create,log=(enabled=true),transaction_sync=(enabled=true)").unwrap();
        {
            let mut a = S::new(&conn, "a");
            a.put("k1", "1").unwrap();
            conn.durable().unwrap().inject_faults(Some(Plan::at(Call::Sync as u8, at)));
            let failed = a.s.checkpoint(&conn, None).unwrap_err();
            conn.durable().unwrap().inject_faults(None);
            if !failed.to_string().contains("unlatched.table.1: fsync") {
                continue;
            }
            a.put("k2", "2").unwrap();
            for _ in 0..2 {
                let e = a.s.checkpoint(&conn, None).unwrap_err();
                assert!(e.to_string().contains("checkpoints are refused since a table file's sync failed"), "{e}");
            }
            a.txn(None, &[("k3", "3"), ("k1", "changed")]).unwrap();
        }
        assert!(conn.close().is_err(), "the final checkpoint is refused too");
        drop(conn);
        let conn = open(&dir, "log=(enabled=true)").unwrap();
        let mut a = S::new(&conn, "a");
        assert_eq!((a.get("k1").as_deref(), a.get("k2").as_deref(), a.get("k3").as_deref()), (Some("changed"), Some("2"), Some("3")));
        return;
    }
    panic!("no checkpoint sync was the table file's");
}

/// Writer `t`'s transaction `i`: three big rows and a marker, keys of its own (no conflicts).
fn own_writes(t: u64, i: u64) -> Vec<(&'static str, String, Option<String>)> {
    let mut out: Vec<_> = (0..3).map(|r| ("big", format!("t{t}-{i:03}-{r}"), Some(format!("{t}.{i}.{r}:{}", "w".repeat(2500))))).collect();
    out.push(("shared", format!("m{t}-{i:03}"), Some(format!("{t}.{i}"))));
    out
}

/// One run of three committing threads beside background checkpoints (every 20 ms), under a
/// seeded random plan; returns the faults injected.
fn concurrent_run(seed: u64) -> u64 {
    const WRITERS: u64 = 3;
    const EACH: u64 = 60;
    let dir = home();
    let conn = Arc::new(open(&dir, JOURNAL).unwrap());
    conn.configure_checkpoints(CheckpointConfig { wait: Duration::from_millis(20), log_size: 0 }).unwrap();
    drop(W::new(&conn).unwrap());
    let plan = Plan { short: true, ..Plan::random(ALL_CALLS, 30 + seed % 50, seed, 1 + seed % 3) };
    conn.durable().unwrap().inject_faults(Some(plan));
    // Per writer: the transactions acknowledged (and whether with a sync), and those failed.
    let results: Vec<(Vec<(u64, bool)>, Vec<u64>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|t| {
                let conn = &conn;
                scope.spawn(move || {
                    let mut w = W::new(conn).unwrap();
                    let (mut acked, mut failed) = (Vec::new(), Vec::new());
                    for i in 0..EACH {
                        let sync = i % 4 != 0;
                        let out = w.s.begin_transaction(None).and_then(|()| {
                            for (table, k, v) in own_writes(t, i) {
                                w.set(w.cursor(table), &k, v.as_deref())?;
                            }
                            w.s.commit_transaction(if sync { None } else { Some("sync=off") })
                        });
                        match out {
                            Ok(()) => acked.push((i, sync)),
                            Err(e) => {
                                assert!(e.messages().next().is_some(), "an error without a message: {e:?}");
                                let _ = w.s.rollback_transaction(None);
                                failed.push(i);
                            }
                        }
                    }
                    (acked, failed)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let injected = conn.durable().unwrap().inject_faults(None).injected;
    let expect = |present: &dyn Fn(u64, u64) -> bool| {
        let mut state = BTreeMap::new();
        for t in 0..WRITERS {
            for i in (0..EACH).filter(|&i| present(t, i)) {
                for (table, k, v) in own_writes(t, i) {
                    state.insert((table, k), v.unwrap());
                }
            }
        }
        state
    };
    let acked = |t: u64, i: u64| results[t as usize].0.iter().any(|a| a.0 == i);
    assert_eq!(W::new(&conn).unwrap().scan(), expect(&acked), "seed {seed}: the live state is the acknowledged commits");
    let conn = Arc::into_inner(conn).unwrap();
    let closed = if seed % 2 == 0 {
        crash(conn);
        false
    } else {
        let ok = conn.close().is_ok();
        drop(conn);
        ok
    };
    let conn = open(&dir, JOURNAL).unwrap();
    let found = W::new(&conn).unwrap().scan();
    let marker = |t: u64, i: u64| found.contains_key(&("shared", format!("m{t}-{i:03}")));
    assert_eq!(found, expect(&marker), "seed {seed}: every transaction whole or absent");
    for (t, (acked, failed)) in results.iter().enumerate() {
        let t = t as u64;
        // A writer's sync=on commit covers its earlier commits.
        let last_sync = acked.iter().rev().find(|a| a.1).map_or(0, |a| a.0 + 1);
        for &(i, _) in acked {
            assert!(marker(t, i) || (i >= last_sync && !closed), "seed {seed}: writer {t} lost acknowledged transaction {i}");
        }
        for i in (0..EACH).filter(|&i| marker(t, i)) {
            assert!(acked.iter().any(|a| a.0 == i) || failed.contains(&i), "seed {seed}: {t}.{i} never committed");
        }
    }
    injected
}

#[test]
fn concurrent_committers_and_background_checkpoints_under_random_failures() {
    let seeds: u64 = std::env::var("UNLATCHED_FAULT_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let injected: u64 = (0..seeds).map(concurrent_run).sum();
        let _ = tx.send(injected);
    });
    match rx.recv_timeout(Duration::from_secs(60 + 30 * seeds)) {
        Ok(injected) => {
            println!("concurrent: {seeds} seeds, {injected} faults injected");
            assert!(injected >= seeds / 2, "{injected} faults over {seeds} seeds");
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("concurrent runs hung"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("a concurrent run failed (see above)"),
    }
}

/// Copies the files of home `from` into the empty home `to`.
fn copy_home(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Recovery's own writes fail too: cutting a torn journal tail, cutting a tree file back to
/// its checkpoint, creating the journal's files. Every call of a recovery is failed in turn
/// (every other one as a short write): the open succeeds or fails with a message, and the next
/// open without failures recovers everything.
#[test]
fn a_failed_call_during_recovery_fails_the_open_or_not_and_loses_nothing() {
    const CONFIG: &str = "create,cache_size=1MB,log=(enabled=true,file_max=100KB)";
    let base = home();
    {
        let conn = open(&base, CONFIG).unwrap();
        let mut a = S::new(&conn, "a");
        let mut b = S::new(&conn, "b");
        for i in 0..100 {
            a.put(&format!("a{i:03}"), "1").unwrap();
        }
        a.s.checkpoint(&conn, None).unwrap();
        // Merged into b's tree file past its checkpoint, and in the journal.
        fill(&mut b, "b");
        for i in 100..300 {
            a.put(&format!("a{i:03}"), "1").unwrap();
        }
        a.s.log_flush(&conn, None).unwrap();
        drop((a, b));
        crash(conn);
    }
    // A torn tail: half a record frame after the last whole one, in the newest file with records.
    let newest = log_files(&base).into_iter().rev().map(|n| base.join(format!("{LOG_PREFIX}{n}"))).find(|p| {
        std::fs::metadata(p).unwrap().len() > 64
    });
    let mut bytes = std::fs::read(newest.as_ref().unwrap()).unwrap();
    bytes.extend_from_slice(&[100, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3]);
    std::fs::write(newest.unwrap(), bytes).unwrap();
    let recover = |plan: Option<Plan>| {
        let dir = home();
        copy_home(&base, &dir);
        super::super::faults::AT_OPEN.set(plan);
        let conn = open(&dir, CONFIG);
        super::super::faults::AT_OPEN.set(None);
        (dir, conn)
    };
    let (_dir, conn) = recover(Some(Plan::at(ALL_CALLS, u64::MAX)));
    let calls = conn.unwrap().durable().unwrap().inject_faults(None).counted;
    assert!(calls >= 6, "a recovery makes {calls} calls");
    let cut = recover(Some(Plan::at(Call::Truncate as u8, u64::MAX))).1.unwrap().durable().unwrap().inject_faults(None).counted;
    assert!(cut >= 1, "recovery cuts the torn tail");
    println!("recovery: {calls} calls, {cut} truncates");
    for at in 1..=calls {
        let (dir, conn) = recover(Some(Plan { short: at % 2 == 0, ..Plan::at(ALL_CALLS, at) }));
        let mut after = false;
        match conn {
            Ok(conn) => {
                assert_eq!(conn.durable().unwrap().inject_faults(None).injected, 1);
                let mut a = S::new(&conn, "a");
                after = a.txn(Some("sync=on"), &[("after", "1")]).is_ok();
                drop(a);
                crash(conn);
            }
            Err(e) => assert!(e.messages().next().is_some(), "call {at}: an error without a message: {e:?}"),
        }
        let conn = open(&dir, CONFIG).unwrap_or_else(|e| panic!("call {at}: the open after it: {e}"));
        let mut a = S::new(&conn, "a");
        let mut b = S::new(&conn, "b");
        assert!((0..300).all(|i| a.get(&format!("a{i:03}")).as_deref() == Some("1")), "call {at}: a's rows");
        assert!(filled(&mut b, "b"), "call {at}: b's rows");
        assert!(!after || a.get("after").is_some(), "call {at}: the commit after the open");
    }
}
