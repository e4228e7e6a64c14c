//! Compaction's part in the tree (`WT_SESSION::compact`): rewriting every page of the newest
//! version into the lowest free space. First-fit allocation places each new block in the
//! lowest hole that fits, so once the next checkpoint frees the old blocks the end of the file
//! is free and [`BlockFile::trim_tail`](super::block::BlockFile::trim_tail) gives it back.
//! (`Durable::compact` runs the checkpoints around this.)

use super::tree::{Change, Tree, TS_NEWEST};
use crate::error::Result;
use crate::store::Seek;

/// Entries rewritten per batch (each batch is one copy-on-write version).
const CHUNK: usize = 16 * 1024;
/// Bytes of keys and values read per batch at most.
const CHUNK_BYTES: usize = 8 << 20;

impl Tree {
    /// Rewrites every page of the newest version (each entry is written again with the value
    /// it has: the batches change no content, only where the pages lie), as versions at the
    /// timestamp of the last merge, then lets go of the old pages that no snapshot at or after
    /// `oldest` can read. Merges wait meanwhile; readers see the same rows throughout. Returns
    /// the entries rewritten.
    pub fn rewrite(&self, oldest: u64) -> Result<u64> {
        let last = self.merge_lock();
        // The newest version holds the state at the last merge: rewritten at that timestamp,
        // every reader at or after it sees the same rows as before.
        let ts = *last;
        let mut from: Option<Vec<u8>> = None;
        let mut rewritten = 0;
        let mut chunk: Vec<Change> = Vec::new();
        loop {
            chunk.clear();
            let mut bytes = 0;
            let mut done = false;
            while chunk.len() < CHUNK && bytes < CHUNK_BYTES {
                let guard = scc::Guard::new();
                let next = match &from {
                    None => self.seek_in(None, Seek::Ge, TS_NEWEST, &guard)?,
                    Some(k) => self.seek_in(Some(k), Seek::Gt, TS_NEWEST, &guard)?,
                }
                .map(|(k, v)| (k.into_owned(), v.into_owned()));
                let Some((k, v)) = next else {
                    done = true;
                    break;
                };
                bytes += k.len() + v.len();
                from = Some(k.clone());
                chunk.push((k, Some(v)));
            }
            if !chunk.is_empty() {
                self.apply(&chunk, ts)?;
                rewritten += chunk.len() as u64;
            }
            if done {
                break;
            }
        }
        self.release_before(oldest.min(ts));
        Ok(rewritten)
    }
}
