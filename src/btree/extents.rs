//! Lists of byte ranges of a file (extents): the free space a block file may allocate from, and
//! the space freed since its last checkpoint. Ranges are kept sorted and coalesced, so
//! first-fit allocation takes the lowest offset that fits (which keeps files compact: freed
//! space near the start is reused before the file grows, and the tail empties over time).

use std::collections::BTreeMap;

/// A byte range `[offset, offset + len)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    /// First byte.
    pub offset: u64,
    /// Length in bytes (never zero in a list).
    pub len: u64,
}

impl Extent {
    /// One past the last byte.
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }
}

/// Disjoint, coalesced extents ordered by offset.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtentList {
    /// offset -> length.
    ranges: BTreeMap<u64, u64>,
    bytes: u64,
}

/// [`ExtentList::insert`] met a range that overlaps one already in the list: the same block
/// freed twice, which means the caller's bookkeeping is wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overlap(pub Extent);

impl ExtentList {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Total bytes in the list.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Number of (coalesced) ranges.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether the list holds no range.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges in offset order.
    pub fn iter(&self) -> impl Iterator<Item = Extent> + '_ {
        self.ranges.iter().map(|(&offset, &len)| Extent { offset, len })
    }

    /// Adds `ext`, merging it with the ranges it touches. An empty extent is ignored.
    pub fn insert(&mut self, ext: Extent) -> Result<(), Overlap> {
        if ext.len == 0 {
            return Ok(());
        }
        let mut start = ext.offset;
        let mut end = ext.end();
        if let Some((&o, &l)) = self.ranges.range(..=ext.offset).next_back() {
            if o + l > ext.offset {
                return Err(Overlap(ext));
            }
            if o + l == ext.offset {
                start = o;
            }
        }
        if let Some((&o, &l)) = self.ranges.range(ext.offset..).next() {
            if o < end {
                return Err(Overlap(ext));
            }
            if o == end {
                self.ranges.remove(&o);
                end = o + l;
            }
        }
        self.ranges.insert(start, end - start);
        self.bytes += ext.len;
        Ok(())
    }

    /// Takes `len` bytes from the lowest range that holds them (first fit).
    pub fn allocate(&mut self, len: u64) -> Option<u64> {
        let (&offset, &have) = self.ranges.iter().find(|(_, &have)| have >= len)?;
        self.ranges.remove(&offset);
        if have > len {
            self.ranges.insert(offset + len, have - len);
        }
        self.bytes -= len;
        Some(offset)
    }

    /// Removes `ext`, which must lie within one range of the list; false (nothing removed) if
    /// it does not.
    pub fn remove(&mut self, ext: Extent) -> bool {
        if ext.len == 0 {
            return true;
        }
        let Some((&o, &l)) = self.ranges.range(..=ext.offset).next_back() else { return false };
        if ext.end() > o + l {
            return false;
        }
        self.ranges.remove(&o);
        if o < ext.offset {
            self.ranges.insert(o, ext.offset - o);
        }
        if ext.end() < o + l {
            self.ranges.insert(ext.end(), o + l - ext.end());
        }
        self.bytes -= ext.len;
        true
    }

    /// Whether every byte of `ext` is in the list.
    pub fn contains(&self, ext: Extent) -> bool {
        match self.ranges.range(..=ext.offset).next_back() {
            Some((&o, &l)) => ext.len == 0 || (o <= ext.offset && ext.end() <= o + l),
            None => ext.len == 0,
        }
    }

    /// Whether any byte of `ext` is in the list.
    pub fn intersects(&self, ext: Extent) -> bool {
        if ext.len == 0 {
            return false;
        }
        if let Some((&o, &l)) = self.ranges.range(..=ext.offset).next_back() {
            if o + l > ext.offset {
                return true;
            }
        }
        self.ranges.range(ext.offset..ext.end()).next().is_some()
    }

    /// Removes the range ending exactly at `end`, if any, and returns where it started: the
    /// free space at the end of a file, which the file can give back.
    pub fn take_tail(&mut self, end: u64) -> Option<u64> {
        let (&o, &l) = self.ranges.iter().next_back()?;
        if o + l != end {
            return None;
        }
        self.ranges.remove(&o);
        self.bytes -= l;
        Some(o)
    }

    /// Moves every range of `other` into this list.
    pub fn absorb(&mut self, other: &mut ExtentList) -> Result<(), Overlap> {
        for ext in std::mem::take(other).iter() {
            self.insert(ext)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ext(offset: u64, len: u64) -> Extent {
        Extent { offset, len }
    }

    #[test]
    fn inserts_coalesce_with_both_neighbours() {
        let mut l = ExtentList::new();
        l.insert(ext(0, 10)).unwrap();
        l.insert(ext(20, 10)).unwrap();
        assert_eq!(l.len(), 2);
        l.insert(ext(10, 10)).unwrap();
        assert_eq!(l.iter().collect::<Vec<_>>(), vec![ext(0, 30)]);
        assert_eq!(l.bytes(), 30);
    }

    #[test]
    fn overlaps_are_refused_and_change_nothing() {
        let mut l = ExtentList::new();
        l.insert(ext(100, 50)).unwrap();
        for bad in [ext(90, 20), ext(120, 5), ext(149, 10), ext(100, 50), ext(50, 200)] {
            assert_eq!(l.insert(bad), Err(Overlap(bad)));
        }
        assert_eq!(l.iter().collect::<Vec<_>>(), vec![ext(100, 50)]);
        assert_eq!(l.bytes(), 50);
    }

    #[test]
    fn first_fit_takes_the_lowest_range_that_fits() {
        let mut l = ExtentList::new();
        l.insert(ext(0, 4)).unwrap();
        l.insert(ext(10, 16)).unwrap();
        l.insert(ext(40, 100)).unwrap();
        assert_eq!(l.allocate(8), Some(10));
        assert_eq!(l.allocate(8), Some(18));
        assert_eq!(l.allocate(8), Some(40));
        assert_eq!(l.allocate(4), Some(0));
        assert_eq!(l.allocate(1000), None);
        assert_eq!(l.bytes(), 92);
    }

    #[test]
    fn membership_and_tail() {
        let mut l = ExtentList::new();
        l.insert(ext(0, 10)).unwrap();
        l.insert(ext(50, 10)).unwrap();
        assert!(l.contains(ext(2, 8)));
        assert!(l.remove(ext(3, 4)));
        assert_eq!(l.iter().collect::<Vec<_>>(), vec![ext(0, 3), ext(7, 3), ext(50, 10)]);
        assert!(!l.remove(ext(2, 3)));
        assert!(l.remove(ext(3, 0)));
        l.insert(ext(3, 4)).unwrap();
        assert!(!l.contains(ext(5, 10)));
        assert!(l.intersects(ext(5, 10)));
        assert!(l.intersects(ext(40, 11)));
        assert!(!l.intersects(ext(10, 40)));
        assert_eq!(l.take_tail(100), None);
        assert_eq!(l.take_tail(60), Some(50));
        assert_eq!(l.bytes(), 10);
    }

    /// (start, length) of each run of `true`.
    fn runs(free: &[bool]) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < free.len() {
            if free[i] {
                let start = i;
                while i < free.len() && free[i] {
                    i += 1;
                }
                out.push((start as u64, (i - start) as u64));
            } else {
                i += 1;
            }
        }
        out
    }

    #[test]
    fn random_frees_and_allocations_match_a_byte_map() {
        let mut state = 7u64;
        let mut rand = |n: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let mut l = ExtentList::new();
        let mut free = vec![false; 512];
        for _ in 0..5000 {
            if rand(2) == 0 {
                let (o, n) = (rand(500), 1 + rand(12));
                let e = ext(o, n.min(512 - o));
                let clash = free[e.offset as usize..e.end() as usize].iter().any(|&f| f);
                assert_eq!(l.insert(e).is_err(), clash);
                if !clash {
                    free[e.offset as usize..e.end() as usize].iter_mut().for_each(|f| *f = true);
                }
            } else {
                let n = 1 + rand(8);
                // First fit: the start of the first run of free bytes at least n long.
                let want = runs(&free).into_iter().find(|&(_, len)| len >= n).map(|(at, _)| at);
                let got = l.allocate(n);
                assert_eq!(got, want);
                if let Some(at) = got {
                    free[at as usize..(at + n) as usize].iter_mut().for_each(|f| *f = false);
                }
            }
            assert_eq!(l.bytes(), free.iter().filter(|&&f| f).count() as u64);
        }
    }
}
