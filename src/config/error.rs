//! The configuration error type.

use std::fmt;

/// `EINVAL`, the only code a configuration error ever carries.
pub const EINVAL: i32 = 22;

/// A configuration error: always `EINVAL`, with one or more messages in the order the reference
/// reports them to the event handler (for a bad sub-key of a category: the sub-key's message,
/// then "Invalid value for key 'K': expected a category").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    messages: Vec<String>,
}

impl ConfigError {
    /// An error with one message.
    pub fn new(message: impl Into<String>) -> ConfigError {
        ConfigError {
            messages: vec![message.into()],
        }
    }

    /// Appends a further message (reported after the existing ones).
    pub fn push(&mut self, message: impl Into<String>) {
        self.messages.push(message.into());
    }

    /// The messages, in the order they are reported.
    pub fn messages(&self) -> &[String] {
        &self.messages
    }

    /// The first (innermost) message.
    pub fn message(&self) -> &str {
        self.messages.first().map(String::as_str).unwrap_or("")
    }

    /// The error code: always `EINVAL` (22).
    pub fn errno(&self) -> i32 {
        EINVAL
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, m) in self.messages.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            f.write_str(m)?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}
