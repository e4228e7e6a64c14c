//! The index layered over a tree against a model of every key's history: random committed
//! writes, merges at snapshots between the last merge and now (with older readers still
//! running), and reads and positioning at every snapshot readers may hold.

use std::collections::BTreeMap;

use scc::Guard;

use super::*;
use crate::btree::tests::{dir, new_tree, Rng};

/// Each key's committed history: (commit timestamp, value or removal), oldest first.
type History = BTreeMap<Vec<u8>, Vec<(u64, Option<Vec<u8>>)>>;

fn state_at(history: &History, ts: u64) -> BTreeMap<Vec<u8>, Vec<u8>> {
    history
        .iter()
        .filter_map(|(k, versions)| {
            let (_, v) = versions.iter().rev().find(|(at, _)| *at <= ts)?;
            v.as_ref().map(|v| (k.clone(), v.clone()))
        })
        .collect()
}

fn key(i: u64) -> Vec<u8> {
    format!("k{i:05}").into_bytes()
}

/// Writes as its own transaction committed at `ts`.
fn commit(index: &Index, layers: Layers<'_>, key: &[u8], value: Option<&[u8]>, mode: Mode, ts: u64) -> Result<(), Refused> {
    let guard = Guard::new();
    let data = value.map_or(Data::Tombstone, Data::value);
    let written = index.write_over(key, data, mode, WriteCtx { txn: ts + 1_000_000, snapshot: TS_LATEST, read_ts: NO_READ_TS }, &guard, false, &mut |ts| {
        layers.below(key, ts).ok()
    })?;
    written.version.as_ref().unwrap().stamp(ts);
    Ok(())
}

fn check_at(layers: Layers<'_>, history: &History, ts: u64, rng: &mut Rng) {
    let want = state_at(history, ts);
    let view = ReadView::at(ts, TXN_COMMITTED);
    let guard = Guard::new();
    for i in 0..400 {
        let k = key(i);
        let got = layers.read(&k, &view, &guard).unwrap().map(|v| v.into_owned());
        assert_eq!(got.as_ref(), want.get(&k), "read {} at {ts}", String::from_utf8_lossy(&k));
    }
    // A full scan each way, and seeks from random probes.
    let mut forward = Vec::new();
    let mut at = layers.seek(None, Seek::Gt, view, &guard).unwrap().map(|(k, v)| (k.into_owned(), v.into_owned()));
    while let Some((k, v)) = at {
        at = layers.seek(Some(&k), Seek::Gt, view, &guard).unwrap().map(|(k, v)| (k.into_owned(), v.into_owned()));
        forward.push((k, v));
    }
    assert_eq!(forward, want.iter().map(|(k, v)| (k.clone(), v.clone())).collect::<Vec<_>>(), "scan at {ts}");
    let last = layers.seek(None, Seek::Lt, view, &guard).unwrap().map(|(k, _)| k.into_owned());
    assert_eq!(last.as_ref(), want.keys().next_back());
    for _ in 0..50 {
        let probe = format!("k{:05}", rng.next(410)).into_bytes();
        use std::ops::Bound::*;
        let ge = want.range::<Vec<u8>, _>((Included(&probe), Unbounded)).next().map(|(k, _)| k.clone());
        let lt = want.range::<Vec<u8>, _>((Unbounded, Excluded(&probe))).next_back().map(|(k, _)| k.clone());
        let got = |dir| layers.seek(Some(&probe), dir, view, &guard).unwrap().map(|(k, _)| k.into_owned());
        assert_eq!(got(Seek::Ge), ge, "Ge at {ts}");
        assert_eq!(got(Seek::Lt), lt, "Lt at {ts}");
    }
}

#[test]
fn layers_match_the_history_across_merges() {
    let (_d, disk) = dir();
    let tree = new_tree(&disk);
    let index = Index::layered();
    let layers = Layers { index: &index, tree: Some(&tree) };
    let mut rng = Rng(11);
    let mut history = History::new();
    let mut now = 0u64;
    // The oldest snapshot a reader holds, and the last merge's timestamp.
    let mut oldest = 0u64;
    for round in 0..40 {
        for _ in 0..80 {
            now += 1;
            let k = key(rng.next(400));
            let live = state_at(&history, now).contains_key(&k);
            let (value, mode) = match rng.next(4) {
                0 => (None, Mode::Remove),
                1 => (Some(format!("i{now}").into_bytes()), Mode::InsertNew),
                2 => (Some(format!("u{now}").into_bytes()), Mode::UpdateExisting),
                _ => (Some(format!("p{now}").into_bytes()), Mode::Upsert),
            };
            let got = commit(&index, layers, &k, value.as_deref(), mode, now);
            let want = match mode {
                Mode::InsertNew if live => Err(Refused::Exists),
                Mode::UpdateExisting | Mode::Remove if !live => Err(Refused::Missing),
                _ => Ok(()),
            };
            assert_eq!(got, want, "{mode:?} of {} (live: {live})", String::from_utf8_lossy(&k));
            if got.is_ok() {
                history.entry(k).or_default().push((now, value));
            }
        }
        // Readers move on now and then; a merge runs at a snapshot between the oldest and now.
        if rng.next(2) == 0 {
            oldest += rng.next(now - oldest + 1);
        }
        let at = oldest + rng.next(now - oldest + 1);
        // Chunks of every size: one row, a few rows, a few hundred bytes, one chunk for all.
        let limits = [(1, usize::MAX), (7, usize::MAX), (usize::MAX, 300), (usize::MAX, usize::MAX)][rng.next(4) as usize];
        let counted = layers.merge_chunked(at, NO_READ_TS, || Horizon { seq: oldest, ts: NO_READ_TS }, limits).unwrap();
        // The merge's own count of what the index keeps is the measure of it (the cache's
        // estimate after a merge), whether it retired slots or kept them for older readers.
        assert_eq!(counted, Some(index.footprint()), "merge at {at}, oldest {oldest}");
        // The layer keeps its slots in the ordered index alone (this checks its hash indexes
        // are empty): the reads below find them by descent.
        index.tree_entries();
        if round % 5 == 0 {
            tree.evict_all();
        }
        for ts in [oldest, (oldest + now) / 2, now] {
            check_at(layers, &history, ts, &mut rng);
        }
    }
    // Every reader gone: a merge at now empties the index, and the tree alone answers.
    assert_eq!(layers.merge(now, NO_READ_TS, || Horizon { seq: now, ts: NO_READ_TS }).unwrap(), Some(0));
    assert_eq!(index.version_stats().slots, 0);
    check_at(layers, &history, now, &mut rng);
}

#[test]
fn a_stepping_cursor_keeps_its_snapshot_while_merges_replace_the_tree() {
    let (_d, disk) = dir();
    let tree = new_tree(&disk);
    let index = Index::layered();
    let layers = Layers { index: &index, tree: Some(&tree) };
    let mut rng = Rng(21);
    let mut history = History::new();
    let mut now = 0;
    for i in 0..400 {
        now += 1;
        commit(&index, layers, &key(i), Some(b"first"), Mode::Upsert, now).unwrap();
        history.entry(key(i)).or_default().push((now, Some(b"first".to_vec())));
    }
    layers.merge(now, NO_READ_TS, || Horizon { seq: now, ts: NO_READ_TS }).unwrap();
    // A reader at `snap` steps through the table, forward then back, while every few steps
    // writers change keys ahead of it and a merge gives the tree a new version.
    let snap = now;
    let want: Vec<Vec<u8>> = state_at(&history, snap).into_keys().collect();
    for dir in [Seek::Gt, Seek::Lt] {
        let view = ReadView::at(snap, TXN_COMMITTED);
        let mut hint = SeekHint::default();
        let mut at: Option<Vec<u8>> = None;
        let mut seen = Vec::new();
        loop {
            let guard = Guard::new();
            let Some((k, v)) = layers.seek_hinted(at.as_deref(), dir, view, &guard, &mut hint).unwrap() else { break };
            assert_eq!(v.as_ref(), b"first", "the snapshot's value of {}", String::from_utf8_lossy(&k));
            seen.push(k.to_vec());
            at = Some(k.into_owned());
            drop(guard);
            if seen.len() % 7 == 0 {
                for _ in 0..10 {
                    now += 1;
                    let k = key(rng.next(400));
                    let removed = rng.next(3) == 0;
                    let value = if removed { None } else { Some(&b"later"[..]) };
                    commit(&index, layers, &k, value, Mode::Upsert, now).unwrap();
                }
                layers.merge(now, NO_READ_TS, || Horizon { seq: snap, ts: NO_READ_TS }).unwrap();
            }
        }
        let mut expected = want.clone();
        if dir == Seek::Lt {
            expected.reverse();
        }
        assert_eq!(seen, expected, "scan {dir:?} at the snapshot");
    }
}
