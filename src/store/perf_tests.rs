//! Throughput probes, ignored by default. Run optimized:
//! `cargo test --release --lib -- --ignored --nocapture store_throughput`

use std::hint::black_box;
use std::time::{Duration, Instant};

use scc::Guard;

use super::{Index, ReadView, Seek};

const LATEST: ReadView = ReadView::LATEST;

const N: usize = 10_000;

fn keys() -> Vec<[u8; 8]> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..N)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_be_bytes()
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq)]
enum Op {
    /// `get` under a guard held across a batch of 1024 look-ups.
    GetHeldGuard,
    /// `get` under a fresh `Guard::new()` per look-up.
    GetFreshGuard,
    /// `seek(Ge)` on a present key (the ordered tree path).
    SeekGe,
    /// `upsert` of an existing key, each thread on its own half of the keys.
    UpsertOwnHalf,
}

/// Operations per second over `threads` threads for `dur`.
fn rate(idx: &Index, keys: &[[u8; 8]], threads: usize, dur: Duration, op: Op) -> f64 {
    let total: u64 = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut r = 0x1234_5678u64 + t as u64 * 7919;
                    let mut n = 0u64;
                    let start = Instant::now();
                    while start.elapsed() < dur {
                        // Readers hold one guard per batch; writers make their own per op (a held
                        // guard would stop reclamation of the versions they replace).
                        let held = (op != Op::UpsertOwnHalf).then(Guard::new);
                        for _ in 0..1024 {
                            r ^= r << 13;
                            r ^= r >> 7;
                            r ^= r << 17;
                            let i = ((r as u32 as u64 * keys.len() as u64) >> 32) as usize;
                            let k = &keys[i];
                            let hit = match op {
                                Op::GetHeldGuard => idx.get(k, held.as_ref().unwrap()).is_some(),
                                Op::GetFreshGuard => idx.get(k, &Guard::new()).is_some(),
                                Op::SeekGe => {
                                    idx.seek(k, Seek::Ge, LATEST, held.as_ref().unwrap()).is_some()
                                }
                                Op::UpsertOwnHalf => {
                                    let k = &keys[i / 2 * 2 + t % 2];
                                    idx.upsert(k, &r.to_le_bytes());
                                    true
                                }
                            };
                            assert!(black_box(hit));
                        }
                        n += 1024;
                    }
                    n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    total as f64 / dur.as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

#[test]
#[ignore = "throughput probe: run with --release --ignored --nocapture"]
fn store_throughput_get_1_vs_2_threads() {
    let idx = Index::new();
    let ks = keys();
    for (i, k) in ks.iter().enumerate() {
        idx.upsert(k, &(i as u64).to_le_bytes());
    }
    let dur = Duration::from_millis(700);
    for (name, op) in [
        ("get, guard held", Op::GetHeldGuard),
        ("get, Guard::new per op", Op::GetFreshGuard),
        ("seek Ge (tree)", Op::SeekGe),
        ("upsert existing, own half", Op::UpsertOwnHalf),
    ] {
        let (mut one, mut two) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            one.push(rate(&idx, &ks, 1, dur, op));
            two.push(rate(&idx, &ks, 2, dur, op));
        }
        let (m1, m2) = (median(one.clone()), median(two.clone()));
        println!(
            "{name:24} 1 thread {:6.2} M/s (best {:6.2}), 2 threads {:6.2} M/s (best {:6.2}), 2/1 = {:.2}",
            m1 / 1e6,
            one.iter().cloned().fold(0.0, f64::max) / 1e6,
            m2 / 1e6,
            two.iter().cloned().fold(0.0, f64::max) / 1e6,
            m2 / m1
        );
    }
    let iters = 20_000_000u64;
    let start = Instant::now();
    for _ in 0..iters {
        black_box(Guard::new());
    }
    let outer_ns = start.elapsed().as_nanos() as f64 / iters as f64;
    let held = Guard::new();
    let start = Instant::now();
    for _ in 0..iters {
        black_box(Guard::new());
    }
    let nested_ns = start.elapsed().as_nanos() as f64 / iters as f64;
    drop(held);
    println!("Guard::new + drop: {outer_ns:.2} ns (outermost), {nested_ns:.2} ns (nested)");

    // Building a table of fresh keys (tree insert + hash insert per key).
    let start = Instant::now();
    let fresh = Index::new();
    for (i, k) in ks.iter().enumerate() {
        fresh.insert_new(k, &(i as u64).to_le_bytes()).unwrap();
    }
    let insert_ns = start.elapsed().as_nanos() as f64 / ks.len() as f64;
    let start = Instant::now();
    for k in &ks {
        fresh.remove(k).unwrap();
    }
    let remove_ns = start.elapsed().as_nanos() as f64 / ks.len() as f64;
    println!(
        "insert_new of a fresh key: {insert_ns:.0} ns, remove (with unlink): {remove_ns:.0} ns"
    );
}
