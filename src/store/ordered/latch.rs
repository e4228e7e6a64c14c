//! The version latch of a leaf: writers lock it, readers only read it.
//!
//! One word: bit 0 is the writer's lock, bit 1 marks a leaf taken out of the tree, and every
//! unlock adds [`STEP`]. A reader notes the word before it reads the leaf and checks it again
//! after (a sequence lock): if a writer came in between, the word differs and the reader reads
//! again. Readers never write the word, so a leaf every thread reads stays shared in every
//! core's cache.
//!
//! Memory order, as for any sequence lock: the writer's lock is followed by a release fence, so
//! a reader that sees any store of the critical section and then checks the word (after an
//! acquire fence) sees the lock bit or a later version; the unlock is a release store, the
//! reader's first load an acquire load.

use crate::sync::{fence, AtomicU64, Backoff};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};

/// The writer's lock bit.
const LOCKED: u64 = 1;
/// Set once the leaf has left the tree: readers and writers start again from the root.
const OBSOLETE: u64 = 2;
/// What each unlock adds.
const STEP: u64 = 4;

/// A leaf's version word.
pub(super) struct Latch(AtomicU64);

/// The leaf left the tree.
#[derive(Debug)]
pub(super) struct Obsolete;

impl Latch {
    pub(super) fn new() -> Self {
        Latch(AtomicU64::new(0))
    }

    /// A version to read the leaf under: waits while a writer holds it; `None` once obsolete.
    #[inline(always)]
    pub(super) fn begin_read(&self) -> Option<u64> {
        let v = self.0.load(Acquire);
        if v & (LOCKED | OBSOLETE) == 0 {
            return Some(v);
        }
        self.begin_read_slow()
    }

    #[cold]
    fn begin_read_slow(&self) -> Option<u64> {
        let backoff = Backoff::new();
        loop {
            let v = self.0.load(Acquire);
            if v & OBSOLETE != 0 {
                return None;
            }
            if v & LOCKED == 0 {
                return Some(v);
            }
            backoff.snooze();
        }
    }

    /// Whether nothing changed the leaf since [`Latch::begin_read`] returned `v`: what was read
    /// in between is a consistent state.
    #[inline(always)]
    pub(super) fn still(&self, v: u64) -> bool {
        fence(Acquire);
        self.0.load(Relaxed) == v
    }

    /// Takes the writer's lock (waits for another writer).
    #[inline]
    pub(super) fn lock(&self) -> Result<Locked<'_>, Obsolete> {
        let backoff = Backoff::new();
        loop {
            let v = self.0.load(Relaxed);
            if v & OBSOLETE != 0 {
                return Err(Obsolete);
            }
            if v & LOCKED == 0 && self.0.compare_exchange_weak(v, v | LOCKED, Acquire, Relaxed).is_ok() {
                // Orders the lock bit before the critical section's stores (see the module).
                fence(Release);
                return Ok(Locked { latch: self, version: v });
            }
            backoff.snooze();
        }
    }
}

/// A held lock; dropping it unlocks with a new version.
pub(super) struct Locked<'a> {
    latch: &'a Latch,
    version: u64,
}

impl Locked<'_> {
    /// Unlocks and marks the leaf obsolete: it has left the tree.
    pub(super) fn retire(self) {
        self.latch.0.store(self.version + STEP + OBSOLETE, Release);
        std::mem::forget(self);
    }
}

impl Drop for Locked<'_> {
    #[inline]
    fn drop(&mut self) {
        self.latch.0.store(self.version + STEP, Release);
    }
}
