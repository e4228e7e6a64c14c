//! The eviction server (`eviction=(threads_min)` threads of an on-disk connection): keeps the
//! cache's pages under `eviction_target` in the background when nobody reads (a reader past the
//! target makes room itself, `btree::cache`: waking a server per miss cost a futex wake and a
//! context switch each, more than the eviction, and the server took a core the readers wanted).
//!
//! Every tenth of a second, while everything held is past `eviction_target` (indexes growing
//! under writers, say), a thread drops leaves of the trees in turn. Merging the indexes stays with the writers that pass the dirty trigger:
//! a server merging in the background raced the writers on the same index and made loading
//! 2,000,000 rows half as slow again (7.7 s against 5.1 s on this machine).

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::btree::cache::Cache;
use crate::error::{Error, Kind, Result};
use crate::schema::Registry;

/// How long a thread sleeps when nobody wakes it.
const NAP: Duration = Duration::from_millis(100);

/// The threads and what wakes them.
pub struct Evictor {
    signal: Arc<Signal>,
    threads: Vec<JoinHandle<()>>,
}

#[derive(Default)]
struct Signal {
    /// Stopping.
    state: Mutex<bool>,
    wake: Condvar,
}

impl Evictor {
    /// Starts `threads` threads over the connection's tables.
    pub fn start(threads: usize, registry: Arc<Registry>, cache: Arc<Cache>) -> Result<Evictor> {
        let signal = Arc::new(Signal::default());
        let mut evictor = Evictor { signal, threads: Vec::new() };
        for i in 0..threads.max(1) {
            let (signal, registry, cache) = (Arc::clone(&evictor.signal), Arc::clone(&registry), Arc::clone(&cache));
            let thread = std::thread::Builder::new()
                .name(format!("eviction-server-{i}"))
                .spawn(move || run(&signal, &registry, &cache))
                .map_err(|e| Error::new(Kind::Generic, format!("eviction server: {e}")))?;
            evictor.threads.push(thread);
        }
        Ok(evictor)
    }

    /// Stops the threads (a merge under way finishes first).
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        {
            let mut state = self.signal.state.lock();
            *state = true;
            self.signal.wake.notify_all();
        }
        for thread in self.threads.drain(..) {
            // A thread that panicked has nothing left to stop.
            let _ = thread.join();
        }
    }
}

impl Drop for Evictor {
    fn drop(&mut self) {
        self.halt();
    }
}

fn run(signal: &Signal, registry: &Registry, cache: &Cache) {
    loop {
        {
            let mut stopping = signal.state.lock();
            if !*stopping {
                signal.wake.wait_for(&mut stopping, NAP);
            }
            if *stopping {
                return;
            }
        }
        let tables: Vec<_> = registry.tables().into_iter().filter(|t| t.tree().is_some() && !t.is_dropped()).collect();
        for table in &tables {
            if !cache.over_target() {
                break;
            }
            if let Some(tree) = table.tree() {
                cache.evicted(tree.evict_to_target(), true);
            }
        }
    }
}
