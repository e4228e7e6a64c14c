//! The Rust side of the C shim (`shim.c`): argument arrays in, packed bytes out, and back.


use libc::{c_char, c_int, c_void, size_t};

use crate::error::{code, Error, Result};
use crate::pack::{self, Arg, ArgSink, CArg, FieldKind, Format};

use super::boundary::{guard, install_panic_hook};
use super::cursor::{report, report_to};
use super::diagnostic;
use super::events::Events;
use super::handles::{c_str, CursorHandle, SessionHandle};
use super::types::{WT_CURSOR, WT_SESSION};

/// One argument crossing the shim; layout shared with `ul_arg` in shim.c.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct UlArg {
    pub u: u64,
    pub p: *const c_void,
    pub len: size_t,
}

/// A list of argument kinds; layout shared with `ul_plan` in shim.c.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct UlPlan {
    pub kinds: *const u8,
    pub n: size_t,
}

extern "C" {
    pub fn __ul_shim_set_key(cursor: *mut WT_CURSOR, ...);
    pub fn __ul_shim_set_value(cursor: *mut WT_CURSOR, ...);
    pub fn __ul_shim_get_key(cursor: *mut WT_CURSOR, ...) -> c_int;
    pub fn __ul_shim_get_value(cursor: *mut WT_CURSOR, ...) -> c_int;
    pub fn __ul_shim_set_key_i32(cursor: *mut WT_CURSOR, ...);
    pub fn __ul_shim_set_key_i64(cursor: *mut WT_CURSOR, ...);
    pub fn __ul_shim_set_key_u64(cursor: *mut WT_CURSOR, ...);
    pub fn __ul_shim_set_value_i32(cursor: *mut WT_CURSOR, ...);
    pub fn __ul_shim_set_value_i64(cursor: *mut WT_CURSOR, ...);
    pub fn __ul_shim_set_value_u64(cursor: *mut WT_CURSOR, ...);
    pub fn __ul_shim_get_key_int(cursor: *mut WT_CURSOR, ...) -> c_int;
    pub fn __ul_shim_get_value_int(cursor: *mut WT_CURSOR, ...) -> c_int;
    pub fn __ul_shim_bind_configuration(session: *mut WT_SESSION, compiled: *const c_char, ...) -> c_int;
    pub fn __ul_shim_log_printf(session: *mut WT_SESSION, format: *const c_char, ...) -> c_int;
}


/// Converts the shim's arguments to `Arg`s for `fmt` and calls `f` with them.
///
/// # Safety
/// `args` must be NULL (the shim ran out of memory) or hold one entry per C argument of `fmt`,
/// written by `ul_collect`: pointers are NULL or valid for `len` bytes (for `s` fields, for
/// the field's fixed width).
unsafe fn with_args<T>(fmt: &Format, args: *const UlArg, f: impl FnOnce(&[Arg<'_>]) -> Result<T>) -> Result<T> {
    let kinds = fmt.cargs();
    if args.is_null() {
        return Err(Error::quiet(crate::error::Kind::NoSpace));
    }
    // SAFETY: per the contract, `args` has one entry per kind.
    let raw = unsafe { std::slice::from_raw_parts(args, kinds.len()) };
    let convert = |i: usize, kind: &CArg, a: &UlArg| -> Result<Arg<'_>> {
        Ok(match kind {
            CArg::I8 | CArg::I16 | CArg::I32 | CArg::I64 => Arg::Int(a.u as i64),
            CArg::U8 | CArg::U16 | CArg::U32 | CArg::U64 => Arg::Uint(a.u),
            CArg::CStr | CArg::Item | CArg::Bytes => {
                if a.p.is_null() {
                    return Err(Error::invalid("NULL pointer passed for a string or item field"));
                }
                let len = if *kind == CArg::Bytes { byte_width(fmt, i) } else { a.len };
                // SAFETY: `ul_collect` measured `len` readable bytes at `p` (strings, items);
                // for `s` the format fixes the width and the caller supplies that many bytes
                // (the reference's contract).
                Arg::Bytes(unsafe { std::slice::from_raw_parts(a.p.cast::<u8>(), len) })
            }
        })
    };
    // One field, the common case, needs no array at all.
    if let ([kind], [a]) = (kinds, raw) {
        return f(&[convert(0, kind, a)?]);
    }
    let mut fields = Vec::with_capacity(kinds.len());
    for (i, (kind, a)) in kinds.iter().zip(raw).enumerate() {
        fields.push(convert(i, kind, a)?);
    }
    f(&fields)
}

/// Packs the shim's arguments for `fmt` into `buf`.
///
/// # Safety
/// As `with_args`.
pub(super) unsafe fn pack_args(fmt: &Format, args: *const UlArg, buf: &mut Vec<u8>) -> Result<()> {
    // SAFETY: as this function's contract.
    unsafe { with_args(fmt, args, |fields| pack::pack(fmt, fields, buf).map_err(Error::from)) }
}

/// The string of a format whose one field is `S` (no count), when its argument is not NULL
/// (NULL takes the general path, which reports it).
///
/// # Safety
/// `args` holds the entries `ul_collect` wrote for `fmt`'s plan.
#[inline(always)]
unsafe fn one_cstr<'a>(fmt: &Format, args: *const UlArg) -> Option<&'a [u8]> {
    if fmt.single_kind() != Some(FieldKind::CStr) || args.is_null() {
        return None;
    }
    // SAFETY: per the contract, one entry: the string and its length as `strlen` measured it.
    unsafe {
        let arg = &*args;
        (!arg.p.is_null()).then(|| std::slice::from_raw_parts(arg.p.cast::<u8>(), arg.len))
    }
}

/// The fixed width of the `s` field that takes C argument `arg`.
fn byte_width(fmt: &Format, arg: usize) -> usize {
    let mut seen = 0;
    for field in fmt.fields() {
        let n = field.arg_count() as usize;
        if arg < seen + n {
            return field.size() as usize;
        }
        seen += n;
    }
    0
}

/// Unpacked fields written straight into the shim's output array.
struct OutArgs<'o> {
    out: &'o mut [UlArg],
    n: usize,
}

impl<'a> ArgSink<'a> for OutArgs<'_> {
    fn push(&mut self, arg: Arg<'a>) {
        if let Some(slot) = self.out.get_mut(self.n) {
            *slot = match arg {
                Arg::Int(v) => UlArg { u: v as u64, p: std::ptr::null(), len: 0 },
                Arg::Uint(v) => UlArg { u: v, p: std::ptr::null(), len: 0 },
                Arg::Bytes(b) => UlArg { u: 0, p: b.as_ptr().cast(), len: b.len() },
            };
        }
        self.n += 1;
    }

    fn clear(&mut self) {
        self.n = 0;
    }
}

/// `set_key` / `set_value` in general (the shim's arguments packed with the format).
#[inline(never)]
unsafe fn set_item(cursor: *mut WT_CURSOR, args: *const UlArg, key: bool) {
    let api = if key { "WT_CURSOR.set_key" } else { "WT_CURSOR.set_value" };
    // SAFETY: the shim passes the application's cursor handle.
    let Ok(_call) = (unsafe { diagnostic::cursor_call(cursor, api, true) }) else { return };
    guard(api, (), || {
        // SAFETY: the shim passes the application's cursor handle.
        // (A single integer, the common case, went straight to the cursor: `set_int_quick`.)
        let Some((session, id)) = (unsafe { CursorHandle::parts(cursor) }) else { return };
        let pack = |fmt: &Format, buf: &mut Vec<u8>| {
            // SAFETY: `args` comes from `ul_collect` with this cursor's plan, which is `fmt`'s
            // (for a one-string format: one entry, the string and its `strlen`).
            unsafe {
                match one_cstr(fmt, args) {
                    Some(bytes) => {
                        // `S`, the common string key: its bytes then a NUL, without the general
                        // packer's walk over fields and arguments.
                        buf.reserve(bytes.len() + 1);
                        buf.extend_from_slice(bytes);
                        buf.push(0);
                        Ok(())
                    }
                    None => pack_args(fmt, args, buf),
                }
            }
        };
        // SAFETY: the shim passes the application's cursor handle; no other reference to it
        // is alive.
        if let Some(schema) = unsafe { (*cursor.cast::<CursorHandle>()).schema.as_deref_mut() } {
            if key {
                schema.set_key_with(pack);
            } else {
                schema.set_value_with(pack);
            }
            return;
        }
        // SAFETY: as above.
        if let Some(stats) = unsafe { (*cursor.cast::<CursorHandle>()).stats.as_deref_mut() } {
            // A statistics cursor has a key only; `set_value` has nothing to set.
            if key {
                stats.view_mut().set_key_with(pack);
            }
            return;
        }
        // SAFETY: as above.
        if let Some(listing) = unsafe { (*cursor.cast::<CursorHandle>()).listing.as_deref_mut() } {
            // Read-only: a value set has nowhere to go (writes are refused).
            if key {
                listing.set_key_with(pack);
            }
            return;
        }
        if key {
            session.core.set_key_with(id, pack);
        } else {
            session.core.set_value_with(id, pack);
        }
    })
}

/// `get_key` / `get_value` in general (unpacked into the shim's array).
#[inline(never)]
unsafe fn get_item(cursor: *mut WT_CURSOR, out: *mut UlArg, n: size_t, key: bool) -> c_int {
    let api = if key { "WT_CURSOR.get_key" } else { "WT_CURSOR.get_value" };
    // SAFETY: the shim passes the application's cursor handle.
    let _call = match unsafe { diagnostic::cursor_call(cursor, api, true) } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    guard(api, code::WT_PANIC, || {
        // SAFETY: the shim passes the application's cursor handle.
        // (A single integer that decodes, the common case, went straight into the shim's one
        // entry: `get_int_quick`.)
        let Some((session, id)) = (unsafe { CursorHandle::parts(cursor) }) else { return code::EINVAL };
        // SAFETY: the shim passes the application's cursor handle; only read here.
        let handle = unsafe { &*cursor.cast::<CursorHandle>() };
        let (bytes, fmt) = match (handle.stats.as_deref(), handle.schema.as_deref(), handle.listing.as_deref()) {
            (Some(stats), _, _) if key => (stats.view().key_bytes(), stats.view().api_key_format()),
            (Some(stats), _, _) => (stats.view().value_bytes(), stats.view().api_value_format()),
            (_, Some(schema), _) if key => (schema.key_bytes(), schema.api_key_format()),
            (_, Some(schema), _) => (schema.api_value_bytes(), schema.api_value_format()),
            (_, _, Some(listing)) if key => (listing.key_bytes(), listing.api_key_format()),
            (_, _, Some(listing)) => (listing.value_bytes(), listing.api_value_format()),
            (None, None, None) => {
                let cursor = session.core.cursor(id);
                if key {
                    (cursor.key_bytes(), cursor.api_key_format())
                } else {
                    (cursor.value_bytes(), cursor.api_value_format())
                }
            }
        };
        let result = bytes.and_then(|bytes| {
            if out.is_null() || n != fmt.cargs().len() {
                return Err(Error::quiet(crate::error::Kind::NoSpace));
            }
            // SAFETY: the shim passes an array of `n` entries.
            let mut sink = OutArgs { out: unsafe { std::slice::from_raw_parts_mut(out, n) }, n: 0 };
            pack::unpack(fmt, bytes, &mut sink)?;
            Ok(())
        });
        match result {
            Ok(()) => 0,
            Err(e) => {
                session.core.note_error(&e);
                report(session, &e, api)
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_cursor_set_key(cursor: *mut WT_CURSOR, args: *const UlArg, n: size_t) {
    let _ = n;
    // SAFETY: called by the shim with the cursor's own plan.
    unsafe { set_item(cursor, args, true) }
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_cursor_set_value(cursor: *mut WT_CURSOR, args: *const UlArg, n: size_t) {
    let _ = n;
    // SAFETY: called by the shim with the cursor's own plan.
    unsafe { set_item(cursor, args, false) }
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_cursor_get_key(cursor: *mut WT_CURSOR, out: *mut UlArg, n: size_t) -> c_int {
    // SAFETY: called by the shim with an array of the plan's length.
    unsafe { get_item(cursor, out, n, true) }
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_cursor_get_value(cursor: *mut WT_CURSOR, out: *mut UlArg, n: size_t) -> c_int {
    // SAFETY: called by the shim with an array of the plan's length.
    unsafe { get_item(cursor, out, n, false) }
}

/// Turns the integer entry points' slow paths into the general ones, with a one-entry array.
#[inline(never)]
unsafe extern "C" fn set_int_slow(cursor: *mut WT_CURSOR, v: u64, key: bool) {
    let arg = UlArg { u: v, p: std::ptr::null(), len: 0 };
    // SAFETY: a one-entry array for the cursor's one integer field.
    unsafe { set_item(cursor, &arg, key) }
}

/// Stores `v`, an integer field of `kind`, through the application's `dst` (ignored when NULL),
/// with the width of the field's C type.
///
/// # Safety
/// `dst` must be NULL or point to the C type of `kind` (`int32_t` for `i`/`l`, else 64 bits).
#[inline(always)]
unsafe fn store_int(dst: *mut c_void, kind: FieldKind, v: u64) {
    if dst.is_null() {
        return;
    }
    // SAFETY: per the contract.
    unsafe {
        match kind {
            FieldKind::Int32 => *dst.cast::<i32>() = v as i32,
            _ => *dst.cast::<u64>() = v,
        }
    }
}

#[inline(never)]
unsafe extern "C" fn get_int_slow(cursor: *mut WT_CURSOR, dst: *mut c_void, key: bool) -> c_int {
    let mut out = UlArg { u: 0, p: std::ptr::null(), len: 0 };
    // SAFETY: a one-entry array for the cursor's one integer field.
    let rc = unsafe { get_item(cursor, &mut out, 1, key) };
    if rc == 0 {
        // SAFETY: the shim passes the application's pointer for the field; the handle's kind
        // (read again: the general path changes no kind) says its width.
        unsafe {
            let handle = cursor.cast::<CursorHandle>();
            let kind = if key { (*handle).key_int } else { (*handle).value_int };
            store_int(dst, kind.unwrap_or(FieldKind::Uint64), out.u);
        }
    }
    rc
}

/// `set_key` (`key`) or `set_value` of one integer: the fast path contains no call and
/// nothing that can panic, so it needs no unwinding guard; everything else goes to the general
/// path, which has one.
///
/// # Safety
/// `cursor` is the application's cursor handle, as the int shims pass it.
#[inline(always)]
unsafe fn set_int(cursor: *mut WT_CURSOR, v: u64, key: bool) {
    let api = if key { "WT_CURSOR.set_key" } else { "WT_CURSOR.set_value" };
    // SAFETY: per the contract.
    let Ok(_call) = (unsafe { diagnostic::cursor_call(cursor, api, true) }) else { return };
    // SAFETY: per the contract; the cursor reference ends before the general path.
    if let Some((c, kind)) = unsafe { CursorHandle::core_int(cursor, key) } {
        if if key { c.set_key_int_quick(kind, v) } else { c.set_value_int_quick(kind, v) } {
            return;
        }
    }
    // SAFETY: as above.
    unsafe { set_int_slow(cursor, v, key) }
}

/// `get_key` (`key`) or `get_value` of one integer into the application's `dst`, likewise.
///
/// # Safety
/// `cursor` is the application's cursor handle and `dst` its pointer argument, as the int shims
/// pass them.
#[inline(always)]
unsafe fn get_int(cursor: *mut WT_CURSOR, dst: *mut c_void, key: bool) -> c_int {
    let api = if key { "WT_CURSOR.get_key" } else { "WT_CURSOR.get_value" };
    // SAFETY: per the contract.
    let _call = match unsafe { diagnostic::cursor_call(cursor, api, true) } {
        Ok(call) => call,
        Err(rc) => return rc,
    };
    // SAFETY: per the contract; the cursor reference ends before the general path.
    unsafe {
        if let Some((c, kind)) = CursorHandle::core_int(cursor, key) {
            if let Some(v) = if key { c.key_int(kind) } else { c.value_int(kind) } {
                store_int(dst, kind, v);
                return 0;
            }
        }
        get_int_slow(cursor, dst, key)
    }
}

// The integer entry points (`__ul_shim_*_int` in shim.c).

#[no_mangle]
pub unsafe extern "C" fn __unlatched_cursor_set_key_int(cursor: *mut WT_CURSOR, v: u64) {
    // SAFETY: as `set_int`'s contract, which the int shim keeps.
    unsafe { set_int(cursor, v, true) }
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_cursor_set_value_int(cursor: *mut WT_CURSOR, v: u64) {
    // SAFETY: as `set_int`'s contract, which the int shim keeps.
    unsafe { set_int(cursor, v, false) }
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_cursor_get_key_int(cursor: *mut WT_CURSOR, dst: *mut c_void) -> c_int {
    // SAFETY: as `get_int`'s contract, which the int shim keeps.
    unsafe { get_int(cursor, dst, true) }
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_cursor_get_value_int(cursor: *mut WT_CURSOR, dst: *mut c_void) -> c_int {
    // SAFETY: as `get_int`'s contract, which the int shim keeps.
    unsafe { get_int(cursor, dst, false) }
}

/// Runs a `wiredtiger_struct_*` body with the format parsed; errors go to the session's event
/// handler, or to stderr when `session` is NULL.
unsafe fn struct_call(
    session: *mut WT_SESSION,
    format: *const c_char,
    api: &str,
    body: impl FnOnce(&Format) -> Result<()>,
) -> c_int {
    install_panic_hook();
    guard(api, code::WT_PANIC, || {
        // SAFETY: the application passes a NUL-terminated format.
        let result = unsafe { c_str(format) }
            .and_then(|f| f.ok_or_else(|| Error::invalid("NULL format")))
            .and_then(|f| Format::parse(f).map_err(Error::from))
            .and_then(|f| body(&f));
        match result {
            Ok(()) => 0,
            // SAFETY: the application passes NULL or a live session it does not use concurrently.
            Err(e) => unsafe { report_to(session, Events::default(), &e, api) },
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_struct_plan(
    session: *mut WT_SESSION,
    format: *const c_char,
    kinds: *mut u8,
    cap: size_t,
    np: *mut size_t,
) -> c_int {
    // SAFETY: the shim passes a buffer of `cap` bytes and a valid `np`.
    unsafe {
        struct_call(session, format, "wiredtiger_struct_pack", |fmt| {
            let cargs = fmt.cargs();
            *np = cargs.len();
            if cargs.len() <= cap {
                for (i, k) in cargs.iter().enumerate() {
                    *kinds.add(i) = *k as u8;
                }
            }
            Ok(())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_struct_pack(
    session: *mut WT_SESSION,
    buffer: *mut c_void,
    len: size_t,
    format: *const c_char,
    args: *const UlArg,
    n: size_t,
) -> c_int {
    let _ = n;
    // SAFETY: the shim collected `args` with this format's plan; `buffer` holds `len` bytes.
    unsafe {
        struct_call(session, format, "wiredtiger_struct_pack", |fmt| {
            let out: &mut [u8] = if len == 0 || buffer.is_null() {
                &mut []
            } else {
                std::slice::from_raw_parts_mut(buffer.cast::<u8>(), len)
            };
            with_args(fmt, args, |fields| pack::pack_into(fmt, fields, out).map(drop).map_err(Error::from))
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_struct_size(
    session: *mut WT_SESSION,
    lenp: *mut size_t,
    format: *const c_char,
    args: *const UlArg,
    n: size_t,
) -> c_int {
    let _ = n;
    // SAFETY: the shim collected `args` with this format's plan; `lenp` is the caller's.
    unsafe {
        struct_call(session, format, "wiredtiger_struct_size", |fmt| {
            let size = with_args(fmt, args, |fields| pack::packed_size(fmt, fields).map_err(Error::from))?;
            if lenp.is_null() {
                return Err(Error::invalid("NULL size pointer"));
            }
            *lenp = size;
            Ok(())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_struct_unpack(
    session: *mut WT_SESSION,
    buffer: *const c_void,
    len: size_t,
    format: *const c_char,
    out: *mut UlArg,
    n: size_t,
) -> c_int {
    // SAFETY: `buffer` holds `len` bytes; `out` has `n` entries, the format's argument count.
    unsafe {
        struct_call(session, format, "wiredtiger_struct_unpack", |fmt| {
            let bytes: &[u8] =
                if len == 0 { &[] } else if buffer.is_null() { return Err(Error::invalid("NULL buffer")) } else {
                    std::slice::from_raw_parts(buffer.cast::<u8>(), len)
                };
            let mut sink = OutArgs { out: std::slice::from_raw_parts_mut(out, n), n: 0 };
            pack::unpack(fmt, bytes, &mut sink)?;
            Ok(())
        })
    }
}

#[no_mangle]
pub unsafe extern "C" fn __unlatched_unsupported(session: *mut WT_SESSION, method: *const c_char) -> c_int {
    guard("unsupported", code::ENOTSUP, || {
        // SAFETY: the shim passes a string literal.
        let api = unsafe { c_str(method) }.ok().flatten().unwrap_or("");
        // SAFETY: the application's live session (or NULL).
        match unsafe { SessionHandle::from_ptr(session) } {
            Some(h) => report(h, &Error::unsupported("Operation not supported"), api),
            None => code::ENOTSUP,
        }
    })
}
