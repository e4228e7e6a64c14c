//! Session methods that create, drop and open objects.

use crate::btree::tree::Limits;
use crate::config::{self, Method};
use crate::conn::extensions::ExtensionKind;
use crate::conn::Connection;
use crate::cursor::{Cursor, CursorConfig};
use crate::error::{Error, Kind, Result};
use crate::schema::TableSpec;
use crate::stats::counters::{ConnStat, DsrcStat};

use super::{CursorId, Session, Uri};

/// A cursor `open_cursor` returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The cursor.
    pub id: CursorId,
    /// Whether it came from the session's cursor cache (its C handle is the one it had).
    pub reused: bool,
    /// Whether it is a new cursor made from a spare a closed session left in the slot (its C
    /// handle is kept too, and must be made new).
    pub spare: bool,
}

impl Session {
    /// `WT_SESSION::create` for `table:NAME`, counted as a successful or failed table create.
    pub fn create(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<()> {
        let out = self.create_table(conn, uri, config);
        self.stats().add(if out.is_ok() { ConnStat::CreateOk } else { ConnStat::CreateFailed }, 1);
        out
    }

    fn create_table(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<()> {
        let cfg = config::validate(Method::SessionCreate, config, Some(&crate::schema::check_format))?;
        super::uri::check_name(uri)?;
        if uri.starts_with("colgroup:") || uri.starts_with("index:") {
            return self.create_part(conn, uri, &cfg);
        }
        let name = match Uri::parse(uri)? {
            Uri::Table(name) => name,
            Uri::NotYet(uri) => return Err(Error::unsupported(format!("{uri}: not supported yet"))),
        };
        let kind = cfg.str("type");
        if kind != "file" {
            return Err(Error::unsupported(format!("unknown object type \"{kind}\"")));
        }
        let groups = cfg.list("colgroups");
        let schema = if groups.is_empty() { String::new() } else { format!("colgroups={}", groups.join(",")) };
        conn.extensions().check_create(ExtensionKind::Collator, cfg.str("collator"))?;
        conn.extensions().check_create(ExtensionKind::Compressor, cfg.str("block_compressor"))?;
        // In memory a compressor is accepted and never called, as the reference (no pages).
        // `extractor=` only means something on an index: a table ignores it, as the reference.
        let encryption = cfg.str("encryption.name");
        if !encryption.is_empty() && encryption != "none" {
            return Err(Error::unsupported(format!("encryption.name={encryption} is not supported")));
        }
        let spec = TableSpec {
            id: 0,
            name: name.to_string(),
            key_format: cfg.str("key_format").to_string(),
            value_format: cfg.str("value_format").to_string(),
            columns: cfg.list("columns").into_iter().map(str::to_string).collect(),
            schema,
            app_metadata: cfg.str("app_metadata").to_string(),
            logged: cfg.bool("log.enabled"),
            pages: Limits {
                leaf_page_max: cfg.int("leaf_page_max") as usize,
                internal_page_max: cfg.int("internal_page_max") as usize,
            },
            block_compressor: match cfg.str("block_compressor") {
                "none" => String::new(),
                name => name.to_string(),
            },
            collator: match cfg.str("collator") {
                "none" => String::new(),
                name => name.to_string(),
            },
        };
        check_columns(&spec)?;
        let existed = conn.registry().get(name).is_some();
        conn.create_table(spec, cfg.bool("exclusive"))?;
        if !existed {
            if let Some(table) = conn.registry().get(name) {
                table.set_timestamped(conn.timestamps_apply(table.spec().logged));
            }
            self.schema_written();
        }
        Ok(())
    }

    /// A create or drop that changed the schema is, in the reference, a successful auto-commit
    /// write (of its metadata): the session's engine-owned values become copies and its read
    /// snapshot ends, as after any such write (traces/README.md §5.3, §5.6; difftest seeds 5
    /// and 102, c-tests/traces/difftest_regressions.trace).
    pub(super) fn schema_written(&mut self) {
        if !self.txn.is_running() {
            self.copy_epoch += 1;
            self.txn.end_read_snapshot();
        }
    }

    /// `WT_SESSION::drop` for `table:NAME`, counted as a successful or failed table drop.
    pub fn drop_object(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<()> {
        let out = self.drop_table(conn, uri, config);
        self.stats().add(if out.is_ok() { ConnStat::DropOk } else { ConnStat::DropFailed }, 1);
        out
    }

    /// `WT_SESSION::verify`: checks an on-disk table's file (`Durable::verify`). In-memory
    /// databases answer `ENOTSUP`, as the reference does. The configuration's keys
    /// (`dump_*`, `read_corrupt`, `stable_timestamp`, `strict`) are only checked for syntax.
    pub fn verify(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<()> {
        check_syntax(config)?;
        let Some(durable) = conn.durable() else {
            return Err(Error::unsupported("not supported for in-memory configurations"));
        };
        let (table, _) = self.table(conn, table_name(uri)?)?;
        durable.verify(&table)
    }

    /// `WT_SESSION::salvage`: an on-disk table whose file verifies (`Durable::verify`) has
    /// nothing to salvage, and succeeds; a damaged one answers `ENOTSUP` (rebuilding a file from
    /// its readable pages is not done yet). As the reference: `EBUSY` while a cursor is open on
    /// the table, `ENOENT` for a missing one, `ENOTSUP` in memory; `force` is the one key.
    pub fn salvage(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<()> {
        let mut parser = crate::config::Parser::new(config.unwrap_or(""));
        while let Some(pair) = parser.next_pair() {
            let (key, _) = pair.map_err(Error::from)?;
            if key.text != "force" {
                return Err(Error::invalid(format!("unknown configuration key '{}'", key.text)));
            }
        }
        let Some(durable) = conn.durable() else {
            return Err(Error::unsupported("not supported for in-memory configurations"));
        };
        let (table, _) = self.table(conn, table_name(uri)?)?;
        if super::schema_parts::table_busy(conn, table.name()) {
            return Err(Error::quiet(Kind::Busy));
        }
        match durable.verify(&table) {
            Err(e) if matches!(e.kind(), Kind::TrySalvage | Kind::Generic) => {
                Err(Error::unsupported(format!("salvage of a damaged table is not supported yet ({e})")))
            }
            other => other,
        }
    }

    /// `WT_SESSION::compact`: gives an on-disk table's free space back to the file system
    /// (`Durable::compact`); not inside a transaction. In-memory databases ignore it, as the
    /// reference does. The configuration's keys (`background`, `free_space_target`, `timeout`,
    /// ...) are only checked for syntax.
    pub fn compact(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<()> {
        check_syntax(config)?;
        let Some(durable) = conn.durable() else { return Ok(()) };
        self.not_in_transaction()?;
        let (table, _) = self.table(conn, table_name(uri)?)?;
        durable.compact(conn.registry(), &table, &mut self.txn).map(drop)
    }

    /// `WT_SESSION::alter` of a table: the reference's keys are accepted (checked by name, at
    /// the top level) and none is acted on yet (the settings they change, such as
    /// `cache_resident`, `access_pattern_hint` or `app_metadata`, are not kept). `EBUSY` while a
    /// cursor is open on the table, `ENOENT` for a missing one.
    pub fn alter(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<()> {
        const KEYS: &[&str] = &[
            "access_pattern_hint", "app_metadata", "assert", "cache_resident", "checkpoint",
            "exclusive_refreshed", "log", "os_cache_dirty_max", "os_cache_max", "verbose",
            "write_timestamp_usage",
        ];
        let mut parser = crate::config::Parser::new(config.unwrap_or(""));
        while let Some(pair) = parser.next_pair() {
            let (key, _) = pair.map_err(Error::from)?;
            if !KEYS.contains(&key.text) {
                return Err(Error::invalid(format!("unknown configuration key '{}'", key.text)));
            }
        }
        let (table, _) = self.table(conn, table_name(uri)?)?;
        if table.in_use() {
            return Err(Error::quiet(Kind::Busy));
        }
        Ok(())
    }

    fn drop_table(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<()> {
        let cfg = config::validate(Method::SessionDrop, config, None)?;
        super::uri::check_name(uri)?;
        if uri.starts_with("colgroup:") || uri.starts_with("index:") {
            return self.drop_part(conn, uri, cfg.bool("force"));
        }
        let name = match Uri::parse(uri)? {
            Uri::Table(name) => name,
            Uri::NotYet(uri) => return Err(Error::unsupported(format!("{uri}: not supported yet"))),
        };
        if conn.registry().get(name).is_some() {
            // Its column groups and indices go first (refused while a cursor is open on it or
            // on one of them).
            if super::schema_parts::table_busy(conn, name) {
                return Err(Error::quiet(Kind::Busy));
            }
            self.drop_parts_of(conn, name)?;
        }
        match conn.drop_table(name) {
            Err(e) if e.kind() == Kind::NoEntry && cfg.bool("force") => Ok(()),
            other => {
                if other.is_ok() {
                    self.tables.remove(name);
                    self.schema_written();
                }
                other
            }
        }
    }

    /// `WT_SESSION::open_cursor` on a URI: served from the session's cursor cache when a
    /// cursor opened with exactly `uri` is parked there (`Opened::reused`).
    pub fn open_cursor(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<Opened> {
        let cursor_config = if config::is_trivial(config) {
            CursorConfig { overwrite: config != Some("overwrite=false"), ..CursorConfig::default() }
        } else {
            let validated = config::validate(Method::OpenCursor, config, None)?;
            refuse_checkpoint_cursor(&validated)?;
            CursorConfig::from_open(&validated)
        };
        let cacheable = self.cache_cursors && cursor_config.cacheable;
        if cacheable {
            if let Some(id) = self.reuse_cached(uri.as_bytes(), cursor_config) {
                return Ok(Opened { id, reused: true, spare: false });
            }
        }
        if let Some(id) = self.open_spare(uri.as_bytes(), cursor_config) {
            return Ok(Opened { id, reused: false, spare: true });
        }
        let name = match Uri::parse(uri)? {
            Uri::Table(name) => name,
            Uri::NotYet(uri) => match file_table(conn, uri)? {
                Some(name) => name,
                None => return Err(Error::unsupported(format!("cursors on \"{uri}\" are not supported yet"))),
            },
        };
        let (table, table_use) = self.table(conn, name)?;
        table.acquire(&table_use)?;
        self.stats().record([(ConnStat::Creates, 1), (ConnStat::OpenAdjust, 1)]);
        table_use.stats.add(DsrcStat::Creates, 1);
        table_use.stats.add(DsrcStat::OpenAdjust, 1);
        let id = self.cursors.add(uri, cacheable, Cursor::new(table, table_use, cursor_config));
        Ok(Opened { id, reused: false, spare: false })
    }

    /// `WT_SESSION::open_cursor` with `to_dup`: a cursor on the same table and key, positioned
    /// by a search.
    pub fn dup_cursor(&mut self, conn: &Connection, of: CursorId, config: Option<&str>) -> Result<Opened> {
        let source = self.cursors.get(of);
        let key = source.key_bytes()?.to_vec();
        let uri = self.cursors.uri(of).to_string();
        let opened @ Opened { id, .. } = self.open_cursor(conn, &uri, config)?;
        self.set_key_with(id, |_, buf| {
            buf.extend_from_slice(&key);
            Ok(())
        });
        if let Err(e) = self.search(id) {
            self.close_for_good(id);
            if opened.reused || opened.spare {
                // Its handle, kept from before, goes with it.
                self.freed.push(id);
            }
            return Err(e);
        }
        Ok(opened)
    }
}

/// The table whose file `file:NAME.wt` is (the reference's name of a table's B-tree): `Some`
/// for a table without column groups or indices (a cursor on its file is a cursor on its rows),
/// `ENOENT` for no such table, `None` for other `file:` names (not supported).
pub(super) fn file_table<'u>(conn: &Connection, uri: &'u str) -> Result<Option<&'u str>> {
    let Some(name) = uri.strip_prefix("file:").and_then(|f| f.strip_suffix(".wt")) else { return Ok(None) };
    if name.is_empty() || name.contains(':') {
        return Ok(None);
    }
    let Some(table) = conn.registry().get(name) else { return Err(Error::quiet(Kind::NoEntry)) };
    if crate::schema::layout::is_composite(&table) {
        return Err(Error::unsupported(format!(
            "{uri}: cursors on the file of a table with column groups or indices are not supported"
        )));
    }
    Ok(Some(name))
}

/// Checkpoint cursors (`checkpoint=NAME`) are opened before this path (`Session::open_listing`);
/// one reaching it (a duplicate of a table cursor asked to read a checkpoint) is refused
/// rather than served by a cursor on the live table, which would read the wrong data.
fn refuse_checkpoint_cursor(config: &config::Config<'_>) -> Result<()> {
    match config.str("checkpoint") {
        "" => Ok(()),
        name => Err(Error::unsupported(format!(
            "checkpoint={name}: a checkpoint cursor cannot be made by duplicating a cursor"
        ))),
    }
}

/// `columns` must name every key and value field.
fn check_columns(spec: &TableSpec) -> Result<()> {
    if spec.columns.is_empty() {
        return Ok(());
    }
    let fields = |f: &str| crate::pack::Format::parse(f).map(|f| f.arg_total());
    let expected = fields(&spec.key_format)? + fields(&spec.value_format)?;
    if spec.columns.len() as u64 != expected {
        return Err(Error::invalid(format!(
            "Number of columns in '({})' does not match key format '{}' plus value format '{}'",
            spec.columns.join(","),
            spec.key_format,
            spec.value_format
        )));
    }
    Ok(())
}

/// The table a `verify`, `compact` or `truncate` URI names (`ENOTSUP` for other objects).
pub(super) fn table_name(uri: &str) -> Result<&str> {
    super::uri::check_name(uri)?;
    match Uri::parse(uri)? {
        Uri::Table(name) => Ok(name),
        Uri::NotYet(uri) => Err(Error::unsupported(format!("unsupported object operation: {uri}"))),
    }
}

/// Checks a configuration string's syntax (methods whose keys the engine does not act on).
fn check_syntax(config: Option<&str>) -> Result<()> {
    let mut parser = crate::config::Parser::new(config.unwrap_or(""));
    while let Some(pair) = parser.next_pair() {
        pair.map_err(Error::from)?;
    }
    Ok(())
}
