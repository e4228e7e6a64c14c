//! Store index micro-benchmarks: `cargo bench --bench store`.
//!
//! Table: 10,000 random 8-byte big-endian keys, 8-byte values. Look-ups visit the keys in a
//! random permutation. `insert_new/10k_fresh_keys` reports the time to fill an empty index with
//! the 10,000 keys (divide by 10,000 for one insert).
//!
//! `get_10k_varint/*`: a second table whose keys are the packed `Q` varints of 0..10,000 (1 to 3
//! bytes, as a WiredTiger `key_format=Q` table stores them) with 1- to 3-byte values; misses
//! look up the varints of 10,000..20,000.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use scc::Guard;
use unlatched::pack::varint::encode_u64_buf;
use unlatched::store::{Index, ReadView, Seek};

const N: usize = 10_000;

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn keys() -> Vec<[u8; 8]> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..N).map(|_| xorshift(&mut x).to_be_bytes()).collect()
}

/// `keys` in a random order.
fn permuted(keys: &[[u8; 8]]) -> Vec<[u8; 8]> {
    let mut v = keys.to_vec();
    let mut x = 12345u64;
    for i in (1..v.len()).rev() {
        let j = (xorshift(&mut x) % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
    v
}

fn table() -> (Index, Vec<[u8; 8]>) {
    let idx = Index::new();
    let ks = keys();
    for (i, k) in ks.iter().enumerate() {
        idx.upsert(k, &(i as u64).to_le_bytes());
    }
    (idx, permuted(&ks))
}

/// A packed `Q` varint key: bytes and length.
type Varint = ([u8; 9], usize);

fn varint(x: u64) -> Varint {
    let mut buf = [0u8; 9];
    let len = encode_u64_buf(x, &mut buf);
    (buf, len)
}

/// The varint table, the look-up order of its keys, and as many absent keys.
fn varint_table() -> (Index, Vec<Varint>, Vec<Varint>) {
    let idx = Index::new();
    for k in 0..N as u64 {
        let (key, klen) = varint(k);
        let (val, vlen) = varint(k * 7);
        idx.upsert(&key[..klen], &val[..vlen]);
    }
    let mut x = 777u64;
    let mut order: Vec<Varint> = (0..N as u64).map(varint).collect();
    for i in (1..order.len()).rev() {
        let j = (xorshift(&mut x) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let absent = order
        .iter()
        .map(|_| varint(N as u64 + xorshift(&mut x) % N as u64))
        .collect();
    (idx, order, absent)
}

fn bench_varint(c: &mut Criterion) {
    let (idx, order, absent) = varint_table();
    let mut g = c.benchmark_group("get_10k_varint");

    g.bench_function("hit_held_guard", |b| {
        let guard = Guard::new();
        let mut i = 0;
        b.iter(|| {
            i = if i + 1 == N { 0 } else { i + 1 };
            let (k, l) = &order[i];
            black_box(idx.get(&k[..*l], &guard))
        })
    });

    g.bench_function("hit_guard_per_op", |b| {
        let mut i = 0;
        b.iter(|| {
            i = if i + 1 == N { 0 } else { i + 1 };
            let (k, l) = &order[i];
            let guard = Guard::new();
            black_box(idx.get(&k[..*l], &guard).is_some())
        })
    });

    g.bench_function("miss_held_guard", |b| {
        let guard = Guard::new();
        let mut i = 0;
        b.iter(|| {
            i = if i + 1 == N { 0 } else { i + 1 };
            let (k, l) = &absent[i];
            black_box(idx.get(&k[..*l], &guard))
        })
    });

    g.finish();
}

fn bench_store(c: &mut Criterion) {
    let (idx, order) = table();
    let mut g = c.benchmark_group("store");

    g.bench_function("guard_new", |b| b.iter(|| black_box(Guard::new())));

    g.bench_function("get_10k/held_guard", |b| {
        let guard = Guard::new();
        let mut i = 0;
        b.iter(|| {
            i = if i + 1 == N { 0 } else { i + 1 };
            black_box(idx.get(&order[i], &guard))
        })
    });

    g.bench_function("get_10k/guard_per_op", |b| {
        let mut i = 0;
        b.iter(|| {
            i = if i + 1 == N { 0 } else { i + 1 };
            let guard = Guard::new();
            black_box(idx.get(&order[i], &guard).is_some())
        })
    });

    g.bench_function("get_10k/miss", |b| {
        let guard = Guard::new();
        let mut i = 0;
        b.iter(|| {
            i = if i + 1 == N { 0 } else { i + 1 };
            let mut k = order[i];
            k[7] ^= 0x55;
            black_box(idx.get(&k, &guard))
        })
    });

    for (name, dir) in [("seek_ge_10k/absent_key", Seek::Ge), ("seek_le_10k/absent_key", Seek::Le)] {
        g.bench_function(name, |b| {
            let guard = Guard::new();
            let mut i = 0;
            b.iter(|| {
                i = if i + 1 == N { 0 } else { i + 1 };
                let mut k = order[i];
                k[7] ^= 0x55;
                black_box(idx.seek(&k, dir, ReadView::LATEST, &guard))
            })
        });
    }

    g.bench_function("upsert_10k/existing", |b| {
        let mut i = 0;
        let mut n = 0u64;
        b.iter(|| {
            i = if i + 1 == N { 0 } else { i + 1 };
            n += 1;
            idx.upsert(&order[i], &n.to_le_bytes());
        })
    });

    g.bench_function("upsert_remove/new_key", |b| {
        let mut n = 0u64;
        b.iter(|| {
            n += 1;
            let k = (n | 1 << 63).to_be_bytes();
            idx.upsert(&k, &n.to_le_bytes());
            idx.remove(&k).unwrap();
        })
    });

    g.bench_function("insert_new/10k_fresh_keys", |b| {
        let ks = keys();
        b.iter_batched(
            Index::new,
            |idx| {
                for k in &ks {
                    idx.insert_new(k, &[1u8; 8]).unwrap();
                }
                idx
            },
            BatchSize::PerIteration,
        )
    });

    g.finish();
}

criterion_group!(benches, bench_store, bench_varint);
criterion_main!(benches);
