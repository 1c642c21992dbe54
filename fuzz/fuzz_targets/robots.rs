//! Fuzz target `robots`: see `gleaner_fuzz::robots` for the entry point and the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gleaner_fuzz::robots(data));
