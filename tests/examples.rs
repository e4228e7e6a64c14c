//! Builds every program in `examples/c/` against `include/wiredtiger.h` and the library this
//! `cargo test` built (strict C99, warnings are errors), runs it, and checks what it prints.

mod common;

use common::{compile_c, library_dir, root, run_ok, scratch};
use std::process::Command;

/// The examples and, for each, text its output must contain: one of the alternatives (the
/// second alternatives are the messages printed while a feature is not implemented yet).
const EXAMPLES: &[(&str, &[&str])] = &[
    ("hello", &["WiredTiger 11.3.1", "hello from a session"]),
    ("scan", &["forward: 0=apple 10=banana 20=cherry 30=damson 40=elderberry", "search 30: damson", "after remove: not found"]),
    ("transactions", &["alice 70, bob 30"]),
    ("statistics", &["statistics read", "cursor: cursor insert calls: 1000"]),
    ("threads", &["40000 records in all"]),
    ("packing", &["unpacked: 7 \"seven\" -70000 and 3 raw bytes"]),
];

fn build_and_run(name: &str) {
    let dir = scratch(&format!("examples-{name}"));
    let exe = dir.join(name);
    let src = root().join("examples/c").join(format!("{name}.c"));
    compile_c(&["-std=c99", "-O1", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Werror"], &[src], &exe, &library_dir());
    let stdout = run_ok(common::with_library(&mut Command::new(&exe)).current_dir(&dir));
    print!("{stdout}");
    let (_, wants) = EXAMPLES.iter().find(|(n, _)| *n == name).expect("listed example");
    for want in *wants {
        assert!(
            want.split('|').any(|alt| stdout.contains(alt)),
            "examples/c/{name}.c printed no \"{want}\" (alternatives separated by |)"
        );
    }
}

#[test]
fn example_hello() {
    build_and_run("hello");
}

#[test]
fn example_scan() {
    build_and_run("scan");
}

#[test]
fn example_transactions() {
    build_and_run("transactions");
}

#[test]
fn example_statistics() {
    build_and_run("statistics");
}

#[test]
fn example_threads() {
    build_and_run("threads");
}

#[test]
fn example_packing() {
    build_and_run("packing");
}

/// A new example must be added to EXAMPLES (and get its test above).
#[test]
fn every_example_is_tested() {
    let mut found: Vec<String> = std::fs::read_dir(root().join("examples/c"))
        .expect("examples/c exists")
        .filter_map(|e| {
            let p = e.expect("dir entry").path();
            (p.extension()? == "c").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    found.sort();
    let mut listed: Vec<String> = EXAMPLES.iter().map(|(n, _)| n.to_string()).collect();
    listed.sort();
    assert_eq!(found, listed, "examples/c/*.c and the EXAMPLES list of tests/examples.rs differ");
}
