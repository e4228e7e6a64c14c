//! The fixed array of session slots. A session claims a free slot with one compare-and-swap on
//! that slot's own cache line: no connection-wide lock, and sessions never share a line.

use std::sync::atomic::Ordering;

use crate::sync::AtomicBool;

use crossbeam_utils::CachePadded;

use crate::error::{Error, Kind, Result};

/// Which session slots are in use.
pub struct SessionSlots {
    claimed: Box<[CachePadded<AtomicBool>]>,
}

impl SessionSlots {
    /// Memory one slot's claim flag costs.
    ///
    /// cbindgen:ignore
    pub const BYTES_PER_SLOT: usize = size_of::<CachePadded<AtomicBool>>();

    /// `capacity` slots, all free.
    pub fn new(capacity: usize) -> Self {
        SessionSlots { claimed: (0..capacity).map(|_| CachePadded::new(AtomicBool::new(false))).collect() }
    }

    /// Number of slots.
    pub fn capacity(&self) -> usize {
        self.claimed.len()
    }

    /// Claims a free slot. Scans read other slots without writing them; the one write is the
    /// CAS on the chosen slot.
    pub fn claim(&self) -> Result<usize> {
        for (i, slot) in self.claimed.iter().enumerate() {
            if !slot.load(Ordering::Relaxed)
                && slot.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok()
            {
                return Ok(i);
            }
        }
        Err(Error::new(
            Kind::Generic,
            format!("out of sessions, configured for {} (including internal sessions)", self.capacity()),
        ))
    }

    /// Claims slot `hint` if it is free (the slot this thread released last: its line is
    /// then most likely in this core's cache and written by no other thread), else any free
    /// slot as [`claim`](Self::claim) does.
    #[inline]
    pub fn claim_near(&self, hint: usize) -> Result<usize> {
        if let Some(slot) = self.claimed.get(hint) {
            if !slot.load(Ordering::Relaxed)
                && slot.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok()
            {
                return Ok(hint);
            }
        }
        self.claim()
    }

    /// Frees a slot claimed earlier.
    pub fn release(&self, slot: usize) {
        self.claimed[slot].store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn claims_are_unique_under_contention() {
        let slots = Arc::new(SessionSlots::new(64));
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let slots = Arc::clone(&slots);
                std::thread::spawn(move || (0..8).map(|_| slots.claim().unwrap()).collect::<Vec<_>>())
            })
            .collect();
        let mut all: Vec<usize> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 64);
        assert_eq!(slots.claim().unwrap_err().code(), crate::error::code::WT_ERROR);
        slots.release(5);
        assert_eq!(slots.claim().unwrap(), 5);
        // A hint is taken when free, passed over when not, and may be out of range.
        slots.release(9);
        slots.release(3);
        assert_eq!(slots.claim_near(9).unwrap(), 9);
        assert_eq!(slots.claim_near(9).unwrap(), 3);
        slots.release(7);
        assert_eq!(slots.claim_near(1000).unwrap(), 7);
        assert!(slots.claim_near(7).is_err());
    }
}
