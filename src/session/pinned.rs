//! A heap value at a fixed address that the C layer may point at.

use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// An owned heap value whose address the C layer keeps in a handle: a session's cursors live
/// in `Pinned` entries, so that the per-call methods reach a cursor, and `close` its entry, in
/// one load instead of through the session's slab.
///
/// A `Box` would not do: each use of a `Box` asserts that it is the only way to the value,
/// which would invalidate the handle's copy of the pointer. Here every access, the owner's
/// included, goes through the same raw pointer; the borrow rules are kept by the API's rules
/// instead (a session and its cursors are used by one thread at a time, and the C layer makes
/// a reference from its copy only inside a call on that cursor, while the owner is not
/// borrowing it).
pub struct Pinned<T>(NonNull<T>);

// SAFETY: `Pinned` owns its value like a `Box` does.
unsafe impl<T: Send> Send for Pinned<T> {}

impl<T> Pinned<T> {
    /// Moves `value` to the heap.
    pub fn new(value: T) -> Pinned<T> {
        Pinned(NonNull::from(Box::leak(Box::new(value))))
    }

    /// The value's address, for the C layer's handle.
    pub fn as_ptr(&self) -> NonNull<T> {
        self.0
    }

    /// Gives the value back.
    pub fn into_inner(self) -> T {
        let ptr = self.0;
        std::mem::forget(self);
        // SAFETY: the pointer came from `Box::leak` and ownership leaves `self` here.
        *unsafe { Box::from_raw(ptr.as_ptr()) }
    }
}

impl<T> Deref for Pinned<T> {
    type Target = T;

    fn deref(&self) -> &T {
        // SAFETY: a live allocation owned by `self`; see the type's comment for aliasing.
        unsafe { self.0.as_ref() }
    }
}

impl<T> DerefMut for Pinned<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as `deref`, and `&mut self` excludes the owner's other borrows.
        unsafe { self.0.as_mut() }
    }
}

impl<T> Drop for Pinned<T> {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::leak` and is dropped once, here.
        drop(unsafe { Box::from_raw(self.0.as_ptr()) });
    }
}
