//! `wiredtiger_struct_pack` / `_unpack` in the Rust core: one `Q` (the varint of every
//! `key_format=Q` key), one `S` string, and a mixed record `SiQu`, each packed into a reused
//! buffer and unpacked into a reused argument list: `cargo bench --bench pack`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use unlatched::pack::{pack, unpack, Arg, Format};

fn bench(c: &mut Criterion) {
    let name = b"a string of about thirty bytes";
    let item: &[u8] = &[7u8; 24];
    let cases: [(&str, Vec<Arg>); 4] = [
        ("Q_small", vec![Arg::Uint(42)]),
        ("Q_large", vec![Arg::Uint(0x0123_4567_89ab_cdef)]),
        ("S", vec![Arg::Bytes(name)]),
        ("SiQu", vec![Arg::Bytes(name), Arg::Int(-12345), Arg::Uint(1 << 40), Arg::Bytes(item)]),
    ];
    let mut group = c.benchmark_group("pack");
    for (fmt, args) in &cases {
        let format = Format::parse(&fmt[..fmt.find('_').unwrap_or(fmt.len())]).expect("format");
        let mut buf = Vec::with_capacity(128);
        group.bench_function(*fmt, |b| {
            b.iter(|| {
                buf.clear();
                pack(&format, black_box(args), &mut buf).expect("pack");
                black_box(buf.len())
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("unpack");
    for (fmt, args) in &cases {
        let format = Format::parse(&fmt[..fmt.find('_').unwrap_or(fmt.len())]).expect("format");
        let mut packed = Vec::new();
        pack(&format, args, &mut packed).expect("pack");
        let mut out: Vec<Arg> = Vec::with_capacity(8);
        group.bench_function(*fmt, |b| {
            b.iter(|| {
                out.clear();
                unpack(&format, black_box(&packed), &mut out).expect("unpack");
                black_box(out.len())
            })
        });
        assert_eq!(&out, args, "{fmt} round trip");
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
