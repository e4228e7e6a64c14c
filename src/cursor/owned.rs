//! A cursor at a fixed heap address that the C layer may point at.

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

use super::Cursor;

/// An owned, heap-allocated cursor whose address the C layer keeps in its handle, so that the
/// per-call methods reach the cursor in one load instead of through the session's slab.
///
/// A `Box` would not do: each use of a `Box` asserts that it is the only way to the cursor,
/// which would invalidate the handle's copy of the pointer. Here every access, the owner's
/// included, goes through the same raw pointer; the borrow rules are kept by the API's rules
/// instead (a session and its cursors are used by one thread at a time, and the C layer makes
/// a reference from its copy only inside a call on that cursor, while the owner is not
/// borrowing it).
pub struct OwnedCursor(NonNull<Cursor>);

// SAFETY: `OwnedCursor` owns its cursor like a `Box` does.
unsafe impl Send for OwnedCursor where Cursor: Send {}

impl OwnedCursor {
    /// Moves `cursor` to the heap.
    pub fn new(cursor: Cursor) -> OwnedCursor {
        OwnedCursor(NonNull::from(Box::leak(Box::new(cursor))))
    }

    /// The cursor's address, for the C layer's handle.
    pub fn as_ptr(&self) -> NonNull<Cursor> {
        self.0
    }

    /// Gives the cursor back as a `Box`.
    pub fn into_box(self) -> Box<Cursor> {
        let ptr = self.0;
        std::mem::forget(self);
        // SAFETY: the pointer came from `Box::leak` and ownership leaves `self` here.
        unsafe { Box::from_raw(ptr.as_ptr()) }
    }
}

impl Deref for OwnedCursor {
    type Target = Cursor;

    fn deref(&self) -> &Cursor {
        // SAFETY: a live allocation owned by `self`; see the type's comment for aliasing.
        unsafe { self.0.as_ref() }
    }
}

impl DerefMut for OwnedCursor {
    fn deref_mut(&mut self) -> &mut Cursor {
        // SAFETY: as `deref`, and `&mut self` excludes the owner's other borrows.
        unsafe { self.0.as_mut() }
    }
}

impl Drop for OwnedCursor {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::leak` and is dropped once, here.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}
