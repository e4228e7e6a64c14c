//! The `statistics=(…)` rules of `open_cursor` on a `statistics:` URI (statistics.md §2): the
//! cursor's list must agree with what the database maintains, and defaults to it.
//!
//! The list elements are read by the configuration module ([`StatisticsFlags`]); this is the
//! cursor-side rule, kept beside the statistics cursor it configures. The order of the checks
//! is the reference's (`__wt_curstat_open`), which decides which message wins when several
//! apply (`fast,all`: "doesn't match" on a `fast` database, "Only one of…" on an `all` one).

use crate::config::{Config, StatisticsFlags, STATISTICS_ONLY_ONE};
use crate::error::{Error, Result};

/// The cursor asks for statistics the database does not maintain (or it maintains none).
pub const STATISTICS_MISMATCH: &str =
    "cursor's statistics configuration doesn't match the database statistics configuration";

/// `statistics=(size,clear)`.
pub const CLEAR_WITH_SIZE: &str = "clear is incompatible with size statistics";

/// The statistics a `statistics:` cursor gathers. `database` is the connection's resolved
/// setting (the result of [`check_statistics`](crate::config::check_statistics)), `cursor` the
/// validated `open_cursor` configuration (its `statistics` key rejects `none` already).
///
/// * The database maintains nothing: `EINVAL` [`STATISTICS_MISMATCH`], whatever the cursor asks.
/// * `all` needs an `all` database; `fast`, `cache_walk`, `tree_walk` are always allowed
///   (the walks imply `fast`); `fast` with `all`, and `size` with `fast`/`all`/a walk, are
///   `EINVAL` "Only one of all, fast, none…"; `size` with `clear` is [`CLEAR_WITH_SIZE`].
/// * An empty list takes the database's `all`/`fast`/walk flags; `clear` is inherited from
///   the database in every case.
pub fn cursor_statistics(database: StatisticsFlags, cursor: &Config<'_>) -> Result<StatisticsFlags> {
    if !database.enabled() {
        return Err(Error::invalid(STATISTICS_MISMATCH));
    }
    let asked = StatisticsFlags::from_config(cursor);
    if asked.all && !database.all {
        return Err(Error::invalid(STATISTICS_MISMATCH));
    }
    if asked.all && asked.fast {
        return Err(Error::invalid(STATISTICS_ONLY_ONE));
    }
    // `all` implies the walks and `fast`; each walk implies `fast`.
    let mut r = StatisticsFlags {
        all: asked.all,
        cache_walk: asked.all || asked.cache_walk,
        tree_walk: asked.all || asked.tree_walk,
        fast: asked.all || asked.fast || asked.cache_walk || asked.tree_walk,
        ..StatisticsFlags::default()
    };
    if asked.size {
        if r.fast {
            return Err(Error::invalid(STATISTICS_ONLY_ONE));
        }
        r.size = true;
    }
    if asked.clear {
        if r.size {
            return Err(Error::invalid(CLEAR_WITH_SIZE));
        }
        r.clear = true;
    }
    if r == StatisticsFlags::default() {
        // No list (or an empty one): the database's setting, resolved (no `none`, no `size`).
        r = database;
    }
    r.clear |= database.clear;
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{check_statistics, validate, Method};
    use crate::error::Kind;

    fn open(db: &str, cursor: &str) -> Result<StatisticsFlags> {
        let database = check_statistics(&validate(Method::WiredtigerOpen, Some(db), None).unwrap()).unwrap();
        cursor_statistics(database, &validate(Method::OpenCursor, Some(cursor), None).unwrap())
    }

    /// `(database, cursor, Ok(resolved list) or Err(message))`, checked in order.
    fn check(cases: &[(&str, &str, Result<&str, &str>)]) {
        for &(db, cursor, expect) in cases {
            let got = open(db, cursor);
            match expect {
                Ok(list) => assert_eq!(got.unwrap(), StatisticsFlags::from_list(list), "{db} / {cursor}"),
                Err(message) => {
                    let e = got.expect_err(cursor);
                    assert_eq!(e.kind(), Kind::Invalid, "{db} / {cursor}");
                    assert_eq!(e.messages().collect::<Vec<_>>(), [message], "{db} / {cursor}");
                }
            }
        }
    }

    const ALL: &str = "(all,cache_walk,fast,tree_walk)";

    #[test]
    fn a_database_without_statistics_refuses_every_cursor() {
        for cursor in ["", "statistics=(fast)", "statistics=(all)", "statistics=(size)", "statistics=(clear)"] {
            check(&[("statistics=(none)", cursor, Err(STATISTICS_MISMATCH)), ("", cursor, Err(STATISTICS_MISMATCH))]);
        }
    }

    #[test]
    fn none_is_not_a_cursor_choice() {
        let e = validate(Method::OpenCursor, Some("statistics=(none)"), None).unwrap_err();
        assert_eq!(e.message(), "Value 'none' not a permitted choice for key 'statistics'");
    }

    #[test]
    fn all_needs_an_all_database() {
        check(&[
            ("statistics=(fast)", "statistics=(all)", Err(STATISTICS_MISMATCH)),
            ("statistics=(all)", "statistics=(all)", Ok(ALL)),
            ("statistics=(fast)", "statistics=(fast,all)", Err(STATISTICS_MISMATCH)),
            ("statistics=(all)", "statistics=(fast,all)", Err(STATISTICS_ONLY_ONE)),
        ]);
    }

    #[test]
    fn fast_and_the_walks_are_always_allowed() {
        check(&[
            ("statistics=(all)", "statistics=(fast)", Ok("(fast)")),
            ("statistics=(fast)", "statistics=(fast)", Ok("(fast)")),
            ("statistics=(fast)", "statistics=(cache_walk)", Ok("(cache_walk,fast)")),
            ("statistics=(fast)", "statistics=(tree_walk)", Ok("(tree_walk,fast)")),
        ]);
    }

    #[test]
    fn size_stands_alone() {
        check(&[
            ("statistics=(fast)", "statistics=(size)", Ok("(size)")),
            ("statistics=(fast)", "statistics=(size,fast)", Err(STATISTICS_ONLY_ONE)),
            ("statistics=(all)", "statistics=(all,size)", Err(STATISTICS_ONLY_ONE)),
            ("statistics=(fast)", "statistics=(tree_walk,size)", Err(STATISTICS_ONLY_ONE)),
            ("statistics=(fast)", "statistics=(size,clear)", Err(CLEAR_WITH_SIZE)),
            // The database's clear is inherited without complaint, as in the reference.
            ("statistics=(fast,clear)", "statistics=(size)", Ok("(size,clear)")),
        ]);
    }

    #[test]
    fn an_empty_list_takes_the_database_setting() {
        check(&[
            ("statistics=(fast)", "", Ok("(fast)")),
            ("statistics=(all)", "statistics=()", Ok(ALL)),
            ("statistics=(fast,clear)", "", Ok("(fast,clear)")),
            ("statistics=(cache_walk)", "raw", Ok("(cache_walk,fast)")),
        ]);
    }

    #[test]
    fn clear_is_asked_or_inherited() {
        check(&[
            ("statistics=(fast)", "statistics=(fast,clear)", Ok("(fast,clear)")),
            ("statistics=(all,clear)", "statistics=(fast)", Ok("(fast,clear)")),
            // `clear` alone is a configuration: the database's fast/all are not taken.
            ("statistics=(fast)", "statistics=(clear)", Ok("(clear)")),
        ]);
    }
}
