//! Checks of the public C interface: `include/wiredtiger.h` (with `wiredtiger_ext.h`) compiles on its own as C99, C11
//! and C++17 with every warning an error, also when included twice; the shared library exports
//! exactly the symbols of `exports.txt`, each declared and documented in the header; the
//! helpers that the C shim calls are private (prefixed, hidden, not in the header).

mod common;

use common::{allowed_exports, cc, cxx, dynamic_symbols, library_dir, output, root, scratch};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// A translation unit that includes the header `times` times and names every exported
/// function, so that each declaration is checked.
fn unit(times: usize) -> String {
    let mut src = String::new();
    for _ in 0..times {
        src.push_str("#include <wiredtiger.h>\n");
        // The extension API's header, likewise (it includes wiredtiger.h itself).
        src.push_str("#include <wiredtiger_ext.h>\n");
    }
    let names = allowed_exports();
    src.push_str(&format!("int main(void) {{\n    void (*fns[{}])(void);\n", names.len()));
    for (i, name) in names.iter().enumerate() {
        src.push_str(&format!("    fns[{i}] = (void (*)(void)){name};\n"));
    }
    src.push_str("    return fns[0] == 0;\n}\n");
    src
}

/// Compiles `unit(times)` as `lang` (`c` or `c++`) with `std`; panics with the compiler's
/// messages on any warning.
fn compile(lang: &str, std: &str, times: usize) {
    let dir = scratch(&format!("header-{lang}-{std}-{times}"));
    let (compiler, file) = if lang == "c" { (cc(), "unit.c") } else { (cxx(), "unit.cpp") };
    let src = dir.join(file);
    std::fs::write(&src, unit(times)).expect("write the unit");
    let out = output(
        Command::new(&compiler)
            .arg(format!("-std={std}"))
            .args(["-Wall", "-Wextra", "-Wpedantic", "-Werror", "-c"])
            .arg("-I")
            .arg(root().join("include"))
            .arg(&src)
            .arg("-o")
            .arg(dir.join("unit.o")),
    );
    assert!(
        out.status.success(),
        "include/wiredtiger.h does not compile cleanly as {std} ({compiler}, included {times}x):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn header_compiles_standalone_c99() {
    compile("c", "c99", 1);
    compile("c", "c99", 2);
}

#[test]
fn header_compiles_standalone_c11() {
    compile("c", "c11", 1);
    compile("c", "c11", 2);
}

#[test]
fn header_compiles_standalone_cxx17() {
    compile("c++", "c++17", 1);
    compile("c++", "c++17", 2);
}

#[test]
fn exported_symbols_match_allow_list() {
    let lib = library_dir().join("libunlatched.so");
    let exported = dynamic_symbols(&lib);
    let allowed = allowed_exports();
    let extra: Vec<_> = exported.difference(&allowed).collect();
    let missing: Vec<_> = allowed.difference(&exported).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "{} exports differ from exports.txt\n  exported but not allowed: {extra:?}\n  allowed but not exported: {missing:?}",
        lib.display()
    );
}

/// The header's text without comments, for looking up declarations.
fn header_code(header: &str) -> String {
    let mut code = String::new();
    let mut rest = header;
    while let Some(start) = rest.find("/*") {
        code.push_str(&rest[..start]);
        rest = &rest[start + 2..];
        rest = &rest[rest.find("*/").map_or(rest.len(), |e| e + 2)..];
    }
    code.push_str(rest);
    code.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

#[test]
fn every_export_is_declared_and_documented_in_header() {
    let header = std::fs::read_to_string(root().join("include/wiredtiger.h")).expect("read the header");
    let code = header_code(&header);
    let lines: Vec<&str> = header.lines().collect();
    // `NAME(` after a space or a `*`: a declaration, not a mention.
    let declares = |line: &str, name: &str| {
        [format!(" {name}("), format!("*{name}(")].iter().any(|d| line.contains(d.as_str()))
    };
    for name in allowed_exports() {
        assert!(
            code.lines().any(|l| declares(l, &name)),
            "{name} is exported but not declared in include/wiredtiger.h"
        );
        // The declaration's line must follow a comment (its documentation).
        let at = lines
            .iter()
            .position(|l| declares(l, &name) && !l.trim_start().starts_with('*'))
            .expect("declaration line");
        let before = lines[..at].iter().rev().find(|l| !l.trim().is_empty()).copied().unwrap_or("");
        assert!(
            before.trim_end().ends_with("*/"),
            "{name} has no documentation comment right before its declaration in include/wiredtiger.h"
        );
    }
}

/// Names of the functions that Rust exports with `#[no_mangle]` (any file under `src/`).
fn no_mangle_functions(dir: &Path, found: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            no_mangle_functions(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("read a source file");
            let mut pending = false;
            for line in text.lines() {
                let line = line.trim();
                if line.contains("no_mangle") && line.starts_with("#[") {
                    pending = true;
                } else if pending && line.contains("fn ") {
                    let name = line.split("fn ").nth(1).and_then(|r| r.split(['(', '<']).next()).unwrap_or("").trim();
                    found.insert(name.to_owned());
                    pending = false;
                }
            }
        }
    }
}

#[test]
fn shim_helpers_are_private() {
    let header = std::fs::read_to_string(root().join("include/wiredtiger.h")).expect("read the header");
    let allowed = allowed_exports();

    // What the shim calls in Rust: declared `extern UL_PRIVATE` (hidden) in shim.c.
    let shim = std::fs::read_to_string(root().join("src/capi/shim.c")).expect("read the shim");
    let mut helpers = BTreeSet::new();
    let mut decl = String::new();
    for line in shim.lines() {
        if line.starts_with("extern ") || !decl.is_empty() {
            decl.push_str(line);
            if line.contains(';') {
                assert!(decl.contains("UL_PRIVATE"), "shim.c declares a Rust helper without UL_PRIVATE (hidden): {decl}");
                let name = decl.split('(').next().unwrap_or("").split_whitespace().last().unwrap_or("").trim_start_matches('*');
                helpers.insert(name.to_owned());
                decl.clear();
            }
        }
    }
    assert!(!helpers.is_empty(), "found no helper declarations in src/capi/shim.c");
    assert!(shim.contains("visibility(\"hidden\")"), "UL_PRIVATE no longer means hidden visibility");

    // Every Rust function with an unmangled name is either public API or a private helper.
    let mut unmangled = BTreeSet::new();
    no_mangle_functions(&root().join("src"), &mut unmangled);
    for name in &unmangled {
        assert!(
            allowed.contains(name) || name.starts_with("__unlatched_"),
            "#[no_mangle] fn {name} is neither in exports.txt nor prefixed __unlatched_ (private)"
        );
    }
    for name in &helpers {
        assert!(name.starts_with("__unlatched_"), "shim helper {name} lacks the private prefix __unlatched_");
        assert!(unmangled.contains(name), "shim helper {name} is not a #[no_mangle] Rust function");
    }

    // None of them, nor the shim's own entry points, appear in the header or the exports.
    let code = header_code(&header);
    for prefix in ["__unlatched_", "__ul_"] {
        assert!(!code.contains(prefix), "include/wiredtiger.h declares a private {prefix}* name");
    }
    let exported = dynamic_symbols(&library_dir().join("libunlatched.so"));
    let leaked: Vec<_> = exported.iter().filter(|s| s.starts_with("__unlatched_") || s.starts_with("__ul_")).collect();
    assert!(leaked.is_empty(), "private symbols exported: {leaked:?}");
}
