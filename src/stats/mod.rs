//! Statistics: what the engine counts and how statistics cursors report it.

pub mod counters;
