//! Block compression: the compressors the application registers (`add_compressor`), and the
//! per-file codec that compresses blocks on write and restores them on read.
//!
//! # Stored form (see `block.rs`)
//! A compressed block has the top bit of its length word set ([`COMPRESSED`]); its payload is
//! `raw_len u32` (the image's length before compression), the image's first [`SKIP`] bytes as
//! they are (a page's kind and entry count, readable without the compressor, as the
//! reference leaves its page header uncompressed), then the compressor's output for the rest
//! of the image. The block checksum covers the stored bytes.
//!
//! As the reference: a block that fits one allocation unit uncompressed is written as it is
//! ("too small"), and so is one whose compressed form would not take fewer units, or that the
//! compressor declined (`compression_failed`).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use crate::error::{Error, Kind, Result};

/// The length-word bit that marks a compressed block (lengths stay below 2^31).
pub const COMPRESSED: u32 = 1 << 31;
/// Image bytes kept uncompressed at the start of a compressed payload: a page's kind and count.
pub const SKIP: usize = 5;
/// Bytes of a compressed payload before the compressor's output: `raw_len u32` and the skipped
/// bytes.
pub const PREFIX: usize = 4 + SKIP;

/// A block compressor as the engine calls it (the C layer wraps the application's
/// `WT_COMPRESSOR`).
pub trait Compressor: Send + Sync {
    /// Compresses `src` into `dst` (cleared first); `Ok(false)` when the compressor declined
    /// (the block is then stored uncompressed). An error fails the write.
    fn compress(&self, src: &[u8], dst: &mut Vec<u8>) -> Result<bool>;

    /// Restores into `dst` (exactly the original length) what `compress` wrote from `src`;
    /// returns the bytes written.
    fn decompress(&self, src: &[u8], dst: &mut [u8]) -> Result<usize>;
}

/// The connection's registered compressors by name (the first registration of a name is the
/// one found, as in the reference).
#[derive(Default)]
pub struct Compressors {
    by_name: Mutex<HashMap<String, Arc<dyn Compressor>>>,
}

impl Compressors {
    /// Registers `compressor` as `name` unless the name is taken.
    pub fn add(&self, name: &str, compressor: Arc<dyn Compressor>) {
        self.by_name.lock().entry(name.to_string()).or_insert(compressor);
    }

    /// Whether `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.by_name.lock().contains_key(name)
    }

    /// The compressor registered as `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Compressor>> {
        self.by_name.lock().get(name).cloned()
    }

    /// Forgets every compressor (the connection is closing: they are terminated).
    pub fn clear(&self) {
        self.by_name.lock().clear();
    }
}

/// What a block write or read does about compression.
pub enum Encoded {
    /// Stored as given.
    Plain,
    /// Stored as this compressed payload.
    Compressed(Vec<u8>),
}

/// Counters of one file's compression (the reference's per-table "compression" statistics).
#[derive(Debug, Default)]
pub struct CompressStats {
    /// Blocks written compressed.
    pub written: std::sync::atomic::AtomicU64,
    /// Blocks the compressor declined or that would not have saved an allocation unit.
    pub failed: std::sync::atomic::AtomicU64,
    /// Blocks too small to compress (one allocation unit).
    pub too_small: std::sync::atomic::AtomicU64,
}

/// One file's compressor: named when the table was created, found among the registered ones
/// at first use (a database reopens before the application registers its compressors).
pub struct Codec {
    name: String,
    registry: Option<Arc<Compressors>>,
    resolved: OnceLock<Arc<dyn Compressor>>,
    /// Compression counters.
    pub stats: CompressStats,
}

impl Default for Codec {
    fn default() -> Self {
        Codec::none()
    }
}

impl Codec {
    /// No compression.
    pub fn none() -> Codec {
        Codec { name: String::new(), registry: None, resolved: OnceLock::new(), stats: CompressStats::default() }
    }

    /// The compressor `name` (empty or "none": no compression) of `registry`.
    pub fn named(name: &str, registry: &Arc<Compressors>) -> Codec {
        if name.is_empty() || name == "none" {
            return Codec::none();
        }
        Codec { name: name.to_string(), registry: Some(Arc::clone(registry)), ..Codec::none() }
    }

    /// A codec with `compressor` already resolved (tests).
    #[cfg(test)]
    pub fn with(name: &str, compressor: Arc<dyn Compressor>) -> Codec {
        let codec = Codec { name: name.to_string(), ..Codec::none() };
        let _ = codec.resolved.set(compressor);
        codec
    }

    /// The compressor's name ("" for none).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The compressor, `None` without one; an unregistered one is the reference's `EINVAL`
    /// "unknown compressor 'NAME'".
    pub fn resolve(&self) -> Result<Option<&Arc<dyn Compressor>>> {
        if let Some(found) = self.resolved.get() {
            return Ok(Some(found));
        }
        let Some(registry) = &self.registry else { return Ok(None) };
        match registry.get(&self.name) {
            Some(found) => Ok(Some(self.resolved.get_or_init(|| found))),
            None => Err(Error::invalid(format!("unknown compressor '{}'", self.name))),
        }
    }

    /// The stored form of a block payload of `raw` bytes: compressed when a compressor is
    /// configured and compression saves at least one allocation unit of `unit` bytes
    /// (`header` bytes precede the payload in a block). A compressor that is not registered
    /// (a table written before the application registered it again) stores blocks as they
    /// are; a compressor error fails the write with its code.
    pub fn encode(&self, raw: &[u8], header: usize, unit: u64) -> Result<Encoded> {
        use std::sync::atomic::Ordering::Relaxed;
        if self.name.is_empty() {
            return Ok(Encoded::Plain);
        }
        let Ok(Some(compressor)) = self.resolve() else { return Ok(Encoded::Plain) };
        let units = |bytes: usize| (bytes as u64).div_ceil(unit);
        if units(header + raw.len()) <= 1 || raw.len() <= SKIP {
            self.stats.too_small.fetch_add(1, Relaxed);
            return Ok(Encoded::Plain);
        }
        let raw_len = u32::try_from(raw.len()).map_err(|_| Error::invalid("block too large to compress"))?;
        let mut out = Vec::new();
        if !compressor.compress(&raw[SKIP..], &mut out)? {
            self.stats.failed.fetch_add(1, Relaxed);
            return Ok(Encoded::Plain);
        }
        if units(header + PREFIX + out.len()) >= units(header + raw.len()) {
            self.stats.failed.fetch_add(1, Relaxed);
            return Ok(Encoded::Plain);
        }
        let mut stored = Vec::with_capacity(PREFIX + out.len());
        stored.extend_from_slice(&raw_len.to_le_bytes());
        stored.extend_from_slice(&raw[..SKIP]);
        stored.extend_from_slice(&out);
        self.stats.written.fetch_add(1, Relaxed);
        Ok(Encoded::Compressed(stored))
    }

    /// Restores a compressed payload `stored` into `out` after its first `keep` bytes (the
    /// block header, kept so the image starts where an uncompressed one would). Errors are
    /// `WT_ERROR` naming `file` and `offset`.
    pub fn decode(&self, stored: &[u8], out: &mut Vec<u8>, keep: usize, max: u64, file: &str, offset: u64) -> Result<()> {
        let fail = |what: String| Error::new(Kind::Generic, format!("{file}: offset {offset}: {what}"));
        let compressor = match self.resolve() {
            Ok(Some(c)) => c,
            Ok(None) => return Err(fail("compressed block for which no compressor is configured".into())),
            Err(e) => return Err(fail(format!("compressed block: {}", e.messages().next().unwrap_or("unknown compressor")))),
        };
        if stored.len() < PREFIX {
            return Err(fail("compressed block shorter than its header".into()));
        }
        let raw_len = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]) as usize;
        if raw_len < SKIP || raw_len as u64 > max {
            return Err(fail(format!("compressed block of impossible length {raw_len}")));
        }
        out.truncate(keep);
        out.extend_from_slice(&stored[4..PREFIX]);
        out.resize(keep + raw_len, 0);
        let want = raw_len - SKIP;
        match compressor.decompress(&stored[PREFIX..], &mut out[keep + SKIP..]) {
            Ok(n) if n == want => {}
            Ok(n) => return Err(fail(format!("block decompression failed: {n} bytes restored, {want} expected"))),
            Err(e) => {
                let why = e.messages().next().map_or_else(|| crate::error::strerror(e.code()).into_owned(), str::to_string);
                return Err(fail(format!("block decompression failed: {why}")));
            }
        }
        Ok(())
    }
}
