//! The engine's allocator: mimalloc, with its memory given back to the system promptly.
//!
//! A commit allocates four small blocks (index entry, slot, version, value) that a merge frees
//! later in a batch, and pages are allocated by the thread that missed and freed by whichever
//! thread reclaims their epoch. glibc's allocator served that pattern slowly (a journalled
//! commit spent 1,670 of its 6,240 instructions in `malloc` and `free`, most in consolidating
//! bins) and kept freed memory in per-thread arenas. mimalloc frees a block into its page's own
//! list from any thread; set as below it commits arenas as they are used and gives freed pages
//! back after 100 ms (ARCHITECTURE.md "Dependencies" has the figures).

/// Every allocation of the engine goes to mimalloc (not under Miri, which cannot run its C, nor
/// with the `system-allocator` feature, which the sanitizer tests build).
#[cfg(not(any(miri, feature = "system-allocator")))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_arena_eager_commit` and `mi_option_purge_delay` of `mimalloc.h` (the
/// `mi_option_e` enumeration; the Rust binding names neither).
#[cfg(not(miri))]
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
#[cfg(not(miri))]
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// How long freed memory stays with the allocator before it goes back to the system.
#[cfg(not(miri))]
const PURGE_AFTER_MS: libc::c_long = 100;

/// Sets the allocator's options, once per process, before the first connection opens: arenas
/// are committed as they are used, and freed memory is purged after 100 ms. Purging at once kept
/// the peak lowest but costs an `madvise`, a TLB shootdown on every other core and later page
/// faults each time a page empties: two threads reading a table 8x its cache spent 7% of their
/// time there (1.47x one thread's reads; 1.6x with 10 ms or more), and journalled inserts, whose
/// merges free memory that new rows take again a little later, 15% (0.89 M/s at 10 ms, 0.95 at
/// 100 ms, 1.0 at 1 s, for 8-10 MB more at `evict_stress`'s peak per step). A value the user set
/// through the environment (`MIMALLOC_PURGE_DELAY`, ...) wins.
pub fn configure() {
    #[cfg(not(miri))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: plain calls with option ids of the enumeration and integer values; they
            // touch only the allocator's option table.
            unsafe {
                libmimalloc_sys::mi_option_set_default(PURGE_DELAY, PURGE_AFTER_MS);
                libmimalloc_sys::mi_option_set_default(ARENA_EAGER_COMMIT, 0);
            }
        });
    }
}

#[cfg(all(test, not(miri)))]
mod tests {
    use super::*;

    #[test]
    fn the_options_are_set_unless_the_environment_set_them() {
        configure();
        // SAFETY: reads of the option table.
        let (purge, eager) = unsafe { (libmimalloc_sys::mi_option_get(PURGE_DELAY), libmimalloc_sys::mi_option_get(ARENA_EAGER_COMMIT)) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(purge, PURGE_AFTER_MS);
        }
        if std::env::var_os("MIMALLOC_ARENA_EAGER_COMMIT").is_none() {
            assert_eq!(eager, 0);
        }
    }
}
