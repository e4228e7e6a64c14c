//! Slot reuse under stress: threads open sessions in the slots others closed, the way the C
//! layer does (claim the slot the thread released last, else any; reopen the session kept
//! there, else make one), with cursors, cached cursors, spares, writes and rollbacks, while the
//! connection statistics are read. Claims must be exclusive and every counter exact.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::conn::Connection;
use crate::stats::catalog::{
    CONN_CURSOR_CACHED_COUNT, CONN_CURSOR_CREATE, CONN_CURSOR_OPEN_COUNT, CONN_CURSOR_SEARCH, CONN_SESSION_OPEN,
};

use super::Session;

const THREADS: usize = 6;
const ROUNDS: usize = 2000;
const ROWS: u64 = 64;

/// The session kept in each slot, and whether a thread holds the slot (to catch a double
/// claim). The slot's claim already makes its claimant the only user of what is kept there;
/// the mutex only satisfies the borrow rules of the test (it is never contended).
struct Kept {
    sessions: Vec<Mutex<Option<Session>>>,
    held: Vec<AtomicBool>,
}

fn stat(conn: &Connection, id: i32) -> i64 {
    conn.statistics_snapshot(false).iter().find(|&&(i, _)| i == id).map_or(0, |&(_, v)| v)
}

fn key(s: &mut Session, c: super::CursorId, k: u64) {
    s.set_key_with(c, |format, buf| {
        Ok(crate::pack::pack(format, &[crate::pack::Arg::Uint(k)], buf)?)
    });
}

/// The key thread `thread` writes (and never commits) in round `round`.
fn written_key(thread: usize, round: usize) -> u64 {
    (1_000_000 + thread * ROUNDS + round) as u64
}

/// One thread's sessions; returns (searches, cursors created).
fn churn(conn: &Connection, kept: &Kept, thread: usize) -> (i64, i64) {
    let (mut searches, mut creates) = (0, 0);
    let mut hint = usize::MAX;
    for round in 0..ROUNDS {
        let slot = conn.slots().claim_near(hint).expect("a free slot");
        assert!(!kept.held[slot].swap(true, Ordering::AcqRel), "slot {slot} claimed twice");
        let mut entry = kept.sessions[slot].lock();
        let config = if round % 3 == 1 { Some("cache_cursors=false") } else { None };
        let mut s = match entry.take() {
            Some(mut s) => {
                assert!(s.is_parked() && s.slot() == slot);
                s.reopen(conn, config).expect("reopen");
                s
            }
            None => Session::open(conn, slot, config).expect("open"),
        };
        assert!(!s.is_parked() && !s.has_open_cursors());
        let cycles = 1 + (round + thread) % 3;
        for i in 0..cycles {
            let c = s.open_cursor(conn, "table:t", None).expect("cursor");
            // The first cursor of a session is new (a new session's cache is empty).
            assert!(!(i == 0 && c.reused));
            creates += i64::from(!c.reused);
            key(&mut s, c.id, (round * 7 + thread) as u64 % ROWS);
            s.search(c.id).expect("search");
            searches += 1;
            s.close_cursor(c.id).expect("close");
        }
        if round % 5 == 0 {
            // Left open, and written in a transaction the close rolls back.
            let c = s.open_cursor(conn, "table:t", None).expect("cursor");
            creates += i64::from(!c.reused);
            s.begin_transaction(None).expect("begin");
            key(&mut s, c.id, written_key(thread, round));
            s.set_value_with(c.id, |format, buf| {
                Ok(crate::pack::pack(format, &[crate::pack::Arg::Uint(1)], buf)?)
            });
            s.insert(c.id).expect("insert");
        }
        s.park();
        // Cursors the C layer would free handles of.
        let _ = s.take_freed();
        *entry = Some(s);
        drop(entry);
        kept.held[slot].store(false, Ordering::Release);
        conn.slots().release(slot);
        hint = slot;
    }
    (searches, creates)
}

#[test]
fn sessions_reopened_in_reused_slots_count_exactly_under_contention() {
    let dir = std::env::temp_dir().join(format!("unlatched-session-reuse-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let conn = Arc::new(
        Connection::open(dir.to_str(), Some("create,in_memory=true,statistics=(fast),session_max=8")).unwrap(),
    );
    let capacity = conn.slots().capacity();
    let kept = Arc::new(Kept {
        sessions: (0..capacity).map(|_| Mutex::new(None)).collect(),
        held: (0..capacity).map(|_| AtomicBool::new(false)).collect(),
    });
    {
        let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).unwrap();
        s.create(&conn, "table:t", Some("key_format=Q,value_format=Q")).unwrap();
        let c = s.open_cursor(&conn, "table:t", None).unwrap().id;
        for k in 0..ROWS {
            key(&mut s, c, k);
            s.set_value_with(c, |format, buf| {
                Ok(crate::pack::pack(format, &[crate::pack::Arg::Uint(k)], buf)?)
            });
            s.insert(c).unwrap();
        }
        let slot = s.slot();
        drop(s);
        conn.slots().release(slot);
    }
    let before: Vec<i64> =
        [CONN_SESSION_OPEN, CONN_CURSOR_OPEN_COUNT, CONN_CURSOR_CACHED_COUNT, CONN_CURSOR_SEARCH, CONN_CURSOR_CREATE]
            .iter()
            .map(|&id| stat(&conn, id))
            .collect();
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let (conn, kept) = (Arc::clone(&conn), Arc::clone(&kept));
            std::thread::spawn(move || churn(&conn, &kept, t))
        })
        .collect();
    // Meanwhile the open session count stays within what the threads can hold.
    for _ in 0..200 {
        let open = stat(&conn, CONN_SESSION_OPEN) - before[0];
        assert!((0..=THREADS as i64).contains(&open), "open sessions {open}");
    }
    let (mut searches, mut creates) = (0, 0);
    for w in workers {
        let (s, c) = w.join().unwrap();
        searches += s;
        creates += c;
    }
    assert_eq!(stat(&conn, CONN_SESSION_OPEN), before[0]);
    assert_eq!(stat(&conn, CONN_CURSOR_OPEN_COUNT), before[1]);
    assert_eq!(stat(&conn, CONN_CURSOR_CACHED_COUNT), before[2]);
    assert_eq!(stat(&conn, CONN_CURSOR_SEARCH) - before[3], searches);
    assert_eq!(stat(&conn, CONN_CURSOR_CREATE) - before[4], creates);
    // The rolled-back writes are gone.
    let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).unwrap();
    let c = s.open_cursor(&conn, "table:t", None).unwrap().id;
    for thread in 0..THREADS {
        for round in (0..ROUNDS).step_by(5) {
            key(&mut s, c, written_key(thread, round));
            assert!(s.search(c).is_err());
        }
    }
    drop(s);
    // Kept sessions are freed with their slots' table (the C layer's connection close).
    kept.sessions.iter().for_each(|k| drop(k.lock().take()));
    drop(conn);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_reopened_session_lets_go_of_tables_dropped_while_it_was_closed() {
    let dir = std::env::temp_dir().join(format!("unlatched-session-reuse-drop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let conn = Connection::open(dir.to_str(), Some("create,in_memory=true")).unwrap();
    let mut other = Session::open(&conn, conn.slots().claim().unwrap(), None).unwrap();
    other.create(&conn, "table:d", Some("key_format=Q,value_format=Q")).unwrap();
    let weak = Arc::downgrade(&conn.registry().get("d").unwrap());
    let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).unwrap();
    let c = s.open_cursor(&conn, "table:d", None).unwrap().id;
    s.close_cursor(c).unwrap();
    // Closed: the cached cursor is kept as a spare, the table handle in the session's map.
    s.park();
    assert!(s.take_freed().is_empty());
    other.drop_object(&conn, "table:d", None).unwrap();
    // Held by the closed session's map and its spare (and by the registry until its index's
    // copy is reclaimed, whenever the epoch collector gets to it).
    let held = weak.strong_count();
    s.reopen(&conn, None).unwrap();
    assert_eq!(s.take_freed(), vec![c], "the spare of the dropped table is freed");
    assert!(weak.strong_count() <= held - 2, "neither the map nor the spare holds the dropped table");
    drop((s, other));
    drop(conn);
    let _ = std::fs::remove_dir_all(&dir);
}
