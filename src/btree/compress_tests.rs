//! Trees whose blocks a compressor compresses: read back from disk, verified and reopened;
//! blocks kept as they are when compression does not pay; compressor errors on write and read.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use super::block::BlockFile;
use super::cache::Cache;
use super::compress::{Codec, Compressor, Compressors};
use super::tests::dir;
use super::tree::{Change, Limits, Tree, TS_NEWEST};
use crate::error::{Error, Kind, Result};

const PAGES: Limits = Limits { leaf_page_max: 16 * 1024, internal_page_max: 4096 };

/// Run-length coding, pairs of (run length, byte), with call counters and switchable failures.
#[derive(Default)]
pub(crate) struct Rle {
    pub(crate) compressed: AtomicU64,
    pub(crate) decompressed: AtomicU64,
    pub(crate) fail_compress: AtomicBool,
    pub(crate) fail_decompress: AtomicBool,
}

impl Compressor for Rle {
    fn compress(&self, src: &[u8], dst: &mut Vec<u8>) -> Result<bool> {
        self.compressed.fetch_add(1, Relaxed);
        if self.fail_compress.load(Relaxed) {
            return Err(Error::new(Kind::Os(libc::EIO), "rle: compress failed"));
        }
        dst.clear();
        let mut i = 0;
        while i < src.len() {
            let run = src[i..].iter().take(255).take_while(|&&b| b == src[i]).count();
            if dst.len() + 2 > src.len() {
                return Ok(false);
            }
            dst.extend_from_slice(&[run as u8, src[i]]);
            i += run;
        }
        Ok(true)
    }

    fn decompress(&self, src: &[u8], dst: &mut [u8]) -> Result<usize> {
        self.decompressed.fetch_add(1, Relaxed);
        if self.fail_decompress.load(Relaxed) {
            return Err(Error::new(Kind::Os(libc::EIO), "rle: decompress failed"));
        }
        let mut at = 0;
        for pair in src.chunks_exact(2) {
            let run = pair[0] as usize;
            let out = dst.get_mut(at..at + run).ok_or_else(|| Error::invalid("rle: output overflows"))?;
            out.fill(pair[1]);
            at += run;
        }
        Ok(at)
    }
}

fn key(i: u64) -> Vec<u8> {
    format!("key{i:08}").into_bytes()
}

/// Values that compress well (long runs), some long enough for overflow blocks.
fn value(i: u64) -> Vec<u8> {
    let len = if i % 97 == 0 { 20_000 } else { 200 };
    vec![b'a' + (i % 26) as u8; len]
}

fn load(tree: &Tree, n: u64) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let changes: Vec<Change> = (0..n).map(|i| (key(i), Some(value(i)))).collect();
    tree.apply(&changes, 1).unwrap();
    changes.into_iter().map(|(k, v)| (k, v.unwrap())).collect()
}

fn check(tree: &Tree, model: &BTreeMap<Vec<u8>, Vec<u8>>) {
    for (k, v) in model {
        assert_eq!(tree.get(k, TS_NEWEST).unwrap().as_ref(), Some(v));
    }
}

#[test]
fn compressed_trees_read_back_verify_and_reopen() {
    let (_d, disk) = dir();
    let rle = Arc::new(Rle::default());
    let codec = Codec::with("rle", rle.clone());
    let tree = Tree::create(BlockFile::create(&disk, "c").unwrap().with_codec(codec), PAGES, Arc::new(Cache::default()));
    let model = load(&tree, 5_000);
    assert!(rle.compressed.load(Relaxed) > 0);
    let stats = &tree.file().codec().stats;
    assert!(stats.written.load(Relaxed) > 0, "leaves and overflow items compress");
    tree.evict_all();
    check(&tree, &model);
    assert!(tree.file().stats().compressed_read() > 0);
    assert!(rle.decompressed.load(Relaxed) > 0);
    tree.verify().unwrap();
    let (record, released) = tree.checkpoint().unwrap();
    tree.checkpoint_durable(&released);

    // The same rows uncompressed take several times the space.
    let plain = Tree::create(BlockFile::create(&disk, "p").unwrap(), PAGES, Arc::new(Cache::default()));
    load(&plain, 5_000);
    let (compressed_len, plain_len) = (tree.file().usage().0, plain.file().usage().0);
    assert!(compressed_len * 3 < plain_len, "compressed {compressed_len} bytes, plain {plain_len}");
    drop(tree);

    let rle2 = Arc::new(Rle::default());
    let file = BlockFile::open(&disk, "c", record.space.clone()).unwrap().with_codec(Codec::with("rle", rle2.clone()));
    let tree = Tree::open(file, record.root, PAGES, Arc::new(Cache::default()));
    check(&tree, &model);
    tree.verify().unwrap();
    assert!(rle2.decompressed.load(Relaxed) > 0);

    // A decompression failure is WT_ERROR naming the file and the offset, never garbage.
    tree.evict_all();
    rle2.fail_decompress.store(true, Relaxed);
    let e = tree.get(&key(10), TS_NEWEST).unwrap_err();
    assert_eq!(e.kind(), Kind::Generic);
    let message = e.messages().next().unwrap().to_string();
    assert!(message.contains("c: offset ") && message.contains("decompress"), "{message}");
    rle2.fail_decompress.store(false, Relaxed);
    check(&tree, &model);

    // Reopened without its compressor registered: compressed blocks do not read.
    drop(tree);
    let registry = Arc::new(Compressors::default());
    let file = BlockFile::open(&disk, "c", record.space.clone()).unwrap().with_codec(Codec::named("rle", &registry));
    assert_eq!(file.codec().resolve().err().map(|e| e.kind()), Some(Kind::Invalid));
    let tree = Tree::open(file, record.root, PAGES, Arc::new(Cache::default()));
    let e = tree.get(&key(10), TS_NEWEST).unwrap_err();
    assert_eq!(e.kind(), Kind::Generic);
    assert!(e.messages().next().unwrap().contains("unknown compressor 'rle'"));
    // Registered now, found at the next use.
    registry.add("rle", Arc::new(Rle::default()));
    check(&tree, &model);
}

/// A new tree in `disk` whose blocks go through an `Rle` compressor, and that compressor.
fn rle_tree(disk: &Arc<crate::durable::disk::Disk>) -> (Tree, Arc<Rle>) {
    let rle = Arc::new(Rle::default());
    let file = BlockFile::create(disk, "c").unwrap().with_codec(Codec::with("rle", rle.clone()));
    (Tree::create(file, PAGES, Arc::new(Cache::default())), rle)
}

#[test]
fn a_compressor_error_fails_the_write_and_leaves_the_tree() {
    let (_d, disk) = dir();
    let (tree, rle) = rle_tree(&disk);
    let model = load(&tree, 2_000);
    rle.fail_compress.store(true, Relaxed);
    let changes: Vec<Change> = (0..2_000).step_by(3).map(|i| (key(i), Some(vec![b'z'; 300]))).collect();
    let e = tree.apply(&changes, 2).unwrap_err();
    assert_eq!(e.code(), libc::EIO);
    assert!(e.messages().next().unwrap().contains("block compression failed"), "{e}");
    check(&tree, &model);
    rle.fail_compress.store(false, Relaxed);
    tree.apply(&changes, 2).unwrap();
    tree.verify().unwrap();
}

#[test]
fn blocks_stay_as_they_are_when_compression_does_not_pay() {
    let (_d, disk) = dir();
    let (tree, _) = rle_tree(&disk);
    // Values without runs: RLE doubles them, and small pages are not even tried.
    let mut x = 1u64;
    let changes: Vec<Change> = (0..3_000)
        .map(|i| {
            let v: Vec<u8> = (0..100)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    (x >> 56) as u8
                })
                .collect();
            (key(i), Some(v))
        })
        .collect();
    tree.apply(&changes, 1).unwrap();
    let stats = &tree.file().codec().stats;
    assert_eq!(stats.written.load(Relaxed), 0);
    assert!(stats.failed.load(Relaxed) > 0);
    assert!(stats.too_small.load(Relaxed) > 0, "the root fits one unit");
    tree.evict_all();
    for (k, v) in &changes {
        assert_eq!(tree.get(k, TS_NEWEST).unwrap().as_ref(), v.as_ref());
    }
    assert_eq!(tree.file().stats().compressed_read(), 0);
    tree.verify().unwrap();
}

#[test]
fn damaged_compressed_payloads_are_errors() {
    let codec = Codec::with("rle", Arc::new(Rle::default()));
    let mut out = vec![1, 2, 3];
    let decode = |stored: &[u8], out: &mut Vec<u8>| codec.decode(stored, out, 2, 1 << 20, "f", 4096);
    // Shorter than its header; a length below the kept bytes; a length past the limit; output
    // that does not restore the length the header gives.
    let mut huge = vec![0u8; 16];
    huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let mut short_output = 100u32.to_le_bytes().to_vec();
    short_output.extend_from_slice(&[1, 0, 0, 0, 5, 10, b'x']);
    for stored in [&[1u8, 2][..], &[3, 0, 0, 0, 1, 2, 3, 4, 5][..], &huge[..], &short_output[..]] {
        let e = decode(stored, &mut out).unwrap_err();
        assert_eq!(e.kind(), Kind::Generic);
        assert!(e.messages().next().unwrap().starts_with("f: offset 4096: "), "{e}");
    }
    // A good one: the kept bytes, then the restored rest, after the first `keep` bytes.
    let mut good = 9u32.to_le_bytes().to_vec();
    good.extend_from_slice(b"abcde");
    good.extend_from_slice(&[4, b'z']);
    decode(&good, &mut out).unwrap();
    assert_eq!(out, b"\x01\x02abcdezzzz");
}
