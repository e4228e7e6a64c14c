//! `WT_CONNECTION::add_collator`, `add_compressor` and `load_extension`: convert, register with
//! the core's [`Extensions`](crate::conn::extensions::Extensions), and arrange the calls the
//! reference makes when the connection closes (each registered extension's `terminate`, then
//! each loaded library's terminate function, newest first). The application's `WT_COMPRESSOR`
//! becomes a [`Compressor`] the block files call, its `WT_COLLATOR` a [`Collate`] the ordered
//! structures of a collated table call.

use std::ffi::{CStr, CString};
use std::sync::Arc;

use libc::{c_char, c_int, c_void, size_t};

use crate::btree::compress::Compressor;
use crate::config::{ItemKind, Parser};
use crate::error::{Error, Kind, Result};
use crate::store::Collate;

use super::extractor::session_of;
use super::handles::{c_str, ConnectionHandle};
use super::config_parser::WT_CONFIG_ITEM;
use super::types::{WT_COLLATOR, WT_COMPRESSOR, WT_CONNECTION, WT_ITEM, WT_SESSION};

type Terminate<T> = unsafe extern "C" fn(*mut T, *mut WT_SESSION) -> c_int;

type CompareFn = unsafe extern "C" fn(*mut WT_COLLATOR, *mut WT_SESSION, *const WT_ITEM, *const WT_ITEM, *mut c_int) -> c_int;

type CustomizeFn = unsafe extern "C" fn(
    *mut WT_COLLATOR,
    *mut WT_SESSION,
    *const c_char,
    *mut WT_CONFIG_ITEM,
    *mut *mut WT_COLLATOR,
) -> c_int;

/// The slots of `WT_COLLATOR` (extension_types.h).
#[repr(C)]
struct CollatorSlots {
    compare: Option<CompareFn>,
    customize: Option<CustomizeFn>,
    terminate: Option<Terminate<WT_COLLATOR>>,
}

/// The application's collator as a collated table's structures call it: with the session whose
/// cursor call compares, or NULL for work of no session (merges, verify, recovery). A
/// customized one (`owned`) is its object's: its `terminate` runs when the object lets go of
/// it (the table dropped, the connection closed).
struct AppCollator {
    object: *mut WT_COLLATOR,
    compare: CompareFn,
    owned: bool,
}

impl AppCollator {
    fn slots(&self) -> &CollatorSlots {
        // SAFETY: a non-NULL `WT_COLLATOR` of the application (checked at registration, and
        // customize results are checked too), whose slots `CollatorSlots` mirrors.
        unsafe { &*self.object.cast::<CollatorSlots>() }
    }
}

impl Drop for AppCollator {
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        if let Some(terminate) = self.slots().terminate {
            // SAFETY: the application's terminate method with its own customized collator,
            // which is not used again.
            unsafe { terminate(self.object, std::ptr::null_mut()) };
        }
    }
}

// SAFETY: the application's collator lives until the connection closes (its terminate runs
// after the tables are closed) and is called from any thread, as the reference calls it.
unsafe impl Send for AppCollator {}
// SAFETY: as above; the engine never changes the struct.
unsafe impl Sync for AppCollator {}

impl Collate for AppCollator {
    fn compare(&self, caller: usize, a: &[u8], b: &[u8]) -> Result<std::cmp::Ordering> {
        let item = |k: &[u8]| WT_ITEM { data: k.as_ptr().cast(), size: k.len(), mem: std::ptr::null_mut(), memsize: 0, flags: 0 };
        let (first, second) = (item(a), item(b));
        let mut cmp: c_int = 0;
        // SAFETY: the application's method with its own collator, the calling session (its
        // token is its `WT_SESSION *`) or NULL, and two items that live through the call (only
        // read).
        let rc = unsafe { (self.compare)(self.object, session_of(caller), &first, &second, &mut cmp) };
        if rc != 0 {
            return Err(Error::quiet(Kind::from_code(rc)));
        }
        Ok(cmp.cmp(&0))
    }

    fn customize(&self, caller: usize, uri: &str, app_metadata: &str) -> Result<Option<Arc<dyn Collate>>> {
        let Some(customize) = self.slots().customize else { return Ok(None) };
        let mut custom: *mut WT_COLLATOR = std::ptr::null_mut();
        let rc = super::extractor::with_object_config(uri, app_metadata, |uri_c, appcfg| {
            // SAFETY: the application's customize method with its own collator, the session
            // (its token is its `WT_SESSION *`), a NUL-terminated URI and an item, which outlive
            // the call.
            unsafe { customize(self.object, session_of(caller), uri_c, appcfg, &mut custom) }
        })?;
        if rc != 0 {
            return Err(Error::quiet(Kind::from_code(rc)));
        }
        if custom.is_null() {
            return Ok(None);
        }
        // SAFETY: the application's customized collator, its slots as `CollatorSlots`.
        let compare = unsafe { custom.cast::<CollatorSlots>().as_ref() }.and_then(|s| s.compare);
        let compare = compare.ok_or_else(|| Error::invalid("a customized collator has no compare method"))?;
        Ok(Some(Arc::new(AppCollator { object: custom, compare, owned: true })))
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// `WT_EXTENSION_API::collator_config` of collator `name` for object `uri`: the application's
/// registered `WT_COLLATOR`, or what its `customize` makes of it for the object (then owned by
/// the caller, who terminates it: `Ok((collator, true))`). Not registered: EINVAL, as `create`.
pub(super) fn collator_for(
    c: &ConnectionHandle,
    session: *mut WT_SESSION,
    name: &str,
    uri: &str,
    app_metadata: &str,
) -> Result<(*mut WT_COLLATOR, bool)> {
    let unknown = || Error::invalid(format!("unknown collator '{name}'"));
    let registered = c.core.extensions().collator(name).ok_or_else(unknown)?;
    let app = registered.as_any().and_then(|a| a.downcast_ref::<AppCollator>()).ok_or_else(unknown)?;
    let Some(customize) = app.slots().customize else { return Ok((app.object, false)) };
    let mut custom: *mut WT_COLLATOR = std::ptr::null_mut();
    let rc = super::extractor::with_object_config(uri, app_metadata, |uri_c, appcfg| {
        // SAFETY: the application's customize method with its own collator, the caller's
        // session, a NUL-terminated URI and an item, which outlive the call.
        unsafe { customize(app.object, session, uri_c, appcfg, &mut custom) }
    })?;
    match rc {
        0 if custom.is_null() => Ok((app.object, false)),
        0 => Ok((custom, true)),
        rc => Err(Error::quiet(Kind::from_code(rc))),
    }
}

type CompressFn = unsafe extern "C" fn(
    *mut WT_COMPRESSOR,
    *mut WT_SESSION,
    *mut u8,
    size_t,
    *mut u8,
    size_t,
    *mut size_t,
    *mut c_int,
) -> c_int;
type DecompressFn =
    unsafe extern "C" fn(*mut WT_COMPRESSOR, *mut WT_SESSION, *mut u8, size_t, *mut u8, size_t, *mut size_t) -> c_int;
type PreSizeFn = unsafe extern "C" fn(*mut WT_COMPRESSOR, *mut WT_SESSION, *mut u8, size_t, *mut size_t) -> c_int;

/// The slots of `WT_COMPRESSOR` (extension_types.h).
#[repr(C)]
struct CompressorSlots {
    compress: Option<CompressFn>,
    decompress: Option<DecompressFn>,
    pre_size: Option<PreSizeFn>,
    terminate: Option<Terminate<WT_COMPRESSOR>>,
}

/// The application's compressor as the block files call it. Its methods get a NULL session:
/// blocks are written and read by merges, checkpoints and page misses, which run on behalf of
/// no particular session (the extension API's `err_printf` takes NULL too).
struct AppCompressor {
    object: *mut WT_COMPRESSOR,
    name: String,
}

// SAFETY: the application's compressor lives until the connection closes (its terminate runs
// after the last block is written) and is called from any thread, as the reference calls it.
unsafe impl Send for AppCompressor {}
// SAFETY: as above; the engine never changes the struct.
unsafe impl Sync for AppCompressor {}

impl AppCompressor {
    fn slots(&self) -> &CompressorSlots {
        // SAFETY: a non-NULL `WT_COMPRESSOR` of the application (checked at registration), whose
        // slots `CompressorSlots` mirrors.
        unsafe { &*self.object.cast::<CompressorSlots>() }
    }

    fn failed(&self, method: &str, rc: c_int) -> Error {
        Error::new(Kind::from_code(rc), format!("compressor '{}': {method} returned {rc}", self.name))
    }
}

impl Compressor for AppCompressor {
    fn compress(&self, src: &[u8], dst: &mut Vec<u8>) -> Result<bool> {
        // No compress method: blocks are stored as they are, as the reference.
        let Some(compress) = self.slots().compress else { return Ok(false) };
        // The methods take `uint8_t *src`; they only read it (the reference passes its page
        // image the same way).
        let src_ptr = src.as_ptr().cast_mut();
        let mut room = src.len();
        if let Some(pre_size) = self.slots().pre_size {
            // SAFETY: the application's method with its own compressor and the image, which
            // lives through the call.
            let rc = unsafe { pre_size(self.object, std::ptr::null_mut(), src_ptr, src.len(), &mut room) };
            if rc != 0 {
                return Err(self.failed("pre_size", rc));
            }
        }
        dst.clear();
        dst.resize(room, 0);
        let (mut result, mut declined): (size_t, c_int) = (0, 0);
        // SAFETY: the application's method with its own compressor, the image, and an output
        // buffer of `room` bytes that lives through the call.
        let rc = unsafe {
            compress(self.object, std::ptr::null_mut(), src_ptr, src.len(), dst.as_mut_ptr(), room, &mut result, &mut declined)
        };
        if rc != 0 {
            return Err(self.failed("compress", rc));
        }
        if declined != 0 {
            return Ok(false);
        }
        if result > room {
            return Err(Error::invalid(format!(
                "compressor '{}': compress reported {result} bytes in a buffer of {room}",
                self.name
            )));
        }
        dst.truncate(result);
        Ok(true)
    }

    fn decompress(&self, src: &[u8], dst: &mut [u8]) -> Result<usize> {
        let Some(decompress) = self.slots().decompress else {
            return Err(Error::new(Kind::Generic, format!("compressor '{}' has no decompress method", self.name)));
        };
        let mut result: size_t = 0;
        // SAFETY: the application's method with its own compressor, the stored bytes (only read)
        // and the output buffer, both living through the call.
        let rc = unsafe {
            decompress(
                self.object,
                std::ptr::null_mut(),
                src.as_ptr().cast_mut(),
                src.len(),
                dst.as_mut_ptr(),
                dst.len(),
                &mut result,
            )
        };
        if rc != 0 {
            return Err(self.failed("decompress", rc));
        }
        Ok(result)
    }
}

/// A pointer the application passed, moved into the close action that uses it.
pub(super) struct Sendable<T>(pub(super) *mut T);
// SAFETY: the application's extension objects live until the connection closes (the API's
// rule) and are used by the closing thread only.
unsafe impl<T> Send for Sendable<T> {}

/// The name and the close action of `add_collator` / `add_compressor`: `object` is the
/// application's `WT_COLLATOR` / `WT_COMPRESSOR`, `terminate` its terminate slot (read now: the
/// struct is the application's and fixed once registered).
///
/// # Safety
/// `name` is NUL-terminated or NULL; `object` NULL or the application's struct.
unsafe fn parts<'a, T: 'static>(
    name: *const c_char,
    object: *mut T,
    terminate: Option<Terminate<T>>,
) -> Result<(&'a str, Option<crate::conn::extensions::Terminate>)> {
    // SAFETY: per the contract.
    let name = unsafe { c_str(name) }?.ok_or_else(|| Error::invalid("NULL name"))?;
    if object.is_null() {
        return Err(Error::invalid("NULL extension"));
    }
    let object = Sendable(object);
    let action = terminate.map(|t| -> crate::conn::extensions::Terminate {
        Box::new(move || {
            let object = object;
            // SAFETY: the application's terminate method with its own object; no session is
            // open any more (the reference passes its internal one).
            unsafe { t(object.0, std::ptr::null_mut()) };
        })
    });
    Ok((name, action))
}

/// `WT_CONNECTION::add_collator`.
///
/// # Safety
/// As the C method: the application's open connection, strings and collator.
pub unsafe fn add_collator(c: &ConnectionHandle, name: *const c_char, collator: *mut WT_COLLATOR) -> Result<()> {
    // SAFETY: a non-NULL collator is the application's `WT_COLLATOR`, whose leading slots
    // `CollatorSlots` mirrors.
    let slots = unsafe { collator.cast::<CollatorSlots>().as_ref() };
    // SAFETY: per the contract.
    let (name, action) = unsafe { parts(name, collator, slots.and_then(|s| s.terminate)) }?;
    let compare = slots
        .and_then(|s| s.compare)
        .ok_or_else(|| Error::invalid(format!("collator '{name}' has no compare method")))?;
    c.core.extensions().add_collator(name, Arc::new(AppCollator { object: collator, compare, owned: false }), action)
}

/// `WT_CONNECTION::add_compressor`.
///
/// # Safety
/// As the C method: the application's open connection, strings and compressor.
pub unsafe fn add_compressor(c: &ConnectionHandle, name: *const c_char, compressor: *mut WT_COMPRESSOR) -> Result<()> {
    // SAFETY: a non-NULL compressor is the application's `WT_COMPRESSOR`, whose leading slots
    // `CompressorSlots` mirrors.
    let terminate = unsafe { compressor.cast::<CompressorSlots>().as_ref() }.and_then(|s| s.terminate);
    // SAFETY: per the contract.
    let (name, action) = unsafe { parts(name, compressor, terminate) }?;
    let wrapped = Arc::new(AppCompressor { object: compressor, name: name.to_string() });
    c.core.extensions().add_compressor(name, wrapped, action)
}

/// The `load_extension` settings: entry and terminate function names.
fn load_settings(config: Option<&str>) -> Result<(String, String)> {
    let mut entry = "wiredtiger_extension_init".to_string();
    let mut terminate = "wiredtiger_extension_terminate".to_string();
    for pair in Parser::new(config.unwrap_or("")) {
        let (key, value) = pair?;
        let text = || match value.kind {
            ItemKind::String | ItemKind::Id => Ok(value.text.to_string()),
            _ => Err(Error::invalid(format!("{key}: expected a function name"))),
        };
        match key {
            "entry" => entry = text()?,
            "terminate" => terminate = text()?,
            "config" | "early_load" => {}
            _ => return Err(Error::invalid(format!("unknown configuration key '{key}'"))),
        }
    }
    Ok((entry, terminate))
}

/// The last `dlerror` text.
fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next dl call on
    // this thread.
    unsafe {
        let e = libc::dlerror();
        if e.is_null() { "unknown error".to_string() } else { CStr::from_ptr(e).to_string_lossy().into_owned() }
    }
}

/// A loaded library, closed when the connection closes.
struct Library(*mut c_void);
// SAFETY: a dlopen handle may be used and closed from any thread.
unsafe impl Send for Library {}

/// `WT_CONNECTION::load_extension`: loads the shared library at `path` and calls its entry
/// function (`wiredtiger_extension_init`, or `entry=`) with the connection; at close its
/// terminate function (`wiredtiger_extension_terminate`, or `terminate=`) is called if it has
/// one, and the library is closed. The entry function's configuration argument holds the
/// `config=` value, for `WT_EXTENSION_API::config_get`.
///
/// # Safety
/// As the C method: the application's open connection and strings.
pub unsafe fn load_extension(c: &ConnectionHandle, conn: *mut WT_CONNECTION, path: *const c_char, config: *const c_char) -> Result<()> {
    // SAFETY: per the contract.
    let (path_text, config) = unsafe { (c_str(path)?, c_str(config)?) };
    let path_text = path_text.ok_or_else(|| Error::invalid("NULL path"))?;
    // SAFETY: per the contract.
    unsafe { load(c, conn, path_text, config) }
}

/// `wiredtiger_open`'s `extensions=[PATH, PATH=(entry=...,terminate=...), ...]`: loads each as
/// `load_extension` does, in order.
///
/// # Safety
/// `conn` is the connection `c` is the handle of, just opened.
pub unsafe fn load_listed(c: &ConnectionHandle, conn: *mut WT_CONNECTION, config: Option<&str>) -> Result<()> {
    let Some(list) = config.and_then(|cfg| Parser::find(cfg, "extensions")) else { return Ok(()) };
    let inner = list.text.strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or(list.text);
    let inner = inner.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(inner);
    for pair in Parser::new(inner) {
        let (path, value) = pair?;
        let config = match value.kind {
            ItemKind::Struct => Some(value.text.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(value.text)),
            _ => None,
        };
        // SAFETY: per the contract.
        unsafe { load(c, conn, path, config)? };
    }
    Ok(())
}

/// `wiredtiger_open`'s `log=(compressor=NAME)`: as the reference, an unregistered name (after
/// `extensions=` loaded theirs) fails the open with `EINVAL` "unknown compressor". A
/// registered one compresses the journal's records (`Connection::finish_open` then replays
/// the journal with it).
pub fn check_log_compressor(c: &ConnectionHandle, config: Option<&str>) -> Result<()> {
    let Some(log) = config.and_then(|cfg| Parser::find(cfg, "log")) else { return Ok(()) };
    let inner = log.text.strip_prefix('(').and_then(|t| t.strip_suffix(')')).unwrap_or(log.text);
    match Parser::find(inner, "compressor") {
        Some(name) => c.core.extensions().check_create(crate::conn::extensions::ExtensionKind::Compressor, name.text),
        None => Ok(()),
    }
}

/// Loads the library at `path_text` (see [`load_extension`]).
///
/// # Safety
/// `conn` is the connection `c` is the handle of.
unsafe fn load(c: &ConnectionHandle, conn: *mut WT_CONNECTION, path_text: &str, config: Option<&str>) -> Result<()> {
    let (entry, terminate) = load_settings(config)?;
    let cpath = CString::new(path_text).map_err(|_| Error::invalid("bad path"))?;
    // SAFETY: a NUL-terminated path; the library's initializers run here, as with the
    // reference.
    let lib = unsafe { libc::dlopen(cpath.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if lib.is_null() {
        return Err(Error::invalid(format!("dlopen({path_text}): {}", dl_error())));
    }
    let symbol = |name: &str| {
        let name = CString::new(name).unwrap_or_default();
        // SAFETY: a live handle and a NUL-terminated name.
        unsafe { libc::dlsym(lib, name.as_ptr()) }
    };
    let init = symbol(&entry);
    if init.is_null() {
        // SAFETY: the handle just opened, unused elsewhere.
        unsafe { libc::dlclose(lib) };
        return Err(Error::invalid(format!("{path_text}: no {entry} function")));
    }
    type Init = unsafe extern "C" fn(*mut WT_CONNECTION, *mut c_void) -> c_int;
    type Term = unsafe extern "C" fn(*mut WT_CONNECTION) -> c_int;
    // SAFETY: the extension interface: the entry function has the reference's signature.
    let init: Init = unsafe { std::mem::transmute::<*mut c_void, Init>(init) };
    let term = symbol(&terminate);
    let term: Option<Term> = (!term.is_null()).then(|| {
        // SAFETY: as for the entry function.
        unsafe { std::mem::transmute::<*mut c_void, Term>(term) }
    });
    let (library, connection) = (Library(lib), Sendable(conn));
    // Registered before the entry runs, so that it runs after what the entry registers is
    // terminated (close runs the actions newest first).
    c.core.extensions().on_close(Box::new(move || {
        let (library, connection) = (library, connection);
        if let Some(term) = term {
            // SAFETY: the library's terminate function with the connection being closed.
            unsafe { term(connection.0) };
        }
        // SAFETY: nothing of the library is used after its terminate function.
        unsafe { libc::dlclose(library.0) };
    }));
    // The entry's configuration argument, as the reference passes it: a NULL-terminated list
    // holding the `config=` value (empty without one), read with WT_EXTENSION_API::config_get.
    let ext_config = config.and_then(|cfg| Parser::find(cfg, "config")).map_or("", |item| item.text);
    let ext_config = CString::new(ext_config).map_err(|_| Error::invalid("embedded NUL in config"))?;
    let mut arg = [ext_config.as_ptr(), std::ptr::null()];
    // SAFETY: the entry function of the extension with the application's connection and a
    // configuration argument that lives through the call.
    let rc = unsafe { init(conn, arg.as_mut_ptr().cast()) };
    if rc != 0 {
        return Err(Error::new(crate::error::Kind::from_code(rc), format!("{path_text}: {entry} returned {rc}")));
    }
    Ok(())
}
