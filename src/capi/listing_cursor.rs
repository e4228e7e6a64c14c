//! `log:`, `metadata:` and checkpoint cursor handles: the same public struct and shim as table
//! cursors, another method table. Each method converts and delegates to the handle's
//! [`Listing`]. The handles live on the session's list of cursors outside the core's set
//! (with the statistics cursors), which frees them at session close.

use std::ffi::CString;

use libc::{c_char, c_int};

use crate::cursor::listing::{unsupported, Listing};
use crate::error::{code, Result};

use super::boundary::guard;
use super::cursor::{report, vtable};
use super::handles::{CursorHandle, SessionHandle};
use super::stats_cursor::parts;
use super::types::{WT_CURSOR, WT_ITEM, WT_MODIFY};

/// The handle of a newly opened listing cursor.
pub fn new_handle(session: &mut SessionHandle, listing: Listing, uri: CString) -> *mut WT_CURSOR {
    let key = listing.api_key_format().cargs();
    let value = listing.api_value_format().cargs();
    let mut handle = Box::new(CursorHandle::detached(listing_vtable(), key, value, uri));
    handle.listing = Some(Box::new(listing));
    if let Some(listing) = handle.listing.as_deref() {
        let (key, value) = listing.shown_formats();
        handle.iface.key_format = key.as_ptr();
        handle.iface.value_format = value.as_ptr();
    }
    handle.file_in(session, |s| &mut s.stats_cursors)
}

/// Runs a listing cursor method: finds the handle's listing and session, runs `body`, reports
/// errors through the session.
unsafe fn call(cursor: *mut WT_CURSOR, api: &str, body: impl FnOnce(&mut Listing) -> Result<()>) -> c_int {
    // SAFETY: the application passes a cursor handle or NULL.
    let _call = match unsafe { super::diagnostic::cursor_call(cursor, api, true) } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    guard(api, code::WT_PANIC, || {
        // SAFETY: the application passes an open listing cursor; its session is live and used
        // by no other thread (the API's threading rule).
        let Some((handle, session)) = (unsafe { parts(cursor) }) else { return code::EINVAL };
        let Some(listing) = handle.listing.as_deref_mut() else { return code::EINVAL };
        match body(listing) {
            Ok(()) => 0,
            Err(e) => report(session, &e, api),
        }
    })
}

unsafe extern "C" fn next(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.next", Listing::next) }
}

unsafe extern "C" fn prev(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.prev", Listing::prev) }
}

unsafe extern "C" fn search(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.search", Listing::search) }
}

unsafe extern "C" fn search_near(cursor: *mut WT_CURSOR, exactp: *mut c_int) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract); `exactp` is NULL or
    // the application's int.
    unsafe {
        call(cursor, "WT_CURSOR.search_near", |l| {
            let exact = l.search_near()?;
            if let Some(out) = exactp.as_mut() {
                *out = exact;
            }
            Ok(())
        })
    }
}

unsafe extern "C" fn reset(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe {
        call(cursor, "WT_CURSOR.reset", |l| {
            l.reset();
            Ok(())
        })
    }
}

unsafe extern "C" fn checkpoint_id(cursor: *mut WT_CURSOR) -> u64 {
    // SAFETY: C calls this slot with its own open cursor (API contract); only read here.
    unsafe { cursor.cast::<CursorHandle>().as_ref() }.and_then(|h| h.listing.as_deref()).map_or(0, Listing::checkpoint_id)
}

unsafe extern "C" fn close(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { super::stats_cursor::close_listed(cursor, |s| &mut s.stats_cursors, super::stats_cursor::free) }
}

/// Every other method: `ENOTSUP` "Unsupported cursor operation", as the reference's.
unsafe fn refuse(cursor: *mut WT_CURSOR, api: &str) -> c_int {
    // SAFETY: C calls the slot with its own open cursor (API contract).
    unsafe { call(cursor, api, |_| Err(unsupported())) }
}

refused! {
    get_raw_key_value(key: *mut WT_ITEM, value: *mut WT_ITEM) => "WT_CURSOR.get_raw_key_value";
    compare(other: *mut WT_CURSOR, comparep: *mut c_int) => "WT_CURSOR.compare";
    equals(other: *mut WT_CURSOR, equalp: *mut c_int) => "WT_CURSOR.equals";
    insert() => "WT_CURSOR.insert";
    modify(entries: *mut WT_MODIFY, nentries: c_int) => "WT_CURSOR.modify";
    update() => "WT_CURSOR.update";
    remove() => "WT_CURSOR.remove";
    reserve() => "WT_CURSOR.reserve";
    largest_key() => "WT_CURSOR.largest_key";
    reconfigure(config: *const c_char) => "WT_CURSOR.reconfigure";
    bound(config: *const c_char) => "WT_CURSOR.bound";
    cache() => "WT_CURSOR.cache";
    reopen(check_only: bool) => "WT_CURSOR.reopen";
}

/// The method table of listing cursors.
fn listing_vtable() -> WT_CURSOR {
    WT_CURSOR { checkpoint_id: Some(checkpoint_id), ..special_vtable!() }
}
