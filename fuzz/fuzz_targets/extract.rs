//! Fuzz target `extract`: see `gleaner_fuzz::extract` for the entry point and the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gleaner_fuzz::extract(data));
