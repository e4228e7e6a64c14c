//! `open_cursor` + `close` through the session cursor cache in the Rust core (the path the C
//! API's cursor_cycle takes, minus the C shim): every open after the first is served from the
//! session's cache. One and two threads, each with its own session, on one table each
//! (`distinct`) or all on the same table (`shared`): `cargo bench --bench cursor_cache`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use unlatched::conn::Connection;
use unlatched::pack::{self, Arg};
use unlatched::session::Session;

const ROWS: u64 = 10_000;

fn table(name: usize) -> String {
    format!("table:cycle{name}")
}

/// A connection with `tables` tables of ROWS rows each.
fn open(tables: usize) -> Arc<Connection> {
    let conn = Connection::open(None, Some("create,in_memory=true,statistics=(fast)")).expect("open");
    let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).expect("session");
    for t in 0..tables {
        s.create(&conn, &table(t), Some("key_format=Q,value_format=Q")).expect("create");
        let c = s.open_cursor(&conn, &table(t), None).expect("cursor").id;
        for k in 0..ROWS {
            s.set_key_with(c, |f, buf| pack::pack(f, &[Arg::Uint(k)], buf).map_err(Into::into));
            s.set_value_with(c, |f, buf| pack::pack(f, &[Arg::Uint(k * 3)], buf).map_err(Into::into));
            s.insert(c).expect("insert");
        }
        s.close_cursor(c).expect("close");
    }
    conn.slots().release(s.slot());
    Arc::new(conn)
}

/// `iters` open + close cycles of `uri` on a fresh session; the first open (which builds the
/// cursor) is not timed.
fn cycles(conn: &Connection, uri: &str, iters: u64) -> Duration {
    let mut s = Session::open(conn, conn.slots().claim().unwrap(), None).expect("session");
    let first = s.open_cursor(conn, uri, None).expect("cursor").id;
    s.close_cursor(first).expect("close");
    let start = Instant::now();
    for _ in 0..iters {
        let opened = s.open_cursor(conn, uri, None).expect("cursor");
        debug_assert!(opened.reused);
        s.close_cursor(opened.id).expect("close");
    }
    let elapsed = start.elapsed();
    s.close();
    conn.slots().release(s.slot());
    elapsed
}

fn bench(c: &mut Criterion) {
    let conn = open(2);
    for (mode, shared) in [("distinct", false), ("shared", true)] {
        let mut group = c.benchmark_group(format!("open_close_cached_{mode}"));
        for threads in [1usize, 2] {
            group.throughput(Throughput::Elements(threads as u64));
            group.bench_with_input(BenchmarkId::from_parameter(threads), &threads, |b, &threads| {
                b.iter_custom(|iters| {
                    let handles: Vec<_> = (0..threads)
                        .map(|t| {
                            let conn = Arc::clone(&conn);
                            let uri = table(if shared { 0 } else { t });
                            std::thread::spawn(move || cycles(&conn, &uri, iters))
                        })
                        .collect();
                    // Wall time of the slowest thread: `threads` cycles per iteration.
                    handles.into_iter().map(|h| h.join().unwrap()).max().unwrap()
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
