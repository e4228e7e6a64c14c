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

/// Prefixes of the reference's data sources that later issues implement (`colgroup:` and
/// `index:` objects are parsed by the schema layer before this).
const LATER: &[&str] =
    &["statistics:", "file:", "colgroup:", "index:", "metadata:", "log:", "backup:", "join:", "lsm:", "tiered:", "config:"];

impl<'a> Uri<'a> {
    /// Splits `uri`; an unknown prefix is `ENOTSUP` "unknown object type".
    pub fn parse(uri: &'a str) -> Result<Uri<'a>> {
        if let Some(name) = uri.strip_prefix("table:") {
            // The reference creates "table:" with no name; its documentation gives table URIs
            // as `table:<table name>` and stores a table in "<table name>.wt", so an empty
            // name is not a table name and is refused here.
            if name.is_empty() {
                return Err(Error::invalid(format!("{uri}: invalid table name")));
            }
            return Ok(Uri::Table(name));
        }
        if let Some(rest) = uri.strip_prefix("colgroup:") {
            // `colgroup:T:NAME` is stored as a table of that name (`schema::layout`);
            // `colgroup:T`, the one column group of a table that declared none, is the table.
            if !rest.is_empty() {
                return Ok(Uri::Table(if rest.contains(':') { uri } else { rest }));
            }
        }
        if LATER.iter().any(|p| uri.starts_with(p)) {
            return Ok(Uri::NotYet(uri));
        }
        Err(Error::unsupported(format!("unknown object type: {uri}")))
    }
}

/// Characters the reference refuses in object names (quoting and grouping characters of the
/// configuration language: a name is written into configuration strings).
const GROUPING: &[char] = &['{', '}', ',', ':', '[', ']', '\\', '"', '\''];

/// The reference's name check of `create`, `drop` (and its other schema calls): the part after
/// the URI prefix, or after the second `:` when there is one (`index:t:i` checks `i`), must not
/// contain grouping characters; only that second form is kept out of the "WiredTiger" name
/// space.
pub fn check_name(uri: &str) -> Result<()> {
    let mut name = uri;
    let mut after_two = true;
    for _ in 0..2 {
        match name.split_once(':') {
            Some((_, rest)) => name = rest,
            None => {
                after_two = false;
                break;
            }
        }
    }
    if after_two && name.starts_with("WiredTiger") {
        return Err(Error::invalid(format!(
            "{name}: the \"WiredTiger\" name space may not be used by applications"
        )));
    }
    if name.contains(GROUPING) {
        return Err(Error::invalid(format!(
            "{name}: WiredTiger objects should not include grouping characters in their names"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_grouping_characters_are_refused() {
        for uri in ["table:a,b", "table:a{b", "table:a}b", "table:a[b", "table:a]b", "table:a\\b",
                    "table:a\"b", "table:a'b", "table:ab,", "table:a:b:c,d", "table:a:b:c"] {
            let e = check_name(uri).unwrap_err();
            assert_eq!(e.code(), 22, "{uri}");
            assert!(e.to_string().contains("should not include grouping characters"), "{uri}: {e}");
        }
        for uri in ["table:a=b", "table:a(b", "table:a)b", "table:a b", "table:a/b", "table:.b",
                    "table:WiredTigerX", "table:", "table:a:b"] {
            assert!(check_name(uri).is_ok(), "{uri}");
        }
        let e = check_name("table:t:WiredTiger").unwrap_err();
        assert!(e.to_string().contains("name space may not be used"), "{e}");
        assert_eq!(
            check_name("table:a,b").unwrap_err().to_string(),
            "a,b: WiredTiger objects should not include grouping characters in their names: Invalid argument"
        );
    }

    #[test]
    fn an_empty_table_name_is_refused() {
        // Decision documented in `Uri::parse`: the documentation requires a table name.
        let e = Uri::parse("table:").unwrap_err();
        assert_eq!(e.code(), 22);
        assert_eq!(e.to_string(), "table:: invalid table name: Invalid argument");
    }
}
