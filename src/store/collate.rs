//! Tables ordered by a collator (`collator=NAME` at create): the application's comparison
//! instead of `memcmp` of the packed key bytes.
//!
//! A collated table's [`Collator`] names the collator and finds the registered [`Collate`] at
//! its first use ([`Collator::resolve`]: a database reopens before the application registers
//! its collators again, as for compressors). Every structure that orders keys asks it: the
//! ordered index (no heads: every comparison is a call), the index's point look-ups (through
//! the ordered index: the hash index holds nothing, since keys equal under the collator may
//! differ in bytes), the tree's pages (search, merges, verify), the layers' merged order, and
//! the cursor's bounds and ranges. Tables without a collator keep the bytewise paths; the
//! collated ones are chosen by one test of the table's `Option<&Collator>`.
//!
//! The structures compare without an error path (a lock-free descent cannot stop half way):
//! a comparison that fails records its error for the thread ([`take_failure`]) and answers
//! `Equal`, and the operation that made it reports the error (`Collator::check`).

use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result};

/// A comparison of keys (the C layer wraps the application's `WT_COLLATOR`).
pub trait Collate: Send + Sync {
    /// Orders packed keys `a` and `b` for the session whose token is `caller` (0: work of no
    /// session: merges, verify, recovery).
    fn compare(&self, caller: usize, a: &[u8], b: &[u8]) -> Result<Ordering>;

    /// The collator to use for object `uri` instead of this one (`WT_COLLATOR::customize`
    /// with the object's `app_metadata`; `caller` is the session's token), or None for this
    /// one. A customized collator belongs to the object (the C layer terminates it when the
    /// object lets go of it).
    fn customize(&self, _caller: usize, _uri: &str, _app_metadata: &str) -> Result<Option<Arc<dyn Collate>>> {
        Ok(None)
    }

    /// The collator as `Any`, for the layer that made it to find its own type again (the C
    /// layer hands an application's `WT_COLLATOR` back to it); None for the others.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

thread_local! {
    /// The first error a comparison of this thread met since the last [`take_failure`].
    static FAILED: RefCell<Option<Error>> = const { RefCell::new(None) };
    /// The token of the session this thread compares for ([`enter`]; 0 outside) and how many
    /// scopes are open.
    static CALLER: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// From here to [`leave`], the comparisons of this thread are made for the session whose token
/// is `caller` (the structures compare through no session argument; the application's collator
/// gets it). A call inside another's scope keeps the outer caller.
pub fn enter(caller: usize) {
    let (outer, depth) = CALLER.get();
    CALLER.set((if depth == 0 { caller } else { outer }, depth + 1));
}

/// Ends what [`enter`] began; outside every scope comparisons are made for no session.
pub fn leave() {
    let (outer, depth) = CALLER.get();
    CALLER.set(if depth <= 1 { (0, 0) } else { (outer, depth - 1) });
}

/// Forgets what a call that panicked left in this thread's comparison state (an open
/// [`enter`] scope, a recorded failure), so that no later call compares for its session or
/// reports its failure.
pub fn forget_thread_state() {
    CALLER.set((0, 0));
    let _ = take_failure();
}

/// `f`, its comparisons made for session `caller`; the error one of them met, if any, is the
/// outcome (the structures compare without an error path).
pub fn within<T>(caller: usize, f: impl FnOnce() -> Result<T>) -> Result<T> {
    enter(caller);
    let out = f();
    leave();
    Collator::check().and(out)
}

/// The error the thread's comparisons met since the last call, if any.
pub fn take_failure() -> Option<Error> {
    FAILED.with(|f| f.borrow_mut().take())
}

/// Whether a comparison of this thread failed since the last [`take_failure`].
pub fn failed() -> bool {
    FAILED.with(|f| f.borrow().is_some())
}

fn fail(e: Error) {
    FAILED.with(|f| {
        f.borrow_mut().get_or_insert(e);
    });
}

/// A table's collator: its name, and the registered comparison once found.
pub struct Collator {
    name: String,
    /// The object's URI and `app_metadata`, for `customize`.
    uri: String,
    app_metadata: String,
    found: OnceLock<Arc<dyn Collate>>,
}

impl fmt::Debug for Collator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Collator({})", self.name)
    }
}

impl Collator {
    /// Collator `name` of object `uri` (with its `app_metadata`), not found yet.
    pub fn named(name: &str, uri: &str, app_metadata: &str) -> Collator {
        Collator { name: name.to_string(), uri: uri.to_string(), app_metadata: app_metadata.to_string(), found: OnceLock::new() }
    }

    /// A collator already found (tests, and `create` after its check).
    pub fn with(name: &str, imp: Arc<dyn Collate>) -> Collator {
        let c = Collator::named(name, "", "");
        let _ = c.found.set(imp);
        c
    }

    /// The name the table was created with.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the comparison was found ([`resolve`](Self::resolve)).
    pub fn is_resolved(&self) -> bool {
        self.found.get().is_some()
    }

    /// Finds the comparison through `lookup` (the registered collator of that name),
    /// customized for the object when it customizes, unless found before: `EINVAL` "unknown
    /// collator" while none is registered. `caller` is the session's token.
    pub fn resolve(&self, caller: usize, lookup: impl FnOnce(&str) -> Option<Arc<dyn Collate>>) -> Result<()> {
        if self.found.get().is_some() {
            return Ok(());
        }
        let registered = lookup(&self.name).ok_or_else(|| unknown(&self.name))?;
        let imp = registered.customize(caller, &self.uri, &self.app_metadata)?.unwrap_or(registered);
        // A session that resolved it meanwhile wins; this one's customized copy is dropped.
        let _ = self.found.set(imp);
        Ok(())
    }

    /// Orders `a` and `b`; a failed comparison (or a collator not found yet) is recorded for
    /// the thread ([`take_failure`]) and answers `Equal`.
    #[inline(never)]
    pub fn order(&self, a: &[u8], b: &[u8]) -> Ordering {
        let result = match self.found.get() {
            Some(imp) => imp.compare(CALLER.get().0, a, b),
            None => Err(unknown(&self.name)),
        };
        result.unwrap_or_else(|e| {
            fail(e);
            Ordering::Equal
        })
    }

    /// The error a comparison of this thread met since the last check, if any.
    pub fn check() -> Result<()> {
        match take_failure() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The reference's error for a collator that is not registered.
pub fn unknown(name: &str) -> Error {
    Error::invalid(format!("unknown collator '{name}'"))
}

/// How a table orders keys: bytewise (`None`) or by its collator.
pub type Order<'a> = Option<&'a Collator>;

/// Orders `a` and `b` as `order` does.
#[inline(always)]
pub fn cmp(order: Order<'_>, a: &[u8], b: &[u8]) -> Ordering {
    match order {
        None => a.cmp(b),
        Some(c) => c.order(a, b),
    }
}

/// Whether `key` starts with `prefix` as `order` sees it: with a collator, the key cut to the
/// prefix's length compares equal to it (the reference's test of an index entry against the
/// key an index cursor searches).
#[inline(always)]
pub fn starts_with(order: Order<'_>, key: &[u8], prefix: &[u8]) -> bool {
    match order {
        None => key.starts_with(prefix),
        Some(c) => key.len() >= prefix.len() && c.order(&key[..prefix.len()], prefix).is_eq(),
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Collators for tests.
    use super::*;

    /// Reverse byte order.
    pub struct Reverse;
    impl Collate for Reverse {
        fn compare(&self, _: usize, a: &[u8], b: &[u8]) -> Result<Ordering> {
            Ok(b.cmp(a))
        }
    }

    /// ASCII case-insensitive order.
    pub struct NoCase;
    impl Collate for NoCase {
        fn compare(&self, _: usize, a: &[u8], b: &[u8]) -> Result<Ordering> {
            Ok(a.iter().map(u8::to_ascii_lowercase).cmp(b.iter().map(u8::to_ascii_lowercase)))
        }
    }

    /// A collator for tests.
    pub fn collator(imp: impl Collate + 'static) -> Arc<Collator> {
        Arc::new(Collator::with("test", Arc::new(imp)))
    }
}
