#![no_main]
// Arbitrary bytes replayed as a trace (every supported format and detection).
libfuzzer_sys::fuzz_target!(|data: &[u8]| lineage_core::fuzz::trace_bytes(data));
