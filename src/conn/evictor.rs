//! The eviction server (`eviction=(threads_min)` threads of an on-disk connection): keeps the
//! cache under its targets in the background, so that writers and readers rarely reach the
//! triggers at which they evict themselves (`btree::cache`).
//!
//! Each round, while the indexes' estimate is past `eviction_dirty_target`, a thread merges the
//! table with the largest estimate into its tree; while everything held is past
//! `eviction_target`, it drops leaves of the trees in turn. A thread sleeps until the cache
//! wakes it (a writer publishing past the dirty target, a reader's miss past the target) or
//! for a tenth of a second.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::{Condvar, Mutex};

use crate::btree::cache::Cache;
use crate::error::{Error, Kind, Result};
use crate::schema::Registry;
use crate::txn::TxnShared;

/// How long a thread sleeps when nobody wakes it.
const NAP: Duration = Duration::from_millis(100);

/// The threads and what wakes them.
pub struct Evictor {
    signal: Arc<Signal>,
    threads: Vec<JoinHandle<()>>,
}

#[derive(Default)]
struct Signal {
    /// (work asked for, stopping)
    state: Mutex<(bool, bool)>,
    wake: Condvar,
}

impl Signal {
    fn poke(&self) {
        let mut state = self.state.lock();
        if !state.0 {
            state.0 = true;
            self.wake.notify_one();
        }
    }
}

impl Evictor {
    /// Starts `threads` threads over the connection's tables.
    pub fn start(threads: usize, registry: Arc<Registry>, txn: Arc<TxnShared>, cache: Arc<Cache>) -> Result<Evictor> {
        let signal = Arc::new(Signal::default());
        let poke = Arc::clone(&signal);
        cache.set_waker(Box::new(move || poke.poke()));
        let mut evictor = Evictor { signal, threads: Vec::new() };
        for i in 0..threads.max(1) {
            let (signal, registry, txn, cache) = (Arc::clone(&evictor.signal), Arc::clone(&registry), Arc::clone(&txn), Arc::clone(&cache));
            let thread = std::thread::Builder::new()
                .name(format!("eviction-server-{i}"))
                .spawn(move || run(&signal, &registry, &txn, &cache))
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
            state.1 = true;
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

fn run(signal: &Signal, registry: &Registry, txn: &TxnShared, cache: &Cache) {
    loop {
        {
            let mut state = signal.state.lock();
            if !state.0 && !state.1 {
                signal.wake.wait_for(&mut state, NAP);
            }
            if state.1 {
                return;
            }
            state.0 = false;
        }
        let tables: Vec<_> = registry.tables().into_iter().filter(|t| t.tree().is_some() && !t.is_dropped()).collect();
        // Indexes first: merging is what makes room for writers.
        let mut tried = 0;
        while cache.dirty_over_target() && tried < tables.len() {
            let Some(table) = tables.iter().max_by_key(|t| t.dirty_estimate()) else { break };
            let before = cache.dirty_bytes();
            // A failed merge (a full disk) leaves the index as it was; a checkpoint reports it.
            let _ = table.merge(txn.clock().now(), &|| txn.oldest(), cache);
            cache.stats.server_merges.fetch_add(1, Relaxed);
            tried = if cache.dirty_bytes() < before { 0 } else { tried + 1 };
        }
        for table in &tables {
            if !cache.over_target() {
                break;
            }
            if let Some(tree) = table.tree() {
                cache.stats.pages_evicted_server.fetch_add(tree.evict_to_target(), Relaxed);
            }
        }
    }
}
