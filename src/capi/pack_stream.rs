//! The streaming packing API (`wiredtiger_pack_start`, `wiredtiger_unpack_start`, one call per
//! field, `wiredtiger_pack_close`) over `pack::Stream`.
//!
//! Departures from the reference, which treats a call of the wrong type as a panic of the whole
//! process (WT_PANIC) and moves past the field anyway: here it is EINVAL with a message and the
//! stream stays where it was; so does a call that does not fit (ENOMEM). A call past the last
//! field is WT_NOTFOUND, as the reference answers when packing.

use std::ffi::CStr;

use libc::{c_char, c_int, c_void, size_t};

use crate::error::{code, Error, Kind};
use crate::pack::{Arg, Format, Stream, StreamArg, StreamError};

use super::boundary::guard;
use super::events::Events;
use super::handles::c_str;
use super::types::{WT_ITEM, WT_SESSION};

/// `WT_PACK_STREAM` (opaque to applications).
///
/// cbindgen:ignore
#[allow(non_camel_case_types)]
pub struct WT_PACK_STREAM {
    stream: Stream,
    /// The application's buffer: written when packing, only read when unpacking.
    buf: *mut u8,
    len: usize,
    packing: bool,
    /// Errors are reported through it (NULL: the default handler).
    session: *mut WT_SESSION,
}

impl WT_PACK_STREAM {
    fn report(&self, e: &Error, api: &str) -> c_int {
        report_to(self.session, e, api)
    }
}

fn report_to(session: *mut WT_SESSION, e: &Error, api: &str) -> c_int {
    // SAFETY: the application passed NULL or a live session it does not use concurrently.
    unsafe { super::cursor::report_to(session, Events::default(), e, api) }
}

fn stream_error(e: StreamError) -> Error {
    match e {
        StreamError::End => Error::quiet(Kind::NotFound),
        StreamError::Pack(p) => Error::from(p),
        mismatch => Error::invalid(mismatch.to_string()),
    }
}

/// Opens a stream over `size` bytes at `buffer`.
///
/// # Safety
/// As the two entry points below.
unsafe fn start(
    session: *mut WT_SESSION,
    format: *const c_char,
    buffer: *mut u8,
    size: size_t,
    psp: *mut *mut WT_PACK_STREAM,
    packing: bool,
    api: &str,
) -> c_int {
    guard(api, code::WT_PANIC, || {
        let open = || -> crate::error::Result<Box<WT_PACK_STREAM>> {
            if psp.is_null() || (buffer.is_null() && size != 0) {
                return Err(Error::invalid("NULL buffer or stream pointer"));
            }
            // SAFETY: the application passes a NUL-terminated format.
            let text = unsafe { c_str(format) }?.ok_or_else(|| Error::invalid("NULL format"))?;
            let fmt = Format::parse(text).map_err(Error::from)?;
            Ok(Box::new(WT_PACK_STREAM { stream: Stream::new(fmt), buf: buffer, len: size, packing, session }))
        };
        match open() {
            Ok(stream) => {
                // SAFETY: checked non-null.
                unsafe { *psp = Box::into_raw(stream) };
                0
            }
            Err(e) => report_to(session, &e, api),
        }
    })
}

/// Starts packing into the `size` bytes at `buffer`, which must stay valid until
/// `wiredtiger_pack_close`.
///
/// # Safety
/// `format` is NUL-terminated; `buffer` holds `size` writable bytes; `psp` is writable.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_pack_start(
    session: *mut WT_SESSION,
    format: *const c_char,
    buffer: *mut c_void,
    size: size_t,
    psp: *mut *mut WT_PACK_STREAM,
) -> c_int {
    // SAFETY: per the contract.
    unsafe { start(session, format, buffer.cast(), size, psp, true, "wiredtiger_pack_start") }
}

/// Starts unpacking the `size` bytes at `buffer`, which must stay valid until
/// `wiredtiger_pack_close` (strings and items unpacked point into it).
///
/// # Safety
/// `format` is NUL-terminated; `buffer` holds `size` readable bytes; `psp` is writable.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_unpack_start(
    session: *mut WT_SESSION,
    format: *const c_char,
    buffer: *const c_void,
    size: size_t,
    psp: *mut *mut WT_PACK_STREAM,
) -> c_int {
    // SAFETY: per the contract; an unpacking stream never writes the buffer.
    unsafe { start(session, format, buffer.cast_mut().cast(), size, psp, false, "wiredtiger_unpack_start") }
}

/// Closes a stream; `*usedp` (if not NULL) is the bytes written or read.
///
/// # Safety
/// `ps` came from a start function and is not used again.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_pack_close(ps: *mut WT_PACK_STREAM, usedp: *mut size_t) -> c_int {
    guard("wiredtiger_pack_close", code::WT_PANIC, || {
        if ps.is_null() {
            return code::EINVAL;
        }
        // SAFETY: made by `Box::into_raw` in `start`; the application gives it up.
        let stream = unsafe { Box::from_raw(ps) };
        if !usedp.is_null() {
            // SAFETY: the application's pointer.
            unsafe { *usedp = stream.stream.used() };
        }
        0
    })
}

/// Packs one argument into an open packing stream.
///
/// # Safety
/// `ps` is an open stream used by one thread at a time.
unsafe fn pack_one<'a>(ps: *mut WT_PACK_STREAM, wanted: StreamArg, arg: impl FnOnce() -> crate::error::Result<Arg<'a>>, api: &str) -> c_int {
    guard(api, code::WT_PANIC, || {
        // SAFETY: per the contract.
        let Some(s) = (unsafe { ps.as_mut() }) else { return code::EINVAL };
        let result = (|| {
            if !s.packing {
                return Err(Error::invalid("the stream was opened for unpacking"));
            }
            let arg = arg()?;
            let buf: &mut [u8] = if s.len == 0 {
                &mut []
            } else {
                // SAFETY: the application's buffer of `len` bytes, alive until close.
                unsafe { std::slice::from_raw_parts_mut(s.buf, s.len) }
            };
            s.stream.pack(buf, wanted, arg).map_err(stream_error)
        })();
        match result {
            Ok(()) => 0,
            Err(e) => s.report(&e, api),
        }
    })
}

/// Unpacks the next argument of an open unpacking stream and hands it to `store`.
///
/// # Safety
/// `ps` is an open stream used by one thread at a time.
unsafe fn unpack_one(ps: *mut WT_PACK_STREAM, wanted: StreamArg, store: impl FnOnce(Arg<'_>) -> crate::error::Result<()>, api: &str) -> c_int {
    guard(api, code::WT_PANIC, || {
        // SAFETY: per the contract.
        let Some(s) = (unsafe { ps.as_mut() }) else { return code::EINVAL };
        let result = (|| {
            if s.packing {
                return Err(Error::invalid("the stream was opened for packing"));
            }
            let buf: &[u8] = if s.len == 0 {
                &[]
            } else {
                // SAFETY: the application's buffer of `len` bytes, alive until close.
                unsafe { std::slice::from_raw_parts(s.buf, s.len) }
            };
            store(s.stream.unpack(buf, wanted).map_err(stream_error)?)
        })();
        match result {
            Ok(()) => 0,
            Err(e) => s.report(&e, api),
        }
    })
}

/// Fails on a NULL out-pointer.
fn out<T>(p: *mut T) -> crate::error::Result<*mut T> {
    if p.is_null() {
        Err(Error::invalid("NULL result pointer"))
    } else {
        Ok(p)
    }
}

/// Packs a signed integer (`b h i l q`).
///
/// # Safety
/// `ps` is an open packing stream.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_pack_int(ps: *mut WT_PACK_STREAM, i: i64) -> c_int {
    // SAFETY: per the contract.
    unsafe { pack_one(ps, StreamArg::Int, || Ok(Arg::Int(i)), "wiredtiger_pack_int") }
}

/// Packs an unsigned integer (`B H I L Q r R t`).
///
/// # Safety
/// `ps` is an open packing stream.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_pack_uint(ps: *mut WT_PACK_STREAM, u: u64) -> c_int {
    // SAFETY: per the contract.
    unsafe { pack_one(ps, StreamArg::Uint, || Ok(Arg::Uint(u)), "wiredtiger_pack_uint") }
}

/// Packs a NUL-terminated string (`S s`).
///
/// # Safety
/// `ps` is an open packing stream; `s` is NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_pack_str(ps: *mut WT_PACK_STREAM, s: *const c_char) -> c_int {
    let arg = || {
        if s.is_null() {
            return Err(Error::invalid("NULL string"));
        }
        // SAFETY: per the contract; the bytes are copied into the buffer before returning.
        Ok(Arg::Bytes(unsafe { CStr::from_ptr(s) }.to_bytes()))
    };
    // SAFETY: per the contract.
    unsafe { pack_one(ps, StreamArg::Str, arg, "wiredtiger_pack_str") }
}

/// Packs an item (`u U`).
///
/// # Safety
/// `ps` is an open packing stream; `item` points to an item whose data are readable.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_pack_item(ps: *mut WT_PACK_STREAM, item: *mut WT_ITEM) -> c_int {
    let arg = || {
        // SAFETY: per the contract.
        let item = unsafe { item.as_ref() }.ok_or_else(|| Error::invalid("NULL item"))?;
        if item.data.is_null() && item.size != 0 {
            return Err(Error::invalid("item with NULL data"));
        }
        let bytes: &[u8] = if item.size == 0 {
            &[]
        } else {
            // SAFETY: per the contract; copied into the buffer before returning.
            unsafe { std::slice::from_raw_parts(item.data.cast::<u8>(), item.size) }
        };
        Ok(Arg::Bytes(bytes))
    };
    // SAFETY: per the contract.
    unsafe { pack_one(ps, StreamArg::Item, arg, "wiredtiger_pack_item") }
}

/// Unpacks a signed integer.
///
/// # Safety
/// `ps` is an open unpacking stream; `ip` is writable.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_unpack_int(ps: *mut WT_PACK_STREAM, ip: *mut i64) -> c_int {
    let store = |arg: Arg<'_>| {
        // SAFETY: checked non-null; the application's pointer.
        unsafe { *out(ip)? = arg.as_i64().unwrap_or_default() };
        Ok(())
    };
    // SAFETY: per the contract.
    unsafe { unpack_one(ps, StreamArg::Int, store, "wiredtiger_unpack_int") }
}

/// Unpacks an unsigned integer.
///
/// # Safety
/// `ps` is an open unpacking stream; `up` is writable.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_unpack_uint(ps: *mut WT_PACK_STREAM, up: *mut u64) -> c_int {
    let store = |arg: Arg<'_>| {
        // SAFETY: checked non-null; the application's pointer.
        unsafe { *out(up)? = arg.as_u64().unwrap_or_default() };
        Ok(())
    };
    // SAFETY: per the contract.
    unsafe { unpack_one(ps, StreamArg::Uint, store, "wiredtiger_unpack_uint") }
}

/// Unpacks a string: `*sp` points into the stream's buffer (an `S` field is NUL-terminated
/// there; an `s` field is the field's bytes).
///
/// # Safety
/// `ps` is an open unpacking stream; `sp` is writable.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_unpack_str(ps: *mut WT_PACK_STREAM, sp: *mut *const c_char) -> c_int {
    let store = |arg: Arg<'_>| {
        let bytes = arg.as_bytes().unwrap_or_default();
        // SAFETY: checked non-null; the application's pointer.
        unsafe { *out(sp)? = bytes.as_ptr().cast() };
        Ok(())
    };
    // SAFETY: per the contract.
    unsafe { unpack_one(ps, StreamArg::Str, store, "wiredtiger_unpack_str") }
}

/// Unpacks an item: its data point into the stream's buffer.
///
/// # Safety
/// `ps` is an open unpacking stream; `item` is writable.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_unpack_item(ps: *mut WT_PACK_STREAM, item: *mut WT_ITEM) -> c_int {
    let store = |arg: Arg<'_>| {
        let bytes = arg.as_bytes().unwrap_or_default();
        let item = out(item)?;
        // SAFETY: checked non-null; the application's item.
        unsafe {
            (*item).data = bytes.as_ptr().cast();
            (*item).size = bytes.len();
        }
        Ok(())
    };
    // SAFETY: per the contract.
    unsafe { unpack_one(ps, StreamArg::Item, store, "wiredtiger_unpack_item") }
}
