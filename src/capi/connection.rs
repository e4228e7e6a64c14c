//! `WT_CONNECTION` methods: convert, delegate to the core, map the result.

use std::sync::atomic::{AtomicPtr, Ordering};

use crossbeam_utils::CachePadded;
use libc::{c_char, c_int};

use crate::conn::Connection;
use crate::error::{code, Error, Result};

use super::boundary::{fail, guard};
use super::events::Events;
use super::handles::{c_str, ConnectionHandle};
use super::session;
use super::types::*;

/// Builds the handle of an opened connection.
pub fn new_handle(core: Connection, events: Events) -> *mut WT_CONNECTION {
    let sessions = (0..core.slots().capacity()).map(|_| CachePadded::new(AtomicPtr::default())).collect();
    let handle = Box::new(ConnectionHandle { iface: vtable(), core, events, sessions, extension_api: Default::default() });
    let raw = Box::into_raw(handle);
    // SAFETY: `raw` was just made from a Box; its first field is the public struct.
    unsafe { &mut (*raw).iface }
}

/// Runs a connection method: finds the connection, runs `body`, reports errors.
unsafe fn call(conn: *mut WT_CONNECTION, api: &str, body: impl FnOnce(&ConnectionHandle) -> Result<()>) -> c_int {
    guard(api, code::WT_PANIC, || {
        // SAFETY: the application passes an open connection.
        let Some(c) = (unsafe { ConnectionHandle::from_ptr(conn) }) else { return code::EINVAL };
        match body(c) {
            Ok(()) => 0,
            Err(e) => fail(&e, c.events, std::ptr::null_mut(), &c.core.error_prefix(), api),
        }
    })
}

unsafe extern "C" fn close(conn: *mut WT_CONNECTION, config: *const c_char) -> c_int {
    guard("WT_CONNECTION.close", code::WT_PANIC, || {
        // SAFETY: the application passes an open connection, which it may not use afterwards.
        let Some(c) = (unsafe { ConnectionHandle::from_ptr(conn) }) else { return code::EINVAL };
        // The connection closes even when its configuration is bad (api.md, close).
        // SAFETY: NUL-terminated string or NULL.
        let checked = unsafe { c_str(config) }.and_then(Connection::check_close_config);
        let use_timestamp = *checked.as_ref().unwrap_or(&true);
        let rc = match checked {
            Ok(_) => 0,
            Err(e) => fail(&e, c.events, std::ptr::null_mut(), &c.core.error_prefix(), "WT_CONNECTION.close"),
        };
        c.events.general(conn, 1);
        for slot in c.sessions.iter() {
            let s = slot.swap(std::ptr::null_mut(), Ordering::AcqRel);
            if !s.is_null() {
                // SAFETY: a session of this connection, open (left by the application) or
                // closed; no thread may use it during close.
                unsafe { session::free(s, c.events) };
            }
        }
        let closed = c.core.close_using(use_timestamp);
        // The registered extensions' terminate methods, then the loaded libraries' (the
        // reference's order: after the sessions and the final checkpoint).
        c.core.extensions().terminate();
        let rc = match closed {
            Err(e) if rc == 0 => fail(&e, c.events, std::ptr::null_mut(), &c.core.error_prefix(), "WT_CONNECTION.close"),
            _ => rc,
        };
        // SAFETY: made by `Box::into_raw` in `new_handle`; every session is gone.
        drop(unsafe { Box::from_raw(conn.cast::<ConnectionHandle>()) });
        rc
    })
}

unsafe extern "C" fn reconfigure(conn: *mut WT_CONNECTION, config: *const c_char) -> c_int {
    // SAFETY: the application's open connection and NUL-terminated string or NULL.
    unsafe { call(conn, "WT_CONNECTION.reconfigure", |c| c.core.reconfigure(c_str(config)?)) }
}

unsafe extern "C" fn get_home(conn: *mut WT_CONNECTION) -> *const c_char {
    // SAFETY: the application's open connection.
    match unsafe { ConnectionHandle::from_ptr(conn) } {
        Some(c) => c.core.home().as_ptr(),
        None => std::ptr::null(),
    }
}

unsafe extern "C" fn is_new(conn: *mut WT_CONNECTION) -> c_int {
    // SAFETY: the application's open connection.
    unsafe { ConnectionHandle::from_ptr(conn) }.map_or(0, |c| c_int::from(c.core.is_new()))
}

unsafe extern "C" fn open_session(
    conn: *mut WT_CONNECTION,
    event_handler: *mut WT_EVENT_HANDLER,
    config: *const c_char,
    sessionp: *mut *mut WT_SESSION,
) -> c_int {
    // SAFETY: the application's open connection, handler, string and out-pointer (checked).
    unsafe {
        call(conn, "WT_CONNECTION.open_session", |c| {
            if sessionp.is_null() {
                return Err(Error::invalid("NULL session pointer"));
            }
            *sessionp = std::ptr::null_mut();
            *sessionp = session::open(c, c.events.or(event_handler), c_str(config)?)?;
            Ok(())
        })
    }
}

unsafe extern "C" fn add_collator(
    conn: *mut WT_CONNECTION,
    name: *const c_char,
    collator: *mut WT_COLLATOR,
    config: *const c_char,
) -> c_int {
    let _ = config;
    // SAFETY: the application's open connection, strings and collator.
    unsafe { call(conn, "WT_CONNECTION.add_collator", |c| super::extensions::add_collator(c, name, collator)) }
}

unsafe extern "C" fn add_compressor(
    conn: *mut WT_CONNECTION,
    name: *const c_char,
    compressor: *mut WT_COMPRESSOR,
    config: *const c_char,
) -> c_int {
    let _ = config;
    // SAFETY: the application's open connection, strings and compressor.
    unsafe { call(conn, "WT_CONNECTION.add_compressor", |c| super::extensions::add_compressor(c, name, compressor)) }
}

unsafe extern "C" fn add_extractor(
    conn: *mut WT_CONNECTION,
    name: *const c_char,
    extractor: *mut WT_EXTRACTOR,
    config: *const c_char,
) -> c_int {
    let _ = config;
    // SAFETY: the application's open connection, strings and extractor.
    unsafe { call(conn, "WT_CONNECTION.add_extractor", |c| super::extractor::add_extractor(c, name, extractor)) }
}

/// `WT_CONNECTION::configure_method`: a key `validate` then accepts for the method (see
/// `config::extra`; `uri` is ignored, as the reference ignores it). An unknown method is the
/// reference's `ENOENT` "no method matching ... found".
unsafe extern "C" fn configure_method(
    conn: *mut WT_CONNECTION,
    method: *const c_char,
    uri: *const c_char,
    config: *const c_char,
    kind: *const c_char,
    check: *const c_char,
) -> c_int {
    let _ = uri;
    // SAFETY: the application's open connection and NUL-terminated strings or NULL.
    unsafe {
        call(conn, "WT_CONNECTION.configure_method", |_| {
            let method = c_str(method)?.ok_or_else(|| Error::invalid("no method specified"))?;
            let known = crate::config::Method::from_api_name(method);
            if known.is_none() && !super::standalone::is_unchecked_method(method) {
                return Err(Error::new(crate::error::Kind::NoEntry, format!("no method matching {method} found")));
            }
            crate::config::extra::add(known, c_str(config)?, c_str(kind)?, c_str(check)?).map_err(Error::from)
        })
    }
}

unsafe extern "C" fn load_extension(conn: *mut WT_CONNECTION, path: *const c_char, config: *const c_char) -> c_int {
    // SAFETY: the application's open connection and strings.
    unsafe {
        call(conn, "WT_CONNECTION.load_extension", |c| super::extensions::load_extension(c, conn, path, config))
    }
}

unsafe extern "C" fn get_extension_api(conn: *mut WT_CONNECTION) -> *mut WT_EXTENSION_API {
    guard("WT_CONNECTION.get_extension_api", std::ptr::null_mut(), || {
        // SAFETY: the application's open connection.
        match unsafe { ConnectionHandle::from_ptr(conn) } {
            Some(c) => super::extension_api::get(c, conn),
            None => std::ptr::null_mut(),
        }
    })
}

unsafe extern "C" fn query_timestamp(conn: *mut WT_CONNECTION, hex: *mut c_char, config: *const c_char) -> c_int {
    // SAFETY: the application's open connection, a buffer of at least 17 bytes, and a
    // NUL-terminated string or NULL.
    unsafe {
        call(conn, "WT_CONNECTION.query_timestamp", |c| {
            let text = c.core.query_timestamp(c_str(config)?)?;
            super::session::write_hex(hex, &text)
        })
    }
}

unsafe extern "C" fn set_timestamp(conn: *mut WT_CONNECTION, config: *const c_char) -> c_int {
    // SAFETY: the application's open connection and NUL-terminated string or NULL.
    unsafe { call(conn, "WT_CONNECTION.set_timestamp", |c| c.core.set_timestamp(c_str(config)?)) }
}

unsafe extern "C" fn rollback_to_stable(conn: *mut WT_CONNECTION, config: *const c_char) -> c_int {
    // SAFETY: the application's open connection and NUL-terminated string or NULL.
    unsafe { call(conn, "WT_CONNECTION.rollback_to_stable", |c| c.core.rollback_to_stable(c_str(config)?)) }
}

/// Methods a later issue implements (or never will): `ENOTSUP` with a message.
unsafe fn not_yet(conn: *mut WT_CONNECTION, api: &str) -> c_int {
    // SAFETY: the application's open connection.
    unsafe { call(conn, api, |_| Err(Error::unsupported(format!("{api} is not supported")))) }
}

/// Declares method slots that answer `ENOTSUP`.
macro_rules! not_yet {
    ($($name:ident($($arg:ident: $ty:ty),*) => $api:literal;)*) => {$(
        unsafe extern "C" fn $name(conn: *mut WT_CONNECTION $(, $arg: $ty)*) -> c_int {
            $(let _ = $arg;)*
            // SAFETY: C calls the slot with the connection it belongs to.
            unsafe { not_yet(conn, $api) }
        }
    )*};
}

not_yet! {
    debug_info(config: *const c_char) => "WT_CONNECTION.debug_info";
    compile_configuration(method: *const c_char, s: *const c_char, compiled: *mut *const c_char) => "WT_CONNECTION.compile_configuration";
    add_data_source(prefix: *const c_char, ds: *mut WT_DATA_SOURCE, config: *const c_char) => "WT_CONNECTION.add_data_source";
    add_encryptor(name: *const c_char, x: *mut WT_ENCRYPTOR, config: *const c_char) => "WT_CONNECTION.add_encryptor";
    set_file_system(fs: *mut WT_FILE_SYSTEM, config: *const c_char) => "WT_CONNECTION.set_file_system";
    add_storage_source(name: *const c_char, x: *mut WT_STORAGE_SOURCE, config: *const c_char) => "WT_CONNECTION.add_storage_source";
    get_storage_source(name: *const c_char, x: *mut *mut WT_STORAGE_SOURCE) => "WT_CONNECTION.get_storage_source";
}

/// The method table of connections.
fn vtable() -> WT_CONNECTION {
    WT_CONNECTION {
        close: Some(close),
        debug_info: Some(debug_info),
        reconfigure: Some(reconfigure),
        get_home: Some(get_home),
        compile_configuration: Some(compile_configuration),
        configure_method: Some(configure_method),
        is_new: Some(is_new),
        open_session: Some(open_session),
        query_timestamp: Some(query_timestamp),
        set_timestamp: Some(set_timestamp),
        rollback_to_stable: Some(rollback_to_stable),
        load_extension: Some(load_extension),
        add_data_source: Some(add_data_source),
        add_collator: Some(add_collator),
        add_compressor: Some(add_compressor),
        add_encryptor: Some(add_encryptor),
        add_extractor: Some(add_extractor),
        set_file_system: Some(set_file_system),
        add_storage_source: Some(add_storage_source),
        get_storage_source: Some(get_storage_source),
        get_extension_api: Some(get_extension_api),
    }
}
