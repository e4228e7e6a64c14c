//! The `diagnostic` cargo feature: checks at the C boundary of two rules the API leaves to the
//! application, which the reference's diagnostic builds assert.
//!
//! - A session, and every cursor of it, is used by one thread at a time. Each call on a session
//!   or cursor claims the session for the calling thread (a compare-and-swap on a word of the
//!   session handle) and gives it back when it returns; a call from a second thread meanwhile
//!   fails with `EINVAL` and a message, doing nothing. Nested calls of the same thread (an event
//!   handler calling back into the session) pass.
//! - A cursor handle is not used after `close`. `close` parks most cursors in the session's
//!   cache, where the handle stays allocated: a call on it then fails with `EINVAL` and a
//!   message instead of acting on a cursor the session may hand out again.
//!
//! Without the feature, [`session_call`] and [`cursor_call`] return a zero-sized token that has
//! no destructor and compile to nothing: the hot paths contain none of these checks (the seed
//! 003 lesson; `bench-c/RESULTS.md` gives the instruction counts of both builds).

use libc::c_int;

use super::types::{WT_CURSOR, WT_SESSION};

/// Held for the length of one call on a session or one of its cursors.
#[must_use]
pub struct InCall {
    /// The session's busy word to give back, or null for a nested call of the same thread.
    #[cfg(feature = "diagnostic")]
    release: *const std::sync::atomic::AtomicUsize,
}

/// Claims `session` for one call `api` of this thread. `Err` carries the call's return code
/// after the violation was reported.
///
/// # Safety
/// `session` is NULL or a session handle (NULL passes: the call itself refuses it).
#[inline(always)]
pub unsafe fn session_call(session: *mut WT_SESSION, api: &str) -> Result<InCall, c_int> {
    #[cfg(feature = "diagnostic")]
    {
        // SAFETY: per the contract.
        unsafe { checks::claim(session, api) }
    }
    #[cfg(not(feature = "diagnostic"))]
    {
        let _ = (session, api);
        Ok(InCall {})
    }
}

/// Claims the session of `cursor` for one call `api` of this thread and, when `open`, checks
/// that the cursor is open (not closed into the session's cache; `close` itself passes false:
/// a second close has its own error).
///
/// # Safety
/// `cursor` is NULL or a cursor handle whose session is live.
#[inline(always)]
pub unsafe fn cursor_call(cursor: *mut WT_CURSOR, api: &str, open: bool) -> Result<InCall, c_int> {
    #[cfg(feature = "diagnostic")]
    {
        // SAFETY: per the contract.
        unsafe { checks::claim_cursor(cursor, api, open) }
    }
    #[cfg(not(feature = "diagnostic"))]
    {
        let _ = (cursor, api, open);
        Ok(InCall {})
    }
}

impl InCall {
    /// Ends a call that freed its session (`WT_SESSION::close`): nothing is left to give back.
    #[inline(always)]
    pub fn session_freed(self) {
        // Without the feature there is nothing to give back in the first place.
        #[cfg(feature = "diagnostic")]
        std::mem::forget(self);
    }
}

/// Records whether `cursor` is closed (parked in its session's cache) or open again.
///
/// # Safety
/// `cursor` is a live cursor handle, used by the calling thread only.
#[inline(always)]
pub unsafe fn set_closed(cursor: *mut WT_CURSOR, closed: bool) {
    #[cfg(feature = "diagnostic")]
    // SAFETY: per the contract.
    unsafe {
        (*cursor.cast::<super::handles::CursorHandle>()).closed = closed;
    }
    #[cfg(not(feature = "diagnostic"))]
    let _ = (cursor, closed);
}

#[cfg(feature = "diagnostic")]
mod checks {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use libc::c_int;

    use crate::error::Error;

    use super::super::boundary::fail;
    use super::super::handles::{CursorHandle, SessionHandle};
    use super::super::types::{WT_CURSOR, WT_SESSION};
    use super::InCall;

    thread_local! {
        /// Its address tells threads apart (never 0).
        static TOKEN: u8 = const { 0 };
    }

    fn token() -> usize {
        TOKEN.with(|t| std::ptr::from_ref(t) as usize)
    }

    impl Drop for InCall {
        fn drop(&mut self) {
            if !self.release.is_null() {
                // SAFETY: the busy word of a session that outlives the call.
                unsafe { (*self.release).store(0, Ordering::Release) };
            }
        }
    }

    /// Reports a broken rule through `session`'s event handler, reading only fields that do not
    /// change while the session is open (another thread may be inside a call on it).
    ///
    /// # Safety
    /// `session` is a live session handle.
    unsafe fn report(session: *mut SessionHandle, api: &str, message: &'static str) -> c_int {
        // SAFETY: `events` and the connection pointer are set at open and never change.
        let (events, conn) = unsafe { ((*session).events, (*session).iface.connection) };
        // SAFETY: the connection outlives its sessions.
        let prefix = unsafe { (*conn.cast::<super::super::handles::ConnectionHandle>()).core.error_prefix() };
        let session_ptr = session.cast::<WT_SESSION>();
        fail(&Error::invalid(message), events, session_ptr, &prefix, api)
    }

    /// See [`super::session_call`].
    pub unsafe fn claim(session: *mut WT_SESSION, api: &str) -> Result<InCall, c_int> {
        let handle = session.cast::<SessionHandle>();
        if handle.is_null() {
            return Ok(InCall { release: std::ptr::null() });
        }
        // A raw pointer to the word, no reference to the handle: another thread may be inside
        // a call on this session, which is the misuse being detected.
        // SAFETY: a live session handle (contract).
        let busy: *const AtomicUsize = unsafe { std::ptr::addr_of!((*handle).busy) };
        let me = token();
        // SAFETY: as above.
        match unsafe { (*busy).compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed) } {
            Ok(_) => Ok(InCall { release: busy }),
            Err(owner) if owner == me => Ok(InCall { release: std::ptr::null() }),
            // SAFETY: as above.
            Err(_) => Err(unsafe {
                report(
                    handle,
                    api,
                    "session used by two threads at once: a session and its cursors may be used by one thread at a time",
                )
            }),
        }
    }

    /// See [`super::cursor_call`].
    pub unsafe fn claim_cursor(cursor: *mut WT_CURSOR, api: &str, open: bool) -> Result<InCall, c_int> {
        if cursor.is_null() {
            return Ok(InCall { release: std::ptr::null() });
        }
        let handle = cursor.cast::<CursorHandle>();
        // SAFETY: a live cursor handle (contract); fields read by value.
        let (session, closed) = unsafe { ((*handle).iface.session, (*handle).closed) };
        // SAFETY: the cursor's session is live.
        let call = unsafe { claim(session, api) }?;
        if open && closed {
            // SAFETY: as above.
            return Err(unsafe {
                report(session.cast::<SessionHandle>(), api, "cursor used after it was closed")
            });
        }
        Ok(call)
    }
}
