//! A cursor's settings from `open_cursor` and `WT_CURSOR::reconfigure`.

use crate::config::Config;

/// Settings a table cursor acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CursorConfig {
    /// Insert/update ignore whether the record exists (default true).
    pub overwrite: bool,
    /// Keys and values cross the API as packed `WT_ITEM`s.
    pub raw: bool,
    /// Record-number tables: insert assigns the next record number.
    pub append: bool,
    /// Writes fail with `ENOTSUP`.
    pub readonly: bool,
}

impl Default for CursorConfig {
    fn default() -> Self {
        CursorConfig { overwrite: true, raw: false, append: false, readonly: false }
    }
}

impl CursorConfig {
    /// Settings from a validated `open_cursor` configuration.
    pub fn from_open(config: &Config<'_>) -> Self {
        CursorConfig {
            overwrite: config.bool("overwrite"),
            raw: config.bool("raw"),
            append: config.bool("append"),
            readonly: config.bool("readonly"),
        }
    }

    /// These settings changed by a validated `WT_CURSOR::reconfigure` configuration (only the
    /// keys given change).
    pub fn reconfigured(mut self, config: &Config<'_>) -> Self {
        if config.is_set("overwrite") {
            self.overwrite = config.bool("overwrite");
        }
        if config.is_set("append") {
            self.append = config.bool("append");
        }
        self
    }
}
