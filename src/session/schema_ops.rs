//! Session methods that create, drop and open objects.

use crate::config::{self, Method};
use crate::conn::Connection;
use crate::cursor::{Cursor, CursorConfig};
use crate::error::{Error, Kind, Result};
use crate::schema::TableSpec;

use super::{CursorId, Session, Uri};

impl Session {
    /// `WT_SESSION::create` for `table:NAME`.
    pub fn create(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<()> {
        let cfg = config::validate(Method::SessionCreate, config, Some(&crate::schema::check_format))?;
        let name = match Uri::parse(uri)? {
            Uri::Table(name) => name,
            Uri::NotYet(uri) => return Err(Error::unsupported(format!("{uri}: not supported yet"))),
        };
        let kind = cfg.str("type");
        if kind != "file" {
            return Err(Error::unsupported(format!("unknown object type \"{kind}\"")));
        }
        if !cfg.list("colgroups").is_empty() {
            return Err(Error::unsupported("column groups are not supported yet"));
        }
        for key in ["block_compressor", "collator", "extractor", "encryption.name"] {
            let value = cfg.str(key);
            if !value.is_empty() && value != "none" {
                return Err(Error::unsupported(format!("{key}={value} is not supported")));
            }
        }
        let spec = TableSpec {
            name: name.to_string(),
            key_format: cfg.str("key_format").to_string(),
            value_format: cfg.str("value_format").to_string(),
            columns: cfg.list("columns").into_iter().map(str::to_string).collect(),
            app_metadata: cfg.str("app_metadata").to_string(),
        };
        check_columns(&spec)?;
        conn.registry().create(spec, cfg.bool("exclusive"))
    }

    /// `WT_SESSION::drop` for `table:NAME`.
    pub fn drop_object(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<()> {
        let cfg = config::validate(Method::SessionDrop, config, None)?;
        let name = match Uri::parse(uri)? {
            Uri::Table(name) => name,
            Uri::NotYet(uri) => return Err(Error::unsupported(format!("{uri}: not supported yet"))),
        };
        match conn.registry().drop_table(name) {
            Err(e) if e.kind() == Kind::NoEntry && cfg.bool("force") => Ok(()),
            other => {
                if other.is_ok() {
                    self.tables.remove(name);
                }
                other
            }
        }
    }

    /// `WT_SESSION::open_cursor` on a URI.
    pub fn open_cursor(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<CursorId> {
        let cursor_config = if config::is_trivial(config) {
            CursorConfig { overwrite: config != Some("overwrite=false"), ..CursorConfig::default() }
        } else {
            CursorConfig::from_open(&config::validate(Method::OpenCursor, config, None)?)
        };
        let name = match Uri::parse(uri)? {
            Uri::Table(name) => name,
            Uri::NotYet(uri) => return Err(Error::unsupported(format!("cursors on \"{uri}\" are not supported yet"))),
        };
        let (table, table_use) = self.table(conn, name)?;
        table.acquire(&table_use)?;
        Ok(self.cursors.add(|seq| Cursor::new(table, table_use, cursor_config, seq)))
    }

    /// `WT_SESSION::open_cursor` with `to_dup`: a cursor on the same table and key, positioned
    /// by a search.
    pub fn dup_cursor(&mut self, conn: &Connection, of: CursorId, config: Option<&str>) -> Result<CursorId> {
        let source = self.cursors.get(of);
        let key = source.key_bytes()?.to_vec();
        let name = source.table().name().to_string();
        let id = self.open_cursor(conn, &format!("table:{name}"), config)?;
        self.set_key_with(id, |_, buf| {
            buf.extend_from_slice(&key);
            Ok(())
        });
        if let Err(e) = self.search(id) {
            self.close_cursor(id);
            return Err(e);
        }
        Ok(id)
    }
}

/// `columns` must name every key and value field.
fn check_columns(spec: &TableSpec) -> Result<()> {
    if spec.columns.is_empty() {
        return Ok(());
    }
    let fields = |f: &str| crate::pack::Format::parse(f).map(|f| f.cargs().len());
    let expected = fields(&spec.key_format)? + fields(&spec.value_format)?;
    if spec.columns.len() != expected {
        return Err(Error::invalid(format!(
            "Number of columns in '({})' does not match key format '{}' plus value format '{}'",
            spec.columns.join(","),
            spec.key_format,
            spec.value_format
        )));
    }
    Ok(())
}
