//! The C API: converts between C and the core, and delegates. No engine logic lives here.
//!
//! Every exported function and method slot runs inside `boundary::guard`, which catches panics
//! (a panic never unwinds into C) and maps core errors to return codes and event-handler
//! messages in one place.

pub mod types;

mod boundary;
mod connection;
mod cursor;
mod events;
mod global;
mod handles;
mod session;
mod shim;
mod stats_cursor;

pub use global::{wiredtiger_open, wiredtiger_strerror, wiredtiger_version};
