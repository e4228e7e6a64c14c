//! `wiredtiger_config_parser_open` and `WT_CONFIG_PARSER`: the configuration tokenizer of
//! `config::parser` over a string the application owns.
//!
//! Items point into the application's string (as the reference's do), so the parser keeps a
//! pointer to it, not a copy: the string must outlive the parser, as the API requires.

use libc::{c_char, c_int, size_t};

use crate::config::{config_from_bytes, Item, Parser};
use crate::error::{code, Error, Kind, Result};

use super::boundary::guard;
use super::events::Events;
use super::handles::c_str;
use super::types::WT_SESSION;

/// `WT_CONFIG_ITEM` (defined in `extension_types.h`; this is its layout).
///
/// cbindgen:ignore
#[repr(C)]
pub struct WT_CONFIG_ITEM {
    str_: *const c_char,
    len: size_t,
    val: i64,
    /// `WT_CONFIG_ITEM_TYPE`, an `int`-sized enum numbered like `ItemKind`.
    kind: c_int,
}

// The layout the header declares (c-tests/abi.c checks the C side against the reference).
const _: () = assert!(std::mem::size_of::<WT_CONFIG_ITEM>() == 32);
const _: () = assert!(std::mem::offset_of!(WT_CONFIG_ITEM, kind) == 24);

/// `WT_CONFIG_PARSER`: the three methods, then the parser's state.
///
/// cbindgen:ignore
#[repr(C)]
pub struct WT_CONFIG_PARSER {
    close: unsafe extern "C" fn(*mut WT_CONFIG_PARSER) -> c_int,
    next: unsafe extern "C" fn(*mut WT_CONFIG_PARSER, *mut WT_CONFIG_ITEM, *mut WT_CONFIG_ITEM) -> c_int,
    get: unsafe extern "C" fn(*mut WT_CONFIG_PARSER, *const c_char, *mut WT_CONFIG_ITEM) -> c_int,
    /// The session errors are reported through (NULL: the default handler).
    session: *mut WT_SESSION,
    /// The application's string (a `'static` stand-in for "until close": see the module).
    text: &'static str,
    /// The position of `next`, or why the string cannot be walked (reported by `next`).
    walk: std::result::Result<Parser<'static>, Error>,
}

/// Reports `e` through `session`'s handler (or the default one) and returns its code.
fn report_to(session: *mut WT_SESSION, e: &Error, api: &str) -> c_int {
    // SAFETY: the application passed NULL or a live session it does not use concurrently.
    unsafe { super::cursor::report_to(session, Events::default(), e, api) }
}

impl WT_CONFIG_ITEM {
    /// The item over `item`'s text (valid while that text is).
    pub(super) fn of(item: &Item<'_>) -> WT_CONFIG_ITEM {
        WT_CONFIG_ITEM { str_: item.text.as_ptr().cast(), len: item.text.len(), val: item.num, kind: item.kind as c_int }
    }
}

fn store(item: &Item<'_>, out: *mut WT_CONFIG_ITEM) {
    // SAFETY: checked non-null by the callers; the application's item to fill.
    unsafe {
        *out = WT_CONFIG_ITEM::of(item);
    }
}

/// Opens a parser over the `len` bytes at `config` (NULL with a zero length: an empty string).
///
/// # Safety
/// `config` points to `len` readable bytes that stay unchanged until the parser is closed;
/// `session` is NULL or a live session; `config_parserp` is writable.
#[no_mangle]
pub unsafe extern "C" fn wiredtiger_config_parser_open(
    session: *mut WT_SESSION,
    config: *const c_char,
    len: size_t,
    config_parserp: *mut *mut WT_CONFIG_PARSER,
) -> c_int {
    const API: &str = "wiredtiger_config_parser_open";
    guard(API, code::WT_PANIC, || {
        if config_parserp.is_null() || (config.is_null() && len != 0) {
            return report_to(session, &Error::invalid("NULL configuration or result pointer"), API);
        }
        let bytes: &'static [u8] = if len == 0 {
            &[]
        } else {
            // SAFETY: per the contract, `len` bytes that live (unchanged) until close.
            unsafe { std::slice::from_raw_parts(config.cast::<u8>(), len) }
        };
        // Bytes that are not UTF-8 cannot be walked; `next` reports it, where the reference
        // reports its syntax errors.
        let (text, walk) = match config_from_bytes(bytes) {
            Ok(text) => (text, Ok(Parser::new(text))),
            Err(e) => ("", Err(Error::from(e))),
        };
        let parser = Box::new(WT_CONFIG_PARSER { close, next, get, session, text, walk });
        // SAFETY: checked non-null above.
        unsafe { *config_parserp = Box::into_raw(parser) };
        0
    })
}

unsafe extern "C" fn close(parser: *mut WT_CONFIG_PARSER) -> c_int {
    guard("WT_CONFIG_PARSER.close", code::WT_PANIC, || {
        if parser.is_null() {
            return code::EINVAL;
        }
        // SAFETY: made by `Box::into_raw` in `wiredtiger_config_parser_open`; the application
        // does not use it after close.
        drop(unsafe { Box::from_raw(parser) });
        0
    })
}

unsafe extern "C" fn next(parser: *mut WT_CONFIG_PARSER, key: *mut WT_CONFIG_ITEM, value: *mut WT_CONFIG_ITEM) -> c_int {
    const API: &str = "WT_CONFIG_PARSER.next";
    guard(API, code::WT_PANIC, || {
        // SAFETY: the application's open parser, used by one thread at a time.
        let Some(p) = (unsafe { parser.as_mut() }) else { return code::EINVAL };
        let mut step = || -> Result<()> {
            if key.is_null() || value.is_null() {
                return Err(Error::invalid("NULL key or value item"));
            }
            let walk = p.walk.as_mut().map_err(|e| e.clone())?;
            match walk.next_pair() {
                Some(Ok((k, v))) => {
                    store(&k, key);
                    store(&v, value);
                    Ok(())
                }
                Some(Err(e)) => Err(e.into()),
                None => Err(Error::quiet(Kind::NotFound)),
            }
        };
        match step() {
            Ok(()) => 0,
            Err(e) => report_to(p.session, &e, API),
        }
    })
}

unsafe extern "C" fn get(parser: *mut WT_CONFIG_PARSER, key: *const c_char, value: *mut WT_CONFIG_ITEM) -> c_int {
    const API: &str = "WT_CONFIG_PARSER.get";
    guard(API, code::WT_PANIC, || {
        // SAFETY: the application's open parser.
        let Some(p) = (unsafe { parser.as_ref() }) else { return code::EINVAL };
        let look = || -> Result<()> {
            // SAFETY: the application passes a NUL-terminated key.
            let key = unsafe { c_str(key) }?.ok_or_else(|| Error::invalid("NULL key"))?;
            if value.is_null() {
                return Err(Error::invalid("NULL value item"));
            }
            // A fresh look-up over the whole string: the last occurrence wins, "a.b" reaches
            // into groups (independent of where `next` stands).
            let found = Parser::find(p.text, key).ok_or_else(|| Error::quiet(Kind::NotFound))?;
            store(&found, value);
            Ok(())
        };
        match look() {
            Ok(()) => 0,
            Err(e) => report_to(p.session, &e, API),
        }
    })
}
