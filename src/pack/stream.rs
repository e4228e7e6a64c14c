//! Streaming pack and unpack (`wiredtiger_pack_start` and friends): one C argument per call,
//! in format order, each checked against the field it lands in.
//!
//! Padding (`x`) takes no argument: it is written (or skipped) when the next argument reaches
//! it, so trailing padding is not part of the bytes used, as with the reference.

use super::codec::{pack_element_into, unpack_element_from};
use super::error::PackError;
use super::format::{CArg, Field, FieldKind, Format};
use super::Arg;

/// The kind of argument a streaming call passes or asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamArg {
    /// `wiredtiger_pack_int` / `unpack_int`: the signed fields `b h i l q`.
    Int,
    /// `..._uint`: the unsigned fields `B H I L Q r R t`.
    Uint,
    /// `..._str`: `S` and `s`.
    Str,
    /// `..._item`: `u` and `U`.
    Item,
}

impl StreamArg {
    fn accepts(self, carg: CArg) -> bool {
        match self {
            StreamArg::Int => carg.is_signed(),
            StreamArg::Uint => carg.is_unsigned(),
            StreamArg::Str => matches!(carg, CArg::CStr | CArg::Bytes),
            StreamArg::Item => carg == CArg::Item,
        }
    }

    fn name(self) -> &'static str {
        match self {
            StreamArg::Int => "a signed integer",
            StreamArg::Uint => "an unsigned integer",
            StreamArg::Str => "a string",
            StreamArg::Item => "an item",
        }
    }
}

/// Why a streaming call failed (nothing moved: the same call may be retried).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamError {
    /// Every field of the format has its arguments.
    End,
    /// The next field takes another kind of argument.
    Mismatch {
        /// The field's type character.
        field: char,
        /// What the call passed or asked for.
        wanted: StreamArg,
    },
    /// Encoding or decoding failed (no room, corrupt bytes).
    Pack(PackError),
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StreamError::End => f.write_str("no more fields in the format"),
            StreamError::Mismatch { field, wanted } => {
                write!(f, "the next field, '{field}', does not take {}", wanted.name())
            }
            StreamError::Pack(e) => write!(f, "{e}"),
        }
    }
}

/// Where a stream stands: the field, the argument within it, the byte offset.
#[derive(Debug)]
pub struct Stream {
    fmt: Format,
    field: usize,
    /// Arguments of the current field already taken.
    taken: u32,
    pos: usize,
}

impl Stream {
    /// A stream at the start of `fmt`.
    pub fn new(fmt: Format) -> Stream {
        Stream { fmt, field: 0, taken: 0, pos: 0 }
    }

    /// Bytes written (packing) or consumed (unpacking) so far.
    pub fn used(&self) -> usize {
        self.pos
    }

    /// The field the next argument goes to, after moving over padding with `pad` (which
    /// returns the bytes it wrote or skipped).
    fn next_field(
        &mut self,
        mut pad: impl FnMut(&Field, usize) -> Result<usize, PackError>,
    ) -> Result<Field, StreamError> {
        loop {
            let field = *self.fmt.fields().get(self.field).ok_or(StreamError::End)?;
            if field.kind() != FieldKind::Pad {
                return Ok(field);
            }
            self.pos += pad(&field, self.pos).map_err(StreamError::Pack)?;
            self.field += 1;
        }
    }

    /// Counts one argument of the current field taken.
    fn advance(&mut self, field: &Field, bytes: usize) {
        self.pos += bytes;
        self.taken += 1;
        if self.taken >= field.arg_count() {
            self.field += 1;
            self.taken = 0;
        }
    }

    fn check(field: &Field, wanted: StreamArg) -> Result<(), StreamError> {
        if field.carg().is_some_and(|carg| wanted.accepts(carg)) {
            Ok(())
        } else {
            Err(StreamError::Mismatch { field: field.ch(), wanted })
        }
    }

    /// Packs `arg` (of kind `wanted`) into `buf`, the whole buffer of the stream.
    pub fn pack(&mut self, buf: &mut [u8], wanted: StreamArg, arg: Arg<'_>) -> Result<(), StreamError> {
        self.undoable(|s| {
            let field = s.next_field(|f, at| pack_element_into(f, Arg::Uint(0), buf.get_mut(at..).unwrap_or_default()))?;
            Self::check(&field, wanted)?;
            let at = buf.get_mut(s.pos..).unwrap_or_default();
            let n = pack_element_into(&field, arg, at).map_err(StreamError::Pack)?;
            s.advance(&field, n);
            Ok(())
        })
    }

    /// Unpacks the next argument (of kind `wanted`) from `buf`, the whole buffer of the stream.
    pub fn unpack<'a>(&mut self, buf: &'a [u8], wanted: StreamArg) -> Result<Arg<'a>, StreamError> {
        self.undoable(|s| {
            let field = s.next_field(|f, at| unpack_element_from(f, buf.get(at..).unwrap_or_default()).map(|(_, n)| n))?;
            Self::check(&field, wanted)?;
            let at = buf.get(s.pos..).unwrap_or_default();
            let (arg, n) = unpack_element_from(&field, at).map_err(StreamError::Pack)?;
            s.advance(&field, n);
            arg.ok_or(StreamError::Pack(PackError::Corrupt))
        })
    }

    /// Runs one call; if it fails, the stream stands where it stood (padding it passed over
    /// counts again; bytes it wrote past `used` are not part of the result).
    fn undoable<T>(&mut self, call: impl FnOnce(&mut Stream) -> Result<T, StreamError>) -> Result<T, StreamError> {
        let (field, taken, pos) = (self.field, self.taken, self.pos);
        let result = call(self);
        if result.is_err() {
            (self.field, self.taken, self.pos) = (field, taken, pos);
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::{pack, unpack};

    fn fmt(s: &str) -> Format {
        Format::parse(s).unwrap()
    }

    #[test]
    fn streaming_matches_packing_all_at_once() {
        let args = [Arg::Int(42), Arg::Bytes(b"hello"), Arg::Int(-1), Arg::Int(2), Arg::Int(300), Arg::Bytes(b"xyz")];
        let kinds = [StreamArg::Int, StreamArg::Str, StreamArg::Int, StreamArg::Int, StreamArg::Int, StreamArg::Item];
        for format in ["iSx3hu", "iS3x3hU", "i5s3h3u"] {
            let mut whole = Vec::new();
            pack(&fmt(format), &args, &mut whole).unwrap();
            let mut buf = [0xeeu8; 64];
            let mut s = Stream::new(fmt(format));
            for (arg, kind) in args.iter().zip(kinds) {
                s.pack(&mut buf, kind, *arg).unwrap();
            }
            assert_eq!(s.pack(&mut buf, StreamArg::Int, Arg::Int(1)), Err(StreamError::End));
            assert_eq!(&buf[..s.used()], &whole[..], "{format}");

            let mut s = Stream::new(fmt(format));
            let mut got = Vec::new();
            for kind in kinds {
                got.push(s.unpack(&whole, kind).unwrap());
            }
            assert_eq!(s.used(), whole.len());
            let mut all = Vec::new();
            unpack(&fmt(format), &whole, &mut all).unwrap();
            assert_eq!(got, all, "{format}");
        }
    }

    #[test]
    fn a_refused_call_changes_nothing() {
        let mut buf = [0u8; 8];
        let mut s = Stream::new(fmt("xS"));
        assert_eq!(
            s.pack(&mut buf, StreamArg::Int, Arg::Int(1)),
            Err(StreamError::Mismatch { field: 'S', wanted: StreamArg::Int })
        );
        assert_eq!(s.used(), 0);
        // No room: the string needs 6 bytes after the pad.
        let mut small = [0u8; 4];
        assert_eq!(s.pack(&mut small, StreamArg::Str, Arg::Bytes(b"hello")), Err(StreamError::Pack(PackError::NoSpace)));
        assert_eq!(s.used(), 0);
        s.pack(&mut buf, StreamArg::Str, Arg::Bytes(b"abc")).unwrap();
        assert_eq!(&buf[..s.used()], b"\0abc\0");
        assert_eq!(Stream::new(fmt("Q")).pack(&mut buf, StreamArg::Int, Arg::Int(1)).unwrap_err(), StreamError::Mismatch { field: 'Q', wanted: StreamArg::Int });
        let mut u = Stream::new(fmt("ii"));
        assert_eq!(u.unpack(&[0x81], StreamArg::Int), Ok(Arg::Int(1)));
        assert!(matches!(u.unpack(&[0x81], StreamArg::Int), Err(StreamError::Pack(_))));
        assert_eq!(u.used(), 1);
    }
}
