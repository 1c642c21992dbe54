//! Fuzz target `feed`: see `gleaner_fuzz::feed` for the entry point and the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gleaner_fuzz::feed(data));
