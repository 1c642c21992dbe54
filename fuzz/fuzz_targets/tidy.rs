//! Fuzz target `tidy`: see `gleaner_fuzz::tidy` for the entry point and the invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gleaner_fuzz::tidy(data));
