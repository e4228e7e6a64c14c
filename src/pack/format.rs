//! Format strings: parsing and validation (packing.md §1, §6).
//!
//! Parsing resolves everything position-dependent once (the "`u` is the last character" rule,
//! default sizes, the C argument list), so pack and unpack only walk a flat field list.

use super::error::PackError;

/// One C argument's type, in argument order; the C shim of the library walks this array
/// (never the format string) to pull va_args or write through out-pointers.
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CArg {
    /// `b`: pack `int`, unpack `int8_t *`.
    I8 = 1,
    /// `h`: pack `int`, unpack `int16_t *`.
    I16,
    /// `i`, `l`: pack `int`, unpack `int32_t *`.
    I32,
    /// `q`: pack `int64_t`, unpack `int64_t *`.
    I64,
    /// `B`, `t`: pack `unsigned int`, unpack `uint8_t *`.
    U8,
    /// `H`: pack `unsigned int`, unpack `uint16_t *`.
    U16,
    /// `I`, `L`: pack `unsigned int`, unpack `uint32_t *`.
    U32,
    /// `Q`, `r`, `R`: pack `uint64_t`, unpack `uint64_t *`.
    U64,
    /// `S`, `NS`: pack `const char *` (NUL-terminated), unpack `const char **`.
    CStr,
    /// `s`, `Ns`: pack `const char *` to exactly N bytes, unpack `const char **`.
    Bytes,
    /// `u`, `U`, `Nu`: pack and unpack `WT_ITEM *`.
    Item,
}

impl CArg {
    /// True for the integer types that take [`super::Arg::Int`].
    pub fn is_signed(self) -> bool {
        matches!(self, CArg::I8 | CArg::I16 | CArg::I32 | CArg::I64)
    }

    /// True for the integer types that take [`super::Arg::Uint`].
    pub fn is_unsigned(self) -> bool {
        matches!(self, CArg::U8 | CArg::U16 | CArg::U32 | CArg::U64)
    }

    /// True for the types that take [`super::Arg::Bytes`].
    pub fn is_bytes(self) -> bool {
        matches!(self, CArg::CStr | CArg::Bytes | CArg::Item)
    }
}

/// How one field is encoded. Integer kinds carry the width of the C argument that pack reads
/// (a `h` is passed as a C `int`, so it packs like `i`); [`Field::carg`] gives the unpack width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// `x`: `len` zero bytes, no argument.
    Pad,
    /// `b`: one byte, `value + 0x80`.
    SignedByte,
    /// `B`, `t`: one byte, the low 8 bits of the value.
    UnsignedByte,
    /// `h`, `i`, `l`: signed varint of a C `int`.
    Int32,
    /// `q`: signed varint of an `int64_t`.
    Int64,
    /// `H`, `I`, `L`: unsigned varint of a C `unsigned int`.
    Uint32,
    /// `Q`, `r`: unsigned varint of a `uint64_t`.
    Uint64,
    /// `R`: 8 bytes in host byte order.
    HostU64,
    /// `S` without a count: bytes then one NUL.
    CStr,
    /// `NS`: exactly `len` bytes, the string truncated or NUL-padded.
    FixedCStr,
    /// `s`, `Ns`: exactly `len` bytes copied regardless of NULs.
    FixedBytes,
    /// `u` without a count as the very last character of the format: bytes, no length.
    ItemRaw,
    /// `u` without a count elsewhere, or `U` without a count: varint length then bytes.
    ItemPrefixed,
    /// `Nu`: exactly `len` bytes, the item truncated or NUL-padded.
    ItemFixed,
    /// `NU`: varint `len`, then exactly `len` bytes as `Nu` (`U` always carries its length,
    /// even with a count, as the reference writes it).
    ItemFixedPrefixed,
}

/// One parsed field: a type character with its optional count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    ch: u8,
    kind: FieldKind,
    count: Option<u32>,
    /// Repeats for integer kinds, byte length for sized kinds, width for `t`.
    n: u32,
    /// C arguments taken, precomputed because pack and unpack loop on it.
    nargs: u32,
}

impl Field {
    /// The type character as written (`'i'`, `'S'`, `'r'` ...).
    pub fn ch(&self) -> char {
        self.ch as char
    }

    /// How the field is encoded.
    pub fn kind(&self) -> FieldKind {
        self.kind
    }

    /// The count as written, if any.
    pub fn count(&self) -> Option<u32> {
        self.count
    }

    /// Number of C arguments this field takes (integer repeats; 0 for `x`; 1 otherwise,
    /// including `0S`, `0s`-like sizes and `0u`).
    pub fn arg_count(&self) -> u32 {
        self.nargs
    }

    fn compute_nargs(&self) -> u32 {
        if self.is_repeated() {
            self.n
        } else if self.kind == FieldKind::Pad {
            0
        } else {
            1
        }
    }

    /// Byte length of `x`, `NS`, `s`/`Ns`, `Nu`, `NU` fields; bit width for `t`; repeat count for
    /// the other integer types; 0 for `S`, `u` without a count.
    pub fn size(&self) -> u32 {
        self.n
    }

    /// The C argument type of each of this field's arguments (`None` for `x`).
    pub fn carg(&self) -> Option<CArg> {
        Some(match self.ch {
            b'b' => CArg::I8,
            b'h' => CArg::I16,
            b'i' | b'l' => CArg::I32,
            b'q' => CArg::I64,
            b'B' | b't' => CArg::U8,
            b'H' => CArg::U16,
            b'I' | b'L' => CArg::U32,
            b'Q' | b'r' | b'R' => CArg::U64,
            b'S' => CArg::CStr,
            b's' => CArg::Bytes,
            b'u' | b'U' => CArg::Item,
            _ => return None,
        })
    }

    /// Fields whose byte length the format fixes (`t` excepted: its count is a width).
    fn has_fixed_size(&self) -> bool {
        matches!(
            self.kind,
            FieldKind::Pad
                | FieldKind::FixedCStr
                | FieldKind::FixedBytes
                | FieldKind::ItemFixed
                | FieldKind::ItemFixedPrefixed
        )
    }

    /// Integer types whose count is a repeat count (`t` is not: its count is a width).
    fn is_repeated(&self) -> bool {
        matches!(
            self.kind,
            FieldKind::SignedByte
                | FieldKind::Int32
                | FieldKind::Int64
                | FieldKind::Uint32
                | FieldKind::Uint64
                | FieldKind::HostU64
        ) || (self.kind == FieldKind::UnsignedByte && self.ch == b'B')
    }
}

/// A parsed, validated format string.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Format {
    text: String,
    fields: Vec<Field>,
    /// Empty when the format takes more than [`MAX_CARGS`] arguments (see `arg_total`).
    cargs: Vec<CArg>,
    /// C arguments the format takes; may exceed what any call can pass ("2000000000Q" is a
    /// valid table format), so the per-argument plan is only built up to [`MAX_CARGS`].
    arg_total: u64,
    /// Sum of the fixed byte sizes (`x`, `Ns`, `NS`, `Nu`, `NU`): a format whose packed form
    /// is this large has its size checked before anything is allocated.
    fixed_bytes: u64,
    /// The kind of the only field when the format is one field with one argument: one byte
    /// to test on the pack/unpack hot path.
    single: Option<FieldKind>,
}

/// Upper bound on the C arguments of a format that can be packed or unpacked: a variadic call
/// never has this many. Larger formats parse (tables may declare them, as in the reference)
/// but their argument plan is not built, so absurd repeat counts ("4000000000i") allocate
/// nothing; packing them is refused with [`PackError::TooManyArgs`].
pub const MAX_CARGS: usize = 1 << 20;

fn is_type(c: u8) -> bool {
    matches!(
        c,
        b'b' | b'B'
            | b'h'
            | b'H'
            | b'i'
            | b'I'
            | b'l'
            | b'L'
            | b'q'
            | b'Q'
            | b'r'
            | b'R'
            | b't'
            | b's'
            | b'S'
            | b'u'
            | b'U'
            | b'x'
    )
}

impl Format {
    /// Parses and validates `text` like the reference, except that single-character invalid
    /// formats (a panic in the reference) are `InvalidType` errors.
    pub fn parse(text: &str) -> Result<Format, PackError> {
        let b = text.as_bytes();
        let invalid = |pos: usize, body: &str| PackError::InvalidType {
            ch: text[pos..].chars().next().unwrap_or('\0'),
            format: body.to_string(),
        };
        if b.len() == 1 && !is_type(b[0]) {
            return Err(invalid(0, text));
        }
        let start = match b.first() {
            Some(b'.') => 1,
            Some(b'<' | b'>' | b'@') => return Err(PackError::BadPrefix),
            _ => 0,
        };
        // Messages quote the format without its leading '.'.
        let body = &text[start..];
        let mut fields = Vec::new();
        let mut cargs = Vec::new();
        let mut arg_total: u64 = 0;
        let mut fixed_bytes: u64 = 0;
        let mut i = start;
        while i < b.len() {
            let mut count = None;
            if b[i].is_ascii_digit() {
                // The reference stores counts in 32 bits and silently wraps larger ones
                // ("4294967296s" becomes "0s"); a count that does not fit is refused instead.
                let digits = i;
                let mut v: u64 = 0;
                while let Some(d) = b.get(i).filter(|c| c.is_ascii_digit()) {
                    v = v.saturating_mul(10).saturating_add((d - b'0') as u64);
                    i += 1;
                }
                count = Some(u32::try_from(v).map_err(|_| PackError::CountTooLarge {
                    count: text[digits..i].to_string(),
                    format: body.to_string(),
                })?);
            }
            let Some(&ch) = b.get(i) else {
                // A count with nothing after it: the reference reads the terminating NUL.
                return Err(PackError::InvalidType {
                    ch: '\0',
                    format: body.to_string(),
                });
            };
            let is_last = i + 1 == b.len();
            let (kind, n) = match (ch, count) {
                (b'x', c) => (FieldKind::Pad, c.unwrap_or(1)),
                (b'b', c) => (FieldKind::SignedByte, c.unwrap_or(1)),
                (b'B', c) => (FieldKind::UnsignedByte, c.unwrap_or(1)),
                (b'h' | b'i' | b'l', c) => (FieldKind::Int32, c.unwrap_or(1)),
                (b'q', c) => (FieldKind::Int64, c.unwrap_or(1)),
                (b'H' | b'I' | b'L', c) => (FieldKind::Uint32, c.unwrap_or(1)),
                (b'Q' | b'r', c) => (FieldKind::Uint64, c.unwrap_or(1)),
                (b'R', c) => (FieldKind::HostU64, c.unwrap_or(1)),
                (b't', c) => {
                    let w = c.unwrap_or(1);
                    if !(1..=8).contains(&w) {
                        return Err(PackError::BitfieldSize {
                            format: body.to_string(),
                        });
                    }
                    (FieldKind::UnsignedByte, w)
                }
                (b's', Some(0)) => {
                    return Err(PackError::FixedStringZero {
                        format: body.to_string(),
                    })
                }
                (b's', c) => (FieldKind::FixedBytes, c.unwrap_or(1)),
                (b'S', None) => (FieldKind::CStr, 0),
                (b'S', Some(c)) => (FieldKind::FixedCStr, c),
                (b'u', None) if is_last => (FieldKind::ItemRaw, 0),
                (b'u' | b'U', None) => (FieldKind::ItemPrefixed, 0),
                (b'u', Some(c)) => (FieldKind::ItemFixed, c),
                (b'U', Some(c)) => (FieldKind::ItemFixedPrefixed, c),
                _ => return Err(invalid(i, body)),
            };
            let mut field = Field {
                ch,
                kind,
                count,
                n,
                nargs: 0,
            };
            field.nargs = field.compute_nargs();
            if let Some(c) = field.carg() {
                arg_total += u64::from(field.arg_count());
                if arg_total <= MAX_CARGS as u64 {
                    cargs.resize(arg_total as usize, c);
                }
            }
            if field.has_fixed_size() {
                fixed_bytes += u64::from(field.size());
            }
            fields.push(field);
            i += 1;
        }
        if arg_total > MAX_CARGS as u64 {
            cargs = Vec::new();
        }
        let single = match fields.as_slice() {
            [f] if arg_total == 1 => Some(f.kind),
            _ => None,
        };
        Ok(Format {
            text: text.to_string(),
            fields,
            cargs,
            arg_total,
            fixed_bytes,
            single,
        })
    }

    /// The format exactly as given (`".S"` stays `".S"`).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// One entry per C argument, in order; empty for a format of more than [`MAX_CARGS`]
    /// arguments (see [`Format::plannable`]).
    pub fn cargs(&self) -> &[CArg] {
        &self.cargs
    }

    /// The number of C arguments the format takes, however large.
    pub fn arg_total(&self) -> u64 {
        self.arg_total
    }

    /// False when the format takes more C arguments than a call can pass: it can describe a
    /// table, but packing or unpacking with it is refused.
    pub fn plannable(&self) -> bool {
        self.arg_total <= MAX_CARGS as u64
    }

    /// The bytes the format's fixed-size fields take whatever the arguments.
    pub fn fixed_bytes(&self) -> u64 {
        self.fixed_bytes
    }

    /// The parsed fields, in order (repeat counts kept on each field).
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// True for a format without fields: `""` (a lone `"."` is rejected by `parse`).
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// The only field, when the format is one field taking one argument (`"Q"`, `".S"`,
    /// `"5s"`): lets callers pick a fast path without looking at the text.
    pub fn single(&self) -> Option<&Field> {
        self.single.and_then(|_| self.fields.first())
    }

    /// Kind of the [`Format::single`] field.
    #[inline]
    pub fn single_kind(&self) -> Option<FieldKind> {
        self.single
    }
}

impl std::str::FromStr for Format {
    type Err = PackError;
    fn from_str(s: &str) -> Result<Format, PackError> {
        Format::parse(s)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(FieldKind, u32)> {
        Format::parse(s)
            .unwrap()
            .fields()
            .iter()
            .map(|f| (f.kind(), f.size()))
            .collect()
    }

    fn err(s: &str) -> PackError {
        Format::parse(s).unwrap_err()
    }

    fn msg(s: &str) -> Option<String> {
        err(s).message()
    }

    #[test]
    fn empty_and_prefix() {
        let f = Format::parse("").unwrap();
        assert!(f.is_empty() && f.cargs().is_empty() && f.as_str().is_empty());
        let f = Format::parse(".S").unwrap();
        assert_eq!(f.as_str(), ".S");
        assert_eq!(f.cargs(), &[CArg::CStr]);
        assert_eq!(f.to_string(), ".S");
        for p in ["<i", ">i", "@i", "<", ">", "@", ".", "<<"] {
            assert_eq!(err(p).errno(), 22, "{p}");
        }
        assert_eq!(err("<i"), PackError::BadPrefix);
        assert_eq!(msg("@Q"), None);
    }

    #[test]
    fn cargs_follow_types_and_counts() {
        use CArg::*;
        let f = Format::parse("bhilqBHILQrRtSsuUx").unwrap();
        assert_eq!(
            f.cargs(),
            &[
                I8, I16, I32, I32, I64, U8, U16, U32, U32, U64, U64, U64, U8, CStr, Bytes, Item,
                Item
            ]
        );
        assert_eq!(Format::parse("3i").unwrap().cargs(), &[I32, I32, I32]);
        assert_eq!(Format::parse("0ii").unwrap().cargs(), &[I32]);
        assert_eq!(Format::parse("0S1s").unwrap().cargs(), &[CStr, Bytes]);
        assert_eq!(Format::parse("0u").unwrap().cargs(), &[Item]);
        assert_eq!(Format::parse("3x0xi").unwrap().cargs(), &[I32]);
        assert_eq!(Format::parse("8t").unwrap().cargs(), &[U8]);
        assert_eq!(Format::parse("10S").unwrap().cargs(), &[CStr]);
        assert_eq!(Format::parse("2R").unwrap().cargs(), &[U64, U64]);
    }

    #[test]
    fn item_last_character_rule() {
        use FieldKind::*;
        assert_eq!(kinds("u"), [(ItemRaw, 0)]);
        assert_eq!(kinds(".u"), [(ItemRaw, 0)]);
        assert_eq!(kinds("iu"), [(Int32, 1), (ItemRaw, 0)]);
        assert_eq!(kinds("uu"), [(ItemPrefixed, 0), (ItemRaw, 0)]);
        assert_eq!(kinds("ui"), [(ItemPrefixed, 0), (Int32, 1)]);
        // Literally the last character: a following zero-width field still counts.
        assert_eq!(kinds("u0x"), [(ItemPrefixed, 0), (Pad, 0)]);
        assert_eq!(kinds("3u"), [(ItemFixed, 3)]);
        assert_eq!(kinds("3ui"), [(ItemFixed, 3), (Int32, 1)]);
        assert_eq!(kinds("U"), [(ItemPrefixed, 0)]);
        assert_eq!(kinds("2U"), [(ItemFixedPrefixed, 2)]);
        assert_eq!(kinds("0u"), [(ItemFixed, 0)]);
    }

    #[test]
    fn strings_and_sizes() {
        use FieldKind::*;
        assert_eq!(kinds("S"), [(CStr, 0)]);
        assert_eq!(kinds("5S"), [(FixedCStr, 5)]);
        assert_eq!(kinds("0S"), [(FixedCStr, 0)]);
        assert_eq!(kinds("s"), [(FixedBytes, 1)]);
        assert_eq!(kinds("12s"), [(FixedBytes, 12)]);
        assert_eq!(kinds("x"), [(Pad, 1)]);
        assert_eq!(kinds("t"), [(UnsignedByte, 1)]);
        assert_eq!(kinds("007t"), [(UnsignedByte, 7)]);
        let f = Format::parse("5S").unwrap();
        assert_eq!(f.fields()[0].count(), Some(5));
        assert_eq!(f.fields()[0].ch(), 'S');
        assert_eq!(
            Format::parse("r").unwrap().single().map(|f| f.ch()),
            Some('r')
        );
        assert!(Format::parse("2i").unwrap().single().is_none());
        assert!(Format::parse("x").unwrap().single().is_none());
    }

    #[test]
    fn error_messages() {
        let inv = |s: &str, ch: char, f: &str| {
            assert_eq!(
                err(s),
                PackError::InvalidType {
                    ch,
                    format: f.into()
                },
                "{s}"
            );
            assert_eq!(
                msg(s).unwrap(),
                format!("Invalid type '{ch}' found in format '{f}'"),
                "{s}"
            );
        };
        inv("zi", 'z', "zi");
        inv("iz", 'z', "iz");
        inv("2z", 'z', "2z");
        inv("!i", '!', "!i");
        inv("=i", '=', "=i");
        inv("i.", '.', "i.");
        inv("..i", '.', ".i");
        inv(".z", 'z', "z");
        inv(" i", ' ', " i");
        inv("i i", ' ', "i i");
        inv("(i)", '(', "(i)");
        inv("ié", 'é', "ié");
        // Single characters: the reference panics; we report EINVAL with the message.
        for c in [
            "z", "c", "d", "f", "p", "P", "?", "e", "n", "N", "<", ">", "@", ".", "5", "é",
        ] {
            inv(c, c.chars().next().unwrap(), c);
        }
        assert_eq!(msg("i5").unwrap(), "Invalid type '' found in format 'i5'");
        assert_eq!(
            msg("0s").unwrap(),
            "Fixed length strings must be at least 1 byte in format '0s'"
        );
        assert_eq!(
            err("00s"),
            PackError::FixedStringZero {
                format: "00s".into()
            }
        );
        assert_eq!(
            err(".i0s"),
            PackError::FixedStringZero {
                format: "i0s".into()
            }
        );
        for t in ["0t", "9t", "10t", "i4294967295t"] {
            assert_eq!(
                msg(t).unwrap(),
                format!("Bitfield sizes must be between 1 and 8 bits in format '{t}'")
            );
        }
        // The first bad field is reported.
        assert_eq!(
            err("0sz"),
            PackError::FixedStringZero {
                format: "0sz".into()
            }
        );
    }

    #[test]
    fn absurd_counts_do_not_allocate() {
        // Parsing never builds a per-argument plan beyond MAX_CARGS: the formats are valid
        // (tables may declare them) but cannot be packed.
        for s in ["4000000000i", "600000i600000i", "2000000000Q", "4294967295B"] {
            let f = Format::parse(s).unwrap();
            assert!(!f.plannable() && f.cargs().is_empty(), "{s}");
        }
        assert_eq!(Format::parse("2000000000Q").unwrap().arg_total(), 2_000_000_000);
        assert!(Format::parse("65536B").unwrap().plannable());
        let many = "S".repeat(100_000);
        let f = Format::parse(&many).unwrap();
        assert!(f.plannable() && f.cargs().len() == 100_000);
        let f = Format::parse("4294967295x").unwrap();
        assert_eq!(f.fields()[0].size(), u32::MAX);
        assert!(f.cargs().is_empty());
        assert!(Format::parse("4294967295S4294967295u4294967295s").is_ok());
        assert_eq!(
            Format::parse("1000000000s2x").unwrap().fixed_bytes(),
            1_000_000_002
        );
    }

    #[test]
    fn counts_beyond_32_bits_are_refused() {
        for (s, count, shown) in [
            ("4294967296s", "4294967296", "4294967296s"),
            ("i99999999999999999999999t", "99999999999999999999999", "i99999999999999999999999t"),
            (".4294967297Q", "4294967297", "4294967297Q"),
            ("00004294967296x", "00004294967296", "00004294967296x"),
        ] {
            assert_eq!(
                err(s),
                PackError::CountTooLarge {
                    count: count.into(),
                    format: shown.into()
                },
                "{s}"
            );
            assert_eq!(err(s).errno(), 22);
            assert_eq!(
                msg(s).unwrap(),
                format!("Count {count} does not fit in 32 bits in format '{shown}'")
            );
        }
        assert_eq!(kinds("4294967295x"), [(FieldKind::Pad, u32::MAX)]);
    }

    #[test]
    fn counted_big_u_keeps_its_prefix() {
        use FieldKind::*;
        assert_eq!(kinds("3U"), [(ItemFixedPrefixed, 3)]);
        assert_eq!(kinds("3Ui"), [(ItemFixedPrefixed, 3), (Int32, 1)]);
        assert_eq!(kinds("0U"), [(ItemFixedPrefixed, 0)]);
        assert_eq!(Format::parse("2U").unwrap().cargs(), &[CArg::Item]);
    }
}
