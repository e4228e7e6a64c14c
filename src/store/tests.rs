//! Unit tests of the store module (single-threaded semantics).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::hash::{BuildHasher, Hash};
use std::ops::Bound::{Excluded, Included, Unbounded};

use scc::{Comparable, Equivalent, Guard};

use super::key::KeyHashBuilder;
use super::*;

const LATEST: ReadView = ReadView::LATEST;

/// Small deterministic PRNG (xorshift64*).
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Byte strings that exercise the comparison corner cases: empty, zero bytes, prefixes, lengths
/// around 8 (prefix word) and around the inline limit.
fn tricky_keys() -> Vec<Vec<u8>> {
    let mut keys: Vec<Vec<u8>> = vec![
        vec![],
        vec![0],
        vec![0, 0],
        vec![0; 8],
        vec![0; 9],
        vec![1],
        vec![0xff],
        vec![0xff; 8],
        vec![0xff; 9],
        b"a".to_vec(),
        b"ab".to_vec(),
        b"abc".to_vec(),
        b"abcdefg".to_vec(),
        b"abcdefgh".to_vec(),
        b"abcdefgh\0".to_vec(),
        b"abcdefghi".to_vec(),
        b"abcdefgi".to_vec(),
        b"b".to_vec(),
    ];
    for len in [7usize, 8, 9, 15, 16, 21, 22, 23, 24, 31, 40, 100] {
        keys.push(vec![b'k'; len]);
        let mut v = vec![b'k'; len];
        *v.last_mut().unwrap() = b'l';
        keys.push(v);
        let mut v = vec![b'k'; len];
        v[0] = b'j';
        keys.push(v);
    }
    let mut rng = Rng::new(7);
    for _ in 0..if cfg!(miri) { 20 } else { 200 } {
        let len = rng.below(34) as usize;
        // Small alphabet: many shared prefixes.
        keys.push((0..len).map(|_| (rng.below(3)) as u8).collect());
    }
    keys
}

fn hash_of<T: Hash + ?Sized>(b: &KeyHashBuilder, t: &T) -> u64 {
    b.hash_one(t)
}

#[test]
fn key_order_is_bytewise_prefix_first() {
    let keys = tricky_keys();
    let builder = KeyHashBuilder::default();
    for a in &keys {
        let ka = Key::new(a);
        assert_eq!(ka.as_bytes(), &a[..]);
        assert_eq!(ka.len(), a.len());
        assert_eq!(ka.is_empty(), a.is_empty());
        for b in &keys {
            let kb = Key::new(b);
            let expect = a.as_slice().cmp(b.as_slice());
            assert_eq!(ka.cmp(&kb), expect, "{a:?} vs {b:?}");
            assert_eq!(ka == kb, expect == Ordering::Equal);
            assert_eq!(Probe::new(a).compare(&kb), expect, "probe {a:?} vs {b:?}");
            assert_eq!(Probe::new(a).equivalent(&kb), expect == Ordering::Equal);
            if expect == Ordering::Equal {
                assert_eq!(hash_of(&builder, &ka), hash_of(&builder, &Probe::new(b)));
            }
        }
    }
}

#[test]
fn prefix_is_zero_padded_big_endian_for_every_length() {
    let mut rng = Rng::new(3);
    for len in 0..=12usize {
        for _ in 0..50 {
            let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            let mut padded = [0u8; 8];
            let n = len.min(8);
            padded[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(
                super::key::prefix_of(&bytes),
                u64::from_be_bytes(padded),
                "{bytes:02x?}"
            );
        }
    }
}

#[test]
fn short_key_form_hashes_and_compares_like_the_probe() {
    let keys = tricky_keys();
    let builder = KeyHashBuilder::default();
    for a in &keys {
        let pa = Probe::new(a);
        let Some(sa) = pa.short() else {
            assert!(a.len() > super::key::SHORT_KEY_LEN);
            continue;
        };
        assert!(a.len() <= super::key::SHORT_KEY_LEN);
        // Writers probe the short-key index with a `Probe`, `get` with the `ShortKey` form.
        assert_eq!(hash_of(&builder, &pa), hash_of(&builder, &sa), "{a:?}");
        assert_eq!(
            hash_of(&builder, &Key::new(a)),
            hash_of(&builder, &sa),
            "{a:?}"
        );
        for b in &keys {
            if let Some(sb) = Probe::new(b).short() {
                assert_eq!(sa == sb, a == b, "{a:?} vs {b:?}");
                assert_eq!(pa.equivalent(&sb), a == b, "{a:?} vs {b:?}");
            }
        }
    }
}

#[test]
fn short_and_long_keys_around_the_boundary() {
    // Keys of 0..=12 bytes sharing their first bytes (and zero bytes, which the prefix pads
    // with): each is its own entry, found by `get`, `seek` and after removal of the others.
    let idx = Index::new();
    let g = Guard::new();
    let mut keys: Vec<Vec<u8>> = Vec::new();
    for len in 0..=12usize {
        keys.push(vec![0; len]);
        keys.push((1..=len as u8).collect());
    }
    keys.sort();
    keys.dedup();
    for (i, k) in keys.iter().enumerate() {
        idx.insert_new(k, &[i as u8]).unwrap();
    }
    assert_eq!(idx.tree_entries(), keys.len());
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(idx.get(k, &g), Some(&[i as u8][..]), "{k:?}");
        assert_eq!(idx.seek(k, Seek::Ge, LATEST, &g), Some((&k[..], &[i as u8][..])));
    }
    for (i, k) in keys.iter().enumerate() {
        if i % 2 == 0 {
            idx.remove(k).unwrap();
        }
    }
    assert_eq!(idx.tree_entries(), keys.len() / 2);
    for (i, k) in keys.iter().enumerate() {
        let value = [i as u8];
        let expect = (i % 2 == 1).then_some(&value[..]);
        assert_eq!(idx.get(k, &g), expect, "{k:?}");
        let mut longer = k.clone();
        longer.push(0xff);
        if !keys.contains(&longer) {
            assert_eq!(idx.get(&longer, &g), None, "{longer:?}");
        }
    }
}

#[test]
fn key_inline_heap_boundary() {
    assert_eq!(std::mem::size_of::<Key>(), 32);
    for len in 0..=INLINE_KEY_LEN + 2 {
        let bytes: Vec<u8> = (0..len as u8).collect();
        let k = Key::new(&bytes);
        assert_eq!(k.is_inline(), len <= INLINE_KEY_LEN);
        assert_eq!(k.as_bytes(), &bytes[..]);
        let c = k.clone();
        assert_eq!(c.as_bytes(), &bytes[..]);
        assert_eq!(c, k);
    }
}

#[test]
fn hasher_spreads_short_keys() {
    // Sequential 8-byte keys must not collide in the low or high bits more than chance.
    let b = KeyHashBuilder::default();
    let n: u64 = if cfg!(miri) { 256 } else { 4096 };
    let mut low = std::collections::HashSet::new();
    let mut high = std::collections::HashSet::new();
    for i in 0u64..n {
        let h = hash_of(&b, &Key::new(&i.to_be_bytes()));
        low.insert(h & 0xffff);
        high.insert(h >> 48);
    }
    let min = (n * 93 / 100) as usize;
    assert!(
        low.len() > min && high.len() > min,
        "{} {}",
        low.len(),
        high.len()
    );
    // Packed `Q` varints (1..=3 bytes, most bits of the prefix zero), through the short form.
    let (mut low, mut high) = (
        std::collections::HashSet::new(),
        std::collections::HashSet::new(),
    );
    for i in 0u64..n {
        let mut buf = [0u8; 9];
        let len = crate::pack::varint::encode_u64_buf(i * 5, &mut buf);
        let h = hash_of(&b, &Probe::new(&buf[..len]).short().unwrap());
        low.insert(h & 0xffff);
        high.insert(h >> 48);
    }
    assert!(
        low.len() > min && high.len() > min,
        "{} {}",
        low.len(),
        high.len()
    );
}

#[test]
fn value_layout_and_boundary() {
    assert_eq!(std::mem::size_of::<Data>(), 32);
    // Ids and four stamps (engine sequence, application commit and durable timestamps), the
    // payload, the link: the fields readers use fit the first 64 bytes.
    assert!(std::mem::size_of::<Version>() <= 72);
    for len in [
        0usize,
        1,
        INLINE_VALUE_LEN - 1,
        INLINE_VALUE_LEN,
        INLINE_VALUE_LEN + 1,
        4096,
    ] {
        let bytes: Vec<u8> = (0..len).map(|i| i as u8).collect();
        let d = Data::value(&bytes);
        assert_eq!(matches!(d, Data::Inline { .. }), len <= INLINE_VALUE_LEN);
        assert_eq!(d.bytes(), Some(&bytes[..]));
        assert!(!d.is_tombstone());
    }
    assert!(Data::Tombstone.is_tombstone());
    assert_eq!(Data::Tombstone.bytes(), None);
    let v = Version::committed(Data::value(b"x"));
    assert!(v.is_globally_visible());
    assert_eq!(
        v.commit_ts.load(std::sync::atomic::Ordering::Relaxed),
        TS_NONE
    );
}

#[test]
fn empty_index() {
    let idx = Index::new();
    let g = Guard::new();
    assert_eq!(idx.get(b"a", &g), None);
    assert_eq!(idx.get(b"", &g), None);
    for dir in [Seek::Ge, Seek::Gt, Seek::Le, Seek::Lt] {
        assert_eq!(idx.seek(b"a", dir, LATEST, &g), None);
        assert_eq!(idx.seek(b"", dir, LATEST, &g), None);
    }
    assert_eq!(idx.first(LATEST, &g), None);
    assert_eq!(idx.last(LATEST, &g), None);
    assert_eq!(idx.len_hint(), 0);
    assert_eq!(idx.remove(b"a"), Err(Missing));
    assert_eq!(idx.update_existing(b"a", b"v"), Err(Missing));
    assert_eq!(idx.get(b"a", &g), None);
    assert_eq!(idx.len_hint(), 0);
}

#[test]
fn upsert_get_replace() {
    let idx = Index::new();
    idx.upsert(b"k", b"v1");
    let g = Guard::new();
    assert_eq!(idx.get(b"k", &g), Some(&b"v1"[..]));
    idx.upsert(b"k", b"v2");
    assert_eq!(idx.get(b"k", &g), Some(&b"v2"[..]));
    assert_eq!(idx.get(b"k\0", &g), None);
    assert_eq!(idx.get(b"", &g), None);
    // An empty value is a value, not absence.
    idx.upsert(b"e", b"");
    assert_eq!(idx.get(b"e", &g), Some(&b""[..]));
    assert_eq!(idx.len_hint(), 2);
}

#[test]
fn insert_new_semantics() {
    let idx = Index::new();
    let g = Guard::new();
    assert_eq!(idx.insert_new(b"k", b"one"), Ok(()));
    assert_eq!(idx.insert_new(b"k", b"two"), Err(Exists));
    assert_eq!(idx.get(b"k", &g), Some(&b"one"[..]));
    idx.remove(b"k").unwrap();
    assert_eq!(idx.insert_new(b"k", b"three"), Ok(()));
    assert_eq!(idx.get(b"k", &g), Some(&b"three"[..]));
}

#[test]
fn update_existing_semantics() {
    let idx = Index::new();
    let g = Guard::new();
    assert_eq!(idx.update_existing(b"k", b"x"), Err(Missing));
    assert_eq!(idx.get(b"k", &g), None);
    idx.upsert(b"k", b"a");
    assert_eq!(idx.update_existing(b"k", b"b"), Ok(()));
    assert_eq!(idx.get(b"k", &g), Some(&b"b"[..]));
    idx.remove(b"k").unwrap();
    assert_eq!(idx.update_existing(b"k", b"c"), Err(Missing));
    assert_eq!(idx.get(b"k", &g), None);
}

#[test]
fn remove_and_reinsert() {
    let idx = Index::new();
    let g = Guard::new();
    assert_eq!(idx.remove(b"k"), Err(Missing));
    idx.upsert(b"k", b"a");
    idx.upsert(b"j", b"j");
    assert_eq!(idx.remove(b"k"), Ok(()));
    assert_eq!(idx.get(b"k", &g), None);
    assert_eq!(idx.remove(b"k"), Err(Missing));
    assert_eq!(idx.len_hint(), 1);
    // Phase 1 unlinks removed keys at once: the tree holds only `j`.
    assert_eq!(idx.tree_entries(), 1);
    idx.upsert(b"k", b"b");
    assert_eq!(idx.get(b"k", &g), Some(&b"b"[..]));
    assert_eq!(idx.remove(b"k"), Ok(()));
    assert_eq!(idx.insert_new(b"k", b"c"), Ok(()));
    assert_eq!(idx.get(b"k", &g), Some(&b"c"[..]));
    for i in 0..if cfg!(miri) { 10u32 } else { 100 } {
        idx.remove(b"k").unwrap();
        assert_eq!(idx.get(b"k", &g), None);
        idx.insert_new(b"k", &i.to_be_bytes()).unwrap();
        assert_eq!(idx.get(b"k", &g), Some(&i.to_be_bytes()[..]));
    }
    assert_eq!(idx.len_hint(), 2);
    assert_eq!(idx.tree_entries(), 2);
}

#[test]
fn references_outlive_later_writes_under_guard() {
    let idx = Index::new();
    idx.upsert(b"k", b"first value, long enough to live on the heap");
    let g = Guard::new();
    let old = idx.get(b"k", &g).unwrap();
    idx.upsert(b"k", b"second");
    idx.remove(b"k").unwrap();
    // Drive the epoch: the replaced versions must survive while `g` lives.
    for _ in 0..64 {
        let _ = Guard::new();
    }
    assert_eq!(old, b"first value, long enough to live on the heap");
}

#[test]
fn long_keys_and_values() {
    let idx = Index::new();
    let g = Guard::new();
    let big_key: Vec<u8> = (0..1000).map(|i| (i * 7) as u8).collect();
    let val_len = if cfg!(miri) { 2_000 } else { 100_000 };
    let big_val: Vec<u8> = (0..val_len).map(|i| (i * 13) as u8).collect();
    idx.upsert(&big_key, &big_val);
    assert_eq!(idx.get(&big_key, &g), Some(&big_val[..]));
    let mut other = big_key.clone();
    other.push(0);
    assert_eq!(idx.get(&other, &g), None);
    assert_eq!(
        idx.seek(&other, Seek::Lt, LATEST, &g),
        Some((&big_key[..], &big_val[..]))
    );
    assert_eq!(
        idx.seek(&big_key[..999], Seek::Gt, LATEST, &g).map(|e| e.0),
        Some(&big_key[..])
    );
    idx.remove(&big_key).unwrap();
    assert_eq!(idx.get(&big_key, &g), None);
}

#[test]
fn inline_heap_boundary_in_index() {
    let idx = Index::new();
    let g = Guard::new();
    let lens = [
        0,
        1,
        7,
        8,
        9,
        INLINE_KEY_LEN - 1,
        INLINE_KEY_LEN,
        INLINE_KEY_LEN + 1,
        INLINE_VALUE_LEN,
        INLINE_VALUE_LEN + 1,
        64,
    ];
    for &kl in &lens {
        for &vl in &lens {
            let key: Vec<u8> = std::iter::repeat_n(b'x', kl).chain([vl as u8]).collect();
            let val = vec![kl as u8; vl];
            idx.upsert(&key, &val);
            assert_eq!(idx.get(&key, &g), Some(&val[..]));
        }
    }
    assert_eq!(idx.len_hint(), lens.len() * lens.len());
}

/// The model answer for `seek`.
fn model_seek<'m>(
    model: &'m BTreeMap<Vec<u8>, Vec<u8>>,
    key: &[u8],
    dir: Seek,
) -> Option<(&'m [u8], &'m [u8])> {
    let key = key.to_vec();
    let e = match dir {
        Seek::Ge => model.range((Included(key), Unbounded)).next(),
        Seek::Gt => model.range((Excluded(key), Unbounded)).next(),
        Seek::Le => model.range((Unbounded, Included(key))).next_back(),
        Seek::Lt => model.range((Unbounded, Excluded(key))).next_back(),
    };
    e.map(|(k, v)| (k.as_slice(), v.as_slice()))
}

fn check_against_model(idx: &Index, model: &BTreeMap<Vec<u8>, Vec<u8>>, probes: &[Vec<u8>]) {
    let g = Guard::new();
    for p in probes {
        assert_eq!(
            idx.get(p, &g),
            model.get(p).map(|v| v.as_slice()),
            "get {p:?}"
        );
        for dir in [Seek::Ge, Seek::Gt, Seek::Le, Seek::Lt] {
            assert_eq!(
                idx.seek(p, dir, LATEST, &g),
                model_seek(model, p, dir),
                "seek {p:?} {dir:?}"
            );
            assert_eq!(
                idx.seek_slow(p, dir, LATEST, &g),
                model_seek(model, p, dir),
                "slow {p:?} {dir:?}"
            );
        }
    }
    let first = model
        .iter()
        .next()
        .map(|(k, v)| (k.as_slice(), v.as_slice()));
    let last = model
        .iter()
        .next_back()
        .map(|(k, v)| (k.as_slice(), v.as_slice()));
    assert_eq!(idx.first(LATEST, &g), first);
    assert_eq!(idx.last(LATEST, &g), last);
    assert_eq!(idx.len_hint(), model.len());
}

#[test]
fn seek_all_directions_present_absent_removed() {
    let idx = Index::new();
    let mut model = BTreeMap::new();
    // Keys 10, 20, ..., 100 as one byte, plus prefix-related multi-byte keys.
    for i in 1..=10u8 {
        let k = vec![i * 10];
        idx.upsert(&k, &[i]);
        model.insert(k, vec![i]);
    }
    for k in [
        &b"\x32\x00"[..],
        b"\x32\x00\x00",
        b"\x32\x01",
        b"\x32\xff\xff\xff\xff\xff\xff\xff\xff",
    ] {
        idx.upsert(k, k);
        model.insert(k.to_vec(), k.to_vec());
    }
    // Remove some: in the middle, the first and the last.
    for k in [vec![30u8], vec![10u8], vec![100u8], b"\x32\x00".to_vec()] {
        idx.remove(&k).unwrap();
        model.remove(&k);
    }
    let step = if cfg!(miri) { 7 } else { 1 };
    let mut probes: Vec<Vec<u8>> = (0..=255u8).step_by(step).map(|b| vec![b]).collect();
    probes.push(vec![]);
    probes.extend(model.keys().cloned());
    for k in model.keys() {
        let mut k2 = k.clone();
        k2.push(0);
        probes.push(k2);
        probes.push(k[..k.len() - 1].to_vec());
    }
    probes.extend([
        vec![30, 0],
        vec![0x32, 0, 0, 0],
        vec![0x32, 0xff],
        vec![0xff; 20],
    ]);
    check_against_model(&idx, &model, &probes);

    let g = Guard::new();
    // Explicit spot checks around the removed key 30 and the ends.
    assert_eq!(
        idx.seek(&[30], Seek::Ge, LATEST, &g),
        Some((&[40u8][..], &[4u8][..]))
    );
    assert_eq!(
        idx.seek(&[30], Seek::Le, LATEST, &g),
        Some((&[20u8][..], &[2u8][..]))
    );
    assert_eq!(idx.seek(&[20], Seek::Gt, LATEST, &g).unwrap().0, &[40u8][..]);
    assert_eq!(idx.seek(&[40], Seek::Lt, LATEST, &g).unwrap().0, &[20u8][..]);
    assert_eq!(idx.seek(&[], Seek::Ge, LATEST, &g).unwrap().0, &[20u8][..]);
    assert_eq!(idx.seek(&[], Seek::Lt, LATEST, &g), None);
    assert_eq!(idx.seek(&[20], Seek::Lt, LATEST, &g), None);
    assert_eq!(idx.seek(&[90], Seek::Gt, LATEST, &g), None);
    assert_eq!(idx.seek(&[255], Seek::Le, LATEST, &g).unwrap().0, &[90u8][..]);
    assert_eq!(idx.first(LATEST, &g).unwrap().0, &[20u8][..]);
    assert_eq!(idx.last(LATEST, &g).unwrap().0, &[90u8][..]);
}

#[test]
fn empty_key_sorts_first() {
    let idx = Index::new();
    let g = Guard::new();
    idx.upsert(b"a", b"1");
    idx.upsert(b"", b"0");
    assert_eq!(idx.get(b"", &g), Some(&b"0"[..]));
    assert_eq!(idx.first(LATEST, &g), Some((&b""[..], &b"0"[..])));
    assert_eq!(idx.seek(b"", Seek::Gt, LATEST, &g), Some((&b"a"[..], &b"1"[..])));
    assert_eq!(idx.seek(b"a", Seek::Lt, LATEST, &g), Some((&b""[..], &b"0"[..])));
    idx.remove(b"").unwrap();
    assert_eq!(idx.seek(b"a", Seek::Lt, LATEST, &g), None);
}

/// Random operations against a `BTreeMap` model, with enough keys for node splits and merges.
#[test]
fn random_ops_match_model() {
    let idx = Index::new();
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    let mut rng = Rng::new(42);
    let (ops, space) = if cfg!(miri) {
        (300, 40)
    } else {
        (40_000, 3000)
    };
    let key_of = |i: u64| -> Vec<u8> {
        match i % 3 {
            0 => i.to_be_bytes().to_vec(),
            1 => format!("key{i}").into_bytes(),
            _ => format!("a-long-key-that-does-not-fit-inline-{i:06}").into_bytes(),
        }
    };
    for n in 0..ops {
        let k = key_of(rng.below(space));
        let v = rng.next().to_le_bytes().repeat(1 + (n % 5)); // 8..40 bytes
        match rng.below(5) {
            0 => {
                idx.upsert(&k, &v);
                model.insert(k, v);
            }
            1 => {
                let r = idx.insert_new(&k, &v);
                assert_eq!(r.is_ok(), !model.contains_key(&k));
                model.entry(k).or_insert(v);
            }
            2 => {
                let r = idx.update_existing(&k, &v);
                assert_eq!(r.is_ok(), model.contains_key(&k));
                if let Some(slot) = model.get_mut(&k) {
                    *slot = v;
                }
            }
            _ => {
                let r = idx.remove(&k);
                assert_eq!(r.is_ok(), model.remove(&k).is_some());
            }
        }
        if n % 4096 == 0 {
            let probes: Vec<Vec<u8>> = (0..20).map(|_| key_of(rng.below(space + 10))).collect();
            check_against_model(&idx, &model, &probes);
        }
    }
    let probes: Vec<Vec<u8>> = (0..space + 5).map(key_of).collect();
    check_against_model(&idx, &model, &probes);
    // Full forward and backward walks with seek equal the model.
    let g = Guard::new();
    let mut walked = Vec::new();
    let mut cur = idx.first(LATEST, &g);
    while let Some((k, v)) = cur {
        walked.push((k.to_vec(), v.to_vec()));
        cur = idx.seek(k, Seek::Gt, LATEST, &g);
    }
    assert_eq!(
        walked,
        model
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>()
    );
    let mut back = Vec::new();
    let mut cur = idx.last(LATEST, &g);
    while let Some((k, v)) = cur {
        back.push((k.to_vec(), v.to_vec()));
        cur = idx.seek(k, Seek::Lt, LATEST, &g);
    }
    back.reverse();
    assert_eq!(back, walked);
    assert_eq!(idx.tree_entries(), model.len());
}

#[test]
fn a_wrong_new_key_guess_still_finds_the_slot() {
    // `likely_new` skips the hash probe on the first pass only: an insert into an existing key
    // must land in that key's slot (upsert) or be refused (insert-new), for short, long and
    // inline-boundary keys alike.
    let idx = Index::new();
    let guard = Guard::new();
    let keys: [&[u8]; 3] = [b"short", b"0000000000000000123\0", &[7u8; 40]];
    for key in keys {
        idx.write_over(key, Data::value(b"v1"), Mode::Upsert, WriteCtx::IMMEDIATE, &guard, true, &mut |_| Some(false))
            .unwrap();
        idx.write_over(key, Data::value(b"v2"), Mode::Upsert, WriteCtx::IMMEDIATE, &guard, true, &mut |_| Some(false))
            .unwrap();
        assert_eq!(idx.get(key, &guard), Some(&b"v2"[..]));
        let refused = idx
            .write_over(key, Data::value(b"v3"), Mode::InsertNew, WriteCtx::IMMEDIATE, &guard, true, &mut |_| Some(false))
            .map(drop);
        assert_eq!(refused, Err(Refused::Exists));
        assert_eq!(idx.get(key, &guard), Some(&b"v2"[..]));
    }
    assert_eq!(idx.tree_entries(), keys.len());
}
