//! The ordered index against `BTreeMap`, alone and under concurrent writers and readers.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sdd::{Guard, Owned, Shared};

use super::{Entry, Ordered};
use crate::store::key::{Key, Probe};
use crate::store::version::Slot;

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `n`, or `small` under Miri (which runs the same code about a thousand times slower).
fn scaled(n: u64, small: u64) -> u64 {
    if cfg!(miri) {
        small
    } else {
        n
    }
}

fn entry(key: &[u8]) -> Owned<Entry> {
    Owned::new(Entry { key: Key::new(key), slot: Shared::new(Slot::pending()) })
}

/// Keys of assorted lengths that share prefixes (short, 8-byte and long keys, some prefixes
/// of others).
fn key_of(n: u64) -> Vec<u8> {
    match n % 5 {
        4 => format!("tables/a-long-shared-prefix/{:06}/{}", n / 3, n % 7).into_bytes(),
        0 => format!("{n:010}").into_bytes(),
        1 => format!("{:010}-and-a-longer-tail-{n}", n - 1).into_bytes(),
        2 => (n as u32).to_be_bytes().to_vec(),
        _ => format!("{:08}", n / 7).into_bytes(),
    }
}

fn keys(tree: &Ordered) -> Vec<Vec<u8>> {
    let guard = Guard::new();
    tree.iter(&guard).map(|e| e.key.as_bytes().to_vec()).collect()
}

fn check_seeks(tree: &Ordered, model: &BTreeSet<Vec<u8>>, probe: &[u8]) {
    let guard = Guard::new();
    let p = Probe::new(probe);
    let got = |c: super::Cursor<'_>| c.get().map(|e| e.key.as_bytes().to_vec());
    assert_eq!(got(tree.seek_ge(&p, false, &guard)), model.range(probe.to_vec()..).next().cloned(), "ge {probe:?}");
    assert_eq!(
        got(tree.seek_ge(&p, true, &guard)),
        model.range::<[u8], _>((std::ops::Bound::Excluded(probe), std::ops::Bound::Unbounded)).next().cloned(),
        "gt {probe:?}"
    );
    assert_eq!(got(tree.seek_le(Some(&p), false, &guard)), model.range(..=probe.to_vec()).next_back().cloned(), "le {probe:?}");
    assert_eq!(got(tree.seek_le(Some(&p), true, &guard)), model.range(..probe.to_vec()).next_back().cloned(), "lt {probe:?}");
    assert_eq!(tree.get(&p, &guard).map(|e| e.key.as_bytes().to_vec()), model.get(probe).cloned());
}

#[test]
fn matches_a_btree_set_through_splits_and_removals() {
    let tree = Ordered::new();
    let mut model = BTreeSet::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..scaled(60_000, 3_000) {
        let k = key_of(rng.below(scaled(12_000, 1_500)));
        match rng.below(10) {
            0..=5 => {
                let guard = Guard::new();
                let (found, back) = tree.insert(entry(&k), &guard);
                assert_eq!(found.key.as_bytes(), &k[..]);
                assert_eq!(back.is_none(), model.insert(k.clone()), "insert {k:?}");
            }
            6..=8 => {
                let removed = tree.remove_if(&Probe::new(&k), |_| true);
                assert_eq!(removed, model.remove(&k), "remove {k:?}");
            }
            _ => check_seeks(&tree, &model, &k),
        }
        if round % 10_000 == 0 {
            assert_eq!(keys(&tree), model.iter().cloned().collect::<Vec<_>>());
        }
    }
    assert_eq!(keys(&tree), model.iter().cloned().collect::<Vec<_>>());
    let guard = Guard::new();
    let back: Vec<_> = tree.iter_rev(&guard).map(|e| e.key.as_bytes().to_vec()).collect();
    assert_eq!(back, model.iter().rev().cloned().collect::<Vec<_>>());
    // Drain it: emptied leaves leave, and the tree stays usable.
    for k in model.iter() {
        assert!(tree.remove_if(&Probe::new(k), |_| true));
    }
    assert!(tree.is_empty());
    check_seeks(&tree, &BTreeSet::new(), b"0000000100");
    let (_, back) = tree.insert(entry(b"again"), &guard);
    assert!(back.is_none());
    assert_eq!(keys(&tree), vec![b"again".to_vec()]);
}

#[test]
fn appends_fill_leaves_and_drain_from_the_left() {
    let tree = Ordered::new();
    let guard = Guard::new();
    let (total, drained) = (scaled(50_000, 2_000), scaled(40_000, 1_600));
    for n in 0..total {
        tree.insert(entry(&n.to_be_bytes()), &guard);
    }
    assert_eq!(tree.len() as u64, total);
    // A queue: remove from the left while appending on the right.
    for n in 0..drained {
        assert!(tree.remove_if(&Probe::new(&n.to_be_bytes()), |_| true));
        tree.insert(entry(&(total + n).to_be_bytes()), &guard);
    }
    let got: Vec<u64> = tree.iter(&guard).map(|e| u64::from_be_bytes(e.key.as_bytes().try_into().unwrap())).collect();
    assert_eq!(got, (drained..total + drained).collect::<Vec<_>>());
    // Cursors step both ways across leaves.
    let mid = drained + (total - drained) / 2;
    let mut c = tree.seek_ge(&Probe::new(&mid.to_be_bytes()), false, &guard);
    for n in mid + 1..mid + 200 {
        assert_eq!(c.next().unwrap().key.as_bytes(), n.to_be_bytes());
    }
    for n in (mid - 200..mid + 199).rev() {
        assert_eq!(c.prev().unwrap().key.as_bytes(), n.to_be_bytes());
    }
}

#[test]
fn remove_if_asks_the_predicate() {
    let tree = Ordered::new();
    let guard = Guard::new();
    tree.insert(entry(b"k"), &guard);
    assert!(!tree.remove_if(&Probe::new(b"k"), |_| false));
    assert!(tree.get(&Probe::new(b"k"), &guard).is_some());
    assert!(tree.remove_if(&Probe::new(b"k"), |_| true));
    assert!(tree.get(&Probe::new(b"k"), &guard).is_none());
}

/// Writers insert and remove their own keys while readers walk both ways: every key that is
/// never removed is always seen, in order, and the end state is exact.
#[test]
fn concurrent_writers_and_walking_readers() {
    const WRITERS: u64 = 4;
    let per = scaled(6_000, 300);
    let tree = Arc::new(Ordered::new());
    // Stable keys (multiples of 4 in each writer's space) go in first and never leave.
    {
        let guard = Guard::new();
        for w in 0..WRITERS {
            for i in (0..per).step_by(4) {
                tree.insert(entry(&(w * per + i).to_be_bytes()), &guard);
            }
        }
    }
    let stable: Vec<u64> = (0..WRITERS).flat_map(|w| (0..per).step_by(4).map(move |i| w * per + i)).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|r| {
            let (tree, stop, stable) = (tree.clone(), stop.clone(), stable.clone());
            std::thread::spawn(move || {
                let mut walks = 0;
                while !stop.load(Ordering::Relaxed) || walks < 3 {
                    let guard = Guard::new();
                    let seen: Vec<u64> = if r == 0 {
                        tree.iter(&guard).map(|e| u64::from_be_bytes(e.key.as_bytes().try_into().unwrap())).collect()
                    } else {
                        let mut v: Vec<u64> = tree
                            .iter_rev(&guard)
                            .map(|e| u64::from_be_bytes(e.key.as_bytes().try_into().unwrap()))
                            .collect();
                        v.reverse();
                        v
                    };
                    assert!(seen.windows(2).all(|w| w[0] < w[1]), "walk out of order");
                    let set: std::collections::HashSet<u64> = seen.into_iter().collect();
                    assert!(stable.iter().all(|k| set.contains(k)), "a stable key was missed");
                    // Point look-ups and positioning land on stable keys exactly.
                    for k in stable.iter().step_by(97) {
                        let key = k.to_be_bytes();
                        let p = Probe::new(&key);
                        assert!(tree.get(&p, &guard).is_some(), "get missed {k}");
                        for c in [tree.seek_ge(&p, false, &guard), tree.seek_le(Some(&p), false, &guard)] {
                            assert_eq!(c.get().map(|e| e.key.as_bytes()), Some(&key[..]), "seek missed {k}");
                        }
                        let mut c = tree.seek_ge(&p, true, &guard);
                        if let Some(landed) = c.get().map(|e| e.key.as_bytes().to_vec()) {
                            // `k` stays, so the step back lands on it, or on a key a writer
                            // put between it and the landing place since.
                            let back = c.prev().map(|e| e.key.as_bytes().to_vec()).unwrap_or_else(|| panic!("prev missed {k}"));
                            assert!(&key[..] <= &back[..] && back < landed, "prev from {landed:?} missed {k}: {back:?}");
                        }
                    }
                    walks += 1;
                }
            })
        })
        .collect();
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let tree = tree.clone();
            std::thread::spawn(move || {
                let mut rng = Rng(w + 1);
                for _ in 0..scaled(40_000, 400) {
                    let i = rng.below(per);
                    if i % 4 == 0 {
                        continue;
                    }
                    let k = (w * per + i).to_be_bytes();
                    let guard = Guard::new();
                    if rng.below(2) == 0 {
                        tree.insert(entry(&k), &guard);
                    } else {
                        tree.remove_if(&Probe::new(&k), |_| true);
                    }
                }
                // Leave only the keys that are 1 mod 4 of this writer.
                let guard = Guard::new();
                for i in 0..per {
                    let k = (w * per + i).to_be_bytes();
                    match i % 4 {
                        0 => {}
                        1 => {
                            tree.insert(entry(&k), &guard);
                        }
                        _ => {
                            tree.remove_if(&Probe::new(&k), |_| true);
                        }
                    }
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().unwrap();
    }
    let guard = Guard::new();
    let got: Vec<u64> = tree.iter(&guard).map(|e| u64::from_be_bytes(e.key.as_bytes().try_into().unwrap())).collect();
    let want: Vec<u64> = (0..WRITERS * per).filter(|k| (k % per) % 4 <= 1).collect();
    assert_eq!(got, want);
}

#[test]
fn appends_after_the_rightmost_leaves_emptied() {
    let tree = Ordered::new();
    let guard = Guard::new();
    for round in 0..scaled(5, 2) {
        for n in 0..scaled(1_000, 300) {
            tree.insert(entry(&(round * 10_000 + n).to_be_bytes()), &guard);
        }
        // Empty the right half: the rightmost leaves leave, and appends go on after them.
        for n in scaled(500, 150)..scaled(1_000, 300) {
            assert!(tree.remove_if(&Probe::new(&(round * 10_000 + n).to_be_bytes()), |_| true));
        }
    }
    let got: Vec<u64> = tree.iter(&guard).map(|e| u64::from_be_bytes(e.key.as_bytes().try_into().unwrap())).collect();
    let want: Vec<u64> = (0..scaled(5, 2)).flat_map(|r| (0..scaled(500, 150)).map(move |n| r * 10_000 + n)).collect();
    assert_eq!(got, want);
}
