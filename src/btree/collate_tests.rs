//! A tree ordered by a collator: random batches (in the collator's order) against a model
//! ordered the same way, read from the cache and, after every page was evicted, from disk;
//! verify accepts the collator's order and rejects a file whose keys break it.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::block::BlockFile;
use super::cache::Cache;
use super::tests::{dir, Rng};
use super::tree::{Change, Limits, Seek, Tree, TS_NEWEST};
use crate::error::Kind;
use crate::store::collate::testing::{collator, Reverse as ReverseOrder};

const SMALL: Limits = Limits { leaf_page_max: 512, internal_page_max: 256 };

type Model = BTreeMap<Reverse<Vec<u8>>, Vec<u8>>;

fn key(i: u64) -> Vec<u8> {
    format!("key{i:05}").into_bytes()
}

fn reverse_tree(disk: &Arc<crate::durable::disk::Disk>) -> Tree {
    Tree::create(BlockFile::create(disk, "r").unwrap(), SMALL, Arc::new(Cache::default())).ordered_by(Some(collator(ReverseOrder)))
}

/// A batch of `n` random changes over keys `0..space`, sorted in reverse (a third removals).
fn batch(rng: &mut Rng, n: usize, space: u64) -> Vec<Change> {
    let mut changes: BTreeMap<Reverse<Vec<u8>>, Option<Vec<u8>>> = BTreeMap::new();
    for _ in 0..n {
        let i = rng.next(space);
        let v = if rng.next(3) == 0 { None } else { Some(vec![b'a' + (i % 26) as u8; 1 + rng.next(60) as usize]) };
        changes.insert(Reverse(key(i)), v);
    }
    changes.into_iter().map(|(Reverse(k), v)| (k, v)).collect()
}

fn check(tree: &Tree, model: &Model, rng: &mut Rng, space: u64) {
    for (Reverse(k), v) in model {
        assert_eq!(tree.get(k, TS_NEWEST).unwrap().as_ref(), Some(v));
    }
    for _ in 0..100 {
        let probe = key(rng.next(space + 2));
        let r = Reverse(probe.clone());
        let pick = |(Reverse(k), v): (&Reverse<Vec<u8>>, &Vec<u8>)| (k.clone(), v.clone());
        assert_eq!(tree.seek(&probe, Seek::Ge, TS_NEWEST).unwrap(), model.range(r.clone()..).next().map(pick));
        assert_eq!(tree.seek(&probe, Seek::Le, TS_NEWEST).unwrap(), model.range(..=r.clone()).next_back().map(pick));
        assert_eq!(tree.seek(&probe, Seek::Lt, TS_NEWEST).unwrap(), model.range(..r).next_back().map(pick));
    }
    let guard = scc::Guard::new();
    let mut scanned = Vec::new();
    let mut at = tree.seek_in(None, Seek::Ge, TS_NEWEST, &guard).unwrap().map(|(k, v)| (k.into_owned(), v.into_owned()));
    while let Some((k, v)) = at {
        at = tree.seek(&k, Seek::Gt, TS_NEWEST).unwrap();
        scanned.push((k, v));
    }
    assert_eq!(scanned, model.iter().map(|(Reverse(k), v)| (k.clone(), v.clone())).collect::<Vec<_>>());
}

#[test]
fn reverse_batches_match_the_model_from_cache_and_disk() {
    let (_d, disk) = dir();
    let tree = reverse_tree(&disk);
    let mut model = Model::new();
    let mut rng = Rng(7);
    for ts in 1..=30 {
        let changes = batch(&mut rng, 150, 3000);
        tree.apply(&changes, ts).unwrap();
        tree.release_before(ts);
        for (k, v) in changes {
            match v {
                Some(v) => model.insert(Reverse(k), v),
                None => model.remove(&Reverse(k)),
            };
        }
        if ts % 10 == 0 {
            tree.evict_all();
            check(&tree, &model, &mut rng, 3000);
            tree.verify().unwrap();
        }
    }
    assert!(tree.verify().unwrap().depth >= 3, "several levels");
}

#[test]
fn verify_checks_the_collators_order() {
    let (_d, disk) = dir();
    // Written bytewise: sound as such, out of order for the reverse collator.
    let plain = Tree::create(BlockFile::create(&disk, "p").unwrap(), SMALL, Arc::new(Cache::default()));
    let rows: Vec<Change> = (0..500).map(|i| (key(i), Some(b"v".to_vec()))).collect();
    plain.apply(&rows, 1).unwrap();
    plain.verify().unwrap();
    let (record, pending) = plain.checkpoint().unwrap();
    plain.checkpoint_durable(&pending);
    drop(plain);
    let reread = Tree::open(BlockFile::open(&disk, "p", record.space).unwrap(), record.root, SMALL, Arc::new(Cache::default()))
        .ordered_by(Some(collator(ReverseOrder)));
    let err = reread.verify().unwrap_err();
    assert_eq!(err.kind(), Kind::Generic);
    assert!(err.to_string().contains("keys out of order"), "{err}");
}
