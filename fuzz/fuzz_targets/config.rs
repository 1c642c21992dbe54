//! Fuzz target `config`: see `gleaner_fuzz::config` for the entry point and the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gleaner_fuzz::config(data));
