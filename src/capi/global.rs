//! The exported global functions (the variadic `wiredtiger_struct_*` live in shim.c).

use std::ffi::CString;
use std::sync::OnceLock;

use libc::{c_char, c_int};

use crate::conn::Connection;
use crate::error::{code, strerror};

use super::boundary::{fail, guard, install_panic_hook};
use super::connection::new_handle;
use super::events::Events;
use super::handles::{c_str, ConnectionHandle};
use super::types::{WT_CONNECTION, WT_EVENT_HANDLER};

/// Opens a database in `home` (NULL means "."; with `in_memory=true` nothing is written
/// there). On success `*connectionp` is the connection, shared by all threads and freed by
/// `WT_CONNECTION::close`. `event_handler` (may be NULL) must outlive the connection.
///
/// # Safety
/// Strings must be NULL or NUL-terminated; `connectionp` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_open(
    home: *const c_char,
    event_handler: *mut WT_EVENT_HANDLER,
    config: *const c_char,
    connectionp: *mut *mut WT_CONNECTION,
) -> c_int {
    install_panic_hook();
    guard("wiredtiger_open", code::WT_PANIC, || {
        let events = Events::new(event_handler);
        if connectionp.is_null() {
            return code::EINVAL;
        }
        // SAFETY: the application's out-parameter, checked non-NULL.
        unsafe { *connectionp = std::ptr::null_mut() };
        // SAFETY: NUL-terminated strings or NULL, per the API.
        let opened = unsafe { c_str(home) }
            .and_then(|home| Ok((home, unsafe { c_str(config) }?)))
            .and_then(|(home, config)| Connection::open(home, config));
        match opened {
            Ok(core) => {
                // What salvage dropped from a damaged journal, reported before the open returns.
                for text in core.recovery_messages() {
                    events.message(std::ptr::null_mut(), text);
                }
                let conn = new_handle(core, events);
                // `extensions=`: the libraries are loaded with the connection open, as the
                // reference's; a failure closes it again.
                // SAFETY: the handle just made; the configuration string as validated above.
                let loaded = unsafe {
                    let handle = ConnectionHandle::from_ptr(conn).expect("just made");
                    c_str(config).and_then(|config| {
                        super::extensions::load_listed(handle, conn, config)?;
                        super::extensions::check_log_compressor(handle, config)?;
                        // With a journal compressor, recovery waited for it.
                        for text in handle.core.finish_open()? {
                            events.message(std::ptr::null_mut(), &text);
                        }
                        Ok(())
                    })
                };
                if let Err(e) = loaded {
                    let rc = fail(&e, events, std::ptr::null_mut(), "", "wiredtiger_open");
                    // SAFETY: the connection just opened, used by nothing else.
                    if let Some(close) = unsafe { (*conn).close } {
                        // SAFETY: as above; it is not used afterwards.
                        unsafe { close(conn, std::ptr::null()) };
                    }
                    return rc;
                }
                events.general(conn, 2);
                // SAFETY: checked non-NULL above.
                unsafe { *connectionp = conn };
                0
            }
            Err(e) => fail(&e, events, std::ptr::null_mut(), "", "wiredtiger_open"),
        }
    })
}

/// The text for an error code. The returned string is static, except for unknown codes, whose
/// text lives in a per-thread buffer until the next such call on the thread. Callable from any
/// thread; the caller must not free the string.
#[no_mangle]
pub extern "C" fn wiredtiger_strerror(error: c_int) -> *const c_char {
    thread_local! {
        static BUF: std::cell::RefCell<CString> = std::cell::RefCell::new(CString::default());
    }
    guard("wiredtiger_strerror", std::ptr::null(), || {
        BUF.with(|buf| {
            *buf.borrow_mut() = CString::new(strerror(error).into_owned()).unwrap_or_default();
            buf.borrow().as_ptr()
        })
    })
}

/// The version string ("WiredTiger 11.3.1: …", the API level implemented) and its parts;
/// any pointer may be NULL. The string is static (never freed). Callable from any thread.
///
/// # Safety
/// Each pointer must be NULL or point to a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_version(majorp: *mut c_int, minorp: *mut c_int, patchp: *mut c_int) -> *const c_char {
    static VERSION: OnceLock<CString> = OnceLock::new();
    for (p, v) in [(majorp, 11), (minorp, 3), (patchp, 1)] {
        if !p.is_null() {
            // SAFETY: the application's out-parameter, checked non-NULL.
            unsafe { *p = v };
        }
    }
    VERSION
        .get_or_init(|| CString::new("WiredTiger 11.3.1: (November 13, 2024)").expect("no NUL"))
        .as_ptr()
}
