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
    /// Whether the session cursor cache may serve and keep this cursor: not for the kinds the
    /// reference never caches (`cursor-cache.md` §1-2: `readonly`, `bulk`, `dump`,
    /// `next_random`, `checkpoint`, any `debug` key).
    pub cacheable: bool,
    /// `next_random`: only `next`, `reset`, `close` and the key/value accessors work; the
    /// other operations answer `ENOTSUP`, as in the reference.
    pub next_random: bool,
}

impl Default for CursorConfig {
    fn default() -> Self {
        CursorConfig { overwrite: true, raw: false, append: false, readonly: false, cacheable: true, next_random: false }
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
            cacheable: !config.bool("readonly")
                && config.str("bulk") == "false"
                && !config.is_set("dump")
                && !config.bool("next_random")
                && !config.is_set("checkpoint")
                && !config.set_keys().any(|k| k == "debug" || k.starts_with("debug.")),
            next_random: config.bool("next_random"),
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
