//! The three families of statistics ids. Ids are ABI (the header's `WT_STAT_*` keys): each
//! family numbers its statistics from a fixed base in description order, so a description is
//! found by offset and a snapshot sorted by id is in the order the reference reports.

use super::catalog;

/// Which statistics a `statistics:` cursor reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// `statistics:`: connection-wide counters, ids 1000–1711.
    Connection,
    /// `statistics:table:NAME` and the other data sources, ids 2000–2298.
    DataSource,
    /// `statistics:session`: the calling session's own counters, ids 4000–4007.
    Session,
}

impl Family {
    /// The first id.
    pub const fn base(self) -> i32 {
        match self {
            Family::Connection => 1000,
            Family::DataSource => 2000,
            Family::Session => 4000,
        }
    }

    /// Every description, in id order (entry `i` describes id `base() + i`).
    pub const fn descriptions(self) -> &'static [&'static str] {
        match self {
            Family::Connection => &catalog::CONNECTION,
            Family::DataSource => &catalog::DATA_SOURCE,
            Family::Session => &catalog::SESSION,
        }
    }

    /// The description of `id`, or `None` when `id` is not in this family.
    pub fn description(self, id: i32) -> Option<&'static str> {
        let offset = usize::try_from(id.checked_sub(self.base())?).ok()?;
        self.descriptions().get(offset).copied()
    }

    /// Whether `id` belongs to this family.
    pub fn contains(self, id: i32) -> bool {
        self.description(id).is_some()
    }

    /// The family of `id`, if any.
    pub fn of(id: i32) -> Option<Family> {
        // (A slice of every family would be an associated constant, which cbindgen would
        // declare in the C header.)
        [Family::Connection, Family::DataSource, Family::Session].into_iter().find(|f| f.contains(id))
    }

    /// The ids of this family the engine computes (statistics.md §3, §5), ascending: the
    /// entries a snapshot of this family is expected to hold.
    pub const fn kept(self) -> &'static [i32] {
        match self {
            Family::Connection => &catalog::KEPT_CONNECTION,
            Family::DataSource => &catalog::KEPT_DATA_SOURCE,
            Family::Session => &catalog::KEPT_SESSION,
        }
    }
}

/// Whether `statistics=(clear)` resets `id`: every statistic except the current-state figures
/// (open cursor count, cached cursor count, open session count, …; statistics.md §2, §5).
pub fn is_clearable(id: i32) -> bool {
    catalog::NO_CLEAR.binary_search(&id).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::catalog::*;

    #[test]
    fn descriptions_are_found_by_id() {
        assert_eq!(Family::Connection.description(1000), Some("LSM: application work units currently queued"));
        assert_eq!(Family::Connection.description(CONN_CURSOR_OPEN_COUNT), Some("cursor: open cursor count"));
        assert_eq!(Family::Connection.description(1711), Some("transaction: update conflicts"));
        assert_eq!(Family::Connection.description(999), None);
        assert_eq!(Family::Connection.description(1712), None);
        assert_eq!(Family::Connection.description(i32::MIN), None);
        assert_eq!(Family::DataSource.description(DSRC_CURSOR_OPEN_COUNT), Some("cursor: open cursor count"));
        assert_eq!(Family::DataSource.description(DSRC_CURSOR_REOPEN), Some("cursor: cache cursors reuse count"));
        assert_eq!(Family::DataSource.description(2298), Some("transaction: update conflicts"));
        assert_eq!(Family::DataSource.description(2299), None);
        assert_eq!(Family::Session.description(4000), Some("session: bytes read into cache"));
        assert_eq!(Family::Session.description(4007), Some("session: time waiting for cache (usecs)"));
        assert_eq!(Family::Session.description(4008), None);
    }

    #[test]
    fn families_by_id() {
        assert_eq!(Family::of(1425), Some(Family::Connection));
        assert_eq!(Family::of(2228), Some(Family::DataSource));
        assert_eq!(Family::of(4003), Some(Family::Session));
        assert_eq!(Family::of(3000), None);
        assert_eq!(Family::of(1712), None);
        assert_eq!(Family::Connection.descriptions().len(), 712);
        assert_eq!(Family::DataSource.descriptions().len(), 299);
        assert_eq!(Family::Session.descriptions().len(), 8);
    }

    #[test]
    fn the_engine_ids_match_the_header_names() {
        assert_eq!(CONN_CURSOR_OPEN_COUNT, 1425);
        assert_eq!(CONN_CURSOR_CACHED_COUNT, 1360);
        assert_eq!(CONN_CURSOR_REOPEN, 1424);
        assert_eq!(CONN_SESSION_OPEN, 1601);
        assert_eq!(CONN_TXN_UPDATE_CONFLICT, 1711);
        assert_eq!(DSRC_CURSOR_OPEN_COUNT, 2228);
        assert_eq!(SESSION_CACHE_TIME, 4007);
        assert_eq!(Family::Connection.kept().len(), 57);
        assert_eq!(Family::DataSource.kept().len(), 39);
        assert_eq!(Family::Session.kept(), &[4000, 4001, 4002, 4003, 4004, 4005, 4006, 4007]);
        for f in [Family::Connection, Family::DataSource, Family::Session] {
            assert!(f.kept().windows(2).all(|w| w[0] < w[1]));
            assert!(f.kept().iter().all(|&id| f.contains(id)));
        }
    }

    #[test]
    fn clear_spares_the_current_state_figures() {
        for id in [1425, 1360, 1359, 1601, 1185, 1336, 1617, 1618, 1622, 1623, 2228] {
            assert!(!is_clearable(id), "{id}");
        }
        for id in [1409, 1372, 1424, 1375, 1698, 1711, 2235, 2183, 4000, 4003] {
            assert!(is_clearable(id), "{id}");
        }
        assert_eq!(NO_CLEAR.len(), 11);
    }
}
