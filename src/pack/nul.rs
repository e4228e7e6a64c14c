//! Finding the terminating NUL of C strings, a word at a time (`S` pack and unpack).

/// Index of the first zero byte in `b`.
#[inline]
pub fn find_nul(b: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut chunks = b.chunks_exact(8);
    let mut base = 0;
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let w = u64::from_le_bytes(w);
        // Exact for the lowest zero byte: borrows only propagate upwards from a zero.
        let m = w.wrapping_sub(LO) & !w & HI;
        if m != 0 {
            return Some(base + (m.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&x| x == 0)
        .map(|p| base + p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_naive_search() {
        let naive = |b: &[u8]| b.iter().position(|&x| x == 0);
        let mut buf = vec![0x01u8; 40];
        assert_eq!(find_nul(&buf), None);
        assert_eq!(find_nul(&[]), None);
        for len in 0..40 {
            for z in 0..len {
                for fill in [0x01u8, 0x80, 0xff] {
                    buf.iter_mut().for_each(|x| *x = fill);
                    buf[z] = 0;
                    if z + 1 < len {
                        buf[z + 1] = 0; // a second NUL must not confuse the first
                    }
                    assert_eq!(find_nul(&buf[..len]), naive(&buf[..len]), "len {len} z {z}");
                }
            }
        }
        assert_eq!(
            find_nul(&[0x01, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01]),
            Some(1)
        );
        assert_eq!(find_nul(&[0x00; 8]), Some(0));
    }
}
