use super::*;
use crate::stats::catalog::*;

/// A connection view of three statistics: 1185 (cache maximum), 1409 (search calls), 1425.
fn view() -> StatsView {
    StatsView::new(
        Family::Connection,
        vec![(CONN_CACHE_BYTES_MAX, 104_857_600), (CONN_CURSOR_SEARCH, 5), (CONN_CURSOR_OPEN_COUNT, 7)],
        false,
    )
}

fn unused() -> Result<Snapshot> {
    panic!("the snapshot is not stale")
}

fn kind(r: Result<impl std::fmt::Debug>) -> Kind {
    r.expect_err("an error").kind()
}

fn message(r: Result<impl std::fmt::Debug>) -> String {
    r.expect_err("an error").messages().collect::<Vec<_>>().join("; ")
}

/// Unpacks a value with `SSq`.
fn decode(bytes: &[u8]) -> (String, String, i64) {
    let mut args = Vec::new();
    pack::unpack(&VALUE_FORMAT, bytes, &mut args).unwrap();
    let s = |a: Arg<'_>| String::from_utf8(a.as_bytes().unwrap().to_vec()).unwrap();
    (s(args[0]), s(args[1]), args[2].as_i64().unwrap())
}

#[test]
fn unpositioned_getters_need_a_key_and_a_value() {
    let v = view();
    assert_eq!(message(v.key()), "requires key be set");
    assert_eq!(kind(v.key_bytes()), Kind::Invalid);
    assert_eq!(message(v.value_bytes()), "requires value be set");
    assert_eq!(kind(v.entry()), Kind::Invalid);
    assert!(!v.is_positioned());
}

#[test]
fn next_walks_in_id_order_and_stays_at_the_end() {
    let mut v = view();
    let mut seen = Vec::new();
    while v.next(unused).is_ok() {
        let e = v.entry().unwrap();
        seen.push((v.key().unwrap(), e.description, e.value));
    }
    assert_eq!(
        seen,
        [
            (1185, "cache: maximum bytes configured", 104_857_600),
            (1409, "cursor: cursor search calls", 5),
            (1425, "cursor: open cursor count", 7),
        ]
    );
    // No restart: the end stays the end, and the key is gone.
    assert_eq!(kind(v.next(unused)), Kind::NotFound);
    assert_eq!(kind(v.next(unused)), Kind::NotFound);
    assert_eq!(message(v.key()), "requires key be set");
    assert_eq!(message(v.value_bytes()), "requires value be set");
    // As in the reference, the position is still the last id: prev lands before it.
    v.prev(unused).unwrap();
    assert_eq!(v.key().unwrap(), 1409);
}

#[test]
fn prev_starts_at_the_last_entry_and_stays_at_the_start() {
    let mut v = view();
    v.prev(unused).unwrap();
    assert_eq!(v.key().unwrap(), 1425);
    v.prev(unused).unwrap();
    v.prev(unused).unwrap();
    assert_eq!(v.key().unwrap(), 1185);
    for _ in 0..3 {
        assert_eq!(kind(v.prev(unused)), Kind::NotFound);
    }
    v.next(unused).unwrap();
    assert_eq!(v.key().unwrap(), 1409);
}

#[test]
fn search_positions_on_listed_ids_only() {
    let mut v = view();
    assert_eq!(message(v.search(unused)), "requires key be set");
    v.set_key(1409);
    v.search(unused).unwrap();
    assert_eq!(v.entry().unwrap(), Entry { id: 1409, description: "cursor: cursor search calls", value: 5 });
    // In range but not computed, and out of range (999 and 1712, as verified on the reference).
    for id in [1410, 999, 1712, 2228] {
        v.set_key(id);
        assert_eq!(kind(v.search(unused)), Kind::NotFound, "{id}");
        assert_eq!(v.key().unwrap(), id, "a failed search keeps the key");
        assert_eq!(message(v.value_bytes()), "requires value be set");
    }
}

#[test]
fn search_does_not_count_as_positioning() {
    // The reference's search leaves its "not positioned" flag alone: next starts at the first.
    let mut v = view();
    v.set_key(1425);
    v.search(unused).unwrap();
    v.next(unused).unwrap();
    assert_eq!(v.key().unwrap(), 1185);
    // Once positioned by next, a search moves the position.
    v.set_key(1409);
    v.search(unused).unwrap();
    v.next(unused).unwrap();
    assert_eq!(v.key().unwrap(), 1425);
}

#[test]
fn next_continues_from_a_key_that_is_not_listed() {
    let mut v = view();
    v.next(unused).unwrap();
    v.set_key(1300);
    assert_eq!(kind(v.search(unused)), Kind::NotFound);
    v.next(unused).unwrap();
    assert_eq!(v.key().unwrap(), 1409);
    v.set_key(1300);
    v.prev(unused).unwrap();
    assert_eq!(v.key().unwrap(), 1185);
}

#[test]
fn values_are_frozen_until_reset() {
    let mut v = view();
    v.set_key(1409);
    v.search(unused).unwrap();
    v.next(unused).unwrap();
    v.reset();
    assert!(v.is_stale());
    assert_eq!(message(v.key()), "requires key be set");
    assert_eq!(message(v.value_bytes()), "requires value be set");
    let mut calls = 0;
    v.set_key(1409);
    v.search(|| {
        calls += 1;
        Ok(vec![(1409, 8), (1425, 7)])
    })
    .unwrap();
    assert_eq!(v.entry().unwrap().value, 8);
    // The fresh snapshot is taken once; reset also dropped the position: next starts over.
    v.next(|| {
        calls += 1;
        Ok(vec![])
    })
    .unwrap();
    assert_eq!(calls, 1);
    assert_eq!(v.key().unwrap(), 1409);
    assert_eq!(v.snapshot(), &[(1409, 8), (1425, 7)]);
}

#[test]
fn a_failed_refresh_is_retried() {
    let mut v = view();
    v.reset();
    assert_eq!(kind(v.next(|| Err(Error::quiet(Kind::NoEntry)))), Kind::NoEntry);
    assert!(v.is_stale());
    v.next(|| Ok(vec![(1425, 1)])).unwrap();
    assert_eq!(v.entry().unwrap().value, 1);
}

#[test]
fn the_value_is_description_printable_and_number() {
    let mut v = view();
    v.next(unused).unwrap();
    assert_eq!(
        decode(v.value_bytes().unwrap()),
        ("cache: maximum bytes configured".to_string(), "104M (104857600)".to_string(), 104_857_600)
    );
    assert_eq!(v.entry().unwrap().printable().to_string(), "104M (104857600)");
    assert_eq!(v.api_key_format().as_str(), "i");
    assert_eq!(v.api_value_format().as_str(), "SSq");
}

#[test]
fn raw_cursors_exchange_the_packed_bytes() {
    let mut v = StatsView::new(Family::Connection, vec![(1000, 0), (1425, 7)], true);
    assert_eq!(v.api_key_format().as_str(), "u");
    assert_eq!(v.api_value_format().as_str(), "u");
    v.next(unused).unwrap();
    // 1000 packs as c3 a8 (verified on the reference).
    assert_eq!(v.key_bytes().unwrap(), &[0xc3, 0xa8]);
    let mut expect = Vec::new();
    let args = [Arg::Bytes(b"LSM: application work units currently queued"), Arg::Bytes(b"0"), Arg::Int(0)];
    pack::pack(&VALUE_FORMAT, &args, &mut expect).unwrap();
    assert_eq!(v.value_bytes().unwrap(), &expect[..]);
    // A raw set_key takes an i-packed item.
    let mut item = Vec::new();
    pack::pack(&KEY_FORMAT, &[Arg::Int(1425)], &mut item).unwrap();
    v.set_key_with(|fmt, buf| Ok(pack::pack(fmt, &[Arg::Bytes(&item)], buf)?));
    v.search(unused).unwrap();
    assert_eq!(v.entry().unwrap().value, 7);
}

#[test]
fn a_bad_raw_key_is_reported_by_the_next_call() {
    let mut v = StatsView::new(Family::Connection, vec![(1425, 7)], true);
    v.set_key_with(|fmt, buf| Ok(pack::pack(fmt, &[Arg::Bytes(&[])], buf)?));
    assert_eq!(kind(v.search(unused)), Kind::Invalid);
    assert_eq!(kind(v.key_bytes()), Kind::Invalid);
    // A failing pack closure is kept the same way.
    v.set_key_with(|_, _| Err(Error::invalid("bad argument")));
    assert_eq!(message(v.search(unused)), "bad argument");
    v.set_key(1425);
    v.search(unused).unwrap();
}

#[test]
fn set_key_through_the_shim_packs_an_int() {
    let mut v = view();
    v.set_key_with(|fmt, buf| Ok(pack::pack(fmt, &[Arg::Int(1425)], buf)?));
    assert_eq!(v.key().unwrap(), 1425);
    v.search(unused).unwrap();
    assert_eq!(v.entry().unwrap().value, 7);
}

#[test]
fn snapshots_are_sorted_and_kept_to_the_family() {
    let v = StatsView::new(Family::Session, vec![(4003, 3), (4000, 1)], false);
    assert_eq!(v.snapshot(), &[(4000, 1), (4003, 3)]);
    let mut empty = StatsView::new(Family::DataSource, vec![], false);
    assert_eq!(kind(empty.next(unused)), Kind::NotFound);
    assert_eq!(kind(empty.prev(unused)), Kind::NotFound);
    assert_eq!(kind(empty.next(unused)), Kind::NotFound);
}

#[test]
fn session_views_describe_session_statistics() {
    let mut v = StatsView::new(Family::Session, vec![(SESSION_TXN_BYTES_DIRTY, 42)], false);
    v.next(unused).unwrap();
    assert_eq!(v.entry().unwrap().description, "session: dirty bytes in this txn");
}

#[test]
fn unsupported_methods_are_enotsup() {
    let e = unsupported();
    assert_eq!((e.kind(), e.code()), (Kind::NotSupported, libc::ENOTSUP));
    assert_eq!(e.messages().collect::<Vec<_>>(), ["Unsupported cursor operation"]);
}

/// A `statistics:join` view of two entries.
fn join_view() -> StatsView {
    let sets = vec![("index:t:a".to_string(), [1, 0, 2, 0, 3]), ("table:t".to_string(), [4, 5, 6, 7, 8])];
    StatsView::new_join(Box::new(move || sets.clone()), false)
}

#[test]
fn join_views_walk_set_after_set() {
    let mut v = join_view();
    let mut seen = Vec::new();
    while v.next(unused).is_ok() {
        let (desc, printable, value) = decode(v.value_bytes().unwrap());
        seen.push((v.key().unwrap(), desc, printable, value));
    }
    assert_eq!(seen.len(), 10);
    assert_eq!(seen[0], (3000, "join: index:t:a: accesses to the main table".into(), "1".into(), 1));
    assert_eq!(seen[4], (3004, "join: index:t:a: items iterated".into(), "3".into(), 3));
    assert_eq!(seen[5], (3000, "join: table:t: accesses to the main table".into(), "4".into(), 4));
    assert_eq!(seen[9].3, 8);
    // Past the end: WT_NOTFOUND, no key, and it stays there.
    assert_eq!(kind(v.next(unused)), Kind::NotFound);
    assert_eq!(kind(v.key()), Kind::Invalid);
    // prev from the start: the last set's last key, then backwards across the sets.
    v.reset();
    v.prev(unused).unwrap();
    assert_eq!((v.key().unwrap(), decode(v.value_bytes().unwrap()).2), (3004, 8));
    for _ in 0..5 {
        v.prev(unused).unwrap();
    }
    assert_eq!(decode(v.value_bytes().unwrap()), ("join: index:t:a: items iterated".into(), "3".into(), 3));
}

#[test]
fn join_views_search_the_set_entered() {
    let mut v = join_view();
    // Before any set is entered: zeros and the reference's "(null)" prefix.
    v.set_key(WT_STAT_JOIN_ITERATED_ID);
    v.search(unused).unwrap();
    assert_eq!(decode(v.value_bytes().unwrap()), ("join: (null): items iterated".into(), "0".into(), 0));
    for _ in 0..6 {
        v.next(unused).unwrap();
    }
    v.set_key(3002);
    v.search(unused).unwrap();
    assert_eq!(decode(v.value_bytes().unwrap()).2, 6);
    v.set_key(3005);
    assert_eq!(kind(v.search(unused)), Kind::NotFound);
    // An empty join: nothing to walk.
    let mut empty = StatsView::new_join(Box::new(Vec::new), false);
    assert_eq!(kind(empty.next(unused)), Kind::NotFound);
    assert_eq!(kind(empty.prev(unused)), Kind::NotFound);
}

const WT_STAT_JOIN_ITERATED_ID: i32 = 3004;
