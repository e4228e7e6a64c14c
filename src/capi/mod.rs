//! The C API: converts between C and the core, and delegates. No engine logic lives here.
//!
//! Every exported function and method slot runs inside `boundary::guard`, which catches panics
//! (a panic never unwinds into C) and maps core errors to return codes and event-handler
//! messages in one place; the only code outside it is the hot paths' fast cases, which call
//! nothing and contain nothing that can panic. `diagnostic` adds the contract checks of the
//! `diagnostic` cargo feature to every session and cursor call.

pub mod types;

mod boundary;
mod config_parser;
mod connection;
mod cursor;
mod diagnostic;
mod events;
mod extensions;
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
