//! The C benchmark suite's own tools (bench-c/, tools/benchstat.c, tools/bench-plot): the exact
//! permutation test against known values, the plot, bad options of the benchmarks and the runner
//! (a usage message and a non-zero exit, never a hang), and short runs of the new benchmarks
//! against this build's library.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Compiles `source` (relative to the root) into the scratch dir `dir`, linked with this build's
/// libunlatched when `link` is set.
fn build(dir: &Path, source: &str, link: bool) -> PathBuf {
    let name = Path::new(source).file_stem().unwrap().to_str().unwrap();
    let exe = dir.join(name);
    let mut cmd = Command::new(common::cc());
    cmd.args(["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror"]).arg(common::root().join(source));
    if link {
        let lib = common::library_dir();
        cmd.arg("-I").arg(common::root().join("include")).arg("-L").arg(&lib);
        cmd.args(["-lunlatched", "-lpthread"]).arg(format!("-Wl,-rpath,{}", lib.display()));
    }
    let out = cmd.arg("-lm").arg("-o").arg(&exe).output().expect("run cc");
    assert!(out.status.success(), "cc {source}: {}", String::from_utf8_lossy(&out.stderr));
    exe
}

fn run(exe: &Path, args: &[&str]) -> Output {
    common::with_library(&mut Command::new(exe)).args(args).output().unwrap_or_else(|e| panic!("run {}: {e}", exe.display()))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The value of `key=` in benchstat's output line.
fn field(line: &str, key: &str) -> String {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key}= in {line}"))
        .to_string()
}

fn benchstat() -> PathBuf {
    build(&common::scratch("bench-suite-benchstat"), "tools/benchstat.c", false)
}

fn p_value(exe: &Path, a: &[f64], b: &[f64]) -> f64 {
    let mut args: Vec<String> = a.iter().map(f64::to_string).collect();
    args.push("--".into());
    args.extend(b.iter().map(f64::to_string));
    let out = Command::new(exe).args(&args).output().expect("run benchstat");
    assert!(out.status.success(), "{}", text(&out.stderr));
    field(&text(&out.stdout), "p").parse().unwrap()
}

#[test]
fn permutation_test_is_exact() {
    let exe = benchstat();
    // 5 + 5 runs that do not overlap: 2 of the C(10,5) = 252 splits are as extreme (the seed's 0.008).
    let p = p_value(&exe, &[1.0, 2.0, 3.0, 4.0, 5.0], &[6.0, 7.0, 8.0, 9.0, 10.0]);
    assert!((p - 2.0 / 252.0).abs() < 1e-4, "complete separation: p = {p}");
    assert!((p_value(&exe, &[6.0, 7.0, 8.0, 9.0, 10.0], &[1.0, 2.0, 3.0, 4.0, 5.0]) - p).abs() < 1e-9);
    // The same values on both sides: every split is at least as extreme.
    assert_eq!(p_value(&exe, &[1.0, 2.0, 3.0, 4.0, 5.0], &[1.0, 2.0, 3.0, 4.0, 5.0]), 1.0);
    // Values that scipy.stats.permutation_test (1.17.1; difference of means, independent,
    // two-sided, n_resamples=inf, which enumerates every split) gives for the same samples.
    let known: [(&[f64], &[f64], f64); 4] = [
        (&[1.0, 2.0, 3.0, 6.0, 9.0], &[4.0, 5.0, 7.0, 8.0, 10.0], 0.222_222_222_2),
        (&[18.5, 16.1, 18.8, 18.2, 17.9], &[18.3, 17.3, 18.6, 18.1, 17.6], 0.928_571_428_6),
        (&[9.92, 9.68, 10.99, 10.1, 9.8], &[9.72, 9.58, 10.03, 9.9, 9.6], 0.214_285_714_3),
        // Unequal sizes: twice the smaller one-sided fraction (2 * 1/70), as scipy.
        (&[1.0, 2.0, 3.0, 4.0], &[2.5, 5.0, 6.0, 7.0, 8.0, 9.0], 0.028_571_428_6),
    ];
    for (a, b, want) in known {
        let p = p_value(&exe, a, b);
        assert!((p - want).abs() < 1e-4, "{a:?} vs {b:?}: p = {p}, scipy gives {want}");
    }
}

#[test]
fn benchstat_summaries_and_bad_input() {
    let exe = benchstat();
    let out = text(&run(&exe, &["3", "1", "2", "10"]).stdout);
    assert_eq!((field(&out, "n"), field(&out, "median"), field(&out, "min"), field(&out, "max")), ("4".into(), "2.5".into(), "1".into(), "10".into()));
    let out = text(&run(&exe, &["10", "10", "10", "--", "11", "12", "11"]).stdout);
    assert_eq!(field(&out, "median2"), "11");
    assert_eq!(field(&out, "change_pct"), "10.0");
    for bad in [&[][..], &["x"], &["1", "--"], &["1", "--", "2", "--", "3"]] {
        let out = run(&exe, bad);
        assert_eq!(out.status.code(), Some(2), "benchstat {bad:?}");
        assert!(text(&out.stderr).contains("usage: benchstat"), "benchstat {bad:?}: {}", text(&out.stderr));
    }
    let many: Vec<String> = (0..25).map(|i| i.to_string()).collect();
    assert_eq!(Command::new(&exe).args(&many).output().unwrap().status.code(), Some(2));
}

#[test]
fn plot_draws_one_svg_per_benchmark() {
    let dir = common::scratch("bench-suite-plot");
    let csv = dir.join("summary.csv");
    std::fs::write(
        &csv,
        "benchmark,label,group,library,library_dir,metric,x_key,x,n,median,min,max,change_pct,p\n\
         \"search\",\"threads=1\",\"t\",\"A wiredtiger\",\"/x\",ops_per_sec,threads,1,5,3000000,2900000,3100000,,\n\
         \"search\",\"threads=2\",\"t\",\"A wiredtiger\",\"/x\",ops_per_sec,threads,2,5,5000000,4000000,6000000,,\n\
         \"search\",\"threads=1\",\"t\",\"B unlatched\",\"/y\",ops_per_sec,threads,1,5,14000000,13000000,15000000,366.7,0.0079\n\
         \"search\",\"threads=2\",\"t\",\"B unlatched\",\"/y\",ops_per_sec,threads,2,5,28000000,27000000,29000000,460.0,0.0079\n\
         \"stat_read\",\"sessions=0, idle\",\"k\",\"B unlatched\",\"/y\",us_per_read,sessions,0,3,10,9,11,,\n\
         \"stat_read\",\"sessions=4000, idle\",\"k\",\"B unlatched\",\"/y\",us_per_read,sessions,4000,3,20,19,22,,\n",
    )
    .unwrap();
    let out = Command::new("bash").arg(common::root().join("tools/bench-plot")).arg(&csv).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let search = std::fs::read_to_string(dir.join("search.svg")).unwrap();
    assert!(search.starts_with("<svg ") && search.trim_end().ends_with("</svg>"));
    assert_eq!(search.matches("<polyline").count(), 2, "one line per library");
    assert!(search.contains("t, A wiredtiger") && search.contains("t, B unlatched"));
    assert!(search.contains("M ops/s"));
    let stat = std::fs::read_to_string(dir.join("stat_read.svg")).unwrap();
    assert!(stat.contains(">sessions<") && stat.contains("us"));
    let bad = Command::new("bash").arg(common::root().join("tools/bench-plot")).arg(dir.join("none.csv")).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn benchmarks_refuse_bad_options() {
    let dir = common::scratch("bench-suite-options");
    let workload = build(&dir, "bench-c/workload.c", true);
    let churn = build(&dir, "bench-c/session_churn.c", true);
    let file = dir.join("bad.wtperf");
    std::fs::write(&file, "icount=10\nthreads=((count=1,scans=1))\n").unwrap();
    let file = file.to_str().unwrap();
    let cases: [(&Path, &[&str], &str); 10] = [
        (&workload, &[], "no workload"),
        (&workload, &["-x"], "usage: workload"),
        (&workload, &["-O", "/nonexistent.wtperf"], "/nonexistent.wtperf"),
        (&workload, &["-O", file], "unsupported key \"scans\""),
        (&workload, &["-o", "icount=abc,threads=((count=1,reads=1))"], "icount needs a non-negative integer"),
        (&workload, &["-o", "threads=((count=1,reads=1)"], "unbalanced"),
        (&workload, &["-o", "nosuch=1"], "unsupported option \"nosuch\""),
        (&workload, &["-o", "threads=((count=1,reads=1)),run_time=0"], "run_time"),
        (&churn, &["-m", "lifo"], "-m takes open, pool or own"),
        (&churn, &["-t", "0"], "threads"),
    ];
    for (exe, args, says) in cases {
        let out = run(exe, args);
        assert_eq!(out.status.code(), Some(2), "{} {args:?}: {}", exe.display(), text(&out.stderr));
        assert!(text(&out.stderr).contains(says), "{} {args:?}: {}", exe.display(), text(&out.stderr));
    }
    // An API failure stops with the call, the error code and wiredtiger_strerror's text: a
    // connection configuration with a key the library does not know.
    let small = common::root().join("bench-c/workloads/read-only-small.wtperf");
    let out = run(&workload, &["-O", small.to_str().unwrap(), "-C", "in_memory=true,no_such_key=1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("wiredtiger_open(home, NULL, config, &conn) failed: 22 (Invalid argument)"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn workload_runs_every_shipped_file() {
    let dir = common::scratch("bench-suite-workload");
    let workload = build(&dir, "bench-c/workload.c", true);
    let mut files: Vec<_> = std::fs::read_dir(common::root().join("bench-c/workloads"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wtperf"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 8, "the seed's four workloads and their -small variants");
    for f in &files {
        let small = f.to_str().unwrap().ends_with("-small.wtperf");
        // Scaled down to a second; the seed's files also need in-memory for unlatched.
        let mut args = vec!["-O", f.to_str().unwrap(), "-o", "icount=2000,run_time=1,report_interval=1,sample_interval=1"];
        if !small {
            args.extend(["-C", "in_memory=true,cache_size=1G"]);
        }
        let out = run(&workload, &args);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{}: {}{}", f.display(), stdout, text(&out.stderr));
        assert!(stdout.contains("Finished load of 2000 items"), "{stdout}");
        assert!(stdout.contains(" in 1 secs (1 total secs)"), "{stdout}");
        let last = stdout.lines().last().unwrap();
        assert!(last.starts_with("workload name="), "{last}");
        for (op, word) in [("read", "reads=1"), ("insert", "inserts=1"), ("update", "updates=1")] {
            let runs = std::fs::read_to_string(f).unwrap().lines().any(|l| l.starts_with("threads=") && l.contains(word));
            let executed = stdout.lines().any(|l| l.starts_with("Executed ") && l.contains(&format!(" {op} operations (")));
            assert_eq!(executed, runs, "{op} in {stdout}");
            assert_eq!(last.contains(&format!(" {op}_p99_us=")), runs, "{last}");
        }
    }
    // A thread mixing operations, two populate threads, a monitor file.
    let monitor = dir.join("monitor.csv");
    let out = run(
        &workload,
        &[
            "-o",
            "icount=3000,populate_threads=2,run_time=1,key_sz=12,value_sz=30,sample_interval=1,threads=((count=2,reads=2,inserts=1,updates=1))",
            "-C",
            "in_memory=true",
            "-M",
            monitor.to_str().unwrap(),
        ],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("Finished load of 3000 items"));
    assert!(stdout.contains("Starting workload threads: 2 read, 2 insert, 2 update"), "{stdout}");
    let mon = std::fs::read_to_string(&monitor).unwrap();
    assert_eq!(mon.lines().count(), 2, "a header and one sample: {mon}");
}

#[test]
fn session_churn_runs_each_mode() {
    let dir = common::scratch("bench-suite-churn");
    let churn = build(&dir, "bench-c/session_churn.c", true);
    for mode in ["open", "pool", "own"] {
        let out = run(&churn, &["-m", mode, "-t", "3", "-s", "0.1", "-w", "0"]);
        let line = text(&out.stdout);
        assert!(out.status.success(), "{mode}: {line}{}", text(&out.stderr));
        assert!(line.starts_with(&format!("session_churn mode={mode} threads=3 ")), "{line}");
        assert!(field(&line, "ops").parse::<u64>().unwrap() > 0, "{line}");
        assert!(field(&line, "cpu_pct").parse::<f64>().is_ok(), "{line}");
        assert!(run(&churn, &["-m", mode, "-i", "1000"]).status.success());
    }
}

#[test]
fn durable_runs_each_mode_in_its_own_directory() {
    let dir = common::scratch("bench-suite-durable");
    let durable = build(&dir, "bench-c/durable.c", true);
    for args in [&["-m", "scan"][..], &["-S", "maybe"], &["-k", "later"], &["-t", "0"]] {
        let out = run(&durable, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains("usage: "), "{args:?}: {}", text(&out.stderr));
    }
    let parent = dir.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["-m", "insert", "-S", "off", "-t", "2"], "syncs_per_commit"),
        (&["-m", "insert", "-S", "on"], "syncs_per_commit"),
        (&["-m", "reopen", "-k", "clean", "-n", "2000"], "reopen_us"),
        (&["-m", "reopen", "-k", "crash", "-n", "2000"], "reopen_us"),
        (&["-m", "ckptread", "-n", "2000"], "ratio"),
    ];
    for (args, key) in cases {
        let mut all = args.to_vec();
        all.extend(["-s", "0.1", "-w", "0", "-d", parent]);
        let out = run(&durable, &all);
        let line = text(&out.stdout);
        assert!(out.status.success(), "{args:?}: {line}{}", text(&out.stderr));
        assert!(field(&line, key).parse::<f64>().is_ok(), "{args:?}: {line}");
    }
    // Each run removed its database directory.
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()?.file_name().into_string().ok()).collect();
    assert!(left.iter().all(|n| !n.starts_with("bench-durable-")), "{left:?}");
}

#[test]
fn runner_refuses_bad_settings_before_building() {
    let runner = common::root().join("bench-c/run");
    let cases: [(&str, &str, &str); 4] = [
        ("BENCH_ONLY", "nosuch", "names none of"),
        ("BENCH_RUNS", "0", "BENCH_RUNS must be a positive integer"),
        ("BENCH_COMPARE", "/nonexistent", "holds no wiredtiger.h"),
        ("BENCH_LIB", "/nonexistent", "holds no wiredtiger.h"),
    ];
    for (var, value, says) in cases {
        let out = Command::new("bash").arg(&runner).env(var, value).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{var}={value}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(says), "{var}={value}: {}", text(&out.stderr));
    }
}

#[test]
fn disk_runs_each_mode_in_its_own_directory() {
    let dir = common::scratch("bench-suite-disk");
    let disk = build(&dir, "bench-c/disk.c", true);
    for args in [&["-m", "scan"][..], &["-c", "0"], &["-k", "0"], &["-t", "0"], &["extra"]] {
        let out = run(&disk, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains("usage: "), "{args:?}: {}", text(&out.stderr));
    }
    let parent = dir.to_str().unwrap();
    // A load larger than its 1 MB cache, with checkpoints during it; reads with 2 threads.
    let cases: [(&[&str], &[&str]); 2] = [
        (
            &["-m", "load", "-n", "20000", "-c", "1", "-k", "5000"],
            &["ops_per_sec", "load_seconds", "peak_rss_mib", "file_mib", "reopen_us", "ckpt_write_mib", "upd_write_mib"],
        ),
        (&["-m", "read", "-n", "20000", "-c", "1", "-t", "2", "-s", "0.2", "-w", "0"], &["ops_per_sec", "file_mib"]),
    ];
    for (args, keys) in cases {
        let mut all = args.to_vec();
        all.extend(["-d", parent]);
        let out = run(&disk, &all);
        let line = text(&out.stdout);
        assert!(out.status.success(), "{args:?}: {line}{}", text(&out.stderr));
        assert!(line.starts_with(&format!("disk mode={} ", args[1])), "{line}");
        for key in keys {
            let v: f64 = field(&line, key).parse().unwrap_or_else(|_| panic!("{key} in {line}"));
            assert!(v >= 0.0, "{key} in {line}");
        }
        assert!(field(&line, "ops_per_sec").parse::<f64>().unwrap() > 0.0, "{line}");
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()?.file_name().into_string().ok()).collect();
    assert!(left.iter().all(|n| !n.starts_with("bench-disk-")), "{left:?}");
}
