//! The paged store's on-disk trees (issue "A real on-disk engine"): each table a copy-on-write
//! B+tree in its own block file, read through a page cache whose resident pages readers use
//! without a lock.
//!
//! - `extents.rs`: free-space lists (first fit, coalescing)
//! - `block.rs`: the block file: checksummed blocks, allocation, free space across checkpoints
//! - `compress.rs`: block compression by the application's compressors
//! - `page.rs`: page images (leaf, internal, overflow items) and their parsed form
//! - `pool.rs`: block buffers recycled from evicted pages to the next misses
//! - `reclaim.rs`: evicted pages awaiting reclamation, and readers waiting when they pile up
//! - `striped.rs`: counters the page-miss path bumps, one cache line per thread
//! - `tree.rs`: the tree: reads through the page cache, batches of changes written copy-on-write,
//!   checkpoint records
//! - `verify.rs`: checking a tree's file block by block (`WT_SESSION::verify`), the tree's shape
//! - `compact.rs`: rewriting a tree into the lowest free space (`WT_SESSION::compact`)

pub mod block;
pub mod cache;
pub mod compact;
pub mod compress;
pub mod extents;
pub mod page;
pub mod pool;
pub mod reclaim;
pub mod striped;
pub mod tree;
pub mod verify;

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod verify_tests;
#[cfg(test)]
pub(crate) mod compress_tests;
#[cfg(test)]
mod collate_tests;
