//! The connection: settings, the table registry and the fixed array of session slots.

mod home;
mod settings;
mod slots;

use home::HomeClaim;

pub use settings::Settings;
pub use slots::SessionSlots;

use std::ffi::CString;
use std::path::Path;
use std::sync::Arc;

use parking_lot::RwLock;

use crate::config::{self, Method};
use crate::error::{Error, Kind, Result};
use crate::schema::Registry;
use crate::txn::TxnShared;

/// Sessions the reference reserves beyond `session_max` for its own threads; applications
/// observed one application session per slot of this allowance (api.md, `open_session`).
const INTERNAL_SESSIONS: usize = 22;

/// An open database.
pub struct Connection {
    /// Released when the connection drops, so the home can be opened again.
    _home_claim: HomeClaim,
    home: CString,
    is_new: bool,
    settings: Settings,
    error_prefix: RwLock<String>,
    registry: Registry,
    slots: SessionSlots,
    /// Commit clock, the sessions' published snapshots, reclamation left by closed sessions.
    txn: Arc<TxnShared>,
}

impl Connection {
    /// `wiredtiger_open`: validates the configuration and opens the database in `home`
    /// (`None` means ".").
    pub fn open(home: Option<&str>, config: Option<&str>) -> Result<Connection> {
        let cfg = config::validate(Method::WiredtigerOpen, config, Some(&crate::schema::check_format))?;
        let settings = Settings::from_open(&cfg)?;
        let home_str = home.unwrap_or(".");
        if home.is_some() && !Path::new(home_str).is_dir() {
            return Err(Error::new(
                Kind::TrySalvage,
                format!("{home_str}/WiredTiger.lock: handle-open: open: No such file or directory"),
            ));
        }
        if !settings.in_memory {
            return Err(Error::unsupported(
                "on-disk databases are not supported yet: open with in_memory=true",
            ));
        }
        let capacity = settings.session_max + INTERNAL_SESSIONS;
        let home_claim = HomeClaim::new(home_str)?;
        Ok(Connection {
            _home_claim: home_claim,
            home: CString::new(home_str).map_err(|_| Error::invalid("home contains a NUL byte"))?,
            is_new: true,
            error_prefix: RwLock::new(cfg.str("error_prefix").to_string()),
            settings,
            registry: Registry::default(),
            slots: SessionSlots::new(capacity),
            txn: Arc::new(TxnShared::new(capacity)),
        })
    }

    /// The home directory as given ("." for NULL).
    pub fn home(&self) -> &CString {
        &self.home
    }

    /// Whether this open created the database (always true in memory).
    pub fn is_new(&self) -> bool {
        self.is_new
    }

    /// Open-time settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The tables.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The session slots.
    pub fn slots(&self) -> &SessionSlots {
        &self.slots
    }

    /// The transaction state shared by the sessions (each session holds a reference, taken at
    /// open).
    pub fn txn(&self) -> &Arc<TxnShared> {
        &self.txn
    }

    /// The prefix of every error message (read on error paths only).
    pub fn error_prefix(&self) -> String {
        self.error_prefix.read().clone()
    }

    /// `WT_CONNECTION::reconfigure`: only the keys given change.
    pub fn reconfigure(&self, config: Option<&str>) -> Result<()> {
        let cfg = config::validate(Method::ConnReconfigure, config, None)?;
        if cfg.is_set("statistics") {
            settings::check_statistics(&cfg)?;
        }
        if cfg.is_set("error_prefix") {
            *self.error_prefix.write() = cfg.str("error_prefix").to_string();
        }
        Ok(())
    }

    /// Validates the configuration of `WT_CONNECTION::close` (the connection closes anyway).
    pub fn check_close_config(config: Option<&str>) -> Result<()> {
        config::validate(Method::ConnClose, config, None).map(drop).map_err(Error::from)
    }
}
