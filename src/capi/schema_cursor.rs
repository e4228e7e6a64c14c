//! Schema cursor handles (`index:` cursors, projections, tables with column groups or indices):
//! the same public struct and shim as table cursors, another method table. Each method converts
//! and delegates to the session's schema cursor methods.

use std::ffi::CString;

use libc::{c_char, c_int};

use crate::error::{code, Error, Result};
use crate::conn::Connection;
use crate::session::{SchemaCursor, Session};
use crate::stats::unsupported;

use super::boundary::guard;
use super::cursor::{report, vtable};
use super::handles::{CursorHandle, SessionHandle};
use super::stats_cursor::parts;
use super::types::{WT_CURSOR, WT_ITEM, WT_MODIFY};

/// The handle of a newly opened schema cursor.
pub fn new_handle(session: &mut SessionHandle, cursor: SchemaCursor, uri: CString) -> *mut WT_CURSOR {
    let mut handle = Box::new(CursorHandle::detached(schema_vtable(), cursor.api_key_format().cargs(), cursor.api_value_format().cargs(), uri));
    handle.iface.key_format = cursor.key_format_c().as_ptr();
    handle.iface.value_format = cursor.value_format_c().as_ptr();
    // The formats' strings live in the cursor, which is boxed: they stay where they are.
    handle.schema = Some(Box::new(cursor));
    handle.file_in(session, |s| &mut s.schema_cursors)
}

/// Frees a schema cursor handle of `session` (taken from its list by the caller), closing its
/// internal cursors.
///
/// # Safety
/// `raw` must come from `new_handle` for this session and not be used afterwards.
pub unsafe fn free(session: &mut SessionHandle, raw: *mut CursorHandle) {
    // SAFETY: per the contract.
    let mut handle = unsafe { Box::from_raw(raw) };
    if let Some(cursor) = handle.schema.take() {
        session.core.close_schema_cursor(*cursor);
    }
}

/// Runs a schema cursor method: finds the handle's cursor and session, runs `body`, reports
/// errors through the session (a failed call inside a transaction dooms it, as for tables).
unsafe fn call(
    cursor: *mut WT_CURSOR,
    api: &str,
    body: impl FnOnce(&mut SchemaCursor, &mut Session, &Connection) -> Result<()>,
) -> c_int {
    // SAFETY: the application passes a cursor handle or NULL.
    let _call = match unsafe { super::diagnostic::cursor_call(cursor, api, true) } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    guard(api, code::WT_PANIC, || {
        // SAFETY: the application passes an open schema cursor; its session is live and used by
        // no other thread (the API's threading rule).
        let Some((handle, session)) = (unsafe { parts(cursor) }) else { return code::EINVAL };
        let Some(schema) = handle.schema.as_deref_mut() else { return code::EINVAL };
        let conn = &session.conn().core;
        // A cursor used in a join serves the join only (the reference's WT_CURSTD_JOINED).
        let out = if schema.is_joined() {
            Err(crate::session::joined_error())
        } else {
            body(schema, &mut session.core, conn)
        };
        match out {
            Ok(()) => 0,
            Err(e) => {
                session.core.note_error(&e);
                report(session, &e, api)
            }
        }
    })
}

/// `WT_SESSION::join`: `join` must be a join cursor of `session`, `reference` an index or join
/// cursor on the same table.
///
/// # Safety
/// Both cursors are NULL or open cursor handles of the calling thread's session.
pub unsafe fn join(session: &mut SessionHandle, join: *mut WT_CURSOR, reference: *mut WT_CURSOR, config: Option<&str>) -> Result<()> {
    if join.is_null() || reference.is_null() || join == reference {
        return Err(Error::invalid("WT_SESSION::join: two different cursors are required"));
    }
    // SAFETY: per the contract; two distinct handles, neither reached otherwise in this call.
    let (target, source) = unsafe { (&mut *join.cast::<CursorHandle>(), &*reference.cast::<CursorHandle>()) };
    let (Some(target), Some(source)) = (target.schema.as_deref_mut(), source.schema.as_deref()) else {
        return Err(Error::invalid("WT_SESSION::join: not a join cursor and an index or join cursor"));
    };
    session.core.join(target, source, config)
}

unsafe extern "C" fn next(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.next", |c, s, conn| s.schema_step(conn, c, true)) }
}

unsafe extern "C" fn prev(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.prev", |c, s, conn| s.schema_step(conn, c, false)) }
}

unsafe extern "C" fn search(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.search", |c, s, _| s.schema_search(c)) }
}

unsafe extern "C" fn search_near(cursor: *mut WT_CURSOR, exactp: *mut c_int) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe {
        call(cursor, "WT_CURSOR.search_near", |c, s, _| {
            if exactp.is_null() {
                return Err(Error::invalid("NULL exact pointer"));
            }
            *exactp = s.schema_search_near(c)?;
            Ok(())
        })
    }
}

unsafe extern "C" fn insert(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.insert", |c, s, _| s.schema_insert(c)) }
}

unsafe extern "C" fn update(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.update", |c, s, _| s.schema_update(c)) }
}

unsafe extern "C" fn remove(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { call(cursor, "WT_CURSOR.remove", |c, s, _| s.schema_remove(c)) }
}

unsafe extern "C" fn reset(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe {
        call(cursor, "WT_CURSOR.reset", |c, s, _| {
            s.schema_reset(c);
            Ok(())
        })
    }
}

unsafe extern "C" fn close(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor (API contract).
    unsafe { super::stats_cursor::close_listed(cursor, |s| &mut s.schema_cursors, free) }
}

/// Every other method: `ENOTSUP` "Unsupported cursor operation".
unsafe fn refuse(cursor: *mut WT_CURSOR, api: &str) -> c_int {
    // SAFETY: C calls the slot with its own open cursor (API contract).
    unsafe { call(cursor, api, |_, _, _| Err(unsupported())) }
}

refused! {
    get_raw_key_value(key: *mut WT_ITEM, value: *mut WT_ITEM) => "WT_CURSOR.get_raw_key_value";
    compare(other: *mut WT_CURSOR, comparep: *mut c_int) => "WT_CURSOR.compare";
    equals(other: *mut WT_CURSOR, equalp: *mut c_int) => "WT_CURSOR.equals";
    modify(entries: *mut WT_MODIFY, nentries: c_int) => "WT_CURSOR.modify";
    reserve() => "WT_CURSOR.reserve";
    largest_key() => "WT_CURSOR.largest_key";
    reconfigure(config: *const c_char) => "WT_CURSOR.reconfigure";
    bound(config: *const c_char) => "WT_CURSOR.bound";
    cache() => "WT_CURSOR.cache";
    reopen(check_only: bool) => "WT_CURSOR.reopen";
}

/// The method table of schema cursors.
fn schema_vtable() -> WT_CURSOR {
    special_vtable!()
}
