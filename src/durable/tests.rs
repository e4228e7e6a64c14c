//! Durability through the connection and session API: creating and refusing homes, the home
//! lock, metadata and rows across clean closes and crashes (a connection abandoned without its
//! final checkpoint), the journal's sync modes, torn tails, corruption, a full disk, group
//! commit, and checkpoints taken while writers run.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::conn::Connection;
use crate::error::{Kind, Result};
use crate::session::{CursorId, Session};

use super::background::CheckpointConfig;
use super::disk::{Disk, HomeLock, LOG_PREFIX};

/// A fresh, empty directory, removed when the test ends.
pub(super) struct Home(PathBuf);

impl std::ops::Deref for Home {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(super) fn home() -> Home {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "unlatched-durable-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the test home");
    Home(dir)
}

pub(super) fn open(home: &Path, config: &str) -> Result<Connection> {
    Connection::open(home.to_str(), Some(config))
}

/// The connection dies without its final checkpoint, as a killed process would.
pub(super) fn crash(conn: Connection) {
    conn.durable().expect("an on-disk database").abandon();
    drop(conn);
}

/// A session and a cursor on `table:NAME` (`S` keys and values).
pub(super) struct S {
    pub(super) s: Session,
    pub(super) c: CursorId,
}

impl S {
    pub(super) fn new(conn: &Connection, table: &str) -> S {
        let mut s = Session::open(conn, conn.slots().claim().expect("a free slot"), None).expect("session");
        let uri = format!("table:{table}");
        s.create(conn, &uri, Some("key_format=S,value_format=S")).expect("create");
        let c = s.open_cursor(conn, &uri, None).expect("cursor").id;
        S { s, c }
    }

    pub(super) fn key(&mut self, k: &str) {
        self.s.set_key_with(self.c, |_, buf| {
            buf.extend_from_slice(k.as_bytes());
            buf.push(0);
            Ok(())
        });
    }

    pub(super) fn put(&mut self, k: &str, v: &str) -> Result<()> {
        self.key(k);
        self.s.set_value_with(self.c, |_, buf| {
            buf.extend_from_slice(v.as_bytes());
            buf.push(0);
            Ok(())
        });
        self.s.update(self.c)
    }

    pub(super) fn remove(&mut self, k: &str) -> Result<()> {
        self.key(k);
        self.s.remove(self.c)
    }

    pub(super) fn get(&mut self, k: &str) -> Option<String> {
        self.key(k);
        let out = match self.s.search(self.c) {
            Ok(()) => {
                let v = self.s.cursor(self.c).value_bytes().expect("a value");
                Some(String::from_utf8(v[..v.len() - 1].to_vec()).unwrap())
            }
            Err(e) if e.kind() == Kind::NotFound => None,
            Err(e) => panic!("search: {e}"),
        };
        self.s.reset_cursor(self.c);
        out
    }

    pub(super) fn txn(&mut self, config: Option<&str>, writes: &[(&str, &str)]) -> Result<()> {
        self.s.begin_transaction(None)?;
        for (k, v) in writes {
            self.put(k, v)?;
        }
        self.s.commit_transaction(config)
    }
}

impl Drop for S {
    fn drop(&mut self) {
        self.s.park();
    }
}

fn log_files(dir: &Path) -> Vec<u64> {
    Disk::new(dir.to_path_buf()).numbered(LOG_PREFIX).unwrap()
}

#[test]
fn a_home_without_a_database_needs_create_and_exclusive_refuses_one() {
    let dir = home();
    let e = open(&dir, "").err().expect("no database");
    assert_eq!(e.kind(), Kind::TrySalvage);
    assert!(e.messages().next().unwrap().contains("WiredTiger.lock"), "{e}");
    let conn = open(&dir, "create").unwrap();
    assert!(conn.is_new());
    drop(conn);
    let conn = open(&dir, "").unwrap();
    assert!(!conn.is_new());
    drop(conn);
    assert_eq!(open(&dir, "create,exclusive").err().unwrap().kind(), Kind::Exists);
    // A lock file alone is not a database.
    let other = home();
    std::fs::write(other.join("WiredTiger.lock"), b"").unwrap();
    assert_eq!(open(&other, "").err().unwrap().kind(), Kind::TrySalvage);
}

#[test]
fn the_home_lock_is_exclusive() {
    let dir = home();
    let disk = Disk::new(dir.to_path_buf());
    let lock = HomeLock::take(&disk, "h", true).unwrap();
    // flock conflicts between two open files even in one process.
    assert_eq!(HomeLock::take(&disk, "h", true).err().unwrap().kind(), Kind::Busy);
    drop(lock);
    HomeLock::take(&disk, "h", true).unwrap();
    let conn = open(&dir, "create").unwrap();
    assert_eq!(open(&dir, "create").err().unwrap().kind(), Kind::Busy);
    drop(conn);
}

#[test]
fn tables_and_rows_survive_a_clean_close_without_a_journal() {
    let dir = home();
    let conn = open(&dir, "create").unwrap();
    {
        let mut a = S::new(&conn, "a");
        let mut b = S::new(&conn, "b");
        a.put("k1", "v1").unwrap();
        a.put("k2", "v2").unwrap();
        a.remove("k2").unwrap();
        b.put("x", "y").unwrap();
    }
    {
        let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).unwrap();
        s.drop_object(&conn, "table:b", None).unwrap();
        s.create(&conn, "table:c", Some("key_format=q,value_format=Su,columns=(k,a,b)")).unwrap();
        s.park();
    }
    drop(conn);
    let conn = open(&dir, "").unwrap();
    assert!(conn.registry().get("b").is_none());
    let c = conn.registry().get("c").unwrap();
    assert_eq!((c.spec().key_format.as_str(), c.spec().value_format.as_str()), ("q", "Su"));
    assert_eq!(c.spec().columns, ["k", "a", "b"]);
    let mut a = S::new(&conn, "a");
    assert_eq!(a.get("k1").as_deref(), Some("v1"));
    assert_eq!(a.get("k2"), None);
    // A recreated `b` is a new table: the old one's rows do not come back.
    let mut b = S::new(&conn, "b");
    assert_eq!(b.get("x"), None);
}

#[test]
fn without_a_journal_a_crash_keeps_the_last_checkpoint() {
    let dir = home();
    let conn = open(&dir, "create").unwrap();
    {
        let mut a = S::new(&conn, "a");
        a.put("before", "1").unwrap();
        a.s.checkpoint(&conn, None).unwrap();
        a.put("after", "2").unwrap();
    }
    crash(conn);
    let conn = open(&dir, "").unwrap();
    let mut a = S::new(&conn, "a");
    assert_eq!(a.get("before").as_deref(), Some("1"));
    assert_eq!(a.get("after"), None);
}

#[test]
fn the_journal_replays_committed_transactions_only() {
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true),transaction_sync=(enabled=true)").unwrap();
    {
        let mut a = S::new(&conn, "a");
        a.txn(None, &[("t1", "1"), ("shared", "1")]).unwrap();
        a.put("auto", "x").unwrap();
        a.remove("auto").unwrap();
        a.put("auto2", "y").unwrap();
        a.txn(Some("sync=off"), &[("t2", "2"), ("shared", "2")]).unwrap();
        a.s.begin_transaction(None).unwrap();
        a.put("rolled", "back").unwrap();
        a.s.rollback_transaction(None).unwrap();
        let mut b = S::new(&conn, "a");
        b.s.begin_transaction(Some("sync=true")).unwrap();
        b.put("running", "at crash").unwrap();
        std::mem::forget(b); // still running when the process dies
    }
    let stats = conn.durable().unwrap().journal_stats();
    assert_eq!(stats.records, 5);
    assert_eq!(stats.sync_commits, 4, "sync=off skips the sync");
    let reported = conn.statistics_snapshot(false);
    assert!(reported.iter().any(|&(id, v)| id == 1482 && v as u64 == stats.syncs), "log: log sync operations");
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    assert_eq!(a.get("t1").as_deref(), Some("1"));
    assert_eq!(a.get("t2").as_deref(), Some("2"));
    assert_eq!(a.get("shared").as_deref(), Some("2"));
    assert_eq!(a.get("auto"), None);
    assert_eq!(a.get("auto2").as_deref(), Some("y"));
    assert_eq!(a.get("rolled"), None);
    assert_eq!(a.get("running"), None);
}

#[test]
fn a_checkpoint_removes_journal_files_it_replaces() {
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true,file_max=100KB)").unwrap();
    let mut a = S::new(&conn, "a");
    let big = "v".repeat(1000);
    for i in 0..300 {
        a.put(&format!("k{i:04}"), &big).unwrap();
    }
    // Commits return once buffered: the writer thread may not have written (and rolled over)
    // yet on a loaded machine.
    a.s.log_flush(&conn, Some("sync=off")).unwrap();
    assert!(log_files(&dir).len() > 2, "file_max rotates: {:?}", log_files(&dir));
    a.s.checkpoint(&conn, None).unwrap();
    // The file the checkpoint continues from, and its successor (created ahead).
    assert_eq!(log_files(&dir).len(), 2);
    a.put("late", "1").unwrap();
    drop(a);
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    assert_eq!(a.get("k0299").as_deref(), Some(big.as_str()));
    assert_eq!(a.get("late").as_deref(), Some("1"));
}

/// A checkpoint's snapshot, taken after it rotated the journal, may hold commits whose records
/// are only buffered. If the process then dies with them, recovery must not replay older
/// records of the same keys over the checkpoint's newer copies: that recovered half of a
/// transaction (a new key present, its update of an existing key not) in `journal_kill`.
#[test]
fn a_checkpoint_holds_no_commit_its_journal_could_lose() {
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    let mut b = S::new(&conn, "a");
    a.txn(Some("sync=on"), &[("n", "1"), ("x1", "-")]).unwrap();
    let durable = conn.durable().unwrap();
    durable.freeze_journal();
    let txn = b.s.txn_mut();
    let horizon = txn.horizon_now();
    let stamps = txn.checkpoint_bounds();
    durable
        .checkpoint(
            conn.registry(),
            || {
                // Between the rotation and the snapshot: one commit synced (its record is in
                // the new file), then one buffered, which the process loses.
                a.txn(Some("sync=on"), &[("n", "2"), ("x2", "-")]).unwrap();
                a.txn(Some("sync=off"), &[("n", "3"), ("x3", "-")]).unwrap();
                txn.checkpoint_view()
            },
            &|| horizon,
            stamps,
        )
        .unwrap();
    drop((a, b));
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    let n = a.get("n");
    let x3 = a.get("x3");
    assert_eq!((n.as_deref(), x3.is_some()), (Some("3"), true), "the last transaction whole");
    assert_eq!(a.get("x2").as_deref(), Some("-"));
}

#[test]
fn a_torn_tail_ends_replay_and_is_cut_off() {
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true)").unwrap();
    {
        let mut a = S::new(&conn, "a");
        a.put("k1", "1").unwrap();
        a.put("k2", "2").unwrap();
    }
    crash(conn);
    let last = newest_log_with_records(&dir);
    let len = std::fs::metadata(&last).unwrap().len();
    // The last record loses its final byte: a write cut short by the crash.
    std::fs::OpenOptions::new().write(true).open(&last).unwrap().set_len(len - 1).unwrap();
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    {
        let mut a = S::new(&conn, "a");
        assert_eq!(a.get("k1").as_deref(), Some("1"));
        assert_eq!(a.get("k2"), None);
        a.put("k3", "3").unwrap();
    }
    crash(conn);
    // The cut file is no longer last; it was truncated to its whole frames, so this works.
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    assert_eq!(a.get("k3").as_deref(), Some("3"));
}

#[test]
fn damaged_files_are_errors_naming_the_file() {
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true)").unwrap();
    {
        let mut a = S::new(&conn, "a");
        a.put("k", "v").unwrap();
    }
    drop(conn);
    let ckpt = Disk::new(dir.to_path_buf()).numbered(super::disk::CKPT_PREFIX).unwrap();
    let ckpt = dir.join(super::checkpoint::name(*ckpt.last().unwrap()));
    let good = std::fs::read(&ckpt).unwrap();
    for at in [3, 20, good.len() / 2, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        std::fs::write(&ckpt, &bad).unwrap();
        let e = open(&dir, "").err().expect("corrupt checkpoint");
        assert_eq!(e.kind(), Kind::TrySalvage, "flip at {at}: {e}");
        assert!(e.messages().next().unwrap().contains(ckpt.to_str().unwrap()), "{e}");
    }
    std::fs::write(&ckpt, &good[..good.len() - 3]).unwrap();
    assert_eq!(open(&dir, "").err().unwrap().kind(), Kind::TrySalvage);
    std::fs::write(&ckpt, &good).unwrap();
    open(&dir, "").unwrap();
    let meta = dir.join(super::disk::META_FILE);
    let mut bytes = std::fs::read(&meta).unwrap();
    bytes[10] ^= 1;
    std::fs::write(&meta, &bytes).unwrap();
    let e = open(&dir, "").err().unwrap();
    assert_eq!(e.kind(), Kind::TrySalvage);
    assert!(e.messages().next().unwrap().contains("unlatched.meta"), "{e}");
}

#[test]
fn a_full_disk_fails_the_commit_and_loses_nothing_committed() {
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true),transaction_sync=(enabled=true)").unwrap();
    {
        let mut a = S::new(&conn, "a");
        a.txn(None, &[("k1", "1")]).unwrap();
        conn.durable().unwrap().limit_writes(Some(0));
        let e = a.txn(None, &[("k2", "2"), ("k1", "changed")]).unwrap_err();
        assert_eq!(e.kind(), Kind::Os(libc::ENOSPC), "{e}");
        let e = a.put("k3", "3").unwrap_err();
        assert_eq!(e.kind(), Kind::Os(libc::ENOSPC));
        assert_eq!(a.get("k1").as_deref(), Some("1"));
        assert_eq!((a.get("k2"), a.get("k3")), (None, None));
        assert_eq!(a.s.checkpoint(&conn, None).unwrap_err().kind(), Kind::Os(libc::ENOSPC));
        conn.durable().unwrap().limit_writes(None);
        a.txn(None, &[("k4", "4")]).unwrap();
    }
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    assert_eq!(a.get("k1").as_deref(), Some("1"));
    assert_eq!(a.get("k4").as_deref(), Some("4"));
    assert_eq!((a.get("k2"), a.get("k3")), (None, None));
}

#[test]
fn concurrent_committers_share_syncs_and_checkpoints_run_beside_them() {
    let dir = home();
    let conn = Arc::new(open(&dir, "create,log=(enabled=true),transaction_sync=(enabled=true)").unwrap());
    drop(S::new(&conn, "a"));
    let acked: Arc<Vec<AtomicU64>> = Arc::new((0..3).map(|_| AtomicU64::new(0)).collect());
    let seen = Arc::clone(&acked);
    let conn = write_beside_checkpoints(conn, 3, 50, move |a, w, i| {
        // Two keys per transaction, with one value: recovery must never split them.
        let v = i.to_string();
        a.txn(None, &[(&format!("w{w}x{i}"), &v), (&format!("w{w}y"), &v)]).unwrap();
        seen[w].store(i, Ordering::Relaxed);
    });
    let stats = conn.durable().unwrap().journal_stats();
    eprintln!("group commit: {} commits, {} syncs", stats.sync_commits, stats.syncs);
    assert!(stats.syncs <= stats.sync_commits + 5, "{stats:?}");
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    for (w, acked) in acked.iter().enumerate() {
        let n = acked.load(Ordering::Relaxed);
        assert_eq!(a.get(&format!("w{w}y")), Some(n.to_string()), "writer {w}");
        for i in 1..=n {
            assert_eq!(a.get(&format!("w{w}x{i}")), Some(i.to_string()), "writer {w} txn {i}");
        }
    }
}

/// Sync committers that arrive while another's sync runs sleep and are covered together by
/// the next sync: fewer syncs than commits, each committer's records in its order, none lost.
#[test]
fn sync_committers_arriving_during_a_sync_share_the_next_one() {
    use super::journal::{replay, Journal, JournalConfig};
    let dir = home();
    let disk = Arc::new(Disk::new(dir.to_path_buf()));
    let config = JournalConfig { file_max: 100 << 20, remove: false, prealloc: true };
    let journal = Arc::new(Journal::start(Arc::clone(&disk), config, 1).unwrap());
    let threads: Vec<_> = (0..4u8)
        .map(|t| {
            let journal = Arc::clone(&journal);
            std::thread::spawn(move || {
                let c = journal.committer();
                for i in 0..100u8 {
                    c.commit(&[t, i], true).unwrap();
                    c.published();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let stats = journal.stats();
    assert_eq!(stats.sync_commits, 400);
    assert!(stats.syncs < stats.sync_commits, "{stats:?}");
    drop(journal);
    let mut next = [0u8; 4];
    replay(&disk, 1, true, false, |record, _| {
        assert_eq!(record[1], next[record[0] as usize], "committer {}", record[0]);
        next[record[0] as usize] += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(next, [100; 4]);
}

/// Runs `writers` threads, each calling `write(session, writer, i)` for i = 1, 2, ... until
/// stopped (at least `min` times), while this thread takes five checkpoints 20 ms apart; returns
/// the connection once the writers are gone.
fn write_beside_checkpoints(
    conn: Arc<Connection>,
    writers: usize,
    min: u64,
    write: impl Fn(&mut S, usize, u64) + Send + Sync + 'static,
) -> Connection {
    let stop = Arc::new(AtomicBool::new(false));
    let write = Arc::new(write);
    let threads: Vec<_> = (0..writers)
        .map(|w| {
            let (conn, stop, write) = (Arc::clone(&conn), Arc::clone(&stop), Arc::clone(&write));
            std::thread::spawn(move || {
                let mut a = S::new(&conn, "a");
                let mut i = 0u64;
                while !stop.load(Ordering::Relaxed) || i < min {
                    i += 1;
                    write(&mut a, w, i);
                }
            })
        })
        .collect();
    let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).unwrap();
    for _ in 0..5 {
        std::thread::sleep(std::time::Duration::from_millis(20));
        s.checkpoint(&conn, None).unwrap();
    }
    s.park();
    drop(s);
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    Arc::into_inner(conn).expect("the writers are gone")
}

#[test]
fn in_memory_databases_write_nothing() {
    let dir = home();
    let conn = open(&dir, "create,in_memory=true").unwrap();
    {
        let mut a = S::new(&conn, "a");
        a.put("k", "v").unwrap();
        assert_eq!(a.s.checkpoint(&conn, None).unwrap_err().kind(), Kind::NotSupported);
    }
    drop(conn);
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0);
}

/// The newest checkpoint file's number in `dir`.
fn newest_checkpoint(dir: &Path) -> u64 {
    *Disk::new(dir.to_path_buf()).numbered(super::disk::CKPT_PREFIX).unwrap().last().expect("a checkpoint")
}

/// Waits (at most 20 s) until the newest checkpoint's number reaches `no`.
fn wait_for_checkpoint(dir: &Path, no: u64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while newest_checkpoint(dir) < no {
        assert!(Instant::now() < deadline, "no checkpoint {no} (newest {})", newest_checkpoint(dir));
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn background_checkpoints_run_every_wait_and_survive_a_crash() {
    let dir = home();
    let conn = open(&dir, "create").unwrap();
    conn.configure_checkpoints(CheckpointConfig { wait: Duration::from_millis(20), log_size: 0 }).unwrap();
    assert!(conn.checkpointer_running());
    {
        let mut a = S::new(&conn, "a");
        for i in 0..100 {
            a.put(&format!("k{i}"), &i.to_string()).unwrap();
        }
        a.remove("k7").unwrap();
    }
    // The next checkpoint but one started after the writes (the next may have been under way).
    wait_for_checkpoint(&dir, newest_checkpoint(&dir) + 2);
    // Without a journal only a checkpoint keeps rows across a crash.
    crash(conn);
    let conn = open(&dir, "").unwrap();
    assert!(!conn.checkpointer_running());
    let mut a = S::new(&conn, "a");
    for i in 0..100 {
        assert_eq!(a.get(&format!("k{i}")), (i != 7).then(|| i.to_string()), "k{i}");
    }
}

#[test]
fn close_stops_the_checkpoint_thread_promptly_then_checkpoints() {
    let dir = home();
    let conn = open(&dir, "create,checkpoint=(wait=3600)").unwrap();
    assert!(conn.checkpointer_running());
    S::new(&conn, "a").put("k", "v").unwrap();
    let started = Instant::now();
    drop(conn);
    assert!(started.elapsed() < Duration::from_secs(5), "close took {:?}", started.elapsed());
    let conn = open(&dir, "").unwrap();
    assert_eq!(S::new(&conn, "a").get("k").as_deref(), Some("v"));
}

#[test]
fn reconfigure_starts_changes_and_stops_the_checkpoint_thread() {
    let dir = home();
    let conn = open(&dir, "create").unwrap();
    assert!(!conn.checkpointer_running());
    conn.reconfigure(Some("checkpoint=(wait=100)")).unwrap();
    assert!(conn.checkpointer_running());
    // log_size without a journal changes nothing; the wait set before stands.
    conn.reconfigure(Some("checkpoint=(log_size=1MB)")).unwrap();
    assert!(conn.checkpointer_running());
    conn.reconfigure(Some("checkpoint=(wait=0)")).unwrap();
    assert!(!conn.checkpointer_running(), "log_size alone needs the journal");
    assert!(conn.reconfigure(Some("checkpoint=(wait=-1)")).is_err());
    // Each restart gave its slot back: as many sessions as before can open.
    for _ in 0..200 {
        conn.reconfigure(Some("checkpoint=(wait=100)")).unwrap();
    }
    assert!(conn.checkpointer_running());
    drop(conn);
    let conn = open(&dir, "create,in_memory=true,checkpoint=(wait=1)").unwrap();
    assert!(!conn.checkpointer_running(), "no checkpoints in memory");
}

#[test]
fn background_checkpoints_follow_the_journal_size() {
    let dir = home();
    // log_size is rounded up to file_max (100KB, its minimum).
    let conn = open(&dir, "create,log=(enabled=true,file_max=100KB),checkpoint=(log_size=1KB)").unwrap();
    assert!(conn.checkpointer_running());
    let first = newest_checkpoint(&dir);
    let value = "v".repeat(1000);
    let mut a = S::new(&conn, "a");
    for i in 0..90 {
        a.put(&format!("k{i}"), &value).unwrap();
    }
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(newest_checkpoint(&dir), first, "fewer than 100KB journalled");
    for i in 90..250 {
        a.put(&format!("k{i}"), &value).unwrap();
    }
    wait_for_checkpoint(&dir, first + 1);
}

// ---- Damaged journals (issue 16, part 3) ----

/// Every file of `dir` with its bytes, to put a damaged home back as it was.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    out.sort();
    out
}

/// Makes `dir` hold exactly the files of `snap` again.
fn restore(dir: &Path, snap: &[(PathBuf, Vec<u8>)]) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::remove_file(&p).unwrap();
        }
    }
    for (p, bytes) in snap {
        std::fs::write(p, bytes).unwrap();
    }
}

/// The journal file whose number is `no`.
fn log_path(dir: &Path, no: u64) -> PathBuf {
    dir.join(format!("{LOG_PREFIX}{no}"))
}

/// The newest journal file (the highest number).
fn newest_log(dir: &Path) -> PathBuf {
    log_path(dir, *log_files(dir).last().expect("a journal file"))
}

/// The newest journal file holding records (more than its header frame).
fn newest_log_with_records(dir: &Path) -> PathBuf {
    log_files(dir)
        .into_iter()
        .rev()
        .map(|n| log_path(dir, n))
        .find(|p| std::fs::metadata(p).unwrap().len() > 64)
        .expect("a journal file with records")
}

/// The scenario: 1,000 rows, a checkpoint, then 500 inserts and 34 removes, each
/// committed with `sync=on`; the process dies without closing.
fn acknowledged_then_killed(dir: &Path, config: &str) {
    let conn = open(dir, &format!("create,{config}")).unwrap();
    {
        let mut a = S::new(&conn, "a");
        for i in 0..1000 {
            a.put(&format!("base{i:04}"), "b").unwrap();
        }
        a.s.checkpoint(&conn, None).unwrap();
        for i in 0..500 {
            a.txn(Some("sync=on"), &[(&format!("new{i:04}"), &i.to_string())]).unwrap();
        }
        for i in 0..34 {
            a.s.begin_transaction(None).unwrap();
            a.remove(&format!("base{i:04}")).unwrap();
            a.s.commit_transaction(Some("sync=on")).unwrap();
        }
    }
    crash(conn);
}

/// How many of the 500 inserts are present and how many of the 34 removed rows are back.
fn count_acknowledged(conn: &Connection) -> (usize, usize) {
    let mut a = S::new(conn, "a");
    let inserts = (0..500).filter(|i| a.get(&format!("new{i:04}")).is_some()).count();
    let back = (0..34).filter(|i| a.get(&format!("base{i:04}")).is_some()).count();
    assert!((34..1000).all(|i| a.get(&format!("base{i:04}")).is_some()), "the checkpoint's rows");
    (inserts, back)
}

fn xor_byte(path: &Path, at: u64) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at as usize] ^= 0x5a;
    std::fs::write(path, bytes).unwrap();
}

/// Offsets of the frames of journal file `path` (its header frame first).
fn frame_offsets(path: &Path) -> Vec<u64> {
    let bytes = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    let mut at = 0usize;
    while at + 8 <= bytes.len() {
        out.push(at as u64);
        at += 8 + u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    }
    out
}

#[test]
fn a_flipped_byte_in_the_journal_refuses_to_open_naming_the_file_and_offset() {
    let dir = home();
    acknowledged_then_killed(&dir, "log=(enabled=true)");
    let good = snapshot(&dir);
    let data = newest_log_with_records(&dir);
    let frames = frame_offsets(&data);
    let len = std::fs::metadata(&data).unwrap().len();
    let middle_frame = frames[frames.len() / 2];
    // The header frame, the first records, the middle of the file, a frame in the middle (its
    // length and checksum fields), all followed by valid frames.
    let mut cases: Vec<(PathBuf, u64)> = [0, 3, 9, 20, 40, 77, 100, len / 2, middle_frame, middle_frame + 1, middle_frame + 5]
        .into_iter()
        .map(|at| (data.clone(), at))
        .collect();
    // The header of the newest journal file, when that is not the one with the records.
    let newest = newest_log(&dir);
    if newest != data {
        let newest_len = std::fs::metadata(&newest).unwrap().len();
        cases.extend([0, 4, newest_len / 2, newest_len - 1].map(|at| (newest.clone(), at)));
    }
    for (path, at) in cases {
        xor_byte(&path, at);
        let e = open(&dir, "log=(enabled=true)").err().unwrap_or_else(|| panic!("{} flipped at {at} opened", path.display()));
        assert_eq!(e.kind(), Kind::TrySalvage, "flip at {at}: {e}");
        let text = e.messages().next().unwrap().to_string();
        assert!(text.contains(path.to_str().unwrap()), "flip at {at}: {text}");
        assert!(text.contains("offset"), "flip at {at}: {text}");
        restore(&dir, &good);
    }
    // Undamaged, everything acknowledged is there.
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    assert_eq!(count_acknowledged(&conn), (500, 0));
}

#[test]
fn a_torn_or_zero_filled_tail_is_cut_silently() {
    let dir = home();
    acknowledged_then_killed(&dir, "log=(enabled=true)");
    let good = snapshot(&dir);
    let data = newest_log_with_records(&dir);
    let len = std::fs::metadata(&data).unwrap().len();
    let last = *frame_offsets(&data).last().unwrap();
    let zeros = |path: &Path, from: u64, n: usize| {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.write_all_at(&vec![0u8; n], from).unwrap();
    };
    // (cut the file to, then zeros, whether the last remove survives)
    for (cut, zero_fill, last_kept) in [
        (len - 1, 0, false),
        (last + 3, 0, false),
        (last + 10, 0, false),
        (last + 10, 4096, false),
        (len, 4096, true),
        (last, 100, false),
    ] {
        std::fs::OpenOptions::new().write(true).open(&data).unwrap().set_len(cut).unwrap();
        if zero_fill > 0 {
            zeros(&data, cut, zero_fill);
        }
        let conn = open(&dir, "log=(enabled=true)").unwrap_or_else(|e| panic!("cut at {cut}, {zero_fill} zeros: {e}"));
        assert_eq!(conn.recovery_messages().len(), 0);
        assert_eq!(count_acknowledged(&conn), (500, usize::from(!last_kept)), "cut at {cut}, {zero_fill} zeros");
        crash(conn);
        // The cut is durable: the next open finds a clean journal.
        let conn = open(&dir, "log=(enabled=true)").unwrap();
        assert_eq!(count_acknowledged(&conn), (500, usize::from(!last_kept)));
        drop(conn);
        restore(&dir, &good);
    }
}

#[test]
fn a_deleted_journal_file_refuses_to_open() {
    let dir = home();
    acknowledged_then_killed(&dir, "log=(enabled=true)");
    let good = snapshot(&dir);
    let data = newest_log_with_records(&dir);
    for path in [newest_log(&dir), data.clone()] {
        std::fs::remove_file(&path).unwrap();
        let e = open(&dir, "log=(enabled=true)").err().unwrap_or_else(|| panic!("{} deleted, yet it opened", path.display()));
        assert_eq!(e.kind(), Kind::TrySalvage, "{e}");
        assert!(e.messages().next().unwrap().contains("missing"), "{e}");
        restore(&dir, &good);
    }
    // Every journal file gone.
    for n in log_files(&dir) {
        std::fs::remove_file(log_path(&dir, n)).unwrap();
    }
    assert_eq!(open(&dir, "log=(enabled=true)").err().unwrap().kind(), Kind::TrySalvage);
    restore(&dir, &good);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    assert_eq!(count_acknowledged(&conn), (500, 0));
}

#[test]
fn the_newest_of_several_journal_files_deleted_refuses_to_open() {
    let dir = home();
    // 100KB files: the 534 commits with 500-byte values fill several.
    let conn = open(&dir, "create,log=(enabled=true,file_max=100KB)").unwrap();
    let value = "v".repeat(500);
    {
        let mut a = S::new(&conn, "a");
        a.put("first", "1").unwrap();
        a.s.checkpoint(&conn, None).unwrap();
        for i in 0..534 {
            a.txn(Some("sync=on"), &[(&format!("k{i:04}"), &value)]).unwrap();
        }
    }
    crash(conn);
    assert!(log_files(&dir).len() >= 3, "{:?}", log_files(&dir));
    let good = snapshot(&dir);
    for path in [newest_log(&dir), newest_log_with_records(&dir)] {
        std::fs::remove_file(&path).unwrap();
        let e = open(&dir, "log=(enabled=true)").err().unwrap_or_else(|| panic!("{} deleted, yet it opened", path.display()));
        assert_eq!(e.kind(), Kind::TrySalvage, "{e}");
        restore(&dir, &good);
    }
    // A flipped byte in an older file is corruption too, not a torn tail.
    let older = log_path(&dir, log_files(&dir)[0]);
    let frames = frame_offsets(&older);
    xor_byte(&older, frames[frames.len() - 1] + 20);
    assert_eq!(open(&dir, "log=(enabled=true)").err().unwrap().kind(), Kind::TrySalvage);
    restore(&dir, &good);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    assert!((0..534).all(|i| a.get(&format!("k{i:04}")).is_some()));
}

#[test]
fn salvage_recovers_the_valid_prefix_and_reports_what_it_dropped() {
    let dir = home();
    acknowledged_then_killed(&dir, "log=(enabled=true)");
    let good = snapshot(&dir);
    // A healthy database opens normally with salvage=true, reporting nothing.
    let conn = open(&dir, "log=(enabled=true),salvage=true").unwrap();
    assert_eq!(conn.recovery_messages().len(), 0);
    assert_eq!(count_acknowledged(&conn), (500, 0));
    crash(conn);
    restore(&dir, &good);

    let data = newest_log_with_records(&dir);
    let frames = frame_offsets(&data);
    // Frame 0 is the header; insert i is frame i + 1 (the base rows are in the checkpoint).
    let damaged = frames[1 + 250];
    xor_byte(&data, damaged + 12);
    assert_eq!(open(&dir, "log=(enabled=true)").err().unwrap().kind(), Kind::TrySalvage);
    let conn = open(&dir, "log=(enabled=true),salvage=true").unwrap();
    let messages = conn.recovery_messages().to_vec();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].contains(data.to_str().unwrap()) && messages[0].contains(&damaged.to_string()), "{messages:?}");
    // The records before the damaged one are back; the ones from it on are dropped.
    assert_eq!(count_acknowledged(&conn), (250, 34));
    {
        let mut a = S::new(&conn, "a");
        a.put("after", "salvage").unwrap();
    }
    crash(conn);
    // The journal was cut at the damage: a plain open works and keeps the salvaged state.
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    assert_eq!(count_acknowledged(&conn), (250, 34));
    assert_eq!(S::new(&conn, "a").get("after").as_deref(), Some("salvage"));
    drop(conn);

    // A deleted journal file: salvage opens with what is there and says so.
    restore(&dir, &good);
    let newest = newest_log(&dir);
    std::fs::remove_file(&newest).unwrap();
    let conn = open(&dir, "log=(enabled=true),salvage=true").unwrap();
    assert_eq!(conn.recovery_messages().len(), 1);
    assert!(conn.recovery_messages()[0].contains("missing"), "{:?}", conn.recovery_messages());
    drop(conn);
    open(&dir, "log=(enabled=true)").unwrap();

    // A damaged checkpoint is not salvaged (yet): still WT_TRY_SALVAGE.
    restore(&dir, &good);
    let ckpt = dir.join(super::checkpoint::name(newest_checkpoint(&dir)));
    xor_byte(&ckpt, 30);
    assert_eq!(open(&dir, "log=(enabled=true),salvage=true").err().unwrap().kind(), Kind::TrySalvage);
}

#[test]
fn a_version_1_journal_makes_no_successor_promise() {
    let dir = home();
    acknowledged_then_killed(&dir, "log=(enabled=true)");
    let data = newest_log_with_records(&dir);
    let no: u64 = data.to_str().unwrap().rsplit('.').next().unwrap().parse().unwrap();
    // The header a version-1 journal file has, and no successor file.
    let mut bytes = std::fs::read(&data).unwrap();
    let mut header = Vec::new();
    let mut p = super::frame::Put::default();
    p.u64(super::journal::LOG_MAGIC).u32(1).u64(no);
    super::frame::write_frame(&mut header, &p.0);
    bytes.splice(..header.len(), header);
    std::fs::write(&data, bytes).unwrap();
    std::fs::remove_file(newest_log(&dir)).unwrap();
    assert_eq!(newest_log(&dir), data);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    assert_eq!(count_acknowledged(&conn), (500, 0));
}

/// The size of table `id`'s tree file.
fn tree_file_len(dir: &Path, id: u64) -> u64 {
    std::fs::metadata(dir.join(format!("{}{id}", super::disk::TREE_PREFIX))).expect("the tree file").len()
}

/// The value of statistic `id` in `snapshot`.
fn stat(snapshot: &[(i32, i64)], id: i32) -> Option<i64> {
    snapshot.iter().find(|&&(i, _)| i == id).map(|&(_, v)| v)
}

#[test]
fn compact_gives_back_the_space_of_removed_rows_and_verify_passes() {
    let dir = home();
    let conn = open(&dir, "create").unwrap();
    let mut a = S::new(&conn, "a");
    let value = "v".repeat(200);
    const ROWS: usize = 20_000;
    for i in 0..ROWS {
        a.put(&format!("k{i:06}"), &value).unwrap();
    }
    a.s.checkpoint(&conn, None).unwrap();
    a.s.verify(&conn, "table:a", None).unwrap();
    for i in (0..ROWS).filter(|i| i % 5 != 0) {
        a.remove(&format!("k{i:06}")).unwrap();
    }
    a.s.checkpoint(&conn, None).unwrap();
    let before = tree_file_len(&dir, 1);
    a.s.compact(&conn, "table:a", None).unwrap();
    let after = tree_file_len(&dir, 1);
    assert!(after * 2 < before, "compact shrank the file from {before} to only {after} bytes");
    a.s.verify(&conn, "table:a", None).unwrap();
    for i in (0..ROWS).step_by(97) {
        let want = (i % 5 == 0).then(|| value.clone());
        assert_eq!(a.get(&format!("k{i:06}")), want, "row {i}");
    }
    // Writes after a compaction land in the file as usual, and it reopens.
    a.put("late", "1").unwrap();
    drop(a);
    drop(conn);
    let conn = open(&dir, "").unwrap();
    let mut a = S::new(&conn, "a");
    a.s.verify(&conn, "table:a", None).unwrap();
    assert_eq!(a.get("late").as_deref(), Some("1"));
    let mut count = 0;
    a.s.reset_cursor(a.c);
    while a.s.next(a.c).is_ok() {
        count += 1;
    }
    assert_eq!(count, ROWS / 5 + 1);
}

#[test]
fn a_compacted_file_cut_before_its_next_checkpoint_reopens() {
    let dir = home();
    let conn = open(&dir, "create").unwrap();
    let mut a = S::new(&conn, "a");
    for i in 0..5000 {
        a.put(&format!("k{i:06}"), &"x".repeat(300)).unwrap();
    }
    a.s.checkpoint(&conn, None).unwrap();
    for i in 1000..5000 {
        a.remove(&format!("k{i:06}")).unwrap();
    }
    // Compaction's steps, up to a crash between cutting the file and the checkpoint after.
    let table = conn.registry().get("a").unwrap();
    let tree = table.tree().unwrap();
    a.s.checkpoint(&conn, None).unwrap();
    super::settle(tree);
    a.s.checkpoint(&conn, None).unwrap();
    tree.rewrite(crate::store::TS_LATEST).unwrap();
    super::settle(tree);
    let before = tree.file().file_len().unwrap();
    // The checkpoint gives the free tail back after its record is durable: the record still
    // names the longer file, and the tail it lost is free in it.
    a.s.checkpoint(&conn, None).unwrap();
    assert!(tree.file().file_len().unwrap() < before);
    drop(table);
    drop(a);
    crash(conn);
    let conn = open(&dir, "").unwrap();
    let mut a = S::new(&conn, "a");
    a.s.verify(&conn, "table:a", None).unwrap();
    assert_eq!(a.get("k000999").as_deref(), Some("x".repeat(300).as_str()));
    assert_eq!(a.get("k001000"), None);
}

#[test]
fn verify_reports_a_damaged_block_and_in_memory_or_unknown_tables() {
    let dir = home();
    let conn = open(&dir, "create").unwrap();
    let mut a = S::new(&conn, "a");
    for i in 0..3000 {
        a.put(&format!("k{i:06}"), &"y".repeat(100)).unwrap();
    }
    assert_eq!(a.s.verify(&conn, "table:nope", None).unwrap_err().kind(), Kind::NoEntry);
    assert_eq!(a.s.verify(&conn, "file:a.wt", None).unwrap_err().kind(), Kind::NotSupported);
    drop(a);
    drop(conn);
    // The first leaf is the first block after the file header.
    let path = dir.join(format!("{}1", super::disk::TREE_PREFIX));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[4096 + 100] ^= 0x5a;
    std::fs::write(&path, &bytes).unwrap();
    let conn = open(&dir, "").unwrap();
    let mut a = S::new(&conn, "a");
    let err = a.s.verify(&conn, "table:a", None).unwrap_err();
    assert_eq!(err.kind(), Kind::TrySalvage);
    let msg = err.to_string();
    assert!(msg.contains("unlatched.table.1") && msg.contains("offset 4096"), "{msg}");
    drop(a);
    drop(conn);

    let mem = home();
    let conn = open(&mem, "create,in_memory=true").unwrap();
    let mut m = S::new(&conn, "m");
    m.put("k", "v").unwrap();
    assert_eq!(m.s.verify(&conn, "table:m", None).unwrap_err().kind(), Kind::NotSupported);
    m.s.compact(&conn, "table:m", None).unwrap();
}

#[test]
fn paged_statistics_move_with_reads_writes_and_checkpoints() {
    let dir = home();
    let conn = open(&dir, "create,statistics=(all)").unwrap();
    let mut a = S::new(&conn, "a");
    for i in 0..5000 {
        a.put(&format!("k{i:06}"), &"z".repeat(100)).unwrap();
    }
    let first = conn.statistics_snapshot(false);
    assert!(stat(&first, 1234).unwrap() > 0, "tracked dirty bytes");
    assert_eq!(stat(&first, 1306), Some(0), "no checkpoint yet");
    a.s.checkpoint(&conn, None).unwrap();
    let after = conn.statistics_snapshot(false);
    assert_eq!(stat(&after, 1306), Some(1), "checkpoints");
    assert!(stat(&after, 1056).unwrap() > 0 && stat(&after, 1060).unwrap() >= stat(&after, 1056).unwrap() * 4096);
    assert!(stat(&after, 1223).unwrap() > 0, "pages written");
    let table = conn.registry().get("a").unwrap();
    let t = table.statistics_snapshot(false, true);
    assert!(stat(&t, 2046).unwrap() >= 2, "depth");
    assert!(stat(&t, 2051).unwrap() > 1 && stat(&t, 2050).unwrap() >= 1, "leaf and internal pages");
    assert!(stat(&t, 2024).unwrap() > 4096, "file size");
    assert_eq!(stat(&table.statistics_snapshot(false, false), 2051), None, "page counts need a tree walk");
    drop(table);
    drop(a);
    drop(conn);

    let conn = open(&dir, "statistics=(fast)").unwrap();
    let before = conn.statistics_snapshot(false);
    let mut a = S::new(&conn, "a");
    let mut n = 0;
    while a.s.next(a.c).is_ok() {
        n += 1;
    }
    assert_eq!(n, 5000);
    let scanned = conn.statistics_snapshot(false);
    assert!(stat(&scanned, 1209).unwrap() > stat(&before, 1209).unwrap(), "pages read into cache");
    assert!(stat(&scanned, 1055).unwrap() > 0 && stat(&scanned, 1057).unwrap() > 0, "blocks and bytes read");
    assert!(stat(&scanned, 1077).unwrap() > 0, "bytes in the cache");
}

#[test]
fn a_full_disk_keeps_acknowledged_sync_off_commits_and_fails_the_rest_until_space_returns() {
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true)").unwrap();
    {
        let mut a = S::new(&conn, "a");
        a.put("k1", "1").unwrap();
        a.s.log_flush(&conn, Some("sync=off")).unwrap();
        conn.durable().unwrap().limit_writes(Some(0));
        // Acknowledged once buffered: the failed write keeps it for the next one.
        a.txn(Some("sync=off"), &[("k2", "2")]).unwrap();
        let e = a.s.log_flush(&conn, None).unwrap_err();
        assert_eq!(e.kind(), Kind::Os(libc::ENOSPC), "{e}");
        // While the buffered records cannot be written, every commit fails.
        assert_eq!(a.put("k3", "3").unwrap_err().kind(), Kind::Os(libc::ENOSPC));
        assert_eq!(a.txn(Some("sync=off"), &[("k4", "4")]).unwrap_err().kind(), Kind::Os(libc::ENOSPC));
        assert_eq!(a.txn(Some("sync=on"), &[("k5", "5")]).unwrap_err().kind(), Kind::Os(libc::ENOSPC));
        assert_eq!(a.get("k2").as_deref(), Some("2"));
        assert_eq!((a.get("k3"), a.get("k4"), a.get("k5")), (None, None, None));
        conn.durable().unwrap().limit_writes(None);
        a.txn(Some("sync=on"), &[("k6", "6")]).unwrap();
    }
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    assert_eq!((a.get("k1").as_deref(), a.get("k2").as_deref(), a.get("k6").as_deref()), (Some("1"), Some("2"), Some("6")));
    assert_eq!((a.get("k3"), a.get("k4"), a.get("k5")), (None, None, None));
}

#[test]
fn a_failed_write_drops_the_sync_commits_of_its_slot_and_keeps_the_others() {
    let dir = home();
    let conn = Arc::new(open(&dir, "create,log=(enabled=true)").unwrap());
    drop(S::new(&conn, "a"));
    conn.durable().unwrap().limit_writes(Some(0));
    // Two sessions: one buffers a sync=off commit, the other's sync=on commit joins the same
    // slot and its write fails.
    let mut a = S::new(&conn, "a");
    let mut b = S::new(&conn, "a");
    a.txn(Some("sync=off"), &[("off", "1")]).unwrap();
    let e = b.txn(Some("sync=on"), &[("on", "1")]).unwrap_err();
    assert_eq!(e.kind(), Kind::Os(libc::ENOSPC), "{e}");
    conn.durable().unwrap().limit_writes(None);
    b.txn(Some("sync=on"), &[("after", "1")]).unwrap();
    drop((a, b));
    let conn = Arc::into_inner(conn).unwrap();
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    assert_eq!((a.get("off").as_deref(), a.get("on"), a.get("after").as_deref()), (Some("1"), None, Some("1")));
}

#[test]
fn records_larger_than_a_slot_are_written_in_commit_order() {
    let dir = home();
    let conn = open(&dir, "create,log=(enabled=true,file_max=100KB)").unwrap();
    let big = "b".repeat(super::journal::DIRECT_BYTES + 10);
    {
        let mut a = S::new(&conn, "a");
        for i in 0..20 {
            a.put("k", &format!("small{i}")).unwrap();
            if i % 5 == 0 {
                a.txn(Some(if i % 10 == 0 { "sync=on" } else { "sync=off" }), &[("k", &format!("{big}{i}")), ("big", &i.to_string())])
                    .unwrap();
            }
        }
        a.put("last", "1").unwrap();
    }
    let stats = conn.durable().unwrap().journal_stats();
    assert_eq!((stats.records, stats.records - stats.joins), (25, 4), "{stats:?}");
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    assert_eq!((a.get("k").as_deref(), a.get("big").as_deref(), a.get("last").as_deref()), (Some("small19"), Some("15"), Some("1")));
}

#[test]
fn log_flush_and_log_printf() {
    let dir = home();
    let conn = open(&dir, "create").unwrap();
    {
        let mut a = S::new(&conn, "a");
        let e = a.s.log_flush(&conn, None).unwrap_err();
        assert_eq!((e.kind(), e.messages().next().unwrap()), (Kind::Invalid, "logging not enabled"));
        // As the reference: a message without a journal goes nowhere.
        a.s.log_printf("nothing").unwrap();
    }
    drop(conn);
    let conn = open(&dir, "log=(enabled=true),statistics=(fast)").unwrap();
    {
        let mut a = S::new(&conn, "a");
        for (config, message) in [
            ("sync=bogus", "Value 'bogus' not a permitted choice for key 'sync'"),
            ("sync=background", "Value 'background' not a permitted choice for key 'sync'"),
            ("bogus=1", "unknown configuration key 'bogus'"),
        ] {
            let e = a.s.log_flush(&conn, Some(config)).unwrap_err();
            assert_eq!((e.kind(), e.messages().next().unwrap()), (Kind::Invalid, message), "{config}");
        }
        a.put("k", "v").unwrap();
        a.s.log_printf("a message").unwrap();
        let before = conn.durable().unwrap().journal_stats();
        a.s.log_flush(&conn, Some("sync=off")).unwrap();
        let off = conn.durable().unwrap().journal_stats();
        assert!(off.bytes > before.bytes || before.bytes > 0, "written: {off:?}");
        a.s.begin_transaction(None).unwrap();
        a.s.log_flush(&conn, None).unwrap();
        a.s.rollback_transaction(None).unwrap();
        let on = conn.durable().unwrap().journal_stats();
        assert_eq!((on.records, on.flushes), (2, 2));
        assert_eq!(on.syncs, off.syncs + 1, "{on:?}");
        let reported = conn.statistics_snapshot(false);
        for (id, value) in [(1471, 2), (1486, 2), (1482, on.syncs), (1469, on.bytes), (1499, on.joins)] {
            assert_eq!(stat(&reported, id), Some(value as i64), "statistic {id}");
        }
    }
    crash(conn);
    // The message record is replayed as nothing.
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    assert_eq!(S::new(&conn, "a").get("k").as_deref(), Some("v"));
}

#[test]
fn mixed_sync_committers_and_checkpoints_recover_in_commit_order() {
    let dir = home();
    let conn = Arc::new(open(&dir, "create,log=(enabled=true,file_max=100KB)").unwrap());
    drop(S::new(&conn, "a"));
    // Per writer: the last transaction acknowledged with sync=on.
    let synced: Arc<Vec<AtomicU64>> = Arc::new((0..4).map(|_| AtomicU64::new(0)).collect());
    let seen = Arc::clone(&synced);
    let conn = write_beside_checkpoints(conn, 4, 100, move |a, w, i| {
        let v = i.to_string();
        let sync = i % 4 == 0;
        // A shared key too: its journal order must be its commit order.
        a.txn(Some(if sync { "sync=on" } else { "sync=off" }), &[(&format!("w{w}x{i}"), &v), (&format!("w{w}y"), &v)])
            .unwrap();
        if sync {
            seen[w].store(i, Ordering::Relaxed);
        }
    });
    let stats = conn.durable().unwrap().journal_stats();
    assert!(stats.syncs <= stats.sync_commits + 10, "{stats:?}");
    crash(conn);
    let conn = open(&dir, "log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "a");
    for (w, synced) in synced.iter().enumerate() {
        // Recovery holds a prefix 1..=n of each writer's transactions, n at least the last
        // synced one, and the shared key holds n.
        let n: u64 = a.get(&format!("w{w}y")).expect("the shared key").parse().unwrap();
        assert!(n >= synced.load(Ordering::Relaxed), "writer {w}");
        for i in 1..=n {
            assert_eq!(a.get(&format!("w{w}x{i}")), Some(i.to_string()), "writer {w} txn {i}");
        }
        assert_eq!(a.get(&format!("w{w}x{}", n + 1)), None, "writer {w}");
    }
}

#[path = "fault_tests.rs"]
mod fault_tests;
#[path = "read_fault_tests.rs"]
mod read_fault_tests;

/// Issue 13: a writer's merge past the dirty trigger retires what it carries while another
/// session's transaction runs a commit behind (the merge is taken as of the oldest snapshot;
/// taken as of the newest commit, it retired nothing and the index kept every row).
#[test]
fn writers_merges_retire_beside_a_transaction_one_commit_behind() {
    let home = home();
    let conn = open(&home, "create,cache_size=1MB,log=(enabled=true)").unwrap();
    let mut a = S::new(&conn, "t");
    let mut b = S::new(&conn, "t");
    let value = "v".repeat(100);
    let rows = 20_000;
    for i in 0..rows {
        // B reads in a new transaction: its snapshot is the newest commit, then A commits.
        b.s.begin_transaction(None).unwrap();
        assert_eq!(b.get("k0000000").is_some(), i > 0);
        a.put(&format!("k{i:07}"), &value).unwrap();
        b.s.rollback_transaction(None).unwrap();
    }
    let held = conn.registry().get("t").unwrap().index().len_hint();
    assert!(held < rows / 4, "the index still holds {held} of {rows} rows");
    for i in (0..rows).step_by(997) {
        assert_eq!(a.get(&format!("k{i:07}")).as_deref(), Some(value.as_str()), "row {i}");
    }
}
