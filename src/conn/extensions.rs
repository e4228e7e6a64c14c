//! Extensions the application registers with the connection: collators
//! (`WT_CONNECTION::add_collator`) and compressors (`add_compressor`), by name, index
//! extractors (`add_extractor`, called on every write of a table with such an index), and what
//! to call when the connection closes (their `terminate` methods, and the `terminate` functions
//! of libraries `load_extension` loaded).
//!
//! A table created with a registered block compressor has its blocks compressed by it
//! (`btree::compress`); one created with a registered collator (`collator=NAME`) orders its
//! keys by it in both layers (`store::collate`): its [`Collator`](crate::store::Collator)
//! finds the registered [`Collate`] here by name when a session first uses the table (after a
//! reopen, once the application has registered it again; until then the reference's `EINVAL`
//! "unknown collator 'NAME'", as at `create`).

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::btree::compress::{Compressor, Compressors};
use crate::error::{Error, Result};
use crate::pack::Format;
use crate::store::Collate;

/// An index extractor as the engine calls it (the C layer wraps the application's
/// `WT_EXTRACTOR`). `caller` is the token of the session making the call
/// (`Session::caller`), handed back to the application.
pub trait Extractor: Send + Sync {
    /// Appends to `keys` the index keys of one row (`key` and `value` packed in the table's
    /// formats). Each key is packed in `format`, the index's key format with a padding byte
    /// after it (the reference's: the last column is then encoded as inside a longer key), and
    /// comes back with that byte cut off.
    fn extract(&self, caller: usize, format: &Format, key: &[u8], value: &[u8], keys: &mut Vec<Vec<u8>>) -> Result<()>;

    /// The extractor to use for index `uri` instead of this one (`WT_EXTRACTOR::customize`
    /// with the index's `app_metadata`), or None for this one.
    fn customize(&self, caller: usize, uri: &str, app_metadata: &str) -> Result<Option<Arc<dyn Extractor>>>;
}

/// What kind of extension a name belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtensionKind {
    /// `add_collator`, `collator=` at create.
    Collator,
    /// `add_compressor`, `block_compressor=` at create.
    Compressor,
}

impl ExtensionKind {
    fn noun(self) -> &'static str {
        match self {
            ExtensionKind::Collator => "collator",
            ExtensionKind::Compressor => "compressor",
        }
    }
}

/// Something to run when the connection closes.
pub type Terminate = Box<dyn FnOnce() + Send>;

/// The connection's registered extensions.
#[derive(Default)]
pub struct Extensions {
    /// Registered collators by name (the first registration of a name stays).
    collators: Mutex<HashMap<String, Arc<dyn Collate>>>,
    /// Shared with the on-disk trees, which find their compressor here at first use.
    compressors: Arc<Compressors>,
    /// Registered extractors by name (the first registration of a name is the one found, as
    /// in the reference).
    extractors: Mutex<HashMap<String, Arc<dyn Extractor>>>,
    /// The extractor of each index with one, by index URI, resolved at its first use (a
    /// customized one is the index's own: dropping it here terminates it once no cursor holds
    /// it).
    indices: Mutex<HashMap<String, Arc<dyn Extractor>>>,
    /// Run in reverse order of registration at close.
    terminate: Mutex<Vec<Terminate>>,
}

impl Extensions {
    /// The extensions of a connection whose trees find their compressors in `compressors`.
    pub fn new(compressors: Arc<Compressors>) -> Extensions {
        Extensions { compressors, ..Extensions::default() }
    }

    /// Registers collator `name` (registering a name again replaces nothing and succeeds, as
    /// in the reference); `terminate` runs when the connection closes. "none" is refused: it
    /// is the configuration value for no extension.
    pub fn add_collator(&self, name: &str, collate: Arc<dyn Collate>, terminate: Option<Terminate>) -> Result<()> {
        check_name(ExtensionKind::Collator, name)?;
        self.collators.lock().entry(name.to_string()).or_insert(collate);
        self.on_close_opt(terminate);
        Ok(())
    }

    /// Registers `compressor` as `name`, as [`add_collator`](Self::add_collator).
    pub fn add_compressor(&self, name: &str, compressor: Arc<dyn Compressor>, terminate: Option<Terminate>) -> Result<()> {
        check_name(ExtensionKind::Compressor, name)?;
        self.compressors.add(name, compressor);
        self.on_close_opt(terminate);
        Ok(())
    }

    fn on_close_opt(&self, terminate: Option<Terminate>) {
        if let Some(t) = terminate {
            self.terminate.lock().push(t);
        }
    }

    /// The compressor registered as `name`.
    pub fn compressor(&self, name: &str) -> Option<Arc<dyn Compressor>> {
        self.compressors.get(name)
    }

    /// `add_extractor`: registers `extractor` as `name` ("none" is refused, as for the
    /// others); `terminate` runs when the connection closes.
    pub fn add_extractor(&self, name: &str, extractor: Arc<dyn Extractor>, terminate: Option<Terminate>) -> Result<()> {
        if name == "none" {
            return Err(Error::invalid(format!("invalid name for an extractor: {name}")));
        }
        self.extractors.lock().entry(name.to_string()).or_insert(extractor);
        if let Some(t) = terminate {
            self.terminate.lock().push(t);
        }
        Ok(())
    }

    /// The extractor of index `uri`, configured `extractor=name` with `app_metadata`: the one
    /// already resolved for it, else the registered one, customized for the index when it
    /// customizes. An unregistered name is the reference's `EINVAL`.
    pub fn index_extractor(&self, caller: usize, uri: &str, name: &str, app_metadata: &str) -> Result<Arc<dyn Extractor>> {
        if let Some(found) = self.indices.lock().get(uri) {
            return Ok(Arc::clone(found));
        }
        let registered = self.extractor(name)?;
        // Customized outside the lock: the application's code runs there.
        let resolved = registered.customize(caller, uri, app_metadata)?.unwrap_or(registered);
        Ok(Arc::clone(self.indices.lock().entry(uri.to_string()).or_insert(resolved)))
    }

    /// The extractor registered as `name` (`EINVAL` "unknown extractor" when none is).
    pub fn extractor(&self, name: &str) -> Result<Arc<dyn Extractor>> {
        self.extractors.lock().get(name).cloned().ok_or_else(|| Error::invalid(format!("unknown extractor '{name}'")))
    }

    /// Forgets the extractor resolved for index `uri` (dropped or renamed): a customized one
    /// terminates when the last cursor using it lets go.
    pub fn forget_index(&self, uri: &str) {
        let gone = self.indices.lock().remove(uri);
        drop(gone);
    }

    /// The collator registered as `name`.
    pub fn collator(&self, name: &str) -> Option<Arc<dyn Collate>> {
        self.collators.lock().get(name).cloned()
    }

    /// Runs `f` when the connection closes (a loaded library's terminate function).
    pub fn on_close(&self, f: Terminate) {
        self.terminate.lock().push(f);
    }

    /// The `create` check of `collator=` / `block_compressor=`: empty or "none" is fine; an
    /// unregistered name is the reference's `EINVAL`.
    pub fn check_create(&self, kind: ExtensionKind, name: &str) -> Result<()> {
        if name.is_empty() || name == "none" {
            return Ok(());
        }
        let known = match kind {
            ExtensionKind::Collator => self.collators.lock().contains_key(name),
            ExtensionKind::Compressor => self.compressors.contains(name),
        };
        if !known {
            return Err(Error::invalid(format!("unknown {} '{name}'", kind.noun())));
        }
        Ok(())
    }

    /// Runs every close action, newest first (the connection is closing), after the indices'
    /// own extractors have terminated (the reference closes its tables first).
    pub fn terminate(&self) {
        let indices = std::mem::take(&mut *self.indices.lock());
        drop(indices);
        self.extractors.lock().clear();
        self.collators.lock().clear();
        self.compressors.clear();
        let actions = std::mem::take(&mut *self.terminate.lock());
        for action in actions.into_iter().rev() {
            action();
        }
    }

}

/// "none" is the configuration value for no extension: refused as a name.
fn check_name(kind: ExtensionKind, name: &str) -> Result<()> {
    if name == "none" {
        return Err(Error::invalid(format!("invalid name for a {}: {name}", kind.noun())));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Kind;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    #[test]
    fn names_checks_and_terminate_order() {
        let ext = Extensions::default();
        let nocase: Arc<dyn Collate> = Arc::new(crate::store::collate::testing::NoCase);
        assert_eq!(ext.add_collator("none", nocase.clone(), None).unwrap_err().kind(), Kind::Invalid);
        let order = Arc::new(AtomicU32::new(0));
        let (a, b) = (Arc::clone(&order), Arc::clone(&order));
        ext.add_collator("nocase", nocase, Some(Box::new(move || assert_eq!(a.fetch_add(1, Ordering::SeqCst), 1)))).unwrap();
        let nop = Arc::new(Nop);
        assert_eq!(ext.add_compressor("none", nop.clone(), None).unwrap_err().kind(), Kind::Invalid);
        ext.add_compressor("nop", nop, Some(Box::new(move || assert_eq!(b.fetch_add(1, Ordering::SeqCst), 0)))).unwrap();
        ext.check_create(ExtensionKind::Collator, "").unwrap();
        ext.check_create(ExtensionKind::Compressor, "none").unwrap();
        assert_eq!(ext.check_create(ExtensionKind::Collator, "nop").unwrap_err().kind(), Kind::Invalid);
        ext.check_create(ExtensionKind::Collator, "nocase").unwrap();
        assert!(ext.collator("nocase").is_some() && ext.collator("nop").is_none());
        ext.check_create(ExtensionKind::Compressor, "nop").unwrap();
        assert_eq!(ext.check_create(ExtensionKind::Compressor, "nocase").unwrap_err().kind(), Kind::Invalid);
        ext.terminate();
        assert_eq!(ext.check_create(ExtensionKind::Compressor, "nop").unwrap_err().kind(), Kind::Invalid);
        ext.terminate();
        assert_eq!(order.load(Ordering::SeqCst), 2);
    }

    /// A compressor that never compresses.
    struct Nop;

    impl Compressor for Nop {
        fn compress(&self, _: &[u8], _: &mut Vec<u8>) -> Result<bool> {
            Ok(false)
        }

        fn decompress(&self, _: &[u8], _: &mut [u8]) -> Result<usize> {
            Ok(0)
        }
    }

    /// An extractor that counts its customizations and, customized, its drops.
    struct Counting {
        customized: Arc<AtomicU32>,
        dropped: Arc<AtomicU32>,
        owned: bool,
    }

    impl Extractor for Counting {
        fn extract(&self, _: usize, _: &Format, _: &[u8], _: &[u8], keys: &mut Vec<Vec<u8>>) -> Result<()> {
            keys.push(b"k".to_vec());
            Ok(())
        }

        fn customize(&self, _: usize, uri: &str, _: &str) -> Result<Option<Arc<dyn Extractor>>> {
            self.customized.fetch_add(1, Ordering::SeqCst);
            let own = || Counting { customized: Arc::clone(&self.customized), dropped: Arc::clone(&self.dropped), owned: true };
            Ok(uri.ends_with("own").then(|| Arc::new(own()) as Arc<dyn Extractor>))
        }
    }

    impl Drop for Counting {
        fn drop(&mut self) {
            if self.owned {
                self.dropped.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    #[test]
    fn extractors_resolve_once_per_index_and_customized_ones_go_with_it() {
        let ext = Extensions::default();
        let (customized, dropped) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)));
        let x = Arc::new(Counting { customized: Arc::clone(&customized), dropped: Arc::clone(&dropped), owned: false });
        assert_eq!(ext.add_extractor("none", x.clone(), None).unwrap_err().kind(), Kind::Invalid);
        ext.add_extractor("x", x, None).unwrap();
        assert_eq!(ext.index_extractor(0, "index:t:a", "nope", "").err().map(|e| e.kind()), Some(Kind::Invalid));
        ext.index_extractor(0, "index:t:a", "x", "").unwrap();
        ext.index_extractor(0, "index:t:a", "x", "").unwrap();
        let own = ext.index_extractor(0, "index:t:own", "x", "").unwrap();
        assert_eq!(customized.load(Ordering::SeqCst), 2);
        ext.forget_index("index:t:own");
        assert_eq!(dropped.load(Ordering::SeqCst), 0, "a holder keeps it");
        drop(own);
        assert_eq!(dropped.load(Ordering::SeqCst), 1);
        ext.index_extractor(0, "index:t:own", "x", "").unwrap();
        ext.terminate();
        assert_eq!(dropped.load(Ordering::SeqCst), 2);
    }
}
