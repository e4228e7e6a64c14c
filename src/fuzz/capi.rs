//! The C API's string arguments (URIs, configurations, keys and values) through the real
//! session and cursor entry points, on one in-memory connection per process.
//!
//! The input is a program: instructions of one opcode byte and a NUL-terminated argument (the
//! last one may end without it). An argument naming a URI and a configuration separates them
//! with byte 1; an empty configuration is passed as NULL. Every call's result is checked not
//! to be `WT_PANIC` (the boundary's answer to a panic, which the fuzzers' `panic=abort`
//! builds turn into a crash before it gets there).

use std::ffi::CString;
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

use libc::{c_char, c_int, c_void};

use crate::capi::types::{WT_CONNECTION, WT_CURSOR, WT_EVENT_HANDLER, WT_ITEM, WT_SESSION};
use crate::capi::{wiredtiger_config_validate, wiredtiger_open};
use crate::error::code::WT_PANIC;
use crate::config::Method;
use crate::pack::{CArg, Format};

/// Cursors a program may hold at once.
const CURSORS: usize = 4;
/// Instructions run per input (bounds the time of one input).
const MAX_STEPS: usize = 64;

/// Runs the program in `data` in a new session of the process's connection, then closes the
/// session and drops every table the program created (so inputs do not see each other).
pub fn capi(data: &[u8]) {
    let conn = connection();
    let mut session: *mut WT_SESSION = null_mut();
    // SAFETY: a live connection; the out-pointer is ours.
    let rc = unsafe { ((*conn).open_session.unwrap())(conn, null_mut(), null(), &mut session) };
    check(rc);
    assert_eq!(rc, 0, "open_session");
    let mut run = Run { session, cursors: [null_mut(); CURSORS], raw: [false; CURSORS], created: Vec::new() };
    let mut rest = data;
    for _ in 0..MAX_STEPS {
        let Some((op, tail)) = super::split_first(rest) else { break };
        let (arg, tail) = super::split_at_byte(tail, 0);
        rest = tail;
        run.step(op, arg);
    }
    run.finish();
}

/// The process's connection: in memory, its errors not printed.
fn connection() -> *mut WT_CONNECTION {
    static CONN: OnceLock<usize> = OnceLock::new();
    let addr = *CONN.get_or_init(|| {
        // In memory nothing is written to the home; one connection per process claims it.
        let home = std::env::temp_dir();
        let home = CString::new(home.to_str().expect("UTF-8 temporary directory")).expect("no NUL in a path");
        let mut conn: *mut WT_CONNECTION = null_mut();
        // SAFETY: NUL-terminated strings, a handler that lives for the process, our out-pointer.
        let rc = unsafe { wiredtiger_open(home.as_ptr(), quiet(), c"create,in_memory=true".as_ptr(), &mut conn) };
        assert_eq!(rc, 0, "wiredtiger_open of the fuzz connection");
        conn as usize
    });
    addr as *mut WT_CONNECTION
}

/// An event handler that drops every message (bad inputs are the point here).
fn quiet() -> *mut WT_EVENT_HANDLER {
    static HANDLER: OnceLock<usize> = OnceLock::new();
    unsafe extern "C" fn error(_: *mut WT_EVENT_HANDLER, _: *mut WT_SESSION, _: c_int, _: *const c_char) -> c_int {
        0
    }
    unsafe extern "C" fn message(_: *mut WT_EVENT_HANDLER, _: *mut WT_SESSION, _: *const c_char) -> c_int {
        0
    }
    let addr = *HANDLER.get_or_init(|| {
        // SAFETY: an all-NULL handler is valid (every callback is optional).
        let mut h: WT_EVENT_HANDLER = unsafe { std::mem::zeroed() };
        h.handle_error = Some(error);
        h.handle_message = Some(message);
        Box::leak(Box::new(h)) as *mut WT_EVENT_HANDLER as usize
    });
    addr as *mut WT_EVENT_HANDLER
}

fn check(rc: c_int) {
    assert_ne!(rc, WT_PANIC, "a call returned WT_PANIC: a panic was caught at the boundary");
}

/// `NULL` for an empty argument, else the bytes as a C string (no NUL inside by construction).
fn c_arg(arg: &[u8]) -> Option<CString> {
    (!arg.is_empty()).then(|| CString::new(arg).expect("arguments are split at NUL"))
}

fn ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(null(), |s| s.as_ptr())
}

/// `uri` byte 1 `config`.
fn uri_and_config(arg: &[u8]) -> (Option<CString>, Option<CString>) {
    let (uri, config) = super::split_at_byte(arg, 1);
    (c_arg(uri), c_arg(config))
}

/// The program's state: its session, its cursors, the tables it created.
struct Run {
    session: *mut WT_SESSION,
    cursors: [*mut WT_CURSOR; CURSORS],
    /// Whether each cursor was opened `raw`.
    raw: [bool; CURSORS],
    created: Vec<CString>,
}

impl Run {
    fn step(&mut self, op: u8, arg: &[u8]) {
        let s = self.session;
        let slot = (op as usize / 24) % CURSORS;
        // SAFETY (every block below): `s` is the live session this program opened, used by
        // this thread only; cursors in `self.cursors` are live or NULL (checked); strings are
        // NUL-terminated or NULL; out-pointers are locals.
        match op % 24 {
            0 => check(unsafe { ((*s).reconfigure.unwrap())(s, ptr(&c_arg(arg))) }),
            1 => {
                let (uri, config) = uri_and_config(arg);
                let rc = unsafe { ((*s).create.unwrap())(s, ptr(&uri), ptr(&config)) };
                check(rc);
                if let (0, Some(uri)) = (rc, uri) {
                    self.created.push(uri);
                }
            }
            2 => {
                let (uri, config) = uri_and_config(arg);
                check(unsafe { ((*s).drop.unwrap())(s, ptr(&uri), ptr(&config)) });
            }
            3 => {
                let (uri, config) = uri_and_config(arg);
                self.close_cursor(slot);
                let mut c = null_mut();
                check(unsafe { ((*s).open_cursor.unwrap())(s, ptr(&uri), null_mut(), ptr(&config), &mut c) });
                self.cursors[slot] = c;
                // A raw cursor takes and returns every key and value as one `WT_ITEM` (the
                // configuration read as the engine reads it).
                self.raw[slot] = config.as_ref().and_then(|c| c.to_str().ok()).is_some_and(|c| {
                    crate::config::validate(Method::OpenCursor, Some(c), None).is_ok_and(|cfg| cfg.bool("raw"))
                });
            }
            4 => self.on_cursor(slot, |c, raw| {
                set(c, raw, arg, true);
                unsafe { ((*c).search.unwrap())(c) }
            }),
            5 => self.on_cursor(slot, |c, raw| {
                let (key, value) = super::split_at_byte(arg, 1);
                set(c, raw, key, true);
                set(c, raw, value, false);
                unsafe { ((*c).insert.unwrap())(c) }
            }),
            6 => self.on_cursor(slot, |c, raw| {
                let (key, value) = super::split_at_byte(arg, 1);
                set(c, raw, key, true);
                set(c, raw, value, false);
                unsafe { ((*c).update.unwrap())(c) }
            }),
            7 => self.on_cursor(slot, |c, raw| {
                set(c, raw, arg, true);
                unsafe { ((*c).remove.unwrap())(c) }
            }),
            8 => self.on_cursor(slot, |c, raw| {
                set(c, raw, arg, true);
                let mut exact = 0;
                unsafe { ((*c).search_near.unwrap())(c, &mut exact) }
            }),
            9 => self.on_cursor(slot, |c, _| unsafe { ((*c).next.unwrap())(c) }),
            10 => self.on_cursor(slot, |c, _| unsafe { ((*c).prev.unwrap())(c) }),
            11 => self.on_cursor(slot, |c, _| unsafe { ((*c).reset.unwrap())(c) }),
            12 => self.on_cursor(slot, |c, raw| get(c, raw, true).max(get(c, raw, false))),
            13 => self.on_cursor(slot, |c, _| unsafe { ((*c).reconfigure.unwrap())(c, ptr(&c_arg(arg))) }),
            14 => self.on_cursor(slot, |c, _| unsafe { ((*c).bound.unwrap())(c, ptr(&c_arg(arg))) }),
            15 => self.on_cursor(slot, |c, raw| {
                set(c, raw, arg, true);
                unsafe { ((*c).largest_key.unwrap())(c) }
            }),
            16 => self.close_cursor(slot),
            17 => check(unsafe { ((*s).begin_transaction.unwrap())(s, ptr(&c_arg(arg))) }),
            18 => check(unsafe { ((*s).commit_transaction.unwrap())(s, ptr(&c_arg(arg))) }),
            19 => check(unsafe { ((*s).rollback_transaction.unwrap())(s, ptr(&c_arg(arg))) }),
            20 => check(unsafe { ((*s).checkpoint.unwrap())(s, ptr(&c_arg(arg))) }),
            21 => {
                let (name, config) = uri_and_config(arg);
                check(unsafe { wiredtiger_config_validate(s, quiet(), ptr(&name), ptr(&config)) });
            }
            22 => {
                let (uri, config) = uri_and_config(arg);
                check(unsafe { ((*s).verify.unwrap())(s, ptr(&uri), ptr(&config)) });
                check(unsafe { ((*s).alter.unwrap())(s, ptr(&uri), ptr(&config)) });
            }
            _ => {
                check(unsafe { ((*s).reset.unwrap())(s) });
                let (uri, config) = uri_and_config(arg);
                check(unsafe { ((*s).truncate.unwrap())(s, ptr(&uri), null_mut(), null_mut(), ptr(&config)) });
            }
        }
    }

    /// Runs `f` on the cursor in `slot`, if there is one, and checks its result.
    fn on_cursor(&mut self, slot: usize, f: impl FnOnce(*mut WT_CURSOR, bool) -> c_int) {
        let c = self.cursors[slot];
        if !c.is_null() {
            check(f(c, self.raw[slot]));
        }
    }

    fn close_cursor(&mut self, slot: usize) {
        let c = std::mem::replace(&mut self.cursors[slot], null_mut());
        if !c.is_null() {
            // SAFETY: a live cursor of this program, forgotten above.
            check(unsafe { ((*c).close.unwrap())(c) });
        }
    }

    /// Closes everything, then drops what the program created; the connection is as before.
    fn finish(mut self) {
        for slot in 0..CURSORS {
            self.close_cursor(slot);
        }
        let s = self.session;
        // SAFETY: the live session, closed once; its cursors are closed.
        unsafe {
            check(((*s).rollback_transaction.unwrap())(s, null()));
            for uri in &self.created {
                check(((*s).drop.unwrap())(s, uri.as_ptr(), c"force=true".as_ptr()));
            }
            check(((*s).close.unwrap())(s, null()));
        }
    }
}

/// The C argument the cursor's key (or value) format takes, when it takes exactly one (a
/// raw cursor's is an item), and the field's width (for `Ns`).
fn single_carg(c: *mut WT_CURSOR, raw: bool, key: bool) -> Option<(CArg, usize)> {
    if raw {
        return Some((CArg::Item, 0));
    }
    // SAFETY: a live cursor: its formats are NUL-terminated strings it owns.
    let format = unsafe { std::ffi::CStr::from_ptr(if key { (*c).key_format } else { (*c).value_format }) };
    let format = Format::parse(format.to_str().ok()?).ok()?;
    match (format.cargs(), format.fields()) {
        ([one], [field]) => Some((*one, field.size() as usize)),
        _ => None,
    }
}

/// Widest `Ns` field the harness fills (the API reads exactly N bytes from the pointer).
const MAX_FIXED: usize = 1 << 20;

/// Sets the key (or value) from `arg` as the cursor's format takes it: strings as they are,
/// items over the bytes, integers from up to 8 little-endian bytes. Formats of several fields
/// are not set (the call then reports the missing key or value).
fn set(c: *mut WT_CURSOR, raw: bool, arg: &[u8], key: bool) {
    let Some((carg, width)) = single_carg(c, raw, key) else { return };
    if carg == CArg::Bytes && width > MAX_FIXED {
        return;
    }
    let mut word = [0u8; 8];
    let n = arg.len().min(8);
    word[..n].copy_from_slice(&arg[..n]);
    let int = u64::from_le_bytes(word);
    let text = CString::new(arg).expect("arguments are split at NUL");
    // `Ns` takes a pointer to N bytes (the argument, then NULs).
    let mut fixed = vec![0u8; width.max(1)];
    let n = arg.len().min(width);
    fixed[..n].copy_from_slice(&arg[..n]);
    let item = WT_ITEM { data: arg.as_ptr().cast::<c_void>(), size: arg.len(), mem: null_mut(), memsize: 0, flags: 0 };
    // SAFETY: a live cursor; each variadic argument has the C type the format's conversion
    // reads (integers narrower than int promoted to int / unsigned int), `fixed` as many bytes
    // as an `Ns` field reads; `text`, `fixed` and `item` outlive the call, and the cursor
    // copies what it keeps.
    unsafe {
        let f = if key { (*c).set_key.unwrap() } else { (*c).set_value.unwrap() };
        match carg {
            CArg::I8 | CArg::I16 | CArg::I32 => f(c, int as i32),
            CArg::U8 | CArg::U16 | CArg::U32 => f(c, int as u32),
            CArg::I64 => f(c, int as i64),
            CArg::U64 => f(c, int),
            CArg::CStr => f(c, text.as_ptr()),
            CArg::Bytes => f(c, fixed.as_ptr().cast::<c_char>()),
            CArg::Item => f(c, &item as *const WT_ITEM),
        }
    }
}

/// Reads the key (or value) into storage of the format's C type; returns the call's result.
fn get(c: *mut WT_CURSOR, raw: bool, key: bool) -> c_int {
    let Some((carg, _)) = single_carg(c, raw, key) else { return 0 };
    let mut int = 0u64;
    let mut text: *const c_char = null();
    let mut item = WT_ITEM { data: null(), size: 0, mem: null_mut(), memsize: 0, flags: 0 };
    // SAFETY: a live cursor; each out-pointer points to storage at least as large as the C
    // type the format's conversion writes (a u64 holds every integer type).
    let rc = unsafe {
        let f = if key { (*c).get_key.unwrap() } else { (*c).get_value.unwrap() };
        match carg {
            CArg::CStr | CArg::Bytes => f(c, &mut text as *mut *const c_char),
            CArg::Item => f(c, &mut item as *mut WT_ITEM),
            _ => f(c, &mut int as *mut u64),
        }
    };
    if rc == 0 && !item.data.is_null() {
        // SAFETY: the cursor returned `size` readable bytes at `data`.
        let bytes = unsafe { std::slice::from_raw_parts(item.data.cast::<u8>(), item.size) };
        std::hint::black_box(bytes.iter().map(|&b| b as u64).sum::<u64>());
    }
    rc
}
