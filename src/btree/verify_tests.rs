//! Verification and compaction of trees: a sound tree passes (with overflow items, several
//! levels, older checkpoints); a used block on a free list, keys outside their parent's range,
//! leaves at different depths and a damaged block are each reported, naming the file and the
//! offset; a rewrite keeps every entry.

use std::sync::Arc;

use super::block::{Addr, BlockFile};
use super::cache::Cache;
use super::page::{self, Builder, Item};
use super::tests::dir;
use super::tree::{Change, Limits, Tree, TS_NEWEST};
use crate::error::Kind;

const SMALL: Limits = Limits { leaf_page_max: 512, internal_page_max: 256 };

fn rows(n: u64, len: usize) -> Vec<Change> {
    (0..n).map(|i| (format!("key{i:06}").into_bytes(), Some(vec![b'a' + (i % 26) as u8; len + (i % 7) as usize * 100]))).collect()
}

#[test]
fn a_sound_tree_verifies_and_reports_its_shape() {
    let (_d, disk) = dir();
    let tree = Tree::create(BlockFile::create(&disk, "t").unwrap(), SMALL, Arc::new(Cache::default()));
    assert_eq!(tree.verify().unwrap().depth, 0, "an empty tree");
    tree.apply(&rows(2000, 20), 1).unwrap();
    let (_, pending) = tree.checkpoint().unwrap();
    tree.checkpoint_durable(&pending);
    // A newer version beside the checkpoint's: both are checked.
    let removed: Vec<Change> = (0..2000).step_by(3).map(|i| (format!("key{i:06}").into_bytes(), None)).collect();
    tree.apply(&removed, 2).unwrap();
    tree.release_before(2);
    let shape = tree.verify().unwrap();
    assert!(shape.depth >= 3, "{shape:?}");
    let walked = tree.shape(true).unwrap();
    assert_eq!(walked, shape, "the cheap walk counts what verification read");
    assert_eq!(tree.shape(false).unwrap().depth, shape.depth);
}

#[test]
fn a_block_in_use_on_a_free_list_is_an_error() {
    let (_d, disk) = dir();
    let tree = Tree::create(BlockFile::create(&disk, "t").unwrap(), SMALL, Arc::new(Cache::default()));
    tree.apply(&rows(200, 10), 1).unwrap();
    let root = tree.newest_root().unwrap();
    tree.file().free_unpublished(root);
    let err = tree.verify().unwrap_err();
    assert_eq!(err.kind(), Kind::Generic);
    let msg = err.to_string();
    assert!(msg.contains(&format!("offset {}", root.offset)) && msg.contains("free list") && msg.contains('t'), "{msg}");
}

/// A tree built by hand: an internal page over `leaves` (lower bound, keys), or deeper where a
/// leaf is given as `None` (a one-child internal page over a leaf of `["z"]`).
fn build(file: &BlockFile, leaves: &[(&str, Option<&[&str]>)]) -> Addr {
    let leaf = |keys: &[&str]| {
        let mut b = Builder::new(page::LEAF);
        for k in keys {
            b.cell(Item::Inline(k.as_bytes())).cell(Item::Inline(b"v")).end_entry();
        }
        file.write(&b.finish()).unwrap()
    };
    let mut root = Builder::new(page::INTERNAL);
    for (i, (lower, keys)) in leaves.iter().enumerate() {
        let child = match keys {
            Some(keys) => leaf(keys),
            None => {
                let mut inner = Builder::new(page::INTERNAL);
                inner.cell(Item::Inline(b"")).child(leaf(&["z"])).end_entry();
                file.write(&inner.finish()).unwrap()
            }
        };
        let lower: &[u8] = if i == 0 { b"" } else { lower.as_bytes() };
        root.cell(Item::Inline(lower)).child(child).end_entry();
    }
    file.write(&root.finish()).unwrap()
}

#[test]
fn keys_outside_their_range_and_uneven_depths_are_errors() {
    let (_d, disk) = dir();
    let file = BlockFile::create(&disk, "good").unwrap();
    let root = build(&file, &[("", Some(&["a", "b"])), ("k", Some(&["k", "m"]))]);
    let tree = Tree::open(file, Some(root), SMALL, Arc::new(Cache::default()));
    assert_eq!(tree.verify().unwrap().leaf_pages, 2);

    let file = BlockFile::create(&disk, "range").unwrap();
    let root = build(&file, &[("", Some(&["a", "m"])), ("k", Some(&["k"]))]);
    let tree = Tree::open(file, Some(root), SMALL, Arc::new(Cache::default()));
    let err = tree.verify().unwrap_err();
    assert_eq!(err.kind(), Kind::Generic);
    assert!(err.to_string().contains("outside the range"), "{err}");

    let file = BlockFile::create(&disk, "depth").unwrap();
    let root = build(&file, &[("", Some(&["a"])), ("y", None)]);
    let tree = Tree::open(file, Some(root), SMALL, Arc::new(Cache::default()));
    let err = tree.verify().unwrap_err();
    assert_eq!(err.kind(), Kind::Generic);
    assert!(err.to_string().contains("depth"), "{err}");
}

#[test]
fn a_damaged_block_is_try_salvage_naming_the_offset() {
    let (_d, disk) = dir();
    let tree = Tree::create(BlockFile::create(&disk, "t").unwrap(), SMALL, Arc::new(Cache::default()));
    tree.apply(&rows(500, 10), 1).unwrap();
    let root = tree.newest_root().unwrap();
    drop(tree);
    // Damage the first leaf (the first block written after the header).
    let path = disk.path("t");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[4096 + 20] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    let record = super::block::SpaceRecord { end: bytes.len() as u64, free: Default::default() };
    let tree = Tree::open(BlockFile::open(&disk, "t", record).unwrap(), Some(root), SMALL, Arc::new(Cache::default()));
    let err = tree.verify().unwrap_err();
    assert_eq!(err.kind(), Kind::TrySalvage);
    assert!(err.to_string().contains("offset 4096"), "{err}");
}

#[test]
fn a_rewrite_keeps_every_entry() {
    let (_d, disk) = dir();
    let tree = Tree::create(BlockFile::create(&disk, "t").unwrap(), SMALL, Arc::new(Cache::default()));
    let all = rows(3000, 20);
    tree.apply(&all, 1).unwrap();
    let (_, pending) = tree.checkpoint().unwrap();
    tree.checkpoint_durable(&pending);
    let gone: Vec<Change> = all.iter().enumerate().filter(|(i, _)| i % 5 != 0).map(|(_, (k, _))| (k.clone(), None)).collect();
    tree.apply(&gone, 2).unwrap();
    *tree.merge_lock() = 2;
    tree.release_before(2);
    assert_eq!(tree.rewrite(2).unwrap(), 600);
    tree.verify().unwrap();
    for (i, (k, v)) in all.iter().enumerate() {
        let got = tree.get(k, TS_NEWEST).unwrap();
        assert_eq!(got.as_ref(), if i % 5 == 0 { v.as_ref() } else { None });
    }
}
