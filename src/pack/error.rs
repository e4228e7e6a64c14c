//! Errors of the packing module and how they map to the reference's return codes and messages.

use std::fmt;

const EINVAL: i32 = 22;
const ENOMEM: i32 = 12;

/// The largest key or value the reference stores (`WT_BTREE_MAX_OBJECT_SIZE`); a larger packed
/// result is refused before anything is allocated for it.
pub const MAX_PACKED: u64 = u32::MAX as u64 - 1024;

/// Why a format could not be parsed or a value could not be packed or unpacked.
///
/// `format` strings in the variants are the format text without a leading `.`, because that
/// is what the reference prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackError {
    /// A character that is not a type (also used for a count with no type after it, reported
    /// as `'\0'` like the reference, and for formats that would need too many C arguments).
    InvalidType {
        /// The offending character.
        ch: char,
        /// The format, without a leading `.`.
        format: String,
    },
    /// `0s`: a fixed-length string needs at least one byte.
    FixedStringZero {
        /// The format, without a leading `.`.
        format: String,
    },
    /// `t` width outside 1..=8.
    BitfieldSize {
        /// The format, without a leading `.`.
        format: String,
    },
    /// A count that does not fit in 32 bits (the reference wraps it; we refuse it).
    CountTooLarge {
        /// The count as written.
        count: String,
        /// The format, without a leading `.`.
        format: String,
    },
    /// Packing or unpacking with a format that takes more C arguments than a call can pass.
    TooManyArgs {
        /// C arguments the format takes.
        total: u64,
        /// The format, without a leading `.`.
        format: String,
    },
    /// A packed result larger than the biggest item the reference stores.
    TooLarge {
        /// Bytes the packed result would take.
        size: u64,
    },
    /// `<`, `>` or `@` as the first character of a format of two or more characters.
    BadPrefix,
    /// The packed bytes do not fit in the caller's buffer.
    NoSpace,
    /// Unpack: a bad varint marker, or a field that runs past the end of the buffer.
    /// Pack: an argument of the wrong kind (bytes for an integer field or the reverse).
    Corrupt,
    /// `pack` was given a different number of arguments than the format has C arguments.
    ArgCount {
        /// C arguments the format takes.
        expected: usize,
        /// Arguments given.
        got: usize,
    },
}

/// Error constructors for `ok_or_else`: building the error eagerly with `ok_or` costs a
/// drop check on every successful call in the hot paths.
#[cold]
pub(crate) fn corrupt() -> PackError {
    PackError::Corrupt
}

#[cold]
pub(crate) fn no_space() -> PackError {
    PackError::NoSpace
}

impl PackError {
    /// The C return code: `ENOMEM` for [`PackError::NoSpace`], `EINVAL` for everything else.
    pub fn errno(&self) -> i32 {
        match self {
            PackError::NoSpace => ENOMEM,
            _ => EINVAL,
        }
    }

    /// The text the reference reports to the event handler, or `None` where it reports none.
    pub fn message(&self) -> Option<String> {
        match self {
            PackError::InvalidType { ch, format } => {
                // A NUL would cut the C string short; the reference's text ends up empty there.
                let shown = if *ch == '\0' {
                    String::new()
                } else {
                    ch.to_string()
                };
                Some(format!("Invalid type '{shown}' found in format '{format}'"))
            }
            PackError::FixedStringZero { format } => Some(format!(
                "Fixed length strings must be at least 1 byte in format '{format}'"
            )),
            PackError::BitfieldSize { format } => Some(format!(
                "Bitfield sizes must be between 1 and 8 bits in format '{format}'"
            )),
            PackError::CountTooLarge { count, format } => Some(format!(
                "Count {count} does not fit in 32 bits in format '{format}'"
            )),
            PackError::TooManyArgs { total, format } => Some(format!(
                "Format '{format}' takes {total} arguments, more than the {} a call can pass",
                super::format::MAX_CARGS
            )),
            PackError::TooLarge { size } => Some(format!(
                "Packed size of {size} bytes exceeds the maximum supported size of {}",
                MAX_PACKED
            )),
            PackError::BadPrefix
            | PackError::NoSpace
            | PackError::Corrupt
            | PackError::ArgCount { .. } => None,
        }
    }
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(m) = self.message() {
            return f.write_str(&m);
        }
        match self {
            PackError::BadPrefix => f.write_str("unsupported format prefix ('<', '>' or '@')"),
            PackError::NoSpace => f.write_str("packed data does not fit in the buffer"),
            PackError::Corrupt => f.write_str("corrupt packed data or mismatched argument"),
            PackError::ArgCount { expected, got } => {
                write!(f, "format takes {expected} arguments, {got} given")
            }
            // Variants with a message returned above.
            _ => Ok(()),
        }
    }
}

impl std::error::Error for PackError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errno_values() {
        assert_eq!(PackError::NoSpace.errno(), 12);
        for e in [
            PackError::InvalidType {
                ch: 'z',
                format: "z".into(),
            },
            PackError::FixedStringZero {
                format: "0s".into(),
            },
            PackError::BitfieldSize {
                format: "9t".into(),
            },
            PackError::BadPrefix,
            PackError::Corrupt,
            PackError::ArgCount {
                expected: 1,
                got: 0,
            },
        ] {
            assert_eq!(e.errno(), 22, "{e:?}");
        }
    }

    #[test]
    fn exact_messages() {
        let m = |e: PackError| e.message();
        assert_eq!(
            m(PackError::InvalidType {
                ch: 'z',
                format: "iz".into()
            })
            .as_deref(),
            Some("Invalid type 'z' found in format 'iz'")
        );
        assert_eq!(
            m(PackError::FixedStringZero {
                format: "0s".into()
            })
            .as_deref(),
            Some("Fixed length strings must be at least 1 byte in format '0s'")
        );
        assert_eq!(
            m(PackError::BitfieldSize {
                format: "10t".into()
            })
            .as_deref(),
            Some("Bitfield sizes must be between 1 and 8 bits in format '10t'")
        );
        assert_eq!(
            m(PackError::InvalidType {
                ch: '\0',
                format: "i5".into()
            })
            .as_deref(),
            Some("Invalid type '' found in format 'i5'")
        );
        assert_eq!(m(PackError::BadPrefix), None);
        assert_eq!(m(PackError::NoSpace), None);
        assert_eq!(m(PackError::Corrupt), None);
        assert_eq!(
            m(PackError::ArgCount {
                expected: 2,
                got: 1
            }),
            None
        );
    }

    #[test]
    fn display_is_message_or_description() {
        let e = PackError::BitfieldSize {
            format: "0t".into(),
        };
        assert_eq!(e.to_string(), e.message().unwrap_or_default());
        assert!(!PackError::NoSpace.to_string().is_empty());
        assert_eq!(
            PackError::ArgCount {
                expected: 2,
                got: 1
            }
            .to_string(),
            "format takes 2 arguments, 1 given"
        );
        let _: &dyn std::error::Error = &PackError::Corrupt;
    }
}
