//! Connection settings from `wiredtiger_open`, and the method-specific checks on them.

use crate::config::Config;
use crate::error::{Error, Result};

/// Settings the engine acts on. Keys that are accepted but not acted on are listed in
/// ARCHITECTURE.md.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Keep all data in memory.
    pub in_memory: bool,
    /// Application sessions allowed.
    pub session_max: usize,
    /// Default for each session's cursor cache.
    pub cache_cursors: bool,
    /// Create the database if missing.
    pub create: bool,
}

impl Settings {
    /// Reads and cross-checks a validated `wiredtiger_open` configuration.
    pub fn from_open(cfg: &Config<'_>) -> Result<Settings> {
        let in_memory = cfg.bool("in_memory");
        if in_memory && cfg.bool("log.enabled") {
            return Err(Error::invalid("In-memory configuration incompatible with log=(enabled=true)"));
        }
        check_statistics(cfg)?;
        if cfg.bool("readonly") {
            return Err(Error::unsupported("readonly connections are not supported yet"));
        }
        let encryption = cfg.str("encryption.name");
        if !encryption.is_empty() && encryption != "none" {
            return Err(Error::unsupported("encryption is not supported"));
        }
        Ok(Settings {
            in_memory,
            session_max: usize::try_from(cfg.int("session_max")).unwrap_or(1),
            cache_cursors: cfg.bool("cache_cursors"),
            create: cfg.bool("create"),
        })
    }
}

/// The `statistics` list rules shared by `wiredtiger_open` and `WT_CONNECTION::reconfigure`.
fn check_statistics(cfg: &Config<'_>) -> Result<()> {
    crate::config::check_statistics(cfg).map(drop).map_err(Error::from)
}
