//! Opening the read-only cursors of [`Listing`]: `log:`, `metadata:` (and `metadata:create`)
//! and checkpoint cursors (`open_cursor(table, checkpoint=NAME)`). What each lists, and how
//! it maps unlatched's journal and tables onto the reference's layouts, is here; the cursor
//! methods are [`Listing`]'s.

use std::collections::HashSet;

use crate::config::{self, Method};
use crate::conn::Connection;
use crate::cursor::versions;
use crate::cursor::listing::{log_key, log_value, Listing, Source, TableHold, LOG_KEY_FORMAT, LOG_VALUE_FORMAT};
use crate::durable::redo::{self, Op};
use crate::error::{Error, Kind, Result};
use crate::pack::{varint, Format};
use crate::schema::Table;

use super::{Session, DEFAULT_CHECKPOINT};

/// The reference's journal record types and operation types (`WT_LOGREC_*`, `WT_LOGOP_*`).
const LOGREC_COMMIT: u32 = 1;
const LOGREC_MESSAGE: u32 = 3;
const LOGOP_INVALID: u32 = 0;
const LOGOP_COL_PUT: u32 = 1;
const LOGOP_COL_REMOVE: u32 = 2;
const LOGOP_ROW_PUT: u32 = 4;
const LOGOP_ROW_REMOVE: u32 = 5;

/// Whether `open_cursor(uri, config)` opens a [`Listing`] rather than a table cursor: the cheap
/// test the open path makes before [`Session::open_listing`].
pub fn is_listing(uri: &str, config: Option<&str>) -> bool {
    uri.starts_with("log:")
        || uri.starts_with("metadata:")
        || config.is_some_and(|c| c.contains("checkpoint") || c.contains("dump_version"))
}

fn format(text: &str) -> Format {
    Format::parse(text).expect("a valid format")
}

impl Session {
    /// `WT_SESSION::open_cursor` of a `log:` or `metadata:` URI, or of a table with a
    /// `checkpoint=` name; `None` when the call is for an ordinary cursor after all (a
    /// configuration that merely mentions "checkpoint").
    pub fn open_listing(&mut self, conn: &Connection, uri: &str, config: Option<&str>) -> Result<Option<Listing>> {
        let cfg = config::validate(Method::OpenCursor, config, None)?;
        let raw = cfg.bool("raw");
        let formats = |key: &str, value: &str| {
            if raw { (format("u"), format("u")) } else { (format(key), format(value)) }
        };
        // The reference opens these for any name after the prefix.
        if uri.starts_with("log:") {
            let (k, v) = formats(LOG_KEY_FORMAT, LOG_VALUE_FORMAT);
            return Ok(Some(match conn.durable().map(|d| d.journal_records()).transpose()?.flatten() {
                Some(records) => {
                    // Record-number tables' writes are column operations with the record
                    // number as the key, as in the reference.
                    let recno: HashSet<u64> = conn.registry().tables().iter().filter(|t| t.is_recno()).map(|t| t.id()).collect();
                    Listing::new(Source::Log, k, v, log_rows(records, &recno)?)
                }
                None => Listing::failing(Source::Log, k, v, Error::unsupported("no log files found")),
            }
            .showing(LOG_KEY_FORMAT, LOG_VALUE_FORMAT)));
        }
        if uri.starts_with("metadata:") {
            let (k, v) = formats("S", "S");
            let rows = metadata_rows(conn, uri == "metadata:create");
            return Ok(Some(Listing::new(Source::Metadata, k, v, rows).showing("S", "S")));
        }
        if cfg.bool("debug.dump_version") {
            return self.open_versions(conn, uri).map(Some);
        }
        let name = match cfg.str("checkpoint") {
            "" => return Ok(None),
            name => name,
        };
        let table = match super::Uri::parse(uri)? {
            super::Uri::Table(table) => table,
            super::Uri::NotYet(uri) => return Err(Error::unsupported(format!("cursors on \"{uri}\" are not supported yet"))),
        };
        let (table, record) = self.table(conn, table)?;
        let rows = match conn.durable() {
            Some(d) if name == DEFAULT_CHECKPOINT => d.checkpoint_rows(&table)?,
            Some(d) => d.named_rows(name, &table)?,
            None => None,
        };
        let Some((checkpoint, rows)) = rows else { return Err(Error::quiet(Kind::NoEntry)) };
        let (key, value) = (table.key_format().clone(), table.value_format().clone());
        let (k, v) = if raw { (format("u"), format("u")) } else { (key.clone(), value.clone()) };
        let hold = TableHold::new(table, record)?;
        let listing = Listing::new(Source::Checkpoint, k, v, rows).showing(key.as_str(), value.as_str());
        Ok(Some(listing.holding(hold).from_checkpoint(checkpoint)))
    }
}

impl Session {
    /// A version cursor (`debug=(dump_version=true)`) on `table:NAME` or its file
    /// `file:NAME.wt` (`cursor::versions`).
    fn open_versions(&mut self, conn: &Connection, uri: &str) -> Result<Listing> {
        let name = match super::Uri::parse(uri)? {
            super::Uri::Table(name) => name,
            super::Uri::NotYet(uri) => match super::file_table(conn, uri)? {
                Some(name) => name,
                None => return Err(Error::unsupported(format!("version cursors on \"{uri}\" are not supported"))),
            },
        };
        let (table, record) = self.table(conn, name)?;
        let key = table.key_format().clone();
        let value = Format::parse(&format!("{}{}", versions::METADATA_FORMAT, table.value_format().as_str()))?;
        let hold = TableHold::new(table, record)?;
        let shown = (key.as_str().to_string(), value.as_str().to_string());
        let listing = if self.isolation() == crate::txn::Isolation::Snapshot {
            Listing::new(Source::Versions, key, value, Vec::new())
        } else {
            // The reference's check (at each search, of the session's isolation).
            let refused = Error::new(Kind::Rollback, "version cursor can only be called with snapshot isolation");
            Listing::failing(Source::Versions, key, value, refused)
        };
        Ok(listing.showing(&shown.0, &shown.1).holding(hold))
    }
}

/// The `log:` rows of the journal's records, as the reference lays them out: a commit record
/// is a row with counter 0 (no operation, the whole record as the value) and one row per
/// operation (counter 1, 2, ...: `WT_LOGOP_ROW_PUT` with the table's packed key and value,
/// `WT_LOGOP_ROW_REMOVE` with the key; for the record-number tables in `recno`,
/// `WT_LOGOP_COL_PUT` / `WT_LOGOP_COL_REMOVE` with the record number as 8 native-endian bytes),
/// its transaction numbered in journal order; a message
/// record (`log_printf`) is one row of type `WT_LOGREC_MESSAGE` whose value is the text and a
/// NUL.
fn log_rows(records: Vec<(u64, u64, Vec<u8>)>, recno: &HashSet<u64>) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
    let column_key = |key: &[u8]| -> Result<[u8; 8]> {
        let (n, _) = varint::decode_u64(key).map_err(|e| Error::invalid(e.to_string()))?;
        Ok(n.to_ne_bytes())
    };
    let mut rows = Vec::new();
    let mut txn = 0u64;
    for (no, at, record) in records {
        let (file, offset) = (u32::try_from(no).unwrap_or(u32::MAX), u32::try_from(at).unwrap_or(u32::MAX));
        let ops = redo::decode(&record, "journal")?;
        if let [Op::Message { text }] = ops.as_slice() {
            let mut value = text.to_vec();
            value.push(0);
            rows.push((log_key(file, offset, 0), log_value(0, LOGREC_MESSAGE, LOGOP_INVALID, 0, &[], &value)));
            continue;
        }
        txn += 1;
        rows.push((log_key(file, offset, 0), log_value(txn, LOGREC_COMMIT, LOGOP_INVALID, 0, &[], &record)));
        for (i, op) in ops.iter().enumerate() {
            let counter = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let value = match *op {
                Op::Put { table, key, value } if recno.contains(&table) => {
                    log_value(txn, LOGREC_COMMIT, LOGOP_COL_PUT, table as u32, &column_key(key)?, value)
                }
                Op::Remove { table, key } if recno.contains(&table) => {
                    log_value(txn, LOGREC_COMMIT, LOGOP_COL_REMOVE, table as u32, &column_key(key)?, &[])
                }
                Op::Put { table, key, value } => log_value(txn, LOGREC_COMMIT, LOGOP_ROW_PUT, table as u32, key, value),
                Op::Remove { table, key } => log_value(txn, LOGREC_COMMIT, LOGOP_ROW_REMOVE, table as u32, key, &[]),
                Op::Message { text } => log_value(txn, LOGREC_COMMIT, LOGOP_INVALID, 0, &[], text),
            };
            rows.push((log_key(file, offset, counter), value));
        }
    }
    Ok(rows)
}

/// The `metadata:` rows: per table its `table:`, `colgroup:` and `file:` entries with the
/// reference's keys (`create`: the configuration `create` would be given for each).
fn metadata_rows(conn: &Connection, create: bool) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut rows = Vec::new();
    let s = |text: String| {
        let mut v = text.into_bytes();
        v.push(0);
        v
    };
    for table in conn.registry().tables() {
        let name = table.name();
        let entries = if create { create_entries(&table) } else { metadata_entries(&table) };
        for (prefix, value) in entries {
            let key = if prefix == "file:" { format!("file:{name}.wt") } else { format!("{prefix}{name}") };
            rows.push((s(key), s(value)));
        }
    }
    rows
}

const ASSERT: &str = "assert=(commit_timestamp=none,durable_timestamp=none,read_timestamp=none,write_timestamp=off)";
const IMPORT: &str = "import=(compare_timestamp=oldest_timestamp,enabled=false,file_metadata=,metadata_file=,panic_corrupt=true,repair=false)";
const LSM: &str = "lsm=(auto_throttle=true,bloom=true,bloom_bit_count=16,bloom_config=,bloom_hash_count=8,bloom_oldest=false,chunk_count_limit=0,chunk_max=5GB,chunk_size=10MB,merge_custom=(prefix=,start_generation=0,suffix=),merge_max=15,merge_min=0)";
const TIERED: &str = "tiered_storage=(auth_token=,bucket=,bucket_prefix=,cache_directory=,local_retention=300,name=,object_target_size=0)";

/// A page size as the reference writes its defaults (`4KB`, `32KB`).
fn size(bytes: usize) -> String {
    match bytes {
        b if b % (1 << 20) == 0 => format!("{}MB", b >> 20),
        b if b % (1 << 10) == 0 => format!("{}KB", b >> 10),
        b => b.to_string(),
    }
}

/// The file entry's settings after `id=` and before the formats, and the rest.
fn file_config(table: &Table, id: Option<u64>, key: &str, value: &str) -> String {
    let spec = table.spec();
    let id = id.map(|id| format!("id={id},")).unwrap_or_default();
    let checkpoint = if id.is_empty() { "" } else { "checkpoint=,checkpoint_backup_info=,checkpoint_lsn=," };
    format!(
        "access_pattern_hint=none,allocation_size=4KB,app_metadata={am},{ASSERT},block_allocation=best,\
         block_compressor={bc},cache_resident=false,{checkpoint}checksum=on,collator={coll},columns=,dictionary=0,\
         encryption=(keyid=,name=),format=btree,huffman_key=,huffman_value=,{id}ignore_in_memory_cache_size=false,\
         internal_item_max=0,internal_key_max=0,internal_key_truncate=true,internal_page_max={ipm},\
         key_format={key},key_gap=10,leaf_item_max=0,leaf_key_max=0,leaf_page_max={lpm},leaf_value_max=0,\
         log=(enabled={logged}),memory_page_image_max=0,memory_page_max=5MB,os_cache_dirty_max=0,os_cache_max=0,\
         prefix_compression=false,prefix_compression_min=4,readonly=false,split_deepen_min_child=0,\
         split_deepen_per_child=0,split_pct=90,tiered_object=false,{TIERED},value_format={value},verbose=[],\
         version=(major=2,minor=1),write_timestamp_usage=none",
        am = spec.app_metadata,
        bc = spec.block_compressor,
        coll = spec.collator,
        logged = spec.logged,
        ipm = size(spec.pages.internal_page_max),
        lpm = size(spec.pages.leaf_page_max),
    )
}

fn columns(table: &Table) -> String {
    match table.spec().columns.as_slice() {
        [] => String::new(),
        cols => format!("({})", cols.join(",")),
    }
}

/// `metadata:` entries of a table, as the reference stores them.
fn metadata_entries(table: &Table) -> Vec<(&'static str, String)> {
    let spec = table.spec();
    let (k, v) = (&spec.key_format, &spec.value_format);
    vec![
        (
            "colgroup:",
            format!(
                "app_metadata=,{ASSERT},collator={coll},columns=,source=\"file:{}.wt\",type=file,verbose=[],write_timestamp_usage=none",
                spec.name,
                coll = spec.collator,
            ),
        ),
        ("file:", file_config(table, Some(spec.id), k, v)),
        (
            "table:",
            format!(
                "app_metadata={},{ASSERT},colgroups=,collator={coll},columns={},key_format={k},value_format={v},verbose=[],\
                 write_timestamp_usage=none",
                spec.app_metadata,
                columns(table),
                coll = spec.collator,
            ),
        ),
    ]
}

/// `metadata:create` entries of a table: the configuration that creates each object.
fn create_entries(table: &Table) -> Vec<(&'static str, String)> {
    let spec = table.spec();
    let (k, v) = (&spec.key_format, &spec.value_format);
    let source = format!("\"file:{}.wt\"", spec.name);
    let create = |key: &str, value: &str, columns: &str, source: &str, colgroup: bool| {
        format!(
            "access_pattern_hint=none,allocation_size=4KB,app_metadata={am},{ASSERT},block_allocation=best,\
             block_compressor={bc},cache_resident=false,checksum=on,colgroups=,collator={coll},columns={columns},dictionary=0,\
             encryption=(keyid=,name=),exclusive=false,extractor=,format=btree,huffman_key=,huffman_value=,\
             ignore_in_memory_cache_size=false,immutable=false,{IMPORT},internal_item_max=0,internal_key_max=0,\
             internal_key_truncate=true,internal_page_max={ipm},key_format={key},key_gap=10,leaf_item_max=0,\
             leaf_key_max=0,leaf_page_max={lpm},leaf_value_max=0,log=(enabled={logged}),{LSM},memory_page_image_max=0,\
             memory_page_max=5MB,os_cache_dirty_max=0,os_cache_max=0,prefix_compression=false,\
             prefix_compression_min=4,source={source},split_deepen_min_child=0,split_deepen_per_child=0,\
             split_pct=90,{tiered},type=file,value_format={value},verbose=[],write_timestamp_usage=none",
            am = spec.app_metadata,
            bc = spec.block_compressor,
            coll = spec.collator,
            logged = spec.logged,
            // The reference's column group entry alone names the tiered `shared` flag.
            tiered = if colgroup {
                format!("{},shared=false)", &TIERED[..TIERED.len() - 1])
            } else {
                TIERED.to_string()
            },
            ipm = size(spec.pages.internal_page_max),
            lpm = size(spec.pages.leaf_page_max),
        )
    };
    vec![
        ("colgroup:", create("u", "u", "", &source, true)),
        ("file:", create(k, v, "", "", false)),
        ("table:", create(k, v, &columns(table), &source, false)),
    ]
}
