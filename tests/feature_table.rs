//! Keeps the feature table of README.md ("What works today") honest: `tests/feature_probe.c`
//! calls every method once with valid arguments, and each row's status must match what the
//! library answers. ENOTSUP rows must answer `ENOTSUP`; done and partial rows must not; "not
//! provided" functions must be neither exported nor declared. Implementing a method therefore
//! means updating its row (and a new probe needs a row).

mod common;

use common::{allowed_exports, compile_c, library_dir, root, run_ok, scratch};
use std::collections::BTreeMap;
use std::process::Command;

#[derive(Debug, PartialEq)]
enum Status {
    Done,
    Partial,
    Enotsup,
    NotProvided,
}

/// The rows of the table: (names, status). A first cell with `code` names gives those names,
/// else the cell's text is the name (feature rows such as "statistics cursors").
fn readme_rows() -> Vec<(Vec<String>, Status)> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("read README.md");
    let start = readme.find("## What works today").expect("README.md has a \"What works today\" section");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let mut rows = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| API") && !l.starts_with("|---")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        assert!(cells.len() >= 2, "malformed row in README.md: {line}");
        let names: Vec<String> = if cells[0].contains('`') {
            cells[0].split('`').skip(1).step_by(2).map(str::to_owned).collect()
        } else {
            vec![cells[0].to_owned()]
        };
        let status = match cells[1] {
            "done" => Status::Done,
            "partial" => Status::Partial,
            "ENOTSUP" => Status::Enotsup,
            "not provided" => Status::NotProvided,
            other => panic!("README.md row {:?}: unknown status \"{other}\" (done, partial, ENOTSUP, not provided)", names),
        };
        rows.push((names, status));
    }
    assert!(rows.len() > 50, "the feature table lists only {} rows", rows.len());
    rows
}

/// Name -> result of every probe.
fn probe() -> BTreeMap<String, i32> {
    let dir = scratch("feature-probe");
    let exe = dir.join("feature_probe");
    compile_c(
        &["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Wpedantic", "-Werror"],
        &[root().join("tests/feature_probe.c")],
        &exe,
        &library_dir(),
    );
    let home = dir.join("home");
    std::fs::create_dir_all(&home).expect("create the probe's home");
    let out = run_ok(common::with_library(&mut Command::new(&exe)).arg(&home).current_dir(&dir));
    out.lines()
        .map(|l| {
            let (name, rc) = l.split_once('\t').unwrap_or_else(|| panic!("bad probe line: {l}"));
            (name.to_owned(), rc.parse().unwrap_or_else(|_| panic!("bad probe result: {l}")))
        })
        .collect()
}

#[test]
fn readme_feature_table_matches_the_library() {
    let rows = readme_rows();
    let results = probe();
    let header = std::fs::read_to_string(root().join("include/wiredtiger.h")).expect("read the header");
    let exports = allowed_exports();
    let mut wrong = Vec::new();
    for (names, status) in &rows {
        for name in names {
            if *status == Status::NotProvided {
                if exports.contains(name) || header.contains(&format!("{name}(")) {
                    wrong.push(format!("{name}: marked \"not provided\" but the library provides it"));
                }
                continue;
            }
            let Some(&rc) = results.get(name) else {
                wrong.push(format!("{name}: no probe in tests/feature_probe.c"));
                continue;
            };
            let enotsup = rc == libc::ENOTSUP;
            match status {
                Status::Enotsup if !enotsup => wrong.push(format!("{name}: marked ENOTSUP, answers {rc}")),
                Status::Done | Status::Partial if enotsup => wrong.push(format!("{name}: marked {status:?}, answers ENOTSUP")),
                _ => {}
            }
        }
    }
    for name in results.keys() {
        if !rows.iter().any(|(names, _)| names.contains(name)) {
            wrong.push(format!("{name}: probed but missing from the table"));
        }
    }
    assert!(
        wrong.is_empty(),
        "README.md's feature table (\"What works today\") disagrees with the library:\n  {}",
        wrong.join("\n  ")
    );
}
