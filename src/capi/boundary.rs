//! The panic boundary and the single place where core errors become C return codes.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use crate::error::{code, Error};

use super::events::Events;
use super::types::WT_SESSION;

thread_local! {
    /// The message of the last panic on this thread, for the boundary to report.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Routes panic messages to the boundary instead of stderr. Installed once, at the first
/// `wiredtiger_open` or `wiredtiger_struct_*` call.
pub fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        panic::set_hook(Box::new(|info| {
            let text = match info.location() {
                Some(at) => format!("{} at {}:{}", payload_text(info.payload()), at.file(), at.line()),
                None => payload_text(info.payload()),
            };
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
        }));
    });
}

fn payload_text(payload: &dyn Any) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// Runs `body`; a panic becomes `on_panic`, after reporting `WT_PANIC` with its message to
/// stderr (there may be no valid handle to find an event handler through).
pub fn guard<T>(api: &str, on_panic: T, body: impl FnOnce() -> T) -> T {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            let text = LAST_PANIC.with(|p| p.borrow_mut().take()).unwrap_or_else(|| payload_text(&*payload));
            crate::store::collate::forget_thread_state();
            Events::default().error(std::ptr::null_mut(), "", api, code::WT_PANIC, &format!("internal error: {text}"));
            on_panic
        }
    }
}

/// Reports `e` and returns its code.
pub fn fail(e: &Error, events: Events, session: *mut WT_SESSION, prefix: &str, api: &str) -> i32 {
    for message in e.messages() {
        events.error(session, prefix, api, e.code(), message);
    }
    e.code()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_default_result() {
        install_panic_hook();
        let rc = guard("test", code::WT_PANIC, || -> i32 { panic!("boom") });
        assert_eq!(rc, code::WT_PANIC);
        // The hook captured the message for the boundary, which consumed it.
        LAST_PANIC.with(|p| assert!(p.borrow().is_none()));
        assert_eq!(guard("test", -1, || 7), 7);
    }
}
