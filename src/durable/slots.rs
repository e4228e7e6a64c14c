//! The journal's buffer: a ring of slots that committers join without a lock.
//!
//! A committer reserves room for its frame in the open slot with one compare-and-swap of the
//! slot's state word (bytes joined, bytes released, two flags), copies the frame in, and
//! releases it with one atomic add. One slot at a time is open. Whoever closes it (a CAS
//! setting `CLOSED`: a joiner whose frame does not fit, a committer that wants its record
//! synced, the writer thread, a checkpoint's rotation, `log_flush`) opens the next one, once
//! that ring entry's previous use is written. The journal writes slots in their order, each
//! once every joiner released it, so frames reach the file in the order they joined.
//!
//! Only the holder of the journal's writer role (its file mutex) reads a closed slot, empties
//! it ([`Ring::free`]) or rewrites it ([`Ring::compact`]).

use std::cell::UnsafeCell;
use std::sync::atomic::Ordering::*;

use crossbeam_utils::CachePadded;

use crate::sync::{AtomicU32, AtomicU64, Backoff};

use super::frame::HEADER_LEN;

/// Slots in the ring.
pub const SLOTS: usize = 8;
/// Bytes of one slot.
#[cfg(not(loom))]
pub const SLOT_BYTES: usize = 256 << 10;
/// Bytes of one slot (small under loom: its models copy frames byte by byte).
#[cfg(loom)]
pub const SLOT_BYTES: usize = 64;

/// State word: bytes joined (bits 0..31), bytes released (bits 31..62), flags.
const JOINED: u64 = (1 << 31) - 1;
const RELEASED_SHIFT: u32 = 31;
/// No more joins; the slot waits to be written.
const CLOSED: u64 = 1 << 62;
/// Written: the ring entry waits for its next use.
const FREE: u64 = 1 << 63;

/// Marks, in a buffered frame's length field, a frame whose committer waits for a sync (the
/// length of a valid frame is below 2^30); cleared before the slot is written.
const SYNC_MARK: u32 = 1 << 31;

struct Slot {
    state: CachePadded<AtomicU64>,
    /// The slot's number while it is in use (stored before it opens).
    seq: AtomicU64,
    /// Frames of the slot that carry `SYNC_MARK` (their committers wait for a sync).
    sync_frames: AtomicU32,
    buf: Box<[UnsafeCell<u8>]>,
    /// loom's record of the accesses to `buf`, one cell per byte ([`Slot::touch`]).
    #[cfg(loom)]
    cells: Box<[loom::cell::UnsafeCell<()>]>,
}

impl Slot {
    fn new(seq: u64, state: u64) -> Slot {
        Slot {
            state: CachePadded::new(AtomicU64::new(state)),
            seq: AtomicU64::new(seq),
            sync_frames: AtomicU32::new(0),
            buf: (0..SLOT_BYTES).map(|_| UnsafeCell::new(0)).collect(),
            #[cfg(loom)]
            cells: (0..SLOT_BYTES).map(|_| loom::cell::UnsafeCell::new(())).collect(),
        }
    }

    /// Tells loom of an access to the bytes `at` of `buf`, so that it checks the access is
    /// ordered after every conflicting one (nothing in other builds).
    #[inline(always)]
    fn touch(&self, at: std::ops::Range<usize>, write: bool) {
        #[cfg(loom)]
        for cell in &self.cells[at] {
            if write {
                cell.with_mut(drop);
            } else {
                cell.with(drop);
            }
        }
        #[cfg(not(loom))]
        let _ = (at, write);
    }

    fn base(&self) -> *mut u8 {
        UnsafeCell::raw_get(self.buf.as_ptr())
    }
}

/// Room reserved in a slot.
pub struct Joined {
    /// The slot's number.
    pub seq: u64,
    /// Where the frame starts in the slot.
    pub offset: usize,
    /// This join closed the slot before (full).
    pub closed_full: bool,
    /// This join waited for a slot switch.
    pub waited: bool,
    len: usize,
}

/// The ring of slots.
pub struct Ring {
    slots: Box<[Slot]>,
    /// The open slot's number (or the one being closed while the next opens).
    active: CachePadded<AtomicU64>,
    /// Every slot up to this number is written (its ring entry is free again).
    written: CachePadded<AtomicU64>,
}

// SAFETY: a slot's bytes are written only by joiners, each into the range its successful join
// reserved (disjoint ranges), before its release; the writer role reads or rewrites them only
// after the slot is closed and every joiner released (acquire of the state word), and joiners
// touch a slot again only after it reopens (release of the state word).
unsafe impl Sync for Ring {}

impl Ring {
    /// A ring whose slot 1 is open and empty.
    pub fn new() -> Ring {
        let slots = (0..SLOTS as u64).map(|i| if i == 1 { Slot::new(1, 0) } else { Slot::new(0, FREE) }).collect();
        Ring { slots, active: CachePadded::new(AtomicU64::new(1)), written: CachePadded::new(AtomicU64::new(0)) }
    }

    fn slot(&self, seq: u64) -> &Slot {
        &self.slots[(seq % SLOTS as u64) as usize]
    }

    /// Every slot up to this number is written.
    pub fn written(&self) -> u64 {
        self.written.load(Acquire)
    }

    /// The open slot's number (or the one being switched).
    pub fn active(&self) -> u64 {
        self.active.load(Acquire)
    }

    /// Reserves `len` bytes (at most [`SLOT_BYTES`]) in the open slot. A full slot is closed
    /// and the next opened; `make_room` runs while the ring has no free entry for it.
    pub fn join(&self, len: usize, make_room: &mut dyn FnMut()) -> Joined {
        debug_assert!(len <= SLOT_BYTES);
        let backoff = Backoff::new();
        let (mut closed_full, mut waited) = (false, false);
        loop {
            let slot = self.slot(self.active.load(Acquire));
            let state = slot.state.load(Acquire);
            if state & (CLOSED | FREE) != 0 {
                // Being switched to the next slot.
                waited = true;
                backoff.snooze();
                continue;
            }
            let joined = (state & JOINED) as usize;
            if joined + len > SLOT_BYTES {
                if slot.state.compare_exchange(state, state | CLOSED, AcqRel, Acquire).is_ok() {
                    self.open_next(slot.seq.load(Relaxed), make_room);
                    closed_full = true;
                }
                continue;
            }
            // SeqCst: the journal's writer thread checks for pending bytes after announcing
            // it is idle, and a joiner checks that announcement after joining.
            if slot.state.compare_exchange_weak(state, state + len as u64, SeqCst, Acquire).is_ok() {
                // Stable: the slot cannot be written or reused before this join is released.
                return Joined { seq: slot.seq.load(Relaxed), offset: joined, closed_full, waited, len };
            }
            backoff.spin();
        }
    }

    /// Copies a frame (its header and payload) into the room `j` reserved; `sync` marks it as
    /// awaiting a sync. Call once per join, before [`Ring::release`].
    pub fn fill(&self, j: &Joined, header: [u8; HEADER_LEN], payload: &[u8], sync: bool) {
        debug_assert_eq!(j.len, HEADER_LEN + payload.len());
        let slot = self.slot(j.seq);
        let mut header = header;
        if sync {
            let len = u32::from_le_bytes([header[0], header[1], header[2], header[3]]) | SYNC_MARK;
            header[..4].copy_from_slice(&len.to_le_bytes());
            slot.sync_frames.fetch_add(1, Relaxed);
        }
        // SAFETY: bytes `offset..offset + len` of the slot were reserved by this join and lie
        // inside the slot (the join checked `SLOT_BYTES`); nobody else touches them before
        // the release.
        slot.touch(j.offset..j.offset + j.len, true);
        unsafe {
            let at = slot.base().add(j.offset);
            std::ptr::copy_nonoverlapping(header.as_ptr(), at, HEADER_LEN);
            std::ptr::copy_nonoverlapping(payload.as_ptr(), at.add(HEADER_LEN), payload.len());
        }
    }

    /// Ends the join `j`: its bytes are in place.
    pub fn release(&self, j: Joined) {
        self.slot(j.seq).state.fetch_add((j.len as u64) << RELEASED_SHIFT, Release);
    }

    /// Closes the open slot if it is `only` (any open slot when `None`) and holds at least
    /// `min` bytes, opening the next one (`make_room` runs while the ring is full). Returns the
    /// number of the newest closed slot: every frame joined before the call is in a slot up to
    /// it (with `only`, when that slot was still open or is closed).
    pub fn close(&self, only: Option<u64>, min: usize, make_room: &mut dyn FnMut()) -> u64 {
        let backoff = Backoff::new();
        loop {
            let active = self.active.load(Acquire);
            let slot = self.slot(active);
            let state = slot.state.load(Acquire);
            let seq = slot.seq.load(Relaxed);
            if state & FREE != 0 || seq != active {
                backoff.snooze();
                continue;
            }
            if state & CLOSED != 0 {
                // Closed by another thread, which opens the next.
                return seq;
            }
            if only.is_some_and(|s| s != seq) || ((state & JOINED) as usize) < min {
                return seq - 1;
            }
            if slot.state.compare_exchange(state, state | CLOSED, AcqRel, Acquire).is_ok() {
                self.open_next(seq, make_room);
                return seq;
            }
        }
    }

    /// Opens slot `closed + 1` once its ring entry is free.
    fn open_next(&self, closed: u64, make_room: &mut dyn FnMut()) {
        let next = closed + 1;
        let backoff = Backoff::new();
        while self.written.load(Acquire) + (SLOTS as u64) < next {
            make_room();
            backoff.snooze();
        }
        let slot = self.slot(next);
        slot.seq.store(next, Relaxed);
        slot.sync_frames.store(0, Relaxed);
        slot.state.store(0, Release);
        self.active.store(next, Release);
    }

    /// Whether slot `seq` is closed (then waits until every joiner released it).
    pub fn ready(&self, seq: u64) -> bool {
        let slot = self.slot(seq);
        let backoff = Backoff::new();
        loop {
            let state = slot.state.load(Acquire);
            if state & FREE != 0 || state & CLOSED == 0 {
                return false;
            }
            debug_assert_eq!(slot.seq.load(Relaxed), seq);
            if (state >> RELEASED_SHIFT) & JOINED == state & JOINED {
                return true;
            }
            backoff.snooze();
        }
    }

    /// The frames awaiting a sync put so far in slot `seq` while it is the open slot.
    pub fn open_sync_frames(&self, seq: u64) -> Option<u32> {
        let slot = self.slot(seq);
        let state = slot.state.load(Acquire);
        let open = state & (CLOSED | FREE) == 0 && slot.seq.load(Relaxed) == seq;
        open.then(|| slot.sync_frames.load(Relaxed))
    }

    /// Whether anything waits to be written: a closed slot, or bytes in the open one.
    pub fn pending(&self) -> bool {
        let active = self.active.load(SeqCst);
        if self.written.load(SeqCst) + 1 < active {
            return true;
        }
        let state = self.slot(active).state.load(SeqCst);
        state & FREE == 0 && state & JOINED != 0
    }

    /// The bytes of ready slot `seq`; clears the sync marks of its frames, returning where
    /// those frames start. Writer role only.
    pub fn take(&self, seq: u64) -> (&[u8], Vec<usize>) {
        let slot = self.slot(seq);
        let len = (slot.state.load(Acquire) & JOINED) as usize;
        slot.touch(0..len, false);
        let mut marked = Vec::new();
        if slot.sync_frames.swap(0, Relaxed) != 0 {
            let mut at = 0;
            while at < len {
                // SAFETY: the slot is closed and released: only the writer role touches it.
                let field = unsafe { std::slice::from_raw_parts_mut(slot.base().add(at), 4) };
                let raw = u32::from_le_bytes([field[0], field[1], field[2], field[3]]);
                if raw & SYNC_MARK != 0 {
                    marked.push(at);
                    field.copy_from_slice(&(raw & !SYNC_MARK).to_le_bytes());
                }
                at += HEADER_LEN + (raw & !SYNC_MARK) as usize;
            }
        }
        // SAFETY: as above; `len` bytes were joined and released.
        (unsafe { std::slice::from_raw_parts(slot.base(), len) }, marked)
    }

    /// Removes the frames starting at `drop` (offsets from [`Ring::take`]) from ready slot
    /// `seq`, keeping the others in order. Writer role only.
    pub fn compact(&self, seq: u64, drop: &[usize]) {
        if drop.is_empty() {
            return;
        }
        let slot = self.slot(seq);
        let len = (slot.state.load(Acquire) & JOINED) as usize;
        slot.touch(0..len, true);
        let base = slot.base();
        let (mut from, mut to) = (0, 0);
        while from < len {
            // SAFETY: the slot is closed and released: only the writer role touches it; the
            // frames lie inside its `len` bytes, and `to <= from`.
            let flen = unsafe {
                let f = std::slice::from_raw_parts(base.add(from), 4);
                HEADER_LEN + (u32::from_le_bytes([f[0], f[1], f[2], f[3]]) & !SYNC_MARK) as usize
            };
            if !drop.contains(&from) {
                // SAFETY: as above (`copy` allows the overlap).
                unsafe { std::ptr::copy(base.add(from), base.add(to), flen) };
                to += flen;
            }
            from += flen;
        }
        let to = to as u64;
        slot.state.store(CLOSED | to | (to << RELEASED_SHIFT), Release);
    }

    /// Slot `seq` is written: its entry is free for slot `seq + SLOTS`. Writer role only.
    pub fn free(&self, seq: u64) {
        self.slot(seq).state.store(FREE, Release);
        self.written.store(seq, Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(payload: &[u8]) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[..4].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        h
    }

    #[test]
    fn frames_are_written_in_join_order_and_marks_cleared() {
        let ring = Ring::new();
        for (i, sync) in [(1u8, false), (2, true), (3, false)] {
            let j = ring.join(HEADER_LEN + 1, &mut || ());
            ring.fill(&j, frame(&[i]), &[i], sync);
            ring.release(j);
        }
        assert!(ring.pending());
        assert_eq!(ring.close(None, 1, &mut || ()), 1);
        assert_eq!(ring.active(), 2);
        assert!(ring.ready(1));
        let (bytes, marked) = ring.take(1);
        assert_eq!(marked, vec![HEADER_LEN + 1]);
        assert_eq!(bytes.len(), 3 * (HEADER_LEN + 1));
        assert_eq!(bytes[HEADER_LEN + 1..][..4], 1u32.to_le_bytes());
        ring.compact(1, &marked);
        let (bytes, _) = ring.take(1);
        assert_eq!((bytes.len(), bytes[HEADER_LEN], bytes[2 * HEADER_LEN + 1]), (2 * (HEADER_LEN + 1), 1, 3));
        ring.free(1);
        assert!(!ring.pending());
        assert!(!ring.ready(2));
    }

    #[test]
    fn a_full_slot_moves_joiners_on_and_a_full_ring_waits_for_room() {
        let ring = Ring::new();
        let big = SLOT_BYTES / 2 + 1;
        let payload = vec![7u8; big - HEADER_LEN];
        let mut seqs = Vec::new();
        for _ in 0..SLOTS + 2 {
            let j = ring.join(big, &mut || {
                // The ring is full: write the oldest closed slot.
                let seq = ring.written() + 1;
                assert!(ring.ready(seq));
                ring.free(seq);
            });
            seqs.push(j.seq);
            ring.fill(&j, frame(&payload), &payload, false);
            ring.release(j);
        }
        assert_eq!(seqs, (1..=SLOTS as u64 + 2).collect::<Vec<_>>());
        assert!(ring.written() >= 2);
    }
}
