//! The tree against a `BTreeMap` model: random batches with small pages (many levels, splits,
//! emptied pages, overflow items), reads from the cache and from disk, checkpoints, reopening,
//! a crash after a checkpoint, space reuse, and damaged blocks.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::block::{BlockFile, UNIT};
use super::cache::Cache;
use super::tree::{Change, Limits, Seek, Tree, TreeRecord, TS_NEWEST};
use crate::durable::disk::Disk;
use crate::error::code::WT_TRY_SALVAGE;

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// A fresh directory, removed when dropped.
pub(crate) struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub(crate) fn dir() -> (Dir, Arc<Disk>) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!("unlatched-btree-test-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).expect("create the test dir");
    (Dir(path.clone()), Arc::new(Disk::new(path)))
}

const SMALL: Limits = Limits { leaf_page_max: 512, internal_page_max: 256 };

/// An empty tree of small pages in a new file `t.ulb`.
pub(crate) fn new_tree(disk: &Arc<Disk>) -> Tree {
    Tree::create(BlockFile::create(disk, "t.ulb").unwrap(), SMALL, Arc::new(Cache::default()))
}

/// A tree of 300 rows, checkpointed and closed: its directory and its checkpoint's record.
fn checkpointed() -> (Dir, Arc<Disk>, TreeRecord) {
    let (d, disk) = dir();
    let tree = new_tree(&disk);
    let changes: Vec<Change> = (0..300).map(|i| (key(i), Some(b"value".to_vec()))).collect();
    step(&tree, &changes).unwrap();
    let record = checkpoint(&tree);
    (d, disk, record)
}

/// A small deterministic generator (tests of the paged store).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// The next number below `n`.
    pub(crate) fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn key(i: u64) -> Vec<u8> {
    format!("key{i:06}").into_bytes()
}

/// A value of a length that sometimes needs an overflow block.
fn value(rng: &mut Rng, i: u64) -> Vec<u8> {
    let len = match rng.next(20) {
        0 => 300 + rng.next(2000) as usize,
        _ => rng.next(40) as usize,
    };
    let mut v = format!("v{i}:").into_bytes();
    v.resize(len.max(v.len()), b'a' + (i % 26) as u8);
    v
}

/// A sorted batch of `n` random changes over keys `0..space` (a third removals).
fn batch(rng: &mut Rng, n: usize, space: u64) -> Vec<Change> {
    let mut changes: BTreeMap<Vec<u8>, Option<Vec<u8>>> = BTreeMap::new();
    for _ in 0..n {
        let i = rng.next(space);
        let v = if rng.next(3) == 0 { None } else { Some(value(rng, i)) };
        changes.insert(key(i), v);
    }
    changes.into_iter().collect()
}

fn apply_model(model: &mut Model, changes: &[Change]) {
    for (k, v) in changes {
        match v {
            Some(v) => model.insert(k.clone(), v.clone()),
            None => model.remove(k),
        };
    }
}

/// Every key of the model reads back, absent keys are absent, and seeks agree.
fn check(tree: &Tree, model: &Model, rng: &mut Rng, space: u64) {
    for (k, v) in model {
        assert_eq!(tree.get(k, TS_NEWEST).unwrap().as_ref(), Some(v), "get {}", String::from_utf8_lossy(k));
    }
    for _ in 0..200 {
        let probe = key(rng.next(space + 2));
        if !model.contains_key(&probe) {
            assert_eq!(tree.get(&probe, TS_NEWEST).unwrap(), None);
        }
        let want = |dir: Seek| -> Option<(Vec<u8>, Vec<u8>)> {
            use std::ops::Bound::*;
            let pick = |(k, v): (&Vec<u8>, &Vec<u8>)| (k.clone(), v.clone());
            match dir {
                Seek::Ge => model.range::<Vec<u8>, _>((Included(&probe), Unbounded)).next().map(pick),
                Seek::Gt => model.range::<Vec<u8>, _>((Excluded(&probe), Unbounded)).next().map(pick),
                Seek::Le => model.range::<Vec<u8>, _>((Unbounded, Included(&probe))).next_back().map(pick),
                Seek::Lt => model.range::<Vec<u8>, _>((Unbounded, Excluded(&probe))).next_back().map(pick),
            }
        };
        for dir in [Seek::Ge, Seek::Gt, Seek::Le, Seek::Lt] {
            assert_eq!(tree.seek(&probe, dir, TS_NEWEST).unwrap(), want(dir), "seek {dir:?} {}", String::from_utf8_lossy(&probe));
        }
    }
    // A full scan in order, by repeated Gt seeks.
    let mut scanned = Vec::new();
    let mut at = tree.seek(b"", Seek::Ge, TS_NEWEST).unwrap();
    while let Some((k, v)) = at {
        at = tree.seek(&k, Seek::Gt, TS_NEWEST).unwrap();
        scanned.push((k, v));
    }
    assert_eq!(scanned, model.iter().map(|(k, v)| (k.clone(), v.clone())).collect::<Vec<_>>());
}

/// Applies `changes` as the newest version with no older reader left: the old versions go at
/// once.
fn step(tree: &Tree, changes: &[Change]) -> crate::error::Result<()> {
    static TS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let ts = TS.fetch_add(1, Ordering::Relaxed);
    tree.apply(changes, ts)?;
    tree.release_before(ts);
    Ok(())
}

/// Lets the retired blocks of `tree` be released: the collector moves its epoch every 128
/// guards of a thread once no other thread holds an older guard, and runs deferred work a few
/// epochs later (other tests' threads may hold guards for a while).
fn settle(tree: &Tree) {
    for _ in 0..2000 {
        for _ in 0..256 {
            drop(scc::Guard::new());
        }
        if tree.file().retiring() == 0 {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("retired blocks were never released");
}

#[test]
fn random_batches_match_the_model() {
    let (_d, disk) = dir();
    let tree = new_tree(&disk);
    let mut rng = Rng(1);
    let mut model = Model::new();
    for round in 0..60 {
        let n = 1 + rng.next(300) as usize;
        let changes = batch(&mut rng, n, 2000);
        step(&tree, &changes).unwrap();
        apply_model(&mut model, &changes);
        if round % 3 == 0 {
            tree.evict_all();
        }
        check(&tree, &model, &mut rng, 2000);
    }
    // Remove everything: the tree becomes empty.
    let all: Vec<Change> = model.keys().map(|k| (k.clone(), None)).collect();
    step(&tree, &all).unwrap();
    assert_eq!(tree.seek(b"", Seek::Ge, TS_NEWEST).unwrap(), None);
}

#[test]
fn long_keys_and_large_values_use_overflow_blocks() {
    let (_d, disk) = dir();
    let tree = new_tree(&disk);
    let mut model = Model::new();
    let mut changes = Vec::new();
    for i in 0..40u64 {
        let mut k = vec![b'k'; 100 + (i as usize) * 7];
        k.extend_from_slice(&i.to_be_bytes());
        changes.push((k, Some(vec![i as u8; 3000 + i as usize])));
    }
    changes.sort();
    step(&tree, &changes).unwrap();
    apply_model(&mut model, &changes);
    tree.evict_all();
    for (k, v) in &model {
        assert_eq!(tree.get(k, TS_NEWEST).unwrap().as_ref(), Some(v));
    }
    // Replace half, remove a quarter.
    let mut second: Vec<Change> = model.keys().enumerate().filter(|(i, _)| i % 2 == 0).map(|(i, k)| {
        (k.clone(), if i % 4 == 0 { None } else { Some(vec![0xee; 10]) })
    }).collect();
    second.sort();
    step(&tree, &second).unwrap();
    apply_model(&mut model, &second);
    tree.evict_all();
    let mut rng = Rng(5);
    check(&tree, &model, &mut rng, 0);
}

/// Writes a checkpoint and returns its record (round-tripped through its encoding).
fn checkpoint(tree: &Tree) -> TreeRecord {
    let (record, released) = tree.checkpoint().unwrap();
    tree.checkpoint_durable(&released);
    let mut bytes = Vec::new();
    record.put(&mut bytes);
    let (back, rest) = TreeRecord::get(&bytes).unwrap();
    assert!(rest.is_empty());
    assert_eq!(back, record);
    back
}

fn reopen(disk: &Arc<Disk>, record: &TreeRecord) -> Tree {
    Tree::open(BlockFile::open(disk, "t.ulb", record.space.clone()).unwrap(), record.root, SMALL, Arc::new(Cache::default()))
}

#[test]
fn a_checkpoint_reopens_and_survives_a_crash_after_it() {
    let (_d, disk) = dir();
    let tree = new_tree(&disk);
    let mut rng = Rng(2);
    let mut model = Model::new();
    for _ in 0..10 {
        let changes = batch(&mut rng, 200, 3000);
        step(&tree, &changes).unwrap();
        apply_model(&mut model, &changes);
    }
    let record = checkpoint(&tree);
    let at_checkpoint = model.clone();
    // More batches after the checkpoint, settled so their freed space is reused, then a crash
    // (no checkpoint): the blocks they wrote must not have touched the checkpoint's.
    for _ in 0..20 {
        let changes = batch(&mut rng, 300, 3000);
        step(&tree, &changes).unwrap();
        apply_model(&mut model, &changes);
        settle(&tree);
    }
    drop(tree);
    let tree = reopen(&disk, &record);
    check(&tree, &at_checkpoint, &mut rng, 3000);
    // And it goes on from there.
    let changes = batch(&mut rng, 100, 3000);
    step(&tree, &changes).unwrap();
    let mut model = at_checkpoint;
    apply_model(&mut model, &changes);
    let record = checkpoint(&tree);
    drop(tree);
    check(&reopen(&disk, &record), &model, &mut rng, 3000);
}

#[test]
fn rewriting_the_same_keys_reuses_space() {
    let (_d, disk) = dir();
    let tree = new_tree(&disk);
    let mut rng = Rng(3);
    let all = |rng: &mut Rng| -> Vec<Change> { (0..500).map(|i| (key(i), Some(value(rng, i)))).collect() };
    step(&tree, &all(&mut rng)).unwrap();
    checkpoint(&tree);
    let (first_end, _) = tree.file().usage();
    let mut halfway = 0;
    for round in 1..=40 {
        step(&tree, &all(&mut rng)).unwrap();
        settle(&tree);
        checkpoint(&tree);
        if round == 20 {
            halfway = tree.file().usage().0;
        }
    }
    let (end, free) = tree.file().usage();
    // A rewrite needs the tree's size again beside the last checkpoint's copy and the copy
    // readers may still hold: the file settles at a few copies of the tree (values vary in
    // size from round to round) and stops growing.
    assert!(end <= 4 * first_end, "file grew from {first_end} to {end} bytes ({free} free)");
    assert!(end <= halfway + halfway / 4, "file still growing: {halfway} bytes after 20 rounds, {end} after 40");
    // A contiguous update of 1% of the keys writes the leaves holding them and one page per
    // level above (four levels with these small pages), not the tree.
    let before = tree.file().stats().bytes_written.load(Ordering::Relaxed);
    let few: Vec<Change> = (100..105).map(|i| (key(i), Some(b"x".to_vec()))).collect();
    step(&tree, &few).unwrap();
    let wrote = tree.file().stats().bytes_written.load(Ordering::Relaxed) - before;
    assert!(wrote <= 7 * UNIT, "a 5-key update wrote {wrote} bytes");
}

#[test]
fn a_damaged_block_is_try_salvage_naming_file_and_offset() {
    let (d, disk, record) = checkpointed();
    // Flip one byte in the middle of the file's blocks.
    let path = d.0.join("t.ulb");
    let mut bytes = std::fs::read(&path).unwrap();
    let at = (UNIT as usize) + (bytes.len() - UNIT as usize) / 2;
    bytes[at] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let tree = reopen(&disk, &record);
    let errors: Vec<_> = (0..300).filter_map(|i| tree.get(&key(i), TS_NEWEST).err()).collect();
    assert!(!errors.is_empty(), "no read met the damaged block");
    for e in errors {
        assert_eq!(e.code(), WT_TRY_SALVAGE);
        assert!(e.to_string().contains("t.ulb") && e.to_string().contains("offset"), "{e}");
    }
}

#[test]
fn a_file_shorter_than_its_checkpoint_is_refused() {
    let (d, disk, record) = checkpointed();
    let path = d.0.join("t.ulb");
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(len - UNIT).unwrap();
    let err = BlockFile::open(&disk, "t.ulb", record.space).err().unwrap();
    assert_eq!(err.code(), WT_TRY_SALVAGE);
}

#[test]
fn a_full_disk_fails_the_batch_and_leaves_the_tree() {
    let (_d, disk) = dir();
    let tree = new_tree(&disk);
    let first: Vec<Change> = (0..200).map(|i| (key(i), Some(b"one".to_vec()))).collect();
    step(&tree, &first).unwrap();
    let (end_before, free_before) = tree.file().usage();
    disk.limit_writes(Some(3 * UNIT));
    let second: Vec<Change> = (0..200).map(|i| (key(i), Some(b"two".to_vec()))).collect();
    let err = step(&tree, &second).unwrap_err();
    assert_eq!(err.code(), libc::ENOSPC);
    for i in 0..200 {
        assert_eq!(tree.get(&key(i), TS_NEWEST).unwrap().as_deref(), Some(&b"one"[..]));
    }
    // The blocks the failed batch wrote are free again.
    let (end, free) = tree.file().usage();
    assert_eq!(end - free, end_before - free_before);
    disk.limit_writes(None);
    step(&tree, &second).unwrap();
    assert_eq!(tree.get(&key(7), TS_NEWEST).unwrap().as_deref(), Some(&b"two"[..]));
}

#[test]
fn readers_see_whole_batches_while_a_writer_applies() {
    let (_d, disk) = dir();
    let tree = Arc::new(new_tree(&disk));
    // Every batch writes the same round number to all 400 keys: a reader must see one round
    // for every key of a scan... per key at least, and rounds never go backwards.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let round_batch = |r: u32| -> Vec<Change> { (0..400).map(|i| (key(i), Some(r.to_be_bytes().to_vec()))).collect() };
    step(&tree, &round_batch(0)).unwrap();
    let readers: Vec<_> = (0..3)
        .map(|t| {
            let (tree, stop) = (Arc::clone(&tree), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut rng = Rng(10 + t);
                let mut last = 0u32;
                let mut reads = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let v = tree.get(&key(rng.next(400)), TS_NEWEST).unwrap().expect("every key is present");
                    let r = u32::from_be_bytes(v.try_into().unwrap());
                    assert!(r >= last, "a reader went back from round {last} to {r}");
                    last = r;
                    reads += 1;
                    if reads % 64 == 0 {
                        tree.evict_all();
                    }
                }
                reads
            })
        })
        .collect();
    for r in 1..=100 {
        step(&tree, &round_batch(r)).unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for h in readers {
        assert!(h.join().unwrap() > 0);
    }
}

#[test]
fn readers_read_the_version_of_their_timestamp() {
    let (_d, disk) = dir();
    let tree = new_tree(&disk);
    let round = |r: u8| -> Vec<Change> { (0..300).map(|i| (key(i), Some(vec![r; 20]))).collect() };
    for (ts, r) in [(10, 1u8), (20, 2), (30, 3)] {
        tree.apply(&round(r), ts).unwrap();
    }
    let seen = |ts: u64| tree.get(&key(150), ts).unwrap().map(|v| v[0]);
    assert_eq!(seen(5), None, "before the first batch the tree was empty");
    assert_eq!(seen(10), Some(1));
    assert_eq!(seen(19), Some(1));
    assert_eq!(seen(25), Some(2));
    assert_eq!(seen(TS_NEWEST), Some(3));
    assert_eq!(tree.seek(&key(0), Seek::Ge, 15).unwrap().map(|(_, v)| v[0]), Some(1));
    assert_eq!(tree.versions(), 4);
    // Readers are all at 25 or later: the versions of 0 and 10 go, 20 stays for them.
    tree.release_before(25);
    assert_eq!(tree.versions(), 2);
    assert_eq!(seen(25), Some(2));
    assert_eq!(seen(TS_NEWEST), Some(3));
    // A checkpoint now reopens as the newest version, with the older ones' blocks free.
    let record = checkpoint(&tree);
    let (end, free) = tree.file().usage();
    drop(tree);
    let tree = reopen(&disk, &record);
    assert_eq!(tree.get(&key(150), TS_NEWEST).unwrap().map(|v| v[0]), Some(3));
    let (end2, free2) = tree.file().usage();
    assert_eq!(end2, end);
    assert!(free2 > free, "the version kept for readers at 20 is free after reopening");
}

#[test]
fn a_reader_evicts_the_pages_of_a_thread_that_stopped_reading_first() {
    use super::cache::Thresholds;
    use super::striped::stripe;
    let (_d, disk) = dir();
    // About 90 leaves of 4 KB (a block is whole allocation units) under the target.
    let target = 400 * 1024;
    let budget = Arc::new(Cache::new(Thresholds { size: 2 * target, target, trigger: 2 * target, ..Thresholds::UNBOUNDED }));
    let tree = Tree::create(BlockFile::create(&disk, "t.ulb").unwrap(), SMALL, Arc::clone(&budget));
    let changes: Vec<Change> = (0..6000).map(|i| (key(i), Some(vec![b'v'; 30]))).collect();
    tree.apply(&changes, 1).unwrap();
    let tree = &tree;
    std::thread::scope(|s| {
        // The first thread reads every row, then stops.
        let a = s
            .spawn(|| {
                for i in 0..6000 {
                    assert!(tree.get(&key(i), TS_NEWEST).unwrap().is_some());
                }
                stripe()
            })
            .join()
            .unwrap();
        let queued = tree.queued();
        assert!(queued[a] > 50, "the first thread's leaves fill the cache: {queued:?}");
        // A second one, on another stripe (stripes are handed out in turn to every thread),
        // reads 30 leaves (enough to evict: the first thread's stripe may hold back up to
        // 64 KB unpublished) twice: the second time, all of them are still cached.
        let second = |a: usize| {
            if stripe() == a {
                return false;
            }
            let keys: Vec<Vec<u8>> = (0..30).map(|i| key(i * 200 + 7)).collect();
            let read = |keys: &[Vec<u8>]| keys.iter().for_each(|k| assert!(tree.get(k, TS_NEWEST).unwrap().is_some()));
            let evicted = budget.pages_evicted_app();
            read(&keys);
            assert!(budget.pages_evicted_app() > evicted, "the second reader evicted");
            let before = budget.pages_read();
            read(&keys);
            assert_eq!(budget.pages_read(), before, "the second reader's own leaves stayed: {:?}", tree.queued());
            true
        };
        while !s.spawn(move || second(a)).join().unwrap() {}
    });
}
