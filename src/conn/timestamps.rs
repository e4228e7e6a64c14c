//! The connection's timestamp methods: `set_timestamp`, `query_timestamp` and
//! `rollback_to_stable` (the model itself is `crate::txn::timestamps`).

use crate::error::{Error, Kind, Result};
use crate::session::txn::{choice_error, settings, stamp};
use crate::txn::timestamps::{self, Setting};

use super::Connection;

/// `query_timestamp(get=…)` values of a connection.
const QUERIES: &[&str] = &[
    "all_durable",
    "backup_checkpoint",
    "last_checkpoint",
    "oldest",
    "oldest_reader",
    "oldest_timestamp",
    "pinned",
    "recovery",
    "stable",
    "stable_timestamp",
];

impl Connection {
    /// `WT_CONNECTION::set_timestamp(oldest_timestamp=, stable_timestamp=, durable_timestamp=,
    /// force=)`.
    pub fn set_timestamp(&self, config: Option<&str>) -> Result<()> {
        let pairs = settings(config, &["durable_timestamp", "force", "oldest_timestamp", "stable_timestamp"])?;
        let given = |key: &str, name: &str| -> Result<Option<u64>> {
            Ok(pairs.iter().any(|(k, _)| *k == key).then_some(stamp(&pairs, key, name)?))
        };
        let setting = Setting {
            durable: given("durable_timestamp", "durable")?,
            oldest: given("oldest_timestamp", "oldest")?,
            stable: given("stable_timestamp", "stable")?,
            force: pairs.iter().rev().find(|(k, _)| *k == "force").is_some_and(|(_, v)| !matches!(*v, "false" | "0")),
        };
        self.txn.timestamps.set(setting)
    }

    /// `WT_CONNECTION::query_timestamp(get=…)`, in hexadecimal.
    pub fn query_timestamp(&self, config: Option<&str>) -> Result<String> {
        let pairs = settings(config, &["get"])?;
        let what = pairs.iter().rev().find(|(k, _)| *k == "get").map_or("all_durable", |(_, v)| *v);
        if !QUERIES.contains(&what) {
            return Err(choice_error(what, "get"));
        }
        self.txn.query_timestamp(what).map(timestamps::hex)
    }

    /// `WT_CONNECTION::rollback_to_stable`: every table loses the updates whose durable
    /// timestamp is after the stable timestamp (without one, nothing is rolled back); logged
    /// tables keep everything, as the reference's do. Refused while a transaction runs.
    pub fn rollback_to_stable(&self, config: Option<&str>) -> Result<()> {
        let pairs = settings(config, &["dryrun", "threads"])?;
        if self.txn.any_running() {
            return Err(Error::new(Kind::Busy, "rollback_to_stable illegal with active transactions"));
        }
        let dryrun = pairs.iter().rev().find(|(k, _)| *k == "dryrun").is_some_and(|(_, v)| !matches!(*v, "false" | "0"));
        if dryrun {
            return Ok(());
        }
        if let Some(stable) = self.txn.timestamps.stable() {
            // Logged tables keep everything: their versions carry no timestamps.
            for table in self.registry.tables().into_iter().filter(|t| t.uses_timestamps()) {
                table.index().roll_back_to(stable);
            }
        }
        self.txn.timestamps.rolled_back();
        Ok(())
    }
}
