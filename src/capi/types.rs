//! The public structs of `wiredtiger.h`, laid out exactly as in the reference (x86-64 offsets in
//! `../shared/spec/abi-x86_64.tsv`, asserted by `c-tests/abi.c` and the unit test below).
//!
//! Struct bodies carry the reference's tag names (`__wt_cursor`, …); the `WT_*` names are
//! typedefs that the header declares up front (see `cbindgen.toml`), so every signature reads
//! as it does in the reference header.
#![allow(non_camel_case_types)]

use libc::{c_char, c_int, c_void, size_t};

pub type WT_CONNECTION = __wt_connection;
pub type WT_SESSION = __wt_session;
pub type WT_CURSOR = __wt_cursor;
pub type WT_ITEM = __wt_item;
pub type WT_MODIFY = __wt_modify;
pub type WT_EVENT_HANDLER = __wt_event_handler;
/// `enum WT_EVENT_TYPE` in C (an `int`); the header declares the enum itself.
pub type WT_EVENT_TYPE = c_int;
/// `enum WT_TS_TXN_TYPE` in C (an `int`).
pub type WT_TS_TXN_TYPE = c_int;

/// Declares a type the API only passes by pointer (extension interfaces we do not implement).
macro_rules! opaque {
    ($($name:ident),* $(,)?) => {$(
        #[repr(C)]
        pub struct $name {
            _private: [u8; 0],
        }
    )*};
}
opaque!(
    WT_DATA_SOURCE,
    WT_COLLATOR,
    WT_COMPRESSOR,
    WT_ENCRYPTOR,
    WT_EXTRACTOR,
    WT_FILE_SYSTEM,
    WT_STORAGE_SOURCE,
    WT_EXTENSION_API,
);

/// A raw item of data: a pointer and a length. Items returned by a cursor stay valid until the
/// next operation on that cursor.
#[repr(C)]
pub struct __wt_item {
    /// The data.
    pub data: *const c_void,
    /// Its length in bytes.
    pub size: size_t,
    /// Internal use.
    pub mem: *mut c_void,
    /// Internal use.
    pub memsize: size_t,
    /// Internal use.
    pub flags: u32,
}

/// One change of a value for `WT_CURSOR::modify`.
#[repr(C)]
pub struct __wt_modify {
    /// New bytes (may be empty).
    pub data: __wt_item,
    /// Byte position in the old value.
    pub offset: size_t,
    /// Number of old bytes replaced (0 = insert).
    pub size: size_t,
}

/// Application callbacks for errors, messages, progress and handle closes. NULL slots take the
/// defaults (stderr for errors, stdout for messages, ignore for the rest).
#[repr(C)]
pub struct __wt_event_handler {
    /// Called with every error message.
    pub handle_error: Option<
        unsafe extern "C" fn(
            handler: *mut WT_EVENT_HANDLER,
            session: *mut WT_SESSION,
            error: c_int,
            message: *const c_char,
        ) -> c_int,
    >,
    /// Called with informational messages.
    pub handle_message: Option<
        unsafe extern "C" fn(
            handler: *mut WT_EVENT_HANDLER,
            session: *mut WT_SESSION,
            message: *const c_char,
        ) -> c_int,
    >,
    /// Called with progress reports of long operations.
    pub handle_progress: Option<
        unsafe extern "C" fn(
            handler: *mut WT_EVENT_HANDLER,
            session: *mut WT_SESSION,
            operation: *const c_char,
            progress: u64,
        ) -> c_int,
    >,
    /// Called for each handle the library closes on the application's behalf.
    pub handle_close: Option<
        unsafe extern "C" fn(
            handler: *mut WT_EVENT_HANDLER,
            session: *mut WT_SESSION,
            cursor: *mut WT_CURSOR,
        ) -> c_int,
    >,
    /// Called for general events (connection ready, closing, …).
    pub handle_general: Option<
        unsafe extern "C" fn(
            handler: *mut WT_EVENT_HANDLER,
            wt_conn: *mut WT_CONNECTION,
            session: *mut WT_SESSION,
            type_: WT_EVENT_TYPE,
            arg: *mut c_void,
        ) -> c_int,
    >,
}


/// A connection to a database: a table of methods. Shared by all threads.
#[repr(C)]
pub struct __wt_connection {
    /// Close the connection, every session and cursor; the handle is invalid afterwards.
    pub close: Option<unsafe extern "C" fn(connection: *mut WT_CONNECTION, config: *const c_char) -> c_int>,
    /// Dump internal state (not supported: ENOTSUP).
    pub debug_info: Option<unsafe extern "C" fn(connection: *mut WT_CONNECTION, config: *const c_char) -> c_int>,
    /// Change connection settings.
    pub reconfigure: Option<unsafe extern "C" fn(connection: *mut WT_CONNECTION, config: *const c_char) -> c_int>,
    /// The home directory as passed to `wiredtiger_open` ("." for NULL).
    pub get_home: Option<unsafe extern "C" fn(connection: *mut WT_CONNECTION) -> *const c_char>,
    /// Pre-compile a configuration string (not supported: ENOTSUP).
    pub compile_configuration: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            method: *const c_char,
            str_: *const c_char,
            compiled: *mut *const c_char,
        ) -> c_int,
    >,
    /// Add configuration keys for a custom data source (not supported: ENOTSUP).
    pub configure_method: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            method: *const c_char,
            uri: *const c_char,
            config: *const c_char,
            type_: *const c_char,
            check: *const c_char,
        ) -> c_int,
    >,
    /// Non-zero if this open created the database.
    pub is_new: Option<unsafe extern "C" fn(connection: *mut WT_CONNECTION) -> c_int>,
    /// Open a session; NULL `event_handler` uses the connection's.
    pub open_session: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            event_handler: *mut WT_EVENT_HANDLER,
            config: *const c_char,
            sessionp: *mut *mut WT_SESSION,
        ) -> c_int,
    >,
    /// Global timestamps (not supported yet: ENOTSUP).
    pub query_timestamp: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            hex_timestamp: *mut c_char,
            config: *const c_char,
        ) -> c_int,
    >,
    /// Set global timestamps (not supported yet: ENOTSUP).
    pub set_timestamp: Option<unsafe extern "C" fn(connection: *mut WT_CONNECTION, config: *const c_char) -> c_int>,
    /// Roll back to the stable timestamp (not supported yet: ENOTSUP).
    pub rollback_to_stable: Option<unsafe extern "C" fn(connection: *mut WT_CONNECTION, config: *const c_char) -> c_int>,
    /// Load an extension (not supported: ENOTSUP).
    pub load_extension: Option<
        unsafe extern "C" fn(connection: *mut WT_CONNECTION, path: *const c_char, config: *const c_char) -> c_int,
    >,
    /// Register a data source (not supported: ENOTSUP).
    pub add_data_source: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            prefix: *const c_char,
            data_source: *mut WT_DATA_SOURCE,
            config: *const c_char,
        ) -> c_int,
    >,
    /// Register a collator (not supported: ENOTSUP).
    pub add_collator: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            name: *const c_char,
            collator: *mut WT_COLLATOR,
            config: *const c_char,
        ) -> c_int,
    >,
    /// Register a compressor (not supported: ENOTSUP).
    pub add_compressor: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            name: *const c_char,
            compressor: *mut WT_COMPRESSOR,
            config: *const c_char,
        ) -> c_int,
    >,
    /// Register an encryptor (not supported: ENOTSUP).
    pub add_encryptor: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            name: *const c_char,
            encryptor: *mut WT_ENCRYPTOR,
            config: *const c_char,
        ) -> c_int,
    >,
    /// Register an extractor (not supported: ENOTSUP).
    pub add_extractor: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            name: *const c_char,
            extractor: *mut WT_EXTRACTOR,
            config: *const c_char,
        ) -> c_int,
    >,
    /// Replace the file system (not supported: ENOTSUP).
    pub set_file_system: Option<
        unsafe extern "C" fn(connection: *mut WT_CONNECTION, fs: *mut WT_FILE_SYSTEM, config: *const c_char) -> c_int,
    >,
    /// Register a storage source (not supported: ENOTSUP).
    pub add_storage_source: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            name: *const c_char,
            storage_source: *mut WT_STORAGE_SOURCE,
            config: *const c_char,
        ) -> c_int,
    >,
    /// Look up a storage source (not supported: ENOTSUP).
    pub get_storage_source: Option<
        unsafe extern "C" fn(
            connection: *mut WT_CONNECTION,
            name: *const c_char,
            storage_sourcep: *mut *mut WT_STORAGE_SOURCE,
        ) -> c_int,
    >,
    /// The extension API (not supported: NULL).
    pub get_extension_api: Option<unsafe extern "C" fn(wt_conn: *mut WT_CONNECTION) -> *mut WT_EXTENSION_API>,
}

/// A session: one thread's context for cursors and transactions. Used by one thread at a time.
#[repr(C)]
pub struct __wt_session {
    /// The connection this session belongs to.
    pub connection: *mut WT_CONNECTION,
    /// Free for the application; the library never touches it.
    pub app_private: *mut c_void,
    /// Close the session, its cursors and cached cursors; rolls back a running transaction.
    pub close: Option<unsafe extern "C" fn(session: *mut WT_SESSION, config: *const c_char) -> c_int>,
    /// Change session settings; resets the session's cursors.
    pub reconfigure: Option<unsafe extern "C" fn(session: *mut WT_SESSION, config: *const c_char) -> c_int>,
    /// Text for an error code (thread safe).
    pub strerror: Option<unsafe extern "C" fn(session: *mut WT_SESSION, error: c_int) -> *const c_char>,
    /// Open a cursor on `uri`, or duplicate `to_dup`.
    pub open_cursor: Option<
        unsafe extern "C" fn(
            session: *mut WT_SESSION,
            uri: *const c_char,
            to_dup: *mut WT_CURSOR,
            config: *const c_char,
            cursorp: *mut *mut WT_CURSOR,
        ) -> c_int,
    >,
    /// Alter an object's settings (not supported yet: ENOTSUP).
    pub alter: Option<unsafe extern "C" fn(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int>,
    /// Bind values into a compiled configuration (variadic; not supported: ENOTSUP).
    pub bind_configuration: Option<unsafe extern "C" fn(session: *mut WT_SESSION, compiled: *const c_char, ...) -> c_int>,
    /// Create a table.
    pub create: Option<unsafe extern "C" fn(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int>,
    /// Compact an object (not supported yet: ENOTSUP).
    pub compact: Option<unsafe extern "C" fn(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int>,
    /// Drop a table.
    pub drop: Option<unsafe extern "C" fn(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int>,
    /// Join cursors (not supported: ENOTSUP).
    pub join: Option<
        unsafe extern "C" fn(
            session: *mut WT_SESSION,
            join_cursor: *mut WT_CURSOR,
            ref_cursor: *mut WT_CURSOR,
            config: *const c_char,
        ) -> c_int,
    >,
    /// Flush the log (not supported yet: ENOTSUP).
    pub log_flush: Option<unsafe extern "C" fn(session: *mut WT_SESSION, config: *const c_char) -> c_int>,
    /// Write a message to the log (variadic; not supported yet: ENOTSUP).
    pub log_printf: Option<unsafe extern "C" fn(session: *mut WT_SESSION, format: *const c_char, ...) -> c_int>,
    /// Rename an object (not supported yet: ENOTSUP).
    pub rename: Option<
        unsafe extern "C" fn(
            session: *mut WT_SESSION,
            uri: *const c_char,
            newuri: *const c_char,
            config: *const c_char,
        ) -> c_int,
    >,
    /// Reset every cursor of the session and release resources.
    pub reset: Option<unsafe extern "C" fn(session: *mut WT_SESSION) -> c_int>,
    /// Salvage an object (not supported: ENOTSUP).
    pub salvage: Option<unsafe extern "C" fn(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int>,
    /// Truncate an object or a key range (not supported yet: ENOTSUP).
    pub truncate: Option<
        unsafe extern "C" fn(
            session: *mut WT_SESSION,
            name: *const c_char,
            start: *mut WT_CURSOR,
            stop: *mut WT_CURSOR,
            config: *const c_char,
        ) -> c_int,
    >,
    /// Verify an object (not supported: ENOTSUP).
    pub verify: Option<unsafe extern "C" fn(session: *mut WT_SESSION, name: *const c_char, config: *const c_char) -> c_int>,
    /// Start a transaction.
    pub begin_transaction: Option<unsafe extern "C" fn(session: *mut WT_SESSION, config: *const c_char) -> c_int>,
    /// Commit the running transaction.
    pub commit_transaction: Option<unsafe extern "C" fn(session: *mut WT_SESSION, config: *const c_char) -> c_int>,
    /// Prepare the running transaction (not supported yet: ENOTSUP).
    pub prepare_transaction: Option<unsafe extern "C" fn(session: *mut WT_SESSION, config: *const c_char) -> c_int>,
    /// Roll back the running transaction.
    pub rollback_transaction: Option<unsafe extern "C" fn(session: *mut WT_SESSION, config: *const c_char) -> c_int>,
    /// Session timestamps (not supported yet: ENOTSUP).
    pub query_timestamp: Option<
        unsafe extern "C" fn(session: *mut WT_SESSION, hex_timestamp: *mut c_char, config: *const c_char) -> c_int,
    >,
    /// Set transaction timestamps (not supported yet: ENOTSUP).
    pub timestamp_transaction: Option<unsafe extern "C" fn(session: *mut WT_SESSION, config: *const c_char) -> c_int>,
    /// Set one transaction timestamp (not supported yet: ENOTSUP).
    pub timestamp_transaction_uint: Option<
        unsafe extern "C" fn(session: *mut WT_SESSION, which: WT_TS_TXN_TYPE, ts: u64) -> c_int,
    >,
    /// Write a checkpoint (in-memory databases: ENOTSUP).
    pub checkpoint: Option<unsafe extern "C" fn(session: *mut WT_SESSION, config: *const c_char) -> c_int>,
    /// Take a new snapshot in a read-only transaction.
    pub reset_snapshot: Option<unsafe extern "C" fn(session: *mut WT_SESSION) -> c_int>,
    /// Range of transaction ids pinned by this session.
    pub transaction_pinned_range: Option<unsafe extern "C" fn(session: *mut WT_SESSION, range: *mut u64) -> c_int>,
    /// Text for the last WT_ROLLBACK, or NULL.
    pub get_rollback_reason: Option<unsafe extern "C" fn(session: *mut WT_SESSION) -> *const c_char>,
    /// Debugging hook; returns 0.
    pub breakpoint: Option<unsafe extern "C" fn(session: *mut WT_SESSION) -> c_int>,
}

/// The links of the reference's cursor queue (kept for layout only).
#[repr(C)]
pub struct __wt_cursor_q {
    /// Internal use.
    pub tqe_next: *mut WT_CURSOR,
    /// Internal use.
    pub tqe_prev: *mut *mut WT_CURSOR,
}

/// A cursor: positioned access to the records of one object. Used by one thread at a time.
#[repr(C)]
pub struct __wt_cursor {
    /// The session the cursor belongs to.
    pub session: *mut WT_SESSION,
    /// The URI the cursor was opened with.
    pub uri: *const c_char,
    /// The object's key format ("u" when none was given).
    pub key_format: *const c_char,
    /// The object's value format ("u" when none was given).
    pub value_format: *const c_char,
    /// Read the current key into the pointers named by `key_format`.
    pub get_key: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR, ...) -> c_int>,
    /// Read the current value into the pointers named by `value_format`.
    pub get_value: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR, ...) -> c_int>,
    /// Read the raw packed key and value; either pointer may be NULL.
    pub get_raw_key_value: Option<
        unsafe extern "C" fn(cursor: *mut WT_CURSOR, key: *mut WT_ITEM, value: *mut WT_ITEM) -> c_int,
    >,
    /// Set the key for the next operation; errors surface at that operation.
    pub set_key: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR, ...)>,
    /// Set the value for the next operation; errors surface at that operation.
    pub set_value: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR, ...)>,
    /// Order of two cursors' keys (-1, 0, 1).
    pub compare: Option<
        unsafe extern "C" fn(cursor: *mut WT_CURSOR, other: *mut WT_CURSOR, comparep: *mut c_int) -> c_int,
    >,
    /// Whether two cursors' keys are equal (1) or not (0).
    pub equals: Option<
        unsafe extern "C" fn(cursor: *mut WT_CURSOR, other: *mut WT_CURSOR, equalp: *mut c_int) -> c_int,
    >,
    /// Move to the next record (the first when unpositioned).
    pub next: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Move to the previous record (the last when unpositioned).
    pub prev: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Drop the position, key and value.
    pub reset: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Position on the record with the set key.
    pub search: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Position on the set key or a neighbour; `*exactp` says which side.
    pub search_near: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR, exactp: *mut c_int) -> c_int>,
    /// Insert (or with overwrite, replace) the record.
    pub insert: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Apply modifications to the value (not supported yet: ENOTSUP).
    pub modify: Option<
        unsafe extern "C" fn(cursor: *mut WT_CURSOR, entries: *mut WT_MODIFY, nentries: c_int) -> c_int,
    >,
    /// Update (or with overwrite, insert) the record.
    pub update: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Remove the record.
    pub remove: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Reserve the record in a transaction (not supported yet: ENOTSUP).
    pub reserve: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Checkpoint id of a checkpoint cursor, else 0.
    pub checkpoint_id: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> u64>,
    /// Close the cursor; the handle is invalid afterwards.
    pub close: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Set the key to the largest key (not supported yet: ENOTSUP).
    pub largest_key: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Change `overwrite`/`append`; resets the cursor.
    pub reconfigure: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR, config: *const c_char) -> c_int>,
    /// Set or clear range bounds (not supported yet: ENOTSUP).
    pub bound: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR, config: *const c_char) -> c_int>,
    /// Internal use.
    pub cache: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR) -> c_int>,
    /// Internal use.
    pub reopen: Option<unsafe extern "C" fn(cursor: *mut WT_CURSOR, check_only: bool) -> c_int>,
    /// Internal use.
    pub uri_hash: u64,
    /// Internal use.
    pub q: __wt_cursor_q,
    /// Internal use.
    pub recno: u64,
    /// Internal use.
    pub raw_recno_buf: [u8; 9],
    /// Internal use.
    pub json_private: *mut c_void,
    /// Internal use (language bindings).
    pub lang_private: *mut c_void,
    /// Internal use.
    pub key: __wt_item,
    /// Internal use.
    pub value: __wt_item,
    /// Internal use.
    pub saved_err: c_int,
    /// Internal use.
    pub internal_uri: *const c_char,
    /// Internal use.
    pub lower_bound: __wt_item,
    /// Internal use.
    pub upper_bound: __wt_item,
    /// Internal use.
    pub flags: u64,
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn sizes_match_the_reference() {
        assert_eq!(size_of::<WT_CURSOR>(), 472);
        assert_eq!(size_of::<WT_SESSION>(), 248);
        assert_eq!(size_of::<WT_CONNECTION>(), 168);
        assert_eq!(size_of::<WT_ITEM>(), 40);
        assert_eq!(size_of::<WT_EVENT_HANDLER>(), 40);
        assert_eq!(size_of::<WT_MODIFY>(), 56);
        assert_eq!(offset_of!(WT_CURSOR, raw_recno_buf), 256);
        assert_eq!(offset_of!(WT_CURSOR, json_private), 272);
        assert_eq!(offset_of!(WT_CURSOR, flags), 464);
        assert_eq!(offset_of!(WT_SESSION, breakpoint), 240);
        assert_eq!(offset_of!(WT_CONNECTION, get_extension_api), 160);
    }
}
