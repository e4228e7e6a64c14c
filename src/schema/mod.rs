//! Schema: tables, their formats, and the connection-wide registry that finds them by URI;
//! named columns, column groups and indices (`columns`, `layout`).

pub mod columns;
pub mod layout;
mod registry;
mod table;
#[cfg(loom)]
pub(crate) use table::test_table;

pub use registry::Registry;
pub use table::{Table, TableSpec, TableUse};

/// Checks a `key_format`/`value_format` for the configuration validator.
pub fn check_format(format: &str) -> Result<(), String> {
    crate::pack::Format::parse(format).map(drop).map_err(|e| e.to_string())
}
