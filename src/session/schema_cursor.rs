//! Schema cursors: cursors on tables with column groups or indices, on projections
//! (`table:T(a,b)`), and on indices (`index:T:I`, `index:T:I(cols)`). Each works through
//! internal raw cursors of the session on the stores of `schema::layout` (never seen by the
//! application, never cached): a table write goes to every column group and keeps every index
//! in step inside one transaction (the application's, or one of its own that commits or rolls
//! back with the write), so the index entries of a write are journalled and recovered with it.
//! Plain tables never come here: their cursors stay on the quick paths.

use std::ffi::CString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use crate::config::{self, Method};
use crate::conn::extensions::Extractor;
use crate::conn::Connection;
use crate::cursor::{Cursor, CursorConfig, Held};
use crate::error::{Error, Kind, Result};
use crate::pack::Format;
use crate::schema::columns::{pack_values, unpack_values, Value};
use crate::schema::layout::{is_composite, Layout};
use crate::schema::Table;

use super::schema_join::JoinState;
use super::schema_parts::projection;
use super::{CursorId, Session};

/// What a schema cursor reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// The table's rows.
    Table,
    /// The rows in the order of this index.
    Index(usize),
    /// The rows meeting a join's conditions (`schema_join`).
    Join,
}

/// The write a table cursor makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Write {
    Insert,
    Update,
    Remove,
}

/// A schema cursor (held by its C handle, like a statistics cursor).
pub struct SchemaCursor {
    layout: Arc<Layout>,
    target: Target,
    config: CursorConfig,
    /// The internal cursor that holds the position: on the first value store (tables) or on
    /// the index's store.
    scan: CursorId,
    /// One internal cursor per value store, for reads of the other stores and for writes.
    groups: Vec<CursorId>,
    /// One internal cursor per index (table cursors that write).
    indices: Vec<CursorId>,
    /// A second internal cursor on the first value store, with `overwrite` (that store's cursor
    /// in `groups` has none: an insert tries a new key first and reads only when it exists).
    upsert: Option<CursorId>,
    /// The key and value as they cross the API (packed in these formats).
    key_format: Format,
    value_format: Format,
    key_format_c: CString,
    value_format_c: CString,
    /// Row positions of the columns the value holds.
    projection: Vec<usize>,
    /// The value is the first store's value as stored (no projection, one store).
    direct: bool,
    /// Whether the value needs the value stores (an index cursor's projection may not).
    reads_stores: bool,
    /// An index cursor whose searches may check the entry against its row
    /// (`Session::search_by_row`).
    by_row: bool,
    key: Held,
    value: Held,
    /// A join cursor's conditions and rows.
    join: Option<Box<JoinState>>,
    /// Used in a join (as the reference's `WT_CURSTD_JOINED`): its methods are refused until
    /// the join cursor closes.
    joined: Arc<AtomicBool>,
    /// Per index, its custom extractor (None for an index of columns; the error of an
    /// unregistered one, reported by the first write, as the reference does).
    extractors: Vec<Option<Result<Arc<dyn Extractor>>>>,
    /// A primary key copied out of an index entry (kept, so a search allocates nothing).
    pk: Vec<u8>,
    /// An index key being packed by an insert (kept, so an insert allocates none for it).
    index_key: Vec<u8>,
}

/// The format of raw cursors' keys and values: one item.
fn raw_format() -> &'static Format {
    static RAW: OnceLock<Format> = OnceLock::new();
    RAW.get_or_init(|| Format::parse("u").expect("a valid format"))
}

impl SchemaCursor {
    /// The format keys cross the API in.
    pub fn api_key_format(&self) -> &Format {
        if self.config.raw { raw_format() } else { &self.key_format }
    }

    /// The format values cross the API in.
    pub fn api_value_format(&self) -> &Format {
        if self.config.raw { raw_format() } else { &self.value_format }
    }

    /// `WT_CURSOR::key_format` (the format even for raw cursors, as for table cursors).
    pub fn key_format_c(&self) -> &CString {
        &self.key_format_c
    }

    /// `WT_CURSOR::value_format`.
    pub fn value_format_c(&self) -> &CString {
        &self.value_format_c
    }

    /// The packed key, for `get_key`.
    pub fn key_bytes(&self) -> Result<&[u8]> {
        self.key.bytes().ok_or_else(|| Error::invalid("requires key be set"))
    }

    /// Whether the cursor is used in a join: its methods answer `ENOTSUP` (see `joined`).
    pub fn is_joined(&self) -> bool {
        self.joined.load(Ordering::Relaxed)
    }

    /// The flag a join sets (and clears when the join cursor closes).
    pub(super) fn joined_flag(&self) -> &Arc<AtomicBool> {
        &self.joined
    }

    /// `get_value`'s packed value: refused while the cursor is used in a join.
    pub fn api_value_bytes(&self) -> Result<&[u8]> {
        if self.is_joined() {
            return Err(joined());
        }
        self.value_bytes()
    }

    /// The packed value, for `get_value`.
    pub fn value_bytes(&self) -> Result<&[u8]> {
        self.value.bytes().ok_or_else(|| Error::invalid("requires value be set"))
    }

    /// `set_key`: `pack` writes the key given the API key format.
    pub fn set_key_with(&mut self, pack: impl FnOnce(&Format, &mut Vec<u8>) -> Result<()>) {
        let format = if self.config.raw { raw_format() } else { &self.key_format };
        self.key.set_app_with(|buf| pack(format, buf));
    }

    /// `set_value`: `pack` writes the value given the API value format. Index cursors take
    /// no value ("not supported for index cursors").
    pub fn set_value_with(&mut self, pack: impl FnOnce(&Format, &mut Vec<u8>) -> Result<()>) {
        if matches!(self.target, Target::Index(_)) {
            self.value.set_error(Error::unsupported("WT_CURSOR.set_value not supported for index cursors"));
            return;
        }
        let format = if self.config.raw { raw_format() } else { &self.value_format };
        self.value.set_app_with(|buf| pack(format, buf));
    }

    /// The internal cursors, for closing them.
    fn inner(&self) -> impl Iterator<Item = CursorId> + '_ {
        std::iter::once(self.scan)
            .chain(self.groups.iter().copied())
            .chain(self.indices.iter().copied())
            .chain(self.upsert)
    }

    fn table(&self) -> &Arc<Table> {
        &self.layout.table
    }

    /// The table's layout.
    pub(super) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Whether this is a join cursor.
    pub fn is_join(&self) -> bool {
        self.target == Target::Join
    }

    /// A join cursor's state.
    pub(super) fn join_state(&self) -> Option<&JoinState> {
        self.join.as_deref()
    }

    /// A join cursor's state, to change.
    pub(super) fn join_state_mut(&mut self) -> Option<&mut JoinState> {
        self.join.as_deref_mut()
    }

    /// A join cursor's state, taken out while it is evaluated (`put_join` puts it back).
    pub(super) fn take_join(&mut self) -> Box<JoinState> {
        self.join.take().unwrap_or_default()
    }

    /// Puts back what `take_join` took.
    pub(super) fn put_join(&mut self, state: Box<JoinState>) {
        self.join = Some(state);
    }

    /// The entries of a join cursor, for `statistics:join`.
    pub fn join_core(&self) -> Option<Arc<parking_lot::Mutex<super::schema_join::JoinCore>>> {
        self.join.as_deref().map(|j| Arc::clone(j.core()))
    }

    /// The internal cursor holding the position, when a read positioned the cursor.
    pub(super) fn position(&self) -> Option<CursorId> {
        self.value.bytes().is_some().then_some(self.scan)
    }

    /// Whether keys and values cross the API as packed items.
    pub(super) fn is_raw(&self) -> bool {
        self.config.raw
    }

    /// Whether this cursor reads the table's rows (not an index or join cursor).
    pub(super) fn is_table_target(&self) -> bool {
        self.target == Target::Table
    }

    /// The index an index cursor reads.
    pub(super) fn index_target(&self) -> Option<usize> {
        match self.target {
            Target::Index(at) => Some(at),
            _ => None,
        }
    }
}

/// The error of a method of a cursor used in a join.
pub fn joined() -> Error {
    Error::unsupported("cursor is being used in a join")
}

/// Sets an internal (raw) cursor's key or value to `bytes`.
fn raw_fill(bytes: &[u8]) -> impl FnOnce(&Format, &mut Vec<u8>) -> Result<()> + '_ {
    move |_, buf| {
        buf.extend_from_slice(bytes);
        Ok(())
    }
}

impl Session {
    /// `open_cursor` of a URI that needs a schema cursor: `index:T:I[(cols)]`, a projection
    /// `table:T(cols)`, or a table with column groups or indices. None for everything else
    /// (the caller opens an ordinary cursor).
    pub fn open_schema_cursor(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<Option<SchemaCursor>> {
        let (base, columns) = projection(uri)?;
        let join = base.starts_with("join:");
        let base = base.strip_prefix("join:").unwrap_or(base);
        if join && !base.starts_with("table:") {
            return Err(Error::invalid(format!("{uri}: join cursors are on tables")));
        }
        let (name, index) = if let Some(rest) = base.strip_prefix("index:") {
            match rest.rsplit_once(':') {
                Some((table, index)) => (table, Some(index)),
                None => return Err(Error::quiet(Kind::NoEntry)),
            }
        } else if let Some(name) = base.strip_prefix("table:") {
            (name, None)
        } else {
            return Ok(None);
        };
        let table = match self.table(conn, name) {
            Ok((table, _)) => table,
            // A missing table: the ordinary open reports it.
            Err(_) if index.is_none() && columns.is_none() => return Ok(None),
            Err(e) => return Err(e),
        };
        if !join && index.is_none() && columns.is_none() && !is_composite(&table) {
            return Ok(None);
        }
        let mut cursor_config = if config::is_trivial(config) {
            CursorConfig { overwrite: config != Some("overwrite=false"), ..CursorConfig::default() }
        } else {
            CursorConfig::from_open(&config::validate(Method::OpenCursor, config, None)?)
        };
        cursor_config.cacheable = false;
        let layout = Arc::new(Layout::load(conn.registry(), &table)?);
        let target = match index {
            Some(index) => Target::Index(layout.index(index).ok_or(Error::quiet(Kind::NoEntry))?),
            None if join => Target::Join,
            None => Target::Table,
        };
        let mut extractors = Vec::new();
        if layout.indices.iter().any(|index| index.extract.is_some()) {
            for index in &layout.indices {
                extractors.push(index.extract.as_ref().map(|x| {
                    conn.extensions().index_extractor(self.caller, index.table.name(), &x.name, &x.app_metadata)
                }));
            }
            // An index cursor needs its extractor to open; a table cursor only to write.
            if let Target::Index(at) = target {
                if let Some(Err(e)) = &extractors[at] {
                    return Err(e.clone());
                }
            }
        }
        let projection = match &columns {
            Some(names) => layout.columns.find(names)?,
            None => layout.columns.value_columns(),
        };
        let key_format = match target {
            Target::Table | Target::Join => table.key_format().clone(),
            Target::Index(at) => layout.indices[at].key_format.clone(),
        };
        let value_format = layout.columns.format_of(&projection)?;
        let direct = columns.is_none() && layout.groups.len() == 1;
        let reads_stores = match target {
            Target::Table | Target::Join => true,
            Target::Index(at) => {
                let index = &layout.indices[at];
                let kc = layout.columns.key_count();
                projection.iter().any(|p| *p >= kc && !index.columns.contains(p))
            }
        };
        let by_row = match target {
            Target::Index(at) => direct && !cursor_config.raw && layout.checks_by_row(at),
            Target::Table | Target::Join => false,
        };
        let c = |f: &Format| CString::new(f.as_str()).map_err(|_| Error::invalid("embedded NUL in a format"));
        let (key_format_c, value_format_c) = (c(&key_format)?, c(&value_format)?);
        // The internal cursors: writes ignore `overwrite` (the schema cursor applies it).
        let inner = CursorConfig { raw: true, overwrite: true, append: false, readonly: false, cacheable: false, next_random: false };
        let mut opened = Vec::new();
        let out = (|| {
            let scan_store = match target {
                Target::Table | Target::Join => &layout.groups[0].table,
                Target::Index(at) => &layout.indices[at].table,
            };
            let scan = self.open_inner(conn, scan_store, inner, &mut opened)?;
            let mut groups = Vec::with_capacity(layout.groups.len());
            for (at, group) in layout.groups.iter().enumerate() {
                // The first store finds duplicate keys (see `upsert`).
                let first = at == 0;
                let append = first && cursor_config.append && target == Target::Table;
                let overwrite = !first;
                groups.push(self.open_inner(conn, &group.table, CursorConfig { append, overwrite, ..inner }, &mut opened)?);
            }
            let mut indices = Vec::new();
            let mut upsert = None;
            if target == Target::Table && !cursor_config.readonly {
                for index in &layout.indices {
                    indices.push(self.open_inner(conn, &index.table, inner, &mut opened)?);
                }
                upsert = Some(self.open_inner(conn, &layout.groups[0].table, inner, &mut opened)?);
            }
            Ok((scan, groups, indices, upsert))
        })();
        let (scan, groups, indices, upsert) = match out {
            Ok(ids) => ids,
            Err(e) => {
                for id in opened {
                    self.close_inner(id);
                }
                return Err(e);
            }
        };
        Ok(Some(SchemaCursor {
            layout,
            target,
            config: cursor_config,
            scan,
            groups,
            indices,
            upsert,
            key_format,
            value_format,
            key_format_c,
            value_format_c,
            projection,
            direct,
            reads_stores,
            by_row,
            key: Held::default(),
            value: Held::default(),
            join: join.then(|| Box::new(JoinState::new(uri))),
            joined: Arc::default(),
            extractors,
            pk: Vec::new(),
            index_key: Vec::new(),
        }))
    }

    /// Opens an internal raw cursor on `store`, to read (`close_scan` closes it).
    pub(super) fn open_scan(&mut self, conn: &Connection, store: &Arc<Table>) -> Result<CursorId> {
        let config = CursorConfig { raw: true, cacheable: false, ..CursorConfig::default() };
        self.open_inner(conn, store, config, &mut Vec::new())
    }

    /// Closes a cursor of [`open_scan`](Self::open_scan).
    pub(super) fn close_scan(&mut self, id: CursorId) {
        self.close_inner(id);
        self.idle_check();
    }

    /// Opens an internal cursor on `store`.
    fn open_inner(&mut self, conn: &Connection, store: &Arc<Table>, config: CursorConfig, opened: &mut Vec<CursorId>) -> Result<CursorId> {
        let (table, table_use) = self.table(conn, store.name())?;
        table.acquire(&table_use)?;
        let uri = table.uri().to_str().unwrap_or("").to_string();
        let id = self.cursors.add(&uri, false, Cursor::new(table, table_use, config));
        opened.push(id);
        Ok(id)
    }

    /// Closes a schema cursor's internal cursors.
    pub fn close_schema_cursor(&mut self, mut cursor: SchemaCursor) {
        if let Some(join) = cursor.join.as_deref_mut() {
            for id in join.take_cursors() {
                self.close_inner(id);
            }
            join.release_joined();
        }
        for id in cursor.inner() {
            self.close_inner(id);
        }
        self.idle_check();
    }

    /// Closes an internal cursor (not counted among the open cursors, as it was not at open).
    fn close_inner(&mut self, id: CursorId) {
        let cursor = self.cursors.remove(id);
        cursor.table().release(cursor.table_use());
    }

    /// `WT_CURSOR::reset` of a schema cursor.
    pub fn schema_reset(&mut self, sc: &mut SchemaCursor) {
        for id in sc.inner() {
            self.cursors.with(id, Cursor::reset_all);
        }
        sc.key.clear();
        sc.value.clear();
        self.join_reset(sc);
        self.idle_check();
    }

    /// `next` (`forward`) or `prev`. Join cursors only go forward.
    pub fn schema_step(&mut self, conn: &Connection, sc: &mut SchemaCursor, forward: bool) -> Result<()> {
        if sc.target == Target::Join {
            if !forward {
                return Err(crate::stats::unsupported());
            }
            let out = self.join_next(conn, sc);
            return self.after_read(sc, out);
        }
        let out = if forward { self.next(sc.scan) } else { self.prev(sc.scan) };
        let out = out.and_then(|()| self.land(sc));
        self.after_read(sc, out)
    }

    /// Lands a join cursor on the row of primary key `pk`; false when it no longer exists.
    pub(super) fn land_row(&mut self, sc: &mut SchemaCursor, pk: &[u8]) -> Result<bool> {
        let Some(row) = self.row_of(sc, pk)? else { return Ok(false) };
        sc.key.set_app(pk);
        let format = &sc.value_format;
        let projection = &sc.projection;
        sc.value.set_app_with(|buf| pack_values(format, projection.iter().map(|&p| &row[p]), buf));
        sc.value.check("requires value be set")?;
        Ok(true)
    }

    /// `search`: the exact key (tables), the first entry of the index key (indices).
    pub fn schema_search(&mut self, sc: &mut SchemaCursor) -> Result<()> {
        if self.search_by_row(sc) {
            return Ok(());
        }
        let out = match sc.target {
            Target::Join => return Err(crate::stats::unsupported()),
            Target::Table => {
                let key = sc.key_bytes()?.to_vec();
                self.set_key_with(sc.scan, raw_fill(&key));
                self.search(sc.scan)
            }
            Target::Index(_) => self.index_seek(sc).and_then(|exact| {
                if exact == 0 {
                    Ok(())
                } else {
                    self.cursors.with(sc.scan, Cursor::reset_all);
                    Err(Error::quiet(Kind::NotFound))
                }
            }),
        };
        let out = out.and_then(|()| self.land(sc));
        self.after_read(sc, out)
    }

    /// `search_near`.
    pub fn schema_search_near(&mut self, sc: &mut SchemaCursor) -> Result<i32> {
        if self.search_by_row(sc) {
            return Ok(0);
        }
        let out = match sc.target {
            Target::Join => return Err(crate::stats::unsupported()),
            Target::Table => {
                let key = sc.key_bytes()?.to_vec();
                self.set_key_with(sc.scan, raw_fill(&key));
                self.search_near(sc.scan)
            }
            Target::Index(_) => self.index_seek(sc),
        };
        let out = out.and_then(|exact| self.land(sc).map(|()| exact));
        self.after_read(sc, out)
    }

    /// Keeps the application's key after a failed read; drops the value.
    fn after_read<T>(&mut self, sc: &mut SchemaCursor, out: Result<T>) -> Result<T> {
        if out.is_err() {
            sc.value.clear();
            self.idle_check();
        }
        out
    }

    /// The common index search without loading the entry's own versions: the prefix map's
    /// first entry of the key, accepted when its row, read as the search would read it, makes
    /// it ([`Cursor::land_by_row`] says why that is exact). Fills the key, primary key and value
    /// as [`land`](Self::land) does; `false` when it cannot tell (nothing changed then).
    fn search_by_row(&mut self, sc: &mut SchemaCursor) -> bool {
        let Target::Index(at) = sc.target else { return false };
        if !sc.by_row {
            return false;
        }
        let SchemaCursor { layout, key, value, index_key, pk, scan, groups, .. } = sc;
        let Some(prefix) = key.bytes() else { return false };
        let n = prefix.len();
        let made = |entry: &[u8], row: &[u8]| layout.makes_entry(at, entry, n, row, index_key);
        if !self.land_by_row(*scan, (groups[0], &layout.groups[0].table), prefix, made, value) {
            return false;
        }
        let entry = self.cursors.get(*scan).key_bytes().unwrap_or_default();
        pk.clear();
        pk.extend_from_slice(&entry[n..]);
        key.mark_app();
        true
    }

    /// Positions an index cursor's store on the first entry at or after the key's columns;
    /// returns 0 when that entry has them, else which side of them it is.
    fn index_seek(&mut self, sc: &mut SchemaCursor) -> Result<i32> {
        let Target::Index(at) = sc.target else { unreachable!("index cursors only") };
        let index = &sc.layout.indices[at];
        let key = sc.key_bytes()?;
        let item_last = index.key_format.as_str().ends_with(['u', 'U']);
        if sc.config.raw || !item_last {
            // The key is the stored keys' prefix as it is: the first entry at or after it.
            match self.land_at_or_after(sc.scan, key)? {
                Some(true) => return Ok(0),
                Some(false) => return Ok(1),
                None => {}
            }
        }
        // A raw key is taken as the stored key's prefix as it is.
        let prefix = if !sc.config.raw && item_last {
            // As the leading columns of the stored key, a last item carries its length.
            let mut values = unpack_values(&index.key_format, key)?;
            values.push(Value::Bytes(Vec::new()));
            let mut prefix = Vec::new();
            pack_values(&index.prefix_format, values.iter(), &mut prefix)?;
            prefix
        } else {
            key.to_vec()
        };
        self.set_key_with(sc.scan, raw_fill(&prefix));
        let exact = self.search_near(sc.scan)?;
        if exact < 0 {
            // Landed before: the entry after it is the first at or after the prefix, if any.
            if let Err(e) = self.next(sc.scan) {
                if e.kind() != Kind::NotFound {
                    return Err(e);
                }
                self.prev(sc.scan)?;
            }
        }
        let scan = self.cursors.get(sc.scan);
        let landed = scan.key_bytes()?;
        if let Some(c) = scan.table().collator() {
            // In the index's order: the entry cut to the key's length against the key.
            let cut = &landed[..landed.len().min(prefix.len())];
            return Ok(match c.order(cut, &prefix) {
                std::cmp::Ordering::Equal if cut.len() == prefix.len() => 0,
                std::cmp::Ordering::Less => -1,
                _ => 1,
            });
        }
        Ok(if landed.starts_with(&prefix) {
            0
        } else if landed > prefix.as_slice() {
            1
        } else {
            -1
        })
    }

    /// Fills the schema cursor's key and value from where its internal cursor landed.
    fn land(&mut self, sc: &mut SchemaCursor) -> Result<()> {
        let layout = Arc::clone(&sc.layout);
        let kc = layout.columns.key_count();
        let mut row;
        match sc.target {
            Target::Join => unreachable!("join cursors land through land_row"),
            Target::Table => {
                let scan = self.cursors.get(sc.scan);
                let (key, value) = (scan.key_bytes()?, scan.value_bytes()?);
                sc.key.set_app(key);
                if sc.direct {
                    sc.value.set_app_with(|buf| {
                        buf.extend_from_slice(value);
                        Ok(())
                    });
                    return Ok(());
                }
                row = layout.columns.empty_row();
                place(&mut row, 0..kc, unpack_values(layout.table.key_format(), key)?);
                let first = &layout.groups[0];
                place(&mut row, first.columns.iter().copied(), unpack_values(first.table.value_format(), value)?);
                let key = key.to_vec();
                self.fetch_groups(sc, &key, &mut row, 1)?;
            }
            Target::Index(at) if sc.direct && !layout.indices[at].key_format.as_str().ends_with(['u', 'U']) => {
                // The common case needs no row: the stored key is the index columns then the
                // primary key, encoded as they are on their own, and the value is the stored one.
                let entry = self.cursors.get(sc.scan).key_bytes()?;
                let n = crate::pack::unpack(&layout.indices[at].key_format, entry, &mut crate::pack::Discard)?;
                // A raw index cursor's key is the whole stored key, as the reference's.
                sc.key.set_app(if sc.config.raw { entry } else { &entry[..n] });
                sc.pk.clear();
                sc.pk.extend_from_slice(&entry[n..]);
                return self.read_into(sc.groups[0], &sc.pk, &mut sc.value);
            }
            Target::Index(at) => {
                let index = &layout.indices[at];
                let entry = self.cursors.get(sc.scan).key_bytes()?;
                let mut values = unpack_values(index.table.key_format(), entry)?;
                let n = index.key_fields;
                let pk_values = values.split_off(n);
                if sc.config.raw {
                    // A raw index cursor's key is the whole stored key, as the reference's.
                    sc.key.set_app(entry);
                } else {
                    let mut key = Vec::new();
                    pack_values(&index.key_format, values.iter(), &mut key)?;
                    sc.key.set_app(&key);
                }
                row = layout.columns.empty_row();
                place(&mut row, index.columns.iter().copied(), values);
                place(&mut row, 0..kc, pk_values);
                if sc.reads_stores {
                    let mut pk = Vec::new();
                    pack_values(layout.table.key_format(), row[..kc].iter(), &mut pk)?;
                    self.fetch_groups(sc, &pk, &mut row, 0)?;
                }
            }
        }
        let format = &sc.value_format;
        let projection = &sc.projection;
        sc.value.set_app_with(|buf| pack_values(format, projection.iter().map(|&p| &row[p]), buf));
        sc.value.check("requires value be set")
    }

    /// The stored keys index `at` holds for the row of primary key `pk` (one, or what its
    /// extractor makes); false when there is no such row.
    pub(super) fn index_keys_of_row(&mut self, sc: &SchemaCursor, at: usize, pk: &[u8], out: &mut Vec<Vec<u8>>) -> Result<bool> {
        let Some(row) = self.row_of(sc, pk)? else { return Ok(false) };
        let layout = &sc.layout;
        out.clear();
        if layout.indices[at].extract.is_some() {
            self.extract_keys(sc, at, &row, pk, out)?;
        } else {
            let mut key = Vec::new();
            layout.index_key(at, &row, pk, &mut key)?;
            out.push(key);
        }
        Ok(true)
    }

    /// The row of primary key `pk`, None when there is none.
    fn row_of(&mut self, sc: &SchemaCursor, pk: &[u8]) -> Result<Option<Vec<Value>>> {
        let layout = &sc.layout;
        let mut row = layout.columns.empty_row();
        place(&mut row, 0..layout.columns.key_count(), unpack_values(layout.table.key_format(), pk)?);
        Ok(self.fetch_groups(sc, pk, &mut row, 0)?.then_some(row))
    }

    /// Reads the value stores from `from` on for primary key `pk` into `row`; `Ok(false)` when
    /// the row does not exist.
    fn fetch_groups(&mut self, sc: &SchemaCursor, pk: &[u8], row: &mut [Value], from: usize) -> Result<bool> {
        for (at, group) in sc.layout.groups.iter().enumerate().skip(from) {
            let id = sc.groups[at];
            self.set_key_with(id, raw_fill(pk));
            match self.search(id) {
                Ok(()) => {}
                Err(e) if e.kind() == Kind::NotFound => return Ok(false),
                Err(e) => return Err(e),
            }
            let values = unpack_values(group.table.value_format(), self.cursors.get(id).value_bytes()?)?;
            place(row, group.columns.iter().copied(), values);
        }
        Ok(true)
    }

    /// `insert`.
    pub fn schema_insert(&mut self, sc: &mut SchemaCursor) -> Result<()> {
        self.schema_write(sc, Write::Insert)
    }

    /// `update`.
    pub fn schema_update(&mut self, sc: &mut SchemaCursor) -> Result<()> {
        self.schema_write(sc, Write::Update)
    }

    /// `remove`.
    pub fn schema_remove(&mut self, sc: &mut SchemaCursor) -> Result<()> {
        self.schema_write(sc, Write::Remove)
    }

    /// A table write: every value store and index, in the running transaction or in one of
    /// its own.
    fn schema_write(&mut self, sc: &mut SchemaCursor, write: Write) -> Result<()> {
        if sc.target != Target::Table || sc.config.readonly {
            return Err(crate::stats::unsupported());
        }
        let append = write == Write::Insert && sc.config.append && sc.table().is_recno();
        if !append {
            sc.key.check("requires key be set")?;
        }
        if write != Write::Remove {
            sc.value.check("requires value be set")?;
        }
        let own = !self.txn.is_running();
        if own {
            self.txn.begin(None, Default::default())?;
        }
        let out = if write == Write::Insert && !append && sc.direct && sc.layout.indices_of_items() {
            self.insert_items(sc)
        } else {
            self.write_values(sc, write, append)
        };
        if own {
            let end = if out.is_ok() { self.txn.commit() } else { self.txn.rollback() };
            self.copy_epoch += 1;
            self.idle_check();
            if out.is_ok() {
                end?;
            }
        }
        out
    }

    /// A write through the row of owned values the cursor's key and value make.
    fn write_values(&mut self, sc: &mut SchemaCursor, write: Write, append: bool) -> Result<()> {
        let layout = Arc::clone(&sc.layout);
        let kc = layout.columns.key_count();
        let mut row = layout.columns.empty_row();
        if !append {
            place(&mut row, 0..kc, unpack_values(layout.table.key_format(), sc.key_bytes()?)?);
        }
        if write != Write::Remove {
            place(&mut row, sc.projection.iter().copied(), unpack_values(&sc.value_format, sc.value_bytes()?)?);
        }
        self.write_row(sc, write, append, &mut row)
    }

    /// The common insert (a direct cursor, one value store, indices of columns): the row goes
    /// in as the application packed it, and each index key is packed from the items of the
    /// key and value, borrowed, with no row of owned values built. A key that exists is
    /// written as an update when the cursor overwrites.
    fn insert_items(&mut self, sc: &mut SchemaCursor) -> Result<()> {
        let layout = Arc::clone(&sc.layout);
        // (A failure before it is put back costs the buffer, not correctness.)
        let mut index_key = std::mem::take(&mut sc.index_key);
        let (key, value) = (sc.key_bytes()?, sc.value_bytes()?);
        // Unpacked first, as a row of values would be: a raw cursor's malformed item fails here.
        let (mut key_items, mut value_items) = (Vec::new(), Vec::new());
        crate::pack::unpack(layout.table.key_format(), key, &mut key_items)?;
        crate::pack::unpack(&sc.value_format, value, &mut value_items)?;
        let first = sc.groups[0];
        self.set_key_with(first, raw_fill(key));
        self.set_value_with(first, raw_fill(value));
        match self.insert(first) {
            Ok(()) => {}
            Err(e) if e.kind() == Kind::DuplicateKey && sc.config.overwrite => {
                return self.write_values(sc, Write::Update, false);
            }
            Err(e) => return Err(e),
        }
        let out = (0..layout.indices.len()).try_for_each(|at| {
            layout.index_key_of_items(at, &key_items, &value_items, key, &mut index_key)?;
            let id = sc.indices[at];
            self.set_key_with(id, raw_fill(&index_key));
            self.set_value_with(id, raw_fill(&[]));
            self.insert(id)
        });
        sc.index_key = index_key;
        out
    }

    fn write_row(&mut self, sc: &mut SchemaCursor, write: Write, append: bool, row: &mut [Value]) -> Result<()> {
        let layout = Arc::clone(&sc.layout);
        let kc = layout.columns.key_count();
        let first = sc.groups[0];
        let mut buf = Vec::new();
        let mut old = None;
        match write {
            Write::Insert => {
                // A new key first, with no read before it: the common insert.
                self.fill_store(sc, 0, first, row, &mut buf, append)?;
                match self.insert(first) {
                    Ok(()) if append => {
                        let key = self.cursors.get(first).key_bytes()?.to_vec();
                        place(row, 0..kc, unpack_values(layout.table.key_format(), &key)?);
                        sc.key.set_app(&key);
                    }
                    Ok(()) => {}
                    Err(e) if e.kind() == Kind::DuplicateKey && sc.config.overwrite => {
                        old = self.fetch_row(sc, row)?;
                        self.upsert_first(sc, row, &mut buf)?;
                    }
                    Err(e) => return Err(e),
                }
            }
            Write::Update => {
                old = self.fetch_row(sc, row)?;
                if old.is_none() && !sc.config.overwrite {
                    return Err(Error::quiet(Kind::NotFound));
                }
                self.upsert_first(sc, row, &mut buf)?;
            }
            Write::Remove => {
                old = self.fetch_row(sc, row)?;
                self.set_key_with(first, raw_fill(sc.key_bytes()?));
                self.remove(first)?;
            }
        }
        for at in 1..layout.groups.len() {
            let id = sc.groups[at];
            if write == Write::Remove {
                self.set_key_with(id, raw_fill(sc.key_bytes()?));
                match self.remove(id) {
                    Err(e) if e.kind() == Kind::NotFound => {}
                    other => other?,
                }
            } else {
                self.fill_store(sc, at, id, row, &mut buf, false)?;
                self.insert(id)?;
            }
        }
        let (mut old_key, mut new_key) = (Vec::new(), Vec::new());
        let pk = if layout.indices.is_empty() { Vec::new() } else { sc.key_bytes()?.to_vec() };
        for (at, index) in layout.indices.iter().enumerate() {
            let id = sc.indices[at];
            if index.immutable && old.is_some() && write != Write::Remove {
                continue;
            }
            if index.extract.is_some() {
                let new = (write != Write::Remove).then_some(&*row);
                self.write_extracted(sc, at, old.as_deref(), new, &pk)?;
                continue;
            }
            if let Some(old) = &old {
                layout.index_key(at, old, &pk, &mut old_key)?;
            }
            if write != Write::Remove {
                layout.index_key(at, row, &pk, &mut new_key)?;
            }
            let same = old.is_some() && write != Write::Remove && old_key == new_key;
            if old.is_some() && !same {
                self.set_key_with(id, raw_fill(&old_key));
                match self.remove(id) {
                    Err(e) if e.kind() == Kind::NotFound => {}
                    other => other?,
                }
            }
            if write != Write::Remove && !same {
                self.set_key_with(id, raw_fill(&new_key));
                self.set_value_with(id, raw_fill(&[]));
                self.insert(id)?;
            }
        }
        Ok(())
    }

    /// Keeps index `at`, whose keys a custom extractor makes, in step with a write of the row
    /// of primary key `pk`: the entries of the old row (if any) that the new row (if any) does
    /// not make are removed, and the new row's others inserted.
    fn write_extracted(&mut self, sc: &SchemaCursor, at: usize, old: Option<&[Value]>, new: Option<&[Value]>, pk: &[u8]) -> Result<()> {
        let mut old_keys = Vec::new();
        let mut new_keys = Vec::new();
        if let Some(old) = old {
            self.extract_keys(sc, at, old, pk, &mut old_keys)?;
        }
        if let Some(new) = new {
            self.extract_keys(sc, at, new, pk, &mut new_keys)?;
        }
        let id = sc.indices[at];
        for key in old_keys.iter().filter(|k| !new_keys.contains(k)) {
            self.set_key_with(id, raw_fill(key));
            match self.remove(id) {
                Err(e) if e.kind() == Kind::NotFound => {}
                other => other?,
            }
        }
        for key in new_keys.iter().filter(|k| !old_keys.contains(k)) {
            self.set_key_with(id, raw_fill(key));
            self.set_value_with(id, raw_fill(&[]));
            self.insert(id)?;
        }
        Ok(())
    }

    /// The stored keys index `at`'s extractor makes of `row` (primary key `pk`): each key it
    /// returns followed by the primary key, the reference's layout.
    fn extract_keys(&self, sc: &SchemaCursor, at: usize, row: &[Value], pk: &[u8], out: &mut Vec<Vec<u8>>) -> Result<()> {
        let layout = &sc.layout;
        let Some(extract) = &layout.indices[at].extract else { return Ok(()) };
        let extractor = match sc.extractors.get(at) {
            Some(Some(Ok(extractor))) => extractor,
            Some(Some(Err(e))) => return Err(e.clone()),
            _ => return Err(Error::invalid("index extractor not resolved")),
        };
        let kc = layout.columns.key_count();
        let mut value = Vec::new();
        pack_values(layout.table.value_format(), row[kc..].iter(), &mut value)?;
        extractor.extract(self.caller, &extract.format, pk, &value, out)?;
        for key in out.iter_mut() {
            key.extend_from_slice(pk);
        }
        Ok(())
    }

    /// Sets value store `at`'s internal cursor to `row`'s key (unless appending) and its
    /// columns. The first store of a table without column groups takes the application's value
    /// as it is, when that holds every value column.
    fn fill_store(&mut self, sc: &SchemaCursor, at: usize, id: CursorId, row: &[Value], buf: &mut Vec<u8>, append: bool) -> Result<()> {
        if !append {
            self.set_key_with(id, raw_fill(sc.key_bytes()?));
        }
        if at == 0 && sc.direct {
            self.set_value_with(id, raw_fill(sc.value_bytes()?));
            return Ok(());
        }
        let group = &sc.layout.groups[at];
        buf.clear();
        pack_values(group.table.value_format(), group.columns.iter().map(|&p| &row[p]), buf)?;
        self.set_value_with(id, raw_fill(buf));
        Ok(())
    }

    /// Writes the first value store's record whether or not it exists.
    fn upsert_first(&mut self, sc: &SchemaCursor, row: &[Value], buf: &mut Vec<u8>) -> Result<()> {
        let Some(upsert) = sc.upsert else { unreachable!("table cursors that write have one") };
        self.fill_store(sc, 0, upsert, row, buf, false)?;
        self.insert(upsert)
    }

    /// The row of `row`'s key as stored (the key columns taken from `row`), None when there is
    /// none.
    fn fetch_row(&mut self, sc: &SchemaCursor, row: &[Value]) -> Result<Option<Vec<Value>>> {
        let kc = sc.layout.columns.key_count();
        let mut old = sc.layout.columns.empty_row();
        old[..kc].clone_from_slice(&row[..kc]);
        let pk = sc.key_bytes()?.to_vec();
        Ok(self.fetch_groups(sc, &pk, &mut old, 0)?.then_some(old))
    }

    /// Fills the new index `name` of `table` from the table's rows, in one transaction.
    pub(super) fn fill_index(&mut self, conn: &Connection, table: &Arc<Table>, name: &str) -> Result<()> {
        let uri = format!("table:{}", table.name());
        let Some(mut sc) = self.open_schema_cursor(conn, &uri, None)? else { return Ok(()) };
        let layout = Arc::clone(&sc.layout);
        let Some(at) = layout.index(name) else {
            self.close_schema_cursor(sc);
            return Ok(());
        };
        let own = !self.txn.is_running();
        let out = (|| {
            if own {
                self.txn.begin(None, Default::default())?;
            }
            let mut key = Vec::new();
            let kc = layout.columns.key_count();
            loop {
                match self.next(sc.scan) {
                    Ok(()) => {}
                    Err(e) if e.kind() == Kind::NotFound => break,
                    Err(e) => return Err(e),
                }
                let pk = self.cursors.get(sc.scan).key_bytes()?.to_vec();
                let mut row = layout.columns.empty_row();
                place(&mut row, 0..kc, unpack_values(layout.table.key_format(), &pk)?);
                self.fetch_groups(&sc, &pk, &mut row, 0)?;
                let id = sc.indices[at];
                if layout.indices[at].extract.is_some() {
                    self.write_extracted(&sc, at, None, Some(&row), &pk)?;
                    continue;
                }
                layout.index_key(at, &row, &pk, &mut key)?;
                self.set_key_with(id, raw_fill(&key));
                self.set_value_with(id, raw_fill(&[]));
                self.insert(id)?;
            }
            Ok(())
        })();
        if own && self.txn.is_running() {
            let end = if out.is_ok() { self.txn.commit() } else { self.txn.rollback() };
            self.copy_epoch += 1;
            if out.is_ok() {
                end?;
            }
        }
        self.schema_reset(&mut sc);
        self.close_schema_cursor(sc);
        out
    }
}

/// Writes `values` into `row` at `positions`.
fn place(row: &mut [Value], positions: impl Iterator<Item = usize>, values: Vec<Value>) {
    for (p, v) in positions.zip(values) {
        row[p] = v;
    }
}
