//! `Connection::statistics_snapshot` (what a `statistics:` cursor reads) with K sessions open,
//! each having done one cursor open/close: `idle`, nothing recorded since the last read (the
//! reader skips their blocks); `active`, every session recorded one event since the last read
//! (untimed), so every block is re-read. `cargo bench --bench statistics`.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use unlatched::conn::Connection;
use unlatched::session::Session;
use unlatched::stats::counters::ConnStat;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("statistics_snapshot");
    for sessions in [0usize, 100, 1000, 4000] {
        let conn = Connection::open(None, Some(&format!("create,in_memory=true,statistics=(fast),session_max={}", sessions + 10)))
            .expect("open");
        let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).expect("session");
        s.create(&conn, "table:stat", Some("key_format=Q,value_format=Q")).expect("create");
        let mut idle = Vec::with_capacity(sessions);
        for _ in 0..sessions {
            let mut x = Session::open(&conn, conn.slots().claim().unwrap(), None).expect("session");
            let id = x.open_cursor(&conn, "table:stat", None).expect("cursor").id;
            x.close_cursor(id).expect("close");
            idle.push(x);
        }
        group.bench_with_input(BenchmarkId::new("idle", sessions), &sessions, |b, _| {
            b.iter(|| conn.statistics_snapshot(false).len())
        });
        group.bench_with_input(BenchmarkId::new("active", sessions), &sessions, |b, _| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                for _ in 0..iters {
                    for x in &idle {
                        x.stats().add(ConnStat::Searches, 1);
                    }
                    let start = Instant::now();
                    std::hint::black_box(conn.statistics_snapshot(false));
                    timed += start.elapsed();
                }
                timed
            })
        });
        for mut x in idle {
            x.close();
            conn.slots().release(x.slot());
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
