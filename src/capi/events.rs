//! Delivery of messages to the application's `WT_EVENT_HANDLER`, or to stderr/stdout when it
//! has no such callback.

use std::ffi::CString;
use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::strerror;

use super::types::{WT_CONNECTION, WT_CURSOR, WT_EVENT_HANDLER, WT_EVENT_TYPE, WT_SESSION};

/// The application's event handler (may be NULL). Copied into each handle; the application
/// keeps the struct alive while the connection is open (the reference's contract).
#[derive(Clone, Copy)]
pub struct Events {
    handler: *mut WT_EVENT_HANDLER,
}

impl Default for Events {
    fn default() -> Self {
        Events { handler: std::ptr::null_mut() }
    }
}

impl Events {
    /// Wraps the application's handler pointer.
    pub fn new(handler: *mut WT_EVENT_HANDLER) -> Self {
        Events { handler }
    }

    /// `handler`, or `self` when it is NULL (a session without its own handler uses the
    /// connection's).
    pub fn or(self, handler: *mut WT_EVENT_HANDLER) -> Self {
        if handler.is_null() {
            self
        } else {
            Events::new(handler)
        }
    }

    fn get(&self) -> Option<&WT_EVENT_HANDLER> {
        // SAFETY: a non-NULL handler points to the application's struct, which the API
        // requires to outlive the handles it was given to.
        unsafe { self.handler.as_ref() }
    }

    /// Reports an error message in the reference's layout:
    /// `[sec:usec][pid:0xtid], <prefix>, <api>: [WT_VERB_DEFAULT][ERROR]: <text>: <strerror>`.
    pub fn error(&self, session: *mut WT_SESSION, prefix: &str, api: &str, code: i32, text: &str) {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        // SAFETY: pthread_self has no preconditions.
        let thread = unsafe { libc::pthread_self() } as u64;
        let mut line = format!("[{}:{}][{}:{:#x}]", now.as_secs(), now.subsec_micros(), std::process::id(), thread);
        for piece in [prefix, api] {
            if !piece.is_empty() {
                line.push_str(", ");
                line.push_str(piece);
            }
        }
        line.push_str(": [WT_VERB_DEFAULT][ERROR]: ");
        line.push_str(text);
        let suffix = strerror(code);
        if !text.ends_with(suffix.as_ref()) {
            line.push_str(": ");
            line.push_str(&suffix);
        }
        let callback = self.get().and_then(|h| h.handle_error);
        match (callback, CString::new(line.replace('\0', " "))) {
            (Some(callback), Ok(message)) => {
                // SAFETY: the callback is the application's, called with its own handler, a
                // session handle (or NULL) and a NUL-terminated message that outlives the call.
                unsafe { callback(self.handler, session, code, message.as_ptr()) };
            }
            (_, message) => {
                let text = message.map(|m| m.into_string().unwrap_or_default()).unwrap_or_default();
                let _ = writeln!(std::io::stderr(), "{text}");
            }
        }
    }

    /// An informational message (`handle_message`; without one, a line on stdout, as the
    /// reference's default handler prints it).
    pub fn message(&self, session: *mut WT_SESSION, text: &str) {
        let callback = self.get().and_then(|h| h.handle_message);
        match (callback, CString::new(text.replace('\0', " "))) {
            (Some(callback), Ok(message)) => {
                // SAFETY: the application's callback, called with its own handler, a session
                // handle (or NULL) and a NUL-terminated message that outlives the call.
                unsafe { callback(self.handler, session, message.as_ptr()) };
            }
            _ => {
                let _ = writeln!(std::io::stdout(), "{text}");
            }
        }
    }

    /// Tells the application that the library closed one of its handles (`cursor` NULL: the
    /// session itself).
    pub fn closed(&self, session: *mut WT_SESSION, cursor: *mut WT_CURSOR) {
        if let Some(callback) = self.get().and_then(|h| h.handle_close) {
            // SAFETY: the application's callback, given live handles that are closed right after.
            unsafe { callback(self.handler, session, cursor) };
        }
    }

    /// A general event (`WT_EVENT_CONN_READY`, `WT_EVENT_CONN_CLOSE`).
    pub fn general(&self, conn: *mut WT_CONNECTION, event: WT_EVENT_TYPE) {
        if let Some(callback) = self.get().and_then(|h| h.handle_general) {
            // SAFETY: the application's callback, given the live connection handle.
            unsafe { callback(self.handler, conn, std::ptr::null_mut(), event, std::ptr::null_mut()) };
        }
    }
}
