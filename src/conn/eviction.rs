//! The eviction settings' cross-checks at `wiredtiger_open` and `WT_CONNECTION::reconfigure`.
//!
//! They become the cache's thresholds ([`Eviction::thresholds`]); the reference refuses some
//! combinations with `EINVAL`, so they are refused here too: each of the `eviction_*` values is a percentage of
//! the cache when at most 100 and a byte count otherwise, which must not exceed `cache_size`
//! (nor be given at all with a shared cache); then each target must be below its trigger, after
//! the reference's own adjustments of the dirty, updates and checkpoint values.

use crate::btree::cache::Thresholds;
use crate::config::Config;
use crate::error::{Error, Result};

/// The configuration keys, in the order the reference checks them, with the names its messages
/// use.
const KEYS: [(&str, &str); 7] = [
    ("eviction_target", "eviction target"),
    ("eviction_trigger", "eviction trigger"),
    ("eviction_dirty_target", "eviction dirty target"),
    ("eviction_dirty_trigger", "eviction dirty trigger"),
    ("eviction_updates_target", "eviction updates target"),
    ("eviction_updates_trigger", "eviction updates trigger"),
    ("eviction_checkpoint_target", "eviction checkpoint target"),
];

/// The values as configured (the last value given for each key, else its default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eviction {
    values: [i64; 7],
    cache_size: i64,
    shared: bool,
}

impl Eviction {
    /// The settings of `cfg` (a `wiredtiger_open` or `WT_CONNECTION::reconfigure`
    /// configuration), keys not given keeping their value in `previous` (reconfigure) or their
    /// default; checked before they are returned.
    pub fn from_config(cfg: &Config<'_>, previous: Option<&Eviction>) -> Result<Eviction> {
        let mut values = [0; 7];
        for (i, (key, _)) in KEYS.iter().enumerate() {
            values[i] = match previous {
                Some(p) if !cfg.is_set(key) => p.values[i],
                _ => cfg.int(key),
            };
        }
        let pick = |key: &str, old: Option<i64>| match old {
            Some(o) if !cfg.is_set(key) => o,
            _ => cfg.int(key),
        };
        let cache_size = pick("cache_size", previous.map(|p| p.cache_size));
        let shared = match previous {
            Some(p) if !cfg.is_set("shared_cache.name") => p.shared,
            _ => !matches!(cfg.str("shared_cache.name"), "" | "none"),
        };
        let e = Eviction { values, cache_size, shared };
        e.check()?;
        Ok(e)
    }

    /// The cache's thresholds in bytes (a value up to 100 is a percentage of `cache_size`).
    pub fn thresholds(&self) -> Thresholds {
        let size = self.cache_size.max(0) as u64;
        let bytes = |v: i64| -> u64 {
            if v <= 100 {
                (size as u128 * v.max(0) as u128 / 100) as u64
            } else {
                v as u64
            }
        };
        let [target, trigger, dirty_target, dirty_trigger, ..] = self.values;
        Thresholds {
            size,
            target: bytes(target),
            trigger: bytes(trigger),
            dirty_target: bytes(dirty_target).min(bytes(target)),
            dirty_trigger: bytes(dirty_trigger).min(bytes(trigger)),
        }
    }

    fn check(&self) -> Result<()> {
        // The cache size with a shared cache is the pool's to decide (zero when it starts).
        let cache = if self.shared { 0.0 } else { self.cache_size as f64 };
        let mut pct = [0f64; 7];
        for ((p, &v), (_, name)) in pct.iter_mut().zip(&self.values).zip(KEYS) {
            let v = v as f64;
            *p = if v <= 100.0 {
                v
            } else if self.shared {
                return Err(Error::invalid(format!("Shared cache configuration requires a percentage value for {name}")));
            } else if v > cache {
                return Err(Error::invalid(format!("{name} should not exceed cache size")));
            } else {
                v * 100.0 / cache
            };
        }
        let [target, trigger, mut dirty_target, mut dirty_trigger, mut updates_target, mut updates_trigger, _] = pct;
        // The reference quietly lowers these before comparing targets with triggers.
        dirty_target = dirty_target.min(target);
        dirty_trigger = dirty_trigger.min(trigger);
        if updates_target < f64::EPSILON {
            updates_target = dirty_target / 2.0;
        }
        if updates_trigger < f64::EPSILON {
            updates_trigger = dirty_trigger / 2.0;
        }
        updates_trigger = updates_trigger.min(trigger);
        if target >= trigger {
            return Err(Error::invalid("eviction target must be lower than the eviction trigger"));
        }
        if dirty_target >= dirty_trigger {
            return Err(Error::invalid("eviction dirty target must be lower than the eviction dirty trigger"));
        }
        if updates_target >= updates_trigger {
            return Err(Error::invalid("eviction updates target must be lower than the eviction updates trigger"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{validate, Method};

    fn open(cfg: &str) -> Result<Eviction> {
        Eviction::from_config(&validate(Method::WiredtigerOpen, Some(cfg), None).unwrap(), None)
    }

    fn msg(r: Result<Eviction>) -> String {
        let e = r.unwrap_err();
        assert_eq!(e.code(), 22);
        let m = e.messages().next().unwrap_or_default().to_string();
        m
    }

    #[test]
    fn defaults_and_valid_settings() {
        for cfg in [
            "",
            "eviction_trigger=100000000",
            "eviction_target=101",
            "eviction_dirty_trigger=96",
            "eviction_checkpoint_target=90",
            "eviction_dirty_trigger=50",
            "eviction_updates_trigger=60",
            "eviction_dirty_target=20000000,eviction_target=10000000",
            "cache_size=1GB,eviction_trigger=500MB,eviction_target=400MB",
        ] {
            assert!(open(cfg).is_ok(), "{cfg}");
        }
    }

    #[test]
    fn the_references_refusals() {
        let target = "eviction target must be lower than the eviction trigger";
        let dirty = "eviction dirty target must be lower than the eviction dirty trigger";
        let updates = "eviction updates target must be lower than the eviction updates trigger";
        let size = "eviction trigger should not exceed cache size";
        for (cfg, want) in [
            ("eviction_trigger=1TB", size),
            ("eviction_trigger=200MB", size),
            ("cache_size=100MB,eviction_trigger=200MB", size),
            ("eviction_target=95,eviction_trigger=90", target),
            ("eviction_target=80,eviction_trigger=80", target),
            ("eviction_target=50,eviction_trigger=101", target),
            ("cache_size=100MB,eviction_target=60MB,eviction_trigger=50MB", target),
            ("eviction_dirty_target=6,eviction_dirty_trigger=5", dirty),
            ("eviction_dirty_target=90", dirty),
            ("eviction_dirty_target=30", dirty),
            ("eviction_updates_target=20,eviction_updates_trigger=10", updates),
            ("eviction_updates_target=30", updates),
            ("eviction_target=2GB", "eviction target should not exceed cache size"),
            (
                "shared_cache=(name=pool),eviction_target=200",
                "Shared cache configuration requires a percentage value for eviction target",
            ),
        ] {
            assert_eq!(msg(open(cfg)), want, "{cfg}");
        }
    }

    #[test]
    fn reconfigure_keeps_what_is_not_given() {
        let base = open("eviction_target=50,eviction_trigger=60").unwrap();
        let re = |cfg: &str| {
            Eviction::from_config(&validate(Method::ConnReconfigure, Some(cfg), None).unwrap(), Some(&base))
        };
        assert!(re("eviction_target=55").is_ok());
        assert!(msg(re("eviction_target=60")).starts_with("eviction target must be lower"));
        assert!(msg(re("eviction_trigger=1TB")).contains("should not exceed cache size"));
        assert!(re("cache_size=10TB,eviction_trigger=8TB").is_ok());
        assert!(msg(re("cache_size=10TB,eviction_trigger=1TB")).starts_with("eviction target must be lower"));
        // A smaller cache makes an absolute setting too big.
        let abs = open("cache_size=1GB,eviction_trigger=900MB").unwrap();
        let e = Eviction::from_config(&validate(Method::ConnReconfigure, Some("cache_size=100MB"), None).unwrap(), Some(&abs));
        assert_eq!(msg(e), "eviction trigger should not exceed cache size");
    }
}
