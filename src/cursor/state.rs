//! A cursor's key or value: bytes plus who they belong to.

use crate::error::{Error, Result};
use crate::pack::varint;

/// Who set an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// Nothing is set.
    None,
    /// The application set it (or it was copied for the application): survives failures.
    App,
    /// The engine returned it: a failed call drops it.
    Engine,
}

/// A key or value held by a cursor. The buffer is reused across calls, so steady-state
/// operations do not allocate.
#[derive(Default)]
pub struct Held {
    bytes: Vec<u8>,
    state: State,
    /// For engine items: the session's copy epoch when they were read.
    epoch: u64,
    /// A `set_key`/`set_value` that failed, reported by the next call that needs the item.
    error: Option<Error>,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum State {
    #[default]
    None,
    App,
    Engine,
}

impl Held {
    /// Who owns the item now.
    pub fn owner(&self) -> Owner {
        match self.state {
            State::None => Owner::None,
            State::App => Owner::App,
            State::Engine => Owner::Engine,
        }
    }

    /// The bytes, when set.
    pub fn bytes(&self) -> Option<&[u8]> {
        (self.state != State::None && self.error.is_none()).then_some(&self.bytes[..])
    }

    /// The buffer the bytes live in.
    pub fn buffer(&self) -> &Vec<u8> {
        &self.bytes
    }

    /// The bytes whatever the state (callers check first).
    pub fn raw(&self) -> &[u8] {
        &self.bytes
    }

    /// Whether a `set_*` error is held.
    #[inline(always)]
    pub fn holds_error(&self) -> bool {
        self.error.is_some()
    }

    /// Whether the item is set, with no `set_*` error held.
    #[inline(always)]
    pub fn is_set(&self) -> bool {
        self.state != State::None && self.error.is_none()
    }

    /// `Ok` when set; the remembered `set_*` error, or EINVAL with `missing`, otherwise.
    #[inline(always)]
    pub fn check(&self, missing: &'static str) -> Result<()> {
        if self.state != State::None && self.error.is_none() {
            return Ok(());
        }
        self.check_failed(missing)
    }

    #[cold]
    #[inline(never)]
    fn check_failed(&self, missing: &'static str) -> Result<()> {
        Err(self.error.clone().unwrap_or_else(|| Error::invalid(missing)))
    }

    /// The application sets the item.
    pub fn set_app(&mut self, bytes: &[u8]) {
        self.fill(bytes);
        self.state = State::App;
    }

    /// The application sets the item by writing it into the buffer (no intermediate copy);
    /// an error from `fill` is remembered for the next operation.
    pub fn set_app_with(&mut self, fill: impl FnOnce(&mut Vec<u8>) -> Result<()>) {
        self.bytes.clear();
        match fill(&mut self.bytes) {
            Ok(()) => {
                self.state = State::App;
                self.error = None;
            }
            Err(e) => self.set_error(e),
        }
    }

    /// Sets the application's item to `packed[..n]` (one integer, packed into a fixed array)
    /// when that needs no allocation and no earlier error is held; false, with nothing
    /// changed, otherwise. The integer fast path of the C layer: no call on the way.
    #[inline(always)]
    pub fn set_app_packed(&mut self, packed: &[u8; varint::MAX_LEN], n: usize) -> bool {
        if !self.fill_block(packed, n) {
            return false;
        }
        self.state = State::App;
        true
    }

    /// Whether [`set_app_packed`](Self::set_app_packed) would succeed on `buffer`, the
    /// allocation this item is about to take over.
    #[inline(always)]
    pub fn fits_packed(buffer: &Vec<u8>) -> bool {
        buffer.capacity() >= varint::MAX_LEN
    }

    /// The application's `set_*` failed: the next operation reports `error`.
    pub fn set_error(&mut self, error: Error) {
        self.bytes.clear();
        self.state = State::App;
        self.error = Some(error);
    }

    /// The engine returns the item.
    #[inline]
    pub fn set_engine(&mut self, bytes: &[u8], epoch: u64) {
        self.fill(bytes);
        self.state = State::Engine;
        self.epoch = epoch;
    }

    /// The engine returns the first `n` bytes of `block` (a short value read in place): one
    /// fixed-size copy instead of a variable-length one. False, with nothing changed, when the
    /// buffer is smaller than the block.
    #[inline(always)]
    pub fn set_engine_block(&mut self, block: &[u8; 16], n: usize, epoch: u64) -> bool {
        if !self.fill_block(block, n) {
            return false;
        }
        self.state = State::Engine;
        self.epoch = epoch;
        true
    }

    /// Replaces the bytes with the first `n` of `block` by one fixed-size copy, when the buffer
    /// holds the whole block without growing and no `set_*` error is held (its drop would be a
    /// call); false, with nothing changed, otherwise. The state is the caller's to set.
    #[inline(always)]
    fn fill_block<const N: usize>(&mut self, block: &[u8; N], n: usize) -> bool {
        if self.bytes.capacity() < N || n > N || self.error.is_some() {
            return false;
        }
        self.bytes.clear();
        // SAFETY: the capacity is at least N (checked above), so the N-byte copy stays in the
        // allocation, and it initializes the first `n` (at most N) bytes. A fixed-size copy
        // compiles to a move or two, where `extend_from_slice` can stay a call.
        unsafe {
            std::ptr::copy_nonoverlapping(block.as_ptr(), self.bytes.as_mut_ptr(), N);
            self.bytes.set_len(n);
        }
        true
    }

    /// Keeps the bytes, now as the engine's.
    pub fn mark_engine(&mut self, epoch: u64) {
        if self.state != State::None {
            self.state = State::Engine;
            self.epoch = epoch;
        }
    }

    /// Keeps the bytes, now as the application's.
    pub fn mark_app(&mut self) {
        if self.state != State::None {
            self.state = State::App;
        }
    }

    /// Forgets the item.
    #[inline(always)]
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.state = State::None;
        if self.error.is_some() {
            self.error = None;
        }
    }

    /// Forgets the item and frees its buffer.
    pub fn release(&mut self) {
        self.clear();
        self.bytes = Vec::new();
    }

    /// After a failed call: engine items read before the session's last copy event count as
    /// copies (kept); newer ones are dropped.
    pub fn drop_engine(&mut self, copy_epoch: u64) {
        if self.state == State::Engine {
            if self.epoch < copy_epoch {
                self.state = State::App;
            } else {
                self.clear();
            }
        }
    }

    #[inline(always)]
    fn fill(&mut self, bytes: &[u8]) {
        copy_into(&mut self.bytes, bytes);
        if self.error.is_some() {
            self.error = None;
        }
    }

    /// Makes these bytes the position copy `at` and keeps `at`'s old allocation for the item:
    /// `set_key` after a positioning call saves the record's key without copying it.
    pub fn swap_bytes(&mut self, at: &mut Vec<u8>) {
        std::mem::swap(&mut self.bytes, at);
    }
}

/// Replaces `dst` with `src`. A buffer that grows takes at least 16 bytes, so that later small
/// items can take [`Held::set_engine_block`]'s fixed-size copy.
#[inline(always)]
pub fn copy_into(dst: &mut Vec<u8>, src: &[u8]) {
    dst.clear();
    let want = src.len().max(16);
    if dst.capacity() < want {
        dst.reserve(want);
    }
    dst.extend_from_slice(src);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_into_every_small_length() {
        let src: Vec<u8> = (1..41).collect();
        // A buffer too small for the fixed-size copy, and one large enough, in both directions.
        for mut dst in [vec![9; 3], Vec::with_capacity(64)] {
            for n in (0..40).chain((0..40).rev()) {
                copy_into(&mut dst, &src[..n]);
                assert_eq!(dst, &src[..n]);
            }
        }
    }
}
