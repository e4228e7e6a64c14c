//! Builds every C program in `c-tests/` against `include/wiredtiger.h` and the library this
//! `cargo test` built, and runs it: the C tests drive the library exactly as a user would.

mod common;

use common::library_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles `c-tests/<name>.c` (plus the shared helpers) and returns the program's path.
fn build(name: &str, extra: &[&str]) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-tests");
    std::fs::create_dir_all(&out_dir).expect("create the output dir");
    let exe = out_dir.join(name);
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Werror"])
        .arg("-I")
        .arg(root.join("include"))
        .arg("-I")
        .arg(root.join("c-tests"))
        .arg(root.join("c-tests").join(format!("{name}.c")))
        .arg(root.join("c-tests/util.c"))
        .args(extra)
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&lib)
        .arg(format!("-Wl,-rpath,{}", lib.display()))
        .args(["-lunlatched", "-lpthread"])
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "compiling c-tests/{name}.c failed");
    exe
}

/// Builds and runs one C test; it must exit 0.
fn run(name: &str, args: &[&str]) {
    let exe = build(name, &[]);
    let output = common::with_library(&mut Command::new(&exe))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run the C test");
    print!("{}", String::from_utf8_lossy(&output.stdout));
    eprint!("{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "c-tests/{name} failed: {}", output.status);
}

macro_rules! c_tests {
    ($($name:ident $(($($arg:literal),*))?),* $(,)?) => {$(
        #[test]
        fn $name() {
            run(stringify!($name), &[$($($arg),*)?]);
        }
    )*};
}

c_tests! {
    abi,
    lifecycle,
    formats,
    cursor,
    errors,
    events,
    struct_pack,
    standalone_api,
    cursor_edits,
    truncate,
    cursor_bounds,
    fixed_records,
    threads,
    txn,
    replay,
    stat19,
    cursor_cache,
    stats_cursor,
    stat_log,
    crash,
    journal_damage,
    journal_kill,
    stat_stress,
    drop_close,
    cache_full,
    verify_compact,
    bigger_than_cache,
    session_churn,
    // Compared step by step with the transcript the reference printed.
    timestamps,
    timestamps_crash,
    schema,
    // Index searches by value while other threads move the rows.
    index_threads,
    // Compared line by line with the transcript the reference printed (c-tests/join_stats.ref).
    join_stats,
    // Random joins against the documented contract, worked out row by row.
    join_random,
    extractor,
    extension_api,
    listing_cursors,
    compress,
    collator,
    file_cursors,
    // With its peak resident memory checked against cache_size (2 MB) + 96 MB: 57-64 MB on a
    // machine with a load average of 5-9 (the reference: about 16 MB). Merges once held an epoch
    // guard across a whole batch and the pages readers dropped piled up (140-440 MB); evicted
    // pages waiting in hash index slots, fragmented arenas and epochs held back by descheduled
    // threads later took it to 95-180 MB under load (ARCHITECTURE.md "Memory of evicted pages").
    evict_stress("6", "rss"),
}

/// `c-tests/extensions.c` with the loadable extension `c-tests/ext/collator_ext.c` built as a
/// shared library beside it (its path is the program's argument).
#[test]
fn extensions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("c-tests");
    std::fs::create_dir_all(&out_dir).expect("create the output dir");
    let library = out_dir.join("collator_ext.so");
    let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-shared", "-fPIC"])
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join("c-tests/ext/collator_ext.c"))
        .arg("-o")
        .arg(&library)
        .status()
        .expect("run the C compiler");
    assert!(status.success(), "compiling c-tests/ext/collator_ext.c failed");
    run("extensions", &[library.to_str().expect("a UTF-8 path")]);
}
