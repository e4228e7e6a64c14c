//! The paged store's on-disk trees (issue "A real on-disk engine"): each table a copy-on-write
//! B+tree in its own block file, read through a page cache whose resident pages readers use
//! without a lock.
//!
//! - `extents.rs`: free-space lists (first fit, coalescing)
//! - `block.rs`: the block file: checksummed blocks, allocation, free space across checkpoints
//! - `page.rs`: page images (leaf, internal, overflow items) and their parsed form
//! - `tree.rs`: the tree: reads through the page cache, batches of changes written copy-on-write,
//!   checkpoint records

pub mod block;
pub mod cache;
pub mod extents;
pub mod page;
pub mod tree;

#[cfg(test)]
pub(crate) mod tests;
