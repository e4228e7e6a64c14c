//! Library functions outside any handle: `wiredtiger_config_validate`, the CRC32C checksum
//! functions and `wiredtiger_calc_modify`.

use libc::{c_char, c_int, c_void, size_t};

use crate::config::{validate, Method};
use crate::error::{code, Error, Kind};

use super::boundary::guard;
use super::cursor::report_to;
use super::events::Events;
use super::handles::c_str;
use super::types::{WT_EVENT_HANDLER, WT_ITEM, WT_MODIFY, WT_SESSION};

/// The functions and methods taking a configuration string whose keys unlatched has no table
/// for (config.md lists the others, `Method`): any configuration is accepted for them, as the
/// reference accepts any for those without keys.
const UNCHECKED_METHODS: &[&str] = &[
    "WT_CURSOR.close", "WT_CURSOR.bound", "WT_SESSION.close", "WT_SESSION.strerror", "WT_SESSION.alter",
    "WT_SESSION.compact", "WT_SESSION.join", "WT_SESSION.log_flush", "WT_SESSION.log_printf",
    "WT_SESSION.rename", "WT_SESSION.reset", "WT_SESSION.salvage", "WT_SESSION.truncate", "WT_SESSION.verify",
    "WT_SESSION.prepare_transaction", "WT_SESSION.query_timestamp", "WT_SESSION.timestamp_transaction",
    "WT_SESSION.timestamp_transaction_uint", "WT_SESSION.reset_snapshot", "WT_CONNECTION.debug_info",
    "WT_CONNECTION.query_timestamp", "WT_CONNECTION.set_timestamp", "WT_CONNECTION.rollback_to_stable",
    "WT_CONNECTION.load_extension", "WT_CONNECTION.add_data_source", "WT_CONNECTION.add_collator",
    "WT_CONNECTION.add_compressor", "WT_CONNECTION.add_encryptor", "WT_CONNECTION.add_extractor",
    "WT_CONNECTION.set_file_system", "WT_CONNECTION.add_storage_source", "wiredtiger_open_all",
    "wiredtiger_open_basecfg", "wiredtiger_open_usercfg",
];

/// Whether `name` is a configurable method without a key table (any configuration is
/// accepted, as the reference accepts any for the methods that have no keys).
pub(super) fn is_unchecked_method(name: &str) -> bool {
    UNCHECKED_METHODS.contains(&name)
}

/// Checks `config` for the function or method `name` ("wiredtiger_open", "WT_SESSION.create"):
/// 0, or EINVAL with the message the call itself would report.
///
/// # Safety
/// `session` is NULL or a live session; `event_handler` is NULL or the application's handler;
/// `name` and `config` are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_config_validate(
    session: *mut WT_SESSION,
    event_handler: *mut WT_EVENT_HANDLER,
    name: *const c_char,
    config: *const c_char,
) -> c_int {
    const API: &str = "wiredtiger_config_validate";
    guard(API, code::WT_PANIC, || {
        let check = || -> crate::error::Result<()> {
            // SAFETY: per the contract.
            let name = unsafe { c_str(name) }?.ok_or_else(|| Error::invalid("no configuration API specified"))?;
            // SAFETY: per the contract.
            let config = unsafe { c_str(config) }?.ok_or_else(|| Error::invalid("no configuration specified"))?;
            match Method::from_api_name(name) {
                Some(method) => validate(method, Some(config), None).map(drop).map_err(Error::from),
                None if UNCHECKED_METHODS.contains(&name) => Ok(()),
                None => Err(Error::invalid(format!("unknown or unsupported configuration API: {name}"))),
            }
        };
        match check() {
            Ok(()) => 0,
            // SAFETY: the application passed NULL or a live session it does not use concurrently.
            Err(e) => unsafe { report_to(session, Events::new(event_handler), &e, API) },
        }
    })
}

/// The CRC32C (Castagnoli) checksum of `len` bytes at `data`.
///
/// # Safety
/// `data` points to `len` readable bytes (or `len` is 0).
unsafe extern "C" fn crc32c(data: *const c_void, len: size_t) -> u32 {
    // SAFETY: per the contract.
    unsafe { crc32c_with_seed(0, data, len) }
}

/// The CRC32C of `len` bytes at `data` continued from `seed`, the checksum of the bytes before
/// them: `crc32c(a ++ b) == crc32c_with_seed(crc32c(a), b)`.
///
/// # Safety
/// As [`crc32c`].
unsafe extern "C" fn crc32c_with_seed(seed: u32, data: *const c_void, len: size_t) -> u32 {
    if len == 0 || data.is_null() {
        return seed;
    }
    // SAFETY: per the contract.
    let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) };
    crc32c::crc32c_append(seed, bytes)
}

/// The library's CRC32C function (hardware-accelerated where the CPU has it).
#[no_mangle]
pub extern "C" fn wiredtiger_crc32c_func() -> unsafe extern "C" fn(*const c_void, size_t) -> u32 {
    crc32c
}

/// The library's CRC32C function that continues from a previous checksum.
#[no_mangle]
pub extern "C" fn wiredtiger_crc32c_with_seed_func() -> unsafe extern "C" fn(u32, *const c_void, size_t) -> u32 {
    crc32c_with_seed
}

/// Values shorter than this are not worth describing as modifications (the reference answers
/// WT_NOTFOUND below it too).
const MODIFY_MIN_SIZE: usize = 64;

/// A modification: at `offset` of the value (as the modifications before it left it), `size`
/// bytes are replaced by the bytes `new[written]`.
type Modification = (usize, usize, std::ops::Range<usize>);

/// Equal bytes shorter than this between two changed runs are rewritten rather than splitting
/// the runs (a modification costs more than a few bytes).
const RUN_GAP: usize = 8;

/// Modifications turning `old` into `new` that write at most `maxdiff` bytes in at most `room`
/// entries, or `None`. Three candidates, the one writing fewer bytes wins:
/// - one span between the common prefix and the common suffix (an insertion or removal
///   anywhere, or one changed region);
/// - the changed runs of the two values compared byte by byte from the prefix on (changes in
///   place, several regions), then one entry for the difference in length at the end;
/// - the edits where the values go out of step and back ([`aligned`]: insertions and removals
///   in several places).
fn modifications(old: &[u8], new: &[u8], maxdiff: usize, room: usize) -> Option<Vec<Modification>> {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room_left = old.len().min(new.len()) - prefix;
    let suffix = old.iter().rev().zip(new.iter().rev()).take(room_left).take_while(|(a, b)| a == b).count();
    let span = vec![(prefix, old.len() - prefix - suffix, prefix..new.len() - suffix)];

    let common = old.len().min(new.len());
    let mut runs: Vec<Modification> = Vec::new();
    let mut at = prefix;
    while at < common {
        if old[at] == new[at] {
            at += 1;
            continue;
        }
        let start = at;
        let mut end = at + 1;
        // Extend over changed bytes and over short equal gaps between them.
        while end < common {
            if old[end] != new[end] {
                end += 1;
            } else {
                let gap = old[end..common].iter().zip(&new[end..common]).take_while(|(a, b)| a == b).count();
                if gap < RUN_GAP && end + gap < common {
                    end += gap;
                } else {
                    break;
                }
            }
        }
        runs.push((start, end - start, start..end));
        at = end;
    }
    if old.len() != new.len() {
        runs.push((common, old.len() - common, common..new.len()));
    }

    let written = |m: &[Modification]| m.iter().map(|(_, _, w)| w.len()).sum::<usize>();
    let fits = |m: &Vec<Modification>| m.len() <= room && written(m) <= maxdiff;
    let mut candidates = vec![span, runs];
    candidates.extend(aligned(old, new, maxdiff));
    candidates.sort_by_key(|m| (written(m), m.len()));
    candidates.into_iter().find(fits)
}

/// Bytes that must match in both values for [`aligned`] to take them as back in step.
const SYNC_LEN: usize = 8;
/// How far [`aligned`] looks ahead in either value for the place where they are back in step.
const SYNC_WINDOW: usize = 512;

/// The third candidate of [`modifications`]: edits where the values go out of step (bytes
/// replaced, inserted or removed, several places, lengths changing), found by walking both
/// values and, at each difference, looking for the nearest pair of positions (fewest bytes
/// skipped in both) where [`SYNC_LEN`] bytes, or both ends, agree again. Each entry's offset is
/// in the value as the entries before it left it, which is the new value's position. `None`
/// when no place to get back in step lies within the window or `maxdiff`.
fn aligned(old: &[u8], new: &[u8], maxdiff: usize) -> Option<Vec<Modification>> {
    let in_step = |a: usize, b: usize| {
        let n = SYNC_LEN.min(old.len() - a).min(new.len() - b);
        old[a..a + n] == new[b..b + n] && (n == SYNC_LEN || (a + n == old.len() && b + n == new.len()))
    };
    let (mut i, mut j, mut written) = (0, 0, 0);
    let mut out: Vec<Modification> = Vec::new();
    while i < old.len() && j < new.len() {
        if old[i] == new[j] {
            i += 1;
            j += 1;
            continue;
        }
        let max_di = SYNC_WINDOW.min(old.len() - i);
        let max_dj = SYNC_WINDOW.min(new.len() - j).min(maxdiff - written);
        let found = (1..=max_di + max_dj).find_map(|t| {
            (t.saturating_sub(max_di)..=t.min(max_dj)).map(|dj| (t - dj, dj)).find(|&(di, dj)| in_step(i + di, j + dj))
        });
        let (di, dj) = found?;
        out.push((j, di, j..j + dj));
        written += dj;
        i += di;
        j += dj;
    }
    if i < old.len() || j < new.len() {
        out.push((j, old.len() - i, j..new.len()));
    }
    Some(out)
}

/// Describes `newv` as modifications of `oldv` in `entries` (room for `*nentriesp`), setting
/// `*nentriesp` to the number used; WT_NOTFOUND when the values are too short, or more than
/// `maxdiff` bytes (or more entries than there is room for) would be needed. The entries'
/// data point into `newv`.
///
/// Any set that turns `oldv` into `newv` meets the contract (the reference's own algorithm may
/// find another); see [`modifications`].
///
/// # Safety
/// `oldv` and `newv` point to items whose data are readable; `entries` has `*nentriesp` slots.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_calc_modify(
    session: *mut WT_SESSION,
    oldv: *const WT_ITEM,
    newv: *const WT_ITEM,
    maxdiff: size_t,
    entries: *mut WT_MODIFY,
    nentriesp: *mut c_int,
) -> c_int {
    const API: &str = "wiredtiger_calc_modify";
    guard(API, code::WT_PANIC, || {
        if oldv.is_null() || newv.is_null() || entries.is_null() || nentriesp.is_null() {
            let e = Error::invalid("NULL item, entries or count");
            // SAFETY: the application passed NULL or a live session.
            return unsafe { report_to(session, Events::default(), &e, API) };
        }
        // SAFETY: per the contract, readable items whose data hold `size` bytes.
        let (old, new) = unsafe { (item_bytes(&*oldv), item_bytes(&*newv)) };
        // SAFETY: per the contract.
        let room = unsafe { *nentriesp };
        let room = usize::try_from(room).unwrap_or(0);
        if old.len() < MODIFY_MIN_SIZE || new.len() < MODIFY_MIN_SIZE {
            return Error::quiet(Kind::NotFound).code();
        }
        let Some(found) = modifications(old, new, maxdiff, room) else {
            return Error::quiet(Kind::NotFound).code();
        };
        for (i, (offset, size, written)) in found.iter().enumerate() {
            // SAFETY: `entries` has `room` slots and `found` has at most `room` entries; their
            // data point into `newv`, which the API requires to outlive them.
            unsafe {
                let entry = &mut *entries.add(i);
                entry.data = WT_ITEM { data: new[written.clone()].as_ptr().cast(), size: written.len(), ..std::mem::zeroed() };
                entry.offset = *offset;
                entry.size = *size;
            }
        }
        // SAFETY: per the contract; `found.len() <= room`, which came from an `int`.
        unsafe { *nentriesp = found.len() as c_int };
        0
    })
}

/// The bytes of an application's item (empty for NULL data).
///
/// # Safety
/// `item.data` points to `item.size` readable bytes, or is NULL.
unsafe fn item_bytes(item: &WT_ITEM) -> &[u8] {
    if item.data.is_null() || item.size == 0 {
        return &[];
    }
    // SAFETY: per the contract.
    unsafe { std::slice::from_raw_parts(item.data.cast::<u8>(), item.size) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(old: &[u8], mods: &[Modification], new: &[u8]) -> Vec<u8> {
        let mut v = old.to_vec();
        for (offset, size, written) in mods {
            v.splice(*offset..offset + size, new[written.clone()].iter().copied());
        }
        v
    }

    #[test]
    fn modifications_turn_old_into_new() {
        let old: Vec<u8> = (0..200u8).map(|i| b'a' + i % 26).collect();
        let mut cases = vec![old.clone()];
        let mut c = old.clone();
        c[10] = b'X';
        c[100] = b'Y';
        c[190] = b'Z';
        cases.push(c);
        cases.push(old[20..].to_vec());
        cases.push([&old[..], b"tail"].concat());
        cases.push([b"head", &old[..]].concat());
        let mut c = old.clone();
        c.drain(50..60);
        cases.push(c);
        let mut c = old.clone();
        c[50..57].copy_from_slice(b"CHANGED");
        c.extend_from_slice(b"0123456789");
        cases.push(c);
        cases.push(b"a".repeat(200));
        cases.push(b"a".repeat(100));
        for new in cases {
            let m = modifications(&old, &new, 1000, 16).expect("within maxdiff");
            assert_eq!(apply(&old, &m, &new), new);
            for room in 1..4 {
                if let Some(m) = modifications(&old, &new, 1000, room) {
                    assert!(m.len() <= room);
                    assert_eq!(apply(&old, &m, &new), new);
                }
            }
        }
        // Three scattered changes: few bytes in three entries, or none within 2 bytes.
        let mut c = old.clone();
        c[10] = b'X';
        c[100] = b'Y';
        c[190] = b'Z';
        assert_eq!(modifications(&old, &c, 100, 16).map(|m| m.len()), Some(3));
        assert!(modifications(&old, &c, 2, 16).is_none());
        assert!(modifications(&old, &b"z".repeat(200), 10, 16).is_none());
    }

    #[test]
    fn edits_that_change_lengths_in_several_places() {
        // examples/c/ex_all.c's case: the reference finds it within 20 bytes.
        let old = b"the quick brown fox jumped over the lazy dog. THE QUICK BROWN FOX JUMPED OVER THE LAZY DOG. \
                    the quick brown fox jumped over the lazy dog. THE QUICK BROWN FOX JUMPED OVER THE LAZY DOG. ";
        let new = b"A quick brown fox jumped over the lazy dog. THE QUICK BROWN FOX JUMPED OVER THE LAZY DOG. \
                    then a quick brown fox jumped over the lazy dog. THE QUICK BROWN FOX JUMPED OVER THE LAZY DOG. \
                    then what?";
        let m = modifications(old, new, 20, 3).expect("within 20 bytes and 3 entries");
        assert_eq!(apply(old, &m, new), new.to_vec());
        assert!(modifications(old, new, 10, 3).is_none());
        // Deletions and insertions mixed with replacements, checked by applying them.
        let base: Vec<u8> = (0..300u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut edited = base.clone();
        edited.drain(20..25);
        edited.splice(100..100, *b"inserted");
        edited[200] ^= 1;
        edited.truncate(280);
        let m = modifications(&base, &edited, 64, 8).expect("small edits");
        assert_eq!(apply(&base, &m, &edited), edited);
        assert_eq!(modifications(&base, &base, 10, 1), Some(Vec::new()));
    }

    #[test]
    fn crc32c_matches_the_check_value() {
        // The standard check value of CRC-32C over "123456789".
        // SAFETY: a valid buffer.
        unsafe {
            assert_eq!(crc32c(b"123456789".as_ptr().cast(), 9), 0xe306_9283);
            let first = crc32c(b"1234".as_ptr().cast(), 4);
            assert_eq!(crc32c_with_seed(first, b"56789".as_ptr().cast(), 5), 0xe306_9283);
            assert_eq!(crc32c(std::ptr::null(), 0), 0);
        }
    }
}
