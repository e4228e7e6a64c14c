//! Recycled block buffers for page images.
//!
//! A page miss allocates its image (most often 32 KB) on the thread that missed, and eviction
//! frees it later, on whichever thread reclaims the epoch. glibc gives each thread an arena of
//! its own and returns a freed chunk to the arena that allocated it, so a reader missing
//! thousands of pages a second leaves its arena full of holes between the small allocations
//! made meanwhile: `evict_stress` measured 44 MB of arena for 9 MB in use, and a peak resident
//! size that varied from 60 to 180 MB with the machine's load. Kept here instead of freed, a
//! buffer goes to the next miss of its size and the arenas stop churning.
//!
//! Buffers are pooled by exact size (whole units of [`UNIT`] up to
//! `CLASSES` units), at most `POOLED_MAX` bytes in all; others are allocated and freed as
//! usual. The pool's locks are taken on the miss and reclamation paths only, never by a read of
//! a resident page.

use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;

use crossbeam_utils::CachePadded;
use parking_lot::Mutex;

use super::block::UNIT;

/// Pooled sizes: 1 to `CLASSES` units (4 KB internal pages to 64 KB blocks).
const CLASSES: usize = 16;

/// Bytes the pool may hold in all (128 leaves' buffers), beyond which buffers are freed.
const POOLED_MAX: usize = 4 << 20;

struct Pool {
    classes: [CachePadded<Mutex<Vec<Vec<u8>>>>; CLASSES],
    pooled: AtomicUsize,
}

static POOL: Pool = Pool { classes: [const { CachePadded::new(Mutex::new(Vec::new())) }; CLASSES], pooled: AtomicUsize::new(0) };

/// The class of a buffer of `capacity` bytes, if it is a pooled size.
fn class_of(capacity: usize) -> Option<usize> {
    let unit = UNIT as usize;
    (capacity % unit == 0 && (unit..=CLASSES * unit).contains(&capacity)).then(|| capacity / unit - 1)
}

/// An empty buffer that can hold `len` bytes: a pooled one when `len` is a pooled size.
pub fn take(len: usize) -> Vec<u8> {
    if let Some(class) = class_of(len) {
        if let Some(buf) = POOL.classes[class].lock().pop() {
            POOL.pooled.fetch_sub(len, Relaxed);
            return buf;
        }
    }
    Vec::with_capacity(len)
}

/// Gives `buf` back: kept for a later [`take`] when its capacity is a pooled size and the pool
/// has room, freed otherwise.
pub fn give(mut buf: Vec<u8>) {
    let capacity = buf.capacity();
    let Some(class) = class_of(capacity) else { return };
    // The count is advisory (two givers may both pass it): it bounds the pool to about
    // `POOLED_MAX`, which is all it is for.
    if POOL.pooled.load(Relaxed) + capacity > POOLED_MAX {
        return;
    }
    buf.clear();
    POOL.pooled.fetch_add(capacity, Relaxed);
    POOL.classes[class].lock().push(buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_of_pooled_sizes_come_back() {
        let unit = UNIT as usize;
        assert_eq!(class_of(unit), Some(0));
        assert_eq!(class_of(CLASSES * unit), Some(CLASSES - 1));
        assert_eq!(class_of(unit + 1), None);
        assert_eq!(class_of((CLASSES + 1) * unit), None);
        assert_eq!(class_of(0), None);

        // A size no other test uses, so that the tests running beside this one leave it alone.
        let len = 13 * unit;
        let mut buf = take(len);
        assert!(buf.capacity() >= len && buf.is_empty());
        buf.extend_from_slice(b"old bytes");
        let at = buf.as_ptr();
        give(buf);
        let again = take(len);
        assert_eq!((again.as_ptr(), again.len(), again.capacity()), (at, 0, len));

        // Other capacities are freed, not pooled.
        give(Vec::with_capacity(len + 1));
        assert!(take(len).capacity() >= len);
    }
}
