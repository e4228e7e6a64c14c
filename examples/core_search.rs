//! Point searches through the Rust core only (no C shim), for instruction counts:
//! `valgrind --tool=callgrind target/release/examples/core_search -i N`.

use unlatched::conn::Connection;
use unlatched::pack::{self, Arg};
use unlatched::session::Session;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iters: u64 = args.iter().position(|a| a == "-i").and_then(|i| args.get(i + 1)).and_then(|n| n.parse().ok()).unwrap_or(1_000_000);
    let conn = Connection::open(None, Some("create,in_memory=true")).expect("open");
    let mut s = Session::open(&conn, conn.slots().claim().unwrap(), None).expect("session");
    s.create(&conn, "table:t", Some("key_format=Q,value_format=Q")).expect("create");
    let c = s.open_cursor(&conn, "table:t", None).expect("cursor").id;
    for k in 0..10_000u64 {
        s.set_key_with(c, |f, buf| pack::pack(f, &[Arg::Uint(k)], buf).map_err(Into::into));
        s.set_value_with(c, |f, buf| pack::pack(f, &[Arg::Uint(k * 3)], buf).map_err(Into::into));
        s.insert(c).expect("insert");
    }
    let mut x = 88172645463325252u64;
    let mut sum = 0u64;
    for _ in 0..iters {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let k = x % 10_000;
        s.set_key_with(c, |f, buf| pack::pack(f, &[Arg::Uint(k)], buf).map_err(Into::into));
        s.search(c).expect("search");
        sum += pack::varint::decode_u64(s.cursor(c).value_bytes().unwrap()).unwrap().0;
    }
    println!("{sum}");
}
