//! The atomics of the lock-free protocols that `loom` model-checks (TESTING.md, "Model
//! checking"): std's in every normal build, loom's under `RUSTFLAGS="--cfg loom"`, where only
//! the `loom_tests` modules run. Spin-waits go through [`spin_loop`] and [`Backoff`], which
//! under loom yield to its scheduler (a spin loop loom cannot see would never end).

#[cfg(not(loom))]
pub use std::sync::atomic::{fence, AtomicBool, AtomicI64, AtomicU32, AtomicU64};
#[cfg(not(loom))]
pub use std::thread::yield_now;
#[cfg(not(loom))]
pub use crossbeam_utils::Backoff;

#[cfg(loom)]
pub use loom::sync::atomic::{fence, AtomicBool, AtomicI64, AtomicU32, AtomicU64};
#[cfg(loom)]
pub use loom::thread::yield_now;

/// A busy-wait hint (a pause instruction; a yield under loom).
#[inline(always)]
pub fn spin_loop() {
    #[cfg(not(loom))]
    std::hint::spin_loop();
    #[cfg(loom)]
    loom::thread::yield_now();
}

/// `crossbeam_utils::Backoff` for loom: every wait yields.
#[cfg(loom)]
#[derive(Default)]
pub struct Backoff;

#[cfg(loom)]
impl Backoff {
    /// A new backoff.
    pub fn new() -> Backoff {
        Backoff
    }

    /// Waits once in a CAS retry loop.
    pub fn spin(&self) {
        loom::thread::yield_now();
    }

    /// Waits once for another thread.
    pub fn snooze(&self) {
        loom::thread::yield_now();
    }
}
