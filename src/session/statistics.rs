//! `statistics:` cursors: what they report and where their snapshots come from. The
//! positioning and formatting is [`StatsView`]'s; this adds the sources (the connection, one
//! table, the session) and the open-time rules.

use std::sync::Arc;

use crate::config::{self, Method, StatisticsFlags};
use crate::conn::Connection;
use crate::error::{Error, Kind, Result};
use crate::schema::Table;
use crate::stats::catalog::{
    SESSION_BYTES_READ, SESSION_BYTES_WRITE, SESSION_READ_TIME, SESSION_WRITE_TIME,
};
use crate::stats::counters::ConnStat;
use crate::stats::{cursor_statistics, Family, Snapshot, StatsView};

use super::schema_join::JoinCore;
use super::Session;

/// What a statistics cursor reports on.
enum Source {
    Connection,
    Table(Arc<Table>),
    Session,
    /// `statistics:join` of a join cursor: a set of join statistics per entry (the view reads
    /// them from the join cursor).
    Join,
}

/// A `statistics:` cursor.
pub struct StatsCursor {
    view: StatsView,
    source: Source,
    /// `statistics=(clear)`, the cursor's or inherited from the database: each snapshot then
    /// restarts the clearable statistics from zero.
    clear: bool,
    /// `statistics=(all)` or `(tree_walk)`: table figures that need a walk of the tree.
    walk: bool,
}

/// The `statistics:session` entries an in-memory engine has: it never moves pages between a
/// cache and disk, so these are truly zero. (The wait-time and dirty-bytes figures are not
/// measured, so they are not listed.)
const SESSION_ZEROS: [i32; 4] = [SESSION_BYTES_READ, SESSION_BYTES_WRITE, SESSION_READ_TIME, SESSION_WRITE_TIME];

impl StatsCursor {
    /// `WT_CURSOR::next`.
    pub fn next(&mut self, conn: &Connection) -> Result<()> {
        let fresh = self.fresh_fn(conn);
        self.view.next(fresh)
    }

    /// `WT_CURSOR::prev`.
    pub fn prev(&mut self, conn: &Connection) -> Result<()> {
        let fresh = self.fresh_fn(conn);
        self.view.prev(fresh)
    }

    /// `WT_CURSOR::search`.
    pub fn search(&mut self, conn: &Connection) -> Result<()> {
        let fresh = self.fresh_fn(conn);
        self.view.search(fresh)
    }

    /// A snapshot closure over the source, taken only if the view asks (after a reset).
    fn fresh_fn<'a>(&self, conn: &'a Connection) -> impl FnOnce() -> Result<Snapshot> + 'a {
        let source = match &self.source {
            Source::Connection => Source::Connection,
            Source::Table(t) => Source::Table(Arc::clone(t)),
            Source::Session => Source::Session,
            Source::Join => Source::Join,
        };
        let (clear, walk) = (self.clear, self.walk);
        move || snapshot(conn, &source, clear, walk)
    }

    /// `WT_CURSOR::reset`.
    pub fn reset(&mut self) {
        self.view.reset();
    }

    /// The positioning and formatting state.
    pub fn view(&self) -> &StatsView {
        &self.view
    }

    /// The positioning and formatting state, for `set_key`.
    pub fn view_mut(&mut self) -> &mut StatsView {
        &mut self.view
    }

}

fn snapshot(conn: &Connection, source: &Source, clear: bool, walk: bool) -> Result<Snapshot> {
    Ok(match source {
        Source::Connection => conn.statistics_snapshot(clear),
        Source::Table(table) => table.statistics_snapshot(clear, walk),
        Source::Session => SESSION_ZEROS.iter().map(|&id| (id, 0)).collect(),
        Source::Join => Vec::new(),
    })
}

impl Session {
    /// `WT_SESSION::open_cursor` on a `statistics:` URI: `statistics:` (the connection),
    /// `statistics:table:NAME`, `statistics:session`. The new cursor counts itself as open
    /// before its snapshot is taken. Statistics cursors are never cached.
    pub fn open_statistics(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<StatsCursor> {
        self.open_statistics_of(conn, uri, config, None)
    }

    /// `open_statistics`, with the join cursor's entries for `statistics:join`.
    pub fn open_statistics_of(
        &mut self,
        conn: &Connection,
        uri: &str,
        config: Option<&str>,
        join: Option<Arc<parking_lot::Mutex<JoinCore>>>,
    ) -> Result<StatsCursor> {
        let cfg = config::validate(Method::OpenCursor, config, None)?;
        let what = uri.strip_prefix("statistics:").expect("the caller checked the prefix");
        let (family, source) = match what {
            "" => (Family::Connection, Source::Connection),
            "session" => (Family::Session, Source::Session),
            "join" => (Family::DataSource, Source::Join),
            _ => match what.strip_prefix("table:") {
                Some(name) => {
                    let table = conn.registry().get(name).ok_or(Error::quiet(Kind::NoEntry))?;
                    (Family::DataSource, Source::Table(table))
                }
                None => return Err(Error::unsupported(format!("unsupported object operation: {uri}"))),
            },
        };
        let flags: StatisticsFlags = cursor_statistics(conn.statistics().flags(), &cfg)?;
        let (clear, walk) = (flags.clear, flags.all || flags.tree_walk);
        // The cursor counts itself before its snapshot, as the reference's does: "open cursor
        // count" read through it includes it.
        self.stats().add(ConnStat::OpenAdjust, 1);
        let view = match (snapshot(conn, &source, clear, walk), join) {
            (Ok(_), Some(core)) => StatsView::new_join(Box::new(move || core.lock().stat_sets()), cfg.bool("raw")),
            (Ok(snapshot), None) => StatsView::new(family, snapshot, cfg.bool("raw")),
            (Err(e), _) => {
                self.stats().add(ConnStat::OpenAdjust, -1);
                return Err(e);
            }
        };
        Ok(StatsCursor { view, source, clear, walk })
    }

    /// `WT_CURSOR::close` of a statistics cursor.
    pub fn close_statistics(&mut self, cursor: StatsCursor) {
        drop(cursor);
        self.stats().add(ConnStat::OpenAdjust, -1);
    }
}
