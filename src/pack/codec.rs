//! Packing and unpacking values with a parsed [`Format`] (packing.md §1–§5).
//!
//! One field walk serves three outputs (a growing `Vec`, a fixed caller buffer, a byte
//! counter) through the private `Sink` trait, so `pack`, `pack_into` and `packed_size` cannot
//! disagree about the layout.

use super::error::{corrupt, no_space, PackError, MAX_PACKED};
use super::format::{CArg, Field, FieldKind, Format};
use super::nul::find_nul;
use super::varint;

/// A field value crossing the pack/unpack boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg<'a> {
    /// Signed types (`b h i l q`). Pack truncates to the C argument type like the reference
    /// (`int` for `b h i l`); no range checks.
    Int(i64),
    /// Unsigned types (`B t H I L Q r R`). Pack truncates to `unsigned int` for `B t H I L`.
    Uint(u64),
    /// `S`: the string bytes without the NUL (pack stops at an embedded NUL, as `strlen`
    /// would); `s`/`Ns`: the bytes (missing ones read as NUL); `u`/`U`: the item bytes.
    Bytes(&'a [u8]),
}

impl<'a> Arg<'a> {
    /// The value as `i64` (`Uint` reinterpreted); `None` for `Bytes`.
    pub fn as_i64(self) -> Option<i64> {
        match self {
            Arg::Int(v) => Some(v),
            Arg::Uint(v) => Some(v as i64),
            Arg::Bytes(_) => None,
        }
    }

    /// The value as `u64` (`Int` reinterpreted); `None` for `Bytes`.
    pub fn as_u64(self) -> Option<u64> {
        self.as_i64().map(|v| v as u64)
    }

    /// The bytes; `None` for integers.
    pub fn as_bytes(self) -> Option<&'a [u8]> {
        match self {
            Arg::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The value as the C out-pointer of `carg` would hold it: integers are cast to the
    /// pointer's width and signedness (unpack itself returns the full decoded value, so
    /// `h` data holding 70000 re-packs unchanged). Bytes are returned as they are.
    pub fn narrow(self, carg: CArg) -> Arg<'a> {
        let Some(v) = self.as_i64() else {
            return self;
        };
        match carg {
            CArg::I8 => Arg::Int(v as i8 as i64),
            CArg::I16 => Arg::Int(v as i16 as i64),
            CArg::I32 => Arg::Int(v as i32 as i64),
            CArg::I64 => Arg::Int(v),
            CArg::U8 => Arg::Uint(v as u8 as u64),
            CArg::U16 => Arg::Uint(v as u16 as u64),
            CArg::U32 => Arg::Uint(v as u32 as u64),
            CArg::U64 => Arg::Uint(v as u64),
            CArg::CStr | CArg::Bytes | CArg::Item => self,
        }
    }
}

/// Where packed bytes go.
trait Sink {
    fn put(&mut self, b: &[u8]) -> Result<(), PackError>;
    fn zeros(&mut self, n: usize) -> Result<(), PackError>;

    #[inline]
    fn byte(&mut self, b: u8) -> Result<(), PackError> {
        self.put(&[b])
    }

    #[inline]
    fn uvarint(&mut self, v: u64) -> Result<(), PackError> {
        let mut buf = [0u8; varint::MAX_LEN];
        let n = varint::encode_u64_buf(v, &mut buf);
        self.put(&buf[..n])
    }

    #[inline]
    fn ivarint(&mut self, v: i64) -> Result<(), PackError> {
        let mut buf = [0u8; varint::MAX_LEN];
        let n = varint::encode_i64_buf(v, &mut buf);
        self.put(&buf[..n])
    }

    /// Exactly `n` bytes: the first `min(len, n)` of `b`, then NUL padding.
    #[inline]
    fn fixed(&mut self, b: &[u8], n: usize) -> Result<(), PackError> {
        let take = b.len().min(n);
        self.put(&b[..take])?;
        self.zeros(n - take)
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, b: &[u8]) -> Result<(), PackError> {
        self.extend_from_slice(b);
        Ok(())
    }

    #[inline]
    fn zeros(&mut self, n: usize) -> Result<(), PackError> {
        // Padding sizes come from the format and may be huge: fail instead of aborting.
        self.try_reserve(n).map_err(|_| no_space())?;
        self.resize(self.len() + n, 0);
        Ok(())
    }

    #[inline]
    fn byte(&mut self, b: u8) -> Result<(), PackError> {
        self.push(b);
        Ok(())
    }

    #[inline]
    fn uvarint(&mut self, v: u64) -> Result<(), PackError> {
        varint::encode_u64(v, self);
        Ok(())
    }

    #[inline]
    fn ivarint(&mut self, v: i64) -> Result<(), PackError> {
        varint::encode_i64(v, self);
        Ok(())
    }
}

/// A caller buffer that must not be written past.
struct SliceSink<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

impl SliceSink<'_> {
    #[inline]
    fn window(&mut self, n: usize) -> Result<&mut [u8], PackError> {
        let end = self.pos.checked_add(n).ok_or_else(no_space)?;
        let w = self.buf.get_mut(self.pos..end).ok_or_else(no_space)?;
        self.pos = end;
        Ok(w)
    }
}

impl Sink for SliceSink<'_> {
    #[inline]
    fn put(&mut self, b: &[u8]) -> Result<(), PackError> {
        self.window(b.len())?.copy_from_slice(b);
        Ok(())
    }

    #[inline]
    fn zeros(&mut self, n: usize) -> Result<(), PackError> {
        self.window(n)?.fill(0);
        Ok(())
    }
}

/// Counts bytes without writing them (`packed_size`).
struct Counter(usize);

impl Sink for Counter {
    #[inline]
    fn put(&mut self, b: &[u8]) -> Result<(), PackError> {
        self.zeros(b.len())
    }

    #[inline]
    fn zeros(&mut self, n: usize) -> Result<(), PackError> {
        self.0 = self.0.checked_add(n).ok_or_else(no_space)?;
        Ok(())
    }

    #[inline]
    fn uvarint(&mut self, v: u64) -> Result<(), PackError> {
        self.zeros(varint::encoded_len_u64(v))
    }

    #[inline]
    fn ivarint(&mut self, v: i64) -> Result<(), PackError> {
        self.zeros(varint::encoded_len_i64(v))
    }
}

/// Bytes of a C string up to (not including) its first NUL.
#[inline]
fn c_str(b: &[u8]) -> &[u8] {
    match find_nul(b) {
        Some(l) => &b[..l],
        None => b,
    }
}

fn pack_to<S: Sink>(fmt: &Format, args: &[Arg], sink: &mut S) -> Result<(), PackError> {
    plannable(fmt)?;
    if args.len() != fmt.cargs().len() {
        return Err(PackError::ArgCount {
            expected: fmt.cargs().len(),
            got: args.len(),
        });
    }
    let mut it = args.iter().copied();
    for f in fmt.fields() {
        pack_field(f, &mut it, sink)?;
    }
    Ok(())
}

#[inline]
fn pack_field<'a, S: Sink>(
    f: &Field,
    it: &mut impl Iterator<Item = Arg<'a>>,
    sink: &mut S,
) -> Result<(), PackError> {
    if f.kind() == FieldKind::Pad {
        return sink.zeros(f.size() as usize);
    }
    for _ in 0..f.arg_count() {
        pack_element(f, it.next().ok_or_else(corrupt)?, sink)?;
    }
    Ok(())
}

/// Packs one C argument of field `f` (a repeated integer field takes one per repeat; every
/// other field takes one in all). Padding takes none: see [`pack_field`].
#[inline]
fn pack_element<S: Sink>(f: &Field, arg: Arg<'_>, sink: &mut S) -> Result<(), PackError> {
    let int = || arg.as_i64().ok_or_else(corrupt);
    let bytes = || arg.as_bytes().ok_or_else(corrupt);
    let n = f.size() as usize;
    match f.kind() {
        FieldKind::Pad => Ok(()),
        FieldKind::SignedByte => sink.byte((int()? as u8).wrapping_add(0x80)),
        FieldKind::UnsignedByte => sink.byte(int()? as u8),
        FieldKind::Int32 => sink.ivarint(int()? as i32 as i64),
        FieldKind::Int64 => sink.ivarint(int()?),
        FieldKind::Uint32 => sink.uvarint(int()? as u32 as u64),
        FieldKind::Uint64 => sink.uvarint(int()? as u64),
        FieldKind::HostU64 => sink.put(&(int()? as u64).to_ne_bytes()),
        FieldKind::CStr => {
            sink.put(c_str(bytes()?))?;
            sink.byte(0)
        }
        FieldKind::FixedCStr => sink.fixed(c_str(bytes()?), n),
        FieldKind::FixedBytes | FieldKind::ItemFixed => sink.fixed(bytes()?, n),
        FieldKind::ItemRaw => sink.put(bytes()?),
        FieldKind::ItemFixedPrefixed => {
            sink.uvarint(n as u64)?;
            sink.fixed(bytes()?, n)
        }
        FieldKind::ItemPrefixed => {
            let b = bytes()?;
            sink.uvarint(b.len() as u64)?;
            sink.put(b)
        }
    }
}

/// Packs one C argument of field `f` at the start of `buf` (the streaming API); returns the
/// bytes written, or `NoSpace` when they do not fit.
pub(crate) fn pack_element_into(f: &Field, arg: Arg<'_>, buf: &mut [u8]) -> Result<usize, PackError> {
    let mut sink = SliceSink { buf, pos: 0 };
    if f.kind() == FieldKind::Pad {
        sink.zeros(f.size() as usize)?;
    } else {
        pack_element(f, arg, &mut sink)?;
    }
    Ok(sink.pos)
}

/// Appends the packed `args` to `out`. `args.len()` must equal `fmt.cargs().len()`.
/// On error `out` is left as it was.
#[inline]
pub fn pack(fmt: &Format, args: &[Arg], out: &mut Vec<u8>) -> Result<(), PackError> {
    // The cursor hot path: one common field, one argument, nothing that can fail.
    if let (Some(kind), [a]) = (fmt.single_kind(), args) {
        match (kind, *a) {
            (FieldKind::Uint64, Arg::Uint(v)) => {
                varint::encode_u64(v, out);
                return Ok(());
            }
            (FieldKind::Int64, Arg::Int(v)) => {
                varint::encode_i64(v, out);
                return Ok(());
            }
            (FieldKind::Int32, Arg::Int(v)) => {
                varint::encode_i64(v as i32 as i64, out);
                return Ok(());
            }
            (FieldKind::CStr, Arg::Bytes(b)) => {
                out.extend_from_slice(c_str(b));
                out.push(0);
                return Ok(());
            }
            (FieldKind::ItemRaw, Arg::Bytes(b)) => {
                out.extend_from_slice(b);
                return Ok(());
            }
            _ => {}
        }
    }
    pack_general(fmt, args, out)
}

/// Where `unpack` puts decoded fields: a `Vec`, or a fixed array on the caller's stack (the C
/// shim's path, which must not allocate).
pub trait ArgSink<'a> {
    /// Appends one field.
    fn push(&mut self, arg: Arg<'a>);
    /// Forgets every field.
    fn clear(&mut self);
}

/// A sink that keeps nothing: an unpack that only measures how many bytes the fields take.
pub struct Discard;

impl<'a> ArgSink<'a> for Discard {
    fn push(&mut self, _: Arg<'a>) {}
    fn clear(&mut self) {}
}

impl<'a> ArgSink<'a> for Vec<Arg<'a>> {
    fn push(&mut self, arg: Arg<'a>) {
        Vec::push(self, arg);
    }

    fn clear(&mut self) {
        Vec::clear(self);
    }
}

/// Formats whose fixed-size fields take at least this many bytes are measured before packing.
const MEASURE_FROM: u64 = 1 << 16;

/// `Format::plannable` as an error.
#[inline]
fn plannable(fmt: &Format) -> Result<(), PackError> {
    if fmt.plannable() {
        return Ok(());
    }
    Err(too_many_args(fmt))
}

#[cold]
fn too_many_args(fmt: &Format) -> PackError {
    PackError::TooManyArgs {
        total: fmt.arg_total(),
        format: fmt.as_str().strip_prefix('.').unwrap_or(fmt.as_str()).to_string(),
    }
}

/// Everything but the hot path, kept out of line so `pack` stays small enough to inline.
#[inline(never)]
fn pack_general(fmt: &Format, args: &[Arg], out: &mut Vec<u8>) -> Result<(), PackError> {
    if fmt.fixed_bytes() >= MEASURE_FROM {
        // Big fixed sizes ("1000000000s"): every argument is checked and the size known
        // before any memory is taken, and the one allocation may fail without aborting.
        let size = packed_size(fmt, args)?;
        if size as u64 > MAX_PACKED {
            return Err(PackError::TooLarge { size: size as u64 });
        }
        out.try_reserve_exact(size).map_err(|_| no_space())?;
    }
    let start = out.len();
    let r = pack_to(fmt, args, out);
    if r.is_err() {
        out.truncate(start);
    }
    r
}

/// Packs into `buf` without writing past it; returns the bytes written, or `NoSpace` when
/// the result does not fit (bytes before the failing field may have been written). This is
/// `wiredtiger_struct_pack` without the reference's "remaining length 0" defect.
pub fn pack_into(fmt: &Format, args: &[Arg], buf: &mut [u8]) -> Result<usize, PackError> {
    let mut sink = SliceSink { buf, pos: 0 };
    pack_to(fmt, args, &mut sink)?;
    Ok(sink.pos)
}

/// The exact number of bytes `pack` would produce.
pub fn packed_size(fmt: &Format, args: &[Arg]) -> Result<usize, PackError> {
    let mut c = Counter(0);
    pack_to(fmt, args, &mut c)?;
    Ok(c.0)
}

/// Reads fields from a buffer; every overrun is `Corrupt`.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    #[inline]
    fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or_default()
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], PackError> {
        let s = self.rest().get(..n).ok_or_else(corrupt)?;
        self.pos += n;
        Ok(s)
    }

    #[inline]
    fn byte(&mut self) -> Result<u8, PackError> {
        let b = *self.rest().first().ok_or_else(corrupt)?;
        self.pos += 1;
        Ok(b)
    }

    #[inline]
    fn uvarint(&mut self) -> Result<u64, PackError> {
        let (v, n) = varint::decode_u64(self.rest())?;
        self.pos += n;
        Ok(v)
    }

    #[inline]
    fn ivarint(&mut self) -> Result<i64, PackError> {
        let (v, n) = varint::decode_i64(self.rest())?;
        self.pos += n;
        Ok(v)
    }
}

fn unpack_to<'a>(
    fmt: &Format,
    r: &mut Reader<'a>,
    out: &mut impl ArgSink<'a>,
) -> Result<(), PackError> {
    for f in fmt.fields() {
        if f.kind() == FieldKind::Pad {
            r.take(f.size() as usize)?;
            continue;
        }
        for _ in 0..f.arg_count() {
            out.push(unpack_element(f, r)?);
        }
    }
    Ok(())
}

/// Decodes one C argument of field `f` (see [`pack_element`]); padding is the caller's.
#[inline]
fn unpack_element<'a>(f: &Field, r: &mut Reader<'a>) -> Result<Arg<'a>, PackError> {
    let n = f.size() as usize;
    Ok(match f.kind() {
        FieldKind::Pad => return Err(corrupt()),
        FieldKind::SignedByte => Arg::Int(r.byte()?.wrapping_sub(0x80) as i8 as i64),
        FieldKind::UnsignedByte => Arg::Uint(r.byte()? as u64),
        FieldKind::Int32 | FieldKind::Int64 => Arg::Int(r.ivarint()?),
        FieldKind::Uint32 | FieldKind::Uint64 => Arg::Uint(r.uvarint()?),
        FieldKind::HostU64 => {
            let mut b = [0u8; 8];
            b.copy_from_slice(r.take(8)?);
            Arg::Uint(u64::from_ne_bytes(b))
        }
        FieldKind::CStr => {
            let rest = r.rest();
            let len = find_nul(rest).ok_or_else(corrupt)?;
            r.pos += len + 1;
            Arg::Bytes(&rest[..len])
        }
        FieldKind::FixedCStr => Arg::Bytes(c_str(r.take(n)?)),
        FieldKind::FixedBytes | FieldKind::ItemFixed => Arg::Bytes(r.take(n)?),
        FieldKind::ItemFixedPrefixed => {
            // The stored length is skipped: the count decides, as in the reference.
            r.uvarint()?;
            Arg::Bytes(r.take(n)?)
        }
        FieldKind::ItemRaw => {
            let rest = r.rest();
            r.pos += rest.len();
            Arg::Bytes(rest)
        }
        FieldKind::ItemPrefixed => {
            let len = r.uvarint()?;
            let len = usize::try_from(len).map_err(|_| corrupt())?;
            Arg::Bytes(r.take(len)?)
        }
    })
}

/// Decodes one C argument of field `f` from the start of `buf` (the streaming API), or skips
/// padding (`None`); returns it with the bytes consumed.
pub(crate) fn unpack_element_from<'a>(f: &Field, buf: &'a [u8]) -> Result<(Option<Arg<'a>>, usize), PackError> {
    let mut r = Reader { buf, pos: 0 };
    if f.kind() == FieldKind::Pad {
        r.take(f.size() as usize)?;
        return Ok((None, r.pos));
    }
    let arg = unpack_element(f, &mut r)?;
    Ok((Some(arg), r.pos))
}

/// Decodes every field of `fmt` from `buf`, pushing one [`Arg`] per C argument into `out`
/// (cleared first; left empty on error). Returns the bytes consumed; trailing bytes are
/// ignored like the reference does.
///
/// Integers are the full decoded values (see [`Arg::narrow`] for the C view). `S` gives the
/// bytes before the NUL, which follows inside `buf`; `NS` gives the field's bytes up to the
/// first NUL (at most N), starting at the field; `s`/`Ns`/`Nu` give exactly N bytes; `u`
/// last gives the rest of `buf`.
#[inline]
pub fn unpack<'a>(fmt: &Format, buf: &'a [u8], out: &mut impl ArgSink<'a>) -> Result<usize, PackError> {
    out.clear();
    // The cursor hot path: one common field.
    match fmt.single_kind() {
        Some(FieldKind::Uint64 | FieldKind::Uint32) => {
            let (v, n) = varint::decode_u64(buf)?;
            out.push(Arg::Uint(v));
            return Ok(n);
        }
        Some(FieldKind::Int64 | FieldKind::Int32) => {
            let (v, n) = varint::decode_i64(buf)?;
            out.push(Arg::Int(v));
            return Ok(n);
        }
        Some(FieldKind::CStr) => {
            let len = find_nul(buf).ok_or_else(corrupt)?;
            out.push(Arg::Bytes(&buf[..len]));
            return Ok(len + 1);
        }
        Some(FieldKind::ItemRaw) => {
            out.push(Arg::Bytes(buf));
            return Ok(buf.len());
        }
        _ => {}
    }
    unpack_general(fmt, buf, out)
}

/// Everything but the hot path, kept out of line so `unpack` stays small enough to inline.
#[inline(never)]
fn unpack_general<'a>(
    fmt: &Format,
    buf: &'a [u8],
    out: &mut impl ArgSink<'a>,
) -> Result<usize, PackError> {
    plannable(fmt)?;
    let mut r = Reader { buf, pos: 0 };
    match unpack_to(fmt, &mut r, out) {
        Ok(()) => Ok(r.pos),
        Err(e) => {
            out.clear();
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Arg::{Bytes as B, Int as I, Uint as U};

    fn f(s: &str) -> Format {
        Format::parse(s).unwrap()
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    fn unhex(h: &str) -> Vec<u8> {
        (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Packs, checks size and `pack_into` agree, returns hex.
    fn p(fmt: &str, args: &[Arg]) -> String {
        let fm = f(fmt);
        let mut v = Vec::new();
        pack(&fm, args, &mut v).unwrap();
        assert_eq!(packed_size(&fm, args).unwrap(), v.len(), "{fmt}");
        let mut buf = vec![0xaau8; v.len()];
        assert_eq!(pack_into(&fm, args, &mut buf).unwrap(), v.len());
        assert_eq!(buf, v);
        if !v.is_empty() {
            let mut short = vec![0u8; v.len() - 1];
            assert_eq!(
                pack_into(&fm, args, &mut short),
                Err(PackError::NoSpace),
                "{fmt}"
            );
        }
        hex(&v)
    }

    fn u<'a>(fmt: &str, bytes: &'a [u8]) -> Result<(Vec<Arg<'a>>, usize), PackError> {
        let mut out = Vec::new();
        let n = unpack(&f(fmt), bytes, &mut out)?;
        Ok((out, n))
    }

    #[test]
    fn integers_truncate_like_c_arguments() {
        assert_eq!(p("b", &[I(200)]), "48");
        assert_eq!(p("b", &[I(-200)]), "b8");
        assert_eq!(p("B", &[U(256)]), "00");
        assert_eq!(p("1t", &[U(255)]), "ff");
        assert_eq!(p("h", &[I(70000)]), "e2f130");
        assert_eq!(p("H", &[U(70000)]), "e2f130");
        // int / unsigned int arguments: only the low 32 bits reach the reference.
        assert_eq!(p("i", &[I(1 << 32)]), "80");
        assert_eq!(p("I", &[U((1 << 32) + 1)]), "81");
        assert_eq!(p("q", &[I(1 << 32)]), "e4ffffdfc0");
        // Int and Uint are interchangeable two's-complement views.
        assert_eq!(p("Q", &[I(-1)]), "e8ffffffffffffdfbf");
        assert_eq!(p("q", &[U(u64::MAX)]), "7f");
        assert_eq!(
            p("R", &[U(0x0102030405060708)]),
            hex(&0x0102030405060708u64.to_ne_bytes())
        );
        assert_eq!(p("3i", &[I(1), I(-1), I(300)]), "817fc0ec");
        assert_eq!(p("0ii", &[I(5)]), "85");
    }

    #[test]
    fn strings() {
        assert_eq!(p("S", &[B(b"")]), "00");
        assert_eq!(p("S", &[B(b"a")]), "6100");
        assert_eq!(
            p("S", &[B(b"ab\0cd")]),
            "616200",
            "stops at NUL like strlen"
        );
        assert_eq!(p("5S", &[B(b"ab")]), "6162000000");
        assert_eq!(p("5S", &[B(b"abcde")]), "6162636465");
        assert_eq!(p("5S", &[B(b"abcdefgh")]), "6162636465");
        assert_eq!(p("5S", &[B(b"a\0cdefgh")]), "6100000000");
        assert_eq!(p("0S", &[B(b"abc")]), "");
        assert_eq!(p("s", &[B(b"xyz")]), "78");
        assert_eq!(p("4s", &[B(b"a\0b\0")]), "61006200");
        assert_eq!(p("4s", &[B(b"a")]), "61000000", "missing bytes read as NUL");
        assert_eq!(p("SS", &[B(b"ab"), B(b"cd")]), "616200636400");

        assert_eq!(u("S", &unhex("6162630099")).unwrap(), (vec![B(b"abc")], 4));
        assert_eq!(
            u("S", &unhex("616263")),
            Err(PackError::Corrupt),
            "NUL must be inside"
        );
        assert_eq!(u("S", &[]), Err(PackError::Corrupt));
        assert_eq!(u("5S", b"ab\0\0\0").unwrap(), (vec![B(b"ab")], 5));
        assert_eq!(u("5S", b"abcde").unwrap(), (vec![B(b"abcde")], 5));
        assert_eq!(u("5S", b"abcd"), Err(PackError::Corrupt));
        assert_eq!(u("0S", b"").unwrap(), (vec![B(b"")], 0));
        assert_eq!(u("4s", b"a\0b\0").unwrap(), (vec![B(b"a\0b\0")], 4));
        assert_eq!(u("3s", b"ab"), Err(PackError::Corrupt));
        // The NS slice points at the start of the field.
        let buf = b"\x81ab\0\0\0";
        let (v, _) = u("i5S", buf).unwrap();
        assert_eq!(v[1].as_bytes().unwrap().as_ptr(), buf[1..].as_ptr());
    }

    #[test]
    fn items() {
        assert_eq!(p("u", &[B(b"")]), "");
        assert_eq!(p("u", &[B(b"abc")]), "616263");
        assert_eq!(p("uu", &[B(b"ab"), B(b"cde")]), "826162636465");
        assert_eq!(p("uu", &[B(b""), B(b"")]), "80");
        assert_eq!(p("ui", &[B(b"ab"), I(5)]), "82616285");
        assert_eq!(p("3ui", &[B(b"ab"), I(5)]), "61620085");
        assert_eq!(p("3u", &[B(b"abcd")]), "616263");
        assert_eq!(p("0u", &[B(b"abc")]), "");
        assert_eq!(p("U", &[B(b"abc")]), "83616263");
        assert_eq!(&p("uu", &[B(&[0x7a; 64]), B(b"!")])[..6], "c0007a");

        assert_eq!(u("u", b"").unwrap(), (vec![B(b"")], 0));
        assert_eq!(u("iu", b"\x85ab").unwrap(), (vec![I(5), B(b"ab")], 3));
        assert_eq!(
            u("uu", &unhex("826162636465")).unwrap().0,
            vec![B(b"ab"), B(b"cde")]
        );
        assert_eq!(
            u("ui", &unhex("8361")),
            Err(PackError::Corrupt),
            "item overruns"
        );
        assert_eq!(
            u("ui", &unhex("e8ffffffffffffdfbf")),
            Err(PackError::Corrupt)
        );
        assert_eq!(u("3u", b"ab\0").unwrap(), (vec![B(b"ab\0")], 3));
        assert_eq!(u("0u", b"").unwrap(), (vec![B(b"")], 0));
        assert_eq!(u("U", &unhex("80")).unwrap(), (vec![B(b"")], 1));
    }

    #[test]
    fn pads_bits_and_integers_unpack() {
        assert_eq!(p("x", &[]), "00");
        assert_eq!(p("i3xi", &[I(1), I(2)]), "8100000082");
        assert_eq!(
            u("i3xi", &unhex("8100000082")).unwrap(),
            (vec![I(1), I(2)], 5)
        );
        assert_eq!(u("3x", &[0, 0]), Err(PackError::Corrupt));
        assert_eq!(
            u("bBt", &unhex("7fff01")).unwrap().0,
            vec![I(-1), U(255), U(1)]
        );
        assert_eq!(
            u("3b", &unhex("7f8081")).unwrap().0,
            vec![I(-1), I(0), I(1)]
        );
        assert_eq!(u("h", &unhex("e2f130")).unwrap().0, vec![I(70000)]);
        assert_eq!(u("R", &7u64.to_ne_bytes()).unwrap().0, vec![U(7)]);
        assert_eq!(u("R", &[1, 2, 3]), Err(PackError::Corrupt));
        assert_eq!(
            u("ii", &unhex("81")),
            Err(PackError::Corrupt),
            "reference defect not kept"
        );
        assert_eq!(u("Q", &unhex("05")), Err(PackError::Corrupt));
        assert_eq!(u("Q", &unhex("7f")), Err(PackError::Corrupt));
        assert_eq!(u("Q", &unhex("f0")), Err(PackError::Corrupt));
        assert_eq!(u("q", &unhex("7f")).unwrap().0, vec![I(-1)]);
        assert_eq!(u("Q", &unhex("e0")).unwrap().0, vec![U(8256)]);
        assert_eq!(u("", b"junk").unwrap(), (vec![], 0));
        assert_eq!(
            u("i", &unhex("8199")).unwrap().1,
            1,
            "trailing bytes ignored"
        );
    }

    #[test]
    fn narrow_matches_c_pointers() {
        assert_eq!(I(70000).narrow(CArg::I16), I(4464));
        assert_eq!(I(-1).narrow(CArg::U8), U(255));
        assert_eq!(U(u64::MAX).narrow(CArg::I32), I(-1));
        assert_eq!(U(1 << 40).narrow(CArg::U32), U(0));
        assert_eq!(B(b"x").narrow(CArg::I8), B(b"x"));
    }

    #[test]
    fn argument_errors() {
        let fm = f("iS");
        let mut v = vec![1, 2];
        assert_eq!(
            pack(&fm, &[I(1)], &mut v),
            Err(PackError::ArgCount {
                expected: 2,
                got: 1
            })
        );
        assert_eq!(pack(&fm, &[I(1), I(2)], &mut v), Err(PackError::Corrupt));
        assert_eq!(
            pack(&fm, &[B(b""), B(b"")], &mut v),
            Err(PackError::Corrupt)
        );
        assert_eq!(v, [1, 2], "out untouched on error");
        assert_eq!(
            packed_size(&fm, &[]),
            Err(PackError::ArgCount {
                expected: 2,
                got: 0
            })
        );
        pack(&fm, &[I(1), B(b"a")], &mut v).unwrap();
        assert_eq!(v, [1, 2, 0x81, 0x61, 0], "pack appends");
        let mut out = vec![I(9)];
        assert_eq!(unpack(&fm, &[0x81], &mut out), Err(PackError::Corrupt));
        assert!(out.is_empty());
    }

    #[test]
    fn huge_sizes_fail_cleanly() {
        let fm = f("4294967295x");
        assert_eq!(packed_size(&fm, &[]), Ok(u32::MAX as usize));
        assert_eq!(pack_into(&fm, &[], &mut [0u8; 16]), Err(PackError::NoSpace));
        let mut out = Vec::new();
        assert_eq!(
            unpack(&f("4294967295S"), b"abc", &mut out),
            Err(PackError::Corrupt)
        );
        assert_eq!(
            unpack(&f("4294967295u"), b"abc", &mut out),
            Err(PackError::Corrupt)
        );
    }

    #[test]
    fn counted_big_u_is_length_prefixed() {
        // The reference writes `NU` as varint(N) then N bytes, truncated or NUL-padded.
        assert_eq!(p("3U", &[B(b"ab")]), "83616200");
        assert_eq!(p("2U", &[B(b"abcd")]), "826162");
        assert_eq!(p("0U", &[B(b"ab")]), "80");
        assert_eq!(p("2Ui", &[B(b"a"), I(1)]), "82610081");
        assert_eq!(p("U", &[B(b"abc")]), "83616263");
        assert_eq!(u("3U", &unhex("83616200")).unwrap(), (vec![B(b"ab\0")], 4));
        assert_eq!(u("2Ui", &unhex("82610081")).unwrap(), (vec![B(b"a\0"), I(1)], 4));
        assert_eq!(u("3U", &unhex("836162")), Err(PackError::Corrupt));
        assert_eq!(u("3U", &[]), Err(PackError::Corrupt));
    }

    #[test]
    fn huge_formats_fail_before_allocating() {
        // Formats of more arguments than a call can pass parse, but never pack or unpack.
        let fm = f("2000000000Q");
        let e = PackError::TooManyArgs { total: 2_000_000_000, format: "2000000000Q".into() };
        assert_eq!(pack(&fm, &[], &mut Vec::new()), Err(e.clone()));
        assert_eq!(packed_size(&fm, &[]), Err(e.clone()));
        assert_eq!(pack_into(&fm, &[], &mut [0u8; 4]), Err(e.clone()));
        assert_eq!(unpack(&fm, b"\x80", &mut Vec::new()), Err(e.clone()));
        assert_eq!(e.errno(), 22);
        assert!(e.message().unwrap().contains("2000000000 arguments"));
        // A fixed size far beyond memory is measured, and refused, before any allocation.
        let big = f("4294967295s");
        let mut out = Vec::new();
        assert_eq!(
            pack(&big, &[B(b"a")], &mut out),
            Err(PackError::TooLarge { size: 4294967295 })
        );
        assert_eq!(out.capacity(), 0);
        // A mismatched argument after a big field fails before the big field is written.
        let mixed = f("1000000000si");
        assert_eq!(pack(&mixed, &[B(b"a"), B(b"b")], &mut out), Err(PackError::Corrupt));
        assert_eq!(out.capacity(), 0);
        assert_eq!(packed_size(&f("1000000000s"), &[B(b"a")]), Ok(1_000_000_000));
        assert_eq!(pack_into(&f("1000000000s"), &[B(b"a")], &mut [0u8; 8]), Err(PackError::NoSpace));
    }

    /// Random formats and bytes: parse, size, pack and unpack must never panic, and whatever
    /// unpacks must re-pack to the consumed bytes when the format is self-describing.
    #[test]
    fn fuzz_never_panics() {
        let mut rng = crate::pack::varint::tests::Rng::new(0xfeed);
        const ALPHABET: &[u8] = b"bBhHiIlLqQrRtsSuUx0123456789.<>@z !\0";
        let mut repacked_formats = 0;
        for round in 0..200_000u32 {
            let mut out = Vec::new();
            let len = (rng.next() % 7) as usize;
            let text: String = (0..len)
                .map(|_| ALPHABET[(rng.next() % ALPHABET.len() as u64) as usize] as char)
                .collect();
            let blen = (rng.next() % 24) as usize;
            let bytes: Vec<u8> = (0..blen).map(|_| rng.next() as u8).collect();
            let Ok(fm) = Format::parse(&text) else {
                continue;
            };
            let _ = unpack(&fm, &bytes, &mut out);
            // Random arguments of the right kinds (and sometimes the wrong ones).
            let args: Vec<Arg> = fm
                .cargs()
                .iter()
                .map(|c| match (c.is_bytes(), round % 13 == 0) {
                    (true, false) | (false, true) => {
                        B(&bytes[..(rng.next() as usize % (blen + 1))])
                    }
                    _ => I(rng.next() as i64 >> (rng.next() % 64)),
                })
                .collect();
            let Ok(size) = packed_size(&fm, &args) else {
                continue;
            };
            if size > 1 << 20 {
                continue;
            }
            let mut packed = Vec::new();
            pack(&fm, &args, &mut packed).unwrap();
            assert_eq!(packed.len(), size, "{text:?}");
            let mut small = vec![0u8; size / 2];
            let _ = pack_into(&fm, &args, &mut small);
            let n = unpack(&fm, &packed, &mut out).unwrap_or_else(|e| panic!("{text:?} {e}"));
            assert_eq!(n, packed.len(), "{text:?}");
            let again: Vec<Arg> = out.clone();
            let mut repacked = Vec::new();
            pack(&fm, &again, &mut repacked).unwrap();
            assert_eq!(repacked, packed, "{text:?}");
            repacked_formats += 1;
        }
        assert!(
            repacked_formats > 20_000,
            "fuzz reached too few packs: {repacked_formats}"
        );
    }
}
