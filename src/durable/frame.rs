//! The one record layout of every durable file: a frame is `[length u32][crc32 u32][payload]`
//! (little-endian; the checksum covers the length and the payload), and payloads are built and
//! parsed with [`Put`] and [`Take`] (fixed-width little-endian integers, length-prefixed bytes).
//!
//! Reading distinguishes a frame that is not all there (the file ends inside it) from one whose
//! checksum fails: the journal treats both at its tail as a torn write; everywhere else they are
//! corruption.

use std::io::{self, Read};

use crate::error::{Error, Kind, Result};

/// Bytes before a frame's payload.
pub const HEADER_LEN: usize = 8;
/// Largest payload accepted when reading, whatever the file's size (a corrupt length must
/// not allocate gigabytes; the reader also never allocates past the end of its input).
pub const MAX_PAYLOAD: usize = 1 << 30;

/// The checksum of a frame: its length bytes, then its payload.
fn checksum(len: [u8; 4], payload: &[u8]) -> u32 {
    // A copy of a hasher made once: `Hasher::new` detects the CPU's features on every call,
    // a tenth of a journal commit's instructions.
    static NEW: std::sync::LazyLock<crc32fast::Hasher> = std::sync::LazyLock::new(crc32fast::Hasher::new);
    let mut h = NEW.clone();
    h.update(&len);
    h.update(payload);
    h.finalize()
}

/// Whether `header` (a frame's length and checksum fields) and `payload` form a valid frame.
pub fn checksum_matches(header: &[u8; HEADER_LEN], payload: &[u8]) -> bool {
    let len = [header[0], header[1], header[2], header[3]];
    u32::from_le_bytes(len) as usize == payload.len()
        && checksum(len, payload) == u32::from_le_bytes([header[4], header[5], header[6], header[7]])
}

/// Appends one frame holding `payload` to `out`.
pub fn write_frame(out: &mut Vec<u8>, payload: &[u8]) {
    out.extend_from_slice(&frame_header(payload));
    out.extend_from_slice(payload);
}

/// The header (length and checksum) of a frame holding `payload`.
pub fn frame_header(payload: &[u8]) -> [u8; HEADER_LEN] {
    let len = u32::try_from(payload.len()).expect("frame payloads are below 4 GiB").to_le_bytes();
    let mut header = [0u8; HEADER_LEN];
    header[..4].copy_from_slice(&len);
    header[4..].copy_from_slice(&checksum(len, payload).to_le_bytes());
    header
}

/// What reading the next frame found.
#[derive(Debug, PartialEq, Eq)]
pub enum Next {
    /// A whole frame whose checksum matches.
    Frame(Vec<u8>),
    /// The file ends exactly here.
    End,
    /// The file ends inside a frame.
    Truncated {
        /// How many bytes of it are there.
        bytes: usize,
    },
    /// The checksum does not match (or the length is impossible).
    Mismatch,
}

/// Reads frames from `r`, counting the offset of the end of the last whole frame.
pub struct FrameReader<R> {
    r: R,
    /// Bytes in the input (its file's size): a frame claiming more than what is left is
    /// reported truncated without reading (or allocating) its payload.
    size: u64,
    /// Offset just past the last frame returned.
    pub good: u64,
}

impl<R: Read> FrameReader<R> {
    /// Frames from the start of `r`, which holds `size` bytes.
    pub fn new(r: R, size: u64) -> Self {
        FrameReader { r, size, good: 0 }
    }

    /// The next frame. Input that ends before the size it was given is an error
    /// (`UnexpectedEof`), not a torn frame: the bytes are there, the read failed to get them.
    pub fn next_frame(&mut self) -> io::Result<Next> {
        let mut header = [0u8; HEADER_LEN];
        let got = read_full(&mut self.r, &mut header)?;
        if (got as u64) < self.size.saturating_sub(self.good).min(HEADER_LEN as u64) {
            return Err(ended_early());
        }
        if got == 0 {
            return Ok(Next::End);
        }
        if got < HEADER_LEN {
            return Ok(Next::Truncated { bytes: got });
        }
        let len_bytes = [header[0], header[1], header[2], header[3]];
        let len = u32::from_le_bytes(len_bytes) as usize;
        let sum = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
        if len > MAX_PAYLOAD {
            return Ok(Next::Mismatch);
        }
        let left = self.size.saturating_sub(self.good + HEADER_LEN as u64);
        if len as u64 > left {
            // The bytes that are there are not read: the caller stops at this frame.
            return Ok(Next::Truncated { bytes: HEADER_LEN + left as usize });
        }
        let mut payload = vec![0u8; len];
        // The size says the payload is all there (`len <= left`).
        if read_full(&mut self.r, &mut payload)? < len {
            return Err(ended_early());
        }
        if checksum(len_bytes, &payload) != sum {
            return Ok(Next::Mismatch);
        }
        self.good += (HEADER_LEN + len) as u64;
        Ok(Next::Frame(payload))
    }
}

/// A read that got fewer bytes than the file's size promised.
fn ended_early() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "the read ended before the end of the file")
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut at = 0;
    while at < buf.len() {
        match r.read(&mut buf[at..]) {
            Ok(0) => break,
            Ok(n) => at += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(at)
}

/// Builds a payload.
#[derive(Default)]
pub struct Put(pub Vec<u8>);

impl Put {
    /// A `u8`.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }

    /// A `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Bytes, preceded by their length.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.u32(u32::try_from(v.len()).expect("keys and values are below 4 GiB"));
        self.0.extend_from_slice(v);
        self
    }

    /// A string, as bytes.
    pub fn str(&mut self, v: &str) -> &mut Self {
        self.bytes(v.as_bytes())
    }
}

/// Parses a payload read from `file`; running short is corruption of that file (the frame's
/// checksum matched, so the writer and reader disagree on the layout).
pub struct Take<'a> {
    buf: &'a [u8],
    file: &'a str,
}

impl<'a> Take<'a> {
    /// Parses `buf`, a payload of `file` (named in errors).
    pub fn new(buf: &'a [u8], file: &'a str) -> Self {
        Take { buf, file }
    }

    fn split(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.buf.len() < n {
            return Err(corrupt(self.file, "a record is shorter than its contents"));
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }

    /// A `u8`.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.split(1)?[0])
    }

    /// A `u32`.
    pub fn u32(&mut self) -> Result<u32> {
        let b = self.split(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A `u64`.
    pub fn u64(&mut self) -> Result<u64> {
        let mut a = [0u8; 8];
        a.copy_from_slice(self.split(8)?);
        Ok(u64::from_le_bytes(a))
    }

    /// Length-prefixed bytes.
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u32()? as usize;
        self.split(n)
    }

    /// A length-prefixed UTF-8 string.
    pub fn str(&mut self) -> Result<&'a str> {
        let file = self.file;
        std::str::from_utf8(self.bytes()?).map_err(|_| corrupt(file, "a name is not UTF-8"))
    }

    /// What is left of the payload (taken: the payload is used up afterwards).
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.buf)
    }

    /// Whether the payload is used up.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}

/// `WT_TRY_SALVAGE` for a damaged file, naming it.
pub fn corrupt(file: &str, what: &str) -> Error {
    Error::new(Kind::TrySalvage, format!("{file}: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(bytes: &[u8]) -> Vec<Next> {
        let mut r = FrameReader::new(bytes, bytes.len() as u64);
        let mut out = Vec::new();
        loop {
            let next = r.next_frame().unwrap();
            let stop = !matches!(next, Next::Frame(_));
            out.push(next);
            if stop {
                return out;
            }
        }
    }

    #[test]
    fn frames_round_trip() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"one");
        write_frame(&mut buf, b"");
        write_frame(&mut buf, &[7u8; 1000]);
        assert_eq!(
            frames(&buf),
            [Next::Frame(b"one".to_vec()), Next::Frame(Vec::new()), Next::Frame(vec![7; 1000]), Next::End]
        );
    }

    #[test]
    fn every_truncation_and_every_flipped_byte_is_detected() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"first");
        let first = buf.len();
        write_frame(&mut buf, b"second frame");
        for cut in first + 1..buf.len() {
            let got = frames(&buf[..cut]);
            assert_eq!(got[0], Next::Frame(b"first".to_vec()));
            assert_eq!(got[1], Next::Truncated { bytes: cut - first }, "cut at {cut}");
        }
        for at in first..buf.len() {
            for bit in 0..8 {
                let mut bad = buf.clone();
                bad[at] ^= 1 << bit;
                let got = frames(&bad);
                assert_eq!(got[0], Next::Frame(b"first".to_vec()));
                assert!(matches!(got[1], Next::Mismatch | Next::Truncated { .. }), "flip at {at}: {:?}", got[1]);
            }
        }
    }

    #[test]
    fn input_that_ends_before_its_size_is_an_error_not_a_torn_frame() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"first");
        let first = buf.len();
        write_frame(&mut buf, b"second frame");
        for cut in first..buf.len() {
            let mut r = FrameReader::new(&buf[..cut], buf.len() as u64);
            assert_eq!(r.next_frame().unwrap(), Next::Frame(b"first".to_vec()));
            assert_eq!(r.next_frame().unwrap_err().kind(), io::ErrorKind::UnexpectedEof, "cut at {cut}");
        }
    }

    #[test]
    fn payloads_round_trip_and_short_ones_name_the_file() {
        let mut p = Put::default();
        p.u8(1).u32(2).u64(3).bytes(b"key").str("name");
        let mut t = Take::new(&p.0, "f");
        assert_eq!((t.u8().unwrap(), t.u32().unwrap(), t.u64().unwrap()), (1, 2, 3));
        assert_eq!(t.bytes().unwrap(), b"key");
        assert_eq!(t.str().unwrap(), "name");
        assert!(t.is_empty());
        let e = t.u32().unwrap_err();
        assert_eq!(e.kind(), Kind::TrySalvage);
        assert!(e.messages().next().unwrap().starts_with("f: "));
    }
}
