//! `create` and `drop` of a table's column groups (`colgroup:T:NAME`) and indices
//! (`index:T:NAME`): each is an ordinary table of the registry (`schema::layout`), created with
//! the formats of its columns. A new index is filled from the table's rows in one transaction.

use crate::btree::tree::Limits;
use crate::config::Config;
use crate::conn::Connection;
use crate::error::{Error, Kind, Result};
use crate::schema::columns::{split_list, Columns};
use crate::schema::layout::{declared_groups, parent_table};
use crate::schema::TableSpec;

use super::Session;

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
        if table.in_use() {
            return Err(Error::new(Kind::Busy, format!("Can't create an index for table: {parent}")));
        }
        let spec = table.spec();
        let columns = Columns::new(table.key_format(), table.value_format(), &spec.columns);
        let names: Vec<String> = cfg.list("columns").into_iter().map(str::to_string).collect();
        let mut schema = String::new();
        if index {
            let extractor = cfg.str("extractor");
            if !extractor.is_empty() && extractor != "none" {
                // No extractor can be registered yet (`add_extractor` is ENOTSUP).
                return Err(Error::invalid(format!("unknown extractor '{extractor}'")));
            }
            if !columns.named() {
                return Err(Error::invalid(format!("{uri} requires a table with named columns")));
            }
            if names.is_empty() {
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
            (format!("{}{}", columns.format_of(&positions)?.as_str(), columns.format_of(&keys)?.as_str()), "u".to_string())
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
            app_metadata: String::new(),
            pages: Limits::default(),
        };
        if conn.registry().get(uri).is_some() {
            return if cfg.bool("exclusive") { Err(Error::quiet(Kind::Exists)) } else { Ok(()) };
        }
        conn.create_table(part, cfg.bool("exclusive"))?;
        self.schema_written();
        if index {
            if let Err(e) = self.fill_index(conn, &table, name) {
                let _ = conn.drop_table(uri);
                return Err(e);
            }
        }
        Ok(())
    }

    /// `WT_SESSION::drop` of `colgroup:T:NAME` or `index:T:NAME`.
    pub(super) fn drop_part(&mut self, conn: &Connection, uri: &str, force: bool) -> Result<()> {
        if let Some(table) = parent_table(uri).and_then(|p| conn.registry().get(p)) {
            if table.in_use() {
                return Err(Error::quiet(Kind::Busy));
            }
        }
        match conn.drop_table(uri) {
            Err(e) if e.kind() == Kind::NoEntry && force => Ok(()),
            Err(e) => Err(e),
            Ok(()) => {
                self.tables.remove(uri);
                self.schema_written();
                Ok(())
            }
        }
    }

    /// Drops every column group and index of table `name` (before the table itself).
    pub(super) fn drop_parts_of(&mut self, conn: &Connection, name: &str) -> Result<()> {
        let parts: Vec<String> = conn
            .registry()
            .tables()
            .into_iter()
            .filter(|t| !t.is_dropped() && parent_table(t.name()) == Some(name))
            .map(|t| t.name().to_string())
            .collect();
        for part in parts {
            conn.drop_table(&part)?;
            self.tables.remove(part.as_str());
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
