//! The C API: converts between C and the core, and delegates. No engine logic lives here.
//!
//! Every exported function and method slot runs inside `boundary::guard`, which catches panics
//! (a panic never unwinds into C) and maps core errors to return codes and event-handler
//! messages in one place; the only code outside it is the hot paths' fast cases, which call
//! nothing and contain nothing that can panic. `diagnostic` adds the contract checks of the
//! `diagnostic` cargo feature to every session and cursor call.

pub mod types;

/// Declares cursor methods that a cursor kind refuses: each calls the kind's own `refuse`
/// (in scope where the macro is used) with the method's name.
macro_rules! refused {
    ($($name:ident ( $($arg:ident : $ty:ty),* ) => $api:literal;)*) => {$(
        unsafe extern "C" fn $name(cursor: *mut WT_CURSOR $(, $arg: $ty)*) -> c_int {
            $(let _ = $arg;)*
            // SAFETY: C calls this slot with its own open cursor (API contract).
            unsafe { refuse(cursor, $api) }
        }
    )*};
}

/// The method table of a cursor kind with its own methods: every slot names the function of
/// that name in scope where the macro is used; the rest come from `vtable()` there.
macro_rules! special_vtable {
    () => {
        WT_CURSOR {
            get_raw_key_value: Some(get_raw_key_value),
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
            close: Some(close),
            largest_key: Some(largest_key),
            reconfigure: Some(reconfigure),
            bound: Some(bound),
            cache: Some(cache),
            reopen: Some(reopen),
            ..vtable()
        }
    };
}

mod boundary;
mod config_parser;
mod connection;
mod cursor;
mod diagnostic;
mod events;
mod extension_api;
mod extensions;
mod extractor;
mod global;
mod handles;
mod listing_cursor;
mod pack_stream;
mod session;
mod shim;
mod standalone;
mod schema_cursor;
mod stats_cursor;

pub use global::{wiredtiger_open, wiredtiger_strerror, wiredtiger_version};
pub use standalone::wiredtiger_config_validate;
