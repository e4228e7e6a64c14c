//! `WT_CONNECTION::add_extractor` and the application's `WT_EXTRACTOR` as the engine calls it
//! (`conn::extensions::Extractor`): `extract` gets the row's raw key and value and a result
//! cursor whose `set_key` packs an index key in the index's key format with a padding byte
//! after it (`Hx` for `H`, as the reference's) and whose `insert` hands the key to the engine.
//! The engine then writes or removes the index entries itself, after `extract` returns.

use std::ffi::CString;
use std::sync::Arc;

use libc::{c_char, c_int, size_t};

use crate::config::Parser;
use crate::conn::extensions::Extractor;
use crate::error::{code, Error, Kind, Result};
use crate::pack::Format;

use super::boundary::{fail, guard};
use super::config_parser::WT_CONFIG_ITEM;
use super::cursor::vtable;
use super::events::Events;
use super::handles::{c_str, ConnectionHandle, SessionHandle};
use super::shim::{UlArg, UlPlan};
use super::types::{WT_CURSOR, WT_EXTRACTOR, WT_ITEM, WT_MODIFY, WT_SESSION};

type ExtractFn =
    unsafe extern "C" fn(*mut WT_EXTRACTOR, *mut WT_SESSION, *const WT_ITEM, *const WT_ITEM, *mut WT_CURSOR) -> c_int;
type CustomizeFn = unsafe extern "C" fn(
    *mut WT_EXTRACTOR,
    *mut WT_SESSION,
    *const c_char,
    *mut WT_CONFIG_ITEM,
    *mut *mut WT_EXTRACTOR,
) -> c_int;
type TerminateFn = unsafe extern "C" fn(*mut WT_EXTRACTOR, *mut WT_SESSION) -> c_int;

/// The slots of `WT_EXTRACTOR` (extension_types.h).
#[repr(C)]
struct ExtractorSlots {
    extract: Option<ExtractFn>,
    customize: Option<CustomizeFn>,
    terminate: Option<TerminateFn>,
}

/// The application's extractor. A customized one (`owned`) is the index's: its `terminate`
/// runs when the engine lets go of it (the index dropped, the connection closed).
struct AppExtractor {
    object: *mut WT_EXTRACTOR,
    owned: bool,
}

// SAFETY: the application's extractor lives until the connection closes (or, customized, until
// it is terminated) and is called from any session's thread, as the reference calls it.
unsafe impl Send for AppExtractor {}
// SAFETY: as above; the engine never changes the struct.
unsafe impl Sync for AppExtractor {}

impl AppExtractor {
    fn slots(&self) -> &ExtractorSlots {
        // SAFETY: a non-NULL `WT_EXTRACTOR` of the application (checked at registration, and
        // customize results are checked too), whose slots `ExtractorSlots` mirrors.
        unsafe { &*self.object.cast::<ExtractorSlots>() }
    }
}

impl Drop for AppExtractor {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        if let Some(terminate) = self.slots().terminate {
            // SAFETY: the application's terminate method with its own customized extractor,
            // which is not used again.
            unsafe { terminate(self.object, std::ptr::null_mut()) };
        }
    }
}

/// The session pointer of a `Session::caller` token (0: none).
pub(super) fn session_of(caller: usize) -> *mut WT_SESSION {
    caller as *mut WT_SESSION
}

impl Extractor for AppExtractor {
    fn extract(&self, caller: usize, format: &Format, key: &[u8], value: &[u8], keys: &mut Vec<Vec<u8>>) -> Result<()> {
        let Some(extract) = self.slots().extract else {
            return Err(Error::invalid("the extractor has no extract method"));
        };
        let session = session_of(caller);
        let format_c = CString::new(format.as_str()).map_err(|_| Error::invalid("embedded NUL in a format"))?;
        let mut result = Box::new(ResultCursor {
            iface: result_vtable(),
            key_plan: UlPlan::of(format.cargs()),
            value_plan: UlPlan::of(&[]),
            format: format.clone(),
            key: None,
            keys: std::mem::take(keys),
        });
        result.iface.session = session;
        result.iface.key_format = format_c.as_ptr();
        result.iface.value_format = c"".as_ptr();
        let (key_item, value_item) = (item(key), item(value));
        let cursor: *mut WT_CURSOR = &mut result.iface;
        // SAFETY: the application's extract method with its own extractor, this session, items
        // that live through the call and a result cursor that does too. The method may use the
        // session as inside any callback of the reference (packing, messages).
        let rc = unsafe { extract(self.object, session, &key_item, &value_item, cursor) };
        *keys = std::mem::take(&mut result.keys);
        match rc {
            0 => Ok(()),
            rc => Err(Error::quiet(Kind::from_code(rc))),
        }
    }

    fn customize(&self, caller: usize, uri: &str, app_metadata: &str) -> Result<Option<Arc<dyn Extractor>>> {
        let Some(customize) = self.slots().customize else { return Ok(None) };
        let mut custom: *mut WT_EXTRACTOR = std::ptr::null_mut();
        let rc = with_object_config(uri, app_metadata, |uri_c, appcfg| {
            // SAFETY: the application's customize method with its own extractor, this session,
            // a NUL-terminated URI and an item, which outlive the call.
            unsafe { customize(self.object, session_of(caller), uri_c, appcfg, &mut custom) }
        })?;
        if rc != 0 {
            return Err(Error::quiet(Kind::from_code(rc)));
        }
        Ok((!custom.is_null()).then(|| Arc::new(AppExtractor { object: custom, owned: true }) as Arc<dyn Extractor>))
    }
}

/// Calls `f` with an object's URI (NUL-terminated) and its `app_metadata` as the configuration
/// item the reference passes to `customize` methods.
pub(super) fn with_object_config<T>(
    uri: &str,
    app_metadata: &str,
    f: impl FnOnce(*const c_char, *mut WT_CONFIG_ITEM) -> T,
) -> Result<T> {
    let uri_c = CString::new(uri).map_err(|_| Error::invalid("embedded NUL in a URI"))?;
    let text = format!("app_metadata={app_metadata}");
    let found = Parser::find(&text, "app_metadata");
    let mut appcfg = match found {
        Some(found) => WT_CONFIG_ITEM::of(&found),
        None => WT_CONFIG_ITEM::of(&crate::config::Item { text: "", kind: crate::config::ItemKind::String, num: 0 }),
    };
    Ok(f(uri_c.as_ptr(), &mut appcfg))
}

/// A `WT_ITEM` over `bytes`.
fn item(bytes: &[u8]) -> WT_ITEM {
    let mut item = super::cursor::empty_item();
    item.data = bytes.as_ptr().cast();
    item.size = bytes.len();
    item
}

/// `WT_CONNECTION::add_extractor`.
///
/// # Safety
/// As the C method: the application's open connection, strings and extractor.
pub unsafe fn add_extractor(c: &ConnectionHandle, name: *const c_char, extractor: *mut WT_EXTRACTOR) -> Result<()> {
    // SAFETY: per the contract.
    let name = unsafe { c_str(name) }?.ok_or_else(|| Error::invalid("NULL name"))?;
    if extractor.is_null() {
        return Err(Error::invalid("NULL extractor"));
    }
    let registered = AppExtractor { object: extractor, owned: false };
    let terminate = registered.slots().terminate.map(|t| -> crate::conn::extensions::Terminate {
        let object = super::extensions::Sendable(extractor);
        Box::new(move || {
            let object = object;
            // SAFETY: the application's terminate method with its own extractor, at close.
            unsafe { t(object.0, std::ptr::null_mut()) };
        })
    });
    c.core.extensions().add_extractor(name, Arc::new(registered), terminate)
}

/// The cursor `extract` inserts index keys into. Its first fields are those of every cursor
/// handle the shim reads (the public struct, then the key and value plans).
#[repr(C)]
struct ResultCursor {
    iface: WT_CURSOR,
    key_plan: UlPlan,
    value_plan: UlPlan,
    /// The index key format with its padding byte.
    format: Format,
    /// The key `set_key` packed (or why it could not).
    key: Option<Result<Vec<u8>>>,
    /// The keys inserted so far, the padding byte cut off.
    keys: Vec<Vec<u8>>,
}

/// The result cursor of a `WT_CURSOR *` the application passes back.
///
/// # Safety
/// `cursor` is NULL or the result cursor of a running `extract` call, used by its thread.
unsafe fn result_of<'a>(cursor: *mut WT_CURSOR) -> Option<&'a mut ResultCursor> {
    // SAFETY: per the contract, the first field of a live `ResultCursor` (repr(C)).
    unsafe { cursor.cast::<ResultCursor>().as_mut() }
}

/// Reports `e` for a method of the result cursor, through the session's handler.
fn report(cursor: &ResultCursor, e: &Error, api: &str) -> c_int {
    let session = cursor.iface.session;
    // SAFETY: the result cursor's session is the live session whose write runs the extractor;
    // only its copyable event handler and its connection's prefix are read.
    let (events, prefix) = unsafe {
        match session.cast::<SessionHandle>().as_ref() {
            Some(handle) => (handle.events, handle.conn().core.error_prefix()),
            None => (Events::default(), String::new()),
        }
    };
    fail(e, events, session, &prefix, api)
}

/// `set_key` of the result cursor (from the shim: the arguments of the key format).
///
/// # Safety
/// Called by the shim with a result cursor and an array of its plan's length (or NULL).
#[no_mangle]
pub unsafe extern "C" fn __unlatched_extract_set_key(cursor: *mut WT_CURSOR, args: *const UlArg, n: size_t) {
    let _ = n;
    guard("WT_CURSOR.set_key", (), || {
        // SAFETY: per the contract.
        let Some(result) = (unsafe { result_of(cursor) }) else { return };
        let mut buf = Vec::new();
        // SAFETY: per the contract, the arguments of the cursor's own plan.
        let packed = unsafe { super::shim::pack_args(&result.format, args, &mut buf) };
        result.key = Some(packed.map(|()| buf));
    })
}

unsafe extern "C" fn insert(cursor: *mut WT_CURSOR) -> c_int {
    const API: &str = "WT_CURSOR.insert";
    guard(API, code::WT_PANIC, || {
        // SAFETY: C calls this slot with the result cursor it was given.
        let Some(result) = (unsafe { result_of(cursor) }) else { return code::EINVAL };
        let key = match &result.key {
            None => Err(Error::invalid("requires key be set")),
            Some(Err(e)) => Err(e.clone()),
            Some(Ok(key)) => Ok(key),
        };
        match key {
            Ok(key) => {
                // The padding byte goes: the primary key is appended in its place.
                let cut = &key[..key.len().saturating_sub(1)];
                result.keys.push(cut.to_vec());
                0
            }
            Err(e) => report(result, &e, API),
        }
    })
}

/// Every other method of the result cursor: `ENOTSUP`, as the reference's.
unsafe fn refuse(cursor: *mut WT_CURSOR, api: &str) -> c_int {
    guard(api, code::WT_PANIC, || {
        // SAFETY: C calls the slot with the result cursor it was given.
        match unsafe { result_of(cursor) } {
            Some(result) => report(result, &crate::stats::unsupported(), api),
            None => code::ENOTSUP,
        }
    })
}

refused! {
    get_raw_key_value(key: *mut WT_ITEM, value: *mut WT_ITEM) => "WT_CURSOR.get_raw_key_value";
    compare(other: *mut WT_CURSOR, comparep: *mut c_int) => "WT_CURSOR.compare";
    equals(other: *mut WT_CURSOR, equalp: *mut c_int) => "WT_CURSOR.equals";
    next() => "WT_CURSOR.next";
    prev() => "WT_CURSOR.prev";
    reset() => "WT_CURSOR.reset";
    search() => "WT_CURSOR.search";
    search_near(exactp: *mut c_int) => "WT_CURSOR.search_near";
    modify(entries: *mut WT_MODIFY, nentries: c_int) => "WT_CURSOR.modify";
    update() => "WT_CURSOR.update";
    remove() => "WT_CURSOR.remove";
    reserve() => "WT_CURSOR.reserve";
    close() => "WT_CURSOR.close";
    largest_key() => "WT_CURSOR.largest_key";
    reconfigure(config: *const c_char) => "WT_CURSOR.reconfigure";
    bound(config: *const c_char) => "WT_CURSOR.bound";
    cache() => "WT_CURSOR.cache";
    reopen(check_only: bool) => "WT_CURSOR.reopen";
}

/// `get_key` / `get_value` of the result cursor (from the shim).
///
/// # Safety
/// Called by the shim with the result cursor.
#[no_mangle]
pub unsafe extern "C" fn __unlatched_extract_refuse(cursor: *mut WT_CURSOR, key: c_int) -> c_int {
    // SAFETY: per the contract.
    unsafe { refuse(cursor, if key != 0 { "WT_CURSOR.get_key" } else { "WT_CURSOR.get_value" }) }
}

unsafe extern "C" fn checkpoint_id(_cursor: *mut WT_CURSOR) -> u64 {
    0
}

extern "C" {
    fn __ul_shim_extract_set_key(cursor: *mut WT_CURSOR, ...);
    fn __ul_shim_extract_set_value(cursor: *mut WT_CURSOR, ...);
    fn __ul_shim_extract_get_key(cursor: *mut WT_CURSOR, ...) -> c_int;
    fn __ul_shim_extract_get_value(cursor: *mut WT_CURSOR, ...) -> c_int;
}

/// The method table of result cursors.
fn result_vtable() -> WT_CURSOR {
    WT_CURSOR {
        get_key: Some(__ul_shim_extract_get_key),
        get_value: Some(__ul_shim_extract_get_value),
        set_key: Some(__ul_shim_extract_set_key),
        set_value: Some(__ul_shim_extract_set_value),
        insert: Some(insert),
        checkpoint_id: Some(checkpoint_id),
        ..special_vtable!()
    }
}
