//! `create` and `drop` of a table's column groups (`colgroup:T:NAME`) and indices
//! (`index:T:NAME`): each is an ordinary table of the registry (`schema::layout`), created with
//! the formats of its columns. A new index is filled from the table's rows in one transaction.

use crate::btree::tree::Limits;
use crate::config::Config;
use crate::conn::Connection;
use crate::error::{Error, Kind, Result};
use crate::schema::columns::{split_list, Columns};
use crate::schema::layout::{declared_groups, parent_table, schema_setting};
use crate::schema::TableSpec;

use std::sync::Arc;

use crate::conn::extensions::ExtensionKind;
use crate::schema::Table;

use super::{CursorId, Session};

impl Session {
    /// `WT_SESSION::create` of `colgroup:T:NAME` or `index:T:NAME`.
    pub(super) fn create_part(&mut self, conn: &Connection, uri: &str, cfg: &Config<'_>) -> Result<()> {
        let index = uri.starts_with("index:");
        let Some(parent) = parent_table(uri) else {
            return Err(Error::invalid(format!("{uri}: invalid name")));
        };
        let name = &uri[uri.len() - uri.rsplit_once(':').map_or(0, |(_, n)| n.len())..];
        let table = match conn.registry().get(parent).filter(|t| !t.is_dropped()) {
            Some(table) => table,
            None if index => {
                return Err(Error::new(Kind::NoEntry, format!("Can't create an index for table: {parent}")));
            }
            None => {
                return Err(Error::invalid(format!("Can't create '{uri}' for non-existent table '{parent}'")));
            }
        };
        if table_busy(conn, parent) {
            return Err(Error::new(Kind::Busy, format!("Can't create an index for table: {parent}")));
        }
        conn.extensions().check_create(ExtensionKind::Compressor, cfg.str("block_compressor"))?;
        conn.extensions().check_create(ExtensionKind::Collator, cfg.str("collator"))?;
        let spec = table.spec();
        let columns = Columns::new(table.key_format(), table.value_format(), &spec.columns);
        let mut names: Vec<String> = cfg.list("columns").into_iter().map(str::to_string).collect();
        let mut schema = String::new();
        let mut extractor = None;
        if index {
            if !columns.named() {
                return Err(Error::invalid(format!("{uri} requires a table with named columns")));
            }
            let wanted = cfg.str("extractor");
            if !wanted.is_empty() && wanted != "none" {
                // The key is the extractor's: `key_format` is required and `columns` only
                // names it (a primary key column may not be among them), as in the reference.
                let Some(key_format) = cfg.get("key_format").map(|item| item.text) else {
                    return Err(Error::invalid(format!("{uri}: custom extractors require a key_format")));
                };
                let keys: Vec<usize> = (0..columns.key_count()).collect();
                if names.iter().any(|n| keys.iter().any(|&k| columns.name(k) == Some(n.as_str()))) {
                    return Err(Error::invalid("an index with a custom extractor may not include primary key columns"));
                }
                extractor = Some((wanted, key_format));
                names.clear();
            } else if names.is_empty() {
                return Err(Error::invalid(format!("{uri}: requires 'columns' configuration")));
            }
            if cfg.bool("immutable") {
                schema.push_str("immutable");
            }
        } else if !declared_groups(&table).iter().any(|g| g == name) {
            return Err(Error::invalid(format!("Column group '{name}' not found in table '{parent}'")));
        }
        let positions = columns.find(&names)?;
        let (key_format, value_format) = if index {
            let keys: Vec<usize> = (0..columns.key_count()).collect();
            let index_key = match extractor {
                Some((wanted, key_format)) => {
                    let key_format = crate::pack::Format::parse(key_format)?;
                    for (key, value) in [("extractor", wanted), ("index_key_format", key_format.as_str())] {
                        if !schema.is_empty() {
                            schema.push('\n');
                        }
                        schema.push_str(&format!("{key}={value}"));
                    }
                    key_format.as_str().to_string()
                }
                None => columns.format_of(&positions)?.as_str().to_string(),
            };
            (format!("{index_key}{}", columns.format_of(&keys)?.as_str()), "u".to_string())
        } else {
            (spec.key_format.clone(), columns.format_of(&positions)?.as_str().to_string())
        };
        let part = TableSpec {
            id: 0,
            name: uri.to_string(),
            key_format,
            value_format,
            columns: names,
            schema,
            // As given (a quoted string stays one): the extractor's `customize` gets the item.
            app_metadata: match cfg.get("app_metadata") {
                Some(item) if index && item.kind == crate::config::ItemKind::String => format!("\"{}\"", item.text),
                Some(item) if index => item.text.to_string(),
                _ => String::new(),
            },
            logged: spec.logged,
            pages: Limits::default(),
            block_compressor: match cfg.str("block_compressor") {
                "none" => String::new(),
                name => name.to_string(),
            },
            collator: match cfg.str("collator") {
                "none" => String::new(),
                name => name.to_string(),
            },
        };
        if conn.registry().get(uri).is_some() {
            return if cfg.bool("exclusive") { Err(Error::quiet(Kind::Exists)) } else { Ok(()) };
        }
        if let Some(wanted) = schema_setting(&part.schema, "extractor") {
            // Resolved (and customized) before anything is created: an unknown name fails here.
            conn.extensions().forget_index(uri);
            conn.extensions().index_extractor(self.caller, uri, wanted, &part.app_metadata)?;
        }
        conn.create_table(part, cfg.bool("exclusive"))?;
        if let Some(created) = conn.registry().get(uri) {
            // A column group or an index is journalled and takes timestamps as its table does.
            created.set_timestamped(table.uses_timestamps());
        }
        self.schema_written();
        if index {
            if let Err(e) = self.fill_index(conn, &table, name) {
                let _ = conn.drop_table(uri);
                conn.extensions().forget_index(uri);
                return Err(e);
            }
        }
        Ok(())
    }

    /// `WT_SESSION::drop` of `colgroup:T:NAME` or `index:T:NAME`.
    pub(super) fn drop_part(&mut self, conn: &Connection, uri: &str, force: bool) -> Result<()> {
        if parent_table(uri).is_some_and(|p| table_busy(conn, p)) {
            return Err(Error::quiet(Kind::Busy));
        }
        match conn.drop_table(uri) {
            Err(e) if e.kind() == Kind::NoEntry && force => Ok(()),
            Err(e) => Err(e),
            Ok(()) => {
                self.tables.remove(uri);
                conn.extensions().forget_index(uri);
                self.schema_written();
                Ok(())
            }
        }
    }

    /// Drops every column group and index of table `name` (before the table itself).
    pub(super) fn drop_parts_of(&mut self, conn: &Connection, name: &str) -> Result<()> {
        for part in parts_of(conn, name) {
            conn.drop_table(part.name())?;
            self.tables.remove(part.name());
            conn.extensions().forget_index(part.name());
        }
        Ok(())
    }
}

/// The column names of a projection suffix: `(a,b)` of `table:T(a,b)`, or None without one.
pub(super) fn projection(uri: &str) -> Result<(&str, Option<Vec<&str>>)> {
    match uri.find('(') {
        None => Ok((uri, None)),
        Some(open) => {
            let Some(list) = uri[open + 1..].strip_suffix(')') else {
                return Err(Error::invalid(format!("{uri}: invalid projection")));
            };
            Ok((&uri[..open], Some(split_list(list))))
        }
    }
}

impl Session {
    /// `WT_SESSION::rename` of `table:A` to `table:B`, with its column groups and indices:
    /// the new objects are created with the same settings, the rows copied in one transaction,
    /// then the old ones dropped. `EBUSY` while a cursor is open on the table, `ENOENT` for a
    /// missing one, `EEXIST` when the new name is taken; other objects answer `ENOTSUP`.
    pub fn rename(&mut self, conn: &Connection, uri: &str, new_uri: &str, config: Option<&str>) -> Result<()> {
        let mut parser = crate::config::Parser::new(config.unwrap_or(""));
        while let Some(pair) = parser.next_pair() {
            pair.map_err(Error::from)?;
        }
        super::uri::check_name(uri)?;
        super::uri::check_name(new_uri)?;
        let (Some(from), Some(to)) = (uri.strip_prefix("table:"), new_uri.strip_prefix("table:")) else {
            return Err(Error::unsupported(format!("rename of {uri} to {new_uri}: only tables can be renamed")));
        };
        if from.is_empty() || to.is_empty() {
            return Err(Error::invalid("rename: invalid table name"));
        }
        self.not_in_transaction()?;
        let registry = conn.registry();
        let table = registry.get(from).filter(|t| !t.is_dropped()).ok_or(Error::quiet(Kind::NoEntry))?;
        if registry.get(to).is_some() {
            return Err(Error::quiet(Kind::Exists));
        }
        if table_busy(conn, from) {
            return Err(Error::quiet(Kind::Busy));
        }
        let mut stores = vec![(table, to.to_string())];
        for part in parts_of(conn, from) {
            let (kind, rest) = part.name().split_once(':').unwrap_or_default();
            let renamed = format!("{kind}:{to}:{}", &rest[from.len() + 1..]);
            stores.push((part, renamed));
        }
        for (store, name) in &stores {
            let spec = TableSpec { id: 0, name: name.clone(), ..store.spec().clone() };
            conn.create_table(spec, true)?;
            if let Some(created) = conn.registry().get(name) {
                created.set_timestamped(store.uses_timestamps());
            }
        }
        self.copy_stores(conn, &stores)?;
        self.drop_parts_of(conn, from)?;
        conn.drop_table(from)?;
        self.tables.remove(from);
        self.schema_written();
        Ok(())
    }

    /// Copies each store's rows into the store of the new name, in one transaction.
    fn copy_stores(&mut self, conn: &Connection, stores: &[(Arc<Table>, String)]) -> Result<()> {
        self.txn.begin(None, Default::default())?;
        let out = (|| {
            for (store, name) in stores {
                let target = conn.registry().get(name).ok_or(Error::quiet(Kind::NoEntry))?;
                let from = self.open_scan(conn, store)?;
                let to = match self.open_scan(conn, &target) {
                    Ok(to) => to,
                    Err(e) => {
                        self.close_scan(from);
                        return Err(e);
                    }
                };
                let copied = self.copy_rows(from, to);
                self.close_scan(from);
                self.close_scan(to);
                copied?;
            }
            Ok(())
        })();
        let end = if out.is_ok() { self.txn.commit() } else { self.txn.rollback() };
        self.copy_epoch += 1;
        out.and(end)
    }

    fn copy_rows(&mut self, from: CursorId, to: CursorId) -> Result<()> {
        loop {
            match self.next(from) {
                Ok(()) => {}
                Err(e) if e.kind() == Kind::NotFound => return Ok(()),
                Err(e) => return Err(e),
            }
            let source = self.cursors.get(from);
            let (key, value) = (source.key_bytes()?.to_vec(), source.value_bytes()?.to_vec());
            self.set_key_with(to, |_, buf| {
                buf.extend_from_slice(&key);
                Ok(())
            });
            self.set_value_with(to, |_, buf| {
                buf.extend_from_slice(&value);
                Ok(())
            });
            self.insert(to)?;
        }
    }
}

/// The column groups and indices of table `name` (their stores).
fn parts_of(conn: &Connection, name: &str) -> Vec<Arc<Table>> {
    conn.registry().tables().into_iter().filter(|t| !t.is_dropped() && parent_table(t.name()) == Some(name)).collect()
}

/// Whether a cursor is open on table `name` or on one of its stores (the cursors of a table
/// with column groups, and index cursors, are open on the stores).
pub(super) fn table_busy(conn: &Connection, name: &str) -> bool {
    conn.registry().get(name).is_some_and(|t| t.in_use()) || parts_of(conn, name).iter().any(|t| t.in_use())
}
