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
