//! unlatched: a transactional key-value storage engine with the WiredTiger C API, built so that
//! no hot path writes a cache line that another thread writes. See ARCHITECTURE.md.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod alloc;
pub mod btree;
pub mod config;
pub mod conn;
pub mod cursor;
pub mod durable;
pub mod error;
#[doc(hidden)]
pub mod fuzz;
pub mod pack;
pub mod schema;
pub mod session;
pub mod stats;
pub mod store;
pub(crate) mod sync;

#[cfg(all(test, loom))]
mod loom_tests;
pub mod txn;

#[allow(missing_docs)]
pub mod capi;
