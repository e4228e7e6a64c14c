//! `statistics:` cursor handles: the same public struct and shim as table cursors, another
//! method table. Each method converts and delegates to the session's `StatsCursor`.

use std::ffi::CString;

use libc::{c_char, c_int};

use crate::error::{code, Result};
use crate::session::StatsCursor;
use crate::stats::unsupported;

use super::boundary::guard;
use super::cursor::{report, vtable};
use super::handles::{CursorHandle, SessionHandle};
use super::types::{WT_CURSOR, WT_ITEM, WT_MODIFY};

/// The handle of a newly opened statistics cursor.
pub fn new_handle(session: &mut SessionHandle, stats: StatsCursor, uri: CString) -> *mut WT_CURSOR {
    let view = stats.view();
    let mut handle =
        Box::new(CursorHandle::detached(stats_vtable(), view.api_key_format().cargs(), view.api_value_format().cargs(), uri));
    handle.stats = Some(Box::new(stats));
    // The formats stay `i` / `SSq` for raw cursors too, as for table cursors.
    handle.iface.key_format = c"i".as_ptr();
    handle.iface.value_format = c"SSq".as_ptr();
    handle.file_in(session, |s| &mut s.stats_cursors)
}

/// Frees a statistics cursor handle of `session` (taken from its list by the caller).
///
/// # Safety
/// `raw` must come from `new_handle` for this session and not be used afterwards.
pub unsafe fn free(session: &mut SessionHandle, raw: *mut CursorHandle) {
    // SAFETY: per the contract.
    let mut handle = unsafe { Box::from_raw(raw) };
    if let Some(stats) = handle.stats.take() {
        session.core.close_statistics(*stats);
    }
}

/// Runs a statistics cursor method: finds the handle's `StatsCursor` and session, runs `body`,
/// reports errors through the session.
unsafe fn call(
    cursor: *mut WT_CURSOR,
    api: &str,
    body: impl FnOnce(&mut StatsCursor, &mut SessionHandle) -> Result<()>,
) -> c_int {
    // SAFETY: the application passes a cursor handle or NULL.
    let _call = match unsafe { super::diagnostic::cursor_call(cursor, api, true) } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    guard(api, code::WT_PANIC, || {
        // SAFETY: the application passes an open statistics cursor; its session is live and
        // used by no other thread (the API's threading rule).
        let Some((handle, session)) = (unsafe { parts(cursor) }) else { return code::EINVAL };
        let Some(stats) = handle.stats.as_deref_mut() else { return code::EINVAL };
        match body(stats, session) {
            Ok(()) => 0,
            Err(e) => report(session, &e, api),
        }
    })
}

/// The handle and its session.
///
/// # Safety
/// `cursor` must be NULL or an open cursor handle whose session no other thread uses.
pub(super) unsafe fn parts<'a>(cursor: *mut WT_CURSOR) -> Option<(&'a mut CursorHandle, &'a mut SessionHandle)> {
    // SAFETY: per the contract; the handle and the session are distinct allocations.
    unsafe {
        let handle = cursor.cast::<CursorHandle>().as_mut()?;
        let session = SessionHandle::from_ptr(handle.iface.session)?;
        Some((handle, session))
    }
}

unsafe extern "C" fn next(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.next", |c, s| c.next(&s.conn().core)) }
}

unsafe extern "C" fn prev(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.prev", |c, s| c.prev(&s.conn().core)) }
}

unsafe extern "C" fn search(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.search", |c, s| c.search(&s.conn().core)) }
}

unsafe extern "C" fn reset(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe {
        call(cursor, "WT_CURSOR.reset", |c, _| {
            c.reset();
            Ok(())
        })
    }
}

unsafe extern "C" fn close(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { close_listed(cursor, |s| &mut s.stats_cursors, free) }
}

/// `WT_CURSOR::close` of a cursor kind its session keeps in a list of its own (`list`): off
/// the list, then freed with `free`.
///
/// # Safety
/// `cursor` is NULL or an open cursor of that kind, not used again.
pub(super) unsafe fn close_listed(
    cursor: *mut WT_CURSOR,
    list: fn(&mut SessionHandle) -> &mut Vec<*mut CursorHandle>,
    free: unsafe fn(&mut SessionHandle, *mut CursorHandle),
) -> c_int {
    // The session's claim, not the handle's: the handle is freed before the claim ends.
    // SAFETY: the application passes a cursor handle or NULL.
    let _call = match unsafe { super::diagnostic::cursor_call(cursor, "WT_CURSOR.close", false) } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    guard("WT_CURSOR.close", code::WT_PANIC, || {
        // SAFETY: the application passes an open cursor and does not use it again.
        let Some((handle, session)) = (unsafe { parts(cursor) }) else { return code::EINVAL };
        let raw = std::ptr::from_mut(handle);
        let cursors = list(session);
        let Some(at) = cursors.iter().position(|&c| c == raw) else { return code::EINVAL };
        cursors.swap_remove(at);
        // SAFETY: made by that kind's `new_handle` for this session, now off its list.
        unsafe { free(session, raw) };
        0
    })
}

/// Every other method: `ENOTSUP` "Unsupported cursor operation".
unsafe fn refuse(cursor: *mut WT_CURSOR, api: &str) -> c_int {
    // SAFETY: C calls the slot with its own open cursor (API contract).
    unsafe { call(cursor, api, |_, _| Err(unsupported())) }
}

refused! {
    get_raw_key_value(key: *mut WT_ITEM, value: *mut WT_ITEM) => "WT_CURSOR.get_raw_key_value";
    compare(other: *mut WT_CURSOR, comparep: *mut c_int) => "WT_CURSOR.compare";
    equals(other: *mut WT_CURSOR, equalp: *mut c_int) => "WT_CURSOR.equals";
    search_near(exactp: *mut c_int) => "WT_CURSOR.search_near";
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

/// The method table of statistics cursors.
fn stats_vtable() -> WT_CURSOR {
    special_vtable!()
}
