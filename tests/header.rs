//! The committed `include/wiredtiger.h` must be exactly what cbindgen generates from the
//! sources (build.rs writes it to OUT_DIR). Refresh it with `tools/update-header`.

#[test]
fn committed_header_is_current() {
    let generated = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/wiredtiger.h")).expect("build.rs wrote the header");
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/wiredtiger.h"))
        .expect("include/wiredtiger.h exists");
    assert!(
        generated == committed,
        "include/wiredtiger.h is stale: run tools/update-header and commit the result"
    );
}

/// `src/stats/ids.h` (the `WT_STAT_*` keys in the header) is what tools/gen_stat_ids.py makes
/// from the spec's statistics tables, and the header defines every key of statistics-ids.tsv.
/// Skipped with a note when the spec is not beside the checkout.
#[test]
fn statistics_keys_match_the_spec() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = root.join("../shared/spec");
    if !spec.join("statistics-ids.tsv").exists() {
        eprintln!("note: ../shared/spec not found; statistics key check skipped");
        return;
    }
    let out = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ids.h");
    let status = std::process::Command::new("python3")
        .arg(root.join("tools/gen_stat_ids.py"))
        .arg(&spec)
        .arg(&out)
        .status()
        .expect("run python3");
    assert!(status.success());
    let generated = std::fs::read_to_string(&out).unwrap();
    let committed = std::fs::read_to_string(root.join("src/stats/ids.h")).unwrap();
    assert!(generated == committed, "src/stats/ids.h is stale: run tools/gen_stat_ids.py ../shared/spec");
    let header = std::fs::read_to_string(root.join("include/wiredtiger.h")).unwrap();
    let tsv = std::fs::read_to_string(spec.join("statistics-ids.tsv")).unwrap();
    let mut keys = 0;
    for line in tsv.lines().skip(1) {
        let mut cols = line.split('\t');
        let (name, id) = (cols.next().unwrap(), cols.next().unwrap());
        assert!(header.contains(&format!("#define {name} {id}\n")), "{name} {id} missing from the header");
        keys += 1;
    }
    assert_eq!(keys, 1019);
}

/// The header is a superset of the reference's: every include, macro, struct, typedef,
/// enumerator and library function of WiredTiger 11.3.1's `wiredtiger.h` (listed once by
/// tools/reference-header-names in tests/data/reference-header-names.txt) is declared here too,
/// found by the same scan of our header.
#[test]
fn header_declares_every_reference_name() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new("python3")
        .arg(root.join("tools/reference-header-names"))
        .arg(root.join("include/wiredtiger.h"))
        .output()
        .expect("run python3");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ours: std::collections::HashSet<String> = String::from_utf8(out.stdout).unwrap().lines().map(String::from).collect();
    let reference = std::fs::read_to_string(root.join("tests/data/reference-header-names.txt")).unwrap();
    let missing: Vec<&str> = reference
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter(|l| !ours.contains(*l))
        .collect();
    assert!(reference.lines().count() > 1200, "the reference list is incomplete");
    assert!(missing.is_empty(), "include/wiredtiger.h lacks {} reference names: {missing:?}", missing.len());
}
