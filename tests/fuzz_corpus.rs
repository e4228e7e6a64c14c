//! Replays the committed fuzz inputs (`fuzz/corpus/TARGET/`: the seeds, and every input that
//! once crashed a target) through the fuzz targets of `src/fuzz/`, so that a plain `cargo test`
//! keeps each found bug fixed without libFuzzer (TESTING.md, "Fuzzing").

use std::path::Path;

fn replay(target: &str) {
    let run = unlatched::fuzz::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|(_, run)| *run)
        .expect("a target of unlatched::fuzz::TARGETS");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("corpus entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no seeds", dir.display());
    for file in &files {
        let data = std::fs::read(file).expect("corpus file");
        eprintln!("{}", file.display());
        run(&data);
    }
}

#[test]
fn config() {
    replay("config");
}

#[test]
fn pack() {
    replay("pack");
}

#[test]
fn capi() {
    replay("capi");
}

#[test]
fn ondisk() {
    replay("ondisk");
}

#[test]
fn files() {
    replay("files");
    unlatched::fuzz::remove_scratch();
}

/// Every target is replayed by a test above.
#[test]
fn every_target_has_a_test() {
    let names: Vec<&str> = unlatched::fuzz::TARGETS.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, ["config", "pack", "capi", "ondisk", "files"]);
}

/// Writes the seeds (`tools/fuzz seeds`); not a check, so not run by default.
#[test]
#[ignore]
fn write_seeds() {
    unlatched::fuzz::write_seeds(&Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus"));
}
