//! Build script: compiles the C shim for the variadic methods and generates `wiredtiger.h`.
//!
//! The header is written to `OUT_DIR` only; `tests/header.rs` fails when the committed
//! `include/wiredtiger.h` differs from it (run `tools/update-header` to refresh it).

use std::env;
use std::fs;
use std::path::PathBuf;

/// Public C functions implemented in the shim (stable Rust cannot define C-variadic
/// functions). rustc's own version script hides C symbols of a cdylib, so these get an extra
/// version script that keeps them global.
const SHIM_EXPORTS: &[&str] = &["wiredtiger_struct_pack", "wiredtiger_struct_size", "wiredtiger_struct_unpack"];

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));

    let header = out.join("wiredtiger.h");
    let mut config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml is valid");
    // The statistics keys (generated from the reference's tables by tools/gen_stat_ids.py).
    let stat_ids = fs::read_to_string(root.join("src/stats/ids.h")).expect("src/stats/ids.h exists");
    // The types applications fill in for the library (written in C: no Rust code builds them).
    let extension_types =
        fs::read_to_string(root.join("src/capi/extension_types.h")).expect("src/capi/extension_types.h exists");
    let after = config.after_includes.take().unwrap_or_default();
    config.after_includes = Some(format!("{after}\n{}\n\n{}\n", extension_types.trim_end(), stat_ids.trim_end()));
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(root.join("src/lib.rs"))
        .generate()
        .expect("cbindgen generates the header")
        .write_to_file(&header);

    // The shim includes the generated header, so it always matches the Rust structs.
    let mut shim = cc::Build::new();
    // The shim handles no floating-point arguments: without this, every variadic entry spills
    // eight vector registers for va_start.
    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86_64") {
        shim.flag_if_supported("-mgeneral-regs-only");
    }
    shim.file(root.join("src/capi/shim.c"))
        .include(&out)
        .flag_if_supported("-std=c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .opt_level(3)
        .flag_if_supported("-fomit-frame-pointer")
        .compile("unlatched_shim");

    let map = out.join("shim-exports.map");
    let globals: String = SHIM_EXPORTS.iter().map(|s| format!("{s}; ")).collect();
    fs::write(&map, format!("{{ global: {globals}}};\n")).expect("write the version script");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", map.display());

    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=build.rs");
}
