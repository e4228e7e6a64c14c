//! Typed errors of the core, and their one mapping to the C API's integer codes.
//!
//! Core code returns `Result<T, Error>`; the C layer turns an `Error` into a code (and reports
//! its message through the event handler) in exactly one place, `capi::boundary`.

use std::borrow::Cow;
use std::fmt;

/// The reference's return codes (`wiredtiger.h`), plus the errno values the API uses.
#[allow(missing_docs)] // the names are the reference's macros
pub mod code {
    pub const WT_ROLLBACK: i32 = -31800;
    pub const WT_DUPLICATE_KEY: i32 = -31801;
    pub const WT_ERROR: i32 = -31802;
    pub const WT_NOTFOUND: i32 = -31803;
    pub const WT_PANIC: i32 = -31804;
    pub const WT_RESTART: i32 = -31805;
    pub const WT_RUN_RECOVERY: i32 = -31806;
    pub const WT_CACHE_FULL: i32 = -31807;
    pub const WT_PREPARE_CONFLICT: i32 = -31808;
    pub const WT_TRY_SALVAGE: i32 = -31809;
    pub const ENOENT: i32 = libc::ENOENT;
    pub const ENOMEM: i32 = libc::ENOMEM;
    pub const EBUSY: i32 = libc::EBUSY;
    pub const EEXIST: i32 = libc::EEXIST;
    pub const EINVAL: i32 = libc::EINVAL;
    pub const ENOTSUP: i32 = libc::ENOTSUP;
}

/// What went wrong, as the API reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `WT_NOTFOUND`: no such record (cursor methods only).
    NotFound,
    /// `WT_DUPLICATE_KEY`: insert of an existing key with `overwrite=false`.
    DuplicateKey,
    /// `WT_ROLLBACK`: conflict with a concurrent transaction.
    Rollback,
    /// `WT_PREPARE_CONFLICT`: a read met a prepared transaction's update.
    PrepareConflict,
    /// `WT_ERROR`: a non-specific failure (e.g. out of sessions).
    Generic,
    /// `WT_PANIC`: an internal invariant broke (a caught Rust panic).
    Panic,
    /// `WT_TRY_SALVAGE`: the home holds no usable database.
    TrySalvage,
    /// `WT_CACHE_FULL`: an in-memory database has no room left in its `cache_size`.
    CacheFull,
    /// `EINVAL`: a bad argument, configuration or state.
    Invalid,
    /// `ENOTSUP`: an operation this engine or this handle does not support.
    NotSupported,
    /// `ENOENT`: the object does not exist.
    NoEntry,
    /// `EBUSY`: the object is in use.
    Busy,
    /// `EEXIST`: the object already exists.
    Exists,
    /// `ENOMEM`: a buffer is too small, or the memory a request needs is not to be had.
    NoSpace,
    /// An operating-system error (the errno value): a failed read, write or sync of a
    /// database file (`ENOSPC` for a full disk).
    Os(i32),
}

impl Kind {
    /// The integer the C API returns for this kind.
    pub fn code(self) -> i32 {
        use code::*;
        match self {
            Kind::NotFound => WT_NOTFOUND,
            Kind::DuplicateKey => WT_DUPLICATE_KEY,
            Kind::Rollback => WT_ROLLBACK,
            Kind::PrepareConflict => WT_PREPARE_CONFLICT,
            Kind::Generic => WT_ERROR,
            Kind::Panic => WT_PANIC,
            Kind::TrySalvage => WT_TRY_SALVAGE,
            Kind::CacheFull => WT_CACHE_FULL,
            Kind::Invalid => EINVAL,
            Kind::NotSupported => ENOTSUP,
            Kind::NoEntry => ENOENT,
            Kind::Busy => EBUSY,
            Kind::Exists => EEXIST,
            Kind::NoSpace => ENOMEM,
            Kind::Os(errno) => errno,
        }
    }

    /// The kind of a code an application callback returned (an extractor's, an extension's
    /// entry function): the reference's codes by name, other errno values as they are, other
    /// negative codes `WT_ERROR`. 0 is not an error and has no kind.
    pub fn from_code(rc: i32) -> Kind {
        use code::*;
        match rc {
            WT_NOTFOUND => Kind::NotFound,
            WT_DUPLICATE_KEY => Kind::DuplicateKey,
            WT_ROLLBACK => Kind::Rollback,
            WT_PREPARE_CONFLICT => Kind::PrepareConflict,
            WT_PANIC => Kind::Panic,
            WT_TRY_SALVAGE => Kind::TrySalvage,
            WT_CACHE_FULL => Kind::CacheFull,
            EINVAL => Kind::Invalid,
            ENOTSUP => Kind::NotSupported,
            ENOENT => Kind::NoEntry,
            EBUSY => Kind::Busy,
            EEXIST => Kind::Exists,
            ENOMEM => Kind::NoSpace,
            rc if rc > 0 => Kind::Os(rc),
            _ => Kind::Generic,
        }
    }
}

/// An error: its kind plus the messages the event handler receives (none for the quiet ones,
/// such as `WT_NOTFOUND` or a missing object). Two words, so a `Result<(), Error>` comes back
/// in registers on the hot paths; messages live behind one pointer, allocated only when set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: Kind,
    #[allow(clippy::box_collection)] // one pointer keeps `Result<(), Error>` in registers
    messages: Option<Box<Vec<Cow<'static, str>>>>,
}

/// Result alias used across the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error that reports no message.
    pub const fn quiet(kind: Kind) -> Self {
        Error { kind, messages: None }
    }

    /// An error with one message.
    pub fn new(kind: Kind, message: impl Into<Cow<'static, str>>) -> Self {
        Error { kind, messages: Some(Box::new(vec![message.into()])) }
    }

    /// `EINVAL` with a message.
    pub fn invalid(message: impl Into<Cow<'static, str>>) -> Self {
        Error::new(Kind::Invalid, message)
    }

    /// `ENOTSUP` with a message.
    pub fn unsupported(message: impl Into<Cow<'static, str>>) -> Self {
        Error::new(Kind::NotSupported, message)
    }

    /// A failed file operation: the errno of `e` (`EIO` when it has none), with a message
    /// naming what failed (`what`, e.g. the file and the call).
    pub fn io(what: impl fmt::Display, e: &std::io::Error) -> Self {
        let errno = e.raw_os_error().unwrap_or(libc::EIO);
        Error::new(Kind::Os(errno), format!("{what}: {}", os_strerror(errno)))
    }

    /// The error's kind.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The API return code.
    pub fn code(&self) -> i32 {
        self.kind.code()
    }

    /// Messages for the event handler, in order.
    pub fn messages(&self) -> impl Iterator<Item = &str> {
        self.messages.iter().flat_map(|m| m.iter()).map(|m| m.as_ref())
    }

    /// Whether this is `WT_NOTFOUND`.
    pub fn is_not_found(&self) -> bool {
        self.kind == Kind::NotFound
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.messages().next() {
            Some(m) => write!(f, "{m}: {}", strerror(self.code())),
            None => f.write_str(&strerror(self.code())),
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::pack::PackError> for Error {
    fn from(e: crate::pack::PackError) -> Self {
        let kind = if e.errno() == code::ENOMEM { Kind::NoSpace } else { Kind::Invalid };
        match e.message() {
            Some(m) => Error::new(kind, m),
            None => Error::quiet(kind),
        }
    }
}

impl From<crate::config::ConfigError> for Error {
    fn from(e: crate::config::ConfigError) -> Self {
        Error {
            kind: Kind::Invalid,
            messages: Some(Box::new(e.messages().iter().cloned().map(Cow::Owned).collect())),
        }
    }
}

/// The text for a return code, as `wiredtiger_strerror` gives it.
pub fn strerror(code: i32) -> Cow<'static, str> {
    use code::*;
    Cow::Borrowed(match code {
        0 => "Successful return: 0",
        WT_ROLLBACK => "WT_ROLLBACK: conflict between concurrent operations",
        WT_DUPLICATE_KEY => "WT_DUPLICATE_KEY: attempt to insert an existing key",
        WT_ERROR => "WT_ERROR: non-specific WiredTiger error",
        WT_NOTFOUND => "WT_NOTFOUND: item not found",
        WT_PANIC => "WT_PANIC: WiredTiger library panic",
        WT_RESTART => "WT_RESTART: restart the operation (internal)",
        WT_RUN_RECOVERY => "WT_RUN_RECOVERY: recovery must be run to continue",
        WT_CACHE_FULL => "WT_CACHE_FULL: operation would overflow cache",
        WT_PREPARE_CONFLICT => "WT_PREPARE_CONFLICT: conflict with a prepared update",
        WT_TRY_SALVAGE => "WT_TRY_SALVAGE: database corruption detected",
        ENOTSUP => "Operation not supported",
        c if c > 0 => return Cow::Owned(os_strerror(c)),
        c => return Cow::Owned(format!("error return: {c}")),
    })
}

/// The C library's text for an errno value.
fn os_strerror(code: i32) -> String {
    // std formats OS errors as "<text> (os error N)"; keep the text only.
    let text = std::io::Error::from_raw_os_error(code).to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strerror_matches_the_reference_texts() {
        assert_eq!(strerror(0), "Successful return: 0");
        assert_eq!(strerror(-31803), "WT_NOTFOUND: item not found");
        assert_eq!(strerror(-31800), "WT_ROLLBACK: conflict between concurrent operations");
        assert_eq!(strerror(95), "Operation not supported");
        assert_eq!(strerror(22), "Invalid argument");
        assert_eq!(strerror(16), "Device or resource busy");
        assert_eq!(strerror(2), "No such file or directory");
        assert_eq!(strerror(12345), "Unknown error 12345");
        assert_eq!(strerror(-31850), "error return: -31850");
    }

    #[test]
    fn errors_are_two_words() {
        assert_eq!(std::mem::size_of::<Error>(), 16);
        assert_eq!(std::mem::size_of::<Result<(), Error>>(), 16);
    }

    #[test]
    fn kinds_map_to_codes() {
        assert_eq!(Error::quiet(Kind::NotFound).code(), -31803);
        assert_eq!(Error::invalid("x").code(), 22);
        assert_eq!(Error::quiet(Kind::Busy).code(), 16);
    }
}
