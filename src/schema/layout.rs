//! Where a table's columns live: the stores of its values (the table itself, or one table per
//! column group) and its indices, each an ordinary table in the registry named
//! `colgroup:T:NAME` / `index:T:NAME` (names no `table:` URI can create: `create` refuses a
//! second `:` after the table name).

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::pack::{self, Arg, Format};

use super::columns::{Columns, Value};
use super::{Registry, Table};

/// The table a column group or index store belongs to (`T` of `index:T:NAME`).
pub fn parent_table(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("index:").or_else(|| name.strip_prefix("colgroup:"))?;
    rest.rsplit_once(':').map(|(table, _)| table)
}

/// The schema settings a table spec keeps (`TableSpec::schema`), one `key=value` a line.
pub fn schema_setting<'a>(schema: &'a str, key: &str) -> Option<&'a str> {
    schema.lines().find_map(|line| match line.split_once('=') {
        Some((k, v)) if k == key => Some(v),
        None if line == key => Some(""),
        _ => None,
    })
}

/// The column groups a table declared (`colgroups=(...)` at create).
pub fn declared_groups(table: &Table) -> Vec<String> {
    schema_setting(&table.spec().schema, "colgroups")
        .map(|list| super::columns::split_list(list).into_iter().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Whether a table's cursors must be schema cursors: it has (or declared) column groups or
/// indices.
pub fn is_composite(table: &Table) -> bool {
    table.is_managed() || !table.spec().schema.is_empty()
}

/// The most columns an index checked against its rows may have
/// ([`Layout::makes_entry`] picks their items into an array).
pub const PICKED: usize = 4;

/// The items at chosen row positions (`columns`), picked as a row's key and then its value
/// unpack; `at` is the row position of the next item (set before each part).
struct Pick<'a, 'c> {
    columns: &'c [usize],
    at: usize,
    items: [Arg<'a>; PICKED],
    found: usize,
}

impl<'a> pack::ArgSink<'a> for Pick<'a, '_> {
    fn push(&mut self, arg: Arg<'a>) {
        for (i, &p) in self.columns.iter().enumerate() {
            if p == self.at {
                self.items[i] = arg;
                self.found += 1;
            }
        }
        self.at += 1;
    }

    /// Each part starts where `at` says: nothing to forget.
    fn clear(&mut self) {}
}

/// One store of a table's values: the columns it holds (row positions) and their format.
pub struct Group {
    /// The table the values are stored in.
    pub table: Arc<Table>,
    /// Row positions of its value columns.
    pub columns: Vec<usize>,
}

/// One index of a table.
pub struct IndexDef {
    /// `NAME` of `index:T:NAME`.
    pub name: String,
    /// The table that stores it: key = the index columns then the table's key columns.
    pub table: Arc<Table>,
    /// Row positions of the index columns.
    pub columns: Vec<usize>,
    /// The index columns' format (an index cursor's key).
    pub key_format: Format,
    /// The index columns with an empty item after them: packs a search key as the prefix of
    /// the stored keys (a last `u` column gets its length, as inside the longer key).
    pub prefix_format: Format,
    /// `immutable`: updates of a row leave its entry alone.
    pub immutable: bool,
    /// How many fields the index key has (where the primary key starts in a stored key).
    pub key_fields: usize,
    /// A custom extractor's settings (`extractor=`), None for an index of columns.
    pub extract: Option<ExtractDef>,
    /// How an entry is checked against its row ([`Layout::makes_entry`]); `None` where it
    /// cannot be.
    row_check: Option<RowCheck>,
}

/// What [`Layout::makes_entry`] unpacks of a row for one index.
struct RowCheck {
    /// The stored value's leading columns, through the last the index has (`None`: it has
    /// none); a last `u` reads as `U`, with the length it has inside the longer value.
    value_head: Option<Format>,
    /// Whether the index has key columns.
    reads_key: bool,
    /// The index columns are the value's leading columns, in order: an entry's columns are
    /// then the row's value bytes as they start (every field's encoding tells where it ends,
    /// so a value that starts with them holds exactly them).
    leading: bool,
}

impl RowCheck {
    /// The check of an index of `index` columns (row positions) with key format `key_format`,
    /// when the table's one store holds its value columns in order (`one_store`).
    fn new(columns: &Columns, index: &[usize], key_format: &Format, one_store: bool) -> Result<Option<RowCheck>> {
        if !one_store || index.len() > PICKED || key_format.as_str().ends_with(['u', 'U']) {
            return Ok(None);
        }
        let kc = columns.key_count();
        let value_head = match index.iter().copied().filter(|&p| p >= kc).max() {
            Some(last) => {
                let mut head = columns.format_of(&(kc..=last).collect::<Vec<_>>())?.as_str().to_string();
                if last + 1 < columns.len() && head.ends_with('u') {
                    head.pop();
                    head.push('U');
                }
                Some(Format::parse(&head)?)
            }
            None => None,
        };
        let leading = index.iter().copied().eq(kc..kc + index.len());
        Ok(Some(RowCheck { value_head, reads_key: index.iter().any(|&p| p < kc), leading }))
    }
}

/// The settings of an index whose keys a custom extractor makes.
pub struct ExtractDef {
    /// The registered extractor's name.
    pub name: String,
    /// The index key format with a padding byte after it (`Hx` for `H`): what the extractor's
    /// result cursor packs, as in the reference.
    pub format: Format,
    /// The index's `app_metadata`, for the extractor's `customize`.
    pub app_metadata: String,
}

/// A table's columns, stores and indices.
pub struct Layout {
    /// The table.
    pub table: Arc<Table>,
    /// Its columns (key, then value).
    pub columns: Columns,
    /// The stores of its values: the table itself, or its column groups in declared order.
    pub groups: Vec<Group>,
    /// Its indices.
    pub indices: Vec<IndexDef>,
}

impl Layout {
    /// Reads `table`'s layout from the registry ("cannot be used until all column groups are
    /// created" when a declared group is missing).
    pub fn load(registry: &Registry, table: &Arc<Table>) -> Result<Layout> {
        let spec = table.spec();
        let columns = Columns::new(table.key_format(), table.value_format(), &spec.columns);
        let declared = declared_groups(table);
        let mut groups = Vec::with_capacity(declared.len().max(1));
        if declared.is_empty() {
            groups.push(Group { table: Arc::clone(table), columns: columns.value_columns() });
        }
        for name in &declared {
            let store = registry
                .get(&format!("colgroup:{}:{name}", spec.name))
                .filter(|t| !t.is_dropped())
                .ok_or_else(|| {
                    Error::invalid(format!("'table:{}' cannot be used until all column groups are created", spec.name))
                })?;
            let positions = columns.find(&store.spec().columns)?;
            groups.push(Group { table: store, columns: positions });
        }
        // (Padding would sit between the columns `format_of` joins, and shift the positions
        // an unpacked row's items take.)
        let one_store = groups.len() == 1
            && groups[0].columns.iter().copied().eq(columns.key_count()..columns.len())
            && ![table.key_format(), table.value_format()].iter().any(|f| f.as_str().contains('x'));
        let prefix = format!("index:{}:", spec.name);
        let mut stores: Vec<Arc<Table>> = registry
            .tables()
            .into_iter()
            .filter(|t| !t.is_dropped() && t.name().strip_prefix(&prefix).is_some_and(|n| !n.contains(':')))
            .collect();
        stores.sort_by_key(|t| (t.id(), t.name().to_string()));
        let mut indices = Vec::with_capacity(stores.len());
        for store in stores {
            let schema = &store.spec().schema;
            let (positions, key_format, extract) = match schema_setting(schema, "extractor") {
                Some(extractor) => {
                    // The key is what the extractor makes: no column of the table.
                    let format = schema_setting(schema, "index_key_format").unwrap_or_default();
                    let extract = ExtractDef {
                        name: extractor.to_string(),
                        format: Format::parse(&format!("{format}x"))?,
                        app_metadata: store.spec().app_metadata.clone(),
                    };
                    (Vec::new(), Format::parse(format)?, Some(extract))
                }
                None => {
                    let positions = columns.find(&store.spec().columns)?;
                    let key_format = columns.format_of(&positions)?;
                    (positions, key_format, None)
                }
            };
            // As the reference names it: a last `u` column is not last in the stored key, where
            // it carries its length, so the index cursor's key format says `U` (same encoding).
            let key_format = match key_format.as_str().strip_suffix('u') {
                Some(head) => Format::parse(&format!("{head}U"))?,
                None => key_format,
            };
            let prefix_format = Format::parse(&format!("{}u", key_format.as_str()))?;
            let immutable = schema_setting(schema, "immutable").is_some();
            let name = store.name()[prefix.len()..].to_string();
            let key_fields = key_format.cargs().len();
            let row_check = match extract {
                Some(_) => None,
                None => RowCheck::new(&columns, &positions, &key_format, one_store)?,
            };
            if row_check.is_some() {
                store.index().link_rows(groups[0].table.shared_index());
            }
            indices.push(IndexDef { name, table: store, columns: positions, key_format, prefix_format, immutable, key_fields, extract, row_check });
        }
        Ok(Layout { table: Arc::clone(table), columns, groups, indices })
    }

    /// The index named `name`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.indices.iter().position(|i| i.name == name)
    }

    /// The stored key of `row` in index `at`: its columns, then the table's key columns. `pk`
    /// is the row's primary key as the table packs it: packed last, the key columns are encoded
    /// as on their own, so it is appended as it is (and the index columns packed as a prefix).
    pub fn index_key(&self, at: usize, row: &[Value], pk: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let index = &self.indices[at];
        out.clear();
        let empty = Value::Bytes(Vec::new());
        if index.key_format.as_str().ends_with(['u', 'U']) {
            let values = index.columns.iter().map(|&p| &row[p]).chain(std::iter::once(&empty));
            super::columns::pack_values(&index.prefix_format, values, out)?;
        } else {
            super::columns::pack_values(&index.key_format, index.columns.iter().map(|&p| &row[p]), out)?;
        }
        out.extend_from_slice(pk);
        Ok(())
    }

    /// Whether every index is of columns with a key that does not end in an item, so that
    /// [`index_key_of_items`](Self::index_key_of_items) makes its keys.
    pub fn indices_of_items(&self) -> bool {
        self.indices.iter().all(|i| i.extract.is_none() && !i.key_format.as_str().ends_with(['u', 'U']))
    }

    /// Whether index `at`'s entries can be checked against their rows by
    /// [`makes_entry`](Self::makes_entry): an index of at most [`PICKED`] columns whose key
    /// does not end in an item, of a table whose one store holds the value columns in order.
    pub fn checks_by_row(&self, at: usize) -> bool {
        self.indices[at].row_check.is_some()
    }

    /// Whether `entry`, a stored key of index `at` whose first `n` bytes are its columns (one
    /// [`checks_by_row`](Self::checks_by_row) allows), is the entry the row makes whose primary
    /// key is the rest of `entry` and whose store holds `value`. `scratch` takes the columns as
    /// packed; a row that does not unpack makes no entry.
    pub fn makes_entry(&self, at: usize, entry: &[u8], n: usize, value: &[u8], scratch: &mut Vec<u8>) -> bool {
        let index = &self.indices[at];
        let Some(check) = &index.row_check else { return false };
        if check.leading {
            return value.starts_with(&entry[..n]);
        }
        let mut pick = Pick { columns: &index.columns, at: 0, items: [Arg::Uint(0); PICKED], found: 0 };
        if check.reads_key && pack::unpack(self.table.key_format(), &entry[n..], &mut pick).is_err() {
            return false;
        }
        if let Some(head) = &check.value_head {
            pick.at = self.columns.key_count();
            if pack::unpack(head, value, &mut pick).is_err() {
                return false;
            }
        }
        if pick.found != index.columns.len() {
            return false;
        }
        scratch.clear();
        pack::pack(&index.key_format, &pick.items[..pick.found], scratch).is_ok() && scratch[..] == entry[..n]
    }

    /// [`index_key`](Self::index_key) from the row's items as the table's formats unpack them
    /// (`key` then `value`, one per column), with no row of owned values built.
    pub fn index_key_of_items(&self, at: usize, key: &[Arg<'_>], value: &[Arg<'_>], pk: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let index = &self.indices[at];
        debug_assert!(index.extract.is_none() && !index.key_format.as_str().ends_with(['u', 'U']));
        let item = |p: usize| if p < key.len() { key[p] } else { value[p - key.len()] };
        let args: Vec<Arg<'_>> = index.columns.iter().map(|&p| item(p)).collect();
        out.clear();
        pack::pack(&index.key_format, &args, out)?;
        out.extend_from_slice(pk);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::pack::{pack, Arg, Format};

    #[test]
    fn a_key_packed_last_is_encoded_as_on_its_own() {
        // What `Layout::index_key` relies on, for each kind of key column.
        for (cols, key, args) in [
            ("S", "S", [Arg::Bytes(b"ab"), Arg::Bytes(b"cd")]),
            ("Q", "r", [Arg::Uint(7), Arg::Uint(300)]),
            ("5s", "u", [Arg::Bytes(b"AU"), Arg::Bytes(b"xyz")]),
            ("i", "q", [Arg::Int(-5), Arg::Int(-70000)]),
        ] {
            let mut whole = Vec::new();
            pack(&Format::parse(&format!("{cols}{key}")).unwrap(), &args, &mut whole).unwrap();
            let (mut head, mut tail) = (Vec::new(), Vec::new());
            pack(&Format::parse(cols).unwrap(), &args[..1], &mut head).unwrap();
            pack(&Format::parse(key).unwrap(), &args[1..], &mut tail).unwrap();
            head.extend_from_slice(&tail);
            assert_eq!(whole, head, "{cols}{key}");
        }
    }
}
