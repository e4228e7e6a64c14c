//! The prefix map of a secondary index ([`super::prefixes`]): its answers agree with the
//! ordered seek under every kind of write, snapshots included, and concurrent churn never hides
//! a key that stays.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use scc::Guard;

use super::prefixes::MAX_MEMBERS;
use super::tests::Rng;
use super::*;

/// Keys of these tests: a 4-byte prefix (the "index columns"), then the rest.
const PREFIX: usize = 4;

fn index() -> Index {
    Index::new().with_prefixes(Box::new(|key: &[u8]| (key.len() >= PREFIX).then_some(PREFIX)))
}

fn key(prefix: u32, rest: u16) -> Vec<u8> {
    let mut k = prefix.to_be_bytes().to_vec();
    k.extend_from_slice(&rest.to_be_bytes());
    k
}

/// What the map answers for `prefix` in `view`, owned.
fn by_map(idx: &Index, prefix: u32, view: ReadView) -> Option<(Vec<u8>, Vec<u8>)> {
    let guard = Guard::new();
    idx.seek_prefix(&prefix.to_be_bytes(), &view, &guard).map(|(k, v)| (k.to_vec(), v.to_vec()))
}

/// What the ordered seek answers for `prefix` in `view`: the first entry at or after it, if it
/// starts with it.
fn by_seek(idx: &Index, prefix: u32, view: ReadView) -> Option<(Vec<u8>, Vec<u8>)> {
    let guard = Guard::new();
    let p = prefix.to_be_bytes();
    idx.seek(&p, Seek::Ge, view, &guard).filter(|(k, _)| k.starts_with(&p)).map(|(k, v)| (k.to_vec(), v.to_vec()))
}

#[test]
fn a_unique_prefix_is_found_by_the_map_and_a_removed_one_is_not() {
    let idx = index();
    idx.upsert(&key(7, 1), b"a");
    assert_eq!(by_map(&idx, 7, ReadView::LATEST), Some((key(7, 1), b"a".to_vec())));
    assert_eq!(by_map(&idx, 8, ReadView::LATEST), None);
    // A shorter or longer probe is not a prefix the map holds.
    let guard = Guard::new();
    assert_eq!(idx.seek_prefix(&[0, 0, 0], &ReadView::LATEST, &guard), None);
    assert_eq!(idx.seek_prefix(&key(7, 1), &ReadView::LATEST, &guard), None);
    drop(guard);
    idx.remove(&key(7, 1)).unwrap();
    assert_eq!(by_map(&idx, 7, ReadView::LATEST), None);
    idx.upsert(&key(7, 2), b"b");
    assert_eq!(by_map(&idx, 7, ReadView::LATEST), Some((key(7, 2), b"b".to_vec())));
}

#[test]
fn several_keys_of_a_prefix_answer_the_first_in_key_order() {
    let idx = index();
    for rest in [9u16, 3, 5] {
        idx.upsert(&key(1, rest), &rest.to_be_bytes());
    }
    assert_eq!(by_map(&idx, 1, ReadView::LATEST).unwrap().0, key(1, 3));
    idx.remove(&key(1, 3)).unwrap();
    assert_eq!(by_map(&idx, 1, ReadView::LATEST).unwrap().0, key(1, 5));
}

#[test]
fn a_crowded_prefix_is_left_to_the_seek() {
    let idx = index();
    for rest in 0..=MAX_MEMBERS as u16 {
        idx.upsert(&key(2, rest), b"v");
    }
    assert_eq!(by_map(&idx, 2, ReadView::LATEST), None);
    assert_eq!(by_seek(&idx, 2, ReadView::LATEST).unwrap().0, key(2, 0));
    // It stays crowded when keys leave: the map cannot count them without a lock.
    for rest in 1..=MAX_MEMBERS as u16 {
        idx.remove(&key(2, rest)).unwrap();
    }
    assert_eq!(by_map(&idx, 2, ReadView::LATEST), None);
    assert_eq!(by_seek(&idx, 2, ReadView::LATEST).unwrap().0, key(2, 0));
}

#[test]
fn a_key_that_does_not_split_turns_the_map_off() {
    let idx = index();
    idx.upsert(&key(3, 0), b"v");
    assert!(by_map(&idx, 3, ReadView::LATEST).is_some());
    idx.upsert(b"ab", b"short");
    assert_eq!(by_map(&idx, 3, ReadView::LATEST), None);
    assert_eq!(by_seek(&idx, 3, ReadView::LATEST).unwrap().0, key(3, 0));
}

#[test]
fn snapshots_see_the_members_they_should() {
    let idx = index();
    let write = |k: &[u8], value: Option<&[u8]>, txn: u64, commit: Option<u64>| {
        let guard = Guard::new();
        let data = value.map_or(Data::Tombstone, Data::value);
        let mode = if value.is_some() { Mode::Upsert } else { Mode::Remove };
        let written = idx.write(k, data, mode, WriteCtx { txn, snapshot: TS_LATEST, read_ts: NO_READ_TS }, &guard).unwrap();
        if let Some(ts) = commit {
            written.version.as_ref().unwrap().stamp(ts);
        }
    };
    write(&key(5, 4), Some(b"four"), 1, Some(10));
    write(&key(5, 2), Some(b"two"), 2, Some(20));
    write(&key(5, 1), Some(b"one"), 3, None);
    write(&key(5, 4), None, 4, Some(30));
    for (view, first) in [
        (ReadView::at(5, 0), None),
        (ReadView::at(10, 0), Some(key(5, 4))),
        (ReadView::at(25, 0), Some(key(5, 2))),
        (ReadView::at(35, 0), Some(key(5, 2))),
        // The writer of the uncommitted key sees it first.
        (ReadView::at(35, 3), Some(key(5, 1))),
    ] {
        assert_eq!(by_map(&idx, 5, view).map(|(k, _)| k), first, "view {view:?}");
        assert_eq!(by_seek(&idx, 5, view).map(|(k, _)| k), first, "view {view:?}");
    }
    // Pruned and retired once every reader sees the removal: the map forgets the slot.
    idx.prune_all(40, TS_LATEST);
    assert_eq!(by_map(&idx, 5, ReadView::at(40, 0)).map(|(k, _)| k), Some(key(5, 2)));
}

#[test]
fn random_writes_agree_with_the_seek_and_a_model() {
    let idx = index();
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    let mut rng = Rng::new(11);
    let mut answered = 0;
    for step in 0..20_000u32 {
        // Most prefixes get one or two keys, some up to 12 (past MAX_MEMBERS).
        let spread = if rng.below(4) == 0 { 12 } else { 2 };
        let k = key(rng.below(40) as u32, rng.below(spread) as u16);
        if rng.below(3) == 0 {
            let _ = idx.remove(&k);
            model.remove(&k);
        } else {
            let v = step.to_be_bytes();
            idx.upsert(&k, &v);
            model.insert(k, v.to_vec());
        }
        let p = rng.below(40) as u32;
        let expected = model
            .range(p.to_be_bytes().to_vec()..)
            .next()
            .filter(|(k, _)| k.starts_with(&p.to_be_bytes()))
            .map(|(k, v)| (k.clone(), v.clone()));
        let mapped = by_map(&idx, p, ReadView::LATEST);
        if mapped.is_some() {
            answered += 1;
            assert_eq!(mapped, expected, "step {step}, prefix {p}");
        }
        assert_eq!(by_seek(&idx, p, ReadView::LATEST), expected, "step {step}, prefix {p}");
    }
    // Prefixes that once held more than MAX_MEMBERS keys stay crowded, the others are answered.
    assert!(answered > 2_000, "the map answered {answered} times");
}

#[test]
fn churn_never_hides_a_key_that_stays() {
    // Every prefix keeps its smallest key for good; writers add and remove larger ones (groups
    // grow, shrink, crowd and get retired slots), readers must always land on the kept key.
    const PREFIXES: u32 = 64;
    let idx = Arc::new(index());
    for p in 0..PREFIXES {
        idx.upsert(&key(p, 0), b"kept");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..3u64)
        .map(|w| {
            let (idx, stop) = (Arc::clone(&idx), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut rng = Rng::new(100 + w);
                while !stop.load(Ordering::Relaxed) {
                    let k = key(rng.below(PREFIXES as u64) as u32, 1 + rng.below(6) as u16);
                    if rng.below(2) == 0 {
                        idx.upsert(&k, b"churn");
                    } else {
                        let _ = idx.remove(&k);
                    }
                }
            })
        })
        .collect();
    let mut rng = Rng::new(7);
    for _ in 0..200_000 {
        let p = rng.below(PREFIXES as u64) as u32;
        if let Some((k, v)) = by_map(&idx, p, ReadView::LATEST) {
            assert_eq!((k, v), (key(p, 0), b"kept".to_vec()));
        }
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.join().unwrap();
    }
    for p in 0..PREFIXES {
        assert_eq!(by_seek(&idx, p, ReadView::LATEST).unwrap().0, key(p, 0));
    }
}

#[test]
fn the_cache_estimate_counts_the_members() {
    let (with, without) = (index(), Index::new());
    for rest in 0..10u16 {
        with.upsert(&key(9, rest), b"v");
        without.upsert(&key(9, rest), b"v");
    }
    assert_eq!(without.entry_extra(), 0);
    assert_eq!(with.entry_extra(), super::prefixes::MEMBER_BYTES);
    assert_eq!(with.footprint(), without.footprint() + 10 * super::prefixes::MEMBER_BYTES);
}

#[test]
fn a_linked_map_points_at_the_row_until_the_row_gets_a_new_slot() {
    let rows = Arc::new(Index::new());
    let idx = index();
    idx.link_rows(&rows);
    let pk = 7u16.to_be_bytes();
    rows.upsert(&pk, b"row");
    idx.upsert(&key(1, 7), b"");
    let guard = Guard::new();
    let prefix = 1u32.to_be_bytes();
    let (entry, row) = idx.first_under(&prefix, &rows, &guard).expect("a member");
    assert_eq!(entry, &key(1, 7)[..]);
    assert_eq!(row.expect("linked").latest_value(&guard), Some(&b"row"[..]));
    // Asked about another table's rows, the member names no slot.
    assert!(idx.first_under(&prefix, &Index::new(), &guard).expect("a member").1.is_none());
    // The row removed (retired at once) and written again lives in a new slot: the member's
    // holds nothing, and the reader goes to the rows' hash index instead.
    rows.remove(&pk).unwrap();
    rows.upsert(&pk, b"again");
    let (_, row) = idx.first_under(&prefix, &rows, &guard).expect("a member");
    assert!(row.expect("linked").head.load(Ordering::Acquire, &guard).is_null());
    let head = rows.hashed_head(&pk, &guard).expect("the new slot");
    assert_eq!(head.value_in(&ReadView::LATEST, &guard), Some(&b"again"[..]));
    // An entry stored before the link names no row.
    let early = index();
    early.upsert(&key(2, 7), b"");
    early.link_rows(&rows);
    assert!(early.first_under(&2u32.to_be_bytes(), &rows, &guard).expect("a member").1.is_none());
}
