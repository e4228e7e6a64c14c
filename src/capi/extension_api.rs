//! `WT_CONNECTION::get_extension_api`: the table of library methods extensions use
//! (`include/wiredtiger_ext.h`, the reference's layout). One table per connection, made at its
//! first request. Its methods convert and delegate to the library's own functions; those with
//! no meaning here (metadata writes, the file system, Windows errors)
//! answer `ENOTSUP` with a message. The variadic ones are in `shim.c`.

use std::ffi::CString;

use libc::{c_char, c_int, c_void, size_t};

use crate::config::Parser;
use crate::error::{code, strerror, Error};

use super::boundary::{fail, guard};
use super::config_parser::{wiredtiger_config_parser_open, WT_CONFIG_ITEM, WT_CONFIG_PARSER};
use super::cursor::report_to;
use super::events::Events;
use super::handles::{c_str, ConnectionHandle, SessionHandle};
use super::pack_stream::*;
use super::types::{WT_COLLATOR, WT_CONNECTION, WT_EXTENSION_API, WT_FILE_SYSTEM, WT_ITEM, WT_SESSION};

/// `WT_CONFIG_ARG`: a NULL-terminated array of configuration strings.
type ConfigArg = c_void;

/// `WT_EXTENSION_SPINLOCK`.
#[repr(C)]
pub struct ExtensionSpinlock {
    spinlock: *mut c_void,
}

type Api = *mut ExtensionApi;
type S = *mut WT_SESSION;

/// `struct __wt_extension_api` (include/wiredtiger_ext.h): every member set.
///
/// cbindgen:ignore
#[repr(C)]
pub struct ExtensionApi {
    conn: *mut WT_CONNECTION,
    err_printf: unsafe extern "C" fn(Api, S, *const c_char, ...) -> c_int,
    msg_printf: unsafe extern "C" fn(Api, S, *const c_char, ...) -> c_int,
    strerror: unsafe extern "C" fn(Api, S, c_int) -> *const c_char,
    map_windows_error: unsafe extern "C" fn(Api, S, u32) -> c_int,
    scr_alloc: unsafe extern "C" fn(Api, S, size_t) -> *mut c_void,
    scr_free: unsafe extern "C" fn(Api, S, *mut c_void),
    collator_config:
        unsafe extern "C" fn(Api, S, *const c_char, *mut ConfigArg, *mut *mut WT_COLLATOR, *mut c_int) -> c_int,
    collate: unsafe extern "C" fn(Api, S, *mut WT_COLLATOR, *mut WT_ITEM, *mut WT_ITEM, *mut c_int) -> c_int,
    config_get: unsafe extern "C" fn(Api, S, *mut ConfigArg, *const c_char, *mut WT_CONFIG_ITEM) -> c_int,
    config_get_string: unsafe extern "C" fn(Api, S, *const c_char, *const c_char, *mut WT_CONFIG_ITEM) -> c_int,
    config_parser_open: unsafe extern "C" fn(Api, S, *const c_char, size_t, *mut *mut WT_CONFIG_PARSER) -> c_int,
    config_parser_open_arg: unsafe extern "C" fn(Api, S, *mut ConfigArg, *mut *mut WT_CONFIG_PARSER) -> c_int,
    file_system_get: unsafe extern "C" fn(Api, S, *mut *mut WT_FILE_SYSTEM) -> c_int,
    metadata_insert: unsafe extern "C" fn(Api, S, *const c_char, *const c_char) -> c_int,
    metadata_remove: unsafe extern "C" fn(Api, S, *const c_char) -> c_int,
    metadata_search: unsafe extern "C" fn(Api, S, *const c_char, *mut *mut c_char) -> c_int,
    metadata_update: unsafe extern "C" fn(Api, S, *const c_char, *const c_char) -> c_int,
    struct_pack: unsafe extern "C" fn(Api, S, *mut c_void, size_t, *const c_char, ...) -> c_int,
    struct_size: unsafe extern "C" fn(Api, S, *mut size_t, *const c_char, ...) -> c_int,
    struct_unpack: unsafe extern "C" fn(Api, S, *const c_void, size_t, *const c_char, ...) -> c_int,
    pack_start: unsafe extern "C" fn(Api, S, *const c_char, *mut c_void, size_t, *mut *mut WT_PACK_STREAM) -> c_int,
    unpack_start: unsafe extern "C" fn(Api, S, *const c_char, *const c_void, size_t, *mut *mut WT_PACK_STREAM) -> c_int,
    pack_close: unsafe extern "C" fn(Api, *mut WT_PACK_STREAM, *mut size_t) -> c_int,
    pack_item: unsafe extern "C" fn(Api, *mut WT_PACK_STREAM, *mut WT_ITEM) -> c_int,
    pack_int: unsafe extern "C" fn(Api, *mut WT_PACK_STREAM, i64) -> c_int,
    pack_str: unsafe extern "C" fn(Api, *mut WT_PACK_STREAM, *const c_char) -> c_int,
    pack_uint: unsafe extern "C" fn(Api, *mut WT_PACK_STREAM, u64) -> c_int,
    unpack_item: unsafe extern "C" fn(Api, *mut WT_PACK_STREAM, *mut WT_ITEM) -> c_int,
    unpack_int: unsafe extern "C" fn(Api, *mut WT_PACK_STREAM, *mut i64) -> c_int,
    unpack_str: unsafe extern "C" fn(Api, *mut WT_PACK_STREAM, *mut *const c_char) -> c_int,
    unpack_uint: unsafe extern "C" fn(Api, *mut WT_PACK_STREAM, *mut u64) -> c_int,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int, *mut c_int) -> *const c_char,
    spin_init: unsafe extern "C" fn(Api, *mut ExtensionSpinlock, *const c_char) -> c_int,
    spin_destroy: unsafe extern "C" fn(Api, *mut ExtensionSpinlock),
    spin_lock: unsafe extern "C" fn(Api, S, *mut ExtensionSpinlock),
    spin_unlock: unsafe extern "C" fn(Api, S, *mut ExtensionSpinlock),
}

// The reference's layout (x86-64): 37 pointers, `version` at 256.
const _: () = assert!(std::mem::size_of::<ExtensionApi>() == 296);
const _: () = assert!(std::mem::offset_of!(ExtensionApi, struct_pack) == 144);
const _: () = assert!(std::mem::offset_of!(ExtensionApi, version) == 256);

// SAFETY: the table is written once, before it is shared, and only read afterwards.
unsafe impl Send for ExtensionApi {}
// SAFETY: as above.
unsafe impl Sync for ExtensionApi {}

extern "C" {
    fn __ul_ext_err_printf(api: Api, session: S, fmt: *const c_char, ...) -> c_int;
    fn __ul_ext_msg_printf(api: Api, session: S, fmt: *const c_char, ...) -> c_int;
    fn __ul_ext_struct_pack(api: Api, session: S, buffer: *mut c_void, size: size_t, format: *const c_char, ...) -> c_int;
    fn __ul_ext_struct_size(api: Api, session: S, sizep: *mut size_t, format: *const c_char, ...) -> c_int;
    fn __ul_ext_struct_unpack(api: Api, session: S, buffer: *const c_void, size: size_t, format: *const c_char, ...) -> c_int;
}

/// The connection's table, made at the first call.
pub fn get(c: &ConnectionHandle, conn: *mut WT_CONNECTION) -> *mut WT_EXTENSION_API {
    let api = c.extension_api.get_or_init(|| Box::new(table(conn)));
    std::ptr::from_ref::<ExtensionApi>(api).cast_mut().cast()
}

fn table(conn: *mut WT_CONNECTION) -> ExtensionApi {
    ExtensionApi {
        conn,
        err_printf: __ul_ext_err_printf,
        msg_printf: __ul_ext_msg_printf,
        strerror: ext_strerror,
        map_windows_error,
        scr_alloc,
        scr_free,
        collator_config,
        collate,
        config_get,
        config_get_string,
        config_parser_open,
        config_parser_open_arg,
        file_system_get,
        metadata_insert,
        metadata_remove,
        metadata_search,
        metadata_update,
        struct_pack: __ul_ext_struct_pack,
        struct_size: __ul_ext_struct_size,
        struct_unpack: __ul_ext_struct_unpack,
        pack_start,
        unpack_start,
        pack_close,
        pack_item,
        pack_int,
        pack_str,
        pack_uint,
        unpack_item,
        unpack_int,
        unpack_str,
        unpack_uint,
        version: super::global::wiredtiger_version,
        spin_init,
        spin_destroy,
        spin_lock,
        spin_unlock,
    }
}

/// The connection handle of a table.
///
/// # Safety
/// `api` is NULL or a table made by [`get`], whose connection is open.
unsafe fn conn_of<'a>(api: Api) -> Option<&'a ConnectionHandle> {
    // SAFETY: per the contract.
    unsafe { ConnectionHandle::from_ptr(api.as_ref()?.conn) }
}

/// Reports `e` through the session's handler, or the connection's without a session.
///
/// # Safety
/// As [`conn_of`]; `session` is NULL or a live session of the calling thread.
unsafe fn report(api: Api, session: S, e: &Error, what: &str) -> c_int {
    if !session.is_null() {
        // SAFETY: per the contract.
        return unsafe { report_to(session, Events::default(), e, what) };
    }
    // SAFETY: per the contract.
    match unsafe { conn_of(api) } {
        Some(c) => fail(e, c.events, session, &c.core.error_prefix(), what),
        None => fail(e, Events::default(), session, "", what),
    }
}

/// `err_printf` / `msg_printf` after the shim formatted the text (`error` 0: a message).
///
/// # Safety
/// As [`report`]; `text` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn __unlatched_ext_print(api: Api, session: S, text: *const c_char, error: c_int) -> c_int {
    guard("WT_EXTENSION_API.err_printf", code::WT_PANIC, || {
        // SAFETY: per the contract.
        let text = unsafe { c_str(text) }.ok().flatten().unwrap_or("");
        // SAFETY: per the contract.
        let (events, prefix) = match unsafe { SessionHandle::from_ptr(session) } {
            Some(s) => (s.events, s.conn().core.error_prefix()),
            // SAFETY: per the contract.
            None => match unsafe { conn_of(api) } {
                Some(c) => (c.events, c.core.error_prefix()),
                None => (Events::default(), String::new()),
            },
        };
        if error != 0 {
            events.error(session, &prefix, "", 0, text);
        } else {
            events.message(session, text);
        }
        0
    })
}

/// Methods with no meaning here.
///
/// # Safety
/// As [`report`].
unsafe fn unsupported(api: Api, session: S, what: &str) -> c_int {
    // SAFETY: per the contract.
    unsafe { report(api, session, &Error::unsupported(format!("{what} is not supported")), what) }
}

unsafe extern "C" fn ext_strerror(_api: Api, session: S, error: c_int) -> *const c_char {
    guard("WT_EXTENSION_API.strerror", std::ptr::null(), || {
        // SAFETY: the extension passes NULL or a live session of its thread.
        match unsafe { SessionHandle::from_ptr(session) } {
            Some(s) => {
                s.strerror_buf = CString::new(strerror(error).into_owned()).unwrap_or_default();
                s.strerror_buf.as_ptr()
            }
            None => super::global::wiredtiger_strerror(error),
        }
    })
}

unsafe extern "C" fn map_windows_error(api: Api, session: S, _error: u32) -> c_int {
    // SAFETY: the extension passes its table and NULL or a live session.
    unsafe { unsupported(api, session, "WT_EXTENSION_API.map_windows_error") }
}

unsafe extern "C" fn scr_alloc(_api: Api, _session: S, bytes: size_t) -> *mut c_void {
    // SAFETY: plain allocation; freed by scr_free.
    unsafe { libc::malloc(bytes.max(1)) }
}

unsafe extern "C" fn scr_free(_api: Api, _session: S, memory: *mut c_void) {
    // SAFETY: NULL or memory from scr_alloc (the API's contract).
    unsafe { libc::free(memory) }
}

/// No collator (`collator=` absent or "none") is 0 with a NULL collator, as the reference; a
/// registered one is the application's `WT_COLLATOR`, or what its `customize` makes of it for
/// `uri` and the configuration's `app_metadata` (then `*ownp` is 1: the caller terminates it).
unsafe extern "C" fn collator_config(
    api: Api,
    session: S,
    uri: *const c_char,
    config: *mut ConfigArg,
    collatorp: *mut *mut WT_COLLATOR,
    ownp: *mut c_int,
) -> c_int {
    guard("WT_EXTENSION_API.collator_config", code::WT_PANIC, || {
        // SAFETY: the extension's out-pointers (NULL ones are skipped), configuration argument
        // and URI (NULL or NUL-terminated), and its table and NULL or a live session.
        unsafe {
            if !collatorp.is_null() {
                *collatorp = std::ptr::null_mut();
            }
            if !ownp.is_null() {
                *ownp = 0;
            }
            let configs = config_strings(config);
            let last = |key| configs.iter().rev().find_map(|c| Parser::find(unbracketed(c), key));
            let name = match last("collator") {
                Some(item) if !item.text.is_empty() && item.text != "none" => item.text,
                _ => return 0,
            };
            let what = "WT_EXTENSION_API.collator_config";
            let Some(c) = conn_of(api) else { return report(api, session, &Error::invalid("no connection"), what) };
            let uri = c_str(uri).ok().flatten().unwrap_or_default();
            let app_metadata = last("app_metadata").map_or("", |item| item.text);
            match super::extensions::collator_for(c, session, name, uri, app_metadata) {
                Ok((collator, owned)) => {
                    if !collatorp.is_null() {
                        *collatorp = collator;
                    }
                    if !ownp.is_null() {
                        *ownp = c_int::from(owned);
                    }
                    0
                }
                Err(e) => report(api, session, &e, what),
            }
        }
    })
}

/// The compare slot of `WT_COLLATOR`.
type CompareFn = unsafe extern "C" fn(*mut WT_COLLATOR, S, *const WT_ITEM, *const WT_ITEM, *mut c_int) -> c_int;

unsafe extern "C" fn collate(
    api: Api,
    session: S,
    collator: *mut WT_COLLATOR,
    first: *mut WT_ITEM,
    second: *mut WT_ITEM,
    cmp: *mut c_int,
) -> c_int {
    guard("WT_EXTENSION_API.collate", code::WT_PANIC, || {
        if first.is_null() || second.is_null() || cmp.is_null() {
            // SAFETY: the extension passes its table and NULL or a live session.
            return unsafe { report(api, session, &Error::invalid("collate: NULL item or result"), "WT_EXTENSION_API.collate") };
        }
        if !collator.is_null() {
            // SAFETY: a collator's first slot is its compare method (extension_types.h).
            let compare = unsafe { *collator.cast::<Option<CompareFn>>() };
            if let Some(compare) = compare {
                // SAFETY: the application's collator with its own arguments.
                return unsafe { compare(collator, session, first, second, cmp) };
            }
        }
        // SAFETY: items the extension passes (data valid for size bytes, or empty).
        let (a, b) = unsafe { (item_bytes(&*first), item_bytes(&*second)) };
        // SAFETY: checked non-NULL above.
        unsafe { *cmp = a.cmp(b) as c_int };
        0
    })
}

/// The bytes of an item.
///
/// # Safety
/// `item.data` is valid for `item.size` bytes (or the size is 0).
unsafe fn item_bytes(item: &WT_ITEM) -> &[u8] {
    if item.size == 0 || item.data.is_null() {
        return &[];
    }
    // SAFETY: per the contract.
    unsafe { std::slice::from_raw_parts(item.data.cast::<u8>(), item.size) }
}

/// A configuration string without one pair of enclosing brackets (`config=[...]` values).
fn unbracketed(text: &str) -> &str {
    let inner = text.strip_prefix('[').and_then(|t| t.strip_suffix(']'));
    inner.or_else(|| text.strip_prefix('(').and_then(|t| t.strip_suffix(')'))).unwrap_or(text)
}

/// Looks `key` up in `configs` (later strings win), into `value`.
///
/// # Safety
/// `value` is writable; the strings outlive the item.
unsafe fn lookup(api: Api, session: S, configs: &[&str], key: *const c_char, value: *mut WT_CONFIG_ITEM, what: &str) -> c_int {
    // SAFETY: NULL or a NUL-terminated key.
    let key = match unsafe { c_str(key) } {
        Ok(Some(key)) if !value.is_null() => key,
        // SAFETY: per the contract.
        _ => return unsafe { report(api, session, &Error::invalid("NULL key or result"), what) },
    };
    for config in configs.iter().rev() {
        if let Some(found) = Parser::find(unbracketed(config), key) {
            // SAFETY: checked non-NULL; the item points into the caller's string.
            unsafe { *value = WT_CONFIG_ITEM::of(&found) };
            return 0;
        }
    }
    code::WT_NOTFOUND
}

/// The strings of a `WT_CONFIG_ARG` (NULL: none).
///
/// # Safety
/// NULL or a NULL-terminated array of NUL-terminated strings that outlive the use.
unsafe fn config_strings<'a>(config: *mut ConfigArg) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut at = config.cast::<*const c_char>();
    if at.is_null() {
        return out;
    }
    // SAFETY: per the contract.
    unsafe {
        while !(*at).is_null() {
            if let Ok(Some(text)) = c_str(*at) {
                out.push(text);
            }
            at = at.add(1);
        }
    }
    out
}

unsafe extern "C" fn config_get(api: Api, session: S, config: *mut ConfigArg, key: *const c_char, value: *mut WT_CONFIG_ITEM) -> c_int {
    guard("WT_EXTENSION_API.config_get", code::WT_PANIC, || {
        // SAFETY: the extension passes a configuration argument the library gave it.
        let configs = unsafe { config_strings(config) };
        // SAFETY: the extension's arguments.
        unsafe { lookup(api, session, &configs, key, value, "WT_EXTENSION_API.config_get") }
    })
}

unsafe extern "C" fn config_get_string(api: Api, session: S, config: *const c_char, key: *const c_char, value: *mut WT_CONFIG_ITEM) -> c_int {
    guard("WT_EXTENSION_API.config_get_string", code::WT_PANIC, || {
        // SAFETY: NULL or a NUL-terminated string of the extension's.
        let config = unsafe { c_str(config) }.ok().flatten().unwrap_or("");
        // SAFETY: the extension's arguments.
        unsafe { lookup(api, session, &[config], key, value, "WT_EXTENSION_API.config_get_string") }
    })
}

unsafe extern "C" fn config_parser_open(
    _api: Api,
    session: S,
    config: *const c_char,
    len: size_t,
    parserp: *mut *mut WT_CONFIG_PARSER,
) -> c_int {
    // SAFETY: the extension's arguments, as wiredtiger_config_parser_open takes them.
    unsafe { wiredtiger_config_parser_open(session, config, len, parserp) }
}

unsafe extern "C" fn config_parser_open_arg(api: Api, session: S, config: *mut ConfigArg, parserp: *mut *mut WT_CONFIG_PARSER) -> c_int {
    guard("WT_EXTENSION_API.config_parser_open_arg", code::WT_PANIC, || {
        // SAFETY: a configuration argument the library gave the extension.
        let configs = unsafe { config_strings(config) };
        match configs.as_slice() {
            [] => {
                // SAFETY: an empty string.
                unsafe { wiredtiger_config_parser_open(session, c"".as_ptr(), 0, parserp) }
            }
            [one] => {
                let text = unbracketed(one);
                // SAFETY: the string lives as long as the argument, as the API requires.
                unsafe { wiredtiger_config_parser_open(session, text.as_ptr().cast(), text.len(), parserp) }
            }
            // SAFETY: the extension's table and session.
            _ => unsafe { unsupported(api, session, "WT_EXTENSION_API.config_parser_open_arg of several strings") },
        }
    })
}

unsafe extern "C" fn file_system_get(api: Api, session: S, _fs: *mut *mut WT_FILE_SYSTEM) -> c_int {
    // SAFETY: the extension's table and session.
    unsafe { unsupported(api, session, "WT_EXTENSION_API.file_system_get") }
}

unsafe extern "C" fn metadata_insert(api: Api, session: S, _key: *const c_char, _value: *const c_char) -> c_int {
    // SAFETY: the extension's table and session.
    unsafe { unsupported(api, session, "WT_EXTENSION_API.metadata_insert") }
}

unsafe extern "C" fn metadata_remove(api: Api, session: S, _key: *const c_char) -> c_int {
    // SAFETY: the extension's table and session.
    unsafe { unsupported(api, session, "WT_EXTENSION_API.metadata_remove") }
}

unsafe extern "C" fn metadata_search(api: Api, session: S, _key: *const c_char, valuep: *mut *mut c_char) -> c_int {
    if !valuep.is_null() {
        // SAFETY: the extension's out-pointer.
        unsafe { *valuep = std::ptr::null_mut() };
    }
    // SAFETY: the extension's table and session.
    unsafe { unsupported(api, session, "WT_EXTENSION_API.metadata_search") }
}

unsafe extern "C" fn metadata_update(api: Api, session: S, _key: *const c_char, _value: *const c_char) -> c_int {
    // SAFETY: the extension's table and session.
    unsafe { unsupported(api, session, "WT_EXTENSION_API.metadata_update") }
}

unsafe extern "C" fn pack_start(_api: Api, session: S, format: *const c_char, buffer: *mut c_void, size: size_t, psp: *mut *mut WT_PACK_STREAM) -> c_int {
    // SAFETY: the extension's arguments, as wiredtiger_pack_start takes them.
    unsafe { wiredtiger_pack_start(session, format, buffer, size, psp) }
}

unsafe extern "C" fn unpack_start(_api: Api, session: S, format: *const c_char, buffer: *const c_void, size: size_t, psp: *mut *mut WT_PACK_STREAM) -> c_int {
    // SAFETY: as above.
    unsafe { wiredtiger_unpack_start(session, format, buffer, size, psp) }
}

unsafe extern "C" fn pack_close(_api: Api, ps: *mut WT_PACK_STREAM, usedp: *mut size_t) -> c_int {
    // SAFETY: as above.
    unsafe { wiredtiger_pack_close(ps, usedp) }
}

unsafe extern "C" fn pack_item(_api: Api, ps: *mut WT_PACK_STREAM, item: *mut WT_ITEM) -> c_int {
    // SAFETY: as above.
    unsafe { wiredtiger_pack_item(ps, item) }
}

unsafe extern "C" fn pack_int(_api: Api, ps: *mut WT_PACK_STREAM, i: i64) -> c_int {
    // SAFETY: as above.
    unsafe { wiredtiger_pack_int(ps, i) }
}

unsafe extern "C" fn pack_str(_api: Api, ps: *mut WT_PACK_STREAM, s: *const c_char) -> c_int {
    // SAFETY: as above.
    unsafe { wiredtiger_pack_str(ps, s) }
}

unsafe extern "C" fn pack_uint(_api: Api, ps: *mut WT_PACK_STREAM, u: u64) -> c_int {
    // SAFETY: as above.
    unsafe { wiredtiger_pack_uint(ps, u) }
}

unsafe extern "C" fn unpack_item(_api: Api, ps: *mut WT_PACK_STREAM, item: *mut WT_ITEM) -> c_int {
    // SAFETY: as above.
    unsafe { wiredtiger_unpack_item(ps, item) }
}

unsafe extern "C" fn unpack_int(_api: Api, ps: *mut WT_PACK_STREAM, ip: *mut i64) -> c_int {
    // SAFETY: as above.
    unsafe { wiredtiger_unpack_int(ps, ip) }
}

unsafe extern "C" fn unpack_str(_api: Api, ps: *mut WT_PACK_STREAM, sp: *mut *const c_char) -> c_int {
    // SAFETY: as above.
    unsafe { wiredtiger_unpack_str(ps, sp) }
}

unsafe extern "C" fn unpack_uint(_api: Api, ps: *mut WT_PACK_STREAM, up: *mut u64) -> c_int {
    // SAFETY: as above.
    unsafe { wiredtiger_unpack_uint(ps, up) }
}

use parking_lot::lock_api::RawMutex as _;

unsafe extern "C" fn spin_init(api: Api, spinlock: *mut ExtensionSpinlock, _name: *const c_char) -> c_int {
    if spinlock.is_null() {
        // SAFETY: the extension's table.
        return unsafe { report(api, std::ptr::null_mut(), &Error::invalid("NULL spinlock"), "WT_EXTENSION_API.spin_init") };
    }
    let lock = Box::new(parking_lot::RawMutex::INIT);
    // SAFETY: the extension's lock struct; spin_destroy frees what is stored here.
    unsafe { (*spinlock).spinlock = Box::into_raw(lock).cast() };
    0
}

unsafe extern "C" fn spin_destroy(_api: Api, spinlock: *mut ExtensionSpinlock) {
    // SAFETY: NULL or a lock struct spin_init filled (the API's contract), not in use.
    unsafe {
        if let Some(lock) = spinlock.as_mut() {
            if !lock.spinlock.is_null() {
                drop(Box::from_raw(lock.spinlock.cast::<parking_lot::RawMutex>()));
                lock.spinlock = std::ptr::null_mut();
            }
        }
    }
}

unsafe extern "C" fn spin_lock(_api: Api, _session: S, spinlock: *mut ExtensionSpinlock) {
    // SAFETY: a lock struct spin_init filled (the API's contract).
    if let Some(lock) = unsafe { spinlock.as_ref() }.and_then(|l| unsafe { l.spinlock.cast::<parking_lot::RawMutex>().as_ref() }) {
        lock.lock();
    }
}

unsafe extern "C" fn spin_unlock(_api: Api, _session: S, spinlock: *mut ExtensionSpinlock) {
    // SAFETY: a lock struct spin_init filled, locked by this thread (the API's contract).
    if let Some(lock) = unsafe { spinlock.as_ref() }.and_then(|l| unsafe { l.spinlock.cast::<parking_lot::RawMutex>().as_ref() }) {
        // SAFETY: per the contract, held by the caller.
        unsafe { lock.unlock() };
    }
}
