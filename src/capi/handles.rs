//! The handles given to C: each embeds its public struct as the first member, so a public
//! pointer converts to the handle here, in one audited place.

use std::ffi::{CStr, CString};
use std::ptr::NonNull;
use std::sync::atomic::AtomicPtr;

use crossbeam_utils::CachePadded;
use libc::c_char;

use crate::conn::Connection;
use crate::cursor::Cursor;
use crate::pack::{CArg, FieldKind};
use crate::session::{CursorId, Entry, Session};

use super::events::Events;
use super::shim::UlPlan;
use super::types::{WT_CONNECTION, WT_CURSOR, WT_SESSION};

/// A connection handle.
#[repr(C)]
pub struct ConnectionHandle {
    pub iface: WT_CONNECTION,
    pub core: Connection,
    pub events: Events,
    /// The session of each slot, open or closed (its memory kept for the next session of the
    /// slot), so that `close` can close what the application left and free them all. Written
    /// only by the slot's claimant.
    pub sessions: Box<[CachePadded<AtomicPtr<SessionHandle>>]>,
    /// The table `get_extension_api` returns, made at its first call.
    pub extension_api: std::sync::OnceLock<Box<super::extension_api::ExtensionApi>>,
}

/// A session handle. Aligned to its own cache lines (it stays with its slot, reused by the
/// sessions opened there, and no other allocation may share a line its owner writes).
#[repr(C, align(128))]
pub struct SessionHandle {
    pub iface: WT_SESSION,
    pub core: Session,
    pub events: Events,
    /// Cursor handles by `CursorId`, parallel to the core's cursor set.
    pub cursors: Vec<*mut CursorHandle>,
    /// Open `statistics:`, `log:`, `metadata:` and checkpoint cursor handles (not in the
    /// core's cursor set).
    pub stats_cursors: Vec<*mut CursorHandle>,
    /// Open schema cursor handles (their internal cursors are in the core's cursor set).
    pub schema_cursors: Vec<*mut CursorHandle>,
    /// Text for `WT_SESSION::strerror` of codes without a static text.
    pub strerror_buf: CString,
    /// Reused buffer for packing keys and values.
    pub scratch: Vec<u8>,
    /// The thread inside a call on this session, 0 for none (`diagnostic` checks).
    #[cfg(feature = "diagnostic")]
    pub busy: std::sync::atomic::AtomicUsize,
}

/// A cursor handle. The plans follow the public struct because the C shim reads them there.
/// Aligned to its own cache lines, like the session's.
#[repr(C, align(128))]
pub struct CursorHandle {
    pub iface: WT_CURSOR,
    pub key_plan: UlPlan,
    pub value_plan: UlPlan,
    pub id: CursorId,
    /// The core cursor `id` names, at its fixed address (None for `statistics:` cursors): the
    /// per-call fast paths reach it without going through the session. Valid as long as this
    /// handle: the core frees a cursor only together with its handle.
    pub core: Option<NonNull<Cursor>>,
    /// The session's entry for that cursor, likewise (None for `statistics:` cursors): `close`
    /// parks the cursor through it.
    pub entry: Option<NonNull<Entry>>,
    /// The key's one integer field, when the key format is a single integer: `set_key` and
    /// `get_key` then move that integer without the general packing path.
    pub key_int: Option<FieldKind>,
    /// The value's one integer field, likewise.
    pub value_int: Option<FieldKind>,
    /// Whether the plans are those of a `raw` cursor.
    pub raw: bool,
    /// A `statistics:` cursor's state (its `id` then names no session cursor).
    pub stats: Option<Box<crate::session::StatsCursor>>,
    /// A schema cursor's state (`index:`, projections, tables with column groups or indices;
    /// its `id` then names no session cursor either).
    pub schema: Option<Box<crate::session::SchemaCursor>>,
    /// A `log:`, `metadata:` or checkpoint cursor's rows (its `id` then names no session
    /// cursor).
    pub listing: Option<Box<crate::cursor::listing::Listing>>,
    /// The URI exactly as the application passed it (`WT_CURSOR::uri`).
    pub uri: CString,
    /// Closed by the application (parked in the session's cache; `diagnostic` checks).
    #[cfg(feature = "diagnostic")]
    pub closed: bool,
}

/// The plan of a raw cursor: one `WT_ITEM` holding packed bytes.
static RAW_PLAN: [CArg; 1] = [CArg::Item];

impl UlPlan {
    /// The plan for `cargs`.
    pub fn of(cargs: &[CArg]) -> UlPlan {
        UlPlan { kinds: cargs.as_ptr().cast(), n: cargs.len() }
    }

    /// The plan of raw cursors.
    pub fn raw() -> UlPlan {
        UlPlan::of(&RAW_PLAN)
    }
}

impl ConnectionHandle {
    /// The handle of a `WT_CONNECTION *`, or None for NULL.
    ///
    /// # Safety
    /// `conn` must be NULL or a connection returned by `wiredtiger_open` and not yet closed.
    pub unsafe fn from_ptr<'a>(conn: *mut WT_CONNECTION) -> Option<&'a ConnectionHandle> {
        // SAFETY: per the contract, a non-NULL pointer is the first field of a live
        // `ConnectionHandle` (repr(C)); connections are shared, so only `&` is handed out.
        unsafe { conn.cast::<ConnectionHandle>().as_ref() }
    }
}

impl SessionHandle {
    /// The handle of a `WT_SESSION *`, or None for NULL.
    ///
    /// # Safety
    /// `session` must be NULL or an open session, used by no other thread during the call
    /// (the API's threading rule), with no other reference to it alive.
    pub unsafe fn from_ptr<'a>(session: *mut WT_SESSION) -> Option<&'a mut SessionHandle> {
        // SAFETY: per the contract the pointer is the first field of a live, unaliased
        // `SessionHandle` (repr(C)).
        unsafe { session.cast::<SessionHandle>().as_mut() }
    }

    /// The session's connection. The borrow is not tied to the session: the connection
    /// outlives every session it opened.
    pub fn conn<'a>(&self) -> &'a ConnectionHandle {
        // SAFETY: `iface.connection` is set at open to the owning connection, which closes its
        // sessions before it is freed.
        unsafe { &*self.iface.connection.cast::<ConnectionHandle>() }
    }

    /// This session's public pointer.
    pub fn as_ptr(&mut self) -> *mut WT_SESSION {
        &mut self.iface
    }

    /// The cursor handle of `id`.
    pub fn cursor_handle(&self, id: CursorId) -> *mut CursorHandle {
        self.cursors[id.0]
    }
}

impl CursorHandle {
    /// The handle of a cursor with no session cursor behind it (statistics, schema and listing
    /// cursors): method table `iface`, API formats `key` and `value`; the caller sets the one
    /// state field of its kind.
    pub fn detached(mut iface: WT_CURSOR, key: &[CArg], value: &[CArg], uri: CString) -> CursorHandle {
        // The string's bytes are on the heap: the pointer holds wherever the handle moves.
        iface.uri = uri.as_ptr();
        CursorHandle {
            iface,
            key_plan: UlPlan::of(key),
            value_plan: UlPlan::of(value),
            id: CursorId(usize::MAX),
            uri,
            // The shim's integer fast path is for table cursors only.
            key_int: None,
            value_int: None,
            raw: false,
            stats: None,
            schema: None,
            listing: None,
            core: None,
            entry: None,
            #[cfg(feature = "diagnostic")]
            closed: false,
        }
    }

    /// Gives a detached handle to `session`: files it in `list` (the session's handles of its
    /// kind, freed at close) and returns the public struct, which lives until `close`.
    pub fn file_in(mut self: Box<Self>, session: &mut SessionHandle, list: fn(&mut SessionHandle) -> &mut Vec<*mut CursorHandle>) -> *mut WT_CURSOR {
        self.iface.session = session.as_ptr();
        let raw = Box::into_raw(self);
        list(session).push(raw);
        // SAFETY: the Box's first field is the public struct; the handle lives until `close`.
        unsafe { &mut (*raw).iface }
    }

    /// Fits the argument plans and integer fast paths to `cursor`'s API formats (at open, and
    /// when a cached cursor is reopened with another `raw` setting).
    pub fn fit(&mut self, cursor: &Cursor) {
        let (key_cargs, value_cargs) = if cursor.config().raw {
            (&RAW_PLAN[..], &RAW_PLAN[..])
        } else {
            let table = cursor.table();
            (table.key_format().cargs(), table.value_format().cargs())
        };
        (self.key_plan, self.value_plan) = (UlPlan::of(key_cargs), UlPlan::of(value_cargs));
        // The integer paths take one field whose C argument is 32 or 64 bits wide (`i`, `l`,
        // `q`, `Q`, `r`); they store 32 bits for the signed 32-bit kind, else 64.
        let int_field = |cargs: &[CArg], kind: Option<FieldKind>| {
            kind.filter(|_| matches!(cargs, [CArg::I32 | CArg::I64 | CArg::U64]))
        };
        self.key_int = int_field(key_cargs, cursor.key_int_kind());
        self.value_int = int_field(value_cargs, cursor.value_int_kind());
        // One-integer keys and values take the shim's integer entry points, the setter by the
        // C type of the argument.
        use super::shim::*;
        type Set = unsafe extern "C" fn(*mut WT_CURSOR, ...);
        type Get = unsafe extern "C" fn(*mut WT_CURSOR, ...) -> libc::c_int;
        let (set_key, get_key): (Set, Get) = match (self.key_int, key_cargs) {
            (Some(_), [CArg::I32]) => (__ul_shim_set_key_i32, __ul_shim_get_key_int),
            (Some(_), [CArg::I64]) => (__ul_shim_set_key_i64, __ul_shim_get_key_int),
            (Some(_), _) => (__ul_shim_set_key_u64, __ul_shim_get_key_int),
            (None, _) => (__ul_shim_set_key, __ul_shim_get_key),
        };
        let (set_value, get_value): (Set, Get) = match (self.value_int, value_cargs) {
            (Some(_), [CArg::I32]) => (__ul_shim_set_value_i32, __ul_shim_get_value_int),
            (Some(_), [CArg::I64]) => (__ul_shim_set_value_i64, __ul_shim_get_value_int),
            (Some(_), _) => (__ul_shim_set_value_u64, __ul_shim_get_value_int),
            (None, _) => (__ul_shim_set_value, __ul_shim_get_value),
        };
        self.iface.set_key = Some(set_key);
        self.iface.get_key = Some(get_key);
        self.iface.set_value = Some(set_value);
        self.iface.get_value = Some(get_value);
        self.raw = cursor.config().raw;
    }

    /// [`fit`](Self::fit) for a cursor reopened from the cache: only `raw` can have changed.
    #[inline]
    pub fn refit(&mut self, cursor: &Cursor) {
        if self.raw != cursor.config().raw {
            self.fit(cursor);
        }
    }

    /// The core cursor of a `WT_CURSOR *` and the kind of its one-integer key (when `key`) or
    /// value, for the integer fast paths; None when they do not apply (NULL, a statistics
    /// cursor, another format). Reads the handle only.
    ///
    /// # Safety
    /// `cursor` must be NULL or an open cursor whose session no other thread uses during the
    /// call, and no other reference to its core cursor may be alive while the result is.
    #[inline(always)]
    pub unsafe fn core_int<'a>(cursor: *mut WT_CURSOR, key: bool) -> Option<(&'a mut Cursor, FieldKind)> {
        let handle = cursor.cast::<CursorHandle>();
        if handle.is_null() {
            return None;
        }
        // SAFETY: a live cursor handle; the fields are read by value through the raw pointer.
        let (core, kind) = unsafe { ((*handle).core, if key { (*handle).key_int } else { (*handle).value_int }) };
        // SAFETY: `core` lives as long as the handle (see the field), and per the contract no
        // other reference to it is alive.
        Some((unsafe { &mut *core?.as_ptr() }, kind?))
    }

    /// The core cursor of a `WT_CURSOR *` with its session and id, for fast paths that need
    /// both; None for NULL and statistics cursors.
    ///
    /// # Safety
    /// As [`core_int`](Self::core_int); the session reference must not be used to reach the
    /// cursor while the cursor reference is alive.
    #[inline(always)]
    pub unsafe fn core_parts<'a>(cursor: *mut WT_CURSOR) -> Option<(&'a mut SessionHandle, CursorId, &'a mut Cursor)> {
        // SAFETY: per the contract.
        unsafe { Self::pinned_parts(cursor, |h| (*h).core) }
    }

    /// The session, id and session entry of a `WT_CURSOR *`, for `close`'s fast path; None for
    /// NULL and statistics cursors.
    ///
    /// # Safety
    /// As [`core_parts`](Self::core_parts), for the entry.
    #[inline(always)]
    pub unsafe fn entry_parts<'a>(cursor: *mut WT_CURSOR) -> Option<(&'a mut SessionHandle, CursorId, &'a mut Entry)> {
        // SAFETY: per the contract.
        unsafe { Self::pinned_parts(cursor, |h| (*h).entry) }
    }

    /// The session and id of a `WT_CURSOR *` with the target of one of its pinned pointers,
    /// which `pick` reads from the handle (by value, through the raw pointer).
    ///
    /// # Safety
    /// As [`core_parts`](Self::core_parts), for what `pick` points at.
    #[inline(always)]
    unsafe fn pinned_parts<'a, T>(
        cursor: *mut WT_CURSOR,
        pick: impl FnOnce(*const CursorHandle) -> Option<NonNull<T>>,
    ) -> Option<(&'a mut SessionHandle, CursorId, &'a mut T)> {
        let handle = cursor.cast::<CursorHandle>();
        if handle.is_null() {
            return None;
        }
        // SAFETY: a live cursor handle; the fields are read by value through the raw pointer.
        let (session, id, target) = unsafe { ((*handle).iface.session, (*handle).id, pick(handle)) };
        // SAFETY: the target lives as long as the handle; per the contract nothing else borrows it.
        let target = unsafe { &mut *target?.as_ptr() };
        // SAFETY: the cursor's session is live and, by the threading rule, unaliased.
        unsafe { SessionHandle::from_ptr(session) }.map(|s| (s, id, target))
    }

    /// The session and id of a `WT_CURSOR *`.
    ///
    /// # Safety
    /// `cursor` must be NULL or an open cursor whose session no other thread uses during the
    /// call. No reference into the cursor handle stays alive: only its id is read.
    pub unsafe fn parts<'a>(cursor: *mut WT_CURSOR) -> Option<(&'a mut SessionHandle, CursorId)> {
        let handle = cursor.cast::<CursorHandle>();
        if handle.is_null() {
            return None;
        }
        // SAFETY: a live cursor handle; both fields are read by value through the raw pointer.
        let (session, id) = unsafe { ((*handle).iface.session, (*handle).id) };
        // SAFETY: the cursor's session is live and, by the threading rule, unaliased.
        unsafe { SessionHandle::from_ptr(session) }.map(|s| (s, id))
    }
}

/// [`c_str`] for a configuration string that is usually one of `common`: those are matched as
/// bytes, without the UTF-8 check (about 100 instructions on `"sync=off"`, once per journalled
/// commit).
///
/// # Safety
/// As [`c_str`].
pub unsafe fn c_config<'a>(s: *const c_char, common: &[&'static str]) -> Result<Option<&'a str>, crate::error::Error> {
    if !s.is_null() {
        // SAFETY: per the contract.
        let bytes = unsafe { CStr::from_ptr(s) }.to_bytes();
        if let Some(known) = common.iter().find(|c| c.as_bytes() == bytes) {
            return Ok(Some(known));
        }
    }
    // SAFETY: per the contract.
    unsafe { c_str(s) }
}

/// A NUL-terminated C string argument as UTF-8, `Ok(None)` for NULL.
///
/// # Safety
/// `s` must be NULL or point to a NUL-terminated string that outlives `'a`.
pub unsafe fn c_str<'a>(s: *const c_char) -> Result<Option<&'a str>, crate::error::Error> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: per the contract.
    let bytes = unsafe { CStr::from_ptr(s) };
    bytes.to_str().map(Some).map_err(|_| crate::error::Error::invalid("string argument is not valid UTF-8"))
}
