//! The C tests (`c-tests/*.c`), the examples (`examples/c/*.c`) and the feature probe
//! (`tests/feature_probe.c`) again, compiled with AddressSanitizer and UndefinedBehaviorSanitizer
//! (`-fsanitize=address,undefined`) and linked with the library built with the
//! `system-allocator` feature (the system's malloc instead of mimalloc, a debug build of its own
//! under `$CARGO_TARGET_TMPDIR/sanitize-build`). ASan checks every memory access of the C side
//! and intercepts every allocation, the library's included, so LeakSanitizer's report at exit
//! covers what the engine still holds after `conn->close`: any leak fails the test, as does any
//! ASan or UBSan report.

mod common;

use common::{compile_c, output, root, scratch};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The library the sanitized programs link: built once per run with the system's allocator,
/// whose allocations ASan intercepts (mimalloc's it would not see).
fn library_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| common::library_with_features("system-allocator", "sanitize-build")).clone()
}

/// `cmd` set to load that library (`cargo test` puts its own library directory first).
fn with_library(cmd: &mut Command) -> &mut Command {
    cmd.env("LD_LIBRARY_PATH", library_dir())
}

/// Every C test (run by tests/c_tests.rs), each with c-tests/util.c.
const C_TESTS: &[&str] = &[
    "abi",
    "lifecycle",
    "formats",
    "cursor",
    "errors",
    "events",
    "struct_pack",
    "standalone_api",
    "cursor_edits",
    "truncate",
    "cursor_bounds",
    "fixed_records",
    "threads",
    "txn",
    "replay",
    "stat19",
    "cursor_cache",
    "stats_cursor",
    "stat_log",
    "crash",
    "stat_stress",
    "drop_close",
    "journal_damage",
    "journal_kill",
    "cache_full",
    "verify_compact",
    "bigger_than_cache",
    "evict_stress",
    "session_churn",
    "timestamps",
    "timestamps_crash",
    "schema",
    "index_threads",
    "join_stats",
    "join_random",
    "extractor",
    "extension_api",
    "listing_cursors",
    "extensions",
    "compress",
    "collator",
    "file_cursors",
];

/// Every example (run by tests/examples.rs).
const EXAMPLES: &[&str] = &["hello", "scan", "transactions", "statistics", "threads", "packing"];

/// Sanitizer reports that are known, reported, and not fixed yet: (program, text of the
/// report's line). Each is tolerated only in that program and only with that text; any other
/// report fails. Remove an entry with its fix.
const KNOWN: &[(&str, &str)] = &[];

/// Environment of a program's sanitized run: (program, variable, value). The stress tests run
/// shorter under the sanitizers.
const ENV: &[(&str, &str, &str)] = &[("evict_stress", "UNLATCHED_EVICT_SECONDS", "3")];

/// Compiler flags. No -Werror: tests/c_tests.rs and tests/examples.rs enforce the warnings,
/// and GCC's sanitizer instrumentation raises false ones (-Wformat-truncation on
/// `vsnprintf(NULL, 0, ...)` in c-tests/replay.c with GCC 12).
const FLAGS: &[&str] = &["-std=c11", "-O0", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-Wall", "-Wextra"];

/// Builds `sources` with the sanitizers (and `extra_flags`) into `exe`, runs it from the repository root and
/// panics on a failure or on any sanitizer report other than the KNOWN ones.
fn sanitized(name: &str, extra_flags: &[&str], sources: &[PathBuf], dir_name: &str) {
    let dir = scratch(dir_name);
    let exe = dir.join(name);
    let flags: Vec<&str> = FLAGS.iter().chain(extra_flags).copied().collect();
    compile_c(&flags, sources, &exe, &library_dir());
    let known: Vec<&str> = KNOWN.iter().filter(|(n, _)| *n == name).map(|(_, text)| *text).collect();
    // Stop at the first UBSan report, unless a known one must be stepped over.
    let halt = if known.is_empty() { 1 } else { 0 };
    let mut cmd = Command::new(&exe);
    for (_, var, value) in ENV.iter().filter(|(n, _, _)| *n == name) {
        cmd.env(var, value);
    }
    let out = output(
        with_library(&mut cmd)
            .current_dir(root())
            .env("ASAN_OPTIONS", "detect_leaks=1")
            .env("LSAN_OPTIONS", "")
            .env("UBSAN_OPTIONS", format!("halt_on_error={halt}:print_stacktrace=1")),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("LeakSanitizer has encountered a fatal error") || stderr.contains("does not work under ptrace") {
        panic!(
            "LeakSanitizer cannot run in this environment (it needs ptrace; in a container, allow \
             SYS_PTRACE): the leak checks of {name} did not happen\n{stderr}"
        );
    }
    let mut unknown = Vec::new();
    for line in stderr.lines() {
        let report = line.contains("runtime error:")
            || line.contains("ERROR: AddressSanitizer")
            || line.contains("ERROR: LeakSanitizer")
            || line.contains("SUMMARY: UndefinedBehaviorSanitizer");
        if report && !known.iter().any(|k| line.contains(k)) {
            unknown.push(line);
        }
    }
    for k in &known {
        if stderr.contains(k) {
            eprintln!("note: known sanitizer report in {name}, not fixed yet: {k}");
        } else {
            eprintln!("note: the known report \"{k}\" no longer appears: remove it from KNOWN in tests/sanitize.rs");
        }
    }
    assert!(
        out.status.success() && unknown.is_empty(),
        "{name} under ASan/UBSan: {} with {} sanitizer report(s):\n{}\n--- stdout (tail)\n{}\n--- stderr\n{stderr}",
        out.status,
        unknown.len(),
        unknown.join("\n"),
        String::from_utf8_lossy(&out.stdout).lines().rev().take(20).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n"),
    );
}

fn c_test(name: &str) {
    let sources = [root().join("c-tests").join(format!("{name}.c")), root().join("c-tests/util.c")];
    let include = format!("-I{}", root().join("c-tests").display()); // util.h
    sanitized(name, &[&include], &sources, &format!("sanitize-c-{name}"));
}

fn example(name: &str) {
    sanitized(name, &[], &[root().join("examples/c").join(format!("{name}.c"))], &format!("sanitize-example-{name}"));
}

macro_rules! sanitized_tests {
    ($kind:ident: $($test:ident => $name:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            $kind($name);
        }
    )*};
}

sanitized_tests! { c_test:
    asan_ubsan_c_abi => "abi",
    asan_ubsan_c_lifecycle => "lifecycle",
    asan_ubsan_c_formats => "formats",
    asan_ubsan_c_cursor => "cursor",
    asan_ubsan_c_errors => "errors",
    asan_ubsan_c_events => "events",
    asan_ubsan_c_struct_pack => "struct_pack",
    asan_ubsan_c_standalone_api => "standalone_api",
    asan_ubsan_c_cursor_edits => "cursor_edits",
    asan_ubsan_c_truncate => "truncate",
    asan_ubsan_c_cursor_bounds => "cursor_bounds",
    asan_ubsan_c_fixed_records => "fixed_records",
    asan_ubsan_c_threads => "threads",
    asan_ubsan_c_txn => "txn",
    asan_ubsan_c_replay => "replay",
    asan_ubsan_c_stat19 => "stat19",
    asan_ubsan_c_cursor_cache => "cursor_cache",
    asan_ubsan_c_stats_cursor => "stats_cursor",
    asan_ubsan_c_stat_log => "stat_log",
    asan_ubsan_c_crash => "crash",
    asan_ubsan_c_stat_stress => "stat_stress",
    asan_ubsan_c_drop_close => "drop_close",
    asan_ubsan_c_journal_damage => "journal_damage",
    asan_ubsan_c_journal_kill => "journal_kill",
    asan_ubsan_c_cache_full => "cache_full",
    asan_ubsan_c_verify_compact => "verify_compact",
    asan_ubsan_c_bigger_than_cache => "bigger_than_cache",
    asan_ubsan_c_evict_stress => "evict_stress",
    asan_ubsan_c_session_churn => "session_churn",
    asan_ubsan_c_timestamps => "timestamps",
    asan_ubsan_c_timestamps_crash => "timestamps_crash",
    asan_ubsan_c_schema => "schema",
    asan_ubsan_c_index_threads => "index_threads",
    asan_ubsan_c_join_stats => "join_stats",
    asan_ubsan_c_join_random => "join_random",
    asan_ubsan_c_extractor => "extractor",
    asan_ubsan_c_extension_api => "extension_api",
    asan_ubsan_c_listing_cursors => "listing_cursors",
    asan_ubsan_c_extensions => "extensions",
    asan_ubsan_c_compress => "compress",
    asan_ubsan_c_collator => "collator",
    asan_ubsan_c_file_cursors => "file_cursors",
}

sanitized_tests! { example:
    asan_ubsan_example_hello => "hello",
    asan_ubsan_example_scan => "scan",
    asan_ubsan_example_transactions => "transactions",
    asan_ubsan_example_statistics => "statistics",
    asan_ubsan_example_threads => "threads",
    asan_ubsan_example_packing => "packing",
}

/// The probe of every method (tests/feature_table.rs): the ENOTSUP paths too.
#[test]
fn asan_ubsan_feature_probe() {
    sanitized("feature_probe", &[], &[root().join("tests/feature_probe.c")], "sanitize-feature-probe");
}

/// The lists above cover every C test and every example.
#[test]
fn every_c_program_is_sanitized() {
    for (dir, listed, skip) in [("c-tests", C_TESTS, "util"), ("examples/c", EXAMPLES, "")] {
        let mut found: Vec<String> = std::fs::read_dir(root().join(dir))
            .expect("read the dir")
            .filter_map(|e| {
                let p = e.expect("dir entry").path();
                (p.extension()? == "c").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
            })
            .filter(|n| n != skip)
            .collect();
        found.sort();
        let mut listed: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
        listed.sort();
        assert_eq!(found, listed, "{dir}/*.c and the lists of tests/sanitize.rs differ");
    }
}

/// The leak check works here: a program that never closes its connection is reported.
#[test]
fn leak_sanitizer_reports_an_unclosed_connection() {
    let dir = scratch("sanitize-leak-canary");
    let src = dir.join("leak.c");
    // The work runs in a thread, whose stack LeakSanitizer no longer scans once it has ended:
    // stale copies of the handles in a dead stack frame cannot hide the leak.
    std::fs::write(
        &src,
        "#include <pthread.h>\n\
         #include <wiredtiger.h>\n\
         static void *work(void *arg) {\n\
             WT_CONNECTION *conn;\n\
             WT_SESSION *session;\n\
             if (wiredtiger_open(NULL, NULL, \"create,in_memory=true\", &conn) != 0) return arg;\n\
             if (conn->open_session(conn, NULL, NULL, &session) != 0) return arg;\n\
             if (session->create(session, \"table:t\", \"key_format=S,value_format=S\") != 0) return arg;\n\
             return (void *)1; /* never closed: everything the engine allocated leaks */\n\
         }\n\
         int main(void) {\n\
             pthread_t t;\n\
             void *done = NULL;\n\
             if (pthread_create(&t, NULL, work, NULL) != 0 || pthread_join(t, &done) != 0) return 2;\n\
             return done == (void *)1 ? 0 : 2;\n\
         }\n",
    )
    .expect("write the canary");
    let exe = dir.join("leak");
    compile_c(FLAGS, &[src], &exe, &library_dir());
    let out = output(with_library(&mut Command::new(&exe)).env("ASAN_OPTIONS", "detect_leaks=1").env("LSAN_OPTIONS", ""));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("ERROR: LeakSanitizer: detected memory leaks"),
        "LeakSanitizer did not report a connection that was never closed ({}):\n{stderr}",
        out.status
    );
}
