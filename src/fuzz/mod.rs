//! Fuzz target bodies (TESTING.md, "Fuzzing"): each takes arbitrary bytes and must return
//! without panicking, hanging or allocating without bound, whatever the bytes.
//!
//! They live in the library so that two drivers share them: the coverage-guided fuzzers of
//! `fuzz/` (libFuzzer, built by `tools/fuzz`) and `tests/fuzz_corpus.rs`, which replays the
//! committed seeds and every crash found so far in a plain `cargo test`. A target checks the
//! properties that must hold (round trips, agreeing sizes) with `assert!`: a failed one is a
//! bug, like a crash.

mod capi;
mod config;
mod ondisk;
mod pack;
mod seeds;

pub use self::capi::capi;
pub use self::config::config;
pub use self::ondisk::{files, ondisk, remove_scratch};
pub use self::pack::pack;
pub use self::seeds::write_seeds;

/// The targets by name (the names of `fuzz/`'s binaries and of `fuzz/corpus/`'s folders).
pub const TARGETS: [(&str, fn(&[u8])); 5] =
    [("config", config), ("pack", pack), ("capi", capi), ("ondisk", ondisk), ("files", files)];

/// Splits off the first byte (a selector); `None` for empty input.
fn split_first(data: &[u8]) -> Option<(u8, &[u8])> {
    data.split_first().map(|(&b, rest)| (b, rest))
}

/// Splits `data` at its first occurrence of `sep` (without it); all of it when there is none.
fn split_at_byte(data: &[u8], sep: u8) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == sep) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}
