//! `checkpoint=(wait=N,log_size=B)`: the background checkpoint thread (the reference's
//! checkpoint server).
//!
//! The thread takes a checkpoint every `wait` seconds and, with the journal on and `log_size`
//! set, whenever the journal has written `log_size` more bytes (at least `log=(file_max)`, as
//! the reference rounds it), through the same path as `WT_SESSION::checkpoint`
//! ([`Durable::checkpoint_in`]): it holds its own transaction state in a session slot of its
//! own, so its snapshot is pinned like any session's. It sleeps on a condition variable, so
//! stopping it (reconfiguration, connection close, before the final checkpoint) takes no
//! longer than a checkpoint already under way. A failed checkpoint is retried at the next
//! period; the last attempt's error is what [`Checkpointer::stop`] returns.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::config::Config;
use crate::error::{Error, Kind, Result};
use crate::schema::Registry;
use crate::txn::Txn;

use super::Durable;

/// The `checkpoint=(…)` settings as configured (defaults, `wiredtiger_open`, then each
/// `reconfigure`, which keeps what it does not set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckpointConfig {
    /// Time between checkpoints (`wait` seconds; zero: no timed checkpoints).
    pub wait: Duration,
    /// Journal bytes between checkpoints (`log_size`; zero: none by size).
    pub log_size: u64,
}

impl CheckpointConfig {
    /// The settings after a validated `wiredtiger_open` (`previous` = `None`) or
    /// `WT_CONNECTION::reconfigure` (`previous` = the current settings, which stand for the
    /// keys the string does not set).
    pub fn from_config(cfg: &Config<'_>, previous: Option<CheckpointConfig>) -> CheckpointConfig {
        let mut c = previous.unwrap_or_default();
        if let Some(v) = cfg.get("checkpoint.wait") {
            c.wait = Duration::from_secs(v.num.max(0) as u64);
        }
        if let Some(v) = cfg.get("checkpoint.log_size") {
            c.log_size = v.num.max(0) as u64;
        }
        c
    }

    /// Whether a thread runs for these settings: a period, or a size with the journal on (the
    /// reference ignores `log_size` without a journal).
    pub fn runs(&self, has_journal: bool) -> bool {
        !self.wait.is_zero() || (self.log_size > 0 && has_journal)
    }
}

/// Why the thread wakes.
#[derive(Default)]
struct WakeState {
    stopping: bool,
    /// The journal wrote `log_size` bytes since the last wake-up by size.
    log_full: bool,
}

#[derive(Default)]
struct Wake {
    state: Mutex<WakeState>,
    cond: Condvar,
}

impl Wake {
    /// Sleeps until `period` has passed (forever when `None`), the journal filled `log_size`,
    /// or a stop; returns whether to stop.
    fn sleep(&self, period: Option<Duration>) -> bool {
        let deadline = period.and_then(|p| Instant::now().checked_add(p));
        let mut st = self.state.lock();
        while !st.stopping && !st.log_full {
            match deadline {
                Some(d) => {
                    if self.cond.wait_until(&mut st, d).timed_out() {
                        break;
                    }
                }
                None => self.cond.wait(&mut st),
            }
        }
        st.log_full = false;
        st.stopping
    }

    fn set(&self, f: impl FnOnce(&mut WakeState)) {
        f(&mut self.state.lock());
        self.cond.notify_all();
    }
}

/// A running checkpoint thread; [`stop`](Self::stop) it (dropping stops it too).
pub struct Checkpointer {
    wake: Arc<Wake>,
    thread: Option<JoinHandle<Result<()>>>,
    durable: Arc<Durable>,
    /// The session slot the thread's transaction state uses (the owner frees it after
    /// [`stop`](Self::stop)).
    slot: usize,
}

impl Checkpointer {
    /// Starts the thread for `config` (which must [run](CheckpointConfig::runs)), with `txn`
    /// the transaction state of session slot `slot`, claimed for it.
    pub fn start(
        config: CheckpointConfig,
        durable: Arc<Durable>,
        registry: Arc<Registry>,
        (mut txn, slot): (Txn, usize),
    ) -> Result<Checkpointer> {
        let wake = Arc::new(Wake::default());
        let period = (!config.wait.is_zero()).then_some(config.wait);
        if config.log_size > 0 {
            let w = Arc::clone(&wake);
            durable.wake_on_journal_bytes(config.log_size, Some(Arc::new(move || w.set(|s| s.log_full = true))));
        }
        let (w, d) = (Arc::clone(&wake), Arc::clone(&durable));
        let thread = std::thread::Builder::new()
            .name("checkpoint-server".into())
            .spawn(move || {
                let mut last = Ok(());
                while !w.sleep(period) {
                    last = d.checkpoint_in(&registry, &mut txn);
                }
                last
            })
            .map_err(|e| {
                durable.wake_on_journal_bytes(0, None);
                Error::new(Kind::Generic, format!("checkpoint server: {e}"))
            })?;
        Ok(Checkpointer { wake, thread: Some(thread), durable, slot })
    }

    /// The session slot of the thread's transaction state.
    pub fn slot(&self) -> usize {
        self.slot
    }

    /// Stops the thread, waiting for a checkpoint under way to finish; returns the error of
    /// its last checkpoint, if that one failed.
    pub fn stop(mut self) -> Result<()> {
        self.halt()
    }

    fn halt(&mut self) -> Result<()> {
        let Some(thread) = self.thread.take() else { return Ok(()) };
        self.durable.wake_on_journal_bytes(0, None);
        self.wake.set(|s| s.stopping = true);
        thread.join().unwrap_or_else(|_| Err(Error::new(Kind::Generic, "checkpoint server panicked")))
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        // Nothing is left to report the last checkpoint's error to; `stop` returns it.
        let _ = self.halt();
    }
}
