//! Point `search` on a 10,000-row `key_format=Q,value_format=Q` table through the Rust core
//! (the same path the C API takes, minus the variadic shim), from one and from two threads.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use unlatched::conn::Connection;
use unlatched::pack::{self, Arg};
use unlatched::session::Session;

const ROWS: u64 = 10_000;

fn open() -> Arc<Connection> {
    let conn = Connection::open(None, Some("create,in_memory=true")).expect("open");
    let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).expect("session");
    s.create(&conn, "table:bench", Some("key_format=Q,value_format=Q")).expect("create");
    let c = s.open_cursor(&conn, "table:bench", None).expect("cursor").id;
    for k in 0..ROWS {
        s.set_key_with(c, |f, buf| pack::pack(f, &[Arg::Uint(k)], buf).map_err(Into::into));
        s.set_value_with(c, |f, buf| pack::pack(f, &[Arg::Uint(k * 3)], buf).map_err(Into::into));
        s.insert(c).expect("insert");
    }
    Arc::new(conn)
}

/// Runs `iters` random searches on a fresh session of `conn`; returns the elapsed time.
fn searches(conn: &Connection, iters: u64, seed: u64) -> Duration {
    let mut s = Session::open(conn, conn.slots().claim().unwrap(), None).expect("session");
    let c = s.open_cursor(conn, "table:bench", None).expect("cursor").id;
    let mut x = seed;
    let start = Instant::now();
    for _ in 0..iters {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let k = x % ROWS;
        s.set_key_with(c, |f, buf| pack::pack(f, &[Arg::Uint(k)], buf).map_err(Into::into));
        s.search(c).expect("search");
        let (value, _) = pack::varint::decode_u64(s.cursor(c).value_bytes().unwrap()).unwrap();
        assert_eq!(value, k * 3);
    }
    let elapsed = start.elapsed();
    s.close_cursor(c).expect("close");
    conn.slots().release(s.slot());
    elapsed
}

fn bench(c: &mut Criterion) {
    let conn = open();
    let mut group = c.benchmark_group("search_10k_Q");
    for threads in [1u64, 2] {
        group.throughput(Throughput::Elements(threads));
        group.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, &threads| {
            b.iter_custom(|iters| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        let conn = Arc::clone(&conn);
                        std::thread::spawn(move || searches(&conn, iters, 0x9e37_79b9_7f4a_7c15 ^ (t + 1)))
                    })
                    .collect();
                // Wall time of the slowest thread: `threads` searches per iteration.
                handles.into_iter().map(|h| h.join().unwrap()).max().unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
