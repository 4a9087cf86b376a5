#![no_main]
// Arbitrary `Vec<Event>` folded with invariants checked after every step.
libfuzzer_sys::fuzz_target!(|data: &[u8]| lineage_core::fuzz::events(data));
