//! Model checks of the lock-free protocols (ARCHITECTURE.md, "Concurrency rules"): `loom`
//! runs each test body under every interleaving of its threads (up to a preemption bound) and
//! every outcome the memory model allows for the atomics of `crate::sync`, and reports a data
//! race on a `loom::cell::UnsafeCell` as a failure. Run with
//! `RUSTFLAGS="--cfg loom" cargo test --release --lib loom_tests` (TESTING.md).

use std::sync::atomic::Ordering::Relaxed;

use loom::cell::UnsafeCell;
use loom::sync::atomic::AtomicUsize;
use loom::sync::Arc;
use loom::thread;

use crate::conn::SessionSlots;
use crate::durable::frame::HEADER_LEN;
use crate::durable::slots::{Ring, SLOT_BYTES};
use crate::schema::test_table;
use crate::stats::counters::{ConnStat, SlotStats, Summer};
use crate::txn::clock::CommitClock;

/// Every interleaving with at most `bound` preemptions (loom's default is unbounded).
fn model(bound: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    // LOOM_MAX_PREEMPTIONS, when set, overrides (a deeper search when a model changes).
    b.preemption_bound = b.preemption_bound.or(Some(bound));
    b.check(f);
}

/// The commit clock: a snapshot (`now`) never includes a timestamp whose versions are not
/// stamped yet — the stamps, written before `complete`, happen before every read of a
/// snapshot that includes them (else loom reports the cell accesses as a race) — and
/// `complete` returns only once its timestamp is published.
#[test]
fn commit_clock_publishes_in_order() {
    model(5, || {
        let clock = Arc::new(CommitClock::new(2));
        // stamps[ts]: the "versions" of commit ts.
        let stamps: Arc<[UnsafeCell<bool>; 3]> = Arc::new(std::array::from_fn(|_| UnsafeCell::new(false)));
        let committers: Vec<_> = (0..2)
            .map(|_| {
                let (clock, stamps) = (Arc::clone(&clock), Arc::clone(&stamps));
                thread::spawn(move || {
                    let ts = clock.issue();
                    // SAFETY: commit `ts`'s own versions, written before it completes.
                    stamps[ts as usize].with_mut(|s| unsafe { *s = true });
                    clock.complete(ts);
                    let now = clock.now();
                    assert!(now >= ts);
                    // A committer that published an earlier commit for its committer reads it.
                    for earlier in 1..=now {
                        // SAFETY: a read; loom checks it is ordered after the write.
                        assert!(stamps[earlier as usize].with(|s| unsafe { *s }));
                    }
                })
            })
            .collect();
        let seen = clock.now();
        for ts in 1..=seen {
            // SAFETY: a read; loom checks it is ordered after the committer's write.
            assert!(stamps[ts as usize].with(|s| unsafe { *s }), "snapshot {seen} includes an unstamped commit {ts}");
        }
        for c in committers {
            c.join().unwrap();
        }
        assert_eq!(clock.now(), 2);
    });
}

/// Session slots: two threads never hold one slot at once, and a slot's release hands what
/// its holder wrote to the next claimer (the session's plain, unlocked state).
#[test]
fn session_slot_claims_exclude() {
    model(3, || {
        let slots = Arc::new(SessionSlots::new(1));
        let state = Arc::new(UnsafeCell::new(0u32));
        let claimed = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..2)
            .map(|i| {
                let (slots, state, claimed) = (Arc::clone(&slots), Arc::clone(&state), Arc::clone(&claimed));
                thread::spawn(move || {
                    let slot = if i == 0 { slots.claim() } else { slots.claim_near(0) };
                    if let Ok(slot) = slot {
                        // SAFETY: the claim makes this thread the slot's only user; loom
                        // reports any overlap with the other thread's use as a race.
                        state.with_mut(|s| unsafe { *s += 1 });
                        claimed.fetch_add(1, Relaxed);
                        slots.release(slot);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        // SAFETY: both threads are joined.
        assert_eq!(state.with(|s| unsafe { *s }), claimed.load(Relaxed) as u32);
        assert!(slots.claim().is_ok(), "every slot is free again");
    });
}


/// Drop against a cursor open (the cursor cache's reuse takes the same path): the SeqCst
/// fences pair so that either the drop sees the open cursor (`EBUSY`) or the open sees the
/// drop (`ENOENT`), never neither.
#[test]
fn drop_fence_sees_the_open_or_the_open_sees_the_drop() {
    model(3, || {
        let t = Arc::new(test_table());
        let record = t.register_use();
        let opener = {
            let t = Arc::clone(&t);
            thread::spawn(move || {
                let opened = t.acquire_quick(&record);
                (opened, record)
            })
        };
        let dropped = t.begin_drop().is_ok();
        let (opened, record) = opener.join().unwrap();
        assert!(!(opened && dropped), "a cursor opened on a table that was dropped");
        if opened {
            assert_eq!(record.open_cursors(), 1);
        }
    });
}

/// The statistics dirty bitmap: a reader running while a session records misses nothing for
/// good — the next read by the same reader after the events (here, after the join) has them
/// all, though the race may have kept the session from marking itself for it.
#[test]
fn statistics_bitmap_loses_no_event() {
    model(3, || {
        let stats = Arc::new(SlotStats::new(2));
        let session = {
            let stats = Arc::clone(&stats);
            thread::spawn(move || {
                let s = stats.slot(1);
                s.add(ConnStat::Resets, 1);
                s.add(ConnStat::Resets, 1);
            })
        };
        let reader = {
            let stats = Arc::clone(&stats);
            thread::spawn(move || {
                let mut summer = Summer::default();
                let seen = summer.sum(&stats)[ConnStat::Resets as usize];
                assert!((0..=2).contains(&seen));
                summer
            })
        };
        session.join().unwrap();
        let mut summer = reader.join().unwrap();
        assert_eq!(summer.sum(&stats)[ConnStat::Resets as usize], 2);
    });
}

/// The journal's commit path: two committers join the open slot, fill and release their
/// frames while the writer closes slots and writes each once every joiner released it. Every
/// frame arrives once, whole (a reserved range is never shared: loom checks the slot bytes'
/// accesses through the state word's ordering), and slots are written in order.
#[test]
fn journal_slots_deliver_every_frame_whole() {
    model(2, || {
        let ring = Arc::new(Ring::new());
        // Two frames that do not fit one slot together: the second join closes the slot.
        let len = SLOT_BYTES / 2 + 1;
        let committers: Vec<_> = (1..=2u8)
            .map(|tag| {
                let ring = Arc::clone(&ring);
                thread::spawn(move || {
                    let j = ring.join(len, &mut || thread::yield_now());
                    let mut header = [0u8; HEADER_LEN];
                    header[..4].copy_from_slice(&((len - HEADER_LEN) as u32).to_le_bytes());
                    ring.fill(&j, header, &vec![tag; len - HEADER_LEN], false);
                    ring.release(j);
                })
            })
            .collect();
        // The writer: close the open slot, wait for its joiners, take its frames.
        let mut got = Vec::new();
        let mut next = 1;
        while got.len() < 2 {
            let closed = ring.close(None, 1, &mut || thread::yield_now());
            while next <= closed {
                if !ring.ready(next) {
                    break;
                }
                let (bytes, marked) = ring.take(next);
                assert!(marked.is_empty());
                for frame in bytes.chunks(len) {
                    assert_eq!(frame.len(), len);
                    let tag = frame[HEADER_LEN];
                    assert!(frame[HEADER_LEN..].iter().all(|&b| b == tag), "a torn frame");
                    got.push(tag);
                }
                ring.free(next);
                next += 1;
            }
            thread::yield_now();
        }
        for c in committers {
            c.join().unwrap();
        }
        got.sort_unstable();
        assert_eq!(got, [1, 2]);
    });
}


/// The ordered index's leaf latch (`store::ordered`): a reader whose version check passes saw
/// every store of the writer's critical section or none of them, and two writers exclude each
/// other.
#[test]
fn leaf_latch_readers_see_whole_writes() {
    use crate::store::ordered::Latch;
    use loom::sync::atomic::AtomicU64;
    model(3, || {
        let leaf = Arc::new((Latch::new(), AtomicU64::new(0), AtomicU64::new(0)));
        let writer = {
            let leaf = leaf.clone();
            thread::spawn(move || {
                let locked = leaf.0.lock().expect("not obsolete");
                leaf.1.store(1, Relaxed);
                leaf.2.store(1, Relaxed);
                drop(locked);
            })
        };
        if let Some(v) = leaf.0.begin_read() {
            let (a, b) = (leaf.1.load(Relaxed), leaf.2.load(Relaxed));
            if leaf.0.still(v) {
                assert_eq!(a, b, "a validated read saw half a write");
            }
        }
        writer.join().unwrap();
    });
    model(3, || {
        let leaf = Arc::new((Latch::new(), AtomicU64::new(0)));
        let writers: Vec<_> = (0..2)
            .map(|_| {
                let leaf = leaf.clone();
                thread::spawn(move || {
                    let locked = leaf.0.lock().expect("not obsolete");
                    let n = leaf.1.load(Relaxed);
                    leaf.1.store(n + 1, Relaxed);
                    drop(locked);
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        assert_eq!(leaf.1.load(Relaxed), 2, "writers overlapped");
    });
}
