//! The in-memory bloom filters of join cursors (`strategy=bloom`), the reference's kind so that
//! its false positives (and so "join: bloom filter false positives") are the same: `count`
//! items of `bits` bits each, `hashes` bit positions per item, the positions being
//! `h1 + i * h2` modulo the size, with `h1` the item's 64-bit FNV-1a hash and `h2` its
//! CityHash64 (version 1.0.3, the one the reference's bloom filters use).

/// A bloom filter of primary keys.
#[derive(Clone, Debug)]
pub(super) struct Bloom {
    bits: Vec<u8>,
    /// Its size in bits: `count * bits per item`.
    size: u64,
    hashes: u32,
}

impl Bloom {
    /// An empty filter for `count` items.
    pub(super) fn new(count: u64, bits_per_item: u32, hashes: u32) -> Bloom {
        let size = count.saturating_mul(u64::from(bits_per_item)).max(1);
        let bytes = usize::try_from(size.div_ceil(8)).unwrap_or(usize::MAX);
        Bloom { bits: vec![0; bytes], size, hashes }
    }

    /// The bit positions of `key`.
    fn positions(&self, key: &[u8]) -> impl Iterator<Item = u64> + '_ {
        let (first, step) = (fnv1a64(key), city_hash64(key));
        (0..u64::from(self.hashes)).map(move |i| first.wrapping_add(i.wrapping_mul(step)) % self.size)
    }

    pub(super) fn insert(&mut self, key: &[u8]) {
        let positions: Vec<u64> = self.positions(key).collect();
        for bit in positions {
            self.bits[(bit / 8) as usize] |= 1 << (bit % 8);
        }
    }

    /// Whether `key` may have been inserted (no false negatives).
    pub(super) fn may_hold(&self, key: &[u8]) -> bool {
        self.positions(key).all(|bit| self.bits[(bit / 8) as usize] & (1 << (bit % 8)) != 0)
    }

    /// Keeps the bits `other` has too (filters of the same shape).
    pub(super) fn intersect(&mut self, other: &Bloom) {
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a &= b;
        }
    }
}

/// 64-bit FNV-1a.
pub(super) fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

const K0: u64 = 0xc3a5_c85c_97cb_3127;
const K1: u64 = 0xb492_b66f_be98_f273;
const K2: u64 = 0x9ae1_6a3b_2f90_404f;
const K3: u64 = 0xc949_d7c7_509e_6557;

fn word(s: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"))
}

fn half(s: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes(s[at..at + 4].try_into().expect("4 bytes")))
}

fn mix(v: u64) -> u64 {
    v ^ (v >> 47)
}

/// Two words to one (CityHash's `Hash128to64`).
fn pair(u: u64, v: u64) -> u64 {
    const MUL: u64 = 0x9ddf_ea08_eb38_2d69;
    let a = mix((u ^ v).wrapping_mul(MUL));
    mix((v ^ a).wrapping_mul(MUL)).wrapping_mul(MUL)
}

/// CityHash's 32-byte mixing step of four words with two seeds.
fn weak32(s: &[u8], at: usize, mut a: u64, b: u64) -> (u64, u64) {
    let (w, x, y, z) = (word(s, at), word(s, at + 8), word(s, at + 16), word(s, at + 24));
    a = a.wrapping_add(w);
    let mut b = b.wrapping_add(a).wrapping_add(z).rotate_right(21);
    let c = a;
    a = a.wrapping_add(x).wrapping_add(y);
    b = b.wrapping_add(a.rotate_right(44));
    (a.wrapping_add(z), b.wrapping_add(c))
}

/// CityHash64 (version 1.0.3).
pub(super) fn city_hash64(s: &[u8]) -> u64 {
    let len = s.len();
    let n = len as u64;
    if len <= 16 {
        if len > 8 {
            let (a, b) = (word(s, 0), word(s, len - 8));
            return pair(a, b.wrapping_add(n).rotate_right(len as u32)) ^ b;
        }
        if len >= 4 {
            return pair(n.wrapping_add(half(s, 0) << 3), half(s, len - 4));
        }
        if len > 0 {
            let y = u64::from(u32::from(s[0]) + (u32::from(s[len >> 1]) << 8));
            let z = u64::from(len as u32 + (u32::from(s[len - 1]) << 2));
            return mix(y.wrapping_mul(K2) ^ z.wrapping_mul(K3)).wrapping_mul(K2);
        }
        return K2;
    }
    if len <= 32 {
        let a = word(s, 0).wrapping_mul(K1);
        let b = word(s, 8);
        let c = word(s, len - 8).wrapping_mul(K2);
        let d = word(s, len - 16).wrapping_mul(K0);
        return pair(
            a.wrapping_sub(b).rotate_right(43).wrapping_add(c.rotate_right(30)).wrapping_add(d),
            a.wrapping_add((b ^ K3).rotate_right(20)).wrapping_add(n).wrapping_sub(c),
        );
    }
    if len <= 64 {
        // Two halves, each folded like a 32-byte block, then mixed.
        let fold = |a: u64, z: u64, second: u64, third: u64| {
            let b = a.wrapping_add(z).rotate_right(52);
            let mut c = a.rotate_right(37);
            let a = a.wrapping_add(second);
            c = c.wrapping_add(a.rotate_right(7));
            let a = a.wrapping_add(third);
            (a.wrapping_add(z), b.wrapping_add(a.rotate_right(31)).wrapping_add(c))
        };
        let a = word(s, 0).wrapping_add(n.wrapping_add(word(s, len - 16)).wrapping_mul(K0));
        let (vf, vs) = fold(a, word(s, 24), word(s, 8), word(s, 16));
        let a = word(s, 16).wrapping_add(word(s, len - 32));
        let (wf, ws) = fold(a, word(s, len - 8), word(s, len - 24), word(s, len - 16));
        let r = mix(vf.wrapping_add(ws).wrapping_mul(K2).wrapping_add(wf.wrapping_add(vs).wrapping_mul(K0)));
        return mix(r.wrapping_mul(K0).wrapping_add(vs)).wrapping_mul(K2);
    }
    // Longer: the tail seeds 56 bytes of state, then every 64-byte block from the start.
    let mut x = word(s, len - 40);
    let mut y = word(s, len - 16).wrapping_add(word(s, len - 56));
    let mut z = pair(word(s, len - 48).wrapping_add(n), word(s, len - 24));
    let mut v = weak32(s, len - 64, n, z);
    let mut w = weak32(s, len - 32, y.wrapping_add(K1), x);
    x = x.wrapping_mul(K1).wrapping_add(word(s, 0));
    for block in 0..(len - 1) / 64 {
        let at = block * 64;
        x = x.wrapping_add(y).wrapping_add(v.0).wrapping_add(word(s, at + 8)).rotate_right(37).wrapping_mul(K1);
        y = y.wrapping_add(v.1).wrapping_add(word(s, at + 48)).rotate_right(42).wrapping_mul(K1);
        x ^= w.1;
        y = y.wrapping_add(v.0).wrapping_add(word(s, at + 40));
        z = z.wrapping_add(w.0).rotate_right(33).wrapping_mul(K1);
        v = weak32(s, at, v.1.wrapping_mul(K1), x.wrapping_add(w.0));
        w = weak32(s, at + 32, z.wrapping_add(w.1), y.wrapping_add(word(s, at + 16)));
        std::mem::swap(&mut z, &mut x);
    }
    pair(
        pair(v.0, w.0).wrapping_add(mix(y).wrapping_mul(K1)).wrapping_add(z),
        pair(v.1, w.1).wrapping_add(x),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `len` bytes: 3, 10, 17, … (mod 256).
    fn input(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + 3) as u8).collect()
    }

    #[test]
    fn hashes_match_the_reference() {
        // (length, FNV-1a, CityHash64) of `input(length)`, printed by the reference's
        // __wt_bloom_hash (WiredTiger 11.3.1): every branch of CityHash64.
        for &(len, fnv, city) in REFERENCE {
            let bytes = input(len);
            assert_eq!(fnv1a64(&bytes), fnv, "fnv of {len} bytes");
            assert_eq!(city_hash64(&bytes), city, "city of {len} bytes");
        }
    }

    #[test]
    fn filters_hold_what_was_inserted() {
        let mut a = Bloom::new(100, 16, 8);
        let mut b = Bloom::new(100, 16, 8);
        for i in 0u32..100 {
            a.insert(&i.to_le_bytes());
            if i % 2 == 0 {
                b.insert(&i.to_le_bytes());
            }
        }
        assert!((0u32..100).all(|i| a.may_hold(&i.to_le_bytes())));
        a.intersect(&b);
        assert!((0u32..100).step_by(2).all(|i| a.may_hold(&i.to_le_bytes())));
        let strays = (0u32..100).skip(1).step_by(2).filter(|i| a.may_hold(&i.to_le_bytes())).count();
        assert!(strays < 10, "{strays} false positives of 50");
    }

    const REFERENCE: &[(usize, u64, u64)] = &[
        (0, 0xcbf29ce484222325, 0x9ae16a3b2f90404f),
        (1, 0xaf63be4c8601b992, 0x5068a5b3d87a0284),
        (2, 0x0835f407b4ee5d48, 0x6ea90655f7a8ea3c),
        (3, 0xe20b021871089e3b, 0xf6aa543ca4b8bf14),
        (4, 0x2152b28811a4b579, 0x9dd33b80b9fa6393),
        (5, 0x443ac335fae03c52, 0x4f7df53bd5a2ced5),
        (7, 0x9c6063da7c6cae43, 0x0e1bc1022a1b992c),
        (8, 0x247823416cac7435, 0x37fed2dba3a300e3),
        (9, 0xa497f62ba90933ca, 0x29b1ff616f22d6f6),
        (15, 0x621ab2742f78f4ab, 0xf35205fd9db2c504),
        (16, 0x2c52026caa87ee25, 0xbdf5bcbc9b4603a4),
        (17, 0xd74874a5c4f9fc22, 0xa75fe55f0d775eda),
        (24, 0xf319166e175bd2d5, 0x7353f72904323f52),
        (31, 0xf095b4a795d4441b, 0xa74e1d551760088d),
        (32, 0xa2a6bfc397b0de25, 0xd7989f47d40c660d),
        (33, 0x12369f5ac18a8a72, 0xef04fa08e8e5b8fb),
        (48, 0xe810a04f255c1525, 0xa7b0eb0c7882e506),
        (63, 0xf76870a08a75fcfb, 0x4cca3400afafeff4),
        (64, 0xdc73a7cb467baca5, 0xc1515868c51fc399),
        (65, 0x14328468c425f152, 0xacf6a69f1f078342),
        (100, 0xbfc95364374650f9, 0x90d13909657dcf12),
        (127, 0x9329af5a072a41bb, 0x851a2c52e0e0c4df),
        (128, 0x3a16bcfa2ccdc525, 0x899e1a09acbba491),
        (129, 0x8268c31a21a6d912, 0x511fb0cf56a6e561),
        (200, 0x5e9b8c09c69f36b5, 0x6099c264b552b496),
    ];
}
