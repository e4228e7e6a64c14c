//! `WT_CURSOR` methods: convert, delegate to the session core, map the result.

use std::ffi::CString;

use libc::{c_char, c_int};

use crate::error::{code, Error, Result};
use crate::cursor::{BoundAction, Modification};
use crate::session::{Closed, CursorId, QuickClose};

use super::boundary::{fail, guard};
use super::diagnostic;
use super::handles::{c_str, CursorHandle, SessionHandle};
use super::shim::{UlPlan, __ul_shim_get_key, __ul_shim_get_value, __ul_shim_set_key, __ul_shim_set_value};
use super::events::Events;
use super::types::{WT_CURSOR, WT_ITEM, WT_MODIFY, WT_SESSION};

/// Runs a cursor method: finds the session and cursor, runs `body`, reports errors.
unsafe fn call(cursor: *mut WT_CURSOR, api: &str, body: impl FnOnce(&mut SessionHandle, CursorId) -> Result<()>) -> c_int {
    // SAFETY: as this function's.
    unsafe { call_on(cursor, api, true, body) }
}

/// [`call`] for the paths of `close`, which run on a cursor already closed into the cache (the
/// finisher) or closed twice (an error of its own): `open` false skips the `diagnostic` check
/// that the cursor is open.
unsafe fn call_on(
    cursor: *mut WT_CURSOR,
    api: &str,
    open: bool,
    body: impl FnOnce(&mut SessionHandle, CursorId) -> Result<()>,
) -> c_int {
    // SAFETY: the application passes a cursor handle or NULL.
    let _call = match unsafe { diagnostic::cursor_call(cursor, api, open) } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    guard(api, code::WT_PANIC, || {
        // SAFETY: the application passes an open cursor (NULL is rejected below).
        let Some((session, id)) = (unsafe { CursorHandle::parts(cursor) }) else { return code::EINVAL };
        match body(session, id) {
            Ok(()) => 0,
            Err(e) => {
                // Inside a transaction, a failed cursor call dooms it (unless WT_NOTFOUND or
                // WT_DUPLICATE_KEY).
                session.core.note_error(&e);
                report(session, &e, api)
            }
        }
    })
}

/// Reports an error of a session's call; quiet errors (WT_NOTFOUND, …) cost nothing.
pub fn report(session: &mut SessionHandle, e: &Error, api: &str) -> c_int {
    if e.messages().next().is_none() {
        return e.code();
    }
    let prefix = session.conn().core.error_prefix();
    let events = session.events;
    fail(e, events, session.as_ptr(), &prefix, api)
}

/// Reports an error of a library function that takes a session or NULL: through the session's
/// handler, else through `fallback` (the default handler, or one the application passed).
///
/// # Safety
/// `session` is NULL or a live session the caller's thread may use.
pub unsafe fn report_to(session: *mut WT_SESSION, fallback: Events, e: &Error, api: &str) -> c_int {
    // SAFETY: per the contract.
    match unsafe { SessionHandle::from_ptr(session) } {
        Some(handle) => report(handle, e, api),
        None => fail(e, fallback, session, "", api),
    }
}

/// Builds the handle of a newly opened core cursor.
pub fn new_handle(session: &mut SessionHandle, id: CursorId, uri: CString) -> *mut WT_CURSOR {
    let mut handle = Box::new(CursorHandle {
        iface: vtable(),
        key_plan: UlPlan::raw(),
        value_plan: UlPlan::raw(),
        id,
        core: Some(session.core.cursor_addresses(id).0),
        entry: Some(session.core.cursor_addresses(id).1),
        uri,
        #[cfg(feature = "diagnostic")]
        closed: false,
        key_int: None,
        value_int: None,
        raw: false,
        stats: None,
        schema: None,
        listing: None,
    });
    init_iface(session, &mut handle);
    let raw = Box::into_raw(handle);
    if session.cursors.len() <= id.0 {
        session.cursors.resize(id.0 + 1, std::ptr::null_mut());
    }
    session.cursors[id.0] = raw;
    // SAFETY: `raw` was just made from a Box; its first field is the public struct.
    unsafe { &mut (*raw).iface }
}

/// Fills the public struct of `handle` (whose URI and core cursor are set) as a new cursor's.
fn init_iface(session: &mut SessionHandle, handle: &mut CursorHandle) {
    let cursor = session.core.cursor(handle.id);
    let table = cursor.table();
    handle.iface = vtable();
    handle.fit(cursor);
    if cursor.config().next_random {
        restrict_to_random(&mut handle.iface);
    }
    handle.iface.uri = handle.uri.as_ptr();
    handle.iface.key_format = table.key_format_c().as_ptr();
    handle.iface.value_format = table.value_format_c().as_ptr();
    handle.iface.session = session.as_ptr();
}

/// The handle of a cursor made from a spare (`Opened::spare`): the one the spare kept. A spare
/// was a cached cursor, so its handle is as a handle taken from the cache would be (same
/// session, URI and formats; never restricted to `next_random`): it is refitted as one is,
/// and made anew only for a `next_random` cursor.
pub fn renew_handle(session: &mut SessionHandle, id: CursorId) -> *mut WT_CURSOR {
    let raw = session.cursor_handle(id);
    // SAFETY: the live handle of the spare, which only this session (its thread) reaches.
    let handle = unsafe { &mut *raw };
    let cursor = session.core.cursor(id);
    if cursor.config().next_random {
        init_iface(session, handle);
    } else {
        handle.refit(cursor);
    }
    // SAFETY: as above.
    unsafe {
        diagnostic::set_closed(&mut handle.iface, false);
    }
    &mut handle.iface
}

/// Frees the handle of a cursor the core has closed.
pub fn free_handle(session: &mut SessionHandle, id: CursorId) {
    let Some(slot) = session.cursors.get_mut(id.0) else { return };
    let raw = std::mem::replace(slot, std::ptr::null_mut());
    if !raw.is_null() {
        // SAFETY: made by `Box::into_raw` in `new_handle`, and removed from the table above.
        drop(unsafe { Box::from_raw(raw) });
    }
}

unsafe extern "C" fn next(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { call(cursor, "WT_CURSOR.next", |s, id| s.core.next(id)) }
}

unsafe extern "C" fn prev(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { call(cursor, "WT_CURSOR.prev", |s, id| s.core.prev(id)) }
}

unsafe extern "C" fn reset(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe {
        call(cursor, "WT_CURSOR.reset", |s, id| {
            s.core.reset_cursor(id);
            Ok(())
        })
    }
}

unsafe extern "C" fn search(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: the application passes a cursor handle or NULL.
    let _call = match unsafe { diagnostic::cursor_call(cursor, "WT_CURSOR.search", true) } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    // The common case first: a key found in the read view the session holds. Nothing in it can
    // panic or fail; it changes nothing when it does not find the key.
    // SAFETY: C calls this slot with its own open cursor (API contract); the cursor reference
    // ends with this block, before the general path reaches the cursor through the session.
    if let Some((s, _, c)) = unsafe { CursorHandle::core_parts(cursor) } {
        if s.core.search_quick(c) {
            return 0;
        }
    }
    // SAFETY: as above.
    unsafe { search_slow(cursor) }
}

/// `search` under the full rules.
#[inline(never)]
unsafe fn search_slow(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { call(cursor, "WT_CURSOR.search", |s, id| s.core.search(id)) }
}

unsafe extern "C" fn search_near(cursor: *mut WT_CURSOR, exactp: *mut c_int) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe {
        call(cursor, "WT_CURSOR.search_near", |s, id| {
            if exactp.is_null() {
                return Err(Error::invalid("NULL exact pointer"));
            }
            let exact = s.core.search_near(id)?;
            // SAFETY: checked non-NULL; the application's out-parameter.
            *exactp = exact;
            Ok(())
        })
    }
}

unsafe extern "C" fn insert(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { call(cursor, "WT_CURSOR.insert", |s, id| s.core.insert(id)) }
}

unsafe extern "C" fn update(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { call(cursor, "WT_CURSOR.update", |s, id| s.core.update(id)) }
}

unsafe extern "C" fn remove(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { call(cursor, "WT_CURSOR.remove", |s, id| s.core.remove(id)) }
}

unsafe extern "C" fn reconfigure(cursor: *mut WT_CURSOR, config: *const c_char) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe {
        call(cursor, "WT_CURSOR.reconfigure", |s, id| {
            // SAFETY: the application's NUL-terminated string or NULL.
            let config = c_str(config)?;
            s.core.reconfigure_cursor(id, config)
        })
    }
}

unsafe extern "C" fn close(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: the application passes a cursor handle or NULL.
    let _call = match unsafe { diagnostic::cursor_call(cursor, "WT_CURSOR.close", false) } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    // The common case: parked in the cache. It calls nothing and cannot panic, so it needs no
    // unwinding guard and no stack frame; the rest are tail calls.
    // SAFETY: C calls this slot with its own open cursor (or NULL, refused here).
    let quick = match unsafe { CursorHandle::entry_parts(cursor) } {
        Some((s, id, entry)) => s.core.close_cursor_quick(id, entry),
        None => QuickClose::No,
    };
    if quick != QuickClose::No {
        // SAFETY: the live handle just parked.
        unsafe { diagnostic::set_closed(cursor, true) };
    }
    match quick {
        QuickClose::Done => 0,
        // SAFETY: as above.
        QuickClose::Finish => unsafe { close_finish(cursor) },
        // SAFETY: as above.
        QuickClose::No => unsafe { close_slow(cursor) },
    }
}

/// What a quick close left to do.
#[inline(never)]
unsafe extern "C" fn close_finish(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: the cursor handle `close` was called with (just parked, so its session is live).
    unsafe {
        call_on(cursor, "WT_CURSOR.close", false, |s, _| {
            s.core.close_finish();
            super::session::free_stale(s);
            Ok(())
        })
    }
}

/// `close` when parking in the cache is not all there is to do (not cacheable, not caching, a
/// sweep due, closed twice, NULL).
#[inline(never)]
unsafe extern "C" fn close_slow(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe {
        call_on(cursor, "WT_CURSOR.close", false, |s, id| {
            match s.core.close_cursor(id)? {
                Closed::Freed => free_handle(s, id),
                // SAFETY: the cursor's live handle, parked.
                Closed::Cached => diagnostic::set_closed(cursor, true),
            }
            super::session::free_stale(s);
            Ok(())
        })
    }
}

/// `compare` and `equals`: both cursors' keys, compared bytewise.
unsafe fn compare_keys(cursor: *mut WT_CURSOR, other: *mut WT_CURSOR, api: &str) -> Result<std::cmp::Ordering, c_int> {
    // The other cursor may belong to another session: copy its key out before borrowing ours.
    // Its table is kept as an address for the identity check: cloning the `Arc` would bump a
    // reference count every thread using the table writes.
    let other_key = guard(api, Err(code::WT_PANIC), || {
        // SAFETY: the application passes an open cursor or NULL.
        match unsafe { CursorHandle::parts(other) } {
            Some((s, id)) => Ok(Some((s.core.cursor(id).key_bytes().map(<[u8]>::to_vec), std::sync::Arc::as_ptr(s.core.cursor(id).table())))),
            None => Ok(None),
        }
    })?;
    let mut ordering = Err(code::EINVAL);
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    let rc = unsafe {
        call(cursor, api, |s, id| {
            let (other_key, other_table) = other_key.ok_or_else(|| Error::invalid("NULL cursor"))?;
            let mine = s.core.cursor(id);
            if !std::ptr::eq(std::sync::Arc::as_ptr(mine.table()), other_table) {
                return Err(Error::invalid("cursors must reference the same object"));
            }
            ordering = Ok(s.core.compare_key(id, &other_key?)?);
            Ok(())
        })
    };
    if rc != 0 {
        return Err(rc);
    }
    ordering
}

unsafe extern "C" fn compare(cursor: *mut WT_CURSOR, other: *mut WT_CURSOR, comparep: *mut c_int) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    match unsafe { compare_keys(cursor, other, "WT_CURSOR.compare") } {
        Ok(o) if !comparep.is_null() => {
            // SAFETY: checked non-NULL; the application's out-parameter.
            unsafe { *comparep = o as c_int };
            0
        }
        Ok(_) => code::EINVAL,
        Err(rc) => rc,
    }
}

unsafe extern "C" fn equals(cursor: *mut WT_CURSOR, other: *mut WT_CURSOR, equalp: *mut c_int) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    match unsafe { compare_keys(cursor, other, "WT_CURSOR.equals") } {
        Ok(o) if !equalp.is_null() => {
            // SAFETY: checked non-NULL; the application's out-parameter.
            unsafe { *equalp = c_int::from(o.is_eq()) };
            0
        }
        Ok(_) => code::EINVAL,
        Err(rc) => rc,
    }
}

unsafe extern "C" fn get_raw_key_value(cursor: *mut WT_CURSOR, key: *mut WT_ITEM, value: *mut WT_ITEM) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe {
        call(cursor, "WT_CURSOR.get_raw_key_value", |s, id| {
            let c = s.core.cursor(id);
            if !key.is_null() {
                let k = c.key_bytes()?;
                (*key).data = k.as_ptr().cast();
                (*key).size = k.len();
            }
            if !value.is_null() {
                let v = c.value_bytes()?;
                (*value).data = v.as_ptr().cast();
                (*value).size = v.len();
            }
            Ok(())
        })
    }
}

/// Methods a later issue implements: `ENOTSUP` with a message naming them.
unsafe fn not_yet(cursor: *mut WT_CURSOR, api: &str) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { call(cursor, api, |_, _| Err(Error::unsupported(format!("{api} is not supported yet")))) }
}

unsafe extern "C" fn modify(cursor: *mut WT_CURSOR, entries: *mut WT_MODIFY, nentries: c_int) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract):
    // `entries` holds `nentries` modifications whose data are readable.
    unsafe {
        call(cursor, "WT_CURSOR.modify", |s, id| {
            let n = usize::try_from(nentries).unwrap_or(0);
            if n > 0 && entries.is_null() {
                return Err(Error::invalid("NULL modify vector"));
            }
            let raw: &[WT_MODIFY] = if n == 0 { &[] } else { std::slice::from_raw_parts(entries, n) };
            let mut mods = Vec::with_capacity(n);
            for m in raw {
                if m.data.data.is_null() && m.data.size != 0 {
                    return Err(Error::invalid("modify entry with NULL data"));
                }
                let data: &[u8] =
                    if m.data.size == 0 { &[] } else { std::slice::from_raw_parts(m.data.data.cast::<u8>(), m.data.size) };
                mods.push(Modification { data, offset: m.offset, size: m.size });
            }
            s.core.modify(id, &mods)
        })
    }
}

unsafe extern "C" fn reserve(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { call(cursor, "WT_CURSOR.reserve", |s, id| s.core.reserve(id)) }
}

unsafe extern "C" fn largest_key(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { call(cursor, "WT_CURSOR.largest_key", |s, id| s.core.largest_key(id)) }
}

unsafe extern "C" fn bound(cursor: *mut WT_CURSOR, config: *const c_char) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe {
        call(cursor, "WT_CURSOR.bound", |s, id| {
            let action = BoundAction::parse(c_str(config)?)?;
            s.core.bound(id, action)
        })
    }
}

unsafe extern "C" fn cache(cursor: *mut WT_CURSOR) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { not_yet(cursor, "WT_CURSOR.cache") }
}

unsafe extern "C" fn reopen(cursor: *mut WT_CURSOR, _check_only: bool) -> c_int {
    // SAFETY: C calls this slot with its own open cursor and valid arguments (API contract).
    unsafe { not_yet(cursor, "WT_CURSOR.reopen") }
}

unsafe extern "C" fn checkpoint_id(_cursor: *mut WT_CURSOR) -> u64 {
    0
}

/// A `next_random` cursor only samples: the reference answers every positioning or writing
/// method but `next` and `reset` with `ENOTSUP`, so the methods are replaced once, at open
/// (the cursor is never cached, so its handle never serves another configuration).
fn restrict_to_random(iface: &mut WT_CURSOR) {
    macro_rules! notsup {
        ($name:ident, $api:literal) => {
            unsafe extern "C" fn $name(cursor: *mut WT_CURSOR) -> c_int {
                // SAFETY: C calls this slot with its own open cursor (API contract).
                unsafe { call(cursor, $api, |_, _| Err(random_only())) }
            }
        };
    }
    notsup!(insert_notsup, "WT_CURSOR.insert");
    notsup!(update_notsup, "WT_CURSOR.update");
    notsup!(remove_notsup, "WT_CURSOR.remove");
    notsup!(reserve_notsup, "WT_CURSOR.reserve");
    notsup!(search_notsup, "WT_CURSOR.search");
    notsup!(prev_notsup, "WT_CURSOR.prev");
    unsafe extern "C" fn search_near_notsup(cursor: *mut WT_CURSOR, _exactp: *mut c_int) -> c_int {
        // SAFETY: as `notsup`.
        unsafe { call(cursor, "WT_CURSOR.search_near", |_, _| Err(random_only())) }
    }
    unsafe extern "C" fn compare_notsup(cursor: *mut WT_CURSOR, _other: *mut WT_CURSOR, _cmp: *mut c_int) -> c_int {
        // SAFETY: as `notsup`.
        unsafe { call(cursor, "WT_CURSOR.compare", |_, _| Err(random_only())) }
    }
    unsafe extern "C" fn bound_notsup(cursor: *mut WT_CURSOR, _config: *const c_char) -> c_int {
        // SAFETY: as `notsup`.
        unsafe { call(cursor, "WT_CURSOR.bound", |_, _| Err(random_only())) }
    }
    iface.insert = Some(insert_notsup);
    iface.update = Some(update_notsup);
    iface.remove = Some(remove_notsup);
    iface.reserve = Some(reserve_notsup);
    iface.search = Some(search_notsup);
    iface.prev = Some(prev_notsup);
    iface.search_near = Some(search_near_notsup);
    iface.compare = Some(compare_notsup);
    iface.bound = Some(bound_notsup);
}

#[cold]
fn random_only() -> Error {
    Error::unsupported("Unsupported cursor operation: next_random cursors only support next, reset and close")
}

/// The method table of table cursors.
pub fn vtable() -> WT_CURSOR {
    WT_CURSOR {
        session: std::ptr::null_mut(),
        uri: std::ptr::null(),
        key_format: std::ptr::null(),
        value_format: std::ptr::null(),
        get_key: Some(__ul_shim_get_key),
        get_value: Some(__ul_shim_get_value),
        get_raw_key_value: Some(get_raw_key_value),
        set_key: Some(__ul_shim_set_key),
        set_value: Some(__ul_shim_set_value),
        compare: Some(compare),
        equals: Some(equals),
        next: Some(next),
        prev: Some(prev),
        reset: Some(reset),
        search: Some(search),
        search_near: Some(search_near),
        insert: Some(insert),
        modify: Some(modify),
        update: Some(update),
        remove: Some(remove),
        reserve: Some(reserve),
        checkpoint_id: Some(checkpoint_id),
        close: Some(close),
        largest_key: Some(largest_key),
        reconfigure: Some(reconfigure),
        bound: Some(bound),
        cache: Some(cache),
        reopen: Some(reopen),
        uri_hash: 0,
        q: super::types::__wt_cursor_q { tqe_next: std::ptr::null_mut(), tqe_prev: std::ptr::null_mut() },
        recno: 0,
        raw_recno_buf: [0; 9],
        json_private: std::ptr::null_mut(),
        lang_private: std::ptr::null_mut(),
        key: empty_item(),
        value: empty_item(),
        saved_err: 0,
        internal_uri: std::ptr::null(),
        lower_bound: empty_item(),
        upper_bound: empty_item(),
        flags: 0,
    }
}

pub(super) fn empty_item() -> WT_ITEM {
    WT_ITEM { data: std::ptr::null(), size: 0, mem: std::ptr::null_mut(), memsize: 0, flags: 0 }
}
