//! The URIs the API accepts, split into what they name.

use crate::error::{Error, Result};

/// A parsed object URI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Uri<'a> {
    /// `table:NAME`.
    Table(&'a str),
    /// A data source this engine knows but does not offer yet (`statistics:`, `file:`, …).
    NotYet(&'a str),
}

/// Prefixes of the reference's data sources that later issues implement.
const LATER: &[&str] =
    &["statistics:", "file:", "colgroup:", "index:", "metadata:", "log:", "backup:", "join:", "lsm:", "tiered:", "config:"];

impl<'a> Uri<'a> {
    /// Splits `uri`; an unknown prefix is `ENOTSUP` "unknown object type".
    pub fn parse(uri: &'a str) -> Result<Uri<'a>> {
        if let Some(name) = uri.strip_prefix("table:") {
            if name.is_empty() {
                return Err(Error::invalid(format!("{uri}: invalid table name")));
            }
            return Ok(Uri::Table(name));
        }
        if LATER.iter().any(|p| uri.starts_with(p)) {
            return Ok(Uri::NotYet(uri));
        }
        Err(Error::unsupported(format!("unknown object type: {uri}")))
    }
}
