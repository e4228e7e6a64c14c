//! The `diagnostic` cargo feature: `tests/diagnostic.c` (a C program on `c-tests/util.c`)
//! against the library built with it (a debug build of its own under
//! `$CARGO_TARGET_TMPDIR/diagnostic-build`), and the ordinary library of this `cargo test`
//! checked to contain none of the feature's code.

mod common;

use common::{compile_c, library_dir, output, root, run_ok, scratch};
use std::path::PathBuf;
use std::process::Command;

/// Builds the cdylib with `--features diagnostic` and returns the directory holding it.
fn diagnostic_library() -> PathBuf {
    common::library_with_features("diagnostic", "diagnostic-build")
}

/// Symbols of the feature's checks (`capi::diagnostic::checks`), as `nm` lists them.
fn check_symbols(lib_dir: &std::path::Path) -> Vec<String> {
    let out = run_ok(Command::new("nm").arg(lib_dir.join("libunlatched.so")));
    out.lines().filter(|l| l.contains("10diagnostic6checks")).map(str::to_owned).collect()
}

#[test]
fn contract_checks_refuse_misuse() {
    let lib = diagnostic_library();
    assert!(!check_symbols(&lib).is_empty(), "the diagnostic build has the checks");
    let dir = scratch("diagnostic");
    let exe = dir.join("diagnostic");
    let sources = [root().join("tests/diagnostic.c"), root().join("c-tests/util.c")];
    compile_c(
        &["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-I", &root().join("c-tests").to_string_lossy()],
        &sources,
        &exe,
        &lib,
    );
    // `cargo test` puts its own library directory first in LD_LIBRARY_PATH, ahead of the
    // program's run path: name the diagnostic build there.
    let out = output(Command::new(&exe).current_dir(root()).env("LD_LIBRARY_PATH", &lib));
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "tests/diagnostic.c failed: {}", out.status);
}

#[test]
fn the_ordinary_library_has_no_checks() {
    assert_eq!(check_symbols(&library_dir()), Vec::<String>::new());
}
