//! Injected file-system failures (tests): the write budget of a full disk, and a plan that
//! fails chosen or seeded-random calls of the kinds it names (`write`, `fsync`, `rename`,
//! `ftruncate`, `pread`), a failed write optionally writing a prefix of its bytes first (a short
//! write), a failed read optionally returning a prefix of its bytes as if the file ended there
//! (a short read).
//!
//! Every write, sync, rename and truncate of the engine's files goes through [`Disk`]
//! (`super::disk`), which asks [`Faults::check`] first; so do the reads of page images (table
//! files), of the journal in recovery and of the table list and checkpoint files at open.
//! Unarmed (always, outside tests), that is one relaxed load and a branch per call. No C API
//! reaches it.
//!
//! [`Disk`]: super::disk::Disk

use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

/// A kind of file-system call a plan can fail (bits of [`Plan::calls`]).
/// cbindgen:ignore
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Call {
    /// Writes (positioned or not) of any file.
    Write = 1,
    /// `fdatasync` of a file and `fsync` of a directory.
    Sync = 2,
    /// Renames (a temporary file over its final name).
    Rename = 4,
    /// `ftruncate`.
    Truncate = 8,
    /// Reads (`pread`, or reads of a file from its start).
    Read = 16,
}

/// Every kind of call that changes files (reads have plans of their own: a workload that
/// writes does not expect its reads to fail).
pub const ALL_CALLS: u8 = Call::Write as u8 | Call::Sync as u8 | Call::Rename as u8 | Call::Truncate as u8;

/// Which calls fail, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The kinds of call counted and failed ([`Call`] bits).
    pub calls: u8,
    /// Fails the `at`-th counted call (1 for the first after the plan was set).
    pub at: Option<u64>,
    /// Fails each counted call with probability `1 / one_in` (0: never), drawn from `seed`.
    pub one_in: u64,
    /// Seeds the random choices (of `one_in` and of short writes' lengths).
    pub seed: u64,
    /// A failed write first writes a prefix of its bytes; a failed read, instead of failing,
    /// returns a prefix of its bytes and then reads the file as ending there (`seed` chooses
    /// the length).
    pub short: bool,
    /// The error the failed call returns.
    pub errno: i32,
    /// The most faults the plan injects.
    pub max: u64,
}

impl Plan {
    /// Fails call number `at` (counted over `calls`) with `EIO`, once.
    pub fn at(calls: u8, at: u64) -> Plan {
        Plan { calls, at: Some(at), one_in: 0, seed: 0, short: false, errno: libc::EIO, max: 1 }
    }

    /// Fails each call of `calls` with probability `1 / one_in`, at most `max` times, with
    /// `EIO`; `seed` makes the choice repeatable.
    pub fn random(calls: u8, one_in: u64, seed: u64, max: u64) -> Plan {
        Plan { calls, at: None, one_in, seed, short: false, errno: libc::EIO, max }
    }
}

/// What a failed call does before it returns `errno`: a write keeps its first `keep` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Injected {
    /// The call's error.
    pub errno: i32,
    /// Bytes of a write written before it fails.
    pub keep: usize,
    /// A read returns `keep` bytes, no error, and the file reads as ending there.
    pub short_read: bool,
}

/// The connection's injected failures: shared by the home's and the journal directory's
/// [`Disk`](super::disk::Disk) so that one plan counts the calls of both.
#[derive(Default)]
pub struct Faults {
    /// Whether a budget or a plan is set (the only thing an unarmed call reads).
    armed: AtomicBool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Bytes writes may still add (`None`: no limit); then they fail with `ENOSPC`.
    budget: Option<u64>,
    plan: Option<Plan>,
    rng: u64,
    /// Calls the plan counted, and faults it injected.
    counted: u64,
    injected: u64,
}

/// Counters of a plan (tests report them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultCounts {
    /// Calls of the plan's kinds made since it was set.
    pub counted: u64,
    /// Of those, the calls it failed.
    pub injected: u64,
}

impl Faults {
    /// Lets writes add only `bytes` more bytes; then they fail with `ENOSPC` (`None`: no limit).
    pub fn limit_writes(&self, bytes: Option<u64>) {
        let mut state = self.state.lock();
        state.budget = bytes;
        self.armed.store(state.budget.is_some() || state.plan.is_some(), Ordering::Release);
    }

    /// Sets (`None`: clears) the plan; its counters start again.
    pub fn set_plan(&self, plan: Option<Plan>) {
        let mut state = self.state.lock();
        state.plan = plan;
        state.rng = plan.map_or(0, |p| p.seed);
        state.counted = 0;
        state.injected = 0;
        self.armed.store(state.budget.is_some() || state.plan.is_some(), Ordering::Release);
    }

    /// The current plan's counters.
    pub fn counts(&self) -> FaultCounts {
        let state = self.state.lock();
        FaultCounts { counted: state.counted, injected: state.injected }
    }

    /// Whether `call` (a write of `len` bytes) fails, and how.
    #[inline]
    pub fn check(&self, call: Call, len: usize) -> Option<Injected> {
        if !self.armed.load(Ordering::Relaxed) {
            return None;
        }
        self.check_armed(call, len)
    }

    #[cold]
    fn check_armed(&self, call: Call, len: usize) -> Option<Injected> {
        let mut state = self.state.lock();
        let state = &mut *state;
        if let Some(plan) = state.plan.filter(|p| p.calls & call as u8 != 0) {
            state.counted += 1;
            let hit = if plan.at.is_some() {
                plan.at == Some(state.counted)
            } else {
                plan.one_in > 0 && next(&mut state.rng) % plan.one_in == 0
            };
            if hit && state.injected < plan.max {
                state.injected += 1;
                let partial = plan.short && matches!(call, Call::Write | Call::Read) && len > 0;
                let keep = if partial { (next(&mut state.rng) % len as u64) as usize } else { 0 };
                return Some(Injected { errno: plan.errno, keep, short_read: partial && call == Call::Read });
            }
        }
        if call == Call::Write {
            if let Some(left) = state.budget {
                match left.checked_sub(len as u64) {
                    Some(rest) => state.budget = Some(rest),
                    None => return Some(Injected { errno: libc::ENOSPC, keep: 0, short_read: false }),
                }
            }
        }
        None
    }
}

#[cfg(test)]
thread_local! {
    /// The plan a connection opened on this thread starts with (tests of recovery).
    pub static AT_OPEN: std::cell::Cell<Option<Plan>> = const { std::cell::Cell::new(None) };
}

/// splitmix64: the plan's repeatable random numbers.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_fails_the_chosen_call_once_and_the_budget_runs_out() {
        let f = Faults::default();
        assert_eq!(f.check(Call::Write, 10), None);
        f.set_plan(Some(Plan::at(Call::Sync as u8, 2)));
        assert_eq!(f.check(Call::Write, 10), None);
        assert_eq!(f.check(Call::Sync, 0), None);
        assert_eq!(f.check(Call::Sync, 0), Some(Injected { errno: libc::EIO, keep: 0, short_read: false }));
        assert_eq!(f.check(Call::Sync, 0), None);
        assert_eq!(f.counts(), FaultCounts { counted: 3, injected: 1 });
        f.set_plan(None);
        f.limit_writes(Some(15));
        assert_eq!(f.check(Call::Write, 10), None);
        assert_eq!(f.check(Call::Write, 10), Some(Injected { errno: libc::ENOSPC, keep: 0, short_read: false }));
        f.limit_writes(None);
        assert_eq!(f.check(Call::Write, 10), None);
    }

    #[test]
    fn random_plans_repeat_with_their_seed_and_short_writes_keep_a_prefix() {
        let run = |seed| {
            let f = Faults::default();
            f.set_plan(Some(Plan { short: true, ..Plan::random(ALL_CALLS, 4, seed, 100) }));
            (0..200).map(|_| f.check(Call::Write, 100)).collect::<Vec<_>>()
        };
        let a = run(7);
        assert_eq!(a, run(7));
        assert_ne!(a, run(8));
        let hits: Vec<_> = a.iter().flatten().collect();
        assert!((20..=80).contains(&hits.len()), "{}", hits.len());
        assert!(hits.iter().all(|h| h.keep < 100) && hits.iter().any(|h| h.keep > 0));
    }
}
