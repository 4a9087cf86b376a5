#![no_main]
// Arbitrary bytes read as the files of a native source (rollouts, transcripts, Zed logs).
libfuzzer_sys::fuzz_target!(|data: &[u8]| lineage_core::fuzz::native_files(data));
