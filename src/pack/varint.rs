//! Order-preserving variable-length integers (packing.md §2).
//!
//! The first byte selects the form, and the forms are laid out so that `memcmp` order of the
//! encodings equals numeric order. The long positive form stores `x - 8256`; the long negative
//! form stores raw two's-complement bytes with the leading `0xff` bytes dropped.

use super::error::PackError;

/// The longest encoding, in bytes.
pub const MAX_LEN: usize = 9;

/// Largest value of the one-byte positive form (`0x80 | x`).
const POS_1BYTE_MAX: u64 = 63;
/// Largest value of the two-byte positive form; the long form starts one above.
const POS_2BYTE_MAX: u64 = 8255;
/// Smallest value of the one-byte negative form.
const NEG_1BYTE_MIN: i64 = -64;
/// Smallest value of the two-byte negative form.
const NEG_2BYTE_MIN: i64 = -8256;

/// Encodes `x` into `buf`, returning the number of bytes used (1..=9).
#[inline]
pub fn encode_u64_buf(x: u64, buf: &mut [u8; MAX_LEN]) -> usize {
    if x <= POS_1BYTE_MAX {
        buf[0] = 0x80 | x as u8;
        1
    } else if x <= POS_2BYTE_MAX {
        let y = x - (POS_1BYTE_MAX + 1);
        buf[0] = 0xc0 | (y >> 8) as u8;
        buf[1] = y as u8;
        2
    } else {
        let y = x - (POS_2BYTE_MAX + 1);
        // y == 0 still takes one byte, so lengths never shrink as values grow.
        let n = long_len(y);
        buf[0] = 0xe0 | n as u8;
        // Shift the significant bytes to the top so the copy has a fixed size (no memcpy).
        buf[1..].copy_from_slice(&(y << (64 - 8 * n)).to_be_bytes());
        n + 1
    }
}

/// Encodes `x` into `buf`, returning the number of bytes used (1..=9).
#[inline]
pub fn encode_i64_buf(x: i64, buf: &mut [u8; MAX_LEN]) -> usize {
    if x >= 0 {
        encode_u64_buf(x as u64, buf)
    } else if x >= NEG_1BYTE_MIN {
        buf[0] = 0x40 | (x - NEG_1BYTE_MIN) as u8;
        1
    } else if x >= NEG_2BYTE_MIN {
        let y = (x - NEG_2BYTE_MIN) as u64;
        buf[0] = 0x20 | (y >> 8) as u8;
        buf[1] = y as u8;
        2
    } else {
        // x <= -8257, so at most 6 leading bytes are 0xff.
        let m = ((x as u64).leading_ones() / 8) as usize;
        let n = 8 - m;
        buf[0] = 0x10 | m as u8;
        buf[1..].copy_from_slice(&((x as u64) << (8 * m)).to_be_bytes());
        n + 1
    }
}

/// Appends the unsigned encoding of `x` to `out`.
#[inline]
pub fn encode_u64(x: u64, out: &mut Vec<u8>) {
    let mut buf = [0u8; MAX_LEN];
    let n = encode_u64_buf(x, &mut buf);
    append(out, &buf, n);
}

/// Appends the signed encoding of `x` to `out`.
#[inline]
pub fn encode_i64(x: i64, out: &mut Vec<u8>) {
    let mut buf = [0u8; MAX_LEN];
    let n = encode_i64_buf(x, &mut buf);
    append(out, &buf, n);
}

/// Appends `buf[..n]`: copying the whole fixed-size array and cutting back is a couple of
/// moves, where a variable-length copy would be a `memcpy` call.
#[inline]
pub(crate) fn append(out: &mut Vec<u8>, buf: &[u8; MAX_LEN], n: usize) {
    let len = out.len();
    out.extend_from_slice(buf);
    out.truncate(len + n);
}

/// Bytes after the first one in the long positive form: significant bytes of `y`, at least 1.
#[inline]
fn long_len(y: u64) -> usize {
    let bits = 64 - (y | 1).leading_zeros() as usize;
    bits.div_ceil(8)
}

/// Length of the unsigned encoding of `x`.
#[inline]
pub fn encoded_len_u64(x: u64) -> usize {
    if x <= POS_1BYTE_MAX {
        1
    } else if x <= POS_2BYTE_MAX {
        2
    } else {
        1 + long_len(x - (POS_2BYTE_MAX + 1))
    }
}

/// Length of the signed encoding of `x`.
#[inline]
pub fn encoded_len_i64(x: i64) -> usize {
    if x >= 0 {
        encoded_len_u64(x as u64)
    } else if x >= NEG_1BYTE_MIN {
        1
    } else if x >= NEG_2BYTE_MIN {
        2
    } else {
        9 - ((x as u64).leading_ones() / 8) as usize
    }
}

/// The `n` (0..=8) big-endian bytes after the first byte of `buf`, or `None` if `buf` is short.
#[inline(always)]
fn read_be(buf: &[u8], n: usize) -> Option<u64> {
    if let Some(b) = buf.get(1..9) {
        // Common in packed records: read a fixed 8 bytes and drop the ones past the field.
        let mut w = [0u8; 8];
        w.copy_from_slice(b);
        return Some(if n == 0 { 0 } else { u64::from_be_bytes(w) >> (64 - 8 * n) });
    }
    // A field at the end of a short buffer (a lone key or value): fixed-size reads per length.
    let b = buf.get(1..=n)?;
    let be = |w: &[u8]| w.iter().fold(0u64, |acc, &v| acc << 8 | v as u64);
    Some(match *b {
        [] => 0,
        [x] => x as u64,
        [x, y] => u16::from_be_bytes([x, y]) as u64,
        [x, y, z] => (u16::from_be_bytes([x, y]) as u64) << 8 | z as u64,
        [w, x, y, z] => u32::from_be_bytes([w, x, y, z]) as u64,
        _ => be(b),
    })
}

/// Decodes an unsigned varint at the start of `buf`: `(value, bytes used)`.
/// Markers outside the unsigned forms, and long forms running past `buf`, are `Corrupt`.
#[inline]
pub fn decode_u64(buf: &[u8]) -> Result<(u64, usize), PackError> {
    try_decode_u64(buf).ok_or(PackError::Corrupt)
}

/// Decodes a signed varint at the start of `buf`: `(value, bytes used)`.
/// Positive forms decode as unsigned values reinterpreted as `i64` (the reference does the same).
#[inline]
pub fn decode_i64(buf: &[u8]) -> Result<(i64, usize), PackError> {
    try_decode_i64(buf).ok_or(PackError::Corrupt)
}

/// [`decode_u64`] with `None` for corrupt input: no error value to build or drop, for the
/// integer fast paths.
#[inline(always)]
pub fn try_decode_u64(buf: &[u8]) -> Option<(u64, usize)> {
    let &b = buf.first()?;
    match b {
        0x80..=0xbf => Some(((b & 0x3f) as u64, 1)),
        0xc0..=0xdf => {
            let lo = *buf.get(1)?;
            let y = ((b & 0x1f) as u64) << 8 | lo as u64;
            Some((y + POS_1BYTE_MAX + 1, 2))
        }
        // 0xe0 (no bytes) is a non-canonical 8256 the reference accepts; 0xe9.. never occur.
        0xe0..=0xe8 => {
            let n = (b & 0x0f) as usize;
            let y = read_be(buf, n)?;
            // Only non-canonical input can overflow; wrap like the reference.
            Some((y.wrapping_add(POS_2BYTE_MAX + 1), n + 1))
        }
        _ => None,
    }
}

/// [`decode_i64`] with `None` for corrupt input.
#[inline(always)]
pub fn try_decode_i64(buf: &[u8]) -> Option<(i64, usize)> {
    let &b = buf.first()?;
    match b {
        0x10..=0x16 => {
            let n = 8 - (b & 0x0f) as usize;
            let y = read_be(buf, n)?;
            // The dropped leading bytes were 0xff (none when n == 8).
            let ones = u64::MAX.checked_shl(8 * n as u32).unwrap_or(0);
            Some(((y | ones) as i64, n + 1))
        }
        0x20..=0x3f => {
            let lo = *buf.get(1)?;
            let y = ((b & 0x1f) as i64) << 8 | lo as i64;
            Some((y + NEG_2BYTE_MIN, 2))
        }
        0x40..=0x7f => Some(((b & 0x3f) as i64 + NEG_1BYTE_MIN, 1)),
        _ => try_decode_u64(buf).map(|(v, n)| (v as i64, n)),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn enc_u(x: u64) -> Vec<u8> {
        let mut v = Vec::new();
        encode_u64(x, &mut v);
        v
    }

    fn enc_i(x: i64) -> Vec<u8> {
        let mut v = Vec::new();
        encode_i64(x, &mut v);
        v
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    /// Tiny xorshift PRNG so tests need no dependencies and are reproducible.
    pub(crate) struct Rng(u64);
    impl Rng {
        pub(crate) fn new(seed: u64) -> Rng {
            Rng(seed | 1)
        }
        pub(crate) fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }
    }

    #[test]
    fn worked_examples() {
        let signed: &[(i64, &str)] = &[
            (0, "80"),
            (63, "bf"),
            (64, "c000"),
            (-1, "7f"),
            (-64, "40"),
            (-65, "3fff"),
            (8255, "dfff"),
            (8256, "e100"),
            (8257, "e101"),
            (-8256, "2000"),
            (-8257, "16dfbf"),
            (i32::MAX as i64, "e47fffdfbf"),
            (i32::MIN as i64, "1480000000"),
            (i64::MAX, "e87fffffffffffdfbf"),
            (i64::MIN, "108000000000000000"),
            (-65536, "160000"),
            (-65537, "15feffff"),
        ];
        for &(x, h) in signed {
            assert_eq!(hex(&enc_i(x)), h, "encode {x}");
            assert_eq!(
                decode_i64(&enc_i(x)).unwrap(),
                (x, h.len() / 2),
                "decode {x}"
            );
        }
        assert_eq!(hex(&enc_u(u64::MAX)), "e8ffffffffffffdfbf");
        assert_eq!(hex(&enc_u(72057594037936192)), "e80100000000000000");
    }

    /// Every length boundary from the table in packing.md §2, both sides.
    #[test]
    fn length_boundaries() {
        let pos: &[(u64, usize)] = &[
            (0, 1),
            (63, 1),
            (64, 2),
            (8255, 2),
            (8256, 2),
            (8511, 2),
            (8512, 3),
            (73_791, 3),
            (73_792, 4),
            (16_785_471, 4),
            (16_785_472, 5),
            (4_294_975_551, 5),
            (4_294_975_552, 6),
            ((1 << 40) + 8255, 6),
            ((1 << 40) + 8256, 7),
            ((1 << 48) + 8255, 7),
            ((1 << 48) + 8256, 8),
            ((1 << 56) + 8255, 8),
            ((1 << 56) + 8256, 9),
            (u64::MAX, 9),
        ];
        for &(x, len) in pos {
            assert_eq!(enc_u(x).len(), len, "u {x}");
            assert_eq!(encoded_len_u64(x), len, "len u {x}");
            assert_eq!(decode_u64(&enc_u(x)).unwrap(), (x, len));
            if x <= i64::MAX as u64 {
                assert_eq!(enc_i(x as i64), enc_u(x), "signed == unsigned for {x}");
                assert_eq!(encoded_len_i64(x as i64), len);
            }
        }
        let neg: &[(i64, usize)] = &[
            (-1, 1),
            (-64, 1),
            (-65, 2),
            (-8256, 2),
            (-8257, 3),
            (-65_536, 3),
            (-65_537, 4),
            (-(1 << 24), 4),
            (-(1 << 24) - 1, 5),
            (-(1 << 32), 5),
            (-(1 << 32) - 1, 6),
            (-(1 << 40), 6),
            (-(1 << 40) - 1, 7),
            (-(1 << 48), 7),
            (-(1 << 48) - 1, 8),
            (-(1 << 56), 8),
            (-(1 << 56) - 1, 9),
            (i64::MIN, 9),
        ];
        for &(x, len) in neg {
            assert_eq!(enc_i(x).len(), len, "i {x}");
            assert_eq!(encoded_len_i64(x), len, "len i {x}");
            assert_eq!(decode_i64(&enc_i(x)).unwrap(), (x, len));
        }
    }

    #[test]
    fn round_trip_dense_and_random() {
        for x in -70_000i64..=70_000 {
            let e = enc_i(x);
            assert_eq!(decode_i64(&e).unwrap(), (x, e.len()));
            assert_eq!(encoded_len_i64(x), e.len());
        }
        for x in 0u64..=140_000 {
            let e = enc_u(x);
            assert_eq!(decode_u64(&e).unwrap(), (x, e.len()));
        }
        let mut r = Rng::new(0x1234_5678);
        for _ in 0..200_000 {
            // Vary magnitudes so every length is hit.
            let x = r.next() >> (r.next() % 64);
            let e = enc_u(x);
            assert_eq!(decode_u64(&e).unwrap(), (x, e.len()));
            assert_eq!(encoded_len_u64(x), e.len());
            let s = x as i64;
            let e = enc_i(s);
            assert_eq!(decode_i64(&e).unwrap(), (s, e.len()));
            assert_eq!(encoded_len_i64(s), e.len());
            let s = -((x >> 1) as i64);
            let e = enc_i(s);
            assert_eq!(decode_i64(&e).unwrap(), (s, e.len()));
        }
    }

    #[test]
    fn byte_order_is_numeric_order() {
        let mut prev = enc_i(-70_001);
        for x in -70_000i64..=70_000 {
            let e = enc_i(x);
            assert!(prev < e, "signed order broken at {x}");
            prev = e;
        }
        let mut prev = enc_u(0);
        for x in 1u64..=140_000 {
            let e = enc_u(x);
            assert!(prev < e, "unsigned order broken at {x}");
            prev = e;
        }
        let mut r = Rng::new(99);
        for _ in 0..200_000 {
            let (a, b) = (r.next() >> (r.next() % 64), r.next() >> (r.next() % 64));
            assert_eq!(a.cmp(&b), enc_u(a).cmp(&enc_u(b)), "u {a} {b}");
            let (a, b) = (a as i64, -(b as i64 >> (r.next() % 64)));
            assert_eq!(a.cmp(&b), enc_i(a).cmp(&enc_i(b)), "i {a} {b}");
            let (c, d) = (r.next() as i64, r.next() as i64);
            assert_eq!(c.cmp(&d), enc_i(c).cmp(&enc_i(d)), "i {c} {d}");
        }
        for pair in [(i64::MIN, i64::MIN + 1), (i64::MAX - 1, i64::MAX), (-1, 0)] {
            assert!(enc_i(pair.0) < enc_i(pair.1));
        }
        assert!(enc_u(u64::MAX - 1) < enc_u(u64::MAX));
    }

    #[test]
    fn bad_markers_and_overruns() {
        for b in (0x00u8..=0x7f).chain(0xe9..=0xff) {
            assert_eq!(
                decode_u64(&[b, 0, 0, 0, 0, 0, 0, 0, 0]),
                Err(PackError::Corrupt),
                "{b:#x}"
            );
        }
        for b in (0x00u8..=0x0f).chain(0x17..=0x1f).chain(0xe9..=0xff) {
            assert_eq!(
                decode_i64(&[b, 0, 0, 0, 0, 0, 0, 0, 0]),
                Err(PackError::Corrupt),
                "{b:#x}"
            );
        }
        assert_eq!(decode_u64(&[]), Err(PackError::Corrupt));
        assert_eq!(decode_i64(&[]), Err(PackError::Corrupt));
        // Every truncation of every multi-byte form.
        for e in [
            enc_u(64),
            enc_u(8256),
            enc_u(u64::MAX),
            enc_i(-65),
            enc_i(i64::MIN),
        ] {
            for cut in 1..e.len() {
                assert_eq!(decode_i64(&e[..cut]), Err(PackError::Corrupt));
            }
        }
        // Non-canonical e0 is 8256; trailing bytes are not consumed.
        assert_eq!(decode_u64(&[0xe0]), Ok((8256, 1)));
        assert_eq!(decode_u64(&[0x81, 0xff]), Ok((1, 1)));
        // Non-canonical long forms wrap instead of panicking.
        assert_eq!(
            decode_u64(&[0xe8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])
                .unwrap()
                .1,
            9
        );
    }
}
