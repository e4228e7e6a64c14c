//! `make install` / `make uninstall` (Makefile, tools/installer) as a C programmer uses them:
//! install into a temporary prefix, build and run a program through pkg-config only (shared
//! and static), check the SONAME, the version links and the exported symbols, stage with
//! DESTDIR, provide the WiredTiger names with WIREDTIGER_COMPAT=1, and uninstall exactly what
//! was installed. Bad input (missing tools, an unwritable prefix, a failure halfway) must fail
//! with a clear message and leave nothing behind.
//!
//! The Makefile builds its own release library (with the SONAME) in
//! `$CARGO_TARGET_TMPDIR/make-build`: the first test that installs pays for that build.

mod common;

use common::{allowed_exports, cc, dynamic_symbols, output, root, run_ok, scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn major() -> &'static str {
    VERSION.split('.').next().expect("x.y.z")
}

/// `make -f Makefile TARGET VARS...`, with the build directory of this test run and no
/// ldconfig (the tests never touch the system's linker cache).
fn make(target: &str, vars: &[(&str, &str)]) -> Output {
    let build_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("make-build");
    let mut cmd = Command::new("make");
    cmd.arg("--no-print-directory")
        .arg("-f")
        .arg(root().join("Makefile"))
        .arg(target)
        .arg(format!("BUILD_DIR={}", build_dir.display()))
        .arg(format!("CARGO={}", option_env!("CARGO").unwrap_or("cargo")))
        .arg("LDCONFIG=")
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS")
        .env_remove("MAKELEVEL")
        .env_remove("DESTDIR")
        .env_remove("PREFIX");
    for (k, v) in vars {
        cmd.arg(format!("{k}={v}"));
    }
    output(&mut cmd)
}

/// As `make`, and panics with its output unless it succeeds.
fn make_ok(target: &str, vars: &[(&str, &str)]) -> String {
    let out = make(target, vars);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "make {target} {vars:?} failed: {}\n--- stdout\n{stdout}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// As `make`, and checks that it fails with `message` on stderr. Returns stderr.
fn make_fails(target: &str, vars: &[(&str, &str)], message: &str) -> String {
    let out = make(target, vars);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "make {target} {vars:?} succeeded, expected a failure with \"{message}\"");
    assert!(stderr.contains(message), "make {target} {vars:?}: stderr lacks \"{message}\":\n{stderr}");
    stderr
}

/// Every path below `dir` with its kind and content (links: target; files: size and hash).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries {
            let path = entry.expect("dir entry").path();
            let rel = path.strip_prefix(base).expect("below base").to_path_buf();
            let meta = std::fs::symlink_metadata(&path).expect("metadata");
            if meta.file_type().is_symlink() {
                out.insert(rel, format!("link -> {}", std::fs::read_link(&path).expect("link").display()));
            } else if meta.is_dir() {
                out.insert(rel, "dir".into());
                walk(base, &path, out);
            } else {
                let bytes = std::fs::read(&path).expect("read");
                let hash = bytes.iter().fold(0xcbf29ce484222325u64, |h, b| (h ^ *b as u64).wrapping_mul(0x100000001b3));
                out.insert(rel, format!("file {} bytes {hash:016x}", bytes.len()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn link_target(path: &Path) -> String {
    std::fs::read_link(path).unwrap_or_else(|e| panic!("{} is not a link: {e}", path.display())).display().to_string()
}

fn soname(lib: &Path) -> String {
    let out = run_ok(Command::new("readelf").arg("-d").arg(lib));
    out.lines()
        .find(|l| l.contains("(SONAME)"))
        .and_then(|l| l.split('[').nth(1))
        .map(|s| s.trim_end_matches(']').to_owned())
        .unwrap_or_default()
}

fn needed(exe: &Path) -> Vec<String> {
    let out = run_ok(Command::new("readelf").arg("-d").arg(exe));
    out.lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split('[').nth(1).map(|s| s.trim_end_matches(']').to_owned()))
        .collect()
}

/// `pkg-config ARGS` seeing only the .pc files in `pc_dir`.
fn pkg_config(pc_dir: &Path, args: &[&str]) -> String {
    run_ok(Command::new("pkg-config").args(args).env("PKG_CONFIG_LIBDIR", pc_dir).env_remove("PKG_CONFIG_PATH"))
        .trim()
        .to_owned()
}

/// A copy of examples/c/scan.c in `dir` (away from the source tree's include/).
fn app_source(dir: &Path) -> PathBuf {
    let app = dir.join("app.c");
    std::fs::copy(root().join("examples/c/scan.c"), &app).expect("copy the app");
    app
}

fn check_app_output(stdout: &str) {
    assert!(stdout.contains("forward: 0=apple 10=banana"), "unexpected output of the installed app:\n{stdout}");
}

#[test]
fn install_build_through_pkg_config_and_uninstall() {
    let work = scratch("pkg-install");
    let prefix = work.join("prefix");
    // Something of someone else's already there: install and uninstall must leave it alone.
    std::fs::create_dir_all(prefix.join("lib")).unwrap();
    std::fs::write(prefix.join("lib/libother.so"), "not ours").unwrap();
    let before = snapshot(&prefix);

    make_ok("install", &[("PREFIX", prefix.to_str().unwrap())]);

    // The library under its full version, the SONAME link and the development link.
    let lib = prefix.join("lib");
    let real = format!("libunlatched.so.{VERSION}");
    let so_major = format!("libunlatched.so.{}", major());
    assert!(std::fs::symlink_metadata(lib.join(&real)).unwrap().is_file(), "{real} is a regular file");
    assert_eq!(link_target(&lib.join(&so_major)), real);
    assert_eq!(link_target(&lib.join("libunlatched.so")), so_major);
    assert_eq!(soname(&lib.join(&real)), so_major, "SONAME of the installed library");
    assert!(lib.join("libunlatched.a").is_file());
    assert_eq!(
        std::fs::read(prefix.join("include/wiredtiger.h")).unwrap(),
        std::fs::read(root().join("include/wiredtiger.h")).unwrap(),
        "installed header differs from include/wiredtiger.h"
    );
    assert_eq!(
        std::fs::read(prefix.join("include/wiredtiger_ext.h")).unwrap(),
        std::fs::read(root().join("include/wiredtiger_ext.h")).unwrap(),
        "installed header differs from include/wiredtiger_ext.h"
    );
    assert!(!lib.join("libwiredtiger.so").exists(), "WIREDTIGER_COMPAT is off by default");
    assert_eq!(dynamic_symbols(&lib.join(&real)), allowed_exports(), "exports of the installed (release) library");

    // pkg-config only: the documented one-liner, with nothing but the installed .pc visible.
    let pc_dir = lib.join("pkgconfig");
    assert_eq!(pkg_config(&pc_dir, &["--modversion", "unlatched"]), VERSION);
    let app = app_source(&work);
    let exe = work.join("app");
    run_ok(
        Command::new("sh")
            .arg("-c")
            .arg(format!("{} \"$1\" $(pkg-config --cflags --libs unlatched) -o \"$2\"", cc()))
            .arg("sh")
            .arg(&app)
            .arg(&exe)
            .env("PKG_CONFIG_LIBDIR", &pc_dir)
            .env_remove("PKG_CONFIG_PATH"),
    );
    assert!(needed(&exe).contains(&so_major), "the app must need {so_major}: {:?}", needed(&exe));
    check_app_output(&run_ok(Command::new(&exe).env("LD_LIBRARY_PATH", &lib)));

    // Static linking: libunlatched.a plus `pkg-config --static`'s system libraries.
    let static_exe = work.join("app-static");
    let static_libs = pkg_config(&pc_dir, &["--static", "--libs-only-l", "unlatched"]);
    run_ok(
        Command::new(cc())
            .arg(&app)
            .args(pkg_config(&pc_dir, &["--cflags", "unlatched"]).split_whitespace())
            .arg(lib.join("libunlatched.a"))
            .args(static_libs.split_whitespace().filter(|f| *f != "-lunlatched"))
            .arg("-o")
            .arg(&static_exe),
    );
    assert!(!needed(&static_exe).iter().any(|n| n.contains("unlatched")), "static app needs {:?}", needed(&static_exe));
    check_app_output(&run_ok(Command::new(&static_exe).env_remove("LD_LIBRARY_PATH")));

    // Uninstall removes exactly what was installed: the tree is as before.
    make_ok("uninstall", &[("PREFIX", prefix.to_str().unwrap())]);
    assert_eq!(snapshot(&prefix), before, "make uninstall left or removed something");
}

#[test]
fn destdir_staging_and_wiredtiger_compat() {
    let work = scratch("pkg-destdir");
    let stage = work.join("stage");
    std::fs::create_dir_all(&stage).unwrap();
    let prefix = "/opt/unlatched-packaging-test";
    assert!(!Path::new(prefix).exists(), "{prefix} exists on this machine; the test needs it absent");
    let vars = [("DESTDIR", stage.to_str().unwrap()), ("PREFIX", prefix), ("WIREDTIGER_COMPAT", "1")];
    make_ok("install", &vars);
    assert!(!Path::new(prefix).exists(), "DESTDIR install wrote to the real {prefix}");

    let staged = stage.join(prefix.trim_start_matches('/'));
    let lib = staged.join("lib");
    let so_major = format!("libunlatched.so.{}", major());
    assert_eq!(link_target(&lib.join("libwiredtiger.so")), so_major);
    assert_eq!(link_target(&lib.join("libwiredtiger.a")), "libunlatched.a");
    let pc = std::fs::read_to_string(lib.join("pkgconfig/unlatched.pc")).unwrap();
    assert!(pc.contains(&format!("prefix={prefix}\n")), "the .pc names the final prefix, not DESTDIR:\n{pc}");
    let pc_dir = lib.join("pkgconfig");
    assert_eq!(pkg_config(&pc_dir, &["--modversion", "wiredtiger"]), "11.3.1", "wiredtiger.pc gives the API level");

    // A program built the WiredTiger way, `-lwiredtiger`, links unlatched (through its SONAME).
    let app = app_source(&work);
    let exe = work.join("app-wt");
    run_ok(
        Command::new(cc())
            .arg(&app)
            .arg(format!("-I{}", staged.join("include").display()))
            .arg(format!("-L{}", lib.display()))
            .arg("-lwiredtiger")
            .arg("-o")
            .arg(&exe),
    );
    assert!(needed(&exe).contains(&so_major), "-lwiredtiger must resolve to {so_major}: {:?}", needed(&exe));
    check_app_output(&run_ok(Command::new(&exe).env("LD_LIBRARY_PATH", &lib)));
    // And through wiredtiger.pc (the staged tree stands in for the prefix).
    let define = format!("--define-variable=prefix={}", staged.display());
    let flags = pkg_config(&pc_dir, &[&define, "--cflags", "--libs", "wiredtiger"]);
    run_ok(Command::new(cc()).arg(&app).args(flags.split_whitespace()).arg("-o").arg(work.join("app-wt-pc")));

    // Reinstalling without the compat names removes them (the installation is replaced).
    make_ok("install", &vars[..2]);
    assert!(std::fs::symlink_metadata(lib.join("libwiredtiger.so")).is_err(), "compat link left by a reinstall");
    assert!(!lib.join("pkgconfig/wiredtiger.pc").exists(), "wiredtiger.pc left by a reinstall");

    make_ok("uninstall", &vars[..2]);
    assert_eq!(snapshot(&stage), BTreeMap::new(), "make uninstall left files in the staging tree");
}

#[test]
fn failed_install_leaves_nothing_behind() {
    let work = scratch("pkg-rollback");
    let prefix = work.join("prefix");
    let p = prefix.to_str().unwrap();
    // A failure at each step of a fresh installation: not even the prefix is left.
    for step in ["1", "4", "9"] {
        make_fails(
            "install",
            &[("PREFIX", p), ("WIREDTIGER_COMPAT", "1"), ("UNLATCHED_INSTALL_FAIL_AT", step)],
            "Nothing was installed",
        );
        assert!(!prefix.exists(), "a failed install (step {step}) left {}", prefix.display());
    }
    // A failed reinstallation leaves the earlier installation exactly as it was.
    make_ok("install", &[("PREFIX", p)]);
    let installed = snapshot(&prefix);
    make_fails("install", &[("PREFIX", p), ("WIREDTIGER_COMPAT", "1"), ("UNLATCHED_INSTALL_FAIL_AT", "8")], "Nothing was installed");
    assert_eq!(snapshot(&prefix), installed, "a failed reinstall changed the installation");
    make_ok("uninstall", &[("PREFIX", p)]);
    assert!(!prefix.exists(), "uninstall left {}", prefix.display());
}

/// Missing tools and unusable destinations: a clear message, a non-zero exit, nothing written.
/// (These fail in the checks that run before the build, so they cost no build time.)
#[test]
fn bad_input_fails_clearly_without_installing() {
    let work = scratch("pkg-bad-input");
    let prefix = work.join("prefix");
    let p = prefix.to_str().unwrap();

    make_fails("install", &[("PREFIX", p), ("PKG_CONFIG", "/nonexistent/pkg-config")], "pkg-config ('/nonexistent/pkg-config') not found");
    assert!(!prefix.exists());
    make_fails("install", &[("PREFIX", p), ("CC", "/nonexistent/cc")], "C compiler '/nonexistent/cc' not found");
    assert!(!prefix.exists());
    make_fails("install", &[("PREFIX", "relative/prefix")], "PREFIX must be an absolute path");

    // An unwritable prefix: below a regular file; below a directory without write permission
    // (root ignores permissions, so as root: below /proc, which nobody may write to).
    let file = work.join("a-file");
    std::fs::write(&file, "").unwrap();
    make_fails("install", &[("PREFIX", file.join("prefix").to_str().unwrap())], "is not a directory");
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        make_fails("install", &[("PREFIX", "/proc/unlatched-packaging-test")], "cannot write to /proc");
    } else {
        use std::os::unix::fs::PermissionsExt;
        let locked = work.join("locked");
        std::fs::create_dir(&locked).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
        make_fails("install", &[("PREFIX", locked.join("prefix").to_str().unwrap())], "cannot write to");
        assert_eq!(snapshot(&locked), BTreeMap::new());
    }

    // Someone else's wiredtiger.h (WiredTiger itself) is not overwritten.
    std::fs::create_dir_all(prefix.join("include")).unwrap();
    std::fs::write(prefix.join("include/wiredtiger.h"), "/* WiredTiger */\n").unwrap();
    let before = snapshot(&prefix);
    make_fails("install", &[("PREFIX", p)], "is not unlatched's");
    assert_eq!(snapshot(&prefix), before);

    // Nothing to uninstall.
    make_fails("uninstall", &[("PREFIX", work.join("empty").to_str().unwrap())], "no unlatched installation is recorded");
}
