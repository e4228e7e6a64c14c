//! A collated index against a `BTreeMap` model ordered by the same collator.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use scc::Guard;

use super::collate::testing::{collator, NoCase, Reverse};
use super::collate::{take_failure, Collate, Collator};
use super::tests::Rng;
use super::*;
use crate::error::{Error, Kind, Result};

const LATEST: ReadView = ReadView::LATEST;

fn reverse_norm(k: &[u8]) -> std::cmp::Reverse<Vec<u8>> {
    std::cmp::Reverse(k.to_vec())
}

fn nocase_norm(k: &[u8]) -> Vec<u8> {
    k.iter().map(u8::to_ascii_lowercase).collect()
}

/// Random inserts, updates and removals of `n` operations over keys drawn from a small
/// alphabet (so that case-folded keys collide), checked against the model after each batch:
/// point reads, a full scan each way, and seeks in every direction.
fn against_model<N: Ord + Clone>(c: Arc<Collator>, norm: fn(&[u8]) -> N, seed: u64) {
    let index = Index::ordered_by(Some(c), false);
    let mut model: BTreeMap<N, (Vec<u8>, Vec<u8>)> = BTreeMap::new();
    let mut rng = Rng::new(seed);
    let alphabet = b"aAbBcC\0\xff";
    let key = |rng: &mut Rng| -> Vec<u8> {
        let len = rng.below(12) as usize;
        (0..len).map(|_| alphabet[rng.below(alphabet.len() as u64) as usize]).collect()
    };
    for round in 0..40 {
        for i in 0..150u32 {
            let k = key(&mut rng);
            let v = (round * 1000 + i).to_be_bytes().to_vec();
            match rng.below(4) {
                0 | 1 => {
                    let r = index.insert_new(&k, &v);
                    assert_eq!(r.is_ok(), !model.contains_key(&norm(&k)), "insert {k:?}");
                    model.entry(norm(&k)).or_insert((k.clone(), v));
                }
                2 => {
                    let r = index.update_existing(&k, &v);
                    let held = model.get_mut(&norm(&k));
                    assert_eq!(r.is_ok(), held.is_some(), "update {k:?}");
                    if let Some(e) = held {
                        e.1 = v;
                    }
                }
                _ => {
                    let r = index.remove(&k);
                    assert_eq!(r.is_ok(), model.remove(&norm(&k)).is_some(), "remove {k:?}");
                }
            }
        }
        let guard = Guard::new();
        let scan: Vec<(Vec<u8>, Vec<u8>)> = index.seek_all(&guard);
        let want: Vec<(Vec<u8>, Vec<u8>)> = model.values().cloned().collect();
        assert_eq!(scan, want, "round {round}: scan in collator order");
        for _ in 0..50 {
            let k = key(&mut rng);
            assert_eq!(index.get(&k, &guard), model.get(&norm(&k)).map(|e| e.1.as_slice()), "get {k:?}");
            let n = norm(&k);
            let ge = model.range(n.clone()..).next().map(|e| e.1 .0.as_slice());
            let gt = model.range((std::ops::Bound::Excluded(n.clone()), std::ops::Bound::Unbounded)).next();
            let le = model.range(..=n.clone()).next_back().map(|e| e.1 .0.as_slice());
            let lt = model.range(..n).next_back().map(|e| e.1 .0.as_slice());
            let seek = |dir| index.seek(&k, dir, LATEST, &guard).map(|(k, _)| k);
            assert_eq!(seek(Seek::Ge), ge, "ge {k:?}");
            assert_eq!(seek(Seek::Gt), gt.map(|e| e.1 .0.as_slice()), "gt {k:?}");
            assert_eq!(seek(Seek::Le), le, "le {k:?}");
            assert_eq!(seek(Seek::Lt), lt, "lt {k:?}");
        }
        let last = index.last(LATEST, &guard).map(|(k, _)| k.to_vec());
        assert_eq!(last, model.values().next_back().map(|e| e.0.clone()));
    }
    assert!(take_failure().is_none());
}

impl Index {
    /// Every live entry in order (tests).
    fn seek_all(&self, guard: &Guard) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut out = Vec::new();
        let mut at = self.first(LATEST, guard).map(|(k, v)| (k.to_vec(), v.to_vec()));
        while let Some((k, v)) = at {
            at = self.seek(&k, Seek::Gt, LATEST, guard).map(|(k, v)| (k.to_vec(), v.to_vec()));
            out.push((k, v));
        }
        out
    }
}

#[test]
fn reverse_order_matches_model() {
    against_model(collator(Reverse), reverse_norm, 1);
    against_model(collator(Reverse), reverse_norm, 2);
}

#[test]
fn case_folding_matches_model() {
    against_model(collator(NoCase), nocase_norm, 3);
    against_model(collator(NoCase), nocase_norm, 4);
}

/// Many keys (leaf splits, inner nodes, emptied leaves leaving) in reverse order.
#[test]
fn reverse_order_large() {
    let index = Index::ordered_by(Some(collator(Reverse)), false);
    for i in 0..20_000u32 {
        index.insert_new(&(i * 7919 % 20_000).to_be_bytes(), b"v").unwrap();
    }
    let guard = Guard::new();
    let keys: Vec<u32> = index.seek_all(&guard).iter().map(|(k, _)| u32::from_be_bytes(k[..].try_into().unwrap())).collect();
    assert_eq!(keys, (0..20_000).rev().collect::<Vec<_>>());
    for i in (0..20_000u32).step_by(3) {
        index.remove(&i.to_be_bytes()).unwrap();
    }
    let keys: Vec<u32> = index.seek_all(&guard).iter().map(|(k, _)| u32::from_be_bytes(k[..].try_into().unwrap())).collect();
    assert_eq!(keys, (0..20_000).rev().filter(|i| i % 3 != 0).collect::<Vec<_>>());
    let (k, _) = index.seek(&100u32.to_be_bytes(), Seek::Gt, LATEST, &guard).unwrap();
    assert_eq!(k, 98u32.to_be_bytes());
}

/// A comparison that fails is recorded for the thread.
#[test]
fn failed_comparison_is_recorded() {
    struct Failing;
    impl Collate for Failing {
        fn compare(&self, _: usize, _: &[u8], _: &[u8]) -> Result<Ordering> {
            Err(Error::quiet(Kind::from_code(-31802)))
        }
    }
    let c = Arc::new(Collator::with("bad", Arc::new(Failing)));
    assert_eq!(c.order(b"a", b"b"), Ordering::Equal);
    assert_eq!(take_failure().map(|e| e.code()), Some(-31802));
    assert!(take_failure().is_none());
    let unresolved = Collator::named("later", "table:t", "");
    unresolved.order(b"a", b"b");
    let e = take_failure().unwrap();
    assert_eq!(e.messages().collect::<Vec<_>>(), ["unknown collator 'later'"]);
}

/// Comparisons inside a scope are made for its caller, nested scopes keep the outer one, and
/// what a panicked call left (an open scope, a failure) is forgotten.
#[test]
fn comparisons_are_made_for_the_scope_caller() {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    struct Recording(AtomicUsize);
    impl Collate for Recording {
        fn compare(&self, caller: usize, a: &[u8], b: &[u8]) -> Result<Ordering> {
            self.0.store(caller, Relaxed);
            if a.is_empty() {
                return Err(Error::quiet(Kind::from_code(5)));
            }
            Ok(a.cmp(b))
        }
    }
    let seen = Arc::new(Recording(AtomicUsize::new(99)));
    let c = Collator::with("rec", seen.clone());
    c.order(b"a", b"b");
    assert_eq!(seen.0.load(Relaxed), 0, "outside a scope: no session");
    let order = super::collate::within(7, || {
        let inner = super::collate::within(8, || Ok(c.order(b"b", b"a")));
        assert_eq!(seen.0.load(Relaxed), 7, "a nested scope keeps the outer caller");
        inner
    });
    assert_eq!(order.unwrap(), Ordering::Greater);
    c.order(b"a", b"b");
    assert_eq!(seen.0.load(Relaxed), 0);
    // A failure inside a scope is its outcome.
    let failed = super::collate::within(3, || Ok(c.order(b"", b"a")));
    assert_eq!(failed.unwrap_err().code(), 5);
    // A call that panicked inside a scope with a failure recorded leaves neither behind.
    super::collate::enter(4);
    c.order(b"", b"a");
    super::collate::forget_thread_state();
    assert!(take_failure().is_none());
    c.order(b"a", b"b");
    assert_eq!(seen.0.load(Relaxed), 0);
}

/// Writers on four threads (splits and emptied leaves leaving under them) and a reader
/// scanning meanwhile: every scan is in the collator's order, and the end state is exact.
#[test]
fn concurrent_writers_keep_the_collators_order() {
    let index = Arc::new(Index::ordered_by(Some(collator(Reverse)), false));
    let writers: Vec<_> = (0..4u32)
        .map(|t| {
            let index = Arc::clone(&index);
            std::thread::spawn(move || {
                for i in 0..5_000u32 {
                    index.insert_new(&(i * 4 + t).to_be_bytes(), b"v").unwrap();
                }
                for i in (0..5_000u32).filter(|i| i % 3 == 0) {
                    index.remove(&(i * 4 + t).to_be_bytes()).unwrap();
                }
            })
        })
        .collect();
    let reader = {
        let index = Arc::clone(&index);
        std::thread::spawn(move || {
            for _ in 0..20 {
                let guard = Guard::new();
                let keys: Vec<Vec<u8>> = index.seek_all(&guard).into_iter().map(|(k, _)| k).collect();
                assert!(keys.windows(2).all(|w| w[0] > w[1]), "a scan out of the collator's order");
            }
        })
    };
    for w in writers {
        w.join().unwrap();
    }
    reader.join().unwrap();
    let guard = Guard::new();
    let keys: Vec<u32> = index.seek_all(&guard).iter().map(|(k, _)| u32::from_be_bytes(k[..].try_into().unwrap())).collect();
    let want: Vec<u32> = (0..20_000u32).rev().filter(|k| (k / 4) % 3 != 0).collect();
    assert_eq!(keys, want);
    assert!(take_failure().is_none());
}
