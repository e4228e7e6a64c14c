//! Helpers shared by the C, packaging, header, example and sanitizer tests: where the library of
//! this `cargo test` is, and how to run the C compiler and programs with readable failures.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The directory holding `libunlatched.so` for this test build: next to the test binary (under
/// `cargo test` the cdylib exists only there).
pub fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().expect("deps dir").to_path_buf();
    for dir in [deps.clone(), deps.parent().expect("profile dir").to_path_buf()] {
        if dir.join("libunlatched.so").exists() {
            return dir;
        }
    }
    panic!("libunlatched.so not found next to {}", exe.display());
}

/// The cdylib built on its own with the cargo `features` (a debug build under
/// `$CARGO_TARGET_TMPDIR/<dir_name>`); returns the directory holding it.
pub fn library_with_features(features: &str, dir_name: &str) -> PathBuf {
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir_name);
    run_ok(
        Command::new(option_env!("CARGO").unwrap_or("cargo"))
            .current_dir(root())
            .args(["rustc", "--locked", "--quiet", "--lib", "--crate-type", "cdylib", "--features", features])
            .arg("--target-dir")
            .arg(&target),
    );
    target.join("debug")
}

/// `cmd`, a program linked against this build's library, set to load exactly that library:
/// `cargo test` puts `target/<profile>` in `LD_LIBRARY_PATH`, ahead of the program's run path,
/// and a `libunlatched.so` left there by an earlier `cargo build` would be loaded instead.
pub fn with_library(cmd: &mut Command) -> &mut Command {
    cmd.env("LD_LIBRARY_PATH", library_dir())
}

/// A fresh, empty scratch directory for one test under Cargo's temporary directory.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    if dir.exists() {
        make_writable(&dir);
        std::fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("remove {}: {e}", dir.display()));
    }
    std::fs::create_dir_all(&dir).expect("create the scratch dir");
    dir
}

/// Gives the owner write permission again on every directory below `dir` (tests make some
/// read-only), so that it can be removed.
fn make_writable(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::symlink_metadata(dir) {
        if meta.is_dir() {
            let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
            if let Ok(entries) = std::fs::read_dir(dir) {
                for entry in entries.flatten() {
                    make_writable(&entry.path());
                }
            }
        }
    }
}

/// The C compiler (`$CC`, else `cc`).
pub fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

/// The C++ compiler (`$CXX`, else `c++`).
pub fn cxx() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "c++".into())
}

/// Runs `cmd`, returning its output; panics with a readable message if it cannot start.
pub fn output(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// Runs `cmd`; panics with its stdout and stderr unless it exits 0. Returns its stdout.
pub fn run_ok(cmd: &mut Command) -> String {
    let out = output(cmd);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        panic!(
            "{cmd:?} failed: {}\n--- stdout\n{stdout}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stdout
}

/// Compiles C `sources` into `exe` against `include/` and the library in `lib_dir` (with an
/// rpath, so the program runs without LD_LIBRARY_PATH). `flags` come first.
pub fn compile_c(flags: &[&str], sources: &[PathBuf], exe: &Path, lib_dir: &Path) {
    let mut cmd = Command::new(cc());
    cmd.args(flags)
        .arg("-I")
        .arg(root().join("include"))
        .args(sources)
        .arg("-o")
        .arg(exe)
        .arg("-L")
        .arg(lib_dir)
        .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
        .args(["-lunlatched", "-pthread"]);
    run_ok(&mut cmd);
}

/// The names in `exports.txt`: one per line, `#` starts a comment.
pub fn allowed_exports() -> std::collections::BTreeSet<String> {
    let text = std::fs::read_to_string(root().join("exports.txt")).expect("exports.txt exists");
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The defined dynamic symbols of a shared library (`nm -D --defined-only`).
pub fn dynamic_symbols(lib: &Path) -> std::collections::BTreeSet<String> {
    let out = run_ok(Command::new("nm").args(["-D", "--defined-only"]).arg(lib));
    out.lines().filter_map(|l| l.split_whitespace().nth(2)).map(str::to_owned).collect()
}
