//! Version chains: visibility walks, conflicts at the write, rollback unlinking, pruning and
//! retirement. Small enough for Miri (`cargo +nightly miri test --lib store::mvcc_tests`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use scc::Guard;

use super::*;

/// Writes `value` (`None`: remove) to `key` as transaction `txn` reading at `snapshot`, and
/// commits it at `commit` (`None`: leaves it uncommitted).
fn write(
    idx: &Index,
    key: &[u8],
    value: Option<&[u8]>,
    mode: Mode,
    txn: u64,
    snapshot: u64,
    commit: Option<u64>,
) -> Result<(), Refused> {
    let guard = Guard::new();
    let data = value.map_or(Data::Tombstone, Data::value);
    let written = idx.write(key, data, mode, WriteCtx { txn, snapshot, read_ts: NO_READ_TS }, &guard)?;
    if let Some(ts) = commit {
        written.version.as_ref().unwrap().stamp(ts);
    }
    Ok(())
}

fn read(idx: &Index, key: &[u8], ts: u64, txn: u64) -> Option<Vec<u8>> {
    let guard = Guard::new();
    idx.read(key, &ReadView::at(ts, txn), &guard).map(<[u8]>::to_vec)
}

#[test]
fn a_view_sees_the_newest_version_committed_at_or_before_it_and_its_own() {
    let idx = Index::new();
    for (ts, v) in [(1u64, b"v1"), (3, b"v3"), (5, b"v5")] {
        write(&idx, b"k", Some(v), Mode::Upsert, 100 + ts, TS_LATEST, Some(ts)).unwrap();
    }
    write(&idx, b"k", Some(b"p7"), Mode::Upsert, 7, TS_LATEST, None).unwrap();
    assert_eq!(read(&idx, b"k", 0, 0), None);
    assert_eq!(read(&idx, b"k", 1, 0).as_deref(), Some(&b"v1"[..]));
    assert_eq!(read(&idx, b"k", 2, 0).as_deref(), Some(&b"v1"[..]));
    assert_eq!(read(&idx, b"k", 4, 0).as_deref(), Some(&b"v3"[..]));
    assert_eq!(read(&idx, b"k", 9, 0).as_deref(), Some(&b"v5"[..]));
    // The writer sees its own uncommitted version; read-uncommitted sees it too.
    assert_eq!(read(&idx, b"k", 2, 7).as_deref(), Some(&b"p7"[..]));
    assert_eq!(read(&idx, b"k", TS_PENDING, 0).as_deref(), Some(&b"p7"[..]));
    // Scans apply the same view.
    let guard = Guard::new();
    assert_eq!(idx.first(ReadView::at(0, 0), &guard), None);
    assert_eq!(idx.first(ReadView::at(4, 0), &guard), Some((&b"k"[..], &b"v3"[..])));
    // A removal is visible as absence from its timestamp on.
    drop(guard);
    let idx = Index::new();
    write(&idx, b"k", Some(b"a"), Mode::Upsert, 1, TS_LATEST, Some(1)).unwrap();
    write(&idx, b"k", None, Mode::Remove, 2, TS_LATEST, Some(2)).unwrap();
    assert_eq!(read(&idx, b"k", 1, 0).as_deref(), Some(&b"a"[..]));
    assert_eq!(read(&idx, b"k", 2, 0), None);
}

#[test]
fn conflicts_are_decided_before_existence() {
    let idx = Index::new();
    write(&idx, b"k", Some(b"base"), Mode::Upsert, 1, TS_LATEST, Some(1)).unwrap();
    // Another transaction's uncommitted head: every mode conflicts, but an insert-if-absent of
    // a key the writer's snapshot sees is a duplicate first, as in the reference (TESTING.md).
    write(&idx, b"k", Some(b"t2"), Mode::Upsert, 2, 1, None).unwrap();
    for mode in [Mode::Upsert, Mode::UpdateExisting, Mode::Remove] {
        assert_eq!(write(&idx, b"k", Some(b"t3"), mode, 3, 1, None), Err(Refused::Conflict));
    }
    assert_eq!(write(&idx, b"k", Some(b"t3"), Mode::InsertNew, 3, 1, None), Err(Refused::Exists));
    assert_eq!(write(&idx, b"k", Some(b"t3"), Mode::InsertNew, 3, 0, None), Err(Refused::Conflict));
    // The owner writes on: insert of its own live key is a duplicate, not a conflict.
    assert_eq!(write(&idx, b"k", Some(b"x"), Mode::InsertNew, 2, 1, None), Err(Refused::Exists));
    write(&idx, b"k", None, Mode::Remove, 2, 1, None).unwrap();
    assert_eq!(write(&idx, b"k", None, Mode::Remove, 2, 1, None), Err(Refused::Missing));
    // Committed after a snapshot: a conflict for that snapshot, not for a newer one.
    let guard = Guard::new();
    let slot = idx.slot(b"k", &guard).unwrap();
    let head = slot.head.load(Ordering::Acquire, &guard);
    let mut v = head.as_ref();
    while let Some(version) = v {
        if version.txn_id.load(Ordering::Relaxed) == 2 {
            version.stamp(4);
        }
        v = version.next.load(Ordering::Acquire, &guard).as_ref();
    }
    drop(guard);
    assert_eq!(write(&idx, b"k", Some(b"t5"), Mode::Upsert, 5, 3, None), Err(Refused::Conflict));
    // The snapshot at 3 still sees "base": a duplicate, not a conflict.
    assert_eq!(write(&idx, b"k", Some(b"t5"), Mode::InsertNew, 5, 3, None), Err(Refused::Exists));
    write(&idx, b"k", Some(b"t5"), Mode::InsertNew, 5, 4, Some(6)).unwrap();
    assert_eq!(read(&idx, b"k", 6, 0).as_deref(), Some(&b"t5"[..]));
    assert_eq!(read(&idx, b"k", 5, 0), None);
    assert_eq!(read(&idx, b"k", 3, 0).as_deref(), Some(&b"base"[..]));
}

#[test]
fn rollback_unlinks_and_hides_the_aborted_version() {
    let idx = Index::new();
    write(&idx, b"k", Some(b"base"), Mode::Upsert, 1, TS_LATEST, Some(1)).unwrap();
    let guard = Guard::new();
    let written = idx.write(b"k", Data::value(b"t2"), Mode::Upsert, WriteCtx { txn: 2, snapshot: 1, read_ts: NO_READ_TS }, &guard).unwrap();
    let held = written.version.as_ref().unwrap();
    assert!(written.slot.as_ref().unwrap().unlink_pending(written.version, &guard));
    assert_eq!(held.commit_ts.load(Ordering::Acquire), TS_ABORTED);
    // A reader still holding the aborted version walks past it, at every level.
    let view = ReadView::uncommitted(0);
    assert!(!view.sees(held));
    assert_eq!(read(&idx, b"k", TS_PENDING, 0).as_deref(), Some(&b"base"[..]));
    // The key is free for others again.
    write(&idx, b"k", Some(b"t3"), Mode::Upsert, 3, 1, Some(2)).unwrap();
    // A rolled-back insert leaves an empty slot, which can leave the index.
    let fresh = idx.write(b"new", Data::value(b"x"), Mode::InsertNew, WriteCtx { txn: 4, snapshot: 2, read_ts: NO_READ_TS }, &guard).unwrap();
    assert!(fresh.was_empty);
    let slot = fresh.slot.as_ref().unwrap();
    assert!(slot.unlink_pending(fresh.version, &guard));
    assert!(idx.retire_if_removed(b"new", slot, 0, NO_READ_TS, &guard));
    drop(guard);
    assert_eq!(idx.version_stats().slots, 1);
    assert_eq!(read(&idx, b"new", TS_PENDING, 0), None);
}

#[test]
fn prune_keeps_what_the_oldest_snapshot_sees() {
    let idx = Index::new();
    for ts in 1..=6u64 {
        write(&idx, b"k", Some(&[ts as u8]), Mode::Upsert, 10 + ts, TS_LATEST, Some(ts)).unwrap();
    }
    write(&idx, b"k", Some(b"p"), Mode::Upsert, 99, TS_LATEST, None).unwrap();
    assert_eq!(idx.version_stats().versions, 7);
    let guard = Guard::new();
    let slot = idx.slot(b"k", &guard).unwrap();
    // Oldest snapshot at 3: the uncommitted head, 6, 5, 4 and the base 3 stay.
    assert_eq!(slot.prune(3, NO_READ_TS, &guard), 5);
    assert_eq!(slot.chain_stats(&guard).0, 5);
    assert_eq!(read(&idx, b"k", 3, 0).as_deref(), Some(&[3u8][..]));
    assert_eq!(read(&idx, b"k", 2, 0), None, "nothing below the base is left");
    assert_eq!(slot.prune(100, NO_READ_TS, &guard), 2);
    assert_eq!(read(&idx, b"k", 100, 0).as_deref(), Some(&[6u8][..]));
    // The uncommitted head commits at 7.
    slot.head.load(Ordering::Acquire, &guard).as_ref().unwrap().stamp(7);
    drop(guard);
    // A removal every reader sees retires the slot.
    write(&idx, b"k", None, Mode::Remove, 100, TS_LATEST, Some(8)).unwrap();
    let guard = Guard::new();
    let slot = idx.slot(b"k", &guard).unwrap();
    assert!(!idx.retire_if_removed(b"k", slot, 7, NO_READ_TS, &guard), "a snapshot at 7 still sees the value");
    assert!(idx.retire_if_removed(b"k", slot, 8, NO_READ_TS, &guard));
    drop(guard);
    assert_eq!(idx.version_stats().slots, 0);
    // The key can come back.
    write(&idx, b"k", Some(b"back"), Mode::InsertNew, 101, TS_LATEST, Some(9)).unwrap();
    assert_eq!(read(&idx, b"k", 9, 0).as_deref(), Some(&b"back"[..]));
}

/// A writer commits new versions of a few keys (stamping after installing, then completing the
/// timestamp, as commits do) and prunes behind the oldest pinned snapshot while readers pin
/// snapshots and walk the chains: every reader finds exactly the value committed at its
/// timestamp (every key is rewritten at every timestamp, with the timestamp as its value).
#[test]
fn readers_walk_chains_while_a_writer_commits_and_prunes() {
    use crate::txn::clock::CommitClock;
    use crate::txn::pins::Pins;

    let idx = Arc::new(Index::new());
    let keys: Vec<[u8; 1]> = (0..3u8).map(|k| [k]).collect();
    for k in &keys {
        write(&idx, k, Some(&0u64.to_be_bytes()), Mode::Upsert, 1, TS_LATEST, Some(0)).unwrap();
    }
    let readers = 2;
    let clock = Arc::new(CommitClock::new(readers + 1));
    let pins = Arc::new(Pins::new(readers + 1));
    let stop = Arc::new(AtomicBool::new(false));
    let rounds = if cfg!(miri) { 30u64 } else { 3_000 };
    let handles: Vec<_> = (0..readers)
        .map(|slot| {
            let (idx, clock, pins, stop, keys) =
                (Arc::clone(&idx), Arc::clone(&clock), Arc::clone(&pins), Arc::clone(&stop), keys.clone());
            pins.attach(slot);
            std::thread::spawn(move || {
                let mut reads = 0u64;
                while !stop.load(Ordering::Acquire) {
                    let ts = pins.pin(slot, &clock);
                    let guard = Guard::new();
                    for k in &keys {
                        let v = idx.read(k, &ReadView::at(ts, 0), &guard).expect("a visible version");
                        assert_eq!(u64::from_be_bytes(v.try_into().unwrap()), ts, "the value committed at {ts}");
                    }
                    drop(guard);
                    pins.unpin(slot);
                    reads += 1;
                    if cfg!(miri) {
                        std::thread::yield_now();
                    }
                }
                reads
            })
        })
        .collect();
    for txn in 1..=rounds {
        let guard = Guard::new();
        let snapshot = clock.now();
        let installed: Vec<_> = keys
            .iter()
            .map(|k| {
                idx.write(k, Data::value(&(snapshot + 1).to_be_bytes()), Mode::Upsert, WriteCtx { txn: 1000 + txn, snapshot, read_ts: NO_READ_TS }, &guard)
                    .unwrap()
            })
            .collect();
        let ts = clock.issue();
        assert_eq!(ts, snapshot + 1);
        for w in &installed {
            w.version.as_ref().unwrap().stamp(ts);
        }
        clock.complete(ts);
        let oldest = pins.oldest(&clock);
        for w in &installed {
            w.slot.as_ref().unwrap().prune(oldest, NO_READ_TS, &guard);
        }
    }
    stop.store(true, Ordering::Release);
    for h in handles {
        h.join().unwrap();
    }
    let guard = Guard::new();
    for k in &keys {
        idx.slot(k, &guard).unwrap().prune(clock.now(), NO_READ_TS, &guard);
    }
    assert_eq!(idx.version_stats().versions, keys.len());
}
