//! The committed catalogue must be what the generator makes from the spec, and agree with the
//! spec's description files line by line. Skipped with a note when the spec is not beside the
//! checkout (as tests/header.rs does).

use std::path::Path;

use super::Family;

fn spec() -> Option<&'static Path> {
    let spec = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/spec"));
    if spec.join("statistics.md").exists() {
        Some(spec)
    } else {
        eprintln!("note: ../shared/spec not found; statistics catalogue check skipped");
        None
    }
}

#[test]
fn the_catalogue_is_current() {
    let Some(spec) = spec() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .arg(root.join("tools/gen_stat_catalog.py"))
        .arg(spec)
        .arg("-")
        .output()
        .expect("run python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let committed = std::fs::read_to_string(root.join("src/stats/catalog.rs")).unwrap();
    assert!(
        out.stdout == committed.as_bytes(),
        "src/stats/catalog.rs is stale: run tools/gen_stat_catalog.py ../shared/spec"
    );
}

#[test]
fn descriptions_are_the_spec_files() {
    let Some(spec) = spec() else { return };
    for (family, file) in [(Family::Connection, "statistics-connection.txt"), (Family::DataSource, "statistics-dsrc.txt")] {
        let text = std::fs::read_to_string(spec.join(file)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(family.descriptions(), &lines[..], "{file}");
        // Sorted by plain byte order, so id order is description order.
        assert!(lines.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes()), "{file}");
    }
}
