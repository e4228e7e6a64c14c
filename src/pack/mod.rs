//! WiredTiger 11.3.1 packing: format strings and their byte-exact encodings
//! (`shared/spec/packing.md`).
//!
//! Parse a format once with [`Format::parse`], then [`pack`], [`packed_size`] and [`unpack`]
//! walk its precomputed field list. [`Format::cargs`] lists the C argument types so the C
//! shim can pull `va_arg`s or write through out-pointers without looking at the text.
//!
//! Deliberate differences from the reference (packing.md §6): invalid single-character
//! formats are `EINVAL` instead of a panic, and a field that does not fit is always
//! `ENOMEM` (pack, see [`pack_into`]) or `EINVAL` (unpack), even when exactly 0 bytes remain.

mod codec;
mod error;
mod format;
mod nul;
mod stream;
pub mod varint;

pub use codec::{ArgSink, Discard, pack, pack_into, packed_size, unpack, Arg};
pub use error::PackError;
pub use format::{CArg, Field, FieldKind, Format, MAX_CARGS};
pub use stream::{Stream, StreamArg, StreamError};
