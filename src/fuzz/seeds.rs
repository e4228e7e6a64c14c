//! The seeds of `fuzz/corpus/` (`tools/fuzz seeds` writes them): valid inputs of each target,
//! from which the fuzzers mutate. The on-disk ones are files a real database wrote.

use std::ffi::CString;
use std::path::Path;
use std::ptr::{null, null_mut};

use crate::btree::block::{Addr, SpaceRecord};
use crate::btree::page::{Builder, Item, INTERNAL, LEAF};
use crate::btree::tree::TreeRecord;
use crate::capi::types::{WT_CONNECTION, WT_CURSOR, WT_SESSION};
use crate::capi::wiredtiger_open;
use crate::config::Method;
use crate::durable::disk::{CKPT_PREFIX, LOG_PREFIX, META_FILE};
use crate::pack::{pack, Arg, Format};

/// Writes every target's seeds under `corpus` (`corpus/TARGET/NAME`).
pub fn write_seeds(corpus: &Path) {
    config_seeds(&corpus.join("config"));
    pack_seeds(&corpus.join("pack"));
    capi_seeds(&corpus.join("capi"));
    ondisk_seeds(&corpus.join("ondisk"));
}

fn put(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).expect("seed folder");
    std::fs::write(dir.join(name), bytes).expect("seed file");
}

fn config_seeds(dir: &Path) {
    let seeds: [(Method, &str); 13] = [
        (Method::WiredtigerOpen, "create,cache_size=100MB,log=(enabled=true,file_max=10MB),statistics=(fast),session_max=100,eviction=(threads_max=2)"),
        (Method::ConnReconfigure, "cache_size=1GB,statistics=[all,clear],statistics_log=(wait=10,json=true)"),
        (Method::ConnClose, "leak_memory=false,final_flush=true"),
        (Method::OpenSession, "isolation=snapshot,cache_cursors=true,ignore_cache_size"),
        (Method::SessionReconfigure, "isolation=read-committed,debug=(release_evict_page=false)"),
        (Method::SessionCreate, "key_format=iS,value_format=5sQu,columns=(a,b,c,d,e),exclusive,app_metadata=\"x=(1,2)\",leaf_page_max=32KB"),
        (Method::SessionDrop, "force=true,remove_files=false"),
        (Method::OpenCursor, "overwrite=false,raw,statistics=(fast,clear),bulk=bitmap,dump=hex,next_random=true"),
        (Method::CursorReconfigure, "append=true,overwrite=true,prefix_search=false"),
        (Method::BeginTransaction, "isolation=read-uncommitted,name=t1,priority=-50,sync=true,read_timestamp=1a"),
        (Method::CommitTransaction, "commit_timestamp=2b,durable_timestamp=2c,sync=off,operation_timeout_ms=10"),
        (Method::RollbackTransaction, "operation_timeout_ms=0"),
        (Method::Checkpoint, "force=true,name=ck1,drop=(from=all),use_timestamp=false,target=(\"table:a\",\"table:b\")"),
    ];
    for (method, text) in seeds {
        let sel = Method::ALL.iter().position(|&m| m == method).expect("a method of ALL") as u8;
        let mut bytes = vec![sel];
        bytes.extend_from_slice(text.as_bytes());
        put(dir, method.api_name(), &bytes);
    }
}

fn pack_seeds(dir: &Path) {
    let seeds: [(&str, &[Arg]); 8] = [
        ("S", &[Arg::Bytes(b"hello")]),
        ("u", &[Arg::Bytes(b"\x00\x01\xff")]),
        ("iSu", &[Arg::Int(-5), Arg::Bytes(b"key"), Arg::Bytes(b"item")]),
        ("5s3x", &[Arg::Bytes(b"ab\0cd")]),
        ("qQr", &[Arg::Int(i64::MIN), Arg::Uint(u64::MAX), Arg::Uint(1 << 40)]),
        ("bBhHiIlLt", &[Arg::Int(-1), Arg::Uint(255), Arg::Int(-300), Arg::Uint(60000), Arg::Int(1 << 20), Arg::Uint(7), Arg::Int(-9), Arg::Uint(9), Arg::Uint(1)]),
        ("3SuU", &[Arg::Bytes(b"abc"), Arg::Bytes(b"mid"), Arg::Bytes(b"last")]),
        ("10S2u", &[Arg::Bytes(b"ten"), Arg::Bytes(b"xy")]),
    ];
    for (i, (text, args)) in seeds.iter().enumerate() {
        let fmt = Format::parse(text).expect("a seed format");
        let mut bytes = vec![text.len() as u8];
        bytes.extend_from_slice(text.as_bytes());
        pack(&fmt, args, &mut bytes).expect("a seed packs");
        put(dir, &format!("seed-{i}"), &bytes);
    }
}

/// Instructions of the capi target (see `capi.rs` for the opcodes).
fn program(steps: &[(u8, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (op, arg) in steps {
        out.push(*op);
        out.extend_from_slice(arg);
        out.push(0);
    }
    out
}

fn capi_seeds(dir: &Path) {
    let strings = program(&[
        (1, b"table:s\x01key_format=S,value_format=S"),
        (3, b"table:s\x01overwrite=false"),
        (5, b"apple\x01red"),
        (5, b"banana\x01yellow"),
        (4, b"apple"),
        (12, b""),
        (9, b""),
        (8, b"b"),
        (14, b"action=set,bound=lower"),
        (10, b""),
        (13, b"overwrite=true"),
        (6, b"apple\x01green"),
        (7, b"banana"),
        (16, b""),
    ]);
    put(dir, "strings", &strings);
    let ints = program(&[
        (1, b"table:i\x01key_format=q,value_format=u"),
        (3 + 24, b"table:i"),
        (5 + 24, b"\x01\x00\x00\x00\x00\x00\x00\x00\x01bytes"),
        (17, b"isolation=snapshot"),
        (5 + 24, b"\x02\x01value"),
        (18, b"sync=false"),
        (11 + 24, b""),
        (10 + 24, b""),
        (12 + 24, b""),
        (15 + 24, b""),
    ]);
    put(dir, "ints", &ints);
    let schema = program(&[
        (0, b"isolation=read-committed"),
        (1, b"table:c\x01key_format=r,value_format=5sQ,columns=(k,a,b)"),
        (3, b"statistics:\x01statistics=(fast)"),
        (9, b""),
        (12, b""),
        (3 + 48, b"table:c\x01raw"),
        (17, b"isolation=read-uncommitted,name=x"),
        (19, b""),
        (20, b"force=true"),
        (21, b"WT_SESSION.create\x01key_format=S"),
        (22, b"table:c\x01"),
        (23, b"table:c\x01"),
        (2, b"table:c\x01force=true"),
    ]);
    put(dir, "schema", &schema);
}

fn ondisk_seeds(dir: &Path) {
    let mut leaf = Builder::new(LEAF);
    for (k, v) in [(&b"a"[..], &b"1"[..]), (b"bb", b"22"), (b"ccc", b"")] {
        leaf.cell(Item::Inline(k)).cell(Item::Inline(v)).end_entry();
    }
    let over = Addr { offset: 4096, size: 4096, checksum: 7 };
    leaf.cell(Item::Overflow(over, 3)).cell(Item::Inline(b"v")).end_entry();
    put(dir, "page-leaf", &[&[3u8][..], &leaf.finish()].concat());
    let mut internal = Builder::new(INTERNAL);
    internal.cell(Item::Inline(b"")).child(over).end_entry();
    internal.cell(Item::Inline(b"m")).child(Addr { offset: 8192, size: 4096, checksum: 9 }).end_entry();
    put(dir, "page-internal", &[&[3u8][..], &internal.finish()].concat());
    let mut record = vec![4u8];
    TreeRecord { root: Some(over), space: SpaceRecord::default() }.put(&mut record);
    put(dir, "tree-record", &record);

    // A real home: a checkpoint, then journal records after it.
    let home = std::env::temp_dir().join(format!("unlatched-fuzz-seeds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).expect("seed home");
    let (meta, journal, ckpt) = write_database(&home);
    for (name, sel, bytes) in [("frames-journal", 0u8, &journal), ("frames-checkpoint", 8, &ckpt), ("meta", 1, &meta)] {
        put(dir, name, &[&[sel][..], &bytes[..]].concat());
    }
    let files = dir.with_file_name("files");
    for (name, sel, bytes) in [
        ("checkpoint", 8u8, &ckpt),
        ("journal", 1 | 8, &journal),
        ("journal-salvage", 1 | 8 | 16, &journal),
        ("meta", 2, &meta),
    ] {
        put(&files, name, &[&[sel][..], &bytes[..]].concat());
    }
    let _ = std::fs::remove_dir_all(&home);
}

/// Creates a database in `home`: a checkpoint, then journal records after it. Returns its
/// table list, journal file and checkpoint file as they are before the connection closes
/// (closing checkpoints, which empties the journal).
fn write_database(home: &Path) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let home_c = CString::new(home.to_str().expect("UTF-8 path")).expect("no NUL");
    let mut conn: *mut WT_CONNECTION = null_mut();
    let mut s: *mut WT_SESSION = null_mut();
    let mut c: *mut WT_CURSOR = null_mut();
    // SAFETY: NUL-terminated strings, our out-pointers, handles used as they were returned;
    // set_key and set_value get `const char *` for the `S` formats.
    unsafe {
        let cfg = c"create,log=(enabled=true),statistics=(fast)";
        assert_eq!(wiredtiger_open(home_c.as_ptr(), null_mut(), cfg.as_ptr(), &mut conn), 0);
        assert_eq!(((*conn).open_session.unwrap())(conn, null_mut(), null(), &mut s), 0);
        let uri = c"table:seed";
        assert_eq!(((*s).create.unwrap())(s, uri.as_ptr(), c"key_format=S,value_format=S".as_ptr()), 0);
        assert_eq!(((*s).open_cursor.unwrap())(s, uri.as_ptr(), null_mut(), null(), &mut c), 0);
        for (i, round) in [0, 1].into_iter().enumerate() {
            for k in 0..20 {
                let key = CString::new(format!("key{k:03}")).expect("no NUL");
                let value = CString::new(format!("value{round}-{k}")).expect("no NUL");
                ((*c).set_key.unwrap())(c, key.as_ptr());
                ((*c).set_value.unwrap())(c, value.as_ptr());
                assert_eq!(((*c).insert.unwrap())(c), 0);
            }
            if i == 0 {
                assert_eq!(((*s).checkpoint.unwrap())(s, null()), 0);
            }
        }
        ((*c).set_key.unwrap())(c, c"key005".as_ptr());
        assert_eq!(((*c).remove.unwrap())(c), 0);
        assert_eq!(((*s).log_flush.unwrap())(s, c"sync=on".as_ptr()), 0);
    }
    // The largest file of each kind (the journal may have made its next file already).
    let largest = |prefix: &str| {
        std::fs::read_dir(home)
            .expect("seed home")
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with(prefix))
            .max_by_key(|n| std::fs::metadata(home.join(n)).map_or(0, |m| m.len()))
            .unwrap_or_else(|| panic!("no {prefix}N file"))
    };
    let read = |name: &str| std::fs::read(home.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let files = (read(META_FILE), read(&largest(LOG_PREFIX)), read(&largest(CKPT_PREFIX)));
    // SAFETY: the connection opened above; closing it closes its session and cursor.
    assert_eq!(unsafe { ((*conn).close.unwrap())(conn, null()) }, 0);
    files
}
