//! Many-thread stress tests: readers validate every value they see; writers' results are
//! checked against per-key records at quiescent points.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use scc::Guard;

use super::tests::Rng;
use super::{Index, ReadView, Seek};

const LATEST: ReadView = ReadView::LATEST;

/// A barrier that fails instead of hanging when another participant panicked.
struct Barrier {
    n: usize,
    state: Mutex<(usize, u64)>,
    cv: Condvar,
    failed: AtomicBool,
}

impl Barrier {
    fn new(n: usize) -> Self {
        Barrier {
            n,
            state: Mutex::new((0, 0)),
            cv: Condvar::new(),
            failed: AtomicBool::new(false),
        }
    }

    fn wait(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let generation = st.1;
        st.0 += 1;
        if st.0 == self.n {
            *st = (0, generation + 1);
            self.cv.notify_all();
            return;
        }
        while st.1 == generation {
            assert!(!self.failed.load(SeqCst), "another thread failed");
            st = self
                .cv
                .wait_timeout(st, Duration::from_millis(20))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Marks the barrier failed if the calling thread unwinds while this lives.
    fn guard(&self) -> FailOnPanic<'_> {
        FailOnPanic(self)
    }
}

struct FailOnPanic<'a>(&'a Barrier);

impl Drop for FailOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.failed.store(true, SeqCst);
            self.0.cv.notify_all();
        }
    }
}

/// FNV-1a, the checksum of an encoded value.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `[writer][counter: 8][key len: 2][key][padding][checksum: 8]`; the padding length varies
/// with the counter so that values cross the inline/heap boundary.
fn encode(key: &[u8], writer: u8, counter: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(64 + key.len());
    v.push(writer);
    v.extend_from_slice(&counter.to_le_bytes());
    v.extend_from_slice(&(key.len() as u16).to_le_bytes());
    v.extend_from_slice(key);
    v.extend(std::iter::repeat_n(counter as u8, (counter % 37) as usize));
    let sum = checksum(&v);
    v.extend_from_slice(&sum.to_le_bytes());
    v
}

/// Validates `v` as the encoding for `key`; returns (writer, counter).
fn decode(key: &[u8], v: &[u8]) -> (u8, u64) {
    assert!(v.len() >= 19, "value too short: {v:?}");
    let (body, sum) = v.split_at(v.len() - 8);
    assert_eq!(
        checksum(body),
        u64::from_le_bytes(sum.try_into().unwrap()),
        "checksum"
    );
    let writer = body[0];
    let counter = u64::from_le_bytes(body[1..9].try_into().unwrap());
    let klen = u16::from_le_bytes(body[9..11].try_into().unwrap()) as usize;
    assert_eq!(&body[11..11 + klen], key, "value belongs to another key");
    assert_eq!(body.len(), 11 + klen + (counter % 37) as usize, "length");
    (writer, counter)
}

/// Key `id` of the test key space: mixed lengths (1..=40 bytes, inline and heap).
fn key_of(id: usize) -> Vec<u8> {
    match id % 4 {
        0 => ((id as u64) << 40 | 0x00ab_cdef).to_be_bytes().to_vec(),
        1 => format!("k{id}").into_bytes(),
        2 => format!("a-rather-long-key-beyond-the-inline-limit/{id:04}").into_bytes(),
        _ => vec![0x80 | (id as u8 >> 4), id as u8],
    }
}

fn scaled(debug: u64, miri: u64) -> u64 {
    if cfg!(miri) {
        miri
    } else {
        debug
    }
}

const WRITERS: usize = 4;
const READERS: usize = 4;
const OWNED: usize = 48; // ids 0..48: owner = id % WRITERS
const SHARED: usize = 16; // ids 48..64: every writer

/// 4 writers and 4 readers over 64 keys. Owned keys: the owner's every result must match its
/// model. Shared keys: after every round, each key's state must be the last successful mutation
/// of some writer (or unchanged if none succeeded). Readers validate every value and the order
/// of seek results.
#[test]
fn stress_mixed_readers_writers() {
    let idx = Index::new();
    let keys: Vec<Vec<u8>> = (0..OWNED + SHARED).map(key_of).collect();
    let duration = Duration::from_millis(scaled(2000, 0));
    let ops_per_round = scaled(400, 12);
    let max_rounds = scaled(u64::MAX, 2);
    let barrier = Barrier::new(WRITERS);
    let stop = AtomicBool::new(false);
    let writers_done = AtomicBool::new(false);
    // Per writer: the last successful mutation of each shared key this round (None: removed).
    let records: Mutex<Vec<HashMap<usize, Option<Vec<u8>>>>> =
        Mutex::new(vec![HashMap::new(); WRITERS]);
    let reads = AtomicU64::new(0);
    let rounds = AtomicU64::new(0);
    let start = Instant::now();

    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let (idx, keys, barrier, stop, records, rounds) =
                (&idx, &keys, &barrier, &stop, &records, &rounds);
            s.spawn(move || {
                let _fail = barrier.guard();
                let mut rng = Rng::new(100 + w as u64);
                let mut counter = 0u64;
                let mut model: HashMap<usize, Vec<u8>> = HashMap::new();
                let owned: Vec<usize> = (0..OWNED).filter(|id| id % WRITERS == w).collect();
                let mut shared_state: Vec<Option<Vec<u8>>> = vec![None; SHARED];
                let mut round = 0u64;
                loop {
                    let mut mine: HashMap<usize, Option<Vec<u8>>> = HashMap::new();
                    for _ in 0..ops_per_round {
                        counter += 1;
                        let id = if rng.below(2) == 0 {
                            owned[rng.below(owned.len() as u64) as usize]
                        } else {
                            OWNED + rng.below(SHARED as u64) as usize
                        };
                        let key = &keys[id];
                        let value = encode(key, w as u8, counter);
                        let op = rng.below(4);
                        let (changed, new_state) = match op {
                            0 => {
                                idx.upsert(key, &value);
                                (true, Some(value))
                            }
                            1 => (idx.insert_new(key, &value).is_ok(), Some(value)),
                            2 => (idx.update_existing(key, &value).is_ok(), Some(value)),
                            _ => (idx.remove(key).is_ok(), None),
                        };
                        if id < OWNED {
                            let expect = match op {
                                0 => true,
                                1 => !model.contains_key(&id),
                                _ => model.contains_key(&id),
                            };
                            assert_eq!(changed, expect, "writer {w} op {op} on owned key {id}");
                            match &new_state {
                                Some(v) if changed => {
                                    model.insert(id, v.clone());
                                }
                                None if changed => {
                                    model.remove(&id);
                                }
                                _ => {}
                            }
                        } else if changed {
                            mine.insert(id, new_state);
                        }
                    }
                    records.lock().unwrap_or_else(|e| e.into_inner())[w] = mine;
                    barrier.wait(); // Writers quiescent.
                    let g = Guard::new();
                    for &id in &owned {
                        assert_eq!(
                            idx.get(&keys[id], &g),
                            model.get(&id).map(|v| v.as_slice()),
                            "owned key {id} lost a write"
                        );
                    }
                    if w == 0 {
                        let records = records.lock().unwrap_or_else(|e| e.into_inner());
                        for (i, state) in shared_state.iter_mut().enumerate() {
                            let id = OWNED + i;
                            let candidates: Vec<&Option<Vec<u8>>> =
                                records.iter().filter_map(|r| r.get(&id)).collect();
                            let actual = idx.get(&keys[id], &g).map(|v| v.to_vec());
                            if candidates.is_empty() {
                                assert_eq!(&actual, state, "shared key {id} changed by nobody");
                            } else {
                                assert!(
                                    candidates.contains(&&actual),
                                    "shared key {id}: {actual:?} is no writer's last mutation"
                                );
                            }
                            *state = actual;
                        }
                        // Scans agree with point reads.
                        let mut live = 0;
                        let mut cur = idx.first(LATEST, &g);
                        let mut prev: Option<Vec<u8>> = None;
                        while let Some((k, v)) = cur {
                            assert!(prev.as_deref() < Some(k));
                            assert_eq!(idx.get(k, &g), Some(v));
                            decode(k, v);
                            live += 1;
                            prev = Some(k.to_vec());
                            cur = idx.seek(k, Seek::Gt, LATEST, &g);
                        }
                        assert_eq!(idx.len_hint(), live);
                        round += 1;
                        rounds.store(round, Relaxed);
                        stop.store(start.elapsed() >= duration || round >= max_rounds, SeqCst);
                    }
                    drop(g);
                    barrier.wait();
                    if stop.load(SeqCst) {
                        break;
                    }
                }
            });
        }
        for r in 0..READERS {
            let (idx, keys, writers_done, reads) = (&idx, &keys, &writers_done, &reads);
            s.spawn(move || {
                let mut rng = Rng::new(900 + r as u64);
                let mut n = 0u64;
                // At least a few reads even if the writers finish first (Miri).
                while !writers_done.load(SeqCst) || n < 20 {
                    n += 1;
                    let g = Guard::new();
                    let id = rng.below(keys.len() as u64) as usize;
                    let key = &keys[id];
                    if let Some(v) = idx.get(key, &g) {
                        let (writer, _) = decode(key, v);
                        if id < OWNED {
                            assert_eq!(writer as usize, id % WRITERS, "owned key written by other");
                        }
                    }
                    // A probe: a key, a key with a byte appended, or a key cut short.
                    let mut probe = key.clone();
                    match rng.below(3) {
                        0 => {}
                        1 => probe.push(rng.below(256) as u8),
                        _ => {
                            probe.pop();
                        }
                    }
                    let dir = [Seek::Ge, Seek::Gt, Seek::Le, Seek::Lt][rng.below(4) as usize];
                    let mut prev = probe.clone();
                    let mut cur = idx.seek(&probe, dir, LATEST, &g);
                    let mut steps = 0;
                    while let Some((k, v)) = cur {
                        decode(k, v);
                        let ord = k.cmp(prev.as_slice());
                        match dir {
                            Seek::Ge if steps == 0 => assert!(ord.is_ge()),
                            Seek::Le if steps == 0 => assert!(ord.is_le()),
                            Seek::Ge | Seek::Gt => assert!(ord.is_gt(), "{k:?} after {prev:?}"),
                            Seek::Le | Seek::Lt => assert!(ord.is_lt(), "{k:?} after {prev:?}"),
                        }
                        steps += 1;
                        if steps == 4 {
                            break;
                        }
                        prev = k.to_vec();
                        let next_dir = match dir {
                            Seek::Ge | Seek::Gt => Seek::Gt,
                            Seek::Le | Seek::Lt => Seek::Lt,
                        };
                        cur = idx.seek(k, next_dir, LATEST, &g);
                    }
                    if n % 64 == 0 {
                        if let Some((k, v)) = idx.first(LATEST, &g) {
                            decode(k, v);
                        }
                        if let Some((k, v)) = idx.last(LATEST, &g) {
                            decode(k, v);
                        }
                    }
                }
                reads.fetch_add(n, Relaxed);
            });
        }
        // Wait for the writers, then release the readers.
        while !stop.load(SeqCst) && !barrier.failed.load(SeqCst) {
            std::thread::sleep(Duration::from_millis(if cfg!(miri) { 0 } else { 5 }));
        }
        writers_done.store(true, SeqCst);
    });
    assert!(rounds.load(Relaxed) >= 1);
    assert!(reads.load(Relaxed) >= READERS as u64 * 20);
    println!(
        "stress_mixed: {} rounds, {} reads",
        rounds.load(Relaxed),
        reads.load(Relaxed)
    );
}

/// Racing `insert_new` on the same absent keys: exactly one winner per key per round, and the
/// stored value is the winner's. Then racing `remove`: exactly one remover per key.
#[test]
fn stress_insert_new_and_remove_races() {
    const THREADS: usize = 4;
    let idx = Index::new();
    let keys: Vec<Vec<u8>> = (0..scaled(16, 3) as usize).map(key_of).collect();
    let rounds = scaled(300, 2);
    let barrier = Barrier::new(THREADS);
    let wins: Vec<AtomicUsize> = keys.iter().map(|_| AtomicUsize::new(0)).collect();
    let winner: Vec<AtomicUsize> = keys.iter().map(|_| AtomicUsize::new(usize::MAX)).collect();
    let removes: Vec<AtomicUsize> = keys.iter().map(|_| AtomicUsize::new(0)).collect();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (idx, keys, barrier, wins, winner, removes) =
                (&idx, &keys, &barrier, &wins, &winner, &removes);
            s.spawn(move || {
                let _fail = barrier.guard();
                let mut rng = Rng::new(7 + t as u64);
                for round in 0..rounds {
                    // Each thread visits the keys in its own rotation.
                    let shift = rng.below(keys.len() as u64) as usize;
                    for i in 0..keys.len() {
                        let id = (i + shift) % keys.len();
                        let v = encode(&keys[id], t as u8, round);
                        if idx.insert_new(&keys[id], &v).is_ok() {
                            wins[id].fetch_add(1, SeqCst);
                            winner[id].store(t, SeqCst);
                        }
                    }
                    barrier.wait();
                    if t == 0 {
                        let g = Guard::new();
                        for (id, key) in keys.iter().enumerate() {
                            assert_eq!(wins[id].swap(0, SeqCst), 1, "round {round} key {id}");
                            let (w, c) = decode(key, idx.get(key, &g).expect("winner's value"));
                            assert_eq!((w as usize, c), (winner[id].load(SeqCst), round));
                        }
                    }
                    barrier.wait();
                    for i in 0..keys.len() {
                        let id = (i + shift) % keys.len();
                        if idx.remove(&keys[id]).is_ok() {
                            removes[id].fetch_add(1, SeqCst);
                        }
                    }
                    barrier.wait();
                    if t == 0 {
                        let g = Guard::new();
                        for (id, key) in keys.iter().enumerate() {
                            assert_eq!(removes[id].swap(0, SeqCst), 1, "round {round} key {id}");
                            assert_eq!(idx.get(key, &g), None);
                        }
                        assert_eq!(idx.len_hint(), 0);
                        assert_eq!(idx.first(LATEST, &g), None);
                        assert_eq!(idx.tree_entries(), 0);
                    }
                    barrier.wait();
                }
            });
        }
    });
}

/// Many threads upserting, removing and re-inserting one key while others read it: every value
/// seen is valid, and after each round the key holds the last successful mutation of some
/// thread.
#[test]
fn stress_single_key_churn() {
    // A heap key (the long-key hash index) and a 2-byte key (the short-key hash index).
    single_key_churn(&key_of(2));
    single_key_churn(&key_of(3));
}

fn single_key_churn(key: &[u8]) {
    const THREADS: usize = 4;
    let idx = Index::new();
    let key = key.to_vec();
    let rounds = scaled(200, 2);
    let ops = scaled(100, 5);
    let barrier = Barrier::new(THREADS);
    let last: Mutex<Vec<Option<Option<Vec<u8>>>>> = Mutex::new(vec![None; THREADS]);
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (idx, key, barrier, last) = (&idx, &key, &barrier, &last);
            s.spawn(move || {
                let _fail = barrier.guard();
                let mut rng = Rng::new(31 + t as u64);
                let mut prev: Option<Vec<u8>> = None;
                for round in 0..rounds {
                    let mut mine: Option<Option<Vec<u8>>> = None;
                    for i in 0..ops {
                        let v = encode(key, t as u8, round * 1000 + i);
                        let ok = match rng.below(3) {
                            0 => {
                                idx.upsert(key, &v);
                                true
                            }
                            1 => idx.insert_new(key, &v).is_ok(),
                            _ => {
                                let r = idx.remove(key).is_ok();
                                if r {
                                    mine = Some(None);
                                }
                                continue;
                            }
                        };
                        if ok {
                            mine = Some(Some(v));
                        }
                        let g = Guard::new();
                        if let Some(v) = idx.get(key, &g) {
                            decode(key, v);
                        }
                    }
                    last.lock().unwrap_or_else(|e| e.into_inner())[t] = mine;
                    barrier.wait();
                    let g = Guard::new();
                    let actual = idx.get(key, &g).map(|v| v.to_vec());
                    {
                        let last = last.lock().unwrap_or_else(|e| e.into_inner());
                        let candidates: Vec<&Option<Vec<u8>>> =
                            last.iter().filter_map(|m| m.as_ref()).collect();
                        if candidates.is_empty() {
                            assert_eq!(actual, prev);
                        } else {
                            assert!(candidates.contains(&&actual), "lost write: {actual:?}");
                        }
                    }
                    prev = actual;
                    drop(g);
                    barrier.wait();
                }
            });
        }
    });
}

/// `insert_new` and `remove` only, racing on a few keys: since each needs the opposite state,
/// successful inserts and removes of a key must alternate. At every quiescent point
/// `inserts - removes` is 0 (absent) or 1 (present, holding the last inserted value): a write
/// lost to a concurrent unlink would show as an extra successful insert or a missing value.
#[test]
fn stress_insert_remove_accounting() {
    const THREADS: usize = 4;
    let idx = Index::new();
    let keys: Vec<Vec<u8>> = (0..scaled(6, 2) as usize).map(key_of).collect();
    let rounds = scaled(400, 2);
    let ops = scaled(200, 6);
    let barrier = Barrier::new(THREADS);
    let inserts: Vec<AtomicU64> = keys.iter().map(|_| AtomicU64::new(0)).collect();
    let removes: Vec<AtomicU64> = keys.iter().map(|_| AtomicU64::new(0)).collect();
    let updates: Vec<AtomicU64> = keys.iter().map(|_| AtomicU64::new(0)).collect();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (idx, keys, barrier, inserts, removes, updates) =
                (&idx, &keys, &barrier, &inserts, &removes, &updates);
            s.spawn(move || {
                let _fail = barrier.guard();
                let mut rng = Rng::new(555 + t as u64);
                for round in 0..rounds {
                    for i in 0..ops {
                        let id = rng.below(keys.len() as u64) as usize;
                        let key = &keys[id];
                        match rng.below(5) {
                            0 | 1 => {
                                let v = encode(key, t as u8, round * 10_000 + i);
                                if idx.insert_new(key, &v).is_ok() {
                                    inserts[id].fetch_add(1, SeqCst);
                                }
                            }
                            2 => {
                                let v = encode(key, t as u8, round * 10_000 + i);
                                if idx.update_existing(key, &v).is_ok() {
                                    updates[id].fetch_add(1, SeqCst);
                                }
                            }
                            _ => {
                                if idx.remove(key).is_ok() {
                                    removes[id].fetch_add(1, SeqCst);
                                }
                            }
                        }
                    }
                    barrier.wait();
                    if t == 0 {
                        let g = Guard::new();
                        for (id, key) in keys.iter().enumerate() {
                            let ins = inserts[id].load(SeqCst);
                            let rem = removes[id].load(SeqCst);
                            let got = idx.get(key, &g);
                            match ins as i64 - rem as i64 {
                                0 => assert_eq!(got, None, "key {id}: removed, yet present"),
                                1 => {
                                    decode(key, got.expect("inserted, yet absent: lost write"));
                                }
                                d => panic!("key {id}: {d} more inserts than removes"),
                            }
                        }
                        assert_eq!(idx.tree_entries(), idx.len_hint());
                    }
                    barrier.wait();
                }
            });
        }
    });
    assert!(inserts.iter().map(|c| c.load(SeqCst)).sum::<u64>() > 0);
}
