//! The `statistics` list rules shared by `wiredtiger_open` and `WT_CONNECTION::reconfigure`
//! (statistics.md §2), plus element parsing usable for the `open_cursor` list.

use super::error::ConfigError;
use super::parser::Parser;
use super::validate::Config;

/// "Only one of all, fast, none configuration values should be specified".
pub const STATISTICS_ONLY_ONE: &str =
    "Only one of all, fast, none configuration values should be specified";
/// "the value "clear" can only be specified if statistics are enabled".
pub const STATISTICS_CLEAR_NEEDS_ENABLED: &str =
    "the value \"clear\" can only be specified if statistics are enabled";

/// Elements of a `statistics` list. An element counts when present with a non-zero value, as
/// in the reference (`fast` counts, `fast=false` does not; the last occurrence wins).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct StatisticsFlags {
    /// `all`: every statistic.
    pub all: bool,
    /// `cache_walk`: treated as `fast`.
    pub cache_walk: bool,
    /// `fast`: the cheap statistics.
    pub fast: bool,
    /// `none`: no statistics.
    pub none: bool,
    /// `clear`: reset after each read.
    pub clear: bool,
    /// `size`: data-source size only.
    pub size: bool,
    /// `tree_walk`: treated as `fast`.
    pub tree_walk: bool,
}

impl StatisticsFlags {
    /// Reads the elements of a list value (`(fast,clear)`, `()`) or of a bare default (`none`).
    pub fn from_list(text: &str) -> StatisticsFlags {
        let on = |name: &str| Parser::find(text, name).is_some_and(|v| v.num != 0);
        StatisticsFlags {
            all: on("all"),
            cache_walk: on("cache_walk"),
            fast: on("fast"),
            none: on("none"),
            clear: on("clear"),
            size: on("size"),
            tree_walk: on("tree_walk"),
        }
    }

    /// The `statistics` key of a configuration: the value given, else the method's default.
    pub fn from_config(config: &Config<'_>) -> StatisticsFlags {
        StatisticsFlags::from_list(config.str("statistics"))
    }

    /// Whether any statistics are maintained.
    pub fn enabled(&self) -> bool {
        self.all || self.fast || self.cache_walk || self.tree_walk
    }

    /// Applies the connection rules: at most one of `all`, `fast`, `none`; `all` implies
    /// `cache_walk`, `tree_walk` and `fast`; `cache_walk` / `tree_walk` imply `fast`; `clear`
    /// needs statistics enabled. Returns the effective flags (`none` set when nothing is
    /// maintained, `size` dropped).
    pub fn resolve_connection(self) -> Result<StatisticsFlags, ConfigError> {
        let mut r = StatisticsFlags::default();
        let mut set = 0;
        if self.none {
            set += 1;
        }
        if self.fast {
            r.fast = true;
            set += 1;
        }
        if self.all {
            r.all = true;
            r.cache_walk = true;
            r.fast = true;
            r.tree_walk = true;
            set += 1;
        }
        if set > 1 {
            return Err(ConfigError::new(STATISTICS_ONLY_ONE));
        }
        if self.cache_walk {
            r.fast = true;
            r.cache_walk = true;
        }
        if self.tree_walk {
            r.fast = true;
            r.tree_walk = true;
        }
        if self.clear {
            if !r.enabled() {
                return Err(ConfigError::new(STATISTICS_CLEAR_NEEDS_ENABLED));
            }
            r.clear = true;
        }
        r.none = !r.enabled();
        Ok(r)
    }
}

/// The `statistics` rule of `wiredtiger_open` and `WT_CONNECTION::reconfigure`, applied to a
/// validated configuration (the value given, else the default `none`).
pub fn check_statistics(config: &Config<'_>) -> Result<StatisticsFlags, ConfigError> {
    StatisticsFlags::from_config(config).resolve_connection()
}
