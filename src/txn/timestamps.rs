//! The application's timestamps: parsing and printing them, the connection's `oldest`, `stable`
//! and `durable` timestamps (`WT_CONNECTION::set_timestamp`, `query_timestamp`), and a
//! transaction's own (`commit`, `durable`, `prepare`, `read`) with the reference's rules and
//! messages.
//!
//! Readers and writers never wait on any of this: the connection's timestamps are atomics that
//! `set_timestamp` stores under a mutex only it takes (it must check and move several values
//! together); a transaction's timestamps are its session's plain data, and the values other
//! threads need (its read timestamp, its durable timestamp while it runs) are published in the
//! session's own record (`super::pins`).

use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU64};

use parking_lot::Mutex;

use crate::error::{Error, Result};

/// No timestamp.
pub const TS_NONE: u64 = 0;

/// Parses a hexadecimal timestamp named `name` in messages (`""`: none, 0).
pub fn parse_raw(name: &str, text: &str) -> Result<u64> {
    if text.len() > 16 {
        return Err(Error::invalid(format!("{name} timestamp too long '{text}'")));
    }
    let mut ts = 0u64;
    for c in text.chars() {
        let Some(digit) = c.to_digit(16) else {
            return Err(Error::invalid(format!("Failed to parse {name} timestamp '{text}'")));
        };
        ts = (ts << 4) | u64::from(digit);
    }
    Ok(ts)
}

/// [`parse_raw`], refusing zero when a value is given.
pub fn parse(name: &str, text: &str) -> Result<u64> {
    let ts = parse_raw(name, text)?;
    if !text.is_empty() && ts == TS_NONE {
        return Err(Error::invalid(format!("illegal {name} timestamp '{text}': zero not permitted")));
    }
    Ok(ts)
}

/// A timestamp as the reference's messages print it: its two 32-bit halves.
pub fn describe(ts: u64) -> String {
    format!("({}, {})", ts >> 32, ts & 0xffff_ffff)
}

/// A timestamp as `query_timestamp` returns it: lower-case hexadecimal, no leading zeros.
pub fn hex(ts: u64) -> String {
    format!("{ts:x}")
}

/// The values `set_timestamp` was given (`None`: not named).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Setting {
    /// `oldest_timestamp=`.
    pub oldest: Option<u64>,
    /// `stable_timestamp=`.
    pub stable: Option<u64>,
    /// `durable_timestamp=`.
    pub durable: Option<u64>,
    /// `force=true`: no ordering checks, and values may move backwards.
    pub force: bool,
}

/// One of the connection's timestamps: a value and whether it was ever set.
#[derive(Default)]
struct Cell {
    value: AtomicU64,
    set: AtomicBool,
}

impl Cell {
    /// The value, if set.
    fn get(&self) -> Option<u64> {
        self.set.load(SeqCst).then(|| self.value.load(SeqCst))
    }

    fn put(&self, ts: u64) {
        self.value.store(ts, SeqCst);
        self.set.store(true, SeqCst);
    }

    /// The value, or 0 when unset.
    fn or_none(&self) -> u64 {
        self.get().unwrap_or(TS_NONE)
    }
}

/// The connection's timestamps.
#[derive(Default)]
pub struct Global {
    /// Serializes `set_timestamp` calls (never taken by readers or committers).
    setting: Mutex<()>,
    oldest: Cell,
    stable: Cell,
    durable: Cell,
    /// The stable timestamp of the last checkpoint (`last_checkpoint`).
    last_checkpoint: AtomicU64,
    /// The stable timestamp of the checkpoint the database was recovered from (`recovery`).
    recovery: AtomicU64,
}

impl Global {
    /// The database was recovered from a checkpoint taken at stable timestamp `stable` and
    /// oldest timestamp `oldest` (0: none): `stable`, `last_checkpoint` and `recovery` start at
    /// the first, `oldest` at the second, as in the reference.
    pub fn restore(&self, stable: u64, oldest: u64) {
        if stable != TS_NONE {
            self.stable.put(stable);
            self.last_checkpoint.store(stable, Relaxed);
            self.recovery.store(stable, Relaxed);
        }
        if oldest != TS_NONE {
            self.oldest.put(oldest);
        }
    }

    /// `oldest_timestamp`, if set.
    pub fn oldest(&self) -> Option<u64> {
        self.oldest.get()
    }

    /// `stable_timestamp`, if set.
    pub fn stable(&self) -> Option<u64> {
        self.stable.get()
    }

    /// `WT_CONNECTION::set_timestamp`: the reference's checks (neither oldest nor stable moves
    /// backwards, oldest never passes stable), unless forced.
    pub fn set(&self, s: Setting) -> Result<()> {
        if s.oldest.is_none() && s.stable.is_none() && s.durable.is_none() {
            return Ok(());
        }
        let _serial = self.setting.lock();
        if !s.force {
            if let (Some(new), Some(old)) = (s.oldest, self.oldest.get()) {
                if new < old {
                    return Err(Error::invalid(format!(
                        "set_timestamp: oldest timestamp {} must not be older than current oldest timestamp {}",
                        describe(new),
                        describe(old)
                    )));
                }
            }
            if let (Some(new), Some(old)) = (s.stable, self.stable.get()) {
                if new < old {
                    return Err(Error::invalid(format!(
                        "set_timestamp: stable timestamp {} must not be older than current stable timestamp {}",
                        describe(new),
                        describe(old)
                    )));
                }
            }
            if s.oldest.is_some() || s.stable.is_some() {
                if let (Some(oldest), Some(stable)) = (s.oldest.or(self.oldest.get()), s.stable.or(self.stable.get())) {
                    if oldest > stable {
                        return Err(Error::invalid(format!(
                            "set_timestamp: oldest timestamp {} must not be later than stable timestamp {}",
                            describe(oldest),
                            describe(stable)
                        )));
                    }
                }
            }
        }
        if let Some(durable) = s.durable {
            // The durable timestamp may move backwards: it otherwise follows commits.
            self.durable.put(durable);
        }
        if let Some(oldest) = s.oldest {
            if s.force || self.oldest.get().is_none_or(|old| oldest > old) {
                self.oldest.put(oldest);
            }
        }
        if let Some(stable) = s.stable {
            if s.force || self.stable.get().is_none_or(|old| stable > old) {
                self.stable.put(stable);
            }
        }
        Ok(())
    }

    /// A commit made `durable` durable: the connection's durable timestamp follows the largest.
    pub fn committed_durable(&self, durable: u64) {
        let previous = self.durable.value.fetch_max(durable, SeqCst);
        if previous < durable || !self.durable.set.load(Relaxed) {
            self.durable.set.store(true, SeqCst);
        }
    }

    /// `durable_timestamp` as set or followed (0: none).
    pub fn durable(&self) -> Option<u64> {
        self.durable.get()
    }

    /// Records a checkpoint taken at stable timestamp `stable` (0: none).
    pub fn checkpointed(&self, stable: u64) {
        self.last_checkpoint.store(stable, SeqCst);
    }

    /// `rollback_to_stable`: the durable timestamp goes back to the stable timestamp.
    pub fn rolled_back(&self) {
        let _serial = self.setting.lock();
        match self.stable.get() {
            Some(stable) => self.durable.put(stable),
            None => {
                self.durable.value.store(TS_NONE, SeqCst);
                self.durable.set.store(false, SeqCst);
            }
        }
    }

    /// `WT_CONNECTION::query_timestamp(get=…)` for the values kept here (the caller answers
    /// those that need the sessions' records: `all_durable`, `oldest_reader`, `pinned`).
    pub fn query(&self, what: &str) -> Option<u64> {
        Some(match what {
            "last_checkpoint" => self.last_checkpoint.load(SeqCst),
            "oldest_timestamp" | "oldest" => self.oldest.or_none(),
            "recovery" => self.recovery.load(SeqCst),
            "stable_timestamp" | "stable" => self.stable.or_none(),
            "backup_checkpoint" => TS_NONE,
            _ => return None,
        })
    }
}

/// A transaction's timestamps and the timestamp settings it began with.
#[derive(Clone, Copy, Debug, Default)]
pub struct TxnTimestamps {
    /// `commit_timestamp` (0: not set).
    pub commit: u64,
    /// The first commit timestamp set in the transaction.
    pub first_commit: u64,
    /// `durable_timestamp` (0: not set explicitly; the commit timestamp then).
    pub durable: u64,
    /// `prepare_timestamp` (0: not set).
    pub prepare: u64,
    /// `read_timestamp` (0: not set).
    pub read: u64,
    /// Whether `prepare_transaction` succeeded.
    pub prepared: bool,
    /// `roundup_timestamps=(read=true)`.
    pub round_read: bool,
    /// `roundup_timestamps=(prepared=true)`.
    pub round_prepared: bool,
    /// `ignore_prepare=true` or `force`.
    pub ignore_prepare: bool,
    /// `ignore_prepare=true` (not `force`): the transaction may not write.
    pub read_only: bool,
    /// `no_timestamp=true`.
    pub no_timestamp: bool,
}

impl TxnTimestamps {
    /// The durable timestamp the transaction's versions get.
    pub fn durable_or_commit(&self) -> u64 {
        if self.durable != TS_NONE { self.durable } else { self.commit }
    }

    /// `timestamp_transaction(commit_timestamp=)` (and at commit): the reference's checks
    /// against the transaction's own timestamps and the connection's oldest and stable.
    pub fn set_commit(&mut self, mut ts: u64, snapshot_isolation: bool, global: &Global) -> Result<()> {
        if !snapshot_isolation {
            return Err(Error::invalid("setting a commit_timestamp requires a transaction running at snapshot isolation"));
        }
        if self.prepare == TS_NONE {
            let mut checked = ts;
            if self.commit != TS_NONE {
                if ts < self.first_commit {
                    return Err(Error::invalid(format!(
                        "commit timestamp {} older than the first commit timestamp {} for this transaction",
                        describe(ts),
                        describe(self.first_commit)
                    )));
                }
                checked = self.first_commit;
            }
            after_oldest_and_stable("commit", checked, global)?;
        } else {
            if self.prepare > ts {
                if !self.round_prepared {
                    return Err(Error::invalid(format!(
                        "commit timestamp {} is less than the prepare timestamp {} for this transaction",
                        describe(ts),
                        describe(self.prepare)
                    )));
                }
                ts = self.prepare;
            }
            if !self.prepared {
                return Err(Error::invalid("commit timestamp must not be set before transaction is prepared"));
            }
        }
        if self.commit == TS_NONE {
            self.first_commit = ts;
        }
        self.commit = ts;
        Ok(())
    }

    /// `timestamp_transaction(durable_timestamp=)`: only for a prepared transaction that has a
    /// commit timestamp.
    pub fn set_durable(&mut self, ts: u64, global: &Global) -> Result<()> {
        if !self.prepared {
            return Err(Error::invalid("durable timestamp should not be specified for non-prepared transaction"));
        }
        if self.commit == TS_NONE {
            return Err(Error::invalid("a commit timestamp is required before setting a durable timestamp"));
        }
        after_oldest_and_stable("durable", ts, global)?;
        if ts < self.commit {
            return Err(Error::invalid(format!(
                "durable timestamp {} is less than the commit timestamp {} for this transaction",
                describe(ts),
                describe(self.commit)
            )));
        }
        self.durable = ts;
        Ok(())
    }

    /// `timestamp_transaction(prepare_timestamp=)`: after the stable timestamp (or rounded up
    /// to the oldest with `roundup_timestamps=(prepared=true)`), once, before any commit
    /// timestamp.
    pub fn set_prepare(&mut self, mut ts: u64, global: &Global) -> Result<()> {
        if self.prepared {
            return Err(Error::invalid("not permitted in a prepared transaction"));
        }
        if self.prepare != TS_NONE {
            return Err(Error::invalid("prepare timestamp is already set"));
        }
        if self.commit != TS_NONE {
            return Err(Error::invalid("commit timestamp should not have been set before the prepare timestamp"));
        }
        let stable = global.stable().unwrap_or(TS_NONE);
        if ts <= stable {
            if !self.round_prepared {
                return Err(Error::invalid(format!(
                    "prepare timestamp {} is not newer than the stable timestamp {}",
                    describe(ts),
                    describe(stable)
                )));
            }
            ts = ts.max(global.oldest().unwrap_or(TS_NONE));
        }
        self.prepare = ts;
        Ok(())
    }
}

/// A commit or durable timestamp (`name`) must not be before the oldest timestamp and must be
/// after the stable one.
fn after_oldest_and_stable(name: &str, ts: u64, global: &Global) -> Result<()> {
    if let Some(oldest) = global.oldest().filter(|&oldest| ts < oldest) {
        return Err(Error::invalid(format!(
            "{name} timestamp {} is less than the oldest timestamp {}",
            describe(ts),
            describe(oldest)
        )));
    }
    if let Some(stable) = global.stable().filter(|&stable| ts <= stable) {
        return Err(Error::invalid(format!(
            "{name} timestamp {} must be after the stable timestamp {}",
            describe(ts),
            describe(stable)
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsing_follows_the_reference() {
        assert_eq!(parse("read", "").unwrap(), 0);
        assert_eq!(parse("read", "1A").unwrap(), 0x1a);
        assert_eq!(parse("read", "ffffffffffffffff").unwrap(), u64::MAX);
        let e = parse("read", "0").unwrap_err();
        assert_eq!(e.messages().next(), Some("illegal read timestamp '0': zero not permitted"));
        let e = parse("commit", "xyz").unwrap_err();
        assert_eq!(e.messages().next(), Some("Failed to parse commit timestamp 'xyz'"));
        let e = parse("stable", "11112222333344445").unwrap_err();
        assert_eq!(e.messages().next(), Some("stable timestamp too long '11112222333344445'"));
        assert_eq!(describe(0x1_0000_0002), "(1, 2)");
        assert_eq!(hex(0), "0");
        assert_eq!(hex(0x2a), "2a");
    }

    #[test]
    fn oldest_and_stable_keep_their_order() {
        let g = Global::default();
        g.set(Setting { oldest: Some(10), stable: Some(20), ..Setting::default() }).unwrap();
        let e = g.set(Setting { oldest: Some(30), ..Setting::default() }).unwrap_err();
        assert_eq!(
            e.messages().next(),
            Some("set_timestamp: oldest timestamp (0, 30) must not be later than stable timestamp (0, 20)")
        );
        let e = g.set(Setting { stable: Some(15), ..Setting::default() }).unwrap_err();
        assert_eq!(
            e.messages().next(),
            Some("set_timestamp: stable timestamp (0, 15) must not be older than current stable timestamp (0, 20)")
        );
        g.set(Setting { oldest: Some(5), stable: Some(15), force: true, ..Setting::default() }).unwrap();
        assert_eq!((g.oldest(), g.stable()), (Some(5), Some(15)));
        assert_eq!(g.query("stable"), Some(15));
        assert_eq!(g.query("nonsense"), None);
    }

    #[test]
    fn a_transaction_checks_its_timestamps() {
        let g = Global::default();
        g.set(Setting { oldest: Some(10), stable: Some(20), ..Setting::default() }).unwrap();
        let mut t = TxnTimestamps::default();
        let e = t.set_commit(20, true, &g).unwrap_err();
        assert_eq!(e.messages().next(), Some("commit timestamp (0, 20) must be after the stable timestamp (0, 20)"));
        t.set_commit(30, true, &g).unwrap();
        let e = t.set_commit(25, true, &g).unwrap_err();
        assert_eq!(
            e.messages().next(),
            Some("commit timestamp (0, 25) older than the first commit timestamp (0, 30) for this transaction")
        );
        let e = t.set_durable(40, &g).unwrap_err();
        assert_eq!(e.messages().next(), Some("durable timestamp should not be specified for non-prepared transaction"));
        let e = t.set_prepare(40, &g).unwrap_err();
        assert_eq!(e.messages().next(), Some("commit timestamp should not have been set before the prepare timestamp"));
        let mut p = TxnTimestamps::default();
        let e = p.set_prepare(20, &g).unwrap_err();
        assert_eq!(e.messages().next(), Some("prepare timestamp (0, 20) is not newer than the stable timestamp (0, 20)"));
        p.set_prepare(25, &g).unwrap();
        let e = p.set_commit(30, true, &g).unwrap_err();
        assert_eq!(e.messages().next(), Some("commit timestamp must not be set before transaction is prepared"));
        p.prepared = true;
        let e = p.set_commit(24, true, &g).unwrap_err();
        assert_eq!(
            e.messages().next(),
            Some("commit timestamp (0, 24) is less than the prepare timestamp (0, 25) for this transaction")
        );
        p.set_commit(26, true, &g).unwrap();
        p.set_durable(27, &g).unwrap();
        assert_eq!(p.durable_or_commit(), 27);
    }
}
