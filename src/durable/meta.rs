//! `unlatched.meta`: which tables exist (durable id, name, formats, create-time settings) and
//! the next table id. One frame, replaced whole (`Disk::replace`) by every `create` and `drop`.
//!
//! Tables carry a durable id that is never reused, so journal records and checkpoint sections
//! of a dropped table are recognised (and skipped) even if a table of the same name exists now.

use std::ops::RangeInclusive;

use crate::btree::tree::Limits;
use crate::error::{Error, Result};
use crate::schema::TableSpec;

/// Page sizes `create` accepts (`leaf_page_max`, `internal_page_max`: 512 B to 512 MB).
const PAGE_MIN: usize = 512;
const PAGE_MAX: usize = 512 << 20;

use super::disk::{Disk, META_FILE};
use super::frame::{corrupt, write_frame, FrameReader, Next, Put, Take};

/// First field of every file's header frame, one per kind of file.
pub const META_MAGIC: u64 = u64::from_le_bytes(*b"ULmeta\0\0");
/// The layout version of `unlatched.meta` written. Each kind of file has its own: see
/// `checkpoint::CKPT_VERSION` and `journal::LOG_VERSION`. Version 1 (read too) has no page
/// sizes: its tables get the defaults; version 2 (read too) has no schema settings; version 3
/// (read too) has no `log=(enabled)` flag; version 4 (read too) has no block compressor; version
/// 5 (read too) has no collator.
pub const META_VERSION: u32 = 6;

/// The table list.
#[derive(Debug, Default)]
pub struct Meta {
    /// The id the next table gets.
    pub next_id: u64,
    /// The tables.
    pub tables: Vec<TableSpec>,
}

/// Checks the magic and version at the start of a header payload of `file`; returns the
/// version, one of `versions` (a newer one is `ENOTSUP`).
pub fn check_header(t: &mut Take<'_>, file: &str, magic: u64, versions: RangeInclusive<u32>) -> Result<u32> {
    if t.u64()? != magic {
        return Err(corrupt(file, "not a file of this kind (bad magic)"));
    }
    let version = t.u32()?;
    if !versions.contains(&version) {
        let reads = if versions.start() == versions.end() {
            versions.start().to_string()
        } else {
            format!("{} to {}", versions.start(), versions.end())
        };
        return Err(Error::unsupported(format!("{file}: layout version {version} (this build reads {reads})")));
    }
    Ok(version)
}

impl Meta {
    /// The file's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut p = Put::default();
        p.u64(META_MAGIC).u32(META_VERSION).u64(self.next_id).u32(self.tables.len() as u32);
        for t in &self.tables {
            p.u64(t.id).str(&t.name).str(&t.key_format).str(&t.value_format).u32(t.columns.len() as u32);
            for c in &t.columns {
                p.str(c);
            }
            p.str(&t.app_metadata);
            p.str(&t.schema);
            p.u32(t.pages.leaf_page_max as u32).u32(t.pages.internal_page_max as u32);
            p.u8(u8::from(t.logged));
            p.str(&t.block_compressor);
            p.str(&t.collator);
        }
        let mut out = Vec::new();
        write_frame(&mut out, &p.0);
        out
    }

    /// Parses the file's bytes; `file` names it in errors.
    pub fn decode(bytes: &[u8], file: &str) -> Result<Meta> {
        let mut r = FrameReader::new(bytes, bytes.len() as u64);
        let payload = match r.next_frame().map_err(|e| Error::io(file, &e))? {
            Next::Frame(p) => p,
            Next::End => return Err(corrupt(file, "empty file")),
            Next::Truncated { .. } => return Err(corrupt(file, "truncated")),
            Next::Mismatch => return Err(corrupt(file, "checksum mismatch")),
        };
        if r.good != bytes.len() as u64 {
            return Err(corrupt(file, "unexpected bytes after the table list"));
        }
        let mut t = Take::new(&payload, file);
        let version = check_header(&mut t, file, META_MAGIC, 1..=META_VERSION)?;
        let next_id = t.u64()?;
        let n = t.u32()?;
        let mut tables = Vec::new();
        for _ in 0..n {
            let id = t.u64()?;
            let name = t.str()?.to_string();
            let key_format = t.str()?.to_string();
            let value_format = t.str()?.to_string();
            let columns = (0..t.u32()?).map(|_| t.str().map(str::to_string)).collect::<Result<_>>()?;
            let app_metadata = t.str()?.to_string();
            // Version 3 added the schema settings (column groups, index options).
            let schema = if version >= 3 { t.str()?.to_string() } else { String::new() };
            let pages = if version >= 2 {
                let (leaf, internal) = (t.u32()? as usize, t.u32()? as usize);
                // The sizes create accepts: anything else is damage.
                if !(PAGE_MIN..=PAGE_MAX).contains(&leaf) || !(PAGE_MIN..=PAGE_MAX).contains(&internal) {
                    return Err(corrupt(file, "impossible page size"));
                }
                Limits { leaf_page_max: leaf, internal_page_max: internal }
            } else {
                Limits::default()
            };
            // Version 4 added `log=(enabled)`: older tables are logged.
            let logged = version < 4 || t.u8()? != 0;
            // Version 5 added `block_compressor`.
            let block_compressor = if version >= 5 { t.str()?.to_string() } else { String::new() };
            // Version 6 added `collator`.
            let collator = if version >= 6 { t.str()?.to_string() } else { String::new() };
            tables.push(TableSpec {
                id,
                name,
                key_format,
                value_format,
                columns,
                schema,
                app_metadata,
                logged,
                pages,
                block_compressor,
                collator,
            });
        }
        if !t.is_empty() {
            return Err(corrupt(file, "unexpected bytes after the table list"));
        }
        Ok(Meta { next_id, tables })
    }

    /// Reads the home's table list, `None` when the file does not exist.
    pub fn load(disk: &Disk) -> Result<Option<Meta>> {
        let file = disk.show(META_FILE);
        match disk.read_all(META_FILE) {
            Ok(bytes) => Meta::decode(&bytes, &file).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(Error::io(format!("{file}: read"), &e)),
        }
    }

    /// Replaces the home's table list with this one.
    pub fn store(&self, disk: &Disk) -> Result<()> {
        disk.replace(META_FILE, &self.encode())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Kind;

    fn spec(id: u64, name: &str) -> TableSpec {
        TableSpec {
            id,
            name: name.into(),
            key_format: "S".into(),
            value_format: "Su".into(),
            columns: vec!["k".into(), "a".into(), "b".into()],
            schema: "colgroups=(a)".into(),
            app_metadata: "x=1".into(),
            logged: false,
            pages: Limits { leaf_page_max: 16384, internal_page_max: 2048 },
            block_compressor: "rle".into(),
            collator: "nocase".into(),
        }
    }

    #[test]
    fn round_trip() {
        let meta = Meta { next_id: 9, tables: vec![spec(3, "a"), spec(8, "b")] };
        let back = Meta::decode(&meta.encode(), "m").unwrap();
        assert_eq!(back.next_id, 9);
        assert_eq!(format!("{:?}", back.tables), format!("{:?}", meta.tables));
    }

    #[test]
    fn every_damage_is_an_error_naming_the_file() {
        let bytes = Meta { next_id: 2, tables: vec![spec(1, "t")] }.encode();
        for cut in 0..bytes.len() {
            let e = Meta::decode(&bytes[..cut], "home/unlatched.meta").unwrap_err();
            assert_eq!(e.kind(), Kind::TrySalvage);
            assert!(e.messages().next().unwrap().starts_with("home/unlatched.meta: "));
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            let e = Meta::decode(&bad, "m").unwrap_err();
            assert_eq!(e.kind(), Kind::TrySalvage, "flip at {at}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(Meta::decode(&longer, "m").is_err());
    }
}
