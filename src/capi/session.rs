//! `WT_SESSION` methods: convert, delegate to the session core, map the result.

use std::cell::Cell;
use std::ffi::CString;
use std::sync::atomic::Ordering;

use libc::{c_char, c_int};

use crate::error::{code, strerror, Error, Result};
use crate::cursor::CursorConfig;
use crate::session::txn::TimestampKind;
use crate::session::{CursorId, Opened, QuickOpen, Session, Truncate};

use super::boundary::guard;
use super::cursor::{free_handle, new_handle, renew_handle, report};
use super::diagnostic;
use super::events::Events;
use super::handles::{c_config, c_str, ConnectionHandle, CursorHandle, SessionHandle};
use super::shim::{__ul_shim_bind_configuration, __ul_shim_log_printf};
use super::types::{WT_CURSOR, WT_SESSION, WT_TS_TXN_TYPE};

/// Runs a session method: finds the session, runs `body`, reports errors.
unsafe fn call(session: *mut WT_SESSION, api: &str, body: impl FnOnce(&mut SessionHandle) -> Result<()>) -> c_int {
    // SAFETY: the application passes a session handle or NULL.
    let _call = match unsafe { diagnostic::session_call(session, api) } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    guard(api, code::WT_PANIC, || {
        // SAFETY: the application passes an open session it does not use concurrently.
        let Some(s) = (unsafe { SessionHandle::from_ptr(session) }) else { return code::EINVAL };
        match body(s) {
            Ok(()) => 0,
            Err(e) => report(s, &e, api),
        }
    })
}

thread_local! {
    /// The connection (its address) and slot of the session this thread closed last: the
    /// thread's next `open_session` on that connection tries that slot first, and so reuses
    /// memory no other thread has written.
    static LAST_SLOT: Cell<(usize, usize)> = const { Cell::new((0, usize::MAX)) };
}

/// Opens a session of `conn` (for `WT_CONNECTION::open_session`). A slot where a session
/// closed before keeps that session's memory ([`close`]): the new session is made in it.
pub fn open(conn: &ConnectionHandle, events: Events, config: Option<&str>) -> Result<*mut WT_SESSION> {
    let conn_id = std::ptr::from_ref(conn) as usize;
    let hint = LAST_SLOT.with(|last| match last.get() {
        (id, slot) if id == conn_id => slot,
        _ => usize::MAX,
    });
    let slot = conn.core.slots().claim_near(hint)?;
    let kept = conn.sessions[slot].load(Ordering::Relaxed);
    let raw = if kept.is_null() {
        let core = match Session::open(&conn.core, slot, config) {
            Ok(core) => core,
            Err(e) => {
                conn.core.slots().release(slot);
                return Err(e);
            }
        };
        let raw = Box::into_raw(Box::new(SessionHandle {
            iface: vtable(),
            core,
            events,
            cursors: Vec::new(),
            stats_cursors: Vec::new(),
            schema_cursors: Vec::new(),
            strerror_buf: CString::default(),
            scratch: Vec::new(),
            #[cfg(feature = "diagnostic")]
            busy: std::sync::atomic::AtomicUsize::new(0),
        }));
        // SAFETY: just made from a Box, not yet shared; extension callbacks get this pointer.
        unsafe { (*raw).core.set_caller(raw as usize) };
        // Only this slot's claimant writes its entry (the claim and the release order it).
        conn.sessions[slot].store(raw, Ordering::Relaxed);
        raw
    } else {
        // SAFETY: a session closed in this slot, which the claim just made this thread's own:
        // no other thread reaches it until the slot is released again.
        let s = unsafe { &mut *kept };
        if let Err(e) = s.core.reopen(&conn.core, config) {
            conn.core.slots().release(slot);
            return Err(e);
        }
        free_stale(s);
        s.iface = vtable();
        s.events = events;
        #[cfg(feature = "diagnostic")]
        s.busy.store(0, Ordering::Relaxed);
        kept
    };
    // SAFETY: `raw` is this slot's live handle; its first field is the public struct.
    unsafe {
        (*raw).iface.connection = (&conn.iface as *const super::types::WT_CONNECTION).cast_mut();
        Ok(&mut (*raw).iface)
    }
}

/// Closes a session: its cursors (reported to `handle_close`), then the session itself, whose
/// memory stays in its slot for the next session opened there (see [`open`]). Used by
/// `WT_SESSION::close` and `WT_CONNECTION::close`.
///
/// # Safety
/// `raw` must be an open session handle that no other thread uses; it may not be used after
/// this returns (another thread may open a session in it).
pub unsafe fn close(raw: *mut SessionHandle) {
    // SAFETY: per the contract.
    let s = unsafe { &mut *raw };
    for cursor in std::mem::take(&mut s.schema_cursors) {
        let events = s.events;
        // SAFETY: a live schema cursor handle of this session.
        events.closed(s.as_ptr(), unsafe { &mut (*cursor).iface });
        // SAFETY: as above; freed here and nowhere else once taken from the list (its internal
        // cursors close with it, before the session's own cursors are walked).
        unsafe { super::schema_cursor::free(s, cursor) };
    }
    if s.core.has_open_cursors() {
        for id in s.core.cursor_ids() {
            let cursor = s.cursor_handle(id);
            let events = s.events;
            // SAFETY: `cursor` is a live handle of this session.
            events.closed(s.as_ptr(), unsafe { &mut (*cursor).iface });
        }
    }
    // Rolls back the session's transaction, withdraws its published snapshot and makes its
    // last statistics write: all before the slot can be claimed again (each slot's statistics
    // block has one writer at a time).
    s.core.park();
    free_stale(s);
    for cursor in std::mem::take(&mut s.stats_cursors) {
        let events = s.events;
        // SAFETY: a live statistics cursor handle of this session.
        events.closed(s.as_ptr(), unsafe { &mut (*cursor).iface });
        // SAFETY: as above; freed here and nowhere else once taken from the list.
        unsafe { super::stats_cursor::free(s, cursor) };
    }
    let slot = s.core.slot();
    let conn = s.conn();
    LAST_SLOT.with(|last| last.set((std::ptr::from_ref(conn) as usize, slot)));
    conn.core.slots().release(slot);
}

/// Frees the memory of a session in `WT_CONNECTION::close`, closing it first if it is open
/// (reported to the connection's `handle_close`).
///
/// # Safety
/// `raw` must be a session handle of a slot of a closing connection, used by no thread.
pub unsafe fn free(raw: *mut SessionHandle, events: Events) {
    // SAFETY: per the contract.
    let s = unsafe { &mut *raw };
    if !s.core.is_parked() {
        events.closed(s.as_ptr(), std::ptr::null_mut());
        // SAFETY: an open session the application left; no thread may use it during close.
        unsafe { close(raw) };
    }
    s.core.free_kept();
    free_stale(s);
    // SAFETY: made by `Box::into_raw` in `open`; the connection's slot table no longer has it.
    drop(unsafe { Box::from_raw(raw) });
}

unsafe extern "C" fn session_close(session: *mut WT_SESSION, _config: *const c_char) -> c_int {
    // The reference does not parse this method's configuration.
    // SAFETY: the application passes a session handle or NULL.
    let call = match unsafe { diagnostic::session_call(session, "WT_SESSION.close") } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    let rc = guard("WT_SESSION.close", code::WT_PANIC, || {
        if session.is_null() {
            return code::EINVAL;
        }
        // SAFETY: the application passes an open session, which it may not use afterwards.
        unsafe { close(session.cast::<SessionHandle>()) };
        0
    });
    if rc == 0 {
        call.session_freed();
    }
    rc
}

unsafe extern "C" fn reconfigure(session: *mut WT_SESSION, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated string or NULL.
    unsafe {
        call(session, "WT_SESSION.reconfigure", |s| {
            let out = s.core.reconfigure(c_str(config)?);
            free_stale(s);
            out
        })
    }
}

unsafe extern "C" fn session_strerror(session: *mut WT_SESSION, error: c_int) -> *const c_char {
    guard("WT_SESSION.strerror", std::ptr::null(), || {
        // SAFETY: the application passes an open session it does not use concurrently.
        let Some(s) = (unsafe { SessionHandle::from_ptr(session) }) else { return std::ptr::null() };
        s.strerror_buf = CString::new(strerror(error).into_owned()).unwrap_or_default();
        s.strerror_buf.as_ptr()
    })
}

unsafe extern "C" fn open_cursor(
    session: *mut WT_SESSION,
    uri: *const c_char,
    to_dup: *mut WT_CURSOR,
    config: *const c_char,
    cursorp: *mut *mut WT_CURSOR,
) -> c_int {
    // SAFETY: the application passes a session handle or NULL.
    let _call = match unsafe { diagnostic::session_call(session, "WT_SESSION.open_cursor") } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    // The common case: the cursor this session parked last, opened again with the same URI and
    // no configuration. It calls nothing but `strlen` and cannot panic, so it needs no
    // unwinding guard; what is left to do (rarely) and every other case are tail calls.
    // (Bitwise: one test for the two that must be NULL.)
    if !session.is_null() && !uri.is_null() && !cursorp.is_null() && (to_dup as usize | config as usize) == 0 {
        // SAFETY: the application passes a NUL-terminated URI (API contract).
        let uri_bytes = unsafe { std::slice::from_raw_parts(uri.cast::<u8>(), libc::strlen(uri)) };
        // SAFETY: the application's live session, which no other thread uses during the call.
        let s = unsafe { &mut *session.cast::<SessionHandle>() };
        if let Some((id, then)) = s.core.reuse_latest_quick(uri_bytes) {
            // Every core cursor of a session handle has its handle (made when the cursor was
            // opened, kept while it is parked).
            let handle = s.cursors.get(id.0).copied().unwrap_or(std::ptr::null_mut());
            // SAFETY: the cursor's own live handle; the out-pointer was checked non-NULL.
            unsafe {
                *cursorp = std::ptr::addr_of_mut!((*handle).iface);
                diagnostic::set_closed(*cursorp, false);
                // The default configuration is not raw: a handle parked raw needs refitting.
                if then == QuickOpen::Finish || (*handle).raw {
                    return open_finish(session, *cursorp);
                }
            }
            return 0;
        }
        // (Both NULL here: passed as constants, so that nothing else has to live across
        // `strlen`.)
        // SAFETY: as this function's.
        return unsafe { open_cursor_slow(session, uri, std::ptr::null_mut(), std::ptr::null(), cursorp) };
    }
    // SAFETY: as this function's.
    unsafe { open_cursor_slow(session, uri, to_dup, config, cursorp) }
}

/// What a quick `open_cursor` left to do: the statistics mark, a handle to refit.
#[inline(never)]
unsafe extern "C" fn open_finish(session: *mut WT_SESSION, cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: the live session and the cursor handle it just reopened.
    unsafe {
        call(session, "WT_SESSION.open_cursor", |s| {
            s.core.open_finish();
            let handle = &mut *cursor.cast::<CursorHandle>();
            handle.refit(s.core.cursor(handle.id));
            Ok(())
        })
    }
}

/// `open_cursor` when the cursor parked last cannot serve it: another parked cursor of the
/// URI, or the general path. Out of line, so that the quick path carries none of its frame.
#[inline(never)]
unsafe extern "C" fn open_cursor_slow(
    session: *mut WT_SESSION,
    uri: *const c_char,
    to_dup: *mut WT_CURSOR,
    config: *const c_char,
    cursorp: *mut *mut WT_CURSOR,
) -> c_int {
    if !cursorp.is_null() {
        // SAFETY: as below.
        if let Some(cursor) = unsafe { open_cached(session, uri, to_dup, config) } {
            // SAFETY: checked non-NULL; the application's out-pointer and the cursor's handle.
            unsafe {
                *cursorp = cursor;
                diagnostic::set_closed(cursor, false);
            }
            return 0;
        }
    }
    // SAFETY: the application's live session, strings, cursor and out-pointer (checked).
    unsafe {
        call(session, "WT_SESSION.open_cursor", |s| {
            if cursorp.is_null() {
                return Err(Error::invalid("NULL cursor pointer"));
            }
            *cursorp = std::ptr::null_mut();
            let config = c_str(config)?;
            let uri = c_str(uri)?;
            if let Some(uri) = uri.filter(|u| u.starts_with("statistics:")) {
                // `statistics:join` takes the join cursor as `to_dup`, and only that.
                let join_stats = uri == "statistics:join";
                if !to_dup.is_null() && !join_stats {
                    return Err(Error::invalid(
                        "should be passed either a URI or a cursor to duplicate, but not both",
                    ));
                }
                let join = if join_stats {
                    let core = to_dup.cast::<CursorHandle>().as_ref().and_then(|h| h.schema.as_deref()).and_then(|c| c.join_core());
                    if core.is_none() {
                        return Err(Error::invalid("join cursor must be used with statistics:join"));
                    }
                    core
                } else {
                    None
                };
                let stats = s.core.open_statistics_of(&s.conn().core, uri, config, join)?;
                *cursorp = super::stats_cursor::new_handle(s, stats, CString::new(uri).expect("came from a C string"));
                return Ok(());
            }
            if !to_dup.is_null() && (*to_dup.cast::<CursorHandle>()).stats.is_some() {
                return Err(Error::unsupported("unsupported object operation: statistics:"));
            }
            if let Some(uri) = uri.filter(|u| crate::session::is_listing(u, config)) {
                if !to_dup.is_null() {
                    return Err(Error::invalid(
                        "should be passed either a URI or a cursor to duplicate, but not both",
                    ));
                }
                if let Some(listing) = s.core.open_listing(&s.conn().core, uri, config)? {
                    let uri = CString::new(uri).expect("came from a C string");
                    *cursorp = super::listing_cursor::new_handle(s, listing, uri);
                    return Ok(());
                }
            }
            if let Some(listing) = to_dup.cast::<CursorHandle>().as_ref().and_then(|h| h.listing.as_deref()) {
                if uri.is_some() {
                    return Err(Error::invalid(
                        "should be passed either a URI or a cursor to duplicate, but not both",
                    ));
                }
                let copy = listing.duplicate()?;
                let uri = (*to_dup.cast::<CursorHandle>()).uri.clone();
                *cursorp = super::listing_cursor::new_handle(s, copy, uri);
                return Ok(());
            }
            if !to_dup.is_null() && (*to_dup.cast::<CursorHandle>()).schema.is_some() {
                if uri.is_some() {
                    return Err(Error::invalid(
                        "should be passed either a URI or a cursor to duplicate, but not both",
                    ));
                }
                return Err(Error::unsupported("duplicating index, projection and column-group table cursors is not supported yet"));
            }
            if let (Some(uri), true) = (uri, to_dup.is_null()) {
                if let Some(cursor) = s.core.open_schema_cursor(&s.conn().core, uri, config)? {
                    *cursorp = super::schema_cursor::new_handle(s, cursor, CString::new(uri).expect("came from a C string"));
                    return Ok(());
                }
            }
            let opened = match (uri, to_dup.is_null()) {
                (Some(uri), true) => s.core.open_cursor(&s.conn().core, uri, config),
                (None, false) => {
                    let Some((owner, of)) = CursorHandle::parts(to_dup) else { unreachable!() };
                    if !std::ptr::eq(owner, s) {
                        return Err(Error::invalid("a cursor can only be duplicated within its session"));
                    }
                    s.core.dup_cursor(&s.conn().core, of, config)
                }
                _ => {
                    return Err(Error::invalid(
                        "should be passed either a URI or a cursor to duplicate, but not both",
                    ))
                }
            };
            free_stale(s);
            let Opened { id, reused, spare } = opened?;
            *cursorp = if spare {
                renew_handle(s, id)
            } else if reused {
                // The handle the cursor had when it was parked, fitted to its new configuration.
                let handle = &mut *s.cursor_handle(id);
                handle.refit(s.core.cursor(id));
                diagnostic::set_closed(&mut handle.iface, false);
                &mut handle.iface
            } else {
                let uri = match uri {
                    Some(uri) => CString::new(uri).expect("came from a C string"),
                    None => (*to_dup.cast::<CursorHandle>()).uri.clone(),
                };
                new_handle(s, id, uri)
            };
            Ok(())
        })
    }
}

/// The cursor cache's second path of `open_cursor`: a URI with no configuration and no cursor
/// to duplicate, served by a parked cursor of that exact URI, else by a spare of it (a new
/// cursor). The URI is compared as bytes, so nothing is validated or parsed; anything else (or
/// a miss) takes the general path.
///
/// # Safety
/// The application's live session (or NULL) and NUL-terminated URI (or NULL).
#[inline(always)]
unsafe fn open_cached(
    session: *mut WT_SESSION,
    uri: *const c_char,
    to_dup: *mut WT_CURSOR,
    config: *const c_char,
) -> Option<*mut WT_CURSOR> {
    if uri.is_null() || !to_dup.is_null() || !config.is_null() {
        return None;
    }
    guard("WT_SESSION.open_cursor", None, || {
        // SAFETY: the application's live session, which it does not use concurrently.
        let s = unsafe { SessionHandle::from_ptr(session) }?;
        // SAFETY: a NUL-terminated string, per the contract.
        let uri = unsafe { std::ffi::CStr::from_ptr(uri) }.to_bytes();
        let Some(id) = s.core.reuse_cached(uri, CursorConfig::default()) else {
            // A new cursor made from a spare the slot's previous session left.
            let id = s.core.open_spare(uri, CursorConfig::default());
            free_stale(s);
            return Some(renew_handle(s, id?));
        };
        free_stale(s);
        // SAFETY: the cursor's own handle, kept while it was parked.
        let handle = unsafe { &mut *s.cursor_handle(id) };
        // The default configuration is not raw: only a handle parked raw needs refitting.
        if handle.raw {
            handle.fit(s.core.cursor(id));
        }
        Some(std::ptr::from_mut(&mut handle.iface))
    })
}

/// Frees the handles of cursors the session freed on its own (stale parked cursors).
#[inline(always)]
pub fn free_stale(s: &mut SessionHandle) {
    if s.core.has_freed() {
        for id in s.core.take_freed() {
            free_handle(s, id);
        }
    }
}

unsafe extern "C" fn rename(session: *mut WT_SESSION, uri: *const c_char, new_uri: *const c_char, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated strings.
    unsafe {
        call(session, "WT_SESSION.rename", |s| {
            let uri = c_str(uri)?.ok_or_else(|| Error::invalid("NULL object name"))?;
            let new_uri = c_str(new_uri)?.ok_or_else(|| Error::invalid("NULL object name"))?;
            s.core.rename(&s.conn().core, uri, new_uri, c_str(config)?)
        })
    }
}

unsafe extern "C" fn join(session: *mut WT_SESSION, a: *mut WT_CURSOR, b: *mut WT_CURSOR, config: *const c_char) -> c_int {
    // SAFETY: the application's live session, its cursors and a NUL-terminated string.
    unsafe { call(session, "WT_SESSION.join", |s| super::schema_cursor::join(s, a, b, c_str(config)?)) }
}

unsafe extern "C" fn create(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated strings.
    unsafe {
        call(session, "WT_SESSION.create", |s| {
            let name = c_str(name)?.ok_or_else(|| Error::invalid("NULL object name"))?;
            s.core.create(&s.conn().core, name, c_str(config)?)
        })
    }
}

unsafe extern "C" fn drop_(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated strings.
    unsafe {
        call(session, "WT_SESSION.drop", |s| {
            let name = c_str(name)?.ok_or_else(|| Error::invalid("NULL object name"))?;
            s.core.drop_object(&s.conn().core, name, c_str(config)?)
        })
    }
}

unsafe extern "C" fn reset(session: *mut WT_SESSION) -> c_int {
    // SAFETY: the application's live session.
    unsafe {
        call(session, "WT_SESSION.reset", |s| {
            let out = s.core.reset();
            free_stale(s);
            out
        })
    }
}

unsafe extern "C" fn begin_transaction(session: *mut WT_SESSION, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated string or NULL.
    unsafe { call(session, "WT_SESSION.begin_transaction", |s| s.core.begin_transaction(c_str(config)?)) }
}

unsafe extern "C" fn commit_transaction(session: *mut WT_SESSION, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated string or NULL.
    unsafe {
        call(session, "WT_SESSION.commit_transaction", |s| s.core.commit_transaction(c_config(config, &["sync=off", "sync=on"])?))
    }
}

unsafe extern "C" fn rollback_transaction(session: *mut WT_SESSION, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated string or NULL.
    unsafe { call(session, "WT_SESSION.rollback_transaction", |s| s.core.rollback_transaction(c_str(config)?)) }
}

unsafe extern "C" fn checkpoint(session: *mut WT_SESSION, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated string or NULL.
    unsafe { call(session, "WT_SESSION.checkpoint", |s| s.core.checkpoint(&s.conn().core, c_str(config)?)) }
}

unsafe extern "C" fn verify(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated strings.
    unsafe {
        call(session, "WT_SESSION.verify", |s| {
            let name = c_str(name)?.ok_or_else(|| Error::invalid("NULL object name"))?;
            s.core.verify(&s.conn().core, name, c_str(config)?)
        })
    }
}

unsafe extern "C" fn salvage(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated strings.
    unsafe {
        call(session, "WT_SESSION.salvage", |s| {
            let name = c_str(name)?.ok_or_else(|| Error::invalid("NULL object name"))?;
            s.core.salvage(&s.conn().core, name, c_str(config)?)
        })
    }
}

unsafe extern "C" fn alter(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated strings.
    unsafe {
        call(session, "WT_SESSION.alter", |s| {
            let name = c_str(name)?.ok_or_else(|| Error::invalid("NULL object name"))?;
            s.core.alter(&s.conn().core, name, c_str(config)?)
        })
    }
}

unsafe extern "C" fn truncate(
    session: *mut WT_SESSION,
    name: *const c_char,
    start: *mut WT_CURSOR,
    stop: *mut WT_CURSOR,
    config: *const c_char,
) -> c_int {
    // SAFETY: the application's live session, NUL-terminated strings, and NULL or open cursors.
    unsafe {
        call(session, "WT_SESSION.truncate", |s| {
            check_truncate_config(c_str(config)?)?;
            let name = c_str(name)?;
            if name.is_some() == (!start.is_null() || !stop.is_null()) {
                return Err(Error::invalid(
                    "the truncate method should be passed either a URI or start/stop cursors, but not both",
                ));
            }
            let what = match name {
                Some(uri) => Truncate::Object(uri),
                None => Truncate::Range { start: own_cursor(s, start)?, stop: own_cursor(s, stop)? },
            };
            s.core.truncate(&s.conn().core, what).map(drop)
        })
    }
}

/// The id of `cursor`, one of `session`'s open table cursors (NULL: none).
///
/// # Safety
/// `cursor` is NULL or an open cursor handle.
unsafe fn own_cursor(session: &mut SessionHandle, cursor: *mut WT_CURSOR) -> Result<Option<CursorId>> {
    let handle = cursor.cast::<CursorHandle>();
    if handle.is_null() {
        return Ok(None);
    }
    // SAFETY: per the contract, a live handle; its fields are read by value through the raw
    // pointer (no second reference to the session is made).
    let (owner, id, table_cursor) = unsafe { ((*handle).iface.session, (*handle).id, (*handle).core.is_some()) };
    if owner != session.as_ptr() {
        return Err(Error::invalid("truncate cursors must belong to the session"));
    }
    if !table_cursor {
        return Err(Error::invalid("truncate cursors must be table cursors"));
    }
    Ok(Some(id))
}

/// `truncate`'s configuration takes no keys the engine acts on: a syntax check.
fn check_truncate_config(config: Option<&str>) -> Result<()> {
    let mut parser = crate::config::Parser::new(config.unwrap_or(""));
    while let Some(pair) = parser.next_pair() {
        pair.map_err(Error::from)?;
    }
    Ok(())
}

unsafe extern "C" fn compact(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated strings.
    unsafe {
        call(session, "WT_SESSION.compact", |s| {
            let name = c_str(name)?.ok_or_else(|| Error::invalid("NULL object name"))?;
            s.core.compact(&s.conn().core, name, c_str(config)?)
        })
    }
}

unsafe extern "C" fn breakpoint(_session: *mut WT_SESSION) -> c_int {
    0
}

unsafe extern "C" fn get_rollback_reason(session: *mut WT_SESSION) -> *const c_char {
    guard("WT_SESSION.get_rollback_reason", std::ptr::null(), || {
        // SAFETY: the application passes an open session it does not use concurrently.
        let Some(s) = (unsafe { SessionHandle::from_ptr(session) }) else { return std::ptr::null() };
        // The one reason there is: a conflict (C needs a NUL-terminated copy of the text).
        s.core.rollback_reason().map_or(std::ptr::null(), |_| c"conflict between concurrent operations".as_ptr())
    })
}

unsafe extern "C" fn reset_snapshot(session: *mut WT_SESSION) -> c_int {
    // SAFETY: the application's live session.
    unsafe { call(session, "WT_SESSION.reset_snapshot", |s| s.core.reset_snapshot()) }
}

unsafe extern "C" fn transaction_pinned_range(session: *mut WT_SESSION, range: *mut u64) -> c_int {
    // SAFETY: the application's live session and out-pointer (checked).
    unsafe {
        call(session, "WT_SESSION.transaction_pinned_range", |s| {
            if range.is_null() {
                return Err(Error::invalid("NULL range pointer"));
            }
            *range = s.core.transaction_pinned_range();
            Ok(())
        })
    }
}

unsafe extern "C" fn log_flush(session: *mut WT_SESSION, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated string or NULL.
    unsafe { call(session, "WT_SESSION.log_flush", |s| s.core.log_flush(&s.conn().core, c_str(config)?)) }
}

/// `WT_SESSION::log_printf` once the shim formatted the message.
#[no_mangle]
pub unsafe extern "C" fn __unlatched_session_log_printf(session: *mut WT_SESSION, text: *const c_char) -> c_int {
    // SAFETY: the shim passes the application's live session and the text it formatted.
    unsafe {
        call(session, "WT_SESSION.log_printf", |s| {
            let text = c_str(text)?.ok_or_else(|| Error::invalid("NULL format"))?;
            s.core.log_printf(text)
        })
    }
}

/// Copies a hexadecimal timestamp (at most 16 digits) and its NUL into `dst`, a buffer of at
/// least 17 bytes (`WT_TS_HEX_STRING_SIZE`).
///
/// # Safety
/// `dst` is NULL or points to at least 17 writable bytes.
pub unsafe fn write_hex(dst: *mut c_char, text: &str) -> Result<()> {
    if dst.is_null() {
        return Err(Error::invalid("NULL timestamp buffer"));
    }
    let bytes = text.as_bytes();
    debug_assert!(bytes.len() <= 16);
    // SAFETY: the caller's buffer holds 17 bytes; `bytes` is at most 16 long plus the NUL.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), dst, bytes.len());
        *dst.add(bytes.len()) = 0;
    }
    Ok(())
}

unsafe extern "C" fn prepare_transaction(session: *mut WT_SESSION, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated string or NULL.
    unsafe { call(session, "WT_SESSION.prepare_transaction", |s| s.core.prepare_transaction(c_str(config)?)) }
}

unsafe extern "C" fn timestamp_transaction(session: *mut WT_SESSION, config: *const c_char) -> c_int {
    // SAFETY: the application's live session and NUL-terminated string or NULL.
    unsafe { call(session, "WT_SESSION.timestamp_transaction", |s| s.core.timestamp_transaction(c_str(config)?)) }
}

unsafe extern "C" fn timestamp_transaction_uint(session: *mut WT_SESSION, which: WT_TS_TXN_TYPE, ts: u64) -> c_int {
    let kind = match which {
        0 => TimestampKind::Commit,
        1 => TimestampKind::Durable,
        2 => TimestampKind::Prepare,
        3 => TimestampKind::Read,
        _ => TimestampKind::Read,
    };
    // SAFETY: the application's live session.
    unsafe {
        call(session, "WT_SESSION.timestamp_transaction_uint", |s| {
            if !(0..=3).contains(&which) {
                return Err(Error::invalid(format!("unknown timestamp type {which}")));
            }
            s.core.timestamp_transaction_uint(kind, ts)
        })
    }
}

unsafe extern "C" fn query_timestamp(session: *mut WT_SESSION, hex: *mut c_char, config: *const c_char) -> c_int {
    // SAFETY: the application's live session, a buffer of at least 17 bytes, and a
    // NUL-terminated string or NULL.
    unsafe {
        call(session, "WT_SESSION.query_timestamp", |s| {
            let text = s.core.query_timestamp(c_str(config)?)?;
            write_hex(hex, &text)
        })
    }
}

/// The method table of sessions.
fn vtable() -> WT_SESSION {
    WT_SESSION {
        connection: std::ptr::null_mut(),
        app_private: std::ptr::null_mut(),
        close: Some(session_close),
        reconfigure: Some(reconfigure),
        strerror: Some(session_strerror),
        open_cursor: Some(open_cursor),
        alter: Some(alter),
        bind_configuration: Some(__ul_shim_bind_configuration),
        create: Some(create),
        compact: Some(compact),
        drop: Some(drop_),
        join: Some(join),
        log_flush: Some(log_flush),
        log_printf: Some(__ul_shim_log_printf),
        rename: Some(rename),
        reset: Some(reset),
        salvage: Some(salvage),
        truncate: Some(truncate),
        verify: Some(verify),
        begin_transaction: Some(begin_transaction),
        commit_transaction: Some(commit_transaction),
        prepare_transaction: Some(prepare_transaction),
        rollback_transaction: Some(rollback_transaction),
        query_timestamp: Some(query_timestamp),
        timestamp_transaction: Some(timestamp_transaction),
        timestamp_transaction_uint: Some(timestamp_transaction_uint),
        checkpoint: Some(checkpoint),
        reset_snapshot: Some(reset_snapshot),
        transaction_pinned_range: Some(transaction_pinned_range),
        get_rollback_reason: Some(get_rollback_reason),
        breakpoint: Some(breakpoint),
    }
}
